/*
 * lang_scala.c: Scala's hook.
 *
 * - `package a.b` (no braces) prefixes every qualified name after it and owns no chunk;
 *   consecutive clauses chain (package a / package b -> a.b); `package a { ... }` contains
 *   its members;
 * - defs in a class, object, trait or enum are methods, top-level defs functions, defs
 *   in defs nested functions (BaseStore.put.log); vals and vars are symbols outside
 *   function bodies only (constants and variables); case classes are classes, objects
 *   objects;
 * - visibility: private / protected modifiers (qualified ones, private[pkg], are
 *   internal); none is public (Scala's default);
 * - flags: abstract (modifier, or a def/val without body in a template), declaration (no
 *   body), test (classes named *Spec, *Test, *Tests, *Suite; defs annotated @Test).
 */
#include "lang/lang_int.h"
#include "lang/refs_int.h"

const TSLanguage *tree_sitter_scala(void);

static bool is_template(const lx_sym *c)
{
    return c && (c->kind == LP_SYM_CLASS || c->kind == LP_SYM_OBJECT || c->kind == LP_SYM_TRAIT ||
                 c->kind == LP_SYM_ENUM);
}

static bool is_function(const lx_sym *c)
{
    return c && (c->kind == LP_SYM_FUNCTION || c->kind == LP_SYM_METHOD);
}

static void read_modifiers(lx_ctx *cx, TSNode def, lx_sym *s)
{
    TSNode mods = lp_lx_child_of_type(def, "modifiers");
    if (ts_node_is_null(mods))
        return;
    TSTreeCursor c = ts_tree_cursor_new(mods);
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode ch = ts_tree_cursor_current_node(&c);
            lp_str t = lx_text(cx, ch);
            if (lx_is(ch, "access_modifier")) {
                bool qualified = lp_str_find_char(t, '[', 0) != SIZE_MAX;
                if (qualified)
                    s->vis = LP_VIS_INTERNAL;
                else if (lp_str_starts_with(t, LP_STR("private")))
                    s->vis = LP_VIS_PRIVATE;
                else if (lp_str_starts_with(t, LP_STR("protected")))
                    s->vis = LP_VIS_PROTECTED;
            } else if (lp_str_eq_c(t, "abstract")) {
                s->flags |= LP_SYMF_ABSTRACT;
            }
        } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
}

static bool has_test_annotation(const lx_ctx *cx, TSNode def)
{
    bool found = false;
    TSTreeCursor c = ts_tree_cursor_new(def);
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode ch = ts_tree_cursor_current_node(&c);
            if (lx_is(ch, "annotation")) {
                lp_str t = lp_str_trim(lx_text(cx, ch));
                if (lp_str_eq_c(t, "@Test") || lp_str_ends_with(t, LP_STR(".Test")))
                    found = true;
            }
        } while (!found && ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    return found;
}

static bool refine(lx_ctx *cx, const lx_def *d, lx_sym *s, lx_scope *scope)
{
    (void)scope;
    if (!s)
        return true;
    const lx_sym *container = lp_lx_container(cx);
    const char *type = ts_node_type(d->node);
    if (s->kind == LP_SYM_PACKAGE) {
        if (!s->has_body) {
            s->prefix = true;
            s->no_chunk = true;
        }
        return true;
    }
    s->vis = LP_VIS_PUBLIC;
    read_modifiers(cx, d->node, s);
    switch (s->kind) {
    case LP_SYM_FUNCTION:
        if (is_template(container))
            s->kind = LP_SYM_METHOD;
        if (!strcmp(type, "function_declaration")) {
            s->flags |= LP_SYMF_DECLARATION;
            if (is_template(container))
                s->flags |= LP_SYMF_ABSTRACT;
        }
        if (has_test_annotation(cx, d->node))
            s->flags |= LP_SYMF_TEST;
        if (is_function(container))
            s->vis = LP_VIS_PRIVATE; /* local */
        break;
    case LP_SYM_CONSTANT:
    case LP_SYM_VARIABLE:
        if (is_function(container))
            return false; /* locals */
        if (!strcmp(type, "val_declaration") || !strcmp(type, "var_declaration")) {
            s->flags |= LP_SYMF_DECLARATION;
            if (is_template(container))
                s->flags |= LP_SYMF_ABSTRACT;
        }
        break;
    case LP_SYM_CLASS:
        if (lp_str_ends_with(s->name, LP_STR("Spec")) || lp_str_ends_with(s->name, LP_STR("Test")) ||
            lp_str_ends_with(s->name, LP_STR("Tests")) || lp_str_ends_with(s->name, LP_STR("Suite")))
            s->flags |= LP_SYMF_TEST;
        break;
    case LP_SYM_TYPE_ALIAS:
        if (ts_node_is_null(d->value))
            s->flags |= LP_SYMF_DECLARATION | LP_SYMF_ABSTRACT;
        break;
    default:
        break;
    }
    if (is_function(container) && s->kind != LP_SYM_FUNCTION)
        s->vis = LP_VIS_PRIVATE;
    return true;
}

static const char *const comments[] = {"comment", "block_comment", NULL};
static const char *const decorations[] = {"annotation", NULL};

const lp_lang_spec lp_spec_scala = {
    .lang = LP_LANG_SCALA,
    .query_name = "scala",
    .ts_language = tree_sitter_scala,
    .comment_types = comments,
    .decoration_types = decorations,
    .refine = refine,
    .refs = &lp_lxr_scala,
    .scanner_tracks_columns = true,
};

/* ------------------------------------------------------------------------------------------
 * Operations (lang.h). */

static const char *const extensions[] = {".scala", ".sc", NULL};
static const char *const interpreters[] = {"scala", NULL};

const lp_lang_ops lp_ops_scala = {
    .lang = LP_LANG_SCALA,
    .name = "scala",
    .extensions = extensions,
    .interpreters = interpreters,
    .spec = &lp_spec_scala,
    .family = LP_LANG_SCALA,
    .modules = LP_MODSYS_PACKAGES,
    .graph = LP_LANGG_IMPLICIT_THIS | LP_LANGG_CALL_CONSTRUCTS | LP_LANGG_WILDCARD_NO_TARGET |
             LP_LANGG_QUALIFIED_TYPES | LP_LANGG_THIS_CONSTRUCTOR,
    .test_stem = lp_lx_test_stem_xunit,
    .graph_covers =
        "implicit this and bases in extends/with, same package, imports with selectors and "
        "wildcards, Foo(x) apply/case-class constructors, typed vals and parameters, new Foo",
    .graph_blind =
        "implicits and extension methods, infix and operator calls, overloads (reported "
        "ambiguous), dispatch to overrides",
};
