/*
 * scan.h: the contract of src/scan: walking a root with git's ignore semantics, reading
 * files with the binary/size checks, content hashing, and the Merkle root.
 *
 * The walk only stats; the index layer decides (stat-first) which files to read and hash.
 * Paths handed out are normalized relative paths (see core.h), sorted bytewise.
 */
#ifndef LP_SCAN_H
#define LP_SCAN_H

#include "core/core.h"

#define LP_SCAN_MAX_FILE_BYTES ((uint64_t)8 << 20)    /* 8 MiB per searchable file */
#define LP_SCAN_MAX_TOTAL_BYTES ((uint64_t)512 << 20) /* per publication */
#define LP_SCAN_BINARY_PROBE 8192                     /* NUL in these first bytes: binary */

/* Why a path is not indexed. Stored and reported: append only. */
typedef enum lp_skip_reason {
    LP_SKIP_NONE = 0,
    LP_SKIP_BINARY = 1,           /* NUL in the first 8 KiB */
    LP_SKIP_TOO_LARGE = 2,        /* over max_file_bytes */
    LP_SKIP_LIMIT_REACHED = 3,    /* past max_total_bytes for the publication */
    LP_SKIP_UNREADABLE = 4,       /* permission or I/O error (file or folder) */
    LP_SKIP_SYMLINK_OUTSIDE = 5,  /* symlink that leads out of the root (or dangling) */
    LP_SKIP_SPECIAL = 6,          /* fifo, socket, device */
    LP_SKIP_IGNORED = 7,          /* matched ignore rules (counted, not listed) */
    LP_SKIP_SYMLINK_DIR = 8,      /* symlinked folder: not followed (cycles) */
    LP_SKIP_COUNT
} lp_skip_reason;

const char *lp_skip_reason_name(lp_skip_reason r); /* "binary", "too_large", ... */

typedef struct lp_scan_entry {
    const char *path; /* normalized relative path; arena-owned */
    uint64_t size;
    int64_t mtime_ns;
    uint64_t ino;
    uint32_t mode;
} lp_scan_entry;

typedef struct lp_scan_skip {
    const char *path; /* arena-owned */
    lp_skip_reason reason;
} lp_scan_skip;

typedef struct lp_scan_opts {
    uint64_t max_file_bytes;  /* 0 = LP_SCAN_MAX_FILE_BYTES */
    const char *state_dir;    /* absolute; never walked into (may be NULL) */
    bool use_default_ignores; /* .git, node_modules, build/cache folders (see scan.c) */
    lp_buf *progress_line;    /* unused by scan; reserved */
} lp_scan_opts;

typedef struct lp_scan_result {
    lp_scan_entry *entries; /* regular files that passed ignore rules and the size limit,
                               sorted by path */
    size_t nentries;
    lp_scan_skip *skipped;  /* every skip except LP_SKIP_IGNORED, sorted by path */
    size_t nskipped;
    uint64_t skip_counts[LP_SKIP_COUNT]; /* includes ignored */
    uint64_t dirs_walked;
} lp_scan_result;

/* Refuse roots that are too broad to index: "/", $HOME and the state folder (or a parent
 * of it). root must be absolute and real. LP_EBROADROOT with a message naming the option
 * (--allow-broad-root) when refused. */
lp_status lp_scan_check_root(const char *root, const char *state_dir, lp_error *err);

/* Walk root (absolute, real). Results are allocated in arena. Unreadable folders are
 * recorded as skips, never fatal; fails only when root itself cannot be opened. */
lp_status lp_scan_walk(const char *root, const lp_scan_opts *opts, lp_arena *arena,
                       lp_scan_result *out, lp_error *err);

/* Read root/rel into out (bounded by max_bytes). *skip is set to LP_SKIP_BINARY when a NUL
 * is in the first 8 KiB (out then holds nothing useful), LP_SKIP_TOO_LARGE past max_bytes,
 * LP_SKIP_UNREADABLE on an I/O error (the status stays LP_OK in those three cases: a skip is
 * not a failure). The file is opened without following a final symlink. */
lp_status lp_scan_read(const char *root, const char *rel, uint64_t max_bytes, lp_buf *out,
                       lp_skip_reason *skip, lp_error *err);

/* Ignore rules, usable on their own (tests compare them with `git check-ignore`). */
typedef struct lp_ignore lp_ignore;
/* Rules for root: .gitignore files at every level (loaded lazily as folders are entered),
 * .git/info/exclude, .loupeignore files, and the defaults when use_defaults. */
lp_ignore *lp_ignore_new(const char *root, bool use_defaults);
void lp_ignore_free(lp_ignore *ig);
/* Is rel (normalized relative) ignored? is_dir says whether it names a folder. A path inside
 * an ignored folder is ignored (as git does: a file cannot be re-included below an
 * excluded parent folder). */
bool lp_ignore_check(lp_ignore *ig, const char *rel, bool is_dir);

/* Merkle root over (path, content hash) pairs: independent of the order given. The pairs
 * are sorted internally (the arrays are not modified). */
lp_hash128 lp_merkle_root(const char *const *paths, const lp_hash128 *hashes, size_t n);

#endif
