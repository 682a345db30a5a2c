/*
 * group.c: the file view: owner groups aggregated into files (contract in search.h).
 *
 * For localisation an agent wants the files to open, not the functions: a file with three
 * good owners is a better place to look than a file with one slightly better owner. A
 * file's score is its best owner's score plus a damped, decaying sum of its other owners'
 * scores:
 *
 *     file = s1 + damp * (s2 + decay * s3 + decay^2 * s4 + ...)
 *
 * over the owners of the file among the candidates (lp_search_run ranks up to
 * LP_FILE_DEPTH of them in the file view, so a file is not judged on one page). damp and
 * decay were chosen on the dev kit (docs/decisions/0015-file-view-and-confidence.md);
 * LOUPE_SEARCH_FILE="damp=X,decay=Y" overrides them for measurement runs only.
 *
 * Invariants: the order is deterministic (score desc, path asc); every file group is the
 * surface of its best owner (owner, snippet, label, freshness, next action), so a file
 * result opens like any result; members are that file's best owners, best first.
 */
#include "search/search_int.h"

#include <stddef.h>

#define FILE_DAMP 0.2
#define FILE_DECAY 0.7

typedef struct agg_params {
    double damp, decay;
} agg_params;

static agg_params params(void)
{
    static const lp_tune_field fields[] = {{"damp", offsetof(agg_params, damp)},
                                           {"decay", offsetof(agg_params, decay)}};
    agg_params p = {FILE_DAMP, FILE_DECAY};
    lp_search_tune_env(LP_SET_SEARCH_FILE, fields, LP_ARRAY_LEN(fields), &p, true);
    return p;
}

typedef struct file_agg {
    const char *path;
    size_t first;  /* index of its best owner group */
    size_t nowners;
    double score;
    double weight; /* damp * decay^(k-2) for the next owner */
    uint32_t channels;
    lp_search_member members[LP_FILE_MEMBERS_MAX];
    uint32_t nmembers;
} file_agg;

static int agg_cmp(const void *a, const void *b)
{
    const file_agg *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return strcmp(x->path, y->path);
}

void lp_search_group_files(lp_search_result *res, uint32_t limit, lp_arena *arena)
{
    agg_params p = params();
    size_t n = res->ngroups;
    file_agg *files = lp_arena_zalloc(arena, (n ? n : 1) * sizeof *files);
    size_t nfiles = 0;
    /* path -> index into files (the paths are borrowed from the groups) */
    lp_map by_path = {0};
    lp_map_reserve(&by_path, n);
    for (size_t i = 0; i < n; i++) {
        const lp_search_group *g = &res->groups[i];
        const char *path = g->owner.file ? g->owner.file : "";
        bool created;
        uint32_t *slot = lp_map_put(&by_path, NULL, path, strlen(path), &created);
        file_agg *f;
        if (created) {
            *slot = (uint32_t)nfiles;
            f = &files[nfiles++];
            f->path = path;
            f->first = i;
            f->score = g->score;
            f->weight = p.damp;
        } else {
            f = &files[*slot];
            f->score += f->weight * g->score;
            f->weight *= p.decay;
        }
        f->nowners++;
        f->channels |= g->channels;
        if (f->nmembers < LP_FILE_MEMBERS_MAX) {
            lp_search_member *m = &f->members[f->nmembers++];
            m->owner = g->owner;
            m->score = g->score;
            m->rank = g->rank ? g->rank : (uint32_t)i + 1;
        }
    }
    lp_map_free(&by_path);
    if (nfiles > 1)
        qsort(files, nfiles, sizeof *files, agg_cmp);
    size_t keep = LP_MIN(nfiles, (size_t)(limit ? limit : 50));
    lp_search_group *out = lp_arena_zalloc(arena, (keep ? keep : 1) * sizeof *out);
    uint32_t nstale = 0, nlive = 0;
    for (size_t i = 0; i < keep; i++) {
        const file_agg *f = &files[i];
        lp_search_group *g = &out[i];
        *g = res->groups[f->first];
        g->rank = (uint32_t)i + 1;
        g->score = f->score;
        g->channels = f->channels;
        lp_search_member *m = lp_arena_zalloc(arena, f->nmembers * sizeof *m);
        memcpy(m, f->members, f->nmembers * sizeof *m);
        g->members = m;
        g->nmembers = f->nmembers;
        g->nfile_owners = (uint32_t)f->nowners;
        nstale += g->stale;
        nlive += g->live;
    }
    res->groups = out;
    res->ngroups = keep;
    res->nstale = nstale;
    res->nlive = nlive;
    res->group = LP_GROUP_FILE;
}
