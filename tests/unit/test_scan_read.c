/*
 * test_scan_read.c: lp_scan_read (binary, limits, symlinks, special files, errors,
 * unreadable files), lp_scan_check_root, and the Merkle root.
 */
#include "scan/scan_int.h"
#include "t.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static lp_status write_n(lp_t *t, const char *rel, size_t n, char fill, size_t nul_at)
{
    char path[600];
    snprintf(path, sizeof path, "%s/%s", t->tmpdir, rel);
    char *p = lp_xmalloc(n ? n : 1);
    memset(p, fill, n);
    if (nul_at < n)
        p[nul_at] = '\0';
    FILE *f = fopen(path, "wb");
    size_t w = f ? fwrite(p, 1, n, f) : 0;
    bool ok = f && fclose(f) == 0 && w == n;
    free(p);
    return ok ? LP_OK : LP_EIO;
}

static lp_skip_reason read_skip(lp_t *t, const char *rel, uint64_t max, lp_buf *b, lp_status *rc)
{
    lp_skip_reason s = LP_SKIP_COUNT;
    lp_error err = {0};
    *rc = lp_scan_read(t->tmpdir, rel, max, b, &s, &err);
    return s;
}

T_TEST(scan_read_text_and_binary)
{
    lp_buf b;
    lp_buf_init(&b, 0);
    lp_status rc;
    T_CHECK(lp_t_write(t, "a.txt", "hello\nworld\n") == LP_OK);
    T_CHECK_INT(read_skip(t, "a.txt", 0, &b, &rc), LP_SKIP_NONE);
    T_CHECK_INT(rc, LP_OK);
    T_CHECK_STR(b.ptr, "hello\nworld\n");
    T_CHECK(lp_t_write(t, "empty.txt", "") == LP_OK);
    T_CHECK_INT(read_skip(t, "empty.txt", 0, &b, &rc), LP_SKIP_NONE);
    T_CHECK_INT(b.len, 0);
    /* NUL at the last probed byte: binary; one byte further: text. */
    T_CHECK(write_n(t, "bin-edge", 20000, 'a', 8191) == LP_OK);
    T_CHECK_INT(read_skip(t, "bin-edge", 0, &b, &rc), LP_SKIP_BINARY);
    T_CHECK_INT(rc, LP_OK);
    T_CHECK_INT(b.len, 0);
    T_CHECK(write_n(t, "text-edge", 20000, 'a', 8192) == LP_OK);
    T_CHECK_INT(read_skip(t, "text-edge", 0, &b, &rc), LP_SKIP_NONE);
    T_CHECK_INT(b.len, 20000);
    T_CHECK(write_n(t, "small-bin", 10, 'a', 3) == LP_OK);
    T_CHECK_INT(read_skip(t, "small-bin", 0, &b, &rc), LP_SKIP_BINARY);
done:
    lp_buf_release(&b);
}

T_TEST(scan_read_limit_boundary_8mib)
{
    lp_buf b;
    lp_buf_init(&b, 0);
    lp_status rc;
    const size_t lim = (size_t)LP_SCAN_MAX_FILE_BYTES;
    T_CHECK(write_n(t, "exact", lim, 'x', SIZE_MAX) == LP_OK);
    T_CHECK(write_n(t, "over", lim + 1, 'x', SIZE_MAX) == LP_OK);
    T_CHECK_INT(read_skip(t, "exact", 0, &b, &rc), LP_SKIP_NONE);
    T_CHECK_INT(b.len, lim);
    T_CHECK_INT(read_skip(t, "over", 0, &b, &rc), LP_SKIP_TOO_LARGE);
    T_CHECK_INT(rc, LP_OK);
    T_CHECK_INT(b.len, 0);
    /* A smaller limit given by the caller, and one given by the buffer itself. */
    T_CHECK(write_n(t, "hundred", 100, 'y', SIZE_MAX) == LP_OK);
    T_CHECK_INT(read_skip(t, "hundred", 100, &b, &rc), LP_SKIP_NONE);
    T_CHECK_INT(read_skip(t, "hundred", 99, &b, &rc), LP_SKIP_TOO_LARGE);
    lp_buf small;
    lp_buf_init(&small, 50);
    T_CHECK_INT(read_skip(t, "hundred", 0, &small, &rc), LP_SKIP_TOO_LARGE);
    lp_buf_release(&small);
done:
    lp_buf_release(&b);
}

T_TEST(scan_read_symlinks_stay_inside_root)
{
    lp_buf b;
    lp_buf_init(&b, 0);
    T_CHECK(lp_t_write(t, "r/dir/real.txt", "real\n") == LP_OK);
    T_CHECK(lp_t_write(t, "out/secret.txt", "secret\n") == LP_OK);
    T_CHECK(lp_t_sh("cd '%s/r' && ln -s dir/real.txt in && ln -s ../out/secret.txt out && "
                    "ln -s nowhere dangling && ln -s dir ldir && ln -s ../out lout",
                    t->tmpdir) == 0);
    char root[600];
    snprintf(root, sizeof root, "%s/r", t->tmpdir);
    lp_skip_reason s;
    lp_error err = {0};
    T_CHECK_OK(lp_scan_read(root, "in", 0, &b, &s, &err), &err);
    T_CHECK_INT(s, LP_SKIP_NONE);
    T_CHECK_STR(b.ptr, "real\n");
    T_CHECK_OK(lp_scan_read(root, "ldir/real.txt", 0, &b, &s, &err), &err);
    T_CHECK_INT(s, LP_SKIP_NONE);
    T_CHECK_STR(b.ptr, "real\n");
    T_CHECK_OK(lp_scan_read(root, "out", 0, &b, &s, &err), &err);
    T_CHECK_INT(s, LP_SKIP_SYMLINK_OUTSIDE);
    T_CHECK_INT(b.len, 0);
    T_CHECK_OK(lp_scan_read(root, "lout/secret.txt", 0, &b, &s, &err), &err);
    T_CHECK_INT(s, LP_SKIP_SYMLINK_OUTSIDE);
    T_CHECK_OK(lp_scan_read(root, "dangling", 0, &b, &s, &err), &err);
    T_CHECK_INT(s, LP_SKIP_SYMLINK_OUTSIDE);
    T_CHECK_OK(lp_scan_read(root, "ldir", 0, &b, &s, &err), &err);
    T_CHECK_INT(s, LP_SKIP_SYMLINK_DIR);
done:
    lp_buf_release(&b);
}

T_TEST(scan_read_component_fallback_refuses_symlinks)
{
    int rootfd = -1, fd = -1;
    T_CHECK(lp_t_write(t, "dir/f.txt", "f\n") == LP_OK);
    T_CHECK(lp_t_sh("cd '%s' && ln -s dir ldir && ln -s dir/f.txt lf", t->tmpdir) == 0);
    rootfd = open(t->tmpdir, O_RDONLY | O_DIRECTORY);
    T_CHECK(rootfd >= 0);
    fd = lp_scan_open_components(rootfd, "dir/f.txt");
    T_CHECK(fd >= 0);
    close(fd);
    fd = lp_scan_open_components(rootfd, "ldir/f.txt");
    T_CHECK(fd < 0 && errno == ELOOP);
    fd = lp_scan_open_components(rootfd, "lf");
    T_CHECK(fd < 0 && errno == ELOOP);
    fd = lp_scan_open_components(rootfd, "dir/missing");
    T_CHECK(fd < 0 && errno == ENOENT);
done:
    if (rootfd >= 0)
        close(rootfd);
}

T_TEST(scan_read_special_files_and_errors)
{
    lp_buf b;
    lp_buf_init(&b, 0);
    lp_status rc;
    T_CHECK(lp_t_write(t, "d/x.txt", "x") == LP_OK);
    T_CHECK(lp_t_sh("cd '%s' && mkfifo fifo", t->tmpdir) == 0);
    /* A fifo never blocks the read (nobody writes to it). */
    T_CHECK_INT(read_skip(t, "fifo", 0, &b, &rc), LP_SKIP_SPECIAL);
    T_CHECK_INT(rc, LP_OK);
    read_skip(t, "missing.txt", 0, &b, &rc);
    T_CHECK_INT(rc, LP_ENOENT);
    read_skip(t, "d/x.txt/deeper", 0, &b, &rc);
    T_CHECK_INT(rc, LP_ENOENT);
    read_skip(t, "d", 0, &b, &rc);
    T_CHECK_INT(rc, LP_EINVAL);
    read_skip(t, "../etc/passwd", 0, &b, &rc);
    T_CHECK_INT(rc, LP_EPATH);
    read_skip(t, "/etc/passwd", 0, &b, &rc);
    T_CHECK_INT(rc, LP_EPATH);
    read_skip(t, "d/./x.txt", 0, &b, &rc);
    T_CHECK_INT(rc, LP_EPATH);
    lp_skip_reason s;
    lp_error err = {0};
    T_CHECK_INT(lp_scan_read("/nonexistent-root-xyz", "a", 0, &b, &s, &err), LP_ENOENT);
    T_CHECK(strstr(err.msg, "/nonexistent-root-xyz") != NULL);
done:
    lp_buf_release(&b);
}

static int unreadable_child(const char *root)
{
    if (getuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0))
        return 90;
    lp_buf b;
    lp_buf_init(&b, 0);
    lp_skip_reason s = LP_SKIP_COUNT;
    int code = 0;
    if (lp_scan_read(root, "private.txt", 0, &b, &s, NULL) != LP_OK)
        code = 1;
    else if (s != LP_SKIP_UNREADABLE || b.len != 0)
        code = 2;
    else if (lp_scan_read(root, "public.txt", 0, &b, &s, NULL) != LP_OK || s != LP_SKIP_NONE)
        code = 3;
    else if (lp_scan_read(root, "closed/inner.txt", 0, &b, &s, NULL) != LP_OK ||
             s != LP_SKIP_UNREADABLE)
        code = 4;
    lp_buf_release(&b);
    return code;
}

T_TEST(scan_read_unreadable_file_is_a_skip)
{
    char root[600];
    snprintf(root, sizeof root, "%s/r", t->tmpdir);
    T_CHECK(lp_t_write(t, "r/private.txt", "p\n") == LP_OK);
    T_CHECK(lp_t_write(t, "r/public.txt", "p\n") == LP_OK);
    T_CHECK(lp_t_write(t, "r/closed/inner.txt", "i\n") == LP_OK);
    T_CHECK(lp_t_sh("chmod 0755 '%s' '%s' && chmod 0644 '%s/public.txt' && chmod 0600 "
                    "'%s/private.txt' && chmod 0700 '%s/closed'",
                    t->tmpdir, root, root, root, root) == 0);
    fflush(NULL);
    pid_t pid = fork();
    T_CHECK(pid >= 0);
    if (pid == 0)
        _exit(unreadable_child(root));
    int st = 0;
    T_CHECK(waitpid(pid, &st, 0) == pid);
    T_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %d", st);
done:;
}

/* ------------------------------------------------------------------------------------------
 * Broad roots. */

T_TEST(scan_check_root_refuses_broad_roots)
{
    char home[600], state[700], p[800];
    const char *old = getenv("HOME");
    char *saved = old ? lp_xstrdup(old) : NULL;
    lp_error err = {0};
    snprintf(home, sizeof home, "%s/home", t->tmpdir);
    snprintf(state, sizeof state, "%s/.local/state/loupe", home);
    T_CHECK(lp_mkdir_p(state, NULL) == LP_OK);
    setenv("HOME", home, 1);
    T_CHECK_INT(lp_scan_check_root("/", state, &err), LP_EBROADROOT);
    T_CHECK(strstr(err.msg, "--allow-broad-root") != NULL);
    T_CHECK_INT(lp_scan_check_root(home, state, &err), LP_EBROADROOT);
    T_CHECK(strstr(err.msg, "--allow-broad-root") != NULL && strstr(err.msg, "home") != NULL);
    snprintf(p, sizeof p, "%s/./", home);
    T_CHECK_INT(lp_scan_check_root(p, state, &err), LP_EBROADROOT);
    T_CHECK_INT(lp_scan_check_root(state, state, &err), LP_EBROADROOT);
    T_CHECK(strstr(err.msg, "state folder") != NULL);
    snprintf(p, sizeof p, "%s/sub/deeper", state);
    T_CHECK_INT(lp_scan_check_root(p, state, &err), LP_EBROADROOT);
    T_CHECK(strstr(err.msg, "--allow-broad-root") != NULL);
    /* A parent of the state folder (below $HOME) and a project are fine. */
    snprintf(p, sizeof p, "%s/.local", home);
    T_CHECK_OK(lp_scan_check_root(p, state, &err), &err);
    snprintf(p, sizeof p, "%s/projects/app", home);
    T_CHECK_OK(lp_scan_check_root(p, state, &err), &err);
    T_CHECK_OK(lp_scan_check_root(p, NULL, &err), &err);
    /* $HOME given through a symlink is still $HOME. */
    snprintf(p, sizeof p, "%s/home-link", t->tmpdir);
    T_CHECK(symlink(home, p) == 0);
    setenv("HOME", p, 1);
    T_CHECK_INT(lp_scan_check_root(home, state, &err), LP_EBROADROOT);
    T_CHECK_INT(lp_scan_check_root("relative/dir", state, &err), LP_EPATH);
done:
    if (saved)
        setenv("HOME", saved, 1);
    else
        unsetenv("HOME");
    free(saved);
}

/* ------------------------------------------------------------------------------------------
 * Merkle. */

static lp_hash128 h_of(const char *s) { return lp_hash128_of(s, strlen(s)); }

T_TEST(scan_merkle_order_independent_and_sensitive)
{
    const char *paths[] = {"src/a.c", "src/b/c.c", "README.md", "src-x/d.c", "src/b.c", "z"};
    enum { N = LP_ARRAY_LEN(paths) };
    lp_hash128 hashes[N];
    for (size_t i = 0; i < N; i++)
        hashes[i] = h_of(paths[i]);
    lp_hash128 base = lp_merkle_root(paths, hashes, N);
    /* Every rotation and the reversal give the same root; the inputs stay untouched. */
    for (size_t rot = 0; rot < N; rot++) {
        const char *p2[N];
        lp_hash128 h2[N];
        for (size_t i = 0; i < N; i++) {
            p2[i] = paths[(i + rot) % N];
            h2[i] = hashes[(i + rot) % N];
        }
        T_CHECK(lp_hash128_eq(lp_merkle_root(p2, h2, N), base));
        for (size_t i = 0; i < N; i++) {
            p2[i] = paths[N - 1 - i];
            h2[i] = hashes[N - 1 - i];
        }
        T_CHECK(lp_hash128_eq(lp_merkle_root(p2, h2, N), base));
    }
    T_CHECK_STR(paths[0], "src/a.c");
    /* One hash changed. */
    lp_hash128 saved = hashes[2];
    hashes[2].lo ^= 1;
    T_CHECK(!lp_hash128_eq(lp_merkle_root(paths, hashes, N), base));
    hashes[2] = saved;
    /* One path changed (same hash), and a file moved between folders. */
    paths[1] = "src/b/c.h";
    T_CHECK(!lp_hash128_eq(lp_merkle_root(paths, hashes, N), base));
    paths[1] = "src/b-c.c";
    T_CHECK(!lp_hash128_eq(lp_merkle_root(paths, hashes, N), base));
    paths[1] = "src/b/c.c";
    T_CHECK(lp_hash128_eq(lp_merkle_root(paths, hashes, N), base));
    /* Fewer files. */
    T_CHECK(!lp_hash128_eq(lp_merkle_root(paths, hashes, N - 1), base));
    /* The empty set is deterministic and differs from a one-file set. */
    T_CHECK(lp_hash128_eq(lp_merkle_root(NULL, NULL, 0), lp_merkle_root(NULL, NULL, 0)));
    T_CHECK(!lp_hash128_eq(lp_merkle_root(NULL, NULL, 0), lp_merkle_root(paths, hashes, 1)));
done:;
}

static void ser_child(lp_buf *b, char kind, const char *name, lp_hash128 h)
{
    size_t n = strlen(name);
    uint8_t hdr[5] = {(uint8_t)kind, 0, 0, (uint8_t)(n >> 8), (uint8_t)n};
    uint8_t hb[16];
    lp_hash128_bytes(h, hb);
    lp_buf_append(b, hdr, 5);
    lp_buf_append(b, name, n);
    lp_buf_append(b, hb, 16);
}

T_TEST(scan_merkle_follows_documented_construction)
{
    /* {"d/b.txt", "a.txt"}: node(d) = H("LPM1" f "b.txt" h2); root = H("LPM1" f "a.txt" h1
     * d "d" node(d)), as scan.h documents. */
    const char *paths[] = {"d/b.txt", "a.txt"};
    lp_hash128 hashes[] = {h_of("two"), h_of("one")};
    lp_buf b;
    lp_buf_init(&b, 0);
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_buf_puts(&b, "LPM1");
    ser_child(&b, 'f', "b.txt", hashes[0]);
    lp_hash128 node_d = lp_hash128_of(b.ptr, b.len);
    lp_buf_reset(&b);
    lp_buf_puts(&b, "LPM1");
    ser_child(&b, 'f', "a.txt", hashes[1]);
    ser_child(&b, 'd', "d", node_d);
    lp_hash128 want = lp_hash128_of(b.ptr, b.len);
    T_CHECK(lp_hash128_eq(lp_merkle_root(paths, hashes, 2), want));
    T_CHECK(lp_hash128_eq(lp_merkle_root(NULL, NULL, 0), lp_hash128_of("LPM1", 4)));
    lp_merkle_folder *f = NULL;
    size_t nf = 0;
    lp_hash128 root = lp_merkle_folders(paths, hashes, 2, &a, &f, &nf);
    T_CHECK(lp_hash128_eq(root, want));
    T_CHECK_INT(nf, 2);
    T_CHECK_STR(f[0].path, "");
    T_CHECK(lp_hash128_eq(f[0].hash, want));
    T_CHECK_STR(f[1].path, "d");
    T_CHECK(lp_hash128_eq(f[1].hash, node_d));
done:
    lp_buf_release(&b);
    lp_arena_release(&a);
}

T_TEST(scan_merkle_folders_localize_a_change)
{
    const char *paths[] = {"x/1.c", "x/2.c", "y/1.c", "y/z/2.c", "top.c"};
    enum { N = LP_ARRAY_LEN(paths) };
    lp_hash128 hashes[N];
    for (size_t i = 0; i < N; i++)
        hashes[i] = h_of(paths[i]);
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_merkle_folder *before = NULL, *after = NULL;
    size_t nb = 0, na = 0;
    lp_merkle_folders(paths, hashes, N, &a, &before, &nb);
    hashes[3] = h_of("changed");
    lp_merkle_folders(paths, hashes, N, &a, &after, &na);
    T_CHECK_INT(nb, 4); /* "", "x", "y", "y/z" */
    T_CHECK_INT(na, 4);
    const char *want[] = {"", "x", "y", "y/z"};
    bool changed[] = {true, false, true, true};
    for (size_t i = 0; i < 4; i++) {
        T_CHECK_STR(before[i].path, want[i]);
        T_CHECK_STR(after[i].path, want[i]);
        T_CHECK_MSG(lp_hash128_eq(before[i].hash, after[i].hash) != changed[i], "folder \"%s\"",
                    want[i]);
    }
done:
    lp_arena_release(&a);
}
