/*
 * read.c: bounded, symlink-safe reads of files below a root (lp_scan_read).
 *
 * A file is opened relative to a descriptor of the root with no symlink allowed in any
 * component: openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) where the kernel has it, else
 * one openat(O_NOFOLLOW) per component. A path that is itself a symlink (the walk indexes
 * symlinks to files inside the root under the link's path) is resolved with realpath,
 * checked to be inside the root, and its resolved path opened the same symlink-free way:
 * if anything is swapped for a symlink in between, the open fails instead of following it.
 * O_NONBLOCK keeps a fifo swapped in from blocking the open.
 */
#include "scan/scan_int.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define READ_CHUNK (64 * 1024)
#define FILE_FLAGS (O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)

int lp_scan_open_components(int rootfd, const char *rel)
{
    char buf[LP_PATH_MAX + 1];
    size_t n = strlen(rel);
    if (n > LP_PATH_MAX) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, rel, n + 1);
    int cur = rootfd;
    char *comp = buf;
    for (;;) {
        char *slash = strchr(comp, '/');
        if (!slash)
            break;
        *slash = '\0';
        int next = openat(cur, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        struct stat st;
        if (next < 0 && e == ENOTDIR && fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISLNK(st.st_mode))
            e = ELOOP; /* as openat2 reports a symlink in the way */
        if (cur != rootfd)
            close(cur);
        if (next < 0) {
            errno = e;
            return -1;
        }
        cur = next;
        comp = slash + 1;
    }
    int fd = openat(cur, comp, FILE_FLAGS);
    int e = errno;
    if (cur != rootfd)
        close(cur);
    errno = e;
    return fd;
}

static int open_beneath(int rootfd, const char *rel)
{
#ifdef SYS_openat2
    struct open_how how = {
        .flags = FILE_FLAGS,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
    };
    int fd = (int)syscall(SYS_openat2, rootfd, rel, &how, sizeof how);
    if (fd >= 0 || (errno != ENOSYS && errno != EPERM))
        return fd;
#endif
    return lp_scan_open_components(rootfd, rel);
}

/* rel is a symlink (or goes through one): open its resolved path if that is inside root.
 * Sets *skip instead when it is not. */
static int open_resolved(int rootfd, const char *root, const char *rel, lp_skip_reason *skip)
{
    lp_buf full;
    lp_buf_init(&full, 2 * LP_PATH_MAX + 2);
    lp_buf_printf(&full, "%s/%s", root, rel);
    char *real = full.err ? NULL : realpath(full.ptr, NULL);
    int fd = -1;
    lp_str inside;
    if (!real) {
        *skip = errno == EACCES ? LP_SKIP_UNREADABLE : LP_SKIP_SYMLINK_OUTSIDE;
    } else if (!lp_path_under(lp_str_c(root), lp_str_c(real), &inside)) {
        *skip = LP_SKIP_SYMLINK_OUTSIDE;
    } else if (inside.len == 0) {
        *skip = LP_SKIP_SYMLINK_DIR; /* the root itself */
    } else {
        fd = open_beneath(rootfd, inside.ptr);
        if (fd < 0)
            *skip = LP_SKIP_UNREADABLE; /* changed under us, or no permission */
    }
    free(real);
    lp_buf_release(&full);
    return fd;
}

/* LOUPE_TEST_READ_DELAY_US: a pause between chunks (tests of files rewritten mid-read). */
static unsigned read_delay_us(void)
{
    const char *e = getenv("LOUPE_TEST_READ_DELAY_US");
    uint64_t v;
    return e && lp_parse_u64(lp_str_c(e), &v) && v <= 1000000 ? (unsigned)v : 0;
}

/* Read fd into out, at most limit bytes. */
static lp_skip_reason read_bounded(int fd, uint64_t limit, lp_buf *out)
{
    char chunk[READ_CHUNK];
    bool probed = false;
    unsigned delay = read_delay_us();
    for (;;) {
        if (delay && out->len)
            usleep(delay);
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return LP_SKIP_UNREADABLE;
        if (n == 0)
            break;
        if ((uint64_t)out->len + (uint64_t)n > limit)
            return LP_SKIP_TOO_LARGE;
        lp_buf_append(out, chunk, (size_t)n);
        if (out->err)
            return LP_SKIP_TOO_LARGE; /* the caller's buffer limit is smaller */
        if (!probed && out->len >= LP_SCAN_BINARY_PROBE) {
            probed = true; /* stop early on binaries: the rest is never used */
            if (memchr(out->ptr, '\0', LP_SCAN_BINARY_PROBE))
                return LP_SKIP_BINARY;
        }
    }
    if (memchr(out->ptr, '\0', LP_MIN(out->len, (size_t)LP_SCAN_BINARY_PROBE)))
        return LP_SKIP_BINARY;
    return LP_SKIP_NONE;
}

static bool same_stat(const struct stat *a, const struct stat *b)
{
    return a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
           a->st_mtim.tv_nsec == b->st_mtim.tv_nsec && a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
           a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Read a regular file whose stat is *before; detect a rewrite during the read (stat moved
 * or length differs from the size), read once more, and give LP_SKIP_CHANGING when the
 * second read is torn too. */
static lp_skip_reason read_stable(int fd, const struct stat *before, uint64_t limit,
                                  lp_buf *out)
{
    struct stat pre = *before;
    for (int attempt = 0; attempt < 2; attempt++) {
        lp_buf_reset(out);
        if (attempt && (lseek(fd, 0, SEEK_SET) != 0 || fstat(fd, &pre) != 0))
            return LP_SKIP_UNREADABLE;
        if ((uint64_t)pre.st_size > limit)
            return LP_SKIP_TOO_LARGE;
        lp_skip_reason r = read_bounded(fd, limit, out);
        if (r != LP_SKIP_NONE && r != LP_SKIP_TOO_LARGE)
            return r;
        struct stat post;
        if (fstat(fd, &post) != 0)
            return LP_SKIP_UNREADABLE;
        if (same_stat(&pre, &post) && (r != LP_SKIP_NONE || (off_t)out->len == post.st_size))
            return r;
        lp_log(LP_LOG_INFO, "scan.read_changed", "attempt=%d size_before=%lld size_after=%lld",
               attempt + 1, (long long)pre.st_size, (long long)post.st_size);
    }
    lp_buf_reset(out);
    return LP_SKIP_CHANGING;
}

lp_status lp_scan_read(const char *root, const char *rel, uint64_t max_bytes, lp_buf *out,
                       lp_skip_reason *skip, lp_error *err)
{
    *skip = LP_SKIP_NONE;
    lp_buf_reset(out);
    if (!rel || !lp_path_is_clean_relative(lp_str_c(rel)))
        return lp_error_set(err, LP_EPATH, "%s is not a clean relative path inside the root",
                            rel ? rel : "(null)");
    if (!root || root[0] != '/')
        return lp_error_set(err, LP_EPATH, "root %s is not an absolute path", root ? root : "");
    uint64_t limit = max_bytes ? max_bytes : LP_SCAN_MAX_FILE_BYTES;
    int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0)
        return lp_error_set(err, LP_EIO, "cannot open root %s: %s", root, strerror(errno));
    lp_status rc = LP_OK;
    int fd = open_beneath(rootfd, rel);
    bool via_link = fd < 0 && errno == ELOOP;
    if (via_link)
        fd = open_resolved(rootfd, root, rel, skip);
    if (fd < 0) {
        if (*skip == LP_SKIP_NONE) {
            if (errno == ENOENT || errno == ENOTDIR)
                rc = lp_error_set(err, LP_ENOENT, "%s/%s does not exist", root, rel);
            else
                *skip = LP_SKIP_UNREADABLE;
        }
        goto done;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *skip = LP_SKIP_UNREADABLE;
    } else if (S_ISDIR(st.st_mode) && via_link) {
        *skip = LP_SKIP_SYMLINK_DIR;
    } else if (S_ISDIR(st.st_mode)) {
        rc = lp_error_set(err, LP_EINVAL, "%s/%s is a folder, not a file", root, rel);
    } else if (!S_ISREG(st.st_mode)) {
        *skip = LP_SKIP_SPECIAL;
    } else if ((uint64_t)st.st_size > limit) {
        *skip = LP_SKIP_TOO_LARGE; /* decided from the size: nothing is read */
    } else {
        *skip = read_stable(fd, &st, limit, out);
    }
    close(fd);
done:
    close(rootfd);
    if (*skip != LP_SKIP_NONE || rc != LP_OK)
        lp_buf_reset(out);
    return rc;
}
