// How the page draws each kind of request the host sends: one row per kind (`kind` in the
// state's requests), picked by name. A kind the page does not know is an error the page shows,
// never a blank. The crate's tests check that every kind the host can send has a row here.

import { h } from './dom.js';
import { renderAsk, renderRecord } from './form.js';
import { renderLinkAsk, renderLinkRecord } from './url.js';
import { renderSamplingAsk, renderSamplingRecord } from './sampling.js';
import { renderQuestionCard } from './view.js';

/**
 * Each kind's renderer: `ask(req, api)` draws it while it is shown to the person (a card:
 * `{element, setEngineErrors, …}`), `record(req, api)` once it is not (queued requests are
 * drawn alike for every kind, by the timeline).
 */
export const renderers = Object.freeze({
  'form': {
    ask: (req, api) => renderAsk(req, api),
    record: (req) => renderRecord(req),
  },
  'url': {
    ask: (req, api) => renderLinkAsk(req, api),
    record: (req, api) => renderLinkRecord(req, (id) => api.post('/api/link-done', { id })),
  },
  // A link an app view asks to have opened: the same consent card, no flow after it.
  'view-link': {
    ask: (req, api) => renderLinkAsk(req, api),
    record: (req) => renderLinkRecord(req, () => {}),
  },
  // A model's reply the person writes (sampling/createMessage).
  'sampling': {
    ask: (req, api) => renderSamplingAsk(req, api),
    record: (req) => renderSamplingRecord(req),
  },
  // In its server's app view until it falls back; then the plain form, with the reason.
  'app-form': {
    ask: (req, api) => (req.app?.stage === 'view' ? renderQuestionCard(req, api) : renderAsk(req, api)),
    record: (req) => renderRecord(req),
  },
});

/** The renderer of `req`'s kind; throws when the page has none (a kind newer than the page). */
export function rendererOf(req) {
  if (!Object.hasOwn(renderers, req.kind)) {
    throw new Error(`This page cannot show a request of kind "${req.kind}" from ${req.server}.`);
  }
  return renderers[req.kind];
}

/** What stands in for a request the page cannot draw: the error, said plainly. */
export function unrenderable(req, error) {
  console.error(error);
  return h('div', { class: 'request-record unrenderable', role: 'alert', dataset: { record: req.id } },
    h('strong', {}, 'Cannot show this request. '),
    h('span', { class: 'what' }, error.message));
}
