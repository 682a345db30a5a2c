"""The dense channel through the real binary: vectors stored per chunk at index time, the
model identity in the fingerprint (a different model means requires_reindex), dense-only
search through `loupe embed --search`, vectors collected with their files."""
import os
import sqlite3
import struct


def db_path(ctx, root):
    base = os.path.join(ctx.home, "roots")
    for d in os.listdir(base):
        with open(os.path.join(base, d, "root")) as f:
            if f.read().strip() == os.path.realpath(root):
                return os.path.join(base, d, "index.db")
    raise AssertionError("no database for " + root)


def make_repo(ctx):
    root = ctx.path("repo")
    ctx.write("net/dial.go", "package net\n\n// Dial opens a TCP connection to the address.\n"
              "func Dial(addr string) (Conn, error) {\n\treturn dialTCP(addr, timeout)\n}\n",
              root=root)
    ctx.write("stats/mean.py", "def mean(values):\n    \"\"\"Average of the values.\"\"\"\n"
              "    return sum(values) / len(values)\n", root=root)
    ctx.write("web/render.js", "function renderTemplate(html, context) {\n"
              "  return html.replace(/{{(\\w+)}}/g, (m, k) => escapeHtml(context[k]));\n}\n",
              root=root)
    return root


def test_dense_vectors_identity_and_search(ctx):
    info = ctx.run("embed", "--info")
    if info.rc != 0:
        # A binary built without models/loupe-static-v1.bin: the channel says it is absent.
        assert "make model" in info.err, info
        return
    ident = info.json()["identity"]
    assert ident.startswith("loupe-static-v1:") and info.json()["dim"] == 256, info
    root = make_repo(ctx)
    # Off by default: no vectors, and the fingerprint says so.
    ctx.ok("index", root)
    db = sqlite3.connect(db_path(ctx, root))
    assert db.execute("SELECT count(*) FROM vectors").fetchone()[0] == 0
    fp = db.execute("SELECT fingerprint FROM publications ORDER BY id DESC").fetchone()[0]
    db.close()
    assert fp.endswith("embedding=none"), fp
    s = ctx.run("status", root, "--json", env={"LOUPE_DENSE": "1"})
    assert s.json()["state"] == "requires_reindex", s
    # LOUPE_DENSE=1: vectors for every chunk.
    ctx.env["LOUPE_DENSE"] = "1"
    ctx.ok("reindex", root)
    db = sqlite3.connect(db_path(ctx, root))
    nchunks = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
    nvec = db.execute("SELECT count(*) FROM vectors").fetchone()[0]
    sizes = {r[0] for r in db.execute("SELECT length(v) FROM vectors")}
    fp = db.execute("SELECT fingerprint FROM publications ORDER BY id DESC").fetchone()[0]
    db.close()
    assert nchunks >= 3 and nvec == nchunks, (nchunks, nvec)
    assert sizes == {260}, sizes
    assert fp.endswith("embedding=" + ident), fp

    r = ctx.ok("embed", "--search", root, "compute the average of a list of numbers", "-k", "3")
    hits = r.json()["hits"]
    assert hits and hits[0]["path"] == "stats/mean.py", hits
    r = ctx.ok("embed", "--search", root, "open a network socket to a server", "-k", "3")
    assert r.json()["hits"][0]["path"] == "net/dial.go", r.json()

    # Deleting a file collects its vectors with its chunks.
    os.remove(os.path.join(root, "net", "dial.go"))
    ctx.ok("sync", root)
    db = sqlite3.connect(db_path(ctx, root))
    orphans = db.execute("SELECT count(*) FROM vectors v LEFT JOIN chunks c"
                         " ON c.bid = v.bid AND c.ord = v.ord WHERE c.cid IS NULL").fetchone()[0]
    nvec2 = db.execute("SELECT count(*) FROM vectors").fetchone()[0]
    db.close()
    assert orphans == 0 and nvec2 < nvec, (orphans, nvec, nvec2)

    # Another model (here: none) is another fingerprint: the index requires a reindex.
    s = ctx.run("status", root, "--json", env={"LOUPE_EMBED_MODEL": "none"})
    assert s.json()["state"] == "requires_reindex", s


def test_damaged_model_file_is_refused(ctx):
    bad = ctx.write("bad.bin", b"LPEMBED1" + struct.pack("<I", 1) + b"\0" * 200)
    r = ctx.run("embed", "--info", env={"LOUPE_EMBED_MODEL": bad})
    assert r.rc != 0 and "damaged" in r.err and "bad.bin" in r.err, r
    old = ctx.write("old.bin", b"LPEMBED1" + struct.pack("<I", 7) + b"\0" * 200)
    r = ctx.run("embed", "--info", env={"LOUPE_EMBED_MODEL": old})
    assert r.rc != 0 and "format version 7" in r.err, r
    r = ctx.run("embed", "--info", env={"LOUPE_EMBED_MODEL": ctx.path("missing.bin")})
    assert r.rc != 0 and "missing.bin" in r.err, r
