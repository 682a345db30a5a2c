"""The MCP index tools against real builds: background operations (progress, busy, cancel,
restart), searches racing syncs (one publication per answer), the result budget and
continuations, the continuation cache across processes (`loupe more`), and the symbol
evidence (active once the language extractors yield symbols)."""
import json
import os
import subprocess
import threading
import time

from mcp_client import Session, ToolError, copy_fixture, publication_ids


def make_files(ctx, n, text, dest="repo"):
    root = os.path.join(ctx.tmp, dest)
    for i in range(n):
        ctx.write(f"pkg/f{i:03d}.py", text(i), root=root)
    return root


def wait_for(pred, timeout=30, what="condition"):
    t0 = time.time()
    while time.time() - t0 < timeout:
        v = pred()
        if v:
            return v
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def symbols_available(ctx, root):
    """True when the language extractor yields symbols (the src/lang placeholder does not)."""
    r = ctx.run("outline", os.path.join(root, "src/auth/session.py"), "--json")
    assert r.rc == 0, r
    if not r.json()["symbols"]:
        print("# SKIP symbol assertions: `loupe outline` returns no symbols (src/lang is the "
              "placeholder); they run once the language extractors land")
        return False
    return True


# ------------------------------------------------------------------------------------------
# Background operations.

def test_mcp_create_progress_busy_and_cancel(ctx):
    root = make_files(ctx, 300, lambda i: f"def handler_{i}():\n    return 'payload {i}'\n")
    s = Session(ctx, env={"LOUPE_TEST_WRITE_DELAY_US": "20000"})
    started = s.call("manage_index", {"action": "create", "path": root})
    op = started["operation"]["operationId"]
    assert started["state"] == "indexing" and started["operation"]["state"] == "running", started
    assert started["recommendedNextAction"] == {
        "tool": "manage_index", "arguments": {"action": "status", "operationId": op, "waitMs": 5000}}
    # Progress comes from the live operation: files done/total, phase, elapsed.
    st = wait_for(lambda: (lambda a: a if a["operation"]["progress"]["filesDone"] >= 5 else None)(
        s.call("manage_index", {"action": "status", "operationId": op})), what="progress")
    prog = st["operation"]["progress"]
    assert st["state"] == "indexing" and prog["phase"] == "indexing", st
    assert prog["filesTotal"] == 300 and 5 <= prog["filesDone"] < 300 and prog["elapsedMs"] > 0, prog
    assert st["writer"]["operationId"] == op and st["writer"]["inThisServer"] is True, st
    # One writer per root: a second build is busy and names the running operation.
    busy = s.fail("manage_index", {"action": "sync", "path": root})
    assert busy.code == "busy" and op in busy.text and "cancel" in busy.text, busy.text
    busy = s.fail("manage_index", {"action": "create", "path": root})
    assert busy.code == "busy" and op in busy.text, busy.text
    # Reads have no publication yet: they say a build is running and how to follow it.
    e = s.fail("search_codebase", {"path": root, "query": "payload"})
    assert e.code == "indexing" and op in e.text, e.text
    e = s.fail("manage_index", {"action": "clear", "path": root})
    assert e.code == "busy" and "cancel it first" in e.text, e.text
    listed = s.call("list_codebases", {})
    assert listed["codebases"][0]["state"] == "indexing", listed
    assert listed["codebases"][0]["writer"]["operationId"] == op, listed
    # Cancel stops exactly that operation; nothing was published.
    t0 = time.time()
    c = s.call("manage_index", {"action": "cancel", "operationId": op})
    assert time.time() - t0 < 10
    assert c["operation"]["state"] == "cancelled" and c["operation"]["cancelRequested"], c
    assert c["operation"]["error"]["code"] == "cancelled", c
    assert c["state"] == "not_indexed" and c["publication"]["id"] is None, c
    st = s.call("manage_index", {"action": "status", "path": root})
    assert st["state"] == "not_indexed" and st["operation"]["operationId"] == op, st
    assert st["operation"]["state"] == "cancelled" and st["writer"] is None, st
    s.close()


def test_mcp_cancel_reindex_keeps_previous_publication(ctx):
    root = make_files(ctx, 200, lambda i: f"def marker_{i}():\n    return {i}\n")
    s = Session(ctx, env={"LOUPE_TEST_WRITE_DELAY_US": "20000"})
    done = s.call("manage_index", {"action": "create", "path": root, "waitMs": 60000})
    assert done["state"] == "ready" and done["publication"]["id"] == 1, done
    r = s.call("manage_index", {"action": "reindex", "path": root})
    op = r["operation"]["operationId"]
    wait_for(lambda: s.call("manage_index", {"action": "status", "operationId": op})
             ["operation"]["progress"]["filesDone"] > 3, what="reindex progress")
    # The previous publication keeps serving, with a warning about the build.
    a = s.call("search_codebase", {"path": root, "query": "marker_7"})
    assert a["publication"]["id"] == 1 and a["results"], a
    assert any(w["code"] == "indexing_in_progress" and op in w["message"] for w in a["warnings"]), a
    c = s.call("manage_index", {"action": "cancel", "operationId": op})
    assert c["operation"]["state"] == "cancelled", c
    assert c["state"] == "ready" and c["publication"]["id"] == 1, c
    a = s.call("search_codebase", {"path": root, "query": "marker_7"})
    assert a["publication"]["id"] == 1 and not any(w["code"] == "indexing_in_progress"
                                                   for w in a["warnings"]), a
    s.close()


def test_mcp_wait_reports_progress_notifications(ctx):
    root = make_files(ctx, 80, lambda i: f"x_{i} = {i}\n")
    s = Session(ctx, env={"LOUPE_TEST_WRITE_DELAY_US": "10000"})
    res = s.call("manage_index", {"action": "create", "path": root, "waitMs": 60000},
                 meta={"progressToken": "build-1"})
    assert res["operation"]["state"] == "succeeded", res
    prog = [n["params"] for n in s.notes if n.get("method") == "notifications/progress"]
    assert prog and all(p["progressToken"] == "build-1" for p in prog), s.notes
    values = [p["progress"] for p in prog]
    assert values == sorted(values) and len(set(values)) == len(values), values
    assert all(p.get("total") == 80 for p in prog if "total" in p), prog
    s.close()


def test_mcp_build_in_another_process_is_reported(ctx):
    root = make_files(ctx, 200, lambda i: f"def other_{i}():\n    pass\n")
    ctx.ok("index", root)
    p = ctx.spawn("reindex", root, env={"LOUPE_TEST_WRITE_DELAY_US": "10000"},
                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    s = Session(ctx)
    st = wait_for(lambda: (lambda a: a if a["writer"] else None)(
        s.call("manage_index", {"action": "status", "path": root})), what="the lease")
    w = st["writer"]
    assert st["state"] == "indexing" and w["pid"] == p.pid and w["operation"] == "reindex", st
    assert w["inThisServer"] is False and st["operation"] is None, st
    e = s.fail("manage_index", {"action": "sync", "path": root})
    assert e.code == "busy" and f"pid {p.pid}" in e.text, e.text
    a = s.call("search_codebase", {"path": root, "query": "other_3"})
    assert a["publication"]["id"] == 1, a
    assert any(w["code"] == "indexing_in_progress" and str(p.pid) in w["message"]
               for w in a["warnings"]), a
    assert p.wait(timeout=120) == 0
    st = s.call("manage_index", {"action": "status", "path": root})
    assert st["state"] == "ready" and st["publication"]["id"] == 2 and st["writer"] is None, st
    s.close()


def test_mcp_restart_reports_only_durable_state(ctx):
    root = copy_fixture(ctx)
    s = Session(ctx)
    op = s.call("manage_index", {"action": "create", "path": root, "waitMs": 60000})[
        "operation"]["operationId"]
    s.close()
    s = Session(ctx)
    e = s.fail("manage_index", {"action": "status", "operationId": op})
    assert e.code == "operation_unknown" and "after a restart" in e.text, e.text
    st = s.call("manage_index", {"action": "status", "path": root})
    assert st["state"] == "ready" and st["operation"] is None and st["writer"] is None, st
    assert st["publication"]["id"] == 1, st
    s.close()


# ------------------------------------------------------------------------------------------
# One publication per answer.

def test_mcp_searches_during_sync_cycles_never_mix_publications(ctx):
    n = 60
    root = make_files(ctx, n, lambda i: f"def unit_{i}():\n    alpha_marker = 'generation 0'\n")
    s = Session(ctx, env={"LOUPE_TEST_WRITE_DELAY_US": "2000", "LOUPE_FRESHNESS_TTL_MS": "0"})
    s.call("manage_index", {"action": "create", "path": root, "waitMs": 60000})
    generation_of = {1: 0}
    stop = threading.Event()
    answers, problems = [], []

    def searcher():
        while not stop.is_set():
            try:
                a = s.call("search_codebase", {"path": root, "query": "alpha_marker generation",
                                               "limit": 60, "disclosureLimit": 10})
            except ToolError as e:
                problems.append(e.text)
                continue
            answers.append(a)
            h = a["pagination"]["continuation"]
            if h:
                try:
                    more = s.call("continue_search", {"continuation": h, "limit": 20})
                    answers.append(more)
                except ToolError as e:
                    # Only a publication made after the search may refuse the handle.
                    if e.code != "continuation_drifted":
                        problems.append(e.text)

    threads = [threading.Thread(target=searcher) for _ in range(3)]
    for t in threads:
        t.start()
    try:
        for g in range(1, 6):
            for i in range(n):
                ctx.write(f"pkg/f{i:03d}.py",
                          f"def unit_{i}():\n    alpha_marker = 'generation {g}'\n", root=root)
            r = s.call("manage_index", {"action": "sync", "path": root, "waitMs": 60000})
            assert r["operation"]["state"] == "succeeded", r
            generation_of[r["operation"]["result"]["publicationId"]] = g
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert not problems, problems[:3]
    assert len(answers) >= 20, len(answers)
    seen_pubs = set()
    for a in answers:
        ids = publication_ids(a)
        assert len(set(ids.values())) == 1, f"one answer, several publications: {ids}"
        pub = a["publication"]["id"]
        seen_pubs.add(pub)
        gens = {r["snippet"].split("generation ")[1][0] for r in a["results"]}
        assert len(gens) <= 1, f"publication {pub}: snippets from generations {gens}"
        if gens and pub in generation_of:
            assert gens == {str(generation_of[pub])}, (pub, gens, generation_of)
    assert len(seen_pubs) >= 3, f"the searches saw only publications {seen_pubs}"
    s.close()


# ------------------------------------------------------------------------------------------
# Result budget and continuations.

def test_mcp_small_budget_shortens_the_page_not_the_set(ctx):
    root = make_files(ctx, 30, lambda i: f"def budget_{i}():\n    return 'budget marker {i}'\n" +
                      "# filler line\n" * 10)
    ctx.ok("index", root)
    s = Session(ctx, args=["--max-result-bytes", "3000"])
    a = s.call("search_codebase", {"path": root, "query": "budget marker", "disclosureLimit": 10,
                                   "limit": 30})
    shown = a["pagination"]["shown"]
    assert 1 <= shown < 10 and len(a["results"]) == shown, a["pagination"]
    assert any(w["code"] == "page_shortened" for w in a["warnings"]), a["warnings"]
    assert a["truncated"] is False, a
    ranks = [r["rank"] for r in a["results"]]
    h = a["pagination"]["continuation"]
    while h:
        b = s.call("continue_search", {"continuation": h})
        assert b["pagination"]["offset"] == len(ranks), b["pagination"]
        ranks += [r["rank"] for r in b["results"]]
        h = b["pagination"]["continuation"]
    assert ranks == list(range(1, 31)), ranks
    s.close()


def test_loupe_more_across_processes(ctx):
    root = make_files(ctx, 25, lambda i: f"def more_{i}():\n    return 'more marker'\n")
    ctx.ok("index", root)
    r = ctx.ok("search", "more", "marker", "--path", root, "--limit", "10", "--json").json()
    assert r["pagination"]["shown"] == 10 and r["pagination"]["frozen"] == 25, r["pagination"]
    h = r["pagination"]["continuation"]
    first = [g["owner"]["file"] for g in r["results"]]
    m = ctx.ok("more", h, "--json").json()
    assert [g["rank"] for g in m["results"]] == list(range(11, 21)), m
    assert m["publicationId"] == r["publicationId"] and m["query"] == "more marker", m
    assert not set(first) & {g["owner"]["file"] for g in m["results"]}
    last = ctx.ok("more", m["pagination"]["continuation"]).out
    assert "21. " in last and "25. " in last and "more:" not in last, last
    # The text output prints the handle to continue with.
    t = ctx.ok("search", "more", "marker", "--path", root, "--limit", "3").out
    assert "(22 more: loupe more c:1:" in t, t
    # A handle the MCP server made works in the CLI too (one cache in the state folder).
    s = Session(ctx)
    a = s.call("search_codebase", {"path": root, "query": "more marker", "disclosureLimit": 5})
    s.close()
    m = ctx.ok("more", a["pagination"]["continuation"], "--json").json()
    assert m["results"][0]["rank"] == 6, m
    # Failures carry their stable codes.
    bad = ctx.run("more", "nonsense", "--json")
    assert bad.rc == 1 and bad.json()["error"]["code"] == "continuation_malformed", bad
    ctx.write("pkg/f000.py", "def more_0():\n    return 'changed more marker'\n", root=root)
    ctx.ok("sync", root)
    d = ctx.run("more", h, "--json")
    assert d.json()["error"]["code"] == "continuation_drifted", d
    assert "run the search again" in d.json()["error"]["message"], d


def test_frozen_sets_are_bounded_and_expire(ctx):
    root = make_files(ctx, 12, lambda i: f"word_{i} = 'alpha beta gamma delta'\n")
    ctx.ok("index", root)
    env = {"LOUPE_FROZEN_MAX_SETS": "3"}
    handles = []
    for q in ("alpha", "beta", "gamma", "delta", "alpha beta"):
        r = ctx.ok("search", q, "--path", root, "--limit", "2", "--json", env=env).json()
        handles.append(r["pagination"]["continuation"])
    frozen = os.path.join(ctx.home, "frozen")
    files = [f for f in os.listdir(frozen) if f.endswith(".json")]
    assert len(files) == 3, files
    gone = ctx.run("more", handles[0], "--json", env=env)
    assert gone.rc == 7 and gone.json()["error"]["code"] == "continuation_unknown", gone
    assert ctx.ok("more", handles[-1], "--json", env=env).json()["results"]
    # The same search again rewrites the same set (no growth).
    ctx.ok("search", "alpha beta", "--path", root, "--limit", "2", env=env)
    assert len([f for f in os.listdir(frozen) if f.endswith(".json")]) == 3
    # Expiry: a short TTL, then the handle fails as expired and the file is gone.
    env2 = {"LOUPE_FROZEN_TTL_MS": "300"}
    r = ctx.ok("search", "gamma", "--path", root, "--limit", "2", "--json", env=env2).json()
    time.sleep(0.6)
    e = ctx.run("more", r["pagination"]["continuation"], "--json", env=env2)
    assert e.json()["error"]["code"] == "continuation_expired", e
    # Ordinary reads never touch the index database.
    dbs = [os.path.join(ctx.home, "roots", d, "index.db") for d in os.listdir(
        os.path.join(ctx.home, "roots"))]
    before = {d: os.stat(d).st_mtime_ns for d in dbs}
    ctx.ok("search", "delta", "--path", root, "--limit", "2")
    assert {d: os.stat(d).st_mtime_ns for d in dbs} == before


def test_mcp_outline_pages_instead_of_cutting(ctx):
    # 120 functions and 30 classes: more than a 3,000-byte budget holds.
    root = ctx.path("repo")
    body = "".join(f"def handler_{i}(x):\n    return x\n\n\n" for i in range(120))
    body += "".join(f"class Model{i}:\n    pass\n\n\n" for i in range(30))
    path = ctx.write("big.py", body, root=root)
    ctx.ok("index", root)
    s = Session(ctx, args=["--max-result-bytes", "3000"])
    seen, offset, calls = [], 0, 0
    while True:
        o = s.call("file_outline", {"path": path, "offset": offset})
        calls += 1
        assert o["truncated"] is False and o["symbolCount"] == 150 and o["matched"] == 150, o
        assert o["offset"] == offset and o["symbols"], o
        seen += [x["name"] for x in o["symbols"]]
        if o["nextOffset"] is None:
            break
        assert o["nextOffset"] == offset + len(o["symbols"]), o
        nxt = o["recommendedNextAction"]
        assert nxt["tool"] == "file_outline" and nxt["arguments"]["offset"] == o["nextOffset"], nxt
        assert any(w["code"] == "result_truncated" for w in o["warnings"]), o["warnings"]
        offset = o["nextOffset"]
    assert calls > 1 and len(seen) == 150 and len(set(seen)) == 150, (calls, len(seen))
    s.close()
    # Filters: kinds and namePrefix, with limit; the next call keeps them.
    s = Session(ctx)
    o = s.call("file_outline", {"path": path, "kinds": ["class"], "limit": 10})
    assert o["matched"] == 30 and [x["name"] for x in o["symbols"]] == [f"Model{i}" for i in range(10)], o
    assert o["nextOffset"] == 10 and o["recommendedNextAction"]["arguments"]["kinds"] == ["class"], o
    o = s.call("file_outline", {"path": path, "namePrefix": "handler_11"})
    assert [x["name"] for x in o["symbols"]] == ["handler_11"] + [f"handler_11{i}" for i in range(10)], o
    assert o["nextOffset"] is None and o["recommendedNextAction"]["tool"] == "read_file", o
    o = s.call("file_outline", {"path": path, "namePrefix": "nothing"})
    assert o["symbols"] == [] and any(w["code"] == "no_symbols" for w in o["warnings"]), o
    try:
        s.call("file_outline", {"path": path, "kinds": ["gizmo"]})
        assert False, "an unknown kind must fail"
    except ToolError as e:
        assert e.code == "invalid_argument" and "unknown kind 'gizmo'" in e.text, e.text
    s.close()


# ------------------------------------------------------------------------------------------
# Symbols (active once src/lang yields them).

def test_mcp_symbol_evidence(ctx):
    root = copy_fixture(ctx)
    ctx.ok("index", root)
    if not symbols_available(ctx, root):
        return
    s = Session(ctx)
    session_py = os.path.join(root, "src/auth/session.py")
    o = s.call("file_outline", {"path": session_py})
    by_name = {x["qualifiedName"]: x for x in o["symbols"]}
    cls = next(x for x in o["symbols"] if x["name"] == "Session")
    meth = next(x for x in o["symbols"] if x["name"] == "refresh_access_token")
    assert cls["kind"] == "class" and cls["parentId"] is None and cls["depth"] == 0, cls
    assert meth["kind"] == "method" and meth["parentId"] == cls["id"] and meth["depth"] == 1, meth
    assert meth["startLine"] == 18 and meth["endLine"] == 25, meth
    assert o["symbolCount"] == len(o["symbols"]) and "parse_config" in {
        x["name"] for x in o["symbols"]}, by_name
    assert o["recommendedNextAction"]["arguments"]["open_symbol"]["symbolId"] == o["symbols"][0]["id"]
    r = s.call("read_file", {"path": session_py, "open_symbol": {"symbolId": meth["id"]}})
    assert r["mode"] == "symbol" and r["symbol"]["id"] == meth["id"], r
    assert r["content"].startswith("18|     def refresh_access_token(self, client):\n"), r["content"]
    assert r["content"].rstrip("\n").endswith("25|         return self.token"), r["content"]
    assert r["publicationId"] == r["publication"]["id"] == o["publication"]["id"]
    # The id names its file: another file is refused, never guessed.
    e = s.fail("read_file", {"path": os.path.join(root, "src/auth/tokens.c"),
                             "open_symbol": {"symbolId": meth["id"]}})
    assert e.code == "not_found" and "src/auth/session.py" in e.text, e.text
    # A folder that contains the file is accepted.
    r2 = s.call("read_file", {"path": root, "open_symbol": {"symbolId": meth["id"]}})
    assert r2["content"] == r["content"]
    # Search: the top result for the method's own words is the method, opened next.
    a = s.call("search_codebase", {"path": root, "query": "refresh access token identity server"})
    top = a["results"][0]["owner"]
    assert top["id"] and top["file"] == "src/auth/session.py", a["results"][0]
    nxt = a["recommendedNextAction"]
    assert nxt["tool"] == "read_file" and nxt["arguments"]["open_symbol"]["symbolId"] == top["id"]
    r3 = s.call(nxt["tool"], nxt["arguments"])
    assert r3["symbol"]["id"] == top["id"]
    # Compacted ranges list the symbols inside the range.
    big = s.call("read_file", {"path": os.path.join(root, "src/data/big.py"), "start_line": 1,
                               "end_line": 521})
    assert big["compacted"] and len(big["symbols"]) >= 150, len(big["symbols"])
    assert all(x["kind"] == "function" for x in big["symbols"]), big["symbols"][:3]
    s.close()


def test_mcp_exit_cancels_running_build(ctx):
    root = make_files(ctx, 300, lambda i: f"def late_{i}():\n    pass\n")
    s = Session(ctx, env={"LOUPE_TEST_WRITE_DELAY_US": "20000"})
    op = s.call("manage_index", {"action": "create", "path": root})["operation"]["operationId"]
    wait_for(lambda: s.call("manage_index", {"action": "status", "operationId": op})
             ["operation"]["progress"]["filesDone"] > 2, what="build progress")
    t0 = time.time()
    s.close()  # stdin closes: the server cancels the build and exits cleanly
    assert time.time() - t0 < 15
    st = ctx.run("status", root, "--json", "--no-fresh")
    assert st.json()["state"] == "not_indexed" and "writer" not in st.json(), st


def test_doctor_reports_each_index(ctx):
    good = copy_fixture(ctx, dest="good")
    stale = copy_fixture(ctx, dest="stale")
    gone = copy_fixture(ctx, dest="gone")
    old = copy_fixture(ctx, dest="old")
    for r in (good, stale, gone, old):
        ctx.ok("index", r)
    ctx.write("src/auth/session.py", "def changed():\n    return 'a different size'\n", root=stale)
    import shutil
    import sqlite3
    shutil.rmtree(gone)
    base = os.path.join(ctx.home, "roots")
    for d in os.listdir(base):
        with open(os.path.join(base, d, "root")) as f:
            if f.read().strip() == old:
                con = sqlite3.connect(os.path.join(base, d, "index.db"))
                con.execute("UPDATE publications SET fingerprint = 'schema=0;older'")
                con.commit()
                con.close()
    r = ctx.run("doctor")
    assert r.rc == 1, r  # the requires_reindex root is a problem
    out = r.out
    assert f"ok    index          {good}: ready, publication 1 (6 files" in out, out
    assert f"warn  index          {stale}: stale" in out and f"fix: run 'loupe sync {stale}'" in out, out
    assert f"{gone}: the folder no longer exists" in out and f"'loupe clear {gone}'" in out, out
    assert f"FAIL  index          {old}: requires_reindex" in out, out
    assert f"fix: run 'loupe reindex {old}'" in out, out


def test_mcp_pooled_connections_never_serve_a_cleared_index(ctx):
    # searches reuse warm read connections; a clear (in this server or by another process)
    # followed by a new create must be seen at once, never answered from the old file
    root = make_files(ctx, 3, lambda i: f"def first_{i}():\n    return 'oldmarker'\n")
    s = Session(ctx, env={"LOUPE_FRESHNESS_TTL_MS": "0"})
    s.call("manage_index", {"action": "create", "path": root, "waitMs": 60000})
    for _ in range(3):  # leave idle connections in the pool
        a = s.call("search_codebase", {"path": root, "query": "oldmarker"})
        assert a["results"], a
    ctx.ok("clear", root)  # another process removes the database file
    e = s.fail("search_codebase", {"path": root, "query": "oldmarker"})
    assert e.code == "not_indexed", e.text
    for i in range(3):
        ctx.write(f"m{i}.py", f"def second_{i}():\n    return 'newmarker'\n", root=root)
    ctx.ok("index", root)
    a = s.call("search_codebase", {"path": root, "query": "newmarker"})
    assert a["results"] and all("second_" in r["owner"]["symbol"] for r in a["results"]), a
    assert a["publication"]["id"] == 1, a["publication"]
    s.close()


def test_mcp_text_block_is_a_compact_outline(ctx):
    """The text block of a tool result is an outline written for a model, not the JSON again:
    smaller, every string of structuredContent in it, a warning repeated in the session said
    once (its code marked "(as before)" afterwards), next calls as sendable JSON. With
    LOUPE_MCP_TEXT=json it is the JSON of structuredContent; another value refuses to start."""
    root = os.path.join(ctx.tmp, "repo")
    ctx.write("pkg/tokens.py", "def refresh_access_token(session):\n"
              "    '''Refresh the access token when it expires.'''\n"
              "    return session.renew()\n", root=root)
    ctx.ok("index", root, "--quiet")
    s = Session(ctx)
    texts = []
    for _ in range(2):
        raw = s.call_raw("search_codebase", {"path": root, "query": "refresh access token"})
        assert not raw.get("isError"), raw
        text, sc = raw["content"][0]["text"], raw["structuredContent"]
        assert len(text.encode()) < len(json.dumps(sc, separators=(",", ":")).encode())
        assert "refresh_access_token" in text and "snippet: |" in text, text
        assert '"open_symbol"' in text, text  # the next call, ready to send
        texts.append((text, sc))
    codes = [w["code"] for w in texts[0][1]["warnings"]]
    assert codes, texts[0][1]
    first, second = texts[0][0], texts[1][0]
    for w in texts[0][1]["warnings"]:
        assert w["message"] in first and f"{w['code']} (as before)" not in first, first
        assert f"{w['code']} (as before)" in second and w["message"] not in second, second
    s.close()

    s = Session(ctx, env={"LOUPE_MCP_TEXT": "json"})
    raw = s.call_raw("search_codebase", {"path": root, "query": "refresh access token"})
    assert json.loads(raw["content"][0]["text"]) == raw["structuredContent"]
    s.close()

    p = subprocess.run([ctx.loupe, "mcp"], input=b"", capture_output=True, timeout=30,
                       env=dict(ctx.env, LOUPE_MCP_TEXT="yaml"))
    assert p.returncode != 0, p
    assert b"LOUPE_MCP_TEXT" in p.stderr and b"outline" in p.stderr, p.stderr


def test_mcp_tools_list_output_schemas_only_when_asked(ctx):
    """tools/list leaves the output schemas out by default (a third of its tokens; results
    still carry structuredContent) and lists them with LOUPE_MCP_OUTPUT_SCHEMAS=1."""
    sizes = {}
    for flag in ("0", "1"):
        s = Session(ctx, env={"LOUPE_MCP_OUTPUT_SCHEMAS": flag})
        tools = s.request("tools/list", {})["result"]["tools"]
        has = [t["name"] for t in tools if "outputSchema" in t]
        assert has == ([] if flag == "0" else [t["name"] for t in tools]), (flag, has)
        sizes[flag] = len(json.dumps(tools))
        s.close()
    assert sizes["0"] * 1.4 < sizes["1"], sizes
