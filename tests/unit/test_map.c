/*
 * test_map.c: src/core/map.c (lp_map, the project's hash map) against a sorted-array model:
 * random byte keys (with NULs and the empty key), growth across many sizes, borrowed keys,
 * reserve, and the slot order that depends only on the keys and their insertion order.
 */
#include "t.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rng(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

T_TEST(map_against_model)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_map m = {0};
    enum { N = 5000 };
    static char keys[N][12];
    static size_t lens[N];
    uint64_t s = 42;
    T_CHECK(lp_map_get(&m, "x", 1) == NULL); /* empty map */
    for (size_t i = 0; i < N; i++) {
        lens[i] = i == 0 ? 0 : 1 + rng(&s) % 11;
        for (size_t j = 0; j < lens[i]; j++)
            keys[i][j] = (char)(j == 2 ? 0 : 'a' + rng(&s) % 3); /* short alphabet: repeats */
        bool created;
        uint32_t *v = lp_map_put(&m, &a, keys[i], lens[i], &created);
        /* the model: created iff no earlier key has the same bytes */
        bool seen = false;
        for (size_t k = 0; k < i && !seen; k++)
            seen = lens[k] == lens[i] && memcmp(keys[k], keys[i], lens[i]) == 0;
        T_CHECK(created == !seen);
        if (created)
            *v = (uint32_t)i;
        T_CHECK(m.len * 2 <= m.cap);
    }
    size_t distinct = 0;
    for (size_t i = 0; i < N; i++) {
        uint32_t *v = lp_map_get(&m, keys[i], lens[i]);
        T_CHECK(v != NULL);
        /* the value is the first index holding these bytes */
        T_CHECK(lens[*v] == lens[i] && memcmp(keys[*v], keys[i], lens[i]) == 0);
        T_CHECK(*v <= i);
        distinct += *v == i;
    }
    T_CHECK_INT(m.len, distinct);
    size_t occupied = 0;
    for (size_t i = 0; i < m.cap; i++)
        if (m.slots[i].hash) {
            occupied++;
            T_CHECK(m.slots[i].key != keys[m.slots[i].val]); /* copied into the arena */
        }
    T_CHECK_INT(occupied, m.len);
    T_CHECK(lp_map_get(&m, "zzzz", 4) == NULL);
    /* The same inserts give the same slot order. */
    lp_map m2 = {0};
    for (size_t i = 0; i < N; i++)
        lp_map_put(&m2, NULL, keys[i], lens[i], NULL);
    T_CHECK_INT(m2.cap, m.cap);
    for (size_t i = 0; i < m.cap; i++) {
        T_CHECK(m.slots[i].hash == m2.slots[i].hash);
        if (m2.slots[i].hash)
            T_CHECK(m2.slots[i].key >= (const char *)keys &&
                    m2.slots[i].key < (const char *)keys + sizeof keys); /* borrowed */
    }
    lp_map_free(&m2);
    T_CHECK(m2.cap == 0 && m2.slots == NULL && m2.len == 0);
done:
    lp_map_free(&m);
    lp_arena_release(&a);
}

T_TEST(map_reserve)
{
    lp_map m = {0};
    lp_map_reserve(&m, 100);
    size_t cap = m.cap;
    T_CHECK(cap >= 202);
    char k[16];
    for (int i = 0; i < 100; i++) {
        int n = snprintf(k, sizeof k, "k%d", i);
        bool created;
        *lp_map_put(&m, NULL, strdup(k), (size_t)n, &created) = (uint32_t)i;
        T_CHECK(created);
    }
    T_CHECK_INT(m.cap, cap); /* no growth */
    for (int i = 0; i < 100; i++) {
        int n = snprintf(k, sizeof k, "k%d", i);
        uint32_t *v = lp_map_get(&m, k, (size_t)n);
        T_CHECK(v && *v == (uint32_t)i);
    }
    lp_map_reserve(&m, 10); /* never shrinks */
    T_CHECK_INT(m.cap, cap);
done:
    for (size_t i = 0; i < m.cap; i++)
        if (m.slots[i].hash)
            free((void *)m.slots[i].key);
    lp_map_free(&m);
}
