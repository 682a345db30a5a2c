"""Replay golden JSON-RPC transcripts (tests/mcp/golden/*.jsonl) through `loupe mcp`.

A transcript is one JSON object per line (lines starting with // are comments):

  {"args": [...], "env": {...}}   first line only: extra arguments ("{ROOT}" = the
                                  repository) / environment
  {"send": <message>}             write the message as one line on stdin
  {"send_raw": "text"}            write text as is (a newline is added unless it ends in one)
  {"send_big": {"bytes": N}}      write one line of N bytes (for the line limit)
  {"recv": <pattern>}             the next stdout message must match the pattern
  {"recv_set": [<pattern>, ...]}  the next len(list) messages match the patterns in any order
  {"quiet_ms": N}                 no stdout message arrives for N ms
  {"wait_ms": N}                  sleep N ms
  {"close_stdin": true}           close stdin
  {"exit": code, "within_ms": N}  the process exits with code within N ms (default 5000)

Setup directives (run in order; the server starts at the first send, so they may come
first):

  {"fixture": "name"}             copy tests/mcp/fixtures/<name> to ${TMP}/repo (${REPO})
  {"loupe": [args...], "rc": N}   run the loupe CLI with the test's state folder (rc 0 default)
  {"write": {"path": P, "text": T}}  write a file (folders created)
  {"mkdir": P}                    create a folder
  {"symlink": {"target": T, "link": L}}
  {"sql": {"root": R, "query": Q}}  run SQL on the index database of root R

Variables: ${TMP} (the test folder), ${REPO} (${TMP}/repo), ${STATE} (LOUPE_HOME),
${NOW_S_HEX} (the current time in seconds, hexadecimal) and
captured values are substituted in every string of sent messages, setup directives and
patterns (escaped inside "re:" patterns). A pattern "<capture:NAME>" matches any value and
stores it as ${NAME}.

Patterns normalize volatile fields: "<any>" matches anything, "<string>", "<number>",
"<integer>", "<object>", "<array>" match by type, a string "re:..." is a regular expression
searched in the value; an object pattern with the key "..." allows extra keys; a list pattern
ending with the string "..." matches its other items, in order, against a subsequence of the
value (extra items allowed); other values must be equal. After the last directive the process must have written nothing unexpected.
"""
import json
import os
import queue
import re
import subprocess
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(os.path.dirname(HERE), "mcp", "golden")


FIXTURES = os.path.join(os.path.dirname(HERE), "mcp", "fixtures")
VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def substitute(obj, vars_, regex=False):
    """Replace ${NAME} in every string of obj (keys included)."""
    if isinstance(obj, str):
        is_re = obj.startswith("re:")

        def rep(m):
            if m.group(1) not in vars_:
                raise AssertionError(f"unknown variable ${{{m.group(1)}}}")
            v = vars_[m.group(1)]
            v = v if isinstance(v, str) else json.dumps(v)
            return re.escape(v) if (is_re or regex) else v
        return VAR.sub(rep, obj)
    if isinstance(obj, list):
        return [substitute(x, vars_, regex) for x in obj]
    if isinstance(obj, dict):
        return {substitute(k, vars_): substitute(v, vars_, regex) for k, v in obj.items()}
    return obj


def match(pat, val, path="$", captures=None):
    """Return None when val matches pat, else a sentence saying where it differs."""
    if isinstance(pat, str):
        if pat == "<any>":
            return None
        if pat.startswith("<capture:") and pat.endswith(">"):
            if captures is not None:
                captures[pat[len("<capture:"):-1]] = val
            return None
        kinds = {"<string>": str, "<object>": dict, "<array>": list}
        if pat in kinds:
            return None if isinstance(val, kinds[pat]) else f"{path}: expected {pat}, got {val!r}"
        if pat == "<number>":
            ok = isinstance(val, (int, float)) and not isinstance(val, bool)
            return None if ok else f"{path}: expected a number, got {val!r}"
        if pat == "<integer>":
            ok = isinstance(val, int) and not isinstance(val, bool)
            return None if ok else f"{path}: expected an integer, got {val!r}"
        if pat.startswith("re:"):
            if isinstance(val, str) and re.search(pat[3:], val, re.S):
                return None
            return f"{path}: {val!r} does not match /{pat[3:]}/"
    if isinstance(pat, dict):
        if not isinstance(val, dict):
            return f"{path}: expected an object, got {val!r}"
        extra_ok = pat.get("...") == "..."
        for k, p in pat.items():
            if k == "...":
                continue
            if k not in val:
                return f"{path}: missing key {k!r} in {json.dumps(val)[:300]}"
            d = match(p, val[k], f"{path}.{k}", captures)
            if d:
                return d
        if not extra_ok:
            extra = sorted(set(val) - set(pat))
            if extra:
                return f"{path}: unexpected keys {extra}"
        return None
    if isinstance(pat, list) and pat and pat[-1] == "...":
        if not isinstance(val, list):
            return f"{path}: expected a list, got {json.dumps(val)[:300]}"
        j = 0
        for i, p in enumerate(pat[:-1]):
            while j < len(val) and match(p, val[j], f"{path}[{j}]", dict(captures)):
                j += 1
            if j == len(val):
                return f"{path}: no item matches pattern {i} ({json.dumps(p)[:200]}) in order"
            match(p, val[j], f"{path}[{j}]", captures)  # record its captures
            j += 1
        return None
    if isinstance(pat, list):
        if not isinstance(val, list) or len(val) != len(pat):
            return f"{path}: expected a list of {len(pat)}, got {json.dumps(val)[:300]}"
        for i, (p, v) in enumerate(zip(pat, val)):
            d = match(p, v, f"{path}[{i}]", captures)
            if d:
                return d
        return None
    if type(pat) is not type(val) and not (isinstance(pat, (int, float)) and isinstance(val, (int, float))
                                          and not isinstance(val, bool)):
        return f"{path}: expected {pat!r}, got {val!r}"
    return None if pat == val else f"{path}: expected {pat!r}, got {val!r}"


class Server:
    def __init__(self, loupe, args, env):
        self.proc = subprocess.Popen([loupe, "mcp", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.lines = queue.Queue()
        self.stderr = []
        threading.Thread(target=self._pump_out, daemon=True).start()
        threading.Thread(target=self._pump_err, daemon=True).start()

    def _pump_out(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _pump_err(self):
        for line in self.proc.stderr:
            self.stderr.append(line.decode("utf-8", "replace"))

    def send(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def recv(self, timeout=10.0):
        try:
            line = self.lines.get(timeout=timeout)
        except queue.Empty:
            raise AssertionError(f"no message within {timeout}s; stderr: {''.join(self.stderr)[-2000:]}")
        if line is None:
            self.lines.put(None)
            raise AssertionError(f"stdout closed; stderr: {''.join(self.stderr)[-2000:]}")
        assert line.endswith(b"\n"), f"message without newline: {line[:200]!r}"
        try:
            return json.loads(line)
        except ValueError as e:
            raise AssertionError(f"stdout carried a non-JSON line ({e}): {line[:300]!r}")

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def run_transcript(ctx, name):
    path = os.path.join(GOLDEN, name)
    steps = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            s = line.strip()
            if not s or s.startswith("//"):
                continue
            try:
                steps.append((n, json.loads(s)))
            except ValueError as e:
                raise AssertionError(f"{name}:{n}: bad transcript line: {e}")
    args, env = [], dict(ctx.env)
    env["LOUPE_MCP_TEST_TOOLS"] = "1"
    if steps and ("args" in steps[0][1] or "env" in steps[0][1]):
        root = os.path.dirname(os.path.dirname(HERE))
        args = [a.replace("{ROOT}", root) for a in steps[0][1].get("args", [])]
        env.update(steps[0][1].get("env", {}))
        steps = steps[1:]
    vars_ = {"TMP": ctx.tmp, "REPO": os.path.join(ctx.tmp, "repo"), "STATE": ctx.home}
    srv = None
    exited = False

    def server():
        nonlocal srv
        if srv is None:
            srv = Server(ctx.loupe, args, env)
            ctx._procs.append(srv.proc)
        return srv

    try:
        for n, st in steps:
            where = f"{name}:{n}"
            if any(k in st for k in ("fixture", "loupe", "write", "mkdir", "symlink", "sql")):
                setup(ctx, substitute(st, vars_), where)
                continue
            vars_["NOW_S_HEX"] = format(int(time.time()), "x")
            st = substitute(st, vars_)
            srv = server()
            if "send" in st:
                srv.send(json.dumps(st["send"], ensure_ascii=False).encode() + b"\n")
            elif "send_raw" in st:
                raw = st["send_raw"].encode()
                srv.send(raw if raw.endswith(b"\n") else raw + b"\n")
            elif "send_big" in st:
                n_bytes = st["send_big"]["bytes"]
                head = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"'
                tail = b'"}}\n'
                srv.send(head + b"x" * max(0, n_bytes - len(head) - len(tail) + 1) + tail)
            elif "recv" in st:
                got = srv.recv()
                d = match(st["recv"], got, captures=vars_)
                assert not d, f"{where}: {d}\n  got: {json.dumps(got)[:1500]}"
            elif "recv_set" in st:
                pats = list(st["recv_set"])
                got = [srv.recv() for _ in pats]
                for g in got:
                    for i, p in enumerate(pats):
                        if match(p, g) is None:
                            del pats[i]
                            break
                    else:
                        raise AssertionError(f"{where}: unexpected message {json.dumps(g)[:800]}; "
                                             f"still expected {json.dumps(pats)[:800]}")
            elif "quiet_ms" in st:
                try:
                    line = srv.lines.get(timeout=st["quiet_ms"] / 1000)
                except queue.Empty:
                    continue
                if line is not None:
                    raise AssertionError(f"{where}: expected silence, got {line[:500]!r}")
                srv.lines.put(None)
            elif "wait_ms" in st:
                time.sleep(st["wait_ms"] / 1000)
            elif "close_stdin" in st:
                srv.proc.stdin.close()
            elif "exit" in st:
                t0 = time.time()
                try:
                    rc = srv.proc.wait(timeout=st.get("within_ms", 5000) / 1000)
                except subprocess.TimeoutExpired:
                    raise AssertionError(f"{where}: did not exit within {st.get('within_ms', 5000)} ms")
                exited = True
                assert rc == st["exit"], f"{where}: exit status {rc}, expected {st['exit']}; " \
                                         f"stderr: {''.join(srv.stderr)[-2000:]}"
                dt = (time.time() - t0) * 1000
                assert dt <= st.get("within_ms", 5000), f"{where}: took {dt:.0f} ms"
                line = srv.lines.get(timeout=5)
                assert line is None, f"{where}: unexpected output after the transcript: {line[:500]!r}"
            else:
                raise AssertionError(f"{where}: unknown directive {st}")
        srv = server()
        if not exited:
            srv.proc.stdin.close()
            rc = srv.proc.wait(timeout=10)
            assert rc == 0, f"{name}: exit status {rc}; stderr: {''.join(srv.stderr)[-2000:]}"
            line = srv.lines.get(timeout=5)
            assert line is None, f"{name}: unexpected output after the transcript: {line[:500]!r}"
        err = "".join(srv.stderr)
        if "AddressSanitizer" in err or "runtime error:" in err or "LeakSanitizer" in err:
            raise AssertionError(f"{name}: sanitizer report:\n{err[-4000:]}")
    finally:
        if srv is not None:
            srv.kill()


def db_of(ctx, root):
    base = os.path.join(ctx.home, "roots")
    real = os.path.realpath(root)
    for d in os.listdir(base):
        with open(os.path.join(base, d, "root")) as f:
            if f.read().strip() == real:
                return os.path.join(base, d, "index.db")
    raise AssertionError(f"no index database for {root}")


def setup(ctx, st, where):
    import shutil
    import sqlite3
    if "fixture" in st:
        src = os.path.join(FIXTURES, st["fixture"])
        assert os.path.isdir(src), f"{where}: no fixture {src}"
        shutil.copytree(src, os.path.join(ctx.tmp, "repo"))
    elif "loupe" in st:
        r = ctx.run(*st["loupe"])
        want = st.get("rc", 0)
        assert r.rc == want, f"{where}: loupe {' '.join(st['loupe'])} exited {r.rc}, not {want}: {r!r}"
    elif "write" in st:
        path = st["write"]["path"]
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(st["write"]["text"])
    elif "mkdir" in st:
        os.makedirs(st["mkdir"], exist_ok=True)
    elif "symlink" in st:
        os.symlink(st["symlink"]["target"], st["symlink"]["link"])
    elif "sql" in st:
        con = sqlite3.connect(db_of(ctx, st["sql"]["root"]))
        con.execute(st["sql"]["query"])
        con.commit()
        con.close()


def transcripts():
    return sorted(f for f in os.listdir(GOLDEN) if f.endswith(".jsonl"))
