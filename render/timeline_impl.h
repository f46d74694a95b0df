/*
** timeline_impl.h: what the files of the timeline share (not public).  The
** layout is made once (timeline_layout.c: lanes and sizes; legend.c: the
** legend and its colours; labels.c: every text placed in or beside the plot)
** and read by the drawing (timeline.c).
*/
#ifndef TR_TIMELINE_IMPL_H
#define TR_TIMELINE_IMPL_H

#include "render_impl.h"
#include "tr_map.h"
#include "tr_sorter.h"
#include "tr_stream.h"

#define TL_ID_PT     5.5      /* instruction ids beside markers */
#define TL_GUESS_RGB 0xf0b400 /* the mark on lanes placed by a guess: amber, striped */
/* Flow arrows are drawn while there is at most one (distinct ends) per this many columns. */
#define TL_FLOW_MIN_PX 4

/* ---- names and their totals: the legend's source and the colours drawn ---- */

typedef struct tl_name {
    tr_str name;
    uint32_t rgb; /* as drawn: the legend's colour of its text */
    int64_t dur;
    uint64_t count;
} tl_name;

typedef struct tl_names {
    tr_map index; /* string id -> row of items */
    tr_vec items; /* tl_name */
} tl_names;

void tl_names_init(tl_names *m);
void tl_names_fini(tl_names *m);
/* ^The entry of NAME, added if absent; NULL when out of memory. */
tl_name *tl_names_add(tl_names *m, tr_str name);
/* ^The entry of NAME, or NULL. */
const tl_name *tl_names_find(const tl_names *m, tr_str name);

/* ---- colour keys: what a slice is coloured and counted as (opkeys.c) ---- */

#define TL_KEYS_MAX 6 /* stripes of one slice at most */

typedef struct tl_key_span {
    size_t off, len;
} tl_key_span;

typedef struct tl_keys {
    tr_map cats;    /* category id -> 1 when GT worker round trips */
    tr_map by_name; /* slice name id -> key (GT worker names) */
    tr_map by_text; /* hash of a text made here -> its row in spans */
    tr_vec spans;   /* tl_key_span: texts made here, key tr_str_count + row */
    tr_buf text;
} tl_keys;

void tl_keys_init(tl_keys *k);
void tl_keys_fini(tl_keys *k);
/*
** ^The keys of a slice named NAME in category CAT with ARGS in KEYS
** (TL_KEYS_MAX room): its name, or the families of the commands of a GT
** worker round trip.  ^Returns how many
** (1 or more), -1 when out of memory.
*/
int tl_slice_keys(tr_timeline_layout *l, tr_str name, tr_str cat, uint32_t args, uint32_t *keys);
/* ^The text of KEY (a string id of the trace or one made by the keys). */
const char *tl_key_text(const tr_timeline_layout *l, uint32_t key, size_t *len);

/* ---- the legend ---- */

typedef struct tl_entry {
    tr_str name; /* one of the ids of its text */
    uint32_t rgb;
    int64_t dur;
    uint64_t count;
} tl_entry;

typedef struct tl_legend {
    tl_entry *entries; /* slice names by time, then marker names by count */
    size_t n_slices, n_markers;
    size_t shown_slices, shown_markers;
    uint32_t *by_text; /* entry indexes sorted by text */
    int below;         /* under the axis in columns, else one column right of the plot */
    double x, y, w, h; /* the box it fills */
    double col_w, line;
    int cols, rows;
    size_t more; /* names left out */
} tl_legend;

/* ---- labels: text placed in or beside the plot ---- */

enum { TL_LABEL_LANE = 0, TL_LABEL_HEADER, TL_LABEL_SLICE, TL_LABEL_ID, TL_LABEL_COUNTER };

typedef struct tl_label {
    double x0, y0, x1, y1; /* the box the text takes */
    double x, max_w, pt;   /* where and how tr_canvas_text draws it */
    size_t off, len;       /* text in the layout's label_text */
    uint32_t rgb;
    int kind, align, bold;
} tl_label;

/* ---- the time axis: one segment, or one per cluster of far-apart inputs ---- */

#define TL_SEGS_MAX 8 /* clusters drawn each at its own scale, at most */

typedef struct tl_segment {
    int64_t t0, t1; /* the times it shows */
    double x0, x1;  /* the pixel columns it spans */
} tl_segment;

/* ---- lanes ---- */

/* Per-track facts of the first pass (timeline_layout.c). */
typedef struct tl_track_scan {
    uint64_t events; /* slices and instants in the window */
    int64_t busy;    /* time its top-level slices take in the window */
    int any;         /* any event in the window */
    int instants;    /* instants in the window */
    int depth;       /* deepest slice + 1 */
    int counter;     /* has counter values */
    double cmin, cmax;
    int64_t first, last;
} tl_track_scan;

typedef struct tl_lane {
    uint32_t track; /* TR_NONE: the summary lane */
    uint32_t process;
    int rows;         /* slice rows the lane shows (0: markers only) */
    int depth;        /* rows its slices would need */
    int has_instants; /* a marker strip sits on top of the rows */
    int is_counter, has_counter;
    int thin;     /* almost empty: drawn as a thin band */
    int header;   /* a process header band sits above it */
    int guess;    /* its input was placed on the timeline by a guess */
    double units; /* its height in rows */
    double y, h, row_h;
    double strip; /* height of the marker strip; rows start at y + strip */
    uint32_t bg;
    double cmin, cmax; /* counter range */
    size_t first_row;  /* index of its first row among all rows (busy bars) */
} tl_lane;

/* ---- what the second pass keeps to draw (timeline_pass.c): bounded by pixels ---- */

/* Slices narrower than a pixel: per lane row and pixel column. */
typedef struct tl_busy_row {
    float *busy;   /* ns busy per column */
    uint32_t *rgb; /* colour of the longest slice in the column */
    float *longest;
} tl_busy_row;

/* A slice a pixel wide or more, drawn as one stripe per key. */
typedef struct tl_rect {
    double x0, x1;
    uint32_t lane;
    int row, nk;
    uint32_t keys[TL_KEYS_MAX];
} tl_rect;

typedef struct tl_pixels {
    int cols;
    tl_busy_row *rows;      /* per lane row, allocated on first use */
    tr_vec rects;           /* tl_rect, in the order met */
    double **counter;       /* per lane: the peak value per column (NAN: none), NULL when none */
    double *before;         /* per lane: the counter level the window starts at */
    double *sample_x;       /* per lane: the column of its last sample mark */
    tr_vec samples;         /* tl_sample_mark, in the order met */
    tr_vec globals;         /* double: x of each global instant's line */
    struct tl_marker *runs; /* per lane and shape: the marker being gathered */
    tr_vec markers;         /* tl_marker, as drawn */
    double *row_end;        /* per lane row: where the last slice label placed there ends */
    /*
    ** The flow ends, joined to their events by sorting (each a tr_sorter
    ** within FLOW_BUDGET / 3, spilled under FLOW_TMPDIR): WANT holds a
    ** TL_WANT key per end, POS a tl_pos per event an end names, met in the
    ** second pass; at the end both are merged by event and the points
    ** sorted back by end (timeline_pass.c), so what the ends keep is set by
    ** the budget, not by the flows.
    */
    tr_sorter *want, *pos;
    size_t n_flows;
    size_t flow_budget;
    const char *flow_tmpdir;
    uint8_t *wanted[2]; /* per seq of slices, instants: a bit set when a flow end names it */
    size_t n_wanted[2]; /* bytes of each */
    tr_vec arrows;      /* tl_arrow: those drawn (at most one per TL_FLOW_MIN_PX columns) */
    int any_samples;    /* a sample was met (its marks are one path, filled even when empty) */
    tr_render_stats st;
} tl_pixels;

/*
** A flow end to fill, as one sortable word: the event's kind (slice or
** instant) in the top bit, its seq below, then END (flow * 2 + 0 from,
** 1 to), which needs fewer than 2^30 flows.
*/
#define TL_WANT(kind, seq, end)                                                                    \
    ((uint64_t)((kind) == TR_EV_INSTANT) << 63 | (uint64_t)(uint32_t)(seq) << 31 | (end))
#define TL_WANT_EVENT(w) ((w) >> 31)
#define TL_WANT_END(w)   ((uint32_t)((w)&0x7fffffff))
#define TL_FLOWS_MAX     ((size_t)1 << 30)

typedef struct tl_sample_mark {
    double x;
    uint32_t lane;
} tl_sample_mark;

struct tr_timeline_layout {
    const tr_trace *t;
    unsigned reads_mark; /* tr_trace_read_failures(t) as the layout began */
    tr_render_opts o;
    int W, H;
    double px_per_pt;
    int64_t t0, t1;      /* the window drawn */
    int64_t first, last; /* the events' span */
    double px, pw;       /* plot left and width */
    double py0, py1;     /* plot top and bottom */
    double label_w;
    double header_h; /* 0: process names go into lane labels */
    double title_y, subtitle_y, warning_y, axis_h;
    double title_pt, text_pt;
    tl_lane *lanes;
    size_t n_lanes;
    size_t total_rows;
    uint32_t *lane_of; /* per track: lane index or TR_NONE */
    size_t summarised;
    int64_t max_bytes;                                  /* largest instant size in the window */
    int flows_hidden;                                   /* arrows left out as too dense */
    size_t n_slices, n_instants, n_counters, n_samples; /* in the window, on lanes */
    tl_names slice_names, instant_names;                /* slice names are keys (tl_slice_keys) */
    tl_keys keys;
    tl_legend legend;
    tr_vec labels;     /* tl_label */
    tr_buf label_text; /* the labels' text */
    tr_buf warning;    /* far-apart inputs, said under the title; empty when none */
    tl_segment segs[TL_SEGS_MAX];
    size_t n_segs;           /* 1, or the clusters of a broken axis */
    double guess_w;          /* width of the mark on the lanes of inputs placed by a guess */
    uint8_t *sel;            /* per track: selected (first pass only) */
    tl_track_scan *scan;     /* per track (first pass only) */
    size_t n_scan, cap_scan; /* tracks sel and scan hold, and their room */
    tr_measure m;            /* text measures while placing */
    int measure_open;
    tl_pixels px_state; /* the second pass */
};

/* ^1 when the lane's slices past its rows share its last row (no labels there). */
static inline int tl_lane_collapsed(const tl_lane *ln)
{
    return ln->depth > ln->rows;
}

/* ---- the second pass (timeline_pass.c) ---- */

void tl_pass_init(tr_timeline_layout *l);
/* ^Readies the second pass once the lanes are placed. */
int tl_pass_open(tr_timeline_layout *l, tr_error *e);
void tl_pass_fini(tr_timeline_layout *l);

/* An arrow as drawn, from the end of its first event to the start of its second. */
typedef struct tl_arrow {
    double x0, y0, x1, y1;
} tl_arrow;

typedef int (*tl_arrow_fn)(void *ctx, const tl_arrow *a);
/*
** ^Calls FN for every arrow drawn (an end in the plot, once per pixel ends,
** as tr_timeline_finish kept them); FN returns TR_OK to go on, a failure or
** 1 (enough) to stop.
*/
int tl_flows(const tr_timeline_layout *l, tl_arrow_fn fn, void *ctx);

/* ---- legend.c ---- */

/* ^Builds the legend from the name totals and gives every name its colour.  ^TR_OK or TR_FATAL. */
int tl_legend_build(tr_timeline_layout *l, tr_error *e);
/*
** ^Decides where the legend goes for a plot P pixels tall (with the axis)
** starting at LEFT: one column beside it when it fits (returns 0), else rows
** under the axis (returns their height).
*/
double tl_legend_below_height(tr_timeline_layout *l, tr_measure *m, double p, double left);
/* ^Width of the legend column right of the plot (0 when it goes below or is off). */
double tl_legend_side_width(const tr_timeline_layout *l);
/* ^Puts the legend's top left corner at X, Y. */
void tl_legend_place(tr_timeline_layout *l, double x, double y);
void tl_legend_free(tl_legend *g);
int tl_legend_draw(tr_timeline_layout *l, tr_canvas *c);

/* ---- labels.c ---- */

/* A marker as drawn: instants of one shape closer than a pixel on a lane are one. */
typedef struct tl_marker {
    double x, y, r, top;
    int shape;
    uint32_t lane;
    uint32_t rgb;
    int64_t seq; /* GT instruction id of the first instant, -1 = none */
} tl_marker;

typedef int (*tl_marker_fn)(void *ctx, const tl_marker *m);
/* ^Calls FN for every marker of the window, merged as drawn; FN's failure stops it. */
int tl_markers(const tr_timeline_layout *l, tl_marker_fn fn, void *ctx);
/* ^Adds instant EV to the markers being gathered (the second pass).  ^TR_OK or TR_FATAL. */
int tl_marker_add(tr_timeline_layout *l, const tl_lane *ln, uint32_t li, const tr_event_rec *ev);
/* ^Ends the gathering: the markers still open are added.  ^TR_OK or TR_FATAL. */
int tl_markers_end(tr_timeline_layout *l);
/* ^Places lane names, process headers and counter peaks. */
int tl_labels_place(tr_timeline_layout *l, tr_measure *m, tr_error *e);
/* ^Places the name of slice EV (at DEPTH, keys KEYS) inside it when it fits.  ^TR_OK or TR_FATAL.
 */
int tl_label_slice(tr_timeline_layout *l, const tr_event_rec *ev, int depth, const uint32_t *keys,
                   int nk);
/* ^Places (--annotate) instruction ids beside the markers.  ^TR_OK or TR_FATAL. */
int tl_labels_ids(tr_timeline_layout *l);
/* ^The lane's label text (process rank or header, name, guess note) appended to B. */
int tl_lane_label(const tr_timeline_layout *l, const tl_lane *ln, tr_buf *b);
void tl_labels_draw(const tr_timeline_layout *l, tr_canvas *c);

#endif
