/*
** analysis.c: what the sections share (options, span, sorting),
** the lanes section and the op breakdown.
*/
#include "analysis_impl.h"

#include <stdlib.h>
#include <string.h>

void tr_stat_opts_init(tr_stat_opts *o)
{
    memset(o, 0, sizeof *o);
    o->gaps = 3;
    o->mad_k = 3.0;
    o->kernel_wait = 30000;
    o->seq_min = 3;
}

int tr_stat_span(const tr_trace *t, int64_t *first, int64_t *last)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    tr_slices s;
    tr_instants in;
    tr_counters c;
    tr_samples sm;
    tr_trace_slices(t, &s);
    tr_trace_instants(t, &in);
    tr_trace_counters(t, &c);
    tr_trace_samples(t, &sm);
    /* Tables are sorted by ts: their first rows give the start. */
    if (s.n && s.ts[0] < lo) lo = s.ts[0];
    if (in.n && in.ts[0] < lo) lo = in.ts[0];
    if (c.n && c.ts[0] < lo) lo = c.ts[0];
    if (sm.n && sm.ts[0] < lo) lo = sm.ts[0];
    for (size_t i = 0; i < s.n; i++) {
        int64_t end = tr_an_end(&s, i);
        if (end > hi) hi = end;
    }
    if (in.n && in.ts[in.n - 1] > hi) hi = in.ts[in.n - 1];
    if (c.n && c.ts[c.n - 1] > hi) hi = c.ts[c.n - 1];
    if (sm.n && sm.ts[sm.n - 1] > hi) hi = sm.ts[sm.n - 1];
    if (lo > hi) return 0;
    *first = lo;
    *last = hi;
    return 1;
}

/* ---- sorting and order statistics ---- */

static int an_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int tr_an_sort_i64(int64_t *v, size_t n)
{
    if (n < 256) {
        tr_qsort(v, n, sizeof *v, an_cmp_i64);
        return TR_OK;
    }
    uint64_t *a = (uint64_t *)v, *b = tr_malloc(n * sizeof *b);
    if (!b) return TR_FATAL;
    /* Flipping the sign bit makes unsigned order the signed order. */
    for (size_t i = 0; i < n; i++) a[i] ^= 1ull << 63;
    for (int shift = 0; shift < 64; shift += 8) {
        size_t count[257] = {0};
        for (size_t i = 0; i < n; i++) count[((a[i] >> shift) & 0xff) + 1]++;
        /* Durations leave most high bytes equal: such a pass changes nothing. */
        if (count[((a[0] >> shift) & 0xff) + 1] == n) continue;
        for (size_t d = 1; d <= 256; d++) count[d] += count[d - 1];
        for (size_t i = 0; i < n; i++) b[count[(a[i] >> shift) & 0xff]++] = a[i];
        memcpy(a, b, n * sizeof *a);
    }
    for (size_t i = 0; i < n; i++) a[i] ^= 1ull << 63;
    tr_free(b);
    return TR_OK;
}

int64_t tr_an_percentile(const int64_t *sorted, size_t n, int p)
{
    size_t rank = ((size_t)p * n + 99) / 100; /* ceil(p * n / 100), 1-based */
    return sorted[rank ? rank - 1 : 0];
}

int tr_an_strcmp(const tr_trace *t, tr_str a, tr_str b)
{
    return a == b ? 0 : strcmp(tr_str_get(t, a, NULL), tr_str_get(t, b, NULL));
}

int tr_an_grow(void *p, size_t *n, size_t want, size_t size, int fill)
{
    if (want <= *n) return TR_OK;
    size_t to = *n * 2 > want ? *n * 2 : want;
    char *v = tr_realloc(*(void **)p, to * size);
    if (!v) return TR_FATAL;
    memset(v + *n * size, fill, (to - *n) * size);
    *(void **)p = v;
    *n = to;
    return TR_OK;
}

/* ---- events one at a time ---- */

void tr_stat_span_add(int64_t *first, int64_t *last, const tr_event_rec *ev)
{
    int64_t end = ev->ts + (ev->kind == TR_EV_SLICE && ev->dur > 0 ? ev->dur : 0);
    if (*first > *last) *first = ev->ts;
    if (end > *last) *last = end;
}

int tr_stat_feed_model(const tr_trace *t, tr_stat_event_fn fn, void *user, tr_error *e)
{
    tr_slices s;
    tr_trace_slices(t, &s);
    tr_iter it;
    tr_event ev;
    tr_row_event x;
    tr_iter_init(&it, t);
    while (tr_iter_next(&it, &ev)) {
        tr_event_rec_get(t, &ev, &x.rec);
        x.row = ev.row;
        x.depth = 0;
        x.parent = TR_NONE;
        x.parent_ts = TR_TIME_NONE;
        if (ev.kind == TR_EV_SLICE) {
            x.depth = s.depth[ev.row];
            x.parent = s.parent[ev.row];
            if (x.parent != TR_NONE) x.parent_ts = s.ts[x.parent];
        }
        int rc = fn(user, &x, e);
        if (rc != TR_OK) return rc;
    }
    return TR_OK;
}

/* ---- lanes ---- */

/* A track with slices: its row of the result and the busy interval still growing. */
typedef struct lane_acc_lane {
    tr_lane_stat st;
    int64_t cur_s, cur_e;
} lane_acc_lane;

typedef struct lane_name {
    uint32_t track;
    tr_name_count nc;
} lane_name;

struct tr_lane_acc {
    const tr_trace *t;
    size_t keep;         /* gaps kept per lane */
    int64_t first, last; /* the span so far */
    uint32_t *lane_of;   /* by track: index into lanes, UINT32_MAX before its first slice */
    size_t n_tracks;     /* of lane_of */
    tr_vec lanes;        /* lane_acc_lane, in the order of their first slices */
    tr_map name_of;      /* track << 32 | name -> index into names */
    tr_vec names;        /* lane_name: top-level slices per track and name */
};

/* Keeps the KEEP longest gaps, longest first; a later gap must be longer to pass an equal one. */
static void lane_gap(tr_lane_stat *l, size_t keep, int64_t ts, int64_t dur)
{
    if (dur <= 0 || keep == 0) return;
    size_t i = l->n_gaps;
    if (i == keep) {
        if (l->gaps[keep - 1].dur >= dur) return;
        i--;
    } else {
        l->n_gaps++;
    }
    while (i > 0 && l->gaps[i - 1].dur < dur) {
        l->gaps[i] = l->gaps[i - 1];
        i--;
    }
    l->gaps[i] = (tr_gap){.ts = ts, .dur = dur};
}

static const tr_trace *lane_sort_trace;

static int lane_name_cmp(const void *pa, const void *pb)
{
    const lane_name *a = pa, *b = pb;
    if (a->track != b->track) return a->track < b->track ? -1 : 1;
    if (a->nc.count != b->nc.count) return a->nc.count > b->nc.count ? -1 : 1;
    return tr_an_strcmp(lane_sort_trace, a->nc.name, b->nc.name);
}

static int lane_track_cmp(const void *pa, const void *pb)
{
    const lane_acc_lane *a = pa, *b = pb;
    return (a->st.track > b->st.track) - (a->st.track < b->st.track);
}

void tr_lane_stats_fini(tr_lane_stats *s)
{
    for (size_t i = 0; i < s->n; i++) {
        tr_free(s->lanes[i].gaps);
        tr_free(s->lanes[i].names);
    }
    tr_free(s->lanes);
    memset(s, 0, sizeof *s);
}

int tr_lane_acc_new(const tr_trace *t, const tr_stat_opts *o, tr_lane_acc **out, tr_error *e)
{
    tr_lane_acc *a = tr_calloc(1, sizeof *a);
    *out = NULL;
    if (!a) return tr_error_nomem(e);
    a->t = t;
    a->keep = o->gaps;
    a->first = INT64_MAX;
    a->last = INT64_MIN;
    tr_vec_init(&a->lanes, sizeof(lane_acc_lane));
    tr_vec_init(&a->names, sizeof(lane_name));
    if (tr_map_init(&a->name_of, 64) != TR_OK) {
        tr_lane_acc_free(a);
        return tr_error_nomem(e);
    }
    *out = a;
    return TR_OK;
}

/* The lane of TRACK, made at its first slice (its leading gap from the span's start). */
static lane_acc_lane *lane_get(tr_lane_acc *a, uint32_t track, int64_t ts)
{
    if (a->lane_of[track] != UINT32_MAX)
        return &TR_VEC_AT(&a->lanes, lane_acc_lane, a->lane_of[track]);
    lane_acc_lane *l = tr_vec_push(&a->lanes);
    if (!l) return NULL;
    a->lane_of[track] = (uint32_t)(a->lanes.len - 1);
    l->st.track = track;
    if (a->keep && !(l->st.gaps = tr_malloc(a->keep * sizeof *l->st.gaps))) return NULL;
    lane_gap(&l->st, a->keep, a->first, ts - a->first);
    l->cur_s = ts;
    l->cur_e = ts;
    return l;
}

int tr_lane_acc_add(tr_lane_acc *a, const tr_row_event *x, tr_error *e)
{
    const tr_event_rec *ev = &x->rec;
    tr_stat_span_add(&a->first, &a->last, ev);
    if (ev->kind != TR_EV_SLICE || ev->track >= tr_track_count(a->t)) return TR_OK;
    if (tr_an_grow(&a->lane_of, &a->n_tracks, (size_t)ev->track + 1, sizeof *a->lane_of, 0xff) !=
        TR_OK)
        return tr_error_nomem(e);
    int64_t ts = ev->ts, end = ts + (ev->dur > 0 ? ev->dur : 0);
    int is_new = a->lane_of[ev->track] == UINT32_MAX;
    lane_acc_lane *ls = lane_get(a, ev->track, ts);
    if (!ls) return tr_error_nomem(e);
    tr_lane_stat *l = &ls->st;
    l->slices++;
    if (is_new) {
        ls->cur_e = end;
    } else if (ts > ls->cur_e) {
        l->busy += ls->cur_e - ls->cur_s;
        lane_gap(l, a->keep, ls->cur_e, ts - ls->cur_e);
        ls->cur_s = ts;
        ls->cur_e = end;
    } else if (end > ls->cur_e) {
        ls->cur_e = end;
    }
    /*
    ** Freeze sorts equal starts longer first, so a zero-length slice at
    ** its parent's very start (GT batches whose start is estimated from
    ** the previous line) may as well precede it: it is an op of its own.
    */
    if (x->parent != TR_NONE && !(ev->dur <= 0 && x->parent_ts == ts)) return TR_OK;
    l->ops++;
    int added;
    uint32_t *slot = tr_map_slot(&a->name_of, (uint64_t)ev->track << 32 | ev->u.s.name, &added);
    if (!slot) return tr_error_nomem(e);
    if (added) {
        lane_name *ln = tr_vec_push(&a->names);
        if (!ln) return tr_error_nomem(e);
        *slot = (uint32_t)(a->names.len - 1);
        ln->track = ev->track;
        ln->nc.name = ev->u.s.name;
    }
    TR_VEC_AT(&a->names, lane_name, *slot).nc.count++;
    return TR_OK;
}

/* Name counts into each lane's names array (lanes and names both in track order). */
static int lane_names(const tr_trace *t, tr_lane_stats *out, lane_name *v, size_t n)
{
    lane_sort_trace = t;
    tr_qsort(v, n, sizeof *v, lane_name_cmp);
    size_t lane = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j].track == v[i].track) j++;
        while (out->lanes[lane].track != v[i].track) lane++;
        tr_lane_stat *l = &out->lanes[lane];
        l->names = tr_malloc((j - i) * sizeof *l->names);
        if (!l->names) return TR_FATAL;
        for (size_t k = i; k < j; k++) l->names[k - i] = v[k].nc;
        l->n_names = j - i;
        i = j;
    }
    return TR_OK;
}

int tr_lane_acc_end(tr_lane_acc *a, tr_lane_stats *out, tr_error *e)
{
    memset(out, 0, sizeof *out);
    if (a->first > a->last) return TR_OK;
    out->first = a->first;
    out->last = a->last;
    lane_acc_lane *v = a->lanes.data;
    size_t n = a->lanes.len;
    tr_qsort(v, n, sizeof *v, lane_track_cmp);
    out->lanes = tr_calloc(n ? n : 1, sizeof *out->lanes);
    if (!out->lanes) return tr_error_nomem(e);
    int64_t span = out->last - out->first;
    for (size_t i = 0; i < n; i++) {
        tr_lane_stat *l = &out->lanes[i];
        *l = v[i].st;
        v[i].st.gaps = NULL;
        l->busy += v[i].cur_e - v[i].cur_s;
        lane_gap(l, a->keep, v[i].cur_e, out->last - v[i].cur_e);
        l->idle = span - l->busy;
        l->utilization = span > 0 ? (double)l->busy / (double)span : 0.0;
    }
    out->n = n;
    a->lanes.len = 0;
    if (lane_names(a->t, out, a->names.data, a->names.len) != TR_OK) {
        tr_lane_stats_fini(out);
        return tr_error_nomem(e);
    }
    return TR_OK;
}

void tr_lane_acc_free(tr_lane_acc *a)
{
    if (!a) return;
    for (size_t i = 0; i < a->lanes.len; i++)
        tr_free(TR_VEC_AT(&a->lanes, lane_acc_lane, i).st.gaps);
    tr_vec_fini(&a->lanes);
    tr_vec_fini(&a->names);
    tr_map_fini(&a->name_of);
    tr_free(a->lane_of);
    tr_free(a);
}

static int feed_lanes(void *user, const tr_row_event *x, tr_error *e)
{
    return tr_lane_acc_add(user, x, e);
}

int tr_lane_stats_compute(const tr_trace *t, const tr_stat_opts *o, tr_lane_stats *out, tr_error *e)
{
    memset(out, 0, sizeof *out);
    tr_lane_acc *a;
    int rc = tr_lane_acc_new(t, o, &a, e);
    if (rc == TR_OK) rc = tr_stat_feed_model(t, feed_lanes, a, e);
    if (rc == TR_OK) rc = tr_lane_acc_end(a, out, e);
    tr_lane_acc_free(a);
    return rc;
}

/* ---- op breakdown ---- */

void tr_op_stats_fini(tr_op_stats *s)
{
    tr_free(s->by_name);
    tr_free(s->by_cat);
    memset(s, 0, sizeof *s);
}

static const tr_trace *op_sort_trace;
static int op_sort_key;

static int64_t op_key(const tr_op_stat *a, int key)
{
    switch (key) {
    case TR_OP_SORT_COUNT:
        return (int64_t)a->count;
    case TR_OP_SORT_MAX:
        return a->max;
    default:
        return a->total;
    }
}

static int op_cmp(const void *pa, const void *pb)
{
    const tr_op_stat *a = pa, *b = pb;
    if (op_sort_key == TR_OP_SORT_MEAN) {
        if (a->mean != b->mean) return a->mean > b->mean ? -1 : 1;
    } else {
        int64_t x = op_key(a, op_sort_key), y = op_key(b, op_sort_key);
        if (x != y) return x > y ? -1 : 1;
    }
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    return tr_an_strcmp(op_sort_trace, a->key, b->key);
}

void tr_op_stats_sort(const tr_trace *t, tr_op_stat *v, size_t n, int key)
{
    op_sort_trace = t;
    op_sort_key = key;
    tr_qsort(v, n, sizeof *v, op_cmp);
}

/* One group of a table: its figures so far and its durations, for the percentiles. */
typedef struct op_group {
    tr_op_stat st;
    tr_vec durs; /* int64_t */
} op_group;

/* One table: a group per key (a string id), found through an array by string id. */
typedef struct op_table {
    uint32_t *group_of; /* by string id: index into groups, UINT32_MAX none yet */
    size_t n_keys;      /* of group_of */
    tr_vec groups;      /* op_group */
} op_table;

struct tr_op_acc {
    const tr_trace *t;
    op_table tables[2]; /* by name, by category */
};

int tr_op_acc_new(const tr_trace *t, tr_op_acc **out, tr_error *e)
{
    tr_op_acc *a = tr_calloc(1, sizeof *a);
    *out = NULL;
    if (!a) return tr_error_nomem(e);
    a->t = t;
    for (int k = 0; k < 2; k++) tr_vec_init(&a->tables[k].groups, sizeof(op_group));
    *out = a;
    return TR_OK;
}

static int op_add(op_table *tb, tr_str key, int64_t d, int64_t bytes)
{
    if (tr_an_grow(&tb->group_of, &tb->n_keys, (size_t)key + 1, sizeof *tb->group_of, 0xff) !=
        TR_OK)
        return TR_FATAL;
    if (tb->group_of[key] == UINT32_MAX) {
        op_group *g = tr_vec_push(&tb->groups);
        if (!g) return TR_FATAL;
        tr_vec_init(&g->durs, sizeof(int64_t));
        g->st.key = key;
        g->st.bytes = -1;
        tb->group_of[key] = (uint32_t)(tb->groups.len - 1);
    }
    op_group *g = &TR_VEC_AT(&tb->groups, op_group, tb->group_of[key]);
    tr_op_stat *o = &g->st;
    o->count++;
    o->total += d;
    if (d > o->max) o->max = d;
    if (bytes >= 0) o->bytes = (o->bytes < 0 ? 0 : o->bytes) + bytes;
    int64_t *slot = tr_vec_push(&g->durs);
    if (!slot) return TR_FATAL;
    *slot = d;
    return TR_OK;
}

int tr_op_acc_add(tr_op_acc *a, const tr_row_event *x, tr_error *e)
{
    const tr_event_rec *ev = &x->rec;
    if (ev->kind != TR_EV_SLICE) return TR_OK;
    int64_t d = ev->dur > 0 ? ev->dur : 0;
    size_t n_str = tr_str_count(a->t);
    if (ev->u.s.name >= n_str || ev->u.s.cat >= n_str) return TR_OK;
    if (op_add(&a->tables[0], ev->u.s.name, d, ev->bytes) != TR_OK ||
        op_add(&a->tables[1], ev->u.s.cat, d, ev->bytes) != TR_OK)
        return tr_error_nomem(e);
    return TR_OK;
}

/* A table's groups with their percentiles, sorted by total; their durations freed as they go. */
static int op_table_end(const tr_trace *t, op_table *tb, tr_op_stat **out, size_t *n_out)
{
    size_t n = tb->groups.len;
    tr_op_stat *v = tr_calloc(n ? n : 1, sizeof *v);
    if (!v) return TR_FATAL;
    for (size_t i = 0; i < n; i++) {
        op_group *g = &TR_VEC_AT(&tb->groups, op_group, i);
        int64_t *durs = g->durs.data;
        if (tr_an_sort_i64(durs, g->st.count) != TR_OK) {
            tr_free(v);
            return TR_FATAL;
        }
        v[i] = g->st;
        v[i].p50 = tr_an_percentile(durs, g->st.count, 50);
        v[i].p95 = tr_an_percentile(durs, g->st.count, 95);
        v[i].mean = (double)g->st.total / (double)g->st.count;
        tr_vec_fini(&g->durs);
    }
    tr_op_stats_sort(t, v, n, TR_OP_SORT_TOTAL);
    *out = v;
    *n_out = n;
    return TR_OK;
}

int tr_op_acc_end(tr_op_acc *a, tr_op_stats *out, tr_error *e)
{
    memset(out, 0, sizeof *out);
    if (op_table_end(a->t, &a->tables[0], &out->by_name, &out->n_names) != TR_OK ||
        op_table_end(a->t, &a->tables[1], &out->by_cat, &out->n_cats) != TR_OK) {
        tr_op_stats_fini(out);
        return tr_error_nomem(e);
    }
    return TR_OK;
}

void tr_op_acc_free(tr_op_acc *a)
{
    if (!a) return;
    for (int k = 0; k < 2; k++) {
        op_table *tb = &a->tables[k];
        for (size_t i = 0; i < tb->groups.len; i++)
            tr_vec_fini(&TR_VEC_AT(&tb->groups, op_group, i).durs);
        tr_vec_fini(&tb->groups);
        tr_free(tb->group_of);
    }
    tr_free(a);
}

static int feed_ops(void *user, const tr_row_event *x, tr_error *e)
{
    return tr_op_acc_add(user, x, e);
}

int tr_op_stats_compute(const tr_trace *t, tr_op_stats *out, tr_error *e)
{
    memset(out, 0, sizeof *out);
    tr_op_acc *a;
    int rc = tr_op_acc_new(t, &a, e);
    if (rc == TR_OK) rc = tr_stat_feed_model(t, feed_ops, a, e);
    if (rc == TR_OK) rc = tr_op_acc_end(a, out, e);
    tr_op_acc_free(a);
    return rc;
}
