/*
 * read.c: bounded reads of published files, with freshness.
 */
#include "index/index_int.h"

static const char SQL_FILE_BLOB[] =
    "SELECT b.hash, b.bid FROM files f JOIN blobs b USING(bid) WHERE f.path = ?1";

/* Say why the disk's text of rel was not used (lp_read_info.disk_code / disk_note). */
static void disk_problem(const char *rel, lp_skip_reason skip, const lp_error *rerr,
                         lp_read_info *info)
{
    char *n = info->disk_note;
    size_t cap = sizeof info->disk_note;
    if (rerr->code == LP_ENOENT) {
        info->disk_code = lp_warn_code(LP_WARN_FILE_DELETED);
        snprintf(n, cap, "%s is gone from disk; showing the published text", rel);
    } else if (rerr->code) {
        info->disk_code = lp_warn_code(LP_WARN_DISK_READ_FAILED);
        snprintf(n, cap, "showing the published text: %.200s", rerr->msg);
    } else if (skip == LP_SKIP_SPECIAL) {
        info->disk_code = lp_warn_code(LP_WARN_NOT_REGULAR_FILE);
        snprintf(n, cap,
                 "%s is not a regular file on disk now (a fifo, socket or device); it was not "
                 "read, the published text is shown",
                 rel);
    } else if (skip == LP_SKIP_UNREADABLE) {
        info->disk_code = lp_warn_code(LP_WARN_FILE_UNREADABLE);
        snprintf(n, cap, "%s cannot be read on disk (permission denied); showing the published "
                         "text", rel);
    } else if (skip == LP_SKIP_TOO_LARGE) {
        info->disk_code = lp_warn_code(LP_WARN_FILE_TOO_LARGE);
        snprintf(n, cap, "%s is larger than %llu bytes on disk now; showing the published text",
                 rel, (unsigned long long)LP_SCAN_MAX_FILE_BYTES);
    } else if (skip == LP_SKIP_BINARY) {
        info->disk_code = lp_warn_code(LP_WARN_FILE_BINARY);
        snprintf(n, cap, "%s is binary on disk now; showing the published text", rel);
    } else {
        info->disk_code = lp_warn_code(LP_WARN_NOT_REGULAR_FILE);
        snprintf(n, cap, "%s on disk is %s now; showing the published text", rel,
                 lp_skip_reason_text(skip));
    }
}

/* Room kept for LP_READ_CUT_MARK with three 10-digit numbers. */
#define CUT_MARK_ROOM 64

lp_status lp_index_read_lines(lp_store *st, const char *rel, uint32_t start, uint32_t start_col,
                              uint32_t end, uint32_t max_lines, size_t max_bytes,
                              bool prefer_publication, lp_buf *out, lp_read_info *info,
                              lp_error *err)
{
    memset(info, 0, sizeof *info);
    lp_buf_reset(out);
    lp_buf disk;
    lp_buf_init(&disk, 0);
    lp_buf pubtext;
    lp_buf_init(&pubtext, 0);
    lp_publication pub;
    lp_status rc = lp_store_current(st, &pub, err);
    if (rc)
        goto done;
    info->publication_id = pub.id;
    sqlite3_stmt *s;
    if ((rc = lp_store_prepare(st, SQL_FILE_BLOB, &s, err)))
        goto done;
    sqlite3_bind_text(s, 1, rel, -1, SQLITE_STATIC);
    int step = sqlite3_step(s);
    if (step != SQLITE_ROW) {
        sqlite3_reset(s);
        if (step == SQLITE_DONE) {
            lp_buf why;
            lp_buf_init(&why, 0);
            lp_index_why_absent(st, rel, &why);
            rc = lp_error_set(err, LP_ENOENT,
                              "%s is not in the index (publication %lld): %s; run 'loupe sync' "
                              "if it is new",
                              rel, (long long)pub.id, why.ptr);
            lp_buf_release(&why);
        } else {
            rc = lp_store_sql_error(st, "reading a file", err);
        }
        goto done;
    }
    lp_hash128 pub_hash = {0, 0};
    if (sqlite3_column_bytes(s, 0) == 16)
        pub_hash = lp_hash128_from_bytes(sqlite3_column_blob(s, 0));
    int64_t bid = sqlite3_column_int64(s, 1);
    sqlite3_reset(s);
    if ((rc = lp_store_content_get(st, bid, &pubtext, err)))
        goto done;

    lp_skip_reason skip = LP_SKIP_NONE;
    lp_error rerr = {0};
    lp_str text = lp_buf_str(&pubtext);
    info->from_publication = true;
    if (lp_scan_read(lp_store_root(st), rel, LP_SCAN_MAX_FILE_BYTES, &disk, &skip, &rerr) ==
            LP_OK &&
        skip == LP_SKIP_NONE) {
        info->stale = !lp_hash128_eq(lp_hash128_of(disk.ptr, disk.len), pub_hash);
        if (!info->stale || !prefer_publication) {
            text = lp_buf_str(&disk);
            info->from_publication = false;
        }
    } else {
        info->stale = true; /* deleted, unreadable or now binary on disk */
        disk_problem(rel, skip, &rerr, info);
    }

    /* Walk lines. */
    if (start == 0)
        start = 1;
    uint32_t line = 1;
    size_t i = 0;
    while (line < start && i < text.len) {
        const char *nl = memchr(text.ptr + i, '\n', text.len - i);
        if (!nl) {
            i = text.len;
            break;
        }
        i = (size_t)(nl - text.ptr) + 1;
        line++;
    }
    info->start_line = start;
    info->start_col = 1;
    uint32_t emitted = 0;
    while (i < text.len && (end == 0 || line <= end)) {
        if (emitted >= max_lines) {
            info->truncated = true;
            break;
        }
        const char *nl = memchr(text.ptr + i, '\n', text.len - i);
        size_t e = nl ? (size_t)(nl - text.ptr) : text.len;
        size_t from = i; /* first byte shown of this line */
        if (emitted == 0 && start_col > 1) {
            if ((size_t)start_col - 1 > e - i) {
                rc = lp_error_set(err, LP_EINVAL,
                                  "line %u of %s has %zu bytes; column %u is past its end (the "
                                  "last column is %zu)",
                                  line, rel, e - i, start_col, e - i + 1);
                break; /* total_lines is still counted */
            }
            from = i + start_col - 1;
            /* A column inside a character starts at that character. */
            while (from > i && from < e && ((unsigned char)text.ptr[from] & 0xC0) == 0x80 &&
                   from > i + start_col - 4)
                from--;
            info->start_col = (uint32_t)(from - i + 1);
        }
        size_t before = out->len;
        if (from > i)
            lp_buf_printf(out, "%u:%zu| ", line, from - i + 1);
        else
            lp_buf_printf(out, "%u| ", line);
        size_t head = out->len - before;
        if (before + head + (e - from) + 1 > max_bytes) {
            if (emitted > 0) { /* whole lines so far: the next read starts at this one */
                lp_buf_truncate(out, before);
                info->truncated = true;
                break;
            }
            /* The first line alone is over the bound: show what fits, cut at a character,
             * and say where it goes on. At least one character, so reading on from
             * next_col always makes progress. */
            size_t room = max_bytes > before + head + CUT_MARK_ROOM + 1
                              ? max_bytes - before - head - CUT_MARK_ROOM - 1
                              : 0;
            size_t piece = lp_utf8_cut(text.ptr + from, e - from, room);
            if (piece == 0) {
                size_t k = lp_utf8_seq(text.ptr + from, e - from);
                piece = k ? k : 1;
            }
            lp_buf_append(out, text.ptr + from, piece);
            info->next_col = (uint32_t)(from + piece - i + 1);
            info->line_bytes = (uint32_t)(e - i);
            lp_buf_printf(out, LP_READ_CUT_MARK "\n", line, info->next_col, info->line_bytes);
            info->truncated = true;
            emitted++;
            line++;
            i = nl ? e + 1 : text.len;
            break;
        }
        lp_buf_append(out, text.ptr + from, e - from);
        lp_buf_putc(out, '\n');
        emitted++;
        line++;
        i = nl ? e + 1 : text.len;
    }
    info->end_line = emitted ? start + emitted - 1 : start - 1;
    /* Count the remaining lines for total_lines. */
    uint32_t total = line - 1;
    for (size_t k = i; k < text.len; k++)
        if (text.ptr[k] == '\n' || k == text.len - 1)
            total++;
    info->total_lines = total;
    if (!rc && start > total && total > 0)
        rc = lp_error_set(err, LP_EINVAL, "%s has %u lines; line %u is past its end", rel, total,
                          start);
done:
    lp_buf_release(&disk);
    lp_buf_release(&pubtext);
    return rc;
}
