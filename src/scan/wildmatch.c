/*
 * wildmatch.c: glob matching with git's wildmatch semantics, on (pointer, length) strings.
 *
 * Why our own: fnmatch(3) differs from git on `**`, on `[` classes and on escapes, and the
 * ignore rules must give git's answers. The matcher is a recursive descent over the
 * pattern; a `*` tries each possible split of the text. Two early-exit results keep it
 * polynomial: ABORT_ALL (the text ran out: no later split can match either) and
 * ABORT_TO_STARSTAR (a single `*` met a '/': only an enclosing `**` may still match).
 *
 * Semantics, with PATHNAME (how ignore rules with a slash are matched):
 *   `?` any byte but '/'; `*` any run without '/'; `[...]` one byte (never '/'), with
 *   ranges, `!` or `^` negation, a leading `]` taken literally, `\` escapes and the POSIX
 *   classes [:alnum:] ... [:xdigit:] (ASCII only, locale-independent); `\x` the byte x;
 *   `**` filling a whole segment (at the start or after '/', and at the end or before '/')
 *   matches any number of folders, `**` elsewhere is a plain `*`.
 * Without PATHNAME (basename rules) `*` and `?` also match '/'. A pattern ending in a lone
 * `\`, an unclosed `[` or an unknown `[:class:]` matches nothing.
 */
#include "scan/scan.h"

enum { WM_MATCH = 0, WM_NOMATCH = 1, WM_ABORT_ALL = -1, WM_ABORT_TO_STARSTAR = -2 };

typedef struct wm {
    const unsigned char *p;
    size_t pn;
    const unsigned char *t;
    size_t tn;
    bool pathname;
} wm;

static int match_at(const wm *m, size_t pi, size_t ti);

static bool is_special(unsigned char c) { return c == '*' || c == '?' || c == '[' || c == '\\'; }

static bool in_class(const unsigned char *name, size_t len, unsigned char c, bool *known)
{
#define CLASS_IS(lit) (len == sizeof(lit) - 1 && memcmp(name, lit, len) == 0)
    bool upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
    bool digit = c >= '0' && c <= '9', alpha = upper || lower;
    bool print = c >= 0x20 && c < 0x7f;
    *known = true;
    if (CLASS_IS("alnum"))
        return alpha || digit;
    if (CLASS_IS("alpha"))
        return alpha;
    if (CLASS_IS("blank"))
        return c == ' ' || c == '\t';
    if (CLASS_IS("cntrl"))
        return c < 0x20 || c == 0x7f;
    if (CLASS_IS("digit"))
        return digit;
    if (CLASS_IS("graph"))
        return print && c != ' ';
    if (CLASS_IS("lower"))
        return lower;
    if (CLASS_IS("print"))
        return print;
    if (CLASS_IS("punct"))
        return print && c != ' ' && !alpha && !digit;
    if (CLASS_IS("space"))
        return c == ' ' || (c >= '\t' && c <= '\r');
    if (CLASS_IS("upper"))
        return upper;
    if (CLASS_IS("xdigit"))
        return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
#undef CLASS_IS
    *known = false;
    return false;
}

/* A "[:name:]" item at p[i] ('[' with ':' next). Returns the index of its closing ']', or
 * SIZE_MAX when no ']' follows at all; *literal is set when it is not a class after all
 * (then the '[' counts as a plain byte). */
static size_t class_item(const wm *m, size_t i, unsigned char c, bool *hit, bool *literal,
                         bool *bad)
{
    size_t s = i + 2, j = s;
    while (j < m->pn && m->p[j] != ']')
        j++;
    if (j >= m->pn)
        return SIZE_MAX;
    if (j == s || m->p[j - 1] != ':') {
        *literal = true;
        *hit = c == '[';
        return i;
    }
    bool known;
    *hit = in_class(m->p + s, j - s - 1, c, &known);
    *bad = !known;
    return j;
}

/* Bracket expression starting at *pi ('['), against the text byte c. On a result other
 * than ABORT_ALL, *pi is left on the closing ']'. */
static int match_bracket(const wm *m, size_t *pi, unsigned char c)
{
    size_t i = *pi + 1;
    if (i >= m->pn)
        return WM_ABORT_ALL;
    bool negated = m->p[i] == '!' || m->p[i] == '^';
    if (negated)
        i++;
    bool matched = false, first = true;
    int prev = -1; /* the previous single byte, the low end of a range; -1 after a range */
    for (;; i++, first = false) {
        if (i >= m->pn)
            return WM_ABORT_ALL;
        unsigned char pc = m->p[i];
        if (pc == ']' && !first)
            break;
        if (pc == '\\') {
            if (++i >= m->pn)
                return WM_ABORT_ALL;
            pc = m->p[i];
            matched |= c == pc;
            prev = pc;
        } else if (pc == '-' && prev >= 0 && i + 1 < m->pn && m->p[i + 1] != ']') {
            unsigned char hi = m->p[++i];
            if (hi == '\\') {
                if (++i >= m->pn)
                    return WM_ABORT_ALL;
                hi = m->p[i];
            }
            matched |= c >= prev && c <= hi;
            prev = -1;
        } else if (pc == '[' && i + 1 < m->pn && m->p[i + 1] == ':') {
            bool hit = false, literal = false, bad = false;
            size_t end = class_item(m, i, c, &hit, &literal, &bad);
            if (end == SIZE_MAX || bad)
                return WM_ABORT_ALL;
            matched |= hit;
            prev = literal ? '[' : -1;
            i = end;
        } else {
            matched |= c == pc;
            prev = pc;
        }
    }
    *pi = i;
    if (matched == negated || (m->pathname && c == '/'))
        return WM_NOMATCH;
    return WM_MATCH;
}

static const unsigned char *find_slash(const wm *m, size_t ti)
{
    return ti < m->tn ? memchr(m->t + ti, '/', m->tn - ti) : NULL;
}

/* The stars start at p[s]; the text is at ti. Tries every split. */
static int match_star(const wm *m, size_t s, size_t ti)
{
    size_t pi = s;
    while (pi < m->pn && m->p[pi] == '*')
        pi++;
    bool match_slash = !m->pathname;
    if (pi - s >= 2) {
        bool seg_start = s == 0 || m->p[s - 1] == '/';
        bool seg_end = pi == m->pn || m->p[pi] == '/' ||
                       (m->p[pi] == '\\' && pi + 1 < m->pn && m->p[pi + 1] == '/');
        if (seg_start && seg_end) {
            /* "dir/ **" + "/rest": first let the stars match no folder at all. */
            if (pi < m->pn && m->p[pi] == '/' && match_at(m, pi + 1, ti) == WM_MATCH)
                return WM_MATCH;
            match_slash = true;
        } else {
            match_slash = false; /* as git: a `**` inside a segment never crosses '/' */
        }
    }
    if (pi == m->pn) /* trailing stars: the rest, if it has no '/' (or may) */
        return (!match_slash && find_slash(m, ti)) ? WM_NOMATCH : WM_MATCH;
    if (!match_slash && m->p[pi] == '/') {
        /* one `*` then '/': the star takes the rest of this segment, no other split. */
        const unsigned char *sl = find_slash(m, ti);
        if (!sl)
            return WM_NOMATCH;
        return match_at(m, pi + 1, (size_t)(sl - m->t) + 1);
    }
    for (; ti < m->tn; ti++) {
        unsigned char next = m->p[pi];
        if (!is_special(next)) {
            /* The byte after the stars is literal: skip to its next occurrence. */
            while (ti < m->tn && m->t[ti] != next && (match_slash || m->t[ti] != '/'))
                ti++;
            if (ti >= m->tn || m->t[ti] != next)
                return WM_NOMATCH;
        }
        int r = match_at(m, pi, ti);
        if (r != WM_NOMATCH) {
            if (!match_slash || r != WM_ABORT_TO_STARSTAR)
                return r;
        } else if (!match_slash && m->t[ti] == '/') {
            return WM_ABORT_TO_STARSTAR;
        }
    }
    return WM_ABORT_ALL;
}

static int match_at(const wm *m, size_t pi, size_t ti)
{
    for (; pi < m->pn; pi++, ti++) {
        unsigned char pc = m->p[pi];
        if (pc == '*')
            return match_star(m, pi, ti);
        if (ti >= m->tn)
            return WM_ABORT_ALL;
        unsigned char tc = m->t[ti];
        if (pc == '?') {
            if (m->pathname && tc == '/')
                return WM_NOMATCH;
        } else if (pc == '[') {
            int r = match_bracket(m, &pi, tc);
            if (r != WM_MATCH)
                return r;
        } else {
            if (pc == '\\' && ++pi >= m->pn)
                return WM_NOMATCH; /* a lone trailing backslash matches nothing */
            if (tc != m->p[pi])
                return WM_NOMATCH;
        }
    }
    return ti == m->tn ? WM_MATCH : WM_NOMATCH;
}

bool lp_wildmatch(lp_str pattern, lp_str text, unsigned flags)
{
    wm m = {(const unsigned char *)pattern.ptr, pattern.len, (const unsigned char *)text.ptr,
            text.len, (flags & LP_WILDMATCH_PATHNAME) != 0};
    return match_at(&m, 0, 0) == WM_MATCH;
}
