/*
 * cmd_mcp.c: `loupe mcp`, the MCP server on stdin/stdout (see src/mcp/mcp.h).
 *
 * stdout carries protocol messages only; everything else goes to stderr.
 */
#include "catalog/catalog.h"
#include "core/settings.h"
#include "cli/cli_int.h"
#include "mcp/mcp.h"

#include <unistd.h>

static bool parse_num(const char *cmd, const char *opt, const char *v, uint64_t max,
                      uint64_t *out)
{
    if (!v || !lp_parse_u64(lp_str_c(v), out) || *out > max) {
        lp_cli_usage_error(cmd, "%s needs a whole number up to %llu", opt,
                           (unsigned long long)max);
        return false;
    }
    return true;
}

/* A number setting the server takes when set (0 and unset: the server's default). */
static bool env_num(lp_setting_id id, uint64_t *out)
{
    int got = lp_setting_u64_get(id, out);
    if (got < 0) {
        const lp_setting_def *d = lp_setting_def_of(id);
        fprintf(stderr, "loupe mcp: ignoring %s=%s (not a whole number up to %llu)\n", d->env,
                lp_setting_str(id), (unsigned long long)d->max);
    }
    return got == 1;
}

/* Load every --tool-catalog file into one catalog (all or nothing: a file that fails stops
 * the server from starting, with the file named and what to do). */
static lp_status load_catalogs(const char *const *files, size_t n, lp_catalog **out,
                               lp_error *err)
{
    *out = NULL;
    lp_catalog *cat = NULL;
    lp_status st = lp_catalog_new(NULL, NULL, &cat, err);
    for (size_t i = 0; i < n && !st; i++) {
        st = lp_catalog_load_file(cat, files[i], NULL, false, err);
        if (st)
            lp_error_prefix(err, "--tool-catalog %s", files[i]);
    }
    if (st) {
        lp_catalog_free(cat);
        return st;
    }
    lp_catalog_stats s;
    lp_catalog_get_stats(cat, &s);
    lp_log(LP_LOG_INFO, "mcp.tool_catalog", "files=%zu tools=%zu", n, s.tools);
    *out = cat;
    return LP_OK;
}

static int run(int argc, char **argv)
{
    lp_mcp_options opt = {.version = LOUPE_VERSION};
    LP_VEC(const char *) catalogs = {0};
    lp_catalog *cat = NULL;
    lp_mcp_registry *reg = NULL;
    lp_error err = {0};
    int code = LP_EXIT_OK;
    uint64_t n;
    if (env_num(LP_SET_MCP_WORKERS, &n))
        opt.workers = (unsigned)n;
    if (env_num(LP_SET_MCP_MAX_RESULT_BYTES, &n))
        opt.max_result_bytes = (size_t)n;
    if (env_num(LP_SET_MCP_CALL_TIMEOUT_MS, &n))
        opt.call_timeout_ms = (unsigned)n;
    opt.test_tools = lp_setting_bool(LP_SET_MCP_TEST_TOOLS);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--workers")) {
            if (!parse_num("mcp", a, v, LP_MCP_MAX_WORKERS, &n)) {
                code = LP_EXIT_USAGE;
                goto done;
            }
            if (n == 0) {
                code = lp_cli_usage_error("mcp", "--workers must be at least 1");
                goto done;
            }
            opt.workers = (unsigned)n;
            i++;
        } else if (!strcmp(a, "--max-result-bytes")) {
            if (!parse_num("mcp", a, v, (uint64_t)64 << 20, &n)) {
                code = LP_EXIT_USAGE;
                goto done;
            }
            opt.max_result_bytes = (size_t)n;
            i++;
        } else if (!strcmp(a, "--max-line-bytes")) {
            if (!parse_num("mcp", a, v, (uint64_t)1 << 30, &n)) {
                code = LP_EXIT_USAGE;
                goto done;
            }
            opt.max_line_bytes = (size_t)n;
            i++;
        } else if (!strcmp(a, "--shutdown-grace-ms")) {
            if (!parse_num("mcp", a, v, 600000, &n)) {
                code = LP_EXIT_USAGE;
                goto done;
            }
            opt.shutdown_grace_ms = (unsigned)n;
            i++;
        } else if (!strcmp(a, "--call-timeout-ms") || !strcmp(a, "--cancel-grace-ms")) {
            if (!parse_num("mcp", a, v, 86400000u, &n)) {
                code = LP_EXIT_USAGE;
                goto done;
            }
            if (!strcmp(a, "--call-timeout-ms"))
                opt.call_timeout_ms = (unsigned)n;
            else
                opt.cancel_grace_ms = (unsigned)n;
            i++;
        } else if (!strcmp(a, "--tool-catalog")) {
            if (!v || !*v) {
                code = lp_cli_usage_error("mcp", "--tool-catalog needs a FILE (an MCP "
                                                 "tools/list result or function definitions)");
                goto done;
            }
            lp_vec_push(&catalogs, v);
            i++;
        } else {
            code = strcmp(a, "--") == 0 && i + 1 == argc ? LP_EXIT_OK
                                                         : lp_cli_unknown_option("mcp", a);
            if (code == LP_EXIT_OK)
                continue; /* a trailing '--': no arguments follow */
            goto done;
        }
    }
    if (lp_mcp_options_resolve(&opt, &err)) {
        code = lp_cli_usage_error("mcp", "%s", err.msg);
        goto done;
    }
    if (catalogs.len) {
        lp_status st = load_catalogs(catalogs.items, catalogs.len, &cat, &err);
        if (st) {
            fprintf(stderr, "loupe mcp: %s\n", err.msg);
            code = lp_cli_exit_code(st);
            goto done;
        }
        opt.tool_catalog = cat;
    }
    if (isatty(0))
        fprintf(stderr, "loupe mcp: serving MCP on stdin/stdout; an MCP client starts this "
                        "command (see 'loupe install'). End with Ctrl-D.\n");

    reg = lp_mcp_registry_new();
    lp_status rc = lp_mcp_register_tools(reg, &opt, &err);
    if (!rc)
        rc = lp_mcp_serve(0, 1, reg, &opt, true, &err);
    if (rc)
        code = lp_cli_fail(&err, false);
done:
    lp_mcp_registry_free(reg);
    lp_catalog_free(cat);
    lp_vec_free(&catalogs);
    return code;
}

const lp_cli_cmd lp_cmd_mcp = {
    .name = "mcp",
    .summary = "serve MCP (JSON-RPC over stdin/stdout) to a coding agent",
    .usage =
        "usage: loupe mcp [--workers N] [--max-result-bytes N] [--max-line-bytes N]\n"
        "                 [--shutdown-grace-ms N] [--call-timeout-ms N] [--cancel-grace-ms N]\n"
        "                 [--tool-catalog FILE]...\n"
        "\n"
        "Serves the Model Context Protocol on stdin/stdout, one JSON-RPC message per line.\n"
        "Protocol versions: 2026-07-28 (per-request _meta, server/discover), and 2025-11-25\n"
        "and 2025-06-18 (initialize). stdout carries protocol messages only; logs go to\n"
        "stderr (LOUPE_LOG). The server exits with status 0 when stdin closes.\n"
        "\n"
        "options:\n"
        "  --workers N            threads running tool calls (default 4, max 64;\n"
        "                         env LOUPE_MCP_WORKERS)\n"
        "  --max-result-bytes N   byte budget of one tool result's JSON (default 24576;\n"
        "                         env LOUPE_MCP_MAX_RESULT_BYTES); longer lists are cut\n"
        "                         and the result says truncated: true\n"
        "  --max-line-bytes N     longest accepted message (default 16777216)\n"
        "  --shutdown-grace-ms N  after stdin closes, wait this long for running calls, then\n"
        "                         cancel them and wait as long again (default 2000)\n"
        "  --call-timeout-ms N    a tool call still running after N ms is answered with error\n"
        "                         -32001 (timeout) and abandoned; its worker is replaced\n"
        "                         (default 660000; env LOUPE_MCP_CALL_TIMEOUT_MS)\n"
        "  --cancel-grace-ms N    a call the client cancelled that is still running after N ms\n"
        "                         is abandoned and its worker replaced (default 2000)\n"
        "  --tool-catalog FILE    serve search_tools: find the right tools among the tool\n"
        "                         definitions of FILE (an MCP tools/list result, OpenAI,\n"
        "                         Anthropic or Gemini function definitions; repeatable, all\n"
        "                         files form one catalog; see 'loupe tools')\n"
        "\n"
        "environment:\n"
        "  LOUPE_MCP_TEST_TOOLS=1 also serve the test fixtures debug_echo and debug_sleep\n"
        "\n"
        "Set it up in your coding agent with 'loupe install'.\n",
    .run = run,
};
