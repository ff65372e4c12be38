// Small DOM helpers. Every piece of text from a server goes through textContent: nothing a peer
// sends is ever parsed as HTML, and URLs in it stay plain text.

/** Creates an element: h('div', {class: 'x', onclick: f}, child, 'text', ...). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v);
    else if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replaces an element's children. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

let counter = 0;
/** A unique id for label/aria wiring. */
export function uid(prefix) {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** Formats a JSON value for display. */
export function pretty(v) {
  return typeof v === 'string' ? v : JSON.stringify(v, null, 2);
}

/**
 * Who asks, on a request's card: what the server says it is (its `serverInfo` title, else its
 * name) and, when that differs, the name it was configured under, beside it.
 */
export function askWho(req, id) {
  const said = req.serverTitle || req.server;
  return h('div', { class: 'ask-server', id: id || null },
    h('span', { class: 'ask-title' }, said),
    said !== req.server ? h('span', { class: 'chip ask-name', title: 'The name this host knows it by' }, req.server) : null);
}

/** A Copy button: `text()` goes to the clipboard, and the button says whether it did. */
export function copyButton(label, text) {
  return h('button', { type: 'button', class: 'ghost copy', 'aria-label': label, onclick: (e) => {
    const b = e.currentTarget;
    navigator.clipboard?.writeText(text()).then(() => { b.textContent = 'Copied'; setTimeout(() => { b.textContent = 'Copy'; }, 1200); }, () => { b.textContent = 'Copy failed'; });
  } }, 'Copy');
}
