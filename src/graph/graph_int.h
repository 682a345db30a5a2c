/*
 * graph_int.h: what the files of src/graph share.
 *
 *   view.c      the publication as the resolver sees it: files, per-blob symbols and
 *               structural references (loaded on demand), names -> symbols, paths
 *   modules.c   module/package/include resolution per language (paths -> files)
 *   lookup.c    name lookup: scopes, imports, packages, wildcards, includes, members
 *   resolve.c   references -> edges: calls, receivers, imports, exports, test names
 *   update.c    full and incremental rebuilds of the edges table; refs evidence
 *   caps.c      capability table, names of kinds, rules and reasons
 *   query.c     reading helpers for the tools (symbols by id, edges, spans)
 *   callgraph.c call_graph, trace_path     findrefs.c find_references
 *   changes.c   detect_changes (libgit2)   arch.c architecture_overview
 *   tools.c     schemas and the tool table
 */
#ifndef LP_GRAPH_INT_H
#define LP_GRAPH_INT_H

#include "graph/graph.h"

/* ------------------------------------------------------------------------------------------
 * Rules (what proved an edge) and reasons (why a reference stays unresolved). Stored in
 * edges.rule: append only. Rule 0 marks an ambiguous candidate. */
typedef enum gr_rule {
    GR_CANDIDATE = 0,
    GR_LOCAL_SCOPE,      /* a definition in an enclosing function or block */
    GR_SAME_FILE,        /* a top-level definition of the same file (module scope) */
    GR_SAME_PACKAGE,     /* same Go package / Java, Scala package / C# namespace */
    GR_IMPORT,           /* a name bound by an explicit import */
    GR_WILDCARD_IMPORT,  /* a name from an import-everything (from m import *, a.*) */
    GR_MODULE_MEMBER,    /* mod.f() with mod an imported module / package */
    GR_SELF_METHOD,      /* self/this.m() -> the enclosing type's method */
    GR_BASE_METHOD,      /* self.m() / implicit member found in a base named in the source */
    GR_SUPER_METHOD,     /* super().m() / base.M() */
    GR_IMPLICIT_THIS,    /* m() inside a class of Java/C#/C++/Scala -> a member */
    GR_TYPED_RECEIVER,   /* x.m() with x's type shown in the function */
    GR_STATIC_MEMBER,    /* Type.m() */
    GR_CONSTRUCTOR,      /* Foo() / new Foo() -> the type */
    GR_INCLUDE_DECL,     /* C/C++: declaration visible through #include, unique definition */
    GR_QUALIFIED_PATH,   /* a::b::f / ns::f / pkg.Class.m: a path the index resolves */
    GR_IMPORT_FILE,      /* import -> the module's file */
    GR_IMPORT_SYMBOL,    /* import -> the imported symbol */
    GR_EXPORT_DECL,      /* export of a declaration of the file */
    GR_EXPORT_LIST,      /* export { a } of the file's own symbol */
    GR_REEXPORT,         /* export ... from './m' */
    GR_TEST_CALL,        /* a call made by a test */
    GR_TEST_NAME,        /* the test's name names the symbol */
    GR_DECLARATION_ONLY, /* C/C++: call of a declared function whose body is not indexed */
    GR_RULE_COUNT
} gr_rule;

typedef enum gr_reason {
    GR_R_NONE = 0,
    GR_R_SHADOWED,          /* the name is a local binding (parameter, variable) */
    GR_R_RECEIVER_UNTYPED,  /* the receiver is a local whose type the function does not show */
    GR_R_RECEIVER_EXPR,     /* the receiver is an expression (call result, attribute...) */
    GR_R_RECEIVER_UNKNOWN,  /* the receiver's name means nothing the index can see */
    GR_R_NO_DEFINITION,     /* no symbol of that name anywhere in the publication */
    GR_R_NOT_VISIBLE,       /* symbols of that name exist, none is in scope or imported */
    GR_R_MODULE_NOT_FOUND,  /* the imported module is not in the publication (external) */
    GR_R_MEMBER_NOT_FOUND,  /* the module / type was found, not the member */
    GR_R_NOT_CALLABLE,      /* the name is a variable, field or constant */
    GR_R_CONVERSION,        /* Go T(x) on a type: a conversion, not a call */
    GR_R_TYPE_NOT_FOUND,    /* the receiver's / constructed type could not be resolved */
    GR_R_DYNAMIC,           /* dispatch through an interface/trait the rules do not follow */
    GR_R_UNSUPPORTED,       /* a construct this language's rules do not cover */
    GR_R_EXTERNAL,          /* a declaration outside the publication (system header...) */
    GR_REASON_COUNT
} gr_reason;

const char *lp_gr_rule_name(gr_rule r);     /* "same_file", "import", ... */
const char *lp_gr_reason_name(gr_reason r); /* "shadowed", "receiver_untyped", ... */
const char *lp_gr_reason_text(gr_reason r); /* a sentence for agents */

/* ------------------------------------------------------------------------------------------
 * The view. */
typedef struct gsym {
    const char *name, *qname;
    int32_t parent;
    uint32_t ordinal;
    uint16_t kind;
    uint8_t vis;
    uint32_t flags;
    uint32_t start_line, end_line, start_byte, end_byte;
} gsym;

typedef struct gref {
    int32_t ord;
    uint8_t kind; /* lp_refkind */
    int32_t owner;
    const char *name, *qual, *alias, *rtype, *args;
    int32_t nargs;
    uint32_t flags;
    uint32_t start_line, end_line, start_byte, end_byte;
} gref;

typedef struct gblob {
    int64_t bid;
    gsym *syms;
    uint32_t nsyms;
    gref *srefs; /* structural references: imports, bases, exports (ord order) */
    uint32_t nsrefs;
} gblob;

typedef struct gfile {
    int64_t fid, bid;
    const char *path;
    const char *dir; /* "" at the root */
    lp_lang lang;
    int32_t blob;    /* index into view->blobs, -1 until loaded */
    /* derived (lp_gv_derive) */
    bool derived;
    bool is_test;    /* a test file by its path (tests/, *_test.go, test_*.py...) */
    const char *pkg; /* Go package name, Java/Scala package, C# first namespace ("" none) */
    const char *module; /* Python dotted module, Rust module path ("crate.a.b") */
    int32_t crate;   /* Rust: index of the crate root file's directory entry, -1 */
} gfile;

typedef struct gpair {
    uint32_t file; /* index into view->files */
    int32_t ord;
} gpair;

/* String-keyed maps are core's lp_map (keys in the view's arena). */

typedef LP_VEC(gpair) gpair_vec;
typedef LP_VEC(uint32_t) u32_vec;
typedef LP_VEC(u32_vec) u32_lists;
typedef LP_VEC(gpair_vec) pair_lists;

typedef struct gview {
    lp_store *st;
    lp_arena arena;
    gfile *files;
    size_t nfiles;
    int32_t *by_fid; /* fid -> file index, -1 */
    int64_t max_fid;
    lp_map by_stem;    /* base name without extension -> list index (stem_lists) */
    u32_lists stem_lists;
    lp_map by_dir;     /* directory -> list index (dir_lists) */
    u32_lists dir_lists;
    LP_VEC(gblob *) blobs; /* arena-allocated: pointers stay valid while the view lives */
    lp_map blob_of;    /* decimal bid -> blob index */
    lp_map names;      /* symbol name -> list index (name_lists) */
    pair_lists name_lists;
    bool preloaded;  /* every name is in `names` (full builds) */
    bool maps_built; /* by_stem, by_dir (built on first use) */
    /* Go modules: go.mod directories and module paths; Rust crates: Cargo.toml dirs. */
    LP_VEC(const char *) gomod_dirs;
    LP_VEC(const char *) gomod_paths;
    LP_VEC(const char *) crate_dirs;
    LP_VEC(const char *) crate_names;
    bool modules_loaded;
    /* C/C++ include closures: file index -> sorted list of file indexes (cached). */
    lp_map closures;
    LP_VEC(u32_vec *) closure_lists; /* each list heap-allocated: pointers stay valid */
    /* module resolution caches: "<lang>:<file or dir>:<text>" -> file list */
    lp_map mod_cache;
    u32_lists mod_lists;
    bool rust_indexed;
    lp_map rust_modules; /* "<crate>:<module path>" -> file list (mod_lists) */
} gview;

/* Open a view of the publication the connection sees. preload: read every symbol name at
 * once (full rebuilds); otherwise names are looked up one by one (incremental, tools). */
lp_status lp_gv_open(gview *v, lp_store *st, bool preload, lp_error *err);
void lp_gv_close(gview *v);
/* File index of a file id / path; -1 when not in the publication. */
int32_t lp_gv_file_of_fid(const gview *v, int64_t fid);
int32_t lp_gv_file_of_path(gview *v, const char *path, size_t len);
/* The blob of a file (symbols + structural refs), loaded on first use; NULL on error. */
const gblob *lp_gv_blob(gview *v, uint32_t file, lp_error *err);
/* Every symbol named name: (file, ord) sorted by file index then ord. */
lp_status lp_gv_lookup(gview *v, const char *name, size_t len, const gpair **out, size_t *n,
                    lp_error *err);
/* Every reference of a blob (all kinds), ord order, into the caller's arena. */
lp_status lp_gv_all_refs(gview *v, int64_t bid, lp_arena *arena, gref **out, size_t *n,
                      lp_error *err);
/* Files in a directory ("" = root) / with a base name stem (without extension). */
const u32_vec *lp_gv_dir_files(gview *v, const char *dir, size_t len);
const u32_vec *lp_gv_stem_files(gview *v, const char *stem, size_t len);
lp_map *lp_gv_dir_map(gview *v); /* directory -> dir_lists index (built on first use) */
/* A test file by its path (tests/ folders, test_*.py, *_test.go, *.test.ts, FooTest.java...). */
bool lp_gv_is_test_path(const char *path, lp_lang lang);
/* Derived per-file facts (package, module path, test file). */
void lp_gv_derive(gview *v, uint32_t file);
/* Read a file's stored bytes (go.mod, Cargo.toml) into out. */
lp_status lp_gv_content(gview *v, int64_t bid, lp_buf *out, lp_error *err);
/* Symbol helpers. */
const gsym *lp_gv_sym(gview *v, gpair p);
/* Whether symbol p is named qname (its kind into *kind). In an incremental view (not
 * preloaded) a file's blob is not loaded for this: one primary-key row instead of every
 * symbol and reference of the file (most candidates of a qualified lookup fail the test). */
bool lp_gv_sym_qname_is(gview *v, gpair p, const char *qname, int *kind);
bool lp_gv_is_type_kind(int kind);
bool lp_gv_is_callable_kind(int kind);
/* Go modules and Rust crates (loaded on first use). */
void lp_gv_load_modules(gview *v);

/* ------------------------------------------------------------------------------------------
 * Module resolution (modules.c). Results are file indexes, sorted. */
typedef LP_VEC(uint32_t) gfiles;

/* The files an import reference names (Python module, JS path, Go package directory, C
 * include, Rust module). *external is set when the module is clearly outside the
 * publication (bare npm package, system header not found, std crate...). */
void lp_gm_import_files(gview *v, uint32_t file, const gref *r, gfiles *out, bool *external);
/* Python: files of a dotted module ("a.b"), absolute or relative to file (leading dots). */
void lp_gm_python_module(gview *v, uint32_t file, const char *module, gfiles *out);
/* Go: the non-test files of the package at an import path. */
void lp_gm_go_package(gview *v, const char *path, gfiles *out);
/* The Go package of a file: files of its directory with the same package name. */
void lp_gm_go_same_package(gview *v, uint32_t file, gfiles *out);
/* Rust: files whose module path is `path` ("crate.a.b") within file's crate; the rest of
 * a longer path stays for the caller. */
void lp_gm_rust_module(gview *v, uint32_t file, const char *path, gfiles *out);
/* C/C++: files #included by file, transitively (not file itself), sorted. */
const u32_vec *lp_gm_include_closure(gview *v, uint32_t file);
/* JS/TS: the file a relative specifier names. */
int32_t lp_gm_js_resolve(gview *v, uint32_t file, const char *spec);

/* ------------------------------------------------------------------------------------------
 * Resolution (resolve.c). */
#define GR_MAX_TARGETS 16

/* The notes table: the outcome of a call or `new` reference that proved nothing, written
 * with the edges so call_graph summarises a symbol's evidence with one query instead of
 * resolving again. Unresolved: value = gr_reason; ambiguous: value = candidates found (the
 * candidates themselves are rule-0 CALLS rows of edges). */
#define GE_NOTE_UNRESOLVED 0
#define GE_NOTE_AMBIGUOUS 1

typedef struct gres {
    enum { GR_NONE = 0, GR_PROVED, GR_AMBIGUOUS, GR_UNRESOLVED } status;
    lp_edge_kind edge;
    uint16_t rule;   /* gr_rule when proved */
    uint16_t reason; /* gr_reason when unresolved */
    uint32_t ncand;  /* candidates found (ambiguous), may exceed ntargets */
    gpair targets[GR_MAX_TARGETS];
    uint32_t ntargets;
    bool tests;      /* also a TESTS edge (the source is a test) */
} gres;

/* Resolve reference r of file (r is one of the file's references, all kinds). */
void lp_gr_resolve(gview *v, uint32_t file, const gref *r, gres *out);
/* Is the source of a reference a test (test symbol, or a test file)? */
bool lp_gr_source_is_test(gview *v, uint32_t file, int32_t owner);

/* Edges a file has without a reference of its own (JS/TS exported declarations): calls
 * emit(ctx, src_ord, kind, target, rule) for each. */
void lp_gr_file_edges(gview *v, uint32_t file,
                   void (*emit)(void *ctx, int32_t ref_ord, int32_t src_ord, lp_edge_kind kind,
                                gpair dst, gr_rule rule),
                   void *ctx);

/* ------------------------------------------------------------------------------------------
 * Lookups (lookup.c), used by resolve.c. */
typedef gpair_vec cset;

typedef struct rctx {
    gview *v;
    uint32_t file;
    lp_lang lang;
    const gblob *b;
    int depth; /* recursion guard (re-exports, bases, qualifiers) */
} rctx;

enum { K_CALLABLE = 1, K_TYPE = 2, K_ANY = 4 };

/* What an import binding or a qualifier names. */
typedef struct binding {
    enum { B_NONE = 0, B_MODULE, B_SYMBOLS, B_EXTERNAL, B_MISSING } kind;
    gfiles files;
    cset syms;
} binding;

typedef struct lookup {
    cset cands;
    gr_rule rule;
    bool binding;   /* an import binds the name */
    binding module; /* ...to a module (or external) */
} lookup;

/* Language decisions come from the language's operations (lang.h, lp_lang_ops): its
 * module system and its resolution traits (LP_LANGG_*). */
static inline lp_lang_modsys gl_modsys(lp_lang l) { return lp_lang_ops_for(l)->modules; }
static inline bool gl_has(lp_lang l, uint32_t trait)
{
    return (lp_lang_ops_for(l)->graph & trait) != 0;
}
bool lp_gl_lang_is_js(lp_lang l);
bool lp_gl_lang_is_c(lp_lang l);
bool lp_gl_implicit_this(lp_lang l);
bool lp_gl_same_family(lp_lang a, lp_lang b);
const gsym *lp_gl_sym_of(rctx *rc, gpair p);
bool lp_gl_kind_ok(int kind, int want);
void lp_gl_in_file(rctx *rc, uint32_t file, const char *name, cset *out);
bool lp_gl_has_pair(const cset *s, gpair p);
void lp_gl_add_unique(cset *s, gpair p);
void lp_gl_sort_set(cset *s);
void lp_gl_set_unresolved(gres *out, gr_reason why);
void lp_gl_set_targets(gres *out, const cset *c, gr_rule rule);
void lp_gl_collapse_declarations(rctx *rc, cset *c);
void lp_gl_filter_kind(rctx *rc, cset *c, int want);
bool lp_gl_is_function_kind(int k);
bool lp_gl_is_container_kind(int k);
void lp_gl_binding_free(binding *b);
void lp_gl_lookup_free(lookup *l);
void lp_gl_top_level_named(rctx *rc, const gfiles *files, const char *name, int want, cset *out);
void lp_gl_by_qname(rctx *rc, const char *qname, int want, cset *out);
void lp_gl_reexported(rctx *rc, const gfiles *files, const char *name, int want, cset *out);
void lp_gl_resolve_import(rctx *rc, const gref *r, binding *out);
void lp_gl_c_definitions(rctx *rc, const gsym *decl, cset *out);
void lp_gl_bases_of(rctx *rc, gpair t, cset *out);
void lp_gl_members_of_type(rctx *rc, gpair t, const char *name, int want, cset *out, int *level);
void lp_gl_name_lookup(rctx *rc, int32_t owner, const char *name, int want, lookup *lk);
void lp_gl_type_lookup(rctx *rc, int32_t owner, const char *text, cset *out);
void lp_gr_qualifier(rctx *rc, int32_t owner, const char *qual, binding *out);

/* ------------------------------------------------------------------------------------------
 * Reading helpers for the tools (query.c). */
typedef lp_graph_sym gq_sym; /* graph.h */

/* The symbol with this id in the pinned publication (LP_EINVAL malformed, LP_ENOENT none,
 * LP_EAMBIGUOUS several). Strings in arena. */
lp_status lp_gq_symbol_by_id(lp_store *st, const char *id, lp_arena *arena, gq_sym *out,
                          lp_error *err);
/* The symbol (fid, ord); ord -1 gives a file pseudo-symbol (name = path). */
lp_status lp_gq_symbol_at(lp_store *st, int64_t fid, int32_t ord, lp_arena *arena, gq_sym *out,
                       lp_error *err);
/* A JSON string from text that may not be valid UTF-8 (bad bytes become U+FFFD). */
json_t *lp_gq_json_str(const char *p);
/* o[key] = the file path (and o[key + "Bytes"] when it is not UTF-8, lp_json_set_path);
 * returns o (NULL stays NULL) so it can wrap an lp_json_pack. */
json_t *lp_gq_with_file(json_t *o, const char *key, const char *path);
/* JSON {id, name, qualifiedName, kind, file, startLine, endLine} (file pseudo-symbols:
 * kind "file", id null). */
json_t *lp_gq_sym_json(const gq_sym *s);
/* A relative path given by the caller (file:<path> ids, pathPrefix) fails closed: LP_EPATH
 * for a NUL byte (len differs from strlen), an absolute path, a ".." component, or more than
 * LP_PATH_MAX bytes. It is only ever matched against published paths, never opened. */
lp_status lp_gq_check_rel_arg(const char *what, const char *p, size_t len, lp_error *err);
/* Argument helpers (validated already by the schema when called through MCP; the CLI
 * builds the same objects). */
const char *lp_gq_arg_str(const json_t *args, const char *key);
int64_t lp_gq_arg_int(const json_t *args, const char *key, int64_t dflt, int64_t min, int64_t max);
bool lp_gq_arg_bool(const json_t *args, const char *key, bool dflt);
void lp_gq_warn(json_t *out, lp_warn w, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Language of a file id. */
lp_lang lp_gq_file_lang(lp_store *st, int64_t fid);
/* Capabilities note for a set of languages (bitmask of 1 << lang): what they cannot see. */
json_t *lp_gq_caps_for_langs(uint32_t langs);

#endif
