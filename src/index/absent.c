/*
 * absent.c: why a path is not in a publication, in words a user can act on.
 *
 * The publication records each file it skipped with a reason (the `skipped` table); what it
 * never saw is new, ignored or gone. For a file skipped as unreadable the reason is checked
 * again now, so the message names the error (permission, I/O) or says it reads now.
 */
#include "index/index_int.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *reason_words(lp_skip_reason r)
{
    switch (r) {
    case LP_SKIP_BINARY:
        return "it is binary (a NUL byte in its first 8 KiB)";
    case LP_SKIP_TOO_LARGE:
        return "it is larger than the 8 MiB limit per file";
    case LP_SKIP_LIMIT_REACHED:
        return "the publication's limit of searchable bytes was reached before it (raise it "
               "with --max-total-bytes)";
    case LP_SKIP_SYMLINK_OUTSIDE:
        return "it is a symlink that leads outside the root";
    case LP_SKIP_SPECIAL:
        return "it is not a regular file (a fifo, socket or device)";
    case LP_SKIP_SYMLINK_DIR:
        return "it is a symlinked folder (not followed)";
    case LP_SKIP_CHANGING:
        return "it was being rewritten while it was read (sync again once it is stable)";
    case LP_SKIP_SYMLINK_LOOP:
        return "it is a symlink loop (it leads back to itself)";
    case LP_SKIP_SYMLINK_DANGLING:
        return "it is a symlink to a file that does not exist";
    default:
        return NULL;
    }
}

void lp_index_why_absent(lp_store *st, const char *rel, lp_buf *out)
{
    lp_buf_reset(out);
    const char *root = lp_store_root(st);
    int reason = -1;
    sqlite3_stmt *s;
    if (lp_store_prepare(st, "SELECT reason FROM skipped WHERE path = ?1", &s, NULL) == LP_OK) {
        sqlite3_bind_text(s, 1, rel, -1, SQLITE_STATIC);
        if (sqlite3_step(s) == SQLITE_ROW)
            reason = sqlite3_column_int(s, 0);
        sqlite3_reset(s);
    }
    lp_buf full;
    lp_buf_init(&full, 0);
    lp_buf_printf(&full, "%s/%s", root, rel);
    if (reason == LP_SKIP_UNREADABLE) {
        int fd = open(full.ptr, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
        if (fd >= 0) {
            close(fd);
            lp_buf_puts(out, "it could not be read when the index was built (it can be read "
                             "now: sync to index it)");
        } else {
            lp_buf_printf(out, "it is unreadable: %s%s", strerror(errno),
                          errno == EACCES || errno == EPERM
                              ? " (make it readable by this user, then sync)"
                              : "");
        }
    } else if (reason > 0 && reason_words((lp_skip_reason)reason)) {
        lp_buf_printf(out, "it was skipped: %s", reason_words((lp_skip_reason)reason));
    } else {
        struct stat sb;
        if (lstat(full.ptr, &sb) != 0)
            lp_buf_puts(out, "it does not exist");
        else if (S_ISDIR(sb.st_mode))
            lp_buf_puts(out, "it is a folder");
        else
            lp_buf_puts(out, "it is new since the index was built, or ignored (.gitignore, "
                             ".loupeignore)");
    }
    lp_buf_release(&full);
}
