/*
 * cmd_debug_settings.c: `loupe debug-settings`: every setting with the value this process
 * runs with (environment, loupe.toml, defaults: src/api/config.c), or, with --markdown, the
 * table docs/ARCHITECTURE.md shows (a unit test checks that the two agree).
 */
#include "cli/cli_int.h"

#include "api/api.h"

static int run(int argc, char **argv)
{
    bool markdown = argc > 1 && !strcmp(argv[1], "--markdown");
    if (argc > 2 || (argc == 2 && !markdown))
        return lp_cli_usage_error("debug-settings", "unknown argument '%s'", argv[1]);
    if (markdown) {
        lp_buf md;
        lp_buf_init(&md, 0);
        lp_config_markdown(&md);
        fputs(md.ptr, stdout);
        lp_buf_release(&md);
        return LP_EXIT_OK;
    }
    lp_engine *e = lp_cli_engine();
    const char *dir = lp_engine_state_dir(e);
    printf("state folder: %s\n", dir ? dir : "(none: LOUPE_HOME or HOME must name one)");
    printf("fingerprint: %s\n", lp_engine_fingerprint(e));
    for (size_t i = 0; i < LP_SET_COUNT; i++) {
        const lp_setting_def *d = lp_setting_def_of((lp_setting_id)i);
        printf("%s = %s%s\n", d->key, lp_engine_setting(e, d->key),
               lp_setting_raw((lp_setting_id)i) ? "" : "  (default)");
    }
    return LP_EXIT_OK;
}

const lp_cli_cmd lp_cmd_debug_settings = {
    .name = "debug-settings",
    .summary = "print every setting and its value (--markdown: the documented table)",
    .usage = "usage: loupe debug-settings [--markdown]\n"
             "Every setting (docs/ARCHITECTURE.md, Settings) with the value this process runs\n"
             "with: the caller's, else the environment's (LOUPE_*), else loupe.toml's in the\n"
             "state folder, else the default. --markdown prints the documented table.\n",
    .run = run,
    .hidden = true,
};
