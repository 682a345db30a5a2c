"""The language layer through `loupe parse`: golden outlines and chunk invariants.

Every file in tests/fixtures/lang/ (written for these tests) is parsed; its outline
(`loupe parse FILE --chunks`: kinds, qualified names, line and byte spans, visibility,
flags, docs, parents, signatures, and one line per chunk) must equal the golden file
tests/fixtures/lang/golden/FILE.outline exactly.

Regenerate the goldens with LOUPE_UPDATE_GOLDEN=1 and review every changed line by hand:
a golden that encodes a wrong answer is a bug.
"""
import json
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIX = os.path.join(ROOT, "tests", "fixtures", "lang")
GOLDEN = os.path.join(FIX, "golden")


def fixture_names():
    return sorted(n for n in os.listdir(FIX) if os.path.isfile(os.path.join(FIX, n)))


def _check_golden(ctx, name):
    r = ctx.run("parse", name, "--chunks", cwd=FIX)
    assert r.rc == 0, r
    path = os.path.join(GOLDEN, name + ".outline")
    if os.environ.get("LOUPE_UPDATE_GOLDEN"):
        with open(path, "w") as f:
            f.write(r.out)
        return
    assert os.path.exists(path), f"no golden {path}: run with LOUPE_UPDATE_GOLDEN=1 and review it"
    with open(path) as f:
        want = f.read()
    if r.out != want:
        got_lines, want_lines = r.out.splitlines(), want.splitlines()
        diff = []
        for i in range(max(len(got_lines), len(want_lines))):
            g = got_lines[i] if i < len(got_lines) else "<missing>"
            w = want_lines[i] if i < len(want_lines) else "<missing>"
            if g != w:
                diff.append(f"line {i + 1}:\n  want: {w}\n  got:  {g}")
        raise AssertionError(f"{name}: outline differs from {path}\n" + "\n".join(diff[:20]))


def _check_invariants(ctx, name):
    r = ctx.run("parse", name, "--json", "--chunk-text", cwd=FIX)
    assert r.rc == 0, r
    res = r.json()
    with open(os.path.join(FIX, name), "rb") as f:
        data = f.read()
    n = len(data)
    syms, chunks = res["symbols"], res["chunks"]
    line_starts = [0] + [m.end() for m in re.finditer(b"\n", data)]

    def line_of(b):
        lo, hi = 0, len(line_starts)
        while lo < hi:
            mid = (lo + hi) // 2
            if line_starts[mid] <= b:
                lo = mid + 1
            else:
                hi = mid
        return lo

    seen = {}
    for i, s in enumerate(syms):
        sp, sig = s["span"], s["sig"]
        assert 0 <= sp["start_byte"] <= sp["end_byte"] <= n, (name, s)
        assert sp["start_line"] == line_of(sp["start_byte"]), (name, s)
        assert sig["start_byte"] == sp["start_byte"] and sig["end_byte"] <= sp["end_byte"], (name, s)
        if s["doc"]:
            assert 0 <= s["doc"]["start_byte"] < s["doc"]["end_byte"] <= n, (name, s)
        assert -1 <= s["parent"] < len(syms) and s["parent"] != i, (name, s)
        # declarations (prototypes) count apart from definitions
        key = (s["qname"], s["kind"], "declaration" in s["flags"].split(","))
        assert s["ordinal"] == seen.get(key, 0), (name, s, "ordinals count 0, 1, ... in order")
        seen[key] = s["ordinal"] + 1
        if i:
            assert syms[i - 1]["span"]["start_byte"] <= sp["start_byte"], (name, "source order")
    covered = bytearray(n)
    for c in chunks:
        sp = c["span"]
        text = c["text"].encode()
        assert text.strip(), (name, "empty chunk", c)
        assert 0 <= sp["start_byte"] < sp["end_byte"] <= n, (name, c)
        assert sp["start_line"] == line_of(sp["start_byte"]), (name, c)
        assert sp["end_line"] == line_of(sp["end_byte"] - 1), (name, c)
        assert -1 <= c["owner"] < len(syms), (name, c)
        marker = "\u2026".encode()
        if marker not in text:
            assert text == data[sp["start_byte"]:sp["end_byte"]], (name, "chunk text is its span", c)
        else:  # the text between elision markers appears in the source in order (line by
            # line: nested doc comments are dropped from an owner's text)
            pos = sp["start_byte"]
            for piece in re.split(rb"\{ \xe2\x80\xa6 \}|\xe2\x80\xa6|\n", text):
                if piece.strip():
                    k = data.find(piece, pos, sp["end_byte"])
                    assert k >= 0, (name, "chunk piece not in its span", piece[:60], c["span"])
                    pos = k + len(piece)
        covered[sp["start_byte"]:sp["end_byte"]] = b"\x01" * (sp["end_byte"] - sp["start_byte"])
    for i, byte in enumerate(data):
        if chr(byte).isalnum() and not covered[i]:
            raise AssertionError(f"{name}: byte {i} (line {line_of(i)}) is in no chunk")


def _make(name):
    def golden(ctx):
        _check_golden(ctx, name)

    def invariants(ctx):
        _check_invariants(ctx, name)

    return golden, invariants


for _name in fixture_names():
    _ident = re.sub(r"\W", "_", _name)
    _g, _i = _make(_name)
    globals()[f"test_outline_{_ident}"] = _g
    globals()[f"test_chunks_{_ident}"] = _i


def test_parse_lang_override_and_errors(ctx):
    ctx.write("noext", "def f():\n    pass\n")
    r = ctx.ok("parse", "noext", "--lang", "py")
    assert "function f 1-2" in r.out, r
    r = ctx.run("parse", "noext", "--lang", "cobol")
    assert r.rc == 2 and "unknown language" in r.err, r
    r = ctx.run("parse", "missing.py")
    assert r.rc != 0 and "missing.py" in r.err, r
    r = ctx.run("parse")
    assert r.rc == 2, r


def test_parse_stats(ctx):
    a = ctx.write("a.py", "def f():\n    return 1\n")
    b = ctx.write("b.go", "package b\n\nfunc G() {}\n")
    lst = ctx.write("list.txt", f"{a}\n{b}\n")
    r = ctx.ok("parse", "--stats", "--json", "--files-from", lst)
    rows = {row["lang"]: row for row in json.loads(r.out)}
    assert rows["python"]["files"] == 1 and rows["python"]["symbols"] == 1, rows
    assert rows["go"]["symbols"] == 2 and rows["total"]["files"] == 2, rows
