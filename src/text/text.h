/*
 * text.h: the contract of src/text, loupe's shared tokenizer.
 *
 * One tokenizer serves every text consumer: tool-catalog search (src/catalog), the code
 * search FTS5 tokenizer (to come: a thin wrapper, see "FTS5" below) and the embedding
 * trainer. It does:
 *
 *   1. Unicode normalization and case folding (utf8proc): each codepoint is decomposed
 *      with compatibility mappings and full case folding (NFKD + casefold, so "ß" -> "ss",
 *      "ﬁ" -> "fi", "Ａ" -> "a"), and the combining marks U+0300..U+036F are dropped
 *      ("é" -> "e", "İ" -> "i"). Other scripts keep their marks. Turkish dotless "ı"
 *      stays "ı" (Unicode's default folding; no locale rules). Output is NFKD-ordered,
 *      not recomposed: a query and a document are folded the same way, which is what
 *      matching needs.
 *   2. Word runs: letters, digits, marks and '_' (and '-' between two letters or digits
 *      when LP_TEXT_JOIN_HYPHEN is set) form one run; anything else separates runs.
 *      Invalid UTF-8 never fails: each invalid byte acts as a separator (it is skipped).
 *      CJK ideographs and kana are one token per character (no dictionary segmentation).
 *   3. Identifier splitting inside a run: '_' and '-', lower->upper ("getUrl"), an upper
 *      run before upper+lower ("HTTPServer" -> http, server; "getURLForID" -> get, url,
 *      for, id), letter<->digit ("sha256" -> sha, 256), and a plural 's' after an acronym
 *      stays with it ("IDs" -> ids). A run with several parts also yields the whole
 *      identifier, folded as written ("getURLForID" -> "geturlforid", "create_issue" ->
 *      "create_issue"), right after the run's first emitted part and colocated with it.
 *   4. Optional prose processing: a conservative Porter stemmer (steps 1a, 1b, 1c, 5a) and
 *      English stopwords; see lp_text_stem and lp_text_is_stopword.
 *
 * Bounds: a token is at most LP_TEXT_TOKEN_MAX bytes after folding (longer ones are cut at
 * a codepoint boundary and flagged LP_TEXT_TOK_TRUNCATED); a run longer than
 * LP_TEXT_RUN_MAX codepoints is split as if a separator stood there. Work is linear in
 * the input.
 *
 * FTS5: an fts5_tokenizer wrapper creates one lp_text_tokenizer in xCreate, calls
 * lp_text_tokenize in xTokenize and maps each token to xToken(ctx, flags, text, len,
 * start, end), passing FTS5_TOKEN_COLOCATED when tok->flags has LP_TEXT_TOK_COLOCATED.
 * Tokens arrive in position order and `position` is the position FTS5 will assign.
 * A non-zero return from the callback (an SQLite error code) stops the tokenizer and is
 * returned unchanged.
 *
 * Thread safety: an lp_text_tokenizer is used by one thread at a time; the free functions
 * (stemmer, stopwords, synonyms, fuzzy helpers) are safe from any thread.
 */
#ifndef LP_TEXT_H
#define LP_TEXT_H

#include "core/core.h"

#define LP_TEXT_TOKEN_MAX 64 /* bytes of one folded token */
#define LP_TEXT_RUN_MAX 256  /* codepoints of one word run before a forced break */
#define LP_TEXT_FUZZY_MAX 64 /* codepoints compared by lp_text_edit_distance */

/* Tokenizer options (bit flags). */
enum {
    LP_TEXT_SPLIT_IDENT = 1u << 0, /* split identifiers into parts (else one token per run) */
    LP_TEXT_KEEP_WHOLE = 1u << 1,  /* with SPLIT_IDENT: also emit the whole identifier */
    LP_TEXT_JOIN_HYPHEN = 1u << 2, /* '-' between alphanumerics joins a run (kebab-case) */
    LP_TEXT_STEM = 1u << 3,        /* stem parts with lp_text_stem */
    LP_TEXT_STOPWORDS = 1u << 4,   /* drop parts that are stopwords (before stemming) */
};
#define LP_TEXT_CODE (LP_TEXT_SPLIT_IDENT | LP_TEXT_KEEP_WHOLE | LP_TEXT_JOIN_HYPHEN)
#define LP_TEXT_PROSE (LP_TEXT_CODE | LP_TEXT_STEM | LP_TEXT_STOPWORDS)

/* Token flags. */
enum {
    LP_TEXT_TOK_PART = 1u << 0,      /* one part of a run that has several parts */
    LP_TEXT_TOK_WHOLE = 1u << 1,     /* the whole identifier of a run with several parts */
    LP_TEXT_TOK_COLOCATED = 1u << 2, /* same position as the previous token */
    LP_TEXT_TOK_TRUNCATED = 1u << 3, /* cut at LP_TEXT_TOKEN_MAX bytes */
    LP_TEXT_TOK_STEMMED = 1u << 4,   /* text differs from the folded form by stemming */
    LP_TEXT_TOK_CJK = 1u << 5,       /* a single CJK ideograph or kana */
    LP_TEXT_TOK_NUMBER = 1u << 6,    /* digits only */
};

typedef struct lp_text_token {
    const char *text; /* folded bytes, NUL-terminated; borrowed, valid during the callback */
    size_t len;       /* <= LP_TEXT_TOKEN_MAX */
    size_t start;     /* byte offsets of the source span in the input: [start, end) */
    size_t end;
    uint32_t position; /* 0-based; a WHOLE token shares the position of the run's first
                        * emitted part (or takes its own if every part was a stopword) */
    uint32_t flags;    /* LP_TEXT_TOK_* */
} lp_text_token;

/* Return 0 to continue; any other value stops tokenization and is returned by
 * lp_text_tokenize. */
typedef int (*lp_text_token_fn)(void *ctx, const lp_text_token *tok);

typedef struct lp_text_tokenizer lp_text_tokenizer;

/* Caller frees with lp_text_tokenizer_free (NULL is a no-op). Never NULL. */
lp_text_tokenizer *lp_text_tokenizer_new(unsigned options);
void lp_text_tokenizer_free(lp_text_tokenizer *tk);

/* Tokenize input, calling fn for each token in order. Emission order inside a run with
 * several parts: the first emitted part, the WHOLE token (colocated), the other parts.
 * Returns 0, or the
 * callback's non-zero value. Never fails on content (invalid UTF-8, NUL bytes, any size). */
int lp_text_tokenize(lp_text_tokenizer *tk, lp_str input, lp_text_token_fn fn, void *ctx);

/* Fold a whole string (normalization, case folding, mark stripping as above) without
 * splitting; separators are kept as they are; invalid bytes become U+FFFD. Appends to out. */
void lp_text_fold(lp_str in, lp_buf *out);

/* The "squashed" form of an identifier: its folded parts concatenated without separators
 * ("create_issue", "createIssue", "Create-Issue" -> "createissue"). Appends to out. Useful
 * to compare names across naming conventions. */
void lp_text_squash(lp_str in, lp_buf *out);
/* The same with a caller's tokenizer (created with LP_TEXT_SQUASH), for loops. */
#define LP_TEXT_SQUASH (LP_TEXT_SPLIT_IDENT | LP_TEXT_JOIN_HYPHEN)
void lp_text_squash_with(lp_text_tokenizer *tk, lp_str in, lp_buf *out);

/* ------------------------------------------------------------------------------------------
 * Stemming and stopwords (ASCII English; other words are returned unchanged).
 *
 * lp_text_stem applies Porter's step 1 and step 5a (Porter 1980: 1a sses->ss, ies->i, s->;
 * 1b (m>0)eed->ee, (*v*)ed->, (*v*)ing-> with the at/bl/iz/double-consonant/cvc repairs;
 * 1c (*v*)y->i; 5a (m>1)e->, (m=1 and not *o)e->), so "create", "created", "creating"
 * and "creates" all give "creat". It is made conservative in two ways: words shorter than
 * 4 bytes are left alone ("aws", "dns", "ids"), and a final 's' after 's', 'u' or 'i' is
 * kept ("status", "analysis", "redis"); Porter2's invariant words (andes, atlas, bias,
 * cosmos, news) are left whole, so "news" is not "new". Derivational steps 2-4 are not
 * applied. Only words of lowercase ASCII letters are stemmed.
 * word is folded text; the stem is written to out (at most LP_TEXT_TOKEN_MAX bytes + NUL)
 * and its length returned. */
size_t lp_text_stem(lp_str word, char out[LP_TEXT_TOKEN_MAX + 1]);

/* True for English function words and conversational filler that carry no intent in a
 * query ("the", "can", "please", "would", ...). Verbs that name actions (get, find, list,
 * make, show, send, ...) are never stopwords. word is folded, unstemmed. */
bool lp_text_is_stopword(lp_str word);

/* ------------------------------------------------------------------------------------------
 * Synonyms: a small curated table of programming-action and common-domain groups (get/
 * fetch/retrieve/load/read, remove/delete/drop/erase, create/add/new/make/insert, ...).
 *
 * An expansion is another member of a group the term belongs to, with the group's weight
 * (0 < weight < 1: a synonym always counts less than the literal term). A term in several
 * groups gets the union; a target reached through several groups keeps its highest weight.
 * The term itself is never returned. When stemmed is true, term is compared in stemmed
 * form and expansions are returned stemmed (as lp_text_stem makes them), so callers that
 * index stemmed text look up directly.
 *
 * Returns the number of expansions (which may exceed cap: only cap are written, best
 * weight first, ties in table order). out[i].term points into static storage. */
typedef struct lp_text_expansion {
    lp_str term;
    float weight;
} lp_text_expansion;

size_t lp_text_synonyms(lp_str term, bool stemmed, lp_text_expansion *out, size_t cap);
/* Number of groups in the table (for stats and tests). */
size_t lp_text_synonym_group_count(void);

/* ------------------------------------------------------------------------------------------
 * Fuzzy helpers. */

/* Optimal-string-alignment edit distance (insert, delete, substitute, swap adjacent) over
 * codepoints, bounded: returns the distance if it is <= max, else max + 1. Inputs longer
 * than LP_TEXT_FUZZY_MAX codepoints return max + 1 unless byte-identical. O(len * max). */
size_t lp_text_edit_distance(lp_str a, lp_str b, size_t max);

/* Byte trigrams of a folded term, packed as (b0 << 16 | b1 << 8 | b2), in order, duplicates
 * kept. Returns the number of trigrams (len - 2, or 0), writing at most cap. */
size_t lp_text_trigrams(lp_str term, uint32_t *out, size_t cap);

/* ------------------------------------------------------------------------------------------
 * SQLite FTS5: register the "loupe" tokenizer on a connection (call once per connection,
 * before touching an FTS5 table that uses it). Options: tokenize='loupe' or 'loupe stem'
 * (stemmed forms colocated with the literal ones). Returns an SQLite result code. */
struct sqlite3;
struct fts5_api;
int lp_text_fts5_register(struct sqlite3 *db);
/* The FTS5 extension API of db (borrowed, lives as long as db) into *out: SQLITE_OK, else the
 * SQLite error code and *out = NULL. For registering FTS5 functions and tokenizers. */
int lp_text_fts5_api(struct sqlite3 *db, struct fts5_api **out);

#endif
