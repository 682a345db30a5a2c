#!/usr/bin/env python3
"""How close is loupe's token estimate (lp_catalog_estimate_tokens) to real tokenizers?

Counts every definition of the test fixtures and of a sample of the synthetic catalog with
OpenAI's o200k_base and cl100k_base encodings (the gpt-tokenizer npm package, installed by
this script under bench/work/npm, outside the project's dependencies) and compares with
`loupe tools stats --list --json`. Prints the mean ratio estimate/real and the mean absolute
error, per encoding. The definition is counted as compact JSON text (what a client sends).

Usage: bench/catalog/tokens.py [--loupe build/loupe]
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
NPM = os.path.join(ROOT, "bench", "work", "npm")
FIX = os.path.join(ROOT, "tests", "fixtures", "catalog")

COUNT_JS = r"""
const o200k = require('gpt-tokenizer/cjs/encoding/o200k_base');
const cl100k = require('gpt-tokenizer/cjs/encoding/cl100k_base');
const defs = JSON.parse(require('fs').readFileSync(0, 'utf8'));
process.stdout.write(JSON.stringify(defs.map(d => [o200k.encode(d).length, cl100k.encode(d).length])));
"""


def ensure_tokenizer():
    if os.path.isdir(os.path.join(NPM, "node_modules", "gpt-tokenizer")):
        return
    os.makedirs(NPM, exist_ok=True)
    with open(os.path.join(NPM, "package.json"), "w") as f:
        f.write('{"name":"loupe-bench-tokenizer","private":true}\n')
    subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error",
                    "--ignore-scripts", "gpt-tokenizer@3"], cwd=NPM, check=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loupe", default=os.path.join(ROOT, "build", "loupe"))
    args = ap.parse_args()
    ensure_tokenizer()
    files = [os.path.join(FIX, f) for f in sorted(os.listdir(FIX)) if f.endswith(".json")]
    synth = os.path.join(ROOT, "bench", "work", "catalog", "synth10000.json")
    sample = None
    if os.path.exists(synth):
        tools = json.load(open(synth))["tools"][:1000]
        sample = os.path.join(ROOT, "bench", "work", "catalog", "synth_sample.json")
        json.dump({"tools": tools}, open(sample, "w"), indent=2)
        files.append(sample)
    est, texts = [], []
    for f in files:
        r = subprocess.run([args.loupe, "tools", "stats", "--list", "--json", "--catalog", f],
                           capture_output=True, text=True, check=True)
        listed = {t["id"]: t["tokens"] for t in json.loads(r.stdout)["tools"]}
        doc = json.load(open(f))
        if isinstance(doc, dict):
            doc = doc.get("tools") or doc.get("result", {}).get("tools") or []
        defs = []
        for d in doc:
            if isinstance(d, dict) and "functionDeclarations" in d:
                defs += d["functionDeclarations"]
            else:
                defs.append(d)
        for d in defs:
            name = d.get("name") or d.get("function", {}).get("name")
            if name in listed:
                est.append(listed[name])
                texts.append(json.dumps(d, ensure_ascii=False, separators=(",", ":")))
    r = subprocess.run(["node", "-e", COUNT_JS], cwd=NPM, input=json.dumps(texts),
                       capture_output=True, text=True, check=True)
    real = json.loads(r.stdout)
    print(f"{len(est)} definitions (fixtures + {0 if not sample else 1000} synthetic)")
    print()
    print("| encoding | mean real tokens | mean estimate | mean estimate/real | mean abs. error |")
    print("|---|---:|---:|---:|---:|")
    for k, enc in enumerate(("o200k_base", "cl100k_base")):
        rs = [x[k] for x in real]
        ratio = sum(e / r for e, r in zip(est, rs) if r) / len(rs)
        mae = sum(abs(e - r) / r for e, r in zip(est, rs) if r) / len(rs)
        print(f"| {enc} | {sum(rs) / len(rs):.1f} | {sum(est) / len(est):.1f} | {ratio:.2f} | "
              f"{mae * 100:.0f}% |")


if __name__ == "__main__":
    main()
