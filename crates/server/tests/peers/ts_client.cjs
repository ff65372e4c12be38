// The TypeScript SDK's client as a peer of `tests/ts_peer.rs`: it speaks MCP on its own
// stdin/stdout (the test serves the toolkit server on the other end), declares sampling and
// roots, answers them, calls the tools the test names and prints every result as one JSON line on
// stderr. NPM_PEERS is the folder whose node_modules holds the pinned SDK.
//
// argv: <sampling> <tool>...
//   sampling: answer (a fixed reply) or decline (error -1, "User rejected sampling request")
const path = require('node:path');
const { createRequire } = require('node:module');

const sdk = createRequire(path.join(process.env.NPM_PEERS, 'package.json'));
const { Client } = sdk('@modelcontextprotocol/sdk/client/index.js');
const { StdioServerTransport } = sdk('@modelcontextprotocol/sdk/server/stdio.js');
const { CreateMessageRequestSchema, ListRootsRequestSchema, McpError } = sdk(
  '@modelcontextprotocol/sdk/types.js',
);

async function main() {
  const [sampling, ...tools] = process.argv.slice(2);
  const client = new Client(
    { name: 'interlude-ts-peer', version: '1.0.0' },
    { capabilities: { sampling: {}, roots: { listChanged: true } } },
  );
  const seen = [];
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    seen.push(request.params);
    if (sampling === 'decline') {
      throw new McpError(-1, 'User rejected sampling request');
    }
    const asked = request.params.messages.map((m) => m.content.text).join(' ');
    return {
      role: 'assistant',
      content: { type: 'text', text: `TS model says: ${asked}` },
      model: 'ts-model',
      stopReason: 'endTurn',
    };
  });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: [{ uri: 'file:///ts/root', name: 'TS Root' }, { uri: 'file:///ts/other' }],
  }));
  // A transport over this process's stdin/stdout: the SDK's stdio transport is role-neutral.
  await client.connect(new StdioServerTransport());
  const results = {};
  for (const tool of tools) {
    results[tool] = await client.callTool({ name: tool, arguments: {} });
  }
  process.stderr.write(JSON.stringify({ results, seen }) + '\n');
  await client.close();
}

main().catch((e) => {
  process.stderr.write(JSON.stringify({ error: String(e && e.stack ? e.stack : e) }) + '\n');
  process.exit(1);
});
