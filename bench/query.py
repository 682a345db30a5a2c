#!/usr/bin/env python3
"""bench/query.py: query latency of loupe against ripgrep on the same tree.

50 fixed queries per corpus: 25 identifier queries (function/method names sampled
deterministically from the index) and 25 natural-language questions (the corpus's
hand-written quality tasks when it has them, else a fixed list). Each query runs
--reps times. Measured:
  - loupe: wall time of the `loupe search --json` process (process start, database open,
    search, output) and the in-process `timingMs` when the answer has it;
  - ripgrep: `rg -n -w IDENT ROOT` wall time for the identifier queries (the tool an agent
    would otherwise call), warm cache.
Reports p50/p95 and the ratio rg / loupe for identifier queries.

Usage: bench/query.py --corpus NAME=PATH [--home DIR] [--reps 3] [--loupe build/loupe]
                      [--json OUT] [--out RESULTS.md]
"""
import argparse
import datetime
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

GENERIC_NL = [
    "where is the configuration loaded from a file", "how are errors reported to the caller",
    "where do we parse command line arguments", "how is a connection opened and closed",
    "where is memory allocated for a buffer", "how are strings compared case-insensitively",
    "where is the cache invalidated", "how does the retry loop back off",
    "where are timeouts enforced", "how is input validated before use",
    "where is the hash of the content computed", "how are files read from disk",
    "where is the lock taken before writing", "how are results sorted",
    "where is the log message formatted", "how are environment variables read",
    "where is the iterator advanced", "how is the tree traversed",
    "where do we encode to json", "how is the user authenticated",
    "where is the list deduplicated", "how are numbers parsed from text",
    "where is the temporary directory created", "how does shutdown wait for workers",
    "where is the checksum verified",
]


def percentile(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * p / 100.0
    f, c = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[f] + (xs[c] - xs[f]) * (k - f)


def timed(cmd, env=None):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, errors="replace")
    return time.perf_counter() - t0, r


def find_db(home, root):
    base = os.path.join(home, "roots")
    for d in os.listdir(base):
        with open(os.path.join(base, d, "root")) as f:
            if f.read().strip() == os.path.realpath(root):
                return os.path.join(base, d, "index.db")
    raise SystemExit(f"no index for {root} in {home}")


def identifier_queries(db, n, seed=7):
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    # kinds 10 (function) and 11 (method): see lp_symkind in src/lang/lang.h
    names = [r[0] for r in con.execute(
        "SELECT DISTINCT name FROM symbols WHERE kind IN (10, 11) AND length(name) >= 6 "
        "ORDER BY name")]
    con.close()
    rnd = random.Random(seed)
    return rnd.sample(names, min(n, len(names)))


def nl_queries(corpus, n):
    path = os.path.join(HERE, "quality", "tasks", f"{corpus}.jsonl")
    qs = []
    if os.path.exists(path):
        with open(path) as f:
            qs = [json.loads(line)["query"] for line in f if line.strip()]
    qs = (qs + GENERIC_NL)[:n]
    return qs


def bench(name, root, args):
    loupe = os.path.abspath(args.loupe)
    home = args.home or tempfile.mkdtemp(prefix="loupe-qbench-")
    env = dict(os.environ, LOUPE_HOME=home)
    st, r = timed([loupe, "status", root, "--json", "--no-fresh"], env)
    if r.returncode != 0:
        print(f"[{name}] indexing {root} ...", file=sys.stderr, flush=True)
        subprocess.run([loupe, "index", root, "--quiet"] + args.index_args, env=env, check=True)
    db = find_db(home, root)
    idents = identifier_queries(db, 25)
    nls = nl_queries(name, 25)
    # warm up: page cache for rg and the database
    subprocess.run(["rg", "-n", "-w", "--no-ignore-vcs", "--quiet", "warmup_token_xyz", root],
                   capture_output=True)
    for q in (idents + nls)[:5]:
        timed([loupe, "search", "--json", "--path", root, q], env)
    res = {"ident": [], "ident_in": [], "nl": [], "nl_in": [], "rg": [], "rg_empty": []}
    for _ in range(args.reps):
        for kind, qs in (("ident", idents), ("nl", nls)):
            for q in qs:
                wall, r = timed([loupe, "search", "--json", "--limit", "10", "--path", root, "--", q], env)
                if r.returncode != 0:
                    raise SystemExit(f"loupe search failed for {q!r}: {r.stderr}")
                res[kind].append(wall * 1000)
                tm = json.loads(r.stdout).get("timingMs")
                if isinstance(tm, dict):
                    tm = tm.get("total")
                if tm is not None:
                    res[kind + "_in"].append(float(tm))
        for q in idents:
            # --no-ignore-vcs: the corpora live under this repository's bench/corpora/, which
            # its .gitignore lists; without it rg searches nothing (--no-ignore-parent does not
            # help with rg 13). A search that finds no file is refused below.
            wall, r = timed(["rg", "-n", "-w", "--no-ignore-vcs", "--", q, root])
            if not r.stdout:
                res["rg_empty"].append(q)
            res["rg"].append(wall * 1000)
    if not args.home:
        subprocess.run(["rm", "-rf", home])
    out = {"name": name, "queries": len(idents) + len(nls), "reps": args.reps,
           "rg_empty": sorted(set(res.pop("rg_empty")))}
    if len(out["rg_empty"]) > len(idents) // 2:
        raise SystemExit(f"rg found nothing for most identifiers in {root}: check its ignore rules")
    for k, v in res.items():
        out[k + "_p50"] = percentile(v, 50) if v else None
        out[k + "_p95"] = percentile(v, 95) if v else None
    out["rg_over_loupe_p95"] = out["rg_p95"] / out["ident_p95"]
    out["rg_over_loupe_p50"] = out["rg_p50"] / out["ident_p50"]
    return out


def fmt(x):
    return "-" if x is None else f"{x:.1f}"


def table(rows):
    lines = [
        "| corpus | identifier p50 / p95 ms | (in-process) | NL p50 / p95 ms | (in-process) | rg -w p50 / p95 ms | rg / loupe p50 | rg / loupe p95 |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['name']} | {fmt(r['ident_p50'])} / {fmt(r['ident_p95'])} | {fmt(r['ident_in_p50'])} / {fmt(r['ident_in_p95'])} |"
            f" {fmt(r['nl_p50'])} / {fmt(r['nl_p95'])} | {fmt(r['nl_in_p50'])} / {fmt(r['nl_in_p95'])} |"
            f" {fmt(r['rg_p50'])} / {fmt(r['rg_p95'])} | {r['rg_over_loupe_p50']:.1f}x | {r['rg_over_loupe_p95']:.1f}x |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", action="append", required=True, help="name=path")
    ap.add_argument("--home", default=None, help="existing LOUPE_HOME to reuse")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--loupe", default=os.path.join(ROOT, "build/loupe"))
    ap.add_argument("--index-arg", action="append", default=[], dest="index_args")
    ap.add_argument("--json", default=None)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    rows = [bench(*spec.split("=", 1), args) for spec in args.corpus]
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    text = (f"### Query latency ({datetime.date.today()}, {os.cpu_count()} cores, loupe {commit}, "
            f"50 queries x {args.reps}; process wall time, warm cache)\n\n" + table(rows) + "\n")
    print(text)
    if args.out:
        with open(args.out, "a") as f:
            f.write("\n" + text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
