/*
 * cmd_more.c: `loupe more HANDLE`: the next page of a frozen search result set.
 *
 * Reads the set the handle names (src/search/frozen.c) and pins the root's current
 * publication only to check that the set still belongs to it (drift); it never searches
 * again, so the order and scores are those of the search that made the handle.
 */
#include "cli/cli_int.h"

#include "search/search.h"

#include "core/json.h"
#include <math.h>

/* A failure with the specific continuation code (continuation_expired, ...). */
static int fail(const lp_error *err, lp_frozen_fail why, bool json)
{
    if (why == LP_FROZEN_OK)
        return lp_cli_fail(err, json);
    if (json) {
        json_t *j = lp_json_pack("{s:{s:s, s:o}}", "error", "code", lp_frozen_fail_code(why),
                                 "message", lp_json_textz(err->msg));
        lp_cli_print_json(j); /* its own failure is reported; this path fails either way */
        json_decref(j);
    }
    fprintf(stderr, "loupe: %s\n", err->msg);
    return lp_cli_exit_code(err->code);
}

static int run(int argc, char **argv)
{
    bool json = false;
    uint64_t limit = 0;
    const char *handle = NULL;
    bool opts_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done) {
            if (handle)
                return lp_cli_usage_error("more", "takes one HANDLE");
            handle = a;
        } else if (!strcmp(a, "--")) {
            opts_done = true;
        } else if (!strcmp(a, "--json") || !strcmp(a, "-j")) {
            json = true;
        } else if (!strcmp(a, "--limit") || !strcmp(a, "-n")) {
            if (i + 1 >= argc)
                return lp_cli_usage_error("more", "%s needs a value", a);
            if (!lp_cli_parse_count("more", "--limit", argv[++i], 200, &limit))
                return LP_EXIT_USAGE;
        } else if (a[0] == '-' && a[1]) {
            return lp_cli_unknown_option("more", a);
        } else if (handle) {
            return lp_cli_usage_error("more", "takes one HANDLE");
        } else {
            handle = a;
        }
    }
    if (!handle)
        return lp_cli_usage_error("more", "needs the HANDLE printed by 'loupe search'");
    lp_error err = {0};
    lp_arena arena;
    lp_arena_init(&arena, 0);
    lp_store *st = NULL;
    lp_buf next;
    lp_buf_init(&next, 0);
    lp_frozen_set set;
    lp_frozen_fail why = LP_FROZEN_OK;
    int code = LP_EXIT_OK;
    lp_status rc = lp_search_frozen_load(handle, &arena, &set, &why, &err);
    if (!rc)
        rc = lp_store_open(set.root, LP_STORE_READ, &st, &err);
    if (!rc) {
        rc = lp_store_pin(st, &err);
        if (!rc) {
            rc = lp_search_frozen_check(&set, st, &why, &err);
            lp_store_unpin(st);
        }
    }
    if (rc) {
        code = fail(&err, why, json);
        goto done;
    }
    uint32_t page = limit ? (uint32_t)limit : set.page;
    size_t from = set.offset;
    size_t shown = LP_MIN((size_t)page, set.ngroups - from);
    lp_search_frozen_handle(&set, (uint32_t)(from + shown), page, &next);
    if (json) {
        json_t *warnings = json_array();
        for (size_t i = 0; i < set.nwarnings; i++)
            json_array_append_new(warnings, lp_json_textz(set.warnings[i]));
        json_t *j = lp_json_pack(
            "{s:I, s:o, s:o, s:o, s:o}", "publicationId", (json_int_t)set.publication_id,
            "query", lp_json_textz(set.query), "results",
            lp_cli_search_results_json(set.root, set.groups, from, shown), "warnings", warnings,
            "pagination", lp_cli_pagination_json(from, shown, set.ngroups, next.ptr));
        if (j) {
            lp_json_set_path(j, "codebaseRoot", set.root, strlen(set.root));
            json_object_set_new(j, "groupBy", lp_json_textz(lp_search_grouping_name(set.group)));
            if (set.confidence >= 0)
                json_object_set_new(j, "confidence",
                                    json_real(round(set.confidence * 1000.0) / 1000.0));
        }
        code = lp_cli_print_json(j);
        json_decref(j);
    } else {
        if (shown == 0)
            printf("no more results for '%s' (all %zu were shown)\n", set.query, set.ngroups);
        lp_cli_search_print(set.groups, from, shown);
        lp_cli_more_hint(set.ngroups - from - shown, next.ptr);
        for (size_t i = 0; i < set.nwarnings; i++)
            if (!lp_cli_warning_is(set.warnings[i], LP_WARN_DENSE_CHANNEL_ABSENT))
                printf("warning: %s\n", set.warnings[i]);
    }
done:
    lp_store_close(st);
    lp_buf_release(&next);
    lp_arena_release(&arena);
    return code;
}

const lp_cli_cmd lp_cmd_more = {
    .name = "more",
    .summary = "next results of a search (from its continuation handle)",
    .usage = "usage: loupe more HANDLE [--limit N] [--json]\n"
             "Print the next results of the search that printed HANDLE, from the result set\n"
             "frozen when it ran (same order and scores; nothing is searched again).\n"
             "  --limit N     results to show (default: the page size of the search)\n"
             "Sets live 30 minutes (LOUPE_FROZEN_TTL_MS). A handle that is malformed, unknown,\n"
             "expired, or whose root was re-indexed since fails with continuation_malformed,\n"
             "continuation_unknown, continuation_expired or continuation_drifted: search again.\n",
    .run = run,
};
