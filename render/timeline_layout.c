/*
** timeline_layout.c: where everything of a timeline goes.
**
** One pass over the tables finds the tracks with events in the window, how
** deep their slices nest, counter ranges and name totals for the legend.
** Lanes are sized by their rows: a row is at most ROW_MAX_IN tall; a lane
** shows at most LANE_ROWS rows (deeper slices share its last one), fewer
** when rows would otherwise get thinner than ROW_COMFORT_IN, so a deeply
** nested thread cannot take the height from the others; a lane with almost
** nothing (a few markers: a GT client that only registered) is a thin band.
** Unless the height was given, the picture is as tall as its parts need, at
** most height_in; past what fits at the thinnest lane, lanes are summarised.
*/
#include "timeline_impl.h"

#include "tr_align.h"
#include "tr_text.h"

#include <math.h>
#include <stdlib.h>

/* Sizes in inches, so that pictures look alike at any dpi. */
#define ROW_MAX_IN        0.3   /* a lane row at its tallest */
#define ROW_MAX_GIVEN_IN  0.4   /* ... when the height was given: rows fill more of it */
#define ROW_COMFORT_IN    0.1   /* lanes show fewer rows before rows get thinner than this */
#define ROW_NESTED_MIN_IN 0.035 /* below this, deep slices share their lane's last row */
#define LANE_MIN_IN       0.007 /* below this, lanes over the cap are summarised */
#define PLOT_MIN_IN       0.75  /* rows of a small timeline grow to fill this much */
#define LANE_ROWS         6     /* rows a lane shows at most */
#define THIN_ROWS         0.5   /* a lane with almost nothing is this many rows tall */
#define THIN_EVENTS       3     /* ... almost nothing: this many events, busy 1 % of the time */
#define STRIP_ROWS        0.6   /* the marker strip over a lane's slices, in rows */
#define SUMMARY_ROWS      6     /* the summary lane is as tall as this many rows */
#define HEADER_IN         0.17
#define LABEL_MIN_IN      0.9
#define LABEL_MAX_IN      2.4
#define MARGIN_IN         0.12 /* left and right */
#define TOP_IN            0.05
#define BOTTOM_IN         0.04
#define GAP_IN            0.04 /* between the titles and the plot, the axis and a legend under it */
#define FAR_APART         100 /* inputs further apart than this many times their spans: a broken axis */
#define BREAK_IN          0.16 /* the gap between two segments of a broken axis */
#define GUESS_IN          0.05 /* the mark on the lanes of an input placed by a guess */

/* ---- names ---- */

void tl_names_init(tl_names *m)
{
    memset(m, 0, sizeof *m);
    tr_vec_init(&m->items, sizeof(tl_name));
}

void tl_names_fini(tl_names *m)
{
    tr_map_fini(&m->index);
    tr_vec_fini(&m->items);
}

tl_name *tl_names_add(tl_names *m, tr_str name)
{
    int is_new;
    uint32_t *slot = tr_map_slot(&m->index, name, &is_new);
    if (!slot) return NULL;
    if (is_new) {
        tl_name *n = tr_vec_push(&m->items);
        if (!n) return NULL;
        n->name = name;
        *slot = (uint32_t)(m->items.len - 1);
    }
    return &TR_VEC_AT(&m->items, tl_name, *slot);
}

const tl_name *tl_names_find(const tl_names *m, tr_str name)
{
    uint32_t i = tr_map_find(&m->index, name);
    return i == UINT32_MAX ? NULL : &TR_VEC_AT(&m->items, tl_name, i);
}

/* ---- lane order ---- */

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
    const tl_lane *la = pa, *lb = pb;
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

void tr_timeline_layout_free(tr_timeline_layout *l)
{
    if (!l) return;
    tr_free(l->lanes);
    tr_free(l->lane_of);
    tl_legend_free(&l->legend);
    tl_names_fini(&l->slice_names);
    tl_names_fini(&l->instant_names);
    tl_keys_fini(&l->keys);
    tr_vec_fini(&l->labels);
    tr_buf_fini(&l->label_text);
    tr_buf_fini(&l->warning);
    tl_pass_fini(l);
    tr_free(l->sel);
    tr_free(l->scan);
    if (l->measure_open) tr_measure_close(&l->m);
    tr_free(l);
}

/* ---- one pass over the tables ---- */

static void seen_at(tr_timeline_layout *l, tl_track_scan *k, int64_t a, int64_t b)
{
    if (!k->any) k->first = a, k->last = b;
    if (a < k->first) k->first = a;
    if (b > k->last) k->last = b;
    k->any = 1;
    if (a < l->first) l->first = a;
    if (b > l->last) l->last = b;
}

static int scan_slice(tr_timeline_layout *l, const tr_event_rec *ev, int depth, int64_t lo,
                      int64_t hi, tr_error *e)
{
    tl_track_scan *k = &l->scan[ev->track];
    int64_t end = tr_time_add(ev->ts, ev->dur);
    if (end < lo || ev->ts > hi) return TR_OK;
    seen_at(l, k, ev->ts, end);
    k->events++;
    int64_t in_window = (end < hi ? end : hi) - (ev->ts > lo ? ev->ts : lo);
    if (depth == 0) k->busy += in_window;
    if (depth + 1 > k->depth) k->depth = depth + 1;
    uint32_t keys[TL_KEYS_MAX];
    int nk = tl_slice_keys(l, ev->u.s.name, ev->u.s.cat, ev->args, keys);
    for (int i = 0; i < nk; i++) {
        tl_name *ns = tl_names_add(&l->slice_names, keys[i]);
        if (!ns) return tr_error_nomem(e);
        ns->dur += in_window / nk;
        ns->count++;
    }
    if (nk < 0) return tr_error_nomem(e);
    l->n_slices++;
    return TR_OK;
}

/*
** The per-track facts for N tracks: a stream meets tracks as they are read,
** so they are selected when first met (the options select by name and rank,
** which a track has from its start).
*/
static int grow_tracks(tr_timeline_layout *l, size_t n)
{
    if (n <= l->n_scan) return TR_OK;
    if (n > l->cap_scan) {
        size_t cap = n > 2 * l->cap_scan ? n + 16 : 2 * l->cap_scan;
        uint8_t *sel = tr_realloc(l->sel, cap);
        if (sel) l->sel = sel;
        tl_track_scan *scan = tr_realloc(l->scan, cap * sizeof *scan);
        /* each kept as soon as it is moved: the other's failure must not lose or leave it */
        if (scan) l->scan = scan;
        if (!sel || !scan) return TR_FATAL;
        l->cap_scan = cap;
    }
    for (size_t i = l->n_scan; i < n; i++) {
        l->sel[i] = (uint8_t)tr_render_track_selected(l->t, &l->o, (uint32_t)i);
        memset(&l->scan[i], 0, sizeof *l->scan);
    }
    l->n_scan = n;
    return TR_OK;
}

int tr_timeline_scan(tr_timeline_layout *l, const tr_event_rec *ev, int depth, tr_error *e)
{
    if (ev->track >= tr_track_count(l->t)) return TR_OK;
    if (grow_tracks(l, tr_track_count(l->t)) < 0) return tr_error_nomem(e);
    if (!l->sel[ev->track]) return TR_OK;
    tl_track_scan *k = &l->scan[ev->track];
    int64_t lo = l->o.has_since ? l->o.since : INT64_MIN;
    int64_t hi = l->o.has_until ? l->o.until : INT64_MAX;
    switch (ev->kind) {
    case TR_EV_SLICE:
        return scan_slice(l, ev, depth, lo, hi, e);
    case TR_EV_INSTANT: {
        if (ev->ts < lo || ev->ts > hi) return TR_OK;
        seen_at(l, k, ev->ts, ev->ts);
        k->events++;
        k->instants = 1;
        tl_name *ns = tl_names_add(&l->instant_names, ev->u.s.name);
        if (!ns) return tr_error_nomem(e);
        ns->count++;
        if (ev->bytes > l->max_bytes) l->max_bytes = ev->bytes;
        l->n_instants++;
        return TR_OK;
    }
    case TR_EV_COUNTER: {
        double v = ev->u.value;
        if (ev->ts > hi || !isfinite(v)) return TR_OK;
        /* A value set before the window is the level the window starts at. */
        if (!k->counter) k->cmin = k->cmax = v;
        if (v < k->cmin) k->cmin = v;
        if (v > k->cmax) k->cmax = v;
        k->counter = 1;
        if (ev->ts < lo) return TR_OK;
        seen_at(l, k, ev->ts, ev->ts);
        l->n_counters++;
        return TR_OK;
    }
    default:
        if (ev->ts < lo || ev->ts > hi) return TR_OK;
        seen_at(l, k, ev->ts, ev->ts);
        l->n_samples++;
        return TR_OK;
    }
}

/* ---- inputs far apart: a broken axis ---- */

typedef struct span {
    int64_t first, last;
    uint32_t input;
} span;

static int span_cmp(const void *pa, const void *pb)
{
    const span *a = pa, *b = pb;
    return a->first != b->first ? cmp_i64(a->first, b->first) : cmp_i64(a->input, b->input);
}

static const char *base_name(const tr_trace *t, uint32_t input)
{
    const char *p = tr_str_get(t, tr_input_get(t, input)->path, NULL);
    const char *b = strrchr(p, '/');
    return b && b[1] ? b + 1 : p;
}

/* The events' span of each input with any, sorted by start; returns how many (-1: no memory). */
static long input_spans(const tr_timeline_layout *l, const tl_track_scan *ts, span **out)
{
    const tr_trace *t = l->t;
    size_t ni = tr_input_count(t), n = 0;
    span *sp = *out = tr_calloc(ni + 1, sizeof *sp);
    if (!sp) return -1;
    for (size_t i = 0; i < ni; i++) sp[i] = (span){INT64_MAX, INT64_MIN, (uint32_t)i};
    for (size_t k = 0; k < tr_track_count(t); k++) {
        if (!ts[k].any) continue;
        span *s = &sp[tr_process_get(t, tr_track_get(t, (uint32_t)k)->process)->input];
        if (ts[k].first < s->first) s->first = ts[k].first;
        if (ts[k].last > s->last) s->last = ts[k].last;
    }
    for (size_t i = 0; i < ni; i++)
        if (sp[i].first <= sp[i].last) sp[n++] = sp[i];
    tr_qsort(sp, n, sizeof *sp, span_cmp);
    return (long)n;
}

/*
** Inputs in clusters of time: a cluster's next input starts further from
** its end than FAR_APART times the larger of the two spans.  Each cluster
** would be a sliver of one scale, so unless the window was given the axis
** is broken: each cluster is a segment at its own scale (half the width
** shared equally, half by span), with a gap and a break mark between, and
** the note under the title says so; with a window, the note warns.
*/
static int break_axis(tr_timeline_layout *l, const tl_track_scan *ts)
{
    const tr_trace *t = l->t;
    span *sp;
    long n = input_spans(l, ts, &sp);
    if (n < 0) return TR_FATAL;
    span cl[TL_SEGS_MAX + 1], best_a = n ? sp[0] : (span){0, 0, 0}, best_b = best_a;
    size_t k = 0;
    int64_t best = 0;
    if (n) cl[k++] = sp[0];
    for (long i = 1; i < n; i++) {
        span *cur = &cl[k - 1];
        int64_t gap = sp[i].first - cur->last;
        double wide =
            fmax(fmax((double)(cur->last - cur->first), (double)(sp[i].last - sp[i].first)), 1000);
        if (gap > FAR_APART * wide) {
            if (gap > best) best = gap, best_a = *cur, best_b = sp[i];
            if (k <= TL_SEGS_MAX) cl[k++] = sp[i];
        } else if (sp[i].last > cur->last) {
            cur->last = sp[i].last;
        }
    }
    tr_free(sp);
    int broken = best > 0 && k <= TL_SEGS_MAX && !l->o.has_since && !l->o.has_until;
    l->n_segs = broken ? k : 1;
    for (size_t i = 0; broken && i < k; i++) {
        int64_t len = cl[i].last - cl[i].first > 1000 ? cl[i].last - cl[i].first : 1000;
        l->segs[i] = (tl_segment){cl[i].first - len / 100, cl[i].first + len + len / 100, 0, 0};
    }
    int rc = TR_OK;
    if (best > 0) {
        rc |= tr_buf_addf(&l->warning, "\xe2\x9a\xa0 %s and %s are ", base_name(t, best_a.input),
                          base_name(t, best_b.input));
        rc |= tr_buf_add_duration(&l->warning, best);
        if (broken)
            rc |= tr_buf_addf(&l->warning,
                              " apart, over %d times their own spans: the axis is broken, each "
                              "part at its own scale",
                              FAR_APART);
        else
            rc |= tr_buf_addf(&l->warning,
                              " apart, over %d times their own spans: each shows as a sliver "
                              "(draw one with --since/--until or --tracks)",
                              FAR_APART);
    }
    return rc < 0 ? TR_FATAL : TR_OK;
}

/* The segments' pixel columns, once the plot's width is known. */
static void place_segments(tr_timeline_layout *l)
{
    if (l->n_segs <= 1) {
        l->n_segs = 1;
        l->segs[0] = (tl_segment){l->t0, l->t1, l->px, l->px + l->pw};
        return;
    }
    double gap = BREAK_IN * l->o.dpi, k = (double)l->n_segs;
    double avail = fmax(k, l->pw - gap * (k - 1)), total = 0;
    for (size_t i = 0; i < l->n_segs; i++) total += (double)(l->segs[i].t1 - l->segs[i].t0);
    double x = l->px;
    for (size_t i = 0; i < l->n_segs; i++) {
        tl_segment *g = &l->segs[i];
        double share = 0.5 / k + 0.5 * (double)(g->t1 - g->t0) / total;
        g->x0 = x;
        g->x1 = i + 1 == l->n_segs ? l->px + l->pw : round(x + avail * share);
        x = g->x1 + gap;
    }
    l->t0 = l->segs[0].t0;
    l->t1 = l->segs[l->n_segs - 1].t1;
}

/* ---- lanes ---- */

static int lane_guessed(const tr_trace *t, uint32_t process)
{
    return tr_align_is_guess(tr_input_get(t, tr_process_get(t, process)->input)->placed);
}

/* The lanes of the tracks with anything to show, sorted; returns how many. */
static size_t make_lanes(tr_timeline_layout *l, const tl_track_scan *scan)
{
    const tr_trace *t = l->t;
    size_t n = 0;
    for (size_t i = 0; i < tr_track_count(t); i++) {
        const tl_track_scan *k = &scan[i];
        if (!k->any && !k->counter) continue;
        tl_lane *ln = &l->lanes[n++];
        memset(ln, 0, sizeof *ln);
        ln->track = (uint32_t)i;
        ln->process = tr_track_get(t, (uint32_t)i)->process;
        ln->depth = k->depth;
        ln->has_instants = k->instants;
        ln->is_counter = k->counter && !k->depth;
        ln->has_counter = k->counter;
        ln->thin = !k->counter && k->events <= THIN_EVENTS && k->busy < (l->t1 - l->t0) / 100;
        ln->guess = lane_guessed(t, ln->process);
        ln->cmin = k->cmin < 0 ? k->cmin : 0;
        ln->cmax = k->cmax > ln->cmin ? k->cmax : ln->cmin + 1;
    }
    sort_trace = t;
    tr_qsort(l->lanes, n, sizeof *l->lanes, lane_cmp);
    return n;
}

/* Lanes past CAP fold into one summary lane at the end. */
static void summarise(tr_timeline_layout *l, size_t n, size_t cap, size_t fit)
{
    if (n > cap) {
        /* The summary lane takes the room of several. */
        if (cap + SUMMARY_ROWS - 1 > fit) cap = fit > SUMMARY_ROWS + 1 ? fit - SUMMARY_ROWS + 1 : 2;
        tl_lane *sum = &l->lanes[cap - 1];
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
}

/* Rows and height of a lane in units of a row, showing at most CAP rows. */
static double lane_units(tl_lane *ln, int cap)
{
    if (ln->track == TR_NONE) {
        ln->rows = 1;
        return SUMMARY_ROWS;
    }
    if (ln->thin) {
        ln->rows = ln->depth > 0;
        return THIN_ROWS;
    }
    int r = ln->depth < cap ? ln->depth : cap;
    if (ln->is_counter) r = cap >= 2 ? 2 : 1;
    /* A lane of markers only is one strip a row tall. */
    ln->rows = r < 1 && !ln->has_instants ? 1 : r;
    return ln->rows + (ln->has_instants ? (ln->rows ? STRIP_ROWS : 1) : 0);
}

/* Process headers only while they take little room, and some process has several lanes. */
static double header_height(const tr_timeline_layout *l, size_t n_proc, double avail)
{
    double header = HEADER_IN * l->o.dpi;
    double nested_min = fmax(3, ROW_NESTED_MIN_IN * l->o.dpi);
    int shared = 0;
    for (size_t i = 1; i < l->n_lanes; i++)
        shared |= l->lanes[i].process == l->lanes[i - 1].process && l->lanes[i].track != TR_NONE;
    if (!shared || n_proc * header > 0.25 * avail ||
        (double)l->n_lanes * nested_min > avail - (double)n_proc * header)
        return 0;
    return header;
}

/*
** Sizes the lanes for a plot of at most AVAIL pixels: the row height, rows
** per lane, process headers.  ^Returns the height the lanes take.
*/
static double size_lanes(tr_timeline_layout *l, size_t n_proc, double avail)
{
    double dpi = l->o.dpi;
    double row_max = (l->o.height_given ? ROW_MAX_GIVEN_IN : ROW_MAX_IN) * dpi;
    double lane_min = fmax(1, LANE_MIN_IN * dpi);
    size_t n = l->n_lanes;
    l->header_h = header_height(l, n_proc, avail);
    double rows_avail = avail - (l->header_h > 0 ? (double)n_proc * l->header_h : 0);
    /* Fewer rows per lane before rows get uncomfortably thin, down to one. */
    double units = 0, row_h = row_max;
    for (int cap = LANE_ROWS; cap >= 1; cap--) {
        units = 0;
        for (size_t i = 0; i < n; i++) units += l->lanes[i].units = lane_units(&l->lanes[i], cap);
        row_h = units > 0 ? rows_avail / units : row_max;
        if (row_h >= ROW_COMFORT_IN * dpi) break;
    }
    row_h = fmax(fmin(row_h, row_max), lane_min);
    double used = units * row_h + (l->header_h > 0 ? (double)n_proc * l->header_h : 0);
    /* A timeline of a few rows: they grow (to twice their height) to fill a minimum plot. */
    double min_plot = fmin(PLOT_MIN_IN * dpi, avail);
    if (!l->o.height_given && used > 0 && used < min_plot && units > 0)
        row_h = fmin(row_h * 2, row_h + (min_plot - used) / units);
    double y = 0;
    uint32_t proc = TR_NONE;
    l->total_rows = 0;
    for (size_t i = 0; i < n; i++) {
        tl_lane *ln = &l->lanes[i];
        ln->header = l->header_h > 0 && ln->process != proc && ln->track != TR_NONE;
        if (ln->header) y += l->header_h;
        proc = ln->process;
        ln->y = y;
        ln->h = row_h * ln->units;
        if (ln->track == TR_NONE) {
            ln->row_h = ln->h;
            ln->strip = 0;
        } else if (ln->thin) {
            ln->strip = ln->has_instants ? (ln->rows ? ln->h / 2 : ln->h) : 0;
            ln->row_h = ln->rows ? ln->h - ln->strip : 0;
        } else {
            ln->row_h = row_h;
            ln->strip = ln->has_instants ? row_h * (ln->rows ? STRIP_ROWS : 1) : 0;
        }
        ln->bg = ln->track == TR_NONE ? 0xfff4d6 : (i % 2 ? TR_RENDER_LANE_ODD : TR_RENDER_WHITE);
        ln->first_row = l->total_rows;
        l->total_rows += (size_t)ln->rows;
        y += ln->h;
    }
    return y;
}

/* ---- the picture, top to bottom ---- */

/* Title, subtitle and the warning line; returns the plot's top. */
static double place_titles(tr_timeline_layout *l)
{
    double y = TOP_IN * l->o.dpi;
    l->title_y = y;
    y += l->title_pt * l->px_per_pt * 1.25;
    l->subtitle_y = y;
    y += l->text_pt * l->px_per_pt * 1.3;
    if (l->warning.len) {
        l->warning_y = y;
        y += l->text_pt * l->px_per_pt * 1.3;
    }
    return y + GAP_IN * l->o.dpi;
}

/* The label column: as wide as the longest lane label, within bounds. */
static int label_width(tr_timeline_layout *l, tr_measure *m)
{
    double widest = 0;
    tr_buf b;
    tr_buf_init(&b, 0);
    for (size_t i = 0; i < l->n_lanes; i++) {
        tr_buf_reset(&b);
        if (tl_lane_label(l, &l->lanes[i], &b) < 0) {
            tr_buf_fini(&b);
            return TR_FATAL;
        }
        widest = fmax(widest, tr_measure_text(m, b.p, b.len, l->text_pt, 0));
    }
    tr_buf_fini(&b);
    double dpi = l->o.dpi;
    l->label_w = fmin(fmax(widest + 12, LABEL_MIN_IN * dpi), fmin(LABEL_MAX_IN * dpi, 0.2 * l->W));
    return TR_OK;
}

/*
** Lanes, legend and height: the lanes get what the height allows; a legend
** that does not fit beside them goes under the axis and takes from it.
*/
static int place_parts(tr_timeline_layout *l, size_t n, tr_measure *m)
{
    double dpi = l->o.dpi, margin = MARGIN_IN * dpi;
    l->py0 = place_titles(l);
    l->axis_h = 0.05 * dpi + l->text_pt * l->px_per_pt * 2.7;
    double bottom = BOTTOM_IN * dpi;
    double avail = fmax(1, l->o.height_in * dpi - l->py0 - l->axis_h - bottom);
    /* The lane cap: what fits at the thinnest lane, or what was asked. */
    size_t n_proc = 0;
    for (size_t i = 0; i < n; i++)
        if (i == 0 || l->lanes[i].process != l->lanes[i - 1].process) n_proc++;
    size_t fit = (size_t)(avail / fmax(1, LANE_MIN_IN * dpi));
    size_t cap = l->o.max_lanes && l->o.max_lanes < fit ? l->o.max_lanes : fit;
    summarise(l, n, cap < 2 ? 2 : cap, fit);
    /* Lane labels depend on whether process headers are drawn: decide that first. */
    l->header_h = header_height(l, n_proc, avail);
    if (label_width(l, m) < 0) return TR_FATAL;
    l->px = round(margin + l->label_w);
    double p = size_lanes(l, n_proc, avail);
    double below = tl_legend_below_height(l, m, (l->o.height_given ? avail : p) + l->axis_h, l->px);
    if (below > 0 && p > avail - below - GAP_IN * dpi)
        p = size_lanes(l, n_proc, fmax(1, avail - below - GAP_IN * dpi));
    for (size_t i = 0; i < l->n_lanes; i++) l->lanes[i].y += l->py0;
    l->py1 = l->py0 + fmax(p, 1);
    double end = l->py1 + l->axis_h + (below > 0 ? GAP_IN * dpi + below : 0) + bottom;
    l->H = l->o.height_given ? (int)lround(l->o.height_in * dpi) : (int)ceil(end);
    /* Whole pixels: a busy bar's column is then one pixel column of the picture. */
    double side = tl_legend_side_width(l);
    l->pw = floor(l->W - l->px - margin - (side > 0 ? side + margin : 0));
    if (l->pw < 1) l->pw = 1;
    if (below > 0)
        tl_legend_place(l, l->px, l->py1 + l->axis_h + GAP_IN * dpi);
    else
        tl_legend_place(l, l->px + l->pw + margin, l->py0);
    return TR_OK;
}

int tr_timeline_stream_new(const tr_trace *t, const tr_render_opts *o, tr_timeline_layout **out,
                           tr_error *e)
{
    *out = NULL;
    tr_timeline_layout *l = tr_calloc(1, sizeof *l);
    if (!l) return tr_error_nomem(e);
    l->t = t;
    l->reads_mark = tr_trace_read_failures(t);
    l->o = *o;
    l->W = (int)lround(o->width_in * o->dpi);
    l->px_per_pt = o->dpi / 72.0;
    l->title_pt = 12;
    l->text_pt = 7;
    l->first = INT64_MAX;
    l->last = INT64_MIN;
    tl_names_init(&l->slice_names);
    tl_names_init(&l->instant_names);
    tl_keys_init(&l->keys);
    tr_vec_init(&l->labels, sizeof(tl_label));
    tr_buf_init(&l->label_text, 0);
    tr_buf_init(&l->warning, 0);
    tl_pass_init(l);
    int rc = tr_measure_open(&l->m, o->dpi);
    l->measure_open = rc >= 0;
    if (rc < 0 || grow_tracks(l, tr_track_count(t)) < 0) {
        tr_timeline_layout_free(l);
        return tr_error_nomem(e);
    }
    *out = l;
    return TR_OK;
}

int tr_timeline_place(tr_timeline_layout *l, tr_error *e)
{
    const tr_render_opts *o = &l->o;
    size_t n_tracks = tr_track_count(l->t);
    l->lane_of = tr_malloc((n_tracks + 1) * sizeof *l->lane_of);
    l->lanes = tr_malloc((n_tracks + 1) * sizeof *l->lanes);
    if (!l->lane_of || !l->lanes || grow_tracks(l, n_tracks) < 0) return tr_error_nomem(e);
    for (size_t i = 0; i < n_tracks; i++) l->lane_of[i] = TR_NONE;
    int rc = break_axis(l, l->scan) < 0 ? tr_error_nomem(e) : tl_legend_build(l, e);
    if (rc < 0) return rc;
    /* The window: what was asked, else the events' span padded by 1% as GT's visualize does. */
    int64_t first = l->first <= l->last ? l->first : 0;
    int64_t last = l->first <= l->last ? l->last : 1000000000;
    if (last <= first) last = first + 1000;
    int64_t pad = (last - first) / 100;
    l->t0 = o->has_since ? o->since : first - pad;
    l->t1 = o->has_until ? o->until : last + pad;
    if (place_parts(l, make_lanes(l, l->scan), &l->m) < 0) return tr_error_nomem(e);
    place_segments(l);
    l->guess_w = GUESS_IN * o->dpi;
    tr_free(l->sel);
    tr_free(l->scan);
    l->sel = NULL;
    l->scan = NULL;
    rc = tl_pass_open(l, e);
    return rc < 0 ? rc : tl_labels_place(l, &l->m, e);
}

/* Both passes over the model's tables, each kind in its rows' order (as a stream hands them out).
 */
static int feed_model(tr_timeline_layout *l, int pass, tr_error *e)
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
    int (*fn)(tr_timeline_layout *, const tr_event_rec *, int, tr_error *) =
        pass ? tr_timeline_add : tr_timeline_scan;
    int rc = TR_OK;
    tr_event_rec r;
    memset(&r, 0, sizeof r);
    r.kind = TR_EV_SLICE;
    for (size_t i = 0; i < s.n && rc >= 0; i++) {
        r = (tr_event_rec){.ts = s.ts[i],
                           .dur = tr_slice_dur(&s, i),
                           .seq = i,
                           .track = s.track[i],
                           .args = s.args[i],
                           .kind = TR_EV_SLICE};
        r.u.s.name = s.name[i];
        r.u.s.cat = tr_slice_cat(&s, i);
        rc = fn(l, &r, s.depth[i], e);
    }
    for (size_t i = 0; i < in.n && rc >= 0; i++) {
        r = (tr_event_rec){.ts = in.ts[i],
                           .bytes = tr_instant_bytes(&in, i),
                           .seq = i,
                           .track = tr_instant_track(&in, i),
                           .args = in.args[i],
                           .kind = TR_EV_INSTANT,
                           .scope = (uint8_t)tr_instant_scope(&in, i)};
        r.u.s.name = tr_instant_name(&in, i);
        rc = fn(l, &r, 0, e);
    }
    for (size_t i = 0; i < cn.n && rc >= 0; i++) {
        r = (tr_event_rec){.ts = cn.ts[i], .seq = i, .track = cn.track[i], .kind = TR_EV_COUNTER};
        r.u.value = cn.value[i];
        rc = fn(l, &r, 0, e);
    }
    for (size_t i = 0; i < sm.n && rc >= 0; i++) {
        r = (tr_event_rec){.ts = sm.ts[i], .seq = i, .track = sm.track[i], .kind = TR_EV_SAMPLE};
        rc = fn(l, &r, 0, e);
    }
    return rc;
}

int tr_timeline_layout_new(const tr_trace *t, const tr_render_opts *o, tr_timeline_layout **out,
                           tr_error *e)
{
    tr_timeline_layout *l;
    int rc = tr_timeline_stream_new(t, o, &l, e);
    if (rc < 0) return rc;
    size_t nf = tr_flow_count(t);
    rc = feed_model(l, 0, e);
    for (size_t i = 0; i < nf && rc >= 0; i++) {
        tr_flow f;
        tr_flow_get(t, (uint32_t)i, &f);
        rc = tr_timeline_flow(l, &f, e);
    }
    if (rc >= 0) rc = tr_timeline_place(l, e);
    if (rc >= 0) rc = feed_model(l, 1, e);
    if (rc >= 0) rc = tr_timeline_finish(l, e);
    if (rc < 0) {
        tr_timeline_layout_free(l);
        return rc;
    }
    *out = l;
    return TR_OK;
}

/* ---- the public view ---- */

/* Linear within a segment and across the gap after it; outside, the nearest segment's scale. */
double tr_timeline_x(const tr_timeline_layout *l, int64_t ts)
{
    size_t i = 0;
    while (i + 1 < l->n_segs && ts > l->segs[i].t1) i++;
    const tl_segment *g = &l->segs[i];
    if (i > 0 && ts < g->t0) {
        const tl_segment *p = &l->segs[i - 1];
        return p->x1 + (g->x0 - p->x1) * (double)(ts - p->t1) / (double)(g->t0 - p->t1);
    }
    return g->x0 + (double)(ts - g->t0) * (g->x1 - g->x0) / (double)(g->t1 - g->t0);
}

size_t tr_timeline_segment_count(const tr_timeline_layout *l)
{
    return l->n_segs;
}

int tr_timeline_segment(const tr_timeline_layout *l, size_t i, int64_t *t0, int64_t *t1, double *x0,
                        double *x1)
{
    if (i >= l->n_segs) return 0;
    *t0 = l->segs[i].t0;
    *t1 = l->segs[i].t1;
    *x0 = l->segs[i].x0;
    *x1 = l->segs[i].x1;
    return 1;
}

int tr_timeline_guess_mark(const tr_timeline_layout *l, uint32_t track, tr_render_box *box)
{
    if (track >= tr_track_count(l->t) || l->lane_of[track] == TR_NONE) return 0;
    const tl_lane *ln = &l->lanes[l->lane_of[track]];
    if (ln->track != track || !ln->guess) return 0;
    *box = (tr_render_box){l->px, ln->y, l->px + l->guess_w, ln->y + ln->h, TR_PART_PLOT};
    return 1;
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
    const tl_lane *ln = &l->lanes[l->lane_of[track]];
    if (ln->track != track || ln->rows == 0) return 0;
    int r = depth < ln->rows ? depth : ln->rows - 1;
    if (r < 0) r = 0;
    *y0 = ln->y + ln->strip + r * ln->row_h;
    *y1 = *y0 + ln->row_h;
    if (bg) *bg = ln->bg;
    return 1;
}

void tr_timeline_size(const tr_timeline_layout *l, int *w, int *h)
{
    *w = l->W;
    *h = l->H;
}

const char *tr_timeline_warning(const tr_timeline_layout *l)
{
    return l->warning.p;
}

/* Parts: title, subtitle, the warning line when any, the lanes, the axis, the legend when any. */
size_t tr_timeline_part_count(const tr_timeline_layout *l)
{
    return 2 + (l->warning.len > 0) + l->n_lanes + 1 + (l->legend.cols > 0);
}

int tr_timeline_part(const tr_timeline_layout *l, size_t i, tr_render_box *box)
{
    double text = l->text_pt * l->px_per_pt * 1.17;
    size_t notes = 1 + (l->warning.len > 0);
    *box = (tr_render_box){0, 0, l->W, 0, TR_PART_NOTE};
    if (i == 0) {
        box->kind = TR_PART_TITLE;
        box->y0 = l->title_y;
        box->y1 = l->title_y + l->title_pt * l->px_per_pt * 1.17;
    } else if (i <= notes) {
        box->y0 = i == 1 ? l->subtitle_y : l->warning_y;
        box->y1 = box->y0 + text;
    } else if (i <= notes + l->n_lanes) {
        const tl_lane *ln = &l->lanes[i - notes - 1];
        *box = (tr_render_box){0.12 * l->o.dpi, ln->y - (ln->header ? l->header_h : 0),
                               l->px + l->pw, ln->y + ln->h, TR_PART_PLOT};
    } else if (i == notes + l->n_lanes + 1) {
        *box = (tr_render_box){l->px, l->py1, l->px + l->pw, l->py1 + l->axis_h, TR_PART_AXIS};
    } else if (i == notes + l->n_lanes + 2 && l->legend.cols > 0) {
        const tl_legend *g = &l->legend;
        *box = (tr_render_box){g->x, g->y, g->x + g->w, g->y + g->h, TR_PART_LEGEND};
    } else {
        return 0;
    }
    return 1;
}
