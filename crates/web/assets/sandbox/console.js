// The console of an app view, for the person debugging it: what the view writes with
// console.log/info/warn/error/debug, and its uncaught errors and rejected promises, go to the
// host as the view's log lines (`notifications/message`, logger "console"), shown with the view
// on the page. Served from the sandbox origin and put first in every view's document; it
// changes nothing the view sees (each console method still writes as before).
//
// Bounded: at most 20 lines a second and 500 in all (then one line saying the rest was not
// sent); each line cut at 2 000 characters.
(() => {
  'use strict';
  if (window.parent === window) return;
  const MAX_TOTAL = 500;
  const PER_SECOND = 20;
  const MAX_CHARS = 2000;
  let sent = 0;
  let second = 0;
  let inSecond = 0;
  let stopped = false;
  const text = (args) => Array.from(args).map((a) => {
    if (typeof a === 'string') return a;
    if (a instanceof Error) return `${a.name}: ${a.message}`;
    try { return JSON.stringify(a); } catch (_) { return String(a); }
  }).join(' ').slice(0, MAX_CHARS);
  const post = (level, data) => {
    if (stopped) return;
    const now = Math.floor(Date.now() / 1000);
    if (now !== second) { second = now; inSecond = 0; }
    if (inSecond >= PER_SECOND) return;
    inSecond += 1;
    sent += 1;
    if (sent > MAX_TOTAL) {
      stopped = true;
      data = `(the view's console wrote more than ${MAX_TOTAL} lines; the rest is not shown)`;
      level = 'warning';
    }
    try {
      window.parent.postMessage({ jsonrpc: '2.0', method: 'notifications/message', params: { level, logger: 'console', data } }, '*');
    } catch (_) { /* a value that cannot be cloned: dropped */ }
  };
  const LEVELS = { debug: 'debug', log: 'info', info: 'info', warn: 'warning', error: 'error' };
  for (const [method, level] of Object.entries(LEVELS)) {
    const original = console[method];
    if (typeof original !== 'function') continue;
    console[method] = function (...args) {
      post(level, text(args));
      return original.apply(this, args);
    };
  }
  window.addEventListener('error', (e) => {
    // Chromium's message already says "Uncaught"; the document's address (with its key) is
    // left out, its line kept.
    const message = e.message || 'error';
    post('error', `${message.startsWith('Uncaught') ? '' : 'Uncaught '}${message}${e.lineno ? ` (line ${e.lineno})` : ''}`.slice(0, MAX_CHARS));
  });
  window.addEventListener('unhandledrejection', (e) => {
    post('error', `Unhandled rejection: ${text([e.reason])}`);
  });
})();
