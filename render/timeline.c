/*
** timeline.c: drawing a timeline as its layout says (timeline_layout.c).
**
** A slice a pixel wide or more is a rectangle; a narrower one adds its time
** to its row's busy bar for that pixel column (level of detail), so a lane of
** ten million slices costs ten million additions and a few thousand
** rectangles.  Markers of one shape closer than a pixel on a lane are drawn
** once (tl_markers).  Text comes last, where the layout placed it, so nothing
** drawn after covers it.
*/
#include "timeline_impl.h"

#include "tr_text.h"

#include <math.h>
#include <stdlib.h>

#define BUSY_MIN_FRAC   0.3 /* a busy bar is at least this tall, so a lone instant-long op shows */
#define MAX_FLOWS_DRAWN 200000 /* distinct arrows */

typedef struct draw_state {
    tr_timeline_layout *l;
    tr_canvas *c;
    tr_render_stats *st;
    int cols;
} draw_state;

/* The height of a busy bar in eighths of its row. */
static int busy_eighths(const tl_busy_row *br, int c, double full)
{
    return (int)lround(fmax(fmin(1, br->busy[c] / full), BUSY_MIN_FRAC) * 8);
}

static void draw_busy(draw_state *d)
{
    const tr_timeline_layout *l = d->l;
    for (size_t li = 0; li < l->n_lanes; li++) {
        const tl_lane *ln = &l->lanes[li];
        double full = ln->track == TR_NONE ? (double)l->summarised : 1;
        for (int r = 0; r < ln->rows; r++) {
            const tl_busy_row *br = &l->px_state.rows[ln->first_row + (size_t)r];
            if (!br->busy) continue;
            double y1 = ln->y + ln->strip + (r + 1) * ln->row_h;
            /* Neighbouring columns of one colour and height become one rectangle. */
            int c = 0;
            while (c < d->cols) {
                if (br->busy[c] <= 0) {
                    c++;
                    continue;
                }
                int q = busy_eighths(br, c, full);
                int end = c + 1;
                while (end < d->cols && br->busy[end] > 0 && br->rgb[end] == br->rgb[c] &&
                       busy_eighths(br, end, full) == q)
                    end++;
                double h = ln->row_h * q / 8.0;
                tr_canvas_rect(d->c, l->px + c, y1 - h, end - c, h, br->rgb[c]);
                c = end;
            }
        }
    }
}

static uint32_t colour_of(const tl_names *m, tr_str name)
{
    const tl_name *s = tl_names_find(m, name);
    return s ? s->rgb : 0x888888;
}

static void draw_slices(draw_state *d)
{
    tr_timeline_layout *l = d->l;
    cairo_save(d->c->cr);
    cairo_rectangle(d->c->cr, l->px, l->py0, l->pw, l->py1 - l->py0);
    cairo_clip(d->c->cr);
    for (size_t i = 0; i < l->px_state.rects.len; i++) {
        const tl_rect *rc = &TR_VEC_AT(&l->px_state.rects, tl_rect, i);
        const tl_lane *ln = &l->lanes[rc->lane];
        double y = ln->y + ln->strip + rc->row * ln->row_h;
        double cx0 = fmax(rc->x0, l->px - 1), cx1 = fmin(rc->x1, l->px + l->pw + 1);
        /* A one-pixel gap keeps neighbours apart; thin rows get no gap. */
        double gap = cx1 - cx0 >= 4 ? 1 : 0, vgap = ln->row_h >= 6 ? 1 : 0;
        /* One stripe per key, as wide as the others: GT logs no time per command of a batch. */
        double w = (cx1 - cx0 - gap) / rc->nk;
        for (int k = 0; k < rc->nk; k++)
            tr_canvas_rect(d->c, cx0 + k * w, y + vgap, w, ln->row_h - 2 * vgap,
                           colour_of(&l->slice_names, rc->keys[k]));
    }
    draw_busy(d);
    cairo_restore(d->c->cr);
}

static void draw_counters(draw_state *d)
{
    tr_timeline_layout *l = d->l;
    const tr_trace *t = l->t;
    /* The peak value per column of each counter lane (the second pass's), as one step path. */
    size_t cols = (size_t)d->cols;
    for (size_t li = 0; li < l->n_lanes; li++) {
        const tl_lane *ln = &l->lanes[li];
        if (!ln->has_counter || ln->track == TR_NONE) continue;
        const double *val = l->px_state.counter[li];
        double before = l->px_state.before[li];
        size_t len;
        const char *name = tr_str_get(t, tr_track_get(t, ln->track)->name, &len);
        uint32_t rgb = tr_render_color(name, len);
        double top = ln->y + ln->strip + ln->row_h * 0.1, bottom = ln->y + ln->h;
        double span = ln->cmax - ln->cmin;
        cairo_t *cr = d->c->cr;
        double level = before, y = bottom;
        int open = 0;
        for (size_t c = 0; c < cols; c++) {
            if (val && !isnan(val[c])) level = val[c];
            if (isnan(level)) continue;
            double ny = bottom - (level - ln->cmin) / span * (bottom - top);
            if (!open) {
                cairo_new_path(cr);
                cairo_move_to(cr, l->px + c, bottom);
                cairo_line_to(cr, l->px + c, ny);
                open = 1;
            } else if (ny != y) {
                cairo_line_to(cr, l->px + c, y);
                cairo_line_to(cr, l->px + c, ny);
            }
            y = ny;
        }
        if (open) {
            cairo_line_to(cr, l->px + l->pw, y);
            cairo_line_to(cr, l->px + l->pw, bottom);
            cairo_close_path(cr);
            tr_canvas_rgb(d->c, rgb, 0.55);
            cairo_fill_preserve(cr);
            tr_canvas_rgb(d->c, rgb, 1);
            cairo_set_line_width(cr, 1);
            cairo_stroke(cr);
        }
    }
}

static int draw_marker(void *ctx, const tl_marker *m)
{
    draw_state *d = ctx;
    tr_canvas_marker(d->c, m->shape, m->x, m->y, m->r, m->rgb);
    d->st->markers_drawn++;
    return TR_OK;
}

static int draw_instants(draw_state *d)
{
    tr_timeline_layout *l = d->l;
    /* A global instant is a line across the plot. */
    for (size_t i = 0; i < l->px_state.globals.len; i++) {
        double x = TR_VEC_AT(&l->px_state.globals, double, i);
        cairo_new_path(d->c->cr);
        tr_canvas_rgb(d->c, TR_RENDER_INK, 0.35);
        cairo_move_to(d->c->cr, x, l->py0);
        cairo_line_to(d->c->cr, x, l->py1);
        cairo_set_line_width(d->c->cr, 0.75);
        cairo_stroke(d->c->cr);
    }
    return tl_markers(l, draw_marker, d);
}

static void draw_samples(draw_state *d)
{
    tr_timeline_layout *l = d->l;
    if (!l->px_state.any_samples) return;
    cairo_new_path(d->c->cr);
    tr_canvas_rgb(d->c, TR_RENDER_FAINT_INK, 0.8);
    for (size_t i = 0; i < l->px_state.samples.len; i++) {
        const tl_sample_mark *m = &TR_VEC_AT(&l->px_state.samples, tl_sample_mark, i);
        const tl_lane *ln = &l->lanes[m->lane];
        cairo_rectangle(d->c->cr, m->x, ln->y, 1, fmax(1, fmin(3, ln->h * 0.15)));
    }
    cairo_fill(d->c->cr);
}

static int draw_arrow(void *ctx, const tl_arrow *a)
{
    draw_state *d = ctx;
    if (d->st->flows_drawn >= MAX_FLOWS_DRAWN) return TR_OK;
    cairo_t *cr = d->c->cr;
    double head = fmax(3, 0.03 * d->l->o.dpi);
    double mid = (a->y0 + a->y1) / 2, c1 = a->x1 - (a->x1 - a->x0) * 0.3;
    cairo_move_to(cr, a->x0, a->y0);
    cairo_curve_to(cr, a->x0 + (a->x1 - a->x0) * 0.3, mid, c1, mid, a->x1, a->y1);
    cairo_stroke(cr);
    double ang = a->x1 == c1 && a->y1 == mid ? 0 : atan2(a->y1 - mid, a->x1 - c1);
    cairo_move_to(cr, a->x1, a->y1);
    cairo_line_to(cr, a->x1 - head * cos(ang - 0.4), a->y1 - head * sin(ang - 0.4));
    cairo_line_to(cr, a->x1 - head * cos(ang + 0.4), a->y1 - head * sin(ang + 0.4));
    cairo_close_path(cr);
    cairo_fill(cr);
    d->st->flows_drawn++;
    return TR_OK;
}

static int draw_flows(draw_state *d)
{
    tr_timeline_layout *l = d->l;
    if (!l->px_state.n_flows || l->flows_hidden) return TR_OK;
    cairo_t *cr = d->c->cr;
    cairo_save(cr);
    cairo_rectangle(cr, l->px, l->py0, l->pw, l->py1 - l->py0);
    cairo_clip(cr);
    cairo_new_path(cr);
    cairo_set_line_width(cr, fmax(0.6, 0.004 * l->o.dpi));
    tr_canvas_rgb(d->c, TR_RENDER_INK, 0.55);
    int rc = tl_flows(l, draw_arrow, d);
    cairo_restore(cr);
    return rc;
}

/* Lane backgrounds, process header bands and the lines between processes. */
static void draw_lanes(draw_state *d)
{
    tr_timeline_layout *l = d->l;
    double margin = 0.12 * l->o.dpi;
    for (size_t i = 0; i < l->n_lanes; i++) {
        const tl_lane *ln = &l->lanes[i];
        if (ln->header)
            tr_canvas_rect(d->c, margin, ln->y - l->header_h, l->px + l->pw - margin, l->header_h,
                           0xe3e8ef);
        tr_canvas_rect(d->c, l->px, ln->y, l->pw, ln->h, ln->bg);
        /* A line between processes when there are no header bands. */
        if (!l->header_h && i > 0 && ln->process != l->lanes[i - 1].process)
            tr_canvas_rect(d->c, margin, ln->y, l->px + l->pw - margin, fmax(1, 0.005 * l->o.dpi),
                           TR_RENDER_GRID);
    }
}

/* The ticks and tick labels of segment G of the axis at Y; returns its base (see below). */
static int64_t draw_ticks(draw_state *d, const tl_segment *g, double y, tr_buf *b, int *rc)
{
    tr_timeline_layout *l = d->l;
    double dpi = l->o.dpi;
    int max_ticks = (int)((g->x1 - g->x0) / (0.9 * dpi));
    int64_t step = tr_render_tick_step(g->t1 - g->t0, max_ticks < 2 ? 2 : max_ticks);
    int64_t mag = llabs(g->t1) > llabs(g->t0) ? llabs(g->t1) : llabs(g->t0);
    int64_t first = g->t0 / step * step;
    if (first < g->t0) first += step;
    /*
    ** Far from the origin ("4203669.603 s"), ticks count from the first one
    ** instead; a later segment of a broken axis names its first tick in full.
    */
    int64_t base = 0;
    if (mag / (g->t1 - g->t0) > 1000) {
        base = first;
        mag = g->t1 - base;
    }
    for (int64_t tk = first; tk <= g->t1 && *rc >= 0; tk += step) {
        double x = tr_timeline_x(l, tk);
        tr_canvas_rect(d->c, floor(x), y, 1, 0.04 * dpi, TR_RENDER_INK);
        tr_canvas_rect(d->c, floor(x), l->py0 - 0.03 * dpi, 1, 0.03 * dpi, TR_RENDER_GRID);
        tr_buf_reset(b);
        if (base && tk == base && g != l->segs)
            *rc = tr_render_format_tick(b, tk, step, llabs(tk));
        else if (base && tk > base)
            *rc = tr_buf_addc(b, '+');
        if (*rc >= 0 && !(base && tk == base && g != l->segs))
            *rc = tr_render_format_tick(b, tk - base, step, mag);
        if (*rc >= 0)
            tr_canvas_text(d->c, b->p, b->len, x, y + 0.05 * dpi, l->text_pt, 0, 0, TR_ALIGN_CENTER,
                           TR_RENDER_INK);
        if (tk > INT64_MAX - step) break;
    }
    return g == l->segs ? base : 0;
}

/* Between two segments of a broken axis: blank lanes, and a "//" across the axis line. */
static void draw_break(draw_state *d, const tl_segment *g, const tl_segment *next, double y)
{
    tr_timeline_layout *l = d->l;
    cairo_t *cr = d->c->cr;
    double h = 0.05 * l->o.dpi;
    tr_canvas_rect(d->c, g->x1, l->py0, next->x0 - g->x1, y - l->py0 + fmax(1, 0.006 * l->o.dpi),
                   TR_RENDER_WHITE);
    cairo_new_path(cr);
    cairo_set_line_width(cr, fmax(1, 0.008 * l->o.dpi));
    tr_canvas_rgb(d->c, TR_RENDER_INK, 1);
    for (int k = 0; k < 2; k++) {
        double x = k ? next->x0 : g->x1;
        cairo_move_to(cr, x - h / 3, y + h);
        cairo_line_to(cr, x + h / 3, y - h);
    }
    cairo_stroke(cr);
    /* Dashed edges down the plot, so each part's ends read as ends. */
    double dash = fmax(2, 0.02 * l->o.dpi);
    cairo_set_dash(cr, &dash, 1, 0);
    cairo_set_line_width(cr, 1);
    tr_canvas_rgb(d->c, TR_RENDER_GRID, 1);
    for (int k = 0; k < 2; k++) {
        double x = (k ? floor(next->x0) : floor(g->x1)) + 0.5;
        cairo_move_to(cr, x, l->py0);
        cairo_line_to(cr, x, y);
    }
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
}

static int draw_axis(draw_state *d)
{
    tr_timeline_layout *l = d->l;
    double dpi = l->o.dpi;
    double y = l->py1;
    tr_buf b;
    tr_buf_init(&b, 0);
    int rc = 0;
    int64_t base = 0;
    for (size_t i = 0; i < l->n_segs && rc >= 0; i++) {
        const tl_segment *g = &l->segs[i];
        tr_canvas_rect(d->c, g->x0, y, g->x1 - g->x0, fmax(1, 0.006 * dpi), TR_RENDER_INK);
        if (i + 1 < l->n_segs) draw_break(d, g, &l->segs[i + 1], y);
        int64_t bs = draw_ticks(d, g, y, &b, &rc);
        if (i == 0) base = bs;
    }
    tr_buf_reset(&b);
    rc |= tr_buf_adds(&b, "time from the start");
    const tr_input_info *in = tr_input_count(l->t) == 1 ? tr_input_get(l->t, 0) : NULL;
    if (in && in->origin_wall)
        rc |= tr_buf_addf(&b, " (%s)", tr_str_get(l->t, in->origin_wall, NULL));
    if (base) {
        rc |= tr_buf_adds(&b, ", counted from ");
        rc |= tr_render_format_tick(&b, base, 1, llabs(base));
    }
    if (l->n_segs > 1) rc |= tr_buf_addf(&b, "; the axis is broken in %zu parts", l->n_segs);
    if (rc >= 0)
        tr_canvas_text(d->c, b.p, b.len, l->px + l->pw / 2,
                       y + 0.05 * dpi + l->text_pt * l->px_per_pt * 1.4, l->text_pt, 0, l->pw,
                       TR_ALIGN_CENTER, TR_RENDER_FAINT_INK);
    tr_buf_fini(&b);
    return rc < 0 ? TR_FATAL : TR_OK;
}

/* Lanes of an input placed by a guess: amber stripes down their left edge. */
static void draw_guess_marks(draw_state *d)
{
    tr_timeline_layout *l = d->l;
    cairo_t *cr = d->c->cr;
    for (size_t i = 0; i < l->n_lanes; i++) {
        const tl_lane *ln = &l->lanes[i];
        tr_render_box b;
        if (ln->track == TR_NONE || !tr_timeline_guess_mark(l, ln->track, &b)) continue;
        tr_canvas_rect(d->c, b.x0, b.y0, b.x1 - b.x0, b.y1 - b.y0, TL_GUESS_RGB);
        cairo_save(cr);
        cairo_rectangle(cr, b.x0, b.y0, b.x1 - b.x0, b.y1 - b.y0);
        cairo_clip(cr);
        cairo_new_path(cr);
        double w = b.x1 - b.x0, period = fmax(6, 2 * w);
        for (double y = b.y0 - w; y < b.y1; y += period) {
            cairo_move_to(cr, b.x0, y + w);
            cairo_line_to(cr, b.x1, y);
        }
        cairo_set_line_width(cr, fmax(1, w / 5));
        tr_canvas_rgb(d->c, TR_RENDER_INK, 0.8);
        cairo_stroke(cr);
        cairo_restore(cr);
    }
}

static int draw_titles(draw_state *d)
{
    tr_timeline_layout *l = d->l;
    const tr_trace *t = l->t;
    tr_buf b;
    tr_buf_init(&b, 0);
    int rc = 0;
    if (l->o.title) {
        rc = tr_buf_adds(&b, l->o.title);
    } else {
        size_t ni = tr_input_count(t);
        const char *path = ni ? tr_str_get(t, tr_input_get(t, 0)->path, NULL) : "";
        const char *base = strrchr(path, '/');
        rc = tr_buf_addf(&b, "Timeline of %s", base && base[1] ? base + 1 : path);
        if (ni > 1) rc |= tr_buf_addf(&b, " and %zu more", ni - 1);
    }
    if (rc >= 0)
        tr_canvas_text(d->c, b.p, b.len, l->W / 2.0, l->title_y, l->title_pt, 1, l->W * 0.9,
                       TR_ALIGN_CENTER, TR_RENDER_INK);
    tr_buf_reset(&b);
    rc |= tr_buf_addf(&b, "%zu slices, %zu markers", l->n_slices, l->n_instants);
    if (l->n_counters) rc |= tr_buf_addf(&b, ", %zu counter values", l->n_counters);
    if (l->n_samples) rc |= tr_buf_addf(&b, ", %zu samples", l->n_samples);
    rc |= tr_buf_addf(&b, " on %zu lanes, ", l->n_lanes - (l->summarised ? 1 : 0) + l->summarised);
    rc |= tr_buf_add_duration(&b, l->t1 - l->t0);
    rc |= tr_buf_adds(&b, " shown");
    if (l->flows_hidden)
        rc |= tr_buf_addf(&b, "; flow arrows not drawn, over one per %d px (narrow the window)",
                          TL_FLOW_MIN_PX);
    if (l->summarised)
        rc |= tr_buf_addf(&b,
                          "; the last %zu lanes are over the cap and summarised in one "
                          "(use --tracks or --ranks)",
                          l->summarised);
    if (rc >= 0)
        tr_canvas_text(d->c, b.p, b.len, l->W / 2.0, l->subtitle_y, l->text_pt, 0, l->W * 0.95,
                       TR_ALIGN_CENTER, TR_RENDER_FAINT_INK);
    if (l->warning.len)
        tr_canvas_text(d->c, l->warning.p, l->warning.len, l->W / 2.0, l->warning_y, l->text_pt, 1,
                       l->W * 0.95, TR_ALIGN_CENTER, TR_RENDER_WARN_INK);
    tr_buf_fini(&b);
    return rc < 0 ? TR_FATAL : TR_OK;
}

int tr_timeline_draw(tr_timeline_layout *l, const char *path, int format, tr_render_stats *st,
                     tr_error *e)
{
    const tl_pixels *ps = &l->px_state;
    memset(st, 0, sizeof *st);
    st->width_px = l->W;
    st->height_px = l->H;
    st->lanes = l->n_lanes;
    st->lanes_summarised = l->summarised;
    st->slices_drawn = ps->st.slices_drawn;
    st->slices_merged = ps->st.slices_merged;
    st->markers_merged = ps->st.markers_merged;
    draw_state d = {.l = l, .st = st, .cols = ps->cols};
    tr_canvas c;
    memset(&c, 0, sizeof c);
    d.c = &c;
    int rc = tr_canvas_open(&c, format, path, l->W, l->H, l->o.dpi, e);
    if (rc < 0) return rc;
    /* The drawing steps fail only when out of memory. */
    draw_lanes(&d);
    /* Arrows under the slices: they show in the gaps and strips and never hide a slice's colour. */
    if (draw_titles(&d) < 0 || draw_flows(&d) < 0) goto nomem;
    draw_slices(&d);
    draw_counters(&d);
    draw_samples(&d);
    if (draw_instants(&d) < 0 || draw_axis(&d) < 0 || tl_legend_draw(l, &c) < 0) goto nomem;
    draw_guess_marks(&d);
    tl_labels_draw(l, &c);
    /* labels and op keys come from args: one not read for want of memory is not drawn */
    if (tr_trace_reads_ok(l->t, l->reads_mark, e) != TR_OK) {
        tr_canvas_abort(&c);
        return TR_FATAL;
    }
    return tr_canvas_commit(&c, e);
nomem:
    tr_canvas_abort(&c);
    return tr_error_nomem(e);
}

int tr_timeline_render(const tr_trace *t, const tr_render_opts *o, const char *path, int format,
                       tr_render_stats *st, tr_error *e)
{
    tr_timeline_layout *l;
    int rc = tr_timeline_layout_new(t, o, &l, e);
    if (rc < 0) return rc;
    rc = tr_timeline_draw(l, path, format, st, e);
    tr_timeline_layout_free(l);
    return rc;
}
