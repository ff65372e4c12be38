// The protocol pane: every JSON-RPC message between the host and one server (and its app
// views), as the host recorded it — time, direction, method or result, the request id pairing
// and each response's latency. Filter by method and direction, open a message's JSON, copy it.
// Its "Server logs" view shows what the server logged (`notifications/message`) with each
// level, and asks the server to log from a level up (`logging/setLevel`).
// The host keeps the log (bounded, sensitive-looking values redacted); this file only draws it.

import { h, replace, pretty } from './dom.js';

const SHOWN = 400; // rows drawn at most (the newest that match)

let open = null; // { server, messages, filter, dir }
let onClosed = null;

/** What to do when the person closes the pane (the page redraws its buttons). */
export function whenClosed(fn) { onClosed = fn; }

/** Opens the pane for `server` (or closes it when it is already open for that server). */
export async function toggleLog(server, api) {
  if (open && open.server === server) { closeLog(); return; }
  open = { server, messages: [], filter: '', dir: 'all', sig: '', view: 'messages', level: '', levelNote: '', call: null };
  await refreshLog(api);
}

/** Opens the pane on the messages of tool call `call` of `server` (from a call or a card). */
export async function showCallMessages(server, call, api) {
  if (!open || open.server !== server) {
    open = { server, messages: [], filter: '', dir: 'all', sig: '', view: 'messages', level: '', levelNote: '', call };
  } else {
    open.view = 'messages';
    open.call = call;
    open.sig = '';
  }
  await refreshLog(api);
  document.getElementById('protocol')?.scrollIntoView({ block: 'nearest' });
}

export function closeLog() {
  open = null;
  const pane = document.getElementById('protocol');
  pane.hidden = true;
  replace(pane);
}

/** The server whose log is open, if any. */
export function logServer() {
  return open?.server ?? null;
}

/** Fetches the open log again (the page calls this when the host's record changes). */
export async function refreshLog(api) {
  if (!open) return;
  const server = open.server;
  const r = await fetch(`/api/log?server=${encodeURIComponent(server)}`, { headers: { 'x-interlude-token': api.token } });
  if (!open || open.server !== server) return;
  if (!r.ok) { open.messages = []; open.error = `The log could not be read (${r.status}).`; }
  else { open.messages = (await r.json()).messages || []; open.error = null; }
  draw(api);
}

function summary(m) {
  const msg = m.message || {};
  if (msg.method) return msg.method;
  if (msg.error) return `error ${msg.error.code ?? ''} ${msg.error.message ?? ''}`.trim();
  return 'result';
}

const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** A server's `notifications/message` (not its views'). */
function isServerLog(m) {
  return m.dir === 'recv' && (m.view === undefined || m.view === null) && m.message?.method === 'notifications/message';
}

/** What a log entry says, as text. */
function logText(data) {
  if (typeof data === 'string') return data;
  return JSON.stringify(data);
}

async function setLevel(api, level) {
  if (!open) return;
  const server = open.server;
  open.level = level;
  open.levelNote = `Asking ${server} to log from ${level} up…`;
  open.sig = '';
  draw(api);
  const r = await fetch('/api/log-level', { method: 'POST', headers: { 'content-type': 'application/json', 'x-interlude-token': api.token }, body: JSON.stringify({ server, level }) });
  if (!open || open.server !== server) return;
  let why = '';
  if (!r.ok) { try { why = (await r.json()).error || ''; } catch { why = ''; } }
  open.levelNote = r.ok ? `${server} logs from ${level} up.` : `${server} did not take the level${why ? `: ${why}` : ''}.`;
  open.sig = '';
  draw(api);
}

function drawLogs(api, pane) {
  const logs = open.messages.filter(isServerLog);
  const filter = open.filter.trim().toLowerCase();
  const rows = logs.filter((m) => !filter || JSON.stringify(m.message.params ?? {}).toLowerCase().includes(filter)).slice(-SHOWN);
  const level = h('select', { 'aria-label': 'Server log level', onchange: (e) => setLevel(api, e.target.value) },
    h('option', { value: '', disabled: true, selected: open.level ? null : true }, 'Ask for level…'),
    LEVELS.map((l) => h('option', { value: l, selected: open.level === l ? true : null }, `${l} and up`)));
  replace(pane,
    header(api, `Server logs: ${open.server}`, level, h('span', { class: 'what' }, `${rows.length} of ${logs.length} log message${logs.length === 1 ? '' : 's'}`)),
    open.levelNote ? h('p', { class: 'level-note', role: 'status' }, open.levelNote) : null,
    logs.length ? null : h('p', { class: 'what' }, 'Nothing logged yet.'),
    h('ol', { class: 'protocol-list server-logs' }, rows.map((m) => {
      const p = m.message.params || {};
      const lvl = LEVELS.includes(p.level) ? p.level : 'info';
      return h('li', { class: `log-row lvl-${lvl}`, dataset: { level: lvl } },
        h('span', { class: 'mono t' }, `${(m.t_ms / 1000).toFixed(3)} s`),
        h('span', { class: `chip level ${lvl}` }, lvl),
        p.logger ? h('span', { class: 'mono logger' }, p.logger) : null,
        h('span', { class: 'log-text' }, logText(p.data)));
    })));
}

/** The pane's header: title, the view switch, `extra` controls, Close. */
function header(api, title, ...extra) {
  const input = h('input', { type: 'search', value: open.filter, placeholder: open.view === 'logs' ? 'text' : 'method or text', 'aria-label': open.view === 'logs' ? 'Filter logs' : 'Filter messages',
    oninput: (e) => { open.filter = e.target.value; draw(api); } });
  const views = h('div', { class: 'segmented', role: 'group', 'aria-label': 'Show' },
    [['messages', 'Messages'], ['logs', 'Server logs']].map(([v, t]) => h('button', { type: 'button', class: 'ghost', 'aria-pressed': open.view === v ? 'true' : 'false',
      onclick: () => { open.view = v; open.sig = ''; draw(api); } }, t)));
  return h('header', { class: 'protocol-head' },
    h('h2', {}, title), views, input, ...extra,
    h('button', { type: 'button', class: 'ghost', onclick: () => { closeLog(); onClosed?.(); } }, 'Close'));
}

function draw(api) {
  const pane = document.getElementById('protocol');
  pane.hidden = false;
  if (open.view === 'logs') {
    const sig = JSON.stringify(['logs', open.server, open.filter, open.messages.length, open.level, open.levelNote]);
    if (sig === open.sig) return;
    open.sig = sig;
    const focused = document.activeElement === pane.querySelector('input[type=search]');
    drawLogs(api, pane);
    if (focused) { const i = pane.querySelector('input[type=search]'); i.focus(); i.setSelectionRange(i.value.length, i.value.length); }
    const list = pane.querySelector('.protocol-list');
    if (list) list.scrollTop = list.scrollHeight;
    return;
  }
  const filter = open.filter.trim().toLowerCase();
  const rows = open.messages.filter((m) => (open.call === null || m.call === open.call) && (open.dir === 'all' || m.dir === open.dir)
    && (!filter || summary(m).toLowerCase().includes(filter) || JSON.stringify(m.message).toLowerCase().includes(filter)));
  const shown = rows.slice(-SHOWN);
  const sig = JSON.stringify([open.server, open.filter, open.dir, open.call, open.messages.length, open.error]);
  if (sig === open.sig) return;
  open.sig = sig;
  const dir = h('select', { 'aria-label': 'Direction', onchange: (e) => { open.dir = e.target.value; draw(api); } },
    [['all', 'both ways'], ['send', 'host → server'], ['recv', 'server → host']].map(([v, t]) => h('option', { value: v, selected: open.dir === v ? true : null }, t)));
  const focused = document.activeElement === pane.querySelector('input[type=search]');
  replace(pane,
    header(api, `Protocol: ${open.server}`, dir,
      open.call !== null ? h('span', { class: 'chip call-only' }, `call #${open.call} only `,
        h('button', { type: 'button', class: 'link', onclick: () => { open.call = null; open.sig = ''; draw(api); } }, 'show all')) : null,
      h('span', { class: 'what' }, `${rows.length} of ${open.messages.length} message${open.messages.length === 1 ? '' : 's'}${rows.length > shown.length ? ` (newest ${shown.length} shown)` : ''}`)),
    open.error ? h('p', { class: 'server-error' }, open.error) : null,
    h('ol', { class: 'protocol-list' }, shown.map((m) => {
      const id = m.message?.id;
      const arrow = m.dir === 'send' ? '→' : '←';
      const who = m.view !== undefined && m.view !== null ? `view ${m.view}` : 'server';
      return h('li', { class: `protocol-row ${m.dir}${m.view !== undefined && m.view !== null ? ' view' : ''}`, dataset: { method: summary(m), dir: m.dir, call: m.call ?? '' } },
        h('details', {},
          h('summary', {},
            h('span', { class: 'mono t' }, `${(m.t_ms / 1000).toFixed(3)} s`),
            h('span', { class: 'arrow', title: m.dir === 'send' ? `host to ${who}` : `${who} to host` }, `${arrow} ${who}`),
            h('span', { class: 'mono m' }, summary(m)),
            id !== undefined && id !== null ? h('span', { class: 'mono id' }, `#${JSON.stringify(id)}`) : null,
            m.latency_ms !== undefined && m.latency_ms !== null ? h('span', { class: 'lat' }, `${m.latency_ms} ms`) : null),
          h('pre', {}, pretty(m.message)),
          h('button', { type: 'button', class: 'ghost copy', onclick: () => navigator.clipboard?.writeText(JSON.stringify(m.message, null, 2)) }, 'Copy')));
    })));
  if (focused) { const i = pane.querySelector('input[type=search]'); i.focus(); i.setSelectionRange(i.value.length, i.value.length); }
  const list = pane.querySelector('.protocol-list');
  if (list) list.scrollTop = list.scrollHeight;
}
