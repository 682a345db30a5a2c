// The TypeScript SDK 1.x client (legacy initialize handshake) against `loupe mcp`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { LOUPE_BIN, freshEnv, outputValidators, assertValid, textOf, assertTextCovers } from './helpers.mjs';

async function connect(t, args = []) {
    const { env, cleanup } = freshEnv();
    const transport = new StdioClientTransport({ command: LOUPE_BIN, args: ['mcp', ...args], env, stderr: 'pipe' });
    const client = new Client({ name: 'loupe-test-sdk1', version: '1.0.0' });
    await client.connect(transport);
    t.after(async () => {
        await client.close();
        cleanup();
    });
    return client;
}

test('sdk1: handshake negotiates 2025-11-25 and reports loupe', async t => {
    const client = await connect(t);
    assert.equal(client.getServerVersion().name, 'loupe');
    assert.ok(client.getServerCapabilities().tools, 'tools capability advertised');
    assert.ok(client.getServerCapabilities().logging, 'logging capability advertised');
    assert.match(client.getInstructions() ?? '', /evidence/);
    // The SDK keeps the negotiated version on the transport.
    await client.ping();
});

test('sdk1: tools/list lists the tools and fixtures with annotations and 2020-12 schemas', async t => {
    const client = await connect(t);
    const { tools } = await client.listTools();
    const names = tools.map(x => x.name);
    assert.deepEqual(names, ['list_codebases', 'manage_index', 'search_codebase', 'continue_search', 'file_outline', 'read_file', 'call_graph', 'trace_path', 'find_references', 'detect_changes', 'architecture_overview', 'debug_echo', 'debug_sleep']);
    for (const tool of tools) {
        assert.equal(tool.inputSchema.$schema, 'https://json-schema.org/draft/2020-12/schema');
        assert.equal(tool.outputSchema.$schema, 'https://json-schema.org/draft/2020-12/schema');
        // Only manage_index changes anything (index state; clear is destructive).
        assert.equal(tool.annotations.readOnlyHint, tool.name !== 'manage_index');
        assert.equal(tool.annotations.destructiveHint, tool.name === 'manage_index');
        assert.ok(tool.title && tool.description.length > 40);
    }
    // Every output schema compiles with a 2020-12 validator.
    outputValidators(tools);
});

test('sdk1: debug_echo result validates against its outputSchema, text mirrors it', async t => {
    const client = await connect(t);
    const { tools } = await client.listTools();
    const { validators } = outputValidators(tools);
    const res = await client.callTool({ name: 'debug_echo', arguments: { message: 'héllo', repeat: 3, format: 'upper' } });
    assert.ok(!res.isError, textOf(res));
    assert.equal(res.structuredContent.message, 'HéLLO');
    assert.equal(res.structuredContent.items.length, 3);
    assert.equal(res.structuredContent.truncated, false);
    assertValid(validators, 'debug_echo', res.structuredContent, assert);
    assertTextCovers(textOf(res), res.structuredContent, assert);
});

test('sdk1: a bad argument is a tool error that says how to fix the call', async t => {
    const client = await connect(t);
    const res = await client.callTool({ name: 'debug_echo', arguments: { message: '', repeat: 'x' } });
    assert.equal(res.isError, true);
    const text = textOf(res);
    assert.match(text, /Argument 'message' must be a string of 1 to 4096 characters/);
    assert.match(text, /Argument 'repeat' must be an integer between 1 and 10000 \(got a string "x"\)/);
    assert.match(text, /Example: \{"message":"hello","repeat":2\}/);
});

test('sdk1: an unknown tool is an invalid-params protocol error', async t => {
    const client = await connect(t);
    await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), err => {
        assert.equal(err.code, -32602);
        assert.match(err.message, /unknown tool 'no_such_tool'.*debug_echo/);
        return true;
    });
});

test('sdk1: ping answers while debug_sleep runs (worker pool)', async t => {
    const client = await connect(t);
    const t0 = Date.now();
    const slow = client.callTool({ name: 'debug_sleep', arguments: { ms: 2500, step_ms: 50 } });
    await new Promise(r => setTimeout(r, 100));
    const p0 = Date.now();
    await client.ping();
    const list = await client.listTools();
    const quick = Date.now() - p0;
    assert.ok(list.tools.length >= 2);
    assert.ok(quick < 1000, `ping + tools/list took ${quick} ms while a tool ran`);
    const res = await slow;
    assert.equal(res.structuredContent.sleptMs, 2500);
    assert.ok(Date.now() - t0 >= 2500);
});

test('sdk1: progress notifications arrive in order for a progressToken', async t => {
    const client = await connect(t);
    const seen = [];
    const res = await client.callTool({ name: 'debug_sleep', arguments: { ms: 200, step_ms: 40 } }, CallToolResultSchema, {
        onprogress: p => seen.push(p),
    });
    assert.equal(res.structuredContent.steps, 5);
    // The SDK may drop the last notification when the response overtakes its handler, so
    // the raw stream is checked in the golden transcripts; here: increasing steps of 40.
    assert.ok(seen.length >= 4, `got ${seen.length} progress notifications`);
    assert.deepEqual(seen.map(p => p.progress).slice(0, 4), [40, 80, 120, 160]);
    assert.ok(seen.every(p => p.total === 200 && /slept \d+ of 200 ms/.test(p.message)));
});

test('sdk1: cancelling a call stops it and the server stays usable', async t => {
    const client = await connect(t);
    const ac = new AbortController();
    const t0 = Date.now();
    const call = client.callTool({ name: 'debug_sleep', arguments: { ms: 20000, step_ms: 20 } }, CallToolResultSchema, { signal: ac.signal });
    setTimeout(() => ac.abort('test cancels'), 200);
    await assert.rejects(call);
    assert.ok(Date.now() - t0 < 5000);
    // The worker was released: four more calls run at once and finish quickly.
    const t1 = Date.now();
    await Promise.all([1, 2, 3, 4].map(() => client.callTool({ name: 'debug_sleep', arguments: { ms: 100 } })));
    assert.ok(Date.now() - t1 < 2000, 'workers are free after the cancellation');
});

test('sdk1: logging/setLevel filters notifications/message', async t => {
    const client = await connect(t);
    const got = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, n => got.push(n.params));
    // No level set yet: no messages.
    await client.callTool({ name: 'debug_echo', arguments: { message: 'a', log: true } });
    await client.setLoggingLevel('info');
    await client.callTool({ name: 'debug_echo', arguments: { message: 'b', log: true } });
    await new Promise(r => setTimeout(r, 50));
    assert.deepEqual(got.map(m => m.level), ['info', 'warning']);
    assert.equal(got[0].logger, 'debug_echo');
    await assert.rejects(client.setLoggingLevel('loud'), err => err.code === -32602);
});
