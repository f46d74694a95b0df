/*
** bench_merge.c INPUT...: reads the inputs with tr_load_many on one thread,
** then on two, and prints the read phase, the merge after it and the
** alignment + freeze, with a checksum of the frozen trace to show both
** reads made the same model.  A benchmark: it prints figures, checks little.
*/
#include "tr_load.h"
#include "tr_readers.h"
#include "tr_writers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* FNV-1a over the event columns and the strings. */
static uint64_t checksum(const tr_trace *t, size_t *events)
{
    uint64_t h = 1469598103934665603ULL;
#define MIX(p, n)                                                                                  \
    for (size_t k_ = 0; k_ < (n); k_++)                                                            \
    h = (h ^ ((const unsigned char *)(p))[k_]) * 1099511628211ULL
    tr_slices sl;
    tr_instants in;
    tr_counters co;
    tr_samples sa;
    tr_trace_slices(t, &sl);
    tr_trace_instants(t, &in);
    tr_trace_counters(t, &co);
    tr_trace_samples(t, &sa);
    MIX(sl.ts, sl.n * 8);
    MIX(sl.dur32, sl.n * 4);
    MIX(sl.name, sl.n * 4);
    MIX(sl.args, sl.n * 4);
    MIX(in.ts, in.n * 8);
    for (size_t i = 0; i < in.n; i++) {
        tr_str name = tr_instant_name(&in, i);
        MIX(&name, sizeof name);
    }
    MIX(co.ts, co.n * 8);
    MIX(sa.ts, sa.n * 8);
    MIX(sa.stack, sa.n * 4);
    for (size_t s = 0; s < tr_str_count(t); s++) {
        size_t n;
        const char *p = tr_str_get(t, (tr_str)s, &n);
        MIX(p, n);
    }
#undef MIX
    *events = sl.n + in.n + co.n + sa.n;
    return h;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_merge INPUT...\n");
        return 2;
    }
    double read1 = 0;
    uint64_t sum1 = 0;
    for (int threads = 1; threads <= 2; threads++) {
        tr_trace *t = tr_trace_new();
        tr_diag diag = {0};
        tr_load_opts o;
        memset(&o, 0, sizeof o);
        o.readers = tr_readers;
        o.read.diag = &diag;
        o.threads = threads;
        tr_error e = {0};
        double t0 = now();
        int rc = tr_load_many(t, (const char *const *)argv + 1, (size_t)argc - 1, &o, &e);
        double t1 = now();
        if (rc == TR_OK) rc = tr_trace_freeze(t, &e);
        double t2 = now();
        if (rc != TR_OK) {
            fprintf(stderr, "bench_merge: %s: %s\n", e.file, e.msg);
            return 1;
        }
        size_t events;
        uint64_t sum = checksum(t, &events);
        double read = (double)o.read_ns / 1e9, merge = (double)o.merge_ns / 1e9;
        double align = t1 - t0 - read - merge;
        if (threads == 1) read1 = read, sum1 = sum;
        printf("threads %d: %d inputs, %zu events, read %.3f s, merge %.3f s, align %.3f s, "
               "freeze %.3f s, load total %.3f s, model %zu MB",
               threads, argc - 1, events, read, merge, align, t2 - t1, t1 - t0,
               tr_trace_memory(t) >> 20);
        if (threads == 2)
            printf(", read speed-up %.2fx, same model: %s", read1 / read,
                   sum == sum1 ? "yes" : "NO");
        printf("\n");
        tr_trace_free(t);
    }
    return 0;
}
