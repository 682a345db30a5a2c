// The official MCP Inspector in CLI mode (`mcp-inspector --cli`) against `loupe mcp`: it
// must list the tools and call one. It runs offline: HOME is a fresh folder, and nothing but
// the loupe child process is contacted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT, LOUPE_BIN, freshEnv } from './helpers.mjs';

const INSPECTOR = path.join(ROOT, 'node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');

function inspect(args) {
    const { env, cleanup } = freshEnv();
    try {
        const r = spawnSync(process.execPath, [INSPECTOR, '--cli', LOUPE_BIN, 'mcp', '-e', 'LOUPE_MCP_TEST_TOOLS=1', ...args], {
            env: { ...env, NO_COLOR: '1' },
            encoding: 'utf8',
            timeout: 60000,
        });
        return r;
    } finally {
        cleanup();
    }
}

test('inspector --cli: tools/list', () => {
    const r = inspect(['--method', 'tools/list']);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.tools.map(t => t.name), ['list_codebases', 'manage_index', 'search_codebase', 'continue_search', 'file_outline', 'read_file', 'call_graph', 'trace_path', 'find_references', 'detect_changes', 'architecture_overview', 'debug_echo', 'debug_sleep']);
    assert.equal(out.tools[0].annotations.readOnlyHint, true);
});

test('inspector --cli: tools/call debug_echo', () => {
    const r = inspect(['--method', 'tools/call', '--tool-name', 'debug_echo', '--tool-arg', 'message=inspected', '--tool-arg', 'repeat=2']);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.structuredContent.message, 'inspected');
    assert.deepEqual(out.structuredContent.items, ['inspected', 'inspected']);
    // the text block is an outline for a model (structuredContent has the typed answer)
    assert.match(out.content[0].text, /^count: 2$/m);
});

test('inspector --cli: a bad argument comes back as a tool error', () => {
    const r = inspect(['--method', 'tools/call', '--tool-name', 'debug_sleep', '--tool-arg', 'ms=-5']);
    const text = r.stdout + r.stderr;
    assert.match(text, /Argument 'ms' must be an integer between 0 and 600000/);
});
