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
