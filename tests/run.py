#!/usr/bin/env python3
"""tests/run.py: run every test group and print the final `N passed, N failed` line.

Groups (each prints TAP-like `ok - name` / `not ok - name` lines, which are counted here):
  unit[rel], unit[asan]          the C unit tests (tests/unit), normal and sanitizer builds
  integration[rel|asan]          tests/integration/test_*.py against the real binary
  node                           tests/node/*.test.mjs (real MCP clients), when present
  fuzz-replay                    committed fuzz corpora replayed through the asan binary
  checks                         source checks: include order and private headers, lp_ prefix
                                 of exported symbols (tests/checks/run_checks.py, each shown
                                 failing on a planted violation), schema ownership
                                 (tests/checks/test_*.py)
  library                        make install into a temporary DESTDIR; examples/search.c
                                 built against it (pkg-config) and run; exports lp_* only

Usage: tests/run.py [--build DIR] [--only GROUP] [-k SUBSTRING]
"""
import argparse
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINE = re.compile(r"^(not ok|ok)(?: \d+)? - (.*)$")


def run_group(name, cmd, env=None, timeout=1800):
    print(f"== {name}: {' '.join(cmd)}", flush=True)
    t0 = time.time()
    full_env = dict(os.environ)
    full_env.update(env or {})
    passed = failed = 0
    try:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=full_env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, errors="replace")
        for line in proc.stdout:
            line = line.rstrip("\n")
            m = LINE.match(line)
            if m:
                if m.group(1) == "ok":
                    passed += 1
                else:
                    failed += 1
                print(f"{m.group(1)} - [{name}] {m.group(2)}", flush=True)
            else:
                print(f"   {line}", flush=True)
        rc = proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = -1
        print(f"not ok - [{name}] timed out after {timeout}s")
        failed += 1
    if rc != 0 and failed == 0:
        # A crash or a runner error with no failing line still fails the group.
        print(f"not ok - [{name}] exited with status {rc}")
        failed += 1
    print(f"== {name}: {passed} passed, {failed} failed ({time.time() - t0:.1f}s)", flush=True)
    return passed, failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    ap.add_argument("--only", default=None)
    ap.add_argument("-k", default=None, help="substring filter passed to the groups")
    args = ap.parse_args()
    build = os.path.abspath(os.path.join(ROOT, args.build))
    asan_env = {
        "ASAN_OPTIONS": "detect_leaks=1:abort_on_error=0:halt_on_error=1:exitcode=86",
        "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
    }
    groups = []
    k = [args.k] if args.k else []
    groups.append(("checks", [sys.executable, "tests/checks/run_checks.py", "--build", build], {}))
    groups.append(("unit[rel]", [f"{build}/rel/unit-tests"] + k, {}))
    groups.append(("unit[asan]", [f"{build}/asan/unit-tests"] + k, asan_env))
    integ = [sys.executable, "tests/integration/runner.py"] + (["-k", args.k] if args.k else [])
    groups.append(("integration[rel]", integ + ["--loupe", f"{build}/loupe"], {}))
    groups.append(("integration[asan]", integ + ["--loupe", f"{build}/asan/loupe"], asan_env))
    if os.path.isdir(os.path.join(ROOT, "tests/node")):
        groups.append(("node", ["node", "--test", "--test-reporter=tap", "tests/node/"],
                       {"LOUPE_BIN": f"{build}/loupe"}))
    if os.path.exists(os.path.join(ROOT, "tests/fuzz/replay.py")):
        groups.append(("fuzz-replay", [sys.executable, "tests/fuzz/replay.py", "--build", build],
                       asan_env))
    for t in sorted(os.listdir(os.path.join(ROOT, "tests/checks"))):
        if t.startswith("test_") and t.endswith(".py"):
            groups.append((f"checks[{t[5:-3]}]", [sys.executable, f"tests/checks/{t}"], {}))
    groups.append(("library", [sys.executable, "tests/library/test_library.py", "--build", build]
                   + (["-k", args.k] if args.k else []), {}))
    total_p = total_f = 0
    t0 = time.time()
    for name, cmd, env in groups:
        if args.only and args.only not in name:
            continue
        p, f = run_group(name, cmd, env)
        total_p += p
        total_f += f
    print(f"(total {time.time() - t0:.0f}s)")
    print(f"{total_p} passed, {total_f} failed")
    return 1 if total_f else 0


if __name__ == "__main__":
    sys.exit(main())
