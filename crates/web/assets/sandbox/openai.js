// `window.openai` for views written for ChatGPT's Apps SDK (`text/html+skybridge`), on top of
// MCP Apps: the sandbox listener adds this script to such a view, and it speaks the same
// view ⇄ host protocol as any view (the host's bridge sees no difference). One bridge in Rust,
// two dialects in the sandbox.
//
// Globals: toolInput, toolOutput (the result's structuredContent), toolResponseMetadata (its
// _meta), widgetState (kept for the view's life), theme, displayMode, maxHeight, locale,
// safeArea, userAgent; each change fires `openai:set_globals` on window.
// Calls: callTool, sendFollowUpMessage, openExternal, requestDisplayMode, notifyIntrinsicHeight,
// setWidgetState.
(() => {
  'use strict';
  const parent = window.parent;
  let next = 1;
  const pending = new Map();
  const send = (method, params) => new Promise((resolve, reject) => {
    const id = `openai-${next++}`;
    pending.set(id, { resolve, reject });
    parent.postMessage({ jsonrpc: '2.0', id, method, params }, '*');
  });
  const notify = (method, params) => parent.postMessage({ jsonrpc: '2.0', method, params }, '*');

  const globals = {
    toolInput: {},
    toolOutput: null,
    toolResponseMetadata: null,
    widgetState: null,
    theme: 'light',
    displayMode: 'inline',
    maxHeight: 6000,
    locale: navigator.language || 'en',
    safeArea: { insets: { top: 0, right: 0, bottom: 0, left: 0 } },
    userAgent: { device: { type: 'desktop' }, capabilities: { hover: true, touch: false } },
  };
  const set = (changes) => {
    Object.assign(globals, changes);
    window.dispatchEvent(new CustomEvent('openai:set_globals', { detail: { globals: changes } }));
  };
  const fromContext = (ctx) => {
    if (!ctx) return {};
    const out = {};
    if (ctx.theme) out.theme = ctx.theme;
    if (ctx.displayMode) out.displayMode = ctx.displayMode;
    if (ctx.locale) out.locale = ctx.locale;
    const dims = ctx.containerDimensions;
    if (dims && (dims.maxHeight || dims.height)) out.maxHeight = dims.maxHeight || dims.height;
    return out;
  };

  const openai = {
    callTool: async (name, args) => {
      const result = await send('tools/call', { name, arguments: args || {} });
      return result;
    },
    sendFollowUpMessage: ({ prompt }) => send('ui/message', { role: 'user', content: [{ type: 'text', text: String(prompt) }] }),
    openExternal: ({ href }) => send('ui/open-link', { url: String(href) }),
    requestDisplayMode: async ({ mode }) => {
      const result = await send('ui/request-display-mode', { mode });
      if (result && result.mode) set({ displayMode: result.mode });
      return result;
    },
    notifyIntrinsicHeight: (height) => notify('ui/notifications/size-changed', { height: Math.ceil(Number(height) || 0) }),
    setWidgetState: async (state) => { set({ widgetState: state }); },
  };
  for (const key of Object.keys(globals)) {
    Object.defineProperty(openai, key, { enumerable: true, get: () => globals[key] });
  }
  Object.defineProperty(window, 'openai', { value: Object.freeze(openai), enumerable: true });

  window.addEventListener('message', (event) => {
    if (event.source !== parent) return;
    const m = event.data;
    if (!m || m.jsonrpc !== '2.0') return;
    if (m.method === undefined) {
      const p = pending.get(m.id);
      if (p) { pending.delete(m.id); if (m.error) p.reject(m.error); else p.resolve(m.result); }
      return;
    }
    const params = m.params || {};
    if (m.method === 'ui/notifications/tool-input') set({ toolInput: params.arguments || {} });
    else if (m.method === 'ui/notifications/tool-result') set({ toolOutput: params.structuredContent ?? null, toolResponseMetadata: params._meta ?? null });
    else if (m.method === 'ui/notifications/host-context-changed') set(fromContext(params));
    else if (m.method === 'ui/resource-teardown' && m.id !== undefined) parent.postMessage({ jsonrpc: '2.0', id: m.id, result: {} }, '*');
  });

  send('ui/initialize', {
    appInfo: { name: 'apps-sdk-widget', version: '1' },
    appCapabilities: {},
    protocolVersion: '2026-01-26',
  }).then((result) => {
    set(fromContext(result && result.hostContext));
    notify('ui/notifications/initialized', {});
  });
})();
