"""Bytes that are not UTF-8, in file names, folder names and file content, have one
representation everywhere (docs/ARCHITECTURE.md, "Bytes that are not UTF-8"): text shows each
such byte as U+FFFD; a path also comes in its escaped form (`<key>Bytes`: %HH for each such
byte and for '%'), which every path input accepts back (CLI arguments, MCP pathBytes). No
--json command prints nothing with exit 0, and nothing is dropped (before: read/outline --json
printed nothing, search --json showed results [] with shown 1, list --json lost root)."""
import json
import os
import subprocess

from mcp_client import Session

LATIN1_PY = b"def caf\xe9(x):\n    \"\"\"Na\xefve caf\xe9 token helper.\"\"\"\n    return x\n"


def bytes_root(ctx, name=b"r\xe9po"):
    root = os.path.join(os.fsencode(ctx.tmp), name)
    os.makedirs(os.path.join(root, b"src"))
    with open(os.path.join(root, b"src", b"caf\xe9.py"), "wb") as f:
        f.write(LATIN1_PY)
    with open(os.path.join(root, b"src", b"plain.py"), "wb") as f:
        f.write(b"def plain_token():\n    return 1\n")
    run(ctx, "index", root, "--quiet")
    return root


def run(ctx, *args, cwd=None):
    """loupe with bytes arguments; stdout must be UTF-8 (JSON output is ASCII)."""
    r = subprocess.run([ctx.loupe, *args], cwd=cwd or ctx.tmp, env=ctx.env, capture_output=True,
                       timeout=300)
    err = r.stderr.decode("utf-8", "replace")
    assert "AddressSanitizer" not in err and "runtime error:" not in err, err[-3000:]
    assert r.returncode == 0, (args, r.returncode, err)
    return r.stdout.decode("utf-8"), err  # strict: the output is UTF-8


def run_json(ctx, *args):
    out, _ = run(ctx, *args)
    assert out.strip(), f"loupe {args} printed nothing with exit 0"
    return json.loads(out)


def test_cli_json_keeps_names_and_content_that_are_not_utf8(ctx):
    root = bytes_root(ctx)
    shown_root = os.fsdecode(root).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    esc_root = shown_root.replace("\ufffd", "%E9")  # the only such byte in the test folder
    f = os.path.join(root, b"src", b"caf\xe9.py")

    j = run_json(ctx, "read", f, "--json")
    assert j["path"] == "src/caf\ufffd.py" and j["pathBytes"] == "src/caf%E9.py", j
    assert j["root"] == shown_root and j["rootBytes"] == esc_root, j
    assert "def caf\ufffd(x):" in j["content"] and "Na\ufffdve" in j["content"], j

    j = run_json(ctx, "outline", f, "--json")
    assert j["file"] == "src/caf\ufffd.py" and j["fileBytes"] == "src/caf%E9.py", j
    # (tree-sitter ends the identifier at the byte that is not UTF-8)
    assert [s["name"] for s in j["symbols"]] == ["caf"], j["symbols"]
    assert j["symbols"][0]["fileBytes"] == "src/caf%E9.py", j["symbols"][0]

    j = run_json(ctx, "search", "token", "helper", "--path", root, "--json")
    assert j["pagination"]["shown"] == len(j["results"]) > 0, j
    hit = [g for g in j["results"] if g["owner"]["file"] == "src/caf\ufffd.py"]
    assert hit and hit[0]["owner"]["fileBytes"] == "src/caf%E9.py", j["results"]
    args = hit[0]["recommendedNextAction"]["arguments"]
    assert args["pathBytes"] == esc_root + "/src/caf%E9.py", args
    assert j["codebaseRootBytes"] == esc_root, j

    j = run_json(ctx, "list", "--json")
    (c,) = j["codebases"]
    assert c["root"] == shown_root and c["rootBytes"] == esc_root, c

    j = run_json(ctx, "status", root, "--json")
    assert j["rootBytes"] == esc_root, j


def test_cli_accepts_the_escaped_form_back_and_shows_it(ctx):
    root = bytes_root(ctx)
    esc = os.fsencode(ctx.tmp) + b"/r%E9po/src/caf%E9.py"
    j = run_json(ctx, "read", esc, "--json")
    assert j["pathBytes"] == "src/caf%E9.py" and "caf\ufffd" in j["content"], j
    j = run_json(ctx, "read", esc + b":2", "--json")
    assert j["startLine"] == 2 and j["content"].startswith("2| "), j
    out, _ = run(ctx, "outline", esc)
    # Plain output: the path in its escaped form (it can be given back), text with U+FFFD.
    assert out.startswith("src/caf%E9.py (1 symbols"), out
    out, _ = run(ctx, "read", os.path.join(root, b"src", b"caf\xe9.py"))
    assert "1| def caf\ufffd(x):" in out, out
    out, _ = run(ctx, "list")
    assert "r%E9po" in out, out


def test_mcp_paths_that_are_not_utf8_round_trip_through_pathBytes(ctx):
    root = bytes_root(ctx)
    s = Session(ctx)
    try:
        # The root itself cannot be sent as a JSON string: pathBytes says it.
        esc_root = os.fsdecode(root).encode("utf-8", "surrogateescape").decode(
            "utf-8", "replace").replace("\ufffd", "%E9")
        res = s.call("search_codebase", {"path": "ignored when pathBytes is given",
                                         "pathBytes": esc_root, "query": "token helper"})
        hit = [g for g in res["results"] if g["owner"]["file"] == "src/caf\ufffd.py"]
        assert hit, res["results"]
        nxt = hit[0]["recommendedNextAction"]
        assert nxt["tool"] == "read_file" and nxt["arguments"]["pathBytes"].endswith(
            "/src/caf%E9.py"), nxt
        got = s.call("read_file", nxt["arguments"])
        assert got["fileBytes"] == "src/caf%E9.py" and "caf\ufffd" in got["content"], got
        out = s.call("file_outline", {"path": "x", "pathBytes": esc_root + "/src/caf%E9.py"})
        assert out["symbols"][0]["name"] == "caf" and out["fileBytes"] == "src/caf%E9.py", out
        assert out["recommendedNextAction"]["arguments"]["pathBytes"].endswith("caf%E9.py"), out
        e = s.fail("read_file", {"path": "x", "pathBytes": esc_root + "/src/caf%G9.py"})
        assert e.code == "invalid_argument" and "pathBytes" in e.text, e.text
        e = s.fail("read_file", {"path": "x", "pathBytes": esc_root + "/src/%00.py"})
        assert e.code == "invalid_argument" and "NUL" in e.text, e.text
    finally:
        s.close()
