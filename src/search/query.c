/*
 * query.c: the search query language (contract in search.h).
 *
 * One left-to-right pass over the bytes: white space separates items, a double quote (ASCII
 * or curly) opens a phrase, `op:value` is an operator when op is a known operator name. The
 * parser never interprets text it does not understand as an operator: an unknown `a:b` is a
 * word, except a handful of misspellings of the real operators, which fail with a message
 * naming them (an agent that wrote file:x wants a filter, not the word). Every limit is
 * checked before anything is stored, so a parse is linear in the input and bounded.
 */
#include "search/search.h"

#include "lang/lang.h"
#include "scan/scan.h"

#include <ctype.h>

#define OP_NAME_MAX 12

typedef LP_VEC(const char *) str_vec;
typedef LP_VEC(int) int_vec;

typedef struct parse_state {
    lp_arena *arena;
    lp_error *err;
    str_vec words, phrases, paths, not_paths, syms, idents, hints;
    const char *prev[2]; /* the two free words before this one (stack frames: "line 3, in f") */
    int_vec langs, kinds;
    size_t dropped;    /* words longer than LP_QUERY_MAX_VALUE */
    const char *regex; /* regex: value (arena) */
} parse_state;

static bool is_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

/* Length of a quote operator at p: only the straight double quote. */
static size_t quote_len(const char *p, const char *end) { return p < end && *p == '"'; }

/* Length of a typographic quote at p (“ ” ‘ ’ « »), 0 when none: text, never an operator;
 * it separates words as white space does. */
static size_t curly_len(const char *p, const char *end)
{
    const unsigned char *u = (const unsigned char *)p;
    if (end - p >= 3 && u[0] == 0xE2 && u[1] == 0x80 && u[2] >= 0x98 && u[2] <= 0x9D)
        return 3;
    if (end - p >= 2 && u[0] == 0xC2 && (u[1] == 0xAB || u[1] == 0xBB))
        return 2;
    return 0;
}

/* Find the closing quote from p; returns its position or NULL. */
static const char *find_close_quote(const char *p, const char *end)
{
    for (; p < end; p++)
        if (quote_len(p, end))
            return p;
    return NULL;
}

/* what: the items in plural ("path globs"), one: one of them ("path glob"). */
static bool push_str(parse_state *ps, str_vec *v, lp_str s, const char *what, const char *one)
{
    if (v->len >= LP_QUERY_MAX_ITEMS) {
        lp_error_set(ps->err, LP_EINVAL, "the query has more than %d %s; use fewer",
                     LP_QUERY_MAX_ITEMS, what);
        return false;
    }
    if (s.len > LP_QUERY_MAX_VALUE) {
        lp_error_set(ps->err, LP_EINVAL, "a %s is longer than %d bytes; shorten it", one,
                     LP_QUERY_MAX_VALUE);
        return false;
    }
    lp_vec_push(v, lp_arena_strndup(ps->arena, s.ptr, s.len));
    return true;
}

static void push_unique_int(int_vec *v, int x)
{
    for (size_t i = 0; i < v->len; i++)
        if (v->items[i] == x)
            return;
    lp_vec_push(v, x);
}

static void push_unique_str(parse_state *ps, str_vec *v, lp_str s)
{
    for (size_t i = 0; i < v->len; i++)
        if (lp_str_eq_c(s, v->items[i]))
            return;
    lp_vec_push(v, lp_arena_strndup(ps->arena, s.ptr, s.len));
}

/* ------------------------------------------------------------------------------------------
 * Identifiers. */

static bool ident_start(unsigned char c) { return isalpha(c) || c == '_' || c == '$'; }
static bool ident_char(unsigned char c) { return isalnum(c) || c == '_' || c == '$'; }

/* Strip surrounding punctuation (backticks, commas, a final '?', brackets) and a trailing
 * "()" from a free word. */
static lp_str clean_word(lp_str w)
{
    size_t a = 0, b = w.len;
    while (a < b && !ident_char((unsigned char)w.ptr[a]) && (unsigned char)w.ptr[a] < 0x80)
        a++;
    for (;;) {
        if (b - a >= 2 && w.ptr[b - 2] == '(' && w.ptr[b - 1] == ')') {
            b -= 2;
            continue;
        }
        if (b > a && !ident_char((unsigned char)w.ptr[b - 1]) &&
            (unsigned char)w.ptr[b - 1] < 0x80) {
            b--;
            continue;
        }
        break;
    }
    return lp_str_sub(w, a, b);
}

/* One identifier part: [A-Za-z_$][A-Za-z0-9_$]*. */
static bool ident_part(lp_str p)
{
    if (p.len == 0 || !ident_start((unsigned char)p.ptr[0]))
        return false;
    for (size_t i = 1; i < p.len; i++)
        if (!ident_char((unsigned char)p.ptr[i]))
            return false;
    return true;
}

/* camelCase, PascalCase with two humps, snake_case or SCREAMING_CASE. */
static bool compound_part(lp_str p)
{
    const unsigned char *s = (const unsigned char *)p.ptr;
    bool letters = false;
    for (size_t i = 0; i < p.len; i++)
        letters |= isalpha(s[i]) != 0;
    if (!letters)
        return false;
    for (size_t i = 0; i + 1 < p.len; i++) {
        if (s[i] == '_' && i > 0 && isalnum(s[i + 1]))
            return true; /* snake_case, SCREAMING_CASE */
        if (islower(s[i]) && isupper(s[i + 1]))
            return true; /* camelCase, getURL */
        if (i > 0 && isupper(s[i - 1]) && isupper(s[i]) && islower(s[i + 1]))
            return true; /* HTTPServer */
    }
    /* __init__, _private: a leading underscore before letters. */
    return p.len > 1 && s[0] == '_' && isalpha(s[p.len - 1]);
}

bool lp_search_is_identifier(lp_str w)
{
    if (w.len == 0 || w.len > LP_QUERY_MAX_VALUE)
        return false;
    size_t parts = 0, long_parts = 0;
    bool compound = false;
    size_t i = 0;
    while (i <= w.len) {
        size_t j = i;
        while (j < w.len && ident_char((unsigned char)w.ptr[j]))
            j++;
        lp_str part = lp_str_sub(w, i, j);
        if (!ident_part(part))
            return false;
        parts++;
        long_parts += part.len > 1;
        compound |= compound_part(part);
        if (j == w.len)
            break;
        /* Separators: '.', '::', '#', '->'. */
        if (w.ptr[j] == '.' || w.ptr[j] == '#')
            i = j + 1;
        else if (j + 1 < w.len && ((w.ptr[j] == ':' && w.ptr[j + 1] == ':') ||
                                   (w.ptr[j] == '-' && w.ptr[j + 1] == '>')))
            i = j + 2;
        else
            return false;
        if (i >= w.len)
            return false;
    }
    if (parts > 1)
        return long_parts > 0 && !(parts == 2 && long_parts < 2 && !compound);
    return compound;
}

/* ------------------------------------------------------------------------------------------
 * Operators. */

typedef enum op_kind { OP_NONE, OP_PATH, OP_LANG, OP_KIND, OP_SYM, OP_REGEX, OP_MISSPELT } op_kind;

static op_kind op_lookup(lp_str name)
{
    static const char *const misspelt[] = {
        "file",   "files",     "filename", "filepath", "dir",      "directory", "folder",
        "in",     "language",  "languages", "langs",   "ext",      "extension", "kinds",
        "symbol", "symbols",   "paths",    "def",      "scope",    "glob",      "type"};
    if (lp_str_eq_c(name, "path"))
        return OP_PATH;
    if (lp_str_eq_c(name, "lang"))
        return OP_LANG;
    if (lp_str_eq_c(name, "kind"))
        return OP_KIND;
    if (lp_str_eq_c(name, "sym"))
        return OP_SYM;
    if (lp_str_eq_c(name, "regex"))
        return OP_REGEX;
    for (size_t i = 0; i < LP_ARRAY_LEN(misspelt); i++)
        if (lp_str_eq_c(name, misspelt[i]))
            return OP_MISSPELT;
    return OP_NONE;
}

/* Lowercase copy of s into out (bounded by LP_QUERY_MAX_VALUE). */
static lp_str lower_copy(lp_str s, char out[LP_QUERY_MAX_VALUE + 1])
{
    size_t n = LP_MIN(s.len, (size_t)LP_QUERY_MAX_VALUE);
    for (size_t i = 0; i < n; i++)
        out[i] = (char)tolower((unsigned char)s.ptr[i]);
    out[n] = 0;
    return (lp_str){out, n};
}

/* A comma list of names into dst, each through lookup (which returns `invalid` for an
 * unknown name); an unknown one fails with "unknown WHAT 'x' in OP; use VALID". */
static bool add_list(parse_state *ps, lp_str value, int (*lookup)(lp_str), int invalid,
                     int_vec *dst, const char *what, const char *op, const char *valid)
{
    size_t i = 0;
    while (i <= value.len) {
        size_t j = lp_str_find_char(value, ',', i);
        if (j == SIZE_MAX)
            j = value.len;
        lp_str item = lp_str_trim(lp_str_sub(value, i, j));
        if (item.len) {
            char low[LP_QUERY_MAX_VALUE + 1];
            int x = lookup(lower_copy(item, low));
            if (x == invalid) {
                lp_error_set(ps->err, LP_EINVAL, "unknown %s '%.*s' in %s; use %s", what,
                             (int)lp_utf8_cut(item.ptr, item.len, 40), item.ptr, op, valid);
                return false;
            }
            push_unique_int(dst, x);
        }
        i = j + 1;
    }
    return true;
}

static int lang_lookup(lp_str name) { return (int)lp_lang_from_name(name); }

static bool add_langs(parse_state *ps, lp_str value)
{
    return add_list(ps, value, lang_lookup, (int)LP_LANG_COUNT, &ps->langs, "language", "lang:",
                    "python, javascript, typescript, tsx, go, rust, java, c, cpp, c-sharp, "
                    "scala, markdown, rst or text");
}

static lp_symkind kind_alias(lp_str k)
{
    static const struct {
        const char *alias;
        lp_symkind kind;
    } aliases[] = {
        {"fn", LP_SYM_FUNCTION},        {"func", LP_SYM_FUNCTION},  {"def", LP_SYM_FUNCTION},
        {"const", LP_SYM_CONSTANT},     {"var", LP_SYM_VARIABLE},   {"ctor", LP_SYM_CONSTRUCTOR},
        {"type", LP_SYM_TYPE_ALIAS},    {"typedef", LP_SYM_TYPE_ALIAS},
        {"heading", LP_SYM_SECTION},    {"enum-member", LP_SYM_ENUM_MEMBER},
        {"type-alias", LP_SYM_TYPE_ALIAS},
    };
    lp_symkind s = lp_symkind_from_name(k);
    if (s != LP_SYM_KIND_COUNT)
        return s;
    for (size_t i = 0; i < LP_ARRAY_LEN(aliases); i++)
        if (lp_str_eq_c(k, aliases[i].alias))
            return aliases[i].kind;
    return LP_SYM_KIND_COUNT;
}

static int kind_lookup(lp_str name) { return (int)kind_alias(name); }

static bool add_kinds(parse_state *ps, lp_str value)
{
    return add_list(ps, value, kind_lookup, (int)LP_SYM_KIND_COUNT, &ps->kinds, "kind", "kind:",
                    "function, method, class, struct, interface, trait, enum, constant, "
                    "variable, field, property, macro, type_alias, module or section");
}

/* Drop leading "/" and "./" and a trailing '/'. */
static lp_str normalize_glob(lp_str g)
{
    for (;;) {
        if (g.len && g.ptr[0] == '/')
            g = lp_str_sub(g, 1, g.len);
        else if (g.len >= 2 && g.ptr[0] == '.' && g.ptr[1] == '/')
            g = lp_str_sub(g, 2, g.len);
        else
            break;
    }
    while (g.len && g.ptr[g.len - 1] == '/')
        g.len--;
    return g;
}

static bool apply_op(parse_state *ps, op_kind op, bool neg, lp_str name, lp_str value)
{
    if (op == OP_MISSPELT) {
        lp_error_set(ps->err, LP_EINVAL,
                     "unknown operator '%.*s:'; the operators are path:GLOB, -path:GLOB, "
                     "lang:, kind:, sym:NAME, regex:PATTERN (put the word in quotes to search for it)",
                     (int)name.len, name.ptr);
        return false;
    }
    if (neg && op != OP_PATH) {
        lp_error_set(ps->err, LP_EINVAL,
                     "only path: can be negated (-path:GLOB); remove the '-' before %.*s:",
                     (int)name.len, name.ptr);
        return false;
    }
    value = lp_str_trim(value);
    if (value.len == 0) {
        static const char *const examples[] = {"",           "path:src/**",  "lang:go",
                                               "kind:function", "sym:parseArgs",
                                               "regex:\"func New\\w+\""};
        lp_error_set(ps->err, LP_EINVAL, "%s%.*s: needs a value, e.g. %s%s", neg ? "-" : "",
                     (int)name.len, name.ptr, neg ? "-" : "", examples[op]);
        return false;
    }
    switch (op) {
    case OP_PATH: {
        lp_str g = normalize_glob(value);
        if (g.len == 0) {
            lp_error_set(ps->err, LP_EINVAL,
                         "path: needs a glob below the root, e.g. path:src/** or path:*.go");
            return false;
        }
        return push_str(ps, neg ? &ps->not_paths : &ps->paths, g, "path globs", "path glob");
    }
    case OP_LANG:
        if (value.len > LP_QUERY_MAX_VALUE)
            break;
        return add_langs(ps, value);
    case OP_KIND:
        if (value.len > LP_QUERY_MAX_VALUE)
            break;
        return add_kinds(ps, value);
    case OP_SYM:
        if (!push_str(ps, &ps->syms, value, "sym: names", "sym: name"))
            return false;
        return true;
    case OP_REGEX:
        if (value.len > LP_QUERY_MAX_VALUE)
            break;
        if (ps->regex) {
            lp_error_set(ps->err, LP_EINVAL,
                         "one regex: per query; join the patterns with '|' in one regex:");
            return false;
        }
        ps->regex = lp_arena_strndup(ps->arena, value.ptr, value.len);
        return true;
    default:
        break;
    }
    lp_error_set(ps->err, LP_EINVAL, "the value of %.*s: is longer than %d bytes; shorten it",
                 (int)name.len, name.ptr, LP_QUERY_MAX_VALUE);
    return false;
}

/* If the item at [p, end) starts with `-?name:` of a known (or misspelt) operator, return
 * it and set *neg, *name and *vstart (first byte after ':'). */
static op_kind op_prefix(const char *p, const char *end, bool *neg, lp_str *name,
                         const char **vstart)
{
    const char *s = p;
    *neg = false;
    if (s < end && *s == '-') {
        *neg = true;
        s++;
    }
    const char *n = s;
    while (s < end && s - n <= OP_NAME_MAX && *s >= 'a' && *s <= 'z')
        s++;
    if (s == n || s >= end || *s != ':' || s - n > OP_NAME_MAX)
        return OP_NONE;
    if (s + 1 < end && s[1] == ':')
        return OP_NONE; /* a::b is a qualified name */
    *name = (lp_str){n, (size_t)(s - n)};
    op_kind op = op_lookup(*name);
    if (op == OP_MISSPELT && (s + 1 >= end || is_space((unsigned char)s[1])))
        return OP_NONE; /* "type:" alone (end of a sentence) is text */
    *vstart = s + 1;
    return op;
}

/* ------------------------------------------------------------------------------------------
 * Evidence in pasted text: file paths and stack frames. */

static bool has_source_ext(lp_str base)
{
    static const char *const exts[] = {
        "py",  "pyi", "go",  "rs",   "js",    "jsx", "mjs", "cjs",  "ts",   "tsx", "java",
        "c",   "h",   "cc",  "cpp",  "cxx",   "hh",  "hpp", "hxx",  "cs",   "scala", "sc",
        "md",  "rst", "txt", "toml", "yaml",  "yml", "json", "cfg", "ini", "kt",  "rb",
        "php", "swift", "m", "mm",   "sh",    "pl",  "lua"};
    size_t dot = SIZE_MAX;
    for (size_t i = 0; i < base.len; i++)
        if (base.ptr[i] == '.')
            dot = i;
    if (dot == SIZE_MAX || dot == 0 || dot + 1 >= base.len)
        return false;
    lp_str ext = lp_str_sub(base, dot + 1, base.len);
    for (size_t i = 0; i < LP_ARRAY_LEN(exts); i++)
        if (lp_str_eq_c(ext, exts[i]))
            return true;
    return false;
}

static bool hint_char(unsigned char c)
{
    return isalnum(c) || c == '_' || c == '-' || c == '.' || c == '/' || c == '\\' || c == '+' ||
           c == '@' || c >= 0x80;
}

/* A file path in w ("src/app.py", "/usr/lib/x/server.go:12", "(Bar.java:42)",
 * "C:\src\Bar.cs:line 4", "utils.py"): its path without line numbers, with '/' separators,
 * into out; false when w names no source file. */
static bool path_hint(lp_str w, lp_buf *out)
{
    if (lp_str_find(w, lp_str_c("://"), 0) != SIZE_MAX)
        return false; /* a URL */
    /* The longest run of path characters that ends in a file name with a source extension. */
    size_t best_a = 0, best_b = 0;
    size_t i = 0;
    while (i < w.len) {
        while (i < w.len && !hint_char((unsigned char)w.ptr[i]))
            i++;
        size_t a = i;
        while (i < w.len && hint_char((unsigned char)w.ptr[i]))
            i++;
        size_t b = i;
        while (b > a && (w.ptr[b - 1] == '.' || w.ptr[b - 1] == '/' || w.ptr[b - 1] == '\\'))
            b--;
        size_t base = b;
        while (base > a && w.ptr[base - 1] != '/' && w.ptr[base - 1] != '\\')
            base--;
        if (b > a && has_source_ext(lp_str_sub(w, base, b)) && b - a > best_b - best_a) {
            best_a = a;
            best_b = b;
        }
    }
    if (best_b == best_a || best_b - best_a > LP_QUERY_MAX_VALUE)
        return false;
    lp_buf_reset(out);
    for (size_t k = best_a; k < best_b; k++)
        lp_buf_putc(out, w.ptr[k] == '\\' ? '/' : w.ptr[k]);
    return true;
}

static bool all_digits(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* The function a stack frame names, from the word w (and the words before it):
 *   Python   `File "x.py", line 3, in handle`        -> handle
 *   Go       `net/http.(*conn).serve(0xc0...)`          -> conn.serve
 *   Java/C#/Scala/JS `at com.x.Bar.baz(Bar.java:42)`  -> com.x.Bar.baz, Bar.baz
 * Each goes to idents (the exact channel) when it looks like a name. */
static void frame_idents(parse_state *ps, lp_str w)
{
    const char *in = ps->prev[0], *num = ps->prev[1];
    if (in && !strcmp(in, "in") && num) {
        size_t n = strlen(num);
        if (n > 1 && num[n - 1] == ',' && all_digits(num, n - 1)) {
            lp_str c = clean_word(w);
            if (c.len && ident_part(c))
                push_unique_str(ps, &ps->idents, c);
        }
    }
    size_t open = lp_str_find_char(w, '(', 0);
    if (open == SIZE_MAX || open == 0)
        return;
    size_t star = lp_str_find(w, lp_str_c(".(*"), 0);
    if (star != SIZE_MAX) {
        /* Go: pkg.(*Type).Method( */
        size_t t0 = star + 3, t1 = lp_str_find_char(w, ')', t0);
        if (t1 == SIZE_MAX || t1 + 2 >= w.len || w.ptr[t1 + 1] != '.')
            return;
        size_t m0 = t1 + 2, m1 = m0;
        while (m1 < w.len && ident_char((unsigned char)w.ptr[m1]))
            m1++;
        lp_str type = lp_str_sub(w, t0, t1), meth = lp_str_sub(w, m0, m1);
        if (!ident_part(type) || !ident_part(meth))
            return;
        char buf[2 * LP_QUERY_MAX_VALUE + 2];
        int n = snprintf(buf, sizeof buf, "%.*s.%.*s", (int)type.len, type.ptr, (int)meth.len,
                         meth.ptr);
        if (n > 0 && (size_t)n < sizeof buf)
            push_unique_str(ps, &ps->idents, (lp_str){buf, (size_t)n});
        return;
    }
    /* Dotted: a.b.C.m( ; the last slash-separated part (Go's net/http.Get). */
    lp_str head = lp_str_sub(w, 0, open);
    size_t slash = SIZE_MAX;
    for (size_t k = 0; k < head.len; k++)
        if (head.ptr[k] == '/')
            slash = k;
    if (slash != SIZE_MAX)
        head = lp_str_sub(head, slash + 1, head.len);
    head = clean_word(head);
    if (head.len == 0 || lp_str_find_char(head, '.', 0) == SIZE_MAX ||
        !lp_search_is_identifier(head))
        return;
    push_unique_str(ps, &ps->idents, head);
    /* The owner and the name (Bar.baz of com.x.Bar.baz): how qualified names are stored. */
    size_t dots = 0, cut = 0;
    for (size_t k = head.len; k-- > 0;)
        if (head.ptr[k] == '.' && ++dots == 2) {
            cut = k + 1;
            break;
        }
    if (cut)
        push_unique_str(ps, &ps->idents, lp_str_sub(head, cut, head.len));
}

static void evidence(parse_state *ps, lp_str w)
{
    lp_buf h;
    lp_buf_init(&h, 64);
    if (path_hint(w, &h) && ps->hints.len < LP_QUERY_MAX_ITEMS)
        push_unique_str(ps, &ps->hints, lp_buf_str(&h));
    lp_buf_release(&h);
    frame_idents(ps, w);
}

/* A free word. Words are never refused: one longer than LP_QUERY_MAX_VALUE (a URL, a
 * base64 blob, a minified line) carries no searchable term and is dropped. */
static void add_word(parse_state *ps, lp_str w)
{
    if (w.len > LP_QUERY_MAX_VALUE) {
        ps->dropped++;
        return;
    }
    const char *word = lp_arena_strndup(ps->arena, w.ptr, w.len);
    lp_vec_push(&ps->words, word);
    lp_str c = clean_word(w);
    if (lp_search_is_identifier(c))
        push_unique_str(ps, &ps->idents, c);
    evidence(ps, w);
    ps->prev[1] = ps->prev[0];
    ps->prev[0] = word;
}

static size_t sep_len(const char *p, const char *end)
{
    return p < end && is_space((unsigned char)*p) ? 1 : curly_len(p, end);
}

/* Every word of [p, end) (separated by white space and typographic quotes). */
static void add_words(parse_state *ps, const char *p, const char *end)
{
    while (p < end) {
        size_t n = sep_len(p, end);
        if (n) {
            p += n;
            continue;
        }
        const char *e = p;
        while (e < end && !sep_len(e, end))
            e++;
        add_word(ps, (lp_str){p, (size_t)(e - p)});
        p = e;
    }
}

/* A quoted phrase: an exact phrase, except past LP_QUERY_MAX_ITEMS phrases, past
 * LP_QUERY_MAX_VALUE bytes, or when it is one path-like token (a traceback's
 * "File "/x/y.py"": evidence of a file, not a phrase); then its words. */
static void add_phrase_or_words(parse_state *ps, lp_str phrase)
{
    bool one_token = true, pathy = false;
    for (size_t i = 0; i < phrase.len; i++) {
        unsigned char c = (unsigned char)phrase.ptr[i];
        one_token &= !is_space(c);
        pathy |= c == '/' || c == '\\';
    }
    if (phrase.len == 0)
        return;
    if (ps->phrases.len >= LP_QUERY_MAX_ITEMS || phrase.len > LP_QUERY_MAX_VALUE ||
        (one_token && pathy)) {
        add_words(ps, phrase.ptr, phrase.ptr + phrase.len);
        return;
    }
    lp_vec_push(&ps->phrases, lp_arena_strndup(ps->arena, phrase.ptr, phrase.len));
}

/* One item starting at *pp (not a separator); advances *pp past it. */
static bool parse_item(parse_state *ps, const char **pp, const char *end)
{
    const char *p = *pp;
    size_t q = quote_len(p, end);
    if (q) {
        const char *close = find_close_quote(p + q, end);
        if (!close) {
            /* An unbalanced quote is text (an apostrophe-like slip, a pasted log line). */
            *pp = p + q;
            return true;
        }
        add_phrase_or_words(ps, lp_str_trim((lp_str){p + q, (size_t)(close - p - q)}));
        *pp = close + quote_len(close, end);
        return true;
    }
    bool neg;
    lp_str name = {0};
    const char *v = NULL;
    op_kind op = op_prefix(p, end, &neg, &name, &v);
    if (op != OP_NONE) {
        size_t vq = quote_len(v, end);
        if (vq) {
            const char *close = find_close_quote(v + vq, end);
            if (!close) {
                lp_error_set(ps->err, LP_EINVAL,
                             "the value of %.*s: has an unterminated quote; close it with '\"'",
                             (int)name.len, name.ptr);
                return false;
            }
            *pp = close + quote_len(close, end);
            return apply_op(ps, op, neg, name, (lp_str){v + vq, (size_t)(close - v - vq)});
        }
        const char *e = v;
        while (e < end && !is_space((unsigned char)*e))
            e++;
        *pp = e;
        return apply_op(ps, op, neg, name, (lp_str){v, (size_t)(e - v)});
    }
    /* A free word: up to a separator or a quote (which opens a phrase next). */
    const char *e = p;
    while (e < end && !sep_len(e, end) && !quote_len(e, end))
        e++;
    *pp = e;
    add_word(ps, (lp_str){p, (size_t)(e - p)});
    return true;
}

#define TAKE(field, vec)                                                                       \
    do {                                                                                       \
        out->n##field = ps.vec.len;                                                            \
        out->field = lp_arena_alloc(arena, (ps.vec.len ? ps.vec.len : 1) * sizeof *out->field); \
        if (ps.vec.len)                                                                        \
            memcpy(out->field, ps.vec.items, ps.vec.len * sizeof *out->field);                 \
    } while (0)

static bool area_byte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '-' || c == '.' || c == '/';
}

/* The "area: subject" prefix: one word or slash path right after leading blanks, with at
 * least one letter, then ':' and a blank. "http://x" and "path:x" (no blank) are not. */
static const char *parse_area(const char *p, const char *end, lp_arena *arena)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    const char *s = p;
    bool letter = false;
    while (p < end && area_byte(*p)) {
        letter |= (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z');
        p++;
    }
    size_t n = (size_t)(p - s);
    if (!letter || n < 2 || n > 128 || p + 1 >= end || p[0] != ':' ||
        (p[1] != ' ' && p[1] != '\t'))
        return NULL;
    while (n && (s[n - 1] == '/' || s[n - 1] == '.'))
        n--; /* "net/http/: ..." */
    while (n && (s[0] == '/' || s[0] == '.')) {
        s++;
        n--;
    }
    return n ? lp_arena_strndup(arena, s, n) : NULL;
}

lp_status lp_search_query_parse(const char *text, lp_arena *arena, lp_search_query *out,
                                lp_error *err)
{
    memset(out, 0, sizeof *out);
    if (!text)
        text = "";
    size_t n = strlen(text);
    bool shortened = false;
    if (n > LP_QUERY_MAX_BYTES) {
        n = lp_utf8_cut(text, n, LP_QUERY_MAX_BYTES);
        shortened = true;
    }
    parse_state ps = {.arena = arena, .err = err};
    const char *p = text, *end = text + n;
    bool ok = true;
    while (ok) {
        size_t k;
        while ((k = sep_len(p, end)) != 0)
            p += k;
        if (p >= end)
            break;
        ok = parse_item(&ps, &p, end);
    }
    if (ok) {
        for (size_t i = 0; i < ps.syms.len; i++)
            push_unique_str(&ps, &ps.idents, lp_str_c(ps.syms.items[i]));
        TAKE(words, words);
        TAKE(phrases, phrases);
        TAKE(paths, paths);
        TAKE(not_paths, not_paths);
        TAKE(langs, langs);
        TAKE(kinds, kinds);
        TAKE(syms, syms);
        TAKE(idents, idents);
        TAKE(hints, hints);
        out->shortened = shortened;
        out->dropped = ps.dropped;
        out->area = parse_area(text, text + n, arena);
        out->regex = ps.regex;
    }
    lp_vec_free(&ps.words);
    lp_vec_free(&ps.phrases);
    lp_vec_free(&ps.paths);
    lp_vec_free(&ps.not_paths);
    lp_vec_free(&ps.syms);
    lp_vec_free(&ps.idents);
    lp_vec_free(&ps.hints);
    lp_vec_free(&ps.langs);
    lp_vec_free(&ps.kinds);
    if (!ok) {
        memset(out, 0, sizeof *out);
        return err ? err->code : LP_EINVAL;
    }
    return LP_OK;
}

bool lp_search_query_has_terms(const lp_search_query *q)
{
    return q->nwords || q->nphrases || q->nsyms;
}

/* ------------------------------------------------------------------------------------------
 * Path globs. */

bool lp_search_glob_match(const char *glob, lp_str path)
{
    lp_str g = lp_str_c(glob);
    if (lp_str_find_char(g, '/', 0) == SIZE_MAX) {
        /* No '/': any one segment. */
        size_t i = 0;
        while (i < path.len) {
            size_t j = i;
            while (j < path.len && path.ptr[j] != '/')
                j++;
            if (lp_wildmatch(g, lp_str_sub(path, i, j), LP_WILDMATCH_PATHNAME))
                return true;
            i = j + 1;
        }
        return false;
    }
    /* Anchored: the path or one of its folders. */
    for (size_t j = 0; j <= path.len; j++) {
        if (j == path.len || path.ptr[j] == '/') {
            if (lp_wildmatch(g, lp_str_sub(path, 0, j), LP_WILDMATCH_PATHNAME))
                return true;
        }
    }
    return false;
}

bool lp_search_query_path_ok(const lp_search_query *q, lp_str path)
{
    for (size_t i = 0; i < q->nnot_paths; i++)
        if (lp_search_glob_match(q->not_paths[i], path))
            return false;
    if (q->npaths == 0)
        return true;
    for (size_t i = 0; i < q->npaths; i++)
        if (lp_search_glob_match(q->paths[i], path))
            return true;
    return false;
}
