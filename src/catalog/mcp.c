/*
 * mcp.c: the `search_tools` MCP tool over a catalog (see catalog.h for the contract).
 *
 * Arguments are validated strictly (types, ranges, unknown keys) so an agent gets an
 * error it can act on; the result is the JSON that lp_catalog_result_write_json writes,
 * with every chosen definition embedded verbatim.
 */
#include "catalog/catalog_int.h"

#define MAX_FILTER_ITEMS 64
#define MAX_TOKEN_BUDGET 10000000

static const char *const hint_keys[LP_CATALOG_NHINTS] = {
    [LP_CATALOG_HINT_READ_ONLY] = "readOnlyHint",
    [LP_CATALOG_HINT_DESTRUCTIVE] = "destructiveHint",
    [LP_CATALOG_HINT_IDEMPOTENT] = "idempotentHint",
    [LP_CATALOG_HINT_OPEN_WORLD] = "openWorldHint",
};

json_t *lp_catalog_search_tools_tool(void)
{
    lp_catalog_limits d = lp_catalog_limits_default();
    json_t *strings = lp_json_pack("{s:s, s:{s:s}, s:i, s:s}", "type", "array", "items", "type",
                                "string", "maxItems", MAX_FILTER_ITEMS, "description",
                                "Keep only tools having every one of these tags.");
    json_t *ann = json_object();
    for (int h = 0; h < LP_CATALOG_NHINTS; h++)
        json_object_set_new(ann, hint_keys[h], lp_json_pack("{s:s}", "type", "boolean"));
    json_t *input = lp_json_pack(
        "{s:s, s:{s:{s:s, s:s}, s:{s:s, s:i, s:i, s:i, s:s}, s:{s:s, s:i, s:i, s:s},"
        " s:o, s:o, s:o, s:{s:s, s:o, s:b, s:s}, s:{s:s, s:b, s:s}},"
        " s:[s], s:b}",
        "type", "object", "properties",
        "query", "type", "string", "description",
        "What the agent wants to do, in words (\"open a pull request\") or a tool name.",
        "maxTools", "type", "integer", "minimum", 1, "maximum", (int)d.max_results,
        "default", 5, "description", "Most tools to return.",
        "maxTokens", "type", "integer", "minimum", 0, "maximum", MAX_TOKEN_BUDGET,
        "description", "Token budget for the returned definitions (estimated); 0 = none.",
        "pinned", lp_json_pack("{s:s, s:{s:s}, s:i, s:s}", "type", "array", "items", "type",
                            "string", "maxItems", (int)d.max_pins, "description",
                            "Tool ids or names always returned first."),
        "namespaces", lp_json_pack("{s:s, s:{s:s}, s:i, s:s}", "type", "array", "items", "type",
                                "string", "maxItems", MAX_FILTER_ITEMS, "description",
                                "Keep only tools of these servers/namespaces."),
        "tags", strings,
        "annotations", "type", "object", "properties", ann, "additionalProperties", 0,
        "description", "Keep only tools whose MCP annotation hints have these values "
                       "(absent hints take the MCP defaults).",
        "includeDefinitions", "type", "boolean", "default", 1, "description",
        "Embed each tool's original definition.",
        "required", "query", "additionalProperties", 0);
    json_t *hit = lp_json_pack(
        "{s:s, s:{s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s},"
        " s:{s:s}, s:{s:s}}, s:[s,s,s,s,s,s,s]}",
        "type", "object", "properties", "rank", "type", "integer", "id", "type", "string",
        "name", "type", "string", "namespace", "type", "string", "provider", "type", "string",
        "score", "type", "number", "tokens", "type", "integer", "pinned", "type", "boolean",
        "matchedTerms", "type", "integer", "definition", "type", "object", "required", "rank",
        "id", "name", "namespace", "provider", "score", "tokens");
    /* Which retrieval channels found each tool, and which ran for the query. */
    json_t *channels = lp_json_pack("{s:s, s:{s:s, s:[s,s,s,s]}}", "type", "array", "items", "type",
                                 "string", "enum", "lexical", "dense", "exact", "words");
    json_t *hprops = json_object_get(hit, "properties");
    json_object_set(hprops, "channels", channels);
    json_object_set_new(hprops, "similarity",
                        lp_json_pack("{s:s, s:s}", "type", "number", "description",
                                  "Cosine of the query and the tool (dense channel)."));
    json_t *output = lp_json_pack(
        "{s:s, s:{s:{s:s}, s:{s:s, s:o}, s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s}, s:{s:s},"
        " s:{s:s}, s:{s:s, s:{s:s, s:{s:{s:s}, s:{s:s}}}}}, s:[s,s,s]}",
        "type", "object", "properties", "query", "type", "string", "tools", "type", "array",
        "items", hit, "totalTokens", "type", "integer", "queryTerms", "type", "integer",
        "matched", "type", "integer", "omittedForBudget", "type", "integer", "omittedForCount",
        "type", "integer", "catalogTools", "type", "integer", "warnings", "type", "array",
        "items", "type", "object", "properties", "code", "type", "string", "message", "type",
        "string", "required", "query", "tools", "totalTokens");
    json_object_set_new(json_object_get(output, "properties"), "channels", channels);
    json_t *tool = lp_json_pack(
        "{s:s, s:s, s:s, s:o, s:o, s:{s:b, s:b, s:b, s:b}}", "name", "search_tools", "title",
        "Search tools",
        "description",
        "Find the few tools that fit a task among all the tools available, within a tool "
        "count and token budget. Returns each chosen tool's original definition, its "
        "relevance score, the channels that found it (lexical: words, dense: meaning, exact: "
        "its name) and its estimated token cost, best first.",
        "inputSchema", input, "outputSchema", output, "annotations", "readOnlyHint", 1,
        "destructiveHint", 0, "idempotentHint", 1, "openWorldHint", 0);
    return tool;
}

static lp_status bad(lp_error *err, const char *what)
{
    return lp_cat_fail(err, LP_CATALOG_INVALID_ARGUMENT, "%s; see the inputSchema of "
                       "search_tools", what);
}

/* Borrow an array of strings from v into out (owned array of borrowed pointers). */
static lp_status strings_of(json_t *v, const char *key, size_t max, const char ***out,
                            size_t *n, lp_error *err)
{
    char msg[160];
    if (!json_is_array(v) || json_array_size(v) > max) {
        snprintf(msg, sizeof msg, "\"%s\" must be an array of at most %zu strings", key, max);
        return bad(err, msg);
    }
    *n = json_array_size(v);
    *out = lp_xcalloc(*n + 1, sizeof **out);
    for (size_t i = 0; i < *n; i++) {
        json_t *e = json_array_get(v, i);
        if (!json_is_string(e)) {
            snprintf(msg, sizeof msg, "\"%s\"[%zu] is not a string", key, i);
            return bad(err, msg);
        }
        (*out)[i] = json_string_value(e);
    }
    return LP_OK;
}

lp_status lp_catalog_search_tools_call(const lp_catalog *cat, const json_t *arguments,
                                       json_t **result, lp_buf *text, lp_error *err)
{
    lp_catalog_query q = {0};
    const char **pins = NULL, **nss = NULL, **tags = NULL;
    bool with_defs = true;
    lp_catalog_result r = {0};
    lp_buf out;
    lp_buf_init(&out, 0);
    lp_status st = LP_OK;
    *result = NULL;
    if (!json_is_object(arguments)) {
        st = bad(err, "arguments must be an object with a \"query\" string");
        goto done;
    }
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)arguments, key, v)
    {
        char msg[200];
        if (!strcmp(key, "query")) {
            if (!json_is_string(v)) {
                st = bad(err, "\"query\" must be a string");
                goto done;
            }
            q.text = (lp_str){json_string_value(v), json_string_length(v)};
        } else if (!strcmp(key, "maxTools")) {
            json_int_t n = json_is_integer(v) ? json_integer_value(v) : -1;
            if (n < 1 || (size_t)n > cat->limits.max_results) {
                snprintf(msg, sizeof msg, "\"maxTools\" must be an integer from 1 to %zu",
                         cat->limits.max_results);
                st = bad(err, msg);
                goto done;
            }
            q.max_tools = (size_t)n;
        } else if (!strcmp(key, "maxTokens")) {
            json_int_t n = json_is_integer(v) ? json_integer_value(v) : -1;
            if (n < 0 || n > MAX_TOKEN_BUDGET) {
                st = bad(err, "\"maxTokens\" must be an integer from 0 to 10000000");
                goto done;
            }
            q.max_tokens = (size_t)n;
        } else if (!strcmp(key, "pinned")) {
            st = strings_of(v, key, cat->limits.max_pins, &pins, &q.npinned, err);
        } else if (!strcmp(key, "namespaces")) {
            st = strings_of(v, key, MAX_FILTER_ITEMS, &nss, &q.nnamespaces, err);
        } else if (!strcmp(key, "tags")) {
            st = strings_of(v, key, MAX_FILTER_ITEMS, &tags, &q.ntags, err);
        } else if (!strcmp(key, "includeDefinitions")) {
            if (!json_is_boolean(v)) {
                st = bad(err, "\"includeDefinitions\" must be a boolean");
                goto done;
            }
            with_defs = json_is_true(v);
        } else if (!strcmp(key, "annotations")) {
            if (!json_is_object(v)) {
                st = bad(err, "\"annotations\" must be an object of boolean hints");
                goto done;
            }
            const char *hk;
            json_t *hv;
            json_object_foreach(v, hk, hv)
            {
                int h = 0;
                while (h < LP_CATALOG_NHINTS && strcmp(hint_keys[h], hk) != 0)
                    h++;
                if (h == LP_CATALOG_NHINTS || !json_is_boolean(hv)) {
                    snprintf(msg, sizeof msg,
                             "annotation filter \"%.*s\" is not one of readOnlyHint, "
                             "destructiveHint, idempotentHint, openWorldHint with a boolean",
                             LP_CUT(hk, 40));
                    st = bad(err, msg);
                    goto done;
                }
                q.hints[h] = json_is_true(hv) ? LP_HINT_TRUE : LP_HINT_FALSE;
            }
        } else {
            snprintf(msg, sizeof msg, "unknown argument \"%.*s\"", LP_CUT(key, 40));
            st = bad(err, msg);
            goto done;
        }
        if (st)
            goto done;
    }
    if (!q.text.ptr) {
        st = bad(err, "\"query\" is required");
        goto done;
    }
    q.pinned = pins;
    q.namespaces = nss;
    q.tags = tags;
    st = lp_catalog_search(cat, &q, &r, err);
    if (st)
        goto done;
    lp_catalog_result_write_json(cat, &q, &r, with_defs, &out);
    json_error_t jerr;
    *result = json_loadb(out.ptr, out.len, 0, &jerr);
    if (!*result) {
        st = lp_error_set(err, LP_ERROR, "search_tools produced invalid JSON (%s); this is a "
                          "bug", jerr.text);
        goto done;
    }
    if (text)
        lp_buf_append(text, out.ptr, out.len);
done:
    lp_catalog_result_release(&r);
    lp_buf_release(&out);
    free(pins);
    free(nss);
    free(tags);
    return st;
}
