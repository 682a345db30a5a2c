/*
 * utf8.c: the one place that knows UTF-8: well-formed sequences, cuts at character
 * boundaries, replacement of bytes that are not UTF-8, and the escaped form of bytes that
 * must round-trip (file names).
 *
 * Invariants: a cut of well-formed text by lp_utf8_cut is well-formed (a prefix never ends
 * inside a sequence); lp_utf8_put writes only well-formed UTF-8 without NUL;
 * lp_bytes_unescape(lp_bytes_escape(x)) == x for any bytes x.
 */
#include "core/core.h"

size_t lp_utf8_seq(const char *p, size_t n)
{
    const unsigned char *u = (const unsigned char *)p;
    if (n == 0)
        return 0;
    unsigned char c = u[0];
    if (c < 0x80)
        return 1;
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0; /* continuation byte, overlong lead (C0, C1) or past U+10FFFF (F5..FF) */
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((u[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (u[i] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

bool lp_utf8_valid(const char *p, size_t n)
{
    for (size_t i = 0; i < n;) {
        if (p[i] == '\0')
            return false;
        if ((unsigned char)p[i] < 0x80) {
            i++;
            continue;
        }
        size_t k = lp_utf8_seq(p + i, n - i);
        if (!k)
            return false;
        i += k;
    }
    return true;
}

size_t lp_utf8_cut(const char *p, size_t n, size_t max)
{
    if (max >= n)
        return n;
    /* Move back to the start of the sequence max falls into, when that sequence is
     * well-formed (inside bytes that are not UTF-8 any cut is as good as another). */
    size_t k = max;
    while (k > 0 && max - k < 3 && ((unsigned char)p[k] & 0xC0) == 0x80)
        k--;
    if (k < max) {
        size_t len = lp_utf8_seq(p + k, n - k);
        if (len && k + len > max)
            return k;
    }
    return max;
}

size_t lp_utf8_copy(char *dst, size_t cap, const char *src)
{
    size_t n = src ? strlen(src) : 0;
    n = lp_utf8_cut(src ? src : "", n, cap - 1);
    if (n)
        memcpy(dst, src, n);
    dst[n] = '\0';
    return n;
}

void lp_utf8_put(lp_buf *b, const char *p, size_t n)
{
    size_t run = 0; /* start of the pending run of well-formed bytes */
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)p[i];
        size_t k = c == 0 ? 0 : c < 0x80 ? 1 : lp_utf8_seq(p + i, n - i);
        if (k) {
            i += k;
            continue;
        }
        lp_buf_append(b, p + run, i - run);
        lp_buf_append(b, "\xEF\xBF\xBD", 3); /* U+FFFD */
        i++;
        run = i;
    }
    lp_buf_append(b, p + run, n - run);
}

static const char hex_digits[] = "0123456789ABCDEF";

void lp_bytes_escape(lp_buf *b, const char *p, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)p[i];
        size_t k = c == 0 || c == '%' ? 0 : c < 0x80 ? 1 : lp_utf8_seq(p + i, n - i);
        if (k) {
            lp_buf_append(b, p + i, k);
            i += k;
            continue;
        }
        char e[3] = {'%', hex_digits[c >> 4], hex_digits[c & 15]};
        lp_buf_append(b, e, 3);
        i++;
    }
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

lp_status lp_bytes_unescape(lp_str s, lp_buf *out, lp_error *err)
{
    lp_buf_reset(out);
    for (size_t i = 0; i < s.len; i++) {
        if (s.ptr[i] != '%') {
            lp_buf_putc(out, s.ptr[i]);
            continue;
        }
        int hi = i + 2 < s.len ? hex_value(s.ptr[i + 1]) : -1;
        int lo = hi >= 0 ? hex_value(s.ptr[i + 2]) : -1;
        if (lo < 0)
            return lp_error_set(err, LP_EINVAL,
                                "'%%' at byte %zu is not followed by two hex digits; in the "
                                "escaped form every '%%' starts %%HH (write %%25 for '%%' itself)",
                                i + 1);
        lp_buf_putc(out, (char)(hi << 4 | lo));
        i += 2;
    }
    if (out->err)
        return lp_error_set(err, LP_ETOOBIG, "the escaped bytes are too long");
    return LP_OK;
}
