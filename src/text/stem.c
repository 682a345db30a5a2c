/*
 * stem.c: the conservative Porter step 1 stemmer and the English stopword list (text.h).
 *
 * Porter, "An algorithm for suffix stripping" (1980), steps 1a, 1b, 1c and 5a only: they
 * fold plurals, -ed/-ing forms and a final -e ("issues"/"issue" -> "issu", "created"/
 * "create" -> "creat", "running" -> "run", "queries"/"query" -> "queri") without the
 * derivational steps 2-4 that merge unrelated words ("general"/"generate"). Two guards
 * keep identifiers intact: words under 4 bytes are not stemmed, and a final 's' after
 * 's', 'u' or 'i' stays. Porter2's invariant words ("news", "atlas", ...) are not plurals
 * and stay whole.
 */
#include "text/text.h"

#include <pthread.h>

static bool is_cons(const char *w, size_t i)
{
    switch (w[i]) {
    case 'a':
    case 'e':
    case 'i':
    case 'o':
    case 'u':
        return false;
    case 'y':
        return i == 0 ? true : !is_cons(w, i - 1);
    default:
        return true;
    }
}

/* Porter's m: the number of VC sequences in w[0, k). */
static int measure(const char *w, size_t k)
{
    int m = 0;
    size_t i = 0;
    while (i < k && is_cons(w, i))
        i++;
    while (i < k) {
        while (i < k && !is_cons(w, i))
            i++;
        if (i >= k)
            break;
        while (i < k && is_cons(w, i))
            i++;
        m++;
    }
    return m;
}

static bool has_vowel(const char *w, size_t k)
{
    for (size_t i = 0; i < k; i++)
        if (!is_cons(w, i))
            return true;
    return false;
}

static bool ends(const char *w, size_t k, const char *suffix)
{
    size_t n = strlen(suffix);
    return k >= n && memcmp(w + k - n, suffix, n) == 0;
}

/* cvc where the last c is not w, x or y ("hop", not "how"). */
static bool cvc(const char *w, size_t k)
{
    if (k < 3 || !is_cons(w, k - 3) || is_cons(w, k - 2) || !is_cons(w, k - 1))
        return false;
    char c = w[k - 1];
    return c != 'w' && c != 'x' && c != 'y';
}

/* Words that end like a plural but are not one, left as they are (the invariant forms of
 * Porter2, Porter's own revision: "news" must not become "new"). */
static bool invariant(const char *w, size_t k)
{
    static const char *const words[] = {"andes", "atlas", "bias", "cosmos", "news"};
    if (k > 6 || w[k - 1] != 's')
        return false;
    for (size_t i = 0; i < LP_ARRAY_LEN(words); i++)
        if (strlen(words[i]) == k && !memcmp(w, words[i], k))
            return true;
    return false;
}

size_t lp_text_stem(lp_str word, char out[LP_TEXT_TOKEN_MAX + 1])
{
    size_t k = LP_MIN(word.len, (size_t)LP_TEXT_TOKEN_MAX);
    memcpy(out, word.ptr, k);
    out[k] = '\0';
    if (k < 4)
        return k;
    for (size_t i = 0; i < k; i++)
        if (out[i] < 'a' || out[i] > 'z')
            return k;
    char *w = out;
    if (invariant(w, k))
        return k;
    /* Step 1a. */
    if (ends(w, k, "sses")) {
        k -= 2;
    } else if (ends(w, k, "ies")) {
        k -= 2;
    } else if (w[k - 1] == 's' && w[k - 2] != 's' && w[k - 2] != 'u' && w[k - 2] != 'i') {
        k -= 1;
    }
    /* Step 1b. */
    bool repair = false;
    if (ends(w, k, "eed")) {
        if (measure(w, k - 3) > 0)
            k -= 1;
    } else if (ends(w, k, "ed") && has_vowel(w, k - 2)) {
        k -= 2;
        repair = true;
    } else if (ends(w, k, "ing") && has_vowel(w, k - 3)) {
        k -= 3;
        repair = true;
    }
    if (repair) {
        if (ends(w, k, "at") || ends(w, k, "bl") || ends(w, k, "iz")) {
            w[k++] = 'e';
        } else if (k >= 2 && w[k - 1] == w[k - 2] && is_cons(w, k - 1) && w[k - 1] != 'l' &&
                   w[k - 1] != 's' && w[k - 1] != 'z') {
            k -= 1;
        } else if (measure(w, k) == 1 && cvc(w, k)) {
            w[k++] = 'e';
        }
    }
    /* Step 1c. */
    if (k >= 2 && w[k - 1] == 'y' && has_vowel(w, k - 1))
        w[k - 1] = 'i';
    /* Step 5a: (m>1) e -> ; (m=1 and not *o) e -> . Without it "retrieved" and
     * "retrieve" would not meet (step 1b strips -ed, nothing strips the bare -e). */
    if (k >= 4 && w[k - 1] == 'e') {
        int m = measure(w, k - 1);
        if (m > 1 || (m == 1 && !cvc(w, k - 1)))
            k -= 1;
    }
    w[k] = '\0';
    return k;
}

/* Sorted (strcmp order) for binary search; checked by a unit test. */
static const char *const stopwords[] = {
    "a",        "about",      "above",     "actually", "after",   "again",   "against",
    "all",      "also",       "am",        "an",       "and",     "any",     "anyone",
    "anything", "are",        "aren",      "as",       "at",      "be",      "because",
    "been",     "before",     "being",     "below",    "between", "both",    "but",
    "by",       "can",        "cannot",    "could",    "couldn",  "d",       "did",
    "didn",     "do",         "does",      "doesn",    "doing",   "don",     "during",
    "each",     "either",     "else",      "ever",     "every",   "few",     "for",
    "from",     "further",    "had",       "hadn",     "has",     "hasn",    "have",
    "haven",    "having",     "he",        "hello",    "her",     "here",    "hers",
    "herself",  "hey",        "hi",        "him",      "himself", "his",     "how",
    "i",        "if",         "in",        "into",     "is",      "isn",     "it",
    "its",      "itself",     "just",      "kindly",   "let",     "ll",      "m",
    "may",      "maybe",      "me",        "might",    "mine",    "more",    "most",
    "much",     "must",       "my",        "myself",   "need",    "needs",   "no",
    "nor",      "not",        "now",       "of",        "off",      "often",   "on",      "once",
    "only",     "or",         "other",     "ought",    "our",     "ours",    "ourselves",
    "over",     "own",        "please",    "re",       "really",  "s",       "same",
    "shall",    "she",        "should",    "so",       "some",    "someone", "something",
    "such",     "t",          "than",      "thank",    "thanks",  "that",    "the",
    "their",    "theirs",     "them",      "themselves", "then",  "there",   "these",
    "they",     "this",       "those",     "through",  "thus",    "to",      "too",
    "until",    "upon",       "us",        "ve",       "very",    "via",     "want",
    "wanted",   "wants",      "was",       "wasn",     "we",      "were",    "weren",
    "what",     "whatever",   "when",      "where",    "whether", "which",   "while",
    "who",      "whom",       "whose",     "why",      "will",    "with",    "within",
    "without",  "won",        "would",     "wouldn",   "yes",     "yet",     "you",
    "your",     "yours",      "yourself",  "yourselves",
};

/* Open-addressing set over the list, built once: one hash and usually one compare per
 * token (the tokenizer asks for every prose token). */
#define STOP_SLOTS 1024
static uint16_t stop_table[STOP_SLOTS]; /* index + 1, 0 = empty */
static pthread_once_t stop_once = PTHREAD_ONCE_INIT;

static uint32_t stop_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static void stop_build(void)
{
    for (size_t i = 0; i < LP_ARRAY_LEN(stopwords); i++) {
        uint32_t k = stop_hash(stopwords[i], strlen(stopwords[i])) & (STOP_SLOTS - 1);
        while (stop_table[k])
            k = (k + 1) & (STOP_SLOTS - 1);
        stop_table[k] = (uint16_t)(i + 1);
    }
}

bool lp_text_is_stopword(lp_str word)
{
    if (word.len == 0 || word.len > 12)
        return false;
    pthread_once(&stop_once, stop_build);
    for (uint32_t k = stop_hash(word.ptr, word.len) & (STOP_SLOTS - 1); stop_table[k];
         k = (k + 1) & (STOP_SLOTS - 1)) {
        const char *w = stopwords[stop_table[k] - 1];
        if (!strncmp(w, word.ptr, word.len) && w[word.len] == '\0')
            return true;
    }
    return false;
}

/* For the unit test that the table stays sorted. */
bool lp_text_stopwords_sorted_(void);
bool lp_text_stopwords_sorted_(void)
{
    for (size_t i = 1; i < LP_ARRAY_LEN(stopwords); i++)
        if (strcmp(stopwords[i - 1], stopwords[i]) >= 0)
            return false;
    return true;
}
