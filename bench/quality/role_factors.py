#!/usr/bin/env python3
"""role_factors.py: choose the runtime scope's file-role factors (src/search/roles.c) on the
dev kit from one search pass.

Every task is asked once with every role factor at 1 (LOUPE_ROLE_TUNE=foreign=1,meta=1,
example=1,generated=1 and LOUPE_SEARCH_TUNE=demote_test=1): the answer keeps each result's score and
`roles`. A grid of factors then re-scores and re-sorts those top-`limit` lists offline and
reports file@5, func@10 and MRR(file) per source for each setting. Demotion only moves
results down, so a re-sorted top 10 is exact unless more than limit-10 of the top `limit`
are demoted (results from below the limit cannot come up): an approximation to pick
candidates, confirmed afterwards by a real devkit.py run.

    bench/quality/role_factors.py --loupe build/loupe --home DEVKIT_HOME   (trees indexed)
"""
import argparse
import collections
import concurrent.futures
import itertools
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import devkit  # noqa: E402

FOREIGN = {"vendored", "generated", "minified", "locale"}


def ask(args, env, t):
    argv = ["search", "--json", "--limit", str(args.limit), "--path", devkit.tree_dir(t), "--",
            t["query"]]
    p = devkit.run_loupe(args, env, argv)
    d = json.loads(p.stdout) if p.returncode in (0, 1) and p.stdout.strip() else {"results": []}
    return [((r["owner"]["file"], r["owner"].get("qualifiedName") or r["owner"].get("symbol") or ""),
             r["score"], set(r.get("roles", []))) for r in d.get("results", [])]


def rescore(rows, f_test, f_foreign, f_generated, f_meta, f_example, about_tests):
    out = []
    for key, s, roles in rows:
        m = 1.0
        if "test" in roles and not about_tests:
            m *= f_test
        if roles & (FOREIGN - {"generated"}):
            m *= f_foreign
        elif "generated" in roles:
            m *= f_generated
        if "meta" in roles:
            m *= f_meta
        if "example" in roles and "test" not in roles:
            m *= f_example
        out.append((-s * m, key))
    out.sort()
    return [k for _, k in out]


TEST_WORDS = {"test", "tests", "testing", "unittest", "spec", "specs", "mock", "mocks", "fixture",
              "fixtures"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--loupe", required=True)
    ap.add_argument("--home", required=True, help="a LOUPE_HOME where devkit.py indexed the trees")
    ap.add_argument("--limit", type=int, default=50)
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--cache", help="JSON file of the raw answers (written, or read when present)")
    args = ap.parse_args()
    args.env = ["LOUPE_ROLE_TUNE=foreign=1,generated=1,meta=1,example=1", "LOUPE_SEARCH_TUNE=demote_test=1"]
    args.source = args.tasks = args.lang = args.repo = None
    args.sample = args.max_tasks = None
    tasks = devkit.load_tasks(args)
    if args.cache and os.path.exists(args.cache):
        raw = {k: [(tuple(a), b, set(c)) for a, b, c in v]
               for k, v in json.load(open(args.cache)).items()}
    else:
        env = devkit.loupe_env(args)
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as ex:
            raw = dict(zip([t["task_id"] for t in tasks], ex.map(lambda t: ask(args, env, t), tasks)))
        if args.cache:
            json.dump({k: [(list(a), b, sorted(c)) for a, b, c in v] for k, v in raw.items()},
                      open(args.cache, "w"))
    grid = itertools.product([1.0, 0.7, 0.5, 0.35, 0.25], [1.0, 0.5, 0.3, 0.15], [1.0, 0.5, 0.3],
                             [1.0, 0.7, 0.5, 0.3], [1.0, 0.6])
    print("| test | foreign | generated | meta | example | source | file@5 | func@10 | MRR(file) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for ft, ff, fg, fm, fe in grid:
        by = collections.defaultdict(list)
        for t in tasks:
            about = bool(TEST_WORDS & {w.lower().strip("?.,`'\"") for w in t["query"].split()})
            ranked = rescore(raw[t["task_id"]], ft, ff, fg, fm, fe, about)
            by[t["source"]].append(devkit.score(t, ranked))
        for src, ms in sorted(by.items()):
            a = devkit.aggregate(ms)
            print("| %.2f | %.2f | %.2f | %.2f | %.2f | %s | %.3f | %.3f | %.3f |" % (
                ft, ff, fg, fm, fe, src, a["file@5"], a["func@10"], a["mrr"]))


if __name__ == "__main__":
    main()
