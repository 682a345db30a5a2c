"""Reliability harnesses shared by tests/integration/test_reliability.py (short runs in
make test) and bench/crash.py, bench/concurrency.py (long runs): SIGKILL at random points of
create / sync / reindex, and readers during sync cycles.

Everything runs the real binary in a Ctx (lib.py). Nothing here is timed as a pass/fail
criterion: timing only decides where a kill lands.
"""
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import threading
import time

VOLATILE = {"continuation", "ms", "timingMs", "elapsedMs", "durationMs", "tookMs", "timings", "createdAt", "checkedAt"}


def strip_volatile(v):
    if isinstance(v, dict):
        return {k: strip_volatile(x) for k, x in v.items() if k not in VOLATILE}
    if isinstance(v, list):
        return [strip_volatile(x) for x in v]
    return v


def db_path(ctx, root):
    base = os.path.join(ctx.home, "roots")
    for d in os.listdir(base) if os.path.isdir(base) else []:
        try:
            with open(os.path.join(base, d, "root")) as f:
                if f.read().strip() == os.path.realpath(root):
                    return os.path.join(base, d, "index.db")
        except FileNotFoundError:
            continue
    return None


def integrity(ctx, root):
    """PRAGMA integrity_check on the root's database, opened read-only ("ok" or the report);
    None when there is no database at all."""
    p = db_path(ctx, root)
    if not p or not os.path.exists(p):
        return None
    try:
        con = sqlite3.connect(f"file:{p}?mode=ro", uri=True, timeout=30)
        try:
            return "\n".join(r[0] for r in con.execute("PRAGMA integrity_check"))
        finally:
            con.close()
    except sqlite3.OperationalError as e:
        if "readonly" not in str(e):
            raise
    # Right after a kill the WAL index may need recovery, which a read-only connection cannot
    # do ("attempt to write a readonly database"); loupe's readers open read-write for this
    # reason (and set query_only). Do the same.
    con = sqlite3.connect(p, timeout=30)
    try:
        con.execute("PRAGMA query_only=1")
        return "\n".join(r[0] for r in con.execute("PRAGMA integrity_check"))
    finally:
        con.close()


# ------------------------------------------------------------------------------------------
# Crash harness.

def crash_repo_files(gen, nfiles, rng):
    """Python files whose symbols and text name the generation, so answers can be traced."""
    files = {}
    for i in range(nfiles):
        body = [f"def crash_fn_{i}_g{gen}(x):", f'    """generation g{gen} file {i}"""']
        for k in range(rng.randint(2, 12)):
            body.append(f"    x = x + {k}  # crashtoken line {k} g{gen}")
        body.append("    return x")
        files[f"pkg/mod{i:04d}.py"] = "\n".join(body) + "\n"
    return files


def snapshot(ctx, root):
    """What a reader sees now: publication id plus search and outline answers."""
    st = ctx.run("status", root, "--json", "--no-fresh")
    if st.rc == 3:
        return {"publication": 0}
    assert st.rc in (0, 4), st
    pub = st.json()["publication"]["id"]
    s = ctx.ok("search", "crashtoken", "--limit", "20", "--path", root, "--json").json()
    o = ctx.ok("outline", os.path.join(root, "pkg/mod0001.py"), "--json").json()
    assert s["publicationId"] == pub and o["publicationId"] == pub, (pub, s, o)
    return {"publication": pub, "search": strip_volatile(s), "outline": strip_volatile(o)}


def edit_files(ctx, root, gen, rng, nfiles):
    """Real edits between builds: rewrite some files, add one, delete one."""
    files = crash_repo_files(gen, nfiles, rng)
    for rel in rng.sample(sorted(files), k=max(1, nfiles // 3)):
        ctx.write(rel, files[rel], root=root)
    ctx.write(f"extra/added_g{gen}.py", f"def added_g{gen}():\n    return 'crashtoken'\n", root=root)
    extras = sorted(os.listdir(os.path.join(root, "extra")))
    if len(extras) > 3:
        os.remove(os.path.join(root, "extra", extras[0]))


def crash_run(ctx, kills_wanted, seed, nfiles=120, max_rounds=None, log=None):
    """Kill create / sync / reindex with SIGKILL at random moments until kills_wanted kills
    landed inside a build. After each kill: integrity_check is ok, the previous publication is
    served unchanged (same id, same search and outline answers), and the next build
    completes. Returns a dict of figures."""
    rng = random.Random(seed)
    root = ctx.path("crashrepo")
    for rel, content in crash_repo_files(0, nfiles, rng).items():
        ctx.write(rel, content, root=root)
    ctx.write("extra/keep.py", "def keep():\n    return 'crashtoken'\n", root=root)
    figures = {"seed": seed, "kills": 0, "completed_before_kill": 0, "rounds": 0,
               "by_op": {"create": 0, "sync": 0, "reindex": 0}, "integrity_checks": 0,
               "recoveries": 0, "after_commit": 0, "phases": {}}
    gen = 0
    # builds of this small repository often finish before a random kill lands (a sync of
    # a few edited files takes tens of milliseconds): allow rounds enough to land the kills
    max_rounds = max_rounds or kills_wanted * 10
    t0 = time.time()
    while figures["kills"] < kills_wanted and figures["rounds"] < max_rounds:
        figures["rounds"] += 1
        if figures["rounds"] > 1 and rng.random() < 0.15:
            ctx.ok("clear", root)  # the next build is a create again
        before = snapshot(ctx, root)
        if before["publication"] == 0:
            op = "index"  # create: the first build of the root
        else:
            op = rng.choice(["sync", "sync", "reindex", "index"])
        if op != "reindex":
            gen += 1
            edit_files(ctx, root, gen, rng, nfiles)
            # what readers see with the files as they are now (groups say when their file
            # changed on disk since the publication, so the snapshot follows the edits)
            before = snapshot(ctx, root)
        delay = rng.choice([0, 200, 1000, 3000])
        wait = rng.uniform(0.0, 0.6 if delay else 0.25)
        env = {"LOUPE_TEST_WRITE_DELAY_US": str(delay)} if delay else {}
        p = ctx.spawn(op, root, "--threads", "2", env=env, stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL)
        time.sleep(wait)
        phase = None
        if p.poll() is None:
            try:
                with open(os.path.join(os.path.dirname(db_path(ctx, root) or root), "lease.json")) as f:
                    phase = json.load(f).get("phase")
            except (OSError, ValueError, TypeError):
                phase = None
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            p.wait()
            killed = p.returncode == -signal.SIGKILL
        else:
            killed = False
        if not killed:
            assert p.returncode == 0, f"{op} failed with status {p.returncode}"
            figures["completed_before_kill"] += 1
            continue
        figures["kills"] += 1
        figures["by_op"]["create" if op == "index" and before["publication"] == 0 else
                         ("sync" if op == "index" else op)] += 1
        figures["phases"][phase or "unknown"] = figures["phases"].get(phase or "unknown", 0) + 1
        ic = integrity(ctx, root)
        figures["integrity_checks"] += 1
        assert ic in (None, "ok"), f"integrity_check after kill {figures['kills']}: {ic}"
        after = snapshot(ctx, root)
        committed = after["publication"] != before["publication"]
        if committed:
            # the kill landed after COMMIT (while the process was exiting): the new
            # publication must then be whole, so the next sync finds nothing to do
            figures["after_commit"] += 1
            assert after["publication"] == before["publication"] + 1 or (
                before["publication"] == 0 and after["publication"] >= 1), (before, after)
        else:
            assert after == before, (f"kill {figures['kills']} ({op}, {phase}) changed what "
                                     f"readers see of publication {before['publication']}")
        # the next build completes and publishes the edits
        nxt = "index" if before["publication"] == 0 else "sync"
        r = ctx.run(nxt, root, "--json")
        assert r.rc == 0, f"{nxt} after kill {figures['kills']} failed: {r!r}"
        if committed:
            assert not r.json()["published"], ("a publication committed before the kill was "
                                               f"incomplete: {r.json()}")
        figures["recoveries"] += 1
        assert integrity(ctx, root) == "ok"
        if log:
            log(f"kill {figures['kills']}: {op} after {wait:.3f}s (delay {delay}us, phase "
                f"{phase}), pub {before['publication']} kept; {nxt} -> pub "
                f"{r.json()['publicationId']}")
    figures["seconds"] = round(time.time() - t0, 1)
    return figures


# ------------------------------------------------------------------------------------------
# Concurrency harness: readers during sync cycles.

GEN_RE = re.compile(r"conc_g(\d+)x")


def conc_files(cycle, nfiles):
    return {f"src/m{i:03d}.py": (f"def conc_{i}_conc_g{cycle}x(a):\n"
                                 f"    '''concword conc_g{cycle}x'''\n"
                                 f"    return a + {i}  # concword conc_g{cycle}x\n")
            for i in range(nfiles)}


def gens(text):
    return {int(g) for g in GEN_RE.findall(text)}


class Readers:
    """Reader threads, each running one kind of request in a loop, recording raw answers."""

    def __init__(self, ctx, root, nfiles, mcp=None):
        self.ctx, self.root, self.nfiles, self.mcp = ctx, root, nfiles, mcp
        self.stop = threading.Event()
        self.answers = []  # (kind, publicationId, generations seen, extra)
        self.errors = []
        self.lock = threading.Lock()
        self.threads = []

    def _record(self, kind, pub, gs, extra=None):
        with self.lock:
            self.answers.append((kind, pub, frozenset(gs), extra))

    def _loop(self, fn):
        i = 0
        while not self.stop.is_set():
            try:
                fn(i)
            except Exception as e:  # noqa: BLE001 - every failure is reported at the end
                with self.lock:
                    self.errors.append(repr(e))
            i += 1

    def search(self, i):
        r = self.ctx.run("search", "concword", "--limit", "50", "--path", self.root, "--json")
        if r.rc != 0:
            raise AssertionError(f"search failed: {r!r}")
        j = r.json()
        gs = set()
        for g in j["results"]:
            gs |= gens(g["snippet"]) | gens(g["owner"].get("symbol", "") or "")
        self._record("search", j["publicationId"], gs, len(j["results"]))

    def outline(self, i):
        f = os.path.join(self.root, f"src/m{i % self.nfiles:03d}.py")
        r = self.ctx.run("outline", f, "--json")
        if r.rc != 0:
            raise AssertionError(f"outline failed: {r!r}")
        j = r.json()
        gs = set()
        for s in j["symbols"]:
            gs |= gens(json.dumps(s))
        self._record("outline", j["publicationId"], gs)

    def read(self, i):
        f = os.path.join(self.root, f"src/m{i % self.nfiles:03d}.py")
        r = self.ctx.run("read", f, "--publication", "--json")
        if r.rc != 0:
            raise AssertionError(f"read failed: {r!r}")
        j = r.json()
        self._record("read", j["publicationId"], gens(j["content"]),
                     (j.get("stale"), j.get("source")))

    def mcp_search(self, i):
        from mcp_client import publication_ids
        a = self.mcp.call("search_codebase", {"path": self.root, "query": "concword", "limit": 10})
        ids = set(publication_ids(a).values())
        if len(ids) != 1:
            raise AssertionError(f"an MCP answer carries several publication ids: {ids}")
        gs = set()
        for g in a["results"]:
            gs |= gens(json.dumps(g))
        self._record("mcp_search", ids.pop(), gs)

    def start(self, kinds):
        for k in kinds:
            t = threading.Thread(target=self._loop, args=(getattr(self, k),), daemon=True)
            t.start()
            self.threads.append(t)

    def join(self):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=120)


def conc_run(ctx, cycles, nfiles=24, kinds=("search", "outline", "read"), mcp=False, log=None):
    """cycles sync cycles, each rewriting every file with the cycle's generation tag, while
    readers loop. Every answer must carry one publication id and show exactly that
    publication's generation. Returns figures."""
    root = ctx.path("concrepo")
    for rel, c in conc_files(0, nfiles).items():
        ctx.write(rel, c, root=root)
    r = ctx.ok("index", root, "--json").json()
    gen_of = {r["publicationId"]: 0}
    session = None
    if mcp:
        from mcp_client import Session
        session = Session(ctx)
        session.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                       "clientInfo": {"name": "reliab", "version": "1"}})
        kinds = tuple(kinds) + ("mcp_search",)
    readers = Readers(ctx, root, nfiles, mcp=session)
    readers.start(kinds)
    t0 = time.time()
    for c in range(1, cycles + 1):
        for rel, content in conc_files(c, nfiles).items():
            ctx.write(rel, content, root=root)
        # a rename too: the file list itself changes between publications
        if c % 5 == 0:
            ctx.write(f"src/extra_{c}.py", f"def conc_extra_conc_g{c}x():\n    pass\n", root=root)
        s = ctx.run("sync", root, "--json", env={"LOUPE_TEST_WRITE_DELAY_US": "500"})
        assert s.rc == 0, f"sync cycle {c} failed: {s!r}"
        j = s.json()
        assert j["published"], j
        gen_of[j["publicationId"]] = c
        if log and c % 10 == 0:
            log(f"cycle {c}: publication {j['publicationId']}, {len(readers.answers)} answers")
    time.sleep(0.3)
    readers.join()
    if session:
        session.close()
    assert not readers.errors, readers.errors[:5]
    bad = []
    by_kind = {}
    pubs_seen = set()
    for kind, pub, gs, extra in readers.answers:
        by_kind[kind] = by_kind.get(kind, 0) + 1
        pubs_seen.add(pub)
        want = gen_of.get(pub)
        if want is None or gs != {want}:
            bad.append((kind, pub, sorted(gs), want, extra))
    figures = {"cycles": cycles, "answers": len(readers.answers), "by_kind": by_kind,
               "publications_seen": len(pubs_seen), "mixed_or_wrong": len(bad),
               "seconds": round(time.time() - t0, 1)}
    assert not bad, f"{len(bad)} answers mix publications or show another one: {bad[:5]}"
    return figures
