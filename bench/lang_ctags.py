#!/usr/bin/env python3
"""bench/lang_ctags.py: loupe's symbols against universal-ctags on real code, and throughput.

For each language, on real code from the package registries reachable here (Debian binary
and source packages, npm), run `ctags --output-format=json --fields=+nKzSE` and `loupe parse
--json` on the same files and compute the share of ctags' definition tags (functions,
methods, classes, types: the kinds mapped per language in KINDS below) that loupe finds:
a loupe symbol of the same name, of a compatible kind family (callable or type), whose name
is written on the ctags tag's line (the line of the first occurrence of the name inside the
symbol's span; for names that are not plain words, such as `operator ==`, any line of its
signature). Throughput: `loupe parse --stats` (full, and `--parse-only` for tree-sitter's
parse alone) and ctags writing the same JSON, timed on the same files in the same run as
CPU time (median of --runs).

    bench/lang_ctags.py [--loupe build/loupe] [--mb 8] [--runs 3] [--langs go,c,...]
                        [--out bench/results/lang-ctags-DATE.md] [--examples N]

Corpora are fetched on first use into $LOUPE_BENCH_CORPUS (default /tmp/loupe-corpus):
    go          Debian golang-1.19-src (standard library; testdata/ and vendor/ excluded)
    python      Debian python3-django
    rust        Debian librust-*-dev crate sources (/usr/share/cargo/registry)
    java        Debian openjdk-17-source (java.base: util, lang, io, net)
    c           Debian linux-source-6.1 (kernel/, mm/, fs/ext4/, lib/: .c and .h)
    cpp         Debian source packages leveldb, re2, ninja-build, fmtlib, cppcheck
    cpp-stdlib  libstdc++ headers (/usr/include/c++/12), forced to C++ on both sides
    javascript  npm lodash, rxjs (dist/cjs), @tanstack/* (.js)
    typescript  npm rxjs src, @tanstack/query-core src (.ts, not .d.ts)
    c-sharp     Debian source packages keepass2 and nunit (.cs)
    scala       Debian source package scala (2.11: library, reflect, compiler)
Debian source packages are fetched with `apt-get source --download-only` through a private
apt configuration (deb-src of the machine's own Debian suite) under the corpus directory:
the machine's apt sources are not changed. universal-ctags 5.9 has no Scala parser: the
Scala reference is ctags with a regex language definition (SCALA_REGEX below), a plain
line-based tagger, so its disagreements are documented rather than taken as truth.
Never part of `make test`.
"""
import argparse
import collections
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
CORPUS = os.environ.get("LOUPE_BENCH_CORPUS", "/tmp/loupe-corpus")

# ---------------------------------------------------------------------------------------
# Corpora: lang -> (loupe --lang, ctags --language-force, [(root, suffixes, cap MB)])

DEB_SRC = {  # source package -> directory it unpacks to under $CORPUS/deb-src
    "leveldb": "leveldb", "re2": "re2", "ninja-build": "ninja-build", "fmtlib": "fmtlib",
    "cppcheck": "cppcheck", "keepass2": "keepass2", "nunit": "nunit", "scala": "scala",
}


def corpora(cap):
    npm = f"{CORPUS}/npm/node_modules"
    ds = f"{CORPUS}/deb-src"
    half = max(1, cap // 2)
    return {
        "go": ("go", "Go", [("/usr/share/go-1.19/src", (".go",), cap)]),
        "python": ("python", "Python", [("/usr/lib/python3/dist-packages/django", (".py",), cap)]),
        "rust": ("rust", "Rust", [("/usr/share/cargo/registry", (".rs",), cap)]),
        "java": ("java", "Java", [(f"{CORPUS}/jdk", (".java",), cap)]),
        "c": ("c", "C", [(f"{CORPUS}/linux/linux-source-6.1/kernel", (".c", ".h"), half),
                         (f"{CORPUS}/linux/linux-source-6.1/mm", (".c", ".h"), half // 2),
                         (f"{CORPUS}/linux/linux-source-6.1/fs/ext4", (".c", ".h"), half // 2)]),
        "cpp": ("cpp", "C++", [(f"{ds}/{d}", (".cc", ".cpp", ".h", ".hpp"), cap)
                               for d in ("leveldb", "re2", "ninja-build", "fmtlib", "cppcheck")]),
        "cpp-stdlib": ("cpp", "C++", [("/usr/include/c++/12", None, cap)]),
        "javascript": ("javascript", "JavaScript",
                       [(f"{npm}/lodash", (".js",), half), (f"{npm}/rxjs/dist/cjs", (".js",), half),
                        (f"{npm}/@tanstack", (".js",), half)]),
        "typescript": ("typescript", "TypeScript",
                       [(f"{npm}/rxjs/src", (".ts",), cap),
                        (f"{npm}/@tanstack/query-core/src", (".ts",), cap)]),
        "c-sharp": ("c-sharp", "C#", [(f"{ds}/keepass2", (".cs",), cap),
                                      (f"{ds}/nunit", (".cs",), cap)]),
        "scala": ("scala", "Scala", [(f"{ds}/scala/src/library", (".scala",), half),
                                     (f"{ds}/scala/src/reflect", (".scala",), half // 2),
                                     (f"{ds}/scala/src/compiler", (".scala",), half // 2)]),
    }


# ctags kinds considered per language (ctags kind name -> family), and the loupe kinds of
# each family. Kinds left out are listed in the results' notes.
KINDS = {
    "go": {"func": "callable", "struct": "type", "interface": "type", "type": "type",
           "talias": "type"},
    "python": {"class": "type", "function": "callable", "member": "callable"},
    "rust": {"function": "callable", "method": "callable", "struct": "type", "enum": "type",
             "interface": "type", "typedef": "type"},
    "java": {"class": "type", "interface": "type", "enum": "type", "annotation": "type",
             "method": "callable"},
    "c": {"function": "callable", "struct": "type", "union": "type", "enum": "type",
          "typedef": "type"},
    "cpp": {"function": "callable", "class": "type", "struct": "type", "union": "type",
            "enum": "type", "typedef": "type"},
    "javascript": {"function": "callable", "class": "type", "method": "callable",
                   "generator": "callable", "getter": "callable", "setter": "callable"},
    "typescript": {"function": "callable", "class": "type", "method": "callable",
                   "generator": "callable", "interface": "type", "enum": "type",
                   "alias": "type"},
    "c-sharp": {"class": "type", "struct": "type", "interface": "type", "enum": "type",
                "method": "callable"},
    "scala": {"class": "type", "trait": "type", "object": "type", "type": "type",
              "method": "callable"},
}
KINDS["cpp-stdlib"] = KINDS["cpp"]
PROTOTYPE_KINDS = {"c": {"prototype": "callable"}, "cpp": {"prototype": "callable"},
                   "cpp-stdlib": {"prototype": "callable"}}

LOUPE_FAMILY = {
    "function": "callable", "method": "callable", "constructor": "callable",
    "class": "type", "struct": "type", "interface": "type", "trait": "type", "enum": "type",
    "record": "type", "union": "type", "object": "type", "type_alias": "type",
}

# A line-based Scala tagger for ctags (u-ctags 5.9 has no Scala parser). Modifiers and
# annotations on the same line are allowed before the keyword.
_MODS = r"^[ \t]*((@[A-Za-z_.]+(\([^)]*\))?|private(\[[^]]*\])?|protected(\[[^]]*\])?|" \
        r"override|final|sealed|abstract|implicit|lazy|case|inline)[ \t]+)*"
_ID = r"([A-Za-z_][A-Za-z0-9_$]*|`[^`]+`|[-+*%<>=!&|^~:?#@]+)"
SCALA_REGEX = [
    "--langdef=Scala",
    "--map-Scala=+.scala",
    f"--regex-Scala=/{_MODS}class[ \\t]+{_ID}/\\6/c,class/",
    f"--regex-Scala=/{_MODS}trait[ \\t]+{_ID}/\\6/t,trait/",
    f"--regex-Scala=/{_MODS}object[ \\t]+{_ID}/\\6/o,object/",
    f"--regex-Scala=/{_MODS}type[ \\t]+{_ID}/\\6/T,type/",
    f"--regex-Scala=/{_MODS}def[ \\t]+{_ID}/\\6/m,method/",
]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------
# Fetching

def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def need_apt(pkg):
    if subprocess.run(["dpkg", "-s", pkg], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode:
        log(f"apt-get install {pkg}")
        run(["apt-get", "install", "-y", "-q", pkg], stdout=subprocess.DEVNULL)


def apt_src_opts():
    """A private apt configuration with the machine's Debian suite as deb-src."""
    base = f"{CORPUS}/apt"
    for d in ("parts", "lists/partial", "cache/archives/partial"):
        os.makedirs(f"{base}/{d}", exist_ok=True)
    suite = "bookworm"
    try:
        for line in open("/etc/os-release"):
            if line.startswith("VERSION_CODENAME="):
                suite = line.split("=", 1)[1].strip().strip('"') or suite
    except OSError:
        pass
    src = f"{base}/parts/deb-src.sources"
    if not os.path.exists(src):
        with open(src, "w") as f:
            f.write("Types: deb-src\nURIs: http://deb.debian.org/debian\n"
                    f"Suites: {suite}\nComponents: main\n"
                    "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg\n")
    opts = ["-o", "Dir::Etc::SourceList=/dev/null", "-o", f"Dir::Etc::SourceParts={base}/parts",
            "-o", f"Dir::State::Lists={base}/lists", "-o", f"Dir::Cache={base}/cache"]
    if not any(n.endswith("_Sources") for n in os.listdir(f"{base}/lists")):
        log("apt-get update (private deb-src lists)")
        run(["apt-get"] + opts + ["update"], stdout=subprocess.DEVNULL)
    return opts, base


def fetch_deb_src(pkg, dest):
    if os.path.isdir(dest):
        return
    opts, base = apt_src_opts()
    dl = f"{base}/src"
    os.makedirs(dl, exist_ok=True)
    log(f"apt-get source --download-only {pkg}")
    # a missing .debian.tar is tolerated: only the upstream tarball is unpacked
    subprocess.run(["apt-get"] + opts + ["source", "--download-only", pkg], cwd=dl,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    name = pkg if pkg != "ninja-build" else "ninja-build"
    origs = [f for f in os.listdir(dl) if f.startswith(name + "_") and ".orig.tar" in f]
    if not origs:
        raise SystemExit(f"lang_ctags.py: Debian source package {pkg} could not be fetched; "
                         "check the network to the Debian archive and rerun")
    tmp = tempfile.mkdtemp(dir=os.path.dirname(dest))
    run(["tar", "-xf", f"{dl}/{sorted(origs)[-1]}", "-C", tmp])
    entries = os.listdir(tmp)
    if len(entries) == 1 and os.path.isdir(f"{tmp}/{entries[0]}"):
        os.rename(f"{tmp}/{entries[0]}", dest)
        os.rmdir(tmp)
    else:  # a tarball without a top directory (keepass2)
        os.rename(tmp, dest)


def setup(langs):
    need_apt("universal-ctags")
    if "go" in langs:
        need_apt("golang-1.19-src")
    if "python" in langs:
        need_apt("python3-django")
    if "rust" in langs:
        for p in ("librust-tokio-dev", "librust-regex-dev", "librust-serde-dev"):
            need_apt(p)
    if "java" in langs and not os.path.isdir(f"{CORPUS}/jdk"):
        need_apt("openjdk-17-source")
        os.makedirs(f"{CORPUS}/jdk", exist_ok=True)
        run(["unzip", "-q", "-o", "/usr/lib/jvm/openjdk-17/lib/src.zip",
             "java.base/java/util/*", "java.base/java/lang/*", "java.base/java/io/*",
             "java.base/java/net/*"], cwd=f"{CORPUS}/jdk")
    if "c" in langs:
        want = ["kernel", "mm", "fs/ext4"]
        if not all(os.path.isdir(f"{CORPUS}/linux/linux-source-6.1/{w}") for w in want):
            need_apt("linux-source-6.1")
            os.makedirs(f"{CORPUS}/linux", exist_ok=True)
            run(["tar", "-C", f"{CORPUS}/linux", "-xJf", "/usr/src/linux-source-6.1.tar.xz",
                 "--wildcards"] + [f"linux-source-6.1/{w}/*" for w in want])
    if "cpp-stdlib" in langs:
        need_apt("libstdc++-12-dev")
    if {"javascript", "typescript"} & set(langs):
        npm = f"{CORPUS}/npm"
        if not os.path.isdir(f"{npm}/node_modules/@tanstack/query-core"):
            os.makedirs(npm, exist_ok=True)
            if not os.path.exists(f"{npm}/package.json"):
                with open(f"{npm}/package.json", "w") as f:
                    f.write('{"name":"corpus","private":true}\n')
            run(["npm", "install", "--ignore-scripts", "--no-audit", "--no-fund",
                 "--loglevel=error", "rxjs", "lodash", "@tanstack/react-query"], cwd=npm,
                stdout=subprocess.DEVNULL)
    need_src = set()
    if "cpp" in langs:
        need_src |= {"leveldb", "re2", "ninja-build", "fmtlib", "cppcheck"}
    if "c-sharp" in langs:
        need_src |= {"keepass2", "nunit"}
    if "scala" in langs:
        need_src |= {"scala"}
    if need_src:
        os.makedirs(f"{CORPUS}/deb-src", exist_ok=True)
        for pkg in sorted(need_src):
            fetch_deb_src(pkg, f"{CORPUS}/deb-src/{DEB_SRC[pkg]}")


def list_files(roots):
    out = []
    for root, suffixes, cap_mb in roots:
        cap = cap_mb << 20
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if x not in ("testdata", "vendor", "node_modules")]
            for n in names:
                if suffixes is None or (n.endswith(suffixes) and not n.endswith(".d.ts")):
                    files.append(os.path.join(d, n))
        files.sort()
        total = 0
        for p in files:
            try:
                n = os.path.getsize(p)
            except OSError:
                continue
            if n == 0 or n > (8 << 20) or total + n > cap:
                continue
            total += n
            out.append(p)
    return out


# ---------------------------------------------------------------------------------------
# Running the tools

def ctags_cmd(force, extra=()):
    cmd = ["ctags", "--output-format=json", "--fields=+nKzSE", "--sort=no"]
    if force == "Scala":
        cmd += SCALA_REGEX + ["--languages=Scala"]
    else:
        cmd += [f"--language-force={force}"]
    return cmd + list(extra)


def run_ctags(force, listfile, lang):
    extra = []
    if lang in PROTOTYPE_KINDS:
        extra.append("--kinds-C=+p" if force == "C" else "--kinds-C++=+p")
    cmd = ctags_cmd(force, extra) + ["-f", "-", "-L", listfile]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True)
    tags = collections.defaultdict(list)
    for line in res.stdout.decode("utf-8", "replace").splitlines():
        try:
            t = json.loads(line)
        except ValueError:
            continue
        if t.get("_type") != "tag":
            continue
        tags[t["path"]].append(t)
    return tags


def run_loupe(loupe, llang, files):
    syms = {}
    partial = set()
    for i in range(0, len(files), 400):
        batch = files[i:i + 400]
        res = subprocess.run([loupe, "parse", "--json", "--lang", llang] + batch,
                             stdout=subprocess.PIPE, check=True)
        data = json.loads(res.stdout)
        if isinstance(data, dict):
            data = [data]
        for r in data:
            syms[r["path"]] = r["symbols"]
            if r.get("partial"):
                partial.add(r["path"])
    return syms, partial


def timed(cmd, runs):
    """Median CPU time (user + system) of the command over `runs` runs: on a shared
    machine CPU time is steadier than wall time (it does not count waiting for a core)."""
    import resource
    ts = []
    for _ in range(runs):
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        ts.append((r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime))
    return statistics.median(ts)


def loupe_stats(loupe, llang, listfile, runs, parse_only):
    cmd = [loupe, "parse", "--stats", "--lang", llang, "--files-from", listfile]
    if parse_only:
        cmd.insert(3, "--parse-only")
    return timed(cmd, runs)


# ---------------------------------------------------------------------------------------
# Matching

_SCALA_OPS = re.compile(r"[=!<>+\-*/%&|^~:?#@\\]+$")


def norm_name(n, lang=None):
    """Names compared without spaces (`operator ==`), without trailing template arguments
    (loupe names an explicit specialization `toString<double>`, ctags `toString`), without
    JavaScript's private `#` (ctags drops it), and for Scala without trailing operator
    characters (the regex tagger stops at them: `name_=` is tagged `name_`)."""
    n = n.replace(" ", "")
    if not n.startswith("operator") and n.endswith(">") and "<" in n:
        n = n[:n.index("<")]
    if n.startswith("#"):
        n = n[1:]
    if lang == "scala":
        n = re.split(r"[\\/]", n)[0] or n  # the tagger stops at '\\' and '/': `:\\` is `:`
        if not _SCALA_OPS.fullmatch(n):
            n = _SCALA_OPS.sub("", n)
    if lang == "c-sharp" and "." in n:
        n = n.rsplit(".", 1)[1]  # explicit interface implementation: IEnumerable.GetEnumerator
    return n


# ctags names a function defined through a macro after the macro (TEST_F, SYSCALL_DEFINE3,
# BPF_CALL_2); loupe names it after the test or the first argument
MACRO_NAME = re.compile(r"^[A-Z][A-Z0-9_]*$")


_word = re.compile(r"[A-Za-z0-9_$]")


def name_line(text, line_starts, sym):
    """Line of the first whole-word occurrence of the symbol's name inside its span, or
    None when the name is not a plain identifier found there."""
    name = sym["name"]
    if not name or not _word.match(name[-1]):
        return None
    a, b = sym["span"]["start_byte"], sym["span"]["end_byte"]
    pat = re.escape(name.encode("utf-8", "replace"))
    if _word.match(name[0]):
        pat = rb"(?<![A-Za-z0-9_$])" + pat
    pat += rb"(?![A-Za-z0-9_$])"
    m = re.compile(pat).search(text, a, b)
    if not m:
        return None
    import bisect
    return bisect.bisect_right(line_starts, m.start())


def compare_file(path, tags, syms, kinds, lang=None):
    """Returns (considered, matched, misses) for one file; misses carry a reason guess."""
    try:
        text = open(path, "rb").read()
    except OSError:
        return 0, 0, []
    line_starts = [0] + [m.end() for m in re.finditer(rb"\n", text)]
    by_name = collections.defaultdict(list)
    by_line = collections.defaultdict(list)
    for s in syms:
        by_name[norm_name(s["name"], lang)].append(s)
        by_line[s["span"]["start_line"]].append(s)
    considered = matched = 0
    misses = []
    nl_cache = {}
    for t in tags:
        fam = kinds.get(t.get("kind"))
        if fam is None:
            continue
        extras = t.get("extras", "")
        if "anonymous" in extras or t["name"].startswith("__anon"):
            continue
        considered += 1
        line = t["line"]
        cands = by_name.get(norm_name(t["name"], lang), [])
        ok = False
        near = None
        for s in cands:
            key = id(s)
            if key not in nl_cache:
                nl_cache[key] = name_line(text, line_starts, s)
            nl = nl_cache[key]
            on_line = (nl == line) if nl is not None else \
                (s["span"]["start_line"] <= line <= s["sig"]["end_line"])
            on_line = on_line or s["span"]["start_line"] == line
            if on_line and LOUPE_FAMILY.get(s["kind"]) == fam:
                ok = True
                break
            if on_line:
                near = ("kind", s["kind"])
            elif near is None and s["span"]["start_line"] <= line <= s["span"]["end_line"]:
                near = ("line", s["span"]["start_line"])
        rec = {"path": path, "line": line, "name": t["name"], "kind": t["kind"],
               "scope": t.get("scope", ""), "near": near,
               "pattern": t.get("pattern", "")[2:-2][:110]}
        if not ok and not near and MACRO_NAME.match(t["name"]):
            for s in by_line.get(line, []):
                if LOUPE_FAMILY.get(s["kind"]) == "callable":
                    near = ("macro name", s["name"])
                    rec["near"] = near
                    break
        if ok:
            matched += 1
        elif near and near[0] in ("kind", "macro name"):
            matched += 1  # found at that line under another kind: reported apart
            rec["kind_differs"] = True
            misses.append(rec)
        else:
            misses.append(rec)
    return considered, matched, misses


# ---------------------------------------------------------------------------------------
# Why a ctags tag was not found. Rules that recognise a tag ctags should not have made (or
# makes by a convention loupe does not share) are "ctags" categories; whatever they do not
# explain stays on loupe's side. Each rule is a plain pattern over the tag's source line.

def _comment_lines(text):
    """1-based lines that start inside a /* */ block comment or a triple-quoted string, or
    begin with //."""
    lines = set()
    i, n, line = 0, len(text), 1
    in_block = in_str = False
    line_start = True
    while i < n:
        c = text[i:i + 1]
        if c == b"\n":
            line += 1
            line_start = True
            if in_block or in_str:
                lines.add(line)
            i += 1
            continue
        if not in_block and text.startswith(b'"""', i):
            in_str = not in_str
            i += 3
            continue
        if in_str:
            i += 1
            continue
        if not in_block and text.startswith(b"/*", i):
            in_block = True
            i += 2
            continue
        if in_block and text.startswith(b"*/", i):
            in_block = False
            i += 2
            continue
        if not in_block and line_start and c not in (b" ", b"\t") and text.startswith(b"//", i):
            lines.add(line)
        if c not in (b" ", b"\t"):
            line_start = False
        i += 1
    return lines


_comment_cache = {}


def in_comment(path, line):
    if path not in _comment_cache:
        try:
            _comment_cache.clear()
            _comment_cache[path] = _comment_lines(open(path, "rb").read())
        except OSError:
            return False
    return line in _comment_cache[path]


def macro_defines(path, line, name):
    """Does the macro call on this line open a definition (`TEST(a, b) {`, `NAME() : x(0)
    {`), as opposed to a statement-like invocation (`EXPORT_SYMBOL(f);`)?"""
    try:
        text = open(path, "rb").read().decode("utf-8", "replace")
    except OSError:
        return False
    starts = [0] + [mm.end() for mm in re.finditer("\n", text)]
    if line - 1 >= len(starts):
        return False
    mm = re.compile(re.escape(name) + r"[ \t]*\(").search(text, starts[line - 1])
    if not mm:
        return False
    i = mm.end() - 1
    depth = 0
    while i < len(text):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                break
        i += 1
    rest = text[i + 1:i + 400].lstrip()
    rest = re.sub(r"^(const|noexcept|override|final)\b\s*", "", rest)
    return rest[:1] in ("{", ":")


def classify(lang, m):
    """(side, category) of a miss: side is "ctags" or "loupe"."""
    p, name, kind = m["pattern"], m["name"], m["kind"]
    if lang == "scala" and in_comment(m["path"], m["line"]):
        return "ctags", "a definition inside a comment or a string (commented-out code, " \
                        "code-generator templates)"
    if lang == "scala" and "@" in p and "/gen/" in m["path"]:
        return "ctags", "a definition inside a comment or a string (commented-out code, " \
                        "code-generator templates)"
    if lang in ("c", "cpp", "cpp-stdlib") and kind == "function" and MACRO_NAME.match(name) and \
            not macro_defines(m["path"], m["line"], name):
        return "ctags", "a macro invocation tagged as a function"
    if lang == "javascript":
        if m["path"].endswith(".min.js"):
            return "ctags", "minified bundle (one-line code ctags splits heuristically)"
        if re.search(r"\.prototype\.[\w$]+\.(call|apply)\(", p):
            return "ctags", "a call through a prototype (_super.prototype.m.call) tagged as a method"
        if kind == "class" and re.match(r"^\s*this\.", p):
            return "ctags", "a this-property tagged as a class"
        if kind in ("class", "function") and \
                re.search(r"\b" + re.escape(name) + r"\.prototype(\.[\w$]+|\[[^]]+\])?\s*=", p):
            return "ctags", "the constructor re-tagged at a prototype assignment"
        if re.search(r"\.prototype(\.[\w$]+|\[[^]]+\])\s*=\s*[\w$.\[\]]+;?\s*$", p):
            return "ctags", "a method alias (X.prototype.m = existingFunction)"
        if kind == "class" and name in ("delete", "new", "typeof", "void", "return"):
            return "ctags", "a keyword tagged as a class"
        if kind == "class" and re.search(r"(=|:)\s*\{", p):
            return "ctags", "an object literal tagged as a class"
        if kind == "method" and re.match(r"^\s*(var\s+\w+\s*=\s*\{.*)?['\"]?[\w$]+['\"]?\s*:\s*function\b", p):
            return "ctags", "a method of an object literal local to a function (loupe keeps " \
                            "the members of module-level objects)"
        if re.search(r"=\s*\(function\b", p):
            return "ctags", "the result of an immediately invoked function tagged as a function"
        if re.search(r"(^|[^\w$.])" + re.escape(name) + r"\s*=\s*function\b", p) or \
                re.search(r"(^|[^\w$.])(?!exports\b)[a-z_][\w$]*\." + re.escape(name) +
                          r"\s*=\s*function\b", p):
            return "ctags", "a function assigned to an existing variable or property inside code"
        if re.search(r"\b(return|,|\()\s*function\s+" + re.escape(name), p):
            return "ctags", "a named function expression used as a value"
        if kind == "class" and re.search(r"\b" + re.escape(name) + r"\.prototype\s*=", p):
            return "ctags", "a prototype object assignment tagged as a class"
    if lang == "typescript":
        if re.match(r"^\s*type\s+\w+,\s*$", p):
            return "ctags", "a name in an export list (export { type X })"
        if name == "extends":
            return "ctags", "a conditional type misread (name 'extends')"
    if lang == "c-sharp":
        if re.search(r"\bthrow new\b", p) or re.match(r"^\s*[\w.]+(\.[\w]+|<[\w, ]+>)\(.*\);", p):
            return "ctags", "a statement (call or throw) tagged as a method"
        if re.search(r"\bwhere\s+\w+\s*:", p):
            return "ctags", "a generic constraint tagged as a type"
        if m["path"].endswith(".cs") and re.match(r"^\d+\s", p):
            return "ctags", "a non-C# data file with a .cs name"
    if lang == "java" and re.match(r"^\s*\w+\s*\{\s*$", p) and kind == "interface":
        return "ctags", "a permits/extends list entry tagged as an interface"
    if m.get("partial"):
        return "loupe", "in a file tree-sitter cannot parse whole (macros, preprocessor)"
    return "loupe", "unexplained"


def reverse_extra(path, tags, syms, kinds):
    """loupe callables/types that ctags has no tag for at that line (informative)."""
    have = {(norm_name(t["name"]), t["line"]) for t in tags}
    n = 0
    for s in syms:
        if LOUPE_FAMILY.get(s["kind"]) and "declaration" not in s.get("flags", ""):
            if not any((norm_name(s["name"]), ln) in have
                       for ln in range(s["span"]["start_line"], s["sig"]["end_line"] + 1)):
                n += 1
    return n


# ---------------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--loupe", default=os.path.join(TOP, "build/loupe"))
    ap.add_argument("--mb", type=int, default=8, help="cap per language (MiB)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--langs", default=",".join(KINDS))
    ap.add_argument("--out", default=os.path.join(HERE, "results",
                                                  f"lang-ctags-{datetime.date.today()}.md"))
    ap.add_argument("--misses", default=None, help="write every miss as JSON lines here")
    ap.add_argument("--no-timing", action="store_true")
    args = ap.parse_args()
    langs = [l for l in args.langs.split(",") if l]
    for l in langs:
        if l not in KINDS:
            ap.error(f"unknown language {l!r}; known: {', '.join(KINDS)}")
    if not os.access(args.loupe, os.X_OK):
        ap.error(f"{args.loupe} is not an executable: run `make build/loupe` first")
    setup(langs)
    ctags_ver = subprocess.run(["ctags", "--version"], stdout=subprocess.PIPE,
                               text=True).stdout.splitlines()[0]
    spec = corpora(args.mb)
    rows = []
    all_misses = []
    tmpd = tempfile.mkdtemp(prefix="lang-ctags-")
    try:
        for lang in langs:
            llang, force, roots = spec[lang]
            files = list_files(roots)
            if not files:
                log(f"# {lang}: no corpus files, skipped")
                continue
            listfile = f"{tmpd}/{lang}.txt"
            with open(listfile, "w") as f:
                f.write("\n".join(files) + "\n")
            nbytes = sum(os.path.getsize(p) for p in files)
            tags = run_ctags(force, listfile, lang)
            syms, partial = run_loupe(args.loupe, llang, files)
            kinds = KINDS[lang]
            cons = mat = 0
            pcons = pmat = 0
            extra = 0
            per_kind = collections.Counter()
            per_kind_ok = collections.Counter()
            misses = []
            for p in files:
                ft = tags.get(p, [])
                fs = syms.get(p, [])
                c, m, ms = compare_file(p, ft, fs, kinds, lang)
                cons += c
                mat += m
                for t in ft:
                    if t.get("kind") in kinds and "anonymous" not in t.get("extras", "") \
                            and not t["name"].startswith("__anon"):
                        per_kind[t["kind"]] += 1
                for x in ms:
                    if not x.get("kind_differs"):
                        per_kind_ok[x["kind"]] -= 1
                for x in ms:
                    x["partial"] = p in partial
                misses += ms
                extra += reverse_extra(p, ft, fs, kinds)
                if lang in PROTOTYPE_KINDS:
                    c2, m2, ms2 = compare_file(p, ft, [s for s in fs if "declaration" in s.get(
                        "flags", "")], PROTOTYPE_KINDS[lang])
                    pcons += c2
                    pmat += m2
            for k in per_kind:
                per_kind_ok[k] += per_kind[k]
            for x in misses:
                x["lang"] = lang
            all_misses += misses
            cats = collections.Counter()
            examples = {}
            for x in misses:
                if x.get("kind_differs"):
                    continue
                side, cat = classify(lang, x)
                x["side"], x["category"] = side, cat
                cats[(side, cat)] += 1
                examples.setdefault((side, cat), []).append(x)
            ctags_side = sum(n for (side, _), n in cats.items() if side == "ctags")
            kdiff = collections.Counter(
                (x["kind"], x["near"][1] if x["near"][0] == "kind" else "a function named "
                 "after its test or first argument (macro-defined)") for x in misses
                if x.get("kind_differs"))
            row = {"lang": lang, "files": len(files), "bytes": nbytes, "considered": cons,
                   "matched": mat, "kdiff": kdiff, "cats": cats, "examples": examples,
                   "ctags_side": ctags_side, "per_kind": dict(per_kind), "per_kind_ok": dict(per_kind_ok),
                   "partial": len(partial), "loupe_extra": extra, "proto": (pcons, pmat)}
            if not args.no_timing:
                row["t_full"] = loupe_stats(args.loupe, llang, listfile, args.runs, False)
                row["t_parse"] = loupe_stats(args.loupe, llang, listfile, args.runs, True)
                row["t_ctags"] = timed(ctags_cmd(force) + ["-f", "-", "-L", listfile],
                                       args.runs)
            rows.append(row)
            log(f"# {lang}: {mat}/{cons} = {100.0 * mat / max(cons, 1):.2f}% "
                f"({len(files)} files, {nbytes / 1e6:.1f} MB, "
                f"{len(misses) - sum(kdiff.values())} misses, {sum(kdiff.values())} kind differs)")
    finally:
        shutil.rmtree(tmpd, ignore_errors=True)
    if args.misses:
        with open(args.misses, "w") as f:
            for x in all_misses:
                f.write(json.dumps(x) + "\n")
    write_table(rows, args, ctags_ver)


def write_table(rows, args, ctags_ver):
    L = [f"# Symbols vs ctags ({datetime.date.today()}, {os.cpu_count()} cores, "
         f"{platform.machine()})", "",
         f"`bench/lang_ctags.py --mb {args.mb} --runs {args.runs}`; {ctags_ver}.",
         "share = ctags definition tags (kinds per language in bench/lang_ctags.py) that",
         "loupe finds: a symbol of the same name written on the same line. `kind differs`",
         "counts the found ones whose loupe kind is of another family (callable vs type) or",
         "whose name follows another convention (macro-defined functions); the categories",
         "are listed below the table.",
         "MB/s: bytes / CPU time (user + system, one thread, median of the runs; process",
         "start included); `full` = `loupe parse --stats` (parse + extract + chunk),",
         "`parse` = the same with `--parse-only` (tree-sitter alone), `ctags` = ctags",
         "writing the same JSON; full/ctags = ratio of the two speeds.", "",
         "`ctags-side` = misses the rules in `classify` attribute to ctags (tags it should not",
         "make, or makes by a convention loupe does not share); `share*` = matched /",
         "(tags - ctags-side).", "",
         "| lang | files | MB | ctags tags | matched | share | ctags-side | share* | "
         "kind differs | full MB/s | parse MB/s | ctags MB/s | full/ctags | partial files |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        mb = r["bytes"] / 1e6
        share = 100.0 * r["matched"] / max(r["considered"], 1)
        if "t_full" in r:
            f, p, c = mb / r["t_full"], mb / r["t_parse"], mb / r["t_ctags"]
            tcols = f"{f:.2f} | {p:.2f} | {c:.1f} | {f / c:.2f}"
        else:
            tcols = "- | - | - | -"
        adj = 100.0 * r["matched"] / max(r["considered"] - r["ctags_side"], 1)
        L.append(f"| {r['lang']} | {r['files']} | {mb:.1f} | {r['considered']} | "
                 f"{r['matched']} | {share:.2f}% | {r['ctags_side']} | {adj:.2f}% | "
                 f"{sum(r['kdiff'].values())} | {tcols} | {r['partial']} |")
    L += ["", "Per ctags kind (matched / considered):", ""]
    for r in rows:
        parts = [f"{k} {r['per_kind_ok'].get(k, 0)}/{n}" for k, n in sorted(r["per_kind"].items())]
        pc, pm = r["proto"]
        if pc:
            parts.append(f"(prototypes, not in the share: {pm}/{pc})")
        if r["kdiff"]:
            parts.append("kind differs (ctags -> loupe): " + ", ".join(
                f"{a} -> {b} {n}" for (a, b), n in r["kdiff"].most_common()))
        parts.append(f"loupe callables/types without a ctags tag on their lines: "
                     f"{r['loupe_extra']}")
        L.append(f"- {r['lang']}: " + ", ".join(parts))
    L += ["", "Misses by category (count; example: file:line `source`):", ""]
    for r in rows:
        if not r["cats"]:
            continue
        L.append(f"- {r['lang']}:")
        for (side, cat), n in sorted(r["cats"].items(), key=lambda kv: (kv[0][0], -kv[1])):
            ex = r["examples"][(side, cat)][0]
            where = "/".join(ex["path"].split("/")[-2:])
            L.append(f"  - [{side}] {cat}: {n}; e.g. {where}:{ex['line']} "
                     f"`{ex['pattern'].strip()[:70]}`")
    text = "\n".join(L) + "\n"
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    print(text)
    log(f"written: {args.out}")


if __name__ == "__main__":
    main()
