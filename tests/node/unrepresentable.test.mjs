// Arguments a real client sends as valid JSON that loupe cannot hold: JavaScript numbers
// past 2^63 (JSON.stringify(1e20) is the integer literal 100000000000000000000) and strings
// holding "\u0000". The answer must keep the request id (-32602 naming the field), so the
// client's promise settles at once instead of waiting for its timeout, and the session
// goes on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { LOUPE_BIN, freshEnv, textOf } from './helpers.mjs';

async function connect(t) {
    const { env, cleanup } = freshEnv();
    const transport = new StdioClientTransport({ command: LOUPE_BIN, args: ['mcp'], env, stderr: 'pipe' });
    const client = new Client({ name: 'loupe-test-unrepresentable', version: '1.0.0' });
    await client.connect(transport);
    t.after(async () => {
        await client.close();
        cleanup();
    });
    return client;
}

// Fails (rather than hangs) when the answer never comes back with the request's id.
const quick = { timeout: 10000 };

test('sdk1: an integer past 2^63 in the arguments is answered with -32602 and the id', async t => {
    const client = await connect(t);
    await assert.rejects(
        client.callTool({ name: 'debug_echo', arguments: { message: 'hi', repeat: 1e20 } },
                        CallToolResultSchema, quick),
        err => {
            assert.equal(err.code, -32602, String(err));
            assert.match(err.message, /invalid_argument: params\.arguments\.repeat is a number loupe cannot hold/);
            assert.deepEqual(err.data, { code: 'invalid_argument', field: 'params.arguments.repeat' });
            return true;
        });
    // The session goes on.
    const ok = await client.callTool({ name: 'debug_echo', arguments: { message: 'again' } });
    assert.ok(!ok.isError, textOf(ok));
    assert.equal(ok.structuredContent.message, 'again');
});

test('sdk1: "\\u0000" in a string argument is answered with -32602 and the id', async t => {
    const client = await connect(t);
    await assert.rejects(
        client.callTool({ name: 'debug_echo', arguments: { message: 'a\u0000b' } },
                        CallToolResultSchema, quick),
        err => {
            assert.equal(err.code, -32602, String(err));
            assert.match(err.message, /params\.arguments\.message holds \\u0000/);
            assert.equal(err.data.field, 'params.arguments.message');
            return true;
        });
    await client.ping();
});
