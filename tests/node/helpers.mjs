// helpers.mjs: shared setup for the tests that drive `loupe mcp` with the official MCP
// clients. LOUPE_BIN names the binary (tests/run.py sets it); the debug_* fixtures are
// enabled with LOUPE_MCP_TEST_TOOLS=1; each test gets its own HOME and LOUPE_HOME.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Ajv2020Module from 'ajv/dist/2020.js';

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;
const here = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(here, '..', '..');
export const LOUPE_BIN = path.resolve(ROOT, process.env.LOUPE_BIN ?? 'build/loupe');

export function freshEnv() {
    const dir = mkdtempSync(path.join(tmpdir(), 'loupe-node-'));
    const env = {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: dir,
        LOUPE_HOME: path.join(dir, 'state'),
        LOUPE_MCP_TEST_TOOLS: '1',
    };
    return { dir, env, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

// Compile every tool's outputSchema with a JSON Schema 2020-12 validator; returns
// name -> validate function. Throws if a schema does not compile.
export function outputValidators(tools) {
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    const out = new Map();
    for (const t of tools) {
        if (t.outputSchema) out.set(t.name, ajv.compile(t.outputSchema));
    }
    return { ajv, validators: out };
}

export function assertValid(validators, name, value, assert) {
    const v = validators.get(name);
    assert.ok(v, `tool ${name} has an outputSchema`);
    const ok = v(value);
    assert.ok(ok, `structuredContent of ${name} does not match its outputSchema: ${JSON.stringify(v.errors)}`);
}

export function textOf(result) {
    return (result.content ?? []).filter(c => c.type === 'text').map(c => c.text).join('\n');
}
