/*
** stream.c: a timeline or flame graph drawn from a stream, in memory set
** by --memory.
**
** When the inputs stream (tr_cli_can_stream: the model may not fit the
** budget, or --memory was given) the timeline never holds the model's
** events.  The stream (tr_stream.h) hands them out in tr_iter's order; each
** gets its nesting depth (tr_rows), is met by the layout's first pass
** (tr_timeline_scan) and is kept, in that order, in a second external
** sorter keyed by its place (so it costs no sort: runs of the budget's
** share spilled as they fill, merged back in order).  Once the lanes are
** placed that sorter replays the events to the second pass, which keeps
** what is drawn per pixel (tr_timeline_add).  Replaying costs a write and a
** read of 64 bytes an event where reading the input again would parse it
** again.  A GT log is in time order, so its events go through both passes'
** first half while it is read; --tracks and --ranks select tracks by what
** their process says, known only once everything is read: then nothing
** goes out before the end.  A flame graph needs one pass: its samples are
** summed per stack as the stream hands them out.
*/
#include "traceviz_impl.h"

#include "tr_rows.h"
#include "tr_sorter.h"

#include <stdio.h>
#include <string.h>

/* The stream takes the budget but these shares: the replay's buffer, and room for the rest. */
#define REPLAY_SHARE 8 /* 1/8: the events kept for the second pass */
#define OTHER_SHARE  4 /* 1/4: the flow ends' sorters (1/16), per-pixel state */
#define FLOW_SHARE   16

typedef struct viz_stream {
    tr_cli *c;
    const args *a;
    char **inputs;
    int n;
    tr_stream *s;
    tr_sorter *replay;
    tr_rows rows;
    tr_timeline_layout *l;
    uint64_t order; /* events kept so far: the replay's key */
} viz_stream;

static int replay_cmp(const void *pa, const void *pb)
{
    const tr_event_rec *a = pa, *b = pb;
    return a->key < b->key ? -1 : a->key > b->key;
}

/* The first pass of one event: its depth, the layout's scan, and a copy kept for the second. */
static int first_pass(void *user, const tr_trace *t, const tr_event_rec *ev, tr_error *e)
{
    (void)t;
    viz_stream *v = user;
    tr_row_event out;
    if (tr_rows_next(&v->rows, ev, &out) != TR_OK) return tr_error_nomem(e);
    int rc = tr_timeline_scan(v->l, ev, (int)out.depth, e);
    tr_event_rec r = *ev;
    r.key = (int64_t)v->order++;
    /* A slice has no stack: the field carries its depth to the second pass. */
    if (r.kind == TR_EV_SLICE) r.stack = (uint32_t)out.depth;
    return rc == TR_OK ? tr_sorter_push(v->replay, &r, e) : rc;
}

/* Each flow as it is read goes to the layout, which sorts its ends within its share. */
static int take_flow(void *user, const tr_flow *f, tr_error *e)
{
    viz_stream *v = user;
    return tr_timeline_flow(v->l, f, e);
}

static int both_passes(viz_stream *v, tr_trace *t, tr_error *e)
{
    const tr_event_rec *ev;
    int rc;
    while ((rc = tr_stream_next(v->s, &ev, e)) == TR_OK)
        if ((rc = first_pass(v, t, ev, e)) != TR_OK) return rc;
    if (rc != TR_END) return rc;
    rc = tr_timeline_place(v->l, e);
    const void *rec;
    while (rc == TR_OK && (rc = tr_sorter_next(v->replay, &rec, e)) == TR_OK) {
        const tr_event_rec *r = rec;
        rc = tr_timeline_add(v->l, r, r->kind == TR_EV_SLICE ? (int)r->stack : 0, e);
    }
    return rc == TR_END ? tr_timeline_finish(v->l, e) : rc;
}

/* One reading; *RETRY when the input broke its time-order promise after events went out. */
static int draw_once(viz_stream *v, int sort_all, int *retry, tr_render_stats *st)
{
    tr_cli *c = v->c;
    char dir[4096];
    size_t budget = (size_t)(tr_cli_memory(c) - tr_cli_sort_memory(c));
    tr_stream_opts so = {.memory = budget - budget / REPLAY_SHARE - budget / OTHER_SHARE,
                         .tmpdir = tr_cli_tmpdir(c, v->a->output, dir, sizeof dir),
                         .sort_all = sort_all};
    tr_sorter_opts ro = {.rec_size = sizeof(tr_event_rec),
                         .cmp = replay_cmp,
                         .budget = budget / REPLAY_SHARE,
                         .tmpdir = so.tmpdir};
    c->read.spill_dir = so.tmpdir;
    tr_error e = {0}, load_err = {0};
    tr_trace *t = tr_trace_new();
    tr_rows_init(&v->rows, 0);
    v->rows.bind_flows = 0; /* the flows name events by seq, as the second pass meets them */
    v->order = 0;
    int rc = t ? TR_OK : tr_error_nomem(&e);
    if (rc == TR_OK) rc = tr_stream_open(&v->s, &so, &e);
    if (rc == TR_OK) rc = tr_sorter_open(&v->replay, &ro, &e);
    if (rc == TR_OK) rc = tr_timeline_stream_new(t, &v->a->ro, &v->l, &e);
    int exit = TR_EXIT_OK;
    if (rc == TR_OK) {
        tr_timeline_spill(v->l, budget / FLOW_SHARE, so.tmpdir);
        tr_stream_set_flows(v->s, take_flow, v);
        if (!sort_all) tr_stream_set_emit(v->s, first_pass, v);
        exit =
            tr_cli_load_quiet(c, t, v->inputs, (size_t)v->n, 0, tr_stream_consume, v->s, &load_err);
        if (exit != TR_EXIT_OK) rc = TR_FAIL, e = load_err;
    }
    if (rc == TR_OK) rc = both_passes(v, t, &e);
    if (rc == TR_OK) rc = tr_timeline_draw(v->l, v->a->output, v->a->format, st, &e);
    if (c->verbosity >= 3 && v->s)
        fprintf(stderr, "traceviz: %llu events met while reading, %llu sorted runs spilled\n",
                (unsigned long long)tr_stream_sent(v->s), (unsigned long long)tr_stream_runs(v->s));
    *retry = rc != TR_OK && v->s && tr_stream_late(v->s);
    tr_timeline_layout_free(v->l);
    v->l = NULL;
    tr_sorter_close(v->replay);
    v->replay = NULL;
    tr_stream_close(v->s);
    v->s = NULL;
    tr_rows_fini(&v->rows);
    tr_trace_free(t);
    if (rc == TR_OK || *retry) return TR_EXIT_OK;
    /* A load that failed after reading (freeze) has reported itself. */
    if (exit == TR_EXIT_OK || load_err.code != TR_E_NONE) tr_cli_error(c, &e);
    if (exit != TR_EXIT_OK) return exit;
    return e.code == TR_E_USAGE ? TR_EXIT_USAGE : TR_EXIT_DATA;
}

int tv_stream_timeline(tr_cli *c, const args *a, char **inputs, int n, tr_render_stats *st)
{
    viz_stream v = {.c = c, .a = a, .inputs = inputs, .n = n};
    /* Inputs placed on one timeline are shifted once all are read: nothing goes out before. */
    int retry, sort_all = n > 1 || c->read.align.n_offsets || a->ro.tracks || a->ro.n_ranks;
    int exit = draw_once(&v, sort_all, &retry, st);
    if (retry) {
        if (c->verbosity >= 2)
            fprintf(stderr, "traceviz: the input is not in time order: reading it again, sorted\n");
        exit = draw_once(&v, 1, &retry, st);
    }
    return exit;
}

/* The stream's samples for the flame graph (a tr_flame_next_fn). */
typedef struct flame_source {
    tr_stream *s;
    tr_error e;
} flame_source;

static int flame_next(void *ctx, tr_event_rec *r)
{
    flame_source *src = ctx;
    const tr_event_rec *ev;
    int rc = tr_stream_next(src->s, &ev, &src->e);
    if (rc == TR_OK) *r = *ev;
    return rc;
}

int tv_stream_flame(tr_cli *c, const args *a, char **inputs, int n, tr_render_stats *st)
{
    char dir[4096];
    tr_stream_opts so = {.memory = (size_t)(tr_cli_memory(c) - tr_cli_sort_memory(c)),
                         .tmpdir = tr_cli_tmpdir(c, a->output, dir, sizeof dir),
                         .sort_all = 1};
    c->read.spill_dir = so.tmpdir;
    flame_source src = {NULL, {0}};
    tr_error e = {0}, load_err = {0};
    tr_flame_layout *l = NULL;
    tr_trace *t = tr_trace_new();
    int rc = t ? TR_OK : tr_error_nomem(&e), exit = TR_EXIT_OK;
    if (rc == TR_OK) rc = tr_stream_open(&src.s, &so, &e);
    if (rc == TR_OK) {
        exit = tr_cli_load_quiet(c, t, inputs, (size_t)n, 1, tr_stream_consume, src.s, &load_err);
        if (exit != TR_EXIT_OK) rc = TR_FAIL, e = load_err;
    }
    if (rc == TR_OK)
        rc = tr_flame_layout_from(t, &a->ro, a->format, flame_next, &src, &src.e, &l, &e);
    if (rc == TR_OK) rc = tr_flame_draw(l, a->output, st, &e);
    if (c->verbosity >= 3 && src.s)
        fprintf(stderr, "traceviz: %llu sorted runs spilled\n",
                (unsigned long long)tr_stream_runs(src.s));
    tr_flame_layout_free(l);
    tr_stream_close(src.s);
    tr_trace_free(t);
    if (rc == TR_OK) return TR_EXIT_OK;
    if (exit == TR_EXIT_OK || load_err.code != TR_E_NONE) tr_cli_error(c, &e);
    if (exit != TR_EXIT_OK) return exit;
    return e.code == TR_E_USAGE ? TR_EXIT_USAGE : TR_EXIT_DATA;
}
