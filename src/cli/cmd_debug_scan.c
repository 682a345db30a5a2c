/*
 * cmd_debug_scan.c: `loupe debug-scan ROOT [--hash] [--json] [--list]` (hidden).
 *
 * Walks ROOT the way an index build does and reports what it found: files, bytes, folders,
 * counts per skip reason and the walk time; with --hash it also reads and hashes every
 * file (binary and limit checks included), and reports the read+hash throughput and the
 * Merkle root. Benchmarks (bench/scan.sh) and tests call it; it writes nothing.
 */
#include "cli/cli_int.h"
#include "core/settings.h"
#include "scan/scan.h"

#include "core/json.h"

typedef struct scan_run {
    const char *root;
    lp_scan_result res;
    double walk_ms;
    double hash_ms;
    uint64_t hashed_files;
    uint64_t hashed_bytes;
    lp_hash128 merkle;
    lp_skip_reason *read_skip; /* per entry, with --hash */
} scan_run;

static const char usage_text[] =
    "usage: loupe debug-scan ROOT [--hash] [--json] [--list] [--no-default-ignores]\n"
    "                        [--allow-broad-root]\n"
    "\n"
    "Walk ROOT with loupe's ignore rules and print what an index build would see: files,\n"
    "bytes, folders, counts per skip reason, and the walk time in milliseconds.\n"
    "\n"
    "  --hash                also read and hash every file (binary and size checks, the\n"
    "                        512 MiB total limit); print MB/s and the Merkle root\n"
    "  --json                one JSON object on stdout: root, files, bytes, dirs,\n"
    "                        skip_counts{reason: n}, walk_ms (+ hashed_files, hashed_bytes,\n"
    "                        hash_ms, mb_per_s, merkle with --hash; entries[] and\n"
    "                        skipped[] with --list)\n"
    "  --list                also list every file and every skipped path with its reason\n"
    "  --no-default-ignores  do not skip node_modules, .venv, __pycache__ and the like\n"
    "  --allow-broad-root    accept /, $HOME and the state folder as ROOT\n";

/* The state folder by the one rule (core/settings.c); none when it cannot be found (the
 * scan then has no state folder to leave out, and indexing would say why). */
static void state_dir(lp_buf *out)
{
    if (lp_settings_state_dir(out, NULL) != LP_OK)
        lp_buf_reset(out);
}

static void hash_all(scan_run *r, lp_error *err)
{
    lp_buf buf;
    lp_buf_init(&buf, 0);
    size_t n = r->res.nentries;
    const char **paths = lp_xcalloc(n ? n : 1, sizeof *paths);
    lp_hash128 *hashes = lp_xcalloc(n ? n : 1, sizeof *hashes);
    r->read_skip = lp_xcalloc(n ? n : 1, sizeof *r->read_skip);
    size_t nh = 0;
    uint64_t t0 = lp_now_ns();
    for (size_t i = 0; i < n; i++) {
        const lp_scan_entry *e = &r->res.entries[i];
        lp_skip_reason skip = LP_SKIP_NONE;
        if (r->hashed_bytes + e->size > LP_SCAN_MAX_TOTAL_BYTES) {
            skip = LP_SKIP_LIMIT_REACHED;
        } else if (lp_scan_read(r->root, e->path, 0, &buf, &skip, err) != LP_OK) {
            lp_log(LP_LOG_WARN, "debug_scan.read_failed", "path=\"%s\" error=\"%s\"", e->path,
                   err->msg);
            continue;
        }
        r->read_skip[i] = skip;
        if (skip != LP_SKIP_NONE) {
            r->res.skip_counts[skip]++;
            continue;
        }
        paths[nh] = e->path;
        hashes[nh++] = lp_hash128_of(buf.ptr, buf.len);
        r->hashed_bytes += buf.len;
    }
    r->hashed_files = nh;
    r->merkle = lp_merkle_root(paths, hashes, nh);
    r->hash_ms = (double)(lp_now_ns() - t0) / 1e6;
    free(paths);
    free(hashes);
    lp_buf_release(&buf);
}

static double mb_per_s(const scan_run *r)
{
    return r->hash_ms > 0 ? (double)r->hashed_bytes / 1e6 / (r->hash_ms / 1e3) : 0;
}

static void print_text(const scan_run *r, bool hash, bool list)
{
    if (list) {
        for (size_t i = 0; i < r->res.nentries; i++) {
            const lp_scan_entry *e = &r->res.entries[i];
            lp_skip_reason s = r->read_skip ? r->read_skip[i] : LP_SKIP_NONE;
            if (s != LP_SKIP_NONE)
                printf("skip\t%s\t%s\n", lp_skip_reason_name(s), lp_cli_q(e->path));
            else
                printf("file\t%llu\t%s\n", (unsigned long long)e->size, lp_cli_q(e->path));
        }
        for (size_t i = 0; i < r->res.nskipped; i++)
            printf("skip\t%s\t%s\n", lp_skip_reason_name(r->res.skipped[i].reason),
                   lp_cli_q(r->res.skipped[i].path));
    }
    printf("root: %s\nfiles: %zu\nbytes: %llu\ndirs: %llu\nskipped:", lp_cli_q(r->root), r->res.nentries,
           (unsigned long long)r->res.bytes, (unsigned long long)r->res.dirs_walked);
    for (int k = 1; k < LP_SKIP_COUNT; k++)
        printf(" %s=%llu", lp_skip_reason_name((lp_skip_reason)k),
               (unsigned long long)r->res.skip_counts[k]);
    printf("\nwalk_ms: %.2f\n", r->walk_ms);
    if (hash) {
        char hex[LP_HASH_HEX];
        lp_hash128_hex(r->merkle, hex);
        printf("hashed_files: %llu\nhashed_bytes: %llu\nhash_ms: %.2f\nmb_per_s: %.1f\n"
               "merkle: %s\n",
               (unsigned long long)r->hashed_files, (unsigned long long)r->hashed_bytes, r->hash_ms,
               mb_per_s(r), hex);
    }
}

static json_t *skip_json(const char *path, lp_skip_reason r)
{
    json_t *o = json_object();
    lp_json_set_path(o, "path", path, strlen(path)); /* pathBytes when it is not UTF-8 */
    json_object_set_new(o, "reason", lp_json_textz(lp_skip_reason_name(r)));
    return o;
}

static json_t *list_json(const scan_run *r)
{
    json_t *files = json_array(), *skipped = json_array();
    for (size_t i = 0; i < r->res.nentries; i++) {
        const lp_scan_entry *e = &r->res.entries[i];
        lp_skip_reason s = r->read_skip ? r->read_skip[i] : LP_SKIP_NONE;
        if (s != LP_SKIP_NONE) {
            json_array_append_new(skipped, skip_json(e->path, s));
            continue;
        }
        json_t *f = json_object();
        lp_json_set_path(f, "path", e->path, strlen(e->path));
        json_object_set_new(f, "size", json_integer((json_int_t)e->size));
        if (e->target)
            lp_json_set_path(f, "target", e->target, strlen(e->target));
        json_array_append_new(files, f);
    }
    for (size_t i = 0; i < r->res.nskipped; i++)
        json_array_append_new(skipped, skip_json(r->res.skipped[i].path, r->res.skipped[i].reason));
    json_t *o = json_object();
    json_object_set_new(o, "entries", files);
    json_object_set_new(o, "skipped", skipped);
    return o;
}

static void print_json(const scan_run *r, bool hash, bool list)
{
    json_t *skips = json_object();
    for (int k = 1; k < LP_SKIP_COUNT; k++)
        json_object_set_new(skips, lp_skip_reason_name((lp_skip_reason)k),
                            json_integer((json_int_t)r->res.skip_counts[k]));
    json_t *o = json_object();
    lp_json_set_path(o, "root", r->root, strlen(r->root));
    json_object_set_new(o, "files", json_integer((json_int_t)r->res.nentries));
    json_object_set_new(o, "bytes", json_integer((json_int_t)r->res.bytes));
    json_object_set_new(o, "dirs", json_integer((json_int_t)r->res.dirs_walked));
    json_object_set_new(o, "skip_counts", skips);
    json_object_set_new(o, "walk_ms", json_real(r->walk_ms));
    if (hash) {
        char hex[LP_HASH_HEX];
        lp_hash128_hex(r->merkle, hex);
        json_object_set_new(o, "hashed_files", json_integer((json_int_t)r->hashed_files));
        json_object_set_new(o, "hashed_bytes", json_integer((json_int_t)r->hashed_bytes));
        json_object_set_new(o, "hash_ms", json_real(r->hash_ms));
        json_object_set_new(o, "mb_per_s", json_real(mb_per_s(r)));
        json_object_set_new(o, "merkle", lp_json_textz(hex));
    }
    if (list)
        json_object_update_new(o, list_json(r));
    char *s = json_dumps(o, JSON_COMPACT);
    puts(s);
    free(s);
    json_decref(o);
}

static int run(int argc, char **argv)
{
    bool hash = false, json = false, list = false, defaults = true, broad = false;
    const char *root_arg = NULL;
    bool opts_done = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts_done || !strcmp(a, "--")) {
            if (opts_done && root_arg)
                return lp_cli_usage_error("debug-scan", "only one ROOT is accepted");
            if (opts_done)
                root_arg = a;
            opts_done = true;
        } else if (!strcmp(a, "--hash"))
            hash = true;
        else if (!strcmp(a, "--json"))
            json = true;
        else if (!strcmp(a, "--list"))
            list = true;
        else if (!strcmp(a, "--no-default-ignores"))
            defaults = false;
        else if (!strcmp(a, "--allow-broad-root"))
            broad = true;
        else if (a[0] == '-' && a[1])
            return lp_cli_unknown_option("debug-scan", a);
        else if (root_arg)
            return lp_cli_usage_error("debug-scan", "only one ROOT is accepted");
        else
            root_arg = a;
    }
    if (!root_arg)
        return lp_cli_usage_error("debug-scan", "ROOT is missing");
    lp_error err = {0};
    lp_buf root, state;
    lp_buf_init(&root, LP_PATH_MAX + 1);
    lp_buf_init(&state, LP_PATH_MAX + 1);
    lp_arena arena;
    lp_arena_init(&arena, 0);
    scan_run r = {0};
    int code = LP_EXIT_OK;
    state_dir(&state);
    lp_status rc = lp_path_real(root_arg, &root, &err);
    if (rc == LP_OK && !broad)
        rc = lp_scan_check_root(root.ptr, state.len ? state.ptr : NULL, &err);
    lp_scan_opts opts = {.state_dir = state.len ? state.ptr : NULL,
                         .use_default_ignores = defaults};
    uint64_t t0 = lp_now_ns();
    if (rc == LP_OK)
        rc = lp_scan_walk(root.ptr, &opts, &arena, &r.res, &err);
    if (rc != LP_OK) {
        code = lp_cli_fail(&err, json);
        goto done;
    }
    r.walk_ms = (double)(lp_now_ns() - t0) / 1e6;
    r.root = root.ptr;
    if (hash)
        hash_all(&r, &err);
    if (json)
        print_json(&r, hash, list);
    else
        print_text(&r, hash, list);
done:
    free(r.read_skip);
    lp_arena_release(&arena);
    lp_buf_release(&root);
    lp_buf_release(&state);
    return code;
}

const lp_cli_cmd lp_cmd_debug_scan = {
    .name = "debug-scan",
    .summary = "walk a root and report what an index build would see (debug)",
    .usage = usage_text,
    .run = run,
    .hidden = true,
};
