/*
** stream.c: the report from a stream, in memory set by --memory.
**
** When the inputs stream (tr_cli_can_stream, as for cat and traceviz) and
** every section asked is computed one event at a time (all but the HTA
** breakdowns: tr_report_unstreamed), the events never stay in the model.
** The stream (tr_stream.h) hands them out in tr_iter's order: through its
** reorder window while reading when the reader promises where later events
** start (a GT log), the rest from its sorted runs once all inputs are read.
** Each gets its nesting (tr_rows) and meets the report's accumulators
** (tr_report_add), the ones tr_report_new feeds the model's rows through,
** so the report is the model's.  The accumulators keep what they need per
** track and process while the dictionaries grow, and group by rank only at
** the end.  Inputs placed on one timeline (several, or --align) are shifted
** once all are read, so nothing goes out before, as for cat.  The model
** keeps its dictionaries, which the report names things by.
*/
#include "tracestat_impl.h"

#include "tr_rows.h"
#include "tr_stream.h"

#include <stdio.h>
#include <string.h>

/* The stream takes the budget but this share: room for the accumulators (the ops' durations). */
#define OTHER_SHARE 4

/* The events as the stream hands them out: their nesting, then the report. */
typedef struct feeder {
    tr_rows rows;
    tr_report *r;
} feeder;

static int feed_one(void *user, const tr_trace *t, const tr_event_rec *ev, tr_error *e)
{
    (void)t;
    feeder *f = user;
    tr_row_event x;
    if (tr_rows_next(&f->rows, ev, &x) != TR_OK) return tr_error_nomem(e);
    return tr_report_add(f->r, &x, e);
}

/* What the window left, once loading is over. */
static int feed_rest(tr_stream *s, feeder *f, tr_error *e)
{
    const tr_event_rec *ev;
    int rc;
    while ((rc = tr_stream_next(s, &ev, e)) == TR_OK)
        if ((rc = feed_one(f, NULL, ev, e)) != TR_OK) break;
    return rc == TR_END ? tr_report_end(f->r, e) : rc;
}

/* What one reading of the inputs gives. */
typedef struct reading {
    tr_trace *t;
    tr_report *r;
    int exit;          /* the load's exit status */
    int late;          /* the input broke its reader's time-order promise after events went out */
    tr_error load_err; /* the load's failure, not reported yet */
} reading;

static void reading_free(reading *g)
{
    tr_report_free(g->r);
    tr_trace_free(g->t);
    *g = (reading){.exit = TR_EXIT_OK};
}

/* One reading into G's report, SORT_ALL: with no reorder window. */
static int stream_report(tr_cli *c, const args *a, char **inputs, int n, int sort_all, reading *g,
                         tr_error *e)
{
    char dir[4096];
    size_t budget = (size_t)(tr_cli_memory(c) - tr_cli_sort_memory(c));
    tr_stream_opts so = {.memory = budget - budget / OTHER_SHARE,
                         .tmpdir = tr_cli_tmpdir(c, NULL, dir, sizeof dir),
                         .sort_all = sort_all,
                         .no_flows = 1};
    c->read.spill_dir = so.tmpdir;
    tr_stream *s = NULL;
    feeder f = {.r = NULL};
    tr_rows_init(&f.rows, 0);
    f.rows.bind_flows = 0;
    *g = (reading){.t = tr_trace_new(), .exit = TR_EXIT_OK};
    int rc = g->t ? TR_OK : tr_error_nomem(e);
    if (rc == TR_OK) rc = tr_stream_open(&s, &so, e);
    /* Begun on the empty trace: the accumulators follow its dictionaries as they grow. */
    if (rc == TR_OK) rc = tr_report_begin(g->t, &a->ro, &g->r, e);
    if (rc == TR_OK) {
        f.r = g->r;
        tr_stream_set_emit(s, feed_one, &f);
        g->exit =
            tr_cli_load_quiet(c, g->t, inputs, (size_t)n, 0, tr_stream_consume, s, &g->load_err);
        if (g->exit != TR_EXIT_OK) rc = TR_FAIL, *e = g->load_err;
    }
    if (rc == TR_OK) rc = feed_rest(s, &f, e);
    if (c->verbosity >= 3 && s)
        fprintf(stderr, "tracestat: %llu events counted while reading, %llu sorted runs spilled\n",
                (unsigned long long)tr_stream_sent(s), (unsigned long long)tr_stream_runs(s));
    g->late = rc != TR_OK && s && tr_stream_late(s) && strcmp(inputs[0], "-") != 0;
    tr_stream_close(s);
    tr_rows_fini(&f.rows);
    return rc;
}

int ts_stream(tr_cli *c, const args *a, char **inputs, int n, int *model)
{
    *model = 0;
    tr_error e = {0};
    reading g;
    int rc = stream_report(c, a, inputs, n, n > 1 || c->read.align.n_offsets, &g, &e);
    if (g.late) {
        if (c->verbosity >= 2)
            fprintf(stderr,
                    "tracestat: the input is not in time order: reading it again, sorted\n");
        reading_free(&g);
        e = (tr_error){0};
        rc = stream_report(c, a, inputs, n, 1, &g, &e);
    }
    int exit = g.exit;
    if (rc == TR_FAIL && exit == TR_EXIT_OK && e.code == TR_E_USAGE) {
        /* I/O calls met while io or the stragglers are asked: the io section reads the model. */
        if (c->verbosity >= 1) fprintf(stderr, "tracestat: %s: reading it into memory\n", e.msg);
        *model = 1;
    } else if (rc == TR_OK) {
        exit = ts_print(c, a, g.r);
    } else {
        /* A load that failed after reading (freeze) has reported itself. */
        if (exit == TR_EXIT_OK || g.load_err.code != TR_E_NONE) tr_cli_error(c, &e);
        if (exit == TR_EXIT_OK) exit = e.code == TR_E_USAGE ? TR_EXIT_USAGE : TR_EXIT_DATA;
    }
    reading_free(&g);
    return exit;
}
