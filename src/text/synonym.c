/*
 * synonym.c: the curated synonym table and its lookup (text.h).
 *
 * Groups are words an agent uses interchangeably when asking for a tool ("delete" for a
 * tool named remove_file). Strong groups (0.7) are near-synonyms; related groups (0.5)
 * are words that usually point at the same kind of tool. Keep groups small and generic:
 * a group that merges distinct intents (read vs write) does more harm than a missing one.
 *
 * The table is indexed once (pthread_once) into a sorted array of (word, group) pairs,
 * in raw and in stemmed form.
 */
#include "text/text.h"

#include <pthread.h>

typedef struct group {
    float weight;
    const char *words; /* space-separated, folded */
} group;

static const group groups[] = {
    /* Actions. */
    {0.7f, "get fetch retrieve obtain read load"},
    {0.7f, "remove delete drop erase destroy purge unlink"},
    {0.7f, "create add new make insert"},
    {0.6f, "create generate produce build compose"},
    {0.7f, "find search lookup query locate seek discover"},
    {0.7f, "update modify edit change patch alter"},
    {0.5f, "update set configure adjust"},
    {0.7f, "auth authenticate authentication login signin logon"},
    {0.7f, "config configuration settings setting options preferences prefs"},
    {0.7f, "list enumerate ls"},
    {0.6f, "send post publish submit dispatch"},
    {0.7f, "run execute exec invoke call trigger"},
    {0.6f, "start begin launch open init initialize"},
    {0.6f, "stop halt terminate kill cancel abort"},
    {0.6f, "show display view print render"},
    {0.7f, "write save store persist put"},
    {0.7f, "copy duplicate clone"},
    {0.6f, "move rename relocate transfer"},
    {0.6f, "check verify validate test inspect"},
    {0.6f, "download pull"},
    {0.6f, "upload push attach"},
    {0.7f, "summarize summary summarise tldr digest"},
    {0.6f, "convert transform translate"},
    {0.6f, "compare diff comparison"},
    {0.6f, "analyze analyse analysis analytics evaluate"},
    {0.6f, "recommend recommendation suggest suggestion advice"},
    {0.6f, "schedule book reserve reservation booking appointment"},
    {0.6f, "monitor track watch"},
    {0.6f, "subscribe follow"},
    {0.6f, "close resolve finish complete"},
    {0.6f, "merge combine join"},
    {0.6f, "sort order rank"},
    {0.6f, "count tally"},
    {0.6f, "notify alert remind reminder notification"},
    {0.6f, "calculate compute calculator"},
    /* Things. */
    {0.7f, "directory folder dir"},
    {0.7f, "file document doc"},
    {0.6f, "message msg chat dm"},
    {0.7f, "repo repository"},
    {0.6f, "issue ticket bug"},
    {0.6f, "pr pull_request mr"},
    {0.7f, "user account member"},
    {0.6f, "user person people profile"},
    {0.7f, "image picture photo img pic"},
    {0.6f, "error exception failure fault"},
    {0.6f, "log logs logging"},
    {0.7f, "email mail inbox"},
    {0.6f, "calendar event meeting appointment"},
    {0.6f, "db database sql table"},
    {0.6f, "web website site webpage page url link"},
    {0.6f, "internet web online"},
    {0.6f, "env environment"},
    {0.6f, "secret credential token password key"},
    {0.6f, "permission access role acl"},
    {0.6f, "process proc task job"},
    {0.6f, "container docker pod"},
    {0.6f, "deploy deployment release ship"},
    {0.6f, "note notes memo"},
    {0.6f, "todo task reminder"},
    {0.6f, "video clip movie film"},
    {0.6f, "music song track audio tune"},
    {0.6f, "podcast episode"},
    {0.6f, "price cost cheap expensive deal"},
    {0.6f, "buy purchase shop shopping order"},
    {0.6f, "product item goods merchandise"},
    {0.6f, "discount coupon promo deal sale"},
    {0.6f, "job career employment vacancy hire hiring"},
    {0.6f, "resume cv"},
    {0.6f, "house home property apartment residence condo housing"},
    {0.6f, "rent rental renting lease landlord tenant"},
    {0.6f, "travel trip journey vacation holiday tour tourism"},
    {0.6f, "flight airline airport plane"},
    {0.6f, "hotel accommodation lodging stay motel"},
    {0.6f, "car vehicle auto automobile"},
    {0.6f, "map maps directions navigation route location"},
    {0.6f, "weather forecast temperature climate"},
    {0.6f, "stock share equity ticker investment invest portfolio"},
    {0.6f, "finance financial money market"},
    {0.6f, "crypto cryptocurrency bitcoin blockchain"},
    {0.6f, "currency exchange forex"},
    {0.6f, "news headline headlines article"},
    {0.6f, "paper article study publication research academic scholar"},
    {0.6f, "course class lesson tutorial learn learning tutor"},
    {0.6f, "recipe cooking cook meal food dish"},
    {0.6f, "restaurant dining dinner"},
    {0.6f, "diet nutrition calorie calories"},
    {0.6f, "health medical medicine doctor"},
    {0.6f, "law legal lawyer attorney"},
    {0.6f, "company business corporation firm enterprise"},
    {0.6f, "game games gaming play"},
    {0.6f, "book novel ebook reading"},
    {0.6f, "translate translation language"},
    {0.6f, "horoscope astrology zodiac"},
    {0.6f, "chart graph plot diagram visualization"},
    {0.6f, "pdf document"},
    {0.6f, "gift present"},
    {0.6f, "charity nonprofit donation donate"},
    {0.6f, "seo ranking keyword keywords"},
    {0.6f, "space nasa astronomy"},
};

#define MAX_WORDS 1024

typedef struct entry {
    const char *word; /* NUL-terminated, points into words_raw or words_stem */
    uint16_t group;
    uint16_t index; /* word index inside the group */
} entry;

static char words_raw[MAX_WORDS][LP_TEXT_TOKEN_MAX + 1];
static char words_stem[MAX_WORDS][LP_TEXT_TOKEN_MAX + 1];
static uint16_t group_first[LP_ARRAY_LEN(groups) + 1]; /* word index range of a group */
static entry raw_idx[MAX_WORDS], stem_idx[MAX_WORDS];
static size_t nwords;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int entry_cmp(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    int c = strcmp(x->word, y->word);
    if (c)
        return c;
    return x->group < y->group ? -1 : x->group > y->group ? 1 : 0;
}

static void build(void)
{
    for (size_t g = 0; g < LP_ARRAY_LEN(groups); g++) {
        group_first[g] = (uint16_t)nwords;
        const char *p = groups[g].words;
        while (*p) {
            while (*p == ' ')
                p++;
            size_t n = 0;
            while (p[n] && p[n] != ' ')
                n++;
            if (n == 0)
                break;
            if (nwords == MAX_WORDS || n > LP_TEXT_TOKEN_MAX)
                abort(); /* a programming error in the table above */
            memcpy(words_raw[nwords], p, n);
            words_raw[nwords][n] = '\0';
            lp_text_stem((lp_str){p, n}, words_stem[nwords]);
            raw_idx[nwords] = (entry){words_raw[nwords], (uint16_t)g, (uint16_t)nwords};
            stem_idx[nwords] = (entry){words_stem[nwords], (uint16_t)g, (uint16_t)nwords};
            nwords++;
            p += n;
        }
    }
    group_first[LP_ARRAY_LEN(groups)] = (uint16_t)nwords;
    qsort(raw_idx, nwords, sizeof(entry), entry_cmp);
    qsort(stem_idx, nwords, sizeof(entry), entry_cmp);
}

size_t lp_text_synonym_group_count(void) { return LP_ARRAY_LEN(groups); }

/* First index in idx whose word equals term, or nwords. */
static size_t lower_bound(const entry *idx, lp_str term)
{
    size_t lo = 0, hi = nwords;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (lp_str_cmp(lp_str_c(idx[mid].word), term) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t lp_text_synonyms(lp_str term, bool stemmed, lp_text_expansion *out, size_t cap)
{
    pthread_once(&once, build);
    if (term.len == 0 || term.len > LP_TEXT_TOKEN_MAX)
        return 0;
    const entry *idx = stemmed ? stem_idx : raw_idx;
    char(*forms)[LP_TEXT_TOKEN_MAX + 1] = stemmed ? words_stem : words_raw;
    /* Candidates: (word index, weight), deduplicated by text keeping the best weight. */
    struct cand {
        const char *w;
        float weight;
        uint16_t order;
    } cands[128];
    size_t nc = 0;
    for (size_t i = lower_bound(idx, term); i < nwords && lp_str_eq_c(term, idx[i].word);
         i++) {
        size_t g = idx[i].group;
        for (size_t w = group_first[g]; w < group_first[g + 1]; w++) {
            const char *text = forms[w];
            if (lp_str_eq_c(term, text))
                continue;
            size_t j = 0;
            while (j < nc && strcmp(cands[j].w, text) != 0)
                j++;
            if (j < nc) {
                if (groups[g].weight > cands[j].weight)
                    cands[j].weight = groups[g].weight;
                continue;
            }
            if (nc == LP_ARRAY_LEN(cands))
                continue;
            cands[nc++] = (struct cand){text, groups[g].weight, (uint16_t)w};
        }
    }
    /* Best weight first, then table order (insertion sort: nc is small). */
    for (size_t i = 1; i < nc; i++) {
        struct cand c = cands[i];
        size_t j = i;
        while (j > 0 && (cands[j - 1].weight < c.weight ||
                         (cands[j - 1].weight == c.weight && cands[j - 1].order > c.order))) {
            cands[j] = cands[j - 1];
            j--;
        }
        cands[j] = c;
    }
    for (size_t i = 0; i < nc && i < cap; i++)
        out[i] = (lp_text_expansion){lp_str_c(cands[i].w), cands[i].weight};
    return nc;
}
