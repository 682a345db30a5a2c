/*
 * test_store.c: src/store pieces that need no index build: the content codec, symbol ids.
 */
#include "t.h"

#include "store/store.h"

T_TEST(store_content_codec_roundtrip)
{
    lp_buf raw, enc, dec;
    lp_buf_init(&raw, 0);
    lp_buf_init(&enc, 0);
    lp_buf_init(&dec, 0);
    lp_error err;
    /* Empty, small (stored raw), large repetitive (compressed), large random-ish. */
    for (int round = 0; round < 4; round++) {
        lp_buf_reset(&raw);
        if (round == 1)
            lp_buf_puts(&raw, "int main(void) { return 0; }\n");
        for (int i = 0; round == 2 && i < 5000; i++)
            lp_buf_printf(&raw, "static int field_%d = %d; /* comment */\n", i % 50, i);
        uint64_t x = 88172645463325252ull;
        for (int i = 0; round == 3 && i < 20000; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            lp_buf_putc(&raw, (char)(x & 0xff));
        }
        lp_store_content_encode(lp_buf_str(&raw), &enc);
        T_CHECK(enc.len >= 1);
        if (round == 2)
            T_CHECK_MSG(enc.len * 4 < raw.len, "repetitive code should compress (%zu -> %zu)",
                        raw.len, enc.len);
        if (round == 3)
            T_CHECK(enc.len <= raw.len + 1); /* incompressible: stored raw, one byte more */
        T_CHECK_OK(lp_store_content_decode(enc.ptr, enc.len, &dec, &err), &err);
        T_CHECK_INT(dec.len, raw.len);
        T_CHECK(raw.len == 0 || memcmp(dec.ptr, raw.ptr, raw.len) == 0);
    }
    /* Damaged values are refused with a clear status, never read past. */
    T_CHECK_INT(lp_store_content_decode("", 0, &dec, &err), LP_ECORRUPT);
    T_CHECK_INT(lp_store_content_decode("\x07xyz", 4, &dec, &err), LP_ECORRUPT);
    T_CHECK_INT(lp_store_content_decode("\x01garbage-not-zstd", 17, &dec, &err), LP_ECORRUPT);
    lp_buf_reset(&raw);
    for (int i = 0; i < 1000; i++)
        lp_buf_puts(&raw, "abcdefgh");
    lp_store_content_encode(lp_buf_str(&raw), &enc);
    T_CHECK(enc.ptr[0] == 1);
    T_CHECK_INT(lp_store_content_decode(enc.ptr, enc.len - 3, &dec, &err), LP_ECORRUPT);
done:
    lp_buf_release(&raw);
    lp_buf_release(&enc);
    lp_buf_release(&dec);
}

T_TEST(store_symbol_ids_roundtrip)
{
    char id[LP_SYMBOL_ID_LEN];
    uint64_t ph = lp_symbol_path_hash(LP_STR("src/auth/session.ts"));
    uint64_t key = lp_symbol_key(LP_STR("SessionManager.refresh"), 11, 0);
    lp_symbol_id_format(ph, key, id);
    T_CHECK_INT(strlen(id), LP_SYMBOL_ID_LEN - 1);
    uint64_t a, b;
    T_CHECK(lp_symbol_id_parse(lp_str_c(id), &a, &b));
    T_CHECK(a == ph && b == key);
    T_CHECK(lp_symbol_key(LP_STR("SessionManager.refresh"), 11, 1) != key);
    T_CHECK(lp_symbol_key(LP_STR("SessionManager.refresh"), 10, 0) != key);
    T_CHECK(!lp_symbol_id_parse(LP_STR("sym:12"), &a, &b));
    T_CHECK(!lp_symbol_id_parse(LP_STR("sym:zzzzzzzzzzzzzzzzzzzzzzzz"), &a, &b));
    T_CHECK(!lp_symbol_id_parse(LP_STR("xyz:000000000000000000000000"), &a, &b));
done:;
}
