/*
** Unit tests of the analyses (lib/tr_analysis.h) on traces built by hand with
** the tr_trace.h API.  Every expected number is worked out in the comment
** above its check, from the events the test adds; the real samples are checked
** by the independent scripts in tests/stat/ (see tests/CMakeLists.txt).
*/
#include "tr_test.h"

#include "tr_analysis.h"
#include "tr_stree.h"
#include "tr_load.h"
#include "tr_readers.h"
#include "tr_writers.h"
#include "tr_mem.h"

#define MS 1000000LL

static tr_str S(tr_trace *t, const char *s)
{
    return tr_str_internz(t, s);
}

static void freeze(tr_trace *t)
{
    tr_error e = {0};
    CHECK(tr_trace_freeze(t, &e) == TR_OK);
}

/* A process of rank RANK (-1 none) with one thread track; returns the track. */
static uint32_t rank_track(tr_trace *t, uint32_t input, int pid, int rank, const char *thread)
{
    uint32_t p = tr_process_intern(t, input, pid);
    tr_process_at(t, p)->rank = rank;
    return tr_track_intern(t, p, TR_TRACK_THREAD, pid, S(t, thread));
}

TR_TEST(lanes_union_gaps_ops)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "x", "test");
    uint32_t a = rank_track(t, in, 1, -1, "a"), b = rank_track(t, in, 1, -1, "b");
    /* Lane a: [0,10) with a child [2,5); [8,14) overlaps the first; [20,30); a
    ** zero-length slice at 30.  Lane b: one slice [40,50), which sets the span to 0..50. */
    tr_slice_add(t, a, 0, 10 * MS, S(t, "op"), S(t, "c"), -1, 0);
    tr_slice_add(t, a, 2 * MS, 3 * MS, S(t, "child"), S(t, "c"), -1, 0);
    tr_slice_add(t, a, 8 * MS, 6 * MS, S(t, "op"), S(t, "c"), -1, 0);
    tr_slice_add(t, a, 20 * MS, 10 * MS, S(t, "other"), S(t, "c"), -1, 0);
    tr_slice_add(t, a, 30 * MS, 0, S(t, "op"), S(t, "c"), -1, 0);
    tr_slice_add(t, b, 40 * MS, 10 * MS, S(t, "op"), S(t, "c"), -1, 0);
    freeze(t);
    tr_stat_opts o;
    tr_stat_opts_init(&o);
    tr_lane_stats ls;
    tr_error e = {0};
    CHECK(tr_lane_stats_compute(t, &o, &ls, &e) == TR_OK);
    CHECK_INT(ls.n, 2);
    CHECK_INT(ls.first, 0);
    CHECK_INT(ls.last, 50 * MS);
    const tr_lane_stat *l = &ls.lanes[0];
    CHECK_INT(l->track, a);
    CHECK_INT(l->slices, 5);
    /* [8,14) starts inside [0,10) so it nests by time: ops are [0,10), [20,30), 30+0. */
    CHECK_INT(l->ops, 3);
    /* union: [0,14) + [20,30) = 24 ms; idle 50 - 24 = 26 ms */
    CHECK_INT(l->busy, 24 * MS);
    CHECK_INT(l->idle, 26 * MS);
    CHECK(l->utilization > 0.4799 && l->utilization < 0.4801);
    /* gaps: trailing [30,50) 20 ms, then [14,20) 6 ms; no leading gap */
    CHECK_INT(l->n_gaps, 2);
    CHECK_INT(l->gaps[0].ts, 30 * MS);
    CHECK_INT(l->gaps[0].dur, 20 * MS);
    CHECK_INT(l->gaps[1].ts, 14 * MS);
    CHECK_INT(l->gaps[1].dur, 6 * MS);
    /* names of the ops: op 2, other 1 */
    CHECK_INT(l->n_names, 2);
    CHECK_STR(tr_str_get(t, l->names[0].name, NULL), "op");
    CHECK_INT(l->names[0].count, 2);
    CHECK_STR(tr_str_get(t, l->names[1].name, NULL), "other");
    /* lane b: leading gap of 40 ms */
    CHECK_INT(ls.lanes[1].busy, 10 * MS);
    CHECK_INT(ls.lanes[1].gaps[0].ts, 0);
    CHECK_INT(ls.lanes[1].gaps[0].dur, 40 * MS);
    tr_lane_stats_fini(&ls);
    tr_trace_free(t);
}

TR_TEST(ops_percentiles_bytes_sort)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "x", "test");
    uint32_t a = rank_track(t, in, 1, -1, "a");
    /* "read": 300 slices of 1..300 us, 10 bytes each (enough for the radix sort);
    ** "sleep": 2 slices of 1 s, no bytes. */
    for (int i = 300; i >= 1; i--)
        tr_slice_add(t, a, (int64_t)i * 1000000, i * 1000, S(t, "read"), S(t, "io"), 10, 0);
    tr_slice_add(t, a, 1000 * MS, 1000 * MS, S(t, "sleep"), S(t, "wait"), -1, 0);
    tr_slice_add(t, a, 3000 * MS, 1000 * MS, S(t, "sleep"), S(t, "wait"), -1, 0);
    freeze(t);
    tr_op_stats os;
    tr_error e = {0};
    CHECK(tr_op_stats_compute(t, &os, &e) == TR_OK);
    CHECK_INT(os.n_names, 2);
    /* by total: sleep 2 s first, read 300*301/2 us = 45.15 ms */
    CHECK_STR(tr_str_get(t, os.by_name[0].key, NULL), "sleep");
    CHECK_INT(os.by_name[0].bytes, -1);
    const tr_op_stat *r = &os.by_name[1];
    CHECK_INT(r->count, 300);
    CHECK_INT(r->total, 45150000);
    /* nearest rank: p50 = 150th smallest = 150 us, p95 = 285th = 285 us */
    CHECK_INT(r->p50, 150000);
    CHECK_INT(r->p95, 285000);
    CHECK_INT(r->max, 300000);
    CHECK_INT(r->bytes, 3000);
    CHECK(r->mean > 150499.9 && r->mean < 150500.1);
    tr_op_stats_sort(t, os.by_name, os.n_names, TR_OP_SORT_COUNT);
    CHECK_STR(tr_str_get(t, os.by_name[0].key, NULL), "read");
    tr_op_stats_sort(t, os.by_name, os.n_names, TR_OP_SORT_MEAN);
    CHECK_STR(tr_str_get(t, os.by_name[0].key, NULL), "sleep");
    CHECK_INT(os.n_cats, 2);
    CHECK_STR(tr_str_get(t, os.by_cat[0].key, NULL), "wait");
    tr_op_stats_fini(&os);
    tr_trace_free(t);
}

TR_TEST(io_kinds_and_buckets)
{
    static const struct {
        const char *name;
        int kind;
    } cases[] = {
        {"read", TR_IO_READ},
        {"pread64", TR_IO_READ},
        {"readv", TR_IO_READ},
        {"fread", TR_IO_READ},
        {"MPI_File_read_at_all", TR_IO_READ},
        {"MPI_File_iread", TR_IO_READ},
        {"H5Dread", TR_IO_READ},
        {"write", TR_IO_WRITE},
        {"pwritev2", TR_IO_WRITE},
        {"MPI_File_write_ordered", TR_IO_WRITE},
        {"open64", TR_IO_OPEN},
        {"fopen", TR_IO_OPEN},
        {"MPI_File_open", TR_IO_OPEN},
        {"H5Fcreate", TR_IO_OPEN},
        {"__xstat64", TR_IO_STAT},
        {"fstat", TR_IO_STAT},
        {"lseek", TR_IO_SEEK},
        {"fseeko64", TR_IO_SEEK},
        {"MPI_File_seek_shared", TR_IO_SEEK},
        {"fsync", TR_IO_SYNC},
        {"MPI_File_sync", TR_IO_SYNC},
        {"close", TR_IO_META},
        {"unlink", TR_IO_META},
        {"MPI_File_close", TR_IO_META},
        {"MPI_Barrier", -1},
        {"MPI_Comm_rank", -1},
        {"readdirx", -1},
        {"H5Pset_fapl_mpio", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        if (tr_io_kind_of(cases[i].name) != cases[i].kind)
            fprintf(stderr, "  %s: got %d\n", cases[i].name, tr_io_kind_of(cases[i].name));
        CHECK(tr_io_kind_of(cases[i].name) == cases[i].kind);
    }
    CHECK_STR(tr_io_kind_name(TR_IO_META), "metadata");
    /* Darshan's buckets: upper bounds inclusive, K = 1024 */
    CHECK_INT(tr_io_bucket_of(0), 0);
    CHECK_INT(tr_io_bucket_of(100), 0);
    CHECK_INT(tr_io_bucket_of(101), 1);
    CHECK_INT(tr_io_bucket_of(1024), 1);
    CHECK_INT(tr_io_bucket_of(1025), 2);
    CHECK_INT(tr_io_bucket_of(4194304), 5);
    CHECK_INT(tr_io_bucket_of(1073741824), 8);
    CHECK_INT(tr_io_bucket_of(1073741825), 9);
    CHECK_STR(tr_io_bucket_name(9), "1G+");
}

/* An I/O slice with args path (and offset/whence/fh when >= 0 / non-NULL). */
static void io_call(tr_trace *t, uint32_t track, int64_t ts, int64_t dur, const char *fn,
                    const char *cat, const char *path, int64_t bytes, int64_t offset,
                    int64_t whence, const char *fh)
{
    tr_args_begin(t);
    if (path) tr_args_str(t, S(t, "path"), S(t, path));
    if (offset >= 0) tr_args_int(t, S(t, "offset"), offset);
    if (whence >= 0) tr_args_int(t, S(t, "whence"), whence);
    if (fh) tr_args_str(t, S(t, "fh"), S(t, fh));
    uint32_t args = tr_args_end(t);
    tr_slice_add(t, track, ts, dur, S(t, fn), S(t, cat), bytes, args);
}

TR_TEST(io_ranks_layers_files)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "x", "test");
    uint32_t r0 = rank_track(t, in, 10, 0, "t"), r1 = rank_track(t, in, 11, 1, "t");
    /* rank 0, POSIX on /a: open; write 100 at 0; write 100 at 100 (consecutive);
    ** lseek to 500; read 50 at 500 (first read: Darshan's last byte starts at 0,
    ** 500 > 0 so sequential, not consecutive); close. */
    io_call(t, r0, 0, 1 * MS, "open", "POSIX", "/a", -1, -1, -1, NULL);
    io_call(t, r0, 2 * MS, 1 * MS, "write", "POSIX", "/a", 100, -1, -1, NULL);
    io_call(t, r0, 4 * MS, 1 * MS, "write", "POSIX", "/a", 100, -1, -1, NULL);
    io_call(t, r0, 6 * MS, 1 * MS, "lseek", "POSIX", "/a", -1, 500, 0, NULL);
    io_call(t, r0, 8 * MS, 2 * MS, "read", "POSIX", "/a", 50, -1, -1, NULL);
    io_call(t, r0, 11 * MS, 1 * MS, "close", "POSIX", "/a", -1, -1, -1, NULL);
    /* both ranks: MPI-IO on /shared; the open maps fh "0-0" to its path; a
    ** write_at of 2000 bytes at rank*2000, with a nested pwrite of the same. */
    uint32_t tr[2] = {r0, r1};
    for (int r = 0; r < 2; r++) {
        io_call(t, tr[r], 20 * MS, 10 * MS, "MPI_File_open", "MPI-IO", "/shared", -1, -1, -1,
                "0-0");
        io_call(t, tr[r], 21 * MS, 1 * MS, "open", "POSIX", "/shared", -1, -1, -1, NULL);
        io_call(t, tr[r], 40 * MS, (r + 1) * 10 * MS, "MPI_File_write_at", "MPI-IO", NULL, 2000,
                r * 2000, -1, "0-0");
        io_call(t, tr[r], 41 * MS, 5 * MS, "pwrite", "POSIX", "/shared", 2000, r * 2000, -1, NULL);
        /* not I/O: ignored */
        tr_slice_add(t, tr[r], 70 * MS, 10 * MS, S(t, "MPI_Barrier"), S(t, "MPI"), -1, 0);
    }
    freeze(t);
    tr_io_stats io;
    tr_error e = {0};
    CHECK(tr_io_stats_compute(t, NULL, &io, &e) == TR_OK);
    CHECK_INT(io.n_ranks, 2);
    const tr_io_rank *a = &io.ranks[0], *b = &io.ranks[1];
    CHECK_INT(a->rank, 0);
    /* rank 0 outermost: open, 2 writes, lseek, read, close, MPI open, MPI write */
    CHECK_INT(a->c.ops[TR_IO_OPEN], 2);
    CHECK_INT(a->c.ops[TR_IO_WRITE], 3);
    CHECK_INT(a->c.ops[TR_IO_READ], 1);
    CHECK_INT(a->c.ops[TR_IO_SEEK], 1);
    CHECK_INT(a->c.ops[TR_IO_META], 1);
    CHECK_INT(a->c.bytes_written, 2200);
    CHECK_INT(a->c.bytes_read, 50);
    /* time: 1+1+1+1+2+1 + 10 + 10 = 27 ms; run 0 .. 80 ms */
    CHECK_INT(a->c.time, 27 * MS);
    CHECK_INT(a->c.read_time, 2 * MS);
    CHECK_INT(a->c.write_time, 12 * MS);
    CHECK_INT(a->run_time, 80 * MS);
    CHECK_INT(a->files, 2);
    /* rank 1: MPI open 10 + write 20 = 30 ms: the slowest */
    CHECK_INT(b->c.time, 30 * MS);
    CHECK_INT(b->c.bytes_written, 2000);
    CHECK_INT(io.slowest, 1);
    /* total 4250 bytes over 30 ms */
    CHECK_INT(io.total.bytes_written + io.total.bytes_read, 4250);
    CHECK(io.bandwidth > 141666.6 && io.bandwidth < 141666.7);
    /* sizes of outermost calls: writes 100, 100 (0-100), 2000, 2000 (1K-10K); read 50 */
    CHECK_INT(io.total.hist_write[0], 2);
    CHECK_INT(io.total.hist_write[2], 2);
    CHECK_INT(io.total.hist_read[0], 1);
    /* layers: MPI-IO 4000 written; POSIX every call: 200 + 2 * 2000 written */
    CHECK_INT(io.n_layers, 2);
    CHECK_STR(tr_str_get(t, io.layers[0].cat, NULL), "MPI-IO");
    CHECK_INT(io.layers[0].c.bytes_written, 4000);
    CHECK_INT(io.layers[1].c.bytes_written, 4200);
    CHECK_INT(io.layers[1].c.ops[TR_IO_OPEN], 3);
    /* files: /shared (4000 B, 2 ranks) first, then /a */
    CHECK_INT(io.n_files, 2);
    CHECK_INT(io.shared_files, 1);
    const tr_io_file *sh = &io.files[0], *fa = &io.files[1];
    CHECK_STR(tr_str_get(t, sh->path, NULL), "/shared");
    CHECK_INT(sh->ranks, 2);
    CHECK_INT(sh->writes, 2); /* the innermost calls: the pwrites */
    /* pwrite at 0 (not sequential), pwrite at 2000 on rank 1 (2000 > 0: sequential) */
    CHECK_INT(sh->accesses, 2);
    CHECK_INT(sh->sequential, 1);
    CHECK_INT(sh->consecutive, 0);
    CHECK_INT(fa->bytes_written, 200);
    CHECK_INT(fa->bytes_read, 50);
    CHECK_INT(fa->accesses, 3);
    CHECK_INT(fa->sequential, 2);
    CHECK_INT(fa->consecutive, 1);
    tr_io_stats_fini(&io);
    tr_trace_free(t);
}

static uint32_t frame(tr_trace *t, const char *fn, const char *file, int line)
{
    tr_frame f = {.function = S(t, fn), .file = S(t, file), .line = line};
    return tr_frame_intern(t, &f);
}

/* A stack from its frames, outermost first. */
static uint32_t stack_of(tr_trace *t, const uint32_t *frames, size_t n)
{
    uint32_t st = 0;
    for (size_t i = 0; i < n; i++) st = tr_stack_push(t, st, frames[i]);
    return st;
}

TR_TEST(hot_self_total_recursion)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "x", "test");
    uint32_t th = rank_track(t, in, 1, -1, "main"), th2 = rank_track(t, in, 1, -1, "worker");
    uint32_t fm = frame(t, "main", "m.py", 1), fc = frame(t, "compute", "m.py", 5),
             fl = frame(t, "load", "io.py", 9), fr = frame(t, "rec", "m.py", 20),
             fr2 = frame(t, "rec", "m.py", 21);
    uint32_t s1[] = {fm, fc}, s2[] = {fm, fl}, s3[] = {fm, fr, fr2};
    uint32_t a = stack_of(t, s1, 2), b = stack_of(t, s2, 2), c = stack_of(t, s3, 3);
    /* main thread: compute x3, load x1, rec->rec x2; worker: load x2, one empty sample */
    int64_t ts = 0;
    for (int i = 0; i < 3; i++) tr_sample_add(t, th, ts++, a, 0);
    tr_sample_add(t, th, ts++, b, 0);
    for (int i = 0; i < 2; i++) tr_sample_add(t, th, ts++, c, 0);
    tr_sample_add(t, th2, ts++, b, 0);
    tr_sample_add(t, th2, ts++, b, 0);
    tr_sample_add(t, th2, ts++, 0, 0);
    freeze(t);
    tr_stat_opts o;
    tr_stat_opts_init(&o);
    o.hot_per_thread = 1;
    tr_hot_stats h;
    tr_error e = {0};
    CHECK(tr_hot_stats_compute(t, &o, &h, &e) == TR_OK);
    /* 8 samples and 1 without frames (issue 19, item 12: as the flame graph and folded
    ** output count them); self: compute 3, load 3, rec 2 (lines 20 and 21 are one
    ** function); total: main 8, compute 3, load 3, rec 2 (once per sample despite recursion) */
    CHECK_INT(h.merged.samples, 8);
    CHECK_INT(h.merged.frameless, 1);
    CHECK_INT(h.merged.n, 4);
    CHECK_STR(tr_str_get(t, h.merged.fns[0].function, NULL), "compute");
    CHECK_INT(h.merged.fns[0].self, 3);
    CHECK_STR(tr_str_get(t, h.merged.fns[1].function, NULL), "load");
    CHECK_INT(h.merged.fns[1].self, 3);
    CHECK_STR(tr_str_get(t, h.merged.fns[2].function, NULL), "rec");
    CHECK_INT(h.merged.fns[2].self, 2);
    CHECK_INT(h.merged.fns[2].total, 2);
    CHECK_STR(tr_str_get(t, h.merged.fns[3].function, NULL), "main");
    CHECK_INT(h.merged.fns[3].self, 0);
    CHECK_INT(h.merged.fns[3].total, 8);
    tr_hot_table_sort(t, &h.merged, 1);
    CHECK_STR(tr_str_get(t, h.merged.fns[0].function, NULL), "main");
    CHECK_INT(h.n_threads, 2);
    CHECK_INT(h.threads[1].track, th2);
    CHECK_INT(h.threads[1].samples, 2);
    CHECK_INT(h.threads[1].frameless, 1);
    CHECK_INT(h.threads[1].n, 2);
    CHECK_INT(h.threads[1].fns[0].self, 2);
    tr_hot_stats_fini(&h);
    tr_trace_free(t);
}

TR_TEST(hangs_odd_rank_first)
{
    /* Eight ranks dumped twice; at the last dump seven wait in all_reduce at
    ** train.py:88 and rank 3 is in the data loader at data_loader.py:41. */
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "x", "test");
    uint32_t fm = frame(t, "main", "train.py", 120), fs = frame(t, "step", "train.py", 90),
             fa = frame(t, "all_reduce", "train.py", 88),
             fd = frame(t, "next", "data_loader.py", 41);
    uint32_t sa[] = {fm, fs, fa}, sd[] = {fm, fs, fd}, s0[] = {fm, fs};
    uint32_t st_a = stack_of(t, sa, 3), st_d = stack_of(t, sd, 3), st_0 = stack_of(t, s0, 2);
    for (int r = 0; r < 8; r++) {
        uint32_t tk = rank_track(t, in, 100 + r, r, "MainThread");
        tr_sample_add(t, tk, 1 * MS, st_0, 0);
        tr_sample_add(t, tk, 2 * MS, r == 3 ? st_d : st_a, 0);
    }
    freeze(t);
    tr_stree h;
    tr_error e = {0};
    CHECK(tr_stree_build(t, NULL, &h, &e) == TR_OK);
    CHECK_INT(h.n_members, 8);
    uint32_t *splits;
    CHECK_INT(tr_stree_splits(&h, &splits), 1);
    uint32_t major = h.nodes[splits[0]].first_child, odd = h.nodes[major].next_sibling;
    tr_free(splits);
    CHECK_INT(tr_stree_count(&h, major), 7);
    CHECK_INT(h.nodes[major].frame, fa);
    CHECK_INT(tr_stree_count(&h, odd), 1);
    CHECK_INT(h.nodes[odd].frame, fd);
    const tr_stree_member *m = &h.members[h.order[h.nodes[odd].lo]];
    CHECK_INT(m->ts, 2 * MS);
    CHECK_INT(m->rank, 3);
    CHECK_INT(m->samples, 2);
    CHECK_INT(m->changes, 1);
    const char *rule;
    CHECK_INT(h.members[tr_stree_behind(t, &h, &rule)].rank, 3);
    tr_stree_fini(&h);
    tr_trace_free(t);
}

TR_TEST(stragglers_one_slow_rank)
{
    /* Eight ranks, each with 4 steps "ProfilerStep#i" back to back.  Steps
    ** last 100 + r ms (r = 0..7) except rank 5's, which last 160 ms.
    ** Mean steps: 100,101,102,103,104,160,106,107 -> sorted 100..104,106,107,160:
    ** median (103 + 104) / 2 = 103.5 ms; deviations 3.5,2.5,1.5,0.5,0.5,56.5,2.5,3.5
    ** -> sorted 0.5,0.5,1.5,2.5,2.5,3.5,3.5,56.5: MAD 2.5 ms; k = 3 -> limit 7.5 ms:
    ** only rank 5 (+56.5 ms) is out.  Busy = 4 steps = 4 * mean. */
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "x", "test");
    for (int r = 0; r < 8; r++) {
        uint32_t tk = rank_track(t, in, 100 + r, r, "main");
        int64_t d = (r == 5 ? 160 : 100 + r) * MS, ts = 0;
        for (int s = 0; s < 4; s++, ts += d) {
            char name[32];
            snprintf(name, sizeof name, "ProfilerStep#%d", s);
            tr_slice_add(t, tk, ts, d, S(t, name), S(t, "cpu_op"), -1, 0);
            tr_slice_add(t, tk, ts + MS, d / 2, S(t, "forward"), S(t, "cpu_op"), -1, 0);
        }
    }
    freeze(t);
    tr_stat_opts o;
    tr_stat_opts_init(&o);
    tr_straggler_stats s;
    tr_error e = {0};
    CHECK(tr_straggler_stats_compute(t, &o, &s, &e) == TR_OK);
    CHECK_INT(s.n, 8);
    CHECK(s.has[TR_METRIC_STEP] && s.has[TR_METRIC_BUSY] && !s.has[TR_METRIC_IO]);
    CHECK_INT(s.median[TR_METRIC_STEP], 103500000);
    CHECK_INT(s.mad[TR_METRIC_STEP], 2500000);
    CHECK_INT(s.median[TR_METRIC_BUSY], 414 * MS);
    CHECK_INT(s.mad[TR_METRIC_BUSY], 10 * MS);
    for (int r = 0; r < 8; r++) {
        CHECK_INT(s.rows[r].rank, r);
        CHECK_INT(s.rows[r].steps, 4);
        CHECK_INT(s.rows[r].outlier[TR_METRIC_STEP], r == 5 ? 1 : 0);
        CHECK_INT(s.rows[r].outlier[TR_METRIC_BUSY], r == 5 ? 1 : 0);
    }
    CHECK_INT(s.rows[5].value[TR_METRIC_STEP], 160 * MS);
    CHECK_INT(s.rows[5].value[TR_METRIC_BUSY], 640 * MS);
    tr_straggler_stats_fini(&s);
    /* With a huge k nobody is out. */
    o.mad_k = 100;
    CHECK(tr_straggler_stats_compute(t, &o, &s, &e) == TR_OK);
    CHECK_INT(s.rows[5].outlier[TR_METRIC_STEP], 0);
    tr_straggler_stats_fini(&s);
    tr_trace_free(t);
}

TR_TEST(stragglers_need_two_ranks)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "x", "test");
    uint32_t tk = rank_track(t, in, 1, -1, "main");
    tr_slice_add(t, tk, 0, MS, S(t, "x"), S(t, "c"), -1, 0);
    freeze(t);
    tr_stat_opts o;
    tr_stat_opts_init(&o);
    tr_straggler_stats s;
    tr_error e = {0};
    CHECK(tr_straggler_stats_compute(t, &o, &s, &e) == TR_OK);
    CHECK_INT(s.n, 0);
    tr_straggler_stats_fini(&s);
    tr_trace_free(t);
}

TR_TEST(gpu_kernels_comm_overlap)
{
    /* Device 0 (pid 0): stream 7 runs compute kernels [0,10) and [20,30) ms and a
    ** memcpy [30,35); stream 13 runs ncclKernel_AllReduce [5,25) and a memset
    ** [40,41).  Comm 20 ms of 40 ms kernels; overlap with compute: [5,10) + [20,25)
    ** = 10 ms.  A CPU op (category cpu_op) on a thread is no GPU work. */
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "x", "test");
    uint32_t p = tr_process_intern(t, in, 0);
    uint32_t s7 = tr_track_intern(t, p, TR_TRACK_GPU, 7, S(t, "stream 7"));
    uint32_t s13 = tr_track_intern(t, p, TR_TRACK_GPU, 13, S(t, "stream 13"));
    uint32_t cpu = rank_track(t, in, 99, -1, "python");
    tr_slice_add(t, s7, 0, 10 * MS, S(t, "gemm"), S(t, "kernel"), -1, 0);
    tr_slice_add(t, s7, 20 * MS, 10 * MS, S(t, "relu"), S(t, "kernel"), -1, 0);
    tr_slice_add(t, s7, 30 * MS, 5 * MS, S(t, "Memcpy HtoD"), S(t, "gpu_memcpy"), -1, 0);
    tr_slice_add(t, s13, 5 * MS, 20 * MS, S(t, "ncclKernel_AllReduce_RING"), S(t, "kernel"), -1, 0);
    tr_slice_add(t, s13, 40 * MS, 1 * MS, S(t, "Memset (Device)"), S(t, ""), -1, 0);
    tr_slice_add(t, cpu, 0, 50 * MS, S(t, "aten::add"), S(t, "cpu_op"), -1, 0);
    freeze(t);
    tr_gpu_stats g;
    tr_error e = {0};
    CHECK(tr_gpu_stats_compute(t, &g, &e) == TR_OK);
    CHECK_INT(g.n_streams, 2);
    CHECK_INT(g.n_devices, 1);
    const tr_gpu_stream *a = &g.streams[0], *b = &g.streams[1];
    CHECK_INT(a->track, s7);
    CHECK_INT(a->count[TR_GPU_KERNEL], 2);
    CHECK_INT(a->time[TR_GPU_KERNEL], 20 * MS);
    CHECK_INT(a->time[TR_GPU_MEMCPY], 5 * MS);
    /* busy [0,10) + [20,35) = 25 ms of the 50 ms span */
    CHECK_INT(a->busy, 25 * MS);
    CHECK_INT(a->idle, 25 * MS);
    CHECK_INT(b->comm, 20 * MS);
    /* the memset has no category: classed by its name on a GPU track */
    CHECK_INT(b->time[TR_GPU_MEMSET], 1 * MS);
    const tr_gpu_device *d = &g.devices[0];
    CHECK_INT(d->time[TR_GPU_KERNEL], 40 * MS);
    CHECK_INT(d->comm, 20 * MS);
    CHECK_INT(d->comm_wall, 20 * MS);
    CHECK_INT(d->compute_wall, 20 * MS);
    CHECK_INT(d->overlap, 10 * MS);
    tr_gpu_stats_fini(&g);
    tr_trace_free(t);
}

TR_TEST(empty_trace)
{
    tr_trace *t = tr_trace_new();
    freeze(t);
    tr_stat_opts o;
    tr_stat_opts_init(&o);
    tr_error e = {0};
    tr_lane_stats ls;
    tr_op_stats os;
    tr_io_stats io;
    tr_hot_stats h;
    tr_stree hg;
    tr_gpu_stats g;
    int64_t a, b;
    CHECK(!tr_stat_span(t, &a, &b));
    CHECK(tr_lane_stats_compute(t, &o, &ls, &e) == TR_OK && ls.n == 0);
    CHECK(tr_op_stats_compute(t, &os, &e) == TR_OK && os.n_names == 0);
    CHECK(tr_io_stats_compute(t, NULL, &io, &e) == TR_OK && io.n_ranks == 0);
    CHECK(tr_hot_stats_compute(t, &o, &h, &e) == TR_OK && h.merged.samples == 0);
    CHECK(tr_stree_build(t, NULL, &hg, &e) == TR_OK && hg.n_members == 0);
    CHECK(tr_gpu_stats_compute(t, &g, &e) == TR_OK && g.n_streams == 0);
    tr_lane_stats_fini(&ls);
    tr_op_stats_fini(&os);
    tr_io_stats_fini(&io);
    tr_hot_stats_fini(&h);
    tr_stree_fini(&hg);
    tr_gpu_stats_fini(&g);
    tr_trace_free(t);
}

/* Every allocation failing in turn: each section returns TR_FATAL with TR_E_NOMEM, no leak. */
TR_TEST(out_of_memory)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "x", "test");
    uint32_t a = rank_track(t, in, 1, 0, "a"), b = rank_track(t, in, 2, 1, "b");
    uint32_t fm = frame(t, "main", "m.py", 1);
    uint32_t st = tr_stack_push(t, 0, fm);
    for (int i = 0; i < 400; i++) {
        io_call(t, i % 2 ? a : b, i * MS, MS / 2, i % 3 ? "write" : "read", "POSIX", "/f", 10, -1,
                -1, NULL);
        tr_sample_add(t, i % 2 ? a : b, i * MS, st, 0);
    }
    freeze(t);
    tr_stat_opts o;
    tr_stat_opts_init(&o);
    o.hot_per_thread = 1;
    for (uint64_t n = 1; n < 200; n++) {
        tr_error e = {0};
        tr_lane_stats ls;
        tr_op_stats os;
        tr_io_stats io;
        tr_hot_stats h;
        tr_stree hg;
        tr_straggler_stats s;
        tr_gpu_stats g;
        int rc[7];
        tr_alloc_fail_after(n);
        rc[0] = tr_lane_stats_compute(t, &o, &ls, &e);
        tr_alloc_fail_after(n);
        rc[1] = tr_op_stats_compute(t, &os, &e);
        tr_alloc_fail_after(n);
        rc[2] = tr_io_stats_compute(t, NULL, &io, &e);
        tr_alloc_fail_after(n);
        rc[3] = tr_hot_stats_compute(t, &o, &h, &e);
        tr_alloc_fail_after(n);
        rc[4] = tr_stree_build(t, NULL, &hg, &e);
        tr_alloc_fail_after(n);
        rc[5] = tr_straggler_stats_compute(t, &o, &s, &e);
        tr_alloc_fail_after(n);
        rc[6] = tr_gpu_stats_compute(t, &g, &e);
        tr_alloc_fail_after(0);
        for (int k = 0; k < 7; k++) {
            CHECK(rc[k] == TR_OK || rc[k] == TR_FATAL);
            if (rc[k] == TR_FATAL) CHECK_INT(e.code, TR_E_NOMEM);
        }
        tr_lane_stats_fini(&ls);
        tr_op_stats_fini(&os);
        tr_io_stats_fini(&io);
        tr_hot_stats_fini(&h);
        tr_stree_fini(&hg);
        tr_straggler_stats_fini(&s);
        tr_gpu_stats_fini(&g);
    }
    tr_trace_free(t);
}
