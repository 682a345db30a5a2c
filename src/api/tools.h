/*
 * tools.h: the tool table. Every tool loupe serves is declared once here: name, title,
 * description, typed arguments (type, default, minimum, maximum, enum values, required,
 * description, the field of the typed request they fill, how the CLI spells them), the
 * handler and the JSON renderer of its result. src/mcp generates each tool's input JSON
 * Schema and fills the typed request from the validated arguments with it; src/cli generates
 * the command's options, --help and --json from the same entry (cli/cli_tool.c); the HTTP
 * API will do the same. Both routes therefore cannot disagree on a name, a limit or a
 * default.
 *
 * A tool is either typed (run + to_json: request struct in, result struct out, arena-owned;
 * the renderers of each route render that struct) or, until it is migrated, a JSON tool
 * (run_json: the validated arguments object in, the content object out). Which tools are
 * which: docs/decisions/0019-tool-table.md.
 *
 * Dependencies: core, store, graph (the handlers). Static data and pure functions: every
 * call is thread-safe.
 */
#ifndef LP_API_TOOLS_H
#define LP_API_TOOLS_H

#include "core/core.h"
#include "graph/graph.h"

#include "core/json.h"

typedef enum lp_arg_type {
    LP_ARG_STRING = 0, /* const char * field (borrowed from the arguments) */
    LP_ARG_INT,        /* int64_t field */
    LP_ARG_ENUM,       /* int64_t field: index into values */
    LP_ARG_ENUM_SET,   /* uint32_t field: bit i set for values[i] (an array in JSON) */
} lp_arg_type;

#define LP_ARG_UNSET INT64_MIN /* no minimum / maximum / default */
#define LP_ARG_NO_FIELD ((size_t)-1)

/* How the CLI spells an argument. */
typedef enum lp_arg_cli {
    LP_ARG_CLI_OPTION = 0,   /* --flag VALUE */
    LP_ARG_CLI_POSITIONAL,   /* the command's one positional argument */
    LP_ARG_CLI_SWITCHES,     /* an ENUM whose values are switches: --callers, --callees */
    LP_ARG_CLI_ROOT,         /* the indexed root: --root PATH (default: the current folder) */
    LP_ARG_CLI_NONE,         /* not on the command line */
} lp_arg_cli;

typedef struct lp_tool_arg {
    const char *name;          /* the JSON property (camelCase) */
    lp_arg_type type;
    bool required;
    /* INT: value range; STRING: length range; ENUM_SET: item count range. */
    int64_t min, max;
    int64_t dflt;              /* INT: the default; ENUM: index of the default value */
    const char *dflt_str;      /* STRING: the default (NULL: none) */
    const char *const *values; /* ENUM, ENUM_SET: NULL-terminated */
    const char *description;   /* NULL: none in the schema */
    size_t offset;             /* field of the typed request (LP_ARG_NO_FIELD: none) */
    /* CLI */
    lp_arg_cli cli;
    const char *flag;          /* option name without "--" ("max-nodes"); NULL: none */
    const char *metavar;       /* "N", "SYMBOL", "PATH" */
    const char *cli_help;      /* one line for the option list (NULL: description) */
} lp_tool_arg;

/* The typed handler: call->st is pinned on the publication to answer from; req is the
 * tool's request struct filled from the arguments; result (the tool's result struct,
 * result_size bytes) is filled, everything it points to in arena. */
typedef lp_status (*lp_tool_run_fn)(const lp_graph_call *call, const void *req, lp_arena *arena,
                                    void *result, lp_error *err);
/* The content object of a result (new reference): MCP's structured content, the CLI's --json. */
typedef json_t *(*lp_tool_json_fn)(const void *result);

typedef struct lp_tool {
    const char *name;          /* [a-z0-9_]+ */
    const char *title;
    const char *description;   /* for an agent: what it is for, when to call it, what next */
    const lp_tool_arg *args;
    size_t nargs;
    const char *examples;      /* JSON array text for the input schema's "examples" (or NULL) */
    const char *output_schema; /* JSON Schema text of the content object */
    const char *const *truncatable; /* array keys a byte budget may cut, in cut order */
    /* typed: */
    size_t req_size, result_size;
    lp_tool_run_fn run;
    lp_tool_json_fn to_json;
    /* or JSON (not migrated yet): */
    lp_graph_tool_fn run_json;
} lp_tool;

extern const lp_tool lp_tool_table[];
extern const size_t lp_tool_table_count;
/* NULL when unknown. */
const lp_tool *lp_tool_find(const char *name);
const lp_tool_arg *lp_tool_arg_find(const lp_tool *t, const char *name);

/* The input JSON Schema of t (new reference): {"type":"object","properties":{...},
 * "required":[...],"additionalProperties":false,"examples":[...]}, keys in a fixed order
 * (type, enum, minLength, maxLength, minItems, maxItems, items, minimum, maximum, default,
 * description). */
json_t *lp_tool_input_schema(const lp_tool *t);

/* Fill req (t->req_size bytes) with the defaults (strings without one: NULL; sets: 0). */
void lp_tool_req_defaults(const lp_tool *t, void *req);
/* Fill req from an arguments object (checked against the arguments: unknown names, types,
 * ranges and enum values fail with LP_EINVAL naming the argument). Strings are borrowed
 * from args. */
lp_status lp_tool_req_from_json(const lp_tool *t, const json_t *args, void *req, lp_error *err);

/* Run a typed tool and render its content object (*out, new reference): the one path both
 * routes use for a typed tool. The arena holds the result while it is rendered. */
lp_status lp_tool_call(const lp_tool *t, const lp_graph_call *call, const void *req,
                       json_t **out, lp_error *err);

#endif
