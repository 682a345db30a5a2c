#!/usr/bin/env python3
"""The development kit of real questions (../shared/data/devtasks) against loupe and plain BM25.

The kit (its README is the contract) holds 278 tasks on four real Python repositories: SWE-QA
style repository questions and real commit subjects, each with gold files and gold functions,
and git bundles with exactly the trees they are asked against. This runner

1. unpacks every needed tree once (bench/work/devkit/trees/<repo>/<tree>),
2. measures the kit's BM25 baseline in the same run (the README's definition: one unit per
   function, method, class and module-level assignment of non-test, non-vendored .py files;
   unit text = qualname + path + source lines, a class only its first 3 lines; tokens
   `[A-Za-z][a-z]+|[A-Z]+(?![a-z])|\\d+` lower-cased minus a short stop list; k1 1.2, b 0.75;
   query = first 4000 characters),
3. indexes each tree with loupe into a private LOUPE_HOME and asks every question through the
   CLI as an agent would (`loupe search --json --limit N --path TREE -- QUERY`),
4. scores both with the kit's metrics: file@k (first k distinct files), func@k (a result equal
   to a gold (file, qualname) or (file, owner) pair, exact), MRR(file)@10; per source, per
   repository, and the tasks only one side found.

Python 3 standard library only. `devkit.py --help` for the options.
"""
import argparse
import ast
import collections
import concurrent.futures
import datetime
import json
import math
import os
import platform
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
KIT = os.environ.get("LOUPE_DEVKIT", os.path.join(os.path.dirname(TOP), "shared", "data", "devtasks"))
WORK = os.path.join(TOP, "bench", "work", "devkit")
KS_FILE = (1, 5, 10)
KS_FUNC = (1, 5, 10)

BASE_STOP = frozenset("""a an and are as at be by for from has have how in is it its of on or that
the this to was were what when where which who why will with does do""".split())
BASE_TOKEN = re.compile(r"[A-Za-z][a-z]+|[A-Z]+(?![a-z])|\d+")
TEST_DIRS = {"test", "tests", "testing"}
VENDOR_DIRS = {"vendor", "_vendor", "packages", "extern", "third_party"}
SKIP_FILES = {"setup.py", "noxfile.py", "fabfile.py"}


def die(msg):
    sys.stderr.write("devkit.py: %s\n" % msg)
    sys.exit(2)


# ---------------------------------------------------------------------------------------------
# Tasks and trees


def load_tasks(args):
    path = os.path.join(KIT, "tasks.jsonl")
    if not os.path.exists(path):
        die("no kit at %s (set LOUPE_DEVKIT to the devtasks folder)" % KIT)
    tasks = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                tasks.append(json.loads(line))
    if args.source:
        tasks = [t for t in tasks if t["source"] in args.source]
    if args.repo:
        tasks = [t for t in tasks if any(r in t["repo"] for r in args.repo)]
    if args.max_tasks:
        per = collections.Counter()
        kept = []
        for t in tasks:
            key = (t["repo"], t["source"])
            if per[key] < args.max_tasks:
                per[key] += 1
                kept.append(t)
        tasks = kept
    return tasks


def tree_dir(t):
    return os.path.join(WORK, "trees", t["repo"].replace("/", "+"), t["tree"])


def ensure_trees(tasks):
    """Unpack each needed tree once from its bundle (git archive of the tree hash)."""
    by_bundle = collections.defaultdict(set)
    for t in tasks:
        by_bundle[t["bundle"]].add(t["tree"])
    for bundle, trees in sorted(by_bundle.items()):
        git_dir = os.path.join(WORK, "git", bundle.replace(".bundle", ".git"))
        if not os.path.isdir(git_dir):
            os.makedirs(os.path.dirname(git_dir), exist_ok=True)
            subprocess.run(["git", "clone", "-q", "--bare", os.path.join(KIT, bundle), git_dir],
                           check=True)
        for tree in sorted(trees):
            d = os.path.join(WORK, "trees", bundle.replace(".bundle", ""), tree)
            if os.path.isdir(d) and os.path.exists(os.path.join(d, ".unpacked")):
                continue
            os.makedirs(d, exist_ok=True)
            arch = subprocess.run(["git", "--git-dir", git_dir, "archive", tree],
                                  capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", d], input=arch, check=True)
            open(os.path.join(d, ".unpacked"), "w").close()


# ---------------------------------------------------------------------------------------------
# BM25 baseline (the kit README's definition)


def base_tokens(text):
    return [w.lower() for w in BASE_TOKEN.findall(text) if w.lower() not in BASE_STOP]


def is_test_path(rel):
    parts = rel.split("/")
    name = parts[-1]
    if any(p in TEST_DIRS for p in parts[:-1]):
        return True
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"


def is_skipped_path(rel):
    parts = rel.split("/")
    return any(p in VENDOR_DIRS for p in parts[:-1]) or parts[-1] in SKIP_FILES


def python_units(root):
    """(file, qualname, text) for every function, method, class and module-level assignment."""
    units = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for fn in sorted(filenames):
            if not fn.endswith(".py"):
                continue
            full = os.path.join(dirpath, fn)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if is_test_path(rel) or is_skipped_path(rel):
                continue
            try:
                src = open(full, encoding="utf-8", errors="replace").read()
                tree = ast.parse(src)
            except (SyntaxError, ValueError):
                continue
            lines = src.split("\n")

            def span(node):
                start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
                return start, getattr(node, "end_lineno", node.lineno)

            def walk(node, prefix):
                for ch in ast.iter_child_nodes(node):
                    if isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        q = prefix + ch.name
                        s, e = span(ch)
                        if isinstance(ch, ast.ClassDef):
                            e = min(e, s + 2)
                        units.append((rel, q, q + " " + rel + " " + "\n".join(lines[s - 1:e])))
                        walk(ch, q + ".")
                    elif prefix == "" and isinstance(ch, (ast.Assign, ast.AnnAssign)):
                        targets = ch.targets if isinstance(ch, ast.Assign) else [ch.target]
                        for tg in targets:
                            if isinstance(tg, ast.Name):
                                s, e = ch.lineno, getattr(ch, "end_lineno", ch.lineno)
                                units.append((rel, tg.id, tg.id + " " + rel + " " +
                                              "\n".join(lines[s - 1:e])))
                    elif prefix == "" and isinstance(ch, (ast.If, ast.Try)):
                        walk(ch, prefix)
            walk(tree, "")
    return units


class BM25:
    def __init__(self, units, k1=1.2, b=0.75):
        self.units = units
        self.k1, self.b = k1, b
        self.tf = []
        self.dl = []
        df = collections.Counter()
        for _, _, text in units:
            c = collections.Counter(base_tokens(text))
            self.tf.append(c)
            self.dl.append(sum(c.values()))
            df.update(c.keys())
        n = len(units)
        self.avgdl = (sum(self.dl) / n) if n else 1.0
        self.idf = {w: math.log(1 + (n - d + 0.5) / (d + 0.5)) for w, d in df.items()}
        self.post = collections.defaultdict(list)
        for i, c in enumerate(self.tf):
            for w in c:
                self.post[w].append(i)

    def search(self, query, limit=50):
        q = base_tokens(query[:4000])
        scores = collections.defaultdict(float)
        for w in q:  # repeated query words count again, as a plain bag of words does
            idf = self.idf.get(w)
            if idf is None:
                continue
            for i in self.post[w]:
                f = self.tf[i][w]
                scores[i] += idf * f * (self.k1 + 1) / (f + self.k1 * (1 - self.b + self.b * self.dl[i] / self.avgdl))
        order = sorted(scores, key=lambda i: (-scores[i], self.units[i][0], self.units[i][1]))
        return [(self.units[i][0], self.units[i][1]) for i in order[:limit]]


# ---------------------------------------------------------------------------------------------
# loupe


def run_loupe(args, env, argv, timeout=600):
    p = subprocess.run([args.loupe] + argv, capture_output=True, text=True, env=env, timeout=timeout)
    return p


def loupe_env(args):
    env = dict(os.environ)
    env["LOUPE_HOME"] = args.home
    for kv in args.env or []:
        k, _, v = kv.partition("=")
        env[k] = v
    return env


def loupe_index(args, env, tree):
    p = run_loupe(args, env, ["index", "--json", tree])
    if p.returncode != 0:
        die("loupe index %s failed (rc %d): %s" % (tree, p.returncode, p.stderr.strip()[:300]))


def loupe_search(args, env, tree, query):
    t0 = time.monotonic()
    argv = ["search", "--json", "--limit", str(args.limit), "--path", tree]
    argv += args.search_arg or []
    p = run_loupe(args, env, argv + ["--", query])
    wall = (time.monotonic() - t0) * 1000.0
    if p.returncode not in (0, 1):
        return None, wall, "rc %d: %s" % (p.returncode, p.stderr.strip()[:200])
    try:
        d = json.loads(p.stdout) if p.stdout.strip() else {"results": []}
    except json.JSONDecodeError as e:
        return None, wall, "bad json: %s" % e
    out = []
    for r in d.get("results", []):
        o = r.get("owner") or {}
        out.append((o.get("file") or r.get("file"), o.get("qualifiedName") or o.get("symbol") or ""))
    return out, wall, None


# ---------------------------------------------------------------------------------------------
# Scoring


def gold_pairs(t):
    pairs = set()
    for f in t["gold"].get("functions", []):
        pairs.add((f["file"], f["qualname"]))
        pairs.add((f["file"], f.get("owner") or f["qualname"]))
    return pairs


def score(t, ranked):
    """Metrics of one task for one ranked list of (file, qualname)."""
    gfiles = set(t["gold"]["files"])
    gpairs = gold_pairs(t)
    files = []
    for f, _ in ranked:
        if f not in files:
            files.append(f)
    m = {}
    for k in KS_FILE:
        m["file@%d" % k] = 1.0 if any(f in gfiles for f in files[:k]) else 0.0
    mrr = 0.0
    for i, f in enumerate(files[:10]):
        if f in gfiles:
            mrr = 1.0 / (i + 1)
            break
    m["mrr"] = mrr
    if gpairs:
        for k in KS_FUNC:
            m["func@%d" % k] = 1.0 if any(p in gpairs for p in ranked[:k]) else 0.0
        frank = 0.0
        for i, p in enumerate(ranked[:10]):
            if p in gpairs:
                frank = 1.0 / (i + 1)
                break
        m["funcmrr"] = frank
    m["file_rank"] = next((i + 1 for i, f in enumerate(files) if f in gfiles), None)
    return m


COLS = ["file@1", "file@5", "file@10", "func@1", "func@5", "func@10", "mrr", "funcmrr"]


def aggregate(rows):
    out = {"n": len(rows)}
    for c in COLS:
        vals = [r[c] for r in rows if c in r]
        out[c] = (sum(vals) / len(vals)) if vals else float("nan")
    return out


def table(title, groups, sides):
    lines = ["", "### " + title, "",
             "| group | n | system | file@1 | file@5 | file@10 | func@1 | func@5 | func@10 | MRR(file) | MRR(func) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for g in groups:
        for side in sides:
            a = aggregate(g[1][side])
            lines.append("| %s | %d | %s | %s |" % (g[0], a["n"], side, " | ".join(
                "%.3f" % a[c] for c in COLS)))
    return lines


# ---------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--loupe", default=os.path.join(TOP, "build", "loupe"))
    ap.add_argument("--home", default=os.path.join(WORK, "home"),
                    help="private LOUPE_HOME (reused: a second run only syncs)")
    ap.add_argument("--env", action="append", help="KEY=VALUE for every loupe process")
    ap.add_argument("--search-arg", action="append", help="extra argument to loupe search")
    ap.add_argument("--limit", type=int, default=50)
    ap.add_argument("--source", action="append", choices=["swe-qa", "commit-subject"])
    ap.add_argument("--repo", action="append", help="substring of the repository name")
    ap.add_argument("--max-tasks", type=int, help="at most N tasks per repository and source")
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--no-loupe", action="store_true")
    ap.add_argument("-j", "--jobs", type=int, default=1, help="searches in parallel")
    ap.add_argument("--json", help="write per-task results here")
    ap.add_argument("--results", default=os.path.join(HERE, "RESULTS-devkit.md"),
                    help="Markdown report ('-' for stdout only)")
    ap.add_argument("--label", default="loupe", help="name of the loupe side in the tables")
    args = ap.parse_args()
    args.home = os.path.abspath(args.home)

    tasks = load_tasks(args)
    if not tasks:
        die("no task matches the filters")
    ensure_trees(tasks)
    sides = []
    per_task = {t["task_id"]: {"task": t} for t in tasks}

    if not args.no_baseline:
        sides.append("bm25")
        t0 = time.monotonic()
        cache = {}
        for t in tasks:
            d = tree_dir(t)
            if d not in cache:
                cache.clear()  # trees come grouped: keep one index in memory
                cache[d] = BM25(python_units(d))
            per_task[t["task_id"]]["bm25"] = cache[d].search(t["query"], args.limit)
        sys.stderr.write("bm25: %d tasks in %.1f s\n" % (len(tasks), time.monotonic() - t0))

    lat = []
    failures = []
    if not args.no_loupe:
        if not os.access(args.loupe, os.X_OK):
            die("no loupe binary at %s (run make)" % args.loupe)
        sides.append(args.label)
        env = loupe_env(args)
        t0 = time.monotonic()
        trees = sorted({tree_dir(t) for t in tasks})
        for d in trees:
            loupe_index(args, env, d)
        sys.stderr.write("%s: indexed %d trees in %.1f s\n" % (args.label, len(trees), time.monotonic() - t0))
        t0 = time.monotonic()

        def one(t):
            return t, loupe_search(args, env, tree_dir(t), t["query"])

        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
            for t, (ranked, wall, err) in ex.map(one, tasks):
                lat.append(wall)
                if err:
                    failures.append((t["task_id"], err))
                    ranked = []
                per_task[t["task_id"]][args.label] = ranked
        sys.stderr.write("%s: %d searches in %.1f s\n" % (args.label, len(tasks), time.monotonic() - t0))

    rows = {s: [] for s in sides}
    by_src = collections.defaultdict(lambda: {s: [] for s in sides})
    by_repo = collections.defaultdict(lambda: {s: [] for s in sides})
    for tid, pt in per_task.items():
        t = pt["task"]
        for s in sides:
            m = score(t, pt[s])
            pt[s + "_metrics"] = m
            rows[s].append(m)
            by_src[t["source"]][s].append(m)
            by_repo[t["repo"].split("/")[1]][s].append(m)

    out = ["# Dev kit: loupe against plain BM25 (bench/quality/devkit.py)", "",
           "Generated by `bench/quality/devkit.py`; do not edit by hand.", "",
           "- date: %s UTC" % datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"),
           "- machine: %d cores, %s %s" % (os.cpu_count() or 0, platform.system(), platform.machine()),
           "- loupe: %s; search limit %d; extra: %s" % (
               os.path.relpath(args.loupe, TOP) if args.loupe.startswith(TOP) else args.loupe,
               args.limit, " ".join((args.env or []) + (args.search_arg or [])) or "none"),
           "- tasks: %d (kit %s)" % (len(tasks), KIT)]
    if lat:
        ls = sorted(lat)
        out.append("- loupe search wall time: p50 %.0f ms, p95 %.0f ms; failed %d" % (
            ls[len(ls) // 2], ls[min(len(ls) - 1, int(len(ls) * 0.95))], len(failures)))
    out += table("By source", sorted(by_src.items()) + [("all", rows)], sides)
    out += table("By repository (both sources)", sorted(by_repo.items()), sides)
    if len(sides) == 2:
        a, b = sides
        out += ["", "### Found by one side only (file@10 / func@10)", "",
                "| source | %s only file | %s only file | %s only func | %s only func |" % (a, b, a, b),
                "|---|---|---|---|---|"]
        for src in sorted(by_src):
            ids = [tid for tid, pt in per_task.items() if pt["task"]["source"] == src]
            def only(x, y, c):
                return sum(1 for tid in ids if per_task[tid][x + "_metrics"].get(c) == 1.0
                           and per_task[tid][y + "_metrics"].get(c) == 0.0)
            out.append("| %s | %d | %d | %d | %d |" % (src, only(a, b, "file@10"), only(b, a, "file@10"),
                                                      only(a, b, "func@10"), only(b, a, "func@10")))
    if failures:
        out += ["", "Failures:", ""] + ["- %s: %s" % f for f in failures[:20]]
    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    if args.results != "-":
        with open(args.results, "w") as fh:
            fh.write(text)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({tid: {k: v for k, v in pt.items() if k != "task"} | {"query": pt["task"]["query"]}
                       for tid, pt in per_task.items()}, fh, indent=1)


if __name__ == "__main__":
    main()
