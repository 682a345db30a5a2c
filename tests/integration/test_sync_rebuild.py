"""A sync that changes much of a tree rebuilds its evidence from nothing (as fast as a
create; bench/faults_db.py sync_jump measures it): the answers must be exactly those of an
incremental sync and of a create of the same tree, and the old blobs' FTS rows must be gone
(the lexical index passes FTS5's own check)."""
import os
import shutil

import reliab


def _tree(ctx, root, gen, n=40):
    for i in range(n):
        if gen == 2 and i % 3 == 0:
            continue  # a third deleted
        name = f"pkg/m{i:03d}.py" if gen == 1 or i % 5 else f"pkg/renamed{i:03d}.py"
        body = (f"import pkg.m{(i + 1) % n:03d} as nxt\n\n"
                f"def g{gen}_handler_{i}(req):\n"
                f"    \"\"\"Handle a request in generation {gen} ({'shared' if i % 2 else 'own'}).\"\"\"\n"
                f"    return nxt.g{gen}_handler_{(i + 1) % n}(req) + {i}\n\n"
                f"class Store{i}:\n    def put(self, k):\n        return g{gen}_handler_{i}(k)\n")
        if gen == 2 and i % 2:
            body = body.replace(f"generation {gen}", "generation 1")  # some bytes kept
        ctx.write(name, body, root=root)
    if gen == 2:
        for i in range(10):
            ctx.write(f"new/n{i}.py", f"def brand_new_{i}():\n    return g2_handler_{i}(1)\n",
                      root=root)


def _answers(ctx, root):
    out = {}
    for q in ("handler request generation", "Store put", "brand_new", "g2_handler_7", "shared"):
        j = ctx.ok("search", q, "--path", root, "--json", "--limit", "50").json()
        out[q] = sorted((g["owner"]["file"], g["owner"].get("symbol"), g["owner"]["startLine"],
                         round(g["score"], 6)) for g in j["results"])
    for f in ("pkg/m001.py", "pkg/m004.py", "new/n3.py"):
        out[f] = ctx.ok("outline", os.path.join(root, f), "--json").json()["symbols"]
    j = ctx.ok("calls", "g2_handler_4", "--root", root, "--json").json()
    out["calls"] = {k: v for k, v in j.items() if k not in ("publicationId", "timingMs", "codebaseRoot")}
    return out


def test_rebuilding_sync_answers_like_incremental_and_create(ctx):
    roots = {}
    for mode in ("incremental", "rebuild", "create"):
        root = ctx.path(mode, "repo")
        _tree(ctx, root, 1)
        roots[mode] = root
    env_rebuild = {"LOUPE_SYNC_REBUILD_MIN_FILES": "10", "LOUPE_SYNC_REBUILD_PERCENT": "20"}
    env_incr = {"LOUPE_SYNC_REBUILD_PERCENT": "0"}
    ctx.ok("index", roots["incremental"])
    ctx.ok("index", roots["rebuild"])
    for mode in ("incremental", "rebuild", "create"):
        shutil.rmtree(os.path.join(roots[mode], "pkg"))
        _tree(ctx, roots[mode], 2)
    a = ctx.ok("sync", roots["incremental"], "--json", env=env_incr).json()
    b = ctx.ok("sync", roots["rebuild"], "--json", env=env_rebuild).json()
    c = ctx.ok("index", roots["create"], "--json").json()
    assert not a["rebuilt"] and b["rebuilt"], (a, b)
    for k in ("added", "changed", "deleted", "unchanged", "total"):
        assert a["files"][k] == b["files"][k], (k, a["files"], b["files"])
    assert a["symbols"] == b["symbols"] == c["symbols"] and a["chunks"] == b["chunks"] == c["chunks"]
    ans = {m: _answers(ctx, roots[m]) for m in roots}
    for key in ans["create"]:
        got = {m: ans[m][key] for m in ans}
        assert got["incremental"] == got["rebuild"] == got["create"], (key, got)
    for mode in roots:
        assert reliab.integrity(ctx, roots[mode]) == "ok"
    # the full check (integrity_check and FTS5's own): no row of a dead blob left behind
    doc = ctx.run("doctor")
    assert "damaged" not in doc.out, doc.out
    # and the next sync after a rebuild is incremental and finds nothing
    j = ctx.ok("sync", roots["rebuild"], "--json", env=env_rebuild).json()
    assert not j["published"] and not j["rebuilt"], j
