/*
 * test_catalog.c: tool-catalog search (src/catalog): adapters on real-shaped definitions,
 * byte-exact definitions, ranking behaviour, filters, pins and budgets, incremental and
 * transactional updates, and the search_tools MCP tool.
 */
#include "cat_helpers.h"

/* Every definition is a verbatim slice of its file and parses to the same JSON value as the
 * file's element. */
static bool defs_are_slices(const lp_catalog *cat, const char *file)
{
    lp_buf data;
    lp_buf_init(&data, 0);
    bool ok = lp_read_file(file, 1 << 24, &data, NULL) == LP_OK;
    size_t n = 0;
    const lp_catalog_tool **all = lp_catalog_list(cat, &n);
    for (size_t i = 0; ok && i < n; i++) {
        if (strcmp(all[i]->source, file) != 0)
            continue;
        lp_str d = all[i]->definition;
        ok = d.len > 1 && d.ptr[0] == '{' && d.ptr[d.len - 1] == '}' &&
             memmem(data.ptr, data.len, d.ptr, d.len) != NULL;
        json_t *j = json_loadb(d.ptr, d.len, 0, NULL);
        ok = ok && j && json_is_object(j);
        json_decref(j);
    }
    free(all);
    lp_buf_release(&data);
    return ok;
}

T_TEST(catalog_adapter_mcp_tools_list_with_server)
{
    lp_error err = {0};
    lp_catalog *cat = cat_with(&err, NULL, "github_mcp.json", NULL);
    T_CHECK_MSG(cat, "%s", err.msg);
    T_CHECK_INT(lp_catalog_count(cat), 20);
    const lp_catalog_tool *tl = lp_catalog_get(cat, "github/create_issue");
    T_CHECK(tl);
    T_CHECK_STR(tl->name, "create_issue");
    T_CHECK_STR(tl->ns, "github");
    T_CHECK_STR(tl->title, "Create issue");
    T_CHECK_STR(tl->description, "Create a new issue in a GitHub repository.");
    T_CHECK_INT(tl->provider, LP_CATALOG_MCP);
    T_CHECK_INT(tl->hints[LP_CATALOG_HINT_READ_ONLY], LP_HINT_FALSE);
    T_CHECK_INT(tl->hints[LP_CATALOG_HINT_IDEMPOTENT], LP_HINT_ABSENT);
    T_CHECK(tl->tokens > 50 && tl->tokens < 400);
    T_CHECK(!lp_catalog_get(cat, "create_issue"));
    T_CHECK(defs_are_slices(cat, FIXTURES "github_mcp.json"));
done:
    lp_catalog_free(cat);
}

T_TEST(catalog_adapter_jsonrpc_result_openai_anthropic_gemini)
{
    lp_error err = {0};
    lp_catalog *cat = cat_with(&err, NULL, "filesystem_rpc.json", "slack_mcp.json",
                               "openai_chat.json", "openai_responses.json", "anthropic.json",
                               "gemini.json", NULL);
    T_CHECK_MSG(cat, "%s", err.msg);
    /* 11 + 8 + 4 + 2 + 4 + 3: built-ins without names are not indexed. */
    T_CHECK_INT(lp_catalog_count(cat), 32);
    const lp_catalog_tool *tl = lp_catalog_get(cat, "read_file");
    T_CHECK(tl && tl->provider == LP_CATALOG_MCP);
    T_CHECK_INT(tl->hints[LP_CATALOG_HINT_READ_ONLY], LP_HINT_TRUE);
    tl = lp_catalog_get(cat, "get_weather");
    T_CHECK(tl && tl->provider == LP_CATALOG_OPENAI_CHAT);
    T_CHECK_STR(tl->description, "Get the current weather for a location.");
    /* The whole {type, function} element is the definition. */
    T_CHECK(lp_str_starts_with(tl->definition, LP_STR("{\n    \"type\": \"function\"")));
    tl = lp_catalog_get(cat, "convertCurrency");
    T_CHECK(tl && tl->provider == LP_CATALOG_OPENAI_CHAT);
    tl = lp_catalog_get(cat, "search_flights");
    T_CHECK(tl && tl->provider == LP_CATALOG_OPENAI_RESPONSES);
    tl = lp_catalog_get(cat, "create_calendar_event");
    T_CHECK(tl && tl->provider == LP_CATALOG_ANTHROPIC);
    tl = lp_catalog_get(cat, "web_search"); /* Anthropic server tool: has a name */
    T_CHECK(tl && tl->provider == LP_CATALOG_ANTHROPIC);
    tl = lp_catalog_get(cat, "find_theaters");
    T_CHECK(tl && tl->provider == LP_CATALOG_GEMINI);
    T_CHECK(strstr(tl->definition.ptr, "\"OBJECT\"") != NULL);
    tl = lp_catalog_get(cat, "slack_get_users");
    T_CHECK(tl && tl->ntags == 2 && tl->naliases == 1);
    T_CHECK_STR(tl->tags[0], "directory");
    T_CHECK_STR(tl->aliases[0], "list members");
    T_CHECK(defs_are_slices(cat, FIXTURES "filesystem_rpc.json"));
    T_CHECK(defs_are_slices(cat, FIXTURES "gemini.json"));
    lp_catalog_stats s;
    lp_catalog_get_stats(cat, &s);
    T_CHECK_INT(s.tools, 32);
    T_CHECK_INT(s.by_provider[LP_CATALOG_GEMINI], 3);
    T_CHECK_INT(s.by_provider[LP_CATALOG_OPENAI_RESPONSES], 2);
    T_CHECK_INT(s.groups, 6);
done:
    lp_catalog_free(cat);
}

T_TEST(catalog_definition_bytes_are_verbatim)
{
    lp_error err = {0};
    lp_catalog *cat = cat_with(&err, NULL, "odd_bytes.json", NULL);
    T_CHECK_MSG(cat, "%s", err.msg);
    const lp_catalog_tool *tl = lp_catalog_get(cat, "caf\xc3\xa9_lookup");
    T_CHECK(tl);
    /* Escapes, number spellings and spacing survive exactly as written. */
    T_CHECK(lp_str_starts_with(tl->definition, LP_STR("{\"name\" :\"caf\\u00e9_lookup\",   ")));
    T_CHECK(lp_str_ends_with(tl->definition, LP_STR("\"x\":[1.50, -0.0, 1E+2]}")));
    T_CHECK_STR(tl->description, "Look up a caf\xc3\xa9 by name / city; returns 1.0e2 results max");
    T_CHECK_STR(top1(cat, "cafe"), "caf\xc3\xa9_lookup");
    T_CHECK(lp_catalog_get(cat, "noop"));
done:
    lp_catalog_free(cat);
}

T_TEST(catalog_namespaces_from_prefixes_and_server)
{
    lp_error err = {0};
    lp_catalog *cat = NULL;
    T_CHECK_OK(lp_catalog_new(NULL, NULL, &cat, &err), &err);
    T_CHECK_OK(cat_add_text(cat,
                            "[{\"name\":\"mcp__github__create_issue\",\"description\":\"x\"},"
                            "{\"name\":\"jira__create_issue\"},{\"name\":\"linear.create_issue\"},"
                            "{\"name\":\"notion/search\"},{\"name\":\"__init__\"},"
                            "{\"name\":\"create_issue\"},{\"name\":\"a.\"}]",
                            NULL, NULL, &err),
               &err);
    T_CHECK_STR(lp_catalog_get(cat, "mcp__github__create_issue")->ns, "github");
    T_CHECK_STR(lp_catalog_get(cat, "jira__create_issue")->ns, "jira");
    T_CHECK_STR(lp_catalog_get(cat, "linear.create_issue")->ns, "linear");
    T_CHECK_STR(lp_catalog_get(cat, "notion/search")->ns, "notion");
    T_CHECK_STR(lp_catalog_get(cat, "__init__")->ns, "");
    T_CHECK_STR(lp_catalog_get(cat, "create_issue")->ns, "");
    T_CHECK_STR(lp_catalog_get(cat, "a.")->ns, "");
    /* A namespace word in the query prefers that namespace. */
    T_CHECK_STR(top1(cat, "jira create issue"), "jira__create_issue");
    T_CHECK_STR(top1(cat, "create an issue in linear"), "linear.create_issue");
    /* Exact names, in any convention, win. */
    T_CHECK_STR(top1(cat, "mcp__github__create_issue"), "mcp__github__create_issue");
    T_CHECK_STR(top1(cat, "github create issue"), "mcp__github__create_issue");
    T_CHECK_STR(top1(cat, "createIssue"), "create_issue");
    /* A server name given to the parser overrides prefixes and makes ids unique. */
    T_CHECK_OK(cat_add_text(cat, "{\"tools\":[{\"name\":\"create_issue\"}]}", "gitlab", NULL,
                            &err),
               &err);
    T_CHECK_STR(lp_catalog_get(cat, "gitlab/create_issue")->ns, "gitlab");
    T_CHECK_STR(top1(cat, "gitlab create_issue"), "gitlab/create_issue");
done:
    lp_catalog_free(cat);
}

T_TEST(catalog_ranking_literal_synonym_prefix_fuzzy)
{
    lp_error err = {0};
    lp_catalog *cat = cat_with(&err, NULL, "github_mcp.json", "slack_mcp.json",
                               "filesystem_rpc.json", "openai_chat.json", "anthropic.json",
                               "gemini.json", NULL);
    T_CHECK_MSG(cat, "%s", err.msg);
    T_CHECK_STR(top1(cat, "open a pull request"), "github/create_pull_request");
    T_CHECK_STR(top1(cat, "merge the PR"), "github/merge_pull_request");
    T_CHECK_STR(top1(cat, "post a message to a slack channel"), "slack_post_message");
    T_CHECK_STR(top1(cat, "what is the weather in Paris?"), "get_weather");
    T_CHECK_STR(top1(cat, "create_issue"), "github/create_issue");
    T_CHECK_STR(top1(cat, "CreateIssue"), "github/create_issue");
    T_CHECK_STR(top1(cat, "list_directory"), "list_directory");
    /* Synonyms: remove -> delete, fetch -> get, folder -> directory. */
    T_CHECK_STR(top1(cat, "remove a calendar event"), "delete_calendar_event");
    T_CHECK_STR(top1(cat, "fetch the details of an issue"), "github/get_issue");
    T_CHECK_STR(top1(cat, "make a new folder"), "create_directory");
    /* Stemming: plural and -ing forms. */
    T_CHECK_STR(top1(cat, "listing commits"), "github/list_commits");
    /* Prefix: "repo" reaches "repository". */
    T_CHECK(strstr(top_ids(cat, "fork repo", 3), "github/fork_repository") != NULL);
    /* Fuzzy: one typo, never the whole dictionary. */
    T_CHECK_STR(top1(cat, "serach code"), "github/search_code");
    T_CHECK_STR(top1(cat, "movis by genre"), "find_movies");
    /* Nothing matches: no hits. */
    T_CHECK_STR(top_ids(cat, "zzqxv", 5), "");
done:
    lp_catalog_free(cat);
}

T_TEST(catalog_strongest_expansion_counts_once)
{
    lp_error err = {0};
    lp_catalog *cat = NULL;
    T_CHECK_OK(lp_catalog_new(NULL, NULL, &cat, &err), &err);
    /* B holds every synonym of "delete"; A holds the literal word once. A must win: one
     * query term votes once, and a literal beats any synonym. */
    T_CHECK_OK(cat_add_text(cat,
                            "[{\"name\":\"tool_a\",\"description\":\"Delete a record.\"},"
                            "{\"name\":\"tool_b\",\"description\":\"Remove, erase, drop, "
                            "destroy, purge or unlink a record.\"}]",
                            NULL, NULL, &err),
               &err);
    T_CHECK_STR(top_ids(cat, "delete record", 2), "tool_a tool_b");
    lp_catalog_query q = {.text = LP_STR("delete record"), .max_tools = 2};
    lp_catalog_result r;
    T_CHECK_OK(lp_catalog_search(cat, &q, &r, &err), &err);
    T_CHECK(r.nhits == 2 && r.hits[0].score > r.hits[1].score);
    T_CHECK_INT(r.hits[1].matched_terms, 2);
    lp_catalog_result_release(&r);
done:
    lp_catalog_free(cat);
}

T_TEST(catalog_ties_break_by_name_then_id)
{
    lp_error err = {0};
    lp_catalog *cat = NULL;
    /* Lexical only: the dense and word channels would tell the names apart. */
    lp_catalog_params P = lp_catalog_params_default();
    P.dense_weight = 0;
    P.words_weight = 0;
    T_CHECK_OK(lp_catalog_new(NULL, &P, &cat, &err), &err);
    T_CHECK_OK(cat_add_text(cat,
                            "[{\"name\":\"zeta\",\"description\":\"Export the report.\"},"
                            "{\"name\":\"alpha\",\"description\":\"Export the report.\"},"
                            "{\"name\":\"mid\",\"description\":\"Export the report.\"}]",
                            NULL, NULL, &err),
               &err);
    T_CHECK_OK(cat_add_text(cat, "[{\"name\":\"alpha\",\"description\":\"Export the report.\"}]",
                            "srv", NULL, &err),
               &err);
    /* Equal scores: name asc, then id asc ("alpha" < "srv/alpha"). */
    T_CHECK_STR(top_ids(cat, "export report", 4), "alpha srv/alpha mid zeta");
done:
    lp_catalog_free(cat);
}

static const char *const many_tools =
    "[{\"name\":\"small_report\",\"description\":\"Build a sales report.\"},"
    "{\"name\":\"big_report\",\"description\":\"Build a sales report with charts, tables, "
    "forecasts and a long explanation of every figure in the sales report, for the whole "
    "company, quarter by quarter, region by region, product by product.\"},"
    "{\"name\":\"report_status\",\"description\":\"Report status of a sales job.\"},"
    "{\"name\":\"calendar\",\"description\":\"Show the calendar.\",\"tags\":[\"time\"],"
    "\"annotations\":{\"readOnlyHint\":true}},"
    "{\"name\":\"clock\",\"description\":\"Show the time.\",\"tags\":[\"time\",\"util\"]}]";

T_TEST(catalog_budgets_pins_and_filters)
{
    lp_error err = {0};
    lp_catalog *cat = NULL;
    lp_catalog_result r = {0};
    T_CHECK_OK(lp_catalog_new(NULL, NULL, &cat, &err), &err);
    T_CHECK_OK(cat_add_text(cat, many_tools, NULL, NULL, &err), &err);
    size_t small = lp_catalog_get(cat, "small_report")->tokens;
    size_t big = lp_catalog_get(cat, "big_report")->tokens;
    size_t status = lp_catalog_get(cat, "report_status")->tokens;
    T_CHECK(big > small + 20);
    /* max_tools. */
    lp_catalog_query q = {.text = LP_STR("sales report"), .max_tools = 1};
    T_CHECK_OK(lp_catalog_search(cat, &q, &r, &err), &err);
    T_CHECK_INT(r.nhits, 1);
    T_CHECK_INT(r.matched, 3);
    T_CHECK_INT(r.omitted_count, 2);
    lp_catalog_result_release(&r);
    /* max_tokens: the big one does not fit, smaller ones after it still do. */
    q.max_tools = 5;
    q.max_tokens = small + status;
    T_CHECK_OK(lp_catalog_search(cat, &q, &r, &err), &err);
    T_CHECK_INT(r.nhits, 2);
    T_CHECK_INT(r.omitted_budget, 1);
    T_CHECK(r.total_tokens <= q.max_tokens);
    for (size_t i = 0; i < r.nhits; i++)
        T_CHECK(strcmp(r.hits[i].tool->id, "big_report") != 0);
    lp_catalog_result_release(&r);
    /* Pins come first, even unmatched and over budget; unknown pins are warned about. */
    const char *pins[] = {"clock", "nope"};
    q.pinned = pins;
    q.npinned = 2;
    q.max_tokens = 1;
    T_CHECK_OK(lp_catalog_search(cat, &q, &r, &err), &err);
    T_CHECK_INT(r.nhits, 1);
    T_CHECK_STR(r.hits[0].tool->id, "clock");
    T_CHECK(r.hits[0].pinned);
    T_CHECK(r.hits[0].score == 0);
    T_CHECK_INT(r.nwarnings, 2);
    T_CHECK(!strncmp(r.warnings[0], "unknown_pin:", 12));
    T_CHECK(!strncmp(r.warnings[1], "pinned_over_budget:", 19));
    lp_catalog_result_release(&r);
    /* Filters: tags (all of them), annotation hints with MCP defaults. */
    lp_catalog_query f = {.text = LP_STR("show")};
    const char *tags[] = {"time"};
    f.tags = tags;
    f.ntags = 1;
    T_CHECK_OK(lp_catalog_search(cat, &f, &r, &err), &err);
    T_CHECK_INT(r.nhits, 2);
    lp_catalog_result_release(&r);
    const char *tags2[] = {"time", "UTIL"};
    f.tags = tags2;
    f.ntags = 2;
    T_CHECK_OK(lp_catalog_search(cat, &f, &r, &err), &err);
    T_CHECK(r.nhits == 1 && !strcmp(r.hits[0].tool->id, "clock"));
    lp_catalog_result_release(&r);
    f.ntags = 0;
    f.hints[LP_CATALOG_HINT_READ_ONLY] = LP_HINT_TRUE;
    T_CHECK_OK(lp_catalog_search(cat, &f, &r, &err), &err);
    T_CHECK(r.nhits == 1 && !strcmp(r.hits[0].tool->id, "calendar"));
    lp_catalog_result_release(&r);
    /* readOnlyHint false keeps tools without annotations (the MCP default). */
    f.hints[LP_CATALOG_HINT_READ_ONLY] = LP_HINT_FALSE;
    T_CHECK_OK(lp_catalog_search(cat, &f, &r, &err), &err);
    T_CHECK(r.nhits == 1 && !strcmp(r.hits[0].tool->id, "clock"));
    lp_catalog_result_release(&r);
    /* An empty query returns the pins only. */
    lp_catalog_query e = {.text = LP_STR("  "), .pinned = pins, .npinned = 1};
    T_CHECK_OK(lp_catalog_search(cat, &e, &r, &err), &err);
    T_CHECK(r.nhits == 1 && r.hits[0].pinned);
done:
    lp_catalog_result_release(&r);
    lp_catalog_free(cat);
}

T_TEST(catalog_namespace_filter)
{
    lp_error err = {0};
    lp_catalog *cat = cat_with(&err, NULL, "github_mcp.json", "filesystem_rpc.json", NULL);
    lp_catalog_result r = {0};
    T_CHECK_MSG(cat, "%s", err.msg);
    const char *ns[] = {"GitHub"};
    lp_catalog_query q = {.text = LP_STR("read file contents"), .max_tools = 10,
                          .namespaces = ns, .nnamespaces = 1};
    T_CHECK_OK(lp_catalog_search(cat, &q, &r, &err), &err);
    T_CHECK(r.nhits > 0);
    for (size_t i = 0; i < r.nhits; i++)
        T_CHECK_STR(r.hits[i].tool->ns, "github");
    T_CHECK_STR(r.hits[0].tool->id, "github/get_file_contents");
done:
    lp_catalog_result_release(&r);
    lp_catalog_free(cat);
}

/* A fingerprint of the catalog's observable state: stats and results of a few queries with
 * scores. */
static void fingerprint(const lp_catalog *cat, lp_buf *out)
{
    lp_buf_reset(out);
    lp_catalog_stats s;
    lp_catalog_get_stats(cat, &s);
    lp_buf_printf(out, "tools=%zu terms=%zu postings=%zu bytes=%zu tokens=%zu ns=%zu\n", s.tools,
                  s.terms, s.postings, s.definition_bytes, s.tokens, s.namespaces);
    static const char *const qs[] = {"create issue", "send message", "read a file",
                                     "serach", "list", "weather"};
    for (size_t i = 0; i < LP_ARRAY_LEN(qs); i++) {
        lp_catalog_query q = {.text = lp_str_c(qs[i]), .max_tools = 20};
        lp_catalog_result r;
        if (lp_catalog_search(cat, &q, &r, NULL) == LP_OK)
            lp_catalog_result_write_json(cat, &q, &r, true, out);
        lp_catalog_result_release(&r);
        lp_buf_putc(out, '\n');
    }
}

T_TEST(catalog_replace_is_transactional)
{
    lp_error err = {0};
    lp_catalog *cat = cat_with(&err, NULL, "github_mcp.json", "slack_mcp.json", NULL);
    lp_catalog_batch *b = NULL;
    lp_buf before, after, data;
    lp_buf_init(&before, 0);
    lp_buf_init(&after, 0);
    lp_buf_init(&data, 0);
    T_CHECK_MSG(cat, "%s", err.msg);
    fingerprint(cat, &before);
    /* A new version of the slack group: fewer tools, one renamed, plus new ones. */
    const char *v2 = "{\"tools\":[{\"name\":\"slack_post_message\",\"description\":\"Send a "
                     "message\"},{\"name\":\"slack_search\",\"description\":\"Search messages "
                     "in the workspace\"},{\"name\":\"weather_now\",\"description\":\"Weather "
                     "report\"}]}";
    lp_catalog_parse_opts o = {.source = "v2.json", .group = FIXTURES "slack_mcp.json"};
    T_CHECK_OK(lp_catalog_parse(cat, v2, strlen(v2), &o, &b, &err), &err);
    /* Fail in the middle of the insertions: nothing may change. */
    for (size_t at = 1; at <= 3; at++) {
        lp_catalog_debug_fail_insert_at(cat, at);
        T_CHECK(lp_catalog_replace(cat, b, &err) != LP_OK);
        T_CHECK(strstr(err.msg, "injected") != NULL);
        T_CHECK_INT(lp_catalog_batch_count(b), 3);
        fingerprint(cat, &after);
        T_CHECK_MSG(!strcmp(before.ptr, after.ptr), "state changed after failure at %zu", at);
    }
    /* A duplicate with a tool outside the group fails up front, also without change. */
    lp_catalog_batch *dup = NULL;
    const char *d = "[{\"name\":\"x\"}]";
    lp_catalog_parse_opts od = {.source = "dup.json", .server = "github", .group = "other"};
    T_CHECK_OK(lp_catalog_parse(cat, d, strlen(d), &od, &dup, &err), &err);
    lp_catalog_batch_free(dup);
    dup = NULL;
    const char *d2 = "{\"server\":\"github\",\"tools\":[{\"name\":\"create_issue\"}]}";
    lp_catalog_parse_opts od2 = {.source = "dup.json", .group = "other"};
    T_CHECK_OK(lp_catalog_parse(cat, d2, strlen(d2), &od2, &dup, &err), &err);
    T_CHECK(lp_catalog_replace(cat, dup, &err) == LP_EEXIST);
    T_CHECK_INT(lp_catalog_error_code(&err), LP_CATALOG_DUPLICATE_TOOL);
    lp_catalog_batch_free(dup);
    fingerprint(cat, &after);
    T_CHECK(!strcmp(before.ptr, after.ptr));
    /* Now it succeeds: the old slack tools are gone, the new ones are in. */
    T_CHECK_OK(lp_catalog_replace(cat, b, &err), &err);
    T_CHECK_INT(lp_catalog_batch_count(b), 0);
    T_CHECK_INT(lp_catalog_count(cat), 23);
    T_CHECK(!lp_catalog_get(cat, "slack_get_users"));
    T_CHECK(lp_catalog_get(cat, "slack_search"));
    T_CHECK_STR(top1(cat, "weather"), "weather_now");
    /* Replacing with the original file again gives back the original state. */
    lp_catalog_batch_free(b);
    b = NULL;
    T_CHECK_OK(lp_read_file(FIXTURES "slack_mcp.json", 1 << 20, &data, &err), &err);
    lp_catalog_parse_opts o3 = {.source = FIXTURES "slack_mcp.json"};
    T_CHECK_OK(lp_catalog_parse(cat, data.ptr, data.len, &o3, &b, &err), &err);
    T_CHECK_OK(lp_catalog_replace(cat, b, &err), &err);
    fingerprint(cat, &after);
    T_CHECK(!strcmp(before.ptr, after.ptr));
done:
    lp_catalog_batch_free(b);
    lp_buf_release(&before);
    lp_buf_release(&after);
    lp_buf_release(&data);
    lp_catalog_free(cat);
}

T_TEST(catalog_incremental_equals_fresh_build)
{
    lp_error err = {0};
    lp_catalog *fresh = cat_with(&err, NULL, "github_mcp.json", "filesystem_rpc.json", NULL);
    lp_catalog *inc = cat_with(&err, NULL, "slack_mcp.json", "filesystem_rpc.json",
                               "anthropic.json", "github_mcp.json", NULL);
    lp_buf a, b;
    lp_buf_init(&a, 0);
    lp_buf_init(&b, 0);
    T_CHECK_MSG(fresh && inc, "%s", err.msg);
    size_t removed = 0;
    T_CHECK_OK(lp_catalog_remove_group(inc, FIXTURES "slack_mcp.json", &removed, &err), &err);
    T_CHECK_INT(removed, 8);
    size_t n = 0;
    const lp_catalog_tool **all = lp_catalog_list(inc, &n);
    LP_VEC(char *) ids = {0};
    for (size_t i = 0; i < n; i++)
        if (!strcmp(all[i]->group, FIXTURES "anthropic.json"))
            lp_vec_push(&ids, lp_xstrdup(all[i]->id));
    free(all);
    for (size_t i = 0; i < ids.len; i++) {
        lp_error e2 = {0};
        lp_status st = lp_catalog_remove(inc, ids.items[i], &e2);
        free(ids.items[i]);
        T_CHECK(st == LP_OK);
    }
    lp_vec_free(&ids);
    T_CHECK(lp_catalog_remove(inc, "web_search", &err) == LP_ENOENT);
    T_CHECK_INT(lp_catalog_error_code(&err), LP_CATALOG_NOT_FOUND);
    fingerprint(fresh, &a);
    fingerprint(inc, &b);
    T_CHECK_MSG(!strcmp(a.ptr, b.ptr), "incremental:\n%s\nfresh:\n%s", b.ptr, a.ptr);
    /* Removing everything leaves an empty index. */
    T_CHECK_OK(lp_catalog_remove_group(inc, "github", NULL, &err), &err);
    T_CHECK_OK(lp_catalog_remove_group(inc, FIXTURES "filesystem_rpc.json", NULL, &err), &err);
    lp_catalog_stats s;
    lp_catalog_get_stats(inc, &s);
    T_CHECK(s.tools == 0 && s.terms == 0 && s.postings == 0 && s.definition_bytes == 0);
    T_CHECK_STR(top_ids(inc, "create issue", 5), "");
done:
    lp_buf_release(&a);
    lp_buf_release(&b);
    lp_catalog_free(fresh);
    lp_catalog_free(inc);
}

T_TEST(catalog_search_tools_mcp_tool)
{
    lp_error err = {0};
    lp_catalog *cat = cat_with(&err, NULL, "github_mcp.json", "odd_bytes.json", NULL);
    json_t *tool = lp_catalog_search_tools_tool(), *res = NULL;
    lp_buf text;
    lp_buf_init(&text, 0);
    T_CHECK_MSG(cat, "%s", err.msg);
    T_CHECK(tool);
    T_CHECK_STR(json_string_value(json_object_get(tool, "name")), "search_tools");
    json_t *in = json_object_get(tool, "inputSchema");
    T_CHECK(json_is_object(json_object_get(json_object_get(in, "properties"), "query")));
    T_CHECK(json_is_object(json_object_get(tool, "outputSchema")));
    T_CHECK(json_is_true(json_object_get(json_object_get(tool, "annotations"), "readOnlyHint")));
    json_t *args = lp_json_pack("{s:s, s:i, s:[s], s:{s:b}}", "query", "cafe", "maxTools",
                             3, "pinned", "github/get_issue", "annotations", "readOnlyHint", 1);
    T_CHECK_OK(lp_catalog_search_tools_call(cat, args, &res, &text, &err), &err);
    json_decref(args);
    json_t *tools = json_object_get(res, "tools");
    T_CHECK(json_array_size(tools) == 1); /* the pin; the cafe tool is not read-only */
    T_CHECK_STR(json_string_value(json_object_get(json_array_get(tools, 0), "id")),
                "github/get_issue");
    json_decref(res);
    res = NULL;
    lp_buf_reset(&text);
    args = lp_json_pack("{s:s}", "query", "cafe");
    T_CHECK_OK(lp_catalog_search_tools_call(cat, args, &res, &text, &err), &err);
    json_decref(args);
    json_t *first = json_array_get(json_object_get(res, "tools"), 0);
    T_CHECK_STR(json_string_value(json_object_get(first, "name")), "caf\xc3\xa9_lookup");
    json_t *def = json_object_get(first, "definition");
    T_CHECK(json_is_array(json_object_get(def, "x")));
    /* The text carries the original bytes verbatim. */
    const lp_catalog_tool *tl = lp_catalog_get(cat, "caf\xc3\xa9_lookup");
    T_CHECK(memmem(text.ptr, text.len, tl->definition.ptr, tl->definition.len) != NULL);
    T_CHECK(json_integer_value(json_object_get(res, "totalTokens")) == (json_int_t)tl->tokens);
    json_decref(res);
    res = NULL;
    /* Bad arguments are invalid_argument with a message an agent can act on. */
    static const char *const bad[] = {
        "{}", "{\"query\":3}", "{\"query\":\"x\",\"maxTools\":0}",
        "{\"query\":\"x\",\"maxTools\":100000}", "{\"query\":\"x\",\"pinned\":[1]}",
        "{\"query\":\"x\",\"frobnicate\":true}", "{\"query\":\"x\",\"annotations\":{\"x\":true}}",
        "{\"query\":\"x\",\"annotations\":{\"readOnlyHint\":\"yes\"}}", "[]",
        "{\"query\":\"x\",\"maxTokens\":-1}", "{\"query\":\"x\",\"includeDefinitions\":1}"};
    for (size_t i = 0; i < LP_ARRAY_LEN(bad); i++) {
        json_t *a = json_loads(bad[i], 0, NULL);
        lp_status st = lp_catalog_search_tools_call(cat, a, &res, NULL, &err);
        json_decref(a);
        T_CHECK_MSG(st != LP_OK && !res, "accepted %s", bad[i]);
        lp_catalog_code code = lp_catalog_error_code(&err);
        T_CHECK_MSG(code == LP_CATALOG_INVALID_ARGUMENT, "%s -> %s", bad[i], err.msg);
    }
done:
    json_decref(res);
    json_decref(tool);
    lp_buf_release(&text);
    lp_catalog_free(cat);
}

T_TEST(catalog_token_estimate)
{
    /* Whitespace outside strings does not count; inside strings it does. */
    size_t compact = lp_catalog_estimate_tokens(LP_STR("{\"a\":\"x y\",\"b\":[1,2]}"));
    size_t pretty =
        lp_catalog_estimate_tokens(LP_STR("{\n  \"a\": \"x y\",\n  \"b\": [ 1, 2 ]\n}\n"));
    T_CHECK_INT(compact, pretty);
    T_CHECK(lp_catalog_estimate_tokens(LP_STR("{\"a\":\"x    y\"}")) >
            lp_catalog_estimate_tokens(LP_STR("{\"a\":\"x y\"}")) - 1);
    T_CHECK_INT(lp_catalog_estimate_tokens(LP_STR("")), 0);
    /* Escaped quotes do not end a string. */
    T_CHECK_INT(lp_catalog_estimate_tokens(LP_STR("{\"a\":\"\\\"  \\\"\"}")),
                lp_catalog_estimate_tokens(LP_STR("{\"a\":\"\\\"  \\\"\"}")));
    size_t n = lp_catalog_estimate_tokens(LP_STR("{\"description\":\"Get the current weather "
                                                  "for a location.\"}"));
    T_CHECK(n >= 10 && n <= 20);
done:;
}

T_TEST(catalog_params_and_codes)
{
    lp_catalog_params p = lp_catalog_params_default();
    lp_error err = {0};
    T_CHECK_OK(lp_catalog_params_set(&p, "w.name=4.5", &err), &err);
    T_CHECK(p.weight[LP_CATALOG_F_NAME] == 4.5);
    T_CHECK_OK(lp_catalog_params_set(&p, "b.description=0.5", &err), &err);
    T_CHECK(p.b[LP_CATALOG_F_DESCRIPTION] == 0.5);
    T_CHECK_OK(lp_catalog_params_set(&p, "coverage=0.25", &err), &err);
    T_CHECK(p.coverage_floor == 0.25);
    T_CHECK(lp_catalog_params_set(&p, "b.name=2", &err) == LP_EINVAL);
    T_CHECK(lp_catalog_params_set(&p, "nope=1", &err) == LP_EINVAL);
    T_CHECK(lp_catalog_params_set(&p, "k1=", &err) == LP_EINVAL);
    T_CHECK(lp_catalog_params_set(&p, "k1=nan", &err) == LP_EINVAL);
    T_CHECK_INT(lp_catalog_error_code(&err), LP_CATALOG_INVALID_ARGUMENT);
    for (int c = 0; c < LP_CATALOG_CODE_COUNT; c++) {
        lp_error e;
        lp_error_set(&e, LP_EINVAL, "%s: x", lp_catalog_code_name((lp_catalog_code)c));
        if (c)
            T_CHECK_INT(lp_catalog_error_code(&e), c);
    }
    T_CHECK_STR(lp_catalog_code_name(LP_CATALOG_DUPLICATE_TOOL), "duplicate_tool");
    T_CHECK_STR(lp_catalog_code_name((lp_catalog_code)999), "error");
    lp_error none = {0};
    T_CHECK_INT(lp_catalog_error_code(&none), LP_CATALOG_OK);
    T_CHECK_STR(lp_catalog_provider_name(LP_CATALOG_OPENAI_RESPONSES), "openai_responses");
done:;
}
