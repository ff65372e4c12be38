// The TypeScript SDK (1.32.2) server of `cargo bench -p interlude-cli --bench memory`.
//
// One tool, `contact_info`, as in Interlude's demo server: its handler asks one form elicitation
// with the demo's schema (name, e-mail, age of at least 18) and returns a sentence built from the
// answer. 2025-11-25 push era: `elicitation/create` is sent while the tool call is in flight, and
// the call stays open until the client answers. Written as the SDK's examples write handlers
// (the schema literal inside the handler), `elicitInput` with its default options.
//
//   node memory-server.mjs        serve on stdio
//
// Run from `.peers/npm/bench/` so that `@modelcontextprotocol/sdk` resolves from
// `.peers/npm/node_modules` (the bench copies it there).
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const mcp = new McpServer({ name: 'ts-memory-server', version: '1.0.0' }, { capabilities: { tools: {} } });
mcp.registerTool(
    'contact_info',
    { description: 'Ask for contact information: name, e-mail address and age (18 or older).' },
    async (extra) => {
        const answer = await mcp.server.elicitInput(
            {
                mode: 'form',
                message: 'Please provide your contact information',
                requestedSchema: {
                    type: 'object',
                    properties: {
                        name: { type: 'string', description: 'Your full name', minLength: 1 },
                        email: { type: 'string', description: 'Your email address', format: 'email' },
                        age: {
                            type: 'integer',
                            description: 'Your age (you must be 18 or older)',
                            minimum: 18,
                            maximum: 150,
                        },
                    },
                    required: ['name', 'email', 'age'],
                },
            },
            { relatedRequestId: extra.requestId },
        );
        let text;
        if (answer.action === 'accept' && answer.content) {
            const { name, email, age } = answer.content;
            text = `Thanks ${name} (${email}, age ${age}).`;
        } else {
            text = answer.action === 'decline' ? 'The user declined.' : 'The user cancelled.';
        }
        return { content: [{ type: 'text', text }] };
    },
);
await mcp.connect(new StdioServerTransport());
