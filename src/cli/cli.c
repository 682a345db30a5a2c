/*
 * cli.c: command dispatch, exit codes and error reporting shared by every command.
 */
#include "cli/cli.h"

#include "cli/cli_int.h"

#include "api/api.h"

#include <unistd.h>

/* One declaration per line (parallel work adds lines, never edits them). */
extern const lp_cli_cmd lp_cmd_version;
extern const lp_cli_cmd lp_cmd_index;
extern const lp_cli_cmd lp_cmd_sync;
extern const lp_cli_cmd lp_cmd_reindex;
extern const lp_cli_cmd lp_cmd_status;
extern const lp_cli_cmd lp_cmd_list;
extern const lp_cli_cmd lp_cmd_clear;
extern const lp_cli_cmd lp_cmd_read;
extern const lp_cli_cmd lp_cmd_search;
extern const lp_cli_cmd lp_cmd_more;
extern const lp_cli_cmd lp_cmd_outline;
extern const lp_cli_cmd lp_cmd_symbol;
extern const lp_cli_cmd lp_cmd_debug_scan;
extern const lp_cli_cmd lp_cmd_mcp;
extern const lp_cli_cmd lp_cmd_install;
extern const lp_cli_cmd lp_cmd_uninstall;
extern const lp_cli_cmd lp_cmd_doctor;
extern const lp_cli_cmd lp_cmd_parse;
extern const lp_cli_cmd lp_cmd_tools;
extern const lp_cli_cmd lp_cmd_embed;
extern const lp_cli_cmd lp_cmd_refs_dump;
extern const lp_cli_cmd lp_cmd_graph_dump;
extern const lp_cli_cmd lp_cmd_calls;
extern const lp_cli_cmd lp_cmd_trace;
extern const lp_cli_cmd lp_cmd_refs;
extern const lp_cli_cmd lp_cmd_changes;
extern const lp_cli_cmd lp_cmd_arch;
extern const lp_cli_cmd lp_cmd_debug_settings;

/* The command table: one line per command, in the order --help lists them. */
static const lp_cli_cmd *const commands[] = {
    &lp_cmd_index,
    &lp_cmd_sync,
    &lp_cmd_reindex,
    &lp_cmd_status,
    &lp_cmd_list,
    &lp_cmd_clear,
    &lp_cmd_search,
    &lp_cmd_more,
    &lp_cmd_read,
    &lp_cmd_outline,
    &lp_cmd_symbol,
    &lp_cmd_tools,
    &lp_cmd_calls,
    &lp_cmd_trace,
    &lp_cmd_refs,
    &lp_cmd_changes,
    &lp_cmd_arch,
    &lp_cmd_mcp,
    &lp_cmd_install,
    &lp_cmd_uninstall,
    &lp_cmd_doctor,
    &lp_cmd_version,
    &lp_cmd_debug_scan,
    &lp_cmd_parse,
    &lp_cmd_embed,
    &lp_cmd_refs_dump,
    &lp_cmd_graph_dump,
    &lp_cmd_debug_settings,
};

int lp_cli_exit_code(lp_status s)
{
    switch (s) {
    case LP_OK:
        return LP_EXIT_OK;
    case LP_EUSAGE:
        return LP_EXIT_USAGE;
    case LP_ENOTINDEXED:
        return LP_EXIT_NOT_INDEXED;
    case LP_EREINDEX:
    case LP_ECORRUPT: /* damaged: the fix is a reindex too */
        return LP_EXIT_REINDEX;
    case LP_EBUSY:
        return LP_EXIT_BUSY;
    case LP_EPATH:
    case LP_EBROADROOT:
        return LP_EXIT_PATH;
    case LP_ENOENT:
        return LP_EXIT_NOT_FOUND;
    case LP_EAMBIGUOUS:
        return LP_EXIT_AMBIGUOUS;
    default:
        return LP_EXIT_FAIL;
    }
}

/* s as the inside of a JSON string: bytes that are not UTF-8 become U+FFFD. */
static void json_escape(FILE *out, const char *raw)
{
    lp_buf text;
    lp_buf_init(&text, 0);
    lp_utf8_put(&text, raw, strlen(raw));
    for (const char *s = text.ptr; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    lp_buf_release(&text);
}

int lp_cli_fail(const lp_error *err, bool json)
{
    if (json) {
        fprintf(stdout, "{\"error\":{\"code\":\"%s\",\"message\":\"", lp_status_code(err->code));
        json_escape(stdout, err->msg);
        fprintf(stdout, "\"}}\n");
    }
    lp_buf shown;
    lp_buf_init(&shown, 0);
    const char *m =
        err->msg[0] ? lp_cli_text(err->msg, strlen(err->msg), &shown) : lp_status_code(err->code);
    /* One line: a file name in the message cannot break it into forged lines. */
    fputs("loupe: ", stderr);
    for (const unsigned char *p = (const unsigned char *)m; *p; p++) {
        if (*p == '\n')
            fputs("\\n", stderr);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(stderr, "\\x%02x", *p);
        else
            fputc(*p, stderr);
    }
    fputc('\n', stderr);
    lp_buf_release(&shown);
    return lp_cli_exit_code(err->code ? err->code : LP_ERROR);
}

int lp_cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "loupe %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "; run 'loupe %s --help'\n", cmd);
    va_end(ap);
    return LP_EXIT_USAGE;
}

bool lp_cli_wants_help(const lp_cli_cmd *cmd, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            break;
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            if (cmd->help) {
                lp_buf b;
                lp_buf_init(&b, 0);
                cmd->help(&b);
                fputs(b.ptr ? b.ptr : "", stdout);
                lp_buf_release(&b);
            } else {
                fputs(cmd->usage, stdout);
            }
            return true;
        }
    }
    return false;
}

bool lp_cli_stderr_is_tty(void) { return isatty(2) == 1; }

static int usage(FILE *out)
{
    fprintf(out, "loupe %s: code intelligence for coding agents\n\n"
                 "usage: loupe <command> [options]    (loupe <command> --help for details)\n\n"
                 "commands:\n",
            LOUPE_VERSION);
    for (size_t i = 0; i < LP_ARRAY_LEN(commands); i++)
        if (!commands[i]->hidden)
            fprintf(out, "  %-12s %s\n", commands[i]->name, commands[i]->summary);
    fprintf(out, "\nexit codes:\n"
                 "  0 success            1 failure (the message says why)   2 usage error\n"
                 "  3 not indexed        4 requires reindex (or damaged)    5 busy (another writer)\n"
                 "  6 path refused       7 not found                        8 ambiguous name\n"
                 "\nenvironment:\n"
                 "  LOUPE_HOME   state folder (default $XDG_STATE_HOME/loupe or ~/.local/state/loupe;\n"
                 "               set but empty is an error)\n"
                 "  LOUPE_LOG    stderr log level: error, warn (default), info, debug, off\n");
    return out == stdout ? LP_EXIT_OK : LP_EXIT_USAGE;
}

/* The process's engine: made once by lp_cli_main, before any command runs. */
static lp_engine *cli_engine;

lp_engine *lp_cli_engine(void) { return cli_engine; }

static int dispatch(int argc, char **argv)
{
    if (argc < 2)
        return usage(stderr);
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h") || !strcmp(name, "help"))
        return usage(stdout);
    if (!strcmp(name, "--version"))
        name = "version";
    for (size_t i = 0; i < LP_ARRAY_LEN(commands); i++) {
        if (strcmp(commands[i]->name, name) != 0)
            continue;
        if (lp_cli_wants_help(commands[i], argc - 1, argv + 1))
            return LP_EXIT_OK;
        return commands[i]->run(argc - 1, argv + 1);
    }
    fprintf(stderr, "loupe: unknown command '%s'; run 'loupe --help' for the list\n", name);
    return LP_EXIT_USAGE;
}

int lp_cli_main(int argc, char **argv)
{
    lp_log_init_from_env(); /* the environment's level while the configuration is read */
    /* Configuration read once (environment, loupe.toml), the embedding identity in the
     * fingerprint, the state folder: the engine owns them, as it does for a library
     * caller. Lenient: a state folder that cannot be found is reported by the commands
     * that need one. */
    lp_error err = {0};
    if (lp_engine_open(NULL, true, &cli_engine, &err) != LP_OK)
        return lp_cli_fail(&err, false);
    int code = dispatch(argc, argv);
    lp_engine_free(cli_engine);
    cli_engine = NULL;
    return code;
}
