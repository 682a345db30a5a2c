"""Foundation behaviour: sync granularity, publications, crashes, readers, paths, limits."""
import json
import os
import signal
import sqlite3
import subprocess
import threading
import time


def make_repo(ctx, name="repo", files=None):
    root = ctx.path(name)
    files = files or {
        "src/auth.py": "def refresh_token(session):\n    return session.renew()\n",
        "src/util.py": "def helper():\n    return 42\n",
        "README.md": "# Demo\n\nA demo repository about token refresh.\n",
    }
    for rel, content in files.items():
        ctx.write(rel, content, root=root)
    return root


def index_json(ctx, *args):
    return ctx.ok(*args, "--json").json()


def db_path(ctx, root):
    import hashlib  # noqa: F401  (root id is computed by loupe; find it via the root file)
    base = os.path.join(ctx.home, "roots")
    for d in os.listdir(base):
        with open(os.path.join(base, d, "root")) as f:
            if f.read().strip() == os.path.realpath(root):
                return os.path.join(base, d, "index.db")
    raise AssertionError("no database for " + root)


def test_create_then_nochange_sync_publishes_nothing(ctx):
    root = make_repo(ctx)
    r = index_json(ctx, "index", root)
    assert r["published"] and r["publicationId"] == 1 and r["files"]["added"] == 3, r
    r = index_json(ctx, "sync", root)
    assert not r["published"] and r["publicationId"] == 1, r
    assert r["files"]["unchanged"] == 3 and r["files"]["parsed"] == 0, r


def test_each_change_kind_reprocesses_only_that_file(ctx):
    root = make_repo(ctx)
    index_json(ctx, "index", root)
    # edit
    ctx.write("src/util.py", "def helper():\n    return 43\n", root=root)
    r = index_json(ctx, "sync", root)
    f = r["files"]
    assert (f["changed"], f["added"], f["deleted"], f["parsed"], f["unchanged"]) == (1, 0, 0, 1, 2), r
    # add
    ctx.write("src/new.py", "def brand_new():\n    pass\n", root=root)
    f = index_json(ctx, "sync", root)["files"]
    assert (f["added"], f["changed"], f["deleted"], f["parsed"], f["unchanged"]) == (1, 0, 0, 1, 3), f
    # delete
    os.remove(os.path.join(root, "src/new.py"))
    f = index_json(ctx, "sync", root)["files"]
    assert (f["deleted"], f["added"], f["changed"], f["parsed"], f["unchanged"]) == (1, 0, 0, 0, 3), f
    # rename: content already indexed, so nothing is parsed
    os.rename(os.path.join(root, "src/util.py"), os.path.join(root, "src/helpers.py"))
    r = index_json(ctx, "sync", root)
    f = r["files"]
    assert (f["added"], f["deleted"], f["parsed"], f["reused"]) == (1, 1, 0, 1), f
    assert r["files"]["total"] == 3
    # touch without change: stat differs, bytes do not; nothing is published
    os.utime(os.path.join(root, "src/auth.py"), (1, 1))
    r = index_json(ctx, "sync", root)
    assert r["files"]["touched"] == 1 and not r["published"], r


def test_search_finds_and_reports_publication(ctx):
    root = make_repo(ctx)
    ctx.ok("index", root)
    r = ctx.ok("search", "refresh", "token", "--path", root, "--json").json()
    assert r["publicationId"] == 1
    files = [g["owner"]["file"] for g in r["results"]]
    assert "src/auth.py" in files, r
    for g in r["results"]:
        assert {"rank", "owner", "score", "channels", "snippet"} <= set(g)
        assert {"file", "startLine", "endLine", "kind"} <= set(g["owner"])
    r = ctx.run("search", "--path", root, "--json", "!!!")
    assert r.rc == 1 and json.loads(r.out)["error"]["code"] == "invalid_argument", r


def test_status_stale_after_edit_and_fresh_after_sync(ctx):
    root = make_repo(ctx)
    ctx.ok("index", root)
    s = ctx.ok("status", root, "--json").json()
    assert s["state"] == "ready" and s["freshness"]["state"] == "fresh", s
    ctx.write("src/auth.py", "def refresh_token(s):\n    return None\n", root=root)
    s = ctx.ok("status", root, "--json").json()
    assert s["state"] == "stale" and s["freshness"]["changed"] == 1, s
    ctx.ok("sync", root)
    assert ctx.ok("status", root, "--json").json()["state"] == "ready"


def test_not_indexed_and_sync_refused(ctx):
    root = make_repo(ctx)
    r = ctx.run("status", root, "--json")
    assert r.rc == 3 and r.json()["state"] == "not_indexed", r
    r = ctx.run("sync", root, "--json")
    assert r.rc == 3 and r.json()["error"]["code"] == "not_indexed", r
    # sync created nothing
    assert ctx.ok("list", "--json").json()["codebases"] == []


def evidence_of(results):
    """Search results without what describes the disk rather than the publication."""
    return [{k: v for k, v in r.items() if k not in ("freshness", "recommendedNextAction")}
            for r in results]


def test_kill_during_build_keeps_previous_publication(ctx):
    files = {f"pkg/m{i:04d}.py": f"def func_{i}():\n    return {i}\n" * 5 for i in range(400)}
    root = make_repo(ctx, files=files)
    ctx.ok("index", root)
    before = ctx.ok("search", "func_7", "--path", root, "--json").json()
    for i in range(400):
        ctx.write(f"pkg/m{i:04d}.py", f"def changed_{i}():\n    return {i}\n", root=root)
    for attempt in range(3):
        p = ctx.spawn("sync", root, env={"LOUPE_TEST_WRITE_DELAY_US": "2000"},
                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.3 + 0.1 * attempt)
        assert p.poll() is None, "the build finished before it could be killed"
        p.send_signal(signal.SIGKILL)
        p.wait()
        con = sqlite3.connect(db_path(ctx, root))
        assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert con.execute("SELECT max(id) FROM publications").fetchone()[0] == 1
        con.close()
        after = ctx.ok("search", "func_7", "--path", root, "--json").json()
        # the evidence is the previous publication's; only its freshness (files edited
        # on disk since) may differ
        assert after["publicationId"] == 1
        assert evidence_of(after["results"]) == evidence_of(before["results"])
    # the crash hook aborts after every write, just before COMMIT
    r = ctx.run("sync", root, env={"LOUPE_TEST_CRASH_BEFORE_COMMIT": "1"})
    assert r.rc != 0
    assert ctx.ok("status", root, "--json", "--no-fresh").json()["publication"]["id"] == 1
    r = index_json(ctx, "sync", root)
    assert r["publicationId"] == 2 and r["files"]["changed"] == 400, r


def test_reader_during_sync_sees_one_publication(ctx):
    files = {f"d/f{i:03d}.txt": f"alpha_marker number {i}\n" for i in range(300)}
    root = make_repo(ctx, files=files)
    ctx.ok("index", root)
    for i in range(300):
        ctx.write(f"d/f{i:03d}.txt", f"beta_marker number {i}\n", root=root)
    seen = []
    stop = threading.Event()

    def reader():
        while not stop.is_set():
            r = ctx.run("search", "alpha_marker", "beta_marker", "--limit", "200", "--path", root,
                        "--json")
            if r.rc == 0:
                j = r.json()
                words = set()
                for g in j["results"]:
                    words.update(w for w in ("alpha_marker", "beta_marker") if w in g["snippet"])
                seen.append((j["publicationId"], tuple(sorted(words)), len(j["results"])))

    t = threading.Thread(target=reader)
    t.start()
    r = ctx.run("sync", root, "--json", env={"LOUPE_TEST_WRITE_DELAY_US": "3000"})
    time.sleep(0.2)
    stop.set()
    t.join()
    assert r.rc == 0, r
    assert len(seen) >= 3, seen
    for pub, words, n in seen:
        if pub == 1:
            assert words == ("alpha_marker",) and n == 200, (pub, words, n)
        else:
            assert pub == 2 and words == ("beta_marker",) and n == 200, (pub, words, n)
    assert {p for p, _, _ in seen} == {1, 2}, "the reader never saw both publications"


def test_reindex_keeps_serving_previous(ctx):
    files = {f"d/f{i:03d}.py": f"def marker_{i}():\n    pass\n" for i in range(200)}
    root = make_repo(ctx, files=files)
    ctx.ok("index", root)
    # 200 files x 15 ms of write delay: the reindex outlives the checks below even on a
    # loaded machine
    p = ctx.spawn("reindex", root, env={"LOUPE_TEST_WRITE_DELAY_US": "15000"},
                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.2)
    s = ctx.ok("status", root, "--json", "--no-fresh").json()
    assert s["state"] == "indexing" and s["publication"]["id"] == 1, s
    assert s["writer"]["operation"] == "reindex", s
    r = ctx.ok("search", "marker_5", "--path", root, "--json").json()
    assert r["publicationId"] == 1 and r["results"], r
    # a second writer is refused with the owner's pid
    b = ctx.run("sync", root, "--json")
    assert b.rc == 5 and b.json()["error"]["code"] == "busy", b
    assert f"pid {p.pid}" in b.json()["error"]["message"], b
    assert p.wait(timeout=60) == 0
    assert ctx.ok("status", root, "--json", "--no-fresh").json()["publication"]["id"] == 2


def test_read_refuses_escapes(ctx):
    root = make_repo(ctx)
    os.symlink("/etc/passwd", os.path.join(root, "src/passwd_link"))
    outside = ctx.write("outside.txt", "secret\n")
    ctx.ok("index", root)
    r = ctx.ok("read", os.path.join(root, "src/auth.py") + ":1-1")
    assert r.out == "1| def refresh_token(session):\n", r
    cases = [
        os.path.join(root, "src/../src/auth.py"),
        os.path.join(root, "..", "outside.txt"),
        outside,
        "/etc/passwd",
        os.path.join(root, "src/passwd_link"),
        "../outside.txt",
        os.path.join(ctx.home, "roots"),
    ]
    for c in cases:
        r = ctx.run("read", c, "--json", cwd=os.path.join(root, "src"))
        assert r.rc == 6, (c, r)
        assert r.json()["error"]["code"] == "path_refused", (c, r)
    r = ctx.run("read", os.path.join(root, "src/missing.py"), "--json")
    assert r.rc == 7 and r.json()["error"]["code"] == "not_found", r


def test_fingerprint_mismatch_requires_reindex(ctx):
    root = make_repo(ctx)
    ctx.ok("index", root)
    con = sqlite3.connect(db_path(ctx, root))
    con.execute("UPDATE publications SET fingerprint = 'schema=0;from-an-older-loupe'")
    con.commit()
    con.close()
    s = ctx.run("status", root, "--json", "--no-fresh")
    assert s.rc == 4 and s.json()["state"] == "requires_reindex", s
    r = ctx.run("search", "refresh", "--path", root, "--json")
    assert r.rc == 4 and r.json()["error"]["code"] == "requires_reindex", r
    r = ctx.run("sync", root, "--json")
    assert r.rc == 4, r
    ctx.ok("reindex", root)
    assert ctx.ok("status", root, "--json", "--no-fresh").json()["state"] == "ready"


def test_schema_3_database_is_migrated_by_reindex(ctx):
    root = make_repo(ctx)
    ctx.write("bin/blob.dat", b"\x00\x01" * 50, root=root)
    ctx.ok("index", root)
    con = sqlite3.connect(db_path(ctx, root))  # make it look like schema 3 wrote it
    con.executescript(
        "DROP TABLE skipped;"
        "CREATE TABLE skipped(path TEXT PRIMARY KEY, reason INTEGER NOT NULL) WITHOUT ROWID;"
        "INSERT INTO skipped VALUES('bin/blob.dat', 1);"
        "UPDATE meta SET value = '3' WHERE key = 'schema_version';"
        "UPDATE publications SET fingerprint = replace(fingerprint, 'schema=4', 'schema=3');")
    con.close()
    r = ctx.run("search", "refresh", "--path", root, "--json")
    assert r.rc == 4 and "reindex" in r.json()["error"]["message"], r
    r = index_json(ctx, "reindex", root)
    assert r["published"] and r["skipped"].get("binary") == 1, r
    con = sqlite3.connect(db_path(ctx, root))
    assert con.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("4",)
    row = con.execute("SELECT reason, size FROM skipped WHERE path = 'bin/blob.dat'").fetchone()
    con.close()
    assert row == (1, 100), row
    assert index_json(ctx, "sync", root)["files"]["read"] == 0


def test_broad_roots_refused(ctx):
    r = ctx.run("index", "/", "--json")
    assert r.rc == 6 and r.json()["error"]["code"] == "broad_root_refused", r
    assert "--allow-broad-root" in r.json()["error"]["message"]
    r = ctx.run("index", ctx.env["HOME"], "--json")
    assert r.rc == 6 and r.json()["error"]["code"] == "broad_root_refused", r


def test_limits_binary_and_partial(ctx):
    root = make_repo(ctx)
    ctx.write("bin/blob.dat", b"\x00\x01\x02" * 100, root=root)
    ctx.write("big/large.txt", "x" * (9 * 1024 * 1024), root=root)
    r = index_json(ctx, "index", root)
    assert r["skipped"].get("binary") == 1 and r["skipped"].get("too_large") == 1, r
    assert not r["partial"]
    ctx.ok("clear", root)
    r = index_json(ctx, "index", root, "--max-total-bytes", "60")
    assert r["partial"] and r["skipped"].get("limit_reached", 0) >= 1, r
    s = ctx.ok("status", root, "--json", "--no-fresh").json()
    assert s["publication"]["partial"] is True, s


def test_binary_file_is_not_read_again_while_its_stat_agrees(ctx):
    root = make_repo(ctx)
    blob = os.path.join(root, "bin/blob.dat")
    ctx.write("bin/blob.dat", b"\x00\x01\x02" * 100, root=root)
    r = index_json(ctx, "index", root)
    assert r["skipped"].get("binary") == 1 and r["files"]["read"] == 4, r
    # nothing changed: the stored skip is trusted, no file is opened
    r = index_json(ctx, "sync", root)
    assert r["files"]["read"] == 0 and r["skipped"].get("binary") == 1 and not r["published"], r
    # touched: read once more, still binary; the stat is recorded without a publication
    os.utime(blob, (5, 5))
    r = index_json(ctx, "sync", root)
    assert r["files"]["read"] == 1 and r["skipped"].get("binary") == 1 and not r["published"], r
    r = index_json(ctx, "sync", root)
    assert r["files"]["read"] == 0, r
    # the file becomes text: read, indexed, and no longer skipped
    with open(blob, "w") as f:
        f.write("now plain text about tokens\n")
    r = index_json(ctx, "sync", root)
    assert r["files"]["read"] == 1 and r["files"]["added"] == 1 and "binary" not in r["skipped"], r
    assert r["published"], r


def test_byte_limit_is_remembered_by_later_syncs(ctx):
    root = make_repo(ctx)
    r = index_json(ctx, "index", root, "--max-total-bytes", "60")
    assert r["partial"] and r["skipped"].get("limit_reached", 0) >= 1, r
    kept = r["files"]["total"]
    # a sync without the option keeps the root's limit: nothing is dropped or added
    r = index_json(ctx, "sync", root)
    assert not r["published"] and r["files"]["total"] == kept, r
    ctx.write("src/util.py", "def helper():\n    return 44\n", root=root)
    r = index_json(ctx, "sync", root)
    assert r["partial"] and r["files"]["total"] == kept, r
    # a new limit replaces it, and is kept in turn
    r = index_json(ctx, "sync", root, "--max-total-bytes", "100000")
    assert not r["partial"] and r["files"]["total"] == 3 and "limit_reached" not in r["skipped"], r
    r = index_json(ctx, "reindex", root)
    assert not r["partial"] and r["files"]["total"] == 3, r


def test_merkle_root_is_deterministic(ctx):
    files = {f"a/{i}.txt": f"content {i}\n" for i in range(20)}
    a = make_repo(ctx, "one", files)
    b = make_repo(ctx, "two", dict(reversed(list(files.items()))))
    ma = index_json(ctx, "index", a)["merkleRoot"]
    mb = index_json(ctx, "index", b)["merkleRoot"]
    assert ma == mb
    ctx.write("a/3.txt", "changed\n", root=b)
    assert index_json(ctx, "sync", b)["merkleRoot"] != ma


def test_clear_and_list(ctx):
    root = make_repo(ctx)
    ctx.ok("index", root)
    lst = ctx.ok("list", "--json").json()["codebases"]
    assert [c["root"] for c in lst] == [os.path.realpath(root)]
    ctx.ok("clear", root)
    assert ctx.ok("list", "--json").json()["codebases"] == []
    r = ctx.run("clear", root, "--json")
    assert r.rc == 3, r
