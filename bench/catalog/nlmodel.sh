#!/usr/bin/env bash
# EXPERIMENT (not shipped, never in make test): train a general-English static model from
# WordNet and Debian package descriptions with loupe-train, and measure the catalog's dense
# channel with it on MetaTool (LOUPE_EMBED_MODEL points loupe at the file). About 4 minutes on
# 2 cores. Results: bench/RESULTS-catalog.md, "What was tried".
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/apt-ensure wordnet-base
make --no-print-directory build/loupe build/loupe-train >/dev/null
W=bench/work/nlmodel
mkdir -p $W
python3 bench/catalog/nl_pairs.py $W/english.pairs wordnet debian
build/loupe-train train --pairs $W/english.pairs --out $W/english.bin --no-eval --threads 2
echo "## shipped code model (default parameters)"
python3 bench/catalog/metatool.py --catalog des --split dev --split test --split heldout
echo "## English model, default parameters"
LOUPE_EMBED_MODEL=$W/english.bin python3 bench/catalog/metatool.py --catalog des \
    --split dev --split test --split heldout
echo "## English model, fusion tuned on dev (dense=1, dense_min=0.15)"
LOUPE_EMBED_MODEL=$W/english.bin python3 bench/catalog/metatool.py --catalog des \
    --split dev --split test --split heldout --param dense=1 --param dense_min=0.15
