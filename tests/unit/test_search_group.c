/*
 * test_search_group.c: the file view (src/search/group.c): file scores from owner scores
 * (best + damp * decaying sum of the rest), deterministic order, members, the limit; and a
 * file set's round trip through a frozen set (members, grouping, confidence).
 */
#include "t.h"

#include "search/search.h"

#include <math.h>

/* Owner groups best first: (file, score) pairs. */
static void make_owners(lp_arena *a, const char *const *files, const double *scores, size_t n,
                        lp_search_result *r)
{
    memset(r, 0, sizeof *r);
    r->groups = lp_arena_zalloc(a, n * sizeof *r->groups);
    for (size_t i = 0; i < n; i++) {
        lp_search_group *g = &r->groups[i];
        g->rank = (uint32_t)i + 1;
        snprintf(g->owner.id, sizeof g->owner.id, "sym:%024zx", i + 1);
        g->owner.file = files[i];
        g->owner.symbol = lp_arena_printf(a, "fn%zu", i);
        g->owner.qname = g->owner.symbol;
        g->owner.kind = "function";
        g->owner.start_line = (uint32_t)(10 * i + 1);
        g->owner.end_line = (uint32_t)(10 * i + 5);
        g->score = scores[i];
        g->channels = i == 3 ? LP_CH_EXACT : LP_CH_LEXICAL;
        g->snippet = lp_arena_printf(a, "%u| def fn%zu():\n", g->owner.start_line, i);
        g->snippet_start_line = g->owner.start_line;
        g->label = g->owner.qname;
        g->breadcrumbs = "";
    }
    r->ngroups = n;
    r->publication_id = 9;
    r->confidence = 0.625;
}

T_TEST(file_view_aggregates_owners_into_files)
{
    unsetenv("LOUPE_SEARCH_FILE");
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_search_result r;
    /* b.py has the best owner; a.py four good ones; c.py one weak one. */
    static const char *const files[] = {"b.py", "a.py", "a.py", "a.py", "a.py", "c.py", "d.py"};
    static const double scores[] = {2.0, 1.6, 1.5, 1.4, 1.3, 0.5, 0.5};
    make_owners(&a, files, scores, 7, &r);
    lp_search_group_files(&r, 3, &a);
    T_CHECK_INT(r.group, LP_GROUP_FILE);
    T_CHECK_INT(r.ngroups, 3); /* the limit */
    T_CHECK_STR(r.groups[0].owner.file, "a.py");
    /* 1.6 + 0.2 * (1.5 + 0.7 * 1.4 + 0.49 * 1.3) */
    T_CHECK(fabs(r.groups[0].score - (1.6 + 0.2 * (1.5 + 0.7 * 1.4 + 0.49 * 1.3))) < 1e-9);
    T_CHECK_INT(r.groups[0].rank, 1);
    T_CHECK_INT(r.groups[0].nfile_owners, 4);
    T_CHECK_INT(r.groups[0].nmembers, 3);
    T_CHECK_STR(r.groups[0].members[0].owner.symbol, "fn1");
    T_CHECK_STR(r.groups[0].members[2].owner.symbol, "fn3");
    T_CHECK_INT(r.groups[0].members[2].rank, 4);
    T_CHECK(r.groups[0].members[1].score == 1.5);
    /* The file group is its best owner's surface, with the file's channels. */
    T_CHECK_STR(r.groups[0].owner.symbol, "fn1");
    T_CHECK_STR(r.groups[0].snippet, "11| def fn1():\n");
    T_CHECK_INT(r.groups[0].channels, LP_CH_LEXICAL | LP_CH_EXACT);
    T_CHECK_STR(r.groups[1].owner.file, "b.py");
    T_CHECK(r.groups[1].score == 2.0);
    T_CHECK_INT(r.groups[1].nmembers, 1);
    /* Equal scores: path order. */
    T_CHECK_STR(r.groups[2].owner.file, "c.py");
    T_CHECK_INT(r.groups[2].rank, 3);
    /* Without damping the file view is the owner view's file order. */
    setenv("LOUPE_SEARCH_FILE", "damp=0", 1);
    make_owners(&a, files, scores, 7, &r);
    lp_search_group_files(&r, 50, &a);
    T_CHECK_INT(r.ngroups, 4);
    T_CHECK_STR(r.groups[0].owner.file, "b.py");
    T_CHECK_STR(r.groups[1].owner.file, "a.py");
    T_CHECK(r.groups[1].score == 1.6);
done:
    unsetenv("LOUPE_SEARCH_FILE");
    lp_arena_release(&a);
}

T_TEST(file_view_sets_survive_freezing)
{
    setenv("LOUPE_HOME", t->tmpdir, 1);
    unsetenv("LOUPE_SEARCH_FILE");
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_buf h, h2;
    lp_buf_init(&h, 0);
    lp_buf_init(&h2, 0);
    lp_error err = {0};
    lp_search_result r;
    static const char *const files[] = {"b.py", "a.py", "a.py", "a.py", "a.py", "c.py"};
    static const double scores[] = {2.0, 1.6, 1.5, 1.4, 1.3, 0.5};
    make_owners(&a, files, scores, 6, &r);
    lp_search_group_files(&r, 50, &a);
    lp_search_request req = {.query = "cache entry", .limit = 50, .group = LP_GROUP_FILE};
    T_CHECK_OK(lp_search_freeze("/repo", &req, &r, 1, 1, &h, NULL, &err), &err);
    lp_frozen_set set;
    lp_frozen_fail why;
    T_CHECK_OK(lp_search_frozen_load(h.ptr, &a, &set, &why, &err), &err);
    T_CHECK_INT(set.group, LP_GROUP_FILE);
    T_CHECK(set.confidence == 0.625);
    T_CHECK_INT(set.ngroups, 3);
    for (size_t i = 0; i < set.ngroups; i++) {
        const lp_search_group *x = &set.groups[i], *y = &r.groups[i];
        T_CHECK_INT(x->nmembers, y->nmembers);
        T_CHECK_INT(x->nfile_owners, y->nfile_owners);
        for (uint32_t k = 0; k < x->nmembers; k++) {
            T_CHECK_STR(x->members[k].owner.id, y->members[k].owner.id);
            T_CHECK_STR(x->members[k].owner.file, y->members[k].owner.file);
            T_CHECK_STR(x->members[k].owner.symbol, y->members[k].owner.symbol);
            T_CHECK_INT(x->members[k].owner.start_line, y->members[k].owner.start_line);
            T_CHECK(x->members[k].score == y->members[k].score);
            T_CHECK_INT(x->members[k].rank, y->members[k].rank);
        }
    }
    /* The owner view of the same query is another set. */
    lp_search_request owner = {.query = "cache entry", .limit = 50};
    T_CHECK_OK(lp_search_freeze("/repo", &owner, &r, 1, 1, &h2, NULL, &err), &err);
    T_CHECK(strncmp(h.ptr, h2.ptr, 4 + 16) != 0);
    /* A grouping the set file does not know is damage, not an owner set. */
    lp_search_grouping g = LP_GROUP_OWNER;
    T_CHECK(lp_search_grouping_parse(lp_str_c("files"), &g, &err) == LP_EINVAL);
    T_CHECK(strstr(err.msg, "use owner or file") != NULL);
    T_CHECK_OK(lp_search_grouping_parse(lp_str_c("file"), &g, &err), &err);
    T_CHECK_INT(g, LP_GROUP_FILE);
done:
    unsetenv("LOUPE_HOME");
    lp_buf_release(&h);
    lp_buf_release(&h2);
    lp_arena_release(&a);
}
