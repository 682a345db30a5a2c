/*
 * index_int.h: internals shared by the files of src/index.
 */
#ifndef LP_INDEX_INT_H
#define LP_INDEX_INT_H

#include "index/index.h"
#include "lang/lang.h"

/* evidence.c: content-keyed evidence rows (blobs, contents, symbols, chunks, FTS). */

/* Insert the evidence of one new blob; *bid_out is its id. encoded is the content as
 * lp_store_content_encode made it (done by the worker that parsed it). vecs (may be NULL: no
 * embedding provider) holds pr->nchunks stored vectors of dimension dim, made by a worker
 * (lp_embed_chunks). */
lp_status lp_evidence_insert(lp_store *st, lp_hash128 hash, lp_lang lang, lp_str content,
                             lp_str encoded, const lp_parse_result *pr, const uint8_t *vecs,
                             uint32_t dim, int64_t *bid_out, lp_error *err);
/* The FTS rows of blob bid as they were inserted: the contentless FTS index needs the
 * original column values to delete a row, so the stored content is parsed again
 * (deterministic for one fingerprint; a blob kept as text for its parse budget is chunked
 * as text again). Any connection that sees the blob will do: collect.c runs this on worker
 * threads, each with its own read connection. n = 0 when the blob or its content is gone. */
typedef struct lp_fts_rows {
    int64_t bid;
    size_t n;
    int64_t *cids;     /* chunk ids = FTS rowids */
    lp_str (*cols)[4]; /* name, crumbs, doc, body of each row */
    uint64_t bytes;    /* the column bytes held */
} lp_fts_rows;
lp_status lp_evidence_fts_rows(lp_store *st, int64_t bid, lp_arena *arena, lp_fts_rows *out,
                               lp_error *err);
/* Remove blob bid and everything keyed by it; rows: its FTS rows from
 * lp_evidence_fts_rows (NULL: computed here, on st). */
lp_status lp_evidence_collect(lp_store *st, int64_t bid, const lp_fts_rows *rows, lp_error *err);

/* collect.c: remove the evidence of maybe_orphans[] (old blobs of changed and deleted files)
 * that no file references any more. The FTS rows of many blobs are computed by up to
 * `threads` workers in parallel while this thread deletes; *collected counts the blobs. */
lp_status lp_index_collect(lp_store *st, const int64_t *maybe_orphans, size_t n,
                           unsigned threads, uint64_t *collected, lp_error *err);
/* Remove all evidence and files (reindex starts from nothing inside its transaction). */
lp_status lp_evidence_reset_all(lp_store *st, lp_error *err);
/* The FTS column values of chunk i: owner name, breadcrumbs, doc text (body is the chunk
 * text itself). */
void lp_evidence_columns(const lp_parse_result *pr, lp_str content, size_t i, lp_buf *name,
                         lp_buf *crumbs, lp_buf *doc);

/* A file of the current generation, as loaded for stat-first comparison. */
typedef struct lp_stored_file {
    const char *path;
    int64_t fid, bid;
    uint64_t size;
    int64_t mtime_ns;
    uint64_t ino;
    uint32_t mode;
    lp_hash128 hash;
    lp_lang lang;
} lp_stored_file;

/* Load the files table sorted by path (bytewise, as scan sorts). Arena-owned. */
lp_status lp_index_load_files(lp_store *st, lp_arena *arena, lp_stored_file **out, size_t *n,
                              lp_error *err);
/* Same stat data: the file is unchanged without reading it. */
bool lp_index_stat_same(const lp_stored_file *f, const lp_scan_entry *e);

#endif
