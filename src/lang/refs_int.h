/*
 * refs_int.h: reference extraction inside src/lang (refs.c: the generic part; refs_dyn.c:
 * Python, JavaScript/TypeScript, Go; refs_static.c: Java, C#, Scala, Rust, C, C++).
 *
 * How it plugs into the definition walk (extract.c, see lang_int.h):
 *   - src/lang/queries/<lang>-refs.scm holds patterns rooted at call / import / base /
 *     binding nodes; lang.c appends it to <lang>.scm when it compiles the query, so the
 *     single walk runs them at the nodes they root, like definitions;
 *   - a pattern's root capture says what it is: @reference.call, .new, .import, .base,
 *     .local (a binding: parameter, variable, loop target) or .export; sub-captures name
 *     the parts: @ref.callee @ref.args @ref.type @ref.name @ref.value @ref.module
 *     @ref.alias (each optional; hooks may also walk the root node themselves);
 *   - collect_defs hands such matches to lp_lx_refs_take_match; after the definitions rooted
 *     at the node are added, lp_lx_refs_at_node calls the language's hook for each, with the
 *     enclosing symbol before (outer) and after (inner) those definitions;
 *   - once symbols are qualified, lp_lx_refs_finish runs the file-local post-pass: bindings
 *     of enclosing functions shadow callee names and type receivers (LP_REFF_SHADOWED,
 *     _UNTYPED, _TYPED with rtype), self/this calls get the enclosing type as rtype, test
 *     symbols get test-name references; lp_lx_refs_output copies the result into the arena.
 *
 * Everything here is file-local syntax; deciding what a name means across files is
 * src/graph's job.
 */
#ifndef LP_LANG_REFS_INT_H
#define LP_LANG_REFS_INT_H

#include "lang/lang_int.h"

/* What a reference pattern's root is. */
typedef enum lxr_kind {
    LXR_CALL = 0,
    LXR_NEW,
    LXR_IMPORT,
    LXR_BASE,
    LXR_LOCAL,
    LXR_EXPORT,
    LXR_KIND_COUNT
} lxr_kind;

/* Capture roles (lx_lang_rt.capture_ref). Roots are LXR_CAP_ROOT + kind. */
enum {
    LXR_CAP_NONE = 0,
    LXR_CAP_CALLEE,
    LXR_CAP_ARGS,
    LXR_CAP_TYPE,
    LXR_CAP_NAME,
    LXR_CAP_VALUE,
    LXR_CAP_MODULE,
    LXR_CAP_ALIAS,
    LXR_CAP_ROOT = 0x40,
};

/* Role of a capture name ("reference.call", "ref.callee"...); LXR_CAP_NONE otherwise.
 * *bad is set for a "reference."/"ref." name that is not known (a build defect). */
uint8_t lp_lx_refs_capture_role(lp_str name, bool *bad);

/* The query text for a language: <query_name>.scm, followed by <query_name>-refs.scm when
 * it exists and reference extraction is enabled (LOUPE_TEST_NO_GRAPH unset). *src points
 * into the embedded table or into *owned (caller frees *owned). */
void lp_lx_refs_query_source(const char *query_name, const char **src, size_t *len,
                          char **owned, bool *has_refs);

/* True when LOUPE_TEST_NO_GRAPH=1 (benchmarks measure indexing without the graph). */
bool lp_lx_refs_disabled(void);

/* One match of a reference pattern at the walk node. */
typedef struct lxr_match {
    lxr_kind kind;
    TSNode node;
    TSNode callee, args, type, name, value, module, alias;
} lxr_match;

/* A reference under construction. Strings point into the source or the arena. */
typedef struct lxr_ref {
    lp_refkind kind;
    int32_t owner;
    lp_str name, qual, alias, rtype, args;
    lp_str root; /* calls: the receiver's first name ("self", "os", "x"); "" when none */
    int32_t nargs;
    uint32_t flags;
    uint32_t start, end;
    uint32_t seq; /* push order (the sort is stable with it) */
} lxr_ref;

/* A binding inside a function (parameter, variable, loop target...). */
typedef struct lxr_local {
    int32_t fn;   /* the enclosing function symbol */
    lp_str name;
    lp_str type;  /* "" when the source does not show it */
    uint32_t flags; /* LP_REFF_RTYPE_CALL (type from `x = T(...)`), LXR_LOCAL_RECEIVER */
    uint32_t seq;
} lxr_local;

#define LXR_LOCAL_RECEIVER 0x80000000u /* the method's receiver (Python self, Go receiver) */

/* Member access node types: the receiver is in field `object`, the member name in `name`. */
typedef struct lxr_member {
    const char *type;
    const char *object;
    const char *name;
    uint32_t flags; /* LP_REFF_PATH for paths (a::b) */
} lxr_member;

typedef struct lxr_lang lxr_lang;

typedef struct lx_refs {
    const lxr_lang *lang;
    LP_VEC(lxr_match) pending;
    LP_VEC(lxr_ref) refs;
    LP_VEC(lxr_local) locals;
} lx_refs;

/* Per-language description and hook. */
struct lxr_lang {
    const char *const *idents;  /* node types whose text is a plain name */
    const char *const *selfs;   /* this/self node types (or identifier texts: selfwords) */
    const char *const *selfwords; /* identifier texts that mean the receiver ("self", "Self") */
    const char *const *supers;  /* super/base node types */
    const char *const *superwords;
    const lxr_member *members;  /* {NULL} terminated */
    const lxr_member *wrappers; /* node types to see through: type, field holding the inner
                                   node in .object (generic instantiations, parentheses) */
    /* Turn one match into references/bindings. outer: the symbol enclosing the pattern's
     * root; inner: the symbol opened at the root itself (== outer when none). */
    void (*hook)(lx_ctx *cx, const lxr_match *m, int32_t outer, int32_t inner);
    /* Derive the tested name from a test symbol's name ("" when none). */
    lp_str (*test_target)(const lx_ctx *cx, const lx_sym *test);
};

const lxr_lang *lp_lxr_lang_for(lp_lang l);

/* Language tables (refs_dyn.c, refs_static.c). */
extern const lxr_lang lp_lxr_python, lp_lxr_js, lp_lxr_go, lp_lxr_java, lp_lxr_csharp, lp_lxr_scala, lp_lxr_rust,
    lp_lxr_c, lp_lxr_cpp;

/* --- called by extract.c / parse.c --- */
void lp_lx_refs_init(lx_refs *r, lp_lang lang);
void lp_lx_refs_release(lx_refs *r);
/* Keep the match if it is a reference pattern's; true when it was one. */
bool lp_lx_refs_take_match(lx_refs *r, const lx_lang_rt *rt, const TSQueryMatch *m, TSNode node);
/* Run the hooks for the matches kept at the current walk node. */
void lp_lx_refs_at_node(lx_ctx *cx, int32_t outer);
/* File-local post-pass (needs qualified symbols). */
void lp_lx_refs_finish(lx_ctx *cx);
/* Copy into the arena as lp_ref (spans computed with the line table). */
void lp_lx_refs_output(const lx_refs *r, const lx_lines *lines, lp_arena *arena, lp_ref **out,
                    size_t *n);

/* --- helpers for hooks --- */
/* A new reference at node (span = node), owner given. */
lxr_ref *lp_lxr_push(lx_ctx *cx, lp_refkind kind, int32_t owner, TSNode node);
/* A call or constructor call: callee decomposed into name / qual / flags; args counted. */
lxr_ref *lp_lxr_call(lx_ctx *cx, lp_refkind kind, int32_t owner, TSNode call, TSNode callee,
                  TSNode args);
/* The same with the receiver and member name given as nodes (object may be null). */
lxr_ref *lp_lxr_call_parts(lx_ctx *cx, lp_refkind kind, int32_t owner, TSNode call, TSNode object,
                        TSNode name, TSNode args);
/* Record a binding of `name` in the function enclosing `owner` (ignored outside functions). */
void lp_lxr_binding(lx_ctx *cx, int32_t owner, lp_str name, lp_str type, uint32_t flags);
/* Record every name bound by a pattern (identifiers inside tuples, lists, destructuring;
 * not inside member accesses, subscripts, calls, default values or types). */
void lp_lxr_locals_in(lx_ctx *cx, int32_t owner, TSNode pattern, lp_str type, uint32_t flags);
/* The function symbol enclosing owner (owner itself when it is one), or -1. */
int32_t lp_lxr_enclosing_function(const lx_ctx *cx, int32_t owner);
/* A type's text reduced to a dotted name ("*pkg.Foo[T]" -> "pkg.Foo", "&mut Foo" -> "Foo",
 * "std::vector<int>" -> "std.vector"); "" for arrays, functions, tuples and the like. */
lp_str lp_lxr_type_name(lx_ctx *cx, lp_str text);
/* Text of a string literal node without quotes (and without a Python/JS prefix). */
lp_str lp_lxr_unquote(lp_str s);
/* The named child of n with this field, or the first named child of one of these types. */
TSNode lp_lxr_field(TSNode n, const char *field);
bool lp_lxr_type_in(TSNode n, const char *const *types);
/* Last '.'-separated segment of s. */
lp_str lp_lxr_last_segment(lp_str s);
/* s with "::" (and "->") turned into '.', whitespace dropped. */
lp_str lp_lxr_dotted(lx_ctx *cx, lp_str s);

#endif
