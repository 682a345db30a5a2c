#!/usr/bin/env python3
"""bench/mcp/run.py: MCP server latency and memory (not part of make test).

Measures, in the same run and on the same machine:
  start-up   `loupe version` (baseline), `loupe mcp` to the first tools/list answer and to
             the server/discover answer; idle RSS after tools/list
  search     on the Go standard library (Debian golang-1.19-src, ~8,000 files, indexed into
             a private LOUPE_HOME first): search_codebase round trips through the protocol
             (p50/p95 of --searches calls over a fixed query mix), against a ping round trip
             on the same connection (the protocol baseline) and a `loupe search` process per
             query; the same with the freshness cache off (LOUPE_FRESHNESS_TTL_MS=0); the
             cost of the freshness walk itself (`loupe status` minus `loupe status
             --no-fresh`); RSS idle, after a warm-up of 100 searches and after 1,000
  continue   continue_search round trips (a page of a frozen set, no retrieval)
  outline    file_outline round trips over 80 files (the 40 largest and 40 others), against
             a `loupe outline` process per file
Reports medians/percentiles and ratios against the baselines, and writes
bench/RESULTS-mcp.md.

usage: bench/mcp/run.py [--loupe build/loupe] [--runs 20] [--searches 1000]
                        [--go /usr/share/go-1.19/src] [--out bench/RESULTS-mcp.md]
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import tempfile
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


QUERIES = [
    "http request header parse", "mutex lock unlock", "ParseInt", "read file into buffer",
    "goroutine scheduler preemption", "tls handshake certificate verify", "json unmarshal struct",
    "garbage collector mark phase", "utf8 decode rune", "sort slice stable", "time zone location",
    "regexp compile syntax", "hash map grow buckets", "channel close panic", "os exec command",
    "context cancel deadline", "bufio scanner split lines", "strconv format float",
    "net dial timeout", "reflect value call",
]


def pct(xs, p):
    xs = sorted(xs)
    k = max(0, min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1)))))
    return xs[k]


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for ln in f:
            if ln.startswith("VmRSS:"):
                return int(ln.split()[1])
    return None


class Conn:
    """One `loupe mcp` process driven line by line (one request at a time)."""

    def __init__(self, loupe, env, stderr=subprocess.DEVNULL):
        self.p = subprocess.Popen([loupe, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=stderr, env=env)
        self.n = 0
        self.rpc("initialize", INIT["params"])
        self.p.stdin.write(json.dumps(INITED).encode() + b"\n")
        self.p.stdin.flush()

    def rpc(self, method, params=None):
        self.n += 1
        msg = {"jsonrpc": "2.0", "id": self.n, "method": method}
        if params is not None:
            msg["params"] = params
        self.p.stdin.write(json.dumps(msg).encode() + b"\n")
        self.p.stdin.flush()
        while True:
            j = json.loads(self.p.stdout.readline())
            if j.get("id") == self.n:
                return j

    def timed(self, method, params=None):
        t0 = time.perf_counter()
        j = self.rpc(method, params)
        return (time.perf_counter() - t0) * 1000, j

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def search_args(root, q):
    return {"name": "search_codebase", "arguments": {"path": root, "query": q}}


def bench_search(loupe, go, searches, home):
    env = dict(os.environ, LOUPE_HOME=home)
    env.pop("LOUPE_FRESHNESS_TTL_MS", None)
    t0 = time.perf_counter()
    subprocess.run([loupe, "index", go, "--quiet"], env=env, check=True)
    index_s = time.perf_counter() - t0
    out = {"index_s": index_s}
    # Freshness walk cost: status with and without the walk.
    walk, nowalk = [], []
    for _ in range(10):
        t0 = time.perf_counter()
        subprocess.run([loupe, "status", go, "--json"], env=env, stdout=subprocess.DEVNULL)
        walk.append((time.perf_counter() - t0) * 1000)
        t0 = time.perf_counter()
        subprocess.run([loupe, "status", go, "--json", "--no-fresh"], env=env,
                       stdout=subprocess.DEVNULL)
        nowalk.append((time.perf_counter() - t0) * 1000)
    out["walk_ms"] = statistics.median(walk) - statistics.median(nowalk)
    # CLI: one process per search.
    cli = []
    for q in QUERIES:
        t0 = time.perf_counter()
        subprocess.run([loupe, "search", *q.split(), "--path", go, "--json"], env=env,
                       stdout=subprocess.DEVNULL, check=True)
        cli.append((time.perf_counter() - t0) * 1000)
    out["cli"] = cli
    # Through the protocol, freshness cache on (the default). The debug log gives the time
    # spent inside lp_search_run for each call (mcp.search.timing), so the share of the MCP
    # layer (open + pin, freshness, envelope, freezing, JSON, pipe) can be told apart.
    log = tempfile.NamedTemporaryFile(prefix="loupe-bench-log-", delete=False)
    c = Conn(loupe, dict(env, LOUPE_LOG="debug"), stderr=log)
    time.sleep(0.2)
    out["rss_idle"] = rss_kb(c.p.pid)
    ping = [c.timed("ping")[0] for _ in range(200)]
    for i in range(100):
        ms, j = c.timed("tools/call", search_args(go, QUERIES[i % len(QUERIES)]))
        assert not j["result"].get("isError"), j
    out["rss_warm"] = rss_kb(c.p.pid)
    lat, handles = [], []
    for i in range(searches):
        ms, j = c.timed("tools/call", search_args(go, QUERIES[i % len(QUERIES)]))
        assert not j["result"].get("isError"), j
        lat.append(ms)
        h = j["result"]["structuredContent"]["pagination"]["continuation"]
        if h and len(handles) < 200:
            handles.append(h)
        if (i + 1) % max(1, searches // 4) == 0:
            out.setdefault("rss_steps", []).append((i + 1, rss_kb(c.p.pid)))
    out["rss_after"] = rss_kb(c.p.pid)
    cont = []
    for h in handles:
        ms, j = c.timed("tools/call", {"name": "continue_search", "arguments": {"continuation": h}})
        assert not j["result"].get("isError"), j
        cont.append(ms)
    # file_outline on files of every size (the 40 largest and 40 others, fixed order), and
    # the same outline from a `loupe outline` process (the CLI baseline)
    gofiles = sorted(os.path.relpath(os.path.join(dp, f), go) for dp, _, fs in os.walk(go)
                     for f in fs if f.endswith(".go") and "testdata" not in dp)
    by_size = sorted(gofiles, key=lambda f: (-os.path.getsize(os.path.join(go, f)), f))
    picks = by_size[:40] + gofiles[::max(1, len(gofiles) // 40)][:40]
    outline, outline_cli = [], []
    for f in picks * 3:
        ms, j = c.timed("tools/call", {"name": "file_outline",
                                       "arguments": {"path": os.path.join(go, f)}})
        assert not j["result"].get("isError"), j
        outline.append(ms)
    for f in picks:
        t0 = time.perf_counter()
        subprocess.run([loupe, "outline", os.path.join(go, f), "--json"], env=env,
                       stdout=subprocess.DEVNULL, check=True)
        outline_cli.append((time.perf_counter() - t0) * 1000)
    out.update(outline=outline, outline_cli=outline_cli)
    c.close()
    log.close()
    inner, surface = [], []
    with open(log.name) as f:
        all_lines = f.readlines()
    os.unlink(log.name)
    lines_ = [ln for ln in all_lines if "event=mcp.search.timing" in ln]
    for ln in lines_[100:]:  # after the warm-up
        kv = dict(x.split("=", 1) for x in ln.split() if "=" in x)
        inner.append(float(kv["search_ms"]))
    # The result surface (src/search/decorate.c: labels, breadcrumbs, one stat per file),
    # logged by lp_search_decorate inside lp_search_run.
    for ln in [ln for ln in all_lines if "event=search.decorate" in ln][100:]:
        kv = dict(x.split("=", 1) for x in ln.split() if "=" in x)
        surface.append(float(kv["ms"]))
    out.update(ping=ping, search=lat, cont=cont, inner=inner, surface=surface)
    # Freshness cache off: every search walks the tree.
    env0 = dict(env, LOUPE_FRESHNESS_TTL_MS="0")
    c = Conn(loupe, env0)
    nocache = []
    for i in range(200):
        ms, j = c.timed("tools/call", search_args(go, QUERIES[i % len(QUERIES)]))
        nocache.append(ms)
    c.close()
    out["nocache"] = nocache
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loupe", default=os.path.join(ROOT, "build/loupe"))
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--searches", type=int, default=1000)
    ap.add_argument("--go", default="/usr/share/go-1.19/src")
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
    load = os.getloadavg()[0]
    out = [f"# MCP server benchmarks ({now}, {os.cpu_count()} cores, load average {load:.1f} "
           "at the start: the machine is shared)", "",
           f"## Start-up (median of {args.runs} runs)", "",
           "| measurement | median ms | ratio to baseline |", "|---|---:|---:|"]
    out += [f"| {name} | {ms:.2f} | {ratio:.2f} |" for name, ms, ratio in rows]
    out += ["", f"Idle RSS of `loupe mcp` after answering tools/list: {statistics.median(rss)} KiB "
            f"(median of 3).", "", "Target: first tools/list answer under 30 ms.", ""]
    if os.path.isdir(args.go):
        with tempfile.TemporaryDirectory(prefix="loupe-bench-mcp-") as home:
            r = bench_search(loupe, args.go, args.searches, home)
        pp50, pp95 = pct(r["ping"], 50), pct(r["ping"], 95)
        s50, s95 = pct(r["search"], 50), pct(r["search"], 95)
        n50, n95 = pct(r["nocache"], 50), pct(r["nocache"], 95)
        c50, c95 = (pct(r["cont"], 50), pct(r["cont"], 95)) if r["cont"] else (0, 0)
        cli50 = statistics.median(r["cli"])
        out += [f"## search_codebase on the Go tree ({args.go}, indexed in {r['index_s']:.1f} s)",
                "",
                f"{args.searches} searches over {len(QUERIES)} queries, one at a time on one "
                "connection (protocol 2025-11-25), after 100 warm-up searches.", "",
                "| round trip | p50 ms | p95 ms | p50 ratio to the CLI |", "|---|---:|---:|---:|",
                f"| `loupe search` process per query (baseline: start, open, search, print) | "
                f"{cli50:.2f} | {pct(r['cli'], 95):.2f} | 1.00 |",
                f"| search_codebase (freshness cached, default) | {s50:.2f} | {s95:.2f} | "
                f"{s50 / cli50:.2f} |",
                f"| search_codebase (LOUPE_FRESHNESS_TTL_MS=0: walk every call) | {n50:.2f} | "
                f"{n95:.2f} | {n50 / cli50:.2f} |",
                f"| continue_search (next page of a frozen set) | {c50:.2f} | {c95:.2f} | "
                f"{c50 / cli50:.2f} |",
                f"| ping (the protocol alone) | {pp50:.3f} | {pp95:.3f} | {pp50 / cli50:.3f} |", "",
                "| file_outline (80 files: the 40 largest and 40 others, 3 rounds) | p50 ms | "
                "p95 ms | p50 ratio to the CLI |", "|---|---:|---:|---:|",
                f"| `loupe outline` process per file (baseline) | "
                f"{statistics.median(r['outline_cli']):.2f} | {pct(r['outline_cli'], 95):.2f} | 1.00 |",
                f"| file_outline through the protocol | {pct(r['outline'], 50):.2f} | "
                f"{pct(r['outline'], 95):.2f} | "
                f"{pct(r['outline'], 50) / statistics.median(r['outline_cli']):.2f} |", "",
                f"Inside those search_codebase calls, lp_search_run itself took p50 "
                f"{pct(r['inner'], 50):.2f} ms / p95 {pct(r['inner'], 95):.2f} ms: the rest "
                f"of the round trip (open and pin, freshness, envelope, freezing the set, JSON "
                f"both ways, the pipe, the Python client's parse; the server logged at debug "
                f"for this breakdown) is {pct(r['search'], 50) - pct(r['inner'], 50):.2f} ms at "
                f"the median." + (
                    f" The result surface (labels, breadcrumbs, one stat per result file; "
                    f"src/search/decorate.c) is part of lp_search_run: p50 "
                    f"{pct(r['surface'], 50):.2f} ms / p95 {pct(r['surface'], 95):.2f} ms."
                    if r.get("surface") else ""), "",
                f"Freshness walk (stat of every file, `loupe status` minus `--no-fresh`): "
                f"{r['walk_ms']:.1f} ms median; the server caches it per root for 2 s "
                "(single flight), so most searches do not pay it.", "",
                "| RSS of `loupe mcp` | KiB |", "|---|---:|",
                f"| idle, after initialize | {r['rss_idle']} |",
                f"| after 100 warm-up searches | {r['rss_warm']} |",
                f"| after {args.searches} more searches | {r['rss_after']} |",
                f"| growth after warm-up | {r['rss_after'] - r['rss_warm']} |", "",
                "RSS during the run (searches after warm-up: KiB): " +
                ", ".join(f"{n}: {kb}" for n, kb in r.get("rss_steps", [])) + ". It moves up "
                "and down by several MiB (calls run on 4 worker threads with their own malloc "
                "arenas and reuse up to 4 pooled SQLite connections, each with a page cache "
                "bounded at 16 MiB); what matters is that it has no upward trend across the run "
                "and stays "
                "far under the bound.", "",
                "Targets: search_codebase p95 under 60 ms; RSS under 150 MB with no growth "
                "after warm-up.", ""]
    out += ["Reproduce with `bench/mcp/run.py`.", ""]
    text = "\n".join(out)
    print(text)
    with open(args.out, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
