/*
 * schema.c: the database schema, its version and the migrations.
 *
 * Version 1 is the first schema. A database whose version is older than the binary's is
 * migrated forward in one write transaction by the steps below; each step says whether the
 * evidence it leaves behind is still valid (otherwise the publication requires reindex, via
 * the fingerprint). A database from a newer loupe is refused with an actionable message.
 *
 * This file is the only place with DDL (CREATE/DROP/ALTER): the pieces other modules need
 * (bulk index rebuilds, the vectors table of old databases, the connection's vocabulary
 * table) are functions at the end. Which module writes which table is in
 * docs/ARCHITECTURE.md ("Who owns which table"), checked by tools/check_schema.py.
 */
#include "store/store_int.h"

/* The vectors table (written by src/embed). Databases made before it existed get it from
 * lp_store_schema_complete (CREATE TABLE IF NOT EXISTS with this definition). */
#define SCHEMA_VECTORS                                                                         \
    "vectors(bid INTEGER NOT NULL, ord INTEGER NOT NULL, v BLOB NOT NULL,"                     \
    "  PRIMARY KEY(bid, ord)) WITHOUT ROWID;"

/* The full schema at LP_SCHEMA_VERSION (for new databases). */
static const char *const schema_v1 =
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;"
    "CREATE TABLE publications("
    "  id INTEGER PRIMARY KEY, created_ms INTEGER NOT NULL, op TEXT NOT NULL,"
    "  fingerprint TEXT NOT NULL, merkle BLOB NOT NULL, files INTEGER NOT NULL,"
    "  bytes INTEGER NOT NULL, symbols INTEGER NOT NULL, chunks INTEGER NOT NULL,"
    "  skipped INTEGER NOT NULL, partial INTEGER NOT NULL, duration_ms INTEGER NOT NULL);"
    /* Evidence, keyed by (content hash, language). */
    "CREATE TABLE blobs(bid INTEGER PRIMARY KEY, hash BLOB NOT NULL, lang INTEGER NOT NULL,"
    "  size INTEGER NOT NULL, lines INTEGER NOT NULL, flags INTEGER NOT NULL,"
    "  nsymbols INTEGER NOT NULL, nchunks INTEGER NOT NULL, UNIQUE(hash, lang));"
    "CREATE TABLE contents(bid INTEGER PRIMARY KEY, data BLOB NOT NULL);"
    "CREATE TABLE symbols(bid INTEGER NOT NULL, ord INTEGER NOT NULL, kind INTEGER NOT NULL,"
    "  name TEXT NOT NULL, qname TEXT NOT NULL, parent INTEGER NOT NULL,"
    "  ordinal INTEGER NOT NULL, vis INTEGER NOT NULL, flags INTEGER NOT NULL,"
    "  skey INTEGER NOT NULL, start_byte INTEGER NOT NULL, end_byte INTEGER NOT NULL,"
    "  start_line INTEGER NOT NULL, end_line INTEGER NOT NULL, sig_end_byte INTEGER NOT NULL,"
    "  doc_start_byte INTEGER NOT NULL, doc_end_byte INTEGER NOT NULL,"
    "  doc_start_line INTEGER NOT NULL, doc_end_line INTEGER NOT NULL,"
    "  PRIMARY KEY(bid, ord)) WITHOUT ROWID;"
    "CREATE INDEX symbols_name ON symbols(name);"
    "CREATE INDEX symbols_skey ON symbols(bid, skey);"
    /* AUTOINCREMENT: a chunk id is never reused, so a stale FTS row can never alias a
     * newer chunk. */
    "CREATE TABLE chunks(cid INTEGER PRIMARY KEY AUTOINCREMENT, bid INTEGER NOT NULL,"
    "  ord INTEGER NOT NULL, owner INTEGER NOT NULL, kind INTEGER NOT NULL,"
    "  start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,"
    "  start_byte INTEGER NOT NULL, end_byte INTEGER NOT NULL);"
    "CREATE INDEX chunks_bid ON chunks(bid, ord);"
    /* Dense vectors of chunks (src/embed), keyed like chunks; LP_EMBED_VEC_BYTES(dim) bytes
     * each. Which model made them is in the publication fingerprint. */
    "CREATE TABLE " SCHEMA_VECTORS
    "CREATE VIRTUAL TABLE chunk_fts USING fts5(name, crumbs, doc, body, content='',"
    "  tokenize='loupe stem');"
    /* The current generation: path -> blob, with the stat data for stat-first sync. */
    "CREATE TABLE files(fid INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE,"
    "  bid INTEGER NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,"
    "  ino INTEGER NOT NULL, mode INTEGER NOT NULL, phash INTEGER NOT NULL);"
    "CREATE INDEX files_bid ON files(bid);"
    "CREATE INDEX files_phash ON files(phash);"
    /* size..mode: the stat data of a file skipped for its content (binary), so a sync can
     * trust the reason without reading the file again while the stat agrees (NULL for skips
     * decided without reading). */
    "CREATE TABLE skipped(path TEXT PRIMARY KEY, reason INTEGER NOT NULL, size INTEGER,"
    "  mtime_ns INTEGER, ino INTEGER, mode INTEGER) WITHOUT ROWID;";

/* Version 2: the code graph (src/graph). refs: content-keyed reference evidence (one row
 * per lp_ref of a blob; key2/mkey are the extra names a reference's resolution depends on,
 * for incremental re-resolution). edges: derived per publication over (file id, symbol ord)
 * endpoints (ord -1: the file itself); rule 0 marks an ambiguous candidate, not an edge.
 * notes: derived with the edges, the outcome of a call reference that proved nothing
 * (kind 0 unresolved, value = reason; kind 1 ambiguous, value = candidates found). */
/* The secondary indexes of refs and edges. A bulk writer (src/graph) drops them and
 * builds them once at the end, sorted (lp_store_bulk_indexes_*): the definitions are
 * these, in one place, whichever path creates them. */
#define SCHEMA_REFS_NAME_IX "CREATE INDEX refs_name ON refs(name);"
#define SCHEMA_REFS_KEY2_IX "CREATE INDEX refs_key2 ON refs(key2) WHERE key2 <> '';"
#define SCHEMA_REFS_MKEY_IX "CREATE INDEX refs_mkey ON refs(mkey) WHERE mkey <> '';"
#define SCHEMA_EDGES_DST_IX "CREATE INDEX edges_dst ON edges(dst_fid, dst_ord, kind);"
#define SCHEMA_EDGES_SRC_IX "CREATE INDEX edges_src ON edges(src_fid, src_ord, kind);"

#define SCHEMA_V2_GRAPH                                                                        \
    "CREATE TABLE refs(bid INTEGER NOT NULL, ord INTEGER NOT NULL, kind INTEGER NOT NULL,"     \
    "  owner INTEGER NOT NULL, name TEXT NOT NULL, qual TEXT NOT NULL, alias TEXT NOT NULL,"   \
    "  rtype TEXT NOT NULL, args TEXT NOT NULL, nargs INTEGER NOT NULL, flags INTEGER NOT NULL," \
    "  key2 TEXT NOT NULL, mkey TEXT NOT NULL, start_byte INTEGER NOT NULL,"                   \
    "  end_byte INTEGER NOT NULL, start_line INTEGER NOT NULL, end_line INTEGER NOT NULL,"     \
    "  PRIMARY KEY(bid, ord)) WITHOUT ROWID;"                                                 \
    SCHEMA_REFS_NAME_IX SCHEMA_REFS_KEY2_IX SCHEMA_REFS_MKEY_IX                                \
    "CREATE TABLE edges(src_fid INTEGER NOT NULL, ref_ord INTEGER NOT NULL,"                  \
    "  kind INTEGER NOT NULL, dst_fid INTEGER NOT NULL, dst_ord INTEGER NOT NULL,"            \
    "  src_ord INTEGER NOT NULL, rule INTEGER NOT NULL,"                                      \
    "  PRIMARY KEY(src_fid, ref_ord, kind, dst_fid, dst_ord)) WITHOUT ROWID;"                 \
    SCHEMA_EDGES_DST_IX SCHEMA_EDGES_SRC_IX                                                    \
    "CREATE TABLE notes(src_fid INTEGER NOT NULL, ref_ord INTEGER NOT NULL,"                  \
    "  src_ord INTEGER NOT NULL, kind INTEGER NOT NULL, value INTEGER NOT NULL,"              \
    "  PRIMARY KEY(src_fid, ref_ord)) WITHOUT ROWID;"

static const char *const schema_v2 = SCHEMA_V2_GRAPH;

typedef struct migration {
    int from; /* applies to a database at this version, leaves it at from + 1 */
    const char *sql;
} migration;

/* Version 3 drops the index on symbols(qname): a qualified-name lookup goes through the
 * name index (a qualified name ends with its symbol's name), and the index cost 0.22x the
 * corpus on the Linux kernel (docs/decisions/0005-index-size.md). */
#define SCHEMA_V3_NO_QNAME_INDEX "DROP INDEX IF EXISTS symbols_qname;"

/* Version 4 keeps the stat data of files skipped as binary (NULL in rows written before:
 * those files are read once more by the next sync, as before). */
#define SCHEMA_V4_SKIP_STAT                                                                    \
    "ALTER TABLE skipped ADD COLUMN size INTEGER;"                                            \
    "ALTER TABLE skipped ADD COLUMN mtime_ns INTEGER;"                                        \
    "ALTER TABLE skipped ADD COLUMN ino INTEGER;"                                             \
    "ALTER TABLE skipped ADD COLUMN mode INTEGER;"

/* Forward migrations, in order. 1 -> 2 adds the graph tables; the relationship version
 * in the fingerprint changes with it, so old publications require a reindex. 2 -> 3 drops
 * an index, 3 -> 4 adds columns (the evidence is unchanged by both). */
static const migration migrations[] = {
    {1, SCHEMA_V2_GRAPH}, {2, SCHEMA_V3_NO_QNAME_INDEX}, {3, SCHEMA_V4_SKIP_STAT}};

static lp_status read_version(lp_store *st, int *version, lp_error *err)
{
    *version = 0;
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(st->db,
                                "SELECT count(*) FROM sqlite_master WHERE name='meta'", -1, &s,
                                NULL);
    if (rc != SQLITE_OK)
        return lp_store_sql_error(st, "reading the schema", err);
    bool has_meta = sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0) > 0;
    sqlite3_finalize(s);
    if (!has_meta)
        return LP_OK;
    rc = sqlite3_prepare_v2(st->db, "SELECT value FROM meta WHERE key='schema_version'", -1, &s,
                            NULL);
    if (rc != SQLITE_OK)
        return lp_store_sql_error(st, "reading the schema version", err);
    if (sqlite3_step(s) == SQLITE_ROW)
        *version = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    if (*version <= 0) {
        lp_store_damage_note(st->root, "the schema version is missing");
        return lp_store_damaged_error(st->root, "the schema version is missing", err);
    }
    return LP_OK;
}

lp_status lp_store_schema_ensure(lp_store *st, bool writable, lp_error *err)
{
    int version;
    lp_status rc = read_version(st, &version, err);
    if (rc)
        return rc;
    if (version > LP_SCHEMA_VERSION)
        return lp_error_set(err, LP_EREINDEX,
                            "the index of %s was written by a newer loupe (schema %d, this binary "
                            "knows %d); upgrade loupe or run 'loupe reindex' to rebuild it",
                            st->root, version, LP_SCHEMA_VERSION);
    if (version == LP_SCHEMA_VERSION)
        return LP_OK;
    if (!writable)
        return version == 0 ? lp_error_set(err, LP_ENOTINDEXED, "%s is not indexed yet; run "
                                                               "'loupe index %s'",
                                           st->root, st->root)
                            : lp_error_set(err, LP_EREINDEX,
                                           "the index of %s has an older schema (%d); run "
                                           "'loupe reindex %s'",
                                           st->root, version, st->root);
    if ((rc = lp_store_exec(st, "BEGIN IMMEDIATE", err)))
        return rc;
    if (version == 0) {
        rc = lp_store_exec(st, schema_v1, err);
        if (!rc)
            rc = lp_store_exec(st, schema_v2, err);
        if (!rc) {
            char sql[160];
            snprintf(sql, sizeof sql,
                     "INSERT INTO meta(key, value) VALUES('schema_version', '%d')",
                     LP_SCHEMA_VERSION);
            rc = lp_store_exec(st, sql, err);
        }
    } else {
        for (size_t i = 0; !rc && i < LP_ARRAY_LEN(migrations); i++) {
            if (migrations[i].sql && migrations[i].from == version) {
                rc = lp_store_exec(st, migrations[i].sql, err);
                version++;
            }
        }
        if (!rc) {
            char sql[160];
            snprintf(sql, sizeof sql, "UPDATE meta SET value='%d' WHERE key='schema_version'",
                     version);
            rc = lp_store_exec(st, sql, err);
        }
    }
    if (rc) {
        lp_store_exec(st, "ROLLBACK", NULL);
        return rc;
    }
    return lp_store_exec(st, "COMMIT", err);
}

/* ------------------------------------------------------------------------------------------
 * DDL other modules need, kept here so every definition has one place. */

lp_status lp_store_schema_complete(lp_store *st, lp_error *err)
{
    return lp_store_exec(st, "CREATE TABLE IF NOT EXISTS " SCHEMA_VECTORS, err);
}

lp_status lp_store_bulk_indexes_drop(lp_store *st, lp_store_ixset set, lp_error *err)
{
    return lp_store_exec(st,
                         set == LP_STORE_IX_REFS
                             ? "DROP INDEX IF EXISTS refs_name; DROP INDEX IF EXISTS refs_key2;"
                               " DROP INDEX IF EXISTS refs_mkey;"
                             : "DROP INDEX IF EXISTS edges_dst; DROP INDEX IF EXISTS edges_src;",
                         err);
}

/* SQLite stores the same text with and without IF NOT EXISTS (it drops the clause from
 * sqlite_master), so a rebuilt index is defined exactly as a new database defines it. */
lp_status lp_store_bulk_indexes_build(lp_store *st, lp_store_ixset set, lp_error *err)
{
    static const char *const refs[] = {SCHEMA_REFS_NAME_IX, SCHEMA_REFS_KEY2_IX,
                                       SCHEMA_REFS_MKEY_IX};
    static const char *const edges[] = {SCHEMA_EDGES_DST_IX, SCHEMA_EDGES_SRC_IX};
    const char *const *list = set == LP_STORE_IX_REFS ? refs : edges;
    size_t n = set == LP_STORE_IX_REFS ? LP_ARRAY_LEN(refs) : LP_ARRAY_LEN(edges);
    /* a no-op for an index that exists (the refs indexes survive a build that did not
     * drop them); the text after "CREATE INDEX " is the schema's definition */
    char sql[256];
    for (size_t i = 0; i < n; i++) {
        snprintf(sql, sizeof sql, "CREATE INDEX IF NOT EXISTS %s", list[i] + 13);
        lp_status rc = lp_store_exec(st, sql, err);
        if (rc)
            return rc;
    }
    return LP_OK;
}

lp_status lp_store_vocab_attach(lp_store *st, lp_error *err)
{
    /* A TEMP virtual table (in memory: temp_store=MEMORY) over the index's own vocabulary;
     * read connections are query_only, which also refuses temp DDL, so lift it for this
     * one statement. Nothing is written to the database. */
    int was = 1;
    sqlite3_stmt *qo;
    if (sqlite3_prepare_v2(st->db, "PRAGMA query_only", -1, &qo, NULL) == SQLITE_OK) {
        if (sqlite3_step(qo) == SQLITE_ROW)
            was = sqlite3_column_int(qo, 0);
        sqlite3_finalize(qo);
    }
    lp_status rc = lp_store_exec(st, "PRAGMA query_only=0", err);
    if (!rc)
        rc = lp_store_exec(st,
                           "CREATE VIRTUAL TABLE IF NOT EXISTS temp.loupe_vocab"
                           " USING fts5vocab(main, 'chunk_fts', 'row')",
                           err);
    if (was)
        lp_store_exec(st, "PRAGMA query_only=1", NULL);
    return rc;
}
