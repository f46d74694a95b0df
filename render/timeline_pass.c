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

/* What a flow end's event gives: its ends' columns (from: a slice's end, to: its start) and row. */
typedef struct tl_pos {
    uint64_t event; /* TL_WANT_EVENT */
    double x_from, x_to, y;
} tl_pos;

/* A flow end's point, sorted back by end (flow * 2 + 0 from, 1 to). */
typedef struct tl_end {
    uint64_t end;
    double x, y;
} tl_end;

/* The flow ends held in memory unless tr_timeline_spill says otherwise. */
#define TL_FLOW_BUDGET_MEMORY ((size_t)1 << 60)

void tl_pass_init(tr_timeline_layout *l)
{
    tl_pixels *ps = &l->px_state;
    memset(ps, 0, sizeof *ps);
    tr_vec_init(&ps->rects, sizeof(tl_rect));
    tr_vec_init(&ps->samples, sizeof(tl_sample_mark));
    tr_vec_init(&ps->globals, sizeof(double));
    tr_vec_init(&ps->markers, sizeof(tl_marker));
    tr_vec_init(&ps->arrows, sizeof(tl_arrow));
    ps->flow_budget = TL_FLOW_BUDGET_MEMORY;
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
    for (int k = 0; k < 2; k++) tr_free(ps->wanted[k]);
    tr_sorter_close(ps->want);
    tr_sorter_close(ps->pos);
    tr_vec_fini(&ps->rects);
    tr_vec_fini(&ps->samples);
    tr_vec_fini(&ps->globals);
    tr_vec_fini(&ps->markers);
    tr_vec_fini(&ps->arrows);
}

void tr_timeline_spill(tr_timeline_layout *l, size_t budget, const char *tmpdir)
{
    l->px_state.flow_budget = budget;
    l->px_state.flow_tmpdir = tmpdir;
}

static int u64_cmp(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* A sorter of the flow ends' records, each keyed by its first 8 bytes (u64_cmp). */
static int flow_sorter(const tl_pixels *ps, tr_sorter **s, size_t rec_size, tr_sorter_cmp cmp,
                       tr_error *e)
{
    tr_sorter_opts o = {
        .rec_size = rec_size, .cmp = cmp, .budget = ps->flow_budget / 3, .tmpdir = ps->flow_tmpdir};
    return tr_sorter_open(s, &o, e);
}

/* Marks the event named by flow end REF (kind, seq) as wanted and keeps its key. */
static int want_end(tl_pixels *ps, tr_ref ref, uint32_t end, tr_error *e)
{
    int k = TR_REF_KIND(ref);
    if (k != TR_EV_SLICE && k != TR_EV_INSTANT) return TR_OK; /* never drawn */
    size_t seq = TR_REF_ROW(ref), byte = seq / 8;
    if (byte >= ps->n_wanted[k]) {
        size_t n = byte + 1 > 2 * ps->n_wanted[k] ? byte + 1 : 2 * ps->n_wanted[k];
        uint8_t *p = tr_realloc(ps->wanted[k], n);
        if (!p) return tr_error_nomem(e);
        memset(p + ps->n_wanted[k], 0, n - ps->n_wanted[k]);
        ps->wanted[k] = p;
        ps->n_wanted[k] = n;
    }
    ps->wanted[k][byte] |= (uint8_t)(1u << (seq % 8));
    uint64_t w = TL_WANT(k, seq, end);
    return tr_sorter_push(ps->want, &w, e);
}

int tr_timeline_flow(tr_timeline_layout *l, const tr_flow *f, tr_error *e)
{
    tl_pixels *ps = &l->px_state;
    if (ps->n_flows + 1 >= TL_FLOWS_MAX)
        return tr_errorf(e, TR_E_LIMIT, NULL, "more than 2^30 flows: more than a timeline draws");
    int rc = ps->want ? TR_OK : flow_sorter(ps, &ps->want, sizeof(uint64_t), u64_cmp, e);
    uint32_t end = (uint32_t)(2 * ps->n_flows++);
    if (rc == TR_OK) rc = want_end(ps, f->from, end, e);
    return rc == TR_OK ? want_end(ps, f->to, end + 1, e) : rc;
}

int tl_pass_open(tr_timeline_layout *l, tr_error *e)
{
    tl_pixels *ps = &l->px_state;
    ps->cols = (int)ceil(l->pw);
    size_t lanes = l->n_lanes + 1, n_runs = lanes * TR_SHAPE_COUNT;
    ps->rows = tr_calloc(l->total_rows + 1, sizeof *ps->rows);
    ps->counter = tr_calloc(lanes, sizeof *ps->counter);
    ps->before = tr_malloc(lanes * sizeof *ps->before);
    ps->sample_x = tr_malloc(lanes * sizeof *ps->sample_x);
    ps->runs = tr_malloc(n_runs * sizeof *ps->runs);
    ps->row_end = tr_malloc((l->total_rows + 1) * sizeof *ps->row_end);
    if (!ps->rows || !ps->counter || !ps->before || !ps->sample_x || !ps->runs || !ps->row_end)
        return tr_error_nomem(e);
    for (size_t i = 0; i < lanes; i++) ps->before[i] = NAN, ps->sample_x[i] = -1e9;
    for (size_t i = 0; i < n_runs; i++) ps->runs[i].shape = -1;
    for (size_t i = 0; i <= l->total_rows; i++) ps->row_end[i] = -1e300;
    return ps->want ? flow_sorter(ps, &ps->pos, sizeof(tl_pos), u64_cmp, e) : TR_OK;
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

/* Keeps where the flow ends that name EV are drawn: the layout is made, so that is known. */
static int meet_end(tr_timeline_layout *l, const tr_event_rec *ev, int depth, tr_error *e)
{
    tl_pixels *ps = &l->px_state;
    int k = ev->kind;
    size_t byte = ev->seq / 8;
    if (byte >= ps->n_wanted[k] || !(ps->wanted[k][byte] >> (ev->seq % 8) & 1)) return TR_OK;
    tl_pos p = {.event = TL_WANT_EVENT(TL_WANT(k, ev->seq, 0))};
    if (!flow_end(l, ev, depth, 1, &p.x_from, &p.y) || !flow_end(l, ev, depth, 0, &p.x_to, &p.y))
        p.x_from = p.x_to = NAN;
    return tr_sorter_push(ps->pos, &p, e);
}

int tr_timeline_add(tr_timeline_layout *l, const tr_event_rec *ev, int depth, tr_error *e)
{
    int rc = TR_OK;
    if (ev->kind <= TR_EV_INSTANT && (rc = meet_end(l, ev, depth, e)) != TR_OK) return rc;
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
    const tl_arrow *a = ps->arrows.data;
    int rc = TR_OK;
    for (size_t i = 0; i < ps->arrows.len && rc == TR_OK; i++) rc = fn(ctx, &a[i]);
    return rc < 0 ? rc : TR_OK;
}

/*
** Each end's point, sorted by end: the ends (by event) merged with the
** events they name (by event); an end whose event was not met (no lane, or
** not a slice or instant) has none.
*/
static int flows_join(tl_pixels *ps, tr_sorter *pts, tr_error *e)
{
    const void *w, *p = NULL;
    int rc, prc = tr_sorter_next(ps->pos, &p, e);
    while ((rc = tr_sorter_next(ps->want, &w, e)) == TR_OK) {
        uint64_t want = *(const uint64_t *)w, event = TL_WANT_EVENT(want);
        while (prc == TR_OK && ((const tl_pos *)p)->event < event)
            prc = tr_sorter_next(ps->pos, &p, e);
        if (prc != TR_OK && prc != TR_END) return prc;
        const tl_pos *pos = prc == TR_OK ? p : NULL;
        if (!pos || pos->event != event || isnan(pos->x_from)) continue;
        uint32_t end = TL_WANT_END(want);
        tl_end pt = {end, end & 1 ? pos->x_to : pos->x_from, pos->y};
        if ((rc = tr_sorter_push(pts, &pt, e)) != TR_OK) return rc;
    }
    return rc == TR_END ? TR_OK : rc;
}

/*
** The arrows drawn, in flow order: both ends met, one in the plot, pixel ends
** not seen just before (a table of the last 2^16).  Arrows are a level of
** detail too: past one per TL_FLOW_MIN_PX columns they are a grey smear, so
** none is drawn and the subtitle says so.
*/
static int flows_arrows(tr_timeline_layout *l, tr_sorter *pts, tr_error *e)
{
    tl_pixels *ps = &l->px_state;
    size_t cap = 1 << 16, max = (size_t)(l->pw / TL_FLOW_MIN_PX);
    uint64_t *seen = tr_calloc(cap, sizeof *seen);
    if (!seen) return tr_error_nomem(e);
    double right = l->px + l->pw;
    tl_end from = {UINT64_MAX, 0, 0};
    const void *rec;
    int rc;
    while ((rc = tr_sorter_next(pts, &rec, e)) == TR_OK) {
        const tl_end *to = rec;
        if (!(to->end & 1)) {
            from = *to;
            continue;
        }
        if (from.end != to->end - 1) continue;
        tl_arrow a = {.x0 = from.x, .y0 = from.y, .x1 = to->x, .y1 = to->y};
        if ((a.x0 < l->px && a.x1 < l->px) || (a.x0 > right && a.x1 > right)) continue;
        uint64_t key =
            ((uint64_t)(uint16_t)lround(a.x0) << 48 | (uint64_t)(uint16_t)lround(a.y0) << 32 |
             (uint64_t)(uint16_t)lround(a.x1) << 16 | (uint16_t)lround(a.y1)) +
            1;
        size_t h = (size_t)tr_hash_mix(key) & (cap - 1);
        if (seen[h] == key) continue;
        seen[h] = key;
        if (ps->arrows.len == max) {
            l->flows_hidden = 1;
            ps->arrows.len = 0;
            break;
        }
        tl_arrow *out = tr_vec_push(&ps->arrows);
        if (!out) {
            rc = tr_error_nomem(e);
            break;
        }
        *out = a;
    }
    tr_free(seen);
    return rc == TR_END || rc == TR_OK ? TR_OK : rc;
}

int tr_timeline_finish(tr_timeline_layout *l, tr_error *e)
{
    tl_pixels *ps = &l->px_state;
    if (tl_markers_end(l) < 0) return tr_error_nomem(e);
    tr_sorter *pts = NULL;
    int rc = ps->want ? flow_sorter(ps, &pts, sizeof(tl_end), u64_cmp, e) : TR_OK;
    if (rc == TR_OK && ps->want) rc = flows_join(ps, pts, e);
    tr_sorter_close(ps->want);
    tr_sorter_close(ps->pos);
    ps->want = ps->pos = NULL;
    if (rc == TR_OK && pts) rc = flows_arrows(l, pts, e);
    tr_sorter_close(pts);
    if (rc != TR_OK) return rc;
    return tl_labels_ids(l) < 0 ? tr_error_nomem(e) : TR_OK;
}
