/*
 * fuzz_lang.c: every language's parser and extractor (src/lang: lp_parse with symbols,
 * chunks and references; lp_lang_detect).
 *
 * Input: byte 0 picks the language (modulo LP_LANG_COUNT: text, the ten code languages,
 * tsx, markdown, rst); byte 1 picks the options (bit 0 no_refs, bits 1-2 small chunk
 * bounds, bit 3 also run lp_lang_detect with the first line as the path); the rest is the
 * file's content.
 *
 * Invariants checked (the contract in lang.h): every span lies inside the content with
 * start <= end and 1-based lines in order; a symbol's parent is -1 or another symbol; names
 * and qnames are never NULL; chunk texts are NUL-terminated at text_len and bounded;
 * chunks are in source order; references' strings are never NULL, their owner is -1 or a
 * symbol, their args at most LP_REF_ARGS_MAX bytes.
 */
#include "fuzz.h"

#include "lang/lang.h"

/* LOUPE_FUZZ_LANG=<name> (as lp_lang_from_name reads it: python, ts, tsx, go...) pins a
 * libFuzzer run to one language, so each extractor gets its own run (bench/fuzz.sh
 * lang-<name>): every input then parses as that language, and the mutator writes the
 * language's number into byte 0 of every input it makes, so what the run saves (corpus,
 * crashes) replays as the same language without the variable. */
static int pinned = -1;

/* libFuzzer's own mutator; absent (weak) when linked with the replay driver. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) __attribute__((weak));
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
    (void)seed;
    if (!LLVMFuzzerMutate)
        return size;
    size = LLVMFuzzerMutate(data, size, max_size);
    if (pinned >= 0 && size > 0)
        data[0] = (uint8_t)pinned;
    return size;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    lp_log_set_level(LP_LOG_OFF);
    lp_lang_init();
    const char *pin = getenv("LOUPE_FUZZ_LANG");
    if (pin && *pin) {
        lp_lang l = lp_lang_from_name(lp_str_c(pin));
        if (l == LP_LANG_COUNT) {
            fprintf(stderr, "fuzz_lang: LOUPE_FUZZ_LANG=%s is not a language; use a name "
                            "loupe parse --lang accepts (python, js, ts, tsx, go, rust, java, "
                            "c, cpp, cs, scala, markdown, rst, text)\n", pin);
            exit(2);
        }
        pinned = (int)l;
    }
    return 0;
}

static void check_span(const lp_span *s, size_t len, bool may_be_absent)
{
    if (may_be_absent && s->start_line == 0)
        return;
    LP_FUZZ_CHECK(s->start_byte <= s->end_byte);
    LP_FUZZ_CHECK(s->end_byte <= len);
    LP_FUZZ_CHECK(s->start_line >= 1);
    LP_FUZZ_CHECK(s->start_line <= s->end_line);
}

static void check_result(const lp_parse_result *r, size_t len, const lp_parse_opts *o)
{
    for (size_t i = 0; i < r->nsymbols; i++) {
        const lp_symbol *s = &r->symbols[i];
        LP_FUZZ_CHECK(s->name && s->qname);
        LP_FUZZ_CHECK((unsigned)s->kind < LP_SYM_KIND_COUNT);
        LP_FUZZ_CHECK(s->parent >= -1 && s->parent < (int32_t)r->nsymbols);
        LP_FUZZ_CHECK(s->parent != (int32_t)i);
        check_span(&s->span, len, false);
        check_span(&s->sig, len, true);
        check_span(&s->doc, len, true);
        if (i)
            LP_FUZZ_CHECK(r->symbols[i - 1].span.start_byte <= s->span.start_byte);
    }
    size_t max_bytes = o->chunk_max_bytes ? o->chunk_max_bytes : 2400;
    for (size_t i = 0; i < r->nchunks; i++) {
        const lp_chunk *c = &r->chunks[i];
        LP_FUZZ_CHECK(c->text);
        LP_FUZZ_CHECK(c->text[c->text_len] == '\0');
        LP_FUZZ_CHECK(c->owner >= -1 && c->owner < (int32_t)r->nsymbols);
        check_span(&c->span, len, false);
        /* "at most chunk_max_bytes plus markers": a marker is a few bytes per elided
         * body, so allow generous slack but catch an unbounded chunk. */
        LP_FUZZ_CHECK(c->text_len <= 4 * max_bytes + 4096);
        if (i)
            LP_FUZZ_CHECK(r->chunks[i - 1].span.start_byte <= c->span.start_byte);
    }
    for (size_t i = 0; i < r->nrefs; i++) {
        const lp_ref *f = &r->refs[i];
        LP_FUZZ_CHECK((unsigned)f->kind < LP_REF_KIND_COUNT);
        LP_FUZZ_CHECK(f->name && f->qual && f->alias && f->args);
        LP_FUZZ_CHECK(f->owner >= -1 && f->owner < (int32_t)r->nsymbols);
        LP_FUZZ_CHECK(strlen(f->args) <= LP_REF_ARGS_MAX);
        check_span(&f->span, len, false);
    }
    if (o->no_refs)
        LP_FUZZ_CHECK(r->nrefs == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    lp_lang lang = pinned >= 0 ? (lp_lang)pinned : (lp_lang)(data[0] % LP_LANG_COUNT);
    uint8_t flags = data[1];
    lp_str content = {(const char *)data + 2, size - 2};
    lp_parse_opts o = {.no_refs = flags & 1};
    switch ((flags >> 1) & 3) {
    case 1:
        o.chunk_max_lines = 3;
        o.chunk_max_bytes = 64;
        o.chunk_overlap_lines = 1;
        break;
    case 2:
        o.chunk_max_lines = 1;
        o.chunk_max_bytes = 1;
        o.chunk_overlap_lines = 5;
        break;
    default:
        break;
    }
    if (flags & 8) {
        const char *nl = memchr(content.ptr, '\n', content.len);
        lp_str path = {content.ptr, nl ? (size_t)(nl - content.ptr) : content.len};
        lp_lang d = lp_lang_detect(path, content);
        LP_FUZZ_CHECK((unsigned)d < LP_LANG_COUNT);
    }
    lp_arena arena;
    lp_arena_init(&arena, 0);
    lp_parse_result r;
    lp_error err = {0};
    lp_status rc = lp_parse(lang, content, &o, &arena, &r, &err);
    if (rc == LP_OK)
        check_result(&r, content.len, &o);
    else
        LP_FUZZ_CHECK(rc == LP_ETOOBIG && content.len > ((size_t)64 << 20));
    lp_arena_release(&arena);
    lp_lang_thread_release();
    return 0;
}

/* Per language: deep nesting (100k levels of the constructs that recurse in the grammar and
 * in the extractor's walk), a huge single line, and NUL/invalid UTF-8 inside code. */
static void put_case(lp_fuzz_emit emit, lp_lang lang, const char *what, lp_buf *b)
{
    char name[96];
    snprintf(name, sizeof name, "lang/%s/%s", lp_lang_name(lang), what);
    emit(name, (const uint8_t *)b->ptr, b->len);
    lp_buf_reset(b);
}

static void repeat(lp_buf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        lp_buf_puts(b, s);
}

void lp_fuzz_synthesize(lp_fuzz_emit emit)
{
    /* Brackets every grammar nests, then one construct per language that its grammar and
     * the extractor's walk recurse on (indexed by lp_lang). */
    static const struct {
        const char *open, *close;
    } common[] = {{"(", ")"}, {"[", "]"}, {"{", "}"}},
      own[LP_LANG_COUNT] = {
          [LP_LANG_TEXT] = {"\n", ""},
          [LP_LANG_PYTHON] = {"def f():\n ", "\n"},
          [LP_LANG_JAVASCRIPT] = {"function f(){", "}"},
          [LP_LANG_TYPESCRIPT] = {"namespace a{", "}"},
          [LP_LANG_TSX] = {"<a>", "</a>"},
          [LP_LANG_GO] = {"func(){", "}"},
          [LP_LANG_RUST] = {"mod a{", "}"},
          [LP_LANG_JAVA] = {"class A{", "}"},
          [LP_LANG_C] = {"if(x){", "}"},
          [LP_LANG_CPP] = {"namespace a{", "}"},
          [LP_LANG_CSHARP] = {"class A{", "}"},
          [LP_LANG_SCALA] = {"object A{", "}"},
          [LP_LANG_MARKDOWN] = {"> ", ""},
          [LP_LANG_RST] = {"  ", ""},
      };
    /* 100k levels of the language's own construct, 20k of each bracket (the replay runs in
     * make test, so the bracket cases stay shorter). */
    const size_t own_depth = 100000, common_depth = 20000;
    lp_buf b;
    lp_buf_init(&b, 0);
    for (int l = 0; l < LP_LANG_COUNT; l++) {
        for (size_t k = 0; k <= LP_ARRAY_LEN(common); k++) {
            const char *open = k < LP_ARRAY_LEN(common) ? common[k].open : own[l].open;
            const char *close = k < LP_ARRAY_LEN(common) ? common[k].close : own[l].close;
            size_t depth = k < LP_ARRAY_LEN(common) ? common_depth : own_depth;
            lp_buf_putc(&b, (char)l);
            lp_buf_putc(&b, 0);
            /* One construct per line, so a grammar with a long-line budget still parses. */
            for (size_t i = 0; i < depth; i++) {
                lp_buf_puts(&b, open);
                lp_buf_putc(&b, '\n');
            }
            lp_buf_puts(&b, "x");
            repeat(&b, close, depth);
            char what[32];
            snprintf(what, sizeof what, "deep-%zu", k);
            put_case(emit, (lp_lang)l, what, &b);
        }
        /* One 1 MiB line of calls and operators, small chunk bounds. */
        lp_buf_putc(&b, (char)l);
        lp_buf_putc(&b, 2);
        repeat(&b, "a.b(c) + ", (size_t)1 << 20 >> 3);
        put_case(emit, (lp_lang)l, "long-line", &b);
        /* NULs, invalid UTF-8 and CR-only line ends inside declarations. */
        lp_buf_putc(&b, (char)l);
        lp_buf_putc(&b, 8);
        static const char junk[] = "x.py\nclass \0A\xff:\r def f\xc0\xaf(self): pass\r"
                                   "fn \xed\xa0\x80() {}\rint m\0ain(void) { return 0; }\r"
                                   "# \xe2\x82 heading\r===\r";
        lp_buf_append(&b, junk, sizeof junk - 1);
        put_case(emit, (lp_lang)l, "nul-utf8-cr", &b);
    }
    lp_buf_release(&b);
}
