/*
 * lang_java.c: Java's hook.
 *
 * - the package declaration prefixes every qualified name (com.example.A.m); it owns no
 *   chunk;
 * - anonymous classes (`new Runnable() { ... }`) are classes named "<anonymous>" inside the
 *   enclosing member (A.cleaner.<anonymous>.run);
 * - `int a, b;` declares two fields spanning the whole declaration; static final fields
 *   and interface fields are constants;
 * - visibility from modifiers; none means package-private (internal), except members of
 *   interfaces and annotation types (public) and enum constants (public);
 * - flags: static, abstract (modifier, or an interface method without body that is not
 *   default/static/private), declaration (no body), test (@Test, @ParameterizedTest,
 *   @RepeatedTest, @TestFactory, @TestTemplate, qualified or not).
 */
#include "lang/lang_int.h"
#include "lang/refs_int.h"

const TSLanguage *tree_sitter_java(void);

typedef struct mods {
    lp_visibility vis;
    bool is_static, is_abstract, is_final, is_default, is_test;
} mods;

static lp_str annotation_simple_name(const lx_ctx *cx, TSNode ann)
{
    TSNode name = ts_node_child_by_field_name(ann, "name", 4);
    lp_str t = lx_text(cx, name);
    for (size_t i = t.len; i > 0; i--)
        if (t.ptr[i - 1] == '.')
            return lp_str_sub(t, i, t.len);
    return t;
}

static mods read_mods(const lx_ctx *cx, TSNode def)
{
    mods m;
    memset(&m, 0, sizeof(m));
    TSNode mn = lp_lx_child_of_type(def, "modifiers");
    if (ts_node_is_null(mn))
        return m;
    static const char *const tests[] = {"Test", "ParameterizedTest", "RepeatedTest",
                                        "TestFactory", "TestTemplate"};
    TSTreeCursor c = ts_tree_cursor_new(mn);
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode ch = ts_tree_cursor_current_node(&c);
            const char *t = ts_node_type(ch);
            if (!strcmp(t, "marker_annotation") || !strcmp(t, "annotation")) {
                lp_str n = annotation_simple_name(cx, ch);
                for (size_t i = 0; i < LP_ARRAY_LEN(tests); i++)
                    if (lp_str_eq_c(n, tests[i]))
                        m.is_test = true;
                continue;
            }
            lp_str w = lx_text(cx, ch);
            if (lp_str_eq_c(w, "public"))
                m.vis = LP_VIS_PUBLIC;
            else if (lp_str_eq_c(w, "private"))
                m.vis = LP_VIS_PRIVATE;
            else if (lp_str_eq_c(w, "protected"))
                m.vis = LP_VIS_PROTECTED;
            else if (lp_str_eq_c(w, "static"))
                m.is_static = true;
            else if (lp_str_eq_c(w, "abstract"))
                m.is_abstract = true;
            else if (lp_str_eq_c(w, "final"))
                m.is_final = true;
            else if (lp_str_eq_c(w, "default"))
                m.is_default = true;
        } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    return m;
}

static bool refine(lx_ctx *cx, const lx_def *d, lx_sym *s, lx_scope *scope)
{
    (void)scope;
    if (!s)
        return true;
    if (s->kind == LP_SYM_PACKAGE) {
        s->prefix = true;
        s->no_chunk = true;
        return true;
    }
    const lx_sym *container = lp_lx_container(cx);
    bool in_interface = container && container->kind == LP_SYM_INTERFACE;
    TSNode def = cx->leaf ? cx->anc[cx->depth] : d->node; /* fields: the declaration */
    const char *type = ts_node_type(def);
    if (!strcmp(type, "object_creation_expression")) {
        s->name = LP_STR("<anonymous>");
        s->vis = LP_VIS_UNKNOWN;
        return true;
    }
    mods m = read_mods(cx, def);
    s->vis = m.vis;
    if (s->vis == LP_VIS_UNKNOWN)
        s->vis = in_interface || s->kind == LP_SYM_ENUM_MEMBER ? LP_VIS_PUBLIC : LP_VIS_INTERNAL;
    if (m.is_static)
        s->flags |= LP_SYMF_STATIC;
    if (m.is_abstract)
        s->flags |= LP_SYMF_ABSTRACT;
    if (m.is_test && s->kind == LP_SYM_METHOD)
        s->flags |= LP_SYMF_TEST;
    switch (s->kind) {
    case LP_SYM_FIELD:
        s->outer = def;
        if (m.is_static && m.is_final)
            s->kind = LP_SYM_CONSTANT;
        break;
    case LP_SYM_CONSTANT:
        s->outer = def;
        s->flags |= LP_SYMF_STATIC;
        break;
    case LP_SYM_METHOD:
        if (!s->has_body) {
            s->flags |= LP_SYMF_DECLARATION;
            if (in_interface && !m.is_static && !m.is_default && m.vis != LP_VIS_PRIVATE)
                s->flags |= LP_SYMF_ABSTRACT;
        }
        break;
    default:
        break;
    }
    return true;
}

static const char *const comments[] = {"line_comment", "block_comment", NULL};
static const char *const decorations[] = {"marker_annotation", "annotation", "line_comment",
                                          "block_comment", NULL};
static const char *const deco_containers[] = {"modifiers", NULL};

const lp_lang_spec lp_spec_java = {
    .lang = LP_LANG_JAVA,
    .query_name = "java",
    .ts_language = tree_sitter_java,
    .comment_types = comments,
    .decoration_types = decorations,
    .decoration_containers = deco_containers,
    .refine = refine,
    .refs = &lp_lxr_java,
};

/* ------------------------------------------------------------------------------------------
 * Operations (lang.h). */

static const char *const extensions[] = {".java", NULL};

const lp_lang_ops lp_ops_java = {
    .lang = LP_LANG_JAVA,
    .name = "java",
    .extensions = extensions,
    .spec = &lp_spec_java,
    .family = LP_LANG_JAVA,
    .modules = LP_MODSYS_PACKAGES,
    .graph = LP_LANGG_IMPLICIT_THIS | LP_LANGG_WILDCARD_NO_TARGET | LP_LANGG_QUALIFIED_TYPES,
    .test_stem = lp_lx_test_stem_xunit,
    .graph_covers =
        "implicit this (class and outer classes, bases named in extends/implements), same package, "
        "single-type, static and on-demand imports, fully qualified names, declared local and "
        "parameter types, new Foo()",
    .graph_blind =
        "overload choice between same-name methods (reported ambiguous), interface dispatch to "
        "implementations, lambdas and method references, reflection",
};
