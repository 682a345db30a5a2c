/*
 * fallback.c: never zero results for a real question in a non-empty index.
 *
 * Code writes words in ways a question does not: `ringbuf` for "ring buffer", `getattr` for
 * "get attribute", `kwargs` for "keyword arguments". The tokenizer splits camelCase and
 * snake_case, but a lowercase concatenation is one token, so every word of the question can
 * miss. Before the lexical channel runs, lp_search_fallback looks the query's words up in
 * the index's own vocabulary (fts5vocab over chunk_fts). For each word the index lacks it
 * adds phrases to the lexical query, in the group of the word they stand for (rank.c: only
 * a group's strongest phrase counts, so an expansion never adds a second vote):
 *
 *   1. abbreviations (synonyms.c: buffer -> buf, ctx -> context) in the vocabulary.
 *   2. compounds: the word joined with its neighbour (or the parts of one word joined), in
 *      their literal, stemmed, abbreviated and synonym forms, when the joined term is in
 *      the vocabulary ("ring buffer" -> ringbuf, "circular buffer" -> ringbuf through
 *      ring). A compound belongs to both words' groups, at 0.9 (times the synonym's weight
 *      when one was used).
 *   3. segmentation: the word split in two known parts (each of 4 bytes or more, or a
 *      known abbreviation), each part or its abbreviation in the vocabulary, searched as a
 *      phrase ("ringbuf" -> "ring buffer" where the code says ring_buffer).
 *   4. prefix: the most frequent indexed terms that start with it.
 *   5. typo: terms of similar length within edit distance 1 (words up to 7 bytes) or 2
 *      that start with the word's first two letters (or its first and third, or its second
 *      and first).
 *   Steps 3-5 guess; they run for questions of at most 4 words, or when nothing else
 *   matched.
 *   6. dense: when exact and lexical find nothing, the dense channel's results stand alone
 *      (search.c runs it when the index has vectors).
 *
 * A question whose words are all indexed is searched as it was: the same expansions applied
 * to every word (abbreviations, compounds of indexed words such as "test id" -> testid)
 * lowered the development kit's scores (decision 0014). Every added term is in the
 * vocabulary (no phrase that cannot match), weighted below the literal word. The answer
 * says which fallback produced what: lp_search_fallback_warning gives the
 * words_not_indexed warning when a word of the question is not in the index and a fallback
 * stood in for it, or when nothing matched at all.
 *
 * LOUPE_FALLBACK="off:abbrev,compound,segment,prefix,typo" turns parts off, for ablations.
 */
#include "search/search_int.h"
#include "core/settings.h"

#include "text/text.h"

#include <pthread.h>

#define FORMS_MAX 6        /* forms of one part joined into compounds */
#define PAIRS_MAX 12       /* adjacent pairs tried for compounds */
#define PREFIX_SCAN 4000   /* vocabulary rows read for one prefix */
#define PREFIX_TAKE 3      /* terms a prefix stands for */
#define TYPO_SCAN 50000    /* vocabulary rows read for one two-letter range */
#define TYPO_TAKE 2        /* terms a typo stands for */
#define GUESS_MAX_WORDS 4  /* segmentation, prefix and typo for questions up to this many
                              words; in longer ones only when no word matched */
#define W_COMPOUND 0.9f    /* a compound of the literal words; times the forms' weights */
#define W_SEGMENT 0.8f
#define W_PREFIX 0.5f
#define W_TYPO1 0.6f
#define W_TYPO2 0.5f

/* ------------------------------------------------------------------------------------------
 * Switches. */

static unsigned off_bits;
static pthread_once_t off_once = PTHREAD_ONCE_INIT;
static const char *const part_names[] = {"compound", "segment", "prefix", "typo", "abbrev"};

static void off_load(void)
{
    const char *v = lp_setting_str(LP_SET_FALLBACK);
    if (!v || strncmp(v, "off:", 4) != 0)
        return;
    lp_str s = lp_str_c(v + 4);
    size_t i = 0;
    while (i <= s.len) {
        size_t j = lp_str_find_char(s, ',', i);
        if (j == SIZE_MAX)
            j = s.len;
        lp_str item = lp_str_trim(lp_str_sub(s, i, j));
        for (size_t k = 0; k < LP_ARRAY_LEN(part_names); k++)
            if (lp_str_eq_c(item, part_names[k]))
                off_bits |= 1u << k;
        i = j + 1;
    }
}

bool lp_search_fallback_on(const char *part)
{
    pthread_once(&off_once, off_load);
    for (size_t k = 0; k < LP_ARRAY_LEN(part_names); k++)
        if (!strcmp(part, part_names[k]))
            return !(off_bits & (1u << k));
    return true;
}

/* ------------------------------------------------------------------------------------------
 * The vocabulary. */

typedef struct vocab {
    size_t lookups;      /* point lookups made (for the log) */
    sqlite3_stmt *eq;    /* doc count of one term */
    sqlite3_stmt *range; /* terms in [?1, ?2) with their doc counts, in term order */
} vocab;

static const char SQL_VOCAB_EQ[] = "SELECT doc FROM temp.loupe_vocab WHERE term = ?1";
static const char SQL_VOCAB_RANGE[] =
    "SELECT term, doc FROM temp.loupe_vocab WHERE term >= ?1 AND term < ?2";

/* The TEMP fts5vocab table over chunk_fts (lp_store_vocab_attach; channels.c uses the same
 * one): made on the first use on a connection, nothing is written to the database. */
static lp_status vocab_open(lp_store *st, vocab *v, lp_error *err)
{
    memset(v, 0, sizeof *v);
    lp_error e = {0};
    if (lp_store_prepare(st, SQL_VOCAB_EQ, &v->eq, &e)) {
        lp_status rc = lp_store_vocab_attach(st, err); /* temp.loupe_vocab (src/store) */
        if (rc)
            return rc;
        if ((rc = lp_store_prepare(st, SQL_VOCAB_EQ, &v->eq, err)))
            return rc;
    }
    return lp_store_prepare(st, SQL_VOCAB_RANGE, &v->range, err);
}

static int64_t vocab_df(vocab *v, lp_str term)
{
    if (term.len == 0 || term.len > LP_TEXT_TOKEN_MAX)
        return 0;
    v->lookups++;
    sqlite3_bind_text(v->eq, 1, term.ptr, (int)term.len, SQLITE_TRANSIENT);
    int64_t df = sqlite3_step(v->eq) == SQLITE_ROW ? sqlite3_column_int64(v->eq, 0) : 0;
    sqlite3_reset(v->eq);
    return df;
}

/* The upper bound of the terms that start with p: p with its last byte incremented (bytes
 * 0xff are dropped first). Returns false when there is none (every byte 0xff). */
static bool prefix_end(lp_str p, char out[LP_TEXT_TOKEN_MAX + 1], size_t *n)
{
    size_t len = p.len;
    while (len && (unsigned char)p.ptr[len - 1] == 0xff)
        len--;
    if (!len)
        return false;
    memcpy(out, p.ptr, len);
    out[len - 1] = (char)((unsigned char)out[len - 1] + 1);
    out[len] = 0;
    *n = len;
    return true;
}

/* ------------------------------------------------------------------------------------------
 * The words of the query: per group, its literal's folded parts. */

typedef struct part {
    char text[LP_TEXT_TOKEN_MAX + 1];
    size_t len;
} part;

#define PARTS_MAX 8
typedef struct gword {
    const char *literal; /* the group's literal phrase */
    part parts[PARTS_MAX];
    size_t nparts;
    int64_t literal_df;  /* documents of the literal (as the phrase would match: min over
                            positions of the best alternative) */
    bool answered;       /* some phrase of the group is in the vocabulary */
    const char *how;     /* the fallback that stood in ("compound", ...), or NULL */
    const char *term;    /* the term it searched (arena) */
} gword;

typedef struct parts_ctx {
    gword *w;
    vocab *v;
    int64_t df;   /* min over positions */
    int64_t pos_df;
    uint32_t pos;
    bool any;
} parts_ctx;

static void close_pos(parts_ctx *c)
{
    if (c->any && c->pos_df < c->df)
        c->df = c->pos_df;
}

static int on_part(void *ctx, const lp_text_token *t)
{
    parts_ctx *c = ctx;
    if (!c->any || t->position != c->pos) {
        close_pos(c);
        c->pos = t->position;
        c->pos_df = 0;
        c->any = true;
    }
    lp_str tok = {t->text, t->len};
    int64_t d = vocab_df(c->v, tok);
    char stem[LP_TEXT_TOKEN_MAX + 1];
    size_t sn = 0;
    if (!(t->flags & (LP_TEXT_TOK_WHOLE | LP_TEXT_TOK_NUMBER | LP_TEXT_TOK_CJK)))
        sn = lp_text_stem(tok, stem);
    if (sn && !lp_str_eq(tok, (lp_str){stem, sn}))
        d = LP_MAX(d, vocab_df(c->v, (lp_str){stem, sn}));
    if (d > c->pos_df)
        c->pos_df = d;
    if (!(t->flags & LP_TEXT_TOK_WHOLE) && c->w->nparts < PARTS_MAX && !lp_text_is_stopword(tok)) {
        part *p = &c->w->parts[c->w->nparts++];
        memcpy(p->text, t->text, t->len);
        p->text[t->len] = 0;
        p->len = t->len;
    }
    return 0;
}

/* The documents a phrase can match, as prune_phrases estimates it: min over positions. */
static int64_t phrase_df(lp_text_tokenizer *tk, vocab *v, const char *text, gword *into)
{
    gword scratch;
    memset(&scratch, 0, sizeof scratch);
    parts_ctx c = {into ? into : &scratch, v, INT64_MAX, 0, 0, false};
    lp_text_tokenize(tk, lp_str_c(text), on_part, &c);
    close_pos(&c);
    return c.any ? c.df : 0;
}

/* ------------------------------------------------------------------------------------------
 * Adding phrases to a built lexical query. */

static bool has_phrase(const lp_lex_query *lq, lp_str text, int group)
{
    for (size_t i = 0; i < lq->nphrases; i++)
        if (lq->phrase_group[i] == group && lp_str_eq_c(text, lq->phrase_text[i]))
            return true;
    return false;
}

/* Append a phrase (arrays only; the caller rebuilds match and spec with lp_lex_query_keep)
 * and count it in the group's synonym stems for the reranker's coverage. */
static bool add_phrase(lp_lex_query *lq, lp_arena *arena, lp_str text, int group, float weight)
{
    if (lq->nphrases >= LP_LEX_MAX_PHRASES || has_phrase(lq, text, group))
        return false;
    size_t i = lq->nphrases++;
    lq->phrase_text[i] = lp_arena_strndup(arena, text.ptr, text.len);
    lq->phrase_group[i] = group;
    lq->phrase_weight[i] = weight;
    lq->phrase_literal[i] = false;
    /* Each word of it, stemmed, into the group's synonym stems. */
    size_t from = 0;
    while (from < text.len) {
        size_t to = lp_str_find_char(text, ' ', from);
        if (to == SIZE_MAX)
            to = text.len;
        char st[LP_TEXT_TOKEN_MAX + 1];
        size_t sn =
            to - from <= LP_TEXT_TOKEN_MAX ? lp_text_stem(lp_str_sub(text, from, to), st) : 0;
        if (sn) {
            const char *old = lq->syn_stems[group] ? lq->syn_stems[group] : "";
            lq->syn_stems[group] =
                lp_arena_printf(arena, "%s%s%.*s", old, *old ? " " : "", (int)sn, st);
        }
        from = to + 1;
    }
    if (weight > lq->syn_weight[group])
        lq->syn_weight[group] = weight;
    return true;
}

/* ------------------------------------------------------------------------------------------
 * Forms of a part: literal, stem, abbreviations, synonyms, each with its weight. */

typedef struct form {
    char text[LP_TEXT_TOKEN_MAX + 1];
    size_t len;
    float weight;
} form;

static void form_put(form *out, size_t *n, lp_str w, float weight)
{
    if (*n >= FORMS_MAX || w.len == 0 || w.len > LP_TEXT_TOKEN_MAX)
        return;
    for (size_t i = 0; i < *n; i++)
        if (lp_str_eq(w, (lp_str){out[i].text, out[i].len}))
            return;
    memcpy(out[*n].text, w.ptr, w.len);
    out[*n].text[w.len] = 0;
    out[*n].len = w.len;
    out[*n].weight = weight;
    (*n)++;
}

static size_t forms_of(const part *p, bool synonyms, form *out)
{
    size_t n = 0;
    lp_str w = {p->text, p->len};
    form_put(out, &n, w, 1.0f);
    char st[LP_TEXT_TOKEN_MAX + 1];
    size_t sn = lp_text_stem(w, st);
    form_put(out, &n, (lp_str){st, sn}, 1.0f);
    lp_code_syn syn[FORMS_MAX];
    size_t ns = lp_search_fallback_on("abbrev") ? lp_code_abbrevs(w, syn, 3) : 0;
    /* An abbreviation inside an identifier is how code spells the word (ringbuf, getattr,
     * kwargs): in a compound it weighs as the word itself. */
    for (size_t i = 0; i < ns; i++)
        form_put(out, &n, lp_str_c(syn[i].word), 1.0f);
    if (synonyms) {
        ns = lp_code_synonyms(w, syn, LP_ARRAY_LEN(syn));
        for (size_t i = 0; i < ns; i++)
            if (syn[i].weight < 0.8f) /* abbreviations were taken above */
                form_put(out, &n, lp_str_c(syn[i].word), syn[i].weight);
    }
    return n;
}

/* Compounds of a and b (groups ga, gb): every joined form in the vocabulary is added to
 * both groups. Returns true when one was. */
static bool compounds(lp_lex_query *lq, lp_arena *arena, vocab *v, const part *a, int ga,
                      const part *b, int gb, const char **term)
{
    form fa[FORMS_MAX], fb[FORMS_MAX];
    size_t na = forms_of(a, true, fa), nb = forms_of(b, false, fb);
    bool any = false;
    for (size_t i = 0; i < na; i++)
        for (size_t j = 0; j < nb; j++) {
            char joined[2 * LP_TEXT_TOKEN_MAX + 1];
            size_t n = fa[i].len + fb[j].len;
            if (n > LP_TEXT_TOKEN_MAX)
                continue;
            memcpy(joined, fa[i].text, fa[i].len);
            memcpy(joined + fa[i].len, fb[j].text, fb[j].len);
            lp_str t = {joined, n};
            if (vocab_df(v, t) == 0)
                continue;
            float w = W_COMPOUND * fa[i].weight * fb[j].weight;
            add_phrase(lq, arena, t, ga, w);
            if (gb != ga)
                add_phrase(lq, arena, t, gb, w);
            if (!any && term)
                *term = lp_arena_strndup(arena, joined, n);
            any = true;
        }
    return any;
}

/* A word the index does not have, split in two known parts: the best split (the one whose
 * rarer part is most common) as a two-word phrase. */
static bool segment(lp_lex_query *lq, lp_arena *arena, vocab *v, const part *p, int g,
                    const char **term)
{
    if (p->len < 5)
        return false;
    char best[2 * LP_TEXT_TOKEN_MAX + 2];
    int64_t best_df = 0;
    for (size_t cut = 2; cut + 2 <= p->len; cut++) {
        part l = {{0}, cut}, r = {{0}, p->len - cut};
        memcpy(l.text, p->text, cut);
        memcpy(r.text, p->text + cut, p->len - cut);
        form fl[FORMS_MAX], fr[FORMS_MAX];
        size_t nl = forms_of(&l, false, fl), nr = forms_of(&r, false, fr);
        /* A short part must be a known abbreviation (buf, kw, ctx): otherwise ordinary
         * words split into nonsense ("conversion" -> "con version"). */
        lp_code_syn ab[1];
        if ((l.len < 4 && lp_code_abbrevs((lp_str){l.text, l.len}, ab, 1) == 0) ||
            (r.len < 4 && lp_code_abbrevs((lp_str){r.text, r.len}, ab, 1) == 0))
            continue;
        int64_t dl = 0, dr = 0;
        size_t il = 0, ir = 0;
        for (size_t i = 0; i < nl; i++) {
            int64_t d = fl[i].len >= 2 ? vocab_df(v, (lp_str){fl[i].text, fl[i].len}) : 0;
            if (d > dl) {
                dl = d;
                il = i;
            }
        }
        if (!dl)
            continue;
        for (size_t i = 0; i < nr; i++) {
            int64_t d = fr[i].len >= 2 ? vocab_df(v, (lp_str){fr[i].text, fr[i].len}) : 0;
            if (d > dr) {
                dr = d;
                ir = i;
            }
        }
        int64_t m = LP_MIN(dl, dr);
        if (m > best_df) {
            best_df = m;
            snprintf(best, sizeof best, "%s %s", fl[il].text, fr[ir].text);
        }
    }
    if (!best_df)
        return false;
    add_phrase(lq, arena, lp_str_c(best), g, W_SEGMENT);
    *term = lp_arena_strndup(arena, best, strlen(best));
    return true;
}

typedef struct cand_term {
    char text[LP_TEXT_TOKEN_MAX + 1];
    size_t len;
    int64_t df;
    size_t dist;
} cand_term;

/* Keep the best `take` candidates: distance asc, documents desc, term asc. */
static void cand_offer(cand_term *best, size_t *n, size_t take, const cand_term *c)
{
    size_t at = *n;
    for (size_t i = 0; i < *n; i++) {
        const cand_term *b = &best[i];
        int cmp = c->dist != b->dist ? (c->dist < b->dist ? -1 : 1)
                  : c->df != b->df   ? (c->df > b->df ? -1 : 1)
                                     : strcmp(c->text, b->text);
        if (cmp < 0) {
            at = i;
            break;
        }
    }
    if (at >= take)
        return;
    size_t last = LP_MIN(*n, take - 1);
    memmove(&best[at + 1], &best[at], (last - at) * sizeof *best);
    best[at] = *c;
    if (*n < take)
        (*n)++;
}

/* Terms in [lo, hi) of the vocabulary, at most `scan` rows, offered to best when keep says
 * so (dist set by it; SIZE_MAX refuses). */
typedef size_t (*term_fn)(lp_str word, lp_str term, void *ud);

static size_t scan_range(vocab *v, lp_str lo, lp_str hi, size_t scan, lp_str word, term_fn keep,
                         void *ud, cand_term *best, size_t take)
{
    size_t n = 0, rows = 0;
    sqlite3_bind_text(v->range, 1, lo.ptr, (int)lo.len, SQLITE_TRANSIENT);
    sqlite3_bind_text(v->range, 2, hi.ptr, (int)hi.len, SQLITE_TRANSIENT);
    while (rows++ < scan && sqlite3_step(v->range) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(v->range, 0);
        size_t tl = (size_t)sqlite3_column_bytes(v->range, 0);
        if (!t || tl == 0 || tl > LP_TEXT_TOKEN_MAX)
            continue;
        lp_str term = {t, tl};
        size_t d = keep(word, term, ud);
        if (d == SIZE_MAX)
            continue;
        cand_term c;
        memcpy(c.text, t, tl);
        c.text[tl] = 0;
        c.len = tl;
        c.df = sqlite3_column_int64(v->range, 1);
        c.dist = d;
        cand_offer(best, &n, take, &c);
    }
    sqlite3_reset(v->range);
    return n;
}

static size_t keep_prefix(lp_str word, lp_str term, void *ud)
{
    (void)ud;
    return term.len > word.len ? 0 : SIZE_MAX;
}

static size_t keep_typo(lp_str word, lp_str term, void *ud)
{
    size_t max = *(size_t *)ud;
    if (term.len + max < word.len || word.len + max < term.len || lp_str_eq(term, word))
        return SIZE_MAX;
    for (size_t i = 0; i < term.len; i++)
        if (term.ptr[i] == '_')
            return SIZE_MAX; /* whole snake_case identifiers: their parts are terms too */
    size_t d = lp_text_edit_distance(word, term, max);
    return d <= max ? d : SIZE_MAX;
}

static bool by_prefix(lp_lex_query *lq, lp_arena *arena, vocab *v, const part *p, int g,
                      const char **term)
{
    if (p->len < 3)
        return false;
    char hi[LP_TEXT_TOKEN_MAX + 1];
    size_t hn;
    lp_str w = {p->text, p->len};
    if (!prefix_end(w, hi, &hn))
        return false;
    cand_term best[PREFIX_TAKE];
    size_t n = scan_range(v, w, (lp_str){hi, hn}, PREFIX_SCAN, w, keep_prefix, NULL, best,
                          PREFIX_TAKE);
    lp_buf names;
    lp_buf_init(&names, 64);
    for (size_t i = 0; i < n; i++) {
        add_phrase(lq, arena, (lp_str){best[i].text, best[i].len}, g, W_PREFIX);
        lp_buf_printf(&names, "%s%s", i ? "', '" : "", best[i].text);
    }
    if (n)
        *term = lp_arena_strndup(arena, names.ptr, names.len);
    lp_buf_release(&names);
    return n > 0;
}

static bool by_typo(lp_lex_query *lq, lp_arena *arena, vocab *v, const part *p, int g,
                    const char **term)
{
    if (p->len < 4)
        return false;
    size_t max = p->len <= 7 ? 1 : 2; /* "reword" is not a typo of "record" */
    lp_str w = {p->text, p->len};
    cand_term best[TYPO_TAKE];
    size_t n = 0;
    /* Terms that start with the word's first two letters, its first and third (the second
     * letter swapped with the third, or an extra one: "lsit" -> list), or its second and
     * first: scanning a whole letter is slow on a large vocabulary, and a typo in the first
     * letters is rarer. */
    const char starts[3][2] = {{p->text[0], p->text[1]},
                               {p->text[0], p->text[2]},
                               {p->text[1], p->text[0]}};
    for (int k = 0; k < 3; k++) {
        const char *lo = starts[k];
        bool seen = false;
        for (int j = 0; j < k; j++)
            seen |= !memcmp(starts[j], lo, 2);
        if (seen)
            continue;
        char hi[LP_TEXT_TOKEN_MAX + 1];
        size_t hn;
        if (!prefix_end((lp_str){lo, 2}, hi, &hn))
            continue;
        cand_term got[TYPO_TAKE];
        size_t m = scan_range(v, (lp_str){lo, 2}, (lp_str){hi, hn}, TYPO_SCAN, w, keep_typo,
                              &max, got, TYPO_TAKE);
        for (size_t i = 0; i < m; i++)
            cand_offer(best, &n, TYPO_TAKE, &got[i]);
    }
    /* Only the closest distance: a distance-2 guess next to a distance-1 one is noise. */
    lp_buf names;
    lp_buf_init(&names, 64);
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
        if (best[i].dist != best[0].dist)
            break;
        add_phrase(lq, arena, (lp_str){best[i].text, best[i].len}, g,
                   best[i].dist <= 1 ? W_TYPO1 : W_TYPO2);
        lp_buf_printf(&names, "%s%s", shown++ ? "', '" : "", best[i].text);
    }
    if (shown)
        *term = lp_arena_strndup(arena, names.ptr, names.len);
    lp_buf_release(&names);
    return shown > 0;
}

/* ------------------------------------------------------------------------------------------
 * The run. */

struct lp_fallback_state {
    gword w[LP_LEX_MAX_GROUPS];
    size_t n;
};

lp_status lp_search_fallback(lp_store *st, lp_lex_query *lq, lp_arena *arena, lp_fallback *out,
                             lp_error *err)
{
    memset(out, 0, sizeof *out);
    /* Long text (terms still pending selection) is reduced to its telling terms by the
     * lexical channel; the fallbacks serve questions. */
    if (lq->ngroups == 0 || lq->pending)
        return LP_OK;
    vocab v;
    lp_error verr = {0};
    if (vocab_open(st, &v, &verr)) {
        /* No vocabulary (an old SQLite without fts5vocab): search as before. */
        lp_log(LP_LOG_DEBUG, "search.fallback_off", "reason=%s", verr.msg);
        return LP_OK;
    }
    (void)err;
    uint64_t t0 = lp_now_ns();
    struct lp_fallback_state *fs = lp_arena_zalloc(arena, sizeof *fs);
    out->state = fs;
    fs->n = lq->ngroups;
    lp_text_tokenizer *tk = lp_text_tokenizer_new(LP_TEXT_CODE);
    size_t nbefore = lq->nphrases;
    /* Each group's literal (its first phrase) and whether anything of it is indexed. */
    for (size_t i = 0; i < nbefore; i++) {
        int g = lq->phrase_group[i];
        if (g < 0 || (size_t)g >= fs->n)
            continue;
        gword *w = &fs->w[g];
        int64_t df;
        if (!w->literal && lq->phrase_literal[i]) {
            w->literal = lq->phrase_text[i];
            df = w->literal_df = phrase_df(tk, &v, w->literal, w);
        } else {
            df = phrase_df(tk, &v, lq->phrase_text[i], NULL);
        }
        if (df > 0)
            w->answered = true;
        if (df > 0 && w->literal && w->literal_df == 0 && !w->how) {
            /* The literal is missing; a synonym of the table stands in (as on main). */
            w->how = "synonym";
            w->term = lq->phrase_text[i];
        }
    }
    /* 1. Abbreviations of a missing word. */
    for (size_t g = 0; g < fs->n && lp_search_fallback_on("abbrev"); g++) {
        gword *w = &fs->w[g];
        if (w->answered || w->nparts != 1)
            continue;
        lp_code_syn ab[4];
        size_t na = lp_code_abbrevs((lp_str){w->parts[0].text, w->parts[0].len}, ab,
                                    LP_ARRAY_LEN(ab));
        for (size_t i = 0; i < na; i++) {
            if (vocab_df(&v, lp_str_c(ab[i].word)) == 0)
                continue;
            add_phrase(lq, arena, lp_str_c(ab[i].word), (int)g, ab[i].weight);
            if (!w->how) {
                w->how = "abbreviation";
                w->term = lp_arena_strndup(arena, ab[i].word, strlen(ab[i].word));
            }
        }
        /* Still open to compounds below: "ring buffer" has buf and ringbuf. */
    }
    /* 2. Compounds where a word is missing: the parts of that word, then the word with its
     * neighbours. */
    if (lp_search_fallback_on("compound")) {
        size_t pairs = 0;
        for (size_t g = 0; g < fs->n && pairs < PAIRS_MAX; g++) {
            gword *w = &fs->w[g];
            for (size_t k = 0; k + 1 < w->nparts && w->literal_df == 0 && pairs < PAIRS_MAX;
                 k++, pairs++) {
                const char *t = NULL;
                if (compounds(lq, arena, &v, &w->parts[k], (int)g, &w->parts[k + 1], (int)g, &t) &&
                    !w->answered) {
                    w->answered = true;
                    w->how = "compound";
                    w->term = t;
                }
            }
            if (g + 1 < fs->n && w->nparts && fs->w[g + 1].nparts && pairs < PAIRS_MAX &&
                (w->literal_df == 0 || fs->w[g + 1].literal_df == 0)) {
                gword *x = &fs->w[g + 1];
                const char *t = NULL;
                pairs++;
                if (compounds(lq, arena, &v, &w->parts[w->nparts - 1], (int)g, &x->parts[0],
                              (int)(g + 1), &t)) {
                    gword *ws[2] = {w, x};
                    for (int j = 0; j < 2; j++)
                        if (!ws[j]->answered) {
                            ws[j]->answered = true;
                            ws[j]->how = "compound";
                            ws[j]->term = t;
                        }
                }
            }
        }
    }
    /* 3-5. A word with nothing yet: segmentation, prefix, typo (one part words only: a word
     * of several parts is an identifier, whose parts were looked up already). In a longer
     * question a missing word is mostly one the code does not use, and guessing at it
     * adds noise (decision 0014): there they run only when no word matched at all. */
    bool none = true;
    for (size_t g = 0; g < fs->n; g++) {
        gword *w = &fs->w[g];
        if (w->how && !w->answered)
            w->answered = true; /* by an abbreviation */
        none &= !w->answered;
    }
    for (size_t g = 0; g < fs->n && (fs->n <= GUESS_MAX_WORDS || none); g++) {
        gword *w = &fs->w[g];
        if (w->answered || w->nparts != 1)
            continue;
        const part *p = &w->parts[0];
        const char *t = NULL;
        if (lp_search_fallback_on("segment") && segment(lq, arena, &v, p, (int)g, &t))
            w->how = "segment";
        else if (lp_search_fallback_on("prefix") && by_prefix(lq, arena, &v, p, (int)g, &t))
            w->how = "prefix";
        else if (lp_search_fallback_on("typo") && by_typo(lq, arena, &v, p, (int)g, &t))
            w->how = "typo";
        if (w->how) {
            w->answered = true;
            w->term = t;
        }
    }
    lp_text_tokenizer_free(tk);
    if (lq->nphrases != nbefore) {
        bool keep[LP_LEX_MAX_PHRASES];
        for (size_t i = 0; i < lq->nphrases; i++)
            keep[i] = true;
        lp_lex_query_keep(lq, keep);
    }
    out->nadded = lq->nphrases - nbefore;
    lp_log(LP_LOG_DEBUG, "search.fallback", "groups=%zu added=%zu lookups=%zu ms=%.2f", fs->n,
           out->nadded, v.lookups, (double)(lp_now_ns() - t0) / 1e6);
    return LP_OK;
}

const char *lp_search_fallback_warning(const lp_fallback *fb, size_t nlexical, size_t nexact,
                                       size_t ndense, lp_arena *arena)
{
    const struct lp_fallback_state *fs = fb->state;
    if (!fs)
        return NULL;
    bool nothing = nlexical == 0 && nexact == 0;
    bool any_fallback = false;
    size_t missing = 0;
    for (size_t g = 0; g < fs->n; g++) {
        const gword *w = &fs->w[g];
        if (w->literal && w->literal_df == 0) {
            missing++;
            /* A synonym standing in is ordinary search, not a fallback to report alone. */
            any_fallback |= w->how != NULL && strcmp(w->how, "synonym") != 0;
        }
    }
    if (!missing || (!any_fallback && !nothing))
        return NULL;
    lp_buf b;
    lp_buf_init(&b, 256);
    lp_buf_printf(&b, "%s: %zu word%s of the question %s not in the index:",
                  lp_warn_code(LP_WARN_WORDS_NOT_INDEXED), missing, missing == 1 ? "" : "s", missing == 1 ? "is" : "are");
    size_t k = 0;
    for (size_t g = 0; g < fs->n; g++) {
        const gword *w = &fs->w[g];
        if (!w->literal || w->literal_df != 0)
            continue;
        lp_buf_printf(&b, "%s '%s'", k++ ? "," : "", w->literal);
        if (w->how)
            lp_buf_printf(&b, " -> '%s' (fallback: %s)", w->term ? w->term : "", w->how);
        else
            lp_buf_puts(&b, " (no fallback matched)");
    }
    if (nothing && ndense)
        lp_buf_puts(&b, "; nothing matched exactly or lexically: the results come from the "
                        "dense channel alone (fallback: dense)");
    else if (nothing)
        lp_buf_puts(&b, "; nothing in the index matched; try other words or an identifier");
    const char *r = lp_arena_strndup(arena, b.ptr, b.len);
    lp_buf_release(&b);
    return r;
}
