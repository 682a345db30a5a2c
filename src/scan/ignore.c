/*
 * ignore.c: ignore rules with git's semantics (.gitignore, info/exclude), plus
 * .loupeignore files and the default folders. The priority order is documented in scan.h.
 *
 * A rule file is parsed once into precompiled rules that point into the file's bytes:
 * negation, dir-only and "basename only" (no slash) flags, the length of the literal
 * prefix (bytes before the first wildcard), and "*literal" suffix rules. Plain basename
 * rules without wildcards go into a small hash table per file, so a file of many literal
 * names costs one lookup; the other rules are tried last to first, stopping as soon as
 * they are older than the literal hit (the last matching line of a file wins).
 *
 * Invariants: rule lists of the folders on the stack live in the arena above each frame's
 * mark and are released by lp_ignore_pop; the defaults, the lists of folders above root
 * and info/exclude live below every mark for the object's whole life.
 */
#include "scan/scan_int.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define RULE_FILE_MAX ((size_t)4 << 20)

enum { PAT_NEGATIVE = 1u, PAT_MUSTBEDIR = 2u, PAT_NODIR = 4u, PAT_ENDSWITH = 8u };

typedef struct ign_pat {
    const char *text; /* points into the rule file's bytes; not NUL-terminated */
    uint32_t len;
    uint32_t prefix; /* bytes before the first of * ? [ \ */
    uint32_t flags;
} ign_pat;

typedef struct lit_slot {
    const char *key; /* NULL: empty slot */
    uint64_t hash;
    uint32_t len;
    int32_t any; /* index of the last literal basename rule without trailing '/', or -1 */
    int32_t dir; /* index of the last such dir-only rule, or -1 */
} lit_slot;

typedef struct ign_list {
    ign_pat *pats;
    uint32_t npats;
    uint32_t *wild; /* indices of the other rules, ascending */
    uint32_t nwild;
    lit_slot *lits; /* NULL when the file has no literal basename rule */
    uint32_t lit_mask;
    /* Where the file's folder is: at or below root, rel paths start with `baselen` bytes of
     * "folder/"; above root, `outer` is the path from that folder down to root plus '/'. */
    const char *outer;
    uint32_t outerlen;
    uint32_t baselen;
} ign_list;

typedef struct ign_frame {
    const char *dir; /* relative to root, "" for root; arena */
    size_t dirlen;
    ign_list *git;
    ign_list *loupe;
    lp_arena_mark mark;
} ign_frame;

struct lp_ignore {
    char *root;
    lp_arena arena;
    ign_list *defaults;
    LP_VEC(ign_list *) outer; /* .gitignore of folders above root, closest first */
    ign_list *exclude;        /* info/exclude */
    bool git_repo; /* root is inside a git repository that does not ignore it: only then
                      do .gitignore files apply (as ripgrep does by default) */
    LP_VEC(ign_frame) frames;
    lp_buf scratch;
    int failed_errno; /* first rule file that exists but could not be read for a reason
                         that is not its own (a limit, an I/O error): 0 when none */
};

typedef struct ign_query {
    lp_str rel;
    lp_str base;
    bool is_dir;
    bool hashed;
    uint64_t hash;
} ign_query;

static const char default_rules[] = "node_modules/\nbower_components/\n__pycache__/\n.venv/\n"
                                    ".mypy_cache/\n.pytest_cache/\n.ruff_cache/\n.tox/\n.nox/\n"
                                    ".gradle/\n.cache/\n.eggs/\n.hg/\n.svn/\n.next/\n.nuxt/\n"
                                    ".parcel-cache/\n.turbo/\n.terraform/\n.sass-cache/\n";

/* ------------------------------------------------------------------------------------------
 * Parsing. */

/* git's rule: trailing spaces go unless escaped with a backslash; a line ending in a lone
 * backslash keeps everything. */
static size_t trim_trailing_spaces(const char *s, size_t n)
{
    size_t cut = SIZE_MAX;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == ' ') {
            if (cut == SIZE_MAX)
                cut = i;
            continue;
        }
        if (s[i] == '\\' && ++i == n)
            return n;
        cut = SIZE_MAX;
    }
    return cut == SIZE_MAX ? n : cut;
}

static bool parse_rule(const char *s, size_t n, ign_pat *out)
{
    uint32_t flags = 0;
    if (n && s[0] == '!') {
        flags |= PAT_NEGATIVE;
        s++;
        n--;
    }
    if (n && s[n - 1] == '/') {
        flags |= PAT_MUSTBEDIR;
        n--;
    }
    if (n == 0 || n > LP_PATH_MAX)
        return false; /* an empty rule matches nothing in git either */
    if (!memchr(s, '/', n))
        flags |= PAT_NODIR;
    size_t prefix = 0;
    while (prefix < n && !strchr("*?[\\", s[prefix]))
        prefix++;
    if (s[0] == '*') {
        size_t k = 1;
        while (k < n && !strchr("*?[\\", s[k]))
            k++;
        if (k == n)
            flags |= PAT_ENDSWITH;
    }
    *out = (ign_pat){s, (uint32_t)n, (uint32_t)prefix, flags};
    return true;
}

static bool is_literal_basename(const ign_pat *p)
{
    return (p->flags & PAT_NODIR) && p->prefix == p->len;
}

static lit_slot *lit_find(const ign_list *l, const char *key, size_t len, uint64_t hash)
{
    for (uint32_t i = (uint32_t)hash & l->lit_mask;; i = (i + 1) & l->lit_mask) {
        lit_slot *s = &l->lits[i];
        if (!s->key || (s->hash == hash && s->len == len && !memcmp(s->key, key, len)))
            return s;
    }
}

static void index_rules(lp_arena *a, ign_list *l)
{
    uint32_t nlit = 0;
    for (uint32_t i = 0; i < l->npats; i++)
        nlit += is_literal_basename(&l->pats[i]);
    l->wild = lp_arena_alloc(a, sizeof(uint32_t) * (l->npats - nlit + 1));
    if (nlit) {
        uint32_t cap = 8;
        while (cap < 2 * nlit)
            cap *= 2;
        l->lits = lp_arena_zalloc(a, sizeof(lit_slot) * cap);
        l->lit_mask = cap - 1;
    }
    for (uint32_t i = 0; i < l->npats; i++) {
        const ign_pat *p = &l->pats[i];
        if (!is_literal_basename(p)) {
            l->wild[l->nwild++] = i;
            continue;
        }
        uint64_t h = lp_hash64_of(p->text, p->len);
        lit_slot *s = lit_find(l, p->text, p->len, h);
        if (!s->key)
            *s = (lit_slot){p->text, h, p->len, -1, -1};
        if (p->flags & PAT_MUSTBEDIR)
            s->dir = (int32_t)i;
        else
            s->any = (int32_t)i;
    }
}

/* Parse a whole rule file (bytes owned by the arena, kept alive by the list). */
static ign_list *parse_rules(lp_arena *a, const char *buf, size_t n)
{
    if (n >= 3 && !memcmp(buf, "\xEF\xBB\xBF", 3)) { /* UTF-8 byte order mark */
        buf += 3;
        n -= 3;
    }
    size_t maxrules = 1;
    for (size_t i = 0; i < n; i++)
        maxrules += buf[i] == '\n';
    ign_list *l = lp_arena_zalloc(a, sizeof *l);
    l->pats = lp_arena_alloc(a, sizeof(ign_pat) * maxrules);
    size_t i = 0;
    while (i < n) {
        const char *nl = memchr(buf + i, '\n', n - i);
        size_t end = nl ? (size_t)(nl - buf) : n;
        const char *line = buf + i;
        size_t len = end - i;
        i = end + 1;
        if (len == 0 || line[0] == '#')
            continue;
        if (line[len - 1] == '\r')
            len--;
        len = trim_trailing_spaces(line, len);
        if (parse_rule(line, len, &l->pats[l->npats]))
            l->npats++;
    }
    index_rules(a, l);
    return l;
}

/* Rules that exist but cannot be read because of a limit or an I/O error would silently
 * change what is indexed (a missing `!node_modules/` drops a folder): remembered, so the
 * walk fails instead. A missing file, a permission error or a symlink is not a failure. */
static void note_failure(lp_ignore *ig, int e, const char *name)
{
    if (ig->failed_errno || !(lp_errno_is_resource(e) || e == EIO))
        return;
    lp_log(LP_LOG_WARN, "scan.ignore_file_failed", "file=%s error=\"%s\"", name, strerror(e));
    ig->failed_errno = e;
}

/* Read a rule file at dirfd/name (never through a symlink) and parse it; NULL when it is
 * missing, not a regular file, too large or unreadable. */
static ign_list *load_rules_at(lp_ignore *ig, int dirfd, const char *name)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        note_failure(ig, errno, name);
        return NULL;
    }
    ign_list *l = NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        goto done;
    if ((uint64_t)st.st_size > RULE_FILE_MAX) {
        lp_log(LP_LOG_WARN, "scan.ignore_file_too_large", "file=%s bytes=%lld max=%zu", name,
               (long long)st.st_size, RULE_FILE_MAX);
        goto done;
    }
    size_t cap = (size_t)st.st_size, len = 0;
    char *buf = lp_arena_alloc(&ig->arena, cap + 1);
    while (len < cap) {
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            lp_log(LP_LOG_WARN, "scan.ignore_file_unreadable", "file=%s error=\"%s\"", name,
                   strerror(errno));
            note_failure(ig, errno, name);
            goto done;
        }
        if (r == 0)
            break;
        len += (size_t)r;
    }
    l = parse_rules(&ig->arena, buf, len);
done:
    close(fd);
    return l;
}

/* ------------------------------------------------------------------------------------------
 * Matching (git's match_basename / match_pathname, with their fast paths). */

static bool match_basename(const ign_pat *p, lp_str base)
{
    if (p->prefix == p->len)
        return base.len == p->len && !memcmp(base.ptr, p->text, p->len);
    if (p->flags & PAT_ENDSWITH) {
        size_t tail = p->len - 1;
        return base.len >= tail && !memcmp(base.ptr + base.len - tail, p->text + 1, tail);
    }
    return lp_wildmatch((lp_str){p->text, p->len}, base, 0);
}

/* path is relative to the rule file's folder. The literal prefix is compared first and
 * the rest handed to wildmatch, exactly as git does (this split is visible: a `**` right
 * after the literal prefix counts as being at the start). */
static bool match_pathname(const ign_pat *p, lp_str path)
{
    const char *pat = p->text;
    size_t plen = p->len, prefix = p->prefix;
    if (pat[0] == '/') {
        pat++;
        plen--;
        prefix--;
    }
    if (prefix) {
        if (prefix > path.len || memcmp(pat, path.ptr, prefix) != 0)
            return false;
        pat += prefix;
        plen -= prefix;
        path.ptr += prefix;
        path.len -= prefix;
        if (!plen && !path.len)
            return true;
    }
    return lp_wildmatch((lp_str){pat, plen}, path, LP_WILDMATCH_PATHNAME);
}

static lp_str list_relative(lp_ignore *ig, const ign_list *l, const ign_query *q)
{
    if (!l->outerlen)
        return lp_str_sub(q->rel, l->baselen, q->rel.len);
    lp_buf_reset(&ig->scratch);
    lp_buf_append(&ig->scratch, l->outer, l->outerlen);
    lp_buf_put_str(&ig->scratch, q->rel);
    return lp_buf_str(&ig->scratch);
}

/* The last rule of l matching q, or NULL. */
static const ign_pat *list_find(lp_ignore *ig, const ign_list *l, ign_query *q)
{
    int32_t best = -1;
    if (l->lits) {
        if (!q->hashed) {
            q->hash = lp_hash64_of(q->base.ptr, q->base.len);
            q->hashed = true;
        }
        const lit_slot *s = lit_find(l, q->base.ptr, q->base.len, q->hash);
        if (s->key) {
            best = s->any;
            if (q->is_dir && s->dir > best)
                best = s->dir;
        }
    }
    lp_str sub = LP_STR_NULL;
    bool have_sub = false;
    for (uint32_t k = l->nwild; k-- > 0;) {
        uint32_t i = l->wild[k];
        if ((int64_t)i < best)
            break;
        const ign_pat *p = &l->pats[i];
        if ((p->flags & PAT_MUSTBEDIR) && !q->is_dir)
            continue;
        if (p->flags & PAT_NODIR) {
            if (match_basename(p, q->base))
                return p;
            continue;
        }
        if (!have_sub) {
            sub = list_relative(ig, l, q);
            have_sub = true;
        }
        if (match_pathname(p, sub))
            return p;
    }
    return best >= 0 ? &l->pats[best] : NULL;
}

/* 1 ignored, 0 re-included, -1 no rule of l says anything. */
static int list_decide(lp_ignore *ig, const ign_list *l, ign_query *q)
{
    if (!l)
        return -1;
    const ign_pat *p = list_find(ig, l, q);
    if (!p)
        return -1;
    return (p->flags & PAT_NEGATIVE) ? 0 : 1;
}

bool lp_ignore_match(lp_ignore *ig, lp_str rel, bool is_dir)
{
    ign_query q = {rel, lp_path_basename(rel), is_dir, false, 0};
    if (lp_str_eq_c(q.base, ".git"))
        return true;
    int d;
    for (size_t f = ig->frames.len; f-- > 0;)
        if ((d = list_decide(ig, ig->frames.items[f].loupe, &q)) >= 0)
            return d;
    if ((d = list_decide(ig, ig->defaults, &q)) >= 0)
        return d;
    for (size_t f = ig->frames.len; f-- > 0;)
        if ((d = list_decide(ig, ig->frames.items[f].git, &q)) >= 0)
            return d;
    for (size_t i = 0; i < ig->outer.len; i++)
        if ((d = list_decide(ig, ig->outer.items[i], &q)) >= 0)
            return d;
    return list_decide(ig, ig->exclude, &q) == 1;
}

/* ------------------------------------------------------------------------------------------
 * The folder stack. */

void lp_ignore_push(lp_ignore *ig, lp_str dir, int dirfd, unsigned have)
{
    ign_frame f = {0};
    f.mark = lp_arena_get_mark(&ig->arena);
    f.dir = lp_arena_strndup(&ig->arena, dir.ptr, dir.len);
    f.dirlen = dir.len;
    uint32_t baselen = dir.len ? (uint32_t)dir.len + 1 : 0;
    if (dirfd >= 0 && ig->git_repo && (have & LP_IGN_HAVE_GITIGNORE))
        f.git = load_rules_at(ig, dirfd, ".gitignore");
    if (dirfd >= 0 && (have & LP_IGN_HAVE_LOUPEIGNORE))
        f.loupe = load_rules_at(ig, dirfd, ".loupeignore");
    if (f.git)
        f.git->baselen = baselen;
    if (f.loupe)
        f.loupe->baselen = baselen;
    lp_vec_push(&ig->frames, f);
}

void lp_ignore_pop(lp_ignore *ig)
{
    if (!ig->frames.len)
        return;
    ign_frame *f = &ig->frames.items[--ig->frames.len];
    lp_arena_rewind(&ig->arena, f->mark);
}

/* Push folder rel[0, len) found by path (the public query does not walk). */
static void push_by_path(lp_ignore *ig, const char *rel, size_t len)
{
    lp_buf path;
    lp_buf_init(&path, LP_PATH_MAX + 1);
    lp_buf_puts(&path, ig->root);
    if (len) {
        lp_buf_putc(&path, '/');
        lp_buf_append(&path, rel, len);
    }
    int fd = -1;
    if (!path.err)
        fd = open(path.ptr, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    lp_ignore_push(ig, (lp_str){rel, len}, fd, LP_IGN_HAVE_GITIGNORE | LP_IGN_HAVE_LOUPEIGNORE);
    if (fd >= 0)
        close(fd);
    lp_buf_release(&path);
}

static bool frame_holds(const ign_frame *f, lp_str rel)
{
    return f->dirlen == 0 || (rel.len > f->dirlen && rel.ptr[f->dirlen] == '/' &&
                              !memcmp(rel.ptr, f->dir, f->dirlen));
}

bool lp_ignore_check(lp_ignore *ig, const char *rel_c, bool is_dir)
{
    lp_str rel = lp_str_c(rel_c);
    if (!ig || !lp_path_is_clean_relative(rel))
        return false;
    if (!ig->frames.len)
        push_by_path(ig, "", 0);
    while (ig->frames.len > 1 && !frame_holds(&ig->frames.items[ig->frames.len - 1], rel))
        lp_ignore_pop(ig);
    const ign_frame *top = &ig->frames.items[ig->frames.len - 1];
    size_t pos = top->dirlen ? top->dirlen + 1 : 0;
    for (;;) {
        size_t j = lp_str_find_char(rel, '/', pos);
        if (j == SIZE_MAX)
            break;
        /* Each folder on the way is checked against its parents' rules before its own
         * rules are read: an excluded folder hides everything below it. */
        if (lp_ignore_match(ig, (lp_str){rel.ptr, j}, true))
            return true;
        push_by_path(ig, rel.ptr, j);
        pos = j + 1;
    }
    return lp_ignore_match(ig, rel, is_dir);
}

/* ------------------------------------------------------------------------------------------
 * Construction: defaults, and the repository around root (info/exclude, and the
 * .gitignore files above root when root is below the repository's top). */

static bool read_small(const char *path, lp_buf *out)
{
    lp_buf_reset(out);
    if (lp_read_file(path, 4096, out, NULL) != LP_OK)
        return false;
    lp_str s = lp_str_trim(lp_buf_str(out));
    memmove(out->ptr, s.ptr, s.len);
    lp_buf_truncate(out, s.len);
    return s.len > 0;
}

/* out = dir joined with p unless p is absolute. */
static void join_maybe(lp_buf *out, const char *dir, lp_str p)
{
    lp_buf tmp;
    lp_buf_init(&tmp, LP_PATH_MAX + 1);
    if (p.len && p.ptr[0] == '/')
        lp_buf_put_str(&tmp, p);
    else
        lp_path_join(&tmp, lp_str_c(dir), p);
    lp_buf_reset(out);
    lp_buf_put_str(out, lp_buf_str(&tmp));
    lp_buf_release(&tmp);
}

/* The git folder whose info/exclude applies to the repository whose top is `top`. */
static bool find_common_git_dir(const char *top, lp_buf *out)
{
    lp_buf dotgit, tmp;
    lp_buf_init(&dotgit, LP_PATH_MAX + 1);
    lp_buf_init(&tmp, LP_PATH_MAX + 1);
    bool ok = false;
    lp_path_join(&dotgit, lp_str_c(top), LP_STR(".git"));
    struct stat st;
    if (lstat(dotgit.ptr, &st) != 0)
        goto done;
    if (S_ISDIR(st.st_mode)) {
        lp_buf_reset(out);
        lp_buf_put_str(out, lp_buf_str(&dotgit));
    } else {
        /* A worktree or submodule: ".git" is a file "gitdir: <path>". */
        if (!read_small(dotgit.ptr, &tmp) || strncmp(tmp.ptr, "gitdir:", 7) != 0)
            goto done;
        join_maybe(out, top, lp_str_trim(lp_str_c(tmp.ptr + 7)));
        lp_path_join(&dotgit, lp_buf_str(out), LP_STR("commondir"));
        if (read_small(dotgit.ptr, &tmp)) {
            char *gitdir = lp_xstrdup(out->ptr);
            join_maybe(out, gitdir, lp_buf_str(&tmp));
            free(gitdir);
        }
    }
    ok = !out->err;
done:
    lp_buf_release(&dotgit);
    lp_buf_release(&tmp);
    return ok;
}

/* The top of the repository around root: root itself when it has .git, else the closest
 * ancestor with .git, not climbing to $HOME or above it (a dotfiles repository in $HOME
 * must not hide ordinary project folders). */
static bool find_repo_top(const char *root, lp_buf *top)
{
    lp_buf probe, home;
    lp_buf_init(&probe, LP_PATH_MAX + 1);
    lp_buf_init(&home, LP_PATH_MAX + 1);
    const char *h = getenv("HOME");
    if (!h || h[0] != '/' || lp_path_real(h, &home, NULL) != LP_OK)
        lp_buf_reset(&home);
    lp_buf_reset(top);
    lp_buf_puts(top, root);
    bool found = false;
    for (;;) {
        lp_path_join(&probe, lp_buf_str(top), LP_STR(".git"));
        struct stat st;
        if (!probe.err && lstat(probe.ptr, &st) == 0) {
            found = true;
            break;
        }
        if (top->len <= 1)
            break;
        lp_str parent = lp_path_dirname(lp_buf_str(top));
        lp_buf_truncate(top, parent.len);
        lp_str unused;
        if (home.len && lp_path_under(lp_buf_str(top), lp_buf_str(&home), &unused))
            break; /* top is $HOME or one of its parents */
    }
    lp_buf_release(&probe);
    lp_buf_release(&home);
    return found;
}

static void load_repo_rules(lp_ignore *ig)
{
    lp_buf top, gitdir, path;
    lp_buf_init(&top, LP_PATH_MAX + 1);
    lp_buf_init(&gitdir, LP_PATH_MAX + 1);
    lp_buf_init(&path, LP_PATH_MAX + 1);
    if (!find_repo_top(ig->root, &top))
        goto done;
    lp_str rootrel = LP_STR_NULL;
    if (!lp_path_under(lp_buf_str(&top), lp_str_c(ig->root), &rootrel))
        goto done;
    if (rootrel.len) {
        /* A root the user chose explicitly is never ignored as a whole: when the
         * repository around it ignores the root folder itself (a vendored tree, a corpus
         * under an ignored folder), its outer rules are not inherited at all. */
        lp_ignore *probe = lp_ignore_new(top.ptr, false);
        char *rr = lp_xstrndup(rootrel.ptr, rootrel.len);
        bool root_ignored = lp_ignore_check(probe, rr, true);
        free(rr);
        lp_ignore_free(probe);
        if (root_ignored) {
            lp_log(LP_LOG_INFO, "scan.root_ignored_by_parent",
                   "root=%s repository=%s gitignore=off", ig->root, top.ptr);
            goto done;
        }
    }
    ig->git_repo = true;
    /* Folders from root's parent up to top: their .gitignore, with the path down to root. */
    for (size_t cut = rootrel.len; rootrel.len;) {
        while (cut > 0 && rootrel.ptr[cut - 1] != '/')
            cut--;
        lp_buf_reset(&path);
        lp_buf_put_str(&path, lp_buf_str(&top));
        if (cut) {
            lp_buf_putc(&path, '/');
            lp_buf_append(&path, rootrel.ptr, cut - 1);
        }
        lp_buf_puts(&path, "/.gitignore");
        ign_list *l = path.err ? NULL : load_rules_at(ig, AT_FDCWD, path.ptr);
        if (l) {
            l->outer =
                lp_arena_printf(&ig->arena, "%.*s/", (int)(rootrel.len - cut), rootrel.ptr + cut);
            l->outerlen = (uint32_t)strlen(l->outer);
            lp_vec_push(&ig->outer, l);
        }
        if (cut == 0)
            break;
        cut--;
    }
    if (!find_common_git_dir(top.ptr, &gitdir))
        goto done;
    lp_path_join(&path, lp_buf_str(&gitdir), LP_STR("info/exclude"));
    ig->exclude = path.err ? NULL : load_rules_at(ig, AT_FDCWD, path.ptr);
    if (ig->exclude && rootrel.len) {
        ig->exclude->outer = lp_arena_printf(&ig->arena, LP_STR_FMT "/", LP_STR_ARG(rootrel));
        ig->exclude->outerlen = (uint32_t)rootrel.len + 1;
    }
done:
    lp_buf_release(&top);
    lp_buf_release(&gitdir);
    lp_buf_release(&path);
}

lp_ignore *lp_ignore_new(const char *root, bool use_defaults)
{
    lp_ignore *ig = lp_xcalloc(1, sizeof *ig);
    size_t n = strlen(root);
    while (n > 1 && root[n - 1] == '/')
        n--;
    ig->root = lp_xstrndup(root, n);
    lp_arena_init(&ig->arena, 0);
    lp_buf_init(&ig->scratch, 2 * LP_PATH_MAX + 2);
    if (use_defaults)
        ig->defaults = parse_rules(&ig->arena, default_rules, sizeof default_rules - 1);
    load_repo_rules(ig);
    return ig;
}

int lp_ignore_failed_errno(const lp_ignore *ig) { return ig ? ig->failed_errno : 0; }

void lp_ignore_free(lp_ignore *ig)
{
    if (!ig)
        return;
    lp_arena_release(&ig->arena);
    lp_vec_free(&ig->frames);
    lp_vec_free(&ig->outer);
    lp_buf_release(&ig->scratch);
    free(ig->root);
    free(ig);
}
