"""`loupe install` / `uninstall` / `doctor` in a temporary HOME: fresh configs, configs with
other servers, TOML and JSON with comments and unusual formatting, idempotence, exact
uninstall, dry runs, refusal of files it cannot parse, and `make install`."""
import json
import os
import subprocess

CLAUDE = ".claude.json"
CODEX = ".codex/config.toml"
OPENCODE = ".config/opencode/opencode.json"
CURSOR = ".cursor/mcp.json"


def home(ctx, rel=""):
    return os.path.join(ctx.env["HOME"], rel)


def put(ctx, rel, text):
    p = home(ctx, rel)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w", encoding="utf-8") as f:
        f.write(text)
    return p


def get(ctx, rel):
    with open(home(ctx, rel), encoding="utf-8") as f:
        return f.read()


def strip_jsonc(text):
    """Drop // and /* */ comments and trailing commas (enough for these fixtures)."""
    out, i, in_str = [], 0, False
    while i < len(text):
        c = text[i]
        if in_str:
            out.append(c)
            if c == "\\":
                out.append(text[i + 1])
                i += 1
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
            out.append(c)
        elif text.startswith("//", i):
            while i < len(text) and text[i] != "\n":
                i += 1
            continue
        elif text.startswith("/*", i):
            i = text.index("*/", i) + 2
            continue
        else:
            out.append(c)
        i += 1
    s = "".join(out)
    import re
    return json.loads(re.sub(r",(\s*[}\]])", r"\1", s))


FIXTURES = {
    CLAUDE: '{\n  "numStartups": 42,\n  "projects": {"/x": {"allowedTools": []}},\n'
            '  "mcpServers": {\n    "github": {\n      "type": "stdio",\n      "command": "gh-mcp",\n'
            '      "args": [],\n      "env": {"TOKEN": "t"}\n    }\n  }\n}\n',
    CODEX: '# Codex settings\nmodel = "o3"  # fast\n\n[mcp_servers.docs]\ncommand = "npx"\n'
           'args = [\n  "-y",\n  "docs-mcp", # the server\n]\n\n[mcp_servers.docs.env]\nKEY = """multi\n'
           '[not a table]\nline"""\n',
    OPENCODE: '{\n\t"$schema": "https://opencode.ai/config.json",\n\t// local servers\n\t"mcp": {\n'
              '\t\t"fs": {"type": "local", "command": ["fs-mcp"], /* on */ "enabled": true,},\n\t},\n}',
    CURSOR: '{"mcpServers":{"a":{"command":"a"}}}',
}


def test_install_fresh_home_creates_configs(ctx):
    for d in (".claude", ".codex", ".config/opencode", ".cursor"):
        os.makedirs(home(ctx, d))
    r = ctx.ok("install")
    exe = os.path.realpath(ctx.loupe)
    assert r.out.count("added loupe in") == 4, r
    # The chosen environment goes into each entry: auto-sync on, the state folder in effect.
    env = {"LOUPE_AUTO_SYNC": "1", "LOUPE_HOME": ctx.home}
    claude = json.loads(get(ctx, CLAUDE))
    assert claude["mcpServers"]["loupe"] == {"type": "stdio", "command": exe, "args": ["mcp"], "env": env}
    oc = json.loads(get(ctx, OPENCODE))
    assert oc["mcp"]["loupe"] == {"type": "local", "command": [exe, "mcp"], "enabled": True,
                                  "environment": env}
    cur = json.loads(get(ctx, CURSOR))
    assert cur["mcpServers"]["loupe"] == {"command": exe, "args": ["mcp"], "env": env}
    toml = get(ctx, CODEX)
    assert toml == (f'[mcp_servers.loupe]\ncommand = "{exe}"\nargs = ["mcp"]\n'
                    f'env = {{ LOUPE_AUTO_SYNC = "1", LOUPE_HOME = "{ctx.home}" }}\n'), toml
    # Nothing existed before: uninstall deletes what install created.
    ctx.ok("uninstall")
    for rel in (CLAUDE, CODEX, OPENCODE, CURSOR):
        assert not os.path.exists(home(ctx, rel)), rel


def test_install_keeps_everything_and_uninstall_restores_bytes(ctx):
    for rel, text in FIXTURES.items():
        put(ctx, rel, text)
    r = ctx.ok("install")
    exe = os.path.realpath(ctx.loupe)
    assert r.out.count("added loupe in") == 4, r
    claude = json.loads(get(ctx, CLAUDE))
    assert claude["numStartups"] == 42 and claude["projects"] == {"/x": {"allowedTools": []}}
    assert claude["mcpServers"]["github"]["env"] == {"TOKEN": "t"}
    assert claude["mcpServers"]["loupe"]["command"] == exe
    oc_text = get(ctx, OPENCODE)
    assert "// local servers" in oc_text and "/* on */" in oc_text
    oc = strip_jsonc(oc_text)
    assert oc["mcp"]["fs"]["command"] == ["fs-mcp"] and oc["mcp"]["loupe"]["command"] == [exe, "mcp"]
    assert json.loads(get(ctx, CURSOR))["mcpServers"]["a"] == {"command": "a"}
    toml = get(ctx, CODEX)
    assert toml.startswith(FIXTURES[CODEX]), toml
    assert toml.endswith(f'\n\n[mcp_servers.loupe]\ncommand = "{exe}"\nargs = ["mcp"]\n'
                         f'env = {{ LOUPE_AUTO_SYNC = "1", LOUPE_HOME = "{ctx.home}" }}\n'), toml
    # One backup per file, the original bytes, readable by its owner only.
    def backups(rel):
        d = os.path.dirname(home(ctx, rel))
        return [f for f in os.listdir(d) if f.startswith(os.path.basename(rel) + ".loupe-backup")]

    for rel, text in FIXTURES.items():
        assert backups(rel) == [os.path.basename(rel) + ".loupe-backup"], (rel, backups(rel))
        with open(home(ctx, rel) + ".loupe-backup", encoding="utf-8") as f:
            assert f.read() == text
        assert os.stat(home(ctx, rel) + ".loupe-backup").st_mode & 0o077 == 0, rel
    # A second install changes nothing and says so.
    before = {rel: get(ctx, rel) for rel in FIXTURES}
    r2 = ctx.ok("install")
    assert r2.out.count("(unchanged)") == 4, r2
    assert {rel: get(ctx, rel) for rel in FIXTURES} == before
    # Uninstall gives back the original bytes.
    r3 = ctx.ok("uninstall")
    assert r3.out.count("removed loupe from") == 4, r3
    for rel, text in FIXTURES.items():
        assert get(ctx, rel) == text, (rel, get(ctx, rel))
    r4 = ctx.ok("uninstall")
    assert "nothing to remove" in r4.out, r4
    # Another cycle adds no copies: the original stays the one backup.
    ctx.ok("install")
    ctx.ok("uninstall")
    for rel, text in FIXTURES.items():
        assert len(backups(rel)) == 1, (rel, backups(rel))
        with open(home(ctx, rel) + ".loupe-backup", encoding="utf-8") as f:
            assert f.read() == text


def test_install_updates_a_stale_entry_in_place(ctx):
    put(ctx, CURSOR, '{\n  "mcpServers": {\n    "loupe": {"command": "/old/loupe", "args": ["mcp"]},\n'
                     '    "b": {"command": "b"}\n  }\n}\n')
    put(ctx, CODEX, '[mcp_servers.loupe]\n# mine\ncommand = "/old/loupe"\nargs = ["mcp"]\nstartup_timeout_sec = 30\n')
    r = ctx.ok("install", "--client", "cursor,codex")
    assert r.out.count("updated loupe in") == 2, r
    exe = os.path.realpath(ctx.loupe)
    cur = json.loads(get(ctx, CURSOR))
    assert cur["mcpServers"]["loupe"]["command"] == exe and cur["mcpServers"]["b"] == {"command": "b"}
    assert get(ctx, CODEX) == (f'[mcp_servers.loupe]\nenv = {{ LOUPE_AUTO_SYNC = "1", LOUPE_HOME = '
                               f'"{ctx.home}" }}\n# mine\ncommand = "{exe}"\nargs = ["mcp"]\n'
                               'startup_timeout_sec = 30\n'), get(ctx, CODEX)
    # Opting out of auto-sync at install time is written too; an env the user keeps as a
    # [mcp_servers.loupe.env] table is left alone.
    r = ctx.ok("install", "--client", "cursor", env={"LOUPE_AUTO_SYNC": "0"})
    assert json.loads(get(ctx, CURSOR))["mcpServers"]["loupe"]["env"]["LOUPE_AUTO_SYNC"] == "0"
    mine = f'[mcp_servers.loupe]\ncommand = "{exe}"\nargs = ["mcp"]\n\n[mcp_servers.loupe.env]\nX = "1"\n'
    put(ctx, CODEX, mine)
    r = ctx.ok("install", "--client", "codex")
    assert "unchanged" in r.out and get(ctx, CODEX) == mine, (r, get(ctx, CODEX))


def test_dry_run_writes_nothing(ctx):
    for rel, text in FIXTURES.items():
        put(ctx, rel, text)
    r = ctx.ok("install", "--client", "all", "--dry-run")
    assert r.out.count("would add") == 4, r
    for rel, text in FIXTURES.items():
        assert get(ctx, rel) == text
        d = os.path.dirname(home(ctx, rel))
        assert not [f for f in os.listdir(d) if ".loupe-backup" in f]
    assert not os.path.exists(os.path.join(ctx.home, "install.json"))


def test_install_refuses_files_it_cannot_parse(ctx):
    bad_json = '{"mcpServers": {"a": {"command": "a"},,}}'
    put(ctx, CURSOR, bad_json)
    put(ctx, CODEX, '[mcp_servers]\nloupe = { command = "x", args = [] }\n')
    r = ctx.run("install", "--client", "cursor,codex")
    assert r.rc == 1, r
    assert "cannot edit" in r.err and "line 1, column" in r.err, r
    assert "inline table or with dotted keys" in r.err, r
    assert get(ctx, CURSOR) == bad_json


def test_install_without_any_client_says_how(ctx):
    r = ctx.run("install", env={"PATH": "/nonexistent"})
    assert r.rc == 1 and "--client" in r.err, r
    r = ctx.run("install", "--client", "vim")
    assert r.rc == 2 and "unknown client 'vim'" in r.err, r


def test_doctor_reports_and_explains(ctx):
    r = ctx.run("doctor", env={"PATH": "/nonexistent"})
    assert r.rc == 0, r
    assert "ok    binary" in r.out and "ok    state folder" in r.out, r
    put(ctx, CURSOR, '{"mcpServers": {"loupe": {"command": "/no/such/loupe", "args": ["mcp"]}}}')
    r = ctx.run("doctor", env={"PATH": "/nonexistent"})
    assert r.rc == 1, r
    assert "not an executable" in r.out and "fix: run 'loupe install --client cursor'" in r.out, r
    ctx.ok("install", "--client", "cursor")
    r = ctx.run("doctor", env={"PATH": "/nonexistent"})
    assert r.rc == 0 and "runs " + os.path.realpath(ctx.loupe) in r.out, r
    # doctor starts the configured server and completes an MCP round trip.
    assert "answered initialize and tools/list (" in r.out, r
    # An executable that is not an MCP server fails the round trip, with what happened.
    fake = ctx.write("fake-loupe", "#!/bin/sh\necho not a server\nexit 3\n")
    os.chmod(fake, 0o755)
    put(ctx, CURSOR, json.dumps({"mcpServers": {"loupe": {"command": fake, "args": ["mcp"]}}}))
    r = ctx.run("doctor", env={"PATH": "/nonexistent"})
    assert r.rc == 1 and "exited before answering initialize (exit status 3)" in r.out, r
    # A client file that does not parse is reported as such, not as "no loupe server".
    put(ctx, CURSOR, '{"mcpServers": {"loupe": {"command": "x"},,}}')
    r = ctx.run("doctor", env={"PATH": "/nonexistent"})
    assert r.rc == 1 and "FAIL  cursor" in r.out and "cannot read" in r.out, r
    assert "line 1, column" in r.out and "no loupe server" not in r.out, r
    # A state folder that cannot be written is a problem with a fix.
    blocker = ctx.write("blocker", "a file, not a folder")
    r = ctx.run("doctor", env={"PATH": "/nonexistent", "LOUPE_HOME": blocker + "/state"})
    assert r.rc == 1 and "FAIL  state folder" in r.out and "LOUPE_HOME" in r.out, r


def test_make_install_prefix(ctx):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    build = os.path.dirname(ctx.loupe)
    if os.path.basename(build) != "build":
        return  # only for the main build (build/loupe); the asan binary is not installed
    prefix = ctx.path("prefix")
    # make test builds with WERROR=1; the same flags make `install` reuse that build.
    r = subprocess.run(["make", "--no-print-directory", "-q", "WERROR=1", "build/loupe"], cwd=root,
                       capture_output=True, text=True)
    if r.returncode != 0:
        print("# test_make_install_prefix: build/loupe is not the WERROR=1 build; not installing")
        return
    r = subprocess.run(["make", "--no-print-directory", "install", "WERROR=1", f"PREFIX={prefix}"], cwd=root,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    installed = os.path.join(prefix, "bin", "loupe")
    assert os.access(installed, os.X_OK)
    v = subprocess.run([installed, "version"], capture_output=True, text=True)
    assert v.returncode == 0 and v.stdout.startswith("loupe "), v
