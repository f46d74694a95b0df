/*
** fuzz_recorder.c: the Recorder reader on arbitrary bytes taken as the files
** of one trace directory: a bundle of (name NUL, uint32 LE length, bytes)
** entries, e.g. "VERSION", "recorder.mt", "0.cst", "0.cfg", "0.ts" or the G3
** "recorder.ts", "recorder.cst", "ug.cfg", "ug.mt".  Read on one thread and on
** two, then frozen.  Nothing may crash, hang, leak or read out of bounds;
** errors are fine.
**
** Seeds (tests/fuzz/corpus/recorder) are the real samples of
** testdata/recorder and some of testdata/recorder/bad packed so:
**   python3 -c 'import os,struct,sys; d=sys.argv[1]; sys.stdout.buffer.write(b"".join(
**     f.encode()+b"\0"+struct.pack("<I",os.path.getsize(d+"/"+f))+open(d+"/"+f,"rb").read()
**     for f in sorted(os.listdir(d)) if os.path.isfile(d+"/"+f)))' DIR > SEED
*/
#include "../../readers/recorder_impl.h"

#include <stdint.h>
#include <string.h>

#define FUZZ_MAX (1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_read(const uint8_t *data, size_t size, int threads)
{
    tr_error e;
    rec_fs fs;
    if (tr_recorder_fs_bundle(&fs, data, size, &e) != TR_OK) return;
    tr_trace *t = tr_trace_new();
    tr_diag diag = {NULL, NULL, 0, 0};
    tr_read_opts o;
    memset(&o, 0, sizeof o);
    o.diag = &diag;
    if (t) {
        uint32_t input = tr_input_add(t, "fuzz", "recorder");
        if (input != TR_NONE && tr_recorder_read_fs(&fs, t, input, &o, threads, NULL, &e) == TR_OK)
            tr_trace_freeze(t, &e);
    }
    tr_trace_free(t);
    tr_recorder_fs_fini(&fs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX) return 0;
    fuzz_read(data, size, 1);
    fuzz_read(data, size, 2);
    return 0;
}
