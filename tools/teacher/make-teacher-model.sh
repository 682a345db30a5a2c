#!/usr/bin/env bash
# make-teacher-model.sh LOUPE_TRAIN PYTHON: distill loupe's static token table from the pinned
# teacher (tools/teacher/distill.py), then fine-tune it on the code pairs (loupe-train train
# --init). Build time only; `make teacher-model` builds the venv and calls this.
#
#   1. the pairs of `make model` (build/model/pairs.bin; extracted here when missing, from the
#      same pinned packages, the quality benchmark's development corpora excluded);
#   2. loupe-train vocab: the training vocabulary with counts and source spellings, plus the
#      teacher's general-English words that it lacks (Zipf counts; for the tool catalog);
#   3. distill.py: the teacher on every token, PCA to DIM (1-2 BLAS threads);
#   4. loupe-train assemble: SIF weights from the counts, n-gram buckets from the rows;
#   5. loupe-train train --init: contrastive fine-tuning on the description/code pairs, with
#      evaluation on the held-out units -> OUT (default models/loupe-teacher-v1.bin) and its
#      manifest (OUT_MANIFEST, default models/MANIFEST-teacher.json).
#
# Environment: DIM (256), VOCAB (40000), EXTRA (1), THREADS (2), EPOCHS (2), LR (0.001), SEED (1),
# FINETUNE=0 (ship the distilled table without fine-tuning), OUT, OUT_MANIFEST.
set -euo pipefail
train="${1:?usage: make-teacher-model.sh path/to/loupe-train path/to/python}"
py="${2:?usage: make-teacher-model.sh path/to/loupe-train path/to/python}"
top="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$top"
work="build/model/teacher"
mkdir -p "$work"
DIM="${DIM:-256}"
VOCAB="${VOCAB:-40000}"
THREADS="${THREADS:-2}"
OUT="${OUT:-models/loupe-teacher-v1.bin}"
OUT_MANIFEST="${OUT_MANIFEST:-models/MANIFEST-teacher.json}"

if [ ! -f build/model/pairs.bin ]; then
  EXTRACT_ONLY=1 THREADS="$THREADS" tools/train/make-model.sh "$train"
fi
# The code vocabulary, then the teacher's general-English words not already in it (EXTRA=0: none).
extra=()
if [ "${EXTRA:-1}" != 0 ]; then
  "$py" tools/teacher/distill.py --teacher-words "$work/english.txt"
  extra=(--extra-words "$work/english.txt")
fi
"$train" vocab --pairs build/model/pairs.bin --out "$work/vocab.tsv" --vocab "$VOCAB" "${extra[@]}"
OPENBLAS_NUM_THREADS="$THREADS" OMP_NUM_THREADS="$THREADS" "$py" tools/teacher/distill.py \
  --vocab "$work/vocab.tsv" --dim "$DIM" --rows "$work/rows-$DIM.f32" \
  --report "$work/distill-$DIM.json" --cache "$work/teacher-out.npy"
distilled="$work/distilled-$DIM.bin"
"$train" assemble --vocab "$work/vocab.tsv" --rows "$work/rows-$DIM.f32" --dim "$DIM" \
  --out "$distilled"
if [ "${FINETUNE:-1}" = 0 ]; then
  cp "$distilled" "$OUT"
  "$train" eval --pairs build/model/pairs.bin --model "$OUT"
else
  "$train" train --init "$distilled" --pairs build/model/pairs.bin --out "$OUT" \
    --manifest "$work/train-manifest.json" --packages build/model/packages.tsv \
    --extract-stats build/model/extract.json \
    --excluded "see models/MANIFEST.json (the same pairs)" \
    --extractor "lp_parse of src/lang" --seed "${SEED:-1}" --threads "$THREADS" \
    --epochs "${EPOCHS:-2}" --lr "${LR:-0.001}"
fi
"$py" tools/teacher/manifest.py --distill "$work/distill-$DIM.json" --model "$OUT" \
  --train-manifest "$work/train-manifest.json" --finetune "${FINETUNE:-1}" --out "$OUT_MANIFEST"
echo "make-teacher-model: wrote $OUT and $OUT_MANIFEST" >&2
