/*
 * cmd_parse.c: `loupe parse` (hidden debug command): run src/lang on files and print the
 * outline (symbols), the chunks, the syntax tree, or throughput statistics. The golden
 * outline tests and bench/lang.sh drive it.
 */
#include "cli/cli_int.h"
#include "lang/lang.h"

#include "core/json.h"

#define PARSE_MAX_FILE ((size_t)64 << 20)

typedef struct parse_args {
    const char *lang;
    const char *files_from;
    bool json, chunks, chunk_text, stats, tree, parse_only;
    LP_VEC(const char *) files;
} parse_args;

static const char usage_text[] =
    "usage: loupe parse FILE... [--lang L] [--json] [--chunks] [--chunk-text]\n"
    "       loupe parse --stats [--parse-only] [--lang L] [--files-from LIST] [FILE...]\n"
    "\n"
    "Debug command: parse files with loupe's language layer and print what the index\n"
    "would store. The outline lists one symbol per line:\n"
    "  KIND QNAME[#ORDINAL] LINES [BYTES) vis=V [flags=F] [doc=LINES] [^PARENT] | SIGNATURE\n"
    "(the signature on one line, whitespace collapsed, at most 120 bytes)\n"
    "indented by nesting. --chunks adds one line per chunk, --chunk-text their text too.\n"
    "--tree prints tree-sitter's syntax tree first.\n"
    "--stats --parse-only times tree-sitter's parse alone (the benchmark's baseline).\n"
    "--stats parses every file (LIST: one path per line) and prints bytes, time and MB/s\n"
    "per language instead of outlines. --lang forces a language (python, js, ts, tsx, go,\n"
    "rust, java, c, cpp, cs, scala, markdown, rst, text); otherwise it is detected.\n";

static const char *vis_name(lp_visibility v)
{
    switch (v) {
    case LP_VIS_PUBLIC: return "public";
    case LP_VIS_PRIVATE: return "private";
    case LP_VIS_PROTECTED: return "protected";
    case LP_VIS_INTERNAL: return "internal";
    default: return "unknown";
    }
}

static void flags_str(uint32_t f, lp_buf *b)
{
    static const struct {
        uint32_t bit;
        const char *name;
    } names[] = {{LP_SYMF_ASYNC, "async"},       {LP_SYMF_STATIC, "static"},
                 {LP_SYMF_ABSTRACT, "abstract"}, {LP_SYMF_DECLARATION, "declaration"},
                 {LP_SYMF_TEST, "test"},         {LP_SYMF_DEFAULT_EXPORT, "default_export"}};
    for (size_t i = 0; i < LP_ARRAY_LEN(names); i++)
        if (f & names[i].bit) {
            if (b->len)
                lp_buf_putc(b, ',');
            lp_buf_puts(b, names[i].name);
        }
}

/* A span's text on one line: whitespace runs collapsed, at most 120 bytes (cut at a UTF-8
 * boundary). Signatures spanning lines (template<...>, long parameter lists) stay whole. */
static lp_str one_line(lp_str content, lp_span sp, char *buf, size_t cap)
{
    if (sp.end_byte > content.len || sp.start_byte > sp.end_byte || cap < 8)
        return LP_STR("");
    lp_str t = lp_str_trim(lp_str_sub(content, sp.start_byte, sp.end_byte));
    size_t n = 0;
    bool space = false;
    for (size_t i = 0; i < t.len && n + 1 < cap; i++) {
        char c = t.ptr[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            space = true;
            continue;
        }
        if (space && n + 2 < cap)
            buf[n++] = ' ';
        space = false;
        buf[n++] = c;
    }
    n = lp_utf8_cut(buf, n, 120);
    buf[n] = 0;
    return (lp_str){buf, n};
}

static int depth_of(const lp_parse_result *r, size_t i)
{
    int d = 0;
    for (int32_t p = r->symbols[i].parent; p >= 0 && d < 64; p = r->symbols[p].parent)
        d++;
    return d;
}

static void print_outline(FILE *out, const char *path, lp_str content, const lp_parse_result *r,
                          const parse_args *a)
{
    fprintf(out, "# %s: lang=%s symbols=%zu chunks=%zu partial=%s\n", path,
            lp_lang_name(r->lang), r->nsymbols, r->nchunks, r->partial_parse ? "yes" : "no");
    lp_buf fl;
    lp_buf_init(&fl, 0);
    for (size_t i = 0; i < r->nsymbols; i++) {
        const lp_symbol *s = &r->symbols[i];
        lp_buf_reset(&fl);
        flags_str(s->flags, &fl);
        fprintf(out, "%*s%s %s", depth_of(r, i) * 2, "", lp_symkind_name(s->kind), s->qname);
        if (s->ordinal)
            fprintf(out, "#%u", s->ordinal);
        fprintf(out, " %u-%u [%u,%u) vis=%s", s->span.start_line, s->span.end_line,
                s->span.start_byte, s->span.end_byte, vis_name(s->vis));
        if (fl.len)
            fprintf(out, " flags=%s", fl.ptr);
        if (s->doc.start_line)
            fprintf(out, " doc=%u-%u", s->doc.start_line, s->doc.end_line);
        if (s->parent >= 0)
            fprintf(out, " ^%s", r->symbols[s->parent].qname);
        char sigbuf[512];
        lp_str sig = one_line(content, s->sig, sigbuf, sizeof(sigbuf));
        fprintf(out, " | " LP_STR_FMT "\n", LP_STR_ARG(sig));
    }
    lp_buf_release(&fl);
    if (!a->chunks && !a->chunk_text)
        return;
    static const char *const ck[] = {"code", "module", "section", "text"};
    for (size_t i = 0; i < r->nchunks; i++) {
        const lp_chunk *c = &r->chunks[i];
        fprintf(out, "chunk %s %s %u-%u [%u,%u) %zuB\n", ck[c->kind],
                c->owner >= 0 ? r->symbols[c->owner].qname : "-", c->span.start_line,
                c->span.end_line, c->span.start_byte, c->span.end_byte, c->text_len);
        if (a->chunk_text) {
            lp_str t = lp_str_n(c->text, c->text_len);
            size_t pos = 0;
            while (pos < t.len) {
                size_t nl = lp_str_find_char(t, '\n', pos);
                size_t e = nl == SIZE_MAX ? t.len : nl;
                fprintf(out, "  | %.*s\n", (int)(e - pos), t.ptr + pos);
                pos = e + 1;
            }
        }
    }
}

static json_t *span_json(lp_span s)
{
    return lp_json_pack("{s:I,s:I,s:I,s:I}", "start_line", (json_int_t)s.start_line, "end_line",
                     (json_int_t)s.end_line, "start_byte", (json_int_t)s.start_byte, "end_byte",
                     (json_int_t)s.end_byte);
}

static json_t *result_json(const char *path, lp_str content, const lp_parse_result *r,
                           const parse_args *a)
{
    json_t *syms = json_array();
    lp_buf fl;
    lp_buf_init(&fl, 0);
    for (size_t i = 0; i < r->nsymbols; i++) {
        const lp_symbol *s = &r->symbols[i];
        lp_buf_reset(&fl);
        flags_str(s->flags, &fl);
        char sigbuf[512];
        lp_str sig = one_line(content, s->sig, sigbuf, sizeof(sigbuf));
        json_t *o = lp_json_pack("{s:s,s:o,s:o,s:I,s:o,s:o,s:o,s:I,s:s,s:s}", "kind",
                              lp_symkind_name(s->kind), "name", lp_json_textz(s->name), "qname",
                              lp_json_textz(s->qname), "ordinal", (json_int_t)s->ordinal, "span",
                              span_json(s->span), "sig", span_json(s->sig), "sig_text",
                              lp_json_text(sig.ptr, sig.len), "parent",
                              (json_int_t)s->parent, "visibility", vis_name(s->vis), "flags",
                              fl.ptr);
        json_object_set_new(o, "doc", s->doc.start_line ? span_json(s->doc) : json_null());
        json_array_append_new(syms, o);
    }
    lp_buf_release(&fl);
    json_t *root = lp_json_pack("{s:s,s:b,s:o}", "lang", lp_lang_name(r->lang), "partial",
                                r->partial_parse, "symbols", syms);
    if (root)
        lp_json_set_path(root, "path", path, strlen(path));
    if (a->chunks || a->chunk_text) {
        static const char *const ck[] = {"code", "module", "section", "text"};
        json_t *chunks = json_array();
        for (size_t i = 0; i < r->nchunks; i++) {
            const lp_chunk *c = &r->chunks[i];
            json_t *o = lp_json_pack("{s:I,s:s,s:o}", "owner", (json_int_t)c->owner, "kind",
                                  ck[c->kind], "span", span_json(c->span));
            if (a->chunk_text)
                json_object_set_new(o, "text", lp_json_text(c->text, c->text_len));
            json_array_append_new(chunks, o);
        }
        json_object_set_new(root, "chunks", chunks);
    }
    return root;
}

typedef struct lang_stats {
    uint64_t files, bytes, ns, symbols, chunks, partial;
} lang_stats;

static lp_status parse_one(const char *path, const parse_args *a, lang_stats *stats,
                           json_t *json_out, lp_error *err)
{
    lp_status rc = LP_OK;
    lp_buf content;
    lp_buf_init(&content, 0);
    lp_arena arena;
    lp_arena_init(&arena, 0);
    rc = lp_read_file(path, PARSE_MAX_FILE, &content, err);
    if (rc)
        goto done;
    lp_lang lang;
    if (a->lang) {
        lang = lp_lang_from_name(lp_str_c(a->lang));
    } else {
        lp_str head = lp_str_n(content.ptr, LP_MIN(content.len, (size_t)8192));
        lang = lp_lang_detect(lp_str_c(path), head);
    }
    lp_parse_result r;
    memset(&r, 0, sizeof(r));
    if (stats) { /* warm up: the language's query compiles on first use, not timed */
        lp_arena_mark m = lp_arena_get_mark(&arena);
        (void)lp_parse(lang, LP_STR(""), NULL, &arena, &r, NULL);
        lp_arena_rewind(&arena, m);
    }
    uint64_t t0 = lp_now_ns();
    if (a->parse_only && a->stats)
        rc = lp_lang_has_symbols(lang) && lang != LP_LANG_MARKDOWN && lang != LP_LANG_RST
                 ? lp_parse_tree_dump(lang, lp_buf_str(&content), NULL, err)
                 : LP_OK;
    else
        rc = lp_parse(lang, lp_buf_str(&content), NULL, &arena, &r, err);
    uint64_t t1 = lp_now_ns();
    if (rc) {
        lp_error_prefix(err, "%s", path);
        goto done;
    }
    if (a->tree) {
        lp_buf dump;
        lp_buf_init(&dump, 0);
        rc = lp_parse_tree_dump(lang, lp_buf_str(&content), &dump, err);
        fwrite(dump.ptr, 1, dump.len, stdout);
        lp_buf_release(&dump);
        if (rc)
            goto done;
    }
    if (stats) {
        lang_stats *s = &stats[lang];
        s->files++;
        s->bytes += content.len;
        s->ns += t1 - t0;
        s->symbols += r.nsymbols;
        s->chunks += r.nchunks;
        s->partial += r.partial_parse;
    } else if (json_out) {
        json_array_append_new(json_out, result_json(path, lp_buf_str(&content), &r, a));
    } else {
        print_outline(stdout, path, lp_buf_str(&content), &r, a);
    }
done:
    lp_arena_release(&arena);
    lp_buf_release(&content);
    return rc;
}

static void print_stats(const lang_stats *stats, bool json)
{
    lang_stats total;
    memset(&total, 0, sizeof(total));
    json_t *arr = json ? json_array() : NULL;
    if (!json)
        printf("%-11s %7s %12s %10s %9s %9s %8s %8s\n", "lang", "files", "bytes", "ms", "MB/s",
               "symbols", "chunks", "partial");
    for (int l = 0; l <= LP_LANG_COUNT; l++) {
        const lang_stats *s = l < LP_LANG_COUNT ? &stats[l] : &total;
        if (l < LP_LANG_COUNT) {
            if (!s->files)
                continue;
            total.files += s->files;
            total.bytes += s->bytes;
            total.ns += s->ns;
            total.symbols += s->symbols;
            total.chunks += s->chunks;
            total.partial += s->partial;
        }
        const char *name = l < LP_LANG_COUNT ? lp_lang_name((lp_lang)l) : "total";
        double mbs = s->ns ? (double)s->bytes / 1e6 / ((double)s->ns / 1e9) : 0;
        if (json)
            json_array_append_new(arr, lp_json_pack("{s:s,s:I,s:I,s:f,s:f,s:I,s:I,s:I}", "lang",
                                                 name, "files", (json_int_t)s->files, "bytes",
                                                 (json_int_t)s->bytes, "ms", (double)s->ns / 1e6,
                                                 "mb_per_s", mbs, "symbols",
                                                 (json_int_t)s->symbols, "chunks",
                                                 (json_int_t)s->chunks, "partial",
                                                 (json_int_t)s->partial));
        else
            printf("%-11s %7llu %12llu %10.1f %9.2f %9llu %8llu %8llu\n", name,
                   (unsigned long long)s->files, (unsigned long long)s->bytes,
                   (double)s->ns / 1e6, mbs, (unsigned long long)s->symbols,
                   (unsigned long long)s->chunks, (unsigned long long)s->partial);
    }
    if (json) {
        json_dumpf(arr, stdout, JSON_COMPACT);
        fputc('\n', stdout);
        json_decref(arr);
    }
}

static lp_status read_list(const char *list, parse_args *a, lp_buf *store, lp_error *err)
{
    lp_status rc = lp_read_file(list, (size_t)256 << 20, store, err);
    if (rc)
        return rc;
    char *p = store->ptr, *e = store->ptr + store->len;
    while (p < e) {
        char *nl = memchr(p, '\n', (size_t)(e - p));
        if (!nl)
            nl = e;
        *nl = 0;
        if (nl > p)
            lp_vec_push(&a->files, p);
        p = nl + 1;
    }
    return LP_OK;
}

static int run(int argc, char **argv)
{
    parse_args a;
    memset(&a, 0, sizeof(a));
    int code = LP_EXIT_OK;
    lp_buf list;
    lp_buf_init(&list, 0);
    lp_error err;
    lp_error_clear(&err);
    bool opts_done = false;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        if (opts_done)
            lp_vec_push(&a.files, s);
        else if (!strcmp(s, "--"))
            opts_done = true;
        else if (!strcmp(s, "--json"))
            a.json = true;
        else if (!strcmp(s, "--chunks"))
            a.chunks = true;
        else if (!strcmp(s, "--chunk-text"))
            a.chunk_text = true;
        else if (!strcmp(s, "--tree"))
            a.tree = true;
        else if (!strcmp(s, "--parse-only"))
            a.parse_only = true;
        else if (!strcmp(s, "--stats"))
            a.stats = true;
        else if (!strcmp(s, "--lang") || !strcmp(s, "--files-from")) {
            if (i + 1 >= argc) {
                code = lp_cli_usage_error("parse", "%s needs a value", s);
                goto done;
            }
            if (!strcmp(s, "--lang"))
                a.lang = argv[++i];
            else
                a.files_from = argv[++i];
        } else if (s[0] == '-' && s[1]) {
            code = lp_cli_unknown_option("parse", s);
            goto done;
        } else {
            lp_vec_push(&a.files, s);
        }
    }
    if (a.lang && lp_lang_from_name(lp_str_c(a.lang)) == LP_LANG_COUNT) {
        code = lp_cli_usage_error("parse", "unknown language '%s'", a.lang);
        goto done;
    }
    if (a.files_from && read_list(a.files_from, &a, &list, &err)) {
        code = lp_cli_fail(&err, a.json);
        goto done;
    }
    if (a.files.len == 0) {
        code = lp_cli_usage_error("parse", "give at least one FILE");
        goto done;
    }
    lp_lang_init();
    lang_stats stats[LP_LANG_COUNT];
    memset(stats, 0, sizeof(stats));
    json_t *arr = a.json && !a.stats ? json_array() : NULL;
    for (size_t i = 0; i < a.files.len; i++) {
        if (parse_one(a.files.items[i], &a, a.stats ? stats : NULL, arr, &err)) {
            if (a.stats) { /* a corpus run skips what it cannot read, and says so */
                fprintf(stderr, "loupe parse: skipped: %s\n", err.msg);
                continue;
            }
            json_decref(arr);
            code = lp_cli_fail(&err, a.json);
            goto done;
        }
    }
    if (a.stats) {
        print_stats(stats, a.json);
    } else if (arr) {
        json_t *out = a.files.len == 1 ? json_incref(json_array_get(arr, 0)) : json_incref(arr);
        json_dumpf(out, stdout, JSON_INDENT(1));
        fputc('\n', stdout);
        json_decref(out);
        json_decref(arr);
    }
done:
    lp_lang_thread_release();
    lp_vec_free(&a.files);
    lp_buf_release(&list);
    return code;
}

const lp_cli_cmd lp_cmd_parse = {
    .name = "parse",
    .summary = "parse files and print symbols and chunks (debug)",
    .usage = usage_text,
    .run = run,
    .hidden = true,
};
