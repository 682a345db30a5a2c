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
#include "core/settings.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
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
static int open_resolved(int rootfd, const char *root, const char *rel, lp_skip_reason *skip,
                         int *eno)
{
    lp_buf full;
    lp_buf_init(&full, 2 * LP_PATH_MAX + 2);
    lp_buf_printf(&full, "%s/%s", root, rel);
    char *real = full.err ? NULL : realpath(full.ptr, NULL);
    int fd = -1;
    lp_str inside;
    if (!real && (lp_errno_is_resource(errno) || errno == EIO)) {
        *eno = errno;
    } else if (!real) {
        *skip = lp_errno_is_permission(errno) ? LP_SKIP_UNREADABLE : LP_SKIP_SYMLINK_OUTSIDE;
    } else if (!lp_path_under(lp_str_c(root), lp_str_c(real), &inside)) {
        *skip = LP_SKIP_SYMLINK_OUTSIDE;
    } else if (inside.len == 0) {
        *skip = LP_SKIP_SYMLINK_DIR; /* the root itself */
    } else {
        fd = open_beneath(rootfd, inside.ptr);
        if (fd < 0 && (lp_errno_is_permission(errno) || errno == ELOOP))
            *skip = LP_SKIP_UNREADABLE; /* no permission, or changed under us */
        else if (fd < 0 && lp_errno_is_vanished(errno))
            *skip = LP_SKIP_SYMLINK_OUTSIDE; /* the target went away: the link dangles */
        else if (fd < 0)
            *eno = errno;
    }
    free(real);
    lp_buf_release(&full);
    return fd;
}

/* LOUPE_TEST_READ_DELAY_US: a pause between chunks (tests of files rewritten mid-read). */
static unsigned read_delay_us(void)
{
    return (unsigned)lp_setting_u64(LP_SET_TEST_READ_DELAY_US);
}

/* Read fd into out, at most limit bytes. A failed read(2) gives LP_SKIP_UNREADABLE with
 * *eno set. */
static lp_skip_reason read_bounded(int fd, uint64_t limit, lp_buf *out, int *eno)
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
        if (n < 0) {
            *eno = errno;
            return LP_SKIP_UNREADABLE;
        }
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

/* A file modified this recently may be in the middle of a write(2) whose mtime update came
 * before our first fstat (the kernel stamps mtime when a write starts): "racy", as git
 * calls it. */
#define RACY_NS 2000000000LL

static bool racy(const struct stat *st)
{
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) != 0)
        return true;
    long long age = (long long)(now.tv_sec - st->st_mtim.tv_sec) * 1000000000LL +
                    (now.tv_nsec - st->st_mtim.tv_nsec);
    return age < RACY_NS;
}

/* Read fd again from the start and compare with out: false when the bytes differ. */
static bool same_again(int fd, const lp_buf *out, uint64_t limit)
{
    lp_buf again;
    lp_buf_init(&again, 0);
    int eno = 0;
    bool same = lseek(fd, 0, SEEK_SET) == 0 &&
                read_bounded(fd, limit, &again, &eno) == LP_SKIP_NONE && again.len == out->len &&
                memcmp(again.ptr, out->ptr, out->len) == 0;
    lp_buf_release(&again);
    return same;
}

/* Read a regular file whose stat is *before; detect a rewrite during the read (stat moved,
 * length differs from the size, or, for a file modified in the last 2 s, a second read
 * differs), read once more, and give LP_SKIP_CHANGING when that read is torn too. */
static lp_skip_reason read_stable(int fd, const struct stat *before, uint64_t limit,
                                  lp_buf *out, int *eno)
{
    struct stat pre = *before;
    for (int attempt = 0; attempt < 2; attempt++) {
        lp_buf_reset(out);
        if (attempt && (lseek(fd, 0, SEEK_SET) != 0 || fstat(fd, &pre) != 0)) {
            *eno = errno;
            return LP_SKIP_UNREADABLE;
        }
        if ((uint64_t)pre.st_size > limit)
            return LP_SKIP_TOO_LARGE;
        lp_skip_reason r = read_bounded(fd, limit, out, eno);
        if (r != LP_SKIP_NONE && r != LP_SKIP_TOO_LARGE)
            return r;
        struct stat post;
        if (fstat(fd, &post) != 0) {
            *eno = errno;
            return LP_SKIP_UNREADABLE;
        }
        if (same_stat(&pre, &post) && r != LP_SKIP_NONE)
            return r;
        if (same_stat(&pre, &post) && (off_t)out->len == post.st_size &&
            (!racy(&post) || same_again(fd, out, limit)))
            return r;
        lp_log(LP_LOG_INFO, "scan.read_changed", "attempt=%d size_before=%lld size_after=%lld",
               attempt + 1, (long long)pre.st_size, (long long)post.st_size);
    }
    lp_buf_reset(out);
    return LP_SKIP_CHANGING;
}

/* An errno met while opening or reading root/rel: a permission error is a property of the
 * file (LP_SKIP_UNREADABLE, status LP_OK); a vanished path is LP_ENOENT; anything else
 * (a limit, an I/O error) is a failure the caller must not record as a property of the
 * file. */
static lp_status read_error(const char *root, const char *rel, int e, const char *what,
                            lp_skip_reason *skip, lp_error *err)
{
    if (lp_errno_is_permission(e)) {
        *skip = LP_SKIP_UNREADABLE;
        return LP_OK;
    }
    if (lp_errno_is_vanished(e))
        return lp_error_set(err, LP_ENOENT, "%s/%s does not exist", root, rel);
    return lp_error_errno(err, e, "cannot %s %s/%s", what, root, rel);
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
        return lp_error_errno(err, errno, "cannot open root %s", root);
    lp_status rc = LP_OK;
    int eno = 0;
    int fd = open_beneath(rootfd, rel);
    bool via_link = fd < 0 && errno == ELOOP;
    if (via_link)
        fd = open_resolved(rootfd, root, rel, skip, &eno);
    else if (fd < 0)
        eno = errno;
    if (fd < 0) {
        if (*skip == LP_SKIP_NONE)
            rc = read_error(root, rel, eno ? eno : EIO, "open", skip, err);
        goto done;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        rc = read_error(root, rel, errno, "stat", skip, err);
    } else if (S_ISDIR(st.st_mode) && via_link) {
        *skip = LP_SKIP_SYMLINK_DIR;
    } else if (S_ISDIR(st.st_mode)) {
        rc = lp_error_set(err, LP_EINVAL, "%s/%s is a folder, not a file", root, rel);
    } else if (!S_ISREG(st.st_mode)) {
        *skip = LP_SKIP_SPECIAL;
    } else if ((uint64_t)st.st_size > limit) {
        *skip = LP_SKIP_TOO_LARGE; /* decided from the size: nothing is read */
    } else {
        *skip = read_stable(fd, &st, limit, out, &eno);
        if (*skip == LP_SKIP_UNREADABLE) {
            *skip = LP_SKIP_NONE;
            rc = read_error(root, rel, eno ? eno : EIO, "read", skip, err);
        }
    }
    close(fd);
done:
    close(rootfd);
    if (*skip != LP_SKIP_NONE || rc != LP_OK)
        lp_buf_reset(out);
    return rc;
}
