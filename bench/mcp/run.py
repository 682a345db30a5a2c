#!/usr/bin/env python3
"""bench/mcp/run.py: MCP server start-up latency and idle memory (not part of make test).

Measures, in the same run and on the same machine:
  baseline   process start to exit of `loupe version`
  mcp        process start to the first tools/list answer of `loupe mcp`
             (initialize, notifications/initialized and tools/list written at once)
  discover   process start to the server/discover answer (2026-07-28 probe)
and the resident memory of an idle `loupe mcp` after answering tools/list.
Reports medians of N runs (default 20) and the ratio against the baseline, and writes
bench/RESULTS-mcp.md.

usage: bench/mcp/run.py [--loupe build/loupe] [--runs 20] [--out bench/RESULTS-mcp.md]
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "bench", "version": "1"}}}
INITED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
DISCOVER = {"jsonrpc": "2.0", "id": 1, "method": "server/discover",
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                                 "io.modelcontextprotocol/clientCapabilities": {}}}}


def lines(*msgs):
    return b"".join(json.dumps(m).encode() + b"\n" for m in msgs)


def time_version(loupe):
    t0 = time.perf_counter()
    subprocess.run([loupe, "version"], stdout=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - t0) * 1000


def time_until(loupe, payload, want_id, keep=False):
    t0 = time.perf_counter()
    p = subprocess.Popen([loupe, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    p.stdin.write(payload)
    p.stdin.flush()
    for raw in p.stdout:
        if json.loads(raw).get("id") == want_id:
            break
    ms = (time.perf_counter() - t0) * 1000
    rss = None
    if keep:
        time.sleep(0.2)
        with open(f"/proc/{p.pid}/status") as f:
            for ln in f:
                if ln.startswith("VmRSS:"):
                    rss = int(ln.split()[1])
    p.stdin.close()
    p.wait(timeout=10)
    return ms, rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loupe", default=os.path.join(ROOT, "build/loupe"))
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--out", default=os.path.join(ROOT, "bench/RESULTS-mcp.md"))
    args = ap.parse_args()
    loupe = os.path.abspath(args.loupe)
    for _ in range(3):  # warm the page cache
        time_version(loupe)
        time_until(loupe, lines(INIT, INITED, LIST), 2)
    base, mcp, disc = [], [], []
    for _ in range(args.runs):  # interleaved, so load changes hit all three alike
        base.append(time_version(loupe))
        mcp.append(time_until(loupe, lines(INIT, INITED, LIST), 2)[0])
        disc.append(time_until(loupe, lines(DISCOVER), 1)[0])
    rss = [time_until(loupe, lines(INIT, INITED, LIST), 2, keep=True)[1] for _ in range(3)]
    mb, mm, md = (statistics.median(x) for x in (base, mcp, disc))
    rows = [
        ("`loupe version` (baseline)", mb, 1.0),
        ("`loupe mcp`: start to first tools/list answer", mm, mm / mb),
        ("`loupe mcp`: start to server/discover answer", md, md / mb),
    ]
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = [f"# MCP server start-up ({now}, {os.cpu_count()} cores, median of {args.runs} runs)", "",
           "| measurement | median ms | ratio to baseline |", "|---|---:|---:|"]
    out += [f"| {name} | {ms:.2f} | {ratio:.2f} |" for name, ms, ratio in rows]
    out += ["", f"Idle RSS of `loupe mcp` after answering tools/list: {statistics.median(rss)} KiB "
            f"(median of 3).", "",
            "Target: first tools/list answer under 30 ms. Reproduce with `bench/mcp/run.py`.", ""]
    text = "\n".join(out)
    print(text)
    with open(args.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
