/*
 * lang.h: the contract of src/lang: language detection, parsing with tree-sitter, symbol
 * extraction and owner-bounded chunking. Turns one file's bytes into evidence.
 *
 * Everything here is a pure function of (language, content, options): no I/O, no global
 * mutable state after lp_lang_init, safe to call from several threads at once (each call
 * uses its own parser from a per-thread cache). Output lives in the caller's arena.
 *
 * Positions: byte offsets are into the file's UTF-8 bytes, half-open [start, end);
 * lines are 1-based and inclusive.
 *
 * Qualified names (lp_symbol.qname) are '.'-joined in every language, C++ namespaces and
 * Rust modules included (store.detail.helper, not store::detail::helper):
 *   - a package/namespace clause that is not a block (Go `package http`, Java `package
 *     a.b;`, C# `namespace A.B;`, Scala `package a.b`) is a symbol of its own (kind
 *     package/namespace, owning no chunk) whose name prefixes every later qname of the
 *     file: http.Server.ListenAndServe; block namespaces/modules/packages contain and
 *     qualify their members like types do;
 *   - members attached by name rather than by nesting take their owner from the syntax:
 *     Go receivers (http.Server.ListenAndServe), Rust `impl Type` / `impl Trait for Type`
 *     blocks, C++ out-of-class definitions (`void ns::Foo::bar()` -> ns.Foo.bar), JS
 *     `Foo.prototype.bar = function`; their parent is that type when this file declares
 *     it, else the enclosing symbol (-1 at top level) while the qname still names the
 *     type;
 *   - anonymous things: Java anonymous classes are classes named "<anonymous>",
 *     `export default function () {}` is named "default";
 *   - documents: heading paths joined with " > " ("Install > From source").
 * Language specifics (kinds, visibility rules, test conventions) are documented at the
 * top of each src/lang/lang_<language>.c.
 */
#ifndef LP_LANG_H
#define LP_LANG_H

#include "core/core.h"

/* Languages. Values are stored in the database: append only, never renumber. */
typedef enum lp_lang {
    LP_LANG_TEXT = 0, /* searchable text, no symbols */
    LP_LANG_PYTHON = 1,
    LP_LANG_JAVASCRIPT = 2, /* .js .mjs .cjs .jsx */
    LP_LANG_TYPESCRIPT = 3, /* .ts .mts .cts */
    LP_LANG_TSX = 4,
    LP_LANG_GO = 5,
    LP_LANG_RUST = 6,
    LP_LANG_JAVA = 7,
    LP_LANG_C = 8,
    LP_LANG_CPP = 9,
    LP_LANG_CSHARP = 10,
    LP_LANG_SCALA = 11,
    LP_LANG_MARKDOWN = 12,
    LP_LANG_RST = 13,
    LP_LANG_COUNT
} lp_lang;

/* Symbol kinds. Stored: append only. */
typedef enum lp_symkind {
    LP_SYM_MODULE = 0,
    LP_SYM_NAMESPACE,
    LP_SYM_PACKAGE,
    LP_SYM_CLASS,
    LP_SYM_STRUCT,
    LP_SYM_INTERFACE,
    LP_SYM_TRAIT,
    LP_SYM_ENUM,
    LP_SYM_RECORD,
    LP_SYM_UNION,
    LP_SYM_FUNCTION,
    LP_SYM_METHOD,
    LP_SYM_CONSTRUCTOR,
    LP_SYM_PROPERTY,
    LP_SYM_FIELD,
    LP_SYM_CONSTANT,
    LP_SYM_TYPE_ALIAS,
    LP_SYM_MACRO,
    LP_SYM_OBJECT,  /* Scala object */
    LP_SYM_SECTION, /* a documentation heading */
    LP_SYM_ENUM_MEMBER,
    LP_SYM_VARIABLE, /* module-level binding that is not a constant */
    LP_SYM_KIND_COUNT
} lp_symkind;

typedef enum lp_visibility {
    LP_VIS_UNKNOWN = 0, /* the syntax does not say */
    LP_VIS_PUBLIC = 1,  /* exported / public */
    LP_VIS_PRIVATE = 2, /* private, unexported, static (C), file-local */
    LP_VIS_PROTECTED = 3,
    LP_VIS_INTERNAL = 4 /* C# internal, Rust pub(crate), Java package-private */
} lp_visibility;

typedef struct lp_span {
    uint32_t start_byte, end_byte; /* half-open */
    uint32_t start_line, end_line; /* 1-based, inclusive; 0 when the span is absent */
} lp_span;

typedef struct lp_symbol {
    lp_symkind kind;
    const char *name;  /* the declared name: "refresh" */
    const char *qname; /* qualified within the file's own namespace: "auth.Session.refresh"
                          (package/namespace/module declared in the file, then types, then
                          the member); a path-derived module prefix is NOT included */
    lp_span span;      /* the whole definition, decorators/attributes/annotations and doc
                          comment excluded; modifiers, `export`, `template<...>` included */
    lp_span sig;       /* the signature: from the definition start to the body start (or
                          the whole span, or up to a value spanning lines) */
    lp_span doc;       /* attached doc comment (the run of comments directly above, no
                          blank line between) or Python docstring; start_line 0 when none */
    int32_t parent;    /* index in the symbols array, -1 for top level; usually before
                          this symbol, but a type a method is attached to by name (Go
                          receiver, Rust impl, C++ Foo::bar) may come later in the file */
    uint32_t ordinal;  /* 0, 1, ... among symbols of this file with equal (qname, kind,
                          LP_SYMF_DECLARATION): declarations (prototypes) are counted apart
                          from definitions, so adding or removing a prototype does not
                          renumber a definition */
    lp_visibility vis;
    uint32_t flags; /* LP_SYMF_* */
} lp_symbol;

#define LP_SYMF_ASYNC 0x1u
#define LP_SYMF_STATIC 0x2u
#define LP_SYMF_ABSTRACT 0x4u
#define LP_SYMF_DECLARATION 0x8u /* a prototype / declaration without a body */
#define LP_SYMF_TEST 0x10u       /* a test function/class by the language's conventions */
#define LP_SYMF_DEFAULT_EXPORT 0x20u

/* The kind number that enters a symbol's stable id key (lp_symbol_key in src/store): the
 * kind itself for definitions, kind + LP_SYMKEY_DECL_OFFSET for declarations, so that a
 * prototype and its definition (same qname, kind and ordinal 0) never share an id. */
#define LP_SYMKEY_DECL_OFFSET 0x100
static inline int lp_symbol_key_kind(lp_symkind kind, uint32_t flags)
{
    return (int)kind + ((flags & LP_SYMF_DECLARATION) ? LP_SYMKEY_DECL_OFFSET : 0);
}

typedef enum lp_chunk_kind {
    LP_CHUNK_CODE = 0,    /* source owned by a symbol */
    LP_CHUNK_MODULE = 1,  /* module-level text no symbol owns */
    LP_CHUNK_SECTION = 2, /* a documentation section */
    LP_CHUNK_TEXT = 3     /* paragraphs of a text file */
} lp_chunk_kind;

/* Chunks. A symbol owns chunks when it is top level or has a body (functions, types,
 * namespaces...); a nested symbol without a body (field, enum member, prototype in a
 * class) stays in its owner's text. An owner's text is its source (doc comment and
 * decorators included) with the bodies of owners nested in it replaced by a marker
 * ("{ … }" or "…") and their doc comments dropped, so a class chunk lists its methods'
 * signatures but not their bodies. Text longer than the bound is cut into windows of whole
 * lines that overlap (a line longer than the byte bound is cut inside). Text no symbol
 * owns becomes module chunks (owner -1); module text without any letter or digit (a
 * closing "}" of an impl block) is dropped. Every line of the file holding a letter or
 * digit lies in some chunk's span. Sections own the text up to the next heading; text
 * files are paragraphs packed into bounded chunks. */
typedef struct lp_chunk {
    int32_t owner;      /* symbol index, or -1 (module text / plain text) */
    lp_chunk_kind kind;
    lp_span span;       /* the source bytes this chunk covers (bounding: elided bodies of
                           nested owners inside it included) */
    const char *text;   /* the searchable text: the owner's own source with nested symbols'
                           bodies elided (their signature lines kept); NUL-terminated;
                           at most chunk_max_bytes plus markers */
    size_t text_len;
} lp_chunk;

/* References: what a code file's syntax says it points at (calls, constructor calls,
 * imports, base types, exports, test names). They are raw, file-local facts; the code
 * graph (src/graph) resolves them across files into edges or keeps them as unresolved or
 * ambiguous evidence. Kinds are stored: append only. */
typedef enum lp_refkind {
    LP_REF_CALL = 0,     /* a call: name = the callee's last name, qual = what precedes it
                            ("self", "os.path", "pkg", "a.b" for Rust/C++ paths a::b) */
    LP_REF_NEW = 1,      /* a constructor call (new Foo(), Foo{...} in Go): name = the type */
    LP_REF_IMPORT = 2,   /* one binding of an import/include/use/require: qual = the module
                            as written ("os.path", "./util", "net/http", "a/b.h"), name = the
                            imported member ("" = the module itself, "*" = everything),
                            alias = the local name it is bound to ("" when none) */
    LP_REF_BASE = 3,     /* a base type named in a type declaration (extends, implements,
                            base list, Go embedding): owner = the type, name = the base's last
                            name, qual = the whole base as written (generics dropped) */
    LP_REF_EXPORT = 4,   /* an export list entry or re-export: name = the exported name,
                            alias = the name it is exported as, qual = the module re-exported
                            from ("" for a local export) */
    LP_REF_TESTNAME = 5, /* a test's name names what it tests (test_parse -> parse,
                            TestServe -> Serve, FooTest -> Foo): owner = the test */
    LP_REF_KIND_COUNT
} lp_refkind;

/* Reference flags. */
#define LP_REFF_SELF 0x1u        /* receiver is self/this/Self or the method's receiver */
#define LP_REFF_SUPER 0x2u       /* receiver is super/base (a base type's member) */
#define LP_REFF_SHADOWED 0x4u    /* the callee name (or the receiver's first name) is a local
                                    binding of an enclosing function: never a definition */
#define LP_REFF_UNTYPED 0x8u     /* receiver is a local binding whose type the source does not
                                    show (or shows several) */
#define LP_REFF_COMPLEX 0x10u    /* receiver is an expression (call result, index, literal,
                                    attribute of a local...) */
#define LP_REFF_TYPED 0x20u      /* receiver is a local whose type the function shows: rtype */
#define LP_REFF_RTYPE_CALL 0x40u /* rtype was inferred from `x = Foo(...)`: a type only when
                                    Foo turns out to be a type */
#define LP_REFF_PATH 0x80u       /* qual is a path (Rust a::b::f, C++ ns::f, Scala/Java a.b) */
#define LP_REFF_RELATIVE 0x100u  /* import: relative (Python dots, JS ./ ../) */
#define LP_REFF_WILDCARD 0x200u  /* import: every member (from m import *, a.b.*, using A.B;) */
#define LP_REFF_SYSTEM 0x400u    /* import: #include <...> */
#define LP_REFF_STATIC 0x800u    /* import: Java static import, C# using static */
#define LP_REFF_DEFAULT 0x1000u  /* import: JS default import; export: default export */
#define LP_REFF_NAMESPACE 0x2000u /* import: JS `import * as ns`, C++ `using namespace` */
#define LP_REFF_MODDECL 0x4000u  /* import: Rust `mod x;` (a child module file) */
#define LP_REFF_MACRO 0x8000u    /* call: a macro invocation (Rust foo!()) */
#define LP_REFF_CONVERSION 0x10000u /* call: the callee may be a type conversion (Go T(x)) */

#define LP_REF_ARGS_MAX 160 /* bytes of argument text kept per call */

typedef struct lp_ref {
    lp_refkind kind;
    int32_t owner;     /* index of the innermost enclosing symbol, -1 at file level */
    const char *name;  /* see lp_refkind; never NULL */
    const char *qual;  /* see lp_refkind; "" when none */
    const char *alias; /* imports and exports; "" when none */
    const char *rtype; /* calls: the receiver's type as the source shows it ("Foo",
                          "pkg.Foo"), or for self/this calls the enclosing type's name */
    const char *args;  /* calls: argument text, whitespace collapsed, at most
                          LP_REF_ARGS_MAX bytes; "" when none */
    int32_t nargs;     /* calls: number of arguments, -1 when unknown */
    uint32_t flags;    /* LP_REFF_* */
    lp_span span;      /* the call expression / import statement / base name */
} lp_ref;

const char *lp_refkind_name(lp_refkind k); /* "call", "new", "import", ... */

typedef struct lp_parse_opts {
    uint32_t chunk_max_lines; /* 0 = default 60 */
    uint32_t chunk_max_bytes; /* 0 = default 2400 */
    uint32_t chunk_overlap_lines; /* 0 = default 8 (clamped below chunk_max_lines) */
    bool no_refs; /* skip reference extraction (lp_parse_result.refs stays empty) */
    /* The budget of one code file's parse: tree-sitter's memory plus the symbols extracted
     * (bytes), and wall time (ms); 0 = no limit. Past either, the file is kept as text
     * (parse_budget set, no symbols). lp_parse_budget_default gives the settings. */
    uint64_t budget_bytes;
    uint64_t budget_ms;
} lp_parse_opts;

/* The parse budget from the environment: LOUPE_PARSE_BUDGET_MB (default 256; 0 = no limit)
 * and LOUPE_PARSE_BUDGET_MS (default 30000; 0 = no limit). */
void lp_parse_budget_default(uint64_t *bytes, uint64_t *ms);

typedef struct lp_parse_result {
    lp_lang lang;
    bool partial_parse; /* the tree had syntax errors; symbols are what could be parsed
                           (none, and text chunks, for a Scala file whose lines are too
                           long for its grammar's scanner: see parse.c) */
    const char *parse_budget; /* NULL, or what ran out ("memory", "time"): the file went
                                 past lp_parse_opts' budget and is kept as text (text chunks,
                                 no symbols, no references) */
    lp_symbol *symbols; /* in source order of span.start_byte; a symbol's enclosing symbols
                           precede it (see lp_symbol.parent for by-name parents); symbols
                           nested more than 64 deep are not emitted (their text stays in
                           the enclosing owner's chunks) */
    size_t nsymbols;
    lp_chunk *chunks; /* in source order */
    size_t nchunks;
    lp_ref *refs; /* code languages: in source order of span start (imports, calls...);
                     none for text and docs, nor when reference extraction is disabled
                     (lp_parse_opts.no_refs, or LOUPE_TEST_NO_GRAPH=1 in the environment) */
    size_t nrefs;
    uint32_t content_flags; /* LP_CONTENT_* (lp_lang_content_flags of the content) */
} lp_parse_result;

/* What a file's bytes say about its role, whatever its language (computed once per blob by
 * lp_parse; stored with the blob's evidence):
 *   LP_CONTENT_GENERATED  a comment line near the top (first 4 KiB) says the file is
 *                         generated: "Code generated ... DO NOT EDIT", "@generated",
 *                         "<auto-generated", or "generated" with "DO NOT EDIT"
 *   LP_CONTENT_MINIFIED   at least 1 KiB with very long lines (mean over 300 bytes and one
 *                         over 1,000) or one line over 4 KiB with under 8% white space */
#define LP_CONTENT_GENERATED 0x1u
#define LP_CONTENT_MINIFIED 0x2u
uint32_t lp_lang_content_flags(lp_str content);

/* Routes tree-sitter's allocations through lp_xmalloc and friends (exhaustion ends the
 * process with LP_EXIT_OOM and a clear message, not tree-sitter's abort). Call it before
 * the first parse (the CLI does at start-up; the index build does too). Per-language
 * runtimes (compiled queries) are built on first use under a lock. Idempotent, thread-safe. */
void lp_lang_init(void);
/* Release per-thread parser caches of the calling thread (call before a worker exits). */
void lp_lang_thread_release(void);

const char *lp_lang_name(lp_lang l); /* "python", "typescript", "tsx", "c-sharp"... */
/* By name as lp_lang_name prints it, plus common aliases (py, js, ts, golang, rs, c++, cs,
 * csharp, md); LP_LANG_COUNT when unknown. */
lp_lang lp_lang_from_name(lp_str name);
bool lp_lang_has_symbols(lp_lang l); /* true for the ten code languages and docs */
const char *lp_symkind_name(lp_symkind k); /* "function", "type_alias", ... */
lp_symkind lp_symkind_from_name(lp_str name); /* LP_SYM_KIND_COUNT when unknown */

/* Language of a file from its relative path and its first bytes (8 KiB suffice): by
 * extension; a .h file is C unless its head holds C++ constructs (class X {, namespace,
 * template<, ::, public:, outside comments, strings and preprocessor lines); a file
 * without extension by its #! line (python, node, deno). Everything else is
 * LP_LANG_TEXT. */
lp_lang lp_lang_detect(lp_str relpath, lp_str head);

/* Parse one file. Never fails on bad syntax (partial_parse is set instead); fails only on
 * bad arguments (LP_EINVAL), input over 64 MiB (LP_ETOOBIG) or a build defect (a query
 * that does not compile). Any bytes are accepted (invalid UTF-8, NUL, CRLF). All output
 * memory (arrays, names, qnames, chunk texts) comes from `arena` and lives until it is
 * released or rewound. */
lp_status lp_parse(lp_lang lang, lp_str content, const lp_parse_opts *opts, lp_arena *arena,
                   lp_parse_result *out, lp_error *err);

/* Debugging aid: the tree-sitter syntax tree of content, one node per line with its field
 * name and byte range, appended to out. With out NULL it only parses (the benchmark's
 * baseline: tree-sitter's own cost). LP_EUNSUPPORTED for text and docs. */
lp_status lp_parse_tree_dump(lp_lang lang, lp_str content, lp_buf *out, lp_error *err);

/* ------------------------------------------------------------------------------------------
 * Per-language operations. Everything loupe decides by language outside the extractor is
 * a field of the language's lp_lang_ops, filled in by the language's own file
 * (src/lang/lang_<name>.c; text in lang.c, Markdown and reST in docs.c) and registered in
 * lang.c's table: names, file detection, the test-file convention, and what the code graph
 * (src/graph) needs to resolve the language's references. src/graph holds the resolution
 * strategies (scopes, module systems, receivers); a language picks them here, so a new
 * language that fits existing strategies is one file plus its queries (docs/ARCHITECTURE.md,
 * "Adding a language"). Static data: borrowed, immutable, thread-safe. */

/* How imports name files and modules (graph/modules.c and graph/lookup.c implement each). */
typedef enum lp_lang_modsys {
    LP_MODSYS_NONE = 0, /* no code graph (text, documents) */
    LP_MODSYS_PYTHON,   /* dotted modules over folders, packages are __init__ files, relative
                           dots; `import a.b` binds a */
    LP_MODSYS_ES,       /* ES modules and require(): relative paths, extension and index
                           probing, export lists and re-exports */
    LP_MODSYS_GO,       /* a package is a folder; go.mod maps import paths to folders; the
                           package's files share one scope */
    LP_MODSYS_INCLUDE,  /* #include: textual inclusion, declarations visible through the
                           transitive include closure, definitions matched to declarations */
    LP_MODSYS_PACKAGES, /* declared packages / namespaces; imports name qualified symbols
                           (Java, Scala, C#) */
    LP_MODSYS_RUST,     /* the mod tree of a crate (Cargo.toml), use paths from crate, self,
                           super */
} lp_lang_modsys;

/* Resolution traits (lp_lang_ops.graph): each says how the language's rules read one
 * construct; docs/graph-rules.md states the rules. */
#define LP_LANGG_IMPLICIT_THIS 0x1u     /* a bare name inside a class may be a member */
#define LP_LANGG_CALL_CONSTRUCTS 0x2u   /* Foo(...) on a type constructs it */
#define LP_LANGG_CALL_CONVERTS 0x4u     /* T(x) on a type is a conversion, not a call */
#define LP_LANGG_NEW_ANY_VALUE 0x8u     /* `new X` takes any value (class, function,
                                           constant), not only types */
#define LP_LANGG_SHARED_MEMBERS 0x10u   /* fields and methods share one namespace: a field
                                           hides a base's method of that name */
#define LP_LANGG_MODULE_REEXPORTS 0x20u /* a module's member may be a re-export of another's */
#define LP_LANGG_IMPORTS_ARE_MEMBERS 0x40u /* a module's own top-level imports are members
                                              others can import from it (Python) */
#define LP_LANGG_WILDCARD_NO_TARGET 0x80u /* an import of everything (`*`) names a package
                                             or namespace: no single file to point at */
#define LP_LANGG_QUALIFIED_TYPES 0x100u /* a qualifier may be a fully qualified type name */
#define LP_LANGG_NAMESPACE_PATHS 0x200u /* ns::f paths: qualified names among the caller's
                                           visible declarations (C++) */
#define LP_LANGG_NAMESPACE_PARENTS 0x400u /* code in namespace A.B.C also sees A.B and A */
#define LP_LANGG_PACKAGE_BY_NAME 0x800u /* a file's package is the package clause's name,
                                           not its qualified name (Go) */
#define LP_LANGG_NAMESPACE_IS_PACKAGE 0x1000u /* the first top-level namespace is the file's
                                                 package (C#) */
#define LP_LANGG_MACRO_TEXTUAL 0x2000u /* macros are visible textually: defined earlier in
                                          the file, in an enclosing module (macro_rules!) */
#define LP_LANGG_THIS_CONSTRUCTOR 0x4000u /* `this(...)` in an auxiliary constructor calls
                                             another constructor (Scala) */

struct lp_lang_spec; /* the extractor's hooks (lang_int.h) */

typedef struct lp_lang_ops {
    lp_lang lang;
    const char *name;                   /* "python", "c-sharp" (lp_lang_name) */
    const char *const *aliases;         /* other names lp_lang_from_name accepts; NULL ends */
    const char *const *extensions;      /* ".py", ... (case-sensitive); NULL ends */
    const char *const *interpreters;    /* #! words of a file without extension ("python") */
    /* A file with one of the extensions may still be another language: given the
     * extension and the file's head, the language it is (C's .h may be C++). NULL: this
     * language. */
    lp_lang (*detect_head)(lp_str ext, lp_str head);
    const struct lp_lang_spec *spec;    /* the extractor (NULL: no grammar) */
    /* Files of one family may call each other's symbols (JavaScript/TypeScript/TSX, C/C++):
     * the family's first language; a language alone is its own family. */
    lp_lang family;
    lp_lang_modsys modules;
    uint32_t graph;                     /* LP_LANGG_* */
    /* Test files by name: is a file with this base name (extension removed) a test?
     * (Folders named test, tests, __tests__, spec, specs, testdata hold tests for every
     * language.) NULL: no convention. */
    bool (*test_stem)(lp_str stem);
    /* The name an import binds in its file when it has no alias (name: the imported member,
     * "" for the module itself; qual: the module as written; both NUL-terminated, the
     * result points into one of them). NULL: the name. */
    lp_str (*import_binds)(const char *name, const char *qual);
    /* The module path of a file from its path (relative to the root, or for LP_MODSYS_RUST
     * to its crate's folder): Python a/b/__init__.py -> a.b, Rust src/a/mod.rs ->
     * crate.a. NULL: no module path. Appends to out. */
    void (*module_path)(lp_str rel, lp_buf *out);
    /* The file an import of a package itself names (Python `from . import x`: "__init__");
     * NULL: "index" (JS '.'). */
    const char *package_stem;
    /* What the graph's rules cover and cannot see (call_graph and status say it; an absent
     * edge proves nothing); exports: whether EXPORTS edges are proved. */
    const char *graph_covers, *graph_blind;
    bool graph_exports;
} lp_lang_ops;

/* The registry (lang.c): every entry set, in lp_lang order. */
extern const lp_lang_ops *const lp_lang_registry[LP_LANG_COUNT];
/* The operations of a language: never NULL (text's for an unknown value). Inline: the
 * graph asks per reference. */
static inline const lp_lang_ops *lp_lang_ops_for(lp_lang l)
{
    return lp_lang_registry[(unsigned)l < LP_LANG_COUNT ? l : LP_LANG_TEXT];
}
/* True for the languages with a code graph (a module system: the ten code languages). */
static inline bool lp_lang_has_graph(lp_lang l)
{
    return lp_lang_ops_for(l)->modules != LP_MODSYS_NONE;
}

/* LP_PARSER_VERSION and LP_EXTRACTOR_VERSION (core/versions.h) enter the publication
 * fingerprint: bump them when this module's output changes. */

#endif
