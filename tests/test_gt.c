/*
** Unit tests of the GT reader on the real samples in testdata/gt/ (see its
** SOURCES.md) and on small in-memory logs for the error paths.
*/
#include "tr_test.h"

#include "tr_load.h"
#include "tr_readers.h"
#include "tr_writers.h"
#include "tr_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const tr_reader tr_reader_gt;

/* ---- helpers ---- */

/* The path of testdata/gt/REL. */
static const char *path_of(const char *rel)
{
    return tr_test_join(tr_test_src("testdata/gt"), rel);
}

/* Counts the lines that look like records, independently of the reader. */
static long count_records(const char *rel)
{
    FILE *f = fopen(path_of(rel), "rb");
    if (!f) return -1;
    char *line = NULL;
    size_t cap = 0;
    long n = 0;
    while (getline(&line, &cap, f) >= 0) {
        const char *p = line;
        while (*p == ' ' || *p == '\t') p++;
        if (strncmp(p, "[TAPE ", 6) == 0) {
            n++;
            continue;
        }
        /* \d+(\.\d+)?s \| #\d+ \| */
        const char *q = p;
        while (*q >= '0' && *q <= '9') q++;
        if (q == p) continue;
        if (*q == '.') {
            const char *f0 = ++q;
            while (*q >= '0' && *q <= '9') q++;
            if (q == f0) continue;
        }
        if (strncmp(q, "s | #", 5) != 0) continue;
        q += 5;
        const char *d = q;
        while (*q >= '0' && *q <= '9') q++;
        if (q > d && strncmp(q, " | ", 3) == 0) n++;
    }
    free(line);
    fclose(f);
    return n;
}

/* Loads a sample through tr_load and freezes it. */
static tr_trace *load(const char *rel, int pairing)
{
    tr_trace *t = tr_trace_new();
    tr_diag diag = {0};
    tr_read_opts ro = {.diag = &diag, .gt_pairing = pairing};
    tr_error e;
    int rc = tr_test_load(t, path_of(rel), &ro, &e);
    if (rc != TR_OK) fprintf(stderr, "  load %s: %s\n", rel, e.msg);
    CHECK_INT(rc, TR_OK);
    CHECK_INT(diag.warnings, 0);
    CHECK_INT(tr_input_count(t), 1);
    CHECK_STR(tr_str_get(t, tr_input_get(t, 0)->format, NULL), "gt");
    return t;
}

/* Reads TEXT as one in-memory stream with tr_reader_gt. */
static int read_mem(tr_trace *t, const char *text, size_t n, const tr_read_opts *o, tr_error *e)
{
    tr_source *src;
    tr_input *in;
    int rc = tr_source_open_memory(&src, "mem.log", text, n, e);
    if (rc != TR_OK) return rc;
    rc = tr_source_next(src, &in, e);
    if (rc == TR_OK) {
        uint32_t input = tr_input_add(t, "mem.log", "gt");
        rc = tr_read_stream(&tr_reader_gt, in, t, input, o, e);
    }
    tr_source_close(src);
    return rc;
}

static int is_cat(const tr_trace *t, tr_str cat, const char *want)
{
    return strcmp(tr_str_get(t, cat, NULL), want) == 0;
}

/* Slices of category CAT, and on how many tracks they lie. */
static size_t count_slices(const tr_trace *t, const char *cat, size_t *tracks)
{
    tr_slices s;
    tr_trace_slices(t, &s);
    size_t n = 0, nt = 0;
    uint32_t seen[64];
    for (size_t i = 0; i < s.n; i++) {
        if (!is_cat(t, tr_slice_cat(&s, i), cat)) continue;
        n++;
        size_t k = 0;
        while (k < nt && seen[k] != s.track[i]) k++;
        if (k == nt && nt < 64) seen[nt++] = s.track[i];
    }
    if (tracks) *tracks = nt;
    return n;
}

/* The first slice of category CAT named NAME at or after time TS, or SIZE_MAX. */
static size_t find_slice(const tr_trace *t, const char *cat, const char *name, int64_t ts)
{
    tr_slices s;
    tr_trace_slices(t, &s);
    for (size_t i = 0; i < s.n; i++)
        if (s.ts[i] >= ts && is_cat(t, tr_slice_cat(&s, i), cat) &&
            strcmp(tr_str_get(t, s.name[i], NULL), name) == 0)
            return i;
    return SIZE_MAX;
}

/* The instant whose arg seq is SEQ, or SIZE_MAX. */
static size_t find_seq(const tr_trace *t, int64_t seq)
{
    tr_instants in;
    tr_trace_instants(t, &in);
    tr_arg a;
    for (size_t i = 0; i < in.n; i++)
        if (tr_args_find(t, in.args[i], "seq", &a) && a.v.i == seq) return i;
    return SIZE_MAX;
}

static int64_t arg_int(const tr_trace *t, uint32_t set, const char *key)
{
    tr_arg a;
    if (!tr_args_find(t, set, key, &a)) return -999;
    CHECK_INT(a.type, TR_ARG_INT);
    return a.v.i;
}

static const char *arg_str(const tr_trace *t, uint32_t set, const char *key)
{
    tr_arg a;
    if (!tr_args_find(t, set, key, &a)) return "(absent)";
    CHECK_INT(a.type, TR_ARG_STR);
    return tr_str_get(t, a.v.s, NULL);
}

static const char *track_name(const tr_trace *t, uint32_t track)
{
    return tr_str_get(t, tr_track_get(t, track)->name, NULL);
}

/* Record count, client and worker slices (both pairings) of one sample. */
static void check_sample(const char *rel, size_t client, size_t worker, size_t vis,
                         size_t vis_lanes)
{
    tr_trace *t = load(rel, TR_GT_PAIR_BATCH);
    tr_instants in;
    tr_trace_instants(t, &in);
    CHECK_INT(in.n, count_records(rel));
    CHECK_INT(tr_input_get(t, 0)->warnings, 0);
    CHECK_INT(count_slices(t, "gt.client", NULL), client);
    CHECK_INT(count_slices(t, "gt.worker", NULL), worker);
    tr_trace_free(t);

    t = load(rel, TR_GT_PAIR_VISUALIZE);
    tr_trace_instants(t, &in);
    CHECK_INT(in.n, count_records(rel));
    size_t lanes;
    CHECK_INT(count_slices(t, "gt.worker", &lanes), vis);
    CHECK_INT(lanes, vis_lanes);
    CHECK_INT(count_slices(t, "gt.client", NULL), client);
    tr_trace_free(t);
}

/* ---- the samples: counts ---- */

/* Reference worker counts for visualize are GT's own (SOURCES.md). */
TR_TEST(sample_mlp_4workers)
{
    check_sample("gt-mlp-4workers-autoshard.log", 954, 1081, 1076, 4);
}

TR_TEST(sample_server_2workers)
{
    check_sample("gt-server-2workers.log", 478, 487, 483, 2);
}

TR_TEST(sample_trace_capture)
{
    check_sample("gt-trace-capture-2workers.log", 478, 487, 483, 2);
}

TR_TEST(sample_tiny)
{
    check_sample("gt-tiny-visualize_demo-1worker.log", 22, 21, 20, 1);
}

TR_TEST(sample_legacy_4a97ec6)
{
    check_sample("legacy/gt-4a97ec6-mlp-1worker.log", 1196, 1196, 1196, 1);
}

TR_TEST(sample_legacy_6621e6d)
{
    /* fire-and-forget worker ops: only GetData has a reply */
    check_sample("legacy/gt-6621e6d-visualize_demo-1worker.log", 26, 2, 2, 1);
}

TR_TEST(sample_legacy_tape)
{
    /* visualize's pattern needs "<t>s | #<seq>": it finds nothing in [TAPE] lines */
    check_sample("legacy/gt-105d6f8-console-tape.txt", 227, 227, 0, 0);
}

/* ---- the samples: fields ---- */

TR_TEST(tiny_fields)
{
    tr_trace *t = load("gt-tiny-visualize_demo-1worker.log", TR_GT_PAIR_BATCH);
    const tr_input_info *info = tr_input_get(t, 0);
    CHECK_STR(tr_str_get(t, info->origin_wall, NULL), "2026-11-22 17:58:17 (local time)");
    CHECK_STR(tr_str_get(t, info->clock, NULL), "seconds since GT dispatcher start");
    CHECK(info->origin_unix_ns == INT64_MIN);
    CHECK_INT(info->meta, 0);
    CHECK_INT(info->lines_skipped, 20); /* the 20-line header */
    CHECK_INT(tr_process_count(t), 1);
    const tr_process *p = tr_process_get(t, 0);
    CHECK_INT(p->pid, -1);
    CHECK_STR(tr_str_get(t, p->name, NULL), "GT dispatcher");

    /* 0.107s | #0001 | RECV | CLIENT CLIENT 006b8b4567 | RegisterWorker | 88B |
     * worker_id=auto_worker */
    tr_instants in;
    tr_trace_instants(t, &in);
    CHECK(in.n > 0);
    CHECK_INT(in.ts[0], 107000000);
    CHECK_STR(tr_str_get(t, tr_instant_name(&in, 0), NULL), "RECV");
    CHECK(is_cat(t, tr_instant_cat(&in, 0), "gt"));
    CHECK_INT(tr_instant_bytes(&in, 0), 88);
    CHECK_STR(track_name(t, tr_instant_track(&in, 0)), "client 006b8b4567");
    CHECK_INT(tr_track_get(t, tr_instant_track(&in, 0))->kind, TR_TRACK_CLIENT);
    CHECK_INT(tr_track_get(t, tr_instant_track(&in, 0))->tid, -1);
    CHECK_INT(arg_int(t, in.args[0], "seq"), 1);
    CHECK_STR(arg_str(t, in.args[0], "command"), "RegisterWorker");
    CHECK_INT(arg_int(t, in.args[0], "bytes"), 88);
    CHECK_STR(arg_str(t, in.args[0], "details"), "worker_id=auto_worker");
    CHECK_STR(arg_str(t, in.args[0], "worker_id"), "auto_worker");
    CHECK_INT(tr_args_count(t, in.args[0]), 5);

    /* #0003 RECV UnaryOp: result=0 op=randn shape=(200, 200) */
    size_t i = find_seq(t, 3);
    CHECK(i != SIZE_MAX);
    CHECK_INT(arg_int(t, in.args[i], "result"), 0);
    CHECK_STR(arg_str(t, in.args[i], "op"), "randn");
    CHECK_STR(arg_str(t, in.args[i], "shape"), "(200, 200)");
    /* #0004 MODIFIER_INJECT: no size */
    i = find_seq(t, 4);
    CHECK_STR(tr_str_get(t, tr_instant_name(&in, i), NULL), "MODIFIER_INJECT");
    CHECK_INT(tr_instant_bytes(&in, i), -1);
    CHECK_INT(arg_int(t, in.args[i], "bytes"), -999);
    /* #0006 WORKER_SEND on the worker's track */
    i = find_seq(t, 6);
    CHECK_STR(track_name(t, tr_instant_track(&in, i)), "worker auto_worker");
    CHECK_INT(tr_track_get(t, tr_instant_track(&in, i))->kind, TR_TRACK_WORKER);
    CHECK_STR(arg_str(t, in.args[i], "details"), "[1 cmds: WorkerUnaryOp]");
    tr_trace_free(t);
}

TR_TEST(tiny_slices)
{
    tr_trace *t = load("gt-tiny-visualize_demo-1worker.log", TR_GT_PAIR_BATCH);
    /* the client request #0003 RECV (174B, 0.207s) .. #0007 SEND (91B, 0.210s) */
    tr_slices s;
    tr_trace_slices(t, &s);
    size_t k = find_slice(t, "gt.client", "UnaryOp", 0);
    CHECK(k != SIZE_MAX);
    CHECK_INT(s.ts[k], 207000000);
    CHECK_INT(tr_slice_dur(&s, k), 3000000);
    CHECK_INT(tr_slice_bytes(&s, k), 174 + 91);
    CHECK_INT(arg_int(t, s.args[k], "seq"), 3);
    CHECK_INT(arg_int(t, s.args[k], "send_seq"), 7);
    CHECK_INT(arg_int(t, s.args[k], "recv_bytes"), 174);
    CHECK_INT(arg_int(t, s.args[k], "send_bytes"), 91);
    CHECK_INT(arg_int(t, s.args[k], "unfinished"), -999);
    CHECK_STR(track_name(t, s.track[k]), "client 006b8b4568");

    /* the batch #0005 WORKER_RECV (91B) / #0006 WORKER_SEND (205B), both 0.210s;
       the previous record (#0004) is at 0.207s */
    k = find_slice(t, "gt.worker", "WorkerBatch", 0);
    CHECK(k != SIZE_MAX);
    CHECK_INT(s.ts[k], 207000000);
    CHECK_INT(tr_slice_dur(&s, k), 3000000);
    CHECK_INT(tr_slice_bytes(&s, k), 91 + 205);
    CHECK_INT(arg_int(t, s.args[k], "start_estimated"), 1);
    CHECK_STR(arg_str(t, s.args[k], "commands"), "[1 cmds: WorkerUnaryOp]");
    CHECK_INT(arg_int(t, s.args[k], "seq"), 6);
    CHECK_INT(arg_int(t, s.args[k], "recv_seq"), 5);
    CHECK_STR(track_name(t, s.track[k]), "worker auto_worker");

    /* synchronous: #0100 WORKER_SEND WorkerGetData 89B 0.238s, #0101 WORKER_RECV 190B 0.239s */
    k = find_slice(t, "gt.worker", "WorkerGetData", 0);
    CHECK(k != SIZE_MAX);
    CHECK_INT(s.ts[k], 238000000);
    CHECK_INT(tr_slice_dur(&s, k), 1000000);
    CHECK_INT(tr_slice_bytes(&s, k), 89 + 190);
    CHECK_INT(arg_int(t, s.args[k], "seq"), 100);
    CHECK_INT(arg_int(t, s.args[k], "recv_seq"), 101);
    CHECK_INT(arg_int(t, s.args[k], "start_estimated"), -999);
    tr_trace_free(t);
}

TR_TEST(server_sizes)
{
    tr_trace *t = load("gt-server-2workers.log", TR_GT_PAIR_BATCH);
    tr_instants in;
    tr_trace_instants(t, &in);
    /* 5.052s | #0005 | RECV | CLIENT CLIENT 006b8b4569 | CreateTensor | 1.37MB | tensor_id=0
     * shape=(600, 600) */
    size_t i = find_seq(t, 5);
    CHECK(i != SIZE_MAX);
    CHECK_INT(in.ts[i], 5052000000);
    CHECK_INT(tr_instant_bytes(&in, i), 1436549);
    CHECK_INT(arg_int(t, in.args[i], "bytes"), 1436549);
    CHECK_INT(arg_int(t, in.args[i], "tensor_id"), 0);
    CHECK_STR(arg_str(t, in.args[i], "shape"), "(600, 600)");
    /* 5.066s | #0009 | WORKER_SEND | WORKER worker_1 | WorkerBatch | 703.4KB | [1 cmds: ...] */
    i = find_seq(t, 9);
    CHECK_INT(tr_instant_bytes(&in, i), 720282);
    CHECK_STR(track_name(t, tr_instant_track(&in, i)), "worker worker_1");
    /* its batch: #0008 WORKER_RECV 91B at 5.066s, previous record #0007 at 5.057s */
    tr_slices s;
    tr_trace_slices(t, &s);
    size_t k = find_slice(t, "gt.worker", "WorkerBatch", 5057000000);
    CHECK(k != SIZE_MAX);
    CHECK_INT(s.ts[k], 5057000000);
    CHECK_INT(tr_slice_dur(&s, k), 9000000);
    CHECK_INT(tr_slice_bytes(&s, k), 720282 + 91);
    CHECK_INT(arg_int(t, s.args[k], "seq"), 9);
    CHECK_STR(track_name(t, s.track[k]), "worker worker_1");
    tr_trace_free(t);
}

TR_TEST(trace_capture_header)
{
    tr_trace *t = load("gt-trace-capture-2workers.log", TR_GT_PAIR_BATCH);
    const tr_input_info *info = tr_input_get(t, 0);
    CHECK_INT(info->origin_wall, 0);
    CHECK_STR(arg_str(t, info->meta, "captured"), "2026-11-22 17:59:38");
    CHECK_STR(arg_str(t, info->meta, "limit"), "20.0s");
    CHECK_INT(info->lines_skipped, 21);
    tr_instants in;
    tr_trace_instants(t, &in);
    CHECK_INT(in.ts[0], 3588000000);
    CHECK_INT(arg_int(t, in.args[0], "seq"), 1);
    tr_trace_free(t);
}

TR_TEST(mlp_details)
{
    tr_trace *t = load("gt-mlp-4workers-autoshard.log", TR_GT_PAIR_BATCH);
    tr_instants in;
    tr_trace_instants(t, &in);
    /* 0.224s | #0094 | MODIFIER_INJECT | ... | GatherShards | result=1599315 source=4
     * target_worker=auto_worker_0 */
    size_t i = find_seq(t, 94);
    CHECK(i != SIZE_MAX);
    CHECK_STR(tr_str_get(t, tr_instant_name(&in, i), NULL), "MODIFIER_INJECT");
    CHECK_INT(arg_int(t, in.args[i], "result"), 1599315);
    CHECK_INT(arg_int(t, in.args[i], "source"), 4);
    CHECK_STR(arg_str(t, in.args[i], "target_worker"), "auto_worker_0");
    /* 4 workers and 1 client (plus the 4 registering workers, as clients) */
    size_t workers = 0, clients = 0;
    for (size_t k = 0; k < tr_track_count(t); k++) {
        int kind = tr_track_get(t, (uint32_t)k)->kind;
        workers += kind == TR_TRACK_WORKER;
        clients += kind == TR_TRACK_CLIENT;
    }
    CHECK_INT(workers, 4);
    CHECK_INT(clients, 5);
    tr_trace_free(t);
}

TR_TEST(legacy_4a97ec6_fields)
{
    tr_trace *t = load("legacy/gt-4a97ec6-mlp-1worker.log", TR_GT_PAIR_BATCH);
    tr_instants in;
    tr_trace_instants(t, &in);
    /* "  0.003s | #0001 | CONNECT | CLIENT 127.0.0.1:44306 | CLIENT         " (neither shape) */
    CHECK_STR(tr_str_get(t, tr_instant_name(&in, 0), NULL), "CONNECT");
    CHECK_STR(track_name(t, tr_instant_track(&in, 0)), "client 127.0.0.1:44306");
    CHECK_STR(arg_str(t, in.args[0], "command"), "CLIENT");
    CHECK_STR(arg_str(t, in.args[0], "details"), "(absent)");
    CHECK_INT(tr_instant_bytes(&in, 0), -1);
    /* #4786 ERROR | EXCEPTION | Connection closed */
    size_t i = find_seq(t, 4786);
    CHECK_STR(tr_str_get(t, tr_instant_name(&in, i), NULL), "ERROR");
    CHECK_STR(arg_str(t, in.args[i], "details"), "Connection closed");
    /* #0027 WORKER_SEND WorkerBinaryOp | op=matmul result=127.0.0.1:44306_6 */
    i = find_seq(t, 27);
    CHECK_STR(arg_str(t, in.args[i], "op"), "matmul");
    CHECK_STR(arg_str(t, in.args[i], "result"), "127.0.0.1:44306_6");
    CHECK_STR(tr_str_get(t, tr_input_get(t, 0)->origin_wall, NULL) + 20, "(local time)");
    tr_trace_free(t);

    /* visualize's op types: op= on the line, else by command */
    t = load("legacy/gt-4a97ec6-mlp-1worker.log", TR_GT_PAIR_VISUALIZE);
    tr_slices s;
    tr_trace_slices(t, &s);
    size_t k = 0;
    while (k < s.n &&
           !(is_cat(t, tr_slice_cat(&s, k), "gt.worker") && arg_int(t, s.args[k], "seq") == 27))
        k++;
    CHECK(k < s.n);
    CHECK_STR(tr_str_get(t, s.name[k], NULL), "WorkerBinaryOp");
    CHECK_STR(arg_str(t, s.args[k], "op"), "matmul");
    k = find_slice(t, "gt.worker", "WorkerCreateTensor", 0);
    CHECK_STR(arg_str(t, s.args[k], "op"), "other");
    CHECK_STR(track_name(t, s.track[k]), "worker auto_worker");
    tr_trace_free(t);
}

TR_TEST(legacy_6621e6d_fields)
{
    tr_trace *t = load("legacy/gt-6621e6d-visualize_demo-1worker.log", TR_GT_PAIR_BATCH);
    tr_instants in;
    tr_trace_instants(t, &in);
    /* 0.212s | #0025 | WORKER_SEND | WORKER auto_worker | WorkerCreateTensor |       258B */
    size_t i = find_seq(t, 25);
    CHECK_STR(arg_str(t, in.args[i], "command"), "WorkerCreateTensor");
    CHECK_INT(tr_instant_bytes(&in, i), 258);
    CHECK_STR(arg_str(t, in.args[i], "details"), "(absent)");
    /* the two slices are the GetData round trips */
    tr_slices s;
    tr_trace_slices(t, &s);
    size_t k = find_slice(t, "gt.worker", "WorkerGetData", 0);
    CHECK(k != SIZE_MAX);
    CHECK_INT(s.ts[k], 221000000);
    CHECK_INT(tr_slice_dur(&s, k), 8000000);
    tr_trace_free(t);
}

TR_TEST(legacy_tape_fields)
{
    tr_trace *t = load("legacy/gt-105d6f8-console-tape.txt", TR_GT_PAIR_BATCH);
    const tr_input_info *info = tr_input_get(t, 0);
    CHECK_INT(info->lines_skipped, 934 - 909);
    CHECK_INT(info->origin_wall, 0);
    tr_instants in;
    tr_trace_instants(t, &in);
    /* [TAPE 0.003s] CONNECT      | 127.0.0.1:45152      | CLIENT          | */
    CHECK_INT(in.ts[0], 3000000);
    CHECK_STR(tr_str_get(t, tr_instant_name(&in, 0), NULL), "CONNECT");
    CHECK_STR(track_name(t, tr_instant_track(&in, 0)), "client 127.0.0.1:45152");
    CHECK_INT(arg_int(t, in.args[0], "seq"), -999);
    CHECK_STR(arg_str(t, in.args[0], "command"), "CLIENT");
    CHECK_STR(arg_str(t, in.args[0], "details"), "(absent)");
    /* [TAPE 0.003s] WORKER_SEND  | auto_worker | WorkerCreateTensor | tensor=127.0.0.1:45152_0 */
    CHECK_STR(track_name(t, tr_instant_track(&in, 2)), "worker auto_worker");
    CHECK_INT(tr_track_get(t, tr_instant_track(&in, 2))->kind, TR_TRACK_WORKER);
    CHECK_STR(arg_str(t, in.args[2], "tensor"), "127.0.0.1:45152_0");
    tr_trace_free(t);
}

TR_TEST(visualize_fields)
{
    tr_trace *t = load("gt-tiny-visualize_demo-1worker.log", TR_GT_PAIR_VISUALIZE);
    /* the first pending SEND (#0006, 0.210s) is closed by the next RECV (#0010, 0.213s) */
    tr_slices s;
    tr_trace_slices(t, &s);
    size_t k = find_slice(t, "gt.worker", "WorkerBatch", 0);
    CHECK(k != SIZE_MAX);
    CHECK_INT(s.ts[k], 210000000);
    CHECK_INT(tr_slice_dur(&s, k), 3000000);
    CHECK_STR(arg_str(t, s.args[k], "op"), "other");
    CHECK_INT(arg_int(t, s.args[k], "seq"), 6);
    CHECK_STR(track_name(t, s.track[k]), "worker auto_worker");
    k = find_slice(t, "gt.worker", "WorkerGetData", 0);
    CHECK(k != SIZE_MAX);
    CHECK_STR(arg_str(t, s.args[k], "op"), "getdata");
    tr_trace_free(t);
}

/* ---- probing ---- */

static int probe_text(const char *text)
{
    tr_peek pk = {"x", (const unsigned char *)text, strlen(text), 1, NULL, 0};
    return tr_reader_gt.probe(&pk);
}

TR_TEST(probe)
{
    CHECK_INT(probe_text("=====\nGT2 Dispatcher Instruction Stream\nStarted: 2026-11-22\n"), 90);
    CHECK_INT(probe_text("hello\n  0.107s | #0001 | RECV         | CLIENT CLIENT 1 | X\n"), 90);
    CHECK_INT(probe_text("Training...\n[TAPE 0.003s] RECV | 127.0.0.1:1 | X | \n"), 60);
    CHECK_INT(probe_text("Format: <elapsed> | #<seq> | <event_type> | <source>\n"), 0);
    CHECK_INT(probe_text("{\"traceEvents\": [\"  0.107s | #0001 | RECV | \"]}"), 0);
    CHECK_INT(probe_text("[{\"name\": \"GT2 Dispatcher Instruction Stream\"}]"), 0);
    CHECK_INT(probe_text("Process 4242: python3 train.py\nPython v3.11.2 (/usr/bin/python3)\n\n"
                         "Thread 4242 (active): \"MainThread\"\n    main (train.py:12)\n"),
              0);
    CHECK_INT(probe_text(""), 0);
}

/* ---- in-memory logs: warnings and edge cases ---- */

static const char garbled[] =
    "GT2 Dispatcher Instruction Stream\n"
    "Started: 2026-01-02 03:04:05\n"
    "  0.100s | #0001 | RECV         | CLIENT CLIENT aa    | GetData         |        69B | "
    "tensor_id=1 seq=7 details=x\n"
    "  0.150s | #00x2 | RECV         | CLIENT CLIENT aa    | GetData\n"
    "  0.200s | #0003 | SEND         | CLIENT CLIENT aa    | GetData         |       2.5KB | "
    "success=True\n";

TR_TEST(garbled_line_warns)
{
    tr_trace *t = tr_trace_new();
    tr_test_warns wl = {0};
    tr_diag diag = {tr_test_on_warn, &wl, 0, 0};
    tr_read_opts o = {.diag = &diag, .gt_pairing = TR_GT_PAIR_BATCH};
    tr_error e = {0};
    CHECK_INT(read_mem(t, garbled, sizeof garbled - 1, &o, &e), TR_OK);
    CHECK_INT(wl.n, 1);
    CHECK_INT(wl.last.line, 4);
    CHECK_INT(wl.last.col, 12); /* the '#' of the bad sequence number */
    CHECK(strstr(wl.last.msg, "seq") != NULL);
    CHECK_INT(diag.warnings, 1);
    const tr_input_info *info = tr_input_get(t, 0);
    CHECK_INT(info->warnings, 1);
    CHECK_INT(info->lines_skipped, 2);
    CHECK_STR(tr_str_get(t, info->origin_wall, NULL), "2026-01-02 03:04:05 (local time)");
    tr_instants in;
    tr_trace_instants(t, &in);
    CHECK_INT(in.n, 2);
    /* detail keys that clash with the reader's own args get a prefix */
    CHECK_INT(arg_int(t, in.args[0], "seq"), 1);
    CHECK_INT(arg_int(t, in.args[0], "details.seq"), 7);
    CHECK_STR(arg_str(t, in.args[0], "details.details"), "x");
    CHECK_INT(tr_instant_bytes(&in, 1), 2560);
    CHECK_INT(count_slices(t, "gt.client", NULL), 1);
    tr_trace_free(t);
}

TR_TEST(garbled_line_strict_fails)
{
    tr_trace *t = tr_trace_new();
    tr_diag diag = {NULL, NULL, 1, 0};
    tr_read_opts o = {.diag = &diag, .gt_pairing = TR_GT_PAIR_BATCH};
    tr_error e = {0};
    CHECK_INT(read_mem(t, garbled, sizeof garbled - 1, &o, &e), TR_FAIL);
    CHECK_INT(e.code, TR_E_FORMAT);
    CHECK_INT(e.line, 4);
    CHECK_STR(e.file, "mem.log");
    tr_trace_free(t);
}

/*
** A log of many windows (lines read in place, tr_input_span) with a bad
** record deep in it and "\r\n" endings in a stretch: the warning names its
** line, and the records are those of the same log with "\n" endings.
*/
static char *long_log(int crlf, size_t *n)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    CHECK_INT(tr_buf_adds(&b, "GT2 Dispatcher Instruction Stream\n"), TR_OK);
    for (int i = 1; i <= 30000; i++) {
        const char *end = crlf && i > 20000 && i < 20100 ? "\r\n" : "\n";
        if (i == 25000)
            tr_buf_addf(&b, "  %d.%03ds | #%05dx | RECV | CLIENT CLIENT aa | X%s", i / 1000,
                        i % 1000, i, end); /* a bad seq */
        else
            tr_buf_addf(&b,
                        "  %d.%03ds | #%05d | %-12s | CLIENT CLIENT aa    | GetData         |"
                        "        69B | tensor_id=%d shape=(16, 1)%s",
                        i / 1000, i % 1000, i, i % 2 ? "RECV" : "SEND", i, end);
    }
    *n = b.len;
    return b.p;
}

TR_TEST(long_log_in_place)
{
    size_t n[2];
    char *text[2] = {long_log(0, &n[0]), long_log(1, &n[1])};
    size_t instants[2];
    for (int k = 0; k < 2; k++) {
        tr_trace *t = tr_trace_new();
        tr_test_warns wl = {0};
        tr_diag diag = {tr_test_on_warn, &wl, 0, 0};
        tr_read_opts o = {.diag = &diag, .gt_pairing = TR_GT_PAIR_BATCH};
        tr_error e = {0};
        CHECK_INT(read_mem(t, text[k], n[k], &o, &e), TR_OK);
        CHECK_INT(wl.n, 1);
        CHECK_INT(wl.last.line, 25001); /* after the header line */
        tr_instants in;
        tr_trace_instants(t, &in);
        instants[k] = in.n;
        CHECK_INT(in.n, 29999);
        CHECK_INT(in.ts[in.n - 1], 30000000000);
        CHECK_INT(arg_int(t, in.args[20050], "tensor_id"), 20051);
        tr_trace_free(t);
        tr_free(text[k]);
    }
    CHECK_INT(instants[0], instants[1]);
}

/*
** Lines read in place are checked by the field scan itself (gt_split): a
** line with UTF-8, a byte that is not UTF-8 or a NUL deep in a log of many
** windows goes through tr_input_getline, which keeps the first and replaces
** the others with U+FFFD; the lines are counted right after them.
*/
TR_TEST(long_log_in_place_not_ascii)
{
    size_t n;
    char *text = long_log(0, &n);
    /* Lines 15001, 16001 and 17001 (records 15000..17000) end "... shape=(16, 1)\n". */
    static const char *const bytes[] = {"\xc3\xa9", "\xff", "\0"};
    const int rec[] = {15000, 16000, 17000};
    for (int k = 0; k < 3; k++) {
        char want[32];
        snprintf(want, sizeof want, "tensor_id=%d shape=(16, 1)\n", rec[k]);
        char *at = strstr(text, want);
        CHECK(at != NULL);
        if (at) memcpy(strchr(at, ')') - 1, bytes[k], strlen(bytes[k]) ? strlen(bytes[k]) : 1);
    }
    tr_trace *t = tr_trace_new();
    tr_test_warns wl = {0};
    tr_diag diag = {tr_test_on_warn, &wl, 0, 0};
    tr_read_opts o = {.diag = &diag, .gt_pairing = TR_GT_PAIR_BATCH};
    tr_error e = {0};
    CHECK_INT(read_mem(t, text, n, &o, &e), TR_OK);
    CHECK_INT(wl.n, 1); /* the bad seq (the input's own warnings go to its diag, unset here) */
    CHECK_INT(wl.last.line, 25001);
    tr_instants in;
    tr_trace_instants(t, &in);
    CHECK_INT(in.n, 29999);
    CHECK_STR(arg_str(t, in.args[14999], "shape"), "(16, \xc3\xa9");
    CHECK_STR(arg_str(t, in.args[15999], "shape"), "(16, \xef\xbf\xbd)");
    CHECK_STR(arg_str(t, in.args[16999], "shape"), "(16, \xef\xbf\xbd)");
    CHECK_INT(arg_int(t, in.args[17000], "tensor_id"), 17001);
    tr_trace_free(t);
    tr_free(text);
}

/*
** Details with more args than a details slot keeps (GT_DET_ARGS) are built
** arg by arg, each time they come; fewer are kept and replayed.  Either
** way a set holds SEQ, COMMAND, BYTES, DETAILS, then the details' args in
** their order.
*/
TR_TEST(details_many_args)
{
    static const char text[] =
        "  1.000s | #1 | RECV | CLIENT CLIENT a | Op | 10B | a=1 b=x c=3 d=4 e=five f=-6\n"
        "  1.001s | #2 | MODIFIER_INJECT | CLIENT CLIENT a | Op | a=1 b=x c=3 d=4 e=five f=-6\n"
        "  1.002s | #3 | SEND | CLIENT CLIENT a | Op | 11B | a=1 b=x c=3 d=4\n"
        "  1.003s | #4 | RECV | CLIENT CLIENT a | Op | 12B | a=1 b=x c=3 d=4\n";
    static const char *const keys[] = {"seq", "command", "bytes", "details", "a",
                                       "b",   "c",       "d",     "e",       "f"};
    tr_trace *t = tr_trace_new();
    tr_read_opts o = {.gt_pairing = TR_GT_PAIR_BATCH};
    tr_error e = {0};
    CHECK_INT(read_mem(t, text, sizeof text - 1, &o, &e), TR_OK);
    tr_instants in;
    tr_trace_instants(t, &in);
    CHECK_INT(in.n, 4);
    for (size_t i = 0; i < in.n && i < 4; i++) {
        size_t n = i == 1 ? 9 : i == 0 ? 10 : 8;
        CHECK_INT(tr_args_count(t, in.args[i]), n);
        for (size_t k = 0, want = 0; k < n; k++, want++) {
            if (i == 1 && want == 2) want++; /* the inject has no size */
            tr_arg a;
            tr_args_at(t, in.args[i], k, &a);
            CHECK_STR(tr_str_get(t, a.key, NULL), keys[want]);
        }
        CHECK_INT(arg_int(t, in.args[i], "seq"), (int64_t)i + 1);
        CHECK_INT(arg_int(t, in.args[i], "a"), 1);
        CHECK_STR(arg_str(t, in.args[i], "b"), "x");
        CHECK_INT(arg_int(t, in.args[i], "d"), 4);
    }
    CHECK_STR(arg_str(t, in.args[1], "e"), "five");
    CHECK_INT(arg_int(t, in.args[1], "f"), -6);
    CHECK_STR(arg_str(t, in.args[0], "details"), "a=1 b=x c=3 d=4 e=five f=-6");
    CHECK_STR(arg_str(t, in.args[3], "details"), "a=1 b=x c=3 d=4");
    CHECK_INT(arg_int(t, in.args[3], "bytes"), 12);
    tr_trace_free(t);
}

TR_TEST(bad_records)
{
    static const char text[] =
        "  1.5s | #1 | RECV | CLIENT CLIENT a\n"                    /* 4 fields */
        "  1.5s |#1 | RECV | CLIENT CLIENT a | X\n"                 /* no space after '|' */
        "  1.5s | #1 |   | CLIENT CLIENT a | X\n"                   /* empty event */
        "  1.5s | #1 | RECV |   | X\n"                              /* empty source */
        "  99999999999999999999.5s | #1 | RECV | CLIENT a | X\n"    /* time overflow */
        "  1.5s | #99999999999999999999 | RECV | CLIENT a | X\n"    /* seq overflow */
        "  1.5s | #1 | RECV | CLIENT a | X | 99999999999999999MB\n" /* size overflow */
        "[TAPE 1.5s] RECV | 127.0.0.1:1\n"                          /* 2 fields */
        "[TAPEX\n"
        "[TAPE x] RECV | a | b | c\n"
        "  1.5s | #7 | RECV | CLIENT a | X | 12B | a=1\n"; /* the one good line */
    tr_trace *t = tr_trace_new();
    tr_diag diag = {0};
    tr_read_opts o = {.diag = &diag, .gt_pairing = TR_GT_PAIR_BATCH};
    tr_error e = {0};
    CHECK_INT(read_mem(t, text, sizeof text - 1, &o, &e), TR_OK);
    CHECK_INT(diag.warnings, 10);
    tr_instants in;
    tr_trace_instants(t, &in);
    CHECK_INT(in.n, 1);
    CHECK_INT(in.ts[0], 1500000000);
    CHECK_INT(tr_instant_bytes(&in, 0), 12);
    /* the RECV is never answered: open, unfinished */
    tr_slices s;
    tr_trace_slices(t, &s);
    CHECK_INT(s.n, 1);
    CHECK_INT(tr_slice_dur(&s, 0), -1);
    CHECK_INT(arg_int(t, s.args[0], "unfinished"), 1);
    CHECK_INT(arg_int(t, s.args[0], "seq"), 7);
    CHECK_INT(tr_trace_freeze(t, &e), TR_OK);
    tr_trace_free(t);
}

TR_TEST(shapes_and_pairing)
{
    static const char text[] =
        /* size+details, details only, size only, neither; a value with ", " */
        "1.000s | #10 | RECV | CLIENT CLIENT c1 | ConcatOp |   1.5KB | result=3 tensors=[1, 2] "
        "axis=-1\n"
        "1.001s | #11 | MODIFIER_INJECT | CLIENT CLIENT c1 | ConcatOp | result=3 tensors=[1, 2] "
        "axis=0\n"
        "1.002s | #12 | WORKER_SEND | WORKER w | WorkerGetStats |   33B\n"
        "1.004s | #13 | WORKER_RECV | WORKER w | WorkerGetStats |   44B | success=True\n"
        "1.004s | #14 | WORKER_SEND | WORKER w | WorkerX |   5B\n" /* fire and forget */
        "1.010s | #15 | WORKER_RECV | WORKER w | WorkerBatch | 1B | success=True\n"
        "1.011s | #16 | WORKER_SEND | WORKER w | WorkerBatch | 2B | [2 cmds: A, B]\n"
        "1.012s | #17 | SEND | CLIENT CLIENT c1 | ConcatOp\n"
        "1.013s | #18 | WORKER_RECV | WORKER w | WorkerBatch | 1B | success=True\n"
        "1.014s | #20 | WORKER_SEND | WORKER w | WorkerBatch | 2B | [1 cmds: A]\n" /* seq gap */
        "1.020s | #21 | RECV | CLIENT CLIENT c1 | A | x | y\n" /* details w/ " | " */
        "1.021s | #22 | RECV | CLIENT CLIENT c1 | B |\n";
    tr_trace *t = tr_trace_new();
    tr_read_opts o = {.diag = NULL, .gt_pairing = TR_GT_PAIR_BATCH};
    tr_error e = {0};
    CHECK_INT(read_mem(t, text, sizeof text - 1, &o, &e), TR_OK);
    tr_instants in;
    tr_trace_instants(t, &in);
    CHECK_INT(in.n, 12);
    CHECK_INT(tr_instant_bytes(&in, 0), 1536);
    CHECK_STR(arg_str(t, in.args[0], "tensors"), "[1, 2]");
    CHECK_INT(arg_int(t, in.args[0], "axis"), -1);
    CHECK_INT(tr_instant_bytes(&in, 1), -1);
    CHECK_INT(arg_int(t, in.args[1], "axis"), 0);
    CHECK_INT(tr_instant_bytes(&in, 2), 33);
    CHECK_STR(arg_str(t, in.args[2], "details"), "(absent)");
    CHECK_STR(arg_str(t, in.args[7], "command"), "ConcatOp");
    CHECK_STR(arg_str(t, in.args[10], "details"), "x | y");
    CHECK_STR(arg_str(t, in.args[11], "command"), "B |");

    tr_slices s;
    tr_trace_slices(t, &s);
    /* GetStats (sync), the batch #15/#16, the client request, and two open RECVs */
    CHECK_INT(count_slices(t, "gt.worker", NULL), 2);
    CHECK_INT(count_slices(t, "gt.client", NULL), 3);
    size_t k = find_slice(t, "gt.worker", "WorkerGetStats", 0);
    CHECK_INT(s.ts[k], 1002000000);
    CHECK_INT(tr_slice_dur(&s, k), 2000000);
    CHECK_INT(tr_slice_bytes(&s, k), 77);
    k = find_slice(t, "gt.worker", "WorkerBatch", 0);
    CHECK_INT(s.ts[k], 1004000000); /* the record before the RECV */
    CHECK_INT(tr_slice_dur(&s, k), 6000000);
    CHECK_STR(arg_str(t, s.args[k], "commands"), "[2 cmds: A, B]");
    k = find_slice(t, "gt.client", "ConcatOp", 0);
    CHECK_INT(tr_slice_dur(&s, k), 12000000);
    CHECK_INT(tr_slice_bytes(&s, k), 1536); /* the SEND has no size */
    CHECK_INT(arg_int(t, s.args[k], "send_bytes"), -999);
    /* #21 is left open by #22 on the same client */
    k = find_slice(t, "gt.client", "A", 0);
    CHECK_INT(tr_slice_dur(&s, k), -1);
    CHECK_INT(arg_int(t, s.args[k], "unfinished"), 1);
    CHECK_INT(tr_trace_freeze(t, &e), TR_OK);
    tr_trace_slices(t, &s);
    k = find_slice(t, "gt.client", "A", 0);
    CHECK(tr_slice_dur(&s, k) >= 0);
    tr_trace_free(t);
}

TR_TEST(empty_input)
{
    tr_trace *t = tr_trace_new();
    tr_read_opts o = {.diag = NULL, .gt_pairing = TR_GT_PAIR_BATCH};
    tr_error e = {0};
    CHECK_INT(read_mem(t, "", 0, &o, &e), TR_OK);
    tr_instants in;
    tr_trace_instants(t, &in);
    CHECK_INT(in.n, 0);
    CHECK_INT(tr_input_get(t, 0)->lines_skipped, 0);
    CHECK_INT(tr_trace_freeze(t, &e), TR_OK);
    tr_trace_free(t);
}

TR_TEST(binary_junk)
{
    size_t n = 1 << 16;
    char *junk = malloc(n);
    uint64_t x = 0x9E3779B97F4A7C15ULL;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        junk[i] = (char)(x >> 24);
    }
    tr_trace *t = tr_trace_new();
    tr_diag diag = {0};
    tr_read_opts o = {.diag = &diag, .gt_pairing = TR_GT_PAIR_VISUALIZE};
    tr_error e = {0};
    CHECK(read_mem(t, junk, n, &o, &e) >= 0);
    tr_instants in;
    tr_trace_instants(t, &in);
    CHECK_INT(in.n, 0);
    CHECK_INT(tr_trace_freeze(t, &e), TR_OK);
    tr_trace_free(t);
    free(junk);
}

TR_TEST(long_line_is_an_error)
{
    char text[200];
    memset(text, 'x', sizeof text);
    text[sizeof text - 1] = '\n';
    tr_trace *t = tr_trace_new();
    tr_source *src;
    tr_input *in;
    tr_error e = {0};
    CHECK_INT(tr_source_open_memory(&src, "long.log", text, sizeof text, &e), TR_OK);
    CHECK_INT(tr_source_next(src, &in, &e), TR_OK);
    tr_input_set_line_max(in, 64);
    tr_read_opts o = {.diag = NULL, .gt_pairing = TR_GT_PAIR_BATCH};
    CHECK(tr_read_stream(&tr_reader_gt, in, t, tr_input_add(t, "long.log", "gt"), &o, &e) < 0);
    CHECK_INT(e.code, TR_E_LIMIT);
    tr_source_close(src);
    tr_trace_free(t);
}

TR_TEST(out_of_memory)
{
    /* Every allocation failing in turn gives TR_E_NOMEM, never a crash. */
    int fatal = 0;
    for (uint64_t n = 1; n < 400; n++) {
        tr_trace *t = tr_trace_new();
        if (!t) continue;
        tr_error e = {0};
        tr_read_opts o = {.diag = NULL, .gt_pairing = TR_GT_PAIR_VISUALIZE};
        tr_alloc_fail_after(n);
        int rc = read_mem(t, garbled, sizeof garbled - 1, &o, &e);
        tr_alloc_fail_after(0);
        if (rc < 0) {
            CHECK(e.code == TR_E_NOMEM);
            fatal++;
        }
        tr_trace_free(t);
    }
    CHECK(fatal > 0);
}

/*
** 2026-11-22, GT benchmark: details are stored without the string index,
** but names stay interned even when a detail had the same text first, and
** repeated details share one string.
*/
TR_TEST(details_and_names_share_the_cache)
{
    static const char text[] = "1.000s | #1 | RECV | CLIENT CLIENT c1 | Op | 1B | FreeTensor\n"
                               "1.001s | #2 | SEND | CLIENT CLIENT c1 | Op | 1B | success=True\n"
                               "1.002s | #3 | RECV | CLIENT CLIENT c1 | FreeTensor | 1B | x\n"
                               "1.003s | #4 | SEND | CLIENT CLIENT c1 | FreeTensor | 1B | "
                               "success=True\n";
    tr_trace *t = tr_trace_new();
    tr_read_opts o = {.diag = NULL, .gt_pairing = TR_GT_PAIR_BATCH};
    tr_error e = {0};
    CHECK_INT(read_mem(t, text, sizeof text - 1, &o, &e), TR_OK);
    tr_instants in;
    tr_trace_instants(t, &in);
    CHECK_INT(in.n, 4);
    tr_arg a, b;
    CHECK(tr_args_find(t, in.args[2], "command", &a));
    CHECK_INT(a.v.s, tr_str_internz(t, "FreeTensor"));
    CHECK_STR(arg_str(t, in.args[0], "details"), "FreeTensor");
    CHECK(tr_args_find(t, in.args[1], "details", &a) && tr_args_find(t, in.args[3], "details", &b));
    CHECK_INT(a.v.s, b.v.s);
    CHECK_STR(tr_str_get(t, a.v.s, NULL), "success=True");
    tr_trace_free(t);
}

/*
** Issue 23: flows follow a request to its workers and back.  A synchronous
** round trip links RECV -> WORKER_SEND -> WORKER_RECV -> SEND; a batch, logged
** reply first, links its lines in log order; a request that arrives during a
** wait is served inside it, and the one waiting is served again after it;
** worker traffic outside any request has no flow.  Each flow's id is the
** request's seq.
*/
TR_TEST(flows_request_worker_reply)
{
    static const char text[] =
        "1.000s | #1 | RECV | CLIENT CLIENT c1 | GetData | 9B | tensor_id=1\n"
        "1.001s | #2 | WORKER_SEND | WORKER w | WorkerGetData | 9B | tensor=c1_1\n"
        "1.002s | #3 | WORKER_RECV | WORKER w | WorkerGetData | 9B | success=True\n"
        "1.003s | #4 | SEND | CLIENT CLIENT c1 | GetData | 9B | success=True\n"
        "1.004s | #5 | RECV | CLIENT CLIENT c2 | BinaryOp | 9B | result=2 op=add left=0 right=1\n"
        "1.005s | #6 | WORKER_RECV | WORKER w | WorkerBatch | 9B | success=True\n"
        "1.005s | #7 | WORKER_SEND | WORKER w | WorkerBatch | 9B | [1 cmds: WorkerBinaryOp]\n"
        "1.006s | #8 | RECV | CLIENT CLIENT c1 | GetData | 9B | tensor_id=2\n"
        "1.007s | #9 | SEND | CLIENT CLIENT c1 | GetData | 9B | success=True\n"
        "1.008s | #10 | WORKER_RECV | WORKER v | WorkerBatch | 9B | success=True\n"
        "1.008s | #11 | WORKER_SEND | WORKER v | WorkerBatch | 9B | [1 cmds: WorkerFreeTensor]\n"
        "1.009s | #12 | SEND | CLIENT CLIENT c2 | BinaryOp | 9B | success=True\n"
        "1.010s | #13 | WORKER_SEND | WORKER w | WorkerGetStats | 9B\n"
        "1.011s | #14 | WORKER_RECV | WORKER w | WorkerGetStats | 9B | success=True\n";
    tr_trace *t = tr_trace_new();
    tr_read_opts o = {.diag = NULL, .gt_pairing = TR_GT_PAIR_BATCH};
    tr_error e = {0};
    CHECK_INT(read_mem(t, text, sizeof text - 1, &o, &e), TR_OK);
    CHECK_INT(tr_trace_freeze(t, &e), TR_OK);
    tr_instants in;
    tr_trace_instants(t, &in);
    char got[512] = "";
    for (uint32_t i = 0; i < tr_flow_count(t); i++) {
        tr_flow f_v;
        tr_flow_get(t, i, &f_v);
        const tr_flow *f = &f_v;
        CHECK_INT(TR_REF_KIND(f->from), TR_EV_INSTANT);
        CHECK_INT(TR_REF_KIND(f->to), TR_EV_INSTANT);
        CHECK_STR(tr_str_get(t, f->cat, NULL), "gt.flow");
        size_t n = strlen(got);
        snprintf(got + n, sizeof got - n, "%s%lld>%lld:%llu %s", i ? ", " : "",
                 (long long)arg_int(t, in.args[TR_REF_ROW(f->from)], "seq"),
                 (long long)arg_int(t, in.args[TR_REF_ROW(f->to)], "seq"),
                 (unsigned long long)f->id, tr_str_get(t, f->name, NULL));
    }
    CHECK_STR(got, "1>2:1 GetData, 2>3:1 GetData, 3>4:1 GetData, 5>6:5 BinaryOp, "
                   "6>7:5 BinaryOp, 5>10:5 BinaryOp, 10>11:5 BinaryOp, 7>12:5 BinaryOp, "
                   "11>12:5 BinaryOp");
    tr_trace_free(t);
}

/*
** tr_read_opts.no_args (info): the same events, tracks, flows and warnings
** in both pairings, every event's set 0; the input's header args stay.
*/
static void check_no_args(const char *rel, int pairing)
{
    tr_trace *t[2];
    for (int k = 0; k < 2; k++) {
        t[k] = tr_trace_new();
        tr_diag diag = {0};
        tr_read_opts ro = {.diag = &diag, .gt_pairing = pairing, .no_args = k};
        tr_error e;
        CHECK_INT(tr_test_load(t[k], path_of(rel), &ro, &e), TR_OK);
        CHECK_INT(diag.warnings, 0);
    }
    tr_instants a, b;
    tr_trace_instants(t[0], &a);
    tr_trace_instants(t[1], &b);
    CHECK_INT(b.n, a.n);
    size_t same = 0, no_set = 0;
    for (size_t i = 0; i < a.n && i < b.n; i++) {
        same += a.ts[i] == b.ts[i] && tr_instant_track(&a, i) == tr_instant_track(&b, i) &&
                strcmp(tr_str_get(t[0], tr_instant_name(&a, i), NULL),
                       tr_str_get(t[1], tr_instant_name(&b, i), NULL)) == 0 &&
                tr_instant_bytes(&a, i) == tr_instant_bytes(&b, i);
        no_set += b.args[i] == 0;
    }
    CHECK_INT(same, a.n);
    CHECK_INT(no_set, b.n);
    tr_slices sa, sb;
    tr_trace_slices(t[0], &sa);
    tr_trace_slices(t[1], &sb);
    CHECK_INT(sb.n, sa.n);
    same = no_set = 0;
    for (size_t i = 0; i < sa.n && i < sb.n; i++) {
        same += sa.ts[i] == sb.ts[i] && sa.track[i] == sb.track[i] &&
                tr_slice_dur(&sa, i) == tr_slice_dur(&sb, i);
        no_set += sb.args[i] == 0;
    }
    CHECK_INT(same, sa.n);
    CHECK_INT(no_set, sb.n);
    CHECK_INT(tr_flow_count(t[1]), tr_flow_count(t[0]));
    CHECK_INT(tr_track_count(t[1]), tr_track_count(t[0]));
    CHECK_INT(tr_input_get(t[1], 0)->lines_skipped, tr_input_get(t[0], 0)->lines_skipped);
    CHECK_INT(tr_input_get(t[1], 0)->meta != 0, tr_input_get(t[0], 0)->meta != 0);
    for (int k = 0; k < 2; k++) tr_trace_free(t[k]);
}

TR_TEST(no_args_same_events)
{
    check_no_args("gt-mlp-4workers-autoshard.log", TR_GT_PAIR_BATCH);
    check_no_args("gt-mlp-4workers-autoshard.log", TR_GT_PAIR_VISUALIZE);
    check_no_args("gt-trace-capture-2workers.log", TR_GT_PAIR_BATCH);
    check_no_args("legacy/gt-105d6f8-console-tape.txt", TR_GT_PAIR_VISUALIZE);
    check_no_args("gt-tiny-visualize_demo-1worker.log", TR_GT_PAIR_VISUALIZE);
}

/* Bad records warn at the same places with no_args. */
TR_TEST(no_args_garbled_line_warns)
{
    tr_trace *t = tr_trace_new();
    tr_test_warns wl = {0};
    tr_diag diag = {tr_test_on_warn, &wl, 0, 0};
    tr_read_opts o = {.diag = &diag, .gt_pairing = TR_GT_PAIR_BATCH, .no_args = 1};
    tr_error e = {0};
    CHECK_INT(read_mem(t, garbled, sizeof garbled - 1, &o, &e), TR_OK);
    CHECK_INT(wl.n, 1);
    CHECK_INT(wl.last.line, 4);
    CHECK_INT(wl.last.col, 12);
    tr_instants in;
    tr_trace_instants(t, &in);
    CHECK_INT(in.n, 2);
    CHECK_INT(in.args[0], 0);
    tr_trace_free(t);
}

/*
** Heads that came before (gt_head_find): heads alike in their first 64
** bytes but not after, the same fields padded otherwise, and a known head
** whose line then goes wrong still read field by field.
*/
TR_TEST(known_heads)
{
    static const char text[] = "1.000s | #1 | WORKER_SEND | WORKER auto_worker_0 | "
                               "LongCommandName_AAAAAAAAAAAAAAAAAAAAAAAAA_1 "
                               "| 9B | x=1\n"
                               "1.001s | #2 | WORKER_SEND | WORKER auto_worker_0 | "
                               "LongCommandName_AAAAAAAAAAAAAAAAAAAAAAAAA_2 "
                               "| 10B | x=1\n"
                               "1.002s | #3 | WORKER_SEND | WORKER auto_worker_0 | "
                               "LongCommandName_AAAAAAAAAAAAAAAAAAAAAAAAA_1 "
                               "| 11B | x=1\n"
                               "1.003s | #4 | WORKER_SEND | WORKER auto_worker_0 | "
                               "LongCommandName_AAAAAAAAAAAAAAAAAAAAAAAAA_22 "
                               "| 12B | x=1\n"
                               "1.004s | #5 | WORKER_SEND  | WORKER auto_worker_0\t | "
                               "LongCommandName_AAAAAAAAAAAAAAAAAAAAAAAAA_2 "
                               "|    13B | x=1\n"
                               "1.005s | #6 | WORKER_SEND | WORKER auto_worker_0 | "
                               "LongCommandName_AAAAAAAAAAAAAAAAAAAAAAAAA_2 "
                               "| 99999999999999999999B | x=1\n"
                               "1.006s | #7 | WORKER_SEND | WORKER auto_worker_0 | "
                               "LongCommandName_AAAAAAAAAAAAAAAAAAAAAAAAA_2 "
                               "| 14B | x=1\n";
    tr_trace *t = tr_trace_new();
    tr_test_warns wl = {0};
    tr_diag diag = {tr_test_on_warn, &wl, 0, 0};
    tr_read_opts o = {.diag = &diag, .gt_pairing = TR_GT_PAIR_BATCH};
    tr_error e = {0};
    CHECK_INT(read_mem(t, text, sizeof text - 1, &o, &e), TR_OK);
    CHECK_INT(wl.n, 1);
    CHECK_INT(wl.last.line, 6);
    tr_instants in;
    tr_trace_instants(t, &in);
    CHECK_INT(in.n, 6);
    char got[256] = "";
    for (size_t i = 0; i < in.n; i++) {
        const char *c = arg_str(t, in.args[i], "command");
        size_t n = strlen(got);
        snprintf(got + n, sizeof got - n, "%s%lld:%s:%lld", i ? " " : "",
                 (long long)arg_int(t, in.args[i], "seq"), c + strlen(c) - 2,
                 (long long)tr_instant_bytes(&in, i));
    }
    CHECK_STR(got, "1:_1:9 2:_2:10 3:_1:11 4:22:12 5:_2:13 7:_2:14");
    size_t same_track = 0;
    for (size_t i = 0; i < in.n; i++)
        same_track += tr_instant_track(&in, i) == tr_instant_track(&in, 0);
    CHECK_INT(same_track, in.n);
    tr_trace_free(t);
}
