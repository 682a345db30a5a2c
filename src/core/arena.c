/*
 * arena.c: bump allocation in chained blocks, mark/rewind, release at once.
 *
 * Invariant: head is the block being filled; older blocks follow through `prev`. A mark
 * records (block, used); rewinding frees every block newer than the mark's block.
 * In LP_ARENA_DEBUG builds each allocation is a separate block of exactly its size, so
 * AddressSanitizer sees overflows between allocations.
 */
#include "core/core.h"

#define ARENA_ALIGN 16
#define ARENA_DEFAULT_BLOCK (64 * 1024)

struct lp_arena_block {
    lp_arena_block *prev;
    size_t size;
    size_t used;
    _Alignas(16) unsigned char data[];
};

void lp_arena_init(lp_arena *a, size_t block_size)
{
    a->head = NULL;
    a->block_size = block_size ? block_size : ARENA_DEFAULT_BLOCK;
    a->total = 0;
}

static void free_blocks_until(lp_arena *a, lp_arena_block *stop)
{
    while (a->head && a->head != stop) {
        lp_arena_block *prev = a->head->prev;
        free(a->head);
        a->head = prev;
    }
}

void lp_arena_release(lp_arena *a)
{
    free_blocks_until(a, NULL);
    a->total = 0;
}

static lp_arena_block *new_block(lp_arena *a, size_t need)
{
    size_t size = need;
#ifndef LP_ARENA_DEBUG
    if (size < a->block_size)
        size = a->block_size;
#endif
    if (size > SIZE_MAX - sizeof(lp_arena_block))
        abort();
    lp_arena_block *b = lp_xmalloc(sizeof(lp_arena_block) + size);
    b->prev = a->head;
    b->size = size;
    b->used = 0;
    a->head = b;
    return b;
}

void *lp_arena_alloc(lp_arena *a, size_t n)
{
    if (n == 0)
        n = 1;
    lp_arena_block *b = a->head;
#ifdef LP_ARENA_DEBUG
    b = new_block(a, n);
#else
    size_t off = b ? (b->used + (ARENA_ALIGN - 1)) & ~(size_t)(ARENA_ALIGN - 1) : 0;
    if (!b || off > b->size || b->size - off < n) {
        b = new_block(a, n);
        off = 0;
    }
    b->used = off;
#endif
    void *p = b->data + b->used;
    b->used += n;
    a->total += n;
    return p;
}

void *lp_arena_zalloc(lp_arena *a, size_t n)
{
    void *p = lp_arena_alloc(a, n);
    memset(p, 0, n ? n : 1);
    return p;
}

char *lp_arena_strndup(lp_arena *a, const char *s, size_t n)
{
    char *p = lp_arena_alloc(a, n + 1);
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *lp_arena_strdup(lp_arena *a, const char *s) { return lp_arena_strndup(a, s, strlen(s)); }

char *lp_arena_printf(lp_arena *a, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    char *p = lp_arena_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

lp_arena_mark lp_arena_get_mark(const lp_arena *a)
{
    lp_arena_mark m = {a->head, a->head ? a->head->used : 0, a->total};
    return m;
}

void lp_arena_rewind(lp_arena *a, lp_arena_mark m)
{
    free_blocks_until(a, m.block);
    if (a->head)
        a->head->used = m.used;
    a->total = m.total;
}
