/*
** parquet.c: the SQL schema's tables as Hive-style partitioned Parquet files.
**
** The values are those the SQLite writer stores (writers/sqlite.c): ids are
** the model's rows, "none" values (text 0, pid -1, ...) are nulls.  Every
** file also carries `part`, the name of the part it belongs to (see
** tr_parquet.h), so ids that repeat across parts never join by accident.
**
** A trace's rows are split into parts once per event table by a counting
** sort on the part of each row's process (stable, so each part keeps time
** order and row groups get tight ts statistics); the tables that events point
** into (args, callsites, frames) are gathered per part from its events.  Each
** file streams through parquet_page.c a page at a time.
*/
#include "tr_parquet.h"
#include "parquet_impl.h"
#include "tr_mem.h"
#include "tr_text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define MAX_COLS 12
#define NO_PART  UINT32_MAX

typedef struct pq_colspec {
    const char *name;
    int type; /* enum tr_pq_type */
    int optional;
    int is_rank; /* the partition key: left out of partitioned files */
} pq_colspec;

typedef struct pq_w pq_w;

/* A part's rows of a table: model rows (r32) or composite keys (r64). */
typedef struct pq_rows {
    const uint32_t *r32;
    const uint64_t *r64;
    size_t n;
} pq_rows;

typedef struct pq_table {
    const char *name;
    const pq_colspec *cols;
    int ncols;
    /* the part of model row R (NO_PART = not written); NULL: derive instead */
    uint32_t (*part_of)(const pq_w *w, size_t r);
    size_t (*count)(const pq_w *w); /* rows part_of ranges over */
    /* the rows of part P, for tables gathered from the events */
    int (*derive)(pq_w *w, uint32_t p, pq_rows *out, tr_error *e);
    void (*get)(const pq_w *w, uint32_t p, int col, uint64_t key, tr_pq_value *v);
} pq_table;

typedef struct pq_part {
    uint32_t input;
    int32_t rank;
    char *name;
    size_t name_len;
} pq_part;

/* A table's rows bucketed by part: part P's are rows[off[P] .. off[P+1]). */
typedef struct pq_bucket {
    uint32_t *rows;
    size_t *off;
} pq_bucket;

struct tr_parquet {
    char *dir;
    tr_parquet_opts o;
    tr_pq_limits lim;
    uint64_t files, rows, bytes;
};

struct pq_w {
    tr_parquet *pw;
    const tr_trace *t;
    tr_slices sl;
    tr_instants in;
    tr_counters co;
    tr_samples sa;
    uint8_t *keep[TR_EV_KIND_COUNT]; /* NULL = every row */
    pq_part *parts;
    size_t n_parts;
    uint32_t *proc_part; /* per process */
    pq_bucket ev[TR_EV_KIND_COUNT];
    size_t n_sets;
    uint64_t *set_first; /* per arg set, the id of its first arg */
    uint32_t *stamp;     /* per set or stack: the last part that took it */
    size_t n_stamp;
    tr_vec keys;    /* uint64: a derived table's rows for one part */
    tr_buf scratch; /* computed strings (display values, stacks) */
};

/* ---- values ---- */

static void v_int(tr_pq_value *v, int64_t x)
{
    v->i = x;
}

static void v_opt(tr_pq_value *v, int64_t x, int64_t none)
{
    v->is_null = x == none;
    v->i = x;
}

/* Model text: "" is NULL (as in the SQLite tables), the id is the dictionary key. */
static void v_str(const pq_w *w, tr_pq_value *v, tr_str s)
{
    v->is_null = s == 0;
    v->s = tr_str_get(w->t, s, &v->n);
    v->key = s;
}

static void v_const(tr_pq_value *v, const char *s, uint64_t key)
{
    v->s = s;
    v->n = strlen(s);
    v->key = key;
}

static void v_part(const pq_w *w, uint32_t p, tr_pq_value *v)
{
    v->s = w->parts[p].name;
    v->n = w->parts[p].name_len;
    v->key = 0;
}

static int kept(const pq_w *w, int kind, size_t row)
{
    return !w->keep[kind] || w->keep[kind][row];
}

static uint32_t track_part(const pq_w *w, uint32_t track)
{
    const tr_track *k = tr_track_get(w->t, track);
    return k && k->process < tr_process_count(w->t) ? w->proc_part[k->process] : NO_PART;
}

/* Lanes where one thing runs at a time get a thread row, with utid = track id. */
static int is_thread_kind(int kind)
{
    return kind != TR_TRACK_COUNTER && kind != TR_TRACK_ASYNC;
}

/* ---- trace_input ---- */

static const pq_colspec input_cols[] = {{"id", TR_PQ_INT64, 0, 0},
                                        {"path", TR_PQ_STRING, 0, 0},
                                        {"format", TR_PQ_STRING, 0, 0},
                                        {"origin", TR_PQ_STRING, 1, 0},
                                        {"origin_unix_ns", TR_PQ_INT64, 1, 0},
                                        {"clock", TR_PQ_STRING, 1, 0},
                                        {"rank", TR_PQ_INT64, 1, 1},
                                        {"lines_skipped", TR_PQ_INT64, 0, 0},
                                        {"warnings", TR_PQ_INT64, 0, 0},
                                        {"arg_set_id", TR_PQ_INT64, 1, 0},
                                        {"part", TR_PQ_STRING, 0, 0}};

static int derive_input(pq_w *w, uint32_t p, pq_rows *out, tr_error *e)
{
    w->keys.len = 0;
    uint64_t *k = tr_vec_push(&w->keys);
    if (!k) return tr_error_nomem(e);
    *k = w->parts[p].input;
    out->r64 = w->keys.data;
    out->n = 1;
    return TR_OK;
}

static void get_input(const pq_w *w, uint32_t p, int col, uint64_t key, tr_pq_value *v)
{
    const tr_input_info *in = tr_input_get(w->t, (uint32_t)key);
    switch (col) {
    case 0:
        v_int(v, (int64_t)key);
        break;
    case 1:
        v_str(w, v, in->path), v->is_null = 0;
        break;
    case 2:
        v_str(w, v, in->format), v->is_null = 0;
        break;
    case 3:
        v_str(w, v, in->origin_wall);
        break;
    case 4:
        v_opt(v, in->origin_unix_ns, INT64_MIN);
        break;
    case 5:
        v_str(w, v, in->clock);
        break;
    case 6:
        v_opt(v, in->rank, -1);
        break;
    case 7:
        v_int(v, (int64_t)in->lines_skipped);
        break;
    case 8:
        v_int(v, (int64_t)in->warnings);
        break;
    case 9:
        v_opt(v, in->meta, 0);
        break;
    default:
        v_part(w, p, v);
        break;
    }
}

/* ---- process, thread, track ---- */

static const pq_colspec process_cols[] = {
    {"upid", TR_PQ_INT64, 0, 0},       {"pid", TR_PQ_INT64, 1, 0},
    {"name", TR_PQ_STRING, 1, 0},      {"rank", TR_PQ_INT64, 1, 1},
    {"host", TR_PQ_STRING, 1, 0},      {"labels", TR_PQ_STRING, 1, 0},
    {"sort_index", TR_PQ_INT64, 1, 0}, {"input_id", TR_PQ_INT64, 0, 0},
    {"part", TR_PQ_STRING, 0, 0}};

static size_t count_processes(const pq_w *w)
{
    return tr_process_count(w->t);
}

static uint32_t process_part(const pq_w *w, size_t r)
{
    return w->proc_part[r];
}

static void get_process(const pq_w *w, uint32_t p, int col, uint64_t key, tr_pq_value *v)
{
    const tr_process *pr = tr_process_get(w->t, (uint32_t)key);
    switch (col) {
    case 0:
        v_int(v, (int64_t)key);
        break;
    case 1:
        v_opt(v, pr->pid, -1);
        break;
    case 2:
        v_str(w, v, pr->name);
        break;
    case 3:
        v_opt(v, pr->rank, -1);
        break;
    case 4:
        v_str(w, v, pr->host);
        break;
    case 5:
        v_str(w, v, pr->labels);
        break;
    case 6:
        v_opt(v, pr->sort_index, 0);
        break;
    case 7:
        v_int(v, pr->input);
        break;
    default:
        v_part(w, p, v);
        break;
    }
}

static const pq_colspec thread_cols[] = {{"utid", TR_PQ_INT64, 0, 0},
                                         {"tid", TR_PQ_INT64, 1, 0},
                                         {"name", TR_PQ_STRING, 1, 0},
                                         {"upid", TR_PQ_INT64, 0, 0},
                                         {"part", TR_PQ_STRING, 0, 0}};

static size_t count_tracks(const pq_w *w)
{
    return tr_track_count(w->t);
}

static uint32_t thread_part(const pq_w *w, size_t r)
{
    const tr_track *k = tr_track_get(w->t, (uint32_t)r);
    return is_thread_kind(k->kind) ? track_part(w, (uint32_t)r) : NO_PART;
}

static void get_thread(const pq_w *w, uint32_t p, int col, uint64_t key, tr_pq_value *v)
{
    const tr_track *k = tr_track_get(w->t, (uint32_t)key);
    switch (col) {
    case 0:
        v_int(v, (int64_t)key);
        break;
    case 1:
        v_opt(v, k->tid, -1);
        break;
    case 2:
        v_str(w, v, k->name);
        break;
    case 3:
        v_int(v, k->process);
        break;
    default:
        v_part(w, p, v);
        break;
    }
}

static const pq_colspec track_cols[] = {
    {"id", TR_PQ_INT64, 0, 0},         {"name", TR_PQ_STRING, 1, 0}, {"kind", TR_PQ_STRING, 0, 0},
    {"upid", TR_PQ_INT64, 0, 0},       {"utid", TR_PQ_INT64, 1, 0},  {"tid", TR_PQ_INT64, 1, 0},
    {"sort_index", TR_PQ_INT64, 1, 0}, {"part", TR_PQ_STRING, 0, 0}};

static uint32_t track_row_part(const pq_w *w, size_t r)
{
    return track_part(w, (uint32_t)r);
}

static void get_track(const pq_w *w, uint32_t p, int col, uint64_t key, tr_pq_value *v)
{
    const tr_track *k = tr_track_get(w->t, (uint32_t)key);
    switch (col) {
    case 0:
        v_int(v, (int64_t)key);
        break;
    case 1:
        v_str(w, v, k->name);
        break;
    case 2:
        v_const(v, tr_track_kind_name(k->kind), k->kind);
        break;
    case 3:
        v_int(v, k->process);
        break;
    case 4:
        v_opt(v, is_thread_kind(k->kind) ? (int64_t)key : -1, -1);
        break;
    case 5:
        v_opt(v, k->tid, -1);
        break;
    case 6:
        v_opt(v, k->sort_index, 0);
        break;
    default:
        v_part(w, p, v);
        break;
    }
}

/* ---- events ---- */

static const pq_colspec slice_cols[] = {
    {"id", TR_PQ_INT64, 0, 0},         {"ts", TR_PQ_INT64, 0, 0},
    {"dur", TR_PQ_INT64, 0, 0},        {"track_id", TR_PQ_INT64, 0, 0},
    {"category", TR_PQ_STRING, 1, 0},  {"name", TR_PQ_STRING, 1, 0},
    {"depth", TR_PQ_INT64, 0, 0},      {"parent_id", TR_PQ_INT64, 1, 0},
    {"arg_set_id", TR_PQ_INT64, 1, 0}, {"bytes", TR_PQ_INT64, 1, 0},
    {"part", TR_PQ_STRING, 0, 0}};

static size_t count_slices(const pq_w *w)
{
    return w->sl.n;
}

static uint32_t slice_part(const pq_w *w, size_t r)
{
    return kept(w, TR_EV_SLICE, r) ? track_part(w, w->sl.track[r]) : NO_PART;
}

static void get_slice(const pq_w *w, uint32_t p, int col, uint64_t r, tr_pq_value *v)
{
    const tr_slices *s = &w->sl;
    switch (col) {
    case 0:
        v_int(v, (int64_t)r);
        break;
    case 1:
        v_int(v, s->ts[r]);
        break;
    case 2:
        v_int(v, s->dur[r]);
        break;
    case 3:
        v_int(v, s->track[r]);
        break;
    case 4:
        v_str(w, v, s->cat[r]);
        break;
    case 5:
        v_str(w, v, s->name[r]);
        break;
    case 6:
        v_int(v, s->depth[r]);
        break;
    case 7: {
        uint32_t parent = s->parent[r];
        v_opt(v, parent == TR_NONE || !kept(w, TR_EV_SLICE, parent) ? -1 : (int64_t)parent, -1);
        break;
    }
    case 8:
        v_opt(v, s->args[r], 0);
        break;
    case 9:
        v_opt(v, s->bytes[r], -1);
        break;
    default:
        v_part(w, p, v);
        break;
    }
}

static const pq_colspec instant_cols[] = {
    {"id", TR_PQ_INT64, 0, 0},         {"ts", TR_PQ_INT64, 0, 0},
    {"track_id", TR_PQ_INT64, 0, 0},   {"category", TR_PQ_STRING, 1, 0},
    {"name", TR_PQ_STRING, 1, 0},      {"scope", TR_PQ_STRING, 0, 0},
    {"arg_set_id", TR_PQ_INT64, 1, 0}, {"bytes", TR_PQ_INT64, 1, 0},
    {"part", TR_PQ_STRING, 0, 0}};

static size_t count_instants(const pq_w *w)
{
    return w->in.n;
}

static uint32_t instant_part(const pq_w *w, size_t r)
{
    return kept(w, TR_EV_INSTANT, r) ? track_part(w, w->in.track[r]) : NO_PART;
}

static void get_instant(const pq_w *w, uint32_t p, int col, uint64_t r, tr_pq_value *v)
{
    static const char *const scopes[] = {"thread", "process", "global"};
    const tr_instants *s = &w->in;
    switch (col) {
    case 0:
        v_int(v, (int64_t)r);
        break;
    case 1:
        v_int(v, s->ts[r]);
        break;
    case 2:
        v_int(v, s->track[r]);
        break;
    case 3:
        v_str(w, v, s->cat[r]);
        break;
    case 4:
        v_str(w, v, s->name[r]);
        break;
    case 5: {
        unsigned scope = s->scope[r] < 3 ? s->scope[r] : 0;
        v_const(v, scopes[scope], scope);
        break;
    }
    case 6:
        v_opt(v, s->args[r], 0);
        break;
    case 7:
        v_opt(v, s->bytes[r], -1);
        break;
    default:
        v_part(w, p, v);
        break;
    }
}

static const pq_colspec counter_cols[] = {{"id", TR_PQ_INT64, 0, 0},
                                          {"ts", TR_PQ_INT64, 0, 0},
                                          {"track_id", TR_PQ_INT64, 0, 0},
                                          {"value", TR_PQ_DOUBLE, 0, 0},
                                          {"part", TR_PQ_STRING, 0, 0}};

static size_t count_counters(const pq_w *w)
{
    return w->co.n;
}

static uint32_t counter_part(const pq_w *w, size_t r)
{
    return kept(w, TR_EV_COUNTER, r) ? track_part(w, w->co.track[r]) : NO_PART;
}

static void get_counter(const pq_w *w, uint32_t p, int col, uint64_t r, tr_pq_value *v)
{
    switch (col) {
    case 0:
        v_int(v, (int64_t)r);
        break;
    case 1:
        v_int(v, w->co.ts[r]);
        break;
    case 2:
        v_int(v, w->co.track[r]);
        break;
    case 3:
        v->d = w->co.value[r];
        break;
    default:
        v_part(w, p, v);
        break;
    }
}

static const pq_colspec sample_cols[] = {
    {"id", TR_PQ_INT64, 0, 0},          {"ts", TR_PQ_INT64, 0, 0},
    {"track_id", TR_PQ_INT64, 0, 0},    {"utid", TR_PQ_INT64, 1, 0},
    {"callsite_id", TR_PQ_INT64, 1, 0}, {"arg_set_id", TR_PQ_INT64, 1, 0},
    {"weight", TR_PQ_INT64, 0, 0},      {"part", TR_PQ_STRING, 0, 0}};

static size_t count_samples(const pq_w *w)
{
    return w->sa.n;
}

static uint32_t sample_part(const pq_w *w, size_t r)
{
    return kept(w, TR_EV_SAMPLE, r) ? track_part(w, w->sa.track[r]) : NO_PART;
}

/* A folded input's line stands for "count" samples (as the SQLite writer reads it). */
static int64_t sample_weight(const pq_w *w, size_t r)
{
    tr_arg a;
    uint32_t set = w->sa.args[r];
    if (!set || !tr_args_find(w->t, set, "count", &a)) return 1;
    if (a.type == TR_ARG_UINT) return (int64_t)(a.v.u > INT64_MAX ? INT64_MAX : a.v.u);
    return a.v.i > 0 ? a.v.i : 0;
}

static int64_t sample_utid(const pq_w *w, size_t r)
{
    const tr_track *k = tr_track_get(w->t, w->sa.track[r]);
    return k && is_thread_kind(k->kind) ? (int64_t)w->sa.track[r] : -1;
}

static void get_sample(const pq_w *w, uint32_t p, int col, uint64_t r, tr_pq_value *v)
{
    const tr_samples *s = &w->sa;
    switch (col) {
    case 0:
        v_int(v, (int64_t)r);
        break;
    case 1:
        v_int(v, s->ts[r]);
        break;
    case 2:
        v_int(v, s->track[r]);
        break;
    case 3:
        v_opt(v, sample_utid(w, r), -1);
        break;
    case 4:
        v_opt(v, s->stack[r], 0);
        break;
    case 5:
        v_opt(v, s->args[r], 0);
        break;
    case 6:
        v_int(v, sample_weight(w, r));
        break;
    default:
        v_part(w, p, v);
        break;
    }
}

/* ---- views as tables: sample_stack and io ---- */

static const pq_colspec sample_stack_cols[] = {
    {"id", TR_PQ_INT64, 0, 0},       {"ts", TR_PQ_INT64, 0, 0},
    {"track_id", TR_PQ_INT64, 0, 0}, {"utid", TR_PQ_INT64, 1, 0},
    {"thread", TR_PQ_STRING, 1, 0},  {"callsite_id", TR_PQ_INT64, 1, 0},
    {"weight", TR_PQ_INT64, 0, 0},   {"depth", TR_PQ_INT64, 1, 0},
    {"leaf", TR_PQ_STRING, 1, 0},    {"stack", TR_PQ_STRING, 1, 0},
    {"part", TR_PQ_STRING, 0, 0}};

static int derive_bucket(pq_w *w, int kind, uint32_t p, pq_rows *out)
{
    const pq_bucket *b = &w->ev[kind];
    out->r32 = b->rows + b->off[p];
    out->n = b->off[p + 1] - b->off[p];
    return TR_OK;
}

static int derive_sample_stack(pq_w *w, uint32_t p, pq_rows *out, tr_error *e)
{
    (void)e;
    return derive_bucket(w, TR_EV_SAMPLE, p, out);
}

/* STACK's frames root first, joined by ';' (a frame without a name is '?'), into scratch. */
static void stack_text(const pq_w *w, uint32_t stack, tr_pq_value *v)
{
    tr_buf *b = (tr_buf *)&w->scratch;
    tr_buf_reset(b);
    /* Frames come innermost first: write each at its place from the end. */
    size_t len = 0;
    for (uint32_t s = stack; s; s = tr_stack_parent(w->t, s)) {
        const tr_frame *f = tr_frame_get(w->t, tr_stack_frame(w->t, s));
        size_t n = 1;
        if (f && f->function) tr_str_get(w->t, f->function, &n);
        len += n + (s != stack);
    }
    if (tr_buf_grow(b, len)) {
        v->is_null = 1; /* out of memory: the page build reports it soon enough */
        return;
    }
    size_t end = len;
    for (uint32_t s = stack; s; s = tr_stack_parent(w->t, s)) {
        const tr_frame *f = tr_frame_get(w->t, tr_stack_frame(w->t, s));
        size_t n = 1;
        const char *name = f && f->function ? tr_str_get(w->t, f->function, &n) : "?";
        if (s != stack) b->p[--end] = ';';
        end -= n;
        memcpy(b->p + end, name, n);
    }
    b->len = len;
    b->p[len] = '\0';
    v->s = b->p;
    v->n = len;
    v->key = stack;
}

static void get_sample_stack(const pq_w *w, uint32_t p, int col, uint64_t r, tr_pq_value *v)
{
    const tr_samples *s = &w->sa;
    uint32_t stack = s->stack[r];
    switch (col) {
    case 0:
        v_int(v, (int64_t)r);
        break;
    case 1:
        v_int(v, s->ts[r]);
        break;
    case 2:
        v_int(v, s->track[r]);
        break;
    case 3:
        v_opt(v, sample_utid(w, r), -1);
        break;
    case 4: {
        const tr_track *k = tr_track_get(w->t, s->track[r]);
        v_str(w, v, k ? k->name : 0);
        break;
    }
    case 5:
        v_opt(v, stack, 0);
        break;
    case 6:
        v_int(v, sample_weight(w, r));
        break;
    case 7:
        v_opt(v, stack ? (int64_t)tr_stack_depth(w->t, stack) : -1, -1);
        break;
    case 8: {
        const tr_frame *f = stack ? tr_frame_get(w->t, tr_stack_frame(w->t, stack)) : NULL;
        v_str(w, v, f ? f->function : 0);
        break;
    }
    case 9:
        if (stack)
            stack_text(w, stack, v);
        else
            v->is_null = 1;
        break;
    default:
        v_part(w, p, v);
        break;
    }
}

static const pq_colspec io_cols[] = {
    {"slice_id", TR_PQ_INT64, 0, 0}, {"rank", TR_PQ_INT64, 1, 1},  {"thread", TR_PQ_INT64, 1, 0},
    {"ts", TR_PQ_INT64, 0, 0},       {"dur", TR_PQ_INT64, 0, 0},   {"function", TR_PQ_STRING, 1, 0},
    {"layer", TR_PQ_STRING, 1, 0},   {"path", TR_PQ_STRING, 1, 0}, {"offset", TR_PQ_INT64, 1, 0},
    {"bytes", TR_PQ_INT64, 1, 0},    {"part", TR_PQ_STRING, 0, 0}};

/* Recorder inputs' calls: the part's slices when its input is a Recorder trace. */
static int derive_io(pq_w *w, uint32_t p, pq_rows *out, tr_error *e)
{
    (void)e;
    const tr_input_info *in = tr_input_get(w->t, w->parts[p].input);
    derive_bucket(w, TR_EV_SLICE, p, out);
    if (!in || strcmp(tr_str_get(w->t, in->format, NULL), "recorder") != 0) out->n = 0;
    return TR_OK;
}

static void get_io(const pq_w *w, uint32_t p, int col, uint64_t r, tr_pq_value *v)
{
    const tr_slices *s = &w->sl;
    const tr_track *k = tr_track_get(w->t, s->track[r]);
    tr_arg a;
    switch (col) {
    case 0:
        v_int(v, (int64_t)r);
        break;
    case 1: {
        const tr_process *pr = tr_process_get(w->t, k->process);
        v_opt(v, pr ? pr->rank : -1, -1);
        break;
    }
    case 2:
        v_opt(v, k->tid, -1);
        break;
    case 3:
        v_int(v, s->ts[r]);
        break;
    case 4:
        v_int(v, s->dur[r]);
        break;
    case 5:
        v_str(w, v, s->name[r]);
        break;
    case 6:
        v_str(w, v, s->cat[r]);
        break;
    case 7:
        /* args.string_value: a path given as a number has none */
        if (s->args[r] && tr_args_find(w->t, s->args[r], "path", &a) && a.type == TR_ARG_STR)
            v_str(w, v, a.v.s), v->is_null = 0;
        else
            v->is_null = 1;
        break;
    case 8:
        /* args.int_value: ints, bools and uints up to INT64_MAX */
        v->is_null = 1;
        if (s->args[r] && tr_args_find(w->t, s->args[r], "offset", &a)) {
            if (a.type == TR_ARG_INT || a.type == TR_ARG_BOOL)
                v->is_null = 0, v->i = a.v.i;
            else if (a.type == TR_ARG_UINT && a.v.u <= INT64_MAX)
                v->is_null = 0, v->i = (int64_t)a.v.u;
        }
        break;
    case 9:
        v_opt(v, s->bytes[r], -1);
        break;
    default:
        v_part(w, p, v);
        break;
    }
}

/* ---- flow ---- */

static const pq_colspec flow_cols[] = {
    {"id", TR_PQ_INT64, 0, 0},         {"slice_out", TR_PQ_INT64, 1, 0},
    {"slice_in", TR_PQ_INT64, 1, 0},   {"instant_out", TR_PQ_INT64, 1, 0},
    {"instant_in", TR_PQ_INT64, 1, 0}, {"name", TR_PQ_STRING, 1, 0},
    {"category", TR_PQ_STRING, 1, 0},  {"flow_id", TR_PQ_INT64, 0, 0},
    {"part", TR_PQ_STRING, 0, 0}};

static size_t count_flows(const pq_w *w)
{
    return tr_flow_count(w->t);
}

/* The part of a flow end, NO_PART when it is not a kept slice or instant. */
static uint32_t ref_part(const pq_w *w, tr_ref ref)
{
    int kind = TR_REF_KIND(ref);
    uint32_t row = TR_REF_ROW(ref);
    if (kind == TR_EV_SLICE && row < w->sl.n && kept(w, kind, row))
        return track_part(w, w->sl.track[row]);
    if (kind == TR_EV_INSTANT && row < w->in.n && kept(w, kind, row))
        return track_part(w, w->in.track[row]);
    return NO_PART;
}

/* A flow lives in the part of its start; both ends must be written. */
static uint32_t flow_part(const pq_w *w, size_t r)
{
    const tr_flow *f = tr_flow_get(w->t, (uint32_t)r);
    return ref_part(w, f->to) == NO_PART ? NO_PART : ref_part(w, f->from);
}

static void ref_col(tr_pq_value *v, tr_ref ref, int kind)
{
    v_opt(v, TR_REF_KIND(ref) == kind ? (int64_t)TR_REF_ROW(ref) : -1, -1);
}

static void get_flow(const pq_w *w, uint32_t p, int col, uint64_t key, tr_pq_value *v)
{
    const tr_flow *f = tr_flow_get(w->t, (uint32_t)key);
    switch (col) {
    case 0:
        v_int(v, (int64_t)key);
        break;
    case 1:
        ref_col(v, f->from, TR_EV_SLICE);
        break;
    case 2:
        ref_col(v, f->to, TR_EV_SLICE);
        break;
    case 3:
        ref_col(v, f->from, TR_EV_INSTANT);
        break;
    case 4:
        ref_col(v, f->to, TR_EV_INSTANT);
        break;
    case 5:
        v_str(w, v, f->name);
        break;
    case 6:
        v_str(w, v, f->cat);
        break;
    case 7:
        v_int(v, (int64_t)f->id);
        break;
    default:
        v_part(w, p, v);
        break;
    }
}

/* ---- args ---- */

static const pq_colspec args_cols[] = {
    {"arg_set_id", TR_PQ_INT64, 0, 0},     {"id", TR_PQ_INT64, 0, 0},
    {"flat_key", TR_PQ_STRING, 0, 0},      {"key", TR_PQ_STRING, 0, 0},
    {"int_value", TR_PQ_INT64, 1, 0},      {"string_value", TR_PQ_STRING, 1, 0},
    {"real_value", TR_PQ_DOUBLE, 1, 0},    {"value_type", TR_PQ_STRING, 0, 0},
    {"display_value", TR_PQ_STRING, 1, 0}, {"part", TR_PQ_STRING, 0, 0}};

static int take(pq_w *w, uint32_t id, uint32_t p)
{
    if (w->stamp[id] == p) return TR_OK;
    w->stamp[id] = p;
    uint64_t *k = tr_vec_push(&w->keys);
    if (!k) return TR_FATAL;
    *k = id;
    return TR_OK;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The arg sets the part's events (and its input) use, in id order, stamps reset first. */
static int part_sets(pq_w *w, uint32_t p)
{
    static const int kinds[] = {TR_EV_SLICE, TR_EV_INSTANT, TR_EV_SAMPLE};
    w->keys.len = 0;
    int rc = TR_OK;
    for (size_t k = 0; k < 3 && !rc; k++) {
        const pq_bucket *b = &w->ev[kinds[k]];
        const uint32_t *args = kinds[k] == TR_EV_SLICE     ? w->sl.args
                               : kinds[k] == TR_EV_INSTANT ? w->in.args
                                                           : w->sa.args;
        for (size_t i = b->off[p]; i < b->off[p + 1] && !rc; i++) {
            uint32_t set = args[b->rows[i]];
            if (set && set <= w->n_sets) rc = take(w, set, p);
        }
    }
    uint32_t meta = tr_input_get(w->t, w->parts[p].input)->meta;
    if (!rc && meta && meta <= w->n_sets) rc = take(w, meta, p);
    if (!rc) qsort(w->keys.data, w->keys.len, sizeof(uint64_t), cmp_u64);
    return rc;
}

/* One row per arg: KEY is the set in the high 32 bits and the arg's place in the low. */
static int derive_args(pq_w *w, uint32_t p, pq_rows *out, tr_error *e)
{
    if (part_sets(w, p)) return tr_error_nomem(e);
    size_t n_sets = w->keys.len, n_args = 0;
    for (size_t i = 0; i < n_sets; i++)
        n_args += tr_args_count(w->t, (uint32_t)TR_VEC_AT(&w->keys, uint64_t, i));
    if (tr_vec_reserve(&w->keys, n_sets + n_args)) return tr_error_nomem(e);
    uint64_t *k = w->keys.data;
    /* Expand in place from the back: set i's args land after every set's id. */
    size_t at = n_sets + n_args;
    for (size_t i = n_sets; i-- > 0;) {
        uint64_t set = k[i];
        size_t n = tr_args_count(w->t, (uint32_t)set);
        for (size_t j = n; j-- > 0;) k[--at] = set << 32 | j;
    }
    out->r64 = k + n_sets;
    out->n = n_args;
    w->keys.len = n_sets + n_args;
    return TR_OK;
}

/*
** A real as SQLite's CAST(real AS TEXT) writes it ("%!.15g"): 15 digits, and
** a ".0" when there is no decimal point ("2.0", "1.0e+20"); zero is "0.0".
*/
static int sqlite_real(tr_buf *b, double d)
{
    if (d == 0) return tr_buf_adds(b, "0.0");
    if (isinf(d)) return tr_buf_adds(b, d < 0 ? "-Inf" : "Inf");
    char tmp[40];
    snprintf(tmp, sizeof tmp, "%.15g", d);
    if (strchr(tmp, '.')) return tr_buf_adds(b, tmp);
    char *exp = strchr(tmp, 'e');
    if (!exp) return tr_buf_addf(b, "%s.0", tmp);
    return tr_buf_addf(b, "%.*s.0%s", (int)(exp - tmp), tmp, exp);
}

/* The value as text, as the SQLite view's display_value. */
static void display_value(const pq_w *w, const tr_arg *a, tr_pq_value *v)
{
    tr_buf *b = (tr_buf *)&w->scratch;
    tr_buf_reset(b);
    int rc = TR_OK;
    switch (a->type) {
    case TR_ARG_STR:
        v_str(w, v, a->v.s);
        v->is_null = 0;
        v->key = TR_PQ_NO_KEY;
        return;
    case TR_ARG_BOOL:
        v_const(v, a->v.i ? "true" : "false", TR_PQ_NO_KEY);
        return;
    case TR_ARG_UINT:
        /* above INT64_MAX SQLite holds it as a real */
        rc = a->v.u > INT64_MAX ? sqlite_real(b, (double)a->v.u)
                                : tr_buf_addf(b, "%llu", (unsigned long long)a->v.u);
        break;
    case TR_ARG_REAL:
        if (isnan(a->v.d)) {
            v->is_null = 1; /* SQLite stores NaN as NULL */
            return;
        }
        rc = sqlite_real(b, a->v.d);
        break;
    default:
        rc = tr_buf_add_int(b, a->v.i);
        break;
    }
    v->is_null = rc != TR_OK;
    v->s = b->p;
    v->n = b->len;
    v->key = TR_PQ_NO_KEY;
}

static void get_arg(const pq_w *w, uint32_t p, int col, uint64_t key, tr_pq_value *v)
{
    static const char *const types[] = {"int", "real", "string", "bool", "uint"};
    static const size_t type_len[] = {3, 4, 6, 4, 4};
    uint32_t set = (uint32_t)(key >> 32), i = (uint32_t)key;
    tr_arg a;
    tr_args_at(w->t, set, i, &a);
    int type = a.type >= 0 && a.type < 5 ? a.type : 0;
    switch (col) {
    case 0:
        v_int(v, set);
        break;
    case 1:
        v_int(v, (int64_t)(w->set_first[set] + i));
        break;
    case 2:
    case 3:
        v_str(w, v, a.key), v->is_null = 0;
        break;
    case 4:
        v->is_null = !(type == TR_ARG_INT || type == TR_ARG_BOOL ||
                       (type == TR_ARG_UINT && a.v.u <= INT64_MAX));
        v->i = type == TR_ARG_UINT ? (int64_t)a.v.u : a.v.i;
        break;
    case 5:
        if (type == TR_ARG_STR)
            v_str(w, v, a.v.s), v->is_null = 0;
        else
            v->is_null = 1;
        break;
    case 6:
        /* a uint above INT64_MAX keeps its magnitude as a real, as in SQLite */
        v->is_null =
            !((type == TR_ARG_REAL && !isnan(a.v.d)) || (type == TR_ARG_UINT && a.v.u > INT64_MAX));
        v->d = type == TR_ARG_REAL ? a.v.d : (double)a.v.u;
        break;
    case 7:
        v->s = types[type];
        v->n = type_len[type];
        v->key = (uint64_t)type;
        break;
    case 8:
        display_value(w, &a, v);
        break;
    default:
        v_part(w, p, v);
        break;
    }
}

/* ---- stacks ---- */

static const pq_colspec frame_cols[] = {
    {"id", TR_PQ_INT64, 0, 0},   {"name", TR_PQ_STRING, 1, 0},   {"file", TR_PQ_STRING, 1, 0},
    {"line", TR_PQ_INT64, 1, 0}, {"module", TR_PQ_STRING, 1, 0}, {"is_native", TR_PQ_INT64, 0, 0},
    {"part", TR_PQ_STRING, 0, 0}};

static const pq_colspec callsite_cols[] = {{"id", TR_PQ_INT64, 0, 0},
                                           {"depth", TR_PQ_INT64, 0, 0},
                                           {"parent_id", TR_PQ_INT64, 1, 0},
                                           {"frame_id", TR_PQ_INT64, 0, 0},
                                           {"part", TR_PQ_STRING, 0, 0}};

/* The callsites the part's samples use and their ancestors, in id order. */
static int part_stacks(pq_w *w, uint32_t p)
{
    const pq_bucket *b = &w->ev[TR_EV_SAMPLE];
    w->keys.len = 0;
    for (size_t i = b->off[p]; i < b->off[p + 1]; i++)
        for (uint32_t s = w->sa.stack[b->rows[i]]; s && w->stamp[s] != p;
             s = tr_stack_parent(w->t, s))
            if (take(w, s, p)) return TR_FATAL;
    qsort(w->keys.data, w->keys.len, sizeof(uint64_t), cmp_u64);
    return TR_OK;
}

static int derive_callsites(pq_w *w, uint32_t p, pq_rows *out, tr_error *e)
{
    if (part_stacks(w, p)) return tr_error_nomem(e);
    out->r64 = w->keys.data;
    out->n = w->keys.len;
    return TR_OK;
}

/* Stack 0 is the empty stack: callsites start at 1 and a root's parent is NULL. */
static void get_callsite(const pq_w *w, uint32_t p, int col, uint64_t key, tr_pq_value *v)
{
    uint32_t s = (uint32_t)key;
    switch (col) {
    case 0:
        v_int(v, s);
        break;
    case 1:
        v_int(v, (int64_t)tr_stack_depth(w->t, s) - 1);
        break;
    case 2:
        v_opt(v, tr_stack_parent(w->t, s), 0);
        break;
    case 3:
        v_int(v, tr_stack_frame(w->t, s));
        break;
    default:
        v_part(w, p, v);
        break;
    }
}

/* The frames of the part's callsites (stamps are per frame here). */
static int derive_frames(pq_w *w, uint32_t p, pq_rows *out, tr_error *e)
{
    if (part_stacks(w, p)) return tr_error_nomem(e);
    size_t n = w->keys.len;
    uint64_t *k = w->keys.data;
    for (size_t i = 0; i < n; i++) k[i] = tr_stack_frame(w->t, (uint32_t)k[i]);
    qsort(k, n, sizeof *k, cmp_u64);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || k[m - 1] != k[i]) k[m++] = k[i];
    out->r64 = k;
    out->n = m;
    return TR_OK;
}

static void get_frame(const pq_w *w, uint32_t p, int col, uint64_t key, tr_pq_value *v)
{
    const tr_frame *f = tr_frame_get(w->t, (uint32_t)key);
    switch (col) {
    case 0:
        v_int(v, (int64_t)key);
        break;
    case 1:
        v_str(w, v, f->function);
        break;
    case 2:
        v_str(w, v, f->file);
        break;
    case 3:
        v_opt(v, f->line, 0);
        break;
    case 4:
        v_str(w, v, f->module);
        break;
    case 5:
        v_int(v, f->is_native != 0);
        break;
    default:
        v_part(w, p, v);
        break;
    }
}

/* ---- the tables ---- */

#define COLS(a) a, (int)(sizeof a / sizeof *a)

/* Event tables first: their buckets are what the later ones gather from. */
static const pq_table tables[] = {
    {"slice", COLS(slice_cols), slice_part, count_slices, NULL, get_slice},
    {"instant", COLS(instant_cols), instant_part, count_instants, NULL, get_instant},
    {"counter", COLS(counter_cols), counter_part, count_counters, NULL, get_counter},
    {"stack_sample", COLS(sample_cols), sample_part, count_samples, NULL, get_sample},
    {"trace_input", COLS(input_cols), NULL, NULL, derive_input, get_input},
    {"process", COLS(process_cols), process_part, count_processes, NULL, get_process},
    {"thread", COLS(thread_cols), thread_part, count_tracks, NULL, get_thread},
    {"track", COLS(track_cols), track_row_part, count_tracks, NULL, get_track},
    {"flow", COLS(flow_cols), flow_part, count_flows, NULL, get_flow},
    {"args", COLS(args_cols), NULL, NULL, derive_args, get_arg},
    {"stack_profile_callsite", COLS(callsite_cols), NULL, NULL, derive_callsites, get_callsite},
    {"stack_profile_frame", COLS(frame_cols), NULL, NULL, derive_frames, get_frame},
    {"sample_stack", COLS(sample_stack_cols), NULL, NULL, derive_sample_stack, get_sample_stack},
    {"io", COLS(io_cols), NULL, NULL, derive_io, get_io},
};

#define N_TABLES       (sizeof tables / sizeof *tables)
#define N_EVENT_TABLES 4 /* tables[0..3] are TR_EV_* in order */

/* ---- files ---- */

/* mkdir -p PATH (a copy is cut at each '/'). */
static int make_dirs(const char *path, tr_error *e)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    if (tr_buf_adds(&b, path)) return tr_error_nomem(e);
    int rc = TR_OK;
    for (size_t i = 1; i <= b.len && !rc; i++) {
        if (b.p[i] != '/' && b.p[i] != '\0') continue;
        char c = b.p[i];
        b.p[i] = '\0';
        struct stat st;
        if (mkdir(b.p, 0777) != 0 && errno != EEXIST)
            rc = tr_error_errno(e, errno, NULL, "%s: cannot create the directory", b.p);
        else if (stat(b.p, &st) != 0 || !S_ISDIR(st.st_mode))
            rc = tr_errorf(e, TR_E_IO, NULL, "%s: not a directory", b.p);
        b.p[i] = c;
    }
    tr_buf_fini(&b);
    return rc;
}

/* What the file pulls its values through: the table, the part, its rows. */
typedef struct pq_file_ctx {
    const pq_w *w;
    const pq_table *tb;
    uint32_t p;
    pq_rows rows;
    int colmap[MAX_COLS]; /* file column -> table column */
} pq_file_ctx;

static void file_get(void *user, int col, uint64_t row, tr_pq_value *v)
{
    const pq_file_ctx *c = user;
    uint64_t key = c->rows.r32 ? c->rows.r32[row] : c->rows.r64[row];
    v->key = TR_PQ_NO_KEY;
    c->tb->get(c->w, c->p, c->colmap[col], key, v);
}

static int write_file(pq_w *w, const pq_table *tb, uint32_t p, pq_rows rows, tr_error *e)
{
    tr_parquet *pw = w->pw;
    const pq_part *part = &w->parts[p];
    tr_buf path;
    tr_buf_init(&path, 0);
    int rc = tr_buf_addf(&path, "%s/%s", pw->dir, tb->name);
    if (!rc && pw->o.partition_rank) {
        if (part->rank >= 0)
            rc = tr_buf_addf(&path, "/rank=%d", (int)part->rank);
        else
            rc = tr_buf_adds(&path, "/rank=__HIVE_DEFAULT_PARTITION__");
    }
    if (rc) {
        tr_buf_fini(&path);
        return tr_error_nomem(e);
    }
    rc = make_dirs(path.p, e);
    if (!rc && tr_buf_addf(&path, "/part-%s.parquet", part->name)) rc = tr_error_nomem(e);
    pq_file_ctx ctx = {.w = w, .tb = tb, .p = p, .rows = rows};
    tr_pq_column cols[MAX_COLS];
    int ncols = 0;
    for (int c = 0; c < tb->ncols; c++) {
        if (tb->cols[c].is_rank && pw->o.partition_rank) continue;
        cols[ncols] = (tr_pq_column){
            .name = tb->cols[c].name, .type = tb->cols[c].type, .optional = tb->cols[c].optional};
        ctx.colmap[ncols++] = c;
    }
    tr_output *out = NULL;
    tr_pq_file *f = NULL;
    if (!rc) rc = tr_output_open(&out, path.p, e);
    if (!rc) rc = tr_pq_file_open(&f, out, cols, ncols, &pw->lim, e);
    if (!rc) rc = tr_pq_file_rows(f, rows.n, file_get, &ctx, e);
    char version[16];
    snprintf(version, sizeof version, "%d", TR_PARQUET_SCHEMA_VERSION);
    if (!rc) rc = tr_pq_file_meta(f, "tracecat.schema_version", version, e);
    if (!rc) rc = tr_pq_file_meta(f, "tracecat.table", tb->name, e);
    uint64_t size = f ? tr_pq_file_size(f) : 0;
    if (!rc) {
        rc = tr_pq_file_finish(f, e);
        f = NULL;
    }
    tr_pq_file_free(f);
    if (!rc) {
        rc = tr_output_commit(out, e);
        out = NULL;
    }
    tr_output_abort(out);
    if (rc && e && !e->file[0]) snprintf(e->file, sizeof e->file, "%s", path.p);
    tr_buf_fini(&path);
    if (!rc) {
        pw->files++;
        pw->rows += rows.n;
        pw->bytes += size;
    }
    return rc;
}

/* Counting sort of a table's rows by part: stable, so each part keeps time order. */
static int bucket(pq_w *w, const pq_table *tb, pq_bucket *b, tr_error *e)
{
    size_t n = tb->count(w);
    b->off = tr_calloc(w->n_parts + 2, sizeof *b->off);
    b->rows = tr_malloc((n ? n : 1) * sizeof *b->rows);
    if (!b->off || !b->rows) return tr_error_nomem(e);
    for (size_t r = 0; r < n; r++) {
        uint32_t p = tb->part_of(w, r);
        if (p != NO_PART) b->off[p + 2]++;
    }
    for (size_t p = 2; p < w->n_parts + 2; p++) b->off[p] += b->off[p - 1];
    /* off[p + 1] is now where part p starts; filling moves it to where p ends. */
    for (size_t r = 0; r < n; r++) {
        uint32_t p = tb->part_of(w, r);
        if (p != NO_PART) b->rows[b->off[p + 1]++] = (uint32_t)r;
    }
    return TR_OK;
}

static void bucket_free(pq_bucket *b)
{
    tr_free(b->rows);
    tr_free(b->off);
    b->rows = NULL;
    b->off = NULL;
}

static int write_table(pq_w *w, size_t ti, tr_error *e)
{
    const pq_table *tb = &tables[ti];
    pq_bucket own = {0};
    pq_bucket *b = ti < N_EVENT_TABLES ? &w->ev[ti] : &own;
    int rc = TR_OK;
    if (tb->part_of && !b->rows) rc = bucket(w, tb, b, e);
    /* Each part gets a file, empty or not, so every table exists for every part. */
    for (uint32_t p = 0; p < w->n_parts && !rc; p++) {
        pq_rows rows = {0};
        if (tb->part_of) {
            rows.r32 = b->rows + b->off[p];
            rows.n = b->off[p + 1] - b->off[p];
        } else {
            rc = tb->derive(w, p, &rows, e);
        }
        if (!rc) rc = write_file(w, tb, p, rows, e);
    }
    bucket_free(&own);
    return rc;
}

/* ---- parts ---- */

static uint64_t fnv1a(uint64_t h, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
    return h;
}

/*
** An input's part name: its file name (letters, digits, '.', '_', '-'; at
** most 48 of them) and 12 hex digits of a hash of its absolute path.
*/
static int input_part_name(const tr_trace *t, uint32_t input, tr_buf *b)
{
    size_t n;
    const char *path = tr_str_get(t, tr_input_get(t, input)->path, &n);
    uint64_t h = 0xcbf29ce484222325ull;
    if (n == 0 || path[0] != '/') {
        char *cwd = getcwd(NULL, 0);
        if (cwd) {
            h = fnv1a(h, cwd, strlen(cwd));
            h = fnv1a(h, "/", 1);
        }
        free(cwd);
    }
    h = fnv1a(h, path, n);
    size_t end = n;
    while (end > 1 && path[end - 1] == '/') end--;
    size_t start = end;
    while (start > 0 && path[start - 1] != '/') start--;
    size_t kept = 0;
    int rc = TR_OK;
    for (size_t i = start; i < end && kept < 48 && !rc; i++, kept++) {
        char c = path[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        rc = tr_buf_addc(b, ok ? c : '_');
    }
    if (!rc && kept == 0) rc = tr_buf_adds(b, "stdin");
    if (!rc) rc = tr_buf_addf(b, "-%012llx", (unsigned long long)(h >> 16));
    return rc;
}

static int add_part(pq_w *w, uint32_t input, int32_t rank, size_t *cap)
{
    if (w->n_parts == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        pq_part *parts = tr_realloc(w->parts, c * sizeof *parts);
        if (!parts) return TR_FATAL;
        w->parts = parts;
        *cap = c;
    }
    pq_part *p = &w->parts[w->n_parts];
    tr_buf name;
    tr_buf_init(&name, 0);
    int rc = input_part_name(w->t, input, &name);
    if (!rc && w->pw->o.partition_rank && rank >= 0) rc = tr_buf_addf(&name, "-r%d", (int)rank);
    if (rc) {
        tr_buf_fini(&name);
        return TR_FATAL;
    }
    p->input = input;
    p->rank = rank;
    p->name = name.p; /* the buffer's text is ours to keep */
    p->name_len = name.len;
    w->n_parts++;
    return TR_OK;
}

typedef struct proc_key {
    uint32_t input, proc;
    int32_t rank;
} proc_key;

static int by_input_rank(const void *a, const void *b)
{
    const proc_key *x = a, *y = b;
    if (x->input != y->input) return x->input < y->input ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    return x->proc < y->proc ? -1 : x->proc > y->proc;
}

/*
** One part per input, or per (input, rank) when partitioned; an input with
** no process still gets one, so each of its tables has a file.
*/
static int make_parts(pq_w *w, tr_error *e)
{
    const tr_trace *t = w->t;
    size_t n_proc = tr_process_count(t), n_in = tr_input_count(t), cap = 0;
    w->proc_part = tr_malloc((n_proc ? n_proc : 1) * sizeof *w->proc_part);
    proc_key *keys = tr_malloc((n_proc ? n_proc : 1) * sizeof *keys);
    uint8_t *has = tr_calloc(n_in ? n_in : 1, 1);
    int rc = !w->proc_part || !keys || !has ? TR_FATAL : TR_OK;
    for (size_t i = 0; i < n_proc && !rc; i++) {
        const tr_process *p = tr_process_get(t, (uint32_t)i);
        keys[i] = (proc_key){
            .input = p->input, .proc = (uint32_t)i, .rank = w->pw->o.partition_rank ? p->rank : -1};
        w->proc_part[i] = NO_PART;
    }
    if (!rc) qsort(keys, n_proc, sizeof *keys, by_input_rank);
    for (size_t i = 0; i < n_proc && !rc; i++) {
        const proc_key *k = &keys[i];
        if (k->input >= n_in) continue;
        if (i == 0 || k->input != keys[i - 1].input || k->rank != keys[i - 1].rank)
            rc = add_part(w, k->input, k->rank, &cap);
        w->proc_part[k->proc] = (uint32_t)w->n_parts - 1;
        has[k->input] = 1;
    }
    for (size_t i = 0; i < n_in && !rc; i++)
        if (!has[i]) rc = add_part(w, (uint32_t)i, tr_input_get(t, (uint32_t)i)->rank, &cap);
    tr_free(keys);
    tr_free(has);
    return rc ? tr_error_nomem(e) : TR_OK;
}

/* Marks the rows the filter keeps. */
static int select_rows(pq_w *w, const tr_filter *filter, tr_error *e)
{
    if (!filter) return TR_OK;
    size_t n[TR_EV_KIND_COUNT] = {w->sl.n, w->in.n, w->co.n, w->sa.n};
    for (int k = 0; k < TR_EV_KIND_COUNT; k++)
        if (!(w->keep[k] = tr_calloc(n[k] ? n[k] : 1, 1))) return tr_error_nomem(e);
    tr_iter it;
    tr_event ev;
    tr_iter_init(&it, w->t);
    while (tr_iter_next(&it, &ev))
        w->keep[ev.kind][ev.row] = filter->keep(filter->user, w->t, &ev) != 0;
    return TR_OK;
}

static int prepare(pq_w *w, tr_error *e)
{
    const tr_trace *t = w->t;
    tr_trace_slices(t, &w->sl);
    tr_trace_instants(t, &w->in);
    tr_trace_counters(t, &w->co);
    tr_trace_samples(t, &w->sa);
    tr_vec_init(&w->keys, sizeof(uint64_t));
    tr_buf_init(&w->scratch, 0);
    while (tr_args_count(t, (uint32_t)w->n_sets + 1) > 0) w->n_sets++;
    w->set_first = tr_malloc((w->n_sets + 1) * sizeof *w->set_first);
    /* One stamp array serves sets and stacks in turn (the larger of them). */
    size_t n_stamp = w->n_sets + 1;
    if (tr_stack_count(t) > n_stamp) n_stamp = tr_stack_count(t);
    w->stamp = tr_malloc(n_stamp * sizeof *w->stamp);
    if (!w->set_first || !w->stamp) return tr_error_nomem(e);
    uint64_t first = 0;
    for (size_t s = 1; s <= w->n_sets; s++) {
        w->set_first[s] = first;
        first += tr_args_count(t, (uint32_t)s);
    }
    int rc = select_rows(w, w->pw->o.filter, e);
    if (!rc) rc = make_parts(w, e);
    w->n_stamp = n_stamp;
    return rc;
}

static void reset_stamps(pq_w *w)
{
    for (size_t i = 0; i < w->n_stamp; i++) w->stamp[i] = NO_PART;
}

static void finish(pq_w *w)
{
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) {
        tr_free(w->keep[k]);
        bucket_free(&w->ev[k]);
    }
    for (size_t p = 0; p < w->n_parts; p++) tr_free(w->parts[p].name);
    tr_free(w->parts);
    tr_free(w->proc_part);
    tr_free(w->set_first);
    tr_free(w->stamp);
    tr_vec_fini(&w->keys);
    tr_buf_fini(&w->scratch);
}

/* ---- free space ---- */

/*
** What a trace's files take at most, judged from the model: zstd'd columns
** come to a fraction of the model's bytes (about 1/6 to 1/10 in
** tests/bench/parquet); half is a margin that still catches a nearly full disk.
*/
static uint64_t estimate_bytes(const tr_trace *t)
{
    return (uint64_t)tr_trace_memory(t) / 2 + (64u << 10) * N_TABLES;
}

static int check_space(const tr_parquet *pw, const tr_trace *t, tr_error *e)
{
    uint64_t need = estimate_bytes(t), avail;
    const char *fake = getenv("TRACECAT_FREE_BYTES");
    if (fake && *fake) {
        avail = strtoull(fake, NULL, 10);
    } else {
        struct statvfs st;
        if (statvfs(pw->dir, &st) != 0) return TR_OK; /* cannot tell: the writes will */
        avail = (uint64_t)st.f_bavail * st.f_frsize;
    }
    if (avail >= need) return TR_OK;
    size_t n;
    const char *path = tr_input_count(t) ? tr_str_get(t, tr_input_get(t, 0)->path, &n) : "";
    return tr_errorf(e, TR_E_IO, NULL,
                     "%s: not enough free space: %llu MB free, about %llu MB needed for %s",
                     pw->dir, (unsigned long long)(avail >> 20),
                     (unsigned long long)((need + (1 << 20) - 1) >> 20), path);
}

/* ---- the API ---- */

/* _tracecat.json: what engines and later runs need to know about the directory. */
static int layout_json(const tr_parquet *pw, tr_buf *b)
{
    int rc = tr_buf_addf(b,
                         "{\"tool\":\"tracecat\",\"tool_version\":\"%s\",\"format\":\"parquet\","
                         "\"schema_version\":%d,\"partition\":%s,\"tables\":{",
                         TRACECAT_VERSION, TR_PARQUET_SCHEMA_VERSION,
                         pw->o.partition_rank ? "\"rank\"" : "null");
    for (size_t i = 0; i < N_TABLES && !rc; i++) {
        rc = tr_buf_addf(b, "%s\n\"%s\":[", i ? "," : "", tables[i].name);
        int first = 1;
        for (int c = 0; c < tables[i].ncols && !rc; c++) {
            if (tables[i].cols[c].is_rank && pw->o.partition_rank) continue;
            rc = tr_buf_addf(b, "%s\"%s\"", first ? "" : ",", tables[i].cols[c].name);
            first = 0;
        }
        if (!rc) rc = tr_buf_adds(b, "]");
    }
    if (!rc) rc = tr_buf_adds(b, "}}\n");
    return rc;
}

/* Refuses a directory written with the other layout or a newer schema. */
static int check_existing(const tr_parquet *pw, const char *path, tr_error *e)
{
    FILE *fp = fopen(path, "r");
    if (!fp) return TR_OK;
    char head[512];
    size_t n = fread(head, 1, sizeof head - 1, fp);
    fclose(fp);
    head[n] = '\0';
    const char *v = strstr(head, "\"schema_version\":");
    if (v && atoi(v + 17) > TR_PARQUET_SCHEMA_VERSION)
        return tr_errorf(e, TR_E_USAGE, NULL, "%s: written by a newer tracecat (schema %d)", path,
                         atoi(v + 17));
    int was_rank = strstr(head, "\"partition\":\"rank\"") != NULL;
    if (was_rank != (pw->o.partition_rank != 0))
        return tr_errorf(e, TR_E_USAGE, NULL, "%s: the directory was written %s --partition rank",
                         path, was_rank ? "with" : "without");
    return TR_OK;
}

int tr_parquet_open(tr_parquet **pwp, const char *dir, const tr_parquet_opts *o, tr_error *e)
{
    tr_parquet *pw = tr_calloc(1, sizeof *pw);
    *pwp = pw;
    if (!pw) return tr_error_nomem(e);
    if (o) pw->o = *o;
    tr_pq_limits_default(&pw->lim);
    const char *env = getenv("TRACECAT_PARQUET_ROW_GROUP_ROWS");
    if (pw->o.row_group_rows)
        pw->lim.row_group_rows = pw->o.row_group_rows;
    else if (env && strtoull(env, NULL, 10) > 0)
        pw->lim.row_group_rows = strtoull(env, NULL, 10);
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    if (!(pw->dir = tr_malloc(n + 1))) return tr_error_nomem(e);
    memcpy(pw->dir, dir, n);
    pw->dir[n] = '\0';
    int rc = make_dirs(pw->dir, e);
    tr_buf path, json;
    tr_buf_init(&path, 0);
    tr_buf_init(&json, 0);
    if (!rc && (tr_buf_addf(&path, "%s/_tracecat.json", pw->dir) || layout_json(pw, &json)))
        rc = tr_error_nomem(e);
    if (!rc) rc = check_existing(pw, path.p, e);
    tr_output *out = NULL;
    if (!rc) rc = tr_output_open(&out, path.p, e);
    if (!rc) rc = tr_output_write(out, json.p, json.len, e);
    if (!rc) {
        rc = tr_output_commit(out, e);
        out = NULL;
    }
    tr_output_abort(out);
    tr_buf_fini(&path);
    tr_buf_fini(&json);
    return rc;
}

int tr_parquet_add(tr_parquet *pw, const tr_trace *t, tr_error *e)
{
    if (!tr_trace_frozen(t)) return tr_errorf(e, TR_E_USAGE, NULL, "the trace is not frozen");
    int rc = check_space(pw, t, e);
    if (rc) return rc;
    pq_w w;
    memset(&w, 0, sizeof w);
    w.pw = pw;
    w.t = t;
    rc = prepare(&w, e);
    for (size_t i = 0; i < N_TABLES && !rc; i++) {
        reset_stamps(&w);
        rc = write_table(&w, i, e);
    }
    finish(&w);
    return rc;
}

void tr_parquet_totals(const tr_parquet *pw, uint64_t *files, uint64_t *rows, uint64_t *bytes)
{
    if (files) *files = pw->files;
    if (rows) *rows = pw->rows;
    if (bytes) *bytes = pw->bytes;
}

void tr_parquet_close(tr_parquet *pw)
{
    if (!pw) return;
    tr_free(pw->dir);
    tr_free(pw);
}

static int parquet_write(const tr_trace *t, tr_output *out, const tr_write_opts *o, tr_error *e)
{
    (void)t;
    (void)o;
    return tr_errorf(e, TR_E_USAGE, NULL,
                     "%s: Parquet output is a directory: tracecat convert INPUT... -o DIR/ --to "
                     "parquet",
                     tr_output_path(out));
}

const tr_writer tr_writer_parquet = {
    .abi = TR_WRITER_ABI,
    .name = "parquet",
    .description = "Parquet files, Hive-partitioned (-o DIR/; Spark, Trino, DuckDB)",
    .extensions = "",
    .binary = 1,
    .write = parquet_write,
};
