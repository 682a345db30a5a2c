"""Helpers for integration tests: run the real loupe binary in an isolated state folder."""
import json
import os
import signal
import subprocess


class Result:
    def __init__(self, proc_result):
        self.rc = proc_result.returncode
        self.out = proc_result.stdout
        self.err = proc_result.stderr

    def json(self):
        try:
            return json.loads(self.out)
        except json.JSONDecodeError as e:
            raise AssertionError(f"stdout is not JSON ({e}): {self.out[:500]!r} stderr={self.err[:500]!r}")

    def __repr__(self):
        return f"Result(rc={self.rc}, out={self.out[:300]!r}, err={self.err[:300]!r})"


class Ctx:
    def __init__(self, loupe, tmp):
        self.loupe = loupe
        self.tmp = tmp
        self.home = os.path.join(tmp, "state")
        self.env = dict(os.environ)
        self.env["LOUPE_HOME"] = self.home
        self.env["HOME"] = os.path.join(tmp, "home")
        os.makedirs(self.env["HOME"], exist_ok=True)
        self.env.pop("LOUPE_LOG", None)
        self._procs = []

    def path(self, *parts):
        return os.path.join(self.tmp, *parts)

    def write(self, rel, content, root=None):
        p = os.path.join(root or self.tmp, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        mode = "wb" if isinstance(content, bytes) else "w"
        with open(p, mode) as f:
            f.write(content)
        return p

    def run(self, *args, cwd=None, input=None, timeout=300, env=None):
        e = dict(self.env)
        e.update(env or {})
        r = subprocess.run([self.loupe, *args], cwd=cwd or self.tmp, input=input, env=e,
                           capture_output=True, text=True, timeout=timeout, errors="replace")
        if (r.returncode == 86 or "AddressSanitizer" in r.stderr or "runtime error:" in r.stderr
                or "ThreadSanitizer" in r.stderr):
            raise AssertionError(f"sanitizer report from loupe {' '.join(args)}:\n{r.stderr[-4000:]}")
        return Result(r)

    def ok(self, *args, **kw):
        r = self.run(*args, **kw)
        assert r.rc == 0, f"loupe {' '.join(args)} failed: {r!r}"
        return r

    def spawn(self, *args, env=None, **kw):
        e = dict(self.env)
        e.update(env or {})
        p = subprocess.Popen([self.loupe, *args], env=e, cwd=self.tmp, **kw)
        self._procs.append(p)
        return p

    def cleanup(self):
        for p in self._procs:
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
                p.wait()
