/*
 * arch.c: architecture_overview: packages (Java/Scala packages and C# namespaces from the
 * source, the directory elsewhere: a Go package, a Python package, a JS/TS/C/C++/Rust
 * folder), their file and symbol counts, the CALLS and IMPORTS edges that cross package
 * boundaries, fan-in and fan-out, and dependency cycles (strongly connected components of
 * the package graph). Optional subtree and scope (runtime / tests / all) filters apply
 * before both.
 */
#include "graph/graph_int.h"

#include <stdlib.h>

typedef struct pkg {
    const char *name;
    uint32_t files, symbols;
    uint32_t langs; /* bitmask */
    uint32_t fan_in, fan_out;
    /* Tarjan */
    int32_t index, low;
    bool on_stack;
    int32_t comp;
} pkg;

typedef struct dep {
    uint32_t from, to;
    uint64_t calls, imports;
} dep;

static int dep_cmp(const void *a, const void *b)
{
    const dep *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return (x->to > y->to) - (x->to < y->to);
}

typedef struct arch {
    LP_VEC(pkg) pkgs;
    lp_map by_name;
    LP_VEC(dep) deps;
    lp_arena arena;
} arch;

static uint32_t pkg_of(arch *a, const char *name)
{
    bool created = false;
    uint32_t *slot = lp_map_put(&a->by_name, &a->arena, name, strlen(name), &created);
    if (created) {
        *slot = (uint32_t)a->pkgs.len;
        pkg *p = lp_vec_push_zero(&a->pkgs);
        p->name = lp_arena_strdup(&a->arena, name);
        p->index = -1;
        p->comp = -1;
    }
    return *slot;
}

/* Tarjan's strongly connected components, iterative. deps sorted by from. */
static void tarjan(arch *a, size_t *first_dep)
{
    int32_t index = 0, ncomp = 0;
    LP_VEC(uint32_t) stack = {0};
    typedef struct frame {
        uint32_t v;
        size_t next;
    } frame;
    LP_VEC(frame) call = {0};
    for (uint32_t s = 0; s < a->pkgs.len; s++) {
        if (a->pkgs.items[s].index >= 0)
            continue;
        lp_vec_push(&call, ((frame){s, first_dep[s]}));
        a->pkgs.items[s].index = a->pkgs.items[s].low = index++;
        lp_vec_push(&stack, s);
        a->pkgs.items[s].on_stack = true;
        while (call.len) {
            frame *f = &call.items[call.len - 1];
            pkg *v = &a->pkgs.items[f->v];
            if (f->next < first_dep[f->v + 1]) {
                uint32_t w = a->deps.items[f->next++].to;
                pkg *pw = &a->pkgs.items[w];
                if (pw->index < 0) {
                    pw->index = pw->low = index++;
                    lp_vec_push(&stack, w);
                    pw->on_stack = true;
                    lp_vec_push(&call, ((frame){w, first_dep[w]}));
                } else if (pw->on_stack && pw->index < v->low) {
                    v->low = pw->index;
                }
                continue;
            }
            if (v->low == v->index) {
                uint32_t w;
                do {
                    w = stack.items[--stack.len];
                    a->pkgs.items[w].on_stack = false;
                    a->pkgs.items[w].comp = ncomp;
                } while (w != f->v);
                ncomp++;
            }
            uint32_t done_v = f->v;
            call.len--;
            if (call.len) {
                pkg *parent = &a->pkgs.items[call.items[call.len - 1].v];
                if (a->pkgs.items[done_v].low < parent->low)
                    parent->low = a->pkgs.items[done_v].low;
            }
        }
    }
    lp_vec_free(&stack);
    lp_vec_free(&call);
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

const char *lp_graph_scope_name(lp_graph_scope s)
{
    return s == LP_GRAPH_SCOPE_TESTS ? "tests" : s == LP_GRAPH_SCOPE_ALL ? "all" : "runtime";
}

lp_status lp_graph_architecture_run(const lp_graph_call *call, const lp_graph_arch_req *req,
                                    lp_arena *out_arena, lp_graph_arch_result *out, lp_error *err)
{
    memset(out, 0, sizeof *out);
    lp_store *st = call->st;
    const char *subtree = req->subtree;
    if (subtree) {
        lp_status prc = lp_gq_check_rel_arg("subtree", subtree, strlen(subtree), err);
        if (prc)
            return prc;
    }
    if (req->scope < LP_GRAPH_SCOPE_RUNTIME || req->scope > LP_GRAPH_SCOPE_ALL)
        return lp_error_set(err, LP_EINVAL, "scope must be runtime, tests or all");
    const char *scope = lp_graph_scope_name((lp_graph_scope)req->scope);
    size_t max_pkgs = (size_t)(req->max_packages < 1 ? 1
                               : req->max_packages > LP_GRAPH_ARCH_PACKAGES_MAX
                                   ? LP_GRAPH_ARCH_PACKAGES_MAX
                                   : req->max_packages);
    arch a;
    memset(&a, 0, sizeof a);
    lp_arena_init(&a.arena, 0);
    LP_VEC(lp_graph_warning) warns = {0};
    int64_t max_fid = 0;
    LP_VEC(int32_t) fid_pkg = {0};
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(
        st,
        "SELECT f.fid, f.path, b.lang, b.nsymbols, (SELECT s.qname FROM symbols s WHERE"
        " s.bid = f.bid AND s.parent = -1 AND s.kind IN (1, 2) ORDER BY s.ord LIMIT 1)"
        " FROM files f JOIN blobs b USING(bid) ORDER BY f.path",
        &s, err);
    if (rc)
        goto done;
    size_t nfiles = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        int64_t fid = sqlite3_column_int64(s, 0);
        const char *path = (const char *)sqlite3_column_text(s, 1);
        lp_lang lang = (lp_lang)sqlite3_column_int(s, 2);
        if (!lp_lang_has_graph(lang))
            continue;
        if (subtree && *subtree) {
            lp_str rel;
            if (!lp_path_under(lp_str_c(subtree), lp_str_c(path), &rel))
                continue;
        }
        bool test = lp_gv_is_test_path(path, lang);
        if ((!strcmp(scope, "runtime") && test) || (!strcmp(scope, "tests") && !test))
            continue;
        const char *ns = (const char *)sqlite3_column_text(s, 4);
        char name[LP_PATH_MAX + 8];
        bool by_ns = ns && *ns &&
                     gl_modsys(lang) == LP_MODSYS_PACKAGES;
        if (by_ns) {
            snprintf(name, sizeof name, "%s", ns);
        } else {
            lp_str dir = lp_path_dirname(lp_str_c(path));
            snprintf(name, sizeof name, "%.*s/", (int)dir.len, dir.len ? dir.ptr : ".");
            if (!dir.len)
                snprintf(name, sizeof name, "./");
        }
        uint32_t p = pkg_of(&a, name);
        a.pkgs.items[p].files++;
        a.pkgs.items[p].symbols += (uint32_t)sqlite3_column_int64(s, 3);
        a.pkgs.items[p].langs |= 1u << lang;
        if (fid > max_fid) {
            size_t old = fid_pkg.len;
            lp_vec_reserve(&fid_pkg, (size_t)fid + 1);
            for (size_t k = old; k <= (size_t)fid; k++)
                fid_pkg.items[k] = -1;
            fid_pkg.len = (size_t)fid + 1;
            max_fid = fid;
        } else if ((size_t)fid >= fid_pkg.len) {
            size_t old = fid_pkg.len;
            lp_vec_reserve(&fid_pkg, (size_t)fid + 1);
            for (size_t k = old; k <= (size_t)fid; k++)
                fid_pkg.items[k] = -1;
            fid_pkg.len = (size_t)fid + 1;
        }
        fid_pkg.items[fid] = (int32_t)p;
        nfiles++;
    }
    sqlite3_reset(s);
    /* cross-package edges */
    if ((rc = lp_store_prepare(st,
                               "SELECT src_fid, dst_fid, kind, count(*) FROM edges WHERE rule <> 0"
                               " AND kind IN (0, 1) GROUP BY src_fid, dst_fid, kind",
                               &s, err)))
        goto done;
    uint64_t internal = 0;
    LP_VEC(dep) raw = {0};
    while (sqlite3_step(s) == SQLITE_ROW) {
        int64_t sf = sqlite3_column_int64(s, 0), df = sqlite3_column_int64(s, 1);
        if (sf < 0 || df < 0 || (size_t)sf >= fid_pkg.len || (size_t)df >= fid_pkg.len)
            continue;
        int32_t ps = fid_pkg.items[sf], pd = fid_pkg.items[df];
        if (ps < 0 || pd < 0)
            continue;
        uint64_t n = (uint64_t)sqlite3_column_int64(s, 3);
        if (ps == pd) {
            internal += n;
            continue;
        }
        dep d = {(uint32_t)ps, (uint32_t)pd, 0, 0};
        if (sqlite3_column_int(s, 2) == LP_EDGE_CALLS)
            d.calls = n;
        else
            d.imports = n;
        lp_vec_push(&raw, d);
    }
    sqlite3_reset(s);
    if (raw.len > 1)
        qsort(raw.items, raw.len, sizeof raw.items[0], dep_cmp);
    for (size_t i = 0; i < raw.len; i++) {
        if (a.deps.len && a.deps.items[a.deps.len - 1].from == raw.items[i].from &&
            a.deps.items[a.deps.len - 1].to == raw.items[i].to) {
            a.deps.items[a.deps.len - 1].calls += raw.items[i].calls;
            a.deps.items[a.deps.len - 1].imports += raw.items[i].imports;
        } else {
            lp_vec_push(&a.deps, raw.items[i]);
        }
    }
    lp_vec_free(&raw);
    for (size_t i = 0; i < a.deps.len; i++) {
        a.pkgs.items[a.deps.items[i].from].fan_out++;
        a.pkgs.items[a.deps.items[i].to].fan_in++;
    }
    size_t *first = lp_xcalloc(a.pkgs.len + 1, sizeof(size_t));
    for (size_t i = 0, d = 0; i <= a.pkgs.len; i++) {
        while (d < a.deps.len && a.deps.items[d].from < i)
            d++;
        first[i] = d;
    }
    tarjan(&a, first);
    free(first);
    /* cycles: components with more than one package */
    LP_VEC(lp_graph_cycle) cycles = {0};
    for (int32_t c = 0;; c++) {
        LP_VEC(const char *) members = {0};
        bool any = false;
        for (size_t i = 0; i < a.pkgs.len; i++) {
            if (a.pkgs.items[i].comp == c)
                lp_vec_push(&members, a.pkgs.items[i].name);
            any |= a.pkgs.items[i].comp >= c;
        }
        if (!any) {
            lp_vec_free(&members);
            break;
        }
        if (members.len > 1) {
            qsort(members.items, members.len, sizeof(char *), name_cmp);
            const char **m = lp_arena_alloc(out_arena, members.len * sizeof *m);
            for (size_t i = 0; i < members.len; i++)
                m[i] = lp_arena_strdup(out_arena, members.items[i]);
            lp_vec_push(&cycles, ((lp_graph_cycle){m, members.len}));
        }
        lp_vec_free(&members);
    }
    /* packages by name */
    LP_VEC(uint32_t) order = {0};
    for (uint32_t i = 0; i < a.pkgs.len; i++)
        lp_vec_push(&order, i);
    for (size_t i = 1; i < order.len; i++) /* insertion sort: stable and small enough */
        for (size_t k = i; k > 0 && strcmp(a.pkgs.items[order.items[k - 1]].name,
                                           a.pkgs.items[order.items[k]].name) > 0; k--) {
            uint32_t t = order.items[k];
            order.items[k] = order.items[k - 1];
            order.items[k - 1] = t;
        }
    size_t npk = LP_MIN(order.len, max_pkgs), ndep = LP_MIN(a.deps.len, max_pkgs * 8);
    lp_graph_package *pkgs = lp_arena_zalloc(out_arena, (npk ? npk : 1) * sizeof *pkgs);
    for (size_t i = 0; i < npk; i++) {
        const pkg *p = &a.pkgs.items[order.items[i]];
        pkgs[i] = (lp_graph_package){lp_arena_strdup(out_arena, p->name), p->langs, p->files,
                                     p->symbols, p->fan_in, p->fan_out};
    }
    lp_graph_dependency *deps = lp_arena_zalloc(out_arena, (ndep ? ndep : 1) * sizeof *deps);
    for (size_t i = 0; i < ndep; i++) {
        const dep *d = &a.deps.items[i];
        deps[i] = (lp_graph_dependency){lp_arena_strdup(out_arena, a.pkgs.items[d->from].name),
                                        lp_arena_strdup(out_arena, a.pkgs.items[d->to].name),
                                        d->calls, d->imports};
    }
    bool cut = order.len > max_pkgs || a.deps.len > max_pkgs * 8;
    lp_vec_free(&order);
    lp_publication pub;
    if (!lp_store_current(st, &pub, NULL) && pub.partial)
        lp_vec_push(&warns,
                    ((lp_graph_warning){LP_WARN_INDEX_PARTIAL,
                                        "the publication reached its byte limit: packages past "
                                        "it are missing"}));
    if (cut)
        lp_vec_push(&warns, ((lp_graph_warning){
                                LP_WARN_PACKAGES_TRUNCATED,
                                lp_arena_printf(out_arena,
                                                "%zu packages shown of %zu; narrow with subtree "
                                                "or raise maxPackages",
                                                max_pkgs, a.pkgs.len)}));
    lp_vec_push(&warns,
                ((lp_graph_warning){LP_WARN_EVIDENCE,
                                    "dependencies count proved CALLS and IMPORTS edges only; "
                                    "calls the rules cannot resolve are not counted, so a "
                                    "missing dependency is not proof of independence"}));
    out->scope = (lp_graph_scope)req->scope;
    out->subtree = subtree ? lp_arena_strdup(out_arena, subtree) : NULL;
    out->packages = pkgs;
    out->npackages = npk;
    out->dependencies = deps;
    out->ndependencies = ndep;
    if (cycles.len) {
        lp_graph_cycle *cy = lp_arena_alloc(out_arena, cycles.len * sizeof *cy);
        memcpy(cy, cycles.items, cycles.len * sizeof *cy);
        out->cycles = cy;
    }
    out->ncycles = cycles.len;
    out->total_packages = a.pkgs.len;
    out->total_files = nfiles;
    out->total_dependencies = a.deps.len;
    out->internal_edges = internal;
    out->cut = cut;
    lp_graph_warning *w = lp_arena_alloc(out_arena, warns.len * sizeof *w);
    memcpy(w, warns.items, warns.len * sizeof *w);
    out->warnings = w;
    out->nwarnings = warns.len;
done:
    lp_vec_free(&cycles);
    lp_vec_free(&warns);
    lp_vec_free(&fid_pkg);
    lp_vec_free(&a.pkgs);
    lp_vec_free(&a.deps);
    lp_map_free(&a.by_name);
    lp_arena_release(&a.arena);
    if (rc)
        memset(out, 0, sizeof *out);
    return rc;
}

json_t *lp_graph_architecture_json(const lp_graph_arch_result *r)
{
    json_t *res = json_object();
    json_t *warnings = json_array();
    for (size_t i = 0; i < r->nwarnings; i++) {
        lp_buf msg;
        lp_buf_init(&msg, 512); /* as every graph warning: cut where a character ends */
        lp_buf_printf(&msg, "%s", r->warnings[i].message);
        json_array_append_new(warnings,
                              lp_json_pack("{s:o, s:o}", "code",
                                           lp_json_textz(lp_warn_code(r->warnings[i].code)),
                                           "message", lp_json_text(msg.ptr, msg.len)));
        lp_buf_release(&msg);
    }
    json_object_set_new(res, "warnings", warnings);
    json_t *pkgs = json_array(), *deps = json_array(), *cycles = json_array();
    for (size_t i = 0; i < r->npackages; i++) {
        const lp_graph_package *p = &r->packages[i];
        json_t *langs = json_array();
        for (int l = 0; l < LP_LANG_COUNT; l++)
            if (p->langs & (1u << l))
                json_array_append_new(langs, lp_json_textz(lp_lang_name((lp_lang)l)));
        json_array_append_new(pkgs, lp_json_pack("{s:o, s:o, s:i, s:i, s:i, s:i}", "name",
                                                 lp_gq_json_str(p->name), "languages", langs,
                                                 "files", (int)p->files, "symbols",
                                                 (int)p->symbols, "fanIn", (int)p->fan_in,
                                                 "fanOut", (int)p->fan_out));
    }
    for (size_t i = 0; i < r->ndependencies; i++) {
        const lp_graph_dependency *d = &r->dependencies[i];
        json_array_append_new(deps, lp_json_pack("{s:o, s:o, s:I, s:I}", "from",
                                                 lp_gq_json_str(d->from), "to", lp_gq_json_str(d->to),
                                                 "calls", (json_int_t)d->calls, "imports",
                                                 (json_int_t)d->imports));
    }
    for (size_t i = 0; i < r->ncycles; i++) {
        json_t *m = json_array();
        for (size_t k = 0; k < r->cycles[i].nmembers; k++)
            json_array_append_new(m, lp_gq_json_str(r->cycles[i].members[k]));
        json_array_append_new(cycles, m);
    }
    json_object_set_new(res, "scope", lp_json_textz(lp_graph_scope_name(r->scope)));
    json_object_set_new(res, "subtree", r->subtree ? lp_gq_json_str(r->subtree) : json_null());
    json_object_set_new(res, "packages", pkgs);
    json_object_set_new(res, "dependencies", deps);
    json_object_set_new(res, "cycles", cycles);
    json_object_set_new(res, "totals",
                        lp_json_pack("{s:i, s:i, s:i, s:I}", "packages", (int)r->total_packages,
                                     "files", (int)r->total_files, "crossPackageDependencies",
                                     (int)r->total_dependencies, "internalEdges",
                                     (json_int_t)r->internal_edges));
    json_object_set_new(res, "truncation", lp_json_pack("{s:b}", "packages", r->cut));
    return res;
}
