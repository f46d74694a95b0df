/*
** tr_render.h: timelines and flame graphs of a frozen trace, drawn with
** cairo and pango into PNG, SVG or PDF.
**
** The renderer reads the model only; it prints nothing and never exits.
** Output goes through tr_output (a temporary file renamed on success).  A
** timeline lays out one lane per track, grouped by process; a flame graph
** merges the trace's stack samples.  The layout is computed once and shared
** by every surface, so a test can ask where something was drawn
** (tr_timeline_x, tr_timeline_row, the parts and label boxes) and probe that
** pixel of the PNG.  A picture is as tall as its content needs (lanes sized
** by their depth, a flame graph by its deepest stack), at most height_in,
** unless the height was given.
**
** Level of detail: a slice narrower than a pixel is not drawn on its own;
** it adds to a busy bar per pixel column and lane row whose height says how
** much of the column was busy.  Markers of one shape closer than a pixel (or
** half their radius) on one lane are drawn once.  So the cost grows with
** events + pixels, not with overdraw.
*/
#ifndef TR_RENDER_H
#define TR_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "tr_analysis.h"
#include "tr_error.h"
#include "tr_stream.h"
#include "tr_trace.h"

enum tr_render_kind {
    TR_RENDER_TIMELINE = 0,
    TR_RENDER_FLAME,
    TR_RENDER_ICICLE,
    TR_RENDER_HEATMAP, /* units x time: I/O bytes, else busy share */
    TR_RENDER_ACCESS,  /* per file: offset against time of reads and writes */
    TR_RENDER_OPS,     /* per lane: top-level time by name as a stacked bar */
    TR_RENDER_STREE    /* the hang prefix tree of the members' last stacks (tr_stree.h) */
};
enum tr_render_format { TR_RENDER_PNG = 0, TR_RENDER_SVG, TR_RENDER_PDF };
/* What a flame frame's colour is a hash of. */
enum tr_flame_color { TR_FLAME_BY_NAME = 0, TR_FLAME_BY_MODULE };

typedef struct tr_render_opts {
    int kind;                   /* enum tr_render_kind */
    double width_in, height_in; /* picture size in inches (16 x 10, as GT's visualize) */
    int height_given;           /* 1: height_in exactly; 0 (default): as tall as the content needs,
                                   at most height_in */
    double dpi;                 /* pixels per inch of a PNG (150); vector outputs keep the inches */
    int64_t since, until;       /* time window from the origin, when has_since / has_until */
    int has_since, has_until;
    const char *tracks;   /* fnmatch glob on track names (or "process/track"), NULL = all */
    const int32_t *ranks; /* keep processes of these ranks only; n_ranks 0 = all */
    size_t n_ranks;
    const char *title; /* NULL = made from the trace */
    int no_legend;
    int annotate;        /* instruction ids (GT seq) on markers and slices */
    int reverse;         /* flame: stacks leaf first (the callee view) */
    int per_thread;      /* flame: a root frame per thread instead of one merged graph */
    int color_by;        /* enum tr_flame_color */
    double min_width_px; /* flame: frames narrower than this are left out (0.1) */
    size_t max_lanes;    /* timeline: lane cap, 0 = as many as the height allows */
} tr_render_opts;

/*
** ^Fills O with the defaults: timeline, 16 in wide and as tall as the content
** needs up to 10 in, at 150 dpi, min width 0.1 px.
*/
void tr_render_opts_init(tr_render_opts *o);

/* ^The format PATH's extension asks for (.png, .svg, .pdf, any case), or -1. */
int tr_render_format_for_path(const char *path);

/* What was drawn, for reports and tests. */
typedef struct tr_render_stats {
    int width_px, height_px; /* the picture in pixels at the dpi */
    size_t lanes;            /* timeline lanes drawn (the summary lane included) */
    size_t lanes_summarised; /* tracks over the cap folded into the summary lane */
    size_t slices_drawn;     /* slices drawn as their own rectangle */
    size_t slices_merged;    /* sub-pixel slices folded into busy bars */
    size_t markers_drawn, markers_merged;
    size_t flows_drawn;
    size_t frames_drawn, frames_hidden; /* flame frames drawn / narrower than min_width_px */
    uint64_t samples;                   /* flame: samples merged */
} tr_render_stats;

/*
** tr_render: draw T as O asks into PATH
** ^A timeline, a flame graph or icicle, or one of the plots: a heat map of
** units (processes when the lanes drawn span several, else lanes) against
** time, whose cells hold the bytes of top-level reads and writes or, in a
** trace without them, the share of the unit's lanes that was busy; the
** access plot of the four files that moved the most bytes (offset against
** time, reads blue, writes red, from tr_io_accesses); the op mix (per lane,
** its top-level slices' time by name as one bar whose full width is the
** window, the twelve names with the most time coloured, the rest grey).
** ^The stack tree (STAT's 2D view, tr_stree_build with default options) is
** an icicle whose boxes span their members' share of the width, grey where
** every member passes and warmer where fewer do; it needs two members.  ^A plot whose data the
** trace lacks is TR_E_USAGE.
** ^FORMAT is an enum tr_render_format; -1 takes it from PATH's extension
** (TR_E_USAGE when that is none of .png, .svg, .pdf).  ^The picture is
** written to a temporary file and renamed over PATH only on success.  ^A
** flame graph as SVG is written directly, with a title per frame (samples and
** percent), click to zoom and a search that highlights matches; everything
** else goes through cairo.  ^A flame graph of a trace without stack samples
** is TR_E_USAGE.  ^STATS may be NULL.
*/
int tr_render(const tr_trace *t, const tr_render_opts *o, const char *path, int format,
              tr_render_stats *stats, tr_error *e);

/*
** tr_render_diff: the diff of two runs as bars
** ^Draws D (tr_analysis.h) into PATH: per kind of row (ops, GPU kernels,
** stack functions, I/O per file and per rank) its largest changes, each a
** grey bar for the control run over a bar in the name's colour for the
** test run, on the kind's scale, with the change beside.  ^O gives the
** width, dpi, title and legend; FORMAT and STATS as tr_render's.
*/
int tr_render_diff(const tr_diff *d, const tr_render_opts *o, const char *path, int format,
                   tr_render_stats *stats, tr_error *e);

/* ---- colours: stable across pictures ---- */

/*
** tr_render_color: the colour of a name, as 0xRRGGBB
** ^Equal names give equal colours in every picture.  ^GT's op names take the
** colours of GT's own visualizer (matmul e74c3c, add 3498db, ...), matched
** without case; GT's command families (MatMul, BinaryOp, UnaryOp, ...) have
** distinct fixed colours, shared by their worker forms (WorkerBinaryOp); any
** other name is a hash into a fixed palette.
*/
uint32_t tr_render_color(const char *name, size_t n);
/* ^The flame-graph colour (flamegraph.pl's warm "hot" range) of a name. */
uint32_t tr_render_flame_color(const char *name, size_t n);

/* ---- what a picture holds where ---- */

/*
** The parts of a picture: the band of rows each takes (titles and notes span
** the width), and boxes of text placed in or beside the plot.  A row of the
** picture no part takes is empty; tests keep that share small.
*/
enum tr_part_kind {
    TR_PART_TITLE = 0, /* the title line */
    TR_PART_NOTE,      /* the subtitle, or a warning line under it */
    TR_PART_PLOT,      /* a lane (its process header included), or a row of flame frames */
    TR_PART_AXIS,      /* the time axis: ticks, their labels and its caption */
    TR_PART_LEGEND,
    TR_PART_DETAILS, /* the flame SVG's line that names the frame under the pointer */
    TR_PART_LABEL    /* a label's box */
};

typedef struct tr_render_box {
    double x0, y0, x1, y1; /* pixels of the PNG, [x0, x1) x [y0, y1) */
    int kind;              /* enum tr_part_kind */
} tr_render_box;

/* ---- the timeline layout, as drawn ---- */

typedef struct tr_timeline_layout tr_timeline_layout;

/*
** ^Lays out T's timeline for O (lanes, rows, time scale) in pixels of the PNG.
** ^TR_OK, or TR_FATAL when out of memory.
*/
int tr_timeline_layout_new(const tr_trace *t, const tr_render_opts *o, tr_timeline_layout **out,
                           tr_error *e);
void tr_timeline_layout_free(tr_timeline_layout *l);
/*
** A timeline from events met one at a time, twice, in tr_iter's order (a
** stream's, tr_stream.h): what tr_timeline_layout_new does with the model.
** ^tr_timeline_stream_new starts a layout of T (whose tracks, processes and
** strings are read; its event tables are not); ^tr_timeline_scan meets each
** event (a slice with its nesting DEPTH) for the first pass; ^tr_timeline_flow
** takes each flow (ends by kind and seq, as a stream gives them) before the
** second pass; ^tr_timeline_place places lanes, legend and axis;
** ^tr_timeline_add meets each event again, in the same order, and keeps
** what is drawn per pixel; ^tr_timeline_finish ends the pass.  ^Each
** returns TR_OK, or TR_FATAL when out of memory (a spill's failure as
** tr_sorter's).  ^The memory held grows with the pixels, tracks and names,
** and by a bit per event for the flow ends, not with the events or flows:
** ^after tr_timeline_spill the flow ends go through external sorters of
** BUDGET bytes in all, spilled under TMPDIR (without it they stay in
** memory).
*/
int tr_timeline_stream_new(const tr_trace *t, const tr_render_opts *o, tr_timeline_layout **out,
                           tr_error *e);
void tr_timeline_spill(tr_timeline_layout *l, size_t budget, const char *tmpdir);
int tr_timeline_scan(tr_timeline_layout *l, const tr_event_rec *ev, int depth, tr_error *e);
int tr_timeline_flow(tr_timeline_layout *l, const tr_flow *f, tr_error *e);
int tr_timeline_place(tr_timeline_layout *l, tr_error *e);
int tr_timeline_add(tr_timeline_layout *l, const tr_event_rec *ev, int depth, tr_error *e);
int tr_timeline_finish(tr_timeline_layout *l, tr_error *e);
/* ^Draws finished layout L into PATH as tr_render does; STATS as tr_render's (not NULL). */
int tr_timeline_draw(tr_timeline_layout *l, const char *path, int format, tr_render_stats *stats,
                     tr_error *e);
/* ^The pixel column of time TS (fractional; outside the plot for times outside the window). */
double tr_timeline_x(const tr_timeline_layout *l, int64_t ts);
/* ^The pixel columns the plot spans: the window's start and end. */
void tr_timeline_plot(const tr_timeline_layout *l, double *x0, double *x1);
/*
** ^Fills the pixel rows [*Y0, *Y1) of depth DEPTH of TRACK's lane and the lane's
** background colour (0xRRGGBB, what an idle gap shows) and returns 1, or
** returns 0 when the track has no slice rows of its own (filtered out,
** summarised, or markers only).  ^Depths past the lane's last row share it.
*/
int tr_timeline_row(const tr_timeline_layout *l, uint32_t track, int depth, double *y0, double *y1,
                    uint32_t *bg);
/*
** ^The names the legend shows (slice names by time, then marker names by
** count, as many as fit), and the I-th of them (NULL past the end) and its
** colour (0 past the end).  ^No two entries share a colour: a name keeps
** tr_render_color's colour unless an earlier one (GT's fixed colours first,
** then legend order) took it, and moves on to a free one then.
*/
size_t tr_timeline_legend_count(const tr_timeline_layout *l);
const char *tr_timeline_legend_name(const tr_timeline_layout *l, size_t i);
uint32_t tr_timeline_legend_color(const tr_timeline_layout *l, size_t i);
/* ^The colour slices (else markers) named NAME are drawn in; tr_render_color's for unknown names.
 */
uint32_t tr_timeline_color(const tr_timeline_layout *l, const char *name, size_t n);
/*
** ^The colour slice ROW is drawn in: its name's, or for a GT worker round trip
** the colour of the client operation it carries (a batch of several commands
** is drawn in stripes, one per command: this is the first's).
*/
uint32_t tr_timeline_slice_color(const tr_timeline_layout *l, size_t row);
/* ^The picture's size in pixels. */
void tr_timeline_size(const tr_timeline_layout *l, int *w, int *h);
/* ^The parts of the picture, and the I-th one; 0 past the end. */
size_t tr_timeline_part_count(const tr_timeline_layout *l);
int tr_timeline_part(const tr_timeline_layout *l, size_t i, tr_render_box *box);
/*
** ^The labels placed (lane names, process headers, slice names, counter
** peaks, instruction ids), and the box of the I-th; 0 past the end.  ^No two
** boxes overlap: a label that would overprint another is left out.
*/
size_t tr_timeline_label_count(const tr_timeline_layout *l);
int tr_timeline_label_box(const tr_timeline_layout *l, size_t i, tr_render_box *box);
/*
** ^The warning line under the title, "" when none: inputs whose events lie
** over 100 times their own spans apart, each then a sliver of the picture.
*/
const char *tr_timeline_warning(const tr_timeline_layout *l);
/*
** ^The segments of the time axis: one, or, when inputs lie that far apart
** and no window was given, one per cluster of inputs (at most 8), each at
** its own scale with a break mark between.  ^The I-th shows times [*T0, *T1]
** in pixel columns [*X0, *X1]; 0 past the end.  ^tr_timeline_x is linear
** within a segment and across the break after it.
*/
size_t tr_timeline_segment_count(const tr_timeline_layout *l);
int tr_timeline_segment(const tr_timeline_layout *l, size_t i, int64_t *t0, int64_t *t1, double *x0,
                        double *x1);
/*
** ^Fills BOX with the mark drawn on TRACK's lane when its input was placed on
** the timeline by a guess (tr_align_is_guess: a GT log read in this
** machine's zone, a dump without a clock put at zero) and returns 1; else 0.
*/
int tr_timeline_guess_mark(const tr_timeline_layout *l, uint32_t track, tr_render_box *box);

/* ---- the flame graph layout, as drawn ---- */

typedef struct tr_flame_layout tr_flame_layout;

/*
** ^Builds T's flame graph (or icicle) for O and lays it out for FORMAT (the
** SVG keeps a line for details).  ^The height follows the deepest stack
** drawn; ^stacks deeper than fit are cut, with a mark on the frames cut.
** ^TR_E_USAGE without stack samples (in the window and lanes selected).
*/
int tr_flame_layout_new(const tr_trace *t, const tr_render_opts *o, int format,
                        tr_flame_layout **out, tr_error *e);
void tr_flame_layout_free(tr_flame_layout *l);
/*
** Where a flame graph's samples come from: fills R with the next event
** (others than samples are skipped) and returns TR_OK, or TR_END, or a
** failure (said in the source's error).
*/
typedef int (*tr_flame_next_fn)(void *ctx, tr_event_rec *r);
/*
** ^tr_flame_layout_new with the samples from NEXT (CTX) instead of T's
** tables, met once, in tr_iter's order (a stream's, tr_stream.h): T gives
** the tracks, stacks and frames.  ^A failure of NEXT is returned with ERR
** (the source's error, NULL: none) copied into E.  ^The memory held grows
** with the distinct stacks (and threads), not with the samples.
*/
int tr_flame_layout_from(const tr_trace *t, const tr_render_opts *o, int format,
                         tr_flame_next_fn next, void *ctx, const tr_error *err,
                         tr_flame_layout **out, tr_error *e);
/* ^Draws L into PATH as tr_render does; STATS as tr_render's (not NULL). */
int tr_flame_draw(const tr_flame_layout *l, const char *path, tr_render_stats *stats, tr_error *e);
void tr_flame_size(const tr_flame_layout *l, int *w, int *h);
size_t tr_flame_part_count(const tr_flame_layout *l);
int tr_flame_part(const tr_flame_layout *l, size_t i, tr_render_box *box);
/* ^How many stack levels are cut off (0 when all fit). */
int tr_flame_levels_cut(const tr_flame_layout *l);

#endif
