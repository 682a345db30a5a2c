/*
 * fts5.c: the "loupe" FTS5 tokenizer, a thin wrapper over lp_text_tokenize.
 *
 * Options (after the name in tokenize='loupe ...'):
 *   stem   also emit the stemmed form of each part, colocated with it, so "parsing",
 *          "parses" and "parsed" all meet "parse" (the literal form stays, for exact and
 *          phrase matches).
 * Document and query text go through the same path, so a query token always meets its
 * document form; the whole identifier is emitted colocated with its first part
 * ("getUserName" -> get, getusername, user, name), so both `"getusername"` and the phrase
 * `"get user name"` match.
 */
#include "text/text.h"

#include <sqlite3.h>

typedef struct loupe_tok {
    lp_text_tokenizer *tk;
    bool stem;
} loupe_tok;

typedef struct tok_ctx {
    void *fts_ctx;
    int (*xToken)(void *, int, const char *, int, int, int);
    bool stem;
} tok_ctx;

static int on_token(void *ctx, const lp_text_token *t)
{
    tok_ctx *c = ctx;
    int flags = (t->flags & LP_TEXT_TOK_COLOCATED) ? FTS5_TOKEN_COLOCATED : 0;
    int rc = c->xToken(c->fts_ctx, flags, t->text, (int)t->len, (int)t->start, (int)t->end);
    if (rc || !c->stem || (t->flags & (LP_TEXT_TOK_WHOLE | LP_TEXT_TOK_NUMBER | LP_TEXT_TOK_CJK)))
        return rc;
    char stem[LP_TEXT_TOKEN_MAX + 1];
    size_t n = lp_text_stem((lp_str){t->text, t->len}, stem);
    if (n && (n != t->len || memcmp(stem, t->text, n) != 0))
        rc = c->xToken(c->fts_ctx, FTS5_TOKEN_COLOCATED, stem, (int)n, (int)t->start,
                       (int)t->end);
    return rc;
}

static int x_create(void *unused, const char **argv, int argc, Fts5Tokenizer **out)
{
    (void)unused;
    loupe_tok *t = lp_xcalloc(1, sizeof *t);
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "stem")) {
            t->stem = true;
        } else {
            free(t);
            return SQLITE_ERROR;
        }
    }
    t->tk = lp_text_tokenizer_new(LP_TEXT_CODE);
    *out = (Fts5Tokenizer *)t;
    return SQLITE_OK;
}

static void x_delete(Fts5Tokenizer *p)
{
    loupe_tok *t = (loupe_tok *)p;
    if (!t)
        return;
    lp_text_tokenizer_free(t->tk);
    free(t);
}

static int x_tokenize(Fts5Tokenizer *p, void *ctx, int flags, const char *text, int n,
                      int (*xToken)(void *, int, const char *, int, int, int))
{
    (void)flags;
    loupe_tok *t = (loupe_tok *)p;
    tok_ctx c = {ctx, xToken, t->stem};
    return lp_text_tokenize(t->tk, (lp_str){text ? text : "", n > 0 ? (size_t)n : 0}, on_token,
                            &c);
}

int lp_text_fts5_api(sqlite3 *db, fts5_api **out)
{
    fts5_api *api = NULL;
    sqlite3_stmt *s = NULL;
    *out = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &s, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_bind_pointer(s, 1, (void *)&api, "fts5_api_ptr", NULL);
    sqlite3_step(s);
    rc = sqlite3_finalize(s);
    if (rc != SQLITE_OK || !api)
        return rc ? rc : SQLITE_ERROR;
    *out = api;
    return SQLITE_OK;
}

int lp_text_fts5_register(sqlite3 *db)
{
    fts5_api *api;
    int rc = lp_text_fts5_api(db, &api);
    if (rc != SQLITE_OK)
        return rc;
    static fts5_tokenizer tok = {x_create, x_delete, x_tokenize};
    return api->xCreateTokenizer(api, "loupe", NULL, &tok, NULL);
}
