/*
 * cmd_refs_dump.c: `loupe refs-dump FILE...` (hidden debug command): the references src/lang
 * extracts from files (calls, imports, bases, exports, test names), one per line, as the
 * index would store them. The graph tests and fixture work drive it.
 */
#include "cli/cli_int.h"
#include "lang/lang.h"

static void flags_str(uint32_t f, lp_buf *b)
{
    static const struct {
        uint32_t bit;
        const char *name;
    } names[] = {{LP_REFF_SELF, "self"},         {LP_REFF_SUPER, "super"},
                 {LP_REFF_SHADOWED, "shadowed"}, {LP_REFF_UNTYPED, "untyped"},
                 {LP_REFF_COMPLEX, "complex"},   {LP_REFF_TYPED, "typed"},
                 {LP_REFF_RTYPE_CALL, "rtype_call"}, {LP_REFF_PATH, "path"},
                 {LP_REFF_RELATIVE, "relative"}, {LP_REFF_WILDCARD, "wildcard"},
                 {LP_REFF_SYSTEM, "system"},     {LP_REFF_STATIC, "static"},
                 {LP_REFF_DEFAULT, "default"},   {LP_REFF_NAMESPACE, "namespace"},
                 {LP_REFF_MODDECL, "moddecl"},   {LP_REFF_MACRO, "macro"},
                 {LP_REFF_CONVERSION, "conversion"}};
    for (size_t i = 0; i < LP_ARRAY_LEN(names); i++)
        if (f & names[i].bit) {
            if (b->len)
                lp_buf_putc(b, ',');
            lp_buf_puts(b, names[i].name);
        }
}

static int run_refs_dump(int argc, char **argv)
{
    const char *lang_name = NULL;
    int code = LP_EXIT_OK;
    int files_from = argc; /* after '--': file names only */
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            files_from = i + 1;
            break;
        }
        if (!strcmp(argv[i], "--lang")) {
            if (++i >= argc)
                return lp_cli_usage_error("refs-dump", "--lang needs a language");
            lang_name = argv[i];
            continue;
        }
        if (argv[i][0] == '-')
            return lp_cli_unknown_option("refs-dump", argv[i]);
    }
    for (int i = 1; i < argc; i++) {
        if (i < files_from && !strcmp(argv[i], "--lang")) {
            i++;
            continue;
        }
        if (i + 1 == files_from && !strcmp(argv[i], "--"))
            continue;
        lp_error err = {0};
        lp_buf content;
        lp_buf_init(&content, 0);
        lp_arena arena;
        lp_arena_init(&arena, 0);
        lp_status rc = lp_read_file(argv[i], (size_t)64 << 20, &content, &err);
        lp_parse_result pr;
        lp_lang lang = lang_name ? lp_lang_from_name(lp_str_c(lang_name))
                                 : lp_lang_detect(lp_str_c(argv[i]), lp_buf_str(&content));
        if (!rc && lang == LP_LANG_COUNT)
            rc = lp_error_set(&err, LP_EUSAGE, "unknown language '%s'", lang_name);
        if (!rc)
            rc = lp_parse(lang, lp_buf_str(&content), NULL, &arena, &pr, &err);
        if (rc) {
            lp_error_prefix(&err, "%s", argv[i]);
            code = lp_cli_fail(&err, false);
        } else {
            printf("# %s: lang=%s refs=%zu\n", argv[i], lp_lang_name(lang), pr.nrefs);
            lp_buf fl;
            lp_buf_init(&fl, 0);
            for (size_t k = 0; k < pr.nrefs; k++) {
                const lp_ref *r = &pr.refs[k];
                lp_buf_reset(&fl);
                flags_str(r->flags, &fl);
                const char *owner =
                    r->owner >= 0 && (size_t)r->owner < pr.nsymbols ? pr.symbols[r->owner].qname : "-";
                printf("%u %s %s name=%s", r->span.start_line, lp_refkind_name(r->kind), owner,
                       r->name);
                if (*r->qual)
                    printf(" qual=%s", r->qual);
                if (*r->alias)
                    printf(" alias=%s", r->alias);
                if (*r->rtype)
                    printf(" rtype=%s", r->rtype);
                if (fl.len)
                    printf(" [%s]", fl.ptr);
                if (r->nargs >= 0)
                    printf(" args=%d(%s)", r->nargs, r->args);
                printf("\n");
            }
            lp_buf_release(&fl);
        }
        lp_buf_release(&content);
        lp_arena_release(&arena);
    }
    return code;
}

const lp_cli_cmd lp_cmd_refs_dump = {
    .name = "refs-dump",
    .summary = "debug: the references extracted from files",
    .usage = "usage: loupe refs-dump FILE... [--lang L]\n"
             "Debug command: one line per reference src/lang extracts (calls, constructor\n"
             "calls, imports, base types, exports, test names):\n"
             "  LINE KIND OWNER name=N [qual=Q] [alias=A] [rtype=T] [flags] [args=N(TEXT)]\n",
    .run = run_refs_dump,
    .hidden = true,
};
