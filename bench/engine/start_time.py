#!/usr/bin/env python3
"""bench/engine/start_time.py: CLI start time of two loupe binaries, measured in one run.

Runs `loupe version` and `loupe search QUERY --path ROOT` RUNS times per binary, the two
binaries interleaved run by run (so load changes hit both alike), with time.perf_counter
around each subprocess; prints median, p10 and p90 in milliseconds and the ratio of the
medians, and the same for the CPU time (user + system) of each run, which load disturbs
less. ROOT is indexed first (by the baseline binary) in a private LOUPE_HOME.

Usage: bench/engine/start_time.py --base /work/main/build/loupe --new build/loupe
       [--root src] [--runs 50] [--query "arena rewind"]
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def pct(xs, p):
    xs = sorted(xs)
    k = max(0, min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1)))))
    return xs[k]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--root", default="src")
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--query", default="arena rewind")
    a = ap.parse_args()
    home = tempfile.mkdtemp(prefix="loupe-start-")
    env = dict(os.environ, LOUPE_HOME=home)
    root = os.path.abspath(a.root)
    subprocess.run([a.base, "index", root], env=env, check=True, capture_output=True)
    cases = {"version": ["version"], "search": ["search", "--path", root, a.query]}
    bins = {"base": os.path.abspath(a.base), "new": os.path.abspath(a.new)}
    times = {(c, b): [] for c in cases for b in bins}
    cpu = {(c, b): [] for c in cases for b in bins}
    for c, args in cases.items():
        for b, exe in bins.items():  # warm the page cache
            subprocess.run([exe] + args, env=env, check=True, capture_output=True)
        for _ in range(a.runs):
            for b, exe in bins.items():
                r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                t0 = time.perf_counter()
                subprocess.run([exe] + args, env=env, check=True, capture_output=True)
                times[(c, b)].append((time.perf_counter() - t0) * 1000)
                r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu[(c, b)].append((r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime)
                                   * 1000)
    print(f"| command | binary | wall median ms | p10 | p90 | new/base | CPU median ms | "
          f"new/base |")
    print(f"|---|---|---|---|---|---|---|---|")
    for c in cases:
        mb = statistics.median(times[(c, "base")])
        cb = statistics.median(cpu[(c, "base")])
        for b in bins:
            xs = times[(c, b)]
            m = statistics.median(xs)
            cm = statistics.median(cpu[(c, b)])
            print(f"| {c} | {b} | {m:.2f} | {pct(xs, 10):.2f} | {pct(xs, 90):.2f} | "
                  f"{m / mb:.3f} | {cm:.2f} | {cm / cb:.3f} |")
    subprocess.run(["rm", "-rf", home])


if __name__ == "__main__":
    sys.exit(main())
