#!/usr/bin/env python3
"""Generate owner-discovery tasks from doc comments: the first sentence of a function's doc
becomes the question, the function is the gold owner.

For each corpus (bench/corpora/<name>, see corpora.sh) every function and method with a doc
comment or docstring is a candidate. Docs shorter than 4 words, docs that merely restate the
name, docs that contain the name itself and first sentences shared by several functions are
skipped. A seeded sample, stratified across corpora (an equal share each, leftovers to corpora
with more candidates), is written to bench/quality/generated/<corpus>.jsonl. Each task carries the
byte span of its doc comment ("blank"): run.py indexes a copy of the corpus in which these spans
are replaced by same-length whitespace, so the answer cannot come from the doc text itself.

Extractors:
  regex  per-language regular expressions written here (Python, Go, Rust, Java, TypeScript/
         JavaScript, C); independent of the system under test. The default.
  loupe  `loupe parse FILE --json` (symbols with kind, qualified name, span and doc span), for
         when loupe's own extractor should define the candidates.

Python 3 standard library only.
"""
import argparse
import json
import os
import random
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
CORPORA = os.environ.get("LOUPE_CORPORA", os.path.join(TOP, "bench", "corpora"))
OUT = os.path.join(HERE, "generated")
MAX_FILE_BYTES = 8 << 20
MIN_WORDS = 4
MAX_WORDS = 40

LANG_BY_EXT = {".py": "python", ".go": "go", ".rs": "rust", ".java": "java", ".ts": "ts",
               ".tsx": "ts", ".js": "ts", ".mjs": "ts", ".c": "c", ".h": "c"}

STOP = frozenset("a an the of to for and or in on is are be by it its this that with from as at "
                 "if all any into given new returns return".split())


def die(msg):
    sys.stderr.write("gen_tasks.py: %s\n" % msg)
    sys.exit(2)


def is_test_path(rel):
    parts = rel.lower().split("/")
    base = parts[-1]
    if any(p in ("test", "tests", "testdata", "testing", "__tests__", "kunit", "examples",
                 "benches", "bench") for p in parts[:-1]):
        return True
    return bool(re.search(r"(^test_|_test\.|\.test\.|\.spec\.|^test[a-z]*\.|_kunit\.|test\.c$|"
                          r"tests?\.rs$|^bench)", base))


def split_words(name):
    parts = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    parts = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", parts)
    return [p.lower() for p in re.split(r"[^A-Za-z0-9]+", parts) if p]


# ---------------------------------------------------------------------------------------------
# Doc text -> question


def clean_doc(text, lang, name):
    """Comment markers and markup removed; the first sentence, or None when unusable."""
    lines = []
    for ln in text.split("\n"):
        s = ln.strip()
        s = re.sub(r"^(///?!?|/\*\*+|\*+/|\*|#)\s?", "", s) if lang != "python" else s
        s = re.sub(r"\*+/$", "", s).strip()
        lines.append(s)
    # Stop at the first tag line or blank line after some text.
    para = []
    for s in lines:
        if not s:
            if para:
                break
            continue
        if re.match(r"^(@\w+|:param|:return|:raise|\.\. |Args:|Returns:|Parameters|Example|"
                    r"Arguments|# )", s):
            break
        para.append(s)
    doc = " ".join(para)
    if lang == "c":  # kernel-doc: "name - description" / "name() - description"
        m = re.match(r"^[\w.>-]+(?:\(\))?\s*[-:]\s+(.*)$", doc)
        if m:
            doc = m.group(1)
        elif re.match(r"^(struct|enum|union|DOC:|typedef)\b", doc):
            return None
    # Markup.
    doc = re.sub(r"\{@(?:link|linkplain)\s+\S+\s+([^}]+)\}", r"\1", doc)
    doc = re.sub(r"\{@(?:link|linkplain)\s+(?:[\w.]*#)?([^}\s]+)\s*\}",
                 lambda m: m.group(1).split("(")[0].split(".")[-1], doc)
    doc = re.sub(r"\{@(?:code|literal)\s+([^}]*)\}", r"\1", doc)
    doc = re.sub(r"\{@inheritDoc\}", "", doc)
    doc = re.sub(r"<[^>]{1,20}>", "", doc)
    doc = re.sub(r":(?:meth|func|class|attr|data|obj|exc|mod):`~?([^`]*)`", r"\1", doc)
    doc = re.sub(r"\[`?([^\]`]+)`?\](?:\([^)]*\))?", r"\1", doc)
    doc = doc.replace("`", "").replace("**", "")
    doc = re.sub(r"\s+", " ", doc).strip()
    # First sentence.
    m = re.search(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)\.(\s|$)", doc)
    if m:
        doc = doc[:m.start()]
    doc = doc.strip().rstrip(":;,")
    words = doc.split()
    if lang == "go" and words and words[0] in (name, "*" + name):
        words = words[1:]  # Go convention: "Name does ..."
    if words and words[0].lower() in ("deprecated", "todo", "fixme", "xxx", "note", "see",
                                      "internal", "implements", "same", "like", "alias"):
        return None
    if len(words) < MIN_WORDS or len(words) > MAX_WORDS:
        return None
    doc = " ".join(words)
    lowered = re.findall(r"[A-Za-z0-9_]+", doc.lower())
    if name.lower() in lowered:
        return None  # the question would name its answer
    content = [w for w in re.findall(r"[a-z0-9]+", doc.lower()) if w not in STOP]
    nw = set(split_words(name))
    if not content or all(w in nw or w.rstrip("s") in nw for w in content):
        return None  # merely restates the name
    return doc


# ---------------------------------------------------------------------------------------------
# Regex extractors. Each yields (symbol, qualified, line, doc_text, blank_start, blank_end) with
# byte offsets into the file.


def line_offsets(data):
    offs = [0]
    for m in re.finditer(rb"\n", data):
        offs.append(m.end())
    return offs


def decode(b):
    return b.decode("utf-8", "replace")


def extract_python(data):
    lines = data.split(b"\n")
    offs = line_offsets(data)
    stack = []  # (indent, kind, name)
    for i, raw in enumerate(lines):
        m = re.match(rb"^([ \t]*)(?:async[ \t]+)?(def|class)[ \t]+(\w+)", raw)
        if not m:
            continue
        indent = len(m.group(1).expandtabs())
        kind, name = decode(m.group(2)), decode(m.group(3))
        while stack and stack[-1][0] >= indent:
            stack.pop()
        enclosing = list(stack)
        stack.append((indent, kind, name))
        if kind != "def" or any(k == "def" for _, k, _ in enclosing) or name.startswith("__"):
            continue
        # End of the header: the ':' at bracket depth 0.
        pos, depth, end = offs[i] + m.end(), 0, None
        while pos < len(data):
            c = data[pos:pos + 1]
            if c in b"([{":
                depth += 1
            elif c in b")]}":
                depth -= 1
            elif c == b":" and depth == 0:
                end = pos + 1
                break
            elif c == b"#":
                nl = data.find(b"\n", pos)
                pos = len(data) if nl < 0 else nl
                continue
            pos += 1
        if end is None:
            continue
        dm = re.compile(rb"[ \t]*(?:#[^\n]*)?\n(?:[ \t]*\n)*[ \t]*[rRuU]?(\"\"\"|''')").match(data, end)
        if not dm:
            continue
        q = dm.group(1)
        close = data.find(q, dm.end())
        if close < 0:
            continue
        qual = ".".join([n for _, _, n in enclosing] + [name])
        yield name, qual, i + 1, decode(data[dm.end():close]), dm.end(), close


def preceding_comment(lines, offs, i, prefix_re, skip_re=None):
    """The contiguous block of line comments just above line i (attribute lines skipped)."""
    j = i - 1
    while skip_re is not None and j >= 0 and re.match(skip_re, lines[j]):
        j -= 1
    end = j
    while j >= 0 and re.match(prefix_re, lines[j]):
        j -= 1
    start = j + 1
    if start > end:
        return None
    text = b"\n".join(lines[start:end + 1])
    return start, end, decode(text), offs[start], offs[end] + len(lines[end])


def preceding_block(data, lines, offs, i, skip_re=None):
    """The /** ... */ block that ends just above line i (annotation/decorator lines skipped)."""
    j = i - 1
    while j >= 0 and (not lines[j].strip() or
                      (skip_re is not None and re.match(skip_re, lines[j]))):
        if not lines[j].strip():
            return None  # a blank line detaches the comment
        j -= 1
    if j < 0 or not lines[j].rstrip().endswith(b"*/"):
        return None
    end_byte = offs[j] + len(lines[j].rstrip())
    start_byte = data.rfind(b"/**", 0, end_byte)
    if start_byte < 0 or data.find(b"*/", start_byte, end_byte - 2) >= 0:
        return None
    return decode(data[start_byte:end_byte]), start_byte, end_byte


def extract_go(data):
    lines = data.split(b"\n")
    offs = line_offsets(data)
    for i, raw in enumerate(lines):
        m = re.match(rb"^func[ \t]+(?:\(\s*(?:\w+\s+)?\*?\s*(\w+)(?:\[[^\]]*\])?\s*\)\s*)?(\w+)\s*[\[(]",
                     raw)
        if not m:
            continue
        recv, name = m.group(1), decode(m.group(2))
        blk = preceding_comment(lines, offs, i, rb"^//")
        if not blk:
            continue
        _, _, text, bs, be = blk
        text = "\n".join(ln for ln in text.split("\n") if not re.match(r"^//(go:|line )", ln))
        qual = (decode(recv) + "." + name) if recv else name
        yield name, qual, i + 1, text, bs, be


def extract_rust(data):
    lines = data.split(b"\n")
    offs = line_offsets(data)
    in_tests = False
    for i, raw in enumerate(lines):
        if re.match(rb"^(\s*)mod\s+tests?\b", raw) or (
                re.match(rb"^\s*#\[cfg\(test\)\]", raw) and i + 1 < len(lines)
                and re.match(rb"^\s*mod\b", lines[i + 1])):
            in_tests = True
        if in_tests:
            continue
        m = re.match(rb"^([ \t]*)(?:pub(?:\([^)]*\))?\s+)?(?:default\s+)?(?:const\s+)?(?:async\s+)?"
                     rb"(?:unsafe\s+)?(?:extern\s+\"[^\"]*\"\s+)?fn\s+(\w+)", raw)
        if not m:
            continue
        indent, name = len(m.group(1).expandtabs()), decode(m.group(2))
        blk = preceding_comment(lines, offs, i, rb"^\s*///", skip_re=rb"^\s*#\[")
        if not blk:
            continue
        _, _, text, bs, be = blk
        owner = None
        if indent > 0:
            for j in range(i - 1, -1, -1):
                lj = lines[j]
                im = re.match(rb"^([ \t]*)(?:pub(?:\([^)]*\))?\s+)?(?:unsafe\s+)?(impl|trait)\b(.*)", lj)
                if im and len(im.group(1).expandtabs()) < indent:
                    rest = decode(im.group(3))
                    if im.group(2) == b"trait":
                        tm = re.match(r"\s*(\w+)", rest)
                        owner = tm.group(1) if tm else None
                    else:
                        rest = re.sub(r"^\s*<", "<", rest)
                        if rest.startswith("<"):  # drop the impl's generic parameters
                            depth, k = 0, 0
                            for k, ch in enumerate(rest):
                                depth += ch == "<"
                                depth -= ch == ">"
                                if depth == 0:
                                    break
                            rest = rest[k + 1:]
                        if " for " in rest:
                            rest = rest.split(" for ", 1)[1]
                        tm = re.match(r"\s*&?(?:'\w+\s+)?(?:mut\s+)?([\w:]+)", rest)
                        owner = tm.group(1).split("::")[-1] if tm else None
                    break
                if re.match(rb"^(\S)", lj) and not lj.startswith((b"//", b"#", b"}")):
                    if not re.match(rb"^(pub|impl|trait|unsafe)", lj):
                        break
        qual = (owner + "::" + name) if owner else name
        yield name, qual, i + 1, text, bs, be


JAVA_KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "new", "else", "throw",
                 "synchronized", "try", "do", "super", "this", "assert", "case"}


def extract_java(data):
    lines = data.split(b"\n")
    offs = line_offsets(data)
    for i, raw in enumerate(lines):
        m = re.match(rb"^([ \t]+)(?:(?:public|protected|private|static|final|abstract|synchronized|"
                     rb"native|default|strictfp)\s+)*(?:<[^()]*?>\s+)?[\w.$]+(?:<[^()]*?>)?"
                     rb"(?:\[\])*\s+(\w+)\s*\(", raw)
        if not m:
            continue
        name = decode(m.group(2))
        if name in JAVA_KEYWORDS or re.match(rb"^\s*(return|new|throw|else)\b", raw):
            continue
        blk = preceding_block(data, lines, offs, i, skip_re=rb"^\s*@")
        if not blk:
            continue
        text, bs, be = blk
        indent = len(m.group(1).expandtabs())
        owner = None
        for j in range(i - 1, -1, -1):
            cm = re.match(rb"^([ \t]*)(?:[\w@]+\s+)*(?:class|interface|enum|record)\s+(\w+)",
                          lines[j])
            if cm and len(cm.group(1).expandtabs()) < indent and not lines[j].lstrip().startswith(
                    (b"*", b"//", b"/*")):
                owner = decode(cm.group(2))
                break
        qual = (owner + "." + name) if owner else name
        yield name, qual, i + 1, text, bs, be


TS_KEYWORDS = JAVA_KEYWORDS | {"function", "constructor", "get", "set", "static", "async"}


def extract_ts(data):
    lines = data.split(b"\n")
    offs = line_offsets(data)
    for i, raw in enumerate(lines):
        m = re.match(rb"^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\*?\s*"
                     rb"(\w+)", raw)
        owner = None
        if not m:
            m = re.match(rb"^([ \t]+)(?:(?:public|private|protected|static|async|readonly|override|"
                         rb"abstract)\s+)*(\w+)\s*(?:<[^()]*>)?\s*\(.*\)\s*(?::[^{;]*)?\{\s*$", raw)
            if not m or decode(m.group(2)) in TS_KEYWORDS:
                continue
            name = decode(m.group(2))
            indent = len(m.group(1).expandtabs())
            for j in range(i - 1, -1, -1):
                cm = re.match(rb"^([ \t]*)(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+(\w+)",
                              lines[j])
                if cm and len(cm.group(1).expandtabs()) < indent:
                    owner = decode(cm.group(2))
                    break
            if owner is None:
                continue
        else:
            name = decode(m.group(1))
        blk = preceding_block(data, lines, offs, i, skip_re=rb"^\s*@")
        if not blk:
            continue
        text, bs, be = blk
        qual = (owner + "." + name) if owner else name
        yield name, qual, i + 1, text, bs, be


def extract_c(data):
    for m in re.finditer(rb"/\*\*(?:(?!\*/).)*?\*/", data, re.S):
        end = m.end()
        # The declaration that follows: up to the first '{' or ';'.
        rest = data[end:end + 600]
        dm = re.match(rb"\s*\n((?:[^;{}#/]|/(?![/*]))*?)\b(\w+)\s*\(([^;{}]*?)\)\s*"
                      rb"(?:__\w+(?:\([^)]*\))?\s*)*\{", rest)
        if not dm:
            continue
        head = dm.group(1)
        name = decode(dm.group(2))
        if not head.strip() or re.search(rb"[=]|\b(struct|enum|union)\s+\w+\s*$", head) or \
                name in ("if", "while", "for", "switch", "return", "sizeof"):
            continue
        if name.isupper():
            continue  # a macro invocation such as SYSCALL_DEFINE
        name_pos = end + dm.start(2)
        line = data.count(b"\n", 0, name_pos) + 1
        yield name, name, line, decode(m.group(0)), m.start(), m.end()


EXTRACTORS = {"python": extract_python, "go": extract_go, "rust": extract_rust,
              "java": extract_java, "ts": extract_ts, "c": extract_c}


# ---------------------------------------------------------------------------------------------
# loupe extractor


def loupe_extract(binary, path, data, lang):
    p = subprocess.run([binary, "parse", path, "--json"], capture_output=True, text=True)
    if p.returncode != 0:
        return
    try:
        doc = json.loads(p.stdout)
    except json.JSONDecodeError:
        return
    for s in doc.get("symbols", []):
        if s.get("kind") not in ("function", "method") or not s.get("doc"):
            continue
        d = s["doc"]
        bs, be = d["start_byte"], d["end_byte"]
        if lang == "python":  # blank inside the quotes so the body stays a statement
            seg = data[bs:be]
            qm = re.match(rb"[rRuUbB]*(\"\"\"|'''|\"|')", seg)
            if qm and seg.endswith(qm.group(1)) and len(seg) >= 2 * len(qm.group(1)):
                bs, be = bs + qm.end(), be - len(qm.group(1))
        yield (s["name"], s.get("qname") or s["name"], s["span"]["start_line"],
               decode(data[bs:be]), bs, be)


def loupe_has_parse(binary):
    if not binary or not os.access(binary, os.X_OK):
        return False
    p = subprocess.run([binary, "parse", "--help"], capture_output=True, text=True)
    return p.returncode == 0


# ---------------------------------------------------------------------------------------------


def candidates(corpus, extractor, binary):
    root = os.path.join(CORPORA, corpus)
    if not os.path.isdir(root):
        die("corpus %s is missing at %s; run bench/quality/corpora.sh %s" % (corpus, root, corpus))
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for fn in sorted(filenames):
            ext = os.path.splitext(fn)[1]
            lang = LANG_BY_EXT.get(ext)
            if not lang or fn.endswith(".d.ts"):
                continue
            path = os.path.join(dirpath, fn)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            if is_test_path(rel) or os.path.getsize(path) > MAX_FILE_BYTES:
                continue
            with open(path, "rb") as fh:
                data = fh.read()
            if b"\0" in data[:8192]:
                continue
            gen = (loupe_extract(binary, path, data, lang) if extractor == "loupe"
                   else EXTRACTORS[lang](data))
            for name, qual, line, text, bs, be in gen:
                q = clean_doc(text, lang, name)
                if q:
                    out.append({"file": rel, "symbol": name, "qualified": qual, "line": line,
                                "query": q, "blank": [bs, be]})
    # A first sentence shared by several functions has no single owner: drop all of them.
    counts = {}
    for c in out:
        k = c["query"].lower()
        counts[k] = counts.get(k, 0) + 1
    return [c for c in out if counts[c["query"].lower()] == 1]


def main():
    ap = argparse.ArgumentParser(description="Generate doc-comment tasks for bench/quality.")
    ap.add_argument("--corpus", action="append", default=[], help="corpus (repeatable)")
    ap.add_argument("--total", type=int, default=600, help="tasks over all corpora (default 600)")
    ap.add_argument("--seed", default="loupe-quality-1", help="sampling seed")
    ap.add_argument("--extractor", choices=("regex", "loupe", "auto"), default="regex",
                    help="regex (default), loupe (`loupe parse --json`), or auto (loupe when "
                         "the binary has the command)")
    ap.add_argument("--loupe", default=os.path.join(TOP, "build", "loupe"), help="loupe binary")
    ap.add_argument("--out", default=OUT, help="output folder (default bench/quality/generated)")
    args = ap.parse_args()

    listed = subprocess.run([os.path.join(HERE, "corpora.sh"), "--list"], capture_output=True,
                            text=True, check=True).stdout.split()
    names = [line.split("|")[0] for line in listed]
    corpora = [n for n in names if not args.corpus or n in args.corpus]
    for c in args.corpus:
        if c not in names:
            die("unknown corpus %r (known: %s)" % (c, ", ".join(names)))
    extractor = args.extractor
    if extractor == "auto":
        extractor = "loupe" if loupe_has_parse(args.loupe) else "regex"
    elif extractor == "loupe" and not loupe_has_parse(args.loupe):
        die("%s has no 'parse' command; build a loupe that has it or use --extractor regex"
            % args.loupe)

    pools = {c: candidates(c, extractor, os.path.abspath(args.loupe)) for c in corpora}
    # Stratified quotas: an equal share each; what a small corpus cannot fill goes to the others.
    quota = {c: 0 for c in corpora}
    left = args.total
    open_ = [c for c in corpora if pools[c]]
    while left > 0 and open_:
        share = max(1, left // len(open_))
        for c in list(open_):
            take = min(share, len(pools[c]) - quota[c], left)
            quota[c] += take
            left -= take
            if quota[c] >= len(pools[c]):
                open_.remove(c)
            if left <= 0:
                break
    os.makedirs(args.out, exist_ok=True)
    total = 0
    for c in corpora:
        pool = sorted(pools[c], key=lambda x: (x["file"], x["line"]))
        rng = random.Random("%s/%s" % (args.seed, c))
        picked = sorted(rng.sample(pool, quota[c]), key=lambda x: (x["file"], x["line"]))
        with open(os.path.join(args.out, c + ".jsonl"), "w", encoding="utf-8") as fh:
            for n, t in enumerate(picked, 1):
                task = {"id": "%s/gen-%04d" % (c, n), "corpus": c, "query": t["query"],
                        "gold": [{"file": t["file"], "symbol": t["symbol"],
                                  "qualified": t["qualified"], "line": t["line"]}],
                        "blank": [{"file": t["file"], "start": t["blank"][0],
                                   "end": t["blank"][1]}],
                        "notes": "first sentence of the doc comment (%s extractor, seed %s)"
                                 % (extractor, args.seed)}
                fh.write(json.dumps(task, ensure_ascii=False) + "\n")
        total += len(picked)
        print("%-12s %5d candidates, %4d sampled" % (c, len(pool), len(picked)))
    print("total %d tasks (%s extractor) in %s" % (total, extractor, args.out))


if __name__ == "__main__":
    main()
