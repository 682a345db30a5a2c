/*
 * tokenize.c: Unicode folding, word runs and identifier splitting (see text.h).
 *
 * The tokenizer reads the input once. Each codepoint is classified from its original form
 * (so case boundaries survive folding) and folded into the run buffer; when a run ends,
 * part boundaries are computed on the class array and tokens are emitted. A run is at
 * most LP_TEXT_RUN_MAX codepoints, so every buffer here is fixed-size and allocated once
 * per tokenizer.
 */
#include "text/text.h"

#include <utf8proc.h>

/* Codepoint classes inside a run. */
enum { C_UPPER = 1, C_LOWER, C_OTHER, C_DIGIT, C_JOIN };
/* Classes of a codepoint seen outside a run. */
enum { K_BREAK = 0, K_WORD, K_MARK, K_JOIN, K_HYPHEN, K_CJK };

#define FOLD_MAX 96 /* bytes one folded codepoint may take (U+FDFA is 18 codepoints) */

struct lp_text_tokenizer {
    unsigned opts;
    size_t n;                         /* codepoints in the current run */
    uint8_t cls[LP_TEXT_RUN_MAX + 1]; /* C_* per codepoint */
    size_t in_off[LP_TEXT_RUN_MAX + 1];
    uint32_t out_off[LP_TEXT_RUN_MAX + 1];
    char folded[LP_TEXT_RUN_MAX * FOLD_MAX];
    size_t nfold;
    uint32_t position;  /* next position to assign */
    bool have_previous; /* a token was emitted (colocation needs one) */
    char tok[LP_TEXT_TOKEN_MAX * 2 + 8];
};

lp_text_tokenizer *lp_text_tokenizer_new(unsigned options)
{
    /* Not zeroed: every buffer is written before it is read (about 30 KiB per tokenizer). */
    lp_text_tokenizer *tk = lp_xmalloc(sizeof *tk);
    tk->opts = options;
    tk->n = 0;
    tk->nfold = 0;
    tk->position = 0;
    tk->have_previous = false;
    return tk;
}

void lp_text_tokenizer_free(lp_text_tokenizer *tk) { free(tk); }

/* Decode one codepoint; returns its byte length (>= 1) and sets *cp, or -1 in *cp for an
 * invalid byte (length 1). */
static size_t decode(const uint8_t *p, size_t n, int32_t *cp)
{
    if (p[0] < 0x80) {
        *cp = p[0];
        return 1;
    }
    utf8proc_ssize_t len = utf8proc_iterate(p, (utf8proc_ssize_t)LP_MIN(n, 4), cp);
    if (len <= 0) {
        *cp = -1;
        return 1;
    }
    return (size_t)len;
}

/* Class of the ASCII letters and digits (C_UPPER, C_LOWER, C_DIGIT); 0 for every other
 * byte (the general path handles them). */
static const uint8_t ascii_word[256] = {
#define R10(c, x) [c] = x, [c + 1] = x, [c + 2] = x, [c + 3] = x, [c + 4] = x, [c + 5] = x, \
                  [c + 6] = x, [c + 7] = x, [c + 8] = x, [c + 9] = x
    R10('0', C_DIGIT),
    R10('A', C_UPPER), R10('A' + 10, C_UPPER), ['U'] = C_UPPER, ['V'] = C_UPPER,
    ['W'] = C_UPPER, ['X'] = C_UPPER, ['Y'] = C_UPPER, ['Z'] = C_UPPER,
    R10('a', C_LOWER), R10('a' + 10, C_LOWER), ['u'] = C_LOWER, ['v'] = C_LOWER,
    ['w'] = C_LOWER, ['x'] = C_LOWER, ['y'] = C_LOWER, ['z'] = C_LOWER,
#undef R10
};

static bool is_cjk(int32_t c)
{
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
           (c >= 0x20000 && c <= 0x2FA1F) || (c >= 0xF900 && c <= 0xFAFF) ||
           (c >= 0x3040 && c <= 0x30FF) || (c >= 0x31F0 && c <= 0x31FF);
}

static int kind_of(int32_t c, uint8_t *cls)
{
    if (c < 0)
        return K_BREAK;
    if (c < 0x80) {
        if (c >= 'a' && c <= 'z') {
            *cls = C_LOWER;
            return K_WORD;
        }
        if (c >= 'A' && c <= 'Z') {
            *cls = C_UPPER;
            return K_WORD;
        }
        if (c >= '0' && c <= '9') {
            *cls = C_DIGIT;
            return K_WORD;
        }
        if (c == '_') {
            *cls = C_JOIN;
            return K_JOIN;
        }
        if (c == '-') {
            *cls = C_JOIN;
            return K_HYPHEN;
        }
        return K_BREAK;
    }
    if (is_cjk(c))
        return K_CJK;
    switch (utf8proc_category(c)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LT:
        *cls = C_UPPER;
        return K_WORD;
    case UTF8PROC_CATEGORY_LL:
        *cls = C_LOWER;
        return K_WORD;
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
        *cls = C_OTHER;
        return K_WORD;
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO:
        *cls = C_DIGIT;
        return K_WORD;
    case UTF8PROC_CATEGORY_MN:
    case UTF8PROC_CATEGORY_MC:
    case UTF8PROC_CATEGORY_ME:
        return K_MARK;
    case UTF8PROC_CATEGORY_PC:
        *cls = C_JOIN;
        return K_JOIN;
    default:
        return K_BREAK;
    }
}

/* Fold one codepoint into out (at least FOLD_MAX bytes); returns the byte count. */
static size_t fold_cp(int32_t c, char *out)
{
    if (c >= 0 && c < 0x80) {
        out[0] = (char)((c >= 'A' && c <= 'Z') ? c + 32 : c);
        return 1;
    }
    if (c < 0)
        c = 0xFFFD;
    if (c >= 0xAC00 && c <= 0xD7A3) /* Hangul syllables: caseless, keep them composed */
        return (size_t)utf8proc_encode_char(c, (utf8proc_uint8_t *)out);
    utf8proc_int32_t buf[24];
    utf8proc_ssize_t n = utf8proc_decompose_char(
        c, buf, (utf8proc_ssize_t)LP_ARRAY_LEN(buf),
        UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT | UTF8PROC_CASEFOLD, NULL);
    if (n < 0 || n > (utf8proc_ssize_t)LP_ARRAY_LEN(buf)) {
        buf[0] = c;
        n = 1;
    }
    size_t len = 0;
    for (utf8proc_ssize_t i = 0; i < n; i++) {
        if (buf[i] >= 0x300 && buf[i] <= 0x36F)
            continue; /* combining diacritics of Latin, Greek and Cyrillic letters */
        len += (size_t)utf8proc_encode_char(buf[i], (utf8proc_uint8_t *)out + len);
    }
    return len;
}

typedef struct emit_ctx {
    lp_text_tokenizer *tk;
    lp_text_token_fn fn;
    void *ctx;
} emit_ctx;

static int emit(emit_ctx *e, const char *text, size_t len, size_t start, size_t end,
                uint32_t flags)
{
    lp_text_tokenizer *tk = e->tk;
    size_t cut = lp_utf8_cut(text, len, LP_TEXT_TOKEN_MAX);
    if (cut < len)
        flags |= LP_TEXT_TOK_TRUNCATED;
    if (cut == 0)
        return 0;
    if (text != tk->tok)
        memmove(tk->tok, text, cut);
    tk->tok[cut] = '\0';
    if ((flags & LP_TEXT_TOK_COLOCATED) && !tk->have_previous)
        flags &= ~(uint32_t)LP_TEXT_TOK_COLOCATED;
    lp_text_token t = {tk->tok, cut, start, end, 0, flags};
    if (flags & LP_TEXT_TOK_COLOCATED) {
        t.position = tk->position - 1;
    } else {
        t.position = tk->position++;
    }
    tk->have_previous = true;
    return e->fn(e->ctx, &t);
}

static bool all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return n > 0;
}

/* Emit one part [a, b) of the current run, after stopword and stemming processing.
 * Returns the callback's value; *emitted is set when a token went out. */
static int emit_part(emit_ctx *e, size_t a, size_t b, uint32_t flags, bool *emitted)
{
    lp_text_tokenizer *tk = e->tk;
    const char *text = tk->folded + tk->out_off[a];
    size_t len = tk->out_off[b] - tk->out_off[a];
    *emitted = false;
    if (len == 0)
        return 0;
    if ((tk->opts & LP_TEXT_STOPWORDS) && lp_text_is_stopword((lp_str){text, len}))
        return 0;
    if (all_digits(text, len))
        flags |= LP_TEXT_TOK_NUMBER;
    if (tk->opts & LP_TEXT_STEM) {
        char stem[LP_TEXT_TOKEN_MAX + 1];
        size_t cut = lp_utf8_cut(text, len, LP_TEXT_TOKEN_MAX);
        size_t sl = lp_text_stem((lp_str){text, cut}, stem);
        if (sl != cut || memcmp(stem, text, sl) != 0) {
            memcpy(tk->tok, stem, sl);
            *emitted = true;
            return emit(e, tk->tok, sl, tk->in_off[a], tk->in_off[b],
                        flags | LP_TEXT_TOK_STEMMED | (cut < len ? LP_TEXT_TOK_TRUNCATED : 0));
        }
    }
    *emitted = true;
    return emit(e, text, len, tk->in_off[a], tk->in_off[b], flags);
}

/* Part boundaries between two non-join classes [c0][c1]: 1 = always (digit or other on one
 * side only, lower to upper), 2 = upper to upper (depends on what follows), 0 = none. */
static const uint8_t boundary_of[C_JOIN][C_JOIN] = {
    [C_UPPER] = {[C_UPPER] = 2, [C_LOWER] = 0, [C_OTHER] = 1, [C_DIGIT] = 1},
    [C_LOWER] = {[C_UPPER] = 1, [C_LOWER] = 0, [C_OTHER] = 1, [C_DIGIT] = 1},
    [C_OTHER] = {[C_UPPER] = 1, [C_LOWER] = 1, [C_OTHER] = 0, [C_DIGIT] = 1},
    [C_DIGIT] = {[C_UPPER] = 1, [C_LOWER] = 1, [C_OTHER] = 1, [C_DIGIT] = 0},
};

/* Is there a part boundary between codepoints i-1 and i (both non-join)? */
static inline bool boundary(const lp_text_tokenizer *tk, size_t i)
{
    uint8_t b = boundary_of[tk->cls[i - 1]][tk->cls[i]];
    if (b != 2)
        return b;
    if (i + 1 < tk->n && tk->cls[i + 1] == C_LOWER) {
        /* "HTTPServer": break before 'S'; but "IDs", "URLsFor": a lone plural 's' stays. */
        bool lone_s = tk->folded[tk->out_off[i + 1]] == 's' &&
                      tk->out_off[i + 2] - tk->out_off[i + 1] == 1 &&
                      (i + 2 >= tk->n || tk->cls[i + 2] != C_LOWER);
        return !lone_s;
    }
    return false;
}

static int flush_run(emit_ctx *e)
{
    lp_text_tokenizer *tk = e->tk;
    int rc = 0;
    /* Trailing hyphens never belong to a run ("foo- bar"). */
    while (tk->n > 0 && tk->cls[tk->n - 1] == C_JOIN &&
           tk->folded[tk->out_off[tk->n - 1]] == '-') {
        tk->n--;
        tk->nfold = tk->out_off[tk->n];
    }
    size_t n = tk->n;
    if (n == 0) {
        tk->nfold = 0;
        return 0;
    }
    tk->out_off[n] = (uint32_t)tk->nfold;
    /* Part boundaries. */
    size_t starts[LP_TEXT_RUN_MAX], ends[LP_TEXT_RUN_MAX], nparts = 0;
    bool has_join = false;
    bool split = tk->opts & LP_TEXT_SPLIT_IDENT;
    size_t i = 0;
    while (i < n) {
        if (tk->cls[i] == C_JOIN) {
            has_join = true;
            i++;
            continue;
        }
        size_t a = i++;
        while (i < n && tk->cls[i] != C_JOIN && !(split && boundary(tk, i)))
            i++;
        starts[nparts] = a;
        ends[nparts] = i;
        nparts++;
    }
    tk->n = 0;
    if (nparts == 0) {
        tk->nfold = 0;
        return 0;
    }
    bool want_whole = split && (tk->opts & LP_TEXT_KEEP_WHOLE) && (nparts > 1 || has_join);
    if (!split) {
        /* One token per run: the run's folded text without its join characters at the
         * ends, parts joined as written. */
        bool emitted;
        size_t a = starts[0], b = ends[nparts - 1];
        if (nparts == 1)
            return emit_part(e, a, b, 0, &emitted);
        return emit(e, tk->folded + tk->out_off[a], tk->out_off[b] - tk->out_off[a],
                    tk->in_off[a], tk->in_off[b], 0);
    }
    /* The whole identifier: the run as written, folded (leading '_' kept). */
    size_t wa = 0, wb = n;
    bool whole_pending = want_whole;
    for (size_t p = 0; p < nparts && rc == 0; p++) {
        bool emitted = false;
        rc = emit_part(e, starts[p], ends[p], nparts > 1 ? LP_TEXT_TOK_PART : 0, &emitted);
        if (rc == 0 && emitted && whole_pending) {
            whole_pending = false;
            char *w = tk->folded + tk->out_off[wa];
            rc = emit(e, w, tk->out_off[wb] - tk->out_off[wa], tk->in_off[wa], tk->in_off[wb],
                      LP_TEXT_TOK_WHOLE | LP_TEXT_TOK_COLOCATED);
        }
    }
    if (rc == 0 && whole_pending)
        rc = emit(e, tk->folded + tk->out_off[wa], tk->out_off[wb] - tk->out_off[wa],
                  tk->in_off[wa], tk->in_off[wb], LP_TEXT_TOK_WHOLE);
    tk->nfold = 0;
    return rc;
}

int lp_text_tokenize(lp_text_tokenizer *tk, lp_str input, lp_text_token_fn fn, void *ctx)
{
    emit_ctx e = {tk, fn, ctx};
    const uint8_t *p = (const uint8_t *)input.ptr;
    size_t len = input.len, pos = 0;
    int rc = 0;
    tk->n = 0;
    tk->nfold = 0;
    tk->position = 0;
    tk->have_previous = false;
    while (pos < len && rc == 0) {
        uint8_t acls = ascii_word[p[pos]];
        if (acls && tk->n < LP_TEXT_RUN_MAX) {
            /* A run of ASCII letters and digits: what the general path below does for
             * them (classify, fold, record offsets), without decoding. */
            size_t n = tk->n, nf = tk->nfold;
            size_t end = pos + LP_MIN(len - pos, (size_t)LP_TEXT_RUN_MAX - n);
            uint8_t *cls = tk->cls;
            size_t *in_off = tk->in_off;
            uint32_t *out_off = tk->out_off;
            char *folded = tk->folded;
            do {
                uint8_t b = p[pos];
                cls[n] = acls;
                in_off[n] = pos;
                out_off[n] = (uint32_t)nf;
                folded[nf++] = (char)(b | (acls == C_UPPER ? 0x20 : 0));
                n++;
                pos++;
            } while (pos < end && (acls = ascii_word[p[pos]]) != 0);
            in_off[n] = pos;
            tk->n = n;
            tk->nfold = nf;
            continue;
        }
        int32_t cp;
        size_t cl = decode(p + pos, len - pos, &cp);
        uint8_t cls = 0;
        int kind = kind_of(cp, &cls);
        if (kind == K_HYPHEN) {
            /* '-' joins only between alphanumerics, when asked. */
            bool prev_alnum = tk->n > 0 && tk->cls[tk->n - 1] != C_JOIN;
            kind = (tk->opts & LP_TEXT_JOIN_HYPHEN) && prev_alnum ? K_JOIN : K_BREAK;
        }
        if (kind == K_MARK) {
            if (tk->n == 0) {
                pos += cl; /* a mark with no base letter: nothing to attach it to */
                continue;
            }
            cls = tk->cls[tk->n - 1] == C_JOIN ? C_OTHER : tk->cls[tk->n - 1];
            kind = K_WORD;
        }
        if (kind == K_CJK) {
            rc = flush_run(&e);
            if (rc)
                break;
            char buf[FOLD_MAX];
            size_t fl = fold_cp(cp, buf);
            rc = emit(&e, buf, fl, pos, pos + cl, LP_TEXT_TOK_CJK);
            pos += cl;
            continue;
        }
        if (kind == K_BREAK) {
            rc = flush_run(&e);
            pos += cl;
            continue;
        }
        if (tk->n == LP_TEXT_RUN_MAX) {
            rc = flush_run(&e);
            if (rc)
                break;
        }
        tk->cls[tk->n] = cls;
        tk->in_off[tk->n] = pos;
        tk->out_off[tk->n] = (uint32_t)tk->nfold;
        tk->nfold += fold_cp(cp, tk->folded + tk->nfold);
        tk->n++;
        tk->in_off[tk->n] = pos + cl;
        pos += cl;
    }
    if (rc == 0)
        rc = flush_run(&e);
    return rc;
}

void lp_text_fold(lp_str in, lp_buf *out)
{
    const uint8_t *p = (const uint8_t *)in.ptr;
    size_t pos = 0;
    char buf[FOLD_MAX];
    while (pos < in.len) {
        int32_t cp;
        size_t cl = decode(p + pos, in.len - pos, &cp);
        lp_buf_append(out, buf, fold_cp(cp, buf));
        pos += cl;
    }
}

static int squash_cb(void *ctx, const lp_text_token *tok)
{
    if (!(tok->flags & LP_TEXT_TOK_WHOLE))
        lp_buf_append(ctx, tok->text, tok->len);
    return 0;
}

void lp_text_squash_with(lp_text_tokenizer *tk, lp_str in, lp_buf *out)
{
    lp_text_tokenize(tk, in, squash_cb, out);
}

void lp_text_squash(lp_str in, lp_buf *out)
{
    lp_text_tokenizer *tk = lp_text_tokenizer_new(LP_TEXT_SQUASH);
    lp_text_squash_with(tk, in, out);
    lp_text_tokenizer_free(tk);
}
