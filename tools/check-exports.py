#!/usr/bin/env python3
"""tools/check-exports.py: every symbol the library's objects export starts with lp_ / LP_.

Runs `nm -g --defined-only` over the object files of one build (default build/rel/obj) and
fails on every global, defined symbol (functions, data, read-only data) whose name does not
start with `lp_` or `LP_`. Not checked: main.o (the program's main), the unit tests
(obj/tests/), the trainer (obj/train/) and the fuzz drivers: they are programs, not the library.
Third-party code (tree-sitter, build/ts) is compiled outside obj/ and keeps its own prefixes.

`--list` prints the offending names only, one a line (tools/prefix-exports.py reads it).
Prints TAP lines and exits non-zero on any violation.
Usage: tools/check-exports.py [--objdir build/rel/obj] [--list]
"""
import argparse
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXCLUDE_DIRS = {"tests", "train", "fuzz"}
ALLOWED_PREFIXES = ("lp_", "LP_")


def objects(objdir):
    out = []
    for dirpath, dirs, names in os.walk(objdir):
        rel = os.path.relpath(dirpath, objdir)
        if rel.split(os.sep)[0] in EXCLUDE_DIRS:
            dirs[:] = []
            continue
        for n in names:
            if n.endswith(".o") and not (rel == "." and n == "main.o"):
                out.append(os.path.join(dirpath, n))
    return sorted(out)


def exported(objs):
    """[(name, type letter, object)] of the global defined symbols."""
    res = []
    if not objs:
        return res
    cmd = ["nm", "-g", "--defined-only", "-A"] + objs
    text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    for line in text.splitlines():
        # "path/x.o:0000000000000000 T name" (no value for absolute symbols on some nm)
        obj, _, rest = line.partition(":")
        parts = rest.split()
        if len(parts) < 2:
            continue
        name, kind = parts[-1], parts[-2]
        res.append((name, kind, obj))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--objdir", default=os.path.join(ROOT, "build/rel/obj"))
    ap.add_argument("--list", action="store_true")
    args = ap.parse_args()
    objs = objects(args.objdir)
    if not objs:
        print(f"not ok - exported symbols: no object files under {args.objdir} (build first)")
        return 1
    syms = exported(objs)
    bad = sorted({(n, k, os.path.relpath(o, args.objdir)) for n, k, o in syms
                  if not n.startswith(ALLOWED_PREFIXES)})
    if args.list:
        for n in sorted({b[0] for b in bad}):
            print(n)
        return 0
    if bad:
        for n, k, o in bad:
            print(f"not ok - exported symbol without lp_: {n} ({k}) in {o}")
        print(f"# {len(bad)} symbol(s) lack the lp_ prefix; tools/prefix-exports.py renames them",
              file=sys.stderr)
        return 1
    print(f"ok - exported symbols: all {len(syms)} global symbols of {len(objs)} objects "
          f"in {os.path.relpath(args.objdir, ROOT)} start with lp_/LP_")
    return 0


if __name__ == "__main__":
    sys.exit(main())
