#!/usr/bin/env python3
"""bench/crash.py: SIGKILL the indexer at random moments of create, sync and reindex, with
real file edits between builds (never part of make test; a 10-kill version is
tests/integration/test_reliability.py::test_crash_kills_short).

    bench/crash.py [--loupe BIN] [--kills N] [--seed S] [--files N]

After every kill: PRAGMA integrity_check is ok (read-only connection), the previous
publication is served unchanged (same id, same search and outline answers) and the next
build completes. Prints one line per kill and the figures as JSON.
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
import lib  # noqa: E402
import reliab  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loupe", default=os.path.join(ROOT, "build", "loupe"))
    ap.add_argument("--kills", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--files", type=int, default=200)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="loupe-crash-")
    ctx = lib.Ctx(os.path.abspath(args.loupe), tmp)
    try:
        f = reliab.crash_run(ctx, args.kills, args.seed, nfiles=args.files,
                             log=lambda m: print(m, flush=True))
    finally:
        ctx.cleanup()
    shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(f, indent=2, sort_keys=True))
    ok = f["kills"] >= args.kills
    print(f"crash: {f['kills']} kills survived ({f['completed_before_kill']} builds finished "
          f"before their kill), {f['rounds']} rounds, {f['seconds']} s: "
          f"{'PASS' if ok else 'TOO FEW KILLS'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
