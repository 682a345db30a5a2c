#!/usr/bin/env python3
"""bench/concurrency.py: readers (CLI search, outline, read --publication, and MCP
search_codebase in one long-lived server) in a loop while N sync cycles with real file edits
run; every answer must carry one publication id and show only that publication's content.

    bench/concurrency.py [--loupe BIN] [--cycles N] [--files N] [--no-mcp]

Run it against the ThreadSanitizer build (make tsan) with --loupe build/tsan/loupe: any
ThreadSanitizer report from a CLI reader or the MCP server fails the run.
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
    ap.add_argument("--cycles", type=int, default=50)
    ap.add_argument("--files", type=int, default=24)
    ap.add_argument("--no-mcp", action="store_true")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="loupe-conc-")
    ctx = lib.Ctx(os.path.abspath(args.loupe), tmp)
    ctx.env.setdefault("TSAN_OPTIONS", "halt_on_error=1:exitcode=86")
    try:
        f = reliab.conc_run(ctx, args.cycles, nfiles=args.files, mcp=not args.no_mcp,
                            log=lambda m: print(m, flush=True))
    finally:
        ctx.cleanup()
    shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(f, indent=2, sort_keys=True))
    print(f"concurrency: {f['answers']} answers over {f['cycles']} sync cycles, "
          f"{f['publications_seen']} publications seen, {f['mixed_or_wrong']} mixed: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
