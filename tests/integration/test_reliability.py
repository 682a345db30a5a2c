"""Reliability (docs/RELIABILITY.md): short versions of the crash and concurrency harnesses,
the path refusal table (CLI and MCP), and the cheap resource cases. The long runs are
bench/crash.py, bench/concurrency.py and bench/resources.py."""
import json
import os
import resource
import signal
import subprocess
import threading
import time

import reliab
from mcp_client import Session


def init_mcp(ctx):
    s = Session(ctx)
    s.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "reliab", "version": "1"}})
    return s


# ------------------------------------------------------------------------------------------
# Crashes.

def test_crash_kills_short(ctx):
    f = reliab.crash_run(ctx, kills_wanted=10, seed=20261201, nfiles=80)
    assert f["kills"] == 10, f
    assert f["recoveries"] == 10 and f["integrity_checks"] == 10, f
    assert f["by_op"]["create"] >= 1 and f["by_op"]["reindex"] >= 1 and f["by_op"]["sync"] >= 1, f


# ------------------------------------------------------------------------------------------
# Concurrency.

def test_readers_during_sync_cycles(ctx):
    # 20 cycles here (8 under the sanitizers); bench/concurrency.py runs 50 and more
    dflt = "8" if "ASAN_OPTIONS" in os.environ else "20"
    f = reliab.conc_run(ctx, cycles=int(os.environ.get("LOUPE_RELIAB_CYCLES", dflt)),
                        nfiles=16, mcp=True)
    for k in ("search", "outline", "read", "mcp_search"):
        assert f["by_kind"].get(k, 0) >= 3, f
    assert f["publications_seen"] >= 3, f


# ------------------------------------------------------------------------------------------
# Paths: every path-taking command and tool refuses escapes with a stable code.

def path_cases(ctx):
    root = ctx.path("repo")
    # the state folder lives INSIDE the indexed root: the walk skips it and no read may enter it
    ctx.home = os.path.join(root, ".loupe-state")
    ctx.env["LOUPE_HOME"] = ctx.home
    ctx.write("src/auth.py", "def refresh_token(session):\n    return session.renew()\n", root=root)
    ctx.write("README.md", "# Demo\n", root=root)
    outside = ctx.write("outside/secret.py", "def secret():\n    return 'x'\n")
    os.symlink("/etc/passwd", os.path.join(root, "src/passwd_link"))
    os.symlink(outside, os.path.join(root, "src/secret_link.py"))
    os.symlink(os.path.dirname(outside), os.path.join(root, "outdir"))
    os.symlink(os.path.join(root, "src/passwd_link"), os.path.join(root, "src/chain_link"))
    os.symlink(ctx.home, os.path.join(root, "statelink"))
    ctx.ok("index", root)
    dbfile = reliab.db_path(ctx, root)
    rid = os.path.basename(os.path.dirname(dbfile))
    src = os.path.join(root, "src")
    cases = [
        ("dotdot_inside", os.path.join(root, "src/../src/auth.py")),
        ("dotdot_out", os.path.join(root, "../outside/secret.py")),
        ("dotdot_relative", "../outside/secret.py"),
        ("dotdot_deep", os.path.join(root, "src/./../../outside/secret.py")),
        ("dotdot_trailing", os.path.join(root, "src/auth.py/..")),
        ("abs_outside", outside),
        ("abs_etc_passwd", "/etc/passwd"),
        ("abs_proc_environ", "/proc/self/environ"),
        ("abs_proc_root", "/proc/self/root/etc/passwd"),
        ("abs_dev_zero", "/dev/zero"),
        ("symlink_to_etc", os.path.join(src, "passwd_link")),
        ("symlink_to_outside_file", os.path.join(src, "secret_link.py")),
        ("symlink_dir_out", os.path.join(root, "outdir/secret.py")),
        ("symlink_chain_out", os.path.join(src, "chain_link")),
        ("symlink_into_state", os.path.join(root, "statelink/roots", rid, "root")),
        ("state_db", dbfile),
        ("state_root_file", os.path.join(ctx.home, "roots", rid, "root")),
        ("state_lease", os.path.join(ctx.home, "roots", rid, "lease.json")),
        ("state_folder", ctx.home),
        ("overlong", os.path.join(root, "a" * 5000)),
        ("overlong_component", os.path.join(root, "b" * 300)),
        ("empty", ""),
    ]
    return root, cases


def mcp_raw(ctx, messages):
    """Send raw JSON-RPC lines to a fresh server; every message it answers."""
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "reliab", "version": "1"}}}
    text = "".join(json.dumps(m) + "\n" for m in [init] + messages)
    r = ctx.run("mcp", input=text, timeout=60)
    assert r.rc == 0, r
    return [json.loads(line) for line in r.out.splitlines() if line.strip()]


def outside_dir(root):
    return os.path.join(os.path.dirname(root), "outside")


def test_path_refusal_table(ctx):
    root, cases = path_cases(ctx)
    cwd = os.path.join(root, "src")
    refused = 0
    problems = []
    # CLI: read and outline (argv cannot carry a NUL byte; MCP covers it below)
    for name, p in cases:
        for cmd in (["read"], ["outline"]):
            r = ctx.run(*cmd, p, "--json", cwd=cwd)
            code = r.json()["error"]["code"] if r.out.startswith("{") and r.rc else None
            if name == "empty" and r.rc == 2:
                refused += 1  # usage error: an empty FILE is not a path
                continue
            if r.rc != 6 or code != "path_refused":
                problems.append((cmd[0], name, r.rc, code, r.err[:200]))
            else:
                refused += 1
    # graph commands: refs --path-prefix and a file: id with '..' never escape
    for args in (["refs", "refresh_token", "--root", root, "--prefix", "../outside"],
                 ["refs", "refresh_token", "--root", root, "--prefix", outside_dir(root)],
                 ["calls", "file:../outside/secret.py", "--root", root],
                 ["trace", "file:src/auth.py", "file:src/../../outside/secret.py", "--root", root],
                 ["arch", "--subtree", "../outside", "--root", root]):
        r = ctx.run(*args, "--json", cwd=cwd)
        code = r.json()["error"]["code"] if r.out.startswith("{") and r.rc else None
        if r.rc != 6 or code != "path_refused":
            problems.append((args[0], "dotdot", r.rc, code, r.out[:200] + r.err[:200]))
        else:
            refused += 1
    # MCP: read_file and file_outline. Empty and over-4096-byte paths are refused by the
    # tools' input schema (the "Invalid arguments" tool error) before any path code runs.
    s = init_mcp(ctx)
    schema = {"overlong", "empty"}
    mcp_cases = [(n, p) for n, p in cases if n != "dotdot_relative"] + [("relative", "src/auth.py")]
    for name, p in mcp_cases:
        for tool in ("read_file", "file_outline"):
            e = s.fail(tool, {"path": p})
            want = "Invalid arguments for " + tool if name in schema else "path_refused"
            if e.code != want:
                problems.append((tool, name, e.text[:200]))
            else:
                refused += 1
    # MCP graph tools: relative path arguments (file: ids, pathPrefix, subtree)
    sym = ctx.ok("outline", os.path.join(root, "src/auth.py"), "--json").json()["symbols"][0]["id"]
    graph_cases = [
        ("find_references", {"path": root, "symbolId": sym, "pathPrefix": "../outside"}),
        ("find_references", {"path": root, "symbolId": sym, "pathPrefix": outside_dir(root)}),
        ("call_graph", {"path": root, "symbolId": "file:../outside/secret.py"}),
        ("call_graph", {"path": root, "symbolId": "file:/etc/passwd"}),
        ("trace_path", {"path": root, "fromId": "file:src/auth.py",
                        "toId": "file:src/../../outside/secret.py"}),
        ("architecture_overview", {"path": root, "subtree": "../outside"}),
        ("architecture_overview", {"path": root, "subtree": "/etc"}),
    ]
    for tool, a in graph_cases:
        e = s.fail(tool, a)
        if e.code != "path_refused":
            problems.append((tool, a, e.text[:200]))
        else:
            refused += 1
    s.close()
    # A NUL byte (JSON "\u0000") is refused before any tool runs (-32602 invalid_argument
    # naming the field, with the request's id): the string is never cut at the NUL and
    # served as a shorter path.
    for tool in ("read_file", "file_outline", "find_references"):
        for p in (os.path.join(root, "src/auth.py\x00.txt"), root + "\x00/../../etc/passwd"):
            msgs = mcp_raw(ctx, [{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                                  "params": {"name": tool, "arguments": {"path": p}}}])
            errs = [m for m in msgs if m.get("error", {}).get("code") == -32602 and
                    m.get("id") == 2 and
                    m["error"].get("data", {}).get("field") == "params.arguments.path"]
            if len(errs) != 1 or any(m.get("id") == 2 and "result" in m for m in msgs):
                problems.append((tool, "nul", msgs))
            else:
                refused += 1
    assert not problems, "\n".join(map(str, problems))
    assert refused >= 25 * 2, refused
    print(f"# path table: {refused} refusals ({len(cases)} paths x CLI read/outline and MCP "
          f"read_file/file_outline, graph commands and tools, NUL bytes)")
    # and the real file still reads
    assert ctx.ok("read", os.path.join(root, "src/auth.py") + ":1-1").out.startswith("1| def")


# ------------------------------------------------------------------------------------------
# Resources (cheap versions; bench/resources.py runs the heavy ones).

def test_sparse_1g_file_skipped_without_reading(ctx):
    root = ctx.path("repo")
    ctx.write("a.py", "def small():\n    pass\n", root=root)
    with open(os.path.join(root, "huge.txt"), "wb") as f:
        f.truncate(1 << 30)
    r = ctx.ok("index", root, "--json").json()
    assert r["skipped"].get("too_large") == 1 and r["files"]["total"] == 1, r
    assert r["bytesRead"] if "bytesRead" in r else True


def test_deep_nesting_5000(ctx):
    root = ctx.path("repo")
    ctx.write("top.py", "def top_level():\n    pass\n", root=root)
    fd = os.open(root, os.O_RDONLY)
    shallow = None
    for depth in range(1, 5001):
        os.mkdir("d", dir_fd=fd)
        nfd = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = nfd
        if depth in (10, 5000):
            f = os.open(f"leaf{depth}.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
            os.write(f, f"def leaf_{depth}():\n    pass\n".encode())
            os.close(f)
        if depth == 10:
            shallow = "/".join(["d"] * 10) + "/leaf10.py"
    os.close(fd)
    try:
        r = ctx.ok("index", root, "--json").json()
        assert r["files"]["total"] == 2, r  # top.py and the depth-10 leaf
        assert r["skipped"].get("unreadable", 0) >= 1, r  # past LP_PATH_MAX: counted, not listed
        o = ctx.ok("outline", os.path.join(root, shallow), "--json").json()
        assert [x["name"] for x in o["symbols"]] == ["leaf_10"], o
        assert ctx.ok("status", root, "--json").json()["state"] == "ready"
    finally:
        subprocess.run(["rm", "-rf", os.path.join(root, "d")], check=True)  # shutil recurses


def test_million_line_file(ctx):
    root = ctx.path("repo")
    with open(os.path.join(root if os.makedirs(root) is None else root, "lines.txt"), "w") as f:
        f.write("l\n" * 1_000_000)
    r = ctx.ok("index", root, "--json").json()
    assert r["files"]["total"] == 1, r
    rd = ctx.ok("read", os.path.join(root, "lines.txt") + ":999999-1000000", "--json").json()
    assert (rd["startLine"], rd["endLine"]) == (999999, 1000000), rd


def test_file_rewritten_while_read_never_stored_torn(ctx):
    root = ctx.path("repo")
    ctx.write("stable.py", "def stable():\n    pass\n", root=root)
    target = os.path.join(root, "moving.txt")
    a = "alphaword " * 60 + "\n"
    b = "bravoword " * 60 + "\n"
    n = 600  # 360 KiB: six 64 KiB chunks
    with open(target, "w") as f:
        f.write(a * n)
    stop = threading.Event()
    rewrites = [0]

    def writer():
        # rewrite in place (same size, never empty): only the stat check can tell
        fd = os.open(target, os.O_WRONLY)
        try:
            while not stop.is_set():
                for text in (a, b):
                    os.pwrite(fd, (text * n).encode(), 0)
                    rewrites[0] += 1
                    time.sleep(0.002)
        finally:
            os.close(fd)

    t = threading.Thread(target=writer)
    t.start()
    try:
        r = ctx.ok("index", root, "--json", env={"LOUPE_TEST_READ_DELAY_US": "30000"}).json()
    finally:
        stop.set()
        t.join()
    assert rewrites[0] > 5
    skipped = r["skipped"].get("changed_while_reading", 0)
    hits = {}
    for w in ("alphaword", "bravoword"):
        j = ctx.ok("search", w, "--path", root, "--json").json()
        hits[w] = any(g["owner"]["file"] == "moving.txt" for g in j["results"])
    assert not (hits["alphaword"] and hits["bravoword"]), ("torn content stored", r, hits)
    assert skipped == 1, r  # rewritten during both reads
    s = ctx.ok("status", root, "--json", "--no-fresh").json()
    assert s["skipped"].get("changed_while_reading") == 1, s
    # once the writer is done, the next sync indexes it whole
    r = ctx.ok("sync", root, "--json").json()
    assert r["skipped"].get("changed_while_reading", 0) == 0 and r["files"]["total"] == 2, r


def _limit(res, n):
    def pre():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(res, (n, n))
    return pre


def _run_limited(ctx, res, n, *args):
    e = dict(ctx.env)
    p = subprocess.Popen([ctx.loupe, *args], env=e, cwd=ctx.tmp, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, preexec_fn=_limit(res, n))
    out, err = p.communicate(timeout=300)
    return p.returncode, out, err


def test_disk_full_keeps_previous_publication(ctx):
    root = ctx.path("repo")
    for i in range(40):
        ctx.write(f"m{i}.py", f"def small_{i}():\n    return {i}\n", root=root)
    ctx.ok("index", root)
    for i in range(300):
        ctx.write(f"big/b{i}.py", "".join(f"def grow_{i}_{k}():\n    return '{'z' * 60}'\n"
                                          for k in range(60)), root=root)
    # taken after the edits: answers say when the root changed on disk since publication
    before = ctx.ok("search", "small_3", "--path", root, "--json").json()
    db = reliab.db_path(ctx, root)
    size = os.path.getsize(db) + os.path.getsize(db + "-wal") if os.path.exists(db + "-wal") \
        else os.path.getsize(db)
    rc, out, err = _run_limited(ctx, resource.RLIMIT_FSIZE, size + 256 * 1024, "sync", root)
    assert rc not in (0, -signal.SIGXFSZ) and rc > 0, (rc, err)
    assert "disk" in err.lower() or "full" in err.lower() or "too large" in err.lower(), err
    assert "Traceback" not in err and "AddressSanitizer" not in err, err
    assert reliab.integrity(ctx, root) == "ok"
    after = ctx.ok("search", "small_3", "--path", root, "--json").json()
    assert after["publicationId"] == before["publicationId"] == 1, after
    assert reliab.strip_volatile(after) == reliab.strip_volatile(before)
    r = ctx.ok("sync", root, "--json").json()
    assert r["publicationId"] == 2 and r["files"]["added"] == 300, r


def test_memory_cap_fails_cleanly(ctx):
    if "ASAN_OPTIONS" in os.environ or "/asan/" in ctx.loupe or "/tsan/" in ctx.loupe:
        return  # sanitizer runtimes reserve terabytes of shadow address space up front
    root = ctx.path("repo")
    for i in range(30):
        ctx.write(f"m{i}.py", f"def small_{i}():\n    return {i}\n", root=root)
    ctx.ok("index", root)
    for i in range(30):
        ctx.write(f"m{i}.py", f"def changed_{i}():\n    return {i}\n", root=root)
    # far too little address space to build: a clear error, no crash, nothing committed.
    # The cap is relative to the binary (its mapping alone is ~35 MB; a cap below it stops
    # the exec itself), leaving too little for a worker's stack and the build.
    cap = os.path.getsize(ctx.loupe) + (12 << 20)
    rc, out, err = _run_limited(ctx, resource.RLIMIT_AS, cap, "sync", root, "--threads", "1")
    assert rc > 0, (rc, err)  # an exit status, not a signal
    assert "memory" in err.lower(), err
    assert reliab.integrity(ctx, root) == "ok"
    s = ctx.ok("status", root, "--json", "--no-fresh").json()
    assert s["publication"]["id"] == 1, s
    # a cap that fits: the build completes
    rc, out, err = _run_limited(ctx, resource.RLIMIT_AS, 1 << 30, "sync", root, "--threads", "1")
    assert rc == 0, (rc, err)


def test_parser_out_of_memory_exits_cleanly(ctx):
    if "ASAN_OPTIONS" in os.environ or "/asan/" in ctx.loupe or "/tsan/" in ctx.loupe:
        return  # sanitizer runtimes reserve terabytes of shadow address space up front
    root = ctx.path("repo")
    ctx.write("big.py", "def fn_0(a, b):\n    return a + b\n", root=root)
    ctx.ok("index", root)
    # 20,000 functions: tree-sitter's tree needs more than the cap leaves (about 84 MiB RSS
    # uncapped); tree-sitter allocates through lp_xmalloc, so this is a clean exit 9, not
    # tree-sitter's abort()
    ctx.write("big.py", "".join(f"def fn_{i}(a, b):\n    return a + b * {i}\n"
                                for i in range(20000)), root=root)
    # taken after the edit: answers say when a file changed on disk since the publication
    before = ctx.ok("search", "fn_0", "--path", root, "--json").json()
    rc, out, err = _run_limited(ctx, resource.RLIMIT_AS, 96 << 20, "sync", root, "--threads", "1")
    assert rc == 9, (rc, err[-600:])
    assert "out of memory" in err and "previous publication stays current" in err, err
    assert reliab.integrity(ctx, root) == "ok"
    after = ctx.ok("search", "fn_0", "--path", root, "--json").json()
    assert reliab.strip_volatile(after) == reliab.strip_volatile(before)
