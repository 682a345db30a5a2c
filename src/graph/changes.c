/*
 * changes.c: detect_changes: the diff between baseRef (default HEAD) and the working tree
 * (tracked files: staged and unstaged edits; untracked files are not part of it), mapped to
 * the symbols of the current publication whose spans the hunks touch, their callers over
 * proved CALLS edges up to depth 3 with the paths that reach them, and the symbols the
 * change deleted (found by parsing the base version).
 *
 * Line numbers of the working tree match the publication only when the file was synced
 * after the edit: files whose bytes differ from the publication are reported stale and
 * their symbol mapping approximate.
 */
#include "graph/graph_int.h"
#include "scan/scan.h"

#include <git2.h>
#include <pthread.h>

/* libgit2 is opened on the first detect_changes (core.h, lp_dynlib_load), not linked: its
 * dependency tree is most of the libraries the loader would map at every start. */
#ifndef LP_SONAME_GIT2
#define LP_SONAME_GIT2 "libgit2.so"
#endif
#define GIT_FNS(X) \
    X(git_blob_free) \
    X(git_blob_lookup) \
    X(git_blob_rawcontent) \
    X(git_blob_rawsize) \
    X(git_diff_find_options_init) \
    X(git_diff_find_similar) \
    X(git_diff_foreach) \
    X(git_diff_free) \
    X(git_diff_options_init) \
    X(git_diff_tree_to_workdir_with_index) \
    X(git_error_last) \
    X(git_libgit2_init) \
    X(git_libgit2_shutdown) \
    X(git_object_free) \
    X(git_object_id) \
    X(git_object_peel) \
    X(git_oid_tostr) \
    X(git_repository_free) \
    X(git_repository_is_bare) \
    X(git_repository_open_ext) \
    X(git_repository_workdir) \
    X(git_revparse_single)

static struct {
#define X(fn) __typeof__(fn) *fn;
    GIT_FNS(X)
#undef X
} G;

static pthread_once_t git_once = PTHREAD_ONCE_INIT;
static lp_status git_rc;
static lp_error git_err;

static void git_load(void)
{
    static const char *const sonames[] = {LP_SONAME_GIT2, "libgit2.so", NULL};
    static const char *const names[] = {
#define X(fn) #fn,
        GIT_FNS(X)
#undef X
    };
    lp_dynfn f[LP_ARRAY_LEN(names)];
    git_rc = lp_dynlib_load(sonames, names, f, LP_ARRAY_LEN(names),
                            "detect_changes (loupe changes)", "libgit2-1.5", &git_err);
    if (git_rc)
        return;
    size_t i = 0;
#define X(fn) G.fn = (__typeof__(G.fn))f[i++];
    GIT_FNS(X)
#undef X
}

typedef struct hunk {
    int old_start, old_lines, new_start, new_lines;
} hunk;

typedef struct dfile {
    char *path;     /* relative to the codebase root (new side, or old for deletions) */
    char *old_path; /* relative to the root; NULL when outside it */
    git_delta_t status;
    git_oid old_id;
    LP_VEC(hunk) hunks;
} dfile;

typedef struct dctx {
    const char *prefix; /* the root relative to the repository's work tree ("" or "a/b/") */
    LP_VEC(dfile) files;
    size_t max_files;
    bool cut;
} dctx;

static char *under_root(const dctx *d, const char *repo_path)
{
    if (!repo_path)
        return NULL;
    size_t pl = strlen(d->prefix);
    if (pl && strncmp(repo_path, d->prefix, pl) != 0)
        return NULL;
    return lp_xstrdup(repo_path + pl);
}

static int on_file(const git_diff_delta *delta, float progress, void *payload)
{
    (void)progress;
    dctx *d = payload;
    char *np = under_root(d, delta->new_file.path), *op = under_root(d, delta->old_file.path);
    if (!np && !op)
        return 0;
    if (d->files.len >= d->max_files) {
        d->cut = true;
        free(np);
        free(op);
        return 0;
    }
    dfile *f = lp_vec_push_zero(&d->files);
    f->status = delta->status;
    if (delta->status == GIT_DELTA_DELETED) {
        f->path = op ? op : np;
        if (op)
            free(np);
        f->old_path = lp_xstrdup(f->path);
    } else {
        f->path = np ? np : lp_xstrdup(op);
        f->old_path = op; /* NULL when the old side is outside the root */
    }
    f->old_id = delta->old_file.id;
    return 0;
}

static int on_hunk(const git_diff_delta *delta, const git_diff_hunk *h, void *payload)
{
    dctx *d = payload;
    if (!d->files.len)
        return 0;
    dfile *f = &d->files.items[d->files.len - 1];
    char *np = under_root(d, delta->status == GIT_DELTA_DELETED ? delta->old_file.path
                                                                : delta->new_file.path);
    bool mine = np && !strcmp(np, f->path);
    free(np);
    if (mine)
        lp_vec_push(&f->hunks, ((hunk){h->old_start, h->old_lines, h->new_start, h->new_lines}));
    return 0;
}

static void dctx_free(dctx *d)
{
    for (size_t i = 0; i < d->files.len; i++) {
        dfile *f = &d->files.items[i];
        free(f->old_path);
        free(f->path);
        lp_vec_free(&f->hunks);
    }
    lp_vec_free(&d->files);
}

static const char *status_name(git_delta_t s)
{
    switch (s) {
    case GIT_DELTA_ADDED: return "added";
    case GIT_DELTA_DELETED: return "deleted";
    case GIT_DELTA_RENAMED: return "renamed";
    case GIT_DELTA_COPIED: return "copied";
    case GIT_DELTA_TYPECHANGE: return "typechange";
    default: return "modified";
    }
}

static lp_status git_fail(lp_error *err, const char *what)
{
    const git_error *e = G.git_error_last();
    return lp_error_set(err, LP_ERROR, "%s: %s", what, e && e->message ? e->message : "git error");
}

/* Published symbols of a file (rows in arena). */
typedef LP_VEC(gq_sym) sym_vec;

static lp_status file_symbols(lp_store *st, const char *path, lp_arena *a, int64_t *fid,
                              lp_hash128 *hash, sym_vec *out, lp_error *err)
{
    *fid = 0;
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(st,
                                    "SELECT f.fid, b.hash FROM files f JOIN blobs b USING(bid)"
                                    " WHERE f.path = ?1",
                                    &s, err);
    if (rc)
        return rc;
    sqlite3_bind_text(s, 1, path, -1, SQLITE_STATIC);
    if (sqlite3_step(s) == SQLITE_ROW) {
        *fid = sqlite3_column_int64(s, 0);
        if (sqlite3_column_bytes(s, 1) == 16)
            *hash = lp_hash128_from_bytes(sqlite3_column_blob(s, 1));
    }
    sqlite3_reset(s);
    if (!*fid)
        return LP_OK;
    LP_VEC(int32_t) ords = {0};
    if ((rc = lp_store_prepare(st,
                               "SELECT s.ord FROM files f JOIN symbols s ON s.bid = f.bid WHERE"
                               " f.fid = ?1 ORDER BY s.ord",
                               &s, err)))
        return rc;
    sqlite3_bind_int64(s, 1, *fid);
    while (sqlite3_step(s) == SQLITE_ROW)
        lp_vec_push(&ords, sqlite3_column_int(s, 0));
    sqlite3_reset(s);
    for (size_t i = 0; i < ords.len && !rc; i++)
        rc = lp_gq_symbol_at(st, *fid, ords.items[i], a, lp_vec_push_zero(out), err);
    lp_vec_free(&ords);
    return rc;
}

/* Callers of the seeds, breadth first, over proved CALLS edges. */
typedef struct cnode {
    int64_t fid;
    int32_t ord;
    int depth;
    int32_t parent; /* toward the seed */
    int32_t seed;
    int rule;
    int32_t ref;
} cnode;

lp_status lp_graph_detect_changes(const lp_graph_call *call, json_t **out, lp_error *err)
{
    *out = NULL;
    lp_store *st = call->st;
    const char *base = lp_gq_arg_str(call->args, "baseRef");
    if (!base || !*base)
        base = "HEAD";
    int max_depth = (int)lp_gq_arg_int(call->args, "maxDepth", LP_GRAPH_CHANGES_DEPTH_MAX, 1,
                                     LP_GRAPH_CHANGES_DEPTH_MAX);
    size_t max_callers = (size_t)lp_gq_arg_int(call->args, "maxCallers", LP_GRAPH_CHANGES_CALLERS_DEFAULT,
                                               1, LP_GRAPH_CHANGES_CALLERS_MAX);
    size_t max_files = (size_t)lp_gq_arg_int(call->args, "maxFiles", LP_GRAPH_CHANGES_FILES_DEFAULT, 1,
                                             LP_GRAPH_CHANGES_FILES_MAX);
    pthread_once(&git_once, git_load);
    if (git_rc) {
        if (err)
            *err = git_err;
        return git_rc;
    }
    G.git_libgit2_init();
    git_repository *repo = NULL;
    git_object *obj = NULL, *treeobj = NULL;
    git_diff *diff = NULL;
    dctx d;
    memset(&d, 0, sizeof d);
    d.max_files = max_files;
    lp_arena arena;
    lp_arena_init(&arena, 0);
    lp_buf work, prefix, disk;
    lp_buf_init(&work, 0);
    lp_buf_init(&prefix, 0);
    lp_buf_init(&disk, 0);
    json_t *res = json_object();
    json_object_set_new(res, "warnings", json_array());
    /* The lists are filled after res holds them: this function keeps its own reference
     * (json_object_set, released at done), never one it handed to jansson. */
    json_t *files = NULL, *changed = NULL, *deleted = NULL, *callers = NULL;
    LP_VEC(cnode) nodes = {0};
    lp_status rc = LP_OK;
    const char *root = lp_store_root(st);
    if (G.git_repository_open_ext(&repo, root, 0, NULL) != 0) {
        rc = lp_error_set(err, LP_EUNSUPPORTED,
                          "%s is not inside a git repository: detect_changes needs git history; "
                          "use find_references or call_graph on the symbols you edited",
                          root);
        goto done;
    }
    if (G.git_repository_is_bare(repo)) {
        rc = lp_error_set(err, LP_EUNSUPPORTED, "the repository of %s is bare (no work tree)", root);
        goto done;
    }
    if ((rc = lp_path_real(G.git_repository_workdir(repo), &work, err)))
        goto done;
    lp_str rel;
    if (!lp_path_under(lp_buf_str(&work), lp_str_c(root), &rel)) {
        rc = lp_error_set(err, LP_ERROR, "the codebase root %s is outside its repository's work "
                                         "tree %s",
                          root, work.ptr);
        goto done;
    }
    if (rel.len) {
        lp_buf_put_str(&prefix, rel);
        lp_buf_putc(&prefix, '/');
    }
    d.prefix = prefix.ptr;
    if (G.git_revparse_single(&obj, repo, base) != 0) {
        rc = lp_error_set(err, LP_EINVAL,
                          "baseRef '%s' names no commit in %s (%s); use a branch, tag or commit "
                          "that exists, or HEAD",
                          base, work.ptr, G.git_error_last() ? G.git_error_last()->message : "");
        goto done;
    }
    if (G.git_object_peel(&treeobj, obj, GIT_OBJECT_TREE) != 0) {
        rc = git_fail(err, "reading the base tree");
        goto done;
    }
    git_diff_options opts;
    G.git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
    opts.context_lines = 0;
    char *pathspec = prefix.len ? prefix.ptr : NULL;
    if (pathspec) {
        opts.pathspec.strings = &pathspec;
        opts.pathspec.count = 1;
    }
    if (G.git_diff_tree_to_workdir_with_index(&diff, repo, (git_tree *)treeobj, &opts) != 0) {
        rc = git_fail(err, "computing the diff");
        goto done;
    }
    git_diff_find_options fo;
    G.git_diff_find_options_init(&fo, GIT_DIFF_FIND_OPTIONS_VERSION);
    fo.flags = GIT_DIFF_FIND_RENAMES;
    G.git_diff_find_similar(diff, &fo);
    if (G.git_diff_foreach(diff, on_file, NULL, on_hunk, NULL, &d) != 0) {
        rc = git_fail(err, "reading the diff");
        goto done;
    }

    files = json_array();
    changed = json_array();
    deleted = json_array();
    json_object_set(res, "changedFiles", files);
    json_object_set(res, "changedSymbols", changed);
    json_object_set(res, "deletedSymbols", deleted);
    size_t nstale = 0, nmissing = 0;
    for (size_t i = 0; i < d.files.len && !rc; i++) {
        dfile *f = &d.files.items[i];
        if (lp_graph_call_cancelled(call)) {
            rc = lp_error_set(err, LP_ECANCELED, "detect_changes was cancelled");
            break;
        }
        int64_t fid = 0;
        lp_hash128 pubhash = {0, 0};
        sym_vec syms = {0};
        bool deleted_file = f->status == GIT_DELTA_DELETED;
        if ((rc = file_symbols(st, f->path, &arena, &fid, &pubhash, &syms, err)))
            break;
        /* freshness: the bytes on disk against the publication */
        bool stale = false;
        /* the scanner's read: never through a symlink out of the root, never blocking on a
         * fifo, regular files only, bounded */
        lp_error rerr;
        lp_skip_reason skip = LP_SKIP_NONE;
        bool on_disk = lp_scan_read(root, f->path, LP_SCAN_MAX_FILE_BYTES, &disk, &skip, &rerr) ==
                           LP_OK &&
                       skip == LP_SKIP_NONE;
        if (fid && on_disk)
            stale = !lp_hash128_eq(lp_hash128_of(disk.ptr, disk.len), pubhash);
        else if (fid && !on_disk)
            stale = true; /* deleted on disk, still published */
        if (stale)
            nstale++;
        if (!fid && !deleted_file)
            nmissing++;
        json_t *hj = json_array();
        for (size_t k = 0; k < f->hunks.len; k++)
            json_array_append_new(hj, lp_json_pack("{s:i, s:i, s:i, s:i}", "oldStart",
                                                f->hunks.items[k].old_start, "oldLines",
                                                f->hunks.items[k].old_lines, "newStart",
                                                f->hunks.items[k].new_start, "newLines",
                                                f->hunks.items[k].new_lines));
        json_t *fj = lp_json_pack("{s:s, s:b, s:b, s:o}", "status",
                               status_name(f->status), "inPublication", fid != 0, "stale", stale,
                               "hunks", hj);
        lp_gq_with_file(fj, "file", f->path);
        if (f->old_path && strcmp(f->old_path, f->path) != 0)
            lp_gq_with_file(fj, "oldFile", f->old_path);
        json_array_append_new(files, fj);
        /* symbols the new side of the hunks touches (innermost ones) */
        if (fid && !deleted_file) {
            for (size_t k = 0; k < syms.len; k++) {
                const gq_sym *s = &syms.items[k];
                bool touched = false;
                for (size_t h = 0; h < f->hunks.len && !touched; h++) {
                    int a = f->hunks.items[h].new_start, b = a + f->hunks.items[h].new_lines - 1;
                    if (b < a)
                        b = a;
                    if ((int)s->start_line > b || (int)s->end_line < a)
                        continue;
                    /* a child touching the same hunk takes it */
                    bool child = false;
                    for (size_t c = 0; c < syms.len && !child; c++)
                        child = syms.items[c].parent == s->ord &&
                                (int)syms.items[c].start_line <= b && (int)syms.items[c].end_line >= a;
                    touched = !child;
                }
                if (!touched)
                    continue;
                json_t *sj = lp_gq_sym_json(s);
                json_object_set_new(sj, "change", lp_json_textz(f->status == GIT_DELTA_ADDED ? "added" : "modified"));
                json_object_set_new(sj, "approximate", json_boolean(stale));
                json_array_append_new(changed, sj);
                lp_vec_push(&nodes, ((cnode){fid, s->ord, 0, -1, (int32_t)nodes.len, 0, -1}));
            }
        }
        /* deleted symbols: in the base version, absent from the publication */
        if (f->old_path && f->status != GIT_DELTA_ADDED) {
            git_blob *blob = NULL;
            if (G.git_blob_lookup(&blob, repo, &f->old_id) == 0) {
                lp_str content = {G.git_blob_rawcontent(blob), (size_t)G.git_blob_rawsize(blob)};
                lp_lang lang = lp_lang_detect(lp_str_c(f->old_path),
                                              lp_str_sub(content, 0, LP_MIN(content.len, (size_t)4096)));
                lp_arena pa;
                lp_arena_init(&pa, 0);
                lp_parse_result pr;
                lp_parse_opts popts = {.no_refs = true};
                if (lp_lang_has_symbols(lang) &&
                    lp_parse(lang, content, &popts, &pa, &pr, NULL) == LP_OK) {
                    for (size_t k = 0; k < pr.nsymbols; k++) {
                        const lp_symbol *y = &pr.symbols[k];
                        bool present = false;
                        for (size_t c = 0; c < syms.len && !present; c++)
                            present = syms.items[c].kind == (int)y->kind &&
                                      !strcmp(syms.items[c].qname, y->qname);
                        if (present || json_array_size(deleted) >= 500)
                            continue;
                        json_array_append_new(
                            deleted,
                            lp_gq_with_file(lp_json_pack("{s:o, s:o, s:s, s:i, s:i}", "name",
                                                      lp_gq_json_str(y->name), "qualifiedName",
                                                      lp_gq_json_str(y->qname), "kind",
                                                      lp_symkind_name(y->kind), "baseStartLine",
                                                      (int)y->span.start_line, "baseEndLine",
                                                      (int)y->span.end_line),
                                         "file", f->old_path));
                    }
                }
                lp_arena_release(&pa);
                G.git_blob_free(blob);
            }
        }
        lp_vec_free(&syms);
    }
    if (rc)
        goto done;

    /* callers of the touched symbols */
    size_t nseeds = nodes.len, direct = 0, transitive = 0;
    bool cut_callers = false;
    lp_map seen = {0};
    for (size_t i = 0; i < nodes.len; i++) {
        char key[48];
        int kl = snprintf(key, sizeof key, "%lld:%d", (long long)nodes.items[i].fid, nodes.items[i].ord);
        lp_map_put(&seen, &arena, key, (size_t)kl, NULL);
    }
    for (size_t i = 0; i < nodes.len && !rc; i++) {
        cnode cur = nodes.items[i];
        if (cur.depth >= max_depth)
            continue;
        sqlite3_stmt *s;
        if ((rc = lp_store_prepare(st,
                                   "SELECT src_fid, src_ord, rule, ref_ord FROM edges WHERE dst_fid = ?1"
                                   " AND dst_ord = ?2 AND kind = 0 AND rule <> 0"
                                   " ORDER BY src_fid, src_ord, ref_ord",
                                   &s, err)))
            break;
        sqlite3_bind_int64(s, 1, cur.fid);
        sqlite3_bind_int(s, 2, cur.ord);
        while (sqlite3_step(s) == SQLITE_ROW) {
            cnode n = {sqlite3_column_int64(s, 0), sqlite3_column_int(s, 1), cur.depth + 1,
                       (int32_t)i, cur.seed, sqlite3_column_int(s, 2), sqlite3_column_int(s, 3)};
            char key[48];
            int kl = snprintf(key, sizeof key, "%lld:%d", (long long)n.fid, n.ord);
            if (lp_map_get(&seen, key, (size_t)kl))
                continue;
            if (nodes.len - nseeds >= max_callers) {
                cut_callers = true;
                continue;
            }
            lp_map_put(&seen, &arena, key, (size_t)kl, NULL);
            lp_vec_push(&nodes, n);
        }
        sqlite3_reset(s);
    }
    lp_map_free(&seen);
    if (rc)
        goto done;
    callers = json_array();
    json_object_set(res, "callers", callers);
    for (size_t i = nseeds; i < nodes.len && !rc; i++) {
        const cnode *n = &nodes.items[i];
        gq_sym s;
        if ((rc = lp_gq_symbol_at(st, n->fid, n->ord, &arena, &s, err)))
            break;
        json_t *cj = lp_gq_sym_json(&s);
        json_object_set_new(cj, "depth", json_integer(n->depth));
        json_object_set_new(cj, "relation", lp_json_textz(n->depth == 1 ? "direct" : "transitive"));
        json_object_set_new(cj, "evidence", json_string("proved"));
        char strat[96];
        snprintf(strat, sizeof strat, "%s.%s", lp_lang_name(s.lang), lp_gr_rule_name((gr_rule)n->rule));
        json_object_set_new(cj, "strategy", lp_json_textz(strat));
        json_t *path = json_array();
        for (int32_t k = (int32_t)i; k >= 0; k = nodes.items[k].parent) {
            gq_sym ps;
            if (lp_gq_symbol_at(st, nodes.items[k].fid, nodes.items[k].ord, &arena, &ps, NULL))
                break;
            json_t *pj = lp_gq_sym_json(&ps);
            json_array_append(path, json_object_get(pj, "id"));
            json_decref(pj);
        }
        json_object_set_new(cj, "path", path);
        json_array_append_new(callers, cj);
        if (n->depth == 1)
            direct++;
        else
            transitive++;
    }
    if (rc)
        goto done;
    /* call sites that may call a touched symbol but prove nothing */
    size_t ambiguous = 0;
    for (size_t i = 0; i < nseeds; i++) {
        sqlite3_stmt *s;
        if (lp_store_prepare(st,
                             "SELECT count(*) FROM edges WHERE dst_fid = ?1 AND dst_ord = ?2 AND"
                             " kind = 0 AND rule = 0",
                             &s, NULL))
            break;
        sqlite3_bind_int64(s, 1, nodes.items[i].fid);
        sqlite3_bind_int(s, 2, nodes.items[i].ord);
        if (sqlite3_step(s) == SQLITE_ROW)
            ambiguous += (size_t)sqlite3_column_int64(s, 0);
        sqlite3_reset(s);
    }
    char oid[GIT_OID_HEXSZ + 1];
    G.git_oid_tostr(oid, sizeof oid, G.git_object_id(obj));
    json_object_set_new(res, "baseRef", lp_json_textz(base));
    json_object_set_new(res, "baseCommit", lp_json_textz(oid));
    json_object_set_new(
        res, "summary",
        lp_json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i}", "files", (int)d.files.len,
                  "changedSymbols", (int)json_array_size(changed), "deletedSymbols",
                  (int)json_array_size(deleted), "directCallers", (int)direct, "transitiveCallers",
                  (int)transitive, "ambiguousCallSites", (int)ambiguous, "staleFiles", (int)nstale,
                  "missingFiles", (int)nmissing));
    json_object_set_new(res, "truncation",
                        lp_json_pack("{s:b, s:b}", "files", d.cut, "callers", cut_callers));
    if (nstale)
        lp_gq_warn(res, LP_WARN_STALE_FILES,
                "%zu changed file(s) differ from the publication: their symbol spans are "
                "approximate; sync the index and call again",
                nstale);
    if (nmissing)
        lp_gq_warn(res, LP_WARN_FILES_NOT_INDEXED,
                "%zu changed file(s) are not in the publication (new, ignored or skipped); sync "
                "the index to map them",
                nmissing);
    if (d.cut)
        lp_gq_warn(res, LP_WARN_FILES_TRUNCATED, "the diff has more than %zu files; raise maxFiles", max_files);
    if (cut_callers)
        lp_gq_warn(res, LP_WARN_CALLERS_TRUNCATED, "more than %zu callers; raise maxCallers", max_callers);
    lp_gq_warn(res, LP_WARN_SCOPE,
            "tracked files only (staged and unstaged edits against %s); untracked files are not "
            "included; callers come from proved CALLS edges up to depth %d, and %zu ambiguous call "
            "site(s) may also reach the changed symbols; deleted symbols have no callers in the "
            "graph (their call sites are unresolved now)",
            base, max_depth, ambiguous);
done:
    json_decref(files);
    json_decref(changed);
    json_decref(deleted);
    json_decref(callers);
    lp_vec_free(&nodes);
    dctx_free(&d);
    G.git_diff_free(diff);
    G.git_object_free(treeobj);
    G.git_object_free(obj);
    G.git_repository_free(repo);
    G.git_libgit2_shutdown();
    lp_buf_release(&work);
    lp_buf_release(&prefix);
    lp_buf_release(&disk);
    lp_arena_release(&arena);
    if (rc) {
        json_decref(res);
        return rc;
    }
    *out = res;
    return LP_OK;
}
