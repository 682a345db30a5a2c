/*
 * test_search_fallback.c: abbreviations (synonyms.c) and the query-time fallbacks of
 * src/search/fallback.c (compounds, segmentation, prefix, typo) against a real FTS5 index
 * in a real store, checked on the phrases they add to the lexical query.
 */
#include "t.h"

#include "search/search.h"
#include "search/search_int.h"

#include <sqlite3.h>

static bool has_syn(const lp_code_syn *s, size_t n, const char *w)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(s[i].word, w))
            return true;
    return false;
}

T_TEST(search_abbreviations_both_ways)
{
    lp_code_syn out[8];
    size_t n = lp_code_abbrevs(lp_str_c("buffer"), out, LP_ARRAY_LEN(out));
    T_CHECK(n >= 1 && !strcmp(out[0].word, "buf"));
    T_CHECK(out[0].weight > 0.6f && out[0].weight < 1.0f); /* above a synonym, below the word */
    n = lp_code_abbrevs(lp_str_c("buf"), out, LP_ARRAY_LEN(out));
    T_CHECK(n == 1 && !strcmp(out[0].word, "buffer"));
    /* Inflected long forms find their short form through the stem. */
    n = lp_code_abbrevs(lp_str_c("contexts"), out, LP_ARRAY_LEN(out));
    T_CHECK(has_syn(out, n, "ctx"));
    n = lp_code_abbrevs(lp_str_c("cfg"), out, LP_ARRAY_LEN(out));
    T_CHECK(has_syn(out, n, "config") && has_syn(out, n, "configuration"));
    n = lp_code_abbrevs(lp_str_c("configuration"), out, LP_ARRAY_LEN(out));
    T_CHECK(has_syn(out, n, "cfg") && has_syn(out, n, "conf") && has_syn(out, n, "config"));
    n = lp_code_abbrevs(lp_str_c("keyword"), out, LP_ARRAY_LEN(out));
    T_CHECK(has_syn(out, n, "kw"));
    n = lp_code_abbrevs(lp_str_c("arguments"), out, LP_ARRAY_LEN(out));
    T_CHECK(has_syn(out, n, "args"));
    T_CHECK_INT(lp_code_abbrevs(lp_str_c("zebra"), out, LP_ARRAY_LEN(out)), 0);
    T_CHECK_INT(lp_code_abbrevs(lp_str_c("cfg"), out, 1), 1); /* the cap holds */
    /* Not applied to every word: lp_code_synonyms leaves them to the fallbacks. */
    n = lp_code_synonyms(lp_str_c("context"), out, LP_ARRAY_LEN(out));
    T_CHECK(!has_syn(out, n, "ctx"));
    n = lp_code_synonyms(lp_str_c("circular"), out, LP_ARRAY_LEN(out));
    T_CHECK(has_syn(out, n, "ring"));
done:;
}

/* Phrases of lq with their group and weight, "text@group" for the checks. */
static bool phrase_in(const lp_lex_query *lq, const char *text, int group, float *weight)
{
    for (size_t i = 0; i < lq->nphrases; i++)
        if (!strcmp(lq->phrase_text[i], text) && lq->phrase_group[i] == group) {
            if (weight)
                *weight = lq->phrase_weight[i];
            return true;
        }
    return false;
}

typedef struct fb_env {
    lp_store *st;
    lp_arena arena;
    char *old_home;
} fb_env;

static lp_status fb_build(fb_env *e, const char *query, lp_lex_query *lq, lp_fallback *fb,
                          lp_error *err)
{
    lp_search_query q;
    lp_status rc = lp_search_query_parse(query, &e->arena, &q, err);
    if (rc)
        return rc;
    lp_lex_query_build(&q, &e->arena, lq);
    return lp_search_fallback(e->st, lq, &e->arena, fb, err);
}

/* Release a built query and zero it, so the cleanup never releases twice. */
#define REL()                                                                                  \
    do {                                                                                       \
        lp_lex_query_release(&lq);                                                             \
        memset(&lq, 0, sizeof lq);                                                             \
    } while (0)

T_TEST(search_fallback_phrases)
{
    lp_error err = {0};
    fb_env e = {0};
    lp_arena_init(&e.arena, 0);
    lp_lex_query lq;
    memset(&lq, 0, sizeof lq);
    lp_fallback fb;
    float w = 0;
    lp_buf home, root;
    lp_buf_init(&home, 0);
    lp_buf_init(&root, 0);
    lp_buf_printf(&home, "%s/state", t->tmpdir);
    lp_buf_printf(&root, "%s/repo", t->tmpdir);
    e.old_home = getenv("LOUPE_HOME") ? lp_xstrdup(getenv("LOUPE_HOME")) : NULL;
    setenv("LOUPE_HOME", home.ptr, 1);
    T_CHECK(lp_t_sh("mkdir -p %s", root.ptr) == 0);
    T_CHECK_OK(lp_store_open(root.ptr, LP_STORE_WRITE, &e.st, &err), &err);
    /* The words code uses, as the index tokenizer stores them: ringbuf_push is ringbuf,
     * ringbuf_push, push; read_buffer is read, read_buffer, buffer. */
    T_CHECK_OK(lp_store_exec(e.st,
                             "INSERT INTO chunk_fts(rowid, name, crumbs, doc, body) VALUES"
                             "(1, 'ringbuf_push', 'ringbuf', '', 'struct ringbuf *rb'),"
                             "(2, 'read_buffer', 'io', 'Fill a buffer', 'int fd'),"
                             "(3, 'list_prepend', 'list', 'linked list', 'struct node'),"
                             "(4, 'ctx_free', 'ctx', '', 'struct ctx *c'),"
                             "(5, 'version', 'con', '', '')",
                             &err),
               &err);

    /* Compounds: adjacent words joined, in both groups; literal forms weigh more than
     * abbreviated ones, and every weight stays below the literal word's. */
    T_CHECK_OK(fb_build(&e, "ring buffer", &lq, &fb, &err), &err);
    T_CHECK(phrase_in(&lq, "ringbuf", 0, &w) && w < 1.0f && w > 0.8f);
    T_CHECK(phrase_in(&lq, "ringbuf", 1, NULL));
    T_CHECK(!phrase_in(&lq, "ringbuffer", 0, NULL)); /* never a term the index lacks */
    T_CHECK(strstr(lq.match.ptr, "\"ringbuf\"") != NULL); /* match and spec rebuilt */
    T_CHECK(strstr(lq.syn_stems[0], "ringbuf") != NULL);  /* the reranker's coverage */
    const char *warn = lp_search_fallback_warning(&fb, 2, 0, 0, &e.arena);
    T_CHECK(warn && !strncmp(warn, "words_not_indexed: ", 19));
    T_CHECK(strstr(warn, "'ring' -> 'ringbuf' (fallback: compound)") != NULL);
    /* "buffer" is indexed (read_buffer), so only "ring" is reported. */
    T_CHECK(strstr(warn, "'buffer'") == NULL);
    REL();

    /* Both words indexed: no compound of them ("read buffer" stays as it is). */
    T_CHECK_OK(fb_build(&e, "read buffer", &lq, &fb, &err), &err);
    T_CHECK_INT(fb.nadded, 0);
    REL();

    /* Abbreviation of a missing word: context -> ctx. */
    T_CHECK_OK(fb_build(&e, "free the context", &lq, &fb, &err), &err);
    T_CHECK(phrase_in(&lq, "ctx", 1, &w) && w < 1.0f && w > 0.6f);
    warn = lp_search_fallback_warning(&fb, 1, 0, 0, &e.arena);
    T_CHECK(warn && strstr(warn, "'context' -> 'ctx' (fallback: abbreviation)") != NULL);
    REL();

    /* A synonym joins too: circular -> ring. */
    T_CHECK_OK(fb_build(&e, "circular buffer", &lq, &fb, &err), &err);
    T_CHECK(phrase_in(&lq, "ringbuf", 0, &w) && phrase_in(&lq, "ringbuf", 1, NULL));
    T_CHECK(w < 0.8f); /* through a synonym: weaker than the literal compound */
    REL();

    /* The parts of one word join as well (a hyphenated word is one group). */
    T_CHECK_OK(fb_build(&e, "ring-buffer", &lq, &fb, &err), &err);
    T_CHECK(phrase_in(&lq, "ringbuf", 0, NULL));
    REL();

    /* Segmentation: a word the index lacks, split in two known parts. */
    T_CHECK_OK(fb_build(&e, "readbuffer", &lq, &fb, &err), &err);
    T_CHECK(phrase_in(&lq, "read buffer", 0, &w) && w < 1.0f);
    warn = lp_search_fallback_warning(&fb, 1, 0, 0, &e.arena);
    T_CHECK(warn && strstr(warn, "(fallback: segment)") != NULL);
    REL();

    /* Not into a short part that is no abbreviation: con + version is no "conversion". */
    T_CHECK_OK(fb_build(&e, "conversion", &lq, &fb, &err), &err);
    T_CHECK(!phrase_in(&lq, "con version", 0, NULL));
    REL();

    /* Guesses (segment, prefix, typo) wait for short questions, or for nothing to match:
     * in this longer one the misspelt word stays as it is. */
    T_CHECK_OK(fb_build(&e, "linked list node struct prepnd", &lq, &fb, &err), &err);
    T_CHECK(!phrase_in(&lq, "prepend", 4, NULL));
    REL();
    T_CHECK_OK(fb_build(&e, "lnked lsit nodde strct prepnd", &lq, &fb, &err), &err);
    T_CHECK(phrase_in(&lq, "prepend", 4, NULL)); /* nothing matched: they run */
    REL();

    /* Prefix: the indexed terms that start with the word. */
    T_CHECK_OK(fb_build(&e, "prepen", &lq, &fb, &err), &err);
    T_CHECK(phrase_in(&lq, "prepend", 0, NULL));
    warn = lp_search_fallback_warning(&fb, 1, 0, 0, &e.arena);
    T_CHECK(warn && strstr(warn, "(fallback: prefix)") != NULL);
    REL();

    /* Typo: edit distance 1 for short words, 2 for longer ones. */
    T_CHECK_OK(fb_build(&e, "lsit", &lq, &fb, &err), &err);
    T_CHECK(phrase_in(&lq, "list", 0, &w) && w < 1.0f);
    REL();
    T_CHECK_OK(fb_build(&e, "prepnd", &lq, &fb, &err), &err);
    T_CHECK(phrase_in(&lq, "prepend", 0, NULL));
    REL();

    /* Indexed words: nothing added, no warning. */
    T_CHECK_OK(fb_build(&e, "linked list", &lq, &fb, &err), &err);
    T_CHECK_INT(fb.nadded, 0);
    T_CHECK(lp_search_fallback_warning(&fb, 1, 0, 0, &e.arena) == NULL);
    REL();

    /* Nothing anywhere: the warning says so, and whether dense answered. */
    T_CHECK_OK(fb_build(&e, "zzqx", &lq, &fb, &err), &err);
    warn = lp_search_fallback_warning(&fb, 0, 0, 0, &e.arena);
    T_CHECK(warn && strstr(warn, "'zzqx' (no fallback matched)") && strstr(warn, "nothing"));
    warn = lp_search_fallback_warning(&fb, 0, 0, 5, &e.arena);
    T_CHECK(warn && strstr(warn, "(fallback: dense)") != NULL);
    REL();
done:
    lp_lex_query_release(&lq);
    lp_store_close(e.st);
    if (e.old_home) {
        setenv("LOUPE_HOME", e.old_home, 1);
        free(e.old_home);
    } else {
        unsetenv("LOUPE_HOME");
    }
    lp_arena_release(&e.arena);
    lp_buf_release(&home);
    lp_buf_release(&root);
}
