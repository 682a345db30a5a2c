/*
 * remote.c: the optional connected provider: any OpenAI-compatible /v1/embeddings endpoint
 * over libcurl, used instead of the built-in model when configured.
 *
 * Configuration (environment, read once per process):
 *   LOUPE_EMBED_URL         the endpoint, e.g. http://127.0.0.1:8080/v1/embeddings
 *   LOUPE_EMBED_REMOTE_MODEL the "model" field of requests
 *   LOUPE_EMBED_DIM         the vectors' dimension (checked on every answer)
 *   LOUPE_EMBED_API_KEY     optional bearer token (never logged, never fingerprinted)
 *   LOUPE_EMBED_TIMEOUT_MS  per request, default 15000 (queries use at most 5000)
 * URL, model and dimension are the provider's identity
 * ("openai-compat:<model>:<dim>:<8 hex digits of the URL hash>") and enter the fingerprint.
 *
 * Failure policy: a failed or timed-out request is an error status with a message (the
 * HTTP status and the start of the body, or curl's reason); callers degrade: the index
 * stores no vectors for that file (with a warning), a search runs without its dense
 * channel (with a warning). Vectors are L2-normalized here and stored like the built-in
 * model's (int8 + scale).
 */
#include "embed/embed_int.h"
#include "core/settings.h"

/* Calls go through function pointers, so curl's type-checking macros must not wrap them. */
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>
#include "core/json.h"
#include <math.h>
#include <pthread.h>

#define REMOTE_DIM_MAX 8192
#define REMOTE_BATCH 64
#define REMOTE_TEXT_MAX 8192
#define REMOTE_BODY_MAX ((size_t)64 << 20)

struct lp_embed_remote {
    char *url, *model, *key;
    uint32_t dim;
    long timeout_ms;
    char identity[LP_EMBED_IDENTITY_MAX + 32];
};

/* libcurl is opened when a remote provider is configured (core.h, lp_dynlib_load), not
 * linked: its dependency tree would be mapped at every start of every command. */
#ifndef LP_SONAME_CURL
#define LP_SONAME_CURL "libcurl.so"
#endif
#define CURL_FNS(X) \
    X(curl_easy_cleanup) \
    X(curl_easy_getinfo) \
    X(curl_easy_init) \
    X(curl_easy_perform) \
    X(curl_easy_setopt) \
    X(curl_easy_strerror) \
    X(curl_global_init) \
    X(curl_slist_append) \
    X(curl_slist_free_all)

static struct {
#define X(fn) __typeof__(fn) *fn;
    CURL_FNS(X)
#undef X
} C;

static lp_status curl_load(lp_error *err)
{
    static const char *const sonames[] = {LP_SONAME_CURL, "libcurl.so.4", "libcurl.so", NULL};
    static const char *const names[] = {
#define X(fn) #fn,
        CURL_FNS(X)
#undef X
    };
    lp_dynfn f[LP_ARRAY_LEN(names)];
    lp_status rc = lp_dynlib_load(sonames, names, f, LP_ARRAY_LEN(names),
                                  "the remote embedding provider (LOUPE_EMBED_URL)",
                                  "libcurl4", err);
    if (rc)
        return rc;
    size_t i = 0;
#define X(fn) C.fn = (__typeof__(C.fn))f[i++];
    CURL_FNS(X)
#undef X
    return LP_OK;
}

static pthread_once_t remote_once = PTHREAD_ONCE_INIT;
static lp_embed_remote *remote_cfg;
static lp_error remote_err;

static void remote_load(void)
{
    const char *url = lp_setting_str(LP_SET_EMBED_URL);
    if (!url)
        return;
    const char *model = lp_setting_str(LP_SET_EMBED_REMOTE_MODEL);
    uint64_t d = 0, to = lp_setting_u64(LP_SET_EMBED_TIMEOUT_MS);
    if (!model || lp_setting_u64_get(LP_SET_EMBED_DIM, &d) != 1 || d > REMOTE_DIM_MAX) {
        lp_error_set(&remote_err, LP_EINVAL,
                     "LOUPE_EMBED_URL is set but LOUPE_EMBED_REMOTE_MODEL and LOUPE_EMBED_DIM "
                     "(2..%d) are not both valid; set them or unset LOUPE_EMBED_URL",
                     REMOTE_DIM_MAX);
        return;
    }
    if (curl_load(&remote_err))
        return;
    C.curl_global_init(CURL_GLOBAL_DEFAULT);
    lp_embed_remote *r = lp_xcalloc(1, sizeof *r);
    r->url = lp_xstrdup(url);
    r->model = lp_xstrdup(model);
    const char *key = lp_setting_str(LP_SET_EMBED_API_KEY);
    r->key = key ? lp_xstrdup(key) : NULL;
    r->dim = (uint32_t)d;
    r->timeout_ms = (long)to;
    char hex[LP_HASH_HEX];
    lp_hash128_hex(lp_hash128_of(url, strlen(url)), hex);
    snprintf(r->identity, sizeof r->identity, "openai-compat:%.*s:%u:%.8s", LP_CUT(model, 48), r->dim,
             hex);
    remote_cfg = r;
}

lp_status lp_embed_remote_get(const lp_embed_remote **out, lp_error *err)
{
    pthread_once(&remote_once, remote_load);
    *out = remote_cfg;
    if (remote_cfg)
        return LP_OK;
    if (remote_err.code) {
        if (err)
            *err = remote_err;
        return remote_err.code;
    }
    return LP_ENOENT;
}

bool lp_embed_remote_configured(void)
{
    return lp_setting_str(LP_SET_EMBED_URL) != NULL;
}

const char *lp_embed_remote_identity(const lp_embed_remote *r) { return r->identity; }
uint32_t lp_embed_remote_dim(const lp_embed_remote *r) { return r->dim; }

static size_t on_body(char *p, size_t size, size_t n, void *ctx)
{
    lp_buf *b = ctx;
    lp_buf_append(b, p, size * n);
    return b->err ? 0 : size * n;
}

/* The text of one chunk, at most REMOTE_TEXT_MAX bytes cut where a character ends; bytes
 * that are not UTF-8 become U+FFFD (JSON strings are UTF-8). */
static json_t *json_text(lp_str s)
{
    return lp_json_text(s.ptr, lp_utf8_cut(s.ptr, s.len, REMOTE_TEXT_MAX));
}

lp_status lp_embed_remote_batch(const lp_embed_remote *r, const lp_str *texts, size_t n,
                                long timeout_ms, uint8_t *out, lp_error *err)
{
    size_t stride = LP_EMBED_VEC_BYTES(r->dim);
    memset(out, 0, stride * n);
    /* A caller's limit (queries: 5 s) never extends the configured timeout. */
    long to = timeout_ms > 0 && timeout_ms < r->timeout_ms ? timeout_ms : r->timeout_ms;
    float *v = lp_xmalloc(sizeof(float) * r->dim);
    lp_buf body, hdr;
    lp_buf_init(&body, REMOTE_BODY_MAX);
    lp_buf_init(&hdr, 0);
    lp_status rc = LP_OK;
    for (size_t base = 0; base < n && !rc; base += REMOTE_BATCH) {
        size_t m = LP_MIN((size_t)REMOTE_BATCH, n - base);
        json_t *input = json_array();
        for (size_t i = 0; i < m; i++)
            json_array_append_new(input, json_text(texts[base + i]));
        json_t *req = lp_json_pack("{s:s,s:o}", "model", r->model, "input", input);
        char *payload = json_dumps(req, JSON_COMPACT);
        json_decref(req);
        CURL *c = C.curl_easy_init();
        struct curl_slist *h = C.curl_slist_append(NULL, "Content-Type: application/json");
        if (r->key) {
            lp_buf_reset(&hdr);
            lp_buf_printf(&hdr, "Authorization: Bearer %s", r->key);
            h = C.curl_slist_append(h, hdr.ptr);
        }
        lp_buf_reset(&body);
        char cerr[CURL_ERROR_SIZE] = "";
        C.curl_easy_setopt(c, CURLOPT_URL, r->url);
        C.curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
        C.curl_easy_setopt(c, CURLOPT_POSTFIELDS, payload);
        C.curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
        C.curl_easy_setopt(c, CURLOPT_WRITEDATA, &body);
        C.curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, to);
        C.curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, LP_MIN(to, 5000L));
        C.curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        C.curl_easy_setopt(c, CURLOPT_ERRORBUFFER, cerr);
        C.curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
        CURLcode cc = C.curl_easy_perform(c);
        long status = 0;
        C.curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
        C.curl_slist_free_all(h);
        C.curl_easy_cleanup(c);
        free(payload);
        if (cc != CURLE_OK) {
            rc = lp_error_set(err, LP_EIO, "embedding provider %s: %s", r->url,
                              cc == CURLE_OPERATION_TIMEDOUT ? "timed out"
                              : cerr[0]                      ? cerr
                                                             : C.curl_easy_strerror(cc));
            break;
        }
        if (status != 200) {
            rc = lp_error_set(err, LP_EIO, "embedding provider %s answered HTTP %ld: %.*s",
                              r->url, status, LP_CUT(body.ptr, 120));
            break;
        }
        json_error_t je;
        json_t *res = json_loadb(body.ptr, body.len, 0, &je);
        json_t *data = res ? json_object_get(res, "data") : NULL;
        if (!json_is_array(data) || json_array_size(data) != m) {
            rc = lp_error_set(err, LP_EIO,
                              "embedding provider %s: the answer has no 'data' array of %zu "
                              "embeddings",
                              r->url, m);
            json_decref(res);
            break;
        }
        for (size_t i = 0; i < m && !rc; i++) {
            json_t *item = json_array_get(data, i);
            json_t *idx = json_object_get(item, "index");
            size_t at = json_is_integer(idx) ? (size_t)json_integer_value(idx) : i;
            json_t *emb = json_object_get(item, "embedding");
            if (at >= m || !json_is_array(emb) || json_array_size(emb) != r->dim) {
                rc = lp_error_set(err, LP_EIO,
                                  "embedding provider %s: embedding %zu is not %u numbers "
                                  "(check LOUPE_EMBED_DIM)",
                                  r->url, i, r->dim);
                break;
            }
            double norm = 0;
            for (uint32_t j = 0; j < r->dim; j++) {
                v[j] = (float)json_number_value(json_array_get(emb, j));
                norm += (double)v[j] * v[j];
            }
            if (!(norm > 1e-20) || !isfinite(norm))
                continue; /* stays a zero vector: never matches */
            float inv = (float)(1.0 / sqrt(norm));
            for (uint32_t j = 0; j < r->dim; j++)
                v[j] *= inv;
            lp_embed_quantize(v, r->dim, out + (base + at) * stride);
        }
        json_decref(res);
    }
    lp_buf_release(&body);
    lp_buf_release(&hdr);
    free(v);
    return rc;
}
