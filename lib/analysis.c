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

/* ---- lanes ---- */

typedef struct lane_state {
    uint32_t lane; /* index into the result, UINT32_MAX before the first slice */
    int64_t cur_s, cur_e;
} lane_state;

typedef struct lane_name {
    uint32_t lane;
    tr_name_count nc;
} lane_name;

/* Keeps the O->gaps longest gaps, longest first; a later gap must be longer to pass an equal one.
 */
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
    if (a->lane != b->lane) return a->lane < b->lane ? -1 : 1;
    if (a->nc.count != b->nc.count) return a->nc.count > b->nc.count ? -1 : 1;
    return tr_an_strcmp(lane_sort_trace, a->nc.name, b->nc.name);
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

/* Name counts into each lane's names array. */
static int lane_names(const tr_trace *t, tr_lane_stats *out, lane_name *v, size_t n)
{
    lane_sort_trace = t;
    tr_qsort(v, n, sizeof *v, lane_name_cmp);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j].lane == v[i].lane) j++;
        tr_lane_stat *l = &out->lanes[v[i].lane];
        l->names = tr_malloc((j - i) * sizeof *l->names);
        if (!l->names) return TR_FATAL;
        for (size_t k = i; k < j; k++) l->names[k - i] = v[k].nc;
        l->n_names = j - i;
        i = j;
    }
    return TR_OK;
}

static int lanes_compute(const tr_trace *t, const tr_stat_opts *o, tr_lane_stats *out,
                         lane_state *st, tr_map *map, tr_vec *names)
{
    size_t n_tracks = tr_track_count(t);
    tr_slices s;
    tr_trace_slices(t, &s);
    size_t n_lanes = 0;
    for (size_t i = 0; i < n_tracks; i++) st[i].lane = UINT32_MAX;
    for (size_t i = 0; i < s.n; i++) {
        uint32_t tk = s.track[i];
        if (st[tk].lane == UINT32_MAX) st[tk].lane = 0, n_lanes++;
    }
    out->lanes = tr_calloc(n_lanes ? n_lanes : 1, sizeof *out->lanes);
    if (!out->lanes) return TR_FATAL;
    /* Lanes in track order. */
    for (size_t i = 0; i < n_tracks; i++) {
        if (st[i].lane == UINT32_MAX) continue;
        tr_lane_stat *l = &out->lanes[out->n];
        l->track = (uint32_t)i;
        if (o->gaps && !(l->gaps = tr_malloc(o->gaps * sizeof *l->gaps))) return TR_FATAL;
        st[i].lane = (uint32_t)out->n++;
        st[i].cur_s = st[i].cur_e = INT64_MIN;
    }
    for (size_t i = 0; i < s.n; i++) {
        lane_state *ls = &st[s.track[i]];
        tr_lane_stat *l = &out->lanes[ls->lane];
        int64_t ts = s.ts[i], end = tr_an_end(&s, i);
        l->slices++;
        if (ls->cur_e == INT64_MIN) {
            lane_gap(l, o->gaps, out->first, ts - out->first);
            ls->cur_s = ts;
            ls->cur_e = end;
        } else if (ts > ls->cur_e) {
            l->busy += ls->cur_e - ls->cur_s;
            lane_gap(l, o->gaps, ls->cur_e, ts - ls->cur_e);
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
        uint32_t p = s.parent[i];
        if (p != TR_NONE && !(tr_slice_dur(&s, i) <= 0 && s.ts[p] == ts)) continue;
        l->ops++;
        int is_new;
        uint32_t *slot = tr_map_slot(map, (uint64_t)ls->lane << 32 | s.name[i], &is_new);
        if (!slot) return TR_FATAL;
        if (is_new) {
            lane_name *ln = tr_vec_push(names);
            if (!ln) return TR_FATAL;
            *slot = (uint32_t)(names->len - 1);
            ln->lane = ls->lane;
            ln->nc.name = s.name[i];
        }
        TR_VEC_AT(names, lane_name, *slot).nc.count++;
    }
    int64_t span = out->last - out->first;
    for (size_t i = 0; i < n_tracks; i++) {
        if (st[i].lane == UINT32_MAX) continue;
        tr_lane_stat *l = &out->lanes[st[i].lane];
        l->busy += st[i].cur_e - st[i].cur_s;
        lane_gap(l, o->gaps, st[i].cur_e, out->last - st[i].cur_e);
        l->idle = span - l->busy;
        l->utilization = span > 0 ? (double)l->busy / (double)span : 0.0;
    }
    return lane_names(t, out, names->data, names->len);
}

int tr_lane_stats_compute(const tr_trace *t, const tr_stat_opts *o, tr_lane_stats *out, tr_error *e)
{
    memset(out, 0, sizeof *out);
    if (!tr_stat_span(t, &out->first, &out->last)) return TR_OK;
    size_t n_tracks = tr_track_count(t);
    lane_state *st = tr_malloc((n_tracks ? n_tracks : 1) * sizeof *st);
    tr_map map = {0};
    tr_vec names;
    tr_vec_init(&names, sizeof(lane_name));
    int rc = TR_FATAL;
    if (st && tr_map_init(&map, 64) == TR_OK) rc = lanes_compute(t, o, out, st, &map, &names);
    tr_free(st);
    tr_map_fini(&map);
    tr_vec_fini(&names);
    if (rc != TR_OK) {
        tr_lane_stats_fini(out);
        return tr_error_nomem(e);
    }
    return TR_OK;
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

/*
** One table: KEYS[i] is slice i's group key (a string id).  Groups are
** counted in an array indexed by string id, then the durations of each
** group are laid out together and sorted for the percentiles.
*/
static int op_table(const tr_trace *t, const tr_slices *s, const uint32_t *keys, tr_op_stat **out,
                    size_t *n_out)
{
    size_t n_str = tr_str_count(t);
    uint32_t *group = tr_malloc((n_str ? n_str : 1) * sizeof *group);
    size_t *start = NULL;
    int64_t *durs = NULL;
    tr_op_stat *v = NULL;
    int rc = TR_FATAL;
    if (!group) goto done;
    memset(group, 0xff, (n_str ? n_str : 1) * sizeof *group);
    size_t n = 0;
    /* KEYS NULL: the category column, which no slice needed (every key is 0). */
#define KEY(i) (keys ? keys[i] : 0)
    for (size_t i = 0; i < s->n; i++)
        if (group[KEY(i)] == UINT32_MAX) group[KEY(i)] = (uint32_t)n++;
    v = tr_calloc(n ? n : 1, sizeof *v);
    start = tr_calloc(n + 1, sizeof *start);
    durs = tr_malloc((s->n ? s->n : 1) * sizeof *durs);
    if (!v || !start || !durs) goto done;
    for (size_t i = 0; i < s->n; i++) {
        tr_op_stat *o = &v[group[KEY(i)]];
        int64_t d = tr_slice_dur(s, i), bytes = tr_slice_bytes(s, i);
        d = d > 0 ? d : 0;
        o->key = KEY(i);
        if (o->count == 0) o->bytes = -1;
        o->count++;
        o->total += d;
        if (d > o->max) o->max = d;
        if (bytes >= 0) o->bytes = (o->bytes < 0 ? 0 : o->bytes) + bytes;
    }
    for (size_t g = 0; g < n; g++) start[g + 1] = start[g] + v[g].count;
    for (size_t i = 0; i < s->n; i++) {
        int64_t d = tr_slice_dur(s, i);
        durs[start[group[KEY(i)]]++] = d > 0 ? d : 0;
    }
#undef KEY
    for (size_t g = 0; g < n; g++) {
        size_t at = start[g] - v[g].count;
        if (tr_an_sort_i64(durs + at, v[g].count) != TR_OK) goto done;
        v[g].p50 = tr_an_percentile(durs + at, v[g].count, 50);
        v[g].p95 = tr_an_percentile(durs + at, v[g].count, 95);
        v[g].mean = (double)v[g].total / (double)v[g].count;
    }
    tr_op_stats_sort(t, v, n, TR_OP_SORT_TOTAL);
    *out = v;
    *n_out = n;
    v = NULL;
    rc = TR_OK;
done:
    tr_free(group);
    tr_free(start);
    tr_free(durs);
    tr_free(v);
    return rc;
}

int tr_op_stats_compute(const tr_trace *t, tr_op_stats *out, tr_error *e)
{
    memset(out, 0, sizeof *out);
    tr_slices s;
    tr_trace_slices(t, &s);
    if (op_table(t, &s, s.name, &out->by_name, &out->n_names) != TR_OK ||
        op_table(t, &s, s.cat_col, &out->by_cat, &out->n_cats) != TR_OK) {
        tr_op_stats_fini(out);
        return tr_error_nomem(e);
    }
    return TR_OK;
}
