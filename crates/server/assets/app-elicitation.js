// Interlude — questions in an MCP App view (app-rendered elicitation, SEP-3118), for views built
// on the MCP Apps SDK (`@modelcontextprotocol/ext-apps` 2.x). No dependencies.
//
// A server asks with `Ask::form_in_view` (interlude-server); a host that renders questions in
// views forwards the server's `elicitation/create` to the view, unchanged, once the view said it
// can (`appCapabilities.elicitation`). The view answers with an `ElicitResult`; the host checks
// it against the question's schema before anything reaches the server. When Interlude refuses
// an answer, it asks the view again with the reasons under
// `params._meta["dev.interlude/answerErrors"]` (a list of `{field, message}`).
//
// Usage:
//
//   import { App } from '@modelcontextprotocol/ext-apps';
//   import { ELICITATION_CAPABILITIES, handleElicitations } from './app-elicitation.js';
//
//   const app = new App({ name: 'portfolio', version: '1.0.0' }, { ...ELICITATION_CAPABILITIES });
//   handleElicitations(app, async (params, { errors, signal }) => {
//     // Show params.message and a UI for params.requestedSchema (and `errors`, if any);
//     // resolve when the person decides. `signal` aborts when the host cancels the question.
//     return { action: 'accept', content: { confirmed: true, selectedManagerId: 'm-ava' } };
//   });
//   await app.connect(); // register before connecting: the question may come right after
//
// Notes on SDK 2.x: there is no `onelicitation` setter, so the handler is registered with the
// three-argument `setRequestHandler(method, { params }, handler)`, whose params validator is a
// Standard Schema object (written here by hand, so no zod is needed). The capability is passed
// through to `ui/initialize` as given. `getHostCapabilities()` may not show `elicitation` (the
// SDK's schema of host capabilities predates it): do not rely on it — a host that does not
// forward questions simply never sends one.

/** What to merge into the App's capabilities: this view renders questions. */
export const ELICITATION_CAPABILITIES = Object.freeze({ elicitation: {} });

/** Where Interlude puts its reasons for refusing the view's last answer. */
export const ANSWER_ERRORS_KEY = 'dev.interlude/answerErrors';

/** A Standard Schema (v1) validator for `elicitation/create` params. */
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

/** The reasons the host gave for refusing the last answer (`[]` on a first ask). */
export function answerErrors(params) {
  const errors = params?._meta?.[ANSWER_ERRORS_KEY];
  return Array.isArray(errors)
    ? errors.filter((e) => e && typeof e.field === 'string' && typeof e.message === 'string')
    : [];
}

/** An `ElicitResult` from what `render` resolved to, or an error naming what is wrong. */
function elicitResult(answer) {
  const action = answer?.action;
  if (action === 'decline' || action === 'cancel') return { action };
  if (action === 'accept') {
    const content = answer.content ?? {};
    if (content === null || typeof content !== 'object' || Array.isArray(content)) {
      throw new Error('an accepted answer\'s `content` must be an object');
    }
    return { action, content };
  }
  throw new Error('the answer must be {action: "accept", content} or {action: "decline" | "cancel"}');
}

/**
 * Answers every question the host forwards with `render(params, { errors, signal })`, which
 * resolves to `{action, content?}`. Register before `app.connect()`.
 */
export function handleElicitations(app, render) {
  app.setRequestHandler('elicitation/create', { params: QUESTION }, async (params, ctx) => {
    const signal = ctx?.mcpReq?.signal;
    return elicitResult(await render(params, { errors: answerErrors(params), signal }));
  });
}
