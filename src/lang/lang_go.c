/*
 * lang_go.c: placeholder hook (filled in later).
 */
#include "lang/lang_int.h"

const TSLanguage *tree_sitter_go(void);

static const char *const comments[] = {"comment", NULL};

const lp_lang_spec lp_spec_go = {
    .lang = LP_LANG_GO,
    .query_name = "go",
    .ts_language = tree_sitter_go,
    .comment_types = comments,
};
