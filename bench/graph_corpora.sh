#!/usr/bin/env bash
# graph_corpora.sh: fetch the code-graph precision corpora of the four languages that
# bench/quality/corpora.sh does not cover (JavaScript, C++, C#, Scala), pinned, into
# $LOUPE_CORPORA (default bench/corpora/<name>/), for bench/graph_sample.py.
#
# Debian *source* packages are fetched with `apt-get source --download-only` through a
# private apt state (a deb-src line for bookworm main in $cache/apt, its own lists), so the
# system's apt configuration is neither needed nor changed. npm packages via `npm pack`.
#
#   bench/graph_corpora.sh            fetch every corpus
#   bench/graph_corpora.sh NAME...    fetch only these
#   bench/graph_corpora.sh --list     print name, registry, package, version, subtree
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
top="$(cd "$here/.." && pwd)"
dest="${LOUPE_CORPORA:-$top/bench/corpora}"
cache="$dest/.cache"
stamps="$dest/.stamps"

# name | registry | package | version | subtree inside the unpacked package | dropped
CORPORA=(
  "js-lodash|npm|lodash|4.17.21|package|lodash.min.js core.min.js"
  "cpp-leveldb|debian-src|leveldb|1.23-4|leveldb-1.23|third_party"
  "cs-keepass|debian-src|keepass2|2.47+dfsg-2|.|"
  "scala-library|debian-src|scala|2.11.12-5|scala-2.11.12/src/library|"
)

die() { echo "graph_corpora.sh: $*" >&2; exit 1; }
field() { echo "$1" | cut -d'|' -f"$2"; }

# apt-get with a private source list and state: deb-src of bookworm main only.
apt_src() {
  local a="$cache/apt"
  if [ ! -f "$a/sources.list" ]; then
    mkdir -p "$a/lists/partial"
    echo "deb-src http://deb.debian.org/debian bookworm main" >"$a/sources.list"
  fi
  apt-get -o Dir::Etc::sourcelist="$a/sources.list" -o Dir::Etc::sourceparts=- \
    -o Dir::State::Lists="$a/lists" -o Debug::NoLocking=1 "$@"
}

# Download a Debian source package at an exact version; print its upstream tarball.
src_fetch() {
  local pkg="$1" ver="$2" up f
  up="${ver%-*}"
  up="${up#*:}"
  f="$(ls "$cache"/"${pkg}"_"${up}".orig.tar.* 2>/dev/null | head -1 || true)"
  if [ -z "$f" ]; then
    ls "$cache/apt/lists/"*Sources* >/dev/null 2>&1 || apt_src update >/dev/null 2>&1 ||
      die "apt-get update of the private deb-src list failed (is deb.debian.org reachable?)"
    (cd "$cache" && apt_src source --download-only "$pkg=$ver" >/dev/null 2>"$cache/apt.err") || {
      cat "$cache/apt.err" >&2
      die "Debian source package $pkg $ver cannot be downloaded (if the archive dropped" \
          "that version, pick one from 'apt-cache showsrc $pkg', update the pin here and" \
          "sample again)"
    }
    f="$(ls "$cache"/"${pkg}"_"${up}".orig.tar.* | head -1)"
  fi
  echo "$f"
}

fetch_one() {
  local spec="$1" name reg pkg ver sub drop tmp tgz
  name="$(field "$spec" 1)"; reg="$(field "$spec" 2)"; pkg="$(field "$spec" 3)"
  ver="$(field "$spec" 4)"; sub="$(field "$spec" 5)"; drop="$(field "$spec" 6)"
  if [ -f "$stamps/$name" ] && [ "$(cat "$stamps/$name")" = "$spec" ] && [ -d "$dest/$name" ]; then
    echo "$name: present ($pkg $ver)"
    return 0
  fi
  echo "$name: fetching $reg $pkg $ver"
  tmp="$(mktemp -d "$dest/.tmp.$name.XXXXXX")"
  mkdir "$tmp/x"
  case "$reg" in
    npm)
      tgz="$cache/$pkg-$ver.tgz"
      if [ ! -f "$tgz" ]; then
        (cd "$tmp" && npm pack --silent "$pkg@$ver" >/dev/null) ||
          die "npm package $pkg@$ver cannot be fetched (check 'npm view $pkg versions')"
        mv "$tmp/$pkg-$ver.tgz" "$tgz"
      fi
      tar -xzf "$tgz" -C "$tmp/x" ;;
    debian-src)
      tar -xf "$(src_fetch "$pkg" "$ver")" -C "$tmp/x" ;;
    *) die "no recipe for registry $reg" ;;
  esac
  if [ "$sub" = . ]; then mv "$tmp/x" "$tmp/root"; else mv "$tmp/x/$sub" "$tmp/root"; fi
  if [ -n "$drop" ]; then
    for d in $drop; do rm -rf "${tmp:?}/root/$d"; done
  fi
  rm -rf "${dest:?}/$name"
  mv "$tmp/root" "$dest/$name"
  rm -rf "$tmp"
  echo "$spec" >"$stamps/$name"
  echo "$name: ready in $dest/$name"
}

if [ "${1:-}" = "--list" ]; then
  printf '%s\n' "${CORPORA[@]}"
  exit 0
fi

mkdir -p "$cache" "$stamps"
want=("$@")
for w in "${want[@]}"; do
  printf '%s\n' "${CORPORA[@]}" | cut -d'|' -f1 | grep -qx "$w" ||
    die "unknown corpus '$w' (known: $(printf '%s\n' "${CORPORA[@]}" | cut -d'|' -f1 | tr '\n' ' '))"
done
for spec in "${CORPORA[@]}"; do
  name="$(field "$spec" 1)"
  if [ ${#want[@]} -gt 0 ]; then
    hit=0
    for w in "${want[@]}"; do [ "$w" = "$name" ] && hit=1; done
    [ $hit = 1 ] || continue
  fi
  fetch_one "$spec"
done
