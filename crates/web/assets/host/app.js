// The Interlude host page: a thin renderer of the host's view-model, received over one
// server-sent-events stream. Every decision (validation, queueing, what reaches a server) is made
// in Rust; this file draws and relays.

import { copyButton, h, replace, pretty, uid } from './dom.js';
import { catalogOf, paintSubscriptions, showCatalog } from './catalog.js';
import { buildFields } from './form.js';
import { rendererOf, unrenderable } from './kinds.js';
import { logServer, refreshLog, showCallMessages, toggleLog, whenClosed } from './log.js';
import { forgetViews, listen as listenToViews, themeChanged, toView, viewItem } from './view.js';

const token = new URLSearchParams(location.search).get('token') || '';
const $ = (id) => document.getElementById(id);

const api = {
  token,
  async post(path, body) {
    const res = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-interlude-token': token },
      body: JSON.stringify(body),
    });
    let data = null;
    try { data = await res.json(); } catch { /* empty body */ }
    return { ok: res.ok, status: res.status, data };
  },
  async validate(id, content) {
    const r = await this.post('/api/validate', { id, content });
    return r.ok ? r.data : { errors: {} };
  },
  answer(id, action, content) {
    lastAnswered = id;
    return this.post('/api/answer', { id, action, content });
  },
  /** The server named `name` as the page's state has it. */
  server(name) {
    return state?.servers?.find((s) => s.name === name);
  },
  /** The catalog shown changed: the servers' buttons say which is open. */
  catalogChanged() {
    renderServers();
  },
  /** The protocol pane on call `call`'s messages. */
  showMessages(server, call) {
    showCallMessages(server, call, this).then(() => renderServers());
  },
};

// The request the person answered last: once its card is gone, focus goes to its call.
let lastAnswered = null;

let state = null;
let selectedTool = null; // {server, tool}
const cards = new Map(); // request id -> {element, focus, setEngineErrors, errorsKey}
let focusedActive = null;
let lastServersJson = '';
let lastGuideJson = '';

// The sticky top bar's height, for whatever scrolls into view under it (it wraps to two rows
// in a narrow window).
const topbar = document.querySelector('.topbar');
if (topbar && 'ResizeObserver' in window) {
  new ResizeObserver(() => {
    document.documentElement.style.setProperty('--topbar-h', `${Math.ceil(topbar.getBoundingClientRect().height)}px`);
  }).observe(topbar);
}

// ---- theme -------------------------------------------------------------------------------
const themes = ['auto', 'light', 'dark'];
function applyTheme(t) {
  if (t === 'auto') document.documentElement.removeAttribute('data-theme');
  else document.documentElement.setAttribute('data-theme', t);
  $('theme').textContent = `Theme: ${t}`;
}
let theme = localStorage.getItem('interlude-theme') || 'auto';
applyTheme(theme);
$('theme').addEventListener('click', () => {
  theme = themes[(themes.indexOf(theme) + 1) % themes.length];
  localStorage.setItem('interlude-theme', theme);
  applyTheme(theme);
  themeChanged(api);
});

// ---- servers and tools -------------------------------------------------------------------
// The tool filter above the servers: names, titles and descriptions, case-insensitive.
let toolFilter = '';
$('tool-filter')?.addEventListener('input', (e) => { toolFilter = e.target.value; renderServers(); });

function toolMatches(t) {
  const f = toolFilter.trim().toLowerCase();
  return !f || [t.name, t.title, t.description].some((x) => (x || '').toLowerCase().includes(f));
}

function renderServers() {
  const json = JSON.stringify([state.servers, selectedTool, logServer(), toolFilter, catalogOf()]);
  if (json === lastServersJson) return;
  lastServersJson = json;
  const filtering = toolFilter.trim() !== '';
  $('tool-filter-row').hidden = state.servers.reduce((n, s) => n + s.tools.length, 0) < 6;
  const items = state.servers.map((s) => {
    const tools = s.tools.filter(toolMatches).map((t) => {
      const pressed = selectedTool && selectedTool.server === s.name && selectedTool.tool === t.name;
      return h('li', {}, h('button', {
        type: 'button', class: 'tool-btn', 'aria-pressed': pressed ? 'true' : 'false',
        // A server that is not connected has nothing to call.
        disabled: s.status === 'ready' ? null : true,
        onclick: () => selectTool(s.name, t.name),
      }, h('span', { class: 'tool-name' }, t.name, t.view ? h('span', { class: 'chip tool-view', title: `Shows its results in the app ${t.view}` }, 'app') : null),
        t.description ? h('span', { class: 'tool-desc' }, t.description) : null));
    });
    const appOnly = s.appOnlyTools || [];
    const said = s.title || s.name;
    return h('li', { class: 'server', dataset: { server: s.name } },
      h('div', { class: 'server-head' },
        h('span', { class: `dot ${s.status}`, role: 'img', 'aria-label': s.status }),
        h('span', { class: 'server-name' }, said),
        said !== s.name ? h('span', { class: 'chip server-config-name', title: 'The name this host knows it by' }, s.name) : null,
        h('span', { class: 'chip' }, s.transport),
        s.protocolVersion ? h('span', { class: `chip era-${s.era}` }, s.protocolVersion) : null,
        h('button', { type: 'button', class: 'ghost log-btn', 'aria-pressed': logServer() === s.name ? 'true' : 'false',
          onclick: () => { toggleLog(s.name, api).then(() => renderServers()); } }, 'Protocol')),
      h('div', { class: 'server-meta' }, [s.version ? `v${s.version}` : null, s.status !== 'ready' ? s.status : null].filter(Boolean).join(' · ') || null),
      // What it is: the command line or the URL it was added with.
      h('div', { class: 'server-meta server-target', title: s.target }, s.target),
      s.status === 'connecting' && s.negotiation ? h('div', { class: 'server-meta negotiation', role: 'status' }, `Negotiating: ${s.negotiation}`) : null,
      s.error ? h('div', { class: 'server-error' }, s.error) : null,
      s.status === 'ready' ? h('div', { class: 'server-actions' },
        h('button', { type: 'button', class: 'ghost server-catalog', 'aria-pressed': catalogOf() === s.name ? 'true' : 'false',
          onclick: () => showCatalog($('catalog'), catalogOf() === s.name ? null : s.name, api) }, 'Resources & prompts'),
        h('button', { type: 'button', class: 'ghost server-disconnect', title: 'Close the connection (Retry connects it again)', onclick: () => api.post('/api/servers/disconnect', { name: s.name }), 'aria-label': `Disconnect ${s.name}` }, 'Disconnect')) : null,
      s.status === 'failed' || s.status === 'closed' ? h('div', { class: 'server-actions' },
        h('button', { type: 'button', class: 'ghost server-retry', 'aria-label': `${s.status === 'closed' ? 'Reconnect' : 'Retry'} ${s.name}`, onclick: () => api.post('/api/servers/retry', { name: s.name }) }, s.status === 'closed' ? 'Reconnect' : 'Retry'),
        h('button', { type: 'button', class: 'ghost server-remove', 'aria-label': `Remove ${s.name}`, onclick: () => api.post('/api/servers/remove', { name: s.name }) }, 'Remove')) : null,
      tools.length ? h('ul', { class: 'tools', 'aria-label': `Tools of ${s.name}` }, tools) : null,
      filtering && !tools.length && s.tools.length ? h('div', { class: 'server-meta no-match' }, `None of its ${s.tools.length} tools matches “${toolFilter.trim()}”.`) : null,
      appOnly.length ? h('div', { class: 'server-meta app-only', title: appOnly.join(', ') },
        `${appOnly.length} more tool${appOnly.length > 1 ? 's' : ''} only its app views call`) : null);
  });
  replace($('servers'), items);
}

function renderGuide() {
  const json = JSON.stringify(state.guide);
  if (json === lastGuideJson) return;
  lastGuideJson = json;
  const g = state.guide;
  const el = $('guide');
  if (!g) { el.hidden = true; return; }
  el.hidden = false;
  // The guide folds away, and stays folded on the next visit (this browser remembers it).
  const folded = localStorage.getItem(GUIDE_FOLDED) === '1';
  const steps = (g.steps || []);
  const details = h('details', { class: 'guide-fold', open: folded ? null : true },
    h('summary', {}, h('h2', {}, g.title || 'Guide'), h('span', { class: 'what guide-count' }, ` ${steps.length} step${steps.length === 1 ? '' : 's'}`)),
    g.intro ? h('p', {}, withCode(g.intro)) : null,
    h('ol', {}, steps.map((s, i) => h('li', {},
      h('div', { class: 'g-title' }, h('span', { id: `g-step-${i}` }, s.title),
        h('button', { type: 'button', class: 'link', onclick: async () => { const r = await callTool(s.server, s.tool, null); if (!r.ok) selectTool(s.server, s.tool); }, 'aria-describedby': `g-step-${i}` }, 'Try it', h('span', { 'aria-hidden': 'true' }, ' →'))),
      h('div', { class: 'g-text' }, withCode(s.text))))));
  details.addEventListener('toggle', () => {
    try { localStorage.setItem(GUIDE_FOLDED, details.open ? '0' : '1'); } catch { /* private mode: not remembered */ }
  });
  replace(el, details);
}

const GUIDE_FOLDED = 'interlude-guide-folded';

/** `text` with its `backticked` parts as code. */
function withCode(text) {
  return String(text).split('`').map((part, i) => (i % 2 ? h('code', {}, part) : part));
}

function findTool(server, tool) {
  return state?.servers.find((s) => s.name === server)?.tools.find((t) => t.name === tool);
}

function selectTool(server, tool, args = null) {
  selectedTool = { server, tool, args };
  renderServers();
  renderComposer();
  if (args) $('composer').scrollIntoView({ block: 'nearest' });
}

let composerKey = '';
// The open composer's way to stop checking (its tool was closed or another one chosen).
let disposeComposer = null;

/**
 * The tool form: the tool's arguments as form fields when its input schema fits the form (with
 * an "Edit as JSON" switch for what the fields cannot express), or as JSON. The host checks the
 * arguments against the whole input schema as they change (`/api/validate-arguments`) and again
 * when the call is made (`/api/call`); its messages show as on a request's card: under each
 * field, and how many need attention once Call was pressed.
 */
/** Closes the tool form (its Close button, or Esc inside it). */
function closeComposer() {
  selectedTool = null;
  renderServers();
  renderComposer();
}

function renderComposer() {
  const el = $('composer');
  if (!selectedTool) { el.hidden = true; composerKey = ''; disposeComposer?.(); disposeComposer = null; return; }
  const key = JSON.stringify([selectedTool.server, selectedTool.tool, selectedTool.args ?? null]);
  if (key === composerKey) return;
  composerKey = key;
  disposeComposer?.();
  const t = findTool(selectedTool.server, selectedTool.tool);
  if (!t) { el.hidden = true; return; }
  el.hidden = false;
  const { server } = selectedTool;
  const tool = t.name;
  const errorsBox = h('div', { class: 'ask-errors', role: 'alert' });
  const jsonErrId = uid('json-err');
  const jsonErrors = h('ul', { class: 'field-error json-errors', id: jsonErrId });
  const json = h('textarea', { class: 'args-json', rows: 8, spellcheck: 'false', 'aria-label': 'Arguments (JSON object)', 'aria-describedby': jsonErrId, oninput: () => changed() });
  const slot = h('div', { class: 'args-slot' });
  let form = null;
  let asJson = !t.fields;
  let submitted = false;
  let touchedJson = false;
  let disposed = false;
  let timer = null;
  // Each change makes answers to earlier checks stale: they judged other arguments.
  let generation = 0;

  const defaults = () => Object.fromEntries((t.fields || []).filter((f) => f.default !== undefined).map((f) => [f.name, f.default]));
  function showForm(values) {
    form = buildFields(t.fields, values, { onChange: () => changed() });
    replace(slot, form.element);
  }
  function showJson(text) {
    json.value = text;
    replace(slot, json, jsonErrors);
  }
  // Run again: the past call's arguments, in the form when they fit its fields, else as JSON.
  const again = selectedTool.args;
  const fits = again && !asJson && Object.keys(again).every((k) => t.fields.some((f) => f.name === k && typeof again[k] !== 'object'));
  if (again && !fits) asJson = true;
  if (asJson) showJson(again ? JSON.stringify(again, null, 2) : '{}');
  else showForm(again || defaults());

  /** What goes to the host: the form's arguments, or the JSON text as typed. */
  const payload = () => (asJson ? { server, tool, json: json.value } : { server, tool, arguments: form.collect() });

  function changed() {
    generation += 1;
    if (asJson) touchedJson = true;
    clearTimeout(timer);
    if (!disposed) timer = setTimeout(() => check(), 180);
  }

  function count(errors) {
    const n = errors.length;
    errorsBox.textContent = n === 0 ? '' : n === 1 ? 'One field needs attention.' : `${n} fields need attention.`;
  }

  /** Shows the host's messages: under their fields, or (JSON, or no such field) as a list. */
  function show(errors, { all = false } = {}) {
    if (asJson) {
      const shown = all || touchedJson ? errors : [];
      replace(jsonErrors, shown.map((e) => h('li', {}, e.message)));
      if (shown.length) json.setAttribute('aria-invalid', 'true'); else json.removeAttribute('aria-invalid');
      return;
    }
    const names = new Set(t.fields.map((f) => f.name));
    const byField = {};
    const rest = [];
    for (const e of errors) {
      if (names.has(e.field)) { if (!(e.field in byField)) byField[e.field] = e.message; } else rest.push(e.message);
    }
    form.showErrors(byField, { all });
    return rest;
  }

  async function check({ all = false } = {}) {
    if (disposed) return [];
    const asked = generation;
    const r = await api.post('/api/validate-arguments', payload());
    if (disposed) return [];
    if (asked !== generation) return check({ all });
    const errors = r.ok ? r.data?.errors || [] : [];
    report(errors, { all });
    return errors;
  }

  function report(errors, { all = false } = {}) {
    const rest = show(errors, { all }) || [];
    // In JSON, the list under the text is the whole story.
    if (!submitted || asJson) { if (asJson) errorsBox.textContent = ''; return; }
    count(errors);
    if (rest.length) errorsBox.textContent = `${errorsBox.textContent} ${rest.join(' ')}`;
  }

  async function submit(e) {
    e.preventDefault();
    submitted = true;
    clearTimeout(timer);
    if (form) form.markAllTouched();
    touchedJson = true;
    const errors = await check({ all: true });
    if (errors.length) { focusFirst(errors); return; }
    const r = await api.post('/api/call', payload());
    if (r.ok) { errorsBox.textContent = ''; return; }
    // Refused by the host after all (the tool's schema changed, say): the same messages.
    if (Array.isArray(r.data?.errors) && r.data.errors.length) { report(r.data.errors, { all: true }); focusFirst(r.data.errors); return; }
    errorsBox.textContent = r.data?.error || `The call failed (${r.status}).`;
  }

  function focusFirst(errors) {
    if (asJson) { json.focus(); return; }
    const first = errors.find((x) => t.fields.some((f) => f.name === x.field));
    if (first) form.focusField(first.field);
  }

  /** The switch between the form and JSON: the arguments go along, as they are. */
  async function toggleJson(e) {
    const sw = e.currentTarget;
    if (sw.checked) {
      const text = JSON.stringify(form.collect(), null, 2);
      asJson = true;
      touchedJson = false;
      showJson(text);
      json.focus();
    } else {
      // Back to the fields only with arguments they can show: the host reads the text first.
      const r = await api.post('/api/validate-arguments', { server, tool, json: json.value });
      const unreadable = (r.data?.errors || []).find((x) => x.pointer === '' && x.field === '');
      if (unreadable) { sw.checked = true; touchedJson = true; show([unreadable], { all: true }); return; }
      asJson = false;
      showForm(JSON.parse(json.value.trim() || '{}'));
      form.focusFirst();
    }
    generation += 1;
    if (submitted) check({ all: true });
  }

  const jsonSwitch = t.fields
    ? h('label', { class: 'switch json-switch' }, h('input', { type: 'checkbox', role: 'switch', onchange: toggleJson }), h('span', {}, 'Edit as JSON'))
    : null;
  replace(el,
    h('form', { novalidate: true, onsubmit: submit, onkeydown: (e) => { if (e.key === 'Escape' && !e.defaultPrevented) { e.preventDefault(); closeComposer(); } } },
      h('div', { class: 'composer-head' },
        h('h3', {}, `${selectedTool.server} › ${t.name}`),
        jsonSwitch),
      t.description ? h('p', { class: 'desc' }, t.description) : null,
      t.fields ? null : h('p', { class: 'desc' }, 'Its arguments are more than a form can show: write them as one JSON object.'),
      errorsBox,
      slot,
      h('div', { class: 'actions' },
        h('button', { type: 'submit', class: 'primary' }, 'Call tool'),
        h('button', { type: 'button', class: 'ghost', onclick: closeComposer }, 'Close'))));
  disposeComposer = () => { disposed = true; clearTimeout(timer); };
  // In sight, with focus in its first field (or on "Call tool" when there is none to fill).
  el.scrollIntoView({ block: 'nearest' });
  if (!form?.focusFirst()) el.querySelector('button.primary')?.focus();
}

async function callTool(server, tool, args) {
  const r = await api.post('/api/call', { server, tool, arguments: args && Object.keys(args).length ? args : null });
  return r;
}

// ---- timeline ----------------------------------------------------------------------------
/** Copies `text` and says so on `button` for a moment. */
/** `12.3 s`, `2 min 5 s`, `140 ms`. */
function duration(ms) {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60000)} min ${Math.round((ms % 60000) / 1000)} s`;
}

/** When a call started, and how long it took (or has been running: kept current by `tick`). */
function callTime(c) {
  const started = new Date(c.startedAtMs);
  const at = started.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' });
  const took = c.endedAtMs ? duration(c.endedAtMs - c.startedAtMs) : duration(Date.now() - c.startedAtMs);
  return h('span', { class: 'call-time', title: started.toLocaleString() },
    h('time', { datetime: started.toISOString() }, at), ' · ',
    h('span', { class: 'took', dataset: c.endedAtMs ? {} : { since: String(c.startedAtMs) } }, took));
}

/** A running call's progress, as its server last reported it. */
function renderProgress(c) {
  const p = c.progress;
  if (c.status !== 'running' || !p) return null;
  const total = typeof p.total === 'number' && p.total > 0 ? p.total : null;
  const bar = total ? h('progress', { value: String(Math.min(p.progress, total)), max: String(total) }) : h('progress', {});
  const amount = total ? `${p.progress} of ${total}` : `${p.progress}`;
  return h('div', { class: 'call-progress', role: 'status', 'aria-label': `Progress of ${c.tool}` },
    bar, h('span', { class: 'progress-text' }, amount, p.message ? ` — ${p.message}` : ''));
}

/** The task a call became (the Tasks extension): its status and what the server says it does.
 * The record keeps the server's last word while the call ran; once the call has ended (cancelled,
 * or failed when its server went away) a task last seen working or waiting ended with it, and
 * says how, rather than "waiting for you" under a call that no longer waits. */
const TASK_STATUS = { working: 'working', input_required: 'waiting for you', completed: 'completed', failed: 'failed', cancelled: 'cancelled' };
function renderTask(c) {
  const t = c.task;
  if (!t) return null;
  const stale = c.status !== 'running' && (t.status === 'working' || t.status === 'input_required');
  const status = stale ? (STATUS_TEXT[c.status] || c.status) : (TASK_STATUS[t.status] ?? t.status);
  return h('div', { class: 'call-task', role: 'status', 'aria-label': `Task of ${c.tool}`, title: `Task ${t.id}` },
    h('span', { class: 'chip task-chip' }, 'task'), ' ',
    h('span', { class: 'task-status' }, status),
    c.status === 'running' && t.statusMessage ? h('span', { class: 'task-line' }, ` — ${t.statusMessage}`) : null);
}

function renderResult(call) {
  if (call.status === 'running') return null;
  if (call.status === 'cancelled') return h('div', { class: 'result is-cancelled' }, h('div', { class: 'result-label' }, 'Cancelled'), h('div', { class: 'text' }, call.error || 'The call was cancelled.'));
  if (call.error) return h('div', { class: 'result is-error' }, h('div', { class: 'result-label' }, 'Error'), h('div', { class: 'text' }, call.error));
  const r = call.result || {};
  const parts = [];
  for (const [index, c] of (r.content || []).entries()) {
    if (c.type === 'text') parts.push(h('div', { class: 'text' }, c.text));
    else if (c.type === 'image' && /^image\/(png|jpeg|gif|webp)$/.test(c.mimeType || '')) parts.push(h('img', { src: `data:${c.mimeType};base64,${c.data}`, alt: 'Image returned by the tool' }));
    else if (c.type === 'resource' && embeddedView(call, index)) parts.push(embeddedNote(c, embeddedView(call, index)));
    else if (c.type === 'resource') parts.push(h('pre', {}, `${c.resource?.uri || ''}\n${c.resource?.text ?? '(binary)'}`));
    else parts.push(h('pre', {}, pretty(c)));
  }
  if (r.structuredContent !== undefined && r.structuredContent !== null) {
    // A call shown in an app view: its view renders the structured content; the raw form folds.
    const shownInApp = (state.views || []).some((v) => v.call === call.id && v.state === 'open');
    parts.push(shownInApp
      ? h('details', { class: 'structured' }, h('summary', { class: 'result-label' }, 'Structured content (shown in the app below)'), h('pre', {}, pretty(r.structuredContent)))
      : [h('div', { class: 'result-label' }, 'Structured content'), h('pre', {}, pretty(r.structuredContent))]);
  }
  const err = r.isError === true;
  const texts = (r.content || []).filter((c) => c.type === 'text').map((c) => c.text);
  return h('div', { class: `result${err ? ' is-error' : ''}` },
    h('div', { class: 'result-head' }, h('div', { class: 'result-label' }, err ? 'Tool error' : 'Result'),
      copyButton(`Copy the result of ${call.tool}`, () => (texts.length && texts.length === (r.content || []).length && r.structuredContent == null ? texts.join('\n') : JSON.stringify(r, null, 2)))),
    parts.length ? parts : h('div', { class: 'text' }, '(empty result)'));
}

/** The view the host opened for the UI resource at `index` of `call`'s result, if any. */
function embeddedView(call, index) {
  return (state.views || []).find((v) => v.call === call.id && v.embedded === index);
}

/** Where an embedded UI resource went: its view below, or why it is not shown (its source in a
 * fold, never rendered as a page here). */
function embeddedNote(c, v) {
  const uri = c.resource?.uri || '';
  const source = c.resource?.text ?? (c.resource?.blob !== undefined ? '(base64)' : '');
  if (v.state === 'failed') {
    return h('div', { class: 'embedded-note' },
      h('div', { class: 'what' }, `A view (${uri}) the server sent is not shown: ${v.error}.`),
      source ? h('details', {}, h('summary', {}, 'Its source'), h('pre', {}, source)) : null);
  }
  return h('div', { class: 'embedded-note what' }, v.site ? `A web page (${uri}), below.` : `Shown as a view below (${uri}).`);
}

const STATUS_TEXT = { running: 'running', done: 'done', 'tool-error': 'tool error', failed: 'failed', cancelled: 'cancelled' };

// Running calls' elapsed time, kept current.
setInterval(() => {
  for (const el of document.querySelectorAll('.took[data-since]')) el.textContent = duration(Date.now() - Number(el.dataset.since));
}, 1000);

// "Clear finished": what was finished when it was pressed is no longer shown (this tab only;
// the host keeps its record, and the protocol log has every message).
let clearedUpTo = JSON.parse(sessionStorage.getItem('interlude-cleared') || 'null') || { call: 0, req: 0 };

function clearFinished() {
  const done = (s) => s !== 'running' && s !== 'queued' && s !== 'active';
  const call = Math.max(0, ...state.calls.filter((c) => done(c.status)).map((c) => c.id));
  const req = Math.max(0, ...state.requests.filter((r) => done(r.status)).map((r) => r.id));
  clearedUpTo = { call: Math.max(call, clearedUpTo.call), req: Math.max(req, clearedUpTo.req) };
  try { sessionStorage.setItem('interlude-cleared', JSON.stringify(clearedUpTo)); } catch { /* not remembered */ }
  render();
}

// "Export session": the finished calls as a recording (`interlude replay FILE SERVER`).
async function exportSession() {
  const res = await fetch('/api/recording', { headers: { 'x-interlude-token': token } });
  if (!res.ok) return;
  const url = URL.createObjectURL(await res.blob());
  const a = h('a', { href: url, download: 'interlude-session.json' });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function cleared(it) {
  if (it.kind === 'call') return it.call.status !== 'running' && it.call.id <= clearedUpTo.call;
  if (it.kind === 'req') return it.req.status !== 'queued' && it.req.status !== 'active' && it.req.id <= clearedUpTo.req;
  if (it.kind === 'view') return (it.view.call ?? 0) <= clearedUpTo.call && state.calls.some((c) => c.id === it.view.call && c.status !== 'running');
  return false;
}

function timelineItems() {
  const items = [];
  const startOf = new Map(state.calls.map((c) => [c.id, c.startedAtMs]));
  for (const c of state.calls) items.push({ kind: 'call', key: `call-${c.id}`, call: c, at: c.startedAtMs });
  // A view right after its call (a view rendering a question sits in that question's card).
  for (const v of state.views || []) {
    if (v.request === null || v.request === undefined) items.push({ kind: 'view', key: `view-${v.id}`, view: v, at: (startOf.get(v.call) ?? 0) + 0.5 });
  }
  // A question shown in its app view is an entry of its own right after its call, so that
  // nothing around it re-renders (and reloads) its frame.
  for (const r of state.requests) {
    if (inView(r)) items.push({ kind: 'question', key: `question-${r.id}`, req: r, at: (startOf.get(r.call) ?? r.receivedAtMs) + 0.25 });
  }
  for (const r of state.requests) if ((r.call === null || r.call === undefined) && !inView(r)) items.push({ kind: 'req', key: `req-${r.id}`, req: r });
  // Calls and unattached requests interleave by arrival.
  items.sort((a, b) => (a.at ?? a.req.receivedAtMs) - (b.at ?? b.req.receivedAtMs));
  const shown = items.filter((it) => !cleared(it));
  $('clear-finished').hidden = shown.length === items.length && !items.some((it) => (it.kind === 'call' && it.call.status !== 'running'));
  $('export-session').hidden = !state.calls.some((c) => c.status !== 'running');
  return shown;
}

const nodes = new Map(); // key -> {li, sig}

/** A question being answered in its server's app view (not yet fallen back to its form). */
function inView(r) {
  return r.kind === 'app-form' && r.status === 'active' && r.app?.stage === 'view';
}

function askSlotFor(req) {
  if (req.status !== 'active') return null;
  let card = cards.get(req.id);
  const stage = inView(req) ? 'view' : 'form';
  if (card && (card.stage || 'form') !== stage) card = null;
  if (!card) {
    // The renderer of its kind (`kinds.js`); a kind the page does not know shows as an error.
    try { card = rendererOf(req).ask(req, api); } catch (e) { return unrenderable(req, e); }
    cards.set(req.id, card);
    if (focusedActive === req.id) focusedActive = null;
  }
  const key = JSON.stringify(req.errors || []);
  if (key !== card.errorsKey) { card.errorsKey = key; card.setEngineErrors(req.errors); }
  return card.element;
}

function requestBits(reqs) {
  const out = [];
  for (const r of reqs) {
    if (inView(r)) continue;
    if (r.status === 'active') out.push(askSlotFor(r));
    else if (r.status === 'queued') out.push(h('div', { class: 'request-record queued-record', tabindex: '-1', dataset: { queued: r.id } }, h('strong', {}, 'Waiting in the queue'), h('span', { class: 'what' }, ` — ${r.server} asks: `), r.message));
    else {
      try { out.push(rendererOf(r).record(r, api)); } catch (e) { out.push(unrenderable(r, e)); }
    }
  }
  return out;
}

function renderTimeline() {
  const tl = $('timeline');
  // Re-rendering an entry moves its nodes (the active card among them), which drops focus.
  const focused = document.activeElement;
  const items = timelineItems();
  $('empty').hidden = items.length > 0;
  const byId = new Map(state.requests.map((r) => [r.id, r]));
  const wanted = [];
  for (const it of items) {
    if (it.kind === 'view') { wanted.push(viewItem(it.view, api)); continue; }
    if (it.kind === 'question') {
      let entry = nodes.get(it.key);
      askSlotFor(it.req);
      const card = cards.get(it.req.id);
      if (!entry) { entry = { li: h('li', { dataset: { key: it.key } }, card.element), sig: '' }; nodes.set(it.key, entry); }
      card.update((state.views || []).find((v) => v.request === it.req.id && v.state !== 'closed' && v.state !== 'failed'));
      wanted.push(entry.li);
      continue;
    }
    let entry = nodes.get(it.key);
    if (!entry) { entry = { li: h('li', { dataset: { key: it.key } }), sig: '' }; nodes.set(it.key, entry); }
    const reqs = it.kind === 'call' ? it.call.requests.map((id) => byId.get(id)).filter(Boolean) : [it.req];
    const withView = it.kind === 'call' && (state.views || []).some((v) => v.call === it.call.id && v.state === 'open');
    const sig = JSON.stringify([it.call?.status, it.call?.result, it.call?.error, it.call?.progress, it.call?.task, it.call?.endedAtMs, withView, reqs.map((r) => [r.id, r.status, r.outcome, r.errors, r.notice, r.link?.state, r.progress])]);
    if (sig !== entry.sig) {
      entry.sig = sig;
      if (it.kind === 'call') {
        const c = it.call;
        const args = c.arguments && Object.keys(c.arguments).length ? JSON.stringify(c.arguments) : 'no arguments';
        replace(entry.li, h('article', { class: 'call', 'aria-label': `Call ${c.tool} on ${c.server}` },
          h('header', { class: 'call-head' },
            h('span', { class: 'call-title' }, h('span', { class: 'srv' }, `${c.server} › `), c.tool),
            c.rounds ? h('span', { class: 'chip era-mrtr' }, `${c.rounds} input round${c.rounds > 1 ? 's' : ''}`) : null,
            callTime(c),
            h('span', { class: `status ${c.status}` }, c.status === 'running' ? h('span', { class: 'spinner', 'aria-hidden': 'true' }) : null, STATUS_TEXT[c.status] || c.status),
            h('button', { type: 'button', class: 'ghost call-messages', title: `The messages of this call of ${c.tool}`, onclick: () => api.showMessages(c.server, c.id) }, 'Messages'),
            c.status === 'running' ? h('button', { type: 'button', class: 'ghost call-cancel', 'aria-label': `Cancel call ${c.tool}`, onclick: () => api.post('/api/cancel', { callId: c.id }) }, 'Cancel call') : null,
            c.status !== 'running' && findTool(c.server, c.tool) ? h('button', { type: 'button', class: 'ghost call-again', title: 'Open the tool form with this call\'s arguments', onclick: () => selectTool(c.server, c.tool, c.arguments && typeof c.arguments === 'object' ? c.arguments : {}) }, 'Run again') : null),
          h('div', { class: 'call-body' }, h('div', { class: 'args' }, args), renderTask(c), renderProgress(c), requestBits(reqs), renderResult(c))));
      } else {
        replace(entry.li, h('div', {}, requestBits(reqs)));
      }
    }
    wanted.push(entry.li);
  }
  // Keep DOM order equal to item order without recreating nodes (focus and typing survive).
  wanted.forEach((li, i) => { if (tl.children[i] !== li) tl.insertBefore(li, tl.children[i] || null); });
  while (tl.children.length > wanted.length) tl.lastElementChild.remove();
  forgetViews(new Set((state.views || []).map((v) => v.id)));
  const live = new Set(items.map((i) => i.key));
  for (const k of nodes.keys()) if (!live.has(k)) nodes.delete(k);
  for (const [id, card] of cards) if (byId.get(id)?.status !== 'active') { card.dispose?.(); cards.delete(id); }
  // Give it back if the element is still on the page (typing goes on where it was).
  if (focused && focused !== document.body && focused.isConnected && document.activeElement !== focused) {
    focused.focus({ preventScroll: true });
  }
}

function renderQueue() {
  const pending = state.requests.filter((r) => r.status === 'queued' || r.status === 'active');
  const queued = pending.filter((r) => r.status === 'queued');
  const q = $('queue');
  // The count is a way to the card being answered: a click brings it into view, focused.
  const active = pending.find((r) => r.status === 'active');
  replace($('pending-summary'), pending.length
    ? h('button', { type: 'button', class: 'link pending-link', onclick: () => goToRequest(active?.id ?? pending[0].id) },
      h('strong', {}, `${pending.length} request${pending.length > 1 ? 's' : ''}`), ' waiting for you')
    : 'Nothing is waiting for you');
  document.title = pending.length ? `(${pending.length}) ${state.title}` : state.title;
  if (!queued.length) { q.hidden = true; return; }
  q.hidden = false;
  replace(q, h('strong', {}, `${queued.length} more in the queue`), ' — answered one at a time, in order:',
    h('ol', {}, queued.map((r) => h('li', {}, h('button', { type: 'button', class: 'link queue-item', title: 'Show it where it waits, in its call', onclick: () => goToRequest(r.id) },
      h('strong', {}, r.server), `: ${r.message.slice(0, 140)}${r.message.length > 140 ? '…' : ''}`)))));
}

/**
 * Brings request `id` into view: the card being answered (focused in its first field), or a
 * queued request's place in its call (it is answered in turn, after the ones before it).
 */
function goToRequest(id) {
  if (id === state.active) {
    const card = cards.get(id);
    if (card) { card.element.scrollIntoView({ block: 'start' }); card.focus(); }
    return;
  }
  const place = document.querySelector(`[data-queued="${id}"]`);
  if (place) { place.scrollIntoView({ block: 'center' }); place.focus({ preventScroll: true }); }
}

// Frames to wait for the active card to be on the page and take focus, before giving up.
const FOCUS_TRIES = 30;
let focusTries = 0;

function focusActive() {
  if (state.active === null || state.active === undefined || state.active === focusedActive) return;
  const card = cards.get(state.active);
  if (!card) return;
  // Bring the whole card into view (its header names the server), then focus its first field.
  card.element.scrollIntoView({ block: 'start' });
  card.focus();
  if (!card.element.contains(document.activeElement)) {
    // Not on the page yet, or not focusable yet: try again on the next frame, not never.
    if (focusTries < FOCUS_TRIES) { focusTries += 1; requestAnimationFrame(focusActive); }
    return;
  }
  focusTries = 0;
  focusedActive = state.active;
  const req = state.requests.find((r) => r.id === state.active);
  $('announcer').textContent = `${req?.server} asks: ${req?.message?.slice(0, 200) ?? ''}`;
  const id = state.active;
  requestAnimationFrame(() => {
    api.post('/api/telemetry', { id, shownAtMs: Date.now() });
  });
}

// An address ending in `#view-N` (the terminal hands a call's app view to the page that way)
// brings that view into sight once it is on the page.
let followView = /^#view-(\d+)$/.exec(location.hash)?.[1] ?? null;
function followHash() {
  if (followView === null) return;
  const el = document.querySelector(`[data-view="${followView}"]`);
  if (!el) return;
  followView = null;
  el.scrollIntoView({ block: 'start' });
}

function render() {
  const started = performance.now();
  $('title').textContent = state.title;
  if (logServer()) refreshLog(api);
  renderServers();
  paintSubscriptions(api);
  renderGuide();
  renderComposer();
  renderTimeline();
  renderQueue();
  focusActive();
  focusAfterAnswer();
  followHash();
  // What one redraw of the page cost (the benchmarks read it).
  performance.measure('interlude:render', { start: started, end: performance.now() });
}

const OUTCOME_TEXT = { accept: 'Your answer was sent to', decline: 'You declined;', cancel: 'Cancelled;', error: 'The host refused the request of' };

/**
 * After the person answered (Accept, Decline, Cancel, Esc) and no other request takes the
 * card's place, focus moves to the call the request came from (its record of the answer), and
 * screen readers hear what became of it — instead of focus falling to the page's body.
 */
function focusAfterAnswer() {
  if (lastAnswered === null) return;
  const req = state.requests.find((r) => r.id === lastAnswered);
  if (req && req.status === 'active') return; // refused, still open: focus stays in the card
  lastAnswered = null;
  if (!req || (state.active !== null && state.active !== undefined)) return;
  const here = document.activeElement;
  if (here && here !== document.body && here.isConnected) return; // the person moved on
  // The call's entry itself: it stays while its content is redrawn (the call ending later).
  const target = req.call !== null && req.call !== undefined ? document.querySelector(`li[data-key="call-${req.call}"]`) : null;
  if (!target) return;
  target.setAttribute('tabindex', '-1');
  target.focus({ preventScroll: true });
  target.scrollIntoView({ block: 'nearest' });
  const said = OUTCOME_TEXT[req.outcome] || 'Closed:';
  $('announcer').textContent = req.outcome === 'accept' || req.outcome === 'error' ? `${said} ${req.server}.` : `${said} ${req.server} was told.`;
}

// Esc acts only where focus is: in a card it cancels that request (the card's own handler), in
// the tool form it closes the form; anywhere else it does nothing — never a request elsewhere.

// ---- live channel ------------------------------------------------------------------------
function connect() {
  if (!token) {
    replace($('timeline'), h('li', { class: 'empty' }, 'Open the address printed by `interlude` (it carries this session’s access token).'));
    $('conn').textContent = 'no token';
    return;
  }
  const es = new EventSource(`/api/events?token=${encodeURIComponent(token)}`);
  es.addEventListener('state', (e) => {
    const next = JSON.parse(e.data);
    if (state && next.version <= state.version) return;
    state = next;
    $('conn').textContent = 'live';
    $('conn').classList.add('live');
    render();
  });
  es.addEventListener('view', (e) => toView(JSON.parse(e.data)));
  es.onerror = () => { $('conn').textContent = 'reconnecting…'; $('conn').classList.remove('live'); };
}

$('add-server').addEventListener('submit', async (e) => {
  e.preventDefault();
  const target = $('add-target').value.trim();
  if (!target) { $('add-error').textContent = 'Enter a command line or an http(s):// URL.'; $('add-target').focus(); return; }
  const r = await api.post('/api/servers', { target, name: $('add-name').value.trim() || null });
  if (r.ok) { $('add-error').textContent = ''; $('add-target').value = ''; $('add-name').value = ''; }
  else $('add-error').textContent = r.data?.error || `Could not add the server (${r.status}).`;
});

$('clear-finished').addEventListener('click', () => clearFinished());
$('export-session').addEventListener('click', () => exportSession());

listenToViews(api);
whenClosed(() => renderServers());
connect();
