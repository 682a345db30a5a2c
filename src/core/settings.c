/*
 * settings.c: the settings table, the process snapshot, the one number and boolean parser,
 * the state-folder rule. Contract in settings.h.
 */
#include "core/settings.h"

#include <pthread.h>
#include <stdatomic.h>
#include <strings.h>

/* Not const: keys_make fills .key once. */
static lp_setting_def defs[LP_SET_COUNT] = {
#define LP_SETTING_DEF(id, env_, type_, dflt_, min_, max_, flags_, doc_)                      \
    [LP_SET_##id] = {.env = env_, .type = LP_SETTING_##type_, .dflt = dflt_, .min = min_,   \
                     .max = max_, .flags = flags_, .doc = doc_},
    LP_SETTINGS(LP_SETTING_DEF)
#undef LP_SETTING_DEF
};

/* toml keys: the variable without LOUPE_, lower case (built once). */
static char keys[LP_SET_COUNT][48];
static pthread_once_t keys_once = PTHREAD_ONCE_INIT;

static void keys_make(void)
{
    for (size_t i = 0; i < LP_SET_COUNT; i++) {
        const char *e = defs[i].env + 6; /* "LOUPE_" */
        size_t n = 0;
        for (; e[n] && n + 1 < sizeof keys[i]; n++)
            keys[i][n] = (char)((e[n] >= 'A' && e[n] <= 'Z') ? e[n] - 'A' + 'a' : e[n]);
        keys[i][n] = '\0';
        defs[i].key = keys[i];
    }
}

const lp_setting_def *lp_setting_def_of(lp_setting_id id)
{
    pthread_once(&keys_once, keys_make);
    return (unsigned)id < LP_SET_COUNT ? &defs[id] : NULL;
}

bool lp_setting_find(const char *name, lp_setting_id *out)
{
    pthread_once(&keys_once, keys_make);
    for (size_t i = 0; i < LP_SET_COUNT; i++)
        if (!strcmp(name, keys[i]) || !strcmp(name, defs[i].env)) {
            *out = (lp_setting_id)i;
            return true;
        }
    return false;
}

bool lp_parse_bool(lp_str s, bool *out)
{
    static const char *const yes[] = {"1", "true", "yes", "on"};
    static const char *const no[] = {"0", "false", "no", "off"};
    for (size_t i = 0; i < LP_ARRAY_LEN(yes); i++) {
        if (s.len == strlen(yes[i]) && !strncasecmp(s.ptr, yes[i], s.len)) {
            *out = true;
            return true;
        }
        if (s.len == strlen(no[i]) && !strncasecmp(s.ptr, no[i], s.len)) {
            *out = false;
            return true;
        }
    }
    return false;
}

static bool valid_u64(const lp_setting_def *d, const char *v, uint64_t *out)
{
    uint64_t n;
    if (!v || !*v || !lp_parse_u64(lp_str_c(v), &n) || n < d->min || n > d->max)
        return false;
    *out = n;
    return true;
}

lp_status lp_setting_check(lp_setting_id id, const char *value, lp_error *err)
{
    const lp_setting_def *d = &defs[id];
    uint64_t n;
    bool b;
    switch (d->type) {
    case LP_SETTING_U64:
        if (!valid_u64(d, value, &n))
            return lp_error_set(err, LP_EINVAL,
                                "%s needs a whole number from %llu to %llu, not '%.60s'", d->env,
                                (unsigned long long)d->min, (unsigned long long)d->max, value);
        return LP_OK;
    case LP_SETTING_BOOL:
        if (!lp_parse_bool(lp_str_c(value), &b))
            return lp_error_set(err, LP_EINVAL,
                                "%s needs true or false (also 1/0, yes/no, on/off), not '%.60s'",
                                d->env, value);
        return LP_OK;
    default:
        return LP_OK;
    }
}

/* ------------------------------------------------------------------------------------------
 * The snapshot. */

static const lp_settings_snap *_Atomic installed;
static lp_settings_snap *retired; /* every snapshot ever installed, newest first */
static pthread_mutex_t install_mu = PTHREAD_MUTEX_INITIALIZER;

void lp_settings_snap_free(lp_settings_snap *snap)
{
    if (!snap)
        return;
    for (size_t i = 0; i < LP_SET_COUNT; i++)
        free(snap->val[i]);
    free(snap);
}

static bool snap_equal(const lp_settings_snap *a, const lp_settings_snap *b)
{
    for (size_t i = 0; i < LP_SET_COUNT; i++) {
        if (!a->val[i] != !b->val[i])
            return false;
        if (a->val[i] && strcmp(a->val[i], b->val[i]) != 0)
            return false;
    }
    return true;
}

const lp_settings_snap *lp_settings_install(lp_settings_snap *snap)
{
    pthread_mutex_lock(&install_mu);
    const lp_settings_snap *cur = atomic_load(&installed);
    if (cur && snap_equal(cur, snap)) {
        lp_settings_snap_free(snap);
    } else {
        /* The previous one is kept (a reader may hold its strings): one per distinct
         * configuration a process installs, a few hundred bytes each. */
        snap->retired = retired;
        retired = snap;
        atomic_store(&installed, snap);
        cur = snap;
    }
    pthread_mutex_unlock(&install_mu);
    return cur;
}

void lp_settings_reset(void)
{
    pthread_mutex_lock(&install_mu);
    atomic_store(&installed, NULL);
    pthread_mutex_unlock(&install_mu);
}

const lp_settings_snap *lp_settings_current(void) { return atomic_load(&installed); }

const char *lp_setting_raw(lp_setting_id id)
{
    if ((unsigned)id >= LP_SET_COUNT)
        return NULL;
    const lp_settings_snap *s = atomic_load(&installed);
    return s ? s->val[id] : getenv(defs[id].env);
}

const char *lp_setting_str(lp_setting_id id)
{
    const char *v = lp_setting_raw(id);
    return v && *v ? v : NULL;
}

int lp_setting_u64_get(lp_setting_id id, uint64_t *out)
{
    const char *v = lp_setting_str(id);
    if (!v)
        return 0;
    return valid_u64(&defs[id], v, out) ? 1 : -1;
}

uint64_t lp_setting_u64(lp_setting_id id)
{
    uint64_t n;
    if (lp_setting_u64_get(id, &n) == 1)
        return n;
    lp_parse_u64(lp_str_c(defs[id].dflt), &n);
    return n;
}

bool lp_setting_bool(lp_setting_id id)
{
    const char *v = lp_setting_str(id);
    bool b;
    if (v && lp_parse_bool(lp_str_c(v), &b))
        return b;
    return defs[id].dflt[0] == '1';
}

/* ------------------------------------------------------------------------------------------
 * The state folder. */

lp_status lp_settings_state_dir(lp_buf *out, lp_error *err)
{
    return lp_settings_state_dir_from(lp_setting_raw(LP_SET_HOME), out, err);
}

lp_status lp_settings_state_dir_from(const char *home, lp_buf *out, lp_error *err)
{
    lp_buf_reset(out);
    const char *xdg = getenv("XDG_STATE_HOME");
    const char *user = getenv("HOME");
    if (home && !*home)
        /* Set but empty is a mistake (an unset variable in a script, `LOUPE_HOME= loupe`):
         * falling back to the default folder would silently read and write another index. */
        return lp_error_set(err, LP_EINVAL,
                            "LOUPE_HOME is set but empty; set it to an absolute folder, or unset "
                            "it ('unset LOUPE_HOME') to use the default state folder "
                            "($XDG_STATE_HOME/loupe, else ~/.local/state/loupe)");
    if (home && *home)
        lp_buf_puts(out, home);
    else if (xdg && *xdg && xdg[0] == '/')
        lp_buf_printf(out, "%s/loupe", xdg);
    else if (user && *user)
        lp_buf_printf(out, "%s/.local/state/loupe", user);
    else
        return lp_error_set(err, LP_EINVAL,
                            "cannot find a state folder: set LOUPE_HOME (or HOME) to a folder "
                            "loupe may write");
    if (out->ptr[0] != '/')
        return lp_error_set(err, LP_EINVAL, "LOUPE_HOME must be an absolute path, not '%s'",
                            out->ptr);
    /* Normalize so comparisons with real paths work (a trailing slash, "//"). */
    lp_buf norm;
    lp_buf_init(&norm, 0);
    lp_status rc = lp_path_normalize(lp_buf_str(out), &norm, err);
    if (!rc) {
        lp_buf_reset(out);
        lp_buf_put_str(out, lp_buf_str(&norm));
    }
    lp_buf_release(&norm);
    return rc;
}
