"""Multi-byte text at every cut: the fixture tests/fixtures/multibyte (long lines in
Devanagari, CJK, emoji, combining marks, a gettext .po catalog; see its make.py) goes through
search (text and --json, --limit 50, small byte budgets), read (pieces of long lines), outline
and the MCP tools. The files are valid UTF-8, so a cut that ends inside a character shows as
U+FFFD (or, before the fix, crashed `search --json` or printed nothing): no answer may hold
one, and every piece of a cut line must join back into the line."""
import json
import os
import re
import shutil

from mcp_client import Session

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(os.path.dirname(HERE), "fixtures", "multibyte")
QUERIES = [["account", "payment", "translation"], ["token", "refresh"], ["token", "emoji", "line"],
           ["renovar_token"], ["refresh_token_7"]]
PIECE = re.compile(r"^(\d+)(?::(\d+))?\| ")
MARK = re.compile(r" \u2026\[line (\d+) goes on at column (\d+) of (\d+)\]$")


def mb_root(ctx):
    root = os.path.join(ctx.tmp, "mb")
    shutil.copytree(FIXTURE, root)
    ctx.ok("index", root, "--quiet")
    return root


def strings(obj):
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from strings(v)


def assert_clean(obj, what):
    """No U+FFFD anywhere: every cut of this valid UTF-8 ended on a character."""
    n = 0
    for s in strings(obj):
        assert "\ufffd" not in s, f"{what}: a cut split a character: {s[:300]!r}"
        n += 1
    return n


def line_of(root, rel, n):
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        return f.read().split("\n")[n - 1]


def test_search_json_limit_50_keeps_every_result_whole(ctx):
    root = mb_root(ctx)
    for words in QUERIES:
        for _ in range(3):  # the crash was not every run
            r = ctx.run("search", *words, "--path", root, "--json", "--limit", "50")
            assert r.rc == 0 and r.out.strip(), f"search {words}: {r!r}"
            j = r.json()
            assert j["results"], (words, j)
            assert len(j["results"]) == j["pagination"]["shown"], (words, j["pagination"])
            assert_clean(j, f"search --json {words}")
            for g in j["results"]:
                for line in g["snippet"].splitlines():
                    text = PIECE.sub("", line, count=1)
                    assert len(text.encode()) <= 200, line  # snippet lines are cut at 200 bytes


def test_search_text_output_is_valid_utf8(ctx):
    root = mb_root(ctx)
    for words in QUERIES:
        r = ctx.ok("search", *words, "--path", root, "--limit", "50")
        # ctx.run decodes with errors="replace": a byte that is not UTF-8 would be U+FFFD.
        assert "\ufffd" not in r.out, (words, r.out[:2000])
        assert r.out.count("\n") > 2, r


def follow_cli(ctx, root, rel, line, max_bytes, json_mode):
    """Read one line in pieces (loupe read FILE:LINE:COL) until it is whole; return its
    text. Each piece must start where the last one said, and move on."""
    col, text, calls = 1, "", 0
    while True:
        calls += 1
        assert calls < 10000, "the read never finished"
        arg = f"{root}/{rel}:{line}" if col == 1 else f"{root}/{rel}:{line}:{col}-{line}"
        if json_mode:
            j = ctx.ok("read", arg, "--max-bytes", str(max_bytes), "--json").json()
            assert_clean(j, f"read {arg}")
            content, cut = j["content"], j["lineCut"]
            assert j["startColumn"] == col, (arg, j)
            nxt = cut["nextColumn"] if cut else None
        else:
            r = ctx.ok("read", arg, "--max-bytes", str(max_bytes))
            assert "\ufffd" not in r.out, r
            content = r.out
            m = re.search(r"read on with .*:(\d+):(\d+)$", r.err.strip())
            nxt = int(m.group(2)) if m else None
            if m:
                assert int(m.group(1)) == line, r.err
        assert len(content.encode()) <= max_bytes, (arg, len(content.encode()))
        body = content[:-1] if content.endswith("\n") else content
        m = PIECE.match(body)
        assert m and int(m.group(1)) == line, body[:80]
        assert int(m.group(2) or 1) == col, (arg, body[:80])
        body = body[m.end():]
        mark = MARK.search(body)
        if nxt is None:
            assert not mark, body[-120:]
            return text + body
        assert mark and int(mark.group(2)) == nxt, body[-120:]
        piece = body[:mark.start()]
        assert piece, f"{arg}: a piece without any character"
        assert nxt > col, f"{arg}: the next column {nxt} does not move on"
        assert len(piece.encode()) == nxt - col, (arg, nxt, col, len(piece.encode()))
        text += piece
        col = nxt


def test_read_cuts_long_lines_at_characters_and_reads_on(ctx):
    root = mb_root(ctx)
    cases = [("locale/hi/LC_MESSAGES/django.po", 8), ("docs/cjk.md", 3), ("notes/emoji.txt", 2),
             ("src/combining.py", 5), ("src/minified.js", 1)]
    for rel, line in cases:
        want = line_of(root, rel, line)
        assert len(want.encode()) > 700, (rel, line)
        for max_bytes, json_mode in ((256, True), (301, False), (333, True)):
            got = follow_cli(ctx, root, rel, line, max_bytes, json_mode)
            assert got == want, (rel, line, max_bytes, got[:100], want[:100])


def test_outline_of_multibyte_files(ctx):
    root = mb_root(ctx)
    j = ctx.ok("outline", f"{root}/src/combining.py", "--json").json()
    assert_clean(j, "outline --json")
    names = {s["qualifiedName"] for s in j["symbols"]}
    assert "Sessão" in names and "Sessão.renovar_token" in names, names
    r = ctx.ok("outline", f"{root}/docs/cjk.md")
    assert "\ufffd" not in r.out and "セクション" in r.out, r


def follow_mcp(s, args, want):
    """Call read_file with args, then each recommended read_file call, until the line is
    whole; no recommended call may repeat the one just made."""
    text, seen = "", set()
    while True:
        key = json.dumps(args, sort_keys=True)
        assert key not in seen, f"read_file recommended a call it already answered: {key}"
        seen.add(key)
        res = s.call("read_file", args)
        assert_clean(res, f"read_file {args}")
        body = res["content"]
        m = PIECE.match(body)
        assert m, body[:80]
        body = body[m.end():].rstrip("\n")
        cut = res["lineCut"]
        if cut:
            mark = MARK.search(body)
            assert mark, body[-120:]
            assert int(mark.group(2)) == cut["nextColumn"], (mark.group(0), cut)
            text += body[:mark.start()]
            nxt = res["recommendedNextAction"]
            assert nxt["tool"] == "read_file", nxt
            assert nxt["arguments"]["start_column"] == cut["nextColumn"], nxt
            assert res["nextRange"]["start_column"] == cut["nextColumn"], res["nextRange"]
            args = nxt["arguments"]
        else:
            text += body.split("\n")[0]
            return text
        assert len(seen) < 5000


def test_mcp_tools_with_small_budgets(ctx):
    root = mb_root(ctx)
    s = Session(ctx, ["--max-result-bytes", "2048"])
    try:
        for words in QUERIES:
            res = s.call("search_codebase", {"path": root, "query": " ".join(words), "limit": 20})
            assert_clean(res, f"search_codebase {words}")
            assert res["results"], res
        out = s.call("file_outline", {"path": f"{root}/src/combining.py"})
        assert_clean(out, "file_outline")
        out = s.call("file_outline", {"path": f"{root}/locale/hi/LC_MESSAGES/django.po"})
        assert_clean(out, "file_outline .po")
        want = line_of(root, "src/minified.js", 1)
        got = follow_mcp(s, {"path": f"{root}/src/minified.js", "start_line": 1}, want)
        assert got == want, (got[:120], want[:120])
        want = line_of(root, "notes/emoji.txt", 5)
        got = follow_mcp(s, {"path": f"{root}/notes/emoji.txt", "start_line": 5, "end_line": 5},
                         want)
        assert got == want
    finally:
        s.close()


def test_mcp_read_file_column_past_the_line(ctx):
    root = mb_root(ctx)
    s = Session(ctx)
    try:
        e = s.fail("read_file", {"path": f"{root}/docs/cjk.md", "start_line": 2,
                                 "start_column": 5})
        assert e.code == "invalid_argument" and "column 5 is past its end" in e.text, e.text
        # A column inside a character starts at that character.
        res = s.call("read_file", {"path": f"{root}/docs/cjk.md", "start_line": 1,
                                   "start_column": 3, "end_line": 1})
        assert res["startColumn"] == 3 and res["content"].startswith("1:3| 访"), res
        res = s.call("read_file", {"path": f"{root}/docs/cjk.md", "start_line": 1,
                                   "start_column": 4, "end_line": 1})
        assert res["startColumn"] == 3, res
    finally:
        s.close()
