/*
** test_merge.c: one job on one timeline (lib/align.c) and inputs read on
** threads then merged (lib/merge.c).
**
** The job: a real GT log and a real Recorder directory (both of 2026-11-22,
** twelve minutes apart), plus a py-spy dump sequence and a Kineto trace of
** rank 1 written here with known times relative to the Recorder's start.
*/
#include "tr_align.h"
#include "tr_load.h"
#include "tr_readers.h"
#include "tr_writers.h"
#include "tr_merge.h"
#include "tr_test.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GT_LOG  "testdata/gt/gt-tiny-visualize_demo-1worker.log"
#define REC_DIR "testdata/recorder/g3-iomix-2r"
#define MS      1000000LL
#define S       1000000000LL

/* GT's "Started: 2026-11-22 17:58:17" read as UTC, and the Recorder's start_ts. */
#define GT_ORIGIN  1795370297000000000LL
#define REC_ORIGIN 1795371025997148160LL

static const char *const dump_text = "Process 4242: python train.py\n"
                                     "Python v3.11.2 (/usr/bin/python3.11)\n"
                                     "\n"
                                     "Thread 4242 (active): \"MainThread\"\n"
                                     "    step (train.py:10)\n"
                                     "    main (train.py:20)\n"
                                     "\n";

/* Two dumps at the Recorder's start + 1 s and + 2 s; the rank is in the file name only. */
static const char *write_dumps(void)
{
    char text[2048];
    long long s0 = REC_ORIGIN / S, ns0 = REC_ORIGIN % S;
    snprintf(text, sizeof text,
             "#tracecat-dump ts=%lld.%09lld pid=4242\n%s"
             "#tracecat-dump ts=%lld.%09lld pid=4242\n%s",
             s0 + 1, ns0, dump_text, s0 + 2, ns0, dump_text);
    return tr_test_write_text(tr_test_tmp("dumps-rank1.txt"), text);
}

/* A Kineto trace of rank 1 whose baseTimeNanoseconds is the Recorder's start + 0.5 s. */
static const char *write_kineto(void)
{
    char text[2048];
    snprintf(text, sizeof text,
             "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 1, "
             "\"world_size\": 2}, \"baseTimeNanoseconds\": %lld, \"displayTimeUnit\": \"ms\",\n"
             "\"traceEvents\": [\n"
             "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", "
             "\"pid\": 4242, \"tid\": 4242, \"ts\": 250.000, \"dur\": 100.000},\n"
             "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 4242, "
             "\"tid\": 4242, \"ts\": 260.000, \"dur\": 20.000}\n"
             "], \"traceName\": \"kineto.json\"}\n",
             REC_ORIGIN + 500 * MS);
    return tr_test_write_text(tr_test_tmp("kineto.json"), text);
}

static tr_trace *load_many(const char *const *paths, size_t n, int threads, const tr_align_opts *al,
                           tr_diag *diag, int *rc, tr_error *e)
{
    tr_trace *t = tr_trace_new();
    tr_load_opts o;
    memset(&o, 0, sizeof o);
    o.readers = tr_readers;
    o.read.diag = diag;
    o.threads = threads;
    o.align = al;
    memset(e, 0, sizeof *e);
    *rc = tr_load_many(t, paths, n, &o, e);
    if (*rc == TR_OK) *rc = tr_trace_freeze(t, e);
    if (*rc != TR_OK) fprintf(stderr, "  load: %s\n", e->msg);
    return t;
}

/* The earliest start of a slice or instant NAME on a process of INPUT with rank RANK (-2 = any). */
static int64_t first_named(const tr_trace *t, const char *name, uint32_t input, int32_t rank)
{
    int64_t best = INT64_MAX;
    tr_slices sl;
    tr_instants in;
    tr_trace_slices(t, &sl);
    tr_trace_instants(t, &in);
    for (int table = 0; table < 2; table++) {
        size_t n = table ? in.n : sl.n;
        for (size_t i = 0; i < n; i++) {
            uint32_t track = table ? tr_instant_track(&in, i) : sl.track[i];
            tr_str nm = table ? tr_instant_name(&in, i) : sl.name[i];
            int64_t ts = table ? in.ts[i] : sl.ts[i];
            const tr_process *p = tr_process_get(t, tr_track_get(t, track)->process);
            if (p->input != input || (rank != -2 && p->rank != rank)) continue;
            if (name && strcmp(tr_str_get(t, nm, NULL), name) != 0) continue;
            if (ts < best) best = ts;
        }
    }
    return best;
}

/* The first sample of INPUT. */
static int64_t first_sample(const tr_trace *t, uint32_t input)
{
    tr_samples sm;
    tr_trace_samples(t, &sm);
    for (size_t i = 0; i < sm.n; i++)
        if (tr_process_get(t, tr_track_get(t, sm.track[i])->process)->input == input)
            return sm.ts[i];
    return INT64_MAX;
}

/* What writer NAME makes of T, as a malloc'd NUL-ended string. */
static char *write_all(const tr_trace *t, const char *name)
{
    static int k;
    char path[1024];
    snprintf(path, sizeof path, "%s/out-%d.%s", tr_test_tmpdir(), k++, name);
    tr_error e = {0};
    tr_write_opts wo = {.filter = NULL};
    CHECK(tr_write_trace(tr_writer_find(name), t, path, &wo, &e) == TR_OK);
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f) return strdup("");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    CHECK(buf && fread(buf, 1, (size_t)n, f) == (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* ---- clocks ---- */

TR_TEST(zones)
{
    int64_t east;
    CHECK(tr_tz_offset("UTC", 0, &east) == 0);
    CHECK_INT(east, 0);
    CHECK(tr_tz_offset("+05:30", 0, &east) == 0);
    CHECK_INT(east, 5 * 3600 + 30 * 60);
    CHECK(tr_tz_offset("-0800", 0, &east) == 0);
    CHECK_INT(east, -8 * 3600);
    CHECK(tr_tz_offset("+09", 0, &east) == 0);
    CHECK_INT(east, 9 * 3600);
    CHECK(tr_tz_offset("+25:00", 0, &east) < 0);
    CHECK(tr_tz_offset("Nowhere/Bogus", 0, &east) < 0);
    CHECK(tr_tz_offset("../etc/passwd", 0, &east) < 0);
    FILE *zi = fopen("/usr/share/zoneinfo/Europe/Berlin", "rb");
    if (zi) {
        fclose(zi);
        /* 2026-07-01 12:00 is summer time in Berlin, 2026-01-01 winter time */
        CHECK(tr_tz_offset("Europe/Berlin", 1782907200, &east) == 0);
        CHECK_INT(east, 7200);
        CHECK(tr_tz_offset("Europe/Berlin", 1767268800, &east) == 0);
        CHECK_INT(east, 3600);
    }
}

/* ---- zoneinfo files, read without touching TZ ---- */

static void put_be(FILE *f, uint64_t v, int bytes)
{
    for (int i = bytes - 1; i >= 0; i--) fputc((int)(v >> (8 * i)) & 0xff, f);
}

static void tzif_header(FILE *f, char version, uint32_t timecnt, uint32_t typecnt)
{
    static const char zero[15];
    fwrite("TZif", 1, 4, f);
    fputc(version, f);
    fwrite(zero, 1, 15, f);
    uint32_t counts[6] = {0, 0, 0, timecnt, typecnt, 1}; /* isut, isstd, leap, time, type, char */
    for (int i = 0; i < 6; i++) put_be(f, counts[i], 4);
}

/* Zone NAME under DIR: N transitions TIMES[i] to type IDX[i], the offsets OFFS, a POSIX footer. */
static void write_zone(const char *dir, const char *name, int v2, const int64_t *times,
                       const uint8_t *idx, uint32_t n, const int32_t *offs, uint32_t ntypes,
                       const char *footer)
{
    char path[512];
    CHECK(snprintf(path, sizeof path, "%s/%s", dir, name) < (int)sizeof path);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (!f) return;
    if (v2) { /* a v1 part with one type, then the 64-bit part */
        tzif_header(f, '2', 0, 1);
        put_be(f, 0, 6);
        fputc(0, f);
    }
    tzif_header(f, v2 ? '2' : '\0', n, ntypes);
    for (uint32_t i = 0; i < n; i++) put_be(f, (uint64_t)times[i], v2 ? 8 : 4);
    if (n) fwrite(idx, 1, n, f);
    for (uint32_t i = 0; i < ntypes; i++) {
        put_be(f, (uint32_t)offs[i], 4);
        put_be(f, 0, 2);
    }
    fputc(0, f);
    if (v2) fprintf(f, "\n%s\n", footer);
    fclose(f);
}

TR_TEST(zone_files)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/zoneinfo", tr_test_tmpdir());
    mkdir(dir, 0755);
    /* 2026-07-01 12:00, 2026-01-01 12:00 and 2040-07-01 12:00 as local seconds */
    const int64_t jul26 = 1782907200, jan26 = 1767268800, jul40 = 2224756800;
    int64_t east;
    static const int32_t cet[] = {3600, 7200};
    /* no transitions at all: the footer's rule decides */
    write_zone(dir, "Rule", 1, NULL, NULL, 0, cet, 2, "CET-1CEST,M3.5.0,M10.5.0/3");
    CHECK(tr_tz_offset_in("Rule", dir, jul26, &east) == 0);
    CHECK_INT(east, 7200);
    CHECK(tr_tz_offset_in("Rule", dir, jan26, &east) == 0);
    CHECK_INT(east, 3600);
    CHECK(tr_tz_offset_in("Rule", dir, jul40, &east) == 0);
    CHECK_INT(east, 7200);
    /* the last Sunday of March 2026 is the 29th: at 01:00 local it is winter, at 04:00 summer */
    CHECK(tr_tz_offset_in("Rule", dir, 1774749600 - 3600, &east) == 0);
    CHECK_INT(east, 3600);
    CHECK(tr_tz_offset_in("Rule", dir, 1774749600 + 7200, &east) == 0);
    CHECK_INT(east, 7200);
    /* 02:30 that day is skipped: the offset after the change; 02:30 on 2026-10-25 comes
    ** twice: the later offset, winter's */
    CHECK(tr_tz_offset_in("Rule", dir, 1774749600 + 1800, &east) == 0);
    CHECK_INT(east, 7200);
    CHECK(tr_tz_offset_in("Rule", dir, 1792895400, &east) == 0);
    CHECK_INT(east, 3600);
    /* southern summer spans the new year */
    static const int32_t aus[] = {36000, 39600};
    write_zone(dir, "South", 1, NULL, NULL, 0, aus, 2, "AEST-10AEDT,M10.1.0,M4.1.0/3");
    CHECK(tr_tz_offset_in("South", dir, jan26, &east) == 0);
    CHECK_INT(east, 39600);
    CHECK(tr_tz_offset_in("South", dir, jul26, &east) == 0);
    CHECK_INT(east, 36000);
    /* a version 1 file: +1h from 2001-09-09 to 2033-05-18, none before or after */
    static const int64_t times[] = {1000000000, 2000000000};
    static const uint8_t idx[] = {1, 0};
    static const int32_t offs[] = {0, 3600};
    write_zone(dir, "Old", 0, times, idx, 2, offs, 2, NULL);
    CHECK(tr_tz_offset_in("Old", dir, 1500000000, &east) == 0);
    CHECK_INT(east, 3600);
    CHECK(tr_tz_offset_in("Old", dir, 500000000, &east) == 0);
    CHECK_INT(east, 0);
    CHECK(tr_tz_offset_in("Old", dir, 2100000000, &east) == 0);
    CHECK_INT(east, 0);
    /* a file without local time types, no file, a name climbing out */
    write_zone(dir, "Text", 0, NULL, NULL, 0, offs, 0, NULL);
    CHECK(tr_tz_offset_in("Text", dir, jan26, &east) < 0);
    CHECK(tr_tz_offset_in("Missing", dir, jan26, &east) < 0);
    CHECK(tr_tz_offset_in("../zoneinfo/Rule", dir, jan26, &east) < 0);
    /* past the transitions a fat file lists (2037), its footer */
    FILE *zi = fopen("/usr/share/zoneinfo/Europe/Berlin", "rb");
    if (zi) {
        fclose(zi);
        CHECK(tr_tz_offset("Europe/Berlin", jul40, &east) == 0);
        CHECK_INT(east, 7200);
    }
}

TR_TEST(rank_from_path)
{
    CHECK_INT(tr_rank_from_path("rank3.json"), 3);
    CHECK_INT(tr_rank_from_path("/x/y/trace_rank_12.pt.trace.json"), 12);
    CHECK_INT(tr_rank_from_path("sampled_rank-0.json.gz"), 0);
    CHECK_INT(tr_rank_from_path("run/rank=7/part.db"), 7);
    CHECK_INT(tr_rank_from_path("Rank.5/dumps.txt"), 5);
    CHECK_INT(tr_rank_from_path("rank1/rank2.txt"), 2); /* the file's own name wins */
    CHECK_INT(tr_rank_from_path("ranks/frank3.txt"), -1);
    CHECK_INT(tr_rank_from_path("dumps.txt"), -1);
    CHECK_INT(tr_rank_from_path("rank99999999999.json"), -1);
}

/* Alone, an input keeps its times; its clock is still described. */
TR_TEST(single_input_as_is)
{
    tr_error e;
    int rc;
    tr_diag diag = {0};
    const char *paths[] = {tr_test_src(GT_LOG)};
    tr_trace *t = load_many(paths, 1, 0, NULL, &diag, &rc, &e);
    CHECK_INT(rc, TR_OK);
    const tr_input_info *in = tr_input_get(t, 0);
    CHECK_INT(in->placed, TR_PLACED_AS_IS);
    CHECK_INT(in->offset_ns, 0);
    CHECK(in->origin_unix_ns == INT64_MIN); /* no --tz: the local time stays unread */
    CHECK_INT(in->origin_precision_ns, S);
    CHECK_STR(tr_str_get(t, in->origin_from, NULL),
              "GT header 'Started:' (local time, whole seconds)");
    CHECK_INT(first_named(t, NULL, 0, -2), 107 * MS);
    tr_trace_free(t);

    /* --tz reads it, and still moves nothing */
    tr_align_opts al = {.tz = "+01:00"};
    t = load_many(paths, 1, 0, &al, &diag, &rc, &e);
    CHECK_INT(rc, TR_OK);
    in = tr_input_get(t, 0);
    CHECK_INT(in->origin_unix_ns, GT_ORIGIN - 3600 * S);
    CHECK_STR(tr_str_get(t, in->origin_from, NULL),
              "GT header 'Started:' (local time, whole seconds), zone +01:00");
    CHECK_INT(first_named(t, NULL, 0, -2), 107 * MS);
    tr_trace_free(t);

    al.tz = "Not/AZone";
    t = load_many(paths, 1, 0, &al, &diag, &rc, &e);
    CHECK_INT(rc, TR_FAIL);
    CHECK_INT(e.code, TR_E_USAGE);
    tr_trace_free(t);
}

/* ---- the job ---- */

TR_TEST(job_by_wall_clock)
{
    tr_error e;
    int rc;
    tr_diag diag = {0};
    const char *paths[] = {tr_test_src(GT_LOG), tr_test_src(REC_DIR), write_dumps(),
                           write_kineto()};
    tr_align_opts al = {.tz = "UTC"};
    tr_trace *t = load_many(paths, 4, 2, &al, &diag, &rc, &e);
    CHECK_INT(rc, TR_OK);
    CHECK_INT(tr_input_count(t), 4);
    /* The zero: GT's first event, 107 ms after its dispatcher started. */
    int64_t zero = GT_ORIGIN + 107 * MS;
    CHECK_INT(tr_timeline_origin(t), zero);
    const int64_t want_off[4] = {-107 * MS, REC_ORIGIN - zero, REC_ORIGIN + S - zero,
                                 REC_ORIGIN + 500 * MS - zero};
    /* GT states whole seconds, Recorder microseconds, the dump markers and Kineto nanoseconds */
    const int64_t want_prec[4] = {S, 1000, 1, 1};
    for (uint32_t i = 0; i < 4; i++) {
        const tr_input_info *in = tr_input_get(t, i);
        CHECK_INT(in->placed, TR_PLACED_WALL);
        CHECK_INT(in->offset_ns, want_off[i]);
        CHECK_INT(in->origin_precision_ns, want_prec[i]);
    }
    CHECK_STR(tr_str_get(t, tr_input_get(t, 3)->origin_from, NULL), "Kineto baseTimeNanoseconds");

    /* Known events where the clocks put them. */
    CHECK_INT(first_named(t, NULL, 0, -2), 0);
    CHECK_INT(first_named(t, "open", 1, 0), REC_ORIGIN - zero + 597900);
    CHECK_INT(first_sample(t, 2), REC_ORIGIN + S - zero);
    CHECK_INT(first_named(t, "ProfilerStep#1", 3, -2), REC_ORIGIN + 500 * MS + 250000 - zero);
    /* the rank-1 op sits 0.5 s + 250 us after the Recorder's start, whatever the zero */
    CHECK_INT(first_named(t, "ProfilerStep#1", 3, -2) - (first_named(t, "open", 1, 0) - 597900),
              500 * MS + 250000);

    /* Rank 1: the Recorder's rank, the dumps (by file name) and Kineto's distributedInfo. */
    size_t np = tr_process_count(t);
    uint32_t *group = calloc(np, sizeof *group);
    tr_process_groups(t, group);
    uint32_t rank1 = TR_NONE;
    int inputs_in_rank1[4] = {0};
    for (size_t p = 0; p < np; p++) {
        const tr_process *pr = tr_process_get(t, (uint32_t)p);
        if (pr->input == 0) {
            CHECK_INT(pr->rank, -1);
            CHECK_INT(group[p], p);
        }
        if (pr->rank == 0) CHECK_INT(group[p], p); /* rank 0 is only the Recorder's */
        if (pr->rank != 1) continue;
        if (rank1 == TR_NONE) rank1 = group[p];
        CHECK_INT(group[p], rank1);
        inputs_in_rank1[pr->input] = 1;
    }
    CHECK(!inputs_in_rank1[0] && inputs_in_rank1[1] && inputs_in_rank1[2] && inputs_in_rank1[3]);
    free(group);

    /* The Chrome writer makes the group one process named by its rank. */
    char *json = write_all(t, "chrome");
    CHECK(strstr(json, "\"name\":\"rank 1\",\"rank\":1}") != NULL);
    CHECK(strstr(json, "\"name\":\"rank 0\",\"rank\":0}") == NULL);
    CHECK(strstr(json, "\"placed\":\"wall clock\",\"offset_ns\":-107000000") != NULL);
    free(json);
    tr_trace_free(t);
}

/* Read on two threads or one: the same trace, byte for byte. */
TR_TEST(parallel_equals_sequential)
{
    tr_error e;
    int rc;
    tr_diag d1 = {0}, d2 = {0};
    const char *paths[] = {tr_test_src(GT_LOG),
                           tr_test_src(REC_DIR),
                           write_dumps(),
                           write_kineto(),
                           tr_test_src("testdata/pyspy/11_sglang_multiprocess_xargs_concat.txt"),
                           tr_test_src("testdata/chrome/hta/trace_filter/sampled_rank-0.json.gz"),
                           tr_test_src("testdata/pyspy/01_json_locals_pyspy505.json"),
                           tr_test_src("testdata/gt/gt-server-2workers.log"),
                           tr_test_src("testdata/recorder/iomix-4r")};
    size_t n = sizeof paths / sizeof *paths;
    tr_trace *a = load_many(paths, n, 1, NULL, &d1, &rc, &e);
    CHECK_INT(rc, TR_OK);
    tr_trace *b = load_many(paths, n, 2, NULL, &d2, &rc, &e);
    CHECK_INT(rc, TR_OK);
    CHECK_INT(d1.warnings, d2.warnings);
    CHECK_INT(tr_str_count(a), tr_str_count(b));
    CHECK_INT(tr_frame_count(a), tr_frame_count(b));
    CHECK_INT(tr_stack_count(a), tr_stack_count(b));
    CHECK_INT(tr_flow_count(a), tr_flow_count(b));
    const char *writers[] = {"chrome", "lines", "folded"};
    for (size_t w = 0; w < 3; w++) {
        char *x = write_all(a, writers[w]), *y = write_all(b, writers[w]);
        CHECK(strlen(x) > 1000);
        CHECK(strcmp(x, y) == 0);
        free(x);
        free(y);
    }
    tr_trace_free(a);
    tr_trace_free(b);
}

/* tr_trace_merge by itself: ids as a sequential read gives them. */
TR_TEST(merge_ids)
{
    tr_error e = {0};
    tr_diag diag = {0};
    tr_load_opts o;
    memset(&o, 0, sizeof o);
    o.readers = tr_readers;
    o.read.diag = &diag;
    const char *p1 = tr_test_src("testdata/pyspy/11_sglang_multiprocess_xargs_concat.txt");
    const char *p2 = tr_test_src("testdata/pyspy/06_pytorch135703_xargs_pgrep_truncated.txt");
    tr_trace *seq = tr_trace_new(), *x = tr_trace_new(), *y = tr_trace_new();
    CHECK(tr_load(seq, p1, &o, &e) == TR_OK && tr_load(seq, p2, &o, &e) == TR_OK);
    CHECK(tr_load(x, p1, &o, &e) == TR_OK && tr_load(y, p2, &o, &e) == TR_OK);
    CHECK(tr_trace_merge(x, y, &e) == TR_OK);
    CHECK_INT(tr_str_count(x), tr_str_count(seq));
    CHECK_INT(tr_frame_count(x), tr_frame_count(seq));
    CHECK_INT(tr_stack_count(x), tr_stack_count(seq));
    CHECK_INT(tr_process_count(x), tr_process_count(seq));
    CHECK_INT(tr_track_count(x), tr_track_count(seq));
    for (size_t s = 0; s < tr_str_count(seq); s++)
        CHECK_STR(tr_str_get(x, (tr_str)s, NULL), tr_str_get(seq, (tr_str)s, NULL));
    for (size_t f = 0; f < tr_frame_count(seq); f++) {
        const tr_frame *a = tr_frame_get(x, (uint32_t)f), *b = tr_frame_get(seq, (uint32_t)f);
        CHECK(a->function == b->function && a->file == b->file && a->line == b->line);
    }
    CHECK(tr_trace_freeze(seq, &e) == TR_OK && tr_trace_freeze(x, &e) == TR_OK);
    char *a = write_all(seq, "chrome"), *b = write_all(x, "chrome");
    CHECK(strcmp(a, b) == 0);
    free(a);
    free(b);
    /* merging into or from a frozen trace is refused */
    CHECK(tr_trace_merge(x, y, &e) < 0);
    tr_trace_free(seq);
    tr_trace_free(x);
    tr_trace_free(y);
}

/*
** Merges of traces whose arg sets are sealed (args_raw 1: every whole chunk):
** the chunks are taken whole, read through their trace's shapes and strings,
** and a merged trace merged again reads them through both renamings.
*/
TR_TEST(merge_sealed_args)
{
    tr_error e = {0};
    tr_diag diag = {0};
    tr_load_opts o;
    memset(&o, 0, sizeof o);
    o.readers = tr_readers;
    o.read.diag = &diag;
    o.args_raw = 1;
    const char *p[] = {tr_test_src("testdata/chrome/catapult/x_event_trace.json"),
                       tr_test_src("testdata/chrome/catapult/flow.json"),
                       tr_test_src("testdata/gt/gt-mlp-4workers-autoshard.log")};
    tr_trace *seq = tr_trace_new(), *x = tr_trace_new(), *y = tr_trace_new(), *z = tr_trace_new();
    for (size_t i = 0; i < 3; i++) CHECK(tr_load(seq, p[i], &o, &e) == TR_OK);
    CHECK(tr_load(x, p[0], &o, &e) == TR_OK);
    CHECK(tr_load(y, p[1], &o, &e) == TR_OK);
    CHECK(tr_load(z, p[2], &o, &e) == TR_OK);
    CHECK(tr_trace_merge(y, z, &e) == TR_OK);
    CHECK(tr_trace_merge(x, y, &e) == TR_OK);
    CHECK(tr_trace_freeze(seq, &e) == TR_OK && tr_trace_freeze(x, &e) == TR_OK);
    const char *writers[] = {"chrome", "lines"};
    for (size_t w = 0; w < 2; w++) {
        char *a = write_all(seq, writers[w]), *b = write_all(x, writers[w]);
        CHECK(strlen(a) > 100000);
        CHECK(strcmp(a, b) == 0);
        free(a);
        free(b);
    }
    tr_trace_free(seq);
    tr_trace_free(x);
    tr_trace_free(y);
    tr_trace_free(z);
}

/* --align FILE=OFFSET, and inputs without a clock. */
TR_TEST(align_by_hand_and_guess)
{
    tr_error e;
    int rc;
    tr_diag diag = {0};
    const char *nodump = tr_test_src("testdata/pyspy/06_pytorch135703_xargs_pgrep_truncated.txt");
    const char *paths[] = {tr_test_src(GT_LOG), tr_test_src(REC_DIR), nodump};
    tr_align_offset off = {.path = "gt-tiny-visualize_demo-1worker.log", .offset_ns = 5 * S};
    tr_align_opts al = {.offsets = &off, .n_offsets = 1};
    tr_trace *t = load_many(paths, 3, 2, &al, &diag, &rc, &e);
    CHECK_INT(rc, TR_OK);
    CHECK_INT(tr_input_get(t, 0)->placed, TR_PLACED_MANUAL);
    CHECK_INT(tr_input_get(t, 0)->offset_ns, 5 * S);
    CHECK_INT(first_named(t, NULL, 0, -2), 5 * S + 107 * MS);
    /* The Recorder is the only true clock: its first event is the zero. */
    CHECK_INT(tr_input_get(t, 1)->placed, TR_PLACED_WALL);
    CHECK_INT(first_named(t, NULL, 1, -2), 0);
    CHECK_INT(tr_timeline_origin(t), REC_ORIGIN + 597900);
    /* py-spy text with no markers has no clock */
    CHECK_INT(tr_input_get(t, 2)->placed, TR_PLACED_GUESS);
    CHECK(tr_align_is_guess(tr_input_get(t, 2)->placed));
    CHECK_INT(tr_input_get(t, 2)->offset_ns, 0);
    tr_trace_free(t);

    /* no --tz: GT's local time is read in this machine's zone, and flagged */
    const char *two[] = {tr_test_src(GT_LOG), tr_test_src(REC_DIR)};
    t = load_many(two, 2, 1, NULL, &diag, &rc, &e);
    CHECK_INT(rc, TR_OK);
    CHECK_INT(tr_input_get(t, 0)->placed, TR_PLACED_GUESS_ZONE);
    CHECK(strstr(tr_str_get(t, tr_input_get(t, 0)->origin_from, NULL), "a guess") != NULL);
    tr_trace_free(t);

    off.path = "no-such-file.log";
    t = load_many(paths, 3, 1, &al, &diag, &rc, &e);
    CHECK_INT(rc, TR_FAIL);
    CHECK_INT(e.code, TR_E_USAGE);
    tr_trace_free(t);
}

/* --align-on NAME: ranks line up on the first slice of that name. */
TR_TEST(align_on_event)
{
    tr_error e;
    int rc;
    tr_diag diag = {0};
    const char *paths[] = {tr_test_src(REC_DIR)};
    tr_trace *t = load_many(paths, 1, 1, NULL, &diag, &rc, &e);
    CHECK_INT(rc, TR_OK);
    int64_t r0 = first_named(t, "MPI_File_open", 0, 0), r1 = first_named(t, "MPI_File_open", 0, 1);
    CHECK(r0 != r1 && r0 != INT64_MAX && r1 != INT64_MAX);
    int64_t late = r0 > r1 ? r0 : r1;
    int64_t open0 = first_named(t, "open", 0, 0);
    tr_trace_free(t);

    tr_align_opts al = {.align_on = "MPI_File_open", .diag = &diag};
    t = load_many(paths, 1, 2, &al, &diag, &rc, &e);
    CHECK_INT(rc, TR_OK);
    CHECK_INT(first_named(t, "MPI_File_open", 0, 0), late);
    CHECK_INT(first_named(t, "MPI_File_open", 0, 1), late);
    /* a rank moves as a whole */
    CHECK_INT(first_named(t, "open", 0, 0) - open0, late - r0);
    CHECK_INT(tr_input_get(t, 0)->placed, TR_PLACED_EVENT);
    for (size_t p = 0; p < tr_process_count(t); p++) {
        const tr_process *pr = tr_process_get(t, (uint32_t)p);
        CHECK_INT(pr->offset_ns, late - (pr->rank == 0 ? r0 : r1));
    }
    tr_trace_free(t);

    /* Slices made from stack samples are named by their frame. */
    const char *job[] = {write_dumps(), write_kineto()};
    al.align_on = "step (train.py:10)";
    t = load_many(job, 2, 2, &al, &diag, &rc, &e);
    CHECK_INT(rc, TR_OK);
    CHECK_INT(tr_input_get(t, 0)->placed, TR_PLACED_EVENT);
    CHECK_INT(tr_input_get(t, 1)->placed, TR_PLACED_WALL); /* no "step" in it */
    tr_trace_free(t);

    /* a name nobody has is a warning, and nothing moves */
    uint64_t before = diag.warnings;
    al.align_on = "NoSuchEvent";
    t = load_many(paths, 1, 1, &al, &diag, &rc, &e);
    CHECK_INT(rc, TR_OK);
    CHECK_INT(diag.warnings, before + 1);
    CHECK_INT(first_named(t, "MPI_File_open", 0, 0), r0);
    tr_trace_free(t);
}

/* Kineto rank files on one epoch clock, plus dumps of rank 0 named by their file. */
TR_TEST(kineto_ranks_epoch)
{
    tr_error e;
    int rc;
    tr_diag diag = {0};
    const char *k0 = tr_test_src("testdata/chrome/hta/trace_filter/sampled_rank-0.json.gz");
    const char *k1 = tr_test_src("testdata/chrome/hta/trace_filter/sampled_rank-1.json.gz");
    const char *two[] = {k0, k1};
    tr_trace *t = load_many(two, 2, 2, NULL, &diag, &rc, &e);
    CHECK_INT(rc, TR_OK);
    /* one clock already: nothing moves */
    int64_t kfirst = first_named(t, NULL, 0, -2);
    CHECK(kfirst > 1682725897 * S);
    CHECK_INT(tr_input_get(t, 0)->placed, TR_PLACED_AS_IS);
    CHECK_INT(tr_input_get(t, 1)->placed, TR_PLACED_AS_IS);
    CHECK_INT(tr_input_get(t, 0)->origin_precision_ns, 1000);
    tr_trace_free(t);

    char text[1024];
    snprintf(text, sizeof text, "#tracecat-dump ts=%lld.000000000 pid=7\n%s",
             (long long)(kfirst / S + 1), dump_text);
    const char *dumps = tr_test_write_text(tr_test_tmp("rank0.txt"), text);
    const char *three[] = {k0, k1, dumps};
    t = load_many(three, 3, 2, NULL, &diag, &rc, &e);
    CHECK_INT(rc, TR_OK);
    /* now the job starts at the first Kineto event */
    CHECK_INT(first_named(t, NULL, 0, -2), 0);
    CHECK_INT(tr_timeline_origin(t), kfirst);
    CHECK_INT(first_sample(t, 2), (kfirst / S + 1) * S - kfirst);
    size_t np = tr_process_count(t);
    uint32_t *group = calloc(np, sizeof *group);
    tr_process_groups(t, group);
    int grouped_dump = 0;
    for (size_t p = 0; p < np; p++) {
        const tr_process *pr = tr_process_get(t, (uint32_t)p);
        if (pr->input == 2) {
            CHECK_INT(pr->rank, 0);
            grouped_dump = group[p] != p;
        }
    }
    CHECK(grouped_dump);
    free(group);
    tr_trace_free(t);
}

/* A failing input ends the read where a sequential read ends it. */
TR_TEST(parallel_error_in_order)
{
    tr_error e;
    int rc;
    tr_diag diag = {0};
    const char *paths[] = {tr_test_src(GT_LOG), tr_test_src("testdata/no-such-file.log"),
                           tr_test_src(REC_DIR)};
    tr_trace *t = load_many(paths, 3, 2, NULL, &diag, &rc, &e);
    CHECK(rc < 0);
    CHECK(strstr(e.file, "no-such-file.log") != NULL);
    tr_trace_free(t);
}
