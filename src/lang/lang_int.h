/*
 * lang_int.h: what the files of src/lang share: the language registry, the extraction
 * context handed to per-language hooks, and the chunker's input.
 *
 * How a code file becomes symbols (extract.c):
 *   1. tree-sitter parses the bytes (one parser per thread and language);
 *   2. one depth-first walk with a TSTreeCursor visits every node once, keeping the
 *      ancestor stack; at a node whose type roots a pattern of the language's query
 *      (src/lang/queries/<lang>.scm, embedded at build time) the query runs on that node
 *      alone (max start depth 0), so the query describes definitions declaratively while
 *      the walk stays linear and gives each match its context (ancestors, the enclosing
 *      symbol, the enclosing scope);
 *   3. the language's refine hook (lang_<name>.c) turns each match into a symbol: kind
 *      adjustments, name, visibility, flags, wrapper nodes (export, decorators);
 *   4. generic code computes spans, signatures, doc comments (comment runs directly
 *      above, found by binary search over the comments seen by the walk), qualified
 *      names, logical parents (by name for Go receivers, Rust impl blocks, C++
 *      out-of-class definitions) and ordinals;
 *   5. chunk.c cuts owner-bounded chunks.
 * Where macros defeat the grammar (C, C++), two hooks step in during the walk: `recover`
 * finds definitions the tree lost (their bytes are not one node: they close by position,
 * see lx_def.recovered), and `excise` has a node parsed again without a macro token
 * (tree-sitter's included ranges) and the walk descends into that tree instead.
 *
 * Query capture conventions (every capture except @definition.* / @scope is optional):
 *   @definition.<kind>  the pattern's root node is a definition of lp_symkind <kind>
 *                       (the name lp_symkind_name prints: function, class, type_alias...)
 *   @scope              the root node is a container that is not a symbol but qualifies
 *                       the symbols inside it (a Rust impl block); @name gives its name
 *   @name               the name node (its text is the symbol's name unless the hook
 *                       sets another)
 *   @body               the body: the signature ends where it starts, and an enclosing
 *                       symbol's chunk elides it
 *   @value              the value of a constant/variable/alias (the signature stops
 *                       before a multi-line value)
 *   @qualifier          a node naming the logical owner (Go receiver type)
 * Other capture names are ignored by the definition extractor (reserved for references).
 *
 * References (calls, imports, bases, bindings) for the code graph ride on the same walk:
 * src/lang/queries/<lang>-refs.scm is appended to the language's query when it compiles
 * (lang.c), its patterns use @reference.* / @ref.* captures (roles in capture_ref),
 * collect_defs hands their matches to refs.c, and per-language hooks (refs_dyn.c,
 * refs_static.c) record references owned by the enclosing symbol. See refs_int.h.
 * A @definition capture is normally the pattern's root node (it may then contain other
 * definitions); one below the root is a leaf definition (enum members listed in their
 * body) that never contains others. Patterns may not be rooted at a wildcard. When several
 * patterns match one node, the kind of the first pattern in the file wins and the others
 * fill in captures it lacks.
 */
#ifndef LP_LANG_INT_H
#define LP_LANG_INT_H

#include "lang/lang.h"

#include <tree_sitter/api.h>

/* ------------------------------------------------------------------------------------------
 * Embedded query sources (generated from src/lang/queries/NAME.scm by tools/embed.c). */
typedef struct lp_embedded_query {
    const char *name; /* file name without .scm: "python", "c-sharp" */
    const char *src;
    size_t len;
} lp_embedded_query;

extern const lp_embedded_query lp_embedded_queries[];
extern const size_t lp_embedded_queries_count;

/* ------------------------------------------------------------------------------------------
 * Extraction context and symbols under construction. */
typedef struct lx_ctx lx_ctx;

/* One definition (or scope) found by the query at the current walk node. */
typedef struct lx_def {
    TSNode node; /* the pattern root */
    TSNode name, body, value, qualifier; /* null nodes when not captured */
    lp_symkind kind;
    bool scope;
    /* Error recovery (spec->recover): a definition whose bytes are not one node (its body
     * was flattened into an ERROR node, or follows a macro call as a sibling): explicit
     * [start, end) and body start; symbols found inside that range nest in it. */
    bool recovered;
    uint32_t rec_start, rec_end, rec_body_start;
    lp_str rec_name; /* when set, the name (else the text of @name) */
} lx_def;

/* A symbol being built. The hook sees it with the generic defaults filled in. */
typedef struct lx_sym {
    lp_symkind kind;
    lp_str name;      /* default: text of @name; "" means anonymous (the hook names it) */
    lp_str qualifier; /* logical owner written in the syntax, '.'-joined ("Foo", "ns.Foo") */
    TSNode node;      /* the definition node (the @definition capture) */
    TSNode outer;     /* the node whose bytes are the definition, wrappers included
                         (export statement, decorated definition); default: the root */
    uint32_t span_start; /* UINT32_MAX = computed: outer start after leading decorations */
    uint32_t outer_start; /* set by generic code: start of decorations/attributes */
    uint32_t lead_start;  /* UINT32_MAX, or where leading text that belongs to this symbol
                             starts (a group opener: Go `const (`): the doc comment is
                             looked up above it and the chunk includes it */
    uint32_t start, end;
    uint32_t sig_end;
    uint32_t body_start, body_end; /* has_body */
    uint32_t doc_start, doc_end;   /* has_doc */
    bool has_body, has_doc;
    bool prefix;   /* a package/namespace clause that qualifies the rest of the file */
    bool no_chunk; /* never owns chunks (its text stays in the enclosing owner's) */
    lp_visibility vis;
    uint32_t flags;
    int32_t container; /* innermost enclosing symbol (physical), -1 at top level */
    int32_t parent;    /* logical parent */
    int32_t scope;     /* innermost enclosing @scope entry inside the container, or -1 */
    const char *qname;
    /* scratch a hook may keep on a container while its members are refined (C++ access
     * sections: how far the body was scanned and the access in force there) */
    uint32_t hook_pos;
    int hook_state;
    uint32_t nest; /* number of enclosing symbols */
} lx_sym;

/* A @scope entry (Rust impl block). */
typedef struct lx_scope {
    TSNode node;
    lp_str name;      /* the type the scope is about ("Foo") */
    lp_str trait;     /* the trait implemented, if any */
    int32_t container;
} lx_scope;

typedef struct lp_lang_spec {
    lp_lang lang;
    const char *query_name; /* embedded query file ("python") */
    const TSLanguage *(*ts_language)(void);
    /* Node types that are comments (doc comments are runs of these directly above). */
    const char *const *comment_types;
    /* Node types of siblings that decorate the next definition (Rust attribute_item): the
     * definition's outer start moves back over them. */
    const char *const *attribute_types;
    /* Child node types skipped at the start of a definition's span (decorators,
     * annotations, attribute lists), and container types searched through for them
     * (Java `modifiers`). */
    const char *const *decoration_types;
    const char *const *decoration_containers;
    /* Fill in or correct a symbol; return false to drop the match. d->scope entries are
     * passed with s == NULL and scope set. May be NULL. */
    bool (*refine)(lx_ctx *cx, const lx_def *d, lx_sym *s, lx_scope *scope);
    /* Called once the geometry is known (outer_start covers attributes above the item,
     * doc found): last chance to set flags from attribute text. May be NULL. */
    void (*finish)(lx_ctx *cx, lx_sym *s);
    /* Error recovery, for syntax tree-sitter could not parse (macro-heavy C): called at
     * nodes of recover_types that no pattern rooted; may describe a definition in *d
     * (d->recovered set, geometry explicit) and return true. May be NULL. */
    const char *const *recover_types;
    bool (*recover)(lx_ctx *cx, TSNode node, lx_def *d);
    /* Macro excision, for constructs a macro made unparsable (`class EXPORT_API Foo {`):
     * called at nodes of excise_types; may name one byte range [*a, *b) inside the node
     * to leave out; the walk then parses the node's bytes again without it and walks
     * that tree in the node's place. May be NULL. */
    const char *const *excise_types;
    bool (*excise)(lx_ctx *cx, TSNode node, uint32_t *a, uint32_t *b);
    /* Node types whose definitions the hook drops inside functions (C locals): the walk
     * does not run the query on them there. May be NULL. */
    const char *const *local_types;
    /* Reference extraction hooks (refs_int.h: lp_lxr_python, lp_lxr_js...). May be NULL. */
    const struct lxr_lang *refs;
    /* The grammar's external scanner tracks columns, so its cost grows with the square of
     * a line's length: very long lines are not parsed (parse.c). */
    bool scanner_tracks_columns;
} lp_lang_spec;

const lp_lang_spec *lp_lang_spec_for(lp_lang l); /* NULL for text and docs */

/* Test-file conventions several languages share (lp_lang_ops.test_stem): test_x, x_test,
 * x_unittest (C, C++, Rust); FooTest, FooTests, FooSpec, FooSuite (Java, C#, Scala). */
bool lp_lx_test_stem_snake(lp_str stem);
bool lp_lx_test_stem_xunit(lp_str stem);
/* Does a .h file's head hold C++ constructs (class X {, namespace, template<, ::, public:,
 * outside comments, strings and preprocessor lines)? */
bool lp_lx_head_looks_cpp(lp_str head);

/* Per-language runtime: compiled query and node-type tables (built once, immutable). */
typedef struct lx_capture_role lx_capture_role;
typedef struct lx_lang_rt {
    const lp_lang_spec *spec;
    const TSLanguage *ts;
    TSQuery *query;
    uint32_t nsymbols;
    uint8_t *sym_flags; /* per TSSymbol: LX_SYMF_* */
    uint8_t *capture_role; /* per capture id: LX_CAP_* */
    lp_symkind *capture_kind; /* per capture id for LX_CAP_DEF */
    uint8_t *capture_ref; /* per capture id: reference role (refs.c, LXR_CAP_*) */
    bool has_refs;        /* the <lang>-refs.scm patterns are part of the query */
} lx_lang_rt;

enum {
    LX_SYMF_ROOT = 0x1,       /* roots a query pattern */
    LX_SYMF_COMMENT = 0x2,
    LX_SYMF_ATTRIBUTE = 0x4,
    LX_SYMF_DECORATION = 0x8,
    LX_SYMF_DECO_CONTAINER = 0x10,
    LX_SYMF_RECOVER = 0x20,
    LX_SYMF_EXCISE = 0x40,
    LX_SYMF_LOCAL = 0x80,
};

enum {
    LX_CAP_NONE = 0,
    LX_CAP_DEF,
    LX_CAP_SCOPE,
    LX_CAP_NAME,
    LX_CAP_BODY,
    LX_CAP_VALUE,
    LX_CAP_QUALIFIER,
};

/* The runtime for a code language (compiled on first use, thread-safe); NULL for languages
 * without a grammar. On a query compile error, *err says where (a build defect). */
const lx_lang_rt *lp_lang_rt_get(lp_lang l, lp_error *err);

/* Per-thread tree-sitter objects. */
TSParser *lp_lang_thread_parser(lp_lang l);
TSQueryCursor *lp_lang_thread_cursor(void);

#define LX_MAX_DEPTH 4096 /* deeper nodes are not examined (pathological nesting) */
#define LX_MAX_NEST 64    /* symbols nested deeper than this are not emitted: their text
                             stays in the enclosing owner (bounds qname lengths) */

struct lx_ctx {
    const lx_lang_rt *rt;
    const char *src;
    uint32_t len;
    lp_arena *arena;
    /* The walk: anc[0..depth] are the current node's ancestors (anc[depth] is the node). */
    TSNode *anc;
    uint32_t depth;
    int32_t container; /* innermost open symbol, -1 */
    int32_t scope;     /* innermost open scope within the container, -1 */
    bool leaf;         /* refining a leaf definition captured below the pattern root
                          (anc[depth] is then the root, not the definition) */
    LP_VEC(lx_sym) syms;
    LP_VEC(lx_scope) scopes;
    void *walk; /* the walk's private state (extract.c) */
    struct lx_refs *refs; /* reference gathering (refs.c); NULL when not collecting */
};

/* Bring cx->container and cx->scope up to date at the current node (a recover hook calls
 * it once its cheap checks pass; refine hooks get them current). */
void lp_lx_sync_container(lx_ctx *cx);

/* Helpers for hooks. */
static inline lp_str lx_text(const lx_ctx *cx, TSNode n)
{
    if (ts_node_is_null(n))
        return (lp_str){"", 0};
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    if (b > cx->len)
        b = cx->len;
    if (a > b)
        a = b;
    return (lp_str){cx->src + a, b - a};
}
static inline bool lx_is(TSNode n, const char *type)
{
    return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}
/* The k-th ancestor of the node being refined (1 = parent); null past the root. */
TSNode lp_lx_ancestor(const lx_ctx *cx, uint32_t k);
/* The enclosing symbol (container) or NULL. */
const lx_sym *lp_lx_container(const lx_ctx *cx);
/* The enclosing scope entry or NULL. */
const lx_scope *lp_lx_scope_cur(const lx_ctx *cx);
/* First child (named or not) of n with the given type, or a null node. */
TSNode lp_lx_child_of_type(TSNode n, const char *type);
/* True when n has a child (anonymous keyword included) whose text is `word`. */
bool lp_lx_has_keyword(const lx_ctx *cx, TSNode n, const char *word);
/* Copy of s into the arena (NUL-terminated). */
lp_str lp_lx_dup(lx_ctx *cx, lp_str s);
/* Strip generic arguments and pointer/reference marks from a type's text ("*Foo[T]" ->
 * "Foo", "Foo<T>" -> "Foo", "&'a mut Foo" -> "Foo"); "::" becomes '.'. */
lp_str lp_lx_clean_type_name(lx_ctx *cx, lp_str s);
/* C and C++ (lang_c.c): the name inside a declarator chain (pointer, array, function,
 * parenthesized, init and attributed declarators); *is_function is set when the chain
 * declares a function (not a pointer to one). Null when there is no name. */
TSNode lp_lx_c_declarator_name(TSNode declarator, bool *is_function);
/* The text of a name lp_lx_c_declarator_name found (a conversion operator without its
 * parameters: "operator int"). */
lp_str lp_lx_c_name_text(const lx_ctx *cx, TSNode name);
/* Does node have a storage class specifier / type qualifier child with this text? */
bool lp_lx_c_has_specifier(const lx_ctx *cx, TSNode node, const char *word);
/* Shared refine for the C constructs of C and C++ (functions, prototypes, variables,
 * structs/unions/enums, typedefs, fields, macros). */
bool lp_lx_c_refine(lx_ctx *cx, const lx_def *d, lx_sym *s);
/* Shared recovery for C and C++ (see lang_c.c): functions whose definition tree-sitter
 * lost (a function declarator inside an ERROR node followed by `{`; a macro-defined
 * function `SYSCALL_DEFINE2(name, ...) {` at file level). */
bool lp_lx_c_recover(lx_ctx *cx, TSNode node, lx_def *d);
/* Shared excision for C and C++: the export macro of `class MACRO Name ... {` (tree-sitter
 * reads it as a function returning `class MACRO`). */
bool lp_lx_c_excise(lx_ctx *cx, TSNode node, uint32_t *a, uint32_t *b);
/* Past the `}` matching the `{` at open (comments, strings, character literals and
 * preprocessor lines skipped; of #if/#else branches opened inside, only the first is
 * read), or 0 when it is not closed. */
uint32_t lp_lx_c_match_brace(const char *src, uint32_t len, uint32_t open);

/* Kind predicates. */
bool lp_lx_kind_is_type(lp_symkind k); /* class, struct, interface, trait, enum, record, union,
                                       object */

/* ------------------------------------------------------------------------------------------
 * The parse budget of one file (lp_parse_opts.budget_*): tree-sitter's memory on this
 * thread (counted by the allocator lp_lang_init installs) plus what extraction holds, and
 * the wall time. lp_parse arms it; the parse (tree-sitter's progress callback) and the walk
 * (every 1024 nodes) check it and stop; the file is then kept as text. */
typedef struct lx_budget {
    uint64_t max_bytes, max_ms; /* 0: no limit */
    int64_t ts_start;           /* tree-sitter bytes live on this thread at the start */
    uint64_t t0_ns;
    const char *over;           /* NULL, or what ran out: "memory" or "time" */
} lx_budget;
/* The budget of the parse running on this thread (NULL: none). */
lx_budget *lp_lx_budget_current(void);
void lp_lx_budget_arm(lx_budget *b); /* NULL disarms */
/* True (and b->over set) once the budget is spent; extra_bytes: what extraction holds. */
bool lp_lx_budget_spent(lx_budget *b, uint64_t extra_bytes);
/* Bytes tree-sitter holds, allocated on this thread (live, net of frees). */
int64_t lp_lx_ts_live_bytes(void);

/* ------------------------------------------------------------------------------------------
 * Extraction and chunking entry points (called by lp_parse). */

/* Parse and extract symbols for a code language; with refs (refs_int.h) not NULL, the
 * same walk gathers references into it. */
struct lx_refs;
lp_status lp_lx_extract(const lx_lang_rt *rt, lp_str content, lp_arena *arena, lx_sym **syms,
                     size_t *nsyms, bool *partial, struct lx_refs *refs, lp_error *err);

/* Ordinals: 0, 1, ... among symbols with equal (qname, kind, declaration flag), in
 * order. */
void lp_lx_assign_ordinals(lx_sym *syms, size_t n, uint32_t *ordinals);

/* A symbol as the chunker needs it. */
typedef struct lx_owner {
    uint32_t region_start; /* doc/decorations included */
    uint32_t end;
    uint32_t body_start, body_end; /* elided from the container's text when has_body */
    uint32_t doc_cut_start, doc_cut_end; /* elided too (doc above the child) when has_doc */
    int32_t container;
    bool has_body, has_doc_cut;
    bool owns_chunks;
    lp_chunk_kind kind;
} lx_owner;

typedef struct lx_chunk_opts {
    uint32_t max_lines, max_bytes, overlap_lines;
} lx_chunk_opts;

/* Line table: starts of lines, for byte -> line. */
typedef struct lx_lines {
    const uint32_t *starts;
    uint32_t n;
} lx_lines;

/* Cut chunks for `owners` (in source order, containers before their contents) and the
 * module text between top-level owners (chunk kind module_kind, owner -1). `lines` is
 * content's line table. */
void lp_lx_chunk(lp_str content, const lx_lines *lines, const lx_owner *owners, size_t nowners,
              lp_chunk_kind module_kind, const lx_chunk_opts *o, lp_arena *arena,
              lp_chunk **chunks, size_t *nchunks);
void lp_lx_lines_build(lp_str content, lp_arena *arena, lx_lines *out);
uint32_t lp_lx_line_of(const lx_lines *l, uint32_t byte); /* 1-based */
lp_span lp_lx_make_span(const lx_lines *l, uint32_t start, uint32_t end);

/* Plain text: paragraphs packed into bounded chunks (owner -1, LP_CHUNK_TEXT). */
void lp_lx_chunk_text(lp_str content, const lx_chunk_opts *o, lp_arena *arena, lp_chunk **chunks,
                   size_t *nchunks);

/* Documents (docs.c): headings become LP_SYM_SECTION symbols (arena arrays); own_end[i]
 * is where section i's own text ends (the next heading of any level, or the end). */
void lp_lx_doc_sections(lp_lang lang, lp_str content, const lx_lines *lines, lp_arena *arena,
                     lp_symbol **syms, uint32_t **own_end, size_t *nsyms);

#endif
