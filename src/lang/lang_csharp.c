/*
 * lang_csharp.c: placeholder hook (filled in later).
 */
#include "lang/lang_int.h"

const TSLanguage *tree_sitter_c_sharp(void);

static const char *const comments[] = {"comment", NULL};

const lp_lang_spec lp_spec_csharp = {
    .lang = LP_LANG_CSHARP,
    .query_name = "c-sharp",
    .ts_language = tree_sitter_c_sharp,
    .comment_types = comments,
};
