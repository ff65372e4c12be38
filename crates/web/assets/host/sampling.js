// Sampling answered by a person: a server asks for a model's reply (sampling/createMessage), and
// with no model attached the person is the model. The card shows everything the server sent —
// the conversation, the system prompt, its model preferences and limits — as plain text, and
// the person writes the reply (or declines: the server hears the spec's "user rejected" error).

import { askWho, h, pretty, uid } from './dom.js';

const ROLE = { user: 'User', assistant: 'Assistant (model)' };

function kib(bytes) {
  return bytes < 1024 ? `${bytes} bytes` : `${Math.round(bytes / 1024)} KB`;
}

function part(p) {
  switch (p.type) {
    case 'text': return h('div', { class: 'turn-text' }, p.text);
    case 'image': return h('div', { class: 'turn-media what' }, `[image, ${p.mimeType}, ${kib(p.bytes)}: not shown]`);
    case 'audio': return h('div', { class: 'turn-media what' }, `[audio, ${p.mimeType}, ${kib(p.bytes)}: not played]`);
    case 'tool-use': return h('div', { class: 'turn-tool' }, h('span', { class: 'what' }, `The model called ${p.name} with `), h('code', {}, p.input));
    case 'tool-result': return h('div', { class: 'turn-tool' }, h('span', { class: 'what' }, `Result of call ${p.toolUseId}: `), p.text);
    default: return h('div', { class: 'turn-media what' }, `[${p.type}]`);
  }
}

/** The conversation, oldest first. */
function conversation(s) {
  return h('ol', { class: 'sampling-turns', 'aria-label': 'The conversation so far' },
    s.messages.map((m) => h('li', { class: `turn turn-${m.role}` },
      h('div', { class: 'turn-role' }, ROLE[m.role] || m.role),
      m.parts.map(part))));
}

/** What the server wishes of the model, as facts. */
function wishes(s) {
  const rows = [];
  const add = (label, value) => { if (value !== null && value !== undefined && value !== '') rows.push(h('dt', {}, label), h('dd', {}, value)); };
  add('At most', `${s.maxTokens} tokens`);
  add('Models preferred', s.modelHints.join(', '));
  const pri = [['cost', s.costPriority], ['speed', s.speedPriority], ['intelligence', s.intelligencePriority]]
    .filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => `${k} ${v}`);
  add('Priorities', pri.join(' · '));
  add('Temperature', s.temperature);
  add('Stop at', s.stopSequences.map((x) => JSON.stringify(x)).join(', '));
  add('Context asked for', { thisServer: 'this server\'s', allServers: 'every server\'s', none: 'none' }[s.includeContext] || s.includeContext);
  add('Tools offered', s.tools.join(', '));
  return h('dl', { class: 'sampling-wishes' }, rows);
}

/**
 * The card for a sampling request. `api.answer(id, action, content)`; the reply goes as
 * `{text, model}`. Returns {element, focus, setEngineErrors, errorsKey}.
 */
export function renderSamplingAsk(req, api) {
  const s = req.sampling;
  const titleId = uid('ask');
  const replyId = uid('reply');
  const modelId = uid('model');
  const errorsBox = h('div', { class: 'ask-errors', role: 'alert' });
  const reply = h('textarea', { id: replyId, name: 'text', rows: 6, 'aria-describedby': `${replyId}-hint`, 'aria-required': 'true', spellcheck: 'true' });
  const model = h('input', { id: modelId, name: 'model', type: 'text', autocomplete: 'off', placeholder: 'interlude-person', maxlength: 256 });
  const response = h('pre', { class: 'wire-response' });
  const update = () => {
    response.textContent = pretty({ role: 'assistant', content: { type: 'text', text: reply.value }, model: model.value.trim() || 'interlude-person', stopReason: 'endTurn' });
  };
  reply.addEventListener('input', () => { errorsBox.textContent = ''; reply.removeAttribute('aria-invalid'); update(); });
  model.addEventListener('input', update);
  const send = () => {
    if (!reply.value.trim()) {
      errorsBox.textContent = 'Write the reply, or decline.';
      reply.setAttribute('aria-invalid', 'true');
      reply.focus();
      return;
    }
    const content = { text: reply.value };
    if (model.value.trim()) content.model = model.value.trim();
    api.answer(req.id, 'accept', content);
  };
  // Enter in the reply starts a new line; Ctrl+Enter (⌘+Enter) sends it.
  reply.addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); send(); } });
  const form = h('form', { novalidate: true, onsubmit: (e) => { e.preventDefault(); send(); } },
    errorsBox,
    h('div', { class: 'field', dataset: { field: 'text' } },
      h('label', { for: replyId }, 'Your reply, as the model', h('span', { class: 'req', 'aria-hidden': 'true' }, '*')),
      reply,
      h('div', { class: 'hint', id: `${replyId}-hint` }, `Goes back to ${req.serverTitle || req.server} as the model's answer. At most ${s.maxTokens} tokens, it asked.`)),
    h('div', { class: 'field', dataset: { field: 'model' } },
      h('label', { for: modelId }, 'Model name to report (optional)'), model),
    h('details', { class: 'wire' }, h('summary', {}, 'As the protocol has it'),
      h('div', { class: 'wire-label' }, req.era === 'mrtr'
        ? 'What Send sends: this result, under its key in the retried call\'s inputResponses (Decline sends nothing and ends the call)'
        : 'What Send sends: this result, in answer to sampling/createMessage (Decline sends error -1, "User rejected sampling request")'),
      response),
    h('div', { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, 'Send reply'),
      h('button', { type: 'button', onclick: () => api.answer(req.id, 'decline') }, 'Decline'),
      h('button', { type: 'button', class: 'ghost', onclick: () => api.answer(req.id, 'cancel') }, 'Cancel'),
      h('span', { class: 'spacer' }),
      h('span', { class: 'kbd-hint' }, h('kbd', {}, 'Ctrl+Enter'), ' send · ', h('kbd', {}, 'Esc'), ' cancel')));
  const card = h('section', { class: 'ask sampling-ask', role: 'region', 'aria-labelledby': titleId, dataset: { request: req.id, server: req.server }, onkeydown: (e) => { if (e.key === 'Escape' && !e.defaultPrevented) { e.preventDefault(); api.answer(req.id, 'cancel'); } } },
    h('div', { class: 'ask-head' },
      h('div', {}, h('div', { class: 'ask-from' }, 'A server asks for a model\'s reply'), askWho(req, titleId)),
      h('span', { class: `chip era-${req.era}` }, req.era === 'mrtr' ? '2026-07-28 · input required · sampling' : 'sampling/createMessage'),
      req.tool ? h('span', { class: 'chip' }, `tool ${req.tool}`) : null,
      h('button', { type: 'button', class: 'ghost ask-close', 'aria-label': 'Close (cancel this request)', onclick: () => api.answer(req.id, 'cancel') }, '✕')),
    h('div', { class: 'ask-body' },
      h('p', { class: 'ask-message' }, req.message),
      h('p', { class: 'ask-note' }, 'No model is attached to this host: you are the model. Nothing here was sent to one.'),
      s.systemPrompt ? h('details', { class: 'sampling-system', open: true }, h('summary', {}, 'System prompt'), h('div', { class: 'turn-text' }, s.systemPrompt)) : null,
      conversation(s),
      wishes(s),
      form));
  update();
  return {
    element: card,
    focus: () => reply.focus({ preventScroll: true }),
    setEngineErrors: (errors) => {
      if (!errors?.length) return;
      errorsBox.textContent = `The host refused this reply. ${errors.map((e) => e.message).join(' ')}`;
      reply.setAttribute('aria-invalid', 'true');
    },
    errorsKey: '',
  };
}

/** The record of a sampling request once answered. */
export function renderSamplingRecord(req) {
  const what = {
    accept: 'You replied as the model',
    decline: 'You declined to reply',
    cancel: 'Cancelled',
    error: 'Refused by the host',
  }[req.outcome] || (req.status === 'closed' ? 'Closed' : 'Waiting');
  const sent = req.sent && typeof req.sent === 'object' ? req.sent : null;
  return h('div', { class: `request-record sampling-record ${req.outcome || req.status}`, dataset: { record: req.id } },
    h('div', {}, h('strong', {}, what), h('span', { class: 'what' }, ` — ${req.server} asked: `), req.message),
    req.notice ? h('div', { class: 'what' }, req.notice) : null,
    sent ? h('div', { class: 'sent' }, h('div', { class: 'turn-text' }, sent.text), h('div', { class: 'what' }, `as ${sent.model}`)) : null,
    req.outcome === 'error' && typeof req.sent === 'string' ? h('div', { class: 'what' }, req.sent) : null);
}
