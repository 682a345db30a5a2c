#!/usr/bin/env python3
"""tests/checks/run_checks.py: the source checks of `make test`, and proof that each can fail.

  1. tools/check-includes.py on this tree: the include graph follows the module order of
     docs/ARCHITECTURE.md, no private header (*_int.h) crosses a module, <jansson.h> only in
     core/json.h.
  2. tools/check-exports.py on BUILD/rel/obj: every exported symbol starts with lp_.
  3. Each check again on a planted violation (a copy of src/ with one bad include; an object
     file with an unprefixed global): it must fail and name the violation.

Prints `ok - ...` / `not ok - ...` lines (counted by tests/run.py).
Usage: tests/checks/run_checks.py [--build DIR]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INCLUDES = os.path.join(ROOT, "tools/check-includes.py")
EXPORTS = os.path.join(ROOT, "tools/check-exports.py")
results = []


def report(ok, name, detail=""):
    results.append(ok)
    print(f"{'ok' if ok else 'not ok'} - {name}")
    if detail and not ok:
        for line in detail.rstrip().splitlines()[:40]:
            print(f"    {line}")


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def planted_tree(tmp):
    """A copy of what check-includes reads: src/, docs/ARCHITECTURE.md, the allow-list."""
    shutil.copytree(os.path.join(ROOT, "src"), os.path.join(tmp, "src"),
                    ignore=shutil.ignore_patterns("*.o", "*.d"))
    os.makedirs(os.path.join(tmp, "docs"))
    os.makedirs(os.path.join(tmp, "tools"))
    shutil.copy(os.path.join(ROOT, "docs/ARCHITECTURE.md"), os.path.join(tmp, "docs"))
    allow = os.path.join(ROOT, "tools/check-includes.allow")
    if os.path.exists(allow):
        shutil.copy(allow, os.path.join(tmp, "tools"))


def append(path, text):
    with open(path, "a", encoding="utf-8") as f:
        f.write(text)


def include_checks():
    rc, out = run([sys.executable, INCLUDES])
    report(rc == 0, "include order of src/ (tools/check-includes.py)", out)

    plants = [
        # (file to edit, line to add, text the failure must contain)
        ("src/core/str.c", '#include "search/search.h"\n',
         "src/core/str.c:", "above core"),
        ("src/text/tokenize.c", '#include "store/store.h"\n',
         "src/text/tokenize.c:", "same layer"),
        ("src/index/read.c", '#include "graph/graph_int.h"\n',
         "src/index/read.c:", "private header graph/graph_int.h"),
        ("src/search/rank.c", "#include <jansson.h>\n",
         "src/search/rank.c:", "<jansson.h> outside core/json.h"),
    ]
    for rel, line, where, what in plants:
        with tempfile.TemporaryDirectory(prefix="loupe-chk-") as tmp:
            planted_tree(tmp)
            append(os.path.join(tmp, rel), line)
            rc, out = run([sys.executable, INCLUDES, "--root", tmp])
            report(rc != 0 and where in out and what in out,
                   f"include check fails on a planted `{line.strip()}` in {rel}", out)
    # A public header at the top of src/ (src/loupe.h) may not be included from below.
    with tempfile.TemporaryDirectory(prefix="loupe-chk-") as tmp:
        planted_tree(tmp)
        if not os.path.exists(os.path.join(tmp, "src/loupe.h")):
            append(os.path.join(tmp, "src/loupe.h"), "/* planted */\n")
        append(os.path.join(tmp, "src/store/store.c"), '#include "loupe.h"\n')
        rc, out = run([sys.executable, INCLUDES, "--root", tmp])
        report(rc != 0 and "src/store/store.c:" in out and "public header loupe.h" in out,
               "include check fails on the public header loupe.h included from store", out)
    # An allow-list entry that matches nothing any more is itself a failure.
    with tempfile.TemporaryDirectory(prefix="loupe-chk-") as tmp:
        planted_tree(tmp)
        append(os.path.join(tmp, "tools/check-includes.allow"),
               "src/core/str.c index/index.h  # planted, matches no include\n")
        rc, out = run([sys.executable, INCLUDES, "--root", tmp])
        report(rc != 0 and "matches no violating include" in out,
               "include check fails on a stale allow-list entry", out)
    # A module that the documented order does not name fails too.
    with tempfile.TemporaryDirectory(prefix="loupe-chk-") as tmp:
        planted_tree(tmp)
        os.makedirs(os.path.join(tmp, "src/newmod"))
        append(os.path.join(tmp, "src/newmod/newmod.c"), '#include "core/core.h"\n')
        rc, out = run([sys.executable, INCLUDES, "--root", tmp])
        report(rc != 0 and "src/newmod/ is not in the documented module order" in out,
               "include check fails on a module missing from docs/ARCHITECTURE.md", out)


def export_checks(build):
    objdir = os.path.join(build, "rel/obj")
    rc, out = run([sys.executable, EXPORTS, "--objdir", objdir])
    report(rc == 0, f"exported symbols of {os.path.relpath(objdir, ROOT)} start with lp_ "
           "(tools/check-exports.py)", out)

    cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    with tempfile.TemporaryDirectory(prefix="loupe-chk-") as tmp:
        os.makedirs(os.path.join(tmp, "obj/core"))
        os.makedirs(os.path.join(tmp, "obj/tests"))
        src = os.path.join(tmp, "planted.c")
        with open(src, "w") as f:
            f.write("int lp_planted_ok(void);\nint helper_no_prefix(void);\n"
                    "static int local_ok(void) { return 1; }\n"
                    "int lp_planted_ok(void) { return local_ok(); }\n"
                    "int helper_no_prefix(void) { return 2; }\n"
                    "int table_no_prefix[2] = {1, 2};\n")
        good = os.path.join(tmp, "good.c")
        with open(good, "w") as f:
            f.write("int lp_good(void);\nint lp_good(void) { return 0; }\n"
                    "int main(void);\nint main(void) { return lp_good(); }\n")
        subprocess.run([cc, "-c", src, "-o", os.path.join(tmp, "obj/core/planted.o")], check=True)
        # The same unprefixed symbol in a test object is not the library's: not reported.
        subprocess.run([cc, "-c", src, "-o", os.path.join(tmp, "obj/tests/t.o")], check=True)
        subprocess.run([cc, "-c", good, "-o", os.path.join(tmp, "obj/main.o")], check=True)
        rc, out = run([sys.executable, EXPORTS, "--objdir", os.path.join(tmp, "obj")])
        report(rc != 0 and "helper_no_prefix (T) in core/planted.o" in out
               and "table_no_prefix" in out and "local_ok" not in out
               and "lp_planted_ok" not in out and "tests/t.o" not in out
               and "main" not in out.replace("main.o", ""),
               "export check fails on a planted unprefixed function and table "
               "(and ignores static, lp_, main and test objects)", out)
        os.remove(os.path.join(tmp, "obj/core/planted.o"))
        subprocess.run([cc, "-c", good, "-o", os.path.join(tmp, "obj/core/good.o")], check=True)
        rc, out = run([sys.executable, EXPORTS, "--objdir", os.path.join(tmp, "obj")])
        # good.o defines main too (outside main.o): that is a violation as well.
        report(rc != 0 and "main (T) in core/good.o" in out,
               "export check reports main defined outside main.o", out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    include_checks()
    export_checks(os.path.abspath(args.build))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
