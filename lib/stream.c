/*
** stream.c: events copied out of each batch into records, finished as
** freeze would finish them, and sorted into the model's order
** (tr_stream.h).
*/
#include "tr_mem.h"
#include "tr_sorter.h"
#include "tr_stream.h"

#include <string.h>

struct tr_stream {
    tr_sorter *sort;
    size_t budget;
    uint64_t seq[TR_EV_KIND_COUNT]; /* events of each kind handed out so far */
    tr_vec open;                    /* tr_event_rec: slices still open (dur -1) */
    tr_vec open_input;              /* uint32_t: the input of each */
    tr_vec end;                     /* int64_t per input: where its events end so far */
};

/* ---- records ---- */

/* The model's order (tr_iter): time, kind, the longer slice first, then the order appended. */
static int rec_cmp(const void *pa, const void *pb)
{
    const tr_event_rec *a = pa, *b = pb;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    if (a->kind != b->kind) return a->kind < b->kind ? -1 : 1;
    if (a->kind == TR_EV_SLICE && a->key != b->key) return a->key > b->key ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static void rec_slice(const tr_slices *v, size_t i, tr_event_rec *r)
{
    *r = (tr_event_rec){.ts = v->ts[i],
                        .dur = tr_slice_dur(v, i),
                        .bytes = tr_slice_bytes(v, i),
                        .key = tr_slice_dur(v, i)};
    r->u.s.name = v->name[i];
    r->u.s.cat = tr_slice_cat(v, i);
    r->track = v->track[i];
    r->args = v->args[i];
    r->kind = TR_EV_SLICE;
}

static void rec_instant(const tr_instants *v, size_t i, tr_event_rec *r)
{
    *r = (tr_event_rec){.ts = v->ts[i], .dur = -1, .bytes = v->bytes[i]};
    r->u.s.name = v->name[i];
    r->u.s.cat = v->cat[i];
    r->track = v->track[i];
    r->args = v->args[i];
    r->kind = TR_EV_INSTANT;
    r->scope = v->scope[i];
}

static void rec_counter(const tr_counters *v, size_t i, tr_event_rec *r)
{
    *r = (tr_event_rec){.ts = v->ts[i], .dur = -1, .bytes = -1};
    r->u.value = v->value[i];
    r->track = v->track[i];
    r->kind = TR_EV_COUNTER;
}

static void rec_sample(const tr_samples *v, size_t i, tr_event_rec *r)
{
    *r = (tr_event_rec){.ts = v->ts[i], .dur = -1, .bytes = -1};
    r->track = v->track[i];
    r->args = v->args[i];
    r->stack = v->stack[i];
    r->kind = TR_EV_SAMPLE;
}

/* Fills R with row I of kind KIND of T; the slice's sort key is its length. */
static void rec_fill(const tr_trace *t, int kind, size_t i, tr_event_rec *r)
{
    switch (kind) {
    case TR_EV_SLICE: {
        tr_slices v;
        tr_trace_slices(t, &v);
        rec_slice(&v, i, r);
        break;
    }
    case TR_EV_INSTANT: {
        tr_instants v;
        tr_trace_instants(t, &v);
        rec_instant(&v, i, r);
        break;
    }
    case TR_EV_COUNTER: {
        tr_counters v;
        tr_trace_counters(t, &v);
        rec_counter(&v, i, r);
        break;
    }
    default: {
        tr_samples v;
        tr_trace_samples(t, &v);
        rec_sample(&v, i, r);
        break;
    }
    }
    r->seq = i;
}

void tr_event_rec_get(const tr_trace *t, const tr_event *ev, tr_event_rec *r)
{
    rec_fill(t, ev->kind, ev->row, r);
}

/* ---- the consumer ---- */

/* The input track TRACK belongs to, as freeze finds it (0 for an unknown track). */
static uint32_t track_input(const tr_trace *t, uint32_t track)
{
    const tr_track *tk = track < tr_track_count(t) ? tr_track_get(t, track) : NULL;
    const tr_process *p = tk ? tr_process_get(t, tk->process) : NULL;
    return p ? p->input : 0;
}

static int nest_given(const tr_trace *t, uint32_t track)
{
    return track < tr_track_count(t) && tr_track_get(t, track)->nesting == TR_NEST_GIVEN;
}

/* Where input IN's events end: grows the table to hold it. */
static int64_t *input_end(tr_stream *s, uint32_t in)
{
    while (s->end.len <= in) {
        int64_t *e = tr_vec_push(&s->end);
        if (!e) return NULL;
        *e = INT64_MIN;
    }
    return &TR_VEC_AT(&s->end, int64_t, in);
}

/* Takes one record: the span of its input grows, an open slice waits, the rest is sorted. */
static int stream_take(tr_stream *s, const tr_trace *t, tr_event_rec *r, tr_error *e)
{
    uint32_t in = track_input(t, r->track);
    int64_t *end = input_end(s, in);
    if (!end) return tr_error_nomem(e);
    int open = r->kind == TR_EV_SLICE && r->dur < 0;
    int64_t last = r->kind == TR_EV_SLICE && !open ? tr_time_add(r->ts, r->dur) : r->ts;
    if (last > *end) *end = last;
    if (r->kind == TR_EV_SLICE && nest_given(t, r->track)) r->key = 0;
    if (!open) return tr_sorter_push(s->sort, r, e);
    tr_event_rec *held = tr_vec_push(&s->open);
    uint32_t *held_in = held ? tr_vec_push(&s->open_input) : NULL;
    if (!held_in) return tr_error_nomem(e);
    *held = *r;
    *held_in = in;
    return TR_OK;
}

/* Input IN has ended: its open slices end where its events do, as freeze ends them. */
static int stream_close_open(tr_stream *s, const tr_trace *t, uint32_t in, tr_error *e)
{
    tr_event_rec *held = s->open.data;
    uint32_t *held_in = s->open_input.data;
    size_t keep = 0;
    int rc = TR_OK;
    for (size_t i = 0; i < s->open.len; i++) {
        tr_event_rec r = held[i];
        if (held_in[i] != in) {
            held[keep] = r;
            held_in[keep++] = held_in[i];
            continue;
        }
        int64_t end = in < s->end.len ? TR_VEC_AT(&s->end, int64_t, in) : r.ts;
        r.dur = end > r.ts ? end - r.ts : 0;
        r.key = nest_given(t, r.track) ? 0 : r.dur;
        if (rc == TR_OK) rc = tr_sorter_push(s->sort, &r, e);
    }
    s->open.len = s->open_input.len = keep;
    return rc;
}

int tr_stream_consume(void *user, const tr_trace *t, const tr_batch *b, tr_error *e)
{
    tr_stream *s = user;
    int rc = TR_OK;
    for (int k = 0; k < TR_EV_KIND_COUNT && rc == TR_OK; k++) {
        for (size_t i = b->first[k]; i < b->end[k] && rc == TR_OK; i++) {
            tr_event_rec r;
            rec_fill(t, k, i, &r);
            r.seq = s->seq[k]++;
            rc = stream_take(s, t, &r, e);
        }
    }
    if (rc == TR_OK && b->last) rc = stream_close_open(s, t, b->input, e);
    /* The model's dictionaries take their share of the budget. */
    size_t held = tr_sorter_held(s->sort);
    if (rc == TR_OK && held >= s->budget / 8 && held + tr_trace_memory(t) > s->budget)
        rc = tr_sorter_spill(s->sort, e);
    return rc;
}

/* ---- the stream ---- */

int tr_stream_open(tr_stream **sp, const tr_stream_opts *o, tr_error *e)
{
    tr_stream *s = tr_calloc(1, sizeof *s);
    *sp = s;
    if (!s) return tr_error_nomem(e);
    tr_vec_init(&s->open, sizeof(tr_event_rec));
    tr_vec_init(&s->open_input, sizeof(uint32_t));
    tr_vec_init(&s->end, sizeof(int64_t));
    s->budget = o->memory;
    tr_sorter_opts so = {.rec_size = sizeof(tr_event_rec),
                         .cmp = rec_cmp,
                         .budget = o->memory,
                         .tmpdir = o->tmpdir,
                         .free_bytes = o->free_bytes};
    return tr_sorter_open(&s->sort, &so, e);
}

int tr_stream_next(tr_stream *s, const tr_event_rec **ev, tr_error *e)
{
    const void *rec;
    int rc = tr_sorter_next(s->sort, &rec, e);
    if (rc == TR_OK) *ev = rec;
    return rc;
}

uint64_t tr_stream_runs(const tr_stream *s)
{
    return tr_sorter_runs(s->sort);
}

void tr_stream_close(tr_stream *s)
{
    if (!s) return;
    tr_sorter_close(s->sort);
    tr_vec_fini(&s->open);
    tr_vec_fini(&s->open_input);
    tr_vec_fini(&s->end);
    tr_free(s);
}
