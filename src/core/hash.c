/*
 * hash.c: XXH3 hashing (libxxhash). 128-bit for content identity, 64-bit for keys.
 */
#include "core/core.h"

#include <xxhash.h>

lp_hash128 lp_hash128_of(const void *p, size_t n)
{
    XXH128_hash_t h = XXH3_128bits(p, n);
    return (lp_hash128){h.high64, h.low64};
}

uint64_t lp_hash64_of(const void *p, size_t n) { return XXH3_64bits(p, n); }

uint64_t lp_hash64_seeded(const void *p, size_t n, uint64_t seed)
{
    return XXH3_64bits_withSeed(p, n, seed);
}

bool lp_hash128_eq(lp_hash128 a, lp_hash128 b) { return a.hi == b.hi && a.lo == b.lo; }

int lp_hash128_cmp(lp_hash128 a, lp_hash128 b)
{
    if (a.hi != b.hi)
        return a.hi < b.hi ? -1 : 1;
    if (a.lo != b.lo)
        return a.lo < b.lo ? -1 : 1;
    return 0;
}

void lp_hash128_hex(lp_hash128 h, char out[LP_HASH_HEX])
{
    snprintf(out, LP_HASH_HEX, "%016llx%016llx", (unsigned long long)h.hi,
             (unsigned long long)h.lo);
}

void lp_hash128_bytes(lp_hash128 h, uint8_t out[16])
{
    for (int i = 0; i < 8; i++) {
        out[i] = (uint8_t)(h.hi >> (56 - 8 * i));
        out[8 + i] = (uint8_t)(h.lo >> (56 - 8 * i));
    }
}

lp_hash128 lp_hash128_from_bytes(const uint8_t in[16])
{
    lp_hash128 h = {0, 0};
    for (int i = 0; i < 8; i++) {
        h.hi = (h.hi << 8) | in[i];
        h.lo = (h.lo << 8) | in[8 + i];
    }
    return h;
}

struct lp_hasher {
    XXH3_state_t *st;
};

lp_hasher *lp_hasher_new(void)
{
    lp_hasher *h = lp_xmalloc(sizeof *h);
    h->st = XXH3_createState();
    if (!h->st)
        abort();
    XXH3_128bits_reset(h->st);
    return h;
}

void lp_hasher_free(lp_hasher *h)
{
    if (!h)
        return;
    XXH3_freeState(h->st);
    free(h);
}

void lp_hasher_update(lp_hasher *h, const void *p, size_t n) { XXH3_128bits_update(h->st, p, n); }

lp_hash128 lp_hasher_digest(const lp_hasher *h)
{
    XXH128_hash_t d = XXH3_128bits_digest(h->st);
    return (lp_hash128){d.high64, d.low64};
}
