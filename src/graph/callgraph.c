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

/* A call site: the reference (file fid, ord). */
static json_t *call_site(lp_store *st, int64_t fid, int32_t ref_ord, const char *path,
                         const char **callee)
{
    sqlite3_stmt *s;
    json_t *o = json_null();
    if (callee)
        *callee = NULL;
    if (ref_ord < 0 ||
        lp_store_prepare(st,
                         "SELECT r.start_line, r.end_line, r.args, r.name, r.qual FROM files f"
                         " JOIN refs r ON r.bid = f.bid WHERE f.fid = ?1 AND r.ord = ?2",
                         &s, NULL))
        return o;
    sqlite3_bind_int64(s, 1, fid);
    sqlite3_bind_int(s, 2, ref_ord);
    if (sqlite3_step(s) == SQLITE_ROW) {
        const char *qual = (const char *)sqlite3_column_text(s, 4);
        const char *name = (const char *)sqlite3_column_text(s, 3);
        lp_buf text;
        lp_buf_init(&text, 300); /* a longer name is cut where a character ends */
        lp_buf_printf(&text, "%s%s%s", qual && *qual ? qual : "", qual && *qual ? "." : "",
                      name ? name : "");
        o = lp_gq_with_file(lp_json_pack("{s:i, s:i, s:o, s:o}", "startLine",
                                      sqlite3_column_int(s, 0), "endLine",
                                      sqlite3_column_int(s, 1), "args",
                                      lp_gq_json_str((const char *)sqlite3_column_text(s, 2)),
                                      "callee", lp_json_text(text.ptr, text.len)),
                         "file", path);
        lp_buf_release(&text);
    }
    sqlite3_reset(s);
    return o;
}

static const char *strategy(lp_lang l, int rule, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s.%s", lp_lang_name(l), lp_gr_rule_name((gr_rule)rule));
    return buf;
}

/* ------------------------------------------------------------------------------------------
 * call_graph. */

typedef struct cg {
    const lp_graph_call *call;
    lp_store *st;
    lp_arena *arena;
    nodeset ns;
    json_t *nodes, *edges;
    size_t max_nodes, max_edges, nedges;
    bool cut_nodes, cut_edges, cut_depth;
    uint32_t langs;
    lp_map edge_seen; /* "sfid:sord:ref:dfid:dord" of edges already listed */
    lp_map sym_index; /* "fid:ord" -> index in syms (symbols read once) */
    LP_VEC(gq_sym) syms;
} cg;

/* lp_gq_symbol_at through the call's cache. The pointer is valid until the next call. */
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

static json_t *node_json(cg *g, int32_t idx, lp_error *err)
{
    const node *n = &g->ns.items.items[idx];
    gq_sym s;
    if (cg_sym(g, n->fid, n->ord, &s, err))
        return NULL;
    g->langs |= 1u << s.lang;
    json_t *o = lp_gq_sym_json(&s);
    json_object_set_new(o, "depth", json_integer(n->depth));
    json_object_set_new(o, "side", lp_json_textz(n->side == 0 ? "root" : n->side == 1 ? "callee" : "caller"));
    return o;
}

static const char *id_of(cg *g, int64_t fid, int32_t ord, char *buf, size_t cap)
{
    gq_sym s;
    if (cg_sym(g, fid, ord, &s, NULL))
        return "";
    if (ord < 0)
        snprintf(buf, cap, "file:%s", s.path);
    else
        snprintf(buf, cap, "%s", s.id);
    return buf;
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
            json_t *nj = node_json(g, idx, err);
            if (!nj) {
                rc = err->code;
                break;
            }
            json_array_append_new(g->nodes, nj);
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
        char a[LP_PATH_MAX + 8], b[LP_PATH_MAX + 8], strat[96];
        gq_sym src;
        if (cg_sym(g, sfid, sord, &src, err)) {
            rc = err->code;
            break;
        }
        const char *from_id = id_of(g, sfid, sord, a, sizeof a);
        const char *to_id = callers ? id_of(g, cur.fid, cur.ord, b, sizeof b) : id_of(g, n.fid, n.ord, b, sizeof b);
        json_t *e = json_object();
        json_object_set_new(e, "from", lp_json_textz(from_id));
        json_object_set_new(e, "to", lp_json_textz(to_id));
        json_object_set_new(e, "kind", json_string("calls"));
        json_object_set_new(e, "strategy", lp_json_textz(strategy(src.lang, n.prule, strat, sizeof strat)));
        json_object_set_new(e, "callSite", call_site(g->st, sfid, n.pref, src.path, NULL));
        json_array_append_new(g->edges, e);
        g->nedges++;
    }
    lp_vec_free(&found);
    return rc;
}

/* The evidence that is not an edge, for the root's own call sites: the notes written with
 * the edges (notes table, GE_NOTE_*), so nothing is resolved again here. */
static lp_status callee_evidence(cg *g, const gq_sym *root, json_t *summary, json_t *out,
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
    json_t *unresolved = json_array(), *ambiguous = json_array(), *by_reason = json_object();
    for (size_t i = 0; i < notes.len && !rc; i++) {
        const note *n = &notes.items[i];
        if (n->kind == GE_NOTE_UNRESOLVED) {
            unres++;
            gr_reason reason = (gr_reason)n->rule;
            const char *rn = lp_gr_reason_name(reason);
            json_t *cnt = json_object_get(by_reason, rn);
            json_object_set_new(by_reason, rn, json_integer(cnt ? json_integer_value(cnt) + 1 : 1));
            if (json_array_size(unresolved) < 50) {
                json_t *u = lp_json_pack("{s:o, s:{s:i, s:i}, s:s, s:s}", "callee",
                                         lp_gq_json_str(n->text), "callSite", "startLine",
                                         (int)n->start_line, "endLine", (int)n->end_line,
                                         "reason", rn, "explanation", lp_gr_reason_text(reason));
                lp_gq_with_file(json_object_get(u, "callSite"), "file", root->path);
                json_array_append_new(unresolved, u);
            }
            continue;
        }
        amb++;
        if (json_array_size(ambiguous) >= 50)
            continue;
        json_t *cands = json_array();
        if ((rc = lp_store_prepare(g->st,
                                   "SELECT dst_fid, dst_ord FROM edges WHERE src_fid = ?1 AND"
                                   " ref_ord = ?2 AND kind = 0 AND rule = 0 ORDER BY dst_fid, dst_ord",
                                   &s, err))) {
            json_decref(cands);
            break;
        }
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
        for (size_t k = 0; k < found.len; k++) {
            gq_sym c;
            if (!cg_sym(g, found.items[k].fid, found.items[k].ord, &c, NULL))
                json_array_append_new(cands, lp_gq_sym_json(&c));
        }
        lp_vec_free(&found);
        json_t *a = lp_json_pack("{s:o, s:{s:i, s:i}, s:i, s:o}", "callee", lp_gq_json_str(n->text),
                                 "callSite", "startLine", (int)n->start_line, "endLine",
                                 (int)n->end_line, "candidateCount", (int)n->value,
                                 "candidates", cands);
        lp_gq_with_file(json_object_get(a, "callSite"), "file", root->path);
        json_array_append_new(ambiguous, a);
    }
    lp_vec_free(&notes);
    json_object_set_new(summary, "callees",
                        lp_json_pack("{s:i, s:i, s:i, s:o}", "provedCalls", (int)proved, "ambiguous",
                                  (int)amb, "unresolved", (int)unres, "unresolvedByReason", by_reason));
    json_object_set_new(out, "unresolvedCallees", unresolved);
    json_object_set_new(out, "ambiguousCallees", ambiguous);
    return rc;
}

/* Call sites elsewhere that may call the root but prove nothing: ambiguous references
 * listing it as a candidate, and unresolved references with its name. */
static lp_status caller_evidence(cg *g, const gq_sym *root, json_t *summary, json_t *out,
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
    json_t *amb = json_array();
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
    for (size_t i = 0; i < sites.len; i++) {
        /* A site whose reference row is gone (NULL) is left out, not a failed answer. */
        json_t *cs = call_site(g->st, sites.items[i].fid, sites.items[i].ref,
                               sites.items[i].path, NULL);
        if (cs)
            json_array_append_new(amb, lp_json_pack("{s:o}", "callSite", cs));
    }
    lp_vec_free(&sites);
    /* unresolved same-name call sites: references with the name and no edge at all; a
     * common name (String, Len) has thousands, so the count stops at SAME_NAME_CAP (and
     * says so) and the sample is the first 20 by path of what was read */
    enum { SAME_NAME_CAP = 200 };
    json_t *possible = json_array();
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
    for (size_t i = 0; i < npossible && i < 20; i++) {
        const psite *p = &ps.items[i];
        lp_buf text;
        lp_buf_init(&text, 300); /* a longer name is cut where a character ends */
        lp_buf_printf(&text, "%s%s%s", p->qual && *p->qual ? p->qual : "",
                      p->qual && *p->qual ? "." : "", root->name);
        json_array_append_new(possible,
                              lp_gq_with_file(lp_json_pack("{s:o, s:i}", "callee",
                                                        lp_json_text(text.ptr, text.len),
                                                        "startLine", (int)p->line),
                                           "file", p->path));
        lp_buf_release(&text);
    }
    lp_vec_free(&ps);
    json_object_set_new(summary, "callers",
                        lp_json_pack("{s:i, s:i, s:i, s:b}", "provedCallers", (int)proved,
                                  "ambiguousCallSites", (int)namb, "unresolvedSameName",
                                  (int)npossible, "unresolvedSameNameCapped", capped));
    json_object_set_new(out, "ambiguousCallers", amb);
    json_object_set_new(out, "possibleCallers", possible);
    return LP_OK;
}

static json_t *tests_of(cg *g, const gq_sym *root)
{
    json_t *arr = json_array();
    sqlite3_stmt *s;
    if (lp_store_prepare(g->st,
                         "SELECT DISTINCT src_fid, src_ord, rule FROM edges WHERE dst_fid = ?1 AND"
                         " dst_ord = ?2 AND kind = 3 AND rule <> 0 ORDER BY src_fid, src_ord, rule",
                         &s, NULL))
        return arr;
    sqlite3_bind_int64(s, 1, root->fid);
    sqlite3_bind_int(s, 2, root->ord);
    LP_VEC(node) found = {0};
    while (sqlite3_step(s) == SQLITE_ROW && found.len < 100) {
        node n = {sqlite3_column_int64(s, 0), sqlite3_column_int(s, 1), 0, 0, -1, 0,
                  sqlite3_column_int(s, 2), -1, 0};
        lp_vec_push(&found, n);
    }
    sqlite3_reset(s);
    json_t *last = NULL;
    for (size_t i = 0; i < found.len; i++) {
        const node *n = &found.items[i];
        json_t *ev = lp_json_textz(lp_gr_rule_name((gr_rule)n->prule));
        if (last && i > 0 && found.items[i - 1].fid == n->fid && found.items[i - 1].ord == n->ord) {
            json_array_append_new(json_object_get(last, "evidence"), ev);
            continue;
        }
        gq_sym t;
        if (lp_gq_symbol_at(g->st, n->fid, n->ord, g->arena, &t, NULL)) {
            json_decref(ev);
            last = NULL;
            continue;
        }
        last = lp_gq_sym_json(&t);
        json_t *evs = json_array();
        json_array_append_new(evs, ev);
        json_object_set_new(last, "evidence", evs);
        json_array_append_new(arr, last);
    }
    lp_vec_free(&found);
    return arr;
}

lp_status lp_graph_call_graph(const lp_graph_call *call, json_t **out, lp_error *err)
{
    *out = NULL;
    const char *id = lp_gq_arg_str(call->args, "symbolId");
    if (!id)
        return lp_error_set(err, LP_EINVAL, "call_graph needs symbolId (a sym:... id from search, "
                                            "file_outline or a previous call_graph)");
    const char *dir = lp_gq_arg_str(call->args, "direction");
    if (!dir)
        dir = "both";
    if (strcmp(dir, "both") && strcmp(dir, "callers") && strcmp(dir, "callees"))
        return lp_error_set(err, LP_EINVAL, "direction must be callers, callees or both, not '%s'",
                            dir);
    int depth = (int)lp_gq_arg_int(call->args, "depth", 2, 1, 5);
    uint64_t t0 = lp_now_ns(), t_bfs = t0, t_callee = t0, t_caller = t0;
    size_t g_nodes = 0, g_edges = 0;
    cg g;
    memset(&g, 0, sizeof g);
    g.call = call;
    g.st = call->st;
    lp_arena arena;
    lp_arena_init(&arena, 0);
    g.arena = &arena;
    lp_arena_init(&g.ns.arena, 0);
    g.max_nodes = (size_t)lp_gq_arg_int(call->args, "maxNodes", 100, 1, 1000);
    g.max_edges = (size_t)lp_gq_arg_int(call->args, "maxEdges", 300, 1, 5000);
    g.nodes = json_array();
    g.edges = json_array();
    json_t *res = json_object();
    json_object_set_new(res, "warnings", json_array());
    gq_sym root;
    lp_status rc = lp_gq_symbol_by_id(call->st, id, &arena, &root, err);
    if (rc)
        goto done;
    if (root.ord < 0) {
        rc = lp_error_set(err, LP_EINVAL, "call_graph needs a symbol id, not a file (%s)", id);
        goto done;
    }
    g.langs |= 1u << root.lang;
    node r0 = {root.fid, root.ord, 0, 0, -1, 0, 0, -1, 0};
    ns_add(&g.ns, r0);
    bool callees = strcmp(dir, "callers") != 0, callers = strcmp(dir, "callees") != 0;
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
    json_t *summary = json_object();
    if (callees && (rc = callee_evidence(&g, &root, summary, res, err))) {
        json_decref(summary);
        goto done;
    }
    t_callee = lp_now_ns();
    if (callers && (rc = caller_evidence(&g, &root, summary, res, err))) {
        json_decref(summary);
        goto done;
    }
    t_caller = lp_now_ns();
    json_object_set_new(summary, "returnedEdges", json_integer((json_int_t)g.nedges));
    g_nodes = g.ns.items.len;
    g_edges = g.nedges;
    json_object_set_new(summary, "note",
                        json_string("edges are proved calls; unresolved and ambiguous call sites "
                                    "are evidence, not edges; an absent edge does not prove that "
                                    "no call exists (see capabilities)"));
    json_object_set_new(res, "root", lp_gq_sym_json(&root));
    json_object_set_new(res, "direction", lp_json_textz(dir));
    json_object_set_new(res, "depth", json_integer(depth));
    json_object_set_new(res, "nodes", g.nodes);
    json_object_set_new(res, "edges", g.edges);
    g.nodes = g.edges = NULL;
    json_object_set_new(res, "tests", tests_of(&g, &root));
    json_object_set_new(res, "evidenceSummary", summary);
    json_object_set_new(res, "capabilities", lp_gq_caps_for_langs(g.langs));
    json_object_set_new(res, "truncation",
                        lp_json_pack("{s:b, s:b, s:b}", "nodes", g.cut_nodes, "edges", g.cut_edges,
                                  "depth", g.cut_depth));
    if (g.cut_nodes || g.cut_edges)
        lp_gq_warn(res, "graph_truncated",
                "the graph was cut at %zu nodes / %zu edges; raise maxNodes / maxEdges or lower "
                "depth",
                g.max_nodes, g.max_edges);
    if (g.cut_depth)
        lp_gq_warn(res, "depth_limit", "more calls lie beyond depth %d; call again from a frontier "
                                    "node or raise depth (max 5)",
                depth);
done:
    json_decref(g.nodes);
    json_decref(g.edges);
    lp_map_free(&g.edge_seen);
    lp_map_free(&g.sym_index);
    lp_vec_free(&g.syms);
    ns_free(&g.ns);
    lp_arena_release(&arena);
    if (rc) {
        json_decref(res);
        return rc;
    }
    *out = res;
    lp_log(LP_LOG_INFO, "graph.call_graph",
           "depth=%d nodes=%zu edges=%zu bfs_us=%llu callee_ev_us=%llu caller_ev_us=%llu us=%llu",
           depth, g_nodes, g_edges, (unsigned long long)((t_bfs - t0) / 1000),
           (unsigned long long)((t_callee - t_bfs) / 1000),
           (unsigned long long)((t_caller - t_callee) / 1000),
           (unsigned long long)((lp_now_ns() - t0) / 1000));
    return LP_OK;
}

/* ------------------------------------------------------------------------------------------
 * trace_path. */

lp_status lp_graph_trace_path(const lp_graph_call *call, json_t **out, lp_error *err)
{
    *out = NULL;
    const char *from_id = lp_gq_arg_str(call->args, "fromId");
    const char *to_id = lp_gq_arg_str(call->args, "toId");
    if (!from_id || !to_id)
        return lp_error_set(err, LP_EINVAL,
                            "trace_path needs fromId and toId (sym:... ids, or file:<path>)");
    bool kinds[LP_EDGE_KIND_COUNT] = {false};
    json_t *ek = json_object_get(call->args, "edgeKinds");
    if (json_is_array(ek) && json_array_size(ek)) {
        size_t i;
        json_t *k;
        json_array_foreach(ek, i, k)
        {
            lp_edge_kind e = json_is_string(k) ? lp_edge_kind_from_name(lp_str_c(json_string_value(k)))
                                               : LP_EDGE_KIND_COUNT;
            if (e == LP_EDGE_KIND_COUNT)
                return lp_error_set(err, LP_EINVAL,
                                    "edgeKinds items must be calls, imports, exports, tests or "
                                    "contains");
            kinds[e] = true;
        }
    } else {
        kinds[LP_EDGE_CALLS] = true;
    }
    int max_depth = (int)lp_gq_arg_int(call->args, "maxDepth", 8, 1, 16);
    size_t max_nodes = (size_t)lp_gq_arg_int(call->args, "maxNodes", 5000, 1, 100000);
    lp_arena arena;
    lp_arena_init(&arena, 0);
    nodeset ns;
    memset(&ns, 0, sizeof ns);
    lp_arena_init(&ns.arena, 0);
    json_t *res = json_object();
    json_object_set_new(res, "warnings", json_array());
    gq_sym from, to;
    lp_status rc = lp_gq_symbol_by_id(call->st, from_id, &arena, &from, err);
    if (!rc)
        rc = lp_gq_symbol_by_id(call->st, to_id, &arena, &to, err);
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
    json_t *path = json_array(), *edges = json_array();
    if (hit >= 0) {
        int32_t chain[64];
        int nc = 0;
        for (int32_t k = hit; k >= 0 && nc < 64; k = ns.items.items[k].parent)
            chain[nc++] = k;
        for (int k = nc - 1; k >= 0; k--) {
            const node *n = &ns.items.items[chain[k]];
            gq_sym s;
            if ((rc = lp_gq_symbol_at(call->st, n->fid, n->ord, &arena, &s, err)))
                break;
            json_array_append_new(path, lp_gq_sym_json(&s));
            if (n->parent < 0)
                continue;
            const node *p = &ns.items.items[n->parent];
            gq_sym ps;
            if ((rc = lp_gq_symbol_at(call->st, p->fid, p->ord, &arena, &ps, err)))
                break;
            char strat[96];
            json_t *e = json_object();
            json_t *pj = lp_gq_sym_json(&ps), *nj = lp_gq_sym_json(&s);
            json_object_set(e, "from", json_object_get(pj, "id"));
            json_object_set(e, "to", json_object_get(nj, "id"));
            json_decref(pj);
            json_decref(nj);
            json_object_set_new(e, "kind", lp_json_textz(lp_edge_kind_name((lp_edge_kind)n->pkind)));
            if (n->pkind != LP_EDGE_CONTAINS) {
                json_object_set_new(e, "strategy", lp_json_textz(strategy(ps.lang, n->prule, strat,
                                                                        sizeof strat)));
                json_object_set_new(e, "callSite", call_site(call->st, p->fid, n->pref, ps.path, NULL));
            }
            json_array_append_new(edges, e);
        }
    }
    json_object_set_new(res, "from", lp_gq_sym_json(&from));
    json_object_set_new(res, "to", lp_gq_sym_json(&to));
    json_object_set_new(res, "found", json_boolean(hit >= 0));
    json_int_t length = hit >= 0 ? (json_int_t)json_array_size(edges) : -1;
    json_object_set_new(res, "path", path);
    json_object_set_new(res, "edges", edges);
    json_object_set_new(res, "length", json_integer(length));
    json_object_set_new(res, "explored", json_integer((json_int_t)ns.items.len));
    json_object_set_new(res, "truncation",
                        lp_json_pack("{s:b, s:b}", "nodes", cut_nodes, "depth", cut_depth));
    json_t *used = json_array();
    for (int k = 0; k < LP_EDGE_KIND_COUNT; k++)
        if (kinds[k])
            json_array_append_new(used, lp_json_textz(lp_edge_kind_name((lp_edge_kind)k)));
    json_object_set_new(res, "edgeKinds", used);
    json_object_set_new(res, "capabilities",
                        lp_gq_caps_for_langs((1u << from.lang) | (1u << to.lang)));
    if (hit < 0) {
        if (cut_nodes || cut_depth)
            lp_gq_warn(res, "no_path_within_budget",
                    "no path found within %d steps / %zu nodes; raise maxDepth or maxNodes",
                    max_depth, max_nodes);
        else
            lp_gq_warn(res, "no_proved_path",
                    "no path over proved edges of the chosen kinds; unresolved or dynamic calls "
                    "may still connect them (see capabilities)");
    }
done:
    ns_free(&ns);
    lp_arena_release(&arena);
    if (rc) {
        json_decref(res);
        return rc;
    }
    *out = res;
    return LP_OK;
}
