/*
** analysis_gpu_membw.c: HTA's memory bandwidth counters.
**
** The memory events among the GPU events of analysis_gpu_events.c
** (memcpy, memset, dma) become a step function per rank and memory kind
** (HTA's get_memory_kernel_type: "Memcpy DtoH", "Memset", ...): +bandwidth
** at an event's start, -bandwidth at its end, the bandwidth being the
** "memory bandwidth (GB/s)" arg Kineto writes.  The summary is HTA's
** get_memory_bw_summary: describe() of the positive points.
*/
#include "analysis_gpu_impl.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MB_KIND_LEN 11 /* strlen("Memcpy DtoH"): what HTA keeps of a memcpy's name */

typedef struct mb_step {
    uint32_t group, row; /* group: index into the rows; row: the slice, for ties */
    int64_t ts;
    int end; /* 1 the event's end */
    double bw;
} mb_step;

static int mb_step_cmp(const void *pa, const void *pb)
{
    const mb_step *a = pa, *b = pb;
    if (a->group != b->group) return a->group < b->group ? -1 : 1;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    if (a->end != b->end) return a->end ? -1 : 1; /* ends first: back-to-back copies don't add */
    if (a->row != b->row) return a->row < b->row ? -1 : 1;
    return 0;
}

static int mb_double_cmp(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* HTA's get_memory_kernel_type into KIND (SIZE bytes, room for "Memcpy Unknown"). */
static void mb_kind(const char *name, char *kind, size_t size)
{
    if (strncmp(name, "Memset", 6) == 0)
        snprintf(kind, size, "Memset");
    else if (strncmp(name, "Memcpy", 6) != 0)
        snprintf(kind, size, "Memcpy Unknown");
    else
        snprintf(kind, size, "%.*s", MB_KIND_LEN, name);
}

/* The row of (RANK, KIND) in ROWS, added when new; UINT32_MAX when out of memory. */
static uint32_t mb_group(tr_vec *rows, int32_t rank, const char *kind)
{
    for (size_t i = 0; i < rows->len; i++) {
        const tr_gpu_membw *m = &TR_VEC_AT(rows, tr_gpu_membw, i);
        if (m->rank == rank && strcmp(m->kind, kind) == 0) return (uint32_t)i;
    }
    tr_gpu_membw *m = tr_vec_push(rows);
    if (!m) return UINT32_MAX;
    memset(m, 0, sizeof *m);
    m->rank = rank;
    snprintf(m->kind, sizeof m->kind, "%s", kind);
    return (uint32_t)(rows->len - 1);
}

static double mb_bandwidth(const tr_trace *t, uint32_t args)
{
    tr_arg a;
    if (!args || !tr_args_find(t, args, "memory bandwidth (GB/s)", &a)) return 0;
    if (a.type == TR_ARG_REAL) return a.v.d;
    return a.type == TR_ARG_INT ? (double)a.v.i : a.type == TR_ARG_UINT ? (double)a.v.u : 0;
}

/* The group of event EV (by its name and device, through BY). */
static uint32_t mb_group_of(const tr_trace *t, const tr_gx_set *g, const tr_gx_ev *ev, tr_map *by,
                            tr_vec *rows)
{
    int is_new;
    uint32_t *slot = tr_map_slot(by, (uint64_t)ev->name << 32 | ev->dev, &is_new);
    if (!slot || !is_new) return slot ? *slot : UINT32_MAX;
    char kind[sizeof((tr_gpu_membw *)0)->kind];
    mb_kind(tr_str_get(t, ev->name, NULL), kind, sizeof kind);
    uint32_t grp = mb_group(rows, tr_process_get(t, g->dev_proc[ev->dev])->rank, kind);
    slot = tr_map_slot(by, (uint64_t)ev->name << 32 | ev->dev, &is_new);
    if (slot) *slot = grp;
    return slot ? grp : UINT32_MAX;
}

/* Two steps per memory event; a zero-length event lasts one time unit, as in HTA. */
static int mb_steps(const tr_trace *t, const tr_gx_set *g, int64_t unit, tr_vec *rows,
                    tr_vec *steps)
{
    tr_slices s;
    tr_trace_slices(t, &s);
    const tr_gx_ev *v = g->ev.data;
    tr_map by = {0};
    int rc = TR_OK;
    for (size_t i = 0; i < g->ev.len; i++) {
        if (v[i].sync || v[i].type != TR_KTYPE_MEMORY) continue;
        uint32_t grp = mb_group_of(t, g, &v[i], &by, rows);
        mb_step *a = grp != UINT32_MAX ? tr_vec_push(steps) : NULL;
        mb_step *b = a ? tr_vec_push(steps) : NULL;
        if (!b) {
            rc = TR_FATAL;
            break;
        }
        a = &TR_VEC_AT(steps, mb_step, steps->len - 2);
        double bw = mb_bandwidth(t, s.args[v[i].row]);
        int64_t end = v[i].e > v[i].s ? v[i].e : v[i].s + unit;
        *a = (mb_step){.group = grp, .row = v[i].row, .ts = v[i].s, .end = 0, .bw = bw};
        *b = (mb_step){.group = grp, .row = v[i].row, .ts = end, .end = 1, .bw = bw};
        TR_VEC_AT(rows, tr_gpu_membw, grp).events++;
    }
    tr_map_fini(&by);
    return rc;
}

/* Linear interpolation between closest ranks, as numpy's percentile. */
static double mb_quantile(const double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t lo = (size_t)pos;
    return lo + 1 < n ? v[lo] + (v[lo + 1] - v[lo]) * (pos - (double)lo) : v[lo];
}

/* describe() of the N positive points V (sorted here) into M. */
static void mb_describe(double *v, size_t n, tr_gpu_membw *m)
{
    m->points = n;
    if (!n) return;
    double sum = 0, sq = 0;
    for (size_t i = 0; i < n; i++) sum += v[i];
    m->mean = sum / (double)n;
    for (size_t i = 0; i < n; i++) sq += (v[i] - m->mean) * (v[i] - m->mean);
    m->std = n > 1 ? sqrt(sq / (double)(n - 1)) : NAN;
    tr_qsort(v, n, sizeof *v, mb_double_cmp);
    m->min = v[0];
    m->max = v[n - 1];
    m->p25 = mb_quantile(v, n, 0.25);
    m->p50 = mb_quantile(v, n, 0.5);
    m->p75 = mb_quantile(v, n, 0.75);
}

/*
** Walks each group's steps in time order: the running sum after each step is
** a point; with no event of the group running it is exactly 0 (a float sum of
** +x and -x may leave a residue).
*/
static int mb_points(mb_step *v, size_t n, tr_gpu_membw *rows)
{
    tr_vec pts;
    tr_vec_init(&pts, sizeof(double));
    int rc = TR_OK;
    for (size_t i = 0; i < n && rc == TR_OK;) {
        size_t j = i;
        double run = 0;
        int64_t open = 0;
        pts.len = 0;
        for (; j < n && v[j].group == v[i].group; j++) {
            run += v[j].end ? -v[j].bw : v[j].bw;
            open += v[j].end ? -1 : 1;
            if (!open) run = 0;
            double *p = run > 0 ? tr_vec_push(&pts) : NULL;
            if (run > 0 && !p) {
                rc = TR_FATAL;
                break;
            }
            if (p) *p = run;
        }
        if (rc == TR_OK) mb_describe(pts.data, pts.len, &rows[v[i].group]);
        i = j;
    }
    tr_vec_fini(&pts);
    return rc;
}

static int mb_row_cmp(const void *pa, const void *pb)
{
    const tr_gpu_membw *a = pa, *b = pb;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    return strcmp(a->kind, b->kind);
}

int tr_gx_membw(const tr_trace *t, const tr_gx_set *g, int hta_rounding, tr_vec *rows)
{
    tr_vec steps;
    tr_vec_init(&steps, sizeof(mb_step));
    int rc = mb_steps(t, g, hta_rounding ? 1000 : 1, rows, &steps);
    if (rc == TR_OK) {
        tr_qsort(steps.data, steps.len, sizeof(mb_step), mb_step_cmp);
        rc = mb_points(steps.data, steps.len, rows->data);
    }
    tr_vec_fini(&steps);
    if (rc == TR_OK) tr_qsort(rows->data, rows->len, sizeof(tr_gpu_membw), mb_row_cmp);
    return rc;
}
