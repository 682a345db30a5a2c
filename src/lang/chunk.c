/*
 * chunk.c: owner-bounded chunks.
 *
 * An owner's text is its region (doc comment and decorations included) with the bodies of
 * the owners nested in it replaced by a marker ("{ … }" or "…") and their doc comments
 * dropped, so every byte of source text is the searchable text of exactly one owner
 * (signature lines of nested owners are the exception: they stay in the enclosing text
 * too). Text no owner holds (imports, top-level statements) becomes module chunks.
 * A text longer than the bound is cut into windows of whole lines (a line longer than
 * the byte bound is cut inside, at a space when one is near, never inside a UTF-8
 * sequence) that overlap by a few lines.
 *
 * Invariants: no chunk is empty or whitespace only; every chunk's text is NUL-terminated
 * and at most max_bytes + marker bytes long; spans lie within the content; the work is
 * linear in the content size (every byte is copied a bounded number of times).
 */
#include "lang/lang_int.h"

/* ------------------------------------------------------------------------------------------
 * Lines. */

void lp_lx_lines_build(lp_str content, lp_arena *arena, lx_lines *out)
{
    uint32_t n = 1;
    for (const char *p = content.ptr, *e = content.ptr + content.len;
         p < e && (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++)
        n++;
    uint32_t *starts = lp_arena_alloc(arena, (size_t)n * sizeof(uint32_t));
    starts[0] = 0;
    uint32_t k = 1;
    for (const char *p = content.ptr, *e = content.ptr + content.len;
         p < e && (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++)
        starts[k++] = (uint32_t)(p - content.ptr) + 1;
    out->starts = starts;
    out->n = n;
}

uint32_t lp_lx_line_of(const lx_lines *l, uint32_t byte)
{
    uint32_t lo = 0, hi = l->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (l->starts[mid] <= byte)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo : 1;
}

lp_span lp_lx_make_span(const lx_lines *l, uint32_t start, uint32_t end)
{
    lp_span s;
    s.start_byte = start;
    s.end_byte = end;
    s.start_line = lp_lx_line_of(l, start);
    s.end_line = end > start ? lp_lx_line_of(l, end - 1) : s.start_line;
    return s;
}

static inline bool isalnum_ascii(unsigned char c)
{
    return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

/* ------------------------------------------------------------------------------------------
 * Owner text: pieces of the source and markers. */

typedef struct piece {
    uint32_t toff;         /* offset in the assembled text */
    uint32_t tlen;
    uint32_t ostart, oend; /* source bytes this piece stands for */
    bool marker;
} piece;

typedef struct chunker {
    lp_str src;
    const lx_lines *lines;
    const lx_chunk_opts *o;
    lp_arena *arena;
    lp_buf text;
    LP_VEC(piece) pieces;
    LP_VEC(lp_chunk) out;
} chunker;

static void add_src(chunker *c, uint32_t a, uint32_t b)
{
    if (b <= a)
        return;
    piece p = {(uint32_t)c->text.len, b - a, a, b, false};
    lp_buf_append(&c->text, c->src.ptr + a, b - a);
    lp_vec_push(&c->pieces, p);
}

static void add_marker(chunker *c, uint32_t a, uint32_t b)
{
    bool braces = b - a >= 2 && c->src.ptr[a] == '{' && c->src.ptr[b - 1] == '}';
    const char *m = braces ? "{ \xE2\x80\xA6 }" : "\xE2\x80\xA6";
    size_t ml = strlen(m);
    piece p = {(uint32_t)c->text.len, (uint32_t)ml, a, b, true};
    lp_buf_append(&c->text, m, ml);
    lp_vec_push(&c->pieces, p);
}

/* Piece holding text offset t (t < text.len). `hint` makes forward lookups O(1); a lookup
 * behind the hint (window overlap) binary-searches, so the cost stays logarithmic. */
static const piece *piece_at(const chunker *c, uint32_t t, size_t *hint)
{
    size_t i = *hint < c->pieces.len ? *hint : 0;
    if (c->pieces.items[i].toff > t) {
        size_t lo = 0, hi = i;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (c->pieces.items[mid].toff <= t)
                lo = mid + 1;
            else
                hi = mid;
        }
        i = lo ? lo - 1 : 0;
    }
    while (i + 1 < c->pieces.len && c->pieces.items[i + 1].toff <= t)
        i++;
    *hint = i;
    return &c->pieces.items[i];
}

static uint32_t orig_start(const chunker *c, uint32_t t, size_t *hint)
{
    const piece *p = piece_at(c, t, hint);
    return p->marker ? p->ostart : p->ostart + (t - p->toff);
}

static uint32_t orig_end(const chunker *c, uint32_t t, size_t *hint)
{
    const piece *p = piece_at(c, t - 1, hint);
    return p->marker ? p->oend : p->ostart + (t - p->toff);
}

static bool has_content(const char *p, size_t n, bool need_alnum)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)p[i];
        if (need_alnum ? (isalnum_ascii(ch) || ch >= 0x80)
                       : !(ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f'))
            return true;
    }
    return false;
}

/* Cut point for a line longer than the byte bound: a space or punctuation in the last
 * quarter, else the bound moved back to a UTF-8 boundary. The fallback is lp_utf8_cut's
 * rule on well-formed text, written out here on purpose: stored chunks, and the deletes of
 * their contentless FTS rows (which chunk the stored content again), depend on these exact
 * bytes for every text, so this cut must not change without a chunker version bump. */
static uint32_t cut_point(const char *t, uint32_t pos, uint32_t limit)
{
    uint32_t lo = pos + (limit - pos) * 3 / 4;
    for (uint32_t i = limit; i > lo; i--) {
        char ch = t[i - 1];
        if (ch == ' ' || ch == ';' || ch == ',' || ch == '}' || ch == ')' || ch == '\t')
            return i;
    }
    uint32_t i = limit;
    while (i > pos + 1 && ((unsigned char)t[i] & 0xC0) == 0x80)
        i--;
    return i;
}

static void emit(chunker *c, int32_t owner, lp_chunk_kind kind, uint32_t a, uint32_t b,
                 size_t *hint)
{
    if (!has_content(c->text.ptr + a, b - a, false))
        return;
    lp_chunk ch;
    ch.owner = owner;
    ch.kind = kind;
    uint32_t os = orig_start(c, a, hint), oe = orig_end(c, b, hint);
    if (oe < os)
        oe = os;
    ch.span = lp_lx_make_span(c->lines, os, oe);
    ch.text = lp_arena_strndup(c->arena, c->text.ptr + a, b - a);
    ch.text_len = b - a;
    lp_vec_push(&c->out, ch);
}

/* Cut the assembled text into bounded windows. */
static void windows(chunker *c, int32_t owner, lp_chunk_kind kind)
{
    const char *t = c->text.ptr;
    uint32_t len = (uint32_t)c->text.len;
    uint32_t max_lines = c->o->max_lines, max_bytes = c->o->max_bytes;
    uint32_t overlap = c->o->overlap_lines;
    size_t hint = 0;
    uint32_t pos = 0;
    while (pos < len) {
        uint32_t end = pos, nlines = 0;
        bool cut = false;
        while (end < len && nlines < max_lines) {
            const char *nl = memchr(t + end, '\n', len - end);
            uint32_t le = nl ? (uint32_t)(nl - t) + 1 : len;
            if (le - pos > max_bytes) {
                if (nlines == 0) {
                    end = cut_point(t, pos, pos + max_bytes);
                    cut = true;
                }
                break;
            }
            end = le;
            nlines++;
        }
        emit(c, owner, kind, pos, end, &hint);
        if (end >= len)
            break;
        uint32_t next = end;
        if (!cut && nlines > overlap) {
            uint32_t q = end;
            for (uint32_t k = 0; k < overlap && q > pos; k++) {
                q--;
                while (q > pos && t[q - 1] != '\n')
                    q--;
            }
            if (q > pos)
                next = q;
        }
        pos = next;
    }
}

static void reset_text(chunker *c)
{
    lp_buf_reset(&c->text);
    c->pieces.len = 0;
}

/* Snap a region start back to the start of its line when only blanks precede it. */
static uint32_t snap_line_start(lp_str src, uint32_t pos)
{
    uint32_t p = pos;
    while (p > 0 && (src.ptr[p - 1] == ' ' || src.ptr[p - 1] == '\t'))
        p--;
    return p == 0 || src.ptr[p - 1] == '\n' ? p : pos;
}

/* Module text in [a, b): trimmed of blank lines; kept only when it holds a letter or
 * digit (a lone "}" or "})();" closing a non-symbol block is not worth a chunk). */
static void module_gap(chunker *c, uint32_t a, uint32_t b, lp_chunk_kind kind)
{
    while (a < b && (c->src.ptr[a] == ' ' || c->src.ptr[a] == '\t' || c->src.ptr[a] == '\n' ||
                     c->src.ptr[a] == '\r'))
        a++;
    a = snap_line_start(c->src, a);
    while (b > a && (c->src.ptr[b - 1] == ' ' || c->src.ptr[b - 1] == '\t' ||
                     c->src.ptr[b - 1] == '\n' || c->src.ptr[b - 1] == '\r'))
        b--;
    if (b <= a || !has_content(c->src.ptr + a, b - a, true))
        return;
    reset_text(c);
    add_src(c, a, b);
    windows(c, -1, kind);
}

typedef struct sort_key {
    uint32_t start, idx;
} sort_key;

static int cmp_key(const void *a, const void *b)
{
    const sort_key *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

void lp_lx_chunk(lp_str content, const lx_lines *lines, const lx_owner *owners, size_t n,
              lp_chunk_kind module_kind, const lx_chunk_opts *o, lp_arena *arena,
              lp_chunk **chunks, size_t *nchunks)
{
    chunker c;
    memset(&c, 0, sizeof(c));
    c.src = content;
    c.lines = lines;
    c.o = o;
    c.arena = arena;
    lp_buf_init(&c.text, 0);

    /* Effective container: the nearest enclosing owner that owns chunks. Children lists
     * as first/next links, in source order. */
    int32_t *eff = lp_xmalloc((n ? n : 1) * sizeof(int32_t));
    int32_t *first = lp_xmalloc((n ? n : 1) * sizeof(int32_t));
    int32_t *last = lp_xmalloc((n ? n : 1) * sizeof(int32_t));
    int32_t *next = lp_xmalloc((n ? n : 1) * sizeof(int32_t));
    for (size_t i = 0; i < n; i++) {
        first[i] = last[i] = next[i] = -1;
        int32_t e = owners[i].container;
        while (e >= 0 && !owners[e].owns_chunks)
            e = owners[e].container;
        eff[i] = e;
        if (!owners[i].owns_chunks)
            continue;
        if (e >= 0) {
            if (last[e] >= 0)
                next[last[e]] = (int32_t)i;
            else
                first[e] = (int32_t)i;
            last[e] = (int32_t)i;
        }
    }

    /* A top-level owner's text runs to the end of its last line when nothing else starts
     * there (a trailing comment after `const X = 1;` is the constant's, not module text). */
    uint32_t *end = lp_xmalloc((n ? n : 1) * sizeof(uint32_t));
    uint32_t next_start = (uint32_t)content.len;
    for (size_t i = n; i-- > 0;) {
        end[i] = owners[i].end;
        if (!owners[i].owns_chunks || eff[i] >= 0)
            continue;
        /* the end of end[i]'s line from the line table: a scan for the newline would cost
         * the rest of the line per owner, quadratic on a one-line (minified) file */
        uint32_t ln = lp_lx_line_of(lines, end[i]);
        uint32_t eol = ln < lines->n ? lines->starts[ln] - 1 : (uint32_t)content.len;
        while (eol > end[i] && (content.ptr[eol - 1] == ' ' || content.ptr[eol - 1] == '\t' ||
                                content.ptr[eol - 1] == '\r'))
            eol--;
        if (eol > end[i] && eol <= next_start)
            end[i] = eol;
        next_start = snap_line_start(content, owners[i].region_start);
    }

    uint32_t module_cur = 0;
    for (size_t i = 0; i < n; i++) {
        const lx_owner *w = &owners[i];
        if (!w->owns_chunks)
            continue;
        uint32_t rs = snap_line_start(content, w->region_start);
        if (eff[i] < 0) {
            if (rs > module_cur)
                module_gap(&c, module_cur, rs, module_kind);
            if (end[i] > module_cur)
                module_cur = end[i];
        }
        reset_text(&c);
        uint32_t cur = rs;
        for (int32_t k = first[i]; k >= 0; k = next[k]) {
            const lx_owner *ch = &owners[k];
            if (ch->has_doc_cut && ch->doc_cut_start >= cur) {
                uint32_t ds = snap_line_start(content, ch->doc_cut_start);
                uint32_t de = snap_line_start(content, ch->doc_cut_end);
                if (ds < cur)
                    ds = cur;
                if (de > ds) {
                    add_src(&c, cur, ds);
                    cur = de;
                }
            }
            if (ch->has_body && ch->body_start >= cur && ch->body_end <= w->end) {
                add_src(&c, cur, ch->body_start);
                add_marker(&c, ch->body_start, ch->body_end);
                cur = ch->body_end;
            }
        }
        add_src(&c, cur, end[i]);
        if (c.text.len)
            windows(&c, (int32_t)i, w->kind);
    }
    free(end);
    if (module_cur < content.len)
        module_gap(&c, module_cur, (uint32_t)content.len, module_kind);

    /* Chunks are produced owner by owner; put them in source order (stable). */
    sort_key *keys = lp_xmalloc((c.out.len ? c.out.len : 1) * sizeof(sort_key));
    for (size_t i = 0; i < c.out.len; i++)
        keys[i] = (sort_key){c.out.items[i].span.start_byte, (uint32_t)i};
    qsort(keys, c.out.len, sizeof(sort_key), cmp_key);
    lp_chunk *arr = lp_arena_alloc(arena, (c.out.len ? c.out.len : 1) * sizeof(lp_chunk));
    for (size_t i = 0; i < c.out.len; i++)
        arr[i] = c.out.items[keys[i].idx];
    free(keys);
    *chunks = arr;
    *nchunks = c.out.len;
    free(eff);
    free(first);
    free(last);
    free(next);
    lp_vec_free(&c.pieces);
    lp_vec_free(&c.out);
    lp_buf_release(&c.text);
}

void lp_lx_chunk_text(lp_str content, const lx_chunk_opts *o, lp_arena *arena, lp_chunk **chunks,
                   size_t *nchunks)
{
    chunker c;
    memset(&c, 0, sizeof(c));
    lx_lines lines;
    lp_lx_lines_build(content, arena, &lines);
    c.src = content;
    c.lines = &lines;
    c.o = o;
    c.arena = arena;
    lp_buf_init(&c.text, 0);
    const char *s = content.ptr;
    uint32_t len = (uint32_t)content.len;
    uint32_t pack_start = 0, pack_end = 0;
    bool packing = false;
    uint32_t pos = 0;
    while (pos < len) {
        /* next paragraph: a run of non-blank lines */
        uint32_t ls = pos;
        const char *nl = memchr(s + ls, '\n', len - ls);
        uint32_t le = nl ? (uint32_t)(nl - s) + 1 : len;
        if (!has_content(s + ls, le - ls, false)) {
            pos = le;
            continue;
        }
        uint32_t ps = ls, pe = le;
        while (pe < len) {
            nl = memchr(s + pe, '\n', len - pe);
            uint32_t e2 = nl ? (uint32_t)(nl - s) + 1 : len;
            if (!has_content(s + pe, e2 - pe, false))
                break;
            pe = e2;
        }
        pos = pe;
        uint32_t from = packing ? pack_start : ps;
        uint32_t nlines = lp_lx_line_of(&lines, pe - 1) - lp_lx_line_of(&lines, from) + 1;
        if (packing && nlines <= o->max_lines && pe - from <= o->max_bytes) {
            pack_end = pe;
            continue;
        }
        if (packing) {
            reset_text(&c);
            add_src(&c, pack_start, pack_end);
            windows(&c, -1, LP_CHUNK_TEXT);
            packing = false;
        }
        uint32_t plines = lp_lx_line_of(&lines, pe - 1) - lp_lx_line_of(&lines, ps) + 1;
        if (plines <= o->max_lines && pe - ps <= o->max_bytes) {
            pack_start = ps;
            pack_end = pe;
            packing = true;
        } else {
            reset_text(&c);
            add_src(&c, ps, pe);
            windows(&c, -1, LP_CHUNK_TEXT);
        }
    }
    if (packing) {
        reset_text(&c);
        add_src(&c, pack_start, pack_end);
        windows(&c, -1, LP_CHUNK_TEXT);
    }
    lp_chunk *arr = lp_arena_alloc(arena, (c.out.len ? c.out.len : 1) * sizeof(lp_chunk));
    if (c.out.len)
        memcpy(arr, c.out.items, c.out.len * sizeof(lp_chunk));
    *chunks = arr;
    *nchunks = c.out.len;
    lp_vec_free(&c.pieces);
    lp_vec_free(&c.out);
    lp_buf_release(&c.text);
}
