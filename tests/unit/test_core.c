/*
 * test_core.c: src/core behaviour.
 */
#include "t.h"

#include <sys/mman.h>

T_TEST(core_status_codes_are_stable)
{
    T_CHECK_STR(lp_status_code(LP_OK), "ok");
    T_CHECK_STR(lp_status_code(LP_EPATH), "path_refused");
    T_CHECK_STR(lp_status_code(LP_EBUSY), "busy");
    T_CHECK_STR(lp_status_code(LP_EREINDEX), "requires_reindex");
    T_CHECK_STR(lp_status_code((lp_status)-999), "error");
    lp_error e;
    T_CHECK_INT(lp_error_set(&e, LP_EINVAL, "bad %d", 7), LP_EINVAL);
    T_CHECK_STR(e.msg, "bad 7");
    lp_error_prefix(&e, "parsing %s", "x");
    T_CHECK_STR(e.msg, "parsing x: bad 7");
    T_CHECK_INT(lp_error_set(NULL, LP_EIO, "ignored"), LP_EIO);
done:;
}

T_TEST(core_arena_mark_rewind)
{
    lp_arena a;
    lp_arena_init(&a, 128);
    char *s1 = lp_arena_strdup(&a, "hello");
    lp_arena_mark m = lp_arena_get_mark(&a);
    size_t total = a.total;
    for (int i = 0; i < 100; i++) {
        char *p = lp_arena_alloc(&a, 100);
        memset(p, 'x', 100);
        T_CHECK(((uintptr_t)p & 15) == 0);
    }
    lp_arena_rewind(&a, m);
    T_CHECK_INT(a.total, total);
    T_CHECK_STR(s1, "hello");
    char *s2 = lp_arena_printf(&a, "%s-%d", "n", 42);
    T_CHECK_STR(s2, "n-42");
    char *big = lp_arena_zalloc(&a, 100000); /* larger than a block */
    T_CHECK(big[99999] == 0);
done:
    lp_arena_release(&a);
}

T_TEST(core_buf_limit_is_sticky)
{
    lp_buf b;
    lp_buf_init(&b, 10);
    T_CHECK(b.ptr != NULL && b.ptr[0] == '\0');
    lp_buf_puts(&b, "12345");
    lp_buf_printf(&b, "%d", 678);
    T_CHECK_STR(b.ptr, "12345678");
    T_CHECK_INT(b.err, LP_OK);
    lp_buf_puts(&b, "9abc");
    T_CHECK_INT(b.err, LP_ETOOBIG);
    T_CHECK_INT(b.len, 10);
    T_CHECK_STR(b.ptr, "123456789a");
    lp_buf_puts(&b, "z");
    T_CHECK_INT(b.len, 10);
    lp_buf_reset(&b);
    T_CHECK_INT(b.err, LP_OK);
    lp_buf_printf(&b, "%s", "a long string that is past the limit");
    T_CHECK_INT(b.err, LP_ETOOBIG);
    T_CHECK(b.len <= 10);
    size_t n;
    char *d = lp_buf_detach(&b, &n);
    T_CHECK(b.len == 0 && b.ptr[0] == '\0');
    free(d);
done:
    lp_buf_release(&b);
}

T_TEST(core_vec_push)
{
    LP_VEC(int) v = {0};
    for (int i = 0; i < 1000; i++)
        lp_vec_push(&v, i * 2);
    T_CHECK_INT(v.len, 1000);
    T_CHECK_INT(v.items[999], 1998);
    int *z = lp_vec_push_zero(&v);
    T_CHECK_INT(*z, 0);
done:
    lp_vec_free(&v);
}

T_TEST(core_hash_known_values)
{
    /* XXH3-128 of the empty input is a published constant. */
    lp_hash128 h = lp_hash128_of("", 0);
    char hex[LP_HASH_HEX];
    lp_hash128_hex(h, hex);
    T_CHECK_STR(hex, "99aa06d3014798d86001c324468d497f");
    uint8_t bytes[16];
    lp_hash128_bytes(h, bytes);
    T_CHECK(lp_hash128_eq(lp_hash128_from_bytes(bytes), h));
    lp_hasher *st = lp_hasher_new();
    lp_hasher_update(st, "hello ", 6);
    lp_hasher_update(st, "world", 5);
    T_CHECK(lp_hash128_eq(lp_hasher_digest(st), lp_hash128_of("hello world", 11)));
    lp_hasher_free(st);
    T_CHECK(lp_hash64_of("a", 1) != lp_hash64_of("b", 1));
done:;
}

T_TEST(core_path_normalize)
{
    static const struct {
        const char *in, *want; /* want NULL: refused */
    } cases[] = {
        {"a/b/c", "a/b/c"},   {"a//b/./c/", "a/b/c"}, {"./a", "a"},       {"a/../b", "b"},
        {"a/b/../../c", "c"}, {"..", NULL},           {"a/../../b", NULL}, {"/x/../y", "/y"},
        {"/..", "/"},         {"/", "/"},             {".", "."},         {"a/.", "a"},
        {"", NULL},
    };
    lp_buf b;
    lp_buf_init(&b, 0);
    lp_error e;
    for (size_t i = 0; i < LP_ARRAY_LEN(cases); i++) {
        lp_status rc = lp_path_normalize(lp_str_c(cases[i].in), &b, &e);
        if (!cases[i].want) {
            T_CHECK_MSG(rc == LP_EPATH, "%s should be refused", cases[i].in);
        } else {
            T_CHECK_MSG(rc == LP_OK, "%s: %s", cases[i].in, e.msg);
            T_CHECK_STR(b.ptr, cases[i].want);
        }
    }
    T_CHECK_INT(lp_path_normalize((lp_str){"a\0b", 3}, &b, &e), LP_EPATH);
    T_CHECK(lp_path_is_clean_relative(LP_STR("a/b.c")));
    T_CHECK(!lp_path_is_clean_relative(LP_STR("a/../b")));
    T_CHECK(!lp_path_is_clean_relative(LP_STR("/a")));
    T_CHECK(!lp_path_is_clean_relative(LP_STR("a//b")));
    lp_str rel;
    T_CHECK(lp_path_under(LP_STR("/r"), LP_STR("/r/x/y"), &rel) && lp_str_eq_c(rel, "x/y"));
    T_CHECK(lp_path_under(LP_STR("/r"), LP_STR("/r"), &rel) && rel.len == 0);
    T_CHECK(!lp_path_under(LP_STR("/r"), LP_STR("/rx/y"), &rel));
    T_CHECK(lp_str_eq_c(lp_path_ext(LP_STR("a/b.tar.gz")), ".gz"));
    T_CHECK(lp_path_ext(LP_STR("a/.bashrc")).len == 0);
    T_CHECK(lp_str_eq_c(lp_path_dirname(LP_STR("a/b/c")), "a/b"));
    T_CHECK(lp_str_eq_c(lp_path_basename(LP_STR("a/b/c")), "c"));
done:
    lp_buf_release(&b);
}

T_TEST(core_parse_u64)
{
    uint64_t v;
    T_CHECK(lp_parse_u64(LP_STR("18446744073709551615"), &v) && v == UINT64_MAX);
    T_CHECK(!lp_parse_u64(LP_STR("18446744073709551616"), &v));
    T_CHECK(!lp_parse_u64(LP_STR("-1"), &v));
    T_CHECK(!lp_parse_u64(LP_STR(""), &v));
    T_CHECK(!lp_parse_u64(LP_STR("12a"), &v));
done:;
}

T_TEST(core_file_roundtrip)
{
    lp_buf path, got;
    lp_buf_init(&path, 0);
    lp_buf_init(&got, 0);
    lp_error e;
    lp_buf_printf(&path, "%s/deep/er", t->tmpdir);
    T_CHECK_OK(lp_mkdir_p(path.ptr, &e), &e);
    lp_buf_puts(&path, "/f.txt");
    T_CHECK_OK(lp_write_file_atomic(path.ptr, "content\n", 8, &e), &e);
    T_CHECK_OK(lp_read_file(path.ptr, 100, &got, &e), &e);
    T_CHECK_STR(got.ptr, "content\n");
    T_CHECK_INT(lp_read_file(path.ptr, 4, &got, &e), LP_ETOOBIG);
    lp_buf_puts(&path, ".missing");
    T_CHECK_INT(lp_read_file(path.ptr, 4, &got, &e), LP_ENOENT);
done:
    lp_buf_release(&path);
    lp_buf_release(&got);
}

T_TEST(core_map_file)
{
    lp_buf path;
    lp_buf_init(&path, 0);
    lp_error e = {0};
    const void *p = NULL;
    size_t n = 0;
    lp_buf_printf(&path, "%s/model.bin", t->tmpdir);
    T_CHECK_OK(lp_write_file_atomic(path.ptr, "vectors", 7, &e), &e);
    T_CHECK_OK(lp_map_file(path.ptr, "test model", "set X", 100, &p, &n, &e), &e);
    T_CHECK(n == 7 && memcmp(p, "vectors", 7) == 0);
    munmap((void *)p, n);
    T_CHECK_INT(lp_map_file(path.ptr, "test model", "set X", 6, &p, &n, &e), LP_ETOOBIG);
    T_CHECK(p == NULL && n == 0);
    T_CHECK_MSG(strstr(e.msg, "test model") && strstr(e.msg, "6-byte limit") &&
                    strstr(e.msg, "; set X"),
                "%s", e.msg);
    /* a folder, an empty file, a missing file: refused with what is wrong */
    T_CHECK_INT(lp_map_file(t->tmpdir, "test model", NULL, 100, &p, &n, &e), LP_EIO);
    T_CHECK_MSG(strstr(e.msg, "not a regular file") && !strstr(e.msg, ";"), "%s", e.msg);
    T_CHECK_OK(lp_write_file_atomic(path.ptr, "", 0, &e), &e);
    T_CHECK_INT(lp_map_file(path.ptr, "test model", NULL, 100, &p, &n, &e), LP_ECORRUPT);
    T_CHECK_MSG(strstr(e.msg, "is empty"), "%s", e.msg);
    lp_buf_puts(&path, ".missing");
    T_CHECK_INT(lp_map_file(path.ptr, "test model", NULL, 100, &p, &n, &e), LP_ENOENT);
    T_CHECK_MSG(strstr(e.msg, "cannot be opened"), "%s", e.msg);
done:
    lp_buf_release(&path);
}

T_TEST(core_dynlib_load)
{
    (void)t;
    lp_error e = {0};
    /* a real library and symbol: the pointer is the same function the linker gave us */
    static const char *const libc[] = {"", "libc.so.6", NULL};
    static const char *const names[] = {"strlen"};
    lp_dynfn f[1] = {0};
    T_CHECK_OK(lp_dynlib_load(libc, names, f, 1, "the test", "libc6", &e), &e);
    size_t (*my_strlen)(const char *) = (size_t(*)(const char *))f[0];
    T_CHECK_INT((int)my_strlen("loupe"), 5);
    /* a library that is not installed: unsupported, naming what needs it and the package */
    static const char *const missing[] = {"libloupe-missing.so.9", NULL};
    T_CHECK_INT(lp_dynlib_load(missing, names, f, 1, "the test", "loupe-missing", &e),
                LP_EUNSUPPORTED);
    T_CHECK(strstr(e.msg, "libloupe-missing.so.9") && strstr(e.msg, "the test") &&
            strstr(e.msg, "install the Debian package loupe-missing"));
    /* a library without the symbol */
    static const char *const absent[] = {"loupe_no_such_function"};
    T_CHECK_INT(lp_dynlib_load(libc, absent, f, 1, "the test", "libc6", &e), LP_EUNSUPPORTED);
    T_CHECK(strstr(e.msg, "loupe_no_such_function") != NULL);
done:;
}
