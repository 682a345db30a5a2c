"""I/O faults (docs/RELIABILITY.md): descriptor exhaustion never drops indexed files, special
files swapped in after indexing never hang a command or the MCP server, and a full disk
fails a build cleanly without failing read-only searches. The long runs are
bench/faults_io.py."""
import os

import faults_io
import reliab


def test_fd_limit_during_sync_keeps_every_file(ctx):
    # the reproduction: `(ulimit -n 9; loupe sync emf)` deleted all 20 files, rc 0
    root = ctx.path("emf")
    faults_io.emfile_tree(root, 20, 0)
    ctx.ok("index", root)
    rc, out, err = faults_io.nofile(ctx, 9, "sync", root)
    assert rc != 0, (rc, out, err)
    last = err.strip().splitlines()[-1]
    assert "Too many open files" in last and "ulimit -n) is 9" in last, last
    assert "publication 1 stays current" in last, last
    assert faults_io.pub_of(ctx, root) == (1, 20)
    assert reliab.integrity(ctx, root) == "ok"
    # and with a workable limit the same sync changes nothing
    rc, out, err = faults_io.nofile(ctx, 64, "sync", root, "--json")
    assert rc == 0, err
    assert faults_io.pub_of(ctx, root) == (1, 20)


def test_fd_limit_sweep_never_publishes_less(ctx):
    asan = "ASAN_OPTIONS" in os.environ
    limits = list(range(8, 41, 4 if asan else 1))
    fig = faults_io.fd_sweep(ctx, limits)
    print(f"# nofile sweep {limits[0]}..{limits[-1]}: sync ok {fig['sync_ok']} failed "
          f"{fig['sync_failed']} (first ok at {fig['min_sync_ok']}), create ok "
          f"{fig['create_ok']} failed {fig['create_failed']} (first ok at "
          f"{fig['min_create_ok']}), search ok {fig['search_ok']} failed {fig['search_failed']}")
    # the bounded walk and the worker count that fits the limit make low limits work
    assert fig["min_sync_ok"] is not None and fig["min_sync_ok"] <= 16, fig
    assert fig["min_create_ok"] is not None and fig["min_create_ok"] <= 16, fig
    assert fig["sync_ok"] >= len(limits) - 8, fig


def test_special_files_swapped_in_never_hang_the_cli(ctx):
    root, devices = faults_io.special_repo(ctx)
    if not devices:
        print("# mknod refused here: the device case used a second fifo")
    faults_io.special_cli(ctx, root)


def test_special_files_swapped_in_never_hang_mcp(ctx):
    from mcp_client import Session
    root, devices = faults_io.special_repo(ctx)
    faults_io.special_mcp(ctx, root, Session)


def test_mcp_watchdog_abandons_stuck_calls_safely(ctx):
    # under the sanitizers too: the abandoned call's arena and state stay with its thread and
    # are freed when the handler returns, after the watchdog gave up on it
    import json
    import queue
    import threading
    import time
    from mcp_client import Session
    s = Session(ctx, args=("--workers", "1", "--cancel-grace-ms", "200",
                           "--call-timeout-ms", "1500"), env={"LOUPE_MCP_TEST_TOOLS": "1"})
    s.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "faults", "version": "1"}})

    def send(msg):
        with s.lock:
            s.proc.stdin.write(json.dumps(msg).encode() + b"\n")
            s.proc.stdin.flush()

    # 1. a cancelled call that ignores the cancel: no answer for it, the next call is served
    stuck_q = queue.Queue()
    with s.lock:
        s.waiting["stuck"] = stuck_q
    send({"jsonrpc": "2.0", "id": "stuck", "method": "tools/call",
          "params": {"name": "debug_sleep", "arguments": {"ms": 2500, "ignore_cancel": True}}})
    time.sleep(0.2)
    send({"jsonrpc": "2.0", "method": "notifications/cancelled",
          "params": {"requestId": "stuck", "reason": "test"}})
    t0 = time.monotonic()
    echo = s.call("debug_echo", {"message": "next"}, timeout=20)
    assert echo["message"] == "next"
    assert time.monotonic() - t0 < 2.0, "the echo waited for the stuck call"
    # 2. a call past the limit: a -32001 error, then the server goes on
    t0 = time.monotonic()
    msg = s.request("tools/call", {"name": "debug_sleep",
                                   "arguments": {"ms": 2500, "ignore_cancel": True}}, timeout=20)
    assert msg["error"]["code"] == -32001 and msg["error"]["data"]["code"] == "timeout", msg
    assert time.monotonic() - t0 < 2.4, msg
    assert s.call("debug_echo", {"message": "after"}, timeout=20)["message"] == "after"
    # the stuck handlers return (2.5 s): their results are dropped, nothing more is answered
    time.sleep(3.0)
    assert stuck_q.empty(), stuck_q.get()
    assert s.call("debug_echo", {"message": "end"}, timeout=20)["message"] == "end"
    s.close()
    err = "".join(s.stderr)
    # both abandoned, both replaced, both handlers came back and were retired
    assert err.count("event=mcp.call.abandoned ") == 2, err
    assert err.count("replaced=1") == 2, err
    assert err.count("event=mcp.call.abandoned_returned ") == 2, err


def test_full_disk_fails_builds_cleanly_and_searches_go_on(ctx):
    from mcp_client import Session
    mnt = faults_io.small_fs(ctx)
    try:
        if mnt:
            fig = faults_io.disk_full_tmpfs(ctx, mnt, Session)
            print(f"# full disk (3 MiB tmpfs): {fig['cli_sync']}")
        else:
            # no mount here: only the file-size limit below stands for a full disk
            print("# mount refused: RLIMIT_FSIZE (EFBIG instead of ENOSPC) stands for a full disk")
    finally:
        faults_io.umount_fs(mnt)


def test_file_size_limit_fails_builds_cleanly_and_searches_go_on(ctx):
    fig = faults_io.disk_full_fsize(ctx)
    print(f"# file-size limit: {fig['cli_sync']}")
