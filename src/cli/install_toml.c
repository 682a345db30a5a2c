/*
 * install_toml.c: in-place edits of Codex's config.toml: one [mcp_servers.<name>] table
 * with `command` and `args`.
 *
 * A line-aware scanner follows TOML's multi-line strings, arrays and inline tables well
 * enough to find table headers and top-level keys; everything it does not own (comments,
 * other tables, other keys of our table) is kept byte for byte. A new table is appended at
 * the end of the file; removal takes out the table and its sub-tables, and the blank line
 * the install added before it. When the server is defined another way (an inline table, or
 * dotted keys) the editor refuses and says so instead of guessing.
 */
#include "cli/install.h"

#include <sys/types.h>

typedef struct toml_line {
    size_t start, end;       /* the line, without its '\n' */
    bool header;             /* [table] (not [[array]]) */
    char path[256];          /* header path ("a.b") or, for a key line, the dotted key */
    size_t value_start, value_end; /* key lines: the value's span */
} toml_line;

typedef struct toml_doc {
    LP_VEC(toml_line) lines; /* only header lines and key lines at nesting depth 0 */
} toml_doc;

/* Parse a dotted key or header path starting at s[i] up to a stop char; normalized to
 * "a.b.c" without quotes. Returns the index after the path. */
static size_t parse_path(const char *s, size_t i, size_t end, char stop, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = '\0';
    while (i < end && s[i] != stop) {
        char c = s[i];
        if (c == ' ' || c == '\t') {
            i++;
        } else if (c == '"' || c == '\'') {
            char q = c;
            i++;
            while (i < end && s[i] != q) {
                if (q == '"' && s[i] == '\\' && i + 1 < end)
                    i++;
                if (o + 1 < cap)
                    out[o++] = s[i];
                i++;
            }
            i++;
        } else {
            if (o + 1 < cap)
                out[o++] = c;
            i++;
        }
    }
    out[o] = '\0';
    return i;
}

/* Skip a value starting at s[i] (string, array, inline table, or bare token); returns the
 * index one past it. Multi-line strings and nested brackets are followed. */
static size_t skip_value(const char *s, size_t i, size_t n)
{
    if (i >= n)
        return i;
    if (s[i] == '"' || s[i] == '\'') {
        char q = s[i];
        bool triple = i + 2 < n && s[i + 1] == q && s[i + 2] == q;
        if (triple) {
            i += 3;
            while (i + 2 < n && !(s[i] == q && s[i + 1] == q && s[i + 2] == q)) {
                if (q == '"' && s[i] == '\\')
                    i++;
                i++;
            }
            i += 3;
            while (i < n && s[i] == q) /* up to two quotes may close the content */
                i++;
            return LP_MIN(i, n);
        }
        i++;
        while (i < n && s[i] != q && s[i] != '\n') {
            if (q == '"' && s[i] == '\\')
                i++;
            i++;
        }
        return LP_MIN(i + 1, n);
    }
    if (s[i] == '[' || s[i] == '{') {
        int depth = 0;
        while (i < n) {
            char c = s[i];
            if (c == '"' || c == '\'') {
                i = skip_value(s, i, n);
                continue;
            }
            if (c == '#') {
                while (i < n && s[i] != '\n')
                    i++;
                continue;
            }
            if (c == '[' || c == '{')
                depth++;
            if (c == ']' || c == '}') {
                depth--;
                if (depth == 0)
                    return i + 1;
            }
            i++;
        }
        return n;
    }
    while (i < n && s[i] != '\n' && s[i] != '#' && s[i] != ',' && s[i] != ']' && s[i] != '}')
        i++;
    while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t'))
        i--;
    return i;
}

static void scan_toml(const char *s, size_t n, toml_doc *doc)
{
    size_t i = 0;
    while (i < n) {
        size_t ls = i;
        while (i < n && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i >= n)
            break;
        if (s[i] == '\n' || s[i] == '\r' || s[i] == '#') {
            while (i < n && s[i] != '\n')
                i++;
            i++;
            continue;
        }
        toml_line ln = {.start = ls};
        if (s[i] == '[') {
            bool array = i + 1 < n && s[i + 1] == '[';
            size_t e = parse_path(s, i + (array ? 2 : 1), n, ']', ln.path, sizeof ln.path);
            ln.header = !array;
            if (array)
                ln.path[0] = '\0';
            i = e;
            while (i < n && s[i] != '\n')
                i++;
            ln.end = i;
            lp_vec_push(&doc->lines, ln);
            i++;
            continue;
        }
        size_t e = parse_path(s, i, n, '=', ln.path, sizeof ln.path);
        if (e >= n) {
            break;
        }
        i = e + 1;
        while (i < n && (s[i] == ' ' || s[i] == '\t'))
            i++;
        ln.value_start = i;
        i = skip_value(s, i, n);
        ln.value_end = i;
        while (i < n && s[i] != '\n')
            i++;
        ln.end = i;
        lp_vec_push(&doc->lines, ln);
        i++;
    }
}

/* Decode a TOML string value (basic or literal, single-line) into out. */
static bool decode_string(const char *s, size_t a, size_t b, lp_buf *out)
{
    lp_buf_reset(out);
    if (b <= a + 1)
        return false;
    if (s[a] == '\'' && s[b - 1] == '\'') {
        lp_buf_append(out, s + a + 1, b - a - 2);
        return true;
    }
    if (s[a] != '"' || s[b - 1] != '"')
        return false;
    for (size_t i = a + 1; i < b - 1; i++) {
        if (s[i] != '\\') {
            lp_buf_putc(out, s[i]);
            continue;
        }
        i++;
        switch (s[i]) {
        case '\\':
        case '"':
            lp_buf_putc(out, s[i]);
            break;
        case 'n':
            lp_buf_putc(out, '\n');
            break;
        case 't':
            lp_buf_putc(out, '\t');
            break;
        default:
            return false; /* rare escapes: treat the value as different */
        }
    }
    return true;
}

static void encode_string(const char *v, lp_buf *out)
{
    lp_buf_putc(out, '"');
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (*p == '"' || *p == '\\')
            lp_buf_printf(out, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            lp_buf_printf(out, "\\u%04x", *p);
        else
            lp_buf_putc(out, (char)*p);
    }
    lp_buf_putc(out, '"');
}

static void encode_args(const char *const *args, lp_buf *out)
{
    lp_buf_putc(out, '[');
    for (size_t i = 0; args[i]; i++) {
        if (i)
            lp_buf_puts(out, ", ");
        encode_string(args[i], out);
    }
    lp_buf_putc(out, ']');
}

/* Is `path` the table or below it ("a.b" vs "a.b" / "a.b.c")? */
static bool under(const char *path, const char *table)
{
    size_t n = strlen(table);
    return !strncmp(path, table, n) && (path[n] == '\0' || path[n] == '.');
}

typedef struct section {
    bool found;
    size_t header;        /* index of the header line */
    size_t begin, end;    /* byte span: header line start .. next foreign header (or EOF) */
    ssize_t command, args, env; /* line indexes of the keys, -1 when absent */
    bool env_table;             /* [<table>.env] exists: the user's, left alone */
} section;

/* Locate the table; LP_EINVAL when it is defined in a form this editor does not handle. */
static lp_status locate(const char *s, size_t n, const toml_doc *doc, const char *table,
                        section *sec, lp_error *err)
{
    memset(sec, 0, sizeof *sec);
    sec->command = sec->args = sec->env = -1;
    char cur[256] = "";
    bool in_ours = false;
    for (size_t i = 0; i < doc->lines.len; i++) {
        const toml_line *ln = &doc->lines.items[i];
        if (ln->header || ln->path[0] == '\0') {
            bool ours = ln->header && under(ln->path, table);
            if (in_ours && !ours) {
                sec->end = ln->start;
                in_ours = false;
            }
            if (ours && !strcmp(ln->path, table)) {
                if (sec->found)
                    return lp_error_set(err, LP_EINVAL, "[%s] appears twice", table);
                sec->found = true;
                sec->header = i;
                sec->begin = ln->start;
                in_ours = true;
            } else if (ours && sec->found && ln->header && !strncmp(ln->path, table, strlen(table)) &&
                       !strcmp(ln->path + strlen(table), ".env")) {
                sec->env_table = true;
                in_ours = true;
            } else if (ours && !sec->found) {
                return lp_error_set(err, LP_EINVAL,
                                    "[%s] is defined before [%s]; edit it by hand", ln->path,
                                    table);
            }
            snprintf(cur, sizeof cur, "%s", ln->header ? ln->path : "");
            continue;
        }
        char full[512];
        snprintf(full, sizeof full, "%s%s%s", cur, cur[0] ? "." : "", ln->path);
        if (in_ours && !strcmp(cur, table)) {
            if (!strcmp(ln->path, "command"))
                sec->command = (ssize_t)i;
            else if (!strcmp(ln->path, "args"))
                sec->args = (ssize_t)i;
            else if (!strcmp(ln->path, "env"))
                sec->env = (ssize_t)i;
            continue;
        }
        if (in_ours)
            continue; /* keys of a sub-table of ours */
        if (under(full, table))
            return lp_error_set(err, LP_EINVAL,
                                "%s is defined as an inline table or with dotted keys, which "
                                "loupe does not edit; remove it (or write [%s] yourself) and "
                                "run loupe install again",
                                table, table);
    }
    if (in_ours)
        sec->end = n;
    (void)s;
    return LP_OK;
}

static void encode_env(const char *const *env, lp_buf *out)
{
    lp_buf_puts(out, "{ ");
    for (size_t i = 0; env[i]; i += 2) {
        if (i)
            lp_buf_puts(out, ", ");
        lp_buf_printf(out, "%s = ", env[i]);
        encode_string(env[i + 1], out);
    }
    lp_buf_puts(out, " }");
}

lp_status lp_toml_set_server(const char *text, size_t len, const char *table,
                             const char *command, const char *const *args,
                             const char *const *env, lp_buf *out, lp_edit_result *res,
                             lp_edit_created *created, lp_error *err)
{
    memset(created, 0, sizeof *created);
    *res = LP_EDIT_UNCHANGED;
    toml_doc doc = {0};
    scan_toml(text, len, &doc);
    section sec;
    lp_status rc = locate(text, len, &doc, table, &sec, err);
    lp_buf cmd_text, args_text, env_text, tmp;
    lp_buf_init(&cmd_text, 0);
    lp_buf_init(&args_text, 0);
    lp_buf_init(&env_text, 0);
    lp_buf_init(&tmp, 0);
    encode_string(command, &cmd_text);
    encode_args(args, &args_text);
    bool want_env = env && env[0] && !sec.env_table;
    if (want_env)
        encode_env(env, &env_text);
    lp_buf_reset(out);
    if (rc)
        goto done;
    if (!sec.found) {
        lp_buf_append(out, text, len);
        if (len) {
            if (text[len - 1] != '\n') {
                lp_buf_putc(out, '\n');
                snprintf(created->prefix, sizeof created->prefix, "\n\n");
            } else {
                snprintf(created->prefix, sizeof created->prefix, "\n");
            }
            lp_buf_putc(out, '\n');
        }
        lp_buf_printf(out, "[%s]\ncommand = %s\nargs = %s\n", table, cmd_text.ptr, args_text.ptr);
        if (want_env)
            lp_buf_printf(out, "env = %s\n", env_text.ptr);
        *res = LP_EDIT_ADDED;
        goto done;
    }
    /* The table exists: compare, then rewrite only the values that differ. */
    bool cmd_same = false, args_same = false, env_same = !want_env;
    if (sec.command >= 0) {
        const toml_line *ln = &doc.lines.items[sec.command];
        cmd_same = decode_string(text, ln->value_start, ln->value_end, &tmp) &&
                   !strcmp(tmp.ptr, command);
    }
    if (sec.args >= 0) {
        const toml_line *ln = &doc.lines.items[sec.args];
        lp_str have = lp_str_n(text + ln->value_start, ln->value_end - ln->value_start);
        args_same = lp_str_eq(have, lp_buf_str(&args_text));
    }
    if (want_env && sec.env >= 0) {
        const toml_line *ln = &doc.lines.items[sec.env];
        lp_str have = lp_str_n(text + ln->value_start, ln->value_end - ln->value_start);
        env_same = lp_str_eq(have, lp_buf_str(&env_text));
    }
    if (cmd_same && args_same && env_same) {
        lp_buf_append(out, text, len);
        goto done;
    }
    /* Apply edits from the end of the file backwards so offsets stay valid. */
    lp_buf_append(out, text, len);
    typedef struct {
        size_t from, to;
        lp_buf *with;
        bool line;
    } edit;
    edit edits[3];
    int ne = 0;
    lp_buf add;
    lp_buf_init(&add, 0);
    const toml_line *hdr = &doc.lines.items[sec.header];
    if (sec.args >= 0 && !args_same) {
        const toml_line *ln = &doc.lines.items[sec.args];
        edits[ne++] = (edit){ln->value_start, ln->value_end, &args_text, false};
    } else if (sec.args < 0) {
        lp_buf_printf(&add, "args = %s\n", args_text.ptr);
    }
    if (want_env && sec.env >= 0 && !env_same) {
        const toml_line *ln = &doc.lines.items[sec.env];
        edits[ne++] = (edit){ln->value_start, ln->value_end, &env_text, false};
    } else if (want_env && sec.env < 0) {
        lp_buf_printf(&add, "env = %s\n", env_text.ptr);
    }
    if (sec.command >= 0 && !cmd_same) {
        const toml_line *ln = &doc.lines.items[sec.command];
        edits[ne++] = (edit){ln->value_start, ln->value_end, &cmd_text, false};
    } else if (sec.command < 0) {
        lp_buf reorder;
        lp_buf_init(&reorder, 0);
        lp_buf_printf(&reorder, "command = %s\n%s", cmd_text.ptr, add.ptr);
        lp_buf_reset(&add);
        lp_buf_append(&add, reorder.ptr, reorder.len);
        lp_buf_release(&reorder);
    }
    /* Apply from the end backwards: sort edits[] by decreasing offset. */
    for (int i = 1; i < ne; i++)
        for (int k = i; k > 0 && edits[k - 1].from < edits[k].from; k--) {
            edit t = edits[k];
            edits[k] = edits[k - 1];
            edits[k - 1] = t;
        }
    for (int k = 0; k < ne; k++) {
        lp_buf next;
        lp_buf_init(&next, 0);
        lp_buf_append(&next, out->ptr, edits[k].from);
        lp_buf_put_str(&next, lp_buf_str(edits[k].with));
        lp_buf_append(&next, out->ptr + edits[k].to, out->len - edits[k].to);
        lp_buf_reset(out);
        lp_buf_append(out, next.ptr, next.len);
        lp_buf_release(&next);
    }
    if (add.len) {
        /* New key lines go right after the header line (offsets before any edit). */
        size_t at = hdr->end < len ? hdr->end + 1 : len;
        lp_buf next;
        lp_buf_init(&next, 0);
        lp_buf_append(&next, out->ptr, at);
        if (at == len && (len == 0 || text[len - 1] != '\n'))
            lp_buf_putc(&next, '\n');
        lp_buf_put_str(&next, lp_buf_str(&add));
        lp_buf_append(&next, out->ptr + at, out->len - at);
        lp_buf_reset(out);
        lp_buf_append(out, next.ptr, next.len);
        lp_buf_release(&next);
    }
    lp_buf_release(&add);
    *res = LP_EDIT_UPDATED;
done:
    lp_buf_release(&cmd_text);
    lp_buf_release(&args_text);
    lp_buf_release(&env_text);
    lp_buf_release(&tmp);
    lp_vec_free(&doc.lines);
    return rc;
}

lp_status lp_toml_remove_server(const char *text, size_t len, const char *table,
                                const char *prefix, lp_buf *out, lp_edit_result *res,
                                lp_error *err)
{
    *res = LP_EDIT_ABSENT;
    toml_doc doc = {0};
    scan_toml(text, len, &doc);
    section sec;
    lp_status rc = locate(text, len, &doc, table, &sec, err);
    lp_buf_reset(out);
    if (rc || !sec.found) {
        lp_buf_append(out, text, len);
        goto done;
    }
    size_t from = sec.begin, to = sec.end;
    /* locate() already extended the section over the sub-tables that follow it. */
    if (to == len) {
        size_t pl = prefix ? strlen(prefix) : 0;
        if (pl && from >= pl && !memcmp(text + from - pl, prefix, pl))
            from -= pl;
        else if (!prefix && from >= 2 && text[from - 1] == '\n' && text[from - 2] == '\n')
            from -= 1;
    }
    lp_buf_append(out, text, from);
    lp_buf_append(out, text + to, len - to);
    *res = LP_EDIT_REMOVED;
done:
    lp_vec_free(&doc.lines);
    return rc;
}

bool lp_toml_get_command(const char *text, size_t len, const char *table, lp_buf *out,
                         lp_error *err)
{
    toml_doc doc = {0};
    scan_toml(text, len, &doc);
    section sec;
    bool ok = false;
    if (locate(text, len, &doc, table, &sec, err) == LP_OK && sec.found && sec.command >= 0) {
        const toml_line *ln = &doc.lines.items[sec.command];
        ok = decode_string(text, ln->value_start, ln->value_end, out);
    }
    lp_vec_free(&doc.lines);
    return ok;
}
