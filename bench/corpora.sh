#!/usr/bin/env bash
# bench/corpora.sh: fetch the benchmark corpora at pinned versions into bench/corpora/.
#   small   py-click   ~10k lines   (Debian python3-click 8.1.3-2, via bench/quality)
#   medium  go-std     ~1M lines    (Debian golang-1.19-src 1.19.8-2 without cmd/)
#   large   linux      ~30M lines   (Debian linux-source-6.1 6.1.192-3, the whole tree)
# plus the rest of the quality corpora. Idempotent. --quick skips the kernel.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
"$here/quality/corpora.sh"
[ "${1:-}" = "--quick" ] && exit 0
dest="$here/corpora/linux"
if [ ! -f "$dest/.complete" ]; then
    "$root/tools/apt-ensure" linux-source-6.1 xz-utils
    ver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
    [ "$ver" = "6.1.192-3" ] || echo "corpora.sh: note: linux-source-6.1 is $ver, results are for 6.1.192-3" >&2
    rm -rf "$dest" && mkdir -p "$dest"
    echo "linux: unpacking /usr/src/linux-source-6.1.tar.xz ..." >&2
    tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$dest" --strip-components=1
    touch "$dest/.complete"
fi
echo "linux: ready in $dest" >&2
