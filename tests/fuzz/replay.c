/*
 * replay.c: the standalone driver of a fuzz target, linked without libFuzzer (ASan+UBSan
 * build): runs LLVMFuzzerTestOneInput on every file of the given corpus folders, then on the
 * synthesized hostile cases (the generic ones below, then the target's own from
 * lp_fuzz_synthesize). A crash, a sanitizer report or a failed LP_FUZZ_CHECK ends the
 * process with a non-zero status; the last "# replay" line on stderr names the input.
 *
 *   fuzz-replay-<target> [--no-synth] [--synth-only] [-q] PATH...
 *
 * LP_FUZZ_LONG_LINE_MB sets the size of the long-line case (default 100).
 */
#include "fuzz.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#pragma weak LLVMFuzzerInitialize
#pragma weak lp_fuzz_synthesize

static bool quiet;
static size_t nfiles, nsynth;

static void run_one(const char *kind, const char *name, const uint8_t *data, size_t size)
{
    if (!quiet)
        fprintf(stderr, "# replay %s %s (%zu bytes)\n", kind, name, size);
    LLVMFuzzerTestOneInput(data, size);
}

static void emit_synth(const char *name, const uint8_t *data, size_t size)
{
    run_one("synth", name, data, size);
    nsynth++;
}

/* The input gets its own allocation of exactly its size, so ASan sees any overread. */
static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s: %s\n", path, strerror(errno));
        return 1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (len == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        if (!got)
            break;
        len += got;
    }
    fclose(f);
    uint8_t *exact = malloc(len ? len : 1);
    memcpy(exact, buf, len);
    free(buf);
    run_one("file", path, exact, len);
    free(exact);
    nfiles++;
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Files of a folder in name order (a deterministic replay), not recursive. */
static int replay_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path);
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "replay: cannot list %s: %s\n", path, strerror(errno));
        return 1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            names = realloc(names, cap * sizeof *names);
        }
        names[n++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        size_t plen = strlen(path) + strlen(names[i]) + 2;
        char *full = malloc(plen);
        snprintf(full, plen, "%s/%s", path, names[i]);
        if (stat(full, &st) == 0 && S_ISREG(st.st_mode))
            rc |= replay_file(full);
        free(full);
        free(names[i]);
    }
    free(names);
    return rc;
}

/* ------------------------------------------------------------------------------------------
 * Generic hostile cases, run through every target. */

typedef struct gbuf {
    uint8_t *p;
    size_t len, cap;
} gbuf;

static void g_put(gbuf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        while (b->len + n > b->cap)
            b->cap = b->cap ? b->cap * 2 : 256;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->len, p, n);
    b->len += n;
}

static void g_puts(gbuf *b, const char *s) { g_put(b, s, strlen(s)); }

static void g_repeat(gbuf *b, const char *s, size_t times)
{
    size_t n = strlen(s);
    for (size_t i = 0; i < times; i++)
        g_put(b, s, n);
}

static void g_emit(gbuf *b, const char *name)
{
    emit_synth(name, b->p, b->len);
    free(b->p);
    *b = (gbuf){0};
}

static void generic_cases(void)
{
    gbuf b = {0};
    emit_synth("generic/empty", (const uint8_t *)"", 0);

    /* One 100 MB line (a JSON-RPC request whose string argument is the bulk), then a ping:
     * the line must be refused or handled within bounds, and what follows still served. */
    size_t mb = 100;
    const char *env = getenv("LP_FUZZ_LONG_LINE_MB");
    if (env && atoi(env) > 0)
        mb = (size_t)atoi(env);
    size_t bulk = mb << 20;
    const char *head = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
                       "{\"name\":\"debug_echo\",\"arguments\":{\"message\":\"";
    const char *tail = "\"}}}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n";
    b.cap = strlen(head) + bulk + strlen(tail);
    b.p = malloc(b.cap);
    g_puts(&b, head);
    memset(b.p + b.len, 'a', bulk);
    b.len += bulk;
    g_puts(&b, tail);
    g_emit(&b, "generic/long-line");

    /* 100k-deep nesting, arrays and objects. */
    g_repeat(&b, "[", 100000);
    g_repeat(&b, "]", 100000);
    g_emit(&b, "generic/deep-array-100k");
    g_repeat(&b, "{\"a\":", 100000);
    g_puts(&b, "1");
    g_repeat(&b, "}", 100000);
    g_emit(&b, "generic/deep-object-100k");

    /* Invalid UTF-8 in and around JSON strings: lone continuation bytes, overlong forms,
     * surrogates, truncated sequences, bytes that never occur in UTF-8. */
    g_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":\"\x80\",\"method\":\"tools/call\",\"params\":{"
               "\"name\":\"debug_echo\",\"arguments\":{\"message\":\"\xC0\xAF \xE0\x80\xAF "
               "\xED\xA0\x80 \xF4\x90\x80\x80 \xFE\xFF \xE2\x82\"}}}\n");
    g_puts(&b, "\xff\xfe{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n\xC3\n");
    g_emit(&b, "generic/invalid-utf8");

    /* NUL bytes, raw and escaped. */
    static const char nul[] = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"\0}\n"
                              "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":"
                              "{\"name\":\"debug_echo\\u0000x\",\"arguments\":{\"message\":"
                              "\"a\\u0000b\"}}}\n\0\0\0\n";
    g_put(&b, nul, sizeof nul - 1);
    g_emit(&b, "generic/nul-bytes");

    /* Numbers jansson and the validator must survive. */
    g_puts(&b, "{\"jsonrpc\":\"2.0\",\"id\":99999999999999999999999999,\"method\":\"ping\"}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":1e999999,\"method\":\"ping\"}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":-9223372036854775808,\"method\":\"tools/call\","
               "\"params\":{\"name\":\"debug_echo\",\"arguments\":{\"message\":\"x\","
               "\"repeat\":1e308}}}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":"
               "\"debug_echo\",\"arguments\":{\"message\":\"x\",\"repeat\":-0.0}}}\n"
               "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":"
               "\"debug_echo\",\"arguments\":{\"message\":\"x\",\"repeat\":"
               "9223372036854775807}}}\n"
               "[1e400,-1e400,0.000000000000000000000000000001e-400,18446744073709551616]\n");
    g_emit(&b, "generic/huge-numbers");

    /* Every byte value, twice. */
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 256; c++) {
            uint8_t u = (uint8_t)c;
            g_put(&b, &u, 1);
        }
    g_emit(&b, "generic/all-bytes");
}

int main(int argc, char **argv)
{
    bool synth = true, files = true;
    int first = 1;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (!strcmp(argv[first], "--no-synth"))
            synth = false;
        else if (!strcmp(argv[first], "--synth-only"))
            files = false;
        else if (!strcmp(argv[first], "-q"))
            quiet = true;
        else {
            fprintf(stderr, "usage: %s [--no-synth] [--synth-only] [-q] PATH...\n", argv[0]);
            return 2;
        }
    }
    if (LLVMFuzzerInitialize)
        LLVMFuzzerInitialize(&argc, &argv);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = 0;
    if (files)
        for (int i = first; i < argc; i++)
            rc |= replay_path(argv[i]);
    if (synth) {
        generic_cases();
        if (lp_fuzz_synthesize)
            lp_fuzz_synthesize(emit_synth);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("replayed %zu files and %zu synthesized cases in %.1f s\n", nfiles, nsynth, s);
    return rc;
}
