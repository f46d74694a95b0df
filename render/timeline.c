/*
** timeline.c: one lane per track, grouped by process, time left to right.
**
** The layout pass reads every table once (which tracks have events in the
** window, how deep their slices nest, counter ranges, name totals for the
** legend) and places lanes; the drawing pass reads them again and draws.  A
** slice a pixel wide or more is a rectangle; a narrower one adds its time
** to its row's busy bar for that pixel column (level of detail), so a lane of
** ten million slices costs ten million additions and a few thousand
** rectangles.  A lane with instants has a marker strip above its slice rows.
*/
#include "render_impl.h"

#include "tr_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Sizes in inches, so that pictures look alike at any dpi. */
#define ROW_MAX_IN        0.4   /* a lane row at its tallest */
#define STRIP_ROWS        0.6   /* the marker strip over a lane's slices, in rows */
#define SUMMARY_ROWS      6     /* the summary lane is as tall as this many rows */
#define ROW_NESTED_MIN_IN 0.035 /* below this, deep slices share their lane's last row */
#define LANE_MIN_IN       0.007 /* below this, lanes over the cap are summarised */
#define LEGEND_MAX_IN     2.4
#define LABEL_MIN_IN      0.9
#define LABEL_MAX_IN      2.4
#define MARGIN_IN         0.12
#define BUSY_MIN_FRAC     0.3 /* a busy bar is at least this tall, so a lone instant-long op shows */
#define MAX_LEGEND        40
#define MAX_FLOWS_DRAWN   200000
#define ID_PT             5.5 /* instruction ids beside markers */

/* ---- a small map from string id to per-name totals ---- */

typedef struct name_stat {
    tr_str name; /* TR_NONE = empty slot */
    uint32_t rgb;
    int64_t dur;
    uint64_t count;
} name_stat;

typedef struct name_map {
    name_stat *slots;
    size_t cap, n;
} name_map;

static void map_fini(name_map *m)
{
    tr_free(m->slots);
    memset(m, 0, sizeof *m);
}

static size_t map_slot(const name_map *m, tr_str name)
{
    size_t i = (name * 2654435761u) & (m->cap - 1);
    while (m->slots[i].name != TR_NONE && m->slots[i].name != name) i = (i + 1) & (m->cap - 1);
    return i;
}

/* ^The entry of NAME, added (with its colour) if absent; NULL when out of memory. */
static name_stat *map_get(name_map *m, const tr_trace *t, tr_str name)
{
    if (m->n * 2 >= m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        name_stat *slots = tr_malloc(cap * sizeof *slots);
        if (!slots) return NULL;
        for (size_t i = 0; i < cap; i++) slots[i].name = TR_NONE;
        name_map bigger = {slots, cap, m->n};
        for (size_t i = 0; i < m->cap; i++)
            if (m->slots[i].name != TR_NONE)
                slots[map_slot(&bigger, m->slots[i].name)] = m->slots[i];
        tr_free(m->slots);
        *m = bigger;
    }
    name_stat *s = &m->slots[map_slot(m, name)];
    if (s->name == TR_NONE) {
        size_t n;
        const char *p = tr_str_get(t, name, &n);
        memset(s, 0, sizeof *s);
        s->name = name;
        s->rgb = tr_render_color(p, n);
        m->n++;
    }
    return s;
}

/* ---- the layout ---- */

typedef struct lane {
    uint32_t track; /* TR_NONE: the summary lane */
    uint32_t process;
    int rows;         /* slice rows the lane shows (0: markers only) */
    int depth;        /* rows its slices would need */
    int has_instants; /* a marker strip sits on top of the rows */
    int is_counter;
    int has_counter;
    int header; /* a process header band sits above it */
    double y, h, row_h;
    double strip; /* height of the marker strip; rows start at y + strip */
    uint32_t bg;
    double cmin, cmax; /* counter range */
    size_t first_row;  /* index of its first row among all rows (busy bars) */
} lane;

struct tr_timeline_layout {
    const tr_trace *t;
    tr_render_opts o;
    int W, H;
    double px_per_pt;
    int64_t t0, t1;      /* the window drawn */
    int64_t first, last; /* the events' span */
    double px, pw;       /* plot left and width */
    double py0, py1;     /* plot top and bottom */
    double scale;        /* pixels per ns */
    double label_w;
    double legend_x, legend_w;
    double header_h; /* 0: process names go into lane labels */
    double title_y, subtitle_y;
    double title_pt, text_pt;
    lane *lanes;
    size_t n_lanes;
    size_t total_rows;
    uint32_t *lane_of; /* per track: lane index or TR_NONE */
    size_t summarised;
    int64_t max_bytes;                                  /* largest instant size in the window */
    size_t n_slices, n_instants, n_counters, n_samples; /* in the window, on lanes */
    name_map slice_names, instant_names;
    name_stat *legend; /* slice names then marker names, one entry per text, sorted */
    size_t n_legend_slices, n_legend_instants;
    size_t shown_slices, shown_instants; /* legend entries that fit */
};

/* Natural order: "worker 2" before "worker 10". */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
            while (*a == '0') a++;
            while (*b == '0') b++;
            size_t na = 0, nb = 0;
            while (a[na] >= '0' && a[na] <= '9') na++;
            while (b[nb] >= '0' && b[nb] <= '9') nb++;
            if (na != nb) return na < nb ? -1 : 1;
            int c = memcmp(a, b, na);
            if (c) return c;
            a += na, b += nb;
            continue;
        }
        if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++, b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

static const tr_trace *sort_trace; /* qsort has no user pointer in C11 */

static int cmp_i64(int64_t a, int64_t b)
{
    return a < b ? -1 : a > b;
}

static int lane_cmp(const void *pa, const void *pb)
{
    const tr_trace *t = sort_trace;
    const lane *la = pa, *lb = pb;
    const tr_track *a = tr_track_get(t, la->track), *b = tr_track_get(t, lb->track);
    if (a->process != b->process) {
        const tr_process *p = tr_process_get(t, a->process);
        const tr_process *q = tr_process_get(t, b->process);
        int c = cmp_i64(p->sort_index, q->sort_index);
        /* Ranks in order, processes without a rank after them. */
        if (!c) c = cmp_i64(p->rank < 0 ? INT64_MAX : p->rank, q->rank < 0 ? INT64_MAX : q->rank);
        if (!c) c = cmp_i64(p->input, q->input);
        if (!c) c = cmp_i64(p->pid, q->pid);
        return c ? c : cmp_i64(a->process, b->process);
    }
    int c = cmp_i64(la->is_counter, lb->is_counter);
    if (!c) c = cmp_i64(a->sort_index, b->sort_index);
    if (!c) c = cmp_i64(a->kind, b->kind);
    if (!c) c = natural_cmp(tr_str_get(t, a->name, NULL), tr_str_get(t, b->name, NULL));
    if (!c) c = cmp_i64(a->tid, b->tid);
    return c ? c : cmp_i64(la->track, lb->track);
}

static int stat_cmp(const void *pa, const void *pb)
{
    const name_stat *a = pa, *b = pb;
    if (a->dur != b->dur) return a->dur > b->dur ? -1 : 1;
    if (a->count != b->count) return a->count > b->count ? -1 : 1;
    return a->name < b->name ? -1 : a->name > b->name;
}

static int text_cmp(const void *pa, const void *pb)
{
    const name_stat *a = pa, *b = pb;
    return strcmp(tr_str_get(sort_trace, a->name, NULL), tr_str_get(sort_trace, b->name, NULL));
}

void tr_timeline_layout_free(tr_timeline_layout *l)
{
    if (!l) return;
    tr_free(l->lanes);
    tr_free(l->lane_of);
    tr_free(l->legend);
    map_fini(&l->slice_names);
    map_fini(&l->instant_names);
    tr_free(l);
}

/* Per-track facts gathered in one pass over the tables. */
typedef struct track_scan {
    int events;   /* any event in the window */
    int instants; /* instants in the window */
    int depth;    /* deepest slice + 1 */
    int counter;  /* has counter values */
    double cmin, cmax;
} track_scan;

static int scan_tables(tr_timeline_layout *l, const uint8_t *sel, track_scan *ts, tr_error *e)
{
    const tr_trace *t = l->t;
    tr_slices s;
    tr_instants in;
    tr_counters cn;
    tr_samples sm;
    tr_trace_slices(t, &s);
    tr_trace_instants(t, &in);
    tr_trace_counters(t, &cn);
    tr_trace_samples(t, &sm);
    int64_t lo = l->o.has_since ? l->o.since : INT64_MIN;
    int64_t hi = l->o.has_until ? l->o.until : INT64_MAX;
    l->first = INT64_MAX;
    l->last = INT64_MIN;
    for (size_t i = 0; i < s.n; i++) {
        uint32_t tk = s.track[i];
        int64_t end = tr_time_add(s.ts[i], s.dur[i]);
        if (!sel[tk] || end < lo || s.ts[i] > hi) continue;
        if (s.ts[i] < l->first) l->first = s.ts[i];
        if (end > l->last) l->last = end;
        ts[tk].events = 1;
        if (s.depth[i] + 1 > ts[tk].depth) ts[tk].depth = s.depth[i] + 1;
        name_stat *ns = map_get(&l->slice_names, t, s.name[i]);
        if (!ns) return tr_error_nomem(e);
        ns->dur += (end < hi ? end : hi) - (s.ts[i] > lo ? s.ts[i] : lo);
        ns->count++;
        l->n_slices++;
    }
    for (size_t i = 0; i < in.n; i++) {
        uint32_t tk = in.track[i];
        if (!sel[tk] || in.ts[i] < lo || in.ts[i] > hi) continue;
        if (in.ts[i] < l->first) l->first = in.ts[i];
        if (in.ts[i] > l->last) l->last = in.ts[i];
        ts[tk].events = 1;
        ts[tk].instants = 1;
        name_stat *ns = map_get(&l->instant_names, t, in.name[i]);
        if (!ns) return tr_error_nomem(e);
        ns->count++;
        if (in.bytes[i] > l->max_bytes) l->max_bytes = in.bytes[i];
        l->n_instants++;
    }
    for (size_t i = 0; i < cn.n; i++) {
        uint32_t tk = cn.track[i];
        if (!sel[tk] || cn.ts[i] > hi) continue;
        track_scan *k = &ts[tk];
        double v = cn.value[i];
        if (!isfinite(v)) continue;
        /* A value set before the window is the level the window starts at. */
        if (!k->counter) k->cmin = k->cmax = v;
        if (v < k->cmin) k->cmin = v;
        if (v > k->cmax) k->cmax = v;
        k->counter = 1;
        if (cn.ts[i] < lo) continue;
        k->events = 1;
        if (cn.ts[i] < l->first) l->first = cn.ts[i];
        if (cn.ts[i] > l->last) l->last = cn.ts[i];
        l->n_counters++;
    }
    for (size_t i = 0; i < sm.n; i++) {
        uint32_t tk = sm.track[i];
        if (!sel[tk] || sm.ts[i] < lo || sm.ts[i] > hi) continue;
        ts[tk].events = 1;
        if (sm.ts[i] < l->first) l->first = sm.ts[i];
        if (sm.ts[i] > l->last) l->last = sm.ts[i];
        l->n_samples++;
    }
    return TR_OK;
}

/*
** Copies the entries of M to OUT merged by text (a reader may store equal
** text under several ids) and sorted by time, then count; returns how many.
*/
static size_t legend_part(const tr_trace *t, const name_map *m, name_stat *out)
{
    size_t k = 0;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].name != TR_NONE) out[k++] = m->slots[i];
    sort_trace = t;
    qsort(out, k, sizeof *out, text_cmp);
    size_t n = 0;
    for (size_t i = 0; i < k; i++) {
        if (n && text_cmp(&out[n - 1], &out[i]) == 0) {
            out[n - 1].dur += out[i].dur;
            out[n - 1].count += out[i].count;
            continue;
        }
        out[n++] = out[i];
    }
    qsort(out, n, sizeof *out, stat_cmp);
    return n;
}

/* The legend: slice names by time, then marker names by count. */
static int build_legend(tr_timeline_layout *l, tr_error *e)
{
    size_t n = l->slice_names.n + l->instant_names.n;
    l->legend = tr_malloc((n ? n : 1) * sizeof *l->legend);
    if (!l->legend) return tr_error_nomem(e);
    l->n_legend_slices = legend_part(l->t, &l->slice_names, l->legend);
    l->n_legend_instants = legend_part(l->t, &l->instant_names, l->legend + l->n_legend_slices);
    return TR_OK;
}

/* How many legend entries fit under each other beside the plot. */
static void fit_legend(tr_timeline_layout *l)
{
    double line = l->text_pt * l->px_per_pt * 1.45;
    double y = l->py0, ymax = l->H - MARGIN_IN * l->o.dpi - line;
    size_t *shown[2] = {&l->shown_slices, &l->shown_instants};
    size_t count[2] = {l->n_legend_slices, l->n_legend_instants};
    for (int part = 0; part < 2; part++) {
        *shown[part] = 0;
        if (l->legend_w <= 0 || !count[part]) continue;
        y += line; /* the heading */
        while (*shown[part] < count[part] && *shown[part] < MAX_LEGEND && y <= ymax - line) {
            y += line;
            ++*shown[part];
        }
        y += line * 0.5;
    }
}

/* Fits lanes into the plot height: rows per lane, row height, process headers. */
static void place_lanes(tr_timeline_layout *l, size_t n_processes)
{
    double dpi = l->o.dpi;
    double avail = l->py1 - l->py0;
    double row_max = ROW_MAX_IN * dpi;
    double nested_min = fmax(3, ROW_NESTED_MIN_IN * dpi);
    double lane_min = fmax(1, LANE_MIN_IN * dpi);
    size_t n = l->n_lanes;
    /* Process headers only while they take little room. */
    double header = 0.17 * dpi;
    if (n_processes * header > 0.25 * avail || n * nested_min > avail - n_processes * header)
        header = 0;
    l->header_h = header;
    double rows_avail = avail - (header > 0 ? n_processes * header : 0);
    /* The deepest nesting all lanes can show at the nested minimum. */
    int cap = 1;
    for (size_t i = 0; i < n; i++)
        if (l->lanes[i].depth > cap) cap = l->lanes[i].depth;
    double units;
    for (;;) {
        units = 0;
        for (size_t i = 0; i < n; i++) {
            lane *ln = &l->lanes[i];
            int r = ln->depth < cap ? ln->depth : cap;
            if (ln->is_counter) r = cap >= 2 ? 2 : 1;
            /* A lane of markers only is one strip a row tall. */
            ln->rows = r < 1 && !ln->has_instants ? 1 : r;
            units += ln->track == TR_NONE
                         ? SUMMARY_ROWS
                         : ln->rows + (ln->has_instants ? (ln->rows ? STRIP_ROWS : 1) : 0);
        }
        if (cap == 1 || units * nested_min <= rows_avail) break;
        cap--;
    }
    double row_h = units > 0 ? rows_avail / units : row_max;
    if (row_h > row_max) row_h = row_max;
    if (row_h < lane_min) row_h = lane_min;
    double y = l->py0;
    uint32_t proc = TR_NONE;
    l->total_rows = 0;
    for (size_t i = 0; i < n; i++) {
        lane *ln = &l->lanes[i];
        if (header > 0 && ln->process != proc && ln->track != TR_NONE) {
            ln->header = 1;
            y += header;
        }
        proc = ln->process;
        ln->y = y;
        ln->row_h = ln->track == TR_NONE ? row_h * SUMMARY_ROWS : row_h;
        ln->strip = ln->has_instants ? row_h * (ln->rows ? STRIP_ROWS : 1) : 0;
        ln->h = ln->strip + ln->row_h * ln->rows;
        ln->bg = ln->track == TR_NONE ? 0xfff4d6 : (i % 2 ? TR_RENDER_LANE_ODD : TR_RENDER_WHITE);
        ln->first_row = l->total_rows;
        l->total_rows += (size_t)ln->rows;
        y += ln->h;
    }
    l->py1 = y;
}

int tr_timeline_layout_new(const tr_trace *t, const tr_render_opts *o, tr_timeline_layout **out,
                           tr_error *e)
{
    *out = NULL;
    tr_timeline_layout *l = tr_calloc(1, sizeof *l);
    if (!l) return tr_error_nomem(e);
    l->t = t;
    l->o = *o;
    l->W = (int)lround(o->width_in * o->dpi);
    l->H = (int)lround(o->height_in * o->dpi);
    l->px_per_pt = o->dpi / 72.0;
    size_t n_tracks = tr_track_count(t);
    uint8_t *sel = tr_calloc(n_tracks + 1, 1);
    track_scan *scan = tr_calloc(n_tracks + 1, sizeof *scan);
    l->lane_of = tr_malloc((n_tracks + 1) * sizeof *l->lane_of);
    l->lanes = tr_malloc((n_tracks + 1) * sizeof *l->lanes);
    int rc = TR_OK;
    if (!sel || !scan || !l->lane_of || !l->lanes) {
        rc = tr_error_nomem(e);
        goto done;
    }
    for (size_t i = 0; i < n_tracks; i++) {
        sel[i] = (uint8_t)tr_render_track_selected(t, o, (uint32_t)i);
        l->lane_of[i] = TR_NONE;
    }
    rc = scan_tables(l, sel, scan, e);
    if (rc < 0) goto done;
    rc = build_legend(l, e);
    if (rc < 0) goto done;

    /* The window: what was asked, else the events' span padded by 1% as GT's visualize does. */
    int64_t first = l->first <= l->last ? l->first : 0;
    int64_t last = l->first <= l->last ? l->last : 1000000000;
    if (last <= first) last = first + 1000;
    int64_t pad = (last - first) / 100;
    l->t0 = o->has_since ? o->since : first - pad;
    l->t1 = o->has_until ? o->until : last + pad;

    size_t n = 0;
    for (size_t i = 0; i < n_tracks; i++) {
        if (!scan[i].events && !scan[i].counter) continue;
        lane *ln = &l->lanes[n++];
        memset(ln, 0, sizeof *ln);
        ln->track = (uint32_t)i;
        ln->process = tr_track_get(t, (uint32_t)i)->process;
        ln->depth = scan[i].depth;
        ln->has_instants = scan[i].instants;
        ln->is_counter = scan[i].counter && !scan[i].depth;
        ln->has_counter = scan[i].counter;
        ln->cmin = scan[i].cmin < 0 ? scan[i].cmin : 0;
        ln->cmax = scan[i].cmax > ln->cmin ? scan[i].cmax : ln->cmin + 1;
    }
    sort_trace = t;
    qsort(l->lanes, n, sizeof *l->lanes, lane_cmp);

    /* Margins: title and subtitle on top, the time axis below, labels left, legend right. */
    double dpi = o->dpi;
    l->title_pt = 12;
    l->text_pt = 7;
    double margin = MARGIN_IN * dpi;
    l->title_y = margin;
    l->subtitle_y = l->title_y + l->title_pt * l->px_per_pt * 1.5;
    l->py0 = l->subtitle_y + l->text_pt * l->px_per_pt * 2.2;
    double axis_h = l->text_pt * l->px_per_pt * 3.6;
    l->py1 = l->H - margin - axis_h;
    if (l->py1 < l->py0 + 1) l->py1 = l->py0 + 1;
    size_t longest = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len;
        tr_str_get(t, tr_track_get(t, l->lanes[i].track)->name, &len);
        if (len > longest) longest = len;
    }
    l->label_w = (double)(longest + 2) * 0.6 * l->text_pt * l->px_per_pt;
    l->label_w = fmin(fmax(l->label_w, LABEL_MIN_IN * dpi), fmin(LABEL_MAX_IN * dpi, 0.2 * l->W));
    l->legend_w = 0;
    if (!o->no_legend && l->n_legend_slices + l->n_legend_instants > 0)
        l->legend_w = fmin(LEGEND_MAX_IN * dpi, 0.2 * l->W);
    /* Whole pixels: a busy bar's column is then one pixel column of the picture. */
    l->px = round(margin + l->label_w);
    l->pw = floor(l->W - l->px - margin - (l->legend_w > 0 ? l->legend_w + margin : 0));
    if (l->pw < 1) l->pw = 1;
    l->legend_x = l->px + l->pw + margin;
    l->scale = l->pw / (double)(l->t1 - l->t0);

    /* The lane cap: what fits at the thinnest lane, or what was asked. */
    size_t n_proc = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || l->lanes[i].process != l->lanes[i - 1].process) n_proc++;
    size_t fit = (size_t)((l->py1 - l->py0) / fmax(1, LANE_MIN_IN * dpi));
    size_t cap = o->max_lanes && o->max_lanes < fit ? o->max_lanes : fit;
    if (cap < 2) cap = 2;
    if (n > cap) {
        /* The summary lane takes the room of several. */
        if (cap + SUMMARY_ROWS - 1 > fit) cap = fit > SUMMARY_ROWS + 1 ? fit - SUMMARY_ROWS + 1 : 2;
        lane *sum = &l->lanes[cap - 1];
        l->summarised = n - (cap - 1);
        for (size_t i = cap - 1; i < n; i++) l->lane_of[l->lanes[i].track] = (uint32_t)(cap - 1);
        memset(sum, 0, sizeof *sum);
        sum->track = TR_NONE;
        sum->process = TR_NONE;
        sum->depth = 1;
        n = cap;
    }
    l->n_lanes = n;
    for (size_t i = 0; i < n; i++)
        if (l->lanes[i].track != TR_NONE) l->lane_of[l->lanes[i].track] = (uint32_t)i;
    place_lanes(l, n_proc);
    fit_legend(l);
done:
    tr_free(sel);
    tr_free(scan);
    if (rc < 0) {
        tr_timeline_layout_free(l);
        return rc;
    }
    *out = l;
    return TR_OK;
}

double tr_timeline_x(const tr_timeline_layout *l, int64_t ts)
{
    return l->px + (double)(ts - l->t0) * l->scale;
}

void tr_timeline_plot(const tr_timeline_layout *l, double *x0, double *x1)
{
    *x0 = l->px;
    *x1 = l->px + l->pw;
}

int tr_timeline_row(const tr_timeline_layout *l, uint32_t track, int depth, double *y0, double *y1,
                    uint32_t *bg)
{
    if (track >= tr_track_count(l->t) || l->lane_of[track] == TR_NONE) return 0;
    const lane *ln = &l->lanes[l->lane_of[track]];
    if (ln->track != track || ln->rows == 0) return 0;
    int r = depth < ln->rows ? depth : ln->rows - 1;
    if (r < 0) r = 0;
    *y0 = ln->y + ln->strip + r * ln->row_h;
    *y1 = *y0 + ln->row_h;
    if (bg) *bg = ln->bg;
    return 1;
}

size_t tr_timeline_legend_count(const tr_timeline_layout *l)
{
    return l->shown_slices + l->shown_instants;
}

const char *tr_timeline_legend_name(const tr_timeline_layout *l, size_t i)
{
    if (i >= l->shown_slices + l->shown_instants) return NULL;
    size_t k = i < l->shown_slices ? i : l->n_legend_slices + (i - l->shown_slices);
    return tr_str_get(l->t, l->legend[k].name, NULL);
}

/* ---- drawing ---- */

typedef struct busy_row {
    float *busy;   /* ns busy per column */
    uint32_t *rgb; /* colour of the longest slice in the column */
    float *longest;
} busy_row;

typedef struct draw_state {
    tr_timeline_layout *l;
    tr_canvas *c;
    tr_render_stats *st;
    busy_row *rows; /* per lane row, allocated on first use */
    int cols;
    double ns_per_col;
    name_map colours; /* counter colours, by track name */
} draw_state;

static void free_rows(draw_state *d)
{
    if (!d->rows) return;
    for (size_t i = 0; i < d->l->total_rows; i++) {
        tr_free(d->rows[i].busy);
        tr_free(d->rows[i].rgb);
        tr_free(d->rows[i].longest);
    }
    tr_free(d->rows);
}

static busy_row *row_get(draw_state *d, size_t row)
{
    busy_row *r = &d->rows[row];
    if (!r->busy) {
        r->busy = tr_calloc((size_t)d->cols, sizeof *r->busy);
        r->rgb = tr_calloc((size_t)d->cols, sizeof *r->rgb);
        r->longest = tr_calloc((size_t)d->cols, sizeof *r->longest);
        if (!r->busy || !r->rgb || !r->longest) return NULL;
    }
    return r;
}

/* Adds [a, b) ns of colour RGB to row ROW's busy bars. */
static int busy_add(draw_state *d, size_t row, int64_t a, int64_t b, uint32_t rgb)
{
    busy_row *r = row_get(d, row);
    if (!r) return TR_FATAL;
    const tr_timeline_layout *l = d->l;
    double xa = (double)(a - l->t0) / d->ns_per_col, xb = (double)(b - l->t0) / d->ns_per_col;
    int ca = (int)floor(xa), cb = (int)floor(xb);
    for (int c = ca; c <= cb && c < d->cols; c++) {
        if (c < 0) continue;
        double lo = fmax(xa, c), hi = fmin(xb, c + 1.0);
        float part = (float)((hi > lo ? hi - lo : 0) * d->ns_per_col);
        /* Even an instant-long op marks its column: the bar has a minimum height. */
        r->busy[c] += part > 0 ? part : 1e-9f;
        if (part >= r->longest[c]) {
            r->longest[c] = part;
            r->rgb[c] = rgb;
        }
    }
    return TR_OK;
}

/* The height of a busy bar in eighths of its row. */
static int busy_eighths(const busy_row *br, int c, double full)
{
    return (int)lround(fmax(fmin(1, br->busy[c] / full), BUSY_MIN_FRAC) * 8);
}

static void draw_busy(draw_state *d)
{
    const tr_timeline_layout *l = d->l;
    for (size_t li = 0; li < l->n_lanes; li++) {
        const lane *ln = &l->lanes[li];
        double full = d->ns_per_col * (ln->track == TR_NONE ? (double)l->summarised : 1);
        for (int r = 0; r < ln->rows; r++) {
            busy_row *br = &d->rows[ln->first_row + (size_t)r];
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

static uint32_t colour_of(draw_state *d, name_map *m, tr_str name)
{
    name_stat *s = map_get(m, d->l->t, name);
    return s ? s->rgb : 0x888888;
}

static int draw_slices(draw_state *d)
{
    tr_timeline_layout *l = d->l;
    const tr_trace *t = l->t;
    tr_slices s;
    tr_trace_slices(t, &s);
    double text_px_min = 2.5 * l->text_pt * l->px_per_pt;
    cairo_save(d->c->cr);
    cairo_rectangle(d->c->cr, l->px, l->py0, l->pw, l->py1 - l->py0);
    cairo_clip(d->c->cr);
    tr_buf label;
    tr_buf_init(&label, 0);
    for (size_t i = 0; i < s.n; i++) {
        uint32_t li = l->lane_of[s.track[i]];
        if (li == TR_NONE) continue;
        int64_t a = s.ts[i], b = tr_time_add(s.ts[i], s.dur[i]);
        if (b < l->t0 || a > l->t1) continue;
        const lane *ln = &l->lanes[li];
        int r = s.depth[i] < ln->rows ? s.depth[i] : ln->rows - 1;
        if (ln->track == TR_NONE) r = 0;
        uint32_t rgb = colour_of(d, &l->slice_names, s.name[i]);
        double x0 = tr_timeline_x(l, a), x1 = tr_timeline_x(l, b);
        if (x1 - x0 < 1 || ln->track == TR_NONE) {
            if (busy_add(d, ln->first_row + (size_t)r, a < l->t0 ? l->t0 : a, b > l->t1 ? l->t1 : b,
                         rgb) < 0) {
                tr_buf_fini(&label);
                return TR_FATAL;
            }
            d->st->slices_merged++;
            continue;
        }
        double y = ln->y + ln->strip + r * ln->row_h;
        double cx0 = fmax(x0, l->px - 1), cx1 = fmin(x1, l->px + l->pw + 1);
        /* A one-pixel gap keeps neighbours apart; thin rows get no gap. */
        double gap = cx1 - cx0 >= 4 ? 1 : 0, vgap = ln->row_h >= 6 ? 1 : 0;
        tr_canvas_rect(d->c, cx0, y + vgap, cx1 - cx0 - gap, ln->row_h - 2 * vgap, rgb);
        d->st->slices_drawn++;
        double room = cx1 - cx0 - gap - 4;
        if (room < text_px_min || ln->row_h < 6) continue;
        size_t n;
        const char *name = tr_str_get(t, s.name[i], &n);
        tr_arg seq;
        if (l->o.annotate && s.args[i] && tr_args_find(t, s.args[i], "seq", &seq) &&
            (seq.type == TR_ARG_INT || seq.type == TR_ARG_UINT)) {
            tr_buf_reset(&label);
            if (tr_buf_addf(&label, "#%lld %s", (long long)seq.v.i, name) >= 0)
                name = label.p, n = label.len;
        }
        double pt = fmin(l->text_pt, ln->row_h * 0.5 / l->px_per_pt);
        double th = pt * l->px_per_pt * 1.17;
        double tx = fmax(cx0, l->px) + 2;
        tr_canvas_text(d->c, name, n, tx, y + (ln->row_h - th) / 2, pt, 0,
                       fmin(room, l->px + l->pw - tx - 2), TR_ALIGN_LEFT,
                       tr_render_fill_is_dark(rgb) ? 0xffffff : 0x000000);
    }
    tr_buf_fini(&label);
    draw_busy(d);
    cairo_restore(d->c->cr);
    return TR_OK;
}

static int draw_counters(draw_state *d)
{
    tr_timeline_layout *l = d->l;
    const tr_trace *t = l->t;
    tr_counters cn;
    tr_trace_counters(t, &cn);
    if (!cn.n) return TR_OK;
    /* The peak value per column of each counter lane, then one step path per lane. */
    size_t cols = (size_t)d->cols;
    for (size_t li = 0; li < l->n_lanes; li++) {
        const lane *ln = &l->lanes[li];
        if (!ln->has_counter || ln->track == TR_NONE) continue;
        double *val = tr_malloc(cols * sizeof *val);
        if (!val) return TR_FATAL;
        for (size_t c = 0; c < cols; c++) val[c] = NAN;
        double before = NAN;
        for (size_t i = 0; i < cn.n; i++) {
            if (cn.track[i] != ln->track || !isfinite(cn.value[i])) continue;
            if (cn.ts[i] < l->t0) {
                before = cn.value[i];
                continue;
            }
            if (cn.ts[i] > l->t1) break;
            size_t c = (size_t)((double)(cn.ts[i] - l->t0) / d->ns_per_col);
            if (c >= cols) c = cols - 1;
            /* The column keeps its peak, so a spike narrower than a pixel still shows. */
            val[c] = isnan(val[c]) || cn.value[i] > val[c] ? cn.value[i] : val[c];
        }
        name_stat *ns = map_get(&d->colours, t, tr_track_get(t, ln->track)->name);
        uint32_t rgb = ns ? ns->rgb : 0x1f77b4;
        double top = ln->y + ln->strip + ln->row_h * 0.1, bottom = ln->y + ln->h;
        double span = ln->cmax - ln->cmin;
        cairo_t *cr = d->c->cr;
        double level = before, y = bottom;
        int open = 0;
        for (size_t c = 0; c < cols; c++) {
            if (!isnan(val[c])) level = val[c];
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
        tr_free(val);
        if (ln->h >= l->text_pt * l->px_per_pt * 1.2) {
            tr_buf b;
            tr_buf_init(&b, 0);
            if (tr_buf_adds(&b, "max ") >= 0 && tr_buf_add_real(&b, ln->cmax) >= 0)
                tr_canvas_text(d->c, b.p, b.len, l->px + 2, ln->y + ln->strip, l->text_pt * 0.8, 0,
                               0, TR_ALIGN_LEFT, TR_RENDER_FAINT_INK);
            tr_buf_fini(&b);
        }
    }
    return TR_OK;
}

/* Marker radius: area grows with the instant's size where the trace has sizes. */
static double marker_radius(const tr_timeline_layout *l, const lane *ln, int64_t bytes)
{
    double rmax = fmin(ln->strip * 0.45, 0.06 * l->o.dpi);
    double rmin = fmax(1, rmax * 0.3);
    if (bytes < 0 || l->max_bytes <= 0) return fmax(rmin, rmax * 0.55);
    return rmin + (rmax - rmin) * sqrt((double)bytes / (double)l->max_bytes);
}

/*
** The marker a lane is gathering for one shape: instants of that shape closer
** than a pixel (or half their radius) are drawn once, as large as the largest.
*/
typedef struct marker_run {
    double x, y, r, label_end;
    double top; /* of the lane, where an id goes */
    int shape;  /* -1: none pending */
    uint32_t rgb;
    int64_t seq; /* GT instruction id of the first, -1 = none */
} marker_run;

static void marker_flush(draw_state *d, marker_run *m)
{
    if (m->shape < 0) return;
    tr_canvas_marker(d->c, m->shape, m->x, m->y, m->r, m->rgb);
    d->st->markers_drawn++;
    if (m->seq >= 0 && m->x > m->label_end) {
        char id[24];
        int len = snprintf(id, sizeof id, "#%lld", (long long)m->seq);
        double w = tr_canvas_text(d->c, id, (size_t)len, m->x + m->r + 1, m->top, ID_PT, 0, 0,
                                  TR_ALIGN_LEFT, TR_RENDER_INK);
        m->label_end = m->x + m->r + 1 + w + 2;
    }
    m->shape = -1;
}

static int draw_instants(draw_state *d)
{
    tr_timeline_layout *l = d->l;
    const tr_trace *t = l->t;
    tr_instants in;
    tr_trace_instants(t, &in);
    if (!in.n) return TR_OK;
    size_t n_runs = l->n_lanes * TR_SHAPE_COUNT;
    marker_run *runs = tr_malloc((n_runs ? n_runs : 1) * sizeof *runs);
    if (!runs) return TR_FATAL;
    for (size_t i = 0; i < n_runs; i++) runs[i] = (marker_run){.shape = -1, .label_end = -1e9};
    double label_h = ID_PT * l->px_per_pt * 1.2;
    for (size_t i = 0; i < in.n; i++) {
        uint32_t li = l->lane_of[in.track[i]];
        if (li == TR_NONE || in.ts[i] < l->t0 || in.ts[i] > l->t1) continue;
        const lane *ln = &l->lanes[li];
        if (ln->strip <= 0) continue; /* summarised */
        double x = tr_timeline_x(l, in.ts[i]);
        if (in.scope[i] == TR_SCOPE_GLOBAL) {
            cairo_new_path(d->c->cr);
            tr_canvas_rgb(d->c, TR_RENDER_INK, 0.35);
            cairo_move_to(d->c->cr, x, l->py0);
            cairo_line_to(d->c->cr, x, l->py1);
            cairo_set_line_width(d->c->cr, 0.75);
            cairo_stroke(d->c->cr);
        }
        size_t n;
        const char *name = tr_str_get(t, in.name[i], &n);
        int shape = tr_render_marker_shape(name, n);
        double r = marker_radius(l, ln, in.bytes[i]);
        marker_run *m = &runs[li * TR_SHAPE_COUNT + (size_t)shape];
        if (m->shape == shape && x - m->x < fmax(1, m->r * 0.5)) {
            if (r > m->r) m->r = r;
            d->st->markers_merged++;
            continue;
        }
        marker_flush(d, m);
        m->x = x;
        m->y = ln->y + ln->strip / 2;
        m->top = ln->y;
        m->r = r;
        m->shape = shape;
        m->rgb = colour_of(d, &l->instant_names, in.name[i]);
        m->seq = -1;
        tr_arg seq;
        if (l->o.annotate && ln->strip >= label_h && in.args[i] &&
            tr_args_find(t, in.args[i], "seq", &seq) &&
            (seq.type == TR_ARG_INT || seq.type == TR_ARG_UINT) && seq.v.i >= 0)
            m->seq = seq.v.i;
    }
    for (size_t i = 0; i < n_runs; i++) marker_flush(d, &runs[i]);
    tr_free(runs);
    return TR_OK;
}

static int draw_samples(draw_state *d)
{
    tr_timeline_layout *l = d->l;
    tr_samples sm;
    tr_trace_samples(l->t, &sm);
    if (!sm.n) return TR_OK;
    double *last = tr_malloc(l->n_lanes * sizeof *last);
    if (!last) return TR_FATAL;
    for (size_t i = 0; i < l->n_lanes; i++) last[i] = -1e9;
    cairo_new_path(d->c->cr);
    tr_canvas_rgb(d->c, TR_RENDER_FAINT_INK, 0.8);
    for (size_t i = 0; i < sm.n; i++) {
        uint32_t li = l->lane_of[sm.track[i]];
        if (li == TR_NONE || sm.ts[i] < l->t0 || sm.ts[i] > l->t1) continue;
        double x = floor(tr_timeline_x(l, sm.ts[i]));
        if (x == last[li]) continue;
        last[li] = x;
        const lane *ln = &l->lanes[li];
        cairo_rectangle(d->c->cr, x, ln->y, 1, fmax(1, fmin(3, ln->h * 0.15)));
    }
    cairo_fill(d->c->cr);
    tr_free(last);
    return TR_OK;
}

/* Where an event a flow points at was drawn: 0 when it has no lane. */
static int flow_end(const tr_timeline_layout *l, tr_ref ref, int from, double *x, double *y)
{
    const tr_trace *t = l->t;
    uint32_t row = TR_REF_ROW(ref), track;
    int64_t ts;
    int depth = 0;
    if (TR_REF_KIND(ref) == TR_EV_SLICE) {
        tr_slices s;
        tr_trace_slices(t, &s);
        if (row >= s.n) return 0;
        track = s.track[row];
        ts = from ? tr_time_add(s.ts[row], s.dur[row]) : s.ts[row];
        depth = s.depth[row];
    } else if (TR_REF_KIND(ref) == TR_EV_INSTANT) {
        tr_instants in;
        tr_trace_instants(t, &in);
        if (row >= in.n) return 0;
        track = in.track[row];
        ts = in.ts[row];
    } else {
        return 0;
    }
    double y0, y1;
    if (!tr_timeline_row(l, track, depth, &y0, &y1, NULL)) return 0;
    *x = tr_timeline_x(l, ts);
    *y = (y0 + y1) / 2;
    return 1;
}

static int draw_flows(draw_state *d)
{
    tr_timeline_layout *l = d->l;
    size_t n = tr_flow_count(l->t);
    if (!n) return TR_OK;
    /* Arrows with the same pixel ends are drawn once. */
    size_t cap = 1 << 16;
    uint64_t *seen = tr_calloc(cap, sizeof *seen);
    if (!seen) return TR_FATAL;
    cairo_t *cr = d->c->cr;
    cairo_save(cr);
    cairo_rectangle(cr, l->px, l->py0, l->pw, l->py1 - l->py0);
    cairo_clip(cr);
    cairo_new_path(cr);
    cairo_set_line_width(cr, fmax(0.6, 0.004 * l->o.dpi));
    double head = fmax(3, 0.03 * l->o.dpi);
    tr_canvas_rgb(d->c, TR_RENDER_INK, 0.55);
    for (size_t i = 0; i < n && d->st->flows_drawn < MAX_FLOWS_DRAWN; i++) {
        const tr_flow *f = tr_flow_get(l->t, (uint32_t)i);
        double x0, y0, x1, y1;
        if (!flow_end(l, f->from, 1, &x0, &y0) || !flow_end(l, f->to, 0, &x1, &y1)) continue;
        if ((x0 < l->px && x1 < l->px) || (x0 > l->px + l->pw && x1 > l->px + l->pw)) continue;
        uint64_t key =
            ((uint64_t)(uint16_t)lround(x0) << 48 | (uint64_t)(uint16_t)lround(y0) << 32 |
             (uint64_t)(uint16_t)lround(x1) << 16 | (uint16_t)lround(y1)) +
            1;
        size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 48) & (cap - 1);
        if (seen[h] == key) continue;
        seen[h] = key;
        double mid = (y0 + y1) / 2, c1 = x1 - (x1 - x0) * 0.3;
        cairo_move_to(cr, x0, y0);
        cairo_curve_to(cr, x0 + (x1 - x0) * 0.3, mid, c1, mid, x1, y1);
        cairo_stroke(cr);
        double ang = x1 == c1 && y1 == mid ? 0 : atan2(y1 - mid, x1 - c1);
        cairo_move_to(cr, x1, y1);
        cairo_line_to(cr, x1 - head * cos(ang - 0.4), y1 - head * sin(ang - 0.4));
        cairo_line_to(cr, x1 - head * cos(ang + 0.4), y1 - head * sin(ang + 0.4));
        cairo_close_path(cr);
        cairo_fill(cr);
        d->st->flows_drawn++;
    }
    cairo_restore(cr);
    tr_free(seen);
    return TR_OK;
}

static int draw_lanes(draw_state *d)
{
    tr_timeline_layout *l = d->l;
    const tr_trace *t = l->t;
    double row_h = l->n_lanes ? l->lanes[0].row_h : 0;
    double label_pt = fmin(l->text_pt, fmax(4.5, row_h * 0.7 / l->px_per_pt));
    double label_h = label_pt * l->px_per_pt * 1.2;
    double next_label = -1e9;
    /* The summary lane's label is always drawn: the others keep clear of it. */
    double summary_y = 1e300;
    if (l->summarised) {
        const lane *sl = &l->lanes[l->n_lanes - 1];
        summary_y = sl->y + sl->h / 2 - label_h / 2;
    }
    tr_buf b;
    tr_buf_init(&b, 0);
    double margin = MARGIN_IN * l->o.dpi;
    for (size_t i = 0; i < l->n_lanes; i++) {
        const lane *ln = &l->lanes[i];
        if (ln->header) {
            double hy = ln->y - l->header_h;
            tr_canvas_rect(d->c, margin, hy, l->px + l->pw - margin, l->header_h, 0xe3e8ef);
            tr_buf_reset(&b);
            if (tr_render_process_label(&b, t, ln->process) < 0) goto nomem;
            tr_canvas_text(d->c, b.p, b.len, margin + 3,
                           hy + (l->header_h - l->text_pt * l->px_per_pt * 1.17) / 2, l->text_pt, 1,
                           l->label_w + l->pw - 6, TR_ALIGN_LEFT, TR_RENDER_INK);
        }
        tr_canvas_rect(d->c, l->px, ln->y, l->pw, ln->h, ln->bg);
        /* A line between processes when there are no header bands. */
        if (!l->header_h && i > 0 && ln->process != l->lanes[i - 1].process)
            tr_canvas_rect(d->c, margin, ln->y, l->px + l->pw - margin, fmax(1, 0.005 * l->o.dpi),
                           TR_RENDER_GRID);
        /* Labels thin out when lanes are thinner than their text. */
        double cy = ln->y + ln->h / 2 - label_h / 2;
        if (ln->track != TR_NONE && (cy < next_label || cy + label_h > summary_y)) continue;
        tr_buf_reset(&b);
        int rc = 0;
        if (ln->track == TR_NONE) {
            rc = tr_buf_addf(&b, "+%zu lanes", l->summarised);
        } else {
            const tr_track *tk = tr_track_get(t, ln->track);
            if (!l->header_h) {
                const tr_process *p = tr_process_get(t, tk->process);
                if (p->rank >= 0) rc |= tr_buf_addf(&b, "r%d ", (int)p->rank);
            }
            rc |= tr_buf_adds(&b, tr_str_get(t, tk->name, NULL));
        }
        if (rc < 0) goto nomem;
        tr_canvas_text(d->c, b.p, b.len, l->px - 4, cy, label_pt, ln->track == TR_NONE,
                       l->label_w - 8, TR_ALIGN_RIGHT, TR_RENDER_INK);
        next_label = cy + label_h;
    }
    tr_buf_fini(&b);
    return TR_OK;
nomem:
    tr_buf_fini(&b);
    return TR_FATAL;
}

static int draw_axis(draw_state *d)
{
    tr_timeline_layout *l = d->l;
    double dpi = l->o.dpi;
    double y = l->py1;
    tr_canvas_rect(d->c, l->px, y, l->pw, fmax(1, 0.006 * dpi), TR_RENDER_INK);
    int max_ticks = (int)(l->pw / (0.9 * dpi));
    int64_t step = tr_render_tick_step(l->t1 - l->t0, max_ticks < 2 ? 2 : max_ticks);
    int64_t mag = llabs(l->t1) > llabs(l->t0) ? llabs(l->t1) : llabs(l->t0);
    int64_t first = l->t0 / step * step;
    if (first < l->t0) first += step;
    /* Far from the origin ("4203669.603 s"), ticks count from the first one instead. */
    int64_t base = 0;
    if (mag / (l->t1 - l->t0) > 1000) {
        base = first;
        mag = l->t1 - base;
    }
    tr_buf b;
    tr_buf_init(&b, 0);
    int rc = 0;
    for (int64_t tk = first; tk <= l->t1 && rc >= 0; tk += step) {
        double x = tr_timeline_x(l, tk);
        tr_canvas_rect(d->c, floor(x), y, 1, 0.04 * dpi, TR_RENDER_INK);
        tr_canvas_rect(d->c, floor(x), l->py0 - 0.03 * dpi, 1, 0.03 * dpi, TR_RENDER_GRID);
        tr_buf_reset(&b);
        if (base && tk > base) rc = tr_buf_addc(&b, '+');
        if (rc >= 0) rc = tr_render_format_tick(&b, tk - base, step, mag);
        if (rc >= 0)
            tr_canvas_text(d->c, b.p, b.len, x, y + 0.05 * dpi, l->text_pt, 0, 0, TR_ALIGN_CENTER,
                           TR_RENDER_INK);
        if (tk > INT64_MAX - step) break;
    }
    tr_buf_reset(&b);
    rc |= tr_buf_adds(&b, "time from the start");
    const tr_input_info *in = tr_input_count(l->t) == 1 ? tr_input_get(l->t, 0) : NULL;
    if (in && in->origin_wall)
        rc |= tr_buf_addf(&b, " (%s)", tr_str_get(l->t, in->origin_wall, NULL));
    if (base) {
        rc |= tr_buf_adds(&b, ", counted from ");
        rc |= tr_render_format_tick(&b, base, step, llabs(base));
    }
    if (rc >= 0)
        tr_canvas_text(d->c, b.p, b.len, l->px + l->pw / 2,
                       y + 0.05 * dpi + l->text_pt * l->px_per_pt * 1.4, l->text_pt, 0, l->pw,
                       TR_ALIGN_CENTER, TR_RENDER_FAINT_INK);
    tr_buf_fini(&b);
    return rc < 0 ? TR_FATAL : TR_OK;
}

static int draw_legend(draw_state *d)
{
    tr_timeline_layout *l = d->l;
    if (l->legend_w <= 0) return TR_OK;
    double pt = l->text_pt, line = pt * l->px_per_pt * 1.45;
    double x = l->legend_x, y = l->py0;
    double sw = pt * l->px_per_pt;
    size_t shown[2] = {l->shown_slices, l->shown_instants};
    size_t count[2] = {l->n_legend_slices, l->n_legend_instants};
    for (int part = 0; part < 2; part++) {
        if (!count[part]) continue;
        tr_canvas_text(d->c, part ? "Markers" : "Slices", part ? 7 : 6, x, y, pt, 1, l->legend_w,
                       TR_ALIGN_LEFT, TR_RENDER_INK);
        y += line;
        for (size_t i = 0; i < shown[part]; i++) {
            const name_stat *s = &l->legend[(part ? l->n_legend_slices : 0) + i];
            size_t n;
            const char *name = tr_str_get(l->t, s->name, &n);
            if (part)
                tr_canvas_marker(d->c, tr_render_marker_shape(name, n), x + sw / 2,
                                 y + line / 2 - 1, sw * 0.45, s->rgb);
            else
                tr_canvas_rect(d->c, x, y + line * 0.12, sw, line * 0.7, s->rgb);
            tr_canvas_text(d->c, n ? name : "(no name)", n ? n : 9, x + sw * 1.6, y + line * 0.1,
                           pt, 0, l->legend_w - sw * 1.6, TR_ALIGN_LEFT, TR_RENDER_INK);
            y += line;
        }
        y += line * 0.5;
    }
    size_t more = count[0] + count[1] - shown[0] - shown[1];
    if (more) {
        char text[48];
        int len = snprintf(text, sizeof text, "+%zu more names", more);
        tr_canvas_text(d->c, text, (size_t)len, x, y, pt, 0, l->legend_w, TR_ALIGN_LEFT,
                       TR_RENDER_FAINT_INK);
    }
    return TR_OK;
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
    if (l->summarised)
        rc |= tr_buf_addf(&b,
                          "; the last %zu lanes are over the cap and summarised in one "
                          "(use --tracks or --ranks)",
                          l->summarised);
    if (rc >= 0)
        tr_canvas_text(d->c, b.p, b.len, l->W / 2.0, l->subtitle_y, l->text_pt, 0, l->W * 0.95,
                       TR_ALIGN_CENTER, TR_RENDER_FAINT_INK);
    tr_buf_fini(&b);
    return rc < 0 ? TR_FATAL : TR_OK;
}

int tr_timeline_render(const tr_trace *t, const tr_render_opts *o, const char *path, int format,
                       tr_render_stats *st, tr_error *e)
{
    tr_timeline_layout *l;
    int rc = tr_timeline_layout_new(t, o, &l, e);
    if (rc < 0) return rc;
    st->width_px = l->W;
    st->height_px = l->H;
    st->lanes = l->n_lanes;
    st->lanes_summarised = l->summarised;
    draw_state d = {.l = l, .st = st};
    d.cols = (int)ceil(l->pw);
    d.ns_per_col = 1 / l->scale;
    d.rows = tr_calloc(l->total_rows + 1, sizeof *d.rows);
    tr_canvas c;
    memset(&c, 0, sizeof c);
    d.c = &c;
    if (!d.rows) {
        rc = tr_error_nomem(e);
        goto done;
    }
    rc = tr_canvas_open(&c, format, path, l->W, l->H, o->dpi, e);
    if (rc < 0) goto done;
    /* The drawing steps fail only when out of memory. */
    if (draw_titles(&d) < 0 || draw_lanes(&d) < 0 || draw_slices(&d) < 0 || draw_counters(&d) < 0 ||
        draw_samples(&d) < 0 || draw_instants(&d) < 0 || draw_flows(&d) < 0 || draw_axis(&d) < 0 ||
        draw_legend(&d) < 0) {
        rc = tr_error_nomem(e);
        tr_canvas_abort(&c);
        goto done;
    }
    rc = tr_canvas_commit(&c, e);
done:
    free_rows(&d);
    map_fini(&d.colours);
    tr_timeline_layout_free(l);
    return rc;
}
