/*
 * lang_c.c: C's hook, and the C constructs shared with C++ (lang_cpp.c).
 *
 * - names come from declarator chains (`struct s *(*get)(void)` and the like);
 * - a function definition is a function; a declaration whose declarator is a function
 *   declarator is a prototype (function, declaration flag); other declarations outside
 *   functions are variables (constants when `const` and not a pointer), `extern` ones
 *   declarations; locals are dropped;
 * - `typedef struct {...} point;` is the struct `point` (span: the whole typedef);
 *   `typedef struct s {...} s_t;` is the struct `s` plus the type alias `s_t`;
 *   `typedef struct s s_t;` is a type alias;
 * - `#define` (object-like and function-like) are macros;
 * - visibility: `static` is private (with the static flag); other functions and globals
 *   have external linkage (public); types, fields and macros say nothing (unknown).
 */
#include "lang/lang_int.h"

const TSLanguage *tree_sitter_c(void);

static bool is_name_node(TSNode n)
{
    static const char *const names[] = {"identifier", "field_identifier", "type_identifier",
                                        "qualified_identifier", "destructor_name",
                                        "operator_name", "template_function",
                                        "primitive_type", NULL};
    const char *t = ts_node_type(n);
    for (const char *const *p = names; *p; p++)
        if (!strcmp(t, *p))
            return true;
    return false;
}

TSNode lx_c_declarator_name(TSNode d, bool *is_function)
{
    bool saw_fn = false, fn_ptr = false;
    TSNode none;
    memset(&none, 0, sizeof(none));
    for (int guard = 0; guard < 64 && !ts_node_is_null(d); guard++) {
        if (is_name_node(d)) {
            if (is_function)
                *is_function = saw_fn && !fn_ptr;
            return d;
        }
        const char *t = ts_node_type(d);
        if (!strcmp(t, "function_declarator")) {
            TSNode inner = ts_node_child_by_field_name(d, "declarator", 10);
            if (!saw_fn) {
                saw_fn = true;
                fn_ptr = lx_is(inner, "parenthesized_declarator");
            }
            d = inner;
        } else if (!strcmp(t, "parenthesized_declarator")) {
            d = ts_node_named_child(d, 0);
        } else {
            TSNode inner = ts_node_child_by_field_name(d, "declarator", 10);
            if (ts_node_is_null(inner) && ts_node_named_child_count(d) > 0)
                inner = ts_node_named_child(d, ts_node_named_child_count(d) - 1);
            if (ts_node_eq(inner, d))
                break;
            d = inner;
        }
    }
    return none;
}

bool lx_c_has_specifier(const lx_ctx *cx, TSNode node, const char *word)
{
    bool found = false;
    TSTreeCursor c = ts_tree_cursor_new(node);
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode ch = ts_tree_cursor_current_node(&c);
            const char *t = ts_node_type(ch);
            if ((!strcmp(t, "storage_class_specifier") || !strcmp(t, "type_qualifier") ||
                 !strcmp(t, "virtual") || !strcmp(t, "function_specifier")) &&
                lp_str_eq_c(lx_text(cx, ch), word)) {
                found = true;
                break;
            }
            if (!strcmp(t, word) && !ts_node_is_named(ch)) { /* keyword tokens */
                found = true;
                break;
            }
        } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    return found;
}

static bool in_function(const lx_ctx *cx)
{
    const lx_sym *c = lx_container(cx);
    return c && (c->kind == LP_SYM_FUNCTION || c->kind == LP_SYM_METHOD ||
                 c->kind == LP_SYM_CONSTRUCTOR);
}

/* The aggregate specifier (struct/union/enum with a body) a typedef defines, if any. */
static TSNode typedef_body_specifier(TSNode typedef_node)
{
    TSNode t = ts_node_child_by_field_name(typedef_node, "type", 4);
    if ((lx_is(t, "struct_specifier") || lx_is(t, "union_specifier") ||
         lx_is(t, "enum_specifier") || lx_is(t, "class_specifier")) &&
        !ts_node_is_null(ts_node_child_by_field_name(t, "body", 4)))
        return t;
    TSNode none;
    memset(&none, 0, sizeof(none));
    return none;
}

bool lx_c_refine(lx_ctx *cx, const lx_def *d, lx_sym *s)
{
    TSNode root = cx->leaf ? cx->anc[cx->depth] : d->node;
    const char *rtype = ts_node_type(root);
    bool is_fn = false;

    if (!strcmp(rtype, "function_definition")) {
        TSNode decl = ts_node_child_by_field_name(root, "declarator", 10);
        TSNode name = lx_c_declarator_name(decl, &is_fn);
        if (ts_node_is_null(name) || ts_node_is_missing(name))
            return false;
        s->name = lx_text(cx, name);
        if (!s->name.len)
            return false;
        bool st = lx_c_has_specifier(cx, root, "static");
        s->vis = st ? LP_VIS_PRIVATE : LP_VIS_PUBLIC;
        if (st)
            s->flags |= LP_SYMF_STATIC;
        return true;
    }
    if (!strcmp(rtype, "declaration")) { /* leaf: one declarator */
        if (in_function(cx))
            return false;
        TSNode name = lx_c_declarator_name(d->node, &is_fn);
        if (ts_node_is_null(name) || ts_node_is_missing(name))
            return false;
        s->name = lx_text(cx, name);
        if (!s->name.len)
            return false;
        s->outer = root;
        bool st = lx_c_has_specifier(cx, root, "static");
        bool ext = lx_c_has_specifier(cx, root, "extern");
        if (is_fn) {
            s->kind = LP_SYM_FUNCTION;
            s->flags |= LP_SYMF_DECLARATION;
        } else {
            bool is_const = lx_c_has_specifier(cx, root, "const") &&
                            !lx_is(d->node, "pointer_declarator") &&
                            !(lx_is(d->node, "init_declarator") &&
                              lx_is(ts_node_child_by_field_name(d->node, "declarator", 10),
                                    "pointer_declarator"));
            s->kind = is_const ? LP_SYM_CONSTANT : LP_SYM_VARIABLE;
            if (ext)
                s->flags |= LP_SYMF_DECLARATION;
        }
        s->vis = st ? LP_VIS_PRIVATE : LP_VIS_PUBLIC;
        if (st)
            s->flags |= LP_SYMF_STATIC;
        /* the signature of a variable stops before an initializer spanning lines */
        TSNode value = lx_is(d->node, "init_declarator")
                           ? ts_node_child_by_field_name(d->node, "value", 5)
                           : (TSNode){0};
        if (!ts_node_is_null(value)) {
            lp_str v = lx_text(cx, value);
            if (memchr(v.ptr, '\n', v.len))
                s->sig_end = ts_node_start_byte(value);
        }
        return true;
    }
    if (!strcmp(rtype, "field_declaration")) { /* leaf: one declarator */
        TSNode name = lx_c_declarator_name(d->node, &is_fn);
        if (ts_node_is_null(name))
            return false;
        s->name = lx_text(cx, name);
        s->outer = root;
        return true;
    }
    if (!strcmp(rtype, "type_definition")) { /* leaf: the declarator */
        TSNode name = lx_c_declarator_name(d->node, NULL);
        if (ts_node_is_null(name))
            return false;
        s->name = lx_text(cx, name);
        s->outer = root;
        TSNode spec = typedef_body_specifier(root);
        if (!ts_node_is_null(spec)) {
            /* an anonymous aggregate takes this name (see below): no alias; a named one
             * keeps both, and the aggregate owns the text */
            if (ts_node_is_null(ts_node_child_by_field_name(spec, "name", 4)))
                return false;
            s->no_chunk = true;
        }
        return true;
    }
    if (!strcmp(rtype, "struct_specifier") || !strcmp(rtype, "union_specifier") ||
        !strcmp(rtype, "enum_specifier") || !strcmp(rtype, "class_specifier")) {
        TSNode p1 = lx_ancestor(cx, 1);
        if (lx_is(p1, "type_definition") &&
            ts_node_eq(ts_node_child_by_field_name(p1, "type", 4), d->node)) {
            s->outer = p1;
            if (ts_node_is_null(d->name)) {
                TSNode name =
                    lx_c_declarator_name(ts_node_child_by_field_name(p1, "declarator", 10), NULL);
                s->name = lx_text(cx, name);
            }
        }
        return s->name.len > 0;
    }
    if (!strcmp(rtype, "preproc_function_def")) {
        /* the signature is `#define NAME(params)`: the replacement is the body */
        TSNode params = ts_node_child_by_field_name(root, "parameters", 10);
        if (!ts_node_is_null(params))
            s->sig_end = ts_node_end_byte(params);
    }
    return true; /* enumerators, macros */
}

static bool refine(lx_ctx *cx, const lx_def *d, lx_sym *s, lx_scope *scope)
{
    (void)scope;
    return s ? lx_c_refine(cx, d, s) : true;
}

static const char *const comments[] = {"comment", NULL};
static const char *const decorations[] = {"attribute_specifier", "attribute_declaration", NULL};

const lp_lang_spec lp_spec_c = {
    .lang = LP_LANG_C,
    .query_name = "c",
    .ts_language = tree_sitter_c,
    .comment_types = comments,
    .decoration_types = decorations,
    .refine = refine,
};
