/*
 * damage.c: noticing a damaged index database, remembering it, checking it, and putting a
 * damaged file aside so a reindex can start from nothing.
 *
 * SQLite has no page checksums: a damaged page shows only when a query reads it
 * (SQLITE_CORRUPT) or when a check walks the file (quick_check, integrity_check). Whoever
 * sees damage first records it in roots/<id>/damaged (one line: when and what), so every
 * later command reports the root as `damaged` at the cost of one stat, until a reindex
 * rebuilds the database and removes the note. The note is advisory: losing it loses nothing
 * but the early warning (the damage itself is still there to be found again).
 */
#include "store/store_int.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#define DAMAGE_NOTE "damaged"

static lp_status note_path(const char *root, lp_buf *out, lp_error *err)
{
    lp_status rc = lp_store_root_dir(root, out, err);
    if (!rc)
        lp_buf_puts(out, "/" DAMAGE_NOTE);
    return rc;
}

void lp_store_damage_note(const char *root, const char *what)
{
    lp_buf p, line;
    lp_buf_init(&p, 0);
    lp_buf_init(&line, 0);
    struct stat sb;
    if (root && note_path(root, &p, NULL) == LP_OK && stat(p.ptr, &sb) != 0) {
        char when[32];
        lp_format_iso8601(lp_wall_ms(), when);
        lp_buf_printf(&line, "%s %s\n", when, what ? what : "damaged");
        if (lp_write_file_atomic(p.ptr, line.ptr, line.len, NULL) == LP_OK)
            lp_log(LP_LOG_WARN, "store.damaged", "root=%s what=\"%s\"", root, what);
    }
    lp_buf_release(&p);
    lp_buf_release(&line);
}

bool lp_store_damage_get(const char *root, char *what, size_t cap)
{
    lp_buf p, text;
    lp_buf_init(&p, 0);
    lp_buf_init(&text, 0);
    bool found = false;
    if (note_path(root, &p, NULL) == LP_OK && access(p.ptr, F_OK) == 0) {
        found = true;
        if (what && cap) {
            what[0] = '\0';
            if (lp_read_file(p.ptr, 4096, &text, NULL) == LP_OK) {
                lp_str t = lp_str_trim(lp_buf_str(&text));
                /* "<time> <what>": the time is for people reading the file */
                const char *sp = memchr(t.ptr, ' ', t.len);
                if (sp) {
                    t.len -= (size_t)(sp + 1 - t.ptr);
                    t.ptr = sp + 1;
                }
                snprintf(what, cap, "%.*s", (int)t.len, t.ptr);
            }
        }
    }
    lp_buf_release(&p);
    lp_buf_release(&text);
    return found;
}

void lp_store_damage_forget(const char *root)
{
    lp_buf p;
    lp_buf_init(&p, 0);
    if (note_path(root, &p, NULL) == LP_OK)
        unlink(p.ptr);
    lp_buf_release(&p);
}

lp_status lp_store_damaged_error(const char *root, const char *what, lp_error *err)
{
    return lp_error_set(err, LP_ECORRUPT,
                        "the index database of %s is damaged (%s); run 'loupe reindex %s': it "
                        "rebuilds the index and keeps the damaged file aside for a bug report",
                        root, what && *what ? what : "a check failed", root);
}

lp_status lp_store_check(lp_store *st, bool full, lp_error *err)
{
    /* integrity_check also compares every index with its table; quick_check only walks the
     * pages. Both stop at the first problem here: one is enough to decide. */
    const char *sql = full ? "PRAGMA integrity_check(1)" : "PRAGMA quick_check(1)";
    sqlite3_stmt *s = NULL;
    lp_status rc = LP_OK;
    char what[200] = "";
    if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
        snprintf(what, sizeof what, "%s", sqlite3_errmsg(st->db));
    } else {
        int step = sqlite3_step(s);
        if (step == SQLITE_ROW) {
            const char *t = (const char *)sqlite3_column_text(s, 0);
            if (!t || strcmp(t, "ok") != 0)
                snprintf(what, sizeof what, "%s failed: %s", full ? "integrity_check" : "quick_check",
                         t ? t : "no answer");
        } else if (step != SQLITE_DONE) {
            snprintf(what, sizeof what, "%s", sqlite3_errmsg(st->db));
        }
    }
    sqlite3_finalize(s);
    int prim = sqlite3_errcode(st->db) & 0xff;
    if (!what[0] && full) {
        /* The lexical index keeps its b-trees inside blobs SQLite cannot check: FTS5's own
         * check walks them (for a contentless table, their internal consistency). */
        int qo = 0;
        if (sqlite3_prepare_v2(st->db, "PRAGMA query_only", -1, &s, NULL) == SQLITE_OK &&
            sqlite3_step(s) == SQLITE_ROW)
            qo = sqlite3_column_int(s, 0);
        sqlite3_finalize(s);
        if (qo)
            sqlite3_exec(st->db, "PRAGMA query_only=0", NULL, NULL, NULL);
        if (sqlite3_exec(st->db,
                         "INSERT INTO chunk_fts(chunk_fts, rank) VALUES('integrity-check', 0)",
                         NULL, NULL, NULL) != SQLITE_OK) {
            prim = sqlite3_errcode(st->db) & 0xff;
            if (prim == SQLITE_CORRUPT)
                snprintf(what, sizeof what, "the lexical index: %s", sqlite3_errmsg(st->db));
        }
        if (qo)
            sqlite3_exec(st->db, "PRAGMA query_only=1", NULL, NULL, NULL);
    }
    if (what[0]) {
        if (prim == SQLITE_BUSY || prim == SQLITE_LOCKED || prim == SQLITE_NOMEM ||
            prim == SQLITE_IOERR)
            return lp_store_sql_error(st, "checking the index database", err);
        lp_store_damage_note(st->root, what);
        rc = lp_store_damaged_error(st->root, what, err);
    }
    return rc;
}

lp_status lp_store_set_aside(const char *root, lp_buf *aside, lp_error *err)
{
    lp_buf dir, from, to;
    lp_buf_init(&dir, 0);
    lp_buf_init(&from, 0);
    lp_buf_init(&to, 0);
    lp_buf_reset(aside);
    lp_status rc = lp_store_root_dir(root, &dir, err);
    if (rc)
        goto done;
    /* damaged-<UTC time>.db, and its WAL beside it (the frames belong to that file) */
    char when[32];
    lp_format_iso8601(lp_wall_ms(), when);
    for (char *c = when; *c; c++)
        if (*c == ':')
            *c = '-';
    lp_buf_printf(aside, "%s/damaged-%s.db", dir.ptr, when);
    static const char *const suffixes[] = {"", "-wal"};
    for (size_t i = 0; i < LP_ARRAY_LEN(suffixes); i++) {
        lp_buf_reset(&from);
        lp_buf_reset(&to);
        lp_buf_printf(&from, "%s/index.db%s", dir.ptr, suffixes[i]);
        lp_buf_printf(&to, "%s%s", aside->ptr, suffixes[i]);
        if (rename(from.ptr, to.ptr) != 0 && errno != ENOENT) {
            rc = lp_error_set(err, LP_EIO, "cannot move the damaged index %s aside: %s",
                              from.ptr, strerror(errno));
            goto done;
        }
    }
    /* The shared-memory index describes the old WAL: never let a new database read it. */
    lp_buf_reset(&from);
    lp_buf_printf(&from, "%s/index.db-shm", dir.ptr);
    unlink(from.ptr);
    lp_log(LP_LOG_WARN, "store.set_aside", "root=%s kept=%s", root, aside->ptr);
done:
    lp_buf_release(&dir);
    lp_buf_release(&from);
    lp_buf_release(&to);
    return rc;
}
