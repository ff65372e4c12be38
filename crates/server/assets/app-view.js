// Interlude — the view side of an MCP App, without a bundler or any dependency: the view ⇄ host
// protocol (MCP Apps, stable revision 2026-01-26) over `postMessage`, in one ES module small
// enough to inline in the view's HTML (`interlude_server::apps::VIEW_HELPER_JS`).
//
// A view is an HTML document the host renders in a sandboxed iframe. It speaks JSON-RPC 2.0 to
// its parent window:
//   1. the view asks `ui/initialize` {appInfo, appCapabilities, protocolVersion: "2026-01-26"};
//      the host answers {protocolVersion, hostInfo, hostCapabilities, hostContext};
//   2. the view says `ui/notifications/initialized` — the host sends nothing before it;
//   3. the host sends the call's `ui/notifications/tool-input` ({arguments}) and then
//      `ui/notifications/tool-result` (the CallToolResult), or `tool-cancelled`;
//   4. the view may call its server's tools (`tools/call`, relayed by the host), read its
//      resources, open links (`ui/open-link`), and must say its size when it changes
//      (`ui/notifications/size-changed` {width, height}) or the host keeps a fixed height;
//   5. before removing the view the host asks `ui/resource-teardown`; the view answers `{}`.
// A view that renders questions (app-rendered elicitation, SEP-3118) also declares
// `appCapabilities.elicitation` and answers the host's `elicitation/create` with an
// ElicitResult.
//
// Usage, inlined after this module's text in the same <script type="module">:
//
//   const view = await connectView({
//     name: 'counter', version: '1.0.0',
//     onToolResult: (result) => render(result.structuredContent),
//   });
//   button.onclick = async () => render((await view.callTool('increment', {})).structuredContent);
//
// Bundling instead (the `App` class of `@modelcontextprotocol/ext-apps`) is documented in the
// crate's `apps` module; this file is for views that are one HTML document.

/** The MCP Apps protocol revision this helper speaks (the stable one). */
export const APPS_PROTOCOL_VERSION = '2026-01-26';

/** Where Interlude puts its reasons for refusing a view's last answer to a question. */
export const ANSWER_ERRORS_KEY = 'dev.interlude/answerErrors';

/** A JSON-RPC error a request handler can throw to answer with that code. */
export class RpcError extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/**
 * Connects the view to its host: registers the listeners, performs the handshake and resolves
 * to a `View` once the host answered `ui/initialize`. Options (all optional but `name`):
 * - `name`, `version`: the view's `appInfo`;
 * - `capabilities`: extra `appCapabilities` (e.g. `{ availableDisplayModes: ['inline'] }`);
 * - `onToolInput(arguments)`, `onToolResult(result)`, `onToolCancelled({reason})`,
 *   `onHostContext(partialContext)`: the host's notifications;
 * - `onQuestion(params, { errors, signal })`: answers a question the host forwards (declares
 *   `appCapabilities.elicitation`); resolve to `{action: 'accept', content}` or
 *   `{action: 'decline' | 'cancel'}`; `errors` lists `{field, message}` the host found in the
 *   previous answer; `signal` aborts when the host withdraws the question;
 * - `onRequest(method, params)`: any other host request (throw `RpcError` to refuse);
 * - `onTeardown()`: before the host removes the view;
 * - `autoResize` (default true): sends `ui/notifications/size-changed` when the document's
 *   size changes;
 * - `timeoutMs` (default 30000): how long a request waits for the host.
 */
export async function connectView(options) {
  const host = window.parent;
  const pending = new Map();
  const running = new Map(); // host request id → AbortController
  let nextId = 1;
  const post = (message) => host.postMessage({ jsonrpc: '2.0', ...message }, '*');

  function request(method, params = {}) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new RpcError(-32001, `${method}: no answer from the host`));
      }, options.timeoutMs ?? 30000);
      pending.set(id, { resolve, reject, timer });
      post({ id, method, params });
    });
  }
  const notify = (method, params = {}) => post({ method, params });

  async function answer(message) {
    const { id, method, params } = message;
    const controller = new AbortController();
    running.set(id, controller);
    try {
      let result;
      if (method === 'ping') {
        result = {};
      } else if (method === 'ui/resource-teardown') {
        await options.onTeardown?.();
        result = {};
      } else if (method === 'elicitation/create' && options.onQuestion) {
        const errors = Array.isArray(params?._meta?.[ANSWER_ERRORS_KEY])
          ? params._meta[ANSWER_ERRORS_KEY] : [];
        result = elicitResult(await options.onQuestion(params, { errors, signal: controller.signal }));
      } else if (options.onRequest) {
        result = await options.onRequest(method, params);
      } else {
        throw new RpcError(-32601, `the view does not handle ${method}`);
      }
      if (!controller.signal.aborted) post({ id, result: result ?? {} });
    } catch (e) {
      if (!controller.signal.aborted) {
        post({ id, error: { code: e?.code ?? -32603, message: String(e?.message ?? e), data: e?.data } });
      }
    } finally {
      running.delete(id);
    }
  }

  window.addEventListener('message', (event) => {
    if (event.source !== host) return; // only the host speaks to the view
    const message = event.data;
    if (!message || message.jsonrpc !== '2.0') return;
    if (message.method === undefined) {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      clearTimeout(waiting.timer);
      if (message.error) {
        waiting.reject(new RpcError(message.error.code, message.error.message, message.error.data));
      } else {
        waiting.resolve(message.result);
      }
    } else if (message.id !== undefined) {
      answer(message);
    } else {
      const params = message.params ?? {};
      switch (message.method) {
        case 'ui/notifications/tool-input': options.onToolInput?.(params.arguments ?? {}); break;
        case 'ui/notifications/tool-result': options.onToolResult?.(params); break;
        case 'ui/notifications/tool-cancelled': options.onToolCancelled?.(params); break;
        case 'ui/notifications/host-context-changed': options.onHostContext?.(params); break;
        case 'notifications/cancelled': running.get(params.requestId)?.abort(params.reason); break;
        default: break;
      }
    }
  });

  const appCapabilities = { ...(options.capabilities ?? {}) };
  if (options.onQuestion) appCapabilities.elicitation = {};
  const initialized = await request('ui/initialize', {
    appInfo: { name: options.name, version: options.version ?? '0.0.0' },
    appCapabilities,
    protocolVersion: APPS_PROTOCOL_VERSION,
  });
  notify('ui/notifications/initialized');

  let last = '';
  function sendSize() {
    const root = document.documentElement;
    const size = { width: Math.ceil(root.scrollWidth), height: Math.ceil(root.scrollHeight) };
    const key = `${size.width}x${size.height}`;
    if (key === last) return;
    last = key;
    notify('ui/notifications/size-changed', size);
  }
  if (options.autoResize ?? true) {
    let queued = false;
    new ResizeObserver(() => {
      if (queued) return;
      queued = true;
      requestAnimationFrame(() => { queued = false; sendSize(); });
    }).observe(document.documentElement);
    sendSize();
  }

  return {
    /** What the host answered to `ui/initialize`. */
    host: initialized,
    /** Calls a tool of the view's own server (through the host); resolves to its result. */
    callTool: (name, args = {}) => request('tools/call', { name, arguments: args }),
    /** Reads a resource of the view's server. */
    readResource: (uri) => request('resources/read', { uri }),
    /** Asks the host to open a link (the host asks the person first). */
    openLink: (url) => request('ui/open-link', { url }),
    /** Says the document's size now (done by itself with `autoResize`). */
    sendSize,
    /** Any other request or notification of the protocol. */
    request,
    notify,
  };
}

/** An ElicitResult from what `onQuestion` resolved to; throws (→ a JSON-RPC error) if malformed. */
function elicitResult(answer) {
  const action = answer?.action;
  if (action === 'decline' || action === 'cancel') return { action };
  if (action === 'accept') {
    const content = answer.content ?? {};
    if (content === null || typeof content !== 'object' || Array.isArray(content)) {
      throw new RpcError(-32602, "an accepted answer's `content` must be an object");
    }
    return { action, content };
  }
  throw new RpcError(-32602, 'the answer must be {action: "accept", content} or {action: "decline" | "cancel"}');
}
