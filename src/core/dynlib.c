/*
 * dynlib.c: optional shared libraries opened with dlopen on first use (contract in core.h).
 */
#include "core/core.h"

#include <dlfcn.h>

_Static_assert(sizeof(void *) == sizeof(lp_dynfn), "object and function pointers differ");

lp_status lp_dynlib_load(const char *const *sonames, const char *const *symbols, lp_dynfn *fns,
                         size_t n, const char *needed_by, const char *package, lp_error *err)
{
    void *h = NULL;
    const char *tried = NULL;
    for (size_t i = 0; sonames[i] && !h; i++) {
        if (!*sonames[i]) /* a build that could not read the SONAME; "" would be ourselves */
            continue;
        tried = tried ? tried : sonames[i];
        h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
    }
    if (!tried)
        tried = "?";
    if (!h)
        return lp_error_set(err, LP_EUNSUPPORTED,
                            "%s needs the shared library %s, which could not be loaded (%s); "
                            "install the Debian package %s",
                            needed_by, tried, dlerror(), package);
    for (size_t i = 0; i < n; i++) {
        void *p = dlsym(h, symbols[i]);
        if (!p) {
            dlclose(h);
            return lp_error_set(err, LP_EUNSUPPORTED,
                                "%s needs %s from %s, which this copy of the library lacks; "
                                "install the Debian package %s",
                                needed_by, symbols[i], tried, package);
        }
        /* POSIX guarantees dlsym's object pointer converts to a function pointer; ISO C has
         * no cast for it, so copy the bits. */
        memcpy(&fns[i], &p, sizeof p);
    }
    return LP_OK; /* the handle stays open for the life of the process, by design */
}
