/* TEMPORARY PLACEHOLDER: lets main link until the lang branch merges (then deleted). Not the product. */
#include "lang/lang.h"
void lp_lang_init(void) {}
void lp_lang_thread_release(void) {}
const char *lp_lang_name(lp_lang l) { return l == LP_LANG_PYTHON ? "python" : l == LP_LANG_C ? "c" : "text"; }
lp_lang lp_lang_detect(lp_str p, lp_str head) { (void)head; lp_str e = lp_path_ext(p); if (lp_str_eq_c(e, ".py")) return LP_LANG_PYTHON; if (lp_str_eq_c(e, ".c") || lp_str_eq_c(e, ".h")) return LP_LANG_C; return LP_LANG_TEXT; }
const char *lp_symkind_name(lp_symkind k) { (void)k; return "function"; }
lp_status lp_parse(lp_lang lang, lp_str content, const lp_parse_opts *opts, lp_arena *arena, lp_parse_result *out, lp_error *err) {
    (void)opts; (void)err; memset(out, 0, sizeof *out); out->lang = lang;
    size_t cap = content.len / 200 + 2; out->chunks = lp_arena_alloc(arena, cap * sizeof(lp_chunk));
    size_t i = 0; uint32_t line = 1;
    while (i < content.len) { size_t s = i; uint32_t sl = line; int n = 0;
        while (i < content.len && n < 60) { if (content.ptr[i] == '\n') { n++; line++; } i++; }
        if (out->nchunks == cap) break;
        lp_chunk *c = &out->chunks[out->nchunks++]; c->owner = -1; c->kind = LP_CHUNK_TEXT;
        c->span = (lp_span){(uint32_t)s, (uint32_t)i, sl, line > sl ? line - (content.ptr[i-1]=='\n') : sl};
        c->text = lp_arena_strndup(arena, content.ptr + s, i - s); c->text_len = i - s; }
    return LP_OK;
}
