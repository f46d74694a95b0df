/*
** convert.c: tracecat convert and cat, the commands that write: the
** inputs are read, filtered by --name, --track, --since and --until, and
** handed to a writer.
*/
#include "tracecat_impl.h"

#include "../writers/tr_parquet.h"

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
        return s.name[ev->row];
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
        return s.track[ev->row];
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
    return a->name_glob || a->track_glob || a->has_since || a->has_until;
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

static int write_trace(tr_cli *c, const args *a, const tr_trace *t, const tr_writer *w,
                       const char *path)
{
    tr_error e = {0};
    tr_output *out;
    if (tr_output_open(&out, path, &e) < 0) {
        tr_cli_error(c, &e);
        return TR_EXIT_DATA;
    }
    if (w->binary && tr_output_is_tty(out)) {
        tr_output_abort(out);
        tr_cli_errorf(c, "refusing to write %s output to a terminal", w->name);
        return TR_EXIT_USAGE;
    }
    tr_filter filter = {keep_event, (void *)a};
    tr_write_opts wo = {.filter = has_filter(a) ? &filter : NULL,
                        .header = a->header,
                        .folded_prefix = a->folded_prefix};
    if (w->write(t, out, &wo, &e) < 0) {
        tr_output_abort(out);
        tr_cli_error(c, &e);
        return TR_EXIT_DATA;
    }
    if (tr_output_commit(out, &e) < 0) {
        tr_cli_error(c, &e);
        return TR_EXIT_DATA;
    }
    return TR_EXIT_OK;
}

/* ---- commands ---- */

/*
** Parquet: each INPUT is loaded, written and freed before the next, so a job
** of thousands of inputs holds one input's model at a time.
*/
static int convert_parquet(tr_cli *c, const args *a)
{
    tr_filter filter = {keep_event, (void *)a};
    tr_parquet_opts po = {.partition_rank = a->partition_rank,
                          .filter = has_filter(a) ? &filter : NULL};
    tr_error e = {0};
    tr_parquet *pw;
    int rc = TR_EXIT_OK;
    if (strcmp(a->output, "-") == 0)
        return tr_cli_usage_error(c,
                                  "parquet output is a directory (-o DIR/), not standard output");
    if (tr_parquet_open(&pw, a->output, &po, &e) < 0) {
        tr_cli_error(c, &e);
        rc = e.code == TR_E_USAGE ? TR_EXIT_USAGE : TR_EXIT_DATA;
    }
    for (int i = 0; i < a->n_inputs && rc == TR_EXIT_OK; i++) {
        tr_trace *t = tr_trace_new();
        if (!t) {
            tr_cli_errorf(c, "out of memory");
            rc = TR_EXIT_DATA;
            break;
        }
        rc = load_inputs(c, a, t, a->inputs + i, 1);
        if (rc == TR_EXIT_OK && tr_parquet_add(pw, t, &e) < 0) {
            tr_cli_error(c, &e);
            rc = TR_EXIT_DATA;
        }
        tr_trace_free(t);
    }
    tr_parquet_close(pw);
    return rc;
}

int cmd_convert(tr_cli *c, const args *a)
{
    if (!a->output) return tr_cli_usage_error(c, "convert needs -o OUTPUT");
    const tr_writer *w = a->to ? tr_writer_find(a->to) : tr_writer_for_path(a->output);
    if (!w && a->to) return tr_cli_usage_error(c, "unknown output format '%s'", a->to);
    if (!w && strcmp(a->output, "-") == 0) return tr_cli_usage_error(c, "-o - needs --to FORMAT");
    if (!w)
        return tr_cli_usage_error(c, "cannot tell the format of '%s' from its extension (use --to)",
                                  a->output);
    if (w == &tr_writer_parquet) return convert_parquet(c, a);
    if (a->partition_rank) return tr_cli_usage_error(c, "--partition is for --to parquet");
    tr_trace *t = tr_trace_new();
    if (!t) {
        tr_cli_errorf(c, "out of memory");
        return TR_EXIT_DATA;
    }
    /* Slices derived from stack samples are not built for a writer that ignores them. */
    args conv = *a;
    conv.no_stack_slices = w->samples_only;
    int rc = load_all(c, &conv, t);
    if (rc == TR_EXIT_OK) rc = write_trace(c, a, t, w, a->output);
    tr_trace_free(t);
    return rc;
}

int cmd_cat(tr_cli *c, const args *a)
{
    tr_trace *t = tr_trace_new();
    if (!t) {
        tr_cli_errorf(c, "out of memory");
        return TR_EXIT_DATA;
    }
    int rc = load_all(c, a, t);
    if (rc == TR_EXIT_OK)
        rc = write_trace(c, a, t, tr_writer_find("lines"), a->output ? a->output : "-");
    tr_trace_free(t);
    return rc;
}
