/*
 * model_blob.c: the default embedding model, built into the binary.
 *
 * When models/loupe-static-v1.bin exists at build time its bytes are placed in .rodata
 * between lp_embed_blob_start and lp_embed_blob_end (the assembler's .incbin; the path is
 * relative to the top of the source tree, where make runs). Without the file the symbols
 * stay undefined and the weak references in model.c read as NULL: the binary then has no
 * default model and the dense channel reports itself absent. The Makefile makes this object
 * depend on the model file, so `make model` followed by `make` rebuilds the binary.
 */
#if defined(__has_include)
#if __has_include("../../models/loupe-static-v1.bin")
__asm__(".section .rodata\n"
        ".balign 64\n"
        ".globl lp_embed_blob_start\n"
        ".type lp_embed_blob_start, @object\n"
        "lp_embed_blob_start:\n"
        ".incbin \"models/loupe-static-v1.bin\"\n"
        ".globl lp_embed_blob_end\n"
        ".type lp_embed_blob_end, @object\n"
        "lp_embed_blob_end:\n"
        ".byte 0\n"
        ".previous\n");
#endif
#endif

/* ISO C forbids an empty translation unit. */
typedef int lp_embed_model_blob_unit;
