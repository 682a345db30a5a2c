/*
 * pairs.c: (description, code) pairs: extraction from parse results, cleaning of doc
 * comments, the pairs file, and the parallel extraction driver.
 *
 * Extraction uses only the lp_parse contract (lang/lang.h): symbols with their spans and
 * doc spans. Output order is the list order whatever the thread count.
 */
#include "train.h"

#include <ctype.h>
#include <pthread.h>

void lp_pairs_init(lp_pairs *p)
{
    memset(p, 0, sizeof *p);
    lp_arena_init(&p->arena, 1 << 20);
}

void lp_pairs_release(lp_pairs *p)
{
    for (size_t i = 0; i < p->units.len; i++)
        free(p->units.items[i]);
    lp_vec_free(&p->units);
    lp_vec_free(&p->items);
    lp_arena_release(&p->arena);
}

uint32_t lp_pairs_unit(lp_pairs *p, const char *name)
{
    for (size_t i = 0; i < p->units.len; i++)
        if (!strcmp(p->units.items[i], name))
            return (uint32_t)i;
    lp_vec_push(&p->units, lp_xstrdup(name));
    return (uint32_t)(p->units.len - 1);
}

void lp_pairs_add(lp_pairs *p, uint32_t unit, lp_lang lang, lp_str desc, lp_str code)
{
    lp_pair *x = lp_vec_push_zero(&p->items);
    x->unit = unit;
    x->lang = (uint8_t)lang;
    x->desc = lp_arena_strndup(&p->arena, desc.ptr, desc.len);
    x->desc_len = (uint32_t)desc.len;
    x->code = lp_arena_strndup(&p->arena, code.ptr, code.len);
    x->code_len = (uint32_t)code.len;
}

/* ------------------------------------------------------------------------------------------
 * The pairs file. */

static void put_u32(lp_buf *b, uint32_t v) { lp_buf_append(b, &v, 4); }

lp_status lp_pairs_write(const lp_pairs *p, const char *path, lp_error *err)
{
    lp_buf b;
    lp_buf_init(&b, (size_t)4 << 30);
    lp_buf_append(&b, "LPPAIRS1", 8);
    put_u32(&b, (uint32_t)p->units.len);
    for (size_t i = 0; i < p->units.len; i++) {
        put_u32(&b, (uint32_t)strlen(p->units.items[i]));
        lp_buf_puts(&b, p->units.items[i]);
    }
    put_u32(&b, (uint32_t)p->items.len);
    for (size_t i = 0; i < p->items.len; i++) {
        const lp_pair *x = &p->items.items[i];
        uint8_t hdr[2] = {x->lang, x->heldout ? 1 : 0};
        lp_buf_append(&b, hdr, 2);
        put_u32(&b, x->unit);
        put_u32(&b, x->desc_len);
        lp_buf_append(&b, x->desc, x->desc_len);
        put_u32(&b, x->code_len);
        lp_buf_append(&b, x->code, x->code_len);
    }
    lp_status rc = b.err ? lp_error_set(err, LP_ETOOBIG, "pairs file too large")
                         : lp_write_file_atomic(path, b.ptr, b.len, err);
    lp_buf_release(&b);
    return rc;
}

typedef struct reader {
    const uint8_t *p;
    size_t len, off;
    bool bad;
} reader;

static uint32_t get_u32(reader *r)
{
    uint32_t v = 0;
    if (r->off + 4 > r->len) {
        r->bad = true;
        return 0;
    }
    memcpy(&v, r->p + r->off, 4);
    r->off += 4;
    return v;
}

static const char *get_bytes(reader *r, uint32_t n)
{
    if (r->bad || n > r->len - r->off) {
        r->bad = true;
        return "";
    }
    const char *s = (const char *)r->p + r->off;
    r->off += n;
    return s;
}

lp_status lp_pairs_read(lp_pairs *p, const char *path, lp_error *err)
{
    lp_buf b;
    lp_buf_init(&b, 0);
    lp_status rc = lp_read_file(path, (size_t)4 << 30, &b, err);
    if (rc)
        goto done;
    reader r = {(const uint8_t *)b.ptr, b.len, 8, b.len < 8 || memcmp(b.ptr, "LPPAIRS1", 8)};
    uint32_t nu = get_u32(&r);
    for (uint32_t i = 0; i < nu && !r.bad; i++) {
        uint32_t n = get_u32(&r);
        const char *s = get_bytes(&r, n);
        if (!r.bad) {
            char *name = lp_xstrndup(s, n);
            lp_pairs_unit(p, name);
            free(name);
        }
    }
    uint32_t np = get_u32(&r);
    for (uint32_t i = 0; i < np && !r.bad; i++) {
        const char *h = get_bytes(&r, 2);
        uint8_t lang = (uint8_t)h[0], held = (uint8_t)h[1];
        uint32_t unit = get_u32(&r);
        uint32_t dl = get_u32(&r);
        const char *d = get_bytes(&r, dl);
        uint32_t cl = get_u32(&r);
        const char *c = get_bytes(&r, cl);
        if (r.bad || lang >= LP_LANG_COUNT || unit >= p->units.len) {
            r.bad = true;
            break;
        }
        lp_pairs_add(p, unit, (lp_lang)lang, lp_str_n(d, dl), lp_str_n(c, cl));
        p->items.items[p->items.len - 1].heldout = held != 0;
    }
    if (r.bad || r.off != r.len)
        rc = lp_error_set(err, LP_ECORRUPT,
                          "%s is not a complete pairs file; run the extraction again", path);
done:
    lp_buf_release(&b);
    return rc;
}

/* ------------------------------------------------------------------------------------------
 * Doc comments -> descriptions. */

static bool starts_ci(lp_str s, const char *pre)
{
    size_t n = strlen(pre);
    if (s.len < n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)s.ptr[i]) != tolower((unsigned char)pre[i]))
            return false;
    return true;
}

static lp_str strip_prefix(lp_str s, const char *pre)
{
    size_t n = strlen(pre);
    if (s.len >= n && memcmp(s.ptr, pre, n) == 0)
        return lp_str_sub(s, n, s.len);
    return s;
}

/* Remove comment markers and docstring quotes from one line. */
static lp_str strip_line(lp_str line)
{
    line = lp_str_trim(line);
    static const char *const openers[] = {"/**<",   "/*!<", "///<", "//!<", "/**",     "/*!",
                                          "/*",     "///",  "//!",  "//",   "r\"\"\"", "u\"\"\"",
                                          "\"\"\"", "'''",  "#",    "--"};
    for (size_t i = 0; i < LP_ARRAY_LEN(openers); i++) {
        lp_str t = strip_prefix(line, openers[i]);
        if (t.len != line.len) {
            line = t;
            break;
        }
    }
    line = lp_str_trim(line);
    if (lp_str_ends_with(line, LP_STR("*/")))
        line.len -= 2;
    if (lp_str_ends_with(line, LP_STR("\"\"\"")) || lp_str_ends_with(line, LP_STR("'''")))
        line.len -= 3;
    line = lp_str_trim(line);
    /* Javadoc/C continuation stars. */
    while (line.len && line.ptr[0] == '*')
        line = lp_str_trim(lp_str_sub(line, 1, line.len));
    return line;
}

/* Lines that start a section that is not the summary. */
static bool is_section(lp_str line)
{
    static const char *const heads[] = {
        "@",           ":param",      ":return",    ":raise",    ":type",       ":rtype",
        "args:",       "arguments:",  "parameters", "params:",   "returns",     "return:",
        "raises",      "yields",      "example",    "# example", "# panics",    "# errors",
        "# safety",    "# arguments", "# returns",  ">>>",       "see also",    "note:",
        "notes",       "references",  "```",        ".. ",       "attributes:", "other parameters",
        "deprecated:", "warning:",    "todo:"};
    for (size_t i = 0; i < LP_ARRAY_LEN(heads); i++)
        if (starts_ci(line, heads[i]))
            return true;
    return false;
}

size_t lp_train_clean_doc(lp_str doc, lp_buf *out)
{
    size_t words = 0, start_len = out->len;
    bool any = false;
    size_t pos = 0;
    while (pos <= doc.len) {
        size_t nl = lp_str_find_char(doc, '\n', pos);
        if (nl == SIZE_MAX)
            nl = doc.len;
        lp_str line = strip_line(lp_str_sub(doc, pos, nl));
        pos = nl + 1;
        if (line.len == 0) {
            if (any)
                break; /* end of the first paragraph */
            continue;
        }
        if (is_section(line))
            break;
        for (size_t i = 0; i < line.len; i++) {
            unsigned char c = (unsigned char)line.ptr[i];
            bool space = c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
            if (space) {
                if (out->len > start_len && out->ptr[out->len - 1] != ' ')
                    lp_buf_putc(out, ' ');
                continue;
            }
            if (out->len == start_len || out->ptr[out->len - 1] == ' ')
                words++;
            lp_buf_putc(out, (char)c);
        }
        if (out->len > start_len && out->ptr[out->len - 1] != ' ')
            lp_buf_putc(out, ' ');
        any = true;
        if (out->len - start_len >= LP_PAIR_DESC_MAX)
            break;
    }
    while (out->len > start_len && out->ptr[out->len - 1] == ' ')
        out->len--;
    if (out->len - start_len > LP_PAIR_DESC_MAX) {
        size_t cut = start_len + LP_PAIR_DESC_MAX;
        while (cut > start_len && ((unsigned char)out->ptr[cut] & 0xC0) == 0x80)
            cut--; /* keep UTF-8 whole */
        out->len = cut;
    }
    out->ptr[out->len] = '\0';
    return words;
}

bool lp_train_doc_is_boilerplate(lp_str d)
{
    static const char *const bad[] = {"{@inheritdoc}",
                                      "@inheritdoc",
                                      "inheritdoc",
                                      "todo",
                                      "fixme",
                                      "xxx",
                                      "do not edit",
                                      "code generated",
                                      "auto-generated",
                                      "autogenerated",
                                      "generated by",
                                      "deprecated",
                                      "internal use only",
                                      "for internal use",
                                      "nolint",
                                      "noinspection",
                                      "copyright",
                                      "license",
                                      "spdx-license",
                                      "see ",
                                      "implements ",
                                      "overrides ",
                                      "equivalent to",
                                      "same as "};
    for (size_t i = 0; i < LP_ARRAY_LEN(bad); i++)
        if (starts_ci(d, bad[i]))
            return true;
    return false;
}

/* ------------------------------------------------------------------------------------------
 * Pairs of one parse result. */

static bool kind_wanted(lp_symkind k)
{
    switch (k) {
    case LP_SYM_FUNCTION:
    case LP_SYM_METHOD:
    case LP_SYM_CONSTRUCTOR:
    case LP_SYM_CLASS:
    case LP_SYM_STRUCT:
    case LP_SYM_INTERFACE:
    case LP_SYM_TRAIT:
    case LP_SYM_ENUM:
    case LP_SYM_RECORD:
    case LP_SYM_UNION:
    case LP_SYM_OBJECT:
    case LP_SYM_MACRO:
    case LP_SYM_TYPE_ALIAS:
        return true;
    default:
        return false;
    }
}

static lp_str clamp_span(lp_str content, uint32_t a, uint32_t b)
{
    if (a > content.len)
        a = (uint32_t)content.len;
    if (b > content.len)
        b = (uint32_t)content.len;
    if (b < a)
        b = a;
    return (lp_str){content.ptr + a, b - a};
}

size_t lp_train_pairs_from_parse(lp_pairs *p, uint32_t unit, lp_str content,
                                 const lp_parse_result *pr)
{
    size_t added = 0;
    lp_buf desc, code;
    lp_buf_init(&desc, 0);
    lp_buf_init(&code, 0);
    for (size_t i = 0; i < pr->nsymbols; i++) {
        const lp_symbol *s = &pr->symbols[i];
        if (!s->doc.start_line || !kind_wanted(s->kind) || (s->flags & LP_SYMF_TEST))
            continue;
        lp_buf_reset(&desc);
        size_t words =
            lp_train_clean_doc(clamp_span(content, s->doc.start_byte, s->doc.end_byte), &desc);
        if (words < 3 || lp_train_doc_is_boilerplate(lp_buf_str(&desc)))
            continue;
        lp_buf_reset(&code);
        /* As the index embeds a chunk: the qualified name first (lp_embed_chunk_text). */
        if (s->qname) {
            lp_buf_puts(&code, s->qname);
            lp_buf_putc(&code, '\n');
        }
        size_t head = code.len;
        lp_str span = clamp_span(content, s->span.start_byte, s->span.end_byte);
        uint32_t ds = s->doc.start_byte, de = s->doc.end_byte;
        if (ds >= s->span.start_byte && de <= s->span.end_byte && de > ds) {
            /* The doc lies inside the definition (a docstring): leave it out of the code. */
            lp_buf_put_str(&code, clamp_span(content, s->span.start_byte, ds));
            lp_buf_put_str(&code, clamp_span(content, de, s->span.end_byte));
        } else {
            lp_buf_put_str(&code, span);
        }
        if (code.len > LP_PAIR_CODE_MAX) {
            size_t cut = LP_PAIR_CODE_MAX;
            while (cut > 0 && code.ptr[cut - 1] != '\n')
                cut--;
            lp_buf_truncate(&code, cut ? cut : LP_PAIR_CODE_MAX);
        }
        /* A tiny definition says too little to learn from. */
        if (code.len - head < 40)
            continue;
        lp_pairs_add(p, unit, pr->lang, lp_buf_str(&desc), lp_buf_str(&code));
        added++;
    }
    lp_buf_release(&desc);
    lp_buf_release(&code);
    return added;
}

/* ------------------------------------------------------------------------------------------
 * Parallel extraction over a file list. */

typedef struct file_job {
    uint32_t unit;
    char *path;
    lp_pairs out; /* this file's pairs (own arena) */
    bool parsed, failed, done;
} file_job;

/* Workers take files in list order but run at most WINDOW files ahead of the merger, so
 * memory stays bounded; the calling thread merges finished files in list order. */
#define WINDOW 2048

typedef struct extract_ctx {
    file_job *jobs;
    size_t njobs;
    size_t next;   /* next file a worker takes */
    size_t merged; /* files merged so far */
    pthread_mutex_t mu;
    pthread_cond_t cv;
} extract_ctx;

static void extract_one(file_job *j, const lp_pairs *units)
{
    (void)units;
    lp_buf content;
    lp_buf_init(&content, 0);
    lp_error err;
    memset(&j->out, 0, sizeof j->out);
    lp_arena_init(&j->out.arena, 16 << 10);
    if (lp_read_file(j->path, (size_t)2 << 20, &content, &err) != LP_OK) {
        j->failed = true;
        lp_buf_release(&content);
        return;
    }
    lp_str head = {content.ptr, LP_MIN(content.len, (size_t)4096)};
    lp_lang lang = lp_lang_detect(lp_str_c(j->path), head);
    if (lang == LP_LANG_TEXT || lang == LP_LANG_MARKDOWN || lang == LP_LANG_RST ||
        memchr(content.ptr, '\0', LP_MIN(content.len, (size_t)8192))) {
        lp_buf_release(&content);
        return;
    }
    lp_arena arena;
    lp_arena_init(&arena, 0);
    lp_parse_result pr;
    if (lp_parse(lang, lp_buf_str(&content), NULL, &arena, &pr, &err) == LP_OK) {
        j->parsed = true;
        lp_train_pairs_from_parse(&j->out, j->unit, lp_buf_str(&content), &pr);
    } else {
        j->failed = true;
    }
    lp_arena_release(&arena);
    lp_buf_release(&content);
}

static void *extract_worker(void *arg)
{
    extract_ctx *c = arg;
    for (;;) {
        pthread_mutex_lock(&c->mu);
        while (c->next < c->njobs && c->next >= c->merged + WINDOW)
            pthread_cond_wait(&c->cv, &c->mu);
        size_t i = c->next++;
        pthread_mutex_unlock(&c->mu);
        if (i >= c->njobs)
            break;
        extract_one(&c->jobs[i], NULL);
        pthread_mutex_lock(&c->mu);
        c->jobs[i].done = true;
        pthread_cond_broadcast(&c->cv);
        pthread_mutex_unlock(&c->mu);
    }
    lp_lang_thread_release();
    return NULL;
}

/* Open-addressing set of 64-bit code hashes (0 is never stored: hashes are or-ed with 1). */
typedef struct hset {
    uint64_t *slots;
    size_t cap, len;
} hset;

static bool hset_add(hset *s, uint64_t h)
{
    h |= 1;
    if ((s->len + 1) * 2 > s->cap) {
        hset old = *s;
        s->cap = old.cap ? old.cap * 2 : 1 << 16;
        s->slots = lp_xcalloc(s->cap, sizeof *s->slots);
        s->len = 0;
        for (size_t i = 0; i < old.cap; i++)
            if (old.slots[i])
                hset_add(s, old.slots[i]);
        free(old.slots);
    }
    for (size_t i = h & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (s->slots[i] == h)
            return false;
        if (!s->slots[i]) {
            s->slots[i] = h;
            s->len++;
            return true;
        }
    }
}

static bool unit_listed(const char *csv, const char *unit)
{
    size_t n = strlen(unit);
    for (const char *p = csv; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !memcmp(p, unit, n))
            return true;
        p = e ? e + 1 : NULL;
    }
    return false;
}

lp_status lp_train_extract(const char *list_path, const char *heldout_units, unsigned threads,
                           lp_pairs *out, lp_extract_stats *st, lp_error *err)
{
    memset(st, 0, sizeof *st);
    lp_buf list;
    lp_buf_init(&list, 0);
    lp_status rc = lp_read_file(list_path, (size_t)1 << 30, &list, err);
    if (rc) {
        lp_buf_release(&list);
        return rc;
    }
    LP_VEC(file_job) jobs = {0};
    lp_str all = lp_buf_str(&list);
    for (size_t pos = 0; pos < all.len;) {
        size_t nl = lp_str_find_char(all, '\n', pos);
        if (nl == SIZE_MAX)
            nl = all.len;
        lp_str line = lp_str_sub(all, pos, nl);
        pos = nl + 1;
        size_t tab = lp_str_find_char(line, '\t', 0);
        if (tab == SIZE_MAX || tab == 0 || tab + 1 >= line.len)
            continue;
        char *unit = lp_xstrndup(line.ptr, tab);
        file_job *j = lp_vec_push_zero(&jobs);
        j->unit = lp_pairs_unit(out, unit);
        j->path = lp_xstrndup(line.ptr + tab + 1, line.len - tab - 1);
        free(unit);
    }
    lp_buf_release(&list);
    lp_lang_init();
    extract_ctx c = {
        jobs.items, jobs.len, 0, 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};
    pthread_t th[16];
    unsigned nt = threads ? LP_MIN(threads, 16u) : 1;
    unsigned started = 0;
    for (unsigned i = 0; i < nt; i++)
        if (pthread_create(&th[i], NULL, extract_worker, &c) == 0)
            started++;

    hset seen = {0};
    for (size_t i = 0; i < jobs.len; i++) {
        file_job *j = &jobs.items[i];
        if (!started) {
            extract_one(j, NULL); /* no thread could start: do the work here */
            j->done = true;
        }
        pthread_mutex_lock(&c.mu);
        while (!j->done)
            pthread_cond_wait(&c.cv, &c.mu);
        pthread_mutex_unlock(&c.mu);
        st->files++;
        st->parsed += j->parsed;
        st->failed += j->failed;
        bool held = heldout_units && unit_listed(heldout_units, out->units.items[j->unit]);
        for (size_t k = 0; k < j->out.items.len; k++) {
            const lp_pair *x = &j->out.items.items[k];
            if (!hset_add(&seen, lp_hash64_of(x->code, x->code_len))) {
                st->dupes++;
                continue;
            }
            lp_pairs_add(out, j->unit, (lp_lang)x->lang, lp_str_n(x->desc, x->desc_len),
                         lp_str_n(x->code, x->code_len));
            out->items.items[out->items.len - 1].heldout = held;
            st->pairs++;
            st->per_lang[x->lang]++;
        }
        lp_pairs_release(&j->out);
        free(j->path);
        pthread_mutex_lock(&c.mu);
        c.merged = i + 1;
        pthread_cond_broadcast(&c.cv);
        pthread_mutex_unlock(&c.mu);
    }
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(seen.slots);
    lp_vec_free(&jobs);
    return LP_OK;
}
