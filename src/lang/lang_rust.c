/*
 * lang_rust.c: placeholder hook (filled in later).
 */
#include "lang/lang_int.h"

const TSLanguage *tree_sitter_rust(void);

static const char *const comments[] = {"comment", NULL};

const lp_lang_spec lp_spec_rust = {
    .lang = LP_LANG_RUST,
    .query_name = "rust",
    .ts_language = tree_sitter_rust,
    .comment_types = comments,
};
