/*
 * settings.h: every setting of loupe in one table, and the process snapshot lower modules
 * read them from.
 *
 * The table (LP_SETTINGS below) is the only list: name, environment variable, type,
 * default, bounds, one line of documentation. docs/ARCHITECTURE.md's settings table is
 * generated from it (`loupe debug-settings --markdown`) and a unit test fails when the two
 * differ.
 *
 * Where values come from: src/api/config.c builds a snapshot (environment, then the
 * loupe.toml files, then the caller's overrides; see docs/decisions/0018) when an engine is
 * made (lp_engine_new) and installs it here. Until one is installed (unit tests, tools that
 * link the modules without an engine), an accessor reads the environment variable at the
 * moment of the call, which is what every module did before the table existed.
 *
 * Invariants: a value is NULL (unset) or a NUL-terminated string; typed accessors never
 * fail (an unparsable or out-of-range value gives the default, as before); installed
 * snapshots are never freed while the process runs (a reader may hold one of their strings),
 * and installing one equal to the current one keeps the current one.
 */
#ifndef LP_CORE_SETTINGS_H
#define LP_CORE_SETTINGS_H

#include "core/core.h"

typedef enum lp_setting_type {
    LP_SETTING_STR = 0,  /* free text (a path, a list, a tuning string) */
    LP_SETTING_U64 = 1,  /* a whole number in [min, max] */
    LP_SETTING_BOOL = 2, /* 1/0, true/false, yes/no, on/off (case-insensitive) */
} lp_setting_type;

/* Flags of a setting. */
#define LP_SETTING_ROOT 1u /* may come from <root>/loupe.toml: it only changes how a search
                              or build of that root behaves, never where data goes or what
                              is contacted (a cloned repository is not trusted) */
#define LP_SETTING_TEST 2u /* a test hook: environment only, never from a file */
#define LP_SETTING_ENV 4u  /* environment or caller only (never from a loupe.toml) */
#define LP_SETTING_SECRET 8u /* never printed (shown as "(set)") */

/* X(ID, env, type, default, min, max, flags, doc). The toml key is the variable without
 * LOUPE_ in lower case. Keep the order: documentation follows it. */
#define LP_SETTINGS(X)                                                                        \
    X(HOME, "LOUPE_HOME", STR, "", 0, 0, LP_SETTING_ENV,                                      \
      "state folder (absolute; default $XDG_STATE_HOME/loupe, else ~/.local/state/loupe; "   \
      "set but empty is an error)")                                                           \
    X(LOG, "LOUPE_LOG", STR, "warn", 0, 0, 0,                                                 \
      "stderr log level: error, warn, info, debug, off")                                      \
    X(DENSE, "LOUPE_DENSE", BOOL, "0", 0, 1, 0,                                               \
      "builds store chunk vectors and searches use the dense channel (in the fingerprint: "  \
      "switching needs a reindex)")                                                           \
    X(EMBED_MODEL, "LOUPE_EMBED_MODEL", STR, "", 0, 0, 0,                                     \
      "embedding model file instead of the built-in one; none turns the model off")          \
    X(EMBED_URL, "LOUPE_EMBED_URL", STR, "", 0, 0, 0,                                         \
      "OpenAI-compatible embeddings endpoint (replaces the model; needs EMBED_REMOTE_MODEL "  \
      "and EMBED_DIM)")                                                                       \
    X(EMBED_REMOTE_MODEL, "LOUPE_EMBED_REMOTE_MODEL", STR, "", 0, 0, 0,                       \
      "model name sent to LOUPE_EMBED_URL")                                                   \
    X(EMBED_DIM, "LOUPE_EMBED_DIM", U64, "0", 2, 8192, 0,                                     \
      "dimension of the vectors LOUPE_EMBED_URL returns")                                     \
    X(EMBED_TIMEOUT_MS, "LOUPE_EMBED_TIMEOUT_MS", U64, "15000", 1, 600000, 0,                 \
      "timeout of one request to LOUPE_EMBED_URL")                                            \
    X(EMBED_API_KEY, "LOUPE_EMBED_API_KEY", STR, "", 0, 0, LP_SETTING_SECRET,                 \
      "bearer token for LOUPE_EMBED_URL")                                                     \
    X(SIMD, "LOUPE_SIMD", STR, "", 0, 0, 0,                                                   \
      "cap the vector scan's instruction set: portable, sse41 or avx2 (default: the best "   \
      "the CPU has)")                                                                         \
    X(MAX_TOTAL_BYTES, "LOUPE_MAX_TOTAL_BYTES", U64, "536870912", 1, UINT64_MAX,              \
      LP_SETTING_ROOT,                                                                        \
      "searchable bytes per publication when the root has no remembered --max-total-bytes; " \
      "past it the publication is partial (limit_reached)")                                   \
    X(SYNC_REBUILD_PERCENT, "LOUPE_SYNC_REBUILD_PERCENT", U64, "20", 0, 100, LP_SETTING_ROOT, \
      "a sync touching this percentage of the files rebuilds evidence from nothing (0: "     \
      "never)")                                                                               \
    X(SYNC_REBUILD_MIN_FILES, "LOUPE_SYNC_REBUILD_MIN_FILES", U64, "1000", 0, UINT64_MAX,     \
      LP_SETTING_ROOT, "...in a tree of at least this many files")                            \
    X(PARSE_BUDGET_MB, "LOUPE_PARSE_BUDGET_MB", U64, "256", 0, 16777216, LP_SETTING_ROOT,     \
      "memory budget of one file's parse; past it the file is kept as text (parse_budget)")   \
    X(PARSE_BUDGET_MS, "LOUPE_PARSE_BUDGET_MS", U64, "30000", 0, UINT64_MAX, LP_SETTING_ROOT, \
      "time budget of one file's parse")                                                      \
    X(FROZEN_TTL_MS, "LOUPE_FROZEN_TTL_MS", U64, "1800000", 1, UINT64_MAX, 0,                 \
      "lifetime of a frozen result set (continuation handles)")                               \
    X(FROZEN_MAX_SETS, "LOUPE_FROZEN_MAX_SETS", U64, "256", 1, UINT64_MAX, 0,                 \
      "frozen result sets kept")                                                              \
    X(FROZEN_MAX_BYTES, "LOUPE_FROZEN_MAX_BYTES", U64, "33554432", 4096, UINT64_MAX, 0,       \
      "bytes of frozen result sets kept")                                                     \
    X(FRESHNESS_TTL_MS, "LOUPE_FRESHNESS_TTL_MS", U64, "2000", 0, 3600000, 0,                 \
      "MCP server: how long a root's freshness walk is reused (0: walk on every call)")      \
    X(AUTO_SYNC, "LOUPE_AUTO_SYNC", BOOL, "0", 0, 1, 0,                                       \
      "MCP server: a search on a stale root starts (or joins) a sync first")                 \
    X(AUTO_SYNC_WAIT_MS, "LOUPE_AUTO_SYNC_WAIT_MS", U64, "5000", 0, 600000, 0,                \
      "...and waits this long for it")                                                        \
    X(MCP_WORKERS, "LOUPE_MCP_WORKERS", U64, "0", 0, 64, 0,                                   \
      "MCP server: tool-call worker threads (0: the server's default; --workers wins)")      \
    X(MCP_MAX_RESULT_BYTES, "LOUPE_MCP_MAX_RESULT_BYTES", U64, "0", 0, 67108864, 0,           \
      "MCP server: result byte budget of one tool call (0: the default; "                    \
      "--max-result-bytes wins)")                                                             \
    X(MCP_CALL_TIMEOUT_MS, "LOUPE_MCP_CALL_TIMEOUT_MS", U64, "0", 0, 86400000, 0,             \
      "MCP server: a tool call running longer is answered with an error (0: the default)")   \
    X(MCP_TEXT, "LOUPE_MCP_TEXT", STR, "outline", 0, 0, 0,                                   \
      "MCP server: the text block of a tool result: outline (compact, for a model; "          \
      "structuredContent has the full answer) or json (the structuredContent again)")        \
    X(MCP_OUTPUT_SCHEMAS, "LOUPE_MCP_OUTPUT_SCHEMAS", BOOL, "0", 0, 1, 0,                     \
      "MCP server: list each tool's outputSchema in tools/list (for clients that validate "   \
      "structuredContent; off: a third of the listing's tokens saved)")                       \
    X(MCP_TEST_TOOLS, "LOUPE_MCP_TEST_TOOLS", BOOL, "0", 0, 1, LP_SETTING_TEST,               \
      "MCP server: also list the test-only tools (tests)")                                    \
    X(SEARCH_CHANNELS, "LOUPE_SEARCH_CHANNELS", STR, "", 0, 0, LP_SETTING_ROOT,               \
      "channels a search runs (exact, lexical, dense, rerank, ...; ablations)")               \
    X(SEARCH_TUNE, "LOUPE_SEARCH_TUNE", STR, "", 0, 0, LP_SETTING_ROOT,                       \
      "search tuning overrides: name=value,... (lp_search_tuning)")                           \
    X(ROLE_TUNE, "LOUPE_ROLE_TUNE", STR, "", 0, 0, LP_SETTING_ROOT,                           \
      "file-role weight overrides: name=value,...")                                           \
    X(SEARCH_FILE, "LOUPE_SEARCH_FILE", STR, "", 0, 0, LP_SETTING_ROOT,                       \
      "file-view grouping overrides: name=value,...")                                         \
    X(FALLBACK, "LOUPE_FALLBACK", STR, "", 0, 0, LP_SETTING_ROOT,                             \
      "off:compound,segment,prefix,typo,abbrev turns vocabulary fallbacks off")               \
    X(SEARCH_FEATURES, "LOUPE_SEARCH_FEATURES", BOOL, "0", 0, 1, LP_SETTING_TEST,             \
      "loupe search --json adds the confidence features (bench/quality)")                     \
    X(CATALOG_EMBED_MODEL, "LOUPE_CATALOG_EMBED_MODEL", STR, "", 0, 0, 0,                     \
      "tool catalog: its own embedding model file (none: no dense channel)")                  \
    X(CATALOG_WORDS, "LOUPE_CATALOG_WORDS", STR, "", 0, 0, 0,                                 \
      "tool catalog: word-vector file instead of the built-in one (none: off)")               \
    X(NO_HUGEPAGES, "LOUPE_NO_HUGEPAGES", BOOL, "0", 0, 1, LP_SETTING_ENV,                    \
      "do not reserve heap or advise huge pages at start (read before any engine exists)")   \
    X(TEST_NO_GRAPH, "LOUPE_TEST_NO_GRAPH", BOOL, "0", 0, 1, LP_SETTING_TEST,                 \
      "build without references or edges (benchmarks; in the fingerprint)")                   \
    X(TEST_GRAPH_FULL, "LOUPE_TEST_GRAPH_FULL", BOOL, "0", 0, 1, LP_SETTING_TEST,             \
      "rebuild the whole graph on every build (tests)")                                       \
    X(TEST_READ_DELAY_US, "LOUPE_TEST_READ_DELAY_US", U64, "0", 0, 1000000, LP_SETTING_TEST,  \
      "pause between read chunks (tests of files rewritten mid-read)")                        \
    X(TEST_WRITE_DELAY_US, "LOUPE_TEST_WRITE_DELAY_US", U64, "0", 0, UINT64_MAX,              \
      LP_SETTING_TEST, "pause per file written by a build (tests that race or kill builds)")  \
    X(TEST_CRASH_BEFORE_COMMIT, "LOUPE_TEST_CRASH_BEFORE_COMMIT", BOOL, "0", 0, 1,            \
      LP_SETTING_TEST, "abort just before a build commits (crash tests)")                     \
    X(TEST_PAUSE_BEFORE_COMMIT_MS, "LOUPE_TEST_PAUSE_BEFORE_COMMIT_MS", U64, "0", 0,          \
      UINT64_MAX, LP_SETTING_TEST, "sleep before a build commits (at most 10 s; tests)")      \
    X(TEST_PAUSE_AFTER_COMMIT_MS, "LOUPE_TEST_PAUSE_AFTER_COMMIT_MS", U64, "0", 0,            \
      UINT64_MAX, LP_SETTING_TEST, "sleep after a build commits (at most 10 s; tests)")

typedef enum lp_setting_id {
#define LP_SETTING_ENUM(id, env, type, dflt, min, max, flags, doc) LP_SET_##id,
    LP_SETTINGS(LP_SETTING_ENUM)
#undef LP_SETTING_ENUM
        LP_SET_COUNT
} lp_setting_id;

typedef struct lp_setting_def {
    const char *env;  /* LOUPE_... */
    const char *key;  /* the loupe.toml key: env without LOUPE_, lower case */
    lp_setting_type type;
    const char *dflt; /* as text ("" for strings: unset) */
    uint64_t min, max;
    unsigned flags;   /* LP_SETTING_* */
    const char *doc;
} lp_setting_def;

/* The table entry of id (borrowed, static). */
const lp_setting_def *lp_setting_def_of(lp_setting_id id);
/* The id of a toml key or an environment variable name; false when none. */
bool lp_setting_find(const char *name, lp_setting_id *out);

/* The one parsers: a whole number (decimal, no sign, no spaces) and a boolean. */
bool lp_parse_bool(lp_str s, bool *out);
/* Check a value against its setting's type and bounds; LP_EINVAL with a message naming the
 * setting and the accepted values. */
lp_status lp_setting_check(lp_setting_id id, const char *value, lp_error *err);

/* The value as given (NULL when unset or empty). Borrowed: valid for the process. */
const char *lp_setting_str(lp_setting_id id);
/* The raw value, "" included (NULL only when unset): for settings where empty means
 * something (LOUPE_HOME set but empty is an error). */
const char *lp_setting_raw(lp_setting_id id);
/* A number setting: the value when set and valid, else the table default. */
uint64_t lp_setting_u64(lp_setting_id id);
/* 1: set and valid (*out filled), 0: unset, -1: set but invalid. */
int lp_setting_u64_get(lp_setting_id id, uint64_t *out);
/* A boolean setting: the value when set and valid, else the table default. */
bool lp_setting_bool(lp_setting_id id);

/* A snapshot: one value per setting (NULL: unset). Built by src/api/config.c. */
typedef struct lp_settings_snap {
    char *val[LP_SET_COUNT];
    struct lp_settings_snap *retired; /* the one installed before (kept reachable) */
} lp_settings_snap;

/* Install snap as the process's settings (takes ownership; freed at once when equal to the
 * current one). Returns the installed snapshot. Thread-safe. */
const lp_settings_snap *lp_settings_install(lp_settings_snap *snap);
/* The installed snapshot, or NULL (accessors then read the environment). */
const lp_settings_snap *lp_settings_current(void);
void lp_settings_snap_free(lp_settings_snap *snap);
/* Tests only: uninstall (accessors read the environment again); snapshots stay allocated. */
void lp_settings_reset(void);

/* The state folder (the one rule): LOUPE_HOME (set but empty is an error; must be
 * absolute), else $XDG_STATE_HOME/loupe when XDG_STATE_HOME is absolute, else
 * $HOME/.local/state/loupe; normalized. */
lp_status lp_settings_state_dir(lp_buf *out, lp_error *err);
/* The same rule with home standing for LOUPE_HOME (NULL: unset). */
lp_status lp_settings_state_dir_from(const char *home, lp_buf *out, lp_error *err);

#endif
