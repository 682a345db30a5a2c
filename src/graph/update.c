/*
 * update.c: the refs evidence and the edges table: full and incremental rebuilds.
 *
 * Incremental rebuild (docs/graph-rules.md, "Incremental"): a reference's resolution reads
 * its own file, the symbols named by its name and by the names along the way (receiver
 * type, qualifier's first name, base types, import bindings), and the set of paths. So
 * after a change to files C (added, changed, deleted), the references to resolve again are:
 *   1. every reference of the files of C that still exist;
 *   2. references whose name, or second key (receiver type / qualifier root / enclosing
 *      type), is in N: the names of the symbols of C (old and new evidence), the names and
 *      aliases of C's import and export references, closed over subclassing (a type whose
 *      base list names something in N joins N);
 *   3. references whose module key is in K (stems, base names and folder names of added
 *      and deleted paths): imports whose target file may have appeared or vanished;
 *   4. C/C++: every reference of the files that include (transitively) a file of C whose
 *      #include list changed, or that was added or deleted;
 * and a change to go.mod or Cargo.toml rebuilds everything. Edges of deleted files go; the
 * edges of re-resolved references are replaced. tests/integration/test_graph_incremental.py
 * checks on random edit sequences that the result equals a full rebuild.
 */
#include "graph/graph_int.h"
#include "core/settings.h"

#include <stdlib.h>
#include <unistd.h>

/* ------------------------------------------------------------------------------------------
 * Evidence. */

static const char SQL_REF_INSERT[] =
    "INSERT INTO refs(bid, ord, kind, owner, name, qual, alias, rtype, args, nargs, flags, key2,"
    " mkey, start_byte, end_byte, start_line, end_line)"
    " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)";

static lp_str last_seg(lp_str s, char sep)
{
    for (size_t i = s.len; i > 0; i--)
        if (s.ptr[i - 1] == sep)
            return lp_str_sub(s, i, s.len);
    return s;
}

static lp_str first_seg(lp_str s)
{
    size_t d = lp_str_find_char(s, '.', 0);
    return d == SIZE_MAX ? s : lp_str_sub(s, 0, d);
}

/* The module key of a module text: its last path segment without extension
 * ("./util.js" -> "util", "net/http" -> "http", "a.b" -> "b", "x/y.h" -> "y"). */
static lp_str module_key(lp_lang lang, const lp_ref *r)
{
    lp_str q = lp_str_c(r->qual);
    if (r->kind == LP_REF_IMPORT && (r->flags & LP_REFF_MODDECL))
        return lp_str_c(r->name);
    if (!q.len)
        return q;
    /* a package itself: Python `from . import x` is its __init__.py, JS '.' / '../' its
     * index file */
    bool dots = true;
    for (size_t i = 0; i < q.len && dots; i++)
        dots = q.ptr[i] == '.' || q.ptr[i] == '/';
    if (dots && (r->kind == LP_REF_IMPORT || r->kind == LP_REF_EXPORT)) {
        const char *stem = lp_lang_ops_for(lang)->package_stem;
        return stem ? lp_str_c(stem) : LP_STR("index");
    }
    if (strchr(r->qual, '/')) {
        lp_str b = last_seg(q, '/');
        lp_str e = lp_path_ext(b);
        return lp_str_sub(b, 0, b.len - e.len);
    }
    if (r->kind == LP_REF_IMPORT && !strcmp(r->name, "") && strchr(r->qual, '.') &&
        (lp_str_ends_with(q, LP_STR(".h")) || lp_str_ends_with(q, LP_STR(".hpp")))) {
        lp_str e = lp_path_ext(q);
        return lp_str_sub(q, 0, q.len - e.len);
    }
    return last_seg(q, '.');
}

static lp_str second_key(const lp_ref *r)
{
    if (r->kind != LP_REF_CALL && r->kind != LP_REF_NEW)
        return LP_STR("");
    if (r->flags & (LP_REFF_TYPED | LP_REFF_SELF | LP_REFF_SUPER))
        return last_seg(lp_str_c(r->rtype), '.');
    if (r->flags & (LP_REFF_COMPLEX | LP_REFF_UNTYPED | LP_REFF_SHADOWED))
        return LP_STR("");
    return first_seg(lp_str_c(r->qual));
}

lp_status lp_graph_evidence_insert(lp_store *st, int64_t bid, lp_lang lang,
                                   const lp_parse_result *pr, lp_error *err)
{
    for (size_t i = 0; i < pr->nrefs; i++) {
        const lp_ref *r = &pr->refs[i];
        sqlite3_stmt *s;
        lp_status rc = lp_store_prepare(st, SQL_REF_INSERT, &s, err);
        if (rc)
            return rc;
        lp_str k2 = second_key(r), mk = module_key(lang, r);
        sqlite3_bind_int64(s, 1, bid);
        sqlite3_bind_int64(s, 2, (sqlite3_int64)i);
        sqlite3_bind_int(s, 3, (int)r->kind);
        sqlite3_bind_int(s, 4, r->owner);
        sqlite3_bind_text(s, 5, r->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 6, r->qual, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 7, r->alias, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 8, r->rtype, -1, SQLITE_STATIC);
        sqlite3_bind_text(s, 9, r->args, -1, SQLITE_STATIC);
        sqlite3_bind_int(s, 10, r->nargs);
        sqlite3_bind_int64(s, 11, r->flags);
        sqlite3_bind_text(s, 12, k2.ptr ? k2.ptr : "", (int)k2.len, SQLITE_STATIC);
        sqlite3_bind_text(s, 13, mk.ptr ? mk.ptr : "", (int)mk.len, SQLITE_STATIC);
        sqlite3_bind_int64(s, 14, r->span.start_byte);
        sqlite3_bind_int64(s, 15, r->span.end_byte);
        sqlite3_bind_int64(s, 16, r->span.start_line);
        sqlite3_bind_int64(s, 17, r->span.end_line);
        int step = sqlite3_step(s);
        sqlite3_reset(s);
        if (step != SQLITE_DONE)
            return lp_store_sql_error(st, "storing a reference", err);
    }
    return LP_OK;
}

lp_status lp_graph_evidence_bulk_begin(lp_store *st, lp_error *err)
{
    return lp_store_bulk_indexes_drop(st, LP_STORE_IX_REFS, err);
}

lp_status lp_graph_evidence_collect(lp_store *st, int64_t bid, lp_error *err)
{
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(st, "DELETE FROM refs WHERE bid = ?1", &s, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, bid);
    int step = sqlite3_step(s);
    sqlite3_reset(s);
    return step == SQLITE_DONE ? LP_OK : lp_store_sql_error(st, "removing references", err);
}

lp_status lp_graph_reset_all(lp_store *st, lp_error *err)
{
    return lp_store_exec(st, "DELETE FROM refs; DELETE FROM edges; DELETE FROM notes;", err);
}

/* ------------------------------------------------------------------------------------------
 * Writing edges. */

typedef struct writer {
    lp_store *st;
    gview *v;
    lp_graph_stats *stats;
    lp_status rc;
    lp_error *err;
} writer;

static void put_edge(writer *w, int64_t src_fid, int32_t ref_ord, int32_t src_ord,
                     lp_edge_kind kind, gpair dst, int rule)
{
    if (w->rc)
        return;
    sqlite3_stmt *s;
    if ((w->rc = lp_store_prepare(w->st,
                                  "INSERT OR IGNORE INTO edges(src_fid, ref_ord, kind, dst_fid,"
                                  " dst_ord, src_ord, rule) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                                  &s, w->err)))
        return;
    sqlite3_bind_int64(s, 1, src_fid);
    sqlite3_bind_int(s, 2, ref_ord);
    sqlite3_bind_int(s, 3, (int)kind);
    sqlite3_bind_int64(s, 4, w->v->files[dst.file].fid);
    sqlite3_bind_int(s, 5, dst.ord);
    sqlite3_bind_int(s, 6, src_ord);
    sqlite3_bind_int(s, 7, rule);
    if (sqlite3_step(s) != SQLITE_DONE)
        w->rc = lp_store_sql_error(w->st, "storing an edge", w->err);
    sqlite3_reset(s);
}

static void put_note(writer *w, int64_t src_fid, int32_t ref_ord, int32_t src_ord, int kind,
                     int32_t value)
{
    if (w->rc)
        return;
    sqlite3_stmt *s;
    if ((w->rc = lp_store_prepare(w->st,
                                  "INSERT OR REPLACE INTO notes(src_fid, ref_ord, src_ord, kind,"
                                  " value) VALUES(?1, ?2, ?3, ?4, ?5)",
                                  &s, w->err)))
        return;
    sqlite3_bind_int64(s, 1, src_fid);
    sqlite3_bind_int(s, 2, ref_ord);
    sqlite3_bind_int(s, 3, src_ord);
    sqlite3_bind_int(s, 4, kind);
    sqlite3_bind_int(s, 5, value);
    if (sqlite3_step(s) != SQLITE_DONE)
        w->rc = lp_store_sql_error(w->st, "storing a reference note", w->err);
    sqlite3_reset(s);
}

static void emit_file_edge(void *ctx, int32_t ref_ord, int32_t src_ord, lp_edge_kind kind,
                           gpair dst, gr_rule rule)
{
    writer *w = ctx;
    (void)src_ord;
    put_edge(w, w->v->files[dst.file].fid, ref_ord, -1, kind, dst, rule);
    if (!w->rc)
        w->stats->edges++;
}

static void write_result(writer *w, uint32_t file, const gref *r, const gres *res)
{
    int64_t fid = w->v->files[file].fid;
    int32_t src = r->kind == LP_REF_IMPORT || r->kind == LP_REF_EXPORT ? -1 : r->owner;
    if (r->kind == LP_REF_IMPORT && r->owner >= 0)
        src = r->owner; /* an import inside a function */
    switch (res->status) {
    case GR_PROVED:
        for (uint32_t i = 0; i < res->ntargets; i++)
            put_edge(w, fid, r->ord, src, res->edge, res->targets[i], res->rule);
        if (res->tests)
            put_edge(w, fid, r->ord, src, LP_EDGE_TESTS, res->targets[0], GR_TEST_CALL);
        w->stats->edges += res->ntargets + (res->tests ? 1 : 0);
        break;
    case GR_AMBIGUOUS:
        for (uint32_t i = 0; i < res->ntargets; i++)
            put_edge(w, fid, r->ord, src, res->edge, res->targets[i], GR_CANDIDATE);
        if (r->kind == LP_REF_CALL || r->kind == LP_REF_NEW)
            put_note(w, fid, r->ord, src, GE_NOTE_AMBIGUOUS, (int32_t)res->ncand);
        w->stats->ambiguous++;
        break;
    case GR_UNRESOLVED:
        if (r->kind == LP_REF_CALL || r->kind == LP_REF_NEW)
            put_note(w, fid, r->ord, src, GE_NOTE_UNRESOLVED, (int32_t)res->reason);
        w->stats->unresolved++;
        break;
    default:
        break;
    }
}

/* Resolve refs (all of the file when sel is NULL, else those whose ord is marked). */
static void resolve_file(writer *w, uint32_t file, const uint8_t *sel, size_t nsel, bool all)
{
    gfile *f = &w->v->files[file];
    lp_arena a;
    lp_arena_init(&a, 0);
    gref *refs = NULL;
    size_t n = 0;
    if ((w->rc = lp_gv_all_refs(w->v, f->bid, &a, &refs, &n, w->err))) {
        lp_arena_release(&a);
        return;
    }
    for (size_t i = 0; i < n && !w->rc; i++) {
        const gref *r = &refs[i];
        if (!all && (!sel || (size_t)r->ord >= nsel || !sel[r->ord]))
            continue;
        if (r->kind == LP_REF_BASE)
            continue;
        gres res;
        lp_gr_resolve(w->v, file, r, &res);
        w->stats->refs_resolved++;
        write_result(w, file, r, &res);
    }
    if (all)
        lp_gr_file_edges(w->v, file, emit_file_edge, w);
    lp_arena_release(&a);
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ------------------------------------------------------------------------------------------
 * Full and incremental. */

static lp_status full_rebuild(writer *w)
{
    /* the secondary indexes are built once at the end (a sorted bulk build) rather than
     * kept up to date row by row; the definitions are those of the schema (store/schema.c) */
    lp_status rc = lp_store_bulk_indexes_drop(w->st, LP_STORE_IX_EDGES, w->err);
    if (!rc)
        rc = lp_store_exec(w->st, "DELETE FROM edges; DELETE FROM notes;", w->err);
    if (rc)
        return rc;
    for (size_t i = 0; i < w->v->nfiles && !w->rc; i++) {
        if (!lp_lang_has_graph(w->v->files[i].lang))
            continue;
        resolve_file(w, (uint32_t)i, NULL, 0, true);
        w->stats->files_affected++;
    }
    if (w->rc)
        return w->rc;
    return lp_store_bulk_indexes_build(w->st, LP_STORE_IX_EDGES, w->err);
}

static void add_name(lp_map *set, lp_arena *a, const char *s, size_t n)
{
    if (n)
        lp_map_put(set, a, s, n, NULL);
}

/* Names of the symbols, import/export names and aliases of one blob into the set. */
/* Names of one blob into `names` (every symbol, import and export) and `tops` (the names a
 * bare call can reach without an implicit `this`: everything but members, plus the types
 * that out-of-line members belong to). */
static bool member_kind(int k)
{
    return k == LP_SYM_METHOD || k == LP_SYM_FIELD || k == LP_SYM_PROPERTY ||
           k == LP_SYM_CONSTRUCTOR || k == LP_SYM_ENUM_MEMBER;
}

static lp_status blob_names(lp_store *st, int64_t bid, lp_map *names, lp_map *tops, lp_arena *a,
                            lp_error *err)
{
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(st, "SELECT name, qname, kind FROM symbols WHERE bid = ?1", &s,
                                    err);
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, bid);
    while (sqlite3_step(s) == SQLITE_ROW) {
        const char *n = (const char *)sqlite3_column_text(s, 0);
        size_t nl = (size_t)sqlite3_column_bytes(s, 0);
        add_name(names, a, n, nl);
        if (!member_kind(sqlite3_column_int(s, 2)))
            add_name(tops, a, n, nl);
        /* the type an out-of-line member belongs to (Go methods, C++ Foo::bar, Rust impl
         * items): a member added or removed changes what that type's receivers reach */
        lp_str q = {(const char *)sqlite3_column_text(s, 1), (size_t)sqlite3_column_bytes(s, 1)};
        size_t end = SIZE_MAX;
        for (size_t i = q.len; i > 0; i--)
            if (q.ptr[i - 1] == '.') {
                end = i - 1;
                break;
            }
        if (end != SIZE_MAX) {
            lp_str owner = last_seg(lp_str_sub(q, 0, end), '.');
            add_name(names, a, owner.ptr, owner.len);
            add_name(tops, a, owner.ptr, owner.len);
        }
    }
    sqlite3_reset(s);
    if ((rc = lp_store_prepare(st,
                               "SELECT name, alias FROM refs WHERE bid = ?1 AND kind IN (2, 4)",
                               &s, err)))
        return rc;
    sqlite3_bind_int64(s, 1, bid);
    while (sqlite3_step(s) == SQLITE_ROW) {
        for (int c = 0; c < 2; c++) {
            add_name(names, a, (const char *)sqlite3_column_text(s, c),
                     (size_t)sqlite3_column_bytes(s, c));
            add_name(tops, a, (const char *)sqlite3_column_text(s, c),
                     (size_t)sqlite3_column_bytes(s, c));
        }
    }
    sqlite3_reset(s);
    return LP_OK;
}

/* A symbol as the incremental delta compares it: identity (qualified name, kind, ordinal:
 * what an edge's target means) and signature (what else resolution reads from a target:
 * visibility, flags, its parent's qualified name). */
typedef struct symrow {
    int32_t ord;
    int kind;
    const char *name, *qname, *key, *sig;
} symrow;

typedef LP_VEC(symrow) symrow_vec;

static lp_status blob_rows(lp_store *st, int64_t bid, lp_arena *a, symrow_vec *out, lp_error *err)
{
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(
        st,
        "SELECT s.ord, s.name, s.qname, s.kind, s.ordinal, s.vis, s.flags, coalesce(p.qname, '')"
        " FROM symbols s LEFT JOIN symbols p ON p.bid = s.bid AND p.ord = s.parent"
        " WHERE s.bid = ?1 ORDER BY s.ord",
        &s, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, bid);
    while (sqlite3_step(s) == SQLITE_ROW) {
        symrow *r = lp_vec_push_zero(out);
        r->ord = sqlite3_column_int(s, 0);
        r->name = lp_arena_strdup(a, (const char *)sqlite3_column_text(s, 1));
        r->qname = lp_arena_strdup(a, (const char *)sqlite3_column_text(s, 2));
        r->kind = sqlite3_column_int(s, 3);
        r->key = lp_arena_printf(a, "%s|%d|%lld", r->qname, r->kind,
                                 (long long)sqlite3_column_int64(s, 4));
        r->sig = lp_arena_printf(a, "%d|%lld|%s", sqlite3_column_int(s, 5),
                                 (long long)sqlite3_column_int64(s, 6),
                                 (const char *)sqlite3_column_text(s, 7));
    }
    sqlite3_reset(s);
    return LP_OK;
}

static void row_names(const symrow *r, lp_map *names, lp_map *tops, lp_arena *a)
{
    add_name(names, a, r->name, strlen(r->name));
    if (!member_kind(r->kind))
        add_name(tops, a, r->name, strlen(r->name));
    lp_str q = lp_str_c(r->qname);
    size_t end = SIZE_MAX;
    for (size_t i = q.len; i > 0; i--)
        if (q.ptr[i - 1] == '.') {
            end = i - 1;
            break;
        }
    if (end != SIZE_MAX) {
        lp_str owner = last_seg(lp_str_sub(q, 0, end), '.');
        add_name(names, a, owner.ptr, owner.len);
        add_name(tops, a, owner.ptr, owner.len);
    }
}

/* Structural references of a blob as comparable lines (imports, exports: their names and
 * aliases matter; bases: their owner's name). */
static lp_status struct_lines(lp_store *st, int64_t bid, lp_arena *a, symrow_vec *out,
                              lp_error *err)
{
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(
        st,
        "SELECT r.kind, r.qual, r.name, r.alias, r.flags, coalesce(o.qname, ''), coalesce(o.name, '')"
        " FROM refs r LEFT JOIN symbols o ON o.bid = r.bid AND o.ord = r.owner"
        " WHERE r.bid = ?1 AND r.kind IN (2, 3, 4) ORDER BY r.ord",
        &s, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, bid);
    while (sqlite3_step(s) == SQLITE_ROW) {
        symrow *r = lp_vec_push_zero(out);
        r->kind = sqlite3_column_int(s, 0);
        r->key = lp_arena_printf(a, "%d|%s|%s|%s|%lld|%s", r->kind,
                                 (const char *)sqlite3_column_text(s, 1),
                                 (const char *)sqlite3_column_text(s, 2),
                                 (const char *)sqlite3_column_text(s, 3),
                                 (long long)sqlite3_column_int64(s, 4),
                                 (const char *)sqlite3_column_text(s, 5));
        r->name = lp_arena_strdup(a, (const char *)sqlite3_column_text(s, r->kind == 3 ? 6 : 2));
        r->sig = lp_arena_strdup(a, r->kind == 3 ? "" : (const char *)sqlite3_column_text(s, 3));
    }
    sqlite3_reset(s);
    return LP_OK;
}

typedef struct remap {
    int64_t fid;
    int32_t from, to;
} remap;
typedef LP_VEC(remap) remap_vec;

/* A file whose content changed in place: the names whose meaning may change are those of
 * symbols that appeared, vanished or changed signature, of imports/exports that changed,
 * and of types whose base list changed. Symbols that only moved (same identity, new ord)
 * keep their edges: the ords are remapped. */
static lp_status changed_delta(lp_store *st, int64_t fid, int64_t old_bid, int64_t new_bid,
                               lp_map *names, lp_map *tops, lp_arena *a, remap_vec *rm,
                               lp_error *err)
{
    symrow_vec o = {0}, n = {0}, so = {0}, sn = {0};
    lp_map by_key = {0};
    lp_status rc = blob_rows(st, old_bid, a, &o, err);
    if (!rc)
        rc = blob_rows(st, new_bid, a, &n, err);
    if (!rc)
        rc = struct_lines(st, old_bid, a, &so, err);
    if (!rc)
        rc = struct_lines(st, new_bid, a, &sn, err);
    if (rc)
        goto done;
    for (size_t i = 0; i < n.len; i++)
        *lp_map_put(&by_key, a, n.items[i].key, strlen(n.items[i].key), NULL) = (uint32_t)i + 1;
    LP_VEC(uint8_t) seen = {0};
    lp_vec_reserve(&seen, n.len + 1);
    memset(seen.items, 0, n.len + 1);
    for (size_t i = 0; i < o.len; i++) {
        const symrow *r = &o.items[i];
        uint32_t *hit = lp_map_get(&by_key, r->key, strlen(r->key));
        if (!hit) {
            row_names(r, names, tops, a);
            continue;
        }
        const symrow *m = &n.items[*hit - 1];
        seen.items[*hit - 1] = 1;
        if (strcmp(r->sig, m->sig) != 0) {
            row_names(r, names, tops, a);
            row_names(m, names, tops, a);
        } else if (r->ord != m->ord) {
            lp_vec_push(rm, ((remap){fid, r->ord, m->ord}));
        }
    }
    for (size_t i = 0; i < n.len; i++)
        if (!seen.items[i])
            row_names(&n.items[i], names, tops, a);
    lp_vec_free(&seen);
    /* structural references present in one version only (a multiset difference) */
    lp_map_free(&by_key);
    for (size_t i = 0; i < sn.len; i++) {
        uint32_t *c = lp_map_put(&by_key, a, sn.items[i].key, strlen(sn.items[i].key), NULL);
        (*c)++;
    }
    for (size_t i = 0; i < so.len; i++) {
        uint32_t *c = lp_map_get(&by_key, so.items[i].key, strlen(so.items[i].key));
        if (c && *c) {
            (*c)--;
            continue;
        }
        add_name(names, a, so.items[i].name, strlen(so.items[i].name));
        add_name(tops, a, so.items[i].name, strlen(so.items[i].name));
        add_name(names, a, so.items[i].sig, strlen(so.items[i].sig));
        add_name(tops, a, so.items[i].sig, strlen(so.items[i].sig));
    }
    for (size_t i = 0; i < sn.len; i++) {
        uint32_t *c = lp_map_get(&by_key, sn.items[i].key, strlen(sn.items[i].key));
        if (!c || !*c)
            continue;
        (*c)--; /* present in the new version only */
        add_name(names, a, sn.items[i].name, strlen(sn.items[i].name));
        add_name(tops, a, sn.items[i].name, strlen(sn.items[i].name));
        add_name(names, a, sn.items[i].sig, strlen(sn.items[i].sig));
        add_name(tops, a, sn.items[i].sig, strlen(sn.items[i].sig));
    }
done:
    lp_map_free(&by_key);
    lp_vec_free(&o);
    lp_vec_free(&n);
    lp_vec_free(&so);
    lp_vec_free(&sn);
    return rc;
}

/* The #include list of a blob, as one string (for "did it change"). */
static lp_status include_sig(lp_store *st, int64_t bid, lp_buf *out, lp_error *err)
{
    lp_buf_reset(out);
    if (!bid)
        return LP_OK;
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(st,
                                    "SELECT qual, flags FROM refs WHERE bid = ?1 AND kind = 2"
                                    " AND name = '' ORDER BY ord",
                                    &s, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, bid);
    while (sqlite3_step(s) == SQLITE_ROW)
        lp_buf_printf(out, "%s|%lld\n", (const char *)sqlite3_column_text(s, 0),
                      (long long)sqlite3_column_int64(s, 1));
    sqlite3_reset(s);
    return LP_OK;
}

static lp_lang blob_lang(lp_store *st, int64_t bid)
{
    sqlite3_stmt *s;
    if (!bid || lp_store_prepare(st, "SELECT lang FROM blobs WHERE bid = ?1", &s, NULL))
        return LP_LANG_TEXT;
    sqlite3_bind_int64(s, 1, bid);
    lp_lang l = sqlite3_step(s) == SQLITE_ROW ? (lp_lang)sqlite3_column_int(s, 0) : LP_LANG_TEXT;
    sqlite3_reset(s);
    return l;
}

/* Per file: which refs to resolve again (bitmap over ords), or all. */
typedef struct sel {
    bool all;
    LP_VEC(uint8_t) bits;
} sel;

static void mark_ref(sel *sels, uint32_t file, int32_t ord)
{
    sel *x = &sels[file];
    if (x->all || ord < 0)
        return;
    if ((size_t)ord >= x->bits.len) {
        lp_vec_reserve(&x->bits, (size_t)ord + 1);
        memset(x->bits.items + x->bits.len, 0, (size_t)ord + 1 - x->bits.len);
        x->bits.len = (size_t)ord + 1;
    }
    x->bits.items[ord] = 1;
}

/* The languages with an implicit `this` (LP_LANGG_IMPLICIT_THIS), as a bit mask over
 * lp_lang values for the statements below. */
static int64_t implicit_this_mask(void)
{
    int64_t m = 0;
    for (int l = 0; l < LP_LANG_COUNT; l++)
        if (lp_gl_implicit_this((lp_lang)l))
            m |= (int64_t)1 << l;
    return m;
}

/* Mark the references whose name (column 0), key2 (1) or mkey (2) is in the set. A name
 * that is only a member's (not in tops; NULL: every name counts) reaches references only in
 * languages with an implicit `this` (Java, C++, C#, Scala): elsewhere a member is reached
 * through a receiver, whose type is the second key. */
static lp_status mark_by_key(writer *w, sel *sels, int column, const lp_map *set, const lp_map *tops)
{
    /* by name: not the references whose result the name cannot change: receivers typed by
     * the function, self/this/super (they depend on the receiver's type, the second key)
     * and the ones that never resolve (shadowed, untyped, expression receivers): 0x3f is
     * LP_REFF_SELF | _SUPER | _SHADOWED | _UNTYPED | _COMPLEX | _TYPED; `<> ''` lets SQLite
     * use the partial indexes refs_key2 / refs_mkey */
    static const char *const sqls[] = {
        ("SELECT f.fid, r.ord FROM refs r JOIN files f ON f.bid = r.bid JOIN blobs b ON"
         " b.bid = r.bid WHERE r.name = ?1 AND (r.flags & 63) = 0 AND (?2 OR"
         " (?3 >> b.lang) & 1)"),
        ("SELECT f.fid, r.ord FROM refs r JOIN files f ON f.bid = r.bid JOIN blobs b ON"
         " b.bid = r.bid WHERE r.key2 = ?1 AND r.key2 <> '' AND (?2 OR"
         " (?3 >> b.lang) & 1)"),
        ("SELECT f.fid, r.ord FROM refs r JOIN files f ON f.bid = r.bid WHERE r.mkey = ?1"
         " AND r.mkey <> '' AND ?2")};
    int64_t mask = implicit_this_mask();
    for (size_t i = 0; i < set->cap; i++) {
        if (!set->slots[i].key)
            continue;
        sqlite3_stmt *s;
        lp_status rc = lp_store_prepare(w->st, sqls[column], &s, w->err);
        if (rc)
            return rc;
        const lp_map_slot *e = &set->slots[i];
        sqlite3_bind_text(s, 1, e->key, (int)e->klen, SQLITE_STATIC);
        sqlite3_bind_int(s, 2, !tops || lp_map_get(tops, e->key, e->klen) ? 1 : 0);
        if (column < 2)
            sqlite3_bind_int64(s, 3, mask);
        while (sqlite3_step(s) == SQLITE_ROW) {
            int32_t fi = lp_gv_file_of_fid(w->v, sqlite3_column_int64(s, 0));
            if (fi >= 0)
                mark_ref(sels, (uint32_t)fi, sqlite3_column_int(s, 1));
        }
        sqlite3_reset(s);
    }
    return LP_OK;
}

/* The name an import binds in its file (see lookup.c: Python `import a.b` binds a, Go the
 * last path segment). "*" for import-everything forms. */
static lp_str bound_name(lp_lang lang, const gref *r)
{
    if ((r->flags & LP_REFF_WILDCARD) || (!strcmp(r->name, "*") && !r->alias[0]))
        return LP_STR("*");
    if (r->alias[0])
        return lp_str_c(r->alias);
    const lp_lang_ops *ops = lp_lang_ops_for(lang);
    return ops->import_binds ? ops->import_binds(r->name, r->qual) : lp_str_c(r->name);
}

/* A re-resolved import changes what its bound name means in its file: resolve the file's
 * references that use that name again (an import-everything form: all of them). */
static lp_status propagate_imports(writer *w, sel *sels)
{
    gview *v = w->v;
    for (size_t i = 0; i < v->nfiles; i++) {
        sel *x = &sels[i];
        if (x->all || !x->bits.len)
            continue;
        lp_arena a;
        lp_arena_init(&a, 0);
        gref *refs = NULL;
        size_t n = 0;
        lp_status rc = lp_gv_all_refs(v, v->files[i].bid, &a, &refs, &n, w->err);
        if (rc) {
            lp_arena_release(&a);
            return rc;
        }
        lp_map bound = {0};
        bool everything = false;
        for (size_t k = 0; k < n; k++) {
            const gref *r = &refs[k];
            if ((r->kind != LP_REF_IMPORT && r->kind != LP_REF_EXPORT) ||
                (size_t)r->ord >= x->bits.len || !x->bits.items[r->ord])
                continue;
            lp_str b = bound_name(v->files[i].lang, r);
            if (lp_str_eq_c(b, "*"))
                everything = true;
            else if (b.len)
                lp_map_put(&bound, &a, b.ptr, b.len, NULL);
        }
        if (everything) {
            x->all = true;
        } else if (bound.len) {
            for (size_t k = 0; k < n; k++) {
                const gref *r = &refs[k];
                lp_str key2 = (r->flags & (LP_REFF_TYPED | LP_REFF_SELF | LP_REFF_SUPER))
                                  ? last_seg(lp_str_c(r->rtype), '.')
                                  : first_seg(lp_str_c(r->qual));
                if (lp_map_get(&bound, r->name, strlen(r->name)) ||
                    (key2.len && lp_map_get(&bound, key2.ptr, key2.len)))
                    mark_ref(sels, (uint32_t)i, r->ord);
            }
        }
        lp_map_free(&bound);
        lp_arena_release(&a);
    }
    return LP_OK;
}

static lp_status exec_fid(lp_store *st, const char *sql, int64_t fid, lp_error *err)
{
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(st, sql, &s, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, fid);
    int step = sqlite3_step(s);
    sqlite3_reset(s);
    return step == SQLITE_DONE ? LP_OK : lp_store_sql_error(st, "updating edges", err);
}

static void add_path_keys(lp_map *k, lp_arena *a, const char *path)
{
    lp_str p = lp_str_c(path);
    lp_str base = lp_path_basename(p);
    lp_str ext = lp_path_ext(base);
    add_name(k, a, base.ptr, base.len);
    add_name(k, a, base.ptr, base.len - ext.len);
    lp_str dir = lp_path_dirname(p);
    lp_str dbase = lp_path_basename(dir);
    add_name(k, a, dbase.ptr, dbase.len);
}

static lp_status incremental(writer *w, const lp_graph_change *ch, size_t nch, bool *need_full)
{
    gview *v = w->v;
    lp_store *st = w->st;
    lp_status rc = LP_OK;
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_map names = {0}, tops = {0}, keys = {0};
    remap_vec remaps = {0};
    sel *sels = lp_xcalloc(v->nfiles ? v->nfiles : 1, sizeof(sel));
    lp_buf s1, s2;
    lp_buf_init(&s1, 0);
    lp_buf_init(&s2, 0);
    u32_vec c_roots = {0}; /* C/C++ files whose include list changed */
    LP_VEC(int64_t) gone = {0};
    *need_full = false;

    for (size_t i = 0; i < nch && !rc; i++) {
        const lp_graph_change *c = &ch[i];
        lp_str base = lp_path_basename(lp_str_c(c->path));
        if (lp_str_eq_c(base, "go.mod") || lp_str_eq_c(base, "Cargo.toml")) {
            *need_full = true;
            goto done;
        }
        bool added = !c->old_bid, deleted = !c->new_bid;
        int32_t same = lp_gv_file_of_path(v, c->path, strlen(c->path));
        if (!added && !deleted && same >= 0 && v->files[same].fid == c->old_fid) {
            if ((rc = changed_delta(st, c->old_fid, c->old_bid, c->new_bid, &names, &tops, &a,
                                    &remaps, w->err)))
                goto done;
        } else {
            if (c->old_bid && (rc = blob_names(st, c->old_bid, &names, &tops, &a, w->err)))
                goto done;
            if (c->new_bid && (rc = blob_names(st, c->new_bid, &names, &tops, &a, w->err)))
                goto done;
        }
        if (added || deleted)
            add_path_keys(&keys, &a, c->path);
        int32_t fi = lp_gv_file_of_path(v, c->path, strlen(c->path));
        if (fi >= 0)
            sels[fi].all = true;
        if (c->old_fid && (deleted || fi < 0 || v->files[fi].fid != c->old_fid))
            lp_vec_push(&gone, c->old_fid);
        lp_lang lo = blob_lang(st, c->old_bid), ln = blob_lang(st, c->new_bid);
        bool c_old = lp_gl_lang_is_c(lo), c_new = lp_gl_lang_is_c(ln);
        if (c_old || c_new) {
            if ((rc = include_sig(st, c->old_bid, &s1, w->err)) ||
                (rc = include_sig(st, c->new_bid, &s2, w->err)))
                goto done;
            bool changed = added || deleted || s1.len != s2.len || memcmp(s1.ptr, s2.ptr, s1.len);
            if (changed) {
                if (fi >= 0)
                    lp_vec_push(&c_roots, (uint32_t)fi);
                else if (c->old_fid) {
                    /* a deleted header: its includers are found through the old edges */
                    sqlite3_stmt *s;
                    if ((rc = lp_store_prepare(st,
                                               "SELECT DISTINCT src_fid FROM edges WHERE dst_fid = ?1"
                                               " AND kind = 1",
                                               &s, w->err)))
                        goto done;
                    sqlite3_bind_int64(s, 1, c->old_fid);
                    while (sqlite3_step(s) == SQLITE_ROW) {
                        int32_t src = lp_gv_file_of_fid(v, sqlite3_column_int64(s, 0));
                        if (src >= 0)
                            lp_vec_push(&c_roots, (uint32_t)src);
                    }
                    sqlite3_reset(s);
                }
            }
        }
    }
    /* subclassing closes N: a type whose bases name something in N joins it */
    for (int round = 0; round < 8 && !rc; round++) {
        size_t before = names.len;
        lp_map add = {0};
        for (size_t i = 0; i < names.cap; i++) {
            if (!names.slots[i].key)
                continue;
            sqlite3_stmt *s;
            if ((rc = lp_store_prepare(st,
                                       "SELECT s.name FROM refs r JOIN files f ON f.bid = r.bid"
                                       " JOIN symbols s ON s.bid = r.bid AND s.ord = r.owner"
                                       " WHERE r.name = ?1 AND r.kind = 3",
                                       &s, w->err)))
                break;
            sqlite3_bind_text(s, 1, names.slots[i].key, (int)names.slots[i].klen,
                              SQLITE_STATIC);
            while (sqlite3_step(s) == SQLITE_ROW)
                add_name(&add, &a, (const char *)sqlite3_column_text(s, 0),
                         (size_t)sqlite3_column_bytes(s, 0));
            sqlite3_reset(s);
        }
        for (size_t i = 0; i < add.cap; i++)
            if (add.slots[i].key) {
                add_name(&names, &a, add.slots[i].key, add.slots[i].klen);
                add_name(&tops, &a, add.slots[i].key, add.slots[i].klen);
            }
        lp_map_free(&add);
        if (names.len == before)
            break;
    }
    if (rc)
        goto done;
    /* path keys also match names and second keys (module aliases named after files) */
    for (size_t i = 0; i < keys.cap; i++)
        if (keys.slots[i].key) {
            add_name(&names, &a, keys.slots[i].key, keys.slots[i].klen);
            add_name(&tops, &a, keys.slots[i].key, keys.slots[i].klen);
        }
    if ((rc = mark_by_key(w, sels, 0, &names, &tops)) ||
        (rc = mark_by_key(w, sels, 1, &names, &tops)) ||
        (rc = mark_by_key(w, sels, 2, &keys, NULL)) || (rc = propagate_imports(w, sels)))
        goto done;
    /* C/C++: files including a changed include list, transitively, through import edges and
     * the include references that name an added or deleted file */
    for (size_t qi = 0; qi < c_roots.len && !rc; qi++) {
        uint32_t cur = c_roots.items[qi];
        sqlite3_stmt *s;
        if ((rc = lp_store_prepare(st,
                                   "SELECT DISTINCT src_fid FROM edges WHERE dst_fid = ?1 AND kind = 1",
                                   &s, w->err)))
            break;
        sqlite3_bind_int64(s, 1, v->files[cur].fid);
        while (sqlite3_step(s) == SQLITE_ROW) {
            int32_t src = lp_gv_file_of_fid(v, sqlite3_column_int64(s, 0));
            if (src >= 0 && !sels[src].all) {
                sels[src].all = true;
                lp_vec_push(&c_roots, (uint32_t)src);
            }
        }
        sqlite3_reset(s);
        sels[cur].all = true;
    }
    if (rc)
        goto done;
    /* files whose #include names an added or deleted file resolve everything again */
    if (keys.len) {
        for (size_t i = 0; i < v->nfiles; i++) {
            if (sels[i].all || !sels[i].bits.len ||
                !lp_gl_lang_is_c(v->files[i].lang))
                continue;
            const gblob *b = lp_gv_blob(v, (uint32_t)i, w->err);
            for (uint32_t k = 0; b && k < b->nsrefs; k++)
                if (b->srefs[k].kind == LP_REF_IMPORT && !b->srefs[k].name[0] &&
                    (size_t)b->srefs[k].ord < sels[i].bits.len && sels[i].bits.items[b->srefs[k].ord]) {
                    sels[i].all = true;
                    lp_vec_push(&c_roots, (uint32_t)i);
                    break;
                }
        }
        for (size_t qi = 0; qi < c_roots.len && !rc; qi++) {
            uint32_t cur = c_roots.items[qi];
            sqlite3_stmt *s;
            if ((rc = lp_store_prepare(st,
                                       "SELECT DISTINCT src_fid FROM edges WHERE dst_fid = ?1 AND kind = 1",
                                       &s, w->err)))
                break;
            sqlite3_bind_int64(s, 1, v->files[cur].fid);
            while (sqlite3_step(s) == SQLITE_ROW) {
                int32_t src = lp_gv_file_of_fid(v, sqlite3_column_int64(s, 0));
                if (src >= 0 && !sels[src].all) {
                    sels[src].all = true;
                    lp_vec_push(&c_roots, (uint32_t)src);
                }
            }
            sqlite3_reset(s);
        }
        if (rc)
            goto done;
    }

    /* drop what goes, then resolve again */
    for (size_t i = 0; i < gone.len && !rc; i++) {
        if ((rc = exec_fid(st, "DELETE FROM edges WHERE src_fid = ?1", gone.items[i], w->err)) ||
            (rc = exec_fid(st, "DELETE FROM notes WHERE src_fid = ?1", gone.items[i], w->err)))
            break;
        rc = exec_fid(st, "DELETE FROM edges WHERE dst_fid = ?1", gone.items[i], w->err);
    }
    /* delete the edges of what is resolved again, then move the edges into symbols that
     * only changed ord (through a negative range: the primary key must stay unique) */
    for (size_t i = 0; i < v->nfiles && !rc; i++) {
        sel *x = &sels[i];
        if (!x->all && !x->bits.len)
            continue;
        if (x->all) {
            if (!(rc = exec_fid(st, "DELETE FROM edges WHERE src_fid = ?1", v->files[i].fid, w->err)))
                rc = exec_fid(st, "DELETE FROM notes WHERE src_fid = ?1", v->files[i].fid, w->err);
            continue;
        }
        for (size_t k = 0; k < x->bits.len && !rc; k++) {
            if (!x->bits.items[k])
                continue;
            sqlite3_stmt *s;
            for (int t = 0; t < 2 && !rc; t++) {
                if ((rc = lp_store_prepare(st,
                                           t ? "DELETE FROM notes WHERE src_fid = ?1 AND ref_ord = ?2"
                                             : "DELETE FROM edges WHERE src_fid = ?1 AND ref_ord = ?2",
                                           &s, w->err)))
                    break;
                sqlite3_bind_int64(s, 1, v->files[i].fid);
                sqlite3_bind_int(s, 2, (int)k);
                if (sqlite3_step(s) != SQLITE_DONE)
                    rc = lp_store_sql_error(st, "updating edges", w->err);
                sqlite3_reset(s);
            }
        }
    }
    for (size_t i = 0; i < remaps.len && !rc; i++) {
        sqlite3_stmt *s;
        if ((rc = lp_store_prepare(st,
                                   "UPDATE edges SET dst_ord = -2 - ?3 WHERE dst_fid = ?1 AND"
                                   " dst_ord = ?2",
                                   &s, w->err)))
            break;
        sqlite3_bind_int64(s, 1, remaps.items[i].fid);
        sqlite3_bind_int(s, 2, remaps.items[i].from);
        sqlite3_bind_int(s, 3, remaps.items[i].to);
        if (sqlite3_step(s) != SQLITE_DONE)
            rc = lp_store_sql_error(st, "moving edges", w->err);
        sqlite3_reset(s);
        if (!rc && (i + 1 == remaps.len || remaps.items[i + 1].fid != remaps.items[i].fid))
            rc = exec_fid(st, "UPDATE edges SET dst_ord = -2 - dst_ord WHERE dst_fid = ?1 AND"
                              " dst_ord <= -2",
                          remaps.items[i].fid, w->err);
    }
    for (size_t i = 0; i < v->nfiles && !rc; i++) {
        sel *x = &sels[i];
        if (!x->all && !x->bits.len)
            continue;
        w->stats->files_affected++;
        resolve_file(w, (uint32_t)i, x->bits.items, x->bits.len, x->all);
        rc = w->rc;
    }
done:
    for (size_t i = 0; i < v->nfiles; i++)
        lp_vec_free(&sels[i].bits);
    free(sels);
    lp_map_free(&names);
    lp_map_free(&tops);
    lp_map_free(&keys);
    lp_vec_free(&remaps);
    lp_buf_release(&s1);
    lp_buf_release(&s2);
    lp_vec_free(&c_roots);
    lp_vec_free(&gone);
    lp_arena_release(&a);
    return rc;
}

lp_status lp_graph_update(lp_store *st, const lp_graph_change *changes, size_t nchanges,
                          bool full, lp_graph_stats *stats, lp_error *err)
{
    lp_graph_stats local;
    if (!stats)
        stats = &local;
    memset(stats, 0, sizeof *stats);
    uint64_t t0 = lp_now_ns();
    /* after lp_graph_evidence_bulk_begin: one sorted build (a no-op when they exist) */
    lp_status irc = lp_store_bulk_indexes_build(st, LP_STORE_IX_REFS, err);
    if (irc)
        return irc;
    if (lp_setting_bool(LP_SET_TEST_NO_GRAPH))
        return lp_store_exec(st, "DELETE FROM edges; DELETE FROM notes;", err);
    if (lp_setting_bool(LP_SET_TEST_GRAPH_FULL))
        full = true;
    if (!full && nchanges == 0)
        return LP_OK;
    gview v;
    lp_status rc = lp_gv_open(&v, st, full, err);
    writer w = {st, &v, stats, LP_OK, err};
    if (!rc && !full) {
        bool need_full = false;
        rc = incremental(&w, changes, nchanges, &need_full);
        if (!rc && need_full) {
            lp_gv_close(&v);
            memset(stats, 0, sizeof *stats);
            if (!(rc = lp_gv_open(&v, st, true, err))) {
                w.v = &v;
                full = true;
            }
        }
    }
    if (!rc && full) {
        stats->full = true;
        rc = full_rebuild(&w);
    }
    lp_gv_close(&v);
    stats->ms = (lp_now_ns() - t0) / 1000000;
    lp_log(rc ? LP_LOG_WARN : LP_LOG_INFO, "graph.update",
           "full=%d files=%llu refs=%llu edges=%llu ambiguous=%llu unresolved=%llu ms=%llu",
           stats->full ? 1 : 0, (unsigned long long)stats->files_affected,
           (unsigned long long)stats->refs_resolved, (unsigned long long)stats->edges,
           (unsigned long long)stats->ambiguous, (unsigned long long)stats->unresolved,
           (unsigned long long)stats->ms);
    return rc;
}

lp_status lp_graph_dump(lp_store *st, lp_buf *out, lp_error *err)
{
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(
        st,
        "SELECT fs.path, coalesce(ss.qname, '-'), coalesce(ss.ordinal, 0), fd.path,"
        " coalesce(sd.qname, '-'), coalesce(sd.ordinal, 0), e.kind, e.rule, e.ref_ord"
        " FROM edges e JOIN files fs ON fs.fid = e.src_fid JOIN files fd ON fd.fid = e.dst_fid"
        " LEFT JOIN symbols ss ON ss.bid = fs.bid AND ss.ord = e.src_ord"
        " LEFT JOIN symbols sd ON sd.bid = fd.bid AND sd.ord = e.dst_ord",
        &s, err);
    if (rc)
        return rc;
    LP_VEC(char *) lines = {0};
    int step;
    lp_buf line;
    lp_buf_init(&line, 0);
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        lp_buf_reset(&line);
        lp_buf_printf(&line, "%s:%s", (const char *)sqlite3_column_text(s, 0),
                      (const char *)sqlite3_column_text(s, 1));
        if (sqlite3_column_int(s, 2))
            lp_buf_printf(&line, "#%d", sqlite3_column_int(s, 2));
        lp_buf_printf(&line, " -> %s:%s", (const char *)sqlite3_column_text(s, 3),
                      (const char *)sqlite3_column_text(s, 4));
        if (sqlite3_column_int(s, 5))
            lp_buf_printf(&line, "#%d", sqlite3_column_int(s, 5));
        lp_buf_printf(&line, " %s %s ref=%d\n",
                      lp_edge_kind_name((lp_edge_kind)sqlite3_column_int(s, 6)),
                      lp_gr_rule_name((gr_rule)sqlite3_column_int(s, 7)), sqlite3_column_int(s, 8));
        lp_vec_push(&lines, lp_xstrdup(line.ptr));
    }
    sqlite3_reset(s);
    /* the notes (unresolved / ambiguous call outcomes) */
    if (step == SQLITE_DONE &&
        !(rc = lp_store_prepare(st,
                                "SELECT fs.path, coalesce(ss.qname, '-'), coalesce(ss.ordinal, 0),"
                                " e.kind, e.value, e.value, e.ref_ord FROM notes e JOIN files fs"
                                " ON fs.fid = e.src_fid LEFT JOIN symbols ss ON ss.bid = fs.bid AND"
                                " ss.ord = e.src_ord",
                                &s, err))) {
        while ((step = sqlite3_step(s)) == SQLITE_ROW) {
            lp_buf_reset(&line);
            lp_buf_printf(&line, "%s:%s", (const char *)sqlite3_column_text(s, 0),
                          (const char *)sqlite3_column_text(s, 1));
            if (sqlite3_column_int(s, 2))
                lp_buf_printf(&line, "#%d", sqlite3_column_int(s, 2));
            if (sqlite3_column_int(s, 3) == GE_NOTE_UNRESOLVED)
                lp_buf_printf(&line, " unresolved %s ref=%d\n",
                              lp_gr_reason_name((gr_reason)sqlite3_column_int(s, 5)),
                              sqlite3_column_int(s, 6));
            else
                lp_buf_printf(&line, " ambiguous candidates=%d ref=%d\n",
                              sqlite3_column_int(s, 4), sqlite3_column_int(s, 6));
            lp_vec_push(&lines, lp_xstrdup(line.ptr));
        }
        sqlite3_reset(s);
    }
    lp_buf_release(&line);
    if (lines.len > 1)
        qsort(lines.items, lines.len, sizeof(char *), str_cmp);
    for (size_t i = 0; i < lines.len; i++) {
        lp_buf_puts(out, lines.items[i]);
        free(lines.items[i]);
    }
    lp_vec_free(&lines);
    if (rc)
        return rc;
    return step == SQLITE_DONE ? LP_OK : lp_store_sql_error(st, "reading edges", err);
}
