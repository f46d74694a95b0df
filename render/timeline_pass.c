/*
** timeline_pass.c: the second pass of a timeline, event by event.
**
** The layout (timeline_layout.c) is made from a first pass; the second
** meets every event again and keeps only what is drawn, at pixel
** resolution: a slice a pixel wide or more is a rectangle (non-overlapping
** on a lane row, so at most a row's width of them), a narrower one adds its
** time to its row's busy bar for that pixel column (level of detail, so a
** lane of ten million slices costs ten million additions and a few
** thousand rectangles), a counter keeps its peak per column, a sample one
** mark per column, instants of one shape closer than a pixel on a lane are
** one marker, and flow ends keep where their events are.  The events may
** come from the model's tables or from a stream (tr_stream.h): each kind in
** the same order, so the picture is the same.  The drawing (timeline.c)
** reads only what this keeps.
*/
#include "timeline_impl.h"

#include <math.h>
#include <stdlib.h>

/* ---- state ---- */

void tl_pass_init(tr_timeline_layout *l)
{
    tl_pixels *ps = &l->px_state;
    memset(ps, 0, sizeof *ps);
    tr_vec_init(&ps->rects, sizeof(tl_rect));
    tr_vec_init(&ps->samples, sizeof(tl_sample_mark));
    tr_vec_init(&ps->globals, sizeof(double));
    tr_vec_init(&ps->markers, sizeof(tl_marker));
    tr_vec_init(&ps->flows_owned, sizeof(tr_flow));
    tr_vec_init(&ps->want, sizeof(uint64_t));
}

void tl_pass_fini(tr_timeline_layout *l)
{
    tl_pixels *ps = &l->px_state;
    for (size_t i = 0; ps->rows && i < l->total_rows; i++) {
        tr_free(ps->rows[i].busy);
        tr_free(ps->rows[i].rgb);
        tr_free(ps->rows[i].longest);
    }
    for (size_t i = 0; ps->counter && i < l->n_lanes; i++) tr_free(ps->counter[i]);
    tr_free(ps->rows);
    tr_free(ps->counter);
    tr_free(ps->before);
    tr_free(ps->sample_x);
    tr_free(ps->runs);
    tr_free(ps->row_end);
    tr_free(ps->ends);
    for (int k = 0; k < 2; k++) tr_free(ps->wanted[k]);
    tr_vec_fini(&ps->rects);
    tr_vec_fini(&ps->samples);
    tr_vec_fini(&ps->globals);
    tr_vec_fini(&ps->markers);
    tr_vec_fini(&ps->flows_owned);
    tr_vec_fini(&ps->want);
}

static int want_cmp(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* Marks the seq named by flow end REF (kind, seq) as wanted; TR_FATAL when out of memory. */
static int want_end(tl_pixels *ps, tr_ref ref, uint32_t end)
{
    int k = TR_REF_KIND(ref);
    ps->ends[end].x = NAN;
    if (k != TR_EV_SLICE && k != TR_EV_INSTANT) return TR_OK;
    uint64_t *w = tr_vec_push(&ps->want);
    if (!w) return TR_FATAL;
    size_t seq = TR_REF_ROW(ref);
    *w = TL_WANT(k, seq, end);
    if (seq >= ps->n_wanted[k]) {
        size_t n = seq + 1 > 2 * ps->n_wanted[k] ? seq + 1 : 2 * ps->n_wanted[k];
        uint8_t *p = tr_realloc(ps->wanted[k], n);
        if (!p) return TR_FATAL;
        memset(p + ps->n_wanted[k], 0, n - ps->n_wanted[k]);
        ps->wanted[k] = p;
        ps->n_wanted[k] = n;
    }
    ps->wanted[k][seq] = 1;
    return TR_OK;
}

int tl_pass_open(tr_timeline_layout *l, const tr_flow *flows, size_t n, tr_error *e)
{
    tl_pixels *ps = &l->px_state;
    ps->cols = (int)ceil(l->pw);
    ps->flows = flows;
    ps->n_flows = n;
    size_t lanes = l->n_lanes + 1, n_runs = lanes * TR_SHAPE_COUNT;
    ps->rows = tr_calloc(l->total_rows + 1, sizeof *ps->rows);
    ps->counter = tr_calloc(lanes, sizeof *ps->counter);
    ps->before = tr_malloc(lanes * sizeof *ps->before);
    ps->sample_x = tr_malloc(lanes * sizeof *ps->sample_x);
    ps->runs = tr_malloc(n_runs * sizeof *ps->runs);
    ps->row_end = tr_malloc((l->total_rows + 1) * sizeof *ps->row_end);
    if (n >= TL_FLOWS_MAX)
        return tr_errorf(e, TR_E_LIMIT, NULL, "%zu flows: more than a timeline draws (2^30)", n);
    ps->ends = tr_malloc((2 * n + 1) * sizeof *ps->ends);
    if (!ps->rows || !ps->counter || !ps->before || !ps->sample_x || !ps->runs || !ps->row_end ||
        !ps->ends)
        return tr_error_nomem(e);
    for (size_t i = 0; i < lanes; i++) ps->before[i] = NAN, ps->sample_x[i] = -1e9;
    for (size_t i = 0; i < n_runs; i++) ps->runs[i].shape = -1;
    for (size_t i = 0; i <= l->total_rows; i++) ps->row_end[i] = -1e300;
    for (size_t i = 0; i < n; i++)
        if (want_end(ps, flows[i].from, (uint32_t)(2 * i)) < 0 ||
            want_end(ps, flows[i].to, (uint32_t)(2 * i + 1)) < 0)
            return tr_error_nomem(e);
    tr_qsort(ps->want.data, ps->want.len, sizeof(uint64_t), want_cmp);
    return TR_OK;
}

/* ---- slices ---- */

static tl_busy_row *row_get(tl_pixels *ps, size_t row)
{
    tl_busy_row *r = &ps->rows[row];
    if (!r->busy) {
        r->busy = tr_calloc((size_t)ps->cols, sizeof *r->busy);
        r->rgb = tr_calloc((size_t)ps->cols, sizeof *r->rgb);
        r->longest = tr_calloc((size_t)ps->cols, sizeof *r->longest);
        if (!r->busy || !r->rgb || !r->longest) return NULL;
    }
    return r;
}

/* Adds [a, b) ns of colour RGB to row ROW's busy bars (in shares of a column: axis segments
 * differ). */
static int busy_add(tr_timeline_layout *l, size_t row, int64_t a, int64_t b, uint32_t rgb)
{
    tl_pixels *ps = &l->px_state;
    tl_busy_row *r = row_get(ps, row);
    if (!r) return TR_FATAL;
    double xa = tr_timeline_x(l, a) - l->px, xb = tr_timeline_x(l, b) - l->px;
    int ca = (int)floor(xa), cb = (int)floor(xb);
    for (int c = ca; c <= cb && c < ps->cols; c++) {
        if (c < 0) continue;
        double lo = fmax(xa, c), hi = fmin(xb, c + 1.0);
        float part = (float)(hi > lo ? hi - lo : 0);
        /* Even an instant-long op marks its column: the bar has a minimum height. */
        r->busy[c] += part > 0 ? part : 1e-9f;
        if (part >= r->longest[c]) {
            r->longest[c] = part;
            r->rgb[c] = rgb;
        }
    }
    return TR_OK;
}

static uint32_t colour_of(const tl_names *m, tr_str name)
{
    const tl_name *s = tl_names_find(m, name);
    return s ? s->rgb : 0x888888;
}

static int add_slice(tr_timeline_layout *l, const tr_event_rec *ev, int depth)
{
    tl_pixels *ps = &l->px_state;
    uint32_t li = l->lane_of[ev->track];
    if (li == TR_NONE) return TR_OK;
    int64_t a = ev->ts, b = tr_time_add(ev->ts, ev->dur);
    if (b < l->t0 || a > l->t1) return TR_OK;
    const tl_lane *ln = &l->lanes[li];
    uint32_t keys[TL_KEYS_MAX];
    int nk = tl_slice_keys(l, ev->u.s.name, ev->u.s.cat, ev->args, keys);
    if (nk < 0 || tl_label_slice(l, ev, depth, keys, nk) < 0) return TR_FATAL;
    if (ln->rows == 0) return TR_OK;
    int r = depth < ln->rows ? depth : ln->rows - 1;
    if (ln->track == TR_NONE) r = 0;
    double x0 = tr_timeline_x(l, a), x1 = tr_timeline_x(l, b);
    if (x1 - x0 < 1 || ln->track == TR_NONE) {
        ps->st.slices_merged++;
        return busy_add(l, ln->first_row + (size_t)r, a < l->t0 ? l->t0 : a, b > l->t1 ? l->t1 : b,
                        colour_of(&l->slice_names, keys[0]));
    }
    tl_rect *rect = tr_vec_push(&ps->rects);
    if (!rect) return TR_FATAL;
    *rect = (tl_rect){x0, x1, li, r, nk, {0}};
    memcpy(rect->keys, keys, (size_t)nk * sizeof *keys);
    ps->st.slices_drawn++;
    return TR_OK;
}

/* ---- counters, samples, instants ---- */

static int add_counter(tr_timeline_layout *l, const tr_event_rec *ev)
{
    tl_pixels *ps = &l->px_state;
    uint32_t li = l->lane_of[ev->track];
    if (li == TR_NONE) return TR_OK;
    const tl_lane *ln = &l->lanes[li];
    double v = ev->u.value;
    if (!ln->has_counter || ln->track != ev->track || !isfinite(v) || ev->ts > l->t1) return TR_OK;
    if (ev->ts < l->t0) {
        ps->before[li] = v;
        return TR_OK;
    }
    size_t cols = (size_t)ps->cols;
    double *val = ps->counter[li];
    if (!val) {
        val = ps->counter[li] = tr_malloc(cols * sizeof *val);
        if (!val) return TR_FATAL;
        for (size_t c = 0; c < cols; c++) val[c] = NAN;
    }
    double x = tr_timeline_x(l, ev->ts) - l->px;
    size_t c = x > 0 ? (size_t)x : 0;
    if (c >= cols) c = cols - 1;
    /* The column keeps its peak, so a spike narrower than a pixel still shows. */
    val[c] = isnan(val[c]) || v > val[c] ? v : val[c];
    return TR_OK;
}

static int add_sample(tr_timeline_layout *l, const tr_event_rec *ev)
{
    tl_pixels *ps = &l->px_state;
    ps->any_samples = 1;
    uint32_t li = l->lane_of[ev->track];
    if (li == TR_NONE || ev->ts < l->t0 || ev->ts > l->t1) return TR_OK;
    double x = floor(tr_timeline_x(l, ev->ts));
    if (x == ps->sample_x[li]) return TR_OK;
    ps->sample_x[li] = x;
    tl_sample_mark *m = tr_vec_push(&ps->samples);
    if (!m) return TR_FATAL;
    *m = (tl_sample_mark){x, li};
    return TR_OK;
}

static int add_instant(tr_timeline_layout *l, const tr_event_rec *ev)
{
    uint32_t li = l->lane_of[ev->track];
    if (li == TR_NONE || ev->ts < l->t0 || ev->ts > l->t1) return TR_OK;
    const tl_lane *ln = &l->lanes[li];
    if (ln->strip <= 0) return TR_OK; /* summarised */
    /* A global instant is a line across the plot. */
    if (ev->scope == TR_SCOPE_GLOBAL) {
        double *x = tr_vec_push(&l->px_state.globals);
        if (!x) return TR_FATAL;
        *x = tr_timeline_x(l, ev->ts);
    }
    return tl_marker_add(l, ln, li, ev);
}

/* ---- flow ends ---- */

/*
** Where a flow end on EV (met with its nesting DEPTH) is drawn: a slice's
** row at its end when the flow leaves it (FROM), at its start when the flow
** reaches it; an instant's marker, else its lane's first row.  0 when it
** has no lane.
*/
static int flow_end(const tr_timeline_layout *l, const tr_event_rec *ev, int depth, int from,
                    double *x, double *y)
{
    int64_t ts = ev->ts;
    if (ev->kind == TR_EV_SLICE) {
        if (from) ts = tr_time_add(ev->ts, ev->dur);
    } else {
        uint32_t li = ev->track < tr_track_count(l->t) ? l->lane_of[ev->track] : TR_NONE;
        if (li != TR_NONE && l->lanes[li].strip > 0 && l->lanes[li].track == ev->track) {
            *x = tr_timeline_x(l, ts);
            *y = l->lanes[li].y + l->lanes[li].strip / 2;
            return 1;
        }
        depth = 0;
    }
    double y0, y1;
    if (!tr_timeline_row(l, ev->track, depth, &y0, &y1, NULL)) return 0;
    *x = tr_timeline_x(l, ts);
    *y = (y0 + y1) / 2;
    return 1;
}

/* Places the flow ends that name EV: the layout is made, so where they are drawn is known. */
static void meet_end(tr_timeline_layout *l, const tr_event_rec *ev, int depth)
{
    tl_pixels *ps = &l->px_state;
    int k = ev->kind;
    if (ev->seq >= ps->n_wanted[k] || !ps->wanted[k][ev->seq]) return;
    uint64_t event = TL_WANT_EVENT(TL_WANT(k, ev->seq, 0));
    const uint64_t *w = ps->want.data;
    size_t lo = 0, hi = ps->want.len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (TL_WANT_EVENT(w[mid]) < event)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < ps->want.len && TL_WANT_EVENT(w[lo]) == event; lo++) {
        uint32_t end = TL_WANT_END(w[lo]);
        tl_point *pt = &ps->ends[end];
        if (!flow_end(l, ev, depth, !(end & 1), &pt->x, &pt->y)) pt->x = NAN;
    }
}

int tr_timeline_add(tr_timeline_layout *l, const tr_event_rec *ev, int depth, tr_error *e)
{
    int rc = TR_OK;
    if (ev->kind <= TR_EV_INSTANT) meet_end(l, ev, depth);
    if (ev->track >= tr_track_count(l->t)) return TR_OK;
    switch (ev->kind) {
    case TR_EV_SLICE:
        rc = add_slice(l, ev, depth);
        break;
    case TR_EV_INSTANT:
        rc = add_instant(l, ev);
        break;
    case TR_EV_COUNTER:
        rc = add_counter(l, ev);
        break;
    default:
        rc = add_sample(l, ev);
        break;
    }
    return rc < 0 ? tr_error_nomem(e) : TR_OK;
}

int tl_flows(const tr_timeline_layout *l, tl_arrow_fn fn, void *ctx)
{
    const tl_pixels *ps = &l->px_state;
    size_t n = ps->n_flows;
    /* Arrows with the same pixel ends are one. */
    size_t cap = 1 << 16;
    uint64_t *seen = n ? tr_calloc(cap, sizeof *seen) : NULL;
    if (n && !seen) return TR_FATAL;
    int rc = TR_OK;
    double right = l->px + l->pw;
    for (size_t i = 0; i < n && rc == TR_OK; i++) {
        const tl_point *from = &ps->ends[2 * i], *to = &ps->ends[2 * i + 1];
        if (isnan(from->x) || isnan(to->x)) continue;
        tl_arrow a = {.x0 = from->x, .y0 = from->y, .x1 = to->x, .y1 = to->y};
        if ((a.x0 < l->px && a.x1 < l->px) || (a.x0 > right && a.x1 > right)) continue;
        uint64_t key =
            ((uint64_t)(uint16_t)lround(a.x0) << 48 | (uint64_t)(uint16_t)lround(a.y0) << 32 |
             (uint64_t)(uint16_t)lround(a.x1) << 16 | (uint16_t)lround(a.y1)) +
            1;
        size_t h = (size_t)tr_hash_mix(key) & (cap - 1);
        if (seen[h] == key) continue;
        seen[h] = key;
        rc = fn(ctx, &a);
    }
    tr_free(seen);
    return rc < 0 ? rc : TR_OK;
}

typedef struct arrow_count {
    size_t n, max;
} arrow_count;

static int count_arrow(void *ctx, const tl_arrow *a)
{
    (void)a;
    arrow_count *c = ctx;
    return ++c->n > c->max; /* past the limit: stop counting */
}

/*
** Arrows are a level of detail too: past one per TL_FLOW_MIN_PX columns
** (arrows with the same pixel ends counted once) they are a grey smear, so
** none is drawn and the subtitle says so.  Counting stops at the limit.
*/
int tr_timeline_finish(tr_timeline_layout *l, tr_error *e)
{
    arrow_count c = {0, (size_t)(l->pw / TL_FLOW_MIN_PX)};
    if (tl_markers_end(l) < 0 || tl_flows(l, count_arrow, &c) < 0) return tr_error_nomem(e);
    l->flows_hidden = c.n > c.max;
    return tl_labels_ids(l) < 0 ? tr_error_nomem(e) : TR_OK;
}
