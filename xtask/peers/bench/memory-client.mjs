// The client of `cargo bench -p interlude-cli --bench memory` (TypeScript SDK 1.32.2, stdio).
//
// Spawns the server given after `--stdio`, makes one answered warm-up call, samples the server
// process's resident memory, then opens N concurrent calls of `contact_info` and answers none of
// their `elicitation/create` requests until all N have arrived. With N pending it samples the
// server's memory again, then answers all N (accept, {name, email, age}) and checks that every
// call completes with the expected text. Prints one JSON line:
//
//   {"calls": N, "pending": n, "completed": c, "lost": l, "protocol": "...",
//    "rss_before_kib": a, "rss_pending_kib": b, "rss_after_kib": d, "hwm_kib": h,
//    "seconds_to_pending": s, "seconds_to_answer": t}
//
//   node memory-client.mjs --calls N [--settle-ms MS] --stdio COMMAND [ARGS...]
//
// Memory is read from /proc/<pid>/status (VmRSS, VmHWM) of the process the transport spawned.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const ANSWER = { name: 'Ada Lovelace', email: 'ada@example.com', age: 36 };
const EXPECTED = 'Thanks Ada Lovelace (ada@example.com, age 36).';
// People are slow: no call may time out on the client side while it waits.
const CALL_TIMEOUT_MS = 30 * 60 * 1000;

function arg(name) {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
}

const calls = Number(arg('--calls') ?? '1000');
const settleMs = Number(arg('--settle-ms') ?? '500');
const stdio = process.argv.indexOf('--stdio');
if (!(calls > 0) || stdio < 0 || stdio + 1 >= process.argv.length) {
    process.stderr.write('usage: node memory-client.mjs --calls N [--settle-ms MS] --stdio COMMAND [ARGS...]\n');
    process.exit(2);
}

const transport = new StdioClientTransport({
    command: process.argv[stdio + 1],
    args: process.argv.slice(stdio + 2),
    stderr: 'inherit',
});
let negotiated;
const setVersion = transport.setProtocolVersion?.bind(transport);
transport.setProtocolVersion = (version) => {
    negotiated = version;
    setVersion?.(version);
};

// Until `hold` is set, elicitations are answered at once (the warm-up call). Then each one is
// parked with its resolver; `arrived` resolves when every call has either parked its elicitation
// or failed.
let hold = false;
const parked = [];
let failures = 0;
let allArrived;
const arrived = new Promise((resolve) => {
    allArrived = resolve;
});
function checkArrived() {
    if (parked.length + failures >= calls) {
        allArrived();
    }
}
const client = new Client(
    { name: 'memory-bench-client', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } } },
);
client.setRequestHandler(ElicitRequestSchema, () => {
    if (!hold) {
        return { action: 'accept', content: ANSWER };
    }
    return new Promise((resolve) => {
        parked.push(resolve);
        checkArrived();
    });
});
await client.connect(transport);
const pid = transport.pid;

/** The server's VmRSS and VmHWM in KiB. */
function memory() {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
    return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

async function call() {
    const result = await client.callTool(
        { name: 'contact_info', arguments: {} },
        undefined,
        { timeout: CALL_TIMEOUT_MS },
    );
    const text = result.content?.[0]?.text;
    if (result.isError || text !== EXPECTED) {
        throw new Error(`unexpected result: ${JSON.stringify(result)}`);
    }
}

await call();
await sleep(settleMs);
const before = memory();

hold = true;
const t0 = process.hrtime.bigint();
const outcomes = Array.from({ length: calls }, () => call().then(
    () => true,
    (e) => {
        process.stderr.write(`memory-client: call failed: ${e.message}\n`);
        failures += 1;
        checkArrived();
        return false;
    },
));
await arrived;
const t1 = process.hrtime.bigint();
const pendingCount = parked.length;
await sleep(settleMs);
const pending = memory();

for (const resolve of parked.splice(0)) {
    resolve({ action: 'accept', content: ANSWER });
}
const results = await Promise.all(outcomes);
const t2 = process.hrtime.bigint();
const completed = results.filter(Boolean).length;
await sleep(settleMs);
const after = memory();

process.stdout.write(
    JSON.stringify({
        calls,
        pending: pendingCount,
        completed,
        lost: calls - completed,
        protocol: negotiated,
        rss_before_kib: before.rss,
        rss_pending_kib: pending.rss,
        rss_after_kib: after.rss,
        hwm_kib: after.hwm,
        seconds_to_pending: Number(t1 - t0) / 1e9,
        seconds_to_answer: Number(t2 - t1) / 1e9,
    }) + '\n',
);
await client.close();
process.exit(0);
