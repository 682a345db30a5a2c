"""Never zero results for a real question: compounds, abbreviations, segmentation, prefix and
typo fallbacks, and the words_not_indexed warning that names them (src/search/fallback.c)."""

from mcp_client import Session

FILES = {
    # The code says ringbuf; its comment says neither "ring" nor "buffer" nor "circular".
    "src/ringbuf.c": '''/* A fixed-size FIFO of bytes that wraps around. */
#include <stddef.h>

struct ringbuf {
    unsigned char *data;
    size_t cap, head, tail, len;
};

int ringbuf_push(struct ringbuf *rb, unsigned char byte)
{
    if (rb->len == rb->cap)
        return -1;
    rb->data[rb->head] = byte;
    rb->head = (rb->head + 1) % rb->cap;
    rb->len++;
    return 0;
}

int ringbuf_pop(struct ringbuf *rb, unsigned char *out)
{
    if (rb->len == 0)
        return -1;
    *out = rb->data[rb->tail];
    rb->tail = (rb->tail + 1) % rb->cap;
    rb->len--;
    return 0;
}
''',
    # Distractors that do say "buffer".
    "src/io.c": '''#include <unistd.h>

/* Fill a buffer from a file descriptor. */
long read_buffer(int fd, char *buffer, unsigned long size)
{
    return read(fd, buffer, size);
}

/* Write a whole buffer to a file descriptor. */
long write_buffer(int fd, const char *buffer, unsigned long size)
{
    return write(fd, buffer, size);
}
''',
    "src/list.c": '''#include <stdlib.h>

/* A singly linked list of integers. */
struct node { int value; struct node *next; };

struct node *list_prepend(struct node *head, int value)
{
    struct node *n = malloc(sizeof *n);
    if (!n)
        return head;
    n->value = value;
    n->next = head;
    return n;
}
''',
}

RING_OWNERS = {"ringbuf", "ringbuf_push", "ringbuf_pop"}


def make_repo(ctx):
    root = ctx.path("repo")
    for rel, text in FILES.items():
        ctx.write(rel, text, root=root)
    ctx.ok("index", root)
    return root


def search(ctx, root, query, env=None):
    return ctx.ok("search", "--json", "--limit", "10", "--path", root, "--", query,
                  env=env).json()


def top(doc, n=3):
    return [(r["owner"]["file"], r["owner"].get("symbol")) for r in doc["results"][:n]]


def fallback_warning(warnings):
    got = [w for w in warnings if w.startswith("words_not_indexed: ")]
    return got[0] if got else None


def test_ring_buffer_finds_ringbuf(ctx):
    root = make_repo(ctx)
    for query in ("ring buffer", "circular buffer", "where is the ring buffer"):
        doc = search(ctx, root, query)
        owners = top(doc)
        assert any(f == "src/ringbuf.c" and s in RING_OWNERS for f, s in owners), (query, doc)
        if query != "circular buffer":
            # First, above the functions that merely say "buffer".
            assert owners[0][0] == "src/ringbuf.c", (query, doc)
        w = fallback_warning(doc["warnings"])
        assert w and "-> 'ringbuf' (fallback: compound)" in w, (query, doc["warnings"])
        assert "'buffer'" not in w, w  # buffer is indexed (read_buffer): not reported
    # The plain text output prints the warning too.
    out = ctx.ok("search", "--path", root, "--", "ring buffer").out
    first = next(line for line in out.splitlines() if line.startswith("1. "))
    assert "ringbuf.c" in first, out
    assert "warning: words_not_indexed:" in out and "fallback: compound" in out, out
    # Without compounds the prefix fallback stands in for "ring" (ring -> ringbuf...).
    doc = search(ctx, root, "ring buffer", env={"LOUPE_FALLBACK": "off:compound"})
    assert "(fallback: prefix)" in fallback_warning(doc["warnings"]), doc["warnings"]
    # With every fallback off the ring buffer is not found: they are what answers.
    doc = search(ctx, root, "ring buffer",
                 env={"LOUPE_FALLBACK": "off:compound,segment,prefix,typo,abbrev"})
    assert all(f != "src/ringbuf.c" for f, _ in top(doc, 10)), doc


def test_prefix_typo_and_segment_fallbacks(ctx):
    root = make_repo(ctx)
    cases = [
        ("ringb", "prefix", "src/ringbuf.c"),
        ("prepnd", "typo", "src/list.c"),
        ("ringbuf pusj", "typo", "src/ringbuf.c"),
        ("writebuffer", "segment", "src/io.c"),
    ]
    for query, how, file in cases:
        doc = search(ctx, root, query)
        assert doc["results"], (query, doc)
        assert doc["results"][0]["owner"]["file"] == file, (query, doc)
        w = fallback_warning(doc["warnings"])
        assert w and f"(fallback: {how})" in w, (query, doc["warnings"])
    doc = search(ctx, root, "writebuffer")
    assert doc["results"][0]["owner"]["symbol"] == "write_buffer", doc


def test_no_warning_for_indexed_words_and_honest_nothing(ctx):
    root = make_repo(ctx)
    doc = search(ctx, root, "linked list prepend")
    assert top(doc, 1) == [("src/list.c", "list_prepend")], doc
    assert fallback_warning(doc["warnings"]) is None, doc["warnings"]
    doc = search(ctx, root, "zzqxv")
    assert doc["results"] == [], doc
    w = fallback_warning(doc["warnings"])
    assert w and "'zzqxv' (no fallback matched)" in w and "nothing in the index" in w, w


def test_mcp_ring_buffer_and_fallback_warning(ctx):
    root = make_repo(ctx)
    s = Session(ctx)
    for query in ("ring buffer", "circular buffer"):
        a = s.call("search_codebase", {"path": root, "query": query})
        owners = [(r["owner"]["file"], r["owner"].get("symbol")) for r in a["results"][:3]]
        assert any(f == "src/ringbuf.c" and sym in RING_OWNERS for f, sym in owners), a
        codes = {w["code"]: w["message"] for w in a["warnings"]}
        assert "words_not_indexed" in codes and "fallback: compound" in codes[
            "words_not_indexed"], a["warnings"]
    a = s.call("search_codebase", {"path": root, "query": "prepnd"})
    assert a["results"][0]["owner"]["symbol"] == "list_prepend", a
    assert any(w["code"] == "words_not_indexed" and "fallback: typo" in w["message"]
               for w in a["warnings"]), a["warnings"]
    s.close()


def test_python_getattr_and_kwargs(ctx):
    root = ctx.path("py")
    ctx.write("util.py", '''def lookup(obj, name, default=None):
    return getattr(obj, name, default)


def call_with(fn, *args, **kwargs):
    return fn(*args, **kwargs)


def get_value(d, key):
    return d[key]
''', root=root)
    ctx.ok("index", root)
    doc = search(ctx, root, "get attribute")
    assert top(doc, 1) == [("util.py", "lookup")], doc
    assert "'attribute' -> 'getattr' (fallback: compound)" in fallback_warning(doc["warnings"])
    doc = search(ctx, root, "keyword arguments")
    assert top(doc, 1) == [("util.py", "call_with")], doc
    w = fallback_warning(doc["warnings"])
    assert "(fallback: compound)" in w and "(fallback: synonym)" in w, w
