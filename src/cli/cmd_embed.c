/*
 * cmd_embed.c: `loupe embed`, a hidden debugging command for the dense channel.
 *
 *   loupe embed --info                      the model: identity, shape, SIMD level
 *   loupe embed TEXT                        TEXT's vector (JSON array of floats)
 *   loupe embed --search PATH QUERY [-k N]  dense-only top chunks of PATH's publication
 */
#include "cli/cli_int.h"
#include "embed/embed.h"
#include "store/store.h"

#include "core/json.h"

static int info(void)
{
    lp_error err = {0};
    if (lp_embed_remote_configured()) {
        const lp_embed_remote *r;
        if (lp_embed_remote_get(&r, &err))
            return lp_cli_fail(&err, false);
        json_t *j = lp_json_pack("{s:s,s:i,s:s,s:s}", "identity", lp_embed_remote_identity(r), "dim",
                              (int)lp_embed_remote_dim(r), "provider", "openai-compatible", "simd",
                              lp_embed_simd_name(lp_embed_simd_best()));
        int code = lp_cli_print_json(j);
        json_decref(j);
        return code;
    }
    const lp_embed_model *m;
    if (lp_embed_default(&m, &err))
        return lp_cli_fail(&err, false);
    lp_embed_info in;
    lp_embed_model_info(m, &in);
    json_t *j = lp_json_pack(
        "{s:s,s:i,s:i,s:i,s:i,s:I,s:s}", "identity", in.identity, "dim", (int)in.dim, "vocab",
        (int)in.vocab, "buckets", (int)in.buckets, "format_version", (int)in.format_version,
        "bytes", (json_int_t)in.file_bytes, "simd", lp_embed_simd_name(lp_embed_simd_best()));
    int code = lp_cli_print_json(j);
    json_decref(j);
    return code;
}

static int vector(const char *text)
{
    lp_error err = {0};
    lp_embedder *e = NULL;
    if (lp_embedder_default(&e, &err))
        return lp_cli_fail(&err, false);
    uint32_t dim = lp_embedder_dim(e);
    float *v = lp_xcalloc(dim, sizeof(float));
    bool any = lp_embed_text(e, lp_str_c(text), v);
    if (lp_embedder_error(e)->code) {
        err = *lp_embedder_error(e);
        lp_embedder_free(e);
        free(v);
        return lp_cli_fail(&err, false);
    }
    lp_embedder_free(e);
    json_t *a = json_array();
    for (uint32_t i = 0; i < dim; i++)
        json_array_append_new(a, json_real(v[i]));
    free(v);
    json_t *j = lp_json_pack("{s:b,s:o}", "known_tokens", any, "vector", a);
    int code = lp_cli_print_json(j);
    json_decref(j);
    return code;
}

static int search(const char *path, const char *query, uint64_t k)
{
    lp_error err = {0};
    lp_buf root;
    lp_buf_init(&root, 0);
    lp_store *st = NULL;
    lp_dense_hit *hits = lp_xcalloc(k, sizeof *hits);
    int code = LP_EXIT_OK;
    lp_status rc = lp_cli_root_for(path, true, false, &root, &err);
    if (!rc)
        rc = lp_store_open(root.ptr, LP_STORE_READ, &st, &err);
    if (!rc)
        rc = lp_store_pin(st, &err);
    lp_publication pub = {0};
    if (!rc)
        rc = lp_store_current(st, &pub, &err);
    size_t n = 0;
    uint64_t t0 = lp_now_ns();
    if (!rc)
        rc = lp_dense_search(st, pub.id, lp_str_c(query), (size_t)k, hits, &n, &err);
    double ms = (double)(lp_now_ns() - t0) / 1e6;
    if (rc) {
        code = lp_cli_fail(&err, false);
        goto done;
    }
    json_t *arr = json_array();
    sqlite3_stmt *s = NULL;
    sqlite3_prepare_v2(lp_store_db(st),
                       "SELECT f.path, c.start_line, c.end_line FROM chunks c JOIN files f "
                       "ON f.bid = c.bid WHERE c.cid = ?1 ORDER BY f.path LIMIT 1",
                       -1, &s, NULL);
    for (size_t i = 0; i < n && s; i++) {
        sqlite3_bind_int64(s, 1, hits[i].cid);
        json_t *h =
            lp_json_pack("{s:I,s:f}", "cid", (json_int_t)hits[i].cid, "score", (double)hits[i].score);
        if (sqlite3_step(s) == SQLITE_ROW) {
            json_object_set_new(h, "path", lp_json_textz((const char *)sqlite3_column_text(s, 0)));
            json_object_set_new(h, "start_line", json_integer(sqlite3_column_int(s, 1)));
            json_object_set_new(h, "end_line", json_integer(sqlite3_column_int(s, 2)));
        }
        sqlite3_reset(s);
        json_array_append_new(arr, h);
    }
    sqlite3_finalize(s);
    json_t *j =
        lp_json_pack("{s:I,s:f,s:o}", "publication", (json_int_t)pub.id, "ms", ms, "hits", arr);
    code = lp_cli_print_json(j);
    json_decref(j);
done:
    if (st)
        lp_store_unpin(st);
    lp_store_close(st);
    lp_buf_release(&root);
    free(hits);
    return code;
}

static int run(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "--info"))
        return info();
    if (argc >= 4 && !strcmp(argv[1], "--search")) {
        uint64_t k = 10;
        if (argc >= 6 && !strcmp(argv[4], "-k") &&
            !lp_cli_parse_count("embed", "-k", argv[5], 10000, &k))
            return LP_EXIT_USAGE;
        return search(argv[2], argv[3], k);
    }
    if (argc == 2)
        return vector(argv[1]);
    return lp_cli_usage_error("embed", "expected --info, TEXT, or --search PATH QUERY [-k N]");
}

const lp_cli_cmd lp_cmd_embed = {
    .name = "embed",
    .summary = "debug the dense channel (model info, vectors, dense-only search)",
    .usage = "usage: loupe embed --info\n"
             "       loupe embed TEXT\n"
             "       loupe embed --search PATH QUERY [-k N]\n",
    .run = run,
    .hidden = true,
};
