// URL requests and view links (a link an app view asks to have opened): the consent card (the link in full, its registrable domain picked out, both
// forms of an internationalised name, every warning from the host's URL rules) and the record
// of a link after consent ("waiting for you in the browser", then "finished"). Nothing here is
// opened or fetched before the person consents; after consent the host checks where the name
// points, and only a link the host let through is opened — in a new tab of the person's own
// browser, without an opener or a referrer.

import { askWho, h, pretty } from './dom.js';
import { ERA_LABEL } from './form.js';

const VERDICT_TEXT = {
  allow: 'The host found nothing wrong with this link.',
  flag: 'Look carefully before you open it:',
  refuse: 'The host refuses to open this link:',
};

// Requests this page consented to and whose link it has not opened yet.
const consentedHere = new Map(); // request id -> time of consent (ms)

// Links the person said they were done with ("I am done in the browser"), by server and link:
// a server that asks again for the same link says the flow is not finished yet.
const saidDone = new Set(); // `${server} ${full link}`

export function host(link) {
  return h('span', { class: 'link-host' },
    link.hostPrefix ? h('span', { class: 'link-sub' }, link.hostPrefix) : null,
    link.domain ? h('mark', { class: 'link-domain' }, link.domain) : null,
    link.hostSuffix ? h('span', { class: 'link-sub' }, link.hostSuffix) : null,
    link.port ? h('span', { class: 'link-sub' }, `:${link.port}`) : null);
}

export function warnings(link) {
  const items = link.reasons.map((r) => h('li', { class: `reason ${r.verdict}`, dataset: { code: r.code } }, r.message));
  return h('div', { class: `link-verdict ${link.verdict}` },
    h('p', {}, VERDICT_TEXT[link.verdict] || link.verdict),
    items.length ? h('ul', {}, items) : null);
}

/** What the link is, as the person must see it before consenting. */
export function linkFacts(link) {
  return h('dl', { class: 'link-facts' },
    h('dt', {}, 'Site'), h('dd', {}, host(link)),
    link.hostAscii ? [h('dt', {}, 'Spelled'), h('dd', { class: 'mono' }, link.hostAscii)] : null,
    h('dt', {}, 'Full link'), h('dd', { class: 'mono link-full' }, link.full));
}

/**
 * The card for a URL request. `api.answer(id, action)`. Returns {element, focus,
 * setEngineErrors, errorsKey}.
 */
export function renderLinkAsk(req, api) {
  const link = req.link;
  const waiting = link.stage === 'waiting';
  const fromView = req.kind === 'view-link';
  const who = fromView ? 'An app asks you to open a link' : 'A server asks you to open a link';
  const status = h('p', { class: 'link-status', role: 'status' });
  // A flagged link (a look-alike name, mixed scripts…) is named by its ASCII form, the one that
  // cannot pass for another site, and declining is the default: the button first in line.
  const flagged = link.verdict === 'flag' && !waiting;
  const named = flagged ? (link.hostAscii || link.domain) : link.domain;
  const open = h('button', {
    type: 'button',
    class: flagged ? '' : 'primary',
    onclick: () => {
      open.disabled = true;
      if (!waiting) {
        consentedHere.set(req.id, Date.now());
        status.textContent = 'Checking where the link points…';
      } else {
        saidDone.add(`${req.server} ${link.full}`);
      }
      api.answer(req.id, 'accept');
    },
  }, waiting ? 'I am done in the browser' : `Open ${named || 'the link'} in a new tab`);
  const decline = h('button', { type: 'button', class: flagged ? 'primary' : '', onclick: () => api.answer(req.id, 'decline') }, waiting ? 'Give up' : 'Decline');
  const card = h('section', { class: 'ask link-ask', role: 'region', 'aria-label': `${fromView ? 'The app of ' : ''}${req.serverTitle || req.server} asks you to open a link`, dataset: { request: req.id, server: req.server }, onkeydown: (e) => { if (e.key === 'Escape') { e.preventDefault(); api.answer(req.id, 'cancel'); } } },
    h('div', { class: 'ask-head' },
      h('div', {}, h('div', { class: 'ask-from' }, waiting ? 'Waiting for you in the browser' : who),
        askWho(req)),
      req.method === 'interaction' ? h('span', { class: 'chip draft', title: req.methodLabel }, 'interaction/create · ua · draft')
        : !fromView && ERA_LABEL[req.era] ? h('span', { class: `chip era-${req.era}` }, ERA_LABEL[req.era][0]) : null,
      req.tool ? h('span', { class: 'chip' }, `tool ${req.tool}`) : null,
      h('button', { type: 'button', class: 'ghost ask-close', 'aria-label': 'Close (cancel this request)', onclick: () => api.answer(req.id, 'cancel') }, '✕')),
    h('div', { class: 'ask-body' },
      // Waiting, the card says only what is new: where to finish, and whether the server
      // already heard "done" for this link (it asks again while its flow is unfinished).
      waiting ? null : h('p', { class: 'ask-message' }, req.message),
      waiting
        ? h('dl', { class: 'link-facts' }, h('dt', {}, 'Site'), h('dd', {}, host(link)))
        : linkFacts(link),
      waiting
        ? h('p', { class: 'ask-note waiting-note' }, saidDone.has(`${req.server} ${link.full}`)
          ? `${req.serverTitle || req.server} says the flow is not finished yet. Finish on ${link.domain || 'the site'} in the tab that opened, then press “I am done” again.`
          : `The link is open in your browser. ${req.serverTitle || req.server} goes on once you finish there: press “I am done” then.`)
        : warnings(link),
      h('p', { class: 'ask-note' }, fromView
        ? 'The app hears only whether the link was opened, not what you do there.'
        : 'Secrets you enter on that page go to the server, not through this host.'),
      status,
      req.wire ? h('details', { class: 'wire' }, h('summary', {}, 'As the protocol has it'),
        h('div', { class: 'wire-label' }, req.method === 'interaction' ? 'The draft\'s ua, as the host read it' : 'The request, as the server sent it'),
        h('pre', { class: 'wire-request' }, pretty(req.wire)),
        h('div', { class: 'wire-label' }, req.era === 'mrtr'
          ? 'What Open sends: {"action": "accept"} under its key in the retried tools/call\'s inputResponses (Decline and Cancel: "decline", "cancel"); the server learns whether you finished from its own page'
          : 'What Open sends: {"action": "accept"} in answer to elicitation/create (Decline and Cancel: "decline", "cancel"); the server learns whether you finished from its own page')) : null,
      h('div', { class: 'actions' },
        flagged ? [decline, open] : [open, decline],
        h('button', { type: 'button', class: 'ghost', onclick: () => api.answer(req.id, 'cancel') }, 'Cancel'))));
  return {
    element: card,
    focus: () => (flagged ? decline : open).focus(),
    setEngineErrors: () => {},
    errorsKey: '',
  };
}

/**
 * The record of a URL request after an answer: refused, declined, or the link's progress. While
 * the host waits for the server's word, `done(id)` tells it the person finished (the wait ends;
 * a call that needed the link is retried now).
 */
export function renderLinkRecord(req, done) {
  const link = req.link;
  if (link.state === 'opened' && link.openUrl && consentedHere.has(req.id)) {
    // Opened for the click that consented, if the browser still counts it as the person's.
    const at = consentedHere.get(req.id);
    consentedHere.delete(req.id);
    if (Date.now() - at < 4000) window.open(link.openUrl, '_blank', 'noopener,noreferrer');
  }
  let what;
  let body = null;
  if (req.outcome === 'consent' && link.state === 'completed') {
    what = 'Finished in the browser';
  } else if (req.outcome === 'consent' && link.state === 'done') {
    what = 'You said you were done';
  } else if (req.outcome === 'consent' && link.state === 'ended') {
    what = 'Opened in the browser';
  } else if (req.outcome === 'consent' && req.kind === 'view-link') {
    what = 'Opened in the browser';
    body = link.openUrl
      ? h('div', { class: 'link-actions' },
        h('a', { class: 'link-open', href: link.openUrl, target: '_blank', rel: 'noopener noreferrer' }, `Open ${link.domain || 'the link'} again ↗`))
      : null;
  } else if (req.outcome === 'consent' && link.stage === 'waiting') {
    what = 'You said you were done';
  } else if (req.outcome === 'consent') {
    what = 'Waiting for you in the browser';
    body = h('div', { class: 'link-actions' },
      req.progress ? h('span', { class: 'link-progress', role: 'status' }, `The server says: ${req.progress}`) : null,
      link.openUrl
        ? h('a', { class: 'link-open', href: link.openUrl, target: '_blank', rel: 'noopener noreferrer' }, `Open ${link.domain || 'the link'} again ↗`)
        : null,
      link.awaited
        ? h('button', { type: 'button', class: 'ghost link-done', title: 'Tell the host you finished in the browser: it stops waiting for the server\'s word (a call that needed this link is retried now).', onclick: () => done(req.id) }, 'I’m done')
        : null);
  } else if (req.outcome === 'error') {
    what = 'Not opened: refused by the host';
  } else if (req.outcome === 'decline') {
    what = 'You declined to open a link';
  } else if (req.outcome === 'cancel') {
    what = 'Cancelled';
  } else {
    what = req.status === 'closed' ? 'Closed' : 'Waiting';
  }
  const cls = req.outcome === 'consent' ? (link.state === 'opened' ? 'link-waiting' : 'accept') : (req.outcome || req.status);
  return h('div', { class: `request-record link-record ${cls}`, dataset: { record: req.id, link: link.state || '' } },
    h('div', {}, h('strong', {}, what), h('span', { class: 'what' }, req.kind === 'view-link' ? ' — ' : ` — ${req.server} asked: `), req.message),
    h('div', { class: 'what mono' }, host(link), ' · ', link.full),
    req.outcome === 'error' && typeof req.sent === 'string' ? h('div', { class: 'what' }, req.sent) : null,
    req.notice ? h('div', { class: 'what' }, req.notice) : null,
    body);
}
