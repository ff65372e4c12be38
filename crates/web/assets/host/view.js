// MCP Apps views on the host page: each view's sandbox frame, shown beside its call. The page
// decides nothing about a view's messages: it relays them, checked, between the frame and the
// host (whose bridge reads them), and shows what the host's record says (size, mode, what the
// view said). A frame is created once and never moved in the page (moving reloads it).
//
// Relay rules: a message from a frame counts only if it comes from that frame's window and
// from that view's sandbox origin; a message for a view is posted to its frame with that origin
// as the target, so it reaches nothing else.

import { askWho, copyButton, h, replace } from './dom.js';
import { linkFacts, warnings } from './url.js';

const views = new Map(); // view id -> { li, frame, origin, body, sig }

/** The host context this page gives every view (the host adds the call's tool). */
function pageContext(width) {
  const dark = document.documentElement.dataset.theme === 'dark'
    || (!document.documentElement.dataset.theme && window.matchMedia('(prefers-color-scheme: dark)').matches);
  return {
    theme: dark ? 'dark' : 'light',
    locale: navigator.language || 'en',
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    platform: 'web',
    userAgent: 'interlude',
    containerDimensions: { width: Math.max(200, Math.round(width || 600)), maxHeight: 6000 },
    deviceCapabilities: { hover: window.matchMedia('(hover: hover)').matches, touch: window.matchMedia('(pointer: coarse)').matches },
  };
}

/** The list item of view `v` (made once, updated in place). */
export function viewItem(v, api) {
  let entry = views.get(v.id);
  if (!entry) {
    const box = h('div', { class: 'app-frame-box' });
    const body = h('div', { class: 'app-notes' });
    // A view that renders a question sits in that question's card, whose chrome (cancel, the
    // plain form) is the host's; it has no header of its own.
    const li = h(v.request !== null && v.request !== undefined ? 'div' : 'li', { class: 'app-view', dataset: { view: v.id } },
      v.request !== null && v.request !== undefined ? null : h('header', { class: 'app-head' },
        h('span', { class: 'app-title' }, h('span', { class: 'chip', title: v.embedded !== null && v.embedded !== undefined ? 'Embedded in the tool’s result (MCP-UI)' : null }, v.site ? 'web page' : v.embedded !== null && v.embedded !== undefined ? 'ui resource' : 'app'), ` ${v.server} › ${v.tool}`),
        h('span', { class: 'app-uri mono' }, v.resourceUri),
        h('button', { type: 'button', class: 'ghost app-inline', 'aria-label': `Back inline: the app view of ${v.tool}`, onclick: () => api.post(`/api/views/${v.id}/mode`, { mode: 'inline' }) }, 'Back inline'),
        h('button', { type: 'button', class: 'ghost app-close', 'aria-label': `Close the app view of ${v.tool}`, onclick: () => api.post(`/api/views/${v.id}/close`, {}) }, 'Close')),
      box,
      body);
    entry = { li, box, frame: null, origin: v.origin, body, sig: '', framed: false };
    views.set(v.id, entry);
  }
  // The frame is made once, when the view is open, and never moved or reloaded.
  if (!entry.framed && v.src) {
    entry.framed = true;
    entry.origin = v.origin;
    entry.frame = h('iframe', {
      class: 'app-frame',
      title: `App view of ${v.tool} (${v.server})`,
      sandbox: 'allow-scripts allow-same-origin allow-forms',
      allow: v.allow || null,
      referrerpolicy: 'no-referrer',
    });
    // The page's context reaches the view in its handshake, or (if it comes later) as a change.
    api.post(`/api/views/${v.id}/context`, { changes: pageContext(entry.li.clientWidth) });
    entry.frame.src = `${v.src}&h=${encodeURIComponent(location.origin)}`;
    entry.box.append(entry.frame);
    entry.sig = '';
  }
  const sig = JSON.stringify([v.state, v.height, v.displayMode, v.prefersBorder, v.messages, v.intents, v.notices, v.site, v.logs, v.console, v.error, v.external, v.refusedDomains, v.downloads, v.appTools, v.appToolResults]);
  if (sig !== entry.sig) {
    entry.sig = sig;
    const li = entry.li;
    li.dataset.state = v.state;
    li.dataset.mode = v.displayMode || 'inline';
    li.classList.toggle('borderless', v.prefersBorder === false);
    if (entry.frame) entry.frame.style.height = `${Math.max(80, v.height || 160)}px`;
    replace(entry.body,
      v.state === 'loading' ? h('div', { class: 'what' }, 'Loading the app…') : null,
      v.state === 'failed' ? h('div', { class: 'server-error' }, `The app could not open: ${v.error}`) : null,
      v.site && !v.site.framed && v.state === 'open' ? siteChoice(v, api) : null,
      (v.notices || []).map((n) => h('div', { class: 'app-notice', role: 'status' }, h('strong', {}, 'Notice from the app: '), n)),
      v.external ? h('div', { class: 'what' }, 'This app talks to other sites its server declared.') : null,
      v.refusedDomains?.length ? h('div', { class: 'what' }, `Refused in its declaration: ${v.refusedDomains.join('; ')}`) : null,
      (v.downloads || []).map((d) => h('div', { class: 'app-download', dataset: { question: d.question } },
        h('strong', {}, 'The app offers to save: '),
        d.files.map((f) => `${f.name} (${f.mimeType}, ${f.size} bytes)`).join(', '),
        ' ',
        h('button', { type: 'button', class: 'primary app-save', onclick: () => save(v.id, d.question, api) }, 'Save'),
        ' ',
        h('button', { type: 'button', class: 'ghost app-nosave', onclick: () => api.post(`/api/views/${v.id}/download`, { question: d.question, saved: false }) }, 'Don’t save'))),
      (v.appTools || []).length ? h('div', { class: 'app-tools' },
        h('strong', {}, 'The app’s own tools: '),
        v.appTools.map((t) => h('button', { type: 'button', class: 'ghost app-tool', title: t.description || '', dataset: { tool: t.name },
          onclick: () => api.post(`/api/views/${v.id}/tool`, { name: t.name, arguments: {} }) }, t.name))) : null,
      (v.appToolResults || []).map((r) => h('div', { class: 'app-tool-result mono' }, `${r.name} → `,
        r.error ? `error: ${r.error}` : (r.result?.content || []).map((c) => (c.type === 'text' ? c.text : JSON.stringify(c))).join(' ') || JSON.stringify(r.result?.structuredContent ?? r.result))),
      (v.messages || []).map((m) => {
        const text = (Array.isArray(m) ? m : [m]).map((b) => (b && b.type === 'text' ? b.text : JSON.stringify(b))).join(' ');
        return h('div', { class: 'app-message' }, h('strong', {}, 'The app asks to say, as you: '), h('span', { class: 'said' }, text), ' ',
          copyButton('Copy what the app asks to say', () => text),
          h('span', { class: 'what' }, ' (nothing is sent to a model)'));
      }),
      (v.intents || []).map((i) => {
        const params = JSON.stringify(i.params);
        return h('div', { class: 'app-intent' }, h('strong', {}, 'The app asks to do: '), h('span', { class: 'mono' }, i.intent),
          params !== '{}' ? h('span', { class: 'mono' }, ` ${params}`) : null, ' ',
          copyButton('Copy what the app asks to do', () => `${i.intent} ${params}`),
          h('span', { class: 'what' }, ' (nothing is sent to a model)'));
      }),
      (v.console || []).length ? h('details', { class: 'app-console' }, h('summary', {}, `Console (${v.console.length})`),
        v.console.map((l) => h('div', { class: `mono console-${l.level}` }, `${l.level}: ${l.text}`))) : null,
      (v.logs || []).length ? h('details', { class: 'app-logs' }, h('summary', {}, `Log (${v.logs.length})`),
        v.logs.map((l) => h('div', { class: 'mono' }, `${l.level}: ${typeof l.data === 'string' ? l.data : JSON.stringify(l.data)}`))) : null);
  }
  return entry.li;
}

/** An embedded web page not shown yet: the page as the URL rules see it, and the person's
 * choice — show it here (framed in the sandbox, without its own origin's rights) or open it in
 * a tab of their own. A flagged page is named by its ASCII form on both buttons. */
function siteChoice(v, api) {
  const link = v.site.link;
  const flagged = link.verdict === 'flag';
  const named = flagged ? (link.hostAscii || link.domain) : (link.domain || link.hostPrefix);
  return h('div', { class: 'site-choice' },
    h('p', { class: 'ask-message' }, `The result of ${v.tool} carries a web page. It is not shown until you choose.`),
    linkFacts(link),
    warnings(link),
    h('div', { class: 'actions' },
      h('button', { type: 'button', class: flagged ? 'site-show' : 'primary site-show', onclick: (e) => {
        e.currentTarget.disabled = true;
        api.post(`/api/views/${v.id}/site`, {});
      } }, `Show ${named || 'the page'} here`),
      h('button', { type: 'button', class: 'site-open', onclick: () => {
        window.open(link.full, '_blank', 'noopener,noreferrer');
      } }, `Open ${named || 'the page'} in a new tab`)),
    h('p', { class: 'ask-note' }, 'Shown here, the page runs sandboxed: it cannot reach this host or its cookies; it may ask for its server’s tools like any view.'));
}

/** The card of a question a server asks in its app view (app-rendered elicitation): the view
 * in a frame, and around it the host's own chrome — who asks, why nothing was sent when the
 * view's answer broke the form's rules, the plain form instead, and cancel — outside the
 * frame, where the view cannot reach. Made once per question; `update` keeps it current. */
export function renderQuestionCard(req, api) {
  const titleId = `q-${req.id}`;
  const slot = h('div', { class: 'question-view' });
  const status = h('p', { class: 'ask-note question-status', role: 'status' }, 'Loading its view…');
  const refused = h('div', { class: 'ask-errors', role: 'alert' });
  const cancel = () => api.answer(req.id, 'cancel');
  const card = h('section', {
    class: 'ask question', role: 'region', 'aria-labelledby': titleId, tabindex: '-1', dataset: { request: req.id, server: req.server },
    onkeydown: (e) => { if (e.key === 'Escape') { e.preventDefault(); cancel(); } },
  },
  h('div', { class: 'ask-head' },
    h('div', {}, h('div', { class: 'ask-from' }, 'Request from server, in its app view'), askWho(req, titleId)),
    h('span', { class: `chip era-${req.era}` }, req.era === 'mrtr' ? '2026-07-28 round' : '2025 request'),
    req.tool ? h('span', { class: 'chip' }, `tool ${req.tool}`) : null,
    h('button', { type: 'button', class: 'ghost ask-close', 'aria-label': 'Close (cancel this request)', onclick: cancel }, '✕')),
  h('div', { class: 'ask-body' },
    h('p', { class: 'ask-message' }, req.message),
    status,
    refused,
    slot,
    h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'ghost question-plain', onclick: (e) => {
        // A sign of life at once: the form replaces the view when the host has taken it back.
        e.currentTarget.disabled = true;
        status.textContent = 'Switching to the plain form…';
        api.post('/api/plain-form', { id: req.id });
      } }, 'Answer in a plain form instead'),
      h('button', { type: 'button', class: 'ghost question-cancel', onclick: cancel }, 'Cancel'),
      h('span', { class: 'spacer' }),
      h('span', { class: 'kbd-hint' }, h('kbd', {}, 'Esc'), ' cancel'),
      h('span', { class: 'mono question-uri' }, req.app?.resourceUri || ''))));
  return {
    element: card,
    focus: () => card.focus({ preventScroll: true }),
    setEngineErrors: (errors) => {
      refused.textContent = errors?.length
        ? 'The view’s answer was not sent — it breaks the form’s rules: ' + errors.map((e) => `${e.field} ${e.message}`).join('; ') + '. The view was told why.'
        : '';
    },
    errorsKey: '',
    stage: 'view',
    /** Puts view `v` (the one bound to this question) in the card, once, and says how it is. */
    update(v) {
      if (!v) return;
      const el = viewItem(v, api);
      if (el.parentNode !== slot) slot.append(el);
      status.textContent = v.state === 'loading' ? 'Loading its view…'
        : v.state === 'open' && !v.live ? 'Starting its view…'
          : v.state === 'open' ? 'Answer in the view below; the server waits until you do.' : '';
    },
  };
}

/** Saves the files of offer `question` of view `id` through the page (the view's sandbox has
 * no downloads), then tells the host. */
async function save(id, question, api) {
  const r = await fetch(`/api/views/${id}/downloads/${question}`, { headers: { 'x-interlude-token': api.token } });
  if (!r.ok) return;
  const { files } = await r.json();
  for (const f of files) {
    let blob;
    if (typeof f.text === 'string') blob = new Blob([f.text], { type: f.mimeType });
    else {
      const bytes = Uint8Array.from(atob(f.blob || ''), (c) => c.charCodeAt(0));
      blob = new Blob([bytes], { type: f.mimeType });
    }
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = f.name;
    a.rel = 'noopener';
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
  }
  api.post(`/api/views/${id}/download`, { question, saved: true });
}

/** Forgets views no longer shown. */
export function forgetViews(live) {
  for (const id of views.keys()) if (!live.has(id)) views.delete(id);
}

/** A message for view `view`, from the host's bridge. */
export function toView({ view, message }) {
  const entry = views.get(view);
  if (!entry || !entry.frame || !entry.frame.contentWindow || !entry.origin) return;
  entry.frame.contentWindow.postMessage(message, entry.origin);
}

/**
 * A message the host never took (too large, nested too deeply, not JSON): a request among them
 * gets its error at once, instead of waiting for the view's own timeout.
 */
function refused(entry, message, why) {
  const id = message && typeof message === 'object' ? message.id : undefined;
  const request = typeof message?.method === 'string' && (typeof id === 'string' || typeof id === 'number');
  if (!request || !entry.frame?.contentWindow || !entry.origin) return;
  entry.frame.contentWindow.postMessage({
    jsonrpc: '2.0',
    id,
    error: { code: -32600, message: `The host did not take this request: ${String(why).slice(0, 200)}` },
  }, entry.origin);
}

/** Relays messages from view frames to the host; everything else is ignored. */
export function listen(api) {
  window.addEventListener('resize', () => resized(api));
  window.addEventListener('message', (event) => {
    for (const [id, entry] of views) {
      if (entry.frame && event.source === entry.frame.contentWindow) {
        if (event.origin !== entry.origin) return;
        // One at a time, in the order the view sent them: concurrent posts may reach the host
        // out of order (a save-state call after its teardown answer, a notification before
        // the request it follows).
        const message = event.data;
        entry.relay = (entry.relay || Promise.resolve())
          .then(() => api.post(`/api/views/${id}/message`, { message }))
          .then((r) => { if (!r.ok) refused(entry, message, r.data?.error || `the host could not take it (HTTP ${r.status})`); })
          .catch((e) => refused(entry, message, `the page could not relay it (${e.message})`));
        return;
      }
    }
  });
}

/** The page was resized: every framed view hears its new container width (debounced). */
let resizeTimer = null;
function resized(api) {
  clearTimeout(resizeTimer);
  resizeTimer = setTimeout(() => {
    for (const [id, entry] of views) {
      if (entry.framed && entry.li.isConnected) {
        api.post(`/api/views/${id}/context`, { changes: { containerDimensions: pageContext(entry.li.clientWidth).containerDimensions } });
      }
    }
  }, 150);
}

/** The page's theme changed: every view hears it. */
export function themeChanged(api) {
  for (const [id, entry] of views) {
    if (entry.framed) api.post(`/api/views/${id}/context`, { changes: { theme: pageContext(entry.li.clientWidth).theme } });
  }
}
