/* test_stree.c: the stack prefix tree (lib/tr_stree.h) on jobs built by hand. */
#include "tr_stree.h"
#include "tr_test.h"

#include <stdio.h>
#include <string.h>

/* A frame "fn (file:line)". */
static uint32_t frame(tr_trace *t, const char *fn, const char *file, int line)
{
    tr_frame f = {tr_str_internz(t, fn), tr_str_internz(t, file), 0, line, 0};
    return tr_frame_intern(t, &f);
}

/* The stack of frames F[0..N), outermost first. */
static uint32_t stack(tr_trace *t, const uint32_t *f, size_t n)
{
    uint32_t s = 0;
    for (size_t i = 0; i < n; i++) s = tr_stack_push(t, s, f[i]);
    return s;
}

/* The main thread of rank R (pid 1000 + R). */
static uint32_t rank_thread(tr_trace *t, uint32_t input, int r, int64_t tid, const char *name)
{
    uint32_t p = tr_process_intern(t, input, 1000 + r);
    tr_process_at(t, p)->rank = r;
    return tr_track_intern(t, p, TR_TRACK_THREAD, tid, tr_str_internz(t, name));
}

/* 64 ranks in allreduce under step, but rank 17 loading data. */
static tr_trace *job_one_odd(void)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "job", "test");
    uint32_t f[3] = {frame(t, "main", "train.py", 10), frame(t, "step", "train.py", 20), 0};
    uint32_t reduce = frame(t, "allreduce", "dist.py", 30), load = frame(t, "load", "data.py", 40);
    for (int r = 0; r < 64; r++) {
        f[2] = r == 17 ? load : reduce;
        uint32_t tk = rank_thread(t, in, r, 1000 + r, "MainThread");
        tr_sample_add(t, tk, 100, stack(t, f, 3), 0);
    }
    CHECK_INT(tr_trace_freeze(t, NULL), 0);
    return t;
}

static char *members(const tr_trace *t, const tr_stree *s, uint32_t node)
{
    static char text[256];
    tr_buf b;
    tr_buf_init(&b, 0);
    CHECK_INT(tr_stree_members_text(t, s, s->nodes[node].lo, s->nodes[node].hi, &b), 0);
    snprintf(text, sizeof text, "%s", b.p);
    tr_buf_fini(&b);
    return text;
}

TR_TEST(one_rank_off_the_path)
{
    tr_trace *t = job_one_odd();
    tr_stree s;
    CHECK_INT(tr_stree_build(t, NULL, &s, NULL), 0);
    CHECK_INT(s.n_members, 64);
    CHECK_INT(s.n_nodes, 5); /* root, main, step, allreduce, load */
    CHECK_STR(members(t, &s, 0), "ranks 0-63");
    uint32_t *splits;
    CHECK_INT(tr_stree_splits(&s, &splits), 1);
    uint32_t step = splits[0], major = s.nodes[step].first_child;
    uint32_t odd = s.nodes[major].next_sibling;
    tr_free(splits);
    CHECK_INT(s.nodes[step].depth, 2);
    CHECK_STR(members(t, &s, major), "ranks 0-63 except 17");
    CHECK_STR(members(t, &s, odd), "rank 17");
    const char *rule;
    uint32_t behind = tr_stree_behind(t, &s, &rule);
    CHECK(behind != UINT32_MAX);
    CHECK_INT(s.members[behind].rank, 17);
    tr_buf b;
    tr_buf_init(&b, 0);
    CHECK_INT(tr_stree_text(t, &s, &b), 0);
    CHECK(strstr(b.p, "at step (train.py:20) (depth 2, 64 members)") != NULL);
    CHECK(strstr(b.p, "1  rank 17\n            -> load (data.py:40)") != NULL);
    CHECK(strstr(b.p, "furthest behind: rank 17 MainThread, in load (data.py:40)") != NULL);
    tr_buf_reset(&b);
    CHECK_INT(tr_stree_dot(t, &s, &b), 0);
    CHECK(strstr(b.p, "load (data.py:40)\\n1: rank 17\", color=red") != NULL);
    tr_buf_reset(&b);
    CHECK_INT(tr_stree_json(t, &s, &b), 0);
    CHECK(strstr(b.p, "\"members\":\"ranks 0-63 except 17\"") != NULL);
    CHECK(strstr(b.p, "\"splits\":[2]") != NULL);
    tr_buf_fini(&b);
    tr_stree_fini(&s);
    tr_trace_free(t);
}

/* Two nodes whose stacks differ by one line number: engine.py:1084 vs :1044. */
static tr_trace *job_two_lines(void)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "job", "test");
    for (int r = 0; r < 2; r++) {
        uint32_t f[3] = {frame(t, "main", "run.py", 5),
                         frame(t, "loop", "engine.py", r ? 1044 : 1084),
                         frame(t, "wait", "queue.py", 171)};
        tr_sample_add(t, rank_thread(t, in, r, 7, "MainThread"), 100, stack(t, f, 3), 0);
    }
    CHECK_INT(tr_trace_freeze(t, NULL), 0);
    return t;
}

TR_TEST(line_numbers_split_or_merge)
{
    tr_trace *t = job_two_lines();
    tr_stree s;
    CHECK_INT(tr_stree_build(t, NULL, &s, NULL), 0);
    uint32_t *splits;
    CHECK_INT(tr_stree_splits(&s, &splits), 1);
    tr_free(splits);
    const char *rule;
    uint32_t behind = tr_stree_behind(t, &s, &rule);
    CHECK_INT(s.members[behind].rank, 1); /* line 1044 comes before 1084 in the loop */
    CHECK(strstr(rule, "earlier in the loop") != NULL);
    tr_stree_fini(&s);
    tr_stree_opts o = {.frames = TR_STREE_BY_FILE};
    CHECK_INT(tr_stree_build(t, &o, &s, NULL), 0);
    CHECK_INT(tr_stree_splits(&s, &splits), 0);
    tr_free(splits);
    CHECK_INT(s.n_nodes, 4);
    CHECK_STR(members(t, &s, 3), "ranks 0, 1");
    tr_buf b;
    tr_buf_init(&b, 0);
    CHECK_INT(tr_stree_frame_text(t, &s, 2, &b), 0);
    CHECK_STR(b.p, "loop (engine.py)");
    tr_buf_fini(&b);
    tr_stree_fini(&s);
    tr_trace_free(t);
}

/* Three dumps: rank 0 moves between step and eval, rank 1 never moves. */
TR_TEST(progress_over_dumps)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "job", "test");
    uint32_t m = frame(t, "main", "train.py", 1), st = frame(t, "step", "train.py", 2);
    uint32_t ev = frame(t, "eval", "train.py", 3), wait = frame(t, "wait", "dist.py", 9);
    uint32_t k0 = rank_thread(t, in, 0, 1, "MainThread"),
             k1 = rank_thread(t, in, 1, 1, "MainThread");
    for (int d = 0; d < 3; d++) {
        uint32_t a[3] = {m, d % 2 ? ev : st, wait}, b[3] = {m, st, wait};
        tr_sample_add(t, k0, 100 * d, stack(t, a, 3), 0);
        tr_sample_add(t, k1, 100 * d, stack(t, b, 3), 0);
    }
    CHECK_INT(tr_trace_freeze(t, NULL), 0);
    tr_stree_opts o = {.counted = "step"};
    tr_stree s;
    CHECK_INT(tr_stree_build(t, &o, &s, NULL), 0);
    CHECK_INT(s.n_members, 2);
    CHECK_INT(s.members[0].samples, 3);
    CHECK_INT(s.members[0].changes, 2);
    CHECK_INT(s.members[0].last_change, 200);
    CHECK_INT(s.members[0].entries, 2); /* entered step at dumps 0 and 2 */
    CHECK_INT(s.members[1].changes, 0);
    CHECK_INT(s.members[1].entries, 1);
    const char *rule;
    CHECK_INT(s.members[tr_stree_behind(t, &s, &rule)].rank, 1);
    tr_buf b;
    tr_buf_init(&b, 0);
    CHECK_INT(tr_stree_text(t, &s, &b), 0);
    CHECK(strstr(b.p, "1 of 2 members with several samples moved, 1 did not") != NULL);
    CHECK(strstr(b.p, "no progress in 3 samples: rank 1 MainThread") != NULL);
    tr_buf_fini(&b);
    tr_stree_fini(&s);
    tr_trace_free(t);
}

/* Threads as members, one per process, depth cuts and Python-only stacks. */
TR_TEST(member_choice_and_cuts)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "job", "test");
    tr_frame nat = {tr_str_internz(t, "poll"), tr_str_internz(t, "libc.so.6"), 0, 0, 1};
    uint32_t f[3] = {frame(t, "main", "a.py", 1), frame(t, "serve", "a.py", 2),
                     tr_frame_intern(t, &nat)};
    for (int r = 0; r < 3; r++) {
        tr_sample_add(t, rank_thread(t, in, r, 50, "worker"), 10, stack(t, f, 3), 0);
        tr_sample_add(t, rank_thread(t, in, r, 1000 + r, "MainThread"), 10, stack(t, f, 2), 0);
    }
    CHECK_INT(tr_trace_freeze(t, NULL), 0);
    tr_stree s;
    CHECK_INT(tr_stree_build(t, NULL, &s, NULL), 0);
    CHECK_INT(s.n_members, 6);
    CHECK_STR(members(t, &s, 0), "ranks 0-2 (6 threads)");
    tr_stree_fini(&s);
    tr_stree_opts o = {.main_thread = 1};
    CHECK_INT(tr_stree_build(t, &o, &s, NULL), 0);
    CHECK_INT(s.n_members, 3);
    for (size_t i = 0; i < s.n_members; i++) CHECK_INT(s.members[i].tid, 1000 + s.members[i].rank);
    tr_stree_fini(&s);
    o = (tr_stree_opts){.python_only = 1};
    CHECK_INT(tr_stree_build(t, &o, &s, NULL), 0);
    CHECK_INT(s.n_nodes, 3); /* the native frame is gone: every thread ends at serve */
    tr_stree_fini(&s);
    o = (tr_stree_opts){.max_depth = 1};
    CHECK_INT(tr_stree_build(t, &o, &s, NULL), 0);
    CHECK_INT(s.n_nodes, 2);
    tr_stree_fini(&s);
    tr_trace_free(t);
}

TR_TEST(no_samples)
{
    tr_trace *t = tr_trace_new();
    CHECK_INT(tr_trace_freeze(t, NULL), 0);
    tr_stree s;
    CHECK_INT(tr_stree_build(t, NULL, &s, NULL), 0);
    CHECK_INT(s.n_members, 0);
    CHECK_INT(s.n_nodes, 1);
    const char *rule;
    CHECK_INT(tr_stree_behind(t, &s, &rule), UINT32_MAX);
    tr_buf b;
    tr_buf_init(&b, 0);
    CHECK_INT(tr_stree_text(t, &s, &b), 0);
    CHECK(strstr(b.p, "no stack samples") != NULL);
    tr_buf_fini(&b);
    tr_stree_fini(&s);
    tr_trace_free(t);
}

/* Every allocation failing in turn ends cleanly with TR_FATAL. */
TR_TEST(out_of_memory)
{
    tr_trace *t = job_one_odd();
    int failed = 0;
    for (uint64_t n = 1; n < 200; n++) {
        tr_stree s;
        tr_alloc_fail_after(n);
        int rc = tr_stree_build(t, NULL, &s, NULL);
        tr_alloc_fail_after(0);
        if (rc == TR_OK) {
            tr_stree_fini(&s);
            break;
        }
        CHECK_INT(rc, TR_FATAL);
        CHECK_INT(s.n_members, 0);
        failed++;
    }
    CHECK(failed > 3);
    tr_trace_free(t);
}
