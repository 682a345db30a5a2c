#!/usr/bin/env python3
"""bench/resources.py: loupe under resource pressure (never part of make test; the cheap
versions are in tests/integration/test_reliability.py).

    bench/resources.py [--loupe BIN] [--only NAME[,NAME]] [--files N] [--out FILE]

Cases (each runs the real binary; wall time and peak RSS come from wait4):
  sparse_1g     a 1 GiB sparse file next to a small one: skipped as too_large from its size
  lines_10m     a 10-million-line file (skipped: over 8 MiB) and a 4-million-line file
                (7.6 MiB, the most lines a searchable file can hold): indexed, last line read
  files_200k    200,000 files in 200 folders: index, no-change sync, one-file sync
  deep_5000     5,000 nested folders: the walk stops at LP_PATH_MAX, counted as unreadable
  rewrite       a file rewritten continuously while being read (LOUPE_TEST_READ_DELAY_US)
  mem_cap       RLIMIT_AS caps from 32 MiB to 1 GiB on a 2,000-file sync: exit status, message
  disk_full     LOUPE_HOME on a 3 MiB tmpfs (root only; else RLIMIT_FSIZE): the build fails
                with a clear error and the previous publication stays current
Writes a Markdown table (default bench/RESULTS-reliability.md).
"""
import argparse
import json
import os
import platform
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


class Env:
    def __init__(self, loupe, tmp):
        self.loupe = loupe
        self.tmp = tmp
        self.env = dict(os.environ)
        self.env["LOUPE_HOME"] = os.path.join(tmp, "state")
        self.env["HOME"] = os.path.join(tmp, "home")
        os.makedirs(self.env["HOME"], exist_ok=True)

    def run(self, *args, env=None, limit=None):
        """(status, stdout, stderr, seconds, peak RSS MiB)."""
        e = dict(self.env)
        e.update(env or {})

        def pre():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            if limit:
                resource.setrlimit(limit[0], (limit[1], limit[1]))

        t0 = time.perf_counter()
        p = subprocess.Popen([self.loupe, *args], env=e, cwd=self.tmp, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, preexec_fn=pre)
        out_chunks, err_chunks = [], []
        to = threading.Thread(target=lambda: out_chunks.append(p.stdout.read()))
        te = threading.Thread(target=lambda: err_chunks.append(p.stderr.read()))
        to.start()
        te.start()
        _, status, ru = os.wait4(p.pid, 0)
        dt = time.perf_counter() - t0
        to.join()
        te.join()
        p.returncode = os.waitstatus_to_exitcode(status)
        return (p.returncode, "".join(out_chunks), "".join(err_chunks), dt,
                ru.ru_maxrss / 1024.0)

    def ok(self, *args, **kw):
        rc, out, err, dt, rss = self.run(*args, **kw)
        if rc != 0:
            raise RuntimeError(f"loupe {' '.join(args)} failed ({rc}): {err[-1500:]}")
        return json.loads(out) if "--json" in args else out, dt, rss

    def db(self, root):
        base = os.path.join(self.env["LOUPE_HOME"], "roots")
        for d in os.listdir(base):
            with open(os.path.join(base, d, "root")) as f:
                if f.read().strip() == os.path.realpath(root):
                    return os.path.join(base, d, "index.db")
        return None

    def integrity(self, root):
        con = sqlite3.connect(f"file:{self.db(root)}?mode=ro", uri=True)
        try:
            return con.execute("PRAGMA integrity_check").fetchone()[0]
        finally:
            con.close()


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def row(rows, case, what, result, seconds=None, rss=None):
    rows.append((case, what, result, "" if seconds is None else f"{seconds:.2f}",
                 "" if rss is None else f"{rss:.0f}"))
    print(f"{case:12} {what:52} {result:40} {rows[-1][3]:>8} s {rows[-1][4]:>6} MiB",
          flush=True)


def case_sparse_1g(e, rows, args):
    root = os.path.join(e.tmp, "sparse")
    write(os.path.join(root, "a.py"), "def small():\n    pass\n")
    with open(os.path.join(root, "huge.bin.txt"), "wb") as f:
        f.truncate(1 << 30)
    j, dt, rss = e.ok("index", root, "--json")
    assert j["skipped"].get("too_large") == 1 and j["files"]["total"] == 1, j
    row(rows, "sparse_1g", "index: 1 GiB sparse file + 1 small file",
        f"too_large=1, files=1", dt, rss)


def case_lines_10m(e, rows, args):
    root = os.path.join(e.tmp, "lines")
    os.makedirs(root)
    with open(os.path.join(root, "ten_million.txt"), "w") as f:
        for _ in range(100):
            f.write("x\n" * 100_000)
    j, dt, rss = e.ok("index", root, "--json")
    assert j["skipped"].get("too_large") == 1, j
    row(rows, "lines_10m", "index: 10,000,000-line file (19 MiB)", "too_large (from size)",
        dt, rss)
    with open(os.path.join(root, "four_million.txt"), "w") as f:
        for _ in range(40):
            f.write("y\n" * 100_000)
    j, dt, rss = e.ok("sync", root, "--json")
    assert j["files"]["total"] == 1 and j["files"]["added"] == 1, j
    row(rows, "lines_10m", "sync: + 4,000,000-line file (7.6 MiB)", "indexed", dt, rss)
    j, dt, rss = e.ok("read", os.path.join(root, "four_million.txt") + ":3999999-4000000",
                      "--json")
    assert j["endLine"] == 4000000, j
    row(rows, "lines_10m", "read lines 3,999,999-4,000,000", "2 lines", dt, rss)
    j, dt, rss = e.ok("search", "yyy", "y", "--path", root, "--json")
    row(rows, "lines_10m", "search in the 4M-line file", f"{len(j['results'])} results", dt, rss)


def case_files_200k(e, rows, args):
    n = args.files
    root = os.path.join(e.tmp, "many")
    t0 = time.perf_counter()
    per = 1000
    for d in range(n // per):
        dd = os.path.join(root, f"d{d:03d}")
        os.makedirs(dd)
        for i in range(per):
            with open(os.path.join(dd, f"f{i:04d}.py"), "w") as f:
                f.write(f"def fn_{d}_{i}():\n    return {i}\n")
    row(rows, "files_200k", f"create {n:,} files (python)", "", time.perf_counter() - t0)
    j, dt, rss = e.ok("index", root, "--json")
    assert j["files"]["total"] == n, j
    row(rows, "files_200k", f"index {n:,} files", f"files={j['files']['total']:,}", dt, rss)
    j, dt, rss = e.ok("sync", root, "--json")
    assert not j["published"], j
    row(rows, "files_200k", "sync, nothing changed", "published=false", dt, rss)
    write(os.path.join(root, "d000/f0000.py"), "def changed_one():\n    return 0\n")
    j, dt, rss = e.ok("sync", root, "--json")
    assert j["files"]["changed"] == 1, j
    row(rows, "files_200k", "sync, one file changed", "changed=1", dt, rss)
    j, dt, rss = e.ok("search", "changed_one", "--path", root, "--json")
    row(rows, "files_200k", "search changed_one", f"{len(j['results'])} results", dt, rss)
    j, dt, rss = e.ok("status", root, "--json")
    row(rows, "files_200k", "status (walks for freshness)", j["state"], dt, rss)


def case_deep_5000(e, rows, args):
    root = os.path.join(e.tmp, "deep")
    os.makedirs(root)
    write(os.path.join(root, "top.py"), "def top():\n    pass\n")
    fd = os.open(root, os.O_RDONLY)
    for depth in range(1, 5001):
        os.mkdir("d", dir_fd=fd)
        nfd = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = nfd
        if depth % 1000 == 0 or depth == 10:
            f = os.open(f"leaf{depth}.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
            os.write(f, f"def leaf_{depth}():\n    pass\n".encode())
            os.close(f)
    os.close(fd)
    j, dt, rss = e.ok("index", root, "--json")
    row(rows, "deep_5000", "index 5,000 nested folders",
        f"files={j['files']['total']}, unreadable={j['skipped'].get('unreadable', 0)}", dt, rss)
    j, dt, rss = e.ok("status", root, "--json")
    row(rows, "deep_5000", "status", j["state"], dt, rss)


def case_rewrite(e, rows, args):
    root = os.path.join(e.tmp, "rewrite")
    write(os.path.join(root, "stable.py"), "def stable():\n    pass\n")
    target = os.path.join(root, "moving.txt")
    a, b = "alphaword " * 60 + "\n", "bravoword " * 60 + "\n"
    write(target, a * 1200)
    for delay, label in ((30000, "rewritten during every read"), (0, "rewrites between reads")):
        stop = threading.Event()
        count = [0]

        def writer():
            while not stop.is_set():
                for text in (a, b):
                    with open(target, "w") as f:
                        f.write(text * 1200)
                    count[0] += 1
                    time.sleep(0.002)

        t = threading.Thread(target=writer)
        t.start()
        try:
            op = "index" if delay else "reindex"
            j, dt, rss = e.ok(op, root, "--json",
                              env={"LOUPE_TEST_READ_DELAY_US": str(delay)} if delay else None)
        finally:
            stop.set()
            t.join()
        torn = 0
        hits = []
        for w in ("alphaword", "bravoword"):
            s, _, _ = e.ok("search", w, "--path", root, "--json")
            hits.append(any(g["owner"]["file"] == "moving.txt" for g in s["results"]))
        torn = int(all(hits))
        assert not torn, "torn content stored"
        row(rows, "rewrite", f"{op}: {label} ({count[0]} rewrites)",
            f"changed_while_reading={j['skipped'].get('changed_while_reading', 0)}, torn={torn}",
            dt, rss)


def case_mem_cap(e, rows, args):
    root = os.path.join(e.tmp, "memcap")
    for i in range(2000):
        write(os.path.join(root, f"p{i // 100}/m{i}.py"),
              "".join(f"def f_{i}_{k}(x):\n    return x * {k}\n" for k in range(20)))
    _, dt, rss = e.ok("index", root, "--json")
    row(rows, "mem_cap", "index 2,000 files, no cap", "ok", dt, rss)
    pub = e.ok("status", root, "--json", "--no-fresh")[0]["publication"]["id"]
    for k in range(0, 2000, 3):
        write(os.path.join(root, f"p{k // 100}/m{k}.py"), f"def edited_{k}():\n    return {k}\n")
    for cap in (32, 64, 128, 256, 512, 1024):
        rc, out, err, dt, rss = e.run("sync", root, "--threads", "2",
                                      limit=(resource.RLIMIT_AS, cap << 20))
        msg = err.strip().splitlines()[-1][:90] if err.strip() else ""
        st = e.ok("status", root, "--json", "--no-fresh")[0]["publication"]["id"]
        ic = e.integrity(root)
        kept = "previous kept" if st == pub else f"published {st}"
        assert rc >= 0, f"killed by signal {-rc} at cap {cap} MiB: {err[-800:]}"
        assert ic == "ok", ic
        row(rows, "mem_cap", f"sync 667 edits, RLIMIT_AS {cap} MiB",
            f"exit {rc}, {kept}, integrity ok" + (f"; \"{msg}\"" if rc else ""), dt, rss)
        if rc == 0:
            break


def case_disk_full(e, rows, args):
    mnt = os.path.join(e.tmp, "small-fs")
    os.makedirs(mnt)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", mnt],
                             capture_output=True).returncode == 0
    home = mnt if mounted else os.path.join(e.tmp, "state-fsize")
    e2 = Env(e.loupe, e.tmp)
    e2.env["LOUPE_HOME"] = home
    root = os.path.join(e.tmp, "diskfull")
    for i in range(50):
        write(os.path.join(root, f"m{i}.py"), f"def small_{i}():\n    return {i}\n")
    try:
        _, dt, rss = e2.ok("index", root, "--json")
        pub = e2.ok("status", root, "--json", "--no-fresh")[0]["publication"]["id"]
        for i in range(600):
            write(os.path.join(root, f"big/b{i}.py"),
                  "".join(f"def grow_{i}_{k}():\n    return '{'z' * 60}{i}{k}'\n" for k in range(40)))
        lim = None if mounted else (resource.RLIMIT_FSIZE, os.path.getsize(e2.db(root)) + (1 << 20))
        rc, out, err, dt, rss = e2.run("sync", root, limit=lim)
        msg = err.strip().splitlines()[-1][:110] if err.strip() else ""
        st = e2.ok("status", root, "--json", "--no-fresh")[0]["publication"]["id"]
        ic = e2.integrity(root)
        assert rc > 0 and st == pub and ic == "ok", (rc, st, ic, err)
        how = "3 MiB tmpfs" if mounted else "RLIMIT_FSIZE"
        row(rows, "disk_full", f"sync +600 files, state on {how}",
            f"exit {rc}, pub {st} kept, integrity ok; \"{msg}\"", dt, rss)
        s, dt, rss = e2.ok("search", "small_3", "--path", root, "--json")
        row(rows, "disk_full", "search after the failed sync",
            f"publicationId={s['publicationId']}", dt, rss)
    finally:
        if mounted:
            subprocess.run(["umount", mnt])


CASES = {"sparse_1g": case_sparse_1g, "lines_10m": case_lines_10m,
         "files_200k": case_files_200k, "deep_5000": case_deep_5000, "rewrite": case_rewrite,
         "mem_cap": case_mem_cap, "disk_full": case_disk_full}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loupe", default=os.path.join(ROOT, "build", "loupe"))
    ap.add_argument("--only", default=None)
    ap.add_argument("--files", type=int, default=200_000)
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS-reliability.md"))
    args = ap.parse_args()
    names = args.only.split(",") if args.only else list(CASES)
    rows = []
    failed = []
    for name in names:
        tmp = tempfile.mkdtemp(prefix=f"loupe-res-{name}-")
        e = Env(os.path.abspath(args.loupe), tmp)
        try:
            CASES[name](e, rows, args)
        except Exception as ex:  # noqa: BLE001 - report and continue with the next case
            failed.append(name)
            row(rows, name, "FAILED", repr(ex)[:200])
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    with open(args.out, "w") as f:
        f.write("# Resource cases (bench/resources.py)\n\n")
        f.write(f"{time.strftime('%Y-%m-%d', time.gmtime())}, {os.cpu_count()} cores (shared), "
                f"{platform.machine()}; `python3 bench/resources.py"
                f"{' --only ' + args.only if args.only else ''}`. Times are wall seconds of "
                "the whole command; peak RSS from wait4.\n\n")
        f.write("| case | what | result | seconds | peak RSS MiB |\n|---|---|---|---:|---:|\n")
        for r in rows:
            f.write("| " + " | ".join(x.replace("|", "\\|") for x in r) + " |\n")
    print(f"resources: {len(names) - len(failed)} cases ok, {len(failed)} failed {failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
