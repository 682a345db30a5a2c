/*
 * test_catalog_hostile.c: hostile and malformed catalog input. Every case must end in a
 * clear, typed error or a bounded result; none may crash, hang or leak (ASan build).
 */
#include "cat_helpers.h"

static lp_status parse_text(lp_catalog *cat, const char *json, size_t len, bool lenient,
                            lp_catalog_batch **b, lp_error *err)
{
    lp_catalog_parse_opts o = {.source = "hostile.json", .lenient = lenient};
    return lp_catalog_parse(cat, json, len, &o, b, err);
}

/* Parse must fail with this code; the message must name the source. */
static bool fails_with(lp_catalog *cat, const char *json, lp_catalog_code code, lp_error *err)
{
    lp_catalog_batch *b = NULL;
    lp_status st = parse_text(cat, json, strlen(json), false, &b, err);
    lp_catalog_batch_free(b);
    return st != LP_OK && !b && lp_catalog_error_code(err) == code &&
           strstr(err->msg, "hostile.json") != NULL;
}

T_TEST(catalog_hostile_deep_nesting)
{
    lp_error err = {0};
    lp_catalog *cat = NULL;
    lp_catalog_batch *b = NULL;
    lp_buf j;
    lp_buf_init(&j, 0);
    T_CHECK_OK(lp_catalog_new(NULL, NULL, &cat, &err), &err);
    /* 10,000 levels: jansson refuses past its depth limit; a clear invalid_json. */
    lp_buf_puts(&j, "[{\"name\":\"deep\",\"inputSchema\":");
    for (int i = 0; i < 10000; i++)
        lp_buf_puts(&j, "{\"a\":");
    lp_buf_puts(&j, "1");
    for (int i = 0; i < 10000; i++)
        lp_buf_putc(&j, '}');
    lp_buf_puts(&j, "}]");
    T_CHECK(fails_with(cat, j.ptr, LP_CATALOG_INVALID_JSON, &err));
    T_CHECK(strstr(err.msg, "depth") != NULL);
    T_CHECK(strstr(err.msg, "byte") != NULL);
    /* 1,000 levels parse; the schema walk stops at its depth limit and says so. */
    lp_buf_reset(&j);
    lp_buf_puts(&j, "[{\"name\":\"deep\",\"description\":\"nested\",\"inputSchema\":");
    for (int i = 0; i < 1000; i++)
        lp_buf_printf(&j, "{\"properties\":{\"zq%c%c%c\":", 'a' + i / 676, 'a' + i / 26 % 26,
                      'a' + i % 26);
    lp_buf_puts(&j, "{}");
    for (int i = 0; i < 1000; i++)
        lp_buf_puts(&j, "}}");
    lp_buf_puts(&j, "}]");
    T_CHECK_OK(parse_text(cat, j.ptr, j.len, false, &b, &err), &err);
    T_CHECK_OK(lp_catalog_add(cat, b, &err), &err);
    const lp_catalog_tool *tl = lp_catalog_get(cat, "deep");
    T_CHECK(tl && tl->schema_truncated);
    T_CHECK_STR(top1(cat, "zqaad"), "deep");        /* level 3 */
    T_CHECK_STR(top_ids(cat, "zqbjq", 1), "");       /* level 900 */
done:
    lp_catalog_batch_free(b);
    lp_buf_release(&j);
    lp_catalog_free(cat);
}

T_TEST(catalog_hostile_million_node_schema)
{
    lp_error err = {0};
    lp_catalog *cat = NULL;
    lp_catalog_batch *b = NULL;
    lp_buf j;
    lp_buf_init(&j, 0);
    lp_buf_puts(&j, "{\"name\":\"wide\",\"description\":\"wide schema\",\"inputSchema\":"
                    "{\"properties\":{\"first\":{\"description\":\"findme\"}},\"anyOf\":[");
    for (int i = 0; i < 1000000; i++)
        lp_buf_puts(&j, i ? ",[]" : "[]");
    lp_buf_puts(&j, "]}}");
    /* Default limits: the definition is too large. */
    T_CHECK_OK(lp_catalog_new(NULL, NULL, &cat, &err), &err);
    T_CHECK(fails_with(cat, j.ptr, LP_CATALOG_DEFINITION_TOO_LARGE, &err));
    T_CHECK(strstr(err.msg, "max_definition_bytes") != NULL);
    lp_catalog_free(cat);
    cat = NULL;
    /* Raised limits: it parses, and the walk stops at the node limit. */
    lp_catalog_limits lim = {.max_definition_bytes = 16u << 20};
    T_CHECK_OK(lp_catalog_new(&lim, NULL, &cat, &err), &err);
    uint64_t t0 = t_cpu_ns();
    T_CHECK_OK(parse_text(cat, j.ptr, j.len, false, &b, &err), &err);
    T_CHECK_OK(lp_catalog_add(cat, b, &err), &err);
    T_CHECK((t_cpu_ns() - t0) / 1000000 < 60000);
    const lp_catalog_tool *tl = lp_catalog_get(cat, "wide");
    T_CHECK(tl && tl->schema_truncated);
    T_CHECK_STR(top1(cat, "findme"), "wide");
done:
    lp_catalog_batch_free(b);
    lp_buf_release(&j);
    lp_catalog_free(cat);
}

T_TEST(catalog_hostile_huge_strings)
{
    lp_error err = {0};
    lp_catalog *cat = NULL;
    lp_catalog_batch *b = NULL;
    lp_buf j;
    lp_buf_init(&j, 0);
    lp_buf_puts(&j, "[{\"name\":\"huge\",\"description\":\"alpha ");
    for (int i = 0; i < 1000000; i++)
        lp_buf_puts(&j, "lorem ipsum ");
    lp_buf_puts(&j, "omega\"}]");
    T_CHECK_OK(lp_catalog_new(NULL, NULL, &cat, &err), &err);
    T_CHECK(fails_with(cat, j.ptr, LP_CATALOG_DEFINITION_TOO_LARGE, &err));
    lp_catalog_free(cat);
    cat = NULL;
    lp_catalog_limits lim = {.max_definition_bytes = 16u << 20};
    /* Lexical indexing is what is tested: the word channel relates "omega" to "alpha". */
    lp_catalog_params P = lp_catalog_params_default();
    P.words_weight = 0;
    T_CHECK_OK(lp_catalog_new(&lim, &P, &cat, &err), &err);
    T_CHECK_OK(parse_text(cat, j.ptr, j.len, false, &b, &err), &err);
    T_CHECK_OK(lp_catalog_add(cat, b, &err), &err);
    /* Indexed up to max_text_bytes: the start is searchable, the far end is not. */
    T_CHECK_STR(top1(cat, "alpha"), "huge");
    T_CHECK_STR(top_ids(cat, "omega", 1), "");
    /* The description itself is kept whole, the definition byte-exact. */
    const lp_catalog_tool *tl = lp_catalog_get(cat, "huge");
    T_CHECK(tl && strlen(tl->description) > 12000000);
    T_CHECK(tl->definition.len == j.len - 2);
done:
    lp_catalog_batch_free(b);
    lp_buf_release(&j);
    lp_catalog_free(cat);
}

T_TEST(catalog_hostile_keys_and_ref_loops)
{
    lp_error err = {0};
    lp_catalog *cat = NULL;
    T_CHECK_OK(lp_catalog_new(NULL, NULL, &cat, &err), &err);
    const char *j =
        "[{\"name\":\"safe_tool\",\"description\":\"does safe things\",\"inputSchema\":{"
        "\"type\":\"object\",\"properties\":{"
        "\"__proto__\":{\"description\":\"pollution\"},"
        "\"constructor\":{\"description\":\"hijack\"},"
        "\"path\":{\"description\":\"target path\",\"$ref\":\"#/$defs/loop\"}},"
        "\"$defs\":{\"loop\":{\"$ref\":\"#/$defs/loop\",\"description\":\"looping node\","
        "\"properties\":{\"again\":{\"$ref\":\"#\"}}}}}}]";
    T_CHECK_OK(cat_add_text(cat, j, NULL, NULL, &err), &err);
    T_CHECK_STR(top1(cat, "target path"), "safe_tool");
    T_CHECK_STR(top_ids(cat, "pollution", 1), "");
    T_CHECK_STR(top_ids(cat, "hijack", 1), "");
    T_CHECK_STR(top_ids(cat, "proto", 1), "");
    /* $defs are walked once as ordinary nodes; $ref is never followed. */
    T_CHECK_STR(top1(cat, "looping"), "safe_tool");
    T_CHECK(!lp_catalog_get(cat, "safe_tool")->schema_truncated);
done:
    lp_catalog_free(cat);
}

T_TEST(catalog_hostile_malformed_documents)
{
    lp_error err = {0};
    lp_catalog *cat = NULL;
    lp_catalog_batch *b = NULL;
    T_CHECK_OK(lp_catalog_new(NULL, NULL, &cat, &err), &err);
    /* Not JSON: position, line and column. */
    T_CHECK(fails_with(cat, "[\n  {\"name\": \"a\"},\n  {\"name\": }\n]", LP_CATALOG_INVALID_JSON,
                       &err));
    T_CHECK_MSG(strstr(err.msg, "hostile.json:3:") != NULL, "%s", err.msg);
    T_CHECK(fails_with(cat, "", LP_CATALOG_INVALID_JSON, &err));
    T_CHECK(fails_with(cat, "   \n ", LP_CATALOG_INVALID_JSON, &err));
    T_CHECK(fails_with(cat, "[{\"name\":\"a\xff\"}]", LP_CATALOG_INVALID_JSON, &err));
    T_CHECK(fails_with(cat, "[{\"name\":\"a\",\"name\":\"b\"}]", LP_CATALOG_INVALID_JSON, &err));
    T_CHECK(strstr(err.msg, "duplicate") != NULL);
    T_CHECK(fails_with(cat, "[{\"name\":\"a\\u0000b\"}]", LP_CATALOG_INVALID_JSON, &err));
    T_CHECK(fails_with(cat, "[{\"name\":\"a\"}] trailing", LP_CATALOG_INVALID_JSON, &err));
    const char nul[] = "[{\"name\":\"a\"}\0]";
    T_CHECK(parse_text(cat, nul, sizeof nul - 1, false, &b, &err) != LP_OK && !b);
    T_CHECK_INT(lp_catalog_error_code(&err), LP_CATALOG_INVALID_JSON);
    /* JSON, but not a catalog. */
    T_CHECK(fails_with(cat, "42", LP_CATALOG_UNKNOWN_SHAPE, &err));
    T_CHECK(fails_with(cat, "{\"foo\":1}", LP_CATALOG_UNKNOWN_SHAPE, &err));
    T_CHECK(fails_with(cat, "{\"tools\":{}}", LP_CATALOG_UNKNOWN_SHAPE, &err));
    /* Bad entries, strict. */
    T_CHECK(fails_with(cat, "[1]", LP_CATALOG_INVALID_DEFINITION, &err));
    T_CHECK(strstr(err.msg, "entry #1") && strstr(err.msg, "a number"));
    T_CHECK(fails_with(cat, "[{\"name\":\"ok\"}, null]", LP_CATALOG_INVALID_DEFINITION, &err));
    T_CHECK(strstr(err.msg, "entry #2") != NULL);
    T_CHECK(fails_with(cat, "[{\"description\":\"no name\"}]", LP_CATALOG_MISSING_NAME, &err));
    T_CHECK(fails_with(cat, "[{\"name\":7}]", LP_CATALOG_MISSING_NAME, &err));
    T_CHECK(fails_with(cat, "[{\"name\":\"\"}]", LP_CATALOG_INVALID_NAME, &err));
    T_CHECK(fails_with(cat, "[{\"name\":\"a\\u0001\"}]", LP_CATALOG_INVALID_NAME, &err));
    T_CHECK(fails_with(cat, "[{\"name\":\"a\",\"description\":[]}]",
                       LP_CATALOG_INVALID_DEFINITION, &err));
    T_CHECK(fails_with(cat, "[{\"name\":\"a\"},{\"name\":\"a\"}]", LP_CATALOG_DUPLICATE_TOOL,
                       &err));
    char longname[400];
    memset(longname, 'n', sizeof longname);
    longname[sizeof longname - 1] = 0;
    lp_buf j;
    lp_buf_init(&j, 0);
    lp_buf_printf(&j, "[{\"name\":\"%s\"}]", longname);
    T_CHECK(fails_with(cat, j.ptr, LP_CATALOG_INVALID_NAME, &err));
    lp_buf_release(&j);
    /* Lenient: bad entries are skipped with one warning each. */
    const char *mixed = "[1, \"x\", null, [], {\"name\":\"\"}, {\"name\":\"ok\"}, {\"type\":"
                        "\"web_search_preview\"}, {\"googleSearch\":{}}]";
    T_CHECK_OK(parse_text(cat, mixed, strlen(mixed), true, &b, &err), &err);
    T_CHECK_INT(lp_catalog_batch_count(b), 1);
    T_CHECK_INT(lp_catalog_batch_warning_count(b), 7);
    T_CHECK(!strncmp(lp_catalog_batch_warning(b, 0), "invalid_definition:", 19));
    T_CHECK(!strncmp(lp_catalog_batch_warning(b, 4), "invalid_name:", 13));
    T_CHECK(!strncmp(lp_catalog_batch_warning(b, 6), "builtin_tool:", 13));
    T_CHECK(lp_catalog_batch_warning(b, 7) == NULL);
    lp_catalog_batch_free(b);
    b = NULL;
    /* A byte order mark is fine. */
    T_CHECK_OK(parse_text(cat, "\xef\xbb\xbf[{\"name\":\"bom\"}]", 19, false, &b, &err), &err);
    T_CHECK_INT(lp_catalog_batch_count(b), 1);
done:
    lp_catalog_batch_free(b);
    lp_catalog_free(cat);
}

T_TEST(catalog_hostile_limits)
{
    lp_error err = {0};
    lp_catalog *cat = NULL;
    lp_catalog_batch *b = NULL;
    lp_catalog_result r = {0};
    /* Above an absolute maximum. */
    lp_catalog_limits too = {.max_tools = 10000000};
    T_CHECK(lp_catalog_new(&too, NULL, &cat, &err) == LP_EINVAL && !cat);
    T_CHECK_INT(lp_catalog_error_code(&err), LP_CATALOG_INVALID_LIMIT);
    T_CHECK(strstr(err.msg, "max_tools") != NULL);
    lp_catalog_limits d = lp_catalog_limits_default(), m = lp_catalog_limits_max();
    T_CHECK(d.max_tools <= m.max_tools && d.max_query_bytes <= m.max_query_bytes);
    /* Small limits: tools, file bytes, catalog bytes. */
    lp_catalog_limits small = {.max_tools = 3, .max_file_bytes = 200, .max_catalog_bytes = 60};
    T_CHECK_OK(lp_catalog_new(&small, NULL, &cat, &err), &err);
    T_CHECK(fails_with(cat, "[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"},{\"name\":\"d\"}]",
                       LP_CATALOG_TOO_MANY_TOOLS, &err));
    char big[300];
    memset(big, ' ', sizeof big);
    memcpy(big, "[{\"name\":\"a\"}]", 14);
    big[299] = 0;
    T_CHECK(fails_with(cat, big, LP_CATALOG_FILE_TOO_LARGE, &err));
    T_CHECK_OK(cat_add_text(cat, "[{\"name\":\"a\"},{\"name\":\"b\"}]", NULL, "g1", &err), &err);
    /* Over max_tools across files, and over catalog bytes: refused, nothing changes. */
    T_CHECK(cat_add_text(cat, "[{\"name\":\"c\"},{\"name\":\"d\"}]", NULL, "g2", &err) ==
            LP_ETOOBIG);
    T_CHECK_INT(lp_catalog_error_code(&err), LP_CATALOG_TOO_MANY_TOOLS);
    T_CHECK(cat_add_text(cat, "[{\"name\":\"c\",\"description\":\"0123456789012345678901234567"
                              "8901234567890123456789\"}]",
                         NULL, "g2", &err) == LP_ETOOBIG);
    T_CHECK_INT(lp_catalog_error_code(&err), LP_CATALOG_CATALOG_TOO_LARGE);
    T_CHECK_INT(lp_catalog_count(cat), 2);
    /* Query limits. */
    lp_buf q;
    lp_buf_init(&q, 0);
    for (int i = 0; i < 5000; i++)
        lp_buf_puts(&q, "a");
    lp_catalog_query query = {.text = lp_buf_str(&q)};
    T_CHECK(lp_catalog_search(cat, &query, &r, &err) == LP_ETOOBIG);
    T_CHECK_INT(lp_catalog_error_code(&err), LP_CATALOG_QUERY_TOO_LONG);
    lp_buf_reset(&q);
    for (int i = 0; i < 100; i++)
        lp_buf_printf(&q, "w%dx ", i);
    query.text = lp_buf_str(&q);
    T_CHECK_OK(lp_catalog_search(cat, &query, &r, &err), &err);
    T_CHECK_INT(r.query_terms, lp_catalog_get_limits(cat)->max_query_terms);
    T_CHECK(r.nwarnings == 1 && !strncmp(r.warnings[0], "query_terms_truncated:", 22));
    lp_catalog_result_release(&r);
    query.max_tools = 1000000;
    T_CHECK(lp_catalog_search(cat, &query, &r, &err) == LP_EINVAL);
    T_CHECK_INT(lp_catalog_error_code(&err), LP_CATALOG_INVALID_LIMIT);
    lp_buf_release(&q);
done:
    lp_catalog_result_release(&r);
    lp_catalog_batch_free(b);
    lp_catalog_free(cat);
}

/* Deterministic mutations of a real catalog file: every outcome is a status, and every
 * definition of a successful parse is a valid JSON object that is a slice of the input. */
T_TEST(catalog_hostile_mutation_fuzz)
{
    lp_error err = {0};
    lp_catalog *cat = NULL;
    lp_buf orig, m;
    lp_buf_init(&orig, 0);
    lp_buf_init(&m, 0);
    T_CHECK_OK(lp_catalog_new(NULL, NULL, &cat, &err), &err);
    T_CHECK_OK(lp_read_file(FIXTURES "slack_mcp.json", 1 << 20, &orig, &err), &err);
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    static const char junk[] = "{}[]\",:\\\x00\xff\xc3 0eE-.tn";
    size_t ok = 0;
    for (int iter = 0; iter < 600; iter++) {
        lp_buf_reset(&m);
        lp_buf_append(&m, orig.ptr, orig.len);
        int edits = 1 + iter % 4;
        for (int e = 0; e < edits; e++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            size_t pos = (size_t)(seed >> 33) % m.len;
            char c = junk[(seed >> 20) % (sizeof junk - 1)];
            switch ((seed >> 8) % 3) {
            case 0:
                m.ptr[pos] = c;
                break;
            case 1:
                lp_buf_truncate(&m, pos);
                break;
            default:
                m.ptr[pos] = m.ptr[(pos * 7) % m.len];
            }
            if (m.len == 0)
                break;
        }
        lp_catalog_batch *b = NULL;
        lp_catalog_parse_opts o = {.source = "fuzz", .lenient = iter % 2 == 0};
        lp_status st = lp_catalog_parse(cat, m.ptr, m.len, &o, &b, &err);
        if (st == LP_OK) {
            ok++;
            lp_catalog *c2 = NULL;
            T_CHECK_OK(lp_catalog_new(NULL, NULL, &c2, &err), &err);
            lp_status st2 = lp_catalog_add(c2, b, &err);
            if (st2 == LP_OK) {
                size_t n;
                const lp_catalog_tool **all = lp_catalog_list(c2, &n);
                for (size_t i = 0; i < n; i++) {
                    lp_str d = all[i]->definition;
                    json_t *j = json_loadb(d.ptr, d.len, 0, NULL);
                    bool good = j && json_is_object(j) && d.ptr >= (const char *)0 &&
                                memmem(m.ptr, m.len, d.ptr, d.len);
                    json_decref(j);
                    if (!good) {
                        free(all);
                        lp_catalog_free(c2);
                        lp_catalog_batch_free(b);
                        T_CHECK_MSG(false, "iteration %d: bad definition slice", iter);
                    }
                }
                free(all);
                top_ids(c2, "post message channel", 5);
            }
            lp_catalog_free(c2);
        } else {
            T_CHECK_MSG(lp_catalog_error_code(&err) != LP_CATALOG_OK, "untyped error: %s",
                        err.msg);
        }
        lp_catalog_batch_free(b);
    }
    T_CHECK(ok > 10); /* some mutations land in strings and stay valid */
done:
    lp_buf_release(&orig);
    lp_buf_release(&m);
    lp_catalog_free(cat);
}
