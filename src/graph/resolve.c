/*
 * resolve.c: one reference -> an edge (with the rule that proves it), an ambiguous
 * reference (with its candidates) or an unresolved one (with a reason). The rules are
 * documented in docs/graph-rules.md; the name lookups they use are in lookup.c.
 */
#include "graph/graph_int.h"

#include <stdlib.h>

/* ------------------------------------------------------------------------------------------
 * Decisions. */

static bool constructs_by_call(lp_lang l) { return gl_has(l, LP_LANGG_CALL_CONSTRUCTS); }

/* Turn candidates for a call into a result. */
/* `new X`: interfaces, traits and type aliases declare types only, never constructors (in
 * TypeScript an interface may share its name with the constant that is the constructor:
 * `new X()` means the constant). */
static void drop_type_only(rctx *rc, cset *c)
{
    size_t k = 0;
    for (size_t i = 0; i < c->len; i++) {
        const gsym *s = lp_gl_sym_of(rc, c->items[i]);
        if (s && (s->kind == LP_SYM_INTERFACE || s->kind == LP_SYM_TRAIT ||
                  s->kind == LP_SYM_TYPE_ALIAS))
            continue;
        c->items[k++] = c->items[i];
    }
    c->len = k;
}

static void decide_call(rctx *rc, const gref *r, cset *c, gr_rule rule, gres *out)
{
    if (r->kind == LP_REF_NEW) {
        size_t before = c->len;
        drop_type_only(rc, c);
        if (!c->len) {
            lp_gl_set_unresolved(out, before ? GR_R_NOT_CALLABLE : GR_R_TYPE_NOT_FOUND);
            return;
        }
    }
    /* C/C++: visible declarations -> their definition */
    if (lp_gl_lang_is_c(rc->lang) && c->len) {
        bool all_decl = true;
        for (size_t i = 0; i < c->len && all_decl; i++) {
            const gsym *s = lp_gl_sym_of(rc, c->items[i]);
            all_decl = s && (s->flags & LP_SYMF_DECLARATION) && lp_gv_is_callable_kind(s->kind);
        }
        if (all_decl) {
            cset defs = {0};
            for (size_t i = 0; i < c->len; i++) {
                cset d = {0};
                lp_gl_c_definitions(rc, lp_gl_sym_of(rc, c->items[i]), &d);
                for (size_t k = 0; k < d.len; k++)
                    lp_gl_add_unique(&defs, d.items[k]);
                lp_vec_free(&d);
            }
            lp_gl_sort_set(&defs);
            if (defs.len) {
                lp_vec_free(c);
                *c = defs;
                if (rule == GR_SAME_FILE)
                    rule = GR_INCLUDE_DECL;
            } else {
                lp_vec_free(&defs);
                if (c->len == 1)
                    rule = GR_DECLARATION_ONLY;
            }
        }
    }
    if (c->len == 1) {
        const gsym *s = lp_gl_sym_of(rc, c->items[0]);
        if (!s) {
            lp_gl_set_unresolved(out, GR_R_NO_DEFINITION);
            return;
        }
        if (lp_gv_is_type_kind(s->kind)) {
            if (r->kind == LP_REF_NEW || constructs_by_call(rc->lang)) {
                lp_gl_set_targets(out, c, GR_CONSTRUCTOR);
                return;
            }
            lp_gl_set_unresolved(out, gl_has(rc->lang, LP_LANGG_CALL_CONVERTS) ? GR_R_CONVERSION
                                                                            : GR_R_NOT_CALLABLE);
            return;
        }
        if (s->kind == LP_SYM_TYPE_ALIAS) {
            lp_gl_set_unresolved(out, gl_has(rc->lang, LP_LANGG_CALL_CONVERTS) ? GR_R_CONVERSION
                                                                            : GR_R_TYPE_NOT_FOUND);
            return;
        }
        if (!lp_gv_is_callable_kind(s->kind)) {
            lp_gl_set_unresolved(out, GR_R_NOT_CALLABLE);
            return;
        }
        if (r->kind == LP_REF_NEW && !gl_has(rc->lang, LP_LANGG_NEW_ANY_VALUE)) {
            lp_gl_set_unresolved(out, GR_R_TYPE_NOT_FOUND);
            return;
        }
    }
    lp_gl_set_targets(out, c, rule);
}

static void why_missing(rctx *rc, const char *name, gres *out)
{
    const gpair *l = NULL;
    size_t n = 0;
    lp_gv_lookup(rc->v, name, strlen(name), &l, &n, NULL);
    lp_gl_set_unresolved(out, n ? GR_R_NOT_VISIBLE : GR_R_NO_DEFINITION);
}

/* The type enclosing the caller (self/this), or by name from the method's qualified name. */
static void self_types(rctx *rc, const gref *r, cset *out)
{
    const gblob *b = rc->b;
    for (int32_t s = r->owner; s >= 0 && (uint32_t)s < b->nsyms; s = b->syms[s].parent)
        if (lp_gv_is_type_kind(b->syms[s].kind)) {
            lp_vec_push(out, ((gpair){rc->file, s}));
            return;
        }
    if (!r->rtype[0] || r->owner < 0)
        return;
    /* out-of-line methods: the type named in the method's qualified name */
    int32_t m = r->owner;
    while (m >= 0 && !lp_gl_is_function_kind(b->syms[m].kind))
        m = b->syms[m].parent;
    if (m < 0)
        return;
    lp_str q = lp_str_c(b->syms[m].qname);
    size_t nl = strlen(b->syms[m].name);
    if (q.len <= nl + 1)
        return;
    char *tq = lp_xstrndup(q.ptr, q.len - nl - 1);
    cset c = {0};
    lp_gl_by_qname(rc, tq, K_TYPE, &c);
    for (size_t i = 0; i < c.len; i++) {
        gpair p = c.items[i];
        const gfile *tf = &rc->v->files[p.file];
        if (gl_modsys(rc->lang) == LP_MODSYS_GO && strcmp(tf->dir, rc->v->files[rc->file].dir) != 0)
            continue;
        if (gl_modsys(rc->lang) == LP_MODSYS_RUST) {
            lp_gv_derive(rc->v, p.file);
            lp_gv_derive(rc->v, rc->file);
            if (tf->crate != rc->v->files[rc->file].crate)
                continue;
        }
        if (lp_gl_lang_is_c(rc->lang) && p.file != rc->file) {
            const u32_vec *cl = lp_gm_include_closure(rc->v, rc->file);
            bool vis = false;
            for (size_t k = 0; k < cl->len && !vis; k++)
                vis = cl->items[k] == p.file;
            if (!vis)
                continue;
        }
        lp_vec_push(out, p);
    }
    if (!out->len && gl_modsys(rc->lang) == LP_MODSYS_RUST) {
        /* impl Foo in another module than struct Foo: by simple name within the crate */
        lookup lk;
        lp_gl_name_lookup(rc, r->owner, r->rtype, K_TYPE, &lk);
        for (size_t i = 0; i < lk.cands.len; i++)
            lp_vec_push(out, lk.cands.items[i]);
        lp_gl_lookup_free(&lk);
    }
    lp_vec_free(&c);
    free(tq);
}

/* Python and JS/TS members share one namespace: a field or attribute named like a base's
 * method hides it (x.f() then calls the field's value: not an edge). Elsewhere methods and
 * fields are looked up apart. */
static int member_want(const rctx *rc)
{
    return gl_has(rc->lang, LP_LANGG_SHARED_MEMBERS) ? K_ANY : K_CALLABLE;
}

static void resolve_member_call(rctx *rc, const gref *r, const cset *types, bool skip_self,
                                gr_rule own_rule, gres *out)
{
    if (types->len != 1) {
        lp_gl_set_unresolved(out, GR_R_TYPE_NOT_FOUND);
        return;
    }
    cset c = {0};
    int level = 0;
    if (skip_self) {
        cset bases = {0};
        lp_gl_bases_of(rc, types->items[0], &bases);
        for (size_t i = 0; i < bases.len && !c.len; i++)
            lp_gl_members_of_type(rc, bases.items[i], r->name, member_want(rc), &c, &level);
        lp_vec_free(&bases);
        if (!c.len) {
            lp_gl_set_unresolved(out, GR_R_MEMBER_NOT_FOUND);
            return;
        }
        decide_call(rc, r, &c, GR_SUPER_METHOD, out);
    } else {
        lp_gl_members_of_type(rc, types->items[0], r->name, member_want(rc), &c, &level);
        if (!c.len) {
            lp_gl_set_unresolved(out, GR_R_MEMBER_NOT_FOUND);
        } else {
            decide_call(rc, r, &c, level == 0 ? own_rule : GR_BASE_METHOD, out);
        }
    }
    lp_vec_free(&c);
}

static void resolve_call(rctx *rc, const gref *r, gres *out)
{
    out->edge = LP_EDGE_CALLS;
    if (r->flags & LP_REFF_SHADOWED) {
        lp_gl_set_unresolved(out, GR_R_SHADOWED);
        return;
    }
    if (r->flags & LP_REFF_COMPLEX) {
        lp_gl_set_unresolved(out, GR_R_RECEIVER_EXPR);
        return;
    }
    if (r->flags & LP_REFF_UNTYPED) {
        lp_gl_set_unresolved(out, GR_R_RECEIVER_UNTYPED);
        return;
    }
    if (!r->name[0]) {
        lp_gl_set_unresolved(out, GR_R_RECEIVER_EXPR);
        return;
    }
    if ((r->flags & LP_REFF_MACRO) && gl_has(rc->lang, LP_LANGG_MACRO_TEXTUAL)) {
        /* macro_rules! textual scope: defined earlier in this file, in the caller's module
         * or one enclosing it; the last such definition wins (shadowing) */
        lookup lk;
        memset(&lk, 0, sizeof lk);
        lp_gl_in_file(rc, rc->file, r->name, &lk.cands);
        int32_t best = -1;
        for (size_t i = 0; i < lk.cands.len; i++) {
            const gsym *s = lp_gl_sym_of(rc, lk.cands.items[i]);
            if (!s || s->kind != LP_SYM_MACRO || s->start_byte >= r->start_byte)
                continue;
            bool encloses = s->parent < 0;
            for (int32_t o = r->owner; !encloses && o >= 0 && (uint32_t)o < rc->b->nsyms;
                 o = rc->b->syms[o].parent)
                encloses = o == s->parent;
            if (encloses && (best < 0 || s->start_byte > lp_gl_sym_of(rc, lk.cands.items[best])->start_byte))
                best = (int32_t)i;
        }
        if (best >= 0) {
            cset one = {0};
            lp_vec_push(&one, lk.cands.items[best]);
            lp_gl_set_targets(out, &one, GR_SAME_FILE);
            lp_vec_free(&one);
        } else {
            lp_gl_set_unresolved(out, GR_R_NO_DEFINITION);
        }
        lp_gl_lookup_free(&lk);
        return;
    }
    cset types = {0};
    if (r->flags & (LP_REFF_SELF | LP_REFF_SUPER)) {
        self_types(rc, r, &types);
        if (!types.len) {
            lp_gl_set_unresolved(out, GR_R_TYPE_NOT_FOUND);
        } else {
            resolve_member_call(rc, r, &types, (r->flags & LP_REFF_SUPER) != 0, GR_SELF_METHOD,
                                out);
        }
        lp_vec_free(&types);
        return;
    }
    if (r->flags & LP_REFF_TYPED) {
        lp_gl_type_lookup(rc, r->owner, r->rtype, &types);
        lp_gl_filter_kind(rc, &types, K_TYPE);
        if (!types.len && (r->flags & LP_REFF_RTYPE_CALL))
            lp_gl_set_unresolved(out, GR_R_RECEIVER_UNTYPED);
        else
            resolve_member_call(rc, r, &types, false, GR_TYPED_RECEIVER, out);
        lp_vec_free(&types);
        return;
    }
    if (gl_has(rc->lang, LP_LANGG_THIS_CONSTRUCTOR) && !r->qual[0] && !strcmp(r->name, "this")) {
        /* `def this(...) = this(...)`: an auxiliary constructor calls another constructor
         * of its own class; like every constructor call, the edge goes to the class.
         * Anywhere else `this(i)` is `this.apply(i)`, which these rules do not follow. */
        bool ctor = r->owner >= 0 && (uint32_t)r->owner < rc->b->nsyms &&
                    !strcmp(rc->b->syms[r->owner].name, "this");
        if (ctor)
            self_types(rc, r, &types);
        if (types.len == 1)
            lp_gl_set_targets(out, &types, GR_CONSTRUCTOR);
        else
            lp_gl_set_unresolved(out, ctor ? GR_R_TYPE_NOT_FOUND : GR_R_UNSUPPORTED);
        lp_vec_free(&types);
        return;
    }
    if (!r->qual[0]) {
        lookup lk;
        /* JS/TS `new X`: X is a value (class, function or constant), looked up as one */
        int want = r->kind != LP_REF_NEW        ? K_CALLABLE | K_ANY
                   : gl_has(rc->lang, LP_LANGG_NEW_ANY_VALUE) ? K_ANY
                                             : K_TYPE;
        lp_gl_name_lookup(rc, r->owner, r->name, want,
                    &lk);
        if (!lk.cands.len) {
            if (lk.binding)
                lp_gl_set_unresolved(out, lk.module.kind == B_EXTERNAL || lk.module.kind == B_NONE
                                        ? GR_R_MODULE_NOT_FOUND
                                        : lk.module.kind == B_MODULE ? GR_R_NOT_CALLABLE
                                                                     : GR_R_MEMBER_NOT_FOUND);
            else
                why_missing(rc, r->name, out);
        } else {
            decide_call(rc, r, &lk.cands, lk.rule, out);
        }
        lp_gl_lookup_free(&lk);
        return;
    }
    /* qualified: the qualifier names a module or a type */
    binding q;
    lp_gr_qualifier(rc, r->owner, r->qual, &q);
    cset c = {0};
    gr_rule rule = GR_MODULE_MEMBER;
    if (q.kind == B_MODULE) {
        lp_gl_top_level_named(rc, &q.files, r->name, K_CALLABLE | K_ANY, &c);
        if (!c.len && gl_has(rc->lang, LP_LANGG_MODULE_REEXPORTS))
            lp_gl_reexported(rc, &q.files, r->name, K_CALLABLE | K_ANY, &c);
        if (r->flags & LP_REFF_PATH)
            rule = GR_QUALIFIED_PATH;
        lp_gl_sort_set(&c);
        lp_gl_collapse_declarations(rc, &c);
        if (!c.len)
            lp_gl_set_unresolved(out, GR_R_MEMBER_NOT_FOUND);
        else
            decide_call(rc, r, &c, rule, out);
    } else if (q.kind == B_SYMBOLS) {
        lp_gl_filter_kind(rc, &q.syms, K_TYPE | K_ANY);
        cset tys = {0};
        for (size_t i = 0; i < q.syms.len; i++) {
            const gsym *s = lp_gl_sym_of(rc, q.syms.items[i]);
            if (s && (lp_gv_is_type_kind(s->kind) || lp_gl_is_container_kind(s->kind) ||
                      s->kind == LP_SYM_NAMESPACE || s->kind == LP_SYM_ENUM))
                lp_vec_push(&tys, q.syms.items[i]);
        }
        if (!tys.len) {
            lp_gl_set_unresolved(out, GR_R_RECEIVER_UNKNOWN); /* a variable or function */
        } else if (tys.len > 1) {
            lp_gl_set_unresolved(out, GR_R_TYPE_NOT_FOUND);
        } else {
            int level = 0;
            lp_gl_members_of_type(rc, tys.items[0], r->name,
                            r->kind == LP_REF_NEW ? K_TYPE : K_CALLABLE, &c, &level);
            if (!c.len)
                lp_gl_set_unresolved(out, GR_R_MEMBER_NOT_FOUND);
            else
                decide_call(rc, r, &c,
                            (r->flags & LP_REFF_PATH) ? GR_QUALIFIED_PATH
                            : level == 0              ? GR_STATIC_MEMBER
                                                      : GR_BASE_METHOD,
                            out);
        }
        lp_vec_free(&tys);
    } else if (q.kind == B_EXTERNAL) {
        lp_gl_set_unresolved(out, GR_R_MODULE_NOT_FOUND);
    } else if (gl_has(rc->lang, LP_LANGG_NAMESPACE_PATHS) && (r->flags & LP_REFF_PATH)) {
        /* ns::f: the qualified name among visible declarations */
        lp_buf full;
        lp_buf_init(&full, 0);
        lp_buf_printf(&full, "%s.%s", r->qual, r->name);
        lp_gl_by_qname(rc, full.ptr, K_CALLABLE | K_ANY, &c);
        lp_buf_release(&full);
        /* keep the caller's file and its include closure */
        const u32_vec *cl = lp_gm_include_closure(rc->v, rc->file);
        size_t k = 0;
        for (size_t i = 0; i < c.len; i++) {
            bool vis = c.items[i].file == rc->file;
            for (size_t j = 0; j < cl->len && !vis; j++)
                vis = cl->items[j] == c.items[i].file;
            if (vis)
                c.items[k++] = c.items[i];
        }
        c.len = k;
        lp_gl_collapse_declarations(rc, &c);
        if (c.len)
            decide_call(rc, r, &c, GR_QUALIFIED_PATH, out);
        else
            why_missing(rc, r->name, out);
    } else {
        lp_gl_set_unresolved(out, q.kind == B_MISSING ? GR_R_MEMBER_NOT_FOUND : GR_R_RECEIVER_UNKNOWN);
    }
    lp_vec_free(&c);
    lp_gl_binding_free(&q);
}

static void resolve_import_ref(rctx *rc, const gref *r, gres *out)
{
    out->edge = LP_EDGE_IMPORTS;
    if (gl_has(rc->lang, LP_LANGG_WILDCARD_NO_TARGET) && !strcmp(r->name, "*")) {
        /* a package / namespace (using namespace X in C++): no single file to point at */
        out->status = GR_NONE;
        return;
    }
    binding b;
    if (gl_modsys(rc->lang) == LP_MODSYS_PYTHON && !strcmp(r->name, "*")) {
        gref m = *r;
        m.name = "";
        lp_gl_resolve_import(rc, &m, &b);
    } else {
        lp_gl_resolve_import(rc, r, &b);
    }
    if (b.kind == B_SYMBOLS) {
        lp_gl_collapse_declarations(rc, &b.syms);
        lp_gl_set_targets(out, &b.syms, GR_IMPORT_SYMBOL);
        /* one module declaring the name several times (a TypeScript interface and the
         * constant of the same name, redefinitions): the import binds them all */
        bool one_file = b.syms.len > 1;
        for (size_t i = 1; i < b.syms.len && one_file; i++)
            one_file = b.syms.items[i].file == b.syms.items[0].file;
        if (one_file && b.syms.len <= GR_MAX_TARGETS) {
            out->status = GR_PROVED;
            out->rule = GR_IMPORT_SYMBOL;
        }
    } else if (b.kind == B_MODULE) {
        cset files = {0};
        for (size_t i = 0; i < b.files.len; i++)
            lp_vec_push(&files, ((gpair){b.files.items[i], -1}));
        lp_gl_set_targets(out, &files, GR_IMPORT_FILE);
        /* a module made of several files (a Go package) is one target */
        if (files.len > 1 && gl_modsys(rc->lang) == LP_MODSYS_GO) {
            out->status = GR_PROVED;
            out->rule = GR_IMPORT_FILE;
        }
        lp_vec_free(&files);
    } else {
        lp_gl_set_unresolved(out, b.kind == B_EXTERNAL ? GR_R_MODULE_NOT_FOUND : GR_R_MEMBER_NOT_FOUND);
    }
    lp_gl_binding_free(&b);
}

static void resolve_export_ref(rctx *rc, const gref *r, gres *out)
{
    out->edge = LP_EDGE_EXPORTS;
    cset c = {0};
    if (!r->qual[0]) {
        gfiles self = {0};
        lp_vec_push(&self, rc->file);
        lp_gl_top_level_named(rc, &self, r->name, K_ANY, &c);
        lp_vec_free(&self);
        lp_gl_collapse_declarations(rc, &c);
        if (c.len)
            lp_gl_set_targets(out, &c, GR_EXPORT_LIST);
        else
            lp_gl_set_unresolved(out, GR_R_MEMBER_NOT_FOUND);
        lp_vec_free(&c);
        return;
    }
    gref as_import = *r;
    as_import.kind = LP_REF_IMPORT;
    if (!strcmp(r->name, "*"))
        as_import.name = "";
    binding b;
    lp_gl_resolve_import(rc, &as_import, &b);
    if (b.kind == B_SYMBOLS) {
        lp_gl_set_targets(out, &b.syms, GR_REEXPORT);
    } else if (b.kind == B_MODULE && !strcmp(r->name, "*")) {
        for (size_t i = 0; i < b.files.len; i++)
            lp_vec_push(&c, ((gpair){b.files.items[i], -1}));
        lp_gl_set_targets(out, &c, GR_REEXPORT);
    } else {
        lp_gl_set_unresolved(out, b.kind == B_EXTERNAL ? GR_R_MODULE_NOT_FOUND : GR_R_MEMBER_NOT_FOUND);
    }
    lp_vec_free(&c);
    lp_gl_binding_free(&b);
}

static void resolve_test_name(rctx *rc, const gref *r, gres *out)
{
    out->edge = LP_EDGE_TESTS;
    lookup lk;
    /* the tested symbol is visible from the test's file (not from inside the test) */
    int32_t owner = r->owner >= 0 ? rc->b->syms[r->owner].parent : -1;
    lp_gl_name_lookup(rc, owner, r->name, K_CALLABLE, &lk);
    size_t k = 0;
    for (size_t i = 0; i < lk.cands.len; i++) {
        gpair p = lk.cands.items[i];
        lp_gv_derive(rc->v, p.file);
        const gsym *s = lp_gl_sym_of(rc, p);
        if (rc->v->files[p.file].is_test || !s || (s->flags & LP_SYMF_TEST) ||
            (p.file == rc->file && p.ord == r->owner))
            continue;
        lk.cands.items[k++] = p;
    }
    lk.cands.len = k;
    if (!lk.cands.len)
        lp_gl_set_unresolved(out, GR_R_NOT_VISIBLE);
    else
        lp_gl_set_targets(out, &lk.cands, GR_TEST_NAME);
    lp_gl_lookup_free(&lk);
}

bool lp_gr_source_is_test(gview *v, uint32_t file, int32_t owner)
{
    lp_gv_derive(v, file);
    if (v->files[file].is_test)
        return true;
    const gblob *b = lp_gv_blob(v, file, NULL);
    for (int32_t s = owner; b && s >= 0 && (uint32_t)s < b->nsyms; s = b->syms[s].parent)
        if (b->syms[s].flags & LP_SYMF_TEST)
            return true;
    return false;
}

void lp_gr_resolve(gview *v, uint32_t file, const gref *r, gres *out)
{
    memset(out, 0, sizeof *out);
    const gblob *b = lp_gv_blob(v, file, NULL);
    if (!b)
        return;
    rctx rc = {v, file, v->files[file].lang, b, 0};
    switch (r->kind) {
    case LP_REF_CALL:
    case LP_REF_NEW:
        resolve_call(&rc, r, out);
        if (out->status == GR_PROVED && lp_gr_source_is_test(v, file, r->owner)) {
            lp_gv_derive(v, out->targets[0].file);
            out->tests = !v->files[out->targets[0].file].is_test;
        }
        break;
    case LP_REF_IMPORT:
        resolve_import_ref(&rc, r, out);
        break;
    case LP_REF_EXPORT:
        resolve_export_ref(&rc, r, out);
        break;
    case LP_REF_TESTNAME:
        resolve_test_name(&rc, r, out);
        break;
    default:
        out->status = GR_NONE;
        break;
    }
}

void lp_gr_file_edges(gview *v, uint32_t file,
                   void (*emit)(void *ctx, int32_t ref_ord, int32_t src_ord, lp_edge_kind kind,
                                gpair dst, gr_rule rule),
                   void *ctx)
{
    const gfile *f = &v->files[file];
    if (!lp_gl_lang_is_js(f->lang))
        return;
    const gblob *b = lp_gv_blob(v, file, NULL);
    for (uint32_t i = 0; b && i < b->nsyms; i++) {
        const gsym *s = &b->syms[i];
        if (s->parent < 0 && s->vis == LP_VIS_PUBLIC)
            emit(ctx, -1 - (int32_t)i, -1, LP_EDGE_EXPORTS, (gpair){file, (int32_t)i},
                 GR_EXPORT_DECL);
    }
}
