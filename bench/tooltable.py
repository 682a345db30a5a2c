#!/usr/bin/env python3
"""bench/tooltable.py: the tool table must make nothing slower (decision 0019).

Two binaries in the same run, interleaved (A B A B ...) so load drifts hit both:
  - MCP: one `loupe mcp` process per round; N tools/list round trips, N call_graph calls
    (cycling over symbols with calls) and N trace_path calls, one at a time; p50 / p95 ms.
  - start: `loupe mcp` start to the first tools/list answer; `loupe calls SYMBOL --json`
    process (start, open, pin, call_graph, print); `loupe calls --help`.
Usage: bench/tooltable.py --base /work/main/build/loupe --new build/loupe --root DIR [--n 200]
       [--rounds 3] [--out bench/RESULTS-tooltable.md]
The root must be indexed (LOUPE_HOME from the environment).
"""
import argparse
import json
import os
import statistics
import subprocess
import time


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


class Mcp:
    def __init__(self, binary):
        self.p = subprocess.Popen([binary, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        self.id = 0

    def req(self, method, params=None):
        self.id += 1
        m = {"jsonrpc": "2.0", "id": self.id, "method": method}
        if params is not None:
            m["params"] = params
        t0 = time.perf_counter()
        self.p.stdin.write((json.dumps(m) + "\n").encode())
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError("server closed")
            r = json.loads(line)
            if r.get("id") == self.id:
                return (time.perf_counter() - t0) * 1000, r

    def init(self):
        self.req("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": "bench", "version": "1"}})
        self.p.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.p.stdin.flush()

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def symbols(binary, root, want=40):
    """Ids of symbols that have callees (from the index), and pairs for trace_path."""
    db = subprocess.run(["sh", "-c", f"grep -l '^{root}$' $LOUPE_HOME/roots/*/root"],
                        capture_output=True, text=True).stdout.split()[0][:-len("root")] + "index.db"
    names = subprocess.run(["sqlite3", db, "SELECT name FROM symbols WHERE name IN (SELECT s.name"
                            " FROM edges e JOIN files f ON f.fid = e.src_fid JOIN symbols s ON"
                            " s.bid = f.bid AND s.ord = e.src_ord WHERE e.kind = 0 AND e.rule <> 0)"
                            " GROUP BY name HAVING count(*) = 1 ORDER BY name LIMIT 400"],
                           capture_output=True, text=True).stdout.split()
    ids, pairs = [], []
    for n in names:
        r = subprocess.run([binary, "calls", n, "--json", "--callees", "--root", root],
                           capture_output=True, text=True)
        if r.returncode:
            continue
        j = json.loads(r.stdout)
        if j["edges"] and j["nodes"]:
            ids.append(j["root"]["id"])
            pairs.append((j["root"]["id"], j["nodes"][-1]["id"]))
        if len(ids) >= want:
            break
    return ids, pairs


def mcp_round(bins, root, ids, pairs, n, res):
    """Both servers at once; each kind of request alternates between them in batches of 20
    (the order flips every batch), so the machine's load drifts hit both alike."""
    S = {k: Mcp(b) for k, b in bins.items()}
    for s in S.values():
        s.init()
        for _ in range(10):  # warm-up: pool connection, page cache
            s.req("tools/call", {"name": "call_graph", "arguments": {"path": root, "symbolId": ids[0]}})

    def one(k, kind, i):
        if kind == "tools/list":
            return S[k].req("tools/list")[0]
        if kind == "call_graph":
            args = {"path": root, "symbolId": ids[i % len(ids)]}
        else:
            a, b = pairs[i % len(pairs)]
            args = {"path": root, "fromId": a, "toId": b}
        ms, r = S[k].req("tools/call", {"name": kind, "arguments": args})
        assert not r["result"].get("isError"), r
        return ms

    for kind in ("tools/list", "call_graph", "trace_path"):
        for batch in range(0, n, 20):
            order = list(bins) if (batch // 20) % 2 == 0 else list(reversed(list(bins)))
            for k in order:
                for i in range(batch, min(n, batch + 20)):
                    res[k][kind].append(one(k, kind, i))
    for s in S.values():
        s.close()


def start_to_list(binary):
    t0 = time.perf_counter()
    s = Mcp(binary)
    s.init()
    s.req("tools/list")
    ms = (time.perf_counter() - t0) * 1000
    s.close()
    return ms


def proc_ms(cmd):
    t0 = time.perf_counter()
    subprocess.run(cmd, capture_output=True, check=True)
    return (time.perf_counter() - t0) * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    bins = {"base": os.path.abspath(a.base), "new": os.path.abspath(a.new)}
    ids, pairs = symbols(bins["base"], a.root)
    assert ids, "no symbol with callees"
    res = {k: {"tools/list": [], "call_graph": [], "trace_path": [], "start": [], "calls": [],
               "help": []} for k in bins}
    load0 = os.getloadavg()[0]
    for rnd in range(a.rounds):
        order = ["base", "new"] if rnd % 2 == 0 else ["new", "base"]
        mcp_round(bins, a.root, ids, pairs, a.n, res)
        for _ in range(30):
            for k in order:
                res[k]["start"].append(start_to_list(bins[k]))
                res[k]["calls"].append(proc_ms([bins[k], "calls", ids[_ % len(ids)], "--json",
                                                "--root", a.root]))
                res[k]["help"].append(proc_ms([bins[k], "calls", "--help"]))
    load1 = os.getloadavg()[0]
    rows = [("tools/list round trip", "tools/list"), ("call_graph round trip", "call_graph"),
            ("trace_path round trip", "trace_path"),
            ("`loupe mcp` start to first tools/list answer", "start"),
            ("`loupe calls SYMBOL --json` process", "calls"), ("`loupe calls --help` process", "help")]
    lines = [f"# Tool table: nothing slower ({time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, "
             f"{os.cpu_count()} cores, load average {load0:.1f} at the start, {load1:.1f} at the end: "
             f"the machine is shared)", "",
             f"Root: {a.root} ({len(ids)} symbols with callees, {len(pairs)} trace pairs). "
             f"Base: {bins['base']}; new: {bins['new']}. {a.rounds} rounds, interleaved; MCP: "
             f"{a.n} requests of each kind per round and binary, one at a time, both servers running and "
             f"alternating in batches of 20; processes: 30 per round and binary, alternating.", "",
             "| measurement | base p50 ms | new p50 ms | p50 ratio new/base | base p95 ms | new p95 ms |",
             "|---|---:|---:|---:|---:|---:|"]
    for label, k in rows:
        b, n = res["base"][k], res["new"][k]
        lines.append(f"| {label} | {pct(b, 50):.3f} | {pct(n, 50):.3f} | "
                     f"{pct(n, 50) / pct(b, 50):.2f} | {pct(b, 95):.3f} | {pct(n, 95):.3f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if a.out:
        with open(a.out, "a") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
