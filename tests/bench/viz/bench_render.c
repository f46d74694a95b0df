/*
** bench_render N [TRACKS] [OUT.png]: builds a trace of N slices in memory
** (TRACKS threads, slices nested three deep, most narrower than a pixel) and
** prints how long building, freezing and rendering a timeline take.
*/
#include "tr_render.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000;
    long tracks = argc > 2 ? atol(argv[2]) : 16;
    const char *out = argc > 3 ? argv[3] : "bench-render.png";
    if (n < 1 || tracks < 1) {
        fprintf(stderr, "usage: bench_render N [TRACKS] [OUT.png]\n");
        return 2;
    }
    double t0 = now();
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "bench", "bench");
    uint32_t p = tr_process_intern(t, in, 1);
    uint32_t *tk = malloc((size_t)tracks * sizeof *tk);
    tr_str names[8];
    static const char *const ops[8] = {"MatMul",     "BinaryOp", "UnaryOp",     "CreateTensor",
                                       "FreeTensor", "GetData",  "WorkerBatch", "allreduce"};
    for (int i = 0; i < 8; i++) names[i] = tr_str_internz(t, ops[i]);
    for (long i = 0; i < tracks; i++) {
        char name[32];
        snprintf(name, sizeof name, "worker %ld", i);
        tk[i] = tr_track_intern(t, p, TR_TRACK_WORKER, i, tr_str_internz(t, name));
    }
    /* Per track a parent of 3 us holding a child of 2 us holding a leaf of 1 us, 4 us apart. */
    long per = n / tracks;
    for (long k = 0; k < tracks; k++)
        for (long i = 0; i < per; i += 3) {
            int64_t ts = (int64_t)(i / 3) * 4000;
            tr_slice_add(t, tk[k], ts, 3000, names[(i + k) % 8], 0, -1, 0);
            if (i + 1 < per) tr_slice_add(t, tk[k], ts + 500, 2000, names[(i + 1) % 8], 0, -1, 0);
            if (i + 2 < per) tr_slice_add(t, tk[k], ts + 1000, 1000, names[(i + 2) % 8], 0, -1, 0);
        }
    tr_error e = {0};
    double t1 = now();
    if (tr_trace_freeze(t, &e) < 0) return 1;
    double t2 = now();
    tr_render_opts o;
    tr_render_opts_init(&o);
    tr_render_stats st;
    if (tr_render(t, &o, out, -1, &st, &e) < 0) {
        fprintf(stderr, "bench_render: %s\n", e.msg);
        return 1;
    }
    double t3 = now();
    tr_slices s;
    tr_trace_slices(t, &s);
    printf("slices %zu, tracks %ld: build %.2f s, freeze %.2f s, render %.2f s "
           "(%zu drawn, %zu merged into busy bars)\n",
           s.n, tracks, t1 - t0, t2 - t1, t3 - t2, st.slices_drawn, st.slices_merged);
    tr_trace_free(t);
    free(tk);
    return 0;
}
