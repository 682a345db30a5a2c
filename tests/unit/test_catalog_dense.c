/*
 * test_catalog_dense.c: the catalog's dense channel (tool vectors, the slot matrix, fusion)
 * with the model built into the binary.
 */
#include "cat_helpers.h"
#include "catalog/catalog_int.h"

static const char *const small_catalog =
    "[{\"name\":\"login\",\"description\":\"Sign in with a username and password.\"},"
    "{\"name\":\"send_email\",\"description\":\"Send an email message to a recipient.\"},"
    "{\"name\":\"resize_image\",\"description\":\"Make a picture smaller or larger.\"},"
    "{\"name\":\"list_files\",\"description\":\"List the files of a folder.\"},"
    "{\"name\":\"match_text\",\"description\":\"Test whether a regular expression matches a "
    "string.\"}]";

static lp_catalog *new_cat(double dense, double lexical, lp_error *err)
{
    lp_catalog_params P = lp_catalog_params_default();
    P.dense_weight = dense;
    P.lexical_weight = lexical;
    P.words_weight = 0; /* this file tests the dense channel; test_catalog_words.c the other */
    lp_catalog *cat = NULL;
    return lp_catalog_new(NULL, &P, &cat, err) == LP_OK ? cat : NULL;
}

T_TEST(catalog_dense_finds_meaning_without_shared_words)
{
    lp_error err = {0};
    lp_catalog *words = new_cat(0, 1, &err), *fused = new_cat(0.3, 1, &err);
    lp_catalog_result r = {0};
    lp_buf js;
    lp_buf_init(&js, 0);
    T_CHECK_MSG(words && fused, "%s", err.msg);
    T_CHECK_OK(cat_add_text(words, small_catalog, NULL, NULL, &err), &err);
    T_CHECK_OK(cat_add_text(fused, small_catalog, NULL, NULL, &err), &err);
    /* "regex pattern" shares no word (nor stem, prefix or synonym) with match_text. */
    T_CHECK_STR(top_ids(words, "regex pattern", 5), "");
    T_CHECK_STR(top1(fused, "regex pattern"), "match_text");
    lp_catalog_query q = {.text = LP_STR("regex pattern"), .max_tools = 5};
    T_CHECK_OK(lp_catalog_search(fused, &q, &r, &err), &err);
    T_CHECK(r.nhits >= 1);
    T_CHECK_INT(r.hits[0].channels, LP_CATALOG_CH_DENSE);
    T_CHECK_INT(r.channels, LP_CATALOG_CH_DENSE | LP_CATALOG_CH_LEXICAL);
    T_CHECK(r.hits[0].similarity >= 0.25f && r.hits[0].similarity <= 1.0f);
    T_CHECK_INT(r.hits[0].matched_terms, 0);
    lp_catalog_result_write_json(fused, &q, &r, false, &js);
    T_CHECK_MSG(strstr(js.ptr, "\"channels\":[\"dense\"],\"similarity\":") &&
                    strstr(js.ptr, "\"channels\":[\"lexical\",\"dense\"]}"),
                "%s", js.ptr);
    lp_catalog_result_release(&r);
    /* A tool found by words and by meaning says both; its exact name says so too. */
    lp_catalog_query q2 = {.text = LP_STR("login"), .max_tools = 5};
    T_CHECK_OK(lp_catalog_search(fused, &q2, &r, &err), &err);
    T_CHECK_STR(r.hits[0].tool->id, "login");
    T_CHECK_INT(r.hits[0].channels,
                LP_CATALOG_CH_LEXICAL | LP_CATALOG_CH_DENSE | LP_CATALOG_CH_EXACT);
    lp_catalog_result_release(&r);
    /* A query of no known word matches nothing, in either channel. */
    T_CHECK_STR(top_ids(fused, "zzqxv", 5), "");
    /* dense_min above every similarity turns the channel's matches off. */
    lp_catalog_free(fused);
    fused = NULL;
    lp_catalog_params P = lp_catalog_params_default();
    P.dense_min = 0.99;
    T_CHECK_OK(lp_catalog_new(NULL, &P, &fused, &err), &err);
    T_CHECK_OK(cat_add_text(fused, small_catalog, NULL, NULL, &err), &err);
    T_CHECK_STR(top_ids(fused, "regex pattern", 5), "");
done:
    lp_catalog_result_release(&r);
    lp_buf_release(&js);
    lp_catalog_free(words);
    lp_catalog_free(fused);
}

/* Every indexed tool's matrix row, by id ("id scale bytes..." lines, sorted by id), and a
 * check that free slots hold no vector. */
static void rows_by_id(const lp_catalog *cat, lp_buf *out, bool *free_slots_clean)
{
    lp_buf_reset(out);
    *free_slots_clean = true;
    size_t n = 0;
    const lp_catalog_tool **all = lp_catalog_list(cat, &n);
    for (size_t i = 0; i < n; i++) {
        const lp_cat_doc *d = (const lp_cat_doc *)(const void *)all[i]; /* pub is first */
        lp_buf_printf(out, "%s %a", all[i]->id, (double)cat->dscale[d->slot]);
        lp_hash128 h = lp_hash128_of(cat->dmat + (size_t)d->slot * cat->dim, cat->dim);
        char hex[LP_HASH_HEX];
        lp_hash128_hex(h, hex);
        lp_buf_printf(out, " %s%s\n", hex, d->vec ? " (stray vec)" : "");
    }
    free(all);
    for (size_t s = 0; s < cat->slots.len && s < cat->dcap; s++)
        if (!cat->slots.items[s] && cat->dscale[s] != 0.0f)
            *free_slots_clean = false;
}

T_TEST(catalog_dense_vectors_follow_definitions)
{
    lp_error err = {0};
    lp_catalog *cat = cat_with(&err, NULL, "github_mcp.json", "slack_mcp.json", NULL);
    lp_catalog *fresh = NULL;
    lp_catalog_batch *b = NULL;
    lp_buf before, after, want;
    lp_buf_init(&before, 0);
    lp_buf_init(&after, 0);
    lp_buf_init(&want, 0);
    bool clean = false;
    T_CHECK_MSG(cat, "%s", err.msg);
    T_CHECK(cat->model != NULL);
    rows_by_id(cat, &before, &clean);
    T_CHECK(clean);
    T_CHECK(strstr(before.ptr, "stray") == NULL);
    const char *v2 = "{\"tools\":[{\"name\":\"slack_post_message\",\"description\":\"Send a "
                     "message\"},{\"name\":\"slack_search\",\"description\":\"Search messages "
                     "in the workspace\"},{\"name\":\"weather_now\",\"description\":\"Weather "
                     "report\"}]}";
    lp_catalog_parse_opts o = {.source = "v2.json", .group = FIXTURES "slack_mcp.json"};
    T_CHECK_OK(lp_catalog_parse(cat, v2, strlen(v2), &o, &b, &err), &err);
    /* Failed transactions leave every vector where it was. */
    for (size_t at = 1; at <= 3; at++) {
        lp_catalog_debug_fail_insert_at(cat, at);
        T_CHECK(lp_catalog_replace(cat, b, &err) != LP_OK);
        rows_by_id(cat, &after, &clean);
        T_CHECK_MSG(clean && !strcmp(before.ptr, after.ptr), "vectors changed at %zu", at);
    }
    /* A committed replace: each tool's row is what a fresh catalog of the same definitions
     * holds, and the removed tools' rows are gone. */
    T_CHECK_OK(lp_catalog_replace(cat, b, &err), &err);
    rows_by_id(cat, &after, &clean);
    T_CHECK(clean);
    fresh = cat_with(&err, NULL, "github_mcp.json", NULL);
    T_CHECK_MSG(fresh, "%s", err.msg);
    lp_catalog_parse_opts of = {.source = "v2.json", .group = FIXTURES "slack_mcp.json"};
    lp_catalog_batch_free(b);
    b = NULL;
    T_CHECK_OK(lp_catalog_parse(fresh, v2, strlen(v2), &of, &b, &err), &err);
    T_CHECK_OK(lp_catalog_add(fresh, b, &err), &err);
    rows_by_id(fresh, &want, &clean);
    T_CHECK_MSG(!strcmp(after.ptr, want.ptr), "after replace:\n%s\nfresh:\n%s", after.ptr,
                want.ptr);
    T_CHECK(strstr(after.ptr, "weather_now 0x") != NULL);
    /* Removing frees the rows. */
    T_CHECK_OK(lp_catalog_remove(cat, "weather_now", &err), &err);
    T_CHECK_OK(lp_catalog_remove_group(cat, "github", NULL, &err), &err);
    rows_by_id(cat, &after, &clean);
    T_CHECK(clean);
    T_CHECK_INT(lp_catalog_count(cat), 2);
    T_CHECK_STR(top1(cat, "weather"), "");
done:
    lp_catalog_batch_free(b);
    lp_buf_release(&before);
    lp_buf_release(&after);
    lp_buf_release(&want);
    lp_catalog_free(cat);
    lp_catalog_free(fresh);
}

/* The ranked results of a few queries with scores and similarities. */
static void results(const lp_catalog *cat, lp_buf *out)
{
    lp_buf_reset(out);
    static const char *const qs[] = {"create issue", "post a message",      "regex pattern",
                                     "authenticate", "what is the weather", "read a file"};
    for (size_t i = 0; i < LP_ARRAY_LEN(qs); i++) {
        lp_catalog_query q = {.text = lp_str_c(qs[i]), .max_tools = 20};
        lp_catalog_result r;
        if (lp_catalog_search(cat, &q, &r, NULL) == LP_OK)
            lp_catalog_result_write_json(cat, &q, &r, false, out);
        lp_catalog_result_release(&r);
        lp_buf_putc(out, '\n');
    }
}

T_TEST(catalog_dense_order_is_deterministic)
{
    lp_error err = {0};
    lp_catalog_params P = lp_catalog_params_default();
    lp_catalog *a = NULL, *b = NULL, *c = NULL;
    lp_buf ra, rb, rc;
    lp_buf_init(&ra, 0);
    lp_buf_init(&rb, 0);
    lp_buf_init(&rc, 0);
    /* The same tools reached in different orders (slots differ) rank the same. */
    a = cat_with(&err, NULL, "github_mcp.json", "slack_mcp.json", "openai_chat.json", NULL);
    b = cat_with(&err, NULL, "openai_chat.json", "slack_mcp.json", "anthropic.json",
                 "github_mcp.json", NULL);
    T_CHECK_MSG(a && b, "%s", err.msg);
    T_CHECK_OK(lp_catalog_remove_group(b, FIXTURES "anthropic.json", NULL, &err), &err);
    results(a, &ra);
    results(b, &rb);
    T_CHECK_MSG(!strcmp(ra.ptr, rb.ptr), "a:\n%s\nb:\n%s", ra.ptr, rb.ptr);
    T_CHECK(strstr(ra.ptr, "\"dense\"") != NULL);
    /* Searching again gives the same bytes. */
    results(a, &rc);
    T_CHECK(!strcmp(ra.ptr, rc.ptr));
    /* Dense only: equal similarities (identical texts) break by name, then id. */
    P.lexical_weight = 0;
    P.dense_field[LP_CATALOG_F_NAME] = 0;
    T_CHECK_OK(lp_catalog_new(NULL, &P, &c, &err), &err);
    T_CHECK_OK(cat_add_text(c,
                            "[{\"name\":\"zeta\",\"description\":\"Export the report.\"},"
                            "{\"name\":\"alpha\",\"description\":\"Export the report.\"}]",
                            "s2", NULL, &err),
               &err);
    T_CHECK_OK(cat_add_text(c, "[{\"name\":\"alpha\",\"description\":\"Export the report.\"}]",
                            "s1", NULL, &err),
               &err);
    T_CHECK_STR(top_ids(c, "export the report", 3), "s1/alpha s2/alpha s2/zeta");
done:
    lp_buf_release(&ra);
    lp_buf_release(&rb);
    lp_buf_release(&rc);
    lp_catalog_free(a);
    lp_catalog_free(b);
    lp_catalog_free(c);
}

T_TEST(catalog_request_words_weigh_less)
{
    lp_error err = {0};
    lp_catalog *on = new_cat(0, 1, &err), *off = NULL;
    lp_catalog_params P = lp_catalog_params_default();
    P.dense_weight = 0;
    P.request_alpha = 0;
    T_CHECK_MSG(on, "%s", err.msg);
    T_CHECK_OK(lp_catalog_new(NULL, &P, &off, &err), &err);
    const char *tools = "[{\"name\":\"info_desk\",\"description\":\"Provide specific information "
                        "and detailed assistance.\"},{\"name\":\"forecast\",\"description\":"
                        "\"Weather forecast for a city.\"}]";
    T_CHECK_OK(cat_add_text(on, tools, NULL, NULL, &err), &err);
    T_CHECK_OK(cat_add_text(off, tools, NULL, NULL, &err), &err);
    /* Words that requests for most tools use ("provide", "specific", "information") weigh
     * less than the one that says what is wanted ("weather"); stems are found too. */
    T_CHECK(lp_cat_request_fraction(LP_STR("provid")) > 0.5f);
    T_CHECK(lp_cat_request_fraction(LP_STR("weather")) < 0.3f);
    T_CHECK(lp_cat_request_fraction(LP_STR("zzqxv")) == 0.0f);
    const char *q = "provide specific information about the weather";
    T_CHECK_STR(top_ids(off, q, 2), "info_desk forecast");
    T_CHECK_STR(top_ids(on, q, 2), "forecast info_desk");
done:
    lp_catalog_free(on);
    lp_catalog_free(off);
}

T_TEST(catalog_news_is_not_new)
{
    lp_error err = {0};
    lp_catalog_params P = lp_catalog_params_default();
    P.dense_weight = 0;
    lp_catalog *cat = NULL;
    T_CHECK_OK(lp_catalog_new(NULL, &P, &cat, &err), &err);
    /* "news" used to stem to "new", the most generic request word of all, so a news tool
     * ranked below any tool that makes something new. */
    const char *tools = "[{\"name\":\"headlines\",\"description\":\"Headlines and news "
                        "from around the world.\"},{\"name\":\"make_folder\",\"description\":"
                        "\"Create a new folder, a new file or a new note.\"}]";
    T_CHECK_OK(cat_add_text(cat, tools, NULL, NULL, &err), &err);
    T_CHECK_STR(top_ids(cat, "news", 2), "headlines");
    T_CHECK_STR(top_ids(cat, "the latest news please", 2), "headlines");
    T_CHECK_STR(top_ids(cat, "a new folder", 1), "make_folder");
done:
    lp_catalog_free(cat);
}
