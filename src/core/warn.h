/*
 * warn.h: every warning code loupe gives, in one table (code string, severity, meaning).
 *
 * A warning says that an answer is partial, stale or approximate and why; it never replaces
 * an error. Both routes (the MCP envelope's warnings [{code, message}] and the CLI's
 * "note [code]: message" / "warning: code: message" lines) take the code from here: no other
 * file writes a code string (tests/integration/test_tool_table.py checks it, and that
 * docs/ARCHITECTURE.md lists every code).
 *
 * Codes are stable: an agent may branch on them. Append new ones; never rename one (a
 * rename is a changelog entry: CHANGELOG.md).
 *
 * Static data, no state: every call is thread-safe.
 */
#ifndef LP_WARN_H
#define LP_WARN_H

#include <stddef.h>

typedef enum lp_warn_severity {
    LP_WARN_INFO = 0, /* context: the answer is complete (how it was found, what it covers) */
    LP_WARN_STALE,    /* the answer may be out of date (disk changed, a newer build)  */
    LP_WARN_PARTIAL,  /* something is missing from the answer (a budget, a file, a channel) */
} lp_warn_severity;

/* X(ENUM, "code", severity, "one-line meaning"): the only place code strings are written. */
#define LP_WARN_TABLE(X)                                                                       \
    X(INDEX_STALE, "index_stale", LP_WARN_STALE,                                               \
      "files changed on disk since the publication the answer comes from")                     \
    X(FILE_STALE, "file_stale", LP_WARN_STALE,                                                 \
      "the file read changed on disk since its publication")                                   \
    X(NEWER_PUBLICATION, "newer_publication", LP_WARN_STALE,                                   \
      "a writer is building a newer publication of this root right now")                       \
    X(INDEX_PARTIAL, "index_partial", LP_WARN_PARTIAL,                                         \
      "the publication skipped files (limits, errors): answers may miss them")                 \
    X(INDEXING_IN_PROGRESS, "indexing_in_progress", LP_WARN_INFO,                              \
      "an index build of this root is running")                                                \
    X(DENSE_CHANNEL_ABSENT, "dense_channel_absent", LP_WARN_INFO,                              \
      "search ran without the embedding channel (off, no vectors, or no model)")               \
    X(WORDS_NOT_INDEXED, "words_not_indexed", LP_WARN_PARTIAL,                                 \
      "words of the question are not in the index; a named fallback stood in")                 \
    X(QUERY_SHORTENED, "query_shortened", LP_WARN_PARTIAL,                                     \
      "the question was longer than the limit; only its start was searched")                   \
    X(LONG_QUESTION, "long_question", LP_WARN_INFO,                                            \
      "a long text was reduced to its most telling terms")                                     \
    X(NO_CONFIDENT_MATCH, "no_confident_match", LP_WARN_INFO,                                  \
      "the answer's confidence is low: the index probably cannot answer this")                 \
    X(PAGE_SHORTENED, "page_shortened", LP_WARN_PARTIAL,                                       \
      "a page of results was shortened to fit the budget")                                     \
    X(RANGE_COMPACTED, "range_compacted", LP_WARN_PARTIAL,                                     \
      "a long range was compacted to an outline and some lines")                               \
    X(RANGE_CUT, "range_cut", LP_WARN_PARTIAL, "a range was cut at the line budget")           \
    X(LINE_CUT, "line_cut", LP_WARN_PARTIAL, "an overlong line was cut")                       \
    X(SYMBOL_CUT, "symbol_cut", LP_WARN_PARTIAL, "a symbol's text was cut at the budget")      \
    X(NO_SYMBOLS, "no_symbols", LP_WARN_INFO, "the file has no symbols to outline")            \
    X(AUTO_SYNCED, "auto_synced", LP_WARN_INFO,                                                \
      "the root was synced before answering (auto-sync)")                                      \
    X(AUTO_SYNC_PENDING, "auto_sync_pending", LP_WARN_STALE,                                   \
      "an auto-sync is running; the answer comes from the previous publication")               \
    X(AUTO_SYNC_FAILED, "auto_sync_failed", LP_WARN_STALE,                                     \
      "the auto-sync failed; the answer comes from the previous publication")                  \
    X(FRESHNESS_UNKNOWN, "freshness_unknown", LP_WARN_STALE,                                   \
      "whether files changed on disk could not be checked")                                    \
    X(OPERATION_FAILED, "operation_failed", LP_WARN_INFO, "the index operation failed")        \
    X(CANCEL_PENDING, "cancel_pending", LP_WARN_INFO,                                          \
      "the operation was asked to stop and has not stopped yet")                               \
    X(ALREADY_FINISHED, "already_finished", LP_WARN_INFO,                                      \
      "the operation had finished before it was cancelled")                                    \
    X(NO_CODEBASES, "no_codebases", LP_WARN_INFO, "no codebase is indexed yet")                \
    X(STATUS_FAILED, "status_failed", LP_WARN_PARTIAL, "the root's status could not be read") \
    X(INDEX_DAMAGED, "index_damaged", LP_WARN_PARTIAL,                                         \
      "the root's index is damaged; reindex it")                                               \
    X(RESULT_TRUNCATED, "result_truncated", LP_WARN_PARTIAL,                                   \
      "results or items were cut to fit the result budget")                                    \
    X(TEXT_SHORTENED, "text_shortened", LP_WARN_PARTIAL,                                       \
      "long strings were shortened to fit the result budget")                                  \
    X(RESULTS_STALE, "results_stale", LP_WARN_STALE,                                           \
      "some results come from files that changed on disk since publication")                   \
    X(LIVE_EVIDENCE, "live_evidence", LP_WARN_INFO,                                            \
      "results from files read on disk now (changed since publication)")                       \
    X(LIVE_FILE_DELETED, "live_file_deleted", LP_WARN_STALE,                                   \
      "a published file was deleted on disk; it was not read")                                 \
    X(LIVE_SKIPPED, "live_skipped", LP_WARN_PARTIAL,                                           \
      "a changed file on disk could not be read live")                                         \
    X(LIVE_CAPPED, "live_capped", LP_WARN_PARTIAL, "live reading stopped at its budget")       \
    X(CONTINUATION_UNAVAILABLE, "continuation_unavailable", LP_WARN_PARTIAL,                   \
      "more results exist but the page has no continuation (the state could not be written)")  \
    X(NOT_REGULAR_FILE, "not_regular_file", LP_WARN_STALE,                                     \
      "the path is not a regular file on disk now; the published text is served")             \
    X(FILE_DELETED, "file_deleted", LP_WARN_STALE,                                             \
      "the file was deleted on disk; the published text is served")                           \
    X(FILE_UNREADABLE, "file_unreadable", LP_WARN_STALE,                                       \
      "the file cannot be read on disk; the published text is served")                        \
    X(FILE_TOO_LARGE, "file_too_large", LP_WARN_STALE,                                         \
      "the file on disk is over the size limit; the published text is served")                \
    X(FILE_BINARY, "file_binary", LP_WARN_STALE,                                               \
      "the file on disk is binary now; the published text is served")                         \
    X(DISK_READ_FAILED, "disk_read_failed", LP_WARN_STALE,                                     \
      "reading the file on disk failed; the published text is served")                        \
    X(GRAPH_TRUNCATED, "graph_truncated", LP_WARN_PARTIAL,                                     \
      "call_graph stopped at maxNodes / maxEdges")                                             \
    X(DEPTH_LIMIT, "depth_limit", LP_WARN_PARTIAL, "more calls lie beyond the depth asked")    \
    X(NO_PATH_WITHIN_BUDGET, "no_path_within_budget", LP_WARN_PARTIAL,                         \
      "trace_path found no path within maxDepth / maxNodes")                                   \
    X(NO_PROVED_PATH, "no_proved_path", LP_WARN_INFO,                                          \
      "no path over proved edges of the chosen kinds (dynamic calls may still connect)")       \
    X(TEXTUAL_MATCHES, "textual_matches", LP_WARN_INFO,                                        \
      "find_references matches are textual (comments, strings, same-name symbols too)")        \
    X(PACKAGES_TRUNCATED, "packages_truncated", LP_WARN_PARTIAL,                               \
      "architecture_overview stopped at maxPackages")                                          \
    X(EVIDENCE, "evidence", LP_WARN_INFO,                                                      \
      "architecture_overview counts proved edges only")                                        \
    X(STALE_FILES, "stale_files", LP_WARN_STALE,                                               \
      "detect_changes: files edited since the last sync have approximate spans")              \
    X(FILES_NOT_INDEXED, "files_not_indexed", LP_WARN_PARTIAL,                                 \
      "detect_changes: changed files the publication does not hold")                           \
    X(FILES_TRUNCATED, "files_truncated", LP_WARN_PARTIAL,                                     \
      "detect_changes stopped at maxFiles")                                                    \
    X(CALLERS_TRUNCATED, "callers_truncated", LP_WARN_PARTIAL,                                 \
      "detect_changes stopped at maxCallers")                                                  \
    X(SCOPE, "scope", LP_WARN_INFO,                                                            \
      "detect_changes is advisory: callers the rules cannot resolve are not listed")           \
    X(NO_FILES_MATCH, "no_files_match", LP_WARN_INFO,                                          \
      "a listing (path:/lang: filters only) matched no indexed file")                          \
    X(REGEX_PARTIAL, "regex_partial", LP_WARN_PARTIAL,                                         \
      "the regex: scan stopped at its time budget; some files were not read")                  \
    X(REGEX_TOO_COSTLY, "regex_too_costly", LP_WARN_PARTIAL,                                   \
      "the regex: pattern hit PCRE2's match limit in some files, which were skipped")

typedef enum lp_warn {
#define LP_WARN_ENUM_(e, code, sev, meaning) LP_WARN_##e,
    LP_WARN_TABLE(LP_WARN_ENUM_)
#undef LP_WARN_ENUM_
        LP_WARN_COUNT
} lp_warn;

typedef struct lp_warn_info {
    const char *code;          /* stable, [a-z_]+ */
    lp_warn_severity severity;
    const char *meaning;       /* one line, for docs and --help */
} lp_warn_info;

/* The code string of w ("index_partial"); "" for a value out of range. Static storage. */
const char *lp_warn_code(lp_warn w);
/* The table row of w (NULL out of range). Static storage. */
const lp_warn_info *lp_warn_get(lp_warn w);
/* The warning with this code, or LP_WARN_COUNT when none has it. */
lp_warn lp_warn_from_code(const char *code);
/* "info", "stale", "partial". */
const char *lp_warn_severity_name(lp_warn_severity s);

#endif
