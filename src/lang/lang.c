/*
 * lang.c: the language registry: names, detection, the per-language runtime (compiled
 * query and node-type tables, built once under a lock and immutable after), the
 * per-thread parser cache, and lp_parse, which glues extraction and chunking together.
 *
 * Invariants: a runtime, once published (ready flag set with release order), is never
 * written again; per-thread objects are only touched by their thread.
 */
#include "lang/lang_int.h"
#include "lang/refs_int.h"

#include <malloc.h>

#include <pthread.h>
#include <stdatomic.h>

/* ------------------------------------------------------------------------------------------
 * The registry: each language's operations, defined in its own file (lang.h, lp_lang_ops). */

extern const lp_lang_ops lp_ops_python, lp_ops_javascript, lp_ops_typescript, lp_ops_tsx,
    lp_ops_go, lp_ops_rust, lp_ops_java, lp_ops_c, lp_ops_cpp, lp_ops_csharp, lp_ops_scala,
    lp_ops_markdown, lp_ops_rst;

static const char *const text_aliases[] = {"txt", NULL};

static const lp_lang_ops ops_text = {
    .lang = LP_LANG_TEXT,
    .name = "text",
    .aliases = text_aliases,
    .family = LP_LANG_TEXT,
    .graph_covers = "no relationships: this file type has no code graph",
    .graph_blind = "everything: text and documents have no symbols to relate",
};

/* In lp_lang order: detection tries extensions and #! words in this order. */
const lp_lang_ops *const lp_lang_registry[LP_LANG_COUNT] = {
    [LP_LANG_TEXT] = &ops_text,           [LP_LANG_PYTHON] = &lp_ops_python,
    [LP_LANG_JAVASCRIPT] = &lp_ops_javascript, [LP_LANG_TYPESCRIPT] = &lp_ops_typescript,
    [LP_LANG_TSX] = &lp_ops_tsx,          [LP_LANG_GO] = &lp_ops_go,
    [LP_LANG_RUST] = &lp_ops_rust,        [LP_LANG_JAVA] = &lp_ops_java,
    [LP_LANG_C] = &lp_ops_c,              [LP_LANG_CPP] = &lp_ops_cpp,
    [LP_LANG_CSHARP] = &lp_ops_csharp,    [LP_LANG_SCALA] = &lp_ops_scala,
    [LP_LANG_MARKDOWN] = &lp_ops_markdown, [LP_LANG_RST] = &lp_ops_rst,
};


/* ------------------------------------------------------------------------------------------
 * Names. */

const char *lp_lang_name(lp_lang l)
{
    return (unsigned)l < LP_LANG_COUNT ? lp_lang_registry[l]->name : "unknown";
}

static bool str_in(lp_str s, const char *const *list)
{
    for (; list && *list; list++)
        if (lp_str_eq_c(s, *list))
            return true;
    return false;
}

lp_lang lp_lang_from_name(lp_str name)
{
    for (int l = 0; l < LP_LANG_COUNT; l++)
        if (lp_str_eq_c(name, lp_lang_registry[l]->name))
            return (lp_lang)l;
    for (int l = 0; l < LP_LANG_COUNT; l++)
        if (str_in(name, lp_lang_registry[l]->aliases))
            return (lp_lang)l;
    return LP_LANG_COUNT;
}

bool lp_lx_test_stem_snake(lp_str stem)
{
    return lp_str_starts_with(stem, LP_STR("test_")) || lp_str_ends_with(stem, LP_STR("_test")) ||
           lp_str_ends_with(stem, LP_STR("_unittest"));
}

bool lp_lx_test_stem_xunit(lp_str stem)
{
    return lp_str_ends_with(stem, LP_STR("Test")) || lp_str_ends_with(stem, LP_STR("Tests")) ||
           lp_str_ends_with(stem, LP_STR("Spec")) || lp_str_ends_with(stem, LP_STR("Suite"));
}

bool lp_lang_has_symbols(lp_lang l) { return l > LP_LANG_TEXT && l < LP_LANG_COUNT; }

static const char *const kind_names[LP_SYM_KIND_COUNT] = {
    [LP_SYM_MODULE] = "module",       [LP_SYM_NAMESPACE] = "namespace",
    [LP_SYM_PACKAGE] = "package",     [LP_SYM_CLASS] = "class",
    [LP_SYM_STRUCT] = "struct",       [LP_SYM_INTERFACE] = "interface",
    [LP_SYM_TRAIT] = "trait",         [LP_SYM_ENUM] = "enum",
    [LP_SYM_RECORD] = "record",       [LP_SYM_UNION] = "union",
    [LP_SYM_FUNCTION] = "function",   [LP_SYM_METHOD] = "method",
    [LP_SYM_CONSTRUCTOR] = "constructor", [LP_SYM_PROPERTY] = "property",
    [LP_SYM_FIELD] = "field",         [LP_SYM_CONSTANT] = "constant",
    [LP_SYM_TYPE_ALIAS] = "type_alias", [LP_SYM_MACRO] = "macro",
    [LP_SYM_OBJECT] = "object",       [LP_SYM_SECTION] = "section",
    [LP_SYM_ENUM_MEMBER] = "enum_member", [LP_SYM_VARIABLE] = "variable",
};

const char *lp_symkind_name(lp_symkind k)
{
    return (unsigned)k < LP_SYM_KIND_COUNT ? kind_names[k] : "unknown";
}

lp_symkind lp_symkind_from_name(lp_str name)
{
    for (int k = 0; k < LP_SYM_KIND_COUNT; k++)
        if (lp_str_eq_c(name, kind_names[k]))
            return (lp_symkind)k;
    return LP_SYM_KIND_COUNT;
}

/* ------------------------------------------------------------------------------------------
 * Detection. */

static bool is_ident_char(unsigned char c)
{
    return c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* Does a .h file's head hold C++ constructs? Comments, strings and preprocessor lines
 * are skipped; a few tokens that C never has decide. */
bool lp_lx_head_looks_cpp(lp_str h)
{
    const unsigned char *p = (const unsigned char *)h.ptr, *e = p + h.len;
    bool line_start = true;
    while (p < e) {
        unsigned char c = *p;
        if (c == '\n') {
            line_start = true;
            p++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r') {
            p++;
            continue;
        }
        if (line_start && c == '#') { /* preprocessor line, with continuations */
            while (p < e && *p != '\n') {
                if (*p == '\\' && p + 1 < e && p[1] == '\n')
                    p++;
                p++;
            }
            continue;
        }
        line_start = false;
        if (c == '/' && p + 1 < e && p[1] == '/') {
            while (p < e && *p != '\n')
                p++;
            continue;
        }
        if (c == '/' && p + 1 < e && p[1] == '*') {
            p += 2;
            while (p + 1 < e && !(p[0] == '*' && p[1] == '/'))
                p++;
            p += 2;
            continue;
        }
        if (c == '"' || c == '\'') {
            p++;
            while (p < e && *p != c && *p != '\n') {
                if (*p == '\\')
                    p++;
                p++;
            }
            p++;
            continue;
        }
        if (c == ':' && p + 1 < e && p[1] == ':')
            return true;
        if (is_ident_char(c) && !(c >= '0' && c <= '9')) {
            const unsigned char *w = p;
            while (p < e && is_ident_char(*p))
                p++;
            size_t n = (size_t)(p - w);
            const unsigned char *q = p;
            while (q < e && (*q == ' ' || *q == '\t'))
                q++;
            unsigned char next = q < e ? *q : 0;
#define WORD(lit) (n == sizeof(lit) - 1 && memcmp(w, lit, n) == 0)
            if ((WORD("public") || WORD("private") || WORD("protected")) && next == ':')
                return true;
            if (WORD("template") && next == '<')
                return true;
            if (WORD("namespace") && (is_ident_char(next) || next == '{'))
                return true;
            if (WORD("class") && is_ident_char(next)) {
                /* class Name followed by {, :, ; or final */
                while (q < e && is_ident_char(*q))
                    q++;
                while (q < e && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'))
                    q++;
                if (q < e && (*q == '{' || *q == ':' || *q == ';' || *q == 'f'))
                    return true;
            }
#undef WORD
            continue;
        }
        p++;
    }
    return false;
}

static lp_lang from_shebang(lp_str head)
{
    if (head.len < 3 || head.ptr[0] != '#' || head.ptr[1] != '!')
        return LP_LANG_COUNT;
    size_t eol = lp_str_find_char(head, '\n', 0);
    lp_str line = lp_str_sub(head, 2, eol == SIZE_MAX ? head.len : eol);
    for (int l = 0; l < LP_LANG_COUNT; l++) {
        for (const char *const *w = lp_lang_registry[l]->interpreters; w && *w; w++) {
            size_t wl = strlen(*w);
            for (size_t j = 0; j + wl <= line.len; j++)
                if (memcmp(line.ptr + j, *w, wl) == 0 &&
                    (j == 0 || line.ptr[j - 1] == '/' || line.ptr[j - 1] == ' '))
                    return (lp_lang)l;
        }
    }
    return LP_LANG_COUNT;
}

lp_lang lp_lang_detect(lp_str relpath, lp_str head)
{
    lp_str ext = lp_path_ext(relpath);
    if (ext.len) {
        for (int l = 0; l < LP_LANG_COUNT; l++) {
            const lp_lang_ops *o = lp_lang_registry[l];
            if (str_in(ext, o->extensions))
                return o->detect_head ? o->detect_head(ext, head) : (lp_lang)l;
        }
    }
    if (ext.len == 0) {
        lp_lang l = from_shebang(head);
        if (l != LP_LANG_COUNT)
            return l;
    }
    return LP_LANG_TEXT;
}

/* ------------------------------------------------------------------------------------------
 * Runtime: compiled queries and node-type tables. */

const lp_lang_spec *lp_lang_spec_for(lp_lang l)
{
    return lp_lang_ops_for(l)->spec;
}

static pthread_mutex_t rt_lock = PTHREAD_MUTEX_INITIALIZER;
static lx_lang_rt rts[LP_LANG_COUNT];
static atomic_int rt_ready[LP_LANG_COUNT]; /* 0 not built, 1 ready, -1 failed */
static lp_error rt_errors[LP_LANG_COUNT];

static bool name_in(const char *name, const char *const *list)
{
    if (!list)
        return false;
    for (; *list; list++)
        if (!strcmp(name, *list))
            return true;
    return false;
}

/* Mark the node types that root a pattern: read the type name right after the pattern's
 * opening parenthesis (or each alternative of a top-level [...]). */
static void mark_roots(lx_lang_rt *rt, const char *src, size_t len)
{
    uint32_t np = ts_query_pattern_count(rt->query);
    for (uint32_t i = 0; i < np; i++) {
        size_t p = ts_query_start_byte_for_pattern(rt->query, i);
        size_t end = ts_query_end_byte_for_pattern(rt->query, i);
        if (end > len)
            end = len;
        int depth = 0;
        bool alt = p < end && src[p] == '[';
        for (size_t j = p; j < end; j++) {
            char c = src[j];
            if (c == ';') { /* comment to end of line */
                while (j < end && src[j] != '\n')
                    j++;
                continue;
            }
            if (c == '"') {
                for (j++; j < end && src[j] != '"'; j++)
                    if (src[j] == '\\')
                        j++;
                continue;
            }
            if (c == '[' || c == '(') {
                depth++;
                bool root = c == '(' && (alt ? depth == 2 : depth == 1);
                if (root) {
                    size_t k = j + 1;
                    while (k < end && (is_ident_char((unsigned char)src[k]) || src[k] == '.'))
                        k++;
                    size_t n = k - (j + 1);
                    for (uint32_t s = 0; s < rt->nsymbols; s++) {
                        const char *sn = ts_language_symbol_name(rt->ts, (TSSymbol)s);
                        if (sn && strlen(sn) == n && memcmp(sn, src + j + 1, n) == 0)
                            rt->sym_flags[s] |= LX_SYMF_ROOT;
                    }
                }
            } else if (c == ']' || c == ')') {
                depth--;
                if (depth == 0)
                    break;
            }
        }
    }
}

static lp_status rt_build(lp_lang l, lx_lang_rt *rt, lp_error *err)
{
    const lp_lang_spec *spec = lp_lang_spec_for(l);
    if (!spec)
        return lp_error_set(err, LP_EUNSUPPORTED, "no parser for language %s", lp_lang_name(l));
    /* <name>.scm, with <name>-refs.scm (reference patterns, refs.c) appended */
    lp_embedded_query qsrc = {spec->query_name, NULL, 0}, *eq = &qsrc;
    char *owned = NULL;
    lp_lx_refs_query_source(spec->query_name, &qsrc.src, &qsrc.len, &owned, &rt->has_refs);
    if (!eq->src)
        return lp_error_set(err, LP_ERROR, "no embedded query for %s (build defect)",
                            spec->query_name);
    rt->spec = spec;
    rt->ts = spec->ts_language();
    uint32_t eoff = 0;
    TSQueryError etype = TSQueryErrorNone;
    rt->query = ts_query_new(rt->ts, eq->src, (uint32_t)eq->len, &eoff, &etype);
    if (!rt->query) {
        uint32_t line = 1;
        for (uint32_t i = 0; i < eoff && i < eq->len; i++)
            line += eq->src[i] == '\n';
        free(owned);
        return lp_error_set(err, LP_ERROR,
                            "query %s.scm%s does not compile: error %d at line %u of the two",
                            spec->query_name, rt->has_refs ? " + -refs.scm" : "", (int)etype,
                            line);
    }
    rt->nsymbols = ts_language_symbol_count(rt->ts);
    rt->sym_flags = lp_xcalloc(rt->nsymbols, 1);
    for (uint32_t s = 0; s < rt->nsymbols; s++) {
        const char *name = ts_language_symbol_name(rt->ts, (TSSymbol)s);
        if (!name)
            continue;
        if (name_in(name, spec->comment_types))
            rt->sym_flags[s] |= LX_SYMF_COMMENT;
        if (name_in(name, spec->attribute_types))
            rt->sym_flags[s] |= LX_SYMF_ATTRIBUTE;
        if (name_in(name, spec->decoration_types))
            rt->sym_flags[s] |= LX_SYMF_DECORATION;
        if (name_in(name, spec->decoration_containers))
            rt->sym_flags[s] |= LX_SYMF_DECO_CONTAINER;
        if (spec->recover && name_in(name, spec->recover_types))
            rt->sym_flags[s] |= LX_SYMF_RECOVER;
        if (spec->excise && name_in(name, spec->excise_types))
            rt->sym_flags[s] |= LX_SYMF_EXCISE;
        if (name_in(name, spec->local_types))
            rt->sym_flags[s] |= LX_SYMF_LOCAL;
    }
    mark_roots(rt, eq->src, eq->len);
    free(owned);
    uint32_t ncap = ts_query_capture_count(rt->query);
    rt->capture_role = lp_xcalloc(ncap ? ncap : 1, 1);
    rt->capture_kind = lp_xcalloc(ncap ? ncap : 1, sizeof(lp_symkind));
    rt->capture_ref = lp_xcalloc(ncap ? ncap : 1, 1);
    for (uint32_t c = 0; c < ncap; c++) {
        uint32_t n = 0;
        const char *name = ts_query_capture_name_for_id(rt->query, c, &n);
        lp_str s = lp_str_n(name, n);
        if (lp_str_starts_with(s, LP_STR("definition."))) {
            lp_symkind k = lp_symkind_from_name(lp_str_sub(s, 11, s.len));
            if (k == LP_SYM_KIND_COUNT)
                return lp_error_set(err, LP_ERROR, "query %s.scm: unknown kind in @%.*s",
                                    spec->query_name, (int)n, name);
            rt->capture_role[c] = LX_CAP_DEF;
            rt->capture_kind[c] = k;
        } else if (lp_str_eq_c(s, "scope")) {
            rt->capture_role[c] = LX_CAP_SCOPE;
        } else if (lp_str_eq_c(s, "name")) {
            rt->capture_role[c] = LX_CAP_NAME;
        } else if (lp_str_eq_c(s, "body")) {
            rt->capture_role[c] = LX_CAP_BODY;
        } else if (lp_str_eq_c(s, "value")) {
            rt->capture_role[c] = LX_CAP_VALUE;
        } else if (lp_str_eq_c(s, "qualifier")) {
            rt->capture_role[c] = LX_CAP_QUALIFIER;
        } else {
            bool bad = false;
            rt->capture_ref[c] = lp_lx_refs_capture_role(s, &bad);
            if (bad)
                return lp_error_set(err, LP_ERROR, "query %s-refs.scm: unknown capture @%.*s",
                                    spec->query_name, (int)n, name);
        }
    }
    return LP_OK;
}

const lx_lang_rt *lp_lang_rt_get(lp_lang l, lp_error *err)
{
    if ((unsigned)l >= LP_LANG_COUNT || !lp_lang_spec_for(l)) {
        lp_error_set(err, LP_EUNSUPPORTED, "no parser for language %s", lp_lang_name(l));
        return NULL;
    }
    int st = atomic_load_explicit(&rt_ready[l], memory_order_acquire);
    if (st == 0) {
        pthread_mutex_lock(&rt_lock);
        st = atomic_load_explicit(&rt_ready[l], memory_order_relaxed);
        if (st == 0) {
            lp_status rc = rt_build(l, &rts[l], &rt_errors[l]);
            st = rc ? -1 : 1;
            atomic_store_explicit(&rt_ready[l], st, memory_order_release);
        }
        pthread_mutex_unlock(&rt_lock);
    }
    if (st < 0) {
        if (err)
            *err = rt_errors[l];
        return NULL;
    }
    return &rts[l];
}

/* tree-sitter allocates through loupe's allocators: on exhaustion (a memory cap) the process
 * ends with the clear out-of-memory message and LP_EXIT_OOM instead of tree-sitter's abort(). */
static pthread_once_t ts_alloc_once = PTHREAD_ONCE_INIT;

static _Thread_local int64_t tl_ts_live;

/* Counting wrappers: the parse budget needs to know how much one parse holds. */
static void *ts_count_malloc(size_t n)
{
    void *p = lp_xmalloc(n);
    tl_ts_live += (int64_t)malloc_usable_size(p);
    return p;
}

static void *ts_count_calloc(size_t n, size_t size)
{
    void *p = lp_xcalloc(n, size);
    tl_ts_live += (int64_t)malloc_usable_size(p);
    return p;
}

static void *ts_count_realloc(void *old, size_t n)
{
    int64_t before = old ? (int64_t)malloc_usable_size(old) : 0;
    void *p = lp_xrealloc(old, n);
    tl_ts_live += (int64_t)malloc_usable_size(p) - before;
    return p;
}

static void ts_count_free(void *p)
{
    if (p)
        tl_ts_live -= (int64_t)malloc_usable_size(p);
    free(p);
}

int64_t lp_lx_ts_live_bytes(void) { return tl_ts_live; }

static _Thread_local lx_budget *tl_budget;

lx_budget *lp_lx_budget_current(void) { return tl_budget; }

void lp_lx_budget_arm(lx_budget *b)
{
    tl_budget = b;
    if (b) {
        b->ts_start = tl_ts_live;
        b->t0_ns = lp_now_ns();
        b->over = NULL;
    }
}

bool lp_lx_budget_spent(lx_budget *b, uint64_t extra_bytes)
{
    if (!b)
        return false;
    if (b->over)
        return true;
    int64_t ts = tl_ts_live - b->ts_start;
    if (b->max_bytes && (uint64_t)(ts > 0 ? ts : 0) + extra_bytes > b->max_bytes)
        b->over = "memory";
    else if (b->max_ms && (lp_now_ns() - b->t0_ns) / 1000000 > b->max_ms)
        b->over = "time";
    return b->over != NULL;
}

static void ts_alloc_setup(void)
{
    ts_set_allocator(ts_count_malloc, ts_count_calloc, ts_count_realloc, ts_count_free);
}

void lp_lang_init(void) { pthread_once(&ts_alloc_once, ts_alloc_setup); }

/* ------------------------------------------------------------------------------------------
 * Per-thread parsers. */

static _Thread_local TSParser *tl_parsers[LP_LANG_COUNT];
static _Thread_local TSQueryCursor *tl_cursor;

TSParser *lp_lang_thread_parser(lp_lang l)
{
    if (!tl_parsers[l]) {
        const lx_lang_rt *rt = lp_lang_rt_get(l, NULL);
        if (!rt)
            return NULL;
        TSParser *p = ts_parser_new();
        if (!ts_parser_set_language(p, rt->ts)) {
            ts_parser_delete(p);
            return NULL;
        }
        tl_parsers[l] = p;
    }
    return tl_parsers[l];
}

TSQueryCursor *lp_lang_thread_cursor(void)
{
    if (!tl_cursor) {
        tl_cursor = ts_query_cursor_new();
        ts_query_cursor_set_max_start_depth(tl_cursor, 0);
    }
    return tl_cursor;
}

void lp_lang_thread_release(void)
{
    for (int l = 0; l < LP_LANG_COUNT; l++) {
        if (tl_parsers[l])
            ts_parser_delete(tl_parsers[l]);
        tl_parsers[l] = NULL;
    }
    if (tl_cursor)
        ts_query_cursor_delete(tl_cursor);
    tl_cursor = NULL;
}
