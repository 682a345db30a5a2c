#!/usr/bin/env python3
"""bench/faults_db.py: the index database and the build under hostile input (never part of
make test; the short versions are tests/integration/test_faults_db.py and
test_cli_edges.py).

    bench/faults_db.py [--loupe BIN] [--only CASE[,CASE]] [--out FILE] [options]

Cases (real binary; wall time and peak RSS of each command from wait4):
  parse_budget  a tree of 8 generated files at the 8 MiB per-file limit (4 one-line
                minified JavaScript files of 7.9 MiB, 4 Python files of 1M lines): peak RSS
                of `loupe index` with default settings (target < 1 GiB), against the same
                build with the parse budget off (LOUPE_PARSE_BUDGET_MB=0), both in one run
  sync_jump     a work tree moved between two commits far apart (pytest or pylint from
                /work/shared/data/devtasks, --repo): `loupe sync` of the jump against
                `loupe index` of the target tree from nothing, both in one run (target:
                sync <= create + 10%)
  damage        random page damage, N rounds (--rounds, --seed): flip 200 bytes of b-tree
                pages of a real index until SQLite's integrity_check fails, then `doctor`
                must detect it, `reindex` must rebuild, and search must answer
Appends one Markdown section per case to --out (default bench/RESULTS-faults-db.md).
"""
import argparse
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "integration"))
import dbdamage  # noqa: E402


class Env:
    def __init__(self, loupe, tmp):
        self.loupe = loupe
        self.tmp = tmp
        self.env = dict(os.environ)
        self.env["LOUPE_HOME"] = os.path.join(tmp, "state")
        self.env["HOME"] = os.path.join(tmp, "home")
        self.env.pop("LOUPE_LOG", None)
        os.makedirs(self.env["HOME"], exist_ok=True)

    def run_rss(self, *args, env=None, cwd=None):
        """(status, stdout, stderr, seconds, peak RSS MiB of the child, from wait4)."""
        e = dict(self.env)
        e.update(env or {})
        t0 = time.perf_counter()
        out_path = os.path.join(self.tmp, ".out")
        err_path = os.path.join(self.tmp, ".err")
        with open(out_path, "w") as fo, open(err_path, "w") as fe:
            p = subprocess.Popen([self.loupe, *args], env=e, cwd=cwd or self.tmp, stdout=fo,
                                 stderr=fe)
            _, st, ru = os.wait4(p.pid, 0)
        secs = time.perf_counter() - t0
        p.returncode = os.waitstatus_to_exitcode(st)
        with open(out_path, errors="replace") as f:
            out = f.read()
        with open(err_path, errors="replace") as f:
            err = f.read()
        return p.returncode, out, err, secs, ru.ru_maxrss / 1024.0


def machine():
    return f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores " \
           f"(shared with other jobs), {platform.machine()}"


# ------------------------------------------------------------------------------------------
# parse_budget

def gen_minified_js(path, size, seed):
    rnd = random.Random(seed)
    parts, n, i = [], 0, 0
    while n < size:
        k = rnd.randrange(1000)
        s = (f"function f{i}_{k}(a,b){{var c=a+b*{i % 97};if(c>{k % 13}){{return "
             f"g{k}(c,[1,2,3],{{k:'v{i}',n:{i}}});}}return c;}}var v{i}=f{i}_{k}({i},{k});")
        parts.append(s)
        n += len(s)
        i += 1
    data = "".join(parts)[:size]
    with open(path, "w") as f:
        f.write(data)


def gen_python_lines(path, lines, seed):
    rnd = random.Random(seed)
    with open(path, "w") as f:
        for k in range(lines):
            f.write(f"x=f(y{rnd.randrange(10)})\n")


def case_parse_budget(loupe, args, out):
    tmp = tempfile.mkdtemp(prefix="loupe-pb-")
    rows = []
    try:
        tree = os.path.join(tmp, "tree")
        os.makedirs(tree)
        for i in range(4):
            gen_minified_js(os.path.join(tree, f"min{i}.js"), int(7.9 * 1024 * 1024), i)
            gen_python_lines(os.path.join(tree, f"gen{i}.py"), 1_000_000, i)
        sizes = sum(os.path.getsize(os.path.join(tree, f)) for f in os.listdir(tree))
        for label, env in (("default settings (parse budget 256 MiB, 30 s)", {}),
                           ("parse budget off (LOUPE_PARSE_BUDGET_MB=0, _MS=0)",
                            {"LOUPE_PARSE_BUDGET_MB": "0", "LOUPE_PARSE_BUDGET_MS": "0"})):
            e = Env(loupe, tempfile.mkdtemp(dir=tmp))
            rc, so, se, secs, rss = e.run_rss("index", tree, "--json", env=env)
            note = ""
            if rc == 0:
                j = json.loads(so)
                note = (f"files={j['files']['total']}, symbols={j['symbols']}, "
                        f"parse_budget={j['skipped'].get('parse_budget', 0)}")
            else:
                note = f"exit {rc}: {se.strip().splitlines()[-1][:120] if se.strip() else ''}"
            rows.append((label, note, secs, rss))
            print(f"parse_budget: {label}: {note} {secs:.1f}s {rss:.0f} MiB", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    with open(out, "a") as f:
        f.write(f"\n## parse_budget: peak RSS of indexing 8 files at the per-file limit\n\n"
                f"{machine()}. Tree: 4 one-line minified JavaScript files of 7.9 MiB and 4 "
                f"Python files of 1,000,000 lines (7.6 MiB), {sizes / 2**20:.1f} MiB in all; "
                f"`loupe index` with default threads (one per core). Target: peak RSS "
                f"< 1 GiB with default settings.\n\n"
                "| build | result | seconds | peak RSS MiB |\n|---|---|---:|---:|\n")
        for label, note, secs, rss in rows:
            f.write(f"| {label} | {note} | {secs:.1f} | {rss:.0f} |\n")
        if len(rows) == 2 and rows[1][3]:
            f.write(f"\nPeak RSS ratio, budget on / off: **{rows[0][3] / rows[1][3]:.2f}**; "
                    f"time ratio: {rows[0][2] / rows[1][2]:.2f}.\n")


# ------------------------------------------------------------------------------------------
# sync_jump

def git(repo, *a):
    return subprocess.run(["git", "-C", repo, *a], check=True, capture_output=True,
                          text=True).stdout


def pick_commits(repo, want):
    """Two commits of the bundle whose trees differ in about `want` paths."""
    commits = git(repo, "log", "--format=%H").split()
    best = None
    for i in range(len(commits)):
        for j in range(i + 1, len(commits)):
            n = len(git(repo, "diff", "--name-only", "--no-renames", commits[j], commits[i])
                    .split())
            if best is None or abs(n - want) < abs(best[2] - want):
                best = (commits[j], commits[i], n)
    return best


def case_sync_jump(loupe, args, out):
    tmp = tempfile.mkdtemp(prefix="loupe-sj-")
    rows = []
    try:
        bundle = args.bundle
        src = os.path.join(tmp, "src")
        subprocess.run(["git", "clone", "-q", bundle, src], check=True)
        old, new, ndiff = pick_commits(src, args.changed)
        print(f"sync_jump: {os.path.basename(bundle)} {old[:10]} -> {new[:10]}: {ndiff} paths",
              flush=True)
        work = os.path.join(tmp, "work")
        target = os.path.join(tmp, "target")
        subprocess.run(["git", "clone", "-q", src, work], check=True)
        subprocess.run(["git", "clone", "-q", src, target], check=True)
        git(target, "checkout", "-q", new)
        threads = ["--threads", str(args.threads)] if args.threads else []
        for rep in range(args.runs):
            e = Env(loupe, tempfile.mkdtemp(dir=tmp))
            git(work, "checkout", "-q", old)
            rc, so, se, s_old, rss_old = e.run_rss("index", work, "--quiet", *threads)
            assert rc == 0, se
            git(work, "checkout", "-q", new)
            rc, so, se, s_sync, rss_sync = e.run_rss("sync", work, "--json", *threads)
            assert rc == 0, se
            j = json.loads(so)
            e2 = Env(loupe, tempfile.mkdtemp(dir=tmp))
            rc, so2, se2, s_create, rss_create = e2.run_rss("index", target, "--json", *threads)
            assert rc == 0, se2
            k = json.loads(so2)
            rows.append((s_sync, rss_sync, s_create, rss_create, j, k))
            print(f"sync_jump run {rep + 1}: sync {s_sync:.1f}s ({rss_sync:.0f} MiB) create "
                  f"{s_create:.1f}s ({rss_create:.0f} MiB) ratio {s_sync / s_create:.2f}",
                  flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rows.sort(key=lambda r: r[0] / r[2])
    med = rows[len(rows) // 2]
    with open(out, "a") as f:
        f.write(f"\n## sync_jump: a checkout jump across {ndiff} changed paths, sync against "
                f"create\n\n{machine()}. `{os.path.basename(args.bundle)}`, "
                f"{old[:10]} -> {new[:10]} ({ndiff} paths differ); sync of the work tree "
                f"after the jump against `loupe index` of the target tree from nothing, "
                f"{args.runs} run(s), each pair back to back"
                f"{', --threads ' + str(args.threads) if args.threads else ''}. "
                f"Target: sync <= create + 10%.\n\n"
                "| run | sync s | create s | sync / create | sync peak MiB | create peak MiB "
                "| sync: added / changed / deleted / parsed / reused | graph ms (sync / create) |\n"
                "|---|---:|---:|---:|---:|---:|---|---:|\n")
        for i, (ss, rs, sc, rc_, j, k) in enumerate(rows):
            fl = j["files"]
            f.write(f"| {i + 1} | {ss:.2f} | {sc:.2f} | **{ss / sc:.2f}** | {rs:.0f} | "
                    f"{rc_:.0f} | {fl['added']} / {fl['changed']} / {fl['deleted']} / "
                    f"{fl['parsed']} / {fl['reused']} | {j.get('timingMs', {}).get('graph', '')}"
                    f" / {k.get('timingMs', {}).get('graph', '')} |\n")
        f.write(f"\nMedian ratio sync / create: **{med[0] / med[2]:.2f}**.\n")


# ------------------------------------------------------------------------------------------
# damage

def case_damage(loupe, args, out):
    tmp = tempfile.mkdtemp(prefix="loupe-dmg-")
    stats = {"rounds": 0, "doctor": 0, "reindex": 0, "search": 0, "status": 0,
             "reflips": 0}
    times = []
    try:
        src = os.path.join(tmp, "src")
        subprocess.run(["git", "clone", "-q", args.bundle, src], check=True)
        e = Env(loupe, os.path.join(tmp, "env"))
        rc, so, se, secs, rss = e.run_rss("index", src, "--quiet")
        assert rc == 0, se
        db = None
        for d in os.listdir(os.path.join(e.env["LOUPE_HOME"], "roots")):
            db = os.path.join(e.env["LOUPE_HOME"], "roots", d, "index.db")
        size_mb = os.path.getsize(db) / 2**20
        for r in range(args.rounds):
            pristine = db + ".pristine"
            shutil.copyfile(db, pristine)
            pages, psize = dbdamage.btree_pages(db)
            for attempt in range(50):
                shutil.copyfile(pristine, db)
                dbdamage.flip_bytes(db, args.seed * 100000 + r * 100 + attempt, 200, pages, psize)
                if not dbdamage.integrity_ok(db):
                    break
                stats["reflips"] += 1
            os.unlink(pristine)
            stats["rounds"] += 1
            rc, so, se, _, _ = e.run_rss("doctor")
            stats["doctor"] += rc == 1 and "damaged" in so
            rc, so, se, _, _ = e.run_rss("status", src, "--json", "--no-fresh")
            stats["status"] += '"damaged"' in so
            t0 = time.perf_counter()
            rc, so, se, _, _ = e.run_rss("reindex", src, "--quiet")
            times.append(time.perf_counter() - t0)
            stats["reindex"] += rc == 0 and dbdamage.integrity_ok(db)
            for f in os.listdir(os.path.dirname(db)):
                if f.startswith("damaged-"):
                    os.unlink(os.path.join(os.path.dirname(db), f))
            rc, so, se, _, _ = e.run_rss("search", "def", "--path", src, "--json")
            stats["search"] += rc == 0 and '"results": [' in so and '"results": []' not in so
            print(f"damage round {r + 1}: {stats}", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    with open(out, "a") as f:
        f.write(f"\n## damage: random page damage, detected and recovered\n\n{machine()}. "
                f"Index of `{os.path.basename(args.bundle)}` ({size_mb:.1f} MiB database); each "
                f"round flips 200 random bytes of b-tree pages (seeded, --seed {args.seed}) of "
                f"the pristine file until SQLite's integrity_check fails "
                f"({stats['reflips']} draws needed another try), then runs doctor, status "
                f"--no-fresh, reindex and a search.\n\n"
                "| rounds | doctor says damaged | status says damaged (no-fresh) | reindex rebuilt "
                "(integrity ok) | search answers | reindex s (median) |\n"
                "|---:|---:|---:|---:|---:|---:|\n"
                f"| {stats['rounds']} | **{stats['doctor']}** | {stats['status']} | "
                f"**{stats['reindex']}** | **{stats['search']}** | "
                f"{sorted(times)[len(times) // 2]:.2f} |\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loupe", default=os.path.join(ROOT, "build", "loupe"))
    ap.add_argument("--only", default="parse_budget,sync_jump,damage")
    ap.add_argument("--out", default=os.path.join(HERE, "RESULTS-faults-db.md"))
    ap.add_argument("--bundle", default="/work/shared/data/devtasks/pylint-dev+pylint.bundle")
    ap.add_argument("--changed", type=int, default=1500, help="sync_jump: paths to change")
    ap.add_argument("--runs", type=int, default=3, help="sync_jump: repetitions")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=20, help="damage: rounds")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    loupe = os.path.abspath(args.loupe)
    if not os.path.exists(args.out):
        with open(args.out, "w") as f:
            f.write("# The index database and the build under hostile input "
                    "(bench/faults_db.py)\n")
    for case in args.only.split(","):
        {"parse_budget": case_parse_budget, "sync_jump": case_sync_jump,
         "damage": case_damage}[case](loupe, args, args.out)


if __name__ == "__main__":
    main()
