"""The connected embedding provider (an OpenAI-compatible /v1/embeddings endpoint) against a
loopback server started by the test: requests carry the model and the bearer key, vectors
of the configured dimension are stored, URL/model/dimension are the fingerprint's embedding
identity, and failures (HTTP errors, timeouts) degrade with a warning instead of failing."""
import http.server
import json
import os
import re
import sqlite3
import threading
import time
import zlib

DIM = 64


def fake_embedding(text):
    """A deterministic bag of words: every word adds 1 to a hashed dimension."""
    v = [0.0] * DIM
    for w in re.findall(r"[a-z]+", text.lower()):
        v[zlib.crc32(w.encode()) % DIM] += 1.0
    return v


class Handler(http.server.BaseHTTPRequestHandler):
    seen = []

    def log_message(self, *args):
        pass

    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        body = json.loads(self.rfile.read(n))
        Handler.seen.append((self.path, self.headers.get("Authorization"), body.get("model")))
        if self.path.startswith("/slow"):
            time.sleep(3)
        if self.path.startswith("/broken"):
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b'{"error": "overloaded"}')
            return
        data = [{"object": "embedding", "index": i, "embedding": fake_embedding(t)}
                for i, t in enumerate(body["input"])]
        out = json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)


def start_server():
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv


def db_path(ctx, root):
    base = os.path.join(ctx.home, "roots")
    for d in os.listdir(base):
        with open(os.path.join(base, d, "root")) as f:
            if f.read().strip() == os.path.realpath(root):
                return os.path.join(base, d, "index.db")
    raise AssertionError("no database for " + root)


def make_repo(ctx):
    root = ctx.path("repo")
    ctx.write("stats/mean.py", "def mean(values):\n    \"\"\"Average of the values.\"\"\"\n"
              "    return sum(values) / len(values)\n", root=root)
    ctx.write("net/dial.go", "package net\n\n// Dial opens a connection to the address.\n"
              "func Dial(addr string) (Conn, error) {\n\treturn dialTCP(addr)\n}\n", root=root)
    return root


def env_for(srv, path="/v1/embeddings", **extra):
    e = {"LOUPE_EMBED_URL": "http://127.0.0.1:%d%s" % (srv.server_address[1], path),
         "LOUPE_EMBED_REMOTE_MODEL": "fake-embed", "LOUPE_EMBED_DIM": str(DIM),
         "LOUPE_EMBED_API_KEY": "sk-test-123"}
    e.update(extra)
    return e


def test_remote_provider_vectors_identity_and_search(ctx):
    srv = start_server()
    try:
        root = make_repo(ctx)
        env = env_for(srv)
        ctx.ok("index", root, env=env)
        assert any(a == "Bearer sk-test-123" and m == "fake-embed" for _, a, m in Handler.seen)
        db = sqlite3.connect(db_path(ctx, root))
        sizes = {r[0] for r in db.execute("SELECT length(v) FROM vectors")}
        nvec = db.execute("SELECT count(*) FROM vectors").fetchone()[0]
        fp = db.execute("SELECT fingerprint FROM publications").fetchone()[0]
        db.close()
        assert nvec >= 2 and sizes == {DIM + 4}, (nvec, sizes)
        assert "embedding=openai-compat:fake-embed:64:" in fp and "sk-test" not in fp, fp
        r = ctx.ok("embed", "--search", root, "the mean of values", "-k", "2", env=env)
        assert r.json()["hits"][0]["path"] == "stats/mean.py", r.json()
        # Another provider configuration is another fingerprint: requires_reindex.
        s = ctx.run("status", root, "--json", env=env_for(srv, LOUPE_EMBED_DIM="32"))
        assert s.json()["state"] == "requires_reindex", s
        s = ctx.run("status", root, "--json", env=env)
        assert s.json()["state"] == "ready", s
    finally:
        srv.shutdown()


def test_remote_provider_failures_degrade(ctx):
    srv = start_server()
    try:
        root = make_repo(ctx)
        # HTTP errors at index time: the index is built (no vectors), with one warning.
        r = ctx.run("index", root, env=env_for(srv, "/broken"))
        assert r.rc == 0, r
        assert "embed.provider_failed" in r.err and "HTTP 500" in r.err, r
        db = sqlite3.connect(db_path(ctx, root))
        assert db.execute("SELECT count(*) FROM vectors").fetchone()[0] == 0
        db.close()
        # A query that times out: a clear error, quickly (the search layer turns it into a
        # dense_channel_absent warning).
        t0 = time.time()
        r = ctx.run("embed", "--search", root, "mean of values", env=env_for(
            srv, "/slow", LOUPE_EMBED_TIMEOUT_MS="400"))
        assert r.rc != 0 and "timed out" in r.err, r
        assert time.time() - t0 < 2.5, time.time() - t0
        # Incomplete configuration: said plainly.
        r = ctx.run("embed", "--info", env={"LOUPE_EMBED_URL": "http://127.0.0.1:1/x"})
        assert r.rc != 0 and "LOUPE_EMBED_DIM" in r.err, r
        r = ctx.ok("embed", "--info", env=env_for(srv))
        assert r.json()["identity"].startswith("openai-compat:fake-embed:64:"), r
    finally:
        srv.shutdown()
