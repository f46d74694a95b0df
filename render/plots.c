/*
** plots.c: the pictures beside timelines and flame graphs.
**
**   heatmap  units (ranks or processes, else lanes) x time: I/O bytes moved
**            per cell (Darshan's heat map) when the trace has reads and
**            writes with sizes, else the busy share of the unit's lanes
**   access   per file (the most bytes first, up to four): offset against
**            time, reads and writes apart (recorder-viz's and Darshan's
**            access pattern plots), from tr_io_accesses
**   ops      per lane, its top-level slices' time by name as one stacked
**            bar, with the busy share written beside it (the view GT's
**            gt.scripts.top draws live)
**
** Each is bounded by its pixels: cells are summed into a grid, an access
** is drawn once per pixel it falls on, a bar has one part per name that is
** at least a pixel wide.  So a trace of millions of records draws in one pass
** over them, and an SVG stays small.
*/
#include "render_impl.h"

#include "tr_analysis.h"
#include "tr_text.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

/* ---- the frame every plot shares: title, plot area, time axis ---- */

typedef struct plot {
    const tr_trace *t;
    const tr_render_opts *o;
    tr_canvas c;
    double px;       /* pixels per point */
    int W, H;        /* picture */
    double x0, x1;   /* plot area, pixels */
    int64_t t0, t1;  /* the window */
    double label_pt; /* row labels */
} plot;

#define TITLE_PT 12.0
#define SMALL_PT 7.5

/* The window: the trace's span cut by --since / --until (from its first event). */
static int plot_window(const tr_trace *t, const tr_render_opts *o, int64_t *t0, int64_t *t1)
{
    int64_t first, last;
    if (!tr_stat_span(t, &first, &last)) return 0;
    *t0 = o->has_since ? first + o->since : first;
    *t1 = o->has_until ? first + o->until : last;
    if (*t1 <= *t0) *t1 = *t0 + 1;
    return 1;
}

static double plot_xof(const plot *p, int64_t ts)
{
    return p->x0 + (p->x1 - p->x0) * (double)(ts - p->t0) / (double)(p->t1 - p->t0);
}

/* Top band: the title (O's, else WHAT and the first input's name), then the subtitle in grey. */
static void plot_title(plot *p, const char *what, const char *sub_fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void plot_title(plot *p, const char *what, const char *sub_fmt, ...)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    if (p->o->title)
        tr_buf_adds(&b, p->o->title);
    else if (tr_input_count(p->t))
        tr_buf_addf(&b, "%s of %s", what, tr_str_get(p->t, tr_input_get(p->t, 0)->path, NULL));
    else
        tr_buf_adds(&b, what);
    double y = 0.12 * p->o->dpi;
    tr_canvas_text(&p->c, b.p, b.len, p->W / 2.0, y, TITLE_PT, 1, p->W * 0.9, TR_ALIGN_CENTER,
                   TR_RENDER_INK);
    y += TITLE_PT * 1.5 * p->px;
    char sub[512];
    va_list ap;
    va_start(ap, sub_fmt);
    int n = vsnprintf(sub, sizeof sub, sub_fmt, ap);
    va_end(ap);
    size_t len = n < 0 ? 0 : (size_t)n < sizeof sub ? (size_t)n : sizeof sub - 1;
    tr_canvas_text(&p->c, sub, len, p->W / 2.0, y, SMALL_PT, 0, p->W * 0.9, TR_ALIGN_CENTER,
                   TR_RENDER_FAINT_INK);
    tr_buf_fini(&b);
}

/* Ticks and their labels under the plot at Y, counted from the window's start. */
static void plot_time_axis(plot *p, double y)
{
    tr_canvas_rect(&p->c, p->x0, y, p->x1 - p->x0, 1, TR_RENDER_GRID);
    int64_t span = p->t1 - p->t0, step = tr_render_tick_step(span, 10);
    tr_buf b;
    tr_buf_init(&b, 0);
    for (int64_t k = 0; k <= span; k += step) {
        double x = plot_xof(p, p->t0 + k);
        tr_canvas_rect(&p->c, x, y, 1, 4, TR_RENDER_GRID);
        tr_buf_reset(&b);
        tr_render_format_tick(&b, k, step, span);
        tr_canvas_text(&p->c, b.p, b.len, x, y + 5, SMALL_PT, 0, 0, TR_ALIGN_CENTER, TR_RENDER_INK);
    }
    tr_canvas_text(&p->c, "time from the start", 19, (p->x0 + p->x1) / 2,
                   y + 5 + SMALL_PT * 1.6 * p->px, SMALL_PT, 0, 0, TR_ALIGN_CENTER,
                   TR_RENDER_FAINT_INK);
    tr_buf_fini(&b);
}

static int plot_open(plot *p, const tr_trace *t, const tr_render_opts *o, const char *path,
                     int format, int h, const int64_t *window, tr_error *e)
{
    p->t0 = window[0];
    p->t1 = window[1];
    p->t = t;
    p->o = o;
    p->px = o->dpi / 72.0;
    p->W = (int)lround(o->width_in * o->dpi);
    p->H = h;
    p->label_pt = 8;
    p->x0 = 0.18 * p->W;
    p->x1 = p->W - 0.04 * p->W;
    return tr_canvas_open(&p->c, format, path, p->W, p->H, o->dpi, e);
}

/*
** The height the content asks (WANT), at most --height (all of it when given),
** and never under MIN: the fixed parts and a few pixels of plot, so that a
** tiny --height gives a cramped picture rather than none.
*/
static int plot_height(const tr_render_opts *o, double want, double min)
{
    double max = o->height_in * o->dpi, h = o->height_given || want > max ? max : want;
    return (int)lround(h < min ? min : h);
}

/* ---- heat map ---- */

/* A sequential blue scale (white at 0), V in 0..1. */
static uint32_t heat_color(double v)
{
    static const uint32_t stops[] = {0xf7fbff, 0xc6dbef, 0x6baed6, 0x2171b5, 0x08306b};
    if (!(v > 0)) return 0xffffff;
    if (v >= 1) return stops[4];
    double f = v * 4;
    int i = (int)f;
    f -= i;
    uint32_t a = stops[i], b = stops[i + 1], rgb = 0;
    for (int sh = 0; sh <= 16; sh += 8) {
        double ca = (a >> sh) & 255, cb = (b >> sh) & 255;
        rgb |= (uint32_t)lround(ca + (cb - ca) * f) << sh;
    }
    return rgb;
}

typedef struct heat {
    uint32_t *unit_of_track; /* UINT32_MAX: not drawn */
    uint32_t *first_track;   /* per unit: a track, for its label */
    uint32_t *tracks_in;     /* per unit: lanes with slices */
    size_t n_units, cols;
    double *cell;   /* n_units x cols */
    int io;         /* cells hold bytes (else busy ns) */
    int by_process; /* a unit is a process (else a lane) */
} heat;

static const tr_trace *heat_sort_trace;

/* Rows in rank order (processes without one after), then pid, then as read. */
static int heat_track_cmp(const void *pa, const void *pb)
{
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const tr_process *x =
        tr_process_get(heat_sort_trace, tr_track_get(heat_sort_trace, a)->process);
    const tr_process *y =
        tr_process_get(heat_sort_trace, tr_track_get(heat_sort_trace, b)->process);
    uint32_t rx = (uint32_t)x->rank, ry = (uint32_t)y->rank; /* -1 sorts last */
    if (rx != ry) return rx < ry ? -1 : 1;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    return (a > b) - (a < b);
}

/* Units: processes when the lanes drawn span several, else the lanes. */
static int heat_units(const tr_trace *t, const tr_render_opts *o, heat *h)
{
    size_t nt = tr_track_count(t), np = tr_process_count(t);
    h->unit_of_track = tr_malloc((nt + 1) * sizeof *h->unit_of_track);
    uint32_t *unit_of_proc = tr_malloc((np + 1) * sizeof *unit_of_proc);
    h->first_track = tr_malloc((nt + 1) * sizeof *h->first_track);
    h->tracks_in = tr_calloc(nt + 1, sizeof *h->tracks_in);
    if (!h->unit_of_track || !unit_of_proc || !h->first_track || !h->tracks_in) {
        tr_free(unit_of_proc);
        return TR_FATAL;
    }
    tr_slices s;
    tr_trace_slices(t, &s);
    uint8_t *has = tr_calloc(nt + 1, 1);
    if (!has) {
        tr_free(unit_of_proc);
        return TR_FATAL;
    }
    for (size_t i = 0; i < s.n; i++) has[s.track[i]] = 1;
    size_t procs = 0;
    uint32_t last_proc = UINT32_MAX;
    for (size_t k = 0; k < nt; k++) {
        int sel = has[k] && tr_render_track_selected(t, o, (uint32_t)k);
        has[k] = (uint8_t)sel;
        if (sel && tr_track_get(t, (uint32_t)k)->process != last_proc)
            procs++, last_proc = tr_track_get(t, (uint32_t)k)->process;
    }
    for (size_t p = 0; p < np; p++) unit_of_proc[p] = UINT32_MAX;
    for (size_t k = 0; k < nt; k++) h->unit_of_track[k] = UINT32_MAX;
    uint32_t *order = tr_malloc((nt + 1) * sizeof *order);
    if (!order) {
        tr_free(has);
        tr_free(unit_of_proc);
        return TR_FATAL;
    }
    for (size_t k = 0; k < nt; k++) order[k] = (uint32_t)k;
    heat_sort_trace = t;
    tr_qsort(order, nt, sizeof *order, heat_track_cmp);
    for (size_t j = 0; j < nt; j++) {
        size_t k = order[j];
        if (!has[k]) continue;
        uint32_t proc = tr_track_get(t, (uint32_t)k)->process;
        uint32_t u = procs > 1 ? unit_of_proc[proc] : UINT32_MAX;
        if (u == UINT32_MAX) {
            u = (uint32_t)h->n_units++;
            h->first_track[u] = (uint32_t)k;
            if (procs > 1) unit_of_proc[proc] = u;
        }
        h->unit_of_track[k] = u;
        h->tracks_in[u]++;
    }
    h->by_process = procs > 1;
    tr_free(order);
    tr_free(has);
    tr_free(unit_of_proc);
    return TR_OK;
}

/* Adds V over [A, B) of unit U's row, split between the columns by overlap. */
static void heat_add(heat *h, const plot *p, uint32_t u, int64_t a, int64_t b, double v)
{
    double span = (double)(p->t1 - p->t0), w = span / (double)h->cols;
    double fa = (double)(a - p->t0) / w, fb = (double)(b - p->t0) / w;
    if (fb <= 0 || fa >= (double)h->cols) return;
    double *row = h->cell + (size_t)u * h->cols;
    if (fb - fa < 1e-9) {
        row[(size_t)fa] += v;
        return;
    }
    for (size_t c = (size_t)(fa < 0 ? 0 : fa); c < h->cols && (double)c < fb; c++) {
        double lo = fa > (double)c ? fa : (double)c, hi = fb < c + 1.0 ? fb : c + 1.0;
        row[c] += v * (hi - lo) / (fb - fa);
    }
}

/* Sums the top-level slices into the cells: bytes of reads and writes, else busy time. */
static int heat_fill(heat *h, const plot *p)
{
    tr_slices s;
    tr_trace_slices(p->t, &s);
    int8_t *kind = tr_malloc(tr_str_count(p->t) + 1);
    h->cell = tr_calloc(h->n_units * h->cols + 1, sizeof *h->cell);
    if (!kind || !h->cell) {
        tr_free(kind);
        return TR_FATAL;
    }
    memset(kind, -2, tr_str_count(p->t) + 1);
    for (int pass = 0; pass < 2 && !h->io; pass++) {
        h->io = pass == 0;
        for (size_t i = 0; i < s.n; i++) {
            uint32_t u = h->unit_of_track[s.track[i]];
            if (u == UINT32_MAX) continue;
            int64_t a = s.ts[i], b = a + (tr_slice_dur(&s, i) > 0 ? tr_slice_dur(&s, i) : 0);
            if (!h->io) {
                if (s.parent[i] == TR_NONE) heat_add(h, p, u, a, b, (double)(b - a));
                continue;
            }
            if (kind[s.name[i]] == -2)
                kind[s.name[i]] = (int8_t)tr_io_kind_of(tr_str_get(p->t, s.name[i], NULL));
            int k = kind[s.name[i]];
            if ((k == TR_IO_READ || k == TR_IO_WRITE) && tr_slice_bytes(&s, i) > 0 &&
                s.parent[i] == TR_NONE)
                heat_add(h, p, u, a, b, (double)tr_slice_bytes(&s, i));
        }
        double any = 0;
        for (size_t c = 0; c < h->n_units * h->cols; c++) any += h->cell[c];
        if (h->io && !(any > 0)) h->io = 0;
    }
    tr_free(kind);
    return TR_OK;
}

/* The colour bar at the right of the title band: 0 .. MAX with its unit. */
static void heat_scale(plot *p, const heat *h, double max, double y)
{
    double w = 0.16 * p->W, bh = 8, lw = 0.09 * p->W, x = p->x1 - lw - 8 - w;
    for (int i = 0; i < 64; i++)
        tr_canvas_rect(&p->c, x + w * i / 64, y, w / 64 + 0.5, bh, heat_color((i + 0.5) / 64));
    tr_buf b;
    tr_buf_init(&b, 0);
    if (h->io) {
        tr_buf_add_size(&b, (int64_t)max);
        tr_buf_adds(&b, " per cell");
    } else {
        tr_buf_addf(&b, "%.0f%% busy", 100 * max);
    }
    /* "0 [bar] max" on one line, the bar's ends labelled. */
    tr_canvas_text(&p->c, b.p, b.len, p->x1, y - 3, SMALL_PT, 0, lw, TR_ALIGN_RIGHT, TR_RENDER_INK);
    tr_canvas_text(&p->c, "0", 1, x - 4, y - 3, SMALL_PT, 0, 0, TR_ALIGN_RIGHT, TR_RENDER_INK);
    tr_buf_fini(&b);
}

static void heat_label(plot *p, const heat *h, uint32_t u, double y, double rh)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    const tr_track *tk = tr_track_get(p->t, h->first_track[u]);
    if (h->by_process)
        tr_render_process_label(&b, p->t, tk->process);
    else
        tr_buf_adds(&b, tr_str_get(p->t, tk->name, NULL));
    double fs = p->label_pt * p->px;
    tr_canvas_text(&p->c, b.p, b.len, p->x0 - 6, y + (rh - fs * 1.2) / 2, p->label_pt, 0,
                   p->x0 - 10, TR_ALIGN_RIGHT, TR_RENDER_INK);
    tr_buf_fini(&b);
}

static void heat_draw(plot *p, heat *h, double y, double rh, size_t rows)
{
    double cw = (p->x1 - p->x0) / (double)h->cols, max = 0;
    double bin = (double)(p->t1 - p->t0) / (double)h->cols;
    for (size_t u = 0; u < h->n_units; u++)
        for (size_t c = 0; c < h->cols; c++) {
            double *v = &h->cell[u * h->cols + c];
            if (!h->io) *v /= bin * h->tracks_in[u];
            if (*v > max) max = *v;
        }
    if (!h->io && max > 1) max = 1;
    for (size_t u = 0; u < h->n_units; u++) {
        size_t r = u * rows / h->n_units;
        double ry = y + rh * (double)r;
        for (size_t c = 0; c < h->cols; c++) {
            double v = h->cell[u * h->cols + c];
            if (v > 0) tr_canvas_rect(&p->c, p->x0 + cw * c, ry, cw + 0.5, rh, heat_color(v / max));
        }
        if (rows == h->n_units && rh >= p->label_pt * p->px * 1.1)
            heat_label(p, h, (uint32_t)u, ry, rh);
    }
    heat_scale(p, h, max > 0 ? max : 1, y - 14 - 8);
}

static int heatmap_render(const tr_trace *t, const tr_render_opts *o, const char *path, int format,
                          tr_render_stats *st, tr_error *e)
{
    heat h = {0};
    plot p = {0};
    int rc = TR_FATAL;
    int64_t w[2];
    if (!plot_window(t, o, &w[0], &w[1]))
        return tr_errorf(e, TR_E_USAGE, NULL, "the trace is empty");
    if (heat_units(t, o, &h) != TR_OK) goto done;
    if (!h.n_units) {
        rc = tr_errorf(e, TR_E_USAGE, NULL, "a heat map needs slices (in the lanes selected)");
        goto done;
    }
    double px = o->dpi / 72.0, top = 0.12 * o->dpi + (TITLE_PT * 1.5 + SMALL_PT * 2.2) * px + 30;
    double want_rh = h.n_units > 40 ? 6 : 14 * px * 0.9;
    double fixed = top + 8 + SMALL_PT * 3.4 * px + 10;
    int H = plot_height(o, fixed + want_rh * (double)h.n_units, fixed + 20);
    double avail = H - fixed;
    size_t rows = h.n_units;
    if (avail / (double)rows < 2) rows = (size_t)(avail / 2);
    double rh = avail / (double)rows;
    if (plot_open(&p, t, o, path, format, H, w, e) != TR_OK) goto done;
    h.cols = p.x1 - p.x0 >= 8 ? (size_t)((p.x1 - p.x0) / 4) : 1;
    if (heat_fill(&h, &p) != TR_OK) {
        tr_canvas_abort(&p.c);
        goto done;
    }
    plot_title(&p, "Heat map", "%s per %s and time cell; %zu rows%s",
               h.io ? "bytes read and written" : "busy share",
               h.by_process ? "process or rank" : "lane", h.n_units,
               rows < h.n_units ? ", merged into the pixel rows" : "");
    heat_draw(&p, &h, top, rh, rows);
    plot_time_axis(&p, top + rh * (double)rows + 2);
    st->width_px = p.W, st->height_px = p.H, st->lanes = h.n_units;
    rc = tr_canvas_commit(&p.c, e);
done:
    tr_free(h.unit_of_track);
    tr_free(h.first_track);
    tr_free(h.tracks_in);
    tr_free(h.cell);
    return rc;
}

/* ---- file access plots ---- */

#define ACCESS_FILES 4
#define READ_RGB     0x1f77b4
#define WRITE_RGB    0xd62728

typedef struct access_panel {
    tr_str path;
    int64_t max_end; /* the furthest byte accessed */
    uint64_t n;
} access_panel;

/* The files to draw: the most bytes first, with accesses; how many. */
static size_t access_panels(const tr_io_stats *io, const tr_vec *acc, access_panel *pan)
{
    size_t n = 0;
    for (size_t f = 0; f < io->n_files && n < ACCESS_FILES; f++) {
        access_panel q = {io->files[f].path, 0, 0};
        for (size_t i = 0; i < acc->len; i++) {
            const tr_io_access *a = &TR_VEC_AT(acc, tr_io_access, i);
            if (a->path != q.path) continue;
            q.n++;
            if (a->offset + a->bytes > q.max_end) q.max_end = a->offset + a->bytes;
        }
        if (q.n) pan[n++] = q;
    }
    return n;
}

/* One panel at Y of height PH: its frame, its offsets' scale and its accesses, once per pixel. */
static int access_panel_draw(plot *p, const tr_vec *acc, const access_panel *q, double y, double ph,
                             const tr_render_opts *o, tr_render_stats *st)
{
    tr_slices s;
    tr_trace_slices(p->t, &s);
    size_t cols = (size_t)(p->x1 - p->x0) + 2, rows = (size_t)ph + 2;
    uint8_t *seen = tr_calloc(cols * rows, 1);
    if (!seen) return TR_FATAL;
    tr_canvas_rect(&p->c, p->x0, y, p->x1 - p->x0, ph, 0xfafafa);
    double scale = ph / (double)(q->max_end > 0 ? q->max_end : 1);
    for (size_t i = 0; i < acc->len; i++) {
        const tr_io_access *a = &TR_VEC_AT(acc, tr_io_access, i);
        if (a->path != q->path || !tr_render_track_selected(p->t, o, s.track[a->row])) continue;
        int64_t ts = s.ts[a->row];
        if (ts < p->t0 || ts > p->t1) continue;
        double x = plot_xof(p, ts), y1 = y + ph - (double)a->offset * scale;
        double h = (double)a->bytes * scale;
        size_t cx = (size_t)(x - p->x0), cy = (size_t)(y + ph - y1);
        uint8_t bit = a->kind == TR_IO_READ ? 1 : 2;
        if (cx >= cols || cy >= rows || (seen[cy * cols + cx] & bit)) {
            st->markers_merged++;
            continue;
        }
        seen[cy * cols + cx] |= bit;
        if (h < 2) h = 2;
        tr_canvas_rect(&p->c, x - 1, y1 - h, 2, h, a->kind == TR_IO_READ ? READ_RGB : WRITE_RGB);
        st->markers_drawn++;
    }
    tr_free(seen);
    tr_buf b;
    tr_buf_init(&b, 0);
    const char *path = tr_str_get(p->t, q->path, NULL);
    tr_canvas_text(&p->c, path, strlen(path), p->x0 - 6, y, p->label_pt, 1, p->x0 - 10,
                   TR_ALIGN_RIGHT, TR_RENDER_INK);
    tr_buf_addf(&b, "%llu accesses, offsets to ", (unsigned long long)q->n);
    tr_buf_add_size(&b, q->max_end);
    tr_canvas_text(&p->c, b.p, b.len, p->x0 - 6, y + p->label_pt * 1.5 * p->px, SMALL_PT, 0,
                   p->x0 - 10, TR_ALIGN_RIGHT, TR_RENDER_FAINT_INK);
    tr_canvas_text(&p->c, "0", 1, p->x0 - 6, y + ph - SMALL_PT * 1.4 * p->px, SMALL_PT, 0, 0,
                   TR_ALIGN_RIGHT, TR_RENDER_FAINT_INK);
    tr_buf_fini(&b);
    return TR_OK;
}

/* The key: a read and a write swatch at the right of the title band. */
static void access_key(plot *p, double y)
{
    static const struct {
        const char *name;
        uint32_t rgb;
    } keys[] = {{"read", READ_RGB}, {"write", WRITE_RGB}};
    double x = p->x1 - 0.12 * p->W;
    for (int k = 0; k < 2; k++) {
        tr_canvas_rect(&p->c, x, y, 10, 10, keys[k].rgb);
        x += 14 + tr_canvas_text(&p->c, keys[k].name, strlen(keys[k].name), x + 14, y - 1, SMALL_PT,
                                 0, 0, TR_ALIGN_LEFT, TR_RENDER_INK);
        x += 10;
    }
}

static int access_render(const tr_trace *t, const tr_render_opts *o, const char *path, int format,
                         tr_render_stats *st, tr_error *e)
{
    tr_io_stats io;
    tr_vec acc;
    int64_t w[2];
    if (!plot_window(t, o, &w[0], &w[1]))
        return tr_errorf(e, TR_E_USAGE, NULL, "the trace is empty");
    if (tr_io_accesses(t, NULL, &io, &acc, e) != TR_OK) return TR_FATAL;
    access_panel pan[ACCESS_FILES];
    size_t n = access_panels(&io, &acc, pan);
    int rc = TR_FATAL;
    plot p = {0};
    if (!n) {
        rc = tr_errorf(e, TR_E_USAGE, NULL,
                       "an access plot needs reads or writes at known offsets of named files");
        goto done;
    }
    double px = o->dpi / 72.0, top = 0.12 * o->dpi + (TITLE_PT * 1.5 + SMALL_PT * 2.2) * px + 8;
    double gap = 0.12 * o->dpi, want = 1.3 * o->dpi;
    double fixed = top + 8 + SMALL_PT * 3.4 * px + 10;
    int H = plot_height(o, fixed + (want + gap) * (double)n, fixed + (gap + 10) * (double)n);
    double ph = (H - fixed) / (double)n - gap;
    if (plot_open(&p, t, o, path, format, H, w, e) != TR_OK) goto done;
    plot_title(&p, "File access",
               "offset against time of each read and write, the %zu file%s with the most "
               "bytes (of %zu)",
               n, n > 1 ? "s" : "", io.n_files);
    access_key(&p, top - 14);
    rc = TR_OK;
    for (size_t i = 0; i < n && rc == TR_OK; i++)
        rc = access_panel_draw(&p, &acc, &pan[i], top + (ph + gap) * (double)i, ph, o, st);
    if (rc != TR_OK) {
        tr_canvas_abort(&p.c);
        rc = tr_error_nomem(e);
        goto done;
    }
    plot_time_axis(&p, top + (ph + gap) * (double)n - gap + 2);
    st->width_px = p.W, st->height_px = p.H, st->lanes = n;
    rc = tr_canvas_commit(&p.c, e);
done:
    tr_io_stats_fini(&io);
    tr_vec_fini(&acc);
    return rc;
}

/* ---- op mix per lane ---- */

/* Parts a bar shows: its names by time, the rest as one grey "other" part. */
#define OPS_NAMES 12

typedef struct ops_name {
    tr_str name;
    int64_t time;
} ops_name;

static int ops_name_cmp(const void *a, const void *b)
{
    int64_t x = ((const ops_name *)a)->time, y = ((const ops_name *)b)->time;
    return (x < y) - (x > y);
}

/* Lanes drawn: tracks with top-level slices that the options select, in track order. */
typedef struct ops_data {
    uint32_t *lane_of_track; /* UINT32_MAX: not drawn */
    uint32_t *track_of_lane;
    size_t n_lanes;
    ops_name top[OPS_NAMES];
    size_t n_top;
    uint32_t rgb[OPS_NAMES + 1];
    int64_t *time; /* n_lanes x (OPS_NAMES + 1): the last column is "other" */
} ops_data;

/* The names with the most top-level time, and their colours, no two alike. */
static int ops_names(const tr_trace *t, const tr_slices *s, ops_data *d)
{
    size_t ns = tr_str_count(t) + 1;
    int64_t *by = tr_calloc(ns, sizeof *by);
    if (!by) return TR_FATAL;
    for (size_t i = 0; i < s->n; i++)
        if (s->parent[i] == TR_NONE && d->lane_of_track[s->track[i]] != UINT32_MAX)
            by[s->name[i]] += tr_slice_dur(s, i) > 0 ? tr_slice_dur(s, i) : 0;
    for (size_t k = 0; k < ns; k++) {
        if (!by[k]) continue;
        ops_name q = {(tr_str)k, by[k]};
        if (d->n_top < OPS_NAMES) {
            d->top[d->n_top++] = q;
        } else if (q.time > d->top[OPS_NAMES - 1].time) {
            d->top[OPS_NAMES - 1] = q;
        } else {
            continue;
        }
        tr_qsort(d->top, d->n_top, sizeof *d->top, ops_name_cmp);
    }
    tr_free(by);
    for (size_t k = 0; k < d->n_top; k++) {
        size_t n;
        const char *name = tr_str_get(t, d->top[k].name, &n);
        for (unsigned alt = 0;; alt++) {
            uint32_t c = tr_render_color_alt(name, n, alt);
            size_t j = 0;
            while (j < k && d->rgb[j] != c) j++;
            if (j == k) {
                d->rgb[k] = c;
                break;
            }
        }
    }
    d->rgb[d->n_top] = 0xbbbbbb;
    return TR_OK;
}

static int ops_collect(const tr_trace *t, const tr_render_opts *o, ops_data *d)
{
    tr_slices s;
    tr_trace_slices(t, &s);
    size_t nt = tr_track_count(t);
    d->lane_of_track = tr_malloc((nt + 1) * sizeof *d->lane_of_track);
    d->track_of_lane = tr_malloc((nt + 1) * sizeof *d->track_of_lane);
    if (!d->lane_of_track || !d->track_of_lane) return TR_FATAL;
    for (size_t k = 0; k < nt; k++) d->lane_of_track[k] = UINT32_MAX;
    for (size_t i = 0; i < s.n; i++) d->lane_of_track[s.track[i]] = 0;
    for (size_t k = 0; k < nt; k++) {
        if (d->lane_of_track[k] == UINT32_MAX || !tr_render_track_selected(t, o, (uint32_t)k)) {
            d->lane_of_track[k] = UINT32_MAX;
            continue;
        }
        d->track_of_lane[d->n_lanes] = (uint32_t)k;
        d->lane_of_track[k] = (uint32_t)d->n_lanes++;
    }
    if (ops_names(t, &s, d) != TR_OK) return TR_FATAL;
    size_t w = OPS_NAMES + 1;
    d->time = tr_calloc(d->n_lanes * w + 1, sizeof *d->time);
    if (!d->time) return TR_FATAL;
    for (size_t i = 0; i < s.n; i++) {
        uint32_t l = d->lane_of_track[s.track[i]];
        if (l == UINT32_MAX || s.parent[i] != TR_NONE) continue;
        size_t k = 0;
        while (k < d->n_top && d->top[k].name != s.name[i]) k++;
        d->time[(size_t)l * w + (k < d->n_top ? k : OPS_NAMES)] +=
            tr_slice_dur(&s, i) > 0 ? tr_slice_dur(&s, i) : 0;
    }
    return TR_OK;
}

/* Lane L's bar at Y of height RH: a part per name, as wide as its share of the window. */
static void ops_bar(plot *p, const ops_data *d, size_t l, double y, double rh, int64_t span)
{
    const int64_t *row = d->time + l * (OPS_NAMES + 1);
    double x = p->x0, w = p->x1 - p->x0 - 0.06 * p->W, busy = 0;
    tr_canvas_rect(&p->c, p->x0, y, w, rh, l % 2 ? TR_RENDER_LANE_ODD : 0xf8f8f8);
    for (size_t k = 0; k <= OPS_NAMES; k++) {
        size_t c = k < d->n_top ? k : d->n_top;
        if (k >= d->n_top && k < OPS_NAMES) continue;
        double part = (double)row[k] / (double)span;
        busy += part;
        double pw = part * w;
        if (x + pw > p->x0 + w) pw = p->x0 + w - x;
        if (pw > 0) tr_canvas_rect(&p->c, x, y, pw, rh, d->rgb[c]);
        x += pw > 0 ? pw : 0;
    }
    tr_buf b;
    tr_buf_init(&b, 0);
    const tr_track *tk = tr_track_get(p->t, d->track_of_lane[l]);
    const char *name = tr_str_get(p->t, tk->name, NULL);
    if (tr_process_count(p->t) > 1) {
        tr_render_process_label(&b, p->t, tk->process);
        if (strcmp(b.p, name) != 0) tr_buf_addf(&b, " / %s", name);
    } else {
        tr_buf_adds(&b, name);
    }
    double fs = p->label_pt * p->px * 1.2;
    if (rh >= fs * 0.9) {
        tr_canvas_text(&p->c, b.p, b.len, p->x0 - 6, y + (rh - fs) / 2, p->label_pt, 0, p->x0 - 10,
                       TR_ALIGN_RIGHT, TR_RENDER_INK);
        tr_buf_reset(&b);
        tr_buf_addf(&b, "%.0f%%", 100 * busy);
        tr_canvas_text(&p->c, b.p, b.len, p->x0 + w + 6, y + (rh - fs) / 2, p->label_pt, 0, 0,
                       TR_ALIGN_LEFT, TR_RENDER_INK);
    }
    tr_buf_fini(&b);
}

/* The share axis under the bars: 0% to 100% of the window. */
static void ops_axis(plot *p, double y)
{
    double w = p->x1 - p->x0 - 0.06 * p->W;
    tr_canvas_rect(&p->c, p->x0, y, w, 1, TR_RENDER_GRID);
    char lab[8];
    for (int k = 0; k <= 4; k++) {
        double x = p->x0 + w * k / 4;
        tr_canvas_rect(&p->c, x, y, 1, 4, TR_RENDER_GRID);
        int n = snprintf(lab, sizeof lab, "%d%%", 25 * k);
        tr_canvas_text(&p->c, lab, (size_t)n, x, y + 5, SMALL_PT, 0, 0, TR_ALIGN_CENTER,
                       TR_RENDER_INK);
    }
    tr_canvas_text(&p->c, "share of the span", 17, p->x0 + w / 2, y + 5 + SMALL_PT * 1.6 * p->px,
                   SMALL_PT, 0, 0, TR_ALIGN_CENTER, TR_RENDER_FAINT_INK);
}

/* The names and their colours, flowing in lines from Y; the height taken. */
static double ops_legend(plot *p, const ops_data *d, double y, int draw)
{
    double x = p->x0, fs = SMALL_PT * p->px * 1.3, y0 = y;
    for (size_t k = 0; k <= d->n_top; k++) {
        size_t n = 5;
        const char *name = k < d->n_top ? tr_str_get(p->t, d->top[k].name, &n) : "other";
        double tw = n * SMALL_PT * p->px * 0.62 + 30;
        if (x + tw > p->x1) x = p->x0, y += fs * 1.3;
        if (draw) {
            tr_canvas_rect(&p->c, x, y + 2, 10, 10, d->rgb[k]);
            tr_canvas_text(&p->c, name, n, x + 14, y, SMALL_PT, 0, tw - 16, TR_ALIGN_LEFT,
                           TR_RENDER_INK);
        }
        x += tw;
    }
    return y - y0 + fs * 1.5;
}

static int ops_render(const tr_trace *t, const tr_render_opts *o, const char *path, int format,
                      tr_render_stats *st, tr_error *e)
{
    ops_data d = {0};
    plot p = {0};
    int64_t w[2];
    int rc = TR_FATAL;
    if (!plot_window(t, o, &w[0], &w[1]))
        return tr_errorf(e, TR_E_USAGE, NULL, "the trace is empty");
    if (ops_collect(t, o, &d) != TR_OK) {
        rc = tr_error_nomem(e);
        goto done;
    }
    if (!d.n_lanes) {
        rc = tr_errorf(e, TR_E_USAGE, NULL, "an op mix needs slices (in the lanes selected)");
        goto done;
    }
    double px = o->dpi / 72.0, top = 0.12 * o->dpi + (TITLE_PT * 1.5 + SMALL_PT * 2.2) * px;
    double rh = 13 * px, gap = 3 * px;
    p.W = (int)lround(o->width_in * o->dpi), p.px = px, p.x0 = 0.18 * p.W, p.x1 = p.W - 0.04 * p.W;
    p.t = t;
    double leg = ops_legend(&p, &d, 0, 0);
    double fixed = top + leg + 8 + SMALL_PT * 3.4 * px + 10;
    int H = plot_height(o, fixed + (rh + gap) * (double)d.n_lanes, fixed + 20);
    size_t rows = d.n_lanes;
    if ((rh + gap) * (double)rows > H - fixed) {
        rh = (H - fixed) / (double)rows - gap;
        if (rh < 2) gap = 0, rh = (H - fixed) / (double)rows;
        if (rh < 1) rows = (size_t)(H - fixed), rh = 1;
    }
    if (plot_open(&p, t, o, path, format, H, w, e) != TR_OK) goto done;
    plot_title(&p, "Op mix",
               "time of each lane's top-level slices by name, as a share of the span; %zu "
               "lanes%s",
               d.n_lanes, rows < d.n_lanes ? ", the first that fit drawn" : "");
    ops_legend(&p, &d, top, 1);
    double y = top + leg;
    for (size_t l = 0; l < rows; l++)
        ops_bar(&p, &d, l, y + (rh + gap) * (double)l, rh, w[1] - w[0]);
    ops_axis(&p, y + (rh + gap) * (double)rows + 2);
    st->width_px = p.W, st->height_px = p.H, st->lanes = rows;
    rc = tr_canvas_commit(&p.c, e);
done:
    tr_free(d.lane_of_track);
    tr_free(d.track_of_lane);
    tr_free(d.time);
    return rc;
}

int tr_plot_render(const tr_trace *t, const tr_render_opts *o, const char *path, int format,
                   tr_render_stats *st, tr_error *e)
{
    if (o->kind == TR_RENDER_HEATMAP) return heatmap_render(t, o, path, format, st, e);
    if (o->kind == TR_RENDER_ACCESS) return access_render(t, o, path, format, st, e);
    return ops_render(t, o, path, format, st, e);
}
