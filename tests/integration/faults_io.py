"""I/O fault harnesses shared by tests/integration/test_faults_io.py (short runs in make test)
and bench/faults_io.py (long runs): descriptor exhaustion (RLIMIT_NOFILE sweeps over create,
sync and search), special files swapped in for indexed files, and a full disk.

Invariant checked everywhere: a run under a fault either succeeds or fails with a clear
message, and the index never publishes less than the tree holds; the previous publication
stays current and whole (same id, same file count, integrity ok).
"""
import json
import os
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
            fig["messages"].add(last.split(":")[0])
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
