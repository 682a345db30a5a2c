/*
 * lang_js.c: the hook for JavaScript (JSX), TypeScript and TSX (queries javascript.scm and
 * typescript.scm).
 *
 * - `export` / `export default` / `declare` wrappers become part of the span (decorators
 *   excluded); exported symbols are public; `export default function () {}` is named
 *   "default"; default exports carry LP_SYMF_DEFAULT_EXPORT; `declare` and overload
 *   signatures are declarations;
 * - `const f = () => {}` / function and class expressions bound to a name are functions
 *   and classes at any depth (React handlers inside components: App.handleClick); plain
 *   values are constants (const) or variables (let/var) only at module or namespace level;
 * - object-literal methods are methods of the binding that holds the object
 *   (api.get); `Foo.prototype.bar = function` is a method of Foo; `exports.x = ...` and
 *   `module.exports.x = ...` are public functions;
 * - class members: constructor, get/set accessors (properties), static, abstract, async,
 *   accessibility modifiers (public/private/protected), #private names; construct
 *   signatures of interfaces (`new (msg: string): Err`) are constructors named "new";
 * - the class pattern compilers emit (`var Foo = (function () { function Foo() {}
 *   Foo.prototype.bar = function () {}; Foo.create = function () {}; ...}())`): the
 *   prototype methods and statics are Foo.bar and Foo.create; `exports.x = { m: function
 *   () {} }` at the top level is the public variable x holding the method x.m.
 */
#include "lang/lang_int.h"
#include "lang/refs_int.h"

#include <ctype.h>

const TSLanguage *tree_sitter_javascript(void);
const TSLanguage *tree_sitter_typescript(void);
const TSLanguage *tree_sitter_tsx(void);

static lp_str strip_quotes(lp_str s)
{
    if (s.len >= 2 && (s.ptr[0] == '"' || s.ptr[0] == '\'' || s.ptr[0] == '`') &&
        s.ptr[s.len - 1] == s.ptr[0])
        return lp_str_sub(s, 1, s.len - 1);
    return s;
}

/* Is the statement holder a module or namespace body? */
static bool is_module_level(TSNode holder, TSNode holder_parent)
{
    if (lx_is(holder, "program"))
        return true;
    return lx_is(holder, "statement_block") &&
           (lx_is(holder_parent, "internal_module") || lx_is(holder_parent, "module"));
}

static void read_member_modifiers(lx_ctx *cx, TSNode n, lx_sym *s)
{
    TSNode name = ts_node_child_by_field_name(n, "name", 4);
    uint32_t name_start = ts_node_is_null(name) ? UINT32_MAX : ts_node_start_byte(name);
    TSTreeCursor c = ts_tree_cursor_new(n);
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode ch = ts_tree_cursor_current_node(&c);
            const char *t = ts_node_type(ch);
            if (!strcmp(t, "accessibility_modifier")) {
                lp_str m = lx_text(cx, ch);
                if (lp_str_eq_c(m, "private"))
                    s->vis = LP_VIS_PRIVATE;
                else if (lp_str_eq_c(m, "protected"))
                    s->vis = LP_VIS_PROTECTED;
                else if (lp_str_eq_c(m, "public"))
                    s->vis = LP_VIS_PUBLIC;
            } else if (!ts_node_is_named(ch)) {
                if (!strcmp(t, "static"))
                    s->flags |= LP_SYMF_STATIC;
                else if (!strcmp(t, "abstract"))
                    s->flags |= LP_SYMF_ABSTRACT;
                else if (!strcmp(t, "async"))
                    s->flags |= LP_SYMF_ASYNC;
                else if ((!strcmp(t, "get") || !strcmp(t, "set")) &&
                         (s->kind == LP_SYM_METHOD))
                    s->kind = LP_SYM_PROPERTY;
                else if (!strcmp(t, "declare"))
                    s->flags |= LP_SYMF_DECLARATION;
            }
            if (ts_node_start_byte(ch) >= name_start)
                break; /* modifiers come before the name */
        } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    if (s->name.len && s->name.ptr[0] == '#')
        s->vis = LP_VIS_PRIVATE;
}

/* Apply export / export default / declare wrappers around `node` (whose parent is p). */
static void wrap_exports(lx_ctx *cx, TSNode p, TSNode pp, lx_sym *s)
{
    if (lx_is(p, "ambient_declaration")) {
        s->outer = p;
        s->flags |= LP_SYMF_DECLARATION;
        p = pp;
    }
    if (lx_is(p, "export_statement")) {
        s->outer = p;
        s->vis = LP_VIS_PUBLIC;
        if (lp_lx_has_keyword(cx, p, "default"))
            s->flags |= LP_SYMF_DEFAULT_EXPORT;
    }
}

/* An object-literal member is kept when the literal is (nested in) the value of the
 * enclosing symbol's binding: walk up through object/pair nodes to the container. */
static bool object_member_kept(const lx_ctx *cx)
{
    const lx_sym *c = lp_lx_container(cx);
    if (!c)
        return false;
    for (uint32_t k = 1; k <= cx->depth; k++) {
        TSNode a = lp_lx_ancestor(cx, k);
        if (ts_node_eq(a, c->node))
            return true;
        if (!lx_is(a, "object") && !lx_is(a, "pair") && !lx_is(a, "parenthesized_expression") &&
            !lx_is(a, "satisfies_expression") && !lx_is(a, "as_expression"))
            return false;
    }
    return false;
}

static bool refine(lx_ctx *cx, const lx_def *d, lx_sym *s, lx_scope *scope)
{
    (void)scope;
    if (!s)
        return true;
    const char *type = ts_node_type(d->node);
    TSNode p1 = cx->leaf ? d->node : lp_lx_ancestor(cx, 1);
    TSNode p2 = cx->leaf ? d->node : lp_lx_ancestor(cx, 2);
    const lx_sym *container = lp_lx_container(cx);

    if (cx->leaf || !strcmp(type, "enum_assignment")) { /* enum members */
        s->name = strip_quotes(s->name);
        return true;
    }

    if (!strcmp(type, "variable_declarator")) {
        TSNode decl = p1;
        bool is_const = lp_lx_has_keyword(cx, decl, "const");
        bool single = ts_node_named_child_count(decl) == 1;
        TSNode holder = p2, holder_parent = lp_lx_ancestor(cx, 3);
        if (single)
            s->outer = decl;
        else if (ts_node_start_byte(ts_node_named_child(decl, 0)) == ts_node_start_byte(d->node))
            s->span_start = ts_node_start_byte(decl); /* `let x = 1, y = 2`: x takes `let` */
        if (lx_is(p2, "export_statement") || lx_is(p2, "ambient_declaration")) {
            if (single)
                wrap_exports(cx, p2, lp_lx_ancestor(cx, 3), s);
            else if (lx_is(p2, "export_statement"))
                s->vis = LP_VIS_PUBLIC;
            holder = lp_lx_ancestor(cx, 3);
            holder_parent = lp_lx_ancestor(cx, 4);
            if (lx_is(holder, "export_statement")) { /* export declare const */
                s->vis = LP_VIS_PUBLIC;
                holder = lp_lx_ancestor(cx, 4);
                holder_parent = lp_lx_ancestor(cx, 5);
            }
        }
        bool module_level = is_module_level(holder, holder_parent);
        if (s->kind == LP_SYM_VARIABLE) {
            if (!module_level)
                return false;
            s->kind = is_const ? LP_SYM_CONSTANT : LP_SYM_VARIABLE;
        }
        if (s->kind == LP_SYM_FUNCTION && lp_lx_has_keyword(cx, d->value, "async"))
            s->flags |= LP_SYMF_ASYNC;
        return true;
    }

    if (!strcmp(type, "assignment_expression")) {
        if (!lx_is(p1, "expression_statement"))
            return false;
        lp_str q = lx_text(cx, d->qualifier);
        if (s->kind == LP_SYM_VARIABLE) { /* exports.x = { ... } at the top level */
            if (!lx_is(p2, "program") ||
                !(lp_str_eq_c(q, "module.exports") || lp_str_eq_c(q, "exports")))
                return false;
            s->outer = p1;
            s->vis = LP_VIS_PUBLIC;
            return true;
        }
        if (!lx_is(p2, "program")) {
            /* below the top level only the class pattern compilers emit (var Foo =
             * (function () { function Foo() {} Foo.prototype.bar = function () {};
             * Foo.create = function () {}; return Foo; }())): prototype methods
             * anywhere, statics of the type the enclosing binding names */
            if (!lx_is(p2, "statement_block"))
                return false;
            bool proto = lp_str_ends_with(q, LP_STR(".prototype"));
            lp_str type_name = proto ? lp_str_sub(q, 0, q.len - 10) : q;
            if (!proto && !(container && lx_is(d->qualifier, "identifier") &&
                            lp_str_eq(container->name, type_name)))
                return false;
        }
        s->outer = p1;
        if (lp_str_eq_c(q, "module.exports") || lp_str_eq_c(q, "exports")) {
            s->kind = LP_SYM_FUNCTION;
            s->vis = LP_VIS_PUBLIC;
        } else if (lp_str_ends_with(q, LP_STR(".prototype"))) {
            s->qualifier = lp_str_sub(q, 0, q.len - 10);
            s->kind = LP_SYM_METHOD;
        } else if (lx_is(d->qualifier, "identifier")) {
            s->qualifier = q;
            s->kind = LP_SYM_FUNCTION;
        } else {
            return false;
        }
        /* inside the binding that names the type (var Foo = (function () {...})) the
         * enclosing qname already says Foo: Foo.bar, not Foo.Foo.bar */
        if (container && lp_str_eq(container->name, s->qualifier))
            s->qualifier = LP_STR("");
        for (size_t i = 0; i < s->qualifier.len; i++)
            if (!(isalnum((unsigned char)s->qualifier.ptr[i]) || s->qualifier.ptr[i] == '_' ||
                  s->qualifier.ptr[i] == '$' || s->qualifier.ptr[i] == '.'))
                return false;
        if (lp_lx_has_keyword(cx, d->value, "async"))
            s->flags |= LP_SYMF_ASYNC;
        return true;
    }

    if (!strcmp(type, "pair")) {
        if (!object_member_kept(cx))
            return false;
        s->name = strip_quotes(s->name);
        if (lp_lx_has_keyword(cx, d->value, "async"))
            s->flags |= LP_SYMF_ASYNC;
        return true;
    }

    if (!strcmp(type, "export_statement")) { /* export default function () {} */
        s->name = LP_STR("default");
        s->vis = LP_VIS_PUBLIC;
        s->flags |= LP_SYMF_DEFAULT_EXPORT;
        if (lp_lx_has_keyword(cx, d->value, "async"))
            s->flags |= LP_SYMF_ASYNC;
        return true;
    }

    if (!strcmp(type, "construct_signature")) { /* new (...): T in an interface */
        if (!lx_is(p1, "interface_body") && !lx_is(p1, "object_type"))
            return false;
        if (lx_is(p1, "object_type") && !lx_is(p2, "type_alias_declaration"))
            return false;
        s->name = LP_STR("new");
        s->flags |= LP_SYMF_DECLARATION;
        s->vis = LP_VIS_PUBLIC;
        return true;
    }
    if (!strcmp(type, "method_definition") || !strcmp(type, "method_signature") ||
        !strcmp(type, "abstract_method_signature") || !strcmp(type, "public_field_definition") ||
        !strcmp(type, "field_definition") || !strcmp(type, "property_signature")) {
        bool in_object = lx_is(p1, "object");
        if (in_object && !object_member_kept(cx))
            return false;
        /* signatures of inline object types ({ start: number } in a parameter) are not
         * declarations; those of interfaces and named object types are */
        if ((!strcmp(type, "property_signature") || !strcmp(type, "method_signature")) &&
            lx_is(p1, "object_type") && !lx_is(p2, "type_alias_declaration"))
            return false;
        s->name = strip_quotes(s->name);
        read_member_modifiers(cx, d->node, s);
        if (!strcmp(type, "method_definition") && lp_str_eq_c(s->name, "constructor") && !in_object)
            s->kind = LP_SYM_CONSTRUCTOR;
        if (!strcmp(type, "method_signature") || !strcmp(type, "abstract_method_signature")) {
            s->flags |= LP_SYMF_DECLARATION;
            if (lp_str_eq_c(s->name, "constructor") && lx_is(p1, "class_body"))
                s->kind = LP_SYM_CONSTRUCTOR;
        }
        if (!strcmp(type, "abstract_method_signature"))
            s->flags |= LP_SYMF_ABSTRACT;
        if (container && container->kind == LP_SYM_INTERFACE && s->vis == LP_VIS_UNKNOWN)
            s->vis = LP_VIS_PUBLIC;
        return true;
    }

    if (!strcmp(type, "internal_module") || !strcmp(type, "module")) {
        s->name = strip_quotes(s->name);
        if (lx_is(p1, "expression_statement")) {
            s->outer = p1;
            p1 = p2;
            p2 = lp_lx_ancestor(cx, 3);
        }
        wrap_exports(cx, p1, p2, s);
        if (!s->has_body)
            s->flags |= LP_SYMF_DECLARATION;
        return true;
    }

    /* function, class, interface, type alias, enum, signatures */
    wrap_exports(cx, p1, p2, s);
    if (!strcmp(type, "function_signature"))
        s->flags |= LP_SYMF_DECLARATION;
    if (!strcmp(type, "abstract_class_declaration"))
        s->flags |= LP_SYMF_ABSTRACT;
    if (lp_lx_has_keyword(cx, d->node, "async"))
        s->flags |= LP_SYMF_ASYNC;
    return true;
}

static const char *const comments[] = {"comment", "html_comment", NULL};
static const char *const decorations[] = {"decorator", NULL};

const lp_lang_spec lp_spec_javascript = {
    .lang = LP_LANG_JAVASCRIPT,
    .query_name = "javascript",
    .ts_language = tree_sitter_javascript,
    .comment_types = comments,
    .decoration_types = decorations,
    .refine = refine,
    .refs = &lp_lxr_js,
};

const lp_lang_spec lp_spec_typescript = {
    .lang = LP_LANG_TYPESCRIPT,
    .query_name = "typescript",
    .ts_language = tree_sitter_typescript,
    .comment_types = comments,
    .decoration_types = decorations,
    .refine = refine,
    .refs = &lp_lxr_js,
};

const lp_lang_spec lp_spec_tsx = {
    .lang = LP_LANG_TSX,
    .query_name = "typescript",
    .ts_language = tree_sitter_tsx,
    .comment_types = comments,
    .decoration_types = decorations,
    .refine = refine,
    .refs = &lp_lxr_js,
};

/* ------------------------------------------------------------------------------------------
 * Operations (lang.h). JavaScript, TypeScript and TSX are one family: their files import
 * and call each other. */

static bool test_stem(lp_str stem)
{
    return lp_str_ends_with(stem, LP_STR(".test")) || lp_str_ends_with(stem, LP_STR(".spec"));
}

#define JS_GRAPH                                                                               \
    (LP_LANGG_NEW_ANY_VALUE | LP_LANGG_SHARED_MEMBERS | LP_LANGG_MODULE_REEXPORTS)

static const char *const js_aliases[] = {"js", "jsx", NULL};
static const char *const js_extensions[] = {".js", ".mjs", ".cjs", ".jsx", NULL};
static const char *const js_interpreters[] = {"node", NULL};

const lp_lang_ops lp_ops_javascript = {
    .lang = LP_LANG_JAVASCRIPT,
    .name = "javascript",
    .aliases = js_aliases,
    .extensions = js_extensions,
    .interpreters = js_interpreters,
    .spec = &lp_spec_javascript,
    .family = LP_LANG_JAVASCRIPT,
    .modules = LP_MODSYS_ES,
    .graph = JS_GRAPH,
    .test_stem = test_stem,
    .graph_covers =
        "enclosing scopes, same module, ES imports and require() of relative paths, re-exports, "
        "this/super methods, new Foo(), x = new Foo(); x.m()",
    .graph_blind =
        "untyped receivers, prototype tricks, bare package imports (node_modules), dynamic "
        "property access, callbacks passed as values",
    .graph_exports = true,
};

static const char *const ts_aliases[] = {"ts", NULL};
static const char *const ts_extensions[] = {".ts", ".mts", ".cts", NULL};
static const char *const ts_interpreters[] = {"deno", NULL};

const lp_lang_ops lp_ops_typescript = {
    .lang = LP_LANG_TYPESCRIPT,
    .name = "typescript",
    .aliases = ts_aliases,
    .extensions = ts_extensions,
    .interpreters = ts_interpreters,
    .spec = &lp_spec_typescript,
    .family = LP_LANG_JAVASCRIPT,
    .modules = LP_MODSYS_ES,
    .graph = JS_GRAPH,
    .test_stem = test_stem,
    .graph_covers = "as JavaScript, plus parameter and variable type annotations type their "
                    "receivers",
    .graph_blind = "untyped receivers, interface dispatch to implementations, path aliases "
                   "(tsconfig paths), bare package imports",
    .graph_exports = true,
};

static const char *const tsx_extensions[] = {".tsx", NULL};

const lp_lang_ops lp_ops_tsx = {
    .lang = LP_LANG_TSX,
    .name = "tsx",
    .extensions = tsx_extensions,
    .spec = &lp_spec_tsx,
    .family = LP_LANG_JAVASCRIPT,
    .modules = LP_MODSYS_ES,
    .graph = JS_GRAPH,
    .test_stem = test_stem,
    .graph_covers = "as TypeScript",
    .graph_blind = "as TypeScript; JSX elements are not calls",
    .graph_exports = true,
};
