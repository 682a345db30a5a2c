/*
 * t.h: the unit-test runner's contract.
 *
 *   T_TEST(name) { ...; T_CHECK(cond); ...; done: cleanup; }
 *
 * Tests register themselves at load time. A failing check records file, line and the
 * expression, then jumps to the test's `done:` label so cleanup always runs (no leaks on
 * failure under ASan). Output: one "ok - name" / "not ok - name" line per test, then
 * "unit: N passed, N failed". Run one test with `unit-tests NAME` (substring match).
 */
#ifndef LP_T_H
#define LP_T_H

#include "core/core.h"

typedef struct lp_t {
    const char *name;
    int failed;
    char tmpdir[256]; /* a fresh folder for this test, removed afterwards */
} lp_t;

typedef void (*lp_t_fn)(lp_t *t);
void lp_t_register(const char *name, lp_t_fn fn);
void lp_t_fail(lp_t *t, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define T_TEST(name)                                                                           \
    static void t_##name(lp_t *t);                                                             \
    __attribute__((constructor)) static void t_reg_##name(void)                                \
    {                                                                                          \
        lp_t_register(#name, t_##name);                                                        \
    }                                                                                          \
    static void t_##name(lp_t *t)

#define T_CHECK(cond)                                                                          \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            lp_t_fail(t, __FILE__, __LINE__, "%s", #cond);                                     \
            goto done;                                                                         \
        }                                                                                      \
    } while (0)

#define T_CHECK_MSG(cond, ...)                                                                 \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            lp_t_fail(t, __FILE__, __LINE__, __VA_ARGS__);                                     \
            goto done;                                                                         \
        }                                                                                      \
    } while (0)

#define T_CHECK_STR(got, want)                                                                 \
    do {                                                                                       \
        const char *g_ = (got), *w_ = (want);                                                  \
        if (!g_ || strcmp(g_, w_) != 0) {                                                      \
            lp_t_fail(t, __FILE__, __LINE__, "got \"%s\", want \"%s\"", g_ ? g_ : "(null)", w_); \
            goto done;                                                                         \
        }                                                                                      \
    } while (0)

#define T_CHECK_INT(got, want)                                                                 \
    do {                                                                                       \
        long long g_ = (long long)(got), w_ = (long long)(want);                               \
        if (g_ != w_) {                                                                        \
            lp_t_fail(t, __FILE__, __LINE__, "%s = %lld, want %lld", #got, g_, w_);            \
            goto done;                                                                         \
        }                                                                                      \
    } while (0)

#define T_CHECK_OK(expr, errp)                                                                 \
    do {                                                                                       \
        lp_status s_ = (expr);                                                                 \
        if (s_ != LP_OK) {                                                                     \
            lp_t_fail(t, __FILE__, __LINE__, "%s failed: %s (%s)", #expr, lp_status_code(s_),   \
                      (errp)->msg);                                                       \
            goto done;                                                                         \
        }                                                                                      \
    } while (0)

/* Write a file under t->tmpdir (folders created); returns LP_OK. */
lp_status lp_t_write(lp_t *t, const char *rel, const char *content);
/* Run a shell command; returns its exit status. */
int lp_t_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* CPU time of the calling thread, ns. Guards against pathological (quadratic) costs use it,
 * with bounds far above the normal cost, so a loaded machine cannot fail them: wall time
 * is never asserted in tests. */
#include <time.h>
static inline uint64_t t_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#endif
