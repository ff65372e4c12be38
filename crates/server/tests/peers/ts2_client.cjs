// The TypeScript SDK 2's client (`@modelcontextprotocol/client`) as a peer of
// `tests/sdk_peers.rs`: it speaks MCP on its own stdin/stdout (the test serves the toolkit server
// on the other end), declares sampling and roots, answers them, calls the tools the test names
// and prints every result as one JSON line on stderr.
//
// argv: <era> <sampling> <tool>...
//   era:      2025-11-25 (the `initialize` handshake; the server pushes its requests) or
//             2026-07-28 (pinned: `server/discover`; the server answers `input_required` and the
//             client fulfils the input requests through the same handlers, then retries)
//   sampling: answer (a fixed reply) or decline (error -1, "User rejected sampling request")
// NPM_PEERS is the folder whose node_modules holds the pinned SDK.
const path = require('node:path');
const { createRequire } = require('node:module');

const sdk = createRequire(path.join(process.env.NPM_PEERS, 'package.json'));
const { Client, ProtocolError, ReadBuffer, serializeMessage } = sdk('@modelcontextprotocol/client');

// A transport over this process's stdin/stdout. The SDK 2 client's stdio transport only spawns
// a server; this one is the other end of a pipe someone else holds.
class OwnStdio {
  constructor() {
    this._buffer = new ReadBuffer();
  }

  async start() {
    process.stdin.on('data', (chunk) => {
      try {
        this._buffer.append(chunk);
        for (let message = this._buffer.readMessage(); message; message = this._buffer.readMessage()) {
          this.onmessage?.(message);
        }
      } catch (e) {
        this.onerror?.(e);
      }
    });
    process.stdin.on('end', () => this.onclose?.());
    process.stdin.on('error', (e) => this.onerror?.(e));
  }

  async send(message) {
    await new Promise((resolve, reject) => {
      process.stdout.write(serializeMessage(message), (e) => (e ? reject(e) : resolve()));
    });
  }

  async close() {
    process.stdin.pause();
    this.onclose?.();
  }
}

async function main() {
  const [era, sampling, ...tools] = process.argv.slice(2);
  const options = { capabilities: { sampling: {}, roots: { listChanged: true } } };
  if (era === '2026-07-28') {
    options.versionNegotiation = { mode: { pin: era } };
  } else if (era !== '2025-11-25') {
    throw new Error(`unknown era ${era}`);
  }
  const client = new Client({ name: 'interlude-ts2-peer', version: '1.0.0' }, options);
  const seen = [];
  client.setRequestHandler('sampling/createMessage', async (request) => {
    seen.push(request.params);
    if (sampling === 'decline') {
      throw new ProtocolError(-1, 'User rejected sampling request');
    }
    const asked = request.params.messages.map((m) => m.content.text).join(' ');
    return {
      role: 'assistant',
      content: { type: 'text', text: `TS2 model says: ${asked}` },
      model: 'ts2-model',
      stopReason: 'endTurn',
    };
  });
  client.setRequestHandler('roots/list', async () => ({
    roots: [{ uri: 'file:///ts2/root', name: 'TS2 Root' }, { uri: 'file:///ts2/other' }],
  }));
  await client.connect(new OwnStdio());
  const results = {};
  for (const tool of tools) {
    try {
      results[tool] = await client.callTool({ name: tool, arguments: {} });
    } catch (e) {
      results[tool] = { thrown: String(e), code: e && e.code };
    }
  }
  const report = { protocolVersion: client.getNegotiatedProtocolVersion(), results, seen };
  process.stderr.write(JSON.stringify(report) + '\n');
  await client.close();
}

main().catch((e) => {
  process.stderr.write(JSON.stringify({ error: String(e && e.stack ? e.stack : e) }) + '\n');
  process.exit(1);
});
