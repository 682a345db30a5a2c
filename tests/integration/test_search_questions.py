"""Any question is accepted (issue 17 item 1): long text, quotes that are text, hyphenated
words, through the CLI and MCP (src/search/query.c, rank.c, channels.c)."""
from mcp_client import Session

FILES = {
    "src/pool.py": '''def reap_idle_connections(pool):
    """Close the keep-alive sockets that stayed idle past their timeout."""
    for c in pool.idle():
        c.close()


def open_connection(host):
    """Open a new connection to host."""
    return host
''',
    "src/sched.py": '''def pick_next(items):
    """A scheduler based on a deque: the oldest item runs first."""
    return items.popleft()


def scheduler_stats(s):
    """Counters of the scheduler."""
    return s
''',
    "src/retry.py": '''def backoff_delay(attempt):
    """Exponential backoff delay for the next retry attempt."""
    return 2 ** attempt
''',
}

# Words that occur in the code but tell nothing apart, to make the text long.
FILLER = ("we have been using the library in production for a while and after upgrading "
          "last week something changed in how it behaves under load on our servers and "
          "nobody on the team could explain it so here is what we saw in as much detail as "
          "possible including the configuration and the versions ").split()


def make_repo(ctx):
    root = ctx.path("repo")
    for rel, text in FILES.items():
        ctx.write(rel, text, root=root)
    ctx.ok("index", root)
    return root


def search(ctx, root, query, limit=5):
    r = ctx.ok("search", "--json", "--limit", str(limit), "--path", root, "--", query)
    return r.json()


def names(doc):
    return [r["owner"].get("symbol") for r in doc["results"]]


def issue_text(words=300):
    # The deciding words come after word 250: a question cut at 64 words loses them.
    head = (FILLER * 10)[:250]
    tail = ("the idle keep-alive sockets are never closed after their timeout so the pool "
            "leaks them until the process runs out of descriptors").split()
    rest = (FILLER * 10)[:max(0, words - len(head) - len(tail))]
    return " ".join(head + tail + rest)


def test_a_300_word_issue_is_answered_by_its_deciding_words(ctx):
    root = make_repo(ctx)
    text = issue_text(300)
    assert len(text.split()) >= 300
    doc = search(ctx, root, text)
    assert names(doc)[0] == "reap_idle_connections", doc
    codes = [w.split(":", 1)[0] for w in doc.get("warnings", [])]
    assert "long_question" in codes, doc["warnings"]


def test_text_over_the_byte_limit_is_cut_and_said(ctx):
    root = make_repo(ctx)
    text = "exponential backoff retry delay " + "x" * 10 + " " + "filler " * 12000
    assert len(text.encode()) > 65536
    doc = search(ctx, root, text)
    assert names(doc)[0] == "backoff_delay", doc
    assert any(w.startswith("query_shortened:") for w in doc["warnings"]), doc["warnings"]


def test_unbalanced_and_typographic_quotes_are_text(ctx):
    root = make_repo(ctx)
    doc = search(ctx, root, 'exponential "backoff delay')
    assert names(doc)[0] == "backoff_delay", doc
    doc = search(ctx, root, "\u201cexponential backoff\u201d retry")
    assert names(doc)[0] == "backoff_delay", doc
    # A curly-quoted pair of words that never occur side by side still finds the code.
    doc = search(ctx, root, "\u201cretry exponential\u201d")
    assert names(doc)[0] == "backoff_delay", doc


def test_hyphenated_words_are_split_as_well_as_kept_whole(ctx):
    root = make_repo(ctx)
    # "deque-based": the code says "based on a deque" (never "deque based" in a row).
    doc = search(ctx, root, "deque-based scheduler")
    assert names(doc)[0] == "pick_next", doc


def test_mcp_accepts_a_whole_issue(ctx):
    root = make_repo(ctx)
    s = Session(ctx)
    a = s.call("search_codebase", {"path": root, "query": issue_text(300), "limit": 5})
    assert a["results"][0]["owner"]["symbol"] == "reap_idle_connections", a["results"][0]
    assert any(w["code"] == "long_question" for w in a["warnings"]), a["warnings"]
    s.close()


JAVA = '''package com.acme.auth;

public class TokenStore {
    public String refresh(String old) {
        return old;
    }

    public String revoke(String token) {
        return token;
    }
}
'''


def test_a_traceback_finds_its_frames_and_files(ctx):
    root = make_repo(ctx)
    ctx.write("lib/flask/app.py", '''class Flask:
    def wsgi_app(self, environ, start_response):
        """The WSGI application."""
        return self.dispatch()

    def dispatch(self):
        return None
''', root=root)
    ctx.write("src/com/acme/auth/TokenStore.java", JAVA, root=root)
    ctx.ok("sync", root)
    tb = ('Traceback (most recent call last):\n'
          '  File "/usr/lib/python3/site-packages/flask/app.py", line 2091, in wsgi_app\n'
          '    response = self.dispatch()\n'
          'TypeError: the view function did not return a valid response')
    doc = search(ctx, root, tb)
    top = doc["results"][0]
    assert top["owner"]["symbol"] == "wsgi_app", doc
    assert "path" in top["channels"] and "exact" in top["channels"], top
    # A Java frame: the fully qualified method finds the stored TokenStore.refresh.
    doc = search(ctx, root, "java.lang.NullPointerException\n"
                 "\tat com.acme.auth.TokenStore.refresh(TokenStore.java:4)")
    top = doc["results"][0]
    assert top["owner"]["symbol"] == "refresh", doc
    assert "exact" in top["channels"] and "path" in top["channels"], top


def test_a_file_name_in_the_question_matches_paths(ctx):
    root = make_repo(ctx)
    # retry.py says nothing of "helpers"; the file name alone brings it.
    doc = search(ctx, root, "what does sched.py compute for counters")
    assert doc["results"][0]["owner"]["file"] == "src/sched.py", doc
    assert "path" in doc["results"][0]["channels"], doc["results"][0]


def test_stdin_takes_a_text_longer_than_the_command_line(ctx):
    root = make_repo(ctx)
    # Over the kernel's 128 KiB limit for one argument: only standard input can carry it.
    log = "\n".join(f"2026-12-01T10:{i % 60:02d}:00Z INFO worker request served in {i % 97} ms"
                    for i in range(3000))
    text = issue_text(300) + "\n" + log
    assert len(text.encode()) > 131072
    r = ctx.ok("search", "--json", "--limit", "3", "--path", root, "--stdin", input=text)
    doc = r.json()
    assert names(doc)[0] == "reap_idle_connections", doc
    assert any(w.startswith("query_shortened:") for w in doc["warnings"]), doc["warnings"]
    # Words on the command line and the piped text are one question.
    r = ctx.ok("search", "--json", "--path", root, "--stdin", "scheduler", input="deque-based")
    assert names(r.json())[0] == "pick_next", r.out
    # Nothing on standard input and no words: a usage error that says so.
    r = ctx.run("search", "--path", root, "--stdin", input="")
    assert r.rc == 2 and "standard input was empty" in r.err, r
    # A long question without results is not echoed whole.
    r = ctx.ok("search", "--path", root, "--stdin", input="zzqqxx " * 5000)
    first = r.out.splitlines()[0]
    assert first.startswith("no results for 'zzqqxx") and len(first) < 200, first


def test_an_area_prefix_prefers_the_files_it_names(ctx):
    root = make_repo(ctx)
    ctx.write("src/cache.py", '''def evict(table):
    """Drop the entries past their age."""
    return table
''', root=root)
    ctx.write("src/store.py", '''def purge_expired_entries(table):
    """Drop expired entries from the table, expired meaning past their age."""
    return table
''', root=root)
    ctx.write("lib/net/http/conn.py", '''def close_stale(table):
    """Drop the old entries of the connection table."""
    return table
''', root=root)
    ctx.ok("sync", root)
    # Without an area, the store's function (more of the words) comes first.
    doc = search(ctx, root, "drop expired entries")
    assert doc["results"][0]["owner"]["file"] == "src/store.py", doc
    # "cache: ..." names src/cache.py; the same word later in the text does not.
    doc = search(ctx, root, "cache: drop expired entries")
    top = doc["results"][0]
    assert top["owner"]["file"] == "src/cache.py", doc
    assert "path" in top["channels"], top
    doc = search(ctx, root, "drop expired entries from the cache")
    assert doc["results"][0]["owner"]["file"] != "src/cache.py", doc
    # A folder path as the area: its files.
    doc = search(ctx, root, "net/http: drop expired entries")
    assert doc["results"][0]["owner"]["file"] == "lib/net/http/conn.py", doc
    # An area naming more than 64 files and a quarter of all says nothing.
    for i in range(65):
        ctx.write(f"src/part{i}/cache.py", f"def f{i}():\n    return {i}\n", root=root)
    ctx.ok("sync", root)
    doc = search(ctx, root, "cache: drop expired entries")
    assert doc["results"][0]["owner"]["file"] == "src/store.py", doc
