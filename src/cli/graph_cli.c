/*
 * graph_cli.c: shared by the graph commands (see graph_cli.h).
 */
#include "cli/graph_cli.h"

#include "index/index.h"
#include "lang/lang.h"

lp_status lp_graph_cli_open(const char *root_arg, lp_buf *root, lp_store **st, int64_t *pub_id,
                           lp_error *err)
{
    lp_status rc = lp_cli_root_for(root_arg, true, false, root, err);
    if (!rc)
        rc = lp_store_open(root->ptr, LP_STORE_READ, st, err);
    if (!rc)
        rc = lp_store_pin(*st, err);
    lp_publication pub;
    if (!rc)
        rc = lp_store_current(*st, &pub, err);
    if (!rc && pub.id == 0)
        rc = lp_error_set(err, LP_ENOTINDEXED, "%s has no publication yet; run 'loupe index %s'",
                          root->ptr, root->ptr);
    if (!rc && !lp_publication_compatible(&pub)) {
        lp_fingerprint_explain(&pub, root->ptr, false, err->msg, sizeof err->msg);
        rc = err->code = LP_EREINDEX;
    }
    *pub_id = rc ? 0 : pub.id;
    return rc;
}

void lp_graph_cli_close(lp_store *st)
{
    if (st)
        lp_store_unpin(st);
    lp_store_close(st);
}

int lp_graph_cli_run(const char *cmd, const char *root_arg, json_t *args, lp_graph_tool_fn fn,
                     lp_graph_out fmt, void (*text)(const json_t *res),
                     void (*draw)(const json_t *res, bool mermaid))
{
    lp_error err = {0};
    lp_buf root;
    lp_buf_init(&root, 0);
    lp_store *st = NULL;
    json_t *res = NULL;
    int code = LP_EXIT_OK;
    bool json = fmt == LP_GOUT_JSON;
    int64_t pub_id = 0;
    lp_status rc = lp_graph_cli_open(root_arg, &root, &st, &pub_id, &err);
    if (!rc) {
        lp_json_set_path(args, "path", root.ptr, root.len);
        lp_graph_call call = {.st = st, .args = args};
        rc = fn(&call, &res, &err);
    }
    if (rc) {
        lp_error_prefix(&err, "%s", cmd);
        code = lp_cli_fail(&err, json);
        goto done;
    }
    lp_json_set_path(res, "codebaseRoot", root.ptr, root.len);
    /* Every answer names the one publication it came from (pinned for the whole call). */
    if (!json_object_get(res, "publicationId"))
        json_object_set_new(res, "publicationId", json_integer(pub_id));
    if (json)
        code = lp_cli_print_json(res);
    else if ((fmt == LP_GOUT_DOT || fmt == LP_GOUT_MERMAID) && draw)
        draw(res, fmt == LP_GOUT_MERMAID);
    else if (text)
        text(res);
done:
    json_decref(res);
    lp_graph_cli_close(st);
    lp_buf_release(&root);
    return code;
}

int lp_graph_cli_symbol(const char *cmd, const char *root_arg, const char *arg, char **id)
{
    *id = NULL;
    if (!strncmp(arg, "sym:", 4) || !strncmp(arg, "file:", 5)) {
        *id = lp_xstrdup(arg);
        return LP_EXIT_OK;
    }
    lp_error err = {0};
    lp_buf root;
    lp_buf_init(&root, 0);
    lp_store *st = NULL;
    lp_arena arena;
    lp_arena_init(&arena, 0);
    int code = LP_EXIT_OK;
    lp_symbol_row *rows = NULL;
    size_t n = 0;
    int64_t pub_id = 0;
    lp_status rc = lp_graph_cli_open(root_arg, &root, &st, &pub_id, &err);
    if (!rc)
        rc = lp_index_find_symbols(st, arg, 50, &arena, &rows, &n, &err);
    if (rc) {
        code = lp_cli_fail(&err, false);
    } else if (n == 0) {
        fprintf(stderr, "loupe %s: no definition named '%s'; give a symbol id (sym:...) from "
                        "'loupe symbol' or 'loupe outline'\n",
                cmd, arg);
        code = LP_EXIT_NOT_FOUND;
    } else if (n > 1) {
        fprintf(stderr, "loupe %s: '%s' names %zu definitions; pass one of these ids:\n", cmd, arg, n);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, "  %s  %s %s  %s:%u\n", rows[i].id, lp_symkind_name((lp_symkind)rows[i].kind),
                    rows[i].qname, rows[i].path, rows[i].start_line);
        code = LP_EXIT_AMBIGUOUS;
    } else {
        *id = lp_xstrdup(rows[0].id);
    }
    lp_graph_cli_close(st);
    lp_buf_release(&root);
    lp_arena_release(&arena);
    return code;
}

bool lp_graph_cli_format(const char *cmd, const char *v, lp_graph_out *out)
{
    if (v && !strcmp(v, "dot"))
        *out = LP_GOUT_DOT;
    else if (v && !strcmp(v, "mermaid"))
        *out = LP_GOUT_MERMAID;
    else if (v && !strcmp(v, "json"))
        *out = LP_GOUT_JSON;
    else if (v && !strcmp(v, "text"))
        *out = LP_GOUT_TEXT;
    else {
        lp_cli_usage_error(cmd, "--format takes dot, mermaid, json or text, not '%s'", v ? v : "");
        return false;
    }
    return true;
}

const char *lp_graph_cli_str(const json_t *o, const char *key)
{
    const json_t *v = o ? json_object_get(o, key) : NULL;
    return json_is_string(v) ? json_string_value(v) : "";
}

long long lp_graph_cli_int(const json_t *o, const char *key)
{
    const json_t *v = o ? json_object_get(o, key) : NULL;
    return json_is_integer(v) ? (long long)json_integer_value(v) : 0;
}

void lp_graph_cli_warnings(const json_t *res)
{
    const json_t *w = json_object_get(res, "warnings");
    size_t i;
    const json_t *x;
    json_array_foreach(w, i, x)
        printf("note [%s]: %s\n", lp_graph_cli_str(x, "code"), lp_graph_cli_str(x, "message"));
}

const char *lp_graph_cli_label(const char *s, bool mermaid, char *buf, size_t cap)
{
    size_t o = 0;
    for (; *s && o + 8 < cap; s++) {
        char c = *s;
        if (c == '"' || c == '\\') {
            if (mermaid) {
                memcpy(buf + o, "#quot;", 6);
                o += 6;
                continue;
            }
            buf[o++] = '\\';
        }
        if (c == '\n' || c == '\r')
            c = ' ';
        buf[o++] = c;
    }
    buf[o] = '\0';
    return buf;
}

/* Text as the JSON renderer shows it: bytes that are not UTF-8 become U+FFFD. */
const char *lp_graph_cli_text(const char *s)
{
    static lp_buf ring[8];
    static unsigned next;
    lp_buf *b = &ring[next++ % LP_ARRAY_LEN(ring)];
    if (!b->ptr)
        lp_buf_init(b, 0);
    lp_buf_reset(b);
    lp_utf8_put(b, s ? s : "", s ? strlen(s) : 0);
    return b->ptr ? b->ptr : "";
}

/* A symbol's fields as call_graph's JSON gives them (a file pseudo-symbol: id file:<path>,
 * kind file, qualified name the path, line 1). */
const char *lp_graph_cli_sym_id(const lp_graph_sym *s, char *buf, size_t cap)
{
    if (s->ord >= 0)
        return s->id;
    snprintf(buf, cap, "file:%s", s->path);
    return lp_graph_cli_text(buf);
}

const char *lp_graph_cli_sym_kind(const lp_graph_sym *s)
{
    return s->ord < 0 ? "file" : lp_symkind_name((lp_symkind)s->kind);
}

const char *lp_graph_cli_sym_qname(const lp_graph_sym *s)
{
    return lp_graph_cli_text(s->ord < 0 ? s->path : s->qname);
}

long long lp_graph_cli_sym_start(const lp_graph_sym *s) { return s->ord < 0 ? 1 : (long long)s->start_line; }

void lp_graph_cli_sym_line(const char *prefix, const lp_graph_sym *s)
{
    char idb[LP_PATH_MAX + 8];
    printf("%s%s %s  %s:%lld  %s\n", prefix, lp_graph_cli_sym_kind(s), lp_graph_cli_sym_qname(s),
           lp_cli_q(lp_graph_cli_text(s->path)), lp_graph_cli_sym_start(s),
           lp_graph_cli_sym_id(s, idb, sizeof idb));
}

void lp_graph_cli_notes(const lp_graph_warning *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("note [%s]: %s\n", lp_warn_code(w[i].code), lp_graph_cli_text(w[i].message));
}
