/*
 * path.c: lexical path normalization and containment checks.
 *
 * Nothing here follows symlinks except lp_path_real; containment of a real file in a root
 * is decided by callers on realpath'd strings with lp_path_under.
 */
#include "core/core.h"

#include <errno.h>
#include <limits.h>

lp_status lp_path_normalize(lp_str in, lp_buf *out, lp_error *err)
{
    lp_buf_reset(out);
    if (in.len == 0)
        return lp_error_set(err, LP_EPATH, "empty path");
    if (in.len > LP_PATH_MAX)
        return lp_error_set(err, LP_EPATH, "path is longer than %d bytes", LP_PATH_MAX);
    if (memchr(in.ptr, '\0', in.len))
        return lp_error_set(err, LP_EPATH, "path contains a NUL byte");
    bool absolute = in.ptr[0] == '/';
    /* Component start offsets in out, to pop on "..". */
    size_t stack[LP_PATH_MAX / 2 + 1];
    size_t depth = 0;
    if (absolute)
        lp_buf_putc(out, '/');
    size_t base = out->len;
    size_t i = 0;
    while (i < in.len) {
        while (i < in.len && in.ptr[i] == '/')
            i++;
        size_t s = i;
        while (i < in.len && in.ptr[i] != '/')
            i++;
        lp_str comp = {in.ptr + s, i - s};
        if (comp.len == 0 || lp_str_eq_c(comp, "."))
            continue;
        if (lp_str_eq_c(comp, "..")) {
            if (depth == 0) {
                if (absolute)
                    continue; /* "/.." is "/" */
                return lp_error_set(err, LP_EPATH,
                                    "path climbs above its starting folder with \"..\"");
            }
            lp_buf_truncate(out, stack[--depth]);
            if (out->len > base && out->ptr[out->len - 1] == '/')
                lp_buf_truncate(out, out->len - 1);
            continue;
        }
        size_t start = out->len;
        if (out->len > base)
            lp_buf_putc(out, '/');
        stack[depth++] = start;
        lp_buf_put_str(out, comp);
    }
    if (out->len == 0)
        lp_buf_putc(out, '.');
    if (out->err)
        return lp_error_set(err, LP_EPATH, "path too long");
    return LP_OK;
}

bool lp_path_is_clean_relative(lp_str rel)
{
    if (rel.len == 0 || rel.len > LP_PATH_MAX || rel.ptr[0] == '/' || rel.ptr[rel.len - 1] == '/')
        return false;
    if (memchr(rel.ptr, '\0', rel.len))
        return false;
    size_t i = 0;
    while (i <= rel.len) {
        size_t s = i;
        while (i < rel.len && rel.ptr[i] != '/')
            i++;
        lp_str comp = {rel.ptr + s, i - s};
        if (comp.len == 0 || lp_str_eq_c(comp, ".") || lp_str_eq_c(comp, ".."))
            return false;
        i++;
    }
    return true;
}

lp_status lp_path_real(const char *path, lp_buf *out, lp_error *err)
{
    char resolved[PATH_MAX];
    if (!realpath(path, resolved)) {
        int e = errno;
        if (e == ELOOP)
            return lp_error_set(err, LP_EPATH,
                                "%s is a symlink loop (a symlink on it leads back to itself, "
                                "directly or through others); it leads to no file",
                                path);
        return lp_error_set(err, e == ENOENT ? LP_ENOENT : LP_EPATH, "cannot resolve %s: %s",
                            path, strerror(e));
    }
    lp_buf_reset(out);
    lp_buf_puts(out, resolved);
    return out->err ? lp_error_set(err, LP_EPATH, "path too long") : LP_OK;
}

bool lp_path_under(lp_str root, lp_str abs, lp_str *rel)
{
    if (root.len == 1 && root.ptr[0] == '/') {
        if (abs.len == 0 || abs.ptr[0] != '/')
            return false;
        *rel = lp_str_sub(abs, 1, abs.len);
        return true;
    }
    if (!lp_str_starts_with(abs, root))
        return false;
    if (abs.len == root.len) {
        *rel = (lp_str){abs.ptr + abs.len, 0};
        return true;
    }
    if (abs.ptr[root.len] != '/')
        return false;
    *rel = lp_str_sub(abs, root.len + 1, abs.len);
    return true;
}

void lp_path_join(lp_buf *out, lp_str a, lp_str b)
{
    lp_buf_reset(out);
    lp_buf_put_str(out, a);
    if (a.len && b.len && a.ptr[a.len - 1] != '/')
        lp_buf_putc(out, '/');
    lp_buf_put_str(out, b);
}

lp_str lp_path_basename(lp_str p)
{
    size_t i = p.len;
    while (i > 0 && p.ptr[i - 1] != '/')
        i--;
    return lp_str_sub(p, i, p.len);
}

lp_str lp_path_dirname(lp_str p)
{
    size_t i = p.len;
    while (i > 0 && p.ptr[i - 1] != '/')
        i--;
    if (i == 0)
        return (lp_str){p.ptr, 0};
    if (i == 1)
        return (lp_str){p.ptr, 1}; /* "/" */
    return (lp_str){p.ptr, i - 1};
}

lp_str lp_path_ext(lp_str p)
{
    lp_str base = lp_path_basename(p);
    for (size_t i = base.len; i > 1; i--)
        if (base.ptr[i - 1] == '.')
            return lp_str_sub(base, i - 1, base.len);
    return (lp_str){base.ptr + base.len, 0};
}
