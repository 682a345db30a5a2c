/*
 * tools_debug.c: TEST FIXTURES, not product tools. debug_echo and debug_sleep exist so the
 * protocol tests (golden transcripts, the official MCP clients) can exercise argument
 * validation, the result budget, logging, progress, concurrency and cancellation before
 * the real tools exist. They are registered only when LOUPE_MCP_TEST_TOOLS=1.
 */
#include "mcp/mcp.h"

#include <time.h>

/* ------------------------------------------------------------------------------------------
 * debug_echo */

static const char echo_input[] =
    "{\"type\":\"object\","
    "\"properties\":{"
    "\"message\":{\"type\":\"string\",\"minLength\":1,\"maxLength\":4096,"
    "\"description\":\"Text to echo back.\"},"
    "\"repeat\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10000,\"default\":1,"
    "\"description\":\"How many copies of the message the items list holds.\"},"
    "\"format\":{\"type\":\"string\",\"enum\":[\"plain\",\"upper\"],\"default\":\"plain\","
    "\"description\":\"upper turns ASCII letters to upper case.\"},"
    "\"log\":{\"type\":\"boolean\",\"default\":false,"
    "\"description\":\"Also send notifications/message at levels debug, info and warning.\"}"
    "},"
    "\"required\":[\"message\"],"
    "\"additionalProperties\":false,"
    "\"examples\":[{\"message\":\"hello\",\"repeat\":2}]}";

static const char echo_output[] =
    "{\"type\":\"object\","
    "\"properties\":{"
    "\"message\":{\"type\":\"string\"},"
    "\"format\":{\"enum\":[\"plain\",\"upper\"]},"
    "\"count\":{\"type\":\"integer\",\"minimum\":1},"
    "\"items\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"protocolVersion\":{\"type\":\"string\"}},"
    "\"required\":[\"message\",\"format\",\"count\",\"items\",\"protocolVersion\"],"
    "\"additionalProperties\":false}";

static lp_status echo_fn(lp_mcp_call *call, json_t **result, lp_error *err)
{
    (void)err;
    const json_t *args = lp_mcp_call_args(call);
    const char *msg = json_string_value(json_object_get(args, "message"));
    size_t len = json_string_length(json_object_get(args, "message"));
    json_t *rep = json_object_get(args, "repeat");
    json_int_t repeat = rep ? (json_int_t)json_number_value(rep) : 1;
    json_t *fmt = json_object_get(args, "format");
    const char *format = fmt ? json_string_value(fmt) : "plain";
    bool upper = !strcmp(format, "upper");

    char *text = lp_arena_strndup(lp_mcp_call_arena(call), msg, len);
    if (upper)
        for (size_t i = 0; i < len; i++)
            if (text[i] >= 'a' && text[i] <= 'z')
                text[i] = (char)(text[i] - 'a' + 'A');

    if (json_is_true(json_object_get(args, "log"))) {
        lp_mcp_call_log(call, LP_MCP_LOG_DEBUG, "debug_echo: %zu bytes received", len);
        lp_mcp_call_log(call, LP_MCP_LOG_INFO, "debug_echo: repeating %lld times",
                        (long long)repeat);
        lp_mcp_call_log(call, LP_MCP_LOG_WARNING, "debug_echo: this is a test warning");
    }

    json_t *out = json_object();
    json_object_set_new(out, "message", lp_json_text(text, len));
    json_object_set_new(out, "format", lp_json_textz(format));
    json_object_set_new(out, "count", json_integer(repeat));
    json_t *items = json_array();
    for (json_int_t i = 0; i < repeat; i++)
        json_array_append_new(items, lp_json_text(text, len));
    json_object_set_new(out, "items", items);
    json_object_set_new(out, "protocolVersion", lp_json_textz(lp_mcp_call_protocol_version(call)));
    *result = out;
    return LP_OK;
}

static const char *const echo_truncatable[] = {"items", NULL};

static const lp_mcp_tool_def echo_def = {
    .name = "debug_echo",
    .title = "Echo (test fixture)",
    .description =
        "TEST FIXTURE, present only when LOUPE_MCP_TEST_TOOLS=1: returns the message, and "
        "`repeat` copies of it in `items` (cut to the result budget when too many). Use it to "
        "check argument validation, logging (log: true) and truncation; it reads nothing.",
    .input_schema = echo_input,
    .output_schema = echo_output,
    .read_only = true,
    .idempotent = true,
    .truncatable = echo_truncatable,
    .fn = echo_fn,
    .test_only = true,
};

/* ------------------------------------------------------------------------------------------
 * debug_sleep */

static const char sleep_input[] =
    "{\"type\":\"object\","
    "\"properties\":{"
    "\"ms\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":600000,"
    "\"description\":\"How long to sleep, in milliseconds.\"},"
    "\"step_ms\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":1000,\"default\":20,"
    "\"description\":\"Sleep in steps of this many milliseconds, reporting progress and "
    "checking for cancellation after each.\"},"
    "\"ignore_cancel\":{\"type\":\"boolean\",\"default\":false,"
    "\"description\":\"Never check for cancellation: stands for a call stuck in a blocking "
    "system call, which only the server's watchdog can get past.\"}"
    "},"
    "\"required\":[\"ms\"],"
    "\"additionalProperties\":false,"
    "\"examples\":[{\"ms\":500}]}";

static const char sleep_output[] =
    "{\"type\":\"object\","
    "\"properties\":{"
    "\"sleptMs\":{\"type\":\"integer\",\"minimum\":0},"
    "\"steps\":{\"type\":\"integer\",\"minimum\":0}},"
    "\"required\":[\"sleptMs\",\"steps\"],"
    "\"additionalProperties\":false}";

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static lp_status sleep_fn(lp_mcp_call *call, json_t **result, lp_error *err)
{
    const json_t *args = lp_mcp_call_args(call);
    unsigned total = (unsigned)json_number_value(json_object_get(args, "ms"));
    json_t *st = json_object_get(args, "step_ms");
    unsigned step = st ? (unsigned)json_number_value(st) : 20;
    bool stuck = json_is_true(json_object_get(args, "ignore_cancel"));
    unsigned slept = 0, steps = 0;
    while (slept < total) {
        if (!stuck && lp_mcp_call_cancelled(call))
            return lp_error_set(err, LP_ECANCELED, "debug_sleep cancelled after %u of %u ms",
                                slept, total);
        unsigned chunk = LP_MIN(step, total - slept);
        sleep_ms(chunk);
        slept += chunk;
        steps++;
        char msg[64];
        snprintf(msg, sizeof msg, "slept %u of %u ms", slept, total);
        lp_mcp_call_progress(call, slept, total, msg);
    }
    if (!stuck && lp_mcp_call_cancelled(call))
        return lp_error_set(err, LP_ECANCELED, "debug_sleep cancelled after %u ms", slept);
    json_t *out = json_object();
    json_object_set_new(out, "sleptMs", json_integer(slept));
    json_object_set_new(out, "steps", json_integer(steps));
    *result = out;
    return LP_OK;
}

static const lp_mcp_tool_def sleep_def = {
    .name = "debug_sleep",
    .title = "Sleep (test fixture)",
    .description =
        "TEST FIXTURE, present only when LOUPE_MCP_TEST_TOOLS=1: sleeps `ms` milliseconds in "
        "steps of `step_ms`, sending notifications/progress after each step when the request "
        "has a progressToken, and stops early when cancelled. Use it to check concurrency, "
        "progress and cancellation; it reads nothing.",
    .input_schema = sleep_input,
    .output_schema = sleep_output,
    .read_only = true,
    .idempotent = true,
    .fn = sleep_fn,
    .test_only = true,
};

lp_status lp_mcp_register_debug_tools(lp_mcp_registry *r, lp_error *err)
{
    lp_status rc = lp_mcp_registry_add(r, &echo_def, err);
    if (!rc)
        rc = lp_mcp_registry_add(r, &sleep_def, err);
    return rc;
}
