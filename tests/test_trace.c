/* Unit tests of the model: strings, tables, args, stacks, freeze and iteration. */
#include "tr_test.h"

#include "tr_mem.h"
#include "tr_merge.h"
#include "tr_pool.h"
#include "tr_report.h"
#include "tr_trace.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

TR_TEST(strings_intern)
{
    tr_trace *t = tr_trace_new();
    tr_str a = tr_str_intern(t, "worker 1xyz", 8);
    tr_str b = tr_str_internz(t, "worker 1");
    tr_str c = tr_str_internz(t, "worker 2");
    CHECK(a == b && a != c && a != 0);
    CHECK_INT(tr_str_internz(t, ""), 0);
    CHECK_STR(tr_str_get(t, 0, NULL), "");
    size_t len;
    CHECK_STR(tr_str_get(t, a, &len), "worker 1");
    CHECK_INT(len, 8);
    tr_str d = tr_str_add(t, "worker 1", 8);
    CHECK(d != a);
    CHECK_STR(tr_str_get(t, d, NULL), "worker 1");
    /* Stored again: a new id, as tr_str_add gives, with the same text (shared). */
    tr_str e = tr_str_again(t, d);
    CHECK(e == d + 1 && tr_str_get(t, e, NULL) == tr_str_get(t, d, NULL));
    CHECK_INT(tr_str_again(t, 0), 0);
    CHECK_INT(tr_str_again(t, e + 1), 0);
    /* Many strings force the hash table to grow; ids stay stable. */
    char buf[32];
    for (int i = 0; i < 100000; i++) {
        snprintf(buf, sizeof buf, "s%d", i);
        tr_str_internz(t, buf);
    }
    CHECK(tr_str_internz(t, "worker 1") == a);
    CHECK_STR(tr_str_get(t, tr_str_internz(t, "s99999"), NULL), "s99999");
    CHECK_INT(tr_trace_status(t, NULL), 0);
    tr_trace_free(t);
    tr_trace_free(NULL);
}

TR_TEST(processes_are_per_input)
{
    tr_trace *t = tr_trace_new();
    uint32_t in1 = tr_input_add(t, "a.json", "chrome");
    uint32_t in2 = tr_input_add(t, "b.json", "chrome");
    uint32_t p1 = tr_process_intern(t, in1, 42), p2 = tr_process_intern(t, in2, 42);
    CHECK(p1 != p2);
    CHECK(tr_process_intern(t, in1, 42) == p1);
    CHECK_INT(tr_process_at(t, p1)->rank, -1);
    uint32_t k1 = tr_track_intern(t, p1, TR_TRACK_THREAD, 7, 0);
    uint32_t k2 = tr_track_intern(t, p2, TR_TRACK_THREAD, 7, 0);
    CHECK(k1 != k2);
    tr_track_at(t, k1)->name = tr_str_internz(t, "main");
    CHECK(tr_track_intern(t, p1, TR_TRACK_THREAD, 7, 0) == k1);
    tr_str w = tr_str_internz(t, "worker w0");
    CHECK(tr_track_intern(t, p1, TR_TRACK_WORKER, -1, w) !=
          tr_track_intern(t, p1, TR_TRACK_CLIENT, -1, w));
    CHECK_STR(tr_track_kind_name(TR_TRACK_WORKER), "worker");
    tr_trace_free(t);
}

TR_TEST(args_sets)
{
    tr_trace *t = tr_trace_new();
    tr_args_begin(t);
    CHECK_INT(tr_args_end(t), 0);
    tr_args_begin(t);
    tr_args_int(t, tr_str_internz(t, "seq"), -5);
    tr_args_str(t, tr_str_internz(t, "op"), tr_str_internz(t, "add"));
    tr_args_real(t, tr_str_internz(t, "x"), 1.5);
    tr_args_uint(t, tr_str_internz(t, "big"), UINT64_MAX);
    uint32_t s1 = tr_args_end(t);
    tr_args_begin(t);
    tr_args_bool(t, tr_str_internz(t, "ok"), 1);
    uint32_t s2 = tr_args_end(t);
    CHECK(s1 != 0 && s2 != 0 && s1 != s2);
    CHECK_INT(tr_args_count(t, s1), 4);
    CHECK_INT(tr_args_count(t, s2), 1);
    CHECK_INT(tr_args_count(t, 0), 0);
    tr_arg a;
    tr_args_at(t, s1, 0, &a);
    CHECK_INT(a.type, TR_ARG_INT);
    CHECK_INT(a.v.i, -5);
    CHECK(tr_args_find(t, s1, "x", &a) && a.type == TR_ARG_REAL && a.v.d == 1.5);
    CHECK(tr_args_find(t, s1, "big", &a) && a.v.u == UINT64_MAX);
    CHECK(tr_args_find(t, s1, "op", &a));
    CHECK_STR(tr_str_get(t, a.v.s, NULL), "add");
    CHECK(!tr_args_find(t, s2, "seq", &a));
    tr_trace_free(t);
}

/*
** Sealed arg sets (tr_trace_args_raw 0: every whole chunk sealed) read back
** as built: set I's args are made from I alone (arg_want), so any set can be
** checked at any time.  Set I has I % 9 args (none: id 0) over several
** shapes, with wide ints, uints and reals, floats, bools and strings; some
** sets are begun twice, leaving a wide value behind.
*/
enum { SEAL_SETS = 100000 }; /* about 45 chunks: more than a thread caches */

static tr_str seal_key[9], seal_val[64];

/* Arg K of set I: its key, type and value bits. */
static void arg_want(uint32_t i, unsigned k, tr_arg *a)
{
    memset(a, 0, sizeof *a);
    a->key = seal_key[(k + i / 1000) % 9];
    switch ((i + k) % 7) {
    case 0:
        a->type = TR_ARG_INT, a->v.i = (int64_t)i * 1000003 - 5;
        break;
    case 1:
        a->type = TR_ARG_INT, a->v.i = -(int64_t)i * 3000000000LL;
        break;
    case 2:
        a->type = TR_ARG_UINT, a->v.u = UINT64_MAX - i;
        break;
    case 3:
        a->type = TR_ARG_REAL, a->v.d = i + 0.1;
        break;
    case 4:
        a->type = TR_ARG_REAL, a->v.d = i * 0.5;
        break;
    case 5:
        a->type = TR_ARG_STR, a->v.s = seal_val[(i * 7 + k) % 64];
        break;
    default:
        a->type = TR_ARG_BOOL, a->v.i = (i >> k) & 1;
        break;
    }
}

static uint32_t seal_build(tr_trace *t, uint32_t i)
{
    tr_args_begin(t);
    if (i % 11 == 0) { /* abandoned: its wide value stays behind in the raw sets */
        tr_args_int(t, seal_key[0], INT64_MIN);
        tr_args_begin(t);
    }
    for (unsigned k = 0; k < i % 9; k++) {
        tr_arg a;
        arg_want(i, k, &a);
        if (a.type == TR_ARG_INT) tr_args_int(t, a.key, a.v.i);
        if (a.type == TR_ARG_UINT) tr_args_uint(t, a.key, a.v.u);
        if (a.type == TR_ARG_REAL) tr_args_real(t, a.key, a.v.d);
        if (a.type == TR_ARG_BOOL) tr_args_bool(t, a.key, (int)a.v.i);
        if (a.type == TR_ARG_STR) tr_args_str(t, a.key, a.v.s);
    }
    return tr_args_end(t);
}

/* 0 when set ID (made as set I) reads back otherwise. */
static int seal_same(const tr_trace *t, uint32_t i, uint32_t id)
{
    size_t n = tr_args_count(t, id);
    if (n != i % 9) return 0;
    for (unsigned k = 0; k < n; k++) {
        tr_arg want, got;
        arg_want(i, k, &want);
        tr_args_at(t, id, k, &got);
        if (memcmp(&want, &got, sizeof want) != 0) return 0;
        const char *key = tr_str_get(t, want.key, NULL);
        if (!tr_args_find(t, id, key, &got) || got.key != want.key) return 0;
    }
    return 1;
}

/*
** More shapes than a byte numbers (the raw sets' shapes then widen to 4
** bytes), raw and sealed (chunks cut by bytes, not at a group's start),
** sets of 0-5 args so that a set's first payload is found from the kept one
** of its group of sets.
*/
TR_TEST(args_many_shapes)
{
    enum { KEYS = 400, SETS = 30 * KEYS };
    for (int sealed = 0; sealed < 2; sealed++) {
        tr_trace *t = tr_trace_new();
        if (sealed) tr_trace_args_raw(t, 0);
        tr_str key[KEYS];
        char buf[32];
        for (int k = 0; k < KEYS; k++) {
            snprintf(buf, sizeof buf, "k%d", k);
            key[k] = tr_str_internz(t, buf);
        }
        static uint32_t ids[SETS];
        for (int i = 0; i < SETS; i++) {
            tr_args_begin(t);
            for (int a = 0; a < i % 6; a++) tr_args_int(t, key[(i + a) % KEYS], i * 10 + a);
            ids[i] = tr_args_end(t);
        }
        int bad = 0;
        for (int i = 0; i < SETS; i++) {
            bad += tr_args_count(t, ids[i]) != (size_t)(i % 6);
            for (int a = 0; a < i % 6; a++) {
                tr_arg got;
                tr_args_at(t, ids[i], (size_t)a, &got);
                bad += got.key != key[(i + a) % KEYS] || got.v.i != i * 10 + a;
            }
        }
        CHECK_INT(bad, 0);
        tr_trace_free(t);
    }
}

typedef struct seal_reader {
    const tr_trace *t;
    const uint32_t *ids;
    uint32_t from;
    int bad;
} seal_reader;

/* Reads sets far apart (each read a chunk the cache lacks), then every set backwards. */
static void *seal_read(void *p)
{
    seal_reader *r = p;
    for (uint32_t k = 0; k < 3000; k++) {
        uint32_t i = (r->from + k * 4099) % SEAL_SETS;
        r->bad += !seal_same(r->t, i, r->ids[i]);
    }
    for (uint32_t i = SEAL_SETS; i-- > 0;) r->bad += !seal_same(r->t, i, r->ids[i]);
    return NULL;
}

TR_TEST(args_sealed)
{
    tr_trace *t = tr_trace_new();
    char buf[32];
    for (int k = 0; k < 9; k++) {
        snprintf(buf, sizeof buf, "key%d", k);
        seal_key[k] = tr_str_internz(t, buf);
    }
    for (int k = 0; k < 64; k++) {
        snprintf(buf, sizeof buf, "value %d", k);
        seal_val[k] = tr_str_add(t, buf, strlen(buf));
    }
    tr_trace_args_raw(t, 0);
    uint32_t *ids = calloc(SEAL_SETS, sizeof *ids);
    CHECK(ids != NULL);
    uint32_t last = 0;
    int bad = 0;
    for (uint32_t i = 0; i < SEAL_SETS; i++) {
        ids[i] = seal_build(t, i);
        if (i % 9 == 0) {
            bad += ids[i] != 0;
            continue;
        }
        bad += ids[i] != last + 1;
        last = ids[i];
        /* an older set (sealed by now) while sets are still built */
        if (i % 97 == 0) bad += !seal_same(t, i / 3, ids[i / 3]);
    }
    CHECK_INT(bad, 0);
    for (uint32_t i = 0; i < SEAL_SETS; i++) bad += !seal_same(t, i, ids[i]);
    CHECK_INT(bad, 0);
    CHECK_INT(tr_trace_freeze(t, NULL), TR_OK);
    seal_reader r[3] = {{t, ids, 0, 0}, {t, ids, 54321, 0}, {t, ids, SEAL_SETS - 1, 0}};
    pthread_t tid[2];
    for (int k = 0; k < 2; k++) CHECK_INT(pthread_create(&tid[k], NULL, seal_read, &r[k]), 0);
    seal_read(&r[2]);
    for (int k = 0; k < 2; k++) pthread_join(tid[k], NULL);
    CHECK_INT(r[0].bad + r[1].bad + r[2].bad, 0);
    free(ids);
    tr_trace_free(t);
}

TR_TEST(sample_weight_from_count)
{
    tr_trace *t = tr_trace_new();
    uint32_t set[4];
    int64_t counts[3] = {7, -3, 0};
    for (int i = 0; i < 3; i++) {
        tr_args_begin(t);
        tr_args_int(t, tr_str_internz(t, "count"), counts[i]);
        set[i] = tr_args_end(t);
    }
    tr_args_begin(t);
    tr_args_uint(t, tr_str_internz(t, "count"), UINT64_MAX);
    set[3] = tr_args_end(t);
    CHECK_INT(tr_sample_weight(t, set[0]), 7);
    CHECK_INT(tr_sample_weight(t, set[1]), 0);
    CHECK_INT(tr_sample_weight(t, set[2]), 0);
    CHECK(tr_sample_weight(t, set[3]) == UINT64_MAX);
    CHECK_INT(tr_sample_weight(t, 0), 1);
    tr_trace_free(t);
}

TR_TEST(stacks_trie)
{
    tr_trace *t = tr_trace_new();
    tr_frame f = {tr_str_internz(t, "main"), tr_str_internz(t, "a.py"), 0, 3, 0};
    tr_frame g = {tr_str_internz(t, "step"), tr_str_internz(t, "a.py"), 0, 9, 0};
    uint32_t fm = tr_frame_intern(t, &f), fg = tr_frame_intern(t, &g);
    CHECK(fm != fg && tr_frame_intern(t, &f) == fm);
    uint32_t s1 = tr_stack_push(t, 0, fm);
    uint32_t s2 = tr_stack_push(t, s1, fg);
    CHECK(tr_stack_push(t, tr_stack_push(t, 0, fm), fg) == s2);
    CHECK_INT(tr_stack_depth(t, s2), 2);
    CHECK_INT(tr_stack_parent(t, s2), s1);
    CHECK_INT(tr_stack_frame(t, s2), fg);
    CHECK_INT(tr_stack_parent(t, s1), 0);
    CHECK_INT(tr_stack_depth(t, 0), 0);
    tr_trace_free(t);
}

/*
** A track whose nesting is given keeps its stated parents: a child that
** starts at its parent's end tick (Recorder's truncated times) stays a
** child, and slices starting together keep the order they were appended in.
*/
TR_TEST(freeze_keeps_given_nesting)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "x", "test");
    uint32_t p = tr_process_intern(t, in, 1);
    uint32_t tk = tr_track_intern(t, p, TR_TRACK_THREAD, 1, 0);
    tr_track_at(t, tk)->nesting = TR_NEST_GIVEN;
    tr_str a = tr_str_internz(t, "a"), b = tr_str_internz(t, "b"), c = tr_str_internz(t, "c");
    uint32_t pa = tr_slice_add(t, tk, 0, 100, a, 0, -1, 0);
    uint32_t ch = tr_slice_add(t, tk, 100, 10, b, 0, -1, 0); /* at a's end tick, a's child */
    tr_slice_set_parent(t, ch, pa);
    uint32_t sib = tr_slice_add(t, tk, 100, 50, c, 0, -1, 0); /* same start, longer, top level */
    tr_slice_set_parent(t, sib, TR_NONE);
    tr_slice_set_parent(t, pa, sib); /* a later row is no parent: ignored */
    CHECK_INT(tr_trace_freeze(t, NULL), 0);
    tr_slices s;
    tr_trace_slices(t, &s);
    CHECK_INT(s.n, 3);
    CHECK_INT(s.name[0], a);
    CHECK_INT(s.depth[0], 0);
    CHECK_INT(s.parent[0], TR_NONE);
    CHECK_INT(s.name[1], b); /* sequence order, not longer first */
    CHECK_INT(s.depth[1], 1);
    CHECK_INT(s.parent[1], 0);
    CHECK_INT(s.name[2], c);
    CHECK_INT(s.depth[2], 0);
    CHECK_INT(s.parent[2], TR_NONE);
    tr_trace_free(t);
}

TR_TEST(freeze_sorts_and_nests)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "x", "test");
    uint32_t p = tr_process_intern(t, in, 1);
    uint32_t tk = tr_track_intern(t, p, TR_TRACK_THREAD, 1, 0);
    uint32_t other = tr_track_intern(t, p, TR_TRACK_THREAD, 2, 0);
    tr_str a = tr_str_internz(t, "a"), b = tr_str_internz(t, "b"), c = tr_str_internz(t, "c");
    /* Appended out of order: child c (20..30), parent a (10..50), sibling b (60..70). */
    uint32_t rc_ = tr_slice_add(t, tk, 20, 10, c, 0, -1, 0);
    uint32_t ra = tr_slice_add(t, tk, 10, 40, a, 0, -1, 0);
    tr_slice_add(t, tk, 60, 10, b, 0, -1, 0);
    tr_slice_add(t, tk, 10, 5, b, 0, -1, 0); /* same start as a, shorter: nested in a */
    tr_slice_add(t, other, 15, 100, c, 0, -1, 0);
    uint32_t open = tr_slice_add(t, tk, 65, -1, c, 0, -1, 0);
    tr_instant_add(t, tk, 200, a, 0, TR_SCOPE_THREAD, 8, 0);
    tr_flow fl = {TR_REF(TR_EV_SLICE, rc_), TR_REF(TR_EV_SLICE, ra), a, 0, 1};
    tr_flow_add(t, &fl);
    CHECK(open != TR_NONE);
    CHECK_INT(tr_trace_freeze(t, NULL), 0);
    CHECK(tr_trace_frozen(t));
    tr_slices s;
    tr_trace_slices(t, &s);
    CHECK_INT(s.n, 6);
    /* Order: a(10,40) b(10,5) other(15) c(20) b(60) open c(65). */
    CHECK_INT(s.ts[0], 10);
    CHECK_INT(s.name[0], a);
    CHECK_INT(s.name[1], b);
    CHECK_INT(s.depth[0], 0);
    CHECK_INT(s.depth[1], 1);
    CHECK_INT(s.parent[1], 0);
    CHECK_INT(s.track[2], other);
    CHECK_INT(s.depth[2], 0);
    CHECK_INT(s.ts[3], 20);
    CHECK_INT(s.depth[3], 1);
    CHECK_INT(s.parent[3], 0);
    CHECK_INT(s.ts[4], 60);
    CHECK_INT(s.depth[4], 0);
    /* The open slice ends where its input ends (the instant at 200); it starts inside b (60..70).
     */
    CHECK_INT(s.ts[5], 65);
    CHECK_INT(tr_slice_dur(&s, 5), 135);
    CHECK_INT(s.depth[5], 1);
    tr_flow f_v;
    tr_flow_get(t, 0, &f_v);
    const tr_flow *f = &f_v;
    CHECK_INT(TR_REF_ROW(f->from), 3);
    CHECK_INT(TR_REF_ROW(f->to), 0);
    /* Frozen traces refuse appends. */
    CHECK_INT(tr_slice_add(t, tk, 1, 1, a, 0, -1, 0), TR_NONE);
    tr_trace_free(t);
}

/* A merge into an empty trace takes the source's narrow columns as they are stored. */
TR_TEST(merge_narrow_columns)
{
    tr_trace *src = tr_trace_new(), *dst = tr_trace_new();
    uint32_t tk = tr_track_intern(src, tr_process_intern(src, tr_input_add(src, "x", "test"), 1),
                                  TR_TRACK_THREAD, 1, 0);
    tr_str a = tr_str_internz(src, "a"), b = tr_str_internz(src, "b");
    for (int i = 0; i < 10; i++) {
        tr_instant_add(src, tk, i, a, i % 2 ? a : b, TR_SCOPE_THREAD, i == 9 ? INT64_MAX : i, 0);
        tr_slice_add(src, tk, i, 1, a, i % 3 ? b : 0, i == 9 ? -1 : 100 + i, 0);
    }
    CHECK_INT(tr_trace_merge(dst, src, NULL), TR_OK);
    CHECK_INT(tr_trace_merge(dst, src, NULL), TR_OK);
    CHECK_INT(tr_trace_freeze(dst, NULL), TR_OK);
    tr_instants in;
    tr_slices sl;
    tr_trace_instants(dst, &in);
    tr_trace_slices(dst, &sl);
    CHECK_INT(in.n, 20);
    CHECK_INT(sl.n, 20);
    /* two rows a ts: the first merge's, then the second's */
    CHECK_STR(tr_str_get(dst, tr_instant_cat(&in, 2), NULL), "a");
    CHECK_STR(tr_str_get(dst, tr_instant_cat(&in, 3), NULL), "a");
    CHECK_STR(tr_str_get(dst, tr_instant_cat(&in, 5), NULL), "b");
    CHECK_INT(tr_instant_bytes(&in, 8), 4);
    CHECK_INT(tr_instant_bytes(&in, 19), INT64_MAX);
    CHECK_INT(tr_slice_cat(&sl, 0), 0);
    CHECK_STR(tr_str_get(dst, tr_slice_cat(&sl, 2), NULL), "b");
    CHECK_INT(tr_slice_bytes(&sl, 3), 101);
    CHECK_INT(tr_slice_bytes(&sl, 19), -1);
    tr_trace_free(src);
    tr_trace_free(dst);
}

/* Freezing for counts keeps the rows as appended, closes open slices and refuses appends. */
TR_TEST(freeze_unordered)
{
    tr_trace *t = tr_trace_new();
    uint32_t tk = tr_track_intern(t, tr_process_intern(t, tr_input_add(t, "x", "test"), 1),
                                  TR_TRACK_THREAD, 1, 0);
    tr_str a = tr_str_internz(t, "a");
    tr_slice_add(t, tk, 20, 10, a, 0, -1, 0);
    tr_slice_add(t, tk, 10, -1, a, 0, -1, 0); /* open: ends where the input ends */
    tr_instant_add(t, tk, 50, a, 0, TR_SCOPE_THREAD, -1, 0);
    tr_instant_add(t, tk, 5, a, 0, TR_SCOPE_THREAD, -1, 0);
    CHECK_INT(tr_trace_freeze_unordered(t, NULL), TR_OK);
    CHECK(tr_trace_frozen(t));
    tr_slices s;
    tr_instants in;
    tr_trace_slices(t, &s);
    tr_trace_instants(t, &in);
    CHECK_INT(s.n, 2);
    CHECK_INT(s.ts[0], 20);
    CHECK_INT(tr_slice_dur(&s, 1), 40);
    CHECK(s.depth == NULL);
    CHECK_INT(in.ts[0], 50);
    CHECK_INT(in.ts[1], 5);
    CHECK_INT(tr_instant_add(t, tk, 60, a, 0, TR_SCOPE_THREAD, -1, 0), TR_NONE);
    CHECK_INT(tr_trace_freeze(t, NULL), TR_OK); /* frozen already: a no-op */
    tr_trace_free(t);
}

/*
** Instants' category, scope and size cost nothing while every row has the
** same; a different one makes the column, a size past 32 bits widens it.
** Sorting and merging keep every row's values.
*/
TR_TEST(instant_columns_narrow)
{
    tr_trace *t = tr_trace_new(), *u = tr_trace_new();
    uint32_t tk = tr_track_intern(t, tr_process_intern(t, tr_input_add(t, "x", "test"), 1),
                                  TR_TRACK_THREAD, 1, 0);
    tr_str a = tr_str_internz(t, "a"), gt = tr_str_internz(t, "gt");
    for (int i = 0; i < 3000; i++) tr_instant_add(t, tk, 3000 - i, a, gt, TR_SCOPE_THREAD, i, 0);
    tr_instants in;
    tr_trace_instants(t, &in);
    CHECK(in.cat.p == NULL && in.scope.p == NULL);
    CHECK(in.bytes.p != NULL && in.bytes.size == 4);
    tr_instant_add(t, tk, 1, a, a, TR_SCOPE_GLOBAL, (int64_t)1 << 40, 0);
    tr_instant_add(t, tk, 2, a, gt, TR_SCOPE_THREAD, -1, 0);
    uint32_t uk = tr_track_intern(u, tr_process_intern(u, tr_input_add(u, "y", "test"), 1),
                                  TR_TRACK_THREAD, 1, 0);
    tr_str ua = tr_str_internz(u, "a"), other = tr_str_internz(u, "other");
    tr_instant_add(u, uk, 0, ua, other, TR_SCOPE_PROCESS, -1, 0);
    tr_instant_add(u, uk, 5000, ua, other, TR_SCOPE_PROCESS, -1, 0);
    CHECK_INT(tr_trace_merge(t, u, NULL), TR_OK);
    CHECK_INT(tr_trace_freeze(t, NULL), TR_OK);
    tr_trace_instants(t, &in);
    CHECK_INT(in.n, 3004);
    CHECK(in.bytes.size == 8);
    /* ts 0 (merged), 1 (the loop's last, then the wide one), 2 (the loop's, then -1) .. */
    CHECK_STR(tr_str_get(t, tr_instant_cat(&in, 0), NULL), "other");
    CHECK_INT(tr_instant_scope(&in, 0), TR_SCOPE_PROCESS);
    CHECK_INT(tr_instant_bytes(&in, 0), -1);
    CHECK_INT(tr_instant_bytes(&in, 1), 2999);
    CHECK_INT(tr_instant_cat(&in, 1), gt);
    CHECK_INT(tr_instant_cat(&in, 2), a);
    CHECK_INT(tr_instant_scope(&in, 2), TR_SCOPE_GLOBAL);
    CHECK_INT(tr_instant_bytes(&in, 2), (int64_t)1 << 40);
    CHECK_INT(tr_instant_bytes(&in, 3), 2998);
    CHECK_INT(tr_instant_bytes(&in, 4), -1);
    CHECK_INT(tr_instant_scope(&in, 4), TR_SCOPE_THREAD);
    CHECK_INT(tr_instant_bytes(&in, 3003 - 1), 0);
    CHECK_INT(tr_instant_scope(&in, 3003), TR_SCOPE_PROCESS);
    tr_trace_free(t);
    tr_trace_free(u);
}

/*
** Freeze sorts runs of nearly ordered rows (inputs read one after another)
** and merges them; rows in reverse order are a run each, past the most runs
** it merges, and are merge sorted.  Ties keep the input order.
*/
TR_TEST(freeze_sorts_runs)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "x", "test");
    uint32_t tk = tr_track_intern(t, tr_process_intern(t, in, 1), TR_TRACK_THREAD, 1, 0);
    /* three runs, each with a few rows out of place, and 20000 instants backwards */
    for (int run = 0; run < 3; run++)
        for (int i = 0; i < 3000; i++)
            tr_slice_add(t, tk, (i % 10 == 9 ? i - 5 : i) * 3 + run, 1, tr_str_internz(t, "s"), 0,
                         -1, 0);
    tr_str first = tr_str_internz(t, "first"), second = tr_str_internz(t, "second");
    for (int i = 0; i < 20000; i++)
        tr_instant_add(t, tk, 20000 - i / 2, i % 2 ? second : first, 0, 0, -1, 0);
    CHECK_INT(tr_trace_freeze(t, NULL), TR_OK);
    tr_slices s;
    tr_trace_slices(t, &s);
    CHECK_INT(s.n, 9000);
    int ordered = 1;
    for (size_t i = 1; i < s.n; i++) ordered &= s.ts[i - 1] <= s.ts[i];
    CHECK(ordered);
    tr_instants ins;
    tr_trace_instants(t, &ins);
    for (size_t i = 1; i < ins.n; i++)
        ordered &= ins.ts[i - 1] < ins.ts[i] ||
                   (ins.ts[i - 1] == ins.ts[i] && tr_instant_name(&ins, i - 1) == first &&
                    tr_instant_name(&ins, i) == second);
    CHECK(ordered);
    CHECK_INT(ins.ts[0], 10001);
    tr_trace_free(t);
}

/* Runs as freeze_sorts_runs makes them, and instants backwards, enough for parts on THREADS. */
static tr_trace *runs_trace(int threads)
{
    tr_trace *t = tr_trace_new();
    tr_trace_set_threads(t, threads);
    uint32_t in = tr_input_add(t, "x", "test");
    uint32_t tk = tr_track_intern(t, tr_process_intern(t, in, 1), TR_TRACK_THREAD, 1, 0);
    tr_str names[3] = {tr_str_internz(t, "a"), tr_str_internz(t, "b"), tr_str_internz(t, "c")};
    for (int run = 0; run < 5; run++)
        for (int i = 0; i < TR_POOL_ROWS; i++)
            tr_slice_add(t, tk, (i % 10 == 9 ? i - 5 : i) * 3 + run % 3, i % 4, names[run % 3], 0,
                         -1, 0);
    for (int i = 0; i < 3 * TR_POOL_ROWS; i++)
        tr_instant_add(t, tk, 3 * TR_POOL_ROWS - i / 2, names[i % 3], 0, 0, -1, 0);
    return t;
}

/* The runs cut in parts on several threads sort as on one (the rows tie only on the row). */
TR_TEST(freeze_runs_in_parts_equal_one_thread)
{
    tr_trace *one = runs_trace(1), *three = runs_trace(3);
    CHECK_INT(tr_trace_freeze(one, NULL), TR_OK);
    CHECK_INT(tr_trace_freeze(three, NULL), TR_OK);
    tr_slices a, b;
    tr_trace_slices(one, &a);
    tr_trace_slices(three, &b);
    CHECK_INT(a.n, b.n);
    size_t diff = 0;
    for (size_t i = 0; i < a.n; i++)
        diff += a.ts[i] != b.ts[i] || a.name[i] != b.name[i] || a.depth[i] != b.depth[i] ||
                (i && a.ts[i - 1] > a.ts[i]);
    CHECK_INT(diff, 0);
    tr_instants x, y;
    tr_trace_instants(one, &x);
    tr_trace_instants(three, &y);
    CHECK_INT(x.n, y.n);
    for (size_t i = 0; i < x.n; i++)
        diff += x.ts[i] != y.ts[i] || tr_instant_name(&x, i) != tr_instant_name(&y, i) ||
                (i && x.ts[i - 1] > x.ts[i]);
    CHECK_INT(diff, 0);
    tr_trace_free(one);
    tr_trace_free(three);
}

TR_TEST(iter_orders_across_tables)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "x", "test");
    uint32_t tk = tr_track_intern(t, tr_process_intern(t, in, 1), TR_TRACK_THREAD, 1, 0);
    tr_instant_add(t, tk, 5, 0, 0, 0, -1, 0);
    tr_counter_add(t, tk, 5, 1.0);
    tr_slice_add(t, tk, 5, 1, 0, 0, -1, 0);
    tr_sample_add(t, tk, 1, 0, 0);
    tr_instant_add(t, tk, 3, 0, 0, 0, -1, 0);
    tr_trace_freeze(t, NULL);
    tr_iter it;
    tr_event ev;
    int kinds[8], n = 0;
    tr_iter_init(&it, t);
    while (tr_iter_next(&it, &ev) && n < 8) kinds[n++] = ev.kind;
    CHECK_INT(n, 5);
    CHECK_INT(kinds[0], TR_EV_SAMPLE);
    CHECK_INT(kinds[1], TR_EV_INSTANT);
    CHECK_INT(kinds[2], TR_EV_SLICE);
    CHECK_INT(kinds[3], TR_EV_INSTANT);
    CHECK_INT(kinds[4], TR_EV_COUNTER);
    /* a seek to 5 starts at the first event at 5, after one to the end */
    tr_iter_seek(&it, 6);
    CHECK_INT(tr_iter_next(&it, &ev), 0);
    tr_iter_seek(&it, 4);
    n = 0;
    while (tr_iter_next(&it, &ev) && n < 8) kinds[n++] = ev.kind;
    CHECK_INT(n, 3);
    CHECK_INT(kinds[0], TR_EV_SLICE);
    CHECK_INT(kinds[2], TR_EV_COUNTER);
    tr_iter_seek(&it, INT64_MIN);
    CHECK_INT(tr_iter_next(&it, &ev), 1);
    CHECK_INT(ev.kind, TR_EV_SAMPLE);
    tr_trace_free(t);
}

/* The compact model (issue 18.4): at most 32 bytes per bare slice, args apart. */
TR_TEST(slice_budget)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "x", "test");
    uint32_t tk = tr_track_intern(t, tr_process_intern(t, in, 1), TR_TRACK_THREAD, 1, 0);
    tr_str name = tr_str_internz(t, "op");
    size_t before = tr_trace_memory(t);
    size_t n = 1 << 20; /* a power of two: columns are exactly full */
    for (size_t i = 0; i < n; i++) tr_slice_add(t, tk, (int64_t)(n - i), 1, name, 0, -1, 0);
    size_t per = (tr_trace_memory(t) - before) / n;
    fprintf(stderr, "bytes per slice: %zu\n", per);
    CHECK(per <= 32);
    CHECK_INT(tr_trace_freeze(t, NULL), 0);
    CHECK((tr_trace_memory(t) - before) / n <= 32); /* nesting adds no column */
    tr_slices s;
    tr_trace_slices(t, &s);
    CHECK_INT(s.ts[0], 1);
    CHECK_INT(tr_slice_dur(&s, 0), 1);
    tr_trace_free(t);
}

/*
** Durations of 2^32 ns and more, and open ones, live beside the 32-bit
** column and follow their rows through the sort; the category and size
** columns appear on the first slice with one, earlier rows reading 0 and -1.
*/
TR_TEST(slice_wide_durations_and_late_columns)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "x", "test");
    uint32_t tk = tr_track_intern(t, tr_process_intern(t, in, 1), TR_TRACK_THREAD, 1, 0);
    tr_str cat = tr_str_internz(t, "io");
    int64_t big = (int64_t)1 << 40;
    tr_slice_add(t, tk, 300, 7, 0, 0, -1, 0);
    tr_slice_add(t, tk, 200, big, 0, 0, -1, 0);
    uint32_t open = tr_slice_add(t, tk, 100, -1, 0, cat, 4096, 0);
    tr_slice_add(t, tk, 50, UINT32_MAX, 0, 0, -1, 0);
    uint32_t ended = tr_slice_add(t, tk, 10, -1, 0, 0, -1, 0);
    tr_slice_end(t, ended, 10 + big + 1);
    tr_slice_end(t, open, 150);
    CHECK_INT(tr_trace_freeze(t, NULL), 0);
    tr_slices s;
    tr_trace_slices(t, &s);
    static const int64_t ts[] = {10, 50, 100, 200, 300};
    const int64_t dur[] = {big + 1, UINT32_MAX, 50, big, 7};
    static const int64_t bytes[] = {-1, -1, 4096, -1, -1};
    for (size_t i = 0; i < 5; i++) {
        CHECK_INT(s.ts[i], ts[i]);
        CHECK_INT(tr_slice_dur(&s, i), dur[i]);
        CHECK_INT(tr_slice_bytes(&s, i), bytes[i]);
        CHECK_INT(tr_slice_cat(&s, i), i == 2 ? cat : 0);
    }
    CHECK_INT(s.parent[4], 3);
    tr_trace_free(t);
}

TR_TEST(oom_is_sticky_and_clean)
{
    for (uint64_t k = 1; k < 40; k++) {
        tr_alloc_fail_after(k);
        tr_trace *t = tr_trace_new();
        if (t) {
            uint32_t in = tr_input_add(t, "x", "test");
            uint32_t tk = tr_track_intern(t, tr_process_intern(t, in, 1), TR_TRACK_THREAD, 1, 0);
            for (int i = 0; i < 3000; i++) {
                tr_args_begin(t);
                tr_args_int(t, tr_str_internz(t, "k"), i);
                tr_slice_add(t, tk, i, 1, tr_str_internz(t, "n"), 0, -1, tr_args_end(t));
            }
            tr_error e;
            int rc = tr_trace_freeze(t, &e);
            CHECK(rc == 0 || e.code == TR_E_NOMEM);
            tr_trace_free(t);
        }
        tr_alloc_fail_after(0);
    }
}

/* 2026-11-22, GT benchmark: nearly sorted slices (insertion sort) and ties keep input order. */
TR_TEST(freeze_nearly_sorted_ties)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "x", "test");
    uint32_t tk = tr_track_intern(t, tr_process_intern(t, in, 1), TR_TRACK_THREAD, 1, 0);
    /* Each group: slices that end in order, then the one enclosing them, added last. */
    enum { GROUPS = 500 };
    for (int g = 0; g < GROUPS; g++) {
        int64_t base = g * 100;
        for (int k = 0; k < 3; k++) tr_slice_add(t, tk, base + 10 + k * 10, 5, 0, 0, -1, 0);
        tr_slice_add(t, tk, base + 20, 5, 0, 0, -1, 0); /* ties the second: after it */
        tr_slice_add(t, tk, base, 90, 0, 0, -1, 0);
    }
    CHECK_INT(tr_trace_freeze(t, NULL), 0);
    tr_slices s;
    tr_trace_slices(t, &s);
    CHECK_INT(s.n, GROUPS * 5);
    for (size_t i = 1; i < s.n; i++) CHECK(s.ts[i - 1] <= s.ts[i]);
    /* Rows were appended c0 c1 c2 tie parent, so within a group: parent c0 c1 tie c2. */
    for (int g = 0; g < GROUPS; g++) {
        const int64_t *ts = s.ts + g * 5;
        CHECK_INT(ts[0], g * 100);
        CHECK_INT(tr_slice_dur(&s, (size_t)g * 5), 90);
        CHECK_INT(ts[2], g * 100 + 20);
        CHECK_INT(ts[3], g * 100 + 20);
        /* The tie came later, so it is the inner one of the equal pair. */
        CHECK_INT(s.parent[g * 5 + 3], g * 5 + 2);
        CHECK_INT(s.depth[g * 5 + 3], 2);
    }
    tr_trace_free(t);
}

/* A column of one value so far, too wide for a narrow block, keeps it when a second value comes. */
TR_TEST(narrow_column_keeps_a_wide_first_value)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "x", "test");
    uint32_t tk = tr_track_intern(t, tr_process_intern(t, in, 1), TR_TRACK_THREAD, 1, 0);
    tr_str name = tr_str_internz(t, "f");
    tr_slice_add(t, tk, 0, 1, name, 0, 5000000000LL, 0);
    tr_slice_add(t, tk, 10, 1, name, 0, 7, 0);
    tr_instant_add(t, tk, 0, name, 0, 0, 6000000000LL, 0);
    tr_instant_add(t, tk, 10, name, 0, 0, 8, 0);
    CHECK_INT(tr_trace_freeze(t, NULL), 0);
    tr_slices sl;
    tr_instants it;
    tr_trace_slices(t, &sl);
    tr_trace_instants(t, &it);
    CHECK_INT(tr_slice_bytes(&sl, 0), 5000000000LL);
    CHECK_INT(tr_slice_bytes(&sl, 1), 7);
    CHECK_INT(tr_instant_bytes(&it, 0), 6000000000LL);
    CHECK_INT(tr_instant_bytes(&it, 1), 8);
    tr_trace_free(t);
}

/* A block put by tr_slice_put (rows out of order, a wide duration) is the trace tr_slice_add makes.
 */
TR_TEST(slice_block_equals_appends)
{
    tr_trace *a = tr_trace_new(), *b = tr_trace_new();
    tr_trace *both[2] = {a, b};
    uint32_t tk[2];
    tr_str name[2], cat[2];
    for (int k = 0; k < 2; k++) {
        uint32_t in = tr_input_add(both[k], "x", "test");
        tk[k] = tr_track_intern(both[k], tr_process_intern(both[k], in, 1), TR_TRACK_THREAD, 1, 0);
        tr_track_at(both[k], tk[k])->nesting = TR_NEST_GIVEN;
        name[k] = tr_str_internz(both[k], "f");
        cat[k] = tr_str_internz(both[k], "POSIX");
    }
    enum { N = 6 };
    const int64_t ts[N] = {0, 10, 20, 30, 40, 50}, dur[N] = {100, 5, 5000000000LL, 0, 3, 1};
    const int64_t bytes[N] = {-1, 4096, -1, 7, -1, -1};
    const uint32_t parent[N] = {TR_NONE, 0, 0, 2, TR_NONE, 4};
    for (int i = 0; i < N; i++) {
        uint32_t row = tr_slice_add(a, tk[0], ts[i], dur[i], name[0], cat[0], bytes[i], 0);
        tr_slice_set_parent(a, row, parent[i]);
    }
    CHECK_INT(tr_slice_reserve(b, N + 1), TR_OK);
    uint32_t first = tr_slice_add_rows(b, N, 1, 4);
    CHECK_INT(first, 0);
    /* sizes fit 4 bytes, as the block said; a wider one is refused */
    CHECK_INT(tr_slice_put(b, first, tk[1], 0, 0, name[1], cat[1], (int64_t)1 << 40, 0, TR_NONE),
              TR_FATAL);
    for (int i = N; i-- > 0;) {
        int rc = tr_slice_put(b, first + (uint32_t)i, tk[1], ts[i], dur[i], name[1], cat[1],
                              bytes[i], 0, parent[i]);
        CHECK_INT(rc, i == 2 ? TR_END : TR_OK);
        if (rc == TR_END) tr_slice_end(b, first + (uint32_t)i, ts[i] + dur[i]);
    }
    CHECK_INT(tr_slice_put(b, N, tk[1], 0, 0, 0, 0, -1, 0, TR_NONE), TR_FATAL); /* not a row */
    CHECK_INT(tr_trace_freeze(a, NULL), 0);
    CHECK_INT(tr_trace_freeze(b, NULL), 0);
    tr_slices sa, sb;
    tr_trace_slices(a, &sa);
    tr_trace_slices(b, &sb);
    CHECK_INT(sb.n, N);
    for (size_t i = 0; i < N; i++) {
        CHECK_INT(sb.ts[i], sa.ts[i]);
        CHECK_INT(tr_slice_dur(&sb, i), tr_slice_dur(&sa, i));
        CHECK_INT(tr_slice_bytes(&sb, i), tr_slice_bytes(&sa, i));
        CHECK_INT(tr_slice_cat(&sb, i), tr_slice_cat(&sa, i));
        CHECK_INT(sb.parent[i], sa.parent[i]);
        CHECK_INT(sb.depth[i], sa.depth[i]);
    }
    CHECK_INT(tr_slice_dur(&sb, 2), 5000000000LL);
    tr_trace_free(a);
    tr_trace_free(b);
}

/* Faulting in the room past the slices, in parts and part by part, leaves the rows as they were. */
TR_TEST(slice_prefault_keeps_rows)
{
    tr_trace *t = tr_trace_new();
    uint32_t in = tr_input_add(t, "x", "test");
    uint32_t tk = tr_track_intern(t, tr_process_intern(t, in, 1), TR_TRACK_THREAD, 1, 0);
    tr_str name = tr_str_internz(t, "f");
    for (int i = 0; i < 3; i++) tr_slice_add(t, tk, 10 * i, 5, name, 0, 100 + i, 0);
    CHECK_INT(tr_slice_reserve(t, 3 * TR_POOL_ROWS), TR_OK);
    for (size_t j = 0; j <= 4; j++) tr_slice_prefault(t, j, 4); /* part 4 of 4: nothing */
    uint32_t first = tr_slice_add_rows(t, 2, 0, 4);
    CHECK_INT(first, 3);
    for (uint32_t i = 0; i < 2; i++)
        CHECK_INT(tr_slice_put(t, first + i, tk, 40 + i, 1, name, 0, 7, 0, TR_NONE), TR_OK);
    CHECK_INT(tr_trace_freeze(t, NULL), 0);
    tr_slices sl;
    tr_trace_slices(t, &sl);
    CHECK_INT(sl.n, 5);
    for (size_t i = 0; i < 3; i++) {
        CHECK_INT(sl.ts[i], 10 * (int64_t)i);
        CHECK_INT(tr_slice_dur(&sl, i), 5);
        CHECK_INT(tr_slice_bytes(&sl, i), 100 + (int64_t)i);
        CHECK_INT(sl.name[i], name);
    }
    CHECK_INT(tr_slice_bytes(&sl, 4), 7);
    tr_trace_free(t);
}

/*
** A trace of SORTED rows (else one row out of order near the end) on three
** given tracks: chains of parents a few rows back, one long chain through
** every part, a parent named after its child.
*/
static tr_trace *parted_trace(int threads, int sorted)
{
    enum { N = 5 * TR_POOL_ROWS };
    tr_trace *t = tr_trace_new();
    tr_trace_set_threads(t, threads);
    uint32_t in = tr_input_add(t, "x", "test");
    uint32_t p = tr_process_intern(t, in, 1), tk[3];
    tr_str names[5];
    for (int k = 0; k < 5; k++)
        names[k] = tr_str_internz(t, (const char *[]){"a", "b", "c", "d", "e"}[k]);
    for (int k = 0; k < 3; k++) {
        tk[k] = tr_track_intern(t, p, TR_TRACK_THREAD, (uint32_t)k + 1, 0);
        tr_track_at(t, tk[k])->nesting = TR_NEST_GIVEN;
    }
    for (uint32_t i = 0; i < N; i++) {
        int64_t ts = !sorted && i == N - 100 ? 5 : (int64_t)i * 10;
        uint32_t r = tr_slice_add(t, tk[i % 3], ts, i % 11, names[i % 5], 0, -1, 0);
        uint32_t parent = i % 7 && i >= 3 ? i - 3 : TR_NONE;
        if (i % 999 == 0) parent = i >= 2997 ? i - 2997 : TR_NONE; /* the long chain */
        if (i % 10007 == 5) parent = i + 3;                        /* a later row */
        if (parent != TR_NONE && parent >= N) parent = TR_NONE;
        tr_slice_set_parent(t, r, parent);
    }
    return t;
}

/* Freeze and info cut in parts on several threads give what one thread gives. */
TR_TEST(freeze_in_parts_equals_one_thread)
{
    for (int sorted = 0; sorted < 2; sorted++) {
        tr_trace *one = parted_trace(1, sorted), *three = parted_trace(3, sorted);
        CHECK_INT(tr_trace_freeze(one, NULL), 0);
        CHECK_INT(tr_trace_freeze(three, NULL), 0);
        tr_slices a, b;
        tr_trace_slices(one, &a);
        tr_trace_slices(three, &b);
        CHECK_INT(a.n, b.n);
        size_t diff = 0, deep = 0;
        for (size_t i = 0; i < a.n; i++) {
            diff += a.ts[i] != b.ts[i] || a.parent[i] != b.parent[i] || a.depth[i] != b.depth[i];
            deep += a.depth[i] > 100;
        }
        CHECK_INT(diff, 0);
        CHECK(deep > 0);
        for (int json = 0; json < 2; json++) {
            tr_buf x, y;
            tr_buf_init(&x, 0);
            tr_buf_init(&y, 0);
            CHECK_INT(tr_report_info(one, json, &x, NULL), 0);
            CHECK_INT(tr_report_info(three, json, &y, NULL), 0);
            CHECK(x.len == y.len && memcmp(x.p, y.p, x.len) == 0);
            tr_buf_fini(&x);
            tr_buf_fini(&y);
        }
        tr_trace_free(one);
        tr_trace_free(three);
    }
}
