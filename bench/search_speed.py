#!/usr/bin/env python3
"""bench/search_speed.py: search latency by question length, and indexing, against rg,
ctags, codesearch and zoekt in the same run (never part of make test).

One corpus per run (go-std or linux, see bench/corpora.sh), on the tree in place:

  index      loupe cold index (wall, peak RSS, database size) in a fresh LOUPE_HOME, beside
             `ctags -R` (wall, RSS, tags size), codesearch `cindex` (trigram index: wall,
             RSS, index size) and `zoekt-index` when bench/speed/tools.sh could install it.
             --home DIR reuses an index already in DIR instead (no loupe index timing).
  ident      a fixed list of identifiers (bench/speed/idents-CORPUS.txt, written from the
             index on the first run and committed): `loupe search` process wall time and
             in-process timingMs, `rg -n -w`, `csearch -n '\\bIDENT\\b'`, `zoekt IDENT`.
  nl         fixed questions of 5, 20, 50, 100 and 300 words: the first N words of the
             hand-written issue texts with stack traces in bench/speed/issues-CORPUS.txt
             (original spacing and line breaks kept). `loupe search` warm (wall and
             timingMs), the MCP server's search_codebase on one connection (round trip),
             and `rg -c -i -w -F -e W...` over the question's distinct words as the same-run
             baseline. A question loupe refuses (today: more than 64 words) is counted as
             refused and, with --cut-words 64 (default), also measured cut to its first 64
             words, so the cost of long questions is visible before the cap goes.
  perf       with --perf N: `perf record` of the N slowest questions (each run in a loop),
             flat self-time per function, written to the results.

Every figure is the median/percentile over --reps repetitions of every query; warm cache (one
untimed pass first). The load average is printed at the start and the end.
--dump FILE writes each question's top-10 owners (rankings), so two binaries can be checked
for byte-identical answers: --compare OTHER.json.

usage: bench/search_speed.py --corpus go-std|linux [--root PATH] [--loupe build/loupe]
       [--home DIR] [--reps 5] [--rg-reps N] [--no-index] [--no-mcp] [--perf 3]
       [--json OUT] [--out bench/RESULTS-search-speed.md] [--dump FILE] [--compare FILE]
"""
import argparse
import datetime
import hashlib
import json
import os
import random
import re
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SPEED = os.path.join(HERE, "speed")
LENGTHS = (5, 20, 50, 100, 300)
sys.path.insert(0, os.path.join(HERE, "mcp"))


def log(msg):
    print(f"[search_speed {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return None
    k = (len(xs) - 1) * p / 100.0
    f, c = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[f] + (xs[c] - xs[f]) * (k - f)


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def run_measured(cmd, env=None, cwd=None):
    """Run cmd to completion; (wall s, peak RSS MiB of that child, stdout bytes, rc).
    run_measured.cpu is the child's user + system seconds (all its threads)."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as errf:
        p = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=errf)
        out = p.stdout.read()
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        run_measured.cpu = ru.ru_utime + ru.ru_stime
        rc = os.waitstatus_to_exitcode(status)
        if rc not in (0, 1):
            errf.seek(0)
            raise RuntimeError(f"{' '.join(cmd[:4])}... failed ({rc}): {errf.read().decode()[-800:]}")
    return wall, ru.ru_maxrss / 1024.0, out, rc


def child_cpu():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def timed(cmd, env=None):
    """Run cmd; (wall ms, CompletedProcess with .cpu_ms: the child's user + system time).
    CPU time is the figure that survives a loaded machine: wall time there is mostly waiting
    for a core."""
    c0 = child_cpu()
    t0 = time.perf_counter()
    r = subprocess.run(cmd, env=env, capture_output=True)
    wall = (time.perf_counter() - t0) * 1000.0
    r.cpu_ms = (child_cpu() - c0) * 1000.0
    return wall, r


def dir_size(path):
    total = 0
    for dp, _, fns in os.walk(path):
        for fn in fns:
            try:
                total += os.lstat(os.path.join(dp, fn)).st_size
            except OSError:
                pass
    return total


def tree_size(path):
    n = size = 0
    for dp, dns, fns in os.walk(path):
        for fn in fns:
            fp = os.path.join(dp, fn)
            if not os.path.islink(fp):
                n += 1
                size += os.path.getsize(fp)
    return n, size


# ---------------------------------------------------------------- questions and identifiers

def load_issues(corpus):
    path = os.path.join(SPEED, f"issues-{corpus}.txt")
    with open(path) as f:
        text = f.read()
    docs = []
    for part in re.split(r"^=== ", text, flags=re.M)[1:]:
        name, body = part.split("\n", 1)
        docs.append((name.strip(), body))
    return docs


def first_words(text, n):
    """The first n whitespace-separated words of text, with the text's own spacing."""
    ms = list(re.finditer(r"\S+", text))
    if len(ms) < n:
        raise SystemExit(f"a question has {len(ms)} words, fewer than {n}")
    return text[ms[0].start():ms[n - 1].end()]


def questions(corpus):
    out = []
    for name, body in load_issues(corpus):
        for n in LENGTHS:
            out.append({"id": f"{name}/{n}", "words": n, "text": first_words(body, n)})
    return out


def rg_words(text):
    seen, out = set(), []
    for w in re.findall(r"[A-Za-z_][A-Za-z0-9_]{2,}", text):
        if w.lower() not in seen:
            seen.add(w.lower())
            out.append(w)
    return out


def find_db(home, root):
    base = os.path.join(home, "roots")
    for d in os.listdir(base):
        with open(os.path.join(base, d, "root")) as f:
            if f.read().strip() == os.path.realpath(root):
                return os.path.join(base, d, "index.db")
    raise SystemExit(f"no index for {root} in {home}")


def identifiers(corpus, db, n=25, seed=7):
    path = os.path.join(SPEED, f"idents-{corpus}.txt")
    if os.path.exists(path):
        with open(path) as f:
            return [l.strip() for l in f if l.strip() and not l.startswith("#")]
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    # kinds 10 (function) and 11 (method): lp_symkind in src/lang/lang.h (as bench/query.py)
    names = [r[0] for r in con.execute(
        "SELECT DISTINCT name FROM symbols WHERE kind IN (10, 11) AND length(name) >= 6 "
        "ORDER BY name")]
    con.close()
    picked = random.Random(seed).sample(names, min(n, len(names)))
    with open(path, "w") as f:
        f.write(f"# {n} function/method names sampled from the {corpus} index (seed {seed}); fixed\n")
        f.write("\n".join(picked) + "\n")
    log(f"wrote {path}")
    return picked


# ---------------------------------------------------------------- index

def bench_index(args, root, work):
    res = {}
    loupe = os.path.abspath(args.loupe)
    extra = ["--max-total-bytes", "4000000000"] if args.corpus == "linux" else []
    if not args.home:
        home = os.path.join(work, "home")
        shutil.rmtree(home, ignore_errors=True)
        log("loupe index (cold) ...")
        wall, rss, out, _ = run_measured([loupe, "index", root, "--json", "--quiet"] + extra,
                                         env=dict(os.environ, LOUPE_HOME=home))
        rep = json.loads(out)
        res["loupe"] = {"s": wall, "cpu": run_measured.cpu, "rss": rss, "bytes": dir_size(home),
                        "symbols": rep.get("symbols")}
        args.home = home
    log("ctags -R ...")
    tags = os.path.join(work, "tags")
    wall, rss, _, _ = run_measured(["ctags", "-R", "-f", tags, root])
    res["ctags"] = {"s": wall, "cpu": run_measured.cpu, "rss": rss, "bytes": os.path.getsize(tags)}
    os.remove(tags)
    log("cindex ...")
    cs = os.path.join(work, "csearchindex")
    if os.path.exists(cs):
        os.remove(cs)
    wall, rss, _, _ = run_measured(["cindex", root], env=dict(os.environ, CSEARCHINDEX=cs))
    res["cindex"] = {"s": wall, "cpu": run_measured.cpu, "rss": rss, "bytes": os.path.getsize(cs)}
    zi = os.path.join(ROOT, "bench/work/gobin/zoekt-index")
    if os.path.exists(zi):
        log("zoekt-index ...")
        zd = os.path.join(work, "zoekt")
        shutil.rmtree(zd, ignore_errors=True)
        wall, rss, _, _ = run_measured([zi, "-index", zd, root])
        res["zoekt"] = {"s": wall, "cpu": run_measured.cpu, "rss": rss, "bytes": dir_size(zd)}
    return res


# ---------------------------------------------------------------- queries

def loupe_search(loupe, env, root, q):
    wall, r = timed([loupe, "search", "--json", "--limit", "10", "--path", root, "--", q], env)
    loupe_search.cpu_ms = r.cpu_ms
    if r.returncode != 0:
        err = r.stderr.decode(errors="replace").strip().splitlines()
        return wall, None, None, (err[-1] if err else f"exit {r.returncode}")
    j = json.loads(r.stdout)
    tm = j.get("timingMs")
    if isinstance(tm, dict):
        tm = tm.get("total")
    owners = []
    for g in j.get("results", []):
        o = g.get("owner") or {}
        owners.append([o.get("id"), o.get("file") or g.get("path"), o.get("startLine"),
                       g.get("score"), g.get("channels"),
                       hashlib.sha1(json.dumps({k: v for k, v in g.items() if k != "freshness"},
                                               sort_keys=True).encode()).hexdigest()[:12]])
    return wall, tm, owners, None


def rg_question(rg, root, q):
    """rg over the question's distinct words (the same-run baseline): (wall ms, CPU ms)."""
    cmd = rg + ["-c", "-i", "-w", "-F"]
    for wd in rg_words(q):
        cmd += ["-e", wd]
    w, r = timed(cmd + ["--", root])
    return w, r.cpu_ms


def rg_only(args, root, qs):
    """The rg baseline of the questions alone (no index needed): --rg-only."""
    rg = ["rg", "--no-ignore-vcs"]
    subprocess.run(rg + ["-c", "warmup_token_xyz", root], capture_output=True)
    nl = {n: {"rg": [], "rg_cpu": []} for n in LENGTHS}
    for _ in range(args.rg_reps):
        for x in qs:
            w, cpu = rg_question(rg, root, x["text"])
            nl[x["words"]]["rg"].append(w)
            nl[x["words"]]["rg_cpu"].append(cpu)
    return nl


def bench_queries(args, root, work, idents, qs):
    loupe = os.path.abspath(args.loupe)
    env = dict(os.environ, LOUPE_HOME=args.home)
    cs_env = dict(os.environ, CSEARCHINDEX=os.path.join(work, "csearchindex"))
    have_cs = os.path.exists(cs_env["CSEARCHINDEX"])
    zoekt = os.path.join(ROOT, "bench/work/gobin/zoekt")
    zdir = os.path.join(work, "zoekt")
    have_zoekt = os.path.exists(zoekt) and os.path.isdir(zdir)
    rg = ["rg", "--no-ignore-vcs"]  # the corpora sit under this repository's ignored bench/corpora
    log("warm-up ...")
    subprocess.run(rg + ["-c", "warmup_token_xyz", root], capture_output=True)
    for q in idents[:3] + [x["text"] for x in qs[:5]]:
        loupe_search(loupe, env, root, q)

    R = {"ident": {k: [] for k in ("loupe", "loupe_in", "loupe_cpu", "rg", "rg_cpu", "csearch",
                                   "csearch_cpu", "zoekt", "zoekt_cpu")},
         "nl": {}, "errors": {}, "rankings": {}, "per_q": {}, "phases": {}}
    log(f"identifiers x{args.reps} ...")
    for _ in range(args.reps):
        for q in idents:
            w, tm, owners, err = loupe_search(loupe, env, root, q)
            if err:
                raise SystemExit(f"loupe search {q!r}: {err}")
            R["ident"]["loupe"].append(w)
            R["ident"]["loupe_cpu"].append(loupe_search.cpu_ms)
            if tm is not None:
                R["ident"]["loupe_in"].append(tm)
            R["rankings"]["ident:" + q] = owners
            for name, cmd, e, ok in (("rg", rg + ["-n", "-w", "--", q, root], None, True),
                                     ("csearch", ["csearch", "-n", rf"\b{q}\b"], cs_env, have_cs),
                                     ("zoekt", [zoekt, "-index_dir", zdir, q], None, have_zoekt)):
                if ok:
                    w, r = timed(cmd, e)
                    R["ident"][name].append(w)
                    R["ident"][name + "_cpu"].append(r.cpu_ms)

    conn = None
    if not args.no_mcp:
        try:
            from run import Conn  # bench/mcp/run.py
            conn = Conn(loupe, env)
        except Exception as e:  # reported, not fatal: the CLI figures stand alone
            log(f"MCP unavailable: {e}")
    for n in LENGTHS:
        R["nl"][n] = {k: [] for k in ("loupe", "loupe_in", "loupe_cpu", "mcp", "rg", "rg_cpu",
                                      "cut", "cut_in", "cut_cpu")}
    log(f"questions x{args.reps} ...")
    for rep in range(args.reps):
        for x in qs:
            n, q = x["words"], x["text"]
            d = R["nl"][n]
            w, tm, owners, err = loupe_search(loupe, env, root, q)
            key = x["id"]
            if err:
                R["errors"][key] = err
                if args.cut_words and n > args.cut_words:
                    cq = first_words(q, args.cut_words)
                    w2, tm2, owners2, err2 = loupe_search(loupe, env, root, cq)
                    if err2:
                        R["errors"][key + " (cut)"] = err2
                    else:
                        d["cut"].append(w2)
                        d["cut_cpu"].append(loupe_search.cpu_ms)
                        d["cut_in"].append(tm2 if tm2 is not None else w2)
                        R["rankings"]["cut:" + key] = owners2
                        R["per_q"].setdefault("cut:" + key, []).append(w2)
            else:
                d["loupe"].append(w)
                d["loupe_cpu"].append(loupe_search.cpu_ms)
                if tm is not None:
                    d["loupe_in"].append(tm)
                R["rankings"]["nl:" + key] = owners
                R["per_q"].setdefault("nl:" + key, []).append(w)
            if conn is not None:
                ms, j = conn.timed("tools/call", {"name": "search_codebase",
                                                 "arguments": {"path": root, "query": q}})
                if not (j.get("error") or (j.get("result") or {}).get("isError")):
                    d["mcp"].append(ms)
            if rep < args.rg_reps and not args.rg_from:
                w, cpu = rg_question(rg, root, q)
                d["rg"].append(w)
                d["rg_cpu"].append(cpu)
    if args.rg_from:
        with open(args.rg_from) as f:
            prev = json.load(f)["nl"]
        for n in LENGTHS:
            R["nl"][n]["rg"] = prev[str(n)]["rg"]
            R["nl"][n]["rg_cpu"] = prev[str(n)]["rg_cpu"]
    if conn is not None:
        conn.close()
    # One pass with the engine's own debug timing (search.timing / search.decorate lines).
    log("phase timing pass ...")
    denv = dict(env, LOUPE_LOG="debug")
    for n in LENGTHS:
        R["phases"][n] = []
    for x in qs:
        q = x["text"]
        if x["id"] in R["errors"]:
            if not (args.cut_words and x["words"] > args.cut_words):
                continue
            q = first_words(q, args.cut_words)
        _, r = timed([loupe, "search", "--json", "--limit", "10", "--path", root, "--", q], denv)
        ph = {}
        for line in r.stderr.decode(errors="replace").splitlines():
            for k, v in re.findall(r"(\w+)=(?:\d+/)?([\d.]+)(?:ms)?(?=\s|$)", line):
                if "search.timing" in line or ("search.decorate" in line and k == "ms"):
                    ph["decorate" if k == "ms" else k] = float(v)
        ph["cpu_process"] = r.cpu_ms
        R["phases"][x["words"]].append(ph)
    return R


# ---------------------------------------------------------------- perf

def perf_profile(args, root, R, qs, out_dir):
    """perf record the slowest questions; flat self time per symbol (top 25)."""
    loupe = os.path.abspath(args.loupe)
    env = dict(os.environ, LOUPE_HOME=args.home)
    by = sorted(((pct(v, 50), k) for k, v in R["per_q"].items()), reverse=True)[:args.perf]
    texts = {("nl:" + x["id"]): x["text"] for x in qs}
    texts.update({("cut:" + x["id"]): first_words(x["text"], args.cut_words)
                  for x in qs if args.cut_words and x["words"] > args.cut_words})
    reports = []
    for med, key in by:
        q = texts[key]
        data = os.path.join(out_dir, re.sub(r"[^A-Za-z0-9]+", "_", key) + ".perf")
        script = os.path.join(out_dir, "loop.sh")
        with open(script, "w") as f:
            f.write("#!/bin/sh\nfor i in 1 2 3 4 5 6 7 8 9 10; do \"$@\" >/dev/null; done\n")
        os.chmod(script, 0o755)
        subprocess.run(["perf", "record", "-q", "-F", "1999", "-g", "-o", data, "--", script,
                        loupe, "search", "--json", "--limit", "10", "--path", root, "--", q],
                       env=env, capture_output=True, check=True)
        rep = subprocess.run(["perf", "report", "-i", data, "--stdio", "--no-children",
                              "-g", "none", "--sort", "dso,sym", "--percent-limit", "1.5",
                              "--comm", "loupe"],
                             capture_output=True, text=True).stdout
        rows = [l for l in rep.splitlines() if l.strip() and not l.startswith("#")]
        reports.append((key, med, rows[:25]))
    return reports


# ---------------------------------------------------------------- report

def f1(x):
    return "-" if x is None else f"{x:.1f}"


def report_index(args, root, idx, load0, load1):
    return report(args, root, idx, None, None, [], load0, load1)


def report(args, root, idx, R, nq, perf_rows, load0, load1):
    # The commit of the tree the binary was built in (build/loupe -> its repository).
    src = os.path.dirname(os.path.dirname(os.path.realpath(args.loupe)))
    commit = subprocess.run(["git", "-C", src, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip() or "unknown"
    files, size = tree_size(root)
    L = []
    L.append(f"### {args.corpus}: {datetime.datetime.utcnow():%Y-%m-%d %H:%M} UTC, "
             f"{os.cpu_count()} cores, loupe {commit}, load average {load0} at the start, "
             f"{load1} at the end")
    L.append("")
    L.append(f"`{' '.join(sys.argv)}`; tree: {files} files, {size / 1e6:.0f} MB; "
             f"{args.reps} repetitions of every query (rg for questions: {args.rg_reps}).")
    L.append("")
    if idx:
        L.append("| indexer | wall s | CPU s (user+sys) | peak RSS MiB | index MB | index / tree | wall / loupe | CPU / loupe |")
        L.append("|---|---|---|---|---|---|---|---|")
        base = idx.get("loupe", {}).get("s")
        cbase = idx.get("loupe", {}).get("cpu")
        for k in ("loupe", "ctags", "cindex", "zoekt"):
            if k in idx:
                v = idx[k]
                ratio = f"{v['s'] / base:.2f}" if base else "-"
                cratio = f"{v['cpu'] / cbase:.2f}" if cbase else "-"
                L.append(f"| {k} | {v['s']:.1f} | {v['cpu']:.1f} | {v['rss']:.0f} | "
                         f"{v['bytes'] / 1e6:.1f} | {v['bytes'] / size:.2f}x | {ratio} | {cratio} |")
        if "zoekt" not in idx:
            L.append("| zoekt | not installed (bench/speed/tools.sh: the Go module proxy refused "
                     "github.com/sourcegraph/zoekt) | | | | |")
        L.append("")
    if R is None:
        return "\n".join(L) + "\n"
    I = R["ident"]
    L.append(f"Identifier queries ({nq['ident']} fixed names, bench/speed/idents-{args.corpus}.txt), ms:")
    L.append("")
    L.append("| tool | wall p50 | wall p95 | wall p95 / loupe | CPU p50 | CPU p95 | CPU p95 / loupe |")
    L.append("|---|---|---|---|---|---|---|")
    lp95, lc95 = pct(I["loupe"], 95), pct(I["loupe_cpu"], 95)
    for k, label in (("loupe", "loupe search (process)"), ("loupe_in", "loupe in-process timingMs"),
                     ("rg", "rg -n -w"), ("csearch", "csearch -n \\bIDENT\\b (trigram)"),
                     ("zoekt", "zoekt")):
        if I[k]:
            cpu = I.get(k + "_cpu") or []
            L.append(f"| {label} | {f1(pct(I[k], 50))} | {f1(pct(I[k], 95))} | "
                     f"{pct(I[k], 95) / lp95:.2f}x | {f1(pct(cpu, 50))} | {f1(pct(cpu, 95))} | "
                     + (f"{pct(cpu, 95) / lc95:.2f}x |" if cpu and lc95 else "- |"))
    L.append("")
    L.append(f"Questions ({nq['docs']} issue texts of bench/speed/issues-{args.corpus}.txt cut to "
             "N words), ms. `refused`: questions loupe answered with an error; `cut to "
             f"{args.cut_words}`: the refused ones sent as their first {args.cut_words} words:")
    L.append("")
    L.append("| words | answered | loupe p50 / p95 | in-process p50 / p95 | loupe CPU p50 / p95 | MCP p50 / p95 | "
             f"refused | cut to {args.cut_words}: p50 / p95 (CPU p95) | rg -w -F words p50 / p95 (CPU p95) | "
             "rg p95 / loupe p95 |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    for n in LENGTHS:
        d = R["nl"][n]
        refused = sum(1 for k in R["errors"] if k.endswith(f"/{n}"))  # distinct questions
        lp = pct(d["loupe"], 95) or pct(d["cut"], 95)
        ratio = f"{pct(d['rg'], 95) / lp:.1f}x" if lp and d["rg"] else "-"
        L.append(f"| {n} | {len(d['loupe']) // args.reps}/{nq['docs']} | "
                 f"{f1(pct(d['loupe'], 50))} / {f1(pct(d['loupe'], 95))} | "
                 f"{f1(pct(d['loupe_in'], 50))} / {f1(pct(d['loupe_in'], 95))} | "
                 f"{f1(pct(d['loupe_cpu'], 50))} / {f1(pct(d['loupe_cpu'], 95))} | "
                 f"{f1(pct(d['mcp'], 50))} / {f1(pct(d['mcp'], 95))} | "
                 f"{refused} | {f1(pct(d['cut'], 50))} / {f1(pct(d['cut'], 95))} "
                 f"({f1(pct(d['cut_cpu'], 95))}) | "
                 f"{f1(pct(d['rg'], 50))} / {f1(pct(d['rg'], 95))} ({f1(pct(d['rg_cpu'], 95))}) | {ratio} |")
    L.append("")
    L.append("Where the time goes, one pass with LOUPE_LOG=debug (medians over the questions of each "
             "length; wall ms except the cpu_ columns; the refused ones cut as above):")
    L.append("")
    cols = ("phrases", "lexical", "exact", "fuse", "snippets", "decorate", "cpu_lexical",
            "cpu_total", "cpu_process")
    L.append("| words | " + " | ".join(cols) + " |")
    L.append("|---" * (len(cols) + 1) + "|")
    for n in LENGTHS:
        rows = R["phases"].get(n) or []
        L.append(f"| {n} | " + " | ".join(f1(pct([r[c] for r in rows if c in r], 50)) for c in cols)
                 + " |")
    errs = sorted(set(R["errors"].values()))
    if errs:
        L.append("")
        L.append("Errors returned: " + "; ".join(f"`{e}`" for e in errs))
    if perf_rows:
        L.append("")
        for key, med, rows in perf_rows:
            L.append(f"perf, `{key}` (median {med:.0f} ms), self time, ≥1.5%:")
            L.append("")
            L.append("```")
            L.extend(rows)
            L.append("```")
            L.append("")
    return "\n".join(L) + "\n"


def compare(a_path, b):
    with open(a_path) as f:
        a = json.load(f)["rankings"]
    diff = [k for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)]
    return diff


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", required=True, choices=("go-std", "linux"))
    ap.add_argument("--root", default=None, help="default bench/corpora/CORPUS")
    ap.add_argument("--loupe", default=os.path.join(ROOT, "build/loupe"))
    ap.add_argument("--home", default=None, help="LOUPE_HOME that already has the index")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rg-reps", type=int, default=None)
    ap.add_argument("--cut-words", type=int, default=64)
    ap.add_argument("--no-index", action="store_true",
                    help="no indexing at all (needs --home); csearch/zoekt are queried only if "
                         "their indexes exist under bench/work/speed/CORPUS from an earlier run")
    ap.add_argument("--no-mcp", action="store_true")
    ap.add_argument("--index-only", action="store_true", help="index figures, no queries")
    ap.add_argument("--rg-only", action="store_true",
                    help="only the rg baseline of the questions, into --json (no index needed)")
    ap.add_argument("--rg-from", default=None,
                    help="take the questions' rg baseline from this --rg-only JSON")
    ap.add_argument("--perf", type=int, default=0, help="profile the N slowest questions")
    ap.add_argument("--json", default=None)
    ap.add_argument("--out", default=None, help="append the Markdown section to this file")
    ap.add_argument("--dump", default=None, help="write rankings (top-10 owners) here")
    ap.add_argument("--compare", default=None, help="rankings JSON of another run to diff")
    args = ap.parse_args()
    args.rg_reps = args.reps if args.rg_reps is None else args.rg_reps
    if args.home:
        args.home = os.path.abspath(args.home)
    root = os.path.realpath(args.root or os.path.join(ROOT, "bench/corpora", args.corpus))
    if not os.path.isdir(root):
        raise SystemExit(f"{root} missing: run bench/corpora.sh")
    for t in ("rg", "ctags", "cindex", "csearch"):
        if not shutil.which(t):
            raise SystemExit(f"{t} missing: run bench/speed/tools.sh")
    work = os.path.join(ROOT, "bench/work/speed", args.corpus)
    os.makedirs(work, exist_ok=True)
    load0 = loadavg()
    log(f"load average {load0}")
    if args.rg_only:
        nl = rg_only(args, root, questions(args.corpus))
        for n in LENGTHS:
            log(f"{n} words: rg wall p50 {f1(pct(nl[n]['rg'], 50))} p95 {f1(pct(nl[n]['rg'], 95))}"
                f" CPU p95 {f1(pct(nl[n]['rg_cpu'], 95))}")
        with open(args.json, "w") as f:
            json.dump({"nl": nl, "load": [load0, loadavg()]}, f, indent=1)
        return
    idx = {}
    if not args.no_index:
        idx = bench_index(args, root, work)
    elif not args.home:
        raise SystemExit("--no-index needs --home with an index of the corpus")
    if args.index_only:
        text = report_index(args, root, idx, load0, loadavg())
        print(text)
        if args.out:
            with open(args.out, "a") as f:
                f.write("\n" + text)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"index": idx}, f, indent=1)
        return
    db = find_db(args.home, root)
    idents = identifiers(args.corpus, db)
    qs = questions(args.corpus)
    R = bench_queries(args, root, work, idents, qs)
    perf_rows = perf_profile(args, root, R, qs, work) if args.perf else []
    load1 = loadavg()
    text = report(args, root, idx, R, {"ident": len(idents), "docs": len(qs) // len(LENGTHS)},
                  perf_rows, load0, load1)
    print(text)
    if args.out:
        with open(args.out, "a") as f:
            f.write("\n" + text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"index": idx, "ident": R["ident"], "nl": R["nl"], "errors": R["errors"],
                       "per_q": R["per_q"], "phases": R["phases"]}, f, indent=1)
    if args.dump:
        with open(args.dump, "w") as f:
            json.dump({"rankings": R["rankings"]}, f, indent=1, sort_keys=True)
    if args.compare:
        diff = compare(args.compare, R["rankings"])
        print(f"rankings: {len(diff)} of {len(R['rankings'])} differ from {args.compare}"
              + (": " + ", ".join(diff[:20]) if diff else ""))
        if diff:
            sys.exit(3)


if __name__ == "__main__":
    main()
