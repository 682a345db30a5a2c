"""`loupe debug-scan`: the walk, the read checks and the broad-root refusal, end to end."""
import os
import subprocess


def _fixture(ctx):
    root = ctx.path("repo")
    ctx.write(".gitignore", "*.log\nbuild/\n", root=root)
    ctx.write("src/main.py", "print('hi')\n", root=root)
    ctx.write("src/util.py", "X = 1\n", root=root)
    ctx.write("debug.log", "noise\n", root=root)
    ctx.write("build/out.txt", "generated\n", root=root)
    ctx.write("node_modules/dep/index.js", "module.exports = 1\n", root=root)
    ctx.write("image.bin", b"\x89PNG\x00\x00\x00binary", root=root)
    os.symlink("/etc/hostname", os.path.join(root, "outside-link"))
    os.symlink("src", os.path.join(root, "src-link"))
    subprocess.run(["git", "init", "-q", root], check=True)  # .gitignore needs a repository
    return root


def test_debug_scan_reports_files_and_skips(ctx):
    root = _fixture(ctx)
    r = ctx.ok("debug-scan", root, "--json", "--list", "--hash")
    j = r.json()
    assert j["root"] == os.path.realpath(root), j
    files = [f["path"] for f in j["entries"]]
    assert files == [".gitignore", "src/main.py", "src/util.py"], files
    skipped = {s["path"]: s["reason"] for s in j["skipped"]}
    assert skipped == {"image.bin": "binary", "outside-link": "symlink_outside_root",
                       "src-link": "symlink_dir"}, skipped
    assert j["skip_counts"]["binary"] == 1 and j["skip_counts"]["ignored"] == 4, j  # debug.log, build/, node_modules/, .git
    assert j["hashed_files"] == 3, j
    assert j["hashed_bytes"] == sum(os.path.getsize(os.path.join(root, p)) for p in files), j
    assert len(j["merkle"]) == 32, j
    assert isinstance(j["walk_ms"], float) and j["walk_ms"] >= 0, j
    # debug.log, build/ and node_modules/ are ignored (counted, not listed).
    again = ctx.ok("debug-scan", root, "--json", "--hash").json()
    assert again["merkle"] == j["merkle"], (again, j)
    assert again["skip_counts"]["ignored"] == 4, again
    assert again["skip_counts"]["binary"] == 1, again
    assert again["files"] == 4 and again["dirs"] == 2, again


def test_debug_scan_json_survives_non_utf8_names(ctx):
    root = ctx.path("bytes")
    os.makedirs(root)
    with open(os.path.join(os.fsencode(root), b"caf\xe9.txt"), "wb") as f:
        f.write(b"latin-1 name\n")
    j = ctx.ok("debug-scan", root, "--json", "--list").json()
    # The one representation of bytes that are not UTF-8: U+FFFD in the name, and the
    # escaped form (pathBytes) that gives the bytes back.
    assert [e["path"] for e in j["entries"]] == ["caf\ufffd.txt"], j
    assert [e["pathBytes"] for e in j["entries"]] == ["caf%E9.txt"], j


def test_debug_scan_text_output_and_no_defaults(ctx):
    root = _fixture(ctx)
    r = ctx.ok("debug-scan", root, "--no-default-ignores")
    assert "files: 5" in r.out, r  # node_modules/dep/index.js now walked
    assert "ignored=3" in r.out, r  # debug.log, build/, .git
    assert "walk_ms:" in r.out, r


def test_debug_scan_refuses_broad_roots(ctx):
    home = ctx.env["HOME"]
    r = ctx.run("debug-scan", home)
    assert r.rc == 6, r
    assert "--allow-broad-root" in r.err, r
    r = ctx.run("debug-scan", "/", "--json")
    assert r.rc == 6, r
    assert r.json()["error"]["code"] == "broad_root_refused", r
    os.makedirs(ctx.home, exist_ok=True)
    r = ctx.run("debug-scan", ctx.home)
    assert r.rc == 6 and "state folder" in r.err, r
    ctx.ok("debug-scan", home, "--allow-broad-root")


def test_debug_scan_usage_errors(ctx):
    r = ctx.run("debug-scan")
    assert r.rc == 2 and "ROOT" in r.err, r
    r = ctx.run("debug-scan", ctx.tmp, "--frobnicate")
    assert r.rc == 2 and "--frobnicate" in r.err, r
    r = ctx.run("debug-scan", ctx.path("missing"))
    assert r.rc == 7, r
    assert "debug-scan" not in ctx.ok("--help").out  # hidden command
