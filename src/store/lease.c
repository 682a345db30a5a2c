/*
 * lease.c: one writer per root, across processes and within one process.
 *
 * The writer holds flock(LOCK_EX) on roots/<id>/lock for the whole build; the kernel drops
 * it when the process dies, so a killed indexer never leaves a stale lock. lease.json says
 * who holds it and how far it got; readers only read it, and trust it only while the lock
 * is held (an old lease.json without a live lock is a leftover and is ignored).
 */
#include "store/store_int.h"

#include <errno.h>
#include <fcntl.h>
#include "core/json.h"
#include <sys/file.h>
#include <unistd.h>

struct lp_lease {
    int fd;
    char *json_path;
    char op[16];
    int64_t started_ms;
    int64_t last_write_ms;
    bool after_crash; /* the previous holder died holding it (its lease.json was left) */
};

static lp_status lease_paths(const char *root, lp_buf *lock, lp_buf *json, lp_error *err)
{
    lp_buf dir;
    lp_buf_init(&dir, 0);
    lp_status rc = lp_store_root_dir(root, &dir, err);
    if (!rc)
        rc = lp_mkdir_p(dir.ptr, err);
    if (!rc) {
        lp_buf_printf(lock, "%s/lock", dir.ptr);
        lp_buf_printf(json, "%s/lease.json", dir.ptr);
    }
    lp_buf_release(&dir);
    return rc;
}

static void read_lease_json(const char *path, lp_lease_info *info)
{
    json_error_t jerr;
    json_t *j = json_load_file(path, 0, &jerr);
    if (!j)
        return;
    info->pid = (long)json_integer_value(json_object_get(j, "pid"));
    const char *op = json_string_value(json_object_get(j, "op"));
    snprintf(info->op, sizeof info->op, "%s", op ? op : "");
    const char *phase = json_string_value(json_object_get(j, "phase"));
    snprintf(info->phase, sizeof info->phase, "%s", phase ? phase : "");
    info->started_ms = json_integer_value(json_object_get(j, "startedMs"));
    info->updated_ms = json_integer_value(json_object_get(j, "updatedMs"));
    info->files_done = (uint64_t)json_integer_value(json_object_get(j, "filesDone"));
    info->files_total = (uint64_t)json_integer_value(json_object_get(j, "filesTotal"));
    info->bytes_done = (uint64_t)json_integer_value(json_object_get(j, "bytesDone"));
    json_decref(j);
}

static void write_lease_json(lp_lease *l, const char *phase, uint64_t done, uint64_t total,
                             uint64_t bytes)
{
    char text[512];
    int64_t now = lp_wall_ms();
    int n = snprintf(text, sizeof text,
                     "{\"pid\":%ld,\"op\":\"%s\",\"phase\":\"%s\",\"startedMs\":%lld,"
                     "\"updatedMs\":%lld,\"filesDone\":%llu,\"filesTotal\":%llu,"
                     "\"bytesDone\":%llu}\n",
                     (long)getpid(), l->op, phase, (long long)l->started_ms, (long long)now,
                     (unsigned long long)done, (unsigned long long)total,
                     (unsigned long long)bytes);
    if (n > 0 && (size_t)n < sizeof text)
        /* a progress note: the flock on `lock` is what excludes writers, so a crash that
         * loses this update loses nothing (no fsync: it cost a sync 6 fsyncs) */
        lp_write_file_replace(l->json_path, text, (size_t)n, NULL);
    l->last_write_ms = now;
}

lp_status lp_lease_acquire(const char *root, const char *op, lp_lease **out, lp_error *err)
{
    *out = NULL;
    lp_buf lock, json;
    lp_buf_init(&lock, 0);
    lp_buf_init(&json, 0);
    lp_status rc = lease_paths(root, &lock, &json, err);
    if (rc)
        goto done;
    int fd = open(lock.ptr, O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0600);
    if (fd < 0) {
        rc = lp_error_set(err, LP_EIO, "cannot open %s: %s", lock.ptr, strerror(errno));
        goto done;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(fd);
        if (e != EWOULDBLOCK) {
            rc = lp_error_set(err, LP_EIO, "cannot lock %s: %s", lock.ptr, strerror(e));
            goto done;
        }
        lp_lease_info info = {0};
        read_lease_json(json.ptr, &info);
        char when[32] = "an unknown time";
        if (info.started_ms)
            lp_format_iso8601(info.started_ms, when);
        rc = lp_error_set(err, LP_EBUSY,
                          "another loupe process (pid %ld) is running '%s' on %s since %s; wait "
                          "for it to finish, or stop that process",
                          info.pid, info.op[0] ? info.op : "an index build", root, when);
        goto done;
    }
    lp_lease *l = lp_xcalloc(1, sizeof *l);
    l->fd = fd;
    /* lease.json is removed on every release: one that is still here was left by a holder
     * that died (SIGKILL, a crash, power loss) in the middle of a build. */
    l->after_crash = access(json.ptr, F_OK) == 0;
    l->json_path = lp_buf_detach(&json, NULL);
    snprintf(l->op, sizeof l->op, "%s", op);
    l->started_ms = lp_wall_ms();
    write_lease_json(l, "starting", 0, 0, 0);
    *out = l;
done:
    lp_buf_release(&lock);
    lp_buf_release(&json);
    return rc;
}

bool lp_lease_after_crash(const lp_lease *l)
{
    return l && l->after_crash;
}

void lp_lease_progress(lp_lease *l, const char *phase, uint64_t files_done, uint64_t files_total,
                       uint64_t bytes_done)
{
    if (!l)
        return;
    write_lease_json(l, phase, files_done, files_total, bytes_done);
}

void lp_lease_release(lp_lease *l)
{
    if (!l)
        return;
    unlink(l->json_path);
    flock(l->fd, LOCK_UN);
    close(l->fd);
    free(l->json_path);
    free(l);
}

lp_status lp_lease_inspect(const char *root, lp_lease_info *out, lp_error *err)
{
    memset(out, 0, sizeof *out);
    lp_buf dir, lock, json;
    lp_buf_init(&dir, 0);
    lp_buf_init(&lock, 0);
    lp_buf_init(&json, 0);
    lp_status rc = lp_store_root_dir(root, &dir, err);
    if (rc)
        goto done;
    lp_buf_printf(&lock, "%s/lock", dir.ptr);
    lp_buf_printf(&json, "%s/lease.json", dir.ptr);
    int fd = open(lock.ptr, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* never wait on a fifo */
    if (fd < 0)
        goto done; /* never locked: no writer */
    if (flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
        out->held = true;
        read_lease_json(json.ptr, out);
        /* The holder writes lease.json just after taking the lock: give it a moment rather
         * than report a writer without a pid (or a previous writer's leftover record). */
        for (int i = 0; i < 40 && (out->pid == 0 || out->started_ms == 0); i++) {
            usleep(5000);
            read_lease_json(json.ptr, out);
        }
    } else {
        flock(fd, LOCK_UN);
    }
    close(fd);
done:
    lp_buf_release(&dir);
    lp_buf_release(&lock);
    lp_buf_release(&json);
    return rc;
}
