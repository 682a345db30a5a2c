#!/usr/bin/env bash
# Tool-catalog benchmarks (never part of make test): quality on MetaTool, speed on a
# synthetic 10,000-tool catalog, token-estimate accuracy. Prints markdown tables; the
# committed results live in bench/RESULTS-catalog.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
make --no-print-directory build/loupe >/dev/null
echo "# $(date -u +%Y-%m-%d), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "## Quality (MetaTool)"
python3 bench/catalog/metatool.py --split dev --split test --split heldout
echo
echo "### With example requests from the dev split (report on test only)"
python3 bench/catalog/metatool.py --catalog examples --split test
echo
echo "## Speed (synthetic catalog)"
python3 bench/catalog/speed.py "$@"
echo
echo "## Token estimate"
python3 bench/catalog/tokens.py
