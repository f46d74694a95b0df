/*
** fuzz_input.c: the input layer on arbitrary bytes.
**
** Opens the bytes as a memory source (so libarchive's decompressors and the
** tar and zip readers see them), peeks at and reads every stream line by
** line with a small line cap, and frees everything.  Warnings are counted.
*/
#include "tr_input.h"

#include <stddef.h>
#include <stdint.h>

/* Decompression bombs: stop after this many bytes so a run stays short. */
#define FUZZ_MAX_BYTES ((uint64_t)64 << 20)

static void fuzz_warn(void *user, const tr_error *w)
{
    (void)w;
    (*(uint64_t *)user)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tr_source *s;
    tr_error e;
    uint64_t warnings = 0, bytes = 0;
    tr_diag diag = {fuzz_warn, &warnings, 0, 0};
    if (tr_source_open_memory(&s, "fuzz", data, size, &e) != TR_OK) return 0;
    tr_input *in;
    unsigned n = 0;
    while (bytes < FUZZ_MAX_BYTES && tr_source_next(s, &in, &e) == TR_OK) {
        tr_input_set_diag(in, &diag);
        /* Alternate caps so that both the default and a small one are exercised. */
        if (n++ % 2) tr_input_set_line_max(in, 4096);
        const unsigned char *p;
        size_t got;
        if (tr_input_peek(in, &p, &got, TR_PEEK_SIZE, &e) != TR_OK) continue;
        tr_line line;
        while (bytes < FUZZ_MAX_BYTES && tr_input_getline(in, &line, &e) == TR_OK)
            bytes += line.len + 1;
    }
    tr_source_close(s);
    return 0;
}
