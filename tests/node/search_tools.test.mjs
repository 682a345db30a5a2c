// search_tools through the official MCP clients: `loupe mcp --tool-catalog FILE` served to
// the TypeScript SDK 1.x (legacy handshake) and 2.x (2026-07-28) clients; every result
// validates against the tool's outputSchema with a 2020-12 validator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { Client as Client1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as Stdio1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { Client as Client2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as Stdio2 } from '@modelcontextprotocol/client/stdio';
import { LOUPE_BIN, ROOT, freshEnv, outputValidators, assertValid, textOf, assertTextCovers } from './helpers.mjs';

const FIX = path.join(ROOT, 'tests', 'fixtures', 'catalog');
const ARGS = ['mcp', '--tool-catalog', path.join(FIX, 'github_mcp.json'),
              '--tool-catalog', path.join(FIX, 'slack_mcp.json'),
              '--tool-catalog', path.join(FIX, 'semantic.json')];

async function connect(t, sdk) {
    const { env, cleanup } = freshEnv();
    const [Client, Stdio, opts] = sdk === 1 ? [Client1, Stdio1, undefined]
                                           : [Client2, Stdio2, { versionNegotiation: { mode: 'auto' } }];
    const transport = new Stdio({ command: LOUPE_BIN, args: ARGS, env, stderr: 'pipe' });
    const client = new Client({ name: `loupe-test-search-tools-${sdk}`, version: '1.0.0' }, opts);
    await client.connect(transport);
    t.after(async () => {
        await client.close();
        cleanup();
    });
    return client;
}

for (const sdk of [1, 2]) {
    test(`sdk${sdk}: search_tools is listed and its results validate`, async t => {
        const client = await connect(t, sdk);
        const { tools } = await client.listTools();
        const names = tools.map(x => x.name);
        assert.ok(names.includes('search_codebase') && names.includes('search_tools'), names.join());
        assert.deepEqual(names.slice(-3), ['search_tools', 'debug_echo', 'debug_sleep']);
        const st = tools.find(x => x.name === 'search_tools');
        assert.equal(st.annotations.readOnlyHint, true);
        assert.deepEqual(st.inputSchema.required, ['query']);
        const { validators } = outputValidators(tools);

        const res = await client.callTool({ name: 'search_tools', arguments: { query: 'post a message to a slack channel', maxTools: 3 } });
        assert.ok(!res.isError, textOf(res));
        const out = res.structuredContent;
        assertValid(validators, 'search_tools', out, assert);
        assert.equal(out.tools[0].id, 'slack_post_message');
        assert.ok(out.tools[0].channels.includes('lexical'));
        assert.deepEqual(out.channels, ['lexical', 'dense', 'words']);
        // The definition comes back as it was given.
        assert.equal(out.tools[0].definition.name, 'slack_post_message');
        assertTextCovers(textOf(res), out, assert);

        // Found by meaning only.
        const sem = await client.callTool({ name: 'search_tools', arguments: { query: 'regex pattern', includeDefinitions: false } });
        assertValid(validators, 'search_tools', sem.structuredContent, assert);
        assert.equal(sem.structuredContent.tools[0].id, 'util/match_text');
        assert.deepEqual(sem.structuredContent.tools[0].channels, ['dense']);
        assert.ok(sem.structuredContent.tools[0].similarity > 0);

        // A token budget, and a bad argument the agent can fix.
        const small = await client.callTool({ name: 'search_tools', arguments: { query: 'issue', maxTools: 10, maxTokens: 200, includeDefinitions: false } });
        assertValid(validators, 'search_tools', small.structuredContent, assert);
        assert.ok(small.structuredContent.totalTokens <= 200);
        assert.ok(small.structuredContent.omittedForBudget > 0);
        const bad = await client.callTool({ name: 'search_tools', arguments: { query: 'x', maxTools: 'five' } });
        assert.equal(bad.isError, true);
        assert.match(textOf(bad), /maxTools/);
    });
}
