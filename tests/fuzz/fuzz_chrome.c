/*
** fuzz_chrome.c: the Chrome Trace Event reader on arbitrary bytes, through the
** input layer as a user's file would go (compressed inputs reach it too),
** lenient and strict, then freeze.  Nothing may crash, leak, hang or read
** out of bounds; errors are fine.
*/
#include "tr_load.h"
#include "tr_readers.h"
#include "tr_writers.h"

#include <stdint.h>
#include <string.h>

#define FUZZ_MAX (1u << 20)

extern const tr_reader tr_reader_chrome;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_read(const uint8_t *data, size_t size, int strict)
{
    tr_error e;
    tr_source *src;
    if (tr_source_open_memory(&src, "fuzz.json", data, size, &e) != TR_OK) return;
    tr_trace *t = tr_trace_new();
    tr_diag diag = {NULL, NULL, strict, 0};
    tr_read_opts o;
    memset(&o, 0, sizeof o);
    o.diag = &diag;
    tr_input *in;
    while (t && tr_source_next(src, &in, &e) == TR_OK) {
        uint32_t input = tr_input_add(t, tr_input_name(in), "chrome");
        if (input == TR_NONE || tr_read_stream(&tr_reader_chrome, in, t, input, &o, &e) < 0) break;
    }
    if (t) tr_trace_freeze(t, &e);
    tr_trace_free(t);
    tr_source_close(src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX) return 0;
    fuzz_read(data, size, 0);
    fuzz_read(data, size, 1);
    return 0;
}
