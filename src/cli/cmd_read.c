/*
 * cmd_read.c: `loupe read FILE[:START-END]`: bounded reads, only inside an indexed root.
 */
#include "cli/cli_int.h"

#include "index/index.h"

#include <getopt.h>
#include "core/json.h"
#include <sys/stat.h>
#include <unistd.h>

/* "A" or "A-B" (B = A when absent), both positive and at most UINT32_MAX. */
static bool parse_range(lp_str range, uint64_t *a_out, uint64_t *b_out)
{
    size_t dash = lp_str_find_char(range, '-', 0);
    lp_str a = dash == SIZE_MAX ? range : lp_str_sub(range, 0, dash);
    lp_str b = dash == SIZE_MAX ? range : lp_str_sub(range, dash + 1, range.len);
    return lp_parse_u64(a, a_out) && lp_parse_u64(b, b_out) && *a_out > 0 && *b_out > 0 &&
           *a_out <= UINT32_MAX && *b_out <= UINT32_MAX;
}

/* Split "path:10-20", "path:10", "path:10:COL" and "path:10:COL-20" when the whole string is
 * not an existing file. col is 0 unless given. The path may be in the escaped form of plain
 * output (lp_cli_path_arg). */
static bool split_range(const char *arg, lp_buf *path, uint64_t *start, uint64_t *col,
                        uint64_t *end)
{
    lp_buf_reset(path);
    lp_buf_puts(path, arg);
    *start = *end = *col = 0;
    struct stat sb;
    if (stat(arg, &sb) == 0)
        return true;
    const char *colon = strrchr(arg, ':');
    if (!colon)
        return true;
    if (!parse_range(lp_str_c(colon + 1), start, end))
        return false;
    lp_buf_truncate(path, (size_t)(colon - arg));
    /* FILE:LINE:COL[-END]: the range was COL[-END]. */
    const char *c2 = memrchr(path->ptr, ':', path->len);
    uint64_t line;
    if (c2 && stat(path->ptr, &sb) != 0 &&
        lp_parse_u64(lp_str_n(c2 + 1, path->len - (size_t)(c2 + 1 - path->ptr)), &line) &&
        line > 0 && line <= UINT32_MAX && *start <= UINT32_MAX) {
        bool has_end = strchr(colon + 1, '-') != NULL;
        *col = *start;
        *end = has_end ? *end : 0;
        *start = line;
        lp_buf_truncate(path, (size_t)(c2 - path->ptr));
        return !*end || *end >= *start;
    }
    return *end >= *start;
}

/* read --symbol ID: the exact source of one published symbol. */
static int read_symbol(const char *id, bool json)
{
    lp_error err = {0};
    lp_buf root;
    lp_buf_init(&root, 0);
    lp_arena arena;
    lp_arena_init(&arena, 0);
    lp_store *st = NULL;
    int code = LP_EXIT_OK;
    lp_symbol_row sym;
    const char *text = "";
    bool truncated = false;
    lp_status rc = lp_cli_root_for(NULL, true, false, &root, &err);
    if (!rc)
        rc = lp_store_open(root.ptr, LP_STORE_READ, &st, &err);
    if (!rc)
        rc = lp_store_pin(st, &err);
    if (!rc) {
        rc = lp_index_symbol_by_id(st, id, &arena, &sym, &err);
        if (!rc)
            rc = lp_index_symbol_source(st, &sym, 256 * 1024, &arena, &text, &truncated, &err);
        lp_store_unpin(st);
    }
    if (rc) {
        code = lp_cli_fail(&err, json);
        goto done;
    }
    if (json) {
        json_t *j = lp_json_pack("{s:s, s:o, s:i, s:i, s:b, s:o}", "id", sym.id, "qualifiedName",
                                 lp_json_textz(sym.qname), "startLine", (int)sym.start_line,
                                 "endLine", (int)sym.end_line, "truncated", truncated, "content",
                                 lp_json_textz(text));
        if (j) {
            lp_json_set_path(j, "root", root.ptr, root.len);
            lp_json_set_path(j, "file", sym.path, strlen(sym.path));
        }
        code = lp_cli_print_json(j);
        json_decref(j);
    } else {
        lp_buf shown;
        lp_buf_init(&shown, 0);
        printf("%s:%u-%u ", lp_cli_path_text(sym.path, &shown), sym.start_line, sym.end_line);
        printf("%s\n", lp_cli_text(sym.qname, strlen(sym.qname), &shown));
        uint32_t line = sym.start_line;
        for (const char *p = text; *p;) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            lp_buf_reset(&shown);
            lp_utf8_put(&shown, p, len);
            printf("%u| %s\n", line++, shown.ptr);
            p += len + (nl ? 1 : 0);
        }
        lp_buf_release(&shown);
        if (truncated)
            fprintf(stderr, "loupe: the symbol is larger than 256 KiB; the output was cut\n");
    }
done:
    lp_store_close(st);
    lp_buf_release(&root);
    lp_arena_release(&arena);
    return code;
}

static int run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},
        {"max-lines", required_argument, NULL, 'l'},
        {"max-bytes", required_argument, NULL, 'b'},
        {"publication", no_argument, NULL, 'p'},
        {"symbol", required_argument, NULL, 's'},
        {NULL, 0, NULL, 0},
    };
    bool json = false, prefer_pub = false;
    const char *symbol_id = NULL;
    uint64_t max_lines = 400, max_bytes = 256 * 1024;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "j", longopts, NULL)) != -1) {
        if (c == 'j')
            json = true;
        else if (c == 'p')
            prefer_pub = true;
        else if (c == 's')
            symbol_id = optarg;
        else if (c == 'l') {
            if (!lp_cli_parse_count("read", "--max-lines", optarg, 100000, &max_lines))
                return LP_EXIT_USAGE;
        } else if (c == 'b') {
            if (!lp_cli_parse_count("read", "--max-bytes", optarg, 64u << 20, &max_bytes))
                return LP_EXIT_USAGE;
            if (max_bytes < 256)
                return lp_cli_usage_error("read", "--max-bytes needs at least 256, not '%s'",
                                          optarg);
        } else
            return lp_cli_unknown_option("read", lp_cli_getopt_bad_arg(argc, argv));
    }
    if (symbol_id) {
        if (argc - optind != 0)
            return lp_cli_usage_error("read", "--symbol ID takes no FILE");
        return read_symbol(symbol_id, json);
    }
    if (argc - optind != 1)
        return lp_cli_usage_error("read", "needs one FILE[:START-END] or --symbol ID");
    lp_error err = {0};
    lp_buf path, root, rel, out, arg, shown;
    lp_buf_init(&path, 0);
    lp_buf_init(&root, 0);
    lp_buf_init(&rel, 0);
    lp_buf_init(&out, 0);
    lp_buf_init(&arg, 0);
    lp_buf_init(&shown, 0);
    lp_store *st = NULL;
    int code = LP_EXIT_OK;
    uint64_t start, col, end;
    if (!split_range(lp_cli_path_arg(argv[optind], &arg), &path, &start, &col, &end)) {
        code = lp_cli_usage_error("read", "bad line range in '%s'; write FILE:START-END with "
                                          "1 <= START <= END, or FILE:LINE:COLUMN",
                                  argv[optind]);
        goto done;
    }
    char cwd[LP_PATH_MAX];
    lp_status rc = getcwd(cwd, sizeof cwd) ? LP_OK
                                           : lp_error_set(&err, LP_EIO, "cannot read the current folder");
    if (!rc)
        rc = lp_index_resolve_file(lp_cli_path_arg(path.ptr, &arg), cwd, &root, &rel, &err);
    if (!rc)
        rc = lp_store_open(root.ptr, LP_STORE_READ, &st, &err);
    if (!rc)
        rc = lp_store_pin(st, &err);
    lp_read_info info;
    if (!rc) {
        rc = lp_index_read_lines(st, rel.ptr, (uint32_t)start, (uint32_t)col, (uint32_t)end,
                                 (uint32_t)max_lines, (size_t)max_bytes, prefer_pub, &out, &info,
                                 &err);
        lp_store_unpin(st);
    }
    if (rc) {
        code = lp_cli_fail(&err, json);
        goto done;
    }
    /* Where to read on: the rest of a cut line, or the next lines. */
    uint32_t next_line = info.next_col ? info.end_line : info.end_line + 1;
    bool more = info.truncated && (info.next_col || next_line <= info.total_lines);
    if (json) {
        json_t *cut = info.next_col ? lp_json_pack("{s:i, s:i, s:i}", "line", (int)info.end_line,
                                                   "nextColumn", (int)info.next_col, "lineBytes",
                                                   (int)info.line_bytes)
                                    : json_null();
        json_t *j = lp_json_pack("{s:I, s:i, s:i, s:i, s:i, s:b, s:o, s:s, s:s, s:o}",
                                 "publicationId", (json_int_t)info.publication_id, "startLine",
                                 (int)info.start_line, "startColumn", (int)info.start_col,
                                 "endLine", (int)info.end_line, "totalLines",
                                 (int)info.total_lines, "truncated", info.truncated, "lineCut",
                                 cut, "freshness", info.stale ? "stale" : "fresh", "source",
                                 info.from_publication ? "publication" : "disk", "content",
                                 lp_json_text(out.ptr, out.len));
        if (j) {
            lp_json_set_path(j, "root", root.ptr, root.len);
            lp_json_set_path(j, "path", rel.ptr, rel.len);
        }
        if (j && info.disk_code) {
            json_t *w = json_array();
            json_array_append_new(w, lp_json_pack("{s:s, s:o}", "code", info.disk_code,
                                                  "message", lp_json_textz(info.disk_note)));
            json_object_set_new(j, "warnings", w);
        }
        code = lp_cli_print_json(j);
        json_decref(j);
    } else {
        fputs(lp_cli_text(out.ptr, out.len, &shown), stdout);
        const char *name = lp_cli_path_text(rel.ptr, &arg);
        if (more && info.next_col)
            fprintf(stderr,
                    "loupe: line %u is %u bytes, longer than the %llu-byte bound: cut at a "
                    "character; read on with %s:%u:%u\n",
                    info.end_line, info.line_bytes, (unsigned long long)max_bytes, name,
                    info.end_line, info.next_col);
        else if (more)
            fprintf(stderr,
                    "loupe: output cut at line %u of %u; read further with %s:%u-%u\n",
                    info.end_line, info.total_lines, name, next_line, info.total_lines);
        if (info.disk_code)
            fprintf(stderr, "loupe: warning [%s]: %s\n", info.disk_code, info.disk_note);
        else if (info.stale)
            fprintf(stderr, "loupe: %s changed on disk since publication %lld; run 'loupe sync'\n",
                    name, (long long)info.publication_id);
    }
done:
    lp_store_close(st);
    lp_buf_release(&path);
    lp_buf_release(&root);
    lp_buf_release(&rel);
    lp_buf_release(&out);
    lp_buf_release(&arg);
    lp_buf_release(&shown);
    return code;
}

const lp_cli_cmd lp_cmd_read = {
    .name = "read",
    .summary = "print lines of an indexed file (bounded)",
    .usage = "usage: loupe read FILE[:START-END] [--max-lines N] [--max-bytes N] [--publication]\n"
             "                  [--json]\n"
             "       loupe read FILE:LINE:COLUMN[-END] ...\n"
             "       loupe read --symbol ID [--json]\n"
             "Print lines START..END of FILE (numbered). FILE must be inside an indexed root\n"
             "and part of its publication; '..' and paths that resolve outside are refused.\n"
             "Reads the file on disk; --publication reads the indexed version when they differ.\n"
             "At most --max-lines lines (default 400) and --max-bytes bytes (default 262144)\n"
             "are printed. A line longer than that is cut where a character ends and marked\n"
             "'[line N goes on at column C of L]'; FILE:N:C reads on from byte column C.\n"
             "Bytes that are not UTF-8 are shown as U+FFFD; a file name that is not UTF-8 is\n"
             "shown (and accepted) with %HH escapes.\n"
             "--symbol ID prints the exact source of one symbol (ids come from search,\n"
             "outline and symbol) from the publication.\n",
    .run = run,
};
