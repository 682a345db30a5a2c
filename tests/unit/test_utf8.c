/*
 * test_utf8.c: src/core/utf8.c and src/core/json.c: the one cut helper (a property test:
 * random multi-byte strings cut at every byte offset stay well-formed), the replacement of
 * bytes that are not UTF-8, the escaped form of paths, and the checked lp_json_pack.
 */
#include "t.h"

#include "cli/cli_int.h"
#include "core/json.h"

#include <fcntl.h>
#include <unistd.h>

/* A small deterministic generator (xorshift64*), so a failure replays. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

/* Append the UTF-8 of code point cp. */
static void put_cp(lp_buf *b, uint32_t cp)
{
    char o[4];
    size_t n;
    if (cp < 0x80) {
        o[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        o[0] = (char)(0xC0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12);
        o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        o[0] = (char)(0xF0 | cp >> 18);
        o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
        o[2] = (char)(0x80 | (cp >> 6 & 0x3F));
        o[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    lp_buf_append(b, o, n);
}

/* Code points from the scripts of the multibyte fixture: ASCII, Latin with combining
 * accents, Hebrew points, Devanagari (signs, virama), Thai, CJK, Hangul, emoji with ZWJ,
 * skin tones and variation selectors, and the last code points of each length. */
static uint32_t random_cp(uint64_t *s)
{
    static const uint32_t ranges[][2] = {
        {0x20, 0x7E},       {0xC0, 0x24F},     {0x300, 0x36F},   {0x5B0, 0x5EA},
        {0x900, 0x97F},     {0xE01, 0xE5B},    {0x4E00, 0x9FFF}, {0xAC00, 0xD7A3},
        {0x1F300, 0x1F64F}, {0x1F3FB, 0x1F3FF}, {0x200D, 0x200D}, {0xFE0F, 0xFE0F},
        {0x7FF, 0x800},     {0xFFFD, 0xFFFF},  {0x10000, 0x10000}, {0x10FFFF, 0x10FFFF},
    };
    const uint32_t *r = ranges[rng_next(s) % LP_ARRAY_LEN(ranges)];
    return r[0] + (uint32_t)(rng_next(s) % (r[1] - r[0] + 1));
}

T_TEST(utf8_cut_at_every_offset_of_random_text_stays_well_formed)
{
    lp_buf b;
    lp_buf_init(&b, 0);
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    size_t cuts = 0;
    for (int round = 0; round < 3000; round++) {
        lp_buf_reset(&b);
        size_t ncp = 1 + rng_next(&seed) % 40;
        for (size_t i = 0; i < ncp; i++)
            put_cp(&b, random_cp(&seed));
        T_CHECK(lp_utf8_valid(b.ptr, b.len));
        for (size_t max = 0; max <= b.len + 1; max++) {
            size_t c = lp_utf8_cut(b.ptr, b.len, max);
            T_CHECK_MSG(c <= max && c <= b.len && (max >= b.len ? c == b.len : max - c <= 3),
                        "round %d: cut(%zu) = %zu of %zu", round, max, c, b.len);
            T_CHECK_MSG(lp_utf8_valid(b.ptr, c), "round %d: cut at %zu of %zu is not UTF-8",
                        round, c, b.len);
            /* The longest such prefix: the next character would not fit. */
            if (c < max && c < b.len)
                T_CHECK(c + lp_utf8_seq(b.ptr + c, b.len - c) > max);
            cuts++;
        }
    }
    T_CHECK(cuts > 100000);
done:
    lp_buf_release(&b);
}

T_TEST(utf8_cut_of_random_bytes_never_splits_a_sequence)
{
    uint64_t seed = 42;
    char buf[64];
    for (int round = 0; round < 20000; round++) {
        size_t n = rng_next(&seed) % sizeof buf;
        for (size_t i = 0; i < n; i++)
            buf[i] = (char)(rng_next(&seed) & 1 ? 0x80 | (rng_next(&seed) & 0x7F)
                                                : rng_next(&seed) & 0xFF);
        for (size_t max = 0; max < n; max++) {
            size_t c = lp_utf8_cut(buf, n, max);
            T_CHECK(c <= max && max - c <= 3);
            for (size_t back = 1; back <= 3 && back <= c; back++) {
                size_t k = lp_utf8_seq(buf + c - back, n - (c - back));
                T_CHECK_MSG(k <= back, "round %d: cut %zu splits a %zu-byte sequence", round, c,
                            k);
            }
        }
        lp_buf out;
        lp_buf_init(&out, 0);
        lp_utf8_put(&out, buf, n);
        bool ok = lp_utf8_valid(out.ptr, out.len);
        lp_buf_release(&out);
        T_CHECK(ok);
    }
done:;
}

T_TEST(utf8_seq_valid_and_put)
{
    T_CHECK_INT(lp_utf8_seq("a", 1), 1);
    T_CHECK_INT(lp_utf8_seq("\xC3\xA9", 2), 2);
    T_CHECK_INT(lp_utf8_seq("\xC3", 1), 0);             /* cut short */
    T_CHECK_INT(lp_utf8_seq("\xC0\xAF", 2), 0);         /* overlong */
    T_CHECK_INT(lp_utf8_seq("\xED\xA0\x80", 3), 0);     /* surrogate */
    T_CHECK_INT(lp_utf8_seq("\xF4\x90\x80\x80", 4), 0); /* past U+10FFFF */
    T_CHECK_INT(lp_utf8_seq("\xF0\x9F\x99\x82", 4), 4);
    T_CHECK(lp_utf8_valid("caf\xC3\xA9", 5) && !lp_utf8_valid("a\0b", 3));
    lp_buf b;
    lp_buf_init(&b, 0);
    lp_utf8_put(&b, "caf\xE9 \xF0\x9F\x99", 8);
    T_CHECK_STR(b.ptr, "caf\xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    char small[6];
    T_CHECK_INT(lp_utf8_copy(small, sizeof small, "ab\xE2\x82\xAC\xE2\x82\xAC"), 5);
    T_CHECK_STR(small, "ab\xE2\x82\xAC");
    T_CHECK_INT(lp_utf8_copy(small, sizeof small, "abcd\xE2\x82\xAC"), 4);
    T_CHECK_STR(small, "abcd");
done:
    lp_buf_release(&b);
}

T_TEST(utf8_every_byte_cut_in_core_ends_on_a_character)
{
    /* lp_buf's fill to its limit, lp_buf_printf past it, and lp_error messages. */
    lp_buf b;
    lp_buf_init(&b, 10);
    lp_buf_puts(&b, "\xE0\xA4\xA8\xE0\xA4\xAE\xE0\xA4\xB8\xE0\xA5\x8D"); /* 12 bytes */
    T_CHECK_INT(b.err, LP_ETOOBIG);
    T_CHECK_INT(b.len, 9);
    lp_buf_reset(&b);
    lp_buf_printf(&b, "%s", "\xF0\x9F\x99\x82\xF0\x9F\x99\x82\xF0\x9F\x99\x82");
    T_CHECK(b.err == LP_ETOOBIG && b.len == 8 && lp_utf8_valid(b.ptr, b.len));
    lp_buf_release(&b);
    lp_buf_init(&b, 300);
    for (int i = 0; i < 300; i++)
        lp_buf_printf(&b, "%s", i % 2 ? "\xE4\xB8\xAD" : "a"); /* mixed 1- and 3-byte */
    T_CHECK(b.len <= 300 && lp_utf8_valid(b.ptr, b.len));
    lp_error e;
    for (int shift = 0; shift < 4; shift++) {
        lp_error_set(&e, LP_EINVAL, "%.*s%s", shift, "xxx", b.ptr);
        T_CHECK(strlen(e.msg) < LP_ERROR_MSG_MAX && lp_utf8_valid(e.msg, strlen(e.msg)));
        lp_error_prefix(&e, "%.*s%s", shift, "yyy", b.ptr);
        T_CHECK(lp_utf8_valid(e.msg, strlen(e.msg)));
    }
done:
    lp_buf_release(&b);
}

T_TEST(utf8_escaped_form_round_trips)
{
    lp_buf e, back;
    lp_buf_init(&e, 0);
    lp_buf_init(&back, 0);
    lp_bytes_escape(&e, "r\xE9po/100%/caf\xC3\xA9", 15);
    T_CHECK_STR(e.ptr, "r%E9po/100%25/caf\xC3\xA9");
    T_CHECK_OK(lp_bytes_unescape(lp_buf_str(&e), &back, NULL), &(lp_error){0});
    T_CHECK(back.len == 15 && !memcmp(back.ptr, "r\xE9po/100%/caf\xC3\xA9", 15));
    lp_error err = {0};
    T_CHECK_INT(lp_bytes_unescape(lp_str_c("a%G1"), &back, &err), LP_EINVAL);
    T_CHECK(strstr(err.msg, "two hex digits") != NULL);
    T_CHECK_INT(lp_bytes_unescape(lp_str_c("a%4"), &back, &err), LP_EINVAL);
    /* Random bytes: the escaped form is UTF-8 and gives them back. */
    uint64_t seed = 7;
    char raw[40];
    for (int round = 0; round < 2000; round++) {
        size_t n = rng_next(&seed) % sizeof raw;
        for (size_t i = 0; i < n; i++)
            raw[i] = (char)(rng_next(&seed) & 0xFF);
        lp_buf_reset(&e);
        lp_bytes_escape(&e, raw, n);
        T_CHECK(lp_utf8_valid(e.ptr, e.len));
        T_CHECK_OK(lp_bytes_unescape(lp_buf_str(&e), &back, &err), &err);
        T_CHECK(back.len == n && (n == 0 || !memcmp(back.ptr, raw, n)));
    }
done:
    lp_buf_release(&e);
    lp_buf_release(&back);
}

T_TEST(json_text_and_paths_of_any_bytes)
{
    json_t *o = json_object();
    json_t *s = lp_json_text("a\xFF\0b", 4);
    T_CHECK_STR(json_string_value(s), "a\xEF\xBF\xBD\xEF\xBF\xBD" "b");
    json_decref(s);
    T_CHECK(json_is_null(s = lp_json_textz(NULL)));
    json_decref(s);
    lp_json_set_path(o, "file", "src/caf\xE9.py", 11);
    T_CHECK_STR(json_string_value(json_object_get(o, "file")), "src/caf\xEF\xBF\xBD.py");
    T_CHECK_STR(json_string_value(json_object_get(o, "fileBytes")), "src/caf%E9.py");
    lp_json_set_path(o, "file", "src/ok.py", 9); /* a UTF-8 path drops a stale fileBytes */
    T_CHECK(json_object_get(o, "fileBytes") == NULL);
    lp_json_set_path2(o, "path", "/r\xE9po", "a b%.py");
    T_CHECK_STR(json_string_value(json_object_get(o, "pathBytes")), "/r%E9po/a b%25.py");
done:
    json_decref(o);
}

T_TEST(json_pack_failure_names_the_key_and_is_reported)
{
    lp_log_set_level(LP_LOG_OFF);
    lp_json_failure_reset();
    lp_error err = {0};
    json_t *j = NULL;
    T_CHECK(!lp_json_failed(&err));
    /* An `o` argument is consumed even when the pack fails: nothing here uses it again. */
    j = lp_json_pack("{s:i, s:{s:s, s:o}, s:[i, s]}", "a", 1, "owner", "file", "x.py",
                             "extra", json_object(), "list", 2, "bad\xE0\xA4");
    T_CHECK(j == NULL);
    T_CHECK(lp_json_failed(&err));
    T_CHECK_MSG(strstr(err.msg, "key 'list[1]'") && strstr(err.msg, "test_utf8.c"), "%s",
                err.msg);
    lp_json_failure_reset();
    j = lp_json_pack("{s:i, s:{s:s, s:o}}", "a", 1, "owner", "file", "x.py", "snippet", NULL);
    T_CHECK(j == NULL && lp_json_failed(&err));
    T_CHECK_MSG(strstr(err.msg, "key 'owner.snippet'") && strstr(err.msg, "NULL object"), "%s",
                err.msg);
    /* The first failure is kept until the next reset. */
    T_CHECK(lp_json_pack("{s:s}", "z", NULL) == NULL);
    T_CHECK(lp_json_failed(&err) && strstr(err.msg, "owner.snippet"));
    /* The CLI never prints nothing with exit 0 for such an answer. */
    fflush(stdout);
    int saved = dup(1), devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 1);
    int code = lp_cli_print_json(NULL);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    close(devnull);
    T_CHECK(code != 0);
    lp_json_failure_reset();
    T_CHECK(!lp_json_failed(NULL));
    j = lp_json_pack("{s:s, s:o}", "a", "b", "c", lp_json_text("\xFF", 1));
    T_CHECK(j != NULL && !lp_json_failed(NULL));
done:
    json_decref(j);
    lp_json_failure_reset();
    lp_log_init_from_env();
}
