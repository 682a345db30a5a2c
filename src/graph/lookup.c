/*
 * lookup.c: name lookup for the resolver (resolve.c): scopes of the caller's file, import
 * bindings (and re-exports), packages and namespaces, import-everything forms, C/C++
 * include closures, types and their members (children, out-of-line members, bases named
 * in the source), and qualifiers ("os.path", "pkg", "crate.a", "a.b.Foo").
 *
 * A bare name is looked up like the language does, innermost first, and the first place
 * that has it decides (inner definitions hide outer ones):
 *   1. the enclosing scopes of the file (nested functions, the class for languages with an
 *      implicit `this`, namespaces / inline modules, the file's top level; Go: the package);
 *   2. names bound by explicit imports visible there;
 *   3. the same package / namespace (Java, Scala, C#);
 *   4. import-everything forms (from m import *, a.b.*, using A.B;, use a::*, using
 *      namespace, Go dot imports);
 *   5. C/C++: declarations in the files #included (transitively).
 * Every list returned is sorted by (file, ord) and has declaration + definition pairs
 * collapsed to the definition.
 */
#include "graph/graph_int.h"

#include <stdlib.h>


bool lp_gl_lang_is_js(lp_lang l) { return gl_modsys(l) == LP_MODSYS_ES; }

bool lp_gl_lang_is_c(lp_lang l) { return gl_modsys(l) == LP_MODSYS_INCLUDE; }

/* Languages where a method's bare name is visible in its class (implicit this). */
bool lp_gl_implicit_this(lp_lang l) { return gl_has(l, LP_LANGG_IMPLICIT_THIS); }

/* Same family: a file of one may define what a file of the other calls. */
bool lp_gl_same_family(lp_lang a, lp_lang b)
{
    return a == b || lp_lang_ops_for(a)->family == lp_lang_ops_for(b)->family;
}

const gsym *lp_gl_sym_of(rctx *rc, gpair p) { return lp_gv_sym(rc->v, p); }

bool lp_gl_kind_ok(int kind, int want)
{
    if (want & K_ANY)
        return kind != LP_SYM_SECTION && kind != LP_SYM_PACKAGE;
    if ((want & K_CALLABLE) && (lp_gv_is_callable_kind(kind) || lp_gv_is_type_kind(kind)))
        return true;
    if ((want & K_TYPE) && (lp_gv_is_type_kind(kind) || kind == LP_SYM_TYPE_ALIAS))
        return true;
    return false;
}

/* The index of the first entry of `file` in a name's list l[0..n) (sorted by file), or n. */
static size_t first_of_file(const gpair *l, size_t n, uint32_t file)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (l[mid].file < file)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Symbols named `name` in one file: the slice of the name's list for that file. */
void lp_gl_in_file(rctx *rc, uint32_t file, const char *name, cset *out)
{
    const gpair *l = NULL;
    size_t n = 0;
    if (lp_gv_lookup(rc->v, name, strlen(name), &l, &n, NULL) || !n)
        return;
    for (size_t i = first_of_file(l, n, file); i < n && l[i].file == file; i++)
        lp_vec_push(out, l[i]);
}

bool lp_gl_has_pair(const cset *s, gpair p)
{
    for (size_t i = 0; i < s->len; i++)
        if (s->items[i].file == p.file && s->items[i].ord == p.ord)
            return true;
    return false;
}

void lp_gl_add_unique(cset *s, gpair p)
{
    if (!lp_gl_has_pair(s, p))
        lp_vec_push(s, p);
}

static int pair_cmp(const void *a, const void *b)
{
    const gpair *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return (x->ord > y->ord) - (x->ord < y->ord);
}

void lp_gl_sort_set(cset *s)
{
    if (s->len > 1)
        qsort(s->items, s->len, sizeof s->items[0], pair_cmp);
}

/* ------------------------------------------------------------------------------------------
 * Result helpers. */

void lp_gl_set_unresolved(gres *out, gr_reason why)
{
    out->status = GR_UNRESOLVED;
    out->reason = (uint16_t)why;
    out->ntargets = 0;
    out->ncand = 0;
}

void lp_gl_set_targets(gres *out, const cset *c, gr_rule rule)
{
    out->ntargets = 0;
    for (size_t i = 0; i < c->len && out->ntargets < GR_MAX_TARGETS; i++)
        out->targets[out->ntargets++] = c->items[i];
    out->ncand = (uint32_t)c->len;
    if (c->len == 1) {
        out->status = GR_PROVED;
        out->rule = (uint16_t)rule;
    } else {
        out->status = GR_AMBIGUOUS;
        out->rule = (uint16_t)rule;
    }
}

/* Declarations that have a definition among the candidates (same qualified name) go. */
void lp_gl_collapse_declarations(rctx *rc, cset *c)
{
    /* only where a declaration and a definition are one entity: C/C++ prototypes and
     * in-class declarations, TypeScript overload signatures. Elsewhere a body-less method
     * (Java/C#/Scala abstract or interface method) is an overload of its own. */
    if (c->len < 2 || !(lp_gl_lang_is_c(rc->lang) || lp_gl_lang_is_js(rc->lang)))
        return;
    size_t k = 0;
    for (size_t i = 0; i < c->len; i++) {
        const gsym *s = lp_gl_sym_of(rc, c->items[i]);
        bool drop = false;
        if (s && (s->flags & LP_SYMF_DECLARATION)) {
            for (size_t j = 0; j < c->len && !drop; j++) {
                const gsym *t = j == i ? NULL : lp_gl_sym_of(rc, c->items[j]);
                drop = t && !(t->flags & LP_SYMF_DECLARATION) && !strcmp(t->qname, s->qname);
            }
        }
        if (!drop)
            c->items[k++] = c->items[i];
    }
    c->len = k;
}

void lp_gl_filter_kind(rctx *rc, cset *c, int want)
{
    size_t k = 0;
    for (size_t i = 0; i < c->len; i++) {
        const gsym *s = lp_gl_sym_of(rc, c->items[i]);
        if (s && lp_gl_kind_ok(s->kind, want))
            c->items[k++] = c->items[i];
    }
    c->len = k;
}

/* ------------------------------------------------------------------------------------------
 * Scopes inside the file. */

bool lp_gl_is_function_kind(int k)
{
    return k == LP_SYM_FUNCTION || k == LP_SYM_METHOD || k == LP_SYM_CONSTRUCTOR ||
           k == LP_SYM_PROPERTY;
}

bool lp_gl_is_container_kind(int k)
{
    return k == LP_SYM_NAMESPACE || k == LP_SYM_MODULE || k == LP_SYM_OBJECT;
}


/* Look name up in the scopes enclosing owner in the file; *rule says which scope. */
/* Is y declared directly in a scope whose qualified name is scope_q ("" for the file's top
 * level)? Members attached by name to a type declared elsewhere (C++ Foo::bar, Go methods,
 * Rust impl items, JS Foo.prototype.bar) carry the type in their qualified name and are
 * not names of the scope. */
static bool direct_member(const gsym *y, const char *scope_q, const char *pkg)
{
    size_t nl = strlen(y->name), ql = strlen(y->qname);
    if (!*scope_q) {
        if (!strcmp(y->qname, y->name))
            return true;
        size_t pl = pkg ? strlen(pkg) : 0;
        return pl && ql == pl + 1 + nl && !memcmp(y->qname, pkg, pl) && y->qname[pl] == '.' &&
               !strcmp(y->qname + pl + 1, y->name);
    }
    size_t sl = strlen(scope_q);
    return ql == sl + 1 + nl && !memcmp(y->qname, scope_q, sl) && y->qname[sl] == '.' &&
           !strcmp(y->qname + sl + 1, y->name);
}

static const char *file_pkg(rctx *rc, uint32_t file)
{
    lp_gv_derive(rc->v, file);
    return rc->v->files[file].pkg;
}

static void scope_lookup(rctx *rc, int32_t owner, const char *name, int want, cset *out,
                         gr_rule *rule)
{
    cset here = {0};
    lp_gl_in_file(rc, rc->file, name, &here);
    const gblob *b = rc->b;
    for (int32_t s = owner; s >= 0 && (uint32_t)s < b->nsyms; s = b->syms[s].parent) {
        const gsym *scope = &b->syms[s];
        bool type_scope = lp_gv_is_type_kind(scope->kind) && lp_gl_implicit_this(rc->lang);
        if (!type_scope && (lp_gl_is_function_kind(scope->kind) || lp_gl_is_container_kind(scope->kind))) {
            for (size_t i = 0; i < here.len; i++) {
                const gsym *y = &b->syms[here.items[i].ord];
                if (y->parent == s && here.items[i].ord != s && lp_gl_kind_ok(y->kind, want) &&
                    direct_member(y, scope->qname, NULL))
                    lp_vec_push(out, here.items[i]);
            }
            if (out->len) {
                *rule = lp_gl_is_function_kind(scope->kind) ? GR_LOCAL_SCOPE : GR_SAME_FILE;
                break;
            }
        } else if (type_scope) {
            int level = 0;
            lp_gl_members_of_type(rc, (gpair){rc->file, s}, name, want, out, &level);
            if (out->len) {
                *rule = level == 0 ? GR_IMPLICIT_THIS : GR_BASE_METHOD;
                break;
            }
        }
    }
    if (!out->len) {
        for (size_t i = 0; i < here.len; i++) {
            const gsym *y = &b->syms[here.items[i].ord];
            if (y->parent < 0 && lp_gl_kind_ok(y->kind, want) &&
                direct_member(y, "", file_pkg(rc, rc->file)))
                lp_vec_push(out, here.items[i]);
        }
        if (out->len)
            *rule = GR_SAME_FILE;
    }
    lp_vec_free(&here);
}

/* ------------------------------------------------------------------------------------------
 * Imports. */


void lp_gl_binding_free(binding *b)
{
    lp_vec_free(&b->files);
    lp_vec_free(&b->syms);
}


/* Is import r visible from owner (file level, or inside an enclosing function)? */
static bool import_visible(rctx *rc, const gref *r, int32_t owner)
{
    if (r->owner < 0)
        return true;
    for (int32_t s = owner; s >= 0 && (uint32_t)s < rc->b->nsyms; s = rc->b->syms[s].parent)
        if (s == r->owner)
            return true;
    return false;
}

/* The local name an import binds (Python `import a.b` binds "a"; Go binds the package
 * name: the alias, else the last path segment). */
static lp_str import_binds(const rctx *rc, const gref *r)
{
    if (r->alias[0])
        return lp_str_c(r->alias);
    const lp_lang_ops *ops = lp_lang_ops_for(rc->lang);
    return ops->import_binds ? ops->import_binds(r->name, r->qual) : lp_str_c(r->name);
}

void lp_gl_top_level_named(rctx *rc, const gfiles *files, const char *name, int want, cset *out)
{
    for (size_t i = 0; i < files->len; i++) {
        cset c = {0};
        lp_gl_in_file(rc, files->items[i], name, &c);
        for (size_t j = 0; j < c.len; j++) {
            const gsym *s = lp_gl_sym_of(rc, c.items[j]);
            if (s && s->parent < 0 && lp_gl_kind_ok(s->kind, want) &&
                direct_member(s, "", file_pkg(rc, files->items[i])))
                lp_vec_push(out, c.items[j]);
        }
        lp_vec_free(&c);
    }
}

/* Symbols whose qualified name is exactly qname (any file of the family). */
void lp_gl_by_qname(rctx *rc, const char *qname, int want, cset *out)
{
    lp_str q = lp_str_c(qname);
    size_t dot = SIZE_MAX;
    for (size_t i = q.len; i > 0; i--)
        if (q.ptr[i - 1] == '.') {
            dot = i - 1;
            break;
        }
    lp_str last = dot == SIZE_MAX ? q : lp_str_sub(q, dot + 1, q.len);
    const gpair *l = NULL;
    size_t n = 0;
    if (lp_gv_lookup(rc->v, last.ptr, last.len, &l, &n, NULL))
        return;
    for (size_t i = 0; i < n; i++) {
        if (!lp_gl_same_family(rc->v->files[l[i].file].lang, rc->lang))
            continue;
        int kind = 0;
        if (lp_gv_sym_qname_is(rc->v, l[i], qname, &kind) && lp_gl_kind_ok(kind, want))
            lp_vec_push(out, l[i]);
    }
}

void lp_gl_resolve_import(rctx *rc, const gref *r, binding *out);

/* JS/TS and Python: follow re-exports of `name` out of module files (depth-bounded). */
void lp_gl_reexported(rctx *rc, const gfiles *files, const char *name, int want, cset *out)
{
    if (rc->depth > 4)
        return;
    for (size_t i = 0; i < files->len && !out->len; i++) {
        uint32_t fi = files->items[i];
        const gblob *b = lp_gv_blob(rc->v, fi, NULL);
        if (!b)
            continue;
        rctx sub = {rc->v, fi, rc->v->files[fi].lang, b, rc->depth + 1};
        for (uint32_t k = 0; k < b->nsrefs && !out->len; k++) {
            const gref *x = &b->srefs[k];
            bool exp = x->kind == LP_REF_EXPORT && x->qual[0] &&
                       (!strcmp(x->alias, name) || (!strcmp(x->name, "*") && !x->alias[0]));
            bool imp = x->kind == LP_REF_IMPORT && x->owner < 0 &&
                       gl_has(rc->lang, LP_LANGG_IMPORTS_ARE_MEMBERS) &&
                       (!strcmp(x->alias, name) || !strcmp(x->name, "*"));
            if (!exp && !imp)
                continue;
            binding bb = {0};
            if (exp) {
                gref as_import = *x;
                as_import.kind = LP_REF_IMPORT;
                if (!strcmp(x->name, "*")) {
                    gfiles mf = {0};
                    bool ext = false;
                    lp_gm_import_files(rc->v, fi, &as_import, &mf, &ext);
                    cset c = {0};
                    lp_gl_top_level_named(&sub, &mf, name, want, &c);
                    if (!c.len)
                        lp_gl_reexported(&sub, &mf, name, want, &c);
                    for (size_t j = 0; j < c.len; j++)
                        lp_gl_add_unique(out, c.items[j]);
                    lp_vec_free(&c);
                    lp_vec_free(&mf);
                    continue;
                }
                lp_gl_resolve_import(&sub, &as_import, &bb);
            } else if (!strcmp(x->name, "*")) {
                gfiles mf = {0};
                bool ext = false;
                lp_gm_import_files(rc->v, fi, x, &mf, &ext);
                lp_gl_top_level_named(&sub, &mf, name, want, out);
                lp_vec_free(&mf);
                continue;
            } else {
                lp_gl_resolve_import(&sub, x, &bb);
            }
            if (bb.kind == B_SYMBOLS)
                for (size_t j = 0; j < bb.syms.len; j++)
                    lp_gl_add_unique(out, bb.syms.items[j]);
            lp_gl_binding_free(&bb);
        }
    }
}

/* The module / symbols an import binding names. */
void lp_gl_resolve_import(rctx *rc, const gref *r, binding *out)
{
    memset(out, 0, sizeof *out);
    gview *v = rc->v;
    bool ext = false;
    const char *name = r->name;
    switch (gl_modsys(rc->lang)) {
    case LP_MODSYS_PYTHON: {
        lp_gm_import_files(v, rc->file, r, &out->files, &ext);
        if (!name[0] || !strcmp(name, "*")) { /* import a.b / the module of a wildcard */
            out->kind = out->files.len ? B_MODULE : ext ? B_EXTERNAL : B_MISSING;
            return;
        }
        if (!out->files.len) {
            out->kind = ext ? B_EXTERNAL : B_MISSING;
            return;
        }
        lp_gl_top_level_named(rc, &out->files, name, K_ANY, &out->syms);
        if (!out->syms.len)
            lp_gl_reexported(rc, &out->files, name, K_ANY, &out->syms);
        if (out->syms.len) {
            out->kind = B_SYMBOLS;
            return;
        }
        /* from pkg import mod: a submodule */
        lp_buf sub;
        lp_buf_init(&sub, 0);
        lp_buf_printf(&sub, "%s%s%s", r->qual,
                      r->qual[0] && r->qual[strlen(r->qual) - 1] == '.' ? "" : ".", name);
        gfiles mf = {0};
        lp_gm_python_module(v, rc->file, sub.ptr, &mf);
        lp_buf_release(&sub);
        lp_vec_free(&out->files);
        out->files = mf;
        out->kind = mf.len ? B_MODULE : B_MISSING;
        return;
    }
    case LP_MODSYS_ES:
        lp_gm_import_files(v, rc->file, r, &out->files, &ext);
        if (!out->files.len) {
            out->kind = ext ? B_EXTERNAL : B_MISSING;
            return;
        }
        if (!name[0] || !strcmp(name, "*") || (r->flags & LP_REFF_NAMESPACE && !name[0])) {
            out->kind = B_MODULE;
            return;
        }
        if (r->flags & LP_REFF_DEFAULT) {
            for (size_t i = 0; i < out->files.len; i++) {
                const gblob *b = lp_gv_blob(v, out->files.items[i], NULL);
                for (uint32_t k = 0; b && k < b->nsyms; k++)
                    if ((b->syms[k].flags & LP_SYMF_DEFAULT_EXPORT) && b->syms[k].parent < 0)
                        lp_vec_push(&out->syms, ((gpair){out->files.items[i], (int32_t)k}));
                for (uint32_t k = 0; b && !out->syms.len && k < b->nsrefs; k++) {
                    const gref *x = &b->srefs[k];
                    if (x->kind == LP_REF_EXPORT && (x->flags & LP_REFF_DEFAULT) && !x->qual[0]) {
                        gfiles one = {0};
                        lp_vec_push(&one, out->files.items[i]);
                        lp_gl_top_level_named(rc, &one, x->name, K_ANY, &out->syms);
                        lp_vec_free(&one);
                    }
                }
            }
            out->kind = out->syms.len ? B_SYMBOLS : B_MODULE;
            return;
        }
        lp_gl_top_level_named(rc, &out->files, name, K_ANY, &out->syms);
        if (!out->syms.len)
            lp_gl_reexported(rc, &out->files, name, K_ANY, &out->syms);
        out->kind = out->syms.len ? B_SYMBOLS : B_MISSING;
        if (!out->syms.len && (r->flags & LP_REFF_NAMESPACE)) /* const {a} = require(...) */
            out->kind = B_MISSING;
        return;
    case LP_MODSYS_GO:
        lp_gm_import_files(v, rc->file, r, &out->files, &ext);
        out->kind = out->files.len ? B_MODULE : B_EXTERNAL;
        return;
    case LP_MODSYS_INCLUDE:
        if (!name[0]) {
            lp_gm_import_files(v, rc->file, r, &out->files, &ext);
            out->kind = out->files.len ? B_MODULE : ext ? B_EXTERNAL : B_MISSING;
            return;
        }
        if (!strcmp(name, "*")) {
            out->kind = B_NONE; /* using namespace: a wildcard, see wildcard_lookup */
            return;
        }
        {
            lp_buf q;
            lp_buf_init(&q, 0);
            lp_buf_printf(&q, "%s%s%s", r->qual, r->qual[0] ? "." : "", name);
            lp_gl_by_qname(rc, q.ptr, K_ANY, &out->syms);
            lp_buf_release(&q);
            out->kind = out->syms.len ? B_SYMBOLS : B_EXTERNAL;
        }
        return;
    case LP_MODSYS_PACKAGES: {
        if (!strcmp(name, "*"))
            return; /* wildcards: see wildcard_lookup */
        lp_buf q;
        lp_buf_init(&q, 0);
        lp_buf_printf(&q, "%s%s%s", r->qual, r->qual[0] ? "." : "", name);
        lp_gl_by_qname(rc, q.ptr, K_ANY, &out->syms);
        lp_buf_release(&q);
        lp_gl_collapse_declarations(rc, &out->syms);
        out->kind = out->syms.len ? B_SYMBOLS : B_EXTERNAL;
        return;
    }
    case LP_MODSYS_RUST: {
        if (r->flags & LP_REFF_MODDECL) {
            lp_gm_import_files(v, rc->file, r, &out->files, &ext);
            out->kind = out->files.len ? B_MODULE : B_MISSING;
            return;
        }
        if (!strcmp(name, "*"))
            return;
        /* a use path: crate/self/super-relative or another crate; a module or an item */
        lp_gv_derive(v, rc->file);
        lp_buf path;
        lp_buf_init(&path, 0);
        lp_str q = lp_str_c(r->qual);
        lp_str mod = lp_str_c(v->files[rc->file].module);
        if (lp_str_starts_with(q, LP_STR("crate")) || !q.len) {
            lp_buf_put_str(&path, q.len ? q : LP_STR("crate"));
        } else if (lp_str_starts_with(q, LP_STR("self"))) {
            lp_buf_put_str(&path, mod);
            lp_buf_put_str(&path, lp_str_sub(q, 4, q.len));
        } else if (lp_str_starts_with(q, LP_STR("super"))) {
            lp_str parent = mod;
            lp_str rest = q;
            while (lp_str_starts_with(rest, LP_STR("super"))) {
                size_t d = SIZE_MAX;
                for (size_t i = parent.len; i > 0; i--)
                    if (parent.ptr[i - 1] == '.') {
                        d = i - 1;
                        break;
                    }
                parent = d == SIZE_MAX ? parent : lp_str_sub(parent, 0, d);
                rest = lp_str_sub(rest, 5, rest.len);
                if (rest.len && rest.ptr[0] == '.')
                    rest = lp_str_sub(rest, 1, rest.len);
            }
            lp_buf_put_str(&path, parent);
            if (rest.len) {
                lp_buf_putc(&path, '.');
                lp_buf_put_str(&path, rest);
            }
        } else {
            /* another crate of the publication, by its Cargo name */
            lp_gv_load_modules(v);
            size_t dot = lp_str_find_char(q, '.', 0);
            lp_str first = dot == SIZE_MAX ? q : lp_str_sub(q, 0, dot);
            bool known = false;
            for (size_t i = 0; i < v->crate_names.len && !known; i++)
                known = lp_str_eq_c(first, v->crate_names.items[i]);
            if (!known) {
                /* `use x::y` where x is a module declared here (2018 paths) */
                lp_buf_printf(&path, "%s.", mod.ptr);
                lp_buf_put_str(&path, q);
            } else {
                lp_buf_puts(&path, "crate");
                if (dot != SIZE_MAX)
                    lp_buf_put_str(&path, lp_str_sub(q, dot, q.len));
                /* cross-crate: resolved in that crate below */
            }
        }
        gfiles mf = {0};
        lp_gm_rust_module(v, rc->file, path.ptr, &mf);
        if (mf.len) {
            lp_gl_top_level_named(rc, &mf, name, K_ANY, &out->syms);
            if (out->syms.len) {
                out->kind = B_SYMBOLS;
                out->files = mf;
            } else {
                lp_buf sub;
                lp_buf_init(&sub, 0);
                lp_buf_printf(&sub, "%s.%s", path.ptr, name);
                gfiles sf = {0};
                lp_gm_rust_module(v, rc->file, sub.ptr, &sf);
                lp_buf_release(&sub);
                lp_vec_free(&mf);
                out->files = sf;
                out->kind = sf.len ? B_MODULE : B_MISSING;
            }
        } else {
            lp_buf sub;
            lp_buf_init(&sub, 0);
            lp_buf_printf(&sub, "%s.%s", path.ptr, name);
            lp_gm_rust_module(v, rc->file, sub.ptr, &out->files);
            lp_buf_release(&sub);
            out->kind = out->files.len ? B_MODULE : B_EXTERNAL;
            lp_vec_free(&mf);
        }
        lp_buf_release(&path);
        return;
    }
    default:
        return;
    }
}

/* Explicit import bindings of `name` visible from owner. */
static void import_lookup(rctx *rc, int32_t owner, const char *name, int want, cset *out,
                          bool *found_binding, binding *module_out)
{
    const gblob *b = rc->b;
    for (uint32_t i = 0; i < b->nsrefs; i++) {
        const gref *r = &b->srefs[i];
        if (r->kind != LP_REF_IMPORT || !import_visible(rc, r, owner))
            continue;
        if ((r->flags & LP_REFF_WILDCARD) || (!strcmp(r->name, "*") && !r->alias[0]))
            continue; /* import-everything forms: see wildcard_lookup */
        lp_str bound = import_binds(rc, r);
        if (!lp_str_eq_c(bound, name))
            continue;
        *found_binding = true;
        binding bb = {0};
        lp_gl_resolve_import(rc, r, &bb);
        if (bb.kind == B_SYMBOLS) {
            for (size_t k = 0; k < bb.syms.len; k++) {
                const gsym *s = lp_gl_sym_of(rc, bb.syms.items[k]);
                if (s && lp_gl_kind_ok(s->kind, want))
                    lp_gl_add_unique(out, bb.syms.items[k]);
            }
        } else if (module_out && module_out->kind == B_NONE && bb.kind != B_NONE) {
            *module_out = bb;
            memset(&bb, 0, sizeof bb);
        }
        lp_gl_binding_free(&bb);
    }
}

/* ------------------------------------------------------------------------------------------
 * Packages, wildcards, includes. */

/* Namespaces enclosing owner (C#): the qualified names of namespace symbols up the chain,
 * innermost first, then the file's own package prefix. */
static void enclosing_namespaces(rctx *rc, int32_t owner, const char **out, int *n, int max)
{
    *n = 0;
    for (int32_t s = owner; s >= 0 && (uint32_t)s < rc->b->nsyms && *n < max;
         s = rc->b->syms[s].parent)
        if (rc->b->syms[s].kind == LP_SYM_NAMESPACE || rc->b->syms[s].kind == LP_SYM_PACKAGE)
            out[(*n)++] = rc->b->syms[s].qname;
    lp_gv_derive(rc->v, rc->file);
    const char *pkg = rc->v->files[rc->file].pkg;
    if (*pkg && *n < max)
        out[(*n)++] = pkg;
}

/* Java and C# packages and namespaces hold types only, and so do Scala 2 packages (their
 * functions and values live in objects or package objects): a function or value whose
 * qualified name puts it directly in a package is a member of a class the parser lost
 * (tree-sitter-scala ends a class whose `{` opens on its own line after a multi-line
 * header), never a package member another file can call by its bare name. */
static void package_members_only(rctx *rc, cset *c)
{
    size_t k = 0;
    for (size_t i = 0; i < c->len; i++) {
        const gsym *s = lp_gl_sym_of(rc, c->items[i]);
        if (s && (lp_gv_is_type_kind(s->kind) || s->kind == LP_SYM_TYPE_ALIAS))
            c->items[k++] = c->items[i];
    }
    c->len = k;
}

static void package_lookup(rctx *rc, int32_t owner, const char *name, int want, cset *out)
{
    if (gl_modsys(rc->lang) != LP_MODSYS_PACKAGES)
        return;
    const char *ns[16];
    int n = 0;
    enclosing_namespaces(rc, owner, ns, &n, 16);
    for (int i = 0; i < n && !out->len; i++) {
        /* C#: A.B.C also sees A.B and A */
        lp_str q = lp_str_c(ns[i]);
        while (q.len && !out->len) {
            lp_buf full;
            lp_buf_init(&full, 0);
            lp_buf_printf(&full, LP_STR_FMT ".%s", LP_STR_ARG(q), name);
            lp_gl_by_qname(rc, full.ptr, want, out);
            lp_buf_release(&full);
            package_members_only(rc, out);
            if (!gl_has(rc->lang, LP_LANGG_NAMESPACE_PARENTS))
                break;
            size_t d = SIZE_MAX;
            for (size_t k = q.len; k > 0; k--)
                if (q.ptr[k - 1] == '.') {
                    d = k - 1;
                    break;
                }
            q = d == SIZE_MAX ? LP_STR("") : lp_str_sub(q, 0, d);
        }
    }
}

static void wildcard_lookup(rctx *rc, int32_t owner, const char *name, int want, cset *out)
{
    const gblob *b = rc->b;
    for (uint32_t i = 0; i < b->nsrefs; i++) {
        const gref *r = &b->srefs[i];
        if (r->kind != LP_REF_IMPORT || !import_visible(rc, r, owner))
            continue;
        if (!(r->flags & LP_REFF_WILDCARD) && !(!strcmp(r->name, "*") && !r->alias[0]))
            continue;
        switch (gl_modsys(rc->lang)) {
        case LP_MODSYS_PYTHON:
        case LP_MODSYS_GO: {
            gfiles mf = {0};
            bool ext = false;
            lp_gm_import_files(rc->v, rc->file, r, &mf, &ext);
            cset c = {0};
            lp_gl_top_level_named(rc, &mf, name, want, &c);
            if (gl_has(rc->lang, LP_LANGG_MODULE_REEXPORTS) && !c.len)
                lp_gl_reexported(rc, &mf, name, want, &c);
            for (size_t k = 0; k < c.len; k++)
                lp_gl_add_unique(out, c.items[k]);
            lp_vec_free(&c);
            lp_vec_free(&mf);
            break;
        }
        case LP_MODSYS_RUST: {
            gref as_mod = *r;
            lp_str q = lp_str_c(r->qual);
            lp_str last = lp_str_c(r->qual);
            size_t d = SIZE_MAX;
            for (size_t k = q.len; k > 0; k--)
                if (q.ptr[k - 1] == '.') {
                    d = k - 1;
                    break;
                }
            char *qual = NULL, *nm = NULL;
            if (d != SIZE_MAX) {
                qual = lp_xstrndup(q.ptr, d);
                last = lp_str_sub(q, d + 1, q.len);
            } else {
                qual = lp_xstrdup("");
            }
            nm = lp_xstrndup(last.ptr, last.len);
            as_mod.qual = qual;
            as_mod.name = nm;
            as_mod.flags &= ~LP_REFF_WILDCARD;
            binding bb = {0};
            lp_gl_resolve_import(rc, &as_mod, &bb);
            if (bb.kind == B_MODULE)
                lp_gl_top_level_named(rc, &bb.files, name, want, out);
            else if (bb.kind == B_SYMBOLS) { /* use Enum::* */
                for (size_t k = 0; k < bb.syms.len; k++) {
                    int level = 0;
                    lp_gl_members_of_type(rc, bb.syms.items[k], name, want, out, &level);
                }
            }
            lp_gl_binding_free(&bb);
            free(qual);
            free(nm);
            break;
        }
        default: {
            /* Java a.b.*, C# using A.B;, Scala a.b._, C++ using namespace X: qualified names */
            lp_buf full;
            lp_buf_init(&full, 0);
            lp_buf_printf(&full, "%s.%s", r->qual, name);
            lp_gl_by_qname(rc, full.ptr, want, out);
            lp_buf_release(&full);
            if (r->flags & LP_REFF_STATIC) { /* static members of a type */
                cset types = {0};
                lp_gl_by_qname(rc, r->qual, K_TYPE, &types);
                for (size_t k = 0; k < types.len; k++) {
                    int level = 0;
                    lp_gl_members_of_type(rc, types.items[k], name, want, out, &level);
                }
                lp_vec_free(&types);
            }
            break;
        }
        }
    }
    lp_gl_sort_set(out);
}

/* C/C++: visible declarations in the include closure, innermost namespaces first. */
static void include_lookup(rctx *rc, int32_t owner, const char *name, int want, cset *out)
{
    if (!lp_gl_lang_is_c(rc->lang))
        return;
    const u32_vec *cl = lp_gm_include_closure(rc->v, rc->file);
    const gpair *l = NULL;
    size_t n = 0;
    if (!cl->len || lp_gv_lookup(rc->v, name, strlen(name), &l, &n, NULL))
        return;
    /* namespaces enclosing the caller (its qualified name's prefixes), innermost first */
    const char *oq = owner >= 0 ? rc->b->syms[owner].qname : "";
    lp_str prefixes[8];
    int np = 0;
    lp_str q = lp_str_c(oq);
    while (np < 7) {
        size_t d = SIZE_MAX;
        for (size_t k = q.len; k > 0; k--)
            if (q.ptr[k - 1] == '.') {
                d = k - 1;
                break;
            }
        if (d == SIZE_MAX)
            break;
        q = lp_str_sub(q, 0, d);
        prefixes[np++] = q;
    }
    prefixes[np++] = LP_STR("");
    for (int p = 0; p < np && !out->len; p++) {
        for (size_t i = 0; i < n; i++) {
            /* binary search would do; closures are small enough for a scan of n */
            bool visible = false;
            size_t lo = 0, hi = cl->len;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                if (cl->items[mid] < l[i].file)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            visible = lo < cl->len && cl->items[lo] == l[i].file;
            if (!visible)
                continue;
            const gsym *s = lp_gl_sym_of(rc, l[i]);
            if (!s || !lp_gl_kind_ok(s->kind, want))
                continue;
            lp_str sq = lp_str_c(s->qname);
            bool match = prefixes[p].len
                             ? sq.len == prefixes[p].len + 1 + strlen(name) &&
                                   lp_str_starts_with(sq, prefixes[p]) && sq.ptr[prefixes[p].len] == '.'
                             : lp_str_eq_c(sq, name);
            if (match)
                lp_vec_push(out, l[i]);
        }
    }
}

/* C/C++: a declaration's definition elsewhere: same qualified name, a body, external
 * linkage (or the caller's own file). */
void lp_gl_c_definitions(rctx *rc, const gsym *decl, cset *out)
{
    const gpair *l = NULL;
    size_t n = 0;
    if (lp_gv_lookup(rc->v, decl->name, strlen(decl->name), &l, &n, NULL))
        return;
    for (size_t i = 0; i < n; i++) {
        if (!lp_gl_lang_is_c(rc->v->files[l[i].file].lang))
            continue;
        const gsym *s = lp_gl_sym_of(rc, l[i]);
        if (!s || (s->flags & LP_SYMF_DECLARATION) || s->kind != decl->kind ||
            strcmp(s->qname, decl->qname) != 0)
            continue;
        if (s->vis == LP_VIS_PRIVATE && l[i].file != rc->file)
            continue; /* static in another translation unit */
        lp_vec_push(out, l[i]);
    }
}

/* ------------------------------------------------------------------------------------------
 * Types and their members. */


/* Base types of type t (BASE references of its file owned by it), resolved in that file. */
void lp_gl_bases_of(rctx *rc, gpair t, cset *out)
{
    if (rc->depth > 8)
        return;
    const gblob *b = lp_gv_blob(rc->v, t.file, NULL);
    if (!b)
        return;
    rctx sub = {rc->v, t.file, rc->v->files[t.file].lang, b, rc->depth + 1};
    for (uint32_t i = 0; i < b->nsrefs; i++) {
        const gref *r = &b->srefs[i];
        if (r->kind != LP_REF_BASE || r->owner != t.ord)
            continue;
        /* the base list is outside the type's body: look from the type's parent scope */
        cset c = {0};
        int32_t scope = t.ord >= 0 && (uint32_t)t.ord < b->nsyms ? b->syms[t.ord].parent : -1;
        lp_gl_type_lookup(&sub, scope, r->qual, &c);
        if (c.len == 1)
            lp_gl_add_unique(out, c.items[0]); /* an ambiguous base is not followed */
        lp_vec_free(&c);
    }
}

/* Members named name of type t: its children, out-of-line members (Go methods, Rust impl
 * items, C++ Foo::bar definitions) with the type's qualified name, then bases level by
 * level. *level = 0 when found on t itself. */
void lp_gl_members_of_type(rctx *rc, gpair t, const char *name, int want, cset *out,
                            int *level)
{
    cset frontier = {0}, seen = {0};
    lp_vec_push(&frontier, t);
    *level = 0;
    for (int depth = 0; depth < 8 && frontier.len && !out->len; depth++) {
        cset next = {0};
        for (size_t f = 0; f < frontier.len; f++) {
            gpair ty = frontier.items[f];
            if (lp_gl_has_pair(&seen, ty))
                continue;
            lp_vec_push(&seen, ty);
            const gsym *ts = lp_gl_sym_of(rc, ty);
            if (!ts)
                continue;
            const gpair *l = NULL;
            size_t n = 0;
            if (lp_gv_lookup(rc->v, name, strlen(name), &l, &n, NULL))
                continue;
            lp_lang tl = rc->v->files[ty.file].lang;
            size_t qlen = strlen(ts->qname);
            for (size_t i = 0; i < n; i++) {
                /* Go: a member is declared in the type's file or, outline, in its package
                 * directory; other files are skipped before their symbols are read */
                if (gl_modsys(tl) == LP_MODSYS_GO && l[i].file != ty.file &&
                    strcmp(rc->v->files[l[i].file].dir, rc->v->files[ty.file].dir) != 0)
                    continue;
                const gsym *m = lp_gl_sym_of(rc, l[i]);
                if (!m || !lp_gl_kind_ok(m->kind, want) || m->kind == LP_SYM_PACKAGE)
                    continue;
                bool child = l[i].file == ty.file && m->parent == ty.ord;
                bool outline = false;
                if (!child && lp_gl_same_family(rc->v->files[l[i].file].lang, tl)) {
                    lp_str mq = lp_str_c(m->qname);
                    if (gl_modsys(tl) == LP_MODSYS_RUST) {
                        /* impl blocks anywhere in the crate: qname ends with Type.name */
                        lp_buf suf;
                        lp_buf_init(&suf, 0);
                        lp_buf_printf(&suf, "%s.%s", ts->name, name);
                        outline = (lp_str_eq(mq, lp_buf_str(&suf)) ||
                                   (lp_str_ends_with(mq, lp_buf_str(&suf)) &&
                                    mq.ptr[mq.len - suf.len - 1] == '.')) &&
                                  rc->v->files[l[i].file].crate == rc->v->files[ty.file].crate;
                        lp_buf_release(&suf);
                        lp_gv_derive(rc->v, l[i].file);
                    } else {
                        outline = mq.len == qlen + 1 + strlen(name) &&
                                  !memcmp(mq.ptr, ts->qname, qlen) && mq.ptr[qlen] == '.';
                        if (outline && gl_modsys(tl) == LP_MODSYS_GO) {
                            lp_gv_derive(rc->v, l[i].file);
                            lp_gv_derive(rc->v, ty.file);
                            outline = !strcmp(rc->v->files[l[i].file].dir, rc->v->files[ty.file].dir);
                        }
                    }
                }
                if (child || outline)
                    lp_gl_add_unique(out, l[i]);
            }
            lp_gl_bases_of(rc, ty, &next);
        }
        lp_vec_free(&frontier);
        frontier = next;
        if (!out->len)
            (*level)++;
    }
    lp_vec_free(&frontier);
    lp_vec_free(&seen);
    lp_gl_sort_set(out);
    lp_gl_collapse_declarations(rc, out);
}

/* ------------------------------------------------------------------------------------------
 * Names. */


void lp_gl_lookup_free(lookup *l)
{
    lp_vec_free(&l->cands);
    lp_gl_binding_free(&l->module);
}

static void go_package_top_level(rctx *rc, gpair p, int want, cset *out)
{
    const gsym *s = lp_gl_sym_of(rc, p);
    if (s && s->parent < 0 && lp_gl_kind_ok(s->kind, want) &&
        direct_member(s, "", file_pkg(rc, p.file)))
        lp_vec_push(out, p);
}

/* Go: the top-level definitions named name in the other files of the caller's package
 * (same directory, same package clause). One name lookup: when the name has few
 * definitions they are checked one by one, else each package file's are found by binary
 * search (the list is sorted by file). */
static void go_package_named(rctx *rc, const char *name, int want, cset *out)
{
    const gpair *found = NULL;
    size_t n = 0;
    if (lp_gv_lookup(rc->v, name, strlen(name), &found, &n, NULL) || !n)
        return;
    /* a copy: loading a blob below (lp_gl_sym_of) may grow the view's name lists */
    cset copy = {0};
    lp_vec_reserve(&copy, n);
    for (size_t i = 0; i < n; i++)
        lp_vec_push(&copy, found[i]);
    const gpair *l = copy.items;
    gview *v = rc->v;
    lp_gv_derive(v, rc->file);
    const gfile *f = &v->files[rc->file];
    if (n <= 64) {
        for (size_t i = 0; i < n; i++) {
            uint32_t fi = l[i].file;
            if (fi == rc->file || gl_modsys(v->files[fi].lang) != LP_MODSYS_GO ||
                strcmp(v->files[fi].dir, f->dir) != 0)
                continue;
            lp_gv_derive(v, fi);
            if (!strcmp(v->files[fi].pkg, f->pkg))
                go_package_top_level(rc, l[i], want, out);
        }
        lp_vec_free(&copy);
        return;
    }
    gfiles pk = {0};
    lp_gm_go_same_package(v, rc->file, &pk);
    for (size_t k = 0; k < pk.len; k++) {
        uint32_t file = pk.items[k];
        if (file == rc->file)
            continue;
        for (size_t i = first_of_file(l, n, file); i < n && l[i].file == file; i++)
            go_package_top_level(rc, l[i], want, out);
    }
    lp_vec_free(&pk);
    lp_vec_free(&copy);
}

void lp_gl_name_lookup(rctx *rc, int32_t owner, const char *name, int want, lookup *lk)
{
    memset(lk, 0, sizeof *lk);
    scope_lookup(rc, owner, name, want, &lk->cands, &lk->rule);
    if (lk->cands.len)
        goto found;
    if (gl_modsys(rc->lang) == LP_MODSYS_GO) {
        go_package_named(rc, name, want, &lk->cands);
        if (lk->cands.len) {
            lk->rule = GR_SAME_PACKAGE;
            goto found;
        }
    }
    import_lookup(rc, owner, name, want, &lk->cands, &lk->binding, &lk->module);
    if (lk->cands.len) {
        lk->rule = GR_IMPORT;
        goto found;
    }
    if (lk->binding)
        return; /* bound to a module or something outside: nothing further hides it */
    package_lookup(rc, owner, name, want, &lk->cands);
    if (lk->cands.len) {
        lk->rule = GR_SAME_PACKAGE;
        goto found;
    }
    wildcard_lookup(rc, owner, name, want, &lk->cands);
    if (lk->cands.len) {
        lk->rule = GR_WILDCARD_IMPORT;
        goto found;
    }
    include_lookup(rc, owner, name, want, &lk->cands);
    if (lk->cands.len)
        lk->rule = GR_INCLUDE_DECL;
found:
    lp_gl_sort_set(&lk->cands);
    lp_gl_collapse_declarations(rc, &lk->cands);
}

/* A type written as text ("Foo", "pkg.Foo", "a.b.Foo") seen from owner. */
void lp_gl_type_lookup(rctx *rc, int32_t owner, const char *text, cset *out)
{
    if (!text || !*text || rc->depth > 8)
        return;
    const char *dot = strrchr(text, '.');
    if (!dot) {
        lookup lk;
        lp_gl_name_lookup(rc, owner, text, K_TYPE, &lk);
        for (size_t i = 0; i < lk.cands.len; i++)
            lp_vec_push(out, lk.cands.items[i]);
        lp_gl_lookup_free(&lk);
        return;
    }
    /* qualified: an exact qualified name first (Java/C#/Scala/C++), then the qualifier as
     * a module or type and the last name as its member */
    lp_gl_by_qname(rc, text, K_TYPE, out);
    if (out->len)
        return;
    char *qual = lp_xstrndup(text, (size_t)(dot - text));
    binding q = {0};
    rctx sub = *rc;
    sub.depth++;
    lp_gr_qualifier(&sub, owner, qual, &q);
    if (q.kind == B_MODULE)
        lp_gl_top_level_named(rc, &q.files, dot + 1, K_TYPE, out);
    else if (q.kind == B_SYMBOLS)
        for (size_t i = 0; i < q.syms.len; i++) {
            int level = 0;
            lp_gl_members_of_type(rc, q.syms.items[i], dot + 1, K_TYPE, out, &level);
        }
    lp_gl_binding_free(&q);
    free(qual);
}

/* The module(s) or type(s) a qualifier ("os.path", "pkg", "a.b.Foo", "crate.x") names. */
void lp_gr_qualifier(rctx *rc, int32_t owner, const char *qual, binding *out)
{
    memset(out, 0, sizeof *out);
    if (rc->depth > 8)
        return;
    gview *v = rc->v;
    lp_str q = lp_str_c(qual);
    size_t dot = lp_str_find_char(q, '.', 0);
    lp_str first = dot == SIZE_MAX ? q : lp_str_sub(q, 0, dot);
    char *first_c = lp_xstrndup(first.ptr, first.len);
    /* Rust paths starting at the crate, self or super */
    if (gl_modsys(rc->lang) == LP_MODSYS_RUST &&
        (lp_str_eq_c(first, "crate") || lp_str_eq_c(first, "self") || lp_str_eq_c(first, "super"))) {
        gref fake;
        memset(&fake, 0, sizeof fake);
        lp_str last = q;
        size_t d = SIZE_MAX;
        for (size_t i = q.len; i > 0; i--)
            if (q.ptr[i - 1] == '.') {
                d = i - 1;
                break;
            }
        char *qq = d == SIZE_MAX ? lp_xstrdup("") : lp_xstrndup(q.ptr, d);
        last = d == SIZE_MAX ? q : lp_str_sub(q, d + 1, q.len);
        char *nm = lp_xstrndup(last.ptr, last.len);
        if (d == SIZE_MAX) { /* crate / self / super alone: a module */
            lp_gv_derive(v, rc->file);
            fake.qual = "";
            fake.name = "";
            free(qq);
            qq = lp_xstrdup(first_c);
        }
        fake.kind = LP_REF_IMPORT;
        fake.qual = qq;
        fake.name = nm;
        fake.alias = "";
        if (d == SIZE_MAX) {
            lp_buf p;
            lp_buf_init(&p, 0);
            lp_gv_derive(v, rc->file);
            lp_str mod = lp_str_c(v->files[rc->file].module);
            if (lp_str_eq_c(first, "crate"))
                lp_buf_puts(&p, "crate");
            else if (lp_str_eq_c(first, "self"))
                lp_buf_put_str(&p, mod);
            else {
                size_t dd = SIZE_MAX;
                for (size_t i = mod.len; i > 0; i--)
                    if (mod.ptr[i - 1] == '.') {
                        dd = i - 1;
                        break;
                    }
                lp_buf_put_str(&p, dd == SIZE_MAX ? mod : lp_str_sub(mod, 0, dd));
            }
            lp_gm_rust_module(v, rc->file, p.ptr, &out->files);
            out->kind = out->files.len ? B_MODULE : B_MISSING;
            lp_buf_release(&p);
        } else {
            lp_gl_resolve_import(rc, &fake, out);
        }
        free(qq);
        free(nm);
        free(first_c);
        return;
    }
    /* the first name: an import binding, else a definition in scope (type, module) */
    lookup lk;
    lp_gl_name_lookup(rc, owner, first_c, K_ANY, &lk);
    free(first_c);
    binding cur = {0};
    const gsym *only = lk.cands.len == 1 ? lp_gl_sym_of(rc, lk.cands.items[0]) : NULL;
    if (gl_modsys(rc->lang) == LP_MODSYS_RUST && only && only->kind == LP_SYM_MODULE &&
        (only->flags & LP_SYMF_DECLARATION)) {
        /* `mod x;` declared here: the child module's file */
        lp_gv_derive(v, rc->file);
        lp_buf p;
        lp_buf_init(&p, 0);
        lp_buf_printf(&p, "%s." LP_STR_FMT, v->files[rc->file].module, LP_STR_ARG(first));
        lp_gm_rust_module(v, rc->file, p.ptr, &cur.files);
        lp_buf_release(&p);
        cur.kind = cur.files.len ? B_MODULE : B_MISSING;
    } else if (lk.cands.len) {
        cur.kind = B_SYMBOLS;
        for (size_t i = 0; i < lk.cands.len; i++)
            lp_vec_push(&cur.syms, lk.cands.items[i]);
    } else if (lk.module.kind != B_NONE) {
        cur = lk.module;
        memset(&lk.module, 0, sizeof lk.module);
        /* Python `import a.b.c` binds a: the qualifier a.b.c is the module itself */
        if (gl_modsys(rc->lang) == LP_MODSYS_PYTHON && cur.kind != B_NONE && dot != SIZE_MAX) {
            const gblob *b = rc->b;
            for (uint32_t i = 0; i < b->nsrefs; i++) {
                const gref *r = &b->srefs[i];
                if (r->kind != LP_REF_IMPORT || r->alias[0] || r->name[0])
                    continue;
                lp_str rq = lp_str_c(r->qual);
                if (lp_str_eq(rq, q) ||
                    (q.len > rq.len && lp_str_starts_with(q, rq) && q.ptr[rq.len] == '.') ||
                    (rq.len > q.len && lp_str_starts_with(rq, q) && rq.ptr[q.len] == '.')) {
                    lp_gl_binding_free(&cur);
                    memset(&cur, 0, sizeof cur);
                    lp_gm_python_module(v, rc->file, qual, &cur.files);
                    cur.kind = cur.files.len ? B_MODULE : B_EXTERNAL;
                    lp_gl_lookup_free(&lk);
                    *out = cur;
                    return;
                }
            }
        }
    } else if (gl_modsys(rc->lang) == LP_MODSYS_RUST) {
        /* a child module of this module, or a crate of the publication */
        lp_gv_derive(v, rc->file);
        lp_buf p;
        lp_buf_init(&p, 0);
        lp_buf_printf(&p, "%s." LP_STR_FMT, v->files[rc->file].module, LP_STR_ARG(first));
        lp_gm_rust_module(v, rc->file, p.ptr, &cur.files);
        lp_buf_release(&p);
        cur.kind = cur.files.len ? B_MODULE : B_NONE;
    }
    lp_gl_lookup_free(&lk);
    if (cur.kind == B_NONE && gl_has(rc->lang, LP_LANGG_QUALIFIED_TYPES)) {
        /* a fully qualified type: a.b.Foo */
        lp_gl_by_qname(rc, qual, K_TYPE | K_ANY, &cur.syms);
        lp_gl_filter_kind(rc, &cur.syms, K_TYPE);
        if (cur.syms.len) {
            cur.kind = B_SYMBOLS;
            *out = cur;
            return;
        }
        if (gl_has(rc->lang, LP_LANGG_NAMESPACE_PATHS)) {
            /* a namespace: its members are found by qualified name by the caller */
            cur.kind = B_NONE;
        }
    }
    /* the rest of the qualifier, one name at a time */
    size_t pos = dot == SIZE_MAX ? q.len : dot + 1;
    while (pos < q.len && cur.kind != B_NONE && cur.kind != B_EXTERNAL && cur.kind != B_MISSING) {
        size_t nd = lp_str_find_char(q, '.', pos);
        if (nd == SIZE_MAX)
            nd = q.len;
        char *seg = lp_xstrndup(q.ptr + pos, nd - pos);
        binding next = {0};
        if (cur.kind == B_MODULE) {
            lp_gl_top_level_named(rc, &cur.files, seg, K_ANY, &next.syms);
            if (next.syms.len) {
                next.kind = B_SYMBOLS;
            } else if (gl_modsys(rc->lang) == LP_MODSYS_PYTHON && cur.files.len == 1) {
                lp_gv_derive(v, cur.files.items[0]);
                lp_buf m;
                lp_buf_init(&m, 0);
                lp_buf_printf(&m, "%s.%s", v->files[cur.files.items[0]].module, seg);
                lp_gm_python_module(v, rc->file, m.ptr, &next.files);
                lp_buf_release(&m);
                next.kind = next.files.len ? B_MODULE : B_MISSING;
            } else if (gl_modsys(rc->lang) == LP_MODSYS_RUST && cur.files.len) {
                lp_gv_derive(v, cur.files.items[0]);
                lp_buf m;
                lp_buf_init(&m, 0);
                lp_buf_printf(&m, "%s.%s", v->files[cur.files.items[0]].module, seg);
                lp_gm_rust_module(v, cur.files.items[0], m.ptr, &next.files);
                lp_buf_release(&m);
                next.kind = next.files.len ? B_MODULE : B_MISSING;
            } else {
                next.kind = B_MISSING;
            }
        } else {
            for (size_t i = 0; i < cur.syms.len; i++) {
                const gsym *s = lp_gl_sym_of(rc, cur.syms.items[i]);
                if (!s)
                    continue;
                if (lp_gv_is_type_kind(s->kind) || lp_gl_is_container_kind(s->kind) ||
                    s->kind == LP_SYM_NAMESPACE) {
                    int level = 0;
                    lp_gl_members_of_type(rc, cur.syms.items[i], seg, K_ANY, &next.syms, &level);
                }
            }
            next.kind = next.syms.len ? B_SYMBOLS : B_MISSING;
        }
        free(seg);
        lp_gl_binding_free(&cur);
        cur = next;
        pos = nd + 1;
    }
    *out = cur;
}

