/*
 * cmd_search.c: `loupe search QUERY`.
 */
#include "cli/cli_int.h"
#include "core/settings.h"

#include "api/api.h"
#include "index/index.h"
#include "search/search.h"

#include "core/json.h"
#include <math.h>

#define FROZEN_MIN 50u
#define STDIN_QUERY_MAX ((size_t)1 << 20) /* --stdin reads at most this */

static json_t *channels_json(uint32_t ch)
{
    const char *names[LP_CH_COUNT];
    size_t n = lp_search_channel_names(ch, names);
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(a, lp_json_textz(names[i]));
    return a;
}

/* The members of a file group (file view): its best owners, best first. */
static json_t *members_json(const lp_search_group *g)
{
    json_t *arr = json_array();
    for (uint32_t i = 0; i < g->nmembers; i++) {
        const lp_search_member *m = &g->members[i];
        json_t *o = lp_json_pack(
            "{s:o, s:o, s:o, s:o, s:i, s:i, s:f, s:i}", "id",
            m->owner.id[0] ? lp_json_textz(m->owner.id) : json_null(), "symbol",
            lp_json_textz(m->owner.symbol), "qualifiedName", lp_json_textz(m->owner.qname),
            "kind", lp_json_textz(m->owner.kind ? m->owner.kind : ""), "startLine",
            (int)m->owner.start_line, "endLine", (int)m->owner.end_line, "score", m->score,
            "ownerRank", (int)m->rank);
        if (o)
            json_array_append_new(arr, o);
    }
    return arr;
}

json_t *lp_cli_search_results_json(const char *root, const lp_search_group *groups, size_t from,
                                   size_t n)
{
    json_t *arr = json_array();
    for (size_t i = from; i < from + n; i++) {
        const lp_search_group *g = &groups[i];
        /* Text from the index goes through lp_json_text (any bytes), the file through
         * lp_json_set_path (adds fileBytes when the name is not UTF-8): nothing here can make
         * a pack fail, and no argument is used again after a pack consumed it. */
        json_t *owner = lp_json_pack(
            "{s:o, s:o, s:o, s:o, s:i, s:i}", "id",
            g->owner.id[0] ? lp_json_textz(g->owner.id) : json_null(), "symbol",
            lp_json_textz(g->owner.symbol), "qualifiedName", lp_json_textz(g->owner.qname),
            "kind", lp_json_textz(g->owner.kind ? g->owner.kind : ""), "startLine",
            (int)g->owner.start_line, "endLine", (int)g->owner.end_line);
        if (owner)
            lp_json_set_path(owner, "file", g->owner.file ? g->owner.file : "",
                             g->owner.file ? strlen(g->owner.file) : 0);
        json_t *r = lp_json_pack("{s:i, s:o, s:f, s:o, s:o, s:i}", "rank", (int)g->rank, "owner",
                                 owner, "score", g->score, "channels",
                                 channels_json(g->channels), "snippet",
                                 lp_json_textz(g->snippet ? g->snippet : ""), "snippetStartLine",
                                 (int)g->snippet_start_line);
        if (!r)
            continue; /* recorded: the command reports it instead of printing */
        lp_search_group_surface_json(r, root, g);
        if (g->nmembers || g->listed) {
            lp_json_set_path(r, "file", g->owner.file ? g->owner.file : "",
                             g->owner.file ? strlen(g->owner.file) : 0);
            json_object_set_new(r, "owners", members_json(g));
            json_object_set_new(r, "fileOwners", json_integer(g->nfile_owners));
        }
        if (g->listed)
            json_object_set_new(r, "fileSize", json_integer((json_int_t)g->file_size));
        json_array_append_new(arr, r);
    }
    return arr;
}

json_t *lp_cli_pagination_json(size_t offset, size_t shown, size_t frozen, const char *handle)
{
    bool complete = !handle || !*handle;
    return lp_json_pack("{s:I, s:I, s:I, s:b, s:s?}", "offset", (json_int_t)offset, "shown",
                     (json_int_t)shown, "frozen", (json_int_t)frozen, "complete", complete,
                     "continuation", complete ? NULL : handle);
}

/* "  [vendored, generated]  (+2 copies: a, b)" and the end of the result's first line. */
static void print_roles(const lp_search_group *g, lp_buf *path)
{
    const char *names[LP_ROLE_NAMES_MAX];
    size_t nroles = lp_search_role_names(g->roles, names);
    for (size_t i = 0; i < nroles; i++)
        printf("%s%s%s", i ? ", " : "  [", names[i], i + 1 == nroles ? "]" : "");
    if (g->ndups) {
        printf("  (+%u cop%s:", g->ndups, g->ndups == 1 ? "y" : "ies");
        for (uint32_t i = 0; i < g->ndup_paths; i++)
            printf("%s %s", i ? "," : "", lp_cli_path_text(g->dup_paths[i], path));
        printf("%s)", g->ndups > g->ndup_paths ? ", ..." : "");
    }
    printf("\n");
}

void lp_cli_search_print(const lp_search_group *groups, size_t from, size_t n)
{
    lp_buf path, what_b, line;
    lp_buf_init(&path, 0);
    lp_buf_init(&what_b, 0);
    lp_buf_init(&line, 0);
    for (size_t i = from; i < from + n; i++) {
        const lp_search_group *g = &groups[i];
        if (g->listed || g->nmembers) {
            /* A file: a listing (filters only: its size and first top-level symbols) or
             * the file view (its score and best owners), then one owner a line. */
            printf("%u. %s  (", g->rank, lp_cli_path_text(g->owner.file, &path));
            if (g->listed)
                printf("%u lines, %llu bytes, %u top-level symbol%s)", g->owner.end_line,
                       (unsigned long long)g->file_size, g->nfile_owners,
                       g->nfile_owners == 1 ? "" : "s");
            else
                printf("%.2f, %u owner%s)", g->score, g->nfile_owners,
                       g->nfile_owners == 1 ? "" : "s");
            printf("%s\n", g->deleted ? "  [stale: file deleted since indexing]"
                           : g->stale ? "  [stale: file changed since indexing]"
                                      : "");
            for (uint32_t k = 0; k < g->nmembers; k++) {
                const lp_search_owner *ow = &g->members[k].owner;
                const char *name = ow->qname ? ow->qname : ow->symbol ? ow->symbol : "";
                printf("    %u-%u  %s %s", ow->start_line, ow->end_line,
                       ow->kind ? ow->kind : "file", lp_cli_text(name, strlen(name), &what_b));
                if (!g->listed)
                    printf("  (%.2f)", g->members[k].score);
                printf("\n");
            }
            if (g->listed && g->nfile_owners > g->nmembers)
                printf("    ... %u more\n", g->nfile_owners - g->nmembers);
            continue;
        }
        const char *what = g->live                            ? "region"
                           : g->breadcrumbs && *g->breadcrumbs ? g->breadcrumbs
                           : g->owner.qname                    ? g->owner.qname
                                                               : "";
        /* A file name that is not UTF-8 in its escaped form, text with U+FFFD. */
        printf("%u. %s:%u-%u  %s %s  (%.2f)%s", g->rank,
               lp_cli_path_text(g->owner.file, &path), g->owner.start_line, g->owner.end_line,
               g->live ? "live" : g->owner.kind, lp_cli_text(what, strlen(what), &what_b),
               g->score,
               g->live          ? "  [live: current text on disk, not indexed]"
               : g->deleted     ? "  [stale: file deleted since indexing]"
               : g->stale       ? "  [stale: file changed since indexing]"
               : g->text_reason ? "  [indexed as text: parse_budget]"
                                : "");
        print_roles(g, &path);
        for (const char *p = g->snippet ? g->snippet : ""; *p;) {
            const char *nl = strchr(p, '\n');
            size_t len = nl ? (size_t)(nl - p) : strlen(p);
            lp_buf_reset(&line);
            lp_utf8_put(&line, p, len);
            printf("    %s\n", line.ptr);
            p += len + (nl ? 1 : 0);
        }
    }
    lp_buf_release(&path);
    lp_buf_release(&what_b);
    lp_buf_release(&line);
}

void lp_cli_more_hint(size_t left, const char *handle)
{
    if (handle && *handle)
        printf("(%zu more: loupe more %s)\n", left, handle);
}

static int run(int argc, char **argv)
{
    /* Options may come anywhere; every other word is query text (query operators such as
     * -path:GLOB start with '-' too, so unknown words are never taken for options). "--"
     * makes every later word query text. */
    bool json = false, from_stdin = false;
    uint64_t limit = 10;
    const char *root_arg = NULL, *scope_arg = "runtime", *group_arg = "owner";
    LP_VEC(const char *) words = {0};
    bool opts_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done) {
            lp_vec_push(&words, a);
        } else if (!strcmp(a, "--")) {
            opts_done = true;
        } else if (!strcmp(a, "--json") || !strcmp(a, "-j")) {
            json = true;
        } else if (!strcmp(a, "--stdin")) {
            from_stdin = true;
        } else if (!strcmp(a, "--limit") || !strcmp(a, "-n") || !strcmp(a, "--scope") ||
                   !strcmp(a, "--path") || !strcmp(a, "--group")) {
            if (i + 1 >= argc) {
                lp_vec_free(&words);
                return lp_cli_usage_error("search", "%s needs a value", a);
            }
            const char *v = argv[++i];
            if (a[1] == 'n' || !strcmp(a, "--limit")) {
                if (!lp_cli_parse_count("search", "--limit", v, 200, &limit)) {
                    lp_vec_free(&words);
                    return LP_EXIT_USAGE;
                }
            } else if (!strcmp(a, "--scope")) {
                scope_arg = v;
            } else if (!strcmp(a, "--group")) {
                group_arg = v;
            } else {
                root_arg = v;
            }
        } else if (!strncmp(a, "--", 2)) {
            lp_vec_free(&words);
            return lp_cli_usage_error("search", "unknown option '%s' (put '--' before query "
                                                "words that start with '--')",
                                      a);
        } else {
            lp_vec_push(&words, a);
        }
    }
    /* --stdin: the question is (also) the text on standard input: a pasted issue, stack
     * trace or log longer than the command line allows. Read up to STDIN_QUERY_MAX bytes;
     * the parser keeps the first LP_QUERY_MAX_BYTES and says so. */
    lp_buf piped;
    lp_buf_init(&piped, STDIN_QUERY_MAX);
    if (from_stdin) {
        char chunk[8192];
        size_t got;
        while (piped.len < STDIN_QUERY_MAX && (got = fread(chunk, 1, sizeof chunk, stdin)) > 0)
            lp_buf_append(&piped, chunk, LP_MIN(got, STDIN_QUERY_MAX - piped.len));
        if (ferror(stdin)) {
            lp_vec_free(&words);
            lp_buf_release(&piped);
            return lp_cli_usage_error("search", "--stdin: cannot read standard input");
        }
    }
    if (words.len == 0 && lp_str_trim(lp_buf_str(&piped)).len == 0) {
        lp_vec_free(&words);
        lp_buf_release(&piped);
        return lp_cli_usage_error("search", from_stdin ? "needs a QUERY (standard input was empty)"
                                                       : "needs a QUERY");
    }
    lp_search_grouping grouping = LP_GROUP_OWNER;
    {
        lp_error gerr = {0};
        if (lp_search_grouping_parse(lp_str_c(group_arg), &grouping, &gerr)) {
            lp_vec_free(&words);
            lp_buf_release(&piped);
            return lp_cli_usage_error("search", "--group: %s", gerr.msg);
        }
    }
    /* The query is every remaining argument, so quoting is optional. */
    lp_buf query;
    lp_buf_init(&query, 0); /* any length: the parser cuts past LP_QUERY_MAX_BYTES and says so */
    for (size_t i = 0; i < words.len; i++) {
        if (i)
            lp_buf_putc(&query, ' ');
        lp_buf_puts(&query, words.items[i]);
    }
    if (piped.len) {
        if (query.len)
            lp_buf_putc(&query, '\n');
        lp_buf_append(&query, piped.ptr, strlen(piped.ptr)); /* a NUL ends the text */
    }
    lp_buf_release(&piped);
    lp_vec_free(&words);
    lp_error err = {0};
    lp_buf root;
    lp_buf_init(&root, 0);
    lp_arena arena;
    lp_arena_init(&arena, 0);
    int code = LP_EXIT_OK;
    /* The search freezes up to FROZEN_MIN groups (more when --limit asks for more) and
     * shows --limit of them; `loupe more HANDLE` shows the rest. */
    lp_search_request req = {.query = query.ptr,
                             .limit = (uint32_t)LP_MAX(limit, (uint64_t)FROZEN_MIN),
                             .group = grouping};
    lp_buf handle;
    lp_buf_init(&handle, 0);
    lp_status rc = lp_search_scope_parse(lp_str_c(scope_arg), &req.scope, &err);
    if (!rc)
        rc = lp_cli_root_for(root_arg, true, false, &root, &err);
    lp_search_result res;
    bool no_continuation = false; /* more results, but no handle for them */
    /* open, pin, check the publication, search, freeze: one engine call */
    if (!rc)
        rc = lp_engine_search_run(lp_cli_engine(), root.ptr, &req, (uint32_t)limit, &arena, &res,
                                  &handle, &no_continuation, &err);
    if (rc) {
        code = lp_cli_fail(&err, json);
        goto done;
    }
    size_t shown = LP_MIN(res.ngroups, (size_t)limit);
    if (json) {
        json_t *warnings = json_array();
        for (size_t i = 0; i < res.nwarnings; i++)
            json_array_append_new(warnings, lp_json_textz(res.warnings[i]));
        json_t *j = lp_json_pack("{s:I, s:o, s:o, s:o, s:f}",
                              "publicationId", (json_int_t)res.publication_id, "results",
                              lp_cli_search_results_json(root.ptr, res.groups, 0, shown),
                              "warnings", warnings, "pagination",
                              lp_cli_pagination_json(0, shown, res.ngroups, handle.ptr),
                              "timingMs", round(res.timing_ms * 100.0) / 100.0);
        if (j)
            lp_json_set_path(j, "codebaseRoot", root.ptr, root.len);
        char iso[32];
        lp_format_iso8601(res.published_ms, iso);
        json_object_set_new(j, "publishedAt", lp_json_textz(iso));
        json_object_set_new(j, "staleResults", json_integer(res.nstale));
        json_object_set_new(j, "liveResults", json_integer(res.nlive));
        json_object_set_new(j, "groupBy", lp_json_textz(lp_search_grouping_name(res.group)));
        json_object_set_new(j, "confidence", json_real(round(res.confidence * 1000.0) / 1000.0));
        if (lp_setting_bool(LP_SET_SEARCH_FEATURES)) { /* for bench/quality/confidence.py */
            json_t *f = json_object();
            const char *const *names = lp_search_conf_names();
            for (size_t i = 0; i < LP_CONF_NFEAT; i++)
                json_object_set_new(f, names[i], json_real(res.features[i]));
            json_object_set_new(j, "confidenceFeatures", f);
        }
        if (no_continuation)
            json_object_set_new(json_object_get(j, "pagination"), "complete", json_false());
        code = lp_cli_print_json(j);
        json_decref(j);
    } else {
        if (res.ngroups == 0) {
            /* A pasted issue is not echoed whole: its first line, cut to 80 bytes. */
            size_t n = strcspn(query.ptr, "\n");
            size_t cut = lp_utf8_cut(query.ptr, n, 80);
            printf("no results for '%.*s%s' in %s (publication %lld)\n", (int)cut, query.ptr,
                   cut < query.len ? "..." : "", lp_cli_q(root.ptr),
                   (long long)res.publication_id);
        }
        else
            printf("confidence %.2f%s%s\n", res.confidence,
                   res.confidence < lp_search_conf_threshold() ? " (no confident match)" : "",
                   res.group == LP_GROUP_FILE ? "; files, each with its best owners" : "");
        lp_cli_search_print(res.groups, 0, shown);
        lp_cli_more_hint(res.ngroups - shown, handle.ptr);
        for (size_t i = 0; i < res.nwarnings; i++)
            if (!lp_cli_warning_is(res.warnings[i], LP_WARN_DENSE_CHANNEL_ABSENT))
                printf("warning: %s\n", res.warnings[i]);
    }
done:
    lp_buf_release(&handle);
    lp_buf_release(&query);
    lp_buf_release(&root);
    lp_arena_release(&arena);
    return code;
}

const lp_cli_cmd lp_cmd_search = {
    .name = "search",
    .summary = "search the indexed repository for a question or identifier",
    .usage = "usage: loupe search QUERY... [--limit N] [--scope S] [--group G] [--path ROOT]\n"
             "       [--json] [--stdin]\n"
             "Search the indexed root containing the current folder (or --path). Results are\n"
             "grouped by owning symbol, best first, each with its span and a snippet.\n"
             "The search keeps up to max(50, N) results; when there are more than shown, it\n"
             "prints a continuation handle: 'loupe more HANDLE' shows the next ones.\n"
             "  --limit N     groups to show (default 10, max 200)\n"
             "  --scope S     runtime (default), tests, docs or mixed\n"
             "  --group G     owner (default: one result per owning symbol) or file (one\n"
             "                per file, ranked by its owners' evidence, with its best owners)\n"
             "  --stdin       the question is also the text on standard input (a pasted\n"
             "                issue, stack trace or log; the first 64 KiB are read)\n"
             "The answer starts with a confidence in [0, 1] that it holds what was asked for;\n"
             "below the threshold it warns no_confident_match.\n"
             "Query operators: path:GLOB, -path:GLOB, lang:L[,L], kind:K[,K], sym:NAME,\n"
             "regex:PATTERN (PCRE2; the matching lines with their owners, a grep over the\n"
             "index within 3 s; no words beside it),\n"
             "\"exact phrase\". Identifiers (camelCase, snake_case, a.b, a::b) are also\n"
             "looked up by name. Filters alone ('path:src/**/*.go', 'lang:rust', with\n"
             "kind:K to keep files defining such symbols) list the files they match in path\n"
             "order, with their lines, size and first top-level symbols.\n"
             "Each result shows its breadcrumbs (module > enclosing symbols > owner); results\n"
             "from files changed on disk since indexing are marked [stale]. With path:GLOB in\n"
             "the query, files it names that changed since indexing are read from disk and\n"
             "their matching lines shown first, marked [live] (not indexed until 'loupe sync').\n"
             "Files that are not the project's own code are labelled [test], [vendored],\n"
             "[generated], [minified], [locale], [example] or [meta] and ranked lower in the\n"
             "runtime scope; copies of one result are folded into it (+N copies: ...).\n",
    .run = run,
};
