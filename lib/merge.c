/*
** merge.c: appending one trace to another, and reading many inputs on
** several threads (each into its own trace) merged in input order.
**
** The first input is read straight into the destination, and each later
** one is merged as soon as it and every input before it are in, by the
** thread that finished it, while the other threads go on reading: the
** merges overlap the reading instead of following all of it.
**
** The merge replays what the reader did, table by table in id order:
** strings interned stay interned (and meet DST's copies), strings stored
** with tr_str_add stay apart, frames and stacks are interned again, arg
** sets keep their order (their sealed chunks taken whole, args.c).  Readers
** never look at what other inputs added, so the ids come out as a read in
** sequence gives them, and the written trace is the same byte for byte.
*/
#include "model_impl.h"
#include "tr_align.h"
#include "tr_load.h"
#include "tr_merge.h"
#include "tr_pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct remap {
    uint32_t *str, *input, *process, *track, *frame, *stack;
    uint32_t set_base; /* DST's arg sets before the merge */
    size_t row_base[TR_EV_KIND_COUNT];
} remap;

static void remap_fini(remap *m)
{
    tr_free(m->str);
    tr_free(m->input);
    tr_free(m->process);
    tr_free(m->track);
    tr_free(m->frame);
    tr_free(m->stack);
}

static uint32_t *map_new(size_t n)
{
    return tr_malloc((n ? n : 1) * sizeof(uint32_t));
}

static uint32_t set_of(const remap *m, uint32_t set)
{
    return set ? set + m->set_base : 0;
}

static int merge_strings(tr_trace *dst, const tr_trace *src, remap *m)
{
    size_t n = src->strs.len;
    if (!(m->str = map_new(n))) return TR_FATAL;
    m->str[0] = 0;
    for (size_t s = 1; s < n; s++) {
        const str_entry *e = model_str_entry(src, (tr_str)s);
        m->str[s] = model_str_interned(src, (tr_str)s) ? tr_str_intern(dst, e->p, e->len)
                                                       : tr_str_add(dst, e->p, e->len);
    }
    return dst->failed ? TR_FATAL : TR_OK;
}

/* Arg sets keep their order (so their ids are SRC's plus set_base), keys and strings renamed. */
static int merge_args(tr_trace *dst, const tr_trace *src, remap *m)
{
    if (dst->building != dst->args.len) return TR_FATAL; /* a set half built */
    if (model_args_sets(dst) + model_args_sets(src) >= TR_NONE - 1) return TR_FATAL;
    m->set_base = (uint32_t)model_args_sets(dst);
    return model_args_merge(dst, src, m->str);
}

static int merge_inputs(tr_trace *dst, const tr_trace *src, remap *m)
{
    if (!(m->input = map_new(src->inputs.len))) return TR_FATAL;
    for (size_t i = 0; i < src->inputs.len; i++) {
        const tr_input_info *s = &TR_VEC_AT(&src->inputs, tr_input_info, i);
        uint32_t id =
            tr_input_add(dst, tr_str_get(src, s->path, NULL), tr_str_get(src, s->format, NULL));
        if (id == TR_NONE) return TR_FATAL;
        tr_input_info *d = tr_input_at(dst, id);
        tr_str path = d->path, format = d->format;
        *d = *s;
        d->path = path;
        d->format = format;
        d->origin_wall = m->str[s->origin_wall];
        d->clock = m->str[s->clock];
        d->origin_from = m->str[s->origin_from];
        d->meta = set_of(m, s->meta);
        m->input[i] = id;
    }
    return TR_OK;
}

static int merge_skipped(tr_trace *dst, const tr_trace *src, const remap *m)
{
    for (size_t i = 0; i < src->skipped.len; i++) {
        const tr_skipped *s = &TR_VEC_AT(&src->skipped, tr_skipped, i);
        tr_skipped *d = tr_vec_push(&dst->skipped);
        if (!d) return TR_FATAL;
        *d = (tr_skipped){m->str[s->path], m->str[s->owner], s->why};
    }
    return TR_OK;
}

static int merge_processes(tr_trace *dst, const tr_trace *src, remap *m)
{
    if (!(m->process = map_new(src->processes.len))) return TR_FATAL;
    for (size_t i = 0; i < src->processes.len; i++) {
        const tr_process *s = &TR_VEC_AT(&src->processes, tr_process, i);
        uint32_t id = tr_process_intern_on(
            dst, m->input[s->input], m->str[model_process_key_host(src, (uint32_t)i)], s->pid);
        if (id == TR_NONE) return TR_FATAL;
        tr_process *d = tr_process_at(dst, id);
        *d = *s;
        d->input = m->input[s->input];
        d->name = m->str[s->name];
        d->host = m->str[s->host];
        d->labels = m->str[s->labels];
        m->process[i] = id;
    }
    return TR_OK;
}

static int merge_tracks(tr_trace *dst, const tr_trace *src, remap *m)
{
    size_t n = tr_track_count(src);
    if (!(m->track = map_new(n))) return TR_FATAL;
    for (size_t i = 0; i < n; i++) {
        const tr_track *s = tr_track_get(src, (uint32_t)i);
        uint32_t id = tr_track_intern(dst, m->process[s->process], s->kind, s->tid,
                                      m->str[model_track_key(src, (uint32_t)i)]);
        if (id == TR_NONE) return TR_FATAL;
        tr_track *d = tr_track_at(dst, id);
        d->name = m->str[s->name];
        d->sort_index = s->sort_index;
        d->nesting = s->nesting;
        m->track[i] = id;
    }
    return TR_OK;
}

static int merge_stacks(tr_trace *dst, const tr_trace *src, remap *m)
{
    if (!(m->frame = map_new(src->frames.len)) || !(m->stack = map_new(src->stacks.len)))
        return TR_FATAL;
    for (size_t i = 0; i < src->frames.len; i++) {
        tr_frame f = TR_VEC_AT(&src->frames, tr_frame, i);
        f.function = m->str[f.function];
        f.file = m->str[f.file];
        f.module = m->str[f.module];
        if ((m->frame[i] = tr_frame_intern(dst, &f)) == TR_NONE) return TR_FATAL;
    }
    m->stack[0] = 0;
    for (size_t i = 1; i < src->stacks.len; i++) {
        const stack_node *s = &TR_VEC_AT(&src->stacks, stack_node, i);
        m->stack[i] = tr_stack_push(dst, m->stack[s->parent], m->frame[s->frame]);
        if (m->stack[i] == TR_NONE) return TR_FATAL;
    }
    return TR_OK;
}

/* Room for N more rows in a table of NCOLS columns, growing by doubling. */
static int room(size_t *cap, size_t want, void **cols[], const size_t sizes[], size_t ncols)
{
    if (want <= *cap) return TR_OK;
    if (want >= TR_NONE - 1) return TR_FATAL;
    size_t ncap = *cap ? *cap : 1024;
    while (ncap < want) ncap *= 2;
    if (model_grow_columns(cols, sizes, ncols, ncap) != TR_OK) return TR_FATAL;
    *cap = ncap;
    return TR_OK;
}

static void map_col(uint32_t *out, const uint32_t *in, size_t n, const uint32_t *map)
{
    for (size_t i = 0; i < n; i++) out[i] = map[in[i]];
}

static void set_col(uint32_t *out, const uint32_t *in, size_t n, const remap *m)
{
    for (size_t i = 0; i < n; i++) out[i] = set_of(m, in[i]);
}

/*
** The N rows of column S after the first AT of D (room for CAP), values
** mapped through MAP when not NULL: copied whole when both are stored
** alike, one by one (model_col_set) when not.
*/
static int merge_col(model_col *d, size_t at, size_t cap, const model_col *s, size_t n,
                     const uint32_t *map)
{
    int64_t same = map ? map[s->same] : s->same;
    if (!s->p && !d->p && (!at || same == d->same)) return model_col_set(d, at, cap, same);
    /* a block SRC has and DST has not, or narrower, is made as SRC's, so that the rows copy whole
     */
    if (s->p && d->size < s->size && model_col_make(d, at, cap, s->size) != TR_OK) return TR_FATAL;
    if (s->p && s->size == d->size && s->bias == d->bias && (!map || d->size == 4)) {
        if (map)
            map_col((uint32_t *)d->p + at, s->p, n, map);
        else
            memcpy((char *)d->p + at * d->size, s->p, n * d->size);
        return TR_OK;
    }
    int rc = TR_OK;
    for (size_t i = 0; i < n; i++) {
        int64_t v = model_col_get(s, i);
        rc |= model_col_set(d, at + i, cap, map ? map[v] : v);
    }
    return rc;
}

/* The columns DST lacks and SRC has are made first, so that every one grows together. */
static int merge_slices(slice_table *d, const slice_table *s, const remap *m)
{
    if (s->thread_ts && !d->thread_ts && model_slice_make_thread_time(d) != TR_OK) return TR_FATAL;
    if (s->parent && !d->parent &&
        model_slice_make_column(d, (void **)&d->parent, 4, 0xff) != TR_OK)
        return TR_FATAL;
    void **cols[MODEL_SLICE_COLS];
    size_t sizes[MODEL_SLICE_COLS], ncols;
    model_slice_columns(d, cols, sizes, &ncols);
    if (room(&d->cap, d->n + s->n, cols, sizes, ncols) != TR_OK) return TR_FATAL;
    memcpy(d->ts + d->n, s->ts, s->n * 8);
    int rc = TR_OK;
    for (size_t i = 0; i < s->n; i++) {
        d->dur[d->n + i] = s->dur[i];
        if (s->dur[i] == TR_DUR_WIDE) rc |= model_slice_set_dur(d, d->n + i, model_slice_dur(s, i));
    }
    for (size_t i = 0; d->thread_ts && i < s->n; i++) {
        d->thread_ts[d->n + i] = s->thread_ts ? s->thread_ts[i] : TR_TIME_NONE;
        d->thread_dur[d->n + i] = s->thread_ts ? s->thread_dur[i] : TR_TIME_NONE;
    }
    map_col(d->track + d->n, s->track, s->n, m->track);
    map_col(d->name + d->n, s->name, s->n, m->str);
    rc |= merge_col(&d->cat, d->n, d->cap, &s->cat, s->n, m->str);
    rc |= merge_col(&d->bytes, d->n, d->cap, &s->bytes, s->n, NULL);
    set_col(d->args + d->n, s->args, s->n, m);
    /* Stated parents (TR_NEST_GIVEN tracks) move with their rows. */
    for (size_t i = 0; d->parent && i < s->n; i++)
        d->parent[d->n + i] =
            !s->parent || s->parent[i] == TR_NONE ? TR_NONE : (uint32_t)(s->parent[i] + d->n);
    if (d->depth) memset(d->depth + d->n, 0, s->n * 2);
    d->n += s->n;
    return rc ? TR_FATAL : TR_OK;
}

static int merge_events(tr_trace *dst, const tr_trace *src, remap *m)
{
    m->row_base[TR_EV_SLICE] = dst->slices.n;
    m->row_base[TR_EV_INSTANT] = dst->instants.n;
    m->row_base[TR_EV_COUNTER] = dst->counters.n;
    m->row_base[TR_EV_SAMPLE] = dst->samples.n;
    /* Empty tables are skipped: their columns may not exist yet. */
    if (src->slices.n && merge_slices(&dst->slices, &src->slices, m) != TR_OK) return TR_FATAL;

    instant_table *di = &dst->instants;
    const instant_table *si = &src->instants;
    if (si->n) {
        model_cols ic;
        model_table_columns(dst, TR_EV_INSTANT, &ic);
        if (room(&di->cap, di->n + si->n, ic.col, ic.size, ic.ncols) != TR_OK) return TR_FATAL;
        memcpy(di->ts + di->n, si->ts, si->n * 8);
        set_col(di->args + di->n, si->args, si->n, m);
        if ((merge_col(&di->track, di->n, di->cap, &si->track, si->n, m->track) |
             merge_col(&di->name, di->n, di->cap, &si->name, si->n, m->str) |
             merge_col(&di->cat, di->n, di->cap, &si->cat, si->n, m->str) |
             merge_col(&di->scope, di->n, di->cap, &si->scope, si->n, NULL) |
             merge_col(&di->bytes, di->n, di->cap, &si->bytes, si->n, NULL)) != TR_OK)
            return TR_FATAL;
        di->n += si->n;
    }

    counter_table *dc = &dst->counters;
    const counter_table *sc = &src->counters;
    void **ccols[] = {(void **)&dc->ts, (void **)&dc->value, (void **)&dc->track};
    static const size_t csizes[] = {8, 8, 4};
    if (sc->n && room(&dc->cap, dc->n + sc->n, ccols, csizes, 3) != TR_OK) return TR_FATAL;
    if (sc->n) {
        memcpy(dc->ts + dc->n, sc->ts, sc->n * 8);
        memcpy(dc->value + dc->n, sc->value, sc->n * 8);
        map_col(dc->track + dc->n, sc->track, sc->n, m->track);
        dc->n += sc->n;
    }

    sample_table *da = &dst->samples;
    const sample_table *sa = &src->samples;
    void **acols[] = {(void **)&da->ts, (void **)&da->track, (void **)&da->stack,
                      (void **)&da->args};
    static const size_t asizes[] = {8, 4, 4, 4};
    if (sa->n && room(&da->cap, da->n + sa->n, acols, asizes, 4) != TR_OK) return TR_FATAL;
    if (sa->n) {
        memcpy(da->ts + da->n, sa->ts, sa->n * 8);
        map_col(da->track + da->n, sa->track, sa->n, m->track);
        map_col(da->stack + da->n, sa->stack, sa->n, m->stack);
        set_col(da->args + da->n, sa->args, sa->n, m);
        da->n += sa->n;
    }
    return TR_OK;
}

static tr_ref ref_of(const remap *m, tr_ref r)
{
    int kind = TR_REF_KIND(r);
    if (kind < 0 || kind >= TR_EV_KIND_COUNT) return r;
    return TR_REF(kind, TR_REF_ROW(r) + m->row_base[kind]);
}

static int merge_flows(tr_trace *dst, const tr_trace *src, const remap *m)
{
    for (size_t i = 0; i < src->flows.n; i++) {
        tr_flow f;
        tr_flow_get(src, (uint32_t)i, &f);
        f.from = ref_of(m, f.from);
        f.to = ref_of(m, f.to);
        f.name = m->str[f.name];
        f.cat = m->str[f.cat];
        if (tr_flow_add(dst, &f) == TR_NONE) return TR_FATAL;
    }
    return TR_OK;
}

int tr_trace_merge(tr_trace *dst, const tr_trace *src, tr_error *e)
{
    if (dst->frozen || src->frozen)
        return tr_errorf(e, TR_E_USAGE, NULL, "tr_trace_merge of a frozen trace");
    if (dst->failed || src->failed) return tr_error_nomem(e);
    remap m;
    memset(&m, 0, sizeof m);
    int rc = merge_strings(dst, src, &m);
    if (rc == TR_OK) rc = merge_args(dst, src, &m);
    if (rc == TR_OK) rc = merge_inputs(dst, src, &m);
    if (rc == TR_OK) rc = merge_skipped(dst, src, &m);
    if (rc == TR_OK) rc = merge_processes(dst, src, &m);
    if (rc == TR_OK) rc = merge_tracks(dst, src, &m);
    if (rc == TR_OK) rc = merge_stacks(dst, src, &m);
    if (rc == TR_OK) rc = merge_events(dst, src, &m);
    if (rc == TR_OK) rc = merge_flows(dst, src, &m);
    remap_fini(&m);
    if (rc != TR_OK) {
        dst->failed = 1;
        return tr_error_nomem(e);
    }
    return tr_trace_status(dst, e);
}

/* ---- reading many inputs ---- */

/* Warnings an input's thread keeps for the caller's diag; past this they are only counted. */
#define KEEP_WARNINGS 1000

typedef struct load_job {
    const char *path;
    tr_trace *t; /* the job's own trace; for job 0, the destination */
    int rc;
    int done; /* read (under the pool's lock) */
    tr_error err;
    tr_diag diag;
    tr_vec warns; /* tr_error */
    uint64_t dropped;
    uint64_t ignored;
} load_job;

typedef struct load_pool {
    load_job *jobs;
    size_t n;
    const tr_load_opts *o;
    tr_trace *dst;
    pthread_mutex_t lock;
    size_t next; /* the next job to merge */
    int merging; /* a thread is merging: the others leave it to it */
    int failed;  /* a job or merge failed: nothing after it is merged */
    uint64_t merge_ns;
} load_pool;

static void keep_warning(void *user, const tr_error *w)
{
    load_job *j = user;
    tr_error *slot = j->warns.len < KEEP_WARNINGS ? tr_vec_push(&j->warns) : NULL;
    if (slot)
        *slot = *w;
    else
        j->dropped++;
}

/* Progress from several threads: one at a time. */
typedef struct progress_lock {
    pthread_mutex_t lock;
    tr_progress_fn fn;
    void *user;
} progress_lock;

static void locked_progress(void *user, const char *name, uint64_t done, uint64_t total)
{
    progress_lock *p = user;
    pthread_mutex_lock(&p->lock);
    p->fn(p->user, name, done, total);
    pthread_mutex_unlock(&p->lock);
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
** Room in DST for SRC's rows, flows and raw arg sets TIMES over: the inputs
** still to merge are taken to be like SRC, so that DST is sized once
** instead of doubling as they come (of 8 Kineto inputs, the merges whose
** arg sets doubled DST's vectors took 2-6x the others' time).  Advice only,
** as tr_trace_expect; raw sets past args_raw_max bytes are sealed, so no
** room is made for more.
*/
static void expect_like(tr_trace *dst, const tr_trace *src, size_t times)
{
    tr_expect x = {.events = {[TR_EV_SLICE] = src->slices.n * times,
                              [TR_EV_INSTANT] = src->instants.n * times,
                              [TR_EV_COUNTER] = src->counters.n * times,
                              [TR_EV_SAMPLE] = src->samples.n * times},
                   .flows = src->flows.n * times};
    tr_trace_expect(dst, &x);
    size_t most = dst->args_raw_max / 4, bytes = src->args.len * times,
           sets = src->set_shape.len * times, wide = src->arg_wide.len * times;
    (void)tr_vec_reserve(&dst->args, dst->args.len + MODEL_PAY_SLACK +
                                         (bytes < dst->args_raw_max ? bytes : dst->args_raw_max));
    (void)tr_vec_reserve(&dst->set_shape, dst->set_shape.len + (sets < most ? sets : most));
    (void)tr_vec_reserve(&dst->set_start,
                         dst->set_start.len + (sets < most ? sets : most) / MODEL_SET_ANCHOR + 1);
    (void)tr_vec_reserve(&dst->arg_wide, dst->arg_wide.len + (wide < most / 2 ? wide : most / 2));
}

/*
** Merges, in input order, every job read and not merged yet, unless another
** thread is at it (it takes these too: it looks again before it stops).
** Job 0 read into the destination itself.  A failed read or merge stops the
** merging there: the caller reports the first failure in input order.
*/
static void merge_ready(load_pool *p)
{
    pthread_mutex_lock(&p->lock);
    if (p->merging) {
        pthread_mutex_unlock(&p->lock);
        return;
    }
    p->merging = 1;
    while (!p->failed && p->next < p->n && p->jobs[p->next].done) {
        load_job *j = &p->jobs[p->next];
        pthread_mutex_unlock(&p->lock);
        uint64_t t0 = now_ns();
        if (j->rc >= 0 && p->next > 0) {
            expect_like(p->dst, j->t, p->n - p->next);
            j->rc = tr_trace_merge(p->dst, j->t, &j->err);
            tr_trace_free(j->t);
            j->t = NULL;
        }
        pthread_mutex_lock(&p->lock);
        p->merge_ns += now_ns() - t0;
        p->failed = j->rc < 0;
        p->next++;
    }
    p->merging = 0;
    pthread_mutex_unlock(&p->lock);
}

static int run_job(void *user, size_t i)
{
    load_pool *p = user;
    load_job *j = &p->jobs[i];
    tr_load_opts o = *p->o;
    const tr_diag *parent = p->o->read.diag;
    j->diag = (tr_diag){.fn = keep_warning, .user = j, .strict = parent && parent->strict};
    o.read.diag = &j->diag;
    o.streams_ignored = 0;
    j->t = i == 0 ? p->dst : tr_trace_new();
    j->rc = j->t ? tr_load(j->t, j->path, &o, &j->err) : tr_error_nomem(&j->err);
    if (i == 0) j->t = NULL;
    j->ignored = o.streams_ignored;
    int rc = j->rc; /* the read's: once done, the merging thread owns j->rc */
    pthread_mutex_lock(&p->lock);
    j->done = 1;
    pthread_mutex_unlock(&p->lock);
    merge_ready(p);
    return rc;
}

/* Hands a job's warnings to the caller's diag, as a read in sequence would have. */
static void replay_warnings(const load_job *j, tr_diag *d)
{
    if (!d) return;
    for (size_t k = 0; k < j->warns.len; k++) {
        d->warnings++;
        if (d->fn) d->fn(d->user, &TR_VEC_AT(&j->warns, tr_error, k));
    }
    d->warnings += j->dropped;
}

static int load_parallel(tr_trace *t, const char *const *paths, size_t n, tr_load_opts *o,
                         int threads, tr_error *e)
{
    load_job *jobs = tr_calloc(n, sizeof *jobs);
    if (!jobs) return tr_error_nomem(e);
    for (size_t i = 0; i < n; i++) {
        jobs[i].path = paths[i];
        tr_vec_init(&jobs[i].warns, sizeof(tr_error));
    }
    progress_lock pl = {.fn = o->progress, .user = o->progress_user};
    pthread_mutex_init(&pl.lock, NULL);
    tr_load_opts shared = *o;
    if (o->progress) {
        shared.progress = locked_progress;
        shared.progress_user = &pl;
    }
    load_pool pool = {.jobs = jobs, .n = n, .o = &shared, .dst = t};
    pthread_mutex_init(&pool.lock, NULL);
    uint64_t t0 = now_ns();
    size_t started = tr_pool_run(threads, n, run_job, &pool);
    uint64_t read = now_ns() - t0;
    o->read_ns += read > pool.merge_ns ? read - pool.merge_ns : 0;
    o->merge_ns += pool.merge_ns;
    pthread_mutex_destroy(&pool.lock);
    int rc = TR_OK;
    for (size_t i = 0; i < started && rc == TR_OK; i++) {
        load_job *j = &jobs[i];
        replay_warnings(j, o->read.diag);
        o->streams_ignored += j->ignored;
        if (j->rc < 0) {
            *e = j->err;
            rc = j->rc;
        }
    }
    for (size_t k = 0; k < n; k++) {
        tr_trace_free(jobs[k].t);
        tr_vec_fini(&jobs[k].warns);
    }
    pthread_mutex_destroy(&pl.lock);
    tr_free(jobs);
    return rc;
}

/*
** FIRST[i]: the first of PATHS that names the same file as PATHS[i] ("run"
** and "run/", a link and what it points to), i itself for most; TO_READ gets
** the paths to read, *M of them.  Nonzero when out of memory.
*/
static int first_names(const char *const *paths, size_t n, size_t *first, const char **to_read,
                       size_t *m)
{
    char **real = tr_calloc(n ? n : 1, sizeof *real);
    if (!real) return 1;
    *m = 0;
    for (size_t i = 0; i < n; i++) {
        real[i] = strcmp(paths[i], "-") != 0 ? realpath(paths[i], NULL) : NULL;
        first[i] = i;
        for (size_t j = 0; j < i && real[i] && first[i] == i; j++)
            if (real[j] && strcmp(real[i], real[j]) == 0) first[i] = j;
        if (first[i] == i) to_read[(*m)++] = paths[i];
    }
    for (size_t i = 0; i < n; i++) free(real[i]);
    tr_free(real);
    return 0;
}

int tr_load_many(tr_trace *t, const char *const *paths, size_t n, tr_load_opts *o, tr_error *e)
{
    if (o->from && !tr_reader_find(o->readers, o->from))
        return tr_errorf(e, TR_E_USAGE, NULL, "unknown input format '%s'", o->from);
    size_t *first = tr_malloc((n ? n : 1) * sizeof *first), m = 0;
    const char **to_read = tr_malloc((n ? n : 1) * sizeof *to_read);
    int rc =
        !first || !to_read || first_names(paths, n, first, to_read, &m) ? tr_error_nomem(e) : TR_OK;
    int threads = o->consume ? 1 : tr_pool_threads(o->threads, m);
    tr_trace_set_threads(t, o->threads);
    if (rc == TR_OK && threads <= 1) {
        uint64_t t0 = now_ns();
        for (size_t i = 0; i < m && rc == TR_OK; i++) rc = tr_load(t, to_read[i], o, e);
        o->read_ns += now_ns() - t0;
    } else if (rc == TR_OK) {
        rc = load_parallel(t, to_read, m, o, threads, e);
    }
    for (size_t i = 0; i < n && rc == TR_OK; i++)
        if (first[i] != i &&
            tr_skipped_add(t, paths[i], paths[first[i]], TR_SKIP_REPEATED) == TR_NONE)
            rc = tr_error_nomem(e);
    tr_free(first);
    tr_free(to_read);
    if (rc < 0) return rc;
    return tr_align(t, o->align, e);
}
