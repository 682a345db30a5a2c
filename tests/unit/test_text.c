/*
 * test_text.c: the shared tokenizer (src/text): folding, identifier splitting, offsets,
 * stemming, stopwords, synonyms, fuzzy helpers, and hostile input.
 */
#include "t.h"
#include "text/text.h"

bool lp_text_stopwords_sorted_(void);

typedef struct collect {
    lp_buf out;
    size_t count;
    lp_text_token toks[64]; /* first 64 tokens, text not kept */
    bool positions_ok;
    uint32_t last_pos;
} collect;

static int collect_cb(void *ctx, const lp_text_token *tok)
{
    collect *c = ctx;
    if (c->out.len)
        lp_buf_putc(&c->out, ' ');
    if (tok->flags & LP_TEXT_TOK_WHOLE)
        lp_buf_printf(&c->out, "[%s]", tok->text);
    else
        lp_buf_puts(&c->out, tok->text);
    if (c->count < LP_ARRAY_LEN(c->toks))
        c->toks[c->count] = *tok;
    /* Positions: colocated tokens repeat the previous position, others advance by one. */
    if (c->count == 0) {
        c->positions_ok = tok->position == 0;
    } else if (tok->flags & LP_TEXT_TOK_COLOCATED) {
        c->positions_ok = c->positions_ok && tok->position == c->last_pos;
    } else {
        c->positions_ok = c->positions_ok && tok->position == c->last_pos + 1;
    }
    c->last_pos = tok->position;
    if (strlen(tok->text) != tok->len || tok->len > LP_TEXT_TOKEN_MAX || tok->start > tok->end)
        c->positions_ok = false;
    c->count++;
    return 0;
}

/* Tokenize s with opts and return the rendered token list (static buffer per call). */
static const char *toks(unsigned opts, const char *s, size_t len, collect *c)
{
    lp_buf_reset(&c->out);
    c->count = 0;
    c->positions_ok = true;
    lp_text_tokenizer *tk = lp_text_tokenizer_new(opts);
    lp_text_tokenize(tk, (lp_str){s, len}, collect_cb, c);
    lp_text_tokenizer_free(tk);
    return c->out.ptr;
}
#define TOKS(opts, s) toks((opts), (s), strlen(s), &c)

T_TEST(text_identifier_splitting)
{
    collect c = {0};
    lp_buf_init(&c.out, 0);
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "HTTPServer"), "http [httpserver] server");
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "getURLForID"), "get [geturlforid] url for id");
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "create_issue"), "create [create_issue] issue");
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "createIssue"), "create [createissue] issue");
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "CreateIssue"), "create [createissue] issue");
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "create-issue"), "create [create-issue] issue");
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "SCREAMING_SNAKE_CASE"),
                "screaming [screaming_snake_case] snake case");
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "sha256sum"), "sha [sha256sum] 256 sum");
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "base64Encode"), "base [base64encode] 64 encode");
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "getIDs"), "get [getids] ids");
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "listURLsForUser"), "list [listurlsforuser] urls for user");
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "XMLHttpRequest"), "xml [xmlhttprequest] http request");
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "iPhone"), "i [iphone] phone");
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "__init__"), "init [__init__]");
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "search"), "search");
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "a.b c/d"), "a b c d");
    /* Hyphens join only between alphanumerics, and only with JOIN_HYPHEN. */
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "foo- -bar"), "foo bar");
    T_CHECK_STR(TOKS(LP_TEXT_SPLIT_IDENT | LP_TEXT_KEEP_WHOLE, "kebab-case"), "kebab case");
    /* Without splitting: one token per run. */
    T_CHECK_STR(TOKS(0, "getURLForID create_issue"), "geturlforid create_issue");
    /* Without KEEP_WHOLE: parts only. */
    T_CHECK_STR(TOKS(LP_TEXT_SPLIT_IDENT, "getUserName"), "get user name");
done:
    lp_buf_release(&c.out);
}

T_TEST(text_offsets_and_positions)
{
    collect c = {0};
    lp_buf_init(&c.out, 0);
    const char *s = "  getURLForID(x) é";
    T_CHECK_STR(TOKS(LP_TEXT_CODE, s), "get [geturlforid] url for id x e");
    T_CHECK(c.positions_ok);
    T_CHECK_INT(c.toks[0].start, 2);
    T_CHECK_INT(c.toks[0].end, 5);
    T_CHECK(c.toks[1].flags & LP_TEXT_TOK_WHOLE);
    T_CHECK(c.toks[1].flags & LP_TEXT_TOK_COLOCATED);
    T_CHECK_INT(c.toks[1].start, 2);
    T_CHECK_INT(c.toks[1].end, 13);
    T_CHECK_INT(c.toks[1].position, 0);
    T_CHECK_INT(c.toks[2].start, 5); /* URL */
    T_CHECK_INT(c.toks[2].end, 8);
    T_CHECK_INT(c.toks[2].position, 1);
    T_CHECK_INT(c.toks[4].start, 11); /* ID */
    T_CHECK_INT(c.toks[4].end, 13);
    T_CHECK_INT(c.toks[5].start, 14); /* x */
    T_CHECK_INT(c.toks[6].start, 17); /* é: two bytes in the input, one in the token */
    T_CHECK_INT(c.toks[6].end, 19);
    T_CHECK_INT(c.toks[6].len, 1);
    T_CHECK_INT(c.toks[6].position, 5);
done:
    lp_buf_release(&c.out);
}

T_TEST(text_unicode_folding)
{
    collect c = {0};
    lp_buf_init(&c.out, 0);
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "Café Straße"), "cafe strasse");
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "ÉCOLE"), "ecole");
    /* Decomposed input folds the same as precomposed. */
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "Cafe\xcc\x81"), "cafe");
    /* Turkish: dotted capital I folds to i; dotless ı stays distinct. */
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "İstanbul ılık"), "istanbul ılık");
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "ΣΟΦΙΑ σοφία"), "σοφια σοφια");
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "Ｆｕｌｌ ﬁle ①"), "full file 1");
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "Привет Мир"), "привет мир");
    /* CJK: one token per ideograph or kana; Latin around it splits off. */
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "検索ツールAPI"), "検 索 ツ ー ル api");
    T_CHECK(c.toks[0].flags & LP_TEXT_TOK_CJK);
    T_CHECK_INT(c.toks[1].start, 3);
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "한국어 검색"), "한국어 검색");
    /* A caseless script next to Latin is a part boundary. */
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "fooПривет"), "foo [fooпривет] привет");
    lp_buf fold;
    lp_buf_init(&fold, 0);
    lp_text_fold(LP_STR("Grüße, İ!"), &fold);
    T_CHECK_STR(fold.ptr, "grusse, i!");
    lp_buf_reset(&fold);
    lp_text_squash(LP_STR("Create-Issue"), &fold);
    T_CHECK_STR(fold.ptr, "createissue");
    lp_buf_reset(&fold);
    lp_text_squash(LP_STR("github__createIssue"), &fold);
    T_CHECK_STR(fold.ptr, "githubcreateissue");
    lp_buf_release(&fold);
done:
    lp_buf_release(&c.out);
}

T_TEST(text_invalid_utf8_and_controls)
{
    collect c = {0};
    lp_buf_init(&c.out, 0);
    /* Invalid bytes separate words and are never part of a token. */
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "ab\xff" "cd \xc3 ef \xed\xa0\x80gh \xf4\x90\x80\x80ij"),
                "ab cd ef gh ij");
    T_CHECK(c.positions_ok);
    /* Overlong encodings and truncated sequences at the end. */
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "x\xc0\xafy\xe2\x82"), "x y");
    /* NUL bytes inside the input are separators. */
    const char nul[] = {'a', 'b', 0, 'c', 'd'};
    T_CHECK_STR(toks(LP_TEXT_CODE, nul, sizeof nul, &c), "ab cd");
    /* A lone combining mark has nothing to attach to. */
    T_CHECK_STR(TOKS(LP_TEXT_CODE, "\xcc\x81 x"), "x");
    /* Every byte value, in every position, never crashes and never yields an invalid token. */
    char all[512];
    for (int i = 0; i < 512; i++)
        all[i] = (char)(i * 7 + 3);
    toks(LP_TEXT_PROSE, all, sizeof all, &c);
    T_CHECK(c.positions_ok);
    lp_buf f;
    lp_buf_init(&f, 0);
    lp_text_fold((lp_str){"a\xff", 2}, &f);
    T_CHECK_STR(f.ptr, "a\xef\xbf\xbd");
    lp_buf_release(&f);
done:
    lp_buf_release(&c.out);
}

T_TEST(text_long_tokens_are_bounded)
{
    collect c = {0};
    lp_buf_init(&c.out, 0);
    lp_buf big;
    lp_buf_init(&big, 0);
    for (int i = 0; i < 100000; i++)
        lp_buf_putc(&big, 'a');
    toks(LP_TEXT_CODE, big.ptr, big.len, &c);
    T_CHECK(c.positions_ok);
    /* 100,000 letters: forced breaks every LP_TEXT_RUN_MAX codepoints, each token cut. */
    T_CHECK_INT(c.count, (100000 + LP_TEXT_RUN_MAX - 1) / LP_TEXT_RUN_MAX);
    T_CHECK_INT(c.toks[0].len, LP_TEXT_TOKEN_MAX);
    T_CHECK(c.toks[0].flags & LP_TEXT_TOK_TRUNCATED);
    T_CHECK_INT(c.toks[0].end - c.toks[0].start, LP_TEXT_RUN_MAX);
    /* Truncation happens at a codepoint boundary: 2-byte letters, odd cut. */
    lp_buf_reset(&big);
    for (int i = 0; i < 100; i++)
        lp_buf_puts(&big, "ж");
    lp_buf_puts(&big, "x");
    toks(LP_TEXT_CODE, big.ptr, big.len, &c);
    T_CHECK_INT(c.toks[0].len, 64);
    /* Alternating case: many parts, each bounded. */
    lp_buf_reset(&big);
    for (int i = 0; i < 5000; i++)
        lp_buf_puts(&big, "aB");
    toks(LP_TEXT_CODE, big.ptr, big.len, &c);
    T_CHECK(c.positions_ok);
    T_CHECK(c.count > 5000);
    lp_buf_release(&big);
done:
    lp_buf_release(&c.out);
}

static const char *stem(const char *w)
{
    static char out[LP_TEXT_TOKEN_MAX + 1];
    lp_text_stem(lp_str_c(w), out);
    return out;
}

T_TEST(text_porter_stemmer_steps_1_and_5a)
{
    /* Porter's own step 1 examples. */
    T_CHECK_STR(stem("caresses"), "caress");
    T_CHECK_STR(stem("ponies"), "poni");
    T_CHECK_STR(stem("caress"), "caress");
    T_CHECK_STR(stem("cats"), "cat");
    T_CHECK_STR(stem("feed"), "feed");
    T_CHECK_STR(stem("agreed"), "agre"); /* 1b gives "agree", 5a drops the e */
    T_CHECK_STR(stem("plastered"), "plaster");
    T_CHECK_STR(stem("bled"), "bled");
    T_CHECK_STR(stem("motoring"), "motor");
    T_CHECK_STR(stem("sing"), "sing");
    T_CHECK_STR(stem("conflated"), "conflat");
    T_CHECK_STR(stem("troubled"), "troubl");
    T_CHECK_STR(stem("sized"), "size"); /* m=1 and *o: the e stays */
    T_CHECK_STR(stem("hopping"), "hop");
    T_CHECK_STR(stem("falling"), "fall");
    T_CHECK_STR(stem("hissing"), "hiss");
    T_CHECK_STR(stem("failing"), "fail");
    T_CHECK_STR(stem("filing"), "file");
    T_CHECK_STR(stem("file"), "file");
    T_CHECK_STR(stem("retrieved"), stem("retrieve"));
    T_CHECK_STR(stem("deleted"), stem("delete"));
    T_CHECK_STR(stem("updating"), stem("update"));
    T_CHECK_STR(stem("happy"), "happi");
    T_CHECK_STR(stem("sky"), "sky");
    /* Porter2's invariant words: not plurals, so "news" is not "new". */
    T_CHECK_STR(stem("news"), "news");
    T_CHECK_STR(stem("atlas"), "atlas");
    T_CHECK_STR(stem("cosmos"), "cosmos");
    T_CHECK_STR(stem("newsletters"), "newsletter");
    /* What tool search needs: forms of one word meet. */
    T_CHECK_STR(stem("issues"), stem("issue"));
    T_CHECK_STR(stem("created"), stem("create"));
    T_CHECK_STR(stem("creating"), stem("create"));
    T_CHECK_STR(stem("queries"), stem("query"));
    T_CHECK_STR(stem("repositories"), stem("repository"));
    /* The conservative guards. */
    T_CHECK_STR(stem("aws"), "aws");
    T_CHECK_STR(stem("ids"), "ids");
    T_CHECK_STR(stem("status"), "status");
    T_CHECK_STR(stem("analysis"), "analysis");
    T_CHECK_STR(stem("redis"), "redis");
    T_CHECK_STR(stem("Files"), "Files"); /* not folded: left alone */
    T_CHECK_STR(stem("café"), "café");
    T_CHECK_STR(stem("v2s"), "v2s");
done:;
}

T_TEST(text_prose_mode_stems_and_drops_stopwords)
{
    collect c = {0};
    lp_buf_init(&c.out, 0);
    T_CHECK_STR(TOKS(LP_TEXT_PROSE, "Can you please list the open issues in my repositories?"),
                "list open issu repositori");
    T_CHECK(c.positions_ok);
    /* Whole identifiers are never stemmed; a stopword part is dropped, the whole stays. */
    T_CHECK_STR(TOKS(LP_TEXT_PROSE, "is_valid createdIssues"),
                "valid [is_valid] creat [createdissues] issu");
    T_CHECK(c.positions_ok);
    T_CHECK(c.toks[1].flags & LP_TEXT_TOK_WHOLE);
    T_CHECK(c.toks[1].flags & LP_TEXT_TOK_COLOCATED);
    T_CHECK_STR(TOKS(LP_TEXT_PROSE, "the_of"), "[the_of]");
    T_CHECK(c.toks[0].flags & LP_TEXT_TOK_WHOLE);
    T_CHECK(!(c.toks[0].flags & LP_TEXT_TOK_COLOCATED));
    T_CHECK_STR(TOKS(LP_TEXT_PROSE, "createdIssues"), "creat [createdissues] issu");
    T_CHECK(c.toks[2].flags & LP_TEXT_TOK_STEMMED);
    /* All stopwords: nothing. */
    T_CHECK_STR(TOKS(LP_TEXT_PROSE, "Can you do it for me?"), "");
    T_CHECK(lp_text_stopwords_sorted_());
    T_CHECK(lp_text_is_stopword(LP_STR("the")));
    T_CHECK(lp_text_is_stopword(LP_STR("please")));
    T_CHECK(!lp_text_is_stopword(LP_STR("get")));
    T_CHECK(!lp_text_is_stopword(LP_STR("list")));
    T_CHECK(!lp_text_is_stopword(LP_STR("find")));
    T_CHECK(!lp_text_is_stopword(LP_STR("")));
done:
    lp_buf_release(&c.out);
}

static bool has_expansion(const lp_text_expansion *e, size_t n, const char *term, float *w)
{
    for (size_t i = 0; i < n; i++)
        if (lp_str_eq_c(e[i].term, term)) {
            if (w)
                *w = e[i].weight;
            return true;
        }
    return false;
}

T_TEST(text_synonym_table)
{
    lp_text_expansion e[64];
    size_t n = lp_text_synonyms(LP_STR("delete"), false, e, LP_ARRAY_LEN(e));
    T_CHECK(n >= 5 && n <= LP_ARRAY_LEN(e));
    float w = 0;
    T_CHECK(has_expansion(e, n, "remove", &w));
    T_CHECK(w > 0.0f && w < 1.0f);
    T_CHECK(has_expansion(e, n, "erase", NULL));
    T_CHECK(!has_expansion(e, n, "delete", NULL)); /* never itself */
    T_CHECK(!has_expansion(e, n, "create", NULL));
    for (size_t i = 1; i < n; i++)
        T_CHECK(e[i - 1].weight >= e[i].weight);
    n = lp_text_synonyms(LP_STR("fetch"), false, e, LP_ARRAY_LEN(e));
    T_CHECK(has_expansion(e, n, "get", NULL) && has_expansion(e, n, "retrieve", NULL));
    n = lp_text_synonyms(LP_STR("login"), false, e, LP_ARRAY_LEN(e));
    T_CHECK(has_expansion(e, n, "authenticate", NULL) && has_expansion(e, n, "signin", NULL));
    n = lp_text_synonyms(LP_STR("preferences"), false, e, LP_ARRAY_LEN(e));
    T_CHECK(has_expansion(e, n, "config", NULL) && has_expansion(e, n, "settings", NULL));
    /* "create" is in two groups: the union, strongest weight kept. */
    n = lp_text_synonyms(LP_STR("create"), false, e, LP_ARRAY_LEN(e));
    T_CHECK(has_expansion(e, n, "insert", &w) && w == 0.7f);
    T_CHECK(has_expansion(e, n, "generate", &w) && w == 0.6f);
    /* Stemmed lookups take and give stemmed forms. */
    n = lp_text_synonyms(LP_STR("retriev"), true, e, LP_ARRAY_LEN(e));
    T_CHECK(has_expansion(e, n, "fetch", NULL));
    n = lp_text_synonyms(LP_STR("queri"), true, e, LP_ARRAY_LEN(e));
    T_CHECK(has_expansion(e, n, "search", NULL));
    /* Unknown and empty terms; cap smaller than the count. */
    T_CHECK_INT(lp_text_synonyms(LP_STR("zzzq"), false, e, LP_ARRAY_LEN(e)), 0);
    T_CHECK_INT(lp_text_synonyms(LP_STR(""), false, e, LP_ARRAY_LEN(e)), 0);
    size_t all = lp_text_synonyms(LP_STR("delete"), false, e, LP_ARRAY_LEN(e));
    e[1].weight = -1;
    T_CHECK_INT(lp_text_synonyms(LP_STR("delete"), false, e, 1), all);
    T_CHECK(e[1].weight == -1); /* untouched past cap */
    T_CHECK(lp_text_synonym_group_count() > 20);
done:;
}

T_TEST(text_edit_distance_and_trigrams)
{
    T_CHECK_INT(lp_text_edit_distance(LP_STR("search"), LP_STR("search"), 2), 0);
    T_CHECK_INT(lp_text_edit_distance(LP_STR("search"), LP_STR("serach"), 2), 1); /* swap */
    T_CHECK_INT(lp_text_edit_distance(LP_STR("search"), LP_STR("seach"), 2), 1);
    T_CHECK_INT(lp_text_edit_distance(LP_STR("search"), LP_STR("searches"), 2), 2);
    T_CHECK_INT(lp_text_edit_distance(LP_STR("search"), LP_STR("fetch"), 2), 3); /* > max */
    T_CHECK_INT(lp_text_edit_distance(LP_STR("kitten"), LP_STR("sitting"), 3), 3);
    T_CHECK_INT(lp_text_edit_distance(LP_STR("café"), LP_STR("cafe"), 1), 1); /* codepoints */
    T_CHECK_INT(lp_text_edit_distance(LP_STR(""), LP_STR("ab"), 2), 2);
    T_CHECK_INT(lp_text_edit_distance(LP_STR("a\xff"), LP_STR("a\xfe"), 2), 1);
    char longa[200], longb[200];
    memset(longa, 'a', sizeof longa);
    memset(longb, 'a', sizeof longb);
    longb[199] = 'b';
    T_CHECK_INT(lp_text_edit_distance((lp_str){longa, 200}, (lp_str){longb, 200}, 2), 3);
    T_CHECK_INT(lp_text_edit_distance((lp_str){longa, 200}, (lp_str){longa, 200}, 2), 0);
    uint32_t tri[8];
    T_CHECK_INT(lp_text_trigrams(LP_STR("abcd"), tri, 8), 2);
    T_CHECK(tri[0] == ((uint32_t)'a' << 16 | 'b' << 8 | 'c'));
    T_CHECK(tri[1] == ((uint32_t)'b' << 16 | 'c' << 8 | 'd'));
    T_CHECK_INT(lp_text_trigrams(LP_STR("ab"), tri, 8), 0);
    T_CHECK_INT(lp_text_trigrams(LP_STR("abcdefghijkl"), tri, 3), 10);
done:;
}

static int stop_after_two(void *ctx, const lp_text_token *tok)
{
    int *n = ctx;
    (void)tok;
    return ++*n == 2 ? 42 : 0;
}

T_TEST(text_callback_can_stop)
{
    int n = 0;
    collect c = {0};
    lp_buf_init(&c.out, 0);
    lp_text_tokenizer *tk = lp_text_tokenizer_new(LP_TEXT_CODE);
    int rc = lp_text_tokenize(tk, LP_STR("one two three four"), stop_after_two, &n);
    T_CHECK_INT(rc, 42);
    T_CHECK_INT(n, 2);
    /* The tokenizer is reusable after a stop, positions restart. */
    c.positions_ok = true;
    rc = lp_text_tokenize(tk, LP_STR("alpha beta"), collect_cb, &c);
    T_CHECK_INT(rc, 0);
    T_CHECK_STR(c.out.ptr, "alpha beta");
    T_CHECK(c.positions_ok);
done:
    lp_buf_release(&c.out);
    lp_text_tokenizer_free(tk);
}
