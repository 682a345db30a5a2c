#!/usr/bin/env python3
"""bench/mcp/tokens.py: what an agent's session costs in tokens (not part of make test).

Replays a fixed agent session through `loupe mcp` (protocol 2025-11-25, one connection):
the MCP tool calls an agent makes for realistic tasks on the Go standard library and on a
Python web framework (Flask, unpacked from the development kit's bundle). Ids the agent
would read from an earlier answer (the top search hit, an outline entry) are taken from the
answers themselves, so the session is the same for any build that answers the same.

Reports, per call and by tool, the bytes of the JSON-RPC result a client receives and
bytes/4 as the token estimate (the usual rule of thumb for English and JSON; the ratio, not
the absolute figure, is what matters between two builds), split into the text content, the
structuredContent and the rest. `tools/list` is counted once, as a client sends it once.

Run it on two builds to compare (same run, same indexes):
  bench/mcp/tokens.py --loupe build/loupe --baseline /path/to/old/loupe [--out FILE]

Environment: LOUPE_DEVKIT (default /work/shared/data/devtasks) for pallets+flask.bundle;
--go (default bench/corpora/go-std, made by bench/corpora.sh).
"""
import argparse
import collections
import datetime
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from run import Conn  # noqa: E402  (one MCP client for the MCP benches)

KIT = os.environ.get("LOUPE_DEVKIT", "/work/shared/data/devtasks")


def flask_tree(work):
    """A fixed Flask tree from the kit's bundle (HEAD of the bundle), as a git work tree."""
    bundle = os.path.join(KIT, "pallets+flask.bundle")
    dst = os.path.join(work, "flask")
    if not os.path.isdir(dst):
        subprocess.run(["git", "clone", "-q", bundle, dst], check=True)
    return dst


def top_symbol(sc):
    """The owner id of the first result that has one (what an agent follows next)."""
    for grp in sc.get("results", []):
        owner = grp.get("owner") or {}
        if isinstance(owner.get("id"), str):
            return owner["id"]
    return None


def top_read(sc):
    """The read_file call the first result recommends (what an agent does next)."""
    for grp in sc.get("results", []):
        nxt = grp.get("recommendedNextAction") or {}
        if nxt.get("tool") == "read_file":
            return nxt["arguments"]
    return None


class Session:
    def __init__(self, loupe, home):
        self.c = Conn(loupe, dict(os.environ, LOUPE_HOME=home))
        self.rows = []  # (task, tool, total, text, structured)

    def call(self, task, name, args):
        j = self.c.rpc("tools/call", {"name": name, "arguments": args})
        res = j.get("result") or {}
        total = len(json.dumps(j, separators=(",", ":")).encode())
        text = sum(len(b.get("text", "").encode()) for b in res.get("content", [])
                   if b.get("type") == "text")
        sc = res.get("structuredContent")
        structured = len(json.dumps(sc, separators=(",", ":")).encode()) if sc else 0
        self.rows.append((task, name, total, text, structured, bool(res.get("isError"))))
        return sc or {}

    def tools_list(self):
        j = self.c.rpc("tools/list")
        total = len(json.dumps(j, separators=(",", ":")).encode())
        tools = j["result"]["tools"]
        out = sum(len(json.dumps(t.get("outputSchema", {}), separators=(",", ":")).encode())
                  for t in tools)
        self.rows.append(("(start)", "tools/list", total, 0, out, False))

    def close(self):
        self.c.close()


def go_tasks(s, go):
    t = "go: close idle keep-alive connection"
    sc = s.call(t, "search_codebase", {"path": go, "query":
                "where does net/http decide to close an idle keep-alive connection"})
    sym = top_symbol(sc)
    s.call(t, "file_outline", {"path": os.path.join(go, "net/http/transport.go"),
                               "namePrefix": "closeConn"})
    if top_read(sc):
        s.call(t, "read_file", top_read(sc))
    if sym:
        s.call(t, "call_graph", {"path": go, "symbolId": sym, "direction": "callers",
                                 "depth": 1})
        s.call(t, "find_references", {"path": go, "symbolId": sym})
    t = "go: tls handshake"
    sc = s.call(t, "search_codebase", {"path": go, "query":
                "tls client handshake certificate verification"})
    cont = (sc.get("pagination") or {}).get("continuation")
    if cont:
        s.call(t, "continue_search", {"continuation": cont})
    sym = top_symbol(sc)
    if sym:
        s.call(t, "call_graph", {"path": go, "symbolId": sym, "direction": "callees",
                                 "depth": 1})
    t = "go: orientation"
    s.call(t, "architecture_overview", {"path": go, "subtree": "net/http"})
    s.call(t, "file_outline", {"path": os.path.join(go, "net/http/server.go")})
    s.call(t, "read_file", {"path": os.path.join(go, "net/http/server.go"),
                            "start_line": 1, "end_line": 60})


def flask_tasks(s, fl):
    t = "flask: find the app for flask run"
    sc = s.call(t, "search_codebase", {"path": fl, "query":
                "how does flask find the app when running flask run"})
    sym = top_symbol(sc)
    s.call(t, "file_outline", {"path": os.path.join(fl, "src/flask/cli.py")})
    if top_read(sc):
        s.call(t, "read_file", top_read(sc))
    if sym:
        s.call(t, "call_graph", {"path": fl, "symbolId": sym, "direction": "both", "depth": 1})
    t = "flask: url_for"
    sc = s.call(t, "search_codebase", {"path": fl, "query": "build a url for an endpoint"})
    sym = top_symbol(sc)
    if sym:
        s.call(t, "find_references", {"path": fl, "symbolId": sym})
    t = "flask: change impact"
    with open(os.path.join(fl, "src/flask/helpers.py"), "a") as f:
        f.write("\n\ndef _bench_added(x):\n    return x\n")
    s.call(t, "detect_changes", {"path": fl})
    s.call(t, "architecture_overview", {"path": fl})
    s.call(t, "list_codebases", {})


def run_one(loupe, go, work, label):
    home = os.path.join(work, "home-" + label)
    fl = os.path.join(work, "flask-" + label)
    if not os.path.isdir(fl):
        subprocess.run(["git", "clone", "-q", flask_tree(work), fl], check=True)
    env = dict(os.environ, LOUPE_HOME=home)
    for r in (go, fl):
        subprocess.run([loupe, "index", r, "--quiet"], env=env, check=True)
    s = Session(loupe, home)
    s.tools_list()
    go_tasks(s, go)
    flask_tasks(s, fl)
    s.close()
    return s.rows


def table(rows_by_label):
    labels = list(rows_by_label)
    out = []
    by_tool = collections.OrderedDict()
    for lab in labels:
        for task, tool, total, text, st, err in rows_by_label[lab]:
            by_tool.setdefault(tool, {}).setdefault(lab, [0, 0, 0, 0])
            agg = by_tool[tool][lab]
            agg[0] += 1
            agg[1] += total
            agg[2] += text
            agg[3] += st
    head = "| tool | calls | " + " | ".join(
        f"{lab} tokens | {lab} text | {lab} structured" for lab in labels)
    if len(labels) == 2:
        head += " | ratio |"
    else:
        head += " |"
    out += [head, "|---|---:|" + "---:|" * (3 * len(labels)) + ("---:|" if len(labels) == 2
                                                                   else "")]
    tot = {lab: 0 for lab in labels}
    for tool, per in by_tool.items():
        cells = []
        calls = max(v[0] for v in per.values())
        for lab in labels:
            n, total, text, st = per.get(lab, [0, 0, 0, 0])
            tot[lab] += total
            cells.append(f"{total // 4} | {text // 4} | {st // 4}")
        row = f"| {tool} | {calls} | " + " | ".join(cells)
        if len(labels) == 2:
            a, b = (per.get(lab, [0, 1])[1] for lab in labels)
            row += f" | {a / b:.2f}" if b else " | -"
        out.append(row + " |")
    row = "| **session total** | | " + " | ".join(f"**{tot[lab] // 4}** | | " for lab in labels)
    if len(labels) == 2:
        a, b = (tot[lab] for lab in labels)
        row += f" | **{a / b:.2f}**"
    out.append(row + " |")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--loupe", default=os.path.join(ROOT, "build/loupe"))
    ap.add_argument("--baseline", help="another loupe binary, measured in the same run")
    ap.add_argument("--go", default=os.path.join(ROOT, "bench/corpora/go-std"))
    ap.add_argument("--work", help="folder for homes and trees (default: a temporary one)")
    ap.add_argument("--out", help="write the markdown table here")
    ap.add_argument("--calls", action="store_true", help="also list every call")
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="loupe-tokens-")
    os.makedirs(work, exist_ok=True)
    builds = [("new", os.path.abspath(args.loupe))]
    if args.baseline:
        builds.append(("base", os.path.abspath(args.baseline)))
    rows = {lab: run_one(b, args.go, work, lab) for lab, b in builds}
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = [f"# MCP session tokens ({now})", "",
           "One fixed agent session (bench/mcp/tokens.py): searches, outlines, reads and graph "
           "calls on the Go standard library and Flask. Tokens = bytes/4 of each JSON-RPC "
           "result (text content, structuredContent and the rest); tools/list once.", ""]
    out += table(rows)
    errors = {lab: sum(1 for r in rows[lab] if r[5]) for lab in rows}
    out += ["", "Calls answered with isError: " +
            ", ".join(f"{lab} {n}" for lab, n in errors.items()) + ".", ""]
    if args.calls:
        for lab in rows:
            out += [f"## Calls ({lab})", "", "| task | tool | tokens | text | structured |",
                    "|---|---|---:|---:|---:|"]
            out += [f"| {t} | {tool} | {tot // 4} | {tx // 4} | {st // 4} |"
                    for t, tool, tot, tx, st, _ in rows[lab]]
            out.append("")
    text = "\n".join(out)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
