/*
 * caps.c: the capability table (which edge kinds each language's rules prove, and what
 * they cannot see), and the names of edge kinds, rules and reasons. Static data.
 */
#include "graph/graph_int.h"

const char *lp_edge_kind_name(lp_edge_kind k)
{
    static const char *const names[LP_EDGE_KIND_COUNT] = {"calls", "imports", "exports", "tests",
                                                          "contains"};
    return (unsigned)k < LP_EDGE_KIND_COUNT ? names[k] : "unknown";
}

lp_edge_kind lp_edge_kind_from_name(lp_str s)
{
    for (int k = 0; k < LP_EDGE_KIND_COUNT; k++) {
        const char *n = lp_edge_kind_name((lp_edge_kind)k);
        if (s.len == strlen(n)) {
            bool eq = true;
            for (size_t i = 0; i < s.len && eq; i++)
                eq = (s.ptr[i] | 0x20) == n[i];
            if (eq)
                return (lp_edge_kind)k;
        }
    }
    return LP_EDGE_KIND_COUNT;
}

const char *lp_gr_rule_name(gr_rule r)
{
    static const char *const names[GR_RULE_COUNT] = {
        [GR_CANDIDATE] = "candidate",           [GR_LOCAL_SCOPE] = "local_scope",
        [GR_SAME_FILE] = "same_file",           [GR_SAME_PACKAGE] = "same_package",
        [GR_IMPORT] = "import",                 [GR_WILDCARD_IMPORT] = "wildcard_import",
        [GR_MODULE_MEMBER] = "module_member",   [GR_SELF_METHOD] = "self_method",
        [GR_BASE_METHOD] = "base_method",       [GR_SUPER_METHOD] = "super_method",
        [GR_IMPLICIT_THIS] = "implicit_this",   [GR_TYPED_RECEIVER] = "typed_receiver",
        [GR_STATIC_MEMBER] = "static_member",   [GR_CONSTRUCTOR] = "constructor",
        [GR_INCLUDE_DECL] = "include_declaration", [GR_QUALIFIED_PATH] = "qualified_path",
        [GR_IMPORT_FILE] = "import_file",       [GR_IMPORT_SYMBOL] = "import_symbol",
        [GR_EXPORT_DECL] = "export_declaration", [GR_EXPORT_LIST] = "export_list",
        [GR_REEXPORT] = "reexport",             [GR_TEST_CALL] = "test_call",
        [GR_TEST_NAME] = "test_name",           [GR_DECLARATION_ONLY] = "declaration_only",
    };
    return (unsigned)r < GR_RULE_COUNT && names[r] ? names[r] : "unknown";
}

static const struct {
    const char *name, *text;
} reasons[GR_REASON_COUNT] = {
    [GR_R_NONE] = {"none", ""},
    [GR_R_SHADOWED] = {"shadowed", "the name is a parameter or local variable of the caller"},
    [GR_R_RECEIVER_UNTYPED] = {"receiver_untyped",
                               "the receiver is a local whose type the function does not show"},
    [GR_R_RECEIVER_EXPR] = {"receiver_expression",
                            "the receiver is an expression (call result, attribute, index)"},
    [GR_R_RECEIVER_UNKNOWN] = {"receiver_unknown",
                               "the receiver's name means nothing the index can see"},
    [GR_R_NO_DEFINITION] = {"no_definition",
                            "no symbol with that name is indexed (built-in or external)"},
    [GR_R_NOT_VISIBLE] = {"not_visible",
                          "symbols with that name exist but none is in scope or imported here"},
    [GR_R_MODULE_NOT_FOUND] = {"module_not_found",
                               "the module is not in the index (standard library or a package)"},
    [GR_R_MEMBER_NOT_FOUND] = {"member_not_found",
                               "the module or type was found but not that member"},
    [GR_R_NOT_CALLABLE] = {"not_callable", "the name is a variable, field, constant or module"},
    [GR_R_CONVERSION] = {"type_conversion", "T(x) on a type is a conversion, not a call"},
    [GR_R_TYPE_NOT_FOUND] = {"type_not_found",
                             "the receiver's or constructed type could not be resolved to one type"},
    [GR_R_DYNAMIC] = {"dynamic_dispatch", "dispatch the rules do not follow"},
    [GR_R_UNSUPPORTED] = {"unsupported", "a construct this language's rules do not cover"},
    [GR_R_EXTERNAL] = {"external", "declared outside the index"},
};

const char *lp_gr_reason_name(gr_reason r)
{
    return (unsigned)r < GR_REASON_COUNT && reasons[r].name ? reasons[r].name : "unknown";
}

const char *lp_gr_reason_text(gr_reason r)
{
    return (unsigned)r < GR_REASON_COUNT && reasons[r].text ? reasons[r].text : "";
}

/* calls, imports, exports, tests, contains */
static const lp_graph_caps caps[] = {
    {LP_LANG_PYTHON,
     {true, true, false, true, true},
     "enclosing scopes, same module, import / from-import (relative too), self/cls methods and "
     "bases named in the class, super(), module.attr calls, Foo() constructors, x = Foo(); "
     "x.m() and annotated parameters",
     "untyped parameters and attributes (self.x.m()), dynamic dispatch through overrides, "
     "getattr, decorators that replace functions, imports of packages outside the index"},
    {LP_LANG_JAVASCRIPT,
     {true, true, true, true, true},
     "enclosing scopes, same module, ES imports and require() of relative paths, re-exports, "
     "this/super methods, new Foo(), x = new Foo(); x.m()",
     "untyped receivers, prototype tricks, bare package imports (node_modules), dynamic "
     "property access, callbacks passed as values"},
    {LP_LANG_TYPESCRIPT,
     {true, true, true, true, true},
     "as JavaScript, plus parameter and variable type annotations type their receivers",
     "untyped receivers, interface dispatch to implementations, path aliases (tsconfig paths), "
     "bare package imports"},
    {LP_LANG_TSX,
     {true, true, true, true, true},
     "as TypeScript",
     "as TypeScript; JSX elements are not calls"},
    {LP_LANG_GO,
     {true, true, false, true, true},
     "same package (all files of the directory), package-qualified calls through imports "
     "(go.mod paths), methods on the receiver and on typed locals (x := T{}, &T{}, new(T), "
     "typed parameters), embedded fields",
     "interface method calls (dynamic dispatch), function values, results of calls as "
     "receivers, build-tag variants (reported ambiguous)"},
    {LP_LANG_RUST,
     {true, true, false, true, true},
     "use paths and the mod tree (crate/self/super), same module, Self:: and self. methods in "
     "impl blocks of the crate, annotated lets and struct literals, macro_rules! of the same "
     "file",
     "trait method dispatch, method calls on call results (x.iter().map()), generic bounds, "
     "macros from other files, other crates outside the index"},
    {LP_LANG_JAVA,
     {true, true, false, true, true},
     "implicit this (class and outer classes, bases named in extends/implements), same package, "
     "single-type, static and on-demand imports, fully qualified names, declared local and "
     "parameter types, new Foo()",
     "overload choice between same-name methods (reported ambiguous), interface dispatch to "
     "implementations, lambdas and method references, reflection"},
    {LP_LANG_C,
     {true, true, false, true, true},
     "same file, declarations visible through #include (transitively) with their unique "
     "external definition, function-like macros",
     "function pointers (p->fn()), calls through macros that expand to other names, "
     "conditional compilation variants (reported ambiguous), headers outside the index"},
    {LP_LANG_CPP,
     {true, true, false, true, true},
     "as C, plus namespaces (ns::f, using), implicit this and base classes, Foo::bar "
     "definitions, typed locals and parameters (Foo x; Foo *p = new Foo), new Foo / Foo x(1)",
     "virtual dispatch to overrides, overload choice (reported ambiguous), templates and ADL, "
     "auto receivers from calls"},
    {LP_LANG_CSHARP,
     {true, true, false, true, true},
     "implicit this and bases, enclosing namespaces, using directives (aliases, static), "
     "declared and var = new T() local types, new T()",
     "overload choice (reported ambiguous), interface dispatch, extension methods, partial "
     "classes split across files only by qualified name, LINQ and delegates"},
    {LP_LANG_SCALA,
     {true, true, false, true, true},
     "implicit this and bases in extends/with, same package, imports with selectors and "
     "wildcards, Foo(x) apply/case-class constructors, typed vals and parameters, new Foo",
     "implicits and extension methods, infix and operator calls, overloads (reported "
     "ambiguous), dispatch to overrides"},
};

static const lp_graph_caps none = {LP_LANG_TEXT, {false, false, false, false, false},
                                   "no relationships: this file type has no code graph",
                                   "everything: text and documents have no symbols to relate"};

const lp_graph_caps *lp_graph_caps_for(lp_lang l)
{
    for (size_t i = 0; i < LP_ARRAY_LEN(caps); i++)
        if (caps[i].lang == l)
            return &caps[i];
    return &none;
}

json_t *lp_graph_caps_json(void)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < LP_ARRAY_LEN(caps); i++) {
        const lp_graph_caps *c = &caps[i];
        json_t *o = json_object();
        json_object_set_new(o, "language", lp_json_textz(lp_lang_name(c->lang)));
        for (int k = 0; k < LP_EDGE_KIND_COUNT; k++)
            json_object_set_new(o, lp_edge_kind_name((lp_edge_kind)k), json_boolean(c->edges[k]));
        json_object_set_new(o, "rules", lp_json_textz(c->rules));
        json_object_set_new(o, "blind", lp_json_textz(c->blind));
        json_array_append_new(arr, o);
    }
    return arr;
}

lp_status lp_graph_totals_get(lp_store *st, lp_graph_totals *out, lp_error *err)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *s;
    lp_status rc = lp_store_prepare(st,
                                    "SELECT kind, count(*) FROM edges WHERE rule <> 0 GROUP BY kind",
                                    &s, err);
    if (rc)
        return rc;
    while (sqlite3_step(s) == SQLITE_ROW) {
        int k = sqlite3_column_int(s, 0);
        if (k >= 0 && k < LP_EDGE_KIND_COUNT)
            out->edges[k] = (uint64_t)sqlite3_column_int64(s, 1);
    }
    sqlite3_reset(s);
    if ((rc = lp_store_prepare(st,
                               "SELECT count(*) FROM (SELECT DISTINCT src_fid, ref_ord FROM edges"
                               " WHERE rule = 0)",
                               &s, err)))
        return rc;
    if (sqlite3_step(s) == SQLITE_ROW)
        out->ambiguous_refs = (uint64_t)sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    if ((rc = lp_store_prepare(st, "SELECT count(*) FROM notes WHERE kind = 0", &s, err)))
        return rc;
    if (sqlite3_step(s) == SQLITE_ROW)
        out->unresolved_calls = (uint64_t)sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    if ((rc = lp_store_prepare(st,
                               "SELECT count(*) FROM files f JOIN refs r ON r.bid = f.bid", &s,
                               err)))
        return rc;
    if (sqlite3_step(s) == SQLITE_ROW)
        out->refs = (uint64_t)sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    return LP_OK;
}
