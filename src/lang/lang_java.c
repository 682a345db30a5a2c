/*
 * lang_java.c: placeholder hook (filled in later).
 */
#include "lang/lang_int.h"

const TSLanguage *tree_sitter_java(void);

static const char *const comments[] = {"comment", NULL};

const lp_lang_spec lp_spec_java = {
    .lang = LP_LANG_JAVA,
    .query_name = "java",
    .ts_language = tree_sitter_java,
    .comment_types = comments,
};
