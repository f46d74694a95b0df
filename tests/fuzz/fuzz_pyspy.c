/*
** fuzz_pyspy.c: the py-spy reader family on arbitrary bytes, through the
** input layer as a user's file would go, with and without derived slices,
** then freeze and the folded writer's pass over the samples.  Nothing may
** crash, leak or read out of bounds; errors are fine.
*/
#include "tr_load.h"
#include "tr_readers.h"
#include "tr_writers.h"

#include <stdint.h>

#define FUZZ_MAX (1u << 20)

extern const tr_reader tr_reader_pyspy;
extern const tr_reader tr_reader_folded;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_read(const uint8_t *data, size_t size, const tr_reader *r, int no_slices)
{
    tr_error e;
    tr_source *src;
    if (tr_source_open_memory(&src, "fuzz.txt", data, size, &e) != TR_OK) return;
    tr_trace *t = tr_trace_new();
    tr_diag diag = {NULL, NULL, 0, 0};
    tr_read_opts o = {0};
    o.diag = &diag;
    o.no_stack_slices = no_slices;
    tr_input *in;
    while (t && tr_source_next(src, &in, &e) == TR_OK) {
        uint32_t input = tr_input_add(t, tr_input_name(in), r->name);
        if (input == TR_NONE || tr_read_stream(r, in, t, input, &o, &e) < 0) break;
    }
    if (t) tr_trace_freeze(t, &e);
    tr_trace_free(t);
    tr_source_close(src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX) return 0;
    fuzz_read(data, size, &tr_reader_pyspy, 0);
    fuzz_read(data, size, &tr_reader_pyspy, 1);
    fuzz_read(data, size, &tr_reader_folded, 1);
    return 0;
}
