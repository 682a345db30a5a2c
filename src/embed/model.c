/*
 * model.c: the model file: serialization (for the trainer), loading with full validation,
 * the process-wide default model and its identity.
 *
 * Invariants of a loaded model: every offset and size was checked against the file size,
 * the payload hash matched, string offsets are monotonic, every table entry names a valid
 * row. So lookups and embedding never read outside the mapping, whatever file was given.
 */
#include "embed/embed_int.h"
#include "core/settings.h"

#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the embedding model format is little-endian; add byte swapping for this host"
#endif

struct lp_embed_model {
    const uint8_t *base; /* the whole file */
    size_t size;
    bool mapped; /* munmap on free */
    lp_embed_header h;
    const float *scales;
    const float *weights;
    const uint32_t *table;
    const uint32_t *stroff;
    const char *strings;
    const int8_t *rows;
    lp_embed_info info;
};

static uint64_t align_up(uint64_t x)
{
    return (x + LP_EMBED_ALIGN - 1) & ~(uint64_t)(LP_EMBED_ALIGN - 1);
}

uint64_t lp_embed_token_hash(const char *tok, size_t len)
{
    return lp_hash64_seeded(tok, len, 0x6c6f757065ull /* "loupe" */);
}

/* ------------------------------------------------------------------------------------------
 * Serialization. */

static float quantize_row(const float *v, uint32_t dim, int8_t *out)
{
    float mx = 0.0f;
    for (uint32_t j = 0; j < dim; j++) {
        float a = v[j] < 0 ? -v[j] : v[j];
        if (a > mx)
            mx = a;
    }
    if (mx == 0.0f) {
        memset(out, 0, dim);
        return 0.0f;
    }
    float inv = 127.0f / mx;
    for (uint32_t j = 0; j < dim; j++) {
        float x = v[j] * inv;
        long r = lroundf(x);
        out[j] = (int8_t)(r > 127 ? 127 : r < -127 ? -127 : r);
    }
    return mx / 127.0f;
}

lp_status lp_embed_model_serialize(const lp_embed_model_spec *sp, lp_buf *out, lp_error *err)
{
    if (sp->dim < LP_EMBED_DIM_MIN || sp->dim > LP_EMBED_DIM_MAX || sp->vocab == 0 ||
        sp->vocab > LP_EMBED_VOCAB_MAX || sp->buckets > LP_EMBED_BUCKETS_MAX ||
        (sp->buckets && (sp->ngram_min < 2 || sp->ngram_max < sp->ngram_min || sp->ngram_max > 8)))
        return lp_error_set(err, LP_EINVAL,
                            "model shape out of range (dim %u, vocab %u, buckets %u, n-grams "
                            "%u..%u)",
                            sp->dim, sp->vocab, sp->buckets, sp->ngram_min, sp->ngram_max);
    uint32_t rows = sp->vocab + sp->buckets;
    uint32_t slots = 1;
    while (slots < sp->vocab * 2u)
        slots <<= 1;
    uint64_t strings_bytes = 0;
    for (uint32_t i = 0; i < sp->vocab; i++)
        strings_bytes += strlen(sp->tokens[i]);
    if (strings_bytes > UINT32_MAX / 2)
        return lp_error_set(err, LP_ETOOBIG, "vocabulary strings too large");

    lp_embed_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, LP_EMBED_MAGIC, 8);
    h.version = LP_EMBED_FORMAT_VERSION;
    h.header_bytes = LP_EMBED_HEADER_BYTES;
    h.dim = sp->dim;
    h.vocab = sp->vocab;
    h.buckets = sp->buckets;
    h.ngram_min = sp->ngram_min;
    h.ngram_max = sp->ngram_max;
    h.tok_options = sp->tok_options;
    h.weighting = LP_EMBED_WEIGHT_SIF;
    h.oov_weight = sp->oov_weight;
    h.table_slots = slots;
    h.strings_bytes = (uint32_t)strings_bytes;
    uint64_t off = LP_EMBED_HEADER_BYTES;
    h.off_scales = off = align_up(off);
    off += (uint64_t)rows * 4;
    h.off_weights = off = align_up(off);
    off += (uint64_t)sp->vocab * 4;
    h.off_table = off = align_up(off);
    off += (uint64_t)slots * 4;
    h.off_stroff = off = align_up(off);
    off += ((uint64_t)sp->vocab + 1) * 4;
    h.off_strings = off = align_up(off);
    off += strings_bytes;
    h.off_rows = off = align_up(off);
    off += (uint64_t)rows * sp->dim;
    uint64_t total = align_up(off);
    if (total > LP_EMBED_FILE_MAX)
        return lp_error_set(err, LP_ETOOBIG, "the model would be %llu bytes, over the %zu limit",
                            (unsigned long long)total, LP_EMBED_FILE_MAX);
    h.payload_bytes = total - LP_EMBED_HEADER_BYTES;

    uint8_t *f = lp_xcalloc(1, (size_t)total);
    float *scales = (float *)(f + h.off_scales);
    float *weights = (float *)(f + h.off_weights);
    uint32_t *table = (uint32_t *)(f + h.off_table);
    uint32_t *stroff = (uint32_t *)(f + h.off_stroff);
    char *strings = (char *)(f + h.off_strings);
    int8_t *q = (int8_t *)(f + h.off_rows);
    lp_status rc = LP_OK;
    uint32_t so = 0;
    for (uint32_t i = 0; i < sp->vocab && !rc; i++) {
        size_t len = strlen(sp->tokens[i]);
        stroff[i] = so;
        memcpy(strings + so, sp->tokens[i], len);
        so += (uint32_t)len;
        weights[i] = sp->weights[i];
        uint64_t hv = lp_embed_token_hash(sp->tokens[i], len);
        for (uint32_t s = (uint32_t)hv & (slots - 1);; s = (s + 1) & (slots - 1)) {
            if (!table[s]) {
                table[s] = i + 1;
                break;
            }
            uint32_t o = table[s] - 1;
            if (stroff[o + 1] - stroff[o] == len && /* o < i: stroff[o + 1] is set */
                memcmp(strings + stroff[o], sp->tokens[i], len) == 0) {
                rc = lp_error_set(err, LP_EINVAL, "duplicate vocabulary token '%s'", sp->tokens[i]);
                break;
            }
        }
    }
    stroff[sp->vocab] = so;
    for (uint32_t r = 0; r < rows && !rc; r++)
        scales[r] = quantize_row(sp->rows + (size_t)r * sp->dim, sp->dim, q + (size_t)r * sp->dim);
    if (!rc) {
        lp_hash128 hh = lp_hash128_of(f + LP_EMBED_HEADER_BYTES, (size_t)h.payload_bytes);
        lp_hash128_bytes(hh, h.payload_hash);
        memcpy(f, &h, sizeof h);
        lp_buf_reset(out);
        lp_buf_append(out, f, (size_t)total);
        if (out->err)
            rc = lp_error_set(err, LP_ETOOBIG, "model buffer limit reached");
    }
    free(f);
    return rc;
}

/* ------------------------------------------------------------------------------------------
 * Loading. */

static lp_status bad(lp_error *err, const char *name, const char *what)
{
    return lp_error_set(err, LP_ECORRUPT,
                        "embedding model %s is damaged (%s); rebuild it with 'make model' or "
                        "unset LOUPE_EMBED_MODEL to use the built-in model",
                        name, what);
}

static bool range_ok(const lp_embed_header *h, size_t size, uint64_t off, uint64_t bytes)
{
    return off >= h->header_bytes && off % LP_EMBED_ALIGN == 0 && off <= size &&
           bytes <= size - off;
}

static lp_status model_open(const uint8_t *p, size_t n, const char *name, bool verify_hash,
                            lp_embed_model *m, lp_error *err)
{
    memset(m, 0, sizeof *m);
    if (n < 8 || memcmp(p, "LPEMBED", 7) != 0)
        return lp_error_set(err, LP_ECORRUPT,
                            "%s is not a loupe embedding model (wrong magic); point "
                            "LOUPE_EMBED_MODEL at a file written by loupe-train",
                            name);
    if (n < LP_EMBED_HEADER_BYTES)
        return bad(err, name, "truncated header");
    lp_embed_header h;
    memcpy(&h, p, sizeof h);
    if (memcmp(h.magic, LP_EMBED_MAGIC, 8) != 0 || h.version != LP_EMBED_FORMAT_VERSION)
        return lp_error_set(err, LP_EUNSUPPORTED,
                            "embedding model %s has format version %u, this loupe reads version "
                            "%u; use the model that came with this loupe or retrain it",
                            name, h.version, LP_EMBED_FORMAT_VERSION);
    if (h.header_bytes != LP_EMBED_HEADER_BYTES)
        return bad(err, name, "bad header size");
    if (h.payload_bytes != n - LP_EMBED_HEADER_BYTES)
        return bad(err, name,
                   n - LP_EMBED_HEADER_BYTES < h.payload_bytes ? "truncated" : "trailing bytes");
    if (h.dim < LP_EMBED_DIM_MIN || h.dim > LP_EMBED_DIM_MAX || h.vocab == 0 ||
        h.vocab > LP_EMBED_VOCAB_MAX || h.buckets > LP_EMBED_BUCKETS_MAX ||
        h.weighting != LP_EMBED_WEIGHT_SIF || h.table_slots < h.vocab ||
        (h.table_slots & (h.table_slots - 1)) != 0 ||
        (h.buckets && (h.ngram_min < 2 || h.ngram_max < h.ngram_min || h.ngram_max > 8)) ||
        !(h.oov_weight >= 0.0f && h.oov_weight <= 1e6f))
        return bad(err, name, "header fields out of range");
    uint64_t rows = (uint64_t)h.vocab + h.buckets;
    if (!range_ok(&h, n, h.off_scales, rows * 4) ||
        !range_ok(&h, n, h.off_weights, h.vocab * 4ull) ||
        !range_ok(&h, n, h.off_table, h.table_slots * 4ull) ||
        !range_ok(&h, n, h.off_stroff, (h.vocab + 1ull) * 4) ||
        !range_ok(&h, n, h.off_strings, h.strings_bytes) ||
        !range_ok(&h, n, h.off_rows, rows * h.dim))
        return bad(err, name, "section outside the file");
    if (verify_hash) {
        lp_hash128 got = lp_hash128_of(p + LP_EMBED_HEADER_BYTES, n - LP_EMBED_HEADER_BYTES);
        if (!lp_hash128_eq(got, lp_hash128_from_bytes(h.payload_hash)))
            return bad(err, name, "content hash mismatch");
    }
    m->base = p;
    m->size = n;
    m->h = h;
    m->scales = (const float *)(p + h.off_scales);
    m->weights = (const float *)(p + h.off_weights);
    m->table = (const uint32_t *)(p + h.off_table);
    m->stroff = (const uint32_t *)(p + h.off_stroff);
    m->strings = (const char *)(p + h.off_strings);
    m->rows = (const int8_t *)(p + h.off_rows);
    if (verify_hash) {
        for (uint32_t i = 0; i < h.vocab; i++)
            if (m->stroff[i + 1] < m->stroff[i] ||
                m->stroff[i + 1] - m->stroff[i] > LP_TEXT_TOKEN_MAX)
                return bad(err, name, "token strings out of order");
        if (m->stroff[h.vocab] > h.strings_bytes)
            return bad(err, name, "token strings past their section");
        for (uint32_t s = 0; s < h.table_slots; s++)
            if (m->table[s] > h.vocab)
                return bad(err, name, "token table names a missing row");
        for (uint64_t r = 0; r < rows; r++)
            if (!(m->scales[r] >= 0.0f && m->scales[r] < 1e6f))
                return bad(err, name, "row scale out of range");
    }
    lp_embed_info *in = &m->info;
    in->dim = h.dim;
    in->vocab = h.vocab;
    in->buckets = h.buckets;
    in->ngram_min = h.ngram_min;
    in->ngram_max = h.ngram_max;
    in->tok_options = h.tok_options;
    in->format_version = h.version;
    in->hash = lp_hash128_from_bytes(h.payload_hash);
    in->file_bytes = n;
    char hex[LP_HASH_HEX];
    lp_hash128_hex(in->hash, hex);
    snprintf(in->identity, sizeof in->identity, "loupe-static-v1:%.16s", hex);
    return LP_OK;
}

lp_status lp_embed_model_from_memory(const void *p, size_t n, lp_embed_model **out, lp_error *err)
{
    *out = NULL;
    lp_embed_model *m = lp_xcalloc(1, sizeof *m);
    lp_status rc = model_open(p, n, "(in memory)", true, m, err);
    if (rc) {
        free(m);
        return rc;
    }
    *out = m;
    return LP_OK;
}

lp_status lp_embed_model_load(const char *path, lp_embed_model **out, lp_error *err)
{
    *out = NULL;
    const void *p;
    size_t size;
    lp_status rc = lp_map_file(path, "embedding model", "fix LOUPE_EMBED_MODEL or set it to none",
                               LP_EMBED_FILE_MAX, &p, &size, err);
    if (rc != LP_OK)
        return rc;
    lp_embed_model *m = lp_xcalloc(1, sizeof *m);
    if ((rc = model_open(p, size, path, true, m, err))) {
        free(m);
        munmap((void *)p, size);
        return rc;
    }
    m->mapped = true;
    *out = m;
    return LP_OK;
}

void lp_embed_model_free(lp_embed_model *m)
{
    if (!m)
        return;
    if (m->mapped)
        munmap((void *)m->base, m->size);
    free(m);
}

void lp_embed_model_info(const lp_embed_model *m, lp_embed_info *out) { *out = m->info; }
uint32_t lp_embed_model_dim(const lp_embed_model *m) { return m->h.dim; }

lp_str lp_embed_model_token(const lp_embed_model *m, uint32_t row)
{
    if (row >= m->h.vocab)
        return LP_STR_NULL;
    return (lp_str){m->strings + m->stroff[row], m->stroff[row + 1] - m->stroff[row]};
}

uint32_t lp_embed_model_lookup(const lp_embed_model *m, const char *tok, size_t len)
{
    uint32_t mask = m->h.table_slots - 1;
    for (uint32_t s = (uint32_t)lp_embed_token_hash(tok, len) & mask, probes = 0; probes <= mask;
         s = (s + 1) & mask, probes++) {
        uint32_t e = m->table[s];
        if (!e)
            return UINT32_MAX;
        uint32_t r = e - 1;
        if (m->stroff[r + 1] - m->stroff[r] == len &&
            memcmp(m->strings + m->stroff[r], tok, len) == 0)
            return r;
    }
    return UINT32_MAX;
}

/* Accessors for embed.c and the trainer (declared in embed_int.h). */
const float *lp_embed_model_scales_(const lp_embed_model *m) { return m->scales; }
const float *lp_embed_model_weights_(const lp_embed_model *m) { return m->weights; }
const int8_t *lp_embed_model_rows_(const lp_embed_model *m) { return m->rows; }
const lp_embed_header *lp_embed_model_header_(const lp_embed_model *m) { return &m->h; }

/* ------------------------------------------------------------------------------------------
 * The default model. */

/* Defined by model_blob.c when the binary was built with a model; weak so that the trainer
 * (which produces the model) links without one. */
extern const unsigned char lp_embed_blob_start[] __attribute__((weak));
extern const unsigned char lp_embed_blob_end[] __attribute__((weak));

static pthread_once_t default_once = PTHREAD_ONCE_INIT;
static lp_embed_model *default_model;
static lp_error default_err;
static char default_identity[LP_EMBED_IDENTITY_MAX];
static bool default_identity_set;
static pthread_mutex_t identity_mu = PTHREAD_MUTEX_INITIALIZER;

static void default_load(void)
{
    const char *env = lp_setting_str(LP_SET_EMBED_MODEL);
    if (env && *env) {
        if (!strcmp(env, "none")) {
            lp_error_set(&default_err, LP_ENOENT,
                         "the dense channel is off (LOUPE_EMBED_MODEL=none)");
            return;
        }
        lp_embed_model_load(env, &default_model, &default_err);
        return;
    }
    uintptr_t bs = (uintptr_t)lp_embed_blob_start, be = (uintptr_t)lp_embed_blob_end;
    if (!bs || !be || be <= bs) {
        lp_error_set(&default_err, LP_ENOENT,
                     "this loupe was built without an embedding model (models/"
                     "loupe-static-v1.bin was missing); run 'make model' and rebuild, or set "
                     "LOUPE_EMBED_MODEL");
        return;
    }
    lp_embed_model *m = lp_xcalloc(1, sizeof *m);
    if (model_open(lp_embed_blob_start, (size_t)(be - bs), "(built-in)", true, m, &default_err)) {
        free(m);
        return;
    }
    default_model = m;
}

lp_status lp_embed_default(const lp_embed_model **out, lp_error *err)
{
    pthread_once(&default_once, default_load);
    *out = default_model;
    if (!default_model) {
        if (err)
            *err = default_err;
        return default_err.code ? default_err.code : LP_ENOENT;
    }
    return LP_OK;
}

const char *lp_embed_default_identity(void)
{
    pthread_mutex_lock(&identity_mu);
    if (!default_identity_set && lp_embed_remote_configured()) {
        /* The connected provider replaces the model (misconfigured: no provider). */
        default_identity_set = true;
        const lp_embed_remote *r;
        if (lp_embed_remote_get(&r, NULL) == LP_OK)
            snprintf(default_identity, sizeof default_identity, "%s", lp_embed_remote_identity(r));
    }
    if (!default_identity_set) {
        default_identity_set = true;
        uint8_t head[LP_EMBED_HEADER_BYTES];
        size_t n = 0;
        const char *env = lp_setting_str(LP_SET_EMBED_MODEL);
        if (env && *env) {
            if (strcmp(env, "none") != 0) {
                int fd = open(env, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* never wait on a fifo */
                if (fd >= 0) {
                    ssize_t r = read(fd, head, sizeof head);
                    n = r > 0 ? (size_t)r : 0;
                    close(fd);
                }
            }
        } else if (lp_embed_blob_start && lp_embed_blob_end &&
                   (uintptr_t)lp_embed_blob_end - (uintptr_t)lp_embed_blob_start >= sizeof head) {
            memcpy(head, lp_embed_blob_start, sizeof head);
            n = sizeof head;
        }
        lp_embed_header h;
        if (n == sizeof head && memcpy(&h, head, sizeof h) &&
            memcmp(h.magic, LP_EMBED_MAGIC, 8) == 0 && h.version == LP_EMBED_FORMAT_VERSION) {
            char hex[LP_HASH_HEX];
            lp_hash128_hex(lp_hash128_from_bytes(h.payload_hash), hex);
            snprintf(default_identity, sizeof default_identity, "loupe-static-v1:%.16s", hex);
        }
    }
    pthread_mutex_unlock(&identity_mu);
    return default_identity[0] ? default_identity : NULL;
}
