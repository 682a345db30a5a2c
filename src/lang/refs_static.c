/*
 * refs_static.c: reference hooks for Java, C#, Scala, Rust, C and C++: calls, constructor
 * calls, imports (import, using, use, mod, #include), base types, bindings inside
 * functions, test names. Patterns: src/lang/queries/<lang>-refs.scm.
 *
 * Bindings recorded: parameters and local declarations (their declared types type the
 * receivers: `Foo x = ...`, `x: Foo`, `var x = new Foo()`, `let x = Foo { .. }`,
 * `Foo x(1);`), loop, catch, lambda and pattern variables (untyped: they only shadow).
 * `Foo f(1);` / `Foo f{1};` in C++ also count as a constructor call of Foo.
 */
#include "lang/refs_int.h"

/* A constructor call of the type written at `type`. */
static lxr_ref *new_of_type(lx_ctx *cx, int32_t owner, TSNode node, TSNode type, TSNode args)
{
    lp_str t = lp_lxr_type_name(cx, lx_text(cx, type));
    if (!t.len)
        return NULL;
    lxr_ref *r = lp_lxr_call_parts(cx, LP_REF_NEW, owner, node, (TSNode){0}, type, args);
    r->name = lp_lxr_last_segment(t);
    if (r->name.len < t.len) {
        r->qual = lp_str_sub(t, 0, t.len - r->name.len - 1);
        r->root = lp_str_sub(t, 0, lp_str_find_char(t, '.', 0));
        r->flags |= LP_REFF_PATH;
    }
    return r;
}

static void base_of_type(lx_ctx *cx, int32_t owner, TSNode type)
{
    lp_str t = lp_lxr_type_name(cx, lx_text(cx, type));
    if (!t.len || owner < 0)
        return;
    lxr_ref *r = lp_lxr_push(cx, LP_REF_BASE, owner, type);
    r->qual = t;
    r->name = lp_lxr_last_segment(t);
}

static bool is_type_node(TSNode n)
{
    const char *t = ts_node_type(n);
    return strstr(t, "type") || !strcmp(t, "identifier") || !strcmp(t, "qualified_name") ||
           !strcmp(t, "generic_name") || !strcmp(t, "scoped_identifier") ||
           !strcmp(t, "qualified_identifier");
}

/* Every child of n that names a type becomes a base of owner. */
static void bases_in(lx_ctx *cx, int32_t owner, TSNode n, int depth)
{
    uint32_t cnt = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < cnt; i++) {
        TSNode c = ts_node_named_child(n, i);
        const char *t = ts_node_type(c);
        if (!strcmp(t, "type_list") || !strcmp(t, "interface_type_list")) {
            if (depth < 3)
                bases_in(cx, owner, c, depth + 1);
            continue;
        }
        if (!strcmp(t, "access_specifier") || !strcmp(t, "arguments") ||
            !strcmp(t, "argument_list") || strstr(t, "comment") || !is_type_node(c))
            continue;
        base_of_type(cx, owner, c);
    }
}

/* Typed declarators: record each declared name with the declared type (or the type of a
 * `new T(...)` initializer when the declared type is `var`/implicit). */
static lp_str new_type_of(lx_ctx *cx, TSNode value)
{
    if (lx_is(value, "object_creation_expression") || lx_is(value, "instance_expression") ||
        lx_is(value, "new_expression")) {
        TSNode t = lp_lxr_field(value, "type");
        if (ts_node_is_null(t) && ts_node_named_child_count(value))
            t = ts_node_named_child(value, 0);
        return lp_lxr_type_name(cx, lx_text(cx, t));
    }
    return LP_STR("");
}

/* ------------------------------------------------------------------------------------------
 * Java. */

static const char *const java_idents[] = {"identifier", "type_identifier", NULL};
static const char *const java_selfs[] = {"this", NULL};
static const char *const java_supers[] = {"super", NULL};
static const lxr_member java_members[] = {{"field_access", "object", "field", 0},
                                          {"scoped_identifier", "scope", "name", 0},
                                          {NULL, NULL, NULL, 0}};
static const lxr_member java_wrappers[] = {{"parenthesized_expression", "", "", 0},
                                           {"generic_type", "", "", 0},
                                           {NULL, NULL, NULL, 0}};

static void java_import(lx_ctx *cx, const lxr_match *m, int32_t owner)
{
    TSNode st = m->node;
    TSNode path = lp_lx_child_of_type(st, "scoped_identifier");
    if (ts_node_is_null(path))
        path = lp_lx_child_of_type(st, "identifier");
    if (ts_node_is_null(path))
        return;
    lp_str full = lp_lxr_dotted(cx, lx_text(cx, path));
    lxr_ref *r = lp_lxr_push(cx, LP_REF_IMPORT, owner, path);
    if (lp_lx_has_keyword(cx, st, "static"))
        r->flags |= LP_REFF_STATIC;
    if (!ts_node_is_null(lp_lx_child_of_type(st, "asterisk"))) {
        r->qual = full;
        r->name = LP_STR("*");
        r->flags |= LP_REFF_WILDCARD;
        return;
    }
    r->name = lp_lxr_last_segment(full);
    r->qual = r->name.len < full.len ? lp_str_sub(full, 0, full.len - r->name.len - 1) : LP_STR("");
    r->alias = r->name;
}

static lp_str java_type(lx_ctx *cx, TSNode type, TSNode value)
{
    lp_str t = lx_text(cx, type);
    if (lp_str_eq_c(t, "var"))
        return new_type_of(cx, value);
    if (lx_is(type, "integral_type") || lx_is(type, "floating_point_type") ||
        lx_is(type, "boolean_type") || lx_is(type, "array_type"))
        return LP_STR("");
    return lp_lxr_type_name(cx, t);
}

static void java_local(lx_ctx *cx, const lxr_match *m, int32_t owner)
{
    TSNode n = m->node;
    if (lx_is(n, "formal_parameters")) {
        uint32_t cnt = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < cnt; i++) {
            TSNode p = ts_node_named_child(n, i);
            if (lx_is(p, "formal_parameter"))
                lp_lxr_binding(cx, owner, lx_text(cx, lp_lxr_field(p, "name")),
                          java_type(cx, lp_lxr_field(p, "type"), (TSNode){0}), 0);
            else
                lp_lxr_locals_in(cx, owner, p, LP_STR(""), 0); /* spread, receiver */
        }
        return;
    }
    if (lx_is(n, "local_variable_declaration") || lx_is(n, "resource")) {
        TSNode type = lp_lxr_field(n, "type");
        uint32_t cnt = ts_node_named_child_count(n);
        if (lx_is(n, "resource")) {
            lp_lxr_binding(cx, owner, lx_text(cx, lp_lxr_field(n, "name")),
                      java_type(cx, type, lp_lxr_field(n, "value")), 0);
            return;
        }
        for (uint32_t i = 0; i < cnt; i++) {
            TSNode d = ts_node_named_child(n, i);
            if (!lx_is(d, "variable_declarator"))
                continue;
            lp_lxr_binding(cx, owner, lx_text(cx, lp_lxr_field(d, "name")),
                      java_type(cx, type, lp_lxr_field(d, "value")), 0);
        }
        return;
    }
    if (lx_is(n, "enhanced_for_statement") || lx_is(n, "catch_formal_parameter")) {
        lp_lxr_binding(cx, owner, lx_text(cx, lp_lxr_field(n, "name")), LP_STR(""), 0);
        return;
    }
    if (lx_is(n, "lambda_expression")) {
        lp_lxr_locals_in(cx, owner, lp_lxr_field(n, "parameters"), LP_STR(""), 0);
        return;
    }
}

static void java_hook(lx_ctx *cx, const lxr_match *m, int32_t outer, int32_t inner)
{
    switch (m->kind) {
    case LXR_CALL:
        lp_lxr_call_parts(cx, LP_REF_CALL, outer, m->node, lp_lxr_field(m->node, "object"),
                       lp_lxr_field(m->node, "name"), lp_lxr_field(m->node, "arguments"));
        break;
    case LXR_NEW:
        new_of_type(cx, outer, m->node, lp_lxr_field(m->node, "type"),
                    lp_lxr_field(m->node, "arguments"));
        break;
    case LXR_IMPORT:
        java_import(cx, m, outer);
        break;
    case LXR_BASE:
        bases_in(cx, outer, m->node, 0);
        break;
    case LXR_LOCAL:
        java_local(cx, m, outer);
        break;
    default:
        break;
    }
}

/* testParse -> parse; a test in FooTest(s) with another name -> Foo. */
static lp_str junit_target(const lx_ctx *cx, const lx_sym *s)
{
    lp_str n = s->name;
    if (lp_str_starts_with(n, LP_STR("test")) && n.len > 4 && n.ptr[4] >= 'A' && n.ptr[4] <= 'Z') {
        char *out = lp_arena_strndup(cx->arena, n.ptr + 4, n.len - 4);
        out[0] = (char)(out[0] - 'A' + 'a');
        return (lp_str){out, n.len - 4};
    }
    if (lp_lx_kind_is_type(s->kind) || s->container < 0)
        return LP_STR("");
    lp_str cls = cx->syms.items[s->container].name;
    if (lp_str_ends_with(cls, LP_STR("Tests")) && cls.len > 5)
        return lp_str_sub(cls, 0, cls.len - 5);
    if (lp_str_ends_with(cls, LP_STR("Test")) && cls.len > 4)
        return lp_str_sub(cls, 0, cls.len - 4);
    return LP_STR("");
}

const lxr_lang lp_lxr_java = {
    .idents = java_idents,
    .selfs = java_selfs,
    .supers = java_supers,
    .members = java_members,
    .wrappers = java_wrappers,
    .hook = java_hook,
    .test_target = junit_target,
};

/* ------------------------------------------------------------------------------------------
 * C#. */

static const char *const cs_idents[] = {"identifier", NULL};
static const char *const cs_selfs[] = {"this", "this_expression", NULL};
static const char *const cs_supers[] = {"base", "base_expression", NULL};
static const lxr_member cs_members[] = {{"member_access_expression", "expression", "name", 0},
                                        {"qualified_name", "qualifier", "name", 0},
                                        {NULL, NULL, NULL, 0}};
static const lxr_member cs_wrappers[] = {{"generic_name", "", "", 0},
                                         {"parenthesized_expression", "", "", 0},
                                         {NULL, NULL, NULL, 0}};

static void cs_using(lx_ctx *cx, const lxr_match *m, int32_t owner)
{
    TSNode st = m->node;
    TSNode alias = lp_lxr_field(st, "name");
    TSNode target = lp_lx_child_of_type(st, "qualified_name");
    uint32_t cnt = ts_node_named_child_count(st);
    for (uint32_t i = 0; ts_node_is_null(target) && i < cnt; i++) {
        TSNode c = ts_node_named_child(st, i);
        if (lx_is(c, "identifier") && !ts_node_eq(c, alias))
            target = c;
    }
    if (ts_node_is_null(target))
        return;
    lp_str full = lp_lxr_type_name(cx, lx_text(cx, target));
    lxr_ref *r = lp_lxr_push(cx, LP_REF_IMPORT, owner, target);
    if (lp_lx_has_keyword(cx, st, "static"))
        r->flags |= LP_REFF_STATIC;
    if (ts_node_is_null(alias)) {
        r->qual = full;
        r->name = LP_STR("*");
        r->flags |= LP_REFF_WILDCARD;
        return;
    }
    r->name = lp_lxr_last_segment(full);
    r->qual = r->name.len < full.len ? lp_str_sub(full, 0, full.len - r->name.len - 1) : LP_STR("");
    r->alias = lx_text(cx, alias);
}

static lp_str cs_type(lx_ctx *cx, TSNode type, TSNode value)
{
    if (lx_is(type, "implicit_type"))
        return new_type_of(cx, value);
    if (lx_is(type, "predefined_type") || lx_is(type, "array_type") ||
        lx_is(type, "nullable_type") || lx_is(type, "tuple_type"))
        return LP_STR("");
    return lp_lxr_type_name(cx, lx_text(cx, type));
}

static void cs_local(lx_ctx *cx, const lxr_match *m, int32_t owner)
{
    TSNode n = m->node;
    if (lx_is(n, "parameter_list")) {
        uint32_t cnt = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < cnt; i++) {
            TSNode p = ts_node_named_child(n, i);
            if (lx_is(p, "parameter"))
                lp_lxr_binding(cx, owner, lx_text(cx, lp_lxr_field(p, "name")),
                          cs_type(cx, lp_lxr_field(p, "type"), (TSNode){0}), 0);
        }
        return;
    }
    if (lx_is(n, "variable_declaration")) {
        TSNode type = lp_lxr_field(n, "type");
        uint32_t cnt = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < cnt; i++) {
            TSNode d = ts_node_named_child(n, i);
            if (!lx_is(d, "variable_declarator"))
                continue;
            TSNode value = {0};
            uint32_t k = ts_node_named_child_count(d);
            for (uint32_t j = 0; j < k; j++) {
                TSNode c = ts_node_named_child(d, j);
                if (!ts_node_eq(c, lp_lxr_field(d, "name")))
                    value = c;
            }
            lp_lxr_binding(cx, owner, lx_text(cx, lp_lxr_field(d, "name")), cs_type(cx, type, value), 0);
        }
        return;
    }
    if (lx_is(n, "foreach_statement")) {
        lp_lxr_locals_in(cx, owner, lp_lxr_field(n, "left"), LP_STR(""), 0);
        return;
    }
    if (lx_is(n, "catch_declaration")) {
        lp_lxr_binding(cx, owner, lx_text(cx, lp_lxr_field(n, "name")), LP_STR(""), 0);
        return;
    }
    if (lx_is(n, "lambda_expression")) {
        TSNode p = lp_lxr_field(n, "parameters");
        if (lx_is(p, "identifier"))
            lp_lxr_binding(cx, owner, lx_text(cx, p), LP_STR(""), 0);
        else if (!ts_node_is_null(p)) {
            uint32_t cnt = ts_node_named_child_count(p);
            for (uint32_t i = 0; i < cnt; i++) {
                TSNode q = ts_node_named_child(p, i);
                lp_lxr_binding(cx, owner, lx_text(cx, lx_is(q, "parameter") ? lp_lxr_field(q, "name") : q),
                          LP_STR(""), 0);
            }
        }
        return;
    }
    if (lx_is(n, "declaration_expression")) { /* out var x */
        lp_lxr_binding(cx, owner, lx_text(cx, lp_lxr_field(n, "name")), LP_STR(""), 0);
        return;
    }
}

static void cs_hook(lx_ctx *cx, const lxr_match *m, int32_t outer, int32_t inner)
{
    switch (m->kind) {
    case LXR_CALL:
        lp_lxr_call(cx, LP_REF_CALL, outer, m->node, m->callee, m->args);
        break;
    case LXR_NEW:
        new_of_type(cx, outer, m->node, lp_lxr_field(m->node, "type"),
                    lp_lxr_field(m->node, "arguments"));
        break;
    case LXR_IMPORT:
        cs_using(cx, m, outer);
        break;
    case LXR_BASE:
        bases_in(cx, outer, m->node, 0);
        break;
    case LXR_LOCAL:
        cs_local(cx, m, outer);
        break;
    default:
        break;
    }
}

/* TestParse / Parse_ReturnsNull -> Parse; tests in FooTests -> Foo. */
static lp_str cs_test_target(const lx_ctx *cx, const lx_sym *s)
{
    lp_str n = s->name;
    if (lp_str_starts_with(n, LP_STR("Test")) && n.len > 4)
        n = lp_str_sub(n, 4, n.len);
    size_t u = lp_str_find_char(n, '_', 0);
    if (u != SIZE_MAX && u > 0)
        return lp_str_sub(n, 0, u);
    if (n.len < s->name.len)
        return n;
    return junit_target(cx, s);
}

const lxr_lang lp_lxr_csharp = {
    .idents = cs_idents,
    .selfs = cs_selfs,
    .supers = cs_supers,
    .members = cs_members,
    .wrappers = cs_wrappers,
    .hook = cs_hook,
    .test_target = cs_test_target,
};

/* ------------------------------------------------------------------------------------------
 * Scala. */

static const char *const scala_idents[] = {"identifier", "type_identifier", NULL};
static const char *const scala_selfwords[] = {"this", NULL};
static const char *const scala_superwords[] = {"super", NULL};
static const lxr_member scala_members[] = {{"field_expression", "value", "field", 0},
                                           {NULL, NULL, NULL, 0}};
static const lxr_member scala_wrappers[] = {{"generic_function", "function", "", 0},
                                            {"parenthesized_expression", "", "", 0},
                                            {"generic_type", "type", "", 0},
                                            {NULL, NULL, NULL, 0}};

static void scala_import(lx_ctx *cx, const lxr_match *m, int32_t owner)
{
    TSNode st = m->node;
    lp_str segs[32];
    int n = 0;
    TSNode selectors = {0}, wildcard = {0};
    uint32_t cnt = ts_node_named_child_count(st);
    for (uint32_t i = 0; i < cnt; i++) {
        TSNode c = ts_node_named_child(st, i);
        if (lx_is(c, "identifier") && n < 32)
            segs[n++] = lx_text(cx, c);
        else if (lx_is(c, "namespace_selectors"))
            selectors = c;
        else if (lx_is(c, "namespace_wildcard"))
            wildcard = c;
    }
    if (!n)
        return;
    lp_buf b;
    lp_buf_init(&b, 4096);
    for (int i = 0; i < n; i++) {
        if (i)
            lp_buf_putc(&b, '.');
        lp_buf_put_str(&b, segs[i]);
    }
    lp_str full = lp_lx_dup(cx, lp_buf_str(&b));
    lp_buf_release(&b);
    if (!ts_node_is_null(wildcard)) {
        lxr_ref *r = lp_lxr_push(cx, LP_REF_IMPORT, owner, st);
        r->qual = full;
        r->name = LP_STR("*");
        r->flags |= LP_REFF_WILDCARD;
        return;
    }
    if (!ts_node_is_null(selectors)) {
        uint32_t k = ts_node_named_child_count(selectors);
        for (uint32_t j = 0; j < k; j++) {
            TSNode s = ts_node_named_child(selectors, j);
            lxr_ref *r = NULL;
            if (lx_is(s, "identifier")) {
                r = lp_lxr_push(cx, LP_REF_IMPORT, owner, s);
                r->name = r->alias = lx_text(cx, s);
            } else if (lx_is(s, "arrow_renamed_identifier")) {
                r = lp_lxr_push(cx, LP_REF_IMPORT, owner, s);
                r->name = lx_text(cx, lp_lxr_field(s, "name"));
                r->alias = lx_text(cx, lp_lxr_field(s, "alias"));
            } else if (lx_is(s, "namespace_wildcard")) {
                r = lp_lxr_push(cx, LP_REF_IMPORT, owner, s);
                r->name = LP_STR("*");
                r->flags |= LP_REFF_WILDCARD;
            }
            if (r)
                r->qual = full;
        }
        return;
    }
    lxr_ref *r = lp_lxr_push(cx, LP_REF_IMPORT, owner, st);
    r->name = segs[n - 1];
    r->alias = r->name;
    r->qual = n > 1 ? lp_str_sub(full, 0, full.len - r->name.len - 1) : LP_STR("");
}

static void scala_local(lx_ctx *cx, const lxr_match *m, int32_t owner)
{
    TSNode n = m->node;
    if (lx_is(n, "parameters")) {
        uint32_t cnt = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < cnt; i++) {
            TSNode p = ts_node_named_child(n, i);
            if (lx_is(p, "parameter"))
                lp_lxr_binding(cx, owner, lx_text(cx, lp_lxr_field(p, "name")),
                          lp_lxr_type_name(cx, lx_text(cx, lp_lxr_field(p, "type"))), 0);
        }
        return;
    }
    if (lx_is(n, "val_definition") || lx_is(n, "var_definition")) {
        TSNode pat = lp_lxr_field(n, "pattern"), type = lp_lxr_field(n, "type");
        if (!lx_is(pat, "identifier")) {
            lp_lxr_locals_in(cx, owner, pat, LP_STR(""), 0);
            return;
        }
        lp_str t = ts_node_is_null(type) ? new_type_of(cx, lp_lxr_field(n, "value"))
                                         : lp_lxr_type_name(cx, lx_text(cx, type));
        lp_lxr_binding(cx, owner, lx_text(cx, pat), t, 0);
        return;
    }
    lp_lxr_locals_in(cx, owner, m->name, LP_STR(""), 0); /* lambda, case, for bindings */
}

static void scala_hook(lx_ctx *cx, const lxr_match *m, int32_t outer, int32_t inner)
{
    switch (m->kind) {
    case LXR_CALL:
        lp_lxr_call(cx, LP_REF_CALL, outer, m->node, m->callee, m->args);
        break;
    case LXR_NEW: {
        TSNode type = {0}, args = lp_lxr_field(m->node, "arguments");
        uint32_t cnt = ts_node_named_child_count(m->node);
        for (uint32_t i = 0; i < cnt && ts_node_is_null(type); i++) {
            TSNode c = ts_node_named_child(m->node, i);
            if (is_type_node(c))
                type = c;
        }
        if (!ts_node_is_null(type))
            new_of_type(cx, outer, m->node, type, args);
        break;
    }
    case LXR_IMPORT:
        scala_import(cx, m, outer);
        break;
    case LXR_BASE: {
        uint32_t cnt = ts_node_named_child_count(m->node);
        for (uint32_t i = 0; i < cnt; i++) {
            TSNode c = ts_node_named_child(m->node, i);
            if (!ts_node_eq(c, lp_lxr_field(m->node, "arguments")) && is_type_node(c))
                base_of_type(cx, outer, c);
        }
        break;
    }
    case LXR_LOCAL:
        scala_local(cx, m, outer);
        break;
    default:
        break;
    }
}

/* FooSpec / FooTest / FooSuite -> Foo. */
static lp_str scala_test_target(const lx_ctx *cx, const lx_sym *s)
{
    static const char *const suffixes[] = {"Spec", "Tests", "Test", "Suite"};
    if (!lp_lx_kind_is_type(s->kind))
        return junit_target(cx, s);
    for (size_t i = 0; i < LP_ARRAY_LEN(suffixes); i++) {
        lp_str suf = lp_str_c(suffixes[i]);
        if (lp_str_ends_with(s->name, suf) && s->name.len > suf.len)
            return lp_str_sub(s->name, 0, s->name.len - suf.len);
    }
    return LP_STR("");
}

const lxr_lang lp_lxr_scala = {
    .idents = scala_idents,
    .selfwords = scala_selfwords,
    .superwords = scala_superwords,
    .members = scala_members,
    .wrappers = scala_wrappers,
    .hook = scala_hook,
    .test_target = scala_test_target,
};

/* ------------------------------------------------------------------------------------------
 * Rust. */

static const char *const rust_idents[] = {"identifier", "field_identifier", "type_identifier",
                                          "crate", "super", NULL};
static const char *const rust_selfs[] = {"self", NULL};
static const char *const rust_selfwords[] = {"Self", NULL};
static const lxr_member rust_members[] = {{"scoped_identifier", "path", "name", LP_REFF_PATH},
                                          {"field_expression", "value", "field", 0},
                                          {"scoped_type_identifier", "path", "name", LP_REFF_PATH},
                                          {NULL, NULL, NULL, 0}};
static const lxr_member rust_wrappers[] = {{"generic_function", "function", "", 0},
                                           {"generic_type", "type", "", 0},
                                           {"parenthesized_expression", "", "", 0},
                                           {NULL, NULL, NULL, 0}};

/* One use tree: prefix is the path so far ('.'-joined). */
static void rust_use(lx_ctx *cx, int32_t owner, TSNode t, lp_str prefix, int depth)
{
    if (ts_node_is_null(t) || depth > 16)
        return;
    const char *type = ts_node_type(t);
    if (!strcmp(type, "use_list")) {
        uint32_t cnt = ts_node_named_child_count(t);
        for (uint32_t i = 0; i < cnt; i++)
            rust_use(cx, owner, ts_node_named_child(t, i), prefix, depth + 1);
        return;
    }
    if (!strcmp(type, "scoped_use_list")) {
        lp_str p = lp_lxr_dotted(cx, lx_text(cx, lp_lxr_field(t, "path")));
        if (prefix.len) {
            lp_buf b;
            lp_buf_init(&b, 4096);
            lp_buf_printf(&b, LP_STR_FMT "." LP_STR_FMT, LP_STR_ARG(prefix), LP_STR_ARG(p));
            p = lp_lx_dup(cx, lp_buf_str(&b));
            lp_buf_release(&b);
        }
        rust_use(cx, owner, lp_lxr_field(t, "list"), p, depth + 1);
        return;
    }
    lp_str alias = LP_STR(""), path;
    uint32_t flags = 0;
    if (!strcmp(type, "use_as_clause")) {
        alias = lx_text(cx, lp_lxr_field(t, "alias"));
        path = lp_lxr_dotted(cx, lx_text(cx, lp_lxr_field(t, "path")));
    } else if (!strcmp(type, "use_wildcard")) {
        path = ts_node_named_child_count(t) ? lp_lxr_dotted(cx, lx_text(cx, ts_node_named_child(t, 0)))
                                            : LP_STR("");
        flags = LP_REFF_WILDCARD;
    } else {
        path = lp_lxr_dotted(cx, lx_text(cx, t));
    }
    lp_buf b;
    lp_buf_init(&b, 4096);
    if (prefix.len && path.len)
        lp_buf_printf(&b, LP_STR_FMT "." LP_STR_FMT, LP_STR_ARG(prefix), LP_STR_ARG(path));
    else
        lp_buf_put_str(&b, prefix.len ? prefix : path);
    lp_str full = lp_lx_dup(cx, lp_buf_str(&b));
    lp_buf_release(&b);
    lxr_ref *r = lp_lxr_push(cx, LP_REF_IMPORT, owner, t);
    r->flags |= flags;
    if (flags & LP_REFF_WILDCARD) {
        r->qual = full;
        r->name = LP_STR("*");
        return;
    }
    r->name = lp_lxr_last_segment(full);
    r->qual = r->name.len < full.len ? lp_str_sub(full, 0, full.len - r->name.len - 1) : LP_STR("");
    if (lp_str_eq_c(r->name, "self")) { /* use a::b::{self} */
        r->name = lp_lxr_last_segment(r->qual);
        r->qual = r->name.len < r->qual.len ? lp_str_sub(r->qual, 0, r->qual.len - r->name.len - 1)
                                            : LP_STR("");
    }
    r->alias = alias.len ? alias : r->name;
}

static void rust_local(lx_ctx *cx, const lxr_match *m, int32_t owner)
{
    TSNode n = m->node;
    if (lx_is(n, "parameters")) {
        uint32_t cnt = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < cnt; i++) {
            TSNode p = ts_node_named_child(n, i);
            if (!lx_is(p, "parameter"))
                continue;
            TSNode pat = lp_lxr_field(p, "pattern");
            if (lx_is(pat, "identifier"))
                lp_lxr_binding(cx, owner, lx_text(cx, pat),
                          lp_lxr_type_name(cx, lx_text(cx, lp_lxr_field(p, "type"))), 0);
            else
                lp_lxr_locals_in(cx, owner, pat, LP_STR(""), 0);
        }
        return;
    }
    if (lx_is(n, "let_declaration")) {
        TSNode pat = lp_lxr_field(n, "pattern"), type = lp_lxr_field(n, "type"),
               value = lp_lxr_field(n, "value");
        if (!lx_is(pat, "identifier")) {
            lp_lxr_locals_in(cx, owner, pat, LP_STR(""), 0);
            return;
        }
        lp_str t = LP_STR("");
        if (!ts_node_is_null(type))
            t = lp_lxr_type_name(cx, lx_text(cx, type));
        else if (lx_is(value, "struct_expression"))
            t = lp_lxr_type_name(cx, lx_text(cx, lp_lxr_field(value, "name")));
        lp_lxr_binding(cx, owner, lx_text(cx, pat), t, 0);
        return;
    }
    lp_lxr_locals_in(cx, owner, ts_node_is_null(m->name) ? n : m->name, LP_STR(""), 0);
}

static void rust_hook(lx_ctx *cx, const lxr_match *m, int32_t outer, int32_t inner)
{
    switch (m->kind) {
    case LXR_CALL: {
        if (lx_is(m->node, "macro_invocation")) {
            lxr_ref *r = lp_lxr_call(cx, LP_REF_CALL, outer, m->node, lp_lxr_field(m->node, "macro"),
                                  (TSNode){0});
            r->flags |= LP_REFF_MACRO;
            break;
        }
        lxr_ref *r = lp_lxr_call(cx, LP_REF_CALL, outer, m->node, m->callee, m->args);
        /* self::f() and super::f() are module paths, not receivers */
        if ((r->flags & LP_REFF_PATH) && lp_str_eq_c(r->root, "self"))
            r->flags &= ~LP_REFF_SELF;
        break;
    }
    case LXR_IMPORT:
        if (lx_is(m->node, "mod_item")) {
            if (!ts_node_is_null(lp_lxr_field(m->node, "body")))
                break;
            lxr_ref *r = lp_lxr_push(cx, LP_REF_IMPORT, outer, m->node);
            r->name = r->alias = lx_text(cx, lp_lxr_field(m->node, "name"));
            r->flags |= LP_REFF_MODDECL;
            break;
        }
        rust_use(cx, outer, lp_lxr_field(m->node, "argument"), LP_STR(""), 0);
        break;
    case LXR_LOCAL:
        rust_local(cx, m, inner);
        break;
    default:
        break;
    }
}

/* test_parse -> parse (#[test] functions). */
static lp_str rust_test_target(const lx_ctx *cx, const lx_sym *s)
{
    if (lp_str_starts_with(s->name, LP_STR("test_")) && s->name.len > 5)
        return lp_str_sub(s->name, 5, s->name.len);
    return LP_STR("");
}

const lxr_lang lp_lxr_rust = {
    .idents = rust_idents,
    .selfs = rust_selfs,
    .selfwords = rust_selfwords,
    .members = rust_members,
    .wrappers = rust_wrappers,
    .hook = rust_hook,
    .test_target = rust_test_target,
};

/* ------------------------------------------------------------------------------------------
 * C and C++. */

static const char *const c_idents[] = {"identifier", "field_identifier", NULL};
static const lxr_member c_members[] = {{"field_expression", "argument", "field", 0},
                                       {NULL, NULL, NULL, 0}};
static const lxr_member c_wrappers[] = {{"parenthesized_expression", "", "", 0},
                                        {NULL, NULL, NULL, 0}};

static void c_include(lx_ctx *cx, const lxr_match *m, int32_t owner)
{
    TSNode path = lp_lxr_field(m->node, "path");
    if (ts_node_is_null(path))
        return;
    lxr_ref *r = lp_lxr_push(cx, LP_REF_IMPORT, owner, m->node);
    r->qual = lp_lxr_unquote(lx_text(cx, path));
    if (lx_is(path, "system_lib_string"))
        r->flags |= LP_REFF_SYSTEM;
    else if (!lx_is(path, "string_literal"))
        r->qual = LP_STR(""); /* #include MACRO */
}

static lp_str c_decl_type(lx_ctx *cx, TSNode type)
{
    if (lx_is(type, "primitive_type") || lx_is(type, "sized_type_specifier") ||
        lx_is(type, "placeholder_type_specifier"))
        return LP_STR("");
    return lp_lxr_type_name(cx, lx_text(cx, type));
}

/* Parameters and local declarations (C and C++); C++ `Foo f(1);` is also a constructor call. */
static void c_local(lx_ctx *cx, const lxr_match *m, int32_t owner, bool cpp)
{
    TSNode n = m->node;
    if (lx_is(n, "parameter_list")) {
        uint32_t cnt = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < cnt; i++) {
            TSNode p = ts_node_named_child(n, i);
            if (!lx_is(p, "parameter_declaration") && !lx_is(p, "optional_parameter_declaration"))
                continue;
            bool fn = false;
            TSNode name = lp_lx_c_declarator_name(lp_lxr_field(p, "declarator"), &fn);
            if (!ts_node_is_null(name))
                lp_lxr_binding(cx, owner, lx_text(cx, name), c_decl_type(cx, lp_lxr_field(p, "type")), 0);
        }
        return;
    }
    if (lx_is(n, "declaration")) {
        if (lp_lxr_enclosing_function(cx, owner) < 0)
            return;
        TSNode type = lp_lxr_field(n, "type");
        lp_str t = c_decl_type(cx, type);
        uint32_t cnt = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < cnt; i++) {
            TSNode d = ts_node_named_child(n, i);
            if (ts_node_eq(d, type))
                continue;
            bool fn = false;
            TSNode name = lp_lx_c_declarator_name(d, &fn);
            if (ts_node_is_null(name) || fn)
                continue;
            lp_str dt = t;
            if (lx_is(d, "init_declarator")) {
                TSNode v = lp_lxr_field(d, "value");
                if (cpp && (lx_is(v, "argument_list") || lx_is(v, "initializer_list")) && t.len)
                    new_of_type(cx, owner, d, type, v);
                if (!dt.len && cpp)
                    dt = new_type_of(cx, v);
            }
            lp_lxr_binding(cx, owner, lx_text(cx, name), dt, 0);
        }
        return;
    }
    lp_lxr_locals_in(cx, owner, ts_node_is_null(m->name) ? n : m->name, LP_STR(""), 0);
}

static void c_hook(lx_ctx *cx, const lxr_match *m, int32_t outer, int32_t inner)
{
    switch (m->kind) {
    case LXR_CALL:
        lp_lxr_call(cx, LP_REF_CALL, outer, m->node, m->callee, m->args);
        break;
    case LXR_IMPORT:
        c_include(cx, m, outer);
        break;
    case LXR_LOCAL:
        c_local(cx, m, inner, false);
        break;
    default:
        break;
    }
}

const lxr_lang lp_lxr_c = {
    .idents = c_idents,
    .members = c_members,
    .wrappers = c_wrappers,
    .hook = c_hook,
};

static const char *const cpp_idents[] = {"identifier", "field_identifier", "namespace_identifier",
                                         "type_identifier", NULL};
static const char *const cpp_selfs[] = {"this", NULL};
static const lxr_member cpp_members[] = {{"field_expression", "argument", "field", 0},
                                         {"qualified_identifier", "scope", "name", LP_REFF_PATH},
                                         {NULL, NULL, NULL, 0}};
static const lxr_member cpp_wrappers[] = {{"template_function", "name", "", 0},
                                          {"template_type", "name", "", 0},
                                          {"template_method", "name", "", 0},
                                          {"parenthesized_expression", "", "", 0},
                                          {NULL, NULL, NULL, 0}};

static void cpp_using(lx_ctx *cx, const lxr_match *m, int32_t owner)
{
    TSNode st = m->node;
    if (ts_node_named_child_count(st) == 0)
        return;
    TSNode target = ts_node_named_child(st, ts_node_named_child_count(st) - 1);
    lp_str full = lp_lxr_dotted(cx, lx_text(cx, target));
    lxr_ref *r = lp_lxr_push(cx, LP_REF_IMPORT, owner, st);
    if (lp_lx_has_keyword(cx, st, "namespace")) {
        r->qual = full;
        r->name = LP_STR("*");
        r->flags |= LP_REFF_WILDCARD | LP_REFF_NAMESPACE;
        return;
    }
    r->name = lp_lxr_last_segment(full);
    r->qual = r->name.len < full.len ? lp_str_sub(full, 0, full.len - r->name.len - 1) : LP_STR("");
    r->alias = r->name;
}

static void cpp_hook(lx_ctx *cx, const lxr_match *m, int32_t outer, int32_t inner)
{
    switch (m->kind) {
    case LXR_CALL:
        lp_lxr_call(cx, LP_REF_CALL, outer, m->node, m->callee, m->args);
        break;
    case LXR_NEW:
        new_of_type(cx, outer, m->node, lp_lxr_field(m->node, "type"),
                    lp_lxr_field(m->node, "arguments"));
        break;
    case LXR_IMPORT:
        if (lx_is(m->node, "preproc_include"))
            c_include(cx, m, outer);
        else
            cpp_using(cx, m, outer);
        break;
    case LXR_BASE:
        bases_in(cx, outer, m->node, 0);
        break;
    case LXR_LOCAL:
        c_local(cx, m, inner, true);
        break;
    default:
        break;
    }
}

/* gtest TEST(FooTest, Bar) is named "FooTest.Bar": the suite names the class under test. */
static lp_str gtest_target(const lx_ctx *cx, const lx_sym *s)
{
    lp_str n = s->name;
    size_t dot = lp_str_find_char(n, '.', 0);
    lp_str suite = dot == SIZE_MAX ? n : lp_str_sub(n, 0, dot);
    if (lp_str_ends_with(suite, LP_STR("Test")) && suite.len > 4)
        return lp_str_sub(suite, 0, suite.len - 4);
    if (lp_str_ends_with(suite, LP_STR("Tests")) && suite.len > 5)
        return lp_str_sub(suite, 0, suite.len - 5);
    return LP_STR("");
}

const lxr_lang lp_lxr_cpp = {
    .idents = cpp_idents,
    .selfs = cpp_selfs,
    .members = cpp_members,
    .wrappers = cpp_wrappers,
    .hook = cpp_hook,
    .test_target = gtest_target,
};
