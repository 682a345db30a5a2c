/*
 * warn.c: the warning code table (warn.h). Static data only.
 */
#include "core/warn.h"

#include <string.h>

static const lp_warn_info table[LP_WARN_COUNT] = {
#define LP_WARN_ROW_(e, code, sev, meaning) [LP_WARN_##e] = {code, sev, meaning},
    LP_WARN_TABLE(LP_WARN_ROW_)
#undef LP_WARN_ROW_
};

const lp_warn_info *lp_warn_get(lp_warn w)
{
    return (unsigned)w < LP_WARN_COUNT ? &table[w] : NULL;
}

const char *lp_warn_code(lp_warn w) { return (unsigned)w < LP_WARN_COUNT ? table[w].code : ""; }

lp_warn lp_warn_from_code(const char *code)
{
    for (int i = 0; code && i < LP_WARN_COUNT; i++)
        if (!strcmp(table[i].code, code))
            return (lp_warn)i;
    return LP_WARN_COUNT;
}

const char *lp_warn_severity_name(lp_warn_severity s)
{
    return s == LP_WARN_STALE ? "stale" : s == LP_WARN_PARTIAL ? "partial" : "info";
}
