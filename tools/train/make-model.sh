#!/usr/bin/env bash
# make-model.sh LOUPE_TRAIN: reproduce models/loupe-static-v1.bin and models/MANIFEST.json.
#
#   1. install the corpus packages (tools/apt-ensure) and check their pinned versions;
#   2. list their source files as "unit<TAB>path" (Java and C come as archives inside their
#      packages and are unpacked under build/model/corpus);
#   3. loupe-train extract (loupe's own lp_parse) -> build/model/pairs.bin;
#   4. loupe-train train (+ evaluation on held-out units) -> the model and its manifest.
#
# The quality benchmark's development corpora are EXCLUDED from training: the packages
# listed in EXCLUDED below never enter the file list, nor does java.base of the JDK (a
# superset of its java.util corpus) or any part of linux-source. bench/quality/corpora.md is
# the reference list (its exclusion rule); re-check it when it changes. A version that differs from its pin is reported: the model is then still valid
# but not byte-identical to the committed one.
#
# Environment: SEED (default 1), THREADS (default 2), EPOCHS, DIM, QUICK=1 (a few packages,
# one epoch: a smoke run that writes into build/model/quick instead of models/), EXTRACT_ONLY=1.
set -euo pipefail

train="${1:?usage: make-model.sh path/to/loupe-train}"
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$top"
work="build/model"
out_dir="models"
if [ "${QUICK:-}" = 1 ]; then work="build/model/quick"; out_dir="$work"; fi
mkdir -p "$work/corpus" "$out_dir"

# package=pinned-version  (Debian bookworm)
PY=(
  python3-sympy=1.11.1-1 python3-scipy=1.10.1-2 python3-numpy=1:1.24.2-1+deb12u1
  python3-networkx=2.8.8-1 python3-twisted=22.4.0-4+deb12u1 python3-sklearn=1.2.1+dfsg-1
  python3-sqlalchemy=1.4.46+ds1-1 python3-jinja2=3.1.2-1+deb12u3 python3-docutils=0.19+dfsg-6
  python3-pygments=2.14.0+dfsg-1 python3-matplotlib=3.6.3-1+b1 python3-nltk=3.8-1
  python3-pandas=1.5.3+dfsg-2 python3-mypy=1.0.1-1 python3-tornado=6.2.0-3+deb12u4
  python3-hypothesis=6.67.1-1 python3-sphinx=5.3.0-4 python3-babel=2.10.3-1
  python3-paramiko=2.12.0-2 python3-cryptography=38.0.4-3+deb12u1 python3-jedi=0.18.2-1
  python3-aiohttp=3.8.4-1+deb12u2 python3-urllib3=1.26.12-1+deb12u4 python3-git=3.1.30-1+deb12u3
  python3-astropy=5.2.1-2+deb12u1
)
GO=(
  golang-golang-x-tools-dev=1:0.5.0+ds-1 golang-google-grpc-dev=1.33.3-2
  golang-github-prometheus-client-golang-dev=1.14.0-3 golang-golang-x-net-dev=1:0.7.0+dfsg-1
  golang-golang-x-crypto-dev=1:0.4.0-1 golang-github-docker-docker-dev=20.10.24+dfsg1-1+deb12u1
  golang-github-spf13-cobra-dev=1.6.1-1 golang-google-protobuf-dev=1.28.1-3
  golang-github-gogo-protobuf-dev=1.3.2-3 golang-github-gin-gonic-gin-dev=1.8.1-1
  golang-etcd-server-dev=3.4.23-4 golang-github-containerd-containerd-dev=1.6.20~ds1-1+deb12u3
  golang-github-minio-minio-go-v7-dev=7.0.46-1 golang-github-go-git-go-git-dev=5.4.2-3
  golang-github-hashicorp-hcl-v2-dev=2.14.1-2
)
RS=(
  librust-tokio-dev=1.24.2-1 librust-futures-util-dev=0.3.21-1 librust-rayon-dev=1.6.1-1
  librust-syn-dev=1.0.107-1 librust-petgraph-dev=0.6.2-1 librust-serde-json-dev=1.0.87-1
  librust-itertools-dev=0.10.3-1 librust-hyper-dev=0.14.19-1 librust-tokio-util-dev=0.7.3-2
  librust-mio-dev=0.8.4-1 librust-h2-dev=0.3.13-2 librust-chrono-dev=0.4.23-2
  librust-nom-dev=7.1.1-1 librust-tracing-dev=0.1.37-1 librust-memchr-dev=2.5.0-1
  librust-rayon-core-dev=1.10.1-1 librust-crossbeam-channel-dev=0.5.6-1 librust-bytes-dev=1.2.1-1
  librust-uuid-dev=1.2.1-1 librust-http-dev=0.2.7-1 librust-rand-dev=0.8.5-1
  librust-hashbrown-dev=0.12.3-1 librust-indexmap-dev=1.9.2-1 librust-num-traits-dev=0.2.15-1
  librust-serde-dev=1.0.152-2
)
JS=(
  node-lodash=4.17.21+dfsg+~cs8.31.198.20210220-9+deb12u1 node-express=4.18.2+~4.17.14-1
  node-yargs=16.2.0+~16.0.4-7 node-acorn=8.8.1+ds+~cs25.17.7-2 node-typescript=4.8.4+ds1-2
  node-moment=2.29.4+ds-1 node-babel7=7.20.15+ds1+~cs214.269.168-3+deb12u2
  node-jquery=3.6.1+dfsg+~3.5.14-1 node-underscore=1.13.4~dfsg+~1.11.4-3 node-commander=9.4.1-1
  node-uglify-js=3.17.4-2 node-terser=5.16.5-2 node-less=3.13.0+dfsg-11 node-ajv=6.12.6-3
  node-d3=5.16.0-10
)
# npm packages with JS/TS sources (fetched with `npm pack`, pinned, unpacked locally).
NPM=(ramda@0.32.0 luxon@3.7.2 fp-ts@2.16.11 immer@11.2.13 date-fns@4.4.0 mobx@7.1.3
     typeorm@1.1.1 @nestjs/common@12.5.1)
JAVA=(openjdk-17-source=17.0.21.1+2-1~deb12u1)
C=(glibc-source=2.36-9+deb12u14)

# Held out for evaluation (never trained on): one unit per language.
HELDOUT="python3-networkx,golang-github-prometheus-client-golang-dev,librust-itertools-dev,node-commander,node-acorn,node-terser,node-d3,node-yargs,node-less,node-moment,node-ajv,npm:luxon@3.7.2,openjdk-17-source:java.sql,glibc-source:elf"
# The quality benchmark's development corpora (never used here).
EXCLUDED="golang-1.19-src python3-requests python3-flask python3-click python3-django librust-regex-dev librust-regex-syntax-dev librust-clap-dev npm:zod npm:rxjs openjdk-17-source:java.base linux-source-6.1"

if [ "${QUICK:-}" = 1 ]; then
  PY=(python3-jinja2=3.1.2-1+deb12u3 python3-networkx=2.8.8-1); GO=(golang-github-spf13-cobra-dev=1.6.1-1)
  RS=(librust-itertools-dev=0.10.3-1 librust-bytes-dev=1.2.1-1); JS=(); NPM=(); JAVA=(); C=()
  HELDOUT="python3-networkx,librust-itertools-dev"
fi

ALL=("${PY[@]}" "${GO[@]}" "${RS[@]}" "${JS[@]}" "${JAVA[@]}" "${C[@]}")
names=()
for pv in "${ALL[@]}"; do
  n="${pv%%=*}"
  for x in $EXCLUDED; do
    [ "$n" = "$x" ] && { echo "make-model: $n is a development corpus of the quality benchmark; remove it" >&2; exit 1; }
  done
  names+=("$n")
done
echo "make-model: ensuring ${#names[@]} corpus packages" >&2
tools/apt-ensure "${names[@]}" unzip xz-utils

pkgs="$work/packages.tsv"; : > "$pkgs"
for pv in "${ALL[@]}"; do
  n="${pv%%=*}"; want="${pv#*=}"
  have="$(dpkg-query -W -f='${Version}' "$n")"
  [ "$have" = "$want" ] || echo "make-model: warning: $n is $have, pinned $want (the model will not be byte-identical)" >&2
  printf '%s\t%s\t%s\n' "$n" "$have" "training" >> "$pkgs"
done

list="$work/files.tsv"; : > "$list"
add_pkg() { # unit package regex
  dpkg -L "$2" | grep -E "$3" | grep -vE '(\.min\.js|/test_|_test\.go|/tests?/|/testdata/)' | LC_ALL=C sort -u \
    | while read -r f; do [ -f "$f" ] && printf '%s\t%s\n' "$1" "$f"; done >> "$list"
}
for pv in "${PY[@]}"; do n="${pv%%=*}"; add_pkg "$n" "$n" '\.py$'; done
for pv in "${GO[@]}"; do n="${pv%%=*}"; add_pkg "$n" "$n" '\.go$'; done
for pv in "${RS[@]}"; do n="${pv%%=*}"; add_pkg "$n" "$n" '\.rs$'; done
for pv in "${JS[@]}"; do n="${pv%%=*}"; add_pkg "$n" "$n" '\.(js|mjs|cjs|ts)$'; done
for nv in "${NPM[@]}"; do
  for x in $EXCLUDED; do [ "npm:${nv%@*}" = "$x" ] && { echo "make-model: npm ${nv%@*} is a development corpus" >&2; exit 1; }; done
  dir="$work/corpus/npm/${nv//\//_}"
  if [ ! -f "$dir/.done" ]; then
    rm -rf "$dir"; mkdir -p "$dir"
    tgz="$(cd "$dir" && npm pack --silent "$nv" 2>/dev/null | tail -1)"
    [ -n "$tgz" ] && [ -f "$dir/$tgz" ] || { echo "make-model: npm pack $nv failed" >&2; exit 1; }
    tar -xzf "$dir/$tgz" -C "$dir" && rm -f "$dir/$tgz" && touch "$dir/.done"
  fi
  find "$dir/package" -type f \( -name '*.js' -o -name '*.mjs' -o -name '*.cjs' -o -name '*.ts' \) \
    ! -name '*.min.js' ! -path '*/node_modules/*' | LC_ALL=C sort | sed "s|^|npm:$nv\t|" >> "$list"
  printf '%s\t%s\t%s\n' "npm:${nv%@*}" "${nv##*@}" "training" >> "$pkgs"
done
if [ ${#JAVA[@]} -gt 0 ]; then
  jdk="$work/corpus/jdk"
  if [ ! -f "$jdk/.done" ]; then
    rm -rf "$jdk"; mkdir -p "$jdk"
    # Every module but java.base (a development corpus of the quality benchmark).
    unzip -q /usr/lib/jvm/openjdk-17/lib/src.zip -x 'java.base/*' -d "$jdk"
    touch "$jdk/.done"
  fi
  for m in java.sql java.desktop java.xml java.net.http java.logging java.management \
           java.naming java.rmi java.prefs java.scripting jdk.compiler jdk.httpserver; do
    [ -d "$jdk/$m" ] || continue
    find "$jdk/$m" -name '*.java' | LC_ALL=C sort | sed "s|^|openjdk-17-source:$m\t|" >> "$list"
  done
fi
if [ ${#C[@]} -gt 0 ]; then
  gl="$work/corpus/glibc"
  if [ ! -f "$gl/.done" ]; then
    rm -rf "$gl"; mkdir -p "$gl"
    tar -xJf /usr/src/glibc/glibc-*.tar.xz -C "$gl" --strip-components=1
    touch "$gl/.done"
  fi
  for d in stdlib string malloc libio stdio-common posix io misc elf nss resolv time locale \
           iconv inet sunrpc nptl dirent grp pwd; do
    [ -d "$gl/$d" ] || continue
    find "$gl/$d" -maxdepth 1 -name '*.c' ! -name 'tst-*' ! -name 'test-*' | LC_ALL=C sort \
      | sed "s|^|glibc-source:$d\t|" >> "$list"
  done
fi
echo "make-model: $(wc -l < "$list") files" >&2

"$train" extract --list "$list" --heldout "$HELDOUT" --threads "${THREADS:-2}" \
  --out "$work/pairs.bin" --stats "$work/extract.json"
[ "${EXTRACT_ONLY:-}" = 1 ] && exit 0
extra=()
[ -n "${EPOCHS:-}" ] && extra+=(--epochs "$EPOCHS")
[ -n "${DIM:-}" ] && extra+=(--dim "$DIM")
[ "${QUICK:-}" = 1 ] && extra+=(--epochs 1 --vocab 5000 --buckets 1024)
"$train" train --pairs "$work/pairs.bin" --out "$out_dir/loupe-static-v1.bin" \
  --manifest "$out_dir/MANIFEST.json" --packages "$pkgs" --extract-stats "$work/extract.json" \
  --excluded "$EXCLUDED; held out for evaluation: $HELDOUT" \
  --extractor "lp_parse of src/lang${EXTRACTOR_NOTE:+ ($EXTRACTOR_NOTE)}" \
  --seed "${SEED:-1}" --threads "${THREADS:-2}" "${extra[@]}"
echo "make-model: wrote $out_dir/loupe-static-v1.bin and $out_dir/MANIFEST.json" >&2
