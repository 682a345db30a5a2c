/*
 * config.c: configuration read once. Builds the settings snapshot of core/settings.h from,
 * lowest first: the table's defaults, <state folder>/loupe.toml (or the caller's file),
 * <root>/loupe.toml (LP_SETTING_ROOT settings only), the environment, the caller's
 * settings. The environment wins over files so that one command can change what a file
 * says (LOUPE_LOG=debug loupe ...); the caller wins over everything (docs/decisions/0018).
 *
 * loupe.toml is a strict subset of TOML: `key = value` lines, values a "string" (with the
 * escapes \" \\ \n \t), a whole number, true or false; `#` comments and blank lines. Keys
 * are the settings' names (frozen_ttl_ms). Anything else (tables, arrays, an unknown key, a
 * value of the wrong type or out of bounds, a key given twice) is an error naming
 * file:line and what to do: a setting silently ignored is worse than none.
 */
#include "api/api.h"

#include <errno.h>
#include <sys/stat.h>

#define TOML_MAX_BYTES ((size_t)1 << 20)

static void snap_set(lp_settings_snap *s, lp_setting_id id, const char *v, size_t n)
{
    free(s->val[id]);
    s->val[id] = lp_xstrndup(v, n);
}

static lp_status toml_fail(lp_error *err, const char *file, size_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static lp_status toml_fail(lp_error *err, const char *file, size_t line, const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    lp_error_set(err, LP_EINVAL, "%s:%zu: %s", file, line, what);
    lp_error_set_reason(err, "config_invalid");
    return LP_EINVAL;
}

static bool key_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-';
}

lp_status lp_config_parse_toml(const char *file, lp_str text, bool root_file,
                               lp_settings_snap *into, lp_error *err)
{
    bool seen[LP_SET_COUNT] = {0};
    lp_buf val;
    lp_buf_init(&val, 0);
    lp_status rc = LP_OK;
    size_t line = 0, i = 0;
    while (i < text.len && !rc) {
        line++;
        size_t e = i;
        while (e < text.len && text.ptr[e] != '\n')
            e++;
        lp_str l = lp_str_sub(text, i, e);
        i = e + 1;
        if (l.len && l.ptr[l.len - 1] == '\r')
            l.len--;
        size_t p = 0;
        while (p < l.len && (l.ptr[p] == ' ' || l.ptr[p] == '\t'))
            p++;
        if (p == l.len || l.ptr[p] == '#')
            continue;
        if (l.ptr[p] == '[') {
            rc = toml_fail(err, file, line,
                           "tables ([...]) are not used by loupe.toml; write 'key = value' lines");
            break;
        }
        size_t k0 = p;
        while (p < l.len && key_char(l.ptr[p]))
            p++;
        char key[64];
        size_t klen = LP_MIN(p - k0, sizeof key - 1);
        memcpy(key, l.ptr + k0, klen);
        key[klen] = '\0';
        while (p < l.len && (l.ptr[p] == ' ' || l.ptr[p] == '\t'))
            p++;
        if (!klen || p == l.len || l.ptr[p] != '=') {
            rc = toml_fail(err, file, line, "expected 'key = value' (a setting name, '=', a "
                                            "string in double quotes, a number or true/false)");
            break;
        }
        p++;
        while (p < l.len && (l.ptr[p] == ' ' || l.ptr[p] == '\t'))
            p++;
        lp_setting_id id;
        if (!lp_setting_find(key, &id) || !strncmp(key, "LOUPE_", 6)) {
            rc = toml_fail(err, file, line,
                           "unknown setting '%s'; the settings are listed in "
                           "docs/ARCHITECTURE.md (Settings) and by 'loupe debug-settings'",
                           key);
            break;
        }
        const lp_setting_def *d = lp_setting_def_of(id);
        if (d->flags & (LP_SETTING_ENV | LP_SETTING_TEST)) {
            rc = toml_fail(err, file, line,
                           "%s can only come from the environment (%s), not from a file", key,
                           d->env);
            break;
        }
        if (root_file && !(d->flags & LP_SETTING_ROOT)) {
            rc = toml_fail(err, file, line,
                           "%s cannot be set by a repository's loupe.toml (it could send code "
                           "elsewhere or change where data goes); set it in the state folder's "
                           "loupe.toml or the environment (%s)",
                           key, d->env);
            break;
        }
        if (seen[id]) {
            rc = toml_fail(err, file, line, "%s is set twice; keep one line", key);
            break;
        }
        seen[id] = true;
        lp_buf_reset(&val);
        bool quoted = p < l.len && l.ptr[p] == '"';
        if (quoted) {
            p++;
            bool closed = false;
            while (p < l.len && !closed) {
                char c = l.ptr[p++];
                if (c == '"') {
                    closed = true;
                } else if (c == '\\' && p < l.len) {
                    char x = l.ptr[p++];
                    char out = x == 'n' ? '\n' : x == 't' ? '\t' : x == '"' ? '"' : x == '\\' ? '\\' : 0;
                    if (!out) {
                        rc = toml_fail(err, file, line, "unknown escape '\\%c' in a string (use "
                                                        "\\\" \\\\ \\n or \\t)", x);
                        break;
                    }
                    lp_buf_putc(&val, out);
                } else if (c == '\0') {
                    rc = toml_fail(err, file, line, "a NUL byte in a string");
                    break;
                } else {
                    lp_buf_putc(&val, c);
                }
            }
            if (rc)
                break;
            if (!closed) {
                rc = toml_fail(err, file, line, "the string of %s has no closing '\"'", key);
                break;
            }
        } else {
            while (p < l.len && l.ptr[p] != ' ' && l.ptr[p] != '\t' && l.ptr[p] != '#')
                lp_buf_putc(&val, l.ptr[p++]);
        }
        while (p < l.len && (l.ptr[p] == ' ' || l.ptr[p] == '\t'))
            p++;
        if (p < l.len && l.ptr[p] != '#') {
            rc = toml_fail(err, file, line, "unexpected text after the value of %s", key);
            break;
        }
        /* Types: strings are quoted; numbers and booleans are bare (TOML's rule). */
        if (d->type == LP_SETTING_STR && !quoted) {
            rc = toml_fail(err, file, line, "%s is text: put the value in double quotes", key);
            break;
        }
        if (d->type != LP_SETTING_STR && quoted) {
            rc = toml_fail(err, file, line, "%s is a %s: write it without quotes", key,
                           d->type == LP_SETTING_BOOL ? "boolean (true or false)" : "number");
            break;
        }
        if (d->type == LP_SETTING_BOOL && strcmp(val.ptr, "true") && strcmp(val.ptr, "false")) {
            rc = toml_fail(err, file, line, "%s needs true or false", key);
            break;
        }
        lp_error verr = {0};
        if (lp_setting_check(id, val.ptr, &verr)) {
            rc = toml_fail(err, file, line, "%s", verr.msg);
            break;
        }
        snap_set(into, id, val.ptr, val.len);
    }
    lp_buf_release(&val);
    return rc;
}

/* Read path when it exists (must_exist: fail when not). */
static lp_status read_toml(const char *path, bool must_exist, bool root_file,
                           lp_settings_snap *into, lp_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        /* absent, or a state folder that does not exist (yet) or is a file: the commands that
         * need the folder say what is wrong with it */
        if (!must_exist && lp_errno_is_vanished(errno))
            return LP_OK;
        lp_error_errno(err, errno, "cannot read the configuration file %s", path);
        lp_error_set_reason(err, "config_invalid");
        return err ? err->code : LP_EIO;
    }
    lp_buf text;
    lp_buf_init(&text, 0);
    lp_status rc = lp_read_file(path, TOML_MAX_BYTES, &text, err);
    if (!rc)
        rc = lp_config_parse_toml(path, lp_buf_str(&text), root_file, into, err);
    else
        lp_error_set_reason(err, "config_invalid");
    lp_buf_release(&text);
    return rc;
}

lp_status lp_config_snapshot(const lp_config *cfg, lp_settings_snap **out, lp_error *err)
{
    static const lp_config none;
    if (!cfg)
        cfg = &none;
    *out = NULL;
    lp_settings_snap *s = lp_xcalloc(1, sizeof *s);
    lp_settings_snap *env = lp_xcalloc(1, sizeof *env);
    lp_buf path;
    lp_buf_init(&path, 0);
    lp_status rc = LP_OK;
    /* The environment and the caller first, into their own layer: the state folder they
     * name is where the file is looked for. */
    if (!cfg->ignore_environment)
        for (size_t i = 0; i < LP_SET_COUNT; i++) {
            const char *v = getenv(lp_setting_def_of((lp_setting_id)i)->env);
            if (v)
                snap_set(env, (lp_setting_id)i, v, strlen(v));
        }
    for (size_t i = 0; i < cfg->nsettings && !rc; i++) {
        const lp_config_setting *c = &cfg->settings[i];
        lp_setting_id id;
        if (!c->name || !lp_setting_find(c->name, &id)) {
            rc = lp_error_set(err, LP_EINVAL,
                              "unknown setting '%s'; the settings are listed in "
                              "docs/ARCHITECTURE.md (Settings)",
                              c->name ? c->name : "(null)");
        } else if (c->value && lp_setting_check(id, c->value, err)) {
            rc = LP_EINVAL;
        } else if (c->value) {
            snap_set(env, id, c->value, strlen(c->value));
        } else {
            free(env->val[id]);
            env->val[id] = NULL;
        }
        if (rc)
            lp_error_set_reason(err, "config_invalid");
    }
    if (!rc && cfg->state_dir)
        snap_set(env, LP_SET_HOME, cfg->state_dir, strlen(cfg->state_dir));
    /* The files: the state folder's (when the state folder can be found: a command that
     * needs it reports why not), then the root's. */
    if (!rc) {
        if (cfg->config_file) {
            rc = read_toml(cfg->config_file, true, false, s, err);
        } else {
            lp_status drc = lp_settings_state_dir_from(env->val[LP_SET_HOME], &path, NULL);
            if (!drc && path.len) {
                lp_buf_puts(&path, "/loupe.toml");
                rc = read_toml(path.ptr, false, false, s, err);
            }
        }
    }
    if (!rc && cfg->root) {
        lp_buf_reset(&path);
        lp_buf_printf(&path, "%s/loupe.toml", cfg->root);
        rc = read_toml(path.ptr, false, true, s, err);
    }
    /* Environment and caller over the files. */
    for (size_t i = 0; i < LP_SET_COUNT && !rc; i++)
        if (env->val[i]) {
            free(s->val[i]);
            s->val[i] = env->val[i];
            env->val[i] = NULL;
        }
    lp_settings_snap_free(env);
    lp_buf_release(&path);
    if (rc) {
        lp_settings_snap_free(s);
        return rc;
    }
    *out = s;
    return LP_OK;
}

/* ------------------------------------------------------------------------------------------
 * Documentation: the settings table as docs/ARCHITECTURE.md shows it. */

void lp_config_markdown(lp_buf *out)
{
    lp_buf_puts(out, "| Variable | loupe.toml key | Type | Default | Range | Meaning |\n"
                     "|---|---|---|---|---|---|\n");
    for (size_t i = 0; i < LP_SET_COUNT; i++) {
        const lp_setting_def *d = lp_setting_def_of((lp_setting_id)i);
        const char *type = d->type == LP_SETTING_U64    ? "number"
                           : d->type == LP_SETTING_BOOL ? "bool"
                                                        : "text";
        char range[64] = "";
        if (d->type == LP_SETTING_U64) {
            if (d->max == UINT64_MAX)
                snprintf(range, sizeof range, ">= %llu", (unsigned long long)d->min);
            else
                snprintf(range, sizeof range, "%llu..%llu", (unsigned long long)d->min,
                         (unsigned long long)d->max);
        }
        const char *dflt = d->type == LP_SETTING_BOOL ? (d->dflt[0] == '1' ? "true" : "false")
                           : d->dflt[0]               ? d->dflt
                                                      : "(unset)";
        lp_buf_printf(out, "| `%s` | ", d->env);
        if (d->flags & LP_SETTING_TEST)
            lp_buf_puts(out, "(env only; test hook)");
        else if (d->flags & LP_SETTING_ENV)
            lp_buf_puts(out, "(env only)");
        else
            lp_buf_printf(out, "`%s`%s", d->key, d->flags & LP_SETTING_ROOT ? " (root too)" : "");
        lp_buf_printf(out, " | %s | %s | %s | %s |\n", type, dflt, range, d->doc);
    }
}
