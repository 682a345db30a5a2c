/*
 * lang_cpp.c: C++'s hook (C constructs come from lp_lx_c_refine in lang_c.c).
 *
 * - namespaces qualify their contents ('.'-joined: store.detail.helper); anonymous
 *   namespaces are not symbols, their members are private;
 * - `Foo::bar` defined out of class is a method qualified by Foo (templates stripped:
 *   Cache<T>::get -> Cache.get) whose parent is Foo when this file declares it; a name
 *   equal to its class is a constructor, ~Foo a method;
 * - member functions defined or declared in a class are methods (declarations without
 *   body carry the declaration flag; `= 0` makes them abstract); `static`, `virtual`;
 * - visibility of members follows access sections (class: private until a specifier,
 *   struct/union: public); namespace-level functions and globals are public unless static
 *   or in an anonymous namespace; out-of-class definitions say nothing (unknown);
 * - template<...> is part of the definition's span and signature;
 * - gtest's TEST(Suite, Name) / TEST_F / TEST_P are test functions named Suite.Name;
 * - `class RE2::Set {...}` is the class Set qualified by RE2; conversion operators are
 *   named `operator int`; macros before a name (`FMT_CONSTEXPR T name(...)`,
 *   `ATTRIBUTE_NORETURN ~Foo()`, `end() const _GLIBCXX_NOEXCEPT`) do not become names
 *   (the recovery of lang_c.c applies to C++ too).
 */
#include "lang/lang_int.h"
#include "lang/refs_int.h"

#include <ctype.h>

const TSLanguage *tree_sitter_cpp(void);

/* Split "a::B<T>::c" into qualifier "a.B" and name "c" (at the last "::" outside <...>). */
static void split_qualified(lx_ctx *cx, lp_str text, lp_str *qual, lp_str *name)
{
    int depth = 0;
    size_t cut = SIZE_MAX;
    for (size_t i = 0; i + 1 < text.len; i++) {
        char c = text.ptr[i];
        if (c == '<')
            depth++;
        else if (c == '>' && depth > 0)
            depth--;
        else if (c == ':' && text.ptr[i + 1] == ':' && depth == 0) {
            /* "operator::" never happens; "operator<" does: stop at operator */
            if (i >= 8 && memcmp(text.ptr + i - 8, "operator", 8) == 0)
                break;
            cut = i;
            i++;
        }
        if (i + 8 <= text.len && memcmp(text.ptr + i, "operator", 8) == 0 &&
            (i == 0 || text.ptr[i - 1] == ':'))
            break;
    }
    if (cut == SIZE_MAX) {
        *qual = LP_STR("");
        *name = text;
        return;
    }
    lp_str q = lp_str_sub(text, 0, cut);
    while (q.len >= 2 && q.ptr[0] == ':' && q.ptr[1] == ':')
        q = lp_str_sub(q, 2, q.len);
    *qual = q.len ? lp_lx_clean_type_name(cx, q) : LP_STR("");
    *name = lp_str_trim(lp_str_sub(text, cut + 2, text.len));
}

static bool in_anonymous_namespace(const lx_ctx *cx)
{
    for (uint32_t k = 1; k <= cx->depth; k++) {
        TSNode a = lp_lx_ancestor(cx, k);
        if (lx_is(a, "namespace_definition") &&
            ts_node_is_null(ts_node_child_by_field_name(a, "name", 4)))
            return true;
    }
    return false;
}

/* Access in force at `pos` in the container's body: scan the text between the last
 * member seen and pos for access specifiers (comments skipped). Members are refined in
 * source order, so the whole body is scanned once. */
static lp_visibility access_at(lx_ctx *cx, uint32_t pos)
{
    lx_sym *c = cx->container >= 0 ? &cx->syms.items[cx->container] : NULL;
    if (!c || !(c->kind == LP_SYM_CLASS || c->kind == LP_SYM_STRUCT || c->kind == LP_SYM_UNION))
        return LP_VIS_UNKNOWN;
    if (c->hook_pos == 0) {
        c->hook_pos = c->has_body ? c->body_start : c->start;
        c->hook_state = c->kind == LP_SYM_CLASS ? LP_VIS_PRIVATE : LP_VIS_PUBLIC;
    }
    const char *s = cx->src;
    uint32_t i = c->hook_pos;
    while (i < pos) {
        if (s[i] == '/' && i + 1 < pos && s[i + 1] == '/') {
            while (i < pos && s[i] != '\n')
                i++;
            continue;
        }
        if (s[i] == '/' && i + 1 < pos && s[i + 1] == '*') {
            i += 2;
            while (i + 1 < pos && !(s[i] == '*' && s[i + 1] == '/'))
                i++;
            i += 2;
            continue;
        }
        static const struct {
            const char *word;
            lp_visibility vis;
        } kw[] = {{"public", LP_VIS_PUBLIC}, {"private", LP_VIS_PRIVATE},
                  {"protected", LP_VIS_PROTECTED}};
        bool matched = false;
        for (size_t k = 0; k < LP_ARRAY_LEN(kw) && !matched; k++) {
            size_t n = strlen(kw[k].word);
            if (i + n <= pos && memcmp(s + i, kw[k].word, n) == 0 &&
                (i == 0 || !(isalnum((unsigned char)s[i - 1]) || s[i - 1] == '_'))) {
                uint32_t j = i + (uint32_t)n;
                while (j < pos && (s[j] == ' ' || s[j] == '\t'))
                    j++;
                if (j < pos && s[j] == ':' && !(j + 1 < pos && s[j + 1] == ':')) {
                    c->hook_state = kw[k].vis;
                    i = j + 1;
                    matched = true;
                }
            }
        }
        if (!matched)
            i++;
    }
    if (pos > c->hook_pos)
        c->hook_pos = pos;
    return (lp_visibility)c->hook_state;
}

static bool is_type_container(const lx_sym *c)
{
    return c && (c->kind == LP_SYM_CLASS || c->kind == LP_SYM_STRUCT || c->kind == LP_SYM_UNION);
}

/* gtest: TEST(Suite, Name) { ... } parses as a function named TEST. */
static bool gtest(lx_ctx *cx, TSNode def, lx_sym *s)
{
    if (!lp_str_eq_c(s->name, "TEST") && !lp_str_eq_c(s->name, "TEST_F") &&
        !lp_str_eq_c(s->name, "TEST_P") && !lp_str_eq_c(s->name, "TYPED_TEST"))
        return false;
    TSNode decl = ts_node_child_by_field_name(def, "declarator", 10);
    if (ts_node_is_null(decl))
        return false; /* a damaged definition (fuzz finding: a NULL node crashed here) */
    TSNode params = ts_node_child_by_field_name(decl, "parameters", 10);
    if (ts_node_is_null(params) || ts_node_named_child_count(params) != 2)
        return false;
    s->qualifier = lp_str_trim(lx_text(cx, ts_node_named_child(params, 0)));
    s->name = lp_str_trim(lx_text(cx, ts_node_named_child(params, 1)));
    s->kind = LP_SYM_FUNCTION;
    s->flags |= LP_SYMF_TEST;
    return true;
}

static bool refine(lx_ctx *cx, const lx_def *d, lx_sym *s, lx_scope *scope)
{
    (void)scope;
    if (!s)
        return true;
    TSNode root = cx->leaf ? cx->anc[cx->depth] : d->node;
    const char *rtype = ts_node_type(root);
    const lx_sym *container = lp_lx_container(cx);
    bool member = is_type_container(container);

    if (!strcmp(rtype, "namespace_definition")) {
        if (ts_node_is_null(d->name))
            return false; /* anonymous: members stay unqualified and private */
        s->name = lp_lx_clean_type_name(cx, lx_text(cx, d->name));
        return true;
    }
    if (!strcmp(rtype, "alias_declaration")) {
        s->vis = member ? access_at(cx, ts_node_start_byte(root)) : LP_VIS_UNKNOWN;
        return true;
    }
    if (!lp_lx_c_refine(cx, d, s))
        return false;
    /* `class RE2::Set {...}` defines Set inside RE2 */
    if ((!strcmp(rtype, "class_specifier") || !strcmp(rtype, "struct_specifier") ||
         !strcmp(rtype, "union_specifier") || !strcmp(rtype, "enum_specifier")) &&
        lx_is(d->name, "qualified_identifier")) {
        lp_str qual, name;
        split_qualified(cx, s->name, &qual, &name);
        s->name = lp_lx_clean_type_name(cx, name);
        s->qualifier = qual;
        if (!s->name.len)
            return false;
    }
    /* a destructor after a macro (`ATTRIBUTE_NORETURN ~Foo()`) loses its `~` to an error
     * node: put it back */
    if (!strcmp(rtype, "function_definition") && s->name.len && s->name.ptr > cx->src &&
        s->name.ptr <= cx->src + cx->len && s->name.ptr[-1] == '~')
        s->name = (lp_str){s->name.ptr - 1, s->name.len + 1};

    /* template<...> wrappers belong to the definition */
    TSNode p = lp_lx_ancestor(cx, 1);
    if (lx_is(p, "template_declaration") && ts_node_eq(s->outer, root))
        s->outer = p;

    bool is_function_kind = s->kind == LP_SYM_FUNCTION;
    bool is_fn_field = false;
    if (!strcmp(rtype, "field_declaration")) {
        bool f = false;
        lp_lx_c_declarator_name(d->node, &f);
        is_fn_field = f;
        if (f) {
            s->kind = LP_SYM_METHOD;
            s->flags |= LP_SYMF_DECLARATION;
            TSNode dv = ts_node_child_by_field_name(root, "default_value", 13);
            if (lp_str_eq_c(lx_text(cx, dv), "0"))
                s->flags |= LP_SYMF_ABSTRACT;
        }
        if (lp_lx_c_has_specifier(cx, root, "static"))
            s->flags |= LP_SYMF_STATIC;
    }
    if (is_function_kind || is_fn_field) {
        if (is_function_kind && !strcmp(rtype, "function_definition") && gtest(cx, root, s))
            return true;
        lp_str qual, name;
        split_qualified(cx, s->name, &qual, &name);
        s->name = name;
        if (qual.len) {
            s->qualifier = qual;
            s->kind = LP_SYM_METHOD;
            s->vis = LP_VIS_UNKNOWN;
            s->flags &= ~LP_SYMF_STATIC;
            lp_str cls = qual;
            for (size_t i = qual.len; i > 0; i--)
                if (qual.ptr[i - 1] == '.') {
                    cls = lp_str_sub(qual, i, qual.len);
                    break;
                }
            if (lp_str_eq(cls, name))
                s->kind = LP_SYM_CONSTRUCTOR;
        } else if (member) {
            if (s->kind == LP_SYM_FUNCTION)
                s->kind = LP_SYM_METHOD;
            if (lp_str_eq(container->name, name))
                s->kind = LP_SYM_CONSTRUCTOR;
        }
    }
    if (member && s->kind != LP_SYM_ENUM_MEMBER)
        s->vis = access_at(cx, ts_node_start_byte(root));
    else if (in_anonymous_namespace(cx) && s->vis == LP_VIS_PUBLIC)
        s->vis = LP_VIS_PRIVATE;
    return true;
}

static const char *const comments[] = {"comment", NULL};
static const char *const decorations[] = {"attribute_specifier", "attribute_declaration", NULL};
static const char *const recover_types[] = {"function_declarator", "expression_statement",
                                            "call_expression", "identifier", NULL};
static const char *const excise_types[] = {"function_definition", NULL};
static const char *const local_types[] = {"declaration", NULL};

const lp_lang_spec lp_spec_cpp = {
    .lang = LP_LANG_CPP,
    .query_name = "cpp",
    .ts_language = tree_sitter_cpp,
    .comment_types = comments,
    .decoration_types = decorations,
    .refine = refine,
    .recover_types = recover_types,
    .recover = lp_lx_c_recover,
    .excise_types = excise_types,
    .excise = lp_lx_c_excise,
    .local_types = local_types,
    .refs = &lp_lxr_cpp,
};

/* ------------------------------------------------------------------------------------------
 * Operations (lang.h); .h files are detected by C's (lang_c.c). */

static const char *const aliases[] = {"c++", "cxx", NULL};
static const char *const extensions[] = {".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx",
                                         ".h++", ".ipp", ".tpp", ".C", ".H", NULL};

const lp_lang_ops lp_ops_cpp = {
    .lang = LP_LANG_CPP,
    .name = "cpp",
    .aliases = aliases,
    .extensions = extensions,
    .spec = &lp_spec_cpp,
    .family = LP_LANG_C,
    .modules = LP_MODSYS_INCLUDE,
    .graph = LP_LANGG_IMPLICIT_THIS | LP_LANGG_CALL_CONSTRUCTS | LP_LANGG_WILDCARD_NO_TARGET |
             LP_LANGG_QUALIFIED_TYPES | LP_LANGG_NAMESPACE_PATHS,
    .test_stem = lp_lx_test_stem_snake,
    .graph_covers =
        "as C, plus namespaces (ns::f, using), implicit this and base classes, Foo::bar "
        "definitions, typed locals and parameters (Foo x; Foo *p = new Foo), new Foo / Foo x(1)",
    .graph_blind =
        "virtual dispatch to overrides, overload choice (reported ambiguous), templates and ADL, "
        "auto receivers from calls",
};
