/*
 * core.h: the contract of src/core, the base every other module builds on.
 *
 * Status and errors, allocation that aborts on exhaustion, arenas with mark/rewind,
 * borrowed string slices, limited byte buffers with a sticky error, typed vectors,
 * XXH3 hashing, path normalization, logging to stderr, and a monotonic clock.
 *
 * Conventions (see STYLE.md):
 * - every function that can fail returns lp_status (0 = LP_OK, negatives are errors) and
 *   fills a caller-owned lp_error when one is given (err may be NULL);
 * - out-of-memory aborts through lp_xmalloc; sizes that come from input have limits and
 *   fail with LP_ETOOBIG;
 * - ownership of every returned pointer is stated beside the function.
 */
#ifndef LP_CORE_H
#define LP_CORE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* After the system headers that declare them, so their prototypes are untouched. */
#include "core/banned.h"

/* ------------------------------------------------------------------------------------------
 * Status and errors.
 *
 * The numeric values are stable (they appear in logs); lp_status_code() gives the stable
 * snake_case code that JSON outputs and exit paths use.
 */
/* lp_status, lp_error and LP_ERROR_MSG_MAX are part of the public contract: src/loupe.h
 * defines them (it includes nothing of ours, so it can be installed alone). */
#include "loupe.h"

/* Stable snake_case name of a status ("ok", "path_refused", ...). Never NULL. */
const char *lp_status_code(lp_status s);

/* Fill err (if not NULL) with code and a formatted sentence; returns code, so callers can
 * write `return lp_error_set(err, LP_EINVAL, "...")`. An existing error is overwritten. */
lp_status lp_error_set(lp_error *err, lp_status code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
lp_status lp_error_setv(lp_error *err, lp_status code, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
/* Prefix the existing message with context: "context: old message". */
void lp_error_prefix(lp_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lp_error_clear(lp_error *err);
/* A finer stable code than the status (e.g. "continuation_expired"); lp_error_set clears
 * it. reason is copied (cut to the field). */
void lp_error_set_reason(lp_error *err, const char *reason);
/* The stable reason: the one set, else lp_status_code(err->code). Never NULL. */
const char *lp_error_reason(const lp_error *err);
/* Fill err->reason from the status when no finer reason was set (public API exits). */
void lp_error_finish(lp_error *err);

/* errno classes. A resource error (EMFILE, ENFILE, ENOMEM, ENOBUFS, EFBIG) says nothing
 * about the file being opened or read: it must never be recorded as a property of that file
 * (skipped, unreadable, deleted). A permission error (EACCES, EPERM) is one; a vanished
 * path (ENOENT, ENOTDIR) is one too. */
bool lp_errno_is_resource(int e);
bool lp_errno_is_permission(int e);
bool lp_errno_is_vanished(int e);
/* The status for an errno: LP_ENOENT (vanished), LP_ELIMIT (resource), LP_ENOSPC (ENOSPC,
 * EDQUOT), else LP_EIO. */
lp_status lp_status_of_errno(int e);
/* Fill err with lp_status_of_errno(e) and "<formatted>: <strerror(e)>", followed, for a
 * resource or disk-space error, by "; " and what to do, naming the limit with its current
 * value (e.g. "the open-file limit (ulimit -n) is 64; raise it, e.g. 'ulimit -n 4096', and
 * retry"). Returns the status. */
lp_status lp_error_errno(lp_error *err, int e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The advice part alone ("" when e has none); out is NUL-terminated. */
void lp_errno_advice(int e, char *out, size_t n);

/* ------------------------------------------------------------------------------------------
 * Allocation. These never return NULL: exhaustion prints one line saying what to do and
 * ends the process with LP_EXIT_OOM (no core dump; an uncommitted build changes nothing,
 * so the previous publication stays current). */
#define LP_EXIT_OOM 9
void *lp_xmalloc(size_t n);
void *lp_xcalloc(size_t count, size_t size);
void *lp_xrealloc(void *p, size_t n);
char *lp_xstrdup(const char *s);
char *lp_xstrndup(const char *s, size_t n);
/* count*size with overflow check (aborts on overflow: it is a programming error). */
size_t lp_mul_size(size_t count, size_t size);

/* ------------------------------------------------------------------------------------------
 * Arena: bump allocation from a chain of blocks; everything is released at once.
 *
 * With LP_ARENA_DEBUG defined (the sanitizer build), every allocation is its own malloc
 * so ASan sees each one; the API is identical.
 */
typedef struct lp_arena_block lp_arena_block;
typedef struct lp_arena {
    lp_arena_block *head;
    size_t block_size;
    size_t total; /* bytes handed out since init (for limits and stats) */
} lp_arena;

typedef struct lp_arena_mark {
    lp_arena_block *block;
    size_t used;
    size_t total;
} lp_arena_mark;

void lp_arena_init(lp_arena *a, size_t block_size); /* 0 = default 64 KiB */
void lp_arena_release(lp_arena *a);                 /* frees every block */
/* Aligned to 16. Memory is valid until the arena is rewound past it or released. */
void *lp_arena_alloc(lp_arena *a, size_t n);
void *lp_arena_zalloc(lp_arena *a, size_t n);
char *lp_arena_strndup(lp_arena *a, const char *s, size_t n);
char *lp_arena_strdup(lp_arena *a, const char *s);
char *lp_arena_printf(lp_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
lp_arena_mark lp_arena_get_mark(const lp_arena *a);
void lp_arena_rewind(lp_arena *a, lp_arena_mark m);

/* ------------------------------------------------------------------------------------------
 * String slices: borrowed, never assumed NUL-terminated. */
typedef struct lp_str {
    const char *ptr;
    size_t len;
} lp_str;

#define LP_STR(lit) ((lp_str){(lit), sizeof(lit) - 1})
#define LP_STR_NULL ((lp_str){NULL, 0})
#define LP_STR_FMT "%.*s"
#define LP_STR_ARG(s) (int)(s).len, (s).ptr

lp_str lp_str_c(const char *s); /* NULL gives the empty slice */
lp_str lp_str_n(const char *s, size_t n);
bool lp_str_eq(lp_str a, lp_str b);
bool lp_str_eq_c(lp_str a, const char *b);
bool lp_str_starts_with(lp_str s, lp_str prefix);
bool lp_str_ends_with(lp_str s, lp_str suffix);
int lp_str_cmp(lp_str a, lp_str b); /* memcmp order, shorter first on a tie */
lp_str lp_str_trim(lp_str s);       /* ASCII whitespace */
lp_str lp_str_sub(lp_str s, size_t from, size_t to); /* clamped */
/* Index of the first c at or after from, or SIZE_MAX. */
size_t lp_str_find_char(lp_str s, char c, size_t from);
/* Index of the first occurrence of needle (non-empty) at or after from, or SIZE_MAX. */
size_t lp_str_find(lp_str s, lp_str needle, size_t from);

/* ------------------------------------------------------------------------------------------
 * lp_buf: owned bytes, always NUL-terminated, with a size limit and a sticky error.
 *
 * ptr is never NULL (an empty buffer points at a shared ""). After any append fails (limit
 * reached) err is LP_ETOOBIG, later appends are ignored, and the contents are what fit; a
 * caller checks err once at the end. limit 0 means LP_BUF_DEFAULT_LIMIT.
 */
typedef struct lp_buf {
    char *ptr;
    size_t len;
    size_t cap;
    size_t limit;
    lp_status err;
} lp_buf;

#define LP_BUF_DEFAULT_LIMIT ((size_t)1 << 30)

void lp_buf_init(lp_buf *b, size_t limit);
void lp_buf_release(lp_buf *b); /* back to the empty state, limit kept */
void lp_buf_reset(lp_buf *b);   /* len = 0, err cleared, memory kept */
void lp_buf_append(lp_buf *b, const void *p, size_t n);
void lp_buf_puts(lp_buf *b, const char *s);
void lp_buf_putc(lp_buf *b, char c);
void lp_buf_put_str(lp_buf *b, lp_str s);
void lp_buf_printf(lp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lp_buf_vprintf(lp_buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void lp_buf_truncate(lp_buf *b, size_t len);
/* Grow len by n and return the n new bytes (uninitialized) for the caller to fill, or NULL
 * (err set, nothing changed) past the limit. Valid until the next append. */
char *lp_buf_extend(lp_buf *b, size_t n);
/* Hand the bytes to the caller (caller frees with free()); the buffer becomes empty. */
char *lp_buf_detach(lp_buf *b, size_t *len_out);
static inline lp_str lp_buf_str(const lp_buf *b) { return (lp_str){b->ptr, b->len}; }

/* ------------------------------------------------------------------------------------------
 * Typed vectors: LP_VEC(T) declares { T *items; size_t len, cap; }. Zero-initialize. */
#define LP_VEC(T)                                                                              \
    struct {                                                                                   \
        T *items;                                                                              \
        size_t len;                                                                            \
        size_t cap;                                                                            \
    }
void lp_vec_grow_(void **items, size_t *cap, size_t elem_size, size_t need);
#define lp_vec_reserve(v, n)                                                                   \
    lp_vec_grow_((void **)&(v)->items, &(v)->cap, sizeof(*(v)->items), (n))
#define lp_vec_push(v, x)                                                                      \
    do {                                                                                       \
        lp_vec_reserve((v), (v)->len + 1);                                                     \
        (v)->items[(v)->len++] = (x);                                                          \
    } while (0)
/* Pointer to a new zeroed slot at the end. */
#define lp_vec_push_zero(v)                                                                    \
    (lp_vec_reserve((v), (v)->len + 1), memset(&(v)->items[(v)->len], 0, sizeof(*(v)->items)), \
     &(v)->items[(v)->len++])
#define lp_vec_free(v)                                                                         \
    do {                                                                                       \
        free((v)->items);                                                                      \
        (v)->items = NULL;                                                                     \
        (v)->len = (v)->cap = 0;                                                               \
    } while (0)

/* ------------------------------------------------------------------------------------------
 * UTF-8 (utf8.c). Every cut of text in loupe goes through lp_utf8_cut, and every byte that is
 * not UTF-8 is shown one way: as U+FFFD in text (lp_utf8_put), and, for names that must be
 * given back (file paths), also in the escaped form of lp_bytes_escape.
 */

/* Length (1-4) of the well-formed UTF-8 sequence at p[0..n), or 0 when the bytes there are
 * not one (stray continuation byte, overlong form, surrogate, past U+10FFFF, cut short).
 * NUL is a well-formed 1-byte sequence here. */
size_t lp_utf8_seq(const char *p, size_t n);
/* True when p[0..n) is well-formed UTF-8 without NUL (it can be a JSON string as it is). */
bool lp_utf8_valid(const char *p, size_t n);
/* Length of the longest prefix of p[0..n) of at most max bytes that does not end inside a
 * well-formed UTF-8 sequence (code points are never split; a cut may still separate a
 * base from its combining marks, which stays well-formed). n when max >= n. Well-formed
 * text cut anywhere stays well-formed. 0 only when the first character is longer than max.
 * Every cut of text in loupe uses it (snippets, read budgets, messages, result budgets). */
size_t lp_utf8_cut(const char *p, size_t n, size_t max);
/* Copy the NUL-terminated src into dst[0..cap) (cap > 0), cut by lp_utf8_cut when it does
 * not fit; always NUL-terminates. Returns the bytes copied. */
size_t lp_utf8_copy(char *dst, size_t cap, const char *src);
/* Append p[0..n) to b as well-formed UTF-8: each byte that is not part of a well-formed
 * sequence, and each NUL, becomes U+FFFD. */
void lp_utf8_put(lp_buf *b, const char *p, size_t n);
/* printf arguments for "%.*s" that print the NUL-terminated s cut to at most max bytes where
 * a character ends (s is evaluated twice: pass a plain expression). */
#define LP_CUT(s, max) (int)lp_utf8_cut((s), strlen(s), (max)), (s)
/* The escaped form of bytes that may not be UTF-8 (file names), for JSON fields such as
 * `pathBytes`: well-formed UTF-8 is kept, '%', NUL and every other byte becomes %HH
 * (upper-case hex). Percent-decoding (e.g. Python's urllib.parse.unquote_to_bytes) gives the
 * bytes back; so does lp_bytes_unescape. */
void lp_bytes_escape(lp_buf *b, const char *p, size_t n);
/* The bytes of an escaped form into out (reset first); LP_EINVAL when a '%' is not followed
 * by two hex digits. */
lp_status lp_bytes_unescape(lp_str s, lp_buf *out, lp_error *err);

/* ------------------------------------------------------------------------------------------
 * Hashing (XXH3). Content identity is the 128-bit hash; 64-bit is for tables and keys. */
typedef struct lp_hash128 {
    uint64_t hi;
    uint64_t lo;
} lp_hash128;

#define LP_HASH_HEX 33 /* 32 hex digits + NUL */

lp_hash128 lp_hash128_of(const void *p, size_t n);
uint64_t lp_hash64_of(const void *p, size_t n);
uint64_t lp_hash64_seeded(const void *p, size_t n, uint64_t seed);
bool lp_hash128_eq(lp_hash128 a, lp_hash128 b);
int lp_hash128_cmp(lp_hash128 a, lp_hash128 b);
void lp_hash128_hex(lp_hash128 h, char out[LP_HASH_HEX]);
/* Big-endian 16 bytes (the stored form). */
void lp_hash128_bytes(lp_hash128 h, uint8_t out[16]);
lp_hash128 lp_hash128_from_bytes(const uint8_t in[16]);

typedef struct lp_hasher lp_hasher; /* streaming XXH3-128 */
lp_hasher *lp_hasher_new(void);
void lp_hasher_free(lp_hasher *h);
void lp_hasher_update(lp_hasher *h, const void *p, size_t n);
lp_hash128 lp_hasher_digest(const lp_hasher *h);

/* ------------------------------------------------------------------------------------------
 * lp_map: the hash map of the project. Byte-string keys to uint32 values (typically an index
 * into a vector the caller owns), open addressing with linear probing, at most half full,
 * XXH3-64 of the key cached in each slot (compared before the bytes; growing never rehashes).
 * Zero-initialize for an empty map; lp_map_free releases the slots (not the keys).
 *
 * Keys: lp_map_put copies a new key into `a` (valid while the arena lives); with a == NULL
 * the key is borrowed and must outlive the map. Values start at 0 in a new slot.
 * Iteration: slots[0..cap) with hash != 0 are occupied; the order depends only on the keys
 * and the order they were inserted in (the same inserts give the same order).
 * The pointer lp_map_get/lp_map_put return is valid until the next lp_map_put.
 * Not thread-safe: one writer, no concurrent readers while it writes. */
typedef struct lp_map_slot {
    uint64_t hash; /* 0: empty */
    const char *key;
    uint32_t klen;
    uint32_t val;
} lp_map_slot;

typedef struct lp_map {
    lp_map_slot *slots;
    size_t cap, len;
} lp_map;

uint32_t *lp_map_get(const lp_map *m, const void *key, size_t klen);
uint32_t *lp_map_put(lp_map *m, lp_arena *a, const void *key, size_t klen, bool *created);
/* Room for n keys without growing (fewer allocations when n is known; the first put of an
 * empty map otherwise makes 256 slots). Changes the slot order, not the contents. */
void lp_map_reserve(lp_map *m, size_t n);
void lp_map_free(lp_map *m);

/* ------------------------------------------------------------------------------------------
 * lp_pool: the project's worker pool. N threads take the indexes 0..nitems-1 in order, each
 * turns its index into a result (ops->work), and results go through one bounded queue
 * (at most max_items results and max_bytes of their sizes, one result always fits) to the
 * thread that calls lp_pool_pop, in completion order. Meant for "many workers, one writer"
 * (the index build, evidence collection): the popping thread owns every result it gets.
 *
 *   thread_start(ctx) -> per-worker state (may be NULL), on the worker's thread;
 *   work(ctx, state, index, &bytes) -> a result (never NULL), on the worker's thread;
 *   thread_end(ctx, state), on the worker's thread as it exits;
 *   discard(ctx, result) frees a result that will not be popped (after lp_pool_stop).
 *
 * lp_pool_start returns the number of threads started (0 with *thread_err set when none
 * could be; fewer than asked is not an error: the started ones do all the work).
 * lp_pool_pop blocks; NULL once every worker has exited and the queue is empty.
 * lp_pool_stop (any thread): workers take no new index and discard what they finish.
 * lp_pool_finish: stop, discard what is queued, join, release. Call it exactly once after a
 * successful start, from the popping thread. */
typedef struct lp_pool_ops {
    void *(*thread_start)(void *ctx);
    void *(*work)(void *ctx, void *state, size_t index, uint64_t *bytes);
    void (*thread_end)(void *ctx, void *state);
    void (*discard)(void *ctx, void *result);
} lp_pool_ops;

typedef struct lp_pool lp_pool;
unsigned lp_pool_start(lp_pool **out, const lp_pool_ops *ops, void *ctx, size_t nitems,
                       unsigned threads, size_t max_items, uint64_t max_bytes, int *thread_err);
void *lp_pool_pop(lp_pool *p);
void lp_pool_stop(lp_pool *p);
void lp_pool_finish(lp_pool *p);

/* ------------------------------------------------------------------------------------------
 * Paths.
 *
 * Relative paths inside a root are stored normalized: '/' separators, no "." or empty
 * components, no leading or trailing '/', never "..". lp_path_* never touch the disk
 * except lp_path_real.
 */
#define LP_PATH_MAX 4096

/* Lexically normalize `in` into out (collapse //, drop ".", resolve ".." against earlier
 * components). An absolute path stays absolute. A relative path whose ".." would climb
 * above its start fails with LP_EPATH. NUL bytes and paths over LP_PATH_MAX fail too. */
lp_status lp_path_normalize(lp_str in, lp_buf *out, lp_error *err);
/* True if rel is a normalized relative path (as stored), i.e. lp_path_normalize is a no-op,
 * it is not absolute and has no ".." component. */
bool lp_path_is_clean_relative(lp_str rel);
/* realpath(3) into out with a clear error. */
lp_status lp_path_real(const char *path, lp_buf *out, lp_error *err);
/* If abs is root or below root (both absolute, normalized), put the relative part in rel
 * ("" for the root itself) and return true. */
bool lp_path_under(lp_str root, lp_str abs, lp_str *rel);
void lp_path_join(lp_buf *out, lp_str a, lp_str b);
lp_str lp_path_basename(lp_str p);
lp_str lp_path_dirname(lp_str p); /* "" for a bare name */
lp_str lp_path_ext(lp_str p);     /* ".py", or empty */

/* ------------------------------------------------------------------------------------------
 * Logging: stderr only (stdout is the MCP channel), one line per event:
 *   loupe level=info event=index.done root=/x files=12 ms=40
 * LOUPE_LOG selects the level (error, warn, info, debug; default warn); "off" silences. */
typedef enum lp_log_level {
    LP_LOG_ERROR = 0,
    LP_LOG_WARN = 1,
    LP_LOG_INFO = 2,
    LP_LOG_DEBUG = 3,
    LP_LOG_OFF = 4
} lp_log_level;

void lp_log_init_from_env(void);
void lp_log_set_level(lp_log_level lv);
lp_log_level lp_log_get_level(void);
bool lp_log_enabled(lp_log_level lv);
/* fmt is the "key=value ..." tail. */
void lp_log(lp_log_level lv, const char *event, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------------------------------
 * Time. */
uint64_t lp_now_ns(void);      /* monotonic */
int64_t lp_wall_ms(void);      /* milliseconds since the epoch */
/* ISO-8601 UTC "2026-11-30T10:02:11Z" into out. */
void lp_format_iso8601(int64_t wall_ms, char out[32]);

/* ------------------------------------------------------------------------------------------
 * Small utilities. */
#define LP_MIN(a, b) ((a) < (b) ? (a) : (b))
#define LP_MAX(a, b) ((a) > (b) ? (a) : (b))
#define LP_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Parse a whole decimal unsigned number (no sign, no spaces); false on junk or overflow. */
bool lp_parse_u64(lp_str s, uint64_t *out);
/* Read a whole regular file into out, failing with LP_ETOOBIG past max_bytes (decided from
 * the size when it is known). The open never blocks (O_NONBLOCK) and anything but a regular
 * file (fifo, socket, device, folder) is refused with LP_EIO "... is not a regular file
 * (fifo)". Files of a work tree are read with lp_scan_read (src/scan), which also keeps the
 * read inside the root; this is for the state folder, configuration and arguments. */
lp_status lp_read_file(const char *path, size_t max_bytes, lp_buf *out, lp_error *err);
/* "regular file", "folder", "fifo", "socket", "character device", "block device",
 * "symlink" or "special file" for a st_mode. Static string. */
const char *lp_file_type_name(unsigned mode);
/* Map a whole regular file read-only. LP_ENOENT / LP_EIO when it cannot be opened or is not
 * a regular file, LP_ETOOBIG past max_bytes, LP_ECORRUPT when empty; the message names it as
 * "<what> <path>", says what is wrong, then "; <hint>" (hint may be NULL). Release with
 * munmap(*p, *size). */
lp_status lp_map_file(const char *path, const char *what, const char *hint, size_t max_bytes,
                      const void **p, size_t *size, lp_error *err);
/* Write a file atomically: temp file in the same folder, fsync, rename. */
lp_status lp_write_file_atomic(const char *path, const void *p, size_t n, lp_error *err);
/* The same without fsync: readers see the old or the new bytes, never a torn file, but a
 * crash may lose the update. For notes such as a writer's progress, rewritten often. */
lp_status lp_write_file_replace(const char *path, const void *p, size_t n, lp_error *err);
/* Raise the soft open-file limit (RLIMIT_NOFILE) to min(want, hard limit) when it is lower,
 * as Go and many servers do at start: a soft limit of 1024 under a hard one of 1M is a
 * default, not a choice. A hard limit (e.g. `ulimit -n 64` in a shell sets both) is kept,
 * and then builds fail cleanly with LP_ELIMIT. Call once, before any thread. */
void lp_fd_limit_raise(uint64_t want);
/* Descriptors this process can still open under its soft limit (the limit minus those
 * open now); UINT64_MAX when unlimited or unknown. */
uint64_t lp_fd_free(void);

/* mkdir -p with mode 0700 for created folders. */
lp_status lp_mkdir_p(const char *path, lp_error *err);

/* ------------------------------------------------------------------------------------------
 * Memory. Called once at the start of main(), before any thread: reserves the heap (up to
 * reserve_max bytes of address space, an eighth of RLIMIT_AS when one is set) advised for
 * transparent huge pages, so memory is faulted in 2 MiB steps instead of 4 KiB ones, and
 * keeps it (memory freed inside the reserve is not given back). Returns the bytes advised
 * (0: not done, e.g. under a sanitizer's allocator, a reserve under 32 MiB, or
 * LOUPE_NO_HUGEPAGES=1). Nothing is touched up front: RSS grows only with use. */
#define LP_MEM_RESERVE_DEFAULT ((size_t)256 << 20) /* commands that run and exit (not mcp) */
size_t lp_mem_tune(size_t reserve_max);

/* ------------------------------------------------------------------------------------------
 * Optional shared libraries, loaded on first use (libgit2 for `changes`, libcurl for a
 * remote embedding provider): linking them would make the dynamic loader map about forty
 * libraries at every start of every command.
 *
 * Tries each name of `sonames` (NULL-terminated) with dlopen, then resolves symbols[0..n)
 * into fns[0..n) (cast each to its real type). On failure nothing is kept open and err says
 * which library `needed_by` needs and which Debian `package` provides it (LP_EUNSUPPORTED).
 * Not synchronized: callers load once (pthread_once) and keep the result. */
typedef void (*lp_dynfn)(void);
lp_status lp_dynlib_load(const char *const *sonames, const char *const *symbols, lp_dynfn *fns,
                         size_t n, const char *needed_by, const char *package, lp_error *err);

#endif
