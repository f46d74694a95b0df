/*
** example.c: a program on the installed libtrace.  It reads the traces named
** on its command line (any format tracecat reads) and prints, per track, the
** number of slices and their total time.
**
**   cc example.c $(pkg-config --cflags --libs libtrace) -o example
**   ./example run.log
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "tr_load.h"
#include "tr_readers.h"

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s TRACE...\n", argv[0]);
        return 2;
    }
    tr_trace *t = tr_trace_new();
    tr_error e = {0};
    tr_load_opts lo = {.readers = tr_readers};
    if (!t || tr_load_many(t, (const char *const *)argv + 1, (size_t)argc - 1, &lo, &e) < 0 ||
        tr_trace_freeze(t, &e) < 0) {
        char msg[1200];
        fprintf(stderr, "%s: %s\n", argv[0], tr_error_format(&e, msg, sizeof msg));
        tr_trace_free(t);
        return 1;
    }
    size_t n_tracks = tr_track_count(t);
    uint64_t *count = calloc(n_tracks + 1, sizeof *count);
    int64_t *total = calloc(n_tracks + 1, sizeof *total);
    tr_slices s;
    tr_trace_slices(t, &s);
    for (size_t i = 0; count && total && i < s.n; i++) {
        count[s.track[i]]++;
        if (s.depth[i] == 0) total[s.track[i]] += tr_slice_dur(&s, i);
    }
    for (size_t k = 0; count && total && k < n_tracks; k++) {
        const tr_track *tk = tr_track_get(t, (uint32_t)k);
        const tr_process *p = tr_process_get(t, tk->process);
        printf("%s\t%s\t%" PRIu64 "\t%" PRId64 "\n", tr_str_get(t, p->name, NULL),
               tr_str_get(t, tk->name, NULL), count[k], total[k]);
    }
    free(count);
    free(total);
    tr_trace_free(t);
    return 0;
}
