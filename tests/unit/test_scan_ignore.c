/*
 * test_scan_ignore.c: lp_ignore_check against `git check-ignore` on a real repository.
 *
 * The test builds a git repository in its temporary folder (nested .gitignore files,
 * .git/info/exclude, every path of the table created on disk so git sees the right file
 * types), asks `git check-ignore --no-index` about every path, and requires our answer to
 * equal git's and the table's expectation (so a silently broken git call fails too).
 */
#include "scan/scan.h"
#include "t.h"

#include <sys/stat.h>

typedef struct ign_case {
    const char *path;
    bool is_dir;
    bool ignored; /* what git says (checked against git at run time) */
} ign_case;

static const char root_gitignore[] = "# a comment line\n"
                                     "\\#hash.txt\n"
                                     "\\!bang.txt\n"
                                     "*.log\n"
                                     "!keep.log\n"
                                     "/rootonly.txt\n"
                                     "build/\n"
                                     "doc/*.pdf\n"
                                     "**/deep/target.txt\n"
                                     "logs/**\n"
                                     "!logs/important/\n"
                                     "a/**/z.txt\n"
                                     "trail1.txt   \n"
                                     "trail2.txt\\ \n"
                                     "[abc]x.c\n"
                                     "[!0-9]y.c\n"
                                     "[a-c][[:digit:]]w.c\n"
                                     "?q.md\n"
                                     "excluded_dir/\n"
                                     "!excluded_dir/reinc.txt\n"
                                     "star*/\n"
                                     "*.tmp\n"
                                     "nested/override.txt\n"
                                     "dironly/\n"
                                     "**/cache/\n"
                                     "\\*lit.txt\n"
                                     "crlf.txt\r\n"
                                     "!keep.excl\n"
                                     "foo**bar\n"
                                     "mid/*/end.txt\n"
                                     "nested/anch.txt\n"
                                     "nested/*/deep2.txt\n"
                                     "/rootdir/\n"
                                     "last-wins.txt\n"
                                     "!last-wins.txt\n"
                                     "flip.txt\n"
                                     "!flip.txt\n"
                                     "flip.txt\n"
                                     "inseg/a**b\n"
                                     "q/x**/y.txt\n"
                                     "no-newline-at-end.md";

static const char nested_gitignore[] = "!override.txt\n"
                                       "/local.txt\n"
                                       "inner/*.dat\n"
                                       "!*.log\n"
                                       "sub/\n";

static const char inner_gitignore[] = "!x.tmp\n";
static const char build_gitignore[] = "!*\n";        /* never read: build/ is excluded */
static const char excluded_gitignore[] = "!*.txt\n"; /* never read either */
static const char info_exclude[] = "*.excl\nsecret/\n";

static const ign_case cases[] = {
    {"#hash.txt", false, true},
    {"hash.txt", false, false},
    {"!bang.txt", false, true},
    {"bang.txt", false, false},
    {"debug.log", false, true},
    {"keep.log", false, false},
    {"sub1/debug.log", false, true},
    {"sub1/keep.log", false, false},
    {"sub1/x/y.log.txt", false, false},
    {"rootonly.txt", false, true},
    {"sub1/rootonly.txt", false, false},
    {"build", true, true},
    {"build/out.o", false, true},
    {"build/keep.c", false, true},
    {"sub1/build", true, true},
    {"doc/a.pdf", false, true},
    {"doc/sub/b.pdf", false, false},
    {"sub1/doc/a.pdf", false, false},
    {"deep/target.txt", false, true},
    {"x/y/deep/target.txt", false, true},
    {"x/y/deep/other.txt", false, false},
    {"logs", true, false},
    {"logs/a.txt", false, true},
    {"logs/important", true, false},
    {"logs/important/b.txt", false, true},
    {"a/z.txt", false, true},
    {"a/b/z.txt", false, true},
    {"a/b/c/z.txt", false, true},
    {"b/a/z.txt", false, false},
    {"trail1.txt", false, true},
    {"trail1.txt ", false, false},
    {"trail2.txt", false, false},
    {"trail2.txt ", false, true},
    {"ax.c", false, true},
    {"dx.c", false, false},
    {"ay.c", false, true},
    {"1y.c", false, false},
    {"b7w.c", false, true},
    {"bxw.c", false, false},
    {"aq.md", false, true},
    {"q.md", false, false},
    {"abq.md", false, false},
    {"excluded_dir", true, true},
    {"excluded_dir/reinc.txt", false, true}, /* cannot re-include below an excluded folder */
    {"excluded_dir/other.txt", false, true},
    {"starfish", true, true},
    {"startle", false, false},
    {"x.tmp", false, true},
    {"nested/inner/deep.tmp", false, true},
    {"nested/inner/x.tmp", false, false}, /* the deeper .gitignore wins */
    {"nested/override.txt", false, false},
    {"nested/local.txt", false, true},
    {"nested/inner/local.txt", false, false},
    {"nested/inner/x.dat", false, true},
    {"nested/inner/deeper/y.dat", false, false},
    {"nested/debug.log", false, false},
    {"nested/inner/trace.log", false, false},
    {"nested/sub", true, true},
    {"nested/sub/f.txt", false, true},
    {"nested/anch.txt", false, true},
    {"nested/q/deep2.txt", false, true},
    {"nested/q/r/deep2.txt", false, false},
    {"nested/b.excl", false, true},
    {"nested/secret", true, true},
    {"nested/rootdir", true, false},
    {"nested/dironly", false, false}, /* a file: dir-only rules skip it */
    {"dironly", true, true},
    {"cache", true, true},
    {"x/cache", true, true},
    {"x/cache.txt", false, false},
    {"y/cache", false, false},
    {"*lit.txt", false, true},
    {"alit.txt", false, false},
    {"crlf.txt", false, true},
    {"a.excl", false, true},
    {"keep.excl", false, false}, /* .gitignore beats info/exclude */
    {"secret", true, true},
    {"secret/s.txt", false, true},
    {"fooxbar", false, true},
    {"mid/q/end.txt", false, true},
    {"mid/q/r/end.txt", false, false},
    {"rootdir", true, true},
    {"last-wins.txt", false, false},
    {"flip.txt", false, true},
    {"no-newline-at-end.md", false, true},
    {"inseg/ax/yb", false, false}, /* ** inside a segment does not cross '/' */
    {"inseg/axyb", false, true},
    /* git compares the literal prefix "q/x" first and wildmatches the rest, where the **
     * then starts the pattern and so spans folders: */
    {"q/xa/b/y.txt", false, true},
    {"q/x/y.txt", false, true},
    {"q/xa/b/z.txt", false, false},
};

static const char git_env[] = "HOME=\"$PWD\" XDG_CONFIG_HOME=\"$PWD\" GIT_CONFIG_NOSYSTEM=1 "
                              "GIT_CONFIG_GLOBAL=/dev/null";

static lp_status write_bytes(const char *path, const char *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return LP_EIO;
    size_t w = fwrite(p, 1, n, f);
    return fclose(f) == 0 && w == n ? LP_OK : LP_EIO;
}

/* The repository: rule files and every path of the table. */
static bool build_repo(lp_t *t, const char *repo)
{
    if (lp_t_sh("cd '%s' && %s git init -q repo", t->tmpdir, git_env) != 0)
        return false;
    struct {
        const char *rel, *text;
    } files[] = {
        {"repo/.gitignore", root_gitignore},
        {"repo/nested/.gitignore", nested_gitignore},
        {"repo/nested/inner/.gitignore", inner_gitignore},
        {"repo/build/.gitignore", build_gitignore},
        {"repo/excluded_dir/.gitignore", excluded_gitignore},
        {"repo/.git/info/exclude", info_exclude},
    };
    for (size_t i = 0; i < LP_ARRAY_LEN(files); i++)
        if (lp_t_write(t, files[i].rel, files[i].text) != LP_OK)
            return false;
    lp_buf p;
    lp_buf_init(&p, 0);
    bool ok = true;
    for (size_t i = 0; i < LP_ARRAY_LEN(cases) && ok; i++) {
        lp_buf_reset(&p);
        lp_buf_printf(&p, "%s/%s", repo, cases[i].path);
        if (cases[i].is_dir)
            ok = lp_mkdir_p(p.ptr, NULL) == LP_OK;
        else
            ok = lp_t_write(t, p.ptr + strlen(t->tmpdir) + 1, "x\n") == LP_OK;
    }
    lp_buf_release(&p);
    return ok;
}

/* git's answer for every case: ignored[i]. */
static bool ask_git(lp_t *t, const char *repo, bool *ignored)
{
    lp_buf in, out, path;
    lp_buf_init(&in, 0);
    lp_buf_init(&out, 0);
    lp_buf_init(&path, 0);
    bool ok = false;
    for (size_t i = 0; i < LP_ARRAY_LEN(cases); i++)
        lp_buf_append(&in, cases[i].path, strlen(cases[i].path) + 1);
    lp_buf_printf(&path, "%s/paths", t->tmpdir);
    if (write_bytes(path.ptr, in.ptr, in.len) != LP_OK)
        goto done;
    /* Exit status 1 means "nothing ignored": fine; 128 is an error. */
    int st = lp_t_sh("cd '%s' && %s git check-ignore --no-index -z --stdin < '%s' > '%s.out'", repo,
                     git_env, path.ptr, path.ptr);
    if (st != 0 && st != 1)
        goto done;
    lp_buf_puts(&path, ".out");
    if (lp_read_file(path.ptr, 1 << 20, &out, NULL) != LP_OK)
        goto done;
    for (size_t i = 0; i < LP_ARRAY_LEN(cases); i++) {
        ignored[i] = false;
        for (size_t off = 0; off < out.len; off += strlen(out.ptr + off) + 1)
            if (!strcmp(out.ptr + off, cases[i].path))
                ignored[i] = true;
    }
    ok = true;
done:
    lp_buf_release(&in);
    lp_buf_release(&out);
    lp_buf_release(&path);
    return ok;
}

T_TEST(scan_ignore_matches_git_check_ignore)
{
    char repo[512];
    snprintf(repo, sizeof repo, "%s/repo", t->tmpdir);
    bool git[LP_ARRAY_LEN(cases)];
    lp_ignore *ig = NULL;
    T_CHECK(LP_ARRAY_LEN(cases) >= 30);
    T_CHECK(build_repo(t, repo));
    T_CHECK(ask_git(t, repo, git));
    ig = lp_ignore_new(repo, false);
    int bad = 0;
    /* Twice: in table order (the folder stack moves up and down), then again with every
     * folder's rules already loaded or released in a different pattern. */
    for (int round = 0; round < 2; round++) {
        for (size_t k = 0; k < LP_ARRAY_LEN(cases); k++) {
            size_t i = round ? LP_ARRAY_LEN(cases) - 1 - k : k;
            bool ours = lp_ignore_check(ig, cases[i].path, cases[i].is_dir);
            if (ours != git[i] || ours != cases[i].ignored) {
                lp_t_fail(t, __FILE__, __LINE__, "\"%s\"%s: loupe %d, git %d, table %d",
                          cases[i].path, cases[i].is_dir ? " (dir)" : "", ours, git[i],
                          cases[i].ignored);
                bad++;
            }
        }
    }
    T_CHECK_INT(bad, 0);
done:
    lp_ignore_free(ig);
}

/* Root below the repository's top: the .gitignore files above root and info/exclude still
 * apply, with their anchors relative to their own folders. */
T_TEST(scan_ignore_root_below_repo_top)
{
    char repo[512], sub[600];
    snprintf(repo, sizeof repo, "%s/repo", t->tmpdir);
    snprintf(sub, sizeof sub, "%s/nested", repo);
    bool git[LP_ARRAY_LEN(cases)];
    lp_ignore *ig = NULL;
    T_CHECK(build_repo(t, repo));
    T_CHECK(ask_git(t, repo, git));
    ig = lp_ignore_new(sub, false);
    int bad = 0, checked = 0;
    for (size_t i = 0; i < LP_ARRAY_LEN(cases); i++) {
        if (strncmp(cases[i].path, "nested/", 7) != 0)
            continue;
        checked++;
        bool ours = lp_ignore_check(ig, cases[i].path + 7, cases[i].is_dir);
        if (ours != git[i]) {
            lp_t_fail(t, __FILE__, __LINE__, "\"%s\" from root nested/: loupe %d, git %d",
                      cases[i].path + 7, ours, git[i]);
            bad++;
        }
    }
    T_CHECK(checked >= 15);
    T_CHECK_INT(bad, 0);
done:
    lp_ignore_free(ig);
}

/* A root under a folder its repository ignores is indexed as chosen: the outer rules that
 * would hide it all are not inherited; a root that is not ignored still inherits them. */
T_TEST(scan_ignore_root_inside_ignored_folder)
{
    lp_ignore *inside = NULL, *plain = NULL;
    char root_in[600], root_plain[600];
    T_CHECK(lp_t_sh("cd '%s' && git init -q repo", t->tmpdir) == 0);
    T_CHECK_OK(lp_t_write(t, "repo/.gitignore", "corpora/\n*.log\n"), &(lp_error){0});
    T_CHECK_OK(lp_t_write(t, "repo/corpora/linux/kernel/sched.c", "x\n"), &(lp_error){0});
    T_CHECK_OK(lp_t_write(t, "repo/src/app/main.c", "x\n"), &(lp_error){0});
    snprintf(root_in, sizeof root_in, "%s/repo/corpora/linux", t->tmpdir);
    snprintf(root_plain, sizeof root_plain, "%s/repo/src", t->tmpdir);
    inside = lp_ignore_new(root_in, false);
    T_CHECK(!lp_ignore_check(inside, "kernel/sched.c", false));
    T_CHECK(!lp_ignore_check(inside, "kernel/trace.log", false)); /* outer rules not inherited */
    plain = lp_ignore_new(root_plain, false);
    T_CHECK(!lp_ignore_check(plain, "app/main.c", false));
    T_CHECK(lp_ignore_check(plain, "app/trace.log", false)); /* inherited as git does */
done:
    lp_ignore_free(inside);
    lp_ignore_free(plain);
}

/* Outside any git repository .gitignore files mean nothing (as for git and ripgrep), while
 * .loupeignore files and the defaults still apply. */
T_TEST(scan_ignore_gitignore_only_inside_a_repository)
{
    lp_ignore *ig = NULL;
    T_CHECK_OK(lp_t_write(t, "tree/.gitignore", "/*\n!/debian/\n"), &(lp_error){0});
    T_CHECK_OK(lp_t_write(t, "tree/sub/.loupeignore", "*.bak\n"), &(lp_error){0});
    char root[600];
    snprintf(root, sizeof root, "%s/tree", t->tmpdir);
    ig = lp_ignore_new(root, true);
    T_CHECK(!lp_ignore_check(ig, "kernel/sched.c", false));
    T_CHECK(lp_ignore_check(ig, "sub/old.bak", false));
    T_CHECK(lp_ignore_check(ig, "node_modules", true));
    lp_ignore_free(ig);
    ig = NULL;
    T_CHECK(lp_t_sh("git init -q '%s'", root) == 0);
    ig = lp_ignore_new(root, true);
    T_CHECK(lp_ignore_check(ig, "kernel/sched.c", false)); /* now a repository: git's answer */
    T_CHECK(!lp_ignore_check(ig, "debian/control", false));
done:
    lp_ignore_free(ig);
}

/* The walk pushes folders itself: its result must agree with lp_ignore_check and git. */
T_TEST(scan_ignore_walk_agrees_with_git)
{
    char repo[512];
    snprintf(repo, sizeof repo, "%s/repo", t->tmpdir);
    bool git[LP_ARRAY_LEN(cases)];
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err = {0};
    lp_scan_result res;
    T_CHECK(build_repo(t, repo));
    T_CHECK(ask_git(t, repo, git));
    lp_scan_opts opts = {0};
    T_CHECK_OK(lp_scan_walk(repo, &opts, &a, &res, &err), &err);
    int bad = 0;
    for (size_t i = 0; i < LP_ARRAY_LEN(cases); i++) {
        if (cases[i].is_dir)
            continue;
        bool listed = false;
        for (size_t k = 0; k < res.nentries; k++)
            listed |= !strcmp(res.entries[k].path, cases[i].path);
        if (listed == git[i]) {
            lp_t_fail(t, __FILE__, __LINE__, "walk %s \"%s\" but git says ignored=%d",
                      listed ? "lists" : "drops", cases[i].path, git[i]);
            bad++;
        }
    }
    T_CHECK_INT(bad, 0);
done:
    lp_arena_release(&a);
}

T_TEST(scan_ignore_defaults_and_loupeignore)
{
    lp_ignore *on = NULL, *off = NULL, *re = NULL;
    T_CHECK(lp_t_sh("git init -q '%s'", t->tmpdir) == 0); /* .gitignore needs a repository */
    T_CHECK(lp_t_write(t, "a/.gitignore", "*.gen\n!*/\n") == LP_OK);
    T_CHECK(lp_t_write(t, "b/.loupeignore", "!node_modules/\n!*.gen\nprivate.txt\n") == LP_OK);
    on = lp_ignore_new(t->tmpdir, true);
    off = lp_ignore_new(t->tmpdir, false);
    T_CHECK(lp_ignore_check(on, "node_modules", true));
    T_CHECK(lp_ignore_check(on, "x/node_modules/p/index.js", false));
    T_CHECK(!lp_ignore_check(on, "node_modules", false)); /* a file of that name */
    T_CHECK(lp_ignore_check(on, "__pycache__", true));
    T_CHECK(lp_ignore_check(on, ".venv", true));
    T_CHECK(lp_ignore_check(on, "p/.mypy_cache", true));
    T_CHECK(lp_ignore_check(on, ".pytest_cache", true));
    T_CHECK(lp_ignore_check(on, ".tox", true));
    T_CHECK(lp_ignore_check(on, ".gradle", true));
    T_CHECK(lp_ignore_check(on, ".cache", true));
    T_CHECK(!lp_ignore_check(off, "node_modules", true));
    /* .git is never walked, defaults or not. */
    T_CHECK(lp_ignore_check(off, ".git", true));
    T_CHECK(lp_ignore_check(off, "sub/.git", false));
    /* A whitelist .gitignore ("!*" + "/") cannot pull a default folder back in. */
    T_CHECK(lp_ignore_check(on, "a/node_modules", true));
    T_CHECK(lp_ignore_check(on, "a/x.gen", false));
    /* .loupeignore: highest priority, re-includes a default and a git-ignored path. */
    T_CHECK(!lp_ignore_check(on, "b/node_modules", true));
    T_CHECK(!lp_ignore_check(on, "b/node_modules/m.js", false));
    T_CHECK(lp_ignore_check(on, "b/private.txt", false));
    T_CHECK(!lp_ignore_check(on, "b/public.txt", false));
    lp_ignore_free(on);
    on = NULL;
    T_CHECK(lp_t_write(t, ".gitignore", "*.gen\n") == LP_OK);
    T_CHECK(lp_t_write(t, "b/.loupeignore", "!*.gen\n") == LP_OK);
    re = lp_ignore_new(t->tmpdir, true);
    T_CHECK(lp_ignore_check(re, "x.gen", false));
    T_CHECK(!lp_ignore_check(re, "b/x.gen", false));
    T_CHECK(!lp_ignore_check(re, "", false));
    T_CHECK(!lp_ignore_check(re, "../x.gen", false));
done:
    lp_ignore_free(on);
    lp_ignore_free(off);
    lp_ignore_free(re);
}

T_TEST(scan_ignore_worktree_info_exclude)
{
    /* A linked worktree: .git is a file; info/exclude lives in the common git folder. */
    char repo[512], wt[600];
    snprintf(repo, sizeof repo, "%s/main", t->tmpdir);
    snprintf(wt, sizeof wt, "%s/wt", t->tmpdir);
    lp_ignore *ig = NULL;
    T_CHECK(lp_t_sh("cd '%s' && %s git init -q main && cd main && %s git -c user.name=t "
                    "-c user.email=t@t commit -q --allow-empty -m x && %s git worktree add "
                    "-q ../wt 2>/dev/null",
                    t->tmpdir, git_env, git_env, git_env) == 0);
    T_CHECK(lp_t_write(t, "main/.git/info/exclude", "*.wtx\n") == LP_OK);
    ig = lp_ignore_new(wt, true);
    T_CHECK(lp_ignore_check(ig, "a.wtx", false));
    T_CHECK(!lp_ignore_check(ig, "a.txt", false));
done:
    lp_ignore_free(ig);
}
