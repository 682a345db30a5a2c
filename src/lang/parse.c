/*
 * parse.c: lp_parse, one file's bytes -> symbols and chunks. Dispatches to the code
 * extractor (extract.c), the document sectioner (docs.c) or plain-text packing, then
 * to the chunker (chunk.c). Everything returned lives in the caller's arena.
 */
#include "lang/lang_int.h"
#include "core/settings.h"
#include "lang/refs_int.h"

#include <strings.h>

#define LP_LANG_MAX_INPUT ((size_t)64 << 20) /* offsets are 32-bit; files are <= 8 MiB */

/* Default parse budget of one file: a 1 MiB source file of ordinary code needs 60-180 MiB
 * (tree-sitter's tree is 60-180x the text); a 7.9 MiB one-line minified file needed
 * 600 MiB and a 1M-line Python file 1.4 GiB before this budget (bench/RESULTS-parse-budget.md). */
#define LP_PARSE_BUDGET_MB 256
#define LP_PARSE_BUDGET_MS 30000

static void opts_resolve(const lp_parse_opts *in, lx_chunk_opts *o)
{
    o->max_lines = in && in->chunk_max_lines ? in->chunk_max_lines : 60;
    o->max_bytes = in && in->chunk_max_bytes ? in->chunk_max_bytes : 2400;
    o->overlap_lines = in && in->chunk_overlap_lines ? in->chunk_overlap_lines : 8;
    if (o->max_bytes < 64)
        o->max_bytes = 64;
    if (o->max_lines < 2)
        o->max_lines = 2;
    if (o->overlap_lines >= o->max_lines)
        o->overlap_lines = o->max_lines / 2;
}

/*
 * Long lines and column-tracking scanners. Scala's external scanner asks tree-sitter for
 * the current column on every token (its indentation rules), and tree-sitter finds a column
 * by reading the line again from its start: a line of L bytes costs O(L^2) (a single 72 KB
 * line takes 30 s, 110 KB a minute; other grammars parse it in under a second). For such
 * grammars the lines longer than LONG_LINE bytes are charged their squared length against
 * LONG_LINE_BUDGET (one 16 KiB line, or sixteen 4 KiB ones, about a second); past it the
 * file is not given to tree-sitter and is kept as plain text with partial_parse set, like a
 * file that does not parse. Hand-written code never comes near; generated code can.
 */
#define LONG_LINE ((size_t)4096)
#define LONG_LINE_BUDGET ((uint64_t)16384 * 16384)

static bool scanner_tracks_columns(lp_lang lang)
{
    const lp_lang_spec *spec = lp_lang_spec_for(lang);
    return spec && spec->scanner_tracks_columns;
}

static bool too_costly_lines(lp_lang lang, lp_str content)
{
    if (!scanner_tracks_columns(lang))
        return false;
    uint64_t cost = 0;
    for (size_t i = 0; i < content.len;) {
        const char *nl = memchr(content.ptr + i, '\n', content.len - i);
        size_t end = nl ? (size_t)(nl - content.ptr) : content.len;
        uint64_t len = end - i;
        if (len > LONG_LINE) {
            cost += len * len;
            if (cost > LONG_LINE_BUDGET)
                return true;
        }
        i = end + 1;
    }
    return false;
}

void lp_parse_budget_default(uint64_t *bytes, uint64_t *ms)
{
    *bytes = lp_setting_u64(LP_SET_PARSE_BUDGET_MB) << 20;
    *ms = lp_setting_u64(LP_SET_PARSE_BUDGET_MS);
}

static lp_status parse_code_inner(lp_lang lang, lp_str content, const lx_chunk_opts *o,
                                  bool want_refs, lp_arena *arena, lp_parse_result *out,
                                  lp_error *err);

/* A code file under its budget: armed for the parse and the walk; when it runs out the
 * arena is rewound and the file is kept as text, with parse_budget saying why. */
static lp_status parse_code(lp_lang lang, lp_str content, const lx_chunk_opts *o,
                            bool want_refs, const lp_parse_opts *opts, lp_arena *arena,
                            lp_parse_result *out, lp_error *err)
{
    lx_budget b = {.max_bytes = opts ? opts->budget_bytes : 0,
                   .max_ms = opts ? opts->budget_ms : 0};
    bool armed = b.max_bytes || b.max_ms;
    lp_arena_mark mark = lp_arena_get_mark(arena);
    if (armed)
        lp_lx_budget_arm(&b);
    lp_status rc = parse_code_inner(lang, content, o, want_refs, arena, out, err);
    if (armed)
        lp_lx_budget_arm(NULL);
    if (rc == LP_ETOOBIG && b.over) {
        lp_log(LP_LOG_INFO, "lang.parse_budget", "lang=%s bytes=%zu over=%s ms=%llu",
               lp_lang_name(lang), content.len, b.over,
               (unsigned long long)((lp_now_ns() - b.t0_ns) / 1000000));
        lp_arena_rewind(arena, mark);
        memset(out, 0, sizeof *out);
        out->lang = lang;
        lp_lx_chunk_text(content, o, arena, &out->chunks, &out->nchunks);
        out->symbols = lp_arena_zalloc(arena, sizeof(lp_symbol));
        out->parse_budget = b.over;
        if (err) {
            err->code = LP_OK;
            err->msg[0] = '\0';
        }
        rc = LP_OK;
    }
    return rc;
}

static lp_status parse_code_inner(lp_lang lang, lp_str content, const lx_chunk_opts *o,
                                  bool want_refs, lp_arena *arena, lp_parse_result *out,
                                  lp_error *err)
{
    if (too_costly_lines(lang, content)) {
        lp_log(LP_LOG_INFO, "lang.long_lines_as_text", "lang=%s bytes=%zu", lp_lang_name(lang),
               content.len);
        lp_lx_chunk_text(content, o, arena, &out->chunks, &out->nchunks);
        out->symbols = lp_arena_zalloc(arena, sizeof(lp_symbol));
        out->partial_parse = true;
        return LP_OK;
    }
    const lx_lang_rt *rt = lp_lang_rt_get(lang, err);
    if (!rt)
        return err ? err->code : LP_ERROR;
    lx_sym *syms = NULL;
    size_t n = 0;
    bool partial = false;
    lx_refs refs;
    lp_lx_refs_init(&refs, lang);
    lp_status rc = lp_lx_extract(rt, content, arena, &syms, &n, &partial, want_refs ? &refs : NULL,
                              err);
    if (rc) {
        lp_lx_refs_release(&refs);
        return rc;
    }
    lx_lines lines;
    lp_lx_lines_build(content, arena, &lines);
    uint32_t *ord = lp_xcalloc(n ? n : 1, sizeof(uint32_t));
    lp_lx_assign_ordinals(syms, n, ord);
    lp_symbol *out_syms = lp_arena_zalloc(arena, (n ? n : 1) * sizeof(lp_symbol));
    lx_owner *owners = lp_xcalloc(n ? n : 1, sizeof(lx_owner));
    for (size_t i = 0; i < n; i++) {
        const lx_sym *s = &syms[i];
        lp_symbol *d = &out_syms[i];
        d->kind = s->kind;
        d->name = lp_arena_strndup(arena, s->name.ptr, s->name.len);
        d->qname = s->qname ? s->qname : d->name;
        d->span = lp_lx_make_span(&lines, s->start, s->end);
        d->sig = lp_lx_make_span(&lines, s->start, s->sig_end);
        if (s->has_doc)
            d->doc = lp_lx_make_span(&lines, s->doc_start, s->doc_end);
        d->parent = s->parent;
        d->ordinal = ord[i];
        d->vis = s->vis;
        d->flags = s->flags;

        lx_owner *w = &owners[i];
        w->region_start = s->outer_start;
        if (s->has_doc && s->doc_start < w->region_start)
            w->region_start = s->doc_start;
        w->end = s->end;
        w->has_body = s->has_body;
        w->body_start = s->body_start;
        w->body_end = s->body_end;
        if (s->has_doc && s->doc_end <= s->outer_start) {
            w->has_doc_cut = true;
            w->doc_cut_start = s->doc_start;
            w->doc_cut_end = s->outer_start;
        }
        w->container = s->container;
        w->owns_chunks = !s->no_chunk && (s->container < 0 || s->has_body);
        w->kind = LP_CHUNK_CODE;
    }
    lp_lx_chunk(content, &lines, owners, n, LP_CHUNK_MODULE, o, arena, &out->chunks, &out->nchunks);
    lp_lx_refs_output(&refs, &lines, arena, &out->refs, &out->nrefs);
    lp_lx_refs_release(&refs);
    out->symbols = out_syms;
    out->nsymbols = n;
    out->partial_parse = partial;
    free(owners);
    free(ord);
    free(syms);
    return LP_OK;
}

static void parse_doc(lp_lang lang, lp_str content, const lx_chunk_opts *o, lp_arena *arena,
                      lp_parse_result *out)
{
    lp_symbol *syms = NULL;
    uint32_t *own_end = NULL;
    size_t n = 0;
    lx_lines lines;
    lp_lx_lines_build(content, arena, &lines);
    lp_lx_doc_sections(lang, content, &lines, arena, &syms, &own_end, &n);
    lx_owner *owners = lp_xcalloc(n ? n : 1, sizeof(lx_owner));
    for (size_t i = 0; i < n; i++) {
        owners[i].region_start = syms[i].span.start_byte;
        owners[i].end = own_end[i];
        owners[i].container = -1;
        owners[i].owns_chunks = true;
        owners[i].kind = LP_CHUNK_SECTION;
    }
    lp_lx_chunk(content, &lines, owners, n, LP_CHUNK_TEXT, o, arena, &out->chunks, &out->nchunks);
    out->symbols = syms;
    out->nsymbols = n;
    free(owners);
}

lp_status lp_parse(lp_lang lang, lp_str content, const lp_parse_opts *opts, lp_arena *arena,
                   lp_parse_result *out, lp_error *err)
{
    memset(out, 0, sizeof(*out));
    if ((unsigned)lang >= LP_LANG_COUNT)
        return lp_error_set(err, LP_EINVAL, "unknown language number %d", (int)lang);
    if (!arena || (!content.ptr && content.len))
        return lp_error_set(err, LP_EINVAL, "lp_parse needs an arena and content");
    if (content.len > LP_LANG_MAX_INPUT)
        return lp_error_set(err, LP_ETOOBIG,
                            "file of %zu bytes is over the parser's 64 MiB limit; skip it",
                            content.len);
    if (!content.ptr)
        content = LP_STR("");
    lx_chunk_opts o;
    opts_resolve(opts, &o);
    out->lang = lang;
    lp_status rc = LP_OK;
    switch (lang) {
    case LP_LANG_TEXT:
        lp_lx_chunk_text(content, &o, arena, &out->chunks, &out->nchunks);
        out->symbols = lp_arena_zalloc(arena, sizeof(lp_symbol));
        break;
    case LP_LANG_MARKDOWN:
    case LP_LANG_RST:
        parse_doc(lang, content, &o, arena, out);
        break;
    default:
        rc = parse_code(lang, content, &o, !(opts && opts->no_refs), opts, arena, out, err);
        break;
    }
    if (rc == LP_OK)
        out->content_flags = lp_lang_content_flags(content);
    return rc;
}

/* ------------------------------------------------------------------------------------------
 * Content flags: generated markers and minified text (contract in lang.h). */

#define MARKER_SCAN_BYTES 4096
#define MINIFIED_MIN_BYTES 1024
#define MINIFIED_MEAN_LINE 300
#define MINIFIED_LONG_LINE 1000
#define MINIFIED_HUGE_LINE 4096

static bool has_cs(lp_str s, const char *needle)
{
    return memmem(s.ptr, s.len, needle, strlen(needle)) != NULL;
}

static bool has_ci(lp_str s, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= s.len; i++)
        if (!strncasecmp(s.ptr + i, needle, n))
            return true;
    return false;
}

/* A line that is a comment in any of the languages loupe reads (a string literal that
 * happens to hold the words, as a code generator's own source does, is not a marker). */
static bool comment_line(lp_str line)
{
    size_t i = 0;
    while (i < line.len && (line.ptr[i] == ' ' || line.ptr[i] == '\t'))
        i++;
    lp_str t = lp_str_sub(line, i, line.len);
    static const char *const leads[] = {"//", "#", "/*", "*", "--", "<!--", ";", "'''", "\"\"\""};
    for (size_t k = 0; k < LP_ARRAY_LEN(leads); k++)
        if (lp_str_starts_with(t, lp_str_c(leads[k])))
            return true;
    return false;
}

static bool generated_line(lp_str line)
{
    if (!comment_line(line))
        return false;
    /* Case-sensitive searches first (memmem): most header lines are license text. */
    if (has_cs(line, "@generated") || has_cs(line, "<auto-generated") ||
        has_cs(line, "<autogenerated"))
        return true;
    return has_cs(line, "DO NOT EDIT") && has_ci(line, "generat");
}

uint32_t lp_lang_content_flags(lp_str content)
{
    uint32_t flags = 0;
    size_t head = LP_MIN(content.len, (size_t)MARKER_SCAN_BYTES);
    for (size_t i = 0; i < head;) {
        const char *nl = memchr(content.ptr + i, '\n', head - i);
        size_t e = nl ? (size_t)(nl - content.ptr) : head;
        if (generated_line(lp_str_sub(content, i, e))) {
            flags |= LP_CONTENT_GENERATED;
            break;
        }
        i = e + 1;
    }
    if (content.len < MINIFIED_MIN_BYTES)
        return flags;
    size_t lines = 0, longest = 0, ws = 0;
    for (size_t i = 0; i < content.len;) {
        const char *nl = memchr(content.ptr + i, '\n', content.len - i);
        size_t e = nl ? (size_t)(nl - content.ptr) : content.len;
        longest = LP_MAX(longest, e - i);
        lines++;
        i = e + 1;
    }
    if (longest > MINIFIED_HUGE_LINE) {
        for (size_t i = 0; i < content.len; i++) {
            char c = content.ptr[i];
            ws += c == ' ' || c == '\t' || c == '\n' || c == '\r';
        }
    }
    if ((content.len / lines > MINIFIED_MEAN_LINE && longest > MINIFIED_LONG_LINE) ||
        (longest > MINIFIED_HUGE_LINE && ws * 100 < content.len * 8))
        flags |= LP_CONTENT_MINIFIED;
    return flags;
}

static void dump_node(TSTreeCursor *c, lp_str content, lp_buf *out)
{
    uint32_t depth = 0;
    for (;;) {
        TSNode n = ts_tree_cursor_current_node(c);
        const char *field = ts_tree_cursor_current_field_name(c);
        bool named = ts_node_is_named(n);
        if (named || ts_node_is_missing(n)) {
            lp_buf_printf(out, "%*s%s%s%s%s [%u,%u)", (int)depth * 2, "", field ? field : "",
                          field ? ": " : "", ts_node_is_missing(n) ? "MISSING " : "",
                          ts_node_type(n), ts_node_start_byte(n), ts_node_end_byte(n));
            if (ts_node_child_count(n) == 0) {
                uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
                if (b > a && b - a <= 40 && b <= content.len && !memchr(content.ptr + a, '\n', b - a))
                    lp_buf_printf(out, " \"%.*s\"", (int)(b - a), content.ptr + a);
            }
            lp_buf_putc(out, '\n');
        }
        if (ts_tree_cursor_goto_first_child(c)) {
            depth++;
            continue;
        }
        while (!ts_tree_cursor_goto_next_sibling(c)) {
            if (!ts_tree_cursor_goto_parent(c))
                return;
            depth--;
        }
    }
}

lp_status lp_parse_tree_dump(lp_lang lang, lp_str content, lp_buf *out, lp_error *err)
{
    const lx_lang_rt *rt = lp_lang_rt_get(lang, err);
    if (!rt)
        return err ? err->code : LP_EUNSUPPORTED;
    TSParser *p = lp_lang_thread_parser(lang);
    if (!p)
        return lp_error_set(err, LP_ERROR, "no parser for %s", lp_lang_name(lang));
    TSTree *t = ts_parser_parse_string(p, NULL, content.ptr ? content.ptr : "", (uint32_t)content.len);
    if (!t)
        return lp_error_set(err, LP_ERROR, "tree-sitter gave no tree");
    if (out) {
        TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(t));
        dump_node(&c, content, out);
        ts_tree_cursor_delete(&c);
    }
    ts_tree_delete(t);
    return LP_OK;
}
