/*
 * fuzz_validate.c: tool-argument validation (src/mcp/validate.c): lp_mcp_validate_args and
 * lp_mcp_schema_check on hostile JSON.
 *
 * Input: byte 0 selects the mode.
 *   even: byte 1 picks one of loupe's registered tools (real input schemas, debug fixtures
 *         included); the rest is the arguments as JSON text;
 *   odd:  the rest is {"schema": S, "args": A}; when S passes lp_mcp_schema_check, A is
 *         validated against it (the validator must then handle any schema of the subset).
 *
 * Invariants checked: the verdict and the message are the same on a second run (no hidden
 * state); a refusal always comes with a message; an accepted argument object stays
 * unchanged (validation never edits what the handler will see).
 */
#include "fuzz.h"

#include "mcp/mcp_int.h"

static lp_mcp_registry *reg;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    lp_log_set_level(LP_LOG_OFF);
    lp_error err = {0};
    lp_mcp_options opt = {.test_tools = true};
    reg = lp_mcp_registry_new();
    if (lp_mcp_register_tools(reg, &opt, &err) != LP_OK) {
        fprintf(stderr, "fuzz_validate: cannot register tools: %s\n", err.msg);
        abort();
    }
    return 0;
}

static void validate_twice(const json_t *schema, json_t *args, const char *tool)
{
    json_t *before = json_deep_copy(args);
    lp_buf m1, m2;
    lp_buf_init(&m1, 0);
    lp_buf_init(&m2, 0);
    bool ok1 = lp_mcp_validate_args(schema, args, tool, &m1);
    bool ok2 = lp_mcp_validate_args(schema, args, tool, &m2);
    LP_FUZZ_CHECK(ok1 == ok2);
    LP_FUZZ_CHECK(m1.len == m2.len && !memcmp(m1.ptr, m2.ptr, m1.len));
    if (!ok1)
        LP_FUZZ_CHECK(m1.len > 0);
    LP_FUZZ_CHECK(json_equal(before, args));
    lp_buf_release(&m1);
    lp_buf_release(&m2);
    json_decref(before);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    uint8_t mode = data[0], pick = data[1];
    const char *text = (const char *)data + 2;
    size_t len = size - 2;
    json_error_t jerr;
    json_t *doc = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    if (!doc)
        return 0;
    if (!(mode & 1)) {
        const lp_mcp_tool *t = &reg->tools.items[pick % reg->tools.len];
        /* The server hands validation an object (a missing arguments member becomes {}),
         * but the validator must not fall over on any value. */
        validate_twice(t->input_schema, doc, t->def.name);
    } else {
        json_t *schema = json_object_get(doc, "schema");
        json_t *args = json_object_get(doc, "args");
        lp_error err = {0};
        if (schema && args && lp_mcp_schema_check(schema, &err) == LP_OK)
            validate_twice(schema, args, "fuzz_tool");
        else if (schema)
            LP_FUZZ_CHECK(!args || err.msg[0] != '\0');
    }
    json_decref(doc);
    return 0;
}
