#!/usr/bin/env bash
# corpora.sh: fetch the retrieval-quality corpora into bench/corpora/<name>/, pinned.
#
# Every corpus comes from a package registry reachable here (Debian via apt-get download,
# npm via npm pack), at an exact version, and is unpacked without installing anything
# system-wide. Re-running is cheap: a corpus whose stamp matches its pin is left alone.
# The gold lines in bench/quality/tasks/<name>.jsonl are only valid for these versions.
#
#   bench/quality/corpora.sh            fetch every corpus
#   bench/quality/corpora.sh NAME...    fetch only these
#   bench/quality/corpora.sh --list     print name, registry, package, version, subtree
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
top="$(cd "$here/../.." && pwd)"
dest="${LOUPE_CORPORA:-$top/bench/corpora}"
cache="$dest/.cache"
stamps="$dest/.stamps"

# name | registry | package | version | subtree inside the package | what is dropped
CORPORA=(
  "py-click|debian|python3-click|8.1.3-2|usr/lib/python3/dist-packages/click|"
  "ts-rxjs|npm|rxjs|7.8.2|package/src|"
  "rust-regex|debian|librust-regex-dev+librust-regex-syntax-dev|1.7.1-1+0.6.27-1|usr/share/cargo/registry|"
  "c-linux-lib|debian|linux-source-6.1|6.1.192-3|linux-source-6.1/lib|"
  "java-util|debian|openjdk-17-source|17.0.21.1+2-1~deb12u1|java.base/java/util|"
  "go-std|debian|golang-1.19-src|1.19.8-2|usr/share/go-1.19/src|cmd"
)

die() { echo "corpora.sh: $*" >&2; exit 1; }

field() { echo "$1" | cut -d'|' -f"$2"; }

# Download one Debian package at an exact version into the cache (once).
deb_fetch() {
  local pkg="$1" ver="$2" f
  f="$(ls "$cache"/"${pkg}"_"${ver//:/%3a}"_*.deb 2>/dev/null | head -1 || true)"
  if [ -z "$f" ]; then
    (cd "$cache" && apt-get download "$pkg=$ver" >/dev/null 2>"$cache/apt.err") || {
      cat "$cache/apt.err" >&2
      die "Debian package $pkg version $ver cannot be downloaded (run 'apt-get update' first;" \
          "if the archive dropped that version, pick one from 'apt-cache policy $pkg'," \
          "update the pin here and re-verify every gold line in bench/quality/tasks/)"
    }
    f="$(ls "$cache"/"${pkg}"_"${ver//:/%3a}"_*.deb | head -1)"
  fi
  echo "$f"
}

fetch_one() {
  local spec="$1" name reg pkg ver sub drop tmp
  name="$(field "$spec" 1)"; reg="$(field "$spec" 2)"; pkg="$(field "$spec" 3)"
  ver="$(field "$spec" 4)"; sub="$(field "$spec" 5)"; drop="$(field "$spec" 6)"
  if [ -f "$stamps/$name" ] && [ "$(cat "$stamps/$name")" = "$spec" ] && [ -d "$dest/$name" ]; then
    echo "$name: present ($pkg $ver)"
    return 0
  fi
  echo "$name: fetching $reg $pkg $ver"
  tmp="$(mktemp -d "$dest/.tmp.$name.XXXXXX")"
  case "$name" in
    py-click|go-std)
      dpkg-deb -x "$(deb_fetch "$pkg" "$ver")" "$tmp/x"
      mv "$tmp/x/$sub" "$tmp/root" ;;
    rust-regex)
      # Two crates from two packages: regex and the parser crate it is built on.
      dpkg-deb -x "$(deb_fetch librust-regex-dev 1.7.1-1)" "$tmp/x"
      dpkg-deb -x "$(deb_fetch librust-regex-syntax-dev 0.6.27-1)" "$tmp/x"
      mkdir "$tmp/root"
      mv "$tmp/x/$sub/regex-1.7.1" "$tmp/x/$sub/regex-syntax-0.6.27" "$tmp/root/" ;;
    c-linux-lib)
      dpkg-deb -x "$(deb_fetch "$pkg" "$ver")" "$tmp/x"
      tar -xJf "$tmp/x/usr/src/linux-source-6.1.tar.xz" -C "$tmp" "$sub"
      mv "$tmp/$sub" "$tmp/root" ;;
    java-util)
      dpkg-deb -x "$(deb_fetch "$pkg" "$ver")" "$tmp/x"
      (cd "$tmp" && unzip -q x/usr/lib/jvm/openjdk-17/lib/src.zip "$sub/*")
      mv "$tmp/$sub" "$tmp/root" ;;
    ts-rxjs)
      local tgz="$cache/$pkg-$ver.tgz"
      if [ ! -f "$tgz" ]; then
        (cd "$tmp" && npm pack --silent "$pkg@$ver" >/dev/null) ||
          die "npm package $pkg@$ver cannot be fetched (check 'npm view $pkg versions')"
        mv "$tmp/$pkg-$ver.tgz" "$tgz"
      fi
      tar -xzf "$tgz" -C "$tmp"
      mv "$tmp/$sub" "$tmp/root" ;;
    *) die "no recipe for corpus $name" ;;
  esac
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

command -v dpkg-deb >/dev/null || die "dpkg-deb is missing (this script needs a Debian system)"
mkdir -p "$cache" "$stamps"
want=("$@")
if [ ${#want[@]} -gt 0 ]; then
  for w in "${want[@]}"; do
    printf '%s\n' "${CORPORA[@]}" | cut -d'|' -f1 | grep -qx "$w" ||
      die "unknown corpus '$w' (known: $(printf '%s\n' "${CORPORA[@]}" | cut -d'|' -f1 | tr '\n' ' '))"
  done
fi
for spec in "${CORPORA[@]}"; do
  name="$(field "$spec" 1)"
  if [ ${#want[@]} -gt 0 ]; then
    hit=0
    for w in "${want[@]}"; do [ "$w" = "$name" ] && hit=1; done
    [ $hit = 1 ] || continue
  fi
  fetch_one "$spec"
done
