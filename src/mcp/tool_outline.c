/*
 * tool_outline.c: file_outline, the symbols of one indexed file (kinds, spans, ids,
 * parents) from the pinned publication. Paths go through lp_index_resolve_file (fail
 * closed: no '..', no escape by symlink, only files inside an indexed root).
 */
#include "mcp/tools_int.h"

#include "lang/lang.h"

static const char outline_input[] =
    "{\"type\":\"object\","
    "\"properties\":{"
    "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,"
    "\"description\":\"Absolute path of a file inside an indexed codebase.\"}"
    "},"
    "\"required\":[\"path\"],"
    "\"additionalProperties\":false,"
    "\"examples\":[{\"path\":\"/home/me/src/app/src/auth/session.ts\"}]}";

#define SYMBOL_SCHEMA                                                                              \
    "{\"type\":\"object\",\"properties\":{"                                                        \
    "\"id\":{\"type\":\"string\",\"description\":\"For read_file open_symbol.\"},"                 \
    "\"name\":{\"type\":\"string\"},\"qualifiedName\":{\"type\":\"string\"},"                      \
    "\"kind\":{\"type\":\"string\"},"                                                              \
    "\"startLine\":{\"type\":\"integer\"},\"endLine\":{\"type\":\"integer\"},"                     \
    "\"parentId\":{\"type\":[\"string\",\"null\"]},"                                               \
    "\"depth\":{\"type\":\"integer\",\"minimum\":0}},"                                             \
    "\"required\":[\"id\",\"name\",\"qualifiedName\",\"kind\",\"startLine\",\"endLine\","          \
    "\"parentId\",\"depth\"]}"

static const char outline_output[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"file\":{\"type\":\"string\",\"description\":\"Path relative to codebaseRoot.\"},"
    "\"path\":{\"type\":\"string\"},"
    "\"publicationId\":{\"type\":\"integer\"},"
    "\"totalLines\":{\"type\":\"integer\"},"
    "\"symbolCount\":{\"type\":\"integer\"},"
    "\"symbols\":{\"type\":\"array\",\"items\":" SYMBOL_SCHEMA "}},"
    "\"required\":[\"codebaseRoot\",\"publication\",\"freshness\",\"warnings\",\"file\","
    "\"path\",\"publicationId\",\"totalLines\",\"symbolCount\",\"symbols\",\"truncated\"]}";

static const char *const outline_truncatable[] = {"symbols", NULL};

/* Index of the row with ord == parent, or -1. Rows are in ord order, usually ord == index. */
static long parent_index(const lp_symbol_row *rows, size_t n, int32_t parent)
{
    if (parent < 0)
        return -1;
    if ((size_t)parent < n && rows[parent].ord == parent)
        return parent;
    for (size_t i = 0; i < n; i++)
        if (rows[i].ord == parent)
            return (long)i;
    return -1;
}

json_t *lp_tools_symbol_json(const lp_symbol_row *rows, size_t n, size_t i)
{
    const lp_symbol_row *r = &rows[i];
    long p = parent_index(rows, n, r->parent);
    int depth = 0;
    for (long q = p; q >= 0 && depth < 64; q = parent_index(rows, n, rows[q].parent))
        depth++;
    json_t *o = json_object();
    json_object_set_new(o, "id", lp_json_textz(r->id));
    json_object_set_new(o, "name", lp_json_text(r->name, strlen(r->name)));
    json_object_set_new(o, "qualifiedName", lp_json_text(r->qname, strlen(r->qname)));
    json_object_set_new(o, "kind", lp_json_textz(lp_symkind_name((lp_symkind)r->kind)));
    json_object_set_new(o, "startLine", json_integer(r->start_line));
    json_object_set_new(o, "endLine", json_integer(r->end_line));
    json_object_set_new(o, "parentId", p >= 0 ? lp_json_textz(rows[p].id) : json_null());
    json_object_set_new(o, "depth", json_integer(depth));
    return o;
}

static lp_status outline_fn(lp_mcp_call *call, json_t **result, lp_error *err)
{
    lp_tools *t = lp_tools_of(call);
    lp_arena *arena = lp_mcp_call_arena(call);
    const char *path = lp_tools_arg_str(call, "path");
    lp_buf root, rel, probe;
    lp_buf_init(&root, 0);
    lp_buf_init(&rel, 0);
    lp_buf_init(&probe, 0);
    lp_store *st = NULL;
    lp_publication pub;
    lp_status rc = lp_tools_resolve_file(call, path, &root, &rel, err);
    if (!rc)
        rc = lp_tools_open(call, root.ptr, &st, &pub, err);
    if (rc)
        goto done;
    /* One line read gives the file's staleness and length from the same publication. */
    lp_read_info info;
    rc = lp_index_read_lines(st, rel.ptr, 1, 1, 1, 1, 65536, true, &probe, &info, err);
    if (rc == LP_ENOENT) {
        lp_buf why;
        lp_buf_init(&why, 0);
        lp_index_why_absent(st, rel.ptr, &why);
        rc = lp_tools_fail(call, "not_found", LP_ENOENT, err,
                           "%s is not in publication %lld: %s (if it is new: manage_index "
                           "{action: \"sync\", path: \"%s\"})",
                           rel.ptr, (long long)pub.id, why.ptr, root.ptr);
        lp_buf_release(&why);
        goto done;
    }
    if (rc)
        goto done;
    lp_symbol_row *rows = NULL;
    size_t n = 0;
    if ((rc = lp_index_outline(st, rel.ptr, arena, &rows, &n, err)))
        goto done;

    json_t *out = lp_tools_envelope(root.ptr, &pub, LP_MCP_STATE_READY);
    lp_json_set_path(out, "file", rel.ptr, rel.len);
    lp_json_set_path2(out, "path", root.ptr, rel.ptr);
    json_object_set_new(out, "publicationId", json_integer(info.publication_id));
    json_object_set_new(out, "totalLines", json_integer(info.total_lines));
    json_object_set_new(out, "symbolCount", json_integer((json_int_t)n));
    json_t *syms = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(syms, lp_tools_symbol_json(rows, n, i));
    json_object_set_new(out, "symbols", syms);
    json_t *args = json_object();
    lp_json_set_path2(args, "path", root.ptr, rel.ptr);
    if (n) {
        json_t *sym = json_object();
        json_object_set_new(sym, "symbolId", lp_json_textz(rows[0].id));
        json_object_set_new(args, "open_symbol", sym);
    } else {
        lp_mcp_envelope_warn(out, LP_WARN_NO_SYMBOLS,
                             "no symbols are indexed for %s (its language has no symbol "
                             "extractor, or it defines none); read it by lines with read_file",
                             rel.ptr);
        json_object_set_new(args, "start_line", json_integer(1));
        json_object_set_new(args, "end_line",
                            json_integer(LP_MAX(1u, LP_MIN(info.total_lines, 200u))));
    }
    lp_mcp_envelope_next_action(out, "read_file", args);
    lp_tools_warn_writer(t, out, root.ptr);
    lp_tools_file_freshness(t, out, root.ptr, rel.ptr, pub.id, info.stale);
    lp_tools_file_disk_note(out, &info);
    *result = out;
done:
    lp_buf_release(&root);
    lp_buf_release(&rel);
    lp_buf_release(&probe);
    return rc;
}

const lp_mcp_tool_def lp_tool_file_outline = {
    .name = "file_outline",
    .title = "Outline of a file",
    .description =
        "List the symbols of one indexed file (functions, classes, methods, sections...) with "
        "kind, qualified name, line span, parent and id, in source order, from the current "
        "index publication. Use it to see how a file is organized before reading it, or when a "
        "search result has no symbol. Next: read one symbol's exact source with read_file "
        "{path, open_symbol: {symbolId}}, or a line range with read_file {path, start_line, "
        "end_line}. Only files inside an indexed codebase are served ('..' and paths that "
        "resolve outside are refused).",
    .input_schema = outline_input,
    .output_schema = outline_output,
    .envelope = true,
    .read_only = true,
    .idempotent = true,
    .truncatable = outline_truncatable,
    .fn = outline_fn,
};
