/*
 * cat_helpers.h: shared helpers of the catalog unit tests (test_catalog*.c).
 */
#ifndef LP_CAT_HELPERS_H
#define LP_CAT_HELPERS_H

#include "catalog/catalog.h"
#include "t.h"

#define FIXTURES "tests/fixtures/catalog/"

/* A catalog with the given fixture files added (NULL-terminated list); NULL on failure
 * with err filled. */
static inline lp_catalog *cat_with(lp_error *err, const lp_catalog_limits *lim, ...)
{
    lp_catalog *cat = NULL;
    if (lp_catalog_new(lim, NULL, &cat, err))
        return NULL;
    va_list ap;
    va_start(ap, lim);
    const char *f;
    while ((f = va_arg(ap, const char *))) {
        char path[512];
        snprintf(path, sizeof path, FIXTURES "%s", f);
        if (lp_catalog_load_file(cat, path, NULL, false, err)) {
            lp_catalog_free(cat);
            cat = NULL;
            break;
        }
    }
    va_end(ap);
    return cat;
}

/* Parse text and add it; returns the status. */
static inline lp_status cat_add_text(lp_catalog *cat, const char *json, const char *server,
                                     const char *group, lp_error *err)
{
    lp_catalog_batch *b = NULL;
    lp_catalog_parse_opts o = {.source = "test.json", .server = server, .group = group};
    lp_status st = lp_catalog_parse(cat, json, strlen(json), &o, &b, err);
    if (!st)
        st = lp_catalog_add(cat, b, err);
    lp_catalog_batch_free(b);
    return st;
}

/* Search q and render the ids of the hits separated by spaces into out (static). */
static inline const char *top_ids(const lp_catalog *cat, const char *q, size_t k)
{
    static char out[4096];
    lp_catalog_query query = {.text = lp_str_c(q), .max_tools = k};
    lp_catalog_result r;
    out[0] = '\0';
    if (lp_catalog_search(cat, &query, &r, NULL))
        return "(error)";
    size_t n = 0;
    for (size_t i = 0; i < r.nhits; i++)
        n += (size_t)snprintf(out + n, sizeof out - n, "%s%s", i ? " " : "",
                              r.hits[i].tool->id);
    lp_catalog_result_release(&r);
    return out;
}

/* The first hit's id, or "". */
static inline const char *top1(const lp_catalog *cat, const char *q)
{
    static char out[512];
    snprintf(out, sizeof out, "%s", top_ids(cat, q, 1));
    return out;
}

#endif
