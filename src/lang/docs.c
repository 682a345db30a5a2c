/*
 * docs.c: placeholder.
 */
#include "lang/lang_int.h"

void lx_doc_sections(lp_lang lang, lp_str content, lp_arena *arena, lp_symbol **syms,
                     uint32_t **own_end, size_t *nsyms)
{
    (void)lang;
    (void)content;
    *syms = lp_arena_zalloc(arena, sizeof(lp_symbol));
    *own_end = lp_arena_zalloc(arena, sizeof(uint32_t));
    *nsyms = 0;
}
