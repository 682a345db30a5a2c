"""`loupe tools search|stats`: tool-catalog search from the command line."""
import json
import os

FIX = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                   "fixtures", "catalog")


def cat(*names):
    args = []
    for n in names:
        args += ["--catalog", os.path.join(FIX, n)]
    return args


ALL = cat("github_mcp.json", "slack_mcp.json", "filesystem_rpc.json", "openai_chat.json",
          "openai_responses.json", "anthropic.json", "gemini.json")


def test_search_prints_ranked_tools(ctx):
    r = ctx.ok("tools", "search", "open", "a", "pull", "request", *ALL)
    lines = r.out.splitlines()
    assert lines[0].startswith("1. github/create_pull_request"), r
    assert "Create a new pull request" in lines[1], r
    assert "matching tools" in r.out and "tokens" in r.out, r
    assert r.err == "", r  # built-in tools are skipped quietly during a search


def test_search_json_embeds_definitions_byte_for_byte(ctx):
    r = ctx.ok("tools", "search", "cafe", "--json", *cat("odd_bytes.json", "github_mcp.json"))
    doc = r.json()
    assert doc["tools"][0]["name"] == "caf\u00e9_lookup", doc
    raw = open(os.path.join(FIX, "odd_bytes.json"), encoding="utf-8").read()
    start = raw.index('{"name" :')
    end = raw.index("1E+2]}") + len("1E+2]}")
    assert raw[start:end] in r.out, r.out
    t = doc["tools"][0]
    assert t["tokens"] > 0 and t["provider"] == "generic" and t["rank"] == 1
    assert doc["totalTokens"] == sum(x["tokens"] for x in doc["tools"])
    assert doc["catalogTools"] == 22
    r = ctx.ok("tools", "search", "cafe", "--json", "--no-definitions", *cat("odd_bytes.json"))
    assert "definition" not in r.json()["tools"][0]


def test_search_budgets_pins_and_filters(ctx):
    r = ctx.ok("tools", "search", "issue", "--max-tools", "2", "--json", *ALL)
    doc = r.json()
    assert len(doc["tools"]) == 2 and doc["omittedForCount"] > 0, doc
    cheapest = min(x["tokens"] for x in doc["tools"])
    r = ctx.ok("tools", "search", "issue", "--max-tokens", str(cheapest), "--json", *ALL)
    doc = r.json()
    assert doc["totalTokens"] <= cheapest and doc["omittedForBudget"] > 0, doc
    r = ctx.ok("tools", "search", "issue", "--pin", "read_file", "--max-tools", "2", "--json",
               *ALL)
    doc = r.json()
    assert doc["tools"][0]["id"] == "read_file" and doc["tools"][0]["pinned"], doc
    assert len(doc["tools"]) == 2
    r = ctx.ok("tools", "search", "search", "--namespace", "github", "--json", "--max-tools",
               "10", *ALL)
    assert {x["namespace"] for x in r.json()["tools"]} == {"github"}, r
    r = ctx.ok("tools", "search", "get", "--read-only", "--json", "--max-tools", "50", *ALL)
    ids = [x["id"] for x in r.json()["tools"]]
    assert "read_file" in ids and "github/get_issue" in ids and "get_weather" not in ids, ids
    r = ctx.ok("tools", "search", "people", "--tag", "people", "--json", *ALL)
    assert {x["id"] for x in r.json()["tools"]} == {"slack_get_users",
                                                     "slack_get_user_profile"}, r
    r = ctx.ok("tools", "search", "x", "--pin", "no_such_tool", *ALL)
    assert "unknown_pin" in r.err, r


def test_stats(ctx):
    r = ctx.ok("tools", "stats", *ALL)
    assert "tools          52" in r.out, r
    assert "mcp 39" in r.out and "gemini 3" in r.out, r
    assert "built-in tool" in r.err, r
    r = ctx.ok("tools", "stats", "--json", *ALL)
    doc = r.json()
    assert doc["tools"] == 52 and doc["providers"]["openai_chat"] == 4, doc
    assert doc["namespaces"] == 1 and doc["groups"] == 7 and doc["memoryBytes"] > 0, doc


def test_errors_name_the_file_and_what_to_do(ctx):
    r = ctx.run("tools", "search", "x", "--catalog", ctx.path("missing.json"))
    assert r.rc != 0 and "missing.json" in r.err and "--catalog" in r.err, r
    bad = ctx.write("bad.json", '[\n  {"name": "a"},\n  {"name": }\n]\n')
    r = ctx.run("tools", "search", "x", "--catalog", bad)
    assert r.rc == 1, r
    assert "invalid_json" in r.err and "bad.json:3:" in r.err and "byte" in r.err, r
    r = ctx.run("tools", "search", "x", "--catalog", bad, "--json")
    assert r.json()["error"]["code"] == "invalid_argument", r
    assert "invalid_json" in r.json()["error"]["message"], r
    noname = ctx.write("noname.json", '{"tools": [{"description": "x"}]}')
    r = ctx.run("tools", "stats", "--catalog", noname)
    assert r.rc == 1 and "missing_name" in r.err and "entry #1" in r.err, r
    shape = ctx.write("shape.json", '{"hello": "world"}')
    r = ctx.run("tools", "stats", "--catalog", shape)
    assert r.rc == 1 and "unknown_shape" in r.err and "tools/list" in r.err, r
    dup = ctx.write("dup.json", '[{"name": "read_file"}]')
    r = ctx.run("tools", "stats", *cat("filesystem_rpc.json"), "--catalog", dup)
    assert r.rc == 1 and "duplicate_tool" in r.err and "server" in r.err, r


def test_lenient_skips_bad_entries(ctx):
    mixed = ctx.write("mixed.json", '[{"name": "good", "description": "fine"}, 42, {"name": ""}]')
    r = ctx.run("tools", "stats", "--catalog", mixed)
    assert r.rc == 1 and "invalid_definition" in r.err, r
    r = ctx.ok("tools", "stats", "--catalog", mixed, "--lenient")
    assert "tools          1" in r.out, r
    assert r.err.count("warning: skipped") == 2, r


def test_usage_errors(ctx):
    for args in (["tools"], ["tools", "frob"], ["tools", "search", "x"],
                 ["tools", "search", "--catalog", "a.json"],
                 ["tools", "search", "x", "--catalog"],
                 ["tools", "search", "x", "--catalog", "a.json", "--max-tools", "many"],
                 ["tools", "search", "x", "--catalog", "a.json", "--max-tools", "0"],
                 ["tools", "search", "x", "--catalog", "a.json", "--frob"],
                 ["tools", "stats", "extra", "--catalog", "a.json"]):
        r = ctx.run(*args)
        assert r.rc == 2 and "--help" in r.err, (args, r)
    r = ctx.ok("tools", "--help")
    assert "--max-tokens" in r.out and "--catalog" in r.out, r
    r = ctx.ok("--help")
    assert "tools" in r.out, r


def test_hostile_file_is_refused_cleanly(ctx):
    deep = ctx.write("deep.json", '[{"name":"d","inputSchema":' + '[' * 5000 + ']' * 5000 + '}]')
    r = ctx.run("tools", "stats", "--catalog", deep)
    assert r.rc == 1 and "invalid_json" in r.err and "depth" in r.err, r
    blob = ctx.write("blob.json", b'[{"name":"x\xff"}]')
    r = ctx.run("tools", "stats", "--catalog", blob)
    assert r.rc == 1 and "invalid_json" in r.err, r
    big = ctx.write("big.json", '[{"name":"big","description":"' + "a " * 200000 + '"}]')
    r = ctx.run("tools", "stats", "--catalog", big)
    assert r.rc == 1 and "definition_too_large" in r.err, r


def test_dense_channel_in_results_and_absent_without_model(ctx):
    """Results name the channels; with the model turned off, search still works by words
    and says the dense channel is absent."""
    r = ctx.ok("tools", "search", "regex", "pattern", "--json", "--no-definitions",
               *cat("semantic.json", "github_mcp.json"))
    doc = r.json()
    assert doc["channels"] == ["lexical", "dense", "words"], doc
    assert doc["tools"][0]["id"] == "util/match_text", doc
    assert doc["tools"][0]["channels"] == ["dense"], doc
    r = ctx.ok("tools", "search", "send", "an", "email", "--json", "--no-definitions",
               *cat("semantic.json"),
               env={"LOUPE_EMBED_MODEL": "none", "LOUPE_CATALOG_WORDS": "none"})
    doc = r.json()
    assert doc["channels"] == ["lexical"], doc
    assert doc["tools"][0]["id"] == "util/send_email", doc
    assert doc["tools"][0]["channels"] == ["lexical"], doc  # words only, not the exact name
    assert [w["code"] for w in doc["warnings"]] == ["dense_channel_absent",
                                                     "word_channel_absent"], doc
    assert "LOUPE_EMBED_MODEL=none" in doc["warnings"][0]["message"], doc


def test_text_output_names_every_channel_and_a_budget_that_left_everything_out(ctx):
    ctx.write("consumer.json", json.dumps([
        {"name": "forecast", "description": "Weather forecasts and current conditions for a city."},
        {"name": "tunes", "description": "Play songs and albums, and build playlists."},
    ]))
    args = ["--catalog", ctx.path("consumer.json")]
    doc = ctx.ok("tools", "search", "thunderstorm", "tonight", "--json", *args).json()
    via = "+".join(c for c in ("lexical", "dense", "exact", "words")
                   if c in doc["tools"][0]["channels"])
    r = ctx.ok("tools", "search", "thunderstorm", "tonight", *args)
    assert r.out.splitlines()[0].endswith("via " + via), (via, r)
    # The tool matches but its definition is over the budget: say so, not "no tool matches".
    r = ctx.ok("tools", "search", "weather", "forecast", "--max-tokens", "3", *args)
    assert "no tool matches" not in r.out, r
    assert "1 tool matches" in r.out and "--max-tokens 3" in r.out, r
    r = ctx.ok("tools", "search", "zzqxv", *args)
    assert "no tool matches" in r.out, r


def test_word_channel_in_results_and_absent_without_model(ctx):
    """The word channel finds a tool by topic when no word is shared; turned off or given a
    file it cannot use, search still works and says why."""
    ctx.write("consumer.json", json.dumps([
        {"name": "forecast", "description": "Weather forecasts and current conditions for a city."},
        {"name": "tunes", "description": "Play songs and albums, and build playlists."},
    ]))
    r = ctx.ok("tools", "search", "thunderstorm", "tonight", "--json", "--no-definitions",
               "--catalog", ctx.path("consumer.json"))
    doc = r.json()
    assert doc["tools"][0]["id"] == "forecast", doc
    assert "words" in doc["tools"][0]["channels"], doc
    r = ctx.ok("tools", "search", "thunderstorm", "tonight", "--json", "--no-definitions",
               "--catalog", ctx.path("consumer.json"), env={"LOUPE_CATALOG_WORDS": "none"})
    doc = r.json()
    assert "words" not in doc["channels"], doc
    assert "word_channel_absent" in [w["code"] for w in doc["warnings"]], doc
    ctx.write("bad.bin", "LPCWORD1 not a model")
    r = ctx.ok("tools", "search", "play", "songs", "--json", "--no-definitions",
               "--catalog", ctx.path("consumer.json"), env={"LOUPE_CATALOG_WORDS": ctx.path("bad.bin")})
    doc = r.json()
    assert doc["tools"][0]["id"] == "tunes", doc
    w = [w for w in doc["warnings"] if w["code"] == "word_channel_absent"]
    assert w and ctx.path("bad.bin") in w[0]["message"] and "make catalog-model" in w[0]["message"], doc


def test_mcp_tool_catalog_errors_name_the_file(ctx):
    """`loupe mcp --tool-catalog` refuses to start on a catalog it cannot load."""
    r = ctx.run("mcp", "--tool-catalog", ctx.path("missing.json"), input="")
    assert r.rc == 1, r
    assert "--tool-catalog " + ctx.path("missing.json") in r.err and "No such file" in r.err, r
    ctx.write("bad.json", '{"tools": [{"description": "no name"}]}')
    r = ctx.run("mcp", "--tool-catalog", ctx.path("bad.json"), input="")
    assert r.rc == 1 and "missing_name" in r.err and "bad.json" in r.err, r
    r = ctx.run("mcp", "--tool-catalog", input="")
    assert r.rc == 2 and "--tool-catalog needs a FILE" in r.err, r
    r = ctx.run("mcp", "--tool-catalog", os.path.join(FIX, "semantic.json"), "--workers", "0",
                input="")
    assert r.rc == 2 and "--workers must be at least 1" in r.err, r
    r = ctx.run("mcp", *[a for n in ("github_mcp.json", "github_mcp.json")
                         for a in ("--tool-catalog", os.path.join(FIX, n))], input="")
    assert r.rc != 0 and "duplicate_tool" in r.err, r


MULTI = ("show stock prices, stock charts, market quotes of my companies and tell me the "
         "weather in my city")


def test_search_precision_intents_product_names_and_prefixes(ctx):
    """A request with two intents gets a tool for each; a product name written whole finds
    the product first; a prefix does not cross into another English word."""
    pre = cat("precision.json") + ALL  # enough tools for real term weights
    doc = ctx.ok("tools", "search", MULTI, "--max-tools", "2", "--json", "--no-definitions",
                 *pre).json()
    assert [t["id"] for t in doc["tools"]] == ["demo/stock_charts", "demo/weather"], doc
    doc = ctx.ok("tools", "search", MULTI, "--max-tools", "2", "--json", "--no-definitions",
                 "--param", "intents=0", *pre).json()
    assert "demo/weather" not in [t["id"] for t in doc["tools"]], doc
    doc = ctx.ok("tools", "search", "hackerrank", "--json", "--no-definitions", *pre).json()
    assert doc["tools"][0]["id"] == "demo/challenges", doc
    doc = ctx.ok("tools", "search", "HackerRank", "--json", "--no-definitions", *pre).json()
    assert doc["tools"][0]["id"] == "demo/challenges", doc
    doc = ctx.ok("tools", "search", "tour", "--json", "--no-definitions", *pre).json()
    # The word vectors may still relate tour and tournament; the words themselves do not.
    assert all("lexical" not in t["channels"] for t in doc["tools"]
               if t["id"] == "demo/chess_results"), doc
    assert doc["tools"][0]["id"] == "demo/sightseeing", doc


def test_mcp_search_tools_gives_each_intent_a_tool(ctx):
    """The same through `loupe mcp --tool-catalog` and its search_tools tool."""
    msgs = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "search_tools",
                    "arguments": {"query": MULTI, "maxTools": 2, "includeDefinitions": False}}},
    ]
    files = [a for n in ("precision.json", "github_mcp.json", "slack_mcp.json")
             for a in ("--tool-catalog", os.path.join(FIX, n))]
    r = ctx.run("mcp", *files,
                input="".join(json.dumps(m) + "\n" for m in msgs))
    replies = {m.get("id"): m for m in map(json.loads, r.out.splitlines()) if "id" in m}
    res = replies[2]["result"]
    assert not res.get("isError"), res
    ids = [t["id"] for t in res["structuredContent"]["tools"]]
    assert ids == ["demo/stock_charts", "demo/weather"], res
