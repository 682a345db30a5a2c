#!/usr/bin/env python3
"""graph_eval.py: compare the edges loupe proves on a fixture project with its hand labels.

    tests/graph_eval.py [--loupe BIN] DIR...     (DIR holds the project and labels.txt)

Indexes each DIR in a private LOUPE_HOME, reads `loupe graph-dump`, and prints precision
and recall of CALLS (and IMPORTS) edges against labels.txt (format in
tests/fixtures/graph/README.md). Exit status 1 when an edge is unlabeled (precision < 1) or
a labeled non-edge appears. Used by tests/integration/test_graph_fixtures.py.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LINE = re.compile(r"^(\S+?):(\S+) -> (\S+?):(\S+) (\w+) (\w+) ref=(-?\d+)$")


def strip_ordinal(q):
    return q.split("#")[0]


def load_labels(path):
    calls, nots, imports = set(), set(), set()
    with open(path) as f:
        for raw in f:
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            kind, rest = line.split(None, 1)
            src, dst = [x.strip() for x in rest.split("->")]
            if kind == "import":
                imports.add((src, dst))
            elif kind in ("call", "not"):
                (calls if kind == "call" else nots).add((src, dst))
            else:
                raise ValueError(f"{path}: unknown label kind {kind!r}")
    return calls, nots, imports


def dump(loupe, project, env):
    r = subprocess.run([loupe, "index", project], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"index failed: {r.stderr}")
    r = subprocess.run([loupe, "graph-dump", project], env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"graph-dump failed: {r.stderr}")
    calls, imports = set(), set()
    for line in r.stdout.splitlines():
        if " unresolved " in line or " ambiguous candidates=" in line:
            continue  # notes: call outcomes that are not edges
        m = LINE.match(line)
        if not m:
            raise RuntimeError(f"unparsable dump line: {line}")
        sf, sq, df, dq, kind, rule, _ = m.groups()
        if rule == "candidate":
            continue
        if kind == "calls":
            calls.add((f"{sf}:{strip_ordinal(sq)}", f"{df}:{strip_ordinal(dq)}"))
        elif kind == "imports":
            dst = df if dq == "-" else f"{df}:{strip_ordinal(dq)}"
            imports.add((sf, dst))
    return calls, imports


def evaluate(loupe, project, home=None):
    """Returns (report dict). Raises on tool failure."""
    own = home is None
    home = home or tempfile.mkdtemp(prefix="loupe-geval-")
    env = dict(os.environ, LOUPE_HOME=home)
    env.pop("LOUPE_LOG", None)
    try:
        t_calls, t_nots, t_imports = load_labels(os.path.join(project, "labels.txt"))
        f_calls, f_imports = dump(loupe, project, env)
    finally:
        if own:
            shutil.rmtree(home, ignore_errors=True)
    return {
        "calls_found": len(f_calls),
        "calls_true": len(t_calls),
        "calls_hit": len(f_calls & t_calls),
        "unlabeled_calls": sorted(f_calls - t_calls),
        "nonedges_found": sorted(f_calls & t_nots),
        "missed_calls": sorted(t_calls - f_calls),
        "imports_found": len(f_imports),
        "imports_true": len(t_imports),
        "imports_hit": len(f_imports & t_imports),
        "unlabeled_imports": sorted(f_imports - t_imports),
        "missed_imports": sorted(t_imports - f_imports),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loupe", default=os.path.join(HERE, "..", "build", "loupe"))
    ap.add_argument("dirs", nargs="+")
    args = ap.parse_args()
    bad = False
    for d in args.dirs:
        r = evaluate(os.path.abspath(args.loupe), os.path.abspath(d))
        prec = r["calls_hit"] / r["calls_found"] if r["calls_found"] else 1.0
        rec = r["calls_hit"] / r["calls_true"] if r["calls_true"] else 1.0
        print(f"{d}: calls precision {prec:.3f} ({r['calls_hit']}/{r['calls_found']}) recall "
              f"{rec:.3f} ({r['calls_hit']}/{r['calls_true']}); imports {r['imports_hit']}/"
              f"{r['imports_true']} found, {len(r['unlabeled_imports'])} unlabeled")
        for e in r["unlabeled_calls"]:
            print(f"  UNLABELED call {e[0]} -> {e[1]}")
        for e in r["nonedges_found"]:
            print(f"  NON-EDGE FOUND {e[0]} -> {e[1]}")
        for e in r["missed_calls"]:
            print(f"  missed call {e[0]} -> {e[1]}")
        for e in r["unlabeled_imports"]:
            print(f"  UNLABELED import {e[0]} -> {e[1]}")
        for e in r["missed_imports"]:
            print(f"  missed import {e[0]} -> {e[1]}")
        bad |= bool(r["unlabeled_calls"] or r["nonedges_found"] or r["unlabeled_imports"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
