/*
** render_impl.h: what the files of render/ share (not public): the canvas
** (a cairo surface writing into a tr_output, pango text), text measured
** without a surface, the PNG writer, marker shapes and colours, time ticks
** and the track selection both pictures apply.
*/
#ifndef TR_RENDER_IMPL_H
#define TR_RENDER_IMPL_H

#include "tr_mem.h"
#include "tr_output.h"
#include "tr_render.h"

#include <cairo.h>
#include <pango/pangocairo.h>
#include <string.h>

/* Marker shapes of instants, one per event name. */
enum {
    TR_SHAPE_CIRCLE = 0,
    TR_SHAPE_SQUARE,
    TR_SHAPE_TRIANGLE_UP,
    TR_SHAPE_TRIANGLE_DOWN,
    TR_SHAPE_DIAMOND,
    TR_SHAPE_CROSS,
    TR_SHAPE_COUNT
};

int tr_render_marker_shape(const char *name, size_t n);
/* ^1 when NAME has one of GT's fixed colours. */
int tr_render_color_is_fixed(const char *name, size_t n);
/*
** ^The K-th colour NAME may take in a picture: K 0 is tr_render_color; then
** shades of a fixed colour, the next entries of the palette, and an endless
** run of generated hues.  ^A picture gives each name the first one no name
** before it took.
*/
uint32_t tr_render_color_alt(const char *name, size_t n, unsigned k);
/* ^1 when text on a fill of RGB should be white. */
int tr_render_fill_is_dark(uint32_t rgb);

/* The colours every picture shares. */
#define TR_RENDER_WHITE     0xffffff
#define TR_RENDER_LANE_ODD  0xf2f2f2 /* every other lane, so lanes read apart */
#define TR_RENDER_INK       0x222222
#define TR_RENDER_GRID      0xb0b0b0
#define TR_RENDER_FAINT_INK 0x666666
#define TR_RENDER_WARN_INK  0xa04000 /* a line that says the picture may mislead */

#define TR_RENDER_FONT "DejaVu Sans"

typedef struct tr_canvas {
    int format;        /* enum tr_render_format */
    int width, height; /* pixels at the dpi */
    double px_per_pt;  /* dpi / 72 */
    cairo_surface_t *surface;
    cairo_t *cr;
    PangoLayout *layout;
    PangoFontDescription *font;
    tr_output *out;
    tr_error write_err; /* why the last write into OUT failed */
    int write_failed;
} tr_canvas;

/* ^Opens PATH and a surface of W x H pixels at DPI, filled white.  ^TR_OK or < 0. */
int tr_canvas_open(tr_canvas *c, int format, const char *path, int w, int h, double dpi,
                   tr_error *e);
/* ^Finishes the surface, writes it and renames the output into place; closes C. */
int tr_canvas_commit(tr_canvas *c, tr_error *e);
/* ^Writes the opaque image surface S as an 8-bit RGB PNG into OUT.  ^TR_OK, or < 0 with E. */
int tr_png_write(cairo_surface_t *s, tr_output *out, tr_error *e);
/* ^Drops everything, removing the temporary file.  ^Safe on a closed canvas. */
void tr_canvas_abort(tr_canvas *c);

void tr_canvas_rgb(tr_canvas *c, uint32_t rgb, double alpha);
void tr_canvas_rect(tr_canvas *c, double x, double y, double w, double h, uint32_t rgb);
/* ^A marker of SHAPE centred at X, Y with radius R. */
void tr_canvas_marker(tr_canvas *c, int shape, double x, double y, double r, uint32_t rgb);

enum { TR_ALIGN_LEFT = 0, TR_ALIGN_CENTER, TR_ALIGN_RIGHT };

/*
** Text in SIZE_PT points, top-left at X, Y (or centred / right-aligned on X),
** ellipsized to MAX_W pixels when MAX_W > 0.  ^Returns the width drawn.
*/
double tr_canvas_text(tr_canvas *c, const char *s, size_t n, double x, double y, double size_pt,
                      int bold, double max_w, int align, uint32_t rgb);

/* Text measured without a surface, as tr_canvas_text lays it out. */
typedef struct tr_measure {
    PangoContext *ctx;
    PangoLayout *layout;
    PangoFontDescription *font;
    double px_per_pt;
} tr_measure;

/* ^TR_OK, or TR_FATAL when out of memory. */
int tr_measure_open(tr_measure *m, double dpi);
/* ^The width in pixels of the N bytes at S in SIZE_PT points. */
double tr_measure_text(tr_measure *m, const char *s, size_t n, double size_pt, int bold);
/* ^Safe on a closed or failed measure. */
void tr_measure_close(tr_measure *m);

/* ---- time axis ---- */

/* ^A tick step of 1, 2 or 5 x 10^k ns giving at most MAX_TICKS ticks over SPAN ns. */
int64_t tr_render_tick_step(int64_t span, int max_ticks);
/* ^Appends TS as a tick label ("1.25ms") with the unit and decimals fit for ticks of STEP near MAG.
 */
int tr_render_format_tick(tr_buf *b, int64_t ts, int64_t step, int64_t mag);

/* ---- selection ---- */

/* ^1 when track TRACK passes O's --tracks glob and --ranks list. */
int tr_render_track_selected(const tr_trace *t, const tr_render_opts *o, uint32_t track);
/* ^The label of a process: "rank N · name (pid P) @host", parts present only. */
int tr_render_process_label(tr_buf *b, const tr_trace *t, uint32_t process);

/* The renderers, called by tr_render with the output format already known. */
int tr_timeline_render(const tr_trace *t, const tr_render_opts *o, const char *path, int format,
                       tr_render_stats *st, tr_error *e);
int tr_flame_render(const tr_trace *t, const tr_render_opts *o, const char *path, int format,
                    tr_render_stats *st, tr_error *e);
/* The stack tree (stree.c). */
int tr_stree_render(const tr_trace *t, const tr_render_opts *o, const char *path, int format,
                    tr_render_stats *st, tr_error *e);
/* The heat map, access plot and op mix (plots.c). */
int tr_plot_render(const tr_trace *t, const tr_render_opts *o, const char *path, int format,
                   tr_render_stats *st, tr_error *e);

#endif
