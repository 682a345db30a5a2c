/*
 * test_pool.c: src/core/pool.c (lp_pool, the project's worker pool): every index is worked
 * once and popped once through a small bounded queue; a stop mid-way discards the rest
 * (the sanitizer build sees any leak or race); per-thread state is started and ended once
 * per worker.
 */
#include "t.h"

#include <stdatomic.h>
#include <stdlib.h>

typedef struct pctx {
    atomic_int starts, ends, discards;
    atomic_int worked[2000];
} pctx;

static void *p_start(void *ctx)
{
    pctx *c = ctx;
    atomic_fetch_add(&c->starts, 1);
    return lp_xcalloc(1, 8);
}

static void *p_work(void *ctx, void *state, size_t i, uint64_t *bytes)
{
    pctx *c = ctx;
    atomic_fetch_add(&c->worked[i], 1);
    size_t *r = lp_xmalloc(sizeof *r);
    *r = i;
    *bytes = 100 + i % 7;
    return r;
}

static void p_end(void *ctx, void *state)
{
    pctx *c = ctx;
    atomic_fetch_add(&c->ends, 1);
    free(state);
}

static void p_discard(void *ctx, void *r)
{
    pctx *c = ctx;
    atomic_fetch_add(&c->discards, 1);
    free(r);
}

static const lp_pool_ops ops = {p_start, p_work, p_end, p_discard};

T_TEST(pool_every_index_once)
{
    static pctx c;
    memset(&c, 0, sizeof c);
    static unsigned char popped[2000];
    memset(popped, 0, sizeof popped);
    lp_pool *p = NULL;
    int terr = -1;
    unsigned n = lp_pool_start(&p, &ops, &c, 2000, 3, 2, 250, &terr);
    T_CHECK(n == 3 && p && terr == 0);
    size_t *r, count = 0;
    while ((r = lp_pool_pop(p))) {
        T_CHECK(*r < 2000 && !popped[*r]);
        popped[*r] = 1;
        count++;
        free(r);
    }
    T_CHECK_INT(count, 2000);
    lp_pool_finish(p);
    p = NULL;
    T_CHECK_INT(atomic_load(&c.starts), 3);
    T_CHECK_INT(atomic_load(&c.ends), 3);
    T_CHECK_INT(atomic_load(&c.discards), 0);
    for (size_t i = 0; i < 2000; i++)
        T_CHECK_INT(atomic_load(&c.worked[i]), 1);
done:
    lp_pool_finish(p);
}

T_TEST(pool_stop_discards_the_rest)
{
    static pctx c;
    memset(&c, 0, sizeof c);
    lp_pool *p = NULL;
    T_CHECK(lp_pool_start(&p, &ops, &c, 2000, 2, 4, 1 << 20, NULL) == 2);
    size_t popped = 0;
    size_t *r;
    while (popped < 10 && (r = lp_pool_pop(p))) {
        popped++;
        free(r);
    }
    lp_pool_stop(p);
    lp_pool_finish(p); /* drains and joins */
    p = NULL;
    size_t worked = 0;
    for (size_t i = 0; i < 2000; i++)
        worked += (size_t)atomic_load(&c.worked[i]);
    /* everything worked was either popped or discarded; the stop left most untouched */
    T_CHECK_INT(worked, popped + (size_t)atomic_load(&c.discards));
    T_CHECK(worked < 2000);
    T_CHECK_INT(atomic_load(&c.ends), 2);
done:
    lp_pool_finish(p);
}

T_TEST(pool_no_items)
{
    static pctx c;
    memset(&c, 0, sizeof c);
    lp_pool *p = NULL;
    T_CHECK(lp_pool_start(&p, &ops, &c, 0, 2, 4, 100, NULL) == 2);
    T_CHECK(lp_pool_pop(p) == NULL);
    lp_pool_finish(p);
    p = NULL;
    T_CHECK_INT(atomic_load(&c.ends), 2);
    /* no threads asked: nothing started, an error code, no pool */
    int terr = 0;
    T_CHECK(lp_pool_start(&p, &ops, &c, 10, 0, 4, 100, &terr) == 0 && p == NULL && terr != 0);
done:
    lp_pool_finish(p);
}
