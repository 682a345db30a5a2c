/*
 * tool_read.c: read_file, bounded reads of one indexed file from the pinned publication:
 * a line range (at most LINES_MAX lines; a larger range is compacted into the outline of
 * the symbols inside it plus its first lines), or the exact source of one symbol by id.
 *
 * Text comes from the publication, so line numbers and spans agree with search results and
 * outlines of the same publication; when the file on disk differs, the answer says stale.
 * Paths fail closed (lp_index_resolve_file); a symbol id that is unknown or ambiguous fails
 * with the candidates and the next step, never a guess.
 */
#include "mcp/tools_int.h"

#include "lang/lang.h"

#include <sys/stat.h>

#define LINES_MAX 200u
#define COMPACT_HEAD 40u
#define OVERHEAD_BYTES 3072u

static const char read_input[] =
    "{\"type\":\"object\","
    "\"properties\":{"
    "\"path\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,"
    "\"description\":\"Absolute path of a file inside an indexed codebase.\"},"
    "\"start_line\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100000000,"
    "\"description\":\"First line to read (1-based; default 1).\"},"
    "\"start_column\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":4294967295,"
    "\"description\":\"Byte column (1-based) of start_line to start at, to read on in a line "
    "longer than the result budget (lineCut.nextColumn of the previous answer; default 1).\"},"
    "\"end_line\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100000000,"
    "\"description\":\"Last line to read (inclusive; default start_line + 199). Ranges over "
    "200 lines are compacted: the outline of the symbols in the range plus its first "
    "lines.\"},"
    "\"open_symbol\":{\"type\":\"object\",\"description\":\"Read the exact source of one "
    "symbol instead of a line range.\","
    "\"properties\":{\"symbolId\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":64,"
    "\"description\":\"A symbol id (sym:...) from search_codebase or file_outline.\"}},"
    "\"required\":[\"symbolId\"],\"additionalProperties\":false}"
    "},"
    "\"required\":[\"path\"],"
    "\"additionalProperties\":false,"
    "\"examples\":[{\"path\":\"/home/me/src/app/src/auth/session.ts\",\"start_line\":80,"
    "\"end_line\":140}]}";

static const char read_output[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"file\":{\"type\":\"string\",\"description\":\"Path relative to codebaseRoot.\"},"
    "\"path\":{\"type\":\"string\"},"
    "\"publicationId\":{\"type\":\"integer\"},"
    "\"mode\":{\"enum\":[\"lines\",\"symbol\"]},"
    "\"startLine\":{\"type\":\"integer\"},\"endLine\":{\"type\":\"integer\"},"
    "\"totalLines\":{\"type\":\"integer\"},"
    "\"content\":{\"type\":\"string\",\"description\":\"Numbered lines 'N| text'.\"},"
    "\"source\":{\"enum\":[\"publication\",\"disk\"]},"
    "\"compacted\":{\"type\":\"boolean\"},"
    "\"symbol\":{\"type\":[\"object\",\"null\"]},"
    "\"symbols\":{\"type\":\"array\",\"description\":\"When compacted: the symbols in the "
    "range (id, qualifiedName, kind, startLine, endLine).\",\"items\":{\"type\":\"object\"}},"
    "\"note\":{\"type\":[\"string\",\"null\"]},"
    "\"startColumn\":{\"type\":\"integer\",\"description\":\"Byte column of startLine "
    "the content starts at (1 unless start_column was given).\"},"
    "\"lineCut\":{\"type\":[\"object\",\"null\"],\"description\":\"endLine is longer "
    "than the result budget and was cut where a character ends (marked in content): it goes "
    "on at nextColumn.\",\"properties\":{\"line\":{\"type\":\"integer\"},"
    "\"nextColumn\":{\"type\":\"integer\"},\"lineBytes\":{\"type\":\"integer\"}}},"
    "\"nextRange\":{\"type\":[\"object\",\"null\"],\"properties\":{"
    "\"start_line\":{\"type\":\"integer\"},\"start_column\":{\"type\":\"integer\"},"
    "\"end_line\":{\"type\":\"integer\"}}}},"
    "\"required\":[\"codebaseRoot\",\"publication\",\"freshness\",\"warnings\",\"file\","
    "\"path\",\"publicationId\",\"mode\",\"startLine\",\"endLine\",\"totalLines\",\"content\","
    "\"source\",\"compacted\",\"truncated\"]}";

static const char *const read_truncatable[] = {"symbols", NULL};

/* col: the byte column of line a to start at (0 or 1: the line's start). */
static json_t *range_json(uint32_t a, uint32_t col, uint32_t b)
{
    json_t *r = json_object();
    json_object_set_new(r, "start_line", json_integer(a));
    if (col > 1)
        json_object_set_new(r, "start_column", json_integer(col));
    json_object_set_new(r, "end_line", json_integer(b));
    return r;
}

static void next_read(json_t *env, const char *root, const char *rel, uint32_t a, uint32_t col,
                      uint32_t b)
{
    json_t *args = range_json(a, col, b);
    lp_json_set_path2(args, "path", root, rel);
    lp_mcp_envelope_next_action(env, "read_file", args);
}

/* A line longer than the budget was cut: say so and recommend reading on inside it. */
static void line_cut(json_t *out, const char *root, const char *rel, const lp_read_info *info,
                     uint32_t last)
{
    uint32_t b = LP_MAX(last, info->end_line);
    lp_buf note;
    lp_buf_init(&note, 0);
    lp_buf_printf(&note,
                  "line %u is %u bytes, longer than the result budget: shown up to column %u, "
                  "cut where a character ends; read on with start_line %u, start_column %u",
                  info->end_line, info->line_bytes, info->next_col - 1, info->end_line,
                  info->next_col);
    json_object_set_new(out, "note", lp_json_text(note.ptr, note.len));
    lp_buf_release(&note);
    lp_mcp_envelope_warn(out, LP_WARN_LINE_CUT, "line %u was cut at column %u of %u bytes",
                         info->end_line, info->next_col, info->line_bytes);
    json_object_set_new(out, "nextRange", range_json(info->end_line, info->next_col, b));
    next_read(out, root, rel, info->end_line, info->next_col, b);
}

static json_t *cut_json(const lp_read_info *info)
{
    if (!info->next_col)
        return json_null();
    json_t *c = json_object();
    json_object_set_new(c, "line", json_integer(info->end_line));
    json_object_set_new(c, "nextColumn", json_integer(info->next_col));
    json_object_set_new(c, "lineBytes", json_integer(info->line_bytes));
    return c;
}

static size_t json_size(const json_t *j) { return json_dumpb(j, NULL, 0, JSON_COMPACT); }

typedef struct read_ctx {
    lp_mcp_call *call;
    lp_tools *t;
    lp_buf root, rel, text;
    lp_store *st;
    lp_publication pub;
    size_t budget;
} read_ctx;

/* Read lines [a, b] (from byte column col of line a) into rc->text, shrinking the byte bound
 * until out (with content) fits. */
static lp_status read_fitting(read_ctx *c, uint32_t a, uint32_t col, uint32_t b,
                              uint32_t max_lines, lp_read_info *info, lp_error *err)
{
    size_t max_bytes = c->budget > OVERHEAD_BYTES ? c->budget - OVERHEAD_BYTES : 512;
    lp_status rc = LP_OK;
    for (int attempt = 0; attempt < 4; attempt++) {
        rc = lp_index_read_lines(c->st, c->rel.ptr, a, col, b, max_lines, max_bytes, true,
                                 &c->text, info, err);
        if (rc)
            return rc;
        json_t *probe = lp_json_text(c->text.ptr, c->text.len);
        size_t need = json_size(probe);
        json_decref(probe);
        if (need + OVERHEAD_BYTES <= c->budget || max_bytes <= 512)
            return LP_OK;
        size_t over = need + OVERHEAD_BYTES - c->budget;
        max_bytes = max_bytes > over + 512 ? max_bytes - over - 256 : 512;
    }
    return rc;
}

static json_t *base_result(read_ctx *c, const char *mode)
{
    json_t *out = lp_tools_envelope(c->root.ptr, &c->pub, LP_MCP_STATE_READY);
    lp_json_set_path(out, "file", c->rel.ptr, c->rel.len);
    lp_json_set_path2(out, "path", c->root.ptr, c->rel.ptr);
    json_object_set_new(out, "mode", lp_json_textz(mode));
    json_object_set_new(out, "compacted", json_false());
    json_object_set_new(out, "symbol", json_null());
    json_object_set_new(out, "note", json_null());
    json_object_set_new(out, "nextRange", json_null());
    json_object_set_new(out, "startColumn", json_integer(1));
    json_object_set_new(out, "lineCut", json_null());
    return out;
}

static lp_status not_in_publication(read_ctx *c, lp_error *err)
{
    lp_buf why;
    lp_buf_init(&why, 0);
    lp_index_why_absent(c->st, c->rel.ptr, &why);
    lp_status rc = lp_tools_fail(c->call, "not_found", LP_ENOENT, err,
                                 "%s is not in publication %lld: %s (if it is new: manage_index "
                                 "{action: \"sync\", path: \"%s\"})",
                                 c->rel.ptr, (long long)c->pub.id, why.ptr, c->root.ptr);
    lp_buf_release(&why);
    return rc;
}

static lp_status read_lines(read_ctx *c, json_t **result, lp_error *err)
{
    uint32_t start = lp_tools_arg_uint(c->call, "start_line", 1);
    uint32_t end = lp_tools_arg_present(c->call, "end_line")
                       ? lp_tools_arg_uint(c->call, "end_line", start)
                       : start + LINES_MAX - 1;
    if (end < start)
        return lp_tools_fail(c->call, "invalid_argument", LP_EINVAL, err,
                             "end_line (%u) is before start_line (%u); give 1 <= start_line <= "
                             "end_line",
                             end, start);
    uint32_t col = lp_tools_arg_uint(c->call, "start_column", 1);
    bool compact = end - start + 1 > LINES_MAX;
    lp_read_info info;
    lp_status rc = read_fitting(c, start, col, compact ? start + COMPACT_HEAD - 1 : end,
                                compact ? COMPACT_HEAD : LINES_MAX, &info, err);
    if (rc == LP_ENOENT)
        return not_in_publication(c, err);
    if (rc == LP_EINVAL && col > 1 && start <= info.total_lines) {
        lp_error why = *err; /* the column is past the end of the line: say which */
        return lp_tools_fail(c->call, "invalid_argument", LP_EINVAL, err, "%s", why.msg);
    }
    if (rc == LP_EINVAL)
        return lp_tools_fail(c->call, "invalid_argument", LP_EINVAL, err,
                             "%s has %u lines in publication %lld; start_line %u is past its "
                             "end",
                             c->rel.ptr, info.total_lines, (long long)c->pub.id, start);
    if (rc)
        return rc;
    json_t *out = base_result(c, "lines");
    json_object_set_new(out, "publicationId", json_integer(info.publication_id));
    json_object_set_new(out, "startLine", json_integer(info.start_line));
    json_object_set_new(out, "startColumn", json_integer(info.start_col));
    json_object_set_new(out, "endLine", json_integer(info.end_line));
    json_object_set_new(out, "totalLines", json_integer(info.total_lines));
    json_object_set_new(out, "content", lp_json_text(c->text.ptr, c->text.len));
    json_object_set_new(out, "source", lp_json_textz(info.from_publication ? "publication" : "disk"));
    json_object_set_new(out, "lineCut", cut_json(&info));
    uint32_t last = LP_MIN(end, info.total_lines);
    if (compact) {
        lp_symbol_row *rows = NULL;
        size_t n = 0;
        lp_error e2 = {0};
        json_t *syms = json_array();
        lp_symbol_row *first = NULL;
        if (lp_index_outline(c->st, c->rel.ptr, lp_mcp_call_arena(c->call), &rows, &n, &e2) ==
            LP_OK) {
            for (size_t i = 0; i < n; i++) {
                if (rows[i].end_line < start || rows[i].start_line > last)
                    continue;
                if (!first)
                    first = &rows[i];
                /* Short entries: a large range holds many symbols. */
                json_t *o = json_object();
                json_object_set_new(o, "id", lp_json_textz(rows[i].id));
                json_object_set_new(o, "qualifiedName",
                                    lp_json_text(rows[i].qname, strlen(rows[i].qname)));
                json_object_set_new(o, "kind",
                                    lp_json_textz(lp_symkind_name((lp_symkind)rows[i].kind)));
                json_object_set_new(o, "startLine", json_integer(rows[i].start_line));
                json_object_set_new(o, "endLine", json_integer(rows[i].end_line));
                json_array_append_new(syms, o);
            }
        }
        size_t nsyms = json_array_size(syms);
        json_object_set_new(out, "compacted", json_true());
        json_object_set_new(out, "symbols", syms);
        /* Read on after the lines shown, or inside the last one when it was cut. */
        uint32_t next_col = info.next_col;
        uint32_t next_a = next_col ? info.end_line : info.end_line + 1;
        uint32_t next_b = LP_MAX(next_a, LP_MIN(last, info.end_line + LINES_MAX));
        lp_buf note;
        lp_buf_init(&note, 0);
        lp_buf_printf(&note,
                      "lines %u-%u are %u lines, more than the %u-line bound: shown are the "
                      "%zu symbols in that range and its first lines %u-%u. Read one symbol "
                      "with open_symbol, or at most %u lines at a time",
                      start, last, last >= start ? last - start + 1 : 0, LINES_MAX,
                      nsyms, info.start_line, info.end_line, LINES_MAX);
        if (next_col)
            lp_buf_printf(&note, " (line %u is longer than the result budget and was cut; "
                                 "next: start_line %u, start_column %u, end_line %u)",
                          next_a, next_a, next_col, next_b);
        else if (next_a <= next_b)
            lp_buf_printf(&note, " (next: start_line %u, end_line %u)", next_a, next_b);
        json_object_set_new(out, "note", lp_json_textz(note.ptr));
        lp_buf_release(&note);
        lp_mcp_envelope_warn(
            out, LP_WARN_RANGE_COMPACTED, "the %u-line range was compacted to an outline and %u lines",
            last >= start ? last - start + 1 : 0,
            info.end_line >= info.start_line ? info.end_line - info.start_line + 1 : 0);
        if (next_a <= next_b)
            json_object_set_new(out, "nextRange", range_json(next_a, next_col, next_b));
        if (first) {
            json_t *args = json_object();
            lp_json_set_path2(args, "path", c->root.ptr, c->rel.ptr);
            json_t *sym = json_object();
            json_object_set_new(sym, "symbolId", lp_json_textz(first->id));
            json_object_set_new(args, "open_symbol", sym);
            lp_mcp_envelope_next_action(out, "read_file", args);
        } else if (next_a <= next_b) {
            next_read(out, c->root.ptr, c->rel.ptr, next_a, next_col, next_b);
        }
    } else if (info.next_col) {
        line_cut(out, c->root.ptr, c->rel.ptr, &info, last);
    } else if (info.truncated && info.end_line < last) {
        uint32_t next_a = info.end_line + 1, next_b = LP_MIN(last, info.end_line + LINES_MAX);
        lp_buf note;
        lp_buf_init(&note, 0);
        lp_buf_printf(&note,
                      "cut at line %u to fit the result budget; read on with start_line %u, "
                      "end_line %u",
                      info.end_line, next_a, next_b);
        json_object_set_new(out, "note", lp_json_textz(note.ptr));
        lp_buf_release(&note);
        lp_mcp_envelope_warn(out, LP_WARN_RANGE_CUT,
                             "lines %u-%u did not fit the result budget; shown %u-%u", start, last,
                             info.start_line, info.end_line);
        json_object_set_new(out, "nextRange", range_json(next_a, 0, next_b));
        next_read(out, c->root.ptr, c->rel.ptr, next_a, 0, next_b);
    } else if (last < info.total_lines) {
        next_read(out, c->root.ptr, c->rel.ptr, last + 1, 0,
                  LP_MIN(info.total_lines, last + LINES_MAX));
    }
    lp_tools_warn_writer(c->t, out, c->root.ptr);
    lp_tools_file_freshness(c->t, out, c->root.ptr, c->rel.ptr, c->pub.id, info.stale);
    lp_tools_file_disk_note(out, &info);
    *result = out;
    return LP_OK;
}

static lp_status read_symbol(read_ctx *c, const char *id, bool path_is_dir, json_t **result,
                             lp_error *err)
{
    lp_arena *arena = lp_mcp_call_arena(c->call);
    lp_symbol_row sym;
    lp_status rc = lp_index_symbol_by_id(c->st, id, arena, &sym, err);
    if (rc == LP_EINVAL)
        return lp_tools_fail(c->call, "invalid_argument", LP_EINVAL, err,
                             "'%.*s' is not a symbol id; ids look like sym:<24 hex digits> and "
                             "come from search_codebase results (owner.id) or file_outline",
                             LP_CUT(id, 80));
    if (rc == LP_ENOENT)
        return lp_tools_fail(c->call, "not_found", LP_ENOENT, err,
                             "no symbol %s in publication %lld of %s (the file or symbol changed "
                             "since the id was given); list the current ids with file_outline "
                             "{path: \"%s\"} or search again",
                             id, (long long)c->pub.id, c->root.ptr, c->root.ptr);
    if (rc == LP_EAMBIGUOUS) {
        lp_mcp_call_set_error_code(c->call, "ambiguous");
        return rc; /* the message names the candidates and says to use file_outline */
    }
    if (rc)
        return rc;
    /* The symbol must belong to the file (or folder) the call named: never serve another. */
    lp_str s = lp_str_c(sym.path), r = lp_buf_str(&c->rel);
    bool inside = r.len == 0 || lp_str_eq(s, r) ||
                  (path_is_dir && s.len > r.len && lp_str_starts_with(s, r) && s.ptr[r.len] == '/');
    if (!inside)
        return lp_tools_fail(c->call, "not_found", LP_ENOENT, err,
                             "symbol %s is in %s, not in %s; call read_file with path \"%s/%s\"",
                             id, sym.path, c->rel.ptr, c->root.ptr, sym.path);
    lp_buf_reset(&c->rel);
    lp_buf_puts(&c->rel, sym.path);
    /* The whole lines of the symbol's span, from the publication (so the first line keeps
     * its indentation and the numbers match search results and outlines). */
    lp_read_info info;
    uint32_t span = sym.end_line >= sym.start_line ? sym.end_line - sym.start_line + 1 : 1;
    rc = read_fitting(c, sym.start_line, 1, sym.end_line, span, &info, err);
    if (rc == LP_ENOENT)
        return not_in_publication(c, err);
    if (rc)
        return rc;
    bool cut = info.truncated && (info.end_line < sym.end_line || info.next_col);
    uint32_t last = info.end_line;
    json_t *out = NULL;
    out = base_result(c, "symbol");
    json_object_set_new(out, "publicationId", json_integer(info.publication_id));
    json_object_set_new(out, "startLine", json_integer(sym.start_line));
    json_object_set_new(out, "endLine", json_integer(cut ? last : sym.end_line));
    json_object_set_new(out, "totalLines", json_integer(info.total_lines));
    json_object_set_new(out, "content", lp_json_text(c->text.ptr, c->text.len));
    json_object_set_new(out, "source",
                        lp_json_textz(info.from_publication ? "publication" : "disk"));
    json_object_set_new(out, "lineCut", cut_json(&info));
    json_t *so = json_object();
    json_object_set_new(so, "id", lp_json_textz(sym.id));
    json_object_set_new(so, "name", lp_json_text(sym.name, strlen(sym.name)));
    json_object_set_new(so, "qualifiedName", lp_json_text(sym.qname, strlen(sym.qname)));
    json_object_set_new(so, "kind", lp_json_textz(lp_symkind_name((lp_symkind)sym.kind)));
    json_object_set_new(so, "startLine", json_integer(sym.start_line));
    json_object_set_new(so, "endLine", json_integer(sym.end_line));
    json_object_set_new(out, "symbol", so);
    if (cut && info.next_col) {
        line_cut(out, c->root.ptr, sym.path, &info, sym.end_line);
    } else if (cut) {
        uint32_t a = last + 1, b = LP_MIN(sym.end_line, last + LINES_MAX);
        lp_buf note;
        lp_buf_init(&note, 0);
        lp_buf_printf(&note,
                      "the symbol spans lines %u-%u; lines %u-%u fit the result budget. Read on "
                      "with start_line %u, end_line %u",
                      sym.start_line, sym.end_line, sym.start_line, last, a, b);
        json_object_set_new(out, "note", lp_json_textz(note.ptr));
        lp_buf_release(&note);
        lp_mcp_envelope_warn(out, LP_WARN_SYMBOL_CUT,
                             "the source of %s was cut after line %u to fit the result budget",
                             sym.qname, last);
        json_object_set_new(out, "nextRange", range_json(a, 0, b));
        next_read(out, c->root.ptr, sym.path, a, 0, b);
    } else {
        json_t *args = json_object();
        lp_json_set_path2(args, "path", c->root.ptr, sym.path);
        lp_mcp_envelope_next_action(out, "file_outline", args);
    }
    lp_tools_warn_writer(c->t, out, c->root.ptr);
    lp_tools_file_freshness(c->t, out, c->root.ptr, sym.path, c->pub.id, info.stale);
    lp_tools_file_disk_note(out, &info);
    *result = out;
    return LP_OK;
}

static lp_status read_fn(lp_mcp_call *call, json_t **result, lp_error *err)
{
    read_ctx c = {
        .call = call, .t = lp_tools_of(call), .budget = lp_mcp_call_max_result_bytes(call)};
    lp_buf_init(&c.root, 0);
    lp_buf_init(&c.rel, 0);
    lp_buf_init(&c.text, 0);
    const char *path = lp_tools_arg_str(call, "path");
    json_t *os = json_object_get(lp_mcp_call_args(call), "open_symbol");
    const char *symbol_id = json_string_value(json_object_get(os, "symbolId"));
    lp_status rc = LP_OK;
    bool is_dir = false;
    if (symbol_id &&
        (lp_tools_arg_present(call, "start_line") || lp_tools_arg_present(call, "end_line"))) {
        rc = lp_tools_fail(call, "invalid_argument", LP_EINVAL, err,
                           "give either open_symbol or start_line/end_line, not both");
        goto done;
    }
    if (symbol_id) {
        /* A symbol may be named with its file or with a folder that contains it. */
        if (path && path[0] != '/') {
            rc = lp_error_set(err, LP_EPATH, "'%s' is relative; give an absolute path", path);
            goto done;
        }
        rc = lp_index_resolve_file(path ? path : "", NULL, &c.root, &c.rel, err);
        if (!rc) {
            lp_buf abs;
            lp_buf_init(&abs, 0);
            lp_buf_printf(&abs, "%s/%s", c.root.ptr, c.rel.ptr);
            struct stat sb;
            is_dir = stat(abs.ptr, &sb) == 0 && S_ISDIR(sb.st_mode);
            lp_buf_release(&abs);
        }
    } else {
        rc = lp_tools_resolve_file(call, path, &c.root, &c.rel, err);
    }
    if (!rc)
        rc = lp_tools_open(call, c.root.ptr, &c.st, &c.pub, err);
    if (rc)
        goto done;
    rc = symbol_id ? read_symbol(&c, symbol_id, is_dir, result, err) : read_lines(&c, result, err);
done:
    lp_buf_release(&c.root);
    lp_buf_release(&c.rel);
    lp_buf_release(&c.text);
    return rc;
}

const lp_mcp_tool_def lp_tool_read_file = {
    .name = "read_file",
    .title = "Read a file or a symbol",
    .description =
        "Read an indexed file by line range (`start_line`, `end_line`; at most 200 lines, "
        "numbered 'N| text') or the exact source of one symbol (`open_symbol: {symbolId}` with "
        "an id from search_codebase or file_outline). Text comes from the index publication the "
        "answer names, so lines agree with search results; `stale` in freshness says the file "
        "on disk differs. A range over 200 lines is compacted to the outline of its symbols "
        "plus its first lines; `note` and `nextRange` say how to read on. Unknown or ambiguous "
        "symbol ids fail with the candidates (use file_outline). Only files inside an indexed "
        "codebase are served; '..' and paths resolving outside are refused.",
    .input_schema = read_input,
    .output_schema = read_output,
    .envelope = true,
    .read_only = true,
    .idempotent = true,
    .truncatable = read_truncatable,
    .fn = read_fn,
};
