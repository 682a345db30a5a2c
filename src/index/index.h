/*
 * index.h: the contract of src/index: building publications (create, sync, reindex) and
 * reporting a root's state.
 *
 * A build: take the root's writer lease, open one write transaction, walk (scan), compare
 * stat data with the current generation, read and hash only what changed, parse new
 * content in worker threads, write evidence, collect evidence nothing references, insert
 * the publication row, commit. Readers see the previous publication until the commit; a
 * crash or cancel before it changes nothing. A sync that finds no change publishes nothing.
 */
#ifndef LP_INDEX_H
#define LP_INDEX_H

#include "core/core.h"
#include "scan/scan.h"
#include "store/store.h"

#include "core/warn.h"

typedef enum lp_index_op {
    LP_INDEX_CREATE = 0, /* first build; on an indexed root it behaves as sync */
    LP_INDEX_SYNC = 1,   /* reprocess only added, changed, deleted or renamed files */
    LP_INDEX_REINDEX = 2 /* rebuild every piece of evidence (previous stays current) */
} lp_index_op;
const char *lp_index_op_name(lp_index_op op);

typedef struct lp_index_progress {
    const char *phase; /* "scanning", "indexing", "linking", "collecting", "publishing" */
    uint64_t files_done, files_total;
    uint64_t bytes_done, bytes_total;
    uint64_t elapsed_ms;
} lp_index_progress;

typedef void (*lp_index_progress_fn)(void *ctx, const lp_index_progress *p);

typedef struct lp_index_opts {
    lp_index_op op;
    bool allow_broad_root;
    uint64_t max_total_bytes; /* 0: the limit the root was last given, else LOUPE_MAX_TOTAL_BYTES,
                                 else LP_SCAN_MAX_TOTAL_BYTES; non-zero is remembered */
    uint64_t max_file_bytes;  /* 0: LP_SCAN_MAX_FILE_BYTES */
    unsigned threads;         /* parse workers; 0: online CPUs */
    lp_index_progress_fn progress; /* called from the building thread, a few times a second */
    void *progress_ctx;
    const volatile int *cancel; /* non-zero: stop, roll back, LP_ECANCELED. Checked up to
                                   just before COMMIT; set later, the build still succeeds
                                   (its publication is complete and current): callers that
                                   promise cancellation must say so */
} lp_index_opts;

/* blobs.flags */
#define LP_BLOB_PARTIAL 1      /* the tree had syntax errors */
#define LP_BLOB_PARSE_BUDGET 2 /* the parse went past its budget: kept as text */
#define LP_BLOB_GENERATED 4    /* LP_CONTENT_GENERATED: a generated-file marker near the top */
#define LP_BLOB_MINIFIED 8     /* LP_CONTENT_MINIFIED: minified (very long lines) */

typedef struct lp_index_report {
    lp_index_op op;         /* what ran: a create of an indexed root is a sync */
    int64_t publication_id; /* the new publication, or the current one when unchanged */
    bool published;         /* false: nothing changed, nothing published */
    uint64_t files;         /* files in the publication */
    uint64_t added, changed, deleted, unchanged, touched; /* touched: stat changed, bytes not */
    uint64_t parsed;        /* new evidence built (content never seen before) */
    uint64_t reused;        /* content already indexed (renames, copies, reverts) */
    uint64_t collected;     /* evidence no longer referenced, removed */
    bool rebuilt;           /* a sync that changed much of the tree rebuilt all evidence from
                               nothing (faster than incremental past ~25%; same results) */
    uint64_t files_read;    /* files opened and read (a file whose stat agrees is not) */
    uint64_t bytes_read, bytes_total;
    uint64_t symbols, chunks; /* in the publication */
    uint64_t skip_counts[LP_SKIP_COUNT];
    bool partial; /* limit_reached */
    lp_hash128 merkle;
    uint64_t ms_scan, ms_total;
    /* phases after the scan: reading, parsing and writing evidence; collecting evidence no
       file references; publishing (skips, Merkle root, row); COMMIT and WAL checkpoint */
    uint64_t ms_write, ms_collect, ms_publish, ms_commit;
    /* the code graph (src/graph): rebuilt in full or only where the changes reach */
    bool graph_full;
    uint64_t graph_refs;  /* references resolved by this build */
    uint64_t graph_edges; /* edges written by this build */
    uint64_t ms_graph;
    /* a reindex that found the database damaged moved it here (kept for a bug report) and
       rebuilt from nothing; empty otherwise */
    char set_aside[512];
} lp_index_report;

/* Resolve a user-given path to a root: realpath, must be a folder, broad-root check. */
lp_status lp_index_resolve_root(const char *path, bool allow_broad_root, lp_buf *root_out,
                                lp_error *err);

/* Resolve a user-given file path to (indexed root, normalized relative path), failing
 * closed: LP_EPATH for NUL bytes, overlong paths, any ".." component, paths into the state
 * folder, and anything whose real path (symlinks resolved) is outside every indexed root;
 * LP_ENOENT when it does not exist. A relative path is taken from base (NULL: refused). */
lp_status lp_index_resolve_file(const char *path, const char *base, lp_buf *root_out,
                                lp_buf *rel_out, lp_error *err);

/* Build a publication for root (absolute real path from lp_index_resolve_root). */
lp_status lp_index_run(const char *root, const lp_index_opts *opts, lp_index_report *rep,
                       lp_error *err);

/* Reading a file of the publication by line range. */
typedef struct lp_read_info {
    uint32_t start_line, end_line; /* the lines returned (1-based, inclusive) */
    uint32_t total_lines;          /* in the text read */
    bool truncated;                /* the requested range was cut to the limits */
    uint32_t start_col;            /* byte column (1-based) of the first byte shown of
                                      start_line: 1 unless the read started inside it */
    uint32_t next_col;             /* end_line is longer than the byte bound and was cut
                                      (at a character): the byte column where it goes on;
                                      0 when end_line is shown to its end */
    uint32_t line_bytes;           /* when next_col: the bytes of end_line */
    bool stale;                    /* the file on disk differs from the publication */
    bool from_publication;         /* text came from the publication (disk unreadable or
                                      prefer_publication) rather than from disk */
    int64_t publication_id;
    /* Why the disk's text was not used, when it could not be (NULL / "" otherwise):
     * disk_code is a stable warning code (lp_warn_code of LP_WARN_NOT_REGULAR_FILE,
     * FILE_DELETED, FILE_UNREADABLE, FILE_TOO_LARGE, FILE_BINARY or DISK_READ_FAILED;
     * static storage), disk_note a sentence naming the
     * file. The file on disk is read with lp_scan_read: never blocking, regular files only. */
    const char *disk_code;
    char disk_note[LP_ERROR_MSG_MAX];
} lp_read_info;

/* Read lines [start, end] (end 0 = to the end) of root/rel into out, numbered "N| text",
 * at most max_lines lines and max_bytes bytes. The file must be in the pinned publication
 * of st (LP_ENOENT otherwise, saying to sync when it is new). Text comes from disk when it
 * still matches the publication or prefer_publication is false; stale says when it differs.
 *
 * start_col (1-based byte column, 0 = 1) starts inside line start; that line is then shown
 * as "N:COL| text" (a column inside a character moves back to its first byte; past the end
 * of the line is LP_EINVAL). A line longer than what is left of max_bytes ends the read:
 * when it is the first line it is cut where a character ends, marked with
 * LP_READ_CUT_MARK, and info->next_col says where it goes on, so a read always shows at
 * least one character and reading on from (end_line, next_col) always makes progress. */
#define LP_READ_CUT_MARK " \xE2\x80\xA6[line %u goes on at column %u of %u]"
lp_status lp_index_read_lines(lp_store *st, const char *rel, uint32_t start, uint32_t start_col,
                              uint32_t end, uint32_t max_lines, size_t max_bytes,
                              bool prefer_publication, lp_buf *out, lp_read_info *info,
                              lp_error *err);

/* Why rel is not a file of the pinned publication of st, as a clause for a message ("it
 * was skipped: it is binary ...", "it is unreadable: Permission denied ...", "it does not
 * exist", "it is new ... or matched by an ignore rule ..."). out is replaced. */
void lp_index_why_absent(lp_store *st, const char *rel, lp_buf *out);

/* Published symbols (src/index/symbols.c). Strings are arena-owned. */
typedef struct lp_symbol_row {
    char id[LP_SYMBOL_ID_LEN];
    const char *path;
    const char *name;
    const char *qname;
    int kind; /* lp_symkind */
    uint32_t start_line, end_line;
    uint32_t start_byte, end_byte;
    uint32_t sig_end_byte;
    uint32_t doc_start_line, doc_end_line;
    int32_t ord;    /* index within its file */
    int32_t parent; /* ord of the parent, -1 at top level */
    int vis;        /* lp_visibility */
    uint32_t flags; /* LP_SYMF_* */
    int64_t bid;
} lp_symbol_row;

/* Every symbol of a published file, in source order. LP_ENOENT when rel is not in the
 * pinned publication. */
lp_status lp_index_outline(lp_store *st, const char *rel, lp_arena *arena, lp_symbol_row **out,
                           size_t *n, lp_error *err);
/* Every definition whose name or qualified name equals name: case-sensitive matches when
 * there are any, else case-insensitive ones. Sorted by path, then line. *n may be 0. */
lp_status lp_index_find_symbols(lp_store *st, const char *name, size_t max, lp_arena *arena,
                                lp_symbol_row **out, size_t *n, lp_error *err);
/* The symbol with this id. LP_EINVAL for a malformed id, LP_ENOENT when no published symbol
 * has it (say to search again), LP_EAMBIGUOUS when several do (never guessed). */
lp_status lp_index_symbol_by_id(lp_store *st, const char *id, lp_arena *arena,
                                lp_symbol_row *out, lp_error *err);
/* The exact source of a symbol from the publication (its span), bounded by max_bytes
 * (truncated reports a cut). Arena-owned, NUL-terminated. */
lp_status lp_index_symbol_source(lp_store *st, const lp_symbol_row *sym, size_t max_bytes,
                                 lp_arena *arena, const char **text, bool *truncated,
                                 lp_error *err);

/* State of a root as an agent should see it. */
typedef struct lp_index_status {
    lp_index_state state;   /* not_indexed, indexing (a writer is live), ready, stale,
                               requires_reindex, damaged */
    char damage[200];       /* state damaged: what was seen */
    lp_publication pub;     /* id 0 when none */
    lp_lease_info lease;    /* the live writer, when state is indexing */
    bool freshness_checked; /* changed/added/deleted below are meaningful */
    uint64_t changed, added, deleted; /* on disk since the publication, by stat */
    char sample_changed[256]; /* one changed path, for messages */
    uint64_t skip_counts[LP_SKIP_COUNT];
} lp_index_status;

/* check_fresh walks the root and compares stat data with the publication (no hashing). */
lp_status lp_index_status_get(const char *root, bool check_fresh, lp_index_status *out,
                              lp_error *err);

#endif
