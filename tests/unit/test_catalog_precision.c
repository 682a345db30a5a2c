/*
 * test_catalog_precision.c: where words mislead the catalog: a prefix that is another word
 * ("tour" / "tournament"), product names written as one word ("HackerRank"), and requests
 * that need several tools ("... and ...").
 */
#include "cat_helpers.h"
#include "catalog/catalog_int.h"

/* A catalog of the given tools (JSON text) with params changed by "k=v" strings (NULL
 * terminated); the lexical channel alone unless a string turns another on. */
static lp_catalog *cat_of(const char *json, lp_error *err, ...)
{
    lp_catalog_params P = lp_catalog_params_default();
    P.dense_weight = 0;
    P.words_weight = 0;
    va_list ap;
    va_start(ap, err);
    const char *kv;
    while ((kv = va_arg(ap, const char *)))
        if (lp_catalog_params_set(&P, kv, err) != LP_OK) {
            va_end(ap);
            return NULL;
        }
    va_end(ap);
    lp_catalog *cat = NULL;
    if (lp_catalog_new(NULL, &P, &cat, err) != LP_OK)
        return NULL;
    if (cat_add_text(cat, json, NULL, NULL, err) != LP_OK) {
        lp_catalog_free(cat);
        return NULL;
    }
    return cat;
}

static const char *const prefix_tools =
    "[{\"name\":\"chess_results\",\"description\":\"Results of chess tournaments.\"},"
    "{\"name\":\"sightseeing\",\"description\":\"Plan a guided city tour.\"},"
    "{\"name\":\"reports\",\"description\":\"Quarterly financial reports of companies.\"},"
    "{\"name\":\"code_host\",\"description\":\"Browse a repository of source code.\"}]";

T_TEST(catalog_prefix_stops_at_a_separate_word)
{
    lp_error err = {0};
    lp_catalog *rule = cat_of(prefix_tools, &err, NULL);
    lp_catalog *loose = NULL;
    T_CHECK_MSG(rule, "%s", err.msg);
    loose = cat_of(prefix_tools, &err, "prefix_rule=0", NULL);
    T_CHECK_MSG(loose, "%s", err.msg);
    T_CHECK_MSG(rule->dict != NULL, "%s", "the prefix rule needs the built-in word model");
    /* "tour" and "tournament" are both English words, and "nament" is no suffix. */
    T_CHECK_STR(top_ids(rule, "tour", 5), "sightseeing");
    T_CHECK_STR(top_ids(loose, "tour", 5), "sightseeing chess_results");
    /* The reverse direction: a query word that a shorter index term starts. */
    T_CHECK_STR(top_ids(rule, "tournaments today", 5), "chess_results");
    /* A suffix still joins word forms: finance -> financial. */
    T_CHECK_STR(top_ids(rule, "finance", 5), "reports");
    /* A term no dictionary knows still expands (an abbreviation). */
    T_CHECK_STR(top_ids(rule, "repo", 5), "code_host");
done:
    lp_catalog_free(rule);
    lp_catalog_free(loose);
}

static const char *const product_tools =
    "[{\"name\":\"challenges\",\"description\":\"Solve HackerRank coding challenges.\"},"
    "{\"name\":\"leaderboard\",\"description\":\"Rank hackers: a hacker rank leaderboard of "
    "hacker reputation and rank history.\"}]";

/* Score of the leaderboard over the score of the challenges for q (-1 if either is absent). */
static double score_ratio(const lp_catalog *cat, const char *q)
{
    lp_catalog_query query = {.text = lp_str_c(q), .max_tools = 5};
    lp_catalog_result r;
    if (lp_catalog_search(cat, &query, &r, NULL))
        return -1;
    double a = -1, b = -1;
    for (size_t i = 0; i < r.nhits; i++) {
        if (strcmp(r.hits[i].tool->id, "leaderboard") == 0)
            a = r.hits[i].score;
        if (strcmp(r.hits[i].tool->id, "challenges") == 0)
            b = r.hits[i].score;
    }
    lp_catalog_result_release(&r);
    return a > 0 && b > 0 ? a / b : -1;
}

T_TEST(catalog_product_names_kept_whole)
{
    lp_error err = {0};
    lp_catalog *cat = cat_of(product_tools, &err, NULL);
    lp_catalog *split = NULL;
    T_CHECK_MSG(cat, "%s", err.msg);
    split = cat_of(product_tools, &err, "part_weight=1", NULL);
    T_CHECK_MSG(split, "%s", err.msg);
    /* The description's "HackerRank" is indexed whole as well as split. */
    T_CHECK(lp_cat_term_lookup(cat, LP_STR("hackerrank")) != UINT32_MAX);
    T_CHECK(lp_cat_term_lookup(cat, LP_STR("hacker")) != UINT32_MAX);
    /* Written as one word, the request finds the product by its whole name first. */
    T_CHECK_STR(top1(cat, "hackerrank"), "challenges");
    /* Written in camel case, the whole form outweighs the parts it shares with the
     * leaderboard: the leaderboard (both parts, often) scores less against the product
     * with the parts at part_weight than at full weight. */
    T_CHECK_STR(top1(cat, "HackerRank"), "challenges");
    T_CHECK(score_ratio(cat, "HackerRank") < 0.8 * score_ratio(split, "HackerRank"));
done:
    lp_catalog_free(cat);
    lp_catalog_free(split);
}

/* The parts of text as "[part]" strings (static). */
static const char *parts_of(const lp_catalog *cat, const char *text)
{
    static char out[1024];
    lp_str parts[LP_CAT_MAX_INTENTS];
    size_t n = lp_cat_split_intents(cat, lp_str_c(text), parts, LP_CAT_MAX_INTENTS);
    size_t w = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n; i++)
        w += (size_t)snprintf(out + w, sizeof out - w, "[%.*s]", (int)parts[i].len,
                              parts[i].ptr);
    return out;
}

T_TEST(catalog_intents_split_at_clause_joints)
{
    lp_error err = {0};
    lp_catalog *cat = cat_of("[]", &err, NULL);
    T_CHECK_MSG(cat, "%s", err.msg);
    T_CHECK_STR(parts_of(cat, "get the stock price of Apple and the latest news about Tesla"),
                "[get the stock price of Apple ][ the latest news about Tesla]");
    T_CHECK_STR(parts_of(cat, "book a table for two tonight, then order a taxi to the "
                              "restaurant"),
                "[book a table for two tonight, ][ order a taxi to the restaurant]");
    T_CHECK_STR(parts_of(cat, "translate this letter into French; also check its spelling "
                              "and grammar"),
                "[translate this letter into French][ check its spelling and grammar]");
    T_CHECK_STR(parts_of(cat, "plan my holiday trip as well as convert 100 euros to dollars"),
                "[plan my holiday trip ][ convert 100 euros to dollars]");
    /* Short pieces are not intents: a list of two things stays one request. */
    T_CHECK_STR(parts_of(cat, "find cheap flights and hotels"),
                "[find cheap flights and hotels]");
    T_CHECK_STR(parts_of(cat, "rock and roll songs"), "[rock and roll songs]");
    /* Words that only contain a joint are not joints. */
    T_CHECK_STR(parts_of(cat, "android phones with a brand new thenardite display"),
                "[android phones with a brand new thenardite display]");
done:
    lp_catalog_free(cat);
}

static const char *const intent_tools =
    "[{\"name\":\"weather\",\"description\":\"Weather forecast for a city: temperature, "
    "rain and wind.\"},"
    "{\"name\":\"stocks\",\"description\":\"Stock prices and market quotes of a company.\"},"
    "{\"name\":\"stock_charts\",\"description\":\"Charts of stock prices and market quotes "
    "of companies.\"},"
    "{\"name\":\"recipes\",\"description\":\"Recipes for dinner.\"}]";

T_TEST(catalog_intents_each_get_a_tool)
{
    lp_error err = {0};
    lp_catalog *cat = cat_of(intent_tools, &err, NULL);
    lp_catalog *one = NULL;
    T_CHECK_MSG(cat, "%s", err.msg);
    one = cat_of(intent_tools, &err, "intents=0", NULL);
    T_CHECK_MSG(one, "%s", err.msg);
    const char *q = "show stock prices, stock charts, market quotes of my companies and tell "
                    "me the weather in my city";
    /* As one bag of words, the stock tools take both places; searched per intent, the
     * weather tool gets one. */
    T_CHECK_STR(top_ids(one, q, 2), "stock_charts stocks");
    T_CHECK_STR(top_ids(cat, q, 2), "stock_charts weather");
    /* One intent: unchanged. */
    T_CHECK_STR(top_ids(cat, "stock prices of a company", 2),
                top_ids(one, "stock prices of a company", 2));
    /* Filters hold for every part. */
    lp_catalog_query fq = {.text = lp_str_c(q), .max_tools = 5};
    const char *ns[] = {"nothing"};
    fq.namespaces = ns;
    fq.nnamespaces = 1;
    lp_catalog_result r;
    T_CHECK_OK(lp_catalog_search(cat, &fq, &r, &err), &err);
    T_CHECK_INT(r.nhits, 0);
    lp_catalog_result_release(&r);
done:
    lp_catalog_free(cat);
    lp_catalog_free(one);
}
