// The TypeScript SDK 2.x client with version negotiation 'auto': it probes with
// server/discover and, since loupe answers it, speaks protocol 2026-07-28 (per-request _meta,
// no initialize).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { LOUPE_BIN, freshEnv, outputValidators, assertValid, textOf } from './helpers.mjs';

async function connect(t, mode = 'auto') {
    const { env, cleanup } = freshEnv();
    const transport = new StdioClientTransport({ command: LOUPE_BIN, args: ['mcp'], env, stderr: 'pipe' });
    const client = new Client({ name: 'loupe-test-client2', version: '2.0.0' }, { versionNegotiation: { mode } });
    await client.connect(transport);
    t.after(async () => {
        await client.close();
        cleanup();
    });
    return client;
}

test('client2: auto negotiation selects 2026-07-28 through server/discover', async t => {
    const client = await connect(t);
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    assert.ok(client.getServerCapabilities()?.tools, 'tools capability from server/discover');
    assert.match(client.getInstructions() ?? '', /evidence/);
});

test('client2: tools/list and tools/call on 2026-07-28; results validate', async t => {
    const client = await connect(t);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map(x => x.name), ['list_codebases', 'manage_index', 'search_codebase', 'continue_search', 'file_outline', 'read_file', 'call_graph', 'trace_path', 'find_references', 'detect_changes', 'architecture_overview', 'debug_echo', 'debug_sleep']);
    const { validators } = outputValidators(tools);
    const res = await client.callTool({ name: 'debug_echo', arguments: { message: 'modern', repeat: 2 } });
    assert.ok(!res.isError, textOf(res));
    assert.equal(res.structuredContent.protocolVersion, '2026-07-28');
    assertValid(validators, 'debug_echo', res.structuredContent, assert);
    const bad = await client.callTool({ name: 'debug_echo', arguments: { message: 'x', colour: 'red' } });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /Unknown argument 'colour'; the accepted arguments are: message, repeat, format, log/);
});

test('client2: tools/list answers while debug_sleep runs', async t => {
    const client = await connect(t);
    await client.listTools();
    const slow = client.callTool({ name: 'debug_sleep', arguments: { ms: 2000 } });
    await new Promise(r => setTimeout(r, 100));
    const t0 = Date.now();
    await client.listTools({ cursor: undefined }, { cacheMode: 'refresh' });
    assert.ok(Date.now() - t0 < 1000, 'tools/list was not delayed by the running tool');
    const res = await slow;
    assert.equal(res.structuredContent.sleptMs, 2000);
});

test('client2: progress and cancellation on 2026-07-28', async t => {
    const client = await connect(t);
    const seen = [];
    const res = await client.callTool({ name: 'debug_sleep', arguments: { ms: 150, step_ms: 50 } }, { onprogress: p => seen.push(p.progress) });
    assert.equal(res.structuredContent.steps, 3);
    assert.ok(seen.length >= 2 && seen[0] === 50 && seen[1] === 100, JSON.stringify(seen));
    const ac = new AbortController();
    const t0 = Date.now();
    const call = client.callTool({ name: 'debug_sleep', arguments: { ms: 30000 } }, { signal: ac.signal });
    setTimeout(() => ac.abort(), 150);
    await assert.rejects(call);
    assert.ok(Date.now() - t0 < 5000);
    const again = await client.callTool({ name: 'debug_echo', arguments: { message: 'still here' } });
    assert.equal(again.structuredContent.message, 'still here');
});

test('client2: legacy mode still works against the same binary', async t => {
    const client = await connect(t, 'legacy');
    assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
    const res = await client.callTool({ name: 'debug_echo', arguments: { message: 'old' } });
    assert.equal(res.structuredContent.protocolVersion, '2025-11-25');
});
