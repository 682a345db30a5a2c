/*
 * refs.c: reference extraction, the generic part (see refs_int.h for the pipeline):
 * capture roles, query concatenation, callee decomposition, bindings, and the file-local
 * post-pass that marks shadowed names and typed receivers.
 *
 * Invariants: every string of an lxr_ref points into the source or the extraction arena;
 * references come out sorted by start byte (stable), owners index the symbol array.
 */
#include "lang/refs_int.h"
#include "core/settings.h"

#include <stdlib.h>

const char *lp_refkind_name(lp_refkind k)
{
    static const char *const names[LP_REF_KIND_COUNT] = {"call",   "new",    "import",
                                                         "base",   "export", "test_name"};
    return (unsigned)k < LP_REF_KIND_COUNT ? names[k] : "unknown";
}

bool lp_lx_refs_disabled(void)
{
    return lp_setting_bool(LP_SET_TEST_NO_GRAPH);
}

uint8_t lp_lx_refs_capture_role(lp_str s, bool *bad)
{
    static const char *const roots[LXR_KIND_COUNT] = {"call", "new",   "import",
                                                      "base", "local", "export"};
    static const struct {
        const char *name;
        uint8_t role;
    } subs[] = {{"callee", LXR_CAP_CALLEE}, {"args", LXR_CAP_ARGS},     {"type", LXR_CAP_TYPE},
                {"name", LXR_CAP_NAME},     {"value", LXR_CAP_VALUE},   {"module", LXR_CAP_MODULE},
                {"alias", LXR_CAP_ALIAS}};
    if (lp_str_starts_with(s, LP_STR("reference."))) {
        lp_str k = lp_str_sub(s, 10, s.len);
        for (int i = 0; i < LXR_KIND_COUNT; i++)
            if (lp_str_eq_c(k, roots[i]))
                return (uint8_t)(LXR_CAP_ROOT + i);
        *bad = true;
        return LXR_CAP_NONE;
    }
    if (lp_str_starts_with(s, LP_STR("ref."))) {
        lp_str k = lp_str_sub(s, 4, s.len);
        for (size_t i = 0; i < LP_ARRAY_LEN(subs); i++)
            if (lp_str_eq_c(k, subs[i].name))
                return subs[i].role;
        *bad = true;
    }
    return LXR_CAP_NONE;
}

void lp_lx_refs_query_source(const char *query_name, const char **src, size_t *len, char **owned,
                          bool *has_refs)
{
    *owned = NULL;
    *has_refs = false;
    const lp_embedded_query *def = NULL, *ref = NULL;
    size_t qn = strlen(query_name);
    for (size_t i = 0; i < lp_embedded_queries_count; i++) {
        const char *n = lp_embedded_queries[i].name;
        if (!strcmp(n, query_name))
            def = &lp_embedded_queries[i];
        else if (!strncmp(n, query_name, qn) && !strcmp(n + qn, "-refs"))
            ref = &lp_embedded_queries[i];
    }
    *src = def ? def->src : NULL;
    *len = def ? def->len : 0;
    if (!def || !ref || lp_lx_refs_disabled())
        return;
    char *buf = lp_xmalloc(def->len + ref->len + 2);
    memcpy(buf, def->src, def->len);
    buf[def->len] = '\n';
    memcpy(buf + def->len + 1, ref->src, ref->len);
    buf[def->len + 1 + ref->len] = '\0';
    *owned = buf;
    *src = buf;
    *len = def->len + 1 + ref->len;
    *has_refs = true;
}

const lxr_lang *lp_lxr_lang_for(lp_lang l)
{
    const lp_lang_spec *spec = lp_lang_spec_for(l);
    return spec ? spec->refs : NULL;
}

void lp_lx_refs_init(lx_refs *r, lp_lang lang)
{
    memset(r, 0, sizeof *r);
    r->lang = lp_lxr_lang_for(lang);
}

void lp_lx_refs_release(lx_refs *r)
{
    lp_vec_free(&r->pending);
    lp_vec_free(&r->refs);
    lp_vec_free(&r->locals);
}

bool lp_lx_refs_take_match(lx_refs *r, const lx_lang_rt *rt, const TSQueryMatch *m, TSNode node)
{
    if (!rt->capture_ref)
        return false;
    lxr_match x;
    memset(&x, 0, sizeof x);
    bool is_ref = false;
    for (uint16_t i = 0; i < m->capture_count; i++) {
        uint8_t role = rt->capture_ref[m->captures[i].index];
        TSNode n = m->captures[i].node;
        if (role >= LXR_CAP_ROOT) {
            if (!ts_node_eq(n, node))
                continue; /* roots are the pattern root */
            is_ref = true;
            x.kind = (lxr_kind)(role - LXR_CAP_ROOT);
            x.node = n;
            continue;
        }
        switch (role) {
        case LXR_CAP_CALLEE: x.callee = n; break;
        case LXR_CAP_ARGS: x.args = n; break;
        case LXR_CAP_TYPE: x.type = n; break;
        case LXR_CAP_NAME: x.name = n; break;
        case LXR_CAP_VALUE: x.value = n; break;
        case LXR_CAP_MODULE: x.module = n; break;
        case LXR_CAP_ALIAS: x.alias = n; break;
        default: break;
        }
    }
    if (!is_ref || !r || !r->lang)
        return is_ref;
    /* Several patterns of one kind may match the node: keep the first. */
    for (size_t k = 0; k < r->pending.len; k++)
        if (r->pending.items[k].kind == x.kind && ts_node_eq(r->pending.items[k].node, node))
            return true;
    lp_vec_push(&r->pending, x);
    return true;
}

void lp_lx_refs_at_node(lx_ctx *cx, int32_t outer)
{
    lx_refs *r = cx->refs;
    if (!r || !r->pending.len)
        return;
    int32_t inner = cx->container;
    for (size_t i = 0; i < r->pending.len; i++)
        r->lang->hook(cx, &r->pending.items[i], outer, inner);
    r->pending.len = 0;
}

/* ------------------------------------------------------------------------------------------
 * Helpers for hooks. */

TSNode lp_lxr_field(TSNode n, const char *field)
{
    if (ts_node_is_null(n))
        return n;
    return ts_node_child_by_field_name(n, field, (uint32_t)strlen(field));
}

bool lp_lxr_type_in(TSNode n, const char *const *types)
{
    if (ts_node_is_null(n) || !types)
        return false;
    const char *t = ts_node_type(n);
    for (; *types; types++)
        if (!strcmp(t, *types))
            return true;
    return false;
}

static bool word_in(lp_str w, const char *const *words)
{
    if (!words)
        return false;
    for (; *words; words++)
        if (lp_str_eq_c(w, *words))
            return true;
    return false;
}

lp_str lp_lxr_last_segment(lp_str s)
{
    for (size_t i = s.len; i > 0; i--)
        if (s.ptr[i - 1] == '.')
            return lp_str_sub(s, i, s.len);
    return s;
}

lp_str lp_lxr_unquote(lp_str s)
{
    s = lp_str_trim(s);
    /* string prefixes (r"", b'', u"", L"") only in front of a quote */
    size_t p = 0;
    while (p < s.len && p < 2 && strchr("rbuRLBU", s.ptr[p]))
        p++;
    if (p && p < s.len && (s.ptr[p] == '"' || s.ptr[p] == '\''))
        s = lp_str_sub(s, p, s.len);
    if (s.len >= 2) {
        char a = s.ptr[0], b = s.ptr[s.len - 1];
        if ((a == '"' || a == '\'' || a == '`') && b == a)
            return lp_str_sub(s, 1, s.len - 1);
        if (a == '<' && b == '>')
            return lp_str_sub(s, 1, s.len - 1);
    }
    return s;
}

static bool ident_char(unsigned char c)
{
    return c == '_' || c == '$' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') ||
           c >= 0x80;
}

lp_str lp_lxr_dotted(lx_ctx *cx, lp_str s)
{
    char *out = lp_arena_alloc(cx->arena, s.len + 1);
    size_t o = 0;
    for (size_t i = 0; i < s.len; i++) {
        char c = s.ptr[i];
        if (c == ':' && i + 1 < s.len && s.ptr[i + 1] == ':') {
            out[o++] = '.';
            i++;
        } else if (c == '-' && i + 1 < s.len && s.ptr[i + 1] == '>') {
            out[o++] = '.';
            i++;
        } else if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            out[o++] = c;
        }
    }
    out[o] = '\0';
    while (o && out[0] == '.') { /* ::std::x */
        memmove(out, out + 1, o);
        o--;
    }
    return (lp_str){out, o};
}

lp_str lp_lxr_type_name(lx_ctx *cx, lp_str text)
{
    lp_str t = lp_str_trim(text);
    char *out = lp_arena_alloc(cx->arena, t.len + 1);
    size_t o = 0;
    int angle = 0, square = 0;
    for (size_t i = 0; i < t.len; i++) {
        unsigned char c = (unsigned char)t.ptr[i];
        if (c == '<') {
            angle++;
            continue;
        }
        if (c == '>') {
            if (angle == 0)
                return LP_STR(""); /* "->" of a function type */
            angle--;
            continue;
        }
        if (c == '[') {
            /* "Foo[]" / "[]Foo" / "[4]Foo" is an array; "Foo[T]" a generic */
            size_t j = i + 1;
            while (j < t.len && (t.ptr[j] == ' ' || (t.ptr[j] >= '0' && t.ptr[j] <= '9')))
                j++;
            if (j < t.len && t.ptr[j] == ']' && square == 0 && angle == 0)
                return LP_STR("");
            square++;
            continue;
        }
        if (c == ']') {
            square -= square > 0;
            continue;
        }
        if (angle || square)
            continue;
        if (c == '|' || c == '(' || c == ',' || c == '{' || c == '=')
            return LP_STR(""); /* unions, tuples, function and object types */
        if (c == '\'') { /* Rust lifetime */
            while (i + 1 < t.len && ident_char((unsigned char)t.ptr[i + 1]))
                i++;
            continue;
        }
        if (c == ':' && i + 1 < t.len && t.ptr[i + 1] == ':') {
            if (o)
                out[o++] = '.';
            i++;
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            /* a keyword before the name: const, struct, mut, dyn, impl, ref... drop it */
            size_t k = o;
            while (k > 0 && out[k - 1] != '.')
                k--;
            lp_str word = {out + k, o - k};
            static const char *const kws[] = {"const", "volatile", "struct", "class", "enum",
                                              "union", "typename", "mut", "dyn", "impl", "ref",
                                              "out", "in", "final", "readonly", "unsigned",
                                              "signed", "static", "register", "extern", NULL};
            if (word_in(word, kws))
                o = k;
            continue;
        }
        if (c == '*' || c == '&' || c == '?' || c == '!' || c == '^' || c == '%')
            continue;
        if (c == '.' || ident_char(c)) {
            out[o++] = (char)c;
            continue;
        }
        return LP_STR("");
    }
    out[o] = '\0';
    while (o && out[o - 1] == '.')
        out[--o] = '\0';
    if (o && out[0] == '.')
        return (lp_str){out + 1, o - 1};
    return (lp_str){out, o};
}

int32_t lp_lxr_enclosing_function(const lx_ctx *cx, int32_t owner)
{
    while (owner >= 0) {
        const lx_sym *s = &cx->syms.items[owner];
        if (s->kind == LP_SYM_FUNCTION || s->kind == LP_SYM_METHOD ||
            s->kind == LP_SYM_CONSTRUCTOR || (s->kind == LP_SYM_PROPERTY && s->has_body))
            return owner;
        owner = s->container;
    }
    return -1;
}

lxr_ref *lp_lxr_push(lx_ctx *cx, lp_refkind kind, int32_t owner, TSNode node)
{
    lxr_ref *r = lp_vec_push_zero(&cx->refs->refs);
    r->seq = (uint32_t)cx->refs->refs.len;
    r->kind = kind;
    r->owner = owner;
    r->nargs = -1;
    r->name = r->qual = r->alias = r->rtype = r->args = r->root = LP_STR("");
    r->start = ts_node_start_byte(node);
    r->end = ts_node_end_byte(node);
    if (r->end > cx->len)
        r->end = cx->len;
    if (r->start > r->end)
        r->start = r->end;
    return r;
}

/* Argument text with whitespace runs collapsed, bounded (cut at a UTF-8 boundary). */
static lp_str collapse(lx_ctx *cx, lp_str s, size_t max)
{
    s = lp_str_trim(s);
    /* Up to 3 bytes past max, so the cut sees the whole character at the bound. */
    size_t cap = LP_MIN(s.len, max + 3);
    char *out = lp_arena_alloc(cx->arena, cap + 1);
    size_t o = 0;
    bool space = false;
    for (size_t i = 0; i < s.len && o < cap; i++) {
        char c = s.ptr[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            space = true;
            continue;
        }
        if (space && o + 1 < cap)
            out[o++] = ' ';
        space = false;
        out[o++] = c;
    }
    o = lp_utf8_cut(out, o, max);
    while (o && out[o - 1] == ' ')
        o--;
    out[o] = '\0';
    return (lp_str){out, o};
}

static int count_args(TSNode args)
{
    if (ts_node_is_null(args))
        return -1;
    int n = 0;
    uint32_t cnt = ts_node_named_child_count(args);
    for (uint32_t i = 0; i < cnt; i++) {
        TSNode c = ts_node_named_child(args, i);
        const char *t = ts_node_type(c);
        if (strstr(t, "comment"))
            continue;
        n++;
    }
    return n;
}

#define LXR_MAX_SEGS 16

typedef struct flat {
    lp_str segs[LXR_MAX_SEGS];
    int n;
    uint32_t flags;
} flat;

static const lxr_member *member_rule(const lxr_member *rules, TSNode n)
{
    if (!rules || ts_node_is_null(n))
        return NULL;
    const char *t = ts_node_type(n);
    for (; rules->type; rules++)
        if (!strcmp(t, rules->type))
            return rules;
    return NULL;
}

static bool is_super_call(const lx_ctx *cx, TSNode n)
{
    const char *t = ts_node_type(n);
    if (strcmp(t, "call") != 0 && strcmp(t, "call_expression") != 0)
        return false;
    TSNode f = lp_lxr_field(n, "function");
    return lp_str_eq_c(lx_text(cx, f), "super");
}

static bool flatten(lx_ctx *cx, const lxr_lang *L, TSNode n, flat *f, int depth)
{
    if (ts_node_is_null(n) || depth > 24 || f->n >= LXR_MAX_SEGS)
        return false;
    const lxr_member *w = member_rule(L->wrappers, n);
    if (w) {
        TSNode inner = lp_lxr_field(n, w->object);
        if (ts_node_is_null(inner) && ts_node_named_child_count(n))
            inner = ts_node_named_child(n, 0);
        return flatten(cx, L, inner, f, depth + 1);
    }
    if (lp_lxr_type_in(n, L->idents)) {
        lp_str t = lx_text(cx, n);
        if (f->n == 0 && word_in(t, L->selfwords))
            f->flags |= LP_REFF_SELF;
        else if (f->n == 0 && word_in(t, L->superwords))
            f->flags |= LP_REFF_SUPER;
        f->segs[f->n++] = t;
        return true;
    }
    if (lp_lxr_type_in(n, L->selfs)) {
        if (f->n == 0)
            f->flags |= LP_REFF_SELF;
        f->segs[f->n++] = lx_text(cx, n);
        return true;
    }
    if (lp_lxr_type_in(n, L->supers) || is_super_call(cx, n)) {
        if (f->n == 0)
            f->flags |= LP_REFF_SUPER;
        f->segs[f->n++] = LP_STR("super");
        return true;
    }
    const lxr_member *m = member_rule(L->members, n);
    if (m) {
        TSNode obj = lp_lxr_field(n, m->object), name = lp_lxr_field(n, m->name);
        if (ts_node_is_null(name))
            return false;
        if (!ts_node_is_null(obj) && !flatten(cx, L, obj, f, depth + 1))
            return false;
        if (f->n >= LXR_MAX_SEGS)
            return false;
        f->flags |= m->flags;
        /* the member name may itself be wrapped (generic_name, template_function) */
        flat inner;
        memset(&inner, 0, sizeof inner);
        if (!flatten(cx, L, name, &inner, depth + 1) || inner.n != 1)
            return false;
        f->segs[f->n++] = inner.segs[0];
        return true;
    }
    return false;
}

static lp_str join_segs(lx_ctx *cx, const lp_str *segs, int n)
{
    size_t len = 0;
    for (int i = 0; i < n; i++)
        len += segs[i].len + 1;
    char *out = lp_arena_alloc(cx->arena, len + 1);
    size_t o = 0;
    for (int i = 0; i < n; i++) {
        if (i)
            out[o++] = '.';
        memcpy(out + o, segs[i].ptr, segs[i].len);
        o += segs[i].len;
    }
    out[o] = '\0';
    return (lp_str){out, o};
}

lxr_ref *lp_lxr_call_parts(lx_ctx *cx, lp_refkind kind, int32_t owner, TSNode call, TSNode object,
                        TSNode name, TSNode args)
{
    const lxr_lang *L = cx->refs->lang;
    lxr_ref *r = lp_lxr_push(cx, kind, owner, call);
    flat nf;
    memset(&nf, 0, sizeof nf);
    if (flatten(cx, L, name, &nf, 0) && nf.n == 1)
        r->name = nf.segs[0];
    else
        r->name = lx_text(cx, name);
    if (!ts_node_is_null(object)) {
        flat f;
        memset(&f, 0, sizeof f);
        if (flatten(cx, L, object, &f, 0) && f.n > 0) {
            r->qual = join_segs(cx, f.segs, f.n);
            r->root = f.segs[0];
            r->flags |= f.flags;
        } else {
            r->qual = collapse(cx, lx_text(cx, object), 80);
            r->flags |= LP_REFF_COMPLEX;
        }
    }
    if (!ts_node_is_null(args)) {
        r->args = collapse(cx, lx_text(cx, args), LP_REF_ARGS_MAX);
        r->nargs = count_args(args);
    }
    return r;
}

lxr_ref *lp_lxr_call(lx_ctx *cx, lp_refkind kind, int32_t owner, TSNode call, TSNode callee,
                  TSNode args)
{
    const lxr_lang *L = cx->refs->lang;
    lxr_ref *r = lp_lxr_push(cx, kind, owner, call);
    flat f;
    memset(&f, 0, sizeof f);
    if (flatten(cx, L, callee, &f, 0) && f.n > 0) {
        r->name = f.segs[f.n - 1];
        if (f.n > 1) {
            r->qual = join_segs(cx, f.segs, f.n - 1);
            r->root = f.segs[0];
        }
        r->flags |= f.flags;
        if (f.n == 1)
            r->flags &= ~(LP_REFF_SELF | LP_REFF_SUPER); /* `this()` / `super()` calls */
    } else {
        /* An expression callee: keep the member name when there is one. */
        const lxr_member *m = member_rule(L->members, callee);
        TSNode name = m ? lp_lxr_field(callee, m->name) : callee;
        flat nf;
        memset(&nf, 0, sizeof nf);
        if (m && flatten(cx, L, name, &nf, 0) && nf.n == 1)
            r->name = nf.segs[0];
        r->qual = collapse(cx, lx_text(cx, m ? lp_lxr_field(callee, m->object) : callee), 80);
        r->flags |= LP_REFF_COMPLEX;
    }
    if (!ts_node_is_null(args)) {
        r->args = collapse(cx, lx_text(cx, args), LP_REF_ARGS_MAX);
        r->nargs = count_args(args);
    }
    return r;
}

void lp_lxr_binding(lx_ctx *cx, int32_t owner, lp_str name, lp_str type, uint32_t flags)
{
    int32_t fn = lp_lxr_enclosing_function(cx, owner);
    if (fn < 0 || !name.len)
        return;
    lxr_local *l = lp_vec_push_zero(&cx->refs->locals);
    l->seq = (uint32_t)cx->refs->locals.len;
    l->fn = fn;
    l->name = name;
    l->type = type;
    l->flags = flags;
}

void lp_lxr_locals_in(lx_ctx *cx, int32_t owner, TSNode n, lp_str type, uint32_t flags)
{
    const lxr_lang *L = cx->refs->lang;
    if (ts_node_is_null(n))
        return;
    static const char *const binders[] = {"shorthand_property_identifier_pattern", NULL};
    static const char *const stops[] = {"call", "call_expression", "subscript",
                                        "subscript_expression", "index_expression",
                                        "attribute", "member_expression", "field_expression",
                                        "selector_expression", "type", "type_annotation",
                                        "string", "integer", "number", NULL};
    if (lp_lxr_type_in(n, L->idents) || lp_lxr_type_in(n, binders)) {
        lp_lxr_binding(cx, owner, lx_text(cx, n), type, flags);
        return;
    }
    if (lp_lxr_type_in(n, stops) || member_rule(L->members, n))
        return;
    const char *t = ts_node_type(n);
    /* destructuring defaults: only the bound side */
    if (!strcmp(t, "assignment_pattern") || !strcmp(t, "object_assignment_pattern") ||
        !strcmp(t, "default_parameter") || !strcmp(t, "typed_default_parameter")) {
        TSNode l = lp_lxr_field(n, "left");
        if (ts_node_is_null(l))
            l = lp_lxr_field(n, "name");
        lp_lxr_locals_in(cx, owner, l, type, flags);
        return;
    }
    if (!strcmp(t, "pair_pattern")) {
        lp_lxr_locals_in(cx, owner, lp_lxr_field(n, "value"), type, flags);
        return;
    }
    TSNode skip = lp_lxr_field(n, "type"); /* tuple_struct_pattern's path, annotations */
    uint32_t cnt = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < cnt && i < 256; i++) {
        TSNode c = ts_node_named_child(n, i);
        if (!ts_node_is_null(skip) && ts_node_eq(c, skip))
            continue;
        lp_lxr_locals_in(cx, owner, c, type, flags);
    }
}

/* ------------------------------------------------------------------------------------------
 * Post-pass. */

static int local_cmp(const void *a, const void *b)
{
    const lxr_local *x = a, *y = b;
    if (x->fn != y->fn)
        return x->fn < y->fn ? -1 : 1;
    int c = lp_str_cmp(x->name, y->name);
    if (c)
        return c;
    return (x->seq > y->seq) - (x->seq < y->seq); /* source order among equals */
}

/* First binding of name in fn (locals sorted), or NULL; *count the number of bindings. */
static const lxr_local *find_local(const lx_refs *r, int32_t fn, lp_str name, size_t *count)
{
    size_t lo = 0, hi = r->locals.len;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const lxr_local *l = &r->locals.items[mid];
        int c = l->fn != fn ? (l->fn < fn ? -1 : 1) : lp_str_cmp(l->name, name);
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t k = lo;
    while (k < r->locals.len && r->locals.items[k].fn == fn &&
           lp_str_eq(r->locals.items[k].name, name))
        k++;
    *count = k - lo;
    return k > lo ? &r->locals.items[lo] : NULL;
}

/* The type a method belongs to: the qualified name's segment before the member. */
static lp_str owner_type(const lx_ctx *cx, int32_t fn)
{
    for (int32_t o = fn; o >= 0; o = cx->syms.items[o].container) {
        const lx_sym *s = &cx->syms.items[o];
        if (s->kind != LP_SYM_METHOD && s->kind != LP_SYM_CONSTRUCTOR &&
            s->kind != LP_SYM_PROPERTY)
            continue;
        lp_str q = lp_str_c(s->qname);
        if (q.len <= s->name.len + 1)
            return LP_STR("");
        lp_str head = lp_str_sub(q, 0, q.len - s->name.len - 1);
        return lp_lxr_last_segment(head);
    }
    return LP_STR("");
}

static void mark_call(lx_ctx *cx, lxr_ref *r)
{
    lx_refs *R = cx->refs;
    if (r->flags & LP_REFF_COMPLEX)
        return;
    bool bare = r->qual.len == 0;
    if (r->flags & (LP_REFF_SELF | LP_REFF_SUPER)) {
        if (!lp_str_eq(r->qual, r->root)) { /* this.x.m(): a member of self */
            r->flags = (r->flags & ~(LP_REFF_SELF | LP_REFF_SUPER)) | LP_REFF_COMPLEX;
            return;
        }
        r->rtype = owner_type(cx, lp_lxr_enclosing_function(cx, r->owner));
        if (!r->rtype.len && !(r->flags & LP_REFF_PATH))
            r->flags = (r->flags & ~(LP_REFF_SELF | LP_REFF_SUPER)) | LP_REFF_COMPLEX;
        return;
    }
    lp_str look = bare ? r->name : r->root;
    for (int32_t fn = lp_lxr_enclosing_function(cx, r->owner); fn >= 0;
         fn = lp_lxr_enclosing_function(cx, cx->syms.items[fn].container)) {
        size_t n = 0;
        const lxr_local *l = find_local(R, fn, look, &n);
        if (!l)
            continue;
        if (bare) {
            r->flags |= LP_REFF_SHADOWED;
            return;
        }
        if (!lp_str_eq(r->qual, r->root)) {
            r->flags |= LP_REFF_COMPLEX; /* x.y.m(): a member of a local */
            return;
        }
        bool receiver = false, typed = true, from_call = true;
        lp_str type = l->type;
        for (size_t i = 0; i < n; i++) {
            const lxr_local *b = l + i;
            receiver |= (b->flags & LXR_LOCAL_RECEIVER) != 0;
            if (!b->type.len || !lp_str_eq(b->type, type))
                typed = false;
            if (!(b->flags & LP_REFF_RTYPE_CALL))
                from_call = false;
        }
        if (receiver && n == 1) {
            r->flags |= LP_REFF_SELF;
            r->rtype = l->type.len ? l->type : owner_type(cx, fn);
            if (!r->rtype.len)
                r->flags = (r->flags & ~LP_REFF_SELF) | LP_REFF_UNTYPED;
        } else if (typed && type.len) {
            r->flags |= LP_REFF_TYPED | (from_call ? LP_REFF_RTYPE_CALL : 0);
            r->rtype = type;
        } else {
            r->flags |= LP_REFF_UNTYPED;
        }
        return;
    }
}

static int ref_cmp(const void *a, const void *b)
{
    const lxr_ref *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

void lp_lx_refs_finish(lx_ctx *cx)
{
    lx_refs *R = cx->refs;
    if (!R || !R->lang)
        return;
    if (R->locals.len)
        qsort(R->locals.items, R->locals.len, sizeof R->locals.items[0], local_cmp);
    for (size_t i = 0; i < R->refs.len; i++) {
        lxr_ref *r = &R->refs.items[i];
        if (r->kind == LP_REF_CALL || r->kind == LP_REF_NEW)
            mark_call(cx, r);
    }
    if (R->lang->test_target) {
        for (size_t i = 0; i < cx->syms.len; i++) {
            const lx_sym *s = &cx->syms.items[i];
            if (!(s->flags & LP_SYMF_TEST))
                continue;
            lp_str target = R->lang->test_target(cx, s);
            if (!target.len)
                continue;
            lxr_ref *r = lp_vec_push_zero(&R->refs);
            r->seq = (uint32_t)R->refs.len;
            r->kind = LP_REF_TESTNAME;
            r->owner = (int32_t)i;
            r->nargs = -1;
            r->name = target;
            r->qual = r->alias = r->rtype = r->args = r->root = LP_STR("");
            r->start = s->start;
            r->end = s->sig_end > s->start ? s->sig_end : s->end;
        }
    }
    /* By start; ties keep push order (seq). */
    if (R->refs.len > 1)
        qsort(R->refs.items, R->refs.len, sizeof R->refs.items[0], ref_cmp);
}

static const char *dup0(lp_arena *a, lp_str s)
{
    return lp_arena_strndup(a, s.ptr ? s.ptr : "", s.len);
}

void lp_lx_refs_output(const lx_refs *r, const lx_lines *lines, lp_arena *arena, lp_ref **out,
                    size_t *n)
{
    *n = r->refs.len;
    *out = lp_arena_zalloc(arena, (r->refs.len ? r->refs.len : 1) * sizeof(lp_ref));
    for (size_t i = 0; i < r->refs.len; i++) {
        const lxr_ref *x = &r->refs.items[i];
        lp_ref *y = &(*out)[i];
        y->kind = x->kind;
        y->owner = x->owner;
        y->name = dup0(arena, x->name);
        y->qual = dup0(arena, x->qual);
        y->alias = dup0(arena, x->alias);
        y->rtype = dup0(arena, x->rtype);
        y->args = dup0(arena, x->args);
        y->nargs = x->nargs;
        y->flags = x->flags;
        y->span = lp_lx_make_span(lines, x->start, x->end);
    }
}
