"""Stable symbol ids through `loupe index` + `loupe outline --json`.

A symbol's id is built from its path, qualified name, kind and ordinal. Declarations
(C/C++ prototypes) count their ordinals apart from definitions and enter the id key with a
kind offset, so adding or removing a prototype, or an unrelated function elsewhere in the
file, never changes a definition's id, and a prototype never shares its definition's id.
"""
import os

C_BASE = """#include <stdio.h>

static int helper(int x)
{
    return x * 2;
}

int compute(int a, int b)
{
    return helper(a) + b;
}
"""

C_WITH_PROTOS = """#include <stdio.h>

static int helper(int x);
int compute(int a, int b);

static int helper(int x)
{
    return x * 2;
}

int compute(int a, int b)
{
    return helper(a) + b;
}
"""

C_WITH_UNRELATED = """#include <stdio.h>

int unrelated(void)
{
    return 7;
}

static int helper(int x);

static int helper(int x)
{
    return x * 2;
}

int compute(int a, int b)
{
    return helper(a) + b;
}

int compute(int a, int b);
"""

CPP_BASE = """namespace store {
class Cache {
public:
    int get(int k) const;
    void put(int k, int v);
};

int Cache::get(int k) const { return k; }
void Cache::put(int k, int v) { (void)k; (void)v; }
}
"""

CPP_NO_PROTO = """namespace store {
class Cache {
public:
    void put(int k, int v);
};

int Cache::get(int k) const { return k; }
void Cache::put(int k, int v) { (void)k; (void)v; }
}
"""


def _walk(nodes):
    for n in nodes:
        yield n
        yield from _walk(n.get("children") or [])


def outline(ctx, root, rel):
    r = ctx.ok("outline", os.path.join(root, rel), "--json").json()
    syms = r.get("symbols", r.get("outline"))
    assert isinstance(syms, list), r
    return list(_walk(syms))


def ids_by(syms, kind, qname):
    return [s["id"] for s in syms if s["kind"] == kind and s["qualifiedName"] == qname]


def reindex(ctx, root, rel, content):
    ctx.write(rel, content, root=root)
    ctx.ok("sync", root, "--json")


def test_prototype_does_not_change_definition_id(ctx):
    root = ctx.path("repo")
    ctx.write("lib.c", C_BASE, root=root)
    ctx.ok("index", root, "--json")
    base = outline(ctx, root, "lib.c")
    compute = ids_by(base, "function", "compute")
    helper = ids_by(base, "function", "helper")
    assert len(compute) == 1 and len(helper) == 1, base

    # prototypes above the definitions: the definitions keep their ids, and each
    # prototype gets an id of its own
    reindex(ctx, root, "lib.c", C_WITH_PROTOS)
    with_protos = outline(ctx, root, "lib.c")
    ids = ids_by(with_protos, "function", "compute")
    assert len(ids) == 2 and compute[0] in ids, with_protos
    assert len(set(ids)) == 2, f"prototype and definition share an id: {ids}"
    assert helper[0] in ids_by(with_protos, "function", "helper"), with_protos
    defs = [s for s in with_protos if s["qualifiedName"] == "compute"]
    by_line = sorted(defs, key=lambda s: s["startLine"])
    assert by_line[1]["id"] == compute[0], "the definition (second) must keep the old id"

    # an unrelated function above, a prototype after the definition: still the same ids
    reindex(ctx, root, "lib.c", C_WITH_UNRELATED)
    other = outline(ctx, root, "lib.c")
    assert compute[0] in ids_by(other, "function", "compute"), other
    assert helper[0] in ids_by(other, "function", "helper"), other

    # and back to no prototype at all
    reindex(ctx, root, "lib.c", C_BASE)
    again = outline(ctx, root, "lib.c")
    assert ids_by(again, "function", "compute") == compute, again
    assert ids_by(again, "function", "helper") == helper, again


def test_cpp_in_class_declaration_does_not_change_method_id(ctx):
    root = ctx.path("repo")
    ctx.write("cache.cpp", CPP_BASE, root=root)
    ctx.ok("index", root, "--json")
    base = outline(ctx, root, "cache.cpp")
    get_ids = ids_by(base, "method", "store.Cache.get")
    assert len(get_ids) == 2 and len(set(get_ids)) == 2, base
    get_def = [s["id"] for s in base if s["qualifiedName"] == "store.Cache.get"
               and s["startLine"] == 8]
    assert len(get_def) == 1, base

    # drop the in-class declaration of get: the out-of-class definition keeps its id
    reindex(ctx, root, "cache.cpp", CPP_NO_PROTO)
    after = outline(ctx, root, "cache.cpp")
    get_after = [s for s in after if s["qualifiedName"] == "store.Cache.get"]
    assert [s["id"] for s in get_after] == get_def, after
    # the id still resolves to the definition's source
    r = ctx.ok("read", "--symbol", get_def[0], "--json", cwd=root).json()
    assert "return k;" in str(r), r
