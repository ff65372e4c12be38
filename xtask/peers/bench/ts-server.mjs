// The TypeScript SDK (1.32.2) side of `cargo bench -p interlude-cli --bench elicitation`.
//
// A server with one tool, `ask`, whose handler asks one form elicitation
// ({name: string (required), age: integer}) and returns a string built from the answer.
// 2025-11-25 push era: `elicitation/create` sent while the tool call is in flight.
//
//   node ts-server.mjs            serve on stdio
//   node ts-server.mjs --http     serve streamable HTTP (stateful sessions) on 127.0.0.1, port
//                                 chosen by the OS and printed as `PORT <n>` on stdout; exits when
//                                 stdin closes (the bench keeps it open while it runs)
//   --hoisted-schema              pass one schema object to every `elicitInput` instead of a
//                                 literal written in the handler
//
// About the schema: `elicitInput` validates the accepted content with Ajv, whose `compile`
// caches by schema *object*. Handlers written as in the SDK's own examples (the schema literal
// inside the handler) therefore compile a validator on every call; a handler that hoists the
// schema into a constant does not. The bench measures the first as "the TS SDK" and reports
// the second beside it.
//
// Run from `.peers/npm/bench/` so that `@modelcontextprotocol/sdk` resolves from
// `.peers/npm/node_modules` (the bench copies it there).
import { randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';

const HOISTED = process.argv.includes('--hoisted-schema');

function schema() {
    return {
        type: 'object',
        properties: {
            name: { type: 'string', description: 'Your name' },
            age: { type: 'integer', description: 'Your age' },
        },
        required: ['name'],
    };
}

const SCHEMA = schema();

function makeServer() {
    const mcp = new McpServer({ name: 'ts-bench-server', version: '1.0.0' }, { capabilities: { tools: {} } });
    mcp.registerTool('ask', { description: 'Ask for a name and an age' }, async (extra) => {
        // relatedRequestId: over HTTP the elicitation travels on the tool call's own SSE stream.
        const answer = await mcp.server.elicitInput(
            { mode: 'form', message: 'Who are you?', requestedSchema: HOISTED ? SCHEMA : schema() },
            { relatedRequestId: extra.requestId },
        );
        let text;
        if (answer.action === 'accept' && answer.content) {
            text = `Hello ${answer.content.name}, age ${answer.content.age ?? 'unknown'}`;
        } else {
            text = `The user chose ${answer.action}.`;
        }
        return { content: [{ type: 'text', text }] };
    });
    return mcp;
}

async function serveStdio() {
    await makeServer().connect(new StdioServerTransport());
}

async function serveHttp() {
    const app = createMcpExpressApp({ host: '127.0.0.1' });
    const sessions = new Map();
    app.post('/mcp', async (req, res) => {
        const sessionId = req.headers['mcp-session-id'];
        const existing = sessionId ? sessions.get(sessionId) : undefined;
        if (existing) {
            await existing.handleRequest(req, res, req.body);
            return;
        }
        if (!sessionId && isInitializeRequest(req.body)) {
            const transport = new StreamableHTTPServerTransport({
                sessionIdGenerator: () => randomUUID(),
                onsessioninitialized: (id) => sessions.set(id, transport),
            });
            transport.onclose = () => {
                if (transport.sessionId) sessions.delete(transport.sessionId);
            };
            await makeServer().connect(transport);
            await transport.handleRequest(req, res, req.body);
            return;
        }
        res.status(400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'no valid session' }, id: null });
    });
    const sessionRequest = async (req, res) => {
        const transport = sessions.get(req.headers['mcp-session-id']);
        if (!transport) {
            res.status(404).send('unknown session');
            return;
        }
        await transport.handleRequest(req, res);
    };
    app.get('/mcp', sessionRequest);
    app.delete('/mcp', sessionRequest);
    const listener = app.listen(0, '127.0.0.1', () => {
        process.stdout.write(`PORT ${listener.address().port}\n`);
    });
    // The bench holds our stdin open; when it goes away (normally or not), so do we.
    process.stdin.on('end', () => process.exit(0));
    process.stdin.on('error', () => process.exit(0));
    process.stdin.resume();
}

if (process.argv.includes('--http')) {
    await serveHttp();
} else {
    await serveStdio();
}
