/*
** test_writers.c: the chrome and lines writers on a small hand-built trace,
** and the writer driver (tr_write_inputs): per-input parts, directory
** targets that appear whole or not at all.
*/
#include "tr_test.h"
#include "tr_load.h"
#include "tr_mem.h"
#include "tr_readers.h"
#include "tr_writers.h"
#include "tr_text.h"

#include <sqlite3.h>

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The descriptors are declared only where the registry lists them. */
extern const tr_writer tr_writer_chrome;
extern const tr_writer tr_writer_lines;

/*
** Two processes of one input: "main\tproc" (pid 1234, rank 0) with a thread
** and a counter track, and an unnamed one without a pid with a worker track.
*/
static tr_trace *build(void)
{
    tr_trace *t = tr_trace_new();
    CHECK(t != NULL);
    uint32_t in = tr_input_add(t, "run.log", "gt");
    tr_input_info *ii = tr_input_at(t, in);
    ii->origin_wall = tr_str_internz(t, "2024-01-02 03:04:05");
    ii->clock = tr_str_internz(t, "elapsed");
    uint32_t p0 = tr_process_intern(t, in, 1234);
    tr_process_at(t, p0)->name = tr_str_internz(t, "main\tproc");
    tr_process_at(t, p0)->rank = 0;
    tr_process_at(t, p0)->sort_index = 3;
    uint32_t p1 = tr_process_intern(t, in, -1);
    uint32_t ta = tr_track_intern(t, p0, TR_TRACK_THREAD, 7, tr_str_internz(t, "MainThread"));
    uint32_t tc = tr_track_intern(t, p0, TR_TRACK_COUNTER, -1, tr_str_internz(t, "mem"));
    uint32_t tw = tr_track_intern(t, p1, TR_TRACK_WORKER, -1, tr_str_internz(t, "worker 0"));
    CHECK_INT(ta, 0);
    CHECK_INT(tc, 1);
    CHECK_INT(tw, 2);

    tr_args_begin(t);
    tr_args_str(t, tr_str_internz(t, "path"), tr_str_internz(t, "/tmp/x"));
    uint32_t args = tr_args_end(t);
    /* added out of order: the writers see freeze's time order */
    uint32_t inner = tr_slice_add(t, ta, 2000, 1000, tr_str_internz(t, "inner"), 0, -1, 0);
    uint32_t read = tr_slice_add(t, ta, 1000, 2500000, tr_str_internz(t, "read"),
                                 tr_str_internz(t, "io"), 4096, args);
    uint32_t mark =
        tr_instant_add(t, ta, 1500, tr_str_internz(t, "mark\nline"), 0, TR_SCOPE_PROCESS, -1, 0);
    tr_counter_add(t, tc, 4000, 2.0);
    tr_counter_add(t, tc, 3000, 1.5);

    tr_frame f = {tr_str_internz(t, "main"), tr_str_internz(t, "m.py"), 0, 1, 0};
    uint32_t s = tr_stack_push(t, 0, tr_frame_intern(t, &f));
    f.function = tr_str_internz(t, "f");
    s = tr_stack_push(t, s, tr_frame_intern(t, &f));
    f.function = tr_str_internz(t, "g\"q");
    s = tr_stack_push(t, s, tr_frame_intern(t, &f));
    tr_sample_add(t, tw, 5000, s, 0);

    tr_flow fl = {TR_REF(TR_EV_SLICE, read), TR_REF(TR_EV_INSTANT, mark), tr_str_internz(t, "req"),
                  0, 99};
    tr_flow_add(t, &fl);
    CHECK(inner != TR_NONE);
    tr_error e;
    CHECK_INT(tr_trace_status(t, &e), TR_OK);
    CHECK_INT(tr_trace_freeze(t, &e), TR_OK);
    return t;
}

/* Writes T with W to NAME in the scratch dir and returns the file's text. */
static char *write_to(const tr_trace *t, const tr_writer *w, const char *name,
                      const tr_write_opts *o, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", tr_test_tmpdir(), name);
    tr_error e;
    int rc = tr_write_trace(w, t, path, o, &e);
    CHECK_INT(rc, TR_OK);
    if (rc != TR_OK) return NULL;
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    if (!f) return NULL;
    tr_buf b;
    tr_buf_init(&b, 0);
    CHECK_INT(tr_buf_grow(&b, 0), TR_OK); /* so b.p is always the caller's to free */
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) CHECK_INT(tr_buf_add(&b, chunk, n), TR_OK);
    fclose(f);
    return b.p;
}

/* Python's json module accepts the file (skipped when there is no python3). */
static void check_json_loads(const char *path)
{
    if (system("python3 -c pass >/dev/null 2>&1") != 0) {
        fprintf(stderr, "  (no python3: JSON validity not checked)\n");
        return;
    }
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '%s'",
             path);
    CHECK_INT(system(cmd), 0);
}

static int drop_instants(void *user, const tr_trace *t, const tr_event *ev)
{
    (void)user;
    (void)t;
    return ev->kind != TR_EV_INSTANT;
}

TR_TEST(lines_exact)
{
    tr_trace *t = build();
    char path[4200];
    tr_write_opts o = {.filter = NULL, .header = 1};
    char *got = write_to(t, &tr_writer_lines, "out.tsv", &o, path, sizeof path);
    CHECK_STR(got, "#kind\tts\tdur\tprocess\ttrack\tcategory\tname\tvalue\targs\n"
                   "slice\t0.000001000\t0.002500000\tmain proc\tMainThread\tio\tread\t4096\t"
                   "{\"path\":\"/tmp/x\"}\n"
                   "instant\t0.000001500\t\tmain proc\tMainThread\t\tmark line\t\t{}\n"
                   "slice\t0.000002000\t0.000001000\tmain proc\tMainThread\t\tinner\t\t{}\n"
                   "counter\t0.000003000\t\tmain proc\tmem\t\t\t1.5\t{}\n"
                   "counter\t0.000004000\t\tmain proc\tmem\t\t\t2\t{}\n"
                   "sample\t0.000005000\t\t\tworker 0\t\tmain;f;g\"q\t\t{}\n");
    tr_free(got);
    tr_trace_free(t);
}

/* Writer W's output of a fresh build() at PATH, allocation FAIL_ONCE failing (0: none). */
static int write_built(const tr_writer *w, const char *path, uint64_t fail_once)
{
    tr_trace *t = build();
    tr_error e = {0};
    tr_alloc_fail_once(fail_once);
    int rc = tr_write_trace(w, t, path, NULL, &e);
    tr_alloc_fail_after(0);
    tr_trace_free(t);
    return rc;
}

typedef struct sweep_run {
    const tr_writer *w;
    const char *path;
    uint64_t fail;
    int rc;
} sweep_run;

static void *sweep_run_one(void *p)
{
    sweep_run *r = p;
    r->rc = write_built(r->w, r->path, r->fail);
    return NULL;
}

static int cmp_text(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
** What a query of the database at PATH sees: every table and view a user
** reads (not SQLite's own, not the __intrinsic storage under the views),
** its rows sorted.  Out of memory the writer may store a set as arg rows
** instead of a packed row: the bytes differ, the args view does not.
*/
static char *sqlite_seen(const char *path)
{
    sqlite3 *db;
    sqlite3_stmt *names, *rows;
    tr_buf b;
    tr_buf_init(&b, 0);
    CHECK_INT(tr_buf_grow(&b, 0), TR_OK);
    CHECK_INT(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    CHECK_INT(
        sqlite3_prepare_v2(db,
                           "SELECT name FROM sqlite_master WHERE type IN ('table','view') AND "
                           "name NOT LIKE 'sqlite%' AND name NOT LIKE '\\_\\_%' ESCAPE "
                           "'\\' ORDER BY name",
                           -1, &names, NULL),
        SQLITE_OK);
    while (sqlite3_step(names) == SQLITE_ROW) {
        char sql[512];
        snprintf(sql, sizeof sql, "SELECT * FROM \"%s\"", sqlite3_column_text(names, 0));
        CHECK_INT(sqlite3_prepare_v2(db, sql, -1, &rows, NULL), SQLITE_OK);
        char **line = NULL;
        size_t n = 0;
        while (sqlite3_step(rows) == SQLITE_ROW) {
            tr_buf r;
            tr_buf_init(&r, 0);
            CHECK_INT(tr_buf_grow(&r, 0), TR_OK);
            for (int c = 0; c < sqlite3_column_count(rows); c++) {
                const unsigned char *v = sqlite3_column_text(rows, c);
                tr_buf_addf(&r, "%s|", v ? (const char *)v : "NULL");
            }
            char **more = realloc(line, (n + 1) * sizeof *line);
            CHECK(more != NULL);
            if (!more) break;
            line = more;
            line[n++] = r.p;
        }
        sqlite3_finalize(rows);
        if (n) qsort(line, n, sizeof *line, cmp_text);
        tr_buf_addf(&b, "%s:\n", sqlite3_column_text(names, 0));
        for (size_t i = 0; i < n; i++) {
            tr_buf_addf(&b, "%s\n", line[i]);
            tr_free(line[i]);
        }
        free(line);
    }
    sqlite3_finalize(names);
    sqlite3_close(db);
    return b.p;
}

/* Whether the outputs at A and B are the same: bytes, a tree's files, or a database's rows. */
static int same_output(const tr_writer *w, const char *a, const char *b)
{
    if (strcmp(w->name, "sqlite") == 0) {
        char *x = sqlite_seen(a), *y = sqlite_seen(b);
        int same = strcmp(x, y) == 0;
        tr_free(x);
        tr_free(y);
        return same;
    }
    char cmd[4200 * 2];
    snprintf(cmd, sizeof cmd, "diff -r '%s' '%s' >/dev/null 2>&1", a, b);
    return system(cmd) == 0;
}

/*
** Each allocation of each writer's write fails in turn, alone, on a thread
** of its own (whose caches start empty): the write fails and leaves no
** output, or its output is the one a write without failures makes.  A
** writer is done after 40 allocations in a row that fail nothing, or 400
** (parquet makes more).  The sqlite writer lost the packed args when their
** rows could not be added, and every writer wrote an arg set it could not
** decode as {}: both found so.
*/
TR_TEST(writers_no_silent_loss_out_of_memory)
{
    char ref[2048], got[2048], cmd[4200];
    for (size_t k = 0; tr_writers[k]; k++) {
        const tr_writer *w = tr_writers[k];
        const char *slash = w->flags & (TR_WRITE_DIR | TR_WRITE_DIR_OR_FILE) ? "/" : "";
        snprintf(ref, sizeof ref, "%s/sweep-%s-ref%s", tr_test_tmpdir(), w->name, slash);
        snprintf(got, sizeof got, "%s/sweep-%s%s", tr_test_tmpdir(), w->name, slash);
        CHECK_INT(write_built(w, ref, 0), TR_OK);
        int failed = 0, quiet = 0;
        for (uint64_t n = 1; n < 400 && quiet < 40; n++) {
            sweep_run r = {w, got, n, TR_OK};
            pthread_t tid;
            CHECK_INT(pthread_create(&tid, NULL, sweep_run_one, &r), 0);
            pthread_join(tid, NULL);
            snprintf(cmd, sizeof cmd, "test -e '%s'", got);
            int exists = system(cmd) == 0;
            if (r.rc != TR_OK) {
                failed++;
                quiet = 0;
                if (exists)
                    fprintf(stderr, "  %s: allocation %llu failed the write, output left\n",
                            w->name, (unsigned long long)n);
                CHECK(!exists);
                continue;
            }
            quiet++;
            int same = exists && same_output(w, ref, got);
            if (!same)
                fprintf(stderr, "  %s: allocation %llu failed, the output differs\n", w->name,
                        (unsigned long long)n);
            CHECK(same);
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", got);
            CHECK_INT(system(cmd), 0);
        }
        CHECK(failed > 0);
    }
}

TR_TEST(lines_filter_no_header)
{
    tr_trace *t = build();
    char path[4200];
    tr_filter f = {drop_instants, NULL};
    tr_write_opts o = {.filter = &f, .header = 0};
    char *got = write_to(t, &tr_writer_lines, "filtered.tsv", &o, path, sizeof path);
    CHECK(got && strncmp(got, "slice\t0.000001000\t", 18) == 0);
    CHECK(got && strstr(got, "instant") == NULL);
    CHECK(got && strstr(got, "\ncounter\t0.000004000\t") != NULL);
    tr_free(got);
    /* no options at all: every event, no header */
    got = write_to(t, &tr_writer_lines, "plain.tsv", NULL, path, sizeof path);
    CHECK(got && strncmp(got, "slice\t", 6) == 0);
    CHECK(got && strstr(got, "\ninstant\t") != NULL);
    tr_free(got);
    tr_trace_free(t);
}

TR_TEST(lines_pid_fallback)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "x", "gt");
    uint32_t p = tr_process_intern(t, in, 42);
    uint32_t tk = tr_track_intern(t, p, TR_TRACK_THREAD, 1, tr_str_internz(t, "t\r1"));
    tr_args_begin(t);
    tr_args_str(t, tr_str_internz(t, "k"), tr_str_internz(t, "a\tb"));
    tr_instant_add(t, tk, -2500, tr_str_internz(t, "x"), tr_str_internz(t, "c\n"), TR_SCOPE_THREAD,
                   0, tr_args_end(t));
    tr_error e;
    CHECK_INT(tr_trace_freeze(t, &e), TR_OK);
    char path[4200];
    char *got = write_to(t, &tr_writer_lines, "pid.tsv", NULL, path, sizeof path);
    CHECK_STR(got, "instant\t-0.000002500\t\tpid 42\tt 1\tc \tx\t0\t{\"k\":\"a\\tb\"}\n");
    tr_free(got);
    tr_trace_free(t);
}

TR_TEST(chrome_valid_json)
{
    tr_trace *t = build();
    char path[4200];
    char *got = write_to(t, &tr_writer_chrome, "out.json", NULL, path, sizeof path);
    CHECK(got != NULL);
    if (!got) return;
    check_json_loads(path);
    static const char *const want[] = {
        "{\"traceEvents\":[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,"
        "\"args\":{\"name\":\"main\\tproc\",\"source_pid\":1234,\"rank\":0}},\n",
        "\n{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":1,\"tid\":0,"
        "\"args\":{\"sort_index\":3}},\n",
        "\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"tid\":0,"
        "\"args\":{\"name\":\"process 2\"}},\n",
        "\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,"
        "\"args\":{\"name\":\"MainThread\",\"source_tid\":7}},\n",
        "\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":2,\"tid\":3,"
        "\"args\":{\"name\":\"worker 0\"}},\n",
        "\n{\"name\":\"read\",\"cat\":\"io\",\"ph\":\"X\",\"ts\":1.000,\"dur\":2500.000,"
        "\"pid\":1,\"tid\":1,\"args\":{\"path\":\"/tmp/x\",\"bytes\":4096}},\n"
        "{\"name\":\"req\",\"ph\":\"s\",\"id\":1,\"ts\":1.000,\"pid\":1,\"tid\":1},\n"
        "{\"name\":\"mark\\nline\",\"ph\":\"i\",\"s\":\"p\",\"ts\":1.500,\"pid\":1,\"tid\":1},\n"
        "{\"name\":\"req\",\"ph\":\"f\",\"bp\":\"e\",\"id\":1,\"ts\":1.500,\"pid\":1,\"tid\":1},\n"
        "{\"name\":\"inner\",\"ph\":\"X\",\"ts\":2.000,\"dur\":1.000,\"pid\":1,\"tid\":1},\n"
        "{\"name\":\"mem\",\"ph\":\"C\",\"ts\":3.000,\"pid\":1,\"tid\":2,\"args\":{\"mem\":1.5}},\n"
        "{\"name\":\"mem\",\"ph\":\"C\",\"ts\":4.000,\"pid\":1,\"tid\":2,\"args\":{\"mem\":2}}\n],"
        "\n"
        "\"samples\":[\n{\"ts\":5.000,\"pid\":2,\"tid\":3,\"sf\":\"3\"}],\n\"stackFrames\":{\n"
        "\"1\":{\"name\":\"main\",\"file\":\"m.py\",\"line\":1},\n"
        "\"2\":{\"name\":\"f\",\"parent\":\"1\",\"file\":\"m.py\",\"line\":1},\n"
        "\"3\":{\"name\":\"g\\\"q\",\"parent\":\"2\",\"file\":\"m.py\",\"line\":1}},\n",
        "\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"generator\":\"tracecat " TRACECAT_VERSION
        "\",\"origin_wall\":\"2024-01-02 03:04:05\",\n\"inputs\":[\n{\"path\":\"run.log\","
        "\"format\":\"gt\",\"clock\":\"elapsed\",\"origin_wall\":\"2024-01-02 03:04:05\"}],\n"
        "\"ranks\":{\"1\":0}}}\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (!strstr(got, want[i])) fprintf(stderr, "  missing: %s\n", want[i]);
        CHECK(strstr(got, want[i]) != NULL);
    }
    tr_free(got);
    tr_trace_free(t);
}

TR_TEST(chrome_filter_drops_flow)
{
    tr_trace *t = build();
    char path[4200];
    tr_filter f = {drop_instants, NULL};
    tr_write_opts o = {.filter = &f, .header = 0};
    char *got = write_to(t, &tr_writer_chrome, "filtered.json", &o, path, sizeof path);
    CHECK(got != NULL);
    if (!got) return;
    check_json_loads(path);
    CHECK(strstr(got, "\"ph\":\"i\",\"s\":\"p\"") == NULL);
    CHECK(strstr(got, "\"ph\":\"s\"") == NULL);
    CHECK(strstr(got, "\"ph\":\"f\"") == NULL);
    CHECK(strstr(got, "\"name\":\"read\"") != NULL);
    tr_free(got);
    tr_trace_free(t);
}

TR_TEST(chrome_empty_trace)
{
    tr_trace *t = tr_trace_new();
    tr_error e;
    CHECK_INT(tr_trace_freeze(t, &e), TR_OK);
    char path[4200];
    char *got = write_to(t, &tr_writer_chrome, "empty.json", NULL, path, sizeof path);
    CHECK_STR(got, "{\"traceEvents\":[\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{"
                   "\"generator\":\"tracecat " TRACECAT_VERSION "\",\n\"inputs\":[],\n"
                   "\"ranks\":{}}}\n");
    check_json_loads(path);
    tr_free(got);
    tr_trace_free(t);
}

/* Larger than the flush size, with every kind of event: still one valid document. */
TR_TEST(chrome_large_streams)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "big", "gt");
    uint32_t p = tr_process_intern(t, in, 1);
    uint32_t tk = tr_track_intern(t, p, TR_TRACK_THREAD, 1, tr_str_internz(t, "t"));
    uint32_t tc = tr_track_intern(t, p, TR_TRACK_COUNTER, -1, tr_str_internz(t, "c"));
    tr_str name = tr_str_internz(t, "op");
    for (int i = 0; i < 20000; i++) {
        tr_slice_add(t, tk, (int64_t)i * 1000, 500, name, 0, i, 0);
        tr_counter_add(t, tc, (int64_t)i * 1000 + 1, i * 0.25);
    }
    tr_error e;
    CHECK_INT(tr_trace_freeze(t, &e), TR_OK);
    char path[4200];
    char *got = write_to(t, &tr_writer_chrome, "big.json", NULL, path, sizeof path);
    CHECK(got && strlen(got) > 1000000);
    CHECK(got && strstr(got, "\"ts\":19999.000,\"dur\":0.500") != NULL);
    check_json_loads(path);
    tr_free(got);
    got = write_to(t, &tr_writer_lines, "big.tsv", NULL, path, sizeof path);
    size_t rows = 0;
    for (const char *q = got; q && *q; q++) rows += *q == '\n';
    CHECK_INT(rows, 40000);
    tr_free(got);
    tr_trace_free(t);
}

TR_TEST(writers_registered)
{
    CHECK(tr_writer_find("chrome") == &tr_writer_chrome);
    CHECK(tr_writer_find("lines") == &tr_writer_lines);
    CHECK(tr_writer_for_path("out.json.gz") == &tr_writer_chrome);
    CHECK(tr_writer_for_path("out.tsv") == &tr_writer_lines);
    CHECK(tr_writer_for_path("out.TXT") == &tr_writer_lines);
    CHECK_INT(tr_writer_chrome.binary, 0);
    CHECK_INT(tr_writer_lines.binary, 0);
}

/* ---- the driver and directory targets ---- */

/* A test writer into a directory: a file per add, failing on the add FAIL_AT (1-based). */
typedef struct dir_writer_state {
    int adds;
    int fail_at;
    int ended;
} dir_writer_state;

static dir_writer_state dw_state;

static int dw_begin(tr_write *w, tr_error *e)
{
    (void)e;
    CHECK(tr_output_dir(w->out) != NULL);
    w->state = &dw_state;
    return TR_OK;
}

static int dw_add(tr_write *w, const tr_trace *t, tr_error *e)
{
    dir_writer_state *s = w->state;
    char path[4400];
    snprintf(path, sizeof path, "%s/part-%d", tr_output_dir(w->out), ++s->adds);
    FILE *f = fopen(path, "w");
    if (!f) return tr_errorf(e, TR_E_IO, NULL, "cannot create %s", path);
    fprintf(f, "%zu inputs\n", tr_input_count(t));
    fclose(f);
    if (s->adds == s->fail_at) return tr_errorf(e, TR_E_FORMAT, NULL, "failing as asked");
    return TR_OK;
}

static int dw_end(tr_write *w, int rc, tr_error *e)
{
    (void)e;
    ((dir_writer_state *)w->state)->ended = 1;
    return rc;
}

static const tr_writer dir_writer = {
    .abi = TR_WRITER_ABI,
    .name = "testdir",
    .description = "a directory of one file per part",
    .extensions = "",
    .flags = TR_WRITE_DIR | TR_WRITE_PER_INPUT,
    .begin = dw_begin,
    .add = dw_add,
    .end = dw_end,
};

/* The load step: input I becomes a trace with one input named after it. */
static int dw_load(void *user, tr_trace *t, size_t first, size_t n, tr_error *e)
{
    (void)user;
    for (size_t i = first; i < first + n; i++) {
        char name[32];
        snprintf(name, sizeof name, "in%zu", i);
        tr_input_add(t, name, "test");
    }
    return tr_trace_freeze(t, e);
}

/* How many entries of directory DIR start with PREFIX (-1: no such directory). */
static int entries(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strncmp(de->d_name, prefix, strlen(prefix)) == 0 && strcmp(de->d_name, ".") != 0 &&
            strcmp(de->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

TR_TEST(dir_target_whole_on_success)
{
    char base[4200], out[4300];
    snprintf(base, sizeof base, "%s/dirok", tr_test_tmpdir());
    CHECK_INT(mkdir(base, 0777), 0);
    snprintf(out, sizeof out, "%s/run", base);
    dw_state = (dir_writer_state){0};
    tr_error e = {0};
    CHECK_INT(tr_write_inputs(&dir_writer, out, NULL, 3, dw_load, NULL, &e), TR_OK);
    CHECK_INT(dw_state.adds, 3); /* one add per input */
    CHECK(dw_state.ended);
    CHECK_INT(entries(out, "part-"), 3);
    CHECK_INT(entries(base, ".run"), 0); /* no temporary directory left */
    /* a full directory is never replaced; an empty one is */
    dw_state = (dir_writer_state){0};
    CHECK(tr_write_inputs(&dir_writer, out, NULL, 1, dw_load, NULL, &e) < 0);
    CHECK_INT(e.code, TR_E_USAGE);
    CHECK(strstr(e.msg, "not empty") != NULL);
    CHECK_INT(entries(out, "part-"), 3);
    char empty[4400];
    snprintf(empty, sizeof empty, "%s/empty", base);
    CHECK_INT(mkdir(empty, 0777), 0);
    CHECK_INT(tr_write_inputs(&dir_writer, empty, NULL, 1, dw_load, NULL, &e), TR_OK);
    CHECK_INT(entries(empty, "part-"), 1);
    /* standard output is no directory */
    CHECK(tr_write_inputs(&dir_writer, "-", NULL, 1, dw_load, NULL, &e) < 0);
    CHECK_INT(e.code, TR_E_USAGE);
}

/* A directory target is atomic: a writer that fails leaves no directory and no temporary. */
TR_TEST(dir_target_atomic_on_failure)
{
    char base[4200], out[4300];
    snprintf(base, sizeof base, "%s/dirfail", tr_test_tmpdir());
    CHECK_INT(mkdir(base, 0777), 0);
    snprintf(out, sizeof out, "%s/run", base);
    dw_state = (dir_writer_state){.fail_at = 2};
    tr_error e = {0};
    CHECK(tr_write_inputs(&dir_writer, out, NULL, 3, dw_load, NULL, &e) < 0);
    CHECK_INT(e.code, TR_E_FORMAT);
    CHECK_INT(dw_state.adds, 2); /* nothing after the failure */
    CHECK(dw_state.ended);
    struct stat st;
    CHECK(stat(out, &st) != 0);
    CHECK_INT(entries(base, ""), 0);
}

/*
** A dataset writer taking two parts at once (TR_WRITE_PARTS_AT_ONCE): part
** I's add writes DIR/part-I; the add of part WAIT_PART waits (10 s at most)
** until part WAIT_FOR's add has ended, and the add of part FAIL_AT fails.
*/
typedef struct once_state {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int ended[8], dropped[8], adds;
    int wait_part, wait_for, fail_at;
} once_state;

static once_state once;

static int once_begin(tr_write *w, tr_error *e)
{
    (void)e;
    w->state = &once;
    return TR_OK;
}

static int once_part(const tr_trace *t)
{
    return atoi(tr_str_get(t, tr_input_get(t, 0)->path, NULL) + 2); /* "inN" */
}

static void once_path(tr_write *w, int part, char *path, size_t n)
{
    snprintf(path, n, "%s/part-%d", tr_output_dir(w->out), part);
}

static int once_add(tr_write *w, const tr_trace *t, tr_error *e)
{
    int part = once_part(t), rc = TR_OK;
    char path[4400];
    once_path(w, part, path, sizeof path);
    FILE *f = fopen(path, "w");
    if (f) fclose(f);
    pthread_mutex_lock(&once.lock);
    once.adds++;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 10;
    while (part == once.wait_part && !once.ended[once.wait_for] &&
           pthread_cond_timedwait(&once.cond, &once.lock, &until) == 0) {
    }
    if (part == once.fail_at) {
        unlink(path);
        rc = tr_errorf(e, TR_E_FORMAT, NULL, "failing part %d", part);
    } else {
        w->keep = 1;
    }
    once.ended[part] = 1;
    pthread_cond_broadcast(&once.cond);
    pthread_mutex_unlock(&once.lock);
    return rc;
}

static void once_drop(tr_write *w, const tr_trace *t)
{
    char path[4400];
    once_path(w, once_part(t), path, sizeof path);
    unlink(path);
    pthread_mutex_lock(&once.lock);
    once.dropped[once_part(t)] = 1;
    pthread_mutex_unlock(&once.lock);
}

static const tr_writer once_writer = {
    .abi = TR_WRITER_ABI,
    .name = "testonce",
    .description = "a dataset of one file per part, two parts at once",
    .extensions = "",
    .flags = TR_WRITE_DIR | TR_WRITE_PER_INPUT | TR_WRITE_DATASET | TR_WRITE_PARTS_AT_ONCE,
    .begin = once_begin,
    .add = once_add,
    .drop = once_drop,
};

static void once_reset(int wait_part, int wait_for, int fail_at)
{
    memset(once.ended, 0, sizeof once.ended);
    memset(once.dropped, 0, sizeof once.dropped);
    once.adds = 0;
    once.wait_part = wait_part;
    once.wait_for = wait_for;
    once.fail_at = fail_at;
}

/*
** Two parts at once, and a part fails after the one beside it was written:
** that one is dropped, as a sequential run would never have written it; the
** parts before the failure stay (2026-11-28, issue 18).
*/
TR_TEST(driver_parts_at_once_drop)
{
    char out[4300];
    snprintf(out, sizeof out, "%s/once", tr_test_tmpdir());
    pthread_mutex_init(&once.lock, NULL);
    pthread_cond_init(&once.cond, NULL);
    tr_write_opts o = {.threads = 2};
    tr_error e = {0};
    once_reset(-1, 0, -1);
    CHECK_INT(tr_write_inputs(&once_writer, out, &o, 4, dw_load, NULL, &e), TR_OK);
    CHECK_INT(entries(out, "part-"), 4);
    /* part 1 fails once part 2 is written beside it: part 2 goes, part 3 is never added */
    snprintf(out, sizeof out, "%s/once-drop", tr_test_tmpdir());
    once_reset(1, 2, 1);
    CHECK(tr_write_inputs(&once_writer, out, &o, 4, dw_load, NULL, &e) < 0);
    CHECK(strstr(e.msg, "failing part 1") != NULL);
    CHECK_INT(once.ended[2], 1);
    CHECK_INT(once.dropped[2], 1);
    CHECK_INT(once.adds, 3);
    CHECK_INT(entries(out, "part-"), 1);
    CHECK_INT(entries(out, "part-0"), 1);
    /* part 2 fails first while part 1 is written: parts 0 and 1 stay, part 2's error is said */
    snprintf(out, sizeof out, "%s/once-later", tr_test_tmpdir());
    once_reset(1, 2, 2);
    CHECK(tr_write_inputs(&once_writer, out, &o, 4, dw_load, NULL, &e) < 0);
    CHECK(strstr(e.msg, "failing part 2") != NULL);
    CHECK_INT(once.dropped[1], 0);
    /* part 3 may be read and added while part 2's failure is said: it is dropped then */
    CHECK_INT(once.dropped[3], once.ended[3]);
    CHECK_INT(entries(out, "part-"), 2);
    CHECK_INT(entries(out, "part-1"), 1);
    pthread_cond_destroy(&once.cond);
    pthread_mutex_destroy(&once.lock);
}

/* A merged writer gets one add with every input; a load failure is passed on as it is. */
static int failing_load(void *user, tr_trace *t, size_t first, size_t n, tr_error *e)
{
    (void)user;
    (void)t;
    (void)first;
    (void)n;
    (void)e;
    return TR_FAIL;
}

TR_TEST(driver_merged_and_load_failure)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/merged.tsv", tr_test_tmpdir());
    tr_error e = {0};
    CHECK_INT(tr_write_inputs(&tr_writer_lines, path, NULL, 2, dw_load, NULL, &e), TR_OK);
    struct stat st;
    CHECK_INT(stat(path, &st), 0);
    snprintf(path, sizeof path, "%s/never.tsv", tr_test_tmpdir());
    e.code = TR_E_NONE;
    CHECK_INT(tr_write_inputs(&tr_writer_lines, path, NULL, 2, failing_load, NULL, &e), TR_FAIL);
    CHECK_INT(e.code, TR_E_NONE);
    CHECK(stat(path, &st) != 0);
}

/* A signal handler's cleanup removes a temporary directory with all it holds. */
TR_TEST(dir_target_cleanup_all)
{
    char base[4200], out[4300], sub[4500], file[4600];
    snprintf(base, sizeof base, "%s/dirsig", tr_test_tmpdir());
    CHECK_INT(mkdir(base, 0777), 0);
    snprintf(out, sizeof out, "%s/run", base);
    tr_output *o;
    tr_error e = {0};
    CHECK_INT(tr_output_open_dir(&o, out, TR_DIR_REPLACE, &e), TR_OK);
    const char *tmp = tr_output_dir(o);
    CHECK(tmp && strcmp(tmp, out) != 0);
    CHECK(tr_output_write(o, "x", 1, &e) < 0); /* a directory takes no bytes */
    snprintf(sub, sizeof sub, "%s/table/rank=1", tmp);
    char cmd[16000];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && touch '%s/a' '%s/b'", sub, sub, tmp);
    CHECK_INT(system(cmd), 0);
    snprintf(file, sizeof file, "%s/a", sub);
    struct stat st;
    CHECK_INT(stat(file, &st), 0);
    tr_output_cleanup_all();
    CHECK_INT(entries(base, ""), 0);
    tr_output_abort(o);
    CHECK_INT(entries(base, ""), 0);
}
