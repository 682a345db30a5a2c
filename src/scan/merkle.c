/*
 * merkle.c: the hierarchical Merkle tree over (path, content hash) pairs; the exact
 * construction is documented in scan.h.
 *
 * The pairs are copied and sorted bytewise by path (then hash). In that order every
 * folder's contents form one contiguous run, and a folder's children appear in the order
 * of their names with a subfolder read as "name/", so one recursive pass builds each
 * folder's node from the run without any further sorting.
 */
#include "scan/scan.h"

#define MERKLE_TAG "LPM1"

typedef struct pair {
    const char *path;
    lp_hash128 hash;
} pair;

typedef struct builder {
    const pair *items;
    lp_arena *arena; /* NULL when folders are not collected */
    LP_VEC(lp_merkle_folder) folders;
} builder;

static int cmp_pair(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    int c = strcmp(x->path, y->path);
    return c ? c : lp_hash128_cmp(x->hash, y->hash);
}

static void put_child(lp_buf *b, char kind, const char *name, size_t len, lp_hash128 h)
{
    uint8_t hdr[5] = {(uint8_t)kind, (uint8_t)(len >> 24), (uint8_t)(len >> 16),
                      (uint8_t)(len >> 8), (uint8_t)len};
    uint8_t hb[16];
    lp_hash128_bytes(h, hb);
    lp_buf_append(b, hdr, sizeof hdr);
    lp_buf_append(b, name, len);
    lp_buf_append(b, hb, sizeof hb);
}

/* Node of the folder whose run is items[lo, hi); every path there starts with the folder's
 * prefix of `off` bytes ("dir/"; 0 for the root). */
static lp_hash128 build(builder *bd, size_t lo, size_t hi, size_t off)
{
    lp_buf ser;
    lp_buf_init(&ser, 0);
    lp_buf_puts(&ser, MERKLE_TAG);
    size_t i = lo;
    while (i < hi) {
        const char *name = bd->items[i].path + off;
        const char *slash = strchr(name, '/');
        if (!slash) {
            put_child(&ser, 'f', name, strlen(name), bd->items[i].hash);
            i++;
            continue;
        }
        size_t len = (size_t)(slash - name);
        size_t j = i + 1;
        while (j < hi && !strncmp(bd->items[j].path + off, name, len + 1))
            j++;
        lp_hash128 sub = build(bd, i, j, off + len + 1);
        put_child(&ser, 'd', name, len, sub);
        i = j;
    }
    lp_hash128 h = lp_hash128_of(ser.ptr, ser.len);
    lp_buf_release(&ser);
    if (bd->arena) {
        /* The folder's own path is the shared prefix without its trailing '/'. */
        const char *p = lo < hi ? bd->items[lo].path : "";
        lp_merkle_folder f = {lp_arena_strndup(bd->arena, p, off ? off - 1 : 0), h};
        lp_vec_push(&bd->folders, f);
    }
    return h;
}

static int cmp_folder(const void *a, const void *b)
{
    return strcmp(((const lp_merkle_folder *)a)->path, ((const lp_merkle_folder *)b)->path);
}

static lp_hash128 run(const char *const *paths, const lp_hash128 *hashes, size_t n, builder *bd)
{
    pair *items = lp_xmalloc(lp_mul_size(n ? n : 1, sizeof(pair)));
    for (size_t i = 0; i < n; i++)
        items[i] = (pair){paths[i], hashes[i]};
    qsort(items, n, sizeof(pair), cmp_pair);
    bd->items = items;
    lp_hash128 root = build(bd, 0, n, 0);
    free(items);
    return root;
}

lp_hash128 lp_merkle_root(const char *const *paths, const lp_hash128 *hashes, size_t n)
{
    builder bd = {0};
    return run(paths, hashes, n, &bd);
}

lp_hash128 lp_merkle_folders(const char *const *paths, const lp_hash128 *hashes, size_t n,
                             lp_arena *arena, lp_merkle_folder **out, size_t *nout)
{
    builder bd = {0};
    bd.arena = arena;
    lp_hash128 root = run(paths, hashes, n, &bd);
    qsort(bd.folders.items, bd.folders.len, sizeof(lp_merkle_folder), cmp_folder);
    *out = lp_arena_alloc(arena, sizeof(lp_merkle_folder) * (bd.folders.len ? bd.folders.len : 1));
    if (bd.folders.len)
        memcpy(*out, bd.folders.items, sizeof(lp_merkle_folder) * bd.folders.len);
    *nout = bd.folders.len;
    lp_vec_free(&bd.folders);
    return root;
}
