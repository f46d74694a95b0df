/*
** test_load.c: the loader (lib/load.c) with a sink consumer of its own
** (lib/tr_sink.h), and directory views of directories and archives
** (lib/dir.c).
*/
#include "tr_load.h"
#include "tr_mem.h"
#include "tr_readers.h"
#include "tr_test.h"
#include "tr_writers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *sample(const char *rel)
{
    static char bufs[4][4096];
    static int next;
    char *p = bufs[next++ % 4];
    snprintf(p, sizeof bufs[0], "%s/testdata/%s", tr_test_srcdir(), rel);
    return p;
}

/* ---- a second consumer: it counts the events of each batch ---- */

typedef struct counter {
    size_t batches, lasts, gaps;
    size_t next[TR_EV_KIND_COUNT]; /* the row the next batch must start at */
    size_t flows_next;
    size_t events;    /* in all batches */
    size_t max_batch; /* events in the largest batch but an input's last */
    size_t fail_at;   /* fail on this batch (1-based), 0 = never */
} counter;

static int count_batch(void *user, const tr_trace *t, const tr_batch *b, tr_error *e)
{
    counter *c = user;
    size_t n = 0;
    if (++c->batches == c->fail_at) return tr_errorf(e, TR_E_IO, NULL, "consumer full");
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) {
        c->gaps += b->first[k] != c->next[k] || b->end[k] < b->first[k];
        n += b->end[k] - b->first[k];
        c->next[k] = b->end[k];
    }
    c->gaps += b->flow_first != c->flows_next || b->input >= tr_input_count(t);
    c->flows_next = b->flow_end;
    c->events += n;
    c->lasts += b->last != 0;
    if (!b->last && n > c->max_batch) c->max_batch = n;
    return TR_OK;
}

static size_t model_events(const tr_trace *t)
{
    tr_slices s;
    tr_instants i;
    tr_counters c;
    tr_samples p;
    tr_trace_slices(t, &s);
    tr_trace_instants(t, &i);
    tr_trace_counters(t, &c);
    tr_trace_samples(t, &p);
    return s.n + i.n + c.n + p.n;
}

/* Loads PATH with the counting consumer; the trace (not frozen), or NULL. */
static tr_trace *load_counted(const char *path, counter *c, int *rc, tr_error *e)
{
    tr_trace *t = tr_trace_new();
    tr_diag quiet = {NULL, NULL, 0, 0};
    tr_load_opts o = {.readers = tr_readers, .read = {.diag = &quiet}};
    o.consume = count_batch;
    o.consume_user = c;
    *rc = tr_load(t, path, &o, e);
    return t;
}

/* A GT log of N request/reply pairs, 2N records. */
static const char *write_gt(size_t n)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/big.log", tr_test_tmpdir());
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (!f) return path;
    fputs("GT2 Dispatcher Instruction Stream\n", f);
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%7zu.%03zus | #%04zu | RECV | CLIENT c%zu | CreateTensor | 90B | id=%zu\n",
                i / 1000, i % 1000, 2 * i + 1, i % 3, i);
        fprintf(f, "%7zu.%03zus | #%04zu | SEND | CLIENT c%zu | CreateTensor | 91B | ok=True\n",
                i / 1000, i % 1000, 2 * i + 2, i % 3);
    }
    fclose(f);
    return path;
}

/* Batches are bounded, follow each other, and add up to the model. */
TR_TEST(sink_batches_bounded)
{
    counter c = {0};
    tr_error e = {0};
    int rc;
    tr_trace *t = load_counted(write_gt(20000), &c, &rc, &e);
    CHECK_INT(rc, TR_OK);
    CHECK_INT(c.gaps, 0);
    CHECK_INT(c.lasts, 1);
    CHECK_INT(c.events, model_events(t));
    CHECK_INT(c.events, 60000); /* an instant a record, a slice a pair */
    /* a record gives an instant and at most two slices */
    CHECK(c.max_batch > 0 && c.max_batch <= 3 * TR_READ_BATCH);
    CHECK(c.batches >= 40000 / TR_READ_BATCH);
    tr_trace_free(t);
}

/* Every reader, through directories and archives too: the consumer sees what the model holds. */
TR_TEST(sink_every_reader)
{
    static const char *const inputs[] = {
        "gt/gt-mlp-4workers-autoshard.log",
        "chrome/perfetto",
        "pyspy",
        "recorder/g3-iomix-2r",
        "recorder/g3-iomix-2r.tgz",
        "recorder/iomix-4r-ipc",
    };
    for (size_t i = 0; i < sizeof inputs / sizeof *inputs; i++) {
        counter c = {0};
        tr_error e = {0};
        int rc;
        tr_trace *t = load_counted(sample(inputs[i]), &c, &rc, &e);
        if (rc != TR_OK) fprintf(stderr, "  %s: %s: %s\n", inputs[i], e.file, e.msg);
        CHECK_INT(rc, TR_OK);
        CHECK_INT(c.gaps, 0);
        CHECK_INT(c.lasts, tr_input_count(t));
        CHECK_INT(c.events, model_events(t));
        CHECK_INT(c.flows_next, tr_flow_count(t));
        CHECK(c.events > 0);
        tr_trace_free(t);
    }
}

/* A consumer's failure stops the load with its error. */
TR_TEST(sink_consumer_fails)
{
    counter c = {.fail_at = 2};
    tr_error e = {0};
    int rc;
    tr_trace *t = load_counted(write_gt(10000), &c, &rc, &e);
    CHECK(rc < 0);
    CHECK_INT(e.code, TR_E_IO);
    CHECK_STR(e.msg, "consumer full");
    CHECK_INT(c.batches, 2);
    tr_trace_free(t);
}

/* ---- directory views ---- */

/* The whole of member NAME of D, NUL-terminated; *N its length. */
static char *member_text(tr_dir *d, const char *name, size_t *n, const char *want_name)
{
    size_t i = tr_dir_find(d, name);
    *n = 0;
    CHECK(i != SIZE_MAX);
    if (i == SIZE_MAX) return NULL;
    tr_input *in;
    tr_error e = {0};
    CHECK_INT(tr_dir_open_member(d, i, &in, &e), TR_OK);
    if (want_name) CHECK_STR(tr_input_name(in), want_name);
    tr_buf b;
    tr_buf_init(&b, 0);
    char chunk[4096];
    size_t got;
    while (tr_input_read(in, chunk, sizeof chunk, &got, &e) == TR_OK && got)
        tr_buf_add(&b, chunk, got);
    tr_input_close(in);
    *n = b.len;
    if (!b.cap) tr_buf_grow(&b, 1);
    return b.p;
}

static char *file_text(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    tr_buf b;
    tr_buf_init(&b, 0);
    char chunk[4096];
    size_t got;
    while (f && (got = fread(chunk, 1, sizeof chunk, f)) > 0) tr_buf_add(&b, chunk, got);
    if (f) fclose(f);
    *n = b.len;
    if (!b.cap) tr_buf_grow(&b, 1);
    return b.p;
}

/* Every member of the sample's directory, read through view D, as on disk. */
static void check_members(tr_dir *d, const char *label)
{
    static const char *const names[] = {"VERSION",      "recorder.mt", "recorder.ts",
                                        "recorder.cst", "ug.cfg",      "ug.mt"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        char disk[4096], want[4096];
        snprintf(disk, sizeof disk, "%s/%s", sample("recorder/g3-iomix-2r"), names[k]);
        snprintf(want, sizeof want, "%s%s", label, names[k]);
        size_t n = 0, m = 0;
        char *a = member_text(d, names[k], &n, want), *b = file_text(disk, &m);
        CHECK_INT(n, m);
        CHECK(a && b && memcmp(a, b, n) == 0);
        tr_free(a);
        tr_free(b);
    }
}

/* An archive's members, kept in memory or read again from the archive, and a view of its directory.
 */
TR_TEST(dir_archive)
{
    char tgz[4096], label[4200];
    snprintf(tgz, sizeof tgz, "%s", sample("recorder/g3-iomix-2r.tgz"));
    snprintf(label, sizeof label, "%s:g3-iomix-2r/", tgz);
    for (int keep = 0; keep < 2; keep++) {
        tr_dir *d, *sub;
        tr_error e = {0};
        CHECK_INT(tr_dir_open(&d, tgz, &e), TR_OK);
        if (!keep) tr_dir_set_keep(d, 0);
        size_t n;
        const char *const *names = tr_dir_names(d, &n);
        CHECK_INT(n, 6);
        CHECK_STR(names[0], "g3-iomix-2r/VERSION");
        CHECK(tr_dir_find(d, "recorder.mt") == SIZE_MAX);
        CHECK_INT(tr_dir_open_sub(&sub, d, "g3-iomix-2r", &e), TR_OK);
        CHECK_STR(tr_dir_label(sub), label);
        CHECK_INT(tr_dir_size(sub, tr_dir_find(sub, "recorder.mt")), 3077);
        check_members(sub, label);
        check_members(sub, label); /* opened again: read again from the archive */
        tr_dir_close(sub);
        tr_dir_close(d);
    }
}

/* A directory on disk, and an archive in memory, give the same members. */
TR_TEST(dir_directory_and_memory)
{
    char dir[4096], label[4200];
    snprintf(dir, sizeof dir, "%s", sample("recorder/g3-iomix-2r"));
    snprintf(label, sizeof label, "%s/", dir);
    tr_dir *d;
    tr_error e = {0};
    CHECK_INT(tr_dir_open(&d, dir, &e), TR_OK);
    CHECK_STR(tr_dir_label(d), label);
    check_members(d, label);
    tr_dir_close(d);

    size_t n;
    char *tgz = file_text(sample("recorder/g3-iomix-2r.tgz"), &n);
    tr_dir *m, *sub;
    CHECK_INT(tr_dir_open_memory(&m, "mem.tgz", tgz, n, &e), TR_OK);
    CHECK_INT(tr_dir_open_sub(&sub, m, "g3-iomix-2r", &e), TR_OK);
    check_members(sub, "mem.tgz:g3-iomix-2r/");
    tr_dir_close(sub);
    tr_dir_close(m);
    tr_free(tgz);

    CHECK(tr_dir_open(&d, sample("gt/gt-server-2workers.log"), &e) < 0);
    CHECK_INT(e.code, TR_E_FORMAT);
    CHECK(tr_dir_open(&d, "-", &e) < 0);
    CHECK_INT(e.code, TR_E_USAGE);
}

/*
** A Recorder tarball is read in place: with TMPDIR pointing nowhere the
** load still works, and reads what the directory holds.
*/
TR_TEST(archive_read_without_disk)
{
    tr_test_tmpdir(); /* the harness's own scratch directory, made before */
    const char *old = getenv("TMPDIR");
    char *saved = old ? strdup(old) : NULL;
    setenv("TMPDIR", "/nonexistent/tracecat-test", 1);
    counter a = {0}, b = {0};
    tr_error e = {0};
    int rc;
    tr_trace *t = load_counted(sample("recorder/g3-iomix-2r.tgz"), &a, &rc, &e);
    CHECK_INT(rc, TR_OK);
    tr_trace *u = load_counted(sample("recorder/g3-iomix-2r"), &b, &rc, &e);
    CHECK_INT(rc, TR_OK);
    if (saved)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
    free(saved);
    CHECK_INT(a.events, b.events);
    CHECK_INT(model_events(t), model_events(u));
    tr_trace_free(t);
    tr_trace_free(u);
}

/* ---- transient allocation failures ---- */

/* A load of IN into a fresh trace, allocation FAIL failing alone (0: none), as Chrome JSON in OUT.
 */
typedef struct load_once {
    const char *in, *out;
    uint64_t fail;
    int rc;
} load_once;

static void *load_once_run(void *p)
{
    load_once *l = p;
    tr_trace *t = tr_trace_new();
    tr_diag quiet = {NULL, NULL, 0, 0};
    tr_load_opts o = {.readers = tr_readers, .read = {.diag = &quiet}};
    tr_error e = {0};
    tr_alloc_fail_once(l->fail);
    l->rc = t ? tr_load(t, l->in, &o, &e) : TR_FATAL;
    tr_alloc_fail_after(0);
    if (l->rc == TR_OK) l->rc = tr_trace_freeze(t, &e);
    if (l->rc == TR_OK) l->rc = tr_write_trace(tr_writer_find("chrome"), t, l->out, NULL, &e);
    tr_trace_free(t);
    return NULL;
}

/* A load of IN written to GOT, compared with WANT (WANT_N bytes), a load's without failures. */
typedef struct load_case {
    const char *in, *name, *got, *want;
    size_t want_n;
} load_case;

static int load_failing(void *user, uint64_t n)
{
    const load_case *c = user;
    load_once l = {c->in, c->got, n, TR_OK};
    load_once_run(&l);
    if (l.rc != TR_OK) return 1;
    int same = tr_test_file_is(c->got, c->want, c->want_n);
    if (!same)
        fprintf(stderr, "  %s: allocation %llu failed, the trace differs\n", c->name,
                (unsigned long long)n);
    CHECK(same);
    return 0;
}

/*
** Each allocation of a load fails in turn, alone: the load fails, or the
** trace holds what a load without failures reads (its events, args,
** names and labels, as Chrome JSON).  Found so: the Chrome reader lost an async slice when
** its track table could not grow, cut "snapshot" off an object's arg keys
** and a counter's id off its name when a buffer could not, and a thread
** when its map could not; arg sets that readers merge (Chrome's E args,
** py-spy's locals) read back as empty; py-spy's process label was
** left out when its text could not be built.  An input is done after 60
** allocations in a row that fail nothing: none has more than 300.
*/
TR_TEST(readers_no_silent_loss_out_of_memory)
{
    static const char *const ins[] = {
        "testdata/chrome/catapult/async_begin_end.json",
        "testdata/chrome/catapult/chromeos_system_trace.json",
        "testdata/chrome/catapult/instance_counters.json",
        "testdata/chrome/perfetto/diff_tests/json_id2.json",
        "testdata/chrome/perfetto/diff_tests/args_ordered.json",
        "testdata/chrome/speedscope/trace-event/multi-thread-with-samples.json",
        "testdata/pyspy/07_airflow7935_locals_double_colon_truncated.txt",
        "testdata/pyspy/10_sglang17941_native_watchdog_interleaved_partial.txt",
        "testdata/gt/gt-tiny-visualize_demo-1worker.log",
        "testdata/recorder/iomix-2r",
    };
    char in[2048], ref[2048], got[2048];
    for (size_t k = 0; k < sizeof ins / sizeof ins[0]; k++) {
        snprintf(in, sizeof in, "%s/%s", tr_test_srcdir(), ins[k]);
        snprintf(ref, sizeof ref, "%s/oom-ref-%zu.json", tr_test_tmpdir(), k);
        snprintf(got, sizeof got, "%s/oom-%zu.json", tr_test_tmpdir(), k);
        load_once whole = {in, ref, 0, TR_OK};
        load_once_run(&whole);
        CHECK_INT(whole.rc, TR_OK);
        load_case c = {in, ins[k], got, NULL, 0};
        char *want = tr_test_slurp(ref, &c.want_n);
        CHECK(want != NULL);
        if (!want) continue;
        c.want = want;
        CHECK(tr_test_each_alloc_failing(load_failing, &c, 60, 5000) > 0);
        free(want);
    }
}
