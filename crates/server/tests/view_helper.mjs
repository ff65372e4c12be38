// The view helper (`assets/app-view.js`) against a host played by this script, in Node: a
// window whose parent is the host, a document of a given size. Prints what the view sent, as
// JSON, and exits 1 naming the first expectation that does not hold.
// Run by `view_helper.rs`: node view_helper.mjs <path of app-view.js>

import { readFileSync } from 'node:fs';

const fail = (why) => { console.error(why); process.exit(1); };
const expect = (ok, why) => { if (!ok) fail(why); };

const sent = [];
const listeners = [];
const host = {
  postMessage(message, origin) {
    expect(origin === '*', `the view posts to '*' (its host's origin is not its own): ${origin}`);
    sent.push(structuredClone(message));
    answer(message);
  },
};
const deliver = (message) => {
  for (const fn of listeners) fn({ source: host, data: message });
};
globalThis.window = {
  parent: host,
  addEventListener(type, fn) { if (type === 'message') listeners.push(fn); },
};
globalThis.document = { documentElement: { scrollWidth: 320, scrollHeight: 140 } };
let resized;
globalThis.ResizeObserver = class { constructor(fn) { resized = fn; } observe() {} };
globalThis.requestAnimationFrame = (fn) => setTimeout(fn, 0);

// The host's side of the view's requests.
function answer(message) {
  if (message.id === undefined || message.method === undefined) return;
  const reply = (result) => setTimeout(() => deliver({ jsonrpc: '2.0', id: message.id, result }), 0);
  if (message.method === 'ui/initialize') {
    reply({ protocolVersion: message.params.protocolVersion, hostInfo: { name: 'test', version: '1' },
      hostCapabilities: {}, hostContext: {} });
  } else if (message.method === 'tools/call') {
    reply({ content: [{ type: 'text', text: `called ${message.params.name}` }], structuredContent: { count: 1 } });
  }
}

// Someone else's window posting to the view is not listened to.
const stranger = { source: {}, data: { jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: {} } };

const source = readFileSync(process.argv[2], 'utf8');
const { connectView, APPS_PROTOCOL_VERSION } = await import(
  `data:text/javascript,${encodeURIComponent(source)}`);

const results = [];
const view = await connectView({
  name: 'probe', version: '1.2.3',
  onToolResult: (result) => results.push(result),
  onQuestion: async (params, { errors }) => ({ action: 'accept', content: { echoed: params.message, errors: errors.length } }),
  onTeardown: () => { results.push('teardown'); },
});

const init = sent[0];
expect(init.method === 'ui/initialize', `the first message is ui/initialize: ${JSON.stringify(init)}`);
expect(init.params.protocolVersion === '2026-01-26' && APPS_PROTOCOL_VERSION === '2026-01-26',
  `protocol version 2026-01-26: ${JSON.stringify(init.params)}`);
expect(init.params.appInfo.name === 'probe' && init.params.appInfo.version === '1.2.3', 'appInfo');
expect(JSON.stringify(init.params.appCapabilities) === '{"elicitation":{}}',
  `a view with onQuestion declares elicitation: ${JSON.stringify(init.params.appCapabilities)}`);
expect(sent[1]?.method === 'ui/notifications/initialized' && sent[1].id === undefined,
  `then ui/notifications/initialized: ${JSON.stringify(sent[1])}`);
expect(view.host.hostInfo.name === 'test', 'the host answer is kept');

// Its size, once now and again when it changes (once per change).
await new Promise((r) => setTimeout(r, 5));
const sizes = () => sent.filter((m) => m.method === 'ui/notifications/size-changed').map((m) => m.params);
expect(JSON.stringify(sizes()) === '[{"width":320,"height":140}]', `the size at start: ${JSON.stringify(sizes())}`);
document.documentElement.scrollHeight = 400;
resized(); resized();
await new Promise((r) => setTimeout(r, 5));
expect(JSON.stringify(sizes().at(-1)) === '{"width":320,"height":400}' && sizes().length === 2,
  `the size after a change: ${JSON.stringify(sizes())}`);

// The host's notifications; a stranger's message is ignored.
for (const fn of listeners) fn(stranger);
deliver({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: { content: [], structuredContent: { count: 0 } } });
expect(results.length === 1 && results[0].structuredContent.count === 0, `tool-result reaches the view: ${JSON.stringify(results)}`);

// A tool call goes to the host and its result comes back.
const called = await view.callTool('increment', { by: 1 });
const call = sent.find((m) => m.method === 'tools/call');
expect(call.params.name === 'increment' && call.params.arguments.by === 1, `tools/call params: ${JSON.stringify(call)}`);
expect(called.structuredContent.count === 1, `the call's result: ${JSON.stringify(called)}`);

// The host's requests: a question, teardown, something unknown.
const responses = () => sent.filter((m) => m.method === undefined);
deliver({ jsonrpc: '2.0', id: 'q1', method: 'elicitation/create',
  params: { message: 'Pick', requestedSchema: { type: 'object', properties: {} },
    _meta: { 'dev.interlude/answerErrors': [{ field: 'x', message: 'bad' }] } } });
deliver({ jsonrpc: '2.0', id: 'h1', method: 'ui/resource-teardown', params: {} });
deliver({ jsonrpc: '2.0', id: 'h2', method: 'ui/unknown', params: {} });
await new Promise((r) => setTimeout(r, 5));
const byId = Object.fromEntries(responses().map((m) => [m.id, m]));
expect(byId.q1?.result?.action === 'accept' && byId.q1.result.content.echoed === 'Pick'
  && byId.q1.result.content.errors === 1, `the question's answer: ${JSON.stringify(byId.q1)}`);
expect(JSON.stringify(byId.h1?.result) === '{}' && results.includes('teardown'), `teardown answered {}: ${JSON.stringify(byId.h1)}`);
expect(byId.h2?.error?.code === -32601, `an unknown request is -32601: ${JSON.stringify(byId.h2)}`);

console.log(JSON.stringify({ ok: true, sent: sent.map((m) => m.method ?? `response ${m.id}`) }));
process.exit(0);
