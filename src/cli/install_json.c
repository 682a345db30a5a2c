/*
 * install_json.c: in-place edits of JSON configuration files that may carry comments and
 * trailing commas (JSONC, as OpenCode and Cursor allow).
 *
 * A small scanner records, for the top-level object and one container object below it,
 * where each member's key and value start and end; edits splice text at those offsets and
 * never reformat anything else. Insertion and removal are exact inverses:
 *   - into a non-empty object, `"name": V,<ws>` goes before the first member, where <ws>
 *     repeats the whitespace that preceded that member (newline and indentation);
 *   - into an empty object `{W}`, `\n<indent>"name": V` goes right after `{` when W holds a
 *     newline, `"name": V` otherwise;
 *   - removal cuts the member plus its comma and the whitespace after it, or, for the last
 *     member, the comma before it; for the only member, the whitespace before it.
 */
#include "cli/install.h"

typedef struct member {
    size_t key_start;  /* the opening quote of the key */
    size_t value_start;
    size_t value_end;  /* one past the value */
    size_t comma;      /* the comma after the value, or SIZE_MAX */
    char *key;         /* decoded key (malloc'd) */
} member;

typedef struct object {
    size_t open, close; /* offsets of '{' and '}' */
    LP_VEC(member) members;
} object;

typedef struct scanner {
    const char *s;
    size_t n, i;
    lp_error *err;
    bool failed;
} scanner;

static void object_release(object *o)
{
    for (size_t i = 0; i < o->members.len; i++)
        free(o->members.items[i].key);
    lp_vec_free(&o->members);
}

static void fail(scanner *sc, const char *what)
{
    if (sc->failed)
        return;
    sc->failed = true;
    size_t line = 1, col = 1;
    for (size_t i = 0; i < sc->i && i < sc->n; i++) {
        if (sc->s[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    lp_error_set(sc->err, LP_EINVAL, "line %zu, column %zu: %s", line, col, what);
}

static void skip_ws(scanner *sc)
{
    while (sc->i < sc->n) {
        char c = sc->s[sc->i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            sc->i++;
        } else if (c == '/' && sc->i + 1 < sc->n && sc->s[sc->i + 1] == '/') {
            while (sc->i < sc->n && sc->s[sc->i] != '\n')
                sc->i++;
        } else if (c == '/' && sc->i + 1 < sc->n && sc->s[sc->i + 1] == '*') {
            size_t start = sc->i;
            sc->i += 2;
            while (sc->i + 1 < sc->n && !(sc->s[sc->i] == '*' && sc->s[sc->i + 1] == '/'))
                sc->i++;
            if (sc->i + 1 >= sc->n) {
                sc->i = start;
                fail(sc, "unterminated /* comment");
                return;
            }
            sc->i += 2;
        } else {
            return;
        }
    }
}

/* A string token at sc->i; decoded into out when out is not NULL. */
static void scan_string(scanner *sc, lp_buf *out)
{
    if (sc->i >= sc->n || sc->s[sc->i] != '"') {
        fail(sc, "expected a string");
        return;
    }
    sc->i++;
    while (sc->i < sc->n && sc->s[sc->i] != '"') {
        char c = sc->s[sc->i];
        if ((unsigned char)c < 0x20) {
            fail(sc, "control character inside a string");
            return;
        }
        if (c == '\\') {
            if (sc->i + 1 >= sc->n)
                break;
            char e = sc->s[sc->i + 1];
            const char *map = "\"\"\\\\//b\bf\fn\nr\rt\t";
            const char *m = NULL;
            for (const char *p = map; *p; p += 2)
                if (*p == e)
                    m = p;
            if (m) {
                if (out)
                    lp_buf_putc(out, m[1]);
                sc->i += 2;
            } else if (e == 'u' && sc->i + 5 < sc->n) {
                if (out) /* keys we look for are ASCII: keep the escape verbatim */
                    lp_buf_append(out, sc->s + sc->i, 6);
                sc->i += 6;
            } else {
                fail(sc, "bad escape in a string");
                return;
            }
            continue;
        }
        if (out)
            lp_buf_putc(out, c);
        sc->i++;
    }
    if (sc->i >= sc->n) {
        fail(sc, "unterminated string");
        return;
    }
    sc->i++;
}

static void scan_value(scanner *sc, object *collect, int depth);

/* An object at sc->i; members recorded into collect when it is not NULL. */
static void scan_object(scanner *sc, object *collect, int depth)
{
    if (collect)
        collect->open = sc->i;
    sc->i++; /* '{' */
    for (;;) {
        skip_ws(sc);
        if (sc->failed)
            return;
        if (sc->i >= sc->n) {
            fail(sc, "unterminated object");
            return;
        }
        if (sc->s[sc->i] == '}') {
            if (collect)
                collect->close = sc->i;
            sc->i++;
            return;
        }
        member m = {.key_start = sc->i, .comma = SIZE_MAX};
        lp_buf key;
        lp_buf_init(&key, 0);
        scan_string(sc, collect ? &key : NULL);
        skip_ws(sc);
        if (!sc->failed && (sc->i >= sc->n || sc->s[sc->i] != ':'))
            fail(sc, "expected ':' after a key");
        if (sc->failed) {
            lp_buf_release(&key);
            return;
        }
        sc->i++;
        skip_ws(sc);
        m.value_start = sc->i;
        scan_value(sc, NULL, depth + 1);
        m.value_end = sc->i;
        skip_ws(sc);
        if (sc->failed) {
            lp_buf_release(&key);
            return;
        }
        bool more = false;
        if (sc->i < sc->n && sc->s[sc->i] == ',') {
            m.comma = sc->i;
            sc->i++;
            more = true;
        }
        if (collect) {
            m.key = lp_buf_detach(&key, NULL);
            lp_vec_push(&collect->members, m);
        } else {
            lp_buf_release(&key);
        }
        skip_ws(sc);
        if (sc->failed)
            return;
        if (!more && (sc->i >= sc->n || sc->s[sc->i] != '}')) {
            fail(sc, "expected ',' or '}' after a member");
            return;
        }
    }
}

static void scan_value(scanner *sc, object *collect, int depth)
{
    if (depth > 200) {
        fail(sc, "nesting too deep");
        return;
    }
    skip_ws(sc);
    if (sc->failed)
        return;
    if (sc->i >= sc->n) {
        fail(sc, "expected a value");
        return;
    }
    char c = sc->s[sc->i];
    if (c == '{') {
        scan_object(sc, collect, depth);
    } else if (c == '[') {
        sc->i++;
        for (;;) {
            skip_ws(sc);
            if (sc->failed)
                return;
            if (sc->i < sc->n && sc->s[sc->i] == ']') {
                sc->i++;
                return;
            }
            scan_value(sc, NULL, depth + 1);
            skip_ws(sc);
            if (sc->failed)
                return;
            if (sc->i < sc->n && sc->s[sc->i] == ',') {
                sc->i++;
                continue;
            }
            if (sc->i < sc->n && sc->s[sc->i] == ']') {
                sc->i++;
                return;
            }
            fail(sc, "expected ',' or ']' in an array");
            return;
        }
    } else if (c == '"') {
        scan_string(sc, NULL);
    } else {
        size_t start = sc->i;
        while (sc->i < sc->n && (strchr("+-.eE", sc->s[sc->i]) ||
                                 (sc->s[sc->i] >= '0' && sc->s[sc->i] <= '9') ||
                                 (sc->s[sc->i] >= 'a' && sc->s[sc->i] <= 'z')))
            sc->i++;
        lp_str tok = lp_str_n(sc->s + start, sc->i - start);
        bool ok = lp_str_eq_c(tok, "true") || lp_str_eq_c(tok, "false") ||
                  lp_str_eq_c(tok, "null") || (tok.len && (tok.ptr[0] == '-' ||
                                                           (tok.ptr[0] >= '0' && tok.ptr[0] <= '9')));
        if (!ok) {
            sc->i = start;
            fail(sc, "expected a value");
        }
    }
}

/* Scan the document: the top-level object into top; when container is found and is an
 * object, its members into inner (*has_inner). */
static lp_status scan_doc(const char *text, size_t len, const char *container, object *top,
                          object *inner, bool *has_inner, lp_error *err)
{
    scanner sc = {.s = text, .n = len, .err = err};
    *has_inner = false;
    skip_ws(&sc);
    if (!sc.failed && (sc.i >= sc.n || text[sc.i] != '{'))
        fail(&sc, "the file must hold one JSON object");
    if (!sc.failed)
        scan_value(&sc, top, 0);
    skip_ws(&sc);
    if (!sc.failed && sc.i != sc.n)
        fail(&sc, "unexpected text after the top-level object");
    if (sc.failed)
        return LP_EINVAL;
    for (size_t i = 0; i < top->members.len; i++) {
        member *m = &top->members.items[i];
        if (strcmp(m->key, container) != 0)
            continue;
        if (text[m->value_start] != '{')
            return lp_error_set(err, LP_EINVAL, "\"%s\" is not an object", container);
        scanner s2 = {.s = text, .n = len, .i = m->value_start, .err = err};
        scan_value(&s2, inner, 1);
        if (s2.failed)
            return LP_EINVAL;
        *has_inner = true;
    }
    return LP_OK;
}

static const member *find(const object *o, const char *name)
{
    const member *found = NULL;
    for (size_t i = 0; i < o->members.len; i++)
        if (!strcmp(o->members.items[i].key, name))
            found = &o->members.items[i]; /* the last one wins, as JSON parsers do */
    return found;
}

/* Indentation (spaces/tabs) of the line holding offset pos. */
static lp_str line_indent(const char *s, size_t pos)
{
    size_t b = pos;
    while (b && s[b - 1] != '\n')
        b--;
    size_t e = b;
    while (s[e] == ' ' || s[e] == '\t')
        e++;
    return lp_str_n(s + b, e - b);
}

static void render_value(const json_t *v, lp_buf *out)
{
    char *t = json_dumps(v, JSON_ENCODE_ANY); /* one line, ", " and ": " separators */
    lp_buf_puts(out, t ? t : "null");
    free(t);
}

/* Splice `ins` into text at pos, or replace [from, to) with it. */
static void splice(const char *text, size_t len, size_t from, size_t to, lp_str ins, lp_buf *out)
{
    lp_buf_reset(out);
    lp_buf_append(out, text, from);
    lp_buf_put_str(out, ins);
    lp_buf_append(out, text + to, len - to);
}

/* Text for a new member in object o: inserted at *at. */
static void member_insertion(const char *text, const object *o, const char *name,
                             const json_t *value, lp_buf *ins, size_t *at)
{
    lp_buf kv;
    lp_buf_init(&kv, 0);
    json_t *k = lp_json_textz(name);
    render_value(k, &kv);
    json_decref(k);
    lp_buf_puts(&kv, ": ");
    render_value(value, &kv);
    lp_buf_reset(ins);
    if (o->members.len) {
        const member *first = &o->members.items[0];
        size_t ws = first->key_start;
        while (ws > o->open + 1 && strchr(" \t\r\n", text[ws - 1]))
            ws--;
        lp_str gap = lp_str_n(text + ws, first->key_start - ws);
        if (lp_str_find_char(gap, '\n', 0) == SIZE_MAX) {
            /* on the line of what precedes it: `"name": V, ` */
            lp_buf_put_str(ins, lp_buf_str(&kv));
            lp_buf_puts(ins, ", ");
        } else {
            size_t nl = gap.len;
            while (nl && gap.ptr[nl - 1] != '\n')
                nl--;
            lp_buf_put_str(ins, lp_buf_str(&kv));
            lp_buf_putc(ins, ',');
            lp_buf_puts(ins, "\n");
            lp_buf_put_str(ins, lp_str_sub(gap, nl, gap.len));
        }
        *at = first->key_start;
    } else {
        lp_str inner = lp_str_n(text + o->open + 1, o->close - o->open - 1);
        if (lp_str_find_char(inner, '\n', 0) != SIZE_MAX) {
            lp_str ind = line_indent(text, o->open);
            lp_buf_putc(ins, '\n');
            lp_buf_put_str(ins, ind);
            lp_buf_puts(ins, ind.len && ind.ptr[0] == '\t' ? "\t" : "  ");
        }
        lp_buf_put_str(ins, lp_buf_str(&kv));
        *at = o->open + 1;
    }
    lp_buf_release(&kv);
}

/* The span removing member m of object o (see the file comment). */
static void member_removal(const char *text, const object *o, const member *m, size_t *from,
                           size_t *to)
{
    size_t idx = (size_t)(m - o->members.items);
    size_t end = m->comma != SIZE_MAX ? m->comma + 1 : m->value_end;
    if (o->members.len == 1) {
        size_t b = m->key_start;
        while (b > o->open + 1 && strchr(" \t\r\n", text[b - 1]))
            b--;
        *from = b;
        *to = end;
    } else if (m->comma != SIZE_MAX && idx + 1 < o->members.len) {
        size_t e = end;
        while (strchr(" \t\r\n", text[e]) && text[e])
            e++;
        *from = m->key_start;
        *to = e;
    } else {
        const member *prev = &o->members.items[idx - 1];
        *from = prev->comma;
        *to = end;
    }
}

lp_status lp_jsonc_set_member(const char *text, size_t len, const char *container,
                              const char *name, const json_t *value, lp_buf *out,
                              lp_edit_result *res, lp_edit_created *created, lp_error *err)
{
    memset(created, 0, sizeof *created);
    *res = LP_EDIT_UNCHANGED;
    lp_buf ins;
    lp_buf_init(&ins, 0);
    if (lp_str_trim(lp_str_n(text, len)).len == 0) {
        /* A new file. */
        lp_buf_reset(out);
        lp_buf_puts(out, "{\n  ");
        json_t *k = lp_json_textz(container);
        render_value(k, out);
        json_decref(k);
        lp_buf_puts(out, ": {\n    ");
        k = lp_json_textz(name);
        render_value(k, out);
        json_decref(k);
        lp_buf_puts(out, ": ");
        render_value(value, out);
        lp_buf_puts(out, "\n  }\n}\n");
        created->container = true;
        *res = LP_EDIT_ADDED;
        lp_buf_release(&ins);
        return LP_OK;
    }
    object top = {0}, inner = {0};
    bool has_inner;
    lp_status rc = scan_doc(text, len, container, &top, &inner, &has_inner, err);
    if (rc)
        goto done;
    if (!has_inner) {
        json_t *c = json_object();
        json_object_set(c, name, (json_t *)value);
        size_t at;
        member_insertion(text, &top, container, c, &ins, &at);
        json_decref(c);
        splice(text, len, at, at, lp_buf_str(&ins), out);
        created->container = true;
        *res = LP_EDIT_ADDED;
        goto done;
    }
    const member *m = find(&inner, name);
    if (m) {
        json_t *cur = json_loadb(text + m->value_start, m->value_end - m->value_start,
                                 JSON_DECODE_ANY, NULL);
        bool same = cur && json_equal(cur, (json_t *)value);
        json_decref(cur);
        if (same) {
            lp_buf_reset(out);
            lp_buf_append(out, text, len);
            goto done;
        }
        render_value(value, &ins);
        splice(text, len, m->value_start, m->value_end, lp_buf_str(&ins), out);
        *res = LP_EDIT_UPDATED;
        goto done;
    }
    size_t at;
    member_insertion(text, &inner, name, value, &ins, &at);
    splice(text, len, at, at, lp_buf_str(&ins), out);
    *res = LP_EDIT_ADDED;
done:
    object_release(&top);
    object_release(&inner);
    lp_buf_release(&ins);
    return rc;
}

lp_status lp_jsonc_remove_member(const char *text, size_t len, const char *container,
                                 const char *name, bool remove_container, lp_buf *out,
                                 lp_edit_result *res, lp_error *err)
{
    *res = LP_EDIT_ABSENT;
    lp_buf_reset(out);
    lp_buf_append(out, text, len);
    if (lp_str_trim(lp_str_n(text, len)).len == 0)
        return LP_OK;
    object top = {0}, inner = {0};
    bool has_inner;
    lp_status rc = scan_doc(text, len, container, &top, &inner, &has_inner, err);
    if (rc || !has_inner)
        goto done;
    const member *m = find(&inner, name);
    if (!m)
        goto done;
    size_t from, to;
    if (remove_container && inner.members.len == 1) {
        member_removal(text, &top, find(&top, container), &from, &to);
    } else {
        member_removal(text, &inner, m, &from, &to);
    }
    splice(text, len, from, to, LP_STR(""), out);
    *res = LP_EDIT_REMOVED;
done:
    object_release(&top);
    object_release(&inner);
    return rc;
}

json_t *lp_jsonc_get_member(const char *text, size_t len, const char *container,
                            const char *name, bool *present, lp_error *err)
{
    *present = false;
    if (lp_str_trim(lp_str_n(text, len)).len == 0)
        return NULL;
    object top = {0}, inner = {0};
    bool has_inner;
    json_t *v = NULL;
    if (scan_doc(text, len, container, &top, &inner, &has_inner, err) == LP_OK && has_inner) {
        const member *m = find(&inner, name);
        if (m) {
            *present = true;
            v = json_loadb(text + m->value_start, m->value_end - m->value_start,
                           JSON_DECODE_ANY, NULL);
        }
    }
    object_release(&top);
    object_release(&inner);
    return v;
}

bool lp_jsonc_is_empty_object(const char *text, size_t len)
{
    object top = {0}, inner = {0};
    bool has_inner;
    lp_error err;
    bool empty = scan_doc(text, len, "", &top, &inner, &has_inner, &err) == LP_OK &&
                 top.members.len == 0;
    object_release(&top);
    object_release(&inner);
    return empty;
}
