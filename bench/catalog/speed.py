#!/usr/bin/env python3
"""Tool-catalog speed: build time, query latency and memory on a synthetic 10,000-tool
catalog of real-shaped definitions (bench/catalog/synth.py).

Runs `loupe tools bench` RUNS times (each run: read + parse + index the catalog, then every
query once) and reports the median and the minimum of each figure: the machine is shared,
and the minimum is the least disturbed run. Each run measures the default (lexical and dense
channels fused: tool vectors built at load, the query embedded and scored against every
tool) and, as same-run baselines, the default without the word channel (--param words=0) and the
lexical channel alone (--param dense=0 --param words=0). Query latency is per-thread CPU time (wall time
is printed too). Baselines measured in the same run, for scale: Python's json.load of the
same file (parsing only, no indexing) and a plain Python BM25 over name + description
(postings-based, the same queries).

Usage: bench/catalog/speed.py [--loupe build/loupe] [--tools 10000] [--runs 5]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import metatool  # noqa: E402  (plain BM25 and tokenization)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loupe", default=os.path.join(ROOT, "build", "loupe"))
    ap.add_argument("--tools", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    work = os.path.join(ROOT, "bench", "work", "catalog")
    os.makedirs(work, exist_ok=True)
    cat = os.path.join(work, f"synth{args.tools}.json")
    qf = os.path.join(work, "synth_queries.txt")
    subprocess.run([sys.executable, os.path.join(HERE, "synth.py"), cat, qf, "--tools",
                    str(args.tools)], check=True, stdout=subprocess.DEVNULL)
    runs, lex, nowords = [], [], []
    for _ in range(args.runs):
        for params, into in (([], runs), (["--param", "words=0"], nowords),
                             (["--param", "dense=0", "--param", "words=0"], lex)):
            r = subprocess.run([args.loupe, "tools", "bench", "--catalog", cat, "--queries", qf,
                                *params], capture_output=True, text=True, check=True)
            line = [x for x in r.stderr.splitlines() if x.startswith("bench ")][-1]
            into.append({k: float(v) for k, v in re.findall(r"(\w+)=([0-9.]+)", line)})
    # Baselines.
    t0 = time.perf_counter()
    doc = json.load(open(cat))
    json_ms = (time.perf_counter() - t0) * 1000
    tools = doc["tools"]
    names = [t["name"] for t in tools]
    t0 = time.perf_counter()
    bm = metatool.BM25([metatool.split_name(t["name"]) + metatool.words(t.get("description", ""))
                        for t in tools])
    bm_build_ms = (time.perf_counter() - t0) * 1000
    lat = []
    for q in open(qf).read().splitlines():
        t0 = time.perf_counter()
        bm.rank(metatool.words(q), names)
        lat.append((time.perf_counter() - t0) * 1e6)
    lat.sort()

    def fig(key, rs=runs):
        vals = [r[key] for r in rs]
        return statistics.median(vals), min(vals)

    size = os.path.getsize(cat)
    print(f"catalog: {int(runs[0]['tools'])} tools, {size / 1e6:.1f} MB of JSON, "
          f"{int(runs[0]['queries'])} queries; {args.runs} runs; "
          f"{int(runs[0]['terms'])} terms, {int(runs[0]['postings'])} postings")
    print()
    print("| figure | loupe median | loupe min | target | without the word channel, same run "
          "(median / min) | lexical only, same run (median / min) | other baseline (same run) |")
    print("|---|---:|---:|---:|---:|---:|---|")

    def row(label, key, scale, fmt, target, other):
        a, w, b = fig(key), fig(key, nowords), fig(key, lex)
        print(f"| {label} | {a[0] / scale:{fmt}} | {a[1] / scale:{fmt}} | {target} | "
              f"{w[0] / scale:{fmt}} / {w[1] / scale:{fmt}} | "
              f"{b[0] / scale:{fmt}} / {b[1] / scale:{fmt}} | {other} |")

    row("build: read + parse + index, CPU (ms)", "build_cpu_ms", 1, ".0f", "< 300",
        f"Python json.load alone {json_ms:.0f} ms; plain BM25 index build in Python "
        f"{bm_build_ms:.0f} ms")
    row("build, wall (ms)", "build_ms", 1, ".0f", "", "")
    row("query p50, CPU (ms)", "cpu_p50_us", 1000, ".2f", "",
        f"plain BM25 (Python) p50 {lat[len(lat) // 2] / 1000:.2f} ms")
    row("query p95, CPU (ms)", "cpu_p95_us", 1000, ".2f", "< 5",
        f"plain BM25 (Python) p95 {lat[int(len(lat) * 0.95)] / 1000:.2f} ms")
    row("query p95, wall (ms)", "p95_us", 1000, ".2f", "", "")
    row("memory per tool (bytes: index, vectors, definition copy)", "bytes_per_tool", 1, ".0f",
        "", f"definition JSON {size / runs[0]['tools']:.0f} bytes per tool")


if __name__ == "__main__":
    main()
