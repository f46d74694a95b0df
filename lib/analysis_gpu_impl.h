/*
** analysis_gpu_impl.h: the GPU events the HTA breakdowns share (not public):
** analysis_gpu_events.c collects them, analysis_gpu_breakdown.c sums them.
*/
#ifndef TR_ANALYSIS_GPU_IMPL_H
#define TR_ANALYSIS_GPU_IMPL_H

#include "analysis_impl.h"

typedef struct tr_gx_ev {
    uint32_t row;              /* its slice */
    uint32_t track, dev, name; /* dev: index into the set's devices */
    uint8_t type, sync;        /* tr_kernel_type; a cuda_sync event */
    int64_t s, e, launch;      /* start, end (rounded with hta_rounding); launch INT64_MIN: none */
    int64_t launch_end;        /* the launching call's end (rounded likewise) */
    uint32_t launch_row;       /* the launching call's slice, TR_NONE none */
} tr_gx_ev;

typedef struct tr_gx_set {
    tr_vec ev;        /* tr_gx_ev, in slice order */
    uint32_t *dev_of; /* by process: device index, UINT32_MAX none */
    uint32_t n_dev;
    uint32_t *dev_proc; /* by device: process */
    int64_t *cut;       /* by input: HTA's profiler-step cutoff (analysis_gpu_steps.c); NULL none */
    int cut_last;       /* a CPU slice at the cutoff is kept (include_last_profiler_step) */
    int round;          /* the cutoff is in HTA's whole microseconds */
} tr_gx_set;

/* ^The input slice I of S came from (HTA's rank: one trace file). */
static inline uint32_t tr_gx_input_of(const tr_trace *t, const tr_slices *s, size_t i)
{
    return tr_process_get(t, tr_track_get(t, s->track[i])->process)->input;
}

/* ^NS floored to whole microseconds (HTA's rounding: ends down, starts up as -floor(-ts)). */
static inline int64_t tr_gx_floor_us(int64_t ns)
{
    int64_t q = ns / 1000;
    return (ns % 1000 < 0 ? q - 1 : q) * 1000;
}

/* ^Collects the GPU events of T into G; TR_OK or TR_FATAL (out of memory; G is then finishable). */
int tr_gx_collect(const tr_trace *t, const tr_stat_opts *o, tr_gx_set *g);
void tr_gx_fini(tr_gx_set *g);
/*
** ^Applies HTA's profiler-step filter (o->hta_steps) to G's events, whose
** launches are linked; sets G's cutoffs.  ^TR_OK or TR_FATAL (out of memory).
*/
int tr_gx_steps(const tr_trace *t, const tr_stat_opts *o, tr_gx_set *g);
/* ^Whether HTA's profiler-step filter keeps the CPU slice ROW of S. */
int tr_gx_cpu_kept(const tr_gx_set *g, const tr_trace *t, const tr_slices *s, size_t row);
/* ^Appends G's memory bandwidth rows (tr_gpu_membw, sorted) to ROWS; TR_OK or TR_FATAL. */
int tr_gx_membw(const tr_trace *t, const tr_gx_set *g, int hta_rounding, tr_vec *rows);

#endif
