"""Golden JSON-RPC transcripts (tests/mcp/golden/*.jsonl) replayed through `loupe mcp`; one
test per transcript. The format is described in mcp_golden.py."""
import mcp_golden

for _name in mcp_golden.transcripts():
    def _make(name):
        def test(ctx):
            mcp_golden.run_transcript(ctx, name)
        return test
    globals()["test_golden_" + _name[:-len(".jsonl")]] = _make(_name)
