#!/usr/bin/env python3
"""bench/faults_io.py: the I/O fault suite, long runs (never part of make test; the short
versions are tests/integration/test_faults_io.py, sharing tests/integration/faults_io.py).

    bench/faults_io.py [--loupe BIN] [--only NAME[,NAME]] [--out FILE]

Cases (each runs the real binary, and fails on the first broken invariant):
  nofile      RLIMIT_NOFILE swept over every value from 8 to 64 (create, sync, search) on a
              tree of 200 folders and a 60-deep chain: each run succeeds, or fails naming the
              limit with the previous publication intact; never publishes less
  special     fifos and a device swapped in after indexing: CLI search/read/outline/changes,
              then MCP (4 workers, 4 searches at once, 20 rounds); slowest answer reported
  stuck       MCP with 4 workers: 16 calls stuck where they cannot see a cancel, cancelled;
              time until a fresh call is answered; then 8 calls past --call-timeout-ms
  disk_full   the state folder on tmpfs of 2 to 8 MiB (mount; skipped with the reason when
              refused): a create too big for it, then a small index on the disk filled to
              the last byte: sync, search, continuation; then the space freed
Writes a Markdown table (default bench/RESULTS-faults-io.md).
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
import faults_io  # noqa: E402
import lib  # noqa: E402
import reliab  # noqa: E402
from mcp_client import Session  # noqa: E402


def row(rows, case, what, result, seconds=None):
    rows.append((case, what, result, "" if seconds is None else f"{seconds:.2f}"))
    print(f"{case:10} {what:58} {result}  {rows[-1][3]}", flush=True)


def case_nofile(ctx, rows):
    t0 = time.perf_counter()
    limits = list(range(8, 65))
    fig = faults_io.fd_sweep(ctx, limits, nfolders=200, depth=60)
    dt = time.perf_counter() - t0
    row(rows, "nofile", f"sync after an edit, ulimit -n 8..64 ({len(limits)} limits, 260 files)",
        f"ok {fig['sync_ok']}, failed cleanly {fig['sync_failed']} (first ok at "
        f"{fig['min_sync_ok']}); never less published", dt)
    row(rows, "nofile", "create from nothing, same limits",
        f"ok {fig['create_ok']}, failed cleanly {fig['create_failed']} (first ok at "
        f"{fig['min_create_ok']}); a failed create publishes nothing")
    row(rows, "nofile", "search, same limits",
        f"ok {fig['search_ok']}, failed cleanly {fig['search_failed']}")
    row(rows, "nofile", "messages of the failed runs", "; ".join(fig["messages"])[:200])


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def case_special(ctx, rows):
    root, devices = faults_io.special_repo(ctx)
    t = timed(lambda: faults_io.special_cli(ctx, root))
    row(rows, "special", "CLI search/read/outline/changes/status/sync, fifo + "
        + ("char device" if devices else "second fifo (mknod refused)"), "all answered", t)
    # the repo was synced by special_cli: swap the files in again
    src = os.path.join(root, "src")
    worst = 0.0
    s = Session(ctx, args=("--workers", "4"))
    s.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "bench", "version": "1"}})
    for name in ("a.c", "c.c"):
        p = os.path.join(src, name)
        if os.path.lexists(p):
            os.unlink(p)
        with open(p, "w") as f:
            f.write("int foo(void){return 1;}\n")
    ctx.ok("sync", root)
    os.unlink(os.path.join(src, "a.c"))
    os.mkfifo(os.path.join(src, "a.c"))
    calls = 0
    t0 = time.perf_counter()
    for _ in range(20):
        lat = []

        def one():
            t = time.perf_counter()
            s.call("search_codebase", {"path": root, "query": "foo path:*.c"},
                   timeout=faults_io.SPECIAL_TIMEOUT)
            lat.append(time.perf_counter() - t)
        th = [threading.Thread(target=one) for _ in range(4)]
        for x in th:
            x.start()
        for x in th:
            x.join()
        assert len(lat) == 4, lat
        worst = max(worst, *lat)
        calls += 4
        for tool in ("read_file", "file_outline"):
            t = time.perf_counter()
            s.call(tool, {"path": os.path.join(src, "a.c")}, timeout=faults_io.SPECIAL_TIMEOUT)
            worst = max(worst, time.perf_counter() - t)
            calls += 1
    s.close()
    row(rows, "special", "MCP: 20 rounds of 4 concurrent searches + read_file + file_outline "
        "over a fifo", f"{calls} calls answered, slowest {worst * 1000:.0f} ms",
        time.perf_counter() - t0)


def case_stuck(ctx, rows):
    env = {"LOUPE_MCP_TEST_TOOLS": "1"}
    s = Session(ctx, args=("--workers", "4", "--cancel-grace-ms", "500"), env=env)
    s.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "bench", "version": "1"}})

    def send(msg):
        with s.lock:
            s.proc.stdin.write(json.dumps(msg).encode() + b"\n")
            s.proc.stdin.flush()
    for i in range(16):
        send({"jsonrpc": "2.0", "id": f"stuck{i}", "method": "tools/call",
              "params": {"name": "debug_sleep", "arguments": {"ms": 20000, "ignore_cancel": True}}})
    time.sleep(0.3)
    t0 = time.perf_counter()
    for i in range(16):
        send({"jsonrpc": "2.0", "method": "notifications/cancelled",
              "params": {"requestId": f"stuck{i}", "reason": "bench"}})
    s.call("debug_echo", {"message": "x"}, timeout=60)
    first = time.perf_counter() - t0
    row(rows, "stuck", "16 stuck calls cancelled (4 workers, --cancel-grace-ms 500): a fresh "
        "call answered after", f"{first * 1000:.0f} ms (the stuck calls sleep 20 s)", first)
    s.close()
    s = Session(ctx, args=("--workers", "2", "--call-timeout-ms", "1000"), env=env)
    s.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "bench", "version": "1"}})
    got = []

    def one():
        t = time.perf_counter()
        m = s.request("tools/call", {"name": "debug_sleep",
                                     "arguments": {"ms": 20000, "ignore_cancel": True}}, timeout=60)
        got.append((m.get("error", {}).get("code"), time.perf_counter() - t))
    th = [threading.Thread(target=one) for _ in range(8)]
    t0 = time.perf_counter()
    for x in th:
        x.start()
    for x in th:
        x.join()
    codes = sorted({c for c, _ in got})
    worst = max(t for _, t in got)
    row(rows, "stuck", "8 calls past --call-timeout-ms 1000 (2 workers)",
        f"codes {codes}, slowest answer {worst:.2f} s", time.perf_counter() - t0)
    s.call("debug_echo", {"message": "y"}, timeout=60)
    s.close()


def case_disk_full(ctx, rows):
    for mib in (2, 3, 4, 6, 8):
        c = lib.Ctx(ctx.loupe, tempfile.mkdtemp(prefix=f"loupe-df{mib}-"))
        mnt = faults_io.small_fs(c, mib)
        if not mnt:
            row(rows, "disk_full", f"tmpfs {mib} MiB", "skipped: mount refused here")
            return
        try:
            c.home = mnt
            c.env["LOUPE_HOME"] = mnt
            # a first index that does not fit: fails, says so, leaves no database
            big = c.path("big")
            faults_io.big_tree(big, 150 * mib)
            t0 = time.perf_counter()
            r = c.run("index", big)
            left = faults_io.db_files(c, big)
            assert r.rc != 0 and faults_io.DISK_FULL_WORDS in r.err and not left, (r, left)
            row(rows, "disk_full", f"tmpfs {mib} MiB: create of {150 * mib} files (too big)",
                "failed naming the full disk and the state folder; no database left",
                time.perf_counter() - t0)
            root = c.path("repo")
            faults_io.small_tree(root, 30)
            c.ok("index", root)
            filler = faults_io.fill(mnt)
            before = faults_io.pub_of(c, root)
            faults_io.big_tree(os.path.join(root, "more"), 20)
            r = c.run("sync", root)
            assert r.rc != 0 and faults_io.DISK_FULL_WORDS in r.err, r
            assert faults_io.pub_of(c, root) == before
            j = c.ok("search", "tokenword", "--path", root, "--limit", "2", "--json").json()
            cont = any(w.startswith("continuation_unavailable:") for w in j["warnings"])
            assert cont and j["pagination"]["complete"] is False, j
            os.unlink(filler)
            assert reliab.integrity(c, root) == "ok"
            shutil.rmtree(os.path.join(root, "more"))
            with open(os.path.join(root, "m0.py"), "a") as f:
                f.write("# edited\n")
            j = c.ok("sync", root, "--json").json()
            after = f"sync publishes {j['publicationId']}"
            row(rows, "disk_full", f"tmpfs {mib} MiB full: sync / search / continuation / "
                "space freed", f"sync failed (pub {before[0]} kept, integrity ok); search ok "
                f"with continuation_unavailable; filler removed: {after}")
        finally:
            faults_io.umount_fs(mnt)
            c.cleanup()
            shutil.rmtree(c.tmp, ignore_errors=True)


CASES = {"nofile": case_nofile, "special": case_special, "stuck": case_stuck,
         "disk_full": case_disk_full}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loupe", default=os.path.join(ROOT, "build", "loupe"))
    ap.add_argument("--only", default=None)
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS-faults-io.md"))
    args = ap.parse_args()
    names = args.only.split(",") if args.only else list(CASES)
    rows, failed = [], []
    for name in names:
        ctx = lib.Ctx(os.path.abspath(args.loupe), tempfile.mkdtemp(prefix=f"loupe-fio-{name}-"))
        try:
            CASES[name](ctx, rows)
        except Exception as ex:  # noqa: BLE001 - report and go on with the next case
            failed.append(name)
            row(rows, name, "FAILED", repr(ex)[:300])
        finally:
            ctx.cleanup()
            subprocess.run(["rm", "-rf", ctx.tmp])
    if args.out != "-":
        with open(args.out, "w") as f:
            f.write("# I/O faults (bench/faults_io.py)\n\n")
            f.write(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} "
                    f"cores (shared with other jobs), {platform.machine()}. Seconds are wall "
                    "time of the whole step.\n\n")
            f.write("| case | what | result | seconds |\n|---|---|---|---:|\n")
            for r in rows:
                f.write("| " + " | ".join(x.replace("|", "\\|") for x in r) + " |\n")
    print(f"faults_io: {len(names) - len(failed)} cases ok, {len(failed)} failed {failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
