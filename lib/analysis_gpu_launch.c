/*
** analysis_gpu_launch.c: HTA's launch statistics.
**
** Every GPU event with a launching call (analysis_gpu_events.c joins them
** by correlation id) is one launch: the call's duration, the event's, and
** the delay between the call's end and the event's start.  The sums, the
** counts over HTA's cutoffs and the launch-delay outliers are kept.
*/
#include "analysis_gpu_impl.h"

#include <string.h>

void tr_gpu_launches_fini(tr_gpu_launches *s)
{
    tr_free(s->outliers);
    memset(s, 0, sizeof *s);
}

static int gl_by_delay(const void *pa, const void *pb)
{
    const tr_gpu_launch *a = pa, *b = pb;
    if (a->delay != b->delay) return a->delay > b->delay ? -1 : 1;
    return (a->kernel > b->kernel) - (a->kernel < b->kernel);
}

static int gl_count(const tr_gx_set *g, tr_gpu_launches *out, tr_vec *v)
{
    const tr_gx_ev *ev = g->ev.data;
    for (size_t i = 0; i < g->ev.len; i++) {
        if (ev[i].sync || ev[i].launch_row == TR_NONE) continue;
        tr_gpu_launch l = {.kernel = ev[i].row,
                           .launch = ev[i].launch_row,
                           .cpu_dur = ev[i].launch_end - ev[i].launch,
                           .gpu_dur = ev[i].e - ev[i].s,
                           .delay = ev[i].s - ev[i].launch_end};
        if (l.delay < 0) l.delay = 0;
        out->launches++;
        out->cpu_total += l.cpu_dur;
        out->gpu_total += l.gpu_dur;
        out->delay_total += l.delay;
        if (l.delay > out->delay_max) out->delay_max = l.delay;
        out->short_kernels += l.cpu_dur <= TR_GPU_RUNTIME_CUTOFF && l.gpu_dur < l.cpu_dur;
        out->runtime_outliers += l.cpu_dur > TR_GPU_RUNTIME_CUTOFF;
        if (l.delay <= TR_GPU_DELAY_CUTOFF) continue;
        out->delay_outliers++;
        tr_gpu_launch *p = tr_vec_push(v);
        if (!p) return TR_FATAL;
        *p = l;
    }
    return TR_OK;
}

int tr_gpu_launches_compute(const tr_trace *t, const tr_stat_opts *o, tr_gpu_launches *out,
                            tr_error *e)
{
    memset(out, 0, sizeof *out);
    tr_gx_set g;
    tr_vec v;
    tr_vec_init(&v, sizeof(tr_gpu_launch));
    int rc = tr_gx_collect(t, o, &g);
    if (rc == TR_OK) rc = gl_count(&g, out, &v);
    tr_gx_fini(&g);
    out->outliers = v.data;
    out->n_outliers = v.len;
    if (rc != TR_OK) {
        tr_gpu_launches_fini(out);
        return tr_error_nomem(e);
    }
    tr_qsort(out->outliers, out->n_outliers, sizeof *out->outliers, gl_by_delay);
    return TR_OK;
}
