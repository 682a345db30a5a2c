#!/usr/bin/env python3
"""tests/fuzz/replay.py: replay every fuzz target's committed corpus and synthesized hostile
cases through its standalone ASan+UBSan driver (build/asan/fuzz-replay-<target>, built by
`make asan`). Prints one `ok - fuzz_<target> ...` / `not ok - ...` line per target (the
format tests/run.py counts); on a failure, the tail of the driver's output names the input
and shows the sanitizer report.

Usage: tests/fuzz/replay.py [--build DIR] [-k SUBSTRING]
"""
import argparse
import glob
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TIMEOUT = 900


def targets():
    names = []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests/fuzz/fuzz_*.c"))):
        names.append(os.path.basename(path)[len("fuzz_"):-len(".c")])
    return names


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("-k", default=None)
    args = ap.parse_args()
    failed = 0
    for t in targets():
        name = f"fuzz_{t}"
        if args.k and args.k not in name:
            continue
        binary = os.path.join(args.build, "asan", f"fuzz-replay-{t}")
        corpus = os.path.join(ROOT, "tests/fuzz/corpus", t)
        if not os.access(binary, os.X_OK):
            print(f"not ok - {name}: {binary} is missing; build it with `make asan`")
            failed += 1
            continue
        files = [f for f in os.listdir(corpus)] if os.path.isdir(corpus) else []
        if not files:
            print(f"not ok - {name}: no committed corpus in {corpus}")
            failed += 1
            continue
        t0 = time.time()
        try:
            proc = subprocess.run([binary, corpus], cwd=ROOT, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, errors="replace",
                                  timeout=TIMEOUT)
            out, rc = proc.stdout, proc.returncode
        except subprocess.TimeoutExpired as e:
            out = (e.stdout or b"").decode("utf-8", "replace") if isinstance(e.stdout, bytes) \
                else (e.stdout or "")
            rc = None
        dt = time.time() - t0
        summary = [l for l in out.splitlines() if l.startswith("replayed ")]
        if rc == 0 and summary:
            print(f"ok - {name}: {summary[-1]} ({dt:.1f}s wall)")
            continue
        failed += 1
        why = "timed out" if rc is None else f"exit status {rc}"
        print(f"not ok - {name}: {why} after {dt:.1f}s")
        # The last "# replay" line names the input being run; then the report.
        lines = out.splitlines()
        last = max((i for i, l in enumerate(lines) if l.startswith("# replay")), default=0)
        for l in lines[last:last + 60]:
            print(f"#   {l}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
