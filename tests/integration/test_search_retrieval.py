"""Search behaviour: channels, synonyms, operators, scopes, determinism (src/search)."""

FILES = {
    "src/users.py": '''class UserStore:
    """Keeps user records."""

    def load_user(self, user_id):
        """Read one user record from the database."""
        return self.db.get(user_id)

    def delete_user(self, user_id):
        self.db.pop(user_id)


def parse_args(argv):
    """Turn command line words into options."""
    return argv
''',
    "src/session.go": '''package session

// RefreshToken asks the server for a new access token.
func RefreshToken(old string) string {
	return old
}

// Login checks a password.
func Login(user, pass string) bool { return user != "" }

// Settings holds the knobs of a session.
type Settings struct {
	Timeout int
}
''',
    "tests/test_users.py": '''def test_load_user_record():
    store = UserStore()
    assert store.load_user(1)
''',
    "docs/guide.md": '''# Users

How to load a user record from the store.
''',
}


def make_repo(ctx):
    root = ctx.path("repo")
    for rel, text in FILES.items():
        ctx.write(rel, text, root=root)
    ctx.ok("index", root)
    return root


def search(ctx, root, *words, scope=None, limit=10, env=None):
    args = ["search", "--json", "--limit", str(limit), "--path", root]
    if scope:
        args += ["--scope", scope]
    return ctx.ok(*args, "--", *words, env=env).json()


def owners(doc):
    return [(r["owner"]["file"], r["owner"].get("symbol")) for r in doc["results"]]


def test_synonym_query_finds_the_owner(ctx):
    root = make_repo(ctx)
    # "fetch" is not in the code; the synonym table maps it to load/get.
    doc = search(ctx, root, "fetch", "user", "record")
    assert owners(doc)[0] == ("src/users.py", "load_user"), doc
    # "configuration" reaches Settings through the config group.
    doc = search(ctx, root, "session", "configuration")
    assert ("src/session.go", "Settings") in owners(doc)[:2], doc
    # A literal word outranks a synonym: "delete" finds delete_user first.
    doc = search(ctx, root, "delete", "user")
    assert owners(doc)[0] == ("src/users.py", "delete_user"), doc
    assert isinstance(doc["timingMs"], (int, float)) and doc["timingMs"] >= 0, doc


def test_exact_channel_for_identifiers(ctx):
    root = make_repo(ctx)
    doc = search(ctx, root, "RefreshToken")
    top = doc["results"][0]
    assert top["owner"]["symbol"] == "RefreshToken" and "exact" in top["channels"], doc
    # Folded: another naming convention still reaches the symbol through the exact channel.
    doc = search(ctx, root, "parseArgs")
    top = doc["results"][0]
    assert top["owner"]["symbol"] == "parse_args" and "exact" in top["channels"], doc
    # sym: feeds the exact channel with a qualified name.
    doc = search(ctx, root, "sym:UserStore.load_user")
    assert doc["results"][0]["owner"]["symbol"] == "load_user", doc
    assert doc["results"][0]["channels"][0] == "exact", doc


def test_operators_filter(ctx):
    root = make_repo(ctx)
    doc = search(ctx, root, "user", "lang:go")
    assert doc["results"] and all(f.endswith(".go") for f, _ in owners(doc)), doc
    doc = search(ctx, root, "user", "path:tests")
    assert doc["results"] and all(f.startswith("tests/") for f, _ in owners(doc)), doc
    doc = search(ctx, root, "user", "-path:tests", "-path:*.go")
    assert doc["results"] and all(f == "src/users.py" for f, _ in owners(doc)), doc
    doc = search(ctx, root, "user", "kind:method")
    assert {s for _, s in owners(doc)} == {"load_user", "delete_user"}, doc
    doc = search(ctx, root, "user", "path:src/*.rs")
    assert doc["results"] == [], doc


def test_bad_operators_are_errors(ctx):
    root = make_repo(ctx)
    for words, needle in ((["user", "lang:cobol"], "unknown language"),
                          (["user", "kind:gizmo"], "unknown kind"),
                          (["user", "file:x.py"], "unknown operator"),
                          (["user", "path:"], "needs a value"),
                          (["user", "path:\"src"], "unterminated quote"),
                          (["-lang:go", "user"], "only path: can be negated"),
                          (["kind:function"], "no words")):
        r = ctx.run("search", "--json", "--path", root, "--", *words)
        assert r.rc != 0, (words, r)
        assert needle in r.out + r.err, (words, r)


def test_scopes(ctx):
    root = make_repo(ctx)
    # runtime (default): implementation first, the test demoted, docs excluded.
    doc = search(ctx, root, "load", "user", "record")
    files = [f for f, _ in owners(doc)]
    assert files[0] == "src/users.py", doc
    assert "docs/guide.md" not in files, doc
    assert files.index("tests/test_users.py") > files.index("src/users.py"), doc
    # A question about tests does not demote them.
    doc = search(ctx, root, "test", "load", "user", "record")
    assert owners(doc)[0] == ("tests/test_users.py", "test_load_user_record"), doc
    doc = search(ctx, root, "load", "user", scope="tests")
    assert doc["results"] and all(f.startswith("tests/") for f, _ in owners(doc)), doc
    doc = search(ctx, root, "load", "user", scope="docs")
    assert doc["results"] and all(f.startswith("docs/") for f, _ in owners(doc)), doc
    doc = search(ctx, root, "load", "user", "record", scope="mixed")
    assert "docs/guide.md" in [f for f, _ in owners(doc)], doc


def test_one_owner_one_group_and_determinism(ctx):
    root = make_repo(ctx)
    first = search(ctx, root, "user", "record", "store", "load", limit=50)
    keys = [(r["owner"]["file"], r["owner"]["startLine"], r["owner"].get("symbol"))
            for r in first["results"]]
    assert len(keys) == len(set(keys)), first
    scores = [r["score"] for r in first["results"]]
    assert scores == sorted(scores, reverse=True), first
    for _ in range(3):
        again = search(ctx, root, "user", "record", "store", "load", limit=50)
        assert again["results"] == first["results"], again


def test_channel_switches(ctx):
    root = make_repo(ctx)
    doc = search(ctx, root, "RefreshToken", env={"LOUPE_SEARCH_CHANNELS": "lexical"})
    assert all(r["channels"] == ["lexical"] for r in doc["results"]), doc
    doc = search(ctx, root, "RefreshToken", env={"LOUPE_SEARCH_CHANNELS": "exact"})
    assert [r["channels"] for r in doc["results"]] == [["exact"]], doc
    # The dense channel, when asked for, never fails a search.
    doc = search(ctx, root, "new access token", env={
        "LOUPE_SEARCH_CHANNELS": "lexical,exact,rerank,dense"})
    assert doc["results"], doc
    assert (any("dense" in r["channels"] for r in doc["results"])
            or any(w.startswith("dense_channel_absent") for w in doc["warnings"])), doc


def test_filters_alone_list_files(ctx):
    """A query of path:/lang: filters only lists the files they match (issue 20 item 5)."""
    from mcp_client import Session
    root = make_repo(ctx)
    for i in range(4):
        ctx.write(f"src/extra{i}.py", f"def helper{i}():\n    return {i}\n\n\nclass K{i}:\n    pass\n",
                  root=root)
    ctx.ok("sync", root)
    # path: alone: every file under src/, in path order, with size, lines and top symbols.
    doc = search(ctx, root, "path:src/**")
    files = [r["file"] for r in doc["results"]]
    assert files == sorted(files) and files[0] == "src/extra0.py", files
    assert set(files) == {"src/extra0.py", "src/extra1.py", "src/extra2.py", "src/extra3.py",
                          "src/session.go", "src/users.py"}, files
    users = next(r for r in doc["results"] if r["file"] == "src/users.py")
    size = len(FILES["src/users.py"].encode())
    assert users["fileSize"] == size and users["owner"]["endLine"] == 14, users
    assert users["fileOwners"] == 2 and "path" in users["channels"], users
    assert [o["symbol"] for o in users["owners"]] == ["UserStore", "parse_args"], users
    assert users["owners"][0]["id"].startswith("sym:"), users
    assert doc["confidence"] == 1.0 and doc["warnings"] == [], doc
    # lang: alone, and kind: to keep files that define such symbols.
    doc = search(ctx, root, "lang:go")
    assert [r["file"] for r in doc["results"]] == ["src/session.go"], doc
    doc = search(ctx, root, "path:src/**", "kind:class")
    assert [r["file"] for r in doc["results"]] == ["src/extra0.py", "src/extra1.py",
                                                   "src/extra2.py", "src/extra3.py",
                                                   "src/users.py"], doc
    assert all(o["kind"] == "class" for r in doc["results"] for o in r["owners"]), doc
    # More files than the limit: the first ones, a count, and the rest by continuation.
    r = ctx.ok("search", "--json", "--limit", "2", "--path", root, "--", "path:src/*.py")
    page = r.json()
    assert [x["file"] for x in page["results"]] == ["src/extra0.py", "src/extra1.py"], page
    handle = page["pagination"]["continuation"]
    more = ctx.ok("more", "--json", handle).json()
    assert [x["file"] for x in more["results"]][:2] == ["src/extra2.py", "src/extra3.py"], more
    assert more["results"][0]["fileSize"] > 0, more
    # Nothing matches: an empty answer that says so.
    doc = search(ctx, root, "path:nowhere/**")
    assert doc["results"] == [] and any("no_files_match" in w for w in doc["warnings"]), doc
    # Plain output: one line per file with its size, then its first symbols.
    r = ctx.ok("search", "--path", root, "--", "path:src/users.py")
    assert f"1. src/users.py  (14 lines, {size} bytes, 2 top-level symbols)" in r.out, r
    # The same over MCP.
    s = Session(ctx)
    a = s.call("search_codebase", {"path": root, "query": "path:src/*.go"})
    assert [x["file"] for x in a["results"]] == ["src/session.go"], a
    assert a["results"][0]["fileSize"] == len(FILES["src/session.go"].encode()), a
    s.close()


def test_regex_operator_greps_with_owners(ctx):
    """regex:PATTERN: the matching lines of the indexed text, each with its owner (issue 20
    item 5); bounded, and errors say how to fix the pattern."""
    from mcp_client import Session
    root = make_repo(ctx)
    doc = search(ctx, root, r'regex:"def \w+_user\("')
    got = [(r["owner"]["file"], r["owner"]["symbol"], r["snippetStartLine"]) for r in doc["results"]]
    assert got == [("src/users.py", "load_user", 3), ("src/users.py", "delete_user", 7)], doc
    assert all(r["channels"] == ["regex"] for r in doc["results"]), doc
    assert "4| def load_user(self, user_id):" in doc["results"][0]["snippet"].replace("    def", "def"), doc
    assert doc["confidence"] == 1.0 and doc["warnings"] == [], doc
    # Filters narrow it.
    doc = search(ctx, root, "regex:^package", "lang:go")
    assert [(r["owner"]["file"], r["owner"]["kind"]) for r in doc["results"]] == \
        [("src/session.go", "package")], doc
    doc = search(ctx, root, "regex:token", "path:docs/**")
    assert doc["results"] == [], doc
    # More lines than the limit: the first ones and a warning.
    r = ctx.ok("search", "--json", "--limit", "1", "--path", root, "--", "regex:return")
    page = r.json()
    assert len(page["results"]) == 1 and page["pagination"]["continuation"], page
    # A pattern with catastrophic backtracking is stopped per file, and said.
    ctx.write("src/slow.txt", "a" * 4000 + "!\n", root=root)
    ctx.ok("sync", root)
    doc = search(ctx, root, 'regex:"^(a|aa)+$"')
    assert any(w.startswith("regex_too_costly:") for w in doc["warnings"]), doc
    # A line outside any symbol is a file region.
    doc = search(ctx, root, "regex:^a{10}", "path:src/slow.txt", scope="mixed")
    assert [(r["owner"]["file"], r["owner"]["kind"], r["owner"]["startLine"])
            for r in doc["results"]] == [("src/slow.txt", "file", 1)], doc
    # Errors: a pattern that does not compile, words beside regex:, two regexes.
    for words, needle in (([r"regex:[unclosed"], "does not compile at offset"),
                          (["regex:x", "token"], "takes no words"),
                          (["regex:x", "regex:y"], "one regex: per query")):
        r = ctx.run("search", "--json", "--path", root, "--", *words)
        assert r.rc != 0 and needle in r.out + r.err, (words, r)
    # Over MCP.
    s = Session(ctx)
    a = s.call("search_codebase", {"path": root, "query": 'regex:"func (Login|RefreshToken)"'})
    assert [x["owner"]["symbol"] for x in a["results"]] == ["RefreshToken", "Login"], a
    s.close()
