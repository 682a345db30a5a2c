/*
 * status.c: resolving roots, loading the current generation, and a root's state.
 */
#include "index/index_int.h"

#include <sys/stat.h>

lp_status lp_index_resolve_root(const char *path, bool allow_broad_root, lp_buf *root_out,
                                lp_error *err)
{
    lp_status rc = lp_path_real(path, root_out, err);
    if (rc)
        return rc;
    struct stat sb;
    if (stat(root_out->ptr, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return lp_error_set(err, LP_EINVAL, "%s is not a folder; give the repository's folder",
                            root_out->ptr);
    if (allow_broad_root)
        return LP_OK;
    lp_buf state;
    lp_buf_init(&state, 0);
    rc = lp_store_state_dir(&state, err);
    if (!rc)
        rc = lp_scan_check_root(root_out->ptr, state.ptr, err);
    lp_buf_release(&state);
    return rc;
}

/* abs (a real path) is the state folder or inside it (compared with its real path too). */
static bool under_real(lp_str state, lp_str abs)
{
    lp_str rel;
    if (lp_path_under(state, abs, &rel))
        return true;
    char *rs = realpath(state.ptr, NULL);
    bool in = rs && lp_path_under(lp_str_c(rs), abs, &rel);
    free(rs);
    return in;
}

/* path does not exist: is the deepest existing folder on it inside the state folder? */
static bool in_state_folder(const char *path, const char *state)
{
    lp_buf p, real;
    lp_buf_init(&p, 0);
    lp_buf_init(&real, 0);
    lp_buf_puts(&p, path);
    bool in = false;
    lp_error e;
    while (p.len > 1) {
        char *slash = strrchr(p.ptr, '/');
        if (!slash)
            break;
        p.len = slash == p.ptr ? 1 : (size_t)(slash - p.ptr);
        p.ptr[p.len] = '\0';
        if (lp_path_real(p.ptr, &real, &e) == LP_OK) {
            in = under_real(lp_str_c(state), lp_buf_str(&real));
            break;
        }
    }
    lp_buf_release(&p);
    lp_buf_release(&real);
    return in;
}

lp_status lp_index_resolve_file(const char *path, const char *base, lp_buf *root_out,
                                lp_buf *rel_out, lp_error *err)
{
    lp_buf joined, real, state;
    lp_buf_init(&joined, LP_PATH_MAX * 2);
    lp_buf_init(&real, 0);
    lp_buf_init(&state, 0);
    lp_status rc = LP_OK;
    lp_str p = lp_str_c(path);
    if (p.len == 0) {
        rc = lp_error_set(err, LP_EPATH, "empty path; give a file inside an indexed root");
        goto done;
    }
    if (p.len > LP_PATH_MAX) {
        rc = lp_error_set(err, LP_EPATH, "path is longer than %d bytes", LP_PATH_MAX);
        goto done;
    }
    for (size_t i = 0; i < p.len;) {
        size_t j = i;
        while (j < p.len && p.ptr[j] != '/')
            j++;
        if (j - i == 2 && p.ptr[i] == '.' && p.ptr[i + 1] == '.') {
            rc = lp_error_set(err, LP_EPATH,
                              "paths with '..' are refused; give the file's path inside the "
                              "repository (relative to its root) or an absolute path");
            goto done;
        }
        i = j + 1;
    }
    if (p.ptr[0] != '/') {
        if (!base) {
            rc = lp_error_set(err, LP_EPATH, "'%s' is relative; give an absolute path", path);
            goto done;
        }
        lp_buf_printf(&joined, "%s/%s", base, path);
    } else {
        lp_buf_puts(&joined, path);
    }
    if ((rc = lp_store_state_dir(&state, err)))
        goto done;
    lp_str rel;
    rc = lp_path_real(joined.ptr, &real, err);
    /* The state folder is refused whether or not the file exists (a missing lease.json must
     * not answer differently from a present one): check the deepest folder that resolves. */
    if (rc == LP_ENOENT && in_state_folder(joined.ptr, state.ptr)) {
        rc = lp_error_set(err, LP_EPATH, "%s is inside loupe's state folder, which is not served",
                          path);
        goto done;
    }
    if (rc)
        goto done;
    if (under_real(lp_buf_str(&state), lp_buf_str(&real))) {
        rc = lp_error_set(err, LP_EPATH, "%s is inside loupe's state folder, which is not served",
                          path);
        goto done;
    }
    if ((rc = lp_store_find_root(real.ptr, root_out, err))) {
        if (rc == LP_ENOTINDEXED)
            rc = lp_error_set(err, LP_EPATH,
                              "%s resolves to %s, which is outside every indexed root; only files "
                              "inside an indexed root are served",
                              path, real.ptr);
        goto done;
    }
    lp_path_under(lp_buf_str(root_out), lp_buf_str(&real), &rel);
    lp_buf_reset(rel_out);
    lp_buf_put_str(rel_out, rel);
done:
    lp_buf_release(&joined);
    lp_buf_release(&real);
    lp_buf_release(&state);
    return rc;
}

bool lp_index_stat_same(const lp_stored_file *f, const lp_scan_entry *e)
{
    return f->size == e->size && f->mtime_ns == e->mtime_ns && f->ino == e->ino &&
           f->mode == e->mode;
}

lp_status lp_index_load_files(lp_store *st, lp_arena *arena, lp_stored_file **out, size_t *n,
                              lp_error *err)
{
    *out = NULL;
    *n = 0;
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(
        st,
        "SELECT f.path, f.fid, f.bid, f.size, f.mtime_ns, f.ino, f.mode, b.hash, b.lang"
        " FROM files f JOIN blobs b USING(bid) ORDER BY f.path",
        &s, err);
    if (rc)
        return rc;
    LP_VEC(lp_stored_file) v = {0};
    int step;
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
        lp_stored_file *f = lp_vec_push_zero(&v);
        f->path = lp_arena_strdup(arena, (const char *)sqlite3_column_text(s, 0));
        f->fid = sqlite3_column_int64(s, 1);
        f->bid = sqlite3_column_int64(s, 2);
        f->size = (uint64_t)sqlite3_column_int64(s, 3);
        f->mtime_ns = sqlite3_column_int64(s, 4);
        f->ino = (uint64_t)sqlite3_column_int64(s, 5);
        f->mode = (uint32_t)sqlite3_column_int64(s, 6);
        if (sqlite3_column_bytes(s, 7) == 16)
            f->hash = lp_hash128_from_bytes(sqlite3_column_blob(s, 7));
        f->lang = (lp_lang)sqlite3_column_int(s, 8);
    }
    if (step != SQLITE_DONE)
        rc = lp_store_sql_error(st, "loading the indexed files", err);
    sqlite3_reset(s);
    if (rc) {
        lp_vec_free(&v);
        return rc;
    }
    /* Copy into the arena so the caller owns nothing but the arena. */
    if (v.len) {
        *out = lp_arena_alloc(arena, lp_mul_size(v.len, sizeof *v.items));
        memcpy(*out, v.items, v.len * sizeof *v.items);
    }
    *n = v.len;
    lp_vec_free(&v);
    return LP_OK;
}

lp_status lp_index_status_get(const char *root, bool check_fresh, lp_index_status *out,
                              lp_error *err)
{
    memset(out, 0, sizeof *out);
    lp_store *st = NULL;
    lp_arena arena;
    lp_arena_init(&arena, 0);
    lp_buf state_dir;
    lp_buf_init(&state_dir, 0);
    lp_status rc = lp_lease_inspect(root, &out->lease, err);
    if (rc)
        goto done;
    rc = lp_store_open(root, LP_STORE_READ, &st, err);
    if (rc == LP_ENOTINDEXED) {
        lp_error_clear(err);
        rc = LP_OK;
        out->state = out->lease.held ? LP_STATE_INDEXING : LP_STATE_NOT_INDEXED;
        goto done;
    }
    if (rc == LP_EREINDEX) {
        lp_error_clear(err);
        rc = LP_OK;
        out->state = out->lease.held ? LP_STATE_INDEXING : LP_STATE_REQUIRES_REINDEX;
        goto done;
    }
    if (rc)
        goto done;
    if ((rc = lp_store_pin(st, err)))
        goto done;
    rc = lp_store_current(st, &out->pub, err);
    if (rc)
        goto unpin;
    if (out->lease.held)
        out->state = LP_STATE_INDEXING;
    else if (out->pub.id == 0)
        out->state = LP_STATE_NOT_INDEXED;
    else if (!lp_publication_compatible(&out->pub))
        out->state = LP_STATE_REQUIRES_REINDEX;
    else
        out->state = LP_STATE_READY;
    {
        sqlite3_stmt *s;
        if (!lp_store_prepare(st, "SELECT reason, count(*) FROM skipped GROUP BY reason", &s,
                              NULL)) {
            while (sqlite3_step(s) == SQLITE_ROW) {
                int reason = sqlite3_column_int(s, 0);
                if (reason >= 0 && reason < LP_SKIP_COUNT)
                    out->skip_counts[reason] = (uint64_t)sqlite3_column_int64(s, 1);
            }
            sqlite3_reset(s);
        }
        /* indexed as text for their parse budget: listed with the reasons */
        if (!lp_store_prepare(st,
                              "SELECT count(*) FROM files f JOIN blobs b USING(bid)"
                              " WHERE b.flags & 2",
                              &s, NULL)) {
            if (sqlite3_step(s) == SQLITE_ROW)
                out->skip_counts[LP_SKIP_PARSE_BUDGET] = (uint64_t)sqlite3_column_int64(s, 0);
            sqlite3_reset(s);
        }
    }
    if (check_fresh && out->pub.id) {
        lp_stored_file *files;
        size_t nfiles;
        if ((rc = lp_index_load_files(st, &arena, &files, &nfiles, err)))
            goto unpin;
        if ((rc = lp_store_state_dir(&state_dir, err)))
            goto unpin;
        lp_scan_opts sopts = {.state_dir = state_dir.ptr, .use_default_ignores = true};
        lp_scan_result scan;
        if ((rc = lp_scan_walk(root, &sopts, &arena, &scan, err)))
            goto unpin;
        /* Paths the publication skipped on purpose are known, not new. */
        sqlite3_stmt *s;
        LP_VEC(const char *) skipped = {0};
        if (!lp_store_prepare(st, "SELECT path FROM skipped ORDER BY path", &s, NULL)) {
            while (sqlite3_step(s) == SQLITE_ROW)
                lp_vec_push(&skipped,
                            lp_arena_strdup(&arena, (const char *)sqlite3_column_text(s, 0)));
            sqlite3_reset(s);
        }
        size_t fi = 0, ki = 0;
        for (size_t ei = 0; ei < scan.nentries; ei++) {
            const lp_scan_entry *e = &scan.entries[ei];
            while (fi < nfiles && strcmp(files[fi].path, e->path) < 0) {
                out->deleted++;
                if (!out->sample_changed[0])
                    lp_utf8_copy(out->sample_changed, sizeof out->sample_changed,
                                 files[fi].path);
                fi++;
            }
            if (fi < nfiles && strcmp(files[fi].path, e->path) == 0) {
                if (!lp_index_stat_same(&files[fi], e)) {
                    out->changed++;
                    if (!out->sample_changed[0])
                        lp_utf8_copy(out->sample_changed, sizeof out->sample_changed, e->path);
                }
                fi++;
                continue;
            }
            while (ki < skipped.len && strcmp(skipped.items[ki], e->path) < 0)
                ki++;
            if (ki < skipped.len && strcmp(skipped.items[ki], e->path) == 0)
                continue;
            out->added++;
            if (!out->sample_changed[0])
                lp_utf8_copy(out->sample_changed, sizeof out->sample_changed, e->path);
        }
        out->deleted += nfiles - fi;
        lp_vec_free(&skipped);
        out->freshness_checked = true;
        if (out->state == LP_STATE_READY && (out->changed || out->added || out->deleted))
            out->state = LP_STATE_STALE;
    }
unpin:
    lp_store_unpin(st);
done:
    if (rc == LP_ECORRUPT) {
        /* Damage is a state of the root (reindex fixes it), not a failure to report it. */
        if (!lp_store_damage_get(root, out->damage, sizeof out->damage))
            snprintf(out->damage, sizeof out->damage, "%.*s", (int)sizeof out->damage - 1,
                     err ? err->msg : "damaged");
        out->state = out->lease.held ? LP_STATE_INDEXING : LP_STATE_DAMAGED;
        lp_error_clear(err);
        rc = LP_OK;
    }
    lp_store_close(st);
    lp_arena_release(&arena);
    lp_buf_release(&state_dir);
    return rc;
}
