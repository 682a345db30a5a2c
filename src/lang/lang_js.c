/*
 * lang_js.c: placeholder hook (filled in later).
 */
#include "lang/lang_int.h"

const TSLanguage *tree_sitter_javascript(void);

static const char *const comments[] = {"comment", NULL};

const lp_lang_spec lp_spec_javascript = {
    .lang = LP_LANG_JAVASCRIPT,
    .query_name = "javascript",
    .ts_language = tree_sitter_javascript,
    .comment_types = comments,
};

const TSLanguage *tree_sitter_typescript(void);
const TSLanguage *tree_sitter_tsx(void);
const lp_lang_spec lp_spec_typescript = {
    .lang = LP_LANG_TYPESCRIPT,
    .query_name = "typescript",
    .ts_language = tree_sitter_typescript,
    .comment_types = comments,
};
const lp_lang_spec lp_spec_tsx = {
    .lang = LP_LANG_TSX,
    .query_name = "typescript",
    .ts_language = tree_sitter_tsx,
    .comment_types = comments,
};
