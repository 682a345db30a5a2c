#!/usr/bin/env python3
"""Compact sanity table from `bench/quality/devkit.py --tasks ... --json OUT` runs: per kind
(and variant) and language, n and func@10 / file@5 / MRR(func)@10 for BM25 and loupe.

    bench/train/sanity_table.py OUT.json [OUT2.json ...] --tasks-dir bench/train/tasks
"""
import argparse
import collections
import glob
import gzip
import json
import os


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("runs", nargs="+", help="devkit.py --json outputs")
    ap.add_argument("--tasks-dir", required=True, help="folder of the scored task files")
    ap.add_argument("--label", default="loupe")
    args = ap.parse_args()
    meta = {}
    for path in glob.glob(os.path.join(args.tasks_dir, "*.valid.jsonl*")):
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                t = json.loads(line)
                ident = t["meta"].get("identifiers")
                meta[t["task_id"]] = (t["source"] + ("/ids-" + ident if ident else ""), t["lang"])
    groups = collections.defaultdict(lambda: collections.defaultdict(list))
    for run in args.runs:
        for tid, pt in json.load(open(run)).items():
            if tid not in meta:
                continue
            for side in ("bm25", args.label):
                m = pt.get(side + "_metrics")
                if m:
                    for key in (meta[tid], (meta[tid][0], "all")):
                        groups[key][side].append(m)
    cols = [("func@10", "func@10"), ("file@5", "file@5"), ("funcmrr", "MRR(func)")]
    print("| kind | language | n | BM25 func@10 | BM25 file@5 | BM25 MRR | loupe func@10 | loupe file@5 | loupe MRR |")
    print("|---|---|---|---|---|---|---|---|---|")
    for (src, lang) in sorted(groups, key=lambda k: (k[0], k[1] == "all", k[1])):
        g = groups[(src, lang)]
        cells = []
        for side in ("bm25", args.label):
            rows = g[side]
            for c, _ in cols:
                vals = [r[c] for r in rows if c in r]
                cells.append("%.3f" % (sum(vals) / len(vals)) if vals else "-")
        name = "**all**" if lang == "all" else lang
        print("| %s | %s | %d | %s |" % (src, name, len(g["bm25"]), " | ".join(cells)))


if __name__ == "__main__":
    main()
