/*
 * fuzz_query.c: the search query parser (src/search/query.c: lp_search_query_parse,
 * lp_search_query_path_ok, lp_search_glob_match, lp_search_is_identifier).
 *
 * Input: the query text up to the first NUL byte; after it, one repository-relative path
 * per line, each tested against the parsed path:/-path: globs and against every glob alone.
 *
 * Invariants checked (the contract in search.h): a refusal is LP_EINVAL with a message; a
 * Invariants checked (the contract in search.h): a refusal is LP_EINVAL with a message; a
 * query over LP_QUERY_MAX_BYTES is cut there (shortened); an accepted query respects the limits (words,
 * phrases, globs, syms, value lengths; no word limit, long text cut at the byte limit), its strings are never NULL, phrases are never
 * empty, languages and kinds are valid values without duplicates, idents have no
 * duplicates; parsing is deterministic (a second parse gives the same counts and message).
 */
#include "fuzz.h"

#include "lang/lang.h"
#include "search/search.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    lp_log_set_level(LP_LOG_OFF);
    return 0;
}

static void check_strings(const char **v, size_t n, size_t max_len, bool nonempty)
{
    for (size_t i = 0; i < n; i++) {
        LP_FUZZ_CHECK(v[i] != NULL);
        size_t len = strlen(v[i]);
        LP_FUZZ_CHECK(len <= max_len);
        if (nonempty)
            LP_FUZZ_CHECK(len > 0);
    }
}

static void check_unique_ints(const int *v, size_t n, int limit)
{
    for (size_t i = 0; i < n; i++) {
        LP_FUZZ_CHECK(v[i] >= 0 && v[i] < limit);
        for (size_t j = 0; j < i; j++)
            LP_FUZZ_CHECK(v[i] != v[j]);
    }
}

static void check_query(const lp_search_query *q, size_t text_len)
{
    LP_FUZZ_CHECK(q->shortened == (text_len > LP_QUERY_MAX_BYTES));
    LP_FUZZ_CHECK(q->nwords <= text_len / 2 + 1);
    LP_FUZZ_CHECK(q->nphrases <= LP_QUERY_MAX_ITEMS);
    LP_FUZZ_CHECK(q->npaths + q->nnot_paths <= 2 * LP_QUERY_MAX_ITEMS);
    LP_FUZZ_CHECK(q->nsyms <= LP_QUERY_MAX_ITEMS);
    check_strings(q->words, q->nwords, LP_QUERY_MAX_VALUE, true);
    check_strings(q->phrases, q->nphrases, LP_QUERY_MAX_BYTES, true);
    check_strings(q->paths, q->npaths, LP_QUERY_MAX_VALUE, false);
    check_strings(q->not_paths, q->nnot_paths, LP_QUERY_MAX_VALUE, false);
    check_strings(q->syms, q->nsyms, LP_QUERY_MAX_VALUE, true);
    check_strings(q->idents, q->nidents, LP_QUERY_MAX_BYTES, true);
    check_unique_ints(q->langs, q->nlangs, LP_LANG_COUNT);
    check_unique_ints(q->kinds, q->nkinds, LP_SYM_KIND_COUNT);
    for (size_t i = 0; i < q->nidents; i++)
        for (size_t j = 0; j < i; j++)
            LP_FUZZ_CHECK(strcmp(q->idents[i], q->idents[j]) != 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = memchr(data, 0, size);
    size_t qlen = nul ? (size_t)(nul - data) : size;
    char *text = malloc(qlen + 1);
    memcpy(text, data, qlen);
    text[qlen] = '\0';

    lp_arena arena;
    lp_arena_init(&arena, 0);
    lp_search_query q, q2;
    lp_error err = {0}, err2 = {0};
    lp_status rc = lp_search_query_parse(text, &arena, &q, &err);
    lp_status rc2 = lp_search_query_parse(text, &arena, &q2, &err2);
    LP_FUZZ_CHECK(rc == rc2);
    if (rc != LP_OK) {
        LP_FUZZ_CHECK(rc == LP_EINVAL);
        LP_FUZZ_CHECK(err.msg[0] != '\0');
        LP_FUZZ_CHECK(!strcmp(err.msg, err2.msg));
    } else {
        check_query(&q, qlen);
        LP_FUZZ_CHECK(q.nwords == q2.nwords && q.nphrases == q2.nphrases &&
                      q.npaths == q2.npaths && q.nidents == q2.nidents);
        (void)lp_search_query_has_terms(&q);
    }
    if (nul) {
        const char *p = (const char *)nul + 1;
        size_t n = size - qlen - 1;
        for (size_t i = 0, lines = 0; i < n && lines < 32; lines++) {
            const char *nl = memchr(p + i, '\n', n - i);
            size_t end = nl ? (size_t)(nl - p) : n;
            lp_str path = {p + i, end - i};
            if (rc == LP_OK) {
                (void)lp_search_query_path_ok(&q, path);
                for (size_t k = 0; k < q.npaths; k++)
                    (void)lp_search_glob_match(q.paths[k], path);
            }
            (void)lp_search_is_identifier(path);
            i = end + 1;
        }
    }
    lp_arena_release(&arena);
    free(text);
    return 0;
}

/* Queries at and past the limits, built at replay time. */
void lp_fuzz_synthesize(lp_fuzz_emit emit)
{
    lp_buf b;
    lp_buf_init(&b, 0);
    for (size_t n = LP_QUERY_MAX_BYTES - 1; n <= LP_QUERY_MAX_BYTES + 1; n++) {
        lp_buf_reset(&b);
        for (size_t i = 0; i < n; i++)
            lp_buf_putc(&b, (char)("ab \"path:*"[i % 10]));
        emit("query/near-max-bytes", (const uint8_t *)b.ptr, b.len);
    }
    lp_buf_reset(&b);
    for (int i = 0; i < 100; i++)
        lp_buf_printf(&b, "w%d path:a%d/** lang:go,py kind:fn sym:A.b%d \"p %d\" ", i, i, i, i);
    emit("query/too-many-items", (const uint8_t *)b.ptr, b.len);
    lp_buf_reset(&b);
    lp_buf_puts(&b, "path:");
    for (int i = 0; i < 300; i++)
        lp_buf_puts(&b, "**/");
    lp_buf_putc(&b, 0);
    for (int i = 0; i < 200; i++)
        lp_buf_puts(&b, "a/");
    lp_buf_puts(&b, "b\n");
    emit("query/deep-glob", (const uint8_t *)b.ptr, b.len);
    lp_buf_release(&b);
}
