/*
 * tool_outline.c: file_outline, the symbols of one indexed file (kinds, spans, ids,
 * parents) from the pinned publication. Paths go through lp_index_resolve_file (fail
 * closed: no '..', no escape by symlink, only files inside an indexed root).
 *
 * Pages, not cut-offs: `kinds` and `namePrefix` filter the symbols, `offset` and `limit`
 * choose a page, and a page ends where the next symbol would not fit the result budget;
 * then `nextOffset` and the recommended next call (file_outline with that offset and the
 * same filters) say exactly how to go on.
 */
#include "mcp/tools_int.h"

#include "lang/lang.h"

static const char outline_input[] =
    "{\"type\":\"object\","
    "\"properties\":{"
    "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,"
    "\"description\":\"Absolute path of a file inside an indexed codebase.\"},"
    "\"kinds\":{\"type\":\"array\",\"minItems\":1,\"maxItems\":16,\"items\":{\"type\":"
    "\"string\",\"minLength\":1,\"maxLength\":32},\"description\":\"Only symbols of these "
    "kinds (function, method, class, struct, interface, type_alias, ...).\"},"
    "\"namePrefix\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":256,"
    "\"description\":\"Only symbols whose name starts with this (case-sensitive).\"},"
    "\"offset\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":10000000,\"default\":0,"
    "\"description\":\"Skip this many matching symbols (nextOffset of the previous page).\"},"
    "\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":5000,\"description\":"
    "\"At most this many symbols (default: as many as fit the result budget).\"}"
    "},"
    "\"required\":[\"path\"],"
    "\"additionalProperties\":false,"
    "\"examples\":[{\"path\":\"/home/me/src/app/src/auth/session.ts\"},"
    "{\"path\":\"/home/me/src/app/server.go\",\"kinds\":[\"method\"],\"namePrefix\":"
    "\"Serve\"}]}";

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
    "\"symbolCount\":{\"type\":\"integer\",\"description\":\"Symbols in the file.\"},"
    "\"matched\":{\"type\":\"integer\",\"description\":\"Symbols passing kinds and "
    "namePrefix.\"},"
    "\"offset\":{\"type\":\"integer\"},"
    "\"nextOffset\":{\"type\":[\"integer\",\"null\"],\"description\":\"Where the next page "
    "starts; null when this page ends the list.\"},"
    "\"symbols\":{\"type\":\"array\",\"items\":" SYMBOL_SCHEMA "}},"
    "\"required\":[\"codebaseRoot\",\"publication\",\"freshness\",\"warnings\",\"file\","
    "\"path\",\"publicationId\",\"totalLines\",\"symbolCount\",\"symbols\",\"truncated\"]}";

static const char *const outline_truncatable[] = {"symbols", NULL};

/* Bytes kept, when a page is filled to the budget, for the fields written after the
 * symbols (paging, warnings, freshness, the next action with its filters). */
#define OUTLINE_MARGIN 1536u

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

    /* Filters: kinds must be known kind names. */
    const json_t *kinds = json_object_get(lp_mcp_call_args(call), "kinds");
    int want[16];
    size_t nwant = 0;
    size_t ki;
    const json_t *kv;
    json_array_foreach(kinds, ki, kv) {
        const char *kn = json_string_value(kv);
        lp_symkind k = lp_symkind_from_name(lp_str_c(kn ? kn : ""));
        if (k == LP_SYM_KIND_COUNT) {
            rc = lp_tools_fail(call, "invalid_argument", LP_EINVAL, err,
                               "unknown kind '%s' in kinds; use function, method, class, "
                               "struct, interface, trait, enum, constant, variable, field, "
                               "property, macro, type_alias, module or section",
                               kn ? kn : "");
            goto done;
        }
        if (nwant < LP_ARRAY_LEN(want))
            want[nwant++] = (int)k;
    }
    const char *prefix = lp_tools_arg_str(call, "namePrefix");
    size_t plen = prefix ? strlen(prefix) : 0;
    uint32_t offset = lp_tools_arg_uint(call, "offset", 0);
    uint32_t limit = lp_tools_arg_uint(call, "limit", UINT32_MAX);
    size_t budget = lp_mcp_call_max_result_bytes(call);

    json_t *out = lp_tools_envelope(root.ptr, &pub, LP_MCP_STATE_READY);
    lp_json_set_path(out, "file", rel.ptr, rel.len);
    lp_json_set_path2(out, "path", root.ptr, rel.ptr);
    json_object_set_new(out, "publicationId", json_integer(info.publication_id));
    json_object_set_new(out, "totalLines", json_integer(info.total_lines));
    json_object_set_new(out, "symbolCount", json_integer((json_int_t)n));
    /* What the page may hold: the budget less what is written already and a margin for the
     * fields still to come (paging, warnings, freshness, the next action). */
    size_t have = json_dumpb(out, NULL, 0, JSON_COMPACT) + OUTLINE_MARGIN;
    size_t room = budget > have ? budget - have : 0;
    json_t *syms = json_array();
    size_t matched = 0, used = 0, first = SIZE_MAX;
    int64_t next = -1;
    for (size_t i = 0; i < n; i++) {
        bool ok = nwant == 0;
        for (size_t k = 0; k < nwant && !ok; k++)
            ok = rows[i].kind == want[k];
        if (!ok || (plen && strncmp(rows[i].name, prefix, plen) != 0))
            continue;
        size_t at = matched++;
        if (at < offset || next >= 0)
            continue;
        json_t *o = lp_tools_symbol_json(rows, n, i);
        size_t bytes = json_dumpb(o, NULL, 0, JSON_COMPACT) + 1;
        if (json_array_size(syms) == limit || (json_array_size(syms) && used + bytes > room)) {
            json_decref(o); /* the next page starts here */
            next = (int64_t)at;
            continue;
        }
        if (first == SIZE_MAX)
            first = i;
        used += bytes;
        json_array_append_new(syms, o);
    }
    json_object_set_new(out, "symbols", syms);
    json_object_set_new(out, "matched", json_integer((json_int_t)matched));
    json_object_set_new(out, "offset", json_integer(offset));
    json_object_set_new(out, "nextOffset", next >= 0 ? json_integer(next) : json_null());
    json_t *args = json_object();
    lp_json_set_path2(args, "path", root.ptr, rel.ptr);
    if (next >= 0) {
        /* The same call from the next page on. */
        json_t *a = json_deep_copy(lp_mcp_call_args(call));
        json_object_set_new(a, "offset", json_integer(next));
        lp_mcp_envelope_warn(out, LP_WARN_RESULT_TRUNCATED,
                             "symbols %u-%zu of the %zu that match are shown (the result "
                             "budget or limit); the next page starts at offset %lld",
                             offset + 1, (size_t)offset + json_array_size(syms), matched,
                             (long long)next);
        lp_mcp_envelope_next_action(out, "file_outline", a);
        json_decref(args);
        args = NULL;
    } else if (first != SIZE_MAX) {
        json_t *sym = json_object();
        json_object_set_new(sym, "symbolId", lp_json_textz(rows[first].id));
        json_object_set_new(args, "open_symbol", sym);
    } else {
        if (n)
            lp_mcp_envelope_warn(out, LP_WARN_NO_SYMBOLS,
                                 "none of the %zu symbols of %s %s; widen kinds or namePrefix, "
                                 "or lower offset",
                                 n, rel.ptr, matched ? "is past offset" : "matches the filters");
        else
            lp_mcp_envelope_warn(out, LP_WARN_NO_SYMBOLS,
                                 "no symbols are indexed for %s (its language has no symbol "
                                 "extractor, or it defines none); read it by lines with "
                                 "read_file",
                                 rel.ptr);
        json_object_set_new(args, "start_line", json_integer(1));
        json_object_set_new(args, "end_line",
                            json_integer(LP_MAX(1u, LP_MIN(info.total_lines, 200u))));
    }
    if (args)
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
