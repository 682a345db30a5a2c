/*
 * cmd_index.c: `loupe index`, `loupe sync`, `loupe reindex`.
 *
 * index = create (or sync when the root is already indexed); sync = reprocess what
 * changed; reindex = rebuild everything while the previous publication stays current.
 */
#include "cli/cli_int.h"

#include "api/api.h"

#include "index/index.h"

#include <getopt.h>
#include "core/json.h"
#include <signal.h>

static volatile int cancel_flag;

static void on_signal(int sig)
{
    (void)sig;
    cancel_flag = 1;
}

typedef struct progress_state {
    bool tty;
    bool drawn;
} progress_state;

static void draw_progress(void *ctx, const lp_index_progress *p)
{
    progress_state *ps = ctx;
    if (!ps->tty)
        return;
    double secs = (double)p->elapsed_ms / 1000.0;
    double mbps = secs > 0 ? (double)p->bytes_done / 1e6 / secs : 0;
    char eta[32] = "";
    if (p->files_total && p->files_done && p->files_done < p->files_total && secs > 0.5) {
        double rate = (double)p->files_done / secs;
        snprintf(eta, sizeof eta, "  ETA %.0fs", (double)(p->files_total - p->files_done) / rate);
    }
    fprintf(stderr, "\r\033[K  %-10s %llu/%llu files  %.1f MB/s%s", p->phase,
            (unsigned long long)p->files_done, (unsigned long long)p->files_total, mbps, eta);
    ps->drawn = true;
}

static json_t *report_json(const char *root, const lp_index_report *r)
{
    char merkle[LP_HASH_HEX];
    lp_hash128_hex(r->merkle, merkle);
    json_t *skips = json_object();
    for (int i = 1; i < LP_SKIP_COUNT; i++)
        if (r->skip_counts[i])
            json_object_set_new(skips, lp_skip_reason_name((lp_skip_reason)i),
                                json_integer((json_int_t)r->skip_counts[i]));
    json_t *j = lp_json_pack("{s:s, s:I, s:b, s:b, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I},"
                     " s:I, s:I, s:I, s:I, s:s, s:o, s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I}}",
                     "operation", lp_index_op_name(r->op), "publicationId",
                     (json_int_t)r->publication_id, "published", r->published, "partial",
                     r->partial, "files", "total", (json_int_t)r->files, "added",
                     (json_int_t)r->added, "changed", (json_int_t)r->changed, "deleted",
                     (json_int_t)r->deleted, "unchanged", (json_int_t)r->unchanged, "touched",
                     (json_int_t)r->touched, "parsed", (json_int_t)r->parsed, "reused",
                     (json_int_t)r->reused, "read", (json_int_t)r->files_read, "symbols", (json_int_t)r->symbols, "chunks",
                     (json_int_t)r->chunks, "bytes", (json_int_t)r->bytes_total, "bytesRead",
                     (json_int_t)r->bytes_read, "merkleRoot", merkle, "skipped", skips,
                     "timingMs", "scan", (json_int_t)r->ms_scan, "total",
                     (json_int_t)r->ms_total, "write", (json_int_t)r->ms_write, "graph",
                     (json_int_t)r->ms_graph, "collect", (json_int_t)r->ms_collect, "publish",
                     (json_int_t)r->ms_publish, "commit", (json_int_t)r->ms_commit);
    if (j)
        lp_json_set_path(j, "root", root, strlen(root));
    return j;
}

static void print_human(const char *root_bytes, const lp_index_report *r)
{
    lp_buf shown;
    lp_buf_init(&shown, 0);
    const char *root = lp_cli_path_text(root_bytes, &shown);
    if (r->published)
        printf("indexed %s: publication %lld (%s)%s\n", root, (long long)r->publication_id,
               lp_index_op_name(r->op), r->partial ? ", PARTIAL: limit reached" : "");
    else
        printf("%s is up to date: publication %lld, nothing changed\n", root,
               (long long)r->publication_id);
    printf("  files %llu (added %llu, changed %llu, deleted %llu, unchanged %llu)",
           (unsigned long long)r->files, (unsigned long long)r->added,
           (unsigned long long)r->changed, (unsigned long long)r->deleted,
           (unsigned long long)r->unchanged);
    printf("  parsed %llu, reused %llu\n", (unsigned long long)r->parsed,
           (unsigned long long)r->reused);
    printf("  symbols %llu, chunks %llu, %.1f MB; read %.1f MB in %.2f s\n",
           (unsigned long long)r->symbols, (unsigned long long)r->chunks,
           (double)r->bytes_total / 1e6, (double)r->bytes_read / 1e6,
           (double)r->ms_total / 1000.0);
    bool any = false;
    for (int i = 1; i < LP_SKIP_COUNT; i++) {
        if (!r->skip_counts[i])
            continue;
        printf("%s%llu %s", any ? ", " : "  skipped: ", (unsigned long long)r->skip_counts[i],
               lp_skip_reason_name((lp_skip_reason)i));
        any = true;
    }
    if (any)
        printf("\n");
    if (r->partial)
        printf("  the %s searchable-byte limit was reached; raise it with --max-total-bytes\n",
               "512 MiB");
    if (r->set_aside[0])
        printf("  the index database was damaged: it was moved to %s (attach it to a bug "
               "report, or delete it) and rebuilt from nothing\n",
               lp_cli_path_text(r->set_aside, &shown));
    lp_buf_release(&shown);
}

static int run_build(lp_index_op op, const char *name, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'},
        {"allow-broad-root", no_argument, NULL, 'b'},
        {"threads", required_argument, NULL, 't'},
        {"max-total-bytes", required_argument, NULL, 'm'},
        {"quiet", no_argument, NULL, 'q'},
        {NULL, 0, NULL, 0},
    };
    bool json = false, broad = false, quiet = false;
    uint64_t threads = 0, max_total = 0;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "jq", longopts, NULL)) != -1) {
        switch (c) {
        case 'j':
            json = true;
            break;
        case 'b':
            broad = true;
            break;
        case 'q':
            quiet = true;
            break;
        case 't':
            if (!lp_cli_parse_count(name, "--threads", optarg, 16, &threads))
                return LP_EXIT_USAGE;
            break;
        case 'm':
            if (!lp_cli_parse_count(name, "--max-total-bytes", optarg, UINT64_MAX / 2,
                                    &max_total))
                return LP_EXIT_USAGE;
            break;
        default:
            return lp_cli_unknown_option(name, lp_cli_getopt_bad_arg(argc, argv));
        }
    }
    if (argc - optind > 1)
        return lp_cli_usage_error(name, "takes one PATH, got %d", argc - optind);
    const char *path = optind < argc ? argv[optind] : ".";

    lp_error err = {0};
    lp_buf root;
    lp_buf_init(&root, 0);
    int code;
    lp_status rc = lp_cli_root_for(path, false, broad, &root, &err);
    if (rc) {
        code = lp_cli_fail(&err, json);
        goto done;
    }
    progress_state ps = {.tty = !quiet && !json && lp_cli_stderr_is_tty()};
    lp_index_opts opts = {.op = op,
                          .allow_broad_root = broad,
                          .max_total_bytes = max_total,
                          .threads = (unsigned)threads,
                          .progress = draw_progress,
                          .progress_ctx = &ps,
                          .cancel = &cancel_flag};
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    lp_index_report rep;
    rc = lp_engine_index_run(lp_cli_engine(), root.ptr, &opts, &rep, &err);
    if (ps.drawn)
        fprintf(stderr, "\r\033[K");
    if (rc == LP_ECANCELED) {
        /* Say what stays current: the reader's view did not move. */
        lp_index_status now;
        lp_error e2 = {0};
        if (lp_index_status_get(root.ptr, false, &now, &e2) == LP_OK && now.pub.id)
            lp_error_set(&err, LP_ECANCELED,
                         "interrupted: nothing was published; publication %lld of %s stays "
                         "current",
                         (long long)now.pub.id, root.ptr);
        else
            lp_error_set(&err, LP_ECANCELED, "interrupted: nothing was published for %s",
                         root.ptr);
    }
    if (rc) {
        code = lp_cli_fail(&err, json);
        goto done;
    }
    if (cancel_flag && rep.published)
        /* The interrupt came while the publication was being committed: too late to undo;
         * what is current is complete. Said, so the user knows which happened. */
        fprintf(stderr,
                "loupe: interrupted too late to cancel: publication %lld was already committed "
                "and is current (complete)\n",
                (long long)rep.publication_id);
    code = LP_EXIT_OK;
    if (json) {
        json_t *j = report_json(root.ptr, &rep);
        if (j) {
            json_object_set_new(j, "rebuilt", json_boolean(rep.rebuilt));
            if (rep.set_aside[0])
                json_object_set_new(j, "damagedFileKept", lp_json_textz(rep.set_aside));
        }
        code = lp_cli_print_json(j);
        json_decref(j);
    } else if (!quiet) {
        print_human(root.ptr, &rep);
    }
    if (rep.set_aside[0] && (json || quiet))
        fprintf(stderr, "loupe: the index database was damaged: moved to %s and rebuilt\n",
                rep.set_aside);
done:
    lp_buf_release(&root);
    return code;
}

static int run_index(int argc, char **argv) { return run_build(LP_INDEX_CREATE, "index", argc, argv); }
static int run_sync(int argc, char **argv) { return run_build(LP_INDEX_SYNC, "sync", argc, argv); }
static int run_reindex(int argc, char **argv)
{
    return run_build(LP_INDEX_REINDEX, "reindex", argc, argv);
}

#define BUILD_OPTIONS                                                                          \
    "options:\n"                                                                               \
    "  --json                 machine output (stable field names)\n"                           \
    "  --quiet, -q            no output on success\n"                                          \
    "  --threads N            parser threads (default: one per CPU)\n"                         \
    "  --max-total-bytes N    searchable bytes per publication (default 536870912 = 512 MiB;\n" \
    "                         past it the publication is partial, reported as limit_reached;\n" \
    "                         remembered for the root: later syncs keep it until a new one)\n" \
    "  --allow-broad-root     allow /, $HOME or the state folder as a root\n"                  \
    "Ctrl-C cancels: nothing is published, the previous publication stays current, and\n"    \
    "loupe says so (exit 1). An interrupt that arrives while the new publication is being\n" \
    "committed is too late to cancel: loupe says that the new publication (complete) is\n"    \
    "current, and exits 0.\n"

const lp_cli_cmd lp_cmd_index = {
    .name = "index",
    .summary = "index a repository (create, or sync if already indexed)",
    .usage = "usage: loupe index [PATH] [options]\n"
             "Index PATH (default: the current folder). The first run builds the index; later\n"
             "runs reprocess only files that were added, changed, deleted or renamed.\n" BUILD_OPTIONS,
    .run = run_index,
};

const lp_cli_cmd lp_cmd_sync = {
    .name = "sync",
    .summary = "bring an index up to date with the files on disk",
    .usage = "usage: loupe sync [PATH] [options]\n"
             "Reprocess only the files of PATH that were added, changed, deleted or renamed\n"
             "since the current publication. Publishes nothing when nothing changed.\n" BUILD_OPTIONS,
    .run = run_sync,
};

const lp_cli_cmd lp_cmd_reindex = {
    .name = "reindex",
    .summary = "rebuild an index from scratch (the old one serves until done)",
    .usage = "usage: loupe reindex [PATH] [options]\n"
             "Rebuild all evidence of PATH. Needed after a loupe upgrade changes the index\n"
             "format (status says requires_reindex). Readers keep the previous publication\n"
             "until the new one is complete.\n" BUILD_OPTIONS,
    .run = run_reindex,
};
