/*
 * cli_tool.c: commands generated from the tool table (cli_tool.h): getopt options from the
 * arguments' flags, --help from their descriptions, defaults and ranges, --json from the
 * table's JSON renderer (the MCP tool's content object, plus codebaseRoot and
 * publicationId), text and drawings from the view's renderers of the result struct.
 */
#include "cli/cli_tool.h"

#include <getopt.h>

enum { OPT_JSON = 1000, OPT_FORMAT, OPT_ARG = 1100, OPT_SWITCH = 1200 };

extern const lp_cli_cmd lp_cmd_changes;
/* cmd_calls.c, cmd_trace.c, cmd_refs.c, cmd_arch.c */
extern const lp_cli_tool_view lp_cli_calls_view, lp_cli_trace_view, lp_cli_refs_view,
    lp_cli_arch_view;

/* The tools not migrated yet: their hand-written commands. */
static const lp_cli_tool_view changes_view = {.tool = "detect_changes", .command = "changes",
                                              .legacy = &lp_cmd_changes};

const lp_cli_tool_view *const lp_cli_tool_views[] = {&lp_cli_calls_view, &lp_cli_trace_view,
                                                      &lp_cli_refs_view, &changes_view, &lp_cli_arch_view};
const size_t lp_cli_tool_views_count = LP_ARRAY_LEN(lp_cli_tool_views);

const lp_cli_tool_view *lp_cli_tool_view_find(const char *tool)
{
    for (size_t i = 0; tool && i < lp_cli_tool_views_count; i++)
        if (!strcmp(lp_cli_tool_views[i]->tool, tool))
            return lp_cli_tool_views[i];
    return NULL;
}

const lp_tool_arg *lp_cli_tool_arg(const char *tool, const char *arg)
{
    const lp_tool *t = lp_tool_find(tool);
    const lp_tool_arg *a = t ? lp_tool_arg_find(t, arg) : NULL;
    if (!a) {
        fprintf(stderr, "loupe: the tool table has no %s.%s\n", tool, arg);
        abort();
    }
    return a;
}

static void usage_line(const lp_tool *t, const lp_cli_tool_view *v, lp_buf *out)
{
    lp_buf line;
    lp_buf_init(&line, 0);
    lp_buf_printf(&line, "usage: loupe %s", v->command);
    for (size_t i = 0; i < t->nargs; i++)
        if (t->args[i].cli == LP_ARG_CLI_POSITIONAL)
            lp_buf_printf(&line, " %s", t->args[i].metavar);
    size_t indent = strlen("usage: loupe ") + strlen(v->command) + 1, col = line.len;
    lp_buf_puts(out, line.ptr);
    lp_buf_release(&line);
    /* the options, wrapped at 90 columns */
    lp_buf item;
    lp_buf_init(&item, 0);
    for (size_t i = 0; i <= t->nargs + 2; i++) {
        lp_buf_reset(&item);
        const lp_tool_arg *a = i < t->nargs ? &t->args[i] : NULL;
        if (a && a->cli == LP_ARG_CLI_SWITCHES) {
            lp_buf_puts(&item, "[");
            for (int k = 0, n = 0; a->values[k]; k++)
                if (k != a->dflt)
                    lp_buf_printf(&item, "%s--%s", n++ ? "|" : "", a->values[k]);
            lp_buf_puts(&item, "]");
        } else if (a && a->cli == LP_ARG_CLI_OPTION && a->flag && a->type == LP_ARG_ENUM_SET) {
            lp_buf_printf(&item, "[--%s ", a->flag);
            for (int k = 0; a->values[k]; k++)
                lp_buf_printf(&item, "%s%s", k ? "," : "", a->values[k]);
            lp_buf_puts(&item, "]");
        } else if (a && (a->cli == LP_ARG_CLI_OPTION) && a->flag) {
            lp_buf_printf(&item, "[--%s %s]", a->flag, a->metavar);
        } else if (i == t->nargs) {
            lp_buf_puts(&item, "[--json]");
        } else if (i == t->nargs + 1 && v->draw) {
            lp_buf_puts(&item, "[--format dot|mermaid]");
        } else if (i == t->nargs + 2) {
            lp_buf_puts(&item, "[--root PATH]");
        }
        if (!item.len)
            continue;
        if (col + 1 + item.len > 90) {
            lp_buf_printf(out, "\n%*s", (int)indent - 1, "");
            col = indent - 1;
        }
        lp_buf_printf(out, " %s", item.ptr);
        col += 1 + item.len;
    }
    lp_buf_release(&item);
    lp_buf_puts(out, "\n");
}

void lp_cli_tool_help(const lp_cli_tool_view *v, lp_buf *out)
{
    const lp_tool *t = lp_tool_find(v->tool);
    if (!t)
        return;
    usage_line(t, v, out);
    lp_buf_puts(out, v->about);
    lp_buf_puts(out, "Options (the MCP tool ");
    lp_buf_puts(out, t->name);
    lp_buf_puts(out, " takes the same arguments):\n");
    char left[64];
    for (size_t i = 0; i < t->nargs; i++) {
        const lp_tool_arg *a = &t->args[i];
        const char *help = a->cli_help ? a->cli_help : a->description ? a->description : "";
        if (a->cli == LP_ARG_CLI_POSITIONAL)
            snprintf(left, sizeof left, "%s", a->metavar);
        else if (a->cli == LP_ARG_CLI_SWITCHES) {
            size_t o = 0;
            for (int k = 0; a->values[k] && o < sizeof left; k++)
                if (k != a->dflt)
                    o += (size_t)snprintf(left + o, sizeof left - o, "%s--%s", o ? "|" : "",
                                          a->values[k]);
        } else if (a->flag && (a->cli == LP_ARG_CLI_OPTION || a->cli == LP_ARG_CLI_ROOT))
            snprintf(left, sizeof left, "--%s %s", a->flag, a->metavar);
        else
            continue;
        lp_buf_printf(out, "  %-22s %s", left, help);
        if (a->type == LP_ARG_INT)
            lp_buf_printf(out, ", %lld-%lld (default %lld)", (long long)a->min, (long long)a->max,
                          (long long)a->dflt);
        lp_buf_printf(out, "  [%s]\n", a->name);
    }
    lp_buf_printf(out, "  %-22s %s\n", "--json", "the MCP tool's content object, as JSON");
    if (v->draw)
        lp_buf_printf(out, "  %-22s %s\n", "--format F",
                      "text (default), json, or a drawing: dot (graphviz) or mermaid");
}

/* Parse one option's value into the request. */
static bool parse_value(const lp_cli_tool_view *v, const lp_tool_arg *a, const char *val,
                        void *req)
{
    char opt[80];
    snprintf(opt, sizeof opt, "--%s", a->flag);
    char *f = (char *)req + a->offset;
    if (a->type == LP_ARG_INT) {
        uint64_t n;
        if (a->min == 1) {
            if (!lp_cli_parse_count(v->command, opt, val, (uint64_t)a->max, &n))
                return false;
        } else if (!lp_parse_u64(lp_str_c(val), &n) || (int64_t)n < a->min ||
                   (int64_t)n > a->max) {
            lp_cli_usage_error(v->command, "%s needs a whole number from %lld to %lld, not '%s'",
                               opt, (long long)a->min, (long long)a->max, val);
            return false;
        }
        int64_t x = (int64_t)n;
        if (a->offset != LP_ARG_NO_FIELD)
            memcpy(f, &x, sizeof x);
        return true;
    }
    if (a->type == LP_ARG_STRING) {
        /* no length check here: the handler checks what it is given (paths: LP_EPATH) */
        if (a->offset != LP_ARG_NO_FIELD)
            memcpy(f, &val, sizeof val);
        return true;
    }
    if (a->type == LP_ARG_ENUM_SET) {
        /* comma separated, spaces around items ignored, any case (as lp_edge_kind_from_name) */
        uint32_t bits = 0;
        lp_str k = lp_str_c(val);
        for (size_t pos = 0; pos <= k.len;) {
            size_t comma = lp_str_find_char(k, ',', pos);
            if (comma == SIZE_MAX)
                comma = k.len;
            lp_str one = lp_str_trim(lp_str_sub(k, pos, comma));
            int hit = -1;
            for (int i = 0; a->values[i] && hit < 0; i++)
                if (one.len == strlen(a->values[i]) && !strncasecmp(one.ptr, a->values[i], one.len))
                    hit = i;
            if (hit < 0) {
                lp_buf list;
                lp_buf_init(&list, 0);
                for (int i = 0; a->values[i]; i++)
                    lp_buf_printf(&list, "%s%s", i ? ", " : "", a->values[i]);
                lp_cli_usage_error(v->command, "%s takes %s (comma separated)", opt, list.ptr);
                lp_buf_release(&list);
                return false;
            }
            bits |= 1u << hit;
            pos = comma + 1;
        }
        if (a->offset != LP_ARG_NO_FIELD)
            memcpy(f, &bits, sizeof bits);
        return true;
    }
    if (a->type == LP_ARG_ENUM) {
        for (int64_t k = 0; a->values[k]; k++)
            if (!strcmp(a->values[k], val)) {
                if (a->offset != LP_ARG_NO_FIELD)
                    memcpy(f, &k, sizeof k);
                return true;
            }
        lp_buf list;
        lp_buf_init(&list, 0);
        for (int i = 0; a->values[i]; i++)
            lp_buf_printf(&list, "%s%s", !i ? "" : a->values[i + 1] ? ", " : " or ", a->values[i]);
        lp_cli_usage_error(v->command, "%s takes %s", opt, list.ptr);
        lp_buf_release(&list);
        return false;
    }
    lp_cli_usage_error(v->command, "%s: this kind of option is not generated yet", opt);
    return false;
}

int lp_cli_tool_main(const lp_cli_tool_view *v, int argc, char **argv)
{
    const lp_tool *t = lp_tool_find(v->tool);
    if (!t || !t->run)
        return lp_cli_usage_error(v->command, "has no typed tool in the table");
    struct option longopts[64];
    size_t nopt = 0;
    const lp_tool_arg *positional[4];
    size_t npos = 0;
    const char *sets[16] = {NULL}; /* ENUM_SET values, parsed after the positional check */
    longopts[nopt++] = (struct option){"json", no_argument, NULL, OPT_JSON};
    for (size_t i = 0; i < t->nargs && nopt + 8 < LP_ARRAY_LEN(longopts); i++) {
        const lp_tool_arg *a = &t->args[i];
        if (a->cli == LP_ARG_CLI_POSITIONAL && npos < LP_ARRAY_LEN(positional))
            positional[npos++] = a;
        else if (a->cli == LP_ARG_CLI_SWITCHES)
            for (int k = 0; a->values[k] && nopt + 8 < LP_ARRAY_LEN(longopts); k++)
                longopts[nopt++] = (struct option){a->values[k], no_argument, NULL,
                                                   OPT_SWITCH + (int)i * 8 + k};
        else if ((a->cli == LP_ARG_CLI_OPTION || a->cli == LP_ARG_CLI_ROOT) && a->flag)
            longopts[nopt++] = (struct option){a->flag, required_argument, NULL, OPT_ARG + (int)i};
    }
    longopts[nopt++] = (struct option){"format", required_argument, NULL, OPT_FORMAT};
    longopts[nopt] = (struct option){NULL, 0, NULL, 0};
    void *req = lp_xcalloc(1, t->req_size);
    lp_tool_req_defaults(t, req);
    lp_graph_out fmt = LP_GOUT_TEXT;
    const char *root = NULL;
    int code = LP_EXIT_OK;
    char *ids[4] = {NULL};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == OPT_JSON) {
            fmt = LP_GOUT_JSON;
        } else if (c == OPT_FORMAT) {
            if (!lp_graph_cli_format(v->command, optarg, &fmt) ||
                (!v->draw && (fmt == LP_GOUT_DOT || fmt == LP_GOUT_MERMAID))) {
                if (!v->draw && (fmt == LP_GOUT_DOT || fmt == LP_GOUT_MERMAID))
                    lp_cli_usage_error(v->command, "--format takes json or text, not '%s'",
                                       optarg);
                code = LP_EXIT_USAGE;
                goto done;
            }
        } else if (c >= OPT_SWITCH) {
            const lp_tool_arg *a = &t->args[(c - OPT_SWITCH) / 8];
            int64_t k = (c - OPT_SWITCH) % 8;
            memcpy((char *)req + a->offset, &k, sizeof k);
        } else if (c >= OPT_ARG) {
            const lp_tool_arg *a = &t->args[c - OPT_ARG];
            if (a->cli == LP_ARG_CLI_ROOT) {
                root = optarg;
            } else if (a->type == LP_ARG_ENUM_SET && (size_t)(c - OPT_ARG) < LP_ARRAY_LEN(sets)) {
                sets[c - OPT_ARG] = optarg; /* the last one given counts */
            } else if (!parse_value(v, a, optarg, req)) {
                code = LP_EXIT_USAGE;
                goto done;
            }
        } else {
            code = lp_cli_unknown_option(v->command, lp_cli_getopt_bad_arg(argc, argv));
            goto done;
        }
    }
    if ((size_t)(argc - optind) != npos) {
        if (v->positional_error)
            code = lp_cli_usage_error(v->command, "%s", v->positional_error);
        else if (npos)
            code = lp_cli_usage_error(v->command, "needs one %s (%s)", positional[0]->metavar,
                                      positional[0]->cli_help);
        else
            code = lp_cli_usage_error(v->command, "takes no arguments");
        goto done;
    }
    for (size_t i = 0; i < LP_ARRAY_LEN(sets) && i < t->nargs; i++)
        if (sets[i] && !parse_value(v, &t->args[i], sets[i], req)) {
            code = LP_EXIT_USAGE;
            goto done;
        }
    /* a positional argument names a symbol: an id, or a name resolved in the root */
    for (size_t i = 0; i < npos; i++) {
        if ((code = lp_graph_cli_symbol(v->command, root, argv[optind + (int)i], &ids[i])))
            goto done;
        memcpy((char *)req + positional[i]->offset, &ids[i], sizeof ids[i]);
    }
    lp_error err = {0};
    lp_buf rootb;
    lp_buf_init(&rootb, 0);
    lp_store *st = NULL;
    int64_t pub_id = 0;
    lp_arena arena;
    lp_arena_init(&arena, 0);
    void *result = lp_arena_zalloc(&arena, t->result_size);
    lp_status rc = lp_graph_cli_open(root, &rootb, &st, &pub_id, &err);
    if (!rc) {
        lp_graph_call call = {.st = st};
        rc = t->run(&call, req, &arena, result, &err);
    }
    if (rc) {
        lp_error_prefix(&err, "%s", v->command);
        code = lp_cli_fail(&err, fmt == LP_GOUT_JSON);
    } else if (fmt == LP_GOUT_JSON) {
        json_t *res = t->to_json(result);
        lp_json_set_path(res, "codebaseRoot", rootb.ptr, rootb.len);
        /* Every answer names the one publication it came from (pinned for the whole call). */
        if (!json_object_get(res, "publicationId"))
            json_object_set_new(res, "publicationId", json_integer(pub_id));
        code = lp_cli_print_json(res);
        json_decref(res);
    } else if ((fmt == LP_GOUT_DOT || fmt == LP_GOUT_MERMAID) && v->draw) {
        v->draw(result, fmt == LP_GOUT_MERMAID);
    } else if (v->text) {
        v->text(result);
    }
    lp_graph_cli_close(st);
    lp_arena_release(&arena);
    lp_buf_release(&rootb);
done:
    for (size_t i = 0; i < LP_ARRAY_LEN(ids); i++)
        free(ids[i]);
    free(req);
    return code;
}
