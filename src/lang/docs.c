/*
 * docs.c: Markdown and reStructuredText sections.
 *
 * Each heading is an LP_SYM_SECTION symbol: name = the heading text, qname = the heading
 * path joined with " > ", parent = the enclosing heading (lower level), span = the heading
 * through the end of its subtree (the next heading of the same or a higher level), sig =
 * the heading line(s). A section owns the text from its heading to the next heading of
 * any level (own_end); text before the first heading belongs to no section.
 *
 * Markdown: ATX headings (up to 3 spaces of indent, 1-6 '#', then a space or the end of
 * the line; closing #s dropped) and setext headings (a paragraph underlined with = or -).
 * Fenced code blocks (``` or ~~~, closed by a fence of the same character at least as
 * long) and YAML front matter never produce headings.
 * reST: a title line at column 0 under a blank line, underlined (and optionally
 * overlined, then the title may be indented) with one repeated punctuation character at
 * least as long as the title (or at least 4 long); levels follow the order in which the
 * underline styles first appear, as docutils does.
 *
 * Linear in the input: one pass over the lines, a stack of open headings.
 */
#include "lang/lang_int.h"

#include <ctype.h>

typedef struct line {
    uint32_t start, end; /* end excludes the newline (and a trailing \r) */
    uint32_t next;       /* start of the following line */
} line;

typedef struct heading {
    uint32_t start;     /* first byte of the heading (overline or title line) */
    uint32_t sig_end;   /* end of the heading's last line */
    uint32_t title_start, title_end;
    int level;
} heading;

typedef LP_VEC(heading) heading_vec;
typedef LP_VEC(line) line_vec;

static void split_lines(lp_str s, line_vec *out)
{
    uint32_t pos = 0, n = (uint32_t)s.len;
    while (pos < n) {
        const char *nl = memchr(s.ptr + pos, '\n', n - pos);
        uint32_t e = nl ? (uint32_t)(nl - s.ptr) : n;
        uint32_t next = nl ? e + 1 : n;
        uint32_t te = e;
        if (te > pos && s.ptr[te - 1] == '\r')
            te--;
        lp_vec_push(out, ((line){pos, te, next}));
        pos = next;
    }
}

static bool blank(lp_str s, const line *l)
{
    for (uint32_t i = l->start; i < l->end; i++)
        if (s.ptr[i] != ' ' && s.ptr[i] != '\t')
            return false;
    return true;
}

static uint32_t indent_of(lp_str s, const line *l)
{
    uint32_t i = l->start;
    while (i < l->end && s.ptr[i] == ' ')
        i++;
    return i - l->start;
}

/* ------------------------------------------------------------------------------------------
 * Markdown. */

/* A fence line: up to 3 spaces, then 3+ ` or ~; returns the char and run length. */
static bool md_fence(lp_str s, const line *l, char *ch, uint32_t *run)
{
    uint32_t ind = indent_of(s, l);
    if (ind > 3)
        return false;
    uint32_t i = l->start + ind;
    if (i >= l->end || (s.ptr[i] != '`' && s.ptr[i] != '~'))
        return false;
    char c = s.ptr[i];
    uint32_t j = i;
    while (j < l->end && s.ptr[j] == c)
        j++;
    if (j - i < 3)
        return false;
    *ch = c;
    *run = j - i;
    return true;
}

static bool md_rule_of(lp_str s, const line *l, char c)
{
    uint32_t ind = indent_of(s, l);
    if (ind > 3)
        return false;
    uint32_t i = l->start + ind, n = 0;
    while (i < l->end && s.ptr[i] == c) {
        i++;
        n++;
    }
    while (i < l->end && (s.ptr[i] == ' ' || s.ptr[i] == '\t'))
        i++;
    return n >= 1 && i == l->end;
}

static bool md_atx(lp_str s, const line *l, heading *h)
{
    uint32_t ind = indent_of(s, l);
    if (ind > 3)
        return false;
    uint32_t i = l->start + ind, n = 0;
    while (i < l->end && s.ptr[i] == '#') {
        i++;
        n++;
    }
    if (n < 1 || n > 6 || (i < l->end && s.ptr[i] != ' ' && s.ptr[i] != '\t'))
        return false;
    uint32_t ts = i, te = l->end;
    while (ts < te && (s.ptr[ts] == ' ' || s.ptr[ts] == '\t'))
        ts++;
    while (te > ts && (s.ptr[te - 1] == ' ' || s.ptr[te - 1] == '\t'))
        te--;
    /* closing sequence: #s preceded by a space (or the whole title) */
    uint32_t k = te;
    while (k > ts && s.ptr[k - 1] == '#')
        k--;
    if (k < te && (k == ts || s.ptr[k - 1] == ' ' || s.ptr[k - 1] == '\t')) {
        te = k;
        while (te > ts && (s.ptr[te - 1] == ' ' || s.ptr[te - 1] == '\t'))
            te--;
    }
    h->start = l->start;
    h->sig_end = l->end;
    h->title_start = ts;
    h->title_end = te;
    h->level = (int)n;
    return true;
}

static void md_headings(lp_str s, const line *lines, size_t n, heading_vec *out)
{
    size_t i = 0;
    /* YAML front matter */
    if (n && lines[0].end - lines[0].start == 3 && !memcmp(s.ptr, "---", 3)) {
        for (size_t k = 1; k < n; k++) {
            uint32_t len = lines[k].end - lines[k].start;
            if (len == 3 && (!memcmp(s.ptr + lines[k].start, "---", 3) ||
                             !memcmp(s.ptr + lines[k].start, "...", 3))) {
                i = k + 1;
                break;
            }
        }
    }
    char fence_ch = 0;
    uint32_t fence_run = 0;
    ptrdiff_t para_start = -1; /* first line of the current paragraph */
    for (; i < n; i++) {
        const line *l = &lines[i];
        char c;
        uint32_t run;
        if (fence_ch) {
            if (md_fence(s, l, &c, &run) && c == fence_ch && run >= fence_run) {
                uint32_t j = l->start + indent_of(s, l) + run;
                while (j < l->end && (s.ptr[j] == ' ' || s.ptr[j] == '\t'))
                    j++;
                if (j == l->end)
                    fence_ch = 0;
            }
            continue;
        }
        if (md_fence(s, l, &c, &run)) {
            fence_ch = c;
            fence_run = run;
            para_start = -1;
            continue;
        }
        if (blank(s, l)) {
            para_start = -1;
            continue;
        }
        heading h;
        if (md_atx(s, l, &h)) {
            if (h.title_end > h.title_start)
                lp_vec_push(out, h);
            para_start = -1;
            continue;
        }
        if (para_start >= 0 && (md_rule_of(s, l, '=') || md_rule_of(s, l, '-'))) {
            const line *first = &lines[para_start];
            const line *last = &lines[i - 1];
            h.start = first->start;
            h.sig_end = l->end;
            h.title_start = first->start + indent_of(s, first);
            h.title_end = last->end;
            while (h.title_end > h.title_start &&
                   (s.ptr[h.title_end - 1] == ' ' || s.ptr[h.title_end - 1] == '\t'))
                h.title_end--;
            h.level = md_rule_of(s, l, '=') ? 1 : 2;
            lp_vec_push(out, h);
            para_start = -1;
            continue;
        }
        if (para_start < 0) {
            /* an indented code block cannot start a paragraph */
            if (indent_of(s, l) >= 4)
                continue;
            para_start = (ptrdiff_t)i;
        }
    }
}

/* ------------------------------------------------------------------------------------------
 * reStructuredText. */

static bool rst_adornment(lp_str s, const line *l, char *ch, uint32_t *len)
{
    uint32_t e = l->end;
    while (e > l->start && (s.ptr[e - 1] == ' ' || s.ptr[e - 1] == '\t'))
        e--;
    if (e - l->start < 2)
        return false;
    char c = s.ptr[l->start];
    if (!ispunct((unsigned char)c))
        return false;
    for (uint32_t i = l->start; i < e; i++)
        if (s.ptr[i] != c)
            return false;
    *ch = c;
    *len = e - l->start;
    return true;
}

/* Display width of a title: UTF-8 code points (continuation bytes do not count). */
static uint32_t width_of(lp_str s, uint32_t a, uint32_t b)
{
    uint32_t w = 0;
    for (uint32_t i = a; i < b; i++)
        w += ((unsigned char)s.ptr[i] & 0xC0) != 0x80;
    return w;
}

typedef struct rst_style {
    char ch;
    bool over;
} rst_style;

static void rst_headings(lp_str s, const line *lines, size_t n, heading_vec *out)
{
    rst_style styles[32];
    int nstyles = 0;
    for (size_t i = 0; i < n; i++) {
        const line *l = &lines[i];
        if (blank(s, l))
            continue;
        bool prev_blank = i == 0 || blank(s, &lines[i - 1]);
        char c, c2;
        uint32_t len, len2;
        heading h;
        bool over = false, found = false;
        /* overline + title + underline */
        if (prev_blank && i + 2 < n && rst_adornment(s, l, &c, &len) &&
            !blank(s, &lines[i + 1]) && rst_adornment(s, &lines[i + 2], &c2, &len2) && c == c2 &&
            len == len2) {
            const line *t = &lines[i + 1];
            uint32_t ts = t->start + indent_of(s, t), te = t->end;
            while (te > ts && (s.ptr[te - 1] == ' ' || s.ptr[te - 1] == '\t'))
                te--;
            if (te > ts && width_of(s, ts, te) <= len) {
                h = (heading){l->start, lines[i + 2].end, ts, te, 0};
                over = true;
                found = true;
                i += 2;
            }
        }
        /* title + underline */
        if (!found && prev_blank && i + 1 < n && indent_of(s, l) == 0 &&
            (s.ptr[l->start] != '\t') && rst_adornment(s, &lines[i + 1], &c, &len)) {
            uint32_t ts = l->start, te = l->end;
            while (te > ts && (s.ptr[te - 1] == ' ' || s.ptr[te - 1] == '\t'))
                te--;
            bool title_is_adornment = rst_adornment(s, l, &c2, &len2);
            uint32_t w = width_of(s, ts, te);
            if (!title_is_adornment && (len >= w || len >= 4)) {
                h = (heading){l->start, lines[i + 1].end, ts, te, 0};
                found = true;
                i += 1;
            }
        }
        if (!found)
            continue;
        int level = -1;
        for (int k = 0; k < nstyles; k++)
            if (styles[k].ch == c && styles[k].over == over)
                level = k;
        if (level < 0) {
            if (nstyles == (int)LP_ARRAY_LEN(styles))
                continue;
            styles[nstyles] = (rst_style){c, over};
            level = nstyles++;
        }
        h.level = level + 1;
        lp_vec_push(out, h);
    }
}

/* ------------------------------------------------------------------------------------------
 * Sections from headings. */

/* Back over trailing blank lines: the end of the last non-blank line, newline included. */
static uint32_t trim_end(lp_str s, uint32_t from, uint32_t end)
{
    uint32_t e = end;
    while (e > from && (s.ptr[e - 1] == ' ' || s.ptr[e - 1] == '\t' || s.ptr[e - 1] == '\n' ||
                        s.ptr[e - 1] == '\r'))
        e--;
    if (e < end && s.ptr[e] == '\r')
        e++;
    if (e < end && s.ptr[e] == '\n')
        e++;
    return e;
}

void lp_lx_doc_sections(lp_lang lang, lp_str content, const lx_lines *lt, lp_arena *arena,
                     lp_symbol **syms_out, uint32_t **own_end_out, size_t *nsyms)
{
    line_vec lines = {0};
    heading_vec hs = {0};
    split_lines(content, &lines);
    if (lang == LP_LANG_RST)
        rst_headings(content, lines.items, lines.len, &hs);
    else
        md_headings(content, lines.items, lines.len, &hs);

    size_t n = hs.len;
    lp_symbol *syms = lp_arena_zalloc(arena, (n ? n : 1) * sizeof(lp_symbol));
    uint32_t *own_end = lp_arena_zalloc(arena, (n ? n : 1) * sizeof(uint32_t));
    /* Open headings by level: a heading closes the subtrees of every open heading of its
     * level or deeper, so their spans end where it starts. */
    int32_t *stack = lp_xmalloc((n ? n : 1) * sizeof(int32_t));
    uint32_t *sub_end = lp_xmalloc((n ? n : 1) * sizeof(uint32_t));
    size_t depth = 0;
    lx_sym *tmp = lp_xcalloc(n ? n : 1, sizeof(lx_sym));
    for (size_t i = 0; i < n; i++) {
        const heading *h = &hs.items[i];
        while (depth > 0 && hs.items[stack[depth - 1]].level >= h->level)
            sub_end[stack[--depth]] = h->start;
        int32_t parent = depth > 0 ? stack[depth - 1] : -1;
        stack[depth++] = (int32_t)i;
        sub_end[i] = (uint32_t)content.len;
        lp_symbol *s = &syms[i];
        s->kind = LP_SYM_SECTION;
        s->name = lp_arena_strndup(arena, content.ptr + h->title_start, h->title_end - h->title_start);
        s->qname = parent >= 0 ? lp_arena_printf(arena, "%s > %s", syms[parent].qname, s->name)
                               : s->name;
        s->sig = lp_lx_make_span(lt, h->start, h->sig_end);
        s->parent = parent;
        s->vis = LP_VIS_UNKNOWN;
        uint32_t next = i + 1 < n ? hs.items[i + 1].start : (uint32_t)content.len;
        own_end[i] = trim_end(content, h->sig_end, next);
        tmp[i].qname = s->qname;
        tmp[i].kind = LP_SYM_SECTION;
    }
    for (size_t i = 0; i < n; i++)
        syms[i].span = lp_lx_make_span(lt, hs.items[i].start,
                                    trim_end(content, hs.items[i].sig_end, sub_end[i]));
    free(stack);
    free(sub_end);
    uint32_t *ord = lp_xcalloc(n ? n : 1, sizeof(uint32_t));
    lp_lx_assign_ordinals(tmp, n, ord);
    for (size_t i = 0; i < n; i++)
        syms[i].ordinal = ord[i];
    free(ord);
    free(tmp);
    lp_vec_free(&lines);
    lp_vec_free(&hs);
    *syms_out = syms;
    *own_end_out = own_end;
    *nsyms = n;
}

/* ------------------------------------------------------------------------------------------
 * Operations (lang.h): documents have symbols (their headings) and no code graph. */

static const char *const md_aliases[] = {"md", NULL};
static const char *const md_extensions[] = {".md", ".markdown", ".mdown", ".mkd", NULL};

const lp_lang_ops lp_ops_markdown = {
    .lang = LP_LANG_MARKDOWN,
    .name = "markdown",
    .aliases = md_aliases,
    .extensions = md_extensions,
    .family = LP_LANG_MARKDOWN,
};

static const char *const rst_aliases[] = {"restructuredtext", NULL};
static const char *const rst_extensions[] = {".rst", NULL};

const lp_lang_ops lp_ops_rst = {
    .lang = LP_LANG_RST,
    .name = "rst",
    .aliases = rst_aliases,
    .extensions = rst_extensions,
    .family = LP_LANG_RST,
};
