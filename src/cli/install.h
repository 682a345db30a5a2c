/*
 * install.h: what `loupe install`, `loupe uninstall` and `loupe doctor` share: the coding
 * agents loupe can configure, and the text editors for their configuration files.
 *
 * The editors change configuration files textually, so every byte they do not own
 * (comments, formatting, other servers, other settings) stays as it was, and an uninstall
 * right after an install gives back the original bytes. They refuse, with a message saying
 * what to do, rather than rewrite anything they cannot parse.
 */
#ifndef LP_CLI_INSTALL_H
#define LP_CLI_INSTALL_H

#include "core/core.h"

#include "core/json.h"

/* ------------------------------------------------------------------------------------------
 * JSON with comments and trailing commas (JSONC), edited in place. */

typedef enum lp_edit_result {
    LP_EDIT_UNCHANGED = 0, /* the entry already had exactly the wanted value */
    LP_EDIT_ADDED,         /* the entry was added */
    LP_EDIT_UPDATED,       /* the entry existed with another value and was replaced */
    LP_EDIT_REMOVED,       /* the entry was removed */
    LP_EDIT_ABSENT,        /* nothing to remove */
} lp_edit_result;

/* What the editors created, so uninstall can remove exactly that. */
typedef struct lp_edit_created {
    bool container; /* the JSON container object (mcpServers / mcp) was added */
    char prefix[4]; /* TOML: the newlines added before the appended table */
} lp_edit_created;

/*
 * Set member `name` of the object at `container` (a top-level key) to `value` in the JSONC
 * document `text` (NUL-terminated; may be empty, meaning a new file), writing the new
 * document into out. The container is created when missing (created->container). Fails
 * with LP_EINVAL and a message with line and column when the document does not parse or a
 * container is not an object.
 */
lp_status lp_jsonc_set_member(const char *text, size_t len, const char *container,
                              const char *name, const json_t *value, lp_buf *out,
                              lp_edit_result *res, lp_edit_created *created, lp_error *err);
/* Remove member `name` of object `container`; when remove_container and the container then
 * holds nothing else, remove the container member too. */
lp_status lp_jsonc_remove_member(const char *text, size_t len, const char *container,
                                 const char *name, bool remove_container, lp_buf *out,
                                 lp_edit_result *res, lp_error *err);
/* The value of container.name as JSON (new reference; NULL when absent or when it does not
 * parse as plain JSON). *present tells whether the member exists at all. */
json_t *lp_jsonc_get_member(const char *text, size_t len, const char *container,
                            const char *name, bool *present, lp_error *err);
/* True when the document's top-level object has no members (only whitespace/comments). */
bool lp_jsonc_is_empty_object(const char *text, size_t len);

/* ------------------------------------------------------------------------------------------
 * TOML (Codex's config.toml): one [table] with `command` and `args`, edited in place. */

/* Make table `table` (e.g. "mcp_servers.loupe") hold command = <command>,
 * args = [<args>...] and, when env (NULL-terminated name, value pairs) is not NULL or empty,
 * env = { NAME = "value", ... } (left alone when the user wrote a [<table>.env] table);
 * appended when missing (created->prefix records what was added). */
lp_status lp_toml_set_server(const char *text, size_t len, const char *table,
                             const char *command, const char *const *args,
                             const char *const *env, lp_buf *out, lp_edit_result *res,
                             lp_edit_created *created, lp_error *err);
/* Remove the table and its sub-tables; prefix (may be NULL) is removed too when it is what
 * precedes the table at the end of the file. */
lp_status lp_toml_remove_server(const char *text, size_t len, const char *table,
                                const char *prefix, lp_buf *out, lp_edit_result *res,
                                lp_error *err);
/* command of the table into out (false when absent or not a plain string). */
bool lp_toml_get_command(const char *text, size_t len, const char *table, lp_buf *out,
                         lp_error *err);

/* ------------------------------------------------------------------------------------------
 * Clients and paths. */

typedef enum lp_client_kind { LP_CLIENT_JSON, LP_CLIENT_TOML } lp_client_kind;

typedef struct lp_client {
    const char *name;      /* claude, codex, opencode, cursor */
    const char *label;     /* Claude Code, ... */
    lp_client_kind kind;
    const char *container; /* JSON: top-level key holding servers */
    const char *binary;    /* looked up on PATH for detection */
} lp_client;

extern const lp_client lp_clients[];
extern const size_t lp_clients_count;

/* The configuration file of a client (honours CLAUDE_CONFIG_DIR, CODEX_HOME,
 * XDG_CONFIG_HOME) and the folder whose existence means "installed". */
lp_status lp_client_paths(const lp_client *c, lp_buf *config, lp_buf *folder, lp_error *err);
/* Config folder exists or the client's binary is on PATH. */
bool lp_client_detected(const lp_client *c);
/* The server entry loupe writes for this client, pointing at exe. */
json_t *lp_client_entry(const lp_client *c, const char *exe, const char *const *env);
/* The environment install writes into every entry (NULL-terminated name, value pairs):
 * LOUPE_AUTO_SYNC (its value at install time, else "1": answers follow edits) and LOUPE_HOME
 * when it is set at install time (the agent then uses the same indexes as the shell). */
const char *const *lp_client_env(void);
/* The command an existing loupe entry of this client runs (into out); false if none, with
 * err set (LP_EIO, LP_EINVAL with line and column) when the file cannot be read or parsed. */
bool lp_client_configured_command(const lp_client *c, const char *config_path, lp_buf *out,
                                  bool *present, lp_error *err);

/* Absolute path of the running binary (/proc/self/exe). */
lp_status lp_self_exe(lp_buf *out, lp_error *err);
/* $LOUPE_HOME, else $XDG_STATE_HOME/loupe, else ~/.local/state/loupe. */
lp_status lp_state_dir(lp_buf *out, lp_error *err);
/* Is `name` an executable file in a PATH folder? Full path into out when out is not NULL. */
bool lp_which(const char *name, lp_buf *out);

#endif
