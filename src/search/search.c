/*
 * search.c: a search from query to groups: parse, channels, fusion, rerank, scope, groups.
 *
 * Channels (channels.c): exact (symbol names), lexical (BM25F over chunk_fts with grouped
 * synonyms, rank.c) and dense (src/embed, off by default: see
 * docs/decisions/0003-search-fusion.md). LOUPE_SEARCH_CHANNELS (comma list of exact,
 * lexical, dense, rerank) overrides the default set, for ablations.
 *
 * Fusion: each channel's candidates are consolidated per owner (file path + owning symbol,
 * or the chunk for a region without one) in channel order, so an owner's rank in a channel
 * is the rank of its best chunk among owners: several chunks of one owner never add votes
 * or push others down. fused = sum over channels of w_ch / (60 + rank_ch).
 *
 * Rerank: the top RERANK_N owners by fused score get feature boosts (query-word coverage in
 * the owner's name, qualified name, path and doc comment; an exact identifier hit; a
 * symbol over a file region), then the scope policy applies (runtime demotes tests and
 * plain text unless the query is about tests). Order: score desc, path asc, start line asc,
 * qualified name asc, id asc: fully deterministic.
 */
#include "search/search_int.h"
#include "core/settings.h"

#include "embed/embed.h"
#include "text/text.h"

#include <math.h>
#include <strings.h>
#include <time.h>

#define RRF_K 60.0
#define LEXICAL_CANDIDATES 300
#define LEXICAL_CANDIDATES_FILTERED 3000
#define DENSE_CANDIDATES 100
#define RERANK_N 100

static const char *const scope_names[] = {"runtime", "tests", "docs", "mixed"};

const char *lp_search_scope_name(lp_search_scope s)
{
    return (unsigned)s < LP_ARRAY_LEN(scope_names) ? scope_names[s] : "runtime";
}

lp_status lp_search_scope_parse(lp_str name, lp_search_scope *out, lp_error *err)
{
    for (size_t i = 0; i < LP_ARRAY_LEN(scope_names); i++) {
        if (lp_str_eq_c(name, scope_names[i])) {
            *out = (lp_search_scope)i;
            return LP_OK;
        }
    }
    return lp_error_set(err, LP_EINVAL,
                        "unknown scope '" LP_STR_FMT "'; use runtime, tests, docs or mixed",
                        LP_STR_ARG(name));
}

static const char *const grouping_names[] = {"owner", "file"};

const char *lp_search_grouping_name(lp_search_grouping g)
{
    return (unsigned)g < LP_ARRAY_LEN(grouping_names) ? grouping_names[g] : "owner";
}

lp_status lp_search_grouping_parse(lp_str name, lp_search_grouping *out, lp_error *err)
{
    for (size_t i = 0; i < LP_ARRAY_LEN(grouping_names); i++) {
        if (lp_str_eq_c(name, grouping_names[i])) {
            *out = (lp_search_grouping)i;
            return LP_OK;
        }
    }
    return lp_error_set(err, LP_EINVAL, "unknown grouping '" LP_STR_FMT "'; use owner or file",
                        LP_STR_ARG(name));
}

/* The default channels, plus dense when the index is built with vectors (LOUPE_DENSE=1 or a
 * connected provider: lp_embed_code_vectors_enabled). */
static unsigned default_switches(void)
{
    return LP_SW_DEFAULT | (lp_embed_code_vectors_enabled() ? LP_SW_DENSE : 0u);
}

static unsigned channel_switches(void)
{
    const char *v = lp_setting_str(LP_SET_SEARCH_CHANNELS);
    if (!v || !*v)
        return default_switches();
    unsigned sw = 0;
    lp_str s = lp_str_c(v);
    size_t i = 0;
    while (i <= s.len) {
        size_t j = lp_str_find_char(s, ',', i);
        if (j == SIZE_MAX)
            j = s.len;
        lp_str item = lp_str_trim(lp_str_sub(s, i, j));
        if (lp_str_eq_c(item, "lexical"))
            sw |= LP_SW_LEXICAL;
        else if (lp_str_eq_c(item, "exact"))
            sw |= LP_SW_EXACT;
        else if (lp_str_eq_c(item, "dense"))
            sw |= LP_SW_DENSE;
        else if (lp_str_eq_c(item, "rerank"))
            sw |= LP_SW_RERANK;
        else if (lp_str_eq_c(item, "default"))
            sw |= default_switches();
        i = j + 1;
    }
    return sw ? sw : default_switches();
}

/* ------------------------------------------------------------------------------------------
 * Scope. */

/* A test file, or a symbol inside a test module (Rust `mod tests`): roles.c. */
static bool is_test(const lp_cand *c)
{
    return (lp_search_path_roles(lp_str_c(c->path), c->qname) & LP_ROLE_TEST) != 0;
}

static bool is_doc_lang(int lang) { return lang == LP_LANG_MARKDOWN || lang == LP_LANG_RST; }

/* Whether c may be shown at all (filters and scope exclusions). */
static bool admit(const lp_search_query *q, lp_search_scope scope, const lp_cand *c)
{
    if (!c->path)
        return false;
    if (q->nlangs) {
        bool ok = false;
        for (size_t i = 0; i < q->nlangs && !ok; i++)
            ok = q->langs[i] == c->lang;
        if (!ok)
            return false;
    }
    if (q->nkinds) {
        bool ok = false;
        for (size_t i = 0; i < q->nkinds && !ok; i++)
            ok = c->kind >= 0 && q->kinds[i] == c->kind;
        if (!ok)
            return false;
    }
    if (!lp_search_query_path_ok(q, lp_str_c(c->path)))
        return false;
    switch (scope) {
    case LP_SCOPE_RUNTIME:
        return !is_doc_lang(c->lang);
    case LP_SCOPE_TESTS:
        return is_test(c);
    case LP_SCOPE_DOCS:
        return is_doc_lang(c->lang) || c->lang == LP_LANG_TEXT;
    default:
        return true;
    }
}

/* ------------------------------------------------------------------------------------------
 * Owners and fusion. */

enum { CH_EXACT, CH_LEXICAL, CH_DENSE, CH_PATH, CH_AREA, CH_N };

typedef struct owner {
    lp_cand c;              /* representative: the best chunk (lexical, then dense, exact) */
    uint32_t rank[CH_N];    /* 1-based rank among owners in each channel, 0 = absent */
    uint32_t channels;      /* LP_CH_* */
    uint64_t cover;         /* OR of the lexical coverage masks */
    int exact_tier;         /* best exact tier, 3 = none */
    double fused, score;
    double lex; /* best lexical score of the owner's chunks */
    uint64_t hash;
    uint32_t roles; /* LP_ROLE_* (roles.c) */
    uint32_t ndups, ndup_paths; /* copies folded into this owner (fold_copies) */
    const char **dup_paths;
} owner;

typedef struct owner_set {
    LP_VEC(owner) v;
    uint32_t *slots; /* open addressing: index + 1, 0 = empty */
    size_t nslots;
} owner_set;

static uint64_t owner_hash(const lp_cand *c)
{
    uint64_t h = lp_hash64_of(c->path, strlen(c->path));
    int64_t k = c->owner >= 0 ? c->owner : -1 - (int64_t)c->cstart;
    return h ^ ((uint64_t)k * 0x9E3779B97F4A7C15ull) ^ (uint64_t)c->bid * 0xC2B2AE3D27D4EB4Full;
}

static bool same_owner(const lp_cand *a, const lp_cand *b)
{
    if (a->bid != b->bid || strcmp(a->path, b->path) != 0)
        return false;
    if (a->owner >= 0 || b->owner >= 0)
        return a->owner == b->owner;
    return a->cstart == b->cstart;
}

static void set_grow(owner_set *s)
{
    size_t n = s->nslots ? s->nslots * 2 : 1024;
    free(s->slots);
    s->slots = lp_xcalloc(n, sizeof *s->slots);
    s->nslots = n;
    for (size_t i = 0; i < s->v.len; i++) {
        size_t k = s->v.items[i].hash & (n - 1);
        while (s->slots[k])
            k = (k + 1) & (n - 1);
        s->slots[k] = (uint32_t)i + 1;
    }
}

static owner *owner_get(owner_set *s, const lp_cand *c, bool *created)
{
    if ((s->v.len + 1) * 2 > s->nslots)
        set_grow(s);
    uint64_t h = owner_hash(c);
    size_t k = h & (s->nslots - 1);
    while (s->slots[k]) {
        owner *o = &s->v.items[s->slots[k] - 1];
        if (o->hash == h && same_owner(&o->c, c)) {
            *created = false;
            return o;
        }
        k = (k + 1) & (s->nslots - 1);
    }
    owner *o = lp_vec_push_zero(&s->v);
    o->c = *c;
    o->hash = h;
    o->exact_tier = 3;
    s->slots[k] = (uint32_t)s->v.len;
    *created = true;
    return o;
}

static void fuse_channel(owner_set *s, const lp_cand_vec *cands, int ch,
                         const lp_search_query *q, lp_search_scope scope)
{
    static const uint32_t bits[CH_N] = {LP_CH_EXACT, LP_CH_LEXICAL, LP_CH_DENSE, LP_CH_PATH,
                                        LP_CH_PATH};
    uint32_t next = 0;
    for (size_t i = 0; i < cands->len; i++) {
        const lp_cand *c = &cands->items[i];
        if (!admit(q, scope, c))
            continue;
        bool created;
        owner *o = owner_get(s, c, &created);
        if (!o->rank[ch]) {
            o->rank[ch] = ++next;
            /* The lexical chunk is the best snippet anchor; exact hits bring the symbol. */
            if (!created && ch == CH_LEXICAL && !(o->channels & LP_CH_LEXICAL))
                o->c = *c;
        }
        o->channels |= bits[ch];
        if (ch == CH_LEXICAL) {
            o->cover |= c->cover;
            if (c->score > o->lex)
                o->lex = c->score;
        }
        if (ch == CH_EXACT && c->tier < o->exact_tier)
            o->exact_tier = c->tier;
    }
}

/* ------------------------------------------------------------------------------------------
 * Reranking features. */

typedef struct stem_set {
    char items[64][LP_TEXT_TOKEN_MAX + 1];
    size_t n;
} stem_set;

static int stem_into(void *ctx, const lp_text_token *t)
{
    stem_set *s = ctx;
    if ((t->flags & LP_TEXT_TOK_WHOLE) || s->n >= LP_ARRAY_LEN(s->items))
        return 0;
    lp_text_stem((lp_str){t->text, t->len}, s->items[s->n++]);
    return 0;
}

static bool stem_set_has(const stem_set *s, lp_str w)
{
    for (size_t i = 0; i < s->n; i++)
        if (lp_str_eq_c(w, s->items[i]))
            return true;
    return false;
}

/* How well the words of a group are covered by a set: 1 when every stem of the literal is
 * in it, the synonym weight when one synonym is, else 0. */
static double group_cover(const stem_set *s, const char *stems, const char *syns, float synw)
{
    lp_str all = lp_str_c(stems);
    bool every = all.len > 0;
    size_t i = 0;
    while (i < all.len && every) {
        size_t j = lp_str_find_char(all, ' ', i);
        if (j == SIZE_MAX)
            j = all.len;
        every = stem_set_has(s, lp_str_sub(all, i, j));
        i = j + 1;
    }
    if (every)
        return 1.0;
    lp_str sy = lp_str_c(syns);
    i = 0;
    while (i < sy.len) {
        size_t j = lp_str_find_char(sy, ' ', i);
        if (j == SIZE_MAX)
            j = sy.len;
        if (stem_set_has(s, lp_str_sub(sy, i, j)))
            return synw;
        i = j + 1;
    }
    return 0.0;
}

static double coverage(lp_text_tokenizer *tk, const lp_lex_query *lq, const char *text)
{
    if (!text || !*text || lq->ngroups == 0)
        return 0.0;
    stem_set s;
    s.n = 0;
    lp_text_tokenize(tk, lp_str_c(text), stem_into, &s);
    double sum = 0;
    for (size_t g = 0; g < lq->ngroups; g++)
        sum += group_cover(&s, lq->stems[g], lq->syn_stems[g], lq->syn_weight[g]);
    return sum / (double)lq->ngroups;
}

/* A type that holds other definitions: its chunks carry its whole doc comment, so it
 * matches many words of a behaviour question without being the code that does it. */
static bool is_container(int kind)
{
    switch (kind) {
    case LP_SYM_CLASS:
    case LP_SYM_STRUCT:
    case LP_SYM_INTERFACE:
    case LP_SYM_TRAIT:
    case LP_SYM_ENUM:
    case LP_SYM_MODULE:
    case LP_SYM_NAMESPACE:
    case LP_SYM_PACKAGE:
    case LP_SYM_OBJECT:
    case LP_SYM_RECORD:
    case LP_SYM_UNION:
        return true;
    default:
        return false;
    }
}

static void rerank(owner *o, const lp_search_query *q, const lp_lex_query *lq,
                   lp_text_tokenizer *tk, double lex_max)
{
    const lp_search_tuning *t = lp_search_tuning_get();
    (void)q;
    double f = 0;
    const lp_cand *c = &o->c;
    if (lex_max > 0)
        f += t->lex * o->lex / lex_max;
    if (c->name)
        f += t->name * coverage(tk, lq, c->name);
    if (c->qname && c->name && strcmp(c->qname, c->name) != 0)
        f += t->qname * coverage(tk, lq, c->qname);
    f += t->path * coverage(tk, lq, c->path);
    if (lq->ngroups) {
        unsigned docs = 0;
        for (size_t g = 0; g < LP_MIN(lq->ngroups, (size_t)LP_LEX_MASK_GROUPS); g++)
            docs += (o->cover >> g) & 1u;
        f += t->doc * (double)docs / (double)LP_MIN(lq->ngroups, (size_t)LP_LEX_MASK_GROUPS);
    }
    if (o->exact_tier <= 1)
        f += t->exact;
    if (c->owner >= 0)
        f += t->def;
    o->score = o->fused + f;
    if (is_container(c->kind))
        o->score *= 1.0 - t->container;
}

static double scope_factor(const owner *o, lp_search_scope scope, bool about_tests,
                           bool spare_foreign)
{
    const lp_search_tuning *t = lp_search_tuning_get();
    if (scope != LP_SCOPE_RUNTIME)
        return 1.0;
    double m = lp_roles_factor(o->roles, about_tests, spare_foreign && o->exact_tier <= 1,
                               t->demote_test);
    if (o->c.lang == LP_LANG_TEXT)
        m *= t->demote_text;
    return m;
}

static int cmp_str(const char *a, const char *b) { return strcmp(a ? a : "", b ? b : ""); }

static int owner_cmp(const void *a, const void *b)
{
    const owner *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    int c = strcmp(x->c.path, y->c.path);
    if (c)
        return c;
    if (x->c.ostart != y->c.ostart)
        return x->c.ostart < y->c.ostart ? -1 : 1;
    if ((c = cmp_str(x->c.qname, y->c.qname)))
        return c;
    if (x->c.owner != y->c.owner)
        return x->c.owner < y->c.owner ? -1 : 1;
    return x->c.cstart < y->c.cstart ? -1 : x->c.cstart > y->c.cstart;
}

static int fused_cmp(const void *a, const void *b)
{
    const owner *x = a, *y = b;
    if (x->fused != y->fused)
        return x->fused > y->fused ? -1 : 1;
    return owner_cmp(a, b);
}

/* ------------------------------------------------------------------------------------------
 * Copies: one shown, the rest folded into it. */

static const char *base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

/* Whether o is a copy of k (k ranks above it): the same owner in a file with the same
 * content, or a near-duplicate: the same file name and the same owner (qualified name,
 * kind and length), or, for foreign files (locale catalogs, minified, generated), the same
 * file name and region. */
static bool is_copy(const owner *k, const owner *o)
{
    if (!strcmp(k->c.path, o->c.path))
        return false;
    if (k->c.bid == o->c.bid)
        return k->c.owner >= 0 || o->c.owner >= 0 ? k->c.owner == o->c.owner
                                                   : k->c.cstart == o->c.cstart;
    if (strcmp(base_name(k->c.path), base_name(o->c.path)) != 0)
        return false;
    if (k->c.qname && o->c.qname)
        return !strcmp(k->c.qname, o->c.qname) && k->c.kind == o->c.kind &&
               k->c.oend - k->c.ostart == o->c.oend - o->c.ostart;
    return !k->c.qname && !o->c.qname && (k->roles & LP_ROLE_FOREIGN) &&
           (o->roles & LP_ROLE_FOREIGN) && k->c.cstart == o->c.cstart;
}

/* Compacts os.v so its first n (returned, at most limit) owners are the shown ones, each
 * with the copies found among all owners below it folded in. Order is kept. */
static size_t fold_copies(owner_set *os, uint32_t limit, lp_arena *arena)
{
    size_t n = 0;
    for (size_t i = 0; i < os->v.len; i++) {
        owner *o = &os->v.items[i];
        owner *into = NULL;
        for (size_t k = 0; k < n && !into; k++)
            if (is_copy(&os->v.items[k], o))
                into = &os->v.items[k];
        if (into) {
            if (!into->dup_paths)
                into->dup_paths = lp_arena_zalloc(arena, LP_SEARCH_DUP_PATHS * sizeof(char *));
            if (into->ndup_paths < LP_SEARCH_DUP_PATHS)
                into->dup_paths[into->ndup_paths++] = o->c.path;
            into->ndups++;
            continue;
        }
        if (n >= limit)
            continue; /* still looked at: a copy of a shown owner is counted */
        if (i != n)
            os->v.items[n] = *o;
        n++;
    }
    return n;
}

/* ------------------------------------------------------------------------------------------
 * Snippets. */

typedef struct content_cache {
    int64_t bid;
    lp_buf content;
    bool ok;
} content_cache;

static const char *make_snippet(lp_store *st, content_cache *cc, int64_t bid, uint32_t from,
                                uint32_t to, uint32_t max_lines, lp_arena *arena)
{
    if (cc->bid != bid) {
        cc->bid = bid;
        cc->ok = lp_store_content_get(st, bid, &cc->content, NULL) == LP_OK;
    }
    if (!cc->ok)
        return "";
    const char *p = cc->content.ptr;
    size_t n = cc->content.len;
    lp_buf b;
    lp_buf_init(&b, 1024);
    uint32_t line = 1;
    size_t i = 0;
    while (i < n && line < from) {
        const char *nl = memchr(p + i, '\n', n - i);
        if (!nl)
            break;
        i = (size_t)(nl - p) + 1;
        line++;
    }
    uint32_t shown = 0;
    while (i < n && line <= to && shown < max_lines) {
        const char *nl = memchr(p + i, '\n', n - i);
        size_t e = nl ? (size_t)(nl - p) : n;
        size_t len = lp_utf8_cut(p + i, e - i, 200); /* long lines are cut, at a character */
        lp_buf_printf(&b, "%u| ", line);
        lp_buf_append(&b, p + i, len);
        lp_buf_putc(&b, '\n');
        shown++;
        line++;
        i = nl ? e + 1 : n;
    }
    const char *r = lp_arena_strndup(arena, b.ptr, b.len);
    lp_buf_release(&b);
    return r;
}

/* ------------------------------------------------------------------------------------------
 * The summary of an answer for the confidence model (confidence.c). */

static void conf_fill(lp_store *st, content_cache *cc, const owner_set *os,
                      const lp_lex_query *lq, lp_text_tokenizer **tk, lp_conf_input *ci)
{
    memset(ci, 0, sizeof *ci);
    ci->top_exact_tier = 3;
    ci->ngroups = lq->ngroups;
    ci->nowners = os->v.len;
    ci->nscores = LP_MIN(os->v.len, (size_t)LP_CONF_TOP);
    if (!ci->nscores)
        return;
    if (!*tk)
        *tk = lp_text_tokenizer_new(LP_TEXT_CODE);
    uint64_t seen = 0;
    for (size_t i = 0; i < ci->nscores; i++) {
        const owner *o = &os->v.items[i];
        ci->score[i] = o->score;
        if (cc->bid != o->c.bid) {
            cc->bid = o->c.bid;
            cc->ok = lp_store_content_get(st, o->c.bid, &cc->content, NULL) == LP_OK;
        }
        if (!cc->ok)
            continue;
        lp_str text = lp_buf_str(&cc->content);
        if (i == 0)
            ci->top_cover = lp_conf_span_cover(*tk, lq, text, o->c.ostart, o->c.oend, NULL);
        ci->top5_cover = lp_conf_span_cover(*tk, lq, text, o->c.ostart, o->c.oend, &seen);
    }
    const owner *top = &os->v.items[0];
    char name[1024];
    snprintf(name, sizeof name, "%s %s", top->c.qname ? top->c.qname : "", top->c.path);
    ci->top_name_cover = coverage(*tk, lq, name);
    unsigned docs = 0;
    for (size_t g = 0; g < lq->ngroups; g++)
        docs += (top->cover >> g) & 1u;
    ci->top_doc_cover = lq->ngroups ? (double)docs / (double)lq->ngroups : 0.0;
    ci->top_channels = top->channels;
    ci->top_exact_tier = top->exact_tier;
    ci->top_lex = top->lex;
}

/* ------------------------------------------------------------------------------------------
 * The run. */

/* The text the dense channel embeds: the free words and phrases, without operators. */
static void dense_text(const lp_search_query *q, lp_buf *out)
{
    for (size_t i = 0; i < q->nphrases; i++)
        lp_buf_printf(out, "%s%s", out->len ? " " : "", q->phrases[i]);
    for (size_t i = 0; i < q->nwords; i++)
        lp_buf_printf(out, "%s%s", out->len ? " " : "", q->words[i]);
    for (size_t i = 0; i < q->nsyms; i++)
        lp_buf_printf(out, "%s%s", out->len ? " " : "", q->syms[i]);
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static lp_status run_dense(lp_store *st, int64_t pub_id, const lp_search_query *q,
                           lp_arena *arena, lp_cand_vec *out, const char **warning)
{
    lp_buf text;
    lp_buf_init(&text, 256);
    dense_text(q, &text);
    lp_dense_hit hits[DENSE_CANDIDATES];
    size_t n = 0;
    lp_error derr = {0};
    lp_status rc = LP_OK;
    if (!lp_embed_code_vectors_enabled()) {
        /* The fingerprint matched, so the publication was built without vectors too. */
        *warning = lp_arena_printf(arena, "%s: this index has no dense vectors; set "
                                          "LOUPE_DENSE=1 and reindex to add them",
                                   lp_warn_code(LP_WARN_DENSE_CHANNEL_ABSENT));
    } else if (lp_dense_search(st, pub_id, lp_buf_str(&text), DENSE_CANDIDATES, hits, &n,
                               &derr)) {
        *warning = lp_arena_printf(arena, "%s: %s", lp_warn_code(LP_WARN_DENSE_CHANNEL_ABSENT),
                                   derr.msg);
    } else if (n) {
        int64_t cids[DENSE_CANDIDATES];
        float scores[DENSE_CANDIDATES];
        for (size_t i = 0; i < n; i++) {
            cids[i] = hits[i].cid;
            scores[i] = hits[i].score;
        }
        lp_error cerr = {0};
        if (lp_channel_chunks(st, cids, scores, n, arena, out, &cerr))
            *warning = lp_arena_printf(arena, "%s: %s",
                                       lp_warn_code(LP_WARN_DENSE_CHANNEL_ABSENT), cerr.msg);
    }
    lp_buf_release(&text);
    return rc;
}

lp_status lp_search_run(lp_store *st, const lp_search_request *req, lp_arena *arena,
                        lp_search_result *out, lp_error *err)
{
    uint64_t t0 = lp_now_ns();
    memset(out, 0, sizeof *out);
    out->confidence = -1;
    out->group = req->group;
    lp_search_query q;
    lp_lex_query lq;
    memset(&lq, 0, sizeof lq);
    lp_cand_vec lex = {0}, exact = {0}, dense = {0}, pathc = {0}, areac = {0};
    owner_set os = {0};
    lp_text_tokenizer *tk = NULL;
    content_cache cc = {.bid = -1};
    lp_roles *roles = NULL;
    lp_buf_init(&cc.content, 0);
    uint32_t limit = req->limit ? LP_MIN(req->limit, 200u) : 50;
    uint32_t snippet_lines = req->snippet_lines ? req->snippet_lines : 6;
    const char **warnings = lp_arena_zalloc(arena, 8 * sizeof *warnings);
    lp_status rc;

    if (!req->query || !*req->query) {
        rc = lp_error_set(err, LP_EINVAL, "the query is empty; ask with words or identifiers");
        goto done;
    }
    if ((rc = lp_search_query_parse(req->query, arena, &q, err)))
        goto done;
    lp_lex_query_build(&q, arena, &lq);
    if (q.regex && lp_search_query_has_terms(&q)) {
        rc = lp_error_set(err, LP_EINVAL,
                          "regex: takes no words beside it (it is a grep over the index); put "
                          "them in the pattern, narrow with path: or lang:, or search the words "
                          "without regex:");
        goto done;
    }
    if (q.regex || (!lp_search_query_has_terms(&q) && (q.npaths || q.nlangs))) {
        /* regex: a grep with owners (regex.c); filters only: list the files (listing.c). */
        lp_publication lpub;
        if (!(rc = lp_store_current(st, &lpub, err))) {
            out->publication_id = lpub.id;
            out->warnings = warnings;
            rc = q.regex ? lp_search_regex(st, &q, req, arena, out, err)
                         : lp_search_list_files(st, &q, req, arena, out, err);
        }
        if (!rc)
            rc = lp_search_decorate(st, req, arena, out, err);
        goto done;
    }
    if (!lp_search_query_has_terms(&q) || (lq.nterms == 0 && q.nidents == 0)) {
        rc = lp_error_set(err, LP_EINVAL,
                          "the query has no words to search for; ask with words or identifiers, "
                          "e.g. 'where is the token refreshed', or list files with path: "
                          "or lang: alone");
        goto done;
    }
    lp_publication pub;
    if ((rc = lp_store_current(st, &pub, err)))
        goto done;
    out->publication_id = pub.id;
    unsigned sw = channel_switches();
    bool filtered = q.npaths || q.nnot_paths || q.nlangs || q.nkinds ||
                    req->scope == LP_SCOPE_TESTS || req->scope == LP_SCOPE_DOCS;

    uint64_t t_start = lp_now_ns();
    double cpu0 = cpu_ms();
    lp_fallback fb = {0};
    if ((sw & LP_SW_LEXICAL) && (rc = lp_search_fallback(st, &lq, arena, &fb, err)))
        goto done; /* compounds, segmentation, prefix, typo: fallback.c */
    if ((sw & LP_SW_LEXICAL) &&
        (rc = lp_channel_lexical(st, &lq,
                                 filtered ? LEXICAL_CANDIDATES_FILTERED : LEXICAL_CANDIDATES, arena,
                                 &lex, err)))
        goto done;
    uint64_t t_lex = lp_now_ns();
    double cpu_lex = cpu_ms() - cpu0;
    if (q.shortened)
        warnings[out->nwarnings++] = lp_arena_printf(
            arena, "%s: the text is longer than %d bytes; only its first %d bytes were read",
            lp_warn_code(LP_WARN_QUERY_SHORTENED), LP_QUERY_MAX_BYTES, LP_QUERY_MAX_BYTES);
    if (lq.long_text)
        warnings[out->nwarnings++] = lp_arena_printf(
            arena, "%s: %zu of the text's %zu terms were searched (the ones that "
                   "tell code apart best, weighted by how often the text says them)%s",
            lp_warn_code(LP_WARN_LONG_QUESTION), lq.nselected, lq.nterms,
            lq.nunindexed ? "; some words occur nowhere in the index" : "");
    if ((sw & LP_SW_EXACT) && (rc = lp_channel_exact(st, &q, arena, &exact, err)))
        goto done;
    uint64_t t_exact = lp_now_ns();
    if ((rc = lp_channel_path(st, &q, &exact, &lex, arena, &pathc, err)))
        goto done;
    if ((rc = lp_channel_area(st, &q, &exact, &lex, arena, &areac, err)))
        goto done;
    if (sw & LP_SW_DENSE) {
        const char *w = NULL;
        run_dense(st, pub.id, &q, arena, &dense, &w);
        if (w)
            warnings[out->nwarnings++] = w;
    } else {
        warnings[out->nwarnings++] = lp_arena_printf(
            arena, "%s: the dense channel is off by default; results come from exact and "
                   "lexical matching (set LOUPE_DENSE=1 and reindex to add it)",
            lp_warn_code(LP_WARN_DENSE_CHANNEL_ABSENT));
    }
    uint64_t t_channels = lp_now_ns();
    const char *fbw = (sw & LP_SW_LEXICAL) ? lp_search_fallback_warning(&fb, lex.len, exact.len,
                                                                        dense.len, arena)
                                           : NULL;
    if (fbw)
        warnings[out->nwarnings++] = fbw;
    const lp_search_tuning *tune = lp_search_tuning_get();
    fuse_channel(&os, &exact, CH_EXACT, &q, req->scope);
    fuse_channel(&os, &lex, CH_LEXICAL, &q, req->scope);
    fuse_channel(&os, &dense, CH_DENSE, &q, req->scope);
    fuse_channel(&os, &pathc, CH_PATH, &q, req->scope);
    fuse_channel(&os, &areac, CH_AREA, &q, req->scope);

    for (size_t i = 0; i < os.v.len; i++) {
        owner *o = &os.v.items[i];
        double f = 0;
        if (o->rank[CH_EXACT])
            f += tune->w_exact / (RRF_K + o->rank[CH_EXACT]);
        if (o->rank[CH_LEXICAL])
            f += tune->w_lexical / (RRF_K + o->rank[CH_LEXICAL]);
        if (o->rank[CH_DENSE])
            f += tune->w_dense / (RRF_K + o->rank[CH_DENSE]);
        if (o->rank[CH_PATH])
            f += tune->w_path / (RRF_K + o->rank[CH_PATH]);
        if (o->rank[CH_AREA])
            f += tune->w_area / (RRF_K + o->rank[CH_AREA]);
        o->fused = f * RRF_K;
        o->score = o->fused;
    }
    if (os.v.len > 1)
        qsort(os.v.items, os.v.len, sizeof os.v.items[0], fused_cmp);
    size_t nre = LP_MIN(os.v.len, (size_t)RERANK_N);
    if (sw & LP_SW_RERANK) {
        tk = lp_text_tokenizer_new(LP_TEXT_CODE);
        double lex_max = 0;
        for (size_t i = 0; i < os.v.len; i++)
            lex_max = LP_MAX(lex_max, os.v.items[i].lex);
        for (size_t i = 0; i < nre; i++)
            rerank(&os.v.items[i], &q, &lq, tk, lex_max);
    }
    /* File roles: foreign code is spared only for an exact hit on a name that no file of
     * the project's own defines (roles.c, decision 0013). */
    roles = lp_roles_new(st);
    bool own_exact = false;
    for (size_t i = 0; i < os.v.len; i++) {
        owner *o = &os.v.items[i];
        o->roles = lp_roles_of(roles, o->c.bid, o->c.path, o->c.qname);
        own_exact |= o->exact_tier <= 1 && !(o->roles & LP_ROLE_FOREIGN);
    }
    for (size_t i = 0; i < os.v.len; i++)
        os.v.items[i].score *=
            scope_factor(&os.v.items[i], req->scope, lq.about_tests, !own_exact);
    if (os.v.len > 1)
        qsort(os.v.items, os.v.len, sizeof os.v.items[0], owner_cmp);

    lp_conf_input ci;
    conf_fill(st, &cc, &os, &lq, &tk, &ci);
    uint64_t t_fused = lp_now_ns();
    /* The file view aggregates a deeper list of owners than it shows (group.c). */
    size_t depth = req->group == LP_GROUP_FILE ? LP_MAX(limit, LP_FILE_DEPTH) : limit;
    size_t n = fold_copies(&os, (uint32_t)depth, arena);
    out->groups = lp_arena_zalloc(arena, (n ? n : 1) * sizeof *out->groups);
    for (size_t i = 0; i < n; i++) {
        const owner *o = &os.v.items[i];
        lp_search_group *g = &out->groups[i];
        g->rank = (uint32_t)i + 1;
        g->score = o->score;
        g->roles = o->roles;
        g->ndups = o->ndups;
        g->dup_paths = o->dup_paths;
        g->ndup_paths = o->ndup_paths;
        g->channels = o->channels;
        g->owner.file = o->c.path;
        g->owner.symbol = o->c.name;
        g->owner.qname = o->c.qname;
        g->owner.kind = o->c.kind >= 0 ? lp_symkind_name((lp_symkind)o->c.kind) : "file";
        g->owner.start_line = o->c.ostart;
        g->owner.end_line = o->c.oend;
        if (o->c.owner >= 0 && o->c.qname)
            lp_symbol_id_format(lp_symbol_path_hash(lp_str_c(o->c.path)), o->c.skey,
                                g->owner.id);
        g->snippet_start_line = o->c.cstart;
        g->snippet =
            make_snippet(st, &cc, o->c.bid, o->c.cstart, o->c.cend, snippet_lines, arena);
    }
    out->ngroups = n;
    out->warnings = warnings;
    lp_log(LP_LOG_DEBUG, "search.timing",
           "phrases=%zu lexical=%zu/%.1fms exact=%zu/%.1fms dense=%zu/%.1fms fuse=%.1fms "
           "snippets=%.1fms cpu_lexical=%.1fms cpu_total=%.1fms",
           lq.nphrases, lex.len, (double)(t_lex - t_start) / 1e6, exact.len,
           (double)(t_exact - t_lex) / 1e6, dense.len, (double)(t_channels - t_exact) / 1e6,
           (double)(t_fused - t_channels) / 1e6, (double)(lp_now_ns() - t_fused) / 1e6, cpu_lex,
           cpu_ms() - cpu0);
    rc = lp_search_decorate(st, req, arena, out, err); /* surface: decorate.c */
    if (!rc) {
        lp_search_confidence(&ci, out, arena);
        if (req->group == LP_GROUP_FILE)
            lp_search_group_files(out, limit, arena);
    }
done:
    lp_lex_query_release(&lq);
    lp_text_tokenizer_free(tk);
    lp_roles_free(roles);
    lp_buf_release(&cc.content);
    lp_vec_free(&lex);
    lp_vec_free(&exact);
    lp_vec_free(&dense);
    lp_vec_free(&pathc);
    lp_vec_free(&areac);
    lp_vec_free(&os.v);
    free(os.slots);
    out->timing_ms = (double)(lp_now_ns() - t0) / 1e6;
    return rc;
}
