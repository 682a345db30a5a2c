/*
 * lang_go.c: Go's hook.
 *
 * - the package clause is a package symbol that prefixes every qualified name of the file
 *   (http.Server.ListenAndServe); it owns no chunk (its line is module text);
 * - methods are qualified by their receiver type (pointer and type arguments dropped) and
 *   their parent is that type when this file declares it;
 * - a spec alone in its declaration (`type X struct{...}`, `const X = 1`) spans the whole
 *   declaration, so `type`/`const` and the doc comment above belong to it; specs inside
 *   `( ... )` groups span themselves;
 * - consts and vars are symbols at package level only; `X, Y int` declares two fields;
 * - visibility is capitalization (exported = public, else private); Test, Benchmark,
 *   Example and Fuzz functions are tests.
 */
#include "lang/lang_int.h"
#include "lang/refs_int.h"

const TSLanguage *tree_sitter_go(void);

static lp_visibility go_vis(lp_str name)
{
    if (!name.len)
        return LP_VIS_UNKNOWN;
    unsigned char c = (unsigned char)name.ptr[0];
    if (c >= 'A' && c <= 'Z')
        return LP_VIS_PUBLIC;
    if (c >= 0x80) /* non-ASCII: Go exports only Unicode upper case; be conservative */
        return LP_VIS_UNKNOWN;
    return LP_VIS_PRIVATE;
}

static bool is_test_name(lp_str n)
{
    static const char *const prefixes[] = {"Test", "Benchmark", "Example", "Fuzz"};
    for (size_t i = 0; i < LP_ARRAY_LEN(prefixes); i++) {
        lp_str p = lp_str_c(prefixes[i]);
        if (lp_str_starts_with(n, p)) {
            if (n.len == p.len)
                return true;
            unsigned char c = (unsigned char)n.ptr[p.len];
            return !(c >= 'a' && c <= 'z');
        }
    }
    return false;
}

/* A spec alone in an unparenthesized declaration takes the declaration as its outer; the
 * first spec of a `( ... )` group takes the opener (`const (`) as leading text. */
static void widen_spec(lx_ctx *cx, TSNode spec, TSNode decl, lx_sym *s)
{
    if (ts_node_is_null(decl))
        return;
    if (!lp_lx_has_keyword(cx, decl, "(")) {
        s->outer = decl;
        return;
    }
    TSNode first = ts_node_named_child(decl, 0);
    uint32_t k = 0;
    while (!ts_node_is_null(first) && strcmp(ts_node_type(first), ts_node_type(spec)) != 0)
        first = ts_node_named_child(decl, ++k); /* skip comments before the first spec */
    if (ts_node_eq(first, spec) &&
        (s->kind != LP_SYM_CONSTANT && s->kind != LP_SYM_VARIABLE ? true
         : ts_node_start_byte(ts_node_child_by_field_name(spec, "name", 4)) ==
               ts_node_start_byte(s->node)))
        s->lead_start = ts_node_start_byte(decl);
}

static bool refine(lx_ctx *cx, const lx_def *d, lx_sym *s, lx_scope *scope)
{
    (void)scope;
    if (!s)
        return true;
    const char *type = ts_node_type(cx->leaf ? cx->anc[cx->depth] : d->node);
    switch (s->kind) {
    case LP_SYM_PACKAGE:
        s->prefix = true;
        s->no_chunk = true;
        return true;
    case LP_SYM_METHOD:
        if (!strcmp(type, "method_elem")) {
            s->flags |= LP_SYMF_DECLARATION;
        } else {
            s->qualifier = lp_lx_clean_type_name(cx, lx_text(cx, d->qualifier));
            if (!s->has_body)
                s->flags |= LP_SYMF_DECLARATION;
        }
        break;
    case LP_SYM_FUNCTION:
        if (!s->has_body)
            s->flags |= LP_SYMF_DECLARATION; /* implemented in assembly */
        if (is_test_name(s->name))
            s->flags |= LP_SYMF_TEST;
        break;
    case LP_SYM_STRUCT:
    case LP_SYM_INTERFACE:
    case LP_SYM_TYPE_ALIAS:
        widen_spec(cx, d->node, lp_lx_ancestor(cx, 1), s);
        if (s->kind == LP_SYM_INTERFACE && s->has_body) {
            /* the body starts at '{' so the signature keeps the `interface` keyword */
            const char *b = memchr(cx->src + s->body_start, '{', s->body_end - s->body_start);
            if (b)
                s->body_start = (uint32_t)(b - cx->src);
        }
        break;
    case LP_SYM_FIELD:
        s->outer = cx->anc[cx->depth]; /* the field_declaration */
        break;
    case LP_SYM_CONSTANT:
    case LP_SYM_VARIABLE: {
        TSNode spec = cx->anc[cx->depth];
        TSNode decl = lp_lx_ancestor(cx, 1);
        if (!lx_is(lp_lx_ancestor(cx, 2), "source_file"))
            return false;
        s->outer = spec;
        widen_spec(cx, spec, decl, s);
        /* the signature stops before a value spanning lines */
        TSNode value = ts_node_child_by_field_name(spec, "value", 5);
        if (!ts_node_is_null(value)) {
            lp_str v = lx_text(cx, value);
            if (memchr(v.ptr, '\n', v.len)) {
                uint32_t e = ts_node_start_byte(value);
                while (e > ts_node_start_byte(spec) && (cx->src[e - 1] == ' ' || cx->src[e - 1] == '\t'))
                    e--;
                s->sig_end = e;
            }
        }
        break;
    }
    default:
        break;
    }
    s->vis = go_vis(s->name);
    return true;
}

static const char *const comments[] = {"comment", NULL};

const lp_lang_spec lp_spec_go = {
    .lang = LP_LANG_GO,
    .query_name = "go",
    .ts_language = tree_sitter_go,
    .comment_types = comments,
    .refine = refine,
    .refs = &lp_lxr_go,
};

/* ------------------------------------------------------------------------------------------
 * Operations (lang.h). */

static bool test_stem(lp_str stem) { return lp_str_ends_with(stem, LP_STR("_test")); }

/* An import binds the package name: the last segment of its path. */
static lp_str import_binds(const char *name, const char *qual)
{
    (void)name;
    const char *slash = strrchr(qual, '/');
    return lp_str_c(slash ? slash + 1 : qual);
}

static const char *const aliases[] = {"golang", NULL};
static const char *const extensions[] = {".go", NULL};

const lp_lang_ops lp_ops_go = {
    .lang = LP_LANG_GO,
    .name = "go",
    .aliases = aliases,
    .extensions = extensions,
    .spec = &lp_spec_go,
    .family = LP_LANG_GO,
    .modules = LP_MODSYS_GO,
    .graph = LP_LANGG_CALL_CONVERTS | LP_LANGG_PACKAGE_BY_NAME,
    .test_stem = test_stem,
    .import_binds = import_binds,
    .graph_covers =
        "same package (all files of the directory), package-qualified calls through imports "
        "(go.mod paths), methods on the receiver and on typed locals (x := T{}, &T{}, new(T), "
        "typed parameters), embedded fields",
    .graph_blind =
        "interface method calls (dynamic dispatch), function values, results of calls as "
        "receivers, build-tag variants (reported ambiguous)",
};
