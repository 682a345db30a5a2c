/*
 * test_config.c: the settings table (core/settings), configuration read once
 * (api/config.c: loupe.toml, precedence), the engine handle (api/engine.c) and the
 * documentation of every setting.
 */
#include "t.h"

#include "api/api.h"
#include "lang/lang.h"
#include "mcp/mcp.h"
#include "scan/scan.h"
#include "search/search.h"

static lp_status parse(const char *text, bool root_file, lp_settings_snap **snap, lp_error *err)
{
    *snap = lp_xcalloc(1, sizeof **snap);
    return lp_config_parse_toml("x/loupe.toml", lp_str_c(text), root_file, *snap, err);
}

T_TEST(config_parse_bool_and_u64)
{
    bool b = false;
    T_CHECK(lp_parse_bool(lp_str_c("TRUE"), &b) && b);
    T_CHECK(lp_parse_bool(lp_str_c("on"), &b) && b);
    T_CHECK(lp_parse_bool(lp_str_c("0"), &b) && !b);
    T_CHECK(lp_parse_bool(lp_str_c("No"), &b) && !b);
    T_CHECK(!lp_parse_bool(lp_str_c("2"), &b));
    T_CHECK(!lp_parse_bool(lp_str_c(""), &b));
    lp_error e = {0};
    T_CHECK_INT(lp_setting_check(LP_SET_FROZEN_MAX_BYTES, "4095", &e), LP_EINVAL);
    T_CHECK(strstr(e.msg, "LOUPE_FROZEN_MAX_BYTES") && strstr(e.msg, "4096"));
    T_CHECK_INT(lp_setting_check(LP_SET_FROZEN_MAX_BYTES, "4096", &e), LP_OK);
    T_CHECK_INT(lp_setting_check(LP_SET_SYNC_REBUILD_PERCENT, "101", &e), LP_EINVAL);
    T_CHECK_INT(lp_setting_check(LP_SET_DENSE, "maybe", &e), LP_EINVAL);
done:;
}

T_TEST(config_toml_values)
{
    lp_settings_snap *s = NULL;
    lp_error e = {0};
    T_CHECK_OK(parse("# comment\n\n"
                     "frozen_ttl_ms = 1234   # trailing comment\r\n"
                     "dense = true\n"
                     "  search_tune = \"k1=1.5,b=0.7\"\n"
                     "embed_model = \"/m/a \\\"b\\\".bin\"\n",
                     false, &s, &e),
               &e);
    T_CHECK_STR(s->val[LP_SET_FROZEN_TTL_MS], "1234");
    T_CHECK_STR(s->val[LP_SET_DENSE], "true");
    T_CHECK_STR(s->val[LP_SET_SEARCH_TUNE], "k1=1.5,b=0.7");
    T_CHECK_STR(s->val[LP_SET_EMBED_MODEL], "/m/a \"b\".bin");
    T_CHECK(s->val[LP_SET_FROZEN_MAX_SETS] == NULL);
done:
    lp_settings_snap_free(s);
}

/* Each bad file fails naming file:line and what is wrong. */
T_TEST(config_toml_errors)
{
    static const struct {
        const char *text;
        bool root;
        const char *want;
    } cases[] = {
        {"frozen_ttl_ms = 1\nfrozen_max_sets = \"3\"\n", false, "x/loupe.toml:2: "},
        {"frozen_ttl_ms = 0\n", false, "x/loupe.toml:1: LOUPE_FROZEN_TTL_MS needs a whole"},
        {"no_such_thing = 1\n", false, "unknown setting 'no_such_thing'"},
        {"LOUPE_DENSE = true\n", false, "unknown setting 'LOUPE_DENSE'"},
        {"[search]\n", false, "x/loupe.toml:1: tables"},
        {"dense = 1\n", false, "dense needs true or false"},
        {"dense = true\ndense = false\n", false, "x/loupe.toml:2: dense is set twice"},
        {"log = debug\n", false, "log is text: put the value in double quotes"},
        {"log = \"debug\n", false, "no closing"},
        {"log = \"a\\qb\"\n", false, "unknown escape"},
        {"log = \"info\" extra\n", false, "unexpected text"},
        {"home = \"/tmp/x\"\n", false, "home can only come from the environment (LOUPE_HOME)"},
        {"test_no_graph = true\n", false, "only come from the environment"},
        {"just words\n", false, "expected 'key = value'"},
        /* A repository's file may not send code elsewhere or move data. */
        {"embed_url = \"http://evil/\"\n", true, "cannot be set by a repository's loupe.toml"},
        {"embed_model = \"/x\"\n", true, "cannot be set by a repository's"},
    };
    for (size_t i = 0; i < LP_ARRAY_LEN(cases); i++) {
        lp_settings_snap *s = NULL;
        lp_error e = {0};
        lp_status rc = parse(cases[i].text, cases[i].root, &s, &e);
        lp_settings_snap_free(s);
        T_CHECK_MSG(rc == LP_EINVAL, "case %zu: %s", i, lp_status_code(rc));
        T_CHECK_MSG(strstr(e.msg, cases[i].want), "case %zu: '%s' lacks '%s'", i, e.msg,
                    cases[i].want);
        T_CHECK_STR(e.reason, "config_invalid");
    }
    /* A root file may tune how its root is searched and built. */
    lp_settings_snap *s = NULL;
    lp_error e = {0};
    lp_status rc = parse("search_channels = \"exact,lexical\"\nmax_total_bytes = 1000\n", true, &s,
                         &e);
    lp_settings_snap_free(s);
    T_CHECK_OK(rc, &e);
done:;
}

/* defaults < <state>/loupe.toml < <root>/loupe.toml < environment < caller. */
T_TEST(config_precedence)
{
    lp_settings_snap *s = NULL;
    lp_error e = {0};
    lp_buf root;
    lp_buf_init(&root, 0);
    lp_buf_printf(&root, "%s/repo", t->tmpdir);
    T_CHECK_OK(lp_t_write(t, "state/loupe.toml",
                          "frozen_ttl_ms = 111\nfrozen_max_sets = 7\nfrozen_max_bytes = 9000\n"
                          "sync_rebuild_percent = 5\n"),
               &e);
    T_CHECK_OK(lp_t_write(t, "repo/loupe.toml", "sync_rebuild_percent = 6\n"), &e);
    setenv("LOUPE_FROZEN_MAX_SETS", "8", 1);
    setenv("LOUPE_FROZEN_MAX_BYTES", "9001", 1);
    char state[300];
    snprintf(state, sizeof state, "%s/state", t->tmpdir);
    lp_config_setting over[] = {{"frozen_max_bytes", "9002"}};
    lp_config cfg = {.state_dir = state, .root = root.ptr, .settings = over, .nsettings = 1};
    T_CHECK_OK(lp_config_snapshot(&cfg, &s, &e), &e);
    T_CHECK_STR(s->val[LP_SET_FROZEN_TTL_MS], "111");   /* the state folder's file */
    T_CHECK_STR(s->val[LP_SET_SYNC_REBUILD_PERCENT], "6"); /* the root's file over it */
    T_CHECK_STR(s->val[LP_SET_FROZEN_MAX_SETS], "8");   /* the environment over files */
    T_CHECK_STR(s->val[LP_SET_FROZEN_MAX_BYTES], "9002"); /* the caller over everything */
    T_CHECK_STR(s->val[LP_SET_HOME], state);
    lp_settings_snap_free(s);
    s = NULL;
    /* ignore_environment: the files and the caller only. */
    cfg.ignore_environment = true;
    T_CHECK_OK(lp_config_snapshot(&cfg, &s, &e), &e);
    T_CHECK_STR(s->val[LP_SET_FROZEN_MAX_SETS], "7");
    lp_settings_snap_free(s);
    s = NULL;
    /* A caller's bad value or unknown name is refused. */
    lp_config_setting bad[] = {{"frozen_max_sets", "0"}};
    lp_config cfg2 = {.state_dir = state, .settings = bad, .nsettings = 1};
    T_CHECK_INT(lp_config_snapshot(&cfg2, &s, &e), LP_EINVAL);
    T_CHECK_STR(e.reason, "config_invalid");
    lp_config_setting unknown[] = {{"frozen_max_set", "1"}};
    cfg2.settings = unknown;
    T_CHECK_INT(lp_config_snapshot(&cfg2, &s, &e), LP_EINVAL);
    T_CHECK(strstr(e.msg, "unknown setting 'frozen_max_set'"));
    /* An explicit config file must exist. */
    lp_config cfg3 = {.state_dir = state, .config_file = "/nonexistent/loupe.toml"};
    T_CHECK(lp_config_snapshot(&cfg3, &s, &e) != LP_OK);
    T_CHECK_STR(e.reason, "config_invalid");
done:
    unsetenv("LOUPE_FROZEN_MAX_SETS");
    unsetenv("LOUPE_FROZEN_MAX_BYTES");
    lp_settings_snap_free(s);
    lp_buf_release(&root);
}

/* Without an installed snapshot the accessors read the environment at the call (unit tests
 * and tools that link the modules alone); an installed one answers for the process. */
T_TEST(config_accessors_and_install)
{
    lp_settings_reset();
    unsetenv("LOUPE_FROZEN_TTL_MS");
    T_CHECK_INT(lp_setting_u64(LP_SET_FROZEN_TTL_MS), LP_FROZEN_TTL_MS);
    setenv("LOUPE_FROZEN_TTL_MS", "77", 1);
    T_CHECK_INT(lp_setting_u64(LP_SET_FROZEN_TTL_MS), 77);
    setenv("LOUPE_FROZEN_TTL_MS", "0", 1); /* below the minimum: the default */
    T_CHECK_INT(lp_setting_u64(LP_SET_FROZEN_TTL_MS), LP_FROZEN_TTL_MS);
    uint64_t n = 0;
    T_CHECK_INT(lp_setting_u64_get(LP_SET_FROZEN_TTL_MS, &n), -1);
    unsetenv("LOUPE_FROZEN_TTL_MS");
    T_CHECK_INT(lp_setting_u64_get(LP_SET_FROZEN_TTL_MS, &n), 0);
    lp_settings_snap *s = lp_xcalloc(1, sizeof *s);
    s->val[LP_SET_FROZEN_TTL_MS] = lp_xstrdup("55");
    s->val[LP_SET_DENSE] = lp_xstrdup("yes");
    const lp_settings_snap *cur = lp_settings_install(s);
    T_CHECK(cur == s);
    setenv("LOUPE_FROZEN_TTL_MS", "99", 1); /* read once: the environment no longer counts */
    T_CHECK_INT(lp_setting_u64(LP_SET_FROZEN_TTL_MS), 55);
    T_CHECK(lp_setting_bool(LP_SET_DENSE));
    /* Installing an equal snapshot keeps the current one. */
    lp_settings_snap *same = lp_xcalloc(1, sizeof *same);
    same->val[LP_SET_FROZEN_TTL_MS] = lp_xstrdup("55");
    same->val[LP_SET_DENSE] = lp_xstrdup("yes");
    T_CHECK(lp_settings_install(same) == cur);
done:
    lp_settings_reset();
    unsetenv("LOUPE_FROZEN_TTL_MS");
}

/* The table's defaults are the modules' constants. */
T_TEST(config_defaults_match_modules)
{
    uint64_t n;
    const struct {
        lp_setting_id id;
        uint64_t want;
    } cases[] = {
        {LP_SET_FROZEN_TTL_MS, (uint64_t)LP_FROZEN_TTL_MS},
        {LP_SET_FROZEN_MAX_SETS, LP_FROZEN_MAX_SETS},
        {LP_SET_FROZEN_MAX_BYTES, LP_FROZEN_MAX_BYTES},
        {LP_SET_MAX_TOTAL_BYTES, LP_SCAN_MAX_TOTAL_BYTES},
    };
    for (size_t i = 0; i < LP_ARRAY_LEN(cases); i++) {
        T_CHECK(lp_parse_u64(lp_str_c(lp_setting_def_of(cases[i].id)->dflt), &n));
        T_CHECK_MSG(n == cases[i].want, "%s", lp_setting_def_of(cases[i].id)->env);
    }
    T_CHECK_INT(lp_setting_def_of(LP_SET_MCP_WORKERS)->max, LP_MCP_MAX_WORKERS);
    uint64_t mb, ms;
    lp_settings_reset();
    unsetenv("LOUPE_PARSE_BUDGET_MB");
    lp_parse_budget_default(&mb, &ms);
    T_CHECK(lp_parse_u64(lp_str_c(lp_setting_def_of(LP_SET_PARSE_BUDGET_MB)->dflt), &n));
    T_CHECK_INT(mb, n << 20);
    /* Every setting is a LOUPE_ variable with a key, a doc and a sane range. */
    for (size_t i = 0; i < LP_SET_COUNT; i++) {
        const lp_setting_def *d = lp_setting_def_of((lp_setting_id)i);
        T_CHECK(!strncmp(d->env, "LOUPE_", 6) && d->key && *d->key && d->doc && *d->doc);
        if (d->type == LP_SETTING_U64)
            T_CHECK_MSG(d->min <= d->max, "%s", d->env);
        lp_setting_id back;
        T_CHECK(lp_setting_find(d->key, &back) && back == (lp_setting_id)i);
    }
done:;
}

/* docs/ARCHITECTURE.md holds the table exactly as lp_config_markdown prints it, and every
 * LOUPE_ variable the sources read is in the table. */
T_TEST(config_documented)
{
    lp_buf doc, md;
    lp_buf_init(&doc, 0);
    lp_buf_init(&md, 0);
    lp_error e = {0};
    T_CHECK_OK(lp_read_file("docs/ARCHITECTURE.md", 1 << 22, &doc, &e), &e);
    lp_config_markdown(&md);
    T_CHECK_MSG(strstr(doc.ptr, md.ptr),
                "docs/ARCHITECTURE.md's settings table differs from the table in "
                "src/core/settings.h: paste the output of 'loupe debug-settings --markdown'");
    /* Every LOUPE_ name the sources spell is a setting; none is read with getenv. */
    FILE *p = popen("grep -rhoE '\"LOUPE_[A-Z0-9_]+' src | sort -u", "r");
    T_CHECK(p != NULL);
    char line[128];
    size_t names = 0;
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        lp_setting_id id;
        names++;
        T_CHECK_MSG(lp_setting_find(line + 1, &id), "%s is read in src/ but is not in the table",
                    line + 1);
    }
    pclose(p);
    T_CHECK(names > 20);
    p = popen("grep -rn 'getenv(\"LOUPE_' src", "r");
    T_CHECK(p != NULL);
    bool any = fgets(line, sizeof line, p) != NULL;
    pclose(p);
    T_CHECK_MSG(!any, "a LOUPE_ variable is read with getenv: %s", line);
done:
    lp_buf_release(&doc);
    lp_buf_release(&md);
}

static void count_progress(void *ctx, const char *phase, uint64_t done, uint64_t total)
{
    (void)done;
    (void)total;
    if (phase && *phase)
        ++*(int *)ctx;
}

/* The engine: configuration once, state folder, settings, status, index and search
 * through the public calls. */
T_TEST(config_engine_calls)
{
    lp_engine *eng = NULL;
    lp_engine_index_result *ir = NULL;
    lp_engine_search_result *sr = NULL;
    lp_engine_status_result *st = NULL;
    lp_error e = {0};
    char state[300], repo[300];
    snprintf(state, sizeof state, "%s/state", t->tmpdir);
    snprintf(repo, sizeof repo, "%s/repo", t->tmpdir);
    T_CHECK_OK(lp_t_write(t, "repo/a.py", "def refresh_access_token(s):\n    return s.renew()\n"),
               &e);
    T_CHECK_OK(lp_t_write(t, "state/loupe.toml", "frozen_max_sets = 3\n"), &e);
    lp_config_setting over[] = {{"LOUPE_FROZEN_TTL_MS", "4321"}};
    lp_config cfg = {.state_dir = state, .settings = over, .nsettings = 1};
    T_CHECK_OK(lp_engine_new(&cfg, &eng, &e), &e);
    T_CHECK_STR(lp_engine_state_dir(eng), state);
    T_CHECK_STR(lp_engine_setting(eng, "frozen_ttl_ms"), "4321");
    T_CHECK_STR(lp_engine_setting(eng, "frozen_max_sets"), "3");
    T_CHECK_STR(lp_engine_setting(eng, "freshness_ttl_ms"), "2000");
    T_CHECK(lp_engine_setting(eng, "nope") == NULL);
    T_CHECK_INT(lp_setting_u64(LP_SET_FROZEN_TTL_MS), 4321); /* lower modules see it */
    T_CHECK(strstr(lp_engine_fingerprint(eng), "embedding="));
    T_CHECK_OK(lp_engine_status(eng, repo, false, &st, &e), &e);
    T_CHECK_STR(st->state, "not_indexed");
    lp_engine_search_request q = {.path = repo, .query = "refresh access token"};
    T_CHECK_INT(lp_engine_search(eng, &q, &sr, &e), LP_ENOTINDEXED);
    T_CHECK_STR(e.reason, "not_indexed");
    int calls = 0;
    lp_engine_index_request ix = {.path = repo, .progress = count_progress, .progress_ctx = &calls};
    T_CHECK_OK(lp_engine_index(eng, &ix, &ir, &e), &e);
    T_CHECK(calls > 0);
    T_CHECK(ir->published && ir->files == 1 && ir->publication_id > 0);
    T_CHECK_OK(lp_engine_search(eng, &q, &sr, &e), &e);
    T_CHECK(sr->nhits >= 1);
    T_CHECK_STR(sr->hits[0].file, "a.py");
    T_CHECK_STR(sr->hits[0].symbol, "refresh_access_token");
    T_CHECK_INT(sr->publication_id, ir->publication_id);
    lp_engine_status_result_free(st);
    st = NULL;
    T_CHECK_OK(lp_engine_status(eng, repo, true, &st, &e), &e);
    T_CHECK_STR(st->state, "ready");
    T_CHECK(st->freshness_checked && st->changed == 0 && st->files == 1);
    q.limit = 500;
    lp_engine_search_result *bad = NULL;
    T_CHECK_INT(lp_engine_search(eng, &q, &bad, &e), LP_EINVAL);
    T_CHECK(bad == NULL);
    T_CHECK_STR(e.reason, "invalid_argument");
done:
    lp_engine_status_result_free(st);
    lp_engine_search_result_free(sr);
    lp_engine_index_result_free(ir);
    lp_engine_free(eng);
    lp_settings_reset();
}

/* A state folder that cannot be found fails lp_engine_new (strict), with its reason. */
T_TEST(config_engine_state_folder)
{
    lp_engine *eng = NULL;
    lp_error e = {0};
    lp_config cfg = {.state_dir = "relative/path"};
    T_CHECK_INT(lp_engine_new(&cfg, &eng, &e), LP_EINVAL);
    T_CHECK(eng == NULL);
    T_CHECK_STR(e.reason, "state_folder");
    T_CHECK(strstr(e.msg, "absolute"));
done:
    lp_engine_free(eng);
    lp_settings_reset();
}
