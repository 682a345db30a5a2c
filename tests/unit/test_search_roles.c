/*
 * test_search_roles.c: the path rules of file roles (src/search/roles.c) and the content
 * flags computed at extraction (lp_lang_content_flags: generated markers, minified text).
 */
#include "t.h"

#include "lang/lang.h"
#include "search/search.h"

static uint32_t roles(const char *path) { return lp_search_path_roles(lp_str_c(path), NULL); }

T_TEST(roles_tests)
{
    T_CHECK(roles("tests/test_x.py") & LP_ROLE_TEST);
    T_CHECK(roles("testing/python/collect.py") & LP_ROLE_TEST);
    T_CHECK(roles("pkg/conftest.py") & LP_ROLE_TEST);
    T_CHECK(roles("net/http/transport_test.go") & LP_ROLE_TEST);
    T_CHECK(roles("src/a.spec.ts") & LP_ROLE_TEST);
    T_CHECK(lp_search_path_roles(lp_str_c("src/lib.rs"), "tests::parses") & LP_ROLE_TEST);
    T_CHECK_INT(roles("src/flask/app.py"), 0);
    T_CHECK_INT(roles("src/_pytest/python.py"), 0);
    T_CHECK_INT(roles("src/attestation.py"), 0);
done:;
}

T_TEST(roles_vendored)
{
    T_CHECK(roles("vendor/golang.org/x/net/http/httpguts/httplex.go") & LP_ROLE_VENDORED);
    T_CHECK(roles("third_party/zlib/inflate.c") & LP_ROLE_VENDORED);
    T_CHECK(roles("web/node_modules/left-pad/index.js") & LP_ROLE_VENDORED);
    T_CHECK(roles("requests/packages/urllib3/util/retry.py") & LP_ROLE_VENDORED);
    T_CHECK(roles("pip/_vendor/rich/console.py") & LP_ROLE_VENDORED);
    T_CHECK(roles("docs/_static/jquery-3.5.1.js") & LP_ROLE_VENDORED);
    T_CHECK(roles("static/underscore.js") & LP_ROLE_VENDORED);
    /* A top-level packages/ folder is a monorepo's own code; packages.py is a module. */
    T_CHECK_INT(roles("packages/core/src/index.ts") & LP_ROLE_VENDORED, 0);
    T_CHECK_INT(roles("requests/packages.py") & LP_ROLE_VENDORED, 0);
    T_CHECK_INT(roles("static/jqueryish.js") & LP_ROLE_VENDORED, 0);
done:;
}

T_TEST(roles_generated_minified_locale)
{
    T_CHECK(roles("api/v1/service_pb2.py") & LP_ROLE_GENERATED);
    T_CHECK(roles("api/service.pb.go") & LP_ROLE_GENERATED);
    T_CHECK(roles("ui/Form1.Designer.cs") & LP_ROLE_GENERATED);
    T_CHECK(roles("src/schema_generated.ts") & LP_ROLE_GENERATED);
    T_CHECK(roles("dist/index.js") & LP_ROLE_GENERATED);
    T_CHECK(roles("pkg/cjs/index.js") & LP_ROLE_GENERATED);
    T_CHECK(roles("a/__pycache__/b.py") & LP_ROLE_GENERATED);
    T_CHECK(roles("package-lock.json") & LP_ROLE_GENERATED);
    /* build/ is build output only at the top: go/build is a package. */
    T_CHECK(roles("build/lib/x.py") & LP_ROLE_GENERATED);
    T_CHECK_INT(roles("go/build/build.go"), 0);
    T_CHECK_INT(roles("lib/gen_crc32table.c"), 0);
    T_CHECK(roles("static/app.min.js") & LP_ROLE_MINIFIED);
    T_CHECK(roles("css/site.min.css") & LP_ROLE_MINIFIED);
    T_CHECK(roles("locale/fr/LC_MESSAGES/django.po") & LP_ROLE_LOCALE);
    T_CHECK(roles("sphinx/locale/fr/LC_MESSAGES/sphinx.js") & LP_ROLE_LOCALE);
    T_CHECK(roles("po/messages.pot") & LP_ROLE_LOCALE);
    T_CHECK_INT(roles("java/util/Locale.java"), 0);
    T_CHECK_INT(roles("locale/format.py") & LP_ROLE_LOCALE, 0);
done:;
}

T_TEST(roles_meta_and_examples)
{
    T_CHECK(roles("ChangeLog") & LP_ROLE_META);
    T_CHECK(roles("CHANGES.rst") & LP_ROLE_META);
    T_CHECK(roles("CONTRIBUTORS.txt") & LP_ROLE_META);
    T_CHECK(roles("AUTHORS") & LP_ROLE_META);
    T_CHECK(roles("Makefile") & LP_ROLE_META);
    T_CHECK(roles("lib/Makefile") & LP_ROLE_META);
    T_CHECK(roles("CMakeLists.txt") & LP_ROLE_META);
    T_CHECK(roles("setup.py") & LP_ROLE_META);
    T_CHECK(roles("setup.cfg") & LP_ROLE_META);
    T_CHECK(roles("tox.ini") & LP_ROLE_META);
    T_CHECK(roles("pyproject.toml") & LP_ROLE_META);
    T_CHECK(roles("docs/conf.py") & LP_ROLE_META);
    T_CHECK(roles(".github/workflows/tests.yaml") & LP_ROLE_META);
    T_CHECK(roles("package.json") & LP_ROLE_META);
    T_CHECK(roles("debian/rules") & LP_ROLE_META);
    T_CHECK(roles("changelog/1234.bugfix.rst") & LP_ROLE_META);
    T_CHECK_INT(roles("bin/pylint"), 0);
    /* conf.py in a package is code; a module named history or news is code too. */
    T_CHECK_INT(roles("src/app/conf.py"), 0);
    T_CHECK_INT(roles("src/app/historyview.py"), 0);
    T_CHECK_INT(roles("jar/Manifest.java"), 0);
    T_CHECK_INT(roles("syscall/security_windows.go"), 0);
    T_CHECK_INT(roles("src/app/changes.py"), 0);
    T_CHECK(roles("MANIFEST.in") & LP_ROLE_META);
    T_CHECK(roles("NEWS") & LP_ROLE_META);
    T_CHECK(roles("examples/tutorial/flaskr/db.py") & LP_ROLE_EXAMPLE);
    T_CHECK_INT(roles("src/flask/exampleapp.py"), 0);
    T_CHECK(roles("doc/data/messages/a/abstract-method/bad.py") & LP_ROLE_EXAMPLE);
    T_CHECK_INT(roles("doc/index.rst"), 0);
    T_CHECK_INT(roles("src/docs/render.py"), 0);
done:;
}

T_TEST(roles_names)
{
    const char *names[LP_ROLE_NAMES_MAX];
    T_CHECK_INT(lp_search_role_names(LP_ROLE_VENDORED | LP_ROLE_MINIFIED, names), 2);
    T_CHECK_STR(names[0], "vendored");
    T_CHECK_STR(names[1], "minified");
    T_CHECK_INT(lp_search_role_bit("locale"), LP_ROLE_LOCALE);
    T_CHECK_INT(lp_search_role_bit("nope"), 0);
    T_CHECK_INT(lp_search_role_names(0, names), 0);
done:;
}

T_TEST(content_flags_generated)
{
    T_CHECK(lp_lang_content_flags(lp_str_c("// Code generated by stringer; DO NOT EDIT.\n\n"
                                           "package x\n")) &
            LP_CONTENT_GENERATED);
    T_CHECK(lp_lang_content_flags(lp_str_c("# -*- coding: utf-8 -*-\n# Generated by the "
                                           "protocol buffer compiler.  DO NOT EDIT!\n")) &
            LP_CONTENT_GENERATED);
    T_CHECK(lp_lang_content_flags(lp_str_c("/**\n * @generated SignedSource<<abc>>\n */\n")) &
            LP_CONTENT_GENERATED);
    T_CHECK(lp_lang_content_flags(lp_str_c("// <auto-generated>\n// tool\n")) &
            LP_CONTENT_GENERATED);
    /* A generator's own source: the words in a string literal are not a marker. */
    T_CHECK_INT(lp_lang_content_flags(lp_str_c(
                    "package main\nconst header = \"// Code generated by x. DO NOT EDIT.\"\n")),
                0);
    T_CHECK_INT(lp_lang_content_flags(lp_str_c("# DO NOT EDIT this list by hand\nx = 1\n")), 0);
done:;
}

T_TEST(content_flags_minified)
{
    lp_buf b;
    lp_buf_init(&b, 0);
    for (int i = 0; i < 400; i++)
        lp_buf_printf(&b, "a%d:function(e){return e+%d},", i, i);
    T_CHECK(lp_lang_content_flags(lp_buf_str(&b)) & LP_CONTENT_MINIFIED);
    /* Ordinary code of the same size: short lines. */
    lp_buf_reset(&b);
    for (int i = 0; i < 400; i++)
        lp_buf_printf(&b, "def f%d(x):\n    return x + %d\n", i, i);
    T_CHECK_INT(lp_lang_content_flags(lp_buf_str(&b)), 0);
    /* Short files are never minified, however long their one line. */
    T_CHECK_INT(lp_lang_content_flags(lp_str_c("var a={b:1,c:2};")), 0);
done:
    lp_buf_release(&b);
}
