/*
 * extract.c: tree -> symbols for the code languages (see lang_int.h for the pipeline).
 *
 * One TSTreeCursor walk visits every node once. The walk keeps the ancestor stack and a
 * stack of open symbols/scopes (popped when the walk leaves their node), and records the
 * comments and attribute nodes it passes (in source order) so that doc comments and
 * attributes above a definition are found by binary search, never by sibling scans
 * (ts_node_prev_sibling and ts_node_parent are linear in the number of siblings, which
 * makes large flat files quadratic).
 *
 * A definition whose bytes are not its node's (recovered from an ERROR node, or a body
 * cut at its matching brace) carries its end in its open entry: it stays open over the
 * following siblings inside its range, moves up a level when the walk leaves its parent
 * first, and closes once the walk passes its end. A node the language's excise hook names
 * is parsed again without a macro and the walk descends into that tree in its place
 * (the re-parsed trees live until the extraction ends).
 *
 * Invariants: the walk emits symbols in pre-order (containers before their contents,
 * container indexes pointing backwards); order_by_start then guarantees start byte
 * ascending even where a damaged tree made the query report leaf definitions out of order.
 */
#include "lang/lang_int.h"
#include "lang/refs_int.h"

#include <ctype.h>

typedef struct range {
    uint32_t start, end;
} range;

typedef struct open_entry {
    uint32_t depth;
    int32_t sym;   /* symbol index or -1 */
    int32_t scope; /* scope index or -1 */
    uint32_t end;  /* 0, or a recovered definition's end: it stays open over the following
                      siblings that start before this byte */
} open_entry;

typedef struct found_def found_def;
typedef struct found_vec {
    found_def *items;
    size_t len, cap;
} found_vec;

typedef struct walk_state {
    LP_VEC(range) comments;
    LP_VEC(range) attrs;
    LP_VEC(open_entry) open;
    found_vec found;         /* scratch: the matches at one node */
    size_t anc_cap;          /* capacity of cx->anc */
    TSParser *parser;        /* the thread's parser (re-parses) */
    LP_VEC(TSTree *) subtrees; /* re-parsed trees, alive until extraction ends */
    uint32_t reparses;
    uint32_t nodes;            /* visited, for the budget checks */
    bool budget_over;          /* the parse budget ran out: the walk stopped */
} walk_state;

#define LX_MAX_REPARSES 256 /* per file: re-parsing is for the rare macro misparse */

static void sync_open(lx_ctx *cx, walk_state *ws);

/* ------------------------------------------------------------------------------------------
 * Helpers shared with the hooks. */

TSNode lp_lx_ancestor(const lx_ctx *cx, uint32_t k)
{
    if (k > cx->depth) {
        TSNode null;
        memset(&null, 0, sizeof(null));
        return null;
    }
    return cx->anc[cx->depth - k];
}

const lx_sym *lp_lx_container(const lx_ctx *cx)
{
    return cx->container >= 0 ? &cx->syms.items[cx->container] : NULL;
}

const lx_scope *lp_lx_scope_cur(const lx_ctx *cx)
{
    return cx->scope >= 0 ? &cx->scopes.items[cx->scope] : NULL;
}

TSNode lp_lx_child_of_type(TSNode n, const char *type)
{
    TSNode none;
    memset(&none, 0, sizeof(none));
    if (ts_node_is_null(n))
        return none;
    uint32_t cnt = ts_node_child_count(n);
    if (cnt == 0)
        return none;
    TSTreeCursor c = ts_tree_cursor_new(n);
    TSNode found = none;
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode ch = ts_tree_cursor_current_node(&c);
            if (!strcmp(ts_node_type(ch), type)) {
                found = ch;
                break;
            }
        } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    return found;
}

bool lp_lx_has_keyword(const lx_ctx *cx, TSNode n, const char *word)
{
    if (ts_node_is_null(n) || ts_node_child_count(n) == 0)
        return false;
    size_t wl = strlen(word);
    bool found = false;
    TSTreeCursor c = ts_tree_cursor_new(n);
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode ch = ts_tree_cursor_current_node(&c);
            lp_str t = lx_text(cx, ch);
            if (t.len == wl && memcmp(t.ptr, word, wl) == 0) {
                found = true;
                break;
            }
        } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    return found;
}

lp_str lp_lx_dup(lx_ctx *cx, lp_str s)
{
    char *p = lp_arena_strndup(cx->arena, s.ptr ? s.ptr : "", s.len);
    return (lp_str){p, s.len};
}

lp_str lp_lx_clean_type_name(lx_ctx *cx, lp_str s)
{
    lp_buf b;
    lp_buf_init(&b, 4096);
    int angle = 0, square = 0;
    for (size_t i = 0; i < s.len; i++) {
        char c = s.ptr[i];
        if (c == '<') {
            angle++;
            continue;
        }
        if (c == '>') {
            angle -= angle > 0;
            continue;
        }
        if (c == '[') {
            square++;
            continue;
        }
        if (c == ']') {
            square -= square > 0;
            continue;
        }
        if (angle || square)
            continue;
        if (c == ':' && i + 1 < s.len && s.ptr[i + 1] == ':') {
            lp_buf_putc(&b, '.');
            i++;
            continue;
        }
        if (c == '\'') { /* Rust lifetime: skip the word */
            while (i + 1 < s.len && (isalnum((unsigned char)s.ptr[i + 1]) || s.ptr[i + 1] == '_'))
                i++;
            continue;
        }
        if (c == '*' || c == '&' || c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
            c == '(' || c == ')')
            continue;
        lp_buf_putc(&b, c);
    }
    lp_str out = lp_str_trim(lp_buf_str(&b));
    /* "mut Foo" / "dyn Foo" / "const Foo" leave a keyword glued to the name after the
     * spaces were dropped; strip the Rust/C++ keywords that can precede a type. */
    static const char *const kw[] = {"mut", "dyn", "const", "struct", "class", "impl"};
    for (size_t k = 0; k < LP_ARRAY_LEN(kw); k++) {
        size_t kl = strlen(kw[k]);
        lp_str raw = lp_str_trim(s);
        if (raw.len > kl + 1 && memcmp(raw.ptr, kw[k], kl) == 0 &&
            (raw.ptr[kl] == ' ' || raw.ptr[kl] == '\t') && out.len > kl &&
            memcmp(out.ptr, kw[k], kl) == 0) {
            out = lp_str_sub(out, kl, out.len);
            break;
        }
    }
    lp_str r = lp_lx_dup(cx, out);
    lp_buf_release(&b);
    return r;
}

bool lp_lx_kind_is_type(lp_symkind k)
{
    switch (k) {
    case LP_SYM_CLASS:
    case LP_SYM_STRUCT:
    case LP_SYM_INTERFACE:
    case LP_SYM_TRAIT:
    case LP_SYM_ENUM:
    case LP_SYM_RECORD:
    case LP_SYM_UNION:
    case LP_SYM_OBJECT:
        return true;
    default:
        return false;
    }
}

/* ------------------------------------------------------------------------------------------
 * Geometry: span start, attributes, doc comments. */

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/* Is [a, b) whitespace holding at most `max_nl` newlines? */
static bool gap_ok(const char *src, uint32_t a, uint32_t b, int max_nl)
{
    int nl = 0;
    for (uint32_t i = a; i < b; i++) {
        if (!is_space(src[i]))
            return false;
        if (src[i] == '\n' && ++nl > max_nl)
            return false;
    }
    return true;
}

/* Only whitespace between the start of pos's line and pos? */
static bool starts_line(const char *src, uint32_t pos)
{
    while (pos > 0 && src[pos - 1] != '\n') {
        if (src[pos - 1] != ' ' && src[pos - 1] != '\t')
            return false;
        pos--;
    }
    return true;
}

/* Index of the last range with end <= pos, or -1. */
static ptrdiff_t last_ending_before(const range *r, size_t n, uint32_t pos)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r[mid].end <= pos)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* ranges are sorted by start; ends are too except for nested ones, which comments
     * and attributes never are at one level; scan back a little for safety */
    ptrdiff_t i = (ptrdiff_t)lo - 1;
    while (i >= 0 && r[i].end > pos)
        i--;
    return i;
}

static uint32_t extend_over_attributes(const lx_ctx *cx, const walk_state *ws, uint32_t start)
{
    ptrdiff_t i = last_ending_before(ws->attrs.items, ws->attrs.len, start);
    while (i >= 0) {
        const range *a = &ws->attrs.items[i];
        /* attributes and comments may interleave: skip comments in the gap */
        uint32_t gap_start = a->end;
        if (!gap_ok(cx->src, gap_start, start, 1)) {
            /* a comment line between the attribute and the item? */
            ptrdiff_t c = last_ending_before(ws->comments.items, ws->comments.len, start);
            if (c < 0 || ws->comments.items[c].start < a->end ||
                !gap_ok(cx->src, ws->comments.items[c].end, start, 1) ||
                !gap_ok(cx->src, a->end, ws->comments.items[c].start, 1))
                break;
        }
        start = a->start;
        i--;
    }
    return start;
}

static bool comment_is_inner_doc(lp_str t)
{
    return lp_str_starts_with(t, LP_STR("//!")) || lp_str_starts_with(t, LP_STR("/*!"));
}

/* The run of comments directly above `before` (no blank line between, each starting its
 * own line). */
static bool find_doc(const lx_ctx *cx, const walk_state *ws, uint32_t before, uint32_t *ds,
                     uint32_t *de)
{
    ptrdiff_t i = last_ending_before(ws->comments.items, ws->comments.len, before);
    uint32_t cur = before;
    bool found = false;
    while (i >= 0) {
        const range *c = &ws->comments.items[i];
        if (c->end > cur)
            break;
        bool ends_nl = c->end > c->start && cx->src[c->end - 1] == '\n';
        if (!gap_ok(cx->src, c->end, cur, ends_nl ? 0 : 1))
            break;
        if (!starts_line(cx->src, c->start))
            break;
        lp_str t = {cx->src + c->start, c->end - c->start};
        if (comment_is_inner_doc(t))
            break;
        if (!found) {
            uint32_t e = c->end;
            while (e > c->start && is_space(cx->src[e - 1]))
                e--;
            *de = e;
            found = true;
        }
        *ds = c->start;
        cur = c->start;
        i--;
    }
    return found;
}

/* Start of a definition once leading decorations (decorators, annotations, attribute
 * lists, comments) are skipped. */
static uint32_t span_start_of(const lx_lang_rt *rt, TSNode outer)
{
    uint32_t result = ts_node_start_byte(outer);
    if (ts_node_child_count(outer) == 0)
        return result;
    TSTreeCursor c = ts_tree_cursor_new(outer);
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode ch = ts_tree_cursor_current_node(&c);
            TSSymbol s = ts_node_symbol(ch);
            uint8_t f = s < rt->nsymbols ? rt->sym_flags[s] : 0;
            if (f & (LX_SYMF_DECORATION | LX_SYMF_COMMENT))
                continue;
            if (f & LX_SYMF_DECO_CONTAINER) {
                bool inner_found = false;
                TSTreeCursor c2 = ts_tree_cursor_new(ch);
                if (ts_tree_cursor_goto_first_child(&c2)) {
                    do {
                        TSNode g = ts_tree_cursor_current_node(&c2);
                        TSSymbol gs = ts_node_symbol(g);
                        uint8_t gf = gs < rt->nsymbols ? rt->sym_flags[gs] : 0;
                        if (gf & (LX_SYMF_DECORATION | LX_SYMF_COMMENT))
                            continue;
                        result = ts_node_start_byte(g);
                        inner_found = true;
                        break;
                    } while (ts_tree_cursor_goto_next_sibling(&c2));
                }
                ts_tree_cursor_delete(&c2);
                if (inner_found)
                    break;
                continue;
            }
            result = ts_node_start_byte(ch);
            break;
        } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    ts_tree_cursor_delete(&c);
    return result;
}

static uint32_t trim_back(const char *src, uint32_t from, uint32_t to)
{
    while (to > from && is_space(src[to - 1]))
        to--;
    return to;
}

/* ------------------------------------------------------------------------------------------
 * Matches at one node. */

struct found_def {
    lx_def d;
    uint32_t pattern; /* the lowest pattern index that matched: its kind wins */
    bool root;
};

static void merge_node(TSNode *into, TSNode from, bool override)
{
    if (!ts_node_is_null(from) && (override || ts_node_is_null(*into)))
        *into = from;
}

/* Run the query on `node` alone and gather its definitions: at most one rooted at the
 * node (it may contain others) and any number of leaf definitions below it (enum members
 * captured from their list). Matches of several patterns for one node are merged. */
static found_def *find_found(found_vec *out, TSNode n)
{
    for (size_t k = out->len; k-- > 0 && k + 4 >= out->len;)
        if (ts_node_eq(out->items[k].d.node, n))
            return &out->items[k];
    if (out->len && out->items[0].root && ts_node_eq(out->items[0].d.node, n))
        return &out->items[0];
    return NULL;
}

static void merge_found(found_vec *out, const lx_def *cur, uint32_t pattern, bool root)
{
    found_def *f = find_found(out, cur->node);
    if (!f) {
        f = lp_vec_push_zero(out);
        f->d = *cur;
        f->pattern = pattern;
        f->root = root;
        return;
    }
    bool better = pattern < f->pattern;
    if (better) {
        f->pattern = pattern;
        f->d.kind = cur->kind;
        f->d.scope = cur->scope;
    }
    merge_node(&f->d.name, cur->name, better);
    merge_node(&f->d.body, cur->body, better);
    merge_node(&f->d.value, cur->value, better);
    merge_node(&f->d.qualifier, cur->qualifier, better);
}

/* Run the query on `node` alone and gather its definitions: at most one rooted at the
 * node (it may contain others) and any number of leaf definitions below it (enum members
 * listed in their body, `X, Y int` names; a leaf is its own name). Matches of several
 * patterns for one node are merged. */
static void collect_defs(const lx_lang_rt *rt, TSQueryCursor *qc, TSNode node, found_vec *out,
                         lx_refs *refs)
{
    out->len = 0;
    ts_query_cursor_exec(qc, rt->query, node);
    TSQueryMatch m;
    while (ts_query_cursor_next_match(qc, &m)) {
        if (rt->has_refs && lp_lx_refs_take_match(refs, rt, &m, node))
            continue; /* a reference pattern (refs.c) */
        lx_def shared;
        memset(&shared, 0, sizeof(shared));
        bool root_def = false, any_leaf = false;
        for (uint16_t i = 0; i < m.capture_count; i++) {
            TSNode n = m.captures[i].node;
            uint32_t id = m.captures[i].index;
            switch (rt->capture_role[id]) {
            case LX_CAP_DEF:
            case LX_CAP_SCOPE:
                if (ts_node_eq(n, node)) {
                    root_def = true;
                    shared.scope = rt->capture_role[id] == LX_CAP_SCOPE;
                    shared.kind = rt->capture_kind[id];
                } else {
                    any_leaf = true;
                }
                break;
            case LX_CAP_NAME:
                merge_node(&shared.name, n, false);
                break;
            case LX_CAP_BODY:
                merge_node(&shared.body, n, false);
                break;
            case LX_CAP_VALUE:
                merge_node(&shared.value, n, false);
                break;
            case LX_CAP_QUALIFIER:
                merge_node(&shared.qualifier, n, false);
                break;
            default:
                break;
            }
        }
        if (root_def) {
            shared.node = node;
            merge_found(out, &shared, m.pattern_index, true);
        }
        if (!any_leaf)
            continue;
        for (uint16_t i = 0; i < m.capture_count; i++) {
            TSNode n = m.captures[i].node;
            uint32_t id = m.captures[i].index;
            if (rt->capture_role[id] != LX_CAP_DEF || ts_node_eq(n, node))
                continue;
            lx_def leaf;
            memset(&leaf, 0, sizeof(leaf));
            leaf.node = n;
            leaf.name = n;
            leaf.kind = rt->capture_kind[id];
            leaf.value = shared.value;
            merge_found(out, &leaf, m.pattern_index, false);
        }
    }
}

static void add_symbol(lx_ctx *cx, walk_state *ws, const lx_def *d, bool leaf)
{
    const lx_lang_rt *rt = cx->rt;
    if (cx->container >= 0 && cx->syms.items[cx->container].nest + 1 > LX_MAX_NEST)
        return;
    lx_sym s;
    memset(&s, 0, sizeof(s));
    s.nest = cx->container >= 0 ? cx->syms.items[cx->container].nest + 1 : 0;
    s.kind = d->kind;
    s.name = lx_text(cx, d->name);
    s.node = d->node;
    s.span_start = UINT32_MAX;
    s.lead_start = UINT32_MAX;
    s.outer = d->node;
    s.container = cx->container;
    s.parent = cx->container;
    s.scope = cx->scope;
    if (!ts_node_is_null(d->body)) {
        s.has_body = true;
        s.body_start = ts_node_start_byte(d->body);
        s.body_end = ts_node_end_byte(d->body);
    }
    if (d->recovered) {
        s.span_start = d->rec_start;
        s.end = d->rec_end;
        s.has_body = true;
        s.body_start = d->rec_body_start;
        s.body_end = d->rec_end;
    }
    if (rt->spec->refine && !rt->spec->refine(cx, d, &s, NULL))
        return;
    if (s.name.len == 0 && !s.prefix)
        s.name = LP_STR("<anonymous>");
    uint32_t outer_start = ts_node_start_byte(s.outer);
    s.start = s.span_start != UINT32_MAX ? s.span_start : span_start_of(rt, s.outer);
    if (!s.end)
        s.end = ts_node_end_byte(s.outer);
    if (s.end > cx->len)
        s.end = cx->len;
    if (s.start > s.end)
        s.start = s.end;
    if (outer_start > s.start)
        outer_start = s.start;
    s.outer_start = ws->attrs.len ? extend_over_attributes(cx, ws, outer_start) : outer_start;
    if (s.has_body && (s.body_start < s.start || s.body_end > s.end || s.body_end < s.body_start))
        s.has_body = false;
    /* Signature: up to the body, or up to a value spanning lines, or the whole span. */
    uint32_t sig_end = s.end;
    if (s.has_body) {
        sig_end = s.body_start;
    } else if (!ts_node_is_null(d->value)) {
        uint32_t vs = ts_node_start_byte(d->value), ve = ts_node_end_byte(d->value);
        if (vs >= s.start && ve <= s.end && memchr(cx->src + vs, '\n', ve - vs))
            sig_end = vs;
    }
    if (!s.sig_end)
        s.sig_end = trim_back(cx->src, s.start, sig_end);
    if (s.sig_end <= s.start) /* body at the very start (a bare block): keep the first line */
        s.sig_end = s.end;
    if (!s.has_doc && rt->spec->comment_types) {
        uint32_t ds = 0, de = 0;
        if (find_doc(cx, ws, s.outer_start, &ds, &de) ||
            (s.lead_start < s.outer_start && find_doc(cx, ws, s.lead_start, &ds, &de))) {
            s.has_doc = true;
            s.doc_start = ds;
            s.doc_end = de;
        }
    }
    if (s.lead_start < s.outer_start)
        s.outer_start = s.lead_start;
    if (rt->spec->finish)
        rt->spec->finish(cx, &s);
    /* several names declared by one statement (`X, Y int`): the first owns the text */
    if (cx->syms.len) {
        const lx_sym *prev = &cx->syms.items[cx->syms.len - 1];
        if (prev->container == s.container && prev->start == s.start && prev->end == s.end &&
            ts_node_eq(prev->outer, s.outer))
            s.no_chunk = true;
    }
    lp_vec_push(&cx->syms, s);
    /* a definition whose bytes are not its node's (recovered past it, or cut short at its
     * matching brace) closes by position; a leaf opens only then (a prototype whose body
     * the parse lost) */
    uint32_t ext = s.end != ts_node_end_byte(s.outer) ? s.end : 0;
    if (!leaf || (ext && s.has_body))
        lp_vec_push(&ws->open, ((open_entry){cx->depth, (int32_t)(cx->syms.len - 1), -1, ext}));
}

static void add_scope(lx_ctx *cx, walk_state *ws, const lx_def *d)
{
    lx_scope sc;
    memset(&sc, 0, sizeof(sc));
    sc.node = d->node;
    sc.name = lx_text(cx, d->name);
    sc.container = cx->container;
    if (cx->rt->spec->refine && !cx->rt->spec->refine(cx, d, NULL, &sc))
        return;
    lp_vec_push(&cx->scopes, sc);
    lp_vec_push(&ws->open, ((open_entry){cx->depth, -1, (int32_t)(cx->scopes.len - 1), 0}));
}

/* A recovered definition ends inside its parent's subtree: once the walk is past its end,
 * it and what opened after it are closed. */
static void close_ended(walk_state *ws, uint32_t pos)
{
    for (size_t i = ws->open.len; i-- > 0;)
        if (ws->open.items[i].end && ws->open.items[i].end <= pos)
            ws->open.len = i;
}

void lp_lx_sync_container(lx_ctx *cx)
{
    sync_open(cx, (walk_state *)cx->walk);
}

/* The innermost open symbol and scope (the walk pops what it leaves). */
static void sync_open(lx_ctx *cx, walk_state *ws)
{
    cx->container = -1;
    cx->scope = -1;
    for (size_t i = ws->open.len; i-- > 0;) {
        const open_entry *e = &ws->open.items[i];
        if (e->sym >= 0) {
            cx->container = e->sym;
            break;
        }
        if (cx->scope < 0)
            cx->scope = e->scope;
    }
}

/* ------------------------------------------------------------------------------------------
 * Qualified names, logical parents, ordinals. */

typedef struct name_map {
    uint64_t *keys;
    int32_t *vals;
    size_t cap;
} name_map;

static void map_init(name_map *m, size_t n)
{
    m->cap = 16;
    while (m->cap < n * 2 + 2)
        m->cap *= 2;
    m->keys = lp_xcalloc(m->cap, sizeof(uint64_t));
    m->vals = lp_xmalloc(m->cap * sizeof(int32_t));
    for (size_t i = 0; i < m->cap; i++)
        m->vals[i] = -1;
}

static void map_free(name_map *m)
{
    free(m->keys);
    free(m->vals);
}

static const char *join3(lp_arena *a, const char *x, lp_str y, lp_str z)
{
    size_t xl = x ? strlen(x) : 0;
    size_t n = xl + y.len + z.len + 3;
    char *out = lp_arena_alloc(a, n);
    size_t o = 0;
    if (xl) {
        memcpy(out, x, xl);
        o = xl;
    }
    if (y.len) {
        if (o)
            out[o++] = '.';
        memcpy(out + o, y.ptr, y.len);
        o += y.len;
    }
    if (z.len) {
        if (o)
            out[o++] = '.';
        memcpy(out + o, z.ptr, z.len);
        o += z.len;
    }
    out[o] = 0;
    return out;
}

static int32_t lookup_type(const name_map *m, const lx_sym *syms, const char *qname)
{
    uint64_t h = lp_hash64_of(qname, strlen(qname));
    if (h == 0)
        h = 1;
    size_t i = (size_t)h & (m->cap - 1);
    while (m->vals[i] >= 0) {
        if (m->keys[i] == h && !strcmp(syms[m->vals[i]].qname, qname))
            return m->vals[i];
        i = (i + 1) & (m->cap - 1);
    }
    return -1;
}

static void insert_type(name_map *m, const lx_sym *syms, int32_t idx)
{
    const char *q = syms[idx].qname;
    uint64_t h = lp_hash64_of(q, strlen(q));
    if (h == 0)
        h = 1;
    size_t i = (size_t)h & (m->cap - 1);
    while (m->vals[i] >= 0) {
        if (m->keys[i] == h && !strcmp(syms[m->vals[i]].qname, q))
            return; /* first definition wins */
        i = (i + 1) & (m->cap - 1);
    }
    m->keys[i] = h;
    m->vals[i] = idx;
}

static void qualify(lx_ctx *cx)
{
    lx_sym *syms = cx->syms.items;
    size_t n = cx->syms.len;
    const char *prefix = NULL;
    const char **quals = lp_xcalloc(n ? n : 1, sizeof(char *));
    for (size_t i = 0; i < n; i++) {
        lx_sym *s = &syms[i];
        if (s->prefix) {
            s->qname = join3(cx->arena, s->container >= 0 ? syms[s->container].qname : prefix,
                             s->name, LP_STR_NULL);
            if (s->container < 0)
                prefix = s->qname;
            continue;
        }
        const char *base = s->container >= 0 ? syms[s->container].qname : prefix;
        lp_str q = s->qualifier;
        if (!q.len && s->scope >= 0)
            q = cx->scopes.items[s->scope].name;
        if (q.len) {
            quals[i] = join3(cx->arena, base, q, LP_STR_NULL);
            s->qname = join3(cx->arena, quals[i], s->name, LP_STR_NULL);
        } else {
            s->qname = join3(cx->arena, base, s->name, LP_STR_NULL);
        }
    }
    /* Logical parents of qualified symbols: the type with that qualified name. */
    name_map m;
    map_init(&m, n);
    for (size_t i = 0; i < n; i++)
        if (lp_lx_kind_is_type(syms[i].kind))
            insert_type(&m, syms, (int32_t)i);
    for (size_t i = 0; i < n; i++) {
        if (!quals[i])
            continue;
        int32_t p = lookup_type(&m, syms, quals[i]);
        syms[i].parent = p >= 0 && p != (int32_t)i ? p : syms[i].container;
    }
    map_free(&m);
    free(quals);
}

static void assign_ordinals(lx_ctx *cx, uint32_t *ordinals)
{
    size_t n = cx->syms.len;
    name_map m;
    map_init(&m, n);
    uint32_t *counts = lp_xcalloc(n ? n : 1, sizeof(uint32_t));
    for (size_t i = 0; i < n; i++) {
        const lx_sym *s = &cx->syms.items[i];
        /* declarations (prototypes) count apart from definitions: adding or removing a
         * prototype never renumbers the definition after it */
        bool decl = (s->flags & LP_SYMF_DECLARATION) != 0;
        uint64_t h = lp_hash64_seeded(s->qname, strlen(s->qname),
                                      ((uint64_t)s->kind + 1) | (decl ? 0x10000u : 0));
        if (h == 0)
            h = 1;
        size_t j = (size_t)h & (m.cap - 1);
        for (;;) {
            int32_t v = m.vals[j];
            if (v < 0) {
                m.keys[j] = h;
                m.vals[j] = (int32_t)i;
                ordinals[i] = 0;
                counts[i] = 1;
                break;
            }
            const lx_sym *o = &cx->syms.items[v];
            if (m.keys[j] == h && o->kind == s->kind &&
                ((o->flags & LP_SYMF_DECLARATION) != 0) == decl && !strcmp(o->qname, s->qname)) {
                ordinals[i] = counts[v]++;
                break;
            }
            j = (j + 1) & (m.cap - 1);
        }
    }
    free(counts);
    map_free(&m);
}

/* ------------------------------------------------------------------------------------------
 * The walk. */

/* Parse node's bytes again without [cut_a, cut_b) (tree-sitter's included ranges keep
 * the file's byte offsets); the new tree's root, or a null node. The tree lives until
 * the extraction ends. */
static TSNode reparse(lx_ctx *cx, walk_state *ws, TSNode node, uint32_t cut_a, uint32_t cut_b)
{
    TSNode none;
    memset(&none, 0, sizeof(none));
    uint32_t a = ts_node_start_byte(node), b = ts_node_end_byte(node);
    if (!ws->parser || !(a <= cut_a && cut_a < cut_b && cut_b <= b && b <= cx->len))
        return none;
    TSRange r[2];
    memset(r, 0, sizeof(r));
    uint32_t n = 0;
    if (cut_a > a) {
        r[n].start_byte = a;
        r[n++].end_byte = cut_a;
    }
    if (b > cut_b) {
        r[n].start_byte = cut_b;
        r[n++].end_byte = b;
    }
    if (!n || !ts_parser_set_included_ranges(ws->parser, r, n))
        return none;
    TSTree *t = ts_parser_parse_string(ws->parser, NULL, cx->src, cx->len);
    ts_parser_set_included_ranges(ws->parser, NULL, 0);
    if (!t)
        return none;
    lp_vec_push(&ws->subtrees, t);
    return ts_tree_root_node(t);
}

/* tree-sitter asks every 100 operations whether to go on: not past the budget. */
static bool parse_progress(TSParseState *state)
{
    (void)state;
    return lp_lx_budget_spent(lp_lx_budget_current(), 0);
}

typedef struct string_input {
    const char *src;
    uint32_t len;
} string_input;

static const char *string_read(void *payload, uint32_t byte, TSPoint pos, uint32_t *n)
{
    (void)pos;
    const string_input *in = payload;
    if (byte >= in->len) {
        *n = 0;
        return "";
    }
    *n = in->len - byte;
    return in->src + byte;
}

/* Parse src under the thread's budget; NULL when it ran out (the parser is reset, so the
 * next file starts from scratch instead of resuming this one). */
static TSTree *parse_budgeted(TSParser *parser, const char *src, uint32_t len)
{
    if (!lp_lx_budget_current())
        return ts_parser_parse_string(parser, NULL, src, len);
    string_input in = {src, len};
    TSInput input = {&in, string_read, TSInputEncodingUTF8, NULL};
    TSParseOptions o = {NULL, parse_progress};
    TSTree *t = ts_parser_parse_with_options(parser, NULL, input, o);
    if (!t)
        ts_parser_reset(parser);
    return t;
}

/* Walk the subtree rooted at `top`, which sits at depth `base` (its ancestors are
 * cx->anc[0..base-1]). */
static void walk(lx_ctx *cx, walk_state *ws, TSQueryCursor *qc, TSNode top, uint32_t base)
{
    const lx_lang_rt *rt = cx->rt;
    TSTreeCursor cur = ts_tree_cursor_new(top);
    uint32_t depth = base;
    for (;;) {
        /* every 1024 nodes: the symbols so far count against the file's budget */
        if ((++ws->nodes & 1023) == 0 &&
            lp_lx_budget_spent(lp_lx_budget_current(), (uint64_t)cx->syms.len * sizeof(lx_sym))) {
            ws->budget_over = true;
            goto walked;
        }
        TSNode node = ts_tree_cursor_current_node(&cur);
        if (depth >= ws->anc_cap) {
            ws->anc_cap *= 2;
            cx->anc = lp_xrealloc(cx->anc, ws->anc_cap * sizeof(TSNode));
        }
        cx->anc[depth] = node;
        cx->depth = depth;
        TSSymbol sym = ts_node_symbol(node);
        uint8_t f = sym < rt->nsymbols ? rt->sym_flags[sym] : 0;
        bool skip_children = false;
        if (f) {
            if (ws->open.len)
                close_ended(ws, ts_node_start_byte(node));
            if (f & LX_SYMF_COMMENT)
                lp_vec_push(&ws->comments,
                            ((range){ts_node_start_byte(node), ts_node_end_byte(node)}));
            if (f & LX_SYMF_ATTRIBUTE)
                lp_vec_push(&ws->attrs, ((range){ts_node_start_byte(node), ts_node_end_byte(node)}));
            /* a construct a macro made unparsable: parse its bytes again without the
             * macro and walk that tree in its place */
            if ((f & LX_SYMF_EXCISE) && ws->reparses < LX_MAX_REPARSES && depth > 0) {
                uint32_t cut_a = 0, cut_b = 0;
                if (rt->spec->excise(cx, node, &cut_a, &cut_b)) {
                    TSNode sub = reparse(cx, ws, node, cut_a, cut_b);
                    if (!ts_node_is_null(sub)) {
                        ws->reparses++;
                        TSNode saved = cx->anc[depth];
                        walk(cx, ws, qc, sub, depth);
                        cx->anc[depth] = saved;
                        cx->depth = depth;
                        while (ws->open.len && ws->open.items[ws->open.len - 1].depth >= depth)
                            ws->open.len--;
                        skip_children = true;
                        f = 0;
                    }
                }
            }
            if (f & LX_SYMF_ROOT) {
                sync_open(cx, ws);
                /* locals are no definitions, but reference gathering needs their
                 * declarations (constructor calls, receiver types): skip only without it */
                if ((f & LX_SYMF_LOCAL) && cx->container >= 0 && !cx->refs) {
                    lp_symkind k = cx->syms.items[cx->container].kind;
                    if (k == LP_SYM_FUNCTION || k == LP_SYM_METHOD || k == LP_SYM_CONSTRUCTOR)
                        f &= (uint8_t)~LX_SYMF_ROOT; /* a local: the hook would drop it */
                }
            }
            if (f & LX_SYMF_ROOT) {
                int32_t outer = cx->container;
                collect_defs(rt, qc, node, &ws->found, cx->refs);
                /* the definition rooted here first: it contains the leaves */
                for (size_t k = 0; k < ws->found.len; k++) {
                    if (!ws->found.items[k].root)
                        continue;
                    if (ws->found.items[k].d.scope)
                        add_scope(cx, ws, &ws->found.items[k].d);
                    else
                        add_symbol(cx, ws, &ws->found.items[k].d, false);
                    sync_open(cx, ws);
                }
                cx->leaf = true;
                for (size_t k = 0; k < ws->found.len; k++)
                    if (!ws->found.items[k].root && !ws->found.items[k].d.scope)
                        add_symbol(cx, ws, &ws->found.items[k].d, true);
                cx->leaf = false;
                lp_lx_refs_at_node(cx, outer);
            }
            /* recovery where the tree lost a definition: only at nodes no pattern took,
             * outside functions */
            if ((f & LX_SYMF_RECOVER) && !(f & LX_SYMF_ROOT)) {
                lx_def rd;
                memset(&rd, 0, sizeof(rd));
                if (rt->spec->recover(cx, node, &rd)) {
                    add_symbol(cx, ws, &rd, false);
                    sync_open(cx, ws);
                }
            }
        }
        if (!skip_children && depth < LX_MAX_DEPTH && !(f & LX_SYMF_COMMENT) &&
            ts_tree_cursor_goto_first_child(&cur)) {
            depth++;
            continue;
        }
        for (;;) {
            if (ts_tree_cursor_goto_next_sibling(&cur)) {
                /* leaving the previous node: close what it opened (a recovered
                 * definition stays open over the siblings inside its range) */
                uint32_t next = ts_node_start_byte(ts_tree_cursor_current_node(&cur));
                while (ws->open.len && ws->open.items[ws->open.len - 1].depth >= depth &&
                       !(ws->open.items[ws->open.len - 1].end > next))
                    ws->open.len--;
                break;
            }
            if (!ts_tree_cursor_goto_parent(&cur))
                goto walked;
            depth--;
            while (ws->open.len && ws->open.items[ws->open.len - 1].depth > depth) {
                /* a recovered definition that runs past this parent stays open over the
                 * parent's following siblings: it moves up to the parent's level */
                open_entry *top_entry = &ws->open.items[ws->open.len - 1];
                if (top_entry->end &&
                    top_entry->end > ts_node_end_byte(ts_tree_cursor_current_node(&cur))) {
                    top_entry->depth = depth;
                    break;
                }
                ws->open.len--;
            }
        }
    }
walked:
    ts_tree_cursor_delete(&cur);
}

/* ------------------------------------------------------------------------------------------
 * Source order. The walk emits symbols in pre-order, but the definitions one node's query
 * matches name (leaf definitions below a pattern root, such as enum members) come in the
 * query's match order, which tree-sitter's error recovery can leave out of source order
 * (a damaged TypeScript enum yields a later member before an earlier one). lp_parse
 * promises symbols ordered by start byte with enclosing symbols first, so the array is
 * put in that order here, once everything that indexes it (containers, logical parents,
 * scopes, reference owners) is final, and those indexes are remapped. */

typedef struct sym_order {
    uint32_t start, idx;
} sym_order;

static int sym_order_cmp(const void *a, const void *b)
{
    const sym_order *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    /* ties keep the walk's order: an enclosing symbol before what it contains */
    return (x->idx > y->idx) - (x->idx < y->idx);
}

/* A symbol never starts before its container (only a damaged tree could say so): its
 * start moves up to the container's, keeping its other offsets consistent. Containers
 * come first, so a chain is clamped from the outside in. */
static bool clamp_to_container(lx_sym *syms, size_t i)
{
    lx_sym *s = &syms[i];
    if (s->container < 0 || s->start >= syms[s->container].start)
        return false;
    s->start = syms[s->container].start;
    if (s->end < s->start)
        s->end = s->start;
    if (s->sig_end < s->start)
        s->sig_end = s->end;
    if (s->outer_start > s->start)
        s->outer_start = s->start;
    if (s->has_body && s->body_start < s->start)
        s->has_body = false;
    return true;
}

static int32_t remap(const uint32_t *newpos, int32_t old)
{
    return old >= 0 ? (int32_t)newpos[old] : old;
}

static void order_by_start(lx_ctx *cx)
{
    size_t n = cx->syms.len;
    lx_sym *syms = cx->syms.items;
    bool sorted = true;
    size_t clamped = 0;
    for (size_t i = 0; i < n; i++) {
        clamped += clamp_to_container(syms, i);
        if (i && syms[i - 1].start > syms[i].start)
            sorted = false;
    }
    if (clamped)
        lp_log(LP_LOG_DEBUG, "lang.symbols_clamped", "lang=%s clamped=%zu",
               lp_lang_name(cx->rt->spec->lang), clamped);
    if (sorted)
        return;
    sym_order *ord = lp_xmalloc(n * sizeof(*ord));
    for (size_t i = 0; i < n; i++)
        ord[i] = (sym_order){syms[i].start, (uint32_t)i};
    qsort(ord, n, sizeof(*ord), sym_order_cmp);
    uint32_t *newpos = lp_xmalloc(n * sizeof(*newpos));
    lx_sym *out = lp_xmalloc(n * sizeof(*out));
    for (size_t k = 0; k < n; k++) {
        newpos[ord[k].idx] = (uint32_t)k;
        out[k] = syms[ord[k].idx];
    }
    for (size_t k = 0; k < n; k++) {
        out[k].container = remap(newpos, out[k].container);
        out[k].parent = remap(newpos, out[k].parent);
    }
    for (size_t k = 0; k < cx->scopes.len; k++)
        cx->scopes.items[k].container = remap(newpos, cx->scopes.items[k].container);
    if (cx->refs)
        for (size_t k = 0; k < cx->refs->refs.len; k++)
            cx->refs->refs.items[k].owner = remap(newpos, cx->refs->refs.items[k].owner);
    memcpy(syms, out, n * sizeof(*out));
    lp_log(LP_LOG_DEBUG, "lang.symbols_reordered", "lang=%s symbols=%zu",
           lp_lang_name(cx->rt->spec->lang), n);
    free(out);
    free(newpos);
    free(ord);
}

lp_status lp_lx_extract(const lx_lang_rt *rt, lp_str content, lp_arena *arena, lx_sym **syms_out,
                     size_t *nsyms, bool *partial, lx_refs *refs, lp_error *err)
{
    lp_status rc = LP_OK;
    TSTree *tree = NULL;
    walk_state ws;
    memset(&ws, 0, sizeof(ws));
    lx_ctx cx;
    memset(&cx, 0, sizeof(cx));
    cx.rt = rt;
    cx.src = content.ptr ? content.ptr : "";
    cx.len = (uint32_t)content.len;
    cx.arena = arena;
    cx.container = -1;
    cx.scope = -1;
    cx.walk = &ws;
    cx.refs = rt->has_refs && refs && refs->lang ? refs : NULL;
    *syms_out = NULL;
    *nsyms = 0;
    *partial = false;

    TSParser *parser = lp_lang_thread_parser(rt->spec->lang);
    TSQueryCursor *qc = lp_lang_thread_cursor();
    if (!parser || !qc) {
        rc = lp_error_set(err, LP_ERROR, "cannot create a tree-sitter parser for %s",
                          lp_lang_name(rt->spec->lang));
        goto done;
    }
    ws.parser = parser;
    tree = parse_budgeted(parser, cx.src, cx.len);
    if (!tree && lp_lx_budget_spent(lp_lx_budget_current(), 0)) {
        rc = lp_error_set(err, LP_ETOOBIG, "the parse went past its %s budget",
                          lp_lx_budget_current()->over);
        goto done;
    }
    if (!tree) {
        rc = lp_error_set(err, LP_ERROR, "tree-sitter gave no tree for this %s file",
                          lp_lang_name(rt->spec->lang));
        goto done;
    }
    TSNode root = ts_tree_root_node(tree);
    *partial = ts_node_has_error(root);
    ws.anc_cap = 64;
    cx.anc = lp_xmalloc(ws.anc_cap * sizeof(TSNode));
    walk(&cx, &ws, qc, root, 0);
    if (ws.budget_over) {
        rc = lp_error_set(err, LP_ETOOBIG, "extraction went past its %s budget",
                          lp_lx_budget_current()->over);
        goto done;
    }

    qualify(&cx);
    lp_lx_refs_finish(&cx);
    order_by_start(&cx);
    *syms_out = cx.syms.items;
    *nsyms = cx.syms.len;
    cx.syms.items = NULL;
    cx.syms.len = cx.syms.cap = 0;

done:
    if (tree)
        ts_tree_delete(tree);
    for (size_t i = 0; i < ws.subtrees.len; i++)
        ts_tree_delete(ws.subtrees.items[i]);
    lp_vec_free(&ws.subtrees);
    lp_vec_free(&ws.found);
    free(cx.anc);
    lp_vec_free(&cx.syms);
    lp_vec_free(&cx.scopes);
    lp_vec_free(&ws.comments);
    lp_vec_free(&ws.attrs);
    lp_vec_free(&ws.open);
    return rc;
}

void lp_lx_assign_ordinals(lx_sym *syms, size_t n, uint32_t *ordinals)
{
    lx_ctx cx;
    memset(&cx, 0, sizeof(cx));
    cx.syms.items = syms;
    cx.syms.len = n;
    assign_ordinals(&cx, ordinals);
}
