/*
** labels.c: every text a timeline places in or beside its plot, placed once
** by the layout so that none overprints another: lane names (thinned where
** lanes are thinner than their text), process headers, slice names inside
** slices wide enough (not in a lane's last row when deeper slices share it),
** counter peaks, and --annotate's instruction ids beside markers (the first
** of a run, and only where the one before on that lane's strip has ended).
** Each label's box is kept, so a test can check that no two overlap.
*/
#include "timeline_impl.h"

#include "tr_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- markers as drawn ---- */

/* Marker radius: area grows with the instant's size where the trace has sizes. */
static double marker_radius(const tr_timeline_layout *l, const tl_lane *ln, int64_t bytes)
{
    double rmax = fmin(ln->strip * 0.45, 0.06 * l->o.dpi);
    double rmin = fmax(1, rmax * 0.3);
    if (bytes < 0 || l->max_bytes <= 0) return fmax(rmin, rmax * 0.55);
    return rmin + (rmax - rmin) * sqrt((double)bytes / (double)l->max_bytes);
}

static int64_t instant_seq(const tr_trace *t, uint32_t args)
{
    tr_arg seq;
    if (args && tr_args_find(t, args, "seq", &seq) &&
        (seq.type == TR_ARG_INT || seq.type == TR_ARG_UINT) && seq.v.i >= 0)
        return seq.v.i;
    return -1;
}

int tl_marker_add(tr_timeline_layout *l, const tl_lane *ln, uint32_t li, const tr_event_rec *ev)
{
    tl_pixels *ps = &l->px_state;
    double x = tr_timeline_x(l, ev->ts);
    size_t n;
    const char *name = tr_str_get(l->t, ev->u.s.name, &n);
    int shape = tr_render_marker_shape(name, n);
    double r = marker_radius(l, ln, ev->bytes);
    tl_marker *m = &ps->runs[li * TR_SHAPE_COUNT + (size_t)shape];
    if (m->shape == shape && x - m->x < fmax(1, m->r * 0.5)) {
        if (r > m->r) m->r = r;
        ps->st.markers_merged++;
        return TR_OK;
    }
    if (m->shape >= 0) {
        tl_marker *out = tr_vec_push(&ps->markers);
        if (!out) return TR_FATAL;
        *out = *m;
    }
    const tl_name *nm = tl_names_find(&l->instant_names, ev->u.s.name);
    *m = (tl_marker){.x = x,
                     .y = ln->y + ln->strip / 2,
                     .r = r,
                     .top = ln->y,
                     .shape = shape,
                     .lane = li,
                     .rgb = nm ? nm->rgb : 0x888888,
                     .seq = l->o.annotate ? instant_seq(l->t, ev->args) : -1};
    return TR_OK;
}

int tl_markers_end(tr_timeline_layout *l)
{
    tl_pixels *ps = &l->px_state;
    size_t n_runs = l->n_lanes * TR_SHAPE_COUNT;
    for (size_t i = 0; ps->runs && i < n_runs; i++) {
        if (ps->runs[i].shape < 0) continue;
        tl_marker *out = tr_vec_push(&ps->markers);
        if (!out) return TR_FATAL;
        *out = ps->runs[i];
        ps->runs[i].shape = -1;
    }
    return TR_OK;
}

int tl_markers(const tr_timeline_layout *l, tl_marker_fn fn, void *ctx)
{
    int rc = TR_OK;
    for (size_t i = 0; i < l->px_state.markers.len && rc >= 0; i++)
        rc = fn(ctx, &TR_VEC_AT(&l->px_state.markers, tl_marker, i));
    return rc;
}

/* ---- adding labels ---- */

typedef struct placer {
    tr_timeline_layout *l;
    tr_measure *m;
    double *row_end; /* per lane row: where the last slice label placed there ends */
    tr_vec ids;      /* candidate id labels (tl_label), placed after sorting */
} placer;

/* Adds a label of TEXT (N bytes) drawn at X (aligned ALIGN), Y, no wider than MAX_W. */
static tl_label *add_label(placer *p, int kind, const char *text, size_t n, double x, double y,
                           double max_w, double pt, int bold, int align, uint32_t rgb, tr_vec *to)
{
    tr_timeline_layout *l = p->l;
    double w = fmin(tr_measure_text(p->m, text, n, pt, bold), max_w);
    tl_label *lb = tr_vec_push(to);
    if (!lb) return NULL;
    lb->off = l->label_text.len;
    lb->len = n;
    if (tr_buf_add(&l->label_text, text, n) < 0) return NULL;
    lb->kind = kind;
    lb->x = x;
    lb->max_w = max_w;
    lb->pt = pt;
    lb->bold = bold;
    lb->align = align;
    lb->rgb = rgb;
    lb->x0 = align == TR_ALIGN_RIGHT ? x - w : align == TR_ALIGN_CENTER ? x - w / 2 : x;
    lb->x1 = lb->x0 + w;
    lb->y0 = y;
    lb->y1 = y + pt * l->px_per_pt * 1.17;
    return lb;
}

int tl_lane_label(const tr_timeline_layout *l, const tl_lane *ln, tr_buf *b)
{
    const tr_trace *t = l->t;
    if (ln->track == TR_NONE) return tr_buf_addf(b, "+%zu lanes", l->summarised);
    const tr_track *tk = tr_track_get(t, ln->track);
    const char *name = tr_str_get(t, tk->name, NULL);
    int rc = 0;
    if (!l->header_h) {
        /* Without headers the rank goes in front, unless the name says it ("rank 3"). */
        const tr_process *p = tr_process_get(t, tk->process);
        char rank[24];
        snprintf(rank, sizeof rank, "rank %d", (int)p->rank);
        if (p->rank >= 0 && !strstr(name, rank)) rc |= tr_buf_addf(b, "r%d ", (int)p->rank);
    }
    rc |= tr_buf_adds(b, name);
    if (ln->guess && !l->header_h) rc |= tr_buf_adds(b, " (placed by guess)");
    return rc < 0 ? TR_FATAL : TR_OK;
}

/* Lane names right-aligned left of the plot, thinned where lanes are thinner than their text. */
static int place_lane_labels(placer *p)
{
    tr_timeline_layout *l = p->l;
    const tr_trace *t = l->t;
    double margin = 0.12 * l->o.dpi;
    double next_label = -1e9, summary_y = 1e300;
    tr_buf b;
    tr_buf_init(&b, 0);
    int rc = TR_OK;
    for (size_t i = 0; i < l->n_lanes && rc >= 0; i++) {
        const tl_lane *ln = &l->lanes[i];
        double pt = fmin(l->text_pt, fmax(4.5, ln->h * 0.8 / l->px_per_pt));
        double h = pt * l->px_per_pt * 1.2, cy = ln->y + ln->h / 2 - h / 2;
        if (i == 0 && l->summarised)
            summary_y = l->lanes[l->n_lanes - 1].y + l->lanes[l->n_lanes - 1].h / 2 - h / 2;
        if (ln->header) {
            double hy = ln->y - l->header_h;
            tr_buf_reset(&b);
            rc = tr_render_process_label(&b, t, ln->process);
            if (rc >= 0 && ln->guess) rc = tr_buf_adds(&b, "  (placed by guess)");
            tl_label *lb =
                rc < 0 ? NULL
                       : add_label(p, TL_LABEL_HEADER, b.p, b.len, margin + 3,
                                   hy + (l->header_h - l->text_pt * l->px_per_pt * 1.17) / 2,
                                   l->label_w + l->pw - 6, l->text_pt, 1, TR_ALIGN_LEFT,
                                   TR_RENDER_INK, &l->labels);
            if (!lb) rc = TR_FATAL;
            /* A lane label thicker than its lane keeps clear of the header above. */
            if (lb) next_label = fmax(next_label, lb->y1);
        }
        /* The summary lane's label is always drawn: the others keep clear of it. */
        if (ln->track != TR_NONE && (cy < next_label || cy + h > summary_y)) continue;
        tr_buf_reset(&b);
        if (rc >= 0) rc = tl_lane_label(l, ln, &b);
        if (rc >= 0 && !add_label(p, TL_LABEL_LANE, b.p, b.len, l->px - 4, cy, l->label_w - 8, pt,
                                  ln->track == TR_NONE, TR_ALIGN_RIGHT, TR_RENDER_INK, &l->labels))
            rc = TR_FATAL;
        next_label = cy + h;
    }
    tr_buf_fini(&b);
    return rc;
}

/* The peak of each counter lane, top left in the lane. */
static int place_counter_labels(placer *p)
{
    tr_timeline_layout *l = p->l;
    tr_buf b;
    tr_buf_init(&b, 0);
    int rc = TR_OK;
    for (size_t i = 0; i < l->n_lanes && rc >= 0; i++) {
        const tl_lane *ln = &l->lanes[i];
        if (!ln->has_counter || ln->track == TR_NONE || ln->h < l->text_pt * l->px_per_pt * 1.2)
            continue;
        tr_buf_reset(&b);
        rc = tr_buf_adds(&b, "max ");
        if (rc >= 0) rc = tr_buf_add_real(&b, ln->cmax);
        tl_label *lb = rc < 0 ? NULL
                              : add_label(p, TL_LABEL_COUNTER, b.p, b.len, l->px + 2,
                                          ln->y + ln->strip, l->pw - 4, l->text_pt * 0.8, 0,
                                          TR_ALIGN_LEFT, TR_RENDER_FAINT_INK, &l->labels);
        if (!lb) rc = TR_FATAL;
        /* Slice names of the lane's first row start after it. */
        if (lb && ln->rows > 0) p->row_end[ln->first_row] = lb->x1 + 2;
    }
    tr_buf_fini(&b);
    return rc;
}

/* Slice names inside their slices, in rows of their own, left to right. */
int tl_label_slice(tr_timeline_layout *l, const tr_event_rec *ev, int d, const uint32_t *keys,
                   int nk)
{
    const tr_trace *t = l->t;
    const tl_lane *ln = &l->lanes[l->lane_of[ev->track]];
    int64_t a = ev->ts, b = tr_time_add(ev->ts, ev->dur);
    if (ln->track == TR_NONE || b < l->t0 || a > l->t1 || ln->row_h < 6 || d >= ln->rows ||
        (d == ln->rows - 1 && tl_lane_collapsed(ln)))
        return TR_OK;
    double x0 = tr_timeline_x(l, a), x1 = tr_timeline_x(l, b);
    double cx0 = fmax(x0, l->px - 1), cx1 = fmin(x1, l->px + l->pw + 1);
    double gap = cx1 - cx0 >= 4 ? 1 : 0;
    double tx = fmax(cx0, l->px) + 2;
    double room = fmin(cx1 - cx0 - gap - 4, l->px + l->pw - tx - 2);
    double *end = &l->px_state.row_end[ln->first_row + (size_t)d];
    /* A slice drawn in stripes (a GT batch) is labelled in its first. */
    if (nk > 1) room = fmin(room, (cx1 - cx0) / nk - gap - 4);
    if (room < 2.5 * l->text_pt * l->px_per_pt || tx < *end) return TR_OK;
    size_t n;
    const char *name = tr_str_get(t, ev->u.s.name, &n);
    tr_buf label;
    tr_buf_init(&label, 0);
    tr_arg seq;
    if (l->o.annotate && ev->args && tr_args_find(t, ev->args, "seq", &seq) &&
        (seq.type == TR_ARG_INT || seq.type == TR_ARG_UINT) &&
        tr_buf_addf(&label, "#%lld %s", (long long)seq.v.i, name) >= 0)
        name = label.p, n = label.len;
    double pt = fmin(l->text_pt, ln->row_h * 0.5 / l->px_per_pt);
    double th = pt * l->px_per_pt * 1.17;
    double y = ln->y + ln->strip + d * ln->row_h;
    const tl_name *nm = tl_names_find(&l->slice_names, keys[0]);
    uint32_t fill = nm ? nm->rgb : 0x888888;
    placer p = {.l = l, .m = &l->m};
    tl_label *lb =
        add_label(&p, TL_LABEL_SLICE, name, n, tx, y + (ln->row_h - th) / 2, room, pt, 0,
                  TR_ALIGN_LEFT, tr_render_fill_is_dark(fill) ? 0xffffff : 0x000000, &l->labels);
    tr_buf_fini(&label);
    if (!lb) return TR_FATAL;
    *end = lb->x1 + 2;
    return TR_OK;
}

/* ---- instruction ids ---- */

static int id_candidate(void *ctx, const tl_marker *m)
{
    placer *p = ctx;
    tr_timeline_layout *l = p->l;
    const tl_lane *ln = &l->lanes[m->lane];
    if (m->seq < 0 || ln->strip < TL_ID_PT * l->px_per_pt * 1.2) return TR_OK;
    char id[24];
    int len = snprintf(id, sizeof id, "#%lld", (long long)m->seq);
    double x = m->x + m->r + 1;
    tl_label *lb = add_label(p, TL_LABEL_ID, id, (size_t)len, x, m->top, l->px + l->pw - x,
                             TL_ID_PT, 0, TR_ALIGN_LEFT, TR_RENDER_INK, &p->ids);
    if (!lb) return TR_FATAL;
    /* An id cut by the plot's edge is not placed. */
    if (lb->x1 - lb->x0 < tr_measure_text(p->m, id, (size_t)len, TL_ID_PT, 0) - 0.01) p->ids.len--;
    return TR_OK;
}

static int id_cmp(const void *pa, const void *pb)
{
    const tl_label *a = pa, *b = pb;
    if (a->y0 != b->y0) return a->y0 < b->y0 ? -1 : 1;
    return a->x0 < b->x0 ? -1 : a->x0 > b->x0;
}

/* Ids left to right on each lane's strip, each where the one before has ended. */
static int place_ids(placer *p)
{
    tr_timeline_layout *l = p->l;
    if (!l->o.annotate) return TR_OK;
    if (tl_markers(l, id_candidate, p) < 0) return TR_FATAL;
    tr_qsort(p->ids.data, p->ids.len, sizeof(tl_label), id_cmp);
    double end = -1e300, top = -1e300;
    for (size_t i = 0; i < p->ids.len; i++) {
        const tl_label *c = &TR_VEC_AT(&p->ids, tl_label, i);
        if (c->y0 != top) end = -1e300, top = c->y0;
        if (c->x0 < end) continue;
        tl_label *lb = tr_vec_push(&l->labels);
        if (!lb) return TR_FATAL;
        *lb = *c;
        end = c->x1 + 2;
    }
    return TR_OK;
}

int tl_labels_place(tr_timeline_layout *l, tr_measure *m, tr_error *e)
{
    placer p = {.l = l, .m = m, .row_end = l->px_state.row_end};
    int rc = place_lane_labels(&p);
    if (rc >= 0) rc = place_counter_labels(&p);
    return rc < 0 ? tr_error_nomem(e) : TR_OK;
}

int tl_labels_ids(tr_timeline_layout *l)
{
    placer p = {.l = l, .m = &l->m};
    tr_vec_init(&p.ids, sizeof(tl_label));
    int rc = place_ids(&p);
    tr_vec_fini(&p.ids);
    return rc;
}

void tl_labels_draw(const tr_timeline_layout *l, tr_canvas *c)
{
    for (size_t i = 0; i < l->labels.len; i++) {
        const tl_label *lb = &TR_VEC_AT(&l->labels, tl_label, i);
        tr_canvas_text(c, l->label_text.p + lb->off, lb->len, lb->x, lb->y0, lb->pt, lb->bold,
                       lb->max_w, lb->align, lb->rgb);
    }
}

/* ---- the public view ---- */

size_t tr_timeline_label_count(const tr_timeline_layout *l)
{
    return l->labels.len;
}

int tr_timeline_label_box(const tr_timeline_layout *l, size_t i, tr_render_box *box)
{
    if (i >= l->labels.len) return 0;
    const tl_label *lb = &TR_VEC_AT(&l->labels, tl_label, i);
    *box = (tr_render_box){lb->x0, lb->y0, lb->x1, lb->y1, TR_PART_LABEL};
    return 1;
}
