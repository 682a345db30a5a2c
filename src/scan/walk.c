/*
 * walk.c: the stat-first walk of a root (lp_scan_walk) and the broad-root check.
 *
 * One folder at a time: open it with openat(parent, name, O_NOFOLLOW|O_DIRECTORY) (so no
 * symlink is ever traversed, whatever changes under us), list it with getdents64 into a
 * reused buffer, sort the children, push the folder's ignore rules (it is known from the
 * listing whether .gitignore / .loupeignore exist, so nothing is probed), then handle each
 * child: fstatat for files, recursion for folders.
 *
 * Descriptors: at most WALK_OPEN_LEVELS folders are held open at once (plus the root), so
 * a deep tree never runs the process out of descriptors. Going deeper closes the oldest
 * open ancestor (its identity, dev and inode, is kept); coming back up reopens it with
 * openat(child, "..") and checks the identity (a folder moved meanwhile fails the walk).
 *
 * Errors: a permission error (EACCES, EPERM) is a property of the path and is recorded
 * as LP_SKIP_UNREADABLE; a path gone since the listing (ENOENT, ENOTDIR) is simply not
 * there. Anything else (EMFILE, ENFILE, ENOMEM, EIO, ...) says nothing about the path:
 * recording it as a skip would make a sync drop files it merely could not look at, so the
 * walk stops and fails with a message naming the error (and, for a limit, which one).
 *
 * Order: children are sorted bytewise with a folder's name taken as "name/", which makes
 * the depth-first output sorted bytewise by full path without a global sort.
 *
 * Memory: child names and arrays live in a scratch arena rewound after each folder; the
 * result paths are bump-allocated in the caller's arena; the only mallocs are the growing
 * result vectors (copied into the arena at the end) and the getdents buffer.
 */
#include "scan/scan_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define DENTS_BUF (64 * 1024)
#define WALK_OPEN_LEVELS 16 /* at most; fewer under a low open-file limit */
/* LP_PATH_MAX bytes hold at most this many components ("a/a/a/..."). */
#define WALK_MAX_DEPTH (LP_PATH_MAX / 2 + 2)

typedef struct level {
    int fd; /* -1 while closed to save descriptors */
    dev_t dev;
    ino_t ino;
} level;

typedef struct child {
    const char *name;
    size_t len;
    unsigned char type; /* DT_* (DT_UNKNOWN resolved with fstatat) */
} child;

typedef struct walker {
    const char *root;
    size_t rootlen;
    uint64_t max_bytes;
    lp_arena *out;
    lp_arena tmp;
    lp_ignore *ig;
    LP_VEC(lp_scan_entry) entries;
    LP_VEC(lp_scan_skip) skips;
    lp_scan_result *res;
    char path[LP_PATH_MAX + 1]; /* relative path of the current child */
    size_t plen;
    char *dents;
    bool have_state;
    dev_t state_dev;
    ino_t state_ino;
    char *state_real; /* realpath of the state folder, or NULL */
    level *levels;    /* levels[d]: the folder at depth d (0 = root) */
    unsigned depth;   /* depth of the folder being listed */
    unsigned window;  /* folders below the root held open at once (1..WALK_OPEN_LEVELS) */
    lp_status failed; /* sticky: the walk stopped (err holds why) */
    lp_error *err;
} walker;

const char *lp_skip_reason_name(lp_skip_reason r)
{
    static const char *const names[LP_SKIP_COUNT] = {
        "none",    "binary",  "too_large",   "limit_reached", "unreadable", "symlink_outside_root",
        "special", "ignored", "symlink_dir", "changed_while_reading", "symlink_loop",
        "symlink_dangling", "parse_budget",
    };
    return (unsigned)r < LP_SKIP_COUNT ? names[r] : "unknown";
}

const char *lp_skip_reason_text(lp_skip_reason r)
{
    static const char *const texts[LP_SKIP_COUNT] = {
        "a searchable file",
        "binary (a NUL byte in its first 8 KiB)",
        "larger than the per-file limit",
        "past the publication's byte limit",
        "unreadable (permission denied)",
        "a symlink that leads out of the root or dangles",
        "not a regular file (a fifo, socket or device)",
        "ignored",
        "a symlink to a folder",
        "rewritten while it was read",
    };
    return (unsigned)r < LP_SKIP_COUNT ? texts[r] : "not searchable";
}

static void add_skip(walker *w, lp_skip_reason r)
{
    w->res->skip_counts[r]++;
    if (r == LP_SKIP_IGNORED)
        return;
    lp_scan_skip s = {lp_arena_strndup(w->out, w->path, w->plen), r};
    lp_vec_push(&w->skips, s);
}

/* Stop the walk: errno e is not a property of the path (see the top of this file). */
static void fail_errno(walker *w, int e, const char *what)
{
    if (w->failed)
        return;
    lp_log(LP_LOG_WARN, "scan.failed", "path=\"%s\" op=%s error=\"%s\"", w->path, what,
           strerror(e));
    w->failed = lp_error_errno(w->err, e, "%s %s/%s", what, w->root, w->path);
}

/* An errno from looking at the current path: record it as a skip when it is a property of
 * the path, ignore a vanished path, and fail the walk otherwise. */
static void path_error(walker *w, int e, const char *what)
{
    if (lp_errno_is_permission(e))
        add_skip(w, LP_SKIP_UNREADABLE);
    else if (!lp_errno_is_vanished(e))
        fail_errno(w, e, what);
}

static int64_t mtime_ns(const struct stat *st)
{
    return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

static void add_entry(walker *w, const struct stat *st, const char *target, size_t tlen)
{
    if ((uint64_t)st->st_size > w->max_bytes) {
        add_skip(w, LP_SKIP_TOO_LARGE);
        return;
    }
    lp_scan_entry *e = lp_vec_push_zero(&w->entries);
    e->path = lp_arena_strndup(w->out, w->path, w->plen);
    e->target = target ? lp_arena_strndup(w->out, target, tlen) : NULL;
    e->size = (uint64_t)st->st_size;
    e->mtime_ns = mtime_ns(st);
    e->ino = (uint64_t)st->st_ino;
    e->mode = (uint32_t)st->st_mode;
    w->res->bytes += e->size;
}

/* ------------------------------------------------------------------------------------------
 * Listing a folder. */

static unsigned char type_of_mode(mode_t m)
{
    if (S_ISREG(m))
        return DT_REG;
    if (S_ISDIR(m))
        return DT_DIR;
    if (S_ISLNK(m))
        return DT_LNK;
    return DT_UNKNOWN; /* special: fifo, socket, device */
}

static int cmp_child(const void *pa, const void *pb)
{
    const child *a = pa, *b = pb;
    size_t n = LP_MIN(a->len, b->len);
    int c = memcmp(a->name, b->name, n);
    if (c)
        return c;
    /* One name is a prefix of the other: the next byte is '/' for a folder, else the end. */
    int ca = a->len > n ? (unsigned char)a->name[n] : a->type == DT_DIR ? '/' : -1;
    int cb = b->len > n ? (unsigned char)b->name[n] : b->type == DT_DIR ? '/' : -1;
    return ca - cb;
}

/* Read every entry of fd into the scratch arena. Returns 0, or the errno of a failed
 * listing (what was read is still returned). */
static int list_folder(walker *w, int fd, child **out, size_t *n, unsigned *have)
{
    LP_VEC(child) kids = {0};
    int failed = 0;
    for (;;) {
        ssize_t got = getdents64(fd, w->dents, DENTS_BUF);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            failed = got < 0 ? errno : 0;
            break;
        }
        for (ssize_t off = 0; off < got;) {
            struct dirent64 *d = (struct dirent64 *)(w->dents + off);
            off += d->d_reclen;
            const char *nm = d->d_name;
            if (nm[0] == '.' && (nm[1] == '\0' || (nm[1] == '.' && nm[2] == '\0')))
                continue;
            child c = {NULL, strlen(nm), d->d_type};
            c.name = lp_arena_strndup(&w->tmp, nm, c.len);
            if (c.type == DT_UNKNOWN) {
                struct stat st;
                c.type = fstatat(fd, nm, &st, AT_SYMLINK_NOFOLLOW) == 0
                             ? type_of_mode(st.st_mode)
                             : DT_REG; /* vanished or unreadable: fstatat again reports it */
            }
            if (!strcmp(nm, ".gitignore"))
                *have |= LP_IGN_HAVE_GITIGNORE;
            else if (!strcmp(nm, ".loupeignore"))
                *have |= LP_IGN_HAVE_LOUPEIGNORE;
            lp_vec_push(&kids, c);
        }
    }
    *n = kids.len;
    *out = lp_arena_alloc(&w->tmp, sizeof(child) * (kids.len ? kids.len : 1));
    if (kids.len)
        memcpy(*out, kids.items, sizeof(child) * kids.len);
    lp_vec_free(&kids);
    qsort(*out, *n, sizeof(child), cmp_child);
    return failed;
}

/* ------------------------------------------------------------------------------------------
 * Children. */

static void walk_folder(walker *w, int fd);

/* The descriptor of the folder at depth d, reopened through its child when it was closed
 * to save descriptors (child is levels[d + 1], still open). -1 with the walk failed. */
static int level_fd(walker *w, unsigned d)
{
    level *l = &w->levels[d];
    if (l->fd >= 0)
        return l->fd;
    int fd = openat(w->levels[d + 1].fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        fail_errno(w, errno, "cannot reopen the folder above");
        return -1;
    }
    if (fstat(fd, &st) != 0 || st.st_dev != l->dev || st.st_ino != l->ino) {
        close(fd);
        if (!w->failed)
            w->failed = lp_error_set(w->err, LP_EIO,
                                     "a folder above %s/%s moved while it was walked; run the "
                                     "command again",
                                     w->root, w->path);
        return -1;
    }
    l->fd = fd;
    return fd;
}

static void visit_folder(walker *w, int parent, const child *c)
{
    if (lp_ignore_match(w->ig, (lp_str){w->path, w->plen}, true)) {
        add_skip(w, LP_SKIP_IGNORED);
        return;
    }
    if (w->depth + 1 >= WALK_MAX_DEPTH) { /* cannot happen with paths under LP_PATH_MAX */
        w->res->skip_counts[LP_SKIP_UNREADABLE]++;
        return;
    }
    int fd = openat(parent, c->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        if (e == ELOOP)
            add_skip(w, LP_SKIP_SYMLINK_DIR);
        else
            path_error(w, e, "cannot open folder");
        return;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        fail_errno(w, errno, "cannot stat folder");
        close(fd);
        return;
    }
    if (w->have_state && st.st_dev == w->state_dev && st.st_ino == w->state_ino) {
        /* Compared on the opened folder (d_ino from the listing is not reliable on every
         * file system, e.g. overlayfs). */
        add_skip(w, LP_SKIP_IGNORED);
        close(fd);
        return;
    }
    unsigned d = ++w->depth;
    w->levels[d] = (level){fd, st.st_dev, st.st_ino};
    /* Keep at most `window` folders open below the root. */
    if (d > w->window && w->levels[d - w->window].fd >= 0) {
        close(w->levels[d - w->window].fd);
        w->levels[d - w->window].fd = -1;
    }
    walk_folder(w, fd);
    /* Back up: the parent may have been closed while this subtree was walked (reopened
     * through this folder's descriptor, itself possibly reopened: not `fd` any more). */
    if (w->levels[d].fd >= 0) {
        level_fd(w, d - 1);
        close(w->levels[d].fd);
    }
    w->levels[d].fd = -1;
    w->depth--;
}

static void visit_file(walker *w, int parent, const child *c)
{
    if (lp_ignore_match(w->ig, (lp_str){w->path, w->plen}, false)) {
        add_skip(w, LP_SKIP_IGNORED);
        return;
    }
    struct stat st;
    if (fstatat(parent, c->name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        path_error(w, errno, "cannot stat");
        return;
    }
    if (!S_ISREG(st.st_mode)) /* changed type since the listing */
        add_skip(w,
                 S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode) ? LP_SKIP_UNREADABLE : LP_SKIP_SPECIAL);
    else
        add_entry(w, &st, NULL, 0);
}

/* A symlink: indexed under its own path when it resolves to a regular file inside the
 * root (and outside the state folder). */
static void visit_link(walker *w, const child *c)
{
    if (lp_ignore_match(w->ig, (lp_str){w->path, w->plen}, false)) {
        add_skip(w, LP_SKIP_IGNORED);
        return;
    }
    lp_buf full;
    lp_buf_init(&full, 2 * LP_PATH_MAX + 2);
    lp_buf_append(&full, w->root, w->rootlen);
    lp_buf_putc(&full, '/');
    lp_buf_append(&full, w->path, w->plen);
    char *real = realpath(full.ptr, NULL);
    int e = errno;
    lp_str rel, unused;
    struct stat st;
    if (!real && (lp_errno_is_resource(e) || e == EIO)) {
        fail_errno(w, e, "cannot resolve symlink");
    } else if (!real) {
        /* Looping or dangling links lead nowhere: say which. */
        add_skip(w, lp_errno_is_permission(e) ? LP_SKIP_UNREADABLE
                    : e == ELOOP              ? LP_SKIP_SYMLINK_LOOP
                    : e == ENOENT             ? LP_SKIP_SYMLINK_DANGLING
                                              : LP_SKIP_SYMLINK_OUTSIDE);
    } else if (!lp_path_under((lp_str){w->root, w->rootlen}, lp_str_c(real), &rel) ||
               (w->state_real && lp_path_under(lp_str_c(w->state_real), lp_str_c(real), &unused))) {
        add_skip(w, LP_SKIP_SYMLINK_OUTSIDE);
    } else if (stat(real, &st) != 0) {
        e = errno;
        if (lp_errno_is_resource(e) || e == EIO)
            fail_errno(w, e, "cannot stat the target of symlink");
        else
            add_skip(w, lp_errno_is_permission(e) ? LP_SKIP_UNREADABLE : LP_SKIP_SYMLINK_OUTSIDE);
    } else if (S_ISDIR(st.st_mode)) {
        add_skip(w, LP_SKIP_SYMLINK_DIR);
    } else if (!S_ISREG(st.st_mode)) {
        add_skip(w, LP_SKIP_SPECIAL);
    } else {
        add_entry(w, &st, rel.ptr, rel.len);
    }
    lp_buf_release(&full);
    free(real);
}

static void visit(walker *w, int parent, const child *c)
{
    if (w->failed)
        return;
    size_t saved = w->plen;
    size_t need = saved + (saved ? 1 : 0) + c->len;
    if (need > LP_PATH_MAX) {
        lp_log(LP_LOG_WARN, "scan.path_too_long", "folder=\"%.*s\" name_bytes=%zu", (int)saved,
               w->path, c->len);
        w->res->skip_counts[LP_SKIP_UNREADABLE]++;
        return;
    }
    if (saved)
        w->path[w->plen++] = '/';
    memcpy(w->path + w->plen, c->name, c->len);
    w->plen += c->len;
    w->path[w->plen] = '\0';
    switch (c->type) {
    case DT_DIR:
        visit_folder(w, parent, c);
        break;
    case DT_REG:
        visit_file(w, parent, c);
        break;
    case DT_LNK:
        visit_link(w, c);
        break;
    default:
        if (lp_ignore_match(w->ig, (lp_str){w->path, w->plen}, false))
            add_skip(w, LP_SKIP_IGNORED);
        else
            add_skip(w, LP_SKIP_SPECIAL);
    }
    w->plen = saved;
    w->path[saved] = '\0';
}

static void walk_folder(walker *w, int fd)
{
    lp_arena_mark mark = lp_arena_get_mark(&w->tmp);
    child *kids;
    size_t n;
    unsigned have = 0;
    w->res->dirs_walked++;
    int e = list_folder(w, fd, &kids, &n, &have);
    if (e) {
        lp_log(LP_LOG_WARN, "scan.folder_unreadable", "folder=\"%s\" error=\"%s\"", w->path,
               strerror(e));
        path_error(w, e, "cannot list folder");
    }
    lp_ignore_push(w->ig, (lp_str){w->path, w->plen}, fd, have);
    int ige = lp_ignore_failed_errno(w->ig);
    if (ige)
        fail_errno(w, ige, "cannot read the ignore rules in");
    unsigned d = w->depth;
    for (size_t i = 0; i < n && !w->failed; i++) {
        int pfd = level_fd(w, d); /* reopened when a deep subtree closed it */
        if (pfd < 0)
            break;
        visit(w, pfd, &kids[i]);
    }
    lp_ignore_pop(w->ig);
    lp_arena_rewind(&w->tmp, mark);
}

/* ------------------------------------------------------------------------------------------
 * Entry points. */

static int cmp_skip(const void *a, const void *b)
{
    return strcmp(((const lp_scan_skip *)a)->path, ((const lp_scan_skip *)b)->path);
}

static void *copy_to_arena(lp_arena *a, const void *items, size_t n, size_t size)
{
    void *p = lp_arena_alloc(a, lp_mul_size(n ? n : 1, size));
    if (n)
        memcpy(p, items, n * size);
    return p;
}

/* Record the state folder so the walk never enters it; LP_EPATH when root is inside it. */
static lp_status prepare_state(walker *w, const char *state_dir, lp_error *err)
{
    if (!state_dir || !*state_dir)
        return LP_OK;
    struct stat st;
    if (stat(state_dir, &st) != 0)
        return LP_OK; /* not created yet: nothing to avoid */
    w->have_state = true;
    w->state_dev = st.st_dev;
    w->state_ino = st.st_ino;
    lp_buf real;
    lp_buf_init(&real, LP_PATH_MAX + 1);
    lp_status rc = LP_OK;
    if (lp_path_real(state_dir, &real, NULL) == LP_OK) {
        lp_str unused;
        if (lp_path_under(lp_buf_str(&real), (lp_str){w->root, w->rootlen}, &unused))
            rc = lp_error_set(err, LP_EPATH,
                              "%s is inside the loupe state folder %s; choose a project folder",
                              w->root, real.ptr);
        w->state_real = lp_buf_detach(&real, NULL);
    }
    lp_buf_release(&real);
    return rc;
}

lp_status lp_scan_walk(const char *root, const lp_scan_opts *opts, lp_arena *arena,
                       lp_scan_result *out, lp_error *err)
{
    static const lp_scan_opts no_opts = {0};
    if (!opts)
        opts = &no_opts;
    memset(out, 0, sizeof *out);
    walker *w = lp_xcalloc(1, sizeof *w);
    w->root = root;
    w->rootlen = strlen(root);
    while (w->rootlen > 1 && root[w->rootlen - 1] == '/')
        w->rootlen--;
    w->max_bytes = opts->max_file_bytes ? opts->max_file_bytes : LP_SCAN_MAX_FILE_BYTES;
    w->out = arena;
    w->res = out;
    lp_arena_init(&w->tmp, 0);
    lp_status rc = LP_OK;
    int fd = -1;
    if (root[0] != '/') {
        rc = lp_error_set(err, LP_EPATH, "root %s is not an absolute path", root);
        goto done;
    }
    if ((rc = prepare_state(w, opts->state_dir, err)) != LP_OK)
        goto done;
    fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat rst;
    if (fd < 0 || fstat(fd, &rst) != 0) {
        rc = lp_error_errno(err, errno, "cannot open root %s", root);
        goto done;
    }
    w->dents = lp_xmalloc(DENTS_BUF);
    w->ig = lp_ignore_new(root, opts->use_default_ignores);
    w->err = err;
    w->levels = lp_xcalloc(WALK_MAX_DEPTH, sizeof *w->levels);
    w->levels[0] = (level){fd, rst.st_dev, rst.st_ino};
    /* Leave 3 descriptors for a rule file, a reopened folder and the next folder opened
     * before the oldest one is closed. */
    uint64_t free_fds = lp_fd_free();
    w->window = free_fds >= WALK_OPEN_LEVELS + 3 ? WALK_OPEN_LEVELS
                : free_fds > 4                    ? (unsigned)(free_fds - 3)
                                                  : 1;
    int ige = lp_ignore_failed_errno(w->ig);
    if (ige) {
        rc = lp_error_errno(err, ige, "cannot read the ignore rules of %s", root);
        goto done;
    }
    walk_folder(w, fd);
    if (w->failed) {
        rc = w->failed;
        memset(out, 0, sizeof *out);
        goto done;
    }
    if (w->skips.len > 1)
        qsort(w->skips.items, w->skips.len, sizeof(lp_scan_skip), cmp_skip);
    out->entries = copy_to_arena(arena, w->entries.items, w->entries.len, sizeof(lp_scan_entry));
    out->nentries = w->entries.len;
    out->skipped = copy_to_arena(arena, w->skips.items, w->skips.len, sizeof(lp_scan_skip));
    out->nskipped = w->skips.len;
done:
    if (fd >= 0)
        close(fd);
    lp_ignore_free(w->ig);
    lp_vec_free(&w->entries);
    lp_vec_free(&w->skips);
    lp_arena_release(&w->tmp);
    free(w->dents);
    free(w->state_real);
    free(w->levels);
    free(w);
    return rc;
}

/* ------------------------------------------------------------------------------------------
 * Broad roots. */

/* realpath when the folder exists, else the lexical normalization. */
static bool canonical(const char *p, lp_buf *out)
{
    if (lp_path_real(p, out, NULL) == LP_OK)
        return true;
    return lp_path_normalize(lp_str_c(p), out, NULL) == LP_OK;
}

lp_status lp_scan_check_root(const char *root, const char *state_dir, lp_error *err)
{
    lp_buf r, other;
    lp_buf_init(&r, LP_PATH_MAX + 1);
    lp_buf_init(&other, LP_PATH_MAX + 1);
    lp_status rc = LP_OK;
    if (!root || root[0] != '/' || lp_path_normalize(lp_str_c(root), &r, err) != LP_OK) {
        rc = lp_error_set(err, LP_EPATH, "root %s is not an absolute path", root ? root : "");
        goto done;
    }
    if (!strcmp(r.ptr, "/")) {
        rc = lp_error_set(err, LP_EBROADROOT,
                          "refusing to index / (the whole file system); choose a project "
                          "folder, or pass --allow-broad-root to index it anyway");
        goto done;
    }
    const char *home = getenv("HOME");
    if (home && home[0] == '/' && canonical(home, &other) && !strcmp(other.ptr, r.ptr)) {
        rc = lp_error_set(err, LP_EBROADROOT,
                          "refusing to index your home folder %s; choose a project folder, "
                          "or pass --allow-broad-root to index it anyway",
                          r.ptr);
        goto done;
    }
    lp_str unused;
    if (state_dir && state_dir[0] == '/' && canonical(state_dir, &other) &&
        lp_path_under(lp_buf_str(&other), lp_buf_str(&r), &unused)) {
        rc = lp_error_set(err, LP_EBROADROOT,
                          "refusing to index %s: it is %sthe loupe state folder %s; choose a "
                          "project folder, or pass --allow-broad-root to index it anyway",
                          r.ptr, unused.len ? "inside " : "", other.ptr);
        goto done;
    }
done:
    lp_buf_release(&r);
    lp_buf_release(&other);
    return rc;
}
