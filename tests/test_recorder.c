/*
** test_recorder.c: the Recorder reader and writer on the real samples of
** testdata/recorder (see its SOURCES.md) and on the crafted bad traces of
** testdata/recorder/bad (made by make_bad.py there).  Record-for-record
** agreement with recorder2text is the golden test (tests/golden/recorder).
*/
#include "tr_load.h"
#include "tr_readers.h"
#include "tr_writers.h"
#include "tr_test.h"
#include "tr_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const samples[] = {
    "iomix-1r",      "iomix-2r",          "iomix-4r",    "iomix-4r-ipc",
    "iomix-2r-opts", "v24-iomix-2r",      "v2-iomix-2r", "g3-iomix-1r",
    "g3-iomix-2r",   "g3-iomix-2r-local", "g3-iomix-4r",
};
#define N_SAMPLES (sizeof samples / sizeof *samples)

static void sample_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/testdata/recorder/%s", tr_test_srcdir(), name);
}

static tr_trace *load(const char *path, tr_error *e, int *rc)
{
    tr_trace *t = tr_trace_new();
    *rc = tr_test_load(t, path, NULL, e);
    return t;
}

static uint32_t rank_of_slice(const tr_trace *t, const tr_slices *sl, size_t i)
{
    const tr_track *tk = tr_track_get(t, sl->track[i]);
    return (uint32_t)tr_process_get(t, tk->process)->rank;
}

/* The level column of a recorder2text line: tstart tend name LEVEL layer ( ... ). */
static int ref_level(const char *line)
{
    const char *p = line;
    for (int field = 0; field < 3 && p; field++) {
        p = strchr(p, ' ');
        if (p) p++;
    }
    return p ? atoi(p) : -1;
}

/* A record's level becomes its depth: MPI-IO calls enclose the POSIX calls they make. */
TR_TEST(depth_is_level)
{
    for (size_t s = 0; s < N_SAMPLES; s++) {
        char path[1024];
        sample_path(path, sizeof path, samples[s]);
        tr_error e;
        int rc;
        tr_trace *t = load(path, &e, &rc);
        CHECK_INT(rc, TR_OK);
        tr_slices sl;
        tr_trace_slices(t, &sl);
        for (uint32_t r = 0; r < tr_process_count(t); r++) {
            char ref[1100];
            snprintf(ref, sizeof ref, "%s/_text_corrected/%u.txt", path, r);
            FILE *f = fopen(ref, "r");
            if (!f) {
                snprintf(ref, sizeof ref, "%s/_text/%u.txt", path, r);
                f = fopen(ref, "r");
            }
            CHECK(f != NULL);
            if (!f) continue;
            char line[4096];
            size_t i = 0;
            while (fgets(line, sizeof line, f)) {
                while (i < sl.n && rank_of_slice(t, &sl, i) != r) i++;
                CHECK(i < sl.n);
                if (i >= sl.n) break;
                if (sl.depth[i] != ref_level(line))
                    fprintf(stderr, "  %s rank %u: %s", samples[s], r, line);
                CHECK_INT(sl.depth[i], ref_level(line));
                i++;
            }
            fclose(f);
        }
        tr_trace_free(t);
    }
}

static int find_arg(const tr_trace *t, uint32_t set, const char *key, tr_arg *a)
{
    return tr_args_find(t, set, key, a);
}

TR_TEST(model_iomix_1r)
{
    char path[1024];
    sample_path(path, sizeof path, "iomix-1r");
    tr_error e;
    int rc;
    tr_trace *t = load(path, &e, &rc);
    CHECK_INT(rc, TR_OK);
    CHECK_INT(tr_process_count(t), 1);
    CHECK_INT(tr_process_get(t, 0)->rank, 0);
    const tr_input_info *in = tr_input_get(t, 0);
    CHECK_STR(tr_str_get(t, in->format, NULL), "recorder");
    /* start_ts 0x41dac0cb52f6d534 (recorder.md §6) */
    CHECK(in->origin_unix_ns > 1700000000000000000LL);
    tr_arg a;
    CHECK(find_arg(t, in->meta, "generation", &a));
    CHECK_STR(tr_str_get(t, a.v.s, NULL), "2.4/2.5");
    tr_slices sl;
    tr_trace_slices(t, &sl);
    CHECK_INT(sl.n, 33);
    int writes = 0, fwrites = 0, mpi = 0;
    for (size_t i = 0; i < sl.n; i++) {
        const char *name = tr_str_get(t, sl.name[i], NULL);
        const char *cat = tr_str_get(t, tr_slice_cat(&sl, i), NULL);
        if (strcmp(name, "write") == 0) {
            writes++;
            CHECK_STR(cat, "POSIX");
            CHECK_INT(tr_slice_bytes(&sl, i), 100);
            CHECK(find_arg(t, sl.args[i], "path", &a));
            CHECK_STR(tr_str_get(t, a.v.s, NULL), "/tmp/tracecat/iomix-1r/posix_rank0.dat");
            CHECK(find_arg(t, sl.args[i], "count", &a));
            CHECK_INT(a.v.i, 100);
        }
        if (strcmp(name, "fwrite") == 0) fwrites += (int)tr_slice_bytes(&sl, i);
        if (strcmp(name, "MPI_File_write_at_all") == 0) {
            mpi++;
            CHECK_STR(cat, "MPI-IO");
            CHECK_INT(tr_slice_bytes(&sl, i), 128);
            CHECK(find_arg(t, sl.args[i], "fh", &a));
            CHECK_STR(tr_str_get(t, a.v.s, NULL), "0-0");
        }
        if (strcmp(name, "MPI_Barrier") == 0) CHECK_STR(cat, "MPI");
        if (strcmp(name, "open") == 0 && sl.depth[i] == 0) {
            CHECK(find_arg(t, sl.args[i], "flags", &a));
            CHECK_INT(a.v.i, 578);
            CHECK(find_arg(t, sl.args[i], "mode", &a));
            CHECK_INT(a.v.i, 420);
        }
    }
    CHECK_INT(writes, 4);
    CHECK_INT(fwrites, 15 + 32);
    CHECK_INT(mpi, 2);
    /* recorder.md §6 row 2: open starts at 0.0006240 and ends at 0.0007339. */
    CHECK_INT(sl.ts[2], 624000);
    CHECK_INT(tr_slice_dur(&sl, 2), 733900 - 624000);
    tr_trace_free(t);
}

/* Thread ids (RECORDER_LOG_TID=1): one track per thread, named after it. */
TR_TEST(thread_tracks)
{
    char path[1024];
    sample_path(path, sizeof path, "iomix-2r-opts");
    tr_error e;
    int rc;
    tr_trace *t = load(path, &e, &rc);
    CHECK_INT(rc, TR_OK);
    CHECK_INT(tr_track_count(t), 2);
    for (uint32_t i = 0; i < tr_track_count(t); i++) {
        const tr_track *tk = tr_track_get(t, i);
        CHECK(tk->tid > 0);
        CHECK(strncmp(tr_str_get(t, tk->name, NULL), "thread ", 7) == 0);
    }
    tr_trace_free(t);
}

static const struct bad_case {
    const char *dir, *file, *msg;
    uint64_t offset; /* byte + 1, 0 = not checked */
} bad_cases[] = {
    {"missing-rank", "missing-rank/1.ts", "missing (recorder.mt claims 2 ranks)", 0},
    {"many-ranks", "many-ranks/2.cst", "claims 100000 ranks", 0},
    {"g3-many-ranks", "g3-many-ranks/recorder.ts", "cannot hold the size table of 100000", 0},
    {"cst-cut", "cst-cut/0.cst", "claims 26 entries", 1},
    {"ts-cut", "ts-cut/0.cfg", "more records than the 12 timestamp pairs", 0},
    {"cfg-self", "cfg-self/0.cfg", "rule -1 refers to itself", 21},
    {"cfg-cycle", "cfg-cycle/0.cfg", "cycle", 0},
    {"cfg-missing-rule", "cfg-missing-rule/0.cfg", "missing rule -7", 21},
    {"cfg-count", "cfg-count/0.cfg", "rule claims 2147483647 symbols", 5},
    {"cfg-terminal", "cfg-terminal/0.cfg", "terminal 999 out of range", 21},
    {"func-range", "func-range/0.cst", "function id 250 out of range", 5},
    {"zlib-bad", "zlib-bad/recorder.cst", "does not inflate", 1},
    {"zlib-huge", "zlib-huge/recorder.cst", "raw bytes from 442 compressed", 1},
};

static int ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

/* Damaged traces: a clear error naming the file (and byte), never a crash. */
TR_TEST(bad_input)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof *bad_cases; i++) {
        const struct bad_case *c = &bad_cases[i];
        char path[1024];
        snprintf(path, sizeof path, "%s/testdata/recorder/bad/%s", tr_test_srcdir(), c->dir);
        tr_error e;
        int rc;
        tr_trace *t = load(path, &e, &rc);
        CHECK(rc < 0);
        CHECK_INT(e.code, TR_E_FORMAT);
        if (!ends_with(e.file, c->file) || !strstr(e.msg, c->msg))
            fprintf(stderr, "  %s: got %s: %s\n", c->dir, e.file, e.msg);
        CHECK(ends_with(e.file, c->file));
        CHECK(strstr(e.msg, c->msg) != NULL);
        if (c->offset) CHECK_INT(e.offset, c->offset);
        tr_trace_free(t);
    }
}

/* Slices of two frozen traces are the same records. */
static void check_same(const tr_trace *a, const tr_trace *b)
{
    tr_slices x, y;
    tr_trace_slices(a, &x);
    tr_trace_slices(b, &y);
    CHECK_INT(x.n, y.n);
    tr_buf ja, jb;
    tr_buf_init(&ja, 0);
    tr_buf_init(&jb, 0);
    for (size_t i = 0; i < x.n && i < y.n; i++) {
        CHECK_INT(x.ts[i], y.ts[i]);
        CHECK_INT(tr_slice_dur(&x, i), tr_slice_dur(&y, i));
        CHECK_INT(tr_slice_bytes(&x, i), tr_slice_bytes(&y, i));
        CHECK_INT(x.depth[i], y.depth[i]);
        CHECK_STR(tr_str_get(a, x.name[i], NULL), tr_str_get(b, y.name[i], NULL));
        CHECK_STR(tr_str_get(a, tr_slice_cat(&x, i), NULL),
                  tr_str_get(b, tr_slice_cat(&y, i), NULL));
        CHECK_INT(rank_of_slice(a, &x, i), rank_of_slice(b, &y, i));
        tr_buf_reset(&ja);
        tr_buf_reset(&jb);
        tr_buf_add_json_args(&ja, a, x.args[i]);
        tr_buf_add_json_args(&jb, b, y.args[i]);
        CHECK_STR(ja.p, jb.p);
    }
    tr_buf_fini(&ja);
    tr_buf_fini(&jb);
}

/* Writes T with the Recorder writer as directory OUT (the trailing '/' asks for one). */
static int write_dir(const tr_trace *t, const char *out, tr_error *e)
{
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/", out);
    return tr_write_trace(tr_writer_find("recorder"), t, dir, NULL, e);
}

/* Writer round trip: every sample, written as 2.5.0 and read back, is the same. */
TR_TEST(writer_round_trip)
{
    for (size_t s = 0; s < N_SAMPLES; s++) {
        char path[1024], out[1024];
        sample_path(path, sizeof path, samples[s]);
        snprintf(out, sizeof out, "%s/rt-%s", tr_test_tmpdir(), samples[s]);
        tr_error e;
        int rc;
        tr_trace *a = load(path, &e, &rc);
        CHECK_INT(rc, TR_OK);
        CHECK_INT(write_dir(a, out, &e), TR_OK);
        tr_trace *b = load(out, &e, &rc);
        CHECK_INT(rc, TR_OK);
        check_same(a, b);
        tr_arg g;
        CHECK(tr_args_find(b, tr_input_get(b, 0)->meta, "version", &g));
        CHECK_STR(tr_str_get(b, g.v.s, NULL), "2.5.0");
        tr_trace_free(a);
        tr_trace_free(b);
    }
}

/* Names Recorder does not know become user functions and keep their name. */
TR_TEST(writer_user_functions)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "made", "test");
    uint32_t p = tr_process_intern(t, in, 7);
    tr_process_at(t, p)->rank = 0;
    uint32_t tk = tr_track_intern(t, p, TR_TRACK_THREAD, 42, tr_str_internz(t, "main"));
    tr_slice_add(t, tk, 1000, 5000, tr_str_internz(t, "my solver step"), 0, -1, 0);
    tr_args_begin(t);
    tr_args_str(t, tr_str_internz(t, "path"), tr_str_internz(t, "/x y"));
    tr_args_str(t, tr_str_internz(t, "buf"), tr_str_internz(t, "%p"));
    tr_args_int(t, tr_str_internz(t, "count"), 9);
    uint32_t args = tr_args_end(t);
    tr_slice_add(t, tk, 2000, 100, tr_str_internz(t, "write"), 0, 9, args);
    /* A gap longer than 2^32 ticks of 100 ns forces a coarser resolution. */
    tr_slice_add(t, tk, 600000000000LL, 1000000, tr_str_internz(t, "write"), 0, 9, args);
    tr_error e;
    CHECK_INT(tr_trace_freeze(t, &e), TR_OK);
    char out[1024];
    snprintf(out, sizeof out, "%s/user-fn", tr_test_tmpdir());
    CHECK_INT(write_dir(t, out, &e), TR_OK);
    int rc;
    tr_trace *b = load(out, &e, &rc);
    CHECK_INT(rc, TR_OK);
    tr_slices sl;
    tr_trace_slices(b, &sl);
    CHECK_INT(sl.n, 3);
    CHECK_STR(tr_str_get(b, sl.name[0], NULL), "my_solver_step");
    CHECK_STR(tr_str_get(b, tr_slice_cat(&sl, 0), NULL), "USER");
    CHECK_STR(tr_str_get(b, sl.name[1], NULL), "write");
    CHECK_INT(tr_slice_bytes(&sl, 1), 9);
    CHECK_INT(sl.ts[2], 600000000000LL);
    CHECK_INT(tr_slice_dur(&sl, 2), 1000000);
    tr_arg a;
    CHECK(tr_args_find(b, sl.args[1], "path", &a));
    CHECK_STR(tr_str_get(b, a.v.s, NULL), "/x_y");
    CHECK_INT(tr_track_get(b, sl.track[0])->tid, 42);
    tr_trace_free(t);
    tr_trace_free(b);
}

/* One thread or two: the same trace. */
TR_TEST(threads_agree)
{
    static const char *const multi[] = {"iomix-4r", "iomix-4r-ipc", "g3-iomix-4r"};
    for (size_t s = 0; s < 3; s++) {
        char path[1024];
        sample_path(path, sizeof path, multi[s]);
        tr_trace *tt[2];
        for (int k = 0; k < 2; k++) {
            tr_error e = {0};
            tt[k] = tr_trace_new();
            tr_load_opts o = {.readers = tr_readers, .threads = k + 1};
            CHECK_INT(tr_load(tt[k], path, &o, &e), TR_OK);
            tr_slices sl;
            tr_trace_slices(tt[k], &sl);
            CHECK_INT(sl.n, 114);
            CHECK_INT(tr_trace_freeze(tt[k], &e), TR_OK);
        }
        check_same(tt[0], tt[1]);
        tr_trace_free(tt[0]);
        tr_trace_free(tt[1]);
    }
}

/* The recorder.mt path and a tarball read the same trace as the directory. */
TR_TEST(entry_points)
{
    char dir[1024], mt[1100], tgz[1024];
    sample_path(dir, sizeof dir, "g3-iomix-2r");
    snprintf(mt, sizeof mt, "%s/recorder.mt", dir);
    sample_path(tgz, sizeof tgz, "g3-iomix-2r.tgz");
    tr_error e;
    int rc;
    tr_trace *a = load(dir, &e, &rc);
    CHECK_INT(rc, TR_OK);
    tr_trace *b = load(mt, &e, &rc);
    CHECK_INT(rc, TR_OK);
    tr_trace *c = load(tgz, &e, &rc);
    CHECK_INT(rc, TR_OK);
    check_same(a, b);
    check_same(a, c);
    CHECK_STR(tr_str_get(c, tr_input_get(c, 0)->path, NULL), tgz);
    tr_trace_free(a);
    tr_trace_free(b);
    tr_trace_free(c);
}

/* Out of memory at every allocation: a clean TR_E_NOMEM, never a crash. */
TR_TEST(nomem)
{
    char path[1024];
    sample_path(path, sizeof path, "g3-iomix-2r");
    for (uint64_t n = 1; n < 400; n++) {
        tr_trace *t = tr_trace_new();
        if (!t) continue;
        tr_error e;
        memset(&e, 0, sizeof e);
        tr_load_opts o;
        memset(&o, 0, sizeof o);
        o.readers = tr_readers;
        tr_alloc_fail_after(n);
        int rc = tr_load(t, path, &o, &e);
        tr_alloc_fail_after(0);
        if (rc < 0) CHECK(e.code == TR_E_NOMEM);
        tr_trace_free(t);
    }
}
