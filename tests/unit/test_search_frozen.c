/*
 * test_search_frozen.c: frozen result sets (src/search/frozen.c): round trips, handles that
 * are malformed, unknown, tampered with, expired or damaged, the caps, request hashing.
 * Drift (a newer publication) needs an index and is covered by the integration tests.
 */
#include "t.h"

#include "search/search.h"

#include <unistd.h>

/* A result of n groups, made in arena. */
static void make_result(lp_arena *a, size_t n, int64_t pub, lp_search_result *r)
{
    memset(r, 0, sizeof *r);
    r->groups = lp_arena_zalloc(a, n * sizeof *r->groups);
    for (size_t i = 0; i < n; i++) {
        lp_search_group *g = &r->groups[i];
        g->rank = (uint32_t)i + 1;
        if (i % 2 == 0)
            snprintf(g->owner.id, sizeof g->owner.id, "sym:%012zx%012zx", i, i * 7);
        g->owner.file = lp_arena_printf(a, "src/f%02zu.py", i);
        g->owner.symbol = i % 2 == 0 ? lp_arena_printf(a, "fn_%zu", i) : NULL;
        g->owner.qname = g->owner.symbol;
        g->owner.kind = i % 2 == 0 ? "function" : "file";
        g->owner.start_line = (uint32_t)(10 * i + 1);
        g->owner.end_line = (uint32_t)(10 * i + 9);
        g->score = 1.0 / (double)(i + 1) + 1e-12;
        g->channels = LP_CH_LEXICAL | (i == 0 ? LP_CH_EXACT : 0u);
        g->snippet = lp_arena_printf(a, "%u| line with \"quotes\" and \xc3\xa9 %zu\n",
                                     g->owner.start_line, i);
        g->snippet_start_line = g->owner.start_line;
        g->label = g->owner.qname ? g->owner.qname : lp_arena_printf(a, "src/f%02zu.py:1-9", i);
        g->breadcrumbs = g->owner.symbol ? lp_arena_printf(a, "f%02zu > fn_%zu", i, i) : "";
        g->published_ms = 1700000000000 + (int64_t)i;
        g->stale = i % 3 == 1;
        g->deleted = i == 4;
        g->live = i == 0;
    }
    r->ngroups = n;
    r->publication_id = pub;
    static const char *const warnings[] = {"dense_channel_absent: no dense channel"};
    r->warnings = warnings;
    r->nwarnings = 1;
}

static void use_home(lp_t *t)
{
    setenv("LOUPE_HOME", t->tmpdir, 1);
    unsetenv("LOUPE_FROZEN_TTL_MS");
    unsetenv("LOUPE_FROZEN_MAX_SETS");
    unsetenv("LOUPE_FROZEN_MAX_BYTES");
}

static void restore_env(void)
{
    unsetenv("LOUPE_HOME");
    unsetenv("LOUPE_FROZEN_TTL_MS");
    unsetenv("LOUPE_FROZEN_MAX_SETS");
}

T_TEST(frozen_round_trip_pages_through_the_set)
{
    use_home(t);
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_buf h, next;
    lp_buf_init(&h, 0);
    lp_buf_init(&next, 0);
    lp_error err = {0};
    lp_search_result r;
    make_result(&a, 7, 42, &r);
    lp_search_request req = {.query = "  where   is\tthe token ", .limit = 7};
    int64_t expires = 0;
    T_CHECK_OK(lp_search_freeze("/repo", &req, &r, 3, 3, &h, &expires, &err), &err);
    T_CHECK(lp_str_starts_with(lp_buf_str(&h), LP_STR("c:42:")));
    T_CHECK(expires > lp_wall_ms() + LP_FROZEN_TTL_MS - 60000);
    lp_frozen_set set;
    lp_frozen_fail why = LP_FROZEN_MALFORMED;
    T_CHECK_OK(lp_search_frozen_load(h.ptr, &a, &set, &why, &err), &err);
    T_CHECK_INT(why, LP_FROZEN_OK);
    T_CHECK_STR(set.root, "/repo");
    T_CHECK_STR(set.query, "where is the token");
    T_CHECK_INT(set.publication_id, 42);
    T_CHECK_INT(set.ngroups, 7);
    T_CHECK_INT(set.offset, 3);
    T_CHECK_INT(set.page, 3);
    T_CHECK_INT(set.nwarnings, 1);
    T_CHECK_STR(set.warnings[0], "dense_channel_absent: no dense channel");
    for (size_t i = 0; i < 7; i++) {
        const lp_search_group *x = &set.groups[i], *y = &r.groups[i];
        T_CHECK_INT(x->rank, y->rank);
        T_CHECK_STR(x->owner.id, y->owner.id);
        T_CHECK_STR(x->owner.file, y->owner.file);
        T_CHECK(x->owner.symbol == NULL ? y->owner.symbol == NULL
                                        : !strcmp(x->owner.symbol, y->owner.symbol));
        T_CHECK_STR(x->owner.kind, y->owner.kind);
        T_CHECK_INT(x->owner.start_line, y->owner.start_line);
        T_CHECK(x->score == y->score); /* exact: scores never change between pages */
        T_CHECK_INT(x->channels, y->channels);
        T_CHECK_STR(x->snippet, y->snippet);
        /* The surface fields (decorate.c) survive the round trip. */
        T_CHECK_STR(x->label, y->label);
        T_CHECK_STR(x->breadcrumbs, y->breadcrumbs);
        T_CHECK_INT(x->published_ms, y->published_ms);
        T_CHECK_INT(x->stale, y->stale);
        T_CHECK_INT(x->deleted, y->deleted);
        T_CHECK_INT(x->live, y->live);
    }
    /* The next page's handle, then the end. */
    lp_search_frozen_handle(&set, 6, 3, &next);
    T_CHECK(next.len > 0);
    T_CHECK_OK(lp_search_frozen_load(next.ptr, &a, &set, &why, &err), &err);
    T_CHECK_INT(set.offset, 6);
    lp_search_frozen_handle(&set, 7, 3, &next);
    T_CHECK_INT(next.len, 0);
    /* The same request frozen again names the same set (no new file). */
    lp_buf_reset(&next);
    lp_search_request same = {.query = "where is the token", .limit = 7};
    T_CHECK_OK(lp_search_freeze("/repo", &same, &r, 3, 3, &next, NULL, &err), &err);
    T_CHECK(!strncmp(next.ptr, h.ptr, 4 + 16 + 4));
    T_CHECK(lp_search_freeze("/repo", &req, &r, 7, 3, &next, NULL, &err) == LP_EINVAL);
done:
    restore_env();
    lp_buf_release(&h);
    lp_buf_release(&next);
    lp_arena_release(&a);
}

T_TEST(frozen_handles_fail_with_specific_reasons)
{
    use_home(t);
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_buf h, bad;
    lp_buf_init(&h, 0);
    lp_buf_init(&bad, 0);
    lp_error err = {0};
    lp_search_result r;
    make_result(&a, 4, 5, &r);
    lp_search_request req = {.query = "token", .limit = 4};
    T_CHECK_OK(lp_search_freeze("/repo", &req, &r, 1, 1, &h, NULL, &err), &err);
    lp_frozen_set set;
    lp_frozen_fail why;
    static const char *const malformed[] = {
        "",
        "c:",
        "x:5:0123456789abcdef:1:1:1",
        "c:5:0123456789abcdef:1:1",
        "c:5:0123456789abcdef:1:1:1:9",
        "c:0:0123456789abcdef:1:1:1",
        "c:5:0123456789ABCDEF:1:1:1",
        "c:5:0123456789abcde:1:1:1",
        "c:5:0123456789abcdef:1:0:1",
        "c:5:0123456789abcdef:-1:1:1",
        "c:5:0123456789abcdef:1:1:zz",
        "c:5:0123456789abcdef::1:1",
        "c:99999999999999999999999:0123456789abcdef:1:1:1",
    };
    for (size_t i = 0; i < LP_ARRAY_LEN(malformed); i++) {
        lp_status rc = lp_search_frozen_load(malformed[i], &a, &set, &why, &err);
        T_CHECK_MSG(rc == LP_EINVAL && why == LP_FROZEN_MALFORMED, "'%s' gave %s/%s", malformed[i],
                    lp_status_code(rc), lp_frozen_fail_code(why));
    }
    T_CHECK_STR(lp_frozen_fail_code(LP_FROZEN_MALFORMED), "continuation_malformed");
    /* Unknown: a well-formed handle of a set never made (recent creation time). */
    lp_buf_printf(&bad, "c:5:0123456789abcdef:1:1:%llx", (unsigned long long)(lp_wall_ms() / 1000));
    T_CHECK(lp_search_frozen_load(bad.ptr, &a, &set, &why, &err) == LP_ENOENT);
    T_CHECK_INT(why, LP_FROZEN_UNKNOWN);
    T_CHECK(strstr(err.msg, "search again") != NULL);
    /* Expired: the same, made long ago. */
    T_CHECK(lp_search_frozen_load("c:5:0123456789abcdef:1:1:1", &a, &set, &why, &err) ==
            LP_EEXPIRED);
    T_CHECK_INT(why, LP_FROZEN_EXPIRED);
    /* Tampered: the real set id with another publication is never served. */
    lp_buf_reset(&bad);
    lp_buf_puts(&bad, "c:6");
    lp_buf_puts(&bad, strchr(h.ptr + 2, ':'));
    T_CHECK(lp_search_frozen_load(bad.ptr, &a, &set, &why, &err) == LP_ENOENT);
    T_CHECK_INT(why, LP_FROZEN_UNKNOWN);
    /* Past the end of the set. */
    lp_buf_reset(&bad);
    lp_buf_append(&bad, h.ptr, (size_t)(strchr(h.ptr + 4 + 16 + 1, ':') - h.ptr) - 1);
    lp_buf_printf(&bad, "9%s", strchr(h.ptr + 4 + 16 + 1, ':'));
    T_CHECK_MSG(lp_search_frozen_load(bad.ptr, &a, &set, &why, &err) == LP_EINVAL, "%s: %s",
                bad.ptr, err.msg);
    /* Damaged file: broken, never half-served. */
    {
        char id[17];
        memcpy(id, h.ptr + 4, 16);
        id[16] = '\0';
        lp_buf p;
        lp_buf_init(&p, 0);
        lp_buf_printf(&p, "frozen/%s.json", id);
        lp_status wrc = lp_t_write(t, p.ptr, "{\"format\":1,\"groups\":[");
        lp_buf_release(&p);
        T_CHECK(wrc == LP_OK);
        T_CHECK(lp_search_frozen_load(h.ptr, &a, &set, &why, &err) == LP_EIO);
        T_CHECK_INT(why, LP_FROZEN_BROKEN);
    }
    /* A short TTL: the set expires and its file is removed. */
    lp_buf_reset(&h);
    T_CHECK_OK(lp_search_freeze("/other", &req, &r, 1, 1, &h, NULL, &err), &err);
    setenv("LOUPE_FROZEN_TTL_MS", "50", 1);
    usleep(120000);
    T_CHECK(lp_search_frozen_load(h.ptr, &a, &set, &why, &err) == LP_EEXPIRED);
    T_CHECK_INT(why, LP_FROZEN_EXPIRED);
done:
    restore_env();
    lp_buf_release(&h);
    lp_buf_release(&bad);
    lp_arena_release(&a);
}

T_TEST(frozen_caps_remove_the_oldest_sets)
{
    use_home(t);
    setenv("LOUPE_FROZEN_MAX_SETS", "2", 1);
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_buf h[3];
    for (int i = 0; i < 3; i++)
        lp_buf_init(&h[i], 0);
    lp_error err = {0};
    lp_search_result r;
    make_result(&a, 3, 1, &r);
    static const char *const queries[] = {"one", "two", "three"};
    lp_frozen_set set;
    lp_frozen_fail why;
    for (int i = 0; i < 3; i++) {
        lp_search_request req = {.query = queries[i]};
        T_CHECK_OK(lp_search_freeze("/repo", &req, &r, 1, 1, &h[i], NULL, &err), &err);
        usleep(20000); /* distinct modification times: the oldest goes first */
    }
    T_CHECK(lp_search_frozen_load(h[0].ptr, &a, &set, &why, &err) == LP_ENOENT);
    T_CHECK_INT(why, LP_FROZEN_UNKNOWN);
    T_CHECK_OK(lp_search_frozen_load(h[1].ptr, &a, &set, &why, &err), &err);
    T_CHECK_OK(lp_search_frozen_load(h[2].ptr, &a, &set, &why, &err), &err);
done:
    restore_env();
    for (int i = 0; i < 3; i++)
        lp_buf_release(&h[i]);
    lp_arena_release(&a);
}

T_TEST(frozen_request_hash_normalizes_the_query_only)
{
    char a[17], b[17], c[17], d[17];
    lp_search_request r1 = {.query = "  token   refresh\n"};
    lp_search_request r2 = {.query = "token refresh", .limit = 50};
    lp_search_request r3 = {.query = "token refresh", .scope = LP_SCOPE_DOCS};
    lp_search_request r4 = {.query = "Token refresh"};
    lp_search_request_hash(&r1, a);
    lp_search_request_hash(&r2, b);
    lp_search_request_hash(&r3, c);
    lp_search_request_hash(&r4, d);
    T_CHECK_STR(a, b); /* whitespace and the default limit do not matter */
    T_CHECK(strcmp(a, c) != 0);
    T_CHECK(strcmp(a, d) != 0);
    T_CHECK_INT(strlen(a), 16);
    const char *names[LP_CH_COUNT];
    T_CHECK_INT(lp_search_channel_names(LP_CH_EXACT | LP_CH_DENSE, names), 2);
    T_CHECK_STR(names[0], "exact");
    T_CHECK_STR(names[1], "dense");
    T_CHECK_INT(lp_search_channel_bit("lexical"), LP_CH_LEXICAL);
    T_CHECK_INT(lp_search_channel_bit("nope"), 0);
done:;
}
