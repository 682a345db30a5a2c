/*
 * callgraph.c: call_graph (callers / callees of one symbol, bounded BFS over proved CALLS
 * edges, with the evidence that is not an edge: ambiguous and unresolved references) and
 * trace_path (one shortest directed path between two endpoints over chosen edge kinds).
 *
 * Nothing here turns a missing edge into a claim: the evidence summary says how many call
 * sites stayed unresolved or ambiguous, and the capabilities block says what the languages
 * involved cannot see.
 */
#include "graph/graph_int.h"

#include <stdarg.h>

typedef struct node {
    int64_t fid;
    int32_t ord;
    int depth;
    int side; /* 0 root, 1 callee side, 2 caller side */
    int32_t parent; /* trace_path: BFS parent index */
    int pkind, prule;
    int32_t pref; /* ref ord of the edge from the parent (its source's file) */
    int64_t pref_fid;
} node;

typedef struct nodeset {
    LP_VEC(node) items;
    lp_map index;
    lp_arena arena;
} nodeset;

static int32_t ns_find(nodeset *ns, int64_t fid, int32_t ord)
{
    char key[48];
    int kl = snprintf(key, sizeof key, "%lld:%d", (long long)fid, ord);
    uint32_t *p = lp_map_get(&ns->index, key, (size_t)kl);
    return p ? (int32_t)*p : -1;
}

static int32_t ns_add(nodeset *ns, node n)
{
    char key[48];
    int kl = snprintf(key, sizeof key, "%lld:%d", (long long)n.fid, n.ord);
    bool created = false;
    uint32_t *p = lp_map_put(&ns->index, &ns->arena, key, (size_t)kl, &created);
    if (created) {
        *p = (uint32_t)ns->items.len;
        lp_vec_push(&ns->items, n);
    }
    return (int32_t)*p;
}

static void ns_free(nodeset *ns)
{
    lp_vec_free(&ns->items);
    lp_map_free(&ns->index);
    lp_arena_release(&ns->arena);
}

static bool cancelled(const lp_graph_call *c) { return lp_graph_call_cancelled(c); }

bool lp_graph_call_cancelled(const lp_graph_call *call)
{
    return (call->cancel && *call->cancel) ||
           (call->is_cancelled && call->is_cancelled(call->cancel_ctx));
}

/* A call site: the reference (file fid, ord) of the file at path. Strings in arena. */
static void site_at(lp_store *st, int64_t fid, int32_t ref_ord, const char *path,
                    lp_arena *arena, lp_graph_site *out)
{
    sqlite3_stmt *s;
    memset(out, 0, sizeof *out);
    if (ref_ord < 0 ||
        lp_store_prepare(st,
                         "SELECT r.start_line, r.end_line, r.args, r.name, r.qual FROM files f"
                         " JOIN refs r ON r.bid = f.bid WHERE f.fid = ?1 AND r.ord = ?2",
                         &s, NULL))
        return;
    sqlite3_bind_int64(s, 1, fid);
    sqlite3_bind_int(s, 2, ref_ord);
    if (sqlite3_step(s) == SQLITE_ROW) {
        const char *qual = (const char *)sqlite3_column_text(s, 4);
        const char *name = (const char *)sqlite3_column_text(s, 3);
        const char *args = (const char *)sqlite3_column_text(s, 2);
        lp_buf text;
        lp_buf_init(&text, 300); /* a longer name is cut where a character ends */
        lp_buf_printf(&text, "%s%s%s", qual && *qual ? qual : "", qual && *qual ? "." : "",
                      name ? name : "");
        out->present = true;
        out->file = lp_arena_strdup(arena, path ? path : "");
        out->start_line = (uint32_t)sqlite3_column_int(s, 0);
        out->end_line = (uint32_t)sqlite3_column_int(s, 1);
        out->args = args ? lp_arena_strdup(arena, args) : NULL;
        out->callee = lp_arena_strndup(arena, text.ptr, text.len);
        lp_buf_release(&text);
    }
    sqlite3_reset(s);
}

static json_t *site_json(const lp_graph_site *site)
{
    if (!site->present)
        return json_null();
    return lp_gq_with_file(lp_json_pack("{s:i, s:i, s:o, s:o}", "startLine", (int)site->start_line,
                                     "endLine", (int)site->end_line, "args",
                                     lp_gq_json_str(site->args), "callee",
                                     lp_gq_json_str(site->callee)),
                        "file", site->file);
}

static const char *strategy(lp_lang l, int rule, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s.%s", lp_lang_name(l), lp_gr_rule_name((gr_rule)rule));
    return buf;
}

/* A copy of n items of size sz in arena (NULL when n is 0). */
static const void *arena_copy(lp_arena *a, const void *items, size_t n, size_t sz)
{
    if (!n)
        return NULL;
    void *p = lp_arena_alloc(a, n * sz);
    memcpy(p, items, n * sz);
    return p;
}
#define ARENA_VEC(a, v) arena_copy((a), (v).items, (v).len, sizeof *(v).items)

/* ------------------------------------------------------------------------------------------
 * call_graph. */

typedef struct cg {
    const lp_graph_call *call;
    lp_store *st;
    lp_arena *arena; /* the result's */
    nodeset ns;
    LP_VEC(lp_graph_cg_node) nodes;
    LP_VEC(lp_graph_cg_edge) edges;
    LP_VEC(lp_graph_warning) warnings;
    size_t max_nodes, max_edges, nedges;
    bool cut_nodes, cut_edges, cut_depth;
    uint32_t langs;
    lp_map edge_seen; /* "sfid:sord:ref:dfid:dord" of edges already listed */
    lp_map sym_index; /* "fid:ord" -> index in syms (symbols read once) */
    LP_VEC(gq_sym) syms;
} cg;

/* lp_gq_symbol_at through the call's cache. */
static lp_status cg_sym(cg *g, int64_t fid, int32_t ord, gq_sym *out, lp_error *err)
{
    char key[48];
    int kl = snprintf(key, sizeof key, "%lld:%d", (long long)fid, ord);
    uint32_t *p = lp_map_get(&g->sym_index, key, (size_t)kl);
    if (p) {
        *out = g->syms.items[*p];
        return LP_OK;
    }
    lp_status rc = lp_gq_symbol_at(g->st, fid, ord, g->arena, out, err);
    if (rc)
        return rc;
    *lp_map_put(&g->sym_index, g->arena, key, (size_t)kl, NULL) = (uint32_t)g->syms.len;
    lp_vec_push(&g->syms, *out);
    return LP_OK;
}

static lp_status add_node(cg *g, int32_t idx, lp_error *err)
{
    const node *n = &g->ns.items.items[idx];
    lp_graph_cg_node out = {.depth = n->depth, .side = n->side};
    if (cg_sym(g, n->fid, n->ord, &out.sym, err))
        return err->code;
    g->langs |= 1u << out.sym.lang;
    lp_vec_push(&g->nodes, out);
    return LP_OK;
}

static const char *id_of(cg *g, int64_t fid, int32_t ord)
{
    gq_sym s;
    if (cg_sym(g, fid, ord, &s, NULL))
        return "";
    if (ord < 0)
        return lp_arena_printf(g->arena, "file:%s", s.path);
    return lp_arena_strdup(g->arena, s.id);
}

static void cg_warn(cg *g, lp_warn code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void cg_warn(cg *g, lp_warn code, const char *fmt, ...)
{
    lp_buf msg;
    lp_buf_init(&msg, 512); /* a longer message is cut where a character ends */
    va_list ap;
    va_start(ap, fmt);
    lp_buf_vprintf(&msg, fmt, ap);
    va_end(ap);
    lp_graph_warning w = {code, lp_arena_strndup(g->arena, msg.ptr, msg.len)};
    lp_vec_push(&g->warnings, w);
    lp_buf_release(&msg);
}

static lp_status expand(cg *g, int32_t from, bool callers, int max_depth, lp_error *err)
{
    node cur = g->ns.items.items[from];
    if (cur.depth >= max_depth) {
        return LP_OK;
    }
    sqlite3_stmt *s;
    lp_status rc = callers
                       ? lp_store_prepare(g->st,
                                          "SELECT src_fid, src_ord, ref_ord, rule FROM edges"
                                          " WHERE dst_fid = ?1 AND dst_ord = ?2 AND kind = 0"
                                          " AND rule <> 0 ORDER BY src_fid, src_ord, ref_ord",
                                          &s, err)
                       : lp_store_prepare(g->st,
                                          "SELECT dst_fid, dst_ord, ref_ord, rule FROM edges"
                                          " WHERE src_fid = ?1 AND src_ord = ?2 AND kind = 0"
                                          " AND rule <> 0 ORDER BY ref_ord, dst_fid, dst_ord",
                                          &s, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, cur.fid);
    sqlite3_bind_int(s, 2, cur.ord);
    LP_VEC(node) found = {0};
    while (sqlite3_step(s) == SQLITE_ROW) {
        node n = {sqlite3_column_int64(s, 0), sqlite3_column_int(s, 1), cur.depth + 1,
                  callers ? 2 : 1, from, 0, sqlite3_column_int(s, 3), sqlite3_column_int(s, 2),
                  callers ? sqlite3_column_int64(s, 0) : cur.fid};
        lp_vec_push(&found, n);
    }
    sqlite3_reset(s);
    for (size_t i = 0; i < found.len && !rc; i++) {
        node n = found.items[i];
        int32_t idx = ns_find(&g->ns, n.fid, n.ord);
        if (idx < 0) {
            if (g->ns.items.len >= g->max_nodes) {
                g->cut_nodes = true;
                continue;
            }
            idx = ns_add(&g->ns, n);
            if ((rc = add_node(g, idx, err)))
                break;
        }
        int64_t sfid = callers ? n.fid : cur.fid;
        int32_t sord = callers ? n.ord : cur.ord;
        char ekey[96];
        int ekl = snprintf(ekey, sizeof ekey, "%lld:%d:%d:%lld:%d", (long long)sfid, sord, n.pref,
                           (long long)(callers ? cur.fid : n.fid), callers ? cur.ord : n.ord);
        if (lp_map_get(&g->edge_seen, ekey, (size_t)ekl))
            continue;
        if (g->nedges >= g->max_edges) {
            g->cut_edges = true;
            continue;
        }
        lp_map_put(&g->edge_seen, &g->ns.arena, ekey, (size_t)ekl, NULL);
        char strat[96];
        gq_sym src;
        if (cg_sym(g, sfid, sord, &src, err)) {
            rc = err->code;
            break;
        }
        lp_graph_cg_edge e = {0};
        e.from = id_of(g, sfid, sord);
        e.to = callers ? id_of(g, cur.fid, cur.ord) : id_of(g, n.fid, n.ord);
        e.strategy = lp_arena_strdup(g->arena, strategy(src.lang, n.prule, strat, sizeof strat));
        site_at(g->st, sfid, n.pref, src.path, g->arena, &e.site);
        lp_vec_push(&g->edges, e);
        g->nedges++;
    }
    lp_vec_free(&found);
    return rc;
}

/* The evidence that is not an edge, for the root's own call sites: the notes written with
 * the edges (notes table, GE_NOTE_*), so nothing is resolved again here. */
static lp_status callee_evidence(cg *g, const gq_sym *root, lp_graph_cg_result *out,
                                 lp_error *err)
{
    sqlite3_stmt *s;
    size_t proved = 0, amb = 0, unres = 0;
    lp_status rc = lp_store_prepare(g->st,
                                    "SELECT count(DISTINCT ref_ord) FROM edges WHERE src_fid = ?1"
                                    " AND src_ord = ?2 AND kind = 0 AND rule <> 0",
                                    &s, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, root->fid);
    sqlite3_bind_int(s, 2, root->ord);
    if (sqlite3_step(s) == SQLITE_ROW)
        proved = (size_t)sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    typedef struct note {
        int kind;
        int32_t ref, value, rule;
        uint32_t start_line, end_line;
        const char *text;
    } note;
    LP_VEC(note) notes = {0};
    if ((rc = lp_store_prepare(g->st,
                               "SELECT e.kind, e.ref_ord, e.value, e.value, r.name, r.qual,"
                               " r.start_line, r.end_line FROM notes e JOIN files f ON"
                               " f.fid = e.src_fid JOIN refs r ON r.bid = f.bid AND r.ord = e.ref_ord"
                               " WHERE e.src_fid = ?1 AND e.src_ord = ?2 ORDER BY e.ref_ord",
                               &s, err)))
        return rc;
    sqlite3_bind_int64(s, 1, root->fid);
    sqlite3_bind_int(s, 2, root->ord);
    while (sqlite3_step(s) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(s, 4);
        const char *qual = (const char *)sqlite3_column_text(s, 5);
        lp_buf text;
        lp_buf_init(&text, 300); /* a longer name is cut where a character ends */
        lp_buf_printf(&text, "%s%s%s", qual && *qual ? qual : "", qual && *qual ? "." : "",
                      name ? name : "");
        note n = {sqlite3_column_int(s, 0), sqlite3_column_int(s, 1), sqlite3_column_int(s, 2),
                  sqlite3_column_int(s, 3), (uint32_t)sqlite3_column_int(s, 6),
                  (uint32_t)sqlite3_column_int(s, 7), lp_arena_strdup(g->arena, text.ptr)};
        lp_buf_release(&text);
        lp_vec_push(&notes, n);
    }
    sqlite3_reset(s);
    LP_VEC(lp_graph_cg_open) unresolved = {0}, ambiguous = {0};
    LP_VEC(lp_graph_count) by_reason = {0};
    for (size_t i = 0; i < notes.len && !rc; i++) {
        const note *n = &notes.items[i];
        if (n->kind == GE_NOTE_UNRESOLVED) {
            unres++;
            gr_reason reason = (gr_reason)n->rule;
            const char *rn = lp_gr_reason_name(reason);
            size_t k = 0;
            while (k < by_reason.len && strcmp(by_reason.items[k].name, rn))
                k++;
            if (k == by_reason.len)
                lp_vec_push(&by_reason, ((lp_graph_count){rn, 0}));
            by_reason.items[k].count++;
            if (unresolved.len < 50) {
                lp_graph_cg_open u = {.callee = n->text,
                                      .file = root->path,
                                      .start_line = n->start_line,
                                      .end_line = n->end_line,
                                      .reason = rn,
                                      .explanation = lp_gr_reason_text(reason)};
                lp_vec_push(&unresolved, u);
            }
            continue;
        }
        amb++;
        if (ambiguous.len >= 50)
            continue;
        if ((rc = lp_store_prepare(g->st,
                                   "SELECT dst_fid, dst_ord FROM edges WHERE src_fid = ?1 AND"
                                   " ref_ord = ?2 AND kind = 0 AND rule = 0 ORDER BY dst_fid, dst_ord",
                                   &s, err)))
            break;
        sqlite3_bind_int64(s, 1, root->fid);
        sqlite3_bind_int(s, 2, n->ref);
        typedef struct fo {
            int64_t fid;
            int32_t ord;
        } fo;
        LP_VEC(fo) found = {0};
        while (sqlite3_step(s) == SQLITE_ROW)
            lp_vec_push(&found, ((fo){sqlite3_column_int64(s, 0), sqlite3_column_int(s, 1)}));
        sqlite3_reset(s);
        LP_VEC(lp_graph_sym) cands = {0};
        for (size_t k = 0; k < found.len; k++) {
            gq_sym c;
            if (!cg_sym(g, found.items[k].fid, found.items[k].ord, &c, NULL))
                lp_vec_push(&cands, c);
        }
        lp_vec_free(&found);
        lp_graph_cg_open a = {.callee = n->text,
                              .file = root->path,
                              .start_line = n->start_line,
                              .end_line = n->end_line,
                              .candidate_count = (int)n->value,
                              .candidates = ARENA_VEC(g->arena, cands),
                              .ncandidates = cands.len};
        lp_vec_free(&cands);
        lp_vec_push(&ambiguous, a);
    }
    lp_vec_free(&notes);
    out->has_callees = true;
    out->proved_calls = proved;
    out->ambiguous = amb;
    out->unresolved = unres;
    out->unresolved_by_reason = ARENA_VEC(g->arena, by_reason);
    out->nreasons = by_reason.len;
    out->unresolved_callees = ARENA_VEC(g->arena, unresolved);
    out->nunresolved_callees = unresolved.len;
    out->ambiguous_callees = ARENA_VEC(g->arena, ambiguous);
    out->nambiguous_callees = ambiguous.len;
    lp_vec_free(&by_reason);
    lp_vec_free(&unresolved);
    lp_vec_free(&ambiguous);
    return rc;
}

/* Call sites elsewhere that may call the root but prove nothing: ambiguous references
 * listing it as a candidate, and unresolved references with its name. */
static lp_status caller_evidence(cg *g, const gq_sym *root, lp_graph_cg_result *out,
                                 lp_error *err)
{
    sqlite3_stmt *s;
    size_t proved = 0;
    lp_status rc = lp_store_prepare(g->st,
                                    "SELECT count(*) FROM edges WHERE dst_fid = ?1 AND dst_ord = ?2"
                                    " AND kind = 0 AND rule <> 0",
                                    &s, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, root->fid);
    sqlite3_bind_int(s, 2, root->ord);
    if (sqlite3_step(s) == SQLITE_ROW)
        proved = (size_t)sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    size_t namb = 0;
    if ((rc = lp_store_prepare(g->st,
                               "SELECT e.src_fid, e.src_ord, e.ref_ord, f.path FROM edges e JOIN"
                               " files f ON f.fid = e.src_fid WHERE e.dst_fid = ?1 AND e.dst_ord = ?2"
                               " AND e.kind = 0 AND e.rule = 0 ORDER BY f.path, e.ref_ord",
                               &s, err)))
        return rc;
    sqlite3_bind_int64(s, 1, root->fid);
    sqlite3_bind_int(s, 2, root->ord);
    typedef struct site {
        int64_t fid;
        int32_t ref;
        const char *path;
    } site;
    LP_VEC(site) sites = {0};
    while (sqlite3_step(s) == SQLITE_ROW) {
        namb++;
        if (sites.len < 50)
            lp_vec_push(&sites, ((site){sqlite3_column_int64(s, 0), sqlite3_column_int(s, 2),
                                        lp_arena_strdup(g->arena,
                                                        (const char *)sqlite3_column_text(s, 3))}));
    }
    sqlite3_reset(s);
    /* A site whose reference row is gone stays in the list as a null call site. */
    lp_graph_site *amb = lp_arena_zalloc(g->arena, (sites.len ? sites.len : 1) * sizeof *amb);
    for (size_t i = 0; i < sites.len; i++)
        site_at(g->st, sites.items[i].fid, sites.items[i].ref, sites.items[i].path, g->arena,
                &amb[i]);
    out->ambiguous_callers = amb;
    out->nambiguous_callers = sites.len;
    lp_vec_free(&sites);
    /* unresolved same-name call sites: references with the name and no edge at all; a
     * common name (String, Len) has thousands, so the count stops at SAME_NAME_CAP (and
     * says so) and the sample is the first 20 by path of what was read */
    enum { SAME_NAME_CAP = 200 };
    typedef struct psite {
        const char *path, *qual;
        int32_t ord, line;
    } psite;
    LP_VEC(psite) ps = {0};
    if ((rc = lp_store_prepare(g->st,
                               "SELECT f.path, r.ord, r.start_line, r.qual FROM refs r JOIN"
                               " files f ON f.bid = r.bid WHERE r.name = ?1 AND r.kind IN (0, 1)"
                               " AND NOT EXISTS (SELECT 1 FROM edges e WHERE e.src_fid = f.fid AND"
                               " e.ref_ord = r.ord AND e.kind = 0) LIMIT ?2",
                               &s, err)))
        return rc;
    sqlite3_bind_text(s, 1, root->name, -1, SQLITE_STATIC);
    sqlite3_bind_int(s, 2, SAME_NAME_CAP + 1);
    while (sqlite3_step(s) == SQLITE_ROW)
        lp_vec_push(&ps, ((psite){lp_arena_strdup(g->arena, (const char *)sqlite3_column_text(s, 0)),
                                  lp_arena_strdup(g->arena, (const char *)sqlite3_column_text(s, 3)),
                                  sqlite3_column_int(s, 1), sqlite3_column_int(s, 2)}));
    sqlite3_reset(s);
    bool capped = ps.len > SAME_NAME_CAP;
    size_t npossible = capped ? SAME_NAME_CAP : ps.len;
    for (size_t i = 1; i < npossible; i++) /* insertion sort by (path, ord): at most 200 */
        for (size_t j = i; j > 0; j--) {
            psite *x = &ps.items[j - 1], *y = &ps.items[j];
            int c = strcmp(x->path, y->path);
            if (c < 0 || (c == 0 && x->ord <= y->ord))
                break;
            psite t = *x;
            *x = *y;
            *y = t;
        }
    size_t nshow = LP_MIN(npossible, (size_t)20);
    lp_graph_cg_possible *possible = lp_arena_zalloc(g->arena, (nshow ? nshow : 1) * sizeof *possible);
    for (size_t i = 0; i < nshow; i++) {
        const psite *p = &ps.items[i];
        lp_buf text;
        lp_buf_init(&text, 300); /* a longer name is cut where a character ends */
        lp_buf_printf(&text, "%s%s%s", p->qual && *p->qual ? p->qual : "",
                      p->qual && *p->qual ? "." : "", root->name);
        possible[i] = (lp_graph_cg_possible){lp_arena_strndup(g->arena, text.ptr, text.len),
                                             p->path, (uint32_t)p->line};
        lp_buf_release(&text);
    }
    lp_vec_free(&ps);
    out->has_callers = true;
    out->proved_callers = proved;
    out->ambiguous_call_sites = namb;
    out->unresolved_same_name = npossible;
    out->unresolved_same_name_capped = capped;
    out->possible_callers = possible;
    out->npossible_callers = nshow;
    return LP_OK;
}

static void tests_of(cg *g, const gq_sym *root, lp_graph_cg_result *out)
{
    sqlite3_stmt *s;
    if (lp_store_prepare(g->st,
                         "SELECT DISTINCT src_fid, src_ord, rule FROM edges WHERE dst_fid = ?1 AND"
                         " dst_ord = ?2 AND kind = 3 AND rule <> 0 ORDER BY src_fid, src_ord, rule",
                         &s, NULL))
        return;
    sqlite3_bind_int64(s, 1, root->fid);
    sqlite3_bind_int(s, 2, root->ord);
    LP_VEC(node) found = {0};
    while (sqlite3_step(s) == SQLITE_ROW && found.len < 100) {
        node n = {sqlite3_column_int64(s, 0), sqlite3_column_int(s, 1), 0, 0, -1, 0,
                  sqlite3_column_int(s, 2), -1, 0};
        lp_vec_push(&found, n);
    }
    sqlite3_reset(s);
    /* one entry per test symbol, with the rules that proved each of its edges */
    lp_graph_cg_test *tests = lp_arena_zalloc(g->arena, (found.len ? found.len : 1) * sizeof *tests);
    const char **ev = lp_arena_zalloc(g->arena, (found.len ? found.len : 1) * sizeof *ev);
    size_t nt = 0;
    bool last = false;
    for (size_t i = 0; i < found.len; i++) {
        const node *n = &found.items[i];
        ev[i] = lp_gr_rule_name((gr_rule)n->prule);
        if (last && i > 0 && found.items[i - 1].fid == n->fid && found.items[i - 1].ord == n->ord) {
            tests[nt - 1].nevidence++;
            continue;
        }
        gq_sym t;
        if (lp_gq_symbol_at(g->st, n->fid, n->ord, g->arena, &t, NULL)) {
            last = false;
            continue;
        }
        tests[nt++] = (lp_graph_cg_test){t, &ev[i], 1};
        last = true;
    }
    lp_vec_free(&found);
    out->tests = tests;
    out->ntests = nt;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

const char *lp_graph_direction_name(lp_graph_direction d)
{
    return d == LP_GRAPH_CALLERS ? "callers" : d == LP_GRAPH_CALLEES ? "callees" : "both";
}

lp_status lp_graph_call_graph_run(const lp_graph_call *call, const lp_graph_cg_req *req,
                                  lp_arena *arena, lp_graph_cg_result *out, lp_error *err)
{
    memset(out, 0, sizeof *out);
    const char *id = req->symbol_id;
    if (!id)
        return lp_error_set(err, LP_EINVAL, "call_graph needs symbolId (a sym:... id from search, "
                                            "file_outline or a previous call_graph)");
    if (req->direction < LP_GRAPH_CALLERS || req->direction > LP_GRAPH_BOTH)
        return lp_error_set(err, LP_EINVAL, "direction must be callers, callees or both");
    lp_graph_direction dir = (lp_graph_direction)req->direction;
    int depth = (int)clamp64(req->depth, 1, LP_GRAPH_CG_DEPTH_MAX);
    uint64_t t0 = lp_now_ns(), t_bfs = t0, t_callee = t0, t_caller = t0;
    cg g;
    memset(&g, 0, sizeof g);
    g.call = call;
    g.st = call->st;
    g.arena = arena;
    lp_arena_init(&g.ns.arena, 0);
    g.max_nodes = (size_t)clamp64(req->max_nodes, 1, LP_GRAPH_CG_NODES_MAX);
    g.max_edges = (size_t)clamp64(req->max_edges, 1, LP_GRAPH_CG_EDGES_MAX);
    gq_sym root;
    lp_status rc = lp_gq_symbol_by_id(call->st, id, arena, &root, err);
    if (rc)
        goto done;
    if (root.ord < 0) {
        rc = lp_error_set(err, LP_EINVAL, "call_graph needs a symbol id, not a file (%s)", id);
        goto done;
    }
    g.langs |= 1u << root.lang;
    node r0 = {root.fid, root.ord, 0, 0, -1, 0, 0, -1, 0};
    ns_add(&g.ns, r0);
    bool callees = dir != LP_GRAPH_CALLERS, callers = dir != LP_GRAPH_CALLEES;
    for (int side = 0; side < 2 && !rc; side++) {
        bool up = side == 1;
        if ((up && !callers) || (!up && !callees))
            continue;
        /* BFS over this side: nodes added during it are appended */
        size_t start = g.ns.items.len;
        for (size_t i = 0; i < g.ns.items.len && !rc; i++) {
            if (cancelled(call)) {
                rc = lp_error_set(err, LP_ECANCELED, "call_graph was cancelled");
                break;
            }
            node n = g.ns.items.items[i];
            if (i != 0 && (i < start || n.side != (up ? 2 : 1)))
                continue;
            if (n.depth >= depth) {
                g.cut_depth = true; /* refined below: only if it has more edges */
                continue;
            }
            rc = expand(&g, (int32_t)i, up, depth, err);
        }
    }
    if (rc)
        goto done;
    /* depth truncation only when a node at the last level has edges further out */
    bool more = false;
    for (size_t i = 0; i < g.ns.items.len && g.cut_depth && !more; i++) {
        node n = g.ns.items.items[i];
        if (n.depth < depth)
            continue;
        sqlite3_stmt *s;
        const char *sql = n.side == 2 ? "SELECT 1 FROM edges WHERE dst_fid = ?1 AND dst_ord = ?2"
                                        " AND kind = 0 AND rule <> 0 LIMIT 1"
                                      : "SELECT 1 FROM edges WHERE src_fid = ?1 AND src_ord = ?2"
                                        " AND kind = 0 AND rule <> 0 LIMIT 1";
        if (lp_store_prepare(call->st, sql, &s, NULL))
            break;
        sqlite3_bind_int64(s, 1, n.fid);
        sqlite3_bind_int(s, 2, n.ord);
        more = sqlite3_step(s) == SQLITE_ROW;
        sqlite3_reset(s);
    }
    g.cut_depth = more;
    t_bfs = lp_now_ns();
    if (callees && (rc = callee_evidence(&g, &root, out, err)))
        goto done;
    t_callee = lp_now_ns();
    if (callers && (rc = caller_evidence(&g, &root, out, err)))
        goto done;
    t_caller = lp_now_ns();
    tests_of(&g, &root, out);
    out->root = root;
    out->direction = dir;
    out->depth = depth;
    out->nodes = ARENA_VEC(arena, g.nodes);
    out->nnodes = g.nodes.len;
    out->edges = ARENA_VEC(arena, g.edges);
    out->nedges = g.edges.len;
    out->langs = g.langs;
    out->cut_nodes = g.cut_nodes;
    out->cut_edges = g.cut_edges;
    out->cut_depth = g.cut_depth;
    if (g.cut_nodes || g.cut_edges)
        cg_warn(&g, LP_WARN_GRAPH_TRUNCATED,
                "the graph was cut at %zu nodes / %zu edges; raise maxNodes / maxEdges or lower "
                "depth",
                g.max_nodes, g.max_edges);
    if (g.cut_depth)
        cg_warn(&g, LP_WARN_DEPTH_LIMIT, "more calls lie beyond depth %d; call again from a "
                                         "frontier node or raise depth (max %d)",
                depth, LP_GRAPH_CG_DEPTH_MAX);
    out->warnings = ARENA_VEC(arena, g.warnings);
    out->nwarnings = g.warnings.len;
done:
    lp_vec_free(&g.nodes);
    lp_vec_free(&g.edges);
    lp_vec_free(&g.warnings);
    lp_map_free(&g.edge_seen);
    lp_map_free(&g.sym_index);
    lp_vec_free(&g.syms);
    size_t g_nodes = g.ns.items.len, g_edges = g.nedges;
    ns_free(&g.ns);
    if (rc) {
        memset(out, 0, sizeof *out);
        return rc;
    }
    lp_log(LP_LOG_INFO, "graph.call_graph",
           "depth=%d nodes=%zu edges=%zu bfs_us=%llu callee_ev_us=%llu caller_ev_us=%llu us=%llu",
           depth, g_nodes, g_edges, (unsigned long long)((t_bfs - t0) / 1000),
           (unsigned long long)((t_callee - t_bfs) / 1000),
           (unsigned long long)((t_caller - t_callee) / 1000),
           (unsigned long long)((lp_now_ns() - t0) / 1000));
    return LP_OK;
}

static json_t *open_json(const lp_graph_cg_open *o, bool ambiguous)
{
    json_t *site = lp_gq_with_file(lp_json_pack("{s:i, s:i}", "startLine", (int)o->start_line,
                                             "endLine", (int)o->end_line),
                                "file", o->file);
    if (!ambiguous)
        return lp_json_pack("{s:o, s:o, s:s, s:s}", "callee", lp_gq_json_str(o->callee), "callSite",
                            site, "reason", o->reason, "explanation", o->explanation);
    json_t *cands = json_array();
    for (size_t k = 0; k < o->ncandidates; k++)
        json_array_append_new(cands, lp_gq_sym_json(&o->candidates[k]));
    return lp_json_pack("{s:o, s:o, s:i, s:o}", "callee", lp_gq_json_str(o->callee), "callSite",
                        site, "candidateCount", o->candidate_count, "candidates", cands);
}

json_t *lp_graph_call_graph_json(const lp_graph_cg_result *r)
{
    json_t *res = json_object();
    json_t *warnings = json_array();
    for (size_t i = 0; i < r->nwarnings; i++)
        json_array_append_new(warnings,
                              lp_json_pack("{s:o, s:o}", "code",
                                           lp_json_textz(lp_warn_code(r->warnings[i].code)),
                                           "message", lp_gq_json_str(r->warnings[i].message)));
    json_object_set_new(res, "warnings", warnings);
    json_t *summary = json_object();
    if (r->has_callees) {
        json_t *un = json_array(), *amb = json_array(), *by = json_object();
        for (size_t i = 0; i < r->nunresolved_callees; i++)
            json_array_append_new(un, open_json(&r->unresolved_callees[i], false));
        for (size_t i = 0; i < r->nambiguous_callees; i++)
            json_array_append_new(amb, open_json(&r->ambiguous_callees[i], true));
        for (size_t i = 0; i < r->nreasons; i++)
            json_object_set_new(by, r->unresolved_by_reason[i].name,
                                json_integer((json_int_t)r->unresolved_by_reason[i].count));
        json_object_set_new(summary, "callees",
                            lp_json_pack("{s:i, s:i, s:i, s:o}", "provedCalls", (int)r->proved_calls,
                                         "ambiguous", (int)r->ambiguous, "unresolved",
                                         (int)r->unresolved, "unresolvedByReason", by));
        json_object_set_new(res, "unresolvedCallees", un);
        json_object_set_new(res, "ambiguousCallees", amb);
    }
    if (r->has_callers) {
        json_t *amb = json_array(), *possible = json_array();
        for (size_t i = 0; i < r->nambiguous_callers; i++)
            json_array_append_new(amb, lp_json_pack("{s:o}", "callSite",
                                                    site_json(&r->ambiguous_callers[i])));
        for (size_t i = 0; i < r->npossible_callers; i++) {
            const lp_graph_cg_possible *p = &r->possible_callers[i];
            json_array_append_new(possible,
                                  lp_gq_with_file(lp_json_pack("{s:o, s:i}", "callee",
                                                            lp_gq_json_str(p->callee), "startLine",
                                                            (int)p->start_line),
                                               "file", p->file));
        }
        json_object_set_new(summary, "callers",
                            lp_json_pack("{s:i, s:i, s:i, s:b}", "provedCallers",
                                         (int)r->proved_callers, "ambiguousCallSites",
                                         (int)r->ambiguous_call_sites, "unresolvedSameName",
                                         (int)r->unresolved_same_name, "unresolvedSameNameCapped",
                                         r->unresolved_same_name_capped));
        json_object_set_new(res, "ambiguousCallers", amb);
        json_object_set_new(res, "possibleCallers", possible);
    }
    json_object_set_new(summary, "returnedEdges", json_integer((json_int_t)r->nedges));
    json_object_set_new(summary, "note",
                        json_string("edges are proved calls; unresolved and ambiguous call sites "
                                    "are evidence, not edges; an absent edge does not prove that "
                                    "no call exists (see capabilities)"));
    json_t *nodes = json_array(), *edges = json_array(), *tests = json_array();
    for (size_t i = 0; i < r->nnodes; i++) {
        const lp_graph_cg_node *n = &r->nodes[i];
        json_t *o = lp_gq_sym_json(&n->sym);
        json_object_set_new(o, "depth", json_integer(n->depth));
        json_object_set_new(o, "side", lp_json_textz(n->side == 0   ? "root"
                                                     : n->side == 1 ? "callee"
                                                                    : "caller"));
        json_array_append_new(nodes, o);
    }
    for (size_t i = 0; i < r->nedges; i++) {
        const lp_graph_cg_edge *e = &r->edges[i];
        json_t *o = json_object();
        json_object_set_new(o, "from", lp_json_textz(e->from));
        json_object_set_new(o, "to", lp_json_textz(e->to));
        json_object_set_new(o, "kind", json_string("calls"));
        json_object_set_new(o, "strategy", lp_json_textz(e->strategy));
        json_object_set_new(o, "callSite", site_json(&e->site));
        json_array_append_new(edges, o);
    }
    for (size_t i = 0; i < r->ntests; i++) {
        json_t *o = lp_gq_sym_json(&r->tests[i].sym);
        json_t *ev = json_array();
        for (size_t k = 0; k < r->tests[i].nevidence; k++)
            json_array_append_new(ev, lp_json_textz(r->tests[i].evidence[k]));
        json_object_set_new(o, "evidence", ev);
        json_array_append_new(tests, o);
    }
    json_object_set_new(res, "root", lp_gq_sym_json(&r->root));
    json_object_set_new(res, "direction", lp_json_textz(lp_graph_direction_name(r->direction)));
    json_object_set_new(res, "depth", json_integer(r->depth));
    json_object_set_new(res, "nodes", nodes);
    json_object_set_new(res, "edges", edges);
    json_object_set_new(res, "tests", tests);
    json_object_set_new(res, "evidenceSummary", summary);
    json_object_set_new(res, "capabilities", lp_gq_caps_for_langs(r->langs));
    json_object_set_new(res, "truncation",
                        lp_json_pack("{s:b, s:b, s:b}", "nodes", r->cut_nodes, "edges",
                                     r->cut_edges, "depth", r->cut_depth));
    return res;
}

/* ------------------------------------------------------------------------------------------
 * trace_path. */

lp_status lp_graph_trace_path_run(const lp_graph_call *call, const lp_graph_tp_req *req,
                                  lp_arena *arena_out, lp_graph_tp_result *out, lp_error *err)
{
    memset(out, 0, sizeof *out);
    const char *from_id = req->from_id, *to_id = req->to_id;
    if (!from_id || !to_id)
        return lp_error_set(err, LP_EINVAL,
                            "trace_path needs fromId and toId (sym:... ids, or file:<path>)");
    bool kinds[LP_EDGE_KIND_COUNT] = {false};
    uint32_t kind_bits = req->edge_kinds ? req->edge_kinds : 1u << LP_EDGE_CALLS;
    for (int k = 0; k < LP_EDGE_KIND_COUNT; k++)
        kinds[k] = (kind_bits >> k) & 1u;
    int max_depth = (int)clamp64(req->max_depth, 1, LP_GRAPH_TRACE_DEPTH_MAX);
    size_t max_nodes = (size_t)clamp64(req->max_nodes, 1, LP_GRAPH_TRACE_NODES_MAX);
    lp_arena *arena = arena_out;
    nodeset ns;
    memset(&ns, 0, sizeof ns);
    lp_arena_init(&ns.arena, 0);
    LP_VEC(lp_graph_sym) path = {0};
    LP_VEC(lp_graph_tp_edge) edges = {0};
    gq_sym from, to;
    lp_status rc = lp_gq_symbol_by_id(call->st, from_id, arena, &from, err);
    if (!rc)
        rc = lp_gq_symbol_by_id(call->st, to_id, arena, &to, err);
    if (rc)
        goto done;
    node r0 = {from.fid, from.ord, 0, 0, -1, 0, 0, -1, 0};
    ns_add(&ns, r0);
    int32_t hit = (from.fid == to.fid && from.ord == to.ord) ? 0 : -1;
    bool cut_nodes = false, cut_depth = false;
    char kinds_sql[64] = "";
    for (int k = 0, first = 1; k < LP_EDGE_CONTAINS; k++)
        if (kinds[k]) {
            size_t l = strlen(kinds_sql);
            snprintf(kinds_sql + l, sizeof kinds_sql - l, "%s%d", first ? "" : ",", k);
            first = 0;
        }
    for (size_t i = 0; i < ns.items.len && hit < 0 && !rc; i++) {
        if (cancelled(call)) {
            rc = lp_error_set(err, LP_ECANCELED, "trace_path was cancelled");
            break;
        }
        node cur = ns.items.items[i];
        if (cur.depth >= max_depth) {
            cut_depth = true;
            continue;
        }
        LP_VEC(node) next = {0};
        if (kinds_sql[0]) {
            static const char *const sqls[] = {
                "SELECT dst_fid, dst_ord, kind, rule, ref_ord FROM edges WHERE src_fid = ?1 AND"
                " src_ord = ?2 AND rule <> 0 ORDER BY kind, ref_ord, dst_fid, dst_ord"};
            sqlite3_stmt *s;
            if ((rc = lp_store_prepare(call->st, sqls[0], &s, err)))
                break;
            sqlite3_bind_int64(s, 1, cur.fid);
            sqlite3_bind_int(s, 2, cur.ord);
            while (sqlite3_step(s) == SQLITE_ROW) {
                int kind = sqlite3_column_int(s, 2);
                if (kind < 0 || kind >= LP_EDGE_KIND_COUNT || !kinds[kind])
                    continue;
                node n = {sqlite3_column_int64(s, 0), sqlite3_column_int(s, 1), cur.depth + 1, 1,
                          (int32_t)i, kind, sqlite3_column_int(s, 3), sqlite3_column_int(s, 4),
                          cur.fid};
                lp_vec_push(&next, n);
            }
            sqlite3_reset(s);
        }
        if (kinds[LP_EDGE_CONTAINS]) {
            sqlite3_stmt *s;
            if ((rc = lp_store_prepare(call->st,
                                       "SELECT s.ord FROM files f JOIN symbols s ON s.bid = f.bid"
                                       " WHERE f.fid = ?1 AND s.parent = ?2 ORDER BY s.ord",
                                       &s, err)))
                break;
            sqlite3_bind_int64(s, 1, cur.fid);
            sqlite3_bind_int(s, 2, cur.ord);
            while (sqlite3_step(s) == SQLITE_ROW) {
                node n = {cur.fid, sqlite3_column_int(s, 0), cur.depth + 1, 1, (int32_t)i,
                          LP_EDGE_CONTAINS, 0, -1, cur.fid};
                lp_vec_push(&next, n);
            }
            sqlite3_reset(s);
        }
        for (size_t k = 0; k < next.len && hit < 0; k++) {
            node n = next.items[k];
            if (ns_find(&ns, n.fid, n.ord) >= 0)
                continue;
            if (ns.items.len >= max_nodes) {
                cut_nodes = true;
                break;
            }
            int32_t idx = ns_add(&ns, n);
            if (n.fid == to.fid && n.ord == to.ord)
                hit = idx;
        }
        lp_vec_free(&next);
    }
    if (rc)
        goto done;
    if (hit >= 0) {
        int32_t chain[64];
        int nc = 0;
        for (int32_t k = hit; k >= 0 && nc < 64; k = ns.items.items[k].parent)
            chain[nc++] = k;
        for (int k = nc - 1; k >= 0; k--) {
            const node *n = &ns.items.items[chain[k]];
            gq_sym sy;
            if ((rc = lp_gq_symbol_at(call->st, n->fid, n->ord, arena, &sy, err)))
                break;
            lp_vec_push(&path, sy);
            if (n->parent < 0)
                continue;
            const node *p = &ns.items.items[n->parent];
            gq_sym ps;
            if ((rc = lp_gq_symbol_at(call->st, p->fid, p->ord, arena, &ps, err)))
                break;
            char strat[96];
            lp_graph_tp_edge e = {.from = lp_graph_sym_id(&ps, arena),
                                  .to = lp_graph_sym_id(&sy, arena),
                                  .kind = (lp_edge_kind)n->pkind};
            if (n->pkind != LP_EDGE_CONTAINS) {
                e.strategy = lp_arena_strdup(arena, strategy(ps.lang, n->prule, strat, sizeof strat));
                site_at(call->st, p->fid, n->pref, ps.path, arena, &e.site);
            }
            lp_vec_push(&edges, e);
        }
    }
    if (rc)
        goto done;
    out->from = from;
    out->to = to;
    out->found = hit >= 0;
    out->path = ARENA_VEC(arena, path);
    out->npath = path.len;
    out->edges = ARENA_VEC(arena, edges);
    out->nedges = edges.len;
    out->explored = ns.items.len;
    out->edge_kinds = kind_bits;
    out->langs = (1u << from.lang) | (1u << to.lang);
    out->cut_nodes = cut_nodes;
    out->cut_depth = cut_depth;
    if (hit < 0) {
        lp_graph_warning *w = lp_arena_zalloc(arena, sizeof *w);
        if (cut_nodes || cut_depth) {
            *w = (lp_graph_warning){LP_WARN_NO_PATH_WITHIN_BUDGET,
                                    lp_arena_printf(arena,
                                                    "no path found within %d steps / %zu nodes; "
                                                    "raise maxDepth or maxNodes",
                                                    max_depth, max_nodes)};
        } else {
            *w = (lp_graph_warning){LP_WARN_NO_PROVED_PATH,
                                    "no path over proved edges of the chosen kinds; unresolved or "
                                    "dynamic calls may still connect them (see capabilities)"};
        }
        out->warnings = w;
        out->nwarnings = 1;
    }
done:
    ns_free(&ns);
    lp_vec_free(&path);
    lp_vec_free(&edges);
    if (rc)
        memset(out, 0, sizeof *out);
    return rc;
}

static json_t *warnings_json(const lp_graph_warning *w, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, lp_json_pack("{s:o, s:o}", "code",
                                              lp_json_textz(lp_warn_code(w[i].code)), "message",
                                              lp_gq_json_str(w[i].message)));
    return a;
}

json_t *lp_graph_trace_path_json(const lp_graph_tp_result *r)
{
    json_t *res = json_object();
    json_object_set_new(res, "warnings", warnings_json(r->warnings, r->nwarnings));
    json_t *path = json_array(), *edges = json_array();
    for (size_t i = 0; i < r->npath; i++)
        json_array_append_new(path, lp_gq_sym_json(&r->path[i]));
    for (size_t i = 0; i < r->nedges; i++) {
        const lp_graph_tp_edge *e = &r->edges[i];
        json_t *o = json_object();
        json_object_set_new(o, "from", lp_gq_json_str(e->from));
        json_object_set_new(o, "to", lp_gq_json_str(e->to));
        json_object_set_new(o, "kind", lp_json_textz(lp_edge_kind_name(e->kind)));
        if (e->kind != LP_EDGE_CONTAINS) {
            json_object_set_new(o, "strategy", lp_json_textz(e->strategy));
            json_object_set_new(o, "callSite", site_json(&e->site));
        }
        json_array_append_new(edges, o);
    }
    json_object_set_new(res, "from", lp_gq_sym_json(&r->from));
    json_object_set_new(res, "to", lp_gq_sym_json(&r->to));
    json_object_set_new(res, "found", json_boolean(r->found));
    json_object_set_new(res, "path", path);
    json_object_set_new(res, "edges", edges);
    json_object_set_new(res, "length", json_integer(r->found ? (json_int_t)r->nedges : -1));
    json_object_set_new(res, "explored", json_integer((json_int_t)r->explored));
    json_object_set_new(res, "truncation",
                        lp_json_pack("{s:b, s:b}", "nodes", r->cut_nodes, "depth", r->cut_depth));
    json_t *used = json_array();
    for (int k = 0; k < LP_EDGE_KIND_COUNT; k++)
        if ((r->edge_kinds >> k) & 1u)
            json_array_append_new(used, lp_json_textz(lp_edge_kind_name((lp_edge_kind)k)));
    json_object_set_new(res, "edgeKinds", used);
    json_object_set_new(res, "capabilities", lp_gq_caps_for_langs(r->langs));
    return res;
}
