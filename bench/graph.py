#!/usr/bin/env python3
"""bench/graph.py: the code graph's costs (never part of make test).

    bench/graph.py [--loupe BIN] [--corpora DIR] [--runs N] [--quick] [--out FILE]

1. Construction overhead: `loupe index` of each corpus with the graph (reference
   extraction + resolution) against the same binary with LOUPE_TEST_NO_GRAPH=1 (neither),
   median of N runs each, interleaved; target: at most +30% time.
2. call_graph at depth 3: `loupe calls ID --depth 3 --json` on 200 random symbols that have
   edges (wall time of the whole command, process start included); target: p95 under 10 ms.
3. detect_changes on a 20-file diff: a git repository of a corpus, 20 files edited inside
   functions, synced, then `loupe changes --json`; target: under 200 ms.
4. Incremental sync of a one-line edit against the full rebuild's graph time.

Corpora come from bench/quality/corpora.sh (LOUPE_CORPORA=DIR) plus the installed Go
standard library. Results go to bench/RESULTS-graph.md (the table) with date and cores.
"""
import argparse
import glob
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run(cmd, env=None, cwd=None, check=True):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if check and r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {r.stderr[-2000:]}")
    return dt, r


def env_for(home, **extra):
    e = dict(os.environ, LOUPE_HOME=home)
    e.pop("LOUPE_LOG", None)
    e.update(extra)
    return e


def overhead(loupe, corpus, runs, tmp, compare=None):
    """Wall and CPU (user + sys of the process) medians without and with the graph (and,
    with compare, with the graph built by another binary, interleaved with the others)."""
    import resource
    modes = ["none", "graph"] + (["compare"] if compare else [])
    times = {m: [] for m in modes}
    for i in range(runs):
        for mode in modes:
            home = os.path.join(tmp, f"oh-{mode}")
            shutil.rmtree(home, ignore_errors=True)
            extra = {"LOUPE_TEST_NO_GRAPH": "1"} if mode == "none" else {}
            binary = compare if mode == "compare" else loupe
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            dt, _ = run([binary, "index", corpus], env=env_for(home, **extra))
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            times[mode].append((dt, cpu))
            print(f"#   {os.path.basename(corpus)} run {i + 1} {mode}: wall {dt:.2f} s, cpu "
                  f"{cpu:.2f} s, load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    med = {m: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v))
           for m, v in times.items()}
    return med["none"], med["graph"], med.get("compare")


def db_of(home):
    return glob.glob(os.path.join(home, "roots", "*", "index.db"))[0]


def symbol_ids(home, n, seed):
    db = sqlite3.connect(f"file:{db_of(home)}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT DISTINCT f.path, s.qname, s.kind, s.ordinal FROM edges e JOIN files f ON"
        " f.fid = e.src_fid JOIN symbols s ON s.bid = f.bid AND s.ord = e.src_ord"
        " WHERE e.kind = 0 AND e.rule <> 0").fetchall()
    rng = random.Random(seed)
    rows = rng.sample(rows, min(n, len(rows)))
    return rows


def call_graph_latency(loupe, corpus, home, n=200):
    """Per call: the tool's own time (graph.call_graph log, us), the CPU time of the whole
    command (user + sys), and its wall time. The machine is shared: wall times carry the
    waiting for a core; CPU times do not."""
    import resource
    rows = symbol_ids(home, n, 7)
    env = env_for(home, LOUPE_LOG="info")
    tool, cpu, wall = [], [], []
    for path, qname, kind, ordinal in rows:
        _, r = run([loupe, "symbol", qname, "--json"], env=env_for(home), cwd=corpus, check=False)
        try:
            defs = [d for d in json.loads(r.stdout)["definitions"] if d["file"] == path]
        except (json.JSONDecodeError, KeyError):
            continue
        if not defs:
            continue
        sid = defs[0]["id"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        dt, r = run([loupe, "calls", sid, "--depth", "3", "--json"], env=env, cwd=corpus,
                    check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if r.returncode != 0:
            continue
        wall.append(dt * 1000)
        cpu.append((after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000)
        for l in r.stderr.splitlines():
            if "graph.call_graph" in l:
                tool.append(int(l.rsplit("us=", 1)[1]) / 1000)

    def pct(v, q):
        v = sorted(v)
        return v[max(0, int(len(v) * q) - 1)]
    return len(wall), {"tool": (statistics.median(tool), pct(tool, 0.95)),
                       "cpu": (statistics.median(cpu), pct(cpu, 0.95)),
                       "wall": (statistics.median(wall), pct(wall, 0.95))}


def changes_latency(loupe, corpus, tmp, nfiles=20):
    repo = os.path.join(tmp, "changes-repo")
    shutil.rmtree(repo, ignore_errors=True)
    shutil.copytree(corpus, repo)
    genv = dict(os.environ, GIT_AUTHOR_NAME="b", GIT_AUTHOR_EMAIL="b@example.com",
                GIT_COMMITTER_NAME="b", GIT_COMMITTER_EMAIL="b@example.com")
    for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "base"]):
        subprocess.run(cmd, cwd=repo, env=genv, check=True, capture_output=True)
    home = os.path.join(tmp, "changes-home")
    shutil.rmtree(home, ignore_errors=True)
    env = env_for(home)
    run([loupe, "index", repo], env=env)
    db = sqlite3.connect(f"file:{db_of(home)}?mode=ro", uri=True)
    # files with functions: edit the first line of a function body
    rows = db.execute(
        "SELECT f.path, min(s.start_line) FROM files f JOIN symbols s ON s.bid = f.bid"
        " WHERE s.kind IN (10, 11) GROUP BY f.path ORDER BY f.path").fetchall()
    rng = random.Random(3)
    chosen = rng.sample(rows, min(nfiles, len(rows)))
    for path, line in chosen:
        p = os.path.join(repo, path)
        with open(p, encoding="utf-8", errors="surrogateescape") as f:
            lines = f.read().split("\n")
        lines.insert(line, "")  # a blank line inside the function: a hunk, same symbols
        with open(p, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write("\n".join(lines))
    run([loupe, "sync", repo], env=env)
    times = []
    res = None
    for _ in range(5):
        dt, r = run([loupe, "changes", "--json"], env=env, cwd=repo)
        times.append(dt * 1000)
        res = json.loads(r.stdout)
    return statistics.median(times), res["summary"]


def sync_one_edit(loupe, corpus, tmp):
    repo = os.path.join(tmp, "sync-repo")
    shutil.rmtree(repo, ignore_errors=True)
    shutil.copytree(corpus, repo)
    home = os.path.join(tmp, "sync-home")
    shutil.rmtree(home, ignore_errors=True)
    env = env_for(home, LOUPE_LOG="info")
    _, r = run([loupe, "index", repo], env=env)
    full_ms = [l for l in r.stderr.splitlines() if "graph.update" in l]
    db = sqlite3.connect(f"file:{db_of(home)}?mode=ro", uri=True)
    path, line = db.execute(
        "SELECT f.path, s.start_line FROM files f JOIN symbols s ON s.bid = f.bid WHERE"
        " s.kind IN (10, 11) ORDER BY f.path LIMIT 1 OFFSET 40").fetchone()
    p = os.path.join(repo, path)
    with open(p, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    with open(p, "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(text + "\n")
    dts = []
    graph = []
    for i in range(3):
        with open(p, "a") as f:
            f.write("\n")
        dt, r = run([loupe, "sync", repo], env=env)
        dts.append(dt * 1000)
        graph += [l for l in r.stderr.splitlines() if "graph.update" in l]
    return statistics.median(dts), full_ms[-1] if full_ms else "", graph[-1] if graph else ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loupe", default=os.path.join(ROOT, "build", "loupe"))
    ap.add_argument("--corpora", default=os.environ.get("LOUPE_CORPORA",
                                                        os.path.join(ROOT, "bench", "corpora")))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--out", default=None)
    ap.add_argument("--only", action="append", default=[],
                    help="measure only this corpus (repeatable)")
    ap.add_argument("--overhead-only", action="store_true",
                    help="construction overhead only (no call_graph, changes, sync)")
    ap.add_argument("--compare", default=None,
                    help="another loupe binary: its graph build is timed too, interleaved")
    args = ap.parse_args()
    loupe = os.path.abspath(args.loupe)
    names = ["py-click", "ts-rxjs", "rust-regex", "java-util", "c-linux-lib"]
    if not args.quick:
        names.append("go-std")
    if args.only:
        names = args.only
    corpora = [(n, os.path.join(args.corpora, n)) for n in names
               if os.path.isdir(os.path.join(args.corpora, n))]
    if not corpora:
        sys.exit(f"no corpora under {args.corpora}: run bench/quality/corpora.sh first")
    tmp = tempfile.mkdtemp(prefix="loupe-bench-graph-")
    lines = []
    out = lines.append
    try:
        cmp_cols = " compared binary: wall / CPU overhead |" if args.compare else ""
        out("| corpus | wall without → with graph | wall overhead | CPU without → with |"
            " CPU overhead |" + cmp_cols)
        out("|---|---|---|---|---|" + ("---|" if args.compare else ""))
        compare = os.path.abspath(args.compare) if args.compare else None
        for name, path in corpora:
            (wn, cn), (wg, cg), c = overhead(loupe, path, args.runs, tmp, compare)
            extra = (f" {(c[0] / wn - 1) * 100:+.1f}% / {(c[1] / cn - 1) * 100:+.1f}% |"
                     if c else "")
            out(f"| {name} | {wn:.2f} → {wg:.2f} s | {(wg / wn - 1) * 100:+.1f}% | "
                f"{cn:.2f} → {cg:.2f} s | {(cg / cn - 1) * 100:+.1f}% |" + extra)
            print(lines[-1], flush=True)
        if not args.overhead_only:
            big = dict(corpora).get("go-std") or corpora[-1][1]
            home = os.path.join(tmp, "cg-home")
            run([loupe, "index", big], env=env_for(home))
            cnt, t = call_graph_latency(loupe, big, home)
            out("")
            out(f"call_graph depth 3 on {os.path.basename(big)}, {cnt} symbols (median / p95 ms): "
                f"tool {t['tool'][0]:.1f} / {t['tool'][1]:.1f}; whole command CPU "
                f"{t['cpu'][0]:.1f} / {t['cpu'][1]:.1f}; whole command wall {t['wall'][0]:.1f} / "
                f"{t['wall'][1]:.1f}")
            print(lines[-1], flush=True)
            med, summary = changes_latency(loupe, big, tmp)
            out(f"detect_changes, 20 edited files of {os.path.basename(big)}: median {med:.1f} ms "
                f"(whole `loupe changes` command); summary {json.dumps(summary)}")
            print(lines[-1], flush=True)
            med, full, inc = sync_one_edit(loupe, big, tmp)
            out(f"one-file sync of {os.path.basename(big)}: median {med:.0f} ms (whole command); "
                f"full graph: `{full.split('graph.update ')[-1]}`; incremental: "
                f"`{inc.split('graph.update ')[-1]}`")
            print(lines[-1], flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
