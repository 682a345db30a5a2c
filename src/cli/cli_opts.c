/*
 * cli_opts.c: small shared helpers for commands: root resolution, JSON printing.
 */
#include "cli/cli_int.h"

#include "index/index.h"

#include <getopt.h>
#include <jansson.h>
#include <unistd.h>

const char *lp_cli_q(const char *s)
{
    static lp_buf ring[8];
    static unsigned next;
    if (!s)
        return "";
    bool plain = true;
    for (const unsigned char *p = (const unsigned char *)s; *p && plain; p++)
        plain = *p >= 0x20 && *p != 0x7f && *p != '"' && *p != '\\';
    if (plain)
        return s;
    lp_buf *b = &ring[next++ % LP_ARRAY_LEN(ring)];
    if (!b->ptr)
        lp_buf_init(b, 0);
    lp_buf_reset(b);
    lp_buf_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '\n': lp_buf_puts(b, "\\n"); break;
        case '\t': lp_buf_puts(b, "\\t"); break;
        case '\r': lp_buf_puts(b, "\\r"); break;
        case '"': lp_buf_puts(b, "\\\""); break;
        case '\\': lp_buf_puts(b, "\\\\"); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                lp_buf_printf(b, "\\x%02x", *p);
            else
                lp_buf_putc(b, (char)*p);
        }
    }
    lp_buf_putc(b, '"');
    return b->ptr;
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
    lp_buf abs;
    lp_buf_init(&abs, 0);
    lp_status rc;
    if (!path) {
        char cwd[LP_PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) {
            rc = lp_error_set(err, LP_EIO, "cannot read the current folder");
            goto done;
        }
        path = cwd;
        rc = lp_path_real(cwd, &abs, err);
    } else {
        rc = lp_path_real(path, &abs, err);
    }
    if (rc)
        goto done;
    if (must_be_indexed) {
        rc = lp_store_find_root(abs.ptr, root, err);
        goto done;
    }
    rc = lp_index_resolve_root(abs.ptr, allow_broad, root, err);
done:
    lp_buf_release(&abs);
    return rc;
}

void lp_cli_print_json(json_t *j)
{
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_ENSURE_ASCII | JSON_REAL_PRECISION(10));
    if (s) {
        fputs(s, stdout);
        fputc('\n', stdout);
        free(s);
    }
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
