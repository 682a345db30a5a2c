"""The tool table and the warning table: the two routes (MCP, CLI) answer call_graph with the
same content and take the same arguments with the same limits; no file but src/core/warn.h
writes a warning code; docs/ARCHITECTURE.md lists every code."""
import json
import os
import re
import shutil
import subprocess
import sys

from mcp_client import Session

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "tests", "fixtures", "graph")
VOLATILE = ("timingMs", "codebaseRoot", "publicationId", "publication", "freshness",
            "recommendedNextAction", "truncated", "warnings", "protocolVersion")


def _warn_codes():
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import importlib.machinery
    mod = importlib.machinery.SourceFileLoader("warn_doc", os.path.join(ROOT, "tools", "warn-doc")).load_module()
    return mod.codes()


def test_warning_codes_are_written_only_in_the_table(ctx):
    codes = _warn_codes()
    assert len(codes) >= 50, codes
    # Codes that are also JSON keys or common words are checked at warning call sites only.
    generic = {"evidence", "scope"}
    # Catalog and CLI error codes that share a spelling with a warning (errors, not warnings).
    allowed = {("src/catalog/util.c", "file_too_large"), ("src/cli/cmd_tools.c", "file_too_large")}
    found = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "src")):
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, ROOT)
            if rel in ("src/core/warn.h", "src/core/warn.c"):
                continue
            for n, line in enumerate(open(path, errors="replace"), 1):
                s = line.strip()
                if s.startswith(("*", "/*", "//")):
                    continue
                for _, code, _, _ in codes:
                    if (rel, code) in allowed:
                        continue
                    if code in generic:
                        hit = re.search(r'_warn[a-z_]*\([^"]*"%s"' % code, line)
                    else:
                        hit = re.search(r'"%s(: |:|")' % re.escape(code), line)
                    if hit:
                        found.append(f"{rel}:{n}: {s[:120]}")
    assert not found, "warning codes written outside src/core/warn.h:\n" + "\n".join(found)
    # the two spellings the routes used to disagree on are gone
    for old in ("publication_partial", "results_truncated"):
        assert not any(c == old for _, c, _, _ in codes), old


def test_architecture_doc_lists_every_warning_code(ctx):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "warn-doc"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    doc = open(os.path.join(ROOT, "docs", "ARCHITECTURE.md")).read()
    for _, code, _, _ in _warn_codes():
        assert f"`{code}`" in doc, code


def _project(ctx):
    dst = ctx.path("proj")
    shutil.copytree(os.path.join(FIX, "python"), dst)
    os.remove(os.path.join(dst, "labels.txt"))
    ctx.ok("index", dst)
    return dst


def test_call_graph_same_answer_on_both_routes(ctx):
    proj = _project(ctx)
    sid = ctx.ok("symbol", "Service.add", "--json", cwd=proj).json()["definitions"][0]["id"]
    s = Session(ctx)
    try:
        s.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                 "clientInfo": {"name": "t", "version": "1"}})
        for args, cli in ((["--depth", "1"], {"depth": 1}),
                          (["--callers", "--max-nodes", "2"], {"direction": "callers", "maxNodes": 2}),
                          (["--callees", "--max-edges", "1", "--depth", "3"],
                           {"direction": "callees", "maxEdges": 1, "depth": 3})):
            got = s.call("call_graph", dict({"path": proj, "symbolId": sid}, **cli))
            want = ctx.ok("calls", sid, "--json", *args, cwd=proj).json()
            for k in VOLATILE:
                got.pop(k, None)
                want.pop(k, None)
            assert got == want, (args, json.dumps(got)[:600], json.dumps(want)[:600])
        # the same limits: what MCP refuses, the CLI refuses
        err = s.fail("call_graph", {"path": proj, "symbolId": sid, "depth": 6})
        assert "depth" in err.text, err.text
        r = ctx.run("calls", sid, "--depth", "6", cwd=proj)
        assert r.rc == 2 and "--depth needs a whole number from 1 to 5" in r.err, r
        tools = {t["name"]: t for t in s.request("tools/list")["result"]["tools"]}
    finally:
        s.close()
    # every CLI option of the generated command is a schema property with the same range
    props = tools["call_graph"]["inputSchema"]["properties"]
    help_text = ctx.ok("calls", "--help").out
    for name, flag in (("depth", "--depth"), ("maxNodes", "--max-nodes"), ("maxEdges", "--max-edges")):
        p = props[name]
        assert re.search(r"%s N .*, %d-%d \(default %d\)  \[%s\]" % (flag, p["minimum"], p["maximum"],
                                                                     p["default"], name),
                         help_text), (name, help_text)
    assert "[direction]" in help_text and "--callers|--callees" in help_text, help_text
