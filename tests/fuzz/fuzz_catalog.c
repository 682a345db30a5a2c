/*
 * fuzz_catalog.c: the tool-catalog parser (src/catalog/parse.c and its JSON reader json.c)
 * on hostile documents.
 *
 * Input: byte 0 selects options (bit 0: lenient, bit 1: a server name given by the caller);
 * the rest is the document.
 *
 * Invariants checked:
 *   - json.c never accepts what jansson (JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, the
 *     reference the slow path reports errors with) refuses, and when both accept, the trees
 *     agree: types, decoded strings, members in jansson's iteration order;
 *   - whenever jansson accepts, json.c accepts in trusted mode (the slow path relies on it);
 *   - every container's range holds exactly its value: jscan (the slow path's locator)
 *     finds the same element and member ranges, and the token estimate from the parse
 *     counts equals lp_catalog_estimate_tokens of the bytes;
 *   - lp_catalog_parse ends in a batch or a coded error with a message, the same twice;
 *     a batch can be added to a catalog, searched and removed.
 */
#include "fuzz.h"

#include "catalog/catalog_int.h"

static lp_catalog *cat;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    lp_log_set_level(LP_LOG_OFF);
    lp_catalog_params params = lp_catalog_params_default();
    params.dense_weight = 0; /* no models: this target is about parsing */
    params.words_weight = 0;
    lp_error err = {0};
    if (lp_catalog_new(NULL, &params, &cat, &err) != LP_OK) {
        fprintf(stderr, "fuzz_catalog: %s\n", err.msg);
        abort();
    }
    return 0;
}

/* Does our tree v equal jansson's j? */
static bool same_tree(const lp_json *v, const json_t *j)
{
    switch (json_typeof(j)) {
    case JSON_NULL:
        return v->type == LP_JSON_NULL;
    case JSON_TRUE:
        return v->type == LP_JSON_TRUE;
    case JSON_FALSE:
        return v->type == LP_JSON_FALSE;
    case JSON_INTEGER:
    case JSON_REAL:
        return v->type == LP_JSON_NUMBER;
    case JSON_STRING:
        return v->type == LP_JSON_STRING && v->n == json_string_length(j) &&
               !memcmp(v->str, json_string_value(j), v->n) && v->str[v->n] == '\0';
    case JSON_ARRAY:
        if (v->type != LP_JSON_ARRAY || v->n != json_array_size(j))
            return false;
        for (uint32_t i = 0; i < v->n; i++)
            if (!same_tree(&v->items[i], json_array_get(j, i)))
                return false;
        return true;
    case JSON_OBJECT: {
        if (v->type != LP_JSON_OBJECT || v->n != json_object_size(j))
            return false;
        uint32_t i = 0;
        const char *k;
        json_t *m;
        json_object_foreach((json_t *)j, k, m)
        {
            if (strlen(k) != v->pairs[i].klen || strcmp(k, v->pairs[i].key) ||
                !same_tree(&v->pairs[i].val, m))
                return false;
            i++;
        }
        return i == v->n;
    }
    }
    return false;
}

/* Ranges and counts of every container under v (s is the parsed text). */
static void check_ranges(const char *s, size_t len, const lp_json *v)
{
    LP_FUZZ_CHECK(v->start < v->end && v->end <= len);
    if (v->type != LP_JSON_ARRAY && v->type != LP_JSON_OBJECT)
        return;
    lp_jrange r = {v->start, v->end};
    lp_str bytes = {s + v->start, v->end - v->start};
    LP_FUZZ_CHECK(lp_json_estimate_tokens(v) == lp_catalog_estimate_tokens(bytes));
    if (v->type == LP_JSON_ARRAY) {
        lp_jrange_vec el = {0};
        LP_FUZZ_CHECK(lp_jscan_array(s, len, r, &el));
        LP_FUZZ_CHECK(el.len == v->n);
        for (uint32_t i = 0; i < v->n; i++) {
            LP_FUZZ_CHECK(el.items[i].start == v->items[i].start);
            LP_FUZZ_CHECK(el.items[i].end == v->items[i].end);
            check_ranges(s, len, &v->items[i]);
        }
        lp_vec_free(&el);
    } else {
        lp_jmember_vec m = {0};
        LP_FUZZ_CHECK(lp_jscan_object(s, len, r, &m));
        LP_FUZZ_CHECK(m.len == v->n);
        for (uint32_t i = 0; i < v->n; i++) {
            LP_FUZZ_CHECK(m.items[i].value.start == v->pairs[i].val.start);
            LP_FUZZ_CHECK(m.items[i].value.end == v->pairs[i].val.end);
            LP_FUZZ_CHECK(lp_jscan_key_is(s, m.items[i], v->pairs[i].key) ||
                          memchr(s + m.items[i].key.start, '\\',
                                 m.items[i].key.end - m.items[i].key.start) ||
                          (unsigned char)v->pairs[i].key[0] >= 0x80);
            check_ranges(s, len, &v->pairs[i].val);
        }
        lp_vec_free(&m);
    }
}

static void check_json(const char *s, size_t len)
{
    json_error_t jerr;
    json_t *j = json_loadb(s, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    lp_arena a;
    lp_arena_init(&a, 0);
    const lp_json *v = lp_json_parse(&a, s, len, 0, 0);
    if (v) {
        LP_FUZZ_CHECK(j != NULL);
        LP_FUZZ_CHECK(same_tree(v, j));
        check_ranges(s, len, v);
    }
    if (j) {
        const lp_json *t = lp_json_parse(&a, s, len, LP_JSON_TRUSTED, 0);
        LP_FUZZ_CHECK(t != NULL);
        LP_FUZZ_CHECK(same_tree(t, j));
    }
    json_decref(j);
    lp_arena_release(&a);
}

static lp_status parse(const char *s, size_t len, const lp_catalog_parse_opts *o,
                       lp_catalog_batch **b, lp_error *err)
{
    lp_status st = lp_catalog_parse(cat, s, len, o, b, err);
    if (st) {
        LP_FUZZ_CHECK(*b == NULL);
        LP_FUZZ_CHECK(err->msg[0] != '\0');
        LP_FUZZ_CHECK(lp_catalog_error_code(err) != LP_CATALOG_OK);
    } else {
        LP_FUZZ_CHECK(*b != NULL);
    }
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const char *s = (const char *)data + 1;
    size_t len = size - 1;
    if (len <= (4u << 20))
        check_json(s, len);
    lp_catalog_parse_opts o = {.source = "fuzz.json",
                               .lenient = data[0] & 1,
                               .server = data[0] & 2 ? "srv" : NULL};
    lp_catalog_batch *b1 = NULL, *b2 = NULL;
    lp_error e1 = {0}, e2 = {0};
    lp_status s1 = parse(s, len, &o, &b1, &e1);
    lp_status s2 = parse(s, len, &o, &b2, &e2);
    LP_FUZZ_CHECK(s1 == s2);
    LP_FUZZ_CHECK(!strcmp(e1.msg, e2.msg));
    if (!s1) {
        LP_FUZZ_CHECK(lp_catalog_batch_count(b1) == lp_catalog_batch_count(b2));
        LP_FUZZ_CHECK(lp_catalog_batch_warning_count(b1) == lp_catalog_batch_warning_count(b2));
        lp_error err = {0};
        char *group = lp_xstrdup(b1->group);
        if (lp_catalog_add(cat, b1, &err) == LP_OK) {
            lp_catalog_query q = {.text = LP_STR("get list create"), .max_tools = 5};
            lp_catalog_result r;
            if (lp_catalog_search(cat, &q, &r, NULL) == LP_OK)
                lp_catalog_result_release(&r);
            size_t removed = 0;
            lp_status rs = lp_catalog_remove_group(cat, group, &removed, NULL);
            LP_FUZZ_CHECK(rs == LP_OK || lp_catalog_batch_count(b2) == 0);
            LP_FUZZ_CHECK(removed == lp_catalog_batch_count(b2));
        }
        free(group);
    }
    lp_catalog_batch_free(b1);
    lp_catalog_batch_free(b2);
    return 0;
}
