/*
 * lang_cpp.c: placeholder hook (filled in later).
 */
#include "lang/lang_int.h"

const TSLanguage *tree_sitter_cpp(void);

static const char *const comments[] = {"comment", NULL};

const lp_lang_spec lp_spec_cpp = {
    .lang = LP_LANG_CPP,
    .query_name = "cpp",
    .ts_language = tree_sitter_cpp,
    .comment_types = comments,
};
