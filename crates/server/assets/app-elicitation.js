// Interlude — questions in an MCP App view (app-rendered elicitation, SEP-3118), for views built
// on the MCP Apps SDK (`@modelcontextprotocol/ext-apps` 2.x). An ES module with no dependencies.
//
// A server asks with `Ask::form_in_view` (interlude-server). A host that renders questions in
// views forwards the server's `elicitation/create` to the view, unchanged, once both sides said
// they can (`appCapabilities.elicitation` / `hostCapabilities.elicitation`). The view answers
// with an `ElicitResult`. The host checks it against the question's schema before anything
// reaches the server; when Interlude refuses an answer it asks the view again, the same params
// plus `_meta["dev.interlude/answerErrors"]` (a list of `{field, message}`).
//
// Usage:
//
//   import { App } from '@modelcontextprotocol/ext-apps';
//   import { ELICITATION_CAPABILITIES, handleElicitations, onHostCancelled } from './app-elicitation.js';
//
//   const app = new App({ name: 'portfolio', version: '1.0.0' }, { ...ELICITATION_CAPABILITIES });
//   handleElicitations(app, async (params, { errors, signal }) => {
//     // Show params.message, a UI for params.requestedSchema and `errors` (empty on a first
//     // ask); resolve when the person decides. `signal` aborts if the host withdraws the question.
//     return { action: 'accept', content: { confirmed: true, selectedManagerId: 'm-ava' } };
//   });
//   onHostCancelled(app, ({ reason }) => showClosedBanner(reason));
//   app.onteardown = async () => ({}); // the host tears the view down after every answer
//   await app.connect(); // register first: the question can arrive right after the handshake
//
// What SDK 2.0.4 does, checked against its published bundle:
// - There is no `onelicitation` setter. The handler is registered with the 2.x three-argument
//   `app.setRequestHandler(method, { params }, handler)`. The params validator may be any
//   Standard Schema object, so a hand-written one is used here (no zod). It passes the host's
//   params through untouched. The two-argument form would re-parse them with the core
//   `ElicitRequestSchema`, which drops unknown schema keywords.
// - `new App(info, capabilities)` sends `capabilities` in `ui/initialize` as given, so
//   `elicitation: {}` reaches the host. `getHostCapabilities()` does NOT show the host's
//   `elicitation`: the SDK's schema of host capabilities predates it and strips the key. So do not
//   gate on it. A host that does not forward questions simply never sends one.
// - `notifications/cancelled` is owned by the SDK: `setNotificationHandler` for it throws. The SDK
//   aborts the handler's `ctx.mcpReq.signal` (reason = the host's `reason`) and then sends no
//   response, so `onHostCancelled` listens to that signal. (Closing the connection aborts it too;
//   that is not reported as a cancel.)
// - A view without `app.onteardown` answers `ui/resource-teardown` with -32601.

/** What to merge into the App's capabilities: this view renders questions. */
export const ELICITATION_CAPABILITIES = Object.freeze({ elicitation: Object.freeze({}) });

/** Where Interlude puts its reasons for refusing the view's last answer. */
export const ANSWER_ERRORS_KEY = 'dev.interlude/answerErrors';

/** A Standard Schema (v1) validator for `elicitation/create` params; keeps them as they are. */
const QUESTION = {
  '~standard': {
    version: 1,
    vendor: 'interlude',
    validate(value) {
      const ok = value !== null && typeof value === 'object'
        && typeof value.message === 'string'
        && value.requestedSchema !== null && typeof value.requestedSchema === 'object';
      return ok
        ? { value }
        : { issues: [{ message: 'elicitation/create needs a `message` and a `requestedSchema`' }] };
    },
  },
};

/** Listeners from `onHostCancelled`, per App. */
const cancelListeners = new WeakMap();

/** The reasons the host gave for refusing the last answer (`[]` on a first ask). */
export function answerErrors(params) {
  const errors = params?._meta?.[ANSWER_ERRORS_KEY];
  return Array.isArray(errors)
    ? errors.filter((e) => e && typeof e.field === 'string' && typeof e.message === 'string')
    : [];
}

/** An `ElicitResult` from what `render` resolved to; throws (→ a JSON-RPC error) if malformed. */
function elicitResult(answer) {
  const action = answer?.action;
  if (action === 'decline' || action === 'cancel') return { action };
  if (action === 'accept') {
    const content = answer.content ?? {};
    if (content === null || typeof content !== 'object' || Array.isArray(content)) {
      throw new Error("an accepted answer's `content` must be an object");
    }
    return { action, content };
  }
  throw new Error('the answer must be {action: "accept", content} or {action: "decline" | "cancel"}');
}

/**
 * Answers every question the host forwards with `render(params, { errors, signal })`, which
 * resolves to `{action, content?}`. Call once, before `app.connect()`.
 */
export function handleElicitations(app, render) {
  app.setRequestHandler('elicitation/create', { params: QUESTION }, async (params, ctx) => {
    const signal = ctx?.mcpReq?.signal;
    signal?.addEventListener('abort', () => {
      // The SDK aborts with the host's `reason` string, or an AbortError when it gave none; any
      // other reason (the connection closing) is not the host withdrawing the question.
      const why = signal.reason;
      if (typeof why !== 'string' && why?.name !== 'AbortError') return;
      const event = { requestId: ctx.mcpReq.id, reason: typeof why === 'string' ? why : undefined, params };
      for (const fn of cancelListeners.get(app) ?? []) fn(event);
    }, { once: true });
    return elicitResult(await render(params, { errors: answerErrors(params), signal }));
  });
}

/**
 * Calls `fn({ requestId, reason, params })` when the host withdraws a question it forwarded
 * (`notifications/cancelled`, e.g. Cancel in the host's chrome). Returns an unsubscribe function.
 */
export function onHostCancelled(app, fn) {
  if (!cancelListeners.has(app)) cancelListeners.set(app, new Set());
  cancelListeners.get(app).add(fn);
  return () => cancelListeners.get(app)?.delete(fn);
}
