#!/usr/bin/env python3
"""Multi-tool requests: does one search return every tool a request needs?

Two query sets over MetaTool's des catalog (the catalog bench/catalog/metatool.py writes):
  metatool  MetaTool's own multi-tool queries (multi_tool_query_golden.json: 497 requests,
            two tools each), all of them (none was read while tuning);
  synthetic requests made here by joining two or three single-tool queries of the TEST
            split (bench/catalog/metatool.py's split; different tools, pairs chosen by the
            SHA-1 of the queries, so the set is fixed) with the joints people write
            ("A and B", "A, then B", "A. Also, B", "A as well as B", three: "A, B and also C").

Metrics, per request: comp@k = every needed tool is in the top k (complete-set coverage);
recall@5 = the share of the needed tools in the top 5. k = 5 is the search's default budget
(max_tools 5); comp@n is at k = the number of tools needed (2 or 3).

Usage: bench/catalog/multi.py [--system NAME=BINARY[:k=v,k=v]]... (default: build/loupe, as
shipped). Prints one markdown table.
"""
import argparse
import hashlib
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import metatool  # noqa: E402

JOINTS2 = ["{a} and {b}", "{a}, then {b}", "{a}. Also, {b}", "{a} as well as {b}",
           "{a}; {b}"]
JOINTS3 = ["{a}, {b} and also {c}", "{a}. Then {b}. Also {c}"]


def clause(q, first):
    q = q.strip()
    if not first:
        q = q.rstrip(".?! ")
    else:
        q = q.rstrip(".?! ")
    if not first and q[:2] not in ("I ", "I'") and q:
        q = q[0].lower() + q[1:]
    return q


def synthetic(rows, n2=1500, n3=500):
    test = [(q, t) for q, t in rows if "test" in metatool.split_of(q, t)]
    test.sort(key=lambda r: hashlib.sha1(r[0].encode()).hexdigest())
    out = []
    i = 0
    while len(out) < n2 and i + 1 < len(test):
        (a, ta), (b, tb) = test[i], test[i + 1]
        i += 2
        if ta == tb:
            continue
        j = JOINTS2[len(out) % len(JOINTS2)]
        out.append((j.format(a=clause(a, True), b=clause(b, False)), [ta, tb]))
    k = 0
    while k < n3 and i + 2 < len(test):
        (a, ta), (b, tb), (c, tc) = test[i], test[i + 1], test[i + 2]
        i += 3
        if len({ta, tb, tc}) < 3:
            continue
        j = JOINTS3[k % len(JOINTS3)]
        out.append((j.format(a=clause(a, True), b=clause(b, False), c=clause(c, False)),
                    [ta, tb, tc]))
        k += 1
    return out


def golden(names):
    path = os.path.join(metatool.DATA, "multi_tool_query_golden.json")
    if not os.path.exists(path):
        return []
    out = []
    for r in json.load(open(path)):
        tools = [t for t in r["tool"] if t in names]
        if len(tools) == len(r["tool"]) and len(set(tools)) > 1:
            out.append((" ".join(r["query"].split()), tools))
    return out


def scores(ranked, sets):
    n = max(len(sets), 1)
    c5 = sum(all(t in r[:5] for t in g) for r, g in zip(ranked, sets)) / n
    c3 = sum(all(t in r[:3] for t in g) for r, g in zip(ranked, sets)) / n
    cn = sum(all(t in r[:len(g)] for t in g) for r, g in zip(ranked, sets)) / n
    rec = sum(sum(t in r[:5] for t in g) / len(g) for r, g in zip(ranked, sets)) / n
    return cn, c3, c5, rec


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loupe", default=os.path.join(metatool.ROOT, "build", "loupe"))
    ap.add_argument("--system", action="append", default=[])
    args = ap.parse_args()
    des, info, rows = metatool.load()
    cat = metatool.catalogs(des, info, rows)["des"]
    work = os.path.join(metatool.ROOT, "bench", "work", "catalog")
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "metatool_des.json")
    with open(path, "w") as f:
        json.dump(cat, f, indent=1)
    sets = {"metatool": golden(set(des)), "synthetic": synthetic(rows)}
    systems = []
    for spec in args.system or ["loupe="]:
        name, _, rest = spec.partition("=")
        binary, _, params = rest.partition(":")
        systems.append((name, binary or args.loupe, [p for p in params.split(",") if p]))
    docs = [metatool.split_name(t["name"]) + metatool.words(t["description"])
            for t in cat["tools"]]
    bm = metatool.BM25(docs)
    names = list(des)
    print("| set | system | requests | comp@n | comp@3 | comp@5 | recall@5 |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for sname, data in sets.items():
        if not data:
            print(f"| {sname} | (no data) | 0 | | | | |")
            continue
        qs = [q for q, _ in data]
        gold = [g for _, g in data]
        rb = [bm.rank(metatool.words(q), names) for q in qs]
        print(f"| {sname} | plain BM25 | {len(qs)} | "
              + " | ".join(f"{x:.3f}" for x in scores(rb, gold)) + " |")
        for name, binary, params in systems:
            rk, _ = metatool.run_loupe(binary, path, qs, params)
            print(f"| {sname} | loupe {name} | {len(qs)} | "
                  + " | ".join(f"{x:.3f}" for x in scores(rk, gold)) + " |")


if __name__ == "__main__":
    main()
