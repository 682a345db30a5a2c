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
        LOUPE_MCP_OUTPUT_SCHEMAS: '1', // the tests validate every result against them
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

// The text block is a compact outline of structuredContent written for a model (not the JSON
// again): every string of the structured answer is in it (as written, or JSON-escaped inside
// a next call), except the message of a warning the session was already given, which is
// then its code marked "(as before)".
export function assertTextCovers(text, structured, assert) {
    assert.ok(!text.trimStart().startsWith('{'), `the text block is not the JSON again: ${text.slice(0, 300)}`);
    const walk = (v, inWarning) => {
        if (typeof v === 'string') {
            for (const line of v.split('\n')) {
                if (!line.trim()) continue;
                const esc = JSON.stringify(line).slice(1, -1);
                assert.ok(text.includes(line) || text.includes(esc),
                          `text block lacks ${JSON.stringify(line).slice(0, 120)}`);
            }
        } else if (Array.isArray(v)) {
            for (const x of v) walk(x, inWarning);
        } else if (v && typeof v === 'object') {
            for (const [k, x] of Object.entries(v)) {
                if (inWarning && k === 'message' && text.includes(`${v.code} (as before)`)) continue;
                walk(x, k === 'warnings' || (inWarning && k !== 'message'));
            }
        }
    };
    walk(structured, false);
}
