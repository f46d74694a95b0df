/*
** bench_fixed [RUNS] [FORMAT]: the fixed cost of a picture.  A trace of one
** slice is drawn RUNS times (20) as a 16 x 10 in timeline at 150 dpi (2400 x
** 1500 pixels, the height given) into a PNG (or .svg / .pdf), then at the
** height its content needs; prints the best and the mean time of a render,
** the first left out (it loads fonts).
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
    int runs = argc > 1 ? atoi(argv[1]) : 20;
    const char *ext = argc > 2 ? argv[2] : "png";
    if (runs < 2) {
        fprintf(stderr, "usage: bench_fixed [RUNS >= 2] [png|svg|pdf]\n");
        return 2;
    }
    char out[64];
    snprintf(out, sizeof out, "bench-fixed.%s", ext);
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "bench", "bench");
    uint32_t p = tr_process_intern(t, in, 1);
    uint32_t tk = tr_track_intern(t, p, TR_TRACK_THREAD, 1, tr_str_internz(t, "main"));
    tr_slice_add(t, tk, 0, 1000000, tr_str_internz(t, "step"), 0, -1, 0);
    tr_error e = {0};
    if (tr_trace_freeze(t, &e) < 0) return 1;
    tr_render_opts o;
    tr_render_opts_init(&o);
    for (o.height_given = 1; o.height_given >= 0; o.height_given--) {
        double best = 1e9, sum = 0;
        tr_render_stats st;
        for (int i = 0; i < runs; i++) {
            double a = now();
            if (tr_render(t, &o, out, -1, &st, &e) < 0) {
                fprintf(stderr, "bench_fixed: %s\n", e.msg);
                return 1;
            }
            double d = now() - a;
            if (i == 0) continue;
            sum += d;
            if (d < best) best = d;
        }
        printf("%s %d x %d: best %.1f ms, mean %.1f ms over %d renders\n", ext, st.width_px,
               st.height_px, best * 1e3, sum / (runs - 1) * 1e3, runs - 1);
    }
    tr_trace_free(t);
    return 0;
}
