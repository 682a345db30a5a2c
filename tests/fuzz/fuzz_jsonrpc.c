/*
 * fuzz_jsonrpc.c: the MCP server's framing and dispatch (src/mcp/jsonrpc.c, server.c) on a
 * byte stream: the input is what a client writes to loupe's stdin, served by the real
 * lp_mcp_serve from a memfd, with the output captured in another memfd.
 *
 * Input: when the first byte is below 0x08 it is a configuration byte (the line limit is
 * 1024 << (byte & 7) bytes, so short inputs reach the over-long-line paths); otherwise the
 * whole input is the stream, served with the default 16 MiB limit.
 *
 * Tools: every tool loupe registers, with its real input schema, so argument validation and
 * dispatch see the real shapes. debug_echo keeps its real handler (a pure function: result
 * budget, truncation, logging); every other handler is replaced by a fixture that fails with
 * a tool error, because the real ones read and index the filesystem.
 *
 * Invariants checked: the server returns LP_OK; every output line is one JSON object with
 * "jsonrpc":"2.0"; no line is empty; the output ends with '\n'.
 * LP_FUZZ_DUMP=1 copies the first 4 KiB of each output to stderr (to inspect a seed).
 */
#include "fuzz.h"

#include "mcp/mcp_int.h"

#include <sys/mman.h>
#include <unistd.h>

static lp_mcp_registry *source_reg; /* the real registrations (schemas, names) */
static lp_mcp_registry *fuzz_reg;   /* the same tools, handlers replaced as above */

static lp_status stub_fn(lp_mcp_call *call, json_t **result, lp_error *err)
{
    (void)result;
    return lp_error_set(err, LP_EUNSUPPORTED, "fuzz fixture: %s is not run by the fuzz target",
                        lp_mcp_call_tool_name(call));
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    lp_log_set_level(LP_LOG_OFF);
    lp_error err = {0};
    lp_mcp_options opt = {.test_tools = true};
    source_reg = lp_mcp_registry_new();
    if (lp_mcp_register_tools(source_reg, &opt, &err) != LP_OK) {
        fprintf(stderr, "fuzz_jsonrpc: cannot register tools: %s\n", err.msg);
        abort();
    }
    fuzz_reg = lp_mcp_registry_new();
    for (size_t i = 0; i < source_reg->tools.len; i++) {
        lp_mcp_tool_def def = source_reg->tools.items[i].def;
        if (strcmp(def.name, "debug_echo") != 0)
            def.fn = stub_fn;
        if (lp_mcp_registry_add(fuzz_reg, &def, &err) != LP_OK) {
            fprintf(stderr, "fuzz_jsonrpc: cannot add %s: %s\n", def.name, err.msg);
            abort();
        }
    }
    return 0;
}

static int memfd_with(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz-in", MFD_CLOEXEC);
    LP_FUZZ_CHECK(fd >= 0);
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(fd, data + off, size - off);
        LP_FUZZ_CHECK(w > 0);
        off += (size_t)w;
    }
    LP_FUZZ_CHECK(lseek(fd, 0, SEEK_SET) == 0);
    return fd;
}

/* Every line the server wrote must be a complete JSON-RPC 2.0 object. */
static void check_output(int fd)
{
    off_t end = lseek(fd, 0, SEEK_END);
    LP_FUZZ_CHECK(end >= 0);
    if (end == 0)
        return;
    char *p = mmap(NULL, (size_t)end, PROT_READ, MAP_PRIVATE, fd, 0);
    LP_FUZZ_CHECK(p != MAP_FAILED);
    size_t n = (size_t)end;
    LP_FUZZ_CHECK(p[n - 1] == '\n');
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(p + i, '\n', n - i);
        size_t len = (size_t)(nl - (p + i));
        LP_FUZZ_CHECK(len > 0);
        json_error_t jerr;
        json_t *m = json_loadb(p + i, len, 0, &jerr);
        if (!m)
            fprintf(stderr, "fuzz_jsonrpc: output line is not JSON (%s): %.200s\n", jerr.text,
                    p + i);
        LP_FUZZ_CHECK(json_is_object(m));
        json_t *v = json_object_get(m, "jsonrpc");
        LP_FUZZ_CHECK(json_is_string(v) && !strcmp(json_string_value(v), "2.0"));
        json_decref(m);
        i += len + 1;
    }
    if (getenv("LP_FUZZ_DUMP")) /* debugging a seed: show what the server answered */
        fwrite(p, 1, n > 4096 ? 4096 : n, stderr);
    munmap(p, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lp_mcp_options opt = {
        .workers = 1,
        .max_result_bytes = 4096,
        /* Generous: the wait ends as soon as nothing is in flight, and a handler that
         * outlived it would leave the server running past this call. */
        .shutdown_grace_ms = 60000,
        .version = "fuzz",
    };
    if (size && data[0] < 0x08) {
        opt.max_line_bytes = (size_t)1024 << (data[0] & 7);
        data++;
        size--;
    }
    int in = memfd_with(data, size);
    int out = memfd_create("fuzz-out", MFD_CLOEXEC);
    LP_FUZZ_CHECK(out >= 0);
    lp_error err = {0};
    lp_status rc = lp_mcp_serve(in, out, fuzz_reg, &opt, false, &err);
    LP_FUZZ_CHECK(rc == LP_OK);
    check_output(out);
    close(in);
    close(out);
    return 0;
}

/* Streams built at replay time: many messages on one stream, a line exactly at the limit. */
void lp_fuzz_synthesize(lp_fuzz_emit emit)
{
#define REQ                                                                                    \
    "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":"         \
    "\"debug_echo\",\"arguments\":{\"message\":\"m%d\",\"repeat\":%d}}}\n"                     \
    "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":%d}}\n"
    lp_buf b;
    lp_buf_init(&b, 0);
    for (int i = 0; i < 2000; i++)
        lp_buf_printf(&b, REQ, i % 50, i, 1 + i % 300, (i * 7) % 50);
    emit("jsonrpc/many-calls-and-cancels", (const uint8_t *)b.ptr, b.len);

    /* A line of exactly 1024 bytes (config byte 0: limit 1024), then one of 1025. */
    lp_buf_reset(&b);
    lp_buf_putc(&b, 0);
    for (size_t want = 1024; want <= 1025; want++) {
        const char *h = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"p\":\"";
        const char *t = "\"}}";
        size_t pad = want - strlen(h) - strlen(t);
        lp_buf_puts(&b, h);
        for (size_t i = 0; i < pad; i++)
            lp_buf_putc(&b, 'x');
        lp_buf_puts(&b, t);
        lp_buf_putc(&b, '\n');
    }
    emit("jsonrpc/line-at-limit", (const uint8_t *)b.ptr, b.len);
    lp_buf_release(&b);
}
