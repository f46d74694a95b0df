/*
** all.c: the one table of writers, choosing one by a path's extension, and
** the one driver that opens a writer's target and calls begin, add and end.
*/
#include "tr_writers.h"

#include "tr_pool.h"

#include <pthread.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

extern const tr_writer tr_writer_chrome;
extern const tr_writer tr_writer_lines;
extern const tr_writer tr_writer_sqlite;
extern const tr_writer tr_writer_folded;
extern const tr_writer tr_writer_recorder;
extern const tr_writer tr_writer_parquet;
extern const tr_writer tr_writer_speedscope;
extern const tr_writer tr_writer_kineto;

const tr_writer *const tr_writers[] = {
    &tr_writer_chrome,     &tr_writer_lines,    &tr_writer_sqlite,
    &tr_writer_folded,     &tr_writer_recorder, &tr_writer_parquet,
    &tr_writer_speedscope, &tr_writer_kineto,   NULL,
};

const tr_writer *tr_writer_find(const char *name)
{
    for (size_t i = 0; tr_writers[i]; i++)
        if (strcmp(tr_writers[i]->name, name) == 0) return tr_writers[i];
    return NULL;
}

/* Does the comma-separated list EXTS hold the N bytes at EXT? */
static int ext_listed(const char *exts, const char *ext, size_t n)
{
    while (*exts) {
        const char *comma = strchr(exts, ',');
        size_t len = comma ? (size_t)(comma - exts) : strlen(exts);
        if (len == n && strncasecmp(exts, ext, n) == 0) return 1;
        if (!comma) break;
        exts = comma + 1;
    }
    return 0;
}

const tr_writer *tr_writer_for_path(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    /* Look through a compression suffix: run.json.gz is JSON. */
    static const char *const squeeze[] = {".gz", ".zst"};
    for (size_t i = 0; i < sizeof squeeze / sizeof *squeeze; i++) {
        size_t sl = strlen(squeeze[i]);
        if (len > sl && strcasecmp(base + len - sl, squeeze[i]) == 0) {
            len -= sl;
            break;
        }
    }
    const char *dot = NULL;
    for (size_t i = 0; i < len; i++)
        if (base[i] == '.') dot = base + i;
    if (!dot) return NULL;
    size_t n = (size_t)(base + len - dot - 1);
    for (size_t i = 0; tr_writers[i]; i++)
        if (ext_listed(tr_writers[i]->extensions, dot + 1, n)) return tr_writers[i];
    return NULL;
}

/* ---- the driver ---- */

/* Whether W writes PATH as a directory. */
static int wants_dir(const tr_writer *w, const char *path)
{
    if (w->flags & TR_WRITE_DIR) return 1;
    if (!(w->flags & TR_WRITE_DIR_OR_FILE)) return 0;
    size_t n = strlen(path);
    struct stat st;
    return (n && path[n - 1] == '/') || (stat(path, &st) == 0 && S_ISDIR(st.st_mode));
}

static int target_open(const tr_writer *w, const char *path, tr_output **out, tr_error *e)
{
    int dir = wants_dir(w, path);
    if (dir && strcmp(path, "-") == 0)
        return tr_errorf(e, TR_E_USAGE, NULL,
                         "%s output is a directory (-o DIR/), not standard output", w->name);
    int rc = dir ? tr_output_open_dir(out, path,
                                      w->flags & TR_WRITE_DATASET ? TR_DIR_ADD : TR_DIR_REPLACE, e)
                 : tr_output_open(out, path, e);
    if (rc == TR_OK && w->binary && tr_output_is_tty(*out)) {
        tr_output_abort(*out);
        *out = NULL;
        rc = tr_errorf(e, TR_E_USAGE, NULL, "refusing to write %s output to a terminal", w->name);
    }
    return rc;
}

/* Where the parts come from: a trace given whole, N inputs loaded by LOAD, or a stream. */
typedef struct parts {
    const tr_trace *given;
    size_t n;
    tr_write_load_fn load;
    tr_stream *stream; /* LOAD fills STREAM_TRACE through it */
    tr_trace *stream_trace;
    void *user;
} parts;

/*
** Per-input parts on two threads: job I loads part I, then adds it.  Loads
** run one at a time in job order, so the load callback's view is that of a
** sequential run; the load of part I + 1 overlaps the add of part I.  Adds
** run one at a time in job order too, unless the writer takes two parts at
** once (TR_WRITE_PARTS_AT_ONCE): then part I's add runs beside part I + 1's,
** and a part is settled in job order after its add: kept when every part
** before it was written, else dropped (a sequential run would not have
** written it).  A job waits only for lower-numbered jobs, which were started
** before it, so a pool that starts fewer threads still finishes.  At most
** one part per thread is in memory.
*/
typedef struct pipeline {
    const tr_writer *w;
    tr_write *run;
    const parts *p;
    int at_once; /* adds overlap, settled in order */
    pthread_mutex_t lock;
    pthread_cond_t turn;
    size_t loaded, added; /* the next part to load, to add (or settle) */
    int failed;           /* a part failed: later jobs stop */
    size_t failed_part;
    tr_error err; /* the failed part's error */
} pipeline;

/*
** Waits until *AT == I; 0 when a part before I failed (a sequential run would
** not have gone on to part I; a later part's failure does not stop part I).
*/
static int pipe_wait(pipeline *pl, const size_t *at, size_t i)
{
    pthread_mutex_lock(&pl->lock);
    while (*at != i && !(pl->failed && pl->failed_part < i))
        pthread_cond_wait(&pl->turn, &pl->lock);
    int ok = !(pl->failed && pl->failed_part < i);
    pthread_mutex_unlock(&pl->lock);
    return ok;
}

/* Records part I's failure RC with E (under the lock). */
static void pipe_failed(pipeline *pl, size_t i, int rc, const tr_error *e)
{
    /* The lowest failed part's error is the one a sequential run would have met. */
    if (rc != TR_OK && (!pl->failed || i < pl->failed_part)) {
        pl->failed = rc;
        pl->failed_part = i;
        pl->err = *e;
    }
}

/*
** RC of a part of T written since its reads failed MARK times: a read of
** T's args that ran out of memory meanwhile left them out, and the part
** fails as a failed add does (a dataset's files for it are removed, and
** KEEP, RUN's keep before it, restored).
*/
static int part_checked(const tr_writer *w, tr_write *run, const tr_trace *t, unsigned mark,
                        int keep, int rc, tr_error *e)
{
    if (rc != TR_OK || (rc = tr_trace_reads_ok(t, mark, e)) == TR_OK) return rc;
    if (w->drop) w->drop(run, t);
    run->keep = keep;
    return rc;
}

static int add_checked(const tr_writer *w, tr_write *run, const tr_trace *t, tr_error *e)
{
    unsigned mark = tr_trace_read_failures(t);
    int keep = run->keep;
    return part_checked(w, run, t, mark, keep, w->add(run, t, e), e);
}

/* Ends part I's step: moves *AT on, or records the failure RC with E. */
static void pipe_done(pipeline *pl, size_t *at, size_t i, int rc, const tr_error *e)
{
    pthread_mutex_lock(&pl->lock);
    pipe_failed(pl, i, rc, e);
    *at = i + 1;
    pthread_cond_broadcast(&pl->turn);
    pthread_mutex_unlock(&pl->lock);
}

/*
** Part I's add beside another's, through a copy of the run (keep is each
** add's own), then its turn to be settled: a part before it that failed
** drops it.
*/
static int add_at_once(pipeline *pl, size_t i, const tr_trace *t, tr_error *e)
{
    tr_write mine = *pl->run;
    mine.keep = 0;
    int rc = add_checked(pl->w, &mine, t, e);
    if (rc != TR_OK) {
        /* said at once: later inputs are not loaded past it */
        pthread_mutex_lock(&pl->lock);
        pipe_failed(pl, i, rc, e);
        pthread_cond_broadcast(&pl->turn);
        pthread_mutex_unlock(&pl->lock);
    }
    if (!pipe_wait(pl, &pl->added, i)) {
        if (rc == TR_OK) pl->w->drop(&mine, t);
        return TR_FAIL;
    }
    pl->run->keep |= mine.keep; /* only part I's job runs between the waits of I and I + 1 */
    pipe_done(pl, &pl->added, i, rc, e);
    return rc;
}

static int pipe_job(void *user, size_t i)
{
    pipeline *pl = user;
    tr_error e = {0};
    if (!pipe_wait(pl, &pl->loaded, i)) return TR_FAIL;
    tr_trace *t = tr_trace_new();
    int rc = t ? pl->p->load(pl->p->user, t, i, 1, &e) : tr_error_nomem(&e);
    pipe_done(pl, &pl->loaded, i, rc, &e);
    if (rc == TR_OK && pl->at_once) {
        rc = add_at_once(pl, i, t, &e);
    } else if (rc == TR_OK && pipe_wait(pl, &pl->added, i)) {
        rc = add_checked(pl->w, pl->run, t, &e);
        pipe_done(pl, &pl->added, i, rc, &e);
    }
    tr_trace_free(t);
    return rc == TR_OK ? TR_OK : TR_FAIL;
}

static int add_pipelined(const tr_writer *w, tr_write *run, const parts *p, tr_error *e)
{
    pipeline pl = {
        .w = w, .run = run, .p = p, .at_once = (w->flags & TR_WRITE_PARTS_AT_ONCE) && w->drop};
    pthread_mutex_init(&pl.lock, NULL);
    pthread_cond_init(&pl.turn, NULL);
    tr_pool_run(2, p->n, pipe_job, &pl);
    pthread_cond_destroy(&pl.turn);
    pthread_mutex_destroy(&pl.lock);
    if (pl.failed) *e = pl.err;
    return pl.failed ? pl.failed : TR_OK;
}

/* The writer a stream hands its records to while loading. */
typedef struct emit_to {
    const tr_writer *w;
    tr_write *run;
} emit_to;

static int emit_event(void *user, const tr_trace *t, const tr_event_rec *ev, tr_error *e)
{
    const emit_to *to = user;
    return to->w->event(to->run, t, ev, e);
}

/*
** Loads through the stream, which writes what it can place at once (unless
** the writer wants its events after the inputs are read), hands the writer
** the flows, then writes the rest.
*/
static int add_stream(const tr_writer *w, tr_write *run, const parts *p, tr_trace *t, size_t first,
                      size_t n, tr_error *e)
{
    emit_to to = {w, run};
    unsigned mark = tr_trace_read_failures(t);
    if (!(w->flags & TR_WRITE_EVENTS_AFTER)) tr_stream_set_emit(p->stream, emit_event, &to);
    int rc = p->load(p->user, t, first, n, e);
    size_t n_flows;
    tr_flow *flows = tr_stream_flows(p->stream, &n_flows);
    if (rc == TR_OK && w->flows) rc = w->flows(run, t, flows, n_flows, e);
    const tr_event_rec *ev;
    while (rc == TR_OK && (rc = tr_stream_next(p->stream, &ev, e)) == TR_OK)
        rc = w->event(run, t, ev, e);
    return rc == TR_END ? tr_trace_reads_ok(t, mark, e) : rc;
}

/*
** A per-input writer's parts, streamed one after the other: each input is
** loaded alone into a trace of its own (its ids are its own, as add gets
** them), through the stream made anew.
*/
static int add_stream_parts(const tr_writer *w, tr_write *run, const parts *p, tr_error *e)
{
    int rc = TR_OK;
    for (size_t i = 0; i < p->n && rc == TR_OK; i++) {
        tr_trace *t = i ? tr_trace_new() : p->stream_trace;
        if (!t) return tr_error_nomem(e);
        if (i) tr_stream_reset(p->stream);
        unsigned mark = tr_trace_read_failures(t);
        int keep = run->keep;
        rc = add_stream(w, run, p, t, i, 1, e);
        if (rc == TR_OK) rc = part_checked(w, run, t, mark, keep, w->part_end(run, t, e), e);
        if (i) tr_trace_free(t);
    }
    return rc;
}

/*
** add with every part: the given trace, all N inputs in one trace, or each
** alone.  With KEEP, the last trace read is left there for the caller to
** free, instead of freed here.
*/
static int add_parts(const tr_writer *w, tr_write *run, const parts *p, tr_trace **keep,
                     tr_error *e)
{
    if (p->stream && (w->flags & TR_WRITE_PER_INPUT) && w->part_end)
        return add_stream_parts(w, run, p, e);
    if (p->stream) return add_stream(w, run, p, p->stream_trace, 0, p->n, e);
    if (p->given) return add_checked(w, run, p->given, e);
    size_t step = w->flags & TR_WRITE_PER_INPUT ? 1 : p->n;
    if (step == 1 && p->n > 1 && tr_pool_threads(run->opts->threads, p->n) > 1)
        return add_pipelined(w, run, p, e);
    int rc = TR_OK;
    for (size_t first = 0; first < p->n && rc == TR_OK; first += step) {
        tr_trace *t = tr_trace_new();
        if (!t) return tr_error_nomem(e);
        rc = p->load(p->user, t, first, step, e);
        if (rc == TR_OK) rc = add_checked(w, run, t, e);
        if (keep && first + step >= p->n)
            *keep = t;
        else
            tr_trace_free(t);
    }
    return rc;
}

static int free_trace(void *user, size_t job)
{
    (void)job;
    tr_trace_free(user);
    return TR_OK;
}

/* Commits the target, or drops it after a failure RC; returns RC or the commit's. */
static int finish(const tr_writer *w, tr_write *run, int rc, tr_error *e)
{
    if (rc != TR_OK && run->keep && (w->flags & TR_WRITE_DATASET)) {
        tr_error lost;
        tr_output_commit(run->out, &lost); /* the first failure is the one to report */
        return rc;
    }
    if (rc != TR_OK) {
        tr_output_abort(run->out);
        return rc;
    }
    return tr_output_commit(run->out, e);
}

static int drive(const tr_writer *w, const char *path, const tr_write_opts *o, const parts *p,
                 tr_error *e)
{
    static const tr_write_opts none;
    tr_write run = {.opts = o ? o : &none};
    int rc = target_open(w, path, &run.out, e);
    if (rc != TR_OK) return rc;
    if (w->begin) rc = w->begin(&run, e);
    if (rc != TR_OK) {
        tr_output_abort(run.out);
        return rc;
    }
    /*
    ** The model is freed beside the commit, whose sync waits for the disk:
    ** its blocks are large and many (2.8 ms for 8 Kineto inputs merged).
    */
    tr_trace *kept = NULL;
    rc = add_parts(w, &run, p, tr_pool_threads(run.opts->threads, 2) > 1 ? &kept : NULL, e);
    if (w->end) {
        int end = w->end(&run, rc, e);
        if (rc == TR_OK) rc = end;
    }
    tr_pool_task freeing = {0};
    if (kept) tr_pool_spawn(&freeing, free_trace, kept);
    rc = finish(w, &run, rc, e);
    tr_pool_join(&freeing);
    return rc;
}

int tr_write_inputs(const tr_writer *w, const char *path, const tr_write_opts *o, size_t n,
                    tr_write_load_fn load, void *user, tr_error *e)
{
    parts p = {.n = n, .load = load, .user = user};
    return drive(w, path, o, &p, e);
}

int tr_write_stream(const tr_writer *w, tr_trace *t, tr_stream *s, const char *path,
                    const tr_write_opts *o, size_t n, tr_write_load_fn load, void *user,
                    tr_error *e)
{
    if (!w->event || (o && o->filter))
        return tr_errorf(e, TR_E_USAGE, NULL, "the %s writer cannot stream %s", w->name,
                         w->event ? "filtered events" : "events");
    parts p = {.n = n, .load = load, .stream = s, .stream_trace = t, .user = user};
    return drive(w, path, o, &p, e);
}

int tr_write_trace(const tr_writer *w, const tr_trace *t, const char *path, const tr_write_opts *o,
                   tr_error *e)
{
    parts p = {.given = t};
    return drive(w, path, o, &p, e);
}
