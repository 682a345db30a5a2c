#!/usr/bin/env python3
"""tests/fuzz/make_seeds.py: (re)write the hand-made seed inputs of the fuzz corpora,
tests/fuzz/corpus/<target>/seed-*. Inputs found by fuzzing (find-*, crash-*) are left alone.

The tool schemas and examples come from the built binary's tools/list
(LOUPE_MCP_TEST_TOOLS=1 build/loupe mcp), so the seeds follow the real tools.

Usage: tests/fuzz/make_seeds.py [--loupe build/loupe]
"""
import argparse
import glob
import json
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests/fuzz/corpus")

# lp_lang values (src/lang/lang.h)
LANGS = {"text": 0, "python": 1, "javascript": 2, "typescript": 3, "tsx": 4, "go": 5,
         "rust": 6, "java": 7, "c": 8, "cpp": 9, "csharp": 10, "scala": 11, "markdown": 12,
         "rst": 13}
EXT = {".py": "python", ".js": "javascript", ".ts": "typescript", ".tsx": "tsx", ".go": "go",
       ".rs": "rust", ".java": "java", ".c": "c", ".h": "c", ".cpp": "cpp", ".cs": "csharp",
       ".scala": "scala", ".md": "markdown", ".rst": "rst", ".txt": "text"}


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def line(obj):
    return json.dumps(obj, separators=(",", ":")) + "\n"


def req(i, method, params=None, **extra):
    m = {"jsonrpc": "2.0", "id": i, "method": method}
    if params is not None:
        m["params"] = params
    m.update(extra)
    return line(m)


def notif(method, params=None):
    m = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        m["params"] = params
    return line(m)


MODERN_META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
               "io.modelcontextprotocol/clientCapabilities": {}}


def tools_list(loupe):
    env = dict(os.environ, LOUPE_MCP_TEST_TOOLS="1", LOUPE_LOG="off")
    out = subprocess.run([loupe, "mcp"], input=req(1, "tools/list"), env=env,
                         capture_output=True, text=True, timeout=60).stdout
    return json.loads(out.splitlines()[0])["result"]["tools"]


def example_args(tool):
    ex = tool["inputSchema"].get("examples") or [{}]
    return ex[0]


def jsonrpc_seeds(tools):
    init = req(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "fuzz", "version": "1"}})
    write("jsonrpc", "legacy-session",
          init + notif("notifications/initialized") + req(2, "tools/list") + req(3, "ping")
          + req(4, "logging/setLevel", {"level": "debug"})
          + req(5, "tools/call", {"name": "debug_echo", "arguments":
                                  {"message": "hi", "repeat": 3, "log": True},
                                  "_meta": {"progressToken": "p1"}}))
    write("jsonrpc", "modern-session",
          req(1, "server/discover", {"_meta": MODERN_META})
          + req(2, "tools/list", {"_meta": dict(MODERN_META, **{
              "io.modelcontextprotocol/logLevel": "info",
              "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"}})})
          + req("s3", "tools/call", {"name": "debug_echo", "arguments": {"message": "x"},
                                     "_meta": dict(MODERN_META, progressToken=7)})
          + req(4, "initialize", {"_meta": MODERN_META})
          + req(5, "tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion":
                                            "1999-01-01",
                                            "io.modelcontextprotocol/clientCapabilities": {}}})
          + req(6, "tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": 5}}))
    # Every tool with its schema's example (stubbed handlers) and with junk.
    calls = ""
    for i, t in enumerate(tools):
        calls += req(100 + i, "tools/call", {"name": t["name"], "arguments": example_args(t)})
        calls += req(200 + i, "tools/call", {"name": t["name"], "arguments":
                                             {"unknown": [1, {"x": None}], "path": 5}})
    write("jsonrpc", "every-tool", calls)
    write("jsonrpc", "malformed",
          "{\n" + '{"jsonrpc":"2.0",\n' + "nul\n" + "[1,2\n" + '"\\ud800"\n'
          + '{"jsonrpc":"2.0","id":1,"method":"ping",}\n' + "\r\n\t \n"
          + '{"jsonrpc":"2.0","id":1,"method":"ping"}garbage\n' + "}{\n"
          + '{"a":1e99999}\n' + '{"jsonrpc":"2.0","id":2,"method":"ping"}')
    write("jsonrpc", "bad-envelopes",
          "[" + req(1, "ping").strip() + "]\n" + "42\n" + '"str"\n' + "null\n"
          + '{"jsonrpc":"2.0","id":null,"method":"ping"}\n'
          + '{"jsonrpc":"2.0","id":1.5,"method":"ping"}\n'
          + '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}\n'
          + '{"id":1,"method":"ping"}\n' + '{"jsonrpc":"1.0","id":1,"method":"ping"}\n'
          + '{"jsonrpc":"2.0","id":1,"method":7}\n'
          + '{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}\n'
          + '{"jsonrpc":"2.0","id":1,"result":{}}\n' + '{"jsonrpc":"2.0","id":1,"error":{}}\n'
          + '{"jsonrpc":"2.0","method":"ping","params":null}\n')
    write("jsonrpc", "wrong-types",
          req(1, "tools/call", {"name": "debug_echo", "arguments": "message"})
          + req(2, "tools/call", {"name": "debug_echo", "arguments": ["message"]})
          + req(3, "tools/call", {"name": 12})
          + req(4, "tools/call", {"name": "debug_echo", "arguments": {"message": {"a": 1}}})
          + req(5, "tools/call", {"name": "debug_echo", "arguments":
                                  {"message": "x", "repeat": "3"}})
          + req(6, "tools/call", {"name": "debug_echo", "arguments":
                                  {"message": "x", "repeat": 2.5, "format": "UPPER"}})
          + req(7, "logging/setLevel", {"level": 3})
          + req(8, "tools/list", {"cursor": "abc"})
          + req(9, "initialize", {"protocolVersion": ["2025-06-18"]}))
    write("jsonrpc", "unknown-fields",
          line({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "extra": True,
                "params": {"name": "debug_echo", "arguments": {"message": "m", "zzz": 1},
                           "more": {"deep": [1, 2]}}})
          + req(2, "no/such/method") + req(3, "tools/call", {"name": "no_such_tool"})
          + notif("notifications/unknown", {"x": 1}))
    write("jsonrpc", "ids-and-cancel",
          req(1, "tools/call", {"name": "debug_echo", "arguments": {"message": "a",
                                                                     "repeat": 10000}})
          + req(1, "tools/call", {"name": "debug_echo", "arguments": {"message": "b"}})
          + notif("notifications/cancelled", {"requestId": 1, "reason": "x"})
          + notif("notifications/cancelled", {"requestId": "1"})
          + notif("notifications/cancelled", {"requestId": [1]})
          + notif("notifications/cancelled")
          + req("1", "tools/call", {"name": "debug_echo", "arguments": {"message": "c"}}))
    write("jsonrpc", "crlf-and-blank", req(1, "ping").replace("\n", "\r\n") + "\n\n  \n"
          + req(2, "ping").strip())
    write("jsonrpc", "budget",
          req(1, "tools/call", {"name": "debug_echo", "arguments":
                                {"message": "é" * 2000, "repeat": 50, "format": "upper"}}))
    # Config byte 0: a 1024-byte line limit, then an over-long line and a good one.
    write("jsonrpc", "too-long-line",
          b"\x00" + req(1, "ping", {"pad": "x" * 3000}).encode() + req(2, "ping").encode())


def validate_seeds(tools):
    for i, t in enumerate(tools):
        write("validate", f"tool-{t['name']}-example",
              bytes([0, i]) + json.dumps(example_args(t)).encode())
        write("validate", f"tool-{t['name']}-junk",
              bytes([0, i]) + json.dumps({"unknown": 1, "limit": "x", "query": 5,
                                          "path": None}).encode())
    schema = {"type": "object", "properties": {
        "q": {"type": "string", "minLength": 1, "maxLength": 3},
        "n": {"type": ["integer", "null"], "minimum": -1, "exclusiveMaximum": 10},
        "e": {"enum": ["a", 1, None]}, "c": {"const": {"k": [1]}},
        "arr": {"type": "array", "items": {"type": "number", "exclusiveMinimum": 0},
                "minItems": 1, "maxItems": 2},
        "o": {"type": "object", "properties": {"x": {"type": "boolean"}},
              "additionalProperties": False, "required": ["x"]}},
        "required": ["q"], "additionalProperties": False, "examples": [{"q": "a"}]}
    write("validate", "schema-good", b"\x01\x00" + json.dumps(
        {"schema": schema, "args": {"q": "ab", "n": 3, "e": 1, "c": {"k": [1]},
                                    "arr": [0.5], "o": {"x": True}}}).encode())
    write("validate", "schema-bad-args", b"\x01\x00" + json.dumps(
        {"schema": schema, "args": {"q": "", "n": 10, "e": "b", "c": {"k": [2]},
                                    "arr": [0, 1, 2], "o": {"y": 1}, "zz": 0}}).encode())
    write("validate", "schema-unknown-keyword", b"\x01\x00" + json.dumps(
        {"schema": {"type": "object", "pattern": "x"}, "args": {}}).encode())
    write("validate", "not-object-args", b"\x00\x00" + b'[1,"a",null]')
    write("validate", "unicode", b"\x00\x00" + '{"query":"\u00e9\ud83d\ude00\\u0000"}'
          .encode("utf-8", "surrogatepass"))


def ignore_seeds():
    rules = ("# comment\n*.o\n!keep.o\nbuild/\n/root-only\n**/deep/**\na/**/b\n"
             "\\#not-comment\n\\!bang\ntrailing\\ \nspaces   \n[a-c]?x\n[!abc]\n[[:alpha:]]z\n"
             "*.[oa]\ndoc/*.txt\n\r\n")
    queries = ("x.o\nkeep.o\nbuild/\nsrc/build/\nroot-only\nsub/root-only\nq/deep/r/s\n"
               "a/b\na/x/y/b\n#not-comment\n!bang\ntrailing \nspaces\nbbx\nd\nqz\nlib.a\n"
               "doc/a.txt\ndoc/x/a.txt\n.git\nsrc/.git/\nnode_modules/\nx/node_modules/y\n")
    write("ignore", "gitignore-mix", rules.encode() + b"\0" * 5 + queries.encode())
    write("ignore", "all-files",
          b"*.log\n\0!important.log\n*\n!*/\n\0/sub/tmp/\n\0/sub/a/skip\n\0!*.c\n*.h\n\0"
          + b"a.log\nimportant.log\ntmp/\na/skip\na/x.c\na/x.h\nb/c/d.h\n")
    write("ignore", "bom-crlf", b"\xef\xbb\xbfbuild\r\n!build/keep\r\n\0\0\0\0\0build/\nbuild/keep\n")
    write("ignore", "wild-classes",
          b"[\n[]\n[!]\n[a-]\n[]-a]\n[\\]\n\\\n***\n**a**\n/**/\n?*?*?*?*?*b\n[[:nope:]]\n"
          b"\0\0\0\0\0aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n[\n]\n\\\n-\n")


def lang_seeds():
    files = sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/lang/*.*")))
    files += sorted(glob.glob(os.path.join(ROOT, "tests/fixtures/graph/*/**/*.*"),
                              recursive=True))
    seen = set()
    for f in files:
        ext = os.path.splitext(f)[1]
        lang = EXT.get(ext)
        if not lang or os.path.getsize(f) > 16384:
            continue
        key = os.path.relpath(f, os.path.join(ROOT, "tests/fixtures")).replace("/", "_")
        if key in seen:
            continue
        seen.add(key)
        data = open(f, "rb").read()
        write("lang", key, bytes([LANGS[lang], 0]) + data)
    # Small bounds and detection on a few.
    write("lang", "small-chunks-python", bytes([LANGS["python"], 2 | 8]) + b"x.py\n"
          + b"class A:\n    '''doc'''\n    def f(self):\n        return g(1, 2)\n" * 4)
    write("lang", "detect-h-cpp", bytes([LANGS["c"], 8]) + b"x.h\nnamespace a { class B {}; }\n")
    write("lang", "shebang", bytes([LANGS["text"], 8]) + b"tool\n#!/usr/bin/env node\nf()\n")


def query_seeds():
    paths = b"\0src/net/http/server.go\nvendor/x/y.go\na_test.go\nREADME.md\n\n/abs\n../up\n"
    for name, q in [
        ("plain", "how does the server parse headers"),
        ("operators", 'path:src/** -path:vendor lang:go,py kind:fn,class sym:Server.Serve '
                      '"exact phrase" parseHeader snake_case SCREAMING_CASE a::b Foo#bar f()'),
        ("quoted-values", 'path:"my dir/x.go" \u201ccurly quotes\u201d "unterminated'),
        ("errors", "file:x language:go lang: -lang:go kind:nope lang:klingon"),
        ("globs", "path:*_test.go path:./net/http path:/abs path:**/x/** path:[a-z]?.go"),
        ("unicode", "caf\u00e9 \u00fcber.na\u00efve \U0001f600 \u00a0nbsp"),
        ("empty", ""),
        ("only-ops", "lang:go path:x"),
    ]:
        write("query", name, q.encode("utf-8") + paths)
    write("query", "invalid-utf8", b"\xff\xfe path:\xc0\xaf \"\xed\xa0\x80\"" + paths)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loupe", default=os.path.join(ROOT, "build/loupe"))
    args = ap.parse_args()
    for old in glob.glob(os.path.join(CORPUS, "*", "seed-*")):
        os.unlink(old)
    tools = tools_list(args.loupe)
    jsonrpc_seeds(tools)
    validate_seeds(tools)
    ignore_seeds()
    lang_seeds()
    query_seeds()


if __name__ == "__main__":
    main()
