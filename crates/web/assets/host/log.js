// The protocol pane: every JSON-RPC message between the host and one server (and its app
// views), as the host recorded it — time, direction, method or result, the request id pairing
// and each response's latency. Filter by method, text and direction, or by one tool call; pick
// a message to see its JSON and copy it. Its "Server logs" view shows what the server logged
// (`notifications/message`) with each level, and asks the server to log from a level up
// (`logging/setLevel`). For a server reached over HTTP, its "Network" view (`network.js`) shows
// each HTTP exchange, linked both ways with the messages it carried.
//
// The host keeps the log (bounded, numbered, sensitive-looking values redacted); this file only
// draws it. It keeps what it fetched and asks only for what came after (`?after=<seq>`), and
// the list is windowed: rows have one height and only those in sight (and a margin) are in the
// page, so a log of ten thousand messages costs what a screenful does.

import { h, replace, pretty } from './dom.js';
import { drawNetwork, exchangeOf, networkLines } from './network.js';

const ROW = 26; // px: the height of one row of the list
const MARGIN = 30; // rows drawn above and below those in sight
const LOG_ROWS = 400; // server-log rows drawn at most (the newest that match)
const KEPT = 10000; // messages kept here at most, as the host keeps them (the newest)

let open = null;
let onClosed = null;

function fresh(server, call) {
  return {
    server, serverId: null, messages: [], lastSeq: 0, filter: '', dir: 'all', view: 'messages',
    level: '', levelNote: '', call, sig: '', rows: [], selected: null, error: null, stick: true,
    network: null, networkText: '', networkStamp: 0, expanded: null, reveal: false,
  };
}

/** What to do when the person closes the pane (the page redraws its buttons). */
export function whenClosed(fn) { onClosed = fn; }

/** Opens the pane for `server` (or closes it when it is already open for that server). */
export async function toggleLog(server, api) {
  if (open && open.server === server) { closeLog(); return; }
  open = fresh(server, null);
  // The page redraws its entries: the way back is found again when the pane closes.
  open.back = () => document.querySelector(`li[data-server="${CSS.escape(server)}"] button.log-btn`);
  await refreshLog(api);
  bringIntoView();
}

/**
 * The pane, brought to where the person is: it sits above the timeline, so a pane opened from
 * a call far down the page would open out of sight. Closing it goes back to where it was
 * opened from (`opener`).
 */
function bringIntoView() {
  const pane = document.getElementById('protocol');
  if (!pane || pane.hidden) return;
  pane.scrollIntoView({ block: 'start' });
  pane.querySelector('input[type=search]')?.focus({ preventScroll: true });
}

/** Opens the pane on the messages of tool call `call` of `server` (from a call or a card). */
export async function showCallMessages(server, call, api) {
  if (!open || open.server !== server) {
    open = fresh(server, call);
  } else {
    open.view = 'messages';
    open.call = call;
    open.sig = '';
  }
  // Back to the call's own Messages button (a card that opened the pane may be gone by then).
  open.back = () => document.querySelector(`li[data-key="call-${call}"] button.call-messages`);
  await refreshLog(api);
  bringIntoView();
}

export function closeLog() {
  const opener = open?.back?.();
  open = null;
  const pane = document.getElementById('protocol');
  pane.hidden = true;
  replace(pane);
  // Back to where the pane was opened from (a call's Messages button, a server's Protocol).
  if (opener && opener !== document.body && opener.isConnected) {
    opener.focus({ preventScroll: true });
    opener.scrollIntoView({ block: 'nearest' });
  }
}

/** The server whose log is open, if any. */
export function logServer() {
  return open?.server ?? null;
}

let fetching = null;

/**
 * Fetches what the open log gained since the last time (the page calls this whenever the
 * host's record changes) and draws it. `full` fetches everything again.
 */
export async function refreshLog(api, { full = false } = {}) {
  if (!open) return;
  // One fetch at a time; a change during it is picked up by one more fetch after it.
  if (fetching) { fetching.again = true; return fetching.done; }
  let resolve;
  fetching = { again: false, done: new Promise((r) => { resolve = r; }) };
  try {
    do {
      fetching.again = false;
      const state = open;
      if (!state) break;
      const started = performance.now();
      const after = full ? 0 : state.lastSeq;
      const r = await fetch(`/api/log?server=${encodeURIComponent(state.server)}&after=${after}`, { headers: { 'x-interlude-token': api.token } });
      if (open !== state) break;
      if (!r.ok) { state.error = `The log could not be read (${r.status}).`; state.sig = ''; draw(api); break; }
      const body = await r.json();
      const news = body.messages || [];
      state.startedAtMs = body.startedAtMs ?? state.startedAtMs;
      state.error = null;
      if (full || state.serverId !== body.serverId) {
        // A first read, or the server was added again: its log starts over.
        state.serverId = body.serverId;
        state.messages = news;
        state.sig = '';
      } else {
        state.messages.push(...news);
        if (state.messages.length > KEPT) {
          // The host forgot these too: so does the pane (and its rows of them).
          state.messages.splice(0, state.messages.length - KEPT);
          const oldest = state.messages[0].seq;
          const gone = state.rows.findIndex((m) => m.seq >= oldest);
          if (gone > 0) state.rows.splice(0, gone);
        }
      }
      full = false;
      if (state.messages.length) state.lastSeq = state.messages[state.messages.length - 1].seq;
      // The exchanges, when the Network view shows them or a message's detail links to one.
      if (isHttp(api, state) && (state.view === 'network' || state.selected !== null)) await fetchNetwork(api, state);
      if (open !== state) break;
      draw(api, news);
      // What one update cost: fetching what is new and drawing it (the benchmark reads it).
      performance.measure('interlude:log-update', { start: started, end: performance.now() });
    } while (fetching.again);
  } finally {
    fetching = null;
    resolve();
  }
}

/** Whether the open pane's server is reached over HTTP (only those have a Network view). */
function isHttp(api, state) {
  return api.server?.(state.server)?.transport === 'http';
}

/** Reads the server's HTTP exchanges into `state` (its stamp moves only when they changed). */
async function fetchNetwork(api, state) {
  const r = await fetch(`/api/network?server=${encodeURIComponent(state.server)}`, { headers: { 'x-interlude-token': api.token } });
  if (!r.ok) { state.network = { exchanges: [], error: `The exchanges could not be read (${r.status}).` }; state.networkStamp += 1; return; }
  const text = await r.text();
  if (text === state.networkText) return;
  state.networkText = text;
  state.network = JSON.parse(text);
  state.networkStamp += 1;
}

/** The Network view on exchange `seq`, opened (from a message's detail). */
async function showExchange(api, seq) {
  if (!open) return;
  const state = open;
  state.view = 'network';
  state.filter = '';
  state.expanded = seq;
  state.reveal = true;
  state.sig = '';
  await fetchNetwork(api, state);
  if (open !== state) return;
  draw(api);
}

/** The messages view on protocol log row `seq`, chosen and in sight (from an exchange). */
function showMessage(api, seq) {
  if (!open) return;
  const m = open.messages.find((x) => x.seq === seq);
  open.view = 'messages';
  open.sig = '';
  if (m && !shown(m)) { open.filter = ''; open.dir = 'all'; open.call = null; }
  open.selected = seq;
  draw(api);
  const list = document.querySelector('#protocol .protocol-list.windowed');
  const at = open.rows.findIndex((x) => x.seq === seq);
  if (list && at >= 0) {
    open.stick = false;
    list.scrollTop = Math.max(0, at * ROW - list.clientHeight / 2);
    renderWindow(api, list);
  }
  document.querySelector(`#protocol .protocol-row[data-seq="${seq}"] .row-btn`)?.focus({ preventScroll: true });
}

function summary(m) {
  const what = kindOf(m);
  // What a request is about, as the HTTP transport's Mcp-Name header says it: the tool, the
  // prompt, the resource.
  const p = m.message?.params || {};
  const about = what === 'tools/call' || what === 'prompts/get' ? p.name
    : what === 'resources/read' || what === 'resources/subscribe' ? p.uri : null;
  return typeof about === 'string' ? `${what} ${about}` : what;
}

/** The method of message `m`, or `result` / `error …` for a response. */
function kindOf(m) {
  // A line the server sent that is not a JSON-RPC message: `message` is its text.
  if (m.unparsable) return `not a message (${m.unparsable})`;
  const msg = m.message || {};
  if (msg.method) return msg.method;
  if (msg.error) return `error ${msg.error.code ?? ''} ${msg.error.message ?? ''}`.trim();
  return 'result';
}

/**
 * When message `m` went, as the clock says it (the cards' times are clock times too), with the
 * milliseconds; its time since the host started in the tooltip.
 */
function clockOf(m) {
  const since = `${(m.t_ms / 1000).toFixed(3)} s after the host started`;
  if (!open?.startedAtMs) return h('span', { class: 'mono t', title: since }, `${(m.t_ms / 1000).toFixed(3)} s`);
  const at = new Date(open.startedAtMs + m.t_ms);
  const clock = at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
  const ms = String(at.getMilliseconds()).padStart(3, '0');
  return h('time', { class: 'mono t', datetime: at.toISOString(), title: since }, `${clock}.${ms}`);
}

/** Whether message `m` is shown under the pane's filters. */
function shown(m) {
  // A server's stderr lines are its logs, not protocol messages.
  if (m.dir === 'stderr') return false;
  if (open.call !== null && m.call !== open.call) return false;
  if (open.dir !== 'all' && m.dir !== open.dir) return false;
  const filter = open.filter.trim().toLowerCase();
  if (!filter) return true;
  if (summary(m).toLowerCase().includes(filter)) return true;
  m.text ??= JSON.stringify(m.message).toLowerCase();
  return m.text.includes(filter);
}

const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

/** A server's `notifications/message` (not its views'). */
function isServerLog(m) {
  if (m.dir === 'stderr') return true;
  return m.dir === 'recv' && (m.view === undefined || m.view === null) && m.message?.method === 'notifications/message';
}

/** What a log entry says, as text. */
function logText(data) {
  if (typeof data === 'string') return data;
  return JSON.stringify(data);
}

async function setLevel(api, level) {
  if (!open) return;
  const state = open;
  state.level = level;
  state.levelNote = `Asking ${state.server} to log from ${level} up…`;
  state.sig = '';
  draw(api);
  const r = await fetch('/api/log-level', { method: 'POST', headers: { 'content-type': 'application/json', 'x-interlude-token': api.token }, body: JSON.stringify({ server: state.server, level }) });
  if (open !== state) return;
  let why = '';
  if (!r.ok) { try { why = (await r.json()).error || ''; } catch { why = ''; } }
  state.levelNote = r.ok ? `${state.server} logs from ${level} up.` : `${state.server} did not take the level${why ? `: ${why}` : ''}.`;
  state.sig = '';
  draw(api);
}

function drawLogs(api, pane) {
  const logs = open.messages.filter(isServerLog);
  const filter = open.filter.trim().toLowerCase();
  const said = (m) => (m.dir === 'stderr' ? m.message : m.message.params ?? {});
  const rows = logs.filter((m) => !filter || JSON.stringify(said(m)).toLowerCase().includes(filter)).slice(-LOG_ROWS);
  // Only a server that declared `logging` takes `logging/setLevel`.
  const level = api.server?.(open.server)?.logging
    ? h('select', { 'aria-label': 'Server log level', onchange: (e) => setLevel(api, e.target.value) },
      h('option', { value: '', disabled: true, selected: open.level ? null : true }, 'Ask for level…'),
      LEVELS.map((l) => h('option', { value: l, selected: open.level === l ? true : null }, `${l} and up`)))
    : h('span', { class: 'what no-logging' }, 'This server does not declare logging: it cannot be asked for a level.');
  replace(pane,
    header(api, `Server logs: ${open.server}`, level, h('span', { class: 'what' }, `${rows.length} of ${logs.length} log message${logs.length === 1 ? '' : 's'}`)),
    open.levelNote ? h('p', { class: 'level-note', role: 'status' }, open.levelNote) : null,
    logs.length ? null : h('p', { class: 'what' }, 'Nothing logged yet (log messages, and for a stdio server what it writes to stderr).'),
    h('ol', { class: 'protocol-list server-logs' }, rows.map((m) => {
      // What a stdio server wrote to stderr: one line each, as text.
      if (m.dir === 'stderr') {
        return h('li', { class: 'log-row lvl-stderr', dataset: { level: 'stderr' } },
          clockOf(m),
          h('span', { class: 'chip level stderr', title: 'Written by the server to its stderr' }, 'stderr'),
          h('span', { class: 'log-text mono' }, String(m.message)));
      }
      const p = m.message.params || {};
      const lvl = LEVELS.includes(p.level) ? p.level : 'info';
      return h('li', { class: `log-row lvl-${lvl}`, dataset: { level: lvl } },
        clockOf(m),
        h('span', { class: `chip level ${lvl}` }, lvl),
        p.logger ? h('span', { class: 'mono logger' }, p.logger) : null,
        h('span', { class: 'log-text' }, logText(p.data)));
    })));
  const list = pane.querySelector('.protocol-list');
  if (list) list.scrollTop = list.scrollHeight;
}

/**
 * Downloads what the pane shows — the messages under its filters (a call's only, when the pane
 * is on a call), or the server logs — as JSON Lines in the shape `--trace` writes:
 * `{"t_ms", "server", "dir", "message"}` (and `view`, `unparsable` when set).
 */
function exportShown() {
  if (!open) return;
  if (open.view === 'network') {
    download(networkLines(open), `${open.server}-network.jsonl`);
    return;
  }
  const rows = open.view === 'logs' ? open.messages.filter(isServerLog) : open.messages.filter(shown);
  const lines = rows.map((m) => {
    const line = { t_ms: m.t_ms, server: m.server ?? open.server, dir: m.dir, message: m.message };
    if (m.view !== undefined && m.view !== null) line.view = m.view;
    if (m.unparsable) line.unparsable = m.unparsable;
    return JSON.stringify(line);
  });
  const what = open.view === 'logs' ? 'logs' : open.call !== null ? `call-${open.call}` : 'messages';
  download(lines, `${open.server}-${what}.jsonl`);
}

/** Offers `lines` as a JSON Lines file named `name`. */
function download(lines, name) {
  const blob = new Blob([lines.join('\n') + (lines.length ? '\n' : '')], { type: 'application/jsonl' });
  const url = URL.createObjectURL(blob);
  const a = h('a', { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** The pane's header: title, the view switch, `extra` controls, Export, Close. */
function header(api, title, ...extra) {
  const [placeholder, label] = { logs: ['text', 'Filter logs'], network: ['method, status or path', 'Filter exchanges'] }[open.view] ?? ['method or text', 'Filter messages'];
  const input = h('input', { type: 'search', value: open.filter, placeholder, 'aria-label': label,
    oninput: (e) => { open.filter = e.target.value; draw(api); } });
  // A server reached over stdio has no HTTP exchanges: no Network view.
  const choices = [['messages', 'Messages'], ['logs', 'Server logs']];
  if (isHttp(api, open)) choices.push(['network', 'Network']);
  const views = h('div', { class: 'segmented', role: 'group', 'aria-label': 'Show' },
    choices.map(([v, t]) => h('button', { type: 'button', class: `ghost view-${v}`, 'aria-pressed': open.view === v ? 'true' : 'false',
      onclick: () => {
        open.view = v; open.sig = ''; draw(api);
        if (v === 'network') { const state = open; fetchNetwork(api, state).then(() => { if (open === state) draw(api); }); }
      } }, t)));
  return h('header', { class: 'protocol-head' },
    h('h2', {}, title), views, input, ...extra,
    h('button', { type: 'button', class: 'ghost log-export', title: 'Download what the pane shows as JSON Lines, as --trace writes them', onclick: () => exportShown() }, 'Export'),
    h('button', { type: 'button', class: 'ghost log-close', onclick: () => { closeLog(); onClosed?.(); } }, 'Close'));
}

/**
 * Draws the open pane. `added` are the messages that just arrived: when nothing else changed,
 * only they are looked at (the filtered rows grow, the window moves if it was at the end).
 */
function draw(api, added = null) {
  const pane = document.getElementById('protocol');
  pane.hidden = false;
  const focused = document.activeElement === pane.querySelector('input[type=search]');
  if (open.view === 'logs') {
    const sig = JSON.stringify(['logs', open.server, open.filter, open.messages.length, open.level, open.levelNote]);
    if (sig === open.sig) return;
    open.sig = sig;
    drawLogs(api, pane);
  } else if (open.view === 'network') {
    const sig = JSON.stringify(['network', open.server, open.filter, open.expanded, open.networkStamp]);
    if (sig === open.sig) return;
    open.sig = sig;
    drawNetwork({
      state: open,
      head: (...extra) => header(api, `Network: ${open.server}`, ...extra),
      clockOf,
      showMessage: (seq) => showMessage(api, seq),
      redraw: () => { open.sig = ''; draw(api); },
    }, pane);
  } else {
    const sig = JSON.stringify(['messages', open.server, open.serverId, open.filter, open.dir, open.call, open.error]);
    if (sig === open.sig && added) {
      for (const m of added) if (shown(m)) open.rows.push(m);
      if (added.length) update(api, pane);
      return;
    }
    if (sig === open.sig) return;
    open.sig = sig;
    open.rows = open.messages.filter(shown);
    build(api, pane);
  }
  if (focused) { const i = pane.querySelector('input[type=search]'); i.focus(); i.setSelectionRange(i.value.length, i.value.length); }
}

/** The messages view, from scratch: header, the windowed list, the chosen message. */
function build(api, pane) {
  const dir = h('select', { 'aria-label': 'Direction', onchange: (e) => { open.dir = e.target.value; draw(api); } },
    [['all', 'both ways'], ['send', 'host → server'], ['recv', 'server → host']].map(([v, t]) => h('option', { value: v, selected: open.dir === v ? true : null }, t)));
  const list = h('div', { class: 'protocol-list windowed', tabindex: '0', role: 'list', 'aria-label': `Messages of ${open.server}` },
    h('div', { class: 'spacer' }), h('ol', { class: 'protocol-window' }));
  list.addEventListener('scroll', () => {
    open.stick = list.scrollTop + list.clientHeight >= list.scrollHeight - ROW;
    renderWindow(api, list);
  });
  replace(pane,
    header(api, `Protocol: ${open.server}`, dir,
      open.call !== null ? h('span', { class: 'chip call-only' }, `call #${open.call} only `,
        h('button', { type: 'button', class: 'link', onclick: () => { open.call = null; open.sig = ''; draw(api); } }, 'show all')) : null,
      h('span', { class: 'what count' })),
    open.error ? h('p', { class: 'server-error' }, open.error) : null,
    list,
    h('div', { class: 'protocol-detail', hidden: true }));
  open.stick = true;
  update(api, pane);
  showDetail(api, pane);
}

/** After the rows changed: the count, the list's height, the window (kept at the end). */
function update(api, pane) {
  const count = pane.querySelector('.count');
  if (count) {
    const total = open.messages.reduce((n, m) => (m.dir === 'stderr' ? n : n + 1), 0);
    count.textContent = `${open.rows.length} of ${total} message${total === 1 ? '' : 's'}`;
  }
  const list = pane.querySelector('.protocol-list.windowed');
  if (!list) return;
  list.querySelector('.spacer').style.height = `${open.rows.length * ROW}px`;
  // As tall as its rows, up to a screenful of them.
  list.style.height = `${Math.min(360, Math.max(2, open.rows.length) * ROW + 2)}px`;
  if (open.stick) list.scrollTop = list.scrollHeight;
  renderWindow(api, list);
}

/** Draws the rows in sight (and a margin), and only them. */
function renderWindow(api, list) {
  const first = Math.max(0, Math.floor(list.scrollTop / ROW) - MARGIN);
  const last = Math.min(open.rows.length, Math.ceil((list.scrollTop + list.clientHeight) / ROW) + MARGIN);
  const win = list.querySelector('.protocol-window');
  // The same rows as drawn: by their numbers, not their places (old rows drop off the front).
  const key = `${open.rows[first]?.seq}-${open.rows[last - 1]?.seq}-${last - first}-${open.selected}`;
  if (win.dataset.key === key) return;
  win.dataset.key = key;
  win.style.top = `${first * ROW}px`;
  replace(win, open.rows.slice(first, last).map((m) => row(api, m)));
}

function row(api, m) {
  const id = m.message?.id;
  const arrow = m.dir === 'send' ? '→' : '←';
  const view = m.view !== undefined && m.view !== null;
  const who = view ? `view ${m.view}` : 'server';
  return h('li', {
    class: `protocol-row ${m.dir}${view ? ' view' : ''}${open.selected === m.seq ? ' selected' : ''}`,
    role: 'listitem',
    dataset: { method: kindOf(m), dir: m.dir, call: m.call ?? '', seq: m.seq },
  }, h('button', { type: 'button', class: 'row-btn', 'aria-pressed': open.selected === m.seq ? 'true' : 'false',
    onclick: () => {
      open.selected = open.selected === m.seq ? null : m.seq;
      showDetail(api, document.getElementById('protocol'));
      const list = document.querySelector('#protocol .protocol-list.windowed');
      if (list) renderWindow(api, list);
      // The exchange that carried it, for the detail's link (read once, then kept current).
      const state = open;
      if (open.selected !== null && isHttp(api, state) && !state.network) {
        fetchNetwork(api, state).then(() => { if (open === state) showDetail(api, document.getElementById('protocol')); });
      }
    } },
  clockOf(m),
  h('span', { class: 'arrow', title: m.dir === 'send' ? `host to ${who}` : `${who} to host` }, `${arrow} ${who}`),
  h('span', { class: 'mono m' }, summary(m)),
  id !== undefined && id !== null ? h('span', { class: 'mono id' }, `#${JSON.stringify(id)}`) : null,
  m.latency_ms !== undefined && m.latency_ms !== null ? h('span', { class: 'lat' }, `${m.latency_ms} ms`) : null));
}

/** The chosen message's JSON, with a copy button, under the list. */
function showDetail(api, pane) {
  const box = pane.querySelector('.protocol-detail');
  if (!box) return;
  const m = open.selected === null ? null : open.messages.find((x) => x.seq === open.selected);
  if (!m) { box.hidden = true; replace(box); return; }
  box.hidden = false;
  // The HTTP exchange that carried it, for a server reached over HTTP.
  const x = exchangeOf(open.network?.exchanges, m.seq);
  const carrier = x ? h('button', { type: 'button', class: 'link to-exchange', dataset: { exchange: x.seq }, title: 'Show the HTTP exchange that carried this message',
    onclick: () => showExchange(api, x.seq) }, `carried by ${x.method} ${x.status ?? '…'} (exchange #${x.seq})`) : null;
  replace(box,
    h('div', { class: 'detail-head' }, h('strong', {}, `${summary(m)}`), ` · ${m.dir === 'send' ? 'host →' : '→ host'} · `, clockOf(m),
      carrier ? [' · ', carrier] : null,
      h('button', { type: 'button', class: 'ghost copy', onclick: () => navigator.clipboard?.writeText(JSON.stringify(m.message, null, 2)) }, 'Copy')),
    h('pre', {}, pretty(m.message)));
}
