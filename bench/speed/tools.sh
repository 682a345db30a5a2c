#!/usr/bin/env bash
# bench/speed/tools.sh: install the reference tools of bench/speed (never part of make test).
#   ripgrep, universal-ctags, codesearch (cindex/csearch, a trigram index) and linux-perf from
#   Debian through tools/apt-ensure; zoekt (Sourcegraph's trigram code search) as a Go module
#   pinned by version into bench/work/gobin, when the Go module proxy serves it.
# Prints one line per tool: "tool: ready PATH" or "tool: unavailable REASON". Exits 0 either
# way: the benchmark reports an unavailable tool as such instead of failing.
#
# ZOEKT_VERSION overrides the pin. The pin below is a pseudo-version that public go.mod files
# use; on 2026-12-02 the proxy reachable here answered 403 "This module version is not
# available" for it, for the module's version list, and for github.com/google/zoekt.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
ZOEKT_VERSION=${ZOEKT_VERSION:-v0.0.0-20260724095353-2b2ce2e398e6}
gobin="$root/bench/work/gobin"

"$root/tools/apt-ensure" ripgrep universal-ctags codesearch linux-perf || true
for t in rg ctags cindex csearch perf; do
    if command -v "$t" >/dev/null; then echo "$t: ready $(command -v "$t")"; else
        echo "$t: unavailable (apt-ensure failed)"; fi
done

if [ -x "$gobin/zoekt-index" ] && [ -x "$gobin/zoekt" ] \
   && [ "$(cat "$gobin/.version" 2>/dev/null)" = "$ZOEKT_VERSION" ]; then
    echo "zoekt: ready $gobin/zoekt ($ZOEKT_VERSION)"
    exit 0
fi
if ! command -v go >/dev/null; then
    echo "zoekt: unavailable (no go command)"
    exit 0
fi
mkdir -p "$gobin"
log="$gobin/install.log"
ok=1
for cmd in zoekt-index zoekt; do
    # A module-aware install outside any module: the version pins the whole build list.
    if ! (cd "$gobin" && GOBIN="$gobin" GOFLAGS=-mod=mod \
          go install "github.com/sourcegraph/zoekt/cmd/$cmd@$ZOEKT_VERSION") >"$log" 2>&1; then
        ok=0
        break
    fi
done
if [ $ok = 1 ]; then
    echo "$ZOEKT_VERSION" >"$gobin/.version"
    echo "zoekt: ready $gobin/zoekt ($ZOEKT_VERSION)"
else
    echo "zoekt: unavailable (go install github.com/sourcegraph/zoekt@$ZOEKT_VERSION failed: $(grep -o -m1 -E '[0-9]{3} Forbidden|not found|unknown revision' "$log" || tail -1 "$log"), $(tail -1 "$log" | sed 's/^[[:space:]]*//' | cut -c1-120); see $log)"
fi
exit 0
