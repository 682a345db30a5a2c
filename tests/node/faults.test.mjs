// Faults through the official TypeScript SDK 1.x client: special files swapped in for
// indexed files never hang a call, and a call stuck where it cannot check for cancellation
// (debug_sleep ignore_cancel: a stand-in for a blocking system call) never starves the
// worker pool: the watchdog abandons it after a cancel or a timeout and replaces its worker.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync, unlinkSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { LOUPE_BIN, freshEnv } from './helpers.mjs';

// A bound far above a normal answer and far below "never": a hang fails the test instead of
// holding the suite.
const BOUND_MS = 20000;

function within(promise, ms, what) {
    let timer;
    const limit = new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    });
    return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

async function connect(t, args = [], setup = () => {}) {
    const fresh = freshEnv();
    setup(fresh);
    const transport = new StdioClientTransport({ command: LOUPE_BIN, args: ['mcp', ...args], env: fresh.env, stderr: 'pipe' });
    const client = new Client({ name: 'loupe-test-faults', version: '1.0.0' });
    await client.connect(transport);
    t.after(async () => {
        await client.close();
        fresh.cleanup();
    });
    return { client, dir: fresh.dir };
}

function warningsOf(res) {
    return (res.structuredContent?.warnings ?? []).map(w => (typeof w === 'string' ? w : `${w.code}: ${w.message}`)).join('\n');
}

test('faults: fifo and device swapped in after indexing never hang search, read, outline', async t => {
    let root;
    const { client } = await connect(t, ['--workers', '4'], ({ dir, env }) => {
        root = path.join(dir, 'repo');
        mkdirSync(path.join(root, 'src'), { recursive: true });
        writeFileSync(path.join(root, 'src', 'a.c'), 'int foo(void){return 1;}\n');
        writeFileSync(path.join(root, 'src', 'b.c'), 'int bar(void){return foo();}\n');
        const r = spawnSync(LOUPE_BIN, ['index', root], { env });
        assert.equal(r.status, 0, String(r.stderr));
        unlinkSync(path.join(root, 'src', 'a.c'));
        unlinkSync(path.join(root, 'src', 'b.c'));
        assert.equal(spawnSync('mkfifo', [path.join(root, 'src', 'a.c')]).status, 0);
        // a character device where a file was (mknod as root), else a link to one
        if (spawnSync('mknod', [path.join(root, 'src', 'b.c'), 'c', '1', '5']).status !== 0)
            symlinkSync('/dev/zero', path.join(root, 'src', 'b.c'));
    });
    // four searches at once: as many as the workers, each reading the changed files live
    const searches = [1, 2, 3, 4].map(() => client.callTool({ name: 'search_codebase', arguments: { path: root, query: 'foo path:*.c' } }));
    const got = await within(Promise.all(searches), BOUND_MS, 'four searches over a fifo');
    for (const res of got) {
        assert.ok(!res.isError, JSON.stringify(res.content));
        assert.match(warningsOf(res), /src\/a\.c is not a regular file/);
    }
    const read = await within(client.callTool({ name: 'read_file', arguments: { path: path.join(root, 'src', 'a.c') } }), BOUND_MS, 'read_file of a fifo');
    assert.match(warningsOf(read), /not_regular_file/);
    assert.match(read.structuredContent.content, /foo/); // the published text
    const outline = await within(client.callTool({ name: 'file_outline', arguments: { path: path.join(root, 'src', 'a.c') } }), BOUND_MS, 'file_outline of a fifo');
    assert.equal(outline.structuredContent.symbols[0].name, 'foo');
    // and the pool is intact
    const later = await within(client.callTool({ name: 'search_codebase', arguments: { path: root, query: 'bar' } }), BOUND_MS, 'a later search');
    assert.ok(!later.isError);
});

test('faults: cancelled calls stuck in the handler never starve the pool', async t => {
    const { client } = await connect(t, ['--workers', '2', '--cancel-grace-ms', '300']);
    const acs = [new AbortController(), new AbortController()];
    const stuck = acs.map(ac => client.callTool({ name: 'debug_sleep', arguments: { ms: 30000, ignore_cancel: true } }, CallToolResultSchema, { signal: ac.signal }));
    await new Promise(r => setTimeout(r, 200));
    const t0 = Date.now();
    acs.forEach(ac => ac.abort('the agent gave up'));
    for (const p of stuck) await assert.rejects(p);
    // both workers are still inside their handlers; the watchdog replaces them
    const res = await within(client.callTool({ name: 'debug_echo', arguments: { message: 'still here' } }), BOUND_MS, 'a call after two stuck ones');
    assert.equal(res.structuredContent.message, 'still here');
    const waited = Date.now() - t0;
    assert.ok(waited < 10000, `answered after ${waited} ms (the stuck calls sleep 30 s)`);
});

test('faults: a call past the time limit is answered with a timeout error, the server goes on', async t => {
    const { client } = await connect(t, ['--workers', '1', '--call-timeout-ms', '500']);
    const t0 = Date.now();
    await assert.rejects(
        within(client.callTool({ name: 'debug_sleep', arguments: { ms: 30000, ignore_cancel: true } }), BOUND_MS, 'a stuck call'),
        err => {
            assert.equal(err.code, -32001);
            assert.match(err.message, /timed out.*debug_sleep.*500 ms limit/);
            return true;
        });
    assert.ok(Date.now() - t0 < 10000);
    const res = await within(client.callTool({ name: 'debug_echo', arguments: { message: 'next' } }), BOUND_MS, 'the next call');
    assert.equal(res.structuredContent.message, 'next');
});
