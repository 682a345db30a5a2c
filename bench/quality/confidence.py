#!/usr/bin/env python3
"""Fit and measure loupe's answer confidence and file view on the dev kit (bench/quality/devkit.py).

Data (every search through the CLI, `loupe search --json --limit 200`, with
LOUPE_SEARCH_FEATURES=1 so the answer carries the summary features loupe computes in C):

- own:   every kit question asked on its own tree; label 1 when the answer is right (a gold
         function in the top 10, or a gold file among the first 5 files), else 0;
- cross: every kit question asked on the SWE-QA snapshot of each other kit repository
         (flask questions on the requests index, ...); label 0;
- hand:  the hand-written set (bench/quality/tasks, other corpora and languages) asked on each
         kit snapshot; label 0.

Raw answers are cached in bench/work/conf/raw.jsonl (delete it to search again).

Model: logistic regression (Newton's method, L2) over standardized features. Held out by
repository: for each of the three ways to split the four repositories in two pairs, fit on
one pair and test on the other (a cross question is used only when both its repositories are
on the same side; a hand question is on one side by a hash of its id), so every repository
is tested by a model that never saw it. Reported: AUC, Brier score and reliability bins per
held-out repository and pooled; precision and recall of the no_confident_match warning at
the threshold chosen on the pooled held-out predictions. `--write` writes the model fitted
on all data to src/search/confidence_model.h.

File view: the own answers (200 owners each) are aggregated into files as
src/search/group.c does (best + damp * decaying sum of the rest) for a grid of (damp, decay)
and scored by file@5 against the owner view (files at the rank of their first owner).

Python 3 standard library only.
"""
import argparse
import collections
import concurrent.futures
import hashlib
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import devkit  # noqa: E402

WORK = os.path.join(TOP, "bench", "work", "conf")
RAW = os.path.join(WORK, "raw.jsonl")
MODEL_H = os.path.join(TOP, "src", "search", "confidence_model.h")
REPOS = ["pallets/flask", "psf/requests", "pytest-dev/pytest", "pylint-dev/pylint"]
NAMES = ["topScore", "margin2", "margin5", "topCover", "top5Cover", "nameCover", "docCover",
         "channels", "exact", "logOwners", "logLexical", "logWords"]


def short(repo):
    return repo.split("/")[1]


# ---------------------------------------------------------------------------------------------
# Collecting answers


def snapshot_trees(tasks):
    """The SWE-QA snapshot tree of each repository (shared by its swe-qa tasks)."""
    out = {}
    for t in tasks:
        if t["source"] == "swe-qa":
            out[t["repo"]] = devkit.tree_dir(t)
    return out


def hand_tasks():
    out = []
    d = os.path.join(HERE, "tasks")
    for fn in sorted(os.listdir(d)):
        if fn.endswith(".jsonl"):
            for line in open(os.path.join(d, fn), encoding="utf-8"):
                if line.strip():
                    t = json.loads(line)
                    out.append({"id": t["id"], "query": t["query"]})
    return out


def search(args, env, tree, query):
    argv = [args.loupe, "search", "--json", "--limit", "200", "--path", tree, "--", query]
    p = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=600)
    if p.returncode not in (0, 1) or not p.stdout.strip():
        return {"error": "rc %d: %s" % (p.returncode, p.stderr.strip()[:200])}
    d = json.loads(p.stdout)
    return {"confidence": d.get("confidence"), "features": d.get("confidenceFeatures"),
            "warnings": [w.split(":", 1)[0] for w in d.get("warnings", [])],
            "results": [(r["owner"]["file"], r["owner"].get("qualifiedName") or r["owner"].get("symbol") or "",
                         r["score"]) for r in d.get("results", [])]}


def collect(args):
    kit_args = argparse.Namespace(tasks=None, lang=None, source=None, repo=None, sample=None,
                                  max_tasks=None)
    tasks = devkit.load_tasks(kit_args)
    devkit.ensure_trees(tasks)
    snaps = snapshot_trees(tasks)
    env = dict(os.environ)
    env["LOUPE_HOME"] = os.path.abspath(args.home)
    env["LOUPE_SEARCH_FEATURES"] = "1"
    idx_args = argparse.Namespace(loupe=args.loupe, tasks=None)
    for d in sorted({devkit.tree_dir(t) for t in tasks}):
        devkit.loupe_index(idx_args, env, d)
    jobs = []
    for t in tasks:
        jobs.append({"kind": "own", "id": t["task_id"], "qrepo": t["repo"], "trepo": t["repo"],
                     "tree": devkit.tree_dir(t), "query": t["query"]})
        for r in REPOS:
            if r != t["repo"]:
                jobs.append({"kind": "cross", "id": t["task_id"], "qrepo": t["repo"], "trepo": r,
                             "tree": snaps[r], "query": t["query"]})
    for h in hand_tasks():
        for r in REPOS:
            jobs.append({"kind": "hand", "id": h["id"], "qrepo": "hand", "trepo": r,
                         "tree": snaps[r], "query": h["query"]})

    def one(j):
        return j, search(args, env, j["tree"], j["query"])

    os.makedirs(WORK, exist_ok=True)
    with open(RAW + ".tmp", "w") as fh, concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        for n, (j, res) in enumerate(ex.map(one, jobs)):
            j.update(res)
            fh.write(json.dumps(j) + "\n")
            if n % 100 == 0:
                sys.stderr.write("confidence.py: %d/%d searches\n" % (n, len(jobs)))
    os.replace(RAW + ".tmp", RAW)


def load_raw():
    rows = [json.loads(l) for l in open(RAW)]
    tasks = {t["task_id"]: t for t in devkit.load_tasks(argparse.Namespace(
        tasks=None, lang=None, source=None, repo=None, sample=None, max_tasks=None))}
    out = []
    for r in rows:
        if "error" in r or not r.get("features"):
            continue
        if r["kind"] == "own":
            t = tasks[r["id"]]
            m = devkit.score(t, [(f, q) for f, q, _ in r["results"]])
            r["label"] = 1 if (m.get("func@10") == 1.0 or m["file@5"] == 1.0) else 0
            r["task"] = t
        else:
            r["label"] = 0
        r["x"] = [r["features"][n] for n in NAMES]
        out.append(r)
    return out


# ---------------------------------------------------------------------------------------------
# Logistic regression (Newton, L2) and metrics


def standardize(rows):
    n = len(rows)
    mean = [sum(r[i] for r in rows) / n for i in range(len(NAMES))]
    sd = [math.sqrt(sum((r[i] - mean[i]) ** 2 for r in rows) / n) or 1.0 for i in range(len(NAMES))]
    return mean, sd


def solve(a, b):
    """Gaussian elimination with partial pivoting: a x = b."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        if abs(m[c][c]) < 1e-12:
            continue
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                for k in range(c, n + 1):
                    m[r][k] -= f * m[c][k]
    return [m[i][n] / m[i][i] if abs(m[i][i]) > 1e-12 else 0.0 for i in range(n)]


def fit(xs, ys, l2=1.0):
    mean, sd = standardize(xs)
    z = [[1.0] + [(x[i] - mean[i]) / sd[i] for i in range(len(NAMES))] for x in xs]
    d = len(z[0])
    w = [0.0] * d
    for _ in range(30):
        g = [0.0] * d
        h = [[0.0] * d for _ in range(d)]
        for zi, y in zip(z, ys):
            s = sum(a * b for a, b in zip(w, zi))
            p = 1 / (1 + math.exp(-max(-30, min(30, s))))
            for a in range(d):
                g[a] += (p - y) * zi[a]
                pa = p * (1 - p) * zi[a]
                for b in range(d):
                    h[a][b] += pa * zi[b]
        for a in range(1, d):
            g[a] += l2 * w[a]
            h[a][a] += l2
        step = solve(h, g)
        w = [a - b for a, b in zip(w, step)]
        if max(abs(s) for s in step) < 1e-7:
            break
    return {"mean": mean, "sd": sd, "bias": w[0], "coef": w[1:]}


def predict(model, x):
    s = model["bias"] + sum(c * (v - m) / sd for c, v, m, sd in
                            zip(model["coef"], x, model["mean"], model["sd"]))
    return 1 / (1 + math.exp(-max(-30, min(30, s))))


def auc(ps, ys):
    pos = [p for p, y in zip(ps, ys) if y]
    neg = [p for p, y in zip(ps, ys) if not y]
    if not pos or not neg:
        return float("nan")
    wins = sum((a > b) + 0.5 * (a == b) for a in pos for b in neg)
    return wins / (len(pos) * len(neg))


def brier(ps, ys):
    return sum((p - y) ** 2 for p, y in zip(ps, ys)) / len(ps)


def bins(ps, ys, n=5):
    out = []
    for b in range(n):
        lo, hi = b / n, (b + 1) / n
        sel = [(p, y) for p, y in zip(ps, ys) if lo <= p < hi or (b == n - 1 and p == 1.0)]
        if sel:
            out.append("%.1f-%.1f: n=%d mean %.2f observed %.2f" % (
                lo, hi, len(sel), sum(p for p, _ in sel) / len(sel), sum(y for _, y in sel) / len(sel)))
    return out


def hand_side(hid):
    return int(hashlib.sha1(hid.encode()).hexdigest(), 16) % 2


def split_rows(rows, side_a):
    """Rows whose repositories all lie in side_a (a set of repos), and hand rows on that side."""
    def on(r, side, flag):
        if r["kind"] == "hand":
            return r["trepo"] in side and hand_side(r["id"]) == flag
        return r["qrepo"] in side and r["trepo"] in side
    side_b = set(REPOS) - side_a
    return [r for r in rows if on(r, side_a, 0)], [r for r in rows if on(r, side_b, 1)]


def heldout(rows):
    """Held-out predictions: (row, p) for every test row of the three 2/2 splits."""
    preds = []
    splits = [{REPOS[0], REPOS[i]} for i in (1, 2, 3)]
    for a in splits:
        for train_side in (a, set(REPOS) - a):
            train, test = split_rows(rows, train_side)
            m = fit([r["x"] for r in train], [r["label"] for r in train])
            preds += [(r, predict(m, r["x"])) for r in test]
    return preds


def choose_threshold(preds, min_precision=0.9):
    """The highest threshold whose warning (p < t) precision for wrong answers is at least
    min_precision on the held-out predictions, maximizing recall."""
    best = None
    for t100 in range(5, 96):
        t = t100 / 100.0
        warned = [(p, r["label"]) for r, p in preds if p < t]
        if not warned:
            continue
        prec = sum(1 for _, y in warned if y == 0) / len(warned)
        wrong = sum(1 for r, _ in preds if r["label"] == 0)
        rec = sum(1 for _, y in warned if y == 0) / wrong
        if prec >= min_precision and (best is None or rec > best[2]):
            best = (t, prec, rec)
    return best


def warn_stats(preds, t):
    out = {}
    for kind in ("own", "cross", "hand"):
        sel = [(r, p) for r, p in preds if r["kind"] == kind]
        if not sel:
            continue
        right = [p for r, p in sel if r["label"] == 1]
        wrong = [p for r, p in sel if r["label"] == 0]
        out[kind] = (len(sel), sum(1 for p in right if p < t), len(right),
                     sum(1 for p in wrong if p < t), len(wrong))
    return out


def write_header(model, threshold):
    fmt = lambda v: "{" + ", ".join("%.6g" % x for x in v) + "}"
    text = """/*
 * confidence_model.h: the coefficients of the confidence model (confidence.c).
 *
 * Written by bench/quality/confidence.py --write (do not edit by hand): a logistic regression
 * over the standardized features of lp_search_conf_names, fitted on the dev kit (positives:
 * a question asked on its own repository whose answer is right; negatives: wrong answers,
 * the same questions asked on another repository, and the hand set asked on the kit). See
 * docs/decisions/0015-file-view-and-confidence.md for the data, the held-out figures and
 * the threshold.
 */
#ifndef LP_CONFIDENCE_MODEL_H
#define LP_CONFIDENCE_MODEL_H

/* %s */
static const double conf_mean[LP_CONF_NFEAT] = %s;
static const double conf_scale[LP_CONF_NFEAT] = %s;
static const double conf_coef[LP_CONF_NFEAT] = %s;
static const double conf_bias = %.6g;
static const double conf_threshold = %.2f;

#endif
""" % (", ".join(NAMES), fmt(model["mean"]), fmt(model["sd"]), fmt(model["coef"]), model["bias"],
       threshold)
    open(MODEL_H, "w").write(text)


# ---------------------------------------------------------------------------------------------
# File view


def file_view(rows, damp, decay):
    """file@5 of the file aggregation of each own answer."""
    hits = []
    for r in rows:
        if r["kind"] != "own":
            continue
        files = collections.OrderedDict()
        for f, _, s in r["results"]:
            if f not in files:
                files[f] = [s, damp]
            else:
                files[f][0] += files[f][1] * s
                files[f][1] *= decay
        order = sorted(files, key=lambda f: (-files[f][0], f))
        gold = set(r["task"]["gold"]["files"])
        hits.append((r, 1.0 if any(f in gold for f in order[:5]) else 0.0))
    return hits


def owner_view(rows, limit=50):
    hits = []
    for r in rows:
        if r["kind"] == "own":
            m = devkit.score(r["task"], [(f, q) for f, q, _ in r["results"][:limit]])
            hits.append((r, m["file@5"]))
    return hits


def by_repo(hits):
    out = collections.defaultdict(list)
    for r, h in hits:
        out[short(r["qrepo"])].append(h)
        out[r["task"]["source"]].append(h)
        out["all"].append(h)
    return {k: sum(v) / len(v) for k, v in out.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--loupe", default=os.path.join(TOP, "build", "loupe"))
    ap.add_argument("--home", default=os.path.join(TOP, "bench", "work", "devkit", "home"))
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--collect", action="store_true", help="search again (else reuse raw.jsonl)")
    ap.add_argument("--write", action="store_true", help="write src/search/confidence_model.h")
    ap.add_argument("--min-precision", type=float, default=0.9)
    args = ap.parse_args()
    if args.collect or not os.path.exists(RAW):
        collect(args)
    rows = load_raw()
    kinds = collections.Counter((r["kind"], r["label"]) for r in rows)
    print("rows: %s" % dict(sorted(kinds.items())))

    print("\n## File view (file@5 on own questions)\n")
    base = by_repo(owner_view(rows))
    keys = ["all", "swe-qa", "commit-subject", "flask", "requests", "pytest", "pylint"]
    print("| view | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    print("| owner view | " + " | ".join("%.3f" % base[k] for k in keys) + " |")
    for damp in (0.0, 0.1, 0.2, 0.3, 0.5, 1.0):
        for decay in ((1.0,) if damp == 0 else (0.3, 0.5, 0.7, 1.0)):
            fv = by_repo(file_view(rows, damp, decay))
            print("| file damp=%.1f decay=%.1f | " % (damp, decay) + " | ".join("%.3f" % fv[k] for k in keys) + " |")

    print("\n## Confidence, held out by repository\n")
    preds = heldout(rows)
    print("| held-out tree repo | n | right | AUC | Brier |")
    print("|---|---|---|---|---|")
    for repo in REPOS + ["all"]:
        sel = [(r, p) for r, p in preds if repo == "all" or r["trepo"] == repo]
        ps = [p for _, p in sel]
        ys = [r["label"] for r, _ in sel]
        print("| %s | %d | %d | %.3f | %.3f |" % (short(repo) if repo != "all" else "all", len(sel),
                                                  sum(ys), auc(ps, ys), brier(ps, ys)))
    ps = [p for _, p in preds]
    ys = [r["label"] for r, _ in preds]
    print("\nreliability (held out, pooled):")
    for line in bins(ps, ys):
        print("- " + line)
    own = [(r, p) for r, p in preds if r["kind"] == "own"]
    print("\nown questions only (is a right answer told from a wrong one): AUC %.3f, n %d" % (
        auc([p for _, p in own], [r["label"] for r, _ in own]), len(own)))
    th = choose_threshold(preds, args.min_precision)
    if th:
        t, prec, rec = th
        print("\nthreshold %.2f: warning precision %.3f, recall %.3f (of wrong answers)" % (t, prec, rec))
        for kind, (n, rw, nr, ww, nw) in warn_stats(preds, t).items():
            print("- %s: n %d; right answers warned %d of %d; wrong answers warned %d of %d" % (
                kind, n, rw, nr, ww, nw))
    else:
        t = 0.3
        print("\nno threshold reaches precision %.2f; keeping %.2f" % (args.min_precision, t))
    full = fit([r["x"] for r in rows], [r["label"] for r in rows])
    print("\nmodel on all rows: bias %.3f; %s" % (full["bias"], ", ".join(
        "%s %.3f" % (n, c) for n, c in zip(NAMES, full["coef"]))))
    if args.write:
        write_header(full, t)
        print("wrote %s" % os.path.relpath(MODEL_H, TOP))


if __name__ == "__main__":
    main()
