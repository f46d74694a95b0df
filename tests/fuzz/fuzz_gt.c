/*
** fuzz_gt.c: the GT reader on arbitrary bytes, through the input layer as a
** user's file would go (so compressed or archived inputs reach it too), in
** both pairing modes, then freeze.  Nothing may crash, leak or read out of
** bounds; errors are fine.
*/
#include "tr_load.h"
#include "tr_readers.h"
#include "tr_writers.h"

#include <stdint.h>

#define FUZZ_MAX (1u << 20)

extern const tr_reader tr_reader_gt;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_read(const uint8_t *data, size_t size, int pairing)
{
    tr_error e;
    tr_source *src;
    if (tr_source_open_memory(&src, "fuzz.log", data, size, &e) != TR_OK) return;
    tr_trace *t = tr_trace_new();
    tr_diag diag = {NULL, NULL, 0, 0};
    tr_read_opts o = {.diag = &diag, .gt_pairing = pairing};
    tr_input *in;
    while (t && tr_source_next(src, &in, &e) == TR_OK) {
        uint32_t input = tr_input_add(t, tr_input_name(in), "gt");
        if (input == TR_NONE || tr_read_stream(&tr_reader_gt, in, t, input, &o, &e) < 0) break;
    }
    if (t) tr_trace_freeze(t, &e);
    tr_trace_free(t);
    tr_source_close(src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX) return 0;
    fuzz_read(data, size, TR_GT_PAIR_BATCH);
    fuzz_read(data, size, TR_GT_PAIR_VISUALIZE);
    return 0;
}
