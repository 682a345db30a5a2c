/*
 * lang_scala.c: placeholder hook (filled in later).
 */
#include "lang/lang_int.h"

const TSLanguage *tree_sitter_scala(void);

static const char *const comments[] = {"comment", NULL};

const lp_lang_spec lp_spec_scala = {
    .lang = LP_LANG_SCALA,
    .query_name = "scala",
    .ts_language = tree_sitter_scala,
    .comment_types = comments,
};
