/*
 * lang_python.c: Python's hook.
 *
 * - functions directly in a class are methods (__init__ is the constructor; @property and
 *   @x.setter make properties); nested functions stay functions (qname outer.inner);
 * - assignments are symbols only at module level (UPPER_CASE names are constants) and in a
 *   class body (fields);
 * - the span excludes decorators and starts at `def`/`async def`/`class`; the signature
 *   ends at the colon before the body; the doc is the docstring (first statement string);
 * - visibility: a leading underscore (not a dunder) is private, anything nested in a
 *   function is private, the rest public;
 * - flags: async, static (@staticmethod), abstract (@abstractmethod), test (test_* functions
 *   and methods, Test* classes, TestCase subclasses).
 */
#include "lang/lang_int.h"
#include "lang/refs_int.h"

const TSLanguage *tree_sitter_python(void);

static bool is_upper_name(lp_str s)
{
    bool letter = false;
    for (size_t i = 0; i < s.len; i++) {
        char c = s.ptr[i];
        if (c >= 'a' && c <= 'z')
            return false;
        if (c >= 'A' && c <= 'Z')
            letter = true;
    }
    return letter;
}

static bool in_function(const lx_ctx *cx)
{
    for (const lx_sym *c = lp_lx_container(cx); c; c = c->container >= 0 ? &cx->syms.items[c->container] : NULL)
        if (c->kind == LP_SYM_FUNCTION || c->kind == LP_SYM_METHOD ||
            c->kind == LP_SYM_CONSTRUCTOR || c->kind == LP_SYM_PROPERTY)
            return true;
    return false;
}

/* Decorator text without '@' and call arguments: "staticmethod", "x.setter", "abc.abstractmethod". */
static lp_str decorator_name(const lx_ctx *cx, TSNode dec)
{
    lp_str t = lp_str_trim(lx_text(cx, dec));
    if (t.len && t.ptr[0] == '@')
        t = lp_str_trim(lp_str_sub(t, 1, t.len));
    size_t paren = lp_str_find_char(t, '(', 0);
    if (paren != SIZE_MAX)
        t = lp_str_trim(lp_str_sub(t, 0, paren));
    return t;
}

static bool name_ends_with(lp_str s, const char *suffix)
{
    lp_str suf = lp_str_c(suffix);
    if (lp_str_eq(s, suf))
        return true;
    if (s.len > suf.len && s.ptr[s.len - suf.len - 1] == '.' && lp_str_ends_with(s, suf))
        return true;
    return false;
}

static void read_decorators(lx_ctx *cx, TSNode decorated, lx_sym *s)
{
    TSTreeCursor c = ts_tree_cursor_new(decorated);
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode ch = ts_tree_cursor_current_node(&c);
            if (!lx_is(ch, "decorator"))
                continue;
            lp_str d = decorator_name(cx, ch);
            if (name_ends_with(d, "staticmethod"))
                s->flags |= LP_SYMF_STATIC;
            else if (name_ends_with(d, "abstractmethod"))
                s->flags |= LP_SYMF_ABSTRACT;
            else if ((name_ends_with(d, "property") || name_ends_with(d, "cached_property") ||
                      name_ends_with(d, "setter") || name_ends_with(d, "getter") ||
                      name_ends_with(d, "deleter")) &&
                     s->kind == LP_SYM_METHOD)
                s->kind = LP_SYM_PROPERTY;
            else if (name_ends_with(d, "overload"))
                s->flags |= LP_SYMF_DECLARATION;
        } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
}

/* The docstring: the body's first statement when it is a lone string. */
static void docstring(lx_ctx *cx, TSNode body, lx_sym *s)
{
    if (ts_node_is_null(body) || ts_node_named_child_count(body) == 0)
        return;
    TSNode first = ts_node_named_child(body, 0);
    if (!lx_is(first, "expression_statement") || ts_node_named_child_count(first) != 1)
        return;
    TSNode str = ts_node_named_child(first, 0);
    if (!lx_is(str, "string") && !lx_is(str, "concatenated_string"))
        return;
    s->has_doc = true;
    s->doc_start = ts_node_start_byte(str);
    s->doc_end = ts_node_end_byte(str);
}

/* End of the ':' that precedes the body (comments between it and the body excluded). */
static uint32_t colon_before_body(const lx_ctx *cx, TSNode def, TSNode body)
{
    uint32_t end = 0;
    uint32_t bs = ts_node_is_null(body) ? UINT32_MAX : ts_node_start_byte(body);
    TSTreeCursor c = ts_tree_cursor_new(def);
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode ch = ts_tree_cursor_current_node(&c);
            if (ts_node_start_byte(ch) >= bs)
                break;
            if (!ts_node_is_named(ch) && lx_text(cx, ch).len == 1 && lx_text(cx, ch).ptr[0] == ':')
                end = ts_node_end_byte(ch);
        } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    return end;
}

static bool is_test_class(const lx_ctx *cx, const lx_def *d, lp_str name)
{
    if (lp_str_starts_with(name, LP_STR("Test")))
        return true;
    TSNode supers = ts_node_child_by_field_name(d->node, "superclasses", 11);
    lp_str t = lx_text(cx, supers);
    for (size_t i = 0; i + 8 <= t.len; i++)
        if (memcmp(t.ptr + i, "TestCase", 8) == 0)
            return true;
    return false;
}

static bool refine(lx_ctx *cx, const lx_def *d, lx_sym *s, lx_scope *scope)
{
    if (!s)
        return true;
    (void)scope;
    const lx_sym *container = lp_lx_container(cx);
    bool in_class = container && container->kind == LP_SYM_CLASS;
    bool nested_in_fn = in_function(cx);
    TSNode parent = lp_lx_ancestor(cx, 1);

    if (s->kind == LP_SYM_VARIABLE) {
        /* assignment -> expression_statement -> module | block of a class */
        TSNode stmt_owner = lp_lx_ancestor(cx, 2);
        if (!lx_is(parent, "expression_statement"))
            return false;
        if (lx_is(stmt_owner, "module")) {
            if (container)
                return false;
            s->kind = is_upper_name(s->name) ? LP_SYM_CONSTANT : LP_SYM_VARIABLE;
        } else if (lx_is(stmt_owner, "block") && in_class &&
                   lx_is(lp_lx_ancestor(cx, 3), "class_definition")) {
            s->kind = LP_SYM_FIELD;
        } else {
            return false;
        }
        s->outer = parent;
    } else {
        if (lx_is(parent, "decorated_definition"))
            s->outer = parent;
        if (s->kind == LP_SYM_FUNCTION && in_class) {
            s->kind = lp_str_eq_c(s->name, "__init__") ? LP_SYM_CONSTRUCTOR : LP_SYM_METHOD;
        }
        if (lx_is(parent, "decorated_definition"))
            read_decorators(cx, parent, s);
        if (lp_lx_has_keyword(cx, d->node, "async"))
            s->flags |= LP_SYMF_ASYNC;
        docstring(cx, d->body, s);
        uint32_t colon = colon_before_body(cx, d->node, d->body);
        if (colon) {
            s->sig_end = colon;
            /* comments between the colon and the first statement belong to the body */
            uint32_t p = colon;
            while (p < cx->len && (cx->src[p] == ' ' || cx->src[p] == '\t'))
                p++;
            if (p < cx->len && (cx->src[p] == '\n' || cx->src[p] == '\r')) {
                while (p < cx->len && (cx->src[p] == ' ' || cx->src[p] == '\t' ||
                                       cx->src[p] == '\n' || cx->src[p] == '\r'))
                    p++;
                if (s->has_body && p < s->body_start)
                    s->body_start = p;
            }
        }
        if (s->kind == LP_SYM_CLASS) {
            if (is_test_class(cx, d, s->name))
                s->flags |= LP_SYMF_TEST;
        } else if (lp_str_starts_with(s->name, LP_STR("test")) &&
                   (s->kind == LP_SYM_FUNCTION || s->kind == LP_SYM_METHOD) && !nested_in_fn) {
            if (s->kind == LP_SYM_FUNCTION || (container && (container->flags & LP_SYMF_TEST)))
                s->flags |= LP_SYMF_TEST;
        }
    }
    bool dunder = s->name.len > 4 && lp_str_starts_with(s->name, LP_STR("__")) &&
                  lp_str_ends_with(s->name, LP_STR("__"));
    if (nested_in_fn)
        s->vis = LP_VIS_PRIVATE;
    else if (s->name.len && s->name.ptr[0] == '_' && !dunder)
        s->vis = LP_VIS_PRIVATE;
    else
        s->vis = LP_VIS_PUBLIC;
    return true;
}

static const char *const decorations[] = {"decorator", "comment", NULL};

const lp_lang_spec lp_spec_python = {
    .lang = LP_LANG_PYTHON,
    .query_name = "python",
    .ts_language = tree_sitter_python,
    .comment_types = NULL, /* Python documents with docstrings */
    .decoration_types = decorations,
    .refine = refine,
    .refs = &lp_lxr_python,
};

/* ------------------------------------------------------------------------------------------
 * Operations (lang.h): names, detection, tests, and what the code graph needs. */

static bool test_stem(lp_str stem)
{
    return lp_str_starts_with(stem, LP_STR("test_")) || lp_str_ends_with(stem, LP_STR("_test")) ||
           lp_str_eq_c(stem, "conftest");
}

/* `import a.b` binds a; `from m import x` binds x. */
static lp_str import_binds(const char *name, const char *qual)
{
    if (name[0])
        return lp_str_c(name);
    const char *dot = strchr(qual, '.');
    return dot ? lp_str_n(qual, (size_t)(dot - qual)) : lp_str_c(qual);
}

/* a/b/c.py -> a.b.c, a/b/__init__.py -> a.b */
static void module_path(lp_str p, lp_buf *out)
{
    lp_str ext = lp_path_ext(p);
    p = lp_str_sub(p, 0, p.len - ext.len);
    if (lp_str_ends_with(p, LP_STR("/__init__")))
        p = lp_str_sub(p, 0, p.len - 9);
    else if (lp_str_eq_c(p, "__init__"))
        p = LP_STR("");
    for (size_t i = 0; i < p.len; i++)
        lp_buf_putc(out, p.ptr[i] == '/' ? '.' : p.ptr[i]);
}

static const char *const aliases[] = {"py", NULL};
static const char *const extensions[] = {".py", ".pyi", ".pyw", NULL};
static const char *const interpreters[] = {"python", NULL};

const lp_lang_ops lp_ops_python = {
    .lang = LP_LANG_PYTHON,
    .name = "python",
    .aliases = aliases,
    .extensions = extensions,
    .interpreters = interpreters,
    .spec = &lp_spec_python,
    .family = LP_LANG_PYTHON,
    .modules = LP_MODSYS_PYTHON,
    .graph = LP_LANGG_CALL_CONSTRUCTS | LP_LANGG_SHARED_MEMBERS | LP_LANGG_MODULE_REEXPORTS |
             LP_LANGG_IMPORTS_ARE_MEMBERS,
    .test_stem = test_stem,
    .import_binds = import_binds,
    .module_path = module_path,
    .package_stem = "__init__",
    .graph_covers =
        "enclosing scopes, same module, import / from-import (relative too), self/cls methods and "
        "bases named in the class, super(), module.attr calls, Foo() constructors, x = Foo(); "
        "x.m() and annotated parameters",
    .graph_blind =
        "untyped parameters and attributes (self.x.m()), dynamic dispatch through overrides, "
        "getattr, decorators that replace functions, imports of packages outside the index",
};
