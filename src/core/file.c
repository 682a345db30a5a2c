/*
 * file.c: whole-file reads with a limit, read-only maps, atomic writes, mkdir -p.
 */
#include "core/core.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

const char *lp_file_type_name(unsigned mode)
{
    if (S_ISREG(mode))
        return "regular file";
    if (S_ISDIR(mode))
        return "folder";
    if (S_ISFIFO(mode))
        return "fifo";
    if (S_ISSOCK(mode))
        return "socket";
    if (S_ISCHR(mode))
        return "character device";
    if (S_ISBLK(mode))
        return "block device";
    if (S_ISLNK(mode))
        return "symlink";
    return "special file";
}

lp_status lp_read_file(const char *path, size_t max_bytes, lp_buf *out, lp_error *err)
{
    lp_buf_reset(out);
    /* O_NONBLOCK: a fifo put where a file was expected must not block the open. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return lp_error_errno(err, errno, "cannot open %s", path);
    lp_status rc = LP_OK;
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        rc = lp_error_errno(err, errno, "cannot stat %s", path);
        close(fd);
        return rc;
    }
    if (!S_ISREG(sb.st_mode)) {
        close(fd);
        return lp_error_set(err, LP_EIO, "%s is not a regular file (%s); not read", path,
                            lp_file_type_name(sb.st_mode));
    }
    if ((uint64_t)sb.st_size > max_bytes) {
        close(fd);
        return lp_error_set(err, LP_ETOOBIG, "%s is larger than %zu bytes", path, max_bytes);
    }
    char chunk[65536];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            rc = lp_error_errno(err, errno, "cannot read %s", path);
            break;
        }
        if (n == 0)
            break;
        if (out->len + (size_t)n > max_bytes) {
            rc = lp_error_set(err, LP_ETOOBIG, "%s is larger than %zu bytes", path, max_bytes);
            break;
        }
        lp_buf_append(out, chunk, (size_t)n);
        if (out->err) {
            rc = lp_error_set(err, LP_ETOOBIG, "%s does not fit in its buffer", path);
            break;
        }
    }
    close(fd);
    return rc;
}

lp_status lp_map_file(const char *path, const char *what, const char *hint, size_t max_bytes,
                      const void **p, size_t *size, lp_error *err)
{
    *p = NULL;
    *size = 0;
    char problem[160] = "";
    lp_status rc = LP_OK;
    struct stat sb;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        rc = errno == ENOENT ? LP_ENOENT : LP_EIO;
        snprintf(problem, sizeof problem, "cannot be opened (%s)", strerror(errno));
    } else if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        rc = LP_EIO;
        snprintf(problem, sizeof problem, "is not a regular file");
    } else if ((uint64_t)sb.st_size > max_bytes) {
        rc = LP_ETOOBIG;
        snprintf(problem, sizeof problem, "is %lld bytes, over the %zu-byte limit",
                 (long long)sb.st_size, max_bytes);
    } else if (sb.st_size == 0) {
        rc = LP_ECORRUPT;
        snprintf(problem, sizeof problem, "is empty");
    } else {
        void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            rc = LP_EIO;
            snprintf(problem, sizeof problem, "cannot be mapped (%s)", strerror(errno));
        } else {
            *p = m;
            *size = (size_t)sb.st_size;
        }
    }
    if (fd >= 0)
        close(fd);
    if (rc != LP_OK)
        lp_error_set(err, rc, "%s %s %s%s%s", what, path, problem, hint ? "; " : "",
                     hint ? hint : "");
    return rc;
}

static lp_status write_replace(const char *path, const void *p, size_t n, bool durable,
                               lp_error *err)
{
    lp_buf tmp;
    lp_buf_init(&tmp, LP_PATH_MAX + 64);
    lp_buf_printf(&tmp, "%s.tmp.%ld", path, (long)getpid());
    lp_status rc = LP_OK;
    int fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        rc = lp_error_errno(err, errno, "cannot create %s", tmp.ptr);
        goto done;
    }
    const char *c = p;
    size_t left = n;
    while (left) {
        ssize_t w = write(fd, c, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            rc = lp_error_errno(err, errno, "cannot write %s", tmp.ptr);
            break;
        }
        c += w;
        left -= (size_t)w;
    }
    if (!rc && durable && fsync(fd) != 0)
        rc = lp_error_errno(err, errno, "cannot sync %s", tmp.ptr);
    close(fd);
    if (!rc && rename(tmp.ptr, path) != 0)
        rc = lp_error_errno(err, errno, "cannot rename onto %s", path);
    if (rc)
        unlink(tmp.ptr);
done:
    lp_buf_release(&tmp);
    return rc;
}

lp_status lp_write_file_atomic(const char *path, const void *p, size_t n, lp_error *err)
{
    return write_replace(path, p, n, true, err);
}

lp_status lp_write_file_replace(const char *path, const void *p, size_t n, lp_error *err)
{
    return write_replace(path, p, n, false, err);
}

lp_status lp_mkdir_p(const char *path, lp_error *err)
{
    lp_buf b;
    lp_buf_init(&b, LP_PATH_MAX + 1);
    lp_buf_puts(&b, path);
    lp_status rc = LP_OK;
    if (b.err) {
        rc = lp_error_set(err, LP_EPATH, "path too long");
        goto done;
    }
    for (size_t i = 1; i <= b.len; i++) {
        if (i < b.len && b.ptr[i] != '/')
            continue;
        char saved = b.ptr[i];
        b.ptr[i] = '\0';
        if (mkdir(b.ptr, 0700) != 0 && errno != EEXIST) {
            rc = lp_error_errno(err, errno, "cannot create folder %s", b.ptr);
            b.ptr[i] = saved;
            goto done;
        }
        b.ptr[i] = saved;
    }
done:
    lp_buf_release(&b);
    return rc;
}

void lp_fd_limit_raise(uint64_t want)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
        rl.rlim_cur >= want)
        return;
    rlim_t to = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? (rlim_t)want : rl.rlim_max;
    if (to <= rl.rlim_cur)
        return;
    rl.rlim_cur = to;
    setrlimit(RLIMIT_NOFILE, &rl);
}

uint64_t lp_fd_free(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return UINT64_MAX;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return UINT64_MAX;
    uint64_t open_now = 0;
    for (struct dirent *e; (e = readdir(d));) {
        uint64_t fd;
        /* descriptors at or above the limit do not take a slot below it */
        if (lp_parse_u64(lp_str_c(e->d_name), &fd) && fd < rl.rlim_cur)
            open_now++;
    }
    closedir(d);
    open_now = open_now ? open_now - 1 : 0; /* the listing's own descriptor */
    return rl.rlim_cur > open_now ? rl.rlim_cur - open_now : 0;
}
