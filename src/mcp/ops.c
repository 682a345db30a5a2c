/*
 * ops.c: index operations of the MCP server (manage_index create/sync/reindex) running on
 * background threads, so a tool call returns at once with an operation id.
 *
 * Invariants: at most one operation per root runs in this server (checked under the lock
 * before its thread starts); a build in another process is detected through the root's
 * lease and reported as busy; an operation's record keeps its final result (publication,
 * counts, or the error) for status until it is pushed out of a bounded history; nothing is
 * persisted, so after a restart only durable state (publications, live leases) is
 * reported. Cancelling sets the build's cancel flag: lp_index_run rolls back and the
 * previous publication stays current.
 */
#include "mcp/tools_int.h"

#include "lang/lang.h"

#include <errno.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#define OPS_HISTORY 64

static const char *const op_state_names[] = {"running", "succeeded", "failed", "cancelled"};

const char *lp_op_state_name(lp_op_state s)
{
    return (unsigned)s < LP_ARRAY_LEN(op_state_names) ? op_state_names[s] : "failed";
}

typedef struct op {
    lp_ops *ops;
    pthread_t thread;
    bool has_thread;
    volatile int cancel; /* read by lp_index_run between files */
    uint64_t started_ns;
    lp_op_info info; /* guarded by ops->mu */
} op;

struct lp_ops {
    pthread_mutex_t mu;
    pthread_cond_t changed; /* an operation ended or made progress */
    LP_VEC(op *) ops;       /* oldest first */
    lp_ops_done_fn on_done;
    void *done_ctx;
    atomic_uint seq;
};

lp_ops *lp_ops_new(lp_ops_done_fn on_done, void *ctx)
{
    lp_ops *o = lp_xcalloc(1, sizeof *o);
    pthread_mutex_init(&o->mu, NULL);
    pthread_cond_init(&o->changed, NULL);
    o->on_done = on_done;
    o->done_ctx = ctx;
    return o;
}

/* Under mu: refresh the derived fields and copy. */
static void snapshot(op *p, lp_op_info *out)
{
    if (p->info.state == LP_OP_RUNNING)
        p->info.elapsed_ms = (lp_now_ns() - p->started_ns) / 1000000;
    *out = p->info;
}

static void on_progress(void *ctx, const lp_index_progress *pr)
{
    op *p = ctx;
    pthread_mutex_lock(&p->ops->mu);
    snprintf(p->info.phase, sizeof p->info.phase, "%s", pr->phase ? pr->phase : "");
    p->info.files_done = pr->files_done;
    p->info.files_total = pr->files_total;
    p->info.bytes_done = pr->bytes_done;
    pthread_mutex_unlock(&p->ops->mu);
}

static void *op_main(void *arg)
{
    op *p = arg;
    lp_index_opts opts = {
        .op = p->info.kind, .progress = on_progress, .progress_ctx = p, .cancel = &p->cancel};
    lp_index_report rep;
    lp_error err = {0};
    lp_status rc = lp_index_run(p->info.root, &opts, &rep, &err);
    /* lp_index_run parses on this thread too (collecting evidence re-parses stored content):
     * its parser cache goes with the thread. */
    lp_lang_thread_release();
    lp_op_info done;
    pthread_mutex_lock(&p->ops->mu);
    done = p->info;
    pthread_mutex_unlock(&p->ops->mu);
    done.state = rc == LP_OK ? LP_OP_SUCCEEDED
                 : rc == LP_ECANCELED && __atomic_load_n(&p->cancel, __ATOMIC_RELAXED)
                     ? LP_OP_CANCELLED
                     : LP_OP_FAILED;
    done.status = rc;
    done.report = rep;
    snprintf(done.error, sizeof done.error, "%s", rc ? err.msg : "");
    snprintf(done.phase, sizeof done.phase, "%s", lp_op_state_name(done.state));
    done.ended_ms = lp_wall_ms();
    done.elapsed_ms = (lp_now_ns() - p->started_ns) / 1000000;
    lp_log(rc ? LP_LOG_WARN : LP_LOG_INFO, "mcp.op.done", "op=%s root=%s kind=%s state=%s ms=%llu",
           done.id, done.root, lp_index_op_name(done.kind), lp_op_state_name(done.state),
           (unsigned long long)done.elapsed_ms);
    /* Shared state (the freshness cache) first, so whoever sees the end sees it updated. */
    if (p->ops->on_done)
        p->ops->on_done(p->ops->done_ctx, &done);
    /* The last section under the lock: after it the thread touches nothing shared, so a
     * holder of the lock may join it. */
    pthread_mutex_lock(&p->ops->mu);
    p->info = done;
    pthread_cond_broadcast(&p->ops->changed);
    pthread_mutex_unlock(&p->ops->mu);
    return NULL;
}

static void join_op(op *p)
{
    if (p->has_thread) {
        pthread_join(p->thread, NULL);
        p->has_thread = false;
    }
}

void lp_ops_free(lp_ops *ops)
{
    if (!ops)
        return;
    pthread_mutex_lock(&ops->mu);
    for (size_t i = 0; i < ops->ops.len; i++) {
        op *p = ops->ops.items[i];
        if (p->info.state == LP_OP_RUNNING) {
            __atomic_store_n(&p->cancel, 1, __ATOMIC_RELAXED);
            p->info.cancel_requested = true;
            lp_log(LP_LOG_INFO, "mcp.op.cancel_on_exit", "op=%s root=%s", p->info.id, p->info.root);
        }
    }
    pthread_mutex_unlock(&ops->mu);
    for (size_t i = 0; i < ops->ops.len; i++) {
        join_op(ops->ops.items[i]);
        free(ops->ops.items[i]);
    }
    lp_vec_free(&ops->ops);
    pthread_cond_destroy(&ops->changed);
    pthread_mutex_destroy(&ops->mu);
    free(ops);
}

/* Under mu. */
static op *find_id(lp_ops *ops, const char *id)
{
    for (size_t i = 0; i < ops->ops.len; i++)
        if (!strcmp(ops->ops.items[i]->info.id, id))
            return ops->ops.items[i];
    return NULL;
}

/* Under mu: the newest operation on root, running ones first. */
static op *find_root(lp_ops *ops, const char *root, bool running_only)
{
    op *best = NULL;
    for (size_t i = ops->ops.len; i-- > 0;) {
        op *p = ops->ops.items[i];
        if (strcmp(p->info.root, root) != 0)
            continue;
        if (p->info.state == LP_OP_RUNNING)
            return p;
        if (!best && !running_only)
            best = p;
    }
    return best;
}

/* Under mu: drop the oldest finished records past the history bound. */
static void trim_history(lp_ops *ops)
{
    size_t i = 0;
    while (ops->ops.len >= OPS_HISTORY && i < ops->ops.len) {
        op *p = ops->ops.items[i];
        if (p->info.state == LP_OP_RUNNING) {
            i++;
            continue;
        }
        join_op(p); /* it ended: joining is immediate */
        free(p);
        memmove(&ops->ops.items[i], &ops->ops.items[i + 1],
                (ops->ops.len - i - 1) * sizeof ops->ops.items[0]);
        ops->ops.len--;
    }
}

static void describe_running(const lp_op_info *o, lp_buf *b)
{
    lp_buf_printf(b, "operation %s (%s) is already running on %s (phase %s", o->id,
                  lp_index_op_name(o->kind), o->root, o->phase);
    if (o->files_total)
        lp_buf_printf(b, ", %llu of %llu files", (unsigned long long)o->files_done,
                      (unsigned long long)o->files_total);
    lp_buf_printf(b, ", %llu ms so far)", (unsigned long long)o->elapsed_ms);
}

lp_status lp_ops_start(lp_ops *ops, const char *root, lp_index_op kind, lp_op_info *out,
                       lp_error *err)
{
    memset(out, 0, sizeof *out);
    if (strlen(root) > LP_PATH_MAX)
        return lp_error_set(err, LP_EPATH, "the root path is longer than %d bytes", LP_PATH_MAX);
    /* A build in another process holds the lease (checked before our own lock: it reads a
     * file, and a race with that process ends as a busy result of the operation). */
    lp_lease_info lease;
    lp_status rc = lp_lease_inspect(root, &lease, err);
    if (rc)
        return rc;
    pthread_mutex_lock(&ops->mu);
    op *running = find_root(ops, root, true);
    if (running) {
        lp_op_info o;
        snapshot(running, &o);
        pthread_mutex_unlock(&ops->mu);
        lp_buf b;
        lp_buf_init(&b, 0);
        describe_running(&o, &b);
        rc = lp_error_set(err, LP_EBUSY,
                          "%s; follow it with manage_index {action: \"status\", operationId: "
                          "\"%s\"} or stop it with {action: \"cancel\", operationId: \"%s\"}",
                          b.ptr, o.id, o.id);
        lp_buf_release(&b);
        *out = o;
        return rc;
    }
    if (lease.held) {
        pthread_mutex_unlock(&ops->mu);
        char when[32] = "an unknown time";
        if (lease.started_ms)
            lp_format_iso8601(lease.started_ms, when);
        return lp_error_set(err, LP_EBUSY,
                            "another loupe process (pid %ld) is running '%s' on %s since %s "
                            "(phase %s, %llu of %llu files); wait for it: manage_index "
                            "{action: \"status\", path: \"%s\"} reports its progress",
                            lease.pid, lease.op[0] ? lease.op : "an index build", root, when,
                            lease.phase[0] ? lease.phase : "unknown",
                            (unsigned long long)lease.files_done,
                            (unsigned long long)lease.files_total, root);
    }
    size_t nrunning = 0;
    for (size_t i = 0; i < ops->ops.len; i++)
        nrunning += ops->ops.items[i]->info.state == LP_OP_RUNNING;
    if (nrunning >= LP_OPS_MAX_RUNNING) {
        pthread_mutex_unlock(&ops->mu);
        return lp_error_set(err, LP_EBUSY,
                            "%zu index operations are already running in this server (the "
                            "limit); wait for one to finish (manage_index status) and retry",
                            nrunning);
    }
    trim_history(ops);
    op *p = lp_xcalloc(1, sizeof *p);
    p->ops = ops;
    unsigned seq = atomic_fetch_add(&ops->seq, 1u);
    uint64_t seed[3] = {(uint64_t)getpid(), lp_now_ns(),
                        ((uint64_t)seq << 32) ^ (uint64_t)lp_wall_ms()};
    snprintf(p->info.id, sizeof p->info.id, "op-%012llx",
             (unsigned long long)(lp_hash64_of(seed, sizeof seed) & 0xffffffffffffull));
    snprintf(p->info.root, sizeof p->info.root, "%s", root);
    p->info.kind = kind;
    p->info.state = LP_OP_RUNNING;
    snprintf(p->info.phase, sizeof p->info.phase, "starting");
    p->info.started_ms = lp_wall_ms();
    p->started_ns = lp_now_ns();
    lp_vec_push(&ops->ops, p);
    if (pthread_create(&p->thread, NULL, op_main, p) != 0) {
        ops->ops.len--;
        pthread_mutex_unlock(&ops->mu);
        free(p);
        return lp_error_set(err, LP_ERROR, "cannot start a thread for the index build (%s)",
                            strerror(errno));
    }
    p->has_thread = true;
    snapshot(p, out);
    pthread_mutex_unlock(&ops->mu);
    lp_log(LP_LOG_INFO, "mcp.op.start", "op=%s root=%s kind=%s", out->id, root,
           lp_index_op_name(kind));
    return LP_OK;
}

bool lp_ops_get(lp_ops *ops, const char *id, lp_op_info *out)
{
    pthread_mutex_lock(&ops->mu);
    op *p = find_id(ops, id);
    if (p)
        snapshot(p, out);
    pthread_mutex_unlock(&ops->mu);
    return p != NULL;
}

bool lp_ops_latest(lp_ops *ops, const char *root, lp_op_info *out)
{
    pthread_mutex_lock(&ops->mu);
    op *p = find_root(ops, root, false);
    if (p)
        snapshot(p, out);
    pthread_mutex_unlock(&ops->mu);
    return p != NULL;
}

bool lp_ops_running(lp_ops *ops, const char *root, lp_op_info *out)
{
    pthread_mutex_lock(&ops->mu);
    op *p = find_root(ops, root, true);
    if (p)
        snapshot(p, out);
    pthread_mutex_unlock(&ops->mu);
    return p != NULL;
}

static void deadline_after(struct timespec *ts, unsigned ms)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += ms / 1000;
    ts->tv_nsec += (long)(ms % 1000) * 1000000L;
    if (ts->tv_nsec >= 1000000000L) {
        ts->tv_sec++;
        ts->tv_nsec -= 1000000000L;
    }
}

bool lp_ops_wait(lp_ops *ops, const char *id, unsigned wait_ms, bool (*stop)(void *),
                 void *stop_ctx, void (*tick)(void *, const lp_op_info *), void *tick_ctx,
                 lp_op_info *out)
{
    uint64_t t0 = lp_now_ns();
    for (;;) {
        pthread_mutex_lock(&ops->mu);
        op *p = find_id(ops, id);
        if (!p) {
            pthread_mutex_unlock(&ops->mu);
            return false;
        }
        uint64_t waited = (lp_now_ns() - t0) / 1000000;
        if (p->info.state == LP_OP_RUNNING && waited < wait_ms) {
            struct timespec ts;
            deadline_after(&ts, (unsigned)LP_MIN((uint64_t)200, wait_ms - waited));
            pthread_cond_timedwait(&ops->changed, &ops->mu, &ts);
        }
        snapshot(p, out);
        pthread_mutex_unlock(&ops->mu);
        if (out->state != LP_OP_RUNNING)
            return true;
        if ((lp_now_ns() - t0) / 1000000 >= wait_ms || (stop && stop(stop_ctx)))
            return false;
        if (tick)
            tick(tick_ctx, out);
    }
}

lp_status lp_ops_cancel(lp_ops *ops, const char *id, unsigned wait_ms, lp_op_info *out,
                        lp_error *err)
{
    pthread_mutex_lock(&ops->mu);
    op *p = find_id(ops, id);
    if (p && p->info.state == LP_OP_RUNNING) {
        __atomic_store_n(&p->cancel, 1, __ATOMIC_RELAXED);
        p->info.cancel_requested = true;
    }
    if (p)
        snapshot(p, out);
    pthread_mutex_unlock(&ops->mu);
    if (!p)
        return lp_error_set(err, LP_ENOENT,
                            "no operation %s is known to this server (operations are kept only "
                            "while the server runs); see the root's state with manage_index "
                            "{action: \"status\", path: ...}",
                            id);
    if (out->state == LP_OP_RUNNING)
        lp_ops_wait(ops, id, wait_ms, NULL, NULL, NULL, NULL, out);
    return LP_OK;
}
