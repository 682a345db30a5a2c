/*
 * view.c: the publication as the resolver sees it.
 *
 * Files are loaded at once (sorted by path: a file's index is its rank by path, so every
 * order derived from indexes is the same in any database holding the same files); a
 * blob's symbols and structural references are loaded on first use; names resolve to
 * symbols either from one bulk read (full rebuilds) or one indexed query per name
 * (incremental rebuilds and the tools). Both give the same lists, sorted by (file, ord).
 *
 * Everything lives in the view's arena or its vectors; lp_gv_close frees it all.
 */
#include "graph/graph_int.h"

#include <stdlib.h>

/* Append v to the list stored under key (a new list when the key is new). */
static void u32_list_add(lp_map *m, lp_arena *a, u32_lists *lists, const char *k, size_t klen,
                         uint32_t v)
{
    bool created = false;
    uint32_t *slot = lp_map_put(m, a, k, klen, &created);
    if (created) {
        *slot = (uint32_t)lists->len;
        u32_vec empty = {0};
        lp_vec_push(lists, empty);
    }
    lp_vec_push(&lists->items[*slot], v);
}

static void pair_list_add(lp_map *m, lp_arena *a, pair_lists *lists, const char *k, size_t klen,
                          gpair v)
{
    bool created = false;
    uint32_t *slot = lp_map_put(m, a, k, klen, &created);
    if (created) {
        *slot = (uint32_t)lists->len;
        gpair_vec empty = {0};
        lp_vec_push(lists, empty);
    }
    lp_vec_push(&lists->items[*slot], v);
}

/* ------------------------------------------------------------------------------------------
 * Open / close. */

static lp_lang lang_of_col(int v)
{
    return v >= 0 && v < LP_LANG_COUNT ? (lp_lang)v : LP_LANG_TEXT;
}

static int pair_cmp(const void *a, const void *b)
{
    const gpair *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return (x->ord > y->ord) - (x->ord < y->ord);
}

lp_status lp_gv_open(gview *v, lp_store *st, bool preload, lp_error *err)
{
    memset(v, 0, sizeof *v);
    v->st = st;
    lp_arena_init(&v->arena, 0);
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(st,
                                    "SELECT f.fid, f.path, f.bid, b.lang FROM files f"
                                    " JOIN blobs b USING(bid) ORDER BY f.path",
                                    &s, err);
    if (rc)
        return rc;
    LP_VEC(gfile) files = {0};
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        gfile *f = lp_vec_push_zero(&files);
        f->fid = sqlite3_column_int64(s, 0);
        f->path = lp_arena_strdup(&v->arena, (const char *)sqlite3_column_text(s, 1));
        f->bid = sqlite3_column_int64(s, 2);
        f->lang = lang_of_col(sqlite3_column_int(s, 3));
        f->blob = -1;
        f->crate = -1;
        lp_str dir = lp_path_dirname(lp_str_c(f->path));
        f->dir = lp_arena_strndup(&v->arena, dir.ptr ? dir.ptr : "", dir.len);
        if (f->fid > v->max_fid)
            v->max_fid = f->fid;
    }
    sqlite3_reset(s);
    if (step != SQLITE_DONE) {
        lp_vec_free(&files);
        return lp_store_sql_error(st, "reading the files of the publication", err);
    }
    v->files = files.items;
    v->nfiles = files.len;
    v->by_fid = lp_xmalloc(lp_mul_size((size_t)v->max_fid + 1, sizeof(int32_t)));
    for (int64_t i = 0; i <= v->max_fid; i++)
        v->by_fid[i] = -1;
    for (size_t i = 0; i < v->nfiles; i++)
        v->by_fid[v->files[i].fid] = (int32_t)i;
    if (!preload)
        return LP_OK;
    v->preloaded = true;
    if ((rc = lp_store_prepare(st,
                               "SELECT f.fid, s.ord, s.name FROM files f JOIN symbols s USING(bid)",
                               &s, err)))
        return rc;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        int32_t fi = lp_gv_file_of_fid(v, sqlite3_column_int64(s, 0));
        if (fi < 0)
            continue;
        gpair p = {(uint32_t)fi, sqlite3_column_int(s, 1)};
        const char *name = (const char *)sqlite3_column_text(s, 2);
        pair_list_add(&v->names, &v->arena, &v->name_lists, name ? name : "",
                      (size_t)sqlite3_column_bytes(s, 2), p);
    }
    sqlite3_reset(s);
    if (step != SQLITE_DONE)
        return lp_store_sql_error(st, "reading symbol names", err);
    for (size_t i = 0; i < v->name_lists.len; i++) {
        gpair_vec *l = &v->name_lists.items[i];
        if (l->len > 1)
            qsort(l->items, l->len, sizeof l->items[0], pair_cmp);
    }
    return LP_OK;
}

void lp_gv_close(gview *v)
{
    free(v->files);
    free(v->by_fid);
    lp_map_free(&v->by_stem);
    lp_map_free(&v->by_dir);
    lp_map_free(&v->blob_of);
    lp_map_free(&v->names);
    lp_map_free(&v->closures);
    lp_map_free(&v->mod_cache);
    lp_map_free(&v->rust_modules);
    for (size_t i = 0; i < v->mod_lists.len; i++)
        lp_vec_free(&v->mod_lists.items[i]);
    lp_vec_free(&v->mod_lists);
    for (size_t i = 0; i < v->stem_lists.len; i++)
        lp_vec_free(&v->stem_lists.items[i]);
    lp_vec_free(&v->stem_lists);
    for (size_t i = 0; i < v->dir_lists.len; i++)
        lp_vec_free(&v->dir_lists.items[i]);
    lp_vec_free(&v->dir_lists);
    for (size_t i = 0; i < v->name_lists.len; i++)
        lp_vec_free(&v->name_lists.items[i]);
    lp_vec_free(&v->name_lists);
    for (size_t i = 0; i < v->closure_lists.len; i++) {
        lp_vec_free(v->closure_lists.items[i]);
        free(v->closure_lists.items[i]);
    }
    lp_vec_free(&v->closure_lists);
    lp_vec_free(&v->blobs);
    lp_vec_free(&v->gomod_dirs);
    lp_vec_free(&v->gomod_paths);
    lp_vec_free(&v->crate_dirs);
    lp_vec_free(&v->crate_names);
    lp_arena_release(&v->arena);
    memset(v, 0, sizeof *v);
}

int32_t lp_gv_file_of_fid(const gview *v, int64_t fid)
{
    if (fid < 0 || fid > v->max_fid || !v->by_fid)
        return -1;
    return v->by_fid[fid];
}

/* The folder and stem maps are built on first use (the tools often need none). */
static void build_maps(gview *v)
{
    if (v->maps_built)
        return;
    v->maps_built = true;
    for (size_t i = 0; i < v->nfiles; i++) {
        gfile *f = &v->files[i];
        lp_str base = lp_path_basename(lp_str_c(f->path));
        lp_str ext = lp_path_ext(base);
        u32_list_add(&v->by_stem, &v->arena, &v->stem_lists, base.ptr, base.len - ext.len,
                     (uint32_t)i);
        u32_list_add(&v->by_dir, &v->arena, &v->dir_lists, f->dir, strlen(f->dir),
                     (uint32_t)i);
    }
}

/* v->files is in path order (lp_gv_open: ORDER BY path, SQLite's bytewise order), so one
 * binary search finds a path without building the maps (an incremental update needs only
 * this lookup, for a handful of paths). */
int32_t lp_gv_file_of_path(gview *v, const char *path, size_t len)
{
    size_t lo = 0, hi = v->nfiles;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *fp = v->files[mid].path;
        int c = strncmp(fp, path, len);
        if (c == 0 && fp[len])
            c = 1; /* fp extends path: it sorts after it */
        if (c == 0)
            return (int32_t)mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

const u32_vec *lp_gv_dir_files(gview *v, const char *dir, size_t len)
{
    build_maps(v);
    uint32_t *p = lp_map_get(&v->by_dir, dir, len);
    return p ? &v->dir_lists.items[*p] : NULL;
}

const u32_vec *lp_gv_stem_files(gview *v, const char *stem, size_t len)
{
    build_maps(v);
    uint32_t *p = lp_map_get(&v->by_stem, stem, len);
    return p ? &v->stem_lists.items[*p] : NULL;
}

lp_map *lp_gv_dir_map(gview *v)
{
    build_maps(v);
    return &v->by_dir;
}

/* ------------------------------------------------------------------------------------------
 * Blobs. */

static const char *col_str(gview *v, sqlite3_stmt *s, int i)
{
    const char *t = (const char *)sqlite3_column_text(s, i);
    return t && *t ? lp_arena_strdup(&v->arena, t) : "";
}

#define REF_COLS                                                                               \
    "ord, kind, owner, name, qual, alias, rtype, args, nargs, flags, start_line, end_line,"    \
    " start_byte, end_byte"

static void read_ref(gview *v, lp_arena *a, sqlite3_stmt *s, gref *r)
{
    r->ord = sqlite3_column_int(s, 0);
    r->kind = (uint8_t)sqlite3_column_int(s, 1);
    r->owner = sqlite3_column_int(s, 2);
    const char *cols[5];
    for (int i = 0; i < 5; i++) {
        const char *t = (const char *)sqlite3_column_text(s, 3 + i);
        cols[i] = t && *t ? lp_arena_strdup(a, t) : "";
    }
    r->name = cols[0];
    r->qual = cols[1];
    r->alias = cols[2];
    r->rtype = cols[3];
    r->args = cols[4];
    r->nargs = sqlite3_column_int(s, 8);
    r->flags = (uint32_t)sqlite3_column_int64(s, 9);
    r->start_line = (uint32_t)sqlite3_column_int64(s, 10);
    r->end_line = (uint32_t)sqlite3_column_int64(s, 11);
    r->start_byte = (uint32_t)sqlite3_column_int64(s, 12);
    r->end_byte = (uint32_t)sqlite3_column_int64(s, 13);
    (void)v;
}

const gblob *lp_gv_blob(gview *v, uint32_t file, lp_error *err)
{
    gfile *f = &v->files[file];
    if (f->blob >= 0)
        return v->blobs.items[f->blob];
    char key[24];
    int kl = snprintf(key, sizeof key, "%lld", (long long)f->bid);
    uint32_t *have = lp_map_get(&v->blob_of, key, (size_t)kl);
    if (have) {
        f->blob = (int32_t)*have;
        return v->blobs.items[*have];
    }
    sqlite3_stmt *s;
    if (lp_store_prepare(v->st,
                         "SELECT name, qname, parent, ordinal, kind, vis, flags, start_line,"
                         " end_line, start_byte, end_byte FROM symbols WHERE bid = ?1 ORDER BY ord",
                         &s, err))
        return NULL;
    sqlite3_bind_int64(s, 1, f->bid);
    LP_VEC(gsym) syms = {0};
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        gsym *y = lp_vec_push_zero(&syms);
        y->name = col_str(v, s, 0);
        y->qname = col_str(v, s, 1);
        y->parent = sqlite3_column_int(s, 2);
        y->ordinal = (uint32_t)sqlite3_column_int64(s, 3);
        y->kind = (uint16_t)sqlite3_column_int(s, 4);
        y->vis = (uint8_t)sqlite3_column_int(s, 5);
        y->flags = (uint32_t)sqlite3_column_int64(s, 6);
        y->start_line = (uint32_t)sqlite3_column_int64(s, 7);
        y->end_line = (uint32_t)sqlite3_column_int64(s, 8);
        y->start_byte = (uint32_t)sqlite3_column_int64(s, 9);
        y->end_byte = (uint32_t)sqlite3_column_int64(s, 10);
    }
    sqlite3_reset(s);
    if (step != SQLITE_DONE) {
        lp_vec_free(&syms);
        lp_store_sql_error(v->st, "reading symbols", err);
        return NULL;
    }
    if (lp_store_prepare(v->st,
                         "SELECT " REF_COLS " FROM refs WHERE bid = ?1 AND kind IN (2, 3, 4)"
                         " ORDER BY ord",
                         &s, err)) {
        lp_vec_free(&syms);
        return NULL;
    }
    sqlite3_bind_int64(s, 1, f->bid);
    LP_VEC(gref) refs = {0};
    while ((step = sqlite3_step(s)) == SQLITE_ROW)
        read_ref(v, &v->arena, s, lp_vec_push_zero(&refs));
    sqlite3_reset(s);
    if (step != SQLITE_DONE) {
        lp_vec_free(&syms);
        lp_vec_free(&refs);
        lp_store_sql_error(v->st, "reading references", err);
        return NULL;
    }
    gblob *b = lp_arena_zalloc(&v->arena, sizeof *b);
    lp_vec_push(&v->blobs, b);
    b->bid = f->bid;
    b->nsyms = (uint32_t)syms.len;
    b->syms = lp_arena_alloc(&v->arena, (syms.len ? syms.len : 1) * sizeof(gsym));
    if (syms.len)
        memcpy(b->syms, syms.items, syms.len * sizeof(gsym));
    b->nsrefs = (uint32_t)refs.len;
    b->srefs = lp_arena_alloc(&v->arena, (refs.len ? refs.len : 1) * sizeof(gref));
    if (refs.len)
        memcpy(b->srefs, refs.items, refs.len * sizeof(gref));
    lp_vec_free(&syms);
    lp_vec_free(&refs);
    f->blob = (int32_t)(v->blobs.len - 1);
    *lp_map_put(&v->blob_of, &v->arena, key, (size_t)kl, NULL) = (uint32_t)f->blob;
    return b;
}

lp_status lp_gv_all_refs(gview *v, int64_t bid, lp_arena *arena, gref **out, size_t *n,
                      lp_error *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(v->st, "SELECT " REF_COLS " FROM refs WHERE bid = ?1 ORDER BY ord",
                                    &s, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, bid);
    LP_VEC(gref) refs = {0};
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW)
        read_ref(v, arena, s, lp_vec_push_zero(&refs));
    sqlite3_reset(s);
    if (step != SQLITE_DONE) {
        lp_vec_free(&refs);
        return lp_store_sql_error(v->st, "reading references", err);
    }
    *out = lp_arena_alloc(arena, (refs.len ? refs.len : 1) * sizeof(gref));
    if (refs.len)
        memcpy(*out, refs.items, refs.len * sizeof(gref));
    *n = refs.len;
    lp_vec_free(&refs);
    return LP_OK;
}

lp_status lp_gv_lookup(gview *v, const char *name, size_t len, const gpair **out, size_t *n,
                    lp_error *err)
{
    *out = NULL;
    *n = 0;
    uint32_t *have = lp_map_get(&v->names, name, len);
    if (have) {
        *out = v->name_lists.items[*have].items;
        *n = v->name_lists.items[*have].len;
        return LP_OK;
    }
    if (v->preloaded || !len)
        return LP_OK;
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(v->st,
                                    "SELECT f.fid, s.ord FROM symbols s JOIN files f ON f.bid = s.bid"
                                    " WHERE s.name = ?1",
                                    &s, err);
    if (rc)
        return rc;
    sqlite3_bind_text(s, 1, name, (int)len, SQLITE_STATIC);
    bool created = false;
    uint32_t *slot = lp_map_put(&v->names, &v->arena, name, len, &created);
    lp_vec_reserve(&v->name_lists, v->name_lists.len + 1);
    memset(&v->name_lists.items[v->name_lists.len], 0, sizeof v->name_lists.items[0]);
    *slot = (uint32_t)v->name_lists.len++;
    gpair_vec *l = &v->name_lists.items[*slot];
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        int32_t fi = lp_gv_file_of_fid(v, sqlite3_column_int64(s, 0));
        if (fi >= 0)
            lp_vec_push(l, ((gpair){(uint32_t)fi, sqlite3_column_int(s, 1)}));
    }
    sqlite3_reset(s);
    if (step != SQLITE_DONE)
        return lp_store_sql_error(v->st, "looking up a name", err);
    if (l->len > 1)
        qsort(l->items, l->len, sizeof l->items[0], pair_cmp);
    *out = l->items;
    *n = l->len;
    return LP_OK;
}

lp_status lp_gv_content(gview *v, int64_t bid, lp_buf *out, lp_error *err)
{
    lp_status rc = lp_store_content_get(v->st, bid, out, err);
    if (rc == LP_ENOENT) {
        lp_buf_reset(out); /* no content: nothing to read, not an error here */
        lp_error_clear(err);
        rc = LP_OK;
    }
    return rc;
}

const gsym *lp_gv_sym(gview *v, gpair p)
{
    const gblob *b = lp_gv_blob(v, p.file, NULL);
    if (!b || p.ord < 0 || (uint32_t)p.ord >= b->nsyms)
        return NULL;
    return &b->syms[p.ord];
}

bool lp_gv_sym_qname_is(gview *v, gpair p, const char *qname, int *kind)
{
    gfile *f = &v->files[p.file];
    /* A full build resolves every file: nearly every blob gets loaded anyway, and then a
     * check is a memory compare; one row per check would cost more in total. */
    if (f->blob >= 0 || v->preloaded) {
        const gsym *s = lp_gv_sym(v, p);
        if (s)
            *kind = s->kind;
        return s && !strcmp(s->qname, qname);
    }
    sqlite3_stmt *s;
    if (p.ord < 0 ||
        lp_store_prepare(v->st, "SELECT qname, kind FROM symbols WHERE bid = ?1 AND ord = ?2",
                         &s, NULL))
        return false;
    sqlite3_bind_int64(s, 1, f->bid);
    sqlite3_bind_int(s, 2, p.ord);
    bool same = false;
    if (sqlite3_step(s) == SQLITE_ROW) {
        const char *q = (const char *)sqlite3_column_text(s, 0);
        same = q && !strcmp(q, qname);
        *kind = sqlite3_column_int(s, 1);
    }
    sqlite3_reset(s);
    return same;
}

bool lp_gv_is_type_kind(int k)
{
    switch (k) {
    case LP_SYM_CLASS:
    case LP_SYM_STRUCT:
    case LP_SYM_INTERFACE:
    case LP_SYM_TRAIT:
    case LP_SYM_ENUM:
    case LP_SYM_RECORD:
    case LP_SYM_UNION:
    case LP_SYM_OBJECT:
        return true;
    default:
        return false;
    }
}

bool lp_gv_is_callable_kind(int k)
{
    return k == LP_SYM_FUNCTION || k == LP_SYM_METHOD || k == LP_SYM_CONSTRUCTOR ||
           k == LP_SYM_MACRO;
}

/* ------------------------------------------------------------------------------------------
 * Derived facts. */

static bool has_component(const char *path, const char *const *names)
{
    lp_str p = lp_str_c(path);
    size_t start = 0;
    for (size_t i = 0; i <= p.len; i++) {
        if (i == p.len || p.ptr[i] == '/') {
            if (i > start) {
                lp_str comp = lp_str_sub(p, start, i);
                for (const char *const *n = names; *n; n++)
                    if (lp_str_eq_c(comp, *n))
                        return i < p.len; /* a folder, not the file itself */
            }
            start = i + 1;
        }
    }
    return false;
}

static bool path_is_test(const gfile *f);

bool lp_gv_is_test_path(const char *path, lp_lang lang)
{
    gfile f;
    memset(&f, 0, sizeof f);
    f.path = path;
    f.lang = lang;
    return path_is_test(&f);
}

static bool path_is_test(const gfile *f)
{
    static const char *const dirs[] = {"test", "tests", "__tests__", "spec", "specs",
                                       "testdata", NULL};
    if (has_component(f->path, dirs))
        return true;
    /* by name: the language's convention (lp_lang_ops.test_stem) */
    const lp_lang_ops *ops = lp_lang_ops_for(f->lang);
    if (!ops->test_stem)
        return false;
    lp_str base = lp_path_basename(lp_str_c(f->path));
    lp_str ext = lp_path_ext(base);
    return ops->test_stem(lp_str_sub(base, 0, base.len - ext.len));
}

void lp_gv_derive(gview *v, uint32_t file)
{
    gfile *f = &v->files[file];
    if (f->derived)
        return;
    f->derived = true;
    f->pkg = "";
    f->module = "";
    f->is_test = path_is_test(f);
    const gblob *b = lp_gv_blob(v, file, NULL);
    if (b) {
        for (uint32_t i = 0; i < b->nsyms; i++) {
            const gsym *s = &b->syms[i];
            if (s->parent >= 0)
                continue;
            if (s->kind == LP_SYM_PACKAGE) {
                f->pkg = gl_has(f->lang, LP_LANGG_PACKAGE_BY_NAME) ? s->name : s->qname;
                break;
            }
            if (s->kind == LP_SYM_NAMESPACE && gl_has(f->lang, LP_LANGG_NAMESPACE_IS_PACKAGE)) {
                f->pkg = s->qname;
                break;
            }
        }
    }
    const lp_lang_ops *ops = lp_lang_ops_for(f->lang);
    if (!ops->module_path)
        return;
    if (ops->modules != LP_MODSYS_RUST) { /* the module path is the file's */
        lp_buf m;
        lp_buf_init(&m, 0);
        ops->module_path(lp_str_c(f->path), &m);
        f->module = lp_arena_strndup(&v->arena, m.ptr ? m.ptr : "", m.len);
        lp_buf_release(&m);
    } else {
        lp_gv_load_modules(v);
        /* crate: the longest crate directory containing the file */
        size_t best = 0;
        int32_t crate = -1;
        for (size_t i = 0; i < v->crate_dirs.len; i++) {
            lp_str d = lp_str_c(v->crate_dirs.items[i]);
            lp_str rel;
            if ((d.len == 0 || lp_path_under(d, lp_str_c(f->path), &rel)) && d.len + 1 > best) {
                best = d.len + 1;
                crate = (int32_t)i;
            }
        }
        f->crate = crate;
        lp_str root = crate >= 0 ? lp_str_c(v->crate_dirs.items[crate]) : LP_STR("");
        lp_str rel = lp_str_c(f->path);
        if (root.len)
            rel = lp_str_sub(rel, root.len + 1, rel.len);
        /* the module path within the crate (lang_rust.c) */
        lp_buf m;
        lp_buf_init(&m, 0);
        ops->module_path(rel, &m);
        f->module = lp_arena_strndup(&v->arena, m.ptr, m.len);
        lp_buf_release(&m);
    }
}

/* go.mod module lines and Cargo.toml package names. */
void lp_gv_load_modules(gview *v)
{
    if (v->modules_loaded)
        return;
    v->modules_loaded = true;
    lp_buf buf;
    lp_buf_init(&buf, (size_t)1 << 20);
    for (size_t i = 0; i < v->nfiles; i++) {
        const gfile *f = &v->files[i];
        lp_str base = lp_path_basename(lp_str_c(f->path));
        bool gomod = lp_str_eq_c(base, "go.mod"), cargo = lp_str_eq_c(base, "Cargo.toml");
        if (!gomod && !cargo)
            continue;
        if (lp_gv_content(v, f->bid, &buf, NULL) || buf.err)
            continue;
        lp_str text = lp_buf_str(&buf);
        lp_str name = LP_STR("");
        bool in_package = !cargo;
        size_t pos = 0;
        while (pos < text.len) {
            size_t eol = lp_str_find_char(text, '\n', pos);
            if (eol == SIZE_MAX)
                eol = text.len;
            lp_str line = lp_str_trim(lp_str_sub(text, pos, eol));
            pos = eol + 1;
            if (gomod && lp_str_starts_with(line, LP_STR("module "))) {
                name = lp_str_trim(lp_str_sub(line, 7, line.len));
                name = lp_str_sub(name, name.len && name.ptr[0] == '"' ? 1 : 0,
                                  name.len && name.ptr[name.len - 1] == '"' ? name.len - 1
                                                                            : name.len);
                break;
            }
            if (cargo) {
                if (line.len && line.ptr[0] == '[')
                    in_package = lp_str_eq_c(line, "[package]");
                else if (in_package && lp_str_starts_with(line, LP_STR("name"))) {
                    size_t q1 = lp_str_find_char(line, '"', 0);
                    size_t q2 = q1 == SIZE_MAX ? SIZE_MAX : lp_str_find_char(line, '"', q1 + 1);
                    if (q2 != SIZE_MAX) {
                        name = lp_str_sub(line, q1 + 1, q2);
                        break;
                    }
                }
            }
        }
        char *dir = lp_arena_strdup(&v->arena, f->dir);
        char *nm = lp_arena_strndup(&v->arena, name.ptr, name.len);
        if (gomod) {
            if (!name.len)
                continue;
            lp_vec_push(&v->gomod_dirs, dir);
            lp_vec_push(&v->gomod_paths, nm);
        } else {
            for (char *c = nm; *c; c++)
                if (*c == '-')
                    *c = '_';
            lp_vec_push(&v->crate_dirs, dir);
            lp_vec_push(&v->crate_names, nm);
        }
    }
    lp_buf_release(&buf);
}
