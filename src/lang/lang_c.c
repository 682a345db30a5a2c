/*
 * lang_c.c: C's hook, and the C constructs shared with C++ (lang_cpp.c).
 *
 * - names come from declarator chains (`struct s *(*get)(void)` and the like);
 * - a function definition is a function; a declaration whose declarator is a function
 *   declarator is a prototype (function, declaration flag); other declarations outside
 *   functions are variables (constants when `const` and not a pointer), `extern` ones
 *   declarations; locals are dropped;
 * - `typedef struct {...} point;` is the struct `point` (span: the whole typedef);
 *   `typedef struct s {...} s_t;` is the struct `s` plus the type alias `s_t`;
 *   `typedef struct s s_t;` is a type alias;
 * - `#define` (object-like and function-like) are macros;
 * - visibility: `static` is private (with the static flag); other functions and globals
 *   have external linkage (public); types, fields and macros say nothing (unknown);
 * - macros tree-sitter cannot see through (C and C++ share this): a function defined by a
 *   file-level macro call (`SYSCALL_DEFINE3(waitpid, ...) {`, `BPF_CALL_2(name, ...)`)
 *   is named by its first argument; words before the name that tree-sitter reads as a
 *   declaration of their own (`phys_addr_t __init_memblock name(void)`) belong to the
 *   function; a macro in place of a keyword (`} while_each_thread(p, t);`) that leaves a
 *   body unclosed or flattens the rest of the file into ERROR nodes is survived by
 *   recovery (lp_lx_c_recover): definitions end at their matching brace and functions are
 *   found again from their declarators, column-0 declaration lines, or macro calls
 *   followed by `{`; `class EXPORT_MACRO Name {` is re-parsed without the macro.
 */
#include "lang/lang_int.h"
#include "lang/refs_int.h"

#include <ctype.h>

const TSLanguage *tree_sitter_c(void);

static bool is_name_node(TSNode n)
{
    static const char *const names[] = {"identifier", "field_identifier", "type_identifier",
                                        "qualified_identifier", "destructor_name",
                                        "operator_name", "template_function",
                                        "primitive_type", NULL};
    const char *t = ts_node_type(n);
    for (const char *const *p = names; *p; p++)
        if (!strcmp(t, *p))
            return true;
    return false;
}

/* A qualified name that tree-sitter repaired with a MISSING "::" (`FMT_CONSTEXPR
 * basic_fp<F> normalize(...)`, a macro before the return type): the part before the
 * missing separator is the macro and the type, not a scope; the name is what follows. */
static TSNode drop_repaired_scope(TSNode n)
{
    TSNode cur = n, result = n;
    for (int guard = 0; guard < 64 && lx_is(cur, "qualified_identifier"); guard++) {
        TSNode name = ts_node_child_by_field_name(cur, "name", 4);
        uint32_t cnt = ts_node_child_count(cur);
        for (uint32_t i = 0; i < cnt; i++)
            if (ts_node_is_missing(ts_node_child(cur, i))) {
                result = name;
                break;
            }
        cur = name;
    }
    return ts_node_is_null(result) ? n : result;
}

TSNode lp_lx_c_declarator_name(TSNode d, bool *is_function)
{
    bool saw_fn = false, fn_ptr = false;
    TSNode none;
    memset(&none, 0, sizeof(none));
    for (int guard = 0; guard < 64 && !ts_node_is_null(d); guard++) {
        if (is_name_node(d)) {
            if (is_function)
                *is_function = saw_fn && !fn_ptr;
            return lx_is(d, "qualified_identifier") ? drop_repaired_scope(d) : d;
        }
        const char *t = ts_node_type(d);
        if (!strcmp(t, "operator_cast")) { /* C++ `operator int() const` */
            if (is_function)
                *is_function = true;
            return d;
        }
        if (!strcmp(t, "function_declarator")) {
            TSNode inner = ts_node_child_by_field_name(d, "declarator", 10);
            if (!saw_fn) {
                saw_fn = true;
                fn_ptr = lx_is(inner, "parenthesized_declarator");
            }
            d = inner;
        } else if (!strcmp(t, "parenthesized_declarator")) {
            d = ts_node_named_child(d, 0);
        } else {
            TSNode inner = ts_node_child_by_field_name(d, "declarator", 10);
            if (ts_node_is_null(inner) && ts_node_named_child_count(d) > 0)
                inner = ts_node_named_child(d, ts_node_named_child_count(d) - 1);
            if (ts_node_eq(inner, d))
                break;
            d = inner;
        }
    }
    return none;
}

lp_str lp_lx_c_name_text(const lx_ctx *cx, TSNode name)
{
    lp_str t = lx_text(cx, name);
    /* a conversion operator's node runs over its parameters: `operator int() const` */
    TSNode cast = name;
    for (int guard = 0; guard < 64 && lx_is(cast, "qualified_identifier"); guard++)
        cast = ts_node_child_by_field_name(cast, "name", 4);
    if (lx_is(cast, "operator_cast")) {
        TSNode decl = ts_node_child_by_field_name(cast, "declarator", 10);
        if (!ts_node_is_null(decl) && ts_node_start_byte(decl) > ts_node_start_byte(name))
            t = lp_str_trim((lp_str){t.ptr, ts_node_start_byte(decl) - ts_node_start_byte(name)});
    }
    return t;
}

bool lp_lx_c_has_specifier(const lx_ctx *cx, TSNode node, const char *word)
{
    bool found = false;
    TSTreeCursor c = ts_tree_cursor_new(node);
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode ch = ts_tree_cursor_current_node(&c);
            const char *t = ts_node_type(ch);
            if ((!strcmp(t, "storage_class_specifier") || !strcmp(t, "type_qualifier") ||
                 !strcmp(t, "virtual") || !strcmp(t, "function_specifier")) &&
                lp_str_eq_c(lx_text(cx, ch), word)) {
                found = true;
                break;
            }
            if (!strcmp(t, word) && !ts_node_is_named(ch)) { /* keyword tokens */
                found = true;
                break;
            }
        } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    return found;
}

static bool in_function(const lx_ctx *cx)
{
    const lx_sym *c = lp_lx_container(cx);
    return c && (c->kind == LP_SYM_FUNCTION || c->kind == LP_SYM_METHOD ||
                 c->kind == LP_SYM_CONSTRUCTOR);
}

/* The aggregate specifier (struct/union/enum with a body) a typedef defines, if any. */
static TSNode typedef_body_specifier(TSNode typedef_node)
{
    TSNode t = ts_node_child_by_field_name(typedef_node, "type", 4);
    if ((lx_is(t, "struct_specifier") || lx_is(t, "union_specifier") ||
         lx_is(t, "enum_specifier") || lx_is(t, "class_specifier")) &&
        !ts_node_is_null(ts_node_child_by_field_name(t, "body", 4)))
        return t;
    TSNode none;
    memset(&none, 0, sizeof(none));
    return none;
}

/* ------------------------------------------------------------------------------------------
 * Recovery. tree-sitter's C grammar cannot parse what macros make of C (`do { } while_each_
 * thread(p, t);`, `SYSCALL_DEFINE3(name, type, arg, ...) {`); past such a point its error
 * recovery may flatten the rest of a file into ERROR nodes whose children are the pieces
 * of the functions that follow (specifiers, a function declarator, loose statements). A
 * function is recovered where a function declarator inside an ERROR node (or a file-level
 * macro call without its `;`) is followed by `{`: its body runs to the matching `}`. */

static bool is_space_c(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The next byte at or after pos that is not whitespace or a comment; len when none. */
static uint32_t skip_blank(const char *src, uint32_t len, uint32_t pos)
{
    while (pos < len) {
        if (is_space_c(src[pos])) {
            pos++;
        } else if (src[pos] == '/' && pos + 1 < len && src[pos + 1] == '/') {
            while (pos < len && src[pos] != '\n')
                pos++;
        } else if (src[pos] == '/' && pos + 1 < len && src[pos + 1] == '*') {
            pos += 2;
            while (pos + 1 < len && !(src[pos] == '*' && src[pos + 1] == '/'))
                pos++;
            pos = pos + 2 < len ? pos + 2 : len;
        } else {
            break;
        }
    }
    return pos;
}

/* The directive word of a preprocessor line starting at p ('#'), and where it ends. */
static lp_str pp_word(const char *src, uint32_t len, uint32_t p)
{
    p++;
    while (p < len && (src[p] == ' ' || src[p] == '\t'))
        p++;
    uint32_t a = p;
    while (p < len && ((src[p] >= 'a' && src[p] <= 'z')))
        p++;
    return (lp_str){src + a, p - a};
}

/* End of the (backslash-continued) line starting at p: the index of its '\n' or len. */
static uint32_t line_end(const char *src, uint32_t len, uint32_t p)
{
    while (p < len && src[p] != '\n') {
        if (src[p] == '\\' && p + 1 < len && src[p + 1] == '\n')
            p++;
        p++;
    }
    return p;
}

uint32_t lp_lx_c_match_brace(const char *src, uint32_t len, uint32_t open)
{
    int depth = 0;
    int pp_open = 0; /* #if opened since the scan started */
    bool line_start = false;
    for (uint32_t i = open; i < len; i++) {
        char c = src[i];
        if (c == '\n') {
            line_start = true;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r')
            continue;
        if (c == '#' && line_start) {
            lp_str w = pp_word(src, len, i);
            if (lp_str_eq_c(w, "if") || lp_str_eq_c(w, "ifdef") || lp_str_eq_c(w, "ifndef")) {
                pp_open++;
            } else if ((lp_str_eq_c(w, "else") || lp_str_eq_c(w, "elif")) && pp_open > 0) {
                /* read only the first branch: skip to the matching #endif */
                int nest = 0;
                uint32_t j = line_end(src, len, i); /* the '\n' ending the #else line */
                for (;;) {
                    if (j >= len)
                        return 0;
                    uint32_t k = j + 1;
                    while (k < len && (src[k] == ' ' || src[k] == '\t'))
                        k++;
                    bool done = false;
                    if (k < len && src[k] == '#') {
                        lp_str w2 = pp_word(src, len, k);
                        if (lp_str_starts_with(w2, LP_STR("if")))
                            nest++;
                        else if (lp_str_eq_c(w2, "endif") && nest-- == 0)
                            done = true;
                    }
                    j = line_end(src, len, k);
                    if (done)
                        break;
                }
                pp_open--;
                i = j - 1; /* the loop's i++ lands on the '\n' ending the #endif line */
                line_start = false;
                continue;
            } else if (lp_str_eq_c(w, "endif") && pp_open > 0) {
                pp_open--;
            }
            i = line_end(src, len, i) - 1;
            line_start = false;
            continue;
        }
        line_start = false;
        if (c == '/' && i + 1 < len && src[i + 1] == '/') {
            i = line_end(src, len, i) - 1;
        } else if (c == '/' && i + 1 < len && src[i + 1] == '*') {
            i += 2;
            while (i + 1 < len && !(src[i] == '*' && src[i + 1] == '/'))
                i++;
            i++;
        } else if (c == '"' || c == '\'') {
            for (i++; i < len && src[i] != c && src[i] != '\n'; i++)
                if (src[i] == '\\')
                    i++;
        } else if (c == '{') {
            depth++;
        } else if (c == '}') {
            if (--depth == 0)
                return i + 1;
        }
    }
    return 0;
}

static bool type_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == ' ' || c == '\t' || c == '*' || c == '&' || c == ':' || c == '<' ||
           c == '>' || c == ',';
}

/* Where a recovered function starts: back over the specifiers and return type written
 * before its declarator on the same line and on whole lines above (`static inline int\n`),
 * never before `floor`. */
static uint32_t recovered_start(const char *src, uint32_t decl, uint32_t floor)
{
    uint32_t p = decl;
    while (p > floor && src[p - 1] != '\n' && type_char(src[p - 1]))
        p--;
    if (p > floor && src[p - 1] == '\n') { /* whole lines of type words above */
        for (;;) {
            uint32_t e = p - 1; /* the '\n' ending the previous line */
            uint32_t b = e;
            while (b > floor && src[b - 1] != '\n')
                b--;
            if (b == e || b < floor)
                break;
            bool ok = true;
            for (uint32_t k = b; k < e && ok; k++)
                ok = type_char(src[k]) || src[k] == '\r';
            uint32_t last = e;
            while (last > b && is_space_c(src[last - 1]))
                last--;
            if (!ok || last == b || src[last - 1] == ',' || src[b] == ' ' || src[b] == '\t')
                break;
            p = b;
            if (p <= floor || p == 0)
                break;
        }
    }
    while (p < decl && is_space_c(src[p]))
        p++;
    return p;
}

/* Are the words in [a, b) a declaration's specifiers and type (not `namespace std`,
 * `class Foo`, `return x`...)? */
static bool type_words(const char *src, uint32_t a, uint32_t b)
{
    static const char *const not_types[] = {"namespace", "class", "enum", "typedef", "return",
                                            "using", "else", "case", "goto", "new", "delete",
                                            "throw", "sizeof", "do", "if", "while", "for",
                                            "switch", NULL};
    uint32_t i = a;
    while (i < b) {
        while (i < b && !(isalnum((unsigned char)src[i]) || src[i] == '_'))
            i++;
        uint32_t w = i;
        while (i < b && (isalnum((unsigned char)src[i]) || src[i] == '_'))
            i++;
        for (const char *const *k = not_types; *k && w < i; k++)
            if (strlen(*k) == i - w && memcmp(src + w, *k, i - w) == 0)
                return false;
    }
    return true;
}

static bool in_function_c(const lx_ctx *cx)
{
    for (int32_t c = cx->container; c >= 0; c = cx->syms.items[c].container) {
        lp_symkind k = cx->syms.items[c].kind;
        if (k == LP_SYM_FUNCTION || k == LP_SYM_METHOD || k == LP_SYM_CONSTRUCTOR)
            return true;
    }
    return false;
}

/* Past the `)` matching the `(` at open (comments and strings skipped), or 0. */
static uint32_t match_paren(const char *src, uint32_t len, uint32_t open)
{
    int depth = 0;
    for (uint32_t i = open; i < len; i++) {
        char c = src[i];
        if (c == '/' && i + 1 < len && (src[i + 1] == '/' || src[i + 1] == '*')) {
            i = skip_blank(src, len, i) - 1;
        } else if (c == '"' || c == '\'') {
            for (i++; i < len && src[i] != c && src[i] != '\n'; i++)
                if (src[i] == '\\')
                    i++;
        } else if (c == '(') {
            depth++;
        } else if (c == ')' && --depth == 0) {
            return i + 1;
        } else if (c == ';' || c == '{' || c == '}') {
            return 0; /* not a parameter list */
        }
    }
    return 0;
}

/* A macro's name by convention: upper case, digits and underscores, with a letter. */
static bool macro_name(lp_str n)
{
    if (n.len < 2)
        return false;
    for (size_t i = 0; i < n.len; i++)
        if (!(isupper((unsigned char)n.ptr[i]) || isdigit((unsigned char)n.ptr[i]) ||
              n.ptr[i] == '_'))
            return false;
    return isupper((unsigned char)n.ptr[0]);
}

static bool set_recovered(lx_ctx *cx, TSNode node, TSNode name, uint32_t start, uint32_t open,
                          lx_def *d)
{
    if (open >= cx->len || cx->src[open] != '{')
        return false;
    uint32_t end = lp_lx_c_match_brace(cx->src, cx->len, open);
    if (!end)
        return false;
    d->node = node;
    d->name = name;
    d->kind = LP_SYM_FUNCTION;
    d->recovered = true;
    d->rec_start = start;
    d->rec_body_start = open;
    d->rec_end = end;
    return true;
}

/* How far back a recovered start may reach: never over the previous symbol. */
static uint32_t prev_floor(const lx_ctx *cx, uint32_t at)
{
    if (!cx->syms.len)
        return 0;
    const lx_sym *prev = &cx->syms.items[cx->syms.len - 1];
    uint32_t floor = prev->end <= at ? prev->end : prev->start;
    return floor > at ? at : floor;
}

bool lp_lx_c_recover(lx_ctx *cx, TSNode node, lx_def *d)
{
    if (cx->depth == 0)
        return false;
    /* cheap tests first: this runs at every identifier, call and statement */
    TSNode parent = cx->anc[cx->depth - 1];
    bool in_error = ts_node_is_error(parent);
    const char *type = ts_node_type(node);
    bool is_stmt = type[0] == 'e' && !strcmp(type, "expression_statement");
    if (is_stmt && !in_error && !lx_is(parent, "translation_unit") &&
        strncmp(ts_node_type(parent), "preproc_", 8) != 0)
        return false;
    if (!in_error && !is_stmt) {
        /* a declaration read as an expression (`struct task_struct *f(char *buf) {` as a
         * product) in statements no function owns: the rest of a function whose body
         * was cut at its matching brace */
        if (type[0] != 'c' || strcmp(type, "call_expression") != 0)
            return false;
        uint32_t open = skip_blank(cx->src, cx->len, ts_node_end_byte(node));
        if (open >= cx->len || cx->src[open] != '{')
            return false;
        bool lost = false;
        for (uint32_t k = 1; k <= 6 && k <= cx->depth && !lost; k++) {
            TSNode a = cx->anc[cx->depth - k];
            lost = ts_node_is_error(a) || lx_is(a, "compound_statement");
        }
        if (!lost)
            return false;
    }
    lp_lx_sync_container(cx);
    if (in_function_c(cx))
        return false;
    uint32_t at = ts_node_start_byte(node);
    uint32_t floor = prev_floor(cx, at);
    if (lx_is(node, "function_declarator")) {
        TSNode name = lp_lx_c_declarator_name(node, NULL);
        if (ts_node_is_null(name) || ts_node_is_missing(name))
            return false;
        return set_recovered(cx, node, name, recovered_start(cx->src, at, floor),
                             skip_blank(cx->src, cx->len, ts_node_end_byte(node)), d);
    }
    if (lx_is(node, "call_expression") || lx_is(node, "identifier")) {
        /* `static long do_wait(struct wait_opts *wo) {` read as a call, or as loose
         * tokens, inside an ERROR node: a declaration whose line starts at column 0 with
         * type words before the name (or a whole line of them above it), then a
         * parenthesized list and `{`. An indented line is a statement in a body. */
        TSNode name = node;
        if (lx_is(node, "call_expression")) {
            name = ts_node_child_by_field_name(node, "function", 8);
            if (!lx_is(name, "identifier"))
                return false;
        }
        uint32_t start = recovered_start(cx->src, at, floor);
        bool col0 = at == 0 || cx->src[at - 1] == '\n';
        lp_str macro_arg = {NULL, 0};
        if (start == at && col0 && macro_name(lx_text(cx, name))) {
            /* SYSCALL_DEFINE5(waitid, ...) { at column 0: named by its first argument */
            uint32_t p = skip_blank(cx->src, cx->len, ts_node_end_byte(name));
            if (p < cx->len && cx->src[p] == '(') {
                p = skip_blank(cx->src, cx->len, p + 1);
                uint32_t q = p;
                while (q < cx->len && (isalnum((unsigned char)cx->src[q]) || cx->src[q] == '_'))
                    q++;
                if (q > p && !isdigit((unsigned char)cx->src[p]))
                    macro_arg = (lp_str){cx->src + p, q - p};
            }
        } else if (start == at || (start > 0 && cx->src[start - 1] != '\n') ||
                   !type_words(cx->src, start, at)) {
            return false;
        }
        uint32_t paren = skip_blank(cx->src, cx->len, ts_node_end_byte(name));
        if (paren >= cx->len || cx->src[paren] != '(')
            return false;
        uint32_t close = match_paren(cx->src, cx->len, paren);
        if (!close)
            return false;
        if (!set_recovered(cx, node, name, start, skip_blank(cx->src, cx->len, close), d))
            return false;
        d->rec_name = macro_arg;
        /* C++ `std::string Foo::bar(...)` in loose tokens: keep the `Foo::` qualifier */
        uint32_t q = at;
        while (q >= start + 2 && cx->src[q - 1] == ':' && cx->src[q - 2] == ':') {
            uint32_t w = q - 2;
            while (w > start && (isalnum((unsigned char)cx->src[w - 1]) || cx->src[w - 1] == '_'))
                w--;
            if (w == q - 2)
                break;
            q = w;
        }
        if (q < at && !macro_arg.len)
            d->rec_name = (lp_str){cx->src + q, ts_node_end_byte(name) - q};
        return true;
    }
    if (is_stmt) {
        /* a file-level macro call without `;` followed by a block: SYSCALL_DEFINE1(acct,
         * ...) { ... } is the function named by its first argument (acct) (the parent
         * was checked above: the file, a preprocessor conditional or an ERROR node) */
        TSNode call = ts_node_named_child(node, 0);
        if (!lx_is(call, "call_expression") || ts_node_named_child_count(node) != 1)
            return false;
        uint32_t cnt = ts_node_child_count(node);
        if (cnt == 0 || !ts_node_is_missing(ts_node_child(node, cnt - 1)))
            return false;
        TSNode fn = ts_node_child_by_field_name(call, "function", 8);
        TSNode args = ts_node_child_by_field_name(call, "arguments", 9);
        if (!lx_is(fn, "identifier") || ts_node_is_null(args))
            return false;
        TSNode first = ts_node_named_child(args, 0);
        return set_recovered(cx, node, lx_is(first, "identifier") ? first : fn, at,
                             skip_blank(cx->src, cx->len, ts_node_end_byte(node)), d);
    }
    return false;
}

/* A function definition whose declarator declares no function is a misparse around a
 * macro: `iterator end() const _GLIBCXX_NOEXCEPT {` (the real declarator sits in an
 * ERROR child, the macro became the declarator) or `phys_addr_t __init_memblock
 * name(void) {` (the name became the type, `(void)` the declarator). The name it really
 * defines, or `name` unchanged. */
static TSNode repair_function_name(lx_ctx *cx, TSNode root, TSNode name)
{
    uint32_t cnt = ts_node_child_count(root);
    for (uint32_t i = 0; i < cnt; i++) {
        TSNode ch = ts_node_child(root, i);
        if (!ts_node_is_error(ch))
            continue;
        uint32_t m = ts_node_named_child_count(ch);
        for (uint32_t k = m; k-- > 0;) {
            TSNode g = ts_node_named_child(ch, k);
            if (lx_is(g, "function_declarator")) {
                bool f = false;
                TSNode n = lp_lx_c_declarator_name(g, &f);
                if (!ts_node_is_null(n) && f)
                    return n;
            }
        }
    }
    TSNode type = ts_node_child_by_field_name(root, "type", 4);
    TSNode decl = ts_node_child_by_field_name(root, "declarator", 10);
    if ((lx_is(type, "type_identifier") || lx_is(type, "identifier")) &&
        lx_is(decl, "parenthesized_declarator")) {
        /* the type is the name only when it directly precedes the parameters */
        uint32_t e = ts_node_end_byte(type), p = ts_node_start_byte(decl);
        bool adjacent = true;
        for (uint32_t i = e; i < p && adjacent; i++)
            adjacent = is_space_c(cx->src[i]);
        if (adjacent)
            return type;
    }
    return name;
}

/* A body tree-sitter could not close (a macro in place of a keyword: `} while_each_
 * thread(p, t);`) may run over the definitions that follow: end it at its matching brace
 * (a class misread as a function also takes its `;`). */
static void cut_at_matching_brace(const lx_ctx *cx, TSNode root, lx_sym *s)
{
    if (!s->has_body || !ts_node_has_error(root) || s->body_start >= cx->len ||
        cx->src[s->body_start] != '{')
        return;
    uint32_t end = lp_lx_c_match_brace(cx->src, cx->len, s->body_start);
    if (!end || end >= s->body_end)
        return;
    s->body_end = end;
    if (lp_lx_kind_is_type(s->kind)) {
        uint32_t semi = skip_blank(cx->src, cx->len, end);
        if (semi < cx->len && cx->src[semi] == ';')
            end = semi + 1;
    }
    s->end = end;
}

/* `class CPPCHECKLIB Foo : public Bar {` (an export macro before the name) reads as a
 * function definition whose type is `class CPPCHECKLIB` and whose body is the class
 * body: it is the class (struct, union) named by the first identifier after the macro. */
static bool misparsed_class(lx_ctx *cx, TSNode root, lx_sym *s)
{
    TSNode type = ts_node_child_by_field_name(root, "type", 4);
    lp_symkind kind;
    if (lx_is(type, "class_specifier"))
        kind = LP_SYM_CLASS;
    else if (lx_is(type, "struct_specifier"))
        kind = LP_SYM_STRUCT;
    else if (lx_is(type, "union_specifier"))
        kind = LP_SYM_UNION;
    else
        return false;
    if (!ts_node_is_null(ts_node_child_by_field_name(type, "body", 4)) ||
        !macro_name(lx_text(cx, ts_node_child_by_field_name(type, "name", 4))))
        return false;
    uint32_t cnt = ts_node_child_count(root);
    TSNode name;
    memset(&name, 0, sizeof(name));
    for (uint32_t i = 0; i < cnt && ts_node_is_null(name); i++) {
        TSNode ch = ts_node_child(root, i);
        if (ts_node_start_byte(ch) < ts_node_end_byte(type))
            continue;
        if (lx_is(ch, "identifier") || lx_is(ch, "type_identifier"))
            name = ch;
        else if (ts_node_is_error(ch) && ts_node_named_child_count(ch) > 0 &&
                 (lx_is(ts_node_named_child(ch, 0), "identifier") ||
                  lx_is(ts_node_named_child(ch, 0), "type_identifier")) &&
                 ts_node_start_byte(ts_node_named_child(ch, 0)) == ts_node_start_byte(ch))
            name = ts_node_named_child(ch, 0);
        else
            break;
    }
    if (ts_node_is_null(name))
        return false;
    s->kind = kind;
    s->name = lx_text(cx, name);
    s->vis = LP_VIS_UNKNOWN;
    return s->name.len > 0;
}

bool lp_lx_c_excise(lx_ctx *cx, TSNode node, uint32_t *a, uint32_t *b)
{
    TSNode type = ts_node_child_by_field_name(node, "type", 4);
    if (!(lx_is(type, "class_specifier") || lx_is(type, "struct_specifier") ||
          lx_is(type, "union_specifier")) ||
        !ts_node_is_null(ts_node_child_by_field_name(type, "body", 4)))
        return false;
    TSNode macro = ts_node_child_by_field_name(type, "name", 4);
    if (!macro_name(lx_text(cx, macro)))
        return false;
    lx_sym probe;
    memset(&probe, 0, sizeof(probe));
    if (!misparsed_class(cx, node, &probe))
        return false;
    *a = ts_node_start_byte(macro);
    *b = ts_node_end_byte(macro);
    return true;
}

/* `phys_addr_t __init_memblock name(void) {`: tree-sitter reads the words before the name
 * as a declaration and invents its `;`; a declaration whose `;` is missing and whose line
 * goes on is part of the definition that follows, not a declaration. */
static bool junk_declaration(const lx_ctx *cx, TSNode root)
{
    uint32_t cnt = ts_node_child_count(root);
    if (cnt == 0)
        return false;
    TSNode last = ts_node_child(root, cnt - 1);
    if (!ts_node_is_missing(last))
        return false;
    for (uint32_t i = ts_node_end_byte(root); i < cx->len; i++) {
        if (cx->src[i] == '\n')
            return false;
        if (!is_space_c(cx->src[i]))
            return true;
    }
    return false;
}

bool lp_lx_c_refine(lx_ctx *cx, const lx_def *d, lx_sym *s)
{
    if (d->recovered) {
        s->name = d->rec_name.len ? d->rec_name : lp_lx_c_name_text(cx, d->name);
        if (!s->name.len)
            return false;
        /* `static` among the words before the name */
        uint32_t a = d->rec_start, b = ts_node_start_byte(d->name);
        bool st = false;
        for (uint32_t i = a; i + 6 <= b && !st; i++)
            st = memcmp(cx->src + i, "static", 6) == 0 &&
                 (i == a || !type_char(cx->src[i - 1]) || is_space_c(cx->src[i - 1])) &&
                 (i + 6 == b || is_space_c(cx->src[i + 6]));
        s->vis = st ? LP_VIS_PRIVATE : LP_VIS_PUBLIC;
        if (st)
            s->flags |= LP_SYMF_STATIC;
        s->sig_end = d->rec_body_start;
        while (s->sig_end > s->span_start && is_space_c(cx->src[s->sig_end - 1]))
            s->sig_end--;
        return true;
    }
    TSNode root = cx->leaf ? cx->anc[cx->depth] : d->node;
    const char *rtype = ts_node_type(root);
    bool is_fn = false;

    if (!strcmp(rtype, "function_definition")) {
        TSNode decl = ts_node_child_by_field_name(root, "declarator", 10);
        TSNode name = lp_lx_c_declarator_name(decl, &is_fn);
        if (!is_fn && misparsed_class(cx, root, s)) {
            cut_at_matching_brace(cx, root, s);
            return true;
        }
        if (!is_fn) {
            TSNode fixed = repair_function_name(cx, root, name);
            if (!ts_node_eq(fixed, name)) {
                /* the words before it on its line belong to it (`phys_addr_t
                 * __init_memblock` read as a declaration of its own) */
                uint32_t at = ts_node_start_byte(root);
                s->span_start = recovered_start(cx->src, at, prev_floor(cx, at));
                name = fixed;
            }
        }
        if (ts_node_is_null(name) || ts_node_is_missing(name))
            return false;
        s->name = lp_lx_c_name_text(cx, name);
        if (!s->name.len)
            return false;
        bool st = lp_lx_c_has_specifier(cx, root, "static");
        s->vis = st ? LP_VIS_PRIVATE : LP_VIS_PUBLIC;
        if (st)
            s->flags |= LP_SYMF_STATIC;
        cut_at_matching_brace(cx, root, s);
        return true;
    }
    if (!strcmp(rtype, "declaration")) { /* leaf: one declarator */
        if (in_function(cx) || junk_declaration(cx, root))
            return false;
        TSNode name = lp_lx_c_declarator_name(d->node, &is_fn);
        if (ts_node_is_null(name) || ts_node_is_missing(name))
            return false;
        s->name = lp_lx_c_name_text(cx, name);
        if (!s->name.len)
            return false;
        s->outer = root;
        bool st = lp_lx_c_has_specifier(cx, root, "static");
        bool ext = lp_lx_c_has_specifier(cx, root, "extern");
        if (is_fn) {
            s->kind = LP_SYM_FUNCTION;
            s->flags |= LP_SYMF_DECLARATION;
            /* a "prototype" whose `;` tree-sitter invented, followed by `{`: a definition
             * whose body the parse lost */
            uint32_t cnt = ts_node_child_count(root);
            if (cnt && ts_node_is_missing(ts_node_child(root, cnt - 1)) &&
                ts_node_named_child_count(root) <= 3) {
                uint32_t open = skip_blank(cx->src, cx->len, ts_node_end_byte(root));
                uint32_t end = open < cx->len && cx->src[open] == '{'
                                   ? lp_lx_c_match_brace(cx->src, cx->len, open)
                                   : 0;
                if (end) {
                    s->flags &= ~LP_SYMF_DECLARATION;
                    s->end = end;
                    s->has_body = true;
                    s->body_start = open;
                    s->body_end = end;
                    s->sig_end = ts_node_end_byte(root);
                }
            }
        } else {
            bool is_const = lp_lx_c_has_specifier(cx, root, "const") &&
                            !lx_is(d->node, "pointer_declarator") &&
                            !(lx_is(d->node, "init_declarator") &&
                              lx_is(ts_node_child_by_field_name(d->node, "declarator", 10),
                                    "pointer_declarator"));
            s->kind = is_const ? LP_SYM_CONSTANT : LP_SYM_VARIABLE;
            if (ext)
                s->flags |= LP_SYMF_DECLARATION;
        }
        s->vis = st ? LP_VIS_PRIVATE : LP_VIS_PUBLIC;
        if (st)
            s->flags |= LP_SYMF_STATIC;
        /* the signature of a variable stops before an initializer spanning lines */
        TSNode value = lx_is(d->node, "init_declarator")
                           ? ts_node_child_by_field_name(d->node, "value", 5)
                           : (TSNode){0};
        if (!ts_node_is_null(value)) {
            lp_str v = lx_text(cx, value);
            if (memchr(v.ptr, '\n', v.len))
                s->sig_end = ts_node_start_byte(value);
        }
        return true;
    }
    if (!strcmp(rtype, "field_declaration")) { /* leaf: one declarator */
        TSNode name = lp_lx_c_declarator_name(d->node, &is_fn);
        if (ts_node_is_null(name))
            return false;
        s->name = lp_lx_c_name_text(cx, name);
        s->outer = root;
        return true;
    }
    if (!strcmp(rtype, "type_definition")) { /* leaf: the declarator */
        TSNode name = lp_lx_c_declarator_name(d->node, NULL);
        if (ts_node_is_null(name))
            return false;
        s->name = lp_lx_c_name_text(cx, name);
        s->outer = root;
        TSNode spec = typedef_body_specifier(root);
        if (!ts_node_is_null(spec)) {
            /* an anonymous aggregate takes this name (see below): no alias; a named one
             * keeps both, and the aggregate owns the text */
            if (ts_node_is_null(ts_node_child_by_field_name(spec, "name", 4)))
                return false;
            s->no_chunk = true;
        }
        return true;
    }
    if (!strcmp(rtype, "struct_specifier") || !strcmp(rtype, "union_specifier") ||
        !strcmp(rtype, "enum_specifier") || !strcmp(rtype, "class_specifier")) {
        TSNode p1 = lp_lx_ancestor(cx, 1);
        if (lx_is(p1, "type_definition") &&
            ts_node_eq(ts_node_child_by_field_name(p1, "type", 4), d->node)) {
            s->outer = p1;
            if (ts_node_is_null(d->name)) {
                TSNode name =
                    lp_lx_c_declarator_name(ts_node_child_by_field_name(p1, "declarator", 10), NULL);
                s->name = lp_lx_c_name_text(cx, name);
            }
        }
        return s->name.len > 0;
    }
    if (!strcmp(rtype, "preproc_function_def")) {
        /* the signature is `#define NAME(params)`: the replacement is the body */
        TSNode params = ts_node_child_by_field_name(root, "parameters", 10);
        if (!ts_node_is_null(params))
            s->sig_end = ts_node_end_byte(params);
    }
    return true; /* enumerators, macros */
}

static bool refine(lx_ctx *cx, const lx_def *d, lx_sym *s, lx_scope *scope)
{
    (void)scope;
    return s ? lp_lx_c_refine(cx, d, s) : true;
}

static const char *const comments[] = {"comment", NULL};
static const char *const decorations[] = {"attribute_specifier", "attribute_declaration", NULL};
static const char *const recover_types[] = {"function_declarator", "expression_statement",
                                            "call_expression", "identifier", NULL};
static const char *const excise_types[] = {"function_definition", NULL};
static const char *const local_types[] = {"declaration", NULL};

const lp_lang_spec lp_spec_c = {
    .lang = LP_LANG_C,
    .query_name = "c",
    .ts_language = tree_sitter_c,
    .comment_types = comments,
    .decoration_types = decorations,
    .refine = refine,
    .recover_types = recover_types,
    .recover = lp_lx_c_recover,
    .excise_types = excise_types,
    .excise = lp_lx_c_excise,
    .local_types = local_types,
    .refs = &lp_lxr_c,
};

/* ------------------------------------------------------------------------------------------
 * Operations (lang.h). C and C++ are one family: a C++ file calls what a C header
 * declares and the other way round. A .h file is C unless its head holds C++ constructs. */

static lp_lang detect_head(lp_str ext, lp_str head)
{
    return lp_str_eq_c(ext, ".h") && lp_lx_head_looks_cpp(head) ? LP_LANG_CPP : LP_LANG_C;
}

static const char *const extensions[] = {".c", ".h", NULL};

const lp_lang_ops lp_ops_c = {
    .lang = LP_LANG_C,
    .name = "c",
    .extensions = extensions,
    .detect_head = detect_head,
    .spec = &lp_spec_c,
    .family = LP_LANG_C,
    .modules = LP_MODSYS_INCLUDE,
    .graph = LP_LANGG_WILDCARD_NO_TARGET,
    .test_stem = lp_lx_test_stem_snake,
    .graph_covers =
        "same file, declarations visible through #include (transitively) with their unique "
        "external definition, function-like macros",
    .graph_blind =
        "function pointers (p->fn()), calls through macros that expand to other names, "
        "conditional compilation variants (reported ambiguous), headers outside the index",
};
