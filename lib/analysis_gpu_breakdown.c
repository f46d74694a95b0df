/*
** analysis_gpu_breakdown.c: Holistic Trace Analysis's GPU breakdowns.
**
** Over the GPU events of analysis_gpu_events.c: sorted by device and
** start, they give the temporal breakdown (unions of intervals); by stream
** and start, the idle-time classes and the launch queue; grouped by name,
** the kernel breakdown.  The definitions are HTA's (breakdown_analysis.py,
** trace_counters.py); where this differs from HTA, tr_analysis.h says so.
*/
#include "analysis_gpu_impl.h"

#include <math.h>
#include <string.h>

/* ---- temporal breakdown ---- */

static int gb_by_dev(const void *pa, const void *pb)
{
    const tr_gx_ev *a = pa, *b = pb;
    if (a->dev != b->dev) return a->dev < b->dev ? -1 : 1;
    if (a->s != b->s) return a->s < b->s ? -1 : 1;
    return (a->e > b->e) - (a->e < b->e);
}

static int gb_by_track(const void *pa, const void *pb)
{
    const tr_gx_ev *a = pa, *b = pb;
    if (a->track != b->track) return a->track < b->track ? -1 : 1;
    if (a->s != b->s) return a->s < b->s ? -1 : 1;
    return (a->e > b->e) - (a->e < b->e);
}

/* A union of intervals taken in start order. */
typedef struct gb_union {
    int64_t s, e, sum;
    int open;
} gb_union;

static void gb_union_add(gb_union *u, int64_t s, int64_t e)
{
    if (u->open && s <= u->e) {
        if (e > u->e) u->e = e;
        return;
    }
    if (u->open) u->sum += u->e - u->s;
    u->s = s, u->e = e, u->open = 1;
}

static int64_t gb_union_total(const gb_union *u)
{
    return u->sum + (u->open ? u->e - u->s : 0);
}

static void gb_temporal(const tr_trace *t, tr_gx_set *g, tr_gpu_time *rows)
{
    tr_gx_ev *v = g->ev.data;
    size_t n = g->ev.len;
    tr_qsort(v, n, sizeof *v, gb_by_dev);
    for (size_t i = 0; i < n;) {
        tr_gpu_time *r = &rows[v[i].dev];
        gb_union all = {0}, comp = {0};
        r->process = g->dev_proc[v[i].dev];
        r->rank = tr_process_get(t, r->process)->rank;
        r->first = v[i].s;
        r->last = v[i].e;
        size_t j = i;
        for (; j < n && v[j].dev == v[i].dev; j++) {
            gb_union_add(&all, v[j].s, v[j].e);
            if (v[j].type == TR_KTYPE_COMPUTE) gb_union_add(&comp, v[j].s, v[j].e);
            if (v[j].e > r->last) r->last = v[j].e;
        }
        r->events = j - i;
        r->busy = gb_union_total(&all);
        r->compute = gb_union_total(&comp);
        r->idle = r->last - r->first - r->busy;
        r->non_compute = r->busy - r->compute;
        i = j;
    }
}

/* ---- idle-time classes ---- */

static int gb_idle(const tr_trace *t, tr_gx_set *g, int64_t threshold, tr_vec *out)
{
    tr_gx_ev *v = g->ev.data;
    size_t n = g->ev.len;
    tr_qsort(v, n, sizeof *v, gb_by_track);
    tr_gpu_idle *cur = NULL;
    int64_t prev_end = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].sync) continue;
        if (!cur || cur->track != v[i].track) {
            if (!(cur = tr_vec_push(out))) return TR_FATAL;
            cur->track = v[i].track;
            cur->process = tr_track_get(t, v[i].track)->process;
            prev_end = v[i].e;
            continue;
        }
        int64_t gap = v[i].s - prev_end;
        prev_end = v[i].e;
        if (gap <= 0) continue;
        int cls = v[i].launch != INT64_MIN && v[i].launch > v[i].s - gap ? TR_IDLE_HOST
                  : gap < threshold                                      ? TR_IDLE_KERNEL
                                                                         : TR_IDLE_OTHER;
        cur->time[cls] += gap;
        cur->gaps[cls]++;
        cur->idle += gap;
    }
    return TR_OK;
}

/* ---- launch queue ---- */

typedef struct gb_step {
    int64_t ts;
    int delta; /* +1 launch, -1 start on the GPU */
} gb_step;

static int gb_step_cmp(const void *pa, const void *pb)
{
    const gb_step *a = pa, *b = pb;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    return (a->delta < b->delta) - (a->delta > b->delta);
}

/* One stream's queue from its steps (sorted here). */
static void gb_queue_of(gb_step *v, size_t n, tr_gpu_queue *q)
{
    tr_qsort(v, n, sizeof *v, gb_step_cmp);
    int64_t len = 0, sum = 0;
    for (size_t i = 0; i < n; i++) {
        len += v[i].delta;
        sum += len;
        if (!i || len > q->max) q->max = len;
    }
    len = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        len += v[i].delta;
        if (len == q->max) q->at_max += v[i + 1].ts - v[i].ts;
    }
    q->points = n;
    q->mean = n ? (double)sum / (double)n : 0;
}

/* Expects the events sorted by stream (gb_idle's order). */
static int gb_queues(const tr_gx_set *g, tr_vec *out)
{
    const tr_gx_ev *v = g->ev.data;
    tr_vec steps;
    tr_vec_init(&steps, sizeof(gb_step));
    int rc = TR_OK;
    for (size_t i = 0; i < g->ev.len && rc == TR_OK;) {
        size_t j = i;
        steps.len = 0;
        for (; j < g->ev.len && v[j].track == v[i].track && rc == TR_OK; j++) {
            if (v[j].sync || v[j].launch == INT64_MIN) continue;
            gb_step *a = tr_vec_push(&steps), *b = a ? tr_vec_push(&steps) : NULL;
            if (!b) {
                rc = TR_FATAL;
                break;
            }
            TR_VEC_AT(&steps, gb_step, steps.len - 2) = (gb_step){v[j].launch, 1};
            TR_VEC_AT(&steps, gb_step, steps.len - 1) = (gb_step){v[j].s, -1};
        }
        if (rc == TR_OK && steps.len) {
            tr_gpu_queue *q = tr_vec_push(out);
            if (!q) {
                rc = TR_FATAL;
                break;
            }
            memset(q, 0, sizeof *q);
            q->track = v[i].track;
            gb_queue_of(steps.data, steps.len, q);
        }
        i = j;
    }
    tr_vec_fini(&steps);
    return rc;
}

void tr_gpu_breakdown_fini(tr_gpu_breakdown *s)
{
    tr_free(s->devices);
    tr_free(s->streams);
    tr_free(s->queues);
    tr_free(s->membw);
    memset(s, 0, sizeof *s);
}

int tr_gpu_breakdown_compute(const tr_trace *t, const tr_stat_opts *o, tr_gpu_breakdown *out,
                             tr_error *e)
{
    memset(out, 0, sizeof *out);
    out->kernel_wait = o->kernel_wait;
    tr_gx_set g;
    tr_vec idle, queues, membw;
    tr_vec_init(&idle, sizeof(tr_gpu_idle));
    tr_vec_init(&queues, sizeof(tr_gpu_queue));
    tr_vec_init(&membw, sizeof(tr_gpu_membw));
    int rc = tr_gx_collect(t, o, &g);
    if (rc == TR_OK && g.n_dev) {
        out->devices = tr_calloc(g.n_dev, sizeof *out->devices);
        rc = out->devices ? TR_OK : TR_FATAL;
    }
    if (rc == TR_OK) {
        out->n_devices = g.n_dev;
        gb_temporal(t, &g, out->devices);
        rc = gb_idle(t, &g, o->kernel_wait, &idle);
    }
    if (rc == TR_OK) rc = gb_queues(&g, &queues);
    if (rc == TR_OK) rc = tr_gx_membw(t, &g, o->hta_rounding, &membw);
    out->membw = membw.data;
    out->n_membw = membw.len;
    out->streams = idle.data;
    out->n_streams = idle.len;
    out->queues = queues.data;
    out->n_queues = queues.len;
    tr_gx_fini(&g);
    if (rc != TR_OK) {
        tr_gpu_breakdown_fini(out);
        return tr_error_nomem(e);
    }
    return TR_OK;
}

/* ---- kernel breakdown ---- */

static const tr_trace *gb_sort_trace; /* tr_qsort's comparator has no context */

static int gb_kernel_cmp(const void *pa, const void *pb)
{
    const tr_kernel_stat *a = pa, *b = pb;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    if (a->type != b->type) return a->type < b->type ? -1 : 1;
    if (a->total != b->total) return a->total > b->total ? -1 : 1;
    return tr_an_strcmp(gb_sort_trace, a->name, b->name);
}

/* Adds duration D of an event named NAME to its row in ROWS (found through BY by KEY). */
static int gb_kernel_add(tr_map *by, uint64_t key, tr_vec *rows, const tr_gx_ev *ev, int32_t rank)
{
    int64_t d = ev->e - ev->s;
    int is_new;
    uint32_t *slot = tr_map_slot(by, key, &is_new);
    tr_kernel_stat *k = slot && is_new ? tr_vec_push(rows) : NULL;
    if (!slot || (is_new && !k)) return TR_FATAL;
    if (is_new) {
        *slot = (uint32_t)(rows->len - 1);
        *k = (tr_kernel_stat){.name = ev->name, .type = ev->type, .rank = rank, .min = d, .max = d};
    }
    k = &TR_VEC_AT(rows, tr_kernel_stat, *slot);
    k->count++;
    k->total += d;
    if (d < k->min) k->min = d;
    if (d > k->max) k->max = d;
    return TR_OK;
}

static int gb_kernels(const tr_trace *t, const tr_gx_set *g, tr_gpu_kernels *out, tr_vec *rows,
                      tr_vec *ranked)
{
    tr_map by_name = {0}, by_rank = {0};
    const tr_gx_ev *v = g->ev.data;
    int rc = TR_OK;
    for (size_t i = 0; i < g->ev.len && rc == TR_OK; i++) {
        if (v[i].sync) continue;
        int32_t rank = tr_process_get(t, g->dev_proc[v[i].dev])->rank;
        rc = gb_kernel_add(&by_name, v[i].name, rows, &v[i], -1);
        if (rc == TR_OK)
            rc = gb_kernel_add(&by_rank, (uint64_t)(uint32_t)rank << 32 | v[i].name, ranked, &v[i],
                               rank);
        out->type_total[v[i].type] += v[i].e - v[i].s;
        out->type_count[v[i].type]++;
        out->total += v[i].e - v[i].s;
    }
    tr_map_fini(&by_name);
    tr_map_fini(&by_rank);
    return rc;
}

static void gb_kernel_means(tr_kernel_stat *k, size_t n)
{
    for (size_t i = 0; i < n; i++) k[i].mean = (double)k[i].total / (double)k[i].count;
    tr_qsort(k, n, sizeof *k, gb_kernel_cmp);
}

/* ---- HTA's top kernels + "others" ---- */

#define GB_TOP_KERNELS 10  /* HTA's num_kernels */
#define GB_TOP_RATIO   0.8 /* HTA's duration_ratio */

/* numpy's linear quantile Q of the N ascending values V, as pandas' quantile computes it. */
static double gb_quantile(const int64_t *v, size_t n, double q)
{
    double idx = (double)n * q + (1.0 + q * -1.0) - 1.0; /* _compute_virtual_index */
    double lo = floor(idx);
    size_t a = lo < 0 ? 0 : (size_t)lo, b = a + 1 < n ? a + 1 : n - 1;
    double g = idx - lo, va = (double)v[a], d = (double)v[b] - va;
    return g >= 0.5 ? (double)v[b] - d * (1.0 - g) : va + d * g; /* numpy's _lerp */
}

/* Marks the grouped rows of one rank and type's N rows K; appends their sum to OUT. */
static int gb_group(tr_kernel_stat *k, size_t n, int64_t *cum, tr_vec *out)
{
    if (n <= GB_TOP_KERNELS) return TR_OK;
    for (size_t i = 0; i < n; i++) cum[i] = (i ? cum[i - 1] : 0) + k[i].total;
    double q = gb_quantile(cum, n, GB_TOP_RATIO);
    tr_kernel_others *o = tr_vec_push(out);
    if (!o) return TR_FATAL;
    *o = (tr_kernel_others){.rank = k->rank, .type = k->type};
    for (size_t i = 0; i < n; i++) {
        k[i].other = (double)cum[i] > q || i >= GB_TOP_KERNELS;
        if (!k[i].other) continue;
        o->names++;
        o->count += k[i].count;
        o->total += k[i].total;
    }
    return TR_OK;
}

static int gb_others(tr_gpu_kernels *out)
{
    tr_vec v;
    tr_vec_init(&v, sizeof(tr_kernel_others));
    int64_t *cum = tr_malloc((out->n_by_rank ? out->n_by_rank : 1) * sizeof *cum);
    int rc = cum ? TR_OK : TR_FATAL;
    tr_kernel_stat *k = out->by_rank;
    for (size_t i = 0, j; i < out->n_by_rank && rc == TR_OK; i = j) {
        for (j = i; j < out->n_by_rank && k[j].rank == k[i].rank && k[j].type == k[i].type; j++)
            ;
        rc = gb_group(&k[i], j - i, cum, &v);
    }
    tr_free(cum);
    out->others = v.data;
    out->n_others = v.len;
    return rc;
}

void tr_gpu_kernels_fini(tr_gpu_kernels *s)
{
    tr_free(s->kernels);
    tr_free(s->by_rank);
    tr_free(s->others);
    memset(s, 0, sizeof *s);
}

int tr_gpu_kernels_compute(const tr_trace *t, const tr_stat_opts *o, tr_gpu_kernels *out,
                           tr_error *e)
{
    memset(out, 0, sizeof *out);
    tr_gx_set g;
    tr_vec rows, ranked;
    tr_vec_init(&rows, sizeof(tr_kernel_stat));
    tr_vec_init(&ranked, sizeof(tr_kernel_stat));
    int rc = tr_gx_collect(t, o, &g);
    if (rc == TR_OK) rc = gb_kernels(t, &g, out, &rows, &ranked);
    tr_gx_fini(&g);
    out->kernels = rows.data;
    out->n = rows.len;
    out->by_rank = ranked.data;
    out->n_by_rank = ranked.len;
    if (rc != TR_OK) {
        tr_gpu_kernels_fini(out);
        return tr_error_nomem(e);
    }
    gb_sort_trace = t;
    gb_kernel_means(out->kernels, out->n);
    gb_kernel_means(out->by_rank, out->n_by_rank);
    if (gb_others(out) != TR_OK) {
        tr_gpu_kernels_fini(out);
        return tr_error_nomem(e);
    }
    return TR_OK;
}
