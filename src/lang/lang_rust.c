/*
 * lang_rust.c: Rust's hook.
 *
 * - `impl Type` and `impl Trait for Type` blocks are scopes: functions inside are methods
 *   qualified by the type (generics, references and paths cleaned: `impl<T> From<T> for
 *   Wrapper<T>` qualifies by Wrapper) whose parent is the type when this file declares it;
 *   functions in a trait are methods too (signatures without a body are declarations);
 * - modules qualify what they contain (store.Store.get, '.'-joined like every language);
 *   `mod x;` is a declaration;
 * - visibility: `pub` is public, `pub(crate)` / `pub(super)` / `pub(in path)` internal,
 *   `pub(self)` or nothing private; trait items, items of `impl Trait for` blocks and enum
 *   variants have no visibility of their own (unknown); #[macro_export] macros are public;
 * - flags: async (fn modifiers), static (static items: constants unless `static mut`),
 *   test (#[test], #[tokio::test] and any attribute path ending in `test`; modules under
 *   #[cfg(test)]), declaration (signatures, extern blocks, `mod x;`).
 */
#include "lang/lang_int.h"
#include "lang/refs_int.h"

const TSLanguage *tree_sitter_rust(void);

static lp_visibility vis_of(const lx_ctx *cx, TSNode item)
{
    TSNode v = lp_lx_child_of_type(item, "visibility_modifier");
    if (ts_node_is_null(v))
        return LP_VIS_PRIVATE;
    lp_str t = lx_text(cx, v);
    if (lp_str_eq_c(t, "pub"))
        return LP_VIS_PUBLIC;
    if (lp_str_starts_with(t, LP_STR("pub(self")) || lp_str_starts_with(t, LP_STR("pub( self")))
        return LP_VIS_PRIVATE;
    return LP_VIS_INTERNAL;
}

static bool refine(lx_ctx *cx, const lx_def *d, lx_sym *s, lx_scope *scope)
{
    if (scope) {
        scope->name = lp_lx_clean_type_name(cx, lx_text(cx, d->name));
        TSNode trait = ts_node_child_by_field_name(d->node, "trait", 5);
        if (!ts_node_is_null(trait))
            scope->trait = lp_lx_clean_type_name(cx, lx_text(cx, trait));
        return true;
    }
    const char *type = ts_node_type(d->node);
    const lx_sym *container = lp_lx_container(cx);
    const lx_scope *sc = lp_lx_scope_cur(cx);
    bool in_trait = container && container->kind == LP_SYM_TRAIT && !sc;
    bool in_trait_impl = sc && sc->trait.len;
    TSNode p1 = lp_lx_ancestor(cx, 1), p2 = lp_lx_ancestor(cx, 2);
    bool in_extern = lx_is(p1, "declaration_list") && lx_is(p2, "foreign_mod_item");

    s->vis = vis_of(cx, d->node);
    if (in_trait || in_trait_impl || s->kind == LP_SYM_ENUM_MEMBER ||
        (container && container->kind == LP_SYM_ENUM_MEMBER))
        s->vis = LP_VIS_UNKNOWN;

    switch (s->kind) {
    case LP_SYM_FUNCTION:
        if (sc || in_trait)
            s->kind = LP_SYM_METHOD;
        if (!strcmp(type, "function_signature_item"))
            s->flags |= LP_SYMF_DECLARATION;
        if (in_extern) {
            s->flags |= LP_SYMF_DECLARATION;
            s->outer = d->node;
        }
        {
            TSNode mods = lp_lx_child_of_type(d->node, "function_modifiers");
            if (!ts_node_is_null(mods) && lp_lx_has_keyword(cx, mods, "async"))
                s->flags |= LP_SYMF_ASYNC;
        }
        break;
    case LP_SYM_VARIABLE: /* static items */
        s->flags |= LP_SYMF_STATIC;
        if (ts_node_is_null(lp_lx_child_of_type(d->node, "mutable_specifier")))
            s->kind = LP_SYM_CONSTANT;
        break;
    case LP_SYM_MODULE:
        if (!s->has_body)
            s->flags |= LP_SYMF_DECLARATION;
        break;
    case LP_SYM_MACRO: {
        /* the signature is `macro_rules! name`: the rules are the body */
        uint32_t e = ts_node_end_byte(d->name);
        if (e > ts_node_start_byte(d->node))
            s->sig_end = e;
        break;
    }
    case LP_SYM_TYPE_ALIAS:
        if (!strcmp(type, "associated_type"))
            s->flags |= LP_SYMF_DECLARATION;
        break;
    default:
        break;
    }
    return true;
}

/* Does an attribute path (text after "#[" up to '(' or ']') end in `test`? */
static bool attr_is_test(lp_str attr)
{
    size_t end = 0;
    while (end < attr.len && attr.ptr[end] != '(' && attr.ptr[end] != ']' && attr.ptr[end] != '=')
        end++;
    lp_str path = lp_str_trim(lp_str_sub(attr, 0, end));
    if (lp_str_eq_c(path, "test"))
        return true;
    return lp_str_ends_with(path, LP_STR("::test"));
}

static void finish(lx_ctx *cx, lx_sym *s)
{
    if (s->outer_start >= s->start)
        return;
    lp_str attrs = {cx->src + s->outer_start, s->start - s->outer_start};
    for (size_t i = 0; i + 2 < attrs.len; i++) {
        if (attrs.ptr[i] != '#' || attrs.ptr[i + 1] != '[')
            continue;
        lp_str a = lp_str_sub(attrs, i + 2, attrs.len);
        if (attr_is_test(a) && (s->kind == LP_SYM_FUNCTION || s->kind == LP_SYM_METHOD))
            s->flags |= LP_SYMF_TEST;
        if (lp_str_starts_with(a, LP_STR("cfg(test)")) && s->kind == LP_SYM_MODULE)
            s->flags |= LP_SYMF_TEST;
        if (lp_str_starts_with(a, LP_STR("macro_export")) && s->kind == LP_SYM_MACRO)
            s->vis = LP_VIS_PUBLIC;
    }
}

static const char *const comments[] = {"line_comment", "block_comment", NULL};
static const char *const attributes[] = {"attribute_item", NULL};

const lp_lang_spec lp_spec_rust = {
    .lang = LP_LANG_RUST,
    .query_name = "rust",
    .ts_language = tree_sitter_rust,
    .comment_types = comments,
    .attribute_types = attributes,
    .refine = refine,
    .finish = finish,
    .refs = &lp_lxr_rust,
};

/* ------------------------------------------------------------------------------------------
 * Operations (lang.h). */

/* The module path of a file relative to its crate's folder: modules live under src/
 * (src/a/b.rs and src/a/b/mod.rs are crate.a.b; lib.rs, main.rs and bin/ are the crate
 * root); other files (tests/, examples/, benches/) are crate roots. */
static void module_path(lp_str rel, lp_buf *out)
{
    lp_buf_puts(out, "crate");
    if (!lp_str_starts_with(rel, LP_STR("src/")))
        return;
    lp_str sub = lp_str_sub(rel, 4, rel.len);
    lp_str ext = lp_path_ext(sub);
    sub = lp_str_sub(sub, 0, sub.len - ext.len);
    if (lp_str_ends_with(sub, LP_STR("/mod")))
        sub = lp_str_sub(sub, 0, sub.len - 4);
    if (lp_str_eq_c(sub, "lib") || lp_str_eq_c(sub, "main") || lp_str_eq_c(sub, "mod") ||
        lp_str_starts_with(sub, LP_STR("bin/")))
        return;
    lp_buf_putc(out, '.');
    for (size_t i = 0; i < sub.len; i++)
        lp_buf_putc(out, sub.ptr[i] == '/' ? '.' : sub.ptr[i]);
}

static const char *const aliases[] = {"rs", NULL};
static const char *const extensions[] = {".rs", NULL};

const lp_lang_ops lp_ops_rust = {
    .lang = LP_LANG_RUST,
    .name = "rust",
    .aliases = aliases,
    .extensions = extensions,
    .spec = &lp_spec_rust,
    .family = LP_LANG_RUST,
    .modules = LP_MODSYS_RUST,
    .graph = LP_LANGG_CALL_CONSTRUCTS | LP_LANGG_WILDCARD_NO_TARGET | LP_LANGG_MACRO_TEXTUAL,
    .test_stem = lp_lx_test_stem_snake,
    .module_path = module_path,
    .graph_covers =
        "use paths and the mod tree (crate/self/super), same module, Self:: and self. methods in "
        "impl blocks of the crate, annotated lets and struct literals, macro_rules! of the same "
        "file",
    .graph_blind =
        "trait method dispatch, method calls on call results (x.iter().map()), generic bounds, "
        "macros from other files, other crates outside the index",
};
