"""The training-data generators (bench/train): the deny list, gold owners in loupe's own symbol
terms, blanking that never touches the original tree, and the package-disjoint split."""
import json
import os
import sys

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "bench", "train"))


def _modules():
    import common
    import corpora
    import gen_tasks
    return common, corpora, gen_tasks


PKG = {
    "src/ringlib/buffer.py": '''
class RingBuffer:
    """A fixed-size circular store of recent items."""

    def push_item(self, item):
        """Append an element and drop the oldest one once the capacity is reached."""
        return item

    def drain(self):
        """Remove every stored element and hand them back oldest first."""
        return []


def parse_header(text):
    """Split a raw header line into its name and its value."""
    return text.split(":", 1)
''',
    "tests/test_buffer.py": '''
from ringlib.buffer import parse_header, RingBuffer


def test_parse_header_with_quotes():
    assert parse_header('a: "b"') == ["a", ' "b"']
''',
    "README.md": '''# ringlib

Call `RingBuffer.drain` when the consumer shuts down so that no queued element is lost on exit.
''',
    "CHANGES.rst": '''Changes
=======

- Fixed ``parse_header`` dropping the value when it contains a colon character.
''',
}


def _package(ctx, gen_tasks, common):
    root = ctx.path("pkgsrc")
    for rel, text in PKG.items():
        ctx.write(rel, text.lstrip("\n"), root=root)
    rec = {"id": "pypi+ringlib@1.0", "lang": "python", "registry": "pypi", "name": "ringlib",
           "version": "1.0", "root": os.path.relpath(root, TOP), "status": "ok"}
    common.PARSE_CACHE = ctx.path("parse")
    gen_tasks.BLANKED = ctx.path("blanked")
    return gen_tasks.Package(rec, ctx.loupe), root


def test_deny_list_refuses_evaluation_and_held_out_projects(ctx):
    _, corpora, _ = _modules()
    for reg, name in [("pypi", "Flask"), ("pypi", "pytest-cov"), ("npm", "rxjs"), ("pypi", "sympy"),
                      ("debbin", "librust-regex-syntax-dev"), ("go", "golang.org/x/net"),
                      ("debsrc", "linux"), ("maven", "org.foo:sphinx-bar_2.13"), ("pypi", "Jinja2")]:
        assert corpora.denied(reg, name), (reg, name)
    assert corpora.denied("pypi", "attrs") is None
    vend = ctx.path("vend")
    for f in ("__init__.py", "api.py", "models.py"):
        ctx.write("lib/_vendor/requests/" + f, "x = 1\n", root=vend)
    assert "requests" in corpora.denied_content(vend)
    # The committed package list passes the check.
    assert all(corpora.denied(p["registry"], p["name"]) is None for p in corpora.load_packages())


def test_doc_comment_task_blanks_a_copy_and_names_the_owner_as_loupe_does(ctx):
    common, _, gen_tasks = _modules()
    pkg, root = _package(ctx, gen_tasks, common)
    short, _ = gen_tasks.gen_docs(pkg)
    by_q = {t["query"]: (t, span) for t, span in short}
    t, span = by_q["Append an element and drop the oldest one once the capacity is reached"]
    g = t["gold"]["functions"][0]
    assert (g["file"], g["qualname"], g["kind"]) == ("src/ringlib/buffer.py", "RingBuffer.push_item", "method")
    broot = gen_tasks.write_blanked(pkg, [span])
    orig = open(os.path.join(root, g["file"])).read()
    blank = open(os.path.join(broot, g["file"])).read()
    assert len(orig) == len(blank) and "Append an element" in orig and "Append an element" not in blank
    assert blank.count("\n") == orig.count("\n")
    # The owner as loupe's index reports it for the blanked tree.
    ctx.ok("index", broot)
    out = json.loads(ctx.ok("outline", "--json", os.path.join(broot, g["file"])).out)

    def flat(ss):
        for s in ss:
            yield s
            yield from flat(s.get("children", []))
    owners = {(s["qualifiedName"], s["startLine"], s["endLine"]) for s in flat(out["symbols"])}
    assert (g["qualname"], g["start"], g["end"]) in owners, owners


def test_test_name_doc_section_and_changelog_tasks(ctx):
    common, _, gen_tasks = _modules()
    pkg, root = _package(ctx, gen_tasks, common)
    tests = gen_tasks.gen_tests(pkg)
    assert [(t["query"], [g["qualname"] for g in t["gold"]["functions"]]) for t in tests] == \
        [("parse header with quotes", ["parse_header"])]
    prose = gen_tasks.prose_files(pkg)
    assert ("CHANGES.rst", True) in prose and ("README.md", False) in prose
    sections = [t for g in gen_tasks.gen_doc_sections(pkg, prose) for t in g]
    assert {t["meta"]["identifiers"] for t in sections} == {"kept", "removed"}
    removed = [t for t in sections if t["meta"]["identifiers"] == "removed"][0]
    assert "drain" not in removed["query"] and "consumer shuts down" in removed["query"]
    assert removed["gold"]["functions"][0]["qualname"] == "RingBuffer.drain"
    changes = [t for g in gen_tasks.gen_changelogs(pkg, prose) for t in g]
    kept = [t for t in changes if t["meta"]["identifiers"] == "kept"][0]
    assert kept["meta"]["leaks_identifier"] and kept["gold"]["functions"][0]["qualname"] == "parse_header"


def test_split_is_package_disjoint_and_stable(ctx):
    _, _, gen_tasks = _modules()
    recs = [{"id": "pypi+p%d@1" % i} for i in range(200)]
    a = gen_tasks.split_of(recs, "s", 0.2)
    b = gen_tasks.split_of(recs[::-1][:150], "s", 0.2)  # other packages never move one
    assert all(a[k] == v for k, v in b.items())
    assert 20 <= sum(v == "valid" for v in a.values()) <= 60
