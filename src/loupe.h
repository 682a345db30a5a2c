/*
 * loupe.h: the public C API of loupe (libloupe.a, libloupe.so; pkg-config name `loupe`).
 *
 * An engine (lp_engine) reads the configuration once, owns the state folder, the embedding
 * model and the index fingerprint, and answers typed calls: a request struct in, a result
 * struct out. Every result is allocated in its own arena and freed with one call
 * (lp_engine_*_result_free); every string and array in a result is owned by that result
 * and valid until it is freed.
 *
 * Errors: each call returns an lp_status (LP_OK = 0, negative on failure) and fills the
 * caller's lp_error (may be NULL): `code` is the status, `reason` a stable snake_case code
 * to branch on, `msg` a sentence for a person. Never parse `msg`.
 *
 * Threads: an engine may be used from several threads at once, except lp_engine_free, which
 * must run after every other call on it has returned. Settings are process-wide (lower
 * layers read them): engines made with different settings in one process share the most
 * recently made engine's settings; make engines before starting threads that use them.
 *
 * ABI: only lp_-prefixed symbols are exported. Structs a caller fills (lp_config and the
 * requests) must be zero-initialized (`= {0}`); zero always means the documented default,
 * so fields added later keep old callers working when they recompile. Until version 1.0 the
 * SONAME is libloupe.so.0 and any change to a public struct's layout changes
 * LOUPE_ABI_VERSION; check it with lp_engine_abi_version() when loading at run time.
 *
 * This header includes only the C standard library, so it can be installed alone.
 */
#ifndef LOUPE_H
#define LOUPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LOUPE_VERSION "0.1.0"
#define LOUPE_ABI_VERSION 1

/* ------------------------------------------------------------------------------------------
 * Status and errors. The numeric values are stable (they appear in logs). */

typedef enum lp_status {
    LP_OK = 0,
    LP_ERROR = -1,         /* generic failure; msg says what */
    LP_ENOMEM = -2,        /* memory limit reached (never plain malloc failure: that aborts) */
    LP_EINVAL = -3,        /* bad argument or input */
    LP_ENOENT = -4,        /* file, root, symbol or handle not found */
    LP_EIO = -5,           /* read/write failure */
    LP_ETOOBIG = -6,       /* input past a documented limit */
    LP_EBUSY = -7,         /* another writer owns the root */
    LP_EPATH = -8,         /* path refused: outside the root, escape, NUL, too long */
    LP_ECORRUPT = -9,      /* stored state is damaged */
    LP_ECANCELED = -10,    /* operation cancelled */
    LP_ENOTINDEXED = -11,  /* root has no publication */
    LP_EREINDEX = -12,     /* publication fingerprint differs from this binary */
    LP_EAMBIGUOUS = -13,   /* a name resolves to several things */
    LP_EUNSUPPORTED = -14, /* not supported for this language/input */
    LP_EBROADROOT = -15,   /* root is /, $HOME or the state directory */
    LP_EEXPIRED = -16,     /* continuation handle expired or drifted */
    LP_ESQL = -17,         /* SQLite failure */
    LP_EEXIST = -18,       /* already exists */
    LP_EUSAGE = -19,       /* command-line usage error */
    LP_ELIMIT = -20,       /* a process or system limit was reached (open files, kernel
                              memory, file size): not a property of the input; retry after
                              raising the limit the message names */
    LP_ENOSPC = -21,       /* no space left on the device (or quota) */
} lp_status;

#define LP_ERROR_MSG_MAX 256

#define LP_ERROR_REASON_MAX 40

/* Filled by every call that fails (pass NULL when the detail is not wanted). Caller-owned,
 * usually on the stack; `lp_error err = {0};`. */
typedef struct lp_error {
    lp_status code;             /* the status the call returned */
    char msg[LP_ERROR_MSG_MAX]; /* one sentence a user can act on (UTF-8) */
    char reason[LP_ERROR_REASON_MAX]; /* stable snake_case code: the status's code
                                         ("not_indexed", "busy", ...) or a finer one
                                         ("broad_root_refused", "config_invalid");
                                         filled by every lp_engine_* call that fails */
} lp_error;

/* The stable snake_case code of a status ("ok", "path_refused", ...). Static, never NULL. */
const char *lp_status_code(lp_status s); /* thread-safe */

/* ------------------------------------------------------------------------------------------
 * The engine. */

typedef struct lp_engine lp_engine;

/* One setting given by the caller: name is the loupe.toml key ("frozen_ttl_ms") or the
 * environment variable ("LOUPE_FROZEN_TTL_MS"); value as text ("1000", "true", a path), or
 * NULL to drop the environment's value (the files' or the default then applies).
 * docs/ARCHITECTURE.md lists every setting with its type, default and bounds. */
typedef struct lp_config_setting {
    const char *name;
    const char *value;
} lp_config_setting;

/* How to configure an engine. Zero-initialize; every field is optional. Sources, lowest
 * first: the table's defaults, <state folder>/loupe.toml (or config_file), <root>/loupe.toml
 * (only the settings that change how that root is searched or built), the environment
 * (unless ignore_environment), then settings[] and state_dir. */
typedef struct lp_config {
    const char *state_dir;   /* the state folder (absolute); NULL: LOUPE_HOME, else
                                $XDG_STATE_HOME/loupe, else ~/.local/state/loupe */
    const char *root;        /* NULL, or a folder whose loupe.toml is read too */
    const char *config_file; /* NULL: <state folder>/loupe.toml when it exists; else this
                                file, which must exist */
    const lp_config_setting *settings; /* the caller's overrides (copied) */
    size_t nsettings;
    bool ignore_environment; /* do not read LOUPE_* variables (HOME still locates the
                                default state folder) */
} lp_config;

/* Make an engine. cfg may be NULL (all defaults). Fails with LP_EINVAL, reason
 * "config_invalid", naming the file and line or the setting and what to do, when a
 * setting is unknown or out of bounds; reason "state_folder" when no state folder can be
 * found. *out is the caller's: free it with lp_engine_free. cfg and everything it points to
 * is copied (the caller may free it on return). Thread-safe, but the settings it installs
 * are the process's (see "Threads" above): make engines before the threads that use them. */
lp_status lp_engine_new(const lp_config *cfg, lp_engine **out, lp_error *err);
/* Free an engine and everything it owns (NULL is a no-op). Not concurrent with other calls
 * on e. Results already returned stay valid (they own their memory). */
void lp_engine_free(lp_engine *e);
/* LOUPE_ABI_VERSION of the library that is running. Thread-safe. */
int lp_engine_abi_version(void);
/* The loupe version ("0.x.y"). Static; thread-safe. */
const char *lp_engine_version(void);
/* The state folder (absolute). Borrowed: valid until lp_engine_free. Thread-safe (the
 * engine's strings never change after lp_engine_new), as are the next two calls. */
const char *lp_engine_state_dir(const lp_engine *e);
/* The index fingerprint this engine builds and serves ("schema=..;...;embedding=.."): a
 * publication with another one is reported as requires_reindex. Borrowed, as above. */
const char *lp_engine_fingerprint(const lp_engine *e);
/* The effective value of a setting as text (its default when unset); NULL for an unknown
 * name. Secrets read "(set)". Borrowed: valid until lp_engine_free. */
const char *lp_engine_setting(const lp_engine *e, const char *name);

/* ------------------------------------------------------------------------------------------
 * Indexing: create (the first build; on an indexed root the same as sync), sync (only what
 * changed on disk), reindex (rebuild everything). One writer per root: a second build of
 * the same root, in this process or another, fails with LP_EBUSY. Thread-safe. */

typedef enum lp_engine_index_op {
    LP_ENGINE_CREATE = 0,
    LP_ENGINE_SYNC = 1,
    LP_ENGINE_REINDEX = 2,
} lp_engine_index_op;

typedef struct lp_engine_index_request {
    const char *path;          /* a folder (required); its real path becomes the root */
    lp_engine_index_op op;
    bool allow_broad_root;     /* accept /, $HOME and the state folder */
    uint64_t max_total_bytes;  /* 0: the root's remembered limit, else the setting */
    unsigned threads;          /* parse workers; 0: the online CPUs */
    const volatile int *cancel; /* optional: non-zero stops the build (LP_ECANCELED; the
                                   previous publication stays current) */
    /* optional: called from the building thread a few times a second; phase is static
     * ("scanning", "indexing", "linking", "collecting", "publishing") */
    void (*progress)(void *ctx, const char *phase, uint64_t files_done, uint64_t files_total);
    void *progress_ctx;
} lp_engine_index_request;

typedef struct lp_engine_index_result {
    const char *root;        /* the indexed root (real path) */
    int64_t publication_id;  /* the new publication, or the current one when unchanged */
    bool published;          /* false: nothing changed */
    bool partial;            /* the searchable-byte limit was reached */
    uint64_t files, added, changed, deleted, unchanged;
    uint64_t symbols, chunks;
    uint64_t ms_total;
} lp_engine_index_result;

/* *out (NULL on failure) is the caller's: free it with lp_engine_index_result_free (NULL is
 * a no-op; not concurrent with reads of the same result). Thread-safe; blocks until the
 * build ends (seconds to minutes; req->progress reports on the way). */
lp_status lp_engine_index(lp_engine *e, const lp_engine_index_request *req,
                          lp_engine_index_result **out, lp_error *err);
void lp_engine_index_result_free(lp_engine_index_result *r);

/* ------------------------------------------------------------------------------------------
 * Search: one question against the current publication of the indexed root containing
 * path. Reads only (never writes the index; a continuation set may be written to the state
 * folder). Thread-safe. LP_ENOTINDEXED when the root has no publication, LP_EREINDEX when
 * it was built with another fingerprint. */

typedef struct lp_engine_search_request {
    const char *path;  /* the root or any folder inside it (required) */
    const char *query; /* free text with the query operators of `loupe search` (required) */
    unsigned limit;    /* results wanted; 0: 10; at most 200 */
    const char *scope; /* NULL: "runtime"; or "tests", "docs", "mixed" */
    const char *group; /* NULL: "owner" (one result per owning symbol); or "file" */
} lp_engine_search_request;

typedef struct lp_engine_hit {
    unsigned rank;              /* 1-based */
    double score;
    const char *file;           /* relative to the root */
    unsigned start_line, end_line; /* the owner's span (1-based, inclusive) */
    const char *symbol;         /* the owner's name; NULL for a region without one */
    const char *qualified_name; /* NULL when none */
    const char *kind;           /* "function", "method", "class", ..., "section", "region" */
    const char *id;             /* "sym:..." for a symbol, NULL otherwise */
    const char *breadcrumbs;    /* "module > Enclosing > owner", NULL when none */
    const char *snippet;        /* numbered source lines ("88| ...") */
    unsigned snippet_start_line;
    bool stale;                 /* the file changed on disk since the publication */
} lp_engine_hit;

typedef struct lp_engine_search_result {
    const char *root;
    int64_t publication_id;
    double confidence;        /* in [0, 1]: the answer holds what was asked for */
    size_t nhits;
    const lp_engine_hit *hits; /* best first */
    size_t nwarnings;
    const char *const *warnings; /* "code: sentence" */
    size_t total;             /* results kept; more than nhits when a continuation exists */
    const char *continuation; /* `loupe more` handle for the rest, NULL when complete */
} lp_engine_search_result;

/* *out (NULL on failure) is the caller's: every string and array in it is owned by it and
 * freed with it by lp_engine_search_result_free (NULL is a no-op). Thread-safe. */
lp_status lp_engine_search(lp_engine *e, const lp_engine_search_request *req,
                           lp_engine_search_result **out, lp_error *err);
void lp_engine_search_result_free(lp_engine_search_result *r);

/* ------------------------------------------------------------------------------------------
 * Status and freshness of the indexed root containing path. Reads only; thread-safe. */

typedef struct lp_engine_status_result {
    const char *root;
    const char *state;       /* not_indexed, indexing, ready, stale, requires_reindex,
                                damaged */
    int64_t publication_id;  /* 0 when none */
    int64_t published_ms;    /* Unix time of the publication in milliseconds */
    uint64_t files;          /* in the publication */
    bool freshness_checked;  /* check_fresh was asked: the counts below are meaningful */
    uint64_t changed, added, deleted; /* on disk since the publication, by stat */
} lp_engine_status_result;

/* A folder that no index covers is an answer (state "not_indexed"), not an error.
 * check_fresh walks the tree (stat only; tens of milliseconds on 10,000 files). *out (NULL
 * on failure) is the caller's: free it with lp_engine_status_result_free. Thread-safe. */
lp_status lp_engine_status(lp_engine *e, const char *path, bool check_fresh,
                           lp_engine_status_result **out, lp_error *err);
void lp_engine_status_result_free(lp_engine_status_result *r);

#ifdef __cplusplus
}
#endif

#endif
