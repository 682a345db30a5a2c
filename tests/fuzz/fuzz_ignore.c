/*
 * fuzz_ignore.c: the ignore-rule parser and matcher (src/scan/ignore.c, wildmatch.c).
 *
 * A temporary repository is made once:  T/repo/.git/info/  and the root T/repo/sub/a/.
 * Input: segments separated by NUL bytes, in order
 *   0  T/repo/sub/.gitignore        (the root's own rules)
 *   1  T/repo/sub/.loupeignore
 *   2  T/repo/.gitignore            (a rule file above the root)
 *   3  T/repo/.git/info/exclude
 *   4  T/repo/sub/a/.gitignore      (a nested folder's rules)
 *   5  queries: one relative path per line, a trailing '/' marks a folder
 * (a missing segment removes its file). The queries run through lp_ignore_check in the
 * given order and then sorted, with and without the default rules; every rule line is also
 * matched against every query with lp_wildmatch directly, both with and without
 * LP_WILDMATCH_PATHNAME.
 *
 * Invariants checked: the verdict of a query does not depend on the order of the queries
 * (the folder stack is a cache, not state); ".git" paths are always ignored; a path below
 * a folder reported ignored is ignored too. LP_FUZZ_DUMP=1 prints the verdicts.
 */
#include "fuzz.h"

#include "scan/scan.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#define NFILES 5
#define MAX_QUERIES 64

static char tmp_top[256];
static char root[300];
static char files[NFILES][320];

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void cleanup(void)
{
    if (tmp_top[0])
        nftw(tmp_top, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static void mkdir_or_die(const char *p)
{
    if (mkdir(p, 0700) != 0) {
        perror(p);
        abort();
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    lp_log_set_level(LP_LOG_OFF);
    const char *tmp = getenv("TMPDIR");
    snprintf(tmp_top, sizeof tmp_top, "%s/loupe-fuzz-ignore-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(tmp_top)) {
        perror("mkdtemp");
        abort();
    }
    atexit(cleanup);
    char p[320];
    snprintf(p, sizeof p, "%s/repo", tmp_top);
    mkdir_or_die(p);
    snprintf(p, sizeof p, "%s/repo/.git", tmp_top);
    mkdir_or_die(p);
    snprintf(p, sizeof p, "%s/repo/.git/info", tmp_top);
    mkdir_or_die(p);
    snprintf(root, sizeof root, "%s/repo/sub", tmp_top);
    mkdir_or_die(root);
    snprintf(p, sizeof p, "%s/repo/sub/a", tmp_top);
    mkdir_or_die(p);
    snprintf(files[0], sizeof files[0], "%s/repo/sub/.gitignore", tmp_top);
    snprintf(files[1], sizeof files[1], "%s/repo/sub/.loupeignore", tmp_top);
    snprintf(files[2], sizeof files[2], "%s/repo/.gitignore", tmp_top);
    snprintf(files[3], sizeof files[3], "%s/repo/.git/info/exclude", tmp_top);
    snprintf(files[4], sizeof files[4], "%s/repo/sub/a/.gitignore", tmp_top);
    return 0;
}

static void put_file(const char *path, const uint8_t *p, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    LP_FUZZ_CHECK(fd >= 0);
    while (n) {
        ssize_t w = write(fd, p, n);
        LP_FUZZ_CHECK(w > 0);
        p += w;
        n -= (size_t)w;
    }
    close(fd);
}

typedef struct query {
    char *path; /* NUL-terminated copy, without the trailing '/' of a folder */
    bool is_dir;
    bool verdict;
} query;

static int cmp_query(const void *a, const void *b)
{
    return strcmp(((const query *)a)->path, ((const query *)b)->path);
}

static void run_queries(query *q, size_t n, bool defaults)
{
    lp_ignore *ig = lp_ignore_new(root, defaults);
    for (size_t i = 0; i < n; i++)
        q[i].verdict = lp_ignore_check(ig, q[i].path, q[i].is_dir);
    lp_ignore_free(ig);

    /* Sorted order, a fresh object: the same verdicts. */
    query *s = malloc(n ? n * sizeof *s : 1);
    memcpy(s, q, n * sizeof *s);
    qsort(s, n, sizeof *s, cmp_query);
    ig = lp_ignore_new(root, defaults);
    for (size_t i = 0; i < n; i++) {
        bool v = lp_ignore_check(ig, s[i].path, s[i].is_dir);
        LP_FUZZ_CHECK(v == s[i].verdict);
        lp_str base = lp_path_basename(lp_str_c(s[i].path));
        if (v == false && lp_path_is_clean_relative(lp_str_c(s[i].path)))
            LP_FUZZ_CHECK(!lp_str_eq_c(base, ".git"));
    }
    /* A path below an ignored folder is ignored. */
    for (size_t i = 0; i < n; i++) {
        if (!s[i].verdict || !s[i].is_dir)
            continue;
        size_t len = strlen(s[i].path);
        for (size_t j = 0; j < n; j++)
            if (strlen(s[j].path) > len && s[j].path[len] == '/' &&
                !memcmp(s[j].path, s[i].path, len) &&
                lp_path_is_clean_relative(lp_str_c(s[j].path)))
                LP_FUZZ_CHECK(lp_ignore_check(ig, s[j].path, s[j].is_dir));
    }
    lp_ignore_free(ig);
    free(s);
}

/* Every rule line against every query, straight through lp_wildmatch. */
static void wildmatch_all(const uint8_t *rules, size_t n, const query *q, size_t nq)
{
    size_t lines = 0;
    for (size_t i = 0; i < n && lines < 64;) {
        const uint8_t *nl = memchr(rules + i, '\n', n - i);
        size_t end = nl ? (size_t)(nl - rules) : n;
        lp_str pat = {(const char *)rules + i, end - i};
        for (size_t k = 0; k < nq; k++) {
            lp_str text = lp_str_c(q[k].path);
            lp_wildmatch(pat, text, 0);
            lp_wildmatch(pat, text, LP_WILDMATCH_PATHNAME);
        }
        i = end + 1;
        lines++;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *seg[NFILES + 1] = {0};
    size_t seglen[NFILES + 1] = {0};
    size_t nseg = 0, start = 0;
    for (size_t i = 0; i <= size && nseg <= NFILES; i++) {
        if (i == size || data[i] == 0) {
            seg[nseg] = data + start;
            seglen[nseg] = i - start;
            nseg++;
            start = i + 1;
        }
    }
    if (nseg == NFILES + 1 && start < size)
        seglen[NFILES] = size - (size_t)(seg[NFILES] - data); /* queries may hold NULs */
    for (size_t f = 0; f < NFILES; f++) {
        if (f < nseg)
            put_file(files[f], seg[f], seglen[f]);
        else
            unlink(files[f]);
    }

    query q[MAX_QUERIES];
    size_t nq = 0;
    if (nseg == NFILES + 1) {
        const uint8_t *p = seg[NFILES];
        size_t n = seglen[NFILES];
        for (size_t i = 0; i < n && nq < MAX_QUERIES;) {
            const uint8_t *nl = memchr(p + i, '\n', n - i);
            size_t end = nl ? (size_t)(nl - p) : n;
            size_t len = end - i;
            bool dir = len > 1 && p[i + len - 1] == '/';
            q[nq].path = strndup((const char *)p + i, dir ? len - 1 : len);
            q[nq].is_dir = dir;
            nq++;
            i = end + 1;
        }
    }
    run_queries(q, nq, false);
    run_queries(q, nq, true);
    if (getenv("LP_FUZZ_DUMP")) /* debugging a seed: the verdicts with the defaults */
        for (size_t i = 0; i < nq; i++)
            fprintf(stderr, "%s%s -> %s\n", q[i].path, q[i].is_dir ? "/" : "",
                    q[i].verdict ? "ignored" : "kept");
    for (size_t f = 0; f < nseg && f < NFILES; f++)
        wildmatch_all(seg[f], seglen[f] > 65536 ? 65536 : seglen[f], q, nq);
    for (size_t i = 0; i < nq; i++)
        free(q[i].path);
    return 0;
}
