#!/usr/bin/env python3
"""Integration test runner: every `test_*` function in tests/integration/test_*.py runs
against the real binary (--loupe), each in a fresh temporary folder with its own LOUPE_HOME.

A test function takes one argument, a `Ctx` (see lib.py), and fails by raising (assert).
Output: `ok - module.test` / `not ok - module.test` lines, then a summary.
"""
import argparse
import importlib.util
import os
import shutil
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import lib  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loupe", required=True)
    ap.add_argument("-k", default=None)
    args = ap.parse_args()
    loupe = os.path.abspath(args.loupe)
    passed = failed = 0
    for fname in sorted(os.listdir(HERE)):
        if not (fname.startswith("test_") and fname.endswith(".py")):
            continue
        modname = fname[:-3]
        spec = importlib.util.spec_from_file_location(modname, os.path.join(HERE, fname))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        for name in sorted(n for n in dir(mod) if n.startswith("test_")):
            full = f"{modname}.{name}"
            if args.k and args.k not in full:
                continue
            tmp = tempfile.mkdtemp(prefix="loupe-it-")
            ctx = lib.Ctx(loupe, tmp)
            try:
                getattr(mod, name)(ctx)
                print(f"ok - {full}", flush=True)
                passed += 1
                shutil.rmtree(tmp, ignore_errors=True)
            except Exception:  # noqa: BLE001 - report every failure kind
                for line in traceback.format_exc().rstrip().splitlines():
                    print(f"# {line}")
                print(f"# kept {tmp}")
                print(f"not ok - {full}", flush=True)
                failed += 1
            finally:
                ctx.cleanup()
    print(f"integration: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
