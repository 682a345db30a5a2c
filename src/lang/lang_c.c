/*
 * lang_c.c: placeholder hook (filled in later).
 */
#include "lang/lang_int.h"

const TSLanguage *tree_sitter_c(void);

static const char *const comments[] = {"comment", NULL};

const lp_lang_spec lp_spec_c = {
    .lang = LP_LANG_C,
    .query_name = "c",
    .ts_language = tree_sitter_c,
    .comment_types = comments,
};
