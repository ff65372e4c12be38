// The sandbox proxy of one MCP Apps view, served from a sandbox origin of its own (never the
// host page's). It relays JSON-RPC messages between the host page (its parent) and the view
// (the inner frame it writes the view's HTML into), checking on both hops where a message comes
// from and where it may go. It decides nothing: the bridge in the host does.
//
// - It runs only framed, and only where it cannot reach the top window (isolation self-test).
// - From the parent it accepts messages of the host page's origin only (`data-host`, set by
//   the sandbox listener); to the parent it posts with that origin as the target.
// - From the view it accepts messages of the inner frame only, whose document shares this
//   origin (about:blank written by this script, so the proxy's CSP header applies to it too).
// - `ui/notifications/sandbox-*` messages are the proxy's own and never reach the view.
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

  function load(params) {
    if (inner || !params || typeof params.html !== 'string') return;
    inner = document.createElement('iframe');
    inner.setAttribute('sandbox', typeof params.sandbox === 'string' ? params.sandbox : 'allow-scripts allow-same-origin allow-forms');
    if (typeof params.allow === 'string' && params.allow) inner.setAttribute('allow', params.allow);
    inner.setAttribute('title', 'App view');
    document.body.appendChild(inner);
    const doc = inner.contentDocument;
    doc.open();
    doc.write(params.html);
    doc.close();
  }

  window.addEventListener('message', (event) => {
    const message = event.data;
    if (event.source === window.parent) {
      if (event.origin !== hostOrigin) return;
      if (message && typeof message.method === 'string' && message.method.startsWith(PROXY)) {
        if (message.method === PROXY + 'resource-ready') load(message.params);
        return;
      }
      if (inner && inner.contentWindow) inner.contentWindow.postMessage(message, '*');
    } else if (inner && event.source === inner.contentWindow) {
      if (event.origin !== window.location.origin) return;
      if (message && typeof message.method === 'string' && message.method.startsWith(PROXY)) return;
      window.parent.postMessage(message, hostOrigin);
    }
  });

  window.parent.postMessage({ jsonrpc: '2.0', method: PROXY + 'proxy-ready', params: {} }, hostOrigin);
})();
