"""I/O fault harnesses shared by tests/integration/test_faults_io.py (short runs in make test)
and bench/faults_io.py (long runs): descriptor exhaustion (RLIMIT_NOFILE sweeps over create,
sync and search), special files swapped in for indexed files, and a full disk.

Invariant checked everywhere: a run under a fault either succeeds or fails with a clear
message, and the index never publishes less than the tree holds; the previous publication
stays current and whole (same id, same file count, integrity ok).
"""
import json
import os
import re
import resource
import shutil
import signal
import subprocess

import reliab


def limited(ctx, limits, *args, env=None, timeout=120, cwd=None):
    """Run loupe with (resource, value) limits set in the child (soft and hard alike, as
    `ulimit -n N` does); SIGXFSZ ignored so a file-size limit gives EFBIG. Returns
    (rc, stdout, stderr)."""
    def pre():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        for res, n in limits:
            resource.setrlimit(res, (n, n))
    e = dict(ctx.env)
    e.update(env or {})
    p = subprocess.run([ctx.loupe, *args], env=e, cwd=cwd or ctx.tmp, capture_output=True,
                       text=True, errors="replace", timeout=timeout, preexec_fn=pre)
    for bad in ("AddressSanitizer", "runtime error:", "ThreadSanitizer", "Traceback"):
        assert bad not in p.stderr, f"{bad} from loupe {' '.join(args)}:\n{p.stderr[-3000:]}"
    assert p.returncode >= 0, f"loupe {' '.join(args)} killed by signal {-p.returncode}: {p.stderr[-800:]}"
    return p.returncode, p.stdout, p.stderr


def nofile(ctx, n, *args, **kw):
    return limited(ctx, [(resource.RLIMIT_NOFILE, n)], *args, **kw)


def emfile_tree(root, nfolders=20, depth=30):
    """The issue's tree (nfolders folders d<i>/e/a.c) plus one chain `depth` folders deep,
    one file per level. Returns the number of files."""
    for i in range(1, nfolders + 1):
        os.makedirs(os.path.join(root, f"d{i}", "e"), exist_ok=True)
        with open(os.path.join(root, f"d{i}", "e", "a.c"), "w") as f:
            f.write(f"int f{i}(void){{return 1;}}\n")
    p = root
    for i in range(1, depth + 1):
        p = os.path.join(p, f"x{i}")
        os.makedirs(p, exist_ok=True)
        with open(os.path.join(p, "f.c"), "w") as f:
            f.write(f"int deep{i}(void){{return {i};}}\n")
    return nfolders + depth


def pub_of(ctx, root):
    """(publication id, files) of root, read without limits; (0, 0) when not indexed."""
    r = ctx.run("status", root, "--json", "--no-fresh")
    if r.rc != 0:
        return (0, 0)
    p = r.json().get("publication") or {}
    return (p.get("id", 0), p.get("files", 0))


LIMIT_WORDS = ("ulimit -n", "open-file", "Too many open files")


def clear_limit_error(err):
    last = err.strip().splitlines()[-1] if err.strip() else ""
    return any(w in last for w in LIMIT_WORDS), last


def fd_sweep(ctx, limits, nfolders=20, depth=30, log=None):
    """For each open-file limit: create (a second root, from nothing), sync (after an edit)
    and search under the limit. Returns figures; raises AssertionError on a violation."""
    root = ctx.path("emf")
    nfiles = emfile_tree(root, nfolders, depth)
    ctx.ok("index", root)
    fig = {"limits": 0, "sync_ok": 0, "sync_failed": 0, "create_ok": 0, "create_failed": 0,
           "search_ok": 0, "search_failed": 0, "min_sync_ok": None, "min_create_ok": None,
           "min_search_ok": None, "messages": set()}
    for n in limits:
        fig["limits"] += 1
        # sync after a real edit: either a new, whole publication or the previous one
        with open(os.path.join(root, "d1", "e", "a.c"), "w") as f:
            f.write(f"int f1(void){{return {n};}}\n")
        before = pub_of(ctx, root)
        rc, out, err = nofile(ctx, n, "sync", root)
        after = pub_of(ctx, root)
        if rc == 0:
            fig["sync_ok"] += 1
            fig["min_sync_ok"] = fig["min_sync_ok"] or n
            assert after[1] == nfiles, (n, "sync published less", before, after, err[-600:])
        else:
            fig["sync_failed"] += 1
            ok, last = clear_limit_error(err)
            assert ok, (n, "sync failed without naming the limit", err[-600:])
            # the kind of failure, without paths and the advice every message ends with
            fig["messages"].add(re.sub(r"/\S+", "PATH", last.split("; ")[0])[:120])
            assert after == before, (n, "failed sync changed the publication", before, after)
        assert reliab.integrity(ctx, root) == "ok", n
        # search (read-only): answers or fails naming the limit
        rc, out, err = nofile(ctx, n, "search", "deep7", "--path", root, "--json")
        if rc == 0:
            fig["search_ok"] += 1
            fig["min_search_ok"] = fig["min_search_ok"] or n
            j = json.loads(out)
            assert any(g["owner"]["file"].endswith("x7/f.c") for g in j["results"]), (n, j)
        else:
            fig["search_failed"] += 1
            ok, last = clear_limit_error(err)
            assert ok, (n, "search failed without naming the limit", err[-600:])
        # create from nothing under the limit: whole or not at all
        croot = ctx.path(f"emf-create-{n}")
        shutil.copytree(root, croot, symlinks=True)
        rc, out, err = nofile(ctx, n, "index", croot)
        cpub = pub_of(ctx, croot)
        if rc == 0:
            fig["create_ok"] += 1
            fig["min_create_ok"] = fig["min_create_ok"] or n
            assert cpub[1] == nfiles, (n, "create published less", cpub, err[-600:])
        else:
            fig["create_failed"] += 1
            ok, last = clear_limit_error(err)
            assert ok, (n, "create failed without naming the limit", err[-600:])
            assert cpub == (0, 0), (n, "failed create published", cpub)
        ctx.run("clear", croot)
        shutil.rmtree(croot, ignore_errors=True)
        if log:
            log(f"nofile={n}: sync {'ok' if after[0] != before[0] or rc == 0 else 'failed'} "
                f"pub={after} create={cpub}")
    fig["messages"] = sorted(fig["messages"])
    return fig


# ------------------------------------------------------------------------------------------
# Special files swapped in after indexing.

SPECIAL_TIMEOUT = 20  # seconds: far above a normal answer, far below "forever"


def special_repo(ctx):
    """A git repository of four C files, indexed; then swapped: a.c -> fifo, b.c -> symlink to
    /dev/zero, c.c -> a character device (mknod 1,5 = /dev/zero; when the sandbox refuses
    mknod, a second fifo, and `devices` says so), d.c -> symlink to a fifo inside the root.
    Returns (root, devices)."""
    root = ctx.path("special")
    files = {"a.c": "int foo(void){return 1;}\n", "b.c": "int bar(void){return foo();}\n",
             "c.c": "int baz(void){return foo() + 1;}\n", "d.c": "int qux(void){return 4;}\n"}
    for name, text in files.items():
        ctx.write(f"src/{name}", text, root=root)
    git = ["git", "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q", root], check=True)
    subprocess.run(git + ["-C", root, "add", "src"], check=True)
    subprocess.run(git + ["-C", root, "commit", "-qm", "base"], check=True)
    ctx.ok("index", root)
    src = os.path.join(root, "src")
    for name in files:
        os.unlink(os.path.join(src, name))
    os.mkfifo(os.path.join(src, "a.c"))
    os.symlink("/dev/zero", os.path.join(src, "b.c"))
    devices = True
    try:
        os.mknod(os.path.join(src, "c.c"), 0o644 | 0o020000, os.makedev(1, 5))
    except PermissionError:
        devices = False
        os.mkfifo(os.path.join(src, "c.c"))
    os.mkfifo(os.path.join(src, "fifo-target"))
    os.symlink("fifo-target", os.path.join(src, "d.c"))
    return root, devices


def special_cli(ctx, root):
    """search/read/outline/changes/status through the CLI: each answers in bounded time."""
    seen = {}
    r = ctx.run("search", "foo path:*.c", "--path", root, "--json", timeout=SPECIAL_TIMEOUT)
    assert r.rc == 0, r
    warn = " ".join(w if isinstance(w, str) else json.dumps(w) for w in r.json()["warnings"])
    assert "src/a.c is not a regular file" in warn and "src/c.c is not a regular file" in warn, warn
    seen["search"] = r.json()["publicationId"]
    for name in ("a.c", "c.c"):
        r = ctx.run("read", os.path.join(root, "src", name), "--json", timeout=SPECIAL_TIMEOUT)
        assert r.rc == 0, r
        j = r.json()
        assert j["source"] == "publication" and j["freshness"] == "stale", j
        assert j["warnings"][0]["code"] == "not_regular_file", j
        r = ctx.run("read", os.path.join(root, "src", name), timeout=SPECIAL_TIMEOUT)
        assert r.rc == 0 and "not a regular file" in r.err, r
        r = ctx.run("outline", os.path.join(root, "src", name), "--json", timeout=SPECIAL_TIMEOUT)
        assert r.rc == 0, r
    # a symlink out of the root is refused as a path; the one inside leads to a fifo
    r = ctx.run("read", os.path.join(root, "src", "b.c"), timeout=SPECIAL_TIMEOUT)
    assert r.rc == 6 and "outside every indexed root" in r.err, r
    # a path is resolved (realpath) before it is served: the fifo it leads to is not indexed
    r = ctx.run("read", os.path.join(root, "src", "d.c"), "--json", timeout=SPECIAL_TIMEOUT)
    assert r.rc == 7 and r.json()["error"]["code"] == "not_found", r
    r = ctx.run("changes", "--root", root, "--json", timeout=SPECIAL_TIMEOUT)
    assert r.rc == 0, r
    r = ctx.run("status", root, "--json", timeout=SPECIAL_TIMEOUT)
    assert r.rc == 0, r
    # a sync counts them as special files and keeps nothing stale
    r = ctx.run("sync", root, "--json", timeout=SPECIAL_TIMEOUT)
    assert r.rc == 0, r
    return seen


def special_mcp(ctx, root, Session):
    """The same through `loupe mcp` (4 workers): four searches at once, then read_file,
    file_outline, detect_changes; every call answered in bounded time, later calls too."""
    import threading
    s = Session(ctx, args=("--workers", "4"))
    s.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "faults", "version": "1"}})
    answers, errors = [], []

    def search():
        try:
            answers.append(s.call("search_codebase", {"path": root, "query": "foo path:*.c"},
                                  timeout=SPECIAL_TIMEOUT))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)
    th = [threading.Thread(target=search) for _ in range(4)]
    for t in th:
        t.start()
    for t in th:
        t.join(SPECIAL_TIMEOUT + 5)
    assert not errors and len(answers) == 4, errors
    for a in answers:
        text = json.dumps(a["warnings"])
        assert "src/a.c is not a regular file" in text, text
    src = os.path.join(root, "src")
    for name in ("a.c", "c.c"):
        a = s.call("read_file", {"path": os.path.join(src, name)}, timeout=SPECIAL_TIMEOUT)
        codes = [w["code"] for w in a["warnings"]]
        assert "not_regular_file" in codes, a["warnings"]
        a = s.call("file_outline", {"path": os.path.join(src, name)}, timeout=SPECIAL_TIMEOUT)
        assert "not_regular_file" in [w["code"] for w in a["warnings"]], a["warnings"]
    s.call("detect_changes", {"path": root}, timeout=SPECIAL_TIMEOUT)
    # the pool is intact: a later call answers at once
    s.call("search_codebase", {"path": root, "query": "qux"}, timeout=SPECIAL_TIMEOUT)
    s.close()


# ------------------------------------------------------------------------------------------
# A full disk.

DISK_FULL_WORDS = "the disk is full: no space left for the loupe state folder"


def small_fs(ctx, mib=3):
    """A small tmpfs for the state folder (we are root in the sandbox); None when mount is
    refused. Unmount with `umount_fs`."""
    mnt = ctx.path("small-fs")
    os.makedirs(mnt, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={mib}m", "tmpfs", mnt],
                       capture_output=True, text=True)
    return mnt if r.returncode == 0 else None


def umount_fs(mnt):
    if mnt:
        subprocess.run(["umount", "-l", mnt], capture_output=True)


def fill(mnt):
    """Fill the file system to the last byte (a filler file written until ENOSPC)."""
    path = os.path.join(mnt, "filler")
    chunk = b"\0" * 65536
    with open(path, "wb", buffering=0) as f:
        try:
            while True:
                f.write(chunk)
        except OSError:
            pass
        for n in (4096, 512, 1):
            try:
                while True:
                    f.write(b"\0" * n)
            except OSError:
                pass
    return path


def big_tree(root, nfiles, width=40):
    for i in range(nfiles):
        p = os.path.join(root, "big", f"b{i}.py")
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write("".join(f"def grow_{i}_{k}():\n    return '{'z' * 60}{i}{k}'\n"
                            for k in range(width)))


def small_tree(root, nfiles=30):
    for i in range(nfiles):
        p = os.path.join(root, f"m{i}.py")
        os.makedirs(root, exist_ok=True)
        with open(p, "w") as f:
            f.write(f"def handler_{i}():\n    return 'tokenword {i}'\n")


def db_files(ctx, root):
    base = os.path.join(ctx.home, "roots")
    left = []
    for d in os.listdir(base) if os.path.isdir(base) else []:
        try:
            with open(os.path.join(base, d, "root")) as f:
                if f.read().strip() != os.path.realpath(root):
                    continue
        except FileNotFoundError:
            continue
        left += [n for n in os.listdir(os.path.join(base, d)) if n.startswith("index.db")]
    return sorted(left)


def disk_full_tmpfs(ctx, mnt, Session):
    """The state folder on a small tmpfs, for real. Returns figures."""
    ctx.home = mnt
    ctx.env["LOUPE_HOME"] = mnt
    fig = {}
    # 1. a first index larger than the disk: fails, says so, leaves no database behind
    big = ctx.path("big-repo")
    big_tree(big, 500)
    r = ctx.run("index", big)
    assert r.rc != 0 and DISK_FULL_WORDS in r.err and mnt in r.err, r
    assert db_files(ctx, big) == [], db_files(ctx, big)
    fig["first_index"] = r.err.strip().splitlines()[-1]
    # 2. an index that fits, then a full disk
    root = ctx.path("repo")
    small_tree(root)
    ctx.ok("index", root)
    filler = fill(mnt)
    # 3. read-only commands work: search with a continuation that cannot be written
    r = ctx.run("search", "tokenword", "--path", root, "--limit", "2", "--json")
    assert r.rc == 0, r
    j = r.json()
    assert len(j["results"]) == 2, j
    assert j["pagination"]["complete"] is False and j["pagination"].get("continuation") is None, j
    w = [x for x in j["warnings"] if x.startswith("continuation_unavailable:")]
    assert w and DISK_FULL_WORDS in w[0], j["warnings"]
    r = ctx.run("search", "tokenword", "--path", root, "--limit", "2")
    assert r.rc == 0 and "warning: continuation_unavailable" in r.out, r
    r = ctx.run("read", os.path.join(root, "m1.py"))
    assert r.rc == 0 and "tokenword 1" in r.out, r
    # 4. a sync cannot write: one message naming the full disk and the state folder
    with open(os.path.join(root, "new.py"), "w") as f:
        f.write("def added():\n    return 1\n")
    before = pub_of(ctx, root)
    r = ctx.run("sync", root)
    last = r.err.strip().splitlines()[-1]
    assert r.rc != 0 and DISK_FULL_WORDS in last and mnt in last, r
    assert "disk I/O error" not in r.err, r
    assert f"publication {before[0]} stays current" in last, last
    assert pub_of(ctx, root) == before  # (integrity is checked once there is space for it)
    fig["cli_sync"] = last
    # 5. the same through MCP: search answers with the warning; a sync op fails the same way
    s = Session(ctx)
    s.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "faults", "version": "1"}})
    a = s.call("search_codebase", {"path": root, "query": "tokenword", "disclosureLimit": 2})
    codes = [x["code"] for x in a["warnings"]]
    assert "continuation_unavailable" in codes, a["warnings"]
    assert a["pagination"]["continuation"] is None and a["pagination"]["complete"] is False, a
    m = s.call("manage_index", {"action": "sync", "path": root, "waitMs": 60000}, timeout=90)
    assert m["operation"]["state"] == "failed", m
    msg = m["operation"]["error"]["message"]
    assert DISK_FULL_WORDS in msg and mnt in msg, msg
    assert m["operation"]["error"]["code"] == "disk_full", m["operation"]["error"]
    fig["mcp_sync"] = msg
    s.close()
    # 6. doctor fails the state folder and says why
    r = ctx.run("doctor")
    assert r.rc == 1, r
    line = [x for x in r.out.splitlines() if "state folder" in x][0]
    assert line.startswith("FAIL") and "No space left" in r.out, r.out
    fig["doctor"] = line
    # 7. space again: everything works, continuations too
    os.unlink(filler)
    assert reliab.integrity(ctx, root) == "ok" and pub_of(ctx, root) == before
    r = ctx.ok("sync", root, "--json").json()
    assert r["publicationId"] == before[0] + 1, r
    j = ctx.ok("search", "tokenword", "--path", root, "--limit", "2", "--json").json()
    assert j["pagination"].get("continuation"), j
    return fig


def disk_full_fsize(ctx):
    """Without mount: RLIMIT_FSIZE (SIGXFSZ ignored, so writes past it fail with EFBIG)
    stands for a full disk. Less real (EFBIG, not ENOSPC), same invariants."""
    fsize = resource.RLIMIT_FSIZE
    root = ctx.path("repo")
    small_tree(root)
    ctx.ok("index", root)
    before = pub_of(ctx, root)
    rc, out, err = limited(ctx, [(fsize, 2048)], "search", "tokenword", "--path", root,
                           "--limit", "2", "--json")
    assert rc == 0, err
    j = json.loads(out)
    assert any(w.startswith("continuation_unavailable:") for w in j["warnings"]), j
    big_tree(root, 200)
    dbsize = os.path.getsize(reliab.db_path(ctx, root))
    rc, out, err = limited(ctx, [(fsize, dbsize + 65536)], "sync", root)
    last = err.strip().splitlines()[-1]
    assert rc != 0 and ("file-size limit" in last or DISK_FULL_WORDS in last), err
    assert pub_of(ctx, root) == before and reliab.integrity(ctx, root) == "ok"
    return {"cli_sync": last}
