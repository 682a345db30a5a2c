/*
 * content.c: file content stored once per blob, zstd-compressed when it pays.
 *
 * Level 1: ~3-4x on source code at several hundred MB/s per core, and decompression of a
 * typical file takes tens of microseconds, so snippets and symbol reads stay cheap.
 * Small inputs are stored raw (compression would not pay for its frame header).
 */
#include "store/store_int.h"

#include <zstd.h>

#define CODEC_RAW 0
#define CODEC_ZSTD 1
#define MIN_COMPRESS 256
#define MAX_DECODED ((size_t)64 << 20) /* far above the 8 MiB per-file limit */

void lp_store_content_encode(lp_str raw, lp_buf *out)
{
    lp_buf_reset(out);
    if (raw.len >= MIN_COMPRESS) {
        size_t bound = ZSTD_compressBound(raw.len);
        lp_buf_putc(out, CODEC_ZSTD);
        char *dst = lp_buf_extend(out, bound);
        if (dst) {
            size_t n = ZSTD_compress(dst, bound, raw.ptr, raw.len, 1);
            if (!ZSTD_isError(n) && n + 1 < raw.len) {
                lp_buf_truncate(out, 1 + n);
                return;
            }
        }
        lp_buf_reset(out);
    }
    lp_buf_putc(out, CODEC_RAW);
    lp_buf_append(out, raw.ptr, raw.len);
}

lp_status lp_store_content_decode(const void *p, size_t n, lp_buf *out, lp_error *err)
{
    lp_buf_reset(out);
    const unsigned char *b = p;
    if (n == 0)
        return lp_error_set(err, LP_ECORRUPT, "stored content is empty; run 'loupe reindex'");
    if (b[0] == CODEC_RAW) {
        lp_buf_append(out, b + 1, n - 1);
        return out->err ? lp_error_set(err, LP_ETOOBIG, "content too large") : LP_OK;
    }
    if (b[0] != CODEC_ZSTD)
        return lp_error_set(err, LP_ECORRUPT, "stored content has an unknown codec %u; run "
                                              "'loupe reindex'",
                            b[0]);
    unsigned long long size = ZSTD_getFrameContentSize(b + 1, n - 1);
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > MAX_DECODED)
        return lp_error_set(err, LP_ECORRUPT, "stored content is damaged; run 'loupe reindex'");
    if (!size)
        return LP_OK;
    char *dst = lp_buf_extend(out, (size_t)size);
    if (!dst)
        return lp_error_set(err, LP_ETOOBIG, "content too large");
    size_t got = ZSTD_decompress(dst, (size_t)size, b + 1, n - 1);
    if (ZSTD_isError(got) || got != size) {
        lp_buf_reset(out);
        return lp_error_set(err, LP_ECORRUPT, "stored content does not decode (%s); run 'loupe "
                                              "reindex'",
                            ZSTD_isError(got) ? ZSTD_getErrorName(got) : "short");
    }
    return LP_OK;
}

lp_status lp_store_content_put(lp_store *st, int64_t bid, lp_str encoded, lp_error *err)
{
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(st, "INSERT INTO contents(bid, data) VALUES(?1, ?2)", &s, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, bid);
    sqlite3_bind_blob(s, 2, encoded.ptr, (int)encoded.len, SQLITE_STATIC);
    rc = sqlite3_step(s) == SQLITE_DONE ? LP_OK : lp_store_sql_error(st, "storing content", err);
    sqlite3_reset(s);
    return rc;
}

lp_status lp_store_content_get(lp_store *st, int64_t bid, lp_buf *out, lp_error *err)
{
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(st, "SELECT data FROM contents WHERE bid = ?1", &s, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, bid);
    int step = sqlite3_step(s);
    if (step == SQLITE_ROW)
        rc = lp_store_content_decode(sqlite3_column_blob(s, 0), (size_t)sqlite3_column_bytes(s, 0),
                                     out, err);
    else if (step == SQLITE_DONE)
        rc = lp_error_set(err, LP_ENOENT, "no stored content for this file; run 'loupe reindex'");
    else
        rc = lp_store_sql_error(st, "reading content", err);
    sqlite3_reset(s);
    return rc;
}

lp_status lp_store_content_delete(lp_store *st, int64_t bid, lp_error *err)
{
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(st, "DELETE FROM contents WHERE bid = ?1", &s, err);
    if (rc)
        return rc;
    sqlite3_bind_int64(s, 1, bid);
    rc = sqlite3_step(s) == SQLITE_DONE ? LP_OK
                                        : lp_store_sql_error(st, "removing unreferenced evidence", err);
    sqlite3_reset(s);
    return rc;
}

lp_status lp_store_content_clear(lp_store *st, lp_error *err)
{
    return lp_store_exec(st, "DELETE FROM contents;", err);
}

/* ------------------------------------------------------------------------------------------
 * meta: small settings remembered per root (the schema version, the byte limit). */

lp_status lp_store_meta_set(lp_store *st, const char *key, const char *value, const char *what,
                            lp_error *err)
{
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(st, "INSERT OR REPLACE INTO meta(key, value) VALUES(?1, ?2)",
                                    &s, err);
    if (rc)
        return rc;
    sqlite3_bind_text(s, 1, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, value, -1, SQLITE_TRANSIENT);
    int step = sqlite3_step(s);
    sqlite3_reset(s);
    return step == SQLITE_DONE ? LP_OK : lp_store_sql_error(st, what, err);
}

lp_status lp_store_meta_get(lp_store *st, const char *key, lp_buf *out, bool *found, lp_error *err)
{
    sqlite3_stmt *s;
    *found = false;
    lp_status rc = lp_store_prepare(st, "SELECT value FROM meta WHERE key = ?1", &s, err);
    if (rc)
        return rc;
    sqlite3_bind_text(s, 1, key, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(s) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(s, 0);
        if (t) {
            lp_buf_reset(out);
            lp_buf_puts(out, t);
            *found = true;
        }
    }
    sqlite3_reset(s);
    return LP_OK;
}
