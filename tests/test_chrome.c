/*
** test_chrome.c: the Chrome Trace Event reader, phase by phase, on bad input,
** and read -> write -> read over every sample of testdata/chrome.
*/
#include "tr_test.h"
#include "tr_load.h"
#include "tr_readers.h"
#include "tr_writers.h"
#include "tr_text.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

extern const tr_reader tr_reader_chrome;
extern const tr_writer tr_writer_chrome;

/* Reads the N bytes at TEXT as a Chrome trace; RC gets the read's status. */
static tr_trace *read_text(const char *text, size_t n, int strict, tr_test_warns *wl, int *rc,
                           tr_error *e)
{
    tr_trace *t = tr_trace_new();
    tr_source *src;
    tr_diag d = {tr_test_on_warn, wl, strict, 0};
    tr_read_opts o;
    memset(&o, 0, sizeof o);
    o.diag = &d;
    *rc = tr_source_open_memory(&src, "t.json", text, n, e);
    if (*rc != TR_OK) return t;
    tr_input *in;
    *rc = tr_source_next(src, &in, e);
    if (*rc == TR_OK) {
        uint32_t input = tr_input_add(t, "t.json", "chrome");
        *rc = tr_read_stream(&tr_reader_chrome, in, t, input, &o, e);
    }
    tr_source_close(src);
    if (*rc == TR_OK) *rc = tr_trace_freeze(t, e);
    return t;
}

static tr_trace *read_ok(const char *text, tr_test_warns *wl)
{
    int rc;
    tr_error e = {0};
    tr_trace *t = read_text(text, strlen(text), 0, wl, &rc, &e);
    if (rc != TR_OK) fprintf(stderr, "  error: %s\n", e.msg);
    CHECK_INT(rc, TR_OK);
    return t;
}

static const char *S(const tr_trace *t, tr_str s)
{
    return tr_str_get(t, s, NULL);
}

/* The args of SET as compact JSON text (static buffer). */
static const char *args_text(const tr_trace *t, uint32_t set)
{
    static tr_buf b;
    if (!b.p) tr_buf_init(&b, 0);
    tr_buf_reset(&b);
    tr_buf_add_json_args(&b, t, set);
    return b.p;
}

TR_TEST(probe)
{
    const char *yes[] = {"[{\"ph\":\"X\"", "{\"traceEvents\":[", "\xef\xbb\xbf [ {"};
    const char *no[] = {"0.1s | #1 | RECV", "hello", ""};
    for (size_t i = 0; i < 3; i++) {
        tr_peek pk = {"x", (const unsigned char *)yes[i], strlen(yes[i]), 1, NULL, 0};
        CHECK(tr_reader_chrome.probe(&pk) > 0);
        tr_peek pn = {"x", (const unsigned char *)no[i], strlen(no[i]), 1, NULL, 0};
        CHECK_INT(tr_reader_chrome.probe(&pn), 0);
    }
}

TR_TEST(phases_be_x)
{
    tr_test_warns wl = {0};
    tr_trace *t =
        read_ok("[{\"ph\":\"B\",\"name\":\"a\",\"pid\":1,\"tid\":2,\"ts\":10,\"args\":{\"x\":1}},"
                "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":2,\"ts\":11.5,\"dur\":2},"
                "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":20,\"args\":{\"y\":\"z\"}}]",
                &wl);
    tr_slices s;
    tr_trace_slices(t, &s);
    CHECK_INT(s.n, 2);
    CHECK_STR(S(t, s.name[0]), "a");
    CHECK_INT(s.ts[0], 10000); /* microseconds on the trace's clock, as ns */
    CHECK_INT(tr_slice_dur(&s, 0), 10000);
    CHECK_STR(args_text(t, s.args[0]), "{\"x\":1,\"y\":\"z\"}"); /* E args merged */
    CHECK_INT(s.ts[1], 11500);
    CHECK_INT(tr_slice_dur(&s, 1), 2000);
    CHECK_INT(s.depth[1], 1);
    CHECK_INT(wl.n, 0);
    tr_trace_free(t);
}

/*
** B/E pairs state their nesting by their order, as a stack: an outer and an
** inner scope that start and end on the same microsecond (the inner ends
** first) are outer > inner, as in Perfetto's importer; the model's ties
** (one start, one length) go by input order, and the inner was added first.
** Deeper chains, a zero-length sibling, ones still open at the end, and an
** X that starts inside a B of its start (it comes after that B's), and
** nestable async b/e of one id, too.
*/
TR_TEST(be_same_start_nesting)
{
    tr_test_warns wl = {0};
    tr_trace *t = read_ok(
        "[{\"ph\":\"B\",\"name\":\"outer\",\"pid\":1,\"tid\":1,\"ts\":10},"
        "{\"ph\":\"B\",\"name\":\"mid\",\"pid\":1,\"tid\":1,\"ts\":10},"
        "{\"ph\":\"B\",\"name\":\"inner\",\"pid\":1,\"tid\":1,\"ts\":10},"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":20},{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":20},"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":20},"
        "{\"ph\":\"B\",\"name\":\"open\",\"pid\":1,\"tid\":1,\"ts\":30},"
        "{\"ph\":\"B\",\"name\":\"closed\",\"pid\":1,\"tid\":1,\"ts\":30},"
        "{\"ph\":\"B\",\"name\":\"leaf\",\"pid\":1,\"tid\":1,\"ts\":30},"
        "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":30},{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":40},"
        "{\"ph\":\"X\",\"name\":\"last\",\"pid\":1,\"tid\":1,\"ts\":50,\"dur\":1},"
        "{\"ph\":\"B\",\"name\":\"b over\",\"pid\":2,\"tid\":1,\"ts\":60},"
        "{\"ph\":\"X\",\"name\":\"x\",\"pid\":2,\"tid\":1,\"ts\":60,\"dur\":10},"
        "{\"ph\":\"B\",\"name\":\"b under\",\"pid\":2,\"tid\":1,\"ts\":60},"
        "{\"ph\":\"E\",\"pid\":2,\"tid\":1,\"ts\":70},{\"ph\":\"E\",\"pid\":2,\"tid\":1,\"ts\":70},"
        "{\"ph\":\"b\",\"name\":\"a out\",\"cat\":\"c\",\"id\":1,\"pid\":3,\"tid\":1,\"ts\":80},"
        "{\"ph\":\"b\",\"name\":\"a in\",\"cat\":\"c\",\"id\":1,\"pid\":3,\"tid\":1,\"ts\":80},"
        "{\"ph\":\"e\",\"name\":\"a in\",\"cat\":\"c\",\"id\":1,\"pid\":3,\"tid\":1,\"ts\":90},"
        "{\"ph\":\"e\",\"name\":\"a out\",\"cat\":\"c\",\"id\":1,\"pid\":3,\"tid\":1,\"ts\":90}]",
        &wl);
    CHECK_INT(wl.n, 1); /* "open" never ended */
    tr_slices s;
    tr_trace_slices(t, &s);
    /* ... and an X between two B's of its start and end (Catapult's "B/E over X" sample) */
    static const char *const names[] = {"outer", "mid",    "inner", "open",    "closed", "leaf",
                                        "last",  "b over", "x",     "b under", "a out",  "a in"};
    static const int depth[] = {0, 1, 2, 0, 1, 2, 1, 0, 1, 2, 0, 1};
    CHECK_INT(s.n, 12);
    for (size_t i = 0; i < s.n && i < 12; i++) {
        CHECK_STR(S(t, s.name[i]), names[i]);
        CHECK_INT(s.depth[i], depth[i]);
    }
    tr_trace_free(t);
}

TR_TEST(unmatched_be)
{
    tr_test_warns wl = {0};
    tr_trace *t = read_ok("[{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":1},"
                          "{\"ph\":\"B\",\"name\":\"open\",\"pid\":1,\"tid\":1,\"ts\":2},"
                          "{\"ph\":\"X\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":4}]",
                          &wl);
    CHECK_INT(wl.n, 2); /* the lone E, the B never closed */
    char first[700];
    tr_error_format(&wl.first, first, sizeof first);
    CHECK(strstr(first, "byte 1:") != NULL);
    CHECK(strstr(first, "no open B") != NULL);
    tr_slices s;
    tr_trace_slices(t, &s);
    CHECK_INT(s.n, 2);
    CHECK_STR(S(t, s.name[0]), "open");
    CHECK_INT(tr_slice_dur(&s, 0), 5000); /* closed at the input's end */
    CHECK_STR(args_text(t, s.args[0]), "{\"unfinished\":1}");
    tr_trace_free(t);
}

TR_TEST(instants_counters)
{
    tr_test_warns wl = {0};
    tr_trace *t = read_ok(
        "{\"traceEvents\":[{\"ph\":\"i\",\"s\":\"g\",\"name\":\"g\",\"ts\":1,\"pid\":1},"
        "{\"ph\":\"I\",\"name\":\"t\",\"ts\":2,\"pid\":1,\"tid\":1},"
        "{\"ph\":\"R\",\"name\":\"mark\",\"ts\":3,\"pid\":1,\"tid\":1},"
        "{\"ph\":\"C\",\"name\":\"mem\",\"ts\":4,\"pid\":1,\"args\":{\"heap\":5,\"mem\":\"6.5\"}},"
        "{\"ph\":\"C\",\"name\":\"c\",\"id\":7,\"ts\":5,\"pid\":1,\"args\":{\"v\":1}}]}",
        &wl);
    tr_instants in;
    tr_trace_instants(t, &in);
    CHECK_INT(in.n, 3);
    CHECK_INT(tr_instant_scope(&in, 0), TR_SCOPE_GLOBAL);
    CHECK_INT(tr_instant_scope(&in, 1), TR_SCOPE_THREAD);
    tr_counters c;
    tr_trace_counters(t, &c);
    CHECK_INT(c.n, 3);
    CHECK_STR(S(t, tr_track_get(t, c.track[0])->name), "mem heap");
    CHECK(c.value[0] == 5.0);
    CHECK_STR(S(t, tr_track_get(t, c.track[1])->name), "mem"); /* key repeats the name */
    CHECK(c.value[1] == 6.5);
    CHECK_STR(S(t, tr_track_get(t, c.track[2])->name), "c id: 7 v");
    CHECK_INT(wl.n, 0);
    tr_trace_free(t);
}

TR_TEST(metadata_after_events)
{
    tr_test_warns wl = {0};
    tr_trace *t = read_ok(
        "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"k\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,"
        "\"ts\":1,\"dur\":1},"
        "{\"ph\":\"X\",\"name\":\"op\",\"cat\":\"cpu_op\",\"pid\":\"host\",\"tid\":\"main\",\"ts\":"
        "1,"
        "\"dur\":1,\"args\":{\"External id\":9,\"big\":10159970886766084423,\"n\":{\"a\":[1, 2]}}},"
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":7,\"args\":{\"name\":\"stream 7 "
        "\"}},"
        "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"args\":{\"labels\":\"GPU 0\"}},"
        "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":0,\"args\":{\"sort_index\":16777216}"
        "},"
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"gpu\"}}],"
        "\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":3},\"deviceProperties\":[{\"id\":0}]}",
        &wl);
    CHECK_INT(tr_track_count(t), 2);
    const tr_track *g = tr_track_get(t, 0);
    CHECK_INT(g->kind, TR_TRACK_GPU);
    CHECK_STR(S(t, g->name), "stream 7 ");
    const tr_process *p = tr_process_get(t, g->process);
    CHECK_STR(S(t, p->name), "gpu");
    CHECK_STR(S(t, p->labels), "GPU 0");
    CHECK_INT(p->sort_index, 16777216);
    CHECK_INT(p->rank, 3);
    const tr_track *h = tr_track_get(t, 1);
    CHECK_STR(S(t, h->name), "main");
    CHECK_STR(S(t, tr_process_get(t, h->process)->name), "host");
    tr_slices s;
    tr_trace_slices(t, &s);
    uint32_t row = s.track[0] == 1 ? 0 : 1;
    CHECK_STR(args_text(t, s.args[row]),
              "{\"External id\":9,\"big\":10159970886766084423,\"n.a\":\"[1,2]\"}");
    const tr_input_info *ii = tr_input_get(t, 0);
    tr_arg a;
    CHECK(tr_args_find(t, ii->meta, "distributedInfo.rank", &a) && a.v.i == 3);
    CHECK(tr_args_find(t, ii->meta, "deviceProperties", &a));
    CHECK_INT(wl.n, 0);
    tr_trace_free(t);
}

TR_TEST(async_and_flows)
{
    tr_test_warns wl = {0};
    tr_trace *t = read_ok(
        "[{\"ph\":\"b\",\"cat\":\"c\",\"id\":\"0x1\",\"name\":\"req\",\"pid\":1,\"tid\":1,\"ts\":0}"
        ","
        "{\"ph\":\"n\",\"cat\":\"c\",\"id\":\"0x1\",\"name\":\"step\",\"pid\":1,\"tid\":1,\"ts\":1}"
        ","
        "{\"ph\":\"e\",\"cat\":\"c\",\"id\":\"0x1\",\"name\":\"req\",\"pid\":1,\"tid\":1,\"ts\":5},"
        "{\"ph\":\"S\",\"id\":2,\"name\":\"old\",\"pid\":1,\"ts\":0},"
        "{\"ph\":\"F\",\"id\":2,\"name\":\"old\",\"pid\":1,\"ts\":3},"
        "{\"ph\":\"f\",\"id\":14,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\",\"pid\":0,\"tid\":"
        "7,"
        "\"ts\":20},"
        "{\"ph\":\"X\",\"name\":\"launch\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5},"
        "{\"ph\":\"s\",\"id\":14,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"pid\":1,\"tid\":1,\"ts\":10},"
        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":3},"
        "{\"ph\":\"X\",\"name\":\"v2a\",\"pid\":1,\"tid\":1,\"ts\":30,\"dur\":1,\"bind_id\":5,"
        "\"flow_out\":true},"
        "{\"ph\":\"X\",\"name\":\"v2b\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":1,\"bind_id\":5,"
        "\"flow_in\":true}]",
        &wl);
    CHECK_INT(wl.n, 0);
    tr_slices s;
    tr_trace_slices(t, &s);
    CHECK_INT(s.n, 6);
    int async = 0;
    for (size_t i = 0; i < s.n; i++) async += tr_track_get(t, s.track[i])->kind == TR_TRACK_ASYNC;
    CHECK_INT(async, 2);
    CHECK_INT(tr_flow_count(t), 2);
    tr_flow f_v;
    tr_flow_get(t, 0, &f_v);
    const tr_flow *f = &f_v;
    tr_flow f2_v;
    tr_flow_get(t, 1, &f2_v);
    const tr_flow *f2 = &f2_v;
    if (f->id != 14) {
        const tr_flow *x = f;
        f = f2;
        f2 = x;
    }
    CHECK_INT(f->id, 14);
    CHECK_STR(S(t, s.name[TR_REF_ROW(f->from)]), "launch");
    CHECK_STR(S(t, s.name[TR_REF_ROW(f->to)]), "k");
    CHECK_STR(S(t, s.name[TR_REF_ROW(f2->from)]), "v2a");
    CHECK_STR(S(t, s.name[TR_REF_ROW(f2->to)]), "v2b");
    tr_trace_free(t);
}

/*
** Flow identities with a decimal id are found in pages by the text before
** the id, until there are too many such texts or the ids are too far apart
** (then the index takes the new ones): an identity met before and after
** that point is still one flow.  Dense ids first, then 20 categories of
** ids a page apart (the pages fill up at the seventh), every start before
** every end.
*/
TR_TEST(flow_identities_paged)
{
    enum { DENSE = 3000, CATS = 20, PER_CAT = 10 };
    tr_buf b;
    tr_buf_init(&b, 0);
    tr_buf_addf(&b, "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
                    "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":2,\"ts\":0,\"dur\":100}");
    for (int end = 0; end < 2; end++) {
        const char *pt = end ? "\"ph\":\"f\",\"bp\":\"e\",\"tid\":2,\"ts\":20"
                             : "\"ph\":\"s\",\"tid\":1,\"ts\":10";
        for (int i = 1; i <= DENSE; i++)
            tr_buf_addf(&b, ",{%s,\"id\":%d,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"pid\":1}", pt, i);
        for (int c = 0; c < CATS; c++)
            for (int i = 0; i < PER_CAT; i++)
                tr_buf_addf(&b, ",{%s,\"id\":%lld,\"cat\":\"c%d\",\"name\":\"n\",\"pid\":1}", pt,
                            (long long)i * 1000003, c);
    }
    tr_buf_add(&b, "]", 1);
    tr_test_warns wl = {0};
    tr_trace *t = read_ok(b.p, &wl);
    CHECK_INT(wl.n, 0);
    CHECK_INT(tr_flow_count(t), DENSE + CATS * PER_CAT);
    tr_slices s;
    tr_trace_slices(t, &s);
    for (size_t i = 0; i < tr_flow_count(t); i++) {
        tr_flow f_v;
        tr_flow_get(t, (uint32_t)i, &f_v);
        const tr_flow *f = &f_v;
        CHECK_STR(S(t, s.name[TR_REF_ROW(f->from)]), "a");
        CHECK_STR(S(t, s.name[TR_REF_ROW(f->to)]), "b");
    }
    tr_trace_free(t);
    tr_buf_fini(&b);
}

TR_TEST(samples_and_odd_phases)
{
    tr_test_warns wl = {0};
    tr_trace *t = read_ok(
        "{\"samples\":[{\"ts\":5,\"pid\":1,\"tid\":1,\"sf\":2,\"weight\":\"3\"}],"
        "\"traceEvents\":[{\"ph\":\"P\",\"ts\":1,\"pid\":1,\"tid\":1,\"sf\":\"2\"},"
        "{\"ph\":\"O\",\"name\":\"obj\",\"id\":\"0x9\",\"cat\":\"x\",\"ts\":2,\"pid\":1,\"tid\":1,"
        "\"args\":{\"snapshot\":{\"a\":1}}},"
        "{\"ph\":\"c\",\"name\":\"sync\",\"ts\":3,\"pid\":1,\"tid\":1,\"args\":{\"sync_id\":\"s\"}}"
        ","
        "{\"ph\":\"(\",\"name\":\"ctx\",\"ts\":3,\"pid\":1,\"tid\":1,\"id\":1},"
        "{\"ph\":\"v\",\"name\":\"dump\",\"ts\":3,\"pid\":1,\"tid\":1,\"id\":1}],"
        "\"stackFrames\":{\"1\":{\"name\":\"main\",\"category\":\"m\"},"
        "\"2\":{\"name\":\"f\",\"parent\":\"1\"}}}",
        &wl);
    CHECK_INT(wl.n, 0);
    tr_samples sm;
    tr_trace_samples(t, &sm);
    CHECK_INT(sm.n, 2);
    CHECK_INT(tr_stack_depth(t, sm.stack[0]), 2);
    CHECK_STR(S(t, tr_frame_get(t, tr_stack_frame(t, sm.stack[0]))->function), "f");
    CHECK_STR(args_text(t, sm.args[1]), "{\"weight\":3}");
    tr_instants in;
    tr_trace_instants(t, &in);
    CHECK_INT(in.n, 4);
    CHECK_STR(S(t, tr_instant_cat(&in, 0)), "object_snapshot");
    CHECK_STR(args_text(t, in.args[0]),
              "{\"snapshot.a\":1,\"ph\":\"O\",\"cat\":\"x\",\"id\":\"0x9\"}");
    CHECK_STR(S(t, tr_instant_cat(&in, 1)), "clock_sync");
    CHECK_STR(S(t, tr_instant_cat(&in, 2)), "context_enter");
    CHECK_STR(S(t, tr_instant_cat(&in, 3)), "memory_dump");
    tr_trace_free(t);
}

/* A V8 CPU profile: a Profile and two chunks, nodes split across them. */
TR_TEST(v8_cpu_profile)
{
    tr_test_warns wl = {0};
    tr_trace *t = read_ok(
        "[{\"ph\":\"P\",\"name\":\"Profile\",\"id\":\"0x1\",\"ts\":990,\"pid\":1,\"tid\":1,"
        "\"args\":{\"data\":{\"startTime\":1000}}},"
        "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x1\",\"ts\":1100,\"pid\":1,\"tid\":2,"
        "\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":["
        "{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"url\":\"\",\"lineNumber\":-1}},"
        "{\"id\":2,\"parent\":1,\"callFrame\":{\"functionName\":\"main\",\"url\":\"a.js\","
        "\"scriptId\":\"7\",\"lineNumber\":4,\"columnNumber\":2}}],"
        "\"samples\":[2,2]},\"timeDeltas\":[5,10]}}},"
        "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x1\",\"ts\":1200,\"pid\":1,\"tid\":2,"
        "\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":["
        "{\"id\":3,\"parent\":2,\"callFrame\":{\"functionName\":\"\",\"url\":\"a.js\","
        "\"lineNumber\":-1}}],"
        "\"samples\":[3,1]},\"timeDeltas\":[7,3]}}}]",
        &wl);
    CHECK_INT(wl.n, 0);
    tr_samples sm;
    tr_trace_samples(t, &sm);
    CHECK_INT(sm.n, 4);
    if (sm.n == 4) {
        const int64_t want[4] = {1005000, 1015000, 1022000, 1025000};
        for (int i = 0; i < 4; i++) {
            CHECK(sm.ts[i] == want[i]);
            const tr_track *tk = tr_track_get(t, sm.track[i]);
            CHECK(tk->tid == 1); /* the Profile's thread, not the chunks' */
        }
        CHECK(sm.stack[0] == sm.stack[1]);
        CHECK_INT(tr_stack_depth(t, sm.stack[0]), 1);
        const tr_frame *f = tr_frame_get(t, tr_stack_frame(t, sm.stack[0]));
        CHECK_STR(S(t, f->function), "main");
        CHECK_STR(S(t, f->file), "a.js");
        CHECK_INT(f->line, 5);
        CHECK_INT(tr_stack_depth(t, sm.stack[2]), 2);
        CHECK(tr_stack_parent(t, sm.stack[2]) == sm.stack[0]);
        f = tr_frame_get(t, tr_stack_frame(t, sm.stack[2]));
        CHECK_STR(S(t, f->function), "(anonymous)");
        CHECK_INT(f->line, 0);
        CHECK_INT(sm.stack[3], 0); /* (root) is the empty stack */
    }
    tr_instants in;
    tr_trace_instants(t, &in);
    CHECK_INT(in.n, 3); /* the events themselves stay as they were */
    tr_trace_free(t);
}

/*
** Samples of a V8 chunk without a time delta (timeDeltas short, or a value
** that is no number) were put at the previous sample's time without a word;
** now a warning at the chunk says how many.
*/
TR_TEST(v8_samples_without_delta)
{
    tr_test_warns wl = {0};
    tr_trace *t = read_ok(
        "[{\"ph\":\"P\",\"name\":\"Profile\",\"id\":\"0x1\",\"ts\":990,\"pid\":1,\"tid\":1,"
        "\"args\":{\"data\":{\"startTime\":1000}}},"
        "{\"ph\":\"P\",\"name\":\"ProfileChunk\",\"id\":\"0x1\",\"ts\":1100,\"pid\":1,\"tid\":1,"
        "\"args\":{\"data\":{\"cpuProfile\":{\"nodes\":["
        "{\"id\":1,\"callFrame\":{\"functionName\":\"(root)\",\"url\":\"\",\"lineNumber\":-1}}],"
        "\"samples\":[1,1,1,1]},\"timeDeltas\":[5,\"x\",2]}}}]",
        &wl);
    CHECK_INT(wl.n, 1);
    CHECK(strstr(wl.first.msg, "V8 profile chunk with 2 samples without a time delta") != NULL);
    tr_samples sm;
    tr_trace_samples(t, &sm);
    CHECK_INT(sm.n, 4);
    if (sm.n == 4) {
        const int64_t want[4] = {1005000, 1005000, 1007000, 1007000};
        for (int i = 0; i < 4; i++) CHECK_INT(sm.ts[i], want[i]);
    }
    tr_trace_free(t);
}

TR_TEST(truncated_array)
{
    const char *cases[] = {
        "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"ts\":1,\"dur\":1}",
        "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"ts\":1,\"dur\":1},  \n",
        "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"ts\":1,\"dur\":1},{\"ph\":\"X\",\"na",
        "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"ts\":1,\"dur\":1},{}]",
    };
    for (size_t i = 0; i < 4; i++) {
        tr_test_warns wl = {0};
        tr_trace *t = read_ok(cases[i], &wl);
        tr_slices s;
        tr_trace_slices(t, &s);
        CHECK_INT(s.n, 1);
        CHECK_INT(wl.n, i == 2); /* only the half-written event is worth a word */
        tr_trace_free(t);
    }
}

/* Each bad input: TR_FAIL (hard errors) or warnings, with a byte offset; never a crash. */
TR_TEST(bad_input)
{
    static const struct {
        const char *text;
        int fails;       /* a hard error even when lenient */
        const char *msg; /* in the error or first warning */
    } cases[] = {
        {"[{\"ph\":\"X\",,}]", 1, "byte 11: invalid JSON"},
        {"x", 1, "must start with"},
        {"{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":1}]", 1, "closing '}'"},
        {"{\"traceEvents\":{}}", 1, "not an array"},
        {"[1]", 1, "not a JSON object"},
        {"[{\"ph\":\"X\",\"name\":\"a\x01\"}]", 1, "control character"},
        {"[{\"ph\":\"X\",\"name\":\"\\q\"}]", 1, "bad escape"},
        {"[{\"ph\":\"X\",\"ts\":\"abc\",\"dur\":1}]", 0, "byte 1: event without a valid \"ts\""},
        {"[{\"name\":\"x\",\"ts\":1}]", 0, "without \"ph\""},
        {"[{\"ph\":\"Q\",\"ts\":1}]", 0, "unknown phase 'Q'"},
        {"[{\"ph\":\"X\",\"ts\":1,\"dur\":-5}]", 0, "negative"},
        {"[{\"ph\":\"X\",\"ts\":NaN,\"dur\":1}]", 0, "valid \"ts\""},
        {"[{\"ph\":\"X\",\"ts\":1e300,\"dur\":1}]", 0, "valid \"ts\""},
        {"[{\"ph\":\"X\",\"ts\":1,\"ts\":2,\"dur\":1}]", 0, "duplicate key"},
        {"[{\"ph\":\"X\",\"name\":\"\xff\",\"ts\":1,\"dur\":1}]", 0, "invalid UTF-8"},
        {"[{\"ph\":\"C\",\"name\":\"c\",\"ts\":1,\"args\":{\"v\":\"x\"}}]", 0, "not a number"},
        {"[{\"ph\":\"b\",\"name\":\"c\",\"ts\":1}]", 0, "without an id"},
        {"[{\"ph\":\"s\",\"name\":\"c\",\"ts\":1}]", 0, "without an id"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int strict = 0; strict < 2; strict++) {
            tr_test_warns wl = {0};
            tr_error e = {0};
            int rc;
            tr_trace *t = read_text(cases[i].text, strlen(cases[i].text), strict, &wl, &rc, &e);
            char buf[700];
            const char *got = tr_error_format(rc == TR_OK ? &wl.first : &e, buf, sizeof buf);
            if (!strstr(got, cases[i].msg))
                fprintf(stderr, "  case %zu: got \"%s\", want \"%s\"\n", i, got, cases[i].msg);
            CHECK(strstr(got, cases[i].msg) != NULL);
            CHECK_INT(rc == TR_OK, !cases[i].fails && !strict);
            tr_trace_free(t);
        }
    }
}

/* Nesting, big strings and BOMs: bounded memory, no recursion, errors or warnings only. */
TR_TEST(hostile_shapes)
{
    size_t depth = 10000;
    tr_buf b;
    tr_buf_init(&b, 0);
    tr_buf_adds(&b, "\xef\xbb\xbf[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"args\":{\"a\":");
    for (size_t i = 0; i < depth; i++) tr_buf_adds(&b, "{\"k\":");
    tr_buf_adds(&b, "1");
    for (size_t i = 0; i < depth; i++) tr_buf_addc(&b, '}');
    tr_buf_adds(&b, "}},{\"ph\":\"i\",\"ts\":2,\"args\":{\"l\":[");
    for (size_t i = 0; i < depth; i++) tr_buf_addc(&b, '[');
    for (size_t i = 0; i < depth; i++) tr_buf_addc(&b, ']');
    tr_buf_adds(&b, "]}}]");
    tr_test_warns wl = {0};
    tr_trace *t = read_ok(b.p, &wl);
    tr_slices s;
    tr_trace_slices(t, &s);
    CHECK_INT(s.n, 1);
    CHECK_INT(tr_args_count(t, s.args[0]), 1); /* deep args kept as one JSON text */
    tr_trace_free(t);

    /* an event over the 64 MiB cap: TR_E_LIMIT, not an allocation without end */
    size_t big = (size_t)65 << 20;
    char *huge = malloc(big + 64);
    CHECK(huge != NULL);
    if (!huge) return;
    size_t n = (size_t)snprintf(huge, 64, "[{\"ph\":\"X\",\"name\":\"");
    memset(huge + n, 'a', big);
    memcpy(huge + n + big, "\"}]", 4);
    int rc;
    tr_error e = {0};
    t = read_text(huge, n + big + 3, 0, &wl, &rc, &e);
    CHECK_INT(rc, TR_FAIL);
    CHECK_INT(e.code, TR_E_LIMIT);
    tr_trace_free(t);
    /* the same size under a top-level key that is not kept: skipped in constant memory */
    n = (size_t)snprintf(huge, 64, "{\"junk\":\"");
    memset(huge + n, 'a', big);
    memcpy(huge + n + big, "\",\"traceEvents\":[]}", 20);
    t = read_text(huge, strlen(huge), 0, &wl, &rc, &e);
    CHECK_INT(rc, TR_OK);
    tr_trace_free(t);
    free(huge);
    tr_buf_fini(&b);
}

/* ---- the round trip: read, write with the chrome writer, read again ---- */

/* Every event of a frozen trace as text lines, sorted, for comparison. */
static char *model_text(const tr_trace *t)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    tr_iter it;
    tr_event ev;
    tr_slices sl;
    tr_instants in;
    tr_counters co;
    tr_samples sa;
    tr_trace_slices(t, &sl);
    tr_trace_instants(t, &in);
    tr_trace_counters(t, &co);
    tr_trace_samples(t, &sa);
    /* The writer leaves out samples with no frame (Catapult rejects them): so does the count. */
    size_t n_sa = 0;
    for (size_t i = 0; i < sa.n; i++) n_sa += sa.stack[i] != 0;
    tr_buf_addf(&b, "counts %zu %zu %zu %zu flows %zu\n", sl.n, in.n, co.n, n_sa, tr_flow_count(t));
    tr_iter_init(&it, t);
    while (tr_iter_next(&it, &ev)) {
        uint32_t r = ev.row, track;
        switch (ev.kind) {
        case TR_EV_SLICE:
            track = sl.track[r];
            tr_buf_addf(&b, "S %lld %lld %s|%s|", (long long)sl.ts[r],
                        (long long)tr_slice_dur(&sl, r), S(t, sl.name[r]),
                        S(t, tr_slice_cat(&sl, r)));
            tr_buf_add_json_args(&b, t, sl.args[r]);
            break;
        case TR_EV_INSTANT:
            track = tr_instant_track(&in, r);
            tr_buf_addf(&b, "I %lld %d %s|%s|", (long long)in.ts[r], tr_instant_scope(&in, r),
                        S(t, tr_instant_name(&in, r)), S(t, tr_instant_cat(&in, r)));
            tr_buf_add_json_args(&b, t, in.args[r]);
            break;
        case TR_EV_COUNTER:
            track = co.track[r];
            tr_buf_addf(&b, "C %lld %.17g", (long long)co.ts[r], co.value[r]);
            break;
        default:
            if (!sa.stack[r]) continue;
            track = sa.track[r];
            tr_buf_addf(&b, "P %lld", (long long)sa.ts[r]);
            for (uint32_t s = sa.stack[r]; s && s != TR_NONE; s = tr_stack_parent(t, s)) {
                const tr_frame *f = tr_frame_get(t, tr_stack_frame(t, s));
                tr_buf_addf(&b, " %s@%s:%s:%d", S(t, f->function), S(t, f->module), S(t, f->file),
                            f->line);
            }
            tr_buf_addc(&b, '|');
            tr_buf_add_json_args(&b, t, sa.args[r]);
        }
        const tr_track *tk = tr_track_get(t, track);
        const tr_process *p = tr_process_get(t, tk->process);
        tr_buf_addf(&b, " @ %s/%s/%s rank %d sort %d/%d labels %s\n", S(t, p->name), S(t, tk->name),
                    tr_track_kind_name(tk->kind), p->rank, p->sort_index, tk->sort_index,
                    S(t, p->labels));
    }
    return b.p;
}

static int round_trip(const char *path, const char *name)
{
    tr_trace *t1 = tr_trace_new();
    tr_load_opts lo = {.readers = tr_readers};
    tr_diag d = {NULL, NULL, 0, 0};
    lo.from = "chrome";
    lo.read.diag = &d;
    tr_error e = {0};
    int rc = tr_load(t1, path, &lo, &e);
    if (rc == TR_OK) rc = tr_trace_freeze(t1, &e);
    if (rc != TR_OK) {
        fprintf(stderr, "  %s: %s\n", name, e.msg);
        tr_trace_free(t1);
        return 1;
    }
    char out[4200];
    snprintf(out, sizeof out, "%s/rt.json", tr_test_tmpdir());
    int bad = tr_write_trace(&tr_writer_chrome, t1, out, NULL, &e) != TR_OK;
    tr_trace *t2 = tr_trace_new();
    if (!bad) bad = tr_load(t2, out, &lo, &e) != TR_OK || tr_trace_freeze(t2, &e) != TR_OK;
    if (!bad) {
        char *a = model_text(t1), *b = model_text(t2);
        if (strcmp(a, b) != 0) {
            size_t i = 0;
            while (a[i] && a[i] == b[i]) i++;
            while (i > 0 && a[i - 1] != '\n') i--;
            fprintf(stderr, "  %s: differs after the round trip:\n  - %.300s\n  + %.300s\n", name,
                    a + i, b + i);
            bad = 1;
        }
        tr_free(a);
        tr_free(b);
    } else {
        fprintf(stderr, "  %s: %s\n", name, e.msg);
    }
    tr_trace_free(t1);
    tr_trace_free(t2);
    return bad;
}

static int walk(const char *dir, const char *rel, int *count)
{
    DIR *d = opendir(dir);
    if (!d) return 1;
    int bad = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        char path[4200], name[4200];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        snprintf(name, sizeof name, "%s%s", rel, de->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            snprintf(name, sizeof name, "%s%s/", rel, de->d_name);
            bad += walk(path, name, count);
            continue;
        }
        const char *ext = strrchr(de->d_name, '.');
        if (!ext || strstr(de->d_name, ".expected.") || strcmp(ext, ".md") == 0) continue;
        (*count)++;
        bad += round_trip(path, name);
    }
    closedir(d);
    return bad;
}

TR_TEST(round_trip_samples)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/testdata/chrome", tr_test_srcdir());
    int count = 0;
    int bad = walk(dir, "", &count);
    fprintf(stderr, "  %d samples, %d differ\n", count, bad);
    CHECK(count >= 100);
    CHECK_INT(bad, 0);
}

/*
** The compact model (issue 18.4): a Kineto trace from the benchmark's
** generator costs at most 61 bytes of model an event, args included, once
** frozen (the columns then hold what they use; flow identities are the
** reader's, not the model's strings).  9 events a step: six
** complete events, a flow's start and end, and a counter.
*/
TR_TEST(kineto_budget)
{
    enum { STEPS = 10000, EVENTS = STEPS * 9 };
    char path[4200], cmd[9000];
    snprintf(path, sizeof path, "%s/kineto_budget.json", tr_test_tmpdir());
    snprintf(cmd, sizeof cmd, "python3 '%s/tests/bench/chrome/gen_kineto.py' '%s' %d",
             tr_test_srcdir(), path, STEPS);
    CHECK_INT(system(cmd), 0);
    tr_trace *t = tr_trace_new();
    size_t before = tr_trace_memory(t);
    tr_load_opts lo = {.readers = tr_readers};
    tr_error e = {0};
    CHECK_INT(tr_load(t, path, &lo, &e), TR_OK);
    CHECK_INT(tr_trace_freeze(t, &e), TR_OK);
    size_t n[TR_EV_KIND_COUNT];
    tr_trace_event_counts(t, n);
    CHECK_INT(n[TR_EV_SLICE], STEPS * 6);
    CHECK_INT(tr_flow_count(t), STEPS);
    size_t per = (tr_trace_memory(t) - before) / EVENTS;
    fprintf(stderr, "bytes per Kineto event: %zu\n", per);
    CHECK(per <= 61);
    tr_trace_free(t);
    /*
    ** Its arg sets sealed (past 32 MiB of them, or streaming): 7 bytes an
    ** event less (raw sets cost 1.6 bytes a set besides their payloads of
    ** 1-5 bytes).
    */
    t = tr_trace_new();
    tr_trace_args_raw(t, 0);
    CHECK_INT(tr_load(t, path, &lo, &e), TR_OK);
    CHECK_INT(tr_trace_freeze(t, &e), TR_OK);
    size_t sealed = (tr_trace_memory(t) - before) / EVENTS;
    fprintf(stderr, "bytes per Kineto event, arg sets sealed: %zu\n", sealed);
    CHECK(sealed <= 44 && sealed + 6 <= per);
    tr_trace_free(t);
    remove(path);
}
