"""A small MCP client for integration tests: one `loupe mcp` process, requests matched to
responses by id (they may arrive in any order), notifications kept per progress token."""
import json
import os
import queue
import shutil
import subprocess
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(os.path.dirname(HERE), "mcp", "fixtures")


def assert_text_covers(text, structured):
    """The text block is a compact outline of structuredContent written for a model (not the
    JSON again): every string of the structured answer is in it (as written, or JSON-escaped
    inside a next call), except the message of a warning the session was already given,
    which is then its code marked "(as before)"."""
    assert not text.lstrip().startswith("{"), text[:200]

    def walk(v, in_warning):
        if isinstance(v, str):
            for line in v.split("\n"):
                if line.strip():
                    esc = json.dumps(line, ensure_ascii=False)[1:-1]
                    assert line in text or esc in text, (line[:120], text[:2000])
        elif isinstance(v, list):
            for x in v:
                walk(x, in_warning)
        elif isinstance(v, dict):
            for k, x in v.items():
                if in_warning and k == "message" and f"{v.get('code')} (as before)" in text:
                    continue
                walk(x, k == "warnings" or (in_warning and k != "message"))

    walk(structured, False)


class ToolError(Exception):
    def __init__(self, text):
        super().__init__(text)
        self.text = text
        self.code = text.split(":", 1)[0]


class Session:
    def __init__(self, ctx, args=(), env=None):
        e = dict(ctx.env)
        e.update(env or {})
        self.proc = subprocess.Popen([ctx.loupe, "mcp", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=e)
        ctx._procs.append(self.proc)
        self.lock = threading.Lock()
        self.next_id = 1
        self.waiting = {}
        self.notes = []
        self.stderr = []
        threading.Thread(target=self._pump, daemon=True).start()
        threading.Thread(target=self._pump_err, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            msg = json.loads(line)
            if "id" in msg and ("result" in msg or "error" in msg):
                with self.lock:
                    q = self.waiting.pop(msg["id"], None)
                if q:
                    q.put(msg)
            else:
                with self.lock:
                    self.notes.append(msg)
        with self.lock:
            for q in self.waiting.values():
                q.put(None)

    def _pump_err(self):
        for line in self.proc.stderr:
            self.stderr.append(line.decode("utf-8", "replace"))

    def request(self, method, params=None, timeout=60):
        q = queue.Queue()
        with self.lock:
            rid = self.next_id
            self.next_id += 1
            self.waiting[rid] = q
            msg = {"jsonrpc": "2.0", "id": rid, "method": method}
            if params is not None:
                msg["params"] = params
            self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
            self.proc.stdin.flush()
        try:
            got = q.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no answer to {method} within {timeout}s; stderr: "
                                 f"{''.join(self.stderr)[-2000:]}")
        assert got is not None, f"server closed; stderr: {''.join(self.stderr)[-2000:]}"
        return got

    def call_raw(self, name, args, meta=None, timeout=60):
        params = {"name": name, "arguments": args}
        if meta:
            params["_meta"] = meta
        msg = self.request("tools/call", params, timeout)
        assert "result" in msg, msg
        return msg["result"]

    def call(self, name, args, **kw):
        """structuredContent of a successful call; ToolError for isError results."""
        res = self.call_raw(name, args, **kw)
        if res.get("isError"):
            raise ToolError(res["content"][0]["text"])
        assert_text_covers(res["content"][0]["text"], res["structuredContent"])
        return res["structuredContent"]

    def fail(self, name, args, **kw):
        res = self.call_raw(name, args, **kw)
        assert res.get("isError"), f"{name} {args} should fail: {json.dumps(res)[:800]}"
        return ToolError(res["content"][0]["text"])

    def close(self):
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        rc = self.proc.wait(timeout=30)
        err = "".join(self.stderr)
        for marker in ("AddressSanitizer", "runtime error:", "ThreadSanitizer"):
            assert marker not in err, err[-4000:]
        assert rc == 0, f"loupe mcp exited {rc}: {err[-2000:]}"


def copy_fixture(ctx, name="basic", dest="repo"):
    root = os.path.join(ctx.tmp, dest)
    shutil.copytree(os.path.join(FIXTURES, name), root)
    return root


def publication_ids(answer):
    """Every publication id an answer carries, by where it was found."""
    ids = {"publication": answer["publication"]["id"]}
    if "publicationId" in answer:
        ids["publicationId"] = answer["publicationId"]
    for i, r in enumerate(answer.get("results", [])):
        ids[f"results[{i}]"] = r["publicationId"]
    p = answer.get("pagination")
    if p:
        ids["pagination"] = p["publicationId"]
        if p.get("continuation"):
            ids["continuation"] = int(p["continuation"].split(":")[1])
    return ids
