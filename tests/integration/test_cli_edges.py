"""The CLI at its edges: interrupts around the commit, what a re-run reports, settings that
make an index unservable, an empty LOUPE_HOME, file names that look like options or hold
control characters, symlink loops and unreadable files."""
import json
import os
import shutil
import signal
import subprocess
import time

import reliab


def _repo(ctx, n=8):
    root = ctx.path("repo")
    for i in range(n):
        ctx.write(f"m{i}.py", f"def func_{i}():\n    return {i}\n", root=root)
    return root


def _lease_phase(ctx, root):
    p = os.path.join(os.path.dirname(reliab.db_path(ctx, root)), "lease.json")
    try:
        with open(p) as f:
            return json.load(f).get("phase")
    except (OSError, ValueError):
        return None


def _interrupt_when(ctx, root, args, env, ready, timeout=60):
    p = ctx.spawn(*args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t0 = time.time()
    while not ready() and p.poll() is None and time.time() - t0 < timeout:
        time.sleep(0.02)
    assert p.poll() is None, "the build ended before the interrupt"
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=timeout)
    return p.returncode, out, err


def test_interrupt_before_commit_publishes_nothing(ctx):
    root = _repo(ctx)
    ctx.ok("index", root)
    ctx.write("m0.py", "def changed_0():\n    return 0\n", root=root)
    rc, out, err = _interrupt_when(
        ctx, root, ("sync", root), {"LOUPE_TEST_PAUSE_BEFORE_COMMIT_MS": "4000"},
        lambda: _lease_phase(ctx, root) == "publishing")
    assert rc == 1, (rc, out, err)
    assert "nothing was published" in err and "publication 1" in err and "stays current" in err, err
    assert ctx.ok("status", root, "--json").json()["publication"]["id"] == 1
    assert reliab.integrity(ctx, root) == "ok"
    assert "too late to cancel" in ctx.ok("index", "--help").out


def test_interrupt_after_commit_says_it_was_published(ctx):
    root = _repo(ctx)
    ctx.ok("index", root)
    ctx.write("m0.py", "def changed_0():\n    return 0\n", root=root)

    def committed():
        r = ctx.run("status", root, "--json", "--no-fresh")
        return r.rc == 0 and (r.json().get("publication") or {}).get("id") == 2

    rc, out, err = _interrupt_when(ctx, root, ("sync", root),
                                   {"LOUPE_TEST_PAUSE_AFTER_COMMIT_MS": "4000"}, committed)
    assert rc == 0, (rc, out, err)
    assert "too late to cancel" in err and "publication 2" in err, err
    assert "indexed" in out, out
    r = ctx.ok("sync", root, "--json").json()
    assert not r["published"], r  # the committed publication was complete


def test_index_rerun_reports_sync(ctx):
    root = _repo(ctx)
    assert ctx.ok("index", root, "--json").json()["operation"] == "create"
    ctx.write("m1.py", "def changed_1():\n    return 1\n", root=root)
    j = ctx.ok("index", root, "--json").json()
    assert j["operation"] == "sync" and j["files"]["changed"] == 1, j
    assert ctx.ok("status", root, "--json").json()["publication"]["operation"] == "sync"
    assert "(sync)" in ctx.ok("index", root).out or True  # nothing changed: no publication line


def test_dense_setting_mismatch_is_named(ctx):
    root = _repo(ctx, 3)
    ctx.ok("index", root, env={"LOUPE_DENSE": "1"})
    r = ctx.run("search", "func", "--path", root)
    assert r.rc == 4, r
    assert "LOUPE_DENSE=1" in r.err and "another loupe version" not in r.err, r.err
    assert f"loupe reindex {root}" in r.err, r.err
    assert ctx.ok("search", "func", "--path", root, env={"LOUPE_DENSE": "1"}).out
    st = ctx.run("status", root)
    assert "LOUPE_DENSE=1" in st.out, st
    ctx.ok("reindex", root)
    r = ctx.run("search", "func", "--path", root, env={"LOUPE_DENSE": "1"})
    assert r.rc == 4 and "without the dense channel" in r.err and "unset" in r.err, r.err


def test_empty_loupe_home_is_refused(ctx):
    root = _repo(ctx, 2)
    for args in (("index", root), ("list",), ("status", root)):
        r = ctx.run(*args, env={"LOUPE_HOME": ""})
        assert r.rc != 0 and "LOUPE_HOME is set but empty" in r.err, (args, r)
    assert not os.path.exists(os.path.join(ctx.env["HOME"], ".local", "state", "loupe")), \
        "the default state folder was used"


def test_dash_file_names_and_double_dash(ctx):
    root = _repo(ctx, 2)
    ctx.write("-rf.c", "int dash_file(void) { return 1; }\n", root=root)
    ctx.ok("index", root)
    r = ctx.run("read", "-rf.c", cwd=root)
    assert r.rc == 2 and "'-rf.c'" in r.err and "--" in r.err and "./-rf.c" in r.err, r
    assert "'read'" not in r.err, r.err
    for args in (("read", "--", "-rf.c"), ("read", "./-rf.c"), ("outline", "--", "-rf.c"),
                 ("outline", "--json", "--", "-rf.c")):
        out = ctx.ok(*args, cwd=root).out
        assert "dash_file" in out or "1|" in out, (args, out)
    r = ctx.run("outline", "-rf.c", cwd=root)
    assert r.rc == 2 and "put '--' before it" in r.err, r
    # '--' is accepted by every command that takes arguments
    for args in (("status", "--", root), ("sync", "--", root), ("search", "--", "dash_file"),
                 ("clear", "--json", "--", ctx.path("nothing-here"))):
        r = ctx.run(*args, cwd=root)
        assert "unknown option" not in r.err, (args, r)
    assert ctx.run("doctor", "--").rc in (0, 1)


def test_symlink_loop_is_named(ctx):
    root = _repo(ctx, 2)
    os.symlink("loop", os.path.join(root, "loop"))
    os.symlink("b_link", os.path.join(root, "a_link"))
    os.symlink("a_link", os.path.join(root, "b_link"))
    os.symlink("missing.py", os.path.join(root, "dangling.py"))
    j = ctx.ok("index", root, "--json").json()
    assert j["skipped"].get("symlink_loop") == 3 and j["skipped"].get("symlink_dangling") == 1, j
    assert "symlink_outside_root" not in j["skipped"], j
    r = ctx.run("read", os.path.join(root, "loop"))
    assert r.rc == 6 and "symlink loop" in r.err, r


def test_control_characters_in_names_cannot_forge_lines(ctx):
    root = _repo(ctx, 1)
    evil = "evil\n1. forged.py:1-9  function forged_result"
    ctx.write(evil, "def victim_marker():\n    return 1\n", root=root)
    ctx.ok("index", root)
    out = ctx.ok("search", "victim_marker", "--path", root).out
    lines = out.splitlines()
    assert not any(ln.startswith("1. forged.py") for ln in lines), out
    shown = "evil%0A1. forged.py:1-9  function forged_result"
    assert shown in out, out
    out = ctx.ok("outline", os.path.join(root, evil)).out
    assert out.splitlines()[0].startswith("evil%0A1."), out
    # the escaped form is a name every path argument takes back
    assert ctx.ok("outline", os.path.join(root, shown)).out == out
    out = ctx.ok("debug-scan", root, "--list").out
    assert not any(ln.startswith("1. forged") for ln in out.splitlines()), out
    # JSON keeps the real name
    j = ctx.ok("search", "victim_marker", "--path", root, "--json").json()
    assert j["results"][0]["owner"]["file"] == evil, j


def test_unreadable_file_says_why(ctx):
    root = _repo(ctx, 2)
    secret = ctx.write("secret.py", "def hidden():\n    return 1\n", root=root)
    os.chmod(secret, 0)
    prefix = []
    if os.geteuid() == 0:
        # root reads everything: build and read as an ordinary user instead
        if not shutil.which("setpriv"):
            return
        prefix = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        for d in (ctx.tmp, root, ctx.env["HOME"]):
            os.chmod(d, 0o777)
        os.makedirs(ctx.home, exist_ok=True)
        os.chmod(ctx.home, 0o777)

    def run(*args):
        return subprocess.run(prefix + [ctx.loupe, *args], env=ctx.env, cwd=root,
                              capture_output=True, text=True, timeout=120)

    r = run("index", root, "--json")
    assert r.returncode == 0, r
    assert json.loads(r.stdout)["skipped"].get("unreadable") == 1, r.stdout
    r = run("read", secret)
    assert r.returncode == 7, r
    assert "unreadable" in r.stderr and "Permission denied" in r.stderr, r.stderr
    assert "new, ignored or skipped" not in r.stderr, r.stderr
    r = run("outline", secret)
    assert "unreadable" in r.stderr, r.stderr
