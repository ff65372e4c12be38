// The TypeScript SDK (1.32.2) client of `cargo bench -p interlude-cli --bench elicitation`.
//
// Connects to a server (stdio: spawns the command line after `--stdio`; HTTP: `--url`),
// answers every `elicitation/create` with {name: "Ada", age: 36}, makes one warm-up call of the
// tool `ask`, then N calls over C concurrent callers, checks every result, and prints one JSON
// line: {"calls": N, "concurrency": C, "seconds": s, "calls_per_s": r, "protocol": "..."}.
//
//   node ts-client.mjs --calls N --concurrency C --stdio NODE SERVER_SCRIPT [SERVER_ARGS...]
//   node ts-client.mjs --calls N --concurrency C --url http://127.0.0.1:PORT/mcp
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const EXPECTED = 'Hello Ada, age 36';

function arg(name) {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
}

const calls = Number(arg('--calls') ?? '1000');
const concurrency = Number(arg('--concurrency') ?? '1');
const url = arg('--url');

let transport;
if (url) {
    transport = new StreamableHTTPClientTransport(new URL(url));
} else {
    const i = process.argv.indexOf('--stdio');
    transport = new StdioClientTransport({
        command: process.argv[i + 1],
        args: process.argv.slice(i + 2),
        stderr: 'inherit',
    });
}

// Note the version the handshake settled on (the transport is told it).
let negotiated;
const setVersion = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = (version) => {
    negotiated = version;
    setVersion?.(version);
};

const client = new Client({ name: 'ts-bench-client', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
client.setRequestHandler(ElicitRequestSchema, async () => ({
    action: 'accept',
    content: { name: 'Ada', age: 36 },
}));
await client.connect(transport);

async function callOnce() {
    const result = await client.callTool({ name: 'ask', arguments: {} });
    const text = result.content?.[0]?.text;
    if (result.isError || text !== EXPECTED) {
        throw new Error(`unexpected result: ${JSON.stringify(result)}`);
    }
}

await callOnce();
let started = 0;
const t0 = process.hrtime.bigint();
async function worker() {
    while (started < calls) {
        started += 1;
        await callOnce();
    }
}
await Promise.all(Array.from({ length: concurrency }, worker));
const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
process.stdout.write(
    JSON.stringify({
        calls,
        concurrency,
        seconds,
        calls_per_s: calls / seconds,
        protocol: negotiated,
    }) + '\n',
);
await client.close();
process.exit(0);
