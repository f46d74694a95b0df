/*
** diff.c: the diff of two runs (tr_analysis.h's tr_diff) as bars.
**
** One band per kind of row that has any (ops, GPU kernels, stack functions,
** I/O per file, I/O per rank), each with its largest effects first: per
** row its name (a kernel's shortened as tracestat does), a grey bar for
** the control run (A) over a bar in the name's colour for the test run (B),
** both on the band's scale, and the change.
** The legend says which bar is which.
*/
#include "render_impl.h"

#include <stdio.h>

#define DF_ROWS_PER_KIND 12
#define DF_CONTROL_RGB   0xb0b0b0

static const char *const df_titles[TR_DIFF_KIND_COUNT] = {
    "ops: total time", "GPU kernels: total time", "stack functions: samples", "I/O per file: bytes",
    "I/O per rank: I/O time"};

typedef struct df_geom {
    double px, row_h, label_w, bar_x, bar_w, font_pt;
} df_geom;

/* The rows of each kind to draw: [first, first + n). */
static size_t df_band(const tr_diff *d, int kind, size_t *first)
{
    size_t n = 0;
    *first = d->n;
    for (size_t i = 0; i < d->n; i++) {
        if (d->rows[i].kind != kind) continue;
        if (*first == d->n) *first = i;
        n++;
    }
    return n < DF_ROWS_PER_KIND ? n : DF_ROWS_PER_KIND;
}

static void df_label(tr_buf *b, const tr_diff_row *r)
{
    tr_buf_reset(b);
    if (r->kind == TR_DIFF_KERNEL)
        tr_kernel_short_name(b, r->name);
    else if (r->name)
        tr_buf_adds(b, r->name);
    else
        tr_buf_addf(b, "rank %d", r->rank);
}

static void df_change(tr_buf *b, const tr_diff_row *r)
{
    tr_buf_reset(b);
    if (r->kind == TR_DIFF_FRAME)
        tr_buf_addf(b, "%+.1f pp", 100.0 * r->effect);
    else if (!r->value[0])
        tr_buf_adds(b, "added");
    else if (!r->value[1])
        tr_buf_adds(b, "removed");
    else
        tr_buf_addf(b, "%+.1f%%",
                    100.0 * (double)(r->value[1] - r->value[0]) / (double)r->value[0]);
}

/* One band; returns the y under it. */
static double df_draw_band(tr_canvas *c, const tr_diff *d, size_t first, size_t n, double y,
                           const df_geom *g, tr_buf *b)
{
    const tr_diff_row *rows = d->rows + first;
    tr_canvas_text(c, df_titles[rows[0].kind], strlen(df_titles[rows[0].kind]), g->px, y,
                   g->font_pt * 1.1, 1, 0, TR_ALIGN_LEFT, TR_RENDER_INK);
    y += g->row_h;
    int64_t max = 1;
    for (size_t i = 0; i < n; i++)
        for (int s = 0; s < 2; s++)
            if (rows[i].value[s] > max) max = rows[i].value[s];
    for (size_t i = 0; i < n; i++) {
        const tr_diff_row *r = &rows[i];
        if (i % 2) tr_canvas_rect(c, 0, y, c->width, g->row_h, TR_RENDER_LANE_ODD);
        df_label(b, r);
        tr_canvas_text(c, b->p, b->len, g->px, y + g->row_h * 0.2, g->font_pt, 0, g->label_w,
                       TR_ALIGN_LEFT, TR_RENDER_INK);
        double h = g->row_h * 0.38;
        uint32_t rgb = r->name ? tr_render_color(r->name, strlen(r->name)) : 0x3498db;
        tr_canvas_rect(c, g->bar_x, y + g->row_h * 0.1,
                       g->bar_w * (double)r->value[0] / (double)max, h, DF_CONTROL_RGB);
        tr_canvas_rect(c, g->bar_x, y + g->row_h * 0.1 + h,
                       g->bar_w * (double)r->value[1] / (double)max, h, rgb);
        df_change(b, r);
        tr_canvas_text(c, b->p, b->len, c->width - g->px, y + g->row_h * 0.2, g->font_pt, 0, 0,
                       TR_ALIGN_RIGHT, TR_RENDER_FAINT_INK);
        y += g->row_h;
    }
    return y + g->row_h * 0.5;
}

static void df_legend(tr_canvas *c, double y, const df_geom *g)
{
    static const char a[] = "A: control run", bt[] = "B: test run (colour of the name)";
    double x = g->bar_x, s = g->row_h * 0.5;
    tr_canvas_rect(c, x, y, s, s, DF_CONTROL_RGB);
    x += s * 1.5;
    x += tr_canvas_text(c, a, sizeof a - 1, x, y - s * 0.2, g->font_pt, 0, 0, TR_ALIGN_LEFT,
                        TR_RENDER_INK) +
         s * 2;
    tr_canvas_rect(c, x, y, s, s, 0x3498db);
    x += s * 1.5;
    tr_canvas_text(c, bt, sizeof bt - 1, x, y - s * 0.2, g->font_pt, 0, 0, TR_ALIGN_LEFT,
                   TR_RENDER_INK);
}

int tr_render_diff(const tr_diff *d, const tr_render_opts *o, const char *path, int format,
                   tr_render_stats *st, tr_error *e)
{
    if (format < 0) format = tr_render_format_for_path(path);
    if (format < 0)
        return tr_errorf(e, TR_E_USAGE, NULL, "cannot tell the picture format of '%s'", path);
    size_t first[TR_DIFF_KIND_COUNT], n[TR_DIFF_KIND_COUNT], rows = 0, bands = 0;
    for (int k = 0; k < TR_DIFF_KIND_COUNT; k++) {
        n[k] = df_band(d, k, &first[k]);
        rows += n[k];
        bands += n[k] > 0;
    }
    double ppi = o->dpi, w = o->width_in * ppi;
    df_geom g = {.px = 0.15 * ppi, .row_h = 0.28 * ppi, .font_pt = 9};
    g.label_w = w * 0.32;
    g.bar_x = g.px + g.label_w + g.px;
    g.bar_w = w - g.bar_x - w * 0.1;
    double h = g.row_h * (3.0 + (double)rows + 1.5 * (double)bands) + g.px * 2;
    if (o->height_given && o->height_in * ppi > h) h = o->height_in * ppi;
    tr_canvas c;
    if (tr_canvas_open(&c, format, path, (int)w, (int)h, ppi, e) < 0) return TR_FATAL;
    const char *title = o->title ? o->title : "diff of two runs: largest changes first";
    tr_canvas_text(&c, title, strlen(title), g.px, g.px, 13, 1, w - 2 * g.px, TR_ALIGN_LEFT,
                   TR_RENDER_INK);
    double y = g.px + g.row_h * 1.2;
    if (!o->no_legend) df_legend(&c, y + g.row_h * 0.2, &g);
    y += g.row_h * 1.3;
    tr_buf b;
    tr_buf_init(&b, 0);
    for (int k = 0; k < TR_DIFF_KIND_COUNT; k++)
        if (n[k]) y = df_draw_band(&c, d, first[k], n[k], y, &g, &b);
    if (!rows)
        tr_canvas_text(&c, "the two runs do not differ", 26, g.px, y, 11, 0, 0, TR_ALIGN_LEFT,
                       TR_RENDER_FAINT_INK);
    tr_buf_fini(&b);
    if (st) {
        memset(st, 0, sizeof *st);
        st->width_px = c.width;
        st->height_px = c.height;
        st->slices_drawn = rows;
    }
    return tr_canvas_commit(&c, e);
}
