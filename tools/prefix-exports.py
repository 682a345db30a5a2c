#!/usr/bin/env python3
"""tools/prefix-exports.py: give every exported symbol that lacks it the lp_ prefix.

Re-runnable: the list comes from the build (tools/check-exports.py --list, i.e. nm over
build/rel/obj), so after a merge that brought new unprefixed helpers, run it again:

    make build/rel/loupe && tools/prefix-exports.py && make test

Each name N becomes lp_N, replaced as a whole word (so `lx_chunk` does not touch
`lx_chunk_text`, and `lp_lx_chunk` is never renamed twice) in the C sources and headers of
src/, tests/, tools/ and bench/, and in docs/*.md (not docs/decisions/, which record
the past) and the README. A name whose lp_ form is
already a word anywhere there is a collision: the script stops before changing anything.

Usage: tools/prefix-exports.py [--objdir build/rel/obj] [--dry-run] [--build]
  --build    run `make build/rel/loupe` first (the objects must match the sources)
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TREES = ("src", "tests", "tools", "bench")
CODE_EXT = (".c", ".h")


def files_to_edit():
    out = []
    for top in TREES:
        for dirpath, dirs, names in os.walk(os.path.join(ROOT, top)):
            dirs[:] = [d for d in dirs if d not in ("node_modules", "corpora", "work",
                                                    "__pycache__", "findings")]
            for n in names:
                if n.endswith(CODE_EXT):
                    out.append(os.path.join(dirpath, n))
    for dirpath, dirs, names in os.walk(os.path.join(ROOT, "docs")):
        dirs[:] = [d for d in dirs if d != "decisions"]  # records of the past keep old names
        out += [os.path.join(dirpath, n) for n in names if n.endswith(".md")]
    out.append(os.path.join(ROOT, "README.md"))
    return sorted(p for p in out if os.path.isfile(p))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--objdir", default=os.path.join(ROOT, "build/rel/obj"))
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--build", action="store_true")
    args = ap.parse_args()
    if args.build:
        subprocess.run(["make", "--no-print-directory", "-C", ROOT, "build/rel/loupe"], check=True)
    names = subprocess.run([sys.executable, os.path.join(ROOT, "tools/check-exports.py"),
                            "--objdir", args.objdir, "--list"],
                           check=True, capture_output=True, text=True).stdout.split()
    if not names:
        print("prefix-exports: every exported symbol already starts with lp_")
        return 0
    paths = files_to_edit()
    texts = {}
    for p in paths:
        with open(p, encoding="utf-8", errors="surrogateescape") as f:
            texts[p] = f.read()
    # One alternation, longest names first; \b on both sides: whole identifiers only.
    names.sort(key=lambda n: (-len(n), n))
    new_of = {n: "lp_" + n for n in names}
    taken = re.compile(r"\b(" + "|".join(re.escape(v) for v in new_of.values()) + r")\b")
    clashes = sorted({m.group(1) for t in texts.values() for m in taken.finditer(t)})
    if clashes:
        for c in clashes:
            print(f"prefix-exports: {c} already exists; rename {c[3:]} by hand", file=sys.stderr)
        return 1
    pat = re.compile(r"\b(" + "|".join(re.escape(n) for n in names) + r")\b")
    changed = {}
    for p, t in texts.items():
        nt, n = pat.subn(lambda m: new_of[m.group(1)], t)
        if n:
            changed[p] = (nt, n)
    total = sum(n for _, n in changed.values())
    for p, (nt, n) in sorted(changed.items()):
        print(f"{os.path.relpath(p, ROOT)}: {n}")
        if not args.dry_run:
            with open(p, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(nt)
    print(f"prefix-exports: {len(names)} symbols, {total} replacements in {len(changed)} files"
          + (" (dry run)" if args.dry_run else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
