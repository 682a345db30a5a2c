/*
 * cmd_read.c: `loupe read FILE[:START-END]`: bounded reads, only inside an indexed root.
 */
#include "cli/cli_int.h"

#include "index/index.h"

#include <getopt.h>
#include <jansson.h>
#include <sys/stat.h>
#include <unistd.h>

/* Split "path:10-20" / "path:10" when the whole string is not an existing file. */
static bool split_range(const char *arg, lp_buf *path, uint64_t *start, uint64_t *end)
{
    lp_buf_reset(path);
    lp_buf_puts(path, arg);
    *start = *end = 0;
    struct stat sb;
    if (stat(arg, &sb) == 0)
        return true;
    const char *colon = strrchr(arg, ':');
    if (!colon)
        return true;
    lp_str range = lp_str_c(colon + 1);
    size_t dash = lp_str_find_char(range, '-', 0);
    lp_str a = dash == SIZE_MAX ? range : lp_str_sub(range, 0, dash);
    lp_str b = dash == SIZE_MAX ? range : lp_str_sub(range, dash + 1, range.len);
    if (!lp_parse_u64(a, start) || !lp_parse_u64(b, end) || *start == 0 || *end < *start ||
        *end > UINT32_MAX)
        return false;
    lp_buf_truncate(path, (size_t)(colon - arg));
    return true;
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
        json_t *j = json_pack("{s:s, s:s, s:s, s:s, s:i, s:i, s:b, s:s}", "root", root.ptr, "id",
                              sym.id, "file", sym.path, "qualifiedName", sym.qname, "startLine",
                              (int)sym.start_line, "endLine", (int)sym.end_line, "truncated",
                              truncated, "content", text);
        lp_cli_print_json(j);
        json_decref(j);
    } else {
        printf("%s:%u-%u %s\n", lp_cli_q(sym.path), sym.start_line, sym.end_line, sym.qname);
        uint32_t line = sym.start_line;
        for (const char *p = text; *p;) {
            const char *nl = strchr(p, '\n');
            int len = nl ? (int)(nl - p) : (int)strlen(p);
            printf("%u| %.*s\n", line++, len, p);
            p += len + (nl ? 1 : 0);
        }
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
        {"publication", no_argument, NULL, 'p'},
        {"symbol", required_argument, NULL, 's'},
        {NULL, 0, NULL, 0},
    };
    bool json = false, prefer_pub = false;
    const char *symbol_id = NULL;
    uint64_t max_lines = 400;
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
    lp_buf path, root, rel, out;
    lp_buf_init(&path, 0);
    lp_buf_init(&root, 0);
    lp_buf_init(&rel, 0);
    lp_buf_init(&out, 0);
    lp_store *st = NULL;
    int code = LP_EXIT_OK;
    uint64_t start, end;
    if (!split_range(argv[optind], &path, &start, &end)) {
        code = lp_cli_usage_error("read", "bad line range in '%s'; write FILE:START-END with "
                                          "1 <= START <= END",
                                  argv[optind]);
        goto done;
    }
    char cwd[LP_PATH_MAX];
    lp_status rc = getcwd(cwd, sizeof cwd) ? LP_OK
                                           : lp_error_set(&err, LP_EIO, "cannot read the current folder");
    if (!rc)
        rc = lp_index_resolve_file(path.ptr, cwd, &root, &rel, &err);
    if (!rc)
        rc = lp_store_open(root.ptr, LP_STORE_READ, &st, &err);
    if (!rc)
        rc = lp_store_pin(st, &err);
    lp_read_info info;
    if (!rc) {
        rc = lp_index_read_lines(st, rel.ptr, (uint32_t)start, (uint32_t)end, (uint32_t)max_lines,
                                 256 * 1024, prefer_pub, &out, &info, &err);
        lp_store_unpin(st);
    }
    if (rc) {
        code = lp_cli_fail(&err, json);
        goto done;
    }
    if (json) {
        json_t *j = json_pack("{s:s, s:s, s:I, s:i, s:i, s:i, s:b, s:s, s:s, s:s}", "root",
                              root.ptr, "path", rel.ptr, "publicationId",
                              (json_int_t)info.publication_id, "startLine", (int)info.start_line,
                              "endLine", (int)info.end_line, "totalLines", (int)info.total_lines,
                              "truncated", info.truncated, "freshness",
                              info.stale ? "stale" : "fresh", "source",
                              info.from_publication ? "publication" : "disk", "content", out.ptr);
        lp_cli_print_json(j);
        json_decref(j);
    } else {
        fputs(out.ptr, stdout);
        if (info.truncated)
            fprintf(stderr,
                    "loupe: output cut at line %u of %u; read further with %s:%u-%u\n",
                    info.end_line, info.total_lines, rel.ptr, info.end_line + 1,
                    info.total_lines);
        if (info.stale)
            fprintf(stderr, "loupe: %s changed on disk since publication %lld; run 'loupe sync'\n",
                    rel.ptr, (long long)info.publication_id);
    }
done:
    lp_store_close(st);
    lp_buf_release(&path);
    lp_buf_release(&root);
    lp_buf_release(&rel);
    lp_buf_release(&out);
    return code;
}

const lp_cli_cmd lp_cmd_read = {
    .name = "read",
    .summary = "print lines of an indexed file (bounded)",
    .usage = "usage: loupe read FILE[:START-END] [--max-lines N] [--publication] [--json]\n"
             "       loupe read --symbol ID [--json]\n"
             "Print lines START..END of FILE (numbered). FILE must be inside an indexed root\n"
             "and part of its publication; '..' and paths that resolve outside are refused.\n"
             "Reads the file on disk; --publication reads the indexed version when they differ.\n"
             "At most --max-lines lines (default 400) and 256 KiB are printed.\n"
             "--symbol ID prints the exact source of one symbol (ids come from search,\n"
             "outline and symbol) from the publication.\n",
    .run = run,
};
