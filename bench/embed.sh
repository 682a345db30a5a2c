#!/usr/bin/env bash
# bench/embed.sh: the dense channel's cost (embedding throughput, query latency, exact scan),
# written to bench/RESULTS-embed.md with the date and the machine. Never part of make test.
#
#   bench/embed.sh [SOURCE FILES...]   default: the Go and Python sources of a few packages
set -euo pipefail
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$top"
make -s build/embed-bench
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  mapfile -t files < <( { find /usr/lib/python3/dist-packages/jinja2 -name '*.py';
                          find src -name '*.c'; } 2>/dev/null | LC_ALL=C sort)
fi
out="bench/RESULTS-embed.md"
{
  echo "# Dense channel: cost"
  echo
  echo "Date: $(date -u +%Y-%m-%d). Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')."
  echo "Command: \`bench/embed.sh\` (build/embed-bench, median of 5 runs, one thread)."
  echo
  build/embed-bench --reps 5 "${files[@]}"
} > "$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
