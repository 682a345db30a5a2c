"""The per-file parse budget: a file whose parse needs more memory (or time) than its budget
is indexed as text with the reason parse_budget, visible in the build report, in status and
on every search result from it; the rest of the tree is parsed as usual. The full-size
measurement (8 files at the 8 MiB limit, peak RSS) is bench/faults_db.py parse_budget."""


def _minified(n_bytes):
    parts, i, size = [], 0, 0
    while size < n_bytes:
        s = (f"function f{i}(a,b){{var c=a+b*{i % 97};if(c>{i % 13}){{return "
             f"g{i % 50}(c,[1,2,3],{{k:'v{i}'}});}}return c;}}var v{i}=f{i}({i},1);")
        parts.append(s)
        size += len(s)
        i += 1
    return "".join(parts)


def test_parse_budget_keeps_a_file_as_text(ctx):
    root = ctx.path("repo")
    ctx.write("dist/app.min.js", _minified(600_000), root=root)
    ctx.write("src/small.js", "function tinyHandler(a) { return a + 1; }\n", root=root)
    ctx.write("src/util.py", "def budget_helper():\n    return 2\n", root=root)
    budget = {"LOUPE_PARSE_BUDGET_MB": "4"}
    j = ctx.ok("index", root, "--json", env=budget).json()
    assert j["skipped"].get("parse_budget") == 1, j
    assert j["files"]["total"] == 3, j  # indexed, not skipped
    out = ctx.ok("outline", f"{root}/dist/app.min.js", "--json").json()
    assert out["symbols"] == [], out
    assert [s["name"] for s in ctx.ok("outline", f"{root}/src/small.js", "--json")
            .json()["symbols"]] == ["tinyHandler"]
    st = ctx.ok("status", root, "--json").json()
    assert st["skipped"].get("parse_budget") == 1, st
    assert st["publication"]["skipped"] == 0, st  # it is in the publication
    # the text is searchable, and every result from it says why it has no symbols
    r = ctx.ok("search", "f1234", "--path", root, "--json").json()
    hits = [g for g in r["results"] if g["owner"]["file"] == "dist/app.min.js"]
    assert hits and all(g["indexedAsText"] == "parse_budget" for g in hits), r["results"]
    assert all("parse_budget" in g["label"] for g in hits), hits
    plain = ctx.ok("search", "f1234", "--path", root).out
    assert "[indexed as text: parse_budget]" in plain, plain
    # without the small budget the same file parses: the setting is what decided
    j = ctx.ok("reindex", root, "--json").json()
    assert "parse_budget" not in j["skipped"] and j["symbols"] > 1000, j


def test_parse_time_budget(ctx):
    root = ctx.path("repo")
    ctx.write("gen.py", "".join(f"x=f(y{k % 10})\n" for k in range(200_000)), root=root)
    j = ctx.ok("index", root, "--json", env={"LOUPE_PARSE_BUDGET_MS": "1",
                                             "LOUPE_PARSE_BUDGET_MB": "0"}).json()
    assert j["skipped"].get("parse_budget") == 1, j
    r = ctx.ok("search", "x=f", "--path", root, "--json").json()
    assert r["results"] and r["results"][0]["indexedAsText"] == "parse_budget", r
