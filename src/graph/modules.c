/*
 * modules.c: which files a module name, package path or #include names, per language.
 * The rules are documented in docs/graph-rules.md ("Modules"). Results are sorted file
 * indexes; several files mean "several candidates" unless the language defines a module as
 * several files (a Go package, a Rust module split... only Go here).
 *
 * Every answer depends only on the set of paths (and go.mod / Cargo.toml contents, the
 * package clauses of Go files): incremental rebuilds re-resolve imports whose last
 * segment names an added or deleted file (see update.c).
 */
#include "graph/graph_int.h"

#include <stdlib.h>

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void sort_unique(gfiles *out)
{
    if (out->len < 2)
        return;
    qsort(out->items, out->len, sizeof out->items[0], u32_cmp);
    size_t k = 1;
    for (size_t i = 1; i < out->len; i++)
        if (out->items[i] != out->items[k - 1])
            out->items[k++] = out->items[i];
    out->len = k;
}

/* Cached results: key -> list in mod_lists. Returns true (and fills out) on a hit. */
static bool cache_get(gview *v, const char *key, size_t klen, gfiles *out)
{
    uint32_t *p = lp_map_get(&v->mod_cache, key, klen);
    if (!p)
        return false;
    const u32_vec *l = &v->mod_lists.items[*p];
    for (size_t i = 0; i < l->len; i++)
        lp_vec_push(out, l->items[i]);
    return true;
}

static void cache_put(gview *v, const char *key, size_t klen, const gfiles *in)
{
    bool created = false;
    uint32_t *slot = lp_map_put(&v->mod_cache, &v->arena, key, klen, &created);
    if (!created)
        return;
    u32_vec l = {0};
    for (size_t i = 0; i < in->len; i++)
        lp_vec_push(&l, in->items[i]);
    *slot = (uint32_t)v->mod_lists.len;
    lp_vec_push(&v->mod_lists, l);
}

/* Normalized join of dir and rel ("a/b" + "../c" -> "a/c"); false when it leaves the root. */
static bool join_norm(const char *dir, lp_str rel, lp_buf *out)
{
    lp_buf tmp;
    lp_buf_init(&tmp, LP_PATH_MAX);
    if (*dir)
        lp_buf_printf(&tmp, "%s/", dir);
    lp_buf_put_str(&tmp, rel);
    lp_buf_reset(out);
    bool ok = !tmp.err && lp_path_normalize(lp_buf_str(&tmp), out, NULL) == LP_OK &&
              lp_path_is_clean_relative(lp_buf_str(out));
    lp_buf_release(&tmp);
    return ok;
}

static int32_t file_at(gview *v, const lp_buf *p) { return lp_gv_file_of_path(v, p->ptr, p->len); }

/* ------------------------------------------------------------------------------------------
 * Python. */

static bool module_matches(const char *have, lp_str want)
{
    lp_str h = lp_str_c(have);
    if (lp_str_eq(h, want))
        return true;
    return h.len > want.len && lp_str_ends_with(h, want) && h.ptr[h.len - want.len - 1] == '.';
}

void lp_gm_python_module(gview *v, uint32_t file, const char *module, gfiles *out)
{
    lp_str m = lp_str_c(module);
    size_t dots = 0;
    while (dots < m.len && m.ptr[dots] == '.')
        dots++;
    if (dots) {
        /* relative: the package of the file, dots - 1 levels up */
        lp_str dir = lp_str_c(v->files[file].dir);
        for (size_t i = 1; i < dots; i++)
            dir = lp_path_dirname(dir);
        lp_str rest = lp_str_sub(m, dots, m.len);
        lp_buf rel, p;
        lp_buf_init(&rel, LP_PATH_MAX);
        lp_buf_init(&p, LP_PATH_MAX);
        for (size_t i = 0; i < rest.len; i++)
            lp_buf_putc(&rel, rest.ptr[i] == '.' ? '/' : rest.ptr[i]);
        char *d = lp_xstrndup(dir.ptr ? dir.ptr : "", dir.len);
        static const char *const tails[] = {".py", ".pyi", "/__init__.py", "/__init__.pyi"};
        for (size_t t = 0; t < LP_ARRAY_LEN(tails); t++) {
            lp_buf cand;
            lp_buf_init(&cand, LP_PATH_MAX);
            if (rel.len)
                lp_buf_printf(&cand, "%s%s", rel.ptr, tails[t]);
            else if (t >= 2)
                lp_buf_puts(&cand, tails[t] + 1);
            if (cand.len && join_norm(d, lp_buf_str(&cand), &p)) {
                int32_t fi = file_at(v, &p);
                if (fi >= 0) {
                    lp_vec_push(out, (uint32_t)fi);
                    lp_buf_release(&cand);
                    break; /* .py before .pyi, module before package */
                }
            }
            lp_buf_release(&cand);
        }
        free(d);
        lp_buf_release(&rel);
        lp_buf_release(&p);
        return;
    }
    if (!m.len)
        return;
    lp_buf key;
    lp_buf_init(&key, 0);
    lp_buf_printf(&key, "py:%s", module);
    if (cache_get(v, key.ptr, key.len, out)) {
        lp_buf_release(&key);
        return;
    }
    /* absolute: files whose dotted module is `module` or ends with ".module" (source roots
     * such as src/ make the path longer than the import); exact matches win */
    lp_str last = m;
    size_t dot = SIZE_MAX;
    for (size_t i = m.len; i > 0; i--)
        if (m.ptr[i - 1] == '.') {
            dot = i - 1;
            break;
        }
    if (dot != SIZE_MAX)
        last = lp_str_sub(m, dot + 1, m.len);
    gfiles found = {0}, exact = {0};
    const char *stems[] = {NULL, "__init__"};
    char *lastc = lp_xstrndup(last.ptr, last.len);
    stems[0] = lastc;
    for (int k = 0; k < 2; k++) {
        const u32_vec *l = lp_gv_stem_files(v, stems[k], strlen(stems[k]));
        for (size_t i = 0; l && i < l->len; i++) {
            uint32_t fi = l->items[i];
            if (gl_modsys(v->files[fi].lang) != LP_MODSYS_PYTHON)
                continue;
            lp_gv_derive(v, fi);
            if (!module_matches(v->files[fi].module, m))
                continue;
            lp_vec_push(&found, fi);
            if (!strcmp(v->files[fi].module, module))
                lp_vec_push(&exact, fi);
        }
    }
    free(lastc);
    gfiles *use = exact.len ? &exact : &found;
    /* a module and its .pyi stub are one module */
    sort_unique(use);
    size_t k = 0;
    for (size_t i = 0; i < use->len; i++) {
        lp_str p = lp_str_c(v->files[use->items[i]].path);
        if (lp_str_ends_with(p, LP_STR(".pyi")) && k > 0) {
            lp_str prev = lp_str_c(v->files[use->items[k - 1]].path);
            if (prev.len + 1 == p.len && !memcmp(prev.ptr, p.ptr, prev.len))
                continue;
        }
        use->items[k++] = use->items[i];
    }
    use->len = k;
    cache_put(v, key.ptr, key.len, use);
    for (size_t i = 0; i < use->len; i++)
        lp_vec_push(out, use->items[i]);
    lp_vec_free(&found);
    lp_vec_free(&exact);
    lp_buf_release(&key);
}

/* ------------------------------------------------------------------------------------------
 * JavaScript / TypeScript. */

int32_t lp_gm_js_resolve(gview *v, uint32_t file, const char *spec)
{
    lp_str s = lp_str_c(spec);
    if (!s.len || s.ptr[0] != '.')
        return -1;
    static const char *const exts[] = {"",     ".ts",  ".tsx", ".d.ts", ".js", ".jsx",
                                       ".mjs", ".cjs", ".mts", ".cts"};
    lp_buf base, p;
    lp_buf_init(&base, LP_PATH_MAX);
    lp_buf_init(&p, LP_PATH_MAX);
    int32_t found = -1;
    if (!join_norm(v->files[file].dir, s, &base))
        goto done;
    for (int pass = 0; pass < 3 && found < 0; pass++) {
        for (size_t i = 0; i < LP_ARRAY_LEN(exts) && found < 0; i++) {
            lp_buf_reset(&p);
            lp_str b = lp_buf_str(&base);
            if (pass == 1) {
                /* TypeScript ESM: './x.js' names x.ts */
                lp_str ext = lp_path_ext(b);
                if (!ext.len || i == 0)
                    continue;
                b = lp_str_sub(b, 0, b.len - ext.len);
            }
            lp_buf_put_str(&p, b);
            if (pass == 2)
                lp_buf_puts(&p, b.len ? "/index" : "index");
            lp_buf_puts(&p, exts[i]);
            if (pass == 2 && i == 0)
                continue;
            found = file_at(v, &p);
            if (found >= 0 && gl_modsys(v->files[found].lang) != LP_MODSYS_ES)
                found = -1;
        }
    }
done:
    lp_buf_release(&base);
    lp_buf_release(&p);
    return found;
}

/* ------------------------------------------------------------------------------------------
 * Go. */

static void go_dir_files(gview *v, lp_str dir, gfiles *out)
{
    const u32_vec *l = lp_gv_dir_files(v, dir.ptr ? dir.ptr : "", dir.len);
    for (size_t i = 0; l && i < l->len; i++) {
        uint32_t fi = l->items[i];
        const gfile *f = &v->files[fi];
        if (gl_modsys(f->lang) != LP_MODSYS_GO || lp_str_ends_with(lp_str_c(f->path), LP_STR("_test.go")))
            continue;
        lp_vec_push(out, fi);
    }
}

void lp_gm_go_package(gview *v, const char *path, gfiles *out)
{
    lp_buf key;
    lp_buf_init(&key, 0);
    lp_buf_printf(&key, "go:%s", path);
    if (cache_get(v, key.ptr, key.len, out)) {
        lp_buf_release(&key);
        return;
    }
    lp_gv_load_modules(v);
    gfiles found = {0};
    lp_str ip = lp_str_c(path);
    /* 1. a go.mod module path in the publication maps it exactly */
    for (size_t i = 0; i < v->gomod_dirs.len && !found.len; i++) {
        lp_str mp = lp_str_c(v->gomod_paths.items[i]);
        lp_str rest;
        if (lp_str_eq(ip, mp))
            rest = LP_STR("");
        else if (ip.len > mp.len && lp_str_starts_with(ip, mp) && ip.ptr[mp.len] == '/')
            rest = lp_str_sub(ip, mp.len + 1, ip.len);
        else
            continue;
        lp_buf d;
        lp_buf_init(&d, LP_PATH_MAX);
        const char *md = v->gomod_dirs.items[i];
        if (*md && rest.len)
            lp_buf_printf(&d, "%s/" LP_STR_FMT, md, LP_STR_ARG(rest));
        else
            lp_buf_printf(&d, "%s" LP_STR_FMT, md, LP_STR_ARG(rest));
        go_dir_files(v, lp_buf_str(&d), &found);
        lp_buf_release(&d);
    }
    /* 2. a directory with exactly that path (GOPATH / standard library layout) */
    if (!found.len)
        go_dir_files(v, ip, &found);
    /* 3. the unique directory whose path the import path ends with */
    if (!found.len) {
        const char *best = NULL;
        size_t best_len = 0, ties = 0;
        const lp_map *dirs = lp_gv_dir_map(v);
        for (size_t i = 0; i < dirs->cap; i++) {
            const char *d = dirs->slots[i].key;
            if (!d || !*d)
                continue;
            lp_str ds = lp_str_c(d);
            if (!(ip.len > ds.len && lp_str_ends_with(ip, ds) && ip.ptr[ip.len - ds.len - 1] == '/'))
                continue;
            gfiles probe = {0};
            go_dir_files(v, ds, &probe);
            bool has = probe.len > 0;
            lp_vec_free(&probe);
            if (!has)
                continue;
            if (ds.len > best_len) {
                best = d;
                best_len = ds.len;
                ties = 1;
            } else if (ds.len == best_len) {
                ties++;
            }
        }
        if (best && ties == 1)
            go_dir_files(v, lp_str_c(best), &found);
    }
    sort_unique(&found);
    cache_put(v, key.ptr, key.len, &found);
    for (size_t i = 0; i < found.len; i++)
        lp_vec_push(out, found.items[i]);
    lp_vec_free(&found);
    lp_buf_release(&key);
}

void lp_gm_go_same_package(gview *v, uint32_t file, gfiles *out)
{
    lp_gv_derive(v, file);
    const gfile *f = &v->files[file];
    const u32_vec *l = lp_gv_dir_files(v, f->dir, strlen(f->dir));
    for (size_t i = 0; l && i < l->len; i++) {
        uint32_t fi = l->items[i];
        if (gl_modsys(v->files[fi].lang) != LP_MODSYS_GO)
            continue;
        lp_gv_derive(v, fi);
        if (!strcmp(v->files[fi].pkg, f->pkg))
            lp_vec_push(out, fi);
    }
}

/* ------------------------------------------------------------------------------------------
 * C / C++ includes. */

static void c_include(gview *v, uint32_t file, const char *path, bool system, gfiles *out)
{
    lp_str p = lp_str_c(path);
    if (!p.len)
        return;
    lp_buf cand;
    lp_buf_init(&cand, LP_PATH_MAX);
    /* "x.h": next to the including file first */
    if (!system && join_norm(v->files[file].dir, p, &cand)) {
        int32_t fi = file_at(v, &cand);
        if (fi >= 0) {
            lp_vec_push(out, (uint32_t)fi);
            lp_buf_release(&cand);
            return;
        }
    }
    lp_buf_release(&cand);
    lp_buf key;
    lp_buf_init(&key, 0);
    lp_buf_printf(&key, "c:%s", path);
    if (cache_get(v, key.ptr, key.len, out)) {
        lp_buf_release(&key);
        return;
    }
    /* then the files whose path is, or ends with, "/path" (include directories) */
    gfiles found = {0};
    lp_str base = lp_path_basename(p);
    lp_str ext = lp_path_ext(base);
    const u32_vec *l = lp_gv_stem_files(v, base.ptr, base.len - ext.len);
    for (size_t i = 0; l && i < l->len; i++) {
        lp_str fp = lp_str_c(v->files[l->items[i]].path);
        if (lp_str_eq(fp, p) ||
            (fp.len > p.len && lp_str_ends_with(fp, p) && fp.ptr[fp.len - p.len - 1] == '/'))
            lp_vec_push(&found, l->items[i]);
    }
    sort_unique(&found);
    cache_put(v, key.ptr, key.len, &found);
    for (size_t i = 0; i < found.len; i++)
        lp_vec_push(out, found.items[i]);
    lp_vec_free(&found);
    lp_buf_release(&key);
}

const u32_vec *lp_gm_include_closure(gview *v, uint32_t file)
{
    char key[24];
    int kl = snprintf(key, sizeof key, "%u", file);
    uint32_t *have = lp_map_get(&v->closures, key, (size_t)kl);
    if (have)
        return v->closure_lists.items[*have];
    gfiles seen = {0}, queue = {0};
    uint8_t *mark = lp_xcalloc(v->nfiles ? v->nfiles : 1, 1);
    mark[file] = 1;
    lp_vec_push(&queue, file);
    for (size_t qi = 0; qi < queue.len && seen.len < 4096; qi++) {
        uint32_t cur = queue.items[qi];
        const gblob *b = lp_gv_blob(v, cur, NULL);
        for (uint32_t i = 0; b && i < b->nsrefs; i++) {
            const gref *r = &b->srefs[i];
            if (r->kind != LP_REF_IMPORT || r->name[0] || !r->qual[0])
                continue;
            gfiles inc = {0};
            c_include(v, cur, r->qual, (r->flags & LP_REFF_SYSTEM) != 0, &inc);
            if (inc.len == 1 && !mark[inc.items[0]]) { /* an ambiguous include is not followed */
                mark[inc.items[0]] = 1;
                lp_vec_push(&seen, inc.items[0]);
                lp_vec_push(&queue, inc.items[0]);
            }
            lp_vec_free(&inc);
        }
    }
    free(mark);
    lp_vec_free(&queue);
    sort_unique(&seen);
    u32_vec *l = lp_xcalloc(1, sizeof *l);
    for (size_t i = 0; i < seen.len; i++)
        lp_vec_push(l, seen.items[i]);
    lp_vec_free(&seen);
    *lp_map_put(&v->closures, &v->arena, key, (size_t)kl, NULL) = (uint32_t)v->closure_lists.len;
    lp_vec_push(&v->closure_lists, l);
    return l;
}

/* ------------------------------------------------------------------------------------------
 * Rust. */

static void rust_index(gview *v)
{
    if (v->rust_indexed)
        return;
    v->rust_indexed = true;
    for (size_t i = 0; i < v->nfiles; i++) {
        if (gl_modsys(v->files[i].lang) != LP_MODSYS_RUST)
            continue;
        lp_gv_derive(v, (uint32_t)i);
        lp_buf key;
        lp_buf_init(&key, 0);
        lp_buf_printf(&key, "%d:%s", (int)v->files[i].crate, v->files[i].module);
        bool created = false;
        uint32_t *slot = lp_map_put(&v->rust_modules, &v->arena, key.ptr, key.len, &created);
        if (created) {
            *slot = (uint32_t)v->mod_lists.len;
            u32_vec empty = {0};
            lp_vec_push(&v->mod_lists, empty);
        }
        lp_vec_push(&v->mod_lists.items[*slot], (uint32_t)i);
        lp_buf_release(&key);
    }
}

void lp_gm_rust_module(gview *v, uint32_t file, const char *path, gfiles *out)
{
    rust_index(v);
    lp_gv_derive(v, file);
    lp_buf key;
    lp_buf_init(&key, 0);
    lp_buf_printf(&key, "%d:%s", (int)v->files[file].crate, path);
    uint32_t *slot = lp_map_get(&v->rust_modules, key.ptr, key.len);
    lp_buf_release(&key);
    if (!slot)
        return;
    const u32_vec *l = &v->mod_lists.items[*slot];
    /* crate roots outside src/ (tests/x.rs) are separate crates: keep the file's own */
    for (size_t i = 0; i < l->len; i++) {
        const gfile *f = &v->files[l->items[i]];
        if (!strcmp(path, "crate") && l->len > 1) {
            lp_str root = f->crate >= 0 ? lp_str_c(v->crate_dirs.items[f->crate]) : LP_STR("");
            lp_str rel = lp_str_c(f->path);
            if (root.len)
                rel = lp_str_sub(rel, root.len + 1, rel.len);
            bool lib = lp_str_eq_c(rel, "src/lib.rs");
            bool self = l->items[i] == file;
            if (!lib && !self)
                continue;
        }
        lp_vec_push(out, l->items[i]);
    }
}

/* ------------------------------------------------------------------------------------------
 * Dispatch for import references. */

void lp_gm_import_files(gview *v, uint32_t file, const gref *r, gfiles *out, bool *external)
{
    *external = false;
    const gfile *f = &v->files[file];
    switch (gl_modsys(f->lang)) {
    case LP_MODSYS_PYTHON:
        lp_gm_python_module(v, file, r->qual, out);
        *external = !out->len && !(r->flags & LP_REFF_RELATIVE);
        break;
    case LP_MODSYS_ES: {
        int32_t fi = lp_gm_js_resolve(v, file, r->qual);
        if (fi >= 0)
            lp_vec_push(out, (uint32_t)fi);
        *external = fi < 0 && !(r->flags & LP_REFF_RELATIVE);
        break;
    }
    case LP_MODSYS_GO:
        lp_gm_go_package(v, r->qual, out);
        *external = !out->len;
        break;
    case LP_MODSYS_INCLUDE:
        /* #include has no name; `using` declarations name what they bring in */
        if (r->qual[0] && !r->name[0]) {
            c_include(v, file, r->qual, (r->flags & LP_REFF_SYSTEM) != 0, out);
            *external = !out->len;
        }
        break;
    case LP_MODSYS_RUST:
        if (r->flags & LP_REFF_MODDECL) {
            lp_gv_derive(v, file);
            lp_buf p;
            lp_buf_init(&p, 0);
            const char *m = v->files[file].module;
            /* mod x; in a non-mod.rs file a/b.rs declares a/b/x.rs: the module path is
             * the file's module + x either way */
            lp_buf_printf(&p, "%s.%s", m, r->name);
            lp_gm_rust_module(v, file, p.ptr, out);
            lp_buf_release(&p);
        }
        break;
    default:
        break;
    }
    sort_unique(out);
}
