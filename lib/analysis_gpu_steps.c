/*
** analysis_gpu_steps.c: HTA's profiler-step filter.
**
** When HTA loads traces (Trace._filter_irrelevant_gpu_kernels) that name two
** ProfilerStep#N or more, it keeps of each rank only the CPU events that
** start before the rank's last ProfilerStep#N starts (the last step may be
** cut short; include_last_profiler_step keeps those that start by its end)
** and the GPU events whose correlation id one of them has.  Here a rank is
** an input, its CPU events are its slices that are no GPU events of
** tr_gx_collect, and a GPU event's CPU event is its launch (the first slice
** with its correlation id).  The cutoff per input is kept in the set, so that
** the kernel sequences drop the same CPU events.
*/
#include "analysis_gpu_impl.h"

#include <string.h>

/* HTA's ^ProfilerStep#(\d+). */
static int gp_is_step(const char *n)
{
    return strncmp(n, "ProfilerStep#", 13) == 0 && n[13] >= '0' && n[13] <= '9';
}

typedef struct gp_input {
    int64_t step_start, step_end; /* the last step's start, the latest step end */
    int64_t cpu_first, cpu_end;   /* the first CPU slice's start, the latest end */
    int steps, cpu;               /* it has step slices, CPU slices */
} gp_input;

/* A slice's start and end, rounded as HTA's parser rounds them with ROUND. */
static void gp_times(const tr_slices *s, size_t i, int round, int64_t *b, int64_t *e)
{
    *b = s->ts[i];
    *e = tr_an_end(s, i);
    if (round) *b = -tr_gx_floor_us(-*b), *e = tr_gx_floor_us(*e);
    if (*e < *b) *e = *b;
}

/* Scans the CPU slices into IN (by input); returns how many step names the trace has. */
static size_t gp_scan(const tr_trace *t, const tr_slices *s, const uint8_t *is_gpu, int8_t *step,
                      int round, gp_input *in)
{
    size_t names = 0;
    for (size_t i = 0; i < s->n; i++) {
        int8_t *k = &step[s->name[i]];
        if (*k < 0) {
            *k = (int8_t)gp_is_step(tr_str_get(t, s->name[i], NULL));
            names += (size_t)*k;
        }
        if (is_gpu[i]) continue;
        gp_input *p = &in[tr_gx_input_of(t, s, i)];
        int64_t b, e;
        gp_times(s, i, round, &b, &e);
        if (!p->cpu || b < p->cpu_first) p->cpu_first = b;
        if (!p->cpu || e > p->cpu_end) p->cpu_end = e;
        p->cpu = 1;
        if (!*k) continue;
        if (!p->steps || b > p->step_start) p->step_start = b;
        if (!p->steps || e > p->step_end) p->step_end = e;
        p->steps = 1;
    }
    return names;
}

/* Each input's cutoff: HTA keeps a CPU slice starting before it (at or before it with LAST). */
static void gp_cuts(const gp_input *in, size_t n, int last, int64_t *cut)
{
    for (size_t i = 0; i < n; i++) {
        if (!in[i].cpu)
            cut[i] = INT64_MAX; /* HTA leaves a rank without CPU events as it is */
        else if (last)
            cut[i] = in[i].steps ? in[i].step_end : in[i].cpu_end;
        else
            cut[i] = in[i].steps ? in[i].step_start : in[i].cpu_first;
    }
}

int tr_gx_cpu_kept(const tr_gx_set *g, const tr_trace *t, const tr_slices *s, size_t row)
{
    if (!g->cut) return 1;
    int64_t b, e;
    gp_times(s, row, g->round, &b, &e);
    int64_t cut = g->cut[tr_gx_input_of(t, s, row)];
    return cut == INT64_MAX || (g->cut_last ? b <= cut : b < cut);
}

/* Drops the GPU events whose launch HTA's filter drops (or that have none). */
static void gp_drop(tr_gx_set *g, const tr_trace *t, const tr_slices *s)
{
    tr_gx_ev *v = g->ev.data;
    size_t n = 0;
    for (size_t i = 0; i < g->ev.len; i++) {
        int64_t cut = g->cut[tr_gx_input_of(t, s, v[i].row)];
        if (cut != INT64_MAX &&
            (v[i].launch_row == TR_NONE || !tr_gx_cpu_kept(g, t, s, v[i].launch_row)))
            continue;
        v[n++] = v[i];
    }
    g->ev.len = n;
}

int tr_gx_steps(const tr_trace *t, const tr_stat_opts *o, tr_gx_set *g)
{
    if (o->hta_steps == TR_HTA_STEPS_ALL) return TR_OK;
    tr_slices s;
    tr_trace_slices(t, &s);
    size_t n_in = tr_input_count(t), n_str = tr_str_count(t);
    uint8_t *is_gpu = tr_calloc(s.n ? s.n : 1, 1);
    int8_t *step = tr_malloc(n_str ? n_str : 1);
    gp_input *in = tr_calloc(n_in ? n_in : 1, sizeof *in);
    int rc = is_gpu && step && in ? TR_OK : TR_FATAL;
    if (rc == TR_OK) {
        memset(step, -1, n_str);
        const tr_gx_ev *v = g->ev.data;
        for (size_t i = 0; i < g->ev.len; i++) is_gpu[v[i].row] = 1;
        g->round = o->hta_rounding;
        g->cut_last = o->hta_steps == TR_HTA_STEPS_LAST;
        if (gp_scan(t, &s, is_gpu, step, o->hta_rounding, in) >= 2) {
            g->cut = tr_malloc((n_in ? n_in : 1) * sizeof *g->cut);
            rc = g->cut ? TR_OK : TR_FATAL;
        }
    }
    if (rc == TR_OK && g->cut) {
        gp_cuts(in, n_in, g->cut_last, g->cut);
        gp_drop(g, t, &s);
    }
    tr_free(is_gpu);
    tr_free(step);
    tr_free(in);
    return rc;
}
