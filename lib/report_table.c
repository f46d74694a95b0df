/*
** report_table.c: the pieces of the report's text: names of processes,
** lanes and frames, sizes and percentages, aligned tables and bars.
*/
#include "report_impl.h"
#include "tr_text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- names of things ---- */

void tr_rp_process_label(tr_buf *b, const tr_trace *t, const tr_process *p)
{
    if (p->rank >= 0)
        tr_buf_addf(b, "rank %d", p->rank);
    else if (p->pid >= 0)
        tr_buf_addf(b, "pid %lld", (long long)p->pid);
    else
        tr_buf_adds(b, *tr_rp_str(t, p->name) ? tr_rp_str(t, p->name) : "process");
}

/* A lane's label: the track name, prefixed by its process when the trace has several. */
void tr_rp_track_label(tr_buf *b, const tr_trace *t, uint32_t track)
{
    const tr_track *tk = tr_track_get(t, track);
    if (tr_process_count(t) > 1) {
        tr_rp_process_label(b, t, tr_process_get(t, tk->process));
        tr_buf_adds(b, " ");
    }
    if (*tr_rp_str(t, tk->name))
        tr_buf_adds(b, tr_rp_str(t, tk->name));
    else if (tk->tid >= 0)
        tr_buf_addf(b, "%s %lld", tr_track_kind_name(tk->kind), (long long)tk->tid);
    else
        tr_buf_adds(b, tr_track_kind_name(tk->kind));
}

/* "function (file:line)" of a frame, as py-spy prints it. */
void tr_rp_frame_label(tr_buf *b, const tr_trace *t, uint32_t frame)
{
    const tr_frame *f = tr_frame_get(t, frame);
    if (!f) return;
    tr_buf_adds(b, tr_rp_str(t, f->function));
    if (*tr_rp_str(t, f->file)) {
        tr_buf_addf(b, " (%s", tr_rp_str(t, f->file));
        if (f->line > 0) tr_buf_addf(b, ":%d", f->line);
        tr_buf_adds(b, ")");
    }
}

/* ---- units ---- */

void tr_rp_size(tr_buf *b, int64_t bytes)
{
    tr_buf_add_size(b, bytes);
}

void tr_rp_rate(tr_buf *b, double bytes_per_s)
{
    tr_rp_size(b, (int64_t)bytes_per_s);
    tr_buf_adds(b, "/s");
}

void tr_rp_pct(tr_buf *b, double part, double whole)
{
    tr_buf_addf(b, "%.1f%%", whole > 0 ? 100.0 * part / whole : 0.0);
}

void tr_rp_span(tr_buf *b, int have, int64_t first, int64_t last)
{
    tr_buf_adds(b, "span: ");
    if (!have) {
        tr_buf_adds(b, "empty\n");
        return;
    }
    tr_buf_add_duration(b, first);
    tr_buf_adds(b, " .. ");
    tr_buf_add_duration(b, last);
    tr_buf_adds(b, " (");
    tr_buf_add_duration(b, last - first);
    tr_buf_adds(b, ")\n");
}

/* ---- tables ---- */

/* Display width of UTF-8 text: one column per code point (names and bars are narrow). */
static size_t text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++) w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

void tr_rp_table_init(tr_rp_table *tb, const char *align, int flex)
{
    size_t n = strlen(align);
    tb->ncol = n < TR_RP_MAX_COLS ? n : TR_RP_MAX_COLS;
    tb->align = align;
    tb->flex = flex;
    tr_buf_init(&tb->cells, 0);
    tr_vec_init(&tb->offs, sizeof(size_t));
}

void tr_rp_table_fini(tr_rp_table *tb)
{
    tr_buf_fini(&tb->cells);
    tr_vec_fini(&tb->offs);
}

/* Starts a cell whose text the caller appends to TB->cells, then ends with a NUL. */
static int cell_begin(tr_rp_table *tb)
{
    size_t *off = tr_vec_push(&tb->offs);
    if (!off) {
        tb->cells.nomem = 1; /* a cell missing shifts the row: the table is lost */
        return 0;
    }
    *off = tb->cells.len;
    return 1;
}

void tr_rp_cell(tr_rp_table *tb, const char *fmt, ...)
{
    if (!cell_begin(tb)) return;
    size_t start = tb->cells.len;
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof small) {
        tr_buf_add(&tb->cells, small, (size_t)n);
    } else if (n >= 0) {
        char *big = tr_malloc((size_t)n + 1);
        if (big) {
            va_start(ap, fmt);
            vsnprintf(big, (size_t)n + 1, fmt, ap);
            va_end(ap);
            tr_buf_add(&tb->cells, big, (size_t)n);
            tr_free(big);
        } else {
            tb->cells.nomem = 1;
        }
    }
    /* A name's control characters shown escaped, line breaks too: a cell is one line. */
    tr_buf_text_from(&tb->cells, start, TR_TEXT_SHOW);
    tr_buf_addc(&tb->cells, '\0');
}

void tr_rp_cell_duration(tr_rp_table *tb, int64_t ns)
{
    if (!cell_begin(tb)) return;
    tr_buf_add_duration(&tb->cells, ns);
    tr_buf_addc(&tb->cells, '\0');
}

void tr_rp_cell_size(tr_rp_table *tb, int64_t bytes)
{
    if (!cell_begin(tb)) return;
    tr_rp_size(&tb->cells, bytes);
    tr_buf_addc(&tb->cells, '\0');
}

void tr_rp_cells(tr_rp_table *tb, const char *const *v, size_t n)
{
    for (size_t i = 0; i < n; i++) tr_rp_cell(tb, "%s", v[i]);
}

const char *tr_rp_table_at(const tr_rp_table *tb, size_t row, size_t col)
{
    size_t i = row * tb->ncol + col;
    return i < tb->offs.len ? tb->cells.p + TR_VEC_AT(&tb->offs, size_t, i) : "";
}

size_t tr_rp_table_rows(const tr_rp_table *tb)
{
    return tb->offs.len / tb->ncol;
}

/* The widths of the columns (the first row is the header). */
void tr_rp_table_widths(const tr_rp_table *tb, size_t *w)
{
    for (size_t c = 0; c < tb->ncol; c++) {
        w[c] = 0;
        for (size_t r = 0; r < tr_rp_table_rows(tb); r++) {
            size_t x = text_width(tr_rp_table_at(tb, r, c));
            if (x > w[c]) w[c] = x;
        }
    }
}

/* Appends S cut to at most MAX columns, with an ellipsis when cut. */
static void add_cut(tr_buf *b, const char *s, size_t max, int ascii)
{
    if (text_width(s) <= max) {
        tr_buf_adds(b, s);
        return;
    }
    size_t keep = max > 0 ? max - 1 : 0, w = 0;
    const char *p = s;
    while (*p && w < keep) {
        p++;
        while (((unsigned char)*p & 0xc0) == 0x80) p++;
        w++;
    }
    tr_buf_add(b, s, (size_t)(p - s));
    if (max > 0) tr_buf_adds(b, ascii ? "~" : "…");
}

static void table_text(const tr_rp_table *tb, tr_buf *b, int width, int ascii)
{
    size_t w[TR_RP_MAX_COLS];
    tr_rp_table_widths(tb, w);
    size_t total = 0;
    for (size_t c = 0; c < tb->ncol; c++) total += w[c] + (c ? 2 : 0);
    /* Cut the flexible column (names, details) so that lines fit. */
    if (tb->flex >= 0 && total > (size_t)width) {
        size_t over = total - (size_t)width, f = (size_t)tb->flex;
        w[f] = w[f] > over + 8 ? w[f] - over : (w[f] < 8 ? w[f] : 8);
    }
    for (size_t r = 0; r < tr_rp_table_rows(tb); r++) {
        tr_buf line;
        tr_buf_init(&line, 0);
        for (size_t c = 0; c < tb->ncol; c++) {
            const char *cell = tr_rp_table_at(tb, r, c);
            size_t cw = text_width(cell) < w[c] ? text_width(cell) : w[c];
            if (c) tr_buf_adds(&line, "  ");
            if (tb->align[c] == 'r')
                for (size_t k = cw; k < w[c]; k++) tr_buf_addc(&line, ' ');
            add_cut(&line, cell, w[c], ascii);
            if (tb->align[c] != 'r' && c + 1 < tb->ncol)
                for (size_t k = cw; k < w[c]; k++) tr_buf_addc(&line, ' ');
        }
        while (line.len && line.p[line.len - 1] == ' ') line.p[--line.len] = '\0';
        tr_buf_add(b, line.p, line.len);
        tr_buf_addc(b, '\n');
        tr_buf_fini_into(&line, b);
        if (r == 0) {
            size_t sum = 0;
            for (size_t c = 0; c < tb->ncol; c++) sum += w[c] + (c ? 2 : 0);
            for (size_t k = 0; k < sum; k++) tr_buf_adds(b, ascii ? "-" : "─");
            tr_buf_addc(b, '\n');
        }
    }
}

/* A bar of WIDTH columns filled to FRAC (0..1), in eighths of a block. */
void tr_rp_bar(tr_buf *b, double frac, int width, int ascii)
{
    if (frac < 0) frac = 0;
    if (frac > 1) frac = 1;
    static const char *const eighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    int cells8 = (int)(frac * width * 8 + 0.5), full = cells8 / 8, part = cells8 % 8;
    if (ascii) {
        full = (int)(frac * width + 0.5);
        for (int i = 0; i < width; i++) tr_buf_addc(b, i < full ? '#' : '.');
        return;
    }
    for (int i = 0; i < full; i++) tr_buf_adds(b, "█");
    int used = full;
    if (part && used < width) tr_buf_adds(b, eighths[part]), used++;
    for (; used < width; used++) tr_buf_adds(b, "░");
}

void tr_rp_table_print(const tr_report *r, const tr_rp_table *tb, tr_buf *b)
{
    b->nomem |= tb->cells.nomem;
    if (r->html)
        tr_rp_html_table(r, tb, b);
    else
        table_text(tb, b, r->o.width, r->o.ascii);
}

void tr_rp_heading(const tr_report *r, tr_buf *b, const char *title)
{
    if (r->html) {
        tr_rp_html_heading(r, b, title);
        return;
    }
    if (b->len) tr_buf_addc(b, '\n');
    tr_buf_addf(b, "%s %s\n", r->o.ascii ? "==" : "──", title);
}
