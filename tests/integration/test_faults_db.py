"""A damaged index database: noticed, reported as `damaged` everywhere, and always repaired
by `loupe reindex` (the damaged file kept aside). The long run is bench/damage.py."""
import glob
import os
import shutil
import sqlite3

import dbdamage
import mcp_client
import reliab


def _repo(ctx, n=60):
    root = ctx.path("repo")
    for i in range(n):
        body = "".join(
            f"def handler_{i}_{k}(request, retries={k}):\n"
            f"    \"\"\"Handle request {k} of module {i}: parse, validate and store it.\"\"\"\n"
            f"    value = helper_{(i + 1) % n}_0(request)\n"
            f"    return value + {k}\n\n" for k in range(12))
        ctx.write(f"pkg/mod{i:03d}.py", body, root=root)
    ctx.write("notes/zebra.py", "def zebrafinch_marker():\n    return 'finch'\n", root=root)
    return root


def _damage_until_detectable(db, seed):
    """Flip bytes (seeded) until SQLite's own integrity_check fails, like storage that
    went bad; each round starts from the pristine copy with the next seed."""
    pristine = db + ".pristine"
    shutil.copyfile(db, pristine)
    pages, size = dbdamage.btree_pages(db)
    for attempt in range(20):
        shutil.copyfile(pristine, db)
        dbdamage.flip_bytes(db, seed * 1000 + attempt, 200, pages, size)
        if not dbdamage.integrity_ok(db):
            os.unlink(pristine)
            return seed * 1000 + attempt
    raise AssertionError("could not damage the database detectably")


def test_random_page_damage_detected_and_reindex_recovers(ctx):
    root = _repo(ctx)
    ctx.ok("index", root)
    db = reliab.db_path(ctx, root)
    seeds = []
    for seed in range(1, 7):
        # checkpointed by the build: everything is in index.db, no -wal to mislead the flips
        assert not os.path.exists(db + "-wal") or os.path.getsize(db + "-wal") == 0
        seeds.append(_damage_until_detectable(db, seed))
        doc = ctx.run("doctor")
        assert doc.rc == 1, doc
        line = [ln for ln in doc.out.splitlines() if root in ln and "index" in ln]
        assert line and line[0].startswith("FAIL") and "damaged" in line[0], (seeds, doc.out)
        assert f"loupe reindex {root}" in doc.out, doc.out
        st = ctx.run("status", root, "--json", "--no-fresh")
        assert st.rc == 4 and st.json()["state"] == "damaged", (seeds, st)
        # nothing is served from it, and the advice is the command that repairs it
        for args in (("search", "zebrafinch", "--path", root), ("outline", f"{root}/pkg/mod001.py"),
                     ("sync", root)):
            r = ctx.run(*args)
            assert r.rc == 4 and f"loupe reindex {root}" in r.err, (args, r)
        r = ctx.run("reindex", root, "--json")
        assert r.rc == 0, (seeds, r)
        j = r.json()
        kept = j.get("damagedFileKept")
        assert kept and os.path.exists(kept) and os.path.dirname(kept) == os.path.dirname(db), j
        assert kept in r.err  # said where, also when stdout is JSON
        assert j["files"]["total"] == 61 and j["publicationId"] > 1, j
        assert dbdamage.integrity_ok(db)
        hits = ctx.ok("search", "zebrafinch", "--path", root, "--json").json()
        assert any(g["owner"]["file"] == "notes/zebra.py" for g in hits["results"]), hits
        out = ctx.ok("outline", f"{root}/pkg/mod007.py", "--json").json()
        assert len(out["symbols"]) == 12, out
        assert ctx.ok("doctor").rc == 0
        assert ctx.ok("status", root, "--json").json()["state"] == "ready"
        os.unlink(kept)
    # publication ids continue across replaced files: an old continuation never names a new one
    assert ctx.ok("status", root, "--json").json()["publication"]["id"] >= 7


def test_damage_seen_by_a_query_is_remembered(ctx):
    """The first reader that meets a damaged page says so; from then on every command
    reports `damaged` (also those whose own pages are sound), until a reindex."""
    root = _repo(ctx, 20)
    ctx.ok("index", root)
    db = reliab.db_path(ctx, root)
    # damage only the pages of the `files` table: status --no-fresh reads none of them
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    pages = [r[0] for r in con.execute("SELECT pageno FROM dbstat WHERE name = 'files'"
                                       " AND pagetype = 'leaf'")]
    size = con.execute("PRAGMA page_size").fetchone()[0]
    con.close()
    with open(db, "r+b") as f:
        for pg in pages:  # a leaf's cell pointer array: every row of it lost
            f.seek((pg - 1) * size + 8)
            f.write(b"\xff\xf0" * 8)
    assert ctx.ok("status", root, "--no-fresh", "--json").json()["state"] == "ready"
    r = ctx.run("status", root, "--json")  # the freshness walk reads `files`
    assert r.rc == 4 and r.json()["state"] == "damaged", r
    r = ctx.run("status", root, "--no-fresh", "--json")
    assert r.rc == 4 and r.json()["state"] == "damaged", r
    s = mcp_client.Session(ctx)
    e = s.fail("search_codebase", {"path": root, "query": "handler"})
    assert e.code == "damaged" and "reindex" in e.text, e.text
    lst = s.call("list_codebases", {})
    cb = [c for c in lst["codebases"] if c["root"] == root][0]
    assert cb["state"] == "damaged" and cb["recommendedNextAction"]["arguments"]["action"] == \
        "reindex", cb
    s.close()
    r = ctx.ok("reindex", root, "--json")
    assert r.json()["damagedFileKept"], r
    assert ctx.ok("status", root, "--json").json()["state"] == "ready"


def test_check_after_a_writer_died(ctx):
    """A build killed mid-way leaves its lease note: the next build checks the database
    (quick_check) before building on it, and refuses a damaged one."""
    root = _repo(ctx, 20)
    ctx.ok("index", root)
    db = reliab.db_path(ctx, root)
    lease = os.path.join(os.path.dirname(db), "lease.json")
    with open(lease, "w") as f:  # what a SIGKILLed writer leaves behind
        f.write('{"pid": 999999, "op": "sync", "phase": "indexing"}\n')
    ctx.write("pkg/new.py", "def fresh_one():\n    return 1\n", root=root)
    r = ctx.run("sync", root, env={"LOUPE_LOG": "info"})
    assert r.rc == 0 and "index.check_after_crash" in r.err, r
    with open(lease, "w") as f:
        f.write('{"pid": 999999, "op": "sync", "phase": "indexing"}\n')
    pages, size = dbdamage.btree_pages(db)
    with open(db, "r+b") as f:  # a page's header: its type byte and cell count
        for pg in pages[: len(pages) // 2]:
            f.seek((pg - 1) * size)
            f.write(b"\x07\x00\x00\xff\xff")
    ctx.write("pkg/new2.py", "def fresh_two():\n    return 2\n", root=root)
    r = ctx.run("sync", root)
    assert r.rc == 4 and "damaged" in r.err and f"loupe reindex {root}" in r.err, r
    assert ctx.run("status", root, "--json").json()["state"] == "damaged"
    r = ctx.ok("reindex", root)
    assert "moved to" in r.out, r
    assert ctx.ok("search", "fresh_two", "--path", root, "--json").json()["results"]


def test_unreadable_schema_version_is_damage(ctx):
    root = _repo(ctx, 5)
    ctx.ok("index", root)
    db = reliab.db_path(ctx, root)
    con = sqlite3.connect(db)
    con.execute("DELETE FROM meta WHERE key = 'schema_version'")
    con.commit()
    con.close()
    r = ctx.run("search", "handler", "--path", root)
    assert r.rc == 4 and "damaged" in r.err and "reindex" in r.err, r
    ctx.ok("reindex", root)
    assert ctx.ok("status", root, "--json").json()["state"] == "ready"
    assert not glob.glob(os.path.join(os.path.dirname(db), "damaged")), "note not removed"


def test_probing_a_temp_table_is_not_damage(ctx):
    """Statements that probe for a table made on demand (the vocabulary of the lexical
    channel) must not be mistaken for a damaged schema."""
    root = _repo(ctx, 5)
    ctx.ok("index", root)
    ctx.ok("search", "zebrafinch", "--path", root)
    ctx.ok("search", "handler request", "--path", root)
    assert ctx.ok("status", root, "--json").json()["state"] == "ready"
