/*
** test_pyspy.c: the py-spy reader family (dump text, sequences, --json,
** folded, speedscope), the open-stacks slices and the folded writer.
*/
#include "../readers/pyspy_impl.h"
#include "tr_load.h"
#include "tr_readers.h"
#include "tr_writers.h"
#include "tr_stack_slices.h"
#include "tr_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const tr_reader tr_reader_pyspy;
extern const tr_writer tr_writer_folded;
extern const tr_writer tr_writer_chrome;

/* Reads N bytes at TEXT with the pyspy reader; warnings go to LOG. */
static int read_mem(tr_trace *t, const char *text, size_t n, tr_test_warns *log, int no_slices)
{
    tr_diag diag = {tr_test_on_warn, log, 0, 0};
    tr_read_opts o = {0};
    o.diag = &diag;
    o.no_stack_slices = no_slices;
    tr_error e = {0};
    tr_source *src;
    tr_input *in;
    int rc = tr_source_open_memory(&src, "mem.txt", text, n, &e);
    if (rc != TR_OK) return rc;
    rc = tr_source_next(src, &in, &e);
    if (rc == TR_OK) {
        tr_input_set_diag(in, &diag); /* bad bytes are warned as tr_load has them warned */
        uint32_t input = tr_input_add(t, "mem.txt", "pyspy");
        rc = tr_read_stream(&tr_reader_pyspy, in, t, input, &o, &e);
    }
    tr_source_close(src);
    if (rc != TR_OK) fprintf(stderr, "  read: %s\n", e.msg);
    return rc;
}

static tr_trace *read_text(const char *text, tr_test_warns *log)
{
    tr_trace *t = tr_trace_new();
    tr_error e;
    CHECK_INT(read_mem(t, text, strlen(text), log, 0), TR_OK);
    CHECK_INT(tr_trace_freeze(t, &e), TR_OK);
    return t;
}

static tr_trace *load_path(const char *path, int no_slices, uint64_t *warnings)
{
    tr_trace *t = tr_trace_new();
    tr_diag diag = {0};
    tr_read_opts ro = {.diag = &diag, .no_stack_slices = no_slices};
    tr_error e;
    int rc = tr_test_load(t, path, &ro, &e);
    if (rc != TR_OK) fprintf(stderr, "  load %s: %s\n", path, e.msg);
    CHECK_INT(rc, TR_OK);
    if (warnings) *warnings = diag.warnings;
    return t;
}

/* The stack of sample ROW as "f;g;h", root first, function names only. */
static const char *stack_text(const tr_trace *t, uint32_t stack)
{
    static char buf[8192];
    uint32_t ids[256];
    uint32_t d = 0;
    for (uint32_t s = stack; s && d < 256; s = tr_stack_parent(t, s))
        ids[d++] = tr_stack_frame(t, s);
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = d; i > 0 && len < sizeof buf; i--) {
        const tr_frame *f = tr_frame_get(t, ids[i - 1]);
        int w = snprintf(buf + len, sizeof buf - len, "%s%s", tr_str_get(t, f->function, NULL),
                         i > 1 ? ";" : "");
        if (w > 0) len += (size_t)w;
    }
    return buf;
}

static const char *track_name(const tr_trace *t, uint32_t track)
{
    return tr_str_get(t, tr_track_get(t, track)->name, NULL);
}

static const char *arg_str(const tr_trace *t, uint32_t set, const char *key)
{
    tr_arg a;
    if (!tr_args_find(t, set, key, &a) || a.type != TR_ARG_STR) return NULL;
    return tr_str_get(t, a.v.s, NULL);
}

/* Whether the trace has a slice NAME on a track named TRACK at TS lasting DUR (ns). */
static int has_slice(const tr_trace *t, const char *track, const char *name, int64_t ts,
                     int64_t dur)
{
    tr_slices s;
    tr_trace_slices(t, &s);
    for (size_t i = 0; i < s.n; i++)
        if (s.ts[i] == ts && tr_slice_dur(&s, i) == dur &&
            strcmp(tr_str_get(t, s.name[i], NULL), name) == 0 &&
            strcmp(track_name(t, s.track[i]), track) == 0)
            return 1;
    return 0;
}

/* ---- frames ---- */

TR_TEST(frame_split)
{
    tr_trace *t = tr_trace_new();
    static const struct {
        const char *text, *fn, *file;
        int line, native;
    } cases[] = {
        {"run (threading.py:864)", "run", "threading.py", 864, 0},
        {"<lambda> (a b/c(d).py:7)", "<lambda>", "a b/c(d).py", 7, 0},
        {"main (C:\\Users\\x\\t.py:12)", "main", "C:\\Users\\x\\t.py", 12, 0},
        {"poll (libc.so.6)", "poll", "libc.so.6", 0, 1},
        {"0x7caaa50b1a9b (?)", "0x7caaa50b1a9b", "?", 0, 1},
        {"backward ()", "backward", "", 0, 0},
        {"pthread_cond_timedwait", "pthread_cond_timedwait", "", 0, 1}, /* issue 19 item 10 */
        {"std::f(int) (libx.so)", "std::f(int)", "libx.so", 0, 1},
        {"_run_code (<frozen runpy>:88)", "_run_code", "<frozen runpy>", 88, 0},
        {"pollForEvents (glfw/backend_utils.c:321)", "pollForEvents", "glfw/backend_utils.c", 321,
         1},
        {"f (x.py:12a)", "f", "x.py:12a", 0, 1},
        {"\xc3\xa9t\xc3\xa9 (caf\xc3\xa9.py:1)", "\xc3\xa9t\xc3\xa9", "caf\xc3\xa9.py", 1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        uint32_t id = tr_pyspy_frame_intern(t, cases[i].text, strlen(cases[i].text));
        const tr_frame *f = tr_frame_get(t, id);
        CHECK(f != NULL);
        CHECK_STR(tr_str_get(t, f->function, NULL), cases[i].fn);
        CHECK_STR(tr_str_get(t, f->file, NULL), cases[i].file);
        CHECK_INT(f->line, cases[i].line);
        CHECK_INT(f->is_native, cases[i].native);
    }
    tr_trace_free(t);
}

/* ---- real samples ---- */

TR_TEST(real_samples_read_cleanly)
{
    static const struct {
        const char *file;
        size_t processes, tracks, samples, instants;
    } cases[] = {
        {"01_json_locals_pyspy505.json", 1, 1, 1, 0},
        {"02_uwsgi_thread_no_frames_pyspy221.txt", 1, 1, 1, 0},
        {"03_ray_stack_v01_tab_hexids_ray3187.txt", 1, 3, 3, 0},
        {"04_deepspeed3032_empty_filenames_truncated.txt", 1, 3, 3, 0},
        {"05_deepspeed6524_unnamed_threads_truncated.txt", 1, 5, 5, 0},
        {"06_pytorch135703_xargs_pgrep_truncated.txt", 1, 1, 1, 0},
        {"07_airflow7935_locals_double_colon_truncated.txt", 1, 1, 1, 0},
        {"08_ray30566_header_only_error_native.txt", 1, 1, 0, 1},
        {"09_vllm17676_py314_active_no_name_deep_truncated.txt", 1, 1, 1, 0},
        {"10_sglang17941_native_watchdog_interleaved_partial.txt", 2, 2, 2, 0},
        {"11_sglang_multiprocess_xargs_concat.txt", 4, 14, 14, 0},
        {"12_raw_folded_gevent_pyspy179.txt", 1, 1, 3, 0},
        {"13_kitty_native_glfw_trimmed.txt", 1, 1, 1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char rel[256];
        snprintf(rel, sizeof rel, "testdata/pyspy/%s", cases[i].file);
        uint64_t warnings;
        tr_trace *t = load_path(tr_test_src(rel), 0, &warnings);
        tr_samples s;
        tr_instants in;
        tr_trace_samples(t, &s);
        tr_trace_instants(t, &in);
        CHECK_INT(warnings, 0);
        CHECK_STR(tr_str_get(t, tr_input_get(t, 0)->format, NULL), "pyspy");
        CHECK_INT(tr_process_count(t), cases[i].processes);
        CHECK_INT(tr_track_count(t), cases[i].tracks);
        CHECK_INT(s.n, cases[i].samples);
        CHECK_INT(in.n, cases[i].instants);
        /* Lone dumps are snapshots: no time, no slices. */
        tr_slices sl;
        tr_trace_slices(t, &sl);
        CHECK_INT(sl.n, 0);
        tr_trace_free(t);
    }
}

TR_TEST(real_sample_details)
{
    /* 07: old "Arguments::" locals become args of the sample. */
    tr_trace *t = load_path(
        tr_test_src("testdata/pyspy/07_airflow7935_locals_double_colon_truncated.txt"), 0, NULL);
    tr_samples s;
    tr_trace_samples(t, &s);
    CHECK_STR(arg_str(t, s.args[0], "state"), "idle");
    CHECK_STR(arg_str(t, s.args[0], "args.0.self"), "<Connection at 0x7f5db7aac550>");
    CHECK_STR(arg_str(t, s.args[0], "locals.0.remaining"), "1213");
    CHECK_STR(arg_str(t, s.args[0], "locals.1.header"), "<bytes at 0x7f5dbc01fb10>");
    CHECK_STR(arg_str(t, s.args[0], "args.3.request"), "<TaskCallbackRequest at 0x7f5db7398940>");
    CHECK_STR(stack_text(t, s.stack[0]), "send_callback_to_execute;send;_send_bytes;_send");
    CHECK_INT(tr_process_get(t, 0)->pid, 132);
    CHECK_STR(tr_str_get(t, tr_process_get(t, 0)->labels, NULL), "Python 3.8.3");
    tr_trace_free(t);

    /* 03: 0.1.x tab frames, hex ids, the pid and command from ray's ps line. */
    t = load_path(tr_test_src("testdata/pyspy/03_ray_stack_v01_tab_hexids_ray3187.txt"), 0, NULL);
    CHECK_INT(tr_process_get(t, 0)->pid, 20768);
    CHECK_STR(tr_str_get(t, tr_process_get(t, 0)->name, NULL), "ray_worker");
    CHECK_INT(tr_track_get(t, 0)->tid, 0x7F4AA36D9700LL);
    CHECK_STR(track_name(t, 0), "Thread 0x7F4AA36D9700");
    tr_trace_free(t);

    /* 11: four processes, one after another: pseudo-times 0..3 s. */
    t = load_path(tr_test_src("testdata/pyspy/11_sglang_multiprocess_xargs_concat.txt"), 0, NULL);
    tr_trace_samples(t, &s);
    CHECK_INT(s.ts[s.n - 1], 3000000000LL);
    CHECK_STR(tr_str_get(t, tr_process_get(t, 3)->name, NULL), "sglang::scheduler_DP0_TP0");
    CHECK_STR(arg_str(t, s.args[2], "state"), "active+gil");
    tr_trace_free(t);

    /* 01: --json with locals: [] and thread_name null. */
    t = load_path(tr_test_src("testdata/pyspy/01_json_locals_pyspy505.json"), 0, NULL);
    tr_trace_samples(t, &s);
    CHECK_STR(stack_text(t, s.stack[0]), "<module>");
    CHECK_INT(tr_track_get(t, 0)->tid, 338370);
    CHECK_INT(tr_process_get(t, 0)->pid, 338370);
    tr_trace_free(t);

    /* 12: folded counts. */
    t = load_path(tr_test_src("testdata/pyspy/12_raw_folded_gevent_pyspy179.txt"), 0, NULL);
    tr_trace_samples(t, &s);
    tr_arg a;
    CHECK(tr_args_find(t, s.args[2], "count", &a));
    CHECK_INT(a.v.u, 500);
    CHECK_STR(stack_text(t, s.stack[2]), "_worker;get;wait");
    tr_trace_free(t);
}

/* ---- sequences and the open-stacks slices ---- */

static const char seq3[] =
    "#tracecat-dump ts=1772607893.000 pid=42 host=n1 rank=3\n"
    "Process 42: python train.py\n"
    "Python v3.12.3 (/usr/bin/python3.12)\n"
    "\n"
    "Thread 42 (active+gil): \"MainThread\"\n"
    "    step (train.py:20)\n"
    "    main (train.py:50)\n"
    "    <module> (train.py:60)\n"
    "Thread 43 (idle): \"loader\"\n"
    "    wait (threading.py:320)\n"
    "#tracecat-counter ts=1772607893.000 pid=42 cpu_pct=97.5 rss_bytes=1048576\n"
    "#tracecat-dump ts=1772607893.500 pid=42\n"
    "Process 42: python train.py\n"
    "Python v3.12.3 (/usr/bin/python3.12)\n"
    "\n"
    "Thread 42 (active): \"MainThread\"\n"
    "    forward (model.py:10)\n"
    "    step (train.py:21)\n"
    "    main (train.py:50)\n"
    "    <module> (train.py:60)\n"
    "#tracecat-dump ts=2026-03-04T07:04:54.250Z pid=42\n"
    "Process 42: python train.py\n"
    "Python v3.12.3 (/usr/bin/python3.12)\n"
    "\n"
    "Thread 42 (idle): \"MainThread\"\n"
    "    main (train.py:50)\n"
    "    <module> (train.py:60)\n"
    "Thread 43 (idle): \"loader\"\n"
    "    wait (threading.py:320)\n";

/*
** Three dumps at 0, 0.5 s and 1.25 s.  By putils' rule: <module> and main
** stay open throughout; step:20 closes when step moves to line 21; forward
** and step:21 close at the third dump; the loader, absent from the second
** dump, closes its wait there.  Frames that open at the last dump never close.
*/
TR_TEST(sequence_slices)
{
    tr_test_warns log = {0};
    tr_trace *t = read_text(seq3, &log);
    CHECK_INT(log.n, 0);
    tr_slices s;
    tr_trace_slices(t, &s);
    CHECK_INT(s.n, 6);
    CHECK(has_slice(t, "MainThread", "<module> (train.py:60)", 0, 1250000000));
    CHECK(has_slice(t, "MainThread", "main (train.py:50)", 0, 1250000000));
    CHECK(has_slice(t, "MainThread", "step (train.py:20)", 0, 500000000));
    CHECK(has_slice(t, "MainThread", "step (train.py:21)", 500000000, 750000000));
    CHECK(has_slice(t, "MainThread", "forward (model.py:10)", 500000000, 750000000));
    CHECK(has_slice(t, "loader", "wait (threading.py:320)", 0, 500000000));
    /* nesting follows the stack */
    for (size_t i = 0; i < s.n; i++)
        if (strcmp(tr_str_get(t, s.name[i], NULL), "forward (model.py:10)") == 0)
            CHECK_INT(s.depth[i], 3);
    tr_samples sm;
    tr_trace_samples(t, &sm);
    CHECK_INT(sm.n, 5);
    tr_counters c;
    tr_trace_counters(t, &c);
    CHECK_INT(c.n, 2);
    CHECK(c.value[0] == 97.5 || c.value[1] == 97.5);
    const tr_input_info *info = tr_input_get(t, 0);
    CHECK_INT(info->origin_unix_ns, 1772607893000000000LL);
    const tr_process *p = tr_process_get(t, 0);
    CHECK_INT(p->pid, 42);
    CHECK_INT(p->rank, 3);
    CHECK_STR(tr_str_get(t, p->host, NULL), "n1");
    tr_trace_free(t);

    /* The folded writer's readers build no slices. */
    t = tr_trace_new();
    CHECK_INT(read_mem(t, seq3, strlen(seq3), &log, 1), TR_OK);
    tr_trace_slices(t, &s);
    CHECK_INT(s.n, 0);
    tr_trace_free(t);
}

/* Without markers: "Process" lines cut the dumps, which are 1 s apart. */
TR_TEST(sequence_without_markers)
{
    static const char text[] = "$ py-spy dump --pid 7\n"
                               "Process 7: python a.py\n"
                               "Python v3.11.2 (/usr/bin/python3)\n"
                               "\n"
                               "Thread 7 (active): \"MainThread\"\n"
                               "    f (a.py:1)\n"
                               "    <module> (a.py:9)\n"
                               "\n"
                               "$ py-spy dump --pid 7\n"
                               "Process 7: python a.py\n"
                               "Python v3.11.2 (/usr/bin/python3)\n"
                               "\n"
                               "Thread 7 (active): \"MainThread\"\n"
                               "    g (a.py:2)\n"
                               "    <module> (a.py:9)\n"
                               "=== PID 7 ===\n"
                               "Process 7: python a.py\n"
                               "Python v3.11.2 (/usr/bin/python3)\n"
                               "\n"
                               "Thread 7 (idle): \"MainThread\"\n"
                               "    <module> (a.py:9)\n";
    tr_test_warns log = {0};
    tr_trace *t = read_text(text, &log);
    tr_samples sm;
    tr_trace_samples(t, &sm);
    CHECK_INT(sm.n, 3);
    CHECK_INT(sm.ts[2], 2000000000LL);
    CHECK(has_slice(t, "MainThread", "f (a.py:1)", 0, 1000000000));
    CHECK(has_slice(t, "MainThread", "g (a.py:2)", 1000000000, 1000000000));
    CHECK(has_slice(t, "MainThread", "<module> (a.py:9)", 0, 2000000000));
    tr_trace_free(t);
}

/* --subprocesses: children after a dash line belong to the same moment. */
TR_TEST(subprocesses_one_moment)
{
    static const char text[] = "Process 1: python parent.py\n"
                               "Python v3.12.0 (/usr/bin/python3)\n"
                               "\n"
                               "Thread 1 (idle): \"MainThread\"\n"
                               "    wait (parent.py:3)\n"
                               "\n"
                               "--------------------------------------------------\n"
                               "Process 2: python child.py\n"
                               "Python v3.12.0 (/usr/bin/python3)\n"
                               "Parent Process 1: python parent.py\n"
                               "\n"
                               "Thread 2 (active+gil): \"MainThread\"\n"
                               "    work (child.py:8)\n";
    tr_test_warns log = {0};
    tr_trace *t = read_text(text, &log);
    tr_samples sm;
    tr_trace_samples(t, &sm);
    CHECK_INT(tr_process_count(t), 2);
    CHECK_INT(sm.n, 2);
    CHECK_INT(sm.ts[0], 0);
    CHECK_INT(sm.ts[1], 0);
    tr_trace_free(t);
}

/* The slicer alone: a track's stack changes, another track disappears. */
TR_TEST(slicer_rules)
{
    tr_trace *t = tr_trace_new();
    uint32_t input = tr_input_add(t, "x", "test");
    uint32_t proc = tr_process_intern(t, input, 1);
    uint32_t a = tr_track_intern(t, proc, TR_TRACK_THREAD, 1, 0);
    tr_track_at(t, a)->name = tr_str_internz(t, "a");
    tr_frame f = {0};
    f.function = tr_str_internz(t, "root");
    uint32_t root = tr_frame_intern(t, &f);
    f.function = tr_str_internz(t, "leaf");
    f.file = tr_str_internz(t, "x.py");
    f.line = 3;
    uint32_t leaf = tr_frame_intern(t, &f);
    uint32_t s1 = tr_stack_push(t, 0, root), s2 = tr_stack_push(t, s1, leaf);
    tr_stack_slicer *sl = tr_stack_slicer_new(t);
    CHECK_INT(tr_stack_slicer_sample(sl, a, 10, s2), TR_OK);
    CHECK_INT(tr_stack_slicer_sample(sl, a, 20, s2), TR_OK);
    CHECK_INT(tr_stack_slicer_sample(sl, a, 30, s1), TR_OK);
    CHECK_INT(tr_stack_slicer_sample(sl, a, 40, 0), TR_OK);
    CHECK_INT(tr_stack_slicer_sample(sl, a, 50, s1), TR_OK);
    CHECK_INT(tr_stack_slicer_sweep(sl, proc, 60), TR_OK);
    CHECK_INT(tr_stack_slicer_finish(sl), TR_OK);
    tr_stack_slicer_free(sl);
    tr_error e;
    CHECK_INT(tr_trace_freeze(t, &e), TR_OK);
    tr_slices s;
    tr_trace_slices(t, &s);
    CHECK_INT(s.n, 3);
    CHECK(has_slice(t, "a", "root", 10, 30));
    CHECK(has_slice(t, "a", "leaf (x.py:3)", 10, 20));
    CHECK(has_slice(t, "a", "root", 50, 10));
    tr_trace_free(t);
}

/* ---- round trips ---- */

static int cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines of TEXT sorted, joined again. */
static char *sorted_lines(char *text)
{
    char *lines[4096];
    size_t n = 0;
    for (char *p = strtok(text, "\n"); p && n < 4096; p = strtok(NULL, "\n")) lines[n++] = p;
    qsort(lines, n, sizeof *lines, cmp_line);
    size_t len = 0;
    for (size_t i = 0; i < n; i++) len += strlen(lines[i]) + 1;
    char *out = calloc(1, len + 1), *at = out;
    for (size_t i = 0; out && i < n; i++) {
        size_t k = strlen(lines[i]);
        memcpy(at, lines[i], k);
        at[k] = '\n';
        at += k + 1;
    }
    return out;
}

static void write_with(const tr_trace *t, const tr_writer *w, const char *path, unsigned prefix)
{
    tr_error e = {0};
    tr_write_opts o = {0};
    o.folded_prefix = prefix;
    CHECK_INT(tr_write_trace(w, t, path, &o, &e), TR_OK);
}

/* TEXT read as folded stacks and written back is WANT (line order aside). */
static void folded_trip(const char *text, const char *want_text, unsigned prefix)
{
    char in_path[4096], out_path[4096];
    snprintf(in_path, sizeof in_path, "%s/in.folded", tr_test_tmpdir());
    snprintf(out_path, sizeof out_path, "%s/out.folded", tr_test_tmpdir());
    FILE *f = fopen(in_path, "wb");
    fputs(text, f);
    fclose(f);
    tr_trace *t = load_path(in_path, 1, NULL);
    write_with(t, &tr_writer_folded, out_path, prefix);
    size_t n;
    char *got = tr_test_slurp(out_path, &n), *want = strdup(want_text);
    char *gs = sorted_lines(got), *ws = sorted_lines(want);
    CHECK_STR(gs, ws);
    free(got);
    free(want);
    free(gs);
    free(ws);
    tr_trace_free(t);
}

static void folded_round_trip(const char *text, unsigned prefix)
{
    folded_trip(text, text, prefix);
}

TR_TEST(folded_round_trip)
{
    folded_round_trip("a (x.py:1);b (x.py:2);c (y.py) 5\n"
                      "a (x.py:1);b (x.py:3) 1\n"
                      "a (x.py:1) 12\n"
                      "main;poll (libc.so.6);0x7f259f405aa4 (libc.so.6) 7\n"
                      "<module> (C:\\w\\t.py:3);<lambda> (t.py:4);f(x) (lib x.so) 2\n"
                      "\xe4\xb8\xad (\xe6\x96\x87.py:1);\xe6\x96\x87 (\xe6\x96\x87.py:2) 3\n",
                      0);
    folded_round_trip("process 10:\"python a.py\";thread (11): MainThread;f (a.py:1) 4\n"
                      "process 10:\"python a.py\";thread (12);f (a.py:1);g (a.py:2) 1\n"
                      "process 20:\"python b.py\";thread (21): worker 1;h (b.py:5) 9\n",
                      TR_FOLDED_PROCESS | TR_FOLDED_THREAD);
    folded_round_trip("thread (11): MainThread;f (a.py:1) 4\n"
                      "thread (0x7F4AA36D9700);g (a.py:2) 2\n",
                      TR_FOLDED_THREAD);
}

/*
** Folded lines come in the order of their first sample, also when a
** thread's first sample of a stack comes after another thread's (that
** sample is counted after the others, its line put back in its place);
** and a line is whole when part of it is copied from the line before.
*/
TR_TEST(folded_first_sample_order)
{
    static const char text[] = "Thread 1 (idle): \"A\"\n    a (x.py:1)\n"
                               "Thread 2 (idle): \"B\"\n    b (x.py:2)\n"
                               "Thread 1 (idle): \"A\"\n    b (x.py:2)\n"
                               "Thread 2 (idle): \"B\"\n    c (x.py:3)\n"
                               "Thread 1 (idle): \"A\"\n    a (x.py:1)\n";
    tr_test_warns log = {0};
    tr_trace *t = read_text(text, &log);
    char out_path[4096];
    snprintf(out_path, sizeof out_path, "%s/order.folded", tr_test_tmpdir());
    write_with(t, &tr_writer_folded, out_path, TR_FOLDED_THREAD);
    size_t n;
    char *got = tr_test_slurp(out_path, &n);
    CHECK_STR(got, "thread (1): A;a (x.py:1) 2\n"
                   "thread (2): B;b (x.py:2) 1\n"
                   "thread (1): A;b (x.py:2) 1\n"
                   "thread (2): B;c (x.py:3) 1\n");
    free(got);
    write_with(t, &tr_writer_folded, out_path, 0);
    got = tr_test_slurp(out_path, &n);
    CHECK_STR(got, "a (x.py:1) 2\nb (x.py:2) 2\nc (x.py:3) 1\n");
    free(got);
    tr_trace_free(t);

    /* a line's frames shared with the line before of its root are copied from it, the last too */
    static const char grow[] =
        "Thread 1 (idle): \"A\"\n    b (x.py:2)\n    a (x.py:1)\n"
        "Thread 1 (idle): \"A\"\n    c (x.py:3)\n    b (x.py:2)\n    a (x.py:1)\n"
        "Thread 1 (idle): \"A\"\n    a (x.py:1)\n"
        "Thread 1 (idle): \"A\"\n    d (x.py:4)\n    c (x.py:3)\n"
        "    b (x.py:2)\n    a (x.py:1)\n"
        "Thread 1 (idle): \"A\"\n    e (x.py:5)\n    a (x.py:1)\n";
    t = read_text(grow, &log);
    write_with(t, &tr_writer_folded, out_path, 0);
    got = tr_test_slurp(out_path, &n);
    CHECK_STR(got, "a (x.py:1);b (x.py:2) 1\n"
                   "a (x.py:1);b (x.py:2);c (x.py:3) 1\n"
                   "a (x.py:1) 1\n"
                   "a (x.py:1);b (x.py:2);c (x.py:3);d (x.py:4) 1\n"
                   "a (x.py:1);e (x.py:5) 1\n");
    free(got);
    tr_trace_free(t);
}

/*
** A hand cut in a folded line is a gap, as a "..." line in a dump (issue 19
** item 9): the real sample's "[...more user code...]" is no frame (it was
** the leaf, and a top function), the sample says how many gaps it had.
*/
TR_TEST(folded_elision)
{
    size_t n;
    char *real = tr_test_slurp(tr_test_src("testdata/pyspy/12_raw_folded_gevent_pyspy179.txt"), &n);
    CHECK(real != NULL);
    if (!real) return;
    char want[4096];
    const char *cut = strstr(real, ";[...more user code...]");
    CHECK(cut != NULL && n < sizeof want);
    if (!cut || n >= sizeof want) {
        free(real);
        return;
    }
    size_t head = (size_t)(cut - real), cut_n = strlen(";[...more user code...]");
    memcpy(want, real, head);
    memcpy(want + head, cut + cut_n, n - head - cut_n + 1);
    folded_trip(real, want, 0);

    char path[4096];
    snprintf(path, sizeof path, "%s/cut.folded", tr_test_tmpdir());
    FILE *f = fopen(path, "wb");
    fputs(real, f);
    fputs("a (x.py:1);...;b (x.py:2);\xe2\x80\xa6 4\n... 1\n", f);
    fclose(f);
    free(real);
    tr_trace *t = load_path(path, 1, NULL);
    tr_samples s;
    tr_trace_samples(t, &s);
    CHECK_INT(s.n, 5);
    tr_arg a;
    CHECK_STR(stack_text(t, s.stack[0]), "_handle_and_close_when_done;handle;handle");
    CHECK(tr_args_find(t, s.args[0], "elided", &a) && a.v.u == 1);
    CHECK(!tr_args_find(t, s.args[1], "elided", &a));
    CHECK(!tr_args_find(t, s.args[2], "elided", &a));
    CHECK_STR(stack_text(t, s.stack[3]), "a;b");
    CHECK(tr_args_find(t, s.args[3], "elided", &a) && a.v.u == 2);
    CHECK(tr_args_find(t, s.args[3], "count", &a) && a.v.u == 4);
    CHECK_INT(s.stack[4], 0);
    CHECK(tr_args_find(t, s.args[4], "elided", &a) && a.v.u == 1);
    for (uint32_t i = 0; i < (uint32_t)tr_frame_count(t); i++)
        CHECK(!strstr(tr_str_get(t, tr_frame_get(t, i)->function, NULL), "..."));
    tr_trace_free(t);
}

/* Dumps -> folded: equal stacks summed, samples of every thread. */
TR_TEST(dumps_to_folded)
{
    tr_test_warns log = {0};
    tr_trace *t = read_text(seq3, &log);
    char out_path[4096];
    snprintf(out_path, sizeof out_path, "%s/seq.folded", tr_test_tmpdir());
    write_with(t, &tr_writer_folded, out_path, 0);
    size_t n;
    char *got = tr_test_slurp(out_path, &n);
    CHECK_STR(
        got,
        "<module> (train.py:60);main (train.py:50);step (train.py:20) 1\n"
        "wait (threading.py:320) 2\n"
        "<module> (train.py:60);main (train.py:50);step (train.py:21);forward (model.py:10) 1\n"
        "<module> (train.py:60);main (train.py:50) 1\n");
    free(got);
    tr_trace_free(t);
}

/* Dump sequence -> Chrome JSON -> model: the same slices. */
TR_TEST(sequence_chrome_round_trip)
{
    tr_test_warns log = {0};
    tr_trace *t = read_text(seq3, &log);
    char out_path[4096];
    snprintf(out_path, sizeof out_path, "%s/seq.json", tr_test_tmpdir());
    write_with(t, &tr_writer_chrome, out_path, 0);
    tr_trace *back = load_path(out_path, 0, NULL);
    tr_slices a, b;
    tr_trace_slices(t, &a);
    tr_trace_slices(back, &b);
    CHECK_INT(b.n, a.n);
    for (size_t i = 0; i < a.n; i++)
        CHECK(has_slice(back, track_name(t, a.track[i]), tr_str_get(t, a.name[i], NULL), a.ts[i],
                        tr_slice_dur(&a, i)));
    tr_trace_free(back);
    tr_trace_free(t);
}

/* ---- JSON ---- */

TR_TEST(speedscope)
{
    static const char doc[] =
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"profiles\":["
        "{\"type\":\"sampled\",\"name\":\"Process 5 Thread 6 "
        "\\\"MainThread\\\"\",\"unit\":\"seconds\","
        "\"startValue\":0,\"endValue\":0.03,\"samples\":[[0,1],[0,1],[0,2]],\"weights\":[0.01,0.01,"
        "0.01]}],"
        "\"shared\":{\"frames\":[{\"name\":\"<module>\",\"file\":\"/a/"
        "t.py\",\"line\":9,\"col\":null},"
        "{\"name\":\"f\",\"file\":\"/a/t.py\",\"line\":1,\"col\":null},"
        "{\"name\":\"g\",\"file\":\"/a/t.py\",\"line\":null,\"col\":null}]},"
        "\"activeProfileIndex\":null,\"exporter\":\"py-spy@0.4.0\",\"name\":\"py-spy profile\"}";
    tr_test_warns log = {0};
    tr_trace *t = read_text(doc, &log);
    CHECK_INT(log.n, 0);
    tr_samples s;
    tr_trace_samples(t, &s);
    CHECK_INT(s.n, 3);
    CHECK_INT(s.ts[2], 20000000);
    CHECK_STR(stack_text(t, s.stack[2]), "<module>;g");
    CHECK_INT(tr_process_get(t, 0)->pid, 5);
    CHECK_STR(track_name(t, 0), "MainThread");
    CHECK(has_slice(t, "MainThread", "<module> (/a/t.py:9)", 0, 30000000));
    CHECK(has_slice(t, "MainThread", "f (/a/t.py:1)", 0, 20000000));
    CHECK(has_slice(t, "MainThread", "g (/a/t.py)", 20000000, 10000000));
    tr_trace_free(t);
}

/*
** Speedscope times in whole ns, rounded (the class of issue 19 item 1):
** 0.0157 ms is 15700 ns although 0.0157 * 1e6 is 15699.999..., and sampled
** weights are summed in ns, not in a double that drifts.
*/
TR_TEST(speedscope_exact_ns)
{
    static const char doc[] =
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"profiles\":["
        "{\"type\":\"evented\",\"name\":\"ev\",\"unit\":\"milliseconds\",\"startValue\":0,"
        "\"endValue\":2,\"events\":[{\"type\":\"O\",\"frame\":0,\"at\":0.0157},"
        "{\"type\":\"O\",\"frame\":1,\"at\":0.0163},{\"type\":\"C\",\"frame\":1,\"at\":1.001},"
        "{\"type\":\"C\",\"frame\":0,\"at\":1.003}]},"
        "{\"type\":\"sampled\",\"name\":\"sa\",\"unit\":\"seconds\",\"startValue\":1.001,"
        "\"endValue\":2,\"samples\":[[0],[0],[0],[0],[0],[0],[0],[0],[0],[0],[0]],"
        "\"weights\":[0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1,0.1]}],"
        "\"shared\":{\"frames\":[{\"name\":\"a\"},{\"name\":\"b\"}]}}";
    tr_test_warns log = {0};
    tr_trace *t = read_text(doc, &log);
    CHECK_INT(log.n, 0);
    CHECK(has_slice(t, "ev", "a", 15700, 1003000 - 15700));
    CHECK(has_slice(t, "ev", "b", 16300, 1001000 - 16300));
    tr_samples s;
    tr_trace_samples(t, &s);
    CHECK_INT(s.n, 11);
    for (size_t i = 0; i < s.n; i++) CHECK_INT(s.ts[i], 1001000000 + (int64_t)i * 100000000);
    tr_trace_free(t);
}

/*
** An evented profile's unbalanced events (speedscope refuses the file) are
** warned about, not dropped without a word: a close with nothing open, a
** close of another frame than the innermost, frames never closed (they end
** at endValue).
*/
TR_TEST(speedscope_unbalanced)
{
    static const char doc[] =
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"profiles\":["
        "{\"type\":\"evented\",\"name\":\"ev\",\"unit\":\"nanoseconds\",\"startValue\":0,"
        "\"endValue\":100,\"events\":[{\"type\":\"C\",\"frame\":0,\"at\":1},"
        "{\"type\":\"O\",\"frame\":0,\"at\":2},{\"type\":\"O\",\"frame\":1,\"at\":3},"
        "{\"type\":\"C\",\"frame\":0,\"at\":4},{\"type\":\"O\",\"frame\":1,\"at\":5}]}],"
        "\"shared\":{\"frames\":[{\"name\":\"a\"},{\"name\":\"b\"}]}}";
    tr_test_warns log = {0};
    tr_trace *t = read_text(doc, &log);
    CHECK_INT(log.n, 3);
    CHECK(strstr(log.first.msg, "profile 0, event 0: a close with no frame open") != NULL);
    CHECK(strstr(log.last.msg, "profile 0: 2 frames never closed: closed at its end") != NULL);
    CHECK(has_slice(t, "ev", "b", 3, 1));
    CHECK(has_slice(t, "ev", "a", 2, 98));
    CHECK(has_slice(t, "ev", "b", 5, 95));
    tr_trace_free(t);
}

/*
** An evented profile's frames nest by their O/C order: an outer and an
** inner frame opened and closed at the same times are outer > inner (the
** inner, closed first, was added first and became the parent).
*/
TR_TEST(speedscope_evented_nesting)
{
    static const char doc[] =
        "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"profiles\":["
        "{\"type\":\"evented\",\"name\":\"ev\",\"unit\":\"nanoseconds\",\"startValue\":0,"
        "\"endValue\":10,\"events\":[{\"type\":\"O\",\"frame\":0,\"at\":0},"
        "{\"type\":\"O\",\"frame\":1,\"at\":0},{\"type\":\"O\",\"frame\":2,\"at\":0},"
        "{\"type\":\"C\",\"frame\":2,\"at\":10},{\"type\":\"C\",\"frame\":1,\"at\":10},"
        "{\"type\":\"C\",\"frame\":0,\"at\":10}]}],"
        "\"shared\":{\"frames\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":\"c\"}]}}";
    tr_test_warns log = {0};
    tr_trace *t = read_text(doc, &log);
    CHECK_INT(log.n, 0);
    tr_slices s;
    tr_trace_slices(t, &s);
    CHECK_INT(s.n, 3);
    static const char *const names[] = {"a", "b", "c"};
    for (size_t i = 0; i < s.n && i < 3; i++) {
        CHECK_STR(tr_str_get(t, s.name[i], NULL), names[i]);
        CHECK_INT(s.depth[i], i);
        CHECK_INT(tr_slice_dur(&s, i), 10);
    }
    tr_trace_free(t);
}

TR_TEST(json_dump_locals)
{
    static const char doc[] =
        "[{\"pid\":9,\"thread_id\":140654867665536,\"thread_name\":\"MainThread\",\"os_thread_id\":"
        "9,"
        "\"active\":true,\"owns_gil\":true,\"frames\":["
        "{\"name\":\"f\",\"filename\":\"/x/"
        "a.py\",\"module\":null,\"short_filename\":\"a.py\",\"line\":3,"
        "\"locals\":[{\"name\":\"n\",\"addr\":1,\"arg\":true,\"repr\":\"5\"}]},"
        "{\"name\":\"poll\",\"filename\":\"?\",\"module\":\"libc.so.6\",\"short_filename\":null,"
        "\"line\":0,"
        "\"locals\":null}],\"process_info\":null}]";
    tr_test_warns log = {0};
    tr_trace *t = read_text(doc, &log);
    tr_samples s;
    tr_trace_samples(t, &s);
    CHECK_INT(s.n, 1);
    CHECK_STR(stack_text(t, s.stack[0]), "poll;f");
    CHECK_STR(arg_str(t, s.args[0], "state"), "active+gil");
    CHECK_STR(arg_str(t, s.args[0], "args.0.n"), "5");
    const tr_frame *f = tr_frame_get(t, tr_stack_frame(t, tr_stack_parent(t, s.stack[0])));
    CHECK(f->is_native);
    tr_trace_free(t);
}

/* ---- bad input ---- */

TR_TEST(bad_input_warns)
{
    /* frames before any thread header: one warning, with the line; the next ones are
     * counted as skipped lines (they were dropped without a count) */
    static const char orphan[] =
        "Process 1: x\nPython v3.9.0 (/bin/python)\n\n"
        "    f (a.py:1)\n    g (a.py:2)\n    h (a.py:3)\nThread 1 (idle): \"MainThread\"\n";
    tr_test_warns log = {0};
    tr_trace *t = read_text(orphan, &log);
    CHECK_INT(log.n, 1);
    CHECK_INT(log.last.line, 4);
    /* f warned; the Python line, g and h skipped */
    CHECK_INT(tr_input_get(t, 0)->warnings, 1);
    CHECK_INT(tr_input_get(t, 0)->lines_skipped, 3);
    tr_samples s;
    tr_trace_samples(t, &s);
    CHECK_INT(s.n, 1);
    CHECK_INT(s.stack[0], 0);
    tr_trace_free(t);

    /* a folded count that is not a number */
    static const char folded[] = "a;b (x.py:1) 3\na;c (x.py:2) many\na;d 4\na 1\nb;c 2\n";
    memset(&log, 0, sizeof log);
    t = tr_trace_new();
    tr_error e;
    CHECK_INT(read_mem(t, folded, strlen(folded), &log, 0), TR_OK);
    CHECK_INT(log.n, 1);
    CHECK_INT(log.last.line, 2);
    CHECK_INT(log.last.col, 14);
    tr_trace_freeze(t, &e);
    tr_trace_samples(t, &s);
    CHECK_INT(s.n, 4);
    CHECK_INT(tr_input_get(t, 0)->warnings, 1);
    tr_trace_free(t);

    /* bad marker time, bad counter value, --locals without a frame, odd bytes */
    static const char odd[] = "#tracecat-dump ts=yesterday pid=3\n"
                              "Thread 3 (idle): \"na\xffme\"\n"
                              "        Locals:\n"
                              "    f;g (p (q).py:2)\n"
                              "#tracecat-counter pid=3 cpu=high\n"
                              "Thread 0x (idle)\n"
                              "\x1b[1mThread 4 (active)\x1b[0m\n"
                              "    h\x00i (z.py:1)\n";
    memset(&log, 0, sizeof log);
    t = tr_trace_new();
    CHECK_INT(read_mem(t, odd, sizeof odd - 1, &log, 0), TR_OK);
    CHECK(log.n >= 3);
    tr_trace_freeze(t, &e);
    tr_trace_samples(t, &s);
    CHECK_INT(s.n, 2);
    tr_trace_free(t);
}

/*
** Odd bytes deep inside a dump of several input windows, where frame lines
** are read in place and unchecked (tr_input_span_raw): each is found, warned
** at its line and column and replaced, as on a line read alone; a "\r\n"
** ending and valid UTF-8 are no warning.
*/
TR_TEST(bad_bytes_deep)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    for (int k = 0; k < 5000; k++) {
        tr_buf_adds(&b, "Thread 1 (active): \"MainThread\"\n");
        for (int j = 0; j < 10; j++) {
            if (k == 3000 && j == 3)
                tr_buf_adds(&b, "    f3\xff (a.py:4)\n");
            else if (k == 3000 && j == 5)
                tr_buf_add(&b, "    f5 (a.py:\0006)\n", 17);
            else if (k == 3000 && j == 7)
                tr_buf_adds(&b, "    f7 (a.py:8)\r\n");
            else if (k == 3000 && j == 8)
                tr_buf_adds(&b, "    caf\xc3\xa9 (a.py:9)\n");
            else
                tr_buf_addf(&b, "    f%d (a.py:%d)\n", j, j + 1);
        }
        tr_buf_adds(&b, "\n");
    }
    CHECK(b.len > 3 * 256 * 1024);
    tr_test_warns log = {0};
    tr_trace *t = tr_trace_new();
    tr_error e;
    CHECK_INT(read_mem(t, b.p, b.len, &log, 1), TR_OK);
    CHECK_INT(tr_trace_freeze(t, &e), TR_OK);
    /* dump K's frame J is line 12 K + J + 2 */
    CHECK_INT(log.n, 2);
    CHECK_INT(log.first.line, 36005);
    CHECK_INT(log.first.col, 7);
    CHECK_INT(log.last.line, 36007);
    CHECK_INT(log.last.col, 14);
    tr_samples s;
    tr_trace_samples(t, &s);
    CHECK_INT(s.n, 5000);
    CHECK_STR(stack_text(t, s.stack[2999]), "f9;f8;f7;f6;f5;f4;f3;f2;f1;f0");
    CHECK_STR(stack_text(t, s.stack[3000]), "f9;caf\xc3\xa9;f7;f6;f5;f4;f3\xef\xbf\xbd;f2;f1;f0");
    CHECK_INT(s.stack[3001], s.stack[2999]);
    /* f7's "\r\n" made no frame of its own; f5's file is another */
    CHECK_INT(tr_frame_count(t), 13);
    tr_trace_free(t);
    tr_buf_fini(&b);
}

/*
** A frame line ending "\r\r\n" keeps one '\r' (tr_input_getline drops
** "\r\n"); the same frame's lines ending "\r\n" after it are the frame
** without it, also when they follow the line cached before it, in place.
*/
TR_TEST(crlf_after_cr)
{
    static const char first[] = "Thread 1 (idle): \"A\"\n    function1 (a.py:1)\n"
                                "    function2\r\r\n    function3 (a.py:3)\n\n";
    static const char then[] = "Thread 1 (idle): \"A\"\n    function1 (a.py:1)\n"
                               "    function2\r\n    function3 (a.py:3)\n\n";
    tr_buf b;
    tr_buf_init(&b, 0);
    tr_buf_adds(&b, first);
    for (int k = 0; k < 2; k++) tr_buf_adds(&b, then);
    tr_test_warns log = {0};
    tr_trace *t = tr_trace_new();
    tr_error e;
    CHECK_INT(read_mem(t, b.p, b.len, &log, 1), TR_OK);
    CHECK_INT(tr_trace_freeze(t, &e), TR_OK);
    CHECK_INT(log.n, 0);
    tr_samples s;
    tr_trace_samples(t, &s);
    CHECK_INT(s.n, 3);
    CHECK_STR(stack_text(t, s.stack[0]), "function3;function2\r;function1");
    CHECK_STR(stack_text(t, s.stack[1]), "function3;function2;function1");
    CHECK_INT(s.stack[2], s.stack[1]);
    tr_trace_free(t);
    tr_buf_fini(&b);
}

/*
** Hand edits and pastes (issue 19, items 9-11; hand-made, no real sample has
** them): a "..." line is a gap in the stack, not a frame that becomes the
** root; a frame with no location is a native symbol; a shell prompt's
** user@host names the host of the dumps after it.
*/
TR_TEST(hand_edits)
{
    static const char cut[] = "Process 4242: python train.py\n"
                              "Python v3.10.12 (/usr/bin/python3.10)\n\n"
                              "Thread 4242 (active+gil): \"MainThread\"\n"
                              "    forward (model.py:88)\n"
                              "    ...\n"
                              "    main (train.py:210)\n"
                              "Thread 4250 (idle): \"Thread-1\"\n"
                              "    wait (threading.py:324)\n"
                              "...\n"
                              "Thread 4251 (idle): \"pin_memory\"\n"
                              "    pthread_cond_timedwait\n"
                              "    _loop (torch/utils/data/_utils/pin_memory.py:51)\n";
    tr_test_warns log = {0};
    tr_trace *t = read_text(cut, &log);
    CHECK_INT(log.n, 0);
    tr_samples s;
    tr_trace_samples(t, &s);
    CHECK_INT(s.n, 3);
    CHECK_STR(stack_text(t, s.stack[0]), "main;forward");
    CHECK_STR(stack_text(t, s.stack[1]), "wait");
    CHECK_STR(stack_text(t, s.stack[2]), "_loop;pthread_cond_timedwait");
    tr_arg a;
    CHECK(tr_args_find(t, s.args[0], "elided", &a));
    CHECK_INT(a.v.u, 1);
    CHECK(tr_args_find(t, s.args[1], "elided", &a));
    CHECK(!tr_args_find(t, s.args[2], "elided", &a));
    CHECK_STR(arg_str(t, s.args[0], "state"), "active+gil");
    CHECK_INT(tr_input_get(t, 0)->lines_skipped, 3);
    const tr_frame *f = tr_frame_get(t, tr_stack_frame(t, s.stack[2]));
    CHECK_STR(tr_str_get(t, f->function, NULL), "pthread_cond_timedwait");
    CHECK_INT(f->is_native, 1);
    f = tr_frame_get(t, tr_stack_frame(t, s.stack[1]));
    CHECK_INT(f->is_native, 0);
    tr_trace_free(t);

    static const char prompts[] = "alice@gpu-node-07:~/proj$ py-spy dump --pid 42\n"
                                  "Process 42: python train.py\n\n"
                                  "Thread 42 (active): \"MainThread\"\n"
                                  "    main (train.py:210)\n\n"
                                  "[bob@gpu-node-08 proj]$ py-spy dump --pid 42\n"
                                  "Process 42: python train.py\n\n"
                                  "Thread 42 (idle): \"MainThread\"\n"
                                  "    main (train.py:211)\n"
                                  "(venv) root@gpu-node-08:/# echo done\n"
                                  "mail alice@gpu-node-07: not a prompt\n";
    memset(&log, 0, sizeof log);
    t = read_text(prompts, &log);
    CHECK_INT(tr_process_count(t), 2);
    CHECK_INT(tr_process_get(t, 0)->pid, 42);
    CHECK_STR(tr_str_get(t, tr_process_get(t, 0)->host, NULL), "gpu-node-07");
    CHECK_STR(tr_str_get(t, tr_process_get(t, 1)->host, NULL), "gpu-node-08");
    tr_trace_samples(t, &s);
    CHECK_INT(s.n, 2);
    CHECK_INT(s.ts[1], 1000000000LL);
    tr_trace_free(t);
}

TR_TEST(deep_stack)
{
    /* 100,000 frames in one thread, and as one folded line */
    size_t depth = 100000;
    tr_buf b;
    tr_buf_init(&b, 0);
    tr_buf_adds(&b, "Thread 1 (active): \"MainThread\"\n");
    for (size_t i = 0; i < depth; i++) tr_buf_addf(&b, "    f%zu (deep.py:%zu)\n", i, i + 1);
    tr_test_warns log = {0};
    tr_trace *t = read_text(b.p, &log);
    tr_samples s;
    tr_trace_samples(t, &s);
    CHECK_INT(s.n, 1);
    CHECK_INT(tr_stack_depth(t, s.stack[0]), depth);
    tr_trace_free(t);

    tr_buf_reset(&b);
    for (size_t i = 0; i < depth; i++)
        tr_buf_addf(&b, "%sf%zu (deep.py:%zu)", i ? ";" : "", i, i + 1);
    tr_buf_adds(&b, " 1\n");
    t = tr_trace_new();
    tr_error e;
    /* the line is over 1 MiB: an error with its place, not a crash */
    int rc = read_mem(t, b.p, b.len, &log, 0);
    CHECK(rc == TR_OK || rc == TR_FAIL);
    tr_trace_freeze(t, &e);
    tr_trace_free(t);
    tr_buf_fini(&b);
}

TR_TEST(probe_shapes)
{
    static const struct {
        const char *head;
        int min, max;
    } cases[] = {
        {"#tracecat-dump ts=1 pid=2\n", 100, 100},
        {"Process 1: x\nPython v3.9.0 (/x)\n\n", 95, 95},
        {"Thread 4939 (idle): \"MainThread\"\n    backward (torch/a.py:1)\n", 90, 90},
        {"a (x.py:1);b (x.py:2) 5\nc 7\n", 70, 70},
        {"[\n  {\n    \"pid\": 1,\n    \"thread_id\": 2,\n    \"frames\": []\n  }\n]\n", 90, 90},
        {"{\"traceEvents\":[{\"ph\":\"X\"}]}", 0, 0},
        {"hello world\nthis is text\n", 0, 0},
        {"   0.001s | #1 | RECV | client | X\n", 0, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tr_peek pk = {"x", (const unsigned char *)cases[i].head, strlen(cases[i].head), 1, NULL, 0};
        int s = tr_reader_pyspy.probe(&pk);
        if (s < cases[i].min || s > cases[i].max) fprintf(stderr, "  case %zu: %d\n", i, s);
        CHECK(s >= cases[i].min && s <= cases[i].max);
    }
}
