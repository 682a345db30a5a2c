/*
 * caps.c: the capability table (which edge kinds each language's rules prove, and what
 * they cannot see), and the names of edge kinds, rules and reasons. Static data.
 */
#include "graph/graph_int.h"

#include <pthread.h>

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

/* The table, from each language's operations (lp_lang_ops: graph_covers, graph_blind,
 * graph_exports), built once: calls, imports, tests and contains for every language with a
 * code graph, exports where its rules prove them; text and documents have none. */
static lp_graph_caps caps[LP_LANG_COUNT];
static pthread_once_t caps_once = PTHREAD_ONCE_INIT;

static void caps_build(void)
{
    for (int l = 0; l < LP_LANG_COUNT; l++) {
        const lp_lang_ops *o = lp_lang_ops_for((lp_lang)l);
        lp_graph_caps *c = &caps[l];
        bool graph = lp_lang_has_graph((lp_lang)l);
        c->lang = graph ? (lp_lang)l : LP_LANG_TEXT;
        c->edges[LP_EDGE_CALLS] = c->edges[LP_EDGE_IMPORTS] = c->edges[LP_EDGE_TESTS] =
            c->edges[LP_EDGE_CONTAINS] = graph;
        c->edges[LP_EDGE_EXPORTS] = graph && o->graph_exports;
        const lp_lang_ops *from = graph ? o : lp_lang_ops_for(LP_LANG_TEXT);
        c->rules = from->graph_covers;
        c->blind = from->graph_blind;
    }
}

const lp_graph_caps *lp_graph_caps_for(lp_lang l)
{
    pthread_once(&caps_once, caps_build);
    return &caps[(unsigned)l < LP_LANG_COUNT ? l : LP_LANG_TEXT];
}

json_t *lp_graph_caps_json(void)
{
    json_t *arr = json_array();
    for (int l = 0; l < LP_LANG_COUNT; l++) {
        if (!lp_lang_has_graph((lp_lang)l))
            continue;
        const lp_graph_caps *c = lp_graph_caps_for((lp_lang)l);
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
