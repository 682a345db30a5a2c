/*
 * search.c: BM25F ranking over tool documents, filters, pins and budgets.
 *
 * For each distinct query term (stemmed, stopwords dropped) the candidate index terms are:
 * the literal term (weight 1), prefix matches in either direction (the query term starts a
 * term, or a term of 4+ bytes starts the query term: "financ" / "financi"), synonyms from
 * the text table, and, only when the literal term is absent, fuzzy matches drawn from the
 * trigram index and checked with a bounded edit distance. A document takes, per query
 * term, only its strongest candidate contribution (weight x BM25F), so a synonym group or
 * a family of prefixes never votes twice; and an index term credits at most one query
 * term (literal owners first, then expansions in query order). Then:
 *   score = (sum over query terms + whole-identifier matches + exact-name bonus)
 *           x (floor + (1 - floor) x matched_terms / query_terms)
 * Each query term's contribution is multiplied by its request-word weight (how generic the
 * word is in requests; catalog.h). With the dense channel, the lexical candidates and the
 * dense matches are then fused (fuse() below). Order: score desc, name asc, id asc
 * (bytewise), which is total because ids are unique. Only as many of the ranked tools as a
 * result takes are put in order (a heap), so a query that matches thousands of tools
 * costs little more than one that matches few.
 *
 * Work per query is bounded: at most max_query_terms terms, 32 prefix and 16 fuzzy
 * candidates per term, and a cap on the trigram postings read per term.
 */
#include "catalog/catalog_int.h"

#include <math.h>
#include <pthread.h>
#include <strings.h>

#define MAX_PREFIX 32
#define MAX_FUZZY 16
#define MAX_SYN 32
#define TRI_WORK_MAX 200000 /* trigram postings read per query term, fuzzy or prefix */

enum { K_LITERAL, K_PREFIX, K_SYNONYM, K_FUZZY };

typedef struct cand {
    uint32_t term;
    float weight;
    uint8_t kind;
} cand;

typedef struct qterm {
    char text[LP_TEXT_TOKEN_MAX + 1];
    uint16_t len;
    bool whole;
    bool part;                /* a part of an identifier with several parts */
    uint32_t start, end;      /* source bytes of its first occurrence */
} qterm;

typedef LP_VEC(qterm) qterm_vec;
typedef LP_VEC(cand) cand_vec;

void lp_cat_refresh_norms(lp_catalog *cat)
{
    size_t n = cat->slots.len;
    if (n > cat->inv_norm_slots || !cat->inv_norm) {
        free(cat->inv_norm);
        cat->inv_norm = lp_xmalloc(lp_mul_size(n ? n : 1, NF * sizeof(float)));
        cat->inv_norm_slots = n;
    }
    double avg[NF];
    for (int f = 0; f < NF; f++) {
        avg[f] = cat->ndocs ? (double)cat->field_total[f] / (double)cat->ndocs : 0;
        if (avg[f] <= 0)
            avg[f] = 1;
    }
    for (size_t s = 0; s < n; s++) {
        const lp_cat_doc *d = cat->slots.items[s];
        for (int f = 0; f < NF; f++) {
            double b = cat->params.b[f];
            double norm = d ? 1 - b + b * (double)d->flen[f] / avg[f] : 1;
            cat->inv_norm[s * NF + f] = (float)(1.0 / (norm > 1e-6 ? norm : 1e-6));
        }
    }
}

/* ------------------------------------------------------------------------------------------
 * Request words: the generated table, stemmed once into an open-addressing table. */
typedef struct rw_slot {
    char stem[LP_TEXT_TOKEN_MAX + 1];
    uint16_t len;
    float fraction;
} rw_slot;

static rw_slot *rw_table;
static size_t rw_cap;
static pthread_once_t rw_once = PTHREAD_ONCE_INIT;

static void rw_build(void)
{
    size_t cap = 64;
    while (cap < 2 * lp_cat_request_word_count)
        cap *= 2;
    rw_slot *t = lp_xcalloc(cap, sizeof *t);
    for (size_t i = 0; i < lp_cat_request_word_count; i++) {
        char st[LP_TEXT_TOKEN_MAX + 1];
        size_t n = lp_text_stem(lp_str_c(lp_cat_request_words[i].word), st);
        size_t k = (size_t)lp_hash64_of(st, n) & (cap - 1);
        while (t[k].len && !(t[k].len == n && !memcmp(t[k].stem, st, n)))
            k = (k + 1) & (cap - 1);
        if (!t[k].len) {
            memcpy(t[k].stem, st, n);
            t[k].len = (uint16_t)n;
        }
        t[k].fraction = LP_MAX(t[k].fraction, lp_cat_request_words[i].fraction);
    }
    rw_table = t;
    rw_cap = cap;
}

float lp_cat_request_fraction(lp_str term)
{
    pthread_once(&rw_once, rw_build);
    if (!term.len || term.len > LP_TEXT_TOKEN_MAX)
        return 0;
    for (size_t k = (size_t)lp_hash64_of(term.ptr, term.len) & (rw_cap - 1); rw_table[k].len;
         k = (k + 1) & (rw_cap - 1))
        if (rw_table[k].len == term.len && !memcmp(rw_table[k].stem, term.ptr, term.len))
            return rw_table[k].fraction;
    return 0;
}

double lp_cat_request_weight(const lp_catalog_params *P, lp_str term)
{
    if (!(P->request_alpha > 0))
        return 1;
    double f = lp_cat_request_fraction(term);
    return f > P->request_floor ? 1 / (1 + P->request_alpha * (f - P->request_floor)) : 1;
}

/* ------------------------------------------------------------------------------------------
 * Query terms. */
typedef struct qcollect {
    qterm_vec *terms;
    size_t max;
    bool truncated;
} qcollect;

static int collect_q(void *ctx, const lp_text_token *tok)
{
    qcollect *c = ctx;
    bool whole = tok->flags & LP_TEXT_TOK_WHOLE;
    for (size_t i = 0; i < c->terms->len; i++) {
        qterm *q = &c->terms->items[i];
        if (q->whole == whole && q->len == tok->len && !memcmp(q->text, tok->text, tok->len))
            return 0;
    }
    size_t same_kind = 0;
    for (size_t i = 0; i < c->terms->len; i++)
        same_kind += c->terms->items[i].whole == whole;
    if (same_kind >= c->max) {
        c->truncated = true;
        return 0;
    }
    qterm *q = lp_vec_push_zero(c->terms);
    memcpy(q->text, tok->text, tok->len);
    q->len = (uint16_t)tok->len;
    q->whole = whole;
    q->part = (tok->flags & LP_TEXT_TOK_PART) != 0;
    q->start = (uint32_t)tok->start;
    q->end = (uint32_t)tok->end;
    return 0;
}

static size_t count_plain(const qterm_vec *v)
{
    size_t n = 0;
    for (size_t i = 0; i < v->len; i++)
        n += !v->items[i].whole;
    return n;
}

static bool query_terms(const lp_catalog *cat, lp_str text, qterm_vec *out)
{
    qcollect c = {out, cat->limits.max_query_terms, false};
    lp_text_tokenizer *tk = lp_text_tokenizer_new(LP_TEXT_PROSE);
    lp_text_tokenize(tk, text, collect_q, &c);
    lp_text_tokenizer_free(tk);
    if (count_plain(out) == 0) {
        /* Only stopwords ("it", "now"): they are all the query has, so use them. */
        out->len = 0;
        c.truncated = false;
        tk = lp_text_tokenizer_new(LP_TEXT_CODE | LP_TEXT_STEM);
        lp_text_tokenize(tk, text, collect_q, &c);
        lp_text_tokenizer_free(tk);
    }
    return c.truncated;
}

/* ------------------------------------------------------------------------------------------
 * Several intents. A request such as "get the stock price of Apple and the latest news about
 * it" needs two tools; ranked as one bag of words, the tool matching most words wins every
 * place. The request is cut at clause joints into parts, each part is searched alone, and
 * the parts' best tools are merged into the whole request's ranking (merge_intents). */
#define MAX_INTENTS LP_CAT_MAX_INTENTS

static bool alnum_at(lp_str t, size_t i)
{
    unsigned char c = (unsigned char)t.ptr[i];
    return c >= 0x80 || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ||
           c == '_';
}

/* Length of the joint starting at byte i of t (0 = none): a joining word at a word start
 * and followed by a non-word byte, or clause punctuation followed by a space. */
static size_t joint_at(lp_str t, size_t i, unsigned kinds)
{
    static const char *const words[] = {"and", "then", "also", "as well as", "after that",
                                        "additionally", "plus"};
    char c = t.ptr[i];
    bool spaced = i + 1 == t.len || t.ptr[i + 1] == ' ' || t.ptr[i + 1] == '\n';
    if (spaced && (((kinds & 1) && c == ';') || ((kinds & 2) && c == ',') ||
                   ((kinds & 4) && (c == '.' || c == '?' || c == '!'))))
        return 1;
    if (!(kinds & 1) || (i > 0 && alnum_at(t, i - 1)))
        return 0;
    for (size_t w = 0; w < LP_ARRAY_LEN(words); w++) {
        size_t n = strlen(words[w]);
        if (i + n <= t.len && strncasecmp(t.ptr + i, words[w], n) == 0 &&
            (i + n == t.len || !alnum_at(t, i + n)))
            return n;
    }
    return 0;
}

/* Plain (not whole-identifier) query terms of s. */
static size_t plain_terms(const lp_catalog *cat, lp_str s)
{
    qterm_vec v = {0};
    qcollect c = {&v, cat->limits.max_query_terms, false};
    lp_text_tokenizer *tk = lp_text_tokenizer_new(LP_TEXT_PROSE);
    lp_text_tokenize(tk, s, collect_q, &c);
    lp_text_tokenizer_free(tk);
    size_t n = count_plain(&v);
    lp_vec_free(&v);
    return n;
}

size_t lp_cat_split_intents(const lp_catalog *cat, lp_str text, lp_str *parts, size_t max)
{
    lp_str raw[4 * MAX_INTENTS];
    size_t nraw = 0, start = 0;
    for (size_t i = 0; i < text.len && nraw + 1 < LP_ARRAY_LEN(raw);) {
        size_t j = joint_at(text, i, (unsigned)cat->params.intent_joints);
        if (!j) {
            i++;
            continue;
        }
        if (i > start)
            raw[nraw++] = (lp_str){text.ptr + start, i - start};
        i += j;
        start = i;
    }
    if (start < text.len)
        raw[nraw++] = (lp_str){text.ptr + start, text.len - start};
    size_t min = (size_t)LP_MAX(cat->params.intent_min, 1.0);
    size_t n = 0;
    size_t pending_terms = 0; /* plain terms of the part being built */
    for (size_t r = 0; r < nraw; r++) {
        size_t t = plain_terms(cat, raw[r]);
        if (!t && (n == 0 || pending_terms >= min))
            continue; /* nothing to search ("also" after a ';') */
        if (n > 0 && (pending_terms < min || n == max)) {
            /* The part is still short: it takes this piece too (spans are in order). */
            lp_str *p = &parts[n - 1];
            p->len = (size_t)(raw[r].ptr + raw[r].len - p->ptr);
            pending_terms += t;
        } else {
            parts[n++] = raw[r];
            pending_terms = t;
        }
    }
    /* The last part may still be short: join it to the one before. */
    if (n > 1 && pending_terms < min) {
        parts[n - 2].len = (size_t)(parts[n - 1].ptr + parts[n - 1].len - parts[n - 2].ptr);
        n--;
    }
    return n;
}

/* ------------------------------------------------------------------------------------------
 * Candidates for one query term. */
static void push_cand(cand_vec *v, uint32_t term, double w, uint8_t kind)
{
    for (size_t i = 0; i < v->len; i++)
        if (v->items[i].term == term) {
            if (w > v->items[i].weight) {
                v->items[i].weight = (float)w;
                v->items[i].kind = kind;
            }
            return;
        }
    lp_vec_push(v, ((cand){term, (float)w, kind}));
}

static bool live(const lp_catalog *cat, uint32_t id)
{
    return id != UINT32_MAX && cat->terms.items[id].df > 0;
}

/* The weight factor of query term i: part_weight for a part of an identifier whose whole
 * form is an index term ("rank" of "HackerRank" when the catalog has hackerrank), so the
 * whole form outweighs its parts; else 1. */
static double part_factor(const lp_catalog *cat, const qterm_vec *v, size_t i)
{
    const qterm *q = &v->items[i];
    if (!q->part || q->whole || cat->params.part_weight == 1)
        return 1;
    for (size_t k = 0; k < v->len; k++) {
        const qterm *w = &v->items[k];
        if (w->whole && w->start <= q->start && q->end <= w->end &&
            live(cat, lp_cat_term_lookup(cat, (lp_str){w->text, w->len})))
            return cat->params.part_weight;
    }
    return 1;
}

/* The trigram of q with the fewest terms, or NULL. */
static const lp_cat_tri *rarest_trigram(const lp_catalog *cat, lp_str q)
{
    uint32_t tri[LP_TEXT_TOKEN_MAX];
    size_t n = LP_MIN(lp_text_trigrams(q, tri, LP_ARRAY_LEN(tri)), LP_ARRAY_LEN(tri));
    const lp_cat_tri *best = NULL;
    for (size_t i = 0; i < n; i++) {
        const lp_cat_tri *t = lp_cat_tri_get(cat, tri[i]);
        if (!t)
            return NULL; /* a trigram no term has: no term contains q */
        if (!best || t->n < best->n)
            best = t;
    }
    return best;
}

/* Is rest (what a longer word adds to a shorter one) a derivational or inflectional suffix?
 * The list is English morphology, not tuned on any catalog. */
static bool is_suffix(lp_str rest)
{
    static const char *const sufs[] = {
        "s",     "es",    "ed",   "ing",  "ings", "er",    "ers",   "or",    "ors",
        "ion",   "ions",  "ation", "ations", "ment", "ments", "al",  "ial",   "ical",
        "ally",  "ly",    "ity",  "ities", "ness", "ive",   "ives",  "ic",    "ics",
        "ist",   "ists",  "ism",  "isms", "ize",   "ized",  "izes",  "izing", "ise",
        "ised",  "ization", "isation", "ance", "ence", "ant", "ants", "ent",  "ents",
        "able",  "ible",  "ure",  "ures", "y",     "ies",   "ful",   "less",  "ship",
        "age",   "ages",  "ary",  "ery",  "ory",   "ous",   "ate",   "ated",  "ates",
        "ating", "ee",    "ees",  "ian",  "ians",  "ify",   "ified", "ical", "logy"};
    for (size_t i = 0; i < LP_ARRAY_LEN(sufs); i++)
        if (lp_str_eq_c(rest, sufs[i]))
            return true;
    return false;
}

/* May a prefix expansion join the shorter term sh to the longer term l (sh starts l)? Not
 * when both are English words (the word channel's vocabulary knows them) and l is not sh
 * plus a suffix: "tour" does not reach "tournament", nor "news" "newsletter", while "financ"
 * reaches "financial" and "translat" "translation". A term no dictionary knows (an
 * abbreviation such as "repo", a product name, an identifier) still expands and is still
 * reached. Off with prefix_rule = 0 or without the word model. */
static bool prefix_ok(const lp_catalog *cat, lp_str sh, lp_str l)
{
    if (!(cat->params.prefix_rule > 0) || !cat->dict)
        return true;
    if (lp_cat_words_lookup(cat->dict, lp_hash64_of(l.ptr, l.len), l) == UINT32_MAX ||
        lp_cat_words_lookup(cat->dict, lp_hash64_of(sh.ptr, sh.len), sh) == UINT32_MAX)
        return true;
    lp_str rest = {l.ptr + sh.len, l.len - sh.len};
    if (is_suffix(rest))
        return true;
    /* A doubled final consonant before the suffix ("shop" / "shopper"). */
    if (rest.len > 1 && rest.ptr[0] == sh.ptr[sh.len - 1] &&
        is_suffix((lp_str){rest.ptr + 1, rest.len - 1}))
        return true;
    return false;
}

static void prefix_cands(const lp_catalog *cat, lp_str q, cand_vec *out)
{
    const lp_catalog_params *P = &cat->params;
    size_t found = 0;
    /* Terms that start with q. */
    if (q.len >= 3) {
        const lp_cat_tri *t = rarest_trigram(cat, q);
        size_t work = t ? LP_MIN((size_t)t->n, (size_t)TRI_WORK_MAX) : 0;
        for (size_t i = 0; i < work && found < MAX_PREFIX; i++) {
            uint32_t id = t->terms[i];
            lp_str s = lp_cat_term_text(cat, id);
            if (s.len > q.len && cat->terms.items[id].df > 0 && !memcmp(s.ptr, q.ptr, q.len) &&
                prefix_ok(cat, q, s)) {
                double w = P->prefix_weight * (0.5 + 0.5 * (double)q.len / (double)s.len);
                push_cand(out, id, w, K_PREFIX);
                found++;
            }
        }
    }
    /* Terms of 4+ bytes that start q. */
    for (size_t l = q.len - 1; l >= 4 && l < q.len; l--) {
        if (lp_utf8_cut(q.ptr, q.len, l) != l)
            continue; /* not a codepoint boundary */
        uint32_t id = lp_cat_term_lookup(cat, (lp_str){q.ptr, l});
        if (live(cat, id) && prefix_ok(cat, (lp_str){q.ptr, l}, q)) {
            double w = P->prefix_weight * (0.5 + 0.5 * (double)l / (double)q.len);
            push_cand(out, id, w, K_PREFIX);
        }
    }
}

typedef struct fz {
    uint32_t term;
    uint8_t dist;
} fz;

static void fuzzy_cands(const lp_catalog *cat, lp_str q, uint8_t *counts, cand_vec *out)
{
    if (q.len < 4)
        return;
    size_t maxd = q.len >= 8 ? 2 : 1;
    uint32_t tri[LP_TEXT_TOKEN_MAX];
    size_t n = LP_MIN(lp_text_trigrams(q, tri, LP_ARRAY_LEN(tri)), LP_ARRAY_LEN(tri));
    LP_VEC(uint32_t) touched = {0};
    size_t work = 0;
    for (size_t i = 0; i < n && work < TRI_WORK_MAX; i++) {
        const lp_cat_tri *t = lp_cat_tri_get(cat, tri[i]);
        if (!t)
            continue;
        for (uint32_t k = 0; k < t->n && work < TRI_WORK_MAX; k++, work++) {
            uint32_t id = t->terms[k];
            if (counts[id] == 0)
                lp_vec_push(&touched, id);
            if (counts[id] < 255)
                counts[id]++;
        }
    }
    /* q-gram lemma: d edits destroy at most 3d trigrams of q. */
    size_t need = n > 3 * maxd ? n - 3 * maxd : 1;
    fz best[MAX_FUZZY];
    size_t nb = 0;
    for (size_t i = 0; i < touched.len; i++) {
        uint32_t id = touched.items[i];
        size_t c = counts[id];
        counts[id] = 0;
        if (c < need || cat->terms.items[id].df == 0)
            continue;
        lp_str s = lp_cat_term_text(cat, id);
        if ((s.len > q.len ? s.len - q.len : q.len - s.len) > maxd)
            continue;
        size_t d = lp_text_edit_distance(q, s, maxd);
        if (d == 0 || d > maxd)
            continue;
        /* Keep the closest; ties: the more frequent term, then the lower id. */
        fz f = {id, (uint8_t)d};
        size_t pos = nb;
        while (pos > 0) {
            fz *b = &best[pos - 1];
            bool better = f.dist < b->dist ||
                          (f.dist == b->dist &&
                           (cat->terms.items[id].df > cat->terms.items[b->term].df ||
                            (cat->terms.items[id].df == cat->terms.items[b->term].df &&
                             id < b->term)));
            if (!better)
                break;
            pos--;
        }
        if (pos >= MAX_FUZZY)
            continue;
        if (nb < MAX_FUZZY)
            nb++;
        memmove(&best[pos + 1], &best[pos], (nb - 1 - pos) * sizeof *best);
        best[pos] = f;
    }
    for (size_t i = 0; i < nb; i++)
        push_cand(out, best[i].term,
                  cat->params.fuzzy_weight * (best[i].dist == 1 ? 1.0 : 2.0 / 3.0), K_FUZZY);
    lp_vec_free(&touched);
}

static void candidates(const lp_catalog *cat, const qterm *q, uint8_t *counts, cand_vec *out)
{
    lp_str t = {q->text, q->len};
    out->len = 0;
    uint32_t lit = lp_cat_term_lookup(cat, t);
    if (q->whole) {
        if (live(cat, lit))
            push_cand(out, lit, cat->params.whole_weight, K_LITERAL);
        return;
    }
    if (live(cat, lit))
        push_cand(out, lit, 1.0, K_LITERAL);
    lp_text_expansion syn[MAX_SYN];
    size_t ns = LP_MIN(lp_text_synonyms(t, true, syn, MAX_SYN), (size_t)MAX_SYN);
    for (size_t i = 0; i < ns; i++) {
        uint32_t id = lp_cat_term_lookup(cat, syn[i].term);
        if (live(cat, id))
            push_cand(out, id, syn[i].weight * cat->params.synonym_scale, K_SYNONYM);
    }
    prefix_cands(cat, t, out);
    if (!live(cat, lit))
        fuzzy_cands(cat, t, counts, out);
}

/* ------------------------------------------------------------------------------------------
 * Ranking. */
typedef struct scratch {
    float *best;
    uint16_t *stamp;
    double *total;
    uint16_t *matched;
    uint8_t *seen;
    LP_VEC(uint32_t) touched;
    LP_VEC(uint32_t) hits; /* slots with a positive total */
} scratch;

static void score_term(const lp_catalog *cat, const cand_vec *cands, uint16_t stamp,
                       double qweight, scratch *sc)
{
    const lp_catalog_params *P = &cat->params;
    double N = (double)cat->ndocs;
    sc->touched.len = 0;
    for (size_t c = 0; c < cands->len; c++) {
        const cand *cd = &cands->items[c];
        const lp_cat_term *t = &cat->terms.items[cd->term];
        double df = t->df;
        double idf = log(1.0 + (N - df + 0.5) / (df + 0.5));
        for (uint32_t i = 0; i < t->npost; i++) {
            const lp_cat_posting *p = &t->post[i];
            const float *inv = &cat->inv_norm[(size_t)p->doc * NF];
            double tf = 0;
            for (int f = 0; f < NF; f++)
                if (p->tf[f])
                    tf += P->weight[f] * p->tf[f] * inv[f];
            double s = qweight * cd->weight * idf * tf * (P->k1 + 1) / (tf + P->k1);
            if (cd->kind == K_LITERAL) {
                if (p->tf[LP_CATALOG_F_NAME])
                    s += P->name_term_bonus;
                if (p->tf[LP_CATALOG_F_NAMESPACE])
                    s += P->namespace_bonus;
            }
            if (sc->stamp[p->doc] != stamp) {
                sc->stamp[p->doc] = stamp;
                sc->best[p->doc] = (float)s;
                lp_vec_push(&sc->touched, p->doc);
            } else if (s > sc->best[p->doc]) {
                sc->best[p->doc] = (float)s;
            }
        }
    }
}

static bool name_eq_ci(const char *a, const char *b) { return strcasecmp(a, b) == 0; }

static bool passes_filters(const lp_cat_doc *d, const lp_catalog_query *q)
{
    if (q->nnamespaces) {
        bool ok = false;
        for (size_t i = 0; i < q->nnamespaces && !ok; i++)
            ok = name_eq_ci(d->pub.ns, q->namespaces[i]);
        if (!ok)
            return false;
    }
    for (size_t i = 0; i < q->ntags; i++) {
        bool ok = false;
        for (size_t k = 0; k < d->pub.ntags && !ok; k++)
            ok = name_eq_ci(d->pub.tags[k], q->tags[i]);
        if (!ok)
            return false;
    }
    static const lp_catalog_hint defaults[LP_CATALOG_NHINTS] = {
        [LP_CATALOG_HINT_READ_ONLY] = LP_HINT_FALSE,
        [LP_CATALOG_HINT_DESTRUCTIVE] = LP_HINT_TRUE,
        [LP_CATALOG_HINT_IDEMPOTENT] = LP_HINT_FALSE,
        [LP_CATALOG_HINT_OPEN_WORLD] = LP_HINT_TRUE,
    };
    for (int h = 0; h < LP_CATALOG_NHINTS; h++) {
        if (q->hints[h] == LP_HINT_ABSENT)
            continue;
        lp_catalog_hint v = d->pub.hints[h] != LP_HINT_ABSENT ? d->pub.hints[h] : defaults[h];
        if (v != q->hints[h])
            return false;
    }
    return true;
}

typedef struct ranked {
    const lp_cat_doc *doc;
    double score;
    uint16_t matched;
    uint8_t channels;
    float sim;
} ranked;

static int ranked_cmp(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    int c = strcmp(x->doc->pub.name, y->doc->pub.name);
    return c ? c : strcmp(x->doc->pub.id, y->doc->pub.id);
}

/* A binary heap whose root is the best entry by ranked_cmp: heapify in O(n), then pop only
 * as many as a result takes (a catalog can match thousands of tools; a result shows few). */
static void heap_down(ranked *h, size_t n, size_t i)
{
    ranked x = h[i];
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        const ranked *mv = &x;
        if (l < n && ranked_cmp(&h[l], mv) < 0) {
            m = l;
            mv = &h[l];
        }
        if (r < n && ranked_cmp(&h[r], mv) < 0)
            m = r;
        if (m == i)
            break;
        h[i] = h[m];
        i = m;
    }
    h[i] = x;
}

static void heapify(ranked *h, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        heap_down(h, n, i);
}

/* Remove the best entry of the heap h[0..*n) and return it. */
static ranked heap_pop(ranked *h, size_t *n)
{
    ranked top = h[0];
    h[0] = h[--*n];
    if (*n)
        heap_down(h, *n, 0);
    return top;
}

/* Keep the k best of v[0..n) (in any order) at its start; returns how many were kept. A
 * bounded worst-root heap: O(n log k). */
static size_t keep_best(ranked *v, size_t n, size_t k)
{
    if (n <= k)
        return n;
    if (k == 0)
        return 0;
    /* Heap of the k kept, root = the worst of them. */
    for (size_t i = k / 2; i-- > 0;) {
        size_t j = i;
        ranked x = v[j];
        for (;;) {
            size_t l = 2 * j + 1, r = l + 1, m = j;
            const ranked *mv = &x;
            if (l < k && ranked_cmp(&v[l], mv) > 0) {
                m = l;
                mv = &v[l];
            }
            if (r < k && ranked_cmp(&v[r], mv) > 0)
                m = r;
            if (m == j)
                break;
            v[j] = v[m];
            j = m;
        }
        v[j] = x;
    }
    for (size_t i = k; i < n; i++) {
        if (ranked_cmp(&v[i], &v[0]) >= 0)
            continue;
        ranked x = v[i];
        size_t j = 0;
        for (;;) {
            size_t l = 2 * j + 1, r = l + 1, m = j;
            const ranked *mv = &x;
            if (l < k && ranked_cmp(&v[l], mv) > 0) {
                m = l;
                mv = &v[l];
            }
            if (r < k && ranked_cmp(&v[r], mv) > 0)
                m = r;
            if (m == j)
                break;
            v[j] = v[m];
            j = m;
        }
        v[j] = x;
    }
    return k;
}

static void warn(lp_catalog_result *r, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void warn(lp_catalog_result *r, const char *code, const char *fmt, ...)
{
    if (r->nwarnings >= 64)
        return;
    lp_buf b;
    lp_buf_init(&b, 512);
    lp_buf_printf(&b, "%s: ", code);
    va_list ap;
    va_start(ap, fmt);
    lp_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    r->warnings = lp_xrealloc(r->warnings, (r->nwarnings + 1) * sizeof *r->warnings);
    r->warnings[r->nwarnings++] = lp_buf_detach(&b, NULL);
}

static bool exact_name(const lp_cat_doc *d, const char *sq)
{
    if (!*sq)
        return false;
    if (!strcmp(sq, d->squash_name) || !strcmp(sq, d->squash_full))
        return true;
    size_t nl = strlen(d->squash_ns);
    return nl && !strncmp(sq, d->squash_ns, nl) && !strcmp(sq + nl, d->squash_name);
}

static void add_hit(lp_catalog_result *r, const lp_cat_doc *d, double score, uint16_t matched,
                    bool pinned, unsigned channels, float sim)
{
    r->hits[r->nhits++] =
        (lp_catalog_hit){&d->pub, score, d->pub.tokens, pinned, matched, channels, sim};
    r->total_tokens += d->pub.tokens;
}

/* Fuse the lexical candidates rk[0..*nrk) (filtered, in any order) with the dense scores
 * into new candidates (in any order), written back to *rk. Each channel gives a tool one vote by its rank (reciprocal
 * rank, fusion 0) or by its normalized score (fusion 1); a tool whose name the query is
 * stays first. Dense candidates: the dense_depth best tools with cosine >= dense_min that
 * pass the filters. */
/* The best `depth` tools with score >= min (and > 0) that pass the filters, into v. */
static size_t channel_candidates(const lp_catalog *cat, const lp_catalog_query *q,
                                 const float *score, double min, double depth, unsigned ch,
                                 ranked *v)
{
    size_t n = 0;
    for (size_t s = 0; s < cat->slots.len; s++) {
        const lp_cat_doc *d = cat->slots.items[s];
        if (d && score[s] > 0 && score[s] >= min && passes_filters(d, q))
            v[n++] = (ranked){d, score[s], 0, ch, score[s]};
    }
    return keep_best(v, n, depth >= 1 ? (size_t)depth : 0);
}

/* The word channel's candidates are added like the dense channel's (wscore may be NULL; so
 * may dscore, when only the word channel ran). */
static void fuse(const lp_catalog *cat, const lp_catalog_query *q, const float *dscore,
                 const float *wscore, ranked **rk, size_t *nrk)
{
    const lp_catalog_params *P = &cat->params;
    size_t nslots = cat->slots.len;
    double wl = P->lexical_weight, wd = P->dense_weight, k = P->rrf_k;
    bool mix = P->fusion >= 0.5;
    double *fused = lp_xcalloc(nslots ? nslots : 1, sizeof *fused);
    uint8_t *ch = lp_xcalloc(nslots ? nslots : 1, 1);
    uint16_t *matched = lp_xcalloc(nslots ? nslots : 1, sizeof *matched);
    /* Dense and word candidates. */
    ranked *dn = lp_xmalloc((nslots ? nslots : 1) * sizeof *dn);
    ranked *wn = lp_xmalloc((nslots ? nslots : 1) * sizeof *wn);
    size_t ndn = dscore ? channel_candidates(cat, q, dscore, P->dense_min, P->dense_depth,
                                             LP_CATALOG_CH_DENSE, dn)
                        : 0;
    size_t nwn = wscore ? channel_candidates(cat, q, wscore, P->words_min, P->words_depth,
                                             LP_CATALOG_CH_WORDS, wn)
                        : 0;
    double ww = wscore ? P->words_weight : 0;
    if (!dscore)
        wd = 0;
    if (!mix) { /* ranks are needed */
        qsort(dn, ndn, sizeof *dn, ranked_cmp);
        qsort(wn, nwn, sizeof *wn, ranked_cmp);
    }
    if (wl > 0) {
        if (!mix)
            qsort(*rk, *nrk, sizeof **rk, ranked_cmp);
        double top = 0;
        for (size_t i = 0; i < *nrk; i++)
            top = LP_MAX(top, (*rk)[i].score);
        top = LP_MAX(top, P->lexical_floor);
        for (size_t i = 0; i < *nrk; i++) {
            uint32_t s = (*rk)[i].doc->slot;
            fused[s] += mix ? wl * (*rk)[i].score / (top > 0 ? top : 1) : wl / (k + (double)i + 1);
            ch[s] |= (*rk)[i].channels;
            matched[s] = (*rk)[i].matched;
            if ((*rk)[i].channels & LP_CATALOG_CH_EXACT)
                fused[s] += 2 * (wl + wd + ww);
        }
    }
    if (wd > 0)
        for (size_t i = 0; i < ndn; i++) {
            uint32_t s = dn[i].doc->slot;
            fused[s] += mix ? wd * dn[i].score : wd / (k + (double)i + 1);
            ch[s] |= LP_CATALOG_CH_DENSE;
        }
    if (ww > 0)
        for (size_t i = 0; i < nwn; i++) {
            uint32_t s = wn[i].doc->slot;
            fused[s] += mix ? ww * wn[i].score : ww / (k + (double)i + 1);
            ch[s] |= LP_CATALOG_CH_WORDS;
        }
    size_t n = 0;
    ranked *out = lp_xmalloc((nslots ? nslots : 1) * sizeof *out);
    for (size_t s = 0; s < nslots; s++)
        if (ch[s] && fused[s] > 0)
            out[n++] = (ranked){cat->slots.items[s], fused[s], matched[s], ch[s],
                                dscore && dscore[s] > 0 ? dscore[s] : 0};
    free(*rk);
    *rk = out;
    *nrk = n;
    free(dn);
    free(wn);
    free(fused);
    free(ch);
    free(matched);
}

/* Merge the intents' results into the whole request's ranking rk[0..*n): the whole
 * request's best tool, then each part's best tool unless already taken or matching fewer
 * than intent_gate query words (a part whose best tool is taken is covered), then the rest
 * of the whole request's ranking. Only the `want` best of that ranking are sorted: *rk is
 * replaced by the merged list, whose first entries (the count returned) are in final order
 * and the rest, all ranked below them, in no order (the caller makes a heap of them). A
 * tool appears once. */
static size_t merge_intents(const lp_catalog *cat, const lp_catalog_result *sub, size_t nsub,
                            size_t want, ranked **rk, size_t *n)
{
    size_t k = keep_best(*rk, *n, want);
    qsort(*rk, k, sizeof **rk, ranked_cmp);
    ranked *m = lp_xmalloc((*n + nsub + 1) * sizeof *m);
    uint8_t *taken = lp_xcalloc(cat->slots.len ? cat->slots.len : 1, 1);
    size_t len = 0;
    if (k) {
        m[len++] = (*rk)[0];
        taken[m[0].doc->slot] = 1;
    }
    for (size_t i = 0; i < nsub; i++) {
        if (!sub[i].nhits)
            continue;
        const lp_catalog_hit *h = &sub[i].hits[0];
        const lp_cat_doc *d = (const lp_cat_doc *)(const void *)h->tool; /* pub is first */
        if (taken[d->slot] || h->matched_terms < cat->params.intent_gate)
            continue;
        m[len++] = (ranked){d, h->score, (uint16_t)h->matched_terms, (uint8_t)h->channels,
                            h->similarity};
        taken[d->slot] = 1;
    }
    for (size_t i = 1; i < k; i++)
        if (!taken[(*rk)[i].doc->slot])
            m[len++] = (*rk)[i];
    size_t prefix = len;
    for (size_t i = k; i < *n; i++)
        if (!taken[(*rk)[i].doc->slot])
            m[len++] = (*rk)[i];
    free(taken);
    free(*rk);
    *rk = m;
    *n = len;
    return prefix;
}

static lp_status search_impl(const lp_catalog *cat, const lp_catalog_query *q,
                             lp_catalog_result *out, bool split, lp_error *err);

lp_status lp_catalog_search(const lp_catalog *cat, const lp_catalog_query *q,
                            lp_catalog_result *out, lp_error *err)
{
    return search_impl(cat, q, out, true, err);
}

static lp_status search_impl(const lp_catalog *cat, const lp_catalog_query *q,
                             lp_catalog_result *out, bool split, lp_error *err)
{
    memset(out, 0, sizeof *out);
    const lp_catalog_limits *L = &cat->limits;
    if (q->text.len > L->max_query_bytes)
        return lp_cat_fail(err, LP_CATALOG_QUERY_TOO_LONG,
                           "the query is %zu bytes, over the %zu-byte limit; shorten it",
                           q->text.len, L->max_query_bytes);
    size_t max_tools = q->max_tools ? q->max_tools : 5;
    if (max_tools > L->max_results)
        return lp_cat_fail(err, LP_CATALOG_INVALID_LIMIT,
                           "max_tools %zu is above the limit %zu; ask for fewer tools",
                           max_tools, L->max_results);
    if (q->npinned > L->max_pins)
        return lp_cat_fail(err, LP_CATALOG_INVALID_LIMIT,
                           "%zu pinned tools is above the limit %zu; pin fewer", q->npinned,
                           L->max_pins);
    size_t nslots = cat->slots.len;
    scratch sc = {0};
    sc.best = lp_xmalloc((nslots ? nslots : 1) * sizeof *sc.best);
    sc.stamp = lp_xcalloc(nslots ? nslots : 1, sizeof *sc.stamp);
    sc.total = lp_xcalloc(nslots ? nslots : 1, sizeof *sc.total);
    sc.matched = lp_xcalloc(nslots ? nslots : 1, sizeof *sc.matched);
    sc.seen = lp_xcalloc(nslots ? nslots : 1, 1);
    uint8_t *counts = NULL, *claimed = NULL;
    qterm_vec terms = {0};
    cand_vec cands = {0};
    ranked *rk = NULL;
    float *dscore = NULL, *wscore = NULL;
    uint32_t *rank_of = NULL;
    lp_buf sq;
    lp_buf_init(&sq, 0);

    lp_str qtext = lp_str_trim(q->text);
    if (qtext.len && query_terms(cat, qtext, &terms))
        warn(out, "query_terms_truncated", "only the first %zu distinct query terms were used",
             L->max_query_terms);
    size_t nplain = count_plain(&terms);
    out->query_terms = nplain;
    if (qtext.len && nplain == 0)
        warn(out, "no_query_terms", "the query has no searchable words");
    counts = lp_xcalloc(cat->terms.len ? cat->terms.len : 1, 1);
    /* An index term credits at most one query term: the literal query terms claim their
     * own terms first, then each query term (in order) claims its expansions. So "make a
     * new folder" cannot count "add" twice (through make and through new). */
    claimed = lp_xcalloc(cat->terms.len ? cat->terms.len : 1, 1);
    for (size_t i = 0; i < terms.len; i++) {
        uint32_t id = lp_cat_term_lookup(cat, (lp_str){terms.items[i].text, terms.items[i].len});
        if (id != UINT32_MAX)
            claimed[id] = 1;
    }
    uint16_t stamp = 0;
    for (size_t i = 0; i < terms.len && nslots; i++) {
        candidates(cat, &terms.items[i], counts, &cands);
        size_t w = 0;
        for (size_t c = 0; c < cands.len; c++) {
            cand cd = cands.items[c];
            if (cd.kind != K_LITERAL && claimed[cd.term])
                continue;
            cands.items[w++] = cd;
        }
        cands.len = w;
        for (size_t c = 0; c < cands.len; c++)
            claimed[cands.items[c].term] = 1;
        if (!cands.len)
            continue;
        score_term(cat, &cands, ++stamp,
                   lp_cat_request_weight(&cat->params,
                                         (lp_str){terms.items[i].text, terms.items[i].len}) *
                       part_factor(cat, &terms, i),
                   &sc);
        for (size_t k = 0; k < sc.touched.len; k++) {
            uint32_t s = sc.touched.items[k];
            if (!sc.seen[s]) {
                sc.seen[s] = 1;
                lp_vec_push(&sc.hits, s);
            }
            sc.total[s] += sc.best[s];
            if (!terms.items[i].whole)
                sc.matched[s]++;
        }
    }
    /* Exact name, coverage, filters. */
    lp_text_squash(qtext, &sq);
    rk = lp_xmalloc((sc.hits.len ? sc.hits.len : 1) * sizeof *rk);
    size_t nrk = 0;
    double floor = cat->params.coverage_floor;
    for (size_t i = 0; i < sc.hits.len; i++) {
        uint32_t s = sc.hits.items[i];
        const lp_cat_doc *d = cat->slots.items[s];
        double score = sc.total[s];
        bool exact = exact_name(d, sq.ptr);
        if (exact)
            score += cat->params.exact_name_bonus;
        if (nplain)
            score *= floor + (1 - floor) * (double)LP_MIN(sc.matched[s], nplain) / (double)nplain;
        sc.total[s] = score;
        if (score > 0 && passes_filters(d, q))
            rk[nrk++] = (ranked){d, score, sc.matched[s],
                                 LP_CATALOG_CH_LEXICAL | (exact ? LP_CATALOG_CH_EXACT : 0), 0};
    }
    out->channels = qtext.len ? LP_CATALOG_CH_LEXICAL : 0;
    bool have_d = false, have_w = false;
    /* A part of a request (split false) uses the vector channels only with intent_vectors. */
    bool vectors = split || cat->params.intent_vectors > 0;
    if (vectors && qtext.len && cat->params.dense_weight > 0) {
        dscore = lp_xmalloc((nslots ? nslots : 1) * sizeof *dscore);
        const char *why = NULL;
        have_d = lp_cat_dense_scores(cat, qtext, dscore, &why);
        if (!have_d && why)
            warn(out, why, "%s; tools were ranked without the dense channel", cat->dense_note);
    }
    if (vectors && qtext.len && cat->params.words_weight > 0) {
        wscore = lp_xmalloc((nslots ? nslots : 1) * sizeof *wscore);
        const char *why = NULL;
        have_w = lp_cat_words_scores(cat, qtext, wscore, &why);
        if (!have_w && why)
            warn(out, why, "%s; tools were ranked without the word channel", cat->words_note);
    }
    if (have_d || have_w) {
        fuse(cat, q, have_d ? dscore : NULL, have_w ? wscore : NULL, &rk, &nrk);
        out->channels = (have_d ? LP_CATALOG_CH_DENSE : 0) | (have_w ? LP_CATALOG_CH_WORDS : 0) |
                        (cat->params.lexical_weight > 0 ? LP_CATALOG_CH_LEXICAL : 0);
    }
    /* Several intents: each part searched alone (same filters, no pins, no token budget),
     * then merged. */
    lp_str parts[MAX_INTENTS];
    size_t nparts = split && cat->params.intents > 0 && qtext.len && nslots
                        ? lp_cat_split_intents(cat, qtext, parts, MAX_INTENTS)
                        : 1;
    size_t prefix = 0; /* rk[0..prefix) is in final order; a heap is made of the rest */
    if (nparts > 1) {
        lp_catalog_result sub[MAX_INTENTS];
        for (size_t i = 0; i < nparts; i++) {
            lp_catalog_query pq = *q;
            pq.text = parts[i];
            pq.pinned = NULL;
            pq.npinned = 0;
            pq.max_tokens = 0;
            pq.max_tools = max_tools;
            lp_error perr = {0};
            if (search_impl(cat, &pq, &sub[i], false, &perr) != LP_OK)
                memset(&sub[i], 0, sizeof sub[i]);
        }
        prefix = merge_intents(cat, sub, nparts, max_tools + q->npinned + 1, &rk, &nrk);
        for (size_t i = 0; i < nparts; i++)
            lp_catalog_result_release(&sub[i]);
    }
    out->matched = nrk;
    out->hits = lp_xmalloc((max_tools + q->npinned + 1) * sizeof *out->hits);
    /* Pinned tools first, in the order given; an id wins over a name. */
    if (q->npinned) {
        rank_of = lp_xmalloc((nslots ? nslots : 1) * sizeof *rank_of);
        memset(rank_of, 0xff, (nslots ? nslots : 1) * sizeof *rank_of);
        for (size_t i = 0; i < nrk; i++)
            rank_of[rk[i].doc->slot] = (uint32_t)i;
    }
    size_t pinned_count = 0, pinned_left = 0; /* pinned_left: pinned tools in rk */
    for (size_t i = 0; i < q->npinned; i++) {
        const char *pin = q->pinned[i];
        const lp_catalog_tool *byid = lp_catalog_get(cat, pin);
        size_t found = 0;
        for (size_t s = 0; s < nslots; s++) {
            const lp_cat_doc *d = cat->slots.items[s];
            if (!d || (byid ? &d->pub != byid : strcmp(d->pub.name, pin) != 0))
                continue;
            found++;
            bool dup = false;
            for (size_t h = 0; h < out->nhits && !dup; h++)
                dup = out->hits[h].tool == &d->pub;
            if (dup)
                continue;
            if (out->nhits == max_tools + q->npinned)
                break;
            const ranked *in = rank_of && rank_of[s] != UINT32_MAX ? &rk[rank_of[s]] : NULL;
            if (in) {
                pinned_left++;
                add_hit(out, d, in->score, in->matched, true, in->channels, in->sim);
            }
            else if (sc.total[s] > 0) /* matched, but not in the filtered ranking */
                add_hit(out, d, sc.total[s], sc.matched[s], true, LP_CATALOG_CH_LEXICAL, 0);
            else
                add_hit(out, d, 0, 0, true, 0, 0);
            pinned_count++;
        }
        if (!found)
            warn(out, "unknown_pin", "no tool has the id or name '%.*s'", LP_CUT(pin, 100));
    }
    if (pinned_count > max_tools)
        warn(out, "pinned_over_budget", "%zu pinned tools exceed max_tools %zu", pinned_count,
             max_tools);
    if (q->max_tokens && out->total_tokens > q->max_tokens)
        warn(out, "pinned_over_budget",
             "pinned tools take %zu tokens, over max_tokens %zu; nothing else fits",
             out->total_tokens, q->max_tokens);
    /* The rest in rank order, popped from a heap until max_tools is reached; what is left
     * then is counted, not sorted. */
    size_t next = 0, heap_n = nrk - prefix;
    heapify(rk + prefix, heap_n);
    size_t left = nrk;
    while (left) {
        if (out->nhits >= max_tools) {
            out->omitted_count += left - pinned_left;
            break;
        }
        ranked x = next < prefix ? rk[next++] : heap_pop(rk + prefix, &heap_n);
        left--;
        const lp_cat_doc *d = x.doc;
        bool pinned = false;
        for (size_t h = 0; h < pinned_count && !pinned; h++)
            pinned = out->hits[h].tool == &d->pub;
        if (pinned) {
            pinned_left--;
            continue;
        }
        if (q->max_tokens && out->total_tokens + d->pub.tokens > q->max_tokens) {
            out->omitted_budget++;
            continue;
        }
        add_hit(out, d, x.score, x.matched, false, x.channels, x.sim);
    }
    lp_buf_release(&sq);
    free(dscore);
    free(wscore);
    free(rank_of);
    free(rk);
    free(counts);
    free(claimed);
    lp_vec_free(&terms);
    lp_vec_free(&cands);
    free(sc.best);
    free(sc.stamp);
    free(sc.total);
    free(sc.matched);
    free(sc.seen);
    lp_vec_free(&sc.touched);
    lp_vec_free(&sc.hits);
    return LP_OK;
}

void lp_catalog_result_release(lp_catalog_result *r)
{
    if (!r)
        return;
    free(r->hits);
    for (size_t i = 0; i < r->nwarnings; i++)
        free(r->warnings[i]);
    free(r->warnings);
    memset(r, 0, sizeof *r);
}

/* ------------------------------------------------------------------------------------------
 * JSON output. */
const char *lp_catalog_channel_name(unsigned i)
{
    static const char *const names[] = {"lexical", "dense", "exact", "words"};
    return i < LP_ARRAY_LEN(names) ? names[i] : NULL;
}

static void write_channels(lp_buf *out, unsigned ch)
{
    lp_buf_putc(out, '[');
    bool first = true;
    for (unsigned i = 0; lp_catalog_channel_name(i); i++)
        if (ch & (1u << i)) {
            lp_buf_printf(out, "%s\"%s\"", first ? "" : ",", lp_catalog_channel_name(i));
            first = false;
        }
    lp_buf_putc(out, ']');
}

void lp_catalog_result_write_json(const lp_catalog *cat, const lp_catalog_query *q,
                                  const lp_catalog_result *r, bool with_definitions,
                                  lp_buf *out)
{
    lp_buf_puts(out, "{\"query\":");
    lp_cat_json_str(out, q->text);
    lp_buf_puts(out, ",\"tools\":[");
    for (size_t i = 0; i < r->nhits; i++) {
        const lp_catalog_hit *h = &r->hits[i];
        const lp_catalog_tool *t = h->tool;
        if (i)
            lp_buf_putc(out, ',');
        lp_buf_printf(out, "{\"rank\":%zu,\"id\":", i + 1);
        lp_cat_json_str(out, lp_str_c(t->id));
        lp_buf_puts(out, ",\"name\":");
        lp_cat_json_str(out, lp_str_c(t->name));
        lp_buf_puts(out, ",\"namespace\":");
        lp_cat_json_str(out, lp_str_c(t->ns));
        lp_buf_printf(out, ",\"provider\":\"%s\",\"score\":%.4f,\"tokens\":%zu,"
                           "\"pinned\":%s,\"matchedTerms\":%u",
                      lp_catalog_provider_name(t->provider), h->score, h->tokens,
                      h->pinned ? "true" : "false", h->matched_terms);
        lp_buf_puts(out, ",\"channels\":");
        write_channels(out, h->channels);
        if (h->channels & LP_CATALOG_CH_DENSE)
            lp_buf_printf(out, ",\"similarity\":%.4f", h->similarity);
        if (with_definitions) {
            lp_buf_puts(out, ",\"definition\":");
            lp_buf_put_str(out, t->definition);
        }
        lp_buf_putc(out, '}');
    }
    lp_buf_printf(out,
                  "],\"totalTokens\":%zu,\"queryTerms\":%zu,\"matched\":%zu,"
                  "\"omittedForBudget\":%zu,\"omittedForCount\":%zu,\"catalogTools\":%zu,"
                  "\"warnings\":[",
                  r->total_tokens, r->query_terms, r->matched, r->omitted_budget,
                  r->omitted_count, lp_catalog_count(cat));
    for (size_t i = 0; i < r->nwarnings; i++) {
        const char *w = r->warnings[i];
        const char *colon = strchr(w, ':');
        size_t cl = colon ? (size_t)(colon - w) : strlen(w);
        const char *msg = colon ? colon + 1 : "";
        while (*msg == ' ')
            msg++;
        if (i)
            lp_buf_putc(out, ',');
        lp_buf_puts(out, "{\"code\":");
        lp_cat_json_str(out, (lp_str){w, cl});
        lp_buf_puts(out, ",\"message\":");
        lp_cat_json_str(out, lp_str_c(msg));
        lp_buf_putc(out, '}');
    }
    lp_buf_puts(out, "],\"channels\":");
    write_channels(out, r->channels);
    lp_buf_putc(out, '}');
}

const char *lp_catalog_provider_name(lp_catalog_provider p)
{
    static const char *const names[LP_CATALOG_PROVIDER_COUNT] = {
        [LP_CATALOG_GENERIC] = "generic",
        [LP_CATALOG_MCP] = "mcp",
        [LP_CATALOG_OPENAI_CHAT] = "openai_chat",
        [LP_CATALOG_OPENAI_RESPONSES] = "openai_responses",
        [LP_CATALOG_ANTHROPIC] = "anthropic",
        [LP_CATALOG_GEMINI] = "gemini",
    };
    return (unsigned)p < LP_CATALOG_PROVIDER_COUNT ? names[p] : "unknown";
}
