#!/usr/bin/env python3
"""Generate self-supervised retrieval tasks from the training corpora (bench/train/corpora.py).

Every task is a question in words and the code that owns the answer, in loupe's own symbol terms
(`loupe parse --json`: qualifiedName, kind, startLine, endLine), on a package that is never an
evaluation tree. Kinds (each its own `source`):

  doc-comment   first sentence of a function's doc comment -> that function; the doc is blanked
                (same-length whitespace) in a copy of the tree, which is the task's root
  doc-long      a whole long doc comment (60-300 words) -> its function or class; blanked the same
  test-name     a test's name or description ("test_parse_header_with_quotes" -> "parse header
                with quotes") -> the functions the test body calls whose names it shares words with
  doc-section   a README/docs paragraph naming code in backticks -> those symbols; two variants,
                identifiers kept or removed (meta.identifiers)
  changelog     a CHANGES/NEWS/HISTORY entry naming a function or class -> that symbol in the tree
                of that version; identifiers kept or removed, leaks_identifier flagged

Split package-disjoint per language (sha256 of seed + package, 20% valid), capped per package.
Writes bench/train/tasks/<kind>.<split>.jsonl and bench/train/tasks/COUNTS.md.
Python 3 standard library only.
"""
import argparse
import collections
import gzip
import hashlib
import importlib.util
import json
import multiprocessing
import os
import random
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import content_words, is_test_path, is_vendored_path, split_words, stem  # noqa: E402

OUT = os.path.join(common.HERE, "tasks")
BLANKED = os.path.join(common.WORK, "blanked")
KINDS = ("doc-comment", "doc-long", "test-name", "doc-section", "changelog")
CAPS = {"doc-comment": 40, "doc-long": 10, "test-name": 40, "doc-section": 25, "changelog": 25}
MAX_SOURCE_FILES = 6000

_spec = importlib.util.spec_from_file_location(
    "quality_gen", os.path.join(common.TOP, "bench", "quality", "gen_tasks.py"))
quality_gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(quality_gen)

DOC_LANG = {"python": "python", "go": "go", "c": "c", "cpp": "cpp", "rust": "rust"}


# ---------------------------------------------------------------------------------------------
# Package model: files, symbols, definitions by name


class Package:
    def __init__(self, rec, loupe):
        self.rec = rec
        self.root = os.path.join(common.TOP, rec["root"])
        parsed = common.parse_tree(self.root, rec["lang"], loupe=loupe, cache_key=rec["id"])
        self.files = parsed["files"]
        self.data = {}
        self.defs = collections.defaultdict(list)   # name -> [(rel, sym)] in non-test code
        self.qdefs = collections.defaultdict(list)  # qname -> [(rel, sym)]
        for rel, f in self.files.items():
            if is_test_path(rel) or is_vendored_path(rel):
                continue
            for s in f["symbols"]:
                if s["kind"] in common.OWNER_KINDS:
                    self.defs[s["name"]].append((rel, s))
                    self.qdefs[s["qname"]].append((rel, s))

    def read(self, rel):
        if rel not in self.data:
            with open(os.path.join(self.root, rel), "rb") as fh:
                self.data[rel] = fh.read()
        return self.data[rel]

    def lang_of(self, rel):
        return common.file_lang(rel, self.rec["lang"])

    def resolve(self, ident, kinds=None):
        """Definitions an identifier from prose names: `a.b.c` by qualified-name suffix, else by
        name; None when absent or ambiguous (more than two)."""
        ident = re.sub(r"\(.*\)$", "", ident.strip()).strip("~.:#!")
        ident = re.sub(r"^(self|this|cls)\.", "", ident)
        parts = [p for p in re.split(r"\.|::|#|->", ident) if p]
        if not parts or not re.match(r"^[A-Za-z_]\w*$", parts[-1]):
            return None
        name = parts[-1]
        if len(name) < 3 or name.lower() in STOP_IDENTS:
            return None
        cands = [(r, s) for r, s in self.defs.get(name, []) if kinds is None or s["kind"] in kinds]
        if len(parts) > 1:
            suffix = ".".join(parts)
            narrowed = [(r, s) for r, s in cands
                        if re.sub(r"::|#|/", ".", s["qname"]).endswith(suffix)]
            if narrowed:
                cands = narrowed
        if not cands or len(cands) > 2:
            return None
        return cands


STOP_IDENTS = frozenset("""get set run new init main test call apply value name type data self this
none null true false len str int list dict map filter key keys items next string object error
close open read write print format update append start stop reset size count index from copy
clear load dump parse add remove push pop send recv wait done info debug warn""".split())


def gold_entry(rel, s):
    return {"file": rel, "qualname": s["qname"], "kind": s["kind"], "start": s["start"],
            "end": s["end"]}


def make_task(pkg, kind, query, golds, meta, root=None):
    files = sorted({g["file"] for g in golds})
    rec = pkg.rec
    return {"source": kind, "repo": "%s:%s@%s" % (rec["registry"], rec["name"], rec["version"]),
            "package": rec["id"], "lang": pkg.lang_of(golds[0]["file"]),
            "root": root or pkg.root, "query": query,
            "gold": {"files": files, "functions": golds}, "meta": meta}


# ---------------------------------------------------------------------------------------------
# doc-comment and doc-long


def doc_text(pkg, rel, s, lang):
    """(doc text, blank start, blank end) of a symbol, quotes kept for Python."""
    data = pkg.read(rel)
    bs, be = s["doc"][0], s["doc"][1]
    if lang == "python":
        seg = data[bs:be]
        qm = re.match(rb"[rRuUbB]*(\"\"\"|'''|\"|')", seg)
        if qm and seg.endswith(qm.group(1)) and len(seg) >= 2 * len(qm.group(1)):
            bs, be = bs + qm.end(), be - len(qm.group(1))
    return data[bs:be].decode("utf-8", "replace"), bs, be


def clean_long(text, lang):
    """A whole doc comment as prose: comment markers, tags and markup removed, code dropped."""
    out = []
    in_code = False
    for ln in text.split("\n"):
        s = ln.strip()
        if lang != "python":
            s = re.sub(r"^(///?!?|/\*\*+|\*+/|\*|#|--)\s?", "", s)
            s = re.sub(r"\*+/$", "", s).strip()
        if s.startswith("```") or s.startswith("~~~"):
            in_code = not in_code
            continue
        if in_code or s.startswith(">>>") or s.startswith("..."):
            continue
        s = re.sub(r"^(@(param|return|returns|throws|exception|see|since|author|version|deprecated)"
                   r"|:param|:returns?|:raises?|:type|:rtype)\b", "", s)
        out.append(s)
    doc = " ".join(out)
    doc = re.sub(r"\{@(?:link|linkplain|code|literal)\s+([^}]*)\}", r"\1", doc)
    doc = re.sub(r"<[^>]{1,40}>", " ", doc)
    doc = re.sub(r":(?:meth|func|class|attr|data|obj|exc|mod|ref):`~?([^`]*)`", r"\1", doc)
    doc = re.sub(r"\[`?([^\]`]+)`?\](?:\([^)]*\))?", r"\1", doc)
    doc = doc.replace("`", "").replace("**", "")
    return re.sub(r"\s+", " ", doc).strip()


def gen_docs(pkg):
    """Candidates for doc-comment and doc-long: (kind, task, blank span)."""
    short, long_ = [], []
    for rel, f in sorted(pkg.files.items()):
        if is_test_path(rel) or is_vendored_path(rel):
            continue
        lang = pkg.lang_of(rel)
        for s in f["symbols"]:
            if not s["doc"] or s["kind"] not in common.OWNER_KINDS:
                continue
            text, bs, be = doc_text(pkg, rel, s, lang)
            g = [gold_entry(rel, s)]
            if lang in ("c", "cpp"):  # a prototype's doc: its definitions own the answer too
                twins = [(r, t) for r, t in pkg.qdefs.get(s["qname"], [])
                         if r != rel and t["kind"] in common.CALLABLE_KINDS]
                if len(twins) <= 2:
                    g += [gold_entry(r, t) for r, t in twins]
            if s["kind"] in common.CALLABLE_KINDS and s["kind"] != "macro":
                if lang != "python":
                    text = re.sub(r"^\s*/\*(?!\*)", "/**", text)
                q = quality_gen.clean_doc(text, DOC_LANG.get(lang, lang), s["name"])
                if q:
                    short.append((make_task(pkg, "doc-comment", q, g, {"blank": [[rel, bs, be]]}),
                                  (rel, bs, be)))
            if s["kind"] in common.CALLABLE_KINDS or s["kind"] in common.TYPE_KINDS:
                q = clean_long(text, lang)
                words = q.split()
                low = set(re.findall(r"[a-z0-9_]+", q.lower()))
                if 60 <= len(words) <= 300 and s["name"].lower() not in low:
                    long_.append((make_task(pkg, "doc-long", q, g,
                                            {"blank": [[rel, bs, be]], "words": len(words)}),
                                  (rel, bs, be)))
    for lst in (short, long_):  # a sentence shared by several symbols has no single owner
        c = collections.Counter(t["query"].lower() for t, _ in lst)
        lst[:] = [x for x in lst if c[x[0]["query"].lower()] == 1]
    return short, long_


def write_blanked(pkg, spans):
    """A copy of the package tree (hard links) with the doc spans replaced by whitespace."""
    dest = os.path.join(BLANKED, pkg.rec["id"])
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    shutil.copytree(pkg.root, dest, copy_function=os.link, symlinks=True)
    by_file = collections.defaultdict(list)
    for rel, bs, be in spans:
        by_file[rel].append((bs, be))
    for rel, lst in by_file.items():
        data = bytearray(pkg.read(rel))
        for bs, be in lst:
            data[bs:be] = bytes(b if b in (10, 13) else 32 for b in data[bs:be])
        path = os.path.join(dest, rel)
        os.unlink(path)  # never write through the hard link into the original
        with open(path, "wb") as fh:
            fh.write(bytes(data))
    return dest


# ---------------------------------------------------------------------------------------------
# test-name

TEST_NAME_RE = {
    "python": re.compile(r"^test_?(\w+)$"),
    "go": re.compile(r"^Test_?([A-Z0-9]\w*)$"),
    "java": re.compile(r"^(?:test_?|should_?)(\w+)$"),
    "csharp": re.compile(r"^(?:Test_?|Should_?)?(\w+)$"),
    "scala": re.compile(r"^(?:test_?)(\w+)$"),
    "c": re.compile(r"^test_?(\w+)$"),
    "cpp": re.compile(r"^test_?(\w+)$"),
    "rust": re.compile(r"^(?:test_)?(\w+)$"),
    "javascript": re.compile(r"^test_?(\w+)$"),
    "typescript": re.compile(r"^test_?(\w+)$"),
}
DESC_RE = re.compile(r"""(?m)^[ \t]*(?:it|test|TEST_CASE|SECTION|should|specify)\s*\(\s*(['"`])((?:(?!\1).){6,160})\1""")
SCALA_DESC_RE = re.compile(r"""(?m)^[ \t]*(?:test\s*\(\s*"([^"]{6,160})"|"([^"]{6,160})"\s+(?:in|should|must|when)\b)""")
GTEST_RE = re.compile(r"(?m)^\s*(?:TEST|TEST_F|TEST_P|TYPED_TEST)\s*\(\s*(\w+)\s*,\s*(\w+)\s*\)")
CALL_RE = re.compile(r"(?:\bnew\s+)?\b([A-Za-z_]\w*)\s*(?:<[^<>()]{0,40}>)?\s*\(")
CALL_STOP = frozenset("""if for while switch return sizeof assert expect describe it test require
catch typeof function print println printf fmt len make append panic new super""".split())


def body_calls(text):
    return {m.group(1) for m in CALL_RE.finditer(text) if m.group(1) not in CALL_STOP}


def test_query(words_src):
    ws = [w for w in split_words(words_src) if w not in ("test", "tests", "spec")]
    return " ".join(ws)


def match_callees(pkg, query, calls, test_rel):
    qw = set(content_words(query))
    picked = []
    for name in sorted(calls):
        if len(name) < 3:
            continue
        cands = pkg.defs.get(name)
        if not cands or len(cands) > 2:
            continue
        cands = [(r, s) for r, s in cands
                 if s["kind"] in common.CALLABLE_KINDS or s["kind"] in common.TYPE_KINDS]
        if not cands:
            continue
        nw = [stem(w) for w in split_words(name) if len(w) > 2 and w not in common.STOP]
        if not nw:
            continue
        hit = sum(1 for w in nw if w in qw)
        if hit >= 1 and hit / len(nw) >= 0.5:
            picked.append((hit / len(nw), hit, name, cands))
    picked.sort(key=lambda x: (-x[0], -x[1], x[2]))
    golds = []
    for _, _, name, cands in picked[:3]:
        golds += [gold_entry(r, s) for r, s in cands]
    return golds


def block_after(text, pos, max_lines=80):
    """The brace-balanced block that starts at the first '{' after pos (or max_lines lines)."""
    i = text.find("{", pos)
    if i < 0 or text.count("\n", pos, i) > 3:
        return text[pos:pos + 2000]
    depth = 0
    for j in range(i, min(len(text), i + 20000)):
        c = text[j]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return text[pos:j + 1]
    return text[pos:pos + 4000]


def gen_tests(pkg):
    out = []
    seen = set()
    for rel, f in sorted(pkg.files.items()):
        if not is_test_path(rel) or is_vendored_path(rel):
            continue
        lang = pkg.lang_of(rel)
        data = pkg.read(rel).decode("utf-8", "replace")
        lines = data.split("\n")
        items = []  # (query source, origin, body)
        for s in f["symbols"]:
            if s["kind"] not in ("function", "method"):
                continue
            m = TEST_NAME_RE.get(lang, TEST_NAME_RE["python"]).match(s["name"])
            if not m:
                continue
            if lang in ("rust", "csharp", "java", "scala", "cpp", "c") and not s["name"].lower().startswith(("test", "should")):
                head = "\n".join(lines[max(0, s["start"] - 4):s["start"]])
                if not re.search(r"#\[(tokio::)?test\]|@Test|\[(Test|Fact|Theory|TestMethod)\]", head):
                    continue
            body = "\n".join(lines[s["start"] - 1:s["end"]])
            items.append((m.group(1), "name", body, s["start"]))
        if lang in ("javascript", "typescript", "cpp", "c", "scala"):
            for m in DESC_RE.finditer(data):
                items.append((m.group(2), "description", block_after(data, m.end()),
                              data.count("\n", 0, m.start()) + 1))
        if lang == "scala":
            for m in SCALA_DESC_RE.finditer(data):
                items.append((m.group(1) or m.group(2), "description", block_after(data, m.end()),
                              data.count("\n", 0, m.start()) + 1))
        if lang in ("cpp", "c"):
            for m in GTEST_RE.finditer(data):
                items.append((m.group(2), "name", block_after(data, m.end()),
                              data.count("\n", 0, m.start()) + 1))
        for src, origin, body, line in items:
            query = src if origin == "description" else test_query(src)
            query = re.sub(r"\s+", " ", query).strip()
            nwords = len(query.split())
            if len(content_words(query)) < 2 or nwords > 30 or query.lower() in seen:
                continue
            golds = match_callees(pkg, query, body_calls(body), rel)
            if not golds or len(golds) > 4:
                continue
            seen.add(query.lower())
            qlow = " " + " ".join(split_words(query)) + " "
            leak = any(" " + " ".join(split_words(g["qualname"].split(".")[-1].split("::")[-1])) + " " in qlow
                       for g in golds)
            out.append(make_task(pkg, "test-name", query, golds,
                                 {"test_file": rel, "test_line": line, "origin": origin,
                                  "leaks_identifier": leak}))
    return out


# ---------------------------------------------------------------------------------------------
# doc-section and changelog (prose files)

DOC_EXT = (".md", ".rst", ".markdown", ".txt", ".mdx")
CHANGELOG_RE = re.compile(r"(?i)^(changes|changelog|change_log|news|history|release[-_ ]?notes|"
                          r"whatsnew|whats[-_]new)([-_.][\w.-]*)?(\.(md|rst|txt|markdown))?$")


def prose_files(pkg):
    """(rel, is_changelog) of README/docs prose files in the package."""
    out = []
    for dirpath, dirnames, filenames in os.walk(pkg.root):
        dirnames[:] = sorted(d for d in dirnames if d not in common.SKIP_DIRS
                             and not d.startswith(".") and d.lower() not in common.VENDOR_DIRS)
        rel_dir = os.path.relpath(dirpath, pkg.root).replace(os.sep, "/")
        depth = 0 if rel_dir == "." else rel_dir.count("/") + 1
        for fn in sorted(filenames):
            rel = fn if rel_dir == "." else rel_dir + "/" + fn
            if CHANGELOG_RE.match(fn) or (depth <= 3 and re.search(r"(?i)(^|/)(changes|changelog|news|history|whatsnew|release-?notes)(/|$)", rel_dir)):
                out.append((rel, True))
            elif fn.lower().endswith(DOC_EXT) and not is_test_path(rel) and (
                    depth == 0 or re.match(r"(?i)^(docs?|documentation|guide|manual|site)(/|$)", rel_dir)):
                if re.match(r"(?i)^(license|licence|copying|authors|contributors|code_of_conduct|"
                            r"security|cmakelists|requirements)", fn):
                    continue
                out.append((rel, False))
    return out


BACKTICK_RE = re.compile(r"(?::[\w:.-]+:|\{[\w:.-]+\})?``?([^`\n]{2,80}?)``?(?!`)")
FILENAME_RE = re.compile(r"(?i)\.(json|ya?ml|toml|cfg|ini|txt|md|rst|py|js|ts|h|c|cc|cpp|go|rs|java|"
                         r"cs|scala|html|css|xml|lock|sh|in)$")


def paragraphs(text):
    """Prose paragraphs of a Markdown/reST file: code blocks, tables, directives dropped."""
    paras, cur = [], []
    in_fence = False
    literal_indent = None
    for ln in text.split("\n"):
        s = ln.rstrip()
        if s.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
            if cur:
                paras.append(cur)
                cur = []
            continue
        if in_fence:
            continue
        if literal_indent is not None:
            if not s.strip() or (len(s) - len(s.lstrip())) > literal_indent:
                continue
            literal_indent = None
        if not s.strip():
            if cur:
                paras.append(cur)
                cur = []
            continue
        if re.match(r"^\s*(\.\. |\||[=\-~^*#+]{3,}\s*$|<|!\[|\+--|:\w+:)", s) or s.startswith("    "):
            if cur:
                paras.append(cur)
                cur = []
            continue
        cur.append(s.strip())
        if s.endswith("::"):
            literal_indent = len(s) - len(s.lstrip())
            paras.append(cur)
            cur = []
    if cur:
        paras.append(cur)
    return [" ".join(p) for p in paras]


def strip_markup(text, drop_idents):
    """Prose from a Markdown/reST string; backticked spans kept as words or dropped."""
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)            # md links
    text = re.sub(r"`([^`<]+?)\s*<[^>]+>`_+", r"\1", text)            # rst links
    text = re.sub(r"https?://\S+", " ", text)
    if drop_idents:
        text = BACKTICK_RE.sub(" ", text)
    else:
        text = re.sub(r"(?::[\w:.-]+:|\{[\w:.-]+\})`~?([^`]+)`", r"\1", text)
        text = text.replace("``", "").replace("`", "")
    text = re.sub(r"\{[\w:.-]+\}", " ", text)
    text = re.sub(r"\s*\([^)]*$", "", text)
    text = re.sub(r"[*_]{2,}|(?<!\w)[*_](?=\w)|(?<=\w)[*_](?!\w)", "", text)
    text = re.sub(r"^#+\s*|^\s*[-*+]\s+|^\s*\d+[.)]\s+", "", text)
    text = re.sub(r"\(\s*\)|\s+([,.;:])", r"\1", text)
    return re.sub(r"\s+", " ", text).strip(" -:")


def idents_in(text):
    out = []
    for m in BACKTICK_RE.finditer(text):
        ident = m.group(1).strip().lstrip("~")
        if FILENAME_RE.search(ident) or " " in ident or "/" in ident:
            continue
        out.append(ident)
    return out


def gen_doc_sections(pkg, prose):
    out = []
    seen = set()
    for rel, is_cl in prose:
        if is_cl:
            continue
        try:
            text = pkg.read(rel).decode("utf-8", "replace")
        except OSError:
            continue
        for para in paragraphs(text):
            idents = idents_in(para)
            if not idents:
                continue
            golds, names = [], []
            for ident in idents:
                r = pkg.resolve(ident, kinds=common.CALLABLE_KINDS | common.TYPE_KINDS | {"constant"})
                if r:
                    for rr, s in r:
                        g = gold_entry(rr, s)
                        if g not in golds:
                            golds.append(g)
                    names.append(ident)
            if not golds or len(set(names)) > 3 or len(golds) > 4:
                continue
            group = []
            out.append(group)
            for drop in (False, True):
                q = strip_markup(para, drop)
                n = len(q.split())
                if n < 8 or n > 60 or (q.lower(), drop) in seen:
                    continue
                seen.add((q.lower(), drop))
                low = set(re.findall(r"[A-Za-z0-9_]+", q))
                leak = any(g["qualname"].split(".")[-1].split("::")[-1] in low for g in golds)
                group.append(make_task(pkg, "doc-section", q, golds,
                                     {"doc_file": rel, "identifiers": "removed" if drop else "kept",
                                      "named": sorted(set(names)), "leaks_identifier": leak}))
    return [g for g in out if g]


ENTRY_START = re.compile(r"^(\s*)(?:[-*+•]|\d+[.)])\s+(.*)$")
ISSUE_RE = re.compile(r"\(?(?:(?:GH|gh|issue|Issue|PR|pr|bug|Bug|bpo|LP)[-#: ]*#?\d+|#\d+|:(?:issue|pr|bug|user|gh):`[^`]+`)\)?[,;]?")
PLAIN_IDENT_RE = re.compile(r"\b([A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*)(\(\))?")


def changelog_entries(text):
    entries, cur, indent = [], None, 0
    for ln in text.split("\n"):
        m = ENTRY_START.match(ln)
        if m:
            if cur:
                entries.append(cur)
            cur, indent = [m.group(2).strip()], len(m.group(1))
            continue
        if cur is not None:
            if ln.strip() and (len(ln) - len(ln.lstrip())) > indent and not ENTRY_START.match(ln):
                cur.append(ln.strip())
            else:
                entries.append(cur)
                cur = None
    if cur:
        entries.append(cur)
    return [" ".join(e) for e in entries]


def changelog_idents(pkg, entry):
    """Identifiers an entry names: backticked, called `f()`, dotted, or snake/Camel-cased words
    that are defined in the tree."""
    found = idents_in(entry)
    plain = BACKTICK_RE.sub(" ", entry)
    for m in PLAIN_IDENT_RE.finditer(plain):
        w = m.group(1)
        if m.group(2) or "." in w or "::" in w or "_" in w.strip("_") or re.search(r"[a-z][A-Z]", w):
            found.append(w)
    return found


def gen_changelogs(pkg, prose):
    out = []
    seen = set()
    for rel, is_cl in prose:
        if not is_cl:
            continue
        try:
            text = pkg.read(rel).decode("utf-8", "replace")
        except OSError:
            continue
        for entry in changelog_entries(text):
            entry = ISSUE_RE.sub(" ", entry)
            entry = re.sub(r"\((?:by |thanks |contributed by |reported by |patch by )[^)]*\)|"
                           r"(?:Thanks|Patch|Contributed|Reported) (?:to|by) [^.]*\.?|@[\w-]+", " ",
                           entry, flags=re.I)
            entry = re.split(r"(?<=[a-z0-9)`])\.\s+(?=[A-Z])", entry)[0]  # first sentence
            golds, names = [], []
            for ident in changelog_idents(pkg, entry):
                r = pkg.resolve(ident, kinds=common.CALLABLE_KINDS | common.TYPE_KINDS)
                if r:
                    for rr, s in r:
                        g = gold_entry(rr, s)
                        if g not in golds:
                            golds.append(g)
                    names.append(ident)
            if not golds or len(set(names)) > 2 or len(golds) > 3:
                continue
            group = []
            out.append(group)
            for drop in (False, True):
                q = entry
                if drop:
                    for nm in sorted(set(names), key=len, reverse=True):
                        q = re.sub(r"``?%s(\(\))?``?|\b%s(\(\))?" % (re.escape(nm), re.escape(nm)), " ", q)
                q = strip_markup(q, drop)
                n = len(q.split())
                if n < 4 or n > 40 or (q.lower(), drop) in seen:
                    continue
                seen.add((q.lower(), drop))
                low = set(re.findall(r"[A-Za-z0-9_]+", q))
                leak = any(g["qualname"].split(".")[-1].split("::")[-1] in low for g in golds)
                group.append(make_task(pkg, "changelog", q, golds,
                                     {"changelog_file": rel, "identifiers": "removed" if drop else "kept",
                                      "named": sorted(set(names)), "leaks_identifier": leak}))
    return [g for g in out if g]


# ---------------------------------------------------------------------------------------------


def split_of(manifest, seed, valid_frac):
    """Package-disjoint split: a package is valid when sha256(seed, id) falls in the first
    valid_frac of the hash range, so adding or dropping other packages never moves it."""
    return {r["id"]: "valid" if int(common.stable_hash(seed, r["id"])[:12], 16) < valid_frac * 16 ** 12
            else "train" for r in manifest}


def sample(tasks, cap, rng, groups=False):
    """At most cap items (cap groups of variants when groups), seeded, original order kept."""
    if len(tasks) > cap:
        keep = set(rng.sample(range(len(tasks)), cap))
        tasks = [t for i, t in enumerate(tasks) if i in keep]
    return [t for g in tasks for t in g] if groups else tasks


def one_package(job):
    """All tasks of one package (a worker process): (rec, split, {kind: [task]})."""
    rec, sp, seed, loupe = job
    if sum(rec.get("sources", {}).values()) > MAX_SOURCE_FILES:
        return rec, sp, None
    pkg = Package(rec, loupe)
    rng = random.Random("%s/%s" % (seed, rec["id"]))
    short, long_ = gen_docs(pkg)
    short = sample(short, CAPS["doc-comment"], rng)
    long_ = sample(long_, CAPS["doc-long"], rng)
    picked = {"doc-comment": [t for t, _ in short], "doc-long": [t for t, _ in long_]}
    spans = [span for _, span in short + long_]
    if spans:
        broot = write_blanked(pkg, spans)
        for k in ("doc-comment", "doc-long"):
            for t in picked[k]:
                t["root"] = broot
    prose = prose_files(pkg)
    picked["test-name"] = sample(gen_tests(pkg), CAPS["test-name"], rng)
    picked["doc-section"] = sample(gen_doc_sections(pkg, prose), CAPS["doc-section"], rng, True)
    picked["changelog"] = sample(gen_changelogs(pkg, prose), CAPS["changelog"], rng, True)
    for k in KINDS:
        out = []
        for n, t in enumerate(picked[k]):
            t["task_id"] = "%s/%s/%04d" % (k, rec["id"], n)
            t["split"] = sp
            t["root_rel"] = os.path.relpath(t["root"], common.TOP)
            out.append({key: t[key] for key in ("task_id", "source", "repo", "package", "lang", "root",
                                                "root_rel", "query", "gold", "split", "meta")})
        picked[k] = out
    return rec, sp, picked


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", default="loupe-train-1")
    ap.add_argument("--valid", type=float, default=0.2, help="fraction of packages (per language)")
    ap.add_argument("--loupe", default=common.LOUPE)
    ap.add_argument("--package", action="append", help="only this package id (repeatable)")
    ap.add_argument("--lang", action="append", help="only packages of this language (repeatable)")
    ap.add_argument("--out", default=OUT, help="where the gzip'd task files, COUNTS.md and "
                    "SHA256SUMS go (default bench/train/tasks)")
    ap.add_argument("--raw", metavar="DIR", help="write plain JSONL of this (partial) run to DIR "
                    "only; join partial runs with --merge")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="packages in parallel (default 2)")
    ap.add_argument("--merge", nargs="+", metavar="DIR",
                    help="only merge the task files of earlier runs (e.g. one per language group) "
                         "into --out, in manifest order, and count them")
    args = ap.parse_args()
    if args.merge:
        return merge(args)

    manifest = [r for r in common.load_manifest() if r["status"] == "ok"]
    split = split_of(manifest, args.seed, args.valid)
    if args.package:
        manifest = [r for r in manifest if r["id"] in args.package]
    if args.lang:
        manifest = [r for r in manifest if r["lang"] in args.lang]
    raw = args.raw or os.path.join(common.WORK, "gen", "full")
    os.makedirs(raw, exist_ok=True)
    outs = {(k, s): open(os.path.join(raw, "%s.%s.jsonl" % (k, s)), "w", encoding="utf-8")
            for k in KINDS for s in ("train", "valid")}
    counts = collections.Counter()
    pkg_counts = collections.Counter()
    work = [(rec, split[rec["id"]], args.seed, os.path.abspath(args.loupe)) for rec in manifest]
    with multiprocessing.Pool(max(1, args.jobs)) as pool:
        for rec, sp, picked in pool.imap(one_package, work):
            if picked is None:
                print("%-55s skipped: too many source files" % rec["id"][:55], flush=True)
                continue
            line = []
            for k in KINDS:
                for n, t in enumerate(picked[k]):
                    outs[(k, sp)].write(json.dumps(t, ensure_ascii=False) + "\n")
                    counts[(k, sp, t["lang"])] += 1
                if picked[k]:
                    pkg_counts[(k, sp)] += 1
                line.append("%s %d" % (k, len(picked[k])))
            print("%-55s %-5s %s" % (rec["id"][:55], sp, ", ".join(line)), flush=True)
    for fh in outs.values():
        fh.close()
    if args.raw:
        write_counts(raw, counts, pkg_counts, args.seed)
    else:
        args.merge = [raw]
        merge(args)


def merge(args):
    """Join partial runs into --out as gzip'd JSONL (fixed mtime: same tasks, same bytes) and
    write COUNTS.md and SHA256SUMS (of the .jsonl.gz files and of their uncompressed text)."""
    order = {r["id"]: i for i, r in enumerate(common.load_manifest())}
    os.makedirs(args.out, exist_ok=True)
    counts, pkgs = collections.Counter(), collections.defaultdict(set)
    sums = []
    for k in KINDS:
        for sp in ("train", "valid"):
            tasks = []
            for d in args.merge:
                for path in (os.path.join(d, "%s.%s.jsonl" % (k, sp)),
                             os.path.join(d, "%s.%s.jsonl.gz" % (k, sp))):
                    if os.path.exists(path):
                        opener = gzip.open if path.endswith(".gz") else open
                        with opener(path, "rt", encoding="utf-8") as fh:
                            tasks += [json.loads(l) for l in fh if l.strip()]
            tasks.sort(key=lambda t: (order.get(t["package"], 1 << 30), t["task_id"]))
            text = "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in tasks).encode("utf-8")
            name = "%s.%s.jsonl.gz" % (k, sp)
            with open(os.path.join(args.out, name), "wb") as raw:
                with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as gz:
                    gz.write(text)
            sums.append("%s  %s" % (hashlib.sha256(open(os.path.join(args.out, name), "rb").read()).hexdigest(), name))
            sums.append("%s  %s (uncompressed)" % (hashlib.sha256(text).hexdigest(), name[:-3]))
            for t in tasks:
                counts[(k, sp, t["lang"])] += 1
                pkgs[(k, sp)].add(t["package"])
    with open(os.path.join(args.out, "SHA256SUMS"), "w") as fh:
        fh.write("\n".join(s for s in sums if "(uncompressed)" not in s) + "\n")
    with open(os.path.join(args.out, "SHA256SUMS.uncompressed"), "w") as fh:
        fh.write("\n".join(s.replace(" (uncompressed)", "") for s in sums if "(uncompressed)" in s) + "\n")
    write_counts(args.out, counts, collections.Counter({k: len(v) for k, v in pkgs.items()}), args.seed)


def write_counts(out, counts, pkg_counts, seed):
    langs = sorted({l for _, _, l in counts})
    lines = ["# Training tasks: counts", "", "Generated by `bench/train/gen_tasks.py --seed %s`." % seed, "",
             "| kind | split | packages | " + " | ".join(langs) + " | total |",
             "|---|---|---|" + "---|" * len(langs) + "---|"]
    for k in KINDS:
        for s in ("train", "valid"):
            row = [counts[(k, s, l)] for l in langs]
            lines.append("| %s | %s | %d | %s | %d |" % (k, s, pkg_counts[(k, s)],
                                                        " | ".join(map(str, row)), sum(row)))
    tot = [sum(counts[(k, s, l)] for k in KINDS for s in ("train", "valid")) for l in langs]
    lines.append("| all | both | | %s | %d |" % (" | ".join(map(str, tot)), sum(tot)))
    with open(os.path.join(out, "COUNTS.md"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
