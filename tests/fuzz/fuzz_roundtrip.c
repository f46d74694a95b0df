/*
** fuzz_roundtrip.c: a differential target.  The first byte picks a stream
** reader (GT, py-spy, folded or Chrome), which reads the rest as a user's
** file; what it read, frozen, is written with the Chrome writer and read
** back with the Chrome reader.  Both traces must have the same number of
** slices, instants, counters and samples (with a frame), and the same slice and instant
** names (as multisets).  A difference aborts, so libFuzzer keeps the input.
*/
#include "tr_load.h"
#include "tr_mem.h"
#include "tr_readers.h"
#include "tr_writers.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_MAX (1u << 20)

extern const tr_reader tr_reader_gt, tr_reader_pyspy, tr_reader_folded, tr_reader_chrome;
extern const tr_writer tr_writer_chrome;

static const tr_reader *const rt_readers[] = {&tr_reader_gt, &tr_reader_pyspy, &tr_reader_folded,
                                              &tr_reader_chrome};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* ---- the first trace: one reader on the bytes ---- */

static tr_trace *rt_read(const tr_reader *r, const uint8_t *data, size_t size)
{
    tr_error e;
    tr_source *src;
    if (tr_source_open_memory(&src, "fuzz", data, size, &e) != TR_OK) return NULL;
    tr_trace *t = tr_trace_new();
    tr_diag diag = {NULL, NULL, 0, 0};
    tr_read_opts o = {.diag = &diag};
    tr_input *in;
    int rc = t ? TR_OK : TR_FAIL;
    while (rc == TR_OK && tr_source_next(src, &in, &e) == TR_OK) {
        uint32_t input = tr_input_add(t, tr_input_name(in), r->name);
        rc = input == TR_NONE ? TR_FAIL : tr_read_stream(r, in, t, input, &o, &e);
    }
    if (rc == TR_OK) rc = tr_trace_freeze(t, &e);
    tr_source_close(src);
    if (rc != TR_OK) {
        tr_trace_free(t);
        return NULL;
    }
    return t;
}

/* ---- comparing ---- */

typedef struct rt_name {
    int kind;
    const char *p;
    size_t len;
} rt_name;

static int rt_name_cmp(const void *a, const void *b)
{
    const rt_name *x = a, *y = b;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->p, y->p, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The slice and instant names of T, sorted (tr_free'd by the caller); *N of them. */
static rt_name *rt_names(const tr_trace *t, size_t *n)
{
    tr_slices sl;
    tr_instants in;
    tr_trace_slices(t, &sl);
    tr_trace_instants(t, &in);
    *n = sl.n + in.n;
    rt_name *v = tr_malloc((*n + 1) * sizeof *v);
    if (!v) abort();
    for (size_t i = 0; i < sl.n; i++) {
        v[i].kind = TR_EV_SLICE;
        v[i].p = tr_str_get(t, sl.name[i], &v[i].len);
    }
    for (size_t i = 0; i < in.n; i++) {
        v[sl.n + i].kind = TR_EV_INSTANT;
        v[sl.n + i].p = tr_str_get(t, tr_instant_name(&in, i), &v[sl.n + i].len);
    }
    tr_qsort(v, *n, sizeof *v, rt_name_cmp);
    return v;
}

/* The samples with a frame: the Chrome writer leaves frameless ones out (Catapult rejects them). */
static size_t rt_framed_samples(const tr_trace *t)
{
    tr_samples sm;
    tr_trace_samples(t, &sm);
    size_t n = 0;
    for (size_t i = 0; i < sm.n; i++) n += sm.stack[i] != 0;
    return n;
}

static void rt_compare(const tr_reader *r, const tr_trace *a, const tr_trace *b)
{
    size_t ca[TR_EV_KIND_COUNT], cb[TR_EV_KIND_COUNT];
    tr_trace_event_counts(a, ca);
    tr_trace_event_counts(b, cb);
    ca[TR_EV_SAMPLE] = rt_framed_samples(a);
    for (int k = 0; k < TR_EV_KIND_COUNT; k++)
        if (ca[k] != cb[k]) {
            fprintf(stderr, "%s: table %d has %zu rows, %zu after the round trip\n", r->name, k,
                    ca[k], cb[k]);
            abort();
        }
    size_t na, nb;
    rt_name *va = rt_names(a, &na), *vb = rt_names(b, &nb);
    for (size_t i = 0; i < na; i++)
        if (rt_name_cmp(&va[i], &vb[i]) != 0) {
            fprintf(stderr, "%s: name '%.*s' became '%.*s'\n", r->name, (int)va[i].len, va[i].p,
                    (int)vb[i].len, vb[i].p);
            abort();
        }
    tr_free(va);
    tr_free(vb);
}

/* ---- the round trip ---- */

/* A file of this process's own, reused by every run. */
static const char *rt_path(void)
{
    static char path[64];
    if (!path[0]) snprintf(path, sizeof path, "/tmp/fuzz_roundtrip.%ld.json", (long)getpid());
    return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > FUZZ_MAX) return 0;
    const tr_reader *r = rt_readers[data[0] % (sizeof rt_readers / sizeof rt_readers[0])];
    tr_trace *a = rt_read(r, data + 1, size - 1);
    if (!a) return 0;
    tr_error e;
    if (tr_write_trace(&tr_writer_chrome, a, rt_path(), NULL, &e) != TR_OK) {
        fprintf(stderr, "%s: the Chrome writer failed: %s\n", r->name, e.msg);
        abort();
    }
    tr_trace *b = tr_trace_new();
    tr_diag diag = {NULL, NULL, 0, 0};
    tr_load_opts lo = {.readers = tr_readers, .from = "chrome", .read = {.diag = &diag}};
    if (!b || tr_load(b, rt_path(), &lo, &e) != TR_OK || tr_trace_freeze(b, &e) != TR_OK) {
        fprintf(stderr, "%s: the Chrome reader refused the Chrome writer's output: %s\n", r->name,
                b ? e.msg : "out of memory");
        abort();
    }
    rt_compare(r, a, b);
    tr_trace_free(a);
    tr_trace_free(b);
    unlink(rt_path());
    return 0;
}
