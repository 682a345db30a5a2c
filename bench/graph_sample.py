#!/usr/bin/env python3
"""graph_sample.py: sample proved CALLS edges of an indexed corpus for a manual check.

    bench/graph_sample.py --home LOUPE_HOME [--n 100] [--seed 1] [--out FILE]

Reads the index database under LOUPE_HOME (one indexed root), picks N proved CALLS edges
uniformly at random (seeded, so a check can be repeated), and prints for each: the rule
that proved it, the call site (file:line, the line's text), the caller, and the callee's
definition (file:line, its first line; files are read from the indexed root, which must
be unchanged since indexing). The person checking reads both ends and marks the
edge right or wrong; bench/RESULTS-graph.md records the verdicts.
"""
import argparse
import glob
import os
import random
import sqlite3
import sys

RULES = ["candidate", "local_scope", "same_file", "same_package", "import", "wildcard_import",
         "module_member", "self_method", "base_method", "super_method", "implicit_this",
         "typed_receiver", "static_member", "constructor", "include_declaration",
         "qualified_path", "import_file", "import_symbol", "export_declaration", "export_list",
         "reexport", "test_call", "test_name", "declaration_only"]


def line_of(data, line):
    lines = data.split(b"\n")
    if 1 <= line <= len(lines):
        return lines[line - 1].decode("utf-8", "replace").strip()
    return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--home", required=True)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    dbs = glob.glob(os.path.join(args.home, "roots", "*", "index.db"))
    if len(dbs) != 1:
        sys.exit(f"expected one indexed root under {args.home}, found {len(dbs)}")
    db = sqlite3.connect(f"file:{dbs[0]}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT e.src_fid, e.src_ord, e.ref_ord, e.dst_fid, e.dst_ord, e.rule FROM edges e"
        " WHERE e.kind = 0 AND e.rule <> 0 ORDER BY e.src_fid, e.ref_ord, e.dst_fid, e.dst_ord"
    ).fetchall()
    rng = random.Random(args.seed)
    sample = rng.sample(rows, min(args.n, len(rows)))
    out = open(args.out, "w") if args.out else sys.stdout
    print(f"# {len(rows)} proved CALLS edges; {len(sample)} sampled (seed {args.seed})", file=out)
    content = {}

    # The stored contents may be encoded (compressed): read the files from the indexed
    # root (its path is in the `root` file next to the database), unchanged since indexing.
    with open(os.path.join(os.path.dirname(dbs[0]), "root")) as f:
        root = f.read().strip()

    def data(fid):
        if fid not in content:
            (path,) = db.execute("SELECT path FROM files WHERE fid = ?", (fid,)).fetchone()
            with open(os.path.join(root, path), "rb") as f:
                content[fid] = (path, f.read())
        return content[fid]

    def sym(fid, ord_):
        if ord_ < 0:
            return ("<file>", 1, "")
        r = db.execute("SELECT s.qname, s.start_line, s.kind FROM files f JOIN symbols s"
                       " ON s.bid = f.bid WHERE f.fid = ? AND s.ord = ?", (fid, ord_)).fetchone()
        return r

    for i, (sf, so, ro, df, do, rule) in enumerate(sample, 1):
        spath, sdata = data(sf)
        dpath, ddata = data(df)
        ref = db.execute("SELECT r.qual, r.name, r.start_line FROM files f JOIN refs r"
                         " ON r.bid = f.bid WHERE f.fid = ? AND r.ord = ?", (sf, ro)).fetchone()
        caller = sym(sf, so)
        callee = sym(df, do)
        qual, name, line = ref
        callee_text = f"{qual}.{name}" if qual else name
        print(f"[{i}] {RULES[rule] if rule < len(RULES) else rule}  {callee_text}", file=out)
        print(f"  site   {spath}:{line}  in {caller[0]}: {line_of(sdata, line)[:150]}", file=out)
        print(f"  target {dpath}:{callee[1]}  {callee[0]}: {line_of(ddata, callee[1])[:150]}",
              file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
