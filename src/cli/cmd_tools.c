/*
 * cmd_tools.c: `loupe tools search|stats` over tool-catalog files (src/catalog), and the
 * hidden `loupe tools bench` that bench/catalog drives.
 */
#include "catalog/catalog.h"
#include "cli/cli_int.h"

#include <math.h>
#include <time.h>

static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

typedef struct tools_args {
    const char *sub;
    LP_VEC(const char *) catalogs;
    LP_VEC(const char *) pins;
    LP_VEC(const char *) namespaces;
    LP_VEC(const char *) tags;
    LP_VEC(const char *) params;
    lp_buf query;
    const char *queries_file;
    size_t max_tools, max_tokens, top, repeat;
    bool json, no_defs, lenient, read_only, list;
} tools_args;

static const char usage_text[] =
    "usage: loupe tools search QUERY... --catalog FILE [--catalog FILE]... [options]\n"
    "       loupe tools stats --catalog FILE [--catalog FILE]... [--list] [--json]\n"
    "\n"
    "Find the few right tools among many: rank the tool definitions of the catalog files\n"
    "for QUERY (words or a tool name) and print the best ones within the budgets. Ranking\n"
    "fuses words (BM25F) and meaning (loupe's built-in embeddings); each tool says which\n"
    "found it. LOUPE_EMBED_MODEL=none ranks by words only.\n"
    "\n"
    "Catalog files hold MCP tools/list results, or arrays of OpenAI (Chat or Responses),\n"
    "Anthropic or Gemini function definitions; {\"server\": NAME, \"tools\": [...]} names\n"
    "the namespace of every tool in a file.\n"
    "\n"
    "options:\n"
    "  --catalog FILE      a catalog file (repeat for several)\n"
    "  --max-tools N       most tools to return (default 5)\n"
    "  --max-tokens T      token budget for the returned definitions (default none)\n"
    "  --pin NAME          always include this tool id or name (repeatable)\n"
    "  --namespace NS      keep only tools of this namespace (repeatable: any of them)\n"
    "  --tag TAG           keep only tools with this tag (repeatable: all of them)\n"
    "  --read-only         keep only tools annotated readOnlyHint: true\n"
    "  --lenient           skip invalid definitions (warned) instead of failing\n"
    "  --json              print JSON; each definition is embedded byte-for-byte\n"
    "  --no-definitions    with --json: leave the definitions out\n"
    "  --list              stats: list every tool (id, provider, estimated tokens)\n";

static bool take_size(const char *opt, const char *v, size_t *out)
{
    uint64_t n;
    if (!v || !lp_parse_u64(lp_str_c(v), &n) || n > 100000000) {
        lp_cli_usage_error("tools", "%s needs a whole number, got '%s'", opt, v ? v : "");
        return false;
    }
    *out = (size_t)n;
    return true;
}

/* Returns -1 when parsing succeeded, else the exit code. */
static int parse_args(int argc, char **argv, tools_args *a)
{
    if (argc < 2)
        return lp_cli_usage_error("tools", "missing subcommand (search or stats)");
    a->sub = argv[1];
    if (strcmp(a->sub, "search") && strcmp(a->sub, "stats") && strcmp(a->sub, "bench"))
        return lp_cli_usage_error("tools", "unknown subcommand '%s' (search or stats)", a->sub);
    bool only_positional = false;
    for (int i = 2; i < argc; i++) {
        const char *s = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (only_positional || s[0] != '-' || !s[1]) {
            if (strcmp(a->sub, "search") != 0)
                return lp_cli_usage_error("tools", "unexpected argument '%s'", s);
            if (a->query.len)
                lp_buf_putc(&a->query, ' ');
            lp_buf_puts(&a->query, s);
            continue;
        }
        if (!strcmp(s, "--")) {
            only_positional = true;
            continue;
        }
#define NEEDS_VALUE()                                                                          \
    do {                                                                                       \
        if (!v)                                                                                \
            return lp_cli_usage_error("tools", "%s needs a value", s);                         \
        i++;                                                                                   \
    } while (0)
        if (!strcmp(s, "--catalog")) {
            NEEDS_VALUE();
            lp_vec_push(&a->catalogs, v);
        } else if (!strcmp(s, "--pin")) {
            NEEDS_VALUE();
            lp_vec_push(&a->pins, v);
        } else if (!strcmp(s, "--namespace")) {
            NEEDS_VALUE();
            lp_vec_push(&a->namespaces, v);
        } else if (!strcmp(s, "--tag")) {
            NEEDS_VALUE();
            lp_vec_push(&a->tags, v);
        } else if (!strcmp(s, "--param")) {
            NEEDS_VALUE();
            lp_vec_push(&a->params, v);
        } else if (!strcmp(s, "--queries")) {
            NEEDS_VALUE();
            a->queries_file = v;
        } else if (!strcmp(s, "--max-tools")) {
            NEEDS_VALUE();
            if (!take_size(s, v, &a->max_tools))
                return LP_EXIT_USAGE;
            if (a->max_tools == 0) {
                lp_cli_usage_error("tools", "--max-tools needs a number of at least 1");
                return LP_EXIT_USAGE;
            }
        } else if (!strcmp(s, "--max-tokens")) {
            NEEDS_VALUE();
            if (!take_size(s, v, &a->max_tokens))
                return LP_EXIT_USAGE;
        } else if (!strcmp(s, "--top")) {
            NEEDS_VALUE();
            if (!take_size(s, v, &a->top))
                return LP_EXIT_USAGE;
        } else if (!strcmp(s, "--repeat")) {
            NEEDS_VALUE();
            if (!take_size(s, v, &a->repeat))
                return LP_EXIT_USAGE;
        } else if (!strcmp(s, "--json")) {
            a->json = true;
        } else if (!strcmp(s, "--no-definitions")) {
            a->no_defs = true;
        } else if (!strcmp(s, "--lenient")) {
            a->lenient = true;
        } else if (!strcmp(s, "--read-only")) {
            a->read_only = true;
        } else if (!strcmp(s, "--list")) {
            a->list = true;
        } else {
            return lp_cli_unknown_option("tools", s);
        }
#undef NEEDS_VALUE
    }
    if (a->catalogs.len == 0)
        return lp_cli_usage_error("tools", "give at least one --catalog FILE");
    if (!strcmp(a->sub, "search") && lp_str_trim(lp_buf_str(&a->query)).len == 0 &&
        a->pins.len == 0)
        return lp_cli_usage_error("tools", "give a QUERY (words or a tool name)");
    if (!strcmp(a->sub, "bench") && !a->queries_file)
        return lp_cli_usage_error("tools", "bench needs --queries FILE");
    return -1;
}

/* Build the catalog from every --catalog file. Prints warnings of lenient parses. */
static lp_status load(const tools_args *a, lp_catalog **out, lp_error *err)
{
    lp_catalog_params params = lp_catalog_params_default();
    for (size_t i = 0; i < a->params.len; i++) {
        lp_status st = lp_catalog_params_set(&params, a->params.items[i], err);
        if (st)
            return st;
    }
    lp_catalog *cat;
    lp_status st = lp_catalog_new(NULL, &params, &cat, err);
    if (st)
        return st;
    lp_buf data;
    lp_buf_init(&data, 0);
    for (size_t i = 0; i < a->catalogs.len && !st; i++) {
        const char *path = a->catalogs.items[i];
        lp_catalog_batch *b = NULL;
        lp_error e = {0};
        st = lp_read_file(path, lp_catalog_get_limits(cat)->max_file_bytes, &data, &e);
        if (st) {
            lp_error_set(err, st, "%s%s", st == LP_ETOOBIG ? "file_too_large: " : "io_error: ",
                         e.msg);
            if (st == LP_ENOENT)
                lp_error_set(err, st, "io_error: %s; check the path given to --catalog", e.msg);
            break;
        }
        lp_catalog_parse_opts o = {.source = path, .lenient = a->lenient};
        st = lp_catalog_parse(cat, data.ptr, data.len, &o, &b, err);
        if (!st) {
            size_t builtins = 0;
            for (size_t w = 0; w < lp_catalog_batch_warning_count(b); w++) {
                const char *msg = lp_catalog_batch_warning(b, w);
                if (!strncmp(msg, "builtin_tool:", 13))
                    builtins++;
                else
                    fprintf(stderr, "loupe: warning: skipped %s\n", msg);
            }
            if (builtins && !strcmp(a->sub, "stats"))
                fprintf(stderr, "loupe: note: %s: %zu provider built-in tool%s without a name "
                                "not indexed\n",
                        path, builtins, builtins == 1 ? "" : "s");
            st = lp_catalog_add(cat, b, err);
        }
        lp_catalog_batch_free(b);
    }
    lp_buf_release(&data);
    if (st) {
        lp_catalog_free(cat);
        return st;
    }
    *out = cat;
    return LP_OK;
}

static void print_hits(const lp_catalog *cat, const lp_catalog_query *q,
                       const lp_catalog_result *r)
{
    if (r->nhits == 0 && r->omitted_budget)
        printf("%zu %s \"%.*s\", but none fits the token budget (--max-tokens %zu); "
               "raise the budget or pin the tool you need\n",
               r->omitted_budget, r->omitted_budget == 1 ? "tool matches" : "tools match",
               LP_STR_ARG(q->text), q->max_tokens);
    else if (r->nhits == 0)
        printf("no tool matches \"%.*s\" (%zu tools in the catalog)\n", LP_STR_ARG(q->text),
               lp_catalog_count(cat));
    for (size_t i = 0; i < r->nhits; i++) {
        const lp_catalog_hit *h = &r->hits[i];
        const lp_catalog_tool *t = h->tool;
        printf("%zu. %s", i + 1, t->id);
        if (*t->ns && !strchr(t->id, '/'))
            printf("  [%s]", t->ns);
        printf("  %s  score %.2f  ~%zu tokens%s", lp_catalog_provider_name(t->provider), h->score,
               h->tokens, h->pinned ? "  (pinned)" : "");
        const char *sep = "  via ";
        for (unsigned c = 0; lp_catalog_channel_name(c); c++)
            if (h->channels & (1u << c)) {
                printf("%s%s", sep, lp_catalog_channel_name(c));
                sep = "+";
            }
        printf("\n");
        const char *d = *t->description ? t->description : t->title;
        size_t n = strcspn(d, "\n");
        if (n > 110) {
            n = lp_utf8_cut(d, n, 107);
            printf("   %.*s...\n", (int)n, d);
        } else if (n) {
            printf("   %.*s\n", (int)n, d);
        }
    }
    if (r->nhits) {
        printf("\n%zu of %zu matching tools, %zu tokens", r->nhits, r->matched,
               r->total_tokens);
        if (q->max_tokens)
            printf(" (budget %zu)", q->max_tokens);
        if (r->omitted_budget)
            printf("; %zu left out for the token budget", r->omitted_budget);
        if (r->omitted_count)
            printf("; %zu more below the cut", r->omitted_count);
        printf("\n");
    }
    for (size_t i = 0; i < r->nwarnings; i++)
        fprintf(stderr, "loupe: warning: %s\n", r->warnings[i]);
}

static int run_search(const tools_args *a, const lp_catalog *cat)
{
    lp_catalog_query q = {
        .text = lp_buf_str(&a->query),
        .max_tools = a->max_tools,
        .max_tokens = a->max_tokens,
        .pinned = a->pins.items,
        .npinned = a->pins.len,
        .namespaces = a->namespaces.items,
        .nnamespaces = a->namespaces.len,
        .tags = a->tags.items,
        .ntags = a->tags.len,
    };
    if (a->read_only)
        q.hints[LP_CATALOG_HINT_READ_ONLY] = LP_HINT_TRUE;
    lp_catalog_result r;
    lp_error err = {0};
    lp_status st = lp_catalog_search(cat, &q, &r, &err);
    if (st)
        return lp_cli_fail(&err, a->json);
    if (a->json) {
        lp_buf out;
        lp_buf_init(&out, 0);
        lp_catalog_result_write_json(cat, &q, &r, !a->no_defs, &out);
        fwrite(out.ptr, 1, out.len, stdout);
        fputc('\n', stdout);
        lp_buf_release(&out);
    } else {
        print_hits(cat, &q, &r);
    }
    lp_catalog_result_release(&r);
    return LP_EXIT_OK;
}

static void print_list(const tools_args *a, const lp_catalog *cat)
{
    size_t n = 0;
    const lp_catalog_tool **all = lp_catalog_list(cat, &n);
    lp_buf out;
    lp_buf_init(&out, 0);
    for (size_t i = 0; i < n; i++) {
        const lp_catalog_tool *t = all[i];
        if (a->json) {
            lp_buf_puts(&out, i ? ",{\"id\":" : "{\"id\":");
            lp_buf_putc(&out, '"');
            for (const char *p = t->id; *p; p++) {
                if (*p == '"' || *p == '\\')
                    lp_buf_putc(&out, '\\');
                lp_buf_putc(&out, *p);
            }
            lp_buf_printf(&out, "\",\"provider\":\"%s\",\"tokens\":%zu,\"bytes\":%zu}",
                          lp_catalog_provider_name(t->provider), t->tokens, t->definition.len);
        } else {
            lp_buf_printf(&out, "%-40s %-16s ~%zu tokens\n", t->id,
                          lp_catalog_provider_name(t->provider), t->tokens);
        }
    }
    fwrite(out.ptr, 1, out.len, stdout);
    lp_buf_release(&out);
    free(all);
}

static int run_stats(const tools_args *a, const lp_catalog *cat)
{
    lp_catalog_stats s;
    lp_catalog_get_stats(cat, &s);
    if (a->json && a->list) {
        printf("{\"tools\":[");
        print_list(a, cat);
        printf("]}\n");
        return LP_EXIT_OK;
    }
    if (a->list) {
        print_list(a, cat);
        return LP_EXIT_OK;
    }
    if (a->json) {
        printf("{\"tools\":%zu,\"providers\":{", s.tools);
        bool first = true;
        for (int p = 0; p < LP_CATALOG_PROVIDER_COUNT; p++) {
            if (!s.by_provider[p])
                continue;
            printf("%s\"%s\":%zu", first ? "" : ",", lp_catalog_provider_name(p),
                   s.by_provider[p]);
            first = false;
        }
        printf("},\"namespaces\":%zu,\"groups\":%zu,\"definitionBytes\":%zu,\"tokens\":%zu,"
               "\"maxToolTokens\":%zu,\"terms\":%zu,\"postings\":%zu,\"schemaTruncated\":%zu,"
               "\"memoryBytes\":%zu}\n",
               s.namespaces, s.groups, s.definition_bytes, s.tokens, s.max_tokens, s.terms,
               s.postings, s.schema_truncated, s.memory_bytes);
        return LP_EXIT_OK;
    }
    printf("tools          %zu\n", s.tools);
    printf("providers     ");
    for (int p = 0; p < LP_CATALOG_PROVIDER_COUNT; p++)
        if (s.by_provider[p])
            printf(" %s %zu", lp_catalog_provider_name(p), s.by_provider[p]);
    printf("\nnamespaces     %zu\n", s.namespaces);
    printf("files/groups   %zu\n", s.groups);
    printf("definitions    %zu bytes, ~%zu tokens (largest tool ~%zu)\n", s.definition_bytes,
           s.tokens, s.max_tokens);
    printf("index          %zu terms, %zu postings, ~%zu KiB in memory\n", s.terms, s.postings,
           s.memory_bytes / 1024);
    if (s.schema_truncated)
        printf("note           %zu tools had schemas cut at a traversal limit\n",
               s.schema_truncated);
    return LP_EXIT_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Hidden: one query per line in, one line of tab-separated ranked ids out; timings and
 * memory on stderr as key=value. */
static int run_bench(const tools_args *a, const lp_catalog *cat, uint64_t build_ns,
                     uint64_t build_cpu_ns)
{
    lp_buf qs;
    lp_buf_init(&qs, 0);
    lp_error err = {0};
    if (lp_read_file(a->queries_file, (size_t)1 << 30, &qs, &err))
        return lp_cli_fail(&err, false);
    LP_VEC(uint64_t) times = {0};
    LP_VEC(uint64_t) cpu = {0};
    size_t top = a->top ? a->top : 10, repeat = a->repeat ? a->repeat : 1;
    lp_catalog_query q = {.max_tools = top};
    for (size_t rep = 0; rep < repeat; rep++) {
        lp_str all = lp_buf_str(&qs);
        size_t pos = 0;
        while (pos < all.len) {
            size_t nl = lp_str_find_char(all, '\n', pos);
            if (nl == SIZE_MAX)
                nl = all.len;
            q.text = lp_str_sub(all, pos, nl);
            pos = nl + 1;
            lp_catalog_result r;
            uint64_t t0 = lp_now_ns(), c0 = cpu_ns();
            lp_status st = lp_catalog_search(cat, &q, &r, &err);
            lp_vec_push(&cpu, cpu_ns() - c0);
            lp_vec_push(&times, lp_now_ns() - t0);
            if (st) {
                lp_vec_free(&times);
                lp_vec_free(&cpu);
                lp_buf_release(&qs);
                return lp_cli_fail(&err, false);
            }
            if (rep == 0) {
                for (size_t i = 0; i < r.nhits; i++)
                    printf("%s%s", i ? "\t" : "", r.hits[i].tool->id);
                putchar('\n');
            }
            lp_catalog_result_release(&r);
        }
    }
    qsort(times.items, times.len, sizeof *times.items, cmp_u64);
    qsort(cpu.items, cpu.len, sizeof *cpu.items, cmp_u64);
    lp_catalog_stats s;
    lp_catalog_get_stats(cat, &s);
    size_t n = times.len;
    fprintf(stderr,
            "bench tools=%zu build_ms=%.1f build_cpu_ms=%.1f queries=%zu cpu_p50_us=%.1f "
            "cpu_p95_us=%.1f p50_us=%.1f p95_us=%.1f p99_us=%.1f max_us=%.1f memory_bytes=%zu "
            "bytes_per_tool=%.0f terms=%zu postings=%zu\n",
            s.tools, build_ns / 1e6, build_cpu_ns / 1e6, n, n ? cpu.items[n / 2] / 1e3 : 0,
            n ? cpu.items[(size_t)(n * 0.95)] / 1e3 : 0, n ? times.items[n / 2] / 1e3 : 0,
            n ? times.items[(size_t)(n * 0.95)] / 1e3 : 0,
            n ? times.items[(size_t)(n * 0.99)] / 1e3 : 0, n ? times.items[n - 1] / 1e3 : 0,
            s.memory_bytes, s.tools ? (double)s.memory_bytes / (double)s.tools : 0, s.terms,
            s.postings);
    lp_vec_free(&times);
    lp_vec_free(&cpu);
    lp_buf_release(&qs);
    return LP_EXIT_OK;
}

static int run(int argc, char **argv)
{
    tools_args a = {0};
    lp_buf_init(&a.query, 0);
    lp_catalog *cat = NULL;
    int rc = parse_args(argc, argv, &a);
    if (rc >= 0)
        goto done;
    lp_error err = {0};
    uint64_t t0 = lp_now_ns(), c0 = cpu_ns();
    if (load(&a, &cat, &err)) {
        rc = lp_cli_fail(&err, a.json);
        goto done;
    }
    uint64_t build_ns = lp_now_ns() - t0, build_cpu = cpu_ns() - c0;
    if (!strcmp(a.sub, "search"))
        rc = run_search(&a, cat);
    else if (!strcmp(a.sub, "stats"))
        rc = run_stats(&a, cat);
    else
        rc = run_bench(&a, cat, build_ns, build_cpu);
done:
    lp_catalog_free(cat);
    lp_vec_free(&a.catalogs);
    lp_vec_free(&a.pins);
    lp_vec_free(&a.namespaces);
    lp_vec_free(&a.tags);
    lp_vec_free(&a.params);
    lp_buf_release(&a.query);
    return rc;
}

const lp_cli_cmd lp_cmd_tools = {
    .name = "tools",
    .summary = "search a tool catalog (MCP, OpenAI, Anthropic, Gemini definitions)",
    .usage = usage_text,
    .run = run,
};
