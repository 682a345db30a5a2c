/*
 * cmd_nav.c: `loupe outline FILE` and `loupe symbol NAME`.
 */
#include "cli/cli_int.h"

#include "index/index.h"
#include "lang/lang.h"

#include "core/json.h"
#include <unistd.h>

static const char *vis_name(int v)
{
    static const char *const names[] = {"unknown", "public", "private", "protected", "internal"};
    return v >= 0 && v < (int)LP_ARRAY_LEN(names) ? names[v] : "unknown";
}

static json_t *flags_json(uint32_t f)
{
    json_t *a = json_array();
    static const struct {
        uint32_t bit;
        const char *name;
    } names[] = {{LP_SYMF_ASYNC, "async"},         {LP_SYMF_STATIC, "static"},
                 {LP_SYMF_ABSTRACT, "abstract"},   {LP_SYMF_DECLARATION, "declaration"},
                 {LP_SYMF_TEST, "test"},           {LP_SYMF_DEFAULT_EXPORT, "default_export"}};
    for (size_t i = 0; i < LP_ARRAY_LEN(names); i++)
        if (f & names[i].bit)
            json_array_append_new(a, lp_json_textz(names[i].name));
    return a;
}

static json_t *symbol_json(const lp_symbol_row *r, const lp_symbol_row *all, size_t n)
{
    const char *parent = NULL;
    for (size_t i = 0; all && i < n; i++)
        if (all[i].ord == r->parent && all[i].bid == r->bid)
            parent = all[i].id;
    json_t *doc = r->doc_start_line ? lp_json_pack("{s:i, s:i}", "startLine", (int)r->doc_start_line,
                                                "endLine", (int)r->doc_end_line)
                                    : json_null();
    json_t *o = lp_json_pack("{s:s, s:o, s:o, s:s, s:i, s:i, s:s?, s:s, s:o, s:o}", "id", r->id,
                             "name", lp_json_textz(r->name), "qualifiedName",
                             lp_json_textz(r->qname), "kind",
                             lp_symkind_name((lp_symkind)r->kind), "startLine",
                             (int)r->start_line, "endLine", (int)r->end_line, "parent", parent,
                             "visibility", vis_name(r->vis), "flags", flags_json(r->flags), "doc",
                             doc);
    if (o)
        lp_json_set_path(o, "file", r->path, strlen(r->path));
    return o;
}

typedef struct nav_ctx {
    lp_buf root, rel, arg, shown;
    lp_store *st;
    lp_arena arena;
    lp_error err;
    bool json;
} nav_ctx;

static void nav_release(nav_ctx *c)
{
    if (c->st)
        lp_store_unpin(c->st);
    lp_store_close(c->st);
    lp_buf_release(&c->root);
    lp_buf_release(&c->rel);
    lp_buf_release(&c->arg);
    lp_buf_release(&c->shown);
    lp_arena_release(&c->arena);
}

/* Parse [--json] and exactly one positional argument. */
static bool parse_one(const char *cmd, int argc, char **argv, const char **arg, bool *json)
{
    *arg = NULL;
    *json = false;
    bool opts_done = false;
    for (int i = 1; i < argc; i++) {
        if (!opts_done && !strcmp(argv[i], "--"))
            opts_done = true;
        else if (!opts_done && !strcmp(argv[i], "--json"))
            *json = true;
        else if (!opts_done && argv[i][0] == '-' && argv[i][1]) {
            lp_cli_unknown_option(cmd, argv[i]);
            return false;
        } else if (*arg) {
            lp_cli_usage_error(cmd, "takes one argument");
            return false;
        } else
            *arg = argv[i];
    }
    if (!*arg) {
        lp_cli_usage_error(cmd, "needs an argument");
        return false;
    }
    return true;
}

static int run_outline(int argc, char **argv)
{
    const char *file;
    nav_ctx c = {0};
    if (!parse_one("outline", argc, argv, &file, &c.json))
        return LP_EXIT_USAGE;
    lp_buf_init(&c.root, 0);
    lp_buf_init(&c.rel, 0);
    lp_buf_init(&c.arg, 0);
    lp_buf_init(&c.shown, 0);
    lp_arena_init(&c.arena, 0);
    int code = LP_EXIT_OK;
    char cwd[LP_PATH_MAX];
    lp_status rc = getcwd(cwd, sizeof cwd) ? LP_OK : lp_error_set(&c.err, LP_EIO, "no cwd");
    if (!rc)
        rc = lp_index_resolve_file(lp_cli_path_arg(file, &c.arg), cwd, &c.root, &c.rel, &c.err);
    if (!rc)
        rc = lp_store_open(c.root.ptr, LP_STORE_READ, &c.st, &c.err);
    if (!rc)
        rc = lp_store_pin(c.st, &c.err);
    lp_symbol_row *rows = NULL;
    size_t n = 0;
    lp_publication pub = {0};
    if (!rc)
        rc = lp_store_current(c.st, &pub, &c.err);
    if (!rc)
        rc = lp_index_outline(c.st, c.rel.ptr, &c.arena, &rows, &n, &c.err);
    if (rc) {
        code = lp_cli_fail(&c.err, c.json);
        goto done;
    }
    if (c.json) {
        json_t *arr = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(arr, symbol_json(&rows[i], rows, n));
        json_t *j = lp_json_pack("{s:I, s:o}", "publicationId", (json_int_t)pub.id, "symbols", arr);
        if (j) {
            lp_json_set_path(j, "root", c.root.ptr, c.root.len);
            lp_json_set_path(j, "file", c.rel.ptr, c.rel.len);
        }
        code = lp_cli_print_json(j);
        json_decref(j);
    } else {
        printf("%s (%zu symbols, publication %lld)\n", lp_cli_path_text(c.rel.ptr, &c.shown), n,
               (long long)pub.id);
        for (size_t i = 0; i < n; i++) {
            int depth = 0;
            for (int32_t p = rows[i].parent; p >= 0 && (size_t)p < n && depth < 32;
                 p = rows[p].parent)
                depth++;
            printf("%*s%-11s %-40s %u-%u  %s\n", 2 + depth * 2, "",
                   lp_symkind_name((lp_symkind)rows[i].kind),
                   lp_cli_text(rows[i].qname, strlen(rows[i].qname), &c.shown), rows[i].start_line,
                   rows[i].end_line, rows[i].id);
        }
    }
done:
    nav_release(&c);
    return code;
}

static int run_symbol(int argc, char **argv)
{
    const char *name;
    nav_ctx c = {0};
    if (!parse_one("symbol", argc, argv, &name, &c.json))
        return LP_EXIT_USAGE;
    lp_buf_init(&c.root, 0);
    lp_buf_init(&c.rel, 0);
    lp_buf_init(&c.arg, 0);
    lp_buf_init(&c.shown, 0);
    lp_arena_init(&c.arena, 0);
    int code = LP_EXIT_OK;
    lp_status rc = lp_cli_root_for(NULL, true, false, &c.root, &c.err);
    if (!rc)
        rc = lp_store_open(c.root.ptr, LP_STORE_READ, &c.st, &c.err);
    if (!rc)
        rc = lp_store_pin(c.st, &c.err);
    lp_symbol_row *rows = NULL;
    size_t n = 0;
    lp_publication pub = {0};
    if (!rc)
        rc = lp_store_current(c.st, &pub, &c.err);
    if (!rc)
        rc = lp_index_find_symbols(c.st, name, 200, &c.arena, &rows, &n, &c.err);
    if (rc) {
        code = lp_cli_fail(&c.err, c.json);
        goto done;
    }
    if (c.json) {
        json_t *arr = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(arr, symbol_json(&rows[i], NULL, 0));
        json_t *j = lp_json_pack("{s:I, s:o, s:b, s:o}", "publicationId", (json_int_t)pub.id,
                                 "query", lp_json_textz(name), "ambiguous", n > 1, "definitions",
                                 arr);
        if (j)
            lp_json_set_path(j, "root", c.root.ptr, c.root.len);
        code = lp_cli_print_json(j);
        json_decref(j);
    } else {
        if (n == 0)
            printf("no definition named '%s' in %s\n", name, lp_cli_q(c.root.ptr));
        else if (n > 1)
            printf("'%s' is ambiguous: %zu definitions (none is picked)\n", name, n);
        for (size_t i = 0; i < n; i++) {
            printf("  %s:%u-%u  ", lp_cli_path_text(rows[i].path, &c.shown), rows[i].start_line,
                   rows[i].end_line);
            printf("%s %s  %s\n", lp_symkind_name((lp_symkind)rows[i].kind),
                   lp_cli_text(rows[i].qname, strlen(rows[i].qname), &c.shown), rows[i].id);
        }
    }
    if (code == LP_EXIT_OK && n == 0)
        code = LP_EXIT_NOT_FOUND;
done:
    nav_release(&c);
    return code;
}

const lp_cli_cmd lp_cmd_outline = {
    .name = "outline",
    .summary = "symbols of an indexed file, with kinds, spans and ids",
    .usage = "usage: loupe outline FILE [--json]\n"
             "The symbol tree of FILE from the current publication: kind, qualified name,\n"
             "line span and id (use the id with 'loupe read --symbol ID').\n",
    .run = run_outline,
};

const lp_cli_cmd lp_cmd_symbol = {
    .name = "symbol",
    .summary = "every definition with a name or qualified name",
    .usage = "usage: loupe symbol NAME [--json]\n"
             "Every definition named NAME (or with qualified name NAME) in the indexed root\n"
             "containing the current folder. Exact case first, then case-insensitive. Several\n"
             "definitions are all listed (ambiguous); none is picked. Exit 7 when none.\n",
    .run = run_symbol,
};
