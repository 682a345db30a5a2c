/*
 * map.c: lp_map, the project's one hash map (contract in core.h).
 *
 * Invariants: cap is 0 or a power of two; len * 2 <= cap after every put; a slot is
 * occupied iff its hash is non-zero (the key hash 0 is stored as 1); probing is linear, so
 * the layout is a function of the keys and their insertion order.
 */
#include "core/core.h"

#include <stdlib.h>
#include <string.h>

static uint64_t key_hash(const void *k, size_t n)
{
    uint64_t h = lp_hash64_of(k, n);
    return h ? h : 1;
}

uint32_t *lp_map_get(const lp_map *m, const void *key, size_t klen)
{
    if (!m->cap)
        return NULL;
    uint64_t h = key_hash(key, klen);
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)h & mask; m->slots[i].hash; i = (i + 1) & mask) {
        const lp_map_slot *s = &m->slots[i];
        if (s->hash == h && s->klen == klen && memcmp(s->key, key, klen) == 0)
            return &m->slots[i].val;
    }
    return NULL;
}

static void map_resize(lp_map *m, size_t cap)
{
    lp_map old = *m;
    m->cap = cap;
    m->slots = lp_xcalloc(m->cap, sizeof *m->slots);
    size_t mask = m->cap - 1;
    for (size_t i = 0; i < old.cap; i++) {
        if (!old.slots[i].hash)
            continue;
        size_t j = (size_t)old.slots[i].hash & mask;
        while (m->slots[j].hash)
            j = (j + 1) & mask;
        m->slots[j] = old.slots[i];
    }
    free(old.slots);
}

uint32_t *lp_map_put(lp_map *m, lp_arena *a, const void *key, size_t klen, bool *created)
{
    if (klen > UINT32_MAX)
        abort(); /* keys are names and paths: a 4 GiB key is a bug */
    if ((m->len + 1) * 2 > m->cap)
        map_resize(m, m->cap ? m->cap * 2 : 256);
    uint64_t h = key_hash(key, klen);
    size_t mask = m->cap - 1, i = (size_t)h & mask;
    for (; m->slots[i].hash; i = (i + 1) & mask) {
        lp_map_slot *s = &m->slots[i];
        if (s->hash == h && s->klen == klen && memcmp(s->key, key, klen) == 0) {
            if (created)
                *created = false;
            return &s->val;
        }
    }
    lp_map_slot *s = &m->slots[i];
    s->hash = h;
    s->key = a ? lp_arena_strndup(a, key, klen) : (const char *)key;
    s->klen = (uint32_t)klen;
    s->val = 0;
    m->len++;
    if (created)
        *created = true;
    return &s->val;
}

void lp_map_reserve(lp_map *m, size_t n)
{
    size_t cap = 16;
    while (cap < 2 * n + 2)
        cap *= 2;
    if (cap > m->cap)
        map_resize(m, cap);
}

void lp_map_free(lp_map *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}
