/*
 * test_catalog_words.c: the catalog's word channel (general-English word vectors,
 * models/catalog-words-v1.bin built into the binary): loading, refusing damaged files, and
 * ranking a tool that shares no word with the request.
 */
#include "cat_helpers.h"
#include "catalog/catalog_int.h"

#include <stdio.h>
#include <unistd.h>

extern const unsigned char lp_cat_words_blob_start[] __attribute__((weak));
extern const unsigned char lp_cat_words_blob_end[] __attribute__((weak));

static const char *const consumer_catalog =
    "[{\"name\":\"forecast\",\"description\":\"Weather forecasts and current conditions for "
    "a city.\"},"
    "{\"name\":\"tunes\",\"description\":\"Play songs and albums, and build playlists.\"},"
    "{\"name\":\"ledger\",\"description\":\"Track expenses and budgets.\"},"
    "{\"name\":\"recipes\",\"description\":\"Find dishes to cook from ingredients.\"}]";

static lp_catalog *new_cat(double words, lp_error *err)
{
    lp_catalog_params P = lp_catalog_params_default();
    P.dense_weight = 0; /* the code model knows little of this vocabulary; test words alone */
    P.words_weight = words;
    lp_catalog *cat = NULL;
    return lp_catalog_new(NULL, &P, &cat, err) == LP_OK ? cat : NULL;
}

/* Write n bytes of p (then extra, if any) to a temporary file; returns its path (static). */
static const char *write_tmp(const void *p, size_t n, const void *extra, size_t nextra)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/loupe-catwords-%d.bin", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    fwrite(p, 1, n, f);
    if (nextra)
        fwrite(extra, 1, nextra, f);
    fclose(f);
    return path;
}

T_TEST(catalog_words_model_loads)
{
    lp_error err = {0};
    lp_cat_words *m = NULL;
    const char *path = NULL;
    const unsigned char *bs = lp_cat_words_blob_start, *be = lp_cat_words_blob_end;
    T_CHECK_MSG(bs && be > bs, "%s", "built without models/catalog-words-v1.bin");
    path = write_tmp(bs, (size_t)(be - bs), NULL, 0);
    T_CHECK(path != NULL);
    T_CHECK_OK(lp_cat_words_load(path, &m, &err), &err);
    T_CHECK_INT(lp_cat_words_dim(m), 100);
    T_CHECK(lp_cat_words_rows(m) > 20000);
    /* Keys are the catalog's terms: stemmed as the description tokenizer stems them. */
    T_CHECK(lp_cat_words_lookup(m, lp_hash64_of("weather", 7), LP_STR("weather")) != UINT32_MAX);
    T_CHECK(lp_cat_words_lookup(m, lp_hash64_of("song", 4), LP_STR("song")) != UINT32_MAX);
    T_CHECK(lp_cat_words_lookup(m, lp_hash64_of("zzqxv", 5), LP_STR("zzqxv")) == UINT32_MAX);
    /* A catalog finds the built-in copy. */
    lp_catalog *cat = new_cat(1, &err);
    T_CHECK_MSG(cat && cat->words, "%s", cat ? cat->words_note : err.msg);
    lp_catalog_free(cat);
done:
    lp_cat_words_close(m);
    if (path)
        unlink(path);
}

T_TEST(catalog_words_bad_files_are_refused)
{
    lp_error err = {0};
    lp_cat_words *m = NULL;
    const unsigned char *bs = lp_cat_words_blob_start, *be = lp_cat_words_blob_end;
    T_CHECK(bs && be > bs);
    size_t n = (size_t)(be - bs);
    /* Truncated: refused with a message naming the problem and what to do. */
    const char *path = write_tmp(bs, n - 1000, NULL, 0);
    T_CHECK(lp_cat_words_load(path, &m, &err) == LP_EINVAL && m == NULL);
    T_CHECK_MSG(strstr(err.msg, "truncated") && strstr(err.msg, "make catalog-model"), "%s",
                err.msg);
    /* Only the header. */
    write_tmp(bs, 40, NULL, 0);
    T_CHECK(lp_cat_words_load(path, &m, &err) == LP_EINVAL && m == NULL);
    /* Shorter than the header. */
    write_tmp(bs, 7, NULL, 0);
    T_CHECK(lp_cat_words_load(path, &m, &err) == LP_EINVAL && m == NULL);
    /* Trailing bytes. */
    write_tmp(bs, n, "x", 1);
    T_CHECK(lp_cat_words_load(path, &m, &err) == LP_EINVAL && strstr(err.msg, "trailing"));
    /* Wrong magic: the code model is not a word model. */
    write_tmp("LPEMBED1 and more bytes than a header has..", 44, NULL, 0);
    T_CHECK(lp_cat_words_load(path, &m, &err) == LP_EINVAL && strstr(err.msg, "magic"));
    /* A damaged lookup table (an entry past the last row). */
    unsigned char *copy = malloc(n);
    T_CHECK(copy != NULL);
    memcpy(copy, bs, n);
    uint32_t rows, slots, strbytes;
    memcpy(&rows, copy + 16, 4);
    memcpy(&slots, copy + 20, 4);
    memcpy(&strbytes, copy + 24, 4);
    size_t table_at = 40 + 4 * ((size_t)rows + 1) + (((size_t)strbytes + 3) & ~(size_t)3);
    uint32_t badrow = rows + 5;
    memcpy(copy + table_at + 4 * (slots / 2), &badrow, 4);
    write_tmp(copy, n, NULL, 0);
    free(copy);
    T_CHECK(lp_cat_words_load(path, &m, &err) == LP_EINVAL && strstr(err.msg, "table"));
    /* A missing file. */
    unlink(path);
    T_CHECK(lp_cat_words_load(path, &m, &err) == LP_ENOENT && strstr(err.msg, path));
done:
    lp_cat_words_close(m);
}

T_TEST(catalog_words_find_topics_without_shared_words)
{
    lp_error err = {0};
    lp_catalog *lex = new_cat(0, &err), *words = new_cat(1, &err);
    lp_catalog_result r = {0};
    T_CHECK_MSG(lex && words, "%s", err.msg);
    T_CHECK_OK(cat_add_text(lex, consumer_catalog, NULL, NULL, &err), &err);
    T_CHECK_OK(cat_add_text(words, consumer_catalog, NULL, NULL, &err), &err);
    /* No word (nor stem, prefix, synonym or typo) of these requests is in the right tool. */
    static const char *const asks[][2] = {{"thunderstorm tonight", "forecast"},
                                          {"beethoven symphony", "tunes"},
                                          {"mortgage payment", "ledger"},
                                          {"chicken soup", "recipes"},
                                          {"pasta with tomato and garlic", "recipes"}};
    for (size_t i = 0; i < LP_ARRAY_LEN(asks); i++) {
        T_CHECK_STR(top_ids(lex, asks[i][0], 4), "");
        T_CHECK_STR(top1(words, asks[i][0]), asks[i][1]);
    }
    lp_catalog_query q = {.text = LP_STR("thunderstorm tonight"), .max_tools = 4};
    T_CHECK_OK(lp_catalog_search(words, &q, &r, &err), &err);
    T_CHECK(r.nhits >= 1);
    T_CHECK_INT(r.hits[0].channels, LP_CATALOG_CH_WORDS);
    T_CHECK_INT(r.channels, LP_CATALOG_CH_WORDS | LP_CATALOG_CH_LEXICAL);
    T_CHECK_INT(r.hits[0].matched_terms, 0);
    lp_catalog_result_release(&r);
    /* A query of no known word still matches nothing. */
    T_CHECK_STR(top_ids(words, "zzqxv", 4), "");
    /* Words that the lexical channel matches keep their tool first. */
    T_CHECK_STR(top1(words, "build a playlist"), "tunes");
done:
    lp_catalog_result_release(&r);
    lp_catalog_free(lex);
    lp_catalog_free(words);
}

T_TEST(catalog_words_follow_transactions)
{
    lp_error err = {0};
    lp_catalog *cat = new_cat(1, &err);
    T_CHECK_MSG(cat, "%s", err.msg);
    T_CHECK_OK(cat_add_text(cat, consumer_catalog, NULL, NULL, &err), &err);
    T_CHECK_STR(top1(cat, "thunderstorm tonight"), "forecast");
    /* Replace the weather tool's definition with a music one: its vector follows. */
    const char *repl = "[{\"name\":\"forecast\",\"description\":\"Concerts and live bands.\"}]";
    lp_catalog_batch *b = NULL;
    lp_catalog_parse_opts o = {.source = "test.json"};
    T_CHECK_OK(lp_catalog_parse(cat, repl, strlen(repl), &o, &b, &err), &err);
    T_CHECK_OK(lp_catalog_replace(cat, b, &err), &err);
    lp_catalog_batch_free(b);
    T_CHECK(strcmp(top1(cat, "thunderstorm tonight"), "forecast") != 0);
    T_CHECK_STR(top1(cat, "rock guitarist"), "forecast");
done:
    lp_catalog_free(cat);
}
