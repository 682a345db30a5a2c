"""Golden JSON-RPC transcripts (tests/mcp/golden/*.jsonl) replayed through `loupe mcp`; one
test per transcript. The format is described in mcp_golden.py."""
import mcp_golden

for _name in mcp_golden.transcripts():
    def _make(name):
        def test(ctx):
            mcp_golden.run_transcript(ctx, name)
        return test
    globals()["test_golden_" + _name[:-len(".jsonl")]] = _make(_name)


def test_mcp_default_line_limit_is_16_mib(ctx):
    """A message over the default 16 MiB limit is refused with a clear error; the server
    stays usable. (The golden overlong_line.jsonl covers a configured limit.)"""
    import json
    import subprocess
    env = dict(ctx.env)
    big = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"' + b"x" * (16 * 1024 * 1024) + b'"}}\n'
    ping = b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n'
    r = subprocess.run([ctx.loupe, "mcp"], input=big + ping, capture_output=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    out = [json.loads(x) for x in r.stdout.splitlines()]
    assert len(out) == 2, out
    assert out[0]["id"] is None and out[0]["error"]["code"] == -32600, out[0]
    assert "exceeds the 16777216-byte line limit" in out[0]["error"]["message"], out[0]
    assert out[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}, out[1]
