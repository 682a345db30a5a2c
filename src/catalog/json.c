/*
 * json.c: a strict JSON parser into an arena tree, for the catalog build.
 *
 * One pass over the bytes validates the document, decodes strings and records the byte
 * range of every value, so the build needs neither a second scan for ranges nor a malloc
 * and a hash insert per value.
 *
 * The accepted language is a subset of what jansson accepts with JSON_REJECT_DUPLICATES |
 * JSON_DECODE_ANY (the flags the catalog used before): RFC 8259 grammar, whitespace
 * " \t\n\r", strict UTF-8 (no overlong forms, surrogates or code points over U+10FFFF)
 * everywhere, no control characters in strings, no \u0000, paired surrogate escapes, no
 * duplicate keys (after decoding), at most LP_JSON_MAX_DEPTH nested values. Where
 * jansson's limits are awkward to reproduce bit for bit (integers outside int64, reals
 * that overflow a double) the parser refuses conservatively unless LP_JSON_TRUSTED is
 * set. Callers fall back to jansson whenever this parser refuses, so a refusal never
 * changes a result, only its speed; accepting something jansson refuses would, and the
 * fuzz target (tests/fuzz/fuzz_catalog.c) checks that it never does.
 *
 * Iterative (an explicit stack), every read is bounds-checked, and the tree's size can be
 * capped so a hostile document ("[1,1,1,...]") makes the parser refuse instead of growing
 * twenty times the input.
 */
#include "catalog/catalog_int.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef struct frame {
    uint8_t type;   /* LP_JSON_ARRAY or LP_JSON_OBJECT */
    uint32_t start; /* offset of the bracket */
    uint32_t base;  /* first pending entry of this container */
    uint32_t ws, st;
} frame;

typedef struct parser {
    const char *s;
    size_t len, i;
    lp_arena *a;
    unsigned flags;
    size_t max_tree, tree0;
    uint32_t ws, st; /* running counts for the token estimate */
    LP_VEC(frame) stack;
    LP_VEC(lp_json_pair) pending;
    LP_VEC(uint32_t) table; /* duplicate-key check of large objects */
} parser;

static inline bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

static inline void skip_ws(parser *p)
{
    size_t i = p->i, n = p->len;
    const char *s = p->s;
    if (i >= n || !is_ws(s[i]))
        return;
    i++;
#if defined(__SSE2__)
    /* Indentation: sixteen bytes at a time. */
    const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'),
                  tab = _mm_set1_epi8('\t');
    while (i + 16 <= n) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        __m128i w = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, sp), _mm_cmpeq_epi8(x, nl)),
                                 _mm_or_si128(_mm_cmpeq_epi8(x, cr), _mm_cmpeq_epi8(x, tab)));
        unsigned m = (unsigned)_mm_movemask_epi8(w) ^ 0xFFFFu;
        if (m) {
            i += (size_t)__builtin_ctz(m);
            goto out;
        }
        i += 16;
    }
#endif
    while (i < n && is_ws(s[i]))
        i++;
#if defined(__SSE2__)
out:
#endif
    p->ws += (uint32_t)(i - p->i);
    p->i = i;
}

static int hexval(char x)
{
    if (x >= '0' && x <= '9')
        return x - '0';
    if (x >= 'a' && x <= 'f')
        return x - 'a' + 10;
    if (x >= 'A' && x <= 'F')
        return x - 'A' + 10;
    return -1;
}

static bool hex4(const char *s, unsigned *out)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        int h = hexval(s[k]);
        if (h < 0)
            return false;
        v = v << 4 | (unsigned)h;
    }
    *out = v;
    return true;
}

/* Decode the escapes of the validated literal body [a, b) into out; false on \u0000 or a
 * lone surrogate. Returns the decoded length in *n. */
static bool decode(const char *s, size_t a, size_t b, char *out, size_t *n)
{
    size_t o = 0;
    for (size_t i = a; i < b;) {
        const char *q = memchr(s + i, '\\', b - i);
        size_t run = q ? (size_t)(q - (s + i)) : b - i;
        memcpy(out + o, s + i, run);
        o += run;
        i += run;
        if (i >= b)
            break;
        char e = s[i + 1];
        if (e != 'u') {
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            out[o++] = to[strchr(from, e) - from]; /* the scan let only these through */
            i += 2;
            continue;
        }
        unsigned v;
        hex4(s + i + 2, &v); /* checked by the scan */
        i += 6;
        if (v == 0 || (v >= 0xDC00 && v <= 0xDFFF))
            return false;
        if (v >= 0xD800 && v <= 0xDBFF) {
            unsigned lo;
            if (i + 6 > b || s[i] != '\\' || s[i + 1] != 'u' || !hex4(s + i + 2, &lo) ||
                lo < 0xDC00 || lo > 0xDFFF)
                return false;
            i += 6;
            v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
        }
        if (v < 0x80) {
            out[o++] = (char)v;
        } else if (v < 0x800) {
            out[o++] = (char)(0xC0 | v >> 6);
            out[o++] = (char)(0x80 | (v & 0x3F));
        } else if (v < 0x10000) {
            out[o++] = (char)(0xE0 | v >> 12);
            out[o++] = (char)(0x80 | (v >> 6 & 0x3F));
            out[o++] = (char)(0x80 | (v & 0x3F));
        } else {
            out[o++] = (char)(0xF0 | v >> 18);
            out[o++] = (char)(0x80 | (v >> 12 & 0x3F));
            out[o++] = (char)(0x80 | (v >> 6 & 0x3F));
            out[o++] = (char)(0x80 | (v & 0x3F));
        }
    }
    out[o] = '\0';
    *n = o;
    return true;
}

/* The string literal at p->i (an opening quote): validated, decoded into the arena. */
static bool string(parser *p, const char **str, uint32_t *slen)
{
    const unsigned char *s = (const unsigned char *)p->s;
    size_t n = p->len, i = p->i + 1, a = i;
    bool esc = false;
    for (;;) {
#if defined(__SSE2__)
        /* Plain ASCII runs sixteen bytes at a time: stop at a quote, a backslash, a
         * control character or a byte >= 0x80 (negative as a signed byte). */
        const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'),
                      space = _mm_set1_epi8(0x20);
        while (i + 16 <= n) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
            __m128i stop = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bslash)),
                _mm_cmplt_epi8(x, space));
            unsigned m = (unsigned)_mm_movemask_epi8(stop);
            if (m) {
                i += (size_t)__builtin_ctz(m);
                break;
            }
            i += 16;
        }
#endif
        while (i < n && s[i] >= 0x20 && s[i] < 0x80 && s[i] != '"' && s[i] != '\\')
            i++;
        if (i >= n)
            return false;
        unsigned char c = s[i];
        if (c == '"')
            break;
        if (c < 0x20)
            return false;
        if (c == '\\') {
            if (i + 1 >= n)
                return false;
            unsigned char e = s[i + 1];
            if (e == 'u') {
                unsigned v;
                if (n - i < 6 || !hex4(p->s + i + 2, &v))
                    return false;
                i += 6;
            } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' ||
                       e == 'r' || e == 't') {
                i += 2;
            } else {
                return false;
            }
            esc = true;
            continue;
        }
        size_t k = lp_utf8_seq((const char *)s + i, n - i); /* strict, as jansson */
        if (!k)
            return false;
        i += k;
    }
    size_t raw = i - a;
    if (raw > UINT32_MAX)
        return false;
    char *out = lp_arena_alloc(p->a, raw + 1);
    size_t m = raw;
    if (esc) {
        if (!decode(p->s, a, i, out, &m))
            return false;
    } else {
        memcpy(out, p->s + a, raw);
        out[raw] = '\0';
    }
    *str = out;
    *slen = (uint32_t)m;
    p->st += 2;
    p->i = i + 1;
    return true;
}

/* jansson reads one byte past a number or a literal and puts it back; a NUL byte put back
 * is lost (its reader takes NUL for "buffer empty"), so "[1\0]" is [1] to jansson. The
 * strict mode refuses NUL bytes; the trusted mode reads such text as jansson did. */
static inline void skip_lost_nul(parser *p)
{
    if ((p->flags & LP_JSON_TRUSTED) && p->i < p->len && p->s[p->i] == '\0')
        p->i++;
}

static inline bool is_digit(char c) { return c >= '0' && c <= '9'; }

/* The number at p->i. Without LP_JSON_TRUSTED, refuse integers of more than 18 digits
 * (jansson refuses those outside long long) and reals that might overflow a double. */
static bool number(parser *p)
{
    const char *s = p->s;
    size_t n = p->len, i = p->i;
    if (i < n && s[i] == '-')
        i++;
    if (i >= n)
        return false;
    size_t int_start = i;
    if (s[i] == '0') {
        i++;
    } else if (is_digit(s[i])) {
        while (i < n && is_digit(s[i]))
            i++;
    } else {
        return false;
    }
    size_t int_digits = s[int_start] == '0' ? 0 : i - int_start;
    bool real = false;
    long exp = 0;
    if (i < n && s[i] == '.') {
        i++;
        if (i >= n || !is_digit(s[i]))
            return false;
        while (i < n && is_digit(s[i]))
            i++;
        real = true;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        bool neg = false;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            neg = s[i++] == '-';
        if (i >= n || !is_digit(s[i]))
            return false;
        size_t e0 = i;
        while (i < n && is_digit(s[i])) {
            if (i - e0 < 6)
                exp = exp * 10 + (s[i] - '0');
            i++;
        }
        if (i - e0 >= 6)
            exp = 1000000;
        if (neg)
            exp = -exp;
        real = true;
    }
    if (!(p->flags & LP_JSON_TRUSTED)) {
        if (!real && i - int_start > 18)
            return false;
        if (real && (long)int_digits + exp > 300)
            return false;
    }
    p->i = i;
    skip_lost_nul(p);
    return true;
}

static bool literal(parser *p, const char *word, size_t n)
{
    if (p->len - p->i < n || memcmp(p->s + p->i, word, n))
        return false;
    p->i += n;
    /* jansson reads a whole identifier: "truex" is one bad token, not true and x */
    if (p->i < p->len) {
        char c = p->s[p->i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
            return false;
    }
    skip_lost_nul(p);
    return true;
}

/* Are the keys of the pending pairs [base, end) distinct? */
static bool keys_distinct(parser *p, size_t base)
{
    size_t n = p->pending.len - base;
    if (n < 2)
        return true; /* (and pending.items may still be NULL) */
    lp_json_pair *m = p->pending.items + base;
    if (n <= 16) {
        for (size_t i = 1; i < n; i++)
            for (size_t j = 0; j < i; j++)
                if (m[i].klen == m[j].klen && !memcmp(m[i].key, m[j].key, m[i].klen))
                    return false;
        return true;
    }
    size_t cap = 32;
    while (cap < 2 * n)
        cap *= 2;
    lp_vec_reserve(&p->table, cap);
    memset(p->table.items, 0xff, cap * sizeof *p->table.items);
    for (size_t i = 0; i < n; i++) {
        size_t k = (size_t)lp_hash64_of(m[i].key, m[i].klen) & (cap - 1);
        while (p->table.items[k] != UINT32_MAX) {
            const lp_json_pair *o = &m[p->table.items[k]];
            if (o->klen == m[i].klen && !memcmp(o->key, m[i].key, m[i].klen))
                return false;
            k = (k + 1) & (cap - 1);
        }
        p->table.items[k] = (uint32_t)i;
    }
    return true;
}

/* Close the container on top of the stack into *v (the closing bracket is at p->i). */
static bool close_container(parser *p, lp_json *v)
{
    frame f = p->stack.items[--p->stack.len];
    size_t n = p->pending.len - f.base;
    p->st++;
    p->i++;
    *v = (lp_json){.type = f.type, .n = (uint32_t)n, .start = f.start, .end = (uint32_t)p->i,
                   .ws = p->ws - f.ws, .st = p->st - f.st};
    if (f.type == LP_JSON_OBJECT) {
        if (!keys_distinct(p, f.base))
            return false;
        if (n) {
            v->pairs = lp_arena_alloc(p->a, n * sizeof *v->pairs);
            memcpy(v->pairs, p->pending.items + f.base, n * sizeof *v->pairs);
        }
    } else if (n) {
        v->items = lp_arena_alloc(p->a, n * sizeof *v->items);
        for (size_t k = 0; k < n; k++)
            v->items[k] = p->pending.items[f.base + k].val;
    }
    p->pending.len = f.base;
    return !p->max_tree || p->a->total - p->tree0 <= p->max_tree;
}

/* A new pending entry, unless the pending list would outgrow the tree cap. */
static bool pend(parser *p)
{
    if (p->max_tree && (p->pending.len + 1) * sizeof(lp_json_pair) > p->max_tree)
        return false;
    lp_vec_push_zero(&p->pending);
    return true;
}

/* The key of the next member of the object being read: `"key" :`, into a new pending pair. */
static bool member_key(parser *p)
{
    if (p->i >= p->len || p->s[p->i] != '"')
        return false;
    if (!pend(p))
        return false;
    lp_json_pair *m = &p->pending.items[p->pending.len - 1];
    if (!string(p, &m->key, &m->klen))
        return false;
    skip_ws(p);
    if (p->i >= p->len || p->s[p->i] != ':')
        return false;
    p->st++;
    p->i++;
    return true;
}

static bool run(parser *p, lp_json *root)
{
    lp_json v;
value:
    skip_ws(p);
    if (p->i >= p->len ||
        (!(p->flags & LP_JSON_TRUSTED) && p->stack.len + 1 > LP_JSON_MAX_DEPTH))
        return false;
    {
        size_t start = p->i;
        char c = p->s[p->i];
        v = (lp_json){.start = (uint32_t)start};
        switch (c) {
        case '{':
        case '[':
            lp_vec_push(&p->stack, ((frame){c == '{' ? LP_JSON_OBJECT : LP_JSON_ARRAY,
                                            (uint32_t)start, (uint32_t)p->pending.len, p->ws,
                                            p->st}));
            p->st++;
            p->i++;
            skip_ws(p);
            if (p->i < p->len && p->s[p->i] == (c == '{' ? '}' : ']')) {
                if (!close_container(p, &v))
                    return false;
                goto done;
            }
            if (c == '{' && !member_key(p))
                return false;
            goto value;
        case '"':
            v.type = LP_JSON_STRING;
            if (!string(p, &v.str, &v.n))
                return false;
            break;
        case 't':
            v.type = LP_JSON_TRUE;
            if (!literal(p, "true", 4))
                return false;
            break;
        case 'f':
            v.type = LP_JSON_FALSE;
            if (!literal(p, "false", 5))
                return false;
            break;
        case 'n':
            v.type = LP_JSON_NULL;
            if (!literal(p, "null", 4))
                return false;
            break;
        default:
            v.type = LP_JSON_NUMBER;
            if (!number(p))
                return false;
            break;
        }
        v.end = (uint32_t)p->i;
    }
done:
    /* v is complete: hand it to its container, or it is the root. */
    while (p->stack.len) {
        frame *f = &p->stack.items[p->stack.len - 1];
        if (f->type == LP_JSON_OBJECT)
            p->pending.items[p->pending.len - 1].val = v; /* the pair member_key pushed */
        else if (!pend(p))
            return false;
        else
            p->pending.items[p->pending.len - 1].val = v;
        skip_ws(p);
        if (p->i >= p->len)
            return false;
        char c = p->s[p->i];
        if (c == ',') {
            p->st++;
            p->i++;
            if (f->type == LP_JSON_OBJECT) {
                skip_ws(p);
                if (!member_key(p))
                    return false;
            }
            goto value;
        }
        if (c != (f->type == LP_JSON_OBJECT ? '}' : ']'))
            return false;
        if (!close_container(p, &v))
            return false;
    }
    skip_ws(p);
    if (p->i != p->len)
        return false;
    *root = v;
    return true;
}

lp_json *lp_json_parse(lp_arena *a, const char *s, size_t len, unsigned flags, size_t max_tree)
{
    if (len > UINT32_MAX - 1)
        return NULL;
    parser p = {.s = s, .len = len, .a = a, .flags = flags, .max_tree = max_tree,
                .tree0 = a->total};
    lp_json *root = lp_arena_alloc(a, sizeof *root);
    bool ok = run(&p, root);
    lp_vec_free(&p.stack);
    lp_vec_free(&p.pending);
    lp_vec_free(&p.table);
    return ok ? root : NULL;
}

const lp_json *lp_json_get(const lp_json *obj, const char *key)
{
    if (!obj || obj->type != LP_JSON_OBJECT)
        return NULL;
    size_t kl = strlen(key);
    for (uint32_t i = 0; i < obj->n; i++)
        if (obj->pairs[i].klen == kl && !memcmp(obj->pairs[i].key, key, kl))
            return &obj->pairs[i].val;
    return NULL;
}

size_t lp_json_estimate_tokens(const lp_json *v)
{
    if (v->type != LP_JSON_OBJECT && v->type != LP_JSON_ARRAY)
        return SIZE_MAX;
    size_t compact = (size_t)(v->end - v->start) - v->ws, structural = v->st;
    return (19 * compact + 14 * structural + 99) / 100;
}
