/*
 * log.c: one line per event on stderr, level from LOUPE_LOG; clocks.
 *
 * A line is written with a single write(2) so lines from threads never interleave.
 */
#include "core/core.h"
#include "core/settings.h"

#include <time.h>
#include <unistd.h>

static volatile int log_level = LP_LOG_WARN;

static const char *const level_names[] = {"error", "warn", "info", "debug", "off"};

void lp_log_set_level(lp_log_level lv) { log_level = (int)lv; }
lp_log_level lp_log_get_level(void) { return (lp_log_level)log_level; }
bool lp_log_enabled(lp_log_level lv) { return log_level != LP_LOG_OFF && (int)lv <= log_level; }

void lp_log_init_from_env(void)
{
    const char *v = lp_setting_str(LP_SET_LOG);
    if (!v || !*v)
        return;
    for (int i = 0; i < (int)LP_ARRAY_LEN(level_names); i++)
        if (strcmp(v, level_names[i]) == 0)
            log_level = i;
}

void lp_log(lp_log_level lv, const char *event, const char *fmt, ...)
{
    if (!lp_log_enabled(lv))
        return;
    char line[1024];
    int n = snprintf(line, sizeof line, "loupe level=%s event=%s ", level_names[lv], event);
    if (n < 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m > 0 ? (size_t)m : 0);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    ssize_t w = write(2, line, len);
    (void)w;
}

uint64_t lp_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

int64_t lp_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void lp_format_iso8601(int64_t wall_ms, char out[32])
{
    time_t t = (time_t)(wall_ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}
