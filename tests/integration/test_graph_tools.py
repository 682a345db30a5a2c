"""The graph tools through the CLI with --json: calls, trace, refs, changes, arch, and the
capability table in status. Projects are copies of tests/fixtures/graph/<lang>/."""
import json
import os
import shutil
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "tests", "fixtures", "graph")


def _project(ctx, lang, git=False):
    dst = ctx.path("proj-" + lang)
    shutil.copytree(os.path.join(FIX, lang), dst)
    os.remove(os.path.join(dst, "labels.txt"))
    if git:
        env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
                   GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com")
        for cmd in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "base"]):
            subprocess.run(cmd, cwd=dst, check=True, env=env, capture_output=True)
    ctx.ok("index", dst)
    return dst


def _id(ctx, proj, name):
    r = ctx.ok("symbol", name, "--json", cwd=proj).json()
    assert len(r["definitions"]) == 1, r
    return r["definitions"][0]["id"]


def test_calls_callers_and_callees(ctx):
    proj = _project(ctx, "python")
    r = ctx.ok("calls", "Service.add", "--json", "--depth", "1", cwd=proj).json()
    assert r["root"]["qualifiedName"] == "Service.add"
    callees = {(e["to"], e["strategy"]) for e in r["edges"]}
    names = {n["id"]: n["qualifiedName"] for n in r["nodes"]}
    got = {(names.get(t, t), s) for t, s in callees}
    assert ("Service.log", "python.self_method") in got, got
    assert ("format_name", "python.import") in got, got
    assert ("User", "python.constructor") in got, got
    assert ("Model.save", "python.typed_receiver") in got or \
        ("Model.save", "python.base_method") in got, got
    for e in r["edges"]:
        assert e["callSite"]["file"] == "app/service.py" and e["callSite"]["startLine"] > 0
    s = r["evidenceSummary"]["callees"]
    assert s["provedCalls"] == 4 and s["unresolved"] == 1, s
    reasons = {u["reason"] for u in r["unresolvedCallees"]}
    assert "receiver_expression" in reasons, r["unresolvedCallees"]  # self.users.append
    assert r["capabilities"][0]["language"] == "python"
    assert "cannotSee" in r["capabilities"][0]
    # callers of make_service: process and the test, with the test also as a TESTS edge
    r = ctx.ok("calls", "make_service", "--callers", "--json", cwd=proj).json()
    callers = {n["qualifiedName"] for n in r["nodes"] if n["side"] == "caller"}
    assert callers == {"process", "test_add"}, callers
    assert [t["qualifiedName"] for t in r["tests"]] == ["test_add"], r["tests"]


def test_calls_reports_shadowed_and_untyped(ctx):
    proj = _project(ctx, "python")
    r = ctx.ok("calls", "Service.shadow", "--callees", "--json", cwd=proj).json()
    assert r["edges"] == []
    assert [u["reason"] for u in r["unresolvedCallees"]] == ["shadowed"]
    r = ctx.ok("calls", "Handler.handle", "--callees", "--json", cwd=proj).json()
    assert r["edges"] == []
    assert [u["reason"] for u in r["unresolvedCallees"]] == ["receiver_untyped"]
    # handler.handle(self) in Service.run is a possible caller, never an edge; the proved
    # caller is LoudHandler.handle's Handler.handle(self, s)
    r = ctx.ok("calls", "Handler.handle", "--callers", "--json", cwd=proj).json()
    names = {n["id"]: n["qualifiedName"] for n in r["nodes"]}
    assert [names[e["from"]] for e in r["edges"]] == ["LoudHandler.handle"], r["edges"]
    assert r["evidenceSummary"]["callers"]["unresolvedSameName"] == 1
    assert r["possibleCallers"][0]["callee"] == "handler.handle"


def test_calls_ambiguous_candidates(ctx):
    proj = _project(ctx, "go")
    r = ctx.ok("calls", "Platform", "--callees", "--json", cwd=proj).json()
    assert r["edges"] == []
    amb = r["ambiguousCallees"]
    assert len(amb) == 1 and amb[0]["candidateCount"] == 2, amb
    files = sorted(c["file"] for c in amb[0]["candidates"])
    assert files == ["store/repo_linux.go", "store/repo_windows.go"], files


def test_calls_formats_and_errors(ctx):
    proj = _project(ctx, "javascript")
    dot = ctx.ok("calls", "main", "--format", "dot", cwd=proj).out
    assert dot.startswith("digraph calls {") and "->" in dot and dot.rstrip().endswith("}")
    mer = ctx.ok("calls", "main", "--format", "mermaid", cwd=proj).out
    assert mer.startswith("graph LR") and "-->" in mer
    r = ctx.run("calls", "sym:000000000000000000000000", "--json", cwd=proj)
    assert r.rc == 7 and r.json()["error"]["code"] == "not_found", r
    r = ctx.run("calls", "not-an-id:x", cwd=proj)
    assert r.rc == 7, r
    r = ctx.run("calls", "main", "--depth", "9", cwd=proj)
    assert r.rc == 2 and "--depth" in r.err, r
    r = ctx.run("calls", "main", "--format", "svg", cwd=proj)
    assert r.rc == 2, r


def test_calls_ambiguous_name_argument(ctx):
    proj = _project(ctx, "python")
    r = ctx.run("calls", "helper", cwd=proj)  # util.helper and other.helper
    assert r.rc == 8 and "sym:" in r.err, r


def test_trace_path(ctx):
    proj = _project(ctx, "python")
    src = _id(ctx, proj, "test_add")
    dst = _id(ctx, proj, "Service")
    r = ctx.ok("trace", src, dst, "--json", cwd=proj).json()
    assert r["found"] and r["length"] >= 1
    assert r["path"][0]["id"] == src and r["path"][-1]["id"] == dst
    for e in r["edges"]:
        assert e["kind"] == "calls" and e["strategy"].startswith("python.")
    # no path: the answer says so and why it proves nothing
    r = ctx.ok("trace", dst, src, "--json", cwd=proj).json()
    assert not r["found"] and r["path"] == []
    assert any(w["code"] == "no_proved_path" for w in r["warnings"])
    # budgets are reported
    a = _id(ctx, proj, "test_add")
    b = _id(ctx, proj, "Model.validate")
    r = ctx.ok("trace", a, b, "--max-depth", "1", "--json", cwd=proj).json()
    assert not r["found"] and r["truncation"]["depth"]
    # imports between files
    r = ctx.ok("trace", "file:tests/test_service.py", "file:app/service.py", "--kinds",
               "imports,contains", "--json", cwd=proj).json()
    assert r["found"] is False or r["path"][-1]["file"] == "app/service.py"
    r = ctx.ok("trace", "file:app/__init__.py", _id(ctx, proj, "Service"), "--kinds", "imports",
               "--json", cwd=proj).json()
    assert r["found"] and r["edges"][0]["kind"] == "imports"


def test_find_references(ctx):
    proj = _project(ctx, "python")
    r = ctx.run("refs", "format_name", "--json", cwd=proj)
    assert r.rc == 8  # util.format_name and other.format_name: ambiguous name
    fid = None
    defs = ctx.ok("symbol", "format_name", "--json", cwd=proj).json()["definitions"]
    for d in defs:
        if d["file"] == "app/util.py":
            fid = d["id"]
    r = ctx.ok("refs", fid, "--json", cwd=proj).json()
    files = [(m["file"], m["line"]) for m in r["matches"]]
    assert ("app/util.py", 5) in files and ("app/other.py", 6) in files, files
    assert ("app/service.py", 4) in files, files  # the import line
    assert files == sorted(files), "path order"
    assert r["coverage"]["state"] == "complete"
    assert r["coverage"]["filesScanned"] == r["coverage"]["filesInPublication"]
    d = [m for m in r["matches"] if m["isDefinition"]]
    assert len(d) == 1 and d[0]["file"] == "app/util.py"
    owners = {m["file"]: (m["owner"] or {}).get("qualifiedName") for m in r["matches"]}
    assert owners["app/util.py"] == "format_name"
    # identifier boundaries: 'helper' does not match 'helper_x'
    ctx.write("app/extra.py", "helper_x = 1\nxhelper = 2\n", root=proj)
    ctx.ok("sync", proj)
    hid = [d["id"] for d in ctx.ok("symbol", "helper", "--json", cwd=proj).json()["definitions"]
           if d["file"] == "app/util.py"][0]
    r = ctx.ok("refs", hid, "--json", cwd=proj).json()
    assert all(m["file"] != "app/extra.py" for m in r["matches"])
    # budgets make it partial
    r = ctx.ok("refs", hid, "--max", "1", "--json", cwd=proj).json()
    assert len(r["matches"]) == 1 and r["coverage"]["state"] == "partial"
    assert "max_results" in r["coverage"]["reasons"]
    r = ctx.ok("refs", hid, "--prefix", "app", "--json", cwd=proj).json()
    assert all(m["file"].startswith("app/") for m in r["matches"])
    # "app/", "./app" and "app" are the same folder; "./" is the whole root.
    for spelling in ("app/", "./app", "./app/"):
        r2 = ctx.ok("refs", hid, "--prefix", spelling, "--json", cwd=proj).json()
        assert r2["matches"] == r["matches"] and r2["coverage"]["filesScanned"] > 0, (spelling, r2)
    r2 = ctx.ok("refs", hid, "--prefix", "./", "--json", cwd=proj).json()
    assert r2["coverage"]["filesScanned"] == r2["coverage"]["filesInPublication"], r2
    # A folder that holds no published file says so instead of a silent empty answer.
    r2 = ctx.ok("refs", hid, "--prefix", "nowhere", "--json", cwd=proj).json()
    assert r2["matches"] == [] and r2["coverage"]["filesScanned"] == 0, r2
    assert any(w["code"] == "no_files_match" for w in r2["warnings"]), r2["warnings"]


def test_detect_changes(ctx):
    proj = _project(ctx, "python", git=True)
    # edit a method body, delete a function, then sync
    p = os.path.join(proj, "app", "util.py")
    with open(p) as f:
        text = f.read()
    text = text.replace("return x * 2", "y = x * 2\n    return y")
    with open(p, "w") as f:
        f.write(text)
    p2 = os.path.join(proj, "app", "models.py")
    with open(p2) as f:
        t2 = f.read()
    t2 = t2.replace("    def greet(self):\n        return self.save()\n", "")
    with open(p2, "w") as f:
        f.write(t2)
    ctx.ok("sync", proj)
    r = ctx.ok("changes", "--json", cwd=proj).json()
    files = {f["file"]: f for f in r["changedFiles"]}
    assert set(files) == {"app/util.py", "app/models.py"}, files
    assert not files["app/util.py"]["stale"]
    changed = {s["qualifiedName"] for s in r["changedSymbols"]}
    assert "helper" in changed, changed
    deleted = {s["qualifiedName"] for s in r["deletedSymbols"]}
    assert deleted == {"User.greet"}, deleted
    callers = {c["qualifiedName"]: c for c in r["callers"]}
    assert callers["Service.log"]["relation"] == "direct"
    assert callers["Service.log"]["path"][-1] == [s["id"] for s in r["changedSymbols"]
                                                 if s["qualifiedName"] == "helper"][0]
    assert callers["Service.add"]["relation"] == "transitive"
    assert callers["Service.add"]["depth"] == 2
    assert r["summary"]["directCallers"] >= 1 and r["summary"]["transitiveCallers"] >= 1
    # an unsynced edit is reported stale; untracked files are not part of the diff
    with open(p, "a") as f:
        f.write("\n\ndef extra():\n    return helper(1)\n")
    ctx.write("app/new_untracked.py", "def z():\n    pass\n", root=proj)
    r = ctx.ok("changes", "--json", cwd=proj).json()
    files = {f["file"]: f for f in r["changedFiles"]}
    assert files["app/util.py"]["stale"] and "app/new_untracked.py" not in files
    assert any(w["code"] == "stale_files" for w in r["warnings"])
    # a bad base ref, and a root outside git
    r = ctx.run("changes", "--base", "no-such-ref", "--json", cwd=proj)
    assert r.rc != 0 and "baseRef" in r.json()["error"]["message"]
    plain = _project(ctx, "go")
    r = ctx.run("changes", "--json", cwd=plain)
    assert r.rc != 0 and "git" in r.json()["error"]["message"]


def test_architecture(ctx):
    proj = _project(ctx, "go")
    r = ctx.ok("arch", "--json", cwd=proj).json()
    names = {p["name"]: p for p in r["packages"]}
    assert "./" in names and "store/" in names and "util/" in names, names
    assert "util/" in names and names["util/"]["files"] == 1  # runtime scope: no _test.go
    deps = {(d["from"], d["to"]): d for d in r["dependencies"]}
    assert deps[("./", "store/")]["calls"] >= 1 and deps[("./", "store/")]["imports"] >= 1
    assert names["store/"]["fanIn"] == 1 and names["./"]["fanOut"] == 2
    assert r["cycles"] == []
    r = ctx.ok("arch", "--scope", "all", "--json", cwd=proj).json()
    assert {p["name"]: p for p in r["packages"]}["util/"]["files"] == 2
    r = ctx.ok("arch", "--subtree", "store", "--json", cwd=proj).json()
    assert [p["name"] for p in r["packages"]] == ["store/"]
    dot = ctx.ok("arch", "--format", "dot", cwd=proj).out
    assert "digraph architecture" in dot and '"./" -> "store/"' in dot
    mer = ctx.ok("arch", "--format", "mermaid", cwd=proj).out
    assert mer.startswith("graph LR") and "-->" in mer


def test_architecture_cycles_and_packages(ctx):
    proj = _project(ctx, "java")
    r = ctx.ok("arch", "--json", cwd=proj).json()
    names = {p["name"] for p in r["packages"]}
    assert {"com.shop", "com.shop.store", "com.shop.util"} <= names, names
    # a cycle: a imports b, b calls a
    ctx.write("cyc/a.py", "from cyc.b import g\n\ndef f():\n    return g()\n", root=proj)
    ctx.write("cyc/b.py", "def g():\n    from cyc.c.d import h\n    return h()\n", root=proj)
    ctx.write("cyc/c/d.py", "from cyc.a import f\n\ndef h():\n    return f()\n", root=proj)
    ctx.ok("sync", proj)
    r = ctx.ok("arch", "--json", cwd=proj).json()
    assert ["cyc/", "cyc/c/"] in r["cycles"], r["cycles"]


def test_status_capabilities(ctx):
    proj = _project(ctx, "c")
    r = ctx.ok("status", "--json", cwd=proj).json()
    caps = {c["language"]: c for c in r["graph"]["capabilities"]}
    assert len(caps) == 11  # ten languages, TSX counted apart
    assert caps["javascript"]["exports"] and not caps["python"]["exports"]
    assert all(c["calls"] and c["imports"] for c in caps.values())
    assert r["graph"]["edges"]["calls"] == 7 and r["graph"]["edges"]["imports"] >= 4
    # unresolved calls are counted apart from edges (the C fixture has some: printf, a
    # shadowed name)
    assert r["graph"]["unresolvedCalls"] >= 1
    out = ctx.ok("status", cwd=proj).out
    assert "unresolved calls" in out
    assert "graph capabilities" in out and "scala" in out
