/*
 * frozen.c: frozen result sets and their continuation handles (contract in search.h).
 *
 * A set is one JSON file, $STATE/frozen/<set id>.json, written once to a unique temporary
 * name and renamed into place, so a reader in any process sees a whole file or none. The
 * set id is a hash of (root, publication id, request hash): the same search on the same
 * publication rewrites the same file with the same content. Files are never edited; the
 * offset of a page lives in the handle, so continuing never writes anything.
 *
 * Invariants: no function here opens an index for writing or changes one; every size read
 * from disk is bounded (a set file over LP_FROZEN_FILE_MAX is refused as broken); handles
 * and files are validated field by field, and a handle whose publication or set id does not
 * match its file is unknown (never served).
 */
#include "search/search.h"
#include "core/settings.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include "core/json.h"
#include <stdatomic.h>
#include <sys/stat.h>
#include <unistd.h>

#define LP_FROZEN_FILE_MAX ((size_t)4 << 20)
#define FROZEN_FORMAT 1

static const char *const fail_codes[] = {
    "ok",
    "continuation_malformed",
    "continuation_unknown",
    "continuation_expired",
    "continuation_drifted",
    "continuation_broken",
};

const char *lp_frozen_fail_code(lp_frozen_fail f)
{
    return (unsigned)f < LP_ARRAY_LEN(fail_codes) ? fail_codes[f] : "continuation_unknown";
}

static const char *const channel_names[LP_CH_COUNT] = {"exact", "lexical", "dense",
                                                      "live",  "path",    "regex"};

size_t lp_search_channel_names(uint32_t channels, const char *out[LP_CH_COUNT])
{
    size_t n = 0;
    for (unsigned i = 0; i < LP_ARRAY_LEN(channel_names); i++)
        if (channels & (1u << i))
            out[n++] = channel_names[i];
    return n;
}

uint32_t lp_search_channel_bit(const char *name)
{
    for (unsigned i = 0; i < LP_ARRAY_LEN(channel_names); i++)
        if (!strcmp(name, channel_names[i]))
            return 1u << i;
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * Limits (the environment may lower or raise them; tests use short TTLs). */

static int64_t ttl_ms(void) { return (int64_t)lp_setting_u64(LP_SET_FROZEN_TTL_MS); }
static uint64_t max_sets(void) { return lp_setting_u64(LP_SET_FROZEN_MAX_SETS); }
static uint64_t max_bytes(void) { return lp_setting_u64(LP_SET_FROZEN_MAX_BYTES); }

static lp_status frozen_dir(lp_buf *out, lp_error *err)
{
    lp_status rc = lp_store_state_dir(out, err);
    if (!rc)
        lp_buf_puts(out, "/frozen");
    if (!rc && out->err)
        rc = lp_error_set(err, LP_EPATH, "the state folder path is too long");
    return rc;
}

/* ------------------------------------------------------------------------------------------
 * Requests and ids. */

static uint32_t effective_limit(const lp_search_request *req)
{
    return req->limit ? LP_MIN(req->limit, 200u) : 50u;
}

static void normalize_query(const char *q, lp_buf *out)
{
    bool space = false;
    for (const char *p = q ? q : ""; *p; p++) {
        bool ws = *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v';
        if (ws) {
            space = out->len > 0;
            continue;
        }
        if (space)
            lp_buf_putc(out, ' ');
        space = false;
        lp_buf_putc(out, *p);
    }
}

void lp_search_request_hash(const lp_search_request *req, char out[17])
{
    lp_buf b;
    lp_buf_init(&b, 0);
    normalize_query(req->query, &b);
    lp_buf_printf(&b, "%c%s%c%u%c%u", '\0', lp_search_scope_name(req->scope), '\0',
                  effective_limit(req), '\0', req->snippet_lines ? req->snippet_lines : 6u);
    if (req->group != LP_GROUP_OWNER) /* the owner view keeps its old hashes */
        lp_buf_printf(&b, "%c%s", '\0', lp_search_grouping_name(req->group));
    snprintf(out, 17, "%016llx", (unsigned long long)lp_hash64_of(b.ptr, b.len));
    lp_buf_release(&b);
}

/* What a result read from disk rather than the publication (live groups, stale flags) looks
 * like, as a hash; 0 when every group comes from the publication alone. Two searches with
 * the same request on the same publication but different files on disk make different
 * sets, so a handle never pages through results made after it. */
static uint64_t disk_hash(const lp_search_result *res)
{
    lp_buf b;
    lp_buf_init(&b, 0);
    for (size_t i = 0; i < res->ngroups; i++) {
        const lp_search_group *g = &res->groups[i];
        if (!g->live && !g->stale)
            continue;
        lp_buf_printf(&b, "%zu:%d%d%d:%s:%u-%u:%s%c", i, g->live, g->stale, g->deleted,
                      g->owner.file ? g->owner.file : "", g->owner.start_line, g->owner.end_line,
                      g->live && g->snippet ? g->snippet : "", '\0');
    }
    uint64_t h = b.len ? lp_hash64_of(b.ptr, b.len) | 1u : 0;
    lp_buf_release(&b);
    return h;
}

static void set_id(const char *root, int64_t pub, const char *req_hash, uint64_t disk,
                   char out[17])
{
    lp_buf b;
    lp_buf_init(&b, 0);
    lp_buf_printf(&b, "%s%c%lld%c%s", root, '\0', (long long)pub, '\0', req_hash);
    if (disk)
        lp_buf_printf(&b, "%c%016llx", '\0', (unsigned long long)disk);
    snprintf(out, 17, "%016llx",
             (unsigned long long)lp_hash64_seeded(b.ptr, b.len, 0x66726f7a656eull));
    lp_buf_release(&b);
}

static void format_handle(lp_buf *out, int64_t pub, const char *id, uint32_t offset, uint32_t page,
                          int64_t created_ms)
{
    lp_buf_reset(out);
    lp_buf_printf(out, "c:%lld:%s:%u:%u:%llx", (long long)pub, id, offset, page,
                  (unsigned long long)(created_ms / 1000));
}

typedef struct handle_parts {
    int64_t pub;
    char id[17];
    uint32_t offset, page;
    int64_t created_ms;
} handle_parts;

static bool parse_dec(lp_str s, uint64_t max, uint64_t *out)
{
    return s.len && s.len <= 20 && lp_parse_u64(s, out) && *out <= max;
}

static bool parse_hex(lp_str s, size_t min_len, size_t max_len, uint64_t *out)
{
    if (s.len < min_len || s.len > max_len)
        return false;
    uint64_t v = 0;
    for (size_t i = 0; i < s.len; i++) {
        char c = s.ptr[i];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (d < 0)
            return false;
        v = (v << 4) | (uint64_t)d;
    }
    *out = v;
    return true;
}

static bool parse_handle(const char *h, handle_parts *out)
{
    memset(out, 0, sizeof *out);
    if (!h || strlen(h) > LP_FROZEN_HANDLE_MAX)
        return false;
    lp_str s = lp_str_c(h);
    if (!lp_str_starts_with(s, LP_STR("c:")))
        return false;
    /* Exactly five ':'-separated fields after "c:". */
    lp_str part[5];
    size_t n = 0, from = 2;
    for (;;) {
        size_t colon = lp_str_find_char(s, ':', from);
        if (n == LP_ARRAY_LEN(part))
            return false;
        part[n++] = lp_str_sub(s, from, colon == SIZE_MAX ? s.len : colon);
        if (colon == SIZE_MAX)
            break;
        from = colon + 1;
    }
    if (n != LP_ARRAY_LEN(part))
        return false;
    uint64_t pub, id, off, page, created;
    if (!parse_dec(part[0], INT64_MAX, &pub) || pub == 0 || !parse_hex(part[1], 16, 16, &id) ||
        !parse_dec(part[2], 1000000, &off) || !parse_dec(part[3], 1000, &page) || page == 0 ||
        !parse_hex(part[4], 1, 12, &created))
        return false;
    out->pub = (int64_t)pub;
    memcpy(out->id, part[1].ptr, 16);
    out->id[16] = '\0';
    out->offset = (uint32_t)off;
    out->page = (uint32_t)page;
    out->created_ms = (int64_t)created * 1000;
    return true;
}

/* ------------------------------------------------------------------------------------------
 * Writing. */

typedef struct set_file {
    char name[64];
    int64_t mtime_ms;
    uint64_t size;
} set_file;

static int set_file_cmp(const void *a, const void *b)
{
    const set_file *x = a, *y = b;
    if (x->mtime_ms != y->mtime_ms)
        return x->mtime_ms < y->mtime_ms ? -1 : 1;
    return strcmp(x->name, y->name);
}

static void remove_in(const char *dir, const char *name)
{
    lp_buf p;
    lp_buf_init(&p, 0);
    lp_buf_printf(&p, "%s/%s", dir, name);
    if (unlink(p.ptr) != 0 && errno != ENOENT)
        lp_log(LP_LOG_WARN, "frozen.remove_failed", "path=%s errno=%d", p.ptr, errno);
    lp_buf_release(&p);
}

/* Remove expired sets, leftover temporary files, then the oldest sets until one more set of
 * incoming bytes fits under both caps. The set about to be rewritten (`replacing`) does not
 * count: its file is replaced, not added. */
static void clean(const char *dir, const char *replacing, uint64_t incoming)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    int64_t now = lp_wall_ms(), ttl = ttl_ms();
    LP_VEC(set_file) sets = {0};
    struct dirent *de;
    while ((de = readdir(d))) {
        const char *name = de->d_name;
        if (name[0] == '.' || strlen(name) >= sizeof sets.items[0].name)
            continue;
        struct stat sb;
        if (fstatat(dirfd(d), name, &sb, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(sb.st_mode))
            continue;
        int64_t mtime = (int64_t)sb.st_mtim.tv_sec * 1000 + sb.st_mtim.tv_nsec / 1000000;
        lp_str n = lp_str_c(name);
        if (lp_str_find_char(n, '~', 0) != SIZE_MAX) {
            /* A temporary file: a writer died between create and rename. */
            if (now - mtime > 60000)
                remove_in(dir, name);
            continue;
        }
        if (!lp_str_ends_with(n, LP_STR(".json")) || !strcmp(name, replacing))
            continue;
        if (now - mtime > ttl) {
            remove_in(dir, name);
            continue;
        }
        set_file *f = lp_vec_push_zero(&sets);
        snprintf(f->name, sizeof f->name, "%s", name);
        f->mtime_ms = mtime;
        f->size = (uint64_t)sb.st_size;
    }
    closedir(d);
    uint64_t total = incoming;
    for (size_t i = 0; i < sets.len; i++)
        total += sets.items[i].size;
    if (sets.len)
        qsort(sets.items, sets.len, sizeof sets.items[0], set_file_cmp);
    uint64_t cap_sets = max_sets(), cap_bytes = max_bytes();
    size_t count = sets.len + 1, i = 0;
    while (i < sets.len && (count > cap_sets || total > cap_bytes)) {
        remove_in(dir, sets.items[i].name);
        total -= sets.items[i].size;
        count--;
        i++;
    }
    lp_vec_free(&sets);
}

/* A failed write of the cache: the one full-disk message, or the errno's (with the limit it
 * names, if any). */
static lp_status cache_error(int e, const char *what, const char *path, lp_error *err)
{
    if (e == ENOSPC || e == EDQUOT)
        return lp_store_disk_full("writing the continuation cache", err);
    return lp_error_errno(err, e, "%s %s", what, path);
}

static lp_status write_whole(const char *dir, const char *name, const char *text, size_t n,
                             lp_error *err)
{
    static atomic_uint counter;
    lp_buf tmp, dst;
    lp_buf_init(&tmp, 0);
    lp_buf_init(&dst, 0);
    lp_buf_printf(&dst, "%s/%s", dir, name);
    lp_buf_printf(&tmp, "%s/%s~%ld.%u", dir, name, (long)getpid(), atomic_fetch_add(&counter, 1u));
    lp_status rc = LP_OK;
    int fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        rc = cache_error(errno, "cannot create", tmp.ptr, err);
        goto done;
    }
    size_t left = n;
    while (left) {
        ssize_t w = write(fd, text + (n - left), left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            rc = cache_error(errno, "cannot write", tmp.ptr, err);
            break;
        }
        left -= (size_t)w;
    }
    /* No fsync: this is a cache; a file torn by a crash reads as broken, never as wrong. */
    if (close(fd) != 0 && !rc)
        rc = cache_error(errno, "cannot write", tmp.ptr, err);
    if (!rc && rename(tmp.ptr, dst.ptr) != 0)
        rc = cache_error(errno, "cannot rename onto", dst.ptr, err);
    if (rc)
        unlink(tmp.ptr);
done:
    lp_buf_release(&tmp);
    lp_buf_release(&dst);
    return rc;
}

void lp_search_continuation_unavailable(lp_search_result *res, lp_arena *arena, size_t shown,
                                        const lp_error *why)
{
    lp_log(LP_LOG_INFO, "search.continuation_unavailable", "error=\"%s\"", why->msg);
    lp_search_result_warn(res, arena,
                          LP_WARN_CONTINUATION_UNAVAILABLE, "%zu more results were found but cannot "
                          "be continued, so there is no handle for them: %s. Search again with "
                          "a larger --limit to see them",
                          res->ngroups - shown, why->msg);
}

static json_t *opt_string(const char *s) { return s ? lp_json_textz(s) : json_null(); }

static json_t *owner_json(const lp_search_owner *ow)
{
    json_t *o = json_object();
    json_object_set_new(o, "id", lp_json_textz(ow->id));
    lp_json_set_path(o, "file", ow->file ? ow->file : "", ow->file ? strlen(ow->file) : 0);
    json_object_set_new(o, "symbol", opt_string(ow->symbol));
    json_object_set_new(o, "qname", opt_string(ow->qname));
    json_object_set_new(o, "kind", lp_json_textz(ow->kind ? ow->kind : "file"));
    json_object_set_new(o, "start", json_integer(ow->start_line));
    json_object_set_new(o, "end", json_integer(ow->end_line));
    return o;
}

static json_t *group_json(const lp_search_group *g)
{
    json_t *o = json_object();
    json_object_set_new(o, "rank", json_integer(g->rank));
    json_object_set_new(o, "id", lp_json_textz(g->owner.id));
    lp_json_set_path(o, "file", g->owner.file ? g->owner.file : "",
                     g->owner.file ? strlen(g->owner.file) : 0); /* fileBytes when needed */
    json_object_set_new(o, "symbol", opt_string(g->owner.symbol));
    json_object_set_new(o, "qname", opt_string(g->owner.qname));
    json_object_set_new(o, "kind", lp_json_textz(g->owner.kind ? g->owner.kind : "file"));
    json_object_set_new(o, "start", json_integer(g->owner.start_line));
    json_object_set_new(o, "end", json_integer(g->owner.end_line));
    json_object_set_new(o, "score", json_real(g->score));
    json_object_set_new(o, "channels", json_integer(g->channels));
    json_object_set_new(o, "snippet", lp_json_textz(g->snippet ? g->snippet : ""));
    json_object_set_new(o, "snippetStart", json_integer(g->snippet_start_line));
    /* The surface (decorate.c); optional when reading, so older sets still load. */
    json_object_set_new(o, "label", opt_string(g->label));
    json_object_set_new(o, "crumbs", opt_string(g->breadcrumbs));
    json_object_set_new(o, "publishedMs", json_integer(g->published_ms));
    json_object_set_new(o, "stale", json_boolean(g->stale));
    json_object_set_new(o, "deleted", json_boolean(g->deleted));
    json_object_set_new(o, "live", json_boolean(g->live));
    if (g->text_reason)
        json_object_set_new(o, "textReason", json_string("parse_budget"));
    if (g->roles)
        json_object_set_new(o, "roles", json_integer(g->roles));
    if (g->ndups) {
        json_object_set_new(o, "ndups", json_integer(g->ndups));
        json_t *paths = json_array();
        for (uint32_t i = 0; i < g->ndup_paths; i++)
            json_array_append_new(paths, lp_json_textz(g->dup_paths[i]));
        json_object_set_new(o, "dupPaths", paths);
    }
    if (g->listed) {
        json_object_set_new(o, "listed", json_true());
        json_object_set_new(o, "fileSize", json_integer((json_int_t)g->file_size));
    }
    if (g->nmembers) {
        json_t *members = json_array();
        for (uint32_t i = 0; i < g->nmembers; i++) {
            json_t *m = owner_json(&g->members[i].owner);
            json_object_set_new(m, "score", json_real(g->members[i].score));
            json_object_set_new(m, "rank", json_integer(g->members[i].rank));
            json_array_append_new(members, m);
        }
        json_object_set_new(o, "members", members);
        json_object_set_new(o, "fileOwners", json_integer(g->nfile_owners));
    }
    return o;
}

lp_status lp_search_freeze(const char *root, const lp_search_request *req,
                           const lp_search_result *res, uint32_t offset, uint32_t page,
                           lp_buf *handle_out, int64_t *expires_ms, lp_error *err)
{
    lp_buf_reset(handle_out);
    if (expires_ms)
        *expires_ms = 0;
    if (offset >= res->ngroups || page == 0)
        return lp_error_set(err, LP_EINVAL,
                            "nothing to continue: the page at %u is past the %zu results", offset,
                            res->ngroups);
    lp_buf dir, query;
    lp_buf_init(&dir, 0);
    lp_buf_init(&query, 8192);
    char *text = NULL;
    json_t *j = NULL;
    lp_status rc = frozen_dir(&dir, err);
    if (rc)
        goto done;
    if ((rc = lp_mkdir_p(dir.ptr, err))) {
        if (rc == LP_ENOSPC)
            rc = lp_store_disk_full("writing the continuation cache", err);
        goto done;
    }
    char req_hash[17], id[17];
    lp_search_request_hash(req, req_hash);
    set_id(root, res->publication_id, req_hash, disk_hash(res), id);
    normalize_query(req->query, &query);
    int64_t now = lp_wall_ms();

    j = json_object();
    json_object_set_new(j, "format", json_integer(FROZEN_FORMAT));
    json_object_set_new(j, "id", lp_json_textz(id));
    lp_json_set_path(j, "root", root, strlen(root)); /* bytes kept: rootBytes */
    json_object_set_new(j, "publication", json_integer(res->publication_id));
    lp_json_set_path(j, "query", query.ptr, query.len);
    json_object_set_new(j, "scope", lp_json_textz(lp_search_scope_name(req->scope)));
    json_object_set_new(j, "limit", json_integer(effective_limit(req)));
    json_object_set_new(j, "requestHash", lp_json_textz(req_hash));
    json_object_set_new(j, "createdMs", json_integer(now));
    if (res->group != LP_GROUP_OWNER)
        json_object_set_new(j, "group", lp_json_textz(lp_search_grouping_name(res->group)));
    if (res->confidence >= 0)
        json_object_set_new(j, "confidence", json_real(res->confidence));
    json_t *groups = json_array();
    for (size_t i = 0; i < res->ngroups; i++)
        json_array_append_new(groups, group_json(&res->groups[i]));
    json_object_set_new(j, "groups", groups);
    json_t *warnings = json_array();
    for (size_t i = 0; i < res->nwarnings; i++)
        json_array_append_new(warnings, lp_json_textz(res->warnings[i]));
    json_object_set_new(j, "warnings", warnings);
    text = json_dumps(j, JSON_COMPACT);
    if (!text) {
        rc = lp_error_set(err, LP_ERROR, "cannot serialize the result set");
        goto done;
    }
    size_t n = strlen(text);
    if (n > LP_FROZEN_FILE_MAX) {
        rc = lp_error_set(err, LP_ETOOBIG, "the result set is larger than %zu bytes",
                          LP_FROZEN_FILE_MAX);
        goto done;
    }
    char name[32];
    snprintf(name, sizeof name, "%s.json", id);
    clean(dir.ptr, name, n);
    if ((rc = write_whole(dir.ptr, name, text, n, err)))
        goto done;
    format_handle(handle_out, res->publication_id, id, offset, page, now);
    if (expires_ms)
        *expires_ms = now + ttl_ms();
    lp_log(LP_LOG_DEBUG, "frozen.write", "set=%s groups=%zu bytes=%zu", id, res->ngroups, n);
done:
    free(text);
    json_decref(j);
    lp_buf_release(&dir);
    lp_buf_release(&query);
    return rc;
}

/* ------------------------------------------------------------------------------------------
 * Reading. */

static lp_status fail(lp_frozen_fail *why, lp_frozen_fail f, lp_error *err, lp_status code,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static lp_status fail(lp_frozen_fail *why, lp_frozen_fail f, lp_error *err, lp_status code,
                      const char *fmt, ...)
{
    if (why)
        *why = f;
    va_list ap;
    va_start(ap, fmt);
    lp_error_setv(err, code, fmt, ap);
    va_end(ap);
    return code;
}

/* "42 s" under two minutes, else "17 minutes". */
static void human_ms(int64_t ms, char out[32])
{
    if (ms < 120000)
        snprintf(out, 32, "%lld s", (long long)(ms / 1000));
    else
        snprintf(out, 32, "%lld minutes", (long long)(ms / 60000));
}

static const char *arena_json_str(lp_arena *a, json_t *v)
{
    if (!json_is_string(v))
        return NULL;
    return lp_arena_strndup(a, json_string_value(v), json_string_length(v));
}

/* o[key] as written by lp_json_set_path: the bytes of "<key>Bytes" when present (a name
 * that is not UTF-8), else the string; NULL when neither is there or the form is bad. */
static const char *arena_json_bytes(lp_arena *a, json_t *o, const char *key)
{
    char k[64];
    snprintf(k, sizeof k, "%sBytes", key);
    json_t *b = json_object_get(o, k);
    if (!json_is_string(b))
        return arena_json_str(a, json_object_get(o, key));
    lp_buf raw;
    lp_buf_init(&raw, 0);
    const char *s = NULL;
    if (!lp_bytes_unescape(lp_str_n(json_string_value(b), json_string_length(b)), &raw, NULL) &&
        !memchr(raw.ptr, '\0', raw.len))
        s = lp_arena_strndup(a, raw.ptr, raw.len);
    lp_buf_release(&raw);
    return s;
}

static bool json_uint(json_t *v, uint64_t max, uint64_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) > max)
        return false;
    *out = (uint64_t)json_integer_value(v);
    return true;
}

static bool read_owner(json_t *o, lp_arena *a, lp_search_owner *ow)
{
    uint64_t start, end;
    const char *id = json_string_value(json_object_get(o, "id"));
    if (!json_is_object(o) || !id || strlen(id) >= sizeof ow->id ||
        !json_uint(json_object_get(o, "start"), UINT32_MAX, &start) ||
        !json_uint(json_object_get(o, "end"), UINT32_MAX, &end))
        return false;
    snprintf(ow->id, sizeof ow->id, "%s", id);
    ow->file = arena_json_bytes(a, o, "file");
    ow->symbol = arena_json_str(a, json_object_get(o, "symbol"));
    ow->qname = arena_json_str(a, json_object_get(o, "qname"));
    ow->kind = arena_json_str(a, json_object_get(o, "kind"));
    ow->start_line = (uint32_t)start;
    ow->end_line = (uint32_t)end;
    return ow->file && ow->kind;
}

/* The members of a file group; false when present but damaged. */
static bool read_members(json_t *o, lp_arena *a, lp_search_group *g)
{
    json_t *arr = json_object_get(o, "members");
    if (!arr)
        return true;
    size_t n = json_array_size(arr);
    uint64_t nowners = 0;
    if (!json_is_array(arr) || n == 0 || n > LP_FILE_MEMBERS_MAX ||
        !json_uint(json_object_get(o, "fileOwners"), 1000000, &nowners))
        return false;
    lp_search_member *m = lp_arena_zalloc(a, n * sizeof *m);
    for (size_t i = 0; i < n; i++) {
        json_t *mo = json_array_get(arr, i);
        uint64_t rank = 0;
        if (!read_owner(mo, a, &m[i].owner) || !json_is_number(json_object_get(mo, "score")) ||
            !json_uint(json_object_get(mo, "rank"), 1000000, &rank))
            return false;
        m[i].score = json_number_value(json_object_get(mo, "score"));
        m[i].rank = (uint32_t)rank;
    }
    g->members = m;
    g->nmembers = (uint32_t)n;
    g->nfile_owners = (uint32_t)nowners;
    return true;
}

static bool read_group(json_t *o, lp_arena *a, lp_search_group *g)
{
    memset(g, 0, sizeof *g);
    uint64_t rank, start, end, ch, ss;
    const char *id = json_string_value(json_object_get(o, "id"));
    if (!json_is_object(o) || !json_uint(json_object_get(o, "rank"), 1000000, &rank) ||
        !json_uint(json_object_get(o, "start"), UINT32_MAX, &start) ||
        !json_uint(json_object_get(o, "end"), UINT32_MAX, &end) ||
        !json_uint(json_object_get(o, "channels"), 0xff, &ch) ||
        !json_uint(json_object_get(o, "snippetStart"), UINT32_MAX, &ss) || !id ||
        strlen(id) >= sizeof g->owner.id || !json_is_number(json_object_get(o, "score")))
        return false;
    g->rank = (uint32_t)rank;
    snprintf(g->owner.id, sizeof g->owner.id, "%s", id);
    g->owner.file = arena_json_bytes(a, o, "file");
    g->owner.symbol = arena_json_str(a, json_object_get(o, "symbol"));
    g->owner.qname = arena_json_str(a, json_object_get(o, "qname"));
    g->owner.kind = arena_json_str(a, json_object_get(o, "kind"));
    g->owner.start_line = (uint32_t)start;
    g->owner.end_line = (uint32_t)end;
    g->score = json_number_value(json_object_get(o, "score"));
    g->channels = (uint32_t)ch;
    g->snippet = arena_json_str(a, json_object_get(o, "snippet"));
    g->snippet_start_line = (uint32_t)ss;
    g->label = arena_json_str(a, json_object_get(o, "label"));
    g->breadcrumbs = arena_json_str(a, json_object_get(o, "crumbs"));
    uint64_t pms = 0;
    if (json_uint(json_object_get(o, "publishedMs"), INT64_MAX, &pms))
        g->published_ms = (int64_t)pms;
    g->stale = json_is_true(json_object_get(o, "stale"));
    g->deleted = json_is_true(json_object_get(o, "deleted"));
    g->live = json_is_true(json_object_get(o, "live"));
    if (json_is_string(json_object_get(o, "textReason")))
        g->text_reason = "parse_budget"; /* the one reason there is */
    uint64_t roles = 0, ndups = 0, fsize = 0;
    g->listed = json_is_true(json_object_get(o, "listed"));
    if (g->listed && json_uint(json_object_get(o, "fileSize"), INT64_MAX, &fsize))
        g->file_size = fsize;
    if (json_uint(json_object_get(o, "roles"), 0xffff, &roles))
        g->roles = (uint32_t)roles;
    json_t *dp = json_object_get(o, "dupPaths");
    if (json_uint(json_object_get(o, "ndups"), UINT32_MAX, &ndups) && json_is_array(dp)) {
        g->ndups = (uint32_t)ndups;
        size_t n = LP_MIN(json_array_size(dp), (size_t)LP_SEARCH_DUP_PATHS);
        g->dup_paths = lp_arena_zalloc(a, (n ? n : 1) * sizeof *g->dup_paths);
        for (size_t i = 0; i < n; i++) {
            const char *p = arena_json_str(a, json_array_get(dp, i));
            if (p)
                g->dup_paths[g->ndup_paths++] = p;
        }
    }
    return g->owner.file && g->owner.kind && g->snippet && read_members(o, a, g);
}

lp_status lp_search_frozen_load(const char *handle, lp_arena *arena, lp_frozen_set *out,
                                lp_frozen_fail *why, lp_error *err)
{
    memset(out, 0, sizeof *out);
    if (why)
        *why = LP_FROZEN_OK;
    handle_parts h;
    if (!parse_handle(handle, &h))
        return fail(why, LP_FROZEN_MALFORMED, err, LP_EINVAL,
                    "'%.*s' is not a continuation handle (they look like "
                    "c:<publication>:<set>:<offset>:<page>:<time>, as given by a search); "
                    "pass the handle exactly as it was given, or search again",
                    LP_CUT(handle ? handle : "", 100));
    lp_buf dir, path, text;
    lp_buf_init(&dir, 0);
    lp_buf_init(&path, 0);
    lp_buf_init(&text, 0);
    json_t *j = NULL;
    lp_status rc = frozen_dir(&dir, err);
    if (rc)
        goto done;
    lp_buf_printf(&path, "%s/%s.json", dir.ptr, h.id);
    int64_t now = lp_wall_ms(), ttl = ttl_ms();
    rc = lp_read_file(path.ptr, LP_FROZEN_FILE_MAX, &text, err);
    if (rc == LP_ENOENT) {
        if (now - h.created_ms > ttl + 1000) {
            char age[32], life[32];
            human_ms(now - h.created_ms, age);
            human_ms(ttl, life);
            rc = fail(why, LP_FROZEN_EXPIRED, err, LP_EEXPIRED,
                      "the continuation expired: its result set was made %s ago and sets live "
                      "%s; run the search again",
                      age, life);
        } else {
            rc = fail(why, LP_FROZEN_UNKNOWN, err, LP_ENOENT,
                      "no result set %s is known (it was never made in this state folder, or "
                      "was removed to stay under the cache limits); run the search again",
                      h.id);
        }
        goto done;
    }
    if (rc) {
        rc = fail(why, LP_FROZEN_BROKEN, err, LP_EIO,
                  "the result set %s cannot be read (%s); run the search again", h.id, err->msg);
        goto done;
    }
    json_error_t jerr;
    j = json_loadb(text.ptr, text.len, 0, &jerr);
    uint64_t fmt = 0, pub = 0, limit = 0, created = 0;
    const char *id = j ? json_string_value(json_object_get(j, "id")) : NULL;
    json_t *groups = j ? json_object_get(j, "groups") : NULL;
    json_t *warnings = j ? json_object_get(j, "warnings") : NULL;
    if (!j || !json_uint(json_object_get(j, "format"), 100, &fmt) || fmt != FROZEN_FORMAT ||
        !json_uint(json_object_get(j, "publication"), INT64_MAX, &pub) ||
        !json_uint(json_object_get(j, "limit"), 1000, &limit) ||
        !json_uint(json_object_get(j, "createdMs"), INT64_MAX, &created) || !id ||
        !json_is_array(groups) || !json_is_array(warnings) ||
        !json_is_string(json_object_get(j, "root")) ||
        !json_is_string(json_object_get(j, "query")) ||
        !json_is_string(json_object_get(j, "requestHash"))) {
        rc = fail(why, LP_FROZEN_BROKEN, err, LP_EIO,
                  "the result set %s is damaged; run the search again", h.id);
        goto done;
    }
    if (strcmp(id, h.id) != 0 || (int64_t)pub != h.pub) {
        /* A handle edited by hand, or a set id collision: never serve someone else's set. */
        rc = fail(why, LP_FROZEN_UNKNOWN, err, LP_ENOENT,
                  "the continuation does not match result set %s (publication %lld, not %lld); "
                  "run the search again",
                  h.id, (long long)pub, (long long)h.pub);
        goto done;
    }
    if (now - (int64_t)created > ttl) {
        unlink(path.ptr);
        char age[32], life[32];
        human_ms(now - (int64_t)created, age);
        human_ms(ttl, life);
        rc = fail(why, LP_FROZEN_EXPIRED, err, LP_EEXPIRED,
                  "the continuation expired: its result set was made %s ago and sets live %s; "
                  "run the search again",
                  age, life);
        goto done;
    }
    snprintf(out->id, sizeof out->id, "%s", id);
    out->root = arena_json_bytes(arena, j, "root");
    out->publication_id = (int64_t)pub;
    out->query = arena_json_bytes(arena, j, "query");
    if (!out->root || !out->query) {
        rc = fail(why, LP_FROZEN_BROKEN, err, LP_EIO,
                  "the result set %s is damaged; run the search again", h.id);
        goto done;
    }
    lp_search_scope scope = LP_SCOPE_RUNTIME;
    const char *sname = json_string_value(json_object_get(j, "scope"));
    if (sname)
        lp_search_scope_parse(lp_str_c(sname), &scope, NULL);
    out->scope = scope;
    out->group = LP_GROUP_OWNER;
    const char *gname = json_string_value(json_object_get(j, "group"));
    if (gname && lp_search_grouping_parse(lp_str_c(gname), &out->group, NULL)) {
        rc = fail(why, LP_FROZEN_BROKEN, err, LP_EIO,
                  "the result set %s is damaged; run the search again", h.id);
        goto done;
    }
    json_t *conf = json_object_get(j, "confidence");
    out->confidence = json_is_number(conf) ? json_number_value(conf) : -1.0;
    out->limit = (uint32_t)limit;
    snprintf(out->request_hash, sizeof out->request_hash, "%s",
             json_string_value(json_object_get(j, "requestHash")));
    out->created_ms = (int64_t)created;
    out->expires_ms = (int64_t)created + ttl;
    size_t ng = json_array_size(groups);
    out->groups = lp_arena_zalloc(arena, lp_mul_size(ng ? ng : 1, sizeof *out->groups));
    for (size_t i = 0; i < ng; i++) {
        if (!read_group(json_array_get(groups, i), arena, &out->groups[i]) ||
            out->groups[i].rank != i + 1) {
            rc =
                fail(why, LP_FROZEN_BROKEN, err, LP_EIO,
                     "the result set %s is damaged (group %zu); run the search again", h.id, i + 1);
            goto done;
        }
    }
    out->ngroups = ng;
    size_t nw = json_array_size(warnings);
    const char **w = lp_arena_zalloc(arena, lp_mul_size(nw ? nw : 1, sizeof *w));
    for (size_t i = 0; i < nw; i++) {
        w[i] = arena_json_str(arena, json_array_get(warnings, i));
        if (!w[i])
            w[i] = "";
    }
    out->warnings = w;
    out->nwarnings = nw;
    out->offset = h.offset;
    out->page = h.page;
    if (h.offset > ng) {
        rc = fail(why, LP_FROZEN_MALFORMED, err, LP_EINVAL,
                  "the continuation points past the end of its %zu results; pass the handle "
                  "exactly as it was given",
                  ng);
        goto done;
    }
done:
    json_decref(j);
    lp_buf_release(&dir);
    lp_buf_release(&path);
    lp_buf_release(&text);
    if (rc)
        memset(out, 0, sizeof *out);
    return rc;
}

lp_status lp_search_frozen_check(const lp_frozen_set *set, lp_store *st, lp_frozen_fail *why,
                                 lp_error *err)
{
    if (why)
        *why = LP_FROZEN_OK;
    lp_publication pub;
    lp_status rc = lp_store_current(st, &pub, err);
    if (rc)
        return rc;
    if (pub.id != set->publication_id)
        return fail(why, LP_FROZEN_DRIFTED, err, LP_EEXPIRED,
                    "the index of %s changed since this result set was made (publication %lld "
                    "is current, the set is from publication %lld); run the search again to get "
                    "results from the current publication",
                    set->root, (long long)pub.id, (long long)set->publication_id);
    return LP_OK;
}

void lp_search_frozen_handle(const lp_frozen_set *set, uint32_t offset, uint32_t page, lp_buf *out)
{
    lp_buf_reset(out);
    if (offset >= set->ngroups || page == 0)
        return;
    format_handle(out, set->publication_id, set->id, offset, page, set->created_ms);
}
