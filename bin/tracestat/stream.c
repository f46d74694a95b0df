/*
** stream.c: the report from a stream, in memory set by --memory.
**
** When the inputs stream (tr_cli_can_stream, as for cat and traceviz) and
** every section asked is computed one event at a time (all but the HTA
** breakdowns: tr_report_unstreamed), the events never stay in the model.
** The stream (tr_stream.h) sorts them through its runs and hands them out
** in tr_iter's order once all inputs are read; each gets its nesting
** (tr_rows) and meets the report's accumulators (tr_report_add), the ones
** tr_report_new feeds the model's rows through, so the report is the
** model's.  Nothing goes out while reading: the stragglers and hangs group
** tracks by their process's rank, known once everything is read.  The
** model keeps its dictionaries, which the report names things by.
*/
#include "tracestat_impl.h"

#include "tr_rows.h"
#include "tr_stream.h"

#include <stdio.h>

/* The stream takes the budget but this share: room for the accumulators (the ops' durations). */
#define OTHER_SHARE 4

static int feed(tr_stream *s, tr_report *r, tr_error *e)
{
    tr_rows rows;
    tr_rows_init(&rows, 0);
    rows.bind_flows = 0;
    const tr_event_rec *ev;
    tr_row_event x;
    int rc;
    while ((rc = tr_stream_next(s, &ev, e)) == TR_OK) {
        if (tr_rows_next(&rows, ev, &x) != TR_OK) {
            rc = tr_error_nomem(e);
            break;
        }
        if ((rc = tr_report_add(r, &x, e)) != TR_OK) break;
    }
    tr_rows_fini(&rows);
    return rc == TR_END ? tr_report_end(r, e) : rc;
}

int ts_stream(tr_cli *c, const args *a, char **inputs, int n, int *model)
{
    char dir[4096];
    size_t budget = (size_t)(tr_cli_memory(c) - tr_cli_sort_memory(c));
    tr_stream_opts so = {.memory = budget - budget / OTHER_SHARE,
                         .tmpdir = tr_cli_tmpdir(c, NULL, dir, sizeof dir),
                         .sort_all = 1,
                         .no_flows = 1};
    c->read.spill_dir = so.tmpdir;
    *model = 0;
    tr_error e = {0}, load_err = {0};
    tr_stream *s = NULL;
    tr_report *r = NULL;
    tr_trace *t = tr_trace_new();
    int rc = t ? TR_OK : tr_error_nomem(&e), exit = TR_EXIT_OK;
    if (rc == TR_OK) rc = tr_stream_open(&s, &so, &e);
    if (rc == TR_OK) {
        exit = tr_cli_load_quiet(c, t, inputs, (size_t)n, 0, tr_stream_consume, s, &load_err);
        if (exit != TR_EXIT_OK) rc = TR_FAIL, e = load_err;
    }
    if (rc == TR_OK) rc = tr_report_begin(t, &a->ro, &r, &e);
    if (rc == TR_OK) rc = feed(s, r, &e);
    if (c->verbosity >= 3 && s)
        fprintf(stderr, "tracestat: %llu sorted runs spilled\n",
                (unsigned long long)tr_stream_runs(s));
    tr_stream_close(s);
    if (rc == TR_FAIL && exit == TR_EXIT_OK && e.code == TR_E_USAGE) {
        /* I/O calls met while io or the stragglers are asked: the io section reads the model. */
        if (c->verbosity >= 1) fprintf(stderr, "tracestat: %s: reading it into memory\n", e.msg);
        *model = 1;
    } else if (rc == TR_OK) {
        exit = ts_print(c, a, r);
    } else {
        /* A load that failed after reading (freeze) has reported itself. */
        if (exit == TR_EXIT_OK || load_err.code != TR_E_NONE) tr_cli_error(c, &e);
        if (exit == TR_EXIT_OK) exit = e.code == TR_E_USAGE ? TR_EXIT_USAGE : TR_EXIT_DATA;
    }
    tr_report_free(r);
    tr_trace_free(t);
    return exit;
}
