/*
** convert.c: tracecat convert and cat, the commands that write: the
** inputs are read, filtered by --name, --track, --since and --until, and
** handed to a writer.
*/
#include "tr_pool.h"
#include "tracecat_impl.h"

#include <fnmatch.h>
#include <stdio.h>
#include <string.h>

/* ---- filters ---- */

/* A sample is named by its innermost frame's function. */
static tr_str leaf_function(const tr_trace *t, uint32_t stack)
{
    const tr_frame *f = tr_frame_get(t, tr_stack_frame(t, stack));
    return f ? f->function : 0;
}

static tr_str event_name(const tr_trace *t, const tr_event *ev)
{
    switch (ev->kind) {
    case TR_EV_SLICE: {
        tr_slices s;
        tr_trace_slices(t, &s);
        return s.name[ev->row];
    }
    case TR_EV_INSTANT: {
        tr_instants s;
        tr_trace_instants(t, &s);
        return tr_instant_name(&s, ev->row);
    }
    case TR_EV_SAMPLE: {
        tr_samples s;
        tr_trace_samples(t, &s);
        return leaf_function(t, s.stack[ev->row]);
    }
    default:
        return 0;
    }
}

static uint32_t event_track(const tr_trace *t, const tr_event *ev)
{
    switch (ev->kind) {
    case TR_EV_SLICE: {
        tr_slices s;
        tr_trace_slices(t, &s);
        return s.track[ev->row];
    }
    case TR_EV_INSTANT: {
        tr_instants s;
        tr_trace_instants(t, &s);
        return tr_instant_track(&s, ev->row);
    }
    case TR_EV_COUNTER: {
        tr_counters s;
        tr_trace_counters(t, &s);
        return s.track[ev->row];
    }
    default: {
        tr_samples s;
        tr_trace_samples(t, &s);
        return s.track[ev->row];
    }
    }
}

static int keep_event(void *user, const tr_trace *t, const tr_event *ev)
{
    const args *a = user;
    if (a->no_samples && ev->kind == TR_EV_SAMPLE) return 0;
    if (a->has_since && ev->ts < a->since) return 0;
    if (a->has_until && ev->ts > a->until) return 0;
    if (a->name_glob) {
        const char *name = tr_str_get(t, event_name(t, ev), NULL);
        if (fnmatch(a->name_glob, name, 0) != 0) return 0;
    }
    if (a->track_glob) {
        const tr_track *tk = tr_track_get(t, event_track(t, ev));
        const char *name = tk ? tr_str_get(t, tk->name, NULL) : "";
        if (fnmatch(a->track_glob, name, 0) != 0) return 0;
    }
    return 1;
}

static int has_filter(const args *a)
{
    return a->name_glob || a->track_glob || a->has_since || a->has_until || a->no_samples;
}

/* ---- loading ---- */

static int load_inputs(tr_cli *c, const args *a, tr_trace *t, char *const *inputs, int n)
{
    return tr_cli_load(c, t, inputs, (size_t)n, a->no_stack_slices);
}

static int load_all(tr_cli *c, const args *a, tr_trace *t)
{
    return load_inputs(c, a, t, a->inputs, a->n_inputs);
}

/* The options writers read, from the command line. */
static tr_write_opts write_opts(const args *a, tr_filter *filter)
{
    *filter = (tr_filter){keep_event, (void *)a};
    return (tr_write_opts){.filter = has_filter(a) ? filter : NULL,
                           .header = a->header,
                           .folded_prefix = a->folded_prefix,
                           .partition_rank = a->partition_rank,
                           .row_group_rows = a->row_group_rows,
                           .free_bytes = a->free_bytes};
}

static int write_trace(tr_cli *c, const args *a, const tr_trace *t, const tr_writer *w,
                       const char *path)
{
    tr_error e = {0};
    tr_filter filter;
    tr_write_opts wo = write_opts(a, &filter);
    if (tr_write_trace(w, t, path, &wo, &e) < 0) {
        tr_cli_error(c, &e);
        return e.code == TR_E_USAGE ? TR_EXIT_USAGE : TR_EXIT_DATA;
    }
    return TR_EXIT_OK;
}

/* ---- streaming ---- */

/*
** Events go through a stream (tr_stream.h) instead of the whole model when
** the writer formats them one by one and nothing needs the model: no filter
** (it names rows of the model), and the inputs stream (tr_cli_can_stream).
** A writer that writes each input apart streams several only when it can
** end one input's part and begin the next (tr_writer.part_end).
*/
static int can_stream(const tr_cli *c, const args *a, const tr_writer *w)
{
    if (!w->event || has_filter(a) || a->n_inputs < 1) return 0;
    if (a->n_inputs > 1 && (w->flags & TR_WRITE_PER_INPUT) && !w->part_end) return 0;
    /* a per-input writer's model holds one input at a time */
    return tr_cli_can_stream(c, a->inputs, (size_t)a->n_inputs,
                             (w->flags & TR_WRITE_PER_INPUT) != 0);
}

/* One streaming conversion: what its load callback needs, and how it went. */
typedef struct stream_job {
    tr_cli *c;
    const args *a;
    const tr_writer *w;
    tr_stream *s;
    tr_error load_err; /* the reading's failure, not reported yet */
    int exit;          /* the load's exit status */
} stream_job;

static int stream_load(void *user, tr_trace *t, size_t first, size_t n, tr_error *e)
{
    stream_job *job = user;
    job->exit = tr_cli_load_quiet(job->c, t, job->a->inputs + first, n, job->w->samples_only,
                                  tr_stream_consume, job->s, &job->load_err);
    if (job->exit == TR_EXIT_OK) return TR_OK;
    *e = job->load_err;
    return TR_FAIL;
}

/*
** Reads the input through a stream into the writer.  ^RETRY is set when the
** input broke its reader's time-order promise after records went out to a
** file: that file is removed, and the caller converts again, sorted.
*/
static int stream_write(tr_cli *c, const args *a, const tr_writer *w, const char *path,
                        int sort_all, int *retry)
{
    char dir[4096];
    /* the readers' share of the budget is for what they sort themselves (Chrome's flows) */
    tr_stream_opts so = {.memory = (size_t)(tr_cli_memory(c) - tr_cli_sort_memory(c)),
                         .tmpdir = tr_cli_tmpdir(c, path, dir, sizeof dir),
                         .free_bytes = a->free_bytes,
                         .sort_all = sort_all,
                         .samples_last = (w->flags & TR_WRITE_EVENTS_AFTER) != 0,
                         .any_order = (w->flags & TR_WRITE_ANY_ORDER) && !sort_all,
                         .thread_time = tr_cli_thread_time(c, a->inputs, (size_t)a->n_inputs),
                         .behind = tr_pool_threads(tr_cli_threads(c), 2) > 1};
    stream_job job = {.c = c, .a = a, .w = w, .exit = TR_EXIT_OK};
    c->read.spill_dir = so.tmpdir;
    tr_error e = {0};
    tr_trace *t = tr_trace_new();
    if (!t || tr_stream_open(&job.s, &so, &e) != TR_OK) {
        tr_stream_close(job.s);
        tr_trace_free(t);
        tr_cli_errorf(c, "out of memory");
        return TR_EXIT_DATA;
    }
    tr_filter filter;
    tr_write_opts wo = write_opts(a, &filter);
    int rc = tr_write_stream(w, t, job.s, path, &wo, (size_t)a->n_inputs, stream_load, &job, &e);
    if (c->verbosity >= 3)
        fprintf(stderr, "%s: %llu events written while reading, %llu sorted runs spilled\n",
                c->prog, (unsigned long long)tr_stream_sent(job.s),
                (unsigned long long)tr_stream_runs(job.s));
    *retry = rc != TR_OK && tr_stream_late(job.s) && strcmp(path, "-") != 0;
    tr_stream_close(job.s);
    tr_trace_free(t);
    if (rc == TR_OK || *retry) return TR_EXIT_OK;
    /* A load that failed after reading (freeze) has reported itself. */
    if (job.exit == TR_EXIT_OK || job.load_err.code != TR_E_NONE) tr_cli_error(c, &e);
    if (job.exit != TR_EXIT_OK) return job.exit;
    return e.code == TR_E_USAGE ? TR_EXIT_USAGE : TR_EXIT_DATA;
}

/*
** Streams, and sorts everything when the input's time order was not what
** its reader promised.  Inputs placed on one timeline (several, or --align)
** are shifted only once all are read: nothing goes out before.
*/
static int stream_convert(tr_cli *c, const args *a, const tr_writer *w, const char *path)
{
    int retry, placed = a->n_inputs > 1 || c->read.align.n_offsets;
    int exit = stream_write(c, a, w, path, placed, &retry);
    if (retry) {
        if (c->verbosity >= 2)
            fprintf(stderr, "%s: the input is not in time order: reading it again, sorted\n",
                    c->prog);
        exit = stream_write(c, a, w, path, 1, &retry);
    }
    return exit;
}

/* ---- commands ---- */

/* What the writer driver loads through: the inputs, read as the writer needs them. */
typedef struct convert_job {
    tr_cli *c;
    args conv;
    int exit; /* a load's exit status, reported already */
} convert_job;

static int convert_load(void *user, tr_trace *t, size_t first, size_t n, tr_error *e)
{
    (void)e;
    convert_job *job = user;
    job->exit = load_inputs(job->c, &job->conv, t, job->conv.inputs + first, (int)n);
    return job->exit == TR_EXIT_OK ? TR_OK : TR_FAIL;
}

int cmd_convert(tr_cli *c, const args *a)
{
    if (!a->output) return tr_cli_usage_error(c, "convert needs -o OUTPUT");
    const tr_writer *w = a->to ? tr_writer_find(a->to) : tr_writer_for_path(a->output);
    if (!w && a->to) return tr_cli_usage_error(c, "unknown output format '%s'", a->to);
    /* a pipe gets Chrome JSON, as a pipe user expects */
    if (!w && strcmp(a->output, "-") == 0) w = tr_writer_find("chrome");
    if (!w)
        return tr_cli_usage_error(c, "cannot tell the format of '%s' from its extension (use --to)",
                                  a->output);
    if (a->partition_rank && !(w->flags & TR_WRITE_DATASET))
        return tr_cli_usage_error(c, "--partition is for --to parquet");
    if (a->row_group_rows && !(w->flags & TR_WRITE_DATASET))
        return tr_cli_usage_error(c, "--row-group-rows is for --to parquet");
    if (can_stream(c, a, w)) return stream_convert(c, a, w, a->output);
    /* Slices derived from stack samples are not built for a writer that ignores them. */
    convert_job job = {.c = c, .conv = *a};
    job.conv.no_stack_slices = w->samples_only;
    tr_error e = {0};
    tr_filter filter;
    tr_write_opts wo = write_opts(a, &filter);
    wo.threads = tr_cli_threads(c);
    if (tr_write_inputs(w, a->output, &wo, (size_t)a->n_inputs, convert_load, &job, &e) == TR_OK)
        return TR_EXIT_OK;
    if (job.exit != TR_EXIT_OK) return job.exit;
    tr_cli_error(c, &e);
    return e.code == TR_E_USAGE ? TR_EXIT_USAGE : TR_EXIT_DATA;
}

int cmd_cat(tr_cli *c, const args *a)
{
    const tr_writer *lines = tr_writer_find("lines");
    if (can_stream(c, a, lines)) return stream_convert(c, a, lines, a->output ? a->output : "-");
    tr_trace *t = tr_trace_new();
    if (!t) {
        tr_cli_errorf(c, "out of memory");
        return TR_EXIT_DATA;
    }
    int rc = load_all(c, a, t);
    if (rc == TR_EXIT_OK) rc = write_trace(c, a, t, lines, a->output ? a->output : "-");
    tr_trace_free(t);
    return rc;
}
