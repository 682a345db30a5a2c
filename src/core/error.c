/*
 * error.c: status codes, lp_error, allocation that aborts on exhaustion.
 */
#include "core/core.h"

#include <sys/resource.h>
#include <unistd.h>

#include <errno.h>

static const struct {
    lp_status s;
    const char *code;
} status_codes[] = {
    {LP_OK, "ok"},
    {LP_ERROR, "error"},
    {LP_ENOMEM, "out_of_memory"},
    {LP_EINVAL, "invalid_argument"},
    {LP_ENOENT, "not_found"},
    {LP_EIO, "io_error"},
    {LP_ETOOBIG, "too_big"},
    {LP_EBUSY, "busy"},
    {LP_EPATH, "path_refused"},
    {LP_ECORRUPT, "damaged"},
    {LP_ECANCELED, "cancelled"},
    {LP_ENOTINDEXED, "not_indexed"},
    {LP_EREINDEX, "requires_reindex"},
    {LP_EAMBIGUOUS, "ambiguous"},
    {LP_EUNSUPPORTED, "unsupported"},
    {LP_EBROADROOT, "broad_root_refused"},
    {LP_EEXPIRED, "handle_expired"},
    {LP_ESQL, "storage_error"},
    {LP_EEXIST, "already_exists"},
    {LP_EUSAGE, "usage"},
    {LP_ELIMIT, "resource_limit"},
    {LP_ENOSPC, "disk_full"},
};

const char *lp_status_code(lp_status s)
{
    for (size_t i = 0; i < LP_ARRAY_LEN(status_codes); i++)
        if (status_codes[i].s == s)
            return status_codes[i].code;
    return "error";
}

lp_status lp_error_setv(lp_error *err, lp_status code, const char *fmt, va_list ap)
{
    if (err) {
        err->code = code;
        err->reason[0] = '\0';
        /* Format in full, then cut where a character ends (a path or a line of source in
         * the message may be any script). */
        char full[4 * LP_ERROR_MSG_MAX];
        int n = vsnprintf(full, sizeof full, fmt, ap);
        size_t len = n < 0 ? 0 : LP_MIN((size_t)n, sizeof full - 1);
        len = lp_utf8_cut(full, len, sizeof err->msg - 1);
        memcpy(err->msg, full, len);
        err->msg[len] = '\0';
    }
    return code;
}

lp_status lp_error_set(lp_error *err, lp_status code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    lp_error_setv(err, code, fmt, ap);
    va_end(ap);
    return code;
}

void lp_error_prefix(lp_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    char head[4 * LP_ERROR_MSG_MAX]; /* larger than a message: the cut below decides */
    char old[LP_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    /* Truncation to the message size is intended: build in room for both, then cut. */
    char both[5 * LP_ERROR_MSG_MAX + 2];
    snprintf(both, sizeof both, "%s: %s", head, old);
    size_t n = lp_utf8_cut(both, strlen(both), sizeof err->msg - 1);
    memcpy(err->msg, both, n);
    err->msg[n] = '\0';
}

bool lp_errno_is_resource(int e)
{
    return e == EMFILE || e == ENFILE || e == ENOMEM || e == ENOBUFS || e == EFBIG;
}

bool lp_errno_is_permission(int e) { return e == EACCES || e == EPERM; }

bool lp_errno_is_vanished(int e) { return e == ENOENT || e == ENOTDIR; }

lp_status lp_status_of_errno(int e)
{
    if (lp_errno_is_vanished(e))
        return LP_ENOENT;
    if (lp_errno_is_resource(e))
        return LP_ELIMIT;
    if (e == ENOSPC || e == EDQUOT)
        return LP_ENOSPC;
    return LP_EIO;
}

static void limit_text(int res, char *out, size_t n)
{
    struct rlimit rl;
    if (getrlimit(res, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        snprintf(out, n, "unlimited");
    else
        snprintf(out, n, "%llu", (unsigned long long)rl.rlim_cur);
}

void lp_errno_advice(int e, char *out, size_t n)
{
    char v[32];
    switch (e) {
    case EMFILE:
        limit_text(RLIMIT_NOFILE, v, sizeof v);
        snprintf(out, n, "the open-file limit (ulimit -n) is %s; raise it, e.g. 'ulimit -n 4096', "
                 "and retry", v);
        break;
    case ENFILE:
        snprintf(out, n, "the system-wide open-file table is full (fs.file-max); close other "
                         "programs or raise it, and retry");
        break;
    case ENOMEM:
    case ENOBUFS:
        snprintf(out, n, "the kernel is out of memory; free memory and retry");
        break;
    case EFBIG: {
        struct rlimit rl;
        if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
            snprintf(v, sizeof v, "%llu KiB", (unsigned long long)rl.rlim_cur / 1024);
        else
            snprintf(v, sizeof v, "unlimited");
        snprintf(out, n, "the file-size limit (ulimit -f) is %s; raise it and retry", v);
        break;
    }
    case ENOSPC:
    case EDQUOT:
        snprintf(out, n, "the disk is full; free space and retry");
        break;
    default:
        if (n)
            out[0] = '\0';
    }
}

lp_status lp_error_errno(lp_error *err, int e, const char *fmt, ...)
{
    lp_status code = lp_status_of_errno(e);
    if (!err)
        return code;
    char head[LP_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    char advice[160];
    lp_errno_advice(e, advice, sizeof advice);
    /* The advice matters more than the end of a long path: cut the head, not the advice. */
    size_t tail = strlen(strerror(e)) + 2 + (advice[0] ? strlen(advice) + 2 : 0);
    size_t room = tail + 1 < sizeof err->msg ? sizeof err->msg - 1 - tail : 0;
    if (strlen(head) > room) {
        while (room && ((unsigned char)head[room] & 0xC0) == 0x80)
            room--; /* on a character boundary */
        head[room] = '\0';
    }
    return lp_error_set(err, code, "%s: %s%s%s", head, strerror(e), advice[0] ? "; " : "",
                        advice);
}

void lp_error_clear(lp_error *err)
{
    if (err) {
        err->code = LP_OK;
        err->msg[0] = '\0';
        err->reason[0] = '\0';
    }
}

void lp_error_set_reason(lp_error *err, const char *reason)
{
    if (err)
        snprintf(err->reason, sizeof err->reason, "%s", reason ? reason : "");
}

const char *lp_error_reason(const lp_error *err)
{
    return err->reason[0] ? err->reason : lp_status_code(err->code);
}

void lp_error_finish(lp_error *err)
{
    if (err && err->code && !err->reason[0])
        lp_error_set_reason(err, lp_status_code(err->code));
}

static void oom(size_t n)
{
    /* No stdio buffers are flushed and no atexit handler runs: nothing half-done is
     * committed. An open write transaction is rolled back by SQLite on the next open. */
    fprintf(stderr,
            "loupe: out of memory allocating %zu bytes; stopped without committing anything "
            "(the previous publication stays current). Raise the memory limit (ulimit -v) or "
            "index fewer bytes (--max-total-bytes)\n",
            n);
    _exit(LP_EXIT_OOM);
}

void *lp_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *lp_xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        oom(count * size);
    return p;
}

void *lp_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

char *lp_xstrndup(const char *s, size_t n)
{
    char *p = lp_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *lp_xstrdup(const char *s) { return lp_xstrndup(s, strlen(s)); }

size_t lp_mul_size(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size) {
        fprintf(stderr, "loupe: size overflow (%zu x %zu)\n", count, size);
        abort();
    }
    return count * size;
}

void lp_vec_grow_(void **items, size_t *cap, size_t elem_size, size_t need)
{
    if (need <= *cap)
        return;
    size_t ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            oom(need);
        ncap *= 2;
    }
    *items = lp_xrealloc(*items, lp_mul_size(ncap, elem_size));
    *cap = ncap;
}
