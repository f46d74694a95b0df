/*
** chrome_bind.c: flows bound in bounded memory, for a sink that forgets
** (tr_sink.forget: tracecat cat and convert of one stream).
**
** In the model the flow points are bound to the input's slices when it
** ends (chrome_flow.c): the slices of a track in time order, a search per
** point.  When the sink drops each batch's rows there are no slices to
** search, so each slice the reader adds leaves a key (track, start, end,
** row) in an external sorter, and each flow point that names no slice goes
** into another.  At the end both come back by track and time and are
** walked side by side: a point binds to the latest of the last 256 slices
** of its track begun by its time that holds it (enclose), or to the next
** slice begun at or after it, exactly as the model's search does.  The
** bound points go through a third sorter in the order of one flow's points
** and are chained a flow at a time (cj_chain_flows), the flows handed out
** a batch at a time.  What stays in memory: the sorters' budget
** (tr_read_opts.sort_memory), one flow's points, and the points that made
** no flow (their warnings come in input order).
*/
#include "chrome_impl.h"
#include "tr_sorter.h"

/* Where a slice starts and ends on its track, for binding. */
typedef struct bind_slice {
    int64_t ts, end; /* end: INT64_MAX while open, as the model's search has it */
    uint32_t track, row;
} bind_slice;

#define RING 256 /* slices looked back at, as bind_point does */

/* By track, time, the enclosing one first, then the row. */
static int slice_cmp(const void *a, const void *b)
{
    const bind_slice *x = a, *y = b;
    if (x->track != y->track) return x->track < y->track ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    if (x->end != y->end) return x->end > y->end ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/*
** By track and time, then input order; a point that binds to the next
** slice comes before the track's slices of its time, one that binds to the
** enclosing slice after them.
*/
static int point_cmp(const void *a, const void *b)
{
    const flow_pt *x = a, *y = b;
    if (x->track != y->track) return x->track < y->track ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    int xe = x->bits & FP_ENCLOSE, ye = y->bits & FP_ENCLOSE;
    if (xe != ye) return xe ? 1 : -1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Whether slice S comes before point P in the walk: on an earlier track, time or rank. */
static int slice_first(const bind_slice *s, const flow_pt *p)
{
    if (s->track != p->track) return s->track < p->track;
    if (s->ts != p->ts) return s->ts < p->ts;
    return p->bits & FP_ENCLOSE;
}

int cj_bind_open(cj_rd *r, const tr_read_opts *o)
{
    if (!r->forgets) return TR_OK;
    size_t budget = o && o->sort_memory ? o->sort_memory : (size_t)256 << 20;
    const char *dir = o && o->tmpdir ? o->tmpdir : "/tmp";
    tr_sorter_opts so = {
        .rec_size = sizeof(bind_slice), .cmp = slice_cmp, .budget = budget / 2, .tmpdir = dir};
    int rc = tr_sorter_open(&r->bind_slices, &so, r->e);
    so.rec_size = sizeof(flow_pt);
    so.cmp = point_cmp;
    so.budget = budget / 4;
    if (rc == TR_OK) rc = tr_sorter_open(&r->bind_points, &so, r->e);
    so.cmp = cj_flow_cmp;
    if (rc == TR_OK) rc = tr_sorter_open(&r->chain, &so, r->e);
    return rc;
}

void cj_bind_close(cj_rd *r)
{
    tr_sorter_close(r->bind_slices);
    tr_sorter_close(r->bind_points);
    tr_sorter_close(r->chain);
    tr_vec_fini(&r->group);
}

int cj_bind_slice(cj_rd *r, uint32_t track, int64_t ts, int64_t dur, uint32_t row)
{
    bind_slice s = {ts, dur < 0 ? INT64_MAX : ts + dur, track, row};
    return tr_sorter_push(r->bind_slices, &s, r->e);
}

int cj_bind_point(cj_rd *r, const flow_pt *f)
{
    return tr_sorter_push(f->row == TR_NONE ? r->bind_points : r->chain, f, r->e);
}

/* ---- binding ---- */

/* The slices of one track seen so far: the last RING of them, oldest first at HEAD. */
typedef struct ring {
    bind_slice s[RING];
    size_t head, n;
    uint32_t track;
} ring;

static void ring_add(ring *g, const bind_slice *s)
{
    if (g->n && s->track != g->track) g->n = 0;
    g->track = s->track;
    g->s[(g->head + g->n) % RING] = *s;
    if (g->n < RING)
        g->n++;
    else
        g->head = (g->head + 1) % RING;
}

/* The newest slice of P's track that holds P's time, or TR_NONE. */
static uint32_t ring_enclosing(const ring *g, const flow_pt *p)
{
    if (!g->n || g->track != p->track) return TR_NONE;
    for (size_t k = g->n; k > 0; k--) {
        const bind_slice *s = &g->s[(g->head + k - 1) % RING];
        if (s->ts <= p->ts && p->ts <= s->end) return s->row;
    }
    return TR_NONE;
}

/*
** Binds every point and pushes it into the chain sorter.  Points waiting
** for the next slice of their track wait in r->group.
*/
static int bind_all(cj_rd *r)
{
    ring *g = tr_malloc(sizeof *g);
    if (!g) return tr_error_nomem(r->e);
    g->n = g->head = 0;
    const void *sp = NULL, *pp = NULL;
    int rs = tr_sorter_next(r->bind_slices, &sp, r->e), rp = TR_OK, rc = TR_OK;
    if (rs < 0) rc = rs;
    r->group.len = 0;
    while (rc == TR_OK && (rp = tr_sorter_next(r->bind_points, &pp, r->e)) == TR_OK) {
        flow_pt p = *(const flow_pt *)pp;
        for (; rc == TR_OK && rs == TR_OK && slice_first(sp, &p);
             rs = tr_sorter_next(r->bind_slices, &sp, r->e)) {
            const bind_slice *s = sp;
            flow_pt *w = r->group.data;
            /* the points waiting on this track bind to it; on another track they bind to none */
            for (size_t k = 0; k < r->group.len && rc == TR_OK; k++) {
                if (w[k].track == s->track) w[k].row = s->row;
                rc = tr_sorter_push(r->chain, &w[k], r->e);
            }
            r->group.len = 0;
            ring_add(g, s);
        }
        if (rs < 0 && rs != TR_END) rc = rs;
        if (rc != TR_OK) break;
        if (p.bits & FP_ENCLOSE) {
            p.row = ring_enclosing(g, &p);
            rc = tr_sorter_push(r->chain, &p, r->e);
        } else {
            flow_pt *w = tr_vec_push(&r->group);
            if (!w)
                rc = tr_error_nomem(r->e);
            else
                *w = p;
        }
    }
    if (rp < 0 && rp != TR_END) rc = rp;
    flow_pt *w = r->group.data;
    for (size_t k = 0; k < r->group.len && rc == TR_OK; k++) {
        if (rs == TR_OK && w[k].track == ((const bind_slice *)sp)->track)
            w[k].row = ((const bind_slice *)sp)->row;
        rc = tr_sorter_push(r->chain, &w[k], r->e);
    }
    r->group.len = 0;
    tr_free(g);
    return rc;
}

/* ---- chaining ---- */

/* Chains the points in r->group (one flow's); those that made no flow wait in r->flows. */
static int chain_group(cj_rd *r)
{
    flow_pt *f = r->group.data;
    int rc = cj_chain_flows(r, f, r->group.len, &r->unbound);
    for (size_t k = 0; k < r->group.len && rc == TR_OK; k++) {
        if (!cj_flow_pt_drop(&f[k])) continue;
        flow_pt *d = tr_vec_push(&r->flows);
        if (!d) return tr_error_nomem(r->e);
        *d = f[k];
    }
    r->group.len = 0;
    return rc;
}

int cj_bind_step(cj_rd *r, int *budget)
{
    int rc = TR_OK;
    if (!r->bound) {
        rc = bind_all(r);
        r->bound = 1;
        tr_sorter_close(r->bind_slices);
        tr_sorter_close(r->bind_points);
        r->bind_slices = r->bind_points = NULL;
        if (rc != TR_OK) return rc;
    }
    const void *p;
    for (; *budget > 0; (*budget)--) {
        rc = tr_sorter_next(r->chain, &p, r->e);
        if (rc != TR_OK) break;
        const flow_pt *f = p;
        if (r->group.len && TR_VEC_AT(&r->group, flow_pt, 0).key != f->key &&
            (rc = chain_group(r)) != TR_OK)
            return rc;
        flow_pt *w = tr_vec_push(&r->group);
        if (!w) return tr_error_nomem(r->e);
        *w = *f;
    }
    if (rc == TR_END) {
        rc = chain_group(r);
        r->flows_done = 1;
    }
    return rc;
}
