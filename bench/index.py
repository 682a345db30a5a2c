#!/usr/bin/env python3
"""bench/index.py: indexing cost of loupe on real corpora, with ctags as the reference.

For each corpus (copied to a scratch folder first, so edits never touch system files):
  - cold index: wall time, throughput (MB/s of searchable bytes), peak RSS; median of N runs,
    each in a fresh state folder;
  - no-change sync and one-file-edit sync: median wall time;
  - database size against corpus size;
  - universal-ctags `ctags -R` on the same tree in the same run: wall time and peak RSS;
  - ratios loupe / ctags.
Prints a Markdown table and, with --out, appends it to a results file.

Usage: bench/index.py --corpus go=/usr/share/go-1.19/src [--corpus ...] [--runs 3]
                      [--loupe build/loupe] [--max-total-bytes N] [--out bench/RESULTS.md]
"""
import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def run_measured(cmd, env=None, cwd=None):
    """Run cmd; return (wall seconds, peak RSS in MiB, stdout). Raises on failure."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as errf:
        p = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=errf)
        out = p.stdout.read()
        # wait4 gives this child's own rusage (peak RSS), not the sum over all children.
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
        code = os.waitstatus_to_exitcode(status)
        p.returncode = code
        if code != 0:
            errf.seek(0)
            raise RuntimeError(f"{' '.join(cmd)} failed ({code}): {errf.read().decode()[-2000:]}")
    return wall, ru.ru_maxrss / 1024.0, out.decode()


def dir_size(path):
    total = 0
    for dp, _, fns in os.walk(path):
        for fn in fns:
            try:
                total += os.lstat(os.path.join(dp, fn)).st_size
            except OSError:
                pass
    return total


def corpus_stats(path):
    files = 0
    size = 0
    for dp, dns, fns in os.walk(path):
        dns[:] = [d for d in dns if d not in (".git", "node_modules")]
        for fn in fns:
            fp = os.path.join(dp, fn)
            if os.path.islink(fp):
                continue
            files += 1
            size += os.path.getsize(fp)
    return files, size


def pick_edit_file(root):
    """A mid-sized source file to edit: deterministic choice."""
    best = None
    for dp, dns, fns in os.walk(root):
        dns.sort()
        for fn in sorted(fns):
            if fn.endswith((".go", ".c", ".py", ".rs", ".java", ".ts", ".js")):
                fp = os.path.join(dp, fn)
                sz = os.path.getsize(fp)
                if 4000 < sz < 40000:
                    return fp
                best = best or fp
    return best


def bench_corpus(name, src, args, scratch):
    loupe = os.path.abspath(args.loupe)
    work = os.path.join(scratch, name)
    print(f"[{name}] copying {src} ...", file=sys.stderr, flush=True)
    shutil.copytree(src, work, symlinks=True)
    files, size = corpus_stats(work)
    extra = ["--max-total-bytes", str(args.max_total_bytes)] if args.max_total_bytes else []
    cold, rss, dbsz, report = [], [], [], None
    # Warm the page cache once so every run measures the same thing.
    subprocess.run(f"find {work} -type f -print0 | xargs -0 cat > /dev/null", shell=True)
    for i in range(args.runs):
        home = os.path.join(scratch, f"home-{name}-{i}")
        env = dict(os.environ, LOUPE_HOME=home)
        wall, peak, out = run_measured([loupe, "index", work, "--json"] + extra, env=env)
        report = json.loads(out)
        cold.append(wall)
        rss.append(peak)
        dbsz.append(dir_size(home))
        if i < args.runs - 1:
            shutil.rmtree(home)
    env = dict(os.environ, LOUPE_HOME=home)
    nochange = [run_measured([loupe, "sync", work, "--json"], env=env)[0] for _ in range(5)]
    edit_file = pick_edit_file(work)
    edits = []
    with open(edit_file, "rb") as f:
        original = f.read()
    for i in range(5):
        with open(edit_file, "ab") as f:
            f.write(f"\n// bench edit {i}\n".encode())
        wall, _, out = run_measured([loupe, "sync", work, "--json"], env=env)
        assert json.loads(out)["files"]["changed"] == 1, out
        edits.append(wall)
    with open(edit_file, "wb") as f:
        f.write(original)
    shutil.rmtree(home)
    # ctags reference on the same tree.
    ct, ct_rss = [], []
    for _ in range(args.runs):
        tags = os.path.join(scratch, "tags")
        wall, peak, _ = run_measured(["ctags", "-R", "-f", tags, work])
        ct.append(wall)
        ct_rss.append(peak)
        os.remove(tags)
    shutil.rmtree(work)
    med = statistics.median
    indexed_bytes = report["bytes"]
    return {
        "name": name, "files": files, "bytes": size, "indexed_files": report["files"]["total"],
        "indexed_bytes": indexed_bytes, "symbols": report["symbols"], "chunks": report["chunks"],
        "partial": report["partial"], "cold_s": med(cold), "cold_mbps": indexed_bytes / 1e6 / med(cold),
        "rss_mib": max(rss), "db_bytes": med(dbsz), "nochange_ms": med(nochange) * 1000,
        "edit_ms": med(edits) * 1000, "ctags_s": med(ct), "ctags_rss_mib": max(ct_rss),
    }


def table(rows):
    lines = [
        "| corpus | files | MB | indexed MB | symbols | cold index s | MB/s | peak RSS MiB | db / corpus | no-change sync ms | 1-file sync ms | ctags s | ctags RSS MiB | index / ctags time |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['name']} | {r['files']} | {r['bytes']/1e6:.1f} | {r['indexed_bytes']/1e6:.1f}"
            f"{' (partial)' if r['partial'] else ''} | {r['symbols']} | {r['cold_s']:.2f} | {r['cold_mbps']:.1f} | {r['rss_mib']:.0f} |"
            f" {r['db_bytes']/r['bytes']:.2f}x | {r['nochange_ms']:.0f} | {r['edit_ms']:.0f} | {r['ctags_s']:.2f} |"
            f" {r['ctags_rss_mib']:.0f} | {r['cold_s']/r['ctags_s']:.2f}x |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", action="append", required=True, help="name=path")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--loupe", default=os.path.join(ROOT, "build/loupe"))
    ap.add_argument("--max-total-bytes", type=int, default=0)
    ap.add_argument("--out", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    scratch = tempfile.mkdtemp(prefix="loupe-bench-")
    rows = []
    try:
        for spec in args.corpus:
            name, _, path = spec.partition("=")
            rows.append(bench_corpus(name, path, args, scratch))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()
    head = (f"### Indexing ({datetime.date.today()}, {os.cpu_count()} cores, loupe {commit}, "
            f"median of {args.runs} cold runs, 5 syncs)\n")
    text = head + "\n" + table(rows) + "\n"
    print(text)
    if args.out:
        with open(args.out, "a") as f:
            f.write("\n" + text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
