/*
** fuzz_recorder.c: the Recorder reader on arbitrary bytes taken as the files
** of one trace directory: a bundle of (name NUL, uint32 LE length, bytes)
** entries, e.g. "VERSION", "recorder.mt", "0.cst", "0.cfg", "0.ts" or the G3
** "recorder.ts", "recorder.cst", "ug.cfg", "ug.mt".  The bundle becomes a tar
** in memory, read as a directory view (tr_dir) on one thread and on two, then
** frozen.  Nothing may crash, hang, leak or read out of bounds; errors are
** fine.
**
** Seeds (tests/fuzz/corpus/recorder) are the real samples of
** testdata/recorder and some of testdata/recorder/bad packed so:
**   python3 -c 'import os,struct,sys; d=sys.argv[1]; sys.stdout.buffer.write(b"".join(
**     f.encode()+b"\0"+struct.pack("<I",os.path.getsize(d+"/"+f))+open(d+"/"+f,"rb").read()
**     for f in sorted(os.listdir(d)) if os.path.isfile(d+"/"+f)))' DIR > SEED
*/
#include "tr_reader.h"

#include <archive.h>
#include <archive_entry.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX (1u << 20)

extern const tr_reader tr_reader_recorder;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* One bundle entry as a tar member; 0 at the first incomplete entry. */
static int add_entry(struct archive *a, const uint8_t **pp, const uint8_t *end)
{
    const uint8_t *c = *pp, *nul = memchr(c, 0, (size_t)(end - c));
    if (!nul || end - nul < 5 || nul == c) return 0;
    uint32_t len =
        (uint32_t)nul[1] | (uint32_t)nul[2] << 8 | (uint32_t)nul[3] << 16 | (uint32_t)nul[4] << 24;
    if (len > (size_t)(end - nul - 5)) return 0;
    struct archive_entry *en = archive_entry_new();
    archive_entry_set_pathname(en, (const char *)c);
    archive_entry_set_filetype(en, AE_IFREG);
    archive_entry_set_perm(en, 0644);
    archive_entry_set_size(en, len);
    int ok = archive_write_header(a, en) == ARCHIVE_OK &&
             (len == 0 || archive_write_data(a, nul + 5, len) == (la_ssize_t)len);
    archive_entry_free(en);
    *pp = nul + 5 + len;
    return ok;
}

/* The bundle as a tar in a malloc'd buffer (*N bytes), or NULL. */
static void *bundle_tar(const uint8_t *data, size_t size, size_t *n)
{
    size_t cap = 2 * size + 64 * 1024;
    void *buf = malloc(cap);
    struct archive *a = archive_write_new();
    int ok = buf && a && archive_write_set_format_pax_restricted(a) == ARCHIVE_OK &&
             archive_write_open_memory(a, buf, cap, n) == ARCHIVE_OK;
    for (const uint8_t *c = data; ok && c < data + size;)
        if (!add_entry(a, &c, data + size)) break;
    ok = ok && archive_write_close(a) == ARCHIVE_OK;
    if (a) archive_write_free(a);
    if (!ok) {
        free(buf);
        return NULL;
    }
    return buf;
}

static void fuzz_read(const void *tar, size_t n, int threads)
{
    tr_error e;
    tr_dir *d;
    if (tr_dir_open_memory(&d, "fuzz.tar", tar, n, &e) != TR_OK) return;
    tr_trace *t = tr_trace_new();
    tr_diag diag = {NULL, NULL, 0, 0};
    tr_read_opts o = {.diag = &diag, .threads = threads};
    uint32_t input = t ? tr_input_add(t, "fuzz.tar", "recorder") : TR_NONE;
    if (input != TR_NONE) {
        tr_sink sink;
        tr_sink_init(&sink, t, NULL, NULL);
        tr_read_ctx c = {NULL, d, &sink, input, &o};
        if (tr_read(&tr_reader_recorder, &c, &e) == TR_OK) tr_trace_freeze(t, &e);
    }
    tr_trace_free(t);
    tr_dir_close(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > FUZZ_MAX) return 0;
    size_t n = 0;
    void *tar = bundle_tar(data, size, &n);
    if (!tar) return 0;
    fuzz_read(tar, n, 1);
    fuzz_read(tar, n, 2);
    free(tar);
    return 0;
}
