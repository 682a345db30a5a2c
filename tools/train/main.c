/*
 * main.c: the loupe-train command line (built as build/loupe-train; not part of loupe).
 *
 *   loupe-train extract --list FILES.tsv --out PAIRS.bin [--heldout U1,U2] [--threads N]
 *                       [--stats STATS.json]
 *   loupe-train train   --pairs PAIRS.bin --out MODEL.bin [--manifest MANIFEST.json]
 *                       [--packages PKGS.tsv] [--extract-stats STATS.json] [--excluded TEXT]
 *                       [--seed N] [--threads N] [--dim N] [--epochs N] [--batch N] [--lr X]
 *                       [--vocab N] [--min-count N] [--buckets N] [--no-eval]
 *                       [--init MODEL.bin]   (fine-tune a distilled model: its shape is kept)
 *   loupe-train eval    --pairs PAIRS.bin --model MODEL.bin
 *   loupe-train vocab   --pairs PAIRS.bin --out VOCAB.tsv [--vocab N] [--min-count N]
 *                       [--extra-words WORDS.txt [--max-extra N]]
 *   loupe-train assemble --vocab VOCAB.tsv --rows ROWS.f32 --dim N --out MODEL.bin
 *                       [--buckets N] [--sif-a X]
 *
 * vocab and assemble are the two C ends of the teacher distillation (tools/teacher): the
 * vocabulary training would use, and a model from the teacher's rows for it.
 *
 * FILES.tsv lines are "unit<TAB>path". PKGS.tsv lines are "package<TAB>version<TAB>role".
 */
#include "train.h"

#include <jansson.h>

static const char *arg_value(int argc, char **argv, const char *name)
{
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], name))
            return argv[i + 1];
    return NULL;
}

static bool arg_flag(int argc, char **argv, const char *name)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], name))
            return true;
    return false;
}

static bool num_arg(int argc, char **argv, const char *name, uint64_t *out)
{
    const char *v = arg_value(argc, argv, name);
    if (!v)
        return true;
    if (!lp_parse_u64(lp_str_c(v), out)) {
        fprintf(stderr, "loupe-train: %s needs a whole number, got '%s'\n", name, v);
        return false;
    }
    return true;
}

static int fail(const lp_error *e)
{
    fprintf(stderr, "loupe-train: %s\n", e->msg);
    return 1;
}

static json_t *lang_counts(const uint64_t *counts)
{
    json_t *o = json_object();
    for (int l = 0; l < LP_LANG_COUNT; l++)
        if (counts[l])
            json_object_set_new(o, lp_lang_name((lp_lang)l), json_integer((json_int_t)counts[l]));
    return o;
}

static int cmd_extract(int argc, char **argv)
{
    const char *list = arg_value(argc, argv, "--list"), *out = arg_value(argc, argv, "--out");
    uint64_t threads = 2;
    if (!list || !out || !num_arg(argc, argv, "--threads", &threads)) {
        fprintf(stderr, "usage: loupe-train extract --list FILES.tsv --out PAIRS.bin\n");
        return 2;
    }
    lp_pairs p;
    lp_pairs_init(&p);
    lp_extract_stats st;
    lp_error err = {0};
    uint64_t t0 = lp_now_ns();
    lp_status rc = lp_train_extract(list, arg_value(argc, argv, "--heldout"), (unsigned)threads, &p,
                                    &st, &err);
    if (!rc)
        rc = lp_pairs_write(&p, out, &err);
    if (!rc) {
        uint64_t held = 0;
        uint64_t held_lang[LP_LANG_COUNT] = {0}, train_lang[LP_LANG_COUNT] = {0};
        for (size_t i = 0; i < p.items.len; i++) {
            if (p.items.items[i].heldout) {
                held++;
                held_lang[p.items.items[i].lang]++;
            } else {
                train_lang[p.items.items[i].lang]++;
            }
        }
        json_t *j = json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:f}", "files", (json_int_t)st.files,
                              "parsed", (json_int_t)st.parsed, "failed", (json_int_t)st.failed,
                              "pairs", (json_int_t)st.pairs, "duplicates_dropped",
                              (json_int_t)st.dupes, "heldout_pairs", (json_int_t)held, "seconds",
                              (double)(lp_now_ns() - t0) / 1e9);
        json_object_set_new(j, "train_pairs_per_language", lang_counts(train_lang));
        json_object_set_new(j, "heldout_pairs_per_language", lang_counts(held_lang));
        const char *sp = arg_value(argc, argv, "--stats");
        char *txt = json_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS);
        if (sp)
            rc = lp_write_file_atomic(sp, txt, strlen(txt), &err);
        fprintf(stderr, "%s\n", txt);
        free(txt);
        json_decref(j);
    }
    lp_pairs_release(&p);
    return rc ? fail(&err) : 0;
}

static json_t *eval_json(const lp_eval_result *r, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) {
        json_array_append_new(
            a, json_pack("{s:s,s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f}", "language",
                         r[i].lang == LP_LANG_COUNT ? "all" : lp_lang_name((lp_lang)r[i].lang),
                         "candidates", (int)r[i].queries, "mrr_model", r[i].mrr_model, "mrr_bm25",
                         r[i].mrr_bm25, "recall1_model", r[i].r1_model, "recall1_bm25",
                         r[i].r1_bm25, "recall10_model", r[i].r10_model, "recall10_bm25",
                         r[i].r10_bm25, "mrr_fused_rrf", r[i].mrr_fused, "recall1_fused_rrf",
                         r[i].r1_fused, "recall10_fused_rrf", r[i].r10_fused));
        fprintf(stderr,
                "eval: %-10s n=%4u  MRR model %.3f bm25 %.3f fused %.3f  R@1 %.3f/%.3f/%.3f  "
                "R@10 %.3f/%.3f/%.3f\n",
                r[i].lang == LP_LANG_COUNT ? "all" : lp_lang_name((lp_lang)r[i].lang), r[i].queries,
                r[i].mrr_model, r[i].mrr_bm25, r[i].mrr_fused, r[i].r1_model, r[i].r1_bm25,
                r[i].r1_fused, r[i].r10_model, r[i].r10_bm25, r[i].r10_fused);
    }
    return a;
}

static json_t *packages_json(const char *path, lp_error *err)
{
    json_t *a = json_array();
    if (!path)
        return a;
    lp_buf b;
    lp_buf_init(&b, 0);
    if (lp_read_file(path, 1 << 20, &b, err)) {
        lp_buf_release(&b);
        json_decref(a);
        return NULL;
    }
    lp_str all = lp_buf_str(&b);
    for (size_t pos = 0; pos < all.len;) {
        size_t nl = lp_str_find_char(all, '\n', pos);
        if (nl == SIZE_MAX)
            nl = all.len;
        lp_str line = lp_str_sub(all, pos, nl);
        pos = nl + 1;
        size_t t1 = lp_str_find_char(line, '\t', 0);
        size_t t2 = t1 == SIZE_MAX ? SIZE_MAX : lp_str_find_char(line, '\t', t1 + 1);
        if (t2 == SIZE_MAX)
            continue;
        char *name = lp_xstrndup(line.ptr, t1), *ver = lp_xstrndup(line.ptr + t1 + 1, t2 - t1 - 1);
        char *role = lp_xstrndup(line.ptr + t2 + 1, line.len - t2 - 1);
        json_array_append_new(
            a, json_pack("{s:s,s:s,s:s}", "package", name, "version", ver, "role", role));
        free(name);
        free(ver);
        free(role);
    }
    lp_buf_release(&b);
    return a;
}

static int cmd_train(int argc, char **argv)
{
    const char *pairs_path = arg_value(argc, argv, "--pairs"),
               *out = arg_value(argc, argv, "--out");
    lp_train_opts o;
    lp_train_opts_default(&o);
    uint64_t seed = o.seed, threads = o.threads, dim = o.dim, epochs = o.epochs, batch = o.batch,
             vocab = o.vocab_max, minc = o.min_count, buckets = o.buckets;
    if (!pairs_path || !out || !num_arg(argc, argv, "--seed", &seed) ||
        !num_arg(argc, argv, "--threads", &threads) || !num_arg(argc, argv, "--dim", &dim) ||
        !num_arg(argc, argv, "--epochs", &epochs) || !num_arg(argc, argv, "--batch", &batch) ||
        !num_arg(argc, argv, "--vocab", &vocab) || !num_arg(argc, argv, "--min-count", &minc) ||
        !num_arg(argc, argv, "--buckets", &buckets)) {
        fprintf(stderr, "usage: loupe-train train --pairs PAIRS.bin --out MODEL.bin [options]\n");
        return 2;
    }
    o.seed = seed;
    o.threads = (unsigned)threads;
    o.dim = (uint32_t)dim;
    o.epochs = (uint32_t)epochs;
    o.batch = (uint32_t)batch;
    o.vocab_max = (uint32_t)vocab;
    o.min_count = (uint32_t)minc;
    o.buckets = (uint32_t)buckets;
    const char *lr = arg_value(argc, argv, "--lr");
    if (lr)
        o.lr = strtod(lr, NULL);
    if (arg_flag(argc, argv, "--fixed-weights"))
        o.learn_weights = false;
    const char *an = arg_value(argc, argv, "--anchor");
    if (an)
        o.anchor = strtod(an, NULL);
    const char *dr = arg_value(argc, argv, "--dropout");
    if (dr)
        o.dropout = strtod(dr, NULL);
    const char *sa = arg_value(argc, argv, "--sif-a");
    if (sa)
        o.sif_a = strtod(sa, NULL);
    const char *temp = arg_value(argc, argv, "--temperature");
    if (temp)
        o.temperature = strtod(temp, NULL);
    lp_pairs p;
    lp_pairs_init(&p);
    lp_error err = {0};
    lp_buf model;
    lp_buf_init(&model, 0);
    lp_train_stats st;
    json_t *man = NULL;
    lp_embed_model *init = NULL;
    const char *init_path = arg_value(argc, argv, "--init");
    lp_status rc = init_path ? lp_embed_model_load(init_path, &init, &err) : LP_OK;
    o.init = init;
    if (init) {
        const lp_embed_header *ih = lp_embed_model_header_(init);
        o.dim = ih->dim;
        o.buckets = ih->buckets;
        o.vocab_max = ih->vocab;
    }
    if (!rc)
        rc = lp_pairs_read(&p, pairs_path, &err);
    if (!rc)
        rc = lp_train_run(&p, &o, &model, &st, &err);
    if (!rc)
        rc = lp_write_file_atomic(out, model.ptr, model.len, &err);
    if (rc)
        goto done;
    lp_embed_model *m;
    if ((rc = lp_embed_model_from_memory(model.ptr, model.len, &m, &err)))
        goto done;
    lp_embed_info info;
    lp_embed_model_info(m, &info);
    lp_embed_model_free(m);
    char hex[LP_HASH_HEX];
    lp_hash128_hex(info.hash, hex);
    fprintf(stderr, "train: wrote %s (%zu bytes) identity %s, %.0fs\n", out, model.len,
            info.identity, st.seconds);
    man = json_object();
    json_object_set_new(man, "model",
                        json_pack("{s:s,s:s,s:s,s:I,s:i,s:i,s:i,s:i}", "file",
                                  "models/loupe-static-v1.bin", "identity", info.identity,
                                  "payload_xxh3_128", hex, "bytes", (json_int_t)model.len, "dim",
                                  (int)info.dim, "vocab", (int)info.vocab, "buckets",
                                  (int)info.buckets, "format_version", (int)info.format_version));
    json_object_set_new(
        man, "hyperparameters",
        json_pack("{s:I,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:f,s:f,s:f,s:f,s:f,s:i,s:s,s:s,s:s}", "seed",
                  (json_int_t)o.seed, "dim", (int)o.dim, "vocab_max", (int)o.vocab_max, "min_count",
                  (int)o.min_count, "buckets", (int)o.buckets, "ngram_min", (int)o.ngram_min,
                  "ngram_max", (int)o.ngram_max, "epochs", (int)o.epochs, "lr", o.lr, "temperature",
                  o.temperature, "sif_a", o.sif_a, "dropout", o.dropout, "anchor", o.anchor,
                  "batch", (int)o.batch, "tokenizer", "LP_TEXT_CODE|LP_TEXT_STEM|LP_TEXT_STOPWORDS",
                  "objective", "symmetric InfoNCE, in-batch negatives, language-grouped batches",
                  "optimizer", "lazy Adam, linear decay to 10%"));
    json_object_set_new(man, "training",
                        json_pack("{s:I,s:I,s:f,s:f,s:i}", "train_pairs",
                                  (json_int_t)st.train_pairs, "heldout_pairs",
                                  (json_int_t)st.heldout_pairs, "seconds", st.seconds, "final_loss",
                                  st.final_loss, "threads", (int)o.threads));
    json_object_set_new(json_object_get(man, "training"), "train_pairs_per_language",
                        lang_counts(st.per_lang_train));
    json_t *pk = packages_json(arg_value(argc, argv, "--packages"), &err);
    if (!pk) {
        rc = err.code ? err.code : LP_ERROR;
        goto done;
    }
    json_object_set_new(man, "packages", pk);
    const char *xn = arg_value(argc, argv, "--extractor");
    if (xn)
        json_object_set_new(man, "extractor", json_string(xn));
    const char *ex = arg_value(argc, argv, "--excluded");
    if (ex)
        json_object_set_new(man, "excluded_dev_corpora", json_string(ex));
    const char *es = arg_value(argc, argv, "--extract-stats");
    if (es) {
        json_error_t je;
        json_t *x = json_load_file(es, 0, &je);
        if (x)
            json_object_set_new(man, "extraction", x);
    }
    if (!arg_flag(argc, argv, "--no-eval")) {
        lp_eval_result r[LP_LANG_COUNT + 1];
        size_t n = lp_train_eval(&p, (const uint8_t *)model.ptr, model.len, 1000, 200, o.threads, r,
                                 LP_ARRAY_LEN(r), &err);
        json_object_set_new(man, "evaluation",
                            json_pack("{s:s,s:o}", "method",
                                      "held-out units; each description ranks its own code among "
                                      "N candidates (N<=1000, same language; 'all' mixes "
                                      "languages); model = shipped int8 path; BM25 k1=1.2 "
                                      "b=0.75 with the same tokenizer",
                                      "results", eval_json(r, n)));
    }
    const char *mp = arg_value(argc, argv, "--manifest");
    if (mp) {
        char *txt = json_dumps(man, JSON_INDENT(2) | JSON_SORT_KEYS);
        lp_buf_reset(&model);
        lp_buf_puts(&model, txt);
        lp_buf_putc(&model, '\n');
        free(txt);
        rc = lp_write_file_atomic(mp, model.ptr, model.len, &err);
    }
done:
    json_decref(man);
    lp_buf_release(&model);
    lp_pairs_release(&p);
    lp_embed_model_free(init);
    return rc ? fail(&err) : 0;
}

static int cmd_vocab(int argc, char **argv)
{
    const char *pp = arg_value(argc, argv, "--pairs"), *out = arg_value(argc, argv, "--out");
    lp_train_opts o;
    lp_train_opts_default(&o);
    uint64_t vocab = o.vocab_max, minc = o.min_count;
    if (!pp || !out || !num_arg(argc, argv, "--vocab", &vocab) ||
        !num_arg(argc, argv, "--min-count", &minc)) {
        fprintf(stderr, "usage: loupe-train vocab --pairs PAIRS.bin --out VOCAB.tsv\n");
        return 2;
    }
    o.vocab_max = (uint32_t)vocab;
    o.min_count = (uint32_t)minc;
    lp_pairs p;
    lp_pairs_init(&p);
    lp_error err = {0};
    lp_status rc = lp_pairs_read(&p, pp, &err);
    uint64_t extra = 30000;
    if (!num_arg(argc, argv, "--max-extra", &extra))
        return 2;
    if (!rc)
        rc = lp_train_vocab_dump_extra(&p, &o, arg_value(argc, argv, "--extra-words"),
                                       (uint32_t)extra, out, &err);
    lp_pairs_release(&p);
    return rc ? fail(&err) : 0;
}

static int cmd_assemble(int argc, char **argv)
{
    const char *vp = arg_value(argc, argv, "--vocab"), *rp = arg_value(argc, argv, "--rows"),
               *out = arg_value(argc, argv, "--out");
    lp_train_opts o;
    lp_train_opts_default(&o);
    uint64_t dim = 0, buckets = o.buckets;
    if (!vp || !rp || !out || !num_arg(argc, argv, "--dim", &dim) || !dim ||
        !num_arg(argc, argv, "--buckets", &buckets)) {
        fprintf(stderr, "usage: loupe-train assemble --vocab VOCAB.tsv --rows ROWS.f32 --dim N "
                        "--out MODEL.bin\n");
        return 2;
    }
    o.buckets = (uint32_t)buckets;
    const char *sa = arg_value(argc, argv, "--sif-a");
    if (sa)
        o.sif_a = strtod(sa, NULL);
    lp_buf m;
    lp_buf_init(&m, 0);
    lp_error err = {0};
    lp_status rc = lp_train_assemble(vp, rp, (uint32_t)dim, &o, &m, &err);
    if (!rc)
        rc = lp_write_file_atomic(out, m.ptr, m.len, &err);
    if (!rc) {
        lp_embed_model *mm;
        if (!(rc = lp_embed_model_from_memory(m.ptr, m.len, &mm, &err))) {
            lp_embed_info info;
            lp_embed_model_info(mm, &info);
            fprintf(stderr, "assemble: wrote %s (%zu bytes) identity %s\n", out, m.len,
                    info.identity);
            lp_embed_model_free(mm);
        }
    }
    lp_buf_release(&m);
    return rc ? fail(&err) : 0;
}

static int cmd_eval(int argc, char **argv)
{
    const char *pp = arg_value(argc, argv, "--pairs"), *mp = arg_value(argc, argv, "--model");
    if (!pp || !mp) {
        fprintf(stderr, "usage: loupe-train eval --pairs PAIRS.bin --model MODEL.bin\n");
        return 2;
    }
    lp_pairs p;
    lp_pairs_init(&p);
    lp_buf m;
    lp_buf_init(&m, 0);
    lp_error err = {0};
    lp_status rc = lp_pairs_read(&p, pp, &err);
    if (!rc)
        rc = lp_read_file(mp, LP_EMBED_FILE_MAX, &m, &err);
    if (!rc) {
        lp_eval_result r[LP_LANG_COUNT + 1];
        size_t n = lp_train_eval(&p, (const uint8_t *)m.ptr, m.len, 1000, 200, 2, r,
                                 LP_ARRAY_LEN(r), &err);
        if (!n && err.code)
            rc = err.code;
        json_decref(eval_json(r, n));
    }
    lp_buf_release(&m);
    lp_pairs_release(&p);
    return rc ? fail(&err) : 0;
}

int main(int argc, char **argv)
{
    lp_log_init_from_env();
    if (argc < 2) {
        fprintf(stderr, "usage: loupe-train extract|train|eval|vocab|assemble ... (see tools/train/main.c)\n");
        return 2;
    }
    if (!strcmp(argv[1], "extract"))
        return cmd_extract(argc - 1, argv + 1);
    if (!strcmp(argv[1], "train"))
        return cmd_train(argc - 1, argv + 1);
    if (!strcmp(argv[1], "eval"))
        return cmd_eval(argc - 1, argv + 1);
    if (!strcmp(argv[1], "vocab"))
        return cmd_vocab(argc - 1, argv + 1);
    if (!strcmp(argv[1], "assemble"))
        return cmd_assemble(argc - 1, argv + 1);
    fprintf(stderr, "loupe-train: unknown command '%s'\n", argv[1]);
    return 2;
}
