#!/usr/bin/env python3
"""manifest.py: models/MANIFEST-teacher.json from the distillation report, the model file and
the fine-tuning manifest of loupe-train (build time only, standard library)."""
import argparse
import json
import os


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--distill", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--train-manifest")
    ap.add_argument("--finetune", default="1")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    d = json.load(open(a.distill))
    man = {
        "teacher": {
            "model": d["teacher"],
            "revision": d["teacher_revision"],
            "wheel": d["teacher_wheel"],
            "licence": "Apache-2.0 (model card: license: apache-2.0); the wheel's packaging: MIT",
            "files_sha256_checked_against_card_revision": d["files_sha256_checked"],
            "training_data_of_the_teacher": "per its model card: 1B sentence pairs (S2ORC, "
            "StackExchange, MS MARCO, GooAQ, Yahoo Answers, CodeSearchNet, SearchQA, ELI5, SNLI, "
            "MultiNLI, WikiHow, Natural Questions, TriviaQA, sentence-compression, Flickr30k, "
            "AltLex, Simple Wiki, QQP, SPECTER, PAQ, WikiAnswers)",
        },
        "distillation": {
            "method": "Model2Vec/Potion: the teacher's pooled output for each vocabulary token "
            "(its most frequent source spelling, identifiers split into words), PCA, SIF "
            "weights a/(a+p) from the token counts of the training corpus; n-gram buckets = "
            "mean row of the vocabulary tokens holding the n-gram",
            "vocab": d["vocab"],
            "corpus_tokens": d["corpus_tokens"],
            "pca_dim": d["pca_dim"],
            "pca_variance_kept": d["pca_variance_kept"],
            "teacher_seconds": d["teacher_seconds"],
            "threads": d["threads"],
        },
        "model": {
            "file": a.model,
            "bytes": os.path.getsize(a.model),
        },
        "fine_tuned": a.finetune != "0",
    }
    if a.train_manifest and a.finetune != "0" and os.path.exists(a.train_manifest):
        t = json.load(open(a.train_manifest))
        man["model"].update({k: v for k, v in t["model"].items() if k != "file"})
        for k in ("hyperparameters", "training", "evaluation", "extraction", "packages",
                  "excluded_dev_corpora", "extractor"):
            if k in t:
                man[k] = t[k]
    base = os.path.join(os.path.dirname(os.path.abspath(a.out)), "MANIFEST.json")
    if "excluded_dev_corpora" not in man and os.path.exists(base):
        man["excluded_dev_corpora"] = json.load(open(base)).get("excluded_dev_corpora")
    man["pairs"] = ("the description/code pairs of `make model` (tools/train/make-model.sh): "
                    "the same pinned packages and exclusions as models/MANIFEST.json")
    with open(a.out, "w") as f:
        json.dump(man, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
