/* canvas.c: cairo surfaces written through tr_output, pango text, axis ticks, selection. */
#include "render_impl.h"

#include "tr_text.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <strings.h>

void tr_render_opts_init(tr_render_opts *o)
{
    memset(o, 0, sizeof *o);
    o->kind = TR_RENDER_TIMELINE;
    o->width_in = 16;
    o->height_in = 10;
    o->dpi = 150;
    o->min_width_px = 0.1;
}

int tr_render_format_for_path(const char *path)
{
    const char *dot = strrchr(path, '.');
    if (!dot || strchr(dot, '/')) return -1;
    if (strcasecmp(dot, ".png") == 0) return TR_RENDER_PNG;
    if (strcasecmp(dot, ".svg") == 0) return TR_RENDER_SVG;
    if (strcasecmp(dot, ".pdf") == 0) return TR_RENDER_PDF;
    return -1;
}

/* Pictures past this many pixels a side are refused: cairo's own limit is 32767. */
#define MAX_SIDE_PX 32000

int tr_render(const tr_trace *t, const tr_render_opts *o, const char *path, int format,
              tr_render_stats *stats, tr_error *e)
{
    tr_render_stats local;
    if (!stats) stats = &local;
    memset(stats, 0, sizeof *stats);
    if (!tr_trace_frozen(t)) return tr_errorf(e, TR_E_USAGE, NULL, "the trace is not frozen");
    if (format < 0) format = tr_render_format_for_path(path);
    if (format < 0)
        return tr_errorf(e, TR_E_USAGE, NULL,
                         "cannot tell the picture format of '%s' (use .png, .svg or .pdf)", path);
    if (!(o->dpi > 0) || !(o->width_in > 0) || !(o->height_in > 0))
        return tr_errorf(e, TR_E_USAGE, NULL, "width, height and dpi must be positive");
    if (o->width_in * o->dpi > MAX_SIDE_PX || o->height_in * o->dpi > MAX_SIDE_PX)
        return tr_errorf(e, TR_E_USAGE, NULL,
                         "a picture of %.0f x %.0f pixels is too large (at most %d a side)",
                         o->width_in * o->dpi, o->height_in * o->dpi, MAX_SIDE_PX);
    if (o->has_since && o->has_until && o->until <= o->since)
        return tr_errorf(e, TR_E_USAGE, NULL, "--until must be after --since");
    if (o->kind == TR_RENDER_TIMELINE) return tr_timeline_render(t, o, path, format, stats, e);
    if (o->kind == TR_RENDER_FLAME || o->kind == TR_RENDER_ICICLE)
        return tr_flame_render(t, o, path, format, stats, e);
    if (o->kind == TR_RENDER_STREE) return tr_stree_render(t, o, path, format, stats, e);
    return tr_plot_render(t, o, path, format, stats, e);
}

/* ---- the canvas ---- */

/* Unhinted metrics: text takes the same room in PNG, SVG and PDF. */
static void unhinted(PangoContext *ctx)
{
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    pango_cairo_context_set_font_options(ctx, fo);
    cairo_font_options_destroy(fo);
}

static cairo_status_t canvas_write(void *closure, const unsigned char *data, unsigned int len)
{
    tr_canvas *c = closure;
    if (c->write_failed) return CAIRO_STATUS_WRITE_ERROR;
    if (tr_output_write(c->out, data, len, &c->write_err) < 0) {
        c->write_failed = 1;
        return CAIRO_STATUS_WRITE_ERROR;
    }
    return CAIRO_STATUS_SUCCESS;
}

static int cairo_failed(cairo_status_t st, tr_error *e)
{
    if (st == CAIRO_STATUS_NO_MEMORY) return tr_error_nomem(e);
    return tr_errorf(e, TR_E_IO, NULL, "cairo: %s", cairo_status_to_string(st));
}

int tr_canvas_open(tr_canvas *c, int format, const char *path, int w, int h, double dpi,
                   tr_error *e)
{
    memset(c, 0, sizeof *c);
    c->format = format;
    c->width = w;
    c->height = h;
    c->px_per_pt = dpi / 72.0;
    if (tr_output_open(&c->out, path, e) < 0) return TR_FAIL;
    /* Vector surfaces keep the size in inches; drawing is in pixels, scaled to points. */
    double pw = w * 72.0 / dpi, ph = h * 72.0 / dpi;
    if (format == TR_RENDER_PNG)
        c->surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    else if (format == TR_RENDER_SVG)
        c->surface = cairo_svg_surface_create_for_stream(canvas_write, c, pw, ph);
    else
        c->surface = cairo_pdf_surface_create_for_stream(canvas_write, c, pw, ph);
    cairo_status_t st = cairo_surface_status(c->surface);
    if (st != CAIRO_STATUS_SUCCESS) {
        tr_canvas_abort(c);
        return cairo_failed(st, e);
    }
    if (format == TR_RENDER_PDF)
        cairo_pdf_surface_set_metadata(c->surface, CAIRO_PDF_METADATA_CREATOR, "tracecat traceviz");
    c->cr = cairo_create(c->surface);
    if (format != TR_RENDER_PNG) cairo_scale(c->cr, 1.0 / c->px_per_pt, 1.0 / c->px_per_pt);
    c->layout = pango_cairo_create_layout(c->cr);
    c->font = pango_font_description_from_string(TR_RENDER_FONT);
    if (!c->layout || !c->font || cairo_status(c->cr) != CAIRO_STATUS_SUCCESS) {
        st = cairo_status(c->cr);
        tr_canvas_abort(c);
        return st != CAIRO_STATUS_SUCCESS ? cairo_failed(st, e) : tr_error_nomem(e);
    }
    unhinted(pango_layout_get_context(c->layout));
    pango_layout_context_changed(c->layout);
    tr_canvas_rect(c, 0, 0, w, h, TR_RENDER_WHITE);
    return TR_OK;
}

void tr_canvas_abort(tr_canvas *c)
{
    if (c->layout) g_object_unref(c->layout);
    if (c->font) pango_font_description_free(c->font);
    if (c->cr) cairo_destroy(c->cr);
    if (c->surface) cairo_surface_destroy(c->surface);
    tr_output_abort(c->out);
    memset(c, 0, sizeof *c);
}

int tr_canvas_commit(tr_canvas *c, tr_error *e)
{
    cairo_status_t st = cairo_status(c->cr);
    if (st == CAIRO_STATUS_SUCCESS) {
        if (c->format == TR_RENDER_PNG) {
            cairo_surface_flush(c->surface);
            int rc = tr_png_write(c->surface, c->out, e);
            if (rc < 0) {
                tr_canvas_abort(c);
                return rc;
            }
        } else {
            cairo_surface_finish(c->surface);
            st = cairo_surface_status(c->surface);
        }
    }
    if (c->write_failed) {
        if (e) *e = c->write_err;
        tr_canvas_abort(c);
        return TR_FAIL;
    }
    if (st != CAIRO_STATUS_SUCCESS) {
        tr_canvas_abort(c);
        return cairo_failed(st, e);
    }
    tr_output *out = c->out;
    c->out = NULL;
    tr_canvas_abort(c);
    return tr_output_commit(out, e);
}

void tr_canvas_rgb(tr_canvas *c, uint32_t rgb, double alpha)
{
    cairo_set_source_rgba(c->cr, ((rgb >> 16) & 0xff) / 255.0, ((rgb >> 8) & 0xff) / 255.0,
                          (rgb & 0xff) / 255.0, alpha);
}

void tr_canvas_rect(tr_canvas *c, double x, double y, double w, double h, uint32_t rgb)
{
    tr_canvas_rgb(c, rgb, 1);
    cairo_rectangle(c->cr, x, y, w, h);
    cairo_fill(c->cr);
}

void tr_canvas_marker(tr_canvas *c, int shape, double x, double y, double r, uint32_t rgb)
{
    cairo_t *cr = c->cr;
    cairo_new_path(cr); /* text leaves a current point that an arc would join */
    switch (shape) {
    case TR_SHAPE_CIRCLE:
        cairo_arc(cr, x, y, r, 0, 2 * M_PI);
        break;
    case TR_SHAPE_SQUARE:
        cairo_rectangle(cr, x - r * 0.85, y - r * 0.85, r * 1.7, r * 1.7);
        break;
    case TR_SHAPE_TRIANGLE_UP:
        cairo_move_to(cr, x, y - r);
        cairo_line_to(cr, x + r, y + r * 0.8);
        cairo_line_to(cr, x - r, y + r * 0.8);
        cairo_close_path(cr);
        break;
    case TR_SHAPE_TRIANGLE_DOWN:
        cairo_move_to(cr, x, y + r);
        cairo_line_to(cr, x + r, y - r * 0.8);
        cairo_line_to(cr, x - r, y - r * 0.8);
        cairo_close_path(cr);
        break;
    case TR_SHAPE_DIAMOND:
        cairo_move_to(cr, x, y - r);
        cairo_line_to(cr, x + r, y);
        cairo_line_to(cr, x, y + r);
        cairo_line_to(cr, x - r, y);
        cairo_close_path(cr);
        break;
    default: /* a cross: two bars */
        cairo_move_to(cr, x - r, y - r);
        cairo_line_to(cr, x + r, y + r);
        cairo_move_to(cr, x + r, y - r);
        cairo_line_to(cr, x - r, y + r);
        tr_canvas_rgb(c, rgb, 1);
        cairo_set_line_width(cr, r > 2 ? r * 0.45 : 1);
        cairo_stroke(cr);
        return;
    }
    tr_canvas_rgb(c, rgb, 0.85);
    cairo_fill_preserve(cr);
    tr_canvas_rgb(c, TR_RENDER_INK, 0.9);
    cairo_set_line_width(cr, r > 3 ? 0.8 : 0.4);
    cairo_stroke(cr);
}

static void set_font(PangoLayout *layout, PangoFontDescription *font, double size_px, int bold)
{
    pango_font_description_set_weight(font, bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
    pango_font_description_set_absolute_size(font, size_px * PANGO_SCALE);
    pango_layout_set_font_description(layout, font);
}

/* Pango warns on stderr about bytes that are not UTF-8: trace names are mended first. */
static void set_text(PangoLayout *layout, const char *s, size_t n)
{
    if (g_utf8_validate_len(s, n, NULL)) {
        pango_layout_set_text(layout, s, (int)n);
        return;
    }
    gchar *ok = g_utf8_make_valid(s, (gssize)n);
    pango_layout_set_text(layout, ok ? ok : "?", -1);
    g_free(ok);
}

double tr_canvas_text(tr_canvas *c, const char *s, size_t n, double x, double y, double size_pt,
                      int bold, double max_w, int align, uint32_t rgb)
{
    set_font(c->layout, c->font, size_pt * c->px_per_pt, bold);
    pango_layout_set_width(c->layout, max_w > 0 ? (int)(max_w * PANGO_SCALE) : -1);
    pango_layout_set_ellipsize(c->layout, max_w > 0 ? PANGO_ELLIPSIZE_END : PANGO_ELLIPSIZE_NONE);
    set_text(c->layout, s, n);
    PangoRectangle logical;
    pango_layout_get_extents(c->layout, NULL, &logical);
    double w = logical.width / (double)PANGO_SCALE;
    double lx = logical.x / (double)PANGO_SCALE;
    if (align == TR_ALIGN_CENTER)
        x -= w / 2;
    else if (align == TR_ALIGN_RIGHT)
        x -= w;
    tr_canvas_rgb(c, rgb, 1);
    cairo_move_to(c->cr, x - lx, y);
    pango_cairo_show_layout(c->cr, c->layout);
    return w;
}

/* ---- text measured without a surface ---- */

int tr_measure_open(tr_measure *m, double dpi)
{
    memset(m, 0, sizeof *m);
    m->px_per_pt = dpi / 72.0;
    m->ctx = pango_font_map_create_context(pango_cairo_font_map_get_default());
    if (m->ctx) unhinted(m->ctx);
    m->layout = m->ctx ? pango_layout_new(m->ctx) : NULL;
    m->font = pango_font_description_from_string(TR_RENDER_FONT);
    if (!m->layout || !m->font) {
        tr_measure_close(m);
        return TR_FATAL;
    }
    return TR_OK;
}

double tr_measure_text(tr_measure *m, const char *s, size_t n, double size_pt, int bold)
{
    set_font(m->layout, m->font, size_pt * m->px_per_pt, bold);
    set_text(m->layout, s, n);
    PangoRectangle logical;
    pango_layout_get_extents(m->layout, NULL, &logical);
    return logical.width / (double)PANGO_SCALE;
}

void tr_measure_close(tr_measure *m)
{
    if (m->layout) g_object_unref(m->layout);
    if (m->ctx) g_object_unref(m->ctx);
    if (m->font) pango_font_description_free(m->font);
    memset(m, 0, sizeof *m);
}

/* ---- time axis ---- */

int64_t tr_render_tick_step(int64_t span, int max_ticks)
{
    if (span <= 0 || max_ticks < 1) return 1;
    int64_t base = 1;
    for (;;) {
        static const int mult[] = {1, 2, 5};
        for (int i = 0; i < 3; i++) {
            int64_t step = base * mult[i];
            if (span / step <= max_ticks) return step;
        }
        if (base > INT64_MAX / 100) return base * 10;
        base *= 10;
    }
}

static const struct {
    int64_t ns;
    int digits;
    const char *name;
} units[] = {{1000000000, 9, "s"}, {1000000, 6, "ms"}, {1000, 3, "us"}, {1, 0, "ns"}};

int tr_render_format_tick(tr_buf *b, int64_t ts, int64_t step, int64_t mag)
{
    if (mag < 0) mag = -mag;
    size_t u = 0;
    while (u + 1 < sizeof units / sizeof *units && mag < units[u].ns) u++;
    /* Enough decimals that neighbouring ticks differ. */
    int dec = 0;
    for (int64_t v = units[u].ns; v > step && dec < units[u].digits; v /= 10) dec++;
    /* Spelled as tr_buf_add_duration spells times (no space), with the step's decimals. */
    int rc = tr_buf_add_fixed(b, ts, units[u].digits, dec);
    if (rc >= 0) rc = tr_buf_adds(b, units[u].name);
    return rc;
}

/* ---- selection ---- */

int tr_render_track_selected(const tr_trace *t, const tr_render_opts *o, uint32_t track)
{
    const tr_track *tk = tr_track_get(t, track);
    const tr_process *p = tr_process_get(t, tk->process);
    if (o->n_ranks) {
        size_t i = 0;
        while (i < o->n_ranks && o->ranks[i] != p->rank) i++;
        if (i == o->n_ranks) return 0;
    }
    if (o->tracks) {
        const char *name = tr_str_get(t, tk->name, NULL);
        if (fnmatch(o->tracks, name, 0) == 0) return 1;
        /* "process/track" lets a glob pick lanes of one process. */
        tr_buf full;
        tr_buf_init(&full, 0);
        int ok = tr_buf_adds(&full, tr_str_get(t, p->name, NULL)) >= 0 &&
                 tr_buf_addc(&full, '/') >= 0 && tr_buf_adds(&full, name) >= 0 &&
                 fnmatch(o->tracks, full.p, 0) == 0;
        tr_buf_fini(&full);
        return ok;
    }
    return 1;
}

int tr_render_process_label(tr_buf *b, const tr_trace *t, uint32_t process)
{
    const tr_process *p = tr_process_get(t, process);
    size_t start = b->len;
    int rc = 0;
    const char *name = tr_str_get(t, p->name, NULL);
    /* Readers often name a process after its rank or pid: say each once. */
    char rank[24], pid[32];
    snprintf(rank, sizeof rank, "rank %d", (int)p->rank);
    snprintf(pid, sizeof pid, "%lld", (long long)p->pid);
    if (p->rank >= 0 && !strstr(name, rank)) rc |= tr_buf_adds(b, rank);
    if (*name) rc |= tr_buf_addf(b, "%s%s", b->len > start ? " \xc2\xb7 " : "", name);
    if (p->pid >= 0 && !strstr(name, pid))
        rc |= tr_buf_addf(b, "%s(pid %s)", b->len > start ? " " : "", pid);
    const char *host = tr_str_get(t, p->host, NULL);
    if (*host) rc |= tr_buf_addf(b, " @%s", host);
    if (b->len == start) rc |= tr_buf_addf(b, "process %u", (unsigned)process);
    return rc < 0 ? TR_FATAL : TR_OK;
}
