/*
 * cli_int.h: what the command files of src/cli share.
 *
 * Each command lives in its own cmd_<name>.c and exports one lp_cli_cmd; the table in
 * cli.c lists them. A command's run() returns the process exit code (see cli.h).
 */
#ifndef LP_CLI_INT_H
#define LP_CLI_INT_H

#include "core/core.h"
#include "core/warn.h"

typedef struct lp_cli_cmd {
    const char *name;
    const char *summary; /* one line for `loupe --help` */
    const char *usage;   /* full text for `loupe NAME --help` */
    void (*help)(lp_buf *out); /* or this writes it (commands generated from the tool table) */
    int (*run)(int argc, char **argv); /* argv[0] is the command name */
    bool hidden;         /* not listed in --help (debug commands) */
} lp_cli_cmd;

enum {
    LP_EXIT_OK = 0,
    LP_EXIT_FAIL = 1,
    LP_EXIT_USAGE = 2,
    LP_EXIT_NOT_INDEXED = 3,
    LP_EXIT_REINDEX = 4,
    LP_EXIT_BUSY = 5,
    LP_EXIT_PATH = 6,
    LP_EXIT_NOT_FOUND = 7,
    LP_EXIT_AMBIGUOUS = 8,
    /* LP_EXIT_OOM = 9 (core.h): out of memory, nothing committed */
};

/* Exit code for a status. */
int lp_cli_exit_code(lp_status s);
/* Print "loupe: <msg>" (or a JSON error object on stdout when json) and return the exit
 * code for err->code. */
int lp_cli_fail(const lp_error *err, bool json);
/* Print "loupe CMD: <msg>; run 'loupe CMD --help'" and return LP_EXIT_USAGE. */
int lp_cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "unknown option 'ARG'" for cmd; when ARG looks like a file name (a '.' or '/', or it
 * exists), says how to pass it: '--' before it, or ./ARG. Returns LP_EXIT_USAGE. Every
 * command accepts '--' (end of options: what follows is an argument even if it starts
 * with '-'). */
int lp_cli_unknown_option(const char *cmd, const char *arg);
/* lp_cli_path_text without a caller's buffer: the result lives in a ring of 8 buffers (use it
 * inline in one printf; valid until 8 more calls). NULL gives "". */
const char *lp_cli_q(const char *s);

/* The element of argv that getopt_long (opterr = 0) just refused with '?': inside a cluster
 * of short options ("-rf.c") that is the cluster, not the argument before it. */
const char *lp_cli_getopt_bad_arg(int argc, char **argv);
/* True (and usage printed to stdout) when argv has --help or -h. */
bool lp_cli_wants_help(const lp_cli_cmd *cmd, int argc, char **argv);
/* Is stderr a terminal (progress lines are drawn only then)? */
bool lp_cli_stderr_is_tty(void);

/* The root for a command: with must_be_indexed, the indexed root containing path (or the
 * current folder when path is NULL); otherwise path itself, resolved and checked for
 * broadness. */
/* The process's engine (src/api), made by lp_cli_main before any command runs. Borrowed. */
lp_engine *lp_cli_engine(void);
lp_status lp_cli_root_for(const char *path, bool must_be_indexed, bool allow_broad,
                          lp_buf *root, lp_error *err);
/* Bytes that are not UTF-8 in plain output (docs/ARCHITECTURE.md, "Bytes that are not
 * UTF-8"): a path is shown as itself when it is UTF-8 without control characters, else in
 * its escaped form (lp_bytes_escape: %HH for each such byte, each control character, so a
 * newline in a name cannot forge a line of output, and for '%'), which every path argument accepts
 * back (lp_cli_path_arg); text is shown with U+FFFD for each such byte. Both return p or a
 * pointer into buf, valid until buf changes. */
const char *lp_cli_path_text(const char *p, lp_buf *buf);
const char *lp_cli_text(const char *p, size_t n, lp_buf *buf);
/* A path argument: arg itself, unless nothing has that name and arg holds %HH escapes whose
 * bytes name something (then those bytes, in buf): the escaped form of plain output and of
 * the JSON `<key>Bytes` fields is accepted wherever a path is. */
const char *lp_cli_path_arg(const char *arg, lp_buf *buf);

/* Print JSON to stdout (sorted keys, two-space indent, ASCII), newline-terminated, and
 * return LP_EXIT_OK. When j is NULL or an lp_json_pack of this command failed, print the
 * JSON error object (and the message on stderr) instead and return a failing exit code:
 * a command never prints nothing and exits 0. j stays the caller's. */
struct json_t;
int lp_cli_print_json(struct json_t *j);
/* Parse a positive count option; on failure prints a usage error and returns false. */
/* True when a "code: text" warning (src/search) has w's code. */
bool lp_cli_warning_is(const char *coded, lp_warn w);
bool lp_cli_parse_count(const char *cmd, const char *opt, const char *val, uint64_t max,
                        uint64_t *out);

/* cmd_search.c: search result pages, shared with `loupe more`. */
struct lp_search_group;
struct json_t *lp_cli_search_results_json(const char *root, const struct lp_search_group *groups,
                                          size_t from, size_t n);
struct json_t *lp_cli_pagination_json(size_t offset, size_t shown, size_t frozen,
                                      const char *handle);
void lp_cli_search_print(const struct lp_search_group *groups, size_t from, size_t n);
void lp_cli_more_hint(size_t left, const char *handle);

/* LOUPE_VERSION: src/loupe.h (through core.h) */

#endif
