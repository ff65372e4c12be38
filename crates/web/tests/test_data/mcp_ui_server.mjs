// An MCP server written the way MCP-UI's users write one: `@mcp-ui/server` 6.1.0's
// `createUIResource` inside tool results, on the official TypeScript SDK (1.32.2), over stdio.
// Both packages are the pinned npm peers (xtask/peers). Also used by the terminal's tests.
//
// Tools:
// - `show_hello`: a rawHtml view whose buttons send every MCP-UI action (`tool`, `prompt`,
//   `intent`, `notify`, `link`) and a few hostile ones (another server's tool, a flood, a
//   malformed payload, an unknown type, navigating the top window); everything the host sends
//   back is appended to `#log` as one JSON line, for the test to read inside the frame.
// - `show_blob`: the same kind of view as a base64 blob.
// - `show_two`: two views in one result, the first declaring a site (`_meta.ui.csp`) and
//   initial render data (`mcpui.dev/ui-initial-render-data`).
// - `echo_back {v}`: what the view's `tool` button calls.
// - `show_site {url}`: an externalUrl resource (6.1.0 sends it as an HTML resource whose text is
//   the URL).
// - `show_uri_list {url}`: the same page as MCP-UI 5 sent it (`text/uri-list`), built by hand.
// - `show_remote_dom`: a Remote DOM resource, built by hand (6.1.0 no longer creates them).

import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';

// The peers folder: `INTERLUDE_NPM_PEERS`, else the workspace's `.peers/npm`.
const peers = process.env.INTERLUDE_NPM_PEERS || fileURLToPath(new URL('../../../../.peers/npm', import.meta.url));
const load = (path) => import(pathToFileURL(join(peers, 'node_modules', path)).href);
const { createUIResource } = await load('@mcp-ui/server/dist/index.mjs');
const { Server } = await load('@modelcontextprotocol/sdk/dist/esm/server/index.js');
const { StdioServerTransport } = await load('@modelcontextprotocol/sdk/dist/esm/server/stdio.js');
const { CallToolRequestSchema, ListToolsRequestSchema } = await load('@modelcontextprotocol/sdk/dist/esm/types.js');

const HELLO = `<!doctype html>
<html><head><meta charset="utf-8"><title>hello</title>
<style>body{font-family:sans-serif;margin:8px} button{margin:2px}</style></head>
<body>
<h2>Hello from a classic MCP-UI view</h2>
<div>
<button id="tool">Echo 42</button>
<button id="prompt">Ask to say</button>
<button id="intent">Ask to do</button>
<button id="notify">Notify</button>
<button id="link">Open the docs</button>
</div>
<div>
<button id="other">Another server's tool</button>
<button id="hidden">A model-only tool</button>
<button id="flood">Flood</button>
<button id="bad">Malformed</button>
<button id="unknown">Unknown type</button>
<button id="top">Navigate the top</button>
</div>
<pre id="log"></pre>
<script>
  const log = document.getElementById('log');
  window.addEventListener('message', (e) => {
    if (e.source !== window.parent) return;
    log.textContent += JSON.stringify(e.data) + '\\n';
  });
  const send = (m) => window.parent.postMessage(m, '*');
  const on = (id, f) => document.getElementById(id).addEventListener('click', f);
  on('tool', () => send({ type: 'tool', messageId: 'm-tool', payload: { toolName: 'echo_back', params: { v: 42 } } }));
  on('prompt', () => send({ type: 'prompt', messageId: 'm-prompt', payload: { prompt: 'Summarise my week' } }));
  on('intent', () => send({ type: 'intent', messageId: 'm-intent', payload: { intent: 'add_to_cart', params: { sku: 'A-42' } } }));
  on('notify', () => send({ type: 'notify', messageId: 'm-notify', payload: { message: 'Saved your settings' } }));
  on('link', () => send({ type: 'link', messageId: 'm-link', payload: { url: 'https://modelcontextprotocol.io/docs' } }));
  on('other', () => send({ type: 'tool', messageId: 'm-other', payload: { toolName: 'contact_info', params: {} } }));
  on('hidden', () => send({ type: 'tool', messageId: 'm-hidden', payload: { toolName: 'secret_tool', params: {} } }));
  on('flood', () => { for (let i = 0; i < 40; i++) send({ type: 'tool', messageId: 'm-flood-' + i, payload: { toolName: 'echo_back', params: { v: i } } }); });
  on('bad', () => send({ type: 'tool', messageId: 'm-bad', payload: { toolName: 5 } }));
  on('unknown', () => send({ type: 'steal-cookies', messageId: 'm-unknown', payload: {} }));
  on('top', () => { try { window.top.location.href = 'https://example.com/'; log.textContent += '"top: navigated"\\n'; } catch (err) { log.textContent += JSON.stringify('top: ' + err.name) + '\\n'; } });
  send({ type: 'ui-lifecycle-iframe-ready' });
  send({ type: 'ui-size-change', payload: { height: document.documentElement.scrollHeight } });
</script>
</body></html>`;

const tools = [
  { name: 'show_hello', description: 'A classic MCP-UI view (rawHtml, text).', inputSchema: { type: 'object', properties: {} } },
  { name: 'show_blob', description: 'A classic MCP-UI view (rawHtml, blob).', inputSchema: { type: 'object', properties: {} } },
  { name: 'show_two', description: 'Two views in one result, the first declaring a site it talks to.', inputSchema: { type: 'object', properties: {} } },
  { name: 'echo_back', description: 'Echoes v.', inputSchema: { type: 'object', properties: { v: { type: 'number' } } } },
  {
    name: 'secret_tool',
    description: 'Only for the model.',
    inputSchema: { type: 'object', properties: {} },
    _meta: { ui: { visibility: ['model'] } },
  },
  { name: 'show_site', description: 'An external page (externalUrl).', inputSchema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] } },
  { name: 'show_uri_list', description: 'An external page (text/uri-list).', inputSchema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'] } },
  { name: 'show_remote_dom', description: 'A Remote DOM resource.', inputSchema: { type: 'object', properties: {} } },
];

const server = new Server({ name: 'mcp-ui-classic', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request) => {
  const { name, arguments: args = {} } = request.params;
  switch (name) {
    case 'show_hello':
      return {
        content: [
          { type: 'text', text: 'Here is a classic MCP-UI view.' },
          createUIResource({ uri: 'ui://classic/hello', content: { type: 'rawHtml', htmlString: HELLO }, encoding: 'text' }),
        ],
      };
    case 'show_blob':
      return {
        content: [createUIResource({
          uri: 'ui://classic/blob',
          content: { type: 'rawHtml', htmlString: '<!doctype html><h2 id="blob">Sent as a blob: héllo</h2>' },
          encoding: 'blob',
        })],
      };
    case 'show_two':
      return {
        content: [
          createUIResource({
            uri: 'ui://classic/first',
            content: { type: 'rawHtml', htmlString: '<!doctype html><p id="first">first</p>' },
            encoding: 'text',
            metadata: { ui: { csp: { connectDomains: ['https://api.example.com'] } } },
            uiMetadata: { 'initial-render-data': { greeting: 'hi' } },
          }),
          createUIResource({ uri: 'ui://classic/second', content: { type: 'rawHtml', htmlString: '<!doctype html><p id="second">second</p>' }, encoding: 'text' }),
        ],
      };
    case 'echo_back':
      return { content: [{ type: 'text', text: `echo ${args.v}` }], structuredContent: { v: args.v } };
    case 'secret_tool':
      return { content: [{ type: 'text', text: 'secret' }] };
    case 'show_site':
      return {
        content: [createUIResource({ uri: 'ui://classic/site', content: { type: 'externalUrl', iframeUrl: args.url }, encoding: 'text' })],
      };
    case 'show_uri_list':
      return {
        content: [{ type: 'resource', resource: { uri: 'ui://classic/list', mimeType: 'text/uri-list', text: `# the page\n${args.url}\n` } }],
      };
    case 'show_remote_dom':
      return {
        content: [
          { type: 'text', text: 'A cart with 2 items.' },
          {
            type: 'resource',
            resource: {
              uri: 'ui://classic/remote',
              mimeType: 'application/vnd.mcp-ui.remote-dom+javascript; framework=react',
              text: "const b = document.createElement('ui-button'); b.setAttribute('label', 'Buy'); root.appendChild(b);",
            },
          },
        ],
      };
    default:
      return { content: [{ type: 'text', text: `no tool ${name}` }], isError: true };
  }
});
await server.connect(new StdioServerTransport());
