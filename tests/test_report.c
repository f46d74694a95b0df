/*
** Unit tests of the report library (lib/tr_report.h) and of the one
** duration format (tr_buf_add_duration), on a trace built by hand: what the
** text, JSON and CSV say, checked line by line.  Every expected number is
** worked out in the comment above its check.  tracestat's outputs on the
** real samples are checked by tests/stat/.
*/
#include "tr_test.h"

#include "tr_mem.h"
#include "tr_report.h"
#include "tr_text.h"

#define MS 1000000LL

static tr_str S(tr_trace *t, const char *s)
{
    return tr_str_internz(t, s);
}

/*
** One input "run.log", one process (pid 7) with two threads.  Thread
** "worker": [0,10) "op" with a child [2,5) "child", [20,30) "op",
** [30,30) "op,\"x\"" (a name CSV must quote).  Thread "main": [40,50) "op".
** Span 0..50 ms; worker busy [0,10) + [20,30) = 20 ms, main 10 ms.  One
** instant "mark" at 45 ms on main.
*/
static tr_trace *small_trace(void)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "run.log", "test");
    uint32_t p = tr_process_intern(t, in, 7);
    tr_process_at(t, p)->name = S(t, "train");
    uint32_t w = tr_track_intern(t, p, TR_TRACK_THREAD, 1, S(t, "worker"));
    uint32_t m = tr_track_intern(t, p, TR_TRACK_THREAD, 2, S(t, "main"));
    tr_slice_add(t, w, 0, 10 * MS, S(t, "op"), S(t, "compute"), -1, 0);
    tr_slice_add(t, w, 2 * MS, 3 * MS, S(t, "child"), S(t, "compute"), -1, 0);
    tr_slice_add(t, w, 20 * MS, 10 * MS, S(t, "op"), S(t, "compute"), 2048, 0);
    tr_slice_add(t, w, 30 * MS, 0, S(t, "op,\"x\""), S(t, "compute"), -1, 0);
    tr_slice_add(t, m, 40 * MS, 10 * MS, S(t, "op"), S(t, "compute"), -1, 0);
    tr_instant_add(t, m, 45 * MS, S(t, "mark"), S(t, "note"), 0, -1, 0);
    tr_error e = {0};
    CHECK(tr_trace_freeze(t, &e) == TR_OK);
    return t;
}

static tr_report *report_of(const tr_trace *t, const tr_report_opts *o)
{
    tr_report *r = NULL;
    tr_error e = {0};
    CHECK(tr_report_new(t, o, &r, &e) == TR_OK);
    CHECK(r != NULL);
    return r;
}

/* Whether TEXT holds LINE as a whole line. */
static int has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0')) return 1;
    return 0;
}

#define CHECK_LINE(text, line)                                                                     \
    do {                                                                                           \
        if (!has_line((text), (line))) {                                                           \
            fprintf(stderr, "  no line \"%s\" in:\n%s\n", (line), (text));                         \
            tr_test_fail(__FILE__, __LINE__, "line " #line);                                       \
        }                                                                                          \
    } while (0)

static void check_duration(int64_t ns, const char *want)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    CHECK(tr_buf_add_duration(&b, ns) == TR_OK);
    CHECK_STR(b.p, want);
    tr_buf_fini(&b);
}

TR_TEST(duration_format)
{
    check_duration(0, "0ns");
    check_duration(830, "830ns");
    check_duration(999, "999ns");
    check_duration(1000, "1.0us");
    check_duration(12500, "12.5us");
    check_duration(133 * MS, "133.0ms");
    check_duration(1154000, "1.2ms");
    check_duration(1500 * MS, "1.500s");
    check_duration(-107 * MS, "-107.0ms");
    check_duration(3600000 * MS, "3600.000s");
}

TR_TEST(section_names)
{
    CHECK_INT(tr_report_section_find("io", 2), TR_REPORT_IO);
    CHECK_INT(tr_report_section_find("hangs,hot", 5), TR_REPORT_HANGS);
    CHECK_INT(tr_report_section_find("bogus", 5), -1);
    CHECK_STR(tr_report_section_name(TR_REPORT_STRAGGLERS), "stragglers");
    CHECK(tr_report_section_name(TR_REPORT_SECTION_COUNT) == NULL);
    CHECK_INT(tr_report_csv_section("io-files"), TR_REPORT_IO);
    CHECK_INT(tr_report_csv_section("categories"), TR_REPORT_OPS);
    CHECK_INT(tr_report_csv_section("gpu-devices"), TR_REPORT_GPU);
    CHECK_INT(tr_report_csv_section("nope"), -1);
}

TR_TEST(text_overview_lanes_ops)
{
    tr_trace *t = small_trace();
    tr_report_opts o;
    tr_report_opts_init(&o);
    tr_report *r = report_of(t, &o);
    tr_buf b;
    tr_buf_init(&b, 0);
    tr_report_text(r, &b);
    CHECK(strncmp(b.p, "── overview\n", strlen("── overview\n")) == 0);
    CHECK_LINE(b.p, "input: run.log (test)");
    CHECK_LINE(b.p, "span: 0ns .. 50.0ms (50.0ms)");
    CHECK_LINE(b.p, "events: 5 slices, 1 instants, 0 counter values, 0 samples");
    CHECK_LINE(b.p, "lanes: 2 tracks of 1 processes");
    CHECK_LINE(b.p, "── lanes (busy = union of slices; ops = top-level slices)");
    /* worker: busy 20 ms of 50 = 40%, idle 30 ms; ops [0,10), [20,30), the zero-length one */
    CHECK(strstr(b.p, "worker  20.0ms  40.0%") != NULL);
    CHECK(strstr(b.p, "30.0ms  3 (2 op, 1 op,\"x\")") != NULL);
    /* gaps of worker: [30,50) 20 ms, [10,20) 10 ms */
    CHECK(strstr(b.p, "20.0ms at 30.0ms, 10.0ms at 10.0ms") != NULL);
    /* ops by name, by total: op 30 ms (3 slices: 10 + 10 + 10) */
    CHECK_LINE(b.p, "── ops by name (sorted by total; p50/p95 nearest rank)");
    CHECK_LINE(b.p, "op          3  30.0ms  10.0ms  10.0ms  10.0ms  10.0ms  2.0 KiB");
    CHECK_LINE(b.p, "op,\"x\"      1     0ns     0ns     0ns     0ns     0ns        -");
    /* sections without data are left out when none was asked by name */
    CHECK(strstr(b.p, "hot functions") == NULL);
    CHECK(strstr(b.p, "GPU streams") == NULL);
    tr_buf_fini(&b);
    tr_report_free(r);
    tr_trace_free(t);
}

TR_TEST(text_ascii_width_top)
{
    tr_trace *t = small_trace();
    tr_report_opts o;
    tr_report_opts_init(&o);
    o.ascii = 1;
    o.top = 1;
    o.sections = 1u << TR_REPORT_LANES | 1u << TR_REPORT_HOT;
    tr_report *r = report_of(t, &o);
    tr_buf b;
    tr_buf_init(&b, 0);
    tr_report_text(r, &b);
    CHECK(strncmp(b.p, "== lanes", 8) == 0);
    CHECK(strstr(b.p, "──") == NULL && strstr(b.p, "█") == NULL);
    /* a rule of '-' under the header; a bar of '#' (40% of the bar) and '.' */
    CHECK(strstr(b.p, "\n-----") != NULL);
    CHECK(strstr(b.p, "####....") != NULL);
    CHECK_LINE(b.p, "(1 more lanes; --top 0 shows all)");
    /* asked by name, hot says it has nothing */
    CHECK_LINE(b.p, "== hot functions (0 samples, all threads)");
    CHECK_LINE(b.p, "no samples");
    CHECK(strstr(b.p, "overview") == NULL);
    tr_buf_fini(&b);
    tr_report_free(r);

    tr_trace_free(t);

    /* 70 columns: a name of 35 is cut to 21 (20 and a ~) so that the 84 of a row fit */
    t = tr_trace_new();
    uint32_t in = tr_input_add(t, "x", "test");
    uint32_t tk = tr_track_intern(t, tr_process_intern(t, in, 1), TR_TRACK_THREAD, 1, S(t, "w"));
    tr_slice_add(t, tk, 0, MS, S(t, "a_rather_long_operation_name_indeed"), S(t, "c"), -1, 0);
    tr_error e = {0};
    CHECK(tr_trace_freeze(t, &e) == TR_OK);
    tr_report_opts_init(&o);
    o.ascii = 1;
    o.width = 70;
    o.sections = 1u << TR_REPORT_OPS;
    r = report_of(t, &o);
    tr_buf_init(&b, 0);
    tr_report_text(r, &b);
    CHECK_LINE(b.p, "a_rather_long_operat~      1  1.0ms  1.0ms  1.0ms  1.0ms  1.0ms      -");
    for (const char *p = b.p; *p;) {
        const char *nl = strchr(p, '\n');
        CHECK(nl && nl - p <= 70);
        p = nl ? nl + 1 : p + strlen(p);
    }
    tr_buf_fini(&b);
    tr_report_free(r);
    tr_trace_free(t);
}

TR_TEST(json_schema_and_sections)
{
    tr_trace *t = small_trace();
    tr_report_opts o;
    tr_report_opts_init(&o);
    o.sections = 1u << TR_REPORT_LANES;
    tr_report *r = report_of(t, &o);
    tr_buf b;
    tr_buf_init(&b, 0);
    tr_report_json(r, &b);
    const char *head = "{\"schema\":\"tracestat/1\",\"inputs\":[{\"path\":\"run.log\",\"format\":"
                       "\"test\",\"lines_skipped\":0,\"warnings\":0}],\"span_ns\":[0,50000000],"
                       "\"lanes\":[{\"process\":\"train\",\"pid\":7,\"rank\":-1,\"track\":"
                       "\"worker\",\"tid\":1,\"kind\":\"thread\",\"slices\":4,\"ops\":3,"
                       "\"busy_ns\":20000000,\"idle_ns\":30000000,\"utilization\":0.4,";
    CHECK(strncmp(b.p, head, strlen(head)) == 0);
    CHECK(strstr(b.p, "\"idle_gaps\":[{\"ts_ns\":30000000,\"dur_ns\":20000000},") != NULL);
    /* only the sections asked */
    CHECK(strstr(b.p, "\"ops\":{") == NULL && strstr(b.p, "\"io\":") == NULL);
    CHECK(b.len > 2 && strcmp(b.p + b.len - 2, "}\n") == 0);
    tr_buf_fini(&b);
    tr_report_free(r);
    tr_trace_free(t);
}

TR_TEST(csv_tables_and_quoting)
{
    tr_trace *t = small_trace();
    tr_report_opts o;
    tr_report_opts_init(&o);
    o.sections = 1u << TR_REPORT_OPS;
    tr_report *r = report_of(t, &o);
    tr_buf b;
    tr_buf_init(&b, 0);
    CHECK(tr_report_csv(r, "nope", &b) == TR_FAIL);
    CHECK_INT(b.len, 0);
    CHECK(tr_report_csv(r, "ops", &b) == TR_OK);
    CHECK_LINE(b.p, "name,count,total_ns,mean_ns,p50_ns,p95_ns,max_ns,bytes");
    /* op: 3 slices of 10 ms, 2048 bytes */
    CHECK_LINE(b.p, "op,3,30000000,10000000,10000000,10000000,10000000,2048");
    /* quotes doubled, the field quoted; no bytes: empty */
    CHECK_LINE(b.p, "\"op,\"\"x\"\"\",1,0,0,0,0,0,");
    tr_buf_reset(&b);
    CHECK(tr_report_csv(r, "categories", &b) == TR_OK);
    CHECK_LINE(b.p, "compute,5,33000000,6600000,10000000,10000000,10000000,2048");
    tr_buf_fini(&b);
    tr_report_free(r);
    tr_trace_free(t);
}

TR_TEST(info_text_and_json)
{
    tr_trace *t = small_trace();
    tr_buf b;
    tr_buf_init(&b, 0);
    tr_error e = {0};
    CHECK(tr_report_info(t, 0, &b, &e) == TR_OK);
    CHECK(strncmp(b.p, "input 0: run.log\n  format: test\n", 32) == 0);
    CHECK_LINE(b.p, "  skipped: 0 non-record lines, 0 bad records");
    CHECK_LINE(b.p, "span: 0ns .. 50.0ms (50.0ms)");
    CHECK_LINE(b.p, "counts: processes 1, tracks 2, slices 5, instants 1, counters 0, samples 0, "
                    "flows 0, frames 0, stacks 0");
    CHECK_LINE(b.p, "  train / worker (thread): slices 4");
    CHECK_LINE(b.p, "  train / main (thread): slices 1 instants 1");
    /* op: 2 slices on worker, 1 on main */
    CHECK_LINE(b.p, "         3  op");
    CHECK_LINE(b.p, "instants by category:");
    CHECK_LINE(b.p, "         1  note");
    tr_buf_reset(&b);
    CHECK(tr_report_info(t, 1, &b, &e) == TR_OK);
    const char *head = "{\"inputs\":[{\"path\":\"run.log\",\"format\":\"test\",\"origin\":null,";
    CHECK(strncmp(b.p, head, strlen(head)) == 0);
    CHECK(strstr(b.p, "],\"span_ns\":[0,50000000],\"counts\":{\"processes\":1,\"tracks\":2,"
                      "\"slices\":5,") != NULL);
    CHECK(strstr(b.p, "\"top_names\":[{\"name\":\"op\",\"count\":3},") != NULL);
    CHECK(strstr(b.p, "timeline_origin") == NULL); /* one input: not placed */
    tr_buf_fini(&b);
    tr_trace_free(t);
}

/* Allocations failing in turn: TR_FATAL with TR_E_NOMEM and no report, never a crash or a leak. */
TR_TEST(out_of_memory)
{
    tr_trace *t = small_trace();
    tr_report_opts o;
    tr_report_opts_init(&o);
    for (uint64_t n = 1; n < 120; n++) {
        tr_error e = {0};
        tr_report *r = NULL;
        tr_alloc_fail_after(n);
        int rc = tr_report_new(t, &o, &r, &e);
        tr_alloc_fail_after(0);
        CHECK(rc == TR_OK || (rc == TR_FATAL && e.code == TR_E_NOMEM && r == NULL));
        tr_report_free(r);
        tr_buf b;
        tr_buf_init(&b, 0);
        tr_alloc_fail_after(n);
        rc = tr_report_info(t, n % 2, &b, &e);
        tr_alloc_fail_after(0);
        CHECK(rc == TR_OK || (rc == TR_FATAL && e.code == TR_E_NOMEM));
        tr_buf_fini(&b);
    }
    tr_trace_free(t);
}

/* The report of trace T, allocation FAIL failing alone (0: none): its text and JSON in OUT. */
typedef struct report_once {
    const tr_trace *t;
    uint64_t fail;
    int rc;
    tr_buf out;
} report_once;

static void *report_once_run(void *p)
{
    report_once *ro = p;
    tr_report_opts o;
    tr_report_opts_init(&o);
    o.sections = (1u << TR_REPORT_SECTION_COUNT) - 1; /* every section, hangs and kernels too */
    tr_error e = {0};
    tr_report *r = NULL;
    tr_alloc_fail_once(ro->fail);
    ro->rc = tr_report_new(ro->t, &o, &r, &e);
    if (ro->rc == TR_OK) {
        tr_report_text(r, &ro->out);
        tr_report_json(r, &ro->out);
        if (ro->out.nomem) ro->rc = TR_FATAL;
    }
    tr_alloc_fail_after(0);
    tr_report_free(r);
    return NULL;
}

/* A report of T compared with WANT, a report's without failures. */
typedef struct report_case {
    const tr_trace *t;
    const char *name;
    const tr_buf *want;
} report_case;

static int report_failing(void *user, uint64_t n)
{
    const report_case *c = user;
    report_once ro = {c->t, n, TR_OK, {0}};
    tr_buf_init(&ro.out, 0);
    report_once_run(&ro);
    int failed = ro.rc != TR_OK;
    if (!failed) {
        int same = ro.out.len == c->want->len && memcmp(ro.out.p, c->want->p, ro.out.len) == 0;
        if (!same)
            fprintf(stderr, "  %s: allocation %llu failed, the report differs\n", c->name,
                    (unsigned long long)n);
        CHECK(same);
    }
    tr_buf_fini(&ro.out);
    return failed;
}

/*
** Each allocation of a report (text and JSON) fails in turn, alone: the
** report fails, or says what one without failures says, to the byte.  A
** GPU trace, a Recorder trace (I/O), a GT log.
*/
TR_TEST(no_silent_loss_out_of_memory)
{
    static const char *const ins[] = {
        "testdata/chrome/hta/trace_compare/base/base.json.gz",
        "testdata/recorder/iomix-2r",
        "testdata/gt/gt-tiny-visualize_demo-1worker.log",
    };
    for (size_t k = 0; k < sizeof ins / sizeof ins[0]; k++) {
        tr_trace *t = tr_trace_new();
        tr_error e;
        CHECK_INT(tr_test_load(t, tr_test_src(ins[k]), NULL, &e), TR_OK);
        report_once whole = {t, 0, TR_OK, {0}};
        tr_buf_init(&whole.out, 0);
        report_once_run(&whole);
        CHECK_INT(whole.rc, TR_OK);
        report_case c = {t, ins[k], &whole.out};
        CHECK(tr_test_each_alloc_failing(report_failing, &c, 60, 5000) > 0);
        tr_buf_fini(&whole.out);
        tr_trace_free(t);
    }
}
