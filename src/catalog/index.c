/*
 * index.c: the catalog's index and its transactional updates.
 *
 * Structures: documents by slot (with a free list), an id -> slot table (linear probing
 * with backward-shift deletion), a term dictionary (term id -> text, postings) with a
 * hash table, and a trigram -> term ids table for fuzzy and prefix candidates.
 *
 * Invariants:
 *  - terms[t].df == terms[t].npost == number of live documents containing t;
 *  - field_total[f] == sum of flen[f] over live documents;
 *  - terms are never removed from the dictionary (df may drop to 0), so term ids held by
 *    documents stay valid; this is what lets a failed transaction re-insert the documents
 *    it removed without re-tokenizing them;
 *  - an add/replace validates everything it can before touching the index, then applies;
 *    if applying fails (the test hook, or a future limit), it undoes what it applied.
 */
#include "catalog/catalog_int.h"

#define EMPTY UINT32_MAX

/* ------------------------------------------------------------------------------------------
 * Lifecycle. */
lp_status lp_catalog_new(const lp_catalog_limits *limits, const lp_catalog_params *params,
                         lp_catalog **out, lp_error *err)
{
    *out = NULL;
    lp_catalog_limits l = limits ? *limits : (lp_catalog_limits){0};
    lp_status st = lp_cat_limits_resolve(&l, err);
    if (st)
        return st;
    lp_catalog *cat = lp_xcalloc(1, sizeof *cat);
    cat->limits = l;
    cat->params = params ? *params : lp_catalog_params_default();
    cat->id_cap = 64;
    cat->id_table = lp_xmalloc(cat->id_cap * sizeof(uint32_t));
    memset(cat->id_table, 0xff, cat->id_cap * sizeof(uint32_t));
    cat->term_cap = 1024;
    cat->term_table = lp_xmalloc(cat->term_cap * sizeof(uint32_t));
    memset(cat->term_table, 0xff, cat->term_cap * sizeof(uint32_t));
    cat->tri_cap = 1024;
    cat->tri = lp_xcalloc(cat->tri_cap, sizeof *cat->tri);
    lp_cat_dense_init(cat);
    lp_cat_words_init(cat);
    *out = cat;
    return LP_OK;
}

void lp_catalog_free(lp_catalog *cat)
{
    if (!cat)
        return;
    for (size_t i = 0; i < cat->slots.len; i++)
        lp_cat_doc_free(cat->slots.items[i]);
    lp_vec_free(&cat->slots);
    lp_vec_free(&cat->free_slots);
    free(cat->id_table);
    for (size_t i = 0; i < cat->terms.len; i++)
        free(cat->terms.items[i].post);
    lp_vec_free(&cat->terms);
    lp_vec_free(&cat->text);
    free(cat->term_table);
    for (size_t i = 0; i < cat->tri_cap; i++)
        free(cat->tri[i].terms);
    free(cat->tri);
    free(cat->inv_norm);
    lp_cat_dense_release(cat);
    lp_cat_words_release(cat);
    free(cat);
}

const lp_catalog_limits *lp_catalog_get_limits(const lp_catalog *cat) { return &cat->limits; }

void lp_catalog_debug_fail_insert_at(lp_catalog *cat, size_t n) { cat->fail_insert_at = n; }

/* ------------------------------------------------------------------------------------------
 * id -> slot. */
static size_t id_home(const lp_catalog *cat, const char *id)
{
    return (size_t)lp_hash64_of(id, strlen(id)) & (cat->id_cap - 1);
}

static size_t id_find(const lp_catalog *cat, const char *id)
{
    size_t mask = cat->id_cap - 1;
    for (size_t i = id_home(cat, id);; i = (i + 1) & mask) {
        uint32_t s = cat->id_table[i];
        if (s == EMPTY)
            return SIZE_MAX;
        if (!strcmp(cat->slots.items[s]->pub.id, id))
            return i;
    }
}

static void id_insert_raw(lp_catalog *cat, uint32_t slot)
{
    size_t mask = cat->id_cap - 1;
    size_t i = id_home(cat, cat->slots.items[slot]->pub.id);
    while (cat->id_table[i] != EMPTY)
        i = (i + 1) & mask;
    cat->id_table[i] = slot;
}

static void id_insert(lp_catalog *cat, uint32_t slot)
{
    if ((cat->ndocs + 1) * 2 > cat->id_cap) {
        free(cat->id_table);
        cat->id_cap *= 2;
        cat->id_table = lp_xmalloc(cat->id_cap * sizeof(uint32_t));
        memset(cat->id_table, 0xff, cat->id_cap * sizeof(uint32_t));
        for (size_t s = 0; s < cat->slots.len; s++)
            if (cat->slots.items[s] && s != slot)
                id_insert_raw(cat, (uint32_t)s);
    }
    id_insert_raw(cat, slot);
}

static void id_remove(lp_catalog *cat, const char *id)
{
    size_t i = id_find(cat, id);
    if (i == SIZE_MAX)
        return;
    size_t mask = cat->id_cap - 1;
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        uint32_t s = cat->id_table[j];
        if (s == EMPTY)
            break;
        size_t k = id_home(cat, cat->slots.items[s]->pub.id);
        /* Move s back to the hole at i unless its home lies cyclically in (i, j]. */
        bool in_range = i <= j ? (k > i && k <= j) : (k > i || k <= j);
        if (!in_range) {
            cat->id_table[i] = s;
            i = j;
        }
    }
    cat->id_table[i] = EMPTY;
}

const lp_catalog_tool *lp_catalog_get(const lp_catalog *cat, const char *id)
{
    size_t i = id_find(cat, id);
    return i == SIZE_MAX ? NULL : &cat->slots.items[cat->id_table[i]]->pub;
}

size_t lp_catalog_count(const lp_catalog *cat) { return cat->ndocs; }

static int tool_id_cmp(const void *a, const void *b)
{
    return strcmp((*(const lp_catalog_tool *const *)a)->id,
                  (*(const lp_catalog_tool *const *)b)->id);
}

const lp_catalog_tool **lp_catalog_list(const lp_catalog *cat, size_t *n)
{
    const lp_catalog_tool **out = lp_xmalloc((cat->ndocs + 1) * sizeof *out);
    size_t k = 0;
    for (size_t s = 0; s < cat->slots.len; s++)
        if (cat->slots.items[s])
            out[k++] = &cat->slots.items[s]->pub;
    qsort(out, k, sizeof *out, tool_id_cmp);
    *n = k;
    return out;
}

/* ------------------------------------------------------------------------------------------
 * Dictionary and trigrams. */
static size_t term_home(const lp_catalog *cat, lp_str t)
{
    return (size_t)lp_hash64_of(t.ptr, t.len) & (cat->term_cap - 1);
}

static uint32_t term_lookup_hashed(const lp_catalog *cat, lp_str text, uint64_t hash)
{
    size_t mask = cat->term_cap - 1;
    for (size_t i = (size_t)hash & mask;; i = (i + 1) & mask) {
        uint32_t id = cat->term_table[i];
        if (id == EMPTY)
            return EMPTY;
        if (lp_str_eq(lp_cat_term_text(cat, id), text))
            return id;
    }
}

uint32_t lp_cat_term_lookup(const lp_catalog *cat, lp_str text)
{
    size_t mask = cat->term_cap - 1;
    for (size_t i = term_home(cat, text);; i = (i + 1) & mask) {
        uint32_t id = cat->term_table[i];
        if (id == EMPTY)
            return EMPTY;
        if (lp_str_eq(lp_cat_term_text(cat, id), text))
            return id;
    }
}

static size_t tri_slot(const lp_catalog *cat, uint32_t key)
{
    size_t mask = cat->tri_cap - 1;
    size_t i = (size_t)((key * 2654435761u) ^ (key >> 13)) & mask;
    while (cat->tri[i].key && cat->tri[i].key != key)
        i = (i + 1) & mask;
    return i;
}

const lp_cat_tri *lp_cat_tri_get(const lp_catalog *cat, uint32_t trigram)
{
    const lp_cat_tri *t = &cat->tri[tri_slot(cat, trigram + 1)];
    return t->key ? t : NULL;
}

static void tri_add(lp_catalog *cat, uint32_t trigram, uint32_t term)
{
    if ((cat->tri_used + 1) * 2 > cat->tri_cap) {
        lp_cat_tri *old = cat->tri;
        size_t old_cap = cat->tri_cap;
        cat->tri_cap *= 2;
        cat->tri = lp_xcalloc(cat->tri_cap, sizeof *cat->tri);
        for (size_t i = 0; i < old_cap; i++)
            if (old[i].key)
                cat->tri[tri_slot(cat, old[i].key)] = old[i];
        free(old);
    }
    lp_cat_tri *t = &cat->tri[tri_slot(cat, trigram + 1)];
    if (!t->key) {
        t->key = trigram + 1;
        cat->tri_used++;
    }
    if (t->n && t->terms[t->n - 1] == term)
        return; /* repeated trigram inside one term */
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 4;
        t->terms = lp_xrealloc(t->terms, t->cap * sizeof *t->terms);
    }
    t->terms[t->n++] = term;
}

static uint32_t term_intern(lp_catalog *cat, lp_str text, uint64_t hash)
{
    uint32_t id = term_lookup_hashed(cat, text, hash);
    if (id != EMPTY)
        return id;
    if ((cat->terms.len + 1) * 2 > cat->term_cap) {
        free(cat->term_table);
        cat->term_cap *= 2;
        cat->term_table = lp_xmalloc(cat->term_cap * sizeof(uint32_t));
        memset(cat->term_table, 0xff, cat->term_cap * sizeof(uint32_t));
        size_t mask = cat->term_cap - 1;
        for (size_t t = 0; t < cat->terms.len; t++) {
            size_t i = term_home(cat, lp_cat_term_text(cat, (uint32_t)t));
            while (cat->term_table[i] != EMPTY)
                i = (i + 1) & mask;
            cat->term_table[i] = (uint32_t)t;
        }
    }
    id = (uint32_t)cat->terms.len;
    lp_cat_term *t = lp_vec_push_zero(&cat->terms);
    t->off = (uint32_t)cat->text.len;
    t->len = (uint16_t)text.len;
    lp_vec_reserve(&cat->text, cat->text.len + text.len);
    memcpy(cat->text.items + cat->text.len, text.ptr, text.len);
    cat->text.len += text.len;
    size_t mask = cat->term_cap - 1;
    size_t i = (size_t)hash & mask;
    while (cat->term_table[i] != EMPTY)
        i = (i + 1) & mask;
    cat->term_table[i] = id;
    uint32_t tri[LP_TEXT_TOKEN_MAX];
    size_t n = lp_text_trigrams(text, tri, LP_ARRAY_LEN(tri));
    for (size_t k = 0; k < n && k < LP_ARRAY_LEN(tri); k++)
        tri_add(cat, tri[k], id);
    return id;
}

/* ------------------------------------------------------------------------------------------
 * Indexing one document, and removing a set. */
static void post_add(lp_catalog *cat, uint32_t term, uint32_t slot, const uint8_t tf[NF])
{
    lp_cat_term *t = &cat->terms.items[term];
    if (t->npost == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 2;
        t->post = lp_xrealloc(t->post, t->cap * sizeof *t->post);
    }
    lp_cat_posting *p = &t->post[t->npost++];
    p->doc = slot;
    memcpy(p->tf, tf, NF);
    p->pad[0] = p->pad[1] = 0;
    t->df++;
    cat->postings++;
}

/* Index d into a free slot. A prepared doc interns its terms (keeping pterms until the
 * transaction commits); a doc that was indexed before reuses its term ids. */
static void index_doc(lp_catalog *cat, lp_cat_doc *d)
{
    uint32_t slot;
    if (cat->free_slots.len) {
        slot = cat->free_slots.items[--cat->free_slots.len];
    } else {
        slot = (uint32_t)cat->slots.len;
        lp_vec_push(&cat->slots, NULL);
    }
    cat->slots.items[slot] = d;
    d->slot = slot;
    if (!d->dterms) {
        d->dterms = lp_xmalloc((d->npterms ? d->npterms : 1) * sizeof *d->dterms);
        d->ndterms = d->npterms;
        for (uint32_t i = 0; i < d->npterms; i++) {
            lp_str text = {d->term_text + d->pterms[i].off, d->pterms[i].len};
            d->dterms[i].term = term_intern(cat, text, d->pterms[i].hash);
            memcpy(d->dterms[i].tf, d->pterms[i].tf, NF);
        }
    }
    for (uint32_t i = 0; i < d->ndterms; i++)
        post_add(cat, d->dterms[i].term, slot, d->dterms[i].tf);
    for (int f = 0; f < NF; f++)
        cat->field_total[f] += d->flen[f];
    cat->definition_bytes += d->pub.definition.len;
    lp_cat_dense_put(cat, d);
    lp_cat_words_put(cat, d);
    id_insert(cat, slot);
    cat->ndocs++;
}

/* Unindex docs (all currently indexed); they stay allocated, with their term ids. */
static void unindex_docs(lp_catalog *cat, lp_cat_doc **docs, size_t n)
{
    if (n == 0)
        return;
    bool *gone = lp_xcalloc(cat->slots.len, sizeof *gone);
    LP_VEC(uint32_t) affected = {0};
    uint32_t mark = ++cat->mark;
    for (size_t i = 0; i < n; i++) {
        lp_cat_doc *d = docs[i];
        gone[d->slot] = true;
        for (uint32_t k = 0; k < d->ndterms; k++) {
            lp_cat_term *t = &cat->terms.items[d->dterms[k].term];
            if (t->mark != mark) {
                t->mark = mark;
                lp_vec_push(&affected, d->dterms[k].term);
            }
        }
    }
    for (size_t a = 0; a < affected.len; a++) {
        lp_cat_term *t = &cat->terms.items[affected.items[a]];
        uint32_t w = 0;
        for (uint32_t r = 0; r < t->npost; r++)
            if (!gone[t->post[r].doc])
                t->post[w++] = t->post[r];
        cat->postings -= t->npost - w;
        t->npost = t->df = w;
        if (w == 0) {
            free(t->post);
            t->post = NULL;
            t->cap = 0;
        }
    }
    for (size_t i = 0; i < n; i++) {
        lp_cat_doc *d = docs[i];
        for (int f = 0; f < NF; f++)
            cat->field_total[f] -= d->flen[f];
        cat->definition_bytes -= d->pub.definition.len;
        lp_cat_dense_take(cat, d);
        lp_cat_words_take(cat, d);
        id_remove(cat, d->pub.id);
        cat->slots.items[d->slot] = NULL;
        lp_vec_push(&cat->free_slots, d->slot);
        cat->ndocs--;
    }
    lp_vec_free(&affected);
    free(gone);
}

/* ------------------------------------------------------------------------------------------
 * Transactions. */
static lp_status apply(lp_catalog *cat, lp_catalog_batch *batch, const char *replace_group,
                       lp_error *err)
{
    lp_status st = LP_OK;
    LP_VEC(lp_cat_doc *) removed = {0};
    size_t removed_bytes = 0, inserted = 0;
    if (replace_group) {
        for (size_t s = 0; s < cat->slots.len; s++) {
            lp_cat_doc *d = cat->slots.items[s];
            if (d && !strcmp(d->pub.group, replace_group)) {
                lp_vec_push(&removed, d);
                removed_bytes += d->pub.definition.len;
            }
        }
    }
    /* Validate before touching anything. */
    size_t add_bytes = 0;
    for (size_t i = 0; i < batch->docs.len; i++) {
        lp_cat_doc *d = batch->docs.items[i];
        add_bytes += d->pub.definition.len;
        const lp_catalog_tool *old = lp_catalog_get(cat, d->pub.id);
        if (old && !(replace_group && !strcmp(old->group, replace_group))) {
            st = lp_cat_fail(err, LP_CATALOG_DUPLICATE_TOOL,
                             "tool '%.*s' from %.*s is already in the catalog (from %.*s); "
                             "load the files with different server names or remove one",
                             LP_CUT(d->pub.id, 80), LP_CUT(d->pub.source, 60),
                             LP_CUT(old->source, 60));
            goto done;
        }
    }
    if (cat->ndocs - removed.len + batch->docs.len > cat->limits.max_tools) {
        st = lp_cat_fail(err, LP_CATALOG_TOO_MANY_TOOLS,
                         "adding %zu tools would make %zu, over the %zu-tool limit; raise "
                         "max_tools or load fewer tools",
                         batch->docs.len, cat->ndocs - removed.len + batch->docs.len,
                         cat->limits.max_tools);
        goto done;
    }
    if (cat->definition_bytes - removed_bytes + add_bytes > cat->limits.max_catalog_bytes) {
        st = lp_cat_fail(err, LP_CATALOG_CATALOG_TOO_LARGE,
                         "the catalog would hold %zu bytes of definitions, over the %zu-byte "
                         "limit; load fewer tools",
                         cat->definition_bytes - removed_bytes + add_bytes,
                         cat->limits.max_catalog_bytes);
        goto done;
    }
    /* Apply. */
    unindex_docs(cat, removed.items, removed.len);
    for (; inserted < batch->docs.len; inserted++) {
        if (cat->fail_insert_at && inserted + 1 == cat->fail_insert_at) {
            st = lp_error_set(err, LP_ERROR, "injected failure at insertion %zu (test hook)",
                              inserted + 1);
            break;
        }
        index_doc(cat, batch->docs.items[inserted]);
    }
    cat->fail_insert_at = 0;
    if (st) {
        /* Undo: unindex what went in (they return to the batch as prepared docs), put the
         * removed documents back. */
        unindex_docs(cat, batch->docs.items, inserted);
        for (size_t i = 0; i < inserted; i++) {
            free(batch->docs.items[i]->dterms);
            batch->docs.items[i]->dterms = NULL;
            batch->docs.items[i]->ndterms = 0;
        }
        for (size_t i = 0; i < removed.len; i++)
            index_doc(cat, removed.items[i]);
        lp_cat_refresh_norms(cat);
        goto done;
    }
    /* Commit. */
    for (size_t i = 0; i < removed.len; i++)
        lp_cat_doc_free(removed.items[i]);
    for (size_t i = 0; i < batch->docs.len; i++) {
        lp_cat_doc *d = batch->docs.items[i];
        d->mem -= d->npterms * sizeof *d->pterms;
        free(d->pterms);
        free(d->term_text);
        d->pterms = NULL;
        d->term_text = NULL;
        d->npterms = 0;
        d->mem += d->ndterms * sizeof *d->dterms;
    }
    batch->docs.len = 0;
    lp_cat_refresh_norms(cat);
done:
    cat->fail_insert_at = 0;
    lp_vec_free(&removed);
    return st;
}

lp_status lp_catalog_add(lp_catalog *cat, lp_catalog_batch *batch, lp_error *err)
{
    uint64_t t0 = lp_now_ns();
    size_t n = batch->docs.len;
    lp_status st = apply(cat, batch, NULL, err);
    lp_log(LP_LOG_DEBUG, "catalog.add", "tools=%zu status=%s ms=%.1f", n, lp_status_code(st),
           (lp_now_ns() - t0) / 1e6);
    return st;
}

lp_status lp_catalog_replace(lp_catalog *cat, lp_catalog_batch *batch, lp_error *err)
{
    return apply(cat, batch, batch->group ? batch->group : "", err);
}

lp_status lp_catalog_remove(lp_catalog *cat, const char *id, lp_error *err)
{
    size_t i = id_find(cat, id);
    if (i == SIZE_MAX)
        return lp_cat_fail(err, LP_CATALOG_NOT_FOUND,
                           "no tool with id '%.*s' in the catalog; list ids with "
                           "'loupe tools stats'",
                           LP_CUT(id, 100));
    lp_cat_doc *d = cat->slots.items[cat->id_table[i]];
    unindex_docs(cat, &d, 1);
    lp_cat_doc_free(d);
    lp_cat_refresh_norms(cat);
    return LP_OK;
}

lp_status lp_catalog_remove_group(lp_catalog *cat, const char *group, size_t *removed,
                                  lp_error *err)
{
    LP_VEC(lp_cat_doc *) docs = {0};
    for (size_t s = 0; s < cat->slots.len; s++)
        if (cat->slots.items[s] && !strcmp(cat->slots.items[s]->pub.group, group))
            lp_vec_push(&docs, cat->slots.items[s]);
    if (removed)
        *removed = docs.len;
    if (docs.len == 0) {
        lp_vec_free(&docs);
        return lp_cat_fail(err, LP_CATALOG_NOT_FOUND, "no tools in group '%.*s'",
                           LP_CUT(group, 100));
    }
    unindex_docs(cat, docs.items, docs.len);
    for (size_t i = 0; i < docs.len; i++)
        lp_cat_doc_free(docs.items[i]);
    lp_vec_free(&docs);
    lp_cat_refresh_norms(cat);
    return LP_OK;
}

lp_status lp_catalog_load_file(lp_catalog *cat, const char *path,
                               const lp_catalog_parse_opts *opts, bool replace, lp_error *err)
{
    lp_buf data;
    lp_buf_init(&data, 0);
    lp_catalog_batch *b = NULL;
    lp_error e = {0};
    lp_status st = lp_read_file(path, cat->limits.max_file_bytes, &data, &e);
    if (st == LP_ETOOBIG) {
        st = lp_cat_fail(err, LP_CATALOG_FILE_TOO_LARGE,
                         "%s is larger than the %zu-byte limit; split the catalog", path,
                         cat->limits.max_file_bytes);
        goto done;
    }
    if (st) {
        st = lp_cat_fail(err, LP_CATALOG_IO, "%s; check the path of the catalog file", e.msg);
        goto done;
    }
    lp_catalog_parse_opts o = opts ? *opts : (lp_catalog_parse_opts){0};
    if (!o.source)
        o.source = path;
    st = lp_catalog_parse(cat, data.ptr, data.len, &o, &b, err);
    if (st)
        goto done;
    st = replace ? lp_catalog_replace(cat, b, err) : lp_catalog_add(cat, b, err);
done:
    lp_catalog_batch_free(b);
    lp_buf_release(&data);
    return st;
}

/* ------------------------------------------------------------------------------------------
 * Statistics. */
static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static size_t distinct(const char **v, size_t n)
{
    qsort(v, n, sizeof *v, str_cmp);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (*v[i] && (i == 0 || strcmp(v[i - 1], v[i]) != 0))
            k++;
    return k;
}

void lp_catalog_get_stats(const lp_catalog *cat, lp_catalog_stats *out)
{
    memset(out, 0, sizeof *out);
    const char **ns = lp_xmalloc((cat->ndocs + 1) * sizeof *ns);
    const char **gr = lp_xmalloc((cat->ndocs + 1) * sizeof *gr);
    size_t n = 0, mem = sizeof *cat;
    for (size_t s = 0; s < cat->slots.len; s++) {
        const lp_cat_doc *d = cat->slots.items[s];
        if (!d)
            continue;
        out->tools++;
        out->by_provider[d->pub.provider]++;
        out->definition_bytes += d->pub.definition.len;
        out->tokens += d->pub.tokens;
        out->max_tokens = LP_MAX(out->max_tokens, d->pub.tokens);
        out->schema_truncated += d->pub.schema_truncated;
        ns[n] = d->pub.ns;
        gr[n] = d->pub.group;
        n++;
        mem += d->mem;
    }
    out->namespaces = distinct(ns, n);
    out->groups = distinct(gr, n);
    free(ns);
    free(gr);
    for (size_t t = 0; t < cat->terms.len; t++) {
        out->terms += cat->terms.items[t].df > 0;
        mem += cat->terms.items[t].cap * sizeof(lp_cat_posting);
    }
    out->postings = cat->postings;
    mem += cat->terms.cap * sizeof(lp_cat_term) + cat->text.cap + cat->term_cap * 4 +
           cat->id_cap * 4 + cat->slots.cap * sizeof(void *) + cat->tri_cap * sizeof(lp_cat_tri) +
           cat->inv_norm_slots * NF * sizeof(float) + lp_cat_dense_memory(cat) +
           lp_cat_words_memory(cat);
    for (size_t i = 0; i < cat->tri_cap; i++)
        mem += cat->tri[i].cap * sizeof(uint32_t);
    out->memory_bytes = mem;
}
