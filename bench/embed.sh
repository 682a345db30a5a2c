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
  echo
  echo "Targets: index-time embedding >= 20,000 chunks/s per core; query embedding < 1 ms;"
  echo "dense scan of 200,000 vectors < 20 ms on one core."
  echo
  echo "## Quality of the shipped model (from models/MANIFEST.json, measured by make model)"
  echo
  python3 - <<'PY'
import json
m = json.load(open("models/MANIFEST.json"))
ev = m["evaluation"]
print(ev["method"] + ".")
print()
print("| language | candidates | MRR model | MRR BM25 | MRR fused (RRF) | R@1 model / BM25 / fused | R@10 model / BM25 / fused |")
print("|---|---|---|---|---|---|---|")
for r in ev["results"]:
    print("| %s | %d | %.3f | %.3f | %.3f | %.3f / %.3f / %.3f | %.3f / %.3f / %.3f |" % (
        r["language"], r["candidates"], r["mrr_model"], r["mrr_bm25"], r["mrr_fused_rrf"],
        r["recall1_model"], r["recall1_bm25"], r["recall1_fused_rrf"],
        r["recall10_model"], r["recall10_bm25"], r["recall10_fused_rrf"]))
t = m["training"]
print()
print("Training: %d pairs (%s), %.0f s on %d threads; model %s, %d bytes." % (
    t["train_pairs"], ", ".join("%s %d" % kv for kv in sorted(t["train_pairs_per_language"].items())),
    t["seconds"], t["threads"], m["model"]["identity"], m["model"]["bytes"]))
PY
} > "$out.tmp"
mv "$out.tmp" "$out"
cat "$out"
