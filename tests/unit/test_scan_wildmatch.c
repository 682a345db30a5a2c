/*
 * test_scan_wildmatch.c: lp_wildmatch against a table of git wildmatch answers.
 */
#include "scan/scan.h"
#include "t.h"

#define P LP_WILDMATCH_PATHNAME

typedef struct wm_case {
    const char *pattern;
    const char *text;
    unsigned flags;
    bool match;
} wm_case;

static const wm_case cases[] = {
    /* literals, ? and * */
    {"foo", "foo", P, true},
    {"foo", "bar", P, false},
    {"", "", P, true},
    {"", "a", P, false},
    {"???", "foo", P, true},
    {"??", "foo", P, false},
    {"*", "foo", P, true},
    {"f*", "foo", P, true},
    {"*f", "foo", P, false},
    {"*foo*", "foo", P, true},
    {"*ob*a*r*", "foobar", P, true},
    {"*ab", "aaaaaaabababab", P, true},
    {"*a*b*c*", "xaybzc", P, true},
    {"*a*b*c*", "xaycbz", P, false},
    {"*a*a*a*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", P, false},
    /* escapes */
    {"foo\\*", "foo*", P, true},
    {"foo\\*bar", "foobar", P, false},
    {"f\\\\oo", "f\\oo", P, true},
    {"\\#x", "#x", P, true},
    {"\\*\\?", "*?", P, true},
    {"\\*\\?", "ab", P, false},
    {"foo\\", "foo\\", P, false}, /* a lone trailing backslash matches nothing */
    {"foo\\", "foo", P, false},
    {"a\\ ", "a ", P, true},
    /* bracket expressions */
    {"*[al]?", "ball", P, true},
    {"[ten]", "ten", P, false},
    {"**[!te]", "ten", P, true},
    {"**[!ten]", "ten", P, false},
    {"t[a-g]n", "ten", P, true},
    {"t[!a-g]n", "ten", P, false},
    {"t[!a-g]n", "ton", P, true},
    {"t[^a-g]n", "ton", P, true},
    {"a[]]b", "a]b", P, true},
    {"a[]-]b", "a-b", P, true},
    {"a[]-]b", "a]b", P, true},
    {"a[]-]b", "aab", P, false},
    {"a[]a-]b", "aab", P, true},
    {"]", "]", P, true},
    {"[!]-]", "]", P, false},
    {"[!]-]", "a", P, true},
    {"[\\-^]", "-", P, true},
    {"[\\-^]", "]", P, false},
    {"[\\1-\\3]", "2", P, true},
    {"[\\1-\\3]", "4", P, false},
    {"[a-c-e]", "-", P, true}, /* after a range, '-' is literal */
    {"[a-c-e]", "d", P, false},
    {"[-a]", "-", P, true},
    {"[a-]", "-", P, true},
    {"[[:alpha:]][[:digit:]][[:upper:]]", "a1B", P, true},
    {"[[:digit:][:upper:][:space:]]", "a", P, false},
    {"[[:digit:][:upper:][:space:]]", "A", P, true},
    {"[[:digit:][:upper:][:space:]]", " ", P, true},
    {"[[:digit:][:upper:][:space:]]", ".", P, false},
    {"[[:digit:][:punct:][:space:]]", ".", P, true},
    {"[[:xdigit:]]", "f", P, true},
    {"[[:xdigit:]]", "g", P, false},
    {"[[:lower:]]", "G", P, false},
    {"[[:alnum:]]", "\xc3", P, false}, /* ASCII classes only */
    {"[[:nope:]]", "n", P, false},     /* unknown class: matches nothing */
    {"[a-c[:digit:]x-z]", "5", P, true},
    {"[a-c[:digit:]x-z]", "y", P, true},
    {"[a-c[:digit:]x-z]", "q", P, false},
    {"[[:]", "[", P, true}, /* no ":]": the '[' is a plain byte */
    {"[[:]", ":", P, true},
    {"[[:]", "x", P, false},
    {"[ab", "a", P, false}, /* unclosed: matches nothing */
    {"a[", "a[", P, false},
    {"[!", "a", P, false},
    /* slashes with and without PATHNAME */
    {"foo*bar", "foo/bar", P, false},
    {"foo*bar", "foo/bar", 0, true},
    {"foo?bar", "foo/bar", P, false},
    {"foo?bar", "foo/bar", 0, true},
    {"foo[/]bar", "foo/bar", P, false},
    {"foo[^a-z]bar", "foo/bar", P, false},
    {"*/foo", "bar/foo", P, true},
    {"*/foo", "a/b/foo", P, false},
    {"*", "a/b", P, false},
    {"*", "a/b", 0, true},
    /* ** */
    {"**/foo", "foo", P, true},
    {"**/foo", "a/b/foo", P, true},
    {"**/foo", "afoo", P, false},
    {"foo/**", "foo/a", P, true},
    {"foo/**", "foo/a/b", P, true},
    {"foo/**", "foo", P, false},
    {"foo/**/bar", "foo/bar", P, true},
    {"foo/**/bar", "foo/x/y/bar", P, true},
    {"foo/**/bar", "foo/xbar", P, false},
    {"foo**bar", "foo/x/bar", P, false}, /* ** inside a segment is a plain * */
    {"foo**bar", "fooxbar", P, true},
    {"a/**b", "a/x/b", P, false},
    {"a/**b", "a/xb", P, true},
    {"**", "a/b/c", P, true},
    {"**/*.c", "a/b/c.c", P, true},
    {"**/*.c", "c.c", P, true},
    {"**/*.c", "a/b/c.h", P, false},
    {"a/**/**/b", "a/b", P, true},
    {"a/**/b/**/c", "a/x/b/y/z/c", P, true},
    {"a/**/b/**/c", "a/x/b/y/z/d", P, false},
    {"**/b/*", "a/b/c/d", P, false},
    {"**/b/**", "a/b/c/d", P, true},
};

T_TEST(scan_wildmatch_table)
{
    int bad = 0;
    for (size_t i = 0; i < LP_ARRAY_LEN(cases); i++) {
        const wm_case *c = &cases[i];
        bool got = lp_wildmatch(lp_str_c(c->pattern), lp_str_c(c->text), c->flags);
        if (got != c->match) {
            lp_t_fail(t, __FILE__, __LINE__, "pattern \"%s\" text \"%s\" flags %u: got %d",
                      c->pattern, c->text, c->flags, got);
            bad++;
        }
    }
    T_CHECK_INT(bad, 0);
done:;
}

T_TEST(scan_wildmatch_uses_lengths_not_nul)
{
    /* Slices inside larger strings: only the given bytes count. */
    const char *pat = "a*cXYZ", *txt = "abcdef";
    T_CHECK(lp_wildmatch(lp_str_n(pat, 3), lp_str_n(txt, 3), P));
    T_CHECK(!lp_wildmatch(lp_str_n(pat, 3), lp_str_n(txt, 4), P));
    T_CHECK(lp_wildmatch(lp_str_n("[ab]]]", 5), lp_str_n("a]", 2), P));
done:;
}
