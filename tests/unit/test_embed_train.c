/*
 * test_embed_train.c: the embedding trainer (tools/train): doc cleaning, pair extraction from
 * hand-made parse results (the lp_parse contract), the pairs file, determinism of a small
 * training run (same seed -> same bytes, whatever the thread count), and the evaluation.
 */
#include "t.h"
#include "train.h"

static lp_str cleaned(const char *doc, lp_buf *b)
{
    lp_buf_reset(b);
    lp_train_clean_doc(lp_str_c(doc), b);
    return lp_buf_str(b);
}

T_TEST(train_clean_doc_styles)
{
    lp_buf b;
    lp_buf_init(&b, 0);
    T_CHECK_STR(
        cleaned("\"\"\"Return the sum of a and b.\n\n    Args:\n      a: x\n\"\"\"", &b).ptr,
        "Return the sum of a and b.");
    T_CHECK_STR(
        cleaned("/**\n * Opens a connection\n * to the server.\n * @param host the host\n */", &b)
            .ptr,
        "Opens a connection to the server.");
    T_CHECK_STR(
        cleaned("/// Parses a config file.\n/// # Examples\n/// ```\n/// x\n/// ```", &b).ptr,
        "Parses a config file.");
    T_CHECK_STR(cleaned("// Dial connects to the address\n// on the named network.", &b).ptr,
                "Dial connects to the address on the named network.");
    T_CHECK_STR(cleaned("'''Short.'''", &b).ptr, "Short.");
    T_CHECK_STR(cleaned("", &b).ptr, "");
    T_CHECK_STR(cleaned("/** */", &b).ptr, "");
    /* Bounded output, cut on a UTF-8 boundary. */
    lp_buf big;
    lp_buf_init(&big, 0);
    for (int i = 0; i < 400; i++)
        lp_buf_puts(&big, "\xc3\xa9t\xc3\xa9 ");
    lp_buf_reset(&b);
    lp_train_clean_doc(lp_buf_str(&big), &b);
    lp_buf_release(&big);
    T_CHECK(b.len <= LP_PAIR_DESC_MAX);
    T_CHECK(((unsigned char)b.ptr[b.len - 1] & 0xC0) != 0xC0); /* not a lead byte alone */
    T_CHECK(lp_train_doc_is_boilerplate(LP_STR("{@inheritDoc}")));
    T_CHECK(lp_train_doc_is_boilerplate(LP_STR("TODO: write this")));
    T_CHECK(!lp_train_doc_is_boilerplate(LP_STR("Reads the whole file into memory.")));
done:
    lp_buf_release(&b);
}

/* A hand-made parse result in the shape lp_parse returns. */
static lp_symbol sym(lp_symkind k, const char *name, uint32_t sb, uint32_t eb, uint32_t db,
                     uint32_t de, uint32_t flags)
{
    lp_symbol s;
    memset(&s, 0, sizeof s);
    s.kind = k;
    s.name = name;
    s.qname = name;
    s.span = (lp_span){sb, eb, 1, 2};
    if (de > db)
        s.doc = (lp_span){db, de, 1, 1};
    s.parent = -1;
    s.flags = flags;
    return s;
}

T_TEST(train_pairs_from_parse_results)
{
    lp_pairs p;
    lp_pairs_init(&p);
    /* Python: the docstring lies inside the definition and must leave the code. */
    const char *py = "def add_numbers(a, b):\n    \"\"\"Return the sum of two numbers.\"\"\"\n"
                     "    return a + b\n";
    uint32_t ds = (uint32_t)(strstr(py, "\"\"\"") - py);
    uint32_t de = (uint32_t)(strstr(py, ".\"\"\"") - py) + 4;
    lp_symbol ps[3];
    ps[0] = sym(LP_SYM_FUNCTION, "add_numbers", 0, (uint32_t)strlen(py), ds, de, 0);
    /* A test function and a boilerplate doc are skipped. */
    ps[1] = sym(LP_SYM_FUNCTION, "test_add", 0, (uint32_t)strlen(py), ds, de, LP_SYMF_TEST);
    ps[2] = sym(LP_SYM_FUNCTION, "other", 0, (uint32_t)strlen(py), 0, 0, 0);
    lp_parse_result pr = {.lang = LP_LANG_PYTHON, .symbols = ps, .nsymbols = 3};
    uint32_t u = lp_pairs_unit(&p, "unit-a");
    T_CHECK_INT(lp_train_pairs_from_parse(&p, u, lp_str_c(py), &pr), 1);
    const lp_pair *x = &p.items.items[0];
    T_CHECK_STR(x->desc, "Return the sum of two numbers.");
    T_CHECK(strstr(x->code, "def add_numbers(a, b):") != NULL);
    T_CHECK(strstr(x->code, "return a + b") != NULL);
    T_CHECK(strstr(x->code, "sum of two") == NULL);
    T_CHECK(!strncmp(x->code, "add_numbers\n", 12)); /* qualified name first */
    T_CHECK_INT(x->lang, LP_LANG_PYTHON);

    /* Go: the doc comment precedes the span; too-short docs and spans are skipped. */
    const char *go = "// Dial connects to the address on the named network.\n"
                     "func Dial(network, address string) (Conn, error) {\n"
                     "\treturn dial(network, address)\n}\n"
                     "// Short doc.\nfunc X() {}\n";
    uint32_t fs = (uint32_t)(strstr(go, "func Dial") - go),
             fe = (uint32_t)(strstr(go, "}\n") - go) + 1;
    uint32_t xs = (uint32_t)(strstr(go, "func X") - go);
    uint32_t sd = (uint32_t)(strstr(go, "// Short") - go);
    lp_symbol gs[2];
    gs[0] = sym(LP_SYM_FUNCTION, "Dial", fs, fe, 0, fs - 1, 0);
    gs[1] = sym(LP_SYM_FUNCTION, "X", xs, (uint32_t)strlen(go) - 1, sd, xs - 1, 0);
    lp_parse_result pg = {.lang = LP_LANG_GO, .symbols = gs, .nsymbols = 2};
    T_CHECK_INT(lp_train_pairs_from_parse(&p, u, lp_str_c(go), &pg), 1);
    x = &p.items.items[1];
    T_CHECK_STR(x->desc, "Dial connects to the address on the named network.");
    T_CHECK(strstr(x->code, "func Dial(network") != NULL && strstr(x->code, "// Dial") == NULL);

    /* Spans past the content are clamped, never read out of bounds. */
    lp_symbol bad = sym(LP_SYM_FUNCTION, "f", 5, 100000, 0, 60, 0);
    lp_parse_result pb = {.lang = LP_LANG_GO, .symbols = &bad, .nsymbols = 1};
    lp_train_pairs_from_parse(&p, u, lp_str_c(go), &pb);

    /* The pairs file round-trips. */
    lp_buf path;
    lp_buf_init(&path, 0);
    lp_buf_printf(&path, "%s/pairs.bin", t->tmpdir);
    lp_error err = {0};
    p.items.items[1].heldout = true;
    lp_pairs q;
    lp_pairs_init(&q);
    lp_status rc = lp_pairs_write(&p, path.ptr, &err);
    if (!rc)
        rc = lp_pairs_read(&q, path.ptr, &err);
    bool same = !rc && q.items.len == p.items.len && q.units.len == 1 &&
                !strcmp(q.units.items[0], "unit-a");
    for (size_t i = 0; same && i < q.items.len; i++)
        same = q.items.items[i].heldout == p.items.items[i].heldout &&
               q.items.items[i].code_len == p.items.items[i].code_len &&
               !memcmp(q.items.items[i].code, p.items.items[i].code, q.items.items[i].code_len) &&
               !strcmp(q.items.items[i].desc, p.items.items[i].desc);
    /* A truncated pairs file is refused. */
    lp_pairs r;
    lp_pairs_init(&r);
    lp_t_sh("truncate -s -3 %s", path.ptr);
    lp_status rc2 = lp_pairs_read(&r, path.ptr, &err);
    lp_pairs_release(&r);
    lp_pairs_release(&q);
    lp_buf_release(&path);
    T_CHECK_OK(rc, &err);
    T_CHECK(same);
    T_CHECK(rc2 == LP_ECORRUPT);
done:
    lp_pairs_release(&p);
}

/* Synthetic pairs: descriptions and code that share a topic word and its code words. */
static void synth_pairs(lp_pairs *p, size_t n)
{
    static const char *const topics[][3] = {
        {"open a network connection", "socket", "dial"},
        {"parse the configuration file", "config", "parse"},
        {"compute the average of values", "mean", "sum"},
        {"sort the list of items", "sort", "compare"},
        {"write bytes to disk", "write", "fsync"},
        {"hash a password securely", "bcrypt", "salt"},
        {"render an html template", "template", "render"},
        {"retry a failed request", "retry", "backoff"},
    };
    uint32_t u = lp_pairs_unit(p, "synthetic");
    lp_buf d, c;
    lp_buf_init(&d, 0);
    lp_buf_init(&c, 0);
    for (size_t i = 0; i < n; i++) {
        size_t k = i % LP_ARRAY_LEN(topics);
        lp_buf_reset(&d);
        lp_buf_reset(&c);
        lp_buf_printf(&d, "%s number %zu", topics[k][0], i / 8);
        lp_buf_printf(&c, "def %s_%s_%zu(x):\n    y = %s(x, %zu)\n    return helper_%zu(y)\n",
                      topics[k][1], topics[k][2], i, topics[k][2], i % 5, i % 3);
        lp_pairs_add(p, u, i % 2 ? LP_LANG_PYTHON : LP_LANG_GO, lp_buf_str(&d), lp_buf_str(&c));
        p->items.items[p->items.len - 1].heldout = i % 10 == 9;
    }
    lp_buf_release(&d);
    lp_buf_release(&c);
}

T_TEST(train_deterministic_small_run)
{
    lp_pairs p;
    lp_pairs_init(&p);
    synth_pairs(&p, 400);
    lp_train_opts o;
    lp_train_opts_default(&o);
    o.dim = 32;
    o.vocab_max = 500;
    o.min_count = 2;
    o.buckets = 64;
    o.epochs = 2;
    o.batch = 32;
    o.quiet = true;
    lp_buf m1, m2, m3;
    lp_buf_init(&m1, 0);
    lp_buf_init(&m2, 0);
    lp_buf_init(&m3, 0);
    lp_train_stats st;
    lp_error err = {0};
    o.threads = 2;
    T_CHECK_OK(lp_train_run(&p, &o, &m1, &st, &err), &err);
    T_CHECK_INT(st.train_pairs, 360);
    T_CHECK_INT(st.heldout_pairs, 40);
    o.threads = 1; /* another thread count: the same bytes */
    T_CHECK_OK(lp_train_run(&p, &o, &m2, &st, &err), &err);
    T_CHECK(m1.len == m2.len && memcmp(m1.ptr, m2.ptr, m1.len) == 0);
    o.seed = 2; /* another seed: another model */
    T_CHECK_OK(lp_train_run(&p, &o, &m3, &st, &err), &err);
    T_CHECK(m1.len == m3.len && memcmp(m1.ptr, m3.ptr, m1.len) != 0);
    /* The result is a valid model and the evaluation runs on the held-out pairs. */
    lp_eval_result r[LP_LANG_COUNT + 1];
    size_t n =
        lp_train_eval(&p, (const uint8_t *)m1.ptr, m1.len, 1000, 10, 2, r, LP_ARRAY_LEN(r), &err);
    T_CHECK(n >= 1);
    for (size_t i = 0; i < n; i++) {
        T_CHECK(r[i].queries >= 10 && r[i].queries <= 40);
        T_CHECK(r[i].mrr_model > 0 && r[i].mrr_model <= 1 && r[i].mrr_bm25 > 0 &&
                r[i].mrr_bm25 <= 1);
        T_CHECK(r[i].r1_model <= r[i].r10_model);
    }
    /* Too little data is refused with a message. */
    lp_pairs few;
    lp_pairs_init(&few);
    synth_pairs(&few, 1);
    lp_status rc = lp_train_run(&few, &o, &m3, &st, &err);
    lp_pairs_release(&few);
    T_CHECK(rc == LP_EINVAL && strstr(err.msg, "training pairs"));
done:
    lp_buf_release(&m1);
    lp_buf_release(&m2);
    lp_buf_release(&m3);
    lp_pairs_release(&p);
}

/* The teacher path: the vocabulary the trainer would use (with counts and spellings), a model
 * assembled from float rows (SIF weights, n-gram buckets from the rows), and fine-tuning
 * from that model (--init), which keeps its vocabulary and shape; with a zero learning rate
 * it reproduces the starting model byte for byte. */
T_TEST(train_vocab_assemble_and_init)
{
    lp_pairs p;
    lp_pairs_init(&p);
    synth_pairs(&p, 400);
    lp_train_opts o;
    lp_train_opts_default(&o);
    o.vocab_max = 300;
    o.min_count = 2;
    o.buckets = 64;
    o.epochs = 1;
    o.batch = 32;
    o.quiet = true;
    lp_error err = {0};
    lp_buf tsv, model, tuned, rows_b;
    lp_buf_init(&tsv, 0);
    lp_buf_init(&model, 0);
    lp_buf_init(&tuned, 0);
    lp_buf_init(&rows_b, 0);
    lp_embed_model *m = NULL, *m2 = NULL;
    char vpath[512], rpath[512];
    snprintf(vpath, sizeof vpath, "%s/vocab.tsv", t->tmpdir);
    snprintf(rpath, sizeof rpath, "%s/rows.f32", t->tmpdir);
    T_CHECK_OK(lp_train_vocab_dump(&p, &o, vpath, &err), &err);
    T_CHECK_OK(lp_read_file(vpath, 1 << 24, &tsv, &err), &err);
    /* "#total", then token<TAB>count<TAB>spelling lines, most frequent first. */
    T_CHECK(!strncmp(tsv.ptr, "#total\t", 7));
    uint32_t n = 0;
    uint64_t prev = UINT64_MAX;
    bool spelled = false;
    for (const char *line = strchr(tsv.ptr, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
        const char *t1 = strchr(line, '\t'), *t2 = strchr(t1 + 1, '\t');
        uint64_t c = strtoull(t1 + 1, NULL, 10);
        T_CHECK(c <= prev && c >= 2);
        prev = c;
        /* A stemmed token keeps its source spelling ("items" for "item"). */
        if ((size_t)(t1 - line) == 4 && !memcmp(line, "item", 4) &&
            strchr(t2 + 1, '\n') - (t2 + 1) == 5 && !memcmp(t2 + 1, "items", 5))
            spelled = true;
        n++;
    }
    T_CHECK(n > 20 && n <= 300);
    T_CHECK(spelled);
    /* General-English words appended after the code vocabulary, stemmed by the model's
     * tokenizer, with Zipf counts (total * 0.1 / rank) and the word as spelling; a word
     * already in the vocabulary ("sort") or a stopword ("the") adds nothing. */
    {
        char wpath[512], xpath[512];
        snprintf(wpath, sizeof wpath, "%s/words.txt", t->tmpdir);
        snprintf(xpath, sizeof xpath, "%s/vocab-x.tsv", t->tmpdir);
        const char *words = "the\nsort\nweather\nthunderstorms\n";
        T_CHECK_OK(lp_write_file_atomic(wpath, words, strlen(words), &err), &err);
        T_CHECK_OK(lp_train_vocab_dump_extra(&p, &o, wpath, 100, xpath, &err), &err);
        lp_buf x;
        lp_buf_init(&x, 0);
        T_CHECK_OK(lp_read_file(xpath, 1 << 24, &x, &err), &err);
        unsigned long long total = strtoull(x.ptr + 7, NULL, 10);
        char want[128];
        snprintf(want, sizeof want, "\nweather\t%llu\tweather\n", (unsigned long long)(total * 0.1 / 3));
        T_CHECK(x.len > tsv.len && !memcmp(x.ptr, tsv.ptr, tsv.len));
        T_CHECK_MSG(strstr(x.ptr, want) != NULL, "%s", x.ptr + tsv.len);
        snprintf(want, sizeof want, "\nthunderstorm\t%llu\tthunderstorms\n",
                 (unsigned long long)(total * 0.1 / 4));
        T_CHECK(strstr(x.ptr, want) != NULL);
        T_CHECK(strstr(x.ptr + tsv.len, "\nsort\t") == NULL && strstr(x.ptr, "\nthe\t") == NULL);
        lp_buf_release(&x);
    }
    /* Rows: token i is the unit vector e_(i mod dim). */
    uint32_t dim = 16;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < dim; j++) {
            float x = j == i % dim ? 1.0f : 0.0f;
            lp_buf_append(&rows_b, &x, sizeof x);
        }
    T_CHECK_OK(lp_write_file_atomic(rpath, rows_b.ptr, rows_b.len, &err), &err);
    T_CHECK_OK(lp_train_assemble(vpath, rpath, dim, &o, &model, &err), &err);
    T_CHECK_OK(lp_embed_model_from_memory(model.ptr, model.len, &m, &err), &err);
    lp_embed_info info;
    lp_embed_model_info(m, &info);
    T_CHECK(info.dim == dim && info.vocab == n && info.buckets == 64);
    /* Row 0 is the most frequent token, with the smallest SIF weight. */
    const float *w = lp_embed_model_weights_(m);
    T_CHECK(w[0] > 0 && w[0] <= w[n - 1] && w[n - 1] < 1.0f);
    const int8_t *q = lp_embed_model_rows_(m);
    T_CHECK(q[0] == 127 && q[1] == 0 && q[(size_t)1 * dim + 1] == 127);
    /* A bucket row is a mean of token rows: non-negative, and some bucket is filled. */
    bool filled = false;
    for (uint32_t b = 0; b < 64; b++)
        for (uint32_t j = 0; j < dim; j++) {
            T_CHECK(q[(size_t)(n + b) * dim + j] >= 0);
            filled |= q[(size_t)(n + b) * dim + j] > 0;
        }
    T_CHECK(filled);
    /* Rows of the wrong size are refused with the reason. */
    T_CHECK(lp_train_assemble(vpath, rpath, dim * 2, &o, &tuned, &err) == LP_EINVAL &&
            strstr(err.msg, "float32"));
    /* Fine-tuning from the model keeps its vocabulary and shape (dim, buckets) whatever the
     * options say, and moves the rows. */
    lp_train_stats st;
    o.init = m;
    o.dim = 64;
    o.buckets = 128;
    o.vocab_max = 10;
    T_CHECK_OK(lp_train_run(&p, &o, &tuned, &st, &err), &err);
    T_CHECK_OK(lp_embed_model_from_memory(tuned.ptr, tuned.len, &m2, &err), &err);
    lp_embed_info info2;
    lp_embed_model_info(m2, &info2);
    T_CHECK(info2.dim == dim && info2.vocab == n && info2.buckets == 64);
    for (uint32_t i = 0; i < n; i++) {
        lp_str a = lp_embed_model_token(m, i), b = lp_embed_model_token(m2, i);
        T_CHECK(a.len == b.len && !memcmp(a.ptr, b.ptr, a.len));
    }
    T_CHECK(tuned.len == model.len && memcmp(tuned.ptr, model.ptr, model.len) != 0);
    /* A zero learning rate changes nothing: the same bytes as the starting model. */
    o.lr = 0.0;
    T_CHECK_OK(lp_train_run(&p, &o, &tuned, &st, &err), &err);
    T_CHECK(tuned.len == model.len && memcmp(tuned.ptr, model.ptr, model.len) == 0);
done:
    lp_embed_model_free(m);
    lp_embed_model_free(m2);
    lp_buf_release(&tsv);
    lp_buf_release(&model);
    lp_buf_release(&tuned);
    lp_buf_release(&rows_b);
    lp_pairs_release(&p);
}

/* A vocabulary file larger than 1 MiB is written whole (it was once cut at 1 MiB), and a
 * vocabulary of more than 32,768 tokens is built quickly (its table was once sized for
 * 65,536 slots whatever the count, so probing crawled near a full table). */
T_TEST(train_vocab_dump_large)
{
    lp_pairs p;
    lp_pairs_init(&p);
    uint32_t u = lp_pairs_unit(&p, "synthetic");
    lp_buf c;
    lp_buf_init(&c, 0);
    for (int i = 0; i < 400; i++) {
        lp_buf_reset(&c);
        for (int k = 0; k < 100; k++)
            lp_buf_printf(&c, "zqxwvu%06d zqxwvu%06d ", i * 100 + k, i * 100 + k);
        lp_pairs_add(&p, u, LP_LANG_PYTHON, LP_STR("a function"), lp_buf_str(&c));
    }
    lp_train_opts o;
    lp_train_opts_default(&o);
    o.vocab_max = 100000;
    o.min_count = 2;
    lp_error err = {0};
    char path[512];
    snprintf(path, sizeof path, "%s/vocab.tsv", t->tmpdir);
    T_CHECK_OK(lp_train_vocab_dump(&p, &o, path, &err), &err);
    lp_buf b;
    lp_buf_init(&b, 0);
    T_CHECK_OK(lp_read_file(path, 1 << 26, &b, &err), &err);
    size_t lines = 0;
    for (size_t i = 0; i < b.len; i++)
        lines += b.ptr[i] == '\n';
    T_CHECK(b.len > (1u << 20));
    T_CHECK(lines > 80000); /* each identifier, its digits, and the shared letters */
    T_CHECK(b.len && b.ptr[b.len - 1] == '\n');
    lp_buf_release(&b);
done:
    lp_buf_release(&c);
    lp_pairs_release(&p);
}
