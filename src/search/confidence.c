/*
 * confidence.c: how sure an answer is, and the honest "no good match".
 *
 * lp_search_run summarizes its answer (lp_conf_input: the best scores, how much of the
 * question the top owners' text, name and doc comment cover, which channels agree on the
 * top owner, how many candidates there were); this file turns the summary into
 * LP_CONF_NFEAT features and a logistic model (coefficients in confidence_model.h, fitted by
 * bench/quality/confidence.py) into a probability that the answer holds what was asked
 * for. Below the model's threshold the answer carries the warning no_confident_match: the
 * results are still given (they are the best the index has), but an agent is told not to
 * trust them as the answer.
 *
 * Invariants: features are computed here only, from data of the pinned publication; the
 * confidence is in [0, 1] and deterministic for a given answer.
 */
#include "search/search_int.h"

#include <math.h>

#include "search/confidence_model.h"

static const char *const conf_names[LP_CONF_NFEAT] = {
    "topScore",  "margin2",    "margin5",  "topCover",   "top5Cover", "nameCover",
    "docCover",  "channels",   "exact",    "logOwners",  "logLexical", "logWords",
};

const char *const *lp_search_conf_names(void) { return conf_names; }

double lp_search_conf_threshold(void) { return conf_threshold; }

/* ------------------------------------------------------------------------------------------
 * Span coverage. */

#define COVER_MAX_STEMS 128

typedef struct cover_stem {
    char text[LP_TEXT_TOKEN_MAX + 1];
    int group;
    bool syn;
    bool found;
} cover_stem;

typedef struct cover_ctx {
    cover_stem stems[COVER_MAX_STEMS];
    size_t n;
} cover_ctx;

static void add_stems(cover_ctx *c, const char *list, int group, bool syn)
{
    lp_str all = lp_str_c(list ? list : "");
    size_t i = 0;
    while (i < all.len && c->n < COVER_MAX_STEMS) {
        size_t j = lp_str_find_char(all, ' ', i);
        if (j == SIZE_MAX)
            j = all.len;
        if (j > i && j - i <= LP_TEXT_TOKEN_MAX) {
            cover_stem *s = &c->stems[c->n++];
            memcpy(s->text, all.ptr + i, j - i);
            s->text[j - i] = '\0';
            s->group = group;
            s->syn = syn;
            s->found = false;
        }
        i = j + 1;
    }
}

static int cover_token(void *ctx, const lp_text_token *t)
{
    cover_ctx *c = ctx;
    if (t->flags & LP_TEXT_TOK_WHOLE)
        return 0;
    char stem[LP_TEXT_TOKEN_MAX + 1];
    lp_text_stem((lp_str){t->text, t->len}, stem);
    for (size_t i = 0; i < c->n; i++)
        if (!c->stems[i].found && !strcmp(c->stems[i].text, stem))
            c->stems[i].found = true;
    return 0;
}

double lp_conf_span_cover(lp_text_tokenizer *tk, const lp_lex_query *lq, lp_str text,
                          uint32_t from, uint32_t to, uint64_t *seen)
{
    if (!lq->ngroups)
        return 0.0;
    if (to < from)
        to = from;
    if (to - from >= LP_CONF_SPAN_LINES)
        to = from + LP_CONF_SPAN_LINES - 1;
    /* The byte range of lines [from, to]. */
    size_t i = 0, line = 1;
    while (i < text.len && line < from) {
        const char *nl = memchr(text.ptr + i, '\n', text.len - i);
        if (!nl)
            return seen ? (double)__builtin_popcountll(*seen) / (double)lq->ngroups : 0.0;
        i = (size_t)(nl - text.ptr) + 1;
        line++;
    }
    size_t e = i;
    while (e < text.len && line <= to) {
        const char *nl = memchr(text.ptr + e, '\n', text.len - e);
        e = nl ? (size_t)(nl - text.ptr) + 1 : text.len;
        line++;
    }
    cover_ctx c;
    c.n = 0;
    for (size_t g = 0; g < lq->ngroups; g++) {
        add_stems(&c, lq->stems[g], (int)g, false);
        add_stems(&c, lq->syn_stems[g], (int)g, true);
    }
    lp_text_tokenize(tk, lp_str_sub(text, i, e), cover_token, &c);
    double sum = 0;
    uint64_t found = 0;
    for (size_t g = 0; g < lq->ngroups; g++) {
        bool literal = false, all = true, syn = false;
        for (size_t k = 0; k < c.n; k++) {
            if (c.stems[k].group != (int)g)
                continue;
            if (c.stems[k].syn) {
                syn |= c.stems[k].found;
            } else {
                literal = true;
                all &= c.stems[k].found;
            }
        }
        if (literal && all) {
            sum += 1.0;
            found |= 1ull << g;
        } else if (syn) {
            sum += lq->syn_weight[g];
        }
    }
    if (seen) {
        *seen |= found;
        return (double)__builtin_popcountll(*seen) / (double)lq->ngroups;
    }
    return sum / (double)lq->ngroups;
}

/* ------------------------------------------------------------------------------------------
 * The model. */

static void features(const lp_conf_input *in, double f[LP_CONF_NFEAT])
{
    double s1 = in->nscores > 0 ? in->score[0] : 0.0;
    double s2 = in->nscores > 1 ? in->score[1] : 0.0;
    double s5 = in->nscores > 0 ? in->score[in->nscores - 1] : 0.0;
    f[0] = s1;
    f[1] = s1 - s2;
    f[2] = s1 - s5;
    f[3] = in->top_cover;
    f[4] = in->top5_cover;
    f[5] = in->top_name_cover;
    f[6] = in->top_doc_cover;
    uint32_t ranked = LP_CH_EXACT | LP_CH_LEXICAL | LP_CH_DENSE;
    f[7] = (double)__builtin_popcount(in->top_channels & ranked);
    f[8] = in->top_exact_tier <= 1 ? 1.0 : 0.0;
    f[9] = log1p((double)in->nowners);
    f[10] = log1p(in->top_lex > 0 ? in->top_lex : 0.0);
    f[11] = log1p((double)in->ngroups);
}

void lp_search_confidence(const lp_conf_input *in, lp_search_result *res, lp_arena *arena)
{
    features(in, res->features);
    if (in->nscores == 0) {
        res->confidence = 0.0;
    } else {
        double z = conf_bias;
        for (size_t i = 0; i < LP_CONF_NFEAT; i++)
            z += conf_coef[i] * (res->features[i] - conf_mean[i]) / conf_scale[i];
        res->confidence = 1.0 / (1.0 + exp(-z));
    }
    if (!(res->confidence >= 0.0)) /* NaN from a damaged input: no claim */
        res->confidence = 0.0;
    if (res->confidence < conf_threshold && in->nscores > 0)
        lp_search_result_warn(res, arena,
                              LP_WARN_NO_CONFIDENT_MATCH, "confidence %.2f is below %.2f; the results "
                              "are the closest the index has, but probably not what was asked "
                              "for (the question's words are not found together in any owner). "
                              "Rephrase with identifiers or words from the code, widen the scope, "
                              "or check that this is the right codebase",
                              res->confidence, conf_threshold);
}
