/*
 * store.h: the contract of src/store: one SQLite database per indexed root, its schema and
 * migrations, publications, fingerprints, the writer lease, and the state folder layout.
 *
 * Publications (see docs/decisions/0001-publications-as-wal-transactions.md):
 * the database holds exactly one current generation plus content-keyed evidence. A build
 * (create, sync, reindex) runs inside ONE write transaction and ends by inserting its
 * publication row; COMMIT makes the whole generation current at once. Readers pin a
 * publication by holding a read transaction for the whole request (WAL snapshot
 * isolation), so no answer can mix two generations, and a crash mid-build leaves the
 * previous publication current (the transaction never committed).
 *
 * Evidence (symbols, chunks, FTS rows, content) is keyed by blob = (content hash,
 * language); files map paths to blobs. An unchanged file costs nothing on sync; evidence no
 * file references is collected before the publishing commit.
 *
 * Layout under the state folder:
 *   roots/<rootid>/index.db   the database (WAL mode: also -wal, -shm)
 *   roots/<rootid>/root       the root's absolute path (one line)
 *   roots/<rootid>/lock       flock(2)ed by the one writer
 *   roots/<rootid>/lease.json the writer's pid, operation and progress (rewritten atomically)
 */
#ifndef LP_STORE_H
#define LP_STORE_H

#include "core/core.h"

#include <sqlite3.h>

#define LP_SCHEMA_VERSION 4

/* The state folder: $LOUPE_HOME, else $XDG_STATE_HOME/loupe, else ~/.local/state/loupe. */
lp_status lp_store_state_dir(lp_buf *out, lp_error *err);
/* Stable id of a root (absolute real path): 16 hex digits. */
void lp_store_root_id(const char *root, char out[17]);
/* roots/<rootid> folder for root. */
lp_status lp_store_root_dir(const char *root, lp_buf *out, lp_error *err);

/* ------------------------------------------------------------------------------------------
 * Fingerprint: every version that decides what evidence looks like. A publication made by
 * a binary with another fingerprint is never served as current (requires_reindex). */
typedef struct lp_fingerprint {
    char text[256]; /* "schema=1;parser=1;extractor=1;relationship=0;embedding=none" */
} lp_fingerprint;

/* The running binary's fingerprint (versions from core/versions.h plus the embedding
 * identity). */
void lp_fingerprint_current(lp_fingerprint *out);
/* Set the embedding identity (model hash, or provider/model/dimension) once at start-up,
 * before any thread reads the fingerprint. NULL means "none". */
void lp_fingerprint_set_embedding(const char *identity);

/* ------------------------------------------------------------------------------------------
 * Connections. */
typedef struct lp_store lp_store;

typedef enum lp_store_mode {
    LP_STORE_READ = 0,  /* read-only; fails with LP_ENOTINDEXED when there is no database */
    LP_STORE_WRITE = 1, /* creates the database and folders when missing */
} lp_store_mode;

/* Open the database of root (absolute real path). Caller frees with lp_store_close.
 * A reader that cannot open for lack of disk space (the shared WAL index, -shm, must be
 * created and grown by the first connection) is opened again strictly read-only, never
 * writing the -shm (SQLite's readonly_shm: the WAL index is mapped read-only or rebuilt in
 * private memory), so searches go on while the disk is full; such a connection is never
 * pooled. */
lp_status lp_store_open(const char *root, lp_store_mode mode, lp_store **out, lp_error *err);
void lp_store_close(lp_store *st); /* NULL is a no-op */
sqlite3 *lp_store_db(lp_store *st); /* borrowed */
const char *lp_store_root(const lp_store *st); /* borrowed */

/* A pool of idle read connections for a long-lived process (the MCP server): a request
 * takes one for its root and gives it back when done, so SQLite's page cache and the
 * prepared statements stay warm from one request to the next. A connection whose database
 * file was removed or replaced since it was opened (clear, then a new create) is closed on
 * reuse instead of served. At most max_idle connections are kept (the oldest is closed).
 * Thread-safe; a connection is used by one thread at a time. */
typedef struct lp_store_pool lp_store_pool;
lp_store_pool *lp_store_pool_new(size_t max_idle);
void lp_store_pool_free(lp_store_pool *p); /* closes the idle connections */
/* An idle connection of root (checked), else lp_store_open(root, LP_STORE_READ). */
lp_status lp_store_pool_take(lp_store_pool *p, const char *root, lp_store **out,
                             lp_error *err);
/* Back to the pool (st must be unpinned); closed instead when p is NULL. */
void lp_store_pool_give(lp_store_pool *p, lp_store *st);

/* Pin the current publication for a request: a read transaction until lp_store_unpin.
 * Every query between the two sees one generation. */
lp_status lp_store_pin(lp_store *st, lp_error *err);
void lp_store_unpin(lp_store *st);

/* Run SQL with no result rows; for statements built from constants only. */
lp_status lp_store_exec(lp_store *st, const char *sql, lp_error *err);
/* Prepare (cached per connection: the statement stays valid until lp_store_close; reset it
 * after use with sqlite3_reset). */
lp_status lp_store_prepare(lp_store *st, const char *sql, sqlite3_stmt **out, lp_error *err);
/* Column i of the current row of s as text copied into a (its bytes, NUL-terminated), or
 * NULL when the column is NULL. */
const char *lp_store_col_dup(lp_arena *a, sqlite3_stmt *s, int i);
/* Turn the connection's last SQLite error into err (LP_ESQL, or LP_EBUSY/LP_EIO/...). The
 * errno behind an I/O error decides the message: ENOSPC/EDQUOT (or SQLITE_FULL) is
 * LP_ENOSPC as lp_store_disk_full says it; a limit (EMFILE, ENFILE, ENOMEM, EFBIG) is
 * LP_ELIMIT naming the limit (lp_error_errno). Damage (SQLITE_CORRUPT, SQLITE_NOTADB, or a
 * schema that lost what our statements need) is LP_ECORRUPT, and is noted for the root
 * (lp_store_damage_note). */
lp_status lp_store_sql_error(lp_store *st, const char *what, lp_error *err);
/* The one full-disk message, everywhere (CLI, MCP, the index, continuations): LP_ENOSPC,
 * "<what>: the disk is full: no space left for the loupe state folder <dir>; free space
 * there (or set LOUPE_HOME to a folder on another disk) and retry". */
lp_status lp_store_disk_full(const char *what, lp_error *err);

/* ------------------------------------------------------------------------------------------
 * Damage (src/store/damage.c). SQLite has no page checksums: damage shows when a query
 * reads a damaged page, or when a check walks the file. The first to see it notes it in
 * roots/<id>/damaged; from then on the root's state is `damaged` (readers refuse it, create
 * and sync refuse it, reindex rebuilds from nothing) until a reindex succeeds. */
/* Note damage of root (what: one line, e.g. SQLite's message). Keeps an existing note. */
void lp_store_damage_note(const char *root, const char *what);
/* True when root has a damage note; what (may be NULL) gets its text. */
bool lp_store_damage_get(const char *root, char *what, size_t cap);
/* Remove the note (after a rebuild). */
void lp_store_damage_forget(const char *root);
/* LP_ECORRUPT with the message every surface uses (what is damaged, how to fix it). */
lp_status lp_store_damaged_error(const char *root, const char *what, lp_error *err);
/* Check the database: full runs integrity_check (every index against its table) and FTS5's
 * own check of the lexical index; otherwise quick_check (page structure only; linear in the
 * file size, ~4 ms per MiB). Damage is LP_ECORRUPT (and noted); LP_OK when sound. */
lp_status lp_store_check(lp_store *st, bool full, lp_error *err);
/* Move root's index.db (and its -wal) to roots/<id>/damaged-<UTC time>.db for a bug report,
 * and remove its -shm; *aside gets the new path. Call with the lease held and the database
 * closed. */
lp_status lp_store_set_aside(const char *root, lp_buf *aside, lp_error *err);

/* ------------------------------------------------------------------------------------------
 * File content, stored once per blob, compressed (zstd) when that pays. Compression is a
 * pure function so index workers can do it in parallel; the writer only stores the bytes.
 * Stored form: one codec byte (0 raw, 1 zstd) then the payload. */
void lp_store_content_encode(lp_str raw, lp_buf *out);
lp_status lp_store_content_put(lp_store *st, int64_t bid, lp_str encoded, lp_error *err);
/* The original bytes of blob bid into out (replaced). LP_ENOENT when there is no content,
 * LP_ECORRUPT when it does not decode. */
lp_status lp_store_content_get(lp_store *st, int64_t bid, lp_buf *out, lp_error *err);
/* Decode a stored value (for callers that already selected the column). */
lp_status lp_store_content_decode(const void *p, size_t n, lp_buf *out, lp_error *err);
/* Remove blob bid's content (collection of unreferenced evidence) / every blob's (a reset
 * before a rebuild). Inside the build's write transaction. */
lp_status lp_store_content_delete(lp_store *st, int64_t bid, lp_error *err);
lp_status lp_store_content_clear(lp_store *st, lp_error *err);

/* The meta table: small values remembered per root (schema_version, max_total_bytes).
 * meta_set replaces key's value (what: the failure's wording, "remembering the byte limit");
 * meta_get copies it into out with *found, or leaves out alone with *found false. */
lp_status lp_store_meta_set(lp_store *st, const char *key, const char *value, const char *what,
                            lp_error *err);
lp_status lp_store_meta_get(lp_store *st, const char *key, lp_buf *out, bool *found,
                            lp_error *err);

/* ------------------------------------------------------------------------------------------
 * Schema ownership (docs/ARCHITECTURE.md, "Who owns which table"). Every CREATE/DROP/ALTER
 * is in src/store/schema.c; these are the pieces of DDL other modules need. */
/* Tables a database made before they existed lacks (vectors, for version-1 databases made
 * before the dense channel): created with the schema's definition. Call inside the build's
 * write transaction (a no-op when they exist). */
lp_status lp_store_schema_complete(lp_store *st, lp_error *err);
/* The secondary indexes a bulk writer drops first and builds once, sorted, at the end:
 * refs (refs_name, refs_key2, refs_mkey) and edges (edges_dst, edges_src). Build is a
 * no-op for an index that exists; the definitions are the schema's. */
typedef enum lp_store_ixset { LP_STORE_IX_REFS = 0, LP_STORE_IX_EDGES = 1 } lp_store_ixset;
lp_status lp_store_bulk_indexes_drop(lp_store *st, lp_store_ixset set, lp_error *err);
lp_status lp_store_bulk_indexes_build(lp_store *st, lp_store_ixset set, lp_error *err);
/* temp.loupe_vocab: an fts5vocab table (row form) over chunk_fts on this connection, in
 * memory, made once per connection (a no-op after); allowed on read-only (query_only)
 * connections since it writes nothing to the database. */
lp_status lp_store_vocab_attach(lp_store *st, lp_error *err);

/* ------------------------------------------------------------------------------------------
 * Publications. */
typedef enum lp_index_state {
    LP_STATE_NOT_INDEXED = 0,
    LP_STATE_INDEXING,
    LP_STATE_READY,
    LP_STATE_FAILED,
    LP_STATE_REQUIRES_REINDEX,
    LP_STATE_STALE,
    LP_STATE_DAMAGED, /* the database is damaged: nothing is served; reindex rebuilds it */
} lp_index_state;
const char *lp_index_state_name(lp_index_state s);

typedef struct lp_publication {
    int64_t id;          /* 0: none */
    int64_t created_ms;
    char op[16];         /* create, sync, reindex */
    lp_fingerprint fingerprint;
    lp_hash128 merkle;
    int64_t files, bytes, symbols, chunks, skipped;
    bool partial;        /* limit_reached: not every searchable file is in it */
    int64_t duration_ms;
} lp_publication;

/* The current publication (id 0 when none) inside the pinned transaction (or a fresh one). */
lp_status lp_store_current(lp_store *st, lp_publication *out, lp_error *err);
/* True when pub was made with the running binary's fingerprint. */
bool lp_publication_compatible(const lp_publication *pub);
/* Why pub (incompatible) is not served, and both ways to fix it, as one sentence for
 * root: a setting that differs (the dense channel: LOUPE_DENSE) names the setting, how to
 * search the index as built, and how to rebuild it; another loupe version names the
 * versions that differ and the reindex. mcp: say manage_index instead of the CLI command.
 * out gets at most cap bytes. */
void lp_fingerprint_explain(const lp_publication *pub, const char *root, bool mcp, char *out,
                            size_t cap);

/* ------------------------------------------------------------------------------------------
 * The writer lease: one writer per root, across processes. */
typedef struct lp_lease lp_lease;

typedef struct lp_lease_info {
    bool held;          /* a live writer holds the lock */
    long pid;
    char op[16];
    int64_t started_ms;
    int64_t updated_ms;
    uint64_t files_done, files_total, bytes_done;
    char phase[32];     /* scanning, parsing, writing, publishing */
} lp_lease_info;

/* Take the lease of root or fail with LP_EBUSY naming the holder's pid and operation.
 * Caller releases with lp_lease_release (also released by process exit). */
lp_status lp_lease_acquire(const char *root, const char *op, lp_lease **out, lp_error *err);
/* Rewrite lease.json with progress (cheap; call at most a few times a second). */
void lp_lease_progress(lp_lease *l, const char *phase, uint64_t files_done,
                       uint64_t files_total, uint64_t bytes_done);
void lp_lease_release(lp_lease *l); /* NULL is a no-op */
/* True when the previous holder died holding the lease (mid-build): SQLite's recovery of
 * its WAL ran or will run at the next open, so the build checks the database first. */
bool lp_lease_after_crash(const lp_lease *l);
/* What a reader sees: whether a writer is live now and its last progress. */
lp_status lp_lease_inspect(const char *root, lp_lease_info *out, lp_error *err);

/* ------------------------------------------------------------------------------------------
 * Roots known to this state folder. */
typedef struct lp_root_entry {
    char *root; /* caller frees the array with lp_store_roots_free */
    char id[17];
} lp_root_entry;
lp_status lp_store_list_roots(lp_root_entry **out, size_t *n, lp_error *err);
void lp_store_roots_free(lp_root_entry *r, size_t n);
/* Remove every trace of root from the state folder (refuses while a writer is live). */
lp_status lp_store_clear(const char *root, lp_error *err);
/* The indexed root that contains abs_path (longest match), or LP_ENOTINDEXED. */
lp_status lp_store_find_root(const char *abs_path, lp_buf *root_out, lp_error *err);

/* ------------------------------------------------------------------------------------------
 * Symbol ids: "sym:" + 12 hex digits of the path hash + 12 hex digits of the symbol key
 * (hash of qualified name, kind and ordinal). Stable across edits elsewhere in the file and
 * across reindexing; decodable, so a lookup needs no extra table. */
#define LP_SYMBOL_ID_LEN 29 /* "sym:" + 24 + NUL */
uint64_t lp_symbol_path_hash(lp_str path);  /* 48 bits used */
/* kind: the symbol kind, plus LP_SYMKEY_DECL_OFFSET (lang.h) for a declaration, so that a
 * prototype and its definition never share a key; the index computes it once (evidence.c)
 * and readers use the stored key. */
uint64_t lp_symbol_key(lp_str qname, int kind, uint32_t ordinal); /* 48 bits used */
void lp_symbol_id_format(uint64_t path_hash, uint64_t key, char out[LP_SYMBOL_ID_LEN]);
/* Parse "sym:..." into its two parts; false when malformed. */
bool lp_symbol_id_parse(lp_str id, uint64_t *path_hash, uint64_t *key);

#endif
