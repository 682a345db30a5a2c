/*
 * test_lang.c: src/lang unit tests: detection, names, chunk invariants and bounds,
 * ordinals, partial parses, degenerate inputs (empty, comments only, CRLF, invalid UTF-8,
 * one-line 1 MB minified JavaScript), and concurrent parsing.
 */
#include "lang/lang.h"
#include "lang/lang_int.h" /* lp_lx_c_match_brace */
#include "t.h"

#include <pthread.h>

static lp_lang det(const char *path, const char *head)
{
    return lp_lang_detect(lp_str_c(path), lp_str_c(head));
}

T_TEST(lang_detect_extensions)
{
    T_CHECK_INT(det("a/b.py", ""), LP_LANG_PYTHON);
    T_CHECK_INT(det("x.pyi", ""), LP_LANG_PYTHON);
    T_CHECK_INT(det("x.js", ""), LP_LANG_JAVASCRIPT);
    T_CHECK_INT(det("x.mjs", ""), LP_LANG_JAVASCRIPT);
    T_CHECK_INT(det("x.cjs", ""), LP_LANG_JAVASCRIPT);
    T_CHECK_INT(det("x.jsx", ""), LP_LANG_JAVASCRIPT);
    T_CHECK_INT(det("x.ts", ""), LP_LANG_TYPESCRIPT);
    T_CHECK_INT(det("x.d.ts", ""), LP_LANG_TYPESCRIPT);
    T_CHECK_INT(det("x.mts", ""), LP_LANG_TYPESCRIPT);
    T_CHECK_INT(det("x.cts", ""), LP_LANG_TYPESCRIPT);
    T_CHECK_INT(det("x.tsx", ""), LP_LANG_TSX);
    T_CHECK_INT(det("x.go", ""), LP_LANG_GO);
    T_CHECK_INT(det("x.rs", ""), LP_LANG_RUST);
    T_CHECK_INT(det("X.java", ""), LP_LANG_JAVA);
    T_CHECK_INT(det("x.c", ""), LP_LANG_C);
    T_CHECK_INT(det("x.cc", ""), LP_LANG_CPP);
    T_CHECK_INT(det("x.cpp", ""), LP_LANG_CPP);
    T_CHECK_INT(det("x.cxx", ""), LP_LANG_CPP);
    T_CHECK_INT(det("x.hh", ""), LP_LANG_CPP);
    T_CHECK_INT(det("x.hpp", ""), LP_LANG_CPP);
    T_CHECK_INT(det("x.hxx", ""), LP_LANG_CPP);
    T_CHECK_INT(det("x.cs", ""), LP_LANG_CSHARP);
    T_CHECK_INT(det("x.scala", ""), LP_LANG_SCALA);
    T_CHECK_INT(det("build.sc", ""), LP_LANG_SCALA);
    T_CHECK_INT(det("README.md", ""), LP_LANG_MARKDOWN);
    T_CHECK_INT(det("doc.markdown", ""), LP_LANG_MARKDOWN);
    T_CHECK_INT(det("index.rst", ""), LP_LANG_RST);
    T_CHECK_INT(det("notes.txt", ""), LP_LANG_TEXT);
    T_CHECK_INT(det("Makefile", ""), LP_LANG_TEXT);
    T_CHECK_INT(det("x.pyc", ""), LP_LANG_TEXT);
    T_CHECK_INT(det("bin/tool", "#!/usr/bin/env python3\nprint(1)\n"), LP_LANG_PYTHON);
    T_CHECK_INT(det("bin/tool", "#!/usr/bin/node\n"), LP_LANG_JAVASCRIPT);
    T_CHECK_INT(det("bin/tool", "#!/bin/sh\n"), LP_LANG_TEXT);
done:;
}

T_TEST(lang_detect_h_heuristic)
{
    T_CHECK_INT(det("x.h", "#ifndef X_H\n#define X_H\nint f(void);\nstruct s { int a; };\n"),
                LP_LANG_C);
    /* C headers guarded for C++ stay C */
    T_CHECK_INT(det("x.h", "#ifdef __cplusplus\nextern \"C\" {\n#endif\nint f(void);\n"),
                LP_LANG_C);
    /* C++ words inside comments and strings do not count */
    T_CHECK_INT(det("x.h", "/* class Foo { public: }; namespace x */\n// std::vector\n"
                           "const char *s = \"a::b\";\nint class_count;\n"),
                LP_LANG_C);
    T_CHECK_INT(det("x.h", "#pragma once\nclass Widget {\n  int x;\n};\n"), LP_LANG_CPP);
    T_CHECK_INT(det("x.h", "namespace ui {\nint f();\n}\n"), LP_LANG_CPP);
    T_CHECK_INT(det("x.h", "template<typename T> T max(T a, T b);\n"), LP_LANG_CPP);
    T_CHECK_INT(det("x.h", "std::string name();\n"), LP_LANG_CPP);
    T_CHECK_INT(det("x.h", "struct A {\npublic:\n  int x;\n};\n"), LP_LANG_CPP);
    /* only .h looks at the head: a .c file is C whatever it holds, .C and .H are C++ */
    T_CHECK_INT(det("x.c", "namespace ui {\nint f();\n}\n"), LP_LANG_C);
    T_CHECK_INT(det("x.C", ""), LP_LANG_CPP);
    T_CHECK_INT(det("x.H", ""), LP_LANG_CPP);
done:;
}

/* The registry (lp_lang_ops): one entry per language, filled in by the language's file,
 * consistent with the names and the graph's view of it. */
T_TEST(lang_ops_registry)
{
    lp_buf p;
    lp_buf_init(&p, 0);
    for (int l = 0; l < LP_LANG_COUNT; l++) {
        const lp_lang_ops *o = lp_lang_ops_for((lp_lang)l);
        T_CHECK(o != NULL);
        T_CHECK_INT(o->lang, l);
        T_CHECK_STR(o->name, lp_lang_name((lp_lang)l));
        /* a language of a family belongs to a family whose head is itself */
        T_CHECK_INT(lp_lang_ops_for(o->family)->family, o->family);
        bool code = l != LP_LANG_TEXT && l != LP_LANG_MARKDOWN && l != LP_LANG_RST;
        T_CHECK_INT(lp_lang_has_graph((lp_lang)l), code);
        T_CHECK(!code || (o->graph_covers && o->graph_blind && o->test_stem && o->spec));
        for (const char *const *e = o->extensions; e && *e; e++) {
            lp_buf_reset(&p);
            lp_buf_printf(&p, "dir/file%s", *e);
            /* every extension detects its language (C's .h with a C head) */
            T_CHECK_INT(det(p.ptr, ""), l);
        }
    }
    T_CHECK(lp_lang_ops_for(LP_LANG_COUNT) == lp_lang_ops_for(LP_LANG_TEXT));
    T_CHECK_INT(lp_lang_ops_for(LP_LANG_TYPESCRIPT)->family, LP_LANG_JAVASCRIPT);
    T_CHECK_INT(lp_lang_ops_for(LP_LANG_CPP)->family, LP_LANG_C);
    T_CHECK(lp_lang_ops_for(LP_LANG_PYTHON)->test_stem(LP_STR("test_parse")));
    T_CHECK(!lp_lang_ops_for(LP_LANG_GO)->test_stem(LP_STR("server")));
    T_CHECK(lp_lang_ops_for(LP_LANG_JAVA)->test_stem(LP_STR("ParserTest")));
done:
    lp_buf_release(&p);
}

T_TEST(lang_names_round_trip)
{
    for (int l = 0; l < LP_LANG_COUNT; l++)
        T_CHECK_INT(lp_lang_from_name(lp_str_c(lp_lang_name((lp_lang)l))), l);
    T_CHECK_INT(lp_lang_from_name(LP_STR("golang")), LP_LANG_GO);
    T_CHECK_INT(lp_lang_from_name(LP_STR("c++")), LP_LANG_CPP);
    T_CHECK_INT(lp_lang_from_name(LP_STR("cs")), LP_LANG_CSHARP);
    T_CHECK_INT(lp_lang_from_name(LP_STR("cobol")), LP_LANG_COUNT);
    for (int k = 0; k < LP_SYM_KIND_COUNT; k++)
        T_CHECK_INT(lp_symkind_from_name(lp_str_c(lp_symkind_name((lp_symkind)k))), k);
    T_CHECK_STR(lp_symkind_name(LP_SYM_TYPE_ALIAS), "type_alias");
    T_CHECK_INT(lp_symkind_from_name(LP_STR("nope")), LP_SYM_KIND_COUNT);
done:;
}

/* Checks every documented invariant of a parse result against its input. */
static bool check_result(lp_t *t, lp_str src, const lp_parse_result *r, const lp_parse_opts *o)
{
    uint32_t max_bytes = o && o->chunk_max_bytes ? o->chunk_max_bytes : 2400;
    uint32_t max_lines = o && o->chunk_max_lines ? o->chunk_max_lines : 60;
    for (size_t i = 0; i < r->nsymbols; i++) {
        const lp_symbol *s = &r->symbols[i];
        T_CHECK_MSG(s->span.start_byte <= s->span.end_byte && s->span.end_byte <= src.len,
                    "symbol %zu span [%u,%u) outside %zu", i, s->span.start_byte,
                    s->span.end_byte, src.len);
        T_CHECK(s->sig.start_byte == s->span.start_byte && s->sig.end_byte <= s->span.end_byte);
        T_CHECK(s->name && s->qname && s->name[0] && s->qname[0]);
        T_CHECK(s->parent >= -1 && s->parent < (int32_t)r->nsymbols && s->parent != (int32_t)i);
        if (i)
            T_CHECK(r->symbols[i - 1].span.start_byte <= s->span.start_byte);
    }
    for (size_t i = 0; i < r->nchunks; i++) {
        const lp_chunk *c = &r->chunks[i];
        T_CHECK_MSG(c->text && c->text_len > 0 && c->text[c->text_len] == 0,
                    "chunk %zu empty or unterminated", i);
        T_CHECK(strlen(c->text) == c->text_len);
        T_CHECK_MSG(c->span.start_byte < c->span.end_byte && c->span.end_byte <= src.len,
                    "chunk %zu span [%u,%u) in %zu bytes", i, c->span.start_byte,
                    c->span.end_byte, src.len);
        T_CHECK(c->span.start_line >= 1 && c->span.start_line <= c->span.end_line);
        T_CHECK(c->owner >= -1 && c->owner < (int32_t)r->nsymbols);
        /* bounded: the byte bound plus elision markers, the line bound */
        T_CHECK_MSG(c->text_len <= max_bytes + 64, "chunk %zu has %zu bytes", i, c->text_len);
        size_t lines = 1;
        for (size_t k = 0; k + 1 < c->text_len; k++)
            lines += c->text[k] == '\n';
        T_CHECK_MSG(lines <= max_lines, "chunk %zu has %zu lines", i, lines);
        if (i)
            T_CHECK(r->chunks[i - 1].span.start_byte <= c->span.start_byte);
    }
    return true;
done:
    return false;
}

static lp_status parse_str(lp_lang lang, const char *src, lp_arena *a, lp_parse_result *r,
                           lp_error *err)
{
    return lp_parse(lang, lp_str_c(src), NULL, a, r, err);
}

static const lp_symbol *find_sym(const lp_parse_result *r, const char *qname, uint32_t ord)
{
    for (size_t i = 0; i < r->nsymbols; i++)
        if (!strcmp(r->symbols[i].qname, qname) && r->symbols[i].ordinal == ord)
            return &r->symbols[i];
    return NULL;
}

T_TEST(lang_empty_and_blank_inputs)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_lang_init();
    for (int l = 0; l < LP_LANG_COUNT; l++) {
        lp_parse_result r;
        T_CHECK_OK(lp_parse((lp_lang)l, LP_STR(""), NULL, &a, &r, &err), &err);
        T_CHECK_INT(r.nsymbols, 0);
        T_CHECK_INT(r.nchunks, 0);
        T_CHECK(!r.partial_parse);
        T_CHECK_OK(lp_parse((lp_lang)l, LP_STR("\n\n   \n\t\n"), NULL, &a, &r, &err), &err);
        T_CHECK_INT(r.nchunks, 0);
        T_CHECK_OK(lp_parse((lp_lang)l, (lp_str){NULL, 0}, NULL, &a, &r, &err), &err);
    }
    lp_parse_result r;
    T_CHECK(lp_parse((lp_lang)99, LP_STR("x"), NULL, &a, &r, &err) == LP_EINVAL);
done:
    lp_arena_release(&a);
    lp_lang_thread_release();
}

T_TEST(lang_comments_only_file)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_parse_result r;
    const char *src = "// just a comment\n// and another\n\n/* block */\n";
    T_CHECK_OK(parse_str(LP_LANG_C, src, &a, &r, &err), &err);
    T_CHECK_INT(r.nsymbols, 0);
    T_CHECK_INT(r.nchunks, 1);
    T_CHECK_INT(r.chunks[0].kind, LP_CHUNK_MODULE);
    T_CHECK_INT(r.chunks[0].owner, -1);
    T_CHECK_INT(r.chunks[0].span.start_line, 1);
    T_CHECK_INT(r.chunks[0].span.end_line, 4);
    T_CHECK(check_result(t, lp_str_c(src), &r, NULL));
    T_CHECK_OK(parse_str(LP_LANG_PYTHON, "# only\n# comments\n", &a, &r, &err), &err);
    T_CHECK_INT(r.nsymbols, 0);
    T_CHECK_INT(r.nchunks, 1);
done:
    lp_arena_release(&a);
    lp_lang_thread_release();
}

T_TEST(lang_partial_parse_keeps_symbols)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_parse_result r;
    const char *src = "def good():\n    return 1\n\ndef broken(:\n    pass\n\n"
                      "class Later:\n    def m(self):\n        return 2\n";
    T_CHECK_OK(parse_str(LP_LANG_PYTHON, src, &a, &r, &err), &err);
    T_CHECK(r.partial_parse);
    T_CHECK(find_sym(&r, "good", 0) != NULL);
    T_CHECK(find_sym(&r, "Later.m", 0) != NULL);
    T_CHECK(check_result(t, lp_str_c(src), &r, NULL));
    const char *go = "package p\n\nfunc A() {\n\treturn\n}\n\nfunc B( {\n}\n\nfunc C() {}\n";
    T_CHECK_OK(parse_str(LP_LANG_GO, go, &a, &r, &err), &err);
    T_CHECK(r.partial_parse);
    T_CHECK(find_sym(&r, "p.A", 0) != NULL);
    T_CHECK(find_sym(&r, "p.C", 0) != NULL);
    T_CHECK_OK(parse_str(LP_LANG_PYTHON, "def ok():\n    pass\n", &a, &r, &err), &err);
    T_CHECK(!r.partial_parse);
done:
    lp_arena_release(&a);
    lp_lang_thread_release();
}

/* tests/fuzz/corpus/lang/lang-ts-enum-order, cut down: an enum body running into a doc
 * comment's text. tree-sitter's error recovery makes the query report the member `export`
 * (line 4) before `High` (line 3); lp_parse must still list symbols by start byte, with
 * parents, chunk owners and reference owners pointing at the same symbols as before. */
T_TEST(lang_symbols_in_source_order_after_error_recovery)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_parse_result r;
    const char *src = "export enum Level {\n  Low,\n"
                      "  High = 10comment* Parses input: overloads first, then the "
                      "implementation. */\nexport function parse(input: string): number;\n";
    T_CHECK_OK(parse_str(LP_LANG_TYPESCRIPT, src, &a, &r, &err), &err);
    T_CHECK(r.nsymbols >= 4);
    int high = -1, exp = -1;
    for (size_t i = 0; i < r.nsymbols; i++) {
        const lp_symbol *s = &r.symbols[i];
        if (i)
            T_CHECK_MSG(r.symbols[i - 1].span.start_byte <= s->span.start_byte,
                        "symbol %zu (%s at %u) before %s at %u", i - 1, r.symbols[i - 1].qname,
                        r.symbols[i - 1].span.start_byte, s->qname, s->span.start_byte);
        if (s->kind == LP_SYM_ENUM_MEMBER) {
            T_CHECK_INT(s->parent, 0); /* the enum, which precedes its members */
            T_CHECK_STR(r.symbols[s->parent].qname, "Level");
        }
        if (!strcmp(s->qname, "Level.High"))
            high = (int)i;
        if (!strcmp(s->qname, "Level.export"))
            exp = (int)i;
    }
    T_CHECK(high > 0 && exp > high);
    T_CHECK_STR(r.symbols[0].qname, "Level");
    for (size_t i = 0; i < r.nchunks; i++)
        T_CHECK(r.chunks[i].owner >= -1 && r.chunks[i].owner < (int32_t)r.nsymbols);
    for (size_t i = 0; i < r.nrefs; i++) {
        T_CHECK(r.refs[i].owner >= -1 && r.refs[i].owner < (int32_t)r.nsymbols);
        /* an owner encloses its reference */
        if (r.refs[i].owner >= 0) {
            const lp_span *o = &r.symbols[r.refs[i].owner].span;
            T_CHECK(o->start_byte <= r.refs[i].span.start_byte);
        }
    }
done:
    lp_arena_release(&a);
    lp_lang_thread_release();
}

T_TEST(lang_ordinals_count_equal_qname_and_kind)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_parse_result r;
    const char *src = "function f(a: string): void;\nfunction f(a: number): void;\n"
                      "function f(a: any) {}\nclass f {}\nfunction f(b: any) {}\n";
    T_CHECK_OK(parse_str(LP_LANG_TYPESCRIPT, src, &a, &r, &err), &err);
    T_CHECK_INT(r.nsymbols, 5);
    T_CHECK_INT(r.symbols[0].ordinal, 0);
    T_CHECK_INT(r.symbols[1].ordinal, 1);
    T_CHECK_INT(r.symbols[2].ordinal, 0); /* declarations count apart from definitions */
    T_CHECK_INT(r.symbols[3].ordinal, 0); /* same qname, other kind */
    T_CHECK_INT(r.symbols[4].ordinal, 1);
    T_CHECK(r.symbols[0].flags & LP_SYMF_DECLARATION);
    T_CHECK(!(r.symbols[2].flags & LP_SYMF_DECLARATION));
done:
    lp_arena_release(&a);
    lp_lang_thread_release();
}

T_TEST(lang_crlf_line_endings)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_parse_result r;
    const char *src = "import os\r\n\r\nclass A:\r\n    \"\"\"Doc.\"\"\"\r\n\r\n"
                      "    def m(self):\r\n        return 1\r\n";
    T_CHECK_OK(parse_str(LP_LANG_PYTHON, src, &a, &r, &err), &err);
    const lp_symbol *m = find_sym(&r, "A.m", 0);
    T_CHECK(m != NULL);
    T_CHECK_INT(m->span.start_line, 6);
    T_CHECK_INT(m->span.end_line, 7);
    T_CHECK_INT(m->sig.end_line, 6);
    T_CHECK(src[m->sig.end_byte - 1] == ':'); /* no \r in the signature */
    const lp_symbol *c = find_sym(&r, "A", 0);
    T_CHECK(c && c->doc.start_line == 4);
    T_CHECK(check_result(t, lp_str_c(src), &r, NULL));
done:
    lp_arena_release(&a);
    lp_lang_thread_release();
}

T_TEST(lang_invalid_utf8_bytes)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_parse_result r;
    const char *src = "package p\n// caf\xe9 \xff\xfe\n"
                      "func F() string { return \"\x80\" }\n"
                      "var s = \"\xc3\x28\"\n"
                      "func G\xff() {}\n"
                      "func H() int { return 2 }\n";
    T_CHECK_OK(parse_str(LP_LANG_GO, src, &a, &r, &err), &err);
    T_CHECK(find_sym(&r, "p.F", 0) != NULL);
    T_CHECK(find_sym(&r, "p.H", 0) != NULL);
    T_CHECK(check_result(t, lp_str_c(src), &r, NULL));
    T_CHECK_OK(parse_str(LP_LANG_TEXT, "\xff\xfe\xfd text\n\nmore \xc0\n", &a, &r, &err), &err);
    T_CHECK_INT(r.nchunks, 1);
done:
    lp_arena_release(&a);
    lp_lang_thread_release();
}

/* A big Python file: chunks of a long function stay within the bounds, overlap, keep their
 * owner, and a class chunk does not repeat its methods' bodies. */
T_TEST(lang_chunks_bounded_and_elided)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_parse_result r;
    lp_buf b;
    lp_buf_init(&b, 0);
    lp_buf_puts(&b, "class Big:\n    def long(self):\n");
    for (int i = 0; i < 500; i++)
        lp_buf_printf(&b, "        value_%d = compute_something(%d, 'padding text here')\n", i, i);
    lp_buf_puts(&b, "        return value_0\n\n    def short(self):\n        return 'unique_marker'\n");
    lp_parse_opts o = {0};
    T_CHECK_OK(lp_parse(LP_LANG_PYTHON, lp_buf_str(&b), &o, &a, &r, &err), &err);
    T_CHECK(check_result(t, lp_buf_str(&b), &r, &o));
    const lp_symbol *lng = find_sym(&r, "Big.long", 0);
    T_CHECK(lng != NULL);
    int32_t long_idx = (int32_t)(lng - r.symbols), big_idx = -1;
    size_t long_chunks = 0;
    uint32_t prev_end = 0;
    for (size_t i = 0; i < r.nchunks; i++) {
        const lp_chunk *c = &r.chunks[i];
        if (c->owner == long_idx) {
            if (long_chunks)
                T_CHECK_MSG(c->span.start_line < prev_end, "windows overlap");
            prev_end = c->span.end_line;
            long_chunks++;
        }
        if (c->owner >= 0 && !strcmp(r.symbols[c->owner].qname, "Big")) {
            big_idx = c->owner;
            T_CHECK(strstr(c->text, "value_3") == NULL);     /* body elided */
            T_CHECK(strstr(c->text, "unique_marker") == NULL);
            T_CHECK(strstr(c->text, "def long(self):") != NULL); /* signature kept */
            T_CHECK(strstr(c->text, "\xe2\x80\xa6") != NULL);    /* elision marker */
        }
    }
    T_CHECK(big_idx >= 0);
    T_CHECK_MSG(long_chunks >= 9, "500 lines in %zu windows", long_chunks);
    T_CHECK_INT(prev_end, lng->span.end_line);

    /* smaller bounds are honoured too */
    lp_parse_opts small = {.chunk_max_lines = 10, .chunk_max_bytes = 300, .chunk_overlap_lines = 2};
    T_CHECK_OK(lp_parse(LP_LANG_PYTHON, lp_buf_str(&b), &small, &a, &r, &err), &err);
    T_CHECK(check_result(t, lp_buf_str(&b), &r, &small));
done:
    lp_buf_release(&b);
    lp_arena_release(&a);
    lp_lang_thread_release();
}

T_TEST(lang_text_paragraphs_packed)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_parse_result r;
    lp_buf b;
    lp_buf_init(&b, 0);
    for (int i = 0; i < 200; i++)
        lp_buf_printf(&b, "Paragraph %d line one.\nParagraph %d line two.\n\n", i, i);
    T_CHECK_OK(lp_parse(LP_LANG_TEXT, lp_buf_str(&b), NULL, &a, &r, &err), &err);
    T_CHECK(check_result(t, lp_buf_str(&b), &r, NULL));
    T_CHECK(r.nchunks >= 10 && r.nchunks <= 20);
    for (size_t i = 0; i < r.nchunks; i++) {
        T_CHECK(r.chunks[i].kind == LP_CHUNK_TEXT && r.chunks[i].owner == -1);
        /* paragraphs are never split when they fit */
        T_CHECK(!strncmp(r.chunks[i].text, "Paragraph", 9));
    }
done:
    lp_buf_release(&b);
    lp_arena_release(&a);
    lp_lang_thread_release();
}

/* One line, 1 MB of minified JavaScript with nested functions: bounded chunks, bounded
 * total text, and fast. */
T_TEST(lang_minified_js_one_line)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_parse_result r;
    lp_buf b;
    lp_buf_init(&b, 0);
    lp_buf_puts(&b, "!function(){");
    for (int i = 0; b.len < ((size_t)1 << 20); i++)
        lp_buf_printf(&b, "function f%d(a,b){var c=a+b;function g%d(x){return x*c}return "
                          "g%d(a)}var o%d={m:function(){return f%d(1,2)},n:%d};",
                      i, i, i, i, i, i);
    lp_buf_puts(&b, "}();");
    uint64_t t0 = t_cpu_ns();
    T_CHECK_OK(lp_parse(LP_LANG_JAVASCRIPT, lp_buf_str(&b), NULL, &a, &r, &err), &err);
    double secs = (double)(t_cpu_ns() - t0) / 1e9;
    T_CHECK(check_result(t, lp_buf_str(&b), &r, NULL));
    size_t total = 0;
    for (size_t i = 0; i < r.nchunks; i++)
        total += r.chunks[i].text_len;
    T_CHECK_MSG(total <= b.len * 2, "chunk text %zu for %zu input bytes", total, b.len);
    T_CHECK(r.nsymbols > 1000);
    T_CHECK_MSG(secs < 60.0, "parse took (CPU) %.2fs", secs);
done:
    lp_buf_release(&b);
    lp_arena_release(&a);
    lp_lang_thread_release();
}

/* Scala's scanner costs O(column) per token, so a long line is quadratic (found by
 * tests/fuzz/fuzz_lang: a 110 KB line took a minute): past the long-line budget the file is
 * kept as text, partial; a file with one 4 KB line is still parsed. */
T_TEST(lang_scala_long_lines_kept_as_text)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_parse_result r;
    lp_buf b;
    lp_buf_init(&b, 0);
    lp_buf_puts(&b, "object O {\n  def f(x: Int) = x\n}\n");
    for (int i = 0; i < 10000; i++)
        lp_buf_printf(&b, "val a%d = %d; ", i, i);
    lp_buf_puts(&b, "\n");
    uint64_t t0 = t_cpu_ns();
    T_CHECK_OK(lp_parse(LP_LANG_SCALA, lp_buf_str(&b), NULL, &a, &r, &err), &err);
    double secs = (double)(t_cpu_ns() - t0) / 1e9;
    T_CHECK_MSG(secs < 60.0, "parse took (CPU) %.2fs", secs);
    T_CHECK(r.partial_parse);
    T_CHECK_INT(r.nsymbols, 0);
    T_CHECK(check_result(t, lp_buf_str(&b), &r, NULL));
    bool found = false;
    for (size_t i = 0; i < r.nchunks; i++)
        found = found || strstr(r.chunks[i].text, "val a9999 = 9999;") != NULL;
    T_CHECK(found);

    lp_buf_reset(&b);
    lp_buf_puts(&b, "object O {\n  val s = \"");
    for (int i = 0; i < 4000; i++)
        lp_buf_putc(&b, 'x');
    lp_buf_puts(&b, "\"\n  def f(x: Int) = x\n}\n");
    T_CHECK_OK(lp_parse(LP_LANG_SCALA, lp_buf_str(&b), NULL, &a, &r, &err), &err);
    T_CHECK(!r.partial_parse);
    T_CHECK(r.nsymbols >= 2);
    T_CHECK(check_result(t, lp_buf_str(&b), &r, NULL));
done:
    lp_buf_release(&b);
    lp_arena_release(&a);
    lp_lang_thread_release();
}

typedef struct par_job {
    lp_lang lang;
    const char *src;
    size_t expect;
    int failures;
} par_job;

static void *par_run(void *arg)
{
    par_job *j = arg;
    for (int i = 0; i < 50; i++) {
        lp_arena a;
        lp_arena_init(&a, 0);
        lp_parse_result r;
        lp_error err;
        if (lp_parse(j->lang, lp_str_c(j->src), NULL, &a, &r, &err) || r.nsymbols != j->expect)
            j->failures++;
        lp_arena_release(&a);
    }
    lp_lang_thread_release();
    return NULL;
}

T_TEST(lang_concurrent_parses)
{
    par_job jobs[4] = {
        {LP_LANG_PYTHON, "class A:\n    def m(self):\n        pass\n", 2, 0},
        {LP_LANG_GO, "package p\n\nfunc F() {}\n", 2, 0},
        {LP_LANG_PYTHON, "def f():\n    pass\n", 1, 0},
        {LP_LANG_TYPESCRIPT, "export function f(): void {}\n", 1, 0},
    };
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        T_CHECK(pthread_create(&th[i], NULL, par_run, &jobs[i]) == 0);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < 4; i++)
        T_CHECK_MSG(jobs[i].failures == 0, "job %d failed %d times", i, jobs[i].failures);
done:;
}

/* Large flat files: 20,000 documented prototypes at one level, a class with 3,000
 * methods. Sibling scans or per-window rescans would make these quadratic. */
T_TEST(lang_large_flat_files_stay_linear)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_parse_result r;
    lp_buf b;
    lp_buf_init(&b, 0);
    for (int i = 0; i < 20000; i++)
        lp_buf_printf(&b, "/* Does thing %d. */\nint thing_%d(int x);\n", i, i);
    uint64_t t0 = t_cpu_ns();
    T_CHECK_OK(lp_parse(LP_LANG_C, lp_buf_str(&b), NULL, &a, &r, &err), &err);
    double secs = (double)(t_cpu_ns() - t0) / 1e9;
    T_CHECK_INT(r.nsymbols, 20000);
    T_CHECK(r.symbols[19999].doc.start_line == 39999);
    T_CHECK_MSG(secs < 60.0, "20k prototypes took (CPU) %.2fs", secs);
    T_CHECK(check_result(t, lp_buf_str(&b), &r, NULL));

    lp_buf_reset(&b);
    lp_buf_puts(&b, "class Big {\npublic:\n");
    for (int i = 0; i < 3000; i++)
        lp_buf_printf(&b, "    int m%d(int x) {\n        return x + %d;\n    }\n%s", i, i,
                      i % 100 == 0 ? "private:\n" : "");
    lp_buf_puts(&b, "};\n");
    t0 = t_cpu_ns();
    T_CHECK_OK(lp_parse(LP_LANG_CPP, lp_buf_str(&b), NULL, &a, &r, &err), &err);
    secs = (double)(t_cpu_ns() - t0) / 1e9;
    T_CHECK_INT(r.nsymbols, 3001);
    T_CHECK_INT(r.symbols[1].vis, LP_VIS_PUBLIC);  /* m0 */
    T_CHECK_INT(r.symbols[2].vis, LP_VIS_PRIVATE); /* m1, after the first private: */
    T_CHECK_MSG(secs < 60.0, "3000 methods took (CPU) %.2fs", secs);
    T_CHECK(check_result(t, lp_buf_str(&b), &r, NULL));
done:
    lp_buf_release(&b);
    lp_arena_release(&a);
    lp_lang_thread_release();
}

/* 3,000 nested functions: symbols stop at the nesting bound, qnames stay short, the text
 * of the deeper ones stays searchable in the innermost emitted owner. */
T_TEST(lang_deep_nesting_bounded)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_parse_result r;
    lp_buf b;
    lp_buf_init(&b, 0);
    for (int i = 0; i < 3000; i++)
        lp_buf_printf(&b, "function f%d(){", i);
    for (int i = 0; i < 3000; i++)
        lp_buf_putc(&b, '}');
    lp_buf_putc(&b, '\n');
    T_CHECK_OK(lp_parse(LP_LANG_JAVASCRIPT, lp_buf_str(&b), NULL, &a, &r, &err), &err);
    T_CHECK_INT(r.nsymbols, 65);
    for (size_t i = 0; i < r.nsymbols; i++)
        T_CHECK(strlen(r.symbols[i].qname) < 1024);
    T_CHECK(check_result(t, lp_buf_str(&b), &r, NULL));
    bool found = false; /* f2999 is no symbol but its text is in some chunk */
    for (size_t i = 0; i < r.nchunks; i++)
        found = found || strstr(r.chunks[i].text, "function f2999(){") != NULL;
    T_CHECK(found);
done:
    lp_buf_release(&b);
    lp_arena_release(&a);
    lp_lang_thread_release();
}

T_TEST(lang_c_match_brace_skips_comments_strings_and_else_branches)
{
    /* comments, strings and character literals hide braces; of #if/#else opened inside,
     * only the first branch counts (the second repeats its opening brace) */
    const char *src = "{ /* } */ s = \"}\"; c = '}'; // }\n"
                      "#ifdef X\n  if (a) {\n#else\n  if (b) {\n#endif\n  }\n}\nrest";
    uint32_t len = (uint32_t)strlen(src);
    uint32_t end = lp_lx_c_match_brace(src, len, 0);
    T_CHECK(end > 0);
    T_CHECK(end <= len && src[end - 1] == '}');
    T_CHECK(strcmp(src + end, "\nrest") == 0);
    T_CHECK_INT(lp_lx_c_match_brace("{ { }", 5, 0), 0); /* unclosed: 0 */
    T_CHECK_INT(lp_lx_c_match_brace("{ \"}", 4, 0), 0); /* the brace is in a string */
done:;
}

T_TEST(lang_c_recovers_functions_after_a_macro_breaks_the_tree)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_parse_result r;
    /* braces opened in both branches of an #ifdef make tree-sitter put the whole file in
     * one ERROR node; the functions are recovered, their locals are not symbols */
    const char *src = "int first(int pid)\n{\n\tint ret = 0;\n#ifdef ANY\n\tif (pid) {\n"
                      "#else\n\tif (!pid) {\n#endif\n\t\tret = 1;\n\t}\n\treturn ret;\n}\n\n"
                      "static long second(struct w *wo)\n{\n\tint local;\n\treturn 1;\n}\n\n"
                      "SYSCALL_DEFINE1(third, int, x)\n{\n\tint y = x;\n\treturn y;\n}\n\n"
                      "int fourth(void)\n{\n\treturn 4;\n}\n";
    T_CHECK_OK(parse_str(LP_LANG_C, src, &a, &r, &err), &err);
    T_CHECK(r.partial_parse);
    const lp_symbol *s1 = find_sym(&r, "first", 0);
    const lp_symbol *s2 = find_sym(&r, "second", 0);
    const lp_symbol *s3 = find_sym(&r, "third", 0);
    const lp_symbol *s4 = find_sym(&r, "fourth", 0);
    T_CHECK(s1 && s1->kind == LP_SYM_FUNCTION && s1->span.start_line == 1 &&
            s1->span.end_line == 12 && s1->vis == LP_VIS_PUBLIC);
    T_CHECK(s2 && s2->kind == LP_SYM_FUNCTION && s2->span.start_line == 14 &&
            s2->span.end_line == 18 && (s2->flags & LP_SYMF_STATIC));
    T_CHECK(s3 && s3->kind == LP_SYM_FUNCTION && s3->span.start_line == 20 &&
            s3->span.end_line == 24);
    T_CHECK(s4 && s4->span.start_line == 26 && s4->span.end_line == 29);
    T_CHECK(find_sym(&r, "ret", 0) == NULL);
    T_CHECK(find_sym(&r, "local", 0) == NULL);
    T_CHECK(find_sym(&r, "y", 0) == NULL);
    T_CHECK(find_sym(&r, "SYSCALL_DEFINE1", 0) == NULL);
done:
    lp_arena_release(&a);
    lp_lang_thread_release();
}

T_TEST(lang_cpp_export_macro_class_is_reparsed)
{
    lp_arena a;
    lp_arena_init(&a, 0);
    lp_error err;
    lp_parse_result r;
    const char *src = "class EXPORT_API Checker : public Base {\npublic:\n"
                      "    Checker() : Base(name()) {}\n    void run() {}\nprivate:\n    int n_;\n};\n";
    T_CHECK_OK(parse_str(LP_LANG_CPP, src, &a, &r, &err), &err);
    const lp_symbol *c = find_sym(&r, "Checker", 0);
    const lp_symbol *ctor = find_sym(&r, "Checker.Checker", 0);
    const lp_symbol *run = find_sym(&r, "Checker.run", 0);
    const lp_symbol *field = find_sym(&r, "Checker.n_", 0);
    T_CHECK(c && c->kind == LP_SYM_CLASS && c->span.start_line == 1 && c->span.end_line == 7);
    T_CHECK(ctor && ctor->kind == LP_SYM_CONSTRUCTOR && ctor->vis == LP_VIS_PUBLIC);
    T_CHECK(run && run->kind == LP_SYM_METHOD);
    T_CHECK(field && field->kind == LP_SYM_FIELD && field->vis == LP_VIS_PRIVATE);
    T_CHECK(find_sym(&r, "EXPORT_API", 0) == NULL);
done:
    lp_arena_release(&a);
    lp_lang_thread_release();
}
