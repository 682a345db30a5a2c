#!/usr/bin/env python3
"""MetaTool tool-selection quality: loupe's tool-catalog search against plain BM25.

Data: /work/shared/data/metatool (MIT; see its README): 199 tools, ~20,600 queries with one
correct tool each. The bench writes two catalogs in the MCP tools/list shape:
  des   name + the one-line description of plugin_des.json (what the baseline sees);
  rich  the same plus, where plugin_info.json has the tool, its human name as MCP "title"
        and its description_for_model appended to the description;
  examples  (only with --catalog examples) des plus up to 32 example requests per tool in
        _meta.aliases, taken from the DEV split only: what a catalog that ships example
        requests gets. Report it on the test split (the examples are dev queries).
Each query is run through `loupe tools bench` (one process, all queries) in five
configurations, and through a plain BM25 over name + description implemented here (lowercase
alphanumeric tokens, the name also split on case and '_', English stopwords, k1=1.2,
b=0.75), on the same catalog text:
  loupe lexical  BM25F with expansions only (--param dense=0 --param words=0);
  loupe dense    the static-embedding (code model) channel only (every tool ranked);
  loupe words    the general-English word-vector channel only (every tool ranked);
  loupe fused without words  lexical + dense, the default before the word channel
                 (--param words=0 --param lexical_floor=0);
  loupe fused    the default: all channels fused (what `loupe tools` and search_tools do).

Splits (fixed, deterministic):
  dev      queries whose sha1 starts with an even hex digit (~50%): used for tuning;
  test     the other queries (never looked at while tuning);
  heldout  queries of tools that were never inspected while tuning (no query, failure or
           description of theirs was read): a tool-disjoint check that synonyms and weights
           were not fitted to particular tools.

Usage: bench/catalog/metatool.py [--loupe build/loupe] [--param k=v]... [--split dev]
Prints one markdown table (top-1, top-5, MRR@10 per split and system).
"""
import argparse
import csv
import hashlib
import json
import math
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter

DATA = os.environ.get("METATOOL_DATA", "/work/shared/data/metatool")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Tools whose queries, failures or descriptions were read while the ranking was tuned:
# the 46 MetaTool "merged" tools (no plugin_info entry; their descriptions were read) and
# the tools of a first failure analysis. The held-out split excludes all of them.
INSPECTED = {
    "FinanceTool", "ExchangeTool", "NewsTool", "PolishTool", "CharityTool", "MapTool",
    "CourseTool", "DataRetrievalTool", "StrologyTool", "NotesTool", "MemoryTool", "LawTool",
    "ChartTool", "EarthquakeTool", "NASATool", "CompanyInfoTool", "ResumeTool", "MemeTool",
    "GiftTool", "PDF&URLTool", "VideoSummarizeTool", "MediaModifyTool", "DietTool",
    "WebsiteTool", "URLTool", "TripTool", "TripAdviceTool", "BookTool", "MediaTool",
    "PodcastTool", "MusicTool", "GameTool", "WeatherTool", "RestaurantBookingTool",
    "HouseRentingTool", "HousePurchasingTool", "JobTool", "RepoTool", "ResearchFinder",
    "ResearchHelper", "SEOTool", "ProductSearch", "Discount", "Review", "ProductComparison",
    "ShoppingAssistant", "ResearchHelper", "airqualityforeast", "timeport", "copilot", "tira",
    "calculator", "copywriter", "total_query_meta_search_engine", "Now", "search",
    "SummarizeAnything_pr", "ChatOCR", "stellarexplorer", "Broadway", "vio_com",
    "Singapore_Places_Of_Interest", "deepmemory", "Horoscopes_by_Inner_Self",
    "ph_ai_news_query", "metaphor_search_api", "portfoliopilot", "AusPetrolPrices",
    "web_requests", "clinical_trial_radar", "Tax_Calculator", "Magnetis", "ResearchFinder",
}

STOP = set("""a about above after again against all also am an and any are as at be because
been before being below between both but by can cannot could did do does doing down during
each few for from further had has have having he her here hers herself him himself his how i
if in into is it its itself just me more most my myself no nor not now of off on once only or
other our ours ourselves out over own same she should so some such than that the their theirs
them themselves then there these they this those through to too under until up very was we
were what when where which while who whom why will with would you your yours yourself
yourselves please want need like help""".split())


def words(s):
    return [w for w in re.findall(r"[a-z0-9]+", s.lower()) if w not in STOP]


def split_name(n):
    parts = re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+", n)
    return [p.lower() for p in parts]


class BM25:
    def __init__(self, docs, k1=1.2, b=0.75):
        self.tf = [Counter(d) for d in docs]
        self.len = [len(d) for d in docs]
        self.n = len(docs)
        self.avg = sum(self.len) / self.n
        df = Counter()
        for d in docs:
            df.update(set(d))
        self.idf = {t: math.log(1 + (self.n - c + 0.5) / (c + 0.5)) for t, c in df.items()}
        self.k1, self.b = k1, b
        self.post = {}
        for i, d in enumerate(self.tf):
            for t in d:
                self.post.setdefault(t, []).append(i)

    def rank(self, q, names, k=10):
        sc = {}
        for t in set(q):
            for i in self.post.get(t, ()):
                f = self.tf[i][t]
                norm = self.k1 * (1 - self.b + self.b * self.len[i] / self.avg)
                sc[i] = sc.get(i, 0) + self.idf[t] * f * (self.k1 + 1) / (f + norm)
        order = sorted(sc, key=lambda i: (-sc[i], names[i]))
        return [names[i] for i in order[:k]]


def load():
    des = json.load(open(os.path.join(DATA, "plugin_des.json")))
    info = {d["name_for_model"]: d for d in json.load(open(os.path.join(DATA, "plugin_info.json")))}
    rows = []
    with open(os.path.join(DATA, "all_clean_data.csv"), newline="") as f:
        for r in csv.DictReader(f):
            q = " ".join(r["Query"].split())
            if q and r["Tool"] in des:
                rows.append((q, r["Tool"]))
    return des, info, rows


def catalogs(des, info, rows=()):
    plain, rich, ex = [], [], []
    examples = {}
    for q, t in sorted(rows, key=lambda r: hashlib.sha1(r[0].encode()).hexdigest()):
        if "dev" in split_of(q, t) and len(examples.setdefault(t, [])) < 32:
            examples[t].append(q)
    for name, d in des.items():
        plain.append({"name": name, "description": d, "inputSchema": {"type": "object"}})
        t = {"name": name, "description": d, "inputSchema": {"type": "object"}}
        if name in info:
            t["title"] = info[name]["name_for_human"]
            t["description"] = d + "\n" + info[name]["description_for_model"]
        rich.append(t)
        ex.append({"name": name, "description": d, "inputSchema": {"type": "object"},
                   "_meta": {"aliases": examples.get(name, [])}})
    return {"des": {"tools": plain}, "rich": {"tools": rich}, "examples": {"tools": ex}}


def split_of(q, tool):
    out = ["all", "dev" if int(hashlib.sha1(q.encode()).hexdigest()[0], 16) % 2 == 0 else "test"]
    if tool not in INSPECTED:
        out.append("heldout")
    return out


def metrics(ranked, gold):
    t1 = t5 = mrr = 0.0
    for r, g in zip(ranked, gold):
        if r and r[0] == g:
            t1 += 1
        if g in r[:5]:
            t5 += 1
        if g in r[:10]:
            mrr += 1 / (r.index(g) + 1)
    n = max(len(gold), 1)
    return t1 / n, t5 / n, mrr / n


def run_loupe(loupe, catalog_path, queries, params):
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("\n".join(queries) + "\n")
        qpath = f.name
    cmd = [loupe, "tools", "bench", "--catalog", catalog_path, "--queries", qpath, "--top", "10"]
    env = dict(os.environ)
    for p in params:
        if p.startswith("env."):  # env.NAME=VALUE: an environment variable for this run
            k, _, v = p[4:].partition("=")
            env[k] = v
        else:
            cmd += ["--param", p]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    os.unlink(qpath)
    if r.returncode != 0:
        sys.exit(f"loupe failed: {r.stderr}")
    out = [line.split("\t") if line else [] for line in r.stdout.split("\n")[:len(queries)]]
    return out, r.stderr.strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loupe", default=os.path.join(ROOT, "build", "loupe"))
    ap.add_argument("--param", action="append", default=[])
    ap.add_argument("--split", action="append", default=None)
    ap.add_argument("--catalog", action="append", default=None, help="des, rich")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--system", action="append", default=[],
                    help="NAME=BINARY[:k=v,k=v]: compare these systems (same run, same BM25)"
                         " instead of the five default configurations")
    args = ap.parse_args()
    splits = args.split or ["all", "dev", "test", "heldout"]
    which = args.catalog or ["des", "rich"]
    des, info, rows = load()
    work = os.path.join(ROOT, "bench", "work", "catalog")
    os.makedirs(work, exist_ok=True)
    cats = catalogs(des, info, rows)
    names = list(des)
    queries = [q for q, _ in rows]
    gold = [t for _, t in rows]
    tags = [split_of(q, t) for q, t in rows]
    print(f"MetaTool: {len(names)} tools, {len(rows)} queries; "
          + ", ".join(f"{s} {sum(s in t for t in tags)}" for s in splits))
    print()
    print("| catalog | system | split | queries | top-1 | top-5 | MRR@10 |")
    print("|---|---|---|---:|---:|---:|---:|")
    systems = [("lexical", ["dense=0", "words=0"]),
               ("dense", ["lexical=0", "words=0", "dense_min=0", "dense_depth=10"]),
               ("words", ["lexical=0", "dense=0", "words_min=0", "words_depth=10"]),
               ("fused without words", ["words=0", "lexical_floor=0"]),
               ("fused", [])]
    if args.param:
        systems = [("custom", [])]
    binaries = {}
    if args.system:
        systems = []
        for spec in args.system:
            name, _, rest = spec.partition("=")
            binary, _, params = rest.partition(":")
            binaries[name] = binary or args.loupe
            systems.append((name, [p for p in params.split(",") if p]))
    for c in which:
        path = os.path.join(work, f"metatool_{c}.json")
        with open(path, "w") as f:
            json.dump(cats[c], f, indent=1)
        ranked = {}
        for name, params in systems:
            ranked[name], _ = run_loupe(binaries.get(name, args.loupe), path, queries,
                                        params + args.param)
        docs = []
        for t in cats[c]["tools"]:
            extra = " ".join(t.get("_meta", {}).get("aliases", []))
            docs.append(split_name(t["name"]) + words(t.get("title", "") + " " + t["description"]
                                                      + " " + extra))
        bm = BM25(docs)
        ranked_b = [bm.rank(words(q), names) for q in queries]
        for s in splits:
            idx = [i for i, t in enumerate(tags) if s in t]
            g = [gold[i] for i in idx]
            rows = [("plain BM25", ranked_b)] + [("loupe " + n, ranked[n]) for n, _ in systems]
            for system, rk in rows:
                t1, t5, mrr = metrics([rk[i] for i in idx], g)
                print(f"| {c} | {system} | {s} | {len(idx)} | {t1:.3f} | {t5:.3f} | {mrr:.3f} |")


if __name__ == "__main__":
    main()
