#!/usr/bin/env python3
"""Retrieval-quality benchmark: owner@1/3/10 and MRR@10 of `loupe search` against gold owners.

Every task (bench/quality/tasks/<corpus>.jsonl, hand-written; bench/quality/generated/<corpus>.jsonl,
from doc comments) is a developer's question with the owning symbol(s) that answer it. The runner
indexes each corpus (bench/corpora/<name>, fetched by corpora.sh) into a private LOUPE_HOME, asks
every question through the CLI exactly as an agent would (`loupe search --json --limit 10 --path
ROOT -- QUERY`), and scores the shown groups. In the same run it measures a grep-style baseline
(files ranked by the number of occurrences of the query's words) so that figures are read as
ratios against something measured on the same machine at the same time.

A loupe hit: a shown group whose owner file is the gold file, whose symbol name is the gold
symbol, and which is the gold definition: its span contains the gold line, or its qualified name
ends with the gold qualified name (separators '.', '::', '#', '/' are treated alike). Matching on
name alone would count any `convert` in a file with ten of them. A baseline hit: the gold FILE at
that rank (the baseline has no owners, so this is generous to it).

Generated tasks run against a copy of the corpus in which the doc comment each question was taken
from is blanked (same-length whitespace, so lines and byte offsets stay), indexed separately.

Python 3 standard library only. Run `run.py --help` for the options.
"""
import argparse
import datetime
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
CORPORA = os.environ.get("LOUPE_CORPORA", os.path.join(TOP, "bench", "corpora"))
WORK = os.path.join(TOP, "bench", "work", "quality")
TASK_DIRS = {"hand": os.path.join(HERE, "tasks"), "generated": os.path.join(HERE, "generated")}
K_VALUES = (1, 3, 10)
SEARCH_LIMIT = 10
MAX_FILE_BYTES = 8 << 20  # the same per-file limit loupe applies

# English function words dropped from baseline queries (a small, fixed list so the baseline is
# reproducible without any package).
STOPWORDS = frozenset("""
a about above after again against all am an and any are as at be because been before being below
between both but by can could did do does doing down during each few for from further had has
have having he her here hers herself him himself his how i if in into is it its itself just me
more most my myself no nor not now of off on once only or other our ours ourselves out over own
same she should so some such than that the their theirs them themselves then there these they
this those through to too under until up very was we were what when where which while who whom
why will with would you your yours yourself yourselves get gets got let lets one ones via whether
""".split())

IDENT_LIKE = re.compile(r"[A-Za-z0-9]*_[A-Za-z0-9_]*[A-Za-z0-9]|[a-z]+[A-Z][A-Za-z0-9]*|::|\w\(\)")


def die(msg):
    sys.stderr.write("run.py: %s\n" % msg)
    sys.exit(2)


# ---------------------------------------------------------------------------------------------
# Tasks


def load_tasks(kind, corpora):
    """Tasks of one kind ('hand' or 'generated') for the named corpora, in file order."""
    out = []
    d = TASK_DIRS[kind]
    for name in corpora:
        path = os.path.join(d, name + ".jsonl")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    t = json.loads(line)
                except json.JSONDecodeError as e:
                    die("%s:%d is not valid JSON (%s); fix the line" % (path, n, e))
                for key in ("id", "corpus", "query", "gold"):
                    if key not in t:
                        die("%s:%d lacks the field %r" % (path, n, key))
                if t["corpus"] != name:
                    die("%s:%d says corpus %r inside %s" % (path, n, t["corpus"], name))
                t["kind"] = kind
                out.append(t)
    return out


def corpus_names(selected):
    listed = subprocess.run([os.path.join(HERE, "corpora.sh"), "--list"], capture_output=True,
                            text=True, check=True).stdout.split()
    names = [line.split("|")[0] for line in listed if line]
    if not selected:
        return names
    for s in selected:
        if s not in names:
            die("unknown corpus %r (known: %s)" % (s, ", ".join(names)))
    return [n for n in names if n in selected]


def split_words(name):
    """Sub-words of an identifier: parse_http_header, parseHTTPHeader -> parse, http, header."""
    parts = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    parts = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", parts)
    return [p.lower() for p in re.split(r"[^A-Za-z0-9]+", parts) if p]


def validate(tasks, strict_style=True):
    """Check every gold against the corpus text and the question against identifier leaks.
    Returns (errors, warnings) as lists of strings."""
    errors, warnings = [], []
    seen = set()
    for t in tasks:
        tid = t["id"]
        if tid in seen:
            errors.append("%s: duplicate id" % tid)
        seen.add(tid)
        q = t["query"]
        if strict_style:
            m = IDENT_LIKE.search(q)
            if m:
                errors.append("%s: the question contains an identifier-like token %r; paraphrase"
                              % (tid, m.group(0)))
        qwords = set(re.findall(r"[a-z0-9]+", q.lower()))
        if not t["gold"]:
            errors.append("%s: no gold owner" % tid)
        for g in t["gold"]:
            path = os.path.join(CORPORA, t["corpus"], g["file"])
            if not os.path.isfile(path):
                errors.append("%s: gold file %s does not exist (run corpora.sh?)" % (tid, path))
                continue
            with open(path, encoding="utf-8", errors="replace") as fh:
                lines = fh.read().split("\n")
            ln = g.get("line", 0)
            if not 1 <= ln <= len(lines) or not re.search(
                    r"(?<![A-Za-z0-9_])%s(?![A-Za-z0-9_])" % re.escape(g["symbol"]), lines[ln - 1]):
                errors.append("%s: %s:%d does not define %r" % (tid, g["file"], ln, g["symbol"]))
            if strict_style and g["symbol"].lower() in qwords:
                errors.append("%s: the question names the gold symbol %r" % (tid, g["symbol"]))
            stem = os.path.splitext(os.path.basename(g["file"]))[0]
            sw = split_words(stem)
            msg = ("%s: every word of the file name %r is in the question (make sure the file "
                   "name alone does not give the answer away)" % (tid, stem))
            if strict_style and sw and all(w in qwords for w in sw) and msg not in warnings:
                warnings.append(msg)
    return errors, warnings


# ---------------------------------------------------------------------------------------------
# Corpus copies with blanked doc comments (generated tasks)


def blank_bytes(data, start, end):
    """data with [start, end) replaced by spaces, newlines kept (lines and offsets unchanged)."""
    seg = bytes(b if b in (0x0A, 0x0D) else 0x20 for b in data[start:end])
    return data[:start] + seg + data[end:]


def blanked_root(corpus, tasks):
    """A copy of the corpus whose doc spans named by the tasks are blanked. Files are hard links
    to the originals except the changed ones, which are new files. Cached by the spans' hash."""
    spans = sorted({(b["file"], b["start"], b["end"]) for t in tasks for b in t.get("blank", [])})
    if not spans:
        return os.path.join(CORPORA, corpus)
    digest = hashlib.sha256(json.dumps(spans).encode()).hexdigest()[:12]
    dest = os.path.join(WORK, "blanked", "%s-%s" % (corpus, digest))
    stamp = dest + ".ok"
    if os.path.exists(stamp) and os.path.isdir(dest):
        return dest
    src = os.path.join(CORPORA, corpus)
    if os.path.exists(dest):
        shutil.rmtree(dest)
    os.makedirs(os.path.dirname(dest), exist_ok=True)

    def link(s, d):
        try:
            os.link(s, d)
        except OSError:
            shutil.copy2(s, d)

    shutil.copytree(src, dest, copy_function=link, symlinks=True)
    by_file = {}
    for f, s, e in spans:
        by_file.setdefault(f, []).append((s, e))
    for f, ranges in by_file.items():
        p = os.path.join(dest, f)
        with open(p, "rb") as fh:
            data = fh.read()
        for s, e in ranges:
            if not 0 <= s <= e <= len(data):
                die("blank span %s:%d-%d is outside the file; regenerate the tasks" % (f, s, e))
            data = blank_bytes(data, s, e)
        os.unlink(p)  # break the hard link before writing
        with open(p, "wb") as fh:
            fh.write(data)
    with open(stamp, "w") as fh:
        fh.write(json.dumps(spans[:3]) + "\n")
    return dest


# ---------------------------------------------------------------------------------------------
# Baseline: files ranked by query-word occurrence counts


class GrepBaseline:
    """Loads every text file of a root once (lowercased), then ranks files per query."""

    def __init__(self, root):
        self.root = root
        self.files = []  # (relpath, lowercased text)
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
            for fn in sorted(filenames):
                if fn.startswith("."):
                    continue
                p = os.path.join(dirpath, fn)
                if os.path.islink(p) or not os.path.isfile(p):
                    continue
                if os.path.getsize(p) > MAX_FILE_BYTES:
                    continue
                with open(p, "rb") as fh:
                    data = fh.read()
                if b"\0" in data[:8192]:
                    continue
                rel = os.path.relpath(p, root).replace(os.sep, "/")
                self.files.append((rel, data.decode("utf-8", "replace").lower()))

    @staticmethod
    def terms(query):
        seen = []
        for w in re.findall(r"[a-z0-9]+", query.lower()):
            if len(w) > 1 and w not in STOPWORDS and w not in seen:
                seen.append(w)
        return seen

    def rank(self, query, limit=SEARCH_LIMIT):
        """(by_count, by_coverage): files by total occurrences of the query words, and files by
        how many distinct query words they contain (then total occurrences), ties by path."""
        terms = self.terms(query)
        scored = []
        for rel, text in self.files:
            n = distinct = 0
            for w in terms:
                c = text.count(w)
                n += c
                distinct += c > 0
            if n:
                scored.append((-n, -distinct, rel))
        by_count = [rel for _, _, rel in sorted(scored, key=lambda x: (x[0], x[2]))[:limit]]
        by_cover = [rel for _, _, rel in sorted(scored, key=lambda x: (x[1], x[0], x[2]))[:limit]]
        return by_count, by_cover


# ---------------------------------------------------------------------------------------------
# loupe


class Loupe:
    def __init__(self, binary, home, channels):
        self.binary = binary
        self.env = dict(os.environ)
        self.env["LOUPE_HOME"] = home
        self.env.setdefault("LOUPE_LOG", "error")
        if channels:
            self.env["LOUPE_SEARCH_CHANNELS"] = channels
        else:
            self.env.pop("LOUPE_SEARCH_CHANNELS", None)
        # The dense channel needs vectors, which builds store only with LOUPE_DENSE=1 (the
        # fingerprint records it: switching reindexes; give such runs their own --home).
        if channels and "dense" in channels.split(","):
            self.env["LOUPE_DENSE"] = "1"

    def run(self, args, timeout=3600):
        return subprocess.run([self.binary] + args, capture_output=True, text=True,
                              env=self.env, timeout=timeout)

    def index(self, root):
        """Index (or sync) root; reindex when the stored index is from another version."""
        t0 = time.perf_counter()
        p = self.run(["index", root, "--json"])
        if p.returncode == 4:
            p = self.run(["reindex", root, "--json"])
        secs = time.perf_counter() - t0
        if p.returncode != 0:
            die("loupe index %s failed (exit %d): %s" % (root, p.returncode, p.stderr.strip()))
        try:
            report = json.loads(p.stdout)
        except json.JSONDecodeError:
            report = {}
        return secs, report

    def search(self, root, query):
        t0 = time.perf_counter()
        p = self.run(["search", "--json", "--limit", str(SEARCH_LIMIT), "--path", root, "--",
                      query], timeout=600)
        ms = (time.perf_counter() - t0) * 1000.0
        if p.returncode != 0:
            return ms, None, "exit %d: %s" % (p.returncode, p.stderr.strip()[:300])
        try:
            return ms, json.loads(p.stdout), None
        except json.JSONDecodeError as e:
            return ms, None, "unparsable JSON (%s)" % e


def timing_ms(answer):
    """The timingMs of a search answer if it has one: a number or an object with 'total'."""
    t = answer.get("timingMs") if isinstance(answer, dict) else None
    if isinstance(t, (int, float)):
        return float(t)
    if isinstance(t, dict):
        for key in ("total", "search", "query"):
            if isinstance(t.get(key), (int, float)):
                return float(t[key])
    return None


def norm_qname(q):
    return re.sub(r"(::|[.#/\\])+", ".", q or "").strip(".")


def owner_hit(owner, gold):
    if not owner or owner.get("file") != gold["file"] or owner.get("symbol") != gold["symbol"]:
        return False
    s, e = owner.get("startLine"), owner.get("endLine")
    if isinstance(s, int) and isinstance(e, int) and s <= gold["line"] <= e:
        return True
    oq, gq = norm_qname(owner.get("qualifiedName")), norm_qname(gold.get("qualified"))
    return bool(gq) and (oq == gq or oq.endswith("." + gq))


def first_rank(items, is_hit):
    for i, it in enumerate(items[:SEARCH_LIMIT], 1):
        if is_hit(it):
            return i
    return None


def metrics(ranks):
    n = len(ranks)
    if n == 0:
        return {"n": 0}
    m = {"n": n}
    for k in K_VALUES:
        m["at%d" % k] = sum(1 for r in ranks if r is not None and r <= k) / n
    m["mrr10"] = sum(1.0 / r for r in ranks if r is not None and r <= SEARCH_LIMIT) / n
    return m


def pct(values, p):
    if not values:
        return None
    v = sorted(values)
    i = min(len(v) - 1, max(0, int(round(p / 100.0 * (len(v) - 1)))))
    return v[i]


def results_key(answer):
    """The part of an answer that must not change between identical runs."""
    return json.dumps([{k: r.get(k) for k in ("rank", "owner", "score", "channels", "snippet")}
                       for r in answer.get("results", [])], sort_keys=True)


# ---------------------------------------------------------------------------------------------
# Reporting


def git_commit(binary):
    d = os.path.dirname(os.path.realpath(binary))
    p = subprocess.run(["git", "-C", d, "rev-parse", "--short=12", "HEAD"], capture_output=True,
                       text=True)
    if p.returncode != 0:
        return "unknown (binary outside a git checkout)"
    commit = p.stdout.strip()
    dirty = subprocess.run(["git", "-C", d, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return commit + ("+dirty" if dirty else "")


def fmt(x, digits=3):
    if x is None:
        return "-"
    if isinstance(x, float):
        return "%.*f" % (digits, x)
    return str(x)


def macro(rows, key, sub):
    vals = [r[key][sub] for r in rows if r.get(key) and r[key].get("n")]
    return sum(vals) / len(vals) if vals else None


def render_markdown(run):
    L = []
    L.append("# Retrieval quality (bench/quality)")
    L.append("")
    L.append("Generated by `bench/quality/run.py`; do not edit by hand. Re-run to refresh.")
    L.append("")
    L.append("- date: %s" % run["date"])
    L.append("- machine: %d cores, %s" % (run["cores"], run["platform"]))
    L.append("- loupe: %s (checkout at commit %s; binary built %s, sha256 %s)" % (
        run["loupe"] or "not run", run["commit"], run.get("built") or "-",
        run.get("sha256") or "-"))
    L.append("- channels: %s; channels named in the answers: %s" % (
        run["channels"] or "default (LOUPE_SEARCH_CHANNELS unset)",
        ", ".join(sorted(run["channels_seen"])) or "-"))
    L.append("- task set: %s; search limit %d; scope runtime (the CLI default)"
             % (run["set"], SEARCH_LIMIT))
    if run.get("identical") is not None:
        L.append("- identical-results check: %s" % run["identical"])
    L.append("")
    L.append("owner@k: a shown group at rank <= k is the gold owner (file, symbol, span or "
             "qualified name). file@k: a group at rank <= k is in the gold file. The baseline "
             "ranks whole files by the number of occurrences of the query's words (lowercased "
             "substring counts; stopwords and one-letter words dropped; ties by path) and has no owners, so its hit is the gold FILE at that rank; "
             "this is generous to the baseline. Summed counts favour long files, so a second grep "
             "baseline ('cover') ranks files by how many distinct query words they contain, then "
             "by the summed count. MRR@10: mean of 1/rank of the first hit, 0 past "
             "rank 10. Latency: wall time of one `loupe search` process, and the answer's "
             "`timingMs` when it has one.")
    L.append("")
    hdr = ("| corpus | set | tasks | owner@1 | owner@3 | owner@10 | MRR@10 | file@1 | file@10 "
           "| base file@1 | base file@3 | base file@10 | base MRR@10 | MRR ratio | cover file@10 "
           "| cover MRR@10 | p50 ms | p95 ms | timingMs p50/p95 | failed |")
    L.append(hdr)
    L.append("|" + "---|" * (hdr.count("|") - 1))
    rows = run["rows"]
    for r in rows + [run["mean"]]:
        lo, lf, b = r.get("loupe") or {}, r.get("loupe_file") or {}, r.get("base") or {}
        cv = r.get("cover") or {}
        ratio = None
        if lo.get("mrr10") is not None and b.get("mrr10"):
            ratio = lo["mrr10"] / b["mrr10"]
        tm = r.get("timing_p50"), r.get("timing_p95")
        L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
                 "| %s | %s | %s | %s |" % (
                     r["corpus"], r["set"], r["n"], fmt(lo.get("at1")), fmt(lo.get("at3")),
                     fmt(lo.get("at10")), fmt(lo.get("mrr10")), fmt(lf.get("at1")),
                     fmt(lf.get("at10")), fmt(b.get("at1")), fmt(b.get("at3")),
                     fmt(b.get("at10")), fmt(b.get("mrr10")), fmt(ratio, 2),
                     fmt(cv.get("at10")), fmt(cv.get("mrr10")),
                     fmt(r.get("p50"), 1), fmt(r.get("p95"), 1),
                     "-" if tm[0] is None else "%.1f/%.1f" % tm, r.get("failed", "-")))
    L.append("")
    L.append("Mean rows are macro averages over corpora (each corpus weighs the same). "
             "MRR ratio = loupe owner MRR@10 / baseline file MRR@10.")
    if run.get("index"):
        L.append("")
        L.append("| corpus | root | files | chunks | symbols | index s |")
        L.append("|---|---|---|---|---|---|")
        for name, ix in run["index"].items():
            rep = ix.get("report", {})
            files = rep.get("files", {})
            L.append("| %s | %s | %s | %s | %s | %.1f |" % (
                name, ix["root"], files.get("total", "-") if isinstance(files, dict) else files,
                rep.get("chunks", "-"), rep.get("symbols", "-"), ix["seconds"]))
    if run.get("notes"):
        L.append("")
        for n in run["notes"]:
            L.append("- " + n)
    L.append("")
    return "\n".join(L)


def self_test():
    """Checks of the scoring rules on hand-made answers; exits non-zero on the first failure."""
    gold = {"file": "types.py", "symbol": "convert", "qualified": "BoolParamType.convert",
            "line": 591}
    cases = [
        ({"file": "types.py", "symbol": "convert", "startLine": 591, "endLine": 609}, True),
        ({"file": "types.py", "symbol": "convert", "startLine": 267, "endLine": 300}, False),
        ({"file": "types.py", "symbol": "convert", "qualifiedName": "click.types.BoolParamType"
          ".convert"}, True),
        ({"file": "types.py", "symbol": "convert", "qualifiedName": "Choice.convert"}, False),
        ({"file": "types.py", "symbol": "convert", "qualifiedName": "NotBoolParamType.convert"},
         False),
        ({"file": "types.py", "symbol": None, "kind": "file", "startLine": 580, "endLine": 620},
         False),
        ({"file": "core.py", "symbol": "convert", "startLine": 591, "endLine": 609}, False),
    ]
    for owner, want in cases:
        assert owner_hit(owner, gold) == want, (owner, want)
    rust = {"file": "pool.rs", "symbol": "get", "qualified": "Pool::get", "line": 196}
    assert owner_hit({"file": "pool.rs", "symbol": "get", "qualifiedName": "regex.pool.Pool.get"},
                     rust)
    m = metrics([1, 2, None, 11, 4])
    assert (m["at1"], m["at3"], m["at10"]) == (0.2, 0.4, 0.6), m
    assert abs(m["mrr10"] - (1 + 0.5 + 0.25) / 5) < 1e-12, m
    assert blank_bytes(b"ab\ncd\xc3\xa9ef", 1, 7) == b"a \n    ef"
    g = GrepBaseline.__new__(GrepBaseline)
    g.files = [("a.c", "parse parse parse parse"), ("b.c", "parse a number"),
               ("c.c", "nothing here")]
    assert g.rank("parse the number") == (["a.c", "b.c"], ["b.c", "a.c"])
    assert GrepBaseline.terms("How are the cookies parsed from a Set-Cookie header? %s") == [
        "cookies", "parsed", "set", "cookie", "header"]
    assert IDENT_LIKE.search("parse_args here") and IDENT_LIKE.search("call setInterval")
    assert not IDENT_LIKE.search("a plain English question, with 1/0 and yes/no")
    print("self-test: ok")


def print_stats(corpora):
    """Markdown rows: files, text lines, and source files/lines per language of each corpus."""
    langs = {".py": "Python", ".go": "Go", ".rs": "Rust", ".java": "Java", ".ts": "TypeScript",
             ".js": "JavaScript", ".c": "C", ".h": "C"}
    print("| corpus | files | text files | text lines | source files | source lines |")
    print("|---|---|---|---|---|---|")
    for name in corpora:
        root = os.path.join(CORPORA, name)
        if not os.path.isdir(root):
            die("corpus %s is missing; run bench/quality/corpora.sh %s" % (name, name))
        nfiles = ntext = nlines = 0
        src = {}
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            for fn in filenames:
                p = os.path.join(dirpath, fn)
                if os.path.islink(p) or not os.path.isfile(p):
                    continue
                nfiles += 1
                with open(p, "rb") as fh:
                    data = fh.read()
                if b"\0" in data[:8192]:
                    continue
                ntext += 1
                n = data.count(b"\n") + (1 if data and not data.endswith(b"\n") else 0)
                nlines += n
                ext = os.path.splitext(fn)[1]
                lang = langs.get(ext)
                if lang and not fn.endswith(".d.ts"):
                    f, l = src.get(lang, (0, 0))
                    src[lang] = (f + 1, l + n)
        print("| %s | %d | %d | %d | %s | %s |" % (
            name, nfiles, ntext, nlines,
            ", ".join("%s %d" % (k, v[0]) for k, v in sorted(src.items())),
            ", ".join("%s %d" % (k, v[1]) for k, v in sorted(src.items()))))


# ---------------------------------------------------------------------------------------------
# Main


def evaluate(args, corpora, kind, loupe, run):
    tasks = load_tasks(kind, corpora)
    if not tasks:
        return []
    if args.max_tasks:
        by = {}
        for t in tasks:
            by.setdefault(t["corpus"], []).append(t)
        tasks = [t for c in corpora for t in by.get(c, [])[:args.max_tasks]]
    errors, _ = validate(tasks, strict_style=(kind == "hand"))
    if errors:
        die("the %s tasks do not validate:\n  %s" % (kind, "\n  ".join(errors[:20])))
    rows = []
    for corpus in corpora:
        ctasks = [t for t in tasks if t["corpus"] == corpus]
        if not ctasks:
            continue
        root = blanked_root(corpus, ctasks) if kind == "generated" else os.path.join(CORPORA,
                                                                                     corpus)
        if not os.path.isdir(root):
            die("corpus %s is missing at %s; run bench/quality/corpora.sh %s"
                % (corpus, root, corpus))
        root = os.path.realpath(root)
        sys.stderr.write("[%s/%s] %d tasks in %s\n" % (corpus, kind, len(ctasks), root))
        if loupe:
            secs, report = loupe.index(root)
            run["index"]["%s/%s" % (corpus, kind)] = {"root": os.path.relpath(root, TOP),
                                                       "seconds": secs, "report": report}
        base = None if args.no_baseline else GrepBaseline(root)
        lranks, franks, branks, cranks, lat, tms, failed = [], [], [], [], [], [], 0
        for t in ctasks:
            detail = {"id": t["id"], "query": t["query"], "gold": t["gold"]}
            if loupe:
                ms, ans, err = loupe.search(root, t["query"])
                lat.append(ms)
                if ans is None:
                    failed += 1
                    detail["error"] = err
                    lranks.append(None)
                    franks.append(None)
                else:
                    tm = timing_ms(ans)
                    if tm is not None:
                        tms.append(tm)
                    owners = [r.get("owner") or {} for r in ans.get("results", [])]
                    for r in ans.get("results", []):
                        run["channels_seen"].update(r.get("channels") or [])
                    lr = first_rank(owners, lambda o: any(owner_hit(o, g) for g in t["gold"]))
                    fr = first_rank(owners, lambda o: any(o.get("file") == g["file"]
                                                          for g in t["gold"]))
                    lranks.append(lr)
                    franks.append(fr)
                    detail["loupe_rank"] = lr
                    detail["loupe_file_rank"] = fr
                    detail["loupe_top"] = [
                        "%s:%s %s" % (o.get("file"), o.get("startLine"),
                                      o.get("qualifiedName") or o.get("symbol") or "")
                        for o in owners[:3]]
                    if args.check_identical:
                        ms2, ans2, err2 = loupe.search(root, t["query"])
                        lat.append(ms2)
                        if ans2 is None or results_key(ans) != results_key(ans2):
                            run["mismatches"].append(t["id"])
            if base:
                by_count, by_cover = base.rank(t["query"])
                br = first_rank(by_count, lambda f: any(f == g["file"] for g in t["gold"]))
                cr = first_rank(by_cover, lambda f: any(f == g["file"] for g in t["gold"]))
                branks.append(br)
                cranks.append(cr)
                detail["base_rank"] = br
                detail["cover_rank"] = cr
            run["details"].append(detail)
        row = {"corpus": corpus, "set": kind, "n": len(ctasks), "failed": failed if loupe else "-"}
        if loupe:
            row.update(loupe=metrics(lranks), loupe_file=metrics(franks), p50=pct(lat, 50),
                       p95=pct(lat, 95), timing_p50=pct(tms, 50), timing_p95=pct(tms, 95))
        if base:
            row["base"] = metrics(branks)
            row["cover"] = metrics(cranks)
        rows.append(row)
    return rows


def main():
    ap = argparse.ArgumentParser(
        description="Owner-level retrieval quality of loupe search against gold owners, with a "
                    "grep-style baseline measured in the same run.")
    ap.add_argument("--corpus", action="append", default=[],
                    help="corpus name (repeatable; default: every corpus in corpora.sh)")
    ap.add_argument("--loupe", default=None,
                    help="loupe binary (default: build/loupe of this checkout)")
    ap.add_argument("--set", choices=("hand", "generated", "both"), default="hand",
                    help="task set: hand-written (default), generated from doc comments, or both")
    ap.add_argument("--json", metavar="OUT", help="write every number and per-task ranks here")
    ap.add_argument("--results", metavar="MD", default=os.path.join(HERE, "RESULTS.md"),
                    help="Markdown table to write (default bench/quality/RESULTS.md; '-' = stdout)")
    ap.add_argument("--channels", metavar="LIST", default=os.environ.get("LOUPE_SEARCH_CHANNELS"),
                    help="search channels for an ablation, e.g. lexical or lexical,exact,rerank; "
                         "passed to loupe as LOUPE_SEARCH_CHANNELS and recorded in the report")
    ap.add_argument("--check-identical", action="store_true",
                    help="run every query twice and fail unless both answers are identical")
    ap.add_argument("--home", default=os.path.join(WORK, "home"),
                    help="private LOUPE_HOME for the benchmark indexes (reused between runs)")
    ap.add_argument("--fresh", action="store_true", help="delete --home first (full reindex)")
    ap.add_argument("--no-loupe", action="store_true", help="baseline only")
    ap.add_argument("--no-baseline", action="store_true", help="loupe only")
    ap.add_argument("--max-tasks", type=int, default=0, help="at most N tasks per corpus")
    ap.add_argument("--self-test", action="store_true",
                    help="only check the scoring rules on hand-made answers")
    ap.add_argument("--stats", action="store_true",
                    help="only print file and line counts of the corpora (for corpora.md)")
    ap.add_argument("--validate", action="store_true",
                    help="only check the tasks (gold files and lines, identifier leaks) and exit")
    args = ap.parse_args()

    if args.self_test:
        self_test()
        return
    corpora = corpus_names(args.corpus)
    kinds = ["hand", "generated"] if args.set == "both" else [args.set]

    if args.stats:
        print_stats(corpora)
        return
    if args.validate:
        bad = 0
        for kind in kinds:
            tasks = load_tasks(kind, corpora)
            errors, warnings = validate(tasks, strict_style=(kind == "hand"))
            for w in warnings:
                print("warning: " + w)
            for e in errors:
                print("error: " + e)
            counts = {}
            for t in tasks:
                counts[t["corpus"]] = counts.get(t["corpus"], 0) + 1
            print("%s: %d tasks (%s), %d errors, %d warnings" % (
                kind, len(tasks), ", ".join("%s %d" % kv for kv in counts.items()),
                len(errors), len(warnings)))
            bad += len(errors)
        sys.exit(1 if bad else 0)

    loupe = None
    binary = pinned = None
    if not args.no_loupe:
        binary = os.path.abspath(args.loupe or os.path.join(TOP, "build", "loupe"))
        if not os.access(binary, os.X_OK):
            die("no loupe binary at %s; build it with 'make' or pass --loupe PATH" % binary)
        # Measure a private copy: a binary rebuilt in the middle of a run would mix versions.
        with open(binary, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()[:12]
        pinned = os.path.join(WORK, "bin", "loupe-" + digest)
        if not os.path.exists(pinned):
            os.makedirs(os.path.dirname(pinned), exist_ok=True)
            shutil.copy2(binary, pinned + ".tmp")
            os.replace(pinned + ".tmp", pinned)
        if args.fresh and os.path.isdir(args.home):
            shutil.rmtree(args.home)
        os.makedirs(args.home, exist_ok=True)
        loupe = Loupe(pinned, os.path.abspath(args.home), args.channels)
    elif args.no_baseline:
        die("--no-loupe with --no-baseline leaves nothing to measure")

    run = {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "cores": os.cpu_count() or 0,
        "platform": "%s %s, Python %s" % (platform.system(), platform.machine(),
                                          platform.python_version()),
        "loupe": os.path.relpath(binary, TOP) if binary and binary.startswith(TOP) else binary,
        "commit": git_commit(binary) if binary else "-",
        "sha256": os.path.basename(pinned)[len("loupe-"):] if binary else None,
        "built": (datetime.datetime.fromtimestamp(os.path.getmtime(binary), datetime.timezone.utc)
                  .strftime("%Y-%m-%d %H:%M UTC") if binary else None),
        "channels": args.channels if loupe else None,
        "set": args.set, "index": {}, "details": [], "mismatches": [], "notes": [],
        "channels_seen": set(),
        "identical": None,
    }
    rows = []
    for kind in kinds:
        rows += evaluate(args, corpora, kind, loupe, run)
    if not rows:
        die("no tasks for %s" % ", ".join(corpora))
    mean = {"corpus": "**mean**", "set": args.set, "n": sum(r["n"] for r in rows),
            "failed": sum(r["failed"] for r in rows) if loupe else "-"}
    for key in ("loupe", "loupe_file", "base", "cover"):
        if any(r.get(key) for r in rows):
            mean[key] = {"n": 1}
            for sub in ["at%d" % k for k in K_VALUES] + ["mrr10"]:
                mean[key][sub] = macro(rows, key, sub)
    run["rows"], run["mean"] = rows, mean
    if args.check_identical and loupe:
        run["identical"] = ("PASS (every query answered identically twice)"
                            if not run["mismatches"] else
                            "FAIL: %d queries differ: %s" % (len(run["mismatches"]),
                                                             ", ".join(run["mismatches"][:10])))
    if loupe and all((r.get("loupe") or {}).get("at10", 0) == 0 for r in rows):
        run["notes"].append("loupe found no owner at all: a binary without symbol extraction "
                            "answers with file regions only (see file@k).")

    md = render_markdown(run)
    if args.results == "-":
        sys.stdout.write(md)
    else:
        with open(args.results, "w", encoding="utf-8") as fh:
            fh.write(md)
        sys.stdout.write(md)
    if args.json:
        run["channels_seen"] = sorted(run["channels_seen"])
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(run, fh, indent=1, sort_keys=True)
    if run["mismatches"]:
        sys.stderr.write("run.py: %d queries gave different answers on the second run\n"
                         % len(run["mismatches"]))
        sys.exit(1)


if __name__ == "__main__":
    main()
