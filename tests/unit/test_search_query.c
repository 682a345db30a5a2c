/*
 * test_search_query.c: the search query language (src/search/query.c): every operator,
 * quoting, identifier detection, path globs, bad operators and limits.
 */
#include "t.h"

#include "lang/lang.h"
#include "search/search.h"
#include "search/search_int.h"

static lp_status parse(lp_arena *a, const char *text, lp_search_query *q, lp_error *err)
{
    memset(err, 0, sizeof *err);
    return lp_search_query_parse(text, a, q, err);
}

T_TEST(query_free_words)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_search_query q;
    T_CHECK_OK(parse(&a, "  where is the token\trefreshed?  ", &q, &err), &err);
    T_CHECK_INT(q.nwords, 5);
    T_CHECK_STR(q.words[0], "where");
    T_CHECK_STR(q.words[4], "refreshed?");
    T_CHECK_INT(q.nidents, 0);
    T_CHECK_INT(q.nphrases + q.npaths + q.nnot_paths + q.nlangs + q.nkinds + q.nsyms, 0);
    T_CHECK(lp_search_query_has_terms(&q));
    T_CHECK_OK(parse(&a, "   ", &q, &err), &err);
    T_CHECK(!lp_search_query_has_terms(&q));
    T_CHECK_OK(parse(&a, NULL, &q, &err), &err);
    T_CHECK_INT(q.nwords, 0);
done:
    lp_arena_release(&a);
}

T_TEST(query_every_operator)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_search_query q;
    T_CHECK_OK(parse(&a,
                     "retry path:net/http/** -path:*_test.go lang:Go,py kind:fn,method "
                     "sym:persistConn.roundTrip \"new connection\" after reset",
                     &q, &err),
               &err);
    T_CHECK_INT(q.nwords, 3);
    T_CHECK_STR(q.words[0], "retry");
    T_CHECK_STR(q.words[1], "after");
    T_CHECK_INT(q.npaths, 1);
    T_CHECK_STR(q.paths[0], "net/http/**");
    T_CHECK_INT(q.nnot_paths, 1);
    T_CHECK_STR(q.not_paths[0], "*_test.go");
    T_CHECK_INT(q.nlangs, 2);
    T_CHECK_INT(q.langs[0], LP_LANG_GO);
    T_CHECK_INT(q.langs[1], LP_LANG_PYTHON);
    T_CHECK_INT(q.nkinds, 2);
    T_CHECK_INT(q.kinds[0], LP_SYM_FUNCTION);
    T_CHECK_INT(q.kinds[1], LP_SYM_METHOD);
    T_CHECK_INT(q.nsyms, 1);
    T_CHECK_STR(q.syms[0], "persistConn.roundTrip");
    T_CHECK_INT(q.nidents, 1); /* the sym */
    T_CHECK_STR(q.idents[0], "persistConn.roundTrip");
    T_CHECK_INT(q.nphrases, 1);
    T_CHECK_STR(q.phrases[0], "new connection");
    /* Repeated operators accumulate; duplicates of lang/kind collapse. */
    T_CHECK_OK(parse(&a, "x lang:go lang:golang kind:class kind:CLASS path:a path:b", &q, &err),
               &err);
    T_CHECK_INT(q.nlangs, 1);
    T_CHECK_INT(q.nkinds, 1);
    T_CHECK_INT(q.npaths, 2);
    /* Kind aliases. */
    T_CHECK_OK(parse(&a, "x kind:func,const,var,ctor,type", &q, &err), &err);
    T_CHECK_INT(q.nkinds, 5);
    T_CHECK_INT(q.kinds[2], LP_SYM_VARIABLE);
    T_CHECK_INT(q.kinds[4], LP_SYM_TYPE_ALIAS);
    /* Operator-only queries parse; they have no terms. */
    T_CHECK_OK(parse(&a, "path:src lang:rust", &q, &err), &err);
    T_CHECK(!lp_search_query_has_terms(&q));
    T_CHECK_OK(parse(&a, "sym:main", &q, &err), &err);
    T_CHECK(lp_search_query_has_terms(&q));
done:
    lp_arena_release(&a);
}

T_TEST(query_quotes)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_search_query q;
    T_CHECK_OK(parse(&a, "\"exact one\" mid \"  two words  \" \"\" end", &q, &err), &err);
    T_CHECK_INT(q.nphrases, 2);
    T_CHECK_STR(q.phrases[0], "exact one");
    T_CHECK_STR(q.phrases[1], "two words"); /* trimmed; the empty phrase is dropped */
    T_CHECK_INT(q.nwords, 2);
    /* Typographic quotes are text: they separate words, they never open a phrase. */
    T_CHECK_OK(parse(&a, "\xe2\x80\x9c" "curly phrase" "\xe2\x80\x9d x", &q, &err), &err);
    T_CHECK_INT(q.nphrases, 0);
    T_CHECK_INT(q.nwords, 3);
    T_CHECK_STR(q.words[0], "curly");
    T_CHECK_STR(q.words[1], "phrase");
    T_CHECK_OK(parse(&a, "don\xe2\x80\x99t \xc2\xabx\xc2\xbb", &q, &err), &err);
    T_CHECK_INT(q.nwords, 3);
    T_CHECK_STR(q.words[2], "x");
    /* A quote right after a word starts a phrase. */
    T_CHECK_OK(parse(&a, "foo\"bar baz\"", &q, &err), &err);
    T_CHECK_INT(q.nwords, 1);
    T_CHECK_STR(q.words[0], "foo");
    T_CHECK_STR(q.phrases[0], "bar baz");
    /* Quoted operator values keep their spaces. */
    T_CHECK_OK(parse(&a, "x path:\"my dir/*.go\" -path:\"gen files\"", &q, &err), &err);
    T_CHECK_STR(q.paths[0], "my dir/*.go");
    T_CHECK_STR(q.not_paths[0], "gen files");
    /* An unbalanced quote in free text is text; in an operator value, an error that says
     * what to do. */
    T_CHECK_OK(parse(&a, "find \"the thing", &q, &err), &err);
    T_CHECK_INT(q.nphrases, 0);
    T_CHECK_INT(q.nwords, 3);
    T_CHECK_STR(q.words[1], "the");
    T_CHECK_OK(parse(&a, "a \"b c\" d \"e", &q, &err), &err);
    T_CHECK_INT(q.nphrases, 1);
    T_CHECK_STR(q.phrases[0], "b c");
    T_CHECK_INT(q.nwords, 3);
    /* A traceback's quoted file is a word (path evidence), not a phrase. */
    T_CHECK_OK(parse(&a, "File \"/usr/lib/flask/app.py\", line 3", &q, &err), &err);
    T_CHECK_INT(q.nphrases, 0);
    T_CHECK_STR(q.words[1], "/usr/lib/flask/app.py");
    T_CHECK_INT(parse(&a, "x path:\"abc", &q, &err), LP_EINVAL);
    T_CHECK(strstr(err.msg, "path:") != NULL);
    /* A quoted operator is text: a phrase. */
    T_CHECK_OK(parse(&a, "\"lang:go\"", &q, &err), &err);
    T_CHECK_INT(q.nlangs, 0);
    T_CHECK_STR(q.phrases[0], "lang:go");
done:
    lp_arena_release(&a);
}

T_TEST(query_bad_operators)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_search_query q;
    T_CHECK_INT(parse(&a, "x lang:cobol", &q, &err), LP_EINVAL);
    T_CHECK(strstr(err.msg, "unknown language 'cobol'") && strstr(err.msg, "python"));
    T_CHECK_INT(parse(&a, "x lang:go,,klingon", &q, &err), LP_EINVAL);
    T_CHECK(strstr(err.msg, "klingon") != NULL);
    T_CHECK_INT(parse(&a, "x kind:gizmo", &q, &err), LP_EINVAL);
    T_CHECK(strstr(err.msg, "unknown kind 'gizmo'") && strstr(err.msg, "function"));
    T_CHECK_INT(parse(&a, "x path:", &q, &err), LP_EINVAL);
    T_CHECK(strstr(err.msg, "needs a value") != NULL);
    T_CHECK_INT(parse(&a, "x -path:", &q, &err), LP_EINVAL);
    T_CHECK(strstr(err.msg, "-path: needs a value") != NULL);
    T_CHECK_INT(parse(&a, "x sym:", &q, &err), LP_EINVAL);
    T_CHECK_INT(parse(&a, "x path:/", &q, &err), LP_EINVAL);
    T_CHECK(strstr(err.msg, "below the root") != NULL);
    T_CHECK_INT(parse(&a, "x -lang:go", &q, &err), LP_EINVAL);
    T_CHECK(strstr(err.msg, "only path: can be negated") != NULL);
    T_CHECK_INT(parse(&a, "x file:main.go", &q, &err), LP_EINVAL);
    T_CHECK(strstr(err.msg, "unknown operator 'file:'") && strstr(err.msg, "path:"));
    T_CHECK_INT(parse(&a, "x language:go", &q, &err), LP_EINVAL);
    T_CHECK_INT(parse(&a, "x type:struct", &q, &err), LP_EINVAL);
    /* The output is cleared on failure. */
    T_CHECK_INT(q.nwords, 0);
    /* Not operators: unknown prefixes, qualified names, URLs, a trailing colon. */
    T_CHECK_OK(parse(&a, "localhost:8080 std::vector http://x.org/a TODO: type: Path:x", &q,
                     &err),
               &err);
    T_CHECK_INT(q.nwords, 6);
    T_CHECK_INT(q.npaths, 0);
    T_CHECK_STR(q.words[1], "std::vector");
done:
    lp_arena_release(&a);
}

T_TEST(query_identifiers)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_search_query q;
    T_CHECK_OK(parse(&a,
                     "how does `parseArgs()` call HTTPServer, read_config and Foo.bar or "
                     "std::vec::Vec with MAX_SIZE? also e.g. v1.2 transport.go plain",
                     &q, &err),
               &err);
    /* parseArgs, HTTPServer, read_config, Foo.bar, std::vec::Vec, MAX_SIZE, transport.go */
    T_CHECK_INT(q.nidents, 7);
    T_CHECK_STR(q.idents[0], "parseArgs");
    T_CHECK_STR(q.idents[1], "HTTPServer");
    T_CHECK_STR(q.idents[2], "read_config");
    T_CHECK_STR(q.idents[3], "Foo.bar");
    T_CHECK_STR(q.idents[4], "std::vec::Vec");
    T_CHECK_STR(q.idents[5], "MAX_SIZE");
    T_CHECK_STR(q.idents[6], "transport.go");
    /* The words keep their original spelling. */
    T_CHECK_STR(q.words[2], "`parseArgs()`");
    T_CHECK(lp_search_is_identifier(lp_str_c("getURLForID")));
    T_CHECK(lp_search_is_identifier(lp_str_c("__init__")));
    T_CHECK(lp_search_is_identifier(lp_str_c("List#add")));
    T_CHECK(lp_search_is_identifier(lp_str_c("self->next")));
    T_CHECK(!lp_search_is_identifier(lp_str_c("Transport")));
    T_CHECK(!lp_search_is_identifier(lp_str_c("retry")));
    T_CHECK(!lp_search_is_identifier(lp_str_c("e.g")));
    T_CHECK(!lp_search_is_identifier(lp_str_c("a.")));
    T_CHECK(!lp_search_is_identifier(lp_str_c("1abc_def")));
    T_CHECK(!lp_search_is_identifier(lp_str_c("_")));
    T_CHECK(!lp_search_is_identifier(lp_str_c("")));
    /* Duplicates collapse, syms join the identifiers. */
    T_CHECK_OK(parse(&a, "parseArgs parseArgs sym:parseArgs sym:main", &q, &err), &err);
    T_CHECK_INT(q.nidents, 2);
    T_CHECK_STR(q.idents[1], "main");
done:
    lp_arena_release(&a);
}

T_TEST(query_unicode)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_search_query q;
    /* Non-ASCII words are text; invalid UTF-8 never fails the parse. */
    T_CHECK_OK(parse(&a, "caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac \xff\xfe path:d\xc3\xa9j\xc3\xa0/*",
                     &q, &err),
               &err);
    T_CHECK_INT(q.nwords, 3);
    T_CHECK_STR(q.words[0], "caf\xc3\xa9");
    T_CHECK_STR(q.paths[0], "d\xc3\xa9j\xc3\xa0/*");
    T_CHECK_INT(q.nidents, 0);
    /* A lone lead byte of a curly quote is not a quote. */
    T_CHECK_OK(parse(&a, "a\xe2\x80 b", &q, &err), &err);
    T_CHECK_INT(q.nwords, 2);
done:
    lp_arena_release(&a);
}

T_TEST(query_limits)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_search_query q;
    lp_buf b;
    lp_buf_init(&b, 0);
    /* No word limit: a 3,000-word text is a question. */
    for (int i = 0; i < 3000; i++)
        lp_buf_printf(&b, "w%d ", i);
    T_CHECK_OK(parse(&a, b.ptr, &q, &err), &err);
    T_CHECK_INT(q.nwords, 3000);
    T_CHECK(!q.shortened);
    /* A word over LP_QUERY_MAX_VALUE bytes (a URL, a blob) is dropped, not refused. */
    lp_buf_reset(&b);
    lp_buf_puts(&b, "keep ");
    for (int i = 0; i <= LP_QUERY_MAX_VALUE; i++)
        lp_buf_putc(&b, 'u');
    lp_buf_puts(&b, " this");
    T_CHECK_OK(parse(&a, b.ptr, &q, &err), &err);
    T_CHECK_INT(q.nwords, 2);
    T_CHECK_INT(q.dropped, 1);
    /* Phrases past the 16th are words. */
    lp_buf_reset(&b);
    for (int i = 0; i < LP_QUERY_MAX_ITEMS + 3; i++)
        lp_buf_printf(&b, "\"p%d q\" ", i);
    T_CHECK_OK(parse(&a, b.ptr, &q, &err), &err);
    T_CHECK_INT(q.nphrases, LP_QUERY_MAX_ITEMS);
    T_CHECK_INT(q.nwords, 6);
    lp_buf_reset(&b);
    for (int i = 0; i <= LP_QUERY_MAX_ITEMS; i++)
        lp_buf_printf(&b, "path:d%d ", i);
    T_CHECK_INT(parse(&a, b.ptr, &q, &err), LP_EINVAL);
    T_CHECK(strstr(err.msg, "path globs") != NULL);
    lp_buf_reset(&b);
    lp_buf_puts(&b, "sym:");
    for (int i = 0; i <= LP_QUERY_MAX_VALUE; i++)
        lp_buf_putc(&b, 'x');
    T_CHECK_INT(parse(&a, b.ptr, &q, &err), LP_EINVAL);
    T_CHECK(strstr(err.msg, "longer than") != NULL);
    lp_buf_reset(&b);
    /* Over LP_QUERY_MAX_BYTES: cut at a character boundary, never inside a character. */
    lp_buf_puts(&b, "start ");
    while (b.len < LP_QUERY_MAX_BYTES - 1)
        lp_buf_puts(&b, "x ");
    lp_buf_puts(&b, "\xe0\xa4\x95\xe0\xa4\x95 tail");
    T_CHECK_OK(parse(&a, b.ptr, &q, &err), &err);
    T_CHECK(q.shortened);
    T_CHECK_STR(q.words[q.nwords - 1], "x");
done:
    lp_buf_release(&b);
    lp_arena_release(&a);
}

T_TEST(query_paths_and_stack_frames)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_search_query q;
    /* Python traceback: the quoted file is a hint, "line N, in f" names f. */
    T_CHECK_OK(parse(&a, "File \"/usr/lib/python3/site-packages/flask/app.py\", line 2091, "
                         "in wsgi_app\n  File \"src/x.py\", line 3, in load",
                     &q, &err),
               &err);
    T_CHECK_INT(q.nhints, 2);
    T_CHECK_STR(q.hints[0], "/usr/lib/python3/site-packages/flask/app.py");
    T_CHECK_STR(q.hints[1], "src/x.py");
    bool load = false;
    for (size_t i = 0; i < q.nidents; i++)
        load |= !strcmp(q.idents[i], "load");
    T_CHECK(load);
    /* Go panic frames: the method with its type; the file without its line. */
    T_CHECK_OK(parse(&a, "net/http.(*conn).serve(0xc000123)\n\t/usr/local/go/src/net/http/"
                         "server.go:1995 +0x612",
                     &q, &err),
               &err);
    T_CHECK_INT(q.nidents, 1);
    T_CHECK_STR(q.idents[0], "conn.serve");
    T_CHECK_INT(q.nhints, 1);
    T_CHECK_STR(q.hints[0], "/usr/local/go/src/net/http/server.go");
    /* Java: the fully qualified frame and its Class.method tail; the file in parentheses. */
    T_CHECK_OK(parse(&a, "at com.acme.auth.TokenStore.refresh(TokenStore.java:42)", &q, &err),
               &err);
    T_CHECK_INT(q.nidents, 2);
    T_CHECK_STR(q.idents[0], "com.acme.auth.TokenStore.refresh");
    T_CHECK_STR(q.idents[1], "TokenStore.refresh");
    T_CHECK_STR(q.hints[0], "TokenStore.java");
    /* C# Windows paths; a file name alone; URLs and plain words are not files. */
    T_CHECK_OK(parse(&a, "in C:\\src\\Auth\\Store.cs:line 7 see testutils.py and "
                         "https://x.org/a.py or v1.2",
                     &q, &err),
               &err);
    T_CHECK_INT(q.nhints, 2);
    T_CHECK_STR(q.hints[0], "/src/Auth/Store.cs"); /* the drive letter is not needed to match */
    T_CHECK_STR(q.hints[1], "testutils.py");
done:
    lp_arena_release(&a);
}

T_TEST(query_area_prefix)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_search_query q;
    /* "area: subject", a word or a slash path, with leading blanks; its word stays a word. */
    T_CHECK_OK(parse(&a, "  net/http/: close idle connections", &q, &err), &err);
    T_CHECK_STR(q.area, "net/http");
    T_CHECK_OK(parse(&a, "pathlib: extract a function", &q, &err), &err);
    T_CHECK_STR(q.area, "pathlib");
    T_CHECK_STR(q.words[0], "pathlib:");
    /* Not an area: no blank after the colon, a URL, digits only, a colon later on. */
    const char *none[] = {"cache:drop it", "http://x.org/a: b", "42: answer", "fix the cli: now",
                          "a: b", "pathlib:"};
    for (size_t i = 0; i < LP_ARRAY_LEN(none); i++) {
        T_CHECK_OK(parse(&a, none[i], &q, &err), &err);
        T_CHECK(q.area == NULL);
    }
done:
    lp_arena_release(&a);
}

T_TEST(query_regex_operator)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_search_query q;
    T_CHECK_OK(parse(&a, "regex:\"func \\w+ \\(\" path:src/**", &q, &err), &err);
    T_CHECK_STR(q.regex, "func \\w+ \\(");
    T_CHECK_INT(q.npaths, 1);
    T_CHECK(!lp_search_query_has_terms(&q));
    T_CHECK_OK(parse(&a, "regex:^import", &q, &err), &err);
    T_CHECK_STR(q.regex, "^import");
    T_CHECK(parse(&a, "regex:a regex:b", &q, &err) == LP_EINVAL);
    T_CHECK(strstr(err.msg, "one regex: per query") != NULL);
    T_CHECK(parse(&a, "regex:", &q, &err) == LP_EINVAL);
    T_CHECK(strstr(err.msg, "needs a value") != NULL);
done:
    lp_arena_release(&a);
}

T_TEST(query_path_globs)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_search_query q;
    /* No '/': any one segment. */
    T_CHECK(lp_search_glob_match("*_test.go", lp_str_c("net/http/serve_test.go")));
    T_CHECK(!lp_search_glob_match("*_test.go", lp_str_c("net/http/serve.go")));
    T_CHECK(lp_search_glob_match("http", lp_str_c("net/http/serve.go")));
    T_CHECK(!lp_search_glob_match("htt", lp_str_c("net/http/serve.go")));
    T_CHECK(lp_search_glob_match("*.go", lp_str_c("a.go")));
    /* With '/': anchored, folders match everything below. */
    T_CHECK(lp_search_glob_match("net/http", lp_str_c("net/http/serve.go")));
    T_CHECK(!lp_search_glob_match("net/http", lp_str_c("net/httptest/x.go")));
    T_CHECK(!lp_search_glob_match("http/serve.go", lp_str_c("net/http/serve.go")));
    T_CHECK(lp_search_glob_match("**/serve.go", lp_str_c("net/http/serve.go")));
    T_CHECK(lp_search_glob_match("net/*/serve.go", lp_str_c("net/http/serve.go")));
    T_CHECK(!lp_search_glob_match("net/*.go", lp_str_c("net/http/serve.go")));
    T_CHECK(lp_search_glob_match("src/**", lp_str_c("src/a/b/c.rs")));
    /* Normalization and include/exclude. */
    T_CHECK_OK(parse(&a, "x path:./src/ path:/lib -path:*_test.py", &q, &err), &err);
    T_CHECK_STR(q.paths[0], "src");
    T_CHECK_STR(q.paths[1], "lib");
    T_CHECK(lp_search_query_path_ok(&q, lp_str_c("src/app.py")));
    T_CHECK(lp_search_query_path_ok(&q, lp_str_c("lib/x/y.py")));
    T_CHECK(!lp_search_query_path_ok(&q, lp_str_c("src/app_test.py")));
    T_CHECK(!lp_search_query_path_ok(&q, lp_str_c("docs/app.py")));
    T_CHECK_OK(parse(&a, "x -path:vendor", &q, &err), &err);
    T_CHECK(lp_search_query_path_ok(&q, lp_str_c("src/app.go")));
    T_CHECK(!lp_search_query_path_ok(&q, lp_str_c("a/vendor/b.go")));
done:
    lp_arena_release(&a);
}

T_TEST(search_code_synonyms)
{
    lp_code_syn out[8];
    size_t n = lp_code_synonyms(lp_str_c("fetch"), out, LP_ARRAY_LEN(out));
    T_CHECK(n >= 3);
    bool has_load = false;
    for (size_t i = 0; i < n; i++) {
        T_CHECK(out[i].weight > 0 && out[i].weight < 1); /* never as strong as the word */
        T_CHECK(strcmp(out[i].word, "fetch") != 0);
        has_load |= !strcmp(out[i].word, "load");
    }
    T_CHECK(has_load);
    /* Inflected forms find their group through the stem. */
    T_CHECK(lp_code_synonyms(lp_str_c("deleting"), out, LP_ARRAY_LEN(out)) > 0);
    T_CHECK(!strcmp(out[0].word, "remove"));
    /* The cap is honoured; unknown words have none. */
    T_CHECK_INT(lp_code_synonyms(lp_str_c("fetch"), out, 2), 2);
    T_CHECK_INT(lp_code_synonyms(lp_str_c("zebra"), out, LP_ARRAY_LEN(out)), 0);
    T_CHECK_INT(lp_code_synonyms(lp_str_c(""), out, LP_ARRAY_LEN(out)), 0);
done:;
}
