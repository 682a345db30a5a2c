/*
 * test_scan_walk.c: lp_scan_walk on fixture trees built by each test: order, stat data,
 * every skip reason the walk decides, defaults, .loupeignore, the state folder, symlinks,
 * deep nesting, unreadable folders.
 */
#include "scan/scan.h"
#include "t.h"

#include <fcntl.h>
#include <grp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static const lp_scan_entry *find_entry(const lp_scan_result *r, const char *path)
{
    for (size_t i = 0; i < r->nentries; i++)
        if (!strcmp(r->entries[i].path, path))
            return &r->entries[i];
    return NULL;
}

static lp_skip_reason find_skip(const lp_scan_result *r, const char *path)
{
    for (size_t i = 0; i < r->nskipped; i++)
        if (!strcmp(r->skipped[i].path, path))
            return r->skipped[i].reason;
    return LP_SKIP_NONE;
}

static bool sorted(const lp_scan_result *r)
{
    for (size_t i = 1; i < r->nentries; i++)
        if (strcmp(r->entries[i - 1].path, r->entries[i].path) >= 0)
            return false;
    for (size_t i = 1; i < r->nskipped; i++)
        if (strcmp(r->skipped[i - 1].path, r->skipped[i].path) > 0)
            return false;
    return true;
}

static lp_status walk(lp_t *t, const char *sub, const lp_scan_opts *o, lp_arena *a,
                      lp_scan_result *r, lp_error *err)
{
    char root[600];
    snprintf(root, sizeof root, "%s%s%s", t->tmpdir, sub ? "/" : "", sub ? sub : "");
    return lp_scan_walk(root, o, a, r, err);
}

T_TEST(scan_walk_sorted_bytewise_with_stat_data)
{
    static const char *const want[] = {
        ".hidden",   "B.txt", "a-b.txt",  "a.txt",        "a/x.txt",
        "a/y/z.txt", "a0",    "ab/c.txt", "\xc3\xa9.txt",
    };
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err = {0};
    lp_scan_result r;
    for (size_t i = 0; i < LP_ARRAY_LEN(want); i++)
        T_CHECK(lp_t_write(t, want[i], "hello\n") == LP_OK);
    lp_scan_opts o = {.use_default_ignores = true};
    T_CHECK_OK(walk(t, NULL, &o, &a, &r, &err), &err);
    T_CHECK_INT(r.nentries, LP_ARRAY_LEN(want));
    for (size_t i = 0; i < LP_ARRAY_LEN(want); i++)
        T_CHECK_STR(r.entries[i].path, want[i]);
    T_CHECK(sorted(&r));
    T_CHECK_INT(r.dirs_walked, 4); /* root, a, a/y, ab */
    T_CHECK_INT(r.bytes, 6 * LP_ARRAY_LEN(want));
    char p[600];
    snprintf(p, sizeof p, "%s/a/y/z.txt", t->tmpdir);
    struct stat st;
    T_CHECK(stat(p, &st) == 0);
    const lp_scan_entry *e = find_entry(&r, "a/y/z.txt");
    T_CHECK(e != NULL);
    T_CHECK_INT(e->size, 6);
    T_CHECK_INT(e->ino, st.st_ino);
    T_CHECK_INT(e->mode, st.st_mode);
    T_CHECK_INT(e->mtime_ns, (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec);
    T_CHECK(e->target == NULL);
done:
    lp_arena_release(&a);
}

static int make_socket(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (fd < 0 || strlen(path) >= sizeof sa.sun_path)
        return -1;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
    close(fd);
    return rc;
}

T_TEST(scan_walk_each_skip_reason)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err = {0};
    lp_scan_result r;
    char outside[600];
    snprintf(outside, sizeof outside, "%s/outside", t->tmpdir);
    T_CHECK(lp_t_write(t, "outside/secret.txt", "secret\n") == LP_OK);
    T_CHECK(lp_t_write(t, "r/.gitignore", "*.o\n") == LP_OK);
    T_CHECK(lp_t_sh("git init -q '%s/r'", t->tmpdir) == 0); /* .gitignore needs a repository */
    T_CHECK(lp_t_write(t, "r/big.txt", "12345678901") == LP_OK); /* 11 bytes */
    T_CHECK(lp_t_write(t, "r/edge.txt", "1234567890") == LP_OK); /* exactly 10 */
    T_CHECK(lp_t_write(t, "r/main.o", "obj") == LP_OK);
    T_CHECK(lp_t_write(t, "r/dir/real.txt", "real\n") == LP_OK);
    T_CHECK(lp_t_sh("cd '%s/r' && mkfifo fifo && ln -s dir/real.txt link-in && "
                    "ln -s ../outside/secret.txt link-out && ln -s '%s' link-outdir && "
                    "ln -s nowhere dangling && ln -s loop2 loop1 && ln -s loop1 loop2 && "
                    "ln -s dir link-dir && ln -s . link-self && ln -s ../r/dir/real.txt "
                    "link-via-root",
                    t->tmpdir, outside) == 0);
    char sock[600];
    snprintf(sock, sizeof sock, "%s/r/sock", t->tmpdir);
    T_CHECK(make_socket(sock) == 0);
    lp_scan_opts o = {.max_file_bytes = 10, .use_default_ignores = true};
    T_CHECK_OK(walk(t, "r", &o, &a, &r, &err), &err);
    T_CHECK(sorted(&r));
    T_CHECK(find_entry(&r, "edge.txt") != NULL);
    T_CHECK(find_entry(&r, "big.txt") == NULL);
    T_CHECK_INT(find_skip(&r, "big.txt"), LP_SKIP_TOO_LARGE);
    T_CHECK_INT(find_skip(&r, "fifo"), LP_SKIP_SPECIAL);
    T_CHECK_INT(find_skip(&r, "sock"), LP_SKIP_SPECIAL);
    T_CHECK_INT(find_skip(&r, "link-out"), LP_SKIP_SYMLINK_OUTSIDE);
    T_CHECK_INT(find_skip(&r, "link-outdir"), LP_SKIP_SYMLINK_OUTSIDE);
    T_CHECK_INT(find_skip(&r, "dangling"), LP_SKIP_SYMLINK_DANGLING);
    T_CHECK_INT(find_skip(&r, "loop1"), LP_SKIP_SYMLINK_LOOP);
    T_CHECK_INT(find_skip(&r, "loop2"), LP_SKIP_SYMLINK_LOOP);
    T_CHECK_INT(find_skip(&r, "link-dir"), LP_SKIP_SYMLINK_DIR);
    T_CHECK_INT(find_skip(&r, "link-self"), LP_SKIP_SYMLINK_DIR); /* the root itself */
    T_CHECK_INT(find_skip(&r, "main.o"), LP_SKIP_NONE);           /* ignored: counted, not listed */
    const lp_scan_entry *e = find_entry(&r, "link-in");
    T_CHECK(e != NULL && e->target != NULL);
    T_CHECK_STR(e->target, "dir/real.txt");
    T_CHECK_INT(e->size, 5);
    T_CHECK(find_entry(&r, "link-via-root") != NULL);
    T_CHECK(find_entry(&r, "dir/real.txt") != NULL);
    T_CHECK_INT(r.skip_counts[LP_SKIP_IGNORED], 2); /* main.o and .git */
    T_CHECK_INT(r.skip_counts[LP_SKIP_TOO_LARGE], 1);
    T_CHECK_INT(r.skip_counts[LP_SKIP_SPECIAL], 2);
    T_CHECK_INT(r.skip_counts[LP_SKIP_SYMLINK_OUTSIDE], 2);
    T_CHECK_INT(r.skip_counts[LP_SKIP_SYMLINK_LOOP], 2);
    T_CHECK_INT(r.skip_counts[LP_SKIP_SYMLINK_DANGLING], 1);
    T_CHECK_INT(r.skip_counts[LP_SKIP_SYMLINK_DIR], 2);
    T_CHECK_INT(r.nskipped, 10);
    /* The entries: .gitignore, dir/real.txt, edge.txt, link-in, link-via-root. */
    T_CHECK_INT(r.nentries, 5);
done:
    lp_arena_release(&a);
}

T_TEST(scan_walk_defaults_loupeignore_and_git_folder)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err = {0};
    lp_scan_result r;
    static const char *const files[] = {
        "src/app.py",
        "node_modules/dep/index.js",
        "web/node_modules/x.js",
        ".venv/lib/site.py",
        "src/__pycache__/app.pyc",
        ".git/HEAD",
        "sub/.git",
        ".mypy_cache/x.json",
        ".cache/y",
        "keep/node_modules/k.js",
        "keep/gen.out",
        "keep/private.txt",
        "gen.out",
    };
    for (size_t i = 0; i < LP_ARRAY_LEN(files); i++)
        T_CHECK(lp_t_write(t, files[i], "x\n") == LP_OK);
    T_CHECK(lp_t_write(t, ".gitignore", "*.out\n") == LP_OK);
    T_CHECK(lp_t_write(t, "keep/.loupeignore", "!node_modules/\n!*.out\nprivate.txt\n") == LP_OK);
    lp_scan_opts o = {.use_default_ignores = true};
    T_CHECK_OK(walk(t, NULL, &o, &a, &r, &err), &err);
    static const char *const want[] = {
        ".gitignore", "keep/.loupeignore", "keep/gen.out", "keep/node_modules/k.js", "src/app.py",
    };
    T_CHECK_INT(r.nentries, LP_ARRAY_LEN(want));
    for (size_t i = 0; i < LP_ARRAY_LEN(want); i++)
        T_CHECK_STR(r.entries[i].path, want[i]);
    /* node_modules, web/node_modules, .venv, src/__pycache__, .git, sub/.git, .mypy_cache,
     * .cache, keep/private.txt, gen.out */
    T_CHECK_INT(r.skip_counts[LP_SKIP_IGNORED], 10);
    T_CHECK_INT(r.nskipped, 0);
    /* Without the defaults: everything but .git and the rule-ignored files. */
    lp_scan_opts raw = {.use_default_ignores = false};
    T_CHECK_OK(walk(t, NULL, &raw, &a, &r, &err), &err);
    T_CHECK(find_entry(&r, "node_modules/dep/index.js") != NULL);
    T_CHECK(find_entry(&r, ".venv/lib/site.py") != NULL);
    T_CHECK(find_entry(&r, ".git/HEAD") == NULL);
    T_CHECK(find_entry(&r, "sub/.git") == NULL);
    T_CHECK(find_entry(&r, "gen.out") == NULL);
    T_CHECK(find_entry(&r, "keep/private.txt") == NULL);
    T_CHECK(sorted(&r));
done:
    lp_arena_release(&a);
}

T_TEST(scan_walk_never_enters_state_folder)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err = {0};
    lp_scan_result r;
    char state[600], inside[700];
    snprintf(state, sizeof state, "%s/proj/.local/state/loupe", t->tmpdir);
    T_CHECK(lp_t_write(t, "proj/.local/state/loupe/db.sqlite", "SQLite") == LP_OK);
    T_CHECK(lp_t_write(t, "proj/.local/state/other.txt", "o\n") == LP_OK);
    T_CHECK(lp_t_write(t, "proj/main.c", "int main;\n") == LP_OK);
    T_CHECK(lp_t_sh("cd '%s/proj' && ln -s .local/state/loupe/db.sqlite db-link", t->tmpdir) == 0);
    lp_scan_opts o = {.state_dir = state, .use_default_ignores = true};
    T_CHECK_OK(walk(t, "proj", &o, &a, &r, &err), &err);
    T_CHECK_INT(r.nentries, 2);
    T_CHECK_STR(r.entries[0].path, ".local/state/other.txt");
    T_CHECK_STR(r.entries[1].path, "main.c");
    T_CHECK_INT(r.skip_counts[LP_SKIP_IGNORED], 1);
    T_CHECK_INT(find_skip(&r, "db-link"), LP_SKIP_SYMLINK_OUTSIDE);
    /* A root inside the state folder is refused. */
    snprintf(inside, sizeof inside, "%s/sub", state);
    T_CHECK(lp_mkdir_p(inside, NULL) == LP_OK);
    T_CHECK_INT(lp_scan_walk(inside, &o, &a, &r, &err), LP_EPATH);
    T_CHECK_INT(lp_scan_walk(state, &o, &a, &r, &err), LP_EPATH);
    /* A missing root fails; a state folder that does not exist yet is fine. */
    T_CHECK_INT(walk(t, "missing", &o, &a, &r, &err), LP_ENOENT);
    snprintf(state, sizeof state, "%s/nope", t->tmpdir);
    T_CHECK_OK(walk(t, "proj", &o, &a, &r, &err), &err);
done:
    lp_arena_release(&a);
}

T_TEST(scan_walk_nested_50_deep)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err = {0};
    lp_scan_result r;
    lp_buf p;
    lp_buf_init(&p, 0);
    for (int d = 1; d <= 50; d++) {
        lp_buf_printf(&p, "%sd%02d", d > 1 ? "/" : "", d);
        char rel[1024];
        snprintf(rel, sizeof rel, "%s/f.tmp", p.ptr);
        T_CHECK(lp_t_write(t, rel, "t\n") == LP_OK);
        if (d == 25) {
            snprintf(rel, sizeof rel, "%s/.gitignore", p.ptr);
            T_CHECK(lp_t_write(t, rel, "*.tmp\n") == LP_OK);
        }
    }
    char leaf[1024];
    snprintf(leaf, sizeof leaf, "%s/leaf.c", p.ptr);
    T_CHECK(lp_t_write(t, leaf, "x\n") == LP_OK);
    T_CHECK(lp_t_sh("git init -q '%s'", t->tmpdir) == 0); /* .gitignore needs a repository */
    lp_scan_opts o = {.use_default_ignores = true};
    T_CHECK_OK(walk(t, NULL, &o, &a, &r, &err), &err);
    T_CHECK_INT(r.dirs_walked, 51);
    /* f.tmp at depths 1..24, the .gitignore, the leaf; depths 25..50 ignored. */
    T_CHECK_INT(r.nentries, 24 + 1 + 1);
    T_CHECK_INT(r.skip_counts[LP_SKIP_IGNORED], 27); /* depths 25..50 and .git */
    /* Bytewise order puts a folder's subfolder "dNN/" before its "f.tmp": the first entries
     * are the deepest ones. */
    T_CHECK_STR(r.entries[1].path, leaf);
    T_CHECK_STR(r.entries[r.nentries - 1].path, "d01/f.tmp");
    T_CHECK(sorted(&r));
done:
    lp_buf_release(&p);
    lp_arena_release(&a);
}

/* Run fn(arg) in a forked child; its exit status (128 + signal when killed, -1 when the
 * fork or the wait failed). */
static int run_child(int (*fn)(const char *), const char *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        _exit(fn(arg));
    int st = 0;
    if (waitpid(pid, &st, 0) != pid)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Run in a child that drops to an unprivileged user (root reads everything). The child's
 * exit status is the number of the first failed expectation. */
static int unreadable_child(const char *root)
{
    if (getuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0))
        return 90;
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_scan_result r;
    lp_error err = {0};
    lp_scan_opts o = {.use_default_ignores = true};
    int code = 0;
    if (lp_scan_walk(root, &o, &a, &r, &err) != LP_OK)
        code = 1;
    else if (find_skip(&r, "locked") != LP_SKIP_UNREADABLE)
        code = 2;
    else if (!find_entry(&r, "open/a.txt") || !find_entry(&r, "z.txt"))
        code = 3;
    else if (find_entry(&r, "locked/secret.txt"))
        code = 4;
    else if (r.skip_counts[LP_SKIP_UNREADABLE] != 1 || r.nskipped != 1)
        code = 5;
    lp_arena_release(&a);
    return code;
}

T_TEST(scan_walk_unreadable_folder_is_a_skip)
{
    char root[600];
    snprintf(root, sizeof root, "%s/r", t->tmpdir);
    T_CHECK(lp_t_write(t, "r/open/a.txt", "a\n") == LP_OK);
    T_CHECK(lp_t_write(t, "r/locked/secret.txt", "s\n") == LP_OK);
    T_CHECK(lp_t_write(t, "r/z.txt", "z\n") == LP_OK);
    T_CHECK(lp_t_sh("chmod -R a+rX '%s' && chmod 0755 '%s' && chmod 000 '%s/locked'", root,
                    t->tmpdir, root) == 0);
    int code = run_child(unreadable_child, root);
    T_CHECK_MSG(code == 0, "child status %d", code);
done:
    lp_t_sh("chmod 0755 '%s/locked' 2>/dev/null", root);
}

/* ------------------------------------------------------------------------------------------
 * Descriptor limits: a limit is not a property of a folder or a file. */

/* Leave exactly k descriptors free: RLIMIT_NOFILE caps descriptor numbers, so the limit
 * is the number just past the k-th free one (holes below the highest open one count). */
static bool limit_free_fds(int k)
{
    int limit = 0;
    for (int fd = 0, nfree = 0; fd < 65536 && nfree < k; fd++) {
        if (fcntl(fd, F_GETFD) == -1)
            nfree++;
        limit = fd + 1;
    }
    /* (descriptors already open above the limit stay open; new ones cannot go there) */
    struct rlimit rl = {(rlim_t)limit, (rlim_t)limit};
    return setrlimit(RLIMIT_NOFILE, &rl) == 0;
}

/* Exit status: the number of the first failed expectation. */
static int emfile_walk_child(const char *root)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_scan_result r;
    lp_error err = {0};
    lp_scan_opts o = {.use_default_ignores = true};
    int code = 0;
    if (!limit_free_fds(1)) /* the root's descriptor, nothing for its folders */
        code = 90;
    else if (lp_scan_walk(root, &o, &a, &r, &err) != LP_ELIMIT)
        code = 1;
    else if (!strstr(err.msg, "Too many open files") || !strstr(err.msg, "ulimit -n"))
        code = 2;
    else if (r.nentries || r.nskipped || r.skip_counts[LP_SKIP_UNREADABLE])
        code = 3; /* nothing half-walked is handed out */
    lp_arena_release(&a);
    return code;
}


T_TEST(scan_walk_descriptor_limit_fails_instead_of_skipping)
{
    char root[600];
    snprintf(root, sizeof root, "%s/r", t->tmpdir);
    for (int i = 1; i <= 20; i++) {
        char rel[64];
        snprintf(rel, sizeof rel, "r/d%d/e/a.c", i);
        T_CHECK(lp_t_write(t, rel, "int f(void){return 1;}\n") == LP_OK);
    }
    int code = run_child(emfile_walk_child, root);
    T_CHECK_MSG(code == 0, "child status %d", code);
done:;
}

static int deep_walk_child(const char *root)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_scan_result r;
    lp_error err = {0};
    lp_scan_opts o = {.use_default_ignores = true};
    int code = 0;
    if (!limit_free_fds(20)) /* far fewer than the 120 levels */
        code = 90;
    else if (lp_scan_walk(root, &o, &a, &r, &err) != LP_OK)
        code = 1;
    else if (r.nentries != 120 + 1 || r.skip_counts[LP_SKIP_UNREADABLE] || r.dirs_walked != 121)
        code = 2;
    else if (!sorted(&r))
        code = 3;
    lp_arena_release(&a);
    return code;
}

T_TEST(scan_walk_deep_tree_needs_bounded_descriptors)
{
    char root[600];
    snprintf(root, sizeof root, "%s/r", t->tmpdir);
    lp_buf p;
    lp_buf_init(&p, 0);
    lp_buf_puts(&p, "r");
    T_CHECK(lp_t_write(t, "r/top.c", "t\n") == LP_OK);
    for (int d = 1; d <= 120; d++) {
        lp_buf_printf(&p, "/d%d", d);
        char rel[2048];
        snprintf(rel, sizeof rel, "%s/f%d.c", p.ptr, d);
        T_CHECK(lp_t_write(t, rel, "x\n") == LP_OK);
    }
    int code = run_child(deep_walk_child, root);
    T_CHECK_MSG(code == 0, "child status %d", code);
done:
    lp_buf_release(&p);
}

static int emfile_read_child(const char *root)
{
    lp_buf b;
    lp_buf_init(&b, 0);
    lp_skip_reason s = LP_SKIP_COUNT;
    lp_error err = {0};
    int code = 0;
    if (!limit_free_fds(1)) /* the root's descriptor, none for the file */
        code = 90;
    else if (lp_scan_read(root, "d1/e/a.c", 0, &b, &s, &err) != LP_ELIMIT)
        code = 1;
    else if (s != LP_SKIP_NONE || b.len)
        code = 2;
    else if (!strstr(err.msg, "ulimit -n"))
        code = 3;
    lp_buf_release(&b);
    return code;
}

T_TEST(scan_read_descriptor_limit_is_an_error_not_a_skip)
{
    char root[600];
    snprintf(root, sizeof root, "%s/r", t->tmpdir);
    T_CHECK(lp_t_write(t, "r/d1/e/a.c", "int f(void){return 1;}\n") == LP_OK);
    int code = run_child(emfile_read_child, root);
    T_CHECK_MSG(code == 0, "child status %d", code);
done:;
}
