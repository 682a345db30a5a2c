/*
 * lang_csharp.c: C#'s hook.
 *
 * - block namespaces contain and qualify their members; a file-scoped namespace
 *   (`namespace A.B;`) prefixes every qualified name after it and owns no chunk;
 * - partial classes give one symbol per part (same qname, ordinals 0, 1, ...);
 * - properties, indexers ("this") and events are properties; an auto-property's
 *   `{ get; set; }` stays in the class text, accessors with bodies are its body;
 *   destructors are methods named ~T, operators methods named "operator+";
 *   delegates are type aliases; `int X, Y;` declares two fields (const ones constants);
 * - visibility from modifiers; none means private for members of classes and structs,
 *   internal for top-level types, public for interface and enum members;
 * - flags: static (const too), abstract, async, declaration (no body: interface members,
 *   abstract, extern, partial methods), test ([Fact], [Theory], [Test], [TestMethod],
 *   [TestCase]).
 */
#include "lang/lang_int.h"
#include "lang/refs_int.h"

const TSLanguage *tree_sitter_c_sharp(void);

typedef struct cs_mods {
    lp_visibility vis;
    bool is_static, is_abstract, is_async, is_const, is_extern, is_test;
} cs_mods;

static bool attribute_is_test(const lx_ctx *cx, TSNode list)
{
    static const char *const names[] = {"Fact", "Theory", "Test", "TestMethod", "TestCase",
                                        "TestCaseSource"};
    bool found = false;
    TSTreeCursor c = ts_tree_cursor_new(list);
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode a = ts_tree_cursor_current_node(&c);
            if (!lx_is(a, "attribute"))
                continue;
            lp_str n = lx_text(cx, ts_node_child_by_field_name(a, "name", 4));
            for (size_t i = n.len; i > 0; i--)
                if (n.ptr[i - 1] == '.') {
                    n = lp_str_sub(n, i, n.len);
                    break;
                }
            if (lp_str_ends_with(n, LP_STR("Attribute")))
                n.len -= 9;
            for (size_t i = 0; i < LP_ARRAY_LEN(names); i++)
                if (lp_str_eq_c(n, names[i]))
                    found = true;
        } while (!found && ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    return found;
}

static cs_mods read_mods(const lx_ctx *cx, TSNode def)
{
    cs_mods m;
    memset(&m, 0, sizeof(m));
    TSTreeCursor c = ts_tree_cursor_new(def);
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode ch = ts_tree_cursor_current_node(&c);
            const char *t = ts_node_type(ch);
            if (!strcmp(t, "attribute_list")) {
                m.is_test = m.is_test || attribute_is_test(cx, ch);
                continue;
            }
            if (strcmp(t, "modifier") != 0)
                continue;
            lp_str w = lx_text(cx, ch);
            if (lp_str_eq_c(w, "public"))
                m.vis = LP_VIS_PUBLIC;
            else if (lp_str_eq_c(w, "private") && m.vis != LP_VIS_PROTECTED)
                m.vis = LP_VIS_PRIVATE;
            else if (lp_str_eq_c(w, "protected"))
                m.vis = LP_VIS_PROTECTED;
            else if (lp_str_eq_c(w, "internal") && m.vis == LP_VIS_UNKNOWN)
                m.vis = LP_VIS_INTERNAL;
            else if (lp_str_eq_c(w, "static"))
                m.is_static = true;
            else if (lp_str_eq_c(w, "abstract"))
                m.is_abstract = true;
            else if (lp_str_eq_c(w, "async"))
                m.is_async = true;
            else if (lp_str_eq_c(w, "const"))
                m.is_const = true;
            else if (lp_str_eq_c(w, "extern"))
                m.is_extern = true;
        } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    return m;
}

/* Does an accessor list hold an accessor with a body? */
static bool accessors_have_bodies(TSNode list)
{
    bool found = false;
    TSTreeCursor c = ts_tree_cursor_new(list);
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode a = ts_tree_cursor_current_node(&c);
            if (lx_is(a, "accessor_declaration") &&
                !ts_node_is_null(ts_node_child_by_field_name(a, "body", 4)))
                found = true;
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
    TSNode root = cx->leaf ? cx->anc[cx->depth] : d->node;
    const char *type = ts_node_type(root);
    const lx_sym *container = lp_lx_container(cx);

    if (!strcmp(type, "file_scoped_namespace_declaration")) {
        s->prefix = true;
        s->no_chunk = true;
        return true;
    }
    if (!strcmp(type, "namespace_declaration"))
        return true;

    cs_mods m = read_mods(cx, root);
    if (cx->leaf)
        s->outer = root;
    if (!strcmp(type, "destructor_declaration")) {
        char *n = lp_arena_printf(cx->arena, "~" LP_STR_FMT, LP_STR_ARG(s->name));
        s->name = lp_str_c(n);
    } else if (!strcmp(type, "operator_declaration")) {
        TSNode op = ts_node_child_by_field_name(root, "operator", 8);
        lp_str o = lp_str_trim(lx_text(cx, op));
        char *n = lp_arena_printf(cx->arena, "operator" LP_STR_FMT, LP_STR_ARG(o));
        s->name = lp_str_c(n);
    } else if (!strcmp(type, "indexer_declaration")) {
        s->name = LP_STR("this");
    }

    bool in_interface = container && container->kind == LP_SYM_INTERFACE;
    bool top_type = !container || container->kind == LP_SYM_NAMESPACE;
    s->vis = m.vis;
    if (s->vis == LP_VIS_UNKNOWN) {
        if (in_interface || s->kind == LP_SYM_ENUM_MEMBER)
            s->vis = LP_VIS_PUBLIC;
        else if (top_type)
            s->vis = LP_VIS_INTERNAL;
        else
            s->vis = LP_VIS_PRIVATE;
    }
    if (m.is_static || m.is_const)
        s->flags |= LP_SYMF_STATIC;
    if (m.is_abstract)
        s->flags |= LP_SYMF_ABSTRACT;
    if (m.is_async)
        s->flags |= LP_SYMF_ASYNC;
    if (m.is_test && s->kind == LP_SYM_METHOD)
        s->flags |= LP_SYMF_TEST;
    if (s->kind == LP_SYM_FIELD && m.is_const)
        s->kind = LP_SYM_CONSTANT;
    if (s->kind == LP_SYM_PROPERTY && s->has_body && lx_is(d->body, "accessor_list") &&
        !accessors_have_bodies(d->body))
        s->has_body = false; /* { get; set; } */
    if ((s->kind == LP_SYM_METHOD || s->kind == LP_SYM_CONSTRUCTOR) &&
        (!s->has_body || m.is_extern))
        s->flags |= LP_SYMF_DECLARATION;
    return true;
}

static const char *const comments[] = {"comment", NULL};
static const char *const decorations[] = {"attribute_list", NULL};

const lp_lang_spec lp_spec_csharp = {
    .lang = LP_LANG_CSHARP,
    .query_name = "c-sharp",
    .ts_language = tree_sitter_c_sharp,
    .comment_types = comments,
    .decoration_types = decorations,
    .refine = refine,
    .refs = &lp_lxr_csharp,
};

/* ------------------------------------------------------------------------------------------
 * Operations (lang.h). */

static const char *const aliases[] = {"cs", "csharp", "c#", NULL};
static const char *const extensions[] = {".cs", NULL};

const lp_lang_ops lp_ops_csharp = {
    .lang = LP_LANG_CSHARP,
    .name = "c-sharp",
    .aliases = aliases,
    .extensions = extensions,
    .spec = &lp_spec_csharp,
    .family = LP_LANG_CSHARP,
    .modules = LP_MODSYS_PACKAGES,
    .graph = LP_LANGG_IMPLICIT_THIS | LP_LANGG_WILDCARD_NO_TARGET | LP_LANGG_QUALIFIED_TYPES |
             LP_LANGG_NAMESPACE_PARENTS | LP_LANGG_NAMESPACE_IS_PACKAGE,
    .test_stem = lp_lx_test_stem_xunit,
    .graph_covers =
        "implicit this and bases, enclosing namespaces, using directives (aliases, static), "
        "declared and var = new T() local types, new T()",
    .graph_blind =
        "overload choice (reported ambiguous), interface dispatch, extension methods, partial "
        "classes split across files only by qualified name, LINQ and delegates",
};
