/*
 * words_blob.c: the catalog's word-vector model (models/catalog-words-v1.bin, made by
 * `make catalog-model`), built into the binary like src/embed/model_blob.c does for the code
 * model: its bytes sit in .rodata between lp_cat_words_blob_start and lp_cat_words_blob_end.
 * Without the file the symbols stay undefined, the weak references in words.c read as NULL,
 * and the word channel reports itself absent.
 */
#if defined(__has_include)
#if __has_include("../../models/catalog-words-v1.bin")
__asm__(".section .rodata\n"
        ".balign 64\n"
        ".globl lp_cat_words_blob_start\n"
        ".type lp_cat_words_blob_start, @object\n"
        "lp_cat_words_blob_start:\n"
        ".incbin \"models/catalog-words-v1.bin\"\n"
        ".globl lp_cat_words_blob_end\n"
        ".type lp_cat_words_blob_end, @object\n"
        "lp_cat_words_blob_end:\n"
        ".byte 0\n"
        ".previous\n");
#endif
#endif

/* ISO C forbids an empty translation unit. */
typedef int lp_cat_words_blob_unit;
