// The sandbox proxy of one MCP Apps view, served from a sandbox origin of its own (never the
// host page's). It relays JSON-RPC messages between the host page (its parent) and the view
// (the inner frame it writes the view's HTML into), checking on both hops where a message comes
// from and where it may go. It decides nothing: the bridge in the host does.
//
// - It runs only framed, and only where it cannot reach the top window (isolation self-test).
// - From the parent it accepts messages of the host page's origin only (`data-host`, set by
//   the sandbox listener); to the parent it posts with that origin as the target.
// - The view's HTML comes from this same origin (`data-view`, served with the view's CSP as
//   its header) into an inner frame with the sandbox flags and permissions the host granted;
//   from it the proxy accepts messages of that frame and this origin only.
// - `ui/notifications/sandbox-*` messages are the proxy's own and never reach the view.
// - An embedded web page (`data-site`) is framed from its own address without allow-same-origin
//   (an opaque origin): what it posts counts because it comes from the inner frame's window.
(() => {
  'use strict';
  const hostOrigin = document.documentElement.dataset.host;
  if (window.self === window.top || !hostOrigin) return;
  try {
    // Reading anything of the top window must fail: the frame is cross-origin to the host page.
    void window.top.location.href;
    document.documentElement.textContent = 'This sandbox is not isolated from the host page; the view was not loaded.';
    return;
  } catch (_) { /* isolated, as it must be */ }

  let inner = null;
  const PROXY = 'ui/notifications/sandbox-';

  const own = document.documentElement.dataset.view;
  // An embedded web page the person chose to show: framed from its own address, without the
  // rights of its origin (no allow-same-origin), so it is opaque and reaches nothing of ours.
  const site = document.documentElement.dataset.site === '1';
  if (!own || !(site ? /^https?:\/\//.test(own) : own.startsWith('/view.html?'))) return;
  const start = () => {
    inner = document.createElement('iframe');
    inner.setAttribute('sandbox', site ? 'allow-scripts allow-forms' : 'allow-scripts allow-same-origin allow-forms');
    if (site) inner.setAttribute('referrerpolicy', 'no-referrer');
    const allow = document.documentElement.dataset.allow;
    if (allow) inner.setAttribute('allow', allow);
    inner.setAttribute('title', 'App view');
    inner.src = own;
    document.body.appendChild(inner);
  };
  if (document.body) start(); else document.addEventListener('DOMContentLoaded', start);

  window.addEventListener('message', (event) => {
    const message = event.data;
    if (event.source === window.parent) {
      if (event.origin !== hostOrigin) return;
      if (message && typeof message.method === 'string' && message.method.startsWith(PROXY)) return;
      // A framed page's origin is opaque: it can only be addressed as '*' (it is the one
      // window in our inner frame).
      if (inner && inner.contentWindow) inner.contentWindow.postMessage(message, site ? '*' : window.location.origin);
    } else if (inner && event.source === inner.contentWindow) {
      if (!site && event.origin !== window.location.origin) return;
      if (message && typeof message.method === 'string' && message.method.startsWith(PROXY)) return;
      window.parent.postMessage(message, hostOrigin);
    }
  });

})();
