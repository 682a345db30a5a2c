#!/usr/bin/env python3
"""Fetch the training corpora: real packages from the registries, pinned by exact version.

Reads bench/train/packages.tsv (lang, registry, name, version), refuses any package on the deny
list (the evaluation trees and everything measured as held-out, see DENY below), downloads each
artefact with the registry's own client or protocol, unpacks it into
bench/work/train/src/<id>/ (git-ignored), checks the unpacked tree again for vendored copies of
denied projects, and writes bench/train/manifest.jsonl: one line per package with its version,
licence, artefact sha256, source-file counts per language and a status (`ok`, `no-source`,
`denied`, `failed: ...`).

Registries and clients:
  pypi    the Simple API (PEP 691 JSON) for the sdist's URL and sha256, then the file itself;
          the same files `pip download --no-deps --no-binary :all:` takes, without building
          metadata (which costs minutes per package)
  npm     `npm pack NAME@VERSION`
  go      `go mod download -json MODULE@VERSION` (the Go module proxy, checksum database on)
  maven   G:A:V's -sources.jar and pom (for the licence) from Maven Central's repository layout,
          each checked against its published .sha1 (the files `mvn dependency:copy` fetches)
  debsrc  `apt-get source --download-only NAME=VERSION` with a private deb-src list under
          bench/work/train/apt (nothing system-wide changes); the upstream (orig) tarball
  debbin  `apt-get download NAME=VERSION` + `dpkg-deb -x` (librust-*-dev: the crate source)

Idempotent: a package already unpacked is only re-counted. Python 3 standard library only.
"""
import argparse
import concurrent.futures
import glob
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
WORK = os.path.join(TOP, "bench", "work", "train")
DL = os.path.join(WORK, "dl")
SRC = os.path.join(WORK, "src")
APT = os.path.join(WORK, "apt")
PACKAGES = os.path.join(HERE, "packages.tsv")
MANIFEST = os.path.join(HERE, "manifest.jsonl")

# ---------------------------------------------------------------------------------------------
# The deny list. Never train on the evaluation trees or on anything measured as held-out:
# - bench/quality corpora: click, rxjs, the regex crates, linux lib/, java.util (any JDK source),
#   the Go standard library (and the golang.org/x modules vendored into it);
# - the development kit's repositories: flask, requests, pytest, pylint (and pallets' werkzeug,
#   jinja2, itsdangerous, markupsafe, pylint's astroid);
# - the SWE-bench Lite projects the held-out sets use.
# Matched against "<registry>:<name>" lower-cased, after dropping Debian's python3-/librust-/-dev.
DENY = [
    r"click", r"rxjs", r"regex", r"regex-(syntax|automata)", r"linux(-source)?(-[\d.]+)?",
    r"openjdk-?\d*(-source)?", r"golang(-[\d.]+)?(-src)?", r"golang\.org/x/(net|crypto|text|sys)",
    r"flask.*", r"requests.*", r"pytest.*", r"_?pytest", r"pylint.*", r"astroid",
    r"werkzeug", r"jinja2?", r"itsdangerous", r"markupsafe",
    r"django.*", r"sympy", r"sphinx.*", r"scikit-learn", r"sklearn", r"matplotlib.*", r"astropy.*",
    r"xarray", r"seaborn",
    r"pip", r"pipenv",  # vendor requests
]
DENY_RE = re.compile(r"^(?:%s)$" % "|".join("(?:%s)" % d for d in DENY))
# Python package folders that, found anywhere inside a tree (vendored), deny the package.
DENY_PYDIRS = {"click", "flask", "requests", "_pytest", "pytest", "pylint", "astroid", "werkzeug",
               "jinja2", "django", "sympy", "sphinx", "sklearn", "matplotlib", "astropy", "xarray",
               "seaborn"}


def bare_name(registry, name):
    n = name.lower()
    if registry in ("debsrc", "debbin"):
        n = re.sub(r"^(python3-|librust-)", "", n)
        n = re.sub(r"-dev$", "", n)
    if registry == "maven":
        n = n.split(":")[1]
        n = re.sub(r"_(2\.1[0-3]|3)$", "", n)
    if registry == "npm":
        n = n.split("/")[-1]
    return n


def denied(registry, name):
    n = bare_name(registry, name)
    if DENY_RE.match(n):
        return "name %r is on the deny list" % n
    if registry == "go" and DENY_RE.match(name.lower()):
        return "module %r is on the deny list" % name
    return None


def denied_content(root):
    """A vendored copy of a denied project inside the tree, or None."""
    for dirpath, dirnames, filenames in os.walk(root):
        base = os.path.basename(dirpath)
        if base in DENY_PYDIRS and "__init__.py" in filenames and \
                sum(f.endswith(".py") for f in filenames) >= 3:
            return "vendored Python package %s" % os.path.relpath(dirpath, root)
        rel = os.path.relpath(dirpath, root).replace(os.sep, "/")
        if re.search(r"(^|/)node_modules/rxjs$|(^|/)vendor/golang\.org/x/(net|crypto|text|sys)$|"
                     r"(^|/)regex-(syntax-)?\d+\.\d+\.\d+$", rel):
            return "vendored %s" % rel
    return None


# ---------------------------------------------------------------------------------------------
# Languages

EXT_LANG = {".py": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript",
            ".jsx": "javascript", ".ts": "typescript", ".tsx": "typescript", ".mts": "typescript",
            ".cts": "typescript", ".go": "go", ".rs": "rust", ".java": "java", ".c": "c",
            ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
            ".hxx": "cpp", ".cs": "csharp", ".scala": "scala", ".sc": "scala"}


def file_lang(rel, pkg_lang=None):
    low = rel.lower()
    if low.endswith((".d.ts", ".d.mts", ".d.cts", ".min.js")):
        return None
    lang = EXT_LANG.get(os.path.splitext(low)[1])
    if lang == "c" and pkg_lang == "cpp" and low.endswith(".h"):
        return "cpp"
    return lang


def count_sources(root, pkg_lang):
    counts, files, size = {}, 0, 0
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "node_modules"]
        for fn in filenames:
            files += 1
            full = os.path.join(dirpath, fn)
            try:
                size += os.path.getsize(full)
            except OSError:
                continue
            lang = file_lang(fn, pkg_lang)
            if lang:
                counts[lang] = counts.get(lang, 0) + 1
    return counts, files, size


# ---------------------------------------------------------------------------------------------
# Helpers


def run(argv, cwd=None, env=None, timeout=900):
    p = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(argv[:3]), (p.stderr or p.stdout).strip()[-300:]))
    return p.stdout


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for blk in iter(lambda: fh.read(1 << 20), b""):
            h.update(blk)
    return h.hexdigest()


def safe(s):
    return re.sub(r"[^A-Za-z0-9._+-]+", "_", s)


def pkg_id(registry, name, version):
    return "%s+%s@%s" % (registry, safe(name.replace("/", "~")), safe(version))


def unpack(archive, dest, strip=1, only=None):
    """Unpack a tar or zip into dest, dropping `strip` leading components (and unsafe names)."""
    os.makedirs(dest, exist_ok=True)

    def target(name):
        parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
        if ".." in parts or len(parts) <= strip:
            return None
        if only is not None and not "/".join(parts).startswith(only):
            return None
        return os.path.join(dest, *parts[strip:])

    if zipfile.is_zipfile(archive):
        with zipfile.ZipFile(archive) as z:
            for info in z.infolist():
                if info.is_dir():
                    continue
                t = target(info.filename)
                if t:
                    os.makedirs(os.path.dirname(t), exist_ok=True)
                    with z.open(info) as src, open(t, "wb") as out:
                        shutil.copyfileobj(src, out)
        return
    with tarfile.open(archive) as tf:
        for m in tf:
            if not m.isfile():
                continue
            t = target(m.name)
            if t:
                os.makedirs(os.path.dirname(t), exist_ok=True)
                src = tf.extractfile(m)
                with open(t, "wb") as out:
                    shutil.copyfileobj(src, out)


LICENCE_HINTS = [("Apache License", "Apache-2.0"), ("MIT License", "MIT"),
                 ("Permission is hereby granted, free of charge", "MIT"),
                 ("Mozilla Public License", "MPL-2.0"), ("GNU LESSER GENERAL PUBLIC", "LGPL"),
                 ("GNU GENERAL PUBLIC LICENSE", "GPL"), ("ISC License", "ISC"),
                 ("Redistribution and use in source and binary forms", "BSD"),
                 ("This is free and unencumbered", "Unlicense"), ("zlib License", "Zlib")]


def sniff_licence(root):
    for pat in ("LICENSE*", "LICENCE*", "COPYING*", "license*", "License*"):
        for f in sorted(glob.glob(os.path.join(root, pat))):
            if os.path.isfile(f):
                text = open(f, encoding="utf-8", errors="replace").read(20000)
                for needle, name in LICENCE_HINTS:
                    if needle.lower() in text.lower():
                        return name
                return "see " + os.path.basename(f)
    return "unknown"


def debian_licence(copyright_text):
    m = re.search(r"^Files:\s*\*\s*$.*?^License:[ \t]*([^\n]+)$", copyright_text, re.M | re.S)
    if m:
        return m.group(1).strip()
    m = re.search(r"^License:\s*(.+)$", copyright_text, re.M)
    return m.group(1).strip() if m else "see debian/copyright"


# ---------------------------------------------------------------------------------------------
# Fetchers: each returns (artefact path, licence) after unpacking into dest.


def fetch_pypi(name, version, dest):
    d = os.path.join(DL, "pypi")
    os.makedirs(d, exist_ok=True)
    norm = re.sub(r"[-_.]+", "-", name).lower()
    req = urllib.request.Request("https://pypi.org/simple/%s/" % norm,
                                 headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        index = json.load(r)
    want = re.sub(r"[-_.]+", "[-_.]", re.escape(norm).replace("\\-", "-"))
    pick = None
    for f in index["files"]:
        fn = f["filename"]
        if re.match(r"(?i)^%s-%s\.(tar\.gz|zip|tar\.bz2)$" % (want, re.escape(version)), fn):
            pick = f
            break
    if not pick:
        raise RuntimeError("no sdist %s==%s on PyPI" % (name, version))
    path = os.path.join(d, pick["filename"])
    if not os.path.exists(path) or sha256(path) != pick["hashes"]["sha256"]:
        with urllib.request.urlopen(pick["url"], timeout=300) as r, open(path + ".part", "wb") as out:
            shutil.copyfileobj(r, out)
        os.replace(path + ".part", path)
    if sha256(path) != pick["hashes"]["sha256"]:
        raise RuntimeError("sha256 mismatch for %s" % pick["filename"])
    unpack(path, dest, strip=1)
    lic = "unknown"
    pk = os.path.join(dest, "PKG-INFO")
    if os.path.exists(pk):
        text = open(pk, encoding="utf-8", errors="replace").read()
        m = re.search(r"^License-Expression:\s*(.+)$", text, re.M) or \
            re.search(r"^License:\s*(\S.{0,60})$", text, re.M)
        cl = re.findall(r"^Classifier: License :: (?:OSI Approved :: )?(.+)$", text, re.M)
        if m and m.group(1).strip() not in ("UNKNOWN", ""):
            lic = m.group(1).strip()
        elif cl:
            lic = cl[0].strip()
    if lic == "unknown":
        lic = sniff_licence(dest)
    return path, lic


def fetch_npm(name, version, dest):
    d = os.path.join(DL, "npm")
    os.makedirs(d, exist_ok=True)
    out = run(["npm", "pack", "--silent", "--json", "--pack-destination", d, "%s@%s" % (name, version)],
              cwd=d)
    info = json.loads(out)[0]
    path = os.path.join(d, info["filename"])
    unpack(path, dest, strip=1)
    lic = "unknown"
    pj = os.path.join(dest, "package.json")
    if os.path.exists(pj):
        try:
            j = json.load(open(pj, encoding="utf-8"))
            lic = j.get("license") or "unknown"
            if isinstance(lic, dict):
                lic = lic.get("type", "unknown")
        except ValueError:
            pass
    return path, lic


def fetch_go(name, version, dest):
    env = dict(os.environ, GOMODCACHE=os.path.join(DL, "go"), GOFLAGS="-mod=mod",
               GOTOOLCHAIN="local")
    tmp = tempfile.mkdtemp(dir=DL)
    try:
        out = run(["go", "mod", "download", "-json", "%s@%s" % (name, version)], cwd=tmp, env=env)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    info = json.loads(out)
    if info.get("Error"):
        raise RuntimeError(info["Error"])
    prefix_parts = len(("%s@%s" % (name, version)).split("/"))
    unpack(info["Zip"], dest, strip=prefix_parts)
    return info["Zip"], sniff_licence(dest)


MAVEN_CENTRAL = "https://repo.maven.apache.org/maven2"


def maven_get(g, a, version, fname, d):
    """One file of Maven Central's repository layout, checked against its published .sha1
    (what `mvn dependency:copy` fetches, without a JVM start per file)."""
    path = os.path.join(d, fname)
    url = "%s/%s/%s/%s/%s" % (MAVEN_CENTRAL, g.replace(".", "/"), a, version, fname)
    with urllib.request.urlopen(url + ".sha1", timeout=60) as r:
        want = r.read().decode().split()[0].strip().lower()
    if not os.path.exists(path) or hashlib.sha1(open(path, "rb").read()).hexdigest() != want:
        with urllib.request.urlopen(url, timeout=300) as r, open(path + ".part", "wb") as out:
            shutil.copyfileobj(r, out)
        os.replace(path + ".part", path)
    if hashlib.sha1(open(path, "rb").read()).hexdigest() != want:
        raise RuntimeError("sha1 mismatch for %s" % fname)
    return path


def fetch_maven(name, version, dest):
    g, a = name.split(":")
    d = os.path.join(DL, "maven")
    os.makedirs(d, exist_ok=True)
    path = maven_get(g, a, version, "%s-%s-sources.jar" % (a, version), d)
    pom = maven_get(g, a, version, "%s-%s.pom" % (a, version), d)
    unpack(path, dest, strip=0)
    lic = "unknown"
    m = re.search(r"<license>\s*<name>([^<]+)</name>", open(pom, encoding="utf-8", errors="replace").read())
    if m:
        lic = m.group(1).strip()
    if lic == "unknown":
        lic = sniff_licence(dest)
        if lic == "unknown":
            lic = "see pom (parent)"
    return path, lic


def apt_opts():
    return ["-o", "Dir::Etc::SourceList=/dev/null", "-o", "Dir::Etc::SourceParts=" + os.path.join(APT, "etc"),
            "-o", "Dir::State::Lists=" + os.path.join(APT, "lists"), "-o", "Dir::Cache=" + os.path.join(APT, "cache")]


def ensure_apt():
    etc = os.path.join(APT, "etc")
    if os.path.exists(os.path.join(APT, "lists", ".updated")):
        return
    os.makedirs(etc, exist_ok=True)
    os.makedirs(os.path.join(APT, "lists", "partial"), exist_ok=True)
    src = open("/etc/apt/sources.list.d/debian.sources").read()
    with open(os.path.join(etc, "sources.sources"), "w") as fh:
        fh.write(re.sub(r"^Types: deb$", "Types: deb deb-src", src, flags=re.M))
    run(["apt-get", "-q"] + apt_opts() + ["update"])
    open(os.path.join(APT, "lists", ".updated"), "w").close()


def fetch_debsrc(name, version, dest):
    d = os.path.join(DL, "debsrc", "%s_%s" % (name, safe(version)))
    os.makedirs(d, exist_ok=True)
    if not [f for f in os.listdir(d) if re.search(r"\.tar\.\w+$", f) and ".debian." not in f]:
        run(["apt-get", "-q", "source", "--download-only"] + apt_opts() + ["%s=%s" % (name, version)], cwd=d)
    files = sorted(os.listdir(d))
    orig = [f for f in files if re.search(r"\.orig\.tar\.\w+$", f)]
    if not orig:  # a native package: the one tarball is the source
        orig = [f for f in files if re.search(r"\.tar\.\w+$", f) and ".debian." not in f]
    if not orig:
        raise RuntimeError("no source tarball for %s=%s" % (name, version))
    path = os.path.join(d, orig[0])
    unpack(path, dest, strip=1)
    lic = "see debian/copyright"
    deb = [f for f in files if re.search(r"\.debian\.tar\.\w+$", f)]
    if deb:
        with tarfile.open(os.path.join(d, deb[0])) as tf:
            try:
                cp = tf.extractfile("debian/copyright")
                if cp:
                    lic = debian_licence(cp.read().decode("utf-8", "replace"))
            except KeyError:
                pass
    elif os.path.exists(os.path.join(dest, "debian", "copyright")):
        lic = debian_licence(open(os.path.join(dest, "debian", "copyright"), errors="replace").read())
    return path, lic


def fetch_debbin(name, version, dest):
    d = os.path.join(DL, "debbin")
    os.makedirs(d, exist_ok=True)
    pat = os.path.join(d, "%s_%s_*.deb" % (name, version.replace(":", "%3a")))
    if not glob.glob(pat):
        run(["apt-get", "-q", "download", "%s=%s" % (name, version)], cwd=d)
    path = glob.glob(pat)[0]
    tmp = tempfile.mkdtemp(dir=DL)
    try:
        run(["dpkg-deb", "-x", path, tmp])
        crates = glob.glob(os.path.join(tmp, "usr", "share", "cargo", "registry", "*"))
        if len(crates) != 1:
            raise RuntimeError("expected one crate in %s, found %d" % (path, len(crates)))
        if os.path.isdir(dest):
            shutil.rmtree(dest)
        shutil.copytree(crates[0], dest, symlinks=False, ignore_dangling_symlinks=True)
        lic = "see copyright"
        cp = glob.glob(os.path.join(tmp, "usr", "share", "doc", "*", "copyright"))
        if cp:
            lic = debian_licence(open(cp[0], errors="replace").read())
        return path, lic
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


FETCH = {"pypi": fetch_pypi, "npm": fetch_npm, "go": fetch_go, "maven": fetch_maven,
         "debsrc": fetch_debsrc, "debbin": fetch_debbin}

# ---------------------------------------------------------------------------------------------


def load_packages(path=PACKAGES):
    out = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if not line.strip() or line.startswith("#"):
                continue
            lang, reg, name, ver = line.rstrip("\n").split("\t")[:4]
            out.append({"lang": lang, "registry": reg, "name": name, "version": ver})
    return out


def load_manifest(path=MANIFEST):
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as fh:
        return {r["id"]: r for r in (json.loads(l) for l in fh if l.strip())}


def process(p, refetch=False):
    pid = pkg_id(p["registry"], p["name"], p["version"])
    rec = dict(p, id=pid, root=os.path.relpath(os.path.join(SRC, pid), TOP))
    why = denied(p["registry"], p["name"])
    if why:
        rec["status"] = "denied: " + why
        return rec
    dest = os.path.join(SRC, pid)
    done_mark = os.path.join(SRC, pid + ".json")
    try:
        if os.path.exists(done_mark) and not refetch:
            meta = json.load(open(done_mark))
        else:
            if os.path.isdir(dest):
                shutil.rmtree(dest)
            art, lic = FETCH[p["registry"]](p["name"], p["version"], dest)
            meta = {"artefact": os.path.basename(art), "sha256": sha256(art), "licence": lic}
            with open(done_mark, "w") as fh:
                json.dump(meta, fh)
        rec.update(meta)
        rec["licence"] = (rec.get("licence") or "unknown").split("\n")[0].strip()[:80]
        why = denied_content(dest)
        if why:
            shutil.rmtree(dest, ignore_errors=True)
            rec["status"] = "denied: " + why
            return rec
        counts, files, size = count_sources(dest, p["lang"])
        rec.update(files=files, bytes=size, sources=counts)
        n = counts.get(p["lang"], 0)
        rec["status"] = "ok" if n >= 3 else "no-source: %d %s files" % (n, p["lang"])
    except Exception as e:  # one failed package must not stop the others
        rec["status"] = "failed: %s" % str(e).replace("\n", " ")[:300]
    return rec


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lang", action="append", help="only this language (repeatable)")
    ap.add_argument("--registry", action="append", help="only this registry (repeatable)")
    ap.add_argument("--name", action="append", help="only this package (repeatable)")
    ap.add_argument("-j", "--jobs", type=int, default=2, help="downloads in parallel (default 2)")
    ap.add_argument("--refetch", action="store_true", help="download and unpack again")
    ap.add_argument("--check-deny", action="store_true",
                    help="only check packages.tsv against the deny list (no network)")
    args = ap.parse_args()

    pkgs = load_packages()
    if args.check_deny:
        bad = [(p["registry"], p["name"], denied(p["registry"], p["name"])) for p in pkgs]
        bad = [b for b in bad if b[2]]
        for b in bad:
            print("%s:%s  %s" % b)
        print("%d packages, %d denied" % (len(pkgs), len(bad)))
        return 1 if bad else 0
    sel = [p for p in pkgs if (not args.lang or p["lang"] in args.lang)
           and (not args.registry or p["registry"] in args.registry)
           and (not args.name or p["name"] in args.name)]
    os.makedirs(SRC, exist_ok=True)
    if any(p["registry"] == "debsrc" for p in sel):
        ensure_apt()
    manifest = load_manifest()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
        for rec in ex.map(lambda p: process(p, args.refetch), sel):
            manifest[rec["id"]] = rec
            print("%-60s %s" % (rec["id"][:60], rec["status"]), flush=True)
            with open(MANIFEST + ".tmp", "w", encoding="utf-8") as fh:
                for p in pkgs:  # packages.tsv order
                    r = manifest.get(pkg_id(p["registry"], p["name"], p["version"]))
                    if r:
                        fh.write(json.dumps(r, sort_keys=True) + "\n")
            os.replace(MANIFEST + ".tmp", MANIFEST)
    ok = sum(1 for r in manifest.values() if r["status"] == "ok")
    print("%d packages in the manifest, %d ok" % (len(manifest), ok))
    return 0


if __name__ == "__main__":
    sys.exit(main())
