#!/usr/bin/env python3
"""Write a synthetic catalog of N real-shaped tools and a query file, for the speed bench.

Tools are built from the real-shaped definitions in tests/fixtures/catalog (GitHub, Slack,
filesystem MCP servers; OpenAI, Anthropic, Gemini functions) and the MetaTool descriptions:
each of N/50 servers gets 50 tools whose name, description and schema come from a template
definition, renamed with a server prefix and a varied verb_noun name, with one MetaTool
description sentence appended so the vocabulary is as wide as a real catalog's.
Queries: MetaTool queries (long, conversational) and short agent-style requests.

Usage: bench/catalog/synth.py OUT_CATALOG OUT_QUERIES [--tools 10000] [--queries 2000]
"""
import argparse
import csv
import json
import os
import random

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "tests", "fixtures", "catalog")
DATA = os.environ.get("METATOOL_DATA", "/work/shared/data/metatool")

VERBS = "get list create update delete search find send fetch read write sync export import " \
        "archive approve assign close open merge move copy rename upload download schedule " \
        "cancel notify summarize translate convert analyze validate publish".split()
NOUNS = "issue user file message channel repo branch commit ticket invoice order customer " \
        "product event calendar email document folder note task project report dashboard " \
        "payment subscription record table query image video playlist contact lead deal " \
        "comment review label milestone release deployment secret webhook alert metric".split()


def templates():
    out = []
    for f in sorted(os.listdir(FIX)):
        if f == "semantic.json":  # a small test catalog added later: keep the synthetic one stable
            continue
        doc = json.load(open(os.path.join(FIX, f)))
        if isinstance(doc, dict):
            doc = doc.get("tools") or doc.get("result", {}).get("tools") or []
        for t in doc:
            if isinstance(t, dict) and "functionDeclarations" in t:
                out += [{"name": d["name"], "description": d["description"],
                         "inputSchema": d["parameters"]} for d in t["functionDeclarations"]]
            elif isinstance(t, dict) and t.get("type") == "function" and "function" in t:
                fn = t["function"]
                out.append({"name": fn["name"], "description": fn["description"],
                            "inputSchema": fn["parameters"]})
            elif isinstance(t, dict) and "name" in t:
                t = dict(t)
                if "input_schema" in t:
                    t["inputSchema"] = t.pop("input_schema")
                if "parameters" in t:
                    t["inputSchema"] = t.pop("parameters")
                t.setdefault("description", "")
                t.setdefault("inputSchema", {"type": "object"})
                out.append(t)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("catalog")
    ap.add_argument("queries")
    ap.add_argument("--tools", type=int, default=10000)
    ap.add_argument("--queries-count", type=int, default=2000)
    args = ap.parse_args()
    rnd = random.Random(42)
    tpl = templates()
    sentences = list(json.load(open(os.path.join(DATA, "plugin_des.json"))).values())
    servers = [f"{rnd.choice(NOUNS)}{i}" for i in range((args.tools + 49) // 50)]
    tools = []
    for i in range(args.tools):
        t = json.loads(json.dumps(tpl[i % len(tpl)]))
        server = servers[i // 50]
        name = f"{rnd.choice(VERBS)}_{rnd.choice(NOUNS)}_{i % 50}"
        t["name"] = f"{server}__{name}"
        t["description"] = (t.get("description") or "") + " " + rnd.choice(sentences)
        if "title" in t:
            t["title"] = name.replace("_", " ").capitalize()
        tools.append(t)
    with open(args.catalog, "w") as f:
        json.dump({"tools": tools}, f, indent=2)
    rows = list(csv.DictReader(open(os.path.join(DATA, "all_clean_data.csv"), newline="")))
    qs = [" ".join(r["Query"].split()) for r in rnd.sample(rows, args.queries_count // 2)]
    qs += [f"{rnd.choice(VERBS)} {rnd.choice(NOUNS)}" + (f" in {rnd.choice(servers)}" if k % 3 == 0 else "")
           for k in range(args.queries_count - len(qs))]
    rnd.shuffle(qs)
    with open(args.queries, "w") as f:
        f.write("\n".join(qs) + "\n")
    print(f"{len(tools)} tools, {os.path.getsize(args.catalog)} bytes; {len(qs)} queries")


if __name__ == "__main__":
    main()
