/* load.c: reading the inputs a binary was given, with the shared read options. */
#include "cli.h"
#include "tr_pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Inputs placed by a guess: said once, as warnings are. */
static void warn_guesses(tr_cli *c, const tr_trace *t)
{
    for (size_t i = 0; i < tr_input_count(t); i++) {
        const tr_input_info *in = tr_input_get(t, (uint32_t)i);
        if (!tr_align_is_guess(in->placed)) continue;
        tr_error w = {.code = TR_E_FORMAT};
        snprintf(w.file, sizeof w.file, "%s", tr_str_get(t, in->path, NULL));
        snprintf(w.msg, sizeof w.msg, "%s",
                 in->placed == TR_PLACED_GUESS
                     ? "no wall clock: its zero is put at the timeline's zero, a guess "
                       "(use --align FILE=OFFSET or --align-on NAME)"
                     : "its local time was read in this machine's zone, a guess (use --tz)");
        c->diag.warnings++;
        if (c->diag.fn) c->diag.fn(c->diag.user, &w);
    }
}

/* A consumer, counting the events it is handed: the trace may have dropped them. */
typedef struct counted {
    tr_sink_fn fn;
    void *user;
    uint64_t events;
} counted;

static int count_events(void *user, const tr_trace *t, const tr_batch *b, tr_error *e)
{
    counted *c = user;
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) c->events += b->end[k] - b->first[k];
    return c->fn(c->user, t, b, e);
}

/*
** A real trace with no events (none in T, none handed to a consumer) is read,
** and said to be empty: a warning (an error with --strict).
*/
static int warn_empty(tr_cli *c, const tr_trace *t, uint64_t handed, char *const *inputs, size_t n)
{
    size_t rows[TR_EV_KIND_COUNT];
    tr_trace_event_counts(t, rows);
    if (handed) return TR_EXIT_OK;
    for (int k = 0; k < TR_EV_KIND_COUNT; k++)
        if (rows[k]) return TR_EXIT_OK;
    tr_error e = {0};
    tr_loc loc = {n == 1 ? inputs[0] : NULL, 0, 0, 0};
    const char *msg = n == 1 ? "a trace with no events" : "no input holds an event";
    if (tr_warnf(&c->diag, &e, &loc, "%s", msg) != TR_FAIL) return TR_EXIT_OK;
    tr_cli_error(c, &e);
    return TR_EXIT_DATA;
}

int tr_cli_threads(const tr_cli *c)
{
    if (c->read.threads > 0) return c->read.threads;
    const char *env = getenv("TRACECAT_THREADS");
    return env ? atoi(env) : 0;
}

int tr_cli_load(tr_cli *c, tr_trace *t, char *const *inputs, size_t n, int no_stack_slices)
{
    return tr_cli_load_into(c, t, inputs, n, no_stack_slices, NULL, NULL);
}

int tr_cli_load_into(tr_cli *c, tr_trace *t, char *const *inputs, size_t n, int no_stack_slices,
                     tr_sink_fn consume, void *user)
{
    tr_error e = {0};
    int exit = tr_cli_load_quiet(c, t, inputs, n, no_stack_slices, consume, user, &e);
    if (e.code != TR_E_NONE) tr_cli_error(c, &e);
    return exit;
}

int tr_cli_load_quiet(tr_cli *c, tr_trace *t, char *const *inputs, size_t n, int no_stack_slices,
                      tr_sink_fn consume, void *user, tr_error *e)
{
    const tr_cli_read *r = &c->read;
    tr_align_opts align = r->align;
    counted cnt = {consume, user, 0};
    tr_load_opts lo = {
        .readers = tr_readers,
        .from = r->from,
        .read = {.diag = &c->diag,
                 .gt_pairing = r->gt_pairing,
                 .no_stack_slices = no_stack_slices,
                 .no_args = r->no_args},
        .ranks = r->ranks,
        .n_ranks = r->n_ranks,
        .progress = tr_cli_progress,
        .progress_user = c,
        .threads = tr_cli_threads(c),
        .align = &align,
        .consume = consume ? count_events : NULL,
        .consume_user = &cnt,
        .consume_forgets = consume != NULL,
        /*
        ** A model's arg sets past an eighth of the budget are sealed: a
        ** trace that fits stays as fast as before (sealing costs about
        ** 50 ns a set: GT info +50 % user time), one that does not holds
        ** 3-4 bytes a set instead of 28-30.
        */
        .args_raw = (size_t)(tr_cli_memory(c) / 8),
    };
    align.diag = &c->diag;
    char dir[4096];
    if (consume) {
        lo.read.sort_memory = (size_t)tr_cli_sort_memory(c);
        lo.read.tmpdir = r->spill_dir ? r->spill_dir : tr_cli_tmpdir(c, NULL, dir, sizeof dir);
    }
    int rc = tr_load_many(t, (const char *const *)inputs, n, &lo, e);
    tr_cli_progress_done(c);
    if (rc < 0) {
        if (e->code == TR_E_NONE) e->code = TR_E_FORMAT;
        return e->code == TR_E_USAGE ? TR_EXIT_USAGE : TR_EXIT_DATA;
    }
    *e = (tr_error){0}; /* warnings have been said */
    warn_guesses(c, t);
    tr_error fe = {0};
    if ((r->unordered ? tr_trace_freeze_unordered(t, &fe) : tr_trace_freeze(t, &fe)) < 0) {
        tr_cli_error(c, &fe);
        return TR_EXIT_DATA;
    }
    return warn_empty(c, t, cnt.events, inputs, n);
}

int tr_cli_load_new(tr_cli *c, char *const *inputs, size_t n, tr_trace **out)
{
    *out = tr_trace_new();
    if (!*out) {
        tr_cli_errorf(c, "out of memory");
        return TR_EXIT_DATA;
    }
    int rc = tr_cli_load(c, *out, inputs, n, 0);
    if (rc != TR_EXIT_OK) {
        tr_trace_free(*out);
        *out = NULL;
    }
    return rc;
}

uint64_t tr_cli_memory(const tr_cli *c)
{
    if (c->read.memory) return c->read.memory;
    uint64_t gib = (uint64_t)1 << 30;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t quarter = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 4 : gib;
    return quarter < gib ? quarter : gib;
}

uint64_t tr_cli_sort_memory(const tr_cli *c)
{
    return tr_cli_memory(c) / 4;
}

const char *tr_cli_tmpdir(const tr_cli *c, const char *output, char *buf, size_t n)
{
    if (c->read.tmpdir) return c->read.tmpdir;
    if (output && strcmp(output, "-") != 0) {
        /* a directory output (pq/) is made at the end: its spill goes beside it */
        size_t end = strlen(output);
        while (end > 1 && output[end - 1] == '/') end--;
        const char *slash = NULL;
        for (size_t i = 0; i < end; i++)
            if (output[i] == '/') slash = output + i;
        if (!slash) return ".";
        size_t len = slash == output ? 1 : (size_t)(slash - output);
        snprintf(buf, n, "%.*s", (int)len, output);
        return buf;
    }
    const char *env = getenv("TMPDIR");
    return env && *env ? env : "/tmp";
}

/* ---- streaming ---- */

/*
** Inputs that are files and no archives, each read by a reader that lets
** the model drop what it read (tr_reader.streams).  Standard input cannot be
** looked at twice, so it is read whole.
*/
/* The reader that would read PATH when it streams (tr_reader.streams), else NULL. */
static const tr_reader *input_streams(const tr_cli *c, const char *path)
{
    if (strcmp(path, "-") == 0) return NULL;
    tr_source *src;
    if (tr_source_open(&src, path, NULL) != TR_OK) return NULL;
    const tr_reader *r = NULL;
    tr_input *in;
    const unsigned char *head;
    size_t n;
    if (tr_source_kind(src) != TR_SOURCE_STREAM)
        r = NULL;
    else if (c->read.from)
        r = tr_reader_find(tr_readers, c->read.from);
    else if (tr_source_next(src, &in, NULL) == TR_OK &&
             tr_input_peek(in, &head, &n, TR_PEEK_SIZE, NULL) == TR_OK) {
        tr_peek pk = {tr_input_name(in), head, n, n < TR_PEEK_SIZE, NULL, 0};
        r = tr_probe(tr_readers, &pk, NULL);
    }
    tr_source_close(src);
    return r && r->streams ? r : NULL;
}

/*
** A Chrome stream costs more than its model (a 64-byte record and a binding
** key a slice, sorted: 1.7x the CPU on a 1 GB Kineto trace) until the model
** outgrows the budget, so under the default budget Chrome JSON streams only
** when its model may not fit: about half a byte of model per byte of JSON
** (0.34 measured on Kineto).  A budget given with --memory is obeyed.
*/
#define CHROME_MODEL_PER_BYTE 0.5

/* The inputs' streaming readers, probed on the pool: opening and probing one costs ~1.4 ms. */
typedef struct probe_job {
    const tr_cli *c;
    char *const *inputs;
    const tr_reader **readers;
} probe_job;

static int probe_input(void *user, size_t i)
{
    probe_job *job = user;
    job->readers[i] = input_streams(job->c, job->inputs[i]);
    return TR_OK;
}

int tr_cli_can_stream(const tr_cli *c, char *const *inputs, size_t n, int one_model)
{
    if (c->read.align.align_on || n < 1) return 0;
    probe_job job = {c, inputs, calloc(n, sizeof *job.readers)};
    if (!job.readers) return 0;
    tr_pool_run(tr_pool_threads(tr_cli_threads(c), n), n, probe_input, &job);
    double chrome_bytes = 0;
    int other = 0;
    for (size_t i = 0; i < n; i++) {
        const tr_reader *r = job.readers[i];
        if (!r) {
            free(job.readers);
            return 0;
        }
        struct stat st;
        double size = stat(inputs[i], &st) == 0 ? (double)st.st_size : 0;
        if (strcmp(r->name, "chrome") != 0)
            other = 1;
        else if (one_model)
            chrome_bytes = size > chrome_bytes ? size : chrome_bytes;
        else
            chrome_bytes += size;
    }
    free(job.readers);
    return other || c->read.memory ||
           chrome_bytes * CHROME_MODEL_PER_BYTE > (double)tr_cli_memory(c);
}

int tr_cli_thread_time(const tr_cli *c, char *const *inputs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const tr_reader *r = input_streams(c, inputs[i]);
        if (r && r->thread_time) return 1;
    }
    return 0;
}
