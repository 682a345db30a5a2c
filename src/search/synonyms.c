/*
 * synonyms.c: the curated programming synonym table of the lexical channel.
 *
 * Each group lists words a developer uses for one idea in code ("fetch" for a function
 * named load_user). A query word in a group expands to the group's other words at the
 * group's weight (always < 1, so a literal match outranks a synonym; rank.c lets only the
 * strongest expansion of a word count). Keep groups small and about code: a group that
 * merges distinct intents (read vs write) costs more than a missing one. Words are folded,
 * unstemmed; lookups also try the word's stem, so "fetching" finds the "fetch" group.
 *
 * Abbreviations (buf/buffer, ctx/context, cfg/config, ...) are a second table: the same
 * word written short, expanding both ways. fallback.c uses them for a word the index lacks
 * and joins them into compounds ("ring buffer" -> ringbuf); applied to every word they
 * cost quality on the development kit (decision 0014), so lp_code_synonyms leaves them out.
 */
#include "search/search_int.h"

#include "text/text.h"

typedef struct syn_group {
    float weight;
    const char *words; /* space separated */
} syn_group;

static const syn_group groups[] = {
    {0.6f, "get fetch retrieve load obtain lookup"},
    {0.6f, "remove delete drop erase unlink evict"},
    {0.6f, "create new make build construct alloc allocate"},
    {0.6f, "add insert append push put"},
    {0.6f, "auth authenticate authentication login signin credential credentials"},
    {0.6f, "config configuration settings setting options preferences conf cfg"},
    {0.6f, "find search lookup locate scan"},
    {0.6f, "update modify change set patch"},
    {0.6f, "start begin launch spawn run"},
    {0.6f, "stop halt terminate kill shutdown close cancel abort"},
    {0.6f, "check verify validate ensure assert"},
    {0.6f, "parse decode unmarshal deserialize read"},
    {0.6f, "serialize encode marshal format write dump"},
    {0.6f, "convert transform cast coerce"},
    {0.6f, "compare equal equals cmp diff"},
    {0.6f, "copy clone duplicate dup"},
    {0.6f, "send write emit dispatch publish post"},
    {0.6f, "receive recv read accept consume"},
    {0.6f, "error err failure fault exception panic"},
    {0.6f, "connection conn socket"},
    {0.6f, "request req"},
    {0.6f, "response resp reply"},
    {0.6f, "message msg"},
    {0.6f, "argument arg args param parameter params"},
    {0.6f, "directory dir folder"},
    {0.6f, "file path filename"},
    {0.6f, "buffer buf"},
    {0.6f, "length len size count"},
    {0.6f, "number num int integer"},
    {0.6f, "string str text"},
    {0.6f, "character char rune"},
    {0.6f, "initialize init setup"},
    {0.6f, "cleanup teardown release free dispose destroy"},
    {0.6f, "retry reattempt backoff"},
    {0.6f, "timeout deadline expire expiry"},
    {0.6f, "cache memoize memo"},
    {0.6f, "lock mutex synchronize sync"},
    {0.6f, "iterate iterator iter loop walk traverse visit"},
    {0.6f, "sort order rank"},
    {0.6f, "split tokenize separate"},
    {0.6f, "join concat concatenate merge combine"},
    {0.6f, "escape quote sanitize"},
    {0.6f, "log logger logging trace"},
    {0.6f, "print display show render"},
    {0.6f, "hash digest checksum"},
    {0.6f, "random rand rng"},
    {0.6f, "callback handler hook listener"},
    {0.6f, "user account"},
    {0.6f, "token jwt"},
    {0.6f, "password passwd secret"},
    {0.6f, "environment env"},
    {0.6f, "database db"},
    {0.6f, "temporary temp tmp"},
    {0.6f, "maximum max limit"},
    {0.6f, "minimum min"},
    {0.6f, "previous prev"},
    {0.6f, "current cur"},
    {0.6f, "execute exec invoke call apply"},
    {0.6f, "wait block sleep"},
    {0.6f, "empty blank"},
    {0.6f, "remaining rest left"},
    {0.6f, "ring circular cyclic"},
};

/* Abbreviations: short form, then the long forms it stands for (space separated). A short
 * form that stands for several words lists each; a long form can have several short ones
 * (configuration: cfg, conf, config). */
#define ABBREV_WEIGHT 0.8f
typedef struct abbrev {
    const char *short_form;
    const char *long_forms;
} abbrev;

static const abbrev abbrevs[] = {
    {"buf", "buffer"},
    {"bufs", "buffers"},
    {"ctx", "context"},
    {"cfg", "config configuration"},
    {"conf", "config configuration"},
    {"config", "configuration"},
    {"msg", "message"},
    {"msgs", "messages"},
    {"req", "request"},
    {"resp", "response"},
    {"res", "result response"},
    {"err", "error"},
    {"errs", "errors"},
    {"str", "string"},
    {"num", "number"},
    {"idx", "index"},
    {"len", "length"},
    {"ptr", "pointer"},
    {"addr", "address"},
    {"alloc", "allocate allocation allocator"},
    {"init", "initialize initialise initialization"},
    {"auth", "authentication authenticate authorization"},
    {"db", "database"},
    {"dir", "directory"},
    {"dirs", "directories"},
    {"env", "environment"},
    {"fn", "function"},
    {"func", "function"},
    {"funcs", "functions"},
    {"arg", "argument"},
    {"args", "arguments"},
    {"param", "parameter"},
    {"params", "parameters"},
    {"attr", "attribute"},
    {"attrs", "attributes"},
    {"val", "value"},
    {"vals", "values"},
    {"var", "variable"},
    {"vars", "variables"},
    {"tmp", "temporary"},
    {"temp", "temporary"},
    {"src", "source"},
    {"dst", "destination"},
    {"dest", "destination"},
    {"mgr", "manager"},
    {"impl", "implementation"},
    {"util", "utility"},
    {"utils", "utilities"},
    {"sync", "synchronize synchronise synchronous"},
    {"async", "asynchronous"},
    {"cb", "callback"},
    {"evt", "event"},
    {"cnt", "count"},
    {"pos", "position"},
    {"prev", "previous"},
    {"cur", "current"},
    {"curr", "current"},
    {"obj", "object"},
    {"pkg", "package"},
    {"lib", "library"},
    {"proc", "process procedure"},
    {"stat", "statistic"},
    {"stats", "statistics"},
    {"info", "information"},
    {"spec", "specification"},
    {"kw", "keyword"},
    {"repo", "repository"},
    {"ref", "reference"},
    {"refs", "references"},
    {"exc", "exception"},
    {"cmd", "command"},
    {"conn", "connection"},
    {"sock", "socket"},
    {"opt", "option"},
    {"opts", "options"},
    {"elem", "element"},
    {"seq", "sequence"},
    {"iter", "iterator iterate"},
    {"hdr", "header"},
    {"img", "image"},
    {"col", "column"},
    {"dict", "dictionary"},
    {"desc", "description"},
    {"doc", "document documentation"},
    {"docs", "documents documentation"},
    {"ver", "version"},
    {"txn", "transaction"},
    {"ns", "namespace"},
    {"mod", "module"},
    {"fmt", "format"},
    {"calc", "calculate"},
    {"char", "character"},
    {"chars", "characters"},
    {"max", "maximum"},
    {"min", "minimum"},
    {"exec", "execute"},
};

/* True when w (or its stem, given) is a word of the group, compared as written and as
 * stems ("deleting" and "delete" both stem to "delet"). */
static bool in_group(const char *words, lp_str w, lp_str wstem)
{
    const char *p = words;
    while (*p) {
        const char *e = strchr(p, ' ');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == w.len && !memcmp(p, w.ptr, n))
            return true;
        char st[LP_TEXT_TOKEN_MAX + 1];
        size_t sn = n <= LP_TEXT_TOKEN_MAX ? lp_text_stem((lp_str){p, n}, st) : 0;
        if (sn && sn == wstem.len && !memcmp(st, wstem.ptr, sn))
            return true;
        if (!e)
            break;
        p = e + 1;
    }
    return false;
}

static void add_words(const syn_group *g, lp_str skip1, lp_str skip2, lp_code_syn *out,
                      size_t cap, size_t *n)
{
    static __thread char pool[64][LP_TEXT_TOKEN_MAX + 1];
    static __thread size_t pool_next;
    const char *p = g->words;
    while (*p && *n < cap) {
        const char *e = strchr(p, ' ');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        lp_str w = {p, len};
        bool skip = lp_str_eq(w, skip1) || lp_str_eq(w, skip2) || len > LP_TEXT_TOKEN_MAX;
        for (size_t i = 0; i < *n && !skip; i++)
            skip = lp_str_eq_c(w, out[i].word);
        if (!skip) {
            char *slot = pool[pool_next++ % LP_ARRAY_LEN(pool)];
            memcpy(slot, p, len);
            slot[len] = 0;
            out[(*n)++] = (lp_code_syn){slot, g->weight};
        }
        if (!e)
            break;
        p = e + 1;
    }
}

/* Put w (from static storage) into out unless it is the word, its stem or already there. */
static void put_form(lp_str w, float weight, lp_str word, lp_str stem, lp_code_syn *out,
                     size_t cap, size_t *n)
{
    static __thread char pool[64][LP_TEXT_TOKEN_MAX + 1];
    static __thread size_t pool_next;
    if (*n >= cap || w.len == 0 || w.len > LP_TEXT_TOKEN_MAX || lp_str_eq(w, word) ||
        lp_str_eq(w, stem))
        return;
    for (size_t i = 0; i < *n; i++)
        if (lp_str_eq_c(w, out[i].word))
            return;
    char *slot = pool[pool_next++ % LP_ARRAY_LEN(pool)];
    memcpy(slot, w.ptr, w.len);
    slot[w.len] = 0;
    out[(*n)++] = (lp_code_syn){slot, weight};
}

size_t lp_code_abbrevs(lp_str word, lp_code_syn *out, size_t cap)
{
    if (word.len == 0 || word.len > LP_TEXT_TOKEN_MAX)
        return 0;
    char st[LP_TEXT_TOKEN_MAX + 1];
    size_t sn = lp_text_stem(word, st);
    lp_str stem = {st, sn};
    size_t n = 0;
    for (size_t i = 0; i < LP_ARRAY_LEN(abbrevs) && n < cap; i++) {
        const abbrev *a = &abbrevs[i];
        lp_str sf = lp_str_c(a->short_form);
        if (lp_str_eq(sf, word)) {
            /* The short form: every long form. */
            const char *p = a->long_forms;
            while (*p) {
                const char *e = strchr(p, ' ');
                size_t len = e ? (size_t)(e - p) : strlen(p);
                put_form((lp_str){p, len}, ABBREV_WEIGHT, word, stem, out, cap, &n);
                if (!e)
                    break;
                p = e + 1;
            }
        } else if (in_group(a->long_forms, word, stem)) {
            /* A long form (or an inflection of one): the short form. */
            put_form(sf, ABBREV_WEIGHT, word, stem, out, cap, &n);
        }
    }
    return n;
}

size_t lp_code_synonyms(lp_str word, lp_code_syn *out, size_t cap)
{
    if (word.len == 0 || word.len > LP_TEXT_TOKEN_MAX)
        return 0;
    char st[LP_TEXT_TOKEN_MAX + 1];
    size_t sn = lp_text_stem(word, st);
    lp_str stem = {st, sn};
    size_t n = 0;
    for (size_t g = 0; g < LP_ARRAY_LEN(groups) && n < cap; g++)
        if (in_group(groups[g].words, word, stem))
            add_words(&groups[g], word, stem, out, cap, &n);
    return n;
}
