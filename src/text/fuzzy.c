/*
 * fuzzy.c: bounded edit distance and byte trigrams (text.h).
 *
 * The distance works on codepoints (so "é" vs "e" costs one edit) and stops as soon as
 * every cell of a row exceeds the bound, so a caller pays O(len * max) at worst.
 */
#include "text/text.h"

#include <utf8proc.h>

/* Decode up to cap codepoints; returns the count, or cap + 1 if s has more. Invalid bytes
 * decode as themselves (negated) so they still compare equal to the same bytes. */
static size_t to_cps(lp_str s, int32_t *out, size_t cap)
{
    size_t n = 0, pos = 0;
    while (pos < s.len) {
        if (n == cap)
            return cap + 1;
        int32_t cp;
        utf8proc_ssize_t l = utf8proc_iterate((const utf8proc_uint8_t *)s.ptr + pos,
                                              (utf8proc_ssize_t)(s.len - pos), &cp);
        if (l <= 0) {
            cp = -(int32_t)(unsigned char)s.ptr[pos];
            l = 1;
        }
        out[n++] = cp;
        pos += (size_t)l;
    }
    return n;
}

size_t lp_text_edit_distance(lp_str a, lp_str b, size_t max)
{
    if (lp_str_eq(a, b))
        return 0;
    int32_t x[LP_TEXT_FUZZY_MAX], y[LP_TEXT_FUZZY_MAX];
    size_t n = to_cps(a, x, LP_TEXT_FUZZY_MAX), m = to_cps(b, y, LP_TEXT_FUZZY_MAX);
    if (n > LP_TEXT_FUZZY_MAX || m > LP_TEXT_FUZZY_MAX)
        return max + 1;
    if ((n > m ? n - m : m - n) > max)
        return max + 1;
    /* Three rows of the optimal-string-alignment table. */
    size_t rows[3][LP_TEXT_FUZZY_MAX + 1];
    size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        size_t row_min = cur[0];
        for (size_t j = 1; j <= m; j++) {
            size_t cost = x[i - 1] == y[j - 1] ? 0 : 1;
            size_t d = prev[j] + 1;
            if (cur[j - 1] + 1 < d)
                d = cur[j - 1] + 1;
            if (prev[j - 1] + cost < d)
                d = prev[j - 1] + cost;
            if (i > 1 && j > 1 && x[i - 1] == y[j - 2] && x[i - 2] == y[j - 1] &&
                prev2[j - 2] + 1 < d)
                d = prev2[j - 2] + 1;
            cur[j] = d;
            if (d < row_min)
                row_min = d;
        }
        if (row_min > max)
            return max + 1;
        size_t *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[m] <= max ? prev[m] : max + 1;
}

size_t lp_text_trigrams(lp_str term, uint32_t *out, size_t cap)
{
    if (term.len < 3)
        return 0;
    size_t n = term.len - 2;
    for (size_t i = 0; i < n && i < cap; i++) {
        const unsigned char *p = (const unsigned char *)term.ptr + i;
        out[i] = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | (uint32_t)p[2];
    }
    return n;
}
