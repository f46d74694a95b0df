/*
** test_hangs.c: hang diagnosis on real samples (testdata/hang/SOURCES.md):
** each test names the odd member out.
*/
#include "tr_hangs.h"
#include "tr_load.h"
#include "tr_readers.h"
#include "tr_stree.h"
#include "tr_test.h"

#include <stdio.h>
#include <string.h>

static tr_trace *load(const char *a, const char *b)
{
    char pa[1024], pb[1024];
    snprintf(pa, sizeof pa, "%s/%s", tr_test_srcdir(), a);
    snprintf(pb, sizeof pb, "%s/%s", tr_test_srcdir(), b ? b : "");
    const char *paths[2] = {pa, pb};
    tr_trace *t = tr_trace_new();
    tr_error e = {0};
    tr_diag d = {0};
    tr_load_opts o = {.readers = tr_readers, .read = {.diag = &d}, .threads = 1};
    int rc = tr_load_many(t, paths, b ? 2 : 1, &o, &e);
    if (rc == TR_OK) rc = tr_trace_freeze(t, &e);
    if (rc != TR_OK) fprintf(stderr, "  %s: %s\n", a, e.msg);
    CHECK_INT(rc, TR_OK);
    return t;
}

static const char *lane(const tr_trace *t, uint32_t track)
{
    return tr_str_get(t, tr_track_get(t, track)->name, NULL);
}

/* Cut after WORKER_SEND WorkerGetData #40: the client's GetData #38 and worker_1's round trip. */
TR_TEST(gt_cut_in_a_round_trip)
{
    tr_trace *t = load("testdata/hang/gt-cut-round-trip.log", NULL);
    tr_hangs h;
    CHECK_INT(tr_hangs_compute(t, &h, NULL), TR_OK);
    CHECK_INT(h.n_requests, 1);
    CHECK_STR(lane(t, h.requests[0].track), "client 006b8b4569");
    CHECK_INT(h.requests[0].first_seq, 38);
    CHECK_STR(tr_str_get(t, h.requests[0].what, NULL), "GetData");
    CHECK_INT(h.n_round_trips, 1);
    CHECK_STR(lane(t, h.round_trips[0].track), "worker worker_1");
    CHECK_INT(h.round_trips[0].first_seq, 40);
    CHECK_INT(h.round_trips[0].first_ts, 5677000000);
    tr_buf b;
    tr_buf_init(&b, 0);
    CHECK_INT(tr_hangs_text(t, &h, 10, 1, &b), TR_OK);
    CHECK(strstr(b.p,
                 "1 round trip  GT dispatcher / worker worker_1; the oldest: WorkerGetData #40") !=
          NULL);
    tr_buf_reset(&b);
    CHECK_INT(tr_hangs_json(t, &h, &b), TR_OK);
    CHECK(strstr(b.p, "\"round_trips_unreturned\":[{\"track\":") != NULL);
    tr_buf_fini(&b);
    tr_hangs_fini(&h);
    tr_trace_free(t);
}

/* The whole log: every request answered, every round trip back. */
TR_TEST(gt_whole_log_has_no_waits)
{
    tr_trace *t = load("testdata/gt/gt-server-2workers.log", NULL);
    tr_hangs h;
    CHECK_INT(tr_hangs_compute(t, &h, NULL), TR_OK);
    CHECK_INT(h.n_requests, 0);
    CHECK_INT(h.n_round_trips, 0);
    CHECK(h.n_lanes > 0);
    tr_hangs_fini(&h);
    tr_trace_free(t);
}

/* Rank 1 made one nccl:all_reduce fewer than rank 0. */
TR_TEST(kineto_one_allreduce_fewer)
{
    tr_trace *t = load("testdata/chrome/hta/trace_filter/sampled_rank-0.json.gz",
                       "testdata/hang/kineto-rank1-one-allreduce-fewer.json.gz");
    tr_hangs h;
    CHECK_INT(tr_hangs_compute(t, &h, NULL), TR_OK);
    CHECK_INT(h.n_ranks, 2);
    CHECK(h.n_collectives >= 2);
    const tr_hang_collective *c = &h.collectives[0]; /* the odd ones first */
    CHECK_STR(c->name, "nccl:all_reduce");
    CHECK_INT(c->odd, 1);
    CHECK_INT(c->mode, 4);
    CHECK_INT(h.ranks[1].rank, 1);
    CHECK_INT(c->counts[1], 3);
    CHECK_INT(h.collectives[1].odd, 0);
    CHECK(h.n_streams > 0);
    tr_hangs_fini(&h);
    /* The untouched pair agrees everywhere. */
    tr_trace_free(t);
    t = load("testdata/chrome/hta/trace_filter/sampled_rank-0.json.gz",
             "testdata/chrome/hta/trace_filter/sampled_rank-1.json.gz");
    CHECK_INT(tr_hangs_compute(t, &h, NULL), TR_OK);
    for (size_t i = 0; i < h.n_collectives; i++) CHECK_INT(h.collectives[i].odd, 0);
    tr_hangs_fini(&h);
    tr_trace_free(t);
}

/* MPI collectives of a real Recorder trace: four ranks, equal counts, each rank's last call. */
TR_TEST(recorder_ranks)
{
    tr_trace *t = load("testdata/recorder/iomix-4r", NULL);
    tr_hangs h;
    CHECK_INT(tr_hangs_compute(t, &h, NULL), TR_OK);
    CHECK_INT(h.n_ranks, 4);
    int barrier = 0;
    for (size_t i = 0; i < h.n_collectives; i++) {
        CHECK_INT(h.collectives[i].odd, 0);
        if (strcmp(h.collectives[i].name, "MPI_Barrier") == 0) barrier = (int)h.collectives[i].mode;
    }
    CHECK_INT(barrier, 1);
    for (size_t i = 0; i < h.n_ranks; i++) {
        CHECK(h.ranks[i].last_call != 0);
        CHECK_STR(h.ranks[i].last_collective, "MPI_Barrier");
    }
    tr_hangs_fini(&h);
    tr_trace_free(t);
}

TR_TEST(collective_names)
{
    char buf[64];
    CHECK_STR(tr_hangs_collective("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)", buf,
                                  sizeof buf),
              "nccl AllReduce");
    CHECK_STR(tr_hangs_collective("ncclDevKernel_AllGather_RING_LL(x)", buf, sizeof buf),
              "nccl AllGather");
    CHECK_STR(tr_hangs_collective("MPI_File_write_at_all", buf, sizeof buf),
              "MPI_File_write_at_all");
    CHECK_STR(tr_hangs_collective("MPI_Allreduce", buf, sizeof buf), "MPI_Allreduce");
    CHECK(tr_hangs_collective("MPI_Send", buf, sizeof buf) == NULL);
    CHECK(tr_hangs_collective("MPI_File_write_at", buf, sizeof buf) == NULL);
    CHECK(tr_hangs_collective("aten::add", buf, sizeof buf) == NULL);
    CHECK_STR(tr_hangs_collective("record_param_comms", buf, sizeof buf), "record_param_comms");
}

/* The real multi-process sglang dumps: four processes, the scheduler's threads apart. */
TR_TEST(sglang_stack_tree)
{
    tr_trace *t = load("testdata/pyspy/11_sglang_multiprocess_xargs_concat.txt", NULL);
    tr_stree s;
    CHECK_INT(tr_stree_build(t, NULL, &s, NULL), TR_OK);
    CHECK_INT(s.n_members, 14);
    tr_buf b;
    tr_buf_init(&b, 0);
    CHECK_INT(tr_stree_members_text(t, &s, 0, (uint32_t)s.n_members, &b), TR_OK);
    CHECK_STR(b.p, "pid 1, 165, 166, 575 (14 threads)");
    tr_buf_reset(&b);
    CHECK_INT(tr_stree_text(t, &s, &b), TR_OK);
    /* Three spawned processes part at multiprocessing's run: each its own way. */
    CHECK(strstr(b.p, "at run (multiprocessing/process.py:108) (depth 5, 3 members):") != NULL);
    CHECK(strstr(b.p, "pid 575\n            -> run_scheduler_process (scheduler.py:2523)") != NULL);
    tr_buf_fini(&b);
    tr_stree_fini(&s);
    tr_stree_opts o = {.main_thread = 1};
    CHECK_INT(tr_stree_build(t, &o, &s, NULL), TR_OK);
    CHECK_INT(s.n_members, 4);
    tr_stree_fini(&s);
    tr_trace_free(t);
}

/* Two nodes, the same pid, stacks one line number apart (engine core.py:345 vs :305). */
TR_TEST(two_nodes_one_line_apart)
{
    tr_trace *t = load("testdata/hang/vllm-two-nodes-line.txt", NULL);
    tr_stree s;
    CHECK_INT(tr_stree_build(t, NULL, &s, NULL), TR_OK);
    CHECK_INT(s.n_members, 2); /* node-a and node-b: two processes though both are pid 2403 */
    uint32_t *splits;
    CHECK_INT(tr_stree_splits(&s, &splits), 1);
    const tr_frame *f = tr_frame_get(t, s.nodes[splits[0]].frame);
    CHECK_STR(tr_str_get(t, f->function, NULL), "sync_wrapper");
    tr_free(splits);
    const char *rule;
    uint32_t m = tr_stree_behind(t, &s, &rule);
    CHECK_INT(s.members[m].rank, 1); /* at line 305, before 345 */
    CHECK_INT(s.members[m].pid, 2403);
    tr_stree_fini(&s);
    tr_stree_opts o = {.frames = TR_STREE_BY_FILE}; /* --ignore-lines: one path */
    CHECK_INT(tr_stree_build(t, &o, &s, NULL), TR_OK);
    CHECK_INT(tr_stree_splits(&s, &splits), 0);
    tr_free(splits);
    tr_stree_fini(&s);
    tr_trace_free(t);
}

/* Three dumps: rank 0's innermost line moves, rank 1 never does. */
TR_TEST(progress_names_the_stuck_rank)
{
    tr_trace *t = load("testdata/hang/vllm-progress.txt", NULL);
    tr_stree s;
    CHECK_INT(tr_stree_build(t, NULL, &s, NULL), TR_OK);
    CHECK_INT(s.n_members, 2);
    const char *rule;
    uint32_t m = tr_stree_behind(t, &s, &rule);
    CHECK_INT(s.members[m].rank, 1);
    CHECK_INT(s.members[m].samples, 3);
    CHECK_INT(s.members[m].changes, 0);
    CHECK(strstr(rule, "did not change") != NULL);
    tr_stree_fini(&s);
    tr_trace_free(t);
}
