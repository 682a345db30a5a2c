/*
 * fuzz_utf8.c: the UTF-8 helpers of src/core (lp_utf8_seq, lp_utf8_valid, lp_utf8_cut,
 * lp_utf8_put, lp_utf8_copy, lp_bytes_escape/unescape) and the JSON strings built on them
 * (lp_json_text, lp_json_set_path), for any bytes.
 *
 * Invariants checked: a cut of well-formed text at every byte offset is well-formed, never
 * longer than asked and at most 3 bytes shorter; a cut of any bytes never splits a
 * well-formed sequence; lp_utf8_put and lp_json_text always give well-formed UTF-8 without
 * NUL, equal to the input when it was already clean; the escaped form is UTF-8, gives the
 * bytes back, and lp_json_set_path adds it exactly when the bytes are not clean.
 */
#include "fuzz.h"

#include "core/json.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    lp_log_set_level(LP_LOG_OFF);
    return 0;
}

/* Well-formed UTF-8 without NUL, by a decoder independent of lp_utf8_seq. */
static bool clean(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n;) {
        uint32_t c = p[i], cp;
        size_t k;
        if (c == 0)
            return false;
        if (c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0xC2 && c <= 0xDF)
            k = 2, cp = c & 0x1F;
        else if (c >= 0xE0 && c <= 0xEF)
            k = 3, cp = c & 0x0F;
        else if (c >= 0xF0 && c <= 0xF4)
            k = 4, cp = c & 0x07;
        else
            return false;
        if (i + k > n)
            return false;
        for (size_t j = 1; j < k; j++) {
            if ((p[i + j] & 0xC0) != 0x80)
                return false;
            cp = cp << 6 | (p[i + j] & 0x3F);
        }
        if ((k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
            (cp >= 0xD800 && cp <= 0xDFFF))
            return false;
        i += k;
    }
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The invariants are local: the first MiB of a huge input (the replay driver's 100 MB
     * line) covers them, at a cost that stays small under ASan. */
    if (size > ((size_t)1 << 20))
        size = (size_t)1 << 20;
    const char *p = (const char *)data;
    bool was_clean = clean(data, size);
    LP_FUZZ_CHECK(lp_utf8_valid(p, size) == was_clean);
    size_t step = size > 4096 ? size / 512 : 1; /* every offset of small inputs */
    for (size_t max = 0; max <= size + 1; max += step) {
        size_t c = lp_utf8_cut(p, size, max);
        LP_FUZZ_CHECK(c <= size && c <= max);
        if (max < size)
            LP_FUZZ_CHECK(max - c <= 3);
        /* A prefix of well-formed text is well-formed iff it ends where a sequence starts
         * (checked whole for small inputs, at the cut for big ones). */
        if (was_clean && size <= 4096)
            LP_FUZZ_CHECK(clean(data, c));
        if (was_clean && c < size)
            LP_FUZZ_CHECK((data[c] & 0xC0) != 0x80);
        /* Never inside a well-formed sequence: the sequence that covers byte c (if any) starts
         * at c. */
        for (size_t back = 1; back <= 3 && back <= c && c < size; back++) {
            size_t k = lp_utf8_seq(p + c - back, size - (c - back));
            if (k)
                LP_FUZZ_CHECK(k <= back);
        }
    }
    lp_buf b;
    lp_buf_init(&b, 0);
    lp_utf8_put(&b, p, size);
    LP_FUZZ_CHECK(clean((const unsigned char *)b.ptr, b.len));
    if (was_clean)
        LP_FUZZ_CHECK(b.len == size && (size == 0 || memcmp(b.ptr, p, size) == 0));
    json_t *s = lp_json_text(p, size);
    LP_FUZZ_CHECK(s && json_string_length(s) == b.len &&
                  memcmp(json_string_value(s), b.ptr, b.len) == 0);
    json_decref(s);

    lp_buf e, back;
    lp_buf_init(&e, 0);
    lp_buf_init(&back, 0);
    lp_bytes_escape(&e, p, size);
    LP_FUZZ_CHECK(clean((const unsigned char *)e.ptr, e.len));
    LP_FUZZ_CHECK(lp_bytes_unescape(lp_buf_str(&e), &back, NULL) == LP_OK);
    LP_FUZZ_CHECK(back.len == size && (size == 0 || memcmp(back.ptr, p, size) == 0));
    json_t *o = json_object();
    lp_json_set_path(o, "path", p, size);
    LP_FUZZ_CHECK(json_is_string(json_object_get(o, "path")));
    LP_FUZZ_CHECK((json_object_get(o, "pathBytes") != NULL) == !was_clean);
    json_decref(o);

    char small[17];
    size_t n = lp_utf8_copy(small, sizeof small, size ? (const char *)b.ptr : "");
    LP_FUZZ_CHECK(n <= 16 && clean((const unsigned char *)small, n) && small[n] == '\0');
    lp_buf_release(&e);
    lp_buf_release(&back);
    lp_buf_release(&b);
    return 0;
}
