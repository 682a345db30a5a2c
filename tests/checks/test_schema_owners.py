#!/usr/bin/env python3
"""The schema-ownership check (tools/check_schema.py) passes on src/ and fails on copies of
src/ with one violation planted each: DDL outside store/schema.c, a write by a module that
does not own the table, a table the ownership table lacks, SQL in a renderer."""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK = os.path.join(ROOT, "tools", "check_schema.py")


def run(src):
    p = subprocess.run([sys.executable, CHECK, src], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    n = 0
    failed = 0

    def report(ok, name, detail=""):
        nonlocal n, failed
        n += 1
        print(f"{'ok' if ok else 'not ok'} {n} - {name}")
        if not ok:
            failed += 1
            for line in detail.splitlines()[-8:]:
                print(f"#   {line}")

    rc, out = run(os.path.join(ROOT, "src"))
    report(rc == 0, "src/ keeps DDL in store/schema.c and each table's writes in its owner", out)

    plants = [
        ("DDL in src/graph", "graph/plant.c",
         'static const char q[] = "CREATE INDEX x ON edges(kind)";\n', "DDL outside"),
        ("DDL split over adjacent literals", "embed/plant.c",
         'static const char q[] = "CREATE "\n    "TABLE IF NOT EXISTS vectors(a)";\n',
         "DDL outside"),
        ("a write to a table another module owns", "search/plant.c",
         'static const char q[] = "DELETE FROM vectors WHERE bid = ?1";\n', "owned by 'embed'"),
        ("an UPDATE of graph's table by index", "index/plant.c",
         'static const char q[] = "UPDATE edges SET rule = 0";\n', "owned by 'graph'"),
        ("a table missing from the ownership table", "index/plant.c",
         'static const char q[] = "SELECT a FROM mystery";\n', "not in the ownership table"),
        ("SQL in a renderer", "mcp/plant.c",
         'static const char q[] = "SELECT path FROM files";\n', "renders"),
    ]
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src")
        shutil.copytree(os.path.join(ROOT, "src"), src,
                        ignore=lambda d, names: [x for x in names
                                                 if not x.endswith((".c", ".h")) and
                                                 not os.path.isdir(os.path.join(d, x))])
        for name, rel, text, expect in plants:
            with open(os.path.join(src, rel), "w") as f:
                f.write(text)
            rc, out = run(src)
            os.unlink(os.path.join(src, rel))
            report(rc != 0 and expect in out, f"the check fails on {name}", out)
        # a comment mentioning DDL is not DDL
        with open(os.path.join(src, "graph/plant.c"), "w") as f:
            f.write('/* "CREATE INDEX x ON edges(kind)" */\nstatic int x;\n')
        rc, out = run(src)
        report(rc == 0, "DDL inside a comment is not flagged", out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
