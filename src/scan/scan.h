/*
 * scan.h: the contract of src/scan: walking a root with git's ignore semantics, reading
 * files with the binary/size checks, content hashing, and the Merkle root.
 *
 * The walk only stats; the index layer decides (stat-first) which files to read and hash.
 * Paths handed out are normalized relative paths (see core.h), sorted bytewise.
 *
 * Ignore rules, highest priority first (the first list with a matching rule decides, and
 * inside one list the last matching line wins, as in git):
 *   1. `.git` (file or folder, any depth): always excluded, never re-includable;
 *   2. `.loupeignore` files (gitignore syntax, any level, deepest first): the user's last
 *      word, so `!name/` there re-includes a default or a git-ignored path;
 *   3. the defaults when use_default_ignores: the folders node_modules, bower_components,
 *      __pycache__, .venv, .mypy_cache, .pytest_cache, .ruff_cache, .tox, .nox, .gradle,
 *      .cache, .eggs, .hg, .svn, .next, .nuxt, .parcel-cache, .turbo, .terraform,
 *      .sass-cache (dir-only basename rules; above .gitignore so a whitelist .gitignore
 *      that re-includes every folder does not pull node_modules back in);
 *   4. `.gitignore` files, deepest first, ONLY when root is inside a git repository (root
 *      or an ancestor below $HOME has .git), as ripgrep does by default: a downloaded or
 *      unpacked tree is not a repository and its .gitignore files mean nothing to git
 *      (Debian's kernel tarball ignores its whole tree with a root "/" + "*" rule); .loupeignore files and
 *      the defaults apply everywhere. (A folder's own .gitignore does not apply to the
 *      folder itself, as in git); when root is below the top of a git repository (root has
 *      no .git but an ancestor below $HOME has), the .gitignore files of the folders from
 *      that top down to root's parent apply too, after root's own (root itself is never
 *      excluded: the caller chose it; and when the repository's rules ignore the root
 *      folder itself, e.g. a vendored or downloaded tree under an ignored folder, none of
 *      those outer rules nor info/exclude apply: root is treated as its own top);
 *   5. `$GIT_DIR/info/exclude` of the repository (worktrees: of the common git folder).
 * A path inside an excluded folder is excluded (a file cannot be re-included below an
 * excluded parent folder). Matching is case-sensitive; .gitignore/.loupeignore files that
 * are symlinks or larger than 4 MiB are not read (git refuses symlinked ones too).
 * Global git excludes (core.excludesFile) are not consulted.
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
    LP_SKIP_BINARY = 1,          /* NUL in the first 8 KiB */
    LP_SKIP_TOO_LARGE = 2,       /* over max_file_bytes */
    LP_SKIP_LIMIT_REACHED = 3,   /* past max_total_bytes for the publication */
    LP_SKIP_UNREADABLE = 4,      /* permission denied (file or folder); also, counted but
                                    not listed, a path longer than LP_PATH_MAX */
    LP_SKIP_SYMLINK_OUTSIDE = 5, /* symlink that leads out of the root */
    LP_SKIP_SPECIAL = 6,         /* fifo, socket, device */
    LP_SKIP_IGNORED = 7,         /* matched ignore rules (counted, not listed) */
    LP_SKIP_SYMLINK_DIR = 8,     /* symlinked folder: not followed (cycles) */
    LP_SKIP_CHANGING = 9,        /* rewritten while being read, twice: never stored torn */
    LP_SKIP_SYMLINK_LOOP = 10,   /* symlink that leads back to itself (ELOOP) */
    LP_SKIP_SYMLINK_DANGLING = 11, /* symlink whose target does not exist */
    LP_SKIP_PARSE_BUDGET = 12,   /* not skipped: indexed as text, its parse went past the
                                    per-file budget (counted with the skips, never stored
                                    in `skipped`) */
    LP_SKIP_COUNT
} lp_skip_reason;

/* "none", "binary", "too_large", "limit_reached", "unreadable", "symlink_outside_root",
 * "special", "ignored", "symlink_dir", "changed_while_reading", "symlink_loop",
 * "symlink_dangling", "parse_budget"; "unknown" for anything else.
 * Static string. */
const char *lp_skip_reason_name(lp_skip_reason r);
/* The same as a phrase for messages ("not a regular file (a fifo, socket or device)",
 * "a symlink that leads out of the root or dangles", ...). Static string. */
const char *lp_skip_reason_text(lp_skip_reason r);

typedef struct lp_scan_entry {
    const char *path;   /* normalized relative path; arena-owned */
    const char *target; /* NULL for a regular file; for a symlink whose target is a regular
                           file inside the root: that target's normalized relative path
                           (arena-owned). The entry is indexed under `path`; size, mtime_ns,
                           ino and mode are the target's. */
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
    bool use_default_ignores; /* the defaults listed at the top of this file */
    lp_buf *progress_line;    /* unused by scan; reserved */
} lp_scan_opts;

typedef struct lp_scan_result {
    lp_scan_entry *entries; /* regular files (and symlinks to regular files inside the root)
                               that passed ignore rules and the size limit, sorted bytewise
                               by path */
    size_t nentries;
    lp_scan_skip *skipped; /* every skip except LP_SKIP_IGNORED, sorted bytewise by path */
    size_t nskipped;
    uint64_t skip_counts[LP_SKIP_COUNT]; /* includes ignored: one per ignored file or folder
                                            (the contents of an ignored folder are not
                                            walked, so not counted); the state folder
                                            counts as ignored */
    uint64_t dirs_walked;                /* folders listed, the root included */
    uint64_t bytes;                      /* sum of entries[].size */
} lp_scan_result;

/* Refuse roots that are too broad to index: exactly "/", $HOME (compared after realpath)
 * and the state folder itself or any folder inside it. A parent of the state folder is
 * accepted (the walk never enters the state folder), so a project under $HOME with the
 * state folder in ~/.local/state is fine. root must be absolute (compared after lexical
 * normalization). LP_EBROADROOT with a message naming --allow-broad-root when refused;
 * LP_EPATH when root is not absolute. A caller that allows broad roots does not call this. */
lp_status lp_scan_check_root(const char *root, const char *state_dir, lp_error *err);

/* Walk root (absolute, real). Results are allocated in arena (valid until it is rewound or
 * released). Folders and files that cannot be opened or stat'ed for lack of permission
 * (EACCES, EPERM) are recorded as LP_SKIP_UNREADABLE; paths that vanish during the walk are
 * left out. Any other error (a limit: EMFILE, ENFILE, ENOMEM; EIO; an ignore-rule file that
 * exists but cannot be read for such a reason) stops the walk: LP_ELIMIT naming the limit
 * and what to do, or LP_EIO, with *out empty, because a partial walk would make a build
 * drop files it could not look at. Also fails when root itself cannot be opened (LP_ENOENT,
 * LP_EIO, LP_ELIMIT) or lies inside opts->state_dir (LP_EPATH). At most 16 folder
 * descriptors (plus the root's) are open at any time, whatever the depth.
 * Symlinks are never followed out of the root: a symlink to a regular file inside the root
 * is an entry (see lp_scan_entry.target); one that dangles or leads outside the root or
 * into the state folder is LP_SKIP_SYMLINK_OUTSIDE; a symlink to a folder inside the root
 * is LP_SKIP_SYMLINK_DIR and is not followed. Fifos, sockets and devices are
 * LP_SKIP_SPECIAL. Ignore rules see a symlink as a file (as git does); the ignore status
 * of a symlink's target is not consulted. A path longer than LP_PATH_MAX is counted as
 * LP_SKIP_UNREADABLE (and logged) but not listed, since it does not fit a path. */
lp_status lp_scan_walk(const char *root, const lp_scan_opts *opts, lp_arena *arena,
                       lp_scan_result *out, lp_error *err);

/* Read root/rel into out (reset first; bounded by max_bytes, 0 = LP_SCAN_MAX_FILE_BYTES,
 * and by out's own limit). *skip is set, with the status LP_OK (a skip is not a failure),
 * to LP_SKIP_BINARY when a NUL is in the first 8 KiB, LP_SKIP_TOO_LARGE past max_bytes,
 * LP_SKIP_UNREADABLE on a permission error, LP_SKIP_SPECIAL when rel is a fifo,
 * socket or device, LP_SKIP_SYMLINK_OUTSIDE / LP_SKIP_SYMLINK_DIR for a symlink that
 * leads out of the root (or dangles) / to a folder; out is then empty. Otherwise *skip is
 * LP_SKIP_NONE and out holds the whole file.
 *
 * Torn content: the file is fstat'ed before and after the read; when its size, mtime or
 * ctime moved, or the bytes read differ from the size, or (for a file modified in the last
 * 2 s, which may be inside a write(2) that stamped mtime before the first fstat) a second
 * read gives other bytes, it was rewritten during the read and is read once more; when that read changes too, *skip is LP_SKIP_CHANGING (out empty), so
 * a half-old, half-new text is never handed out. (LOUPE_TEST_READ_DELAY_US=N sleeps N
 * microseconds between 64 KiB chunks: a test hook that widens the window.)
 *
 * Safety: rel must be a clean relative path (LP_EPATH otherwise). The file is opened below
 * root with no symlink in any component (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, or
 * component by component with O_NOFOLLOW on kernels without openat2) and O_NONBLOCK (a
 * fifo swapped in never blocks). When rel itself is a symlink, its realpath must be inside
 * root, and that resolved path is then opened the same symlink-free way, so a link changed
 * between the check and the open can never lead the read outside root.
 * Errors: LP_ENOENT when rel no longer exists (ENOENT, ENOTDIR), LP_EINVAL when it names a
 * folder. Only a permission error (EACCES, EPERM) is LP_SKIP_UNREADABLE: any other failure
 * to open, stat or read (a limit such as EMFILE, ENFILE, ENOMEM, or EIO) is an error
 * (LP_ELIMIT naming the limit, LP_EIO, ...), never a skip, because it says nothing about
 * the file and a build must not drop the file for it. */
lp_status lp_scan_read(const char *root, const char *rel, uint64_t max_bytes, lp_buf *out,
                       lp_skip_reason *skip, lp_error *err);

/* Ignore rules, usable on their own (tests compare them with `git check-ignore`). */
typedef struct lp_ignore lp_ignore;
/* Rules for root (absolute, real): .gitignore files at every level (read lazily, the first
 * time a query needs a folder), .git/info/exclude, .loupeignore files, and the defaults
 * when use_defaults. Never NULL (missing or unreadable rule files mean no rules); the
 * caller frees with lp_ignore_free. Not thread-safe: one lp_ignore per thread. */
lp_ignore *lp_ignore_new(const char *root, bool use_defaults);
void lp_ignore_free(lp_ignore *ig); /* NULL is a no-op */
/* Is rel (normalized relative) ignored? is_dir says whether it names a folder. A path inside
 * an ignored folder is ignored (as git does: a file cannot be re-included below an
 * excluded parent folder). Queries in sorted order are cheapest (folders' rules are kept
 * while queries stay below them). "" and unclean paths give false. */
bool lp_ignore_check(lp_ignore *ig, const char *rel, bool is_dir);

/* Git's wildmatch on lengths (no NUL needed): `*`, `?`, `[...]` classes (ranges, `!`/`^`
 * negation, `[:alpha:]`-style classes), `\` escapes, and with LP_WILDMATCH_PATHNAME `*`,
 * `?` and classes never match '/' while a `**` that fills a whole path segment matches
 * any number of folders. */
#define LP_WILDMATCH_PATHNAME 1u
bool lp_wildmatch(lp_str pattern, lp_str text, unsigned flags);

/* Merkle root over (path, content hash) pairs: independent of the order given. The pairs
 * are sorted internally (the arrays are not modified). paths must be normalized relative
 * paths (they are not re-normalized).
 *
 * Construction (version 1), a tree of folders like git's:
 *   - pairs are sorted bytewise by path, then by hash (duplicates are kept);
 *   - a folder's children are its files and its subfolders in that same order (a subfolder
 *     sorts as its name followed by '/');
 *   - node(folder) = XXH3-128 over "LPM1" followed, per child, by one kind byte ('f' file,
 *     'd' folder), the name's length as 4 bytes big-endian, the name's bytes, and 16
 *     bytes big-endian (lp_hash128_bytes) of the child's hash: the file's content hash or
 *     the subfolder's node;
 *   - the root is node(""); the empty set gives node of an empty folder.
 * A diff can compare two trees folder by folder (lp_merkle_folders) and descend only where
 * the nodes differ. */
lp_hash128 lp_merkle_root(const char *const *paths, const lp_hash128 *hashes, size_t n);

typedef struct lp_merkle_folder {
    const char *path; /* folder path ("" for the root); arena-owned */
    lp_hash128 hash;  /* node(folder) as above */
} lp_merkle_folder;

/* Every folder's node, sorted bytewise by path (the root "" first); *out is arena-owned.
 * Returns the root node (the hash of the "" folder). */
lp_hash128 lp_merkle_folders(const char *const *paths, const lp_hash128 *hashes, size_t n,
                             lp_arena *arena, lp_merkle_folder **out, size_t *nout);

#endif
