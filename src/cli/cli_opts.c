/*
 * cli_opts.c: small shared helpers for commands: root resolution, JSON printing.
 */
#include "cli/cli_int.h"

#include "api/api.h"
#include "index/index.h"

#include "core/json.h"
#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>

const char *lp_cli_q(const char *s)
{
    static lp_buf ring[8];
    static unsigned next;
    lp_buf *b = &ring[next++ % LP_ARRAY_LEN(ring)];
    if (!b->ptr)
        lp_buf_init(b, 0);
    return lp_cli_path_text(s, b);
}

const char *lp_cli_getopt_bad_arg(int argc, char **argv)
{
    /* An unknown short option inside a cluster that goes on leaves optind on the cluster;
     * one that ended its cluster (or an unknown long option) has moved optind past it. */
    if (optopt && optind < argc && argv[optind][0] == '-' && strchr(argv[optind] + 1, optopt)) {
        const char *prev = optind > 0 ? argv[optind - 1] : "";
        size_t pl = strlen(prev);
        if (!(prev[0] == '-' && pl > 1 && prev[pl - 1] == optopt))
            return argv[optind];
    }
    return optind > 0 && optind <= argc ? argv[optind - 1] : "?";
}

int lp_cli_unknown_option(const char *cmd, const char *arg)
{
    bool file_like = strchr(arg, '.') || strchr(arg, '/') || access(arg, F_OK) == 0;
    if (file_like && strcmp(arg, "--") != 0)
        return lp_cli_usage_error(cmd,
                                  "unknown option '%s'; if it is a file name, put '--' before it "
                                  "(loupe %s -- %s) or write it as ./%s",
                                  arg, cmd, arg, arg);
    return lp_cli_usage_error(cmd, "unknown option '%s'", arg);
}

lp_status lp_cli_root_for(const char *path, bool must_be_indexed, bool allow_broad, lp_buf *root,
                          lp_error *err)
{
    return lp_engine_root_for(lp_cli_engine(), path, must_be_indexed, allow_broad, root, err);
}

/* True when p has a control character: shown raw, a newline in a file name would forge a
 * line of output. */
static bool has_control(const char *p)
{
    for (const unsigned char *c = (const unsigned char *)p; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            return true;
    return false;
}

const char *lp_cli_path_text(const char *p, lp_buf *buf)
{
    if (!p || (lp_utf8_valid(p, strlen(p)) && !has_control(p)))
        return p ? p : "";
    lp_buf_reset(buf);
    /* lp_bytes_escape, with control characters escaped as %HH too (lp_cli_path_arg and
     * lp_bytes_unescape take either back) */
    size_t n = strlen(p);
    for (size_t i = 0; i < n;) {
        size_t k = 0;
        while (i + k < n && (unsigned char)p[i + k] >= 0x20 && p[i + k] != 0x7f)
            k++;
        lp_bytes_escape(buf, p + i, k);
        i += k;
        if (i < n) {
            lp_buf_printf(buf, "%%%02X", (unsigned char)p[i]);
            i++;
        }
    }
    return buf->ptr;
}

const char *lp_cli_text(const char *p, size_t n, lp_buf *buf)
{
    if (!p)
        return "";
    if (lp_utf8_valid(p, n) && p[n] == '\0')
        return p;
    lp_buf_reset(buf);
    lp_utf8_put(buf, p, n);
    return buf->ptr;
}

const char *lp_cli_path_arg(const char *arg, lp_buf *buf)
{
    struct stat sb;
    if (!arg || !strchr(arg, '%') || lstat(arg, &sb) == 0)
        return arg;
    lp_buf_reset(buf);
    if (lp_bytes_unescape(lp_str_c(arg), buf, NULL) || memchr(buf->ptr, '\0', buf->len) ||
        lstat(buf->ptr, &sb) != 0)
        return arg;
    return buf->ptr;
}

int lp_cli_print_json(json_t *j)
{
    lp_error err = {0};
    char *s = NULL;
    if (!lp_json_failed(&err) && j)
        s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_ENSURE_ASCII |
                              JSON_REAL_PRECISION(10));
    if (!s) {
        /* Never print nothing and exit 0: say what could not be encoded. */
        if (!err.code)
            lp_error_set(&err, LP_ERROR, "could not encode the answer as JSON; this is a bug in "
                                         "loupe, please report it");
        return lp_cli_fail(&err, true);
    }
    fputs(s, stdout);
    fputc('\n', stdout);
    free(s);
    return LP_EXIT_OK;
}

bool lp_cli_parse_count(const char *cmd, const char *opt, const char *val, uint64_t max,
                        uint64_t *out)
{
    uint64_t v;
    if (!val || !lp_parse_u64(lp_str_c(val), &v) || v == 0 || v > max) {
        lp_cli_usage_error(cmd, "%s needs a whole number from 1 to %llu, not '%s'", opt,
                           (unsigned long long)max, val ? val : "");
        return false;
    }
    *out = v;
    return true;
}

bool lp_cli_warning_is(const char *coded, lp_warn w)
{
    const char *code = lp_warn_code(w);
    size_t n = strlen(code);
    return !strncmp(coded, code, n) && coded[n] == ':';
}
