/*
 * api.h: the contract of src/api for the renderers inside loupe (src/cli, src/mcp). The
 * public, installed contract is src/loupe.h; this header adds the calls that hand back the
 * modules' own structs (lp_search_result, lp_index_report) so a renderer can show every
 * field without the public API having to carry each one.
 *
 * src/api sits above index, search, embed, store and below cli and mcp
 * (docs/ARCHITECTURE.md). Ownership is stated beside each call.
 */
#ifndef LP_API_H
#define LP_API_H

#include "core/core.h" /* and through it src/loupe.h, the public contract */
#include "core/settings.h"
#include "index/index.h"
#include "search/search.h"

/* ------------------------------------------------------------------------------------------
 * Configuration (config.c). */

/* The snapshot for cfg (NULL: defaults + environment + <state>/loupe.toml). *out is the
 * caller's (lp_settings_install takes it). LP_EINVAL, reason config_invalid, naming
 * file:line or the setting. */
lp_status lp_config_snapshot(const lp_config *cfg, lp_settings_snap **out, lp_error *err);
/* Parse loupe.toml text into `into` (file names the source in messages; root_file allows
 * only LP_SETTING_ROOT settings). */
lp_status lp_config_parse_toml(const char *file, lp_str text, bool root_file,
                               lp_settings_snap *into, lp_error *err);
/* The settings table as docs/ARCHITECTURE.md shows it (appended to out). */
void lp_config_markdown(lp_buf *out);

/* ------------------------------------------------------------------------------------------
 * Engine internals for the renderers (engine.c). */

/* lp_engine_new, with lenient: an engine is made even when the state folder cannot be
 * found (the CLI: `loupe version` works anyway; commands that need the folder say why). */
lp_status lp_engine_open(const lp_config *cfg, bool lenient, lp_engine **out, lp_error *err);

/* Resolve path to its indexed root (realpath; the root containing path that has an index
 * when must_be_indexed). root_out is the caller's. */
lp_status lp_engine_root_for(lp_engine *e, const char *path, bool must_be_indexed,
                             bool allow_broad, lp_buf *root_out, lp_error *err);

/* A build of root (a real path from lp_index_resolve_root) with the caller's options. */
lp_status lp_engine_index_run(lp_engine *e, const char *root, const lp_index_opts *opts,
                              lp_index_report *rep, lp_error *err);

/* One search of root: take a read connection, pin the current publication, check it
 * (LP_ENOTINDEXED, LP_EREINDEX), run req into res (arena-owned), and when res has more than
 * `show` groups freeze them and put the continuation handle into handle (left empty, with
 * *no_continuation set and the page warned, when the set cannot be written). */
lp_status lp_engine_search_run(lp_engine *e, const char *root, const lp_search_request *req,
                               uint32_t show, lp_arena *arena, lp_search_result *res,
                               lp_buf *handle, bool *no_continuation, lp_error *err);

#endif
