/*
 * refs_dyn.c: reference hooks for Python, JavaScript/TypeScript (JSX, TSX) and Go: calls,
 * imports (and require), base classes, exports, bindings inside functions, test names.
 * The patterns are in src/lang/queries/{python,javascript,typescript,go}-refs.scm.
 *
 * Bindings recorded (they shadow names and type receivers, see refs_int.h):
 *   Python: parameters (the first one of a non-static method is the receiver), assignment
 *           and augmented assignment targets, for / comprehension / with / except / walrus
 *           targets; `x: T = ...` types x, `x = T(...)` types it when T is a class;
 *   JS/TS:  parameters (TS annotations type them), let/const/var declarators (`new T()`
 *           and annotations type them), catch parameters, for-in/of targets;
 *   Go:     parameters (typed), the receiver, `x := T{}` / `&T{}` / `new(T)`, var specs,
 *           range targets.
 */
#include "lang/refs_int.h"

/* ------------------------------------------------------------------------------------------
 * Python. */

static const char *const py_idents[] = {"identifier", NULL};
static const lxr_member py_members[] = {{"attribute", "object", "attribute", 0}, {NULL, NULL, NULL, 0}};
static const lxr_member py_wrappers[] = {{"parenthesized_expression", "", "", 0},
                                         {NULL, NULL, NULL, 0}};

static lp_str py_type(lx_ctx *cx, TSNode type)
{
    lp_str t = lx_text(cx, type);
    if (t.len && (t.ptr[0] == '"' || t.ptr[0] == '\''))
        t = lp_lxr_unquote(t);
    return lp_lxr_type_name(cx, t);
}

/* A dotted name as written, whitespace dropped, leading dots of relative imports kept. */
static lp_str py_dotted_text(lx_ctx *cx, TSNode n)
{
    lp_str t = lx_text(cx, n);
    size_t dots = 0;
    while (dots < t.len && t.ptr[dots] == '.')
        dots++;
    lp_str rest = lp_lxr_dotted(cx, lp_str_sub(t, dots, t.len));
    if (!dots)
        return rest;
    char *out = lp_arena_alloc(cx->arena, dots + rest.len + 1);
    memset(out, '.', dots);
    memcpy(out + dots, rest.ptr, rest.len);
    out[dots + rest.len] = '\0';
    return (lp_str){out, dots + rest.len};
}

static void py_import(lx_ctx *cx, const lxr_match *m, int32_t owner)
{
    TSNode st = m->node;
    bool from = lx_is(st, "import_from_statement");
    lp_str module = LP_STR("");
    uint32_t flags = 0;
    TSNode modnode = lp_lxr_field(st, "module_name");
    if (from) {
        module = py_dotted_text(cx, modnode);
        if (lx_is(modnode, "relative_import"))
            flags |= LP_REFF_RELATIVE;
    }
    uint32_t cnt = ts_node_named_child_count(st);
    for (uint32_t i = 0; i < cnt; i++) {
        TSNode c = ts_node_named_child(st, i);
        if (ts_node_eq(c, modnode))
            continue;
        if (lx_is(c, "wildcard_import")) {
            lxr_ref *r = lp_lxr_push(cx, LP_REF_IMPORT, owner, c);
            r->qual = module;
            r->name = LP_STR("*");
            r->flags |= flags | LP_REFF_WILDCARD;
            continue;
        }
        TSNode name = c, alias = {0};
        if (lx_is(c, "aliased_import")) {
            name = lp_lxr_field(c, "name");
            alias = lp_lxr_field(c, "alias");
        } else if (!lx_is(c, "dotted_name")) {
            continue;
        }
        lxr_ref *r = lp_lxr_push(cx, LP_REF_IMPORT, owner, c);
        r->flags |= flags;
        if (from) {
            r->qual = module;
            r->name = py_dotted_text(cx, name);
            r->alias = ts_node_is_null(alias) ? r->name : lx_text(cx, alias);
        } else {
            r->qual = py_dotted_text(cx, name);
            r->alias = lx_text(cx, alias); /* "" binds the first segment */
        }
    }
}

static void py_bases(lx_ctx *cx, const lxr_match *m, int32_t cls)
{
    uint32_t cnt = ts_node_named_child_count(m->args);
    for (uint32_t i = 0; i < cnt; i++) {
        TSNode b = ts_node_named_child(m->args, i);
        if (lx_is(b, "subscript")) /* Generic[T], Base[int] */
            b = lp_lxr_field(b, "value");
        if (!lx_is(b, "identifier") && !lx_is(b, "attribute"))
            continue;
        lxr_ref *r = lp_lxr_push(cx, LP_REF_BASE, cls, b);
        r->qual = py_dotted_text(cx, b);
        r->name = lp_lxr_last_segment(r->qual);
    }
}

static void py_params(lx_ctx *cx, TSNode params, int32_t owner)
{
    int32_t fn = lp_lxr_enclosing_function(cx, owner);
    bool method = false;
    if (fn >= 0 && lx_is(params, "parameters")) {
        const lx_sym *s = &cx->syms.items[fn];
        TSNode def = lp_lx_ancestor(cx, 1);
        method = ts_node_eq(def, s->node) &&
                 (s->kind == LP_SYM_METHOD || s->kind == LP_SYM_CONSTRUCTOR ||
                  s->kind == LP_SYM_PROPERTY) &&
                 !(s->flags & LP_SYMF_STATIC);
    }
    uint32_t cnt = ts_node_named_child_count(params);
    bool first = true;
    for (uint32_t i = 0; i < cnt; i++) {
        TSNode p = ts_node_named_child(params, i);
        TSNode name = p;
        lp_str type = LP_STR("");
        if (lx_is(p, "typed_parameter")) {
            name = ts_node_named_child(p, 0);
            type = py_type(cx, lp_lxr_field(p, "type"));
        } else if (lx_is(p, "default_parameter")) {
            name = lp_lxr_field(p, "name");
        } else if (lx_is(p, "typed_default_parameter")) {
            name = lp_lxr_field(p, "name");
            type = py_type(cx, lp_lxr_field(p, "type"));
        } else if (lx_is(p, "list_splat_pattern") || lx_is(p, "dictionary_splat_pattern")) {
            name = ts_node_named_child(p, 0);
            type = LP_STR("");
        }
        if (!lx_is(name, "identifier")) {
            first = false;
            continue;
        }
        if (first && method)
            lp_lxr_binding(cx, owner, lx_text(cx, name), LP_STR(""), LXR_LOCAL_RECEIVER);
        else
            lp_lxr_binding(cx, owner, lx_text(cx, name), type, 0);
        first = false;
    }
}

static void py_local(lx_ctx *cx, const lxr_match *m, int32_t owner)
{
    TSNode n = m->node;
    if (lx_is(n, "parameters") || lx_is(n, "lambda_parameters")) {
        py_params(cx, n, owner);
        return;
    }
    if (lx_is(n, "assignment")) {
        TSNode left = lp_lxr_field(n, "left"), type = lp_lxr_field(n, "type"),
               right = lp_lxr_field(n, "right");
        if (lx_is(left, "identifier")) {
            lp_str t = LP_STR("");
            uint32_t f = 0;
            if (!ts_node_is_null(type)) {
                t = py_type(cx, type);
            } else if (lx_is(right, "call")) {
                TSNode fn = lp_lxr_field(right, "function");
                if (lx_is(fn, "identifier") || lx_is(fn, "attribute")) {
                    t = py_dotted_text(cx, fn);
                    f = LP_REFF_RTYPE_CALL;
                }
            }
            lp_lxr_binding(cx, owner, lx_text(cx, left), t, f);
        } else {
            lp_lxr_locals_in(cx, owner, left, LP_STR(""), 0);
        }
        return;
    }
    if (lx_is(n, "with_item") || lx_is(n, "except_clause")) {
        TSNode v = lp_lxr_field(n, "value");
        if (ts_node_is_null(v) && lx_is(n, "except_clause")) {
            /* older grammar shape: except E as e: identifiers after `as` */
            v = lp_lx_child_of_type(n, "as_pattern");
        }
        if (lx_is(v, "as_pattern"))
            lp_lxr_locals_in(cx, owner, lp_lxr_field(v, "alias"), LP_STR(""), 0);
        return;
    }
    /* for / comprehension targets, augmented assignment, walrus: the captured target */
    lp_lxr_locals_in(cx, owner, m->name, LP_STR(""), 0);
}

static void py_hook(lx_ctx *cx, const lxr_match *m, int32_t outer, int32_t inner)
{
    switch (m->kind) {
    case LXR_CALL:
        lp_lxr_call(cx, LP_REF_CALL, outer, m->node, m->callee, m->args);
        break;
    case LXR_IMPORT:
        py_import(cx, m, outer);
        break;
    case LXR_BASE:
        if (inner >= 0 && inner != outer)
            py_bases(cx, m, inner);
        break;
    case LXR_LOCAL:
        py_local(cx, m, inner);
        break;
    default:
        break;
    }
}

/* test_parse_args -> parse_args; TestParser -> Parser (the class under test). */
static lp_str py_test_target(const lx_ctx *cx, const lx_sym *s)
{
    lp_str n = s->name;
    if (lp_str_starts_with(n, LP_STR("test_")) && n.len > 5)
        return lp_str_sub(n, 5, n.len);
    if (lp_lx_kind_is_type(s->kind) && lp_str_starts_with(n, LP_STR("Test")) && n.len > 4)
        return lp_str_sub(n, 4, n.len);
    if (lp_lx_kind_is_type(s->kind) && lp_str_ends_with(n, LP_STR("Test")) && n.len > 4)
        return lp_str_sub(n, 0, n.len - 4);
    return LP_STR("");
}

const lxr_lang lp_lxr_python = {
    .idents = py_idents,
    .members = py_members,
    .wrappers = py_wrappers,
    .hook = py_hook,
    .test_target = py_test_target,
};

/* ------------------------------------------------------------------------------------------
 * JavaScript / TypeScript. */

static const char *const js_idents[] = {"identifier", "property_identifier",
                                        "private_property_identifier", "type_identifier", NULL};
static const char *const js_selfs[] = {"this", NULL};
static const char *const js_supers[] = {"super", NULL};
static const lxr_member js_members[] = {{"member_expression", "object", "property", 0},
                                        {"nested_identifier", "object", "property", 0},
                                        {"nested_type_identifier", "module", "name", 0},
                                        {NULL, NULL, NULL, 0}};
static const lxr_member js_wrappers[] = {{"parenthesized_expression", "", "", 0},
                                         {"non_null_expression", "", "", 0},
                                         {"generic_type", "name", "", 0},
                                         {NULL, NULL, NULL, 0}};

static lp_str js_type_of(lx_ctx *cx, TSNode annotation)
{
    if (ts_node_is_null(annotation))
        return LP_STR("");
    TSNode t = lx_is(annotation, "type_annotation") && ts_node_named_child_count(annotation)
                   ? ts_node_named_child(annotation, 0)
                   : annotation;
    if (lx_is(t, "predefined_type"))
        return LP_STR("");
    return lp_lxr_type_name(cx, lx_text(cx, t));
}

static void js_import(lx_ctx *cx, const lxr_match *m, int32_t owner)
{
    TSNode st = m->node;
    TSNode src = lp_lxr_field(st, "source");
    if (ts_node_is_null(src))
        return; /* TS `import x = require(...)` and `import x = ns.y` */
    lp_str module = lp_lxr_unquote(lx_text(cx, src));
    uint32_t base = module.len && module.ptr[0] == '.' ? LP_REFF_RELATIVE : 0;
    TSNode clause = lp_lx_child_of_type(st, "import_clause");
    if (ts_node_is_null(clause)) {
        lxr_ref *r = lp_lxr_push(cx, LP_REF_IMPORT, owner, st); /* import './side-effect' */
        r->qual = module;
        r->flags |= base;
        return;
    }
    uint32_t cnt = ts_node_named_child_count(clause);
    for (uint32_t i = 0; i < cnt; i++) {
        TSNode c = ts_node_named_child(clause, i);
        if (lx_is(c, "identifier")) {
            lxr_ref *r = lp_lxr_push(cx, LP_REF_IMPORT, owner, c);
            r->qual = module;
            r->name = LP_STR("default");
            r->alias = lx_text(cx, c);
            r->flags |= base | LP_REFF_DEFAULT;
        } else if (lx_is(c, "namespace_import")) {
            lxr_ref *r = lp_lxr_push(cx, LP_REF_IMPORT, owner, c);
            r->qual = module;
            r->name = LP_STR("*");
            r->alias = lx_text(cx, ts_node_named_child(c, 0));
            r->flags |= base | LP_REFF_NAMESPACE;
        } else if (lx_is(c, "named_imports")) {
            uint32_t k = ts_node_named_child_count(c);
            for (uint32_t j = 0; j < k; j++) {
                TSNode s = ts_node_named_child(c, j);
                if (!lx_is(s, "import_specifier"))
                    continue;
                lxr_ref *r = lp_lxr_push(cx, LP_REF_IMPORT, owner, s);
                r->qual = module;
                r->name = lp_lxr_unquote(lx_text(cx, lp_lxr_field(s, "name")));
                TSNode al = lp_lxr_field(s, "alias");
                r->alias = ts_node_is_null(al) ? r->name : lx_text(cx, al);
                r->flags |= base;
            }
        }
    }
}

/* const x = require('m'), const {a, b: c} = require('m'), require('m'). */
static bool js_require(lx_ctx *cx, const lxr_match *m, int32_t owner)
{
    if (!lp_str_eq_c(lx_text(cx, m->callee), "require") || ts_node_is_null(m->args) ||
        ts_node_named_child_count(m->args) != 1)
        return false;
    TSNode arg = ts_node_named_child(m->args, 0);
    if (!lx_is(arg, "string"))
        return false;
    lp_str module = lp_lxr_unquote(lx_text(cx, arg));
    uint32_t base = module.len && module.ptr[0] == '.' ? LP_REFF_RELATIVE : 0;
    TSNode parent = lp_lx_ancestor(cx, 1);
    TSNode name = lx_is(parent, "variable_declarator") ? lp_lxr_field(parent, "name") : (TSNode){0};
    if (lx_is(name, "object_pattern")) {
        uint32_t k = ts_node_named_child_count(name);
        for (uint32_t j = 0; j < k; j++) {
            TSNode p = ts_node_named_child(name, j);
            lxr_ref *r = NULL;
            if (lx_is(p, "shorthand_property_identifier_pattern")) {
                r = lp_lxr_push(cx, LP_REF_IMPORT, owner, p);
                r->name = r->alias = lx_text(cx, p);
            } else if (lx_is(p, "pair_pattern") && lx_is(lp_lxr_field(p, "value"), "identifier")) {
                r = lp_lxr_push(cx, LP_REF_IMPORT, owner, p);
                r->name = lx_text(cx, lp_lxr_field(p, "key"));
                r->alias = lx_text(cx, lp_lxr_field(p, "value"));
            }
            if (r) {
                r->qual = module;
                r->flags |= base | LP_REFF_NAMESPACE;
            }
        }
        return true;
    }
    lxr_ref *r = lp_lxr_push(cx, LP_REF_IMPORT, owner, m->node);
    r->qual = module;
    r->flags |= base | LP_REFF_NAMESPACE;
    if (lx_is(name, "identifier"))
        r->alias = lx_text(cx, name);
    return true;
}

static void js_export(lx_ctx *cx, const lxr_match *m, int32_t owner)
{
    TSNode st = m->node;
    TSNode src = lp_lxr_field(st, "source");
    lp_str module = ts_node_is_null(src) ? LP_STR("") : lp_lxr_unquote(lx_text(cx, src));
    uint32_t base = module.len && module.ptr[0] == '.' ? LP_REFF_RELATIVE : 0;
    TSNode clause = lp_lx_child_of_type(st, "export_clause");
    if (!ts_node_is_null(clause)) {
        uint32_t k = ts_node_named_child_count(clause);
        for (uint32_t j = 0; j < k; j++) {
            TSNode s = ts_node_named_child(clause, j);
            if (!lx_is(s, "export_specifier"))
                continue;
            lxr_ref *r = lp_lxr_push(cx, LP_REF_EXPORT, owner, s);
            r->qual = module;
            r->name = lp_lxr_unquote(lx_text(cx, lp_lxr_field(s, "name")));
            TSNode al = lp_lxr_field(s, "alias");
            r->alias = ts_node_is_null(al) ? r->name : lp_lxr_unquote(lx_text(cx, al));
            r->flags |= base;
        }
        return;
    }
    if (module.len) { /* export * from './m', export * as ns from './m' */
        lxr_ref *r = lp_lxr_push(cx, LP_REF_EXPORT, owner, st);
        r->qual = module;
        r->name = LP_STR("*");
        TSNode ns = lp_lx_child_of_type(st, "namespace_export");
        if (!ts_node_is_null(ns))
            r->alias = lx_text(cx, ts_node_named_child(ns, 0));
        r->flags |= base | LP_REFF_WILDCARD;
        return;
    }
    TSNode value = lp_lxr_field(st, "value");
    if (lx_is(value, "identifier")) { /* export default foo; */
        lxr_ref *r = lp_lxr_push(cx, LP_REF_EXPORT, owner, st);
        r->name = lx_text(cx, value);
        r->alias = LP_STR("default");
        r->flags |= LP_REFF_DEFAULT;
    }
}

static void js_bases(lx_ctx *cx, TSNode heritage, int32_t cls)
{
    TSNode stack[8];
    int n = 0;
    stack[n++] = heritage;
    while (n) {
        TSNode h = stack[--n];
        uint32_t cnt = ts_node_named_child_count(h);
        for (uint32_t i = 0; i < cnt; i++) {
            TSNode c = ts_node_named_child(h, i);
            if ((lx_is(c, "extends_clause") || lx_is(c, "implements_clause")) && n < 8) {
                stack[n++] = c;
                continue;
            }
            if (lx_is(c, "type_arguments"))
                continue;
            TSNode t = c;
            if (lx_is(t, "generic_type"))
                t = lp_lxr_field(t, "name");
            if (!lx_is(t, "identifier") && !lx_is(t, "type_identifier") &&
                !lx_is(t, "member_expression") && !lx_is(t, "nested_type_identifier"))
                continue;
            lxr_ref *r = lp_lxr_push(cx, LP_REF_BASE, cls, t);
            r->qual = lp_lxr_dotted(cx, lx_text(cx, t));
            r->name = lp_lxr_last_segment(r->qual);
        }
    }
}

static void js_params(lx_ctx *cx, TSNode params, int32_t owner)
{
    uint32_t cnt = ts_node_named_child_count(params);
    for (uint32_t i = 0; i < cnt; i++) {
        TSNode p = ts_node_named_child(params, i);
        if (lx_is(p, "required_parameter") || lx_is(p, "optional_parameter")) {
            TSNode pat = lp_lxr_field(p, "pattern");
            lp_str type = lx_is(pat, "identifier") ? js_type_of(cx, lp_lxr_field(p, "type"))
                                                   : LP_STR("");
            lp_lxr_locals_in(cx, owner, pat, type, 0);
        } else {
            lp_lxr_locals_in(cx, owner, p, LP_STR(""), 0);
        }
    }
}

static bool js_function_value(TSNode v)
{
    return lx_is(v, "arrow_function") || lx_is(v, "function_expression") ||
           lx_is(v, "function") || lx_is(v, "generator_function") || lx_is(v, "class");
}

static void js_local(lx_ctx *cx, const lxr_match *m, int32_t outer, int32_t inner)
{
    TSNode n = m->node;
    if (lx_is(n, "formal_parameters")) {
        js_params(cx, n, inner);
        return;
    }
    if (lx_is(n, "arrow_function")) { /* x => ...: a lone identifier parameter */
        TSNode p = lp_lxr_field(n, "parameter");
        if (lx_is(p, "identifier"))
            lp_lxr_binding(cx, outer, lx_text(cx, p), LP_STR(""), 0);
        return;
    }
    if (lx_is(n, "variable_declarator")) {
        TSNode name = lp_lxr_field(n, "name"), value = lp_lxr_field(n, "value");
        if (inner != outer && js_function_value(value))
            return; /* a function or class symbol, not a plain binding */
        if (!lx_is(name, "identifier")) {
            lp_lxr_locals_in(cx, outer, name, LP_STR(""), 0);
            return;
        }
        lp_str type = js_type_of(cx, lp_lxr_field(n, "type"));
        uint32_t f = 0;
        if (!type.len && lx_is(value, "new_expression")) {
            TSNode c = lp_lxr_field(value, "constructor");
            if (lx_is(c, "identifier") || lx_is(c, "member_expression"))
                type = lp_lxr_dotted(cx, lx_text(cx, c));
        } else if (!type.len && lx_is(value, "call_expression")) {
            TSNode c = lp_lxr_field(value, "function");
            if (lx_is(c, "identifier") || lx_is(c, "member_expression")) {
                type = lp_lxr_dotted(cx, lx_text(cx, c));
                f = LP_REFF_RTYPE_CALL;
            }
        }
        lp_lxr_binding(cx, outer, lx_text(cx, name), type, f);
        return;
    }
    /* catch parameter, for-in/of target, assignment target */
    lp_lxr_locals_in(cx, outer, m->name, LP_STR(""), 0);
}

static void js_hook(lx_ctx *cx, const lxr_match *m, int32_t outer, int32_t inner)
{
    switch (m->kind) {
    case LXR_CALL:
        if (lx_is(m->callee, "import"))
            break; /* dynamic import(): the module is data */
        if (!js_require(cx, m, outer))
            lp_lxr_call(cx, LP_REF_CALL, outer, m->node, m->callee, m->args);
        break;
    case LXR_NEW:
        lp_lxr_call(cx, LP_REF_NEW, outer, m->node, m->callee, m->args);
        break;
    case LXR_IMPORT:
        js_import(cx, m, outer);
        break;
    case LXR_EXPORT:
        js_export(cx, m, outer);
        break;
    case LXR_BASE:
        js_bases(cx, ts_node_is_null(m->args) ? m->node : m->args, inner);
        break;
    case LXR_LOCAL:
        js_local(cx, m, outer, inner);
        break;
    default:
        break;
    }
}

const lxr_lang lp_lxr_js = {
    .idents = js_idents,
    .selfs = js_selfs,
    .supers = js_supers,
    .members = js_members,
    .wrappers = js_wrappers,
    .hook = js_hook,
};

/* ------------------------------------------------------------------------------------------
 * Go. */

static const char *const go_idents[] = {"identifier", "field_identifier", "package_identifier",
                                        "type_identifier", NULL};
static const lxr_member go_members[] = {{"selector_expression", "operand", "field", 0},
                                        {"qualified_type", "package", "name", 0},
                                        {NULL, NULL, NULL, 0}};
static const lxr_member go_wrappers[] = {{"parenthesized_expression", "", "", 0},
                                         {"generic_type", "type", "", 0},
                                         {NULL, NULL, NULL, 0}};

static void go_import(lx_ctx *cx, const lxr_match *m, int32_t owner)
{
    lxr_ref *r = lp_lxr_push(cx, LP_REF_IMPORT, owner, m->node);
    r->qual = lp_lxr_unquote(lx_text(cx, lp_lxr_field(m->node, "path")));
    TSNode name = lp_lxr_field(m->node, "name");
    if (lx_is(name, "dot"))
        r->flags |= LP_REFF_WILDCARD;
    else if (!ts_node_is_null(name))
        r->alias = lx_text(cx, name);
}

/* The type a Go value shows: T{...}, &T{...}, new(T); "" otherwise. */
static lp_str go_value_type(lx_ctx *cx, TSNode v)
{
    if (lx_is(v, "unary_expression"))
        v = lp_lxr_field(v, "operand");
    if (lx_is(v, "composite_literal"))
        return lp_lxr_type_name(cx, lx_text(cx, lp_lxr_field(v, "type")));
    if (lx_is(v, "call_expression") && lp_str_eq_c(lx_text(cx, lp_lxr_field(v, "function")), "new")) {
        TSNode a = lp_lxr_field(v, "arguments");
        if (ts_node_named_child_count(a) == 1)
            return lp_lxr_type_name(cx, lx_text(cx, ts_node_named_child(a, 0)));
    }
    return LP_STR("");
}

static void go_params(lx_ctx *cx, TSNode list, int32_t owner, uint32_t flags)
{
    uint32_t cnt = ts_node_named_child_count(list);
    for (uint32_t i = 0; i < cnt; i++) {
        TSNode p = ts_node_named_child(list, i);
        if (!lx_is(p, "parameter_declaration") && !lx_is(p, "variadic_parameter_declaration"))
            continue;
        TSNode type = lp_lxr_field(p, "type");
        lp_str t = lx_is(p, "variadic_parameter_declaration")
                       ? LP_STR("")
                       : lp_lxr_type_name(cx, lx_text(cx, type));
        uint32_t k = ts_node_named_child_count(p);
        for (uint32_t j = 0; j < k; j++) {
            TSNode c = ts_node_named_child(p, j);
            if (lx_is(c, "identifier") && !ts_node_eq(c, type))
                lp_lxr_binding(cx, owner, lx_text(cx, c), t, flags);
        }
    }
}

static void go_local(lx_ctx *cx, const lxr_match *m, int32_t owner)
{
    TSNode n = m->node;
    if (lx_is(n, "parameter_list")) {
        TSNode parent = lp_lx_ancestor(cx, 1);
        bool receiver = lx_is(parent, "method_declaration") &&
                        ts_node_eq(lp_lxr_field(parent, "receiver"), n);
        go_params(cx, n, owner, receiver ? LXR_LOCAL_RECEIVER : 0);
        return;
    }
    if (lx_is(n, "short_var_declaration") || lx_is(n, "assignment_statement")) {
        if (lx_is(n, "assignment_statement"))
            return; /* `x = v` rebinds an existing name: no new binding */
        TSNode left = lp_lxr_field(n, "left"), right = lp_lxr_field(n, "right");
        uint32_t nl = ts_node_named_child_count(left), nr = ts_node_named_child_count(right);
        for (uint32_t i = 0; i < nl; i++) {
            TSNode id = ts_node_named_child(left, i);
            if (!lx_is(id, "identifier"))
                continue;
            lp_str t = nl == nr ? go_value_type(cx, ts_node_named_child(right, i)) : LP_STR("");
            lp_lxr_binding(cx, owner, lx_text(cx, id), t, 0);
        }
        return;
    }
    if (lx_is(n, "var_spec")) {
        TSNode type = lp_lxr_field(n, "type");
        lp_str t = ts_node_is_null(type) ? LP_STR("") : lp_lxr_type_name(cx, lx_text(cx, type));
        TSNode value = lp_lxr_field(n, "value");
        uint32_t nv = ts_node_is_null(value) ? 0 : ts_node_named_child_count(value);
        uint32_t k = ts_node_named_child_count(n), idx = 0;
        for (uint32_t j = 0; j < k; j++) {
            TSNode c = ts_node_named_child(n, j);
            if (!lx_is(c, "identifier"))
                continue;
            lp_str vt = t;
            if (!vt.len && nv > idx)
                vt = go_value_type(cx, ts_node_named_child(value, idx));
            lp_lxr_binding(cx, owner, lx_text(cx, c), vt, 0);
            idx++;
        }
        return;
    }
    lp_lxr_locals_in(cx, owner, m->name, LP_STR(""), 0); /* range targets, type switch */
}

static void go_hook(lx_ctx *cx, const lxr_match *m, int32_t outer, int32_t inner)
{
    switch (m->kind) {
    case LXR_CALL: {
        lxr_ref *r = lp_lxr_call(cx, LP_REF_CALL, outer, m->node, m->callee, m->args);
        if (r->nargs == 1)
            r->flags |= LP_REFF_CONVERSION; /* T(x) may convert: decided when T is known */
        break;
    }
    case LXR_IMPORT:
        go_import(cx, m, outer);
        break;
    case LXR_BASE: {
        /* an embedded field: a field declaration without a name */
        if (!ts_node_is_null(lp_lxr_field(m->node, "name")) || inner < 0)
            break;
        lp_str t = lp_lxr_type_name(cx, lx_text(cx, lp_lxr_field(m->node, "type")));
        if (!t.len)
            break;
        lxr_ref *r = lp_lxr_push(cx, LP_REF_BASE, inner, m->node);
        r->qual = t;
        r->name = lp_lxr_last_segment(t);
        break;
    }
    case LXR_LOCAL:
        go_local(cx, m, inner);
        break;
    default:
        break;
    }
}

/* TestParse / BenchmarkParse / FuzzParse -> Parse; TestServer_Start -> Server. */
static lp_str go_test_target(const lx_ctx *cx, const lx_sym *s)
{
    static const char *const prefixes[] = {"Test", "Benchmark", "Fuzz", "Example"};
    lp_str n = s->name;
    for (size_t i = 0; i < LP_ARRAY_LEN(prefixes); i++) {
        lp_str p = lp_str_c(prefixes[i]);
        if (lp_str_starts_with(n, p) && n.len > p.len) {
            lp_str rest = lp_str_sub(n, p.len, n.len);
            size_t u = lp_str_find_char(rest, '_', 0);
            if (u != SIZE_MAX)
                rest = lp_str_sub(rest, 0, u);
            return rest;
        }
    }
    return LP_STR("");
}

const lxr_lang lp_lxr_go = {
    .idents = go_idents,
    .members = go_members,
    .wrappers = go_wrappers,
    .hook = go_hook,
    .test_target = go_test_target,
};
