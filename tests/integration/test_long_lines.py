"""A line longer than the read budget (a minified one-line file): it is served in pieces cut
where a character ends, each marked with where the line goes on, and the recommended next
call always moves on, until the whole line was read (never content "" with the same call
recommended again, never 0 bytes with exit 0)."""
import json
import os
import re

from mcp_client import Session

MARK = re.compile(r" \u2026\[line (\d+) goes on at column (\d+) of (\d+)\]$")
PIECE = re.compile(r"^(\d+)(?::(\d+))?\| ")


def minified(ctx, kib=600):
    """One line of about kib KiB of JavaScript with multi-byte strings here and there."""
    root = ctx.path("min")
    os.makedirs(root)
    parts, size, i = [], 0, 0
    while size < kib * 1024:
        s = f'function f{i}(a){{return a+"{"é" * (i % 5)}{"界" * (i % 3)}{"🙂" * (i % 2)}"}};'
        parts.append(s)
        size += len(s.encode())
        i += 1
    text = "".join(parts)
    with open(os.path.join(root, "min.js"), "w", encoding="utf-8") as f:
        f.write(text + "\n")
    ctx.ok("index", root, "--quiet")
    return root, text


def test_cli_read_serves_a_one_line_file_in_pieces(ctx):
    root, line = minified(ctx)
    path, got, col, calls = os.path.join(root, "min.js"), "", 1, 0
    while True:
        calls += 1
        assert calls < 20, "the read never finished"
        r = ctx.ok("read", path if col == 1 else f"{path}:1:{col}")
        assert r.out.strip(), f"loupe read printed nothing: {r!r}"
        assert "\ufffd" not in r.out
        body = r.out.rstrip("\n")
        m = PIECE.match(body)
        assert m and int(m.group(2) or 1) == col, body[:60]
        body = body[m.end():]
        hint = re.search(r"read on with (.*):1:(\d+)$", r.err.strip())
        mark = MARK.search(body)
        if not hint:
            assert not mark and "cut" not in r.err, r
            got += body
            break
        assert mark and int(mark.group(2)) == int(hint.group(2)), (body[-80:], r.err)
        assert hint.group(1) == "min.js", r.err
        nxt = int(hint.group(2))
        assert nxt > col
        got += body[:mark.start()]
        col = nxt
    assert got == line
    assert calls >= 3  # 600 KiB over the 256 KiB default bound
    # --json says the same with lineCut.
    j = ctx.ok("read", path, "--json").json()
    assert j["lineCut"]["line"] == 1 and j["lineCut"]["lineBytes"] == len(line.encode()), j
    assert j["endLine"] == 1 and j["truncated"] and j["content"].startswith("1| function f0")


def test_mcp_read_file_recommends_calls_that_move_on(ctx):
    root, line = minified(ctx, kib=200)
    s = Session(ctx)
    try:
        args = {"path": os.path.join(root, "min.js")}
        got, seen = "", set()
        while True:
            key = json.dumps(args, sort_keys=True)
            assert key not in seen, f"read_file recommended the call it just answered: {key}"
            seen.add(key)
            assert len(seen) < 40
            res = s.call("read_file", args)
            assert res["content"] and res["endLine"] == 1, res
            body = res["content"].rstrip("\n")
            body = body[PIECE.match(body).end():]
            cut = res["lineCut"]
            if not cut:
                got += body
                break
            mark = MARK.search(body)
            assert mark and int(mark.group(2)) == cut["nextColumn"], body[-80:]
            assert res["warnings"][0]["code"] == "line_cut", res["warnings"]
            got += body[:mark.start()]
            nxt = res["recommendedNextAction"]
            assert nxt["tool"] == "read_file" and nxt["arguments"]["start_line"] == 1, nxt
            assert nxt["arguments"]["start_column"] == cut["nextColumn"], nxt
            args = nxt["arguments"]
        assert got == line
        assert len(seen) >= 8  # 200 KiB over the 24 KiB default result budget
        # The symbols of the one-line file open as well: cut, then read on in the line.
        out = s.call("file_outline", {"path": os.path.join(root, "min.js")})
        sym = out["symbols"][3]["id"]
        res = s.call("read_file", {"path": os.path.join(root, "min.js"),
                                   "open_symbol": {"symbolId": sym}})
        assert res["content"].startswith("1| "), res["content"][:80]
        assert res["lineCut"] and res["recommendedNextAction"]["arguments"]["start_column"] > 1
    finally:
        s.close()
