/*
 * map_bench.c: core's lp_map against the hand-written tables it replaced (never part of make
 * test; `make build/map-bench && build/map-bench`).
 *
 * Baselines, copied verbatim from the code before the change (same run, same keys):
 *   gmap   src/graph/view.c: three parallel arrays (keys, lengths, values), no cached hash
 *   group  src/search/group.c: a per-call slot array of index+1 over the caller's records,
 *          sized 2n up front, compared with strcmp
 * Keys: synthetic paths ("src/pkgNN/dirNN/file_NNNN.go") and identifiers ("doSomethingNNNN"),
 * inserted, then looked up (every key, plus as many misses). Prints the median of RUNS runs
 * in ns per operation for each table and the ratio lp_map / baseline.
 */
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- baseline 1: gmap (src/graph/view.c before lp_map) ---- */
typedef struct gmap {
    const char **keys;
    uint32_t *klen;
    uint32_t *vals;
    size_t cap, len;
} gmap;

static uint64_t key_hash(const char *k, size_t n)
{
    uint64_t h = lp_hash64_of(k, n);
    return h ? h : 1;
}

static uint32_t *gmap_get(const gmap *m, const char *k, size_t klen)
{
    if (!m->cap)
        return NULL;
    size_t i = (size_t)key_hash(k, klen) & (m->cap - 1);
    while (m->keys[i]) {
        if (m->klen[i] == klen && memcmp(m->keys[i], k, klen) == 0)
            return &m->vals[i];
        i = (i + 1) & (m->cap - 1);
    }
    return NULL;
}

static void gmap_grow(gmap *m)
{
    gmap old = *m;
    m->cap = old.cap ? old.cap * 2 : 256;
    m->keys = lp_xcalloc(m->cap, sizeof *m->keys);
    m->klen = lp_xcalloc(m->cap, sizeof *m->klen);
    m->vals = lp_xcalloc(m->cap, sizeof *m->vals);
    for (size_t i = 0; i < old.cap; i++) {
        if (!old.keys[i])
            continue;
        size_t j = (size_t)key_hash(old.keys[i], old.klen[i]) & (m->cap - 1);
        while (m->keys[j])
            j = (j + 1) & (m->cap - 1);
        m->keys[j] = old.keys[i];
        m->klen[j] = old.klen[i];
        m->vals[j] = old.vals[i];
    }
    free(old.keys);
    free(old.klen);
    free(old.vals);
}

static uint32_t *gmap_put(gmap *m, lp_arena *a, const char *k, size_t klen, bool *created)
{
    if ((m->len + 1) * 2 > m->cap)
        gmap_grow(m);
    size_t i = (size_t)key_hash(k, klen) & (m->cap - 1);
    while (m->keys[i]) {
        if (m->klen[i] == klen && memcmp(m->keys[i], k, klen) == 0) {
            if (created)
                *created = false;
            return &m->vals[i];
        }
        i = (i + 1) & (m->cap - 1);
    }
    m->keys[i] = lp_arena_strndup(a, k, klen);
    m->klen[i] = (uint32_t)klen;
    m->vals[i] = 0;
    m->len++;
    if (created)
        *created = true;
    return &m->vals[i];
}

static void gmap_free(gmap *m)
{
    free(m->keys);
    free(m->klen);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

/* ---- baseline 2: the slot table of src/search/group.c before lp_map ---- */
static size_t group_table(const char **paths, size_t n, lp_arena *arena)
{
    const char **files = lp_arena_zalloc(arena, (n ? n : 1) * sizeof *files);
    size_t nfiles = 0;
    size_t nslots = 16;
    while (nslots < 2 * n)
        nslots *= 2;
    uint32_t *slots = lp_arena_zalloc(arena, nslots * sizeof *slots);
    for (size_t i = 0; i < n; i++) {
        const char *path = paths[i];
        size_t k = lp_hash64_of(path, strlen(path)) & (nslots - 1);
        while (slots[k] && strcmp(files[slots[k] - 1], path) != 0)
            k = (k + 1) & (nslots - 1);
        if (!slots[k]) {
            files[nfiles++] = path;
            slots[k] = (uint32_t)nfiles;
        }
    }
    return nfiles;
}

static size_t group_map(const char **paths, size_t n, lp_arena *arena)
{
    const char **files = lp_arena_zalloc(arena, (n ? n : 1) * sizeof *files);
    size_t nfiles = 0;
    lp_map by_path = {0};
    lp_map_reserve(&by_path, n);
    for (size_t i = 0; i < n; i++) {
        bool created;
        uint32_t *slot = lp_map_put(&by_path, NULL, paths[i], strlen(paths[i]), &created);
        if (created) {
            *slot = (uint32_t)nfiles;
            files[nfiles++] = paths[i];
        }
    }
    lp_map_free(&by_path);
    return nfiles;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define RUNS 5

static volatile uint64_t sink;

/* insert n keys, look every key up, look n misses up; ns per operation */
static double run_gmap(char **keys, char **miss, size_t n)
{
    lp_arena arena, *a = &arena;
    lp_arena_init(a, 0);
    gmap m = {0};
    double t0 = now_ns();
    for (size_t i = 0; i < n; i++)
        *gmap_put(&m, a, keys[i], strlen(keys[i]), NULL) = (uint32_t)i;
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += *gmap_get(&m, keys[i], strlen(keys[i]));
    for (size_t i = 0; i < n; i++)
        s += gmap_get(&m, miss[i], strlen(miss[i])) != NULL;
    double t = now_ns() - t0;
    sink += s;
    gmap_free(&m);
    lp_arena_release(a);
    return t / (3.0 * (double)n);
}

static double run_lpmap(char **keys, char **miss, size_t n)
{
    lp_arena arena, *a = &arena;
    lp_arena_init(a, 0);
    lp_map m = {0};
    double t0 = now_ns();
    for (size_t i = 0; i < n; i++)
        *lp_map_put(&m, a, keys[i], strlen(keys[i]), NULL) = (uint32_t)i;
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += *lp_map_get(&m, keys[i], strlen(keys[i]));
    for (size_t i = 0; i < n; i++)
        s += lp_map_get(&m, miss[i], strlen(miss[i])) != NULL;
    double t = now_ns() - t0;
    sink += s;
    lp_map_free(&m);
    lp_arena_release(a);
    return t / (3.0 * (double)n);
}

static double run_group(const char **paths, size_t n, bool map, size_t reps)
{
    double t0 = now_ns();
    for (size_t r = 0; r < reps; r++) {
        lp_arena arena, *a = &arena;
        lp_arena_init(a, 0);
        sink += map ? group_map(paths, n, a) : group_table(paths, n, a);
        lp_arena_release(a);
    }
    return (now_ns() - t0) / ((double)reps * (double)n);
}

static char **make_keys(size_t n, bool paths, unsigned salt)
{
    char **k = lp_xmalloc(n * sizeof *k);
    for (size_t i = 0; i < n; i++) {
        char buf[96];
        if (paths)
            snprintf(buf, sizeof buf, "src/pkg%02zu/dir%02zu/file_%06zu_%u.go", i % 37, i % 91, i,
                     salt);
        else
            snprintf(buf, sizeof buf, "doSomething%zuWith%u", i, salt);
        k[i] = strdup(buf);
    }
    return k;
}

static void free_keys(char **k, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(k[i]);
    free(k);
}

int main(void)
{
    static const size_t sizes[] = {100, 10000, 300000};
    printf("| keys | n | gmap ns/op | lp_map ns/op | lp_map / gmap |\n|---|---:|---:|---:|---:|\n");
    for (int kind = 0; kind < 2; kind++) {
        for (size_t si = 0; si < LP_ARRAY_LEN(sizes); si++) {
            size_t n = sizes[si];
            char **keys = make_keys(n, kind == 0, 1), **miss = make_keys(n, kind == 0, 2);
            double g[RUNS], l[RUNS];
            size_t reps = n < 1000 ? 2000 : n < 100000 ? 20 : 1;
            for (int r = 0; r < RUNS; r++) {
                /* interleaved, so load changes hit both alike */
                double gs = 0, ls = 0;
                for (size_t k = 0; k < reps; k++) {
                    gs += run_gmap(keys, miss, n);
                    ls += run_lpmap(keys, miss, n);
                }
                g[r] = gs / (double)reps;
                l[r] = ls / (double)reps;
            }
            qsort(g, RUNS, sizeof *g, cmp_double);
            qsort(l, RUNS, sizeof *l, cmp_double);
            printf("| %s | %zu | %.1f | %.1f | %.2f |\n", kind == 0 ? "paths" : "identifiers", n,
                   g[RUNS / 2], l[RUNS / 2], l[RUNS / 2] / g[RUNS / 2]);
            free_keys(keys, n);
            free_keys(miss, n);
        }
    }
    printf("\n| group.c file view | groups | slot table ns/group | lp_map ns/group | ratio |\n"
           "|---|---:|---:|---:|---:|\n");
    static const size_t gsizes[] = {50, 200, 1000};
    for (size_t si = 0; si < LP_ARRAY_LEN(gsizes); si++) {
        size_t n = gsizes[si];
        char **keys = make_keys(n / 3 + 1, true, 3);
        const char **paths = lp_xmalloc(n * sizeof *paths);
        for (size_t i = 0; i < n; i++)
            paths[i] = keys[(i * 7) % (n / 3 + 1)]; /* about three owners per file */
        double t[RUNS], m[RUNS];
        for (int r = 0; r < RUNS; r++) {
            t[r] = run_group(paths, n, false, 5000);
            m[r] = run_group(paths, n, true, 5000);
        }
        qsort(t, RUNS, sizeof *t, cmp_double);
        qsort(m, RUNS, sizeof *m, cmp_double);
        printf("| owners of a search | %zu | %.1f | %.1f | %.2f |\n", n, t[RUNS / 2], m[RUNS / 2],
               m[RUNS / 2] / t[RUNS / 2]);
        free(paths);
        free_keys(keys, n / 3 + 1);
    }
    return 0;
}
