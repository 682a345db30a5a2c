/*
 * parse.c: from a JSON document to a batch of prepared tools.
 *
 * Fast path: json.c parses the whole document once into an arena tree that carries values
 * and byte ranges. When it refuses the document (invalid JSON, or something it refuses
 * conservatively, or a tree over its size cap), the slow path walks the document as before:
 * jscan.c gives the byte range of each value along the same path and jansson validates each
 * slice (its messages are the errors a user sees, in the same order), then json.c reads the
 * validated slice. Both paths hand the same lp_json values to the same adapters, so they
 * agree. Adapters only read fields; the definition bytes are copied untouched. Every
 * dimension an input controls is bounded: document and definition bytes, name length,
 * indexed text per field, schema depth, nodes and text, tags and aliases.
 */
#include "catalog/catalog_int.h"

#define MAX_LIST_ITEMS 32  /* tags or aliases kept per tool */
#define MAX_LIST_BYTES 128 /* bytes of one tag or alias */
#define MAX_ENUM_ITEMS 64  /* enum values indexed per enum */
/* The whole-document tree may take TREE_CAP_PER_BYTE arena bytes per input byte (real
 * catalogs take about 2) plus TREE_CAP_MIN. */
#define TREE_CAP_PER_BYTE 6
#define TREE_CAP_MIN (1u << 20)

/* One collected token. */
typedef struct tok_rec {
    uint32_t off; /* into prep.text */
    uint16_t len;
    uint8_t field;
    uint8_t whole;
} tok_rec;

/* Per-parse scratch, reused for every tool of a document (reset, not freed). */
typedef struct prep {
    lp_cat_parse_ctx *ctx;
    LP_VEC(tok_rec) toks;
    LP_VEC(uint32_t) table; /* hash -> index into uniq, UINT32_MAX empty */
    LP_VEC(lp_cat_pterm) uniq;
    LP_VEC(char) text; /* token texts, back to back */
    lp_buf schema;
    uint32_t flen[NF];
    uint8_t field;
    bool count_whole; /* whole identifiers count in the field length (not in prose) */
    bool schema_truncated;
    size_t schema_nodes;
    lp_arena arena; /* the document's tree (fast path) or one slice's (slow path) */
    size_t base;    /* offset of the tree's text in the document (after a BOM) */
    LP_VEC(char) ns_key; /* the last namespace squashed ... */
    char *ns_squash;     /* ... and its squashed form (NULL: none yet) */
} prep;

static void prep_reset(prep *p)
{
    p->toks.len = p->uniq.len = p->text.len = 0;
    lp_buf_reset(&p->schema);
    memset(p->flen, 0, sizeof p->flen);
    p->schema_truncated = false;
    p->schema_nodes = 0;
}

static void prep_release(prep *p)
{
    lp_vec_free(&p->toks);
    lp_vec_free(&p->ns_key);
    free(p->ns_squash);
    lp_vec_free(&p->table);
    lp_vec_free(&p->uniq);
    lp_vec_free(&p->text);
    lp_buf_release(&p->schema);
    lp_arena_release(&p->arena);
}

static int collect_token(void *ctx, const lp_text_token *tok)
{
    prep *p = ctx;
    if (p->toks.len == p->toks.cap)
        lp_vec_reserve(&p->toks, p->toks.len + 1);
    p->toks.items[p->toks.len++] =
        (tok_rec){(uint32_t)p->text.len, (uint16_t)tok->len, p->field,
                  (uint8_t)((tok->flags & LP_TEXT_TOK_WHOLE) != 0)};
    if (p->text.len + tok->len > p->text.cap)
        lp_vec_reserve(&p->text, p->text.len + tok->len);
    memcpy(p->text.items + p->text.len, tok->text, tok->len);
    p->text.len += tok->len;
    if (p->count_whole || !(tok->flags & LP_TEXT_TOK_WHOLE))
        p->flen[p->field]++;
    return 0;
}

static void index_text(prep *p, int field, lp_str s, bool prose)
{
    if (s.len > p->ctx->limits->max_text_bytes)
        s.len = p->ctx->limits->max_text_bytes;
    p->field = (uint8_t)field;
    p->count_whole = !prose;
    lp_text_tokenize(prose ? p->ctx->prose_tk : p->ctx->code_tk, s, collect_token, p);
}

/* Merge collected tokens into the doc's unique terms with per-field counts (a hash table
 * over the token texts; terms keep first-occurrence order and their hash, which the index
 * reuses). */
static void finish_terms(prep *p, lp_cat_doc *d)
{
    size_t n = p->toks.len, cap = 16;
    while (cap < 2 * n)
        cap *= 2;
    lp_vec_reserve(&p->table, cap);
    memset(p->table.items, 0xff, cap * sizeof *p->table.items);
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++) {
        const tok_rec *tr = &p->toks.items[i];
        const char *t = p->text.items + tr->off;
        uint16_t len = tr->len;
        uint64_t h = lp_hash64_of(t, len);
        size_t k = (size_t)h & (cap - 1);
        lp_cat_pterm *u = NULL;
        while (p->table.items[k] != UINT32_MAX) {
            lp_cat_pterm *c = &p->uniq.items[p->table.items[k]];
            if (c->hash == h && c->len == len && !memcmp(p->text.items + c->off, t, len)) {
                u = c;
                break;
            }
            k = (k + 1) & (cap - 1);
        }
        if (!u) {
            p->table.items[k] = (uint32_t)p->uniq.len;
            u = lp_vec_push_zero(&p->uniq);
            u->off = tr->off;
            u->len = len;
            u->hash = h;
            u->whole = 1;
            bytes += len;
        }
        u->whole &= tr->whole;
        if (u->tf[tr->field] < 255)
            u->tf[tr->field]++;
    }
    size_t uniq = p->uniq.len;
    d->pterms = lp_xmalloc((uniq ? uniq : 1) * sizeof *d->pterms);
    d->term_text = lp_xmalloc(bytes ? bytes : 1);
    size_t off = 0;
    for (size_t i = 0; i < uniq; i++) {
        d->pterms[i] = p->uniq.items[i];
        memcpy(d->term_text + off, p->text.items + p->uniq.items[i].off, d->pterms[i].len);
        d->pterms[i].off = (uint32_t)off;
        off += d->pterms[i].len;
    }
    d->npterms = (uint32_t)uniq;
    memcpy(d->flen, p->flen, sizeof d->flen);
    d->mem += uniq * sizeof *d->pterms + bytes;
}

/* ------------------------------------------------------------------------------------------
 * Schema text: bounded, iterative, never follows $ref. */
static bool hostile_key(const char *k)
{
    return !strcmp(k, "__proto__") || !strcmp(k, "constructor") || !strcmp(k, "prototype");
}

static void schema_put(prep *p, const char *s, size_t n)
{
    size_t max = p->ctx->limits->max_schema_text_bytes;
    if (p->schema.len >= max) {
        p->schema_truncated = true;
        return;
    }
    if (p->schema.len + n + 1 > max) {
        n = max - p->schema.len - 1;
        p->schema_truncated = true;
    }
    lp_buf_append(&p->schema, s, n);
    lp_buf_putc(&p->schema, '\n');
}

enum { SK_OTHER, SK_TEXT, SK_ENUM, SK_SKIP, SK_PROPS };

/* What a schema keyword means for text collection (one strcmp per key at most). */
static int schema_key(const char *k)
{
    switch (k[0]) {
    case 'd':
        return !strcmp(k, "description") ? SK_TEXT : !strcmp(k, "default") ? SK_SKIP : SK_OTHER;
    case 't':
        return !strcmp(k, "title") ? SK_TEXT : SK_OTHER;
    case 'c':
        return !strcmp(k, "const") ? SK_TEXT : SK_OTHER;
    case 'e':
        return !strcmp(k, "enum")                              ? SK_ENUM
               : !strcmp(k, "examples") || !strcmp(k, "example") ? SK_SKIP
                                                                 : SK_OTHER;
    case '$':
        return !strcmp(k, "$ref") ? SK_SKIP : SK_OTHER;
    case 'p':
        return !strcmp(k, "properties") || !strcmp(k, "patternProperties") ? SK_PROPS
                                                                              : SK_OTHER;
    default:
        return SK_OTHER;
    }
}

static bool is_type(const lp_json *v, lp_json_type t) { return v && v->type == t; }
static bool is_object(const lp_json *v) { return is_type(v, LP_JSON_OBJECT); }
static bool is_array(const lp_json *v) { return is_type(v, LP_JSON_ARRAY); }
static bool is_string(const lp_json *v) { return is_type(v, LP_JSON_STRING); }
static bool is_container(const lp_json *v) { return is_object(v) || is_array(v); }

typedef struct frame {
    const lp_json *node;
    uint32_t depth;
    bool props; /* node is a "properties" map: its keys are property names */
} frame;

/* Breadth-first, so the top-level properties (the ones that matter most) are read before
 * a wide or deep subtree exhausts the node budget. The queue holds at most max_schema_nodes
 * entries. */
static void schema_walk(prep *p, const lp_json *root)
{
    if (!is_container(root))
        return;
    const lp_catalog_limits *lim = p->ctx->limits;
    LP_VEC(frame) queue = {0};
    size_t head = 0;
    lp_vec_push(&queue, ((frame){root, 0, false}));
    p->schema_nodes++;
    while (head < queue.len) {
        frame f = queue.items[head++];
        if (p->schema.len >= lim->max_schema_text_bytes) {
            p->schema_truncated = true;
            break;
        }
        bool child_ok = f.depth + 1 <= lim->max_schema_depth;
#define PUSH(n, pr)                                                                            \
    do {                                                                                       \
        if (!child_ok || p->schema_nodes >= lim->max_schema_nodes) {                           \
            p->schema_truncated = true;                                                        \
        } else {                                                                               \
            p->schema_nodes++;                                                                 \
            lp_vec_push(&queue, ((frame){(n), f.depth + 1, (pr)}));                            \
        }                                                                                      \
    } while (0)
        if (is_array(f.node)) {
            for (uint32_t i = 0; i < f.node->n; i++) {
                const lp_json *v = &f.node->items[i];
                if (p->schema_nodes >= lim->max_schema_nodes) {
                    p->schema_truncated = true;
                    break; /* nothing more can be queued, and arrays hold no text */
                }
                if (is_container(v))
                    PUSH(v, false);
            }
            continue;
        }
        for (uint32_t i = 0; i < f.node->n; i++) {
            const char *k = f.node->pairs[i].key;
            const lp_json *v = &f.node->pairs[i].val;
            if (hostile_key(k))
                continue;
            if (p->schema.len >= lim->max_schema_text_bytes) {
                p->schema_truncated = true;
                break;
            }
            if (f.props) {
                schema_put(p, k, f.node->pairs[i].klen);
                if (is_container(v))
                    PUSH(v, false);
                continue;
            }
            int kind = schema_key(k);
            if (kind == SK_TEXT) {
                if (is_string(v))
                    schema_put(p, v->str, v->n);
                else if (is_container(v))
                    PUSH(v, false); /* a property that happens to be named "title" */
            } else if (kind == SK_ENUM) {
                if (is_array(v)) {
                    size_t shown = 0;
                    for (uint32_t j = 0; j < v->n; j++) {
                        const lp_json *e = &v->items[j];
                        if (shown == MAX_ENUM_ITEMS) {
                            p->schema_truncated = true;
                            break;
                        }
                        if (is_string(e)) {
                            schema_put(p, e->str, e->n);
                            shown++;
                        }
                    }
                }
            } else if (kind == SK_SKIP) {
                /* $ref is never followed; defaults and examples are data, not schema. */
            } else if (kind == SK_PROPS) {
                if (is_object(v))
                    PUSH(v, true);
            } else if (is_container(v)) {
                PUSH(v, false);
            }
        }
#undef PUSH
    }
    lp_vec_free(&queue);
}

/* ------------------------------------------------------------------------------------------
 * Adapters. */
static const char *type_name(const lp_json *v)
{
    switch (v->type) {
    case LP_JSON_OBJECT:
        return "an object";
    case LP_JSON_ARRAY:
        return "an array";
    case LP_JSON_STRING:
        return "a string";
    case LP_JSON_NUMBER:
        return "a number";
    case LP_JSON_TRUE:
    case LP_JSON_FALSE:
        return "a boolean";
    default:
        return "null";
    }
}

static lp_catalog_provider detect(const lp_json *v, lp_catalog_provider forced,
                                  const lp_json **fn)
{
    *fn = v;
    const lp_json *type = lp_json_get(v, "type");
    if (is_string(type) && !strcmp(type->str, "function")) {
        const lp_json *f = lp_json_get(v, "function");
        if (is_object(f)) {
            *fn = f;
            return LP_CATALOG_OPENAI_CHAT;
        }
        return LP_CATALOG_OPENAI_RESPONSES;
    }
    if (forced != LP_CATALOG_GENERIC)
        return forced;
    if (lp_json_get(v, "input_schema"))
        return LP_CATALOG_ANTHROPIC;
    if (lp_json_get(v, "inputSchema") || lp_json_get(v, "outputSchema") ||
        lp_json_get(v, "annotations") || lp_json_get(v, "title"))
        return LP_CATALOG_MCP;
    if (is_string(type))
        return LP_CATALOG_ANTHROPIC; /* server tools: {"type":"web_search_...","name":...} */
    return LP_CATALOG_GENERIC;
}

/* Entry description for messages: "FILE entry #3 (line 7)". */
/* Entries arrive in document order, so the line count continues from the previous entry:
 * linear in the document overall, not per entry. */
static void where(lp_cat_parse_ctx *c, lp_jrange r, char *out, size_t n)
{
    if (r.start < c->line_off) {
        c->line_off = 0;
        c->line = 1;
    }
    for (size_t i = c->line_off; i < r.start && i < c->len; i++)
        c->line += c->s[i] == '\n';
    c->line_off = r.start;
    snprintf(out, n, "%s entry #%zu (byte %zu, line %zu)", c->source, c->index, r.start,
             c->line);
}

static bool bad_name(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f)
            return true;
    }
    return false;
}

/* Copy up to MAX_LIST_ITEMS strings of arr into a NULL-free owned array. */
static char **string_list(const lp_json *arr, char **prev, size_t *n, lp_cat_doc *d)
{
    if (!is_array(arr))
        return prev;
    for (uint32_t i = 0; i < arr->n; i++) {
        const lp_json *e = &arr->items[i];
        if (*n >= MAX_LIST_ITEMS)
            break;
        if (!is_string(e) || e->n == 0 || e->n > MAX_LIST_BYTES)
            continue;
        prev = lp_xrealloc(prev, (*n + 1) * sizeof *prev);
        prev[(*n)++] = lp_xstrndup(e->str, e->n);
        d->mem += e->n + 1 + sizeof(char *);
    }
    return prev;
}

static const char *opt_string(const lp_json *obj, const char *key)
{
    const lp_json *v = lp_json_get(obj, key);
    return is_string(v) ? v->str : NULL;
}

/* Split a namespaced name: "mcp__github__x", "github__x", "github.x", "github/x". */
static bool split_prefix(const char *name, size_t *ns_len, const char **local)
{
    const char *s = name;
    if (!strncmp(s, "mcp__", 5) && s[5])
        s += 5;
    const char *seps[] = {"__", ".", "/"};
    for (size_t k = 0; k < LP_ARRAY_LEN(seps); k++) {
        const char *p = strstr(s + 1, seps[k]);
        if (p && p[strlen(seps[k])]) {
            *ns_len = (size_t)(p - s);
            *local = p + strlen(seps[k]);
            /* report the namespace relative to name */
            *ns_len += (size_t)(s - name);
            return true;
        }
        if (p)
            return false;
    }
    return false;
}

static void hint_of(const lp_json *ann, const char *key, lp_catalog_hint *h)
{
    const lp_json *v = lp_json_get(ann, key);
    *h = is_type(v, LP_JSON_TRUE)    ? LP_HINT_TRUE
         : is_type(v, LP_JSON_FALSE) ? LP_HINT_FALSE
                                     : LP_HINT_ABSENT;
}

/* Prepare the definition v at bytes r of the document. v carries its own range (and the
 * token estimate's counts) when it comes from a whole-document parse (fast path). */
static lp_status prepare(lp_cat_parse_ctx *c, const lp_json *v, lp_jrange r, bool counted,
                         lp_cat_doc **out, lp_error *err)
{
    char at[LP_ERROR_MSG_MAX / 2];
    *out = NULL;
    c->index++;
    /* The entry's location is only spelled out when something is wrong with it. */
#define AT (where(c, r, at, sizeof at), at)
    if (!is_object(v))
        return lp_cat_fail(err, LP_CATALOG_INVALID_DEFINITION,
                           "%s is %s; a tool definition must be an object with a \"name\"", AT,
                           type_name(v));
    if (r.end - r.start > c->limits->max_definition_bytes)
        return lp_cat_fail(err, LP_CATALOG_DEFINITION_TOO_LARGE,
                           "%s is %zu bytes, over the %zu-byte limit; shorten its schema or "
                           "raise max_definition_bytes",
                           AT, r.end - r.start, c->limits->max_definition_bytes);
    const lp_json *fn;
    lp_catalog_provider prov = detect(v, c->forced, &fn);
    const lp_json *jname = lp_json_get(fn, "name");
    if (!is_string(jname)) {
        const lp_json *type = lp_json_get(v, "type");
        return lp_cat_fail(err, LP_CATALOG_MISSING_NAME,
                           "%s has %s \"name\"%s%s%s; every tool needs a string name", AT,
                           jname ? type_name(jname) : "no", is_string(type) ? " (type " : "",
                           is_string(type) ? type->str : "", is_string(type) ? ")" : "");
    }
    const char *name = jname->str;
    size_t name_len = jname->n;
    if (name_len == 0 || name_len > c->limits->max_name_bytes || bad_name(name, name_len) ||
        strlen(name) != name_len)
        return lp_cat_fail(err, LP_CATALOG_INVALID_NAME,
                           "%s has a name that is empty, longer than %zu bytes or holds "
                           "control characters; fix the name",
                           AT, c->limits->max_name_bytes);
    const lp_json *jdesc = lp_json_get(fn, "description");
    if (jdesc && !is_string(jdesc) && !is_type(jdesc, LP_JSON_NULL))
        return lp_cat_fail(err, LP_CATALOG_INVALID_DEFINITION,
                           "%s (tool '%.*s') has a \"description\" that is %s; it must be a "
                           "string",
                           AT, LP_CUT(name, 64), type_name(jdesc));
#undef AT
    const char *desc = is_string(jdesc) ? jdesc->str : "";
    size_t desc_len = is_string(jdesc) ? jdesc->n : 0;

    lp_cat_doc *d = lp_xcalloc(1, sizeof *d);
    d->pub.provider = prov;
    /* Namespace and local name. */
    const char *local = name;
    size_t ns_len = 0;
    const char *ns = "";
    if (c->server && *c->server) {
        ns = c->server;
        ns_len = strlen(ns);
        size_t pl;
        const char *l2;
        if (split_prefix(name, &pl, &l2))
            local = l2;
    } else if (split_prefix(name, &ns_len, &local)) {
        ns = name;
        if (!strncmp(ns, "mcp__", 5)) {
            ns += 5;
            ns_len -= 5;
        }
    }
    /* Title: MCP title, else annotations.title. */
    const lp_json *ann = lp_json_get(v, "annotations");
    const char *title = opt_string(v, "title");
    const char *ann_title = is_object(ann) ? opt_string(ann, "title") : NULL;
    if (!title)
        title = ann_title ? ann_title : "";
    if (is_object(ann)) {
        hint_of(ann, "readOnlyHint", &d->pub.hints[LP_CATALOG_HINT_READ_ONLY]);
        hint_of(ann, "destructiveHint", &d->pub.hints[LP_CATALOG_HINT_DESTRUCTIVE]);
        hint_of(ann, "idempotentHint", &d->pub.hints[LP_CATALOG_HINT_IDEMPOTENT]);
        hint_of(ann, "openWorldHint", &d->pub.hints[LP_CATALOG_HINT_OPEN_WORLD]);
    }
    /* Strings block: id, name, ns, title, description, group, source. */
    lp_buf sb;
    lp_buf_init(&sb, 0);
    size_t o_id = 0;
    if (c->server && *c->server)
        lp_buf_printf(&sb, "%s/", c->server);
    lp_buf_append(&sb, name, name_len);
    lp_buf_putc(&sb, 0);
    size_t o_name = sb.len;
    lp_buf_append(&sb, name, name_len);
    lp_buf_putc(&sb, 0);
    size_t o_ns = sb.len;
    lp_buf_append(&sb, ns, ns_len);
    lp_buf_putc(&sb, 0);
    size_t o_title = sb.len;
    lp_buf_puts(&sb, title);
    lp_buf_putc(&sb, 0);
    size_t o_desc = sb.len;
    lp_buf_append(&sb, desc, desc_len);
    lp_buf_putc(&sb, 0);
    size_t o_group = sb.len;
    lp_buf_puts(&sb, c->group);
    lp_buf_putc(&sb, 0);
    size_t o_source = sb.len;
    lp_buf_puts(&sb, c->source);
    lp_buf_putc(&sb, 0);
    d->mem += sb.len;
    d->strings = lp_buf_detach(&sb, NULL);
    d->pub.id = d->strings + o_id;
    d->pub.name = d->strings + o_name;
    d->pub.ns = d->strings + o_ns;
    d->pub.title = d->strings + o_title;
    d->pub.description = d->strings + o_desc;
    d->pub.group = d->strings + o_group;
    d->pub.source = d->strings + o_source;
    /* Definition bytes. */
    size_t dl = r.end - r.start;
    d->def = lp_xmalloc(dl + 1);
    memcpy(d->def, c->s + r.start, dl);
    d->def[dl] = '\0';
    d->mem += dl + 1;
    d->pub.definition = (lp_str){d->def, dl};
    d->pub.tokens = counted ? lp_json_estimate_tokens(v)
                            : lp_catalog_estimate_tokens(d->pub.definition);
    /* Tags and aliases: _meta (plain or "loupe/" keys), or the definition's own arrays. */
    size_t ntags = 0, nal = 0;
    const lp_json *meta = lp_json_get(v, "_meta");
    if (is_object(meta)) {
        d->tags = string_list(lp_json_get(meta, "tags"), d->tags, &ntags, d);
        d->tags = string_list(lp_json_get(meta, "loupe/tags"), d->tags, &ntags, d);
        d->aliases = string_list(lp_json_get(meta, "aliases"), d->aliases, &nal, d);
        d->aliases = string_list(lp_json_get(meta, "loupe/aliases"), d->aliases, &nal, d);
    }
    d->tags = string_list(lp_json_get(v, "tags"), d->tags, &ntags, d);
    d->aliases = string_list(lp_json_get(v, "aliases"), d->aliases, &nal, d);
    d->pub.tags = (const char *const *)d->tags;
    d->pub.ntags = ntags;
    d->pub.aliases = (const char *const *)d->aliases;
    d->pub.naliases = nal;
    /* Squashed names for exact-name matching. */
    lp_buf sq;
    lp_buf_init(&sq, 0);
    lp_text_squash_with(c->squash_tk, lp_str_c(local), &sq);
    d->squash_name = lp_buf_detach(&sq, NULL);
    lp_text_squash_with(c->squash_tk, (lp_str){name, name_len}, &sq);
    d->squash_full = lp_buf_detach(&sq, NULL);
    /* Tools of one file mostly share their namespace: squash it once. */
    prep *pp = c->scratch;
    if (!pp->ns_squash || pp->ns_key.len != ns_len || memcmp(pp->ns_key.items, ns, ns_len)) {
        lp_text_squash_with(c->squash_tk, (lp_str){ns, ns_len}, &sq);
        free(pp->ns_squash);
        pp->ns_squash = lp_buf_detach(&sq, NULL);
        pp->ns_key.len = 0;
        lp_vec_reserve(&pp->ns_key, ns_len + 1);
        memcpy(pp->ns_key.items, ns, ns_len);
        pp->ns_key.len = ns_len;
    }
    d->squash_ns = lp_xstrdup(pp->ns_squash);
    d->mem += strlen(d->squash_name) + strlen(d->squash_full) + strlen(d->squash_ns) + 3;

    /* Fields. */
    prep_reset(pp);
    pp->ctx = c;
#define p (*pp)
    index_text(&p, LP_CATALOG_F_NAME, lp_str_c(local), false);
    index_text(&p, LP_CATALOG_F_NAMESPACE, (lp_str){ns, ns_len}, false);
    if (*title)
        index_text(&p, LP_CATALOG_F_ALIAS, lp_str_c(title), true);
    if (ann_title && title != ann_title && strcmp(ann_title, title) != 0)
        index_text(&p, LP_CATALOG_F_ALIAS, lp_str_c(ann_title), true);
    for (size_t i = 0; i < nal; i++)
        index_text(&p, LP_CATALOG_F_ALIAS, lp_str_c(d->aliases[i]), true);
    for (size_t i = 0; i < ntags; i++)
        index_text(&p, LP_CATALOG_F_TAG, lp_str_c(d->tags[i]), false);
    index_text(&p, LP_CATALOG_F_DESCRIPTION, (lp_str){desc, desc_len}, true);
    static const char *const schema_keys[] = {"inputSchema", "outputSchema", "input_schema",
                                              "parameters", "parametersJsonSchema", "response"};
    for (size_t i = 0; i < LP_ARRAY_LEN(schema_keys); i++)
        schema_walk(&p, lp_json_get(fn, schema_keys[i]));
    p.field = LP_CATALOG_F_SCHEMA;
    p.count_whole = true;
    lp_text_tokenize(c->schema_tk, lp_buf_str(&p.schema), collect_token, &p);
    d->pub.schema_truncated = p.schema_truncated;
    finish_terms(&p, d);
    if (c->dense)
        lp_cat_dense_embed_doc(c->dense, c->params, d);
    if (c->words)
        lp_cat_words_embed_doc(c->words, c->params, d);
#undef p
    d->mem += sizeof *d;
    *out = d;
    return LP_OK;
}

void lp_cat_doc_free(lp_cat_doc *d)
{
    if (!d)
        return;
    free(d->strings);
    for (size_t i = 0; i < d->pub.ntags; i++)
        free(d->tags[i]);
    free(d->tags);
    for (size_t i = 0; i < d->pub.naliases; i++)
        free(d->aliases[i]);
    free(d->aliases);
    free(d->def);
    free(d->squash_name);
    free(d->squash_full);
    free(d->squash_ns);
    free(d->pterms);
    free(d->term_text);
    free(d->dterms);
    free(d->vec);
    free(d->wvec);
    free(d);
}

/* ------------------------------------------------------------------------------------------
 * Shapes. */
/* An object without "name" that is a provider built-in rather than a broken definition:
 * a non-function "type", or none of the keys a function definition has. */
static bool builtin_tool(const lp_json *v)
{
    if (!is_object(v) || lp_json_get(v, "name"))
        return false;
    const lp_json *type = lp_json_get(v, "type");
    if (is_string(type))
        return strcmp(type->str, "function") != 0;
    static const char *const fn_keys[] = {"description", "parameters", "inputSchema",
                                          "input_schema", "function", "title"};
    for (size_t i = 0; i < LP_ARRAY_LEN(fn_keys); i++)
        if (lp_json_get(v, fn_keys[i]))
            return false;
    return v->n > 0;
}

static char *strdup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *strdup_printf(const char *fmt, ...)
{
    lp_buf b;
    lp_buf_init(&b, 0);
    va_list ap;
    va_start(ap, fmt);
    lp_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    return lp_buf_detach(&b, NULL);
}

/* Range of a node of the whole-document tree (fast path) in the document. */
static lp_jrange range_of(const lp_cat_parse_ctx *c, const lp_json *v)
{
    size_t base = ((const prep *)c->scratch)->base;
    return (lp_jrange){base + v->start, base + v->end};
}

/* Slow path: validate one located value with jansson (errors carry absolute positions),
 * then, if out is not NULL, read it into the scratch arena. */
static lp_status parse_slice(lp_cat_parse_ctx *c, lp_jrange r, const lp_json **out,
                             lp_error *err)
{
    json_error_t jerr;
    json_t *j = json_loadb(c->s + r.start, r.end - r.start,
                           JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (!j) {
        size_t pos = r.start + (size_t)(jerr.position > 0 ? jerr.position : 0);
        size_t line, col;
        lp_cat_line_col(c->s, c->len, pos, &line, &col);
        return lp_cat_fail(err, LP_CATALOG_INVALID_JSON,
                           "%s:%zu:%zu (byte %zu): %s; fix the JSON (a catalog file is a "
                           "tools/list result, an array of tool definitions or one definition)",
                           c->source, line, col, pos, jerr.text);
    }
    json_decref(j);
    if (!out)
        return LP_OK;
    *out = lp_json_parse(&((prep *)c->scratch)->arena, c->s + r.start, r.end - r.start,
                         LP_JSON_TRUSTED, 0);
    if (*out)
        return LP_OK;
    return lp_cat_fail(err, LP_CATALOG_INVALID_JSON,
                       "%s (byte %zu): jansson accepts this value but the catalog's JSON "
                       "reader does not; please report it with the file",
                       c->source, r.start);
}

/* The skeleton around the located values is malformed: let jansson say where. */
static lp_status skeleton_error(lp_cat_parse_ctx *c, lp_jrange r, lp_error *err)
{
    lp_status st = parse_slice(c, r, NULL, err);
    if (st)
        return st;
    return lp_cat_fail(err, LP_CATALOG_INVALID_JSON,
                       "%s: malformed JSON between bytes %zu and %zu (a NUL byte or a cut "
                       "file?); re-export it",
                       c->source, r.start, r.end);
}

/* The array of definitions at r: node is its tree (fast path) or NULL (slow path: locate
 * and validate each element here). */
static lp_status walk_array(lp_cat_parse_ctx *c, lp_catalog_batch *b, lp_jrange r,
                            const lp_json *node, bool lenient, int level, lp_error *err)
{
    lp_jrange_vec el = {0};
    lp_status st = LP_OK;
    lp_arena *arena = &((prep *)c->scratch)->arena;
    size_t count;
    if (node) {
        count = node->n;
    } else if (!lp_jscan_array(c->s, c->len, r, &el)) {
        st = skeleton_error(c, r, err);
        goto done;
    } else {
        count = el.len;
    }
    for (size_t i = 0; i < count; i++) {
        /* Slow path: one element at a time, small trees, rewound at once, memory bounded
         * by the largest definition rather than by the document. */
        lp_arena_mark mark = lp_arena_get_mark(arena);
        const lp_json *v;
        lp_jrange er;
        if (node) {
            v = &node->items[i];
            er = range_of(c, v);
        } else {
            er = el.items[i];
            if ((st = parse_slice(c, er, &v, err)))
                goto done;
        }
        const lp_json *decl = lp_json_get(v, "functionDeclarations");
        const char *dk = "functionDeclarations";
        if (!decl) {
            decl = lp_json_get(v, "function_declarations");
            dk = "function_declarations";
        }
        if (level == 0 && is_array(decl) && !lp_json_get(v, "name")) {
            lp_jrange dr;
            if (node) {
                dr = range_of(c, decl);
            } else if (!lp_jscan_member(c->s, c->len, er, dk, &dr)) {
                st = skeleton_error(c, er, err);
                goto done;
            }
            lp_catalog_provider saved = c->forced;
            c->forced = LP_CATALOG_GEMINI;
            st = walk_array(c, b, dr, node ? decl : NULL, lenient, level + 1, err);
            c->forced = saved;
            if (st)
                goto done;
        } else if (builtin_tool(v)) {
            /* Provider built-ins ({"type":"web_search_preview"}, {"googleSearch":{}}) are
             * not function definitions: nothing to index or route. */
            char at[160];
            c->index++;
            where(c, er, at, sizeof at);
            if (b->warnings.len < 10000)
                lp_vec_push(&b->warnings,
                            strdup_printf("builtin_tool: %s is a provider built-in tool "
                                          "without a name; not indexed",
                                          at));
        } else {
            lp_cat_doc *d;
            lp_error e = {0};
            st = prepare(c, v, er, node != NULL, &d, &e);
            if (st == LP_OK) {
                lp_vec_push(&b->docs, d);
            } else if (!lenient) {
                if (err)
                    *err = e;
                goto done;
            } else {
                if (b->warnings.len < 10000)
                    lp_vec_push(&b->warnings, lp_xstrdup(e.msg));
                st = LP_OK;
            }
        }
        if (!node)
            lp_arena_rewind(arena, mark);
    }
done:
    lp_vec_free(&el);
    return st;
}

void lp_catalog_batch_free(lp_catalog_batch *b)
{
    if (!b)
        return;
    for (size_t i = 0; i < b->docs.len; i++)
        lp_cat_doc_free(b->docs.items[i]);
    lp_vec_free(&b->docs);
    for (size_t i = 0; i < b->warnings.len; i++)
        free(b->warnings.items[i]);
    lp_vec_free(&b->warnings);
    free(b->group);
    free(b->source);
    free(b);
}

size_t lp_catalog_batch_count(const lp_catalog_batch *b) { return b ? b->docs.len : 0; }
size_t lp_catalog_batch_warning_count(const lp_catalog_batch *b)
{
    return b ? b->warnings.len : 0;
}
const char *lp_catalog_batch_warning(const lp_catalog_batch *b, size_t i)
{
    return b && i < b->warnings.len ? b->warnings.items[i] : NULL;
}

static int doc_id_cmp(const void *a, const void *b)
{
    const lp_cat_doc *x = *(lp_cat_doc *const *)a, *y = *(lp_cat_doc *const *)b;
    int c = strcmp(x->pub.id, y->pub.id);
    return c ? c : (x < y ? -1 : x > y);
}

/* Where the tools are in a document. */
typedef struct shape {
    bool has_tools;          /* an array of definitions at `tools` */
    lp_jrange tools;
    const lp_json *tools_node; /* its tree (fast path) */
    lp_catalog_provider forced;
    const char *bad_key;     /* "tools" or a declarations key that is not an array */
    char server[256];        /* a "server"/"namespace" string next to the tools */
    bool looks_like_tool;    /* the root has "name" or "function": one definition */
} shape;

/* Read the members of the object at r: validate every value we do not descend into,
 * find the tools array (looking inside "result" once), and the server name. node is the
 * object's tree (fast path: all of it is valid already) or NULL (slow path). */
static lp_status read_object(lp_cat_parse_ctx *c, lp_jrange r, const lp_json *node, shape *sh,
                             int level, lp_error *err)
{
    lp_jmember_vec m = {0};
    lp_status st = LP_OK;
    lp_arena *arena = &((prep *)c->scratch)->arena;
    size_t count = node ? node->n : 0;
    if (!node) {
        if (!lp_jscan_object(c->s, c->len, r, &m)) {
            st = skeleton_error(c, r, err);
            goto done;
        }
        count = m.len;
    }
    /* Keys: valid strings, no duplicates at this level. */
    for (size_t i = 0; i < m.len; i++) {
        if ((st = parse_slice(c, m.items[i].key, NULL, err)))
            goto done;
        for (size_t j = 0; j < i; j++) {
            size_t l1 = m.items[i].key.end - m.items[i].key.start;
            size_t l2 = m.items[j].key.end - m.items[j].key.start;
            if (l1 == l2 && !memcmp(c->s + m.items[i].key.start, c->s + m.items[j].key.start,
                                    l1)) {
                st = lp_cat_fail(err, LP_CATALOG_INVALID_JSON,
                                 "%s (byte %zu): duplicate object key %.*s; keep one", c->source,
                                 m.items[i].key.start,
                                 (int)lp_utf8_cut(c->s + m.items[i].key.start, l1, 64),
                                 c->s + m.items[i].key.start);
                goto done;
            }
        }
    }
    lp_jrange result = {0, 0};
    const lp_json *result_node = NULL;
    bool has_result = false;
    for (size_t i = 0; i < count; i++) {
        const lp_json_pair *pair = node ? &node->pairs[i] : NULL;
        lp_jmember mm = node ? (lp_jmember){{0, 0}, range_of(c, &pair->val)} : m.items[i];
#define KEY_IS(k) (node ? !strcmp(pair->key, (k)) : lp_jscan_key_is(c->s, mm, (k)))
        char first = c->s[mm.value.start];
        bool tools = KEY_IS("tools");
        bool decl = KEY_IS("functionDeclarations") || KEY_IS("function_declarations");
        if ((tools || decl) && !sh->has_tools) {
            if (first != '[') {
                sh->bad_key = tools ? "tools" : "functionDeclarations";
            } else {
                sh->has_tools = true;
                sh->tools = mm.value;
                sh->tools_node = node ? &pair->val : NULL;
                sh->forced = decl ? LP_CATALOG_GEMINI : LP_CATALOG_GENERIC;
                continue; /* validated element by element */
            }
        }
        if (level == 0 && first == '{' && KEY_IS("result")) {
            has_result = true;
            result = mm.value;
            result_node = node ? &pair->val : NULL;
            continue;
        }
        bool named = KEY_IS("server") || KEY_IS("namespace");
        if (level == 0 && (KEY_IS("name") || KEY_IS("function")))
            sh->looks_like_tool = true;
#undef KEY_IS
        lp_arena_mark mark = lp_arena_get_mark(arena);
        const lp_json *v = node ? &pair->val : NULL;
        if (!node && (st = parse_slice(c, mm.value, named ? &v : NULL, err)))
            goto done;
        if (named && is_string(v) && !sh->server[0])
            lp_utf8_copy(sh->server, sizeof sh->server, v->str);
        if (!node)
            lp_arena_rewind(arena, mark);
    }
    if (has_result) {
        if (!sh->has_tools && !sh->looks_like_tool)
            st = read_object(c, result, result_node, sh, level + 1, err);
        else if (!node)
            st = parse_slice(c, result, NULL, err);
    }
done:
    lp_vec_free(&m);
    return st;
}

static const char *kind_of_byte(char ch)
{
    if (ch == '"')
        return "a string";
    if (ch == 't' || ch == 'f')
        return "a boolean";
    if (ch == 'n')
        return "null";
    return "a number";
}

lp_status lp_catalog_parse(const lp_catalog *cat, const char *json, size_t len,
                           const lp_catalog_parse_opts *opts, lp_catalog_batch **out,
                           lp_error *err)
{
    lp_catalog_parse_opts o = opts ? *opts : (lp_catalog_parse_opts){0};
    const char *source = o.source && *o.source ? o.source : "<input>";
    lp_catalog_batch *b = lp_xcalloc(1, sizeof *b);
    lp_status st = LP_OK;
    lp_cat_parse_ctx c = {.limits = &cat->limits, .source = source, .line = 1, .s = json,
                          .len = len};
    shape sh = {0};
    prep scratch = {0};
    const lp_json *root = NULL;
    lp_buf_init(&scratch.schema, 0);
    lp_arena_init(&scratch.arena, 1 << 20);
    c.scratch = &scratch;
    *out = NULL;
    if (len > cat->limits.max_file_bytes) {
        st = lp_cat_fail(err, LP_CATALOG_FILE_TOO_LARGE,
                         "%s is %zu bytes, over the %zu-byte limit; split the catalog into "
                         "several files",
                         source, len, cat->limits.max_file_bytes);
        goto done;
    }
    uint64_t t0 = lp_now_ns();
    /* A UTF-8 byte order mark is tolerated; offsets stay relative to the whole input. */
    size_t base = len >= 3 && !memcmp(json, "\xef\xbb\xbf", 3) ? 3 : 0;
    scratch.base = base;
    /* Fast path: the whole document in one pass, its tree capped at a few times its size
     * (a hostile document of tiny values takes the slow path, bounded per definition). */
    const lp_json *tree = lp_json_parse(&scratch.arena, json + base, len - base, 0,
                                        TREE_CAP_PER_BYTE * (len - base) + TREE_CAP_MIN);
    lp_jrange rr;
    if (tree) {
        rr = range_of(&c, tree);
    } else {
        lp_arena_release(&scratch.arena);
        if (!lp_jscan_value(json, len, base, &rr)) {
            st = skeleton_error(&c, (lp_jrange){base, len}, err);
            goto done;
        }
        for (size_t i = rr.end; i < len; i++) {
            char ch = json[i];
            if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') {
                st = skeleton_error(&c, (lp_jrange){base, len}, err);
                goto done;
            }
        }
    }
    char first = json[rr.start];
    if (first == '[') {
        sh.has_tools = true;
        sh.tools = rr;
        sh.tools_node = tree;
    } else if (first == '{') {
        if ((st = read_object(&c, rr, tree, &sh, 0, err)))
            goto done;
        if (sh.bad_key) {
            st = lp_cat_fail(err, LP_CATALOG_UNKNOWN_SHAPE,
                             "%s: \"%s\" is not an array; it must be an array of tool "
                             "definitions",
                             source, sh.bad_key);
            goto done;
        }
        if (!sh.has_tools && !sh.looks_like_tool) {
            st = lp_cat_fail(err, LP_CATALOG_UNKNOWN_SHAPE,
                             "%s: a JSON object with no \"tools\", \"functionDeclarations\" or "
                             "\"name\"; give a tools/list result, an array of definitions or "
                             "one definition",
                             source);
            goto done;
        }
    } else {
        if (!tree && (st = parse_slice(&c, rr, NULL, err)))
            goto done;
        st = lp_cat_fail(err, LP_CATALOG_UNKNOWN_SHAPE,
                         "%s: the document is %s; give a tools/list result, an array of tool "
                         "definitions or one definition",
                         source, kind_of_byte(first));
        goto done;
    }
    const char *server = o.server && *o.server ? o.server : sh.server[0] ? sh.server : NULL;
    c.server = server;
    c.group = o.group && *o.group ? o.group : c.server ? c.server : source;
    c.forced = sh.forced;
    c.code_tk = lp_text_tokenizer_new(LP_TEXT_CODE | LP_TEXT_STEM);
    /* Prose (titles, aliases, descriptions) keeps a product name whole as well as split
     * ("HackerRank": hacker, rank and hackerrank), so a request that writes it whole finds
     * it; the schema's property names are split only. */
    c.prose_tk = lp_text_tokenizer_new(LP_TEXT_SPLIT_IDENT | LP_TEXT_KEEP_WHOLE | LP_TEXT_STEM |
                                       LP_TEXT_STOPWORDS);
    c.schema_tk = lp_text_tokenizer_new(LP_TEXT_SPLIT_IDENT | LP_TEXT_STEM | LP_TEXT_STOPWORDS);
    c.squash_tk = lp_text_tokenizer_new(LP_TEXT_SQUASH);
    c.params = &cat->params;
    c.dense = lp_cat_dense_prep_new(cat);
    c.words = lp_cat_words_prep_new(cat);
    b->group = lp_xstrdup(c.group);
    b->source = lp_xstrdup(source);
    if (sh.has_tools) {
        st = walk_array(&c, b, sh.tools, sh.tools_node, o.lenient, 0, err);
    } else if (tree || (st = parse_slice(&c, rr, &root, err)) == LP_OK) {
        lp_cat_doc *d;
        st = prepare(&c, tree ? tree : root, rr, tree != NULL, &d, err);
        if (st == LP_OK)
            lp_vec_push(&b->docs, d);
    }
    lp_text_tokenizer_free(c.code_tk);
    lp_text_tokenizer_free(c.prose_tk);
    lp_text_tokenizer_free(c.schema_tk);
    lp_text_tokenizer_free(c.squash_tk);
    lp_cat_dense_prep_free(c.dense);
    lp_cat_words_prep_free(c.words);
    lp_log(LP_LOG_DEBUG, "catalog.parse", "source=%s tools=%zu ms=%.1f", source, b->docs.len,
           (lp_now_ns() - t0) / 1e6);
    if (st)
        goto done;
    if (b->docs.len > cat->limits.max_tools) {
        st = lp_cat_fail(err, LP_CATALOG_TOO_MANY_TOOLS,
                         "%s holds %zu tools, over the %zu-tool limit; split it or raise "
                         "max_tools",
                         source, b->docs.len, cat->limits.max_tools);
        goto done;
    }
    /* Ids are unique inside a batch. */
    if (b->docs.len > 1) {
        lp_cat_doc **sorted = lp_xmalloc(b->docs.len * sizeof *sorted);
        memcpy(sorted, b->docs.items, b->docs.len * sizeof *sorted);
        qsort(sorted, b->docs.len, sizeof *sorted, doc_id_cmp);
        for (size_t i = 1; i < b->docs.len && st == LP_OK; i++)
            if (!strcmp(sorted[i - 1]->pub.id, sorted[i]->pub.id))
                st = lp_cat_fail(err, LP_CATALOG_DUPLICATE_TOOL,
                                 "%s defines tool '%.*s' twice; remove one, or load the "
                                 "files with different server names",
                                 source, LP_CUT(sorted[i]->pub.id, 80));
        free(sorted);
        if (st)
            goto done;
    }
    *out = b;
    b = NULL;
done:
    prep_release(&scratch);
    lp_catalog_batch_free(b);
    return st;
}
