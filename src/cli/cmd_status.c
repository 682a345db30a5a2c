/*
 * cmd_status.c: `loupe status [PATH]` and `loupe list`.
 */
#include "cli/cli_int.h"

#include "graph/graph.h"
#include "index/index.h"

#include <getopt.h>
#include "core/json.h"

static json_t *status_json(const char *root, const lp_index_status *s)
{
    json_t *j = json_object();
    lp_json_set_path(j, "root", root, strlen(root));
    json_object_set_new(j, "state", lp_json_textz(lp_index_state_name(s->state)));
    if (s->pub.id) {
        char when[32], merkle[LP_HASH_HEX];
        lp_format_iso8601(s->pub.created_ms, when);
        lp_hash128_hex(s->pub.merkle, merkle);
        json_object_set_new(
            j, "publication",
            lp_json_pack("{s:I, s:s, s:o, s:o, s:I, s:I, s:I, s:I, s:I, s:b, s:I, s:s}", "id",
                      (json_int_t)s->pub.id, "createdAt", when, "operation",
                      lp_json_textz(s->pub.op), "fingerprint",
                      lp_json_textz(s->pub.fingerprint.text), "files", (json_int_t)s->pub.files,
                      "bytes", (json_int_t)s->pub.bytes, "symbols", (json_int_t)s->pub.symbols,
                      "chunks", (json_int_t)s->pub.chunks, "skipped", (json_int_t)s->pub.skipped,
                      "partial", s->pub.partial, "durationMs", (json_int_t)s->pub.duration_ms,
                      "merkleRoot", merkle));
    } else {
        json_object_set_new(j, "publication", json_null());
    }
    if (s->freshness_checked)
        json_object_set_new(j, "freshness",
                            lp_json_pack("{s:s, s:I, s:I, s:I}", "state",
                                      (s->changed || s->added || s->deleted) ? "stale" : "fresh",
                                      "changed", (json_int_t)s->changed, "added",
                                      (json_int_t)s->added, "deleted", (json_int_t)s->deleted));
    if (s->lease.held) {
        char when[32];
        lp_format_iso8601(s->lease.started_ms, when);
        json_object_set_new(j, "writer",
                            lp_json_pack("{s:I, s:o, s:o, s:s, s:I, s:I}", "pid",
                                      (json_int_t)s->lease.pid, "operation",
                                      lp_json_textz(s->lease.op), "phase",
                                      lp_json_textz(s->lease.phase), "startedAt", when, "filesDone",
                                      (json_int_t)s->lease.files_done, "filesTotal",
                                      (json_int_t)s->lease.files_total));
    }
    json_t *skips = json_object();
    for (int i = 1; i < LP_SKIP_COUNT; i++)
        if (s->skip_counts[i])
            json_object_set_new(skips, lp_skip_reason_name((lp_skip_reason)i),
                                json_integer((json_int_t)s->skip_counts[i]));
    json_object_set_new(j, "skipped", skips);
    if (s->state == LP_STATE_DAMAGED)
        json_object_set_new(j, "damage", lp_json_textz(s->damage));
    return j;
}

static void status_human(const char *root_bytes, const lp_index_status *s)
{
    lp_buf shown;
    lp_buf_init(&shown, 0);
    const char *root = lp_cli_path_text(root_bytes, &shown);
    printf("%s: %s\n", root, lp_index_state_name(s->state));
    if (s->pub.id) {
        char when[32];
        lp_format_iso8601(s->pub.created_ms, when);
        printf("  publication %lld (%s) at %s%s\n", (long long)s->pub.id, s->pub.op, when,
               s->pub.partial ? ", PARTIAL (limit reached)" : "");
        printf("  %lld files, %.1f MB, %lld symbols, %lld chunks, %lld skipped\n",
               (long long)s->pub.files, (double)s->pub.bytes / 1e6, (long long)s->pub.symbols,
               (long long)s->pub.chunks, (long long)s->pub.skipped);
    }
    if (s->freshness_checked) {
        if (s->changed || s->added || s->deleted)
            printf("  stale: %llu changed, %llu added, %llu deleted since the publication "
                   "(e.g. %s); run 'loupe sync'\n",
                   (unsigned long long)s->changed, (unsigned long long)s->added,
                   (unsigned long long)s->deleted, lp_cli_q(s->sample_changed));
        else
            printf("  fresh: no file changed since the publication\n");
    }
    if (s->lease.held)
        printf("  a writer is live: pid %ld, %s, %s %llu/%llu files\n", s->lease.pid,
               s->lease.op, s->lease.phase, (unsigned long long)s->lease.files_done,
               (unsigned long long)s->lease.files_total);
    if (s->state == LP_STATE_REQUIRES_REINDEX) {
        char why[LP_ERROR_MSG_MAX * 2];
        lp_fingerprint_explain(&s->pub, root, false, why, sizeof why);
        printf("  %s\n", why);
    }
    if (s->state == LP_STATE_NOT_INDEXED)
        printf("  run 'loupe index %s' to index it\n", root);
    if (s->state == LP_STATE_DAMAGED)
        printf("  the index database is damaged (%s); nothing is served from it. Run 'loupe "
               "reindex %s' to rebuild it (the damaged file is kept aside)\n",
               s->damage, root);
    lp_buf_release(&shown);
}

/* The code graph: totals of the publication and the per-language capability table. */
static json_t *graph_json(const char *root, const lp_index_status *s)
{
    json_t *g = json_object();
    if (s->pub.id && s->state != LP_STATE_REQUIRES_REINDEX && s->state != LP_STATE_DAMAGED) {
        lp_store *st = NULL;
        lp_graph_totals t;
        if (!lp_store_open(root, LP_STORE_READ, &st, NULL) && !lp_store_pin(st, NULL) &&
            !lp_graph_totals_get(st, &t, NULL)) {
            json_t *e = json_object();
            for (int k = 0; k < LP_EDGE_KIND_COUNT; k++)
                if (k != LP_EDGE_CONTAINS)
                    json_object_set_new(e, lp_edge_kind_name((lp_edge_kind)k),
                                        json_integer((json_int_t)t.edges[k]));
            json_object_set_new(g, "edges", e);
            json_object_set_new(g, "ambiguousReferences", json_integer((json_int_t)t.ambiguous_refs));
            json_object_set_new(g, "unresolvedCalls", json_integer((json_int_t)t.unresolved_calls));
            json_object_set_new(g, "references", json_integer((json_int_t)t.refs));
        }
        if (st)
            lp_store_unpin(st);
        lp_store_close(st);
    }
    json_object_set_new(g, "capabilities", lp_graph_caps_json());
    return g;
}

static void graph_human(const json_t *g)
{
    const json_t *e = json_object_get(g, "edges");
    if (e)
        printf("  graph: %lld calls, %lld imports, %lld exports, %lld tests edges; %lld ambiguous "
               "references, %lld unresolved calls, %lld references in all\n",
               (long long)json_integer_value(json_object_get(e, "calls")),
               (long long)json_integer_value(json_object_get(e, "imports")),
               (long long)json_integer_value(json_object_get(e, "exports")),
               (long long)json_integer_value(json_object_get(e, "tests")),
               (long long)json_integer_value(json_object_get(g, "ambiguousReferences")),
               (long long)json_integer_value(json_object_get(g, "unresolvedCalls")),
               (long long)json_integer_value(json_object_get(g, "references")));
    printf("  graph capabilities (edges the rules can prove; absent edges prove nothing):\n");
    printf("    %-11s %-6s %-8s %-8s %-6s %s\n", "language", "calls", "imports", "exports", "tests",
           "contains");
    size_t i;
    const json_t *c;
    json_array_foreach(json_object_get(g, "capabilities"), i, c)
    {
        const char *yn[2] = {"-", "yes"};
        printf("    %-11s %-6s %-8s %-8s %-6s %s\n",
               json_string_value(json_object_get(c, "language")),
               yn[json_is_true(json_object_get(c, "calls"))],
               yn[json_is_true(json_object_get(c, "imports"))],
               yn[json_is_true(json_object_get(c, "exports"))],
               yn[json_is_true(json_object_get(c, "tests"))],
               yn[json_is_true(json_object_get(c, "contains"))]);
    }
}

static int run_status(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},
        {"no-fresh", no_argument, NULL, 'n'},
        {NULL, 0, NULL, 0},
    };
    bool json = false, fresh = true;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "j", longopts, NULL)) != -1) {
        if (c == 'j')
            json = true;
        else if (c == 'n')
            fresh = false;
        else
            return lp_cli_unknown_option("status", lp_cli_getopt_bad_arg(argc, argv));
    }
    if (argc - optind > 1)
        return lp_cli_usage_error("status", "takes one PATH, got %d", argc - optind);
    lp_error err = {0};
    lp_buf root;
    lp_buf_init(&root, 0);
    int code = LP_EXIT_OK;
    lp_status rc = lp_cli_root_for(optind < argc ? argv[optind] : NULL, true, false, &root, &err);
    lp_index_status s;
    memset(&s, 0, sizeof s);
    if (rc == LP_ENOTINDEXED) {
        /* Not under any indexed root: say so in the normal format. */
        lp_buf_reset(&root);
        rc = lp_cli_root_for(optind < argc ? argv[optind] : NULL, false, true, &root, &err);
        if (rc) {
            code = lp_cli_fail(&err, json);
            goto done;
        }
        s.state = LP_STATE_NOT_INDEXED;
    } else if (rc) {
        code = lp_cli_fail(&err, json);
        goto done;
    } else if ((rc = lp_index_status_get(root.ptr, fresh, &s, &err))) {
        code = lp_cli_fail(&err, json);
        goto done;
    }
    json_t *graph = graph_json(root.ptr, &s);
    if (json) {
        json_t *j = status_json(root.ptr, &s);
        json_object_set_new(j, "graph", graph);
        graph = NULL;
        code = lp_cli_print_json(j);
        json_decref(j);
    } else {
        status_human(root.ptr, &s);
        graph_human(graph);
    }
    json_decref(graph);
    code = s.state == LP_STATE_NOT_INDEXED   ? LP_EXIT_NOT_INDEXED
           : s.state == LP_STATE_REQUIRES_REINDEX || s.state == LP_STATE_DAMAGED
               ? LP_EXIT_REINDEX
                                             : LP_EXIT_OK;
done:
    lp_buf_release(&root);
    return code;
}

static int run_list(int argc, char **argv)
{
    bool json = argc > 1 && !strcmp(argv[1], "--json");
    if (argc > (json ? 2 : 1))
        return lp_cli_usage_error("list", "takes no arguments besides --json");
    lp_error err = {0};
    lp_root_entry *roots = NULL;
    size_t n = 0;
    if (lp_store_list_roots(&roots, &n, &err))
        return lp_cli_fail(&err, json);
    json_t *arr = json_array();
    lp_buf shown;
    lp_buf_init(&shown, 0);
    int code = LP_EXIT_OK;
    for (size_t i = 0; i < n; i++) {
        lp_index_status s;
        lp_error e2 = {0};
        if (lp_index_status_get(roots[i].root, false, &s, &e2)) {
            if (json) {
                json_t *f = lp_json_pack("{s:s, s:o}", "state", "failed", "error",
                                         lp_json_textz(e2.msg));
                if (f)
                    lp_json_set_path(f, "root", roots[i].root, strlen(roots[i].root));
                json_array_append_new(arr, f);
            } else {
                printf("%-10s %s (%s)\n", "failed", lp_cli_path_text(roots[i].root, &shown),
                       e2.msg);
            }
            continue;
        }
        if (json) {
            json_array_append_new(arr, status_json(roots[i].root, &s));
        } else {
            printf("%-17s %s", lp_index_state_name(s.state),
                   lp_cli_path_text(roots[i].root, &shown));
            if (s.pub.id)
                printf("  (publication %lld, %lld files)", (long long)s.pub.id,
                       (long long)s.pub.files);
            printf("\n");
        }
    }
    if (json) {
        json_t *j = lp_json_pack("{s:o}", "codebases", arr);
        code = lp_cli_print_json(j);
        json_decref(j);
    } else {
        json_decref(arr);
        if (n == 0)
            printf("no indexed roots; run 'loupe index PATH'\n");
    }
    lp_buf_release(&shown);
    lp_store_roots_free(roots, n);
    return code;
}

static int run_clear(int argc, char **argv)
{
    bool json = false;
    const char *path = NULL;
    bool opts_done = false;
    for (int i = 1; i < argc; i++) {
        if (!opts_done && !strcmp(argv[i], "--"))
            opts_done = true;
        else if (!opts_done && !strcmp(argv[i], "--json"))
            json = true;
        else if (!opts_done && argv[i][0] == '-')
            return lp_cli_unknown_option("clear", argv[i]);
        else if (!path)
            path = argv[i];
        else
            return lp_cli_usage_error("clear", "takes one PATH");
    }
    if (!path)
        return lp_cli_usage_error("clear", "needs the PATH of the indexed root to clear");
    lp_error err = {0};
    lp_buf root;
    lp_buf_init(&root, 0);
    int code = LP_EXIT_OK;
    /* The root itself (it may not exist on disk any more: fall back to the given text). */
    lp_status rc = lp_path_real(path, &root, &err);
    if (rc == LP_ENOENT) {
        rc = lp_path_normalize(lp_str_c(path), &root, &err);
    }
    if (!rc)
        rc = lp_store_clear(root.ptr, &err);
    if (rc) {
        code = lp_cli_fail(&err, json);
    } else if (json) {
        json_t *j = lp_json_pack("{s:s}", "state", "not_indexed");
        lp_json_set_path(j, "root", root.ptr, root.len);
        code = lp_cli_print_json(j);
        json_decref(j);
    } else {
        printf("cleared the index of %s\n", lp_cli_q(root.ptr));
    }
    lp_buf_release(&root);
    return code;
}

const lp_cli_cmd lp_cmd_status = {
    .name = "status",
    .summary = "state of the index that contains PATH (ready, stale, ...)",
    .usage = "usage: loupe status [PATH] [--json] [--no-fresh]\n"
             "State of the indexed root containing PATH (default: the current folder):\n"
             "not_indexed, indexing, ready, stale (files changed since the publication),\n"
             "requires_reindex. --no-fresh skips the walk that detects changed files.\n"
             "Exit code 3 when not indexed, 4 when a reindex is required.\n",
    .run = run_status,
};

const lp_cli_cmd lp_cmd_list = {
    .name = "list",
    .summary = "list indexed roots and their state",
    .usage = "usage: loupe list [--json]\n",
    .run = run_list,
};

const lp_cli_cmd lp_cmd_clear = {
    .name = "clear",
    .summary = "remove a root's index (explicit; nothing else ever deletes it)",
    .usage = "usage: loupe clear PATH [--json]\n"
             "Remove every trace of PATH's index from the state folder. Refused while a\n"
             "writer is running on it.\n",
    .run = run_clear,
};
