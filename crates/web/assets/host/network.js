// The protocol pane's "Network" view, for a server reached over HTTP: each HTTP exchange the
// host had with it — method, status, JSON or event stream, sizes, duration, clock time and the
// JSON-RPC methods it carried — one row each; a row opens on its headers (the host redacted the
// secrets: shown as ••• with "redacted"), its timing and its messages, each a link to its row
// among the messages. The messages view links back (`exchangeOf`).
//
// The host keeps the exchanges (bounded, redacted); this file only draws them.

import { h, replace } from './dom.js';

const SHOWN = 500; // rows drawn at most (the newest that match)

/** A size in bytes, in words a person reads at a glance. */
export function size(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** What a response body was, in a word. */
function kindOf(x) {
  return { json: 'JSON', sse: 'SSE', empty: '—', other: 'other', pending: '…' }[x.body] ?? x.body;
}

/** The JSON-RPC methods an exchange carried, each way (a response as `result` or `error`). */
export function carried(x) {
  const name = (m) => m.method ?? (m.kind === 'error' ? 'error' : 'result');
  const sent = (x.sent || []).map(name);
  const received = (x.received || []).map(name);
  const more = x.received_more ? [`+${x.received_more}`] : [];
  return [sent.join(', '), [...received, ...more].join(', ')].filter(Boolean).join(' → ');
}

/** The exchange that carried protocol log row `seq`, among `exchanges`. */
export function exchangeOf(exchanges, seq) {
  return exchanges?.find((x) => (x.sent || []).some((m) => m.log_seq === seq)
    || (x.received || []).some((m) => m.log_seq === seq)) ?? null;
}

/** Whether exchange `x` shows under the filter `text`. */
function matches(x, text) {
  const f = text.trim().toLowerCase();
  if (!f) return true;
  return `${x.method} ${x.path} ${x.status ?? ''} ${kindOf(x)} ${carried(x)}`.toLowerCase().includes(f);
}

/** The exchanges the view shows, under `state.filter`. */
export function shownExchanges(state) {
  return (state.network?.exchanges || []).filter((x) => matches(x, state.filter));
}

function duration(x) {
  if (x.state === 'open') return h('span', { class: 'chip open', title: 'The response is still coming (an event stream stays open until the server or the host ends it)' }, 'open');
  return h('span', { class: 'dur' }, x.duration_ms === null || x.duration_ms === undefined ? '' : `${x.duration_ms} ms`);
}

function status(x) {
  if (x.status === null || x.status === undefined) {
    return h('span', { class: `chip status ${x.state === 'failed' ? 'bad' : ''}` }, x.state === 'failed' ? 'failed' : '…');
  }
  const cls = x.status >= 400 ? 'bad' : x.status >= 300 ? 'warn' : 'ok';
  return h('span', { class: `chip status ${cls}` }, String(x.status));
}

/** One header: its name and value; a redacted value as what may be shown, then •••. */
function header(hd) {
  const value = hd.redacted
    ? [hd.value ? `${hd.value} ` : '', h('span', { class: 'redacted', title: 'Redacted by the host: the value may be a secret' }, '•••'),
      hd.name === 'mcp-session-id'
        ? h('span', { class: 'what note', title: 'The session id is no password, but whoever has it can act in the session: only its first characters are shown' }, ' redacted (first 4 characters kept)')
        : h('span', { class: 'what note' }, ' redacted')]
    : [hd.value];
  return h('tr', { dataset: { name: hd.name, redacted: hd.redacted ? 'yes' : 'no' } },
    h('th', { class: 'mono' }, hd.name), h('td', { class: 'mono' }, ...value));
}

function headers(title, list) {
  return h('section', { class: 'net-headers' }, h('h4', {}, title),
    list.length ? h('table', {}, h('tbody', {}, list.map(header))) : h('p', { class: 'what' }, 'none'));
}

/** The messages of an exchange, each a link to its row among the messages. */
function messages(ctx, title, list, arrow) {
  return h('section', { class: 'net-messages' }, h('h4', {}, title),
    list.length ? h('ul', {}, list.map((m) => {
      const label = `${arrow} ${m.method ?? (m.kind === 'error' ? 'error' : 'result')}${m.id !== undefined && m.id !== null ? ` #${JSON.stringify(m.id)}` : ''}`;
      return h('li', {}, m.log_seq === null || m.log_seq === undefined
        ? h('span', { class: 'mono', title: 'Not in the protocol log (it may have dropped off its end)' }, label)
        : h('button', { type: 'button', class: 'link mono to-message', dataset: { seq: m.log_seq }, title: 'Show this message in the protocol log',
          onclick: () => ctx.showMessage(m.log_seq) }, label));
    })) : h('p', { class: 'what' }, 'none'));
}

function detail(ctx, x) {
  const timing = [
    `sent ${x.request_bytes} B`,
    `received ${size(x.response_bytes)}`,
    x.headers_ms !== null && x.headers_ms !== undefined ? `headers after ${x.headers_ms} ms` : null,
    x.state === 'open' ? 'still open' : x.duration_ms !== null && x.duration_ms !== undefined ? `over after ${x.duration_ms} ms` : null,
    x.content_type ? x.content_type : null,
  ].filter(Boolean).join(' · ');
  return h('div', { class: 'net-detail' },
    h('p', { class: 'what' }, timing),
    x.error ? h('p', { class: 'server-error' }, x.error) : null,
    h('div', { class: 'net-columns' },
      h('div', {}, headers('Request headers', x.request_headers || []), messages(ctx, 'Sent', x.sent || [], '→')),
      h('div', {}, headers('Response headers', x.response_headers || []), messages(ctx, 'Received', x.received || [], '←'))));
}

function row(ctx, x) {
  const open = ctx.state.expanded === x.seq;
  return h('li', { class: `net-row${open ? ' selected' : ''}`, dataset: { seq: x.seq, status: x.status ?? '', kind: x.body, method: x.method } },
    h('button', { type: 'button', class: 'row-btn', 'aria-expanded': open ? 'true' : 'false',
      onclick: () => { ctx.state.expanded = open ? null : x.seq; ctx.redraw(); } },
    ctx.clockOf(x),
    h('span', { class: 'mono verb' }, x.method),
    status(x),
    h('span', { class: 'chip kind' }, kindOf(x)),
    h('span', { class: 'mono m', title: carried(x) }, carried(x) || x.path),
    h('span', { class: 'size', title: `${x.request_bytes} B sent, ${x.response_bytes} B received` }, `↑${size(x.request_bytes)} ↓${size(x.response_bytes)}`),
    duration(x)),
    open ? detail(ctx, x) : null);
}

/**
 * Draws the Network view into `pane`. `ctx`: `state` (the pane's), `head` (its header with the
 * view switch), `clockOf`, `showMessage(seq)`, `redraw()`.
 */
export function drawNetwork(ctx, pane) {
  const { state } = ctx;
  const net = state.network;
  const all = net?.exchanges || [];
  const rows = shownExchanges(state).slice(-SHOWN);
  const body = net?.unavailable
    ? h('p', { class: 'what net-none' }, net.unavailable)
    : net?.error ? h('p', { class: 'server-error' }, net.error)
      : !net ? h('p', { class: 'what' }, 'Reading the exchanges…')
        : all.length ? h('ol', { class: 'protocol-list network-list', 'aria-label': `HTTP exchanges with ${state.server}` }, rows.map((x) => row(ctx, x)))
          : h('p', { class: 'what' }, 'No HTTP exchange yet.');
  replace(pane,
    ctx.head(h('span', { class: 'what count' }, `${rows.length} of ${all.length} exchange${all.length === 1 ? '' : 's'}`)),
    body);
  const chosen = pane.querySelector('.net-row.selected');
  if (chosen && state.reveal) { chosen.scrollIntoView({ block: 'nearest' }); state.reveal = false; }
}

/** The shown exchanges as JSON Lines, as the host records them. */
export function networkLines(state) {
  return shownExchanges(state).map((x) => JSON.stringify({ ...x, server: x.server ?? state.server }));
}
