/*
** output.c: dump text and the model, from the same samples.
**
** The model cannot be built once and grown: writers need a frozen trace and
** a frozen trace takes no more events.  So the samples are kept compactly
** (frames and stacks interned in a store trace, one record per thread
** sample) and every save builds a fresh trace from them.
*/
#include "output_impl.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "tr_mem.h"
#include "tr_stack_slices.h"
#include "tr_text.h"
#include "tr_trace.h"
#include "tr_writers.h"

typedef struct rec {
    int64_t tid;
    uint32_t stack; /* in the store */
    tr_str name;    /* in the store; 0 = unknown */
    uint8_t state;  /* TS_IDLE .. */
} rec;

typedef struct dump {
    int64_t ts, pid;
    size_t first, n; /* recs */
} dump;

typedef struct counter {
    int64_t ts, pid;
    double cpu;
    uint64_t rss;
} counter;

typedef struct proc {
    int64_t pid;
    tr_str cmdline, version; /* in the store */
} proc;

struct ts_out {
    int text, model, markers;
    char *host;
    tr_buf b;     /* dump text */
    tr_trace *st; /* store: strings, frames, stacks */
    tr_vec recs, dumps, counters, procs;
    uint64_t n_dumps;
};

const char *ts_thread_status(const ts_thread *th)
{
    if (!th->active) return "idle";
    return th->gil ? "active+gil" : "active";
}

ts_out *ts_out_new(int text, int model, int markers, const char *host)
{
    ts_out *o = tr_calloc(1, sizeof *o);
    if (!o) return NULL;
    o->text = text;
    o->model = model;
    o->markers = markers;
    tr_buf_init(&o->b, 0);
    tr_vec_init(&o->recs, sizeof(rec));
    tr_vec_init(&o->dumps, sizeof(dump));
    tr_vec_init(&o->counters, sizeof(counter));
    tr_vec_init(&o->procs, sizeof(proc));
    size_t hn = host ? strlen(host) : 0;
    o->host = tr_malloc(hn + 1);
    o->st = model ? tr_trace_new() : NULL;
    if (!o->host || (model && !o->st)) {
        ts_out_free(o);
        return NULL;
    }
    memcpy(o->host, host ? host : "", hn + 1);
    return o;
}

void ts_out_free(ts_out *o)
{
    if (!o) return;
    tr_buf_fini(&o->b);
    tr_trace_free(o->st);
    tr_vec_fini(&o->recs);
    tr_vec_fini(&o->dumps);
    tr_vec_fini(&o->counters);
    tr_vec_fini(&o->procs);
    tr_free(o->host);
    tr_free(o);
}

uint64_t ts_out_dumps(const ts_out *o)
{
    return o->n_dumps;
}

/* Unix seconds with microseconds, the marker's ts. */
static int add_ts(tr_buf *b, int64_t ts_unix)
{
    int64_t us = ts_unix / 1000;
    return tr_buf_add_fixed(b, us, 6, 6);
}

/* py-spy's frame line: "    name (file:line)", "    name (file)" when the line is unknown. */
static int add_frame(tr_buf *b, const ts_frame *f)
{
    int rc = tr_buf_adds(b, "    ");
    rc |= tr_buf_adds(b, f->fn);
    rc |= tr_buf_adds(b, " (");
    rc |= tr_buf_adds(b, f->file);
    if (f->line > 0) rc |= tr_buf_addf(b, ":%d", (int)f->line);
    rc |= tr_buf_adds(b, ")\n");
    return rc;
}

static int text_dump(ts_out *o, const ts_proc_info *pi, int64_t ts_unix, const ts_thread *threads,
                     size_t n, const ts_frame *frames, const char *const *errors, size_t n_err)
{
    tr_buf *b = &o->b;
    int rc = 0;
    if (o->markers) {
        rc |= tr_buf_adds(b, "#tracecat-dump ts=");
        rc |= add_ts(b, ts_unix);
        rc |= tr_buf_addf(b, " pid=%lld", (long long)pi->pid);
        if (o->host[0]) rc |= tr_buf_addf(b, " host=%s", o->host);
        rc |= tr_buf_addc(b, '\n');
    }
    rc |= tr_buf_addf(b, "Process %lld: %s\n", (long long)pi->pid, pi->cmdline);
    if (pi->version) rc |= tr_buf_addf(b, "Python v%s (%s)\n", pi->version, pi->exe);
    if (pi->ppid > 0)
        rc |= tr_buf_addf(b, "Parent Process %lld: %s\n", (long long)pi->ppid,
                          pi->parent_cmdline ? pi->parent_cmdline : "");
    rc |= tr_buf_addc(b, '\n');
    for (size_t i = 0; i < n; i++) {
        const ts_thread *th = &threads[i];
        rc |= tr_buf_addf(b, "Thread %lld (%s)", (long long)th->tid, ts_thread_status(th));
        if (th->name) rc |= tr_buf_addf(b, ": \"%s\"", th->name);
        rc |= tr_buf_addc(b, '\n');
        for (size_t k = 0; k < th->n; k++) rc |= add_frame(b, &frames[th->first + k]);
    }
    for (size_t i = 0; i < n_err; i++) rc |= tr_buf_addf(b, "Error: %s\n", errors[i]);
    return rc;
}

/* The store's id of a frame. */
static uint32_t store_frame(ts_out *o, const ts_frame *f)
{
    tr_frame fr;
    memset(&fr, 0, sizeof fr);
    fr.function = tr_str_internz(o->st, f->fn);
    fr.file = tr_str_internz(o->st, f->file);
    fr.line = f->line;
    fr.is_native = f->native;
    if (f->native && f->line == 0) fr.module = fr.file;
    return tr_frame_intern(o->st, &fr);
}

static int model_dump(ts_out *o, const ts_proc_info *pi, int64_t ts_unix, const ts_thread *threads,
                      size_t n, const ts_frame *frames)
{
    proc *p = NULL;
    for (size_t i = 0; i < o->procs.len && !p; i++)
        if (TR_VEC_AT(&o->procs, proc, i).pid == pi->pid) p = &TR_VEC_AT(&o->procs, proc, i);
    if (!p) {
        if (!(p = tr_vec_push(&o->procs))) return -1;
        p->pid = pi->pid;
    }
    p->cmdline = tr_str_internz(o->st, pi->cmdline);
    p->version = pi->version ? tr_str_internz(o->st, pi->version) : 0;
    dump *d = tr_vec_push(&o->dumps);
    if (!d) return -1;
    d->ts = ts_unix;
    d->pid = pi->pid;
    d->first = o->recs.len;
    d->n = n;
    for (size_t i = 0; i < n; i++) {
        const ts_thread *th = &threads[i];
        uint32_t stack = 0;
        /* The store's stacks grow from the root: push the outermost frame first. */
        for (size_t k = th->n; k > 0; k--) {
            uint32_t f = store_frame(o, &frames[th->first + k - 1]);
            if (f == TR_NONE) return -1;
            stack = tr_stack_push(o->st, stack, f);
            if (stack == TR_NONE) return -1;
        }
        rec *r = tr_vec_push(&o->recs);
        if (!r) return -1;
        r->tid = th->tid;
        r->stack = stack;
        r->name = th->name ? tr_str_internz(o->st, th->name) : 0;
        r->state = !th->active ? TS_IDLE : th->gil ? TS_ACTIVE_GIL : TS_ACTIVE;
    }
    return tr_trace_status(o->st, NULL) == TR_OK ? 0 : -1;
}

int ts_out_dump(ts_out *o, const ts_proc_info *pi, int64_t ts_unix, const ts_thread *threads,
                size_t n_threads, const ts_frame *frames, const char *const *errors,
                size_t n_errors, tr_error *e)
{
    o->n_dumps++;
    if (o->text && text_dump(o, pi, ts_unix, threads, n_threads, frames, errors, n_errors) != 0)
        return tr_error_nomem(e);
    if (o->model && model_dump(o, pi, ts_unix, threads, n_threads, frames) != 0)
        return tr_error_nomem(e);
    return TR_OK;
}

int ts_out_counters(ts_out *o, int64_t pid, int64_t ts_unix, double cpu_percent, uint64_t rss_bytes,
                    tr_error *e)
{
    if (o->text) {
        tr_buf *b = &o->b;
        int rc = tr_buf_adds(b, "#tracecat-counter ts=");
        rc |= add_ts(b, ts_unix);
        rc |= tr_buf_addf(b, " pid=%lld cpu_percent=%.1f rss_bytes=%llu\n", (long long)pid,
                          cpu_percent, (unsigned long long)rss_bytes);
        if (rc) return tr_error_nomem(e);
    }
    if (o->model) {
        counter *c = tr_vec_push(&o->counters);
        if (!c) return tr_error_nomem(e);
        *c = (counter){.ts = ts_unix, .pid = pid, .cpu = cpu_percent, .rss = rss_bytes};
    }
    return TR_OK;
}

int ts_out_stream(ts_out *o, int fd, tr_error *e)
{
    size_t done = 0;
    while (done < o->b.len) {
        ssize_t n = write(fd, o->b.p + done, o->b.len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return tr_error_errno(e, errno, NULL, "cannot write the dumps");
        done += (size_t)n;
    }
    tr_buf_reset(&o->b);
    return TR_OK;
}

/* ---- the model ---- */

typedef struct builder {
    ts_out *o;
    tr_trace *t;
    uint32_t *stacks; /* store stack -> trace stack, TR_NONE = not yet */
    size_t n_stacks;
} builder;

/* Stack S of the store, rebuilt in the trace (iteratively: stacks can be deep). */
static uint32_t copy_stack(builder *bd, uint32_t s)
{
    if (s == 0) return 0;
    tr_vec path;
    tr_vec_init(&path, sizeof(uint32_t));
    uint32_t at = s, result = TR_NONE;
    while (at != 0 && bd->stacks[at] == TR_NONE) {
        uint32_t *slot = tr_vec_push(&path);
        if (!slot) goto out;
        *slot = at;
        at = tr_stack_parent(bd->o->st, at);
    }
    uint32_t top = at == 0 ? 0 : bd->stacks[at];
    for (size_t i = path.len; i > 0; i--) {
        uint32_t node = TR_VEC_AT(&path, uint32_t, i - 1);
        const tr_frame *sf = tr_frame_get(bd->o->st, tr_stack_frame(bd->o->st, node));
        tr_frame f;
        memset(&f, 0, sizeof f);
        size_t len;
        const char *txt = tr_str_get(bd->o->st, sf->function, &len);
        f.function = tr_str_intern(bd->t, txt, len);
        txt = tr_str_get(bd->o->st, sf->file, &len);
        f.file = tr_str_intern(bd->t, txt, len);
        f.module = sf->module ? f.file : 0;
        f.line = sf->line;
        f.is_native = sf->is_native;
        uint32_t fid = tr_frame_intern(bd->t, &f);
        if (fid == TR_NONE) goto out;
        top = tr_stack_push(bd->t, top, fid);
        if (top == TR_NONE) goto out;
        bd->stacks[node] = top;
    }
    result = top;
out:
    tr_vec_fini(&path);
    return result;
}

static tr_str copy_str(builder *bd, tr_str s)
{
    size_t len;
    const char *txt = tr_str_get(bd->o->st, s, &len);
    return tr_str_intern(bd->t, txt, len);
}

/* The earliest sample or counter time: the input's origin (0 when there is none). */
static int64_t origin_of(const ts_out *o)
{
    int64_t origin = INT64_MAX;
    for (size_t i = 0; i < o->dumps.len; i++)
        if (TR_VEC_AT(&o->dumps, dump, i).ts < origin) origin = TR_VEC_AT(&o->dumps, dump, i).ts;
    for (size_t i = 0; i < o->counters.len; i++)
        if (TR_VEC_AT(&o->counters, counter, i).ts < origin)
            origin = TR_VEC_AT(&o->counters, counter, i).ts;
    return origin == INT64_MAX ? 0 : origin;
}

static void add_input_info(tr_trace *t, uint32_t input, int64_t origin)
{
    tr_input_info *info = input == TR_NONE ? NULL : tr_input_at(t, input);
    if (!info) return;
    tr_buf b;
    tr_buf_init(&b, 0);
    add_ts(&b, origin);
    info->origin_unix_ns = origin;
    info->origin_wall = tr_str_intern(t, b.p, b.len);
    info->clock = tr_str_internz(t, "wall clock (CLOCK_REALTIME) at each sample");
    tr_buf_fini(&b);
}

/* Each sampled process: its command line, host and Python version. */
static void add_processes(builder *bd, uint32_t input)
{
    ts_out *o = bd->o;
    tr_trace *t = bd->t;
    tr_str host = o->host[0] ? tr_str_internz(t, o->host) : 0;
    for (size_t i = 0; i < o->procs.len; i++) {
        const proc *p = &TR_VEC_AT(&o->procs, proc, i);
        uint32_t id = tr_process_intern(t, input, p->pid);
        tr_process *tp = id == TR_NONE ? NULL : tr_process_at(t, id);
        if (!tp) continue;
        tp->name = copy_str(bd, p->cmdline);
        tp->host = host;
        if (p->version) {
            tr_buf b;
            tr_buf_init(&b, 0);
            tr_buf_addf(&b, "Python %s", tr_str_get(o->st, p->version, NULL));
            tp->labels = tr_str_intern(t, b.p, b.len);
            tr_buf_fini(&b);
        }
    }
}

/* The track of thread R of process PROC_ID, named from the record (or "Thread N"). */
static uint32_t thread_track(builder *bd, uint32_t proc_id, const rec *r)
{
    tr_trace *t = bd->t;
    uint32_t track = tr_track_intern(t, proc_id, TR_TRACK_THREAD, r->tid, 0);
    tr_track *tk = track == TR_NONE ? NULL : tr_track_at(t, track);
    if (!tk) return TR_NONE;
    if (r->name) {
        tk->name = copy_str(bd, r->name);
    } else if (!tk->name) {
        tr_buf b;
        tr_buf_init(&b, 0);
        tr_buf_addf(&b, "Thread %lld", (long long)r->tid);
        tk->name = tr_str_intern(t, b.p, b.len);
        tr_buf_fini(&b);
    }
    return track;
}

/* Every dump's threads as samples (and, with SL, the slices their stacks make). */
static int add_samples(builder *bd, uint32_t input, int64_t origin, tr_stack_slicer *sl,
                       tr_error *e)
{
    ts_out *o = bd->o;
    tr_trace *t = bd->t;
    tr_str key_state = tr_str_internz(t, "state");
    uint32_t state_args[3];
    static const char *const states[3] = {"idle", "active", "active+gil"};
    for (int i = 0; i < 3; i++) {
        tr_args_begin(t);
        tr_args_str(t, key_state, tr_str_internz(t, states[i]));
        state_args[i] = tr_args_end(t);
    }
    int rc = TR_OK;
    for (size_t i = 0; i < o->dumps.len && rc == TR_OK; i++) {
        const dump *d = &TR_VEC_AT(&o->dumps, dump, i);
        uint32_t proc_id = tr_process_intern(t, input, d->pid);
        int64_t ts = d->ts - origin;
        for (size_t k = 0; k < d->n && proc_id != TR_NONE; k++) {
            const rec *r = &TR_VEC_AT(&o->recs, rec, d->first + k);
            uint32_t track = thread_track(bd, proc_id, r);
            uint32_t stack = track == TR_NONE ? TR_NONE : copy_stack(bd, r->stack);
            if (stack == TR_NONE) break;
            tr_sample_add(t, track, ts, stack, state_args[r->state]);
            if (sl && tr_stack_slicer_sample(sl, track, ts, stack) != TR_OK) rc = tr_error_nomem(e);
        }
        if (sl && proc_id != TR_NONE && rc == TR_OK &&
            tr_stack_slicer_sweep(sl, proc_id, ts) != TR_OK)
            rc = tr_error_nomem(e);
    }
    if (sl && rc == TR_OK && tr_stack_slicer_finish(sl) != TR_OK) rc = tr_error_nomem(e);
    return rc;
}

static void add_counters(builder *bd, uint32_t input, int64_t origin)
{
    ts_out *o = bd->o;
    tr_trace *t = bd->t;
    tr_str names[2] = {tr_str_internz(t, "cpu_percent"), tr_str_internz(t, "rss_bytes")};
    for (size_t i = 0; i < o->counters.len; i++) {
        const counter *c = &TR_VEC_AT(&o->counters, counter, i);
        uint32_t proc_id = tr_process_intern(t, input, c->pid);
        if (proc_id == TR_NONE) break;
        tr_counter_add(t, tr_track_intern(t, proc_id, TR_TRACK_COUNTER, -1, names[0]),
                       c->ts - origin, c->cpu);
        tr_counter_add(t, tr_track_intern(t, proc_id, TR_TRACK_COUNTER, -1, names[1]),
                       c->ts - origin, (double)c->rss);
    }
}

static int build(ts_out *o, tr_trace *t, const char *path, int slices, tr_error *e)
{
    builder bd = {.o = o, .t = t};
    bd.n_stacks = tr_stack_count(o->st);
    bd.stacks = tr_malloc((bd.n_stacks + 1) * sizeof *bd.stacks);
    if (!bd.stacks) return tr_error_nomem(e);
    for (size_t i = 0; i <= bd.n_stacks; i++) bd.stacks[i] = TR_NONE;
    uint32_t input = tr_input_add(t, path, "tracesniff");
    int64_t origin = origin_of(o);
    add_input_info(t, input, origin);
    add_processes(&bd, input);
    tr_stack_slicer *sl = slices ? tr_stack_slicer_new(t) : NULL;
    int rc = slices && !sl ? tr_error_nomem(e) : add_samples(&bd, input, origin, sl, e);
    tr_stack_slicer_free(sl);
    if (rc == TR_OK) add_counters(&bd, input, origin);
    tr_free(bd.stacks);
    if (rc == TR_OK) rc = tr_trace_status(t, e);
    if (rc == TR_OK) rc = tr_trace_freeze(t, e);
    return rc;
}

int ts_out_save(ts_out *o, const char *path, const tr_writer *w, tr_error *e)
{
    if (w) {
        tr_trace *t = tr_trace_new();
        if (!t) return tr_error_nomem(e);
        int rc = build(o, t, path, !w->samples_only, e);
        if (rc == TR_OK) rc = tr_write_trace(w, t, path, NULL, e);
        tr_trace_free(t);
        return rc;
    }
    tr_output *out;
    int rc = tr_output_open(&out, path, e);
    if (rc != TR_OK) return rc;
    rc = tr_output_write(out, o->b.p, o->b.len, e);
    if (rc != TR_OK) {
        tr_output_abort(out);
        return rc;
    }
    return tr_output_commit(out, e);
}
