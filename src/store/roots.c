/*
 * roots.c: the state folder layout, the list of indexed roots, clear, symbol ids.
 */
#include "store/store_int.h"
#include "core/settings.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

lp_status lp_store_state_dir(lp_buf *out, lp_error *err)
{
    return lp_settings_state_dir(out, err); /* the one rule (core/settings.c) */
}

void lp_store_root_id(const char *root, char out[17])
{
    snprintf(out, 17, "%016llx", (unsigned long long)lp_hash64_of(root, strlen(root)));
}

lp_status lp_store_root_dir(const char *root, lp_buf *out, lp_error *err)
{
    lp_status rc = lp_store_state_dir(out, err);
    if (rc)
        return rc;
    char id[17];
    lp_store_root_id(root, id);
    lp_buf_printf(out, "/roots/%s", id);
    return out->err ? lp_error_set(err, LP_EPATH, "state folder path too long") : LP_OK;
}

static char *read_root_file(const char *dir)
{
    lp_buf p, content;
    lp_buf_init(&p, 0);
    lp_buf_init(&content, 0);
    lp_buf_printf(&p, "%s/root", dir);
    char *result = NULL;
    if (lp_read_file(p.ptr, LP_PATH_MAX + 2, &content, NULL) == LP_OK) {
        lp_str line = lp_str_trim(lp_buf_str(&content));
        if (line.len && line.ptr[0] == '/')
            result = lp_xstrndup(line.ptr, line.len);
    }
    lp_buf_release(&p);
    lp_buf_release(&content);
    return result;
}

static int root_cmp(const void *a, const void *b)
{
    return strcmp(((const lp_root_entry *)a)->root, ((const lp_root_entry *)b)->root);
}

lp_status lp_store_list_roots(lp_root_entry **out, size_t *n, lp_error *err)
{
    *out = NULL;
    *n = 0;
    lp_buf dir, sub;
    lp_buf_init(&dir, 0);
    lp_buf_init(&sub, 0);
    LP_VEC(lp_root_entry) v = {0};
    lp_status rc = lp_store_state_dir(&dir, err);
    if (rc)
        goto done;
    lp_buf_puts(&dir, "/roots");
    DIR *d = opendir(dir.ptr);
    if (!d)
        goto done; /* no roots yet */
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.' || strlen(de->d_name) != 16)
            continue;
        lp_buf_reset(&sub);
        lp_buf_printf(&sub, "%s/%s", dir.ptr, de->d_name);
        char *root = read_root_file(sub.ptr);
        if (!root)
            continue;
        lp_root_entry e = {.root = root};
        memcpy(e.id, de->d_name, 17);
        lp_vec_push(&v, e);
    }
    closedir(d);
    if (v.len)
        qsort(v.items, v.len, sizeof v.items[0], root_cmp);
    *out = v.items;
    *n = v.len;
done:
    lp_buf_release(&dir);
    lp_buf_release(&sub);
    return rc;
}

void lp_store_roots_free(lp_root_entry *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(r[i].root);
    free(r);
}

lp_status lp_store_find_root(const char *abs_path, lp_buf *root_out, lp_error *err)
{
    lp_root_entry *roots;
    size_t n;
    lp_status rc = lp_store_list_roots(&roots, &n, err);
    if (rc)
        return rc;
    size_t best = SIZE_MAX, best_len = 0;
    for (size_t i = 0; i < n; i++) {
        lp_str rel;
        size_t len = strlen(roots[i].root);
        if (lp_path_under(lp_str_c(roots[i].root), lp_str_c(abs_path), &rel) && len >= best_len) {
            best = i;
            best_len = len;
        }
    }
    if (best == SIZE_MAX) {
        rc = lp_error_set(err, LP_ENOTINDEXED,
                          "no indexed root contains %s; run 'loupe index' in the repository "
                          "first (or 'loupe list' to see indexed roots)",
                          abs_path);
    } else {
        lp_buf_reset(root_out);
        lp_buf_puts(root_out, roots[best].root);
    }
    lp_store_roots_free(roots, n);
    return rc;
}

lp_status lp_store_clear(const char *root, lp_error *err)
{
    lp_lease *lease = NULL;
    lp_buf dir, p;
    lp_buf_init(&dir, 0);
    lp_buf_init(&p, 0);
    lp_status rc = lp_store_root_dir(root, &dir, err);
    if (rc)
        goto done;
    struct stat sb;
    if (stat(dir.ptr, &sb) != 0) {
        rc = lp_error_set(err, LP_ENOTINDEXED, "%s has no index to clear", root);
        goto done;
    }
    if ((rc = lp_lease_acquire(root, "clear", &lease, err)))
        goto done;
    static const char *const files[] = {"index.db-wal", "index.db-shm", "index.db", "root",
                                        "lease.json"};
    for (size_t i = 0; i < LP_ARRAY_LEN(files); i++) {
        lp_buf_reset(&p);
        lp_buf_printf(&p, "%s/%s", dir.ptr, files[i]);
        if (unlink(p.ptr) != 0 && errno != ENOENT) {
            rc = lp_error_set(err, LP_EIO, "cannot remove %s: %s", p.ptr, strerror(errno));
            goto done;
        }
    }
    lp_buf_reset(&p);
    lp_buf_printf(&p, "%s/lock", dir.ptr);
    unlink(p.ptr);
    rmdir(dir.ptr);
done:
    lp_lease_release(lease);
    lp_buf_release(&dir);
    lp_buf_release(&p);
    return rc;
}

/* Symbol ids ------------------------------------------------------------------------------ */

#define SYMID_MASK 0xffffffffffffull

uint64_t lp_symbol_path_hash(lp_str path)
{
    return lp_hash64_seeded(path.ptr, path.len, 0x6c6f757065ull) & SYMID_MASK;
}

uint64_t lp_symbol_key(lp_str qname, int kind, uint32_t ordinal)
{
    uint64_t h = lp_hash64_seeded(qname.ptr, qname.len, 0x73796d ^ (uint64_t)kind);
    h = lp_hash64_seeded(&ordinal, sizeof ordinal, h);
    return h & SYMID_MASK;
}

void lp_symbol_id_format(uint64_t path_hash, uint64_t key, char out[LP_SYMBOL_ID_LEN])
{
    snprintf(out, LP_SYMBOL_ID_LEN, "sym:%012llx%012llx",
             (unsigned long long)(path_hash & SYMID_MASK), (unsigned long long)(key & SYMID_MASK));
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

bool lp_symbol_id_parse(lp_str id, uint64_t *path_hash, uint64_t *key)
{
    if (id.len != LP_SYMBOL_ID_LEN - 1 || !lp_str_starts_with(id, LP_STR("sym:")))
        return false;
    uint64_t parts[2] = {0, 0};
    for (int p = 0; p < 2; p++) {
        for (int i = 0; i < 12; i++) {
            int v = hexval(id.ptr[4 + p * 12 + i]);
            if (v < 0)
                return false;
            parts[p] = (parts[p] << 4) | (uint64_t)v;
        }
    }
    *path_hash = parts[0];
    *key = parts[1];
    return true;
}
