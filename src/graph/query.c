/*
 * query.c: reading helpers shared by the tools: symbols by id or by (file, ord), their
 * JSON form, argument access, warnings, capability notes.
 *
 * Ids: symbols are "sym:" ids (see store.h); a file itself (edge endpoint ord -1) is
 * "file:<relative path>".
 */
#include "graph/graph_int.h"

#define SYM_SELECT                                                                             \
    "SELECT f.fid, f.bid, f.path, b.lang, s.ord, s.name, s.qname, s.kind, s.parent,"           \
    " s.ordinal, s.flags, s.start_line, s.end_line, s.start_byte, s.end_byte"                  \
    " FROM files f JOIN symbols s ON s.bid = f.bid JOIN blobs b ON b.bid = f.bid"

static void read_sym(sqlite3_stmt *s, lp_arena *a, gq_sym *o)
{
    memset(o, 0, sizeof *o);
    o->fid = sqlite3_column_int64(s, 0);
    o->bid = sqlite3_column_int64(s, 1);
    o->path = lp_arena_strdup(a, (const char *)sqlite3_column_text(s, 2));
    o->lang = (lp_lang)sqlite3_column_int(s, 3);
    o->ord = sqlite3_column_int(s, 4);
    o->name = lp_arena_strdup(a, (const char *)sqlite3_column_text(s, 5));
    o->qname = lp_arena_strdup(a, (const char *)sqlite3_column_text(s, 6));
    o->kind = sqlite3_column_int(s, 7);
    o->parent = sqlite3_column_int(s, 8);
    uint32_t ordinal = (uint32_t)sqlite3_column_int64(s, 9);
    o->flags = (uint32_t)sqlite3_column_int64(s, 10);
    o->start_line = (uint32_t)sqlite3_column_int64(s, 11);
    o->end_line = (uint32_t)sqlite3_column_int64(s, 12);
    o->start_byte = (uint32_t)sqlite3_column_int64(s, 13);
    o->end_byte = (uint32_t)sqlite3_column_int64(s, 14);
    lp_symbol_id_format(lp_symbol_path_hash(lp_str_c(o->path)),
                        lp_symbol_key(lp_str_c(o->qname), o->kind, ordinal), o->id);
}

static lp_status file_node(lp_store *st, const char *path, int64_t fid, lp_arena *arena,
                           gq_sym *out, lp_error *err)
{
    sqlite3_stmt *s;
    lp_status rc = path ? lp_store_prepare(st,
                                           "SELECT f.fid, f.bid, f.path, b.lang FROM files f"
                                           " JOIN blobs b USING(bid) WHERE f.path = ?1",
                                           &s, err)
                        : lp_store_prepare(st,
                                           "SELECT f.fid, f.bid, f.path, b.lang FROM files f"
                                           " JOIN blobs b USING(bid) WHERE f.fid = ?1",
                                           &s, err);
    if (rc)
        return rc;
    if (path)
        sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC);
    else
        sqlite3_bind_int64(s, 1, fid);
    if (sqlite3_step(s) == SQLITE_ROW) {
        memset(out, 0, sizeof *out);
        out->fid = sqlite3_column_int64(s, 0);
        out->bid = sqlite3_column_int64(s, 1);
        out->path = lp_arena_strdup(arena, (const char *)sqlite3_column_text(s, 2));
        out->lang = (lp_lang)sqlite3_column_int(s, 3);
        out->ord = -1;
        out->parent = -1;
        out->name = out->path;
        out->qname = out->path;
        out->kind = -1;
        snprintf(out->id, sizeof out->id, "file");
    } else {
        rc = lp_error_set(err, LP_ENOENT,
                          "%s is not in the current publication; check the path (relative to the "
                          "codebase root) or sync the index",
                          path ? path : "that file");
    }
    sqlite3_reset(s);
    return rc;
}

lp_status lp_gq_check_rel_arg(const char *what, const char *p, size_t len, lp_error *err)
{
    if (len != strlen(p))
        return lp_error_set(err, LP_EPATH, "%s contains a NUL byte; paths with NUL are refused",
                            what);
    if (len > LP_PATH_MAX)
        return lp_error_set(err, LP_EPATH, "%s is longer than %d bytes", what, LP_PATH_MAX);
    if (p[0] == '/')
        return lp_error_set(err, LP_EPATH,
                            "%s '%s' is absolute; give a path relative to the codebase root", what,
                            p);
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && p[j] != '/')
            j++;
        if (j - i == 2 && p[i] == '.' && p[i + 1] == '.')
            return lp_error_set(err, LP_EPATH,
                                "%s '%s' has a '..' component; paths with '..' are refused", what,
                                p);
        i = j + 1;
    }
    return LP_OK;
}

lp_status lp_gq_symbol_by_id(lp_store *st, const char *id, lp_arena *arena, gq_sym *out,
                          lp_error *err)
{
    if (!strncmp(id, "file:", 5)) {
        lp_status rc = lp_gq_check_rel_arg("the file: id", id + 5, strlen(id + 5), err);
        return rc ? rc : file_node(st, id + 5, 0, arena, out, err);
    }
    uint64_t ph, key;
    if (!lp_symbol_id_parse(lp_str_c(id), &ph, &key))
        return lp_error_set(err, LP_EINVAL,
                            "'%s' is not a symbol id; ids look like sym:<24 hex digits> and come "
                            "from search, file_outline or call_graph results (or file:<path> for "
                            "a whole file)",
                            id);
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(st, SYM_SELECT " WHERE f.phash = ?1 AND s.skey = ?2", &s, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, (sqlite3_int64)ph);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)key);
    int found = 0;
    gq_sym first, second, tmp;
    memset(&first, 0, sizeof first);
    memset(&second, 0, sizeof second);
    while (sqlite3_step(s) == SQLITE_ROW && found < 2) {
        read_sym(s, arena, &tmp);
        if (strcmp(tmp.id, id) != 0)
            continue; /* truncated hashes: keep rows whose full id matches */
        if (found == 0)
            first = tmp;
        else
            second = tmp;
        found++;
    }
    sqlite3_reset(s);
    if (found == 0)
        return lp_error_set(err, LP_ENOENT,
                            "no symbol %s in the current publication (the file or symbol changed "
                            "since the id was given); search again or outline the file",
                            id);
    if (found > 1)
        return lp_error_set(err, LP_EAMBIGUOUS,
                            "%s matches several symbols (%s:%u and %s:%u); pick one by span from "
                            "the file outline",
                            id, first.path, first.start_line, second.path, second.start_line);
    *out = first;
    return LP_OK;
}

lp_status lp_gq_symbol_at(lp_store *st, int64_t fid, int32_t ord, lp_arena *arena, gq_sym *out,
                       lp_error *err)
{
    if (ord < 0)
        return file_node(st, NULL, fid, arena, out, err);
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(st, SYM_SELECT " WHERE f.fid = ?1 AND s.ord = ?2", &s, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, fid);
    sqlite3_bind_int(s, 2, ord);
    if (sqlite3_step(s) == SQLITE_ROW)
        read_sym(s, arena, out);
    else
        rc = lp_error_set(err, LP_ECORRUPT,
                          "an edge points at a symbol missing from the publication; run 'loupe "
                          "reindex'");
    sqlite3_reset(s);
    return rc;
}

json_t *lp_gq_json_str(const char *p) { return lp_json_text(p ? p : "", p ? strlen(p) : 0); }

json_t *lp_gq_with_file(json_t *o, const char *key, const char *path)
{
    if (o)
        lp_json_set_path(o, key, path ? path : "", path ? strlen(path) : 0);
    return o;
}

json_t *lp_graph_sym_json(const lp_graph_sym *s)
{
    json_t *o = json_object();
    if (s->ord < 0) {
        char id[LP_PATH_MAX + 8];
        snprintf(id, sizeof id, "file:%s", s->path);
        json_object_set_new(o, "id", lp_gq_json_str(id));
        json_object_set_new(o, "kind", json_string("file"));
        json_object_set_new(o, "name", lp_gq_json_str(s->path));
        json_object_set_new(o, "qualifiedName", lp_gq_json_str(s->path));
        lp_gq_with_file(o, "file", s->path);
        json_object_set_new(o, "startLine", json_integer(1));
        json_object_set_new(o, "endLine", json_null());
    } else {
        json_object_set_new(o, "id", lp_json_textz(s->id));
        json_object_set_new(o, "kind", lp_json_textz(lp_symkind_name((lp_symkind)s->kind)));
        json_object_set_new(o, "name", lp_gq_json_str(s->name));
        json_object_set_new(o, "qualifiedName", lp_gq_json_str(s->qname));
        lp_gq_with_file(o, "file", s->path);
        json_object_set_new(o, "startLine", json_integer(s->start_line));
        json_object_set_new(o, "endLine", json_integer(s->end_line));
    }
    json_object_set_new(o, "language", lp_json_textz(lp_lang_name(s->lang)));
    return o;
}

const char *lp_gq_arg_str(const json_t *args, const char *key)
{
    json_t *v = args ? json_object_get(args, key) : NULL;
    return json_is_string(v) ? json_string_value(v) : NULL;
}

int64_t lp_gq_arg_int(const json_t *args, const char *key, int64_t dflt, int64_t min, int64_t max)
{
    json_t *v = args ? json_object_get(args, key) : NULL;
    int64_t x = json_is_integer(v) ? (int64_t)json_integer_value(v) : dflt;
    return x < min ? min : x > max ? max : x;
}

bool lp_gq_arg_bool(const json_t *args, const char *key, bool dflt)
{
    json_t *v = args ? json_object_get(args, key) : NULL;
    return json_is_boolean(v) ? json_is_true(v) : dflt;
}

void lp_gq_warn(json_t *out, lp_warn code_of, const char *fmt, ...)
{
    const char *code = lp_warn_code(code_of);
    lp_buf msg;
    lp_buf_init(&msg, 512); /* a longer message is cut where a character ends */
    va_list ap;
    va_start(ap, fmt);
    lp_buf_vprintf(&msg, fmt, ap);
    va_end(ap);
    json_t *item = lp_json_pack("{s:o, s:o}", "code", lp_json_textz(code), "message",
                                lp_json_text(msg.ptr, msg.len));
    lp_buf_release(&msg);
    json_t *w = json_object_get(out, "warnings");
    if (json_is_array(w)) {
        json_array_append_new(w, item);
    } else {
        w = json_array();
        json_array_append_new(w, item); /* filled before it is handed over */
        json_object_set_new(out, "warnings", w);
    }
}

lp_lang lp_gq_file_lang(lp_store *st, int64_t fid)
{
    sqlite3_stmt *s;
    if (lp_store_prepare(st, "SELECT b.lang FROM files f JOIN blobs b USING(bid) WHERE f.fid = ?1",
                         &s, NULL))
        return LP_LANG_TEXT;
    sqlite3_bind_int64(s, 1, fid);
    lp_lang l = sqlite3_step(s) == SQLITE_ROW ? (lp_lang)sqlite3_column_int(s, 0) : LP_LANG_TEXT;
    sqlite3_reset(s);
    return l;
}

json_t *lp_gq_caps_for_langs(uint32_t langs)
{
    json_t *arr = json_array();
    for (int l = 0; l < LP_LANG_COUNT; l++) {
        if (!(langs & (1u << l)))
            continue;
        const lp_graph_caps *c = lp_graph_caps_for((lp_lang)l);
        json_t *missing = json_array();
        for (int k = 0; k < LP_EDGE_KIND_COUNT; k++)
            if (!c->edges[k])
                json_array_append_new(missing, lp_json_textz(lp_edge_kind_name((lp_edge_kind)k)));
        json_array_append_new(arr, lp_json_pack("{s:s, s:o, s:s, s:s}", "language", lp_lang_name((lp_lang)l),
                                             "unsupportedEdges", missing, "covers", c->rules,
                                             "cannotSee", c->blind));
    }
    return arr;
}

json_t *lp_gq_sym_json(const gq_sym *s) { return lp_graph_sym_json(s); }

const char *lp_graph_sym_id(const lp_graph_sym *s, lp_arena *arena)
{
    if (s->ord < 0)
        return lp_arena_printf(arena, "file:%s", s->path);
    return lp_arena_strdup(arena, s->id);
}
