"""The surface of a search result (src/search/decorate.c, live.c): every group's label,
breadcrumbs, freshness (publication time, stale by stat, deleted, live) and its
recommendedNextAction, in `loupe search --json`, the text output, frozen sets (`loupe more`,
continue_search) and search_codebase; live evidence for path:-scoped queries on files changed
since the publication; stale roots over MCP (warning + manage_index sync, or LOUPE_AUTO_SYNC)."""
import json
import os

from mcp_client import Session, copy_fixture

OWNER_KEYS = {"id", "file", "symbol", "qualifiedName", "kind", "startLine", "endLine"}
SURFACE_KEYS = {"label", "breadcrumbs", "freshness", "recommendedNextAction"}


def search(ctx, root, *words, limit=None):
    args = ["search", *words, "--path", root, "--json"]
    if limit:
        args += ["--limit", str(limit)]
    return ctx.ok(*args).json()


def check_group(g, root, published_at=None):
    for k in ("rank", "owner", "score", "channels", "snippet", "snippetStartLine", *SURFACE_KEYS):
        assert k in g, (k, g)
    assert set(g["owner"]) == OWNER_KEYS, g["owner"]
    f = g["freshness"]
    assert set(f) == {"publishedAt", "stale", "deleted", "live"}, f
    if published_at:
        assert f["publishedAt"] == published_at, f
    nxt = g["recommendedNextAction"]
    if f["deleted"] or f["live"]:
        # read_file answers from the publication: the live text becomes evidence by a sync.
        assert nxt == {"tool": "manage_index", "arguments": {"action": "sync", "path": root}}, g
    elif g["owner"]["id"]:
        assert nxt == {"tool": "read_file", "arguments": {
            "path": os.path.join(root, g["owner"]["file"]),
            "open_symbol": {"symbolId": g["owner"]["id"]}}}, g
    else:
        assert nxt == {"tool": "file_outline",
                       "arguments": {"path": os.path.join(root, g["owner"]["file"])}}, g
        assert g["breadcrumbs"] == "" and g["label"].startswith(g["owner"]["file"] + ":"), g
    # Snippets are numbered from snippetStartLine.
    first = g["snippet"].split("\n", 1)[0]
    assert first.startswith(f"{g['snippetStartLine']}| "), g


def by_qname(results, qname):
    hits = [g for g in results if g["owner"]["qualifiedName"] == qname]
    assert hits, [g["owner"]["qualifiedName"] for g in results]
    return hits[0]


def test_search_json_carries_the_surface_fields(ctx):
    root = copy_fixture(ctx)
    ctx.ok("index", root, "--quiet")
    j = search(ctx, root, "refresh", "access", "token", limit=20)
    assert j["results"] and j["staleResults"] == 0 and j["liveResults"] == 0, j
    assert j["publishedAt"].endswith("Z"), j
    for g in j["results"]:
        check_group(g, root, j["publishedAt"])
        assert g["freshness"]["stale"] is False and g["freshness"]["live"] is False, g
    m = by_qname(j["results"], "Session.refresh_access_token")
    assert m["label"] == "Session.refresh_access_token", m
    assert m["breadcrumbs"] == "session > Session > refresh_access_token", m
    assert m["owner"]["kind"] == "method" and m["owner"]["id"], m
    # The text output shows the breadcrumbs.
    t = ctx.ok("search", "refresh", "access", "token", "--path", root).out
    assert "session > Session > refresh_access_token" in t, t
    assert "[stale" not in t and "[live" not in t, t


def test_stale_groups_after_an_edit(ctx):
    root = copy_fixture(ctx)
    ctx.ok("index", root, "--quiet")
    with open(os.path.join(root, "src/auth/session.py"), "a") as f:
        f.write("\n# edited after indexing\n")
    j = search(ctx, root, "refresh", "access", "token", limit=20)
    files = {g["owner"]["file"]: g["freshness"]["stale"] for g in j["results"]}
    assert files.get("src/auth/session.py") is True, files
    assert not any(v for k, v in files.items() if k != "src/auth/session.py"), files
    assert j["staleResults"] == sum(1 for g in j["results"]
                                    if g["owner"]["file"] == "src/auth/session.py"), j
    assert any(w.startswith("results_stale: ") for w in j["warnings"]), j["warnings"]
    for g in j["results"]:
        check_group(g, root)
    t = ctx.ok("search", "refresh", "access", "token", "--path", root).out
    assert "[stale: file changed since indexing]" in t and "warning: results_stale:" in t, t
    # After a sync the groups are fresh again.
    ctx.ok("sync", root)
    j = search(ctx, root, "refresh", "access", "token", limit=20)
    assert j["staleResults"] == 0 and not any(g["freshness"]["stale"] for g in j["results"]), j


def test_live_evidence_for_path_scoped_queries(ctx):
    root = copy_fixture(ctx)
    ctx.ok("index", root, "--quiet")
    path = os.path.join(root, "src/auth/session.py")
    text = open(path).read()
    with open(path, "w") as f:
        f.write(text + "\n\ndef rotate_refresh_secret(store):\n"
                "    \"\"\"Rotate the refresh secret.\"\"\"\n    return store.rotate()\n")
    for scope in ("path:src/auth/session.py", "path:src/auth/*.py", "path:src/auth"):
        j = search(ctx, root, "rotate_refresh_secret", scope)
        live = [g for g in j["results"] if g["freshness"]["live"]]
        assert live, (scope, j)
        g = live[0]
        assert j["results"][0] is g or j["results"][0] == g, j["results"][0]
        assert g["channels"] == ["live"] and g["owner"]["file"] == "src/auth/session.py", g
        assert g["owner"]["id"] is None and g["owner"]["kind"] == "file", g
        assert "rotate_refresh_secret" in g["snippet"] and g["freshness"]["stale"] is True, g
        check_group(g, root)
        assert j["liveResults"] == len(live), j
        assert any(w.startswith("live_evidence: 1 file(s)") for w in j["warnings"]), j["warnings"]
    # Text output marks the live group.
    t = ctx.ok("search", "rotate_refresh_secret", "path:src/auth/session.py", "--path", root).out
    assert "[live: current text on disk, not indexed]" in t and "rotate_refresh_secret" in t, t
    # Without path: (or scoped to unchanged files) nothing is read from disk.
    j = search(ctx, root, "rotate_refresh_secret")
    assert not any(g["freshness"]["live"] for g in j["results"]), j
    j = search(ctx, root, "token", "path:src/app")
    assert j["liveResults"] == 0 and not any(w.startswith("live_") for w in j["warnings"]), j
    # A file added since the publication, named by its literal path, is read too.
    ctx.write("src/auth/added.py", "def brand_new_helper():\n    return 1\n", root=root)
    j = search(ctx, root, "brand_new_helper", "path:src/auth/added.py")
    live = [g for g in j["results"] if g["freshness"]["live"]]
    assert live and live[0]["owner"]["file"] == "src/auth/added.py", j
    assert "1| def brand_new_helper" in live[0]["snippet"], live[0]


def test_live_evidence_is_bounded(ctx):
    root = copy_fixture(ctx)
    ctx.ok("index", root, "--quiet")
    # Over the size cap: not read, said so.
    ctx.write("src/data/big.py", "needle_token = 1\n" * 70000, root=root)
    j = search(ctx, root, "needle_token", "path:src/data/big.py")
    assert j["liveResults"] == 0, j
    assert any(w.startswith("live_skipped: src/data/big.py changed on disk but is larger than")
               for w in j["warnings"]), j["warnings"]
    # Many matching regions: capped at 20 live groups, and at the limit.
    ctx.write("src/data/big.py", "".join(f"needle_token_{i} = 1\n\n\n\n\n" for i in range(40)),
              root=root)
    j = search(ctx, root, "needle_token", "path:src/data/big.py", limit=50)
    assert j["liveResults"] == 20 and all(g["freshness"]["live"] for g in j["results"][:20]), j
    assert any(w.startswith("live_capped: ") for w in j["warnings"]), j["warnings"]
    j = ctx.ok("search", "needle_token", "path:src/data/big.py", "--path", root, "--json",
               "--limit", "3").json()
    assert len(j["results"]) == 3 and all(g["freshness"]["live"] for g in j["results"]), j


def test_deleted_file_is_reported_never_read(ctx):
    root = copy_fixture(ctx)
    ctx.ok("index", root, "--quiet")
    os.remove(os.path.join(root, "src/auth/session.py"))
    j = search(ctx, root, "refresh", "access", "token", "path:src/auth/session.py", limit=20)
    assert j["liveResults"] == 0, j
    assert any(w.startswith("live_file_deleted: src/auth/session.py was deleted")
               for w in j["warnings"]), j["warnings"]
    gone = [g for g in j["results"] if g["owner"]["file"] == "src/auth/session.py"]
    assert gone, j
    for g in gone:
        assert g["freshness"]["deleted"] and g["freshness"]["stale"], g
        check_group(g, root)
    t = ctx.ok("search", "refresh", "access", "token", "--path", root).out
    assert "[stale: file deleted since indexing]" in t, t


def test_frozen_sets_keep_the_surface_fields(ctx):
    root = copy_fixture(ctx)
    ctx.ok("index", root, "--quiet")
    with open(os.path.join(root, "src/auth/session.py"), "a") as f:
        f.write("\n# edited after indexing\ndef token_rotation_marker():\n    return 'token'\n")
    first = ctx.ok("search", "token", "path:src/auth/session.py", "--path", root, "--json",
                   "--limit", "1").json()
    assert first["results"][0]["freshness"]["live"] is True, first
    h = first["pagination"]["continuation"]
    assert h, first["pagination"]
    # Everything the search would have shown at ranks 2.. comes back from the set as it was.
    full = ctx.ok("search", "token", "path:src/auth/session.py", "--path", root, "--json",
                  "--limit", "50").json()["results"]
    rest = ctx.ok("more", h, "--json", "--limit", "50").json()["results"]
    assert rest == full[1:len(rest) + 1], (rest[:2], full[1:3])
    assert any(g["freshness"]["stale"] for g in rest), rest
    t = ctx.ok("more", h, "--limit", "50").out
    assert "[stale: file changed since indexing]" in t and "warning: live_evidence:" in t, t
    for g in rest:
        check_group(g, root, first["publishedAt"])
    # The file changes again: the same search makes another set; the first handle still
    # pages through what its search saw.
    with open(os.path.join(root, "src/auth/session.py"), "a") as f:
        f.write("\ndef token_second_marker():\n    return 'token'\n")
    again = ctx.ok("search", "token", "path:src/auth/session.py", "--path", root, "--json",
                   "--limit", "1").json()
    h2 = again["pagination"]["continuation"]
    assert h2.split(":")[2] != h.split(":")[2], (h, h2)
    assert ctx.ok("more", h, "--json", "--limit", "50").json()["results"] == rest
    # The MCP continuation shows the same fields.
    s = Session(ctx)
    a = s.call("search_codebase", {"path": root, "query": "token path:src/auth/session.py",
                                   "disclosureLimit": 1})
    assert a["results"][0]["freshness"]["live"] is True, a["results"][0]
    b = s.call("continue_search", {"continuation": a["pagination"]["continuation"], "limit": 50})
    for g in b["results"]:
        assert SURFACE_KEYS <= set(g), g
    now = ctx.ok("search", "token", "path:src/auth/session.py", "--path", root, "--json",
                 "--limit", "50").json()["results"]
    assert [g["label"] for g in b["results"]] == [g["label"] for g in now[1:len(b["results"]) + 1]]
    s.close()


def test_mcp_results_and_stale_root(ctx):
    root = copy_fixture(ctx)
    ctx.ok("index", root, "--quiet")
    env = {"LOUPE_FRESHNESS_TTL_MS": "0"}
    s = Session(ctx, env=env)
    a = s.call("search_codebase", {"path": root, "query": "refresh access token",
                                   "disclosureLimit": 5})
    for g in a["results"]:
        check_group(g, root, a["publication"]["createdAt"])
    top = a["results"][0]
    assert a["recommendedNextAction"] == top["recommendedNextAction"], a
    # A file changed on disk: stale answer, warning, and the sync to run.
    with open(os.path.join(root, "src/auth/session.py"), "a") as f:
        f.write("\n# edited\n")
    b = s.call("search_codebase", {"path": root, "query": "refresh access token",
                                   "disclosureLimit": 5})
    assert b["freshness"]["state"] == "stale" and b["publication"]["state"] == "stale", b
    codes = [w["code"] for w in b["warnings"]]
    assert "index_stale" in codes and "results_stale" in codes, codes
    assert b["recommendedNextAction"] == {"tool": "manage_index",
                                          "arguments": {"action": "sync", "path": root}}, b
    assert any(g["freshness"]["stale"] for g in b["results"]), b["results"]
    s.close()
    # LOUPE_AUTO_SYNC=1: synced first, fresh answer from the new publication.
    s = Session(ctx, env=dict(env, LOUPE_AUTO_SYNC="1"))
    c = s.call("search_codebase", {"path": root, "query": "refresh access token",
                                   "disclosureLimit": 5})
    assert c["publication"]["id"] == 2 and c["freshness"]["state"] == "fresh", c
    assert [w["code"] for w in c["warnings"]][0] == "auto_synced", c["warnings"]
    assert not any(g["freshness"]["stale"] for g in c["results"]), c["results"]
    assert c["recommendedNextAction"]["tool"] == "read_file", c
    s.close()


def test_mcp_search_answers_fit_the_budget(ctx):
    root = os.path.join(ctx.tmp, "repo")
    for i in range(60):
        ctx.write(f"pkg/mod{i:02d}.py", "".join(
            f"def budget_fn_{i}_{k}():\n    return 'budget marker {i} {k} " + "x" * 150 + "'\n"
            for k in range(3)), root=root)
    ctx.ok("index", root, "--quiet")
    for budget, args in ((24 * 1024, []), (6000, ["--max-result-bytes", "6000"])):
        s = Session(ctx, args=args)
        for name, call_args in (("search_codebase", {"path": root, "query": "budget marker",
                                                     "limit": 200, "disclosureLimit": 50}),
                                ("continue_search", None)):
            if call_args is None:
                call_args = {"continuation": a["pagination"]["continuation"], "limit": 50}
            raw = s.call_raw(name, call_args)
            text = raw["content"][0]["text"]
            a = raw["structuredContent"]
            # The server's own serialization fits, and whole results were dropped (the page
            # is shortened, said so) rather than snippets cut.
            assert len(text.encode()) <= budget, (name, budget, len(text.encode()))
            assert a["truncated"] is False, (name, a["warnings"])
            assert 1 <= a["pagination"]["shown"] < 50, a["pagination"]
            assert any(w["code"] == "page_shortened" for w in a["warnings"]), a["warnings"]
            for g in a["results"]:
                assert SURFACE_KEYS <= set(g) and "\u2026" not in g["snippet"], g
        s.close()


def test_mcp_single_result_over_budget_is_cut_and_says_so(ctx):
    """A result larger than the budget is shown with its long strings shortened (truncated,
    text_shortened); at a budget too small even for that, the page shows none and says to
    raise the budget, with the continuation starting at it. Every answer fits."""
    root = os.path.join(ctx.tmp, "repo")
    ctx.write("pkg/wide.py", "".join(f"def wide_marker_{k}():\n    return '{'w' * 190}'\n"
                                     for k in range(4)), root=root)
    ctx.ok("index", root, "--quiet")
    for budget in (1550, 1024):
        s = Session(ctx, args=["--max-result-bytes", str(budget)])
        raw = s.call_raw("search_codebase", {"path": root, "query": "wide marker",
                                             "disclosureLimit": 5})
        assert not raw.get("isError"), raw
        text = raw["content"][0]["text"]
        a = raw["structuredContent"]
        assert len(text.encode()) <= budget, (budget, len(text.encode()))
        codes = [w["code"] for w in a["warnings"]]
        assert "page_shortened" in codes, a["warnings"]
        assert a["pagination"]["shown"] == len(a["results"]), a["pagination"]
        if budget == 1550:
            assert len(a["results"]) == 1 and a["truncated"] is True, a
            assert "text_shortened" in codes, codes
        else:
            assert a["results"] == [] and a["pagination"]["continuation"], a
            msg = [w["message"] for w in a["warnings"] if w["code"] == "page_shortened"][0]
            assert "raise maxBytes" in msg and "--max-result-bytes" in msg, msg
        s.close()


def test_mcp_max_bytes_argument_bounds_one_answer(ctx):
    """Every tool takes maxBytes: the answer fits it (pages shortened, lists cut, each saying
    how to go on); the server's cap bounds it; under 1 KiB it is an invalid argument; typed
    tools (the graph) never see it."""
    root = os.path.join(ctx.tmp, "repo")
    ctx.write("pkg/many.py", "".join(f"def budget_marker_{k}():\n    return budget_marker_{k + 1}()\n"
                                     for k in range(80)), root=root)
    ctx.ok("index", root, "--quiet")
    s = Session(ctx, args=["--max-result-bytes", "8192"])
    full = s.call_raw("search_codebase", {"path": root, "query": "budget marker",
                                          "disclosureLimit": 50})
    small = s.call_raw("search_codebase", {"path": root, "query": "budget marker",
                                           "disclosureLimit": 50, "maxBytes": 3000})
    assert not small.get("isError"), small
    n_full = full["structuredContent"]["pagination"]["shown"]
    n_small = small["structuredContent"]["pagination"]["shown"]
    assert 1 <= n_small < n_full, (n_small, n_full)
    assert len(json.dumps(small["structuredContent"], separators=(",", ":"))) <= 3000
    assert any(w["code"] == "page_shortened" for w in small["structuredContent"]["warnings"])
    # above the cap: the cap holds
    big = s.call_raw("search_codebase", {"path": root, "query": "budget marker",
                                         "disclosureLimit": 50, "maxBytes": 1000000})
    assert big["structuredContent"]["pagination"]["shown"] == n_full
    assert len(json.dumps(big["structuredContent"], separators=(",", ":"))) <= 8192
    # a typed tool takes it too
    sym = full["structuredContent"]["results"][0]["owner"]["id"]
    cg = s.call_raw("call_graph", {"path": root, "symbolId": sym, "maxBytes": 2048})
    assert not cg.get("isError"), cg
    assert len(json.dumps(cg["structuredContent"], separators=(",", ":"))) <= 2048
    bad = s.call_raw("search_codebase", {"path": root, "query": "x", "maxBytes": 10})
    assert bad.get("isError") and "maxBytes" in bad["content"][0]["text"], bad
    s.close()
