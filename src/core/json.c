/*
 * json.c: JSON strings from bytes of any origin, paths with their escaped form, and the
 * checked json_pack (see json.h).
 */
#define LP_JSON_IMPL 1
#include "core/json.h"

static void *json_xmalloc(size_t n) { return lp_xmalloc(n ? n : 1); }

void lp_json_init(void) { json_set_alloc_funcs(json_xmalloc, free); }

json_t *lp_json_text(const char *p, size_t n)
{
    if (!p)
        n = 0;
    json_t *s;
    if (lp_utf8_valid(p ? p : "", n)) {
        s = json_stringn_nocheck(p ? p : "", n);
    } else {
        lp_buf b;
        lp_buf_init(&b, 0);
        lp_utf8_put(&b, p, n);
        s = json_stringn_nocheck(b.ptr, b.len);
        lp_buf_release(&b);
    }
    if (!s) {
        fputs("loupe: out of memory building a JSON string; free memory and retry\n", stderr);
        exit(LP_EXIT_OOM);
    }
    return s;
}

json_t *lp_json_textz(const char *s) { return s ? lp_json_text(s, strlen(s)) : json_null(); }

void lp_json_set_path(json_t *obj, const char *key, const char *p, size_t n)
{
    lp_buf k;
    lp_buf_init(&k, 0);
    lp_buf_printf(&k, "%sBytes", key);
    json_object_set_new(obj, key, lp_json_text(p, n));
    if (lp_utf8_valid(p ? p : "", p ? n : 0)) {
        json_object_del(obj, k.ptr);
    } else {
        lp_buf e;
        lp_buf_init(&e, 0);
        lp_bytes_escape(&e, p, n);
        json_object_set_new(obj, k.ptr, json_stringn_nocheck(e.ptr, e.len));
        lp_buf_release(&e);
    }
    lp_buf_release(&k);
}

void lp_json_set_path2(json_t *obj, const char *key, const char *root, const char *rel)
{
    lp_buf b;
    lp_buf_init(&b, 0);
    lp_buf_puts(&b, root ? root : "");
    if (rel && *rel)
        lp_buf_printf(&b, "/%s", rel);
    lp_json_set_path(obj, key, b.ptr, b.len);
    lp_buf_release(&b);
}

/* ------------------------------------------------------------------------------------------
 * The checked pack. */

static _Thread_local struct {
    bool failed;
    lp_error e;
} failure;

void lp_json_failure_reset(void) { failure.failed = false; }

bool lp_json_failed(lp_error *err)
{
    if (failure.failed && err)
        *err = failure.e;
    return failure.failed;
}

/* The key (object member names and array indices, "a.b[2]") of the value at 1-based column
 * col of fmt, found by walking the format with the same arguments jansson consumed. Only
 * the format subset loupe uses is understood; anything else stops the walk. */
static void key_at(const char *fmt, int col, va_list ap, lp_buf *out)
{
    enum { MAXD = 16 };
    struct {
        bool object;
        bool want_key;
        const char *key;
        size_t index;
    } st[MAXD];
    int depth = -1;
    for (int i = 0; fmt[i] && i < col - 1; i++) {
        char c = fmt[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == ',' || c == ':')
            continue;
        if (c == '}' || c == ']') {
            if (depth < 0)
                return;
            depth--;
            goto value_done;
        }
        if (depth >= 0 && st[depth].object && st[depth].want_key) {
            if (c != 's')
                return;
            st[depth].key = va_arg(ap, const char *);
            st[depth].want_key = false;
            continue;
        }
        switch (c) {
        case '{':
        case '[':
            if (depth + 1 >= MAXD)
                return;
            depth++;
            st[depth].object = c == '{';
            st[depth].want_key = c == '{';
            st[depth].key = NULL;
            st[depth].index = 0;
            continue;
        case 's':
            (void)va_arg(ap, const char *);
            if (fmt[i + 1] == '#') {
                (void)va_arg(ap, int);
                i++;
            } else if (fmt[i + 1] == '%') {
                (void)va_arg(ap, size_t);
                i++;
            }
            break;
        case 'o':
        case 'O':
            (void)va_arg(ap, json_t *);
            break;
        case 'b':
        case 'i':
            (void)va_arg(ap, int);
            break;
        case 'I':
            (void)va_arg(ap, json_int_t);
            break;
        case 'f':
            (void)va_arg(ap, double);
            break;
        case 'n':
            break;
        default:
            return;
        }
        if (fmt[i + 1] == '?' || fmt[i + 1] == '*')
            i++;
    value_done:
        if (depth >= 0) {
            if (st[depth].object)
                st[depth].want_key = true;
            else
                st[depth].index++;
        }
    }
    for (int d = 0; d <= depth; d++) {
        if (st[d].object && st[d].key)
            lp_buf_printf(out, "%s%s", out->len ? "." : "", st[d].key);
        else if (!st[d].object)
            lp_buf_printf(out, "[%zu]", st[d].index);
    }
}

json_t *lp_json_pack_at(const char *where, const char *fmt, ...)
{
    json_error_t jerr;
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    json_t *j = json_vpack_ex(&jerr, 0, fmt, ap);
    va_end(ap);
    if (!j) {
        lp_buf key;
        lp_buf_init(&key, 256);
        key_at(fmt, jerr.position, ap2, &key);
        /* The key came from the caller: show it the way every text is shown. */
        lp_buf safe;
        lp_buf_init(&safe, 256);
        lp_utf8_put(&safe, key.ptr, key.len);
        lp_log(LP_LOG_ERROR, "json.pack_failed", "at=%s key=\"%s\" reason=\"%s\"", where,
               safe.ptr, jerr.text);
        if (!failure.failed) {
            failure.failed = true;
            lp_error_set(&failure.e, LP_ERROR,
                     "could not encode the answer: key '%s' (at %s): %s; this is a bug in "
                     "loupe, please report it",
                     safe.len ? safe.ptr : "?", where, jerr.text);
        }
        lp_buf_release(&safe);
        lp_buf_release(&key);
    }
    va_end(ap2);
    return j;
}
