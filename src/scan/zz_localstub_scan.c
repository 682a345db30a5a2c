/* TEMPORARY PLACEHOLDER: lets main link until the scan branch merges (then deleted). Not the product. */
#include "scan/scan.h"
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
const char *lp_skip_reason_name(lp_skip_reason r) { static const char *n[] = {"none","binary","too_large","limit_reached","unreadable","symlink_outside_root","special","ignored","symlink_dir"}; return r < LP_SKIP_COUNT ? n[r] : "?"; }
lp_status lp_scan_check_root(const char *root, const char *state_dir, lp_error *err) { if (!strcmp(root, "/")) return lp_error_set(err, LP_EBROADROOT, "broad root; use --allow-broad-root"); (void)state_dir; return LP_OK; }
typedef LP_VEC(lp_scan_entry) evec;
static void walk(const char *root, const char *rel, lp_arena *a, evec *v, lp_scan_result *out) {
    char p[8192]; snprintf(p, sizeof p, "%s%s%s", root, *rel ? "/" : "", rel);
    DIR *d = opendir(p); if (!d) return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.' && (!de->d_name[1] || !strcmp(de->d_name, "..") || !strcmp(de->d_name, ".git"))) continue;
        if (!strcmp(de->d_name, "node_modules") || !strcmp(de->d_name, "build")) { out->skip_counts[LP_SKIP_IGNORED]++; continue; }
        char r2[8192]; snprintf(r2, sizeof r2, "%s%s%s", rel, *rel ? "/" : "", de->d_name);
        char f[16400]; snprintf(f, sizeof f, "%s/%s", root, r2);
        struct stat sb; if (lstat(f, &sb)) continue;
        if (S_ISDIR(sb.st_mode)) { walk(root, r2, a, v, out); continue; }
        if (!S_ISREG(sb.st_mode)) continue;
        lp_scan_entry e = {lp_arena_strdup(a, r2), (uint64_t)sb.st_size, (int64_t)sb.st_mtim.tv_sec * 1000000000 + sb.st_mtim.tv_nsec, sb.st_ino, sb.st_mode};
        lp_vec_push(v, e);
    }
    closedir(d);
}
static int ecmp(const void *a, const void *b) { return strcmp(((const lp_scan_entry*)a)->path, ((const lp_scan_entry*)b)->path); }
lp_status lp_scan_walk(const char *root, const lp_scan_opts *opts, lp_arena *arena, lp_scan_result *out, lp_error *err) {
    memset(out, 0, sizeof *out); evec v = {0}; walk(root, "", arena, &v, out);
    qsort(v.items, v.len, sizeof *v.items, ecmp);
    uint64_t max = opts && opts->max_file_bytes ? opts->max_file_bytes : LP_SCAN_MAX_FILE_BYTES;
    LP_VEC(lp_scan_skip) sk = {0}; size_t k = 0;
    for (size_t i = 0; i < v.len; i++) { if (v.items[i].size > max) { lp_vec_push(&sk, ((lp_scan_skip){v.items[i].path, LP_SKIP_TOO_LARGE})); out->skip_counts[LP_SKIP_TOO_LARGE]++; } else v.items[k++] = v.items[i]; }
    out->entries = lp_arena_alloc(arena, k * sizeof *v.items + 1); if (k) memcpy(out->entries, v.items, k * sizeof *v.items); out->nentries = k;
    out->skipped = lp_arena_alloc(arena, sk.len * sizeof *sk.items + 1); if (sk.len) memcpy(out->skipped, sk.items, sk.len * sizeof *sk.items); out->nskipped = sk.len;
    lp_vec_free(&v); lp_vec_free(&sk); (void)err; return LP_OK;
}
lp_status lp_scan_read(const char *root, const char *rel, uint64_t max_bytes, lp_buf *out, lp_skip_reason *skip, lp_error *err) {
    char p[8192]; snprintf(p, sizeof p, "%s/%s", root, rel); *skip = LP_SKIP_NONE;
    lp_status rc = lp_read_file(p, max_bytes, out, err);
    if (rc == LP_ETOOBIG) { *skip = LP_SKIP_TOO_LARGE; return LP_OK; }
    if (rc) { *skip = LP_SKIP_UNREADABLE; return LP_OK; }
    if (memchr(out->ptr, 0, LP_MIN(out->len, (size_t)8192))) *skip = LP_SKIP_BINARY;
    return LP_OK;
}
lp_hash128 lp_merkle_root(const char *const *paths, const lp_hash128 *hashes, size_t n) {
    lp_hasher *h = lp_hasher_new(); for (size_t i = 0; i < n; i++) { lp_hasher_update(h, paths[i], strlen(paths[i]) + 1); lp_hasher_update(h, &hashes[i], sizeof hashes[i]); }
    lp_hash128 r = lp_hasher_digest(h); lp_hasher_free(h); return r;
}
