#!/usr/bin/env bash
# bench/lang.sh: throughput of src/lang (parse + extract + chunk) per language, measured
# with `loupe parse --stats` on real corpora from the package registries, against a
# baseline measured in the same run: tree-sitter's parse alone (`--parse-only`).
#
#   bench/lang.sh [--loupe build/loupe] [--mb 12] [--runs 3] [--out bench/results/lang-DATE.md]
#
# Corpora (fetched on first use into $LOUPE_BENCH_CORPUS, default /tmp/loupe-corpus):
#   go          Debian golang-1.19-src (the Go standard library)
#   python      Debian python3-django
#   javascript  npm lodash + rxjs + @tanstack/react-query (their .js files)
#   typescript  npm rxjs sources (src/**/*.ts)
#   tsx         npm @tanstack/react-query .tsx sources (few: see the note in the table)
#   rust        Debian librust-tokio-dev, librust-regex-dev, librust-serde-dev
#   java        Debian openjdk-17-source (java.base: java.util, java.lang, java.io, java.net)
#   c           Debian linux-source-6.1 (kernel/, mm/, fs/ext4/)
#   cpp         libstdc++ headers (/usr/include/c++/12, parsed as C++)
#   c-sharp, scala  no registry here ships their sources: synthetic corpora made from the
#               test fixtures (identifiers renamed per copy); numbers marked "synthetic"
#   markdown, rst  documentation under /usr/share/doc and the corpora above
# Each language is capped at --mb megabytes (files in sorted order). The median of --runs
# runs is reported. Never part of `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
LOUPE=build/loupe
MB=12
RUNS=3
OUT="bench/results/lang-$(date +%F).md"
while [ $# -gt 0 ]; do
    case "$1" in
    --loupe) LOUPE=$2; shift 2 ;;
    --mb) MB=$2; shift 2 ;;
    --runs) RUNS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "usage: bench/lang.sh [--loupe PATH] [--mb N] [--runs N] [--out FILE]" >&2; exit 2 ;;
    esac
done
CORPUS=${LOUPE_BENCH_CORPUS:-/tmp/loupe-corpus}
mkdir -p "$CORPUS/lists"
[ -x "$LOUPE" ] || make -j2 "$LOUPE"

need_apt() { dpkg -s "$1" >/dev/null 2>&1 || apt-get install -y -q "$1" >/dev/null; }

setup() {
    need_apt golang-1.19-src
    need_apt python3-django
    need_apt librust-tokio-dev
    need_apt librust-regex-dev
    need_apt librust-serde-dev
    need_apt openjdk-17-source
    need_apt linux-source-6.1
    if [ ! -d "$CORPUS/npm/node_modules/rxjs" ]; then
        mkdir -p "$CORPUS/npm"
        (cd "$CORPUS/npm" && echo '{"name":"corpus","private":true}' > package.json &&
            npm install --ignore-scripts --no-audit --no-fund --loglevel=error \
                rxjs lodash @tanstack/react-query >/dev/null)
    fi
    if [ ! -d "$CORPUS/jdk" ]; then
        mkdir -p "$CORPUS/jdk"
        (cd "$CORPUS/jdk" && unzip -q -o /usr/lib/jvm/openjdk-17/lib/src.zip \
            'java.base/java/util/*' 'java.base/java/lang/*' 'java.base/java/io/*' \
            'java.base/java/net/*')
    fi
    if [ ! -d "$CORPUS/linux" ]; then
        mkdir -p "$CORPUS/linux"
        tar -C "$CORPUS/linux" -xJf /usr/src/linux-source-6.1.tar.xz \
            --wildcards 'linux-source-6.1/kernel/*' 'linux-source-6.1/mm/*' \
            'linux-source-6.1/fs/ext4/*'
    fi
    # synthetic C# and Scala: the fixtures, identifiers renamed per copy
    for spec in "c-sharp:cs:csharp" "scala:scala:scala"; do
        IFS=: read -r lang ext fix <<<"$spec"
        if [ ! -d "$CORPUS/synthetic-$lang" ]; then
            mkdir -p "$CORPUS/synthetic-$lang"
            for i in $(seq 1 400); do
                for f in tests/fixtures/lang/$fix*.$ext; do
                    sed -e "s/Session/Session$i/g; s/Store/Store$i/g; s/Point/Point$i/g" \
                        "$f" >"$CORPUS/synthetic-$lang/$(basename "$f" ."$ext")_$i.$ext"
                done
            done
        fi
    done
}

# list LANG FIND-ARGS...: sorted files, capped at $MB megabytes
list() {
    local name=$1
    shift
    find "$@" -type f 2>/dev/null | LC_ALL=C sort | python3 -c '
import os, sys
cap = int(sys.argv[1]) << 20
total = 0
for line in sys.stdin:
    p = line.rstrip("\n")
    try:
        n = os.path.getsize(p)
    except OSError:
        continue
    if n == 0 or n > (8 << 20):
        continue
    if total + n > cap and total > 0:
        continue  # keep reading: an early exit would kill sort with SIGPIPE
    total += n
    print(p)
' "$MB" >"$CORPUS/lists/$name.txt"
}

setup
NPM=$CORPUS/npm/node_modules
list go /usr/share/go-1.19/src -name '*.go'
list python /usr/lib/python3/dist-packages/django -name '*.py'
list javascript "$NPM/lodash" "$NPM/rxjs/dist/cjs" "$NPM/@tanstack" -name '*.js'
list typescript "$NPM/rxjs/src" -name '*.ts' -not -name '*.d.ts'
list tsx "$NPM/@tanstack" -name '*.tsx'
list rust /usr/share/cargo/registry -name '*.rs'
list java "$CORPUS/jdk" -name '*.java'
list c "$CORPUS/linux" -name '*.c'
list cpp /usr/include/c++/12
list c-sharp "$CORPUS/synthetic-c-sharp" -name '*.cs'
list scala "$CORPUS/synthetic-scala" -name '*.scala'
list markdown /usr/share/doc "$CORPUS/npm" -name '*.md'
list rst /usr/share/doc /usr/lib/python3/dist-packages -name '*.rst'

LANGS="go python javascript typescript tsx rust java c cpp c-sharp scala markdown rst"
RAW=$(mktemp)
trap 'rm -f "$RAW"' EXIT
for lang in $LANGS; do
    lst="$CORPUS/lists/$lang.txt"
    [ -s "$lst" ] || { echo "# $lang: no corpus, skipped" >&2; continue; }
    for run in $(seq 1 "$RUNS"); do
        for mode in base full; do
            flag=""
            [ $mode = base ] && flag="--parse-only"
            "$LOUPE" parse --stats --json $flag --lang "$lang" --files-from "$lst" 2>/dev/null |
                python3 -c 'import json,sys; r=[x for x in json.load(sys.stdin) if x["lang"]=="total"][0]; print(sys.argv[1], sys.argv[2], r["files"], r["bytes"], r["ms"], r["symbols"], r["chunks"], r["partial"])' "$lang" "$mode" >>"$RAW"
        done
    done
    echo "# $lang done" >&2
done

mkdir -p "$(dirname "$OUT")"
python3 - "$RAW" "$OUT" "$MB" "$RUNS" <<'PY'
import statistics, sys, os, datetime, platform
raw, out, mb, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
rows = {}
for line in open(raw):
    lang, mode, files, nbytes, ms, syms, chunks, partial = line.split()
    r = rows.setdefault(lang, {"files": int(files), "bytes": int(nbytes), "base": [], "full": [],
                               "symbols": int(syms), "chunks": int(chunks), "partial": int(partial)})
    r[mode].append(float(ms))
    if mode == "full":
        r["symbols"], r["chunks"], r["partial"] = int(syms), int(chunks), int(partial)
synthetic = {"c-sharp", "scala"}
lines = [f"# src/lang throughput ({datetime.date.today()}, {os.cpu_count()} cores, {platform.machine()})",
         "",
         f"`bench/lang.sh --mb {mb} --runs {runs}`: one thread; median of {runs} runs; MB/s = 10^6 bytes/s.",
         "`parse-only` is tree-sitter's parse alone (the baseline); `full` is lp_parse: parse,",
         "symbol extraction (query per candidate node), chunking. `ratio` = full / parse-only.",
         "",
         "| lang | files | MB | parse-only MB/s | full MB/s | ratio | symbols | chunks | partial files |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
speeds = []
for lang, r in rows.items():
    mb_ = r["bytes"] / 1e6
    base = statistics.median(r["base"]) / 1e3
    full = statistics.median(r["full"]) / 1e3
    b, f = mb_ / base if base else 0, mb_ / full if full else 0
    if lang not in ("markdown", "rst") and lang not in synthetic:
        speeds.append(f)
    name = lang + (" (synthetic)" if lang in synthetic else "")
    if lang in ("markdown", "rst"):  # no tree-sitter parse: no baseline
        bs, ratio = "-", "-"
    else:
        bs, ratio = f"{b:.2f}", f"{f / b if b else 0:.2f}"
    lines.append(f"| {name} | {r['files']} | {mb_:.1f} | {bs} | {f:.2f} | {ratio} | {r['symbols']} | {r['chunks']} | {r['partial']} |")
if speeds:
    lines += ["", f"Mean full throughput over the code languages with real corpora: {statistics.mean(speeds):.2f} MB/s."]
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
echo "written: $OUT" >&2
