#!/usr/bin/env python3
"""Training pairs of general English for an EXPERIMENTAL natural-language static model (not
shipped; see bench/RESULTS-catalog.md, "What was tried"), in loupe-train's LPPAIRS1 format:

  wordnet  WordNet 3.0 (Debian wordnet-base): each synset's gloss (plus its first example)
           <-> its lemmas, its hypernyms' lemmas (two levels) and a few related lemmas
           (derivations, similar adjectives, pertainyms, attributes);
  debian   every package of the local apt lists (`apt-cache dumpavail`): its short
           description <-> its name parts, section and topical debtags.

Usage: bench/catalog/nl_pairs.py OUT.pairs [wordnet] [debian]
"""
import re
import struct
import subprocess
import sys

WN = "/usr/share/wordnet"


def wordnet_pairs():
    syn = {}
    for pos in ("noun", "verb", "adj", "adv"):
        for line in open(f"{WN}/data.{pos}", encoding="latin-1"):
            if line.startswith("  "):
                continue
            head, _, gloss = line.partition(" | ")
            f = head.split()
            w = int(f[3], 16)
            words = [re.sub(r"\(.*\)$", "", f[4 + 2 * i]).replace("_", " ") for i in range(w)]
            k = 4 + 2 * w
            ptrs = []
            for _ in range(int(f[k])):
                ptrs.append((f[k + 1], f[k + 2] + f[k + 3].replace("s", "a")))
                k += 4
            syn[f[0] + f[2].replace("s", "a")] = (words, ptrs, gloss.strip())
    out = []
    for words, ptrs, gloss in syn.values():
        desc = gloss.split(";")[0].strip().strip('"')
        ex = re.findall(r'"([^"]+)"', gloss)
        if ex:
            desc += "; " + ex[0]
        code = list(words)
        for sym, o in ptrs:
            if sym in ("@", "@i"):
                code += syn.get(o, ([],))[0]
                for s2, o2 in syn.get(o, ([], [], ""))[1]:
                    if s2 in ("@", "@i"):
                        code += syn.get(o2, ([],))[0]
            elif sym in ("+", "&", "\\", "=", "^"):
                code += syn.get(o, ([],))[0][:3]
        out.append((desc, ", ".join(dict.fromkeys(code))))
    return out


SKIP_TAGS = ("role::", "implemented-in::", "interface::", "uitoolkit::", "suite::", "x11::",
             "made-of::", "devel::lang", "special::")


def debian_pairs():
    dump = subprocess.run(["apt-cache", "dumpavail"], capture_output=True, text=True,
                          errors="replace", check=True).stdout
    out = []
    for para in dump.split("\n\n"):
        cur, last = {}, None
        for line in para.splitlines():
            m = re.match(r"^([A-Za-z-]+): (.*)$", line)
            if m:
                last = m.group(1)
                cur[last] = m.group(2)
            elif line.startswith(" ") and last == "Tag":
                cur["Tag"] += " " + line.strip()
        if "Package" not in cur or "Description" not in cur:
            continue
        if re.search(r"\b(debug symbols|development files|documentation for|transitional)\b",
                     cur["Description"], re.I):
            continue
        tags = " ".join(t.split("::")[-1].replace("-", " ")
                        for t in re.split(r",\s*", cur.get("Tag", ""))
                        if "::" in t and not t.startswith(SKIP_TAGS))
        name = re.sub(r"[-+.]", " ", cur["Package"])
        out.append((cur["Description"], f"{name} {cur.get('Section', '').split('/')[-1]} {tags}"))
    return out


def main():
    path, kinds = sys.argv[1], sys.argv[2:] or ["wordnet", "debian"]
    pairs = []
    if "wordnet" in kinds:
        pairs += wordnet_pairs()
    if "debian" in kinds:
        pairs += debian_pairs()
    out = bytearray(b"LPPAIRS1") + struct.pack("<I", 1) + struct.pack("<I", 7) + b"english"
    out += struct.pack("<I", len(pairs))
    for d, c in pairs:
        db, cb = d.encode()[:480], c.encode()[:3000]
        # lang (one group), heldout flag, unit, then the two length-prefixed texts
        out += bytes([1, 0]) + struct.pack("<II", 0, len(db)) + db + struct.pack("<I", len(cb)) + cb
    open(path, "wb").write(out)
    print(f"{path}: {len(pairs)} pairs ({', '.join(kinds)})", file=sys.stderr)


if __name__ == "__main__":
    main()
