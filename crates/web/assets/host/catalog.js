// What a server offers besides tools, for the person to browse: its resources (read one: text
// shown with Copy, an image shown, anything else offered as a download), its resource
// templates (each variable a field; the URI is built as it is typed) and its prompts (each
// argument a field; Get shows the messages the prompt makes). A resource can be subscribed to
// when the server offers it: the page's state lists the subscriptions with their last update
// (the host's record), shown as "updated hh:mm:ss" on the resource, a click reading it again;
// the lists are asked for again when the server says they changed. The host asks the server;
// this file draws.

import { copyButton, h, replace } from './dom.js';

let open = null; // the server whose catalog is shown
let listedAt = null; // the server's list-change counts when its lists were asked for
let shownEl = null; // where a read resource or a got prompt is shown
let panel = null; // the catalog's element

/** Whether the catalog of `server` is the one shown. */
export function catalogOf() {
  return open;
}

/** Shows the catalog of `server` in `el` (or hides it for `null`). */
export async function showCatalog(el, server, api) {
  open = server;
  panel = el;
  listedAt = changes(api, server);
  api.catalogChanged?.();
  if (!server) {
    el.hidden = true;
    replace(el);
    return;
  }
  el.hidden = false;
  const heading = h('h2', { tabindex: '-1' }, `Resources and prompts of ${server}`);
  const close = h('button', { type: 'button', class: 'ghost catalog-close', onclick: () => showCatalog(el, null, api) }, 'Close');
  const body = h('div', { class: 'catalog-body', role: 'status' }, 'Asking the server…');
  replace(el, h('div', { class: 'catalog-head' }, heading, close), body);
  el.scrollIntoView({ block: 'nearest' });
  heading.focus();
  await list(body, server, api, h('div', { class: 'catalog-shown', 'aria-live': 'polite' }));
}

/** Asks for the lists of `server` and draws them in `body`, above `shown` (kept as it is). */
async function list(body, server, api, shown) {
  const r = await api.post('/api/catalog', { name: server });
  if (open !== server) return;
  if (!r.ok) {
    replace(body, h('p', { class: 'server-error', role: 'alert' }, r.data?.error || `The host could not ask (HTTP ${r.status}).`));
    return;
  }
  const { resources = [], templates = [], prompts = [], tasks = null, errors = {} } = r.data || {};
  body.removeAttribute('role');
  shownEl = shown;
  const listedUris = new Set(resources.map((res) => res.uri));
  const failed = (what) => (errors[what] ? h('p', { class: 'server-error', role: 'alert' }, errors[what]) : null);
  const nothing = !resources.length && !templates.length && !prompts.length && !Object.keys(errors).length;
  replace(body,
    nothing ? h('p', { class: 'what' }, `${server} offers no resources and no prompts.`) : null,
    resources.length || errors.resources ? h('section', { class: 'catalog-resources' },
      h('h3', {}, `Resources (${resources.length})`), failed('resources'),
      subscribingNote(api, server),
      h('ul', { class: 'catalog-list' }, resources.map((res) => h('li', { dataset: { resource: res.uri } },
        h('button', { type: 'button', class: 'ghost catalog-read', dataset: { uri: res.uri },
          onclick: () => read(server, res.uri, shown, api) }, res.title || res.name),
        h('span', { class: 'mono catalog-uri' }, ` ${res.uri}`),
        res.mimeType ? h('span', { class: 'chip' }, res.mimeType) : null,
        watchSlot(res.uri),
        res.description ? h('div', { class: 'tool-desc' }, res.description) : null)))) : null,
    h('section', { class: 'catalog-subscriptions', dataset: { listed: [...listedUris].join('\n') } }),
    templates.length || errors.templates ? h('section', { class: 'catalog-templates' },
      h('h3', {}, `Resource templates (${templates.length})`), failed('templates'),
      h('ul', { class: 'catalog-list' }, templates.map((t) => templateItem(server, t, shown, api)))) : null,
    prompts.length || errors.prompts ? h('section', { class: 'catalog-prompts' },
      h('h3', {}, `Prompts (${prompts.length})`), failed('prompts'),
      h('ul', { class: 'catalog-list' }, prompts.map((p) => promptItem(server, p, shown, api)))) : null,
    // The server's tasks (2025-11-25 `tasks/list`), when it offers the list.
    Array.isArray(tasks) || errors.tasks ? h('section', { class: 'catalog-tasks' },
      h('h3', {}, `Tasks (${(tasks || []).length})`), failed('tasks'),
      (tasks || []).length ? null : h('p', { class: 'what' }, 'No task is kept by this server.'),
      h('ul', { class: 'catalog-list' }, (tasks || []).map((t) => h('li', { dataset: { task: t.id } },
        h('span', { class: 'chip task-status' }, t.status), ' ',
        h('span', { class: 'mono' }, t.id),
        t.statusMessage ? h('div', { class: 'tool-desc' }, t.statusMessage) : null,
        t.lastUpdatedAt ? h('div', { class: 'what' }, `Last changed ${new Date(t.lastUpdatedAt).toLocaleTimeString()}`) : null)))) : null,
    shown);
  paintSubscriptions(api);
}

/** The server's list-change counts as the page's state has them. */
function changes(api, server) {
  const c = server ? api.server(server)?.listsChanged : null;
  return c ? `${c.resources}/${c.prompts}` : '';
}

/** What the page says when `server` offers no subscriptions. */
function subscribingNote(api, server) {
  const how = api.server(server)?.subscribing;
  if (how && how !== 'none') return null;
  return h('p', { class: 'what catalog-no-subscriptions' }, `${server} offers no subscriptions to its resources (it did not declare resources.subscribe), so changes to them are not seen here.`);
}

/** The place of a resource's Subscribe toggle and its "updated" mark (filled by paint). */
function watchSlot(uri) {
  return h('span', { class: 'catalog-watch', dataset: { uri } });
}

/** Two digits. */
const two = (n) => String(n).padStart(2, '0');

/** A time of day, hh:mm:ss, on this computer's clock. */
function clock(ms) {
  const d = new Date(ms);
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/**
 * Draws the state's subscriptions into the open catalog: each resource's toggle and mark, and
 * the subscriptions to resources not listed (read through a template). Called after every
 * change of the page's state; asks for the lists again when the server said they changed.
 */
export function paintSubscriptions(api) {
  if (!open || !panel) return;
  const server = open;
  const record = api.server(server);
  if (!record) return;
  const now = changes(api, server);
  if (listedAt !== null && now !== listedAt && shownEl) {
    listedAt = now;
    const body = panel.querySelector('.catalog-body');
    if (body) list(body, server, api, shownEl);
    return;
  }
  const offered = record.subscribing && record.subscribing !== 'none';
  const subs = new Map((record.subscriptions || []).map((s) => [s.uri, s]));
  const section = panel.querySelector('.catalog-subscriptions');
  if (section) {
    const listed = new Set((section.dataset.listed || '').split('\n'));
    const others = [...subs.keys()].filter((uri) => !listed.has(uri));
    const key = others.join('\n');
    if (section.dataset.key !== key) {
      section.dataset.key = key;
      replace(section, others.length ? [h('h3', {}, `Other subscriptions (${others.length})`),
        h('ul', { class: 'catalog-list' }, others.map((uri) => h('li', { dataset: { resource: uri } },
          h('button', { type: 'button', class: 'ghost catalog-read', dataset: { uri }, onclick: () => read(server, uri, shownEl, api) }, uri),
          watchSlot(uri))))] : null);
    }
  }
  for (const slot of panel.querySelectorAll('.catalog-watch')) {
    const uri = slot.dataset.uri;
    const sub = subs.get(uri);
    const key = offered ? `${sub ? 'on' : 'off'}:${sub?.updatedAtMs ?? ''}:${sub?.updates ?? ''}` : 'none';
    if (slot.dataset.key === key) continue;
    slot.dataset.key = key;
    if (!offered) { replace(slot); continue; }
    const toggle = h('button', { type: 'button', class: 'ghost catalog-subscribe', 'aria-pressed': sub ? 'true' : 'false',
      dataset: { uri }, onclick: () => subscribe(server, uri, !sub, slot, api) }, sub ? 'Unsubscribe' : 'Subscribe');
    const mark = sub && sub.updatedAtMs ? h('button', { type: 'button', class: 'ghost catalog-updated', dataset: { uri },
      title: `The server said it changed ${sub.updates} time${sub.updates === 1 ? '' : 's'} since you subscribed; click to read it again.`,
      onclick: () => read(server, uri, shownEl, api) }, `updated ${clock(sub.updatedAtMs)}`) : null;
    replace(slot, ' ', toggle, mark ? ' ' : null, mark);
  }
}

async function subscribe(server, uri, on, slot, api) {
  const r = await api.post(on ? '/api/subscribe' : '/api/unsubscribe', { server, uri });
  if (!r.ok) {
    slot.dataset.key = '';
    slot.append(h('span', { class: 'server-error', role: 'alert' }, ` ${r.data?.error || `HTTP ${r.status}`}`));
  }
}

/** The variables of a URI template (`{id}`, `{+path}`, `{?q}` → their names). */
function variables(template) {
  return [...template.matchAll(/\{[+#./;?&]?([^}]+)\}/g)].flatMap((m) => m[1].split(',').map((v) => v.replace(/\*$/, '')));
}

/** `template` with each variable replaced by its value (encoded), for the simple forms. */
function expand(template, values) {
  return template.replace(/\{[+#./;?&]?([^}]+)\}/g, (_, names) => names.split(',').map((n) => encodeURIComponent(values[n.replace(/\*$/, '')] || '')).join(','));
}

/**
 * `input` offers what the server suggests for it (`completion/complete`) as the person types:
 * a datalist filled from the answer, `ref` naming the prompt or template, `others()` the
 * values already given (the request's context).
 */
function suggesting(input, server, ref, name, others, api) {
  const list = h('datalist', { id: `complete-${Math.random().toString(36).slice(2)}` });
  input.setAttribute('list', list.id);
  let timer = null;
  let asked = 0;
  const ask = async () => {
    const mine = ++asked;
    const r = await api.post('/api/complete', { server, params: { ref, argument: { name, value: input.value }, context: { arguments: others() } } });
    if (mine !== asked || !r.ok) return;
    replace(list, (r.data?.values || []).slice(0, 100).map((v) => h('option', { value: v })));
  };
  input.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(ask, 150); });
  input.addEventListener('focus', () => { if (!list.children.length) ask(); }, { once: true });
  return list;
}

function templateItem(server, t, shown, api) {
  const names = variables(t.uriTemplate);
  const values = {};
  const uri = h('span', { class: 'mono catalog-uri' }, t.uriTemplate);
  const fields = names.map((n) => {
    const input = h('input', { name: n, autocomplete: 'off', oninput: (e) => { values[n] = e.target.value; uri.textContent = expand(t.uriTemplate, values); } });
    const others = () => Object.fromEntries(Object.entries(values).filter(([k, v]) => k !== n && v !== ''));
    return h('label', { class: 'catalog-arg' }, `${n} `, input,
      suggesting(input, server, { type: 'ref/resource', uri: t.uriTemplate }, n, others, api));
  });
  return h('li', { dataset: { template: t.uriTemplate } },
    h('strong', {}, t.title || t.name), ' ', uri,
    t.description ? h('div', { class: 'tool-desc' }, t.description) : null,
    h('form', { class: 'catalog-form', onsubmit: (e) => { e.preventDefault(); read(server, expand(t.uriTemplate, values), shown, api); } },
      fields, h('button', { type: 'submit', class: 'ghost' }, 'Read')));
}

function promptItem(server, p, shown, api) {
  const args = p.arguments || [];
  let form = null;
  const others = (name) => () => Object.fromEntries([...form.querySelectorAll('input')].filter((i) => i.name !== name && i.value !== '').map((i) => [i.name, i.value]));
  const fields = args.map((a) => {
    const input = h('input', { name: a.name, autocomplete: 'off', required: a.required ? true : null });
    return h('label', { class: 'catalog-arg', title: a.description || '' }, `${a.name}${a.required ? ' (required)' : ''} `, input,
      suggesting(input, server, { type: 'ref/prompt', name: p.name }, a.name, others(a.name), api));
  });
  form = h('form', { class: 'catalog-form', onsubmit: (e) => {
    e.preventDefault();
    const values = {};
    for (const input of form.querySelectorAll('input')) if (input.value !== '') values[input.name] = input.value;
    get(server, p.name, values, shown, api);
  } }, fields, h('button', { type: 'submit', class: 'ghost' }, 'Get'));
  return h('li', { dataset: { prompt: p.name } },
    h('strong', {}, p.title || p.name),
    p.title && p.title !== p.name ? h('span', { class: 'mono' }, ` ${p.name}`) : null,
    p.description ? h('div', { class: 'tool-desc' }, p.description) : null,
    form);
}

async function read(server, uri, shown, api) {
  replace(shown, h('p', { class: 'what', role: 'status' }, `Reading ${uri}…`));
  const r = await api.post('/api/resource', { server, uri });
  if (!r.ok) {
    replace(shown, h('p', { class: 'server-error', role: 'alert' }, r.data?.error || `HTTP ${r.status}`));
    return;
  }
  const contents = r.data?.contents || [];
  replace(shown, h('div', { class: 'catalog-result', dataset: { uri } },
    h('h3', {}, `Read: `, h('span', { class: 'mono' }, uri), watchSlot(uri)),
    contents.length ? contents.map(content) : h('p', { class: 'what' }, 'The server sent no contents.')));
  paintSubscriptions(api);
  shown.scrollIntoView({ block: 'nearest' });
}

/** One item of a resource's contents: text, an image, or a download. */
function content(c) {
  const mime = c.mimeType || '';
  const head = h('div', { class: 'catalog-item-head' }, h('span', { class: 'mono' }, c.uri || ''), mime ? h('span', { class: 'chip' }, mime) : null);
  if (typeof c.text === 'string') {
    return h('div', { class: 'catalog-item' }, head, copyButton('Copy the text', () => c.text), h('pre', { class: 'mono catalog-text' }, c.text));
  }
  if (typeof c.blob === 'string') {
    const bytes = Math.floor((c.blob.length * 3) / 4);
    const href = `data:${mime || 'application/octet-stream'};base64,${c.blob}`;
    const name = (c.uri || 'resource').split('/').filter(Boolean).pop() || 'resource';
    return h('div', { class: 'catalog-item' }, head,
      /^image\/(png|jpeg|gif|webp)$/.test(mime) ? h('img', { class: 'catalog-image', src: href, alt: `The image at ${c.uri}` }) : null,
      h('a', { class: 'catalog-download', href, download: name }, `Download (${bytes} bytes)`));
  }
  return h('div', { class: 'catalog-item' }, head, h('pre', { class: 'mono' }, JSON.stringify(c, null, 2)));
}

async function get(server, name, args, shown, api) {
  replace(shown, h('p', { class: 'what', role: 'status' }, `Getting ${name}…`));
  const r = await api.post('/api/prompt', { server, name, arguments: args });
  if (!r.ok) {
    replace(shown, h('p', { class: 'server-error', role: 'alert' }, r.data?.error || `HTTP ${r.status}`));
    return;
  }
  const messages = r.data?.messages || [];
  replace(shown, h('div', { class: 'catalog-result', dataset: { prompt: name } },
    h('h3', {}, `Prompt: `, h('span', { class: 'mono' }, name)),
    r.data?.description ? h('p', { class: 'tool-desc' }, r.data.description) : null,
    messages.map((m) => {
      const c = m.content || {};
      const said = c.type === 'text' ? c.text
        : c.type === 'resource' ? (c.resource?.text ?? `(a resource: ${c.resource?.uri})`)
          : c.type === 'image' ? null : JSON.stringify(c);
      return h('div', { class: `catalog-message role-${m.role}` }, h('strong', {}, `${m.role}: `),
        c.type === 'image' ? h('img', { class: 'catalog-image', src: `data:${c.mimeType};base64,${c.data}`, alt: 'An image of the prompt' }) : h('span', { class: 'said' }, said),
        said ? copyButton('Copy the message', () => said) : null);
    })));
  shown.scrollIntoView({ block: 'nearest' });
}
