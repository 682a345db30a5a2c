/*
 * store.c: opening a root's database, pinning publications, statement cache, errors.
 *
 * Connections are not shared between threads: each thread (or MCP request worker) opens its
 * own. The writer connection and readers coexist through WAL; readers never wait for it.
 */
#include "store/store_int.h"
#include "core/settings.h"

#include "core/versions.h"
#include "text/text.h"

#include <errno.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

static const char *const state_names[] = {"not_indexed", "indexing", "ready",
                                           "failed", "requires_reindex", "stale",
                                           "damaged"};

const char *lp_index_state_name(lp_index_state s)
{
    return (unsigned)s < LP_ARRAY_LEN(state_names) ? state_names[s] : "unknown";
}

/* Less than a database page or two left where path lives. */
static bool disk_full_at(const char *path)
{
    struct statvfs vs;
    return path && statvfs(path, &vs) == 0 &&
           (uint64_t)vs.f_bavail * (uint64_t)vs.f_frsize < ((uint64_t)64 << 10);
}

lp_status lp_store_disk_full(const char *what, lp_error *err)
{
    lp_buf dir;
    lp_buf_init(&dir, 0);
    if (lp_store_state_dir(&dir, NULL) != LP_OK)
        lp_buf_puts(&dir, "(unknown)");
    lp_status rc = lp_error_set(err, LP_ENOSPC,
                                "%s: the disk is full: no space left for the loupe state folder "
                                "%s; free space there (or set LOUPE_HOME to a folder on another "
                                "disk) and retry",
                                what, dir.ptr);
    lp_buf_release(&dir);
    return rc;
}

lp_status lp_store_sql_error(lp_store *st, const char *what, lp_error *err)
{
    int code = st && st->db ? sqlite3_errcode(st->db) : SQLITE_ERROR;
    const char *msg = st && st->db ? sqlite3_errmsg(st->db) : "no database";
    /* The errno behind an I/O error: a full disk shows up as SQLITE_FULL from a write but
     * as a plain "disk I/O error" from a failed fsync, truncate or shared-memory map, and a
     * descriptor limit as "unable to open database file". */
    int sys = st && st->db ? sqlite3_system_errno(st->db) : 0;
    int prim = code & 0xff;
    bool io = prim == SQLITE_IOERR || prim == SQLITE_FULL || prim == SQLITE_CANTOPEN;
    lp_status s = LP_ESQL;
    if (prim == SQLITE_BUSY || prim == SQLITE_LOCKED)
        s = LP_EBUSY;
    else if (io)
        s = LP_EIO;
    else if (prim == SQLITE_CORRUPT || prim == SQLITE_NOTADB)
        s = LP_ECORRUPT;
    if (s == LP_ECORRUPT) {
        char detail[200];
        snprintf(detail, sizeof detail, "%s: %s", what, msg);
        lp_store_damage_note(st ? st->root : NULL, detail);
        if (st && st->root)
            return lp_store_damaged_error(st->root, detail, err);
        return lp_error_set(err, s, "%s: the index database is damaged (%s); run 'loupe reindex'",
                            what, msg);
    }
    if (prim == SQLITE_FULL || (io && (sys == ENOSPC || sys == EDQUOT)))
        return lp_store_disk_full(what, err);
    /* A writer in a process where a reader had to open the WAL index read-only (a full
     * disk, see lp_store_open) shares that read-only index and is refused: same cause. */
    if (prim == SQLITE_READONLY && st && st->mode == LP_STORE_WRITE && disk_full_at(st->path))
        return lp_store_disk_full(what, err);
    if (io && lp_errno_is_resource(sys))
        return lp_error_errno(err, sys, "%s (%s)", what, msg);
    if (io) {
        /* SQLite keeps the errno of the last system call, which a rollback may have
         * replaced: look at the usual causes themselves. */
        if (st && disk_full_at(st->path))
            return lp_store_disk_full(what, err);
        struct rlimit rl;
        if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
            return lp_error_errno(err, EFBIG, "%s (%s)", what, msg);
    }
    return lp_error_set(err, s, "%s: %s", what, msg);
}

lp_status lp_store_exec(lp_store *st, const char *sql, lp_error *err)
{
    char *emsg = NULL;
    if (sqlite3_exec(st->db, sql, NULL, NULL, &emsg) != SQLITE_OK) {
        lp_status rc = lp_store_sql_error(st, "database", err);
        sqlite3_free(emsg);
        return rc;
    }
    return LP_OK;
}

const char *lp_store_col_dup(lp_arena *a, sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    return t ? lp_arena_strndup(a, (const char *)t, (size_t)sqlite3_column_bytes(s, i)) : NULL;
}

lp_status lp_store_prepare(lp_store *st, const char *sql, sqlite3_stmt **out, lp_error *err)
{
    for (size_t i = 0; i < st->ncache; i++) {
        if (st->cache[i].sql == sql) {
            *out = st->cache[i].stmt;
            sqlite3_reset(*out);
            sqlite3_clear_bindings(*out);
            return LP_OK;
        }
    }
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s, NULL) != SQLITE_OK) {
        /* Our statements are constants checked against this schema version: one that names
         * a table or column the schema no longer has means the schema pages are damaged
         * (a flipped byte that still parses), not a user error. */
        const char *m = sqlite3_errmsg(st->db);
        if ((sqlite3_errcode(st->db) & 0xff) == SQLITE_ERROR &&
            (strncmp(m, "no such column", 14) == 0 ||
             (strncmp(m, "no such table", 13) == 0 && !strstr(m, "temp.")))) {
            /* (temp tables are made on demand: a statement may probe for one) */
            char detail[200];
            snprintf(detail, sizeof detail, "the schema lost what a query needs: %s", m);
            lp_store_damage_note(st->root, detail);
            return lp_store_damaged_error(st->root, detail, err);
        }
        return lp_store_sql_error(st, "preparing a query", err);
    }
    if (st->ncache < LP_STORE_STMT_CACHE) {
        st->cache[st->ncache].sql = sql;
        st->cache[st->ncache].stmt = s;
        st->ncache++;
    } else {
        /* Cache full: evict the oldest entry (callers reset after use, so it is idle). */
        sqlite3_finalize(st->cache[0].stmt);
        memmove(&st->cache[0], &st->cache[1], sizeof st->cache[0] * (LP_STORE_STMT_CACHE - 1));
        st->cache[LP_STORE_STMT_CACHE - 1].sql = sql;
        st->cache[LP_STORE_STMT_CACHE - 1].stmt = s;
    }
    *out = s;
    return LP_OK;
}

/* heap_wal: a strictly read-only reader (SQLITE_OPEN_READONLY, URI readonly_shm=1) that
 * never writes the shared WAL index (-shm): the first connection to a database must
 * truncate and grow that file, which fails on a full disk (and with it every read). SQLite
 * then maps an existing index read-only, or, when no other connection keeps one, builds a
 * private copy of it in memory from the WAL file (its "unreliable shm" mode), taking only
 * shared locks: other readers and the writer are not blocked. */
static lp_status open_store(const char *root, lp_store_mode mode, bool heap_wal, lp_store **out,
                            lp_error *err)
{
    *out = NULL;
    lp_buf dir, path;
    lp_buf_init(&dir, 0);
    lp_buf_init(&path, 0);
    lp_store *st = NULL;
    lp_status rc = lp_store_root_dir(root, &dir, err);
    if (rc)
        goto done;
    lp_buf_printf(&path, "%s/index.db", dir.ptr);
    if (mode == LP_STORE_READ && access(path.ptr, F_OK) != 0) {
        rc = lp_error_set(err, LP_ENOTINDEXED, "%s is not indexed; run 'loupe index %s'", root,
                          root);
        goto done;
    }
    char damage[200];
    if (mode == LP_STORE_READ && lp_store_damage_get(root, damage, sizeof damage)) {
        /* Seen damaged before: nothing in it is served until a reindex rebuilds it. */
        rc = lp_store_damaged_error(root, damage, err);
        goto done;
    }
    if (mode == LP_STORE_WRITE) {
        if ((rc = lp_mkdir_p(dir.ptr, err)))
            goto done;
        lp_buf rootfile;
        lp_buf_init(&rootfile, 0);
        lp_buf_printf(&rootfile, "%s/root", dir.ptr);
        struct stat sb;
        if (stat(rootfile.ptr, &sb) != 0) {
            lp_buf line;
            lp_buf_init(&line, 0);
            lp_buf_printf(&line, "%s\n", root);
            rc = lp_write_file_atomic(rootfile.ptr, line.ptr, line.len, err);
            lp_buf_release(&line);
        }
        lp_buf_release(&rootfile);
        if (rc)
            goto done;
    }
    st = lp_xcalloc(1, sizeof *st);
    st->root = lp_xstrdup(root);
    st->path = lp_xstrdup(path.ptr);
    st->mode = mode;
    st->heap_wal = heap_wal;
    int flags = mode == LP_STORE_WRITE ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
                                       : SQLITE_OPEN_READWRITE;
    /* Readers open read-write too: WAL readers need the -shm file, and SQLite never writes
     * the database from a connection that only reads. query_only enforces that below. */
    lp_buf uri;
    lp_buf_init(&uri, 0);
    if (heap_wal) {
        flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
        lp_buf_puts(&uri, "file:");
        for (const char *c = path.ptr; *c; c++) {
            if (*c == '%' || *c == '?' || *c == '#')
                lp_buf_printf(&uri, "%%%02X", (unsigned char)*c);
            else
                lp_buf_putc(&uri, *c);
        }
        lp_buf_puts(&uri, "?readonly_shm=1");
    }
    int orc = sqlite3_open_v2(heap_wal ? uri.ptr : path.ptr, &st->db, flags | SQLITE_OPEN_NOMUTEX,
                              NULL);
    lp_buf_release(&uri);
    if (orc != SQLITE_OK) {
        rc = lp_store_sql_error(st, "opening the index", err);
        goto done;
    }
    if (lp_text_fts5_register(st->db) != SQLITE_OK) {
        rc = lp_store_sql_error(st, "registering the loupe tokenizer", err);
        goto done;
    }

    struct stat ident;
    if (stat(path.ptr, &ident) == 0) {
        st->dev = (uint64_t)ident.st_dev;
        st->ino = (uint64_t)ident.st_ino;
    }
    sqlite3_busy_timeout(st->db, 10000);
    sqlite3_extended_result_codes(st->db, 1);
    /* Only the writer sets WAL (persistent in the file): a reader asking for it while a
     * create is making the file would need the exclusive lock the writer holds, and one of
     * the two would get SQLITE_BUSY at once (no busy wait can resolve that). */
    if ((rc = lp_store_exec(st, mode == LP_STORE_WRITE ? "PRAGMA journal_mode=WAL;" : "", err)))
        goto done;
    if ((rc = lp_store_exec(st, "PRAGMA synchronous=NORMAL;"
                                "PRAGMA temp_store=MEMORY; PRAGMA foreign_keys=OFF;",
                            err)))
        goto done;
    if (mode == LP_STORE_WRITE) {
        if ((rc = lp_store_exec(st, "PRAGMA cache_size=-65536; PRAGMA wal_autocheckpoint=4000;",
                                err)))
            goto done;
    } else {
        if ((rc = lp_store_exec(st, "PRAGMA cache_size=-16384; PRAGMA query_only=1;", err)))
            goto done;
    }
    rc = lp_store_schema_ensure(st, mode == LP_STORE_WRITE, err);
done:
    if (rc) {
        lp_store_close(st);
        st = NULL;
    }
    *out = st;
    lp_buf_release(&dir);
    lp_buf_release(&path);
    return rc;
}

lp_status lp_store_open(const char *root, lp_store_mode mode, lp_store **out, lp_error *err)
{
    lp_status rc = open_store(root, mode, false, out, err);
    if ((rc != LP_ENOSPC && rc != LP_ELIMIT) || mode != LP_STORE_READ)
        return rc;
    /* A read needs no space, except for the shared WAL index: do without it (which also
     * needs one descriptor less, and no file to grow under a file-size limit). */
    lp_error again = {0};
    lp_status rc2 = open_store(root, mode, true, out, &again);
    lp_log(LP_LOG_INFO, "store.heap_wal_reader", "root=%s status=%s", root, lp_status_code(rc2));
    return rc2 == LP_OK ? LP_OK : rc;
}

void lp_store_close(lp_store *st)
{
    if (!st)
        return;
    for (size_t i = 0; i < st->ncache; i++)
        sqlite3_finalize(st->cache[i].stmt);
    if (st->db)
        sqlite3_close(st->db);
    free(st->root);
    free(st->path);
    free(st);
}

sqlite3 *lp_store_db(lp_store *st) { return st->db; }
const char *lp_store_root(const lp_store *st) { return st->root; }

lp_status lp_store_pin(lp_store *st, lp_error *err)
{
    if (st->pinned++)
        return LP_OK;
    /* A deferred transaction takes its WAL snapshot at the first read: do one now so the
     * publication is fixed at pin time, not at some later query. */
    lp_status rc = lp_store_exec(st, "BEGIN; SELECT 1 FROM meta LIMIT 1;", err);
    if (rc)
        st->pinned = 0;
    return rc;
}

void lp_store_unpin(lp_store *st)
{
    if (st->pinned == 0)
        return;
    if (--st->pinned == 0)
        lp_store_exec(st, "COMMIT", NULL);
}

static char embedding_identity[96] = "none";

void lp_fingerprint_set_embedding(const char *identity)
{
    snprintf(embedding_identity, sizeof embedding_identity, "%s", identity ? identity : "none");
}

void lp_fingerprint_current(lp_fingerprint *out)
{
    /* LOUPE_TEST_NO_GRAPH=1 (benchmarks) builds without references or edges: such an index
     * has no relationship evidence, and says so in its fingerprint. */
    int rel = lp_setting_bool(LP_SET_TEST_NO_GRAPH) ? 0 : LP_RELATIONSHIP_VERSION;
    snprintf(out->text, sizeof out->text,
             "schema=%d;parser=%d;extractor=%d;tokenizer=%d;relationship=%d;embedding=%s",
             LP_SCHEMA_VERSION, LP_PARSER_VERSION, LP_EXTRACTOR_VERSION, LP_TOKENIZER_VERSION,
             rel, embedding_identity);
}

bool lp_publication_compatible(const lp_publication *pub)
{
    lp_fingerprint cur;
    lp_fingerprint_current(&cur);
    return pub->id > 0 && strcmp(cur.text, pub->fingerprint.text) == 0;
}

/* The value of key in a fingerprint text ("k=v;k=v"), into out. */
static void fp_field(const char *fp, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);
    out[0] = '\0';
    for (const char *p = fp; p && *p; p = strchr(p, ';') ? strchr(p, ';') + 1 : NULL) {
        if (!strncmp(p, key, kl) && p[kl] == '=') {
            const char *v = p + kl + 1, *e = strchr(v, ';');
            snprintf(out, cap, "%.*s", (int)(e ? (size_t)(e - v) : strlen(v)), v);
            return;
        }
    }
}

void lp_fingerprint_explain(const lp_publication *pub, const char *root, bool mcp, char *out,
                            size_t cap)
{
    lp_fingerprint cur;
    lp_fingerprint_current(&cur);
    static const char *const keys[] = {"schema", "parser", "extractor", "tokenizer",
                                       "relationship"};
    char a[96], b[96], differs[160] = "";
    size_t dl = 0;
    int shown = 0;
    for (size_t i = 0; i < LP_ARRAY_LEN(keys) && shown < 2; i++) {
        fp_field(pub->fingerprint.text, keys[i], a, sizeof a);
        fp_field(cur.text, keys[i], b, sizeof b);
        if (strcmp(a, b) != 0 && dl < sizeof differs && ++shown)
            dl += (size_t)snprintf(differs + dl, sizeof differs - dl, "%s%s %s there, %s here",
                                   dl ? ", " : "", keys[i], a[0] ? a : "?", b);
    }
    char fix[160];
    if (mcp)
        snprintf(fix, sizeof fix, "manage_index {action: \"reindex\", path: \"%s\"}", root);
    else
        snprintf(fix, sizeof fix, "'loupe reindex %s'", root);
    if (!pub->fingerprint.text[0]) {
        /* refused at open (an older or newer schema): no publication was read */
        snprintf(out, cap,
                 "the index of %s was written by another loupe version (another schema) and is "
                 "not served; rebuild it with %s",
                 root, fix);
        return;
    }
    if (differs[0]) {
        snprintf(out, cap,
                 "the index of %s was built by another loupe version (%s) and is not served; "
                 "rebuild it with %s",
                 root, differs, fix);
        return;
    }
    fp_field(pub->fingerprint.text, "embedding", a, sizeof a);
    fp_field(cur.text, "embedding", b, sizeof b);
    bool built_dense = strcmp(a, "none") != 0, runs_dense = strcmp(b, "none") != 0;
    if (built_dense && !runs_dense)
        snprintf(out, cap,
                 "the index of %s was built with the dense channel (LOUPE_DENSE=1) and this loupe "
                 "runs without it: set LOUPE_DENSE=1%s to use it as built, or rebuild it without "
                 "dense vectors with %s",
                 root, mcp ? " for the server" : "", fix);
    else if (!built_dense && runs_dense)
        snprintf(out, cap,
                 "the index of %s was built without the dense channel and this loupe runs with "
                 "LOUPE_DENSE set: unset it%s to use the index as built, or add dense vectors "
                 "with %s",
                 root, mcp ? " for the server" : "", fix);
    else
        snprintf(out, cap,
                 "the index of %s was built with another embedding model (%s; this loupe has %s): "
                 "rebuild it with %s",
                 root, a, b, fix);
}

lp_status lp_store_current(lp_store *st, lp_publication *out, lp_error *err)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(
        st,
        "SELECT id, created_ms, op, fingerprint, merkle, files, bytes, symbols, chunks, skipped,"
        " partial, duration_ms FROM publications ORDER BY id DESC LIMIT 1",
        &s, err);
    if (rc)
        return rc;
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW) {
        out->id = sqlite3_column_int64(s, 0);
        out->created_ms = sqlite3_column_int64(s, 1);
        snprintf(out->op, sizeof out->op, "%s", (const char *)sqlite3_column_text(s, 2));
        snprintf(out->fingerprint.text, sizeof out->fingerprint.text, "%s",
                 (const char *)sqlite3_column_text(s, 3));
        if (sqlite3_column_bytes(s, 4) == 16)
            out->merkle = lp_hash128_from_bytes(sqlite3_column_blob(s, 4));
        out->files = sqlite3_column_int64(s, 5);
        out->bytes = sqlite3_column_int64(s, 6);
        out->symbols = sqlite3_column_int64(s, 7);
        out->chunks = sqlite3_column_int64(s, 8);
        out->skipped = sqlite3_column_int64(s, 9);
        out->partial = sqlite3_column_int(s, 10) != 0;
        out->duration_ms = sqlite3_column_int64(s, 11);
    } else if (step != SQLITE_DONE) {
        rc = lp_store_sql_error(st, "reading the current publication", err);
    }
    sqlite3_reset(s);
    return rc;
}
