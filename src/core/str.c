/*
 * str.c: borrowed slices (lp_str) and limited owned buffers (lp_buf).
 *
 * lp_buf invariants: ptr is never NULL and ptr[len] == '\0'; an empty buffer points at
 * the shared empty string; once err is set, appends are ignored until lp_buf_reset.
 */
#include "core/core.h"

#include <ctype.h>

static char empty_buf[1];

lp_str lp_str_c(const char *s) { return s ? (lp_str){s, strlen(s)} : (lp_str){"", 0}; }
lp_str lp_str_n(const char *s, size_t n) { return (lp_str){s, n}; }

bool lp_str_eq(lp_str a, lp_str b)
{
    return a.len == b.len && (a.len == 0 || memcmp(a.ptr, b.ptr, a.len) == 0);
}

bool lp_str_eq_c(lp_str a, const char *b) { return lp_str_eq(a, lp_str_c(b)); }

bool lp_str_starts_with(lp_str s, lp_str prefix)
{
    return s.len >= prefix.len && (prefix.len == 0 || memcmp(s.ptr, prefix.ptr, prefix.len) == 0);
}

bool lp_str_ends_with(lp_str s, lp_str suffix)
{
    return s.len >= suffix.len &&
           (suffix.len == 0 || memcmp(s.ptr + s.len - suffix.len, suffix.ptr, suffix.len) == 0);
}

int lp_str_cmp(lp_str a, lp_str b)
{
    size_t n = LP_MIN(a.len, b.len);
    int c = n ? memcmp(a.ptr, b.ptr, n) : 0;
    if (c)
        return c;
    return a.len < b.len ? -1 : a.len > b.len ? 1 : 0;
}

lp_str lp_str_trim(lp_str s)
{
    while (s.len && isspace((unsigned char)s.ptr[0])) {
        s.ptr++;
        s.len--;
    }
    while (s.len && isspace((unsigned char)s.ptr[s.len - 1]))
        s.len--;
    return s;
}

lp_str lp_str_sub(lp_str s, size_t from, size_t to)
{
    if (to > s.len)
        to = s.len;
    if (from > to)
        from = to;
    return (lp_str){s.ptr + from, to - from};
}

size_t lp_str_find(lp_str s, lp_str needle, size_t from)
{
    if (needle.len == 0 || needle.len > s.len)
        return SIZE_MAX;
    for (size_t i = from; i + needle.len <= s.len; i++)
        if (s.ptr[i] == needle.ptr[0] && !memcmp(s.ptr + i, needle.ptr, needle.len))
            return i;
    return SIZE_MAX;
}

size_t lp_str_find_char(lp_str s, char c, size_t from)
{
    if (from >= s.len)
        return SIZE_MAX;
    const char *p = memchr(s.ptr + from, c, s.len - from);
    return p ? (size_t)(p - s.ptr) : SIZE_MAX;
}

void lp_buf_init(lp_buf *b, size_t limit)
{
    b->ptr = empty_buf;
    b->len = 0;
    b->cap = 0;
    b->limit = limit ? limit : LP_BUF_DEFAULT_LIMIT;
    b->err = LP_OK;
}

void lp_buf_release(lp_buf *b)
{
    if (b->cap)
        free(b->ptr);
    size_t limit = b->limit;
    lp_buf_init(b, limit);
}

void lp_buf_reset(lp_buf *b)
{
    b->len = 0;
    /* Never write the shared empty buffer: several threads reset empty buffers at once. */
    if (b->cap)
        b->ptr[0] = '\0';
    else
        b->ptr = empty_buf;
    b->err = LP_OK;
}

/* Make room for n more bytes plus the NUL; false (and err set) past the limit. */
static bool buf_reserve(lp_buf *b, size_t n)
{
    if (b->err)
        return false;
    if (n > b->limit || b->len > b->limit - n) {
        b->err = LP_ETOOBIG;
        return false;
    }
    size_t need = b->len + n + 1;
    if (need <= b->cap)
        return true;
    size_t ncap = b->cap ? b->cap : 64;
    while (ncap < need)
        ncap = ncap > SIZE_MAX / 2 ? need : ncap * 2;
    if (b->cap) {
        b->ptr = lp_xrealloc(b->ptr, ncap);
    } else {
        b->ptr = lp_xmalloc(ncap);
        b->ptr[0] = '\0';
    }
    b->cap = ncap;
    return true;
}

void lp_buf_append(lp_buf *b, const void *p, size_t n)
{
    if (n == 0 || !buf_reserve(b, n)) {
        /* Fill up to the limit so a truncated result keeps what fitted, cut where a
         * character ends (the bytes are text far more often than not; a binary caller
         * loses at most 3 bytes of what would have fitted). */
        if (n && b->err == LP_ETOOBIG && b->len < b->limit) {
            size_t room = lp_utf8_cut(p, n, b->limit - b->len);
            b->err = LP_OK;
            if (room && buf_reserve(b, room)) {
                memcpy(b->ptr + b->len, p, room);
                b->len += room;
                b->ptr[b->len] = '\0';
            }
            b->err = LP_ETOOBIG;
        }
        return;
    }
    memcpy(b->ptr + b->len, p, n);
    b->len += n;
    b->ptr[b->len] = '\0';
}

void lp_buf_puts(lp_buf *b, const char *s) { lp_buf_append(b, s, strlen(s)); }
void lp_buf_putc(lp_buf *b, char c) { lp_buf_append(b, &c, 1); }
void lp_buf_put_str(lp_buf *b, lp_str s) { lp_buf_append(b, s.ptr, s.len); }

void lp_buf_vprintf(lp_buf *b, const char *fmt, va_list ap)
{
    if (b->err)
        return;
    char small[256];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n < 0) {
        va_end(ap2);
        return;
    }
    if ((size_t)n < sizeof small) {
        lp_buf_append(b, small, (size_t)n);
    } else if (buf_reserve(b, (size_t)n)) {
        vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap2);
        b->len += (size_t)n;
    } else if (b->err == LP_ETOOBIG && b->len < b->limit) {
        /* Keep what fits, cut at a character (small[] may end inside one). */
        size_t room = b->limit - b->len;
        char *full = lp_xmalloc(LP_MIN((size_t)n, room + 4) + 1);
        vsnprintf(full, LP_MIN((size_t)n, room + 4) + 1, fmt, ap2);
        b->err = LP_OK;
        lp_buf_append(b, full, LP_MIN((size_t)n, room + 4));
        free(full);
    }
    va_end(ap2);
}

void lp_buf_printf(lp_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lp_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

char *lp_buf_extend(lp_buf *b, size_t n)
{
    if (!buf_reserve(b, n))
        return NULL;
    char *p = b->ptr + b->len;
    b->len += n;
    b->ptr[b->len] = '\0';
    return p;
}

void lp_buf_truncate(lp_buf *b, size_t len)
{
    if (len < b->len) {
        b->len = len;
        b->ptr[len] = '\0';
    }
}

char *lp_buf_detach(lp_buf *b, size_t *len_out)
{
    char *p;
    if (len_out)
        *len_out = b->len;
    if (b->cap) {
        p = b->ptr;
    } else {
        p = lp_xmalloc(1);
        p[0] = '\0';
    }
    size_t limit = b->limit;
    lp_buf_init(b, limit);
    return p;
}

bool lp_parse_u64(lp_str s, uint64_t *out)
{
    if (s.len == 0 || s.len > 20)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < s.len; i++) {
        char c = s.ptr[i];
        if (c < '0' || c > '9')
            return false;
        uint64_t d = (uint64_t)(c - '0');
        if (v > (UINT64_MAX - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}
