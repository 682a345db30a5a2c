#!/usr/bin/env python3
"""bench/assemble.py RUN_DIR: turn one bench/run output folder into the benchmark section of
bench/RESULTS.md (between the bench/run markers; other sections are kept) and the SVG charts
in bench/charts/ (gnuplot)."""
import datetime
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
BEGIN = "<!-- bench/run:begin -->"
END = "<!-- bench/run:end -->"

# Published / measured peers (README of the project's brief): what we compare against.
PEERS = """| figure | C peer (measured on this machine, Go 1.19 std) | Satori (published) |
|---|---|---|
| cold index | 63 s, 12.6 GB peak RSS | - |
| database / corpus | 3.6x | - |
| server start | 0.77 s | model load 232 ms |
| search | ~22 ms median | warm p95 154 ms |
| one-file sync | - | p95 ~790 ms |
| owner MRR | - | 0.50 (with neural reranker), 0.29 without |"""


def load(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def index_table(rows):
    out = ["| corpus | files | MB | indexed MB | symbols | cold index s | MB/s | peak RSS MiB | db / corpus | no-change sync ms | 1-file sync ms | ctags s | ctags RSS MiB | loupe / ctags time |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['name']} | {r['files']} | {r['bytes']/1e6:.0f} | {r['indexed_bytes']/1e6:.0f}{' (partial)' if r['partial'] else ''} |"
                   f" {r['symbols']} | {r['cold_s']:.2f} | {r['cold_mbps']:.1f} | {r['rss_mib']:.0f} | {r['db_bytes']/r['bytes']:.2f}x |"
                   f" {r['nochange_ms']:.0f} | {r['edit_ms']:.0f} | {r['ctags_s']:.2f} | {r['ctags_rss_mib']:.0f} | {r['cold_s']/r['ctags_s']:.1f}x |")
    return "\n".join(out)


def f1(x):
    return "-" if x is None else f"{x:.1f}"


def query_table(rows):
    out = ["| corpus | identifier p50 / p95 ms | in-process | NL p50 / p95 ms | in-process | rg -w p50 / p95 ms | rg / loupe p95 |",
           "|---|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['name']} | {f1(r['ident_p50'])} / {f1(r['ident_p95'])} | {f1(r['ident_in_p50'])} / {f1(r['ident_in_p95'])} |"
                   f" {f1(r['nl_p50'])} / {f1(r['nl_p95'])} | {f1(r['nl_in_p50'])} / {f1(r['nl_in_p95'])} |"
                   f" {f1(r['rg_p50'])} / {f1(r['rg_p95'])} | {r['rg_over_loupe_p95']:.1f}x |")
    return "\n".join(out)


def quality_table(q):
    out = ["| corpus | set | tasks | owner@1 | owner@3 | owner@10 | MRR@10 | grep file-MRR@10 | ratio |",
           "|---|---|---|---|---|---|---|---|---|"]
    # one mean row per task set (macro average over corpora: the hand-written set is the
    # one the target is stated on), then the run's overall mean
    per_set = []
    sets = sorted({r.get("set", "") for r in q["rows"]})
    if len(sets) > 1:
        for s in sets:
            rs = [r for r in q["rows"] if r.get("set", "") == s]
            avg = {k: {m: sum(r[k][m] for r in rs) / len(rs) for m in ("at1", "at3", "at10", "mrr10")}
                   for k in ("loupe", "base")}
            per_set.append(dict(avg, corpus=f"**mean, {s}**", set=s, n=sum(r["n"] for r in rs)))
    for r in q["rows"] + per_set + ([q["mean"]] if isinstance(q.get("mean"), dict) else q.get("means", [])):
        lo, base = r["loupe"], r["base"]
        ratio = lo["mrr10"] / base["mrr10"] if base["mrr10"] else float("inf")
        out.append(f"| {r['corpus']} | {r.get('set', '')} | {r['n']} | {lo['at1']:.3f} | {lo['at3']:.3f} | {lo['at10']:.3f} |"
                   f" {lo['mrr10']:.3f} | {base['mrr10']:.3f} | {ratio:.2f} |")
    return "\n".join(out)


def chart(out_svg, title, ylabel, series, logy=False):
    """series: [(label, [(x, y), ...])]; x = corpus MB (log scale)."""
    data_files = []
    cmds = [f"set terminal svg size 720,420 dynamic font 'sans,11'",
            f"set output '{out_svg}'", f"set title '{title}'", "set logscale x",
            "set xlabel 'corpus size (MB of text)'", f"set ylabel '{ylabel}'", "set key top left",
            "set grid"]
    if logy:
        cmds.append("set logscale y")
    plots = []
    for i, (label, pts) in enumerate(series):
        fn = f"{out_svg}.{i}.dat"
        with open(fn, "w") as f:
            for x, y in sorted(pts):
                f.write(f"{x} {y}\n")
        data_files.append(fn)
        plots.append(f"'{fn}' using 1:2 with linespoints lw 2 title '{label}'")
    cmds.append("plot " + ", ".join(plots))
    subprocess.run(["gnuplot"], input="\n".join(cmds), text=True, check=True)
    for fn in data_files:
        os.remove(fn)


def main():
    run = sys.argv[1]
    idx = (load(os.path.join(run, "index.json")) or []) + (load(os.path.join(run, "index-large.json")) or [])
    qry = (load(os.path.join(run, "query.json")) or []) + (load(os.path.join(run, "query-large.json")) or [])
    qual = load(os.path.join(run, "quality.json"))
    mcp = open(os.path.join(run, "mcp.md")).read() if os.path.exists(os.path.join(run, "mcp.md")) else ""
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    parts = [BEGIN, f"## Benchmarks (bench/run, {datetime.date.today()}, {os.cpu_count()} cores, loupe {commit})", "",
             "Ratios are measured in the same run on the same machine; medians of several runs "
             "(see bench/index.py and bench/query.py for exactly what is timed).", ""]
    if idx:
        parts += ["### Indexing, against universal-ctags", "", index_table(idx), ""]
    if qry:
        parts += ["### Query latency, against ripgrep", "", query_table(qry), ""]
    if qual:
        parts += ["### Retrieval quality (bench/quality, hand-written and generated tasks)", "", quality_table(qual), ""]
    if mcp:
        parts += ["### MCP", "", mcp.strip(), ""]
    os.makedirs(os.path.join(HERE, "charts"), exist_ok=True)
    sizes = {r["name"]: r["indexed_bytes"] / 1e6 for r in idx}
    if idx:
        chart(os.path.join(HERE, "charts", "throughput.svg"), "Cold index throughput", "MB/s",
              [("loupe index", [(sizes[r["name"]], r["cold_mbps"]) for r in idx]),
               ("ctags -R", [(sizes[r["name"]], r["indexed_bytes"] / 1e6 / r["ctags_s"]) for r in idx])], logy=True)
        parts += ["![throughput](charts/throughput.svg)", ""]
    if qry and idx:
        pts = [(sizes[r["name"]], r) for r in qry if r["name"] in sizes]
        chart(os.path.join(HERE, "charts", "latency.svg"), "Query latency p95 (process wall time)", "ms",
              [("loupe identifier", [(x, r["ident_p95"]) for x, r in pts]),
               ("loupe natural language", [(x, r["nl_p95"]) for x, r in pts]),
               ("rg -n -w", [(x, r["rg_p95"]) for x, r in pts])], logy=True)
        parts += ["![latency](charts/latency.svg)", ""]
    parts += ["### Peers", "", PEERS, "", END]
    section = "\n".join(parts)
    path = os.path.join(HERE, "RESULTS.md")
    text = open(path).read() if os.path.exists(path) else "# loupe benchmark results\n"
    if BEGIN in text and END in text:
        text = text[:text.index(BEGIN)] + section + text[text.index(END) + len(END):]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
