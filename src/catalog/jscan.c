/*
 * jscan.c: find the exact byte range of JSON values, so a catalog can hand back each
 * definition byte-for-byte (jansson parses values but does not keep their bytes).
 *
 * The scanner only tracks strings and bracket depth; it is not a validator. parse.c uses it
 * for the skeleton of a document (the top-level array or object and its separators) and
 * has jansson validate every value it locates, so each byte is checked by one or the
 * other. It is iterative (nesting depth costs nothing) and every read is bounds-checked,
 * so no input can make it read outside [0, len).
 */
#include "catalog/catalog_int.h"

static size_t skip_ws(const char *s, size_t len, size_t i)
{
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

/* Index just past the string whose opening quote is at i (or len if unterminated). */
static size_t skip_string(const char *s, size_t len, size_t i)
{
    i++;
    while (i < len) {
        const char *q = memchr(s + i, '"', len - i);
        if (!q)
            return len;
        size_t j = (size_t)(q - s);
        /* Count the backslashes right before the quote: odd means escaped. */
        size_t k = j, bs = 0;
        while (k > i && s[k - 1] == '\\') {
            k--;
            bs++;
        }
        if (bs % 2 == 0)
            return j + 1;
        i = j + 1;
    }
    return len;
}

bool lp_jscan_value(const char *s, size_t len, size_t pos, lp_jrange *out)
{
    size_t i = skip_ws(s, len, pos);
    if (i >= len)
        return false;
    size_t start = i;
    char c = s[i];
    if (c == '"') {
        i = skip_string(s, len, i);
    } else if (c == '{' || c == '[') {
        size_t depth = 0;
        while (i < len) {
            char d = s[i];
            if (d == '"') {
                i = skip_string(s, len, i);
                continue;
            }
            if (d == '{' || d == '[') {
                depth++;
            } else if (d == '}' || d == ']') {
                if (--depth == 0) {
                    i++;
                    break;
                }
            }
            i++;
        }
        if (depth != 0)
            return false;
    } else {
        /* number, true, false, null */
        while (i < len && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' &&
               s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
            i++;
    }
    if (i == start)
        return false;
    out->start = start;
    out->end = i;
    return true;
}

bool lp_jscan_array(const char *s, size_t len, lp_jrange r, lp_jrange_vec *out)
{
    if (r.end > len || r.start >= r.end || s[r.start] != '[')
        return false;
    size_t i = skip_ws(s, r.end, r.start + 1);
    if (i < r.end && s[i] == ']')
        return i + 1 == r.end;
    while (i < r.end) {
        lp_jrange e;
        if (!lp_jscan_value(s, r.end, i, &e))
            return false;
        lp_vec_push(out, e);
        i = skip_ws(s, r.end, e.end);
        if (i < r.end && s[i] == ',') {
            i++;
            continue;
        }
        return i < r.end && s[i] == ']' && i + 1 == r.end;
    }
    return false;
}

/* Does the JSON string literal at [a, b) (quotes included) decode to key? Handles the
 * escapes a key can use (\uXXXX for ASCII, simple escapes); others never match. */
static bool key_equals(const char *s, size_t a, size_t b, const char *key)
{
    size_t i = a + 1, end = b - 1, k = 0;
    while (i < end) {
        char c = s[i];
        if (c == '\\') {
            if (i + 1 >= end)
                return false;
            char e = s[i + 1];
            if (e == 'u') {
                if (i + 6 > end)
                    return false;
                unsigned v = 0;
                for (size_t h = i + 2; h < i + 6; h++) {
                    char x = s[h];
                    v <<= 4;
                    if (x >= '0' && x <= '9')
                        v |= (unsigned)(x - '0');
                    else if (x >= 'a' && x <= 'f')
                        v |= (unsigned)(x - 'a' + 10);
                    else if (x >= 'A' && x <= 'F')
                        v |= (unsigned)(x - 'A' + 10);
                    else
                        return false;
                }
                if (v == 0 || v >= 0x80)
                    return false; /* our keys are ASCII */
                c = (char)v;
                i += 6;
            } else {
                static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
                const char *p = strchr(from, e);
                if (!p || !e)
                    return false;
                c = to[p - from];
                i += 2;
            }
        } else {
            i++;
        }
        if (key[k] != c)
            return false;
        k++;
    }
    return key[k] == '\0';
}

bool lp_jscan_member(const char *s, size_t len, lp_jrange r, const char *key, lp_jrange *out)
{
    if (r.end > len || r.start >= r.end || s[r.start] != '{')
        return false;
    size_t i = skip_ws(s, r.end, r.start + 1);
    while (i < r.end && s[i] == '"') {
        size_t kend = skip_string(s, r.end, i);
        bool match = key_equals(s, i, kend, key);
        i = skip_ws(s, r.end, kend);
        if (i >= r.end || s[i] != ':')
            return false;
        lp_jrange v;
        if (!lp_jscan_value(s, r.end, i + 1, &v))
            return false;
        if (match) {
            *out = v;
            return true;
        }
        i = skip_ws(s, r.end, v.end);
        if (i < r.end && s[i] == ',')
            i = skip_ws(s, r.end, i + 1);
        else
            break;
    }
    return false;
}

bool lp_jscan_object(const char *s, size_t len, lp_jrange r, lp_jmember_vec *out)
{
    if (r.end > len || r.start >= r.end || s[r.start] != '{')
        return false;
    size_t i = skip_ws(s, r.end, r.start + 1);
    if (i < r.end && s[i] == '}')
        return i + 1 == r.end;
    while (i < r.end) {
        if (s[i] != '"')
            return false;
        lp_jmember m;
        m.key.start = i;
        m.key.end = skip_string(s, r.end, i);
        i = skip_ws(s, r.end, m.key.end);
        if (i >= r.end || s[i] != ':')
            return false;
        if (!lp_jscan_value(s, r.end, i + 1, &m.value))
            return false;
        lp_vec_push(out, m);
        i = skip_ws(s, r.end, m.value.end);
        if (i < r.end && s[i] == ',') {
            i = skip_ws(s, r.end, i + 1);
            continue;
        }
        return i < r.end && s[i] == '}' && i + 1 == r.end;
    }
    return false;
}

bool lp_jscan_key_is(const char *s, lp_jmember m, const char *key)
{
    return key_equals(s, m.key.start, m.key.end, key);
}
