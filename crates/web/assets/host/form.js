// Forms: native widgets for every field of the elicitation subset, used both for a server's
// request (the elicitation card) and for a tool's arguments (the composer). Validation messages
// come from the host (the engine's own rules); the page only decides what to send.

import { askWho, h, replace, uid, pretty } from './dom.js';

// RFC 3339 from a datetime-local value, in the person's own time zone.
function toRfc3339(local) {
  if (!local) return '';
  const d = new Date(local);
  if (Number.isNaN(d.getTime())) return local;
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  const pad = (n) => String(Math.floor(Math.abs(n))).padStart(2, '0');
  const base = local.length === 16 ? `${local}:00` : local;
  return `${base}${sign}${pad(off / 60)}:${pad(off % 60)}`;
}

function fromRfc3339(v) {
  if (typeof v !== 'string') return '';
  const m = v.match(/^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}(:\d{2})?)/);
  return m ? `${m[1]}T${m[2]}` : '';
}

/**
 * Builds the widgets for `fields`, prefilled from `values`.
 * Returns {element, collect, showErrors, focusFirst, focusField, markAllTouched, touched}.
 */
export function buildFields(fields, values, { onChange } = {}) {
  const wrap = h('div', { class: 'fields' });
  const ctl = new Map();
  const touched = new Set();
  const changed = (name) => { touched.add(name); onChange?.(name); };

  for (const f of fields) {
    const id = uid('f');
    const hintId = `${id}-hint`;
    const errId = `${id}-err`;
    const describedBy = `${f.help ? hintId : ''} ${errId}`.trim();
    const label = [f.label, f.required ? h('span', { class: 'req', 'aria-hidden': 'true' }, '*') : null,
      f.label !== f.name ? h('code', { class: 'prop', 'aria-hidden': 'true' }, f.name) : null];
    const hint = f.help ? h('div', { class: 'hint', id: hintId }, f.help) : null;
    const err = h('p', { class: 'field-error', id: errId });
    const v = values?.[f.name];
    let node;
    let get;
    let focusEl;
    const common = { id, name: f.name, 'aria-describedby': describedBy, 'aria-required': f.required ? 'true' : null };

    if (f.widget === 'boolean') {
      // An optional switch nobody touched (and with no value to start from) is not sent: an
      // unanswered question is not a "no".
      let set = f.required || typeof v === 'boolean';
      const input = h('input', { ...common, type: 'checkbox', role: 'switch', onchange: () => { set = true; changed(f.name); } });
      input.checked = v === true;
      get = () => (set ? { has: true, value: input.checked } : { has: false });
      focusEl = input;
      node = h('div', { class: 'field', dataset: { field: f.name } },
        h('label', { class: 'switch', for: id }, input, h('span', {}, label)), hint, err);
    } else if (f.widget === 'select' && f.options.length <= 5) {
      const group = h('div', { class: 'choices', role: 'radiogroup', 'aria-labelledby': `${id}-legend` });
      const radios = f.options.map((o) => {
        const r = h('input', { type: 'radio', name: id, value: o.value, onchange: () => changed(f.name) });
        r.checked = v === o.value;
        group.append(h('label', { class: 'choice' }, r, h('span', {}, o.label)));
        return r;
      });
      // An optional choice can be left unanswered again after a click.
      let none = null;
      if (!f.required) {
        none = h('input', { type: 'radio', name: id, value: '', dataset: { none: 'true' }, onchange: () => changed(f.name) });
        none.checked = !radios.some((r) => r.checked);
        group.append(h('label', { class: 'choice none' }, none, h('span', {}, 'No answer')));
      }
      get = () => { const c = radios.find((r) => r.checked); return c ? { has: true, value: c.value } : { has: false }; };
      focusEl = radios.find((r) => r.checked) || radios[0];
      node = h('fieldset', { class: 'field', dataset: { field: f.name }, 'aria-describedby': describedBy },
        h('legend', { class: 'legend', id: `${id}-legend` }, label), group, hint, err);
    } else if (f.widget === 'select') {
      const sel = h('select', { ...common, onchange: () => changed(f.name) },
        h('option', { value: '' }, f.required ? 'Choose…' : '— none —'),
        f.options.map((o) => h('option', { value: o.value }, o.label)));
      sel.value = typeof v === 'string' ? v : '';
      get = () => (sel.value ? { has: true, value: sel.value } : { has: false });
      focusEl = sel;
      node = h('div', { class: 'field', dataset: { field: f.name } }, h('label', { for: id }, label), sel, hint, err);
    } else if (f.widget === 'multiselect') {
      const chosen = new Set(Array.isArray(v) ? v : []);
      const group = h('div', { class: 'choices', role: 'group', 'aria-labelledby': `${id}-legend` });
      const boxes = f.options.map((o) => {
        const c = h('input', { type: 'checkbox', value: o.value, onchange: () => changed(f.name) });
        c.checked = chosen.has(o.value);
        group.append(h('label', { class: 'choice' }, c, h('span', {}, o.label)));
        return c;
      });
      get = () => ({ has: true, value: boxes.filter((b) => b.checked).map((b) => b.value) });
      focusEl = boxes[0];
      node = h('fieldset', { class: 'field', dataset: { field: f.name }, 'aria-describedby': describedBy },
        h('legend', { class: 'legend', id: `${id}-legend` }, label), group, hint, err);
    } else {
      const type = { email: 'email', url: 'url', date: 'date', datetime: 'datetime-local', number: 'number', integer: 'number' }[f.widget] || 'text';
      const attrs = { ...common, type, autocomplete: 'off', spellcheck: type === 'text' ? null : 'false', oninput: () => changed(f.name) };
      if (type === 'number') {
        attrs.step = f.widget === 'integer' ? '1' : 'any';
        attrs.inputmode = f.widget === 'integer' ? 'numeric' : 'decimal';
        if (f.minimum !== undefined) attrs.min = f.minimum;
        if (f.maximum !== undefined) attrs.max = f.maximum;
      }
      if (f.maxLength !== undefined && type === 'text') attrs.maxlength = f.maxLength;
      const input = h('input', attrs);
      if (type === 'datetime-local') input.value = fromRfc3339(v);
      else if (v !== undefined && v !== null) input.value = String(v);
      get = () => {
        const raw = input.value;
        if (type === 'number') {
          if (raw.trim() === '') return input.validity.badInput ? { has: true, value: raw } : { has: false };
          const n = Number(raw);
          return { has: true, value: Number.isFinite(n) ? n : raw };
        }
        if (raw === '') {
          if (f.required) return { has: false };
          return f.default !== undefined ? { has: true, value: '' } : { has: false };
        }
        return { has: true, value: type === 'datetime-local' ? toRfc3339(raw) : raw };
      };
      focusEl = input;
      node = h('div', { class: 'field', dataset: { field: f.name } }, h('label', { for: id }, label), input, hint, err);
    }
    ctl.set(f.name, { get, err, focusEl, node });
    wrap.append(node);
  }

  function collect() {
    const out = {};
    for (const [name, c] of ctl) {
      const r = c.get();
      if (r.has) out[name] = r.value;
    }
    return out;
  }

  function showErrors(errors, { all = false } = {}) {
    for (const [name, c] of ctl) {
      const msg = errors?.[name];
      const show = msg && (all || touched.has(name));
      c.err.textContent = show ? `${msg}` : '';
      c.node.querySelectorAll('input, select').forEach((el) => {
        if (show) el.setAttribute('aria-invalid', 'true'); else el.removeAttribute('aria-invalid');
      });
    }
  }

  return {
    element: wrap,
    collect,
    showErrors,
    touched,
    markAllTouched: () => { for (const n of ctl.keys()) touched.add(n); },
    focusFirst: () => { const first = ctl.values().next().value; first?.focusEl?.focus({ preventScroll: true }); return Boolean(first); },
    focusField: (name) => ctl.get(name)?.focusEl?.focus(),
  };
}

export const ERA_LABEL = {
  push: ['2025 · elicitation/create', 'The server is waiting on an open request for your answer.'],
  mrtr: ['2026-07-28 · input required', 'Your answer goes back with the retried tool call (multi round-trip).'],
  task: ['2026-07-28 · task', 'Your answer goes to the running task (tasks/update); the task goes on.'],
  // A 2025-11-25 experimental task asks with `elicitation/create` on its open `tasks/result`.
  'push-task': ['2025-11-25 · task', 'The task waits on its open request (tasks/result) for your answer; the task goes on.'],
};

/** The era label and note of a request: a task's own when its call became one (in the design
 * of its era). */
export function eraOf(req) {
  const key = req.inTask ? (req.era === 'push' ? 'push-task' : 'task') : req.era;
  return ERA_LABEL[key] || [req.era, ''];
}

/**
 * The card for a server's request. `api` has validate(id, content) → {errors}, answer(id,
 * action, content). Returns {element, focus}.
 */
export function renderAsk(req, api) {
  const titleId = uid('ask');
  const errorsBox = h('div', { class: 'ask-errors', role: 'alert' });
  let lastErrors = {};
  let timer = null;
  // After a first Accept, the count of fields needing attention follows the fields as they
  // are fixed. Once the card is gone, no check runs (its request is gone too).
  let submitted = false;
  let disposed = false;
  const review = h('dl');
  // For server authors: the request and the response exactly as they go over the wire.
  const response = h('pre', { class: 'wire-response' });
  // Each change makes answers to earlier checks stale: they judged other content.
  let generation = 0;
  const form = buildFields(req.fields, req.prefill, {
    onChange: () => { generation += 1; updateReview(); clearTimeout(timer); if (!disposed) timer = setTimeout(check, 180); },
  });

  function updateReview() {
    const content = form.collect();
    const rows = [];
    for (const f of req.fields) {
      const has = Object.prototype.hasOwnProperty.call(content, f.name);
      const v = has ? content[f.name] : f.default;
      const shown = v === undefined ? '(not sent)' : `${JSON.stringify(v)}${has ? '' : ' (default)'}`;
      rows.push(h('dt', {}, f.name), h('dd', {}, shown));
    }
    replace(review, rows);
    // Accept sends the content with the schema's defaults filled in (the engine checks again).
    const sent = {};
    for (const f of req.fields) {
      if (Object.prototype.hasOwnProperty.call(content, f.name)) sent[f.name] = content[f.name];
      else if (f.default !== undefined) sent[f.name] = f.default;
    }
    response.textContent = pretty(req.method === 'interaction' ? { content: sent } : { action: 'accept', content: sent });
  }

  function count(errors) {
    const n = Object.keys(errors).length;
    errorsBox.textContent = n === 0 ? '' : n === 1 ? 'One field needs attention.' : `${n} fields need attention.`;
  }

  async function check({ all = false } = {}) {
    if (disposed) return {};
    const asked = generation;
    const content = form.collect();
    const res = await api.validate(req.id, content);
    if (disposed) return {};
    if (asked !== generation) return check({ all });
    lastErrors = res?.errors || {};
    form.showErrors(lastErrors, { all });
    if (submitted) count(lastErrors);
    return lastErrors;
  }

  function answer(action, content) {
    clearTimeout(timer);
    generation += 1;
    api.answer(req.id, action, content);
  }

  async function submit() {
    submitted = true;
    form.markAllTouched();
    clearTimeout(timer);
    const errors = await check({ all: true });
    const names = Object.keys(errors);
    count(errors);
    if (names.length) {
      form.focusField(names[0]);
      return;
    }
    answer('accept', form.collect());
  }

  const [eraLabel, eraNote] = eraOf(req);
  const formEl = h('form', {
    novalidate: true,
    onsubmit: (e) => { e.preventDefault(); submit(); },
  },
  errorsBox,
  form.element,
  h('details', { class: 'review' }, h('summary', {}, 'Review what will be sent'), review),
  h('details', { class: 'wire' }, h('summary', {}, 'As the protocol has it'),
    req.requestedSchema ? [h('div', { class: 'wire-label' }, 'requestedSchema, as the server sent it'), h('pre', { class: 'wire-schema' }, pretty(req.requestedSchema))] : null,
    h('div', { class: 'wire-label' }, req.method === 'interaction'
      ? 'What Accept sends: this result, in answer to interaction/create (Decline and Cancel send the draft\'s error -1)'
      : req.era === 'mrtr'
        ? 'What Accept sends: this result, under its key in the retried tools/call\'s inputResponses'
        : 'What Accept sends: this result, in answer to elicitation/create'),
    response,
    req.call !== null && req.call !== undefined && api.showMessages
      ? h('button', { type: 'button', class: 'ghost', onclick: () => api.showMessages(req.server, req.call) }, 'Messages of this call')
      : null),
  h('div', { class: 'actions' },
    h('button', { type: 'submit', class: 'primary' }, 'Accept'),
    h('button', { type: 'button', onclick: () => answer('decline') }, 'Decline'),
    h('button', { type: 'button', class: 'ghost', onclick: () => answer('cancel') }, 'Cancel'),
    h('span', { class: 'spacer' }),
    h('span', { class: 'kbd-hint' }, h('kbd', {}, 'Enter'), ' accept · ', h('kbd', {}, 'Esc'), ' cancel')));

  // Esc anywhere in the card (its fields, its buttons, its header) cancels this request.
  const card = h('section', { class: 'ask', role: 'region', 'aria-labelledby': titleId, dataset: { request: req.id, server: req.server }, onkeydown: (e) => { if (e.key === 'Escape' && !e.defaultPrevented) { e.preventDefault(); answer('cancel'); } } },
    h('div', { class: 'ask-head' },
      h('div', {}, h('div', { class: 'ask-from' }, 'Request from server'), askWho(req, titleId)),
      req.method === 'interaction'
        ? h('span', { class: 'chip draft', title: req.methodLabel }, 'interaction/create · draft')
        : h('span', { class: `chip era-${req.era}` }, eraLabel),
      req.tool ? h('span', { class: 'chip' }, `tool ${req.tool}`) : null,
      h('button', { type: 'button', class: 'ghost ask-close', 'aria-label': 'Close (cancel this request)', onclick: () => answer('cancel') }, '✕')),
    h('div', { class: 'ask-body' },
      h('p', { class: 'ask-message' }, req.message),
      req.app?.stage === 'form' ? h('p', { class: 'ask-note fallback-note' }, `The server asked to show this in its app view (${req.app.resourceUri}); here is its plain form instead: ${req.app.reason}.`) : null,
      req.method === 'interaction'
        ? h('p', { class: 'ask-note' }, 'Asked through the User Interaction draft (seed 000), which this host declared: the server is waiting on an open request for your answer.')
        : eraNote ? h('p', { class: 'ask-note' }, eraNote) : null,
      formEl));
  updateReview();

  return {
    element: card,
    focus: () => { if (!form.focusFirst()) card.querySelector('button.primary')?.focus(); },
    dispose: () => { disposed = true; clearTimeout(timer); },
    setEngineErrors: (errors) => {
      if (!errors?.length) return;
      const map = Object.fromEntries(errors.map((e) => [e.field, e.message]));
      form.markAllTouched();
      form.showErrors(map, { all: true });
      errorsBox.textContent = `The host refused this answer. ${errors.map((e) => e.message).join(' ')}`;
    },
    errorsKey: '',
  };
}

/** A read-only record of a finished request, inside its call. */
export function renderRecord(req) {
  const what = {
    accept: 'You accepted',
    decline: 'You declined',
    cancel: 'Cancelled',
    error: 'Refused by the host',
  }[req.outcome] || (req.status === 'closed' ? 'Closed' : 'Waiting');
  return h('div', { class: `request-record ${req.outcome || req.status}`, dataset: { record: req.id } },
    h('div', {}, h('strong', {}, `${what}`), h('span', { class: 'what' }, ` — ${req.server} asked: `), req.message),
    req.notice ? h('div', { class: 'what' }, req.notice) : null,
    req.sent !== null && req.sent !== undefined ? h('div', { class: 'sent' }, h('pre', {}, pretty(req.sent))) : null);
}
