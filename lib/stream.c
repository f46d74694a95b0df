/*
** stream.c: events copied out of each batch into records, finished as
** freeze would finish them, and sorted into the model's order
** (tr_stream.h).
*/
#include "tr_mem.h"
#include "tr_pool.h"
#include "tr_sorter.h"
#include "tr_stream.h"

#include <pthread.h>
#include <string.h>

/* Records a block of the merge handed to the writer (tr_stream_next with work behind). */
#define FEED_RECS 4096

/*
** The merge of the inputs on a thread beside the writer: it fills two
** blocks of records in turn, the writer formats one while the other fills.
** The thread touches only the sorters, the merge heap and PLACE; the
** blocks change hands under LOCK.
*/
typedef struct feed {
    tr_pool_task task;
    pthread_mutex_t lock;
    pthread_cond_t turn;
    tr_event_rec *block[2];
    size_t n[2];
    int full[2]; /* handed to the writer */
    int done;    /* the merge ended (or failed) after the last full block */
    int stop;    /* the writer is done with it: the thread ends */
    int rc;      /* the merge's failure, reported after the blocks before it */
    tr_error err;
    int cur;     /* the writer's block */
    size_t pos;  /* its next record */
    int holding; /* the writer holds block CUR */
} feed;

/* Where each track's records go in the merge: its process's offset and its input. */
typedef struct track_place {
    int64_t offset;
    uint32_t input;
} track_place;

struct tr_stream {
    /*
    ** One sorter per input (tr_sorter *, NULL until it has a record): an
    ** input's times are shifted onto the merged timeline (tr_align) only
    ** when all inputs are read, by one offset for all its events, so each
    ** input is sorted on its own clock and the inputs are merged, shifted,
    ** at the end.
    */
    tr_vec sorts;
    tr_sorter_opts sort_opts;
    const tr_trace *t; /* the trace of the last batch: its tracks and their offsets at the end */
    tr_vec merge;      /* tr_event_rec: the next record of each input, shifted: a heap */
    int merging;
    size_t budget;
    int sort_all;  /* tr_stream_opts.sort_all */
    int any_order; /* tr_stream_opts.any_order */
    int no_flows;  /* tr_stream_opts.no_flows */
    int behind;    /* tr_stream_opts.behind */
    /*
    ** The reorder window: while WINDOW is set the records wait in HEAP, not
    ** in the sorter, and those that start before the reader's promise
    ** (tr_batch.low) go out through EMIT at once.
    */
    int window;
    tr_stream_emit_fn emit;
    void *emit_user;
    /*
    ** The window: the records of a kind that come in order (instants, most
    ** slices) queue, one queue a kind from its QUEUE_HEAD, a copy each; the
    ** others go into HEAP, whose pops cost a copy a level.
    */
    tr_vec queue[TR_EV_KIND_COUNT]; /* tr_event_rec: by rec_cmp, the first at QUEUE_HEAD */
    size_t queue_head[TR_EV_KIND_COUNT];
    tr_vec heap;                    /* tr_event_rec: a heap by rec_cmp, the first one on top */
    int64_t sent_to;                /* the records before this time went out */
    uint64_t sent;                  /* records handed out through EMIT */
    int late;                       /* a record came for a time that had gone out */
    tr_event_rec cur;               /* the record tr_stream_next handed out from the heap */
    uint64_t seq[TR_EV_KIND_COUNT]; /* events of each kind handed out so far */
    /*
    ** Each input is loaded apart, so its flows name its events by their rows
    ** in that input (tr_sink.dropped); BASE is the events of each kind of
    ** the inputs before it, which a flow's ends are shifted by, as merging
    ** the inputs' models shifts them.
    */
    uint64_t base[TR_EV_KIND_COUNT];
    uint32_t input;     /* the input of the last batch */
    track_place *place; /* per track, taken when the merge starts */
    size_t n_place;
    feed *feed;                    /* the merge on a thread of its own (behind), once started */
    uint64_t runs_past, sent_past; /* runs spilled and records sent before tr_stream_reset */
    tr_vec open;                   /* tr_event_rec: slices still open (dur -1) */
    tr_vec open_input;             /* uint32_t: the input of each */
    tr_vec end;                    /* int64_t per input: where its events end so far */
    tr_vec flows;                  /* tr_flow: every flow read, its ends as (kind, seq) */
    tr_stream_flow_fn flow_fn;     /* tr_stream_set_flows: flows go there instead */
    void *flow_user;
    int flows_checked; /* ends naming no event have been marked */
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

/* rec_cmp with the samples after every other event. */
static int rec_cmp_samples_last(const void *pa, const void *pb)
{
    const tr_event_rec *a = pa, *b = pb;
    int sa = a->kind == TR_EV_SAMPLE, sb = b->kind == TR_EV_SAMPLE;
    if (sa != sb) return sa - sb;
    return rec_cmp(a, b);
}

static void rec_slice(const tr_slices *v, size_t i, tr_event_rec *r)
{
    *r = (tr_event_rec){.ts = v->ts[i],
                        .dur = tr_slice_dur(v, i),
                        .bytes = tr_slice_bytes(v, i),
                        .key = tr_slice_dur(v, i),
                        .thread_ts = tr_slice_thread_ts(v, i),
                        .thread_dur = tr_slice_thread_dur(v, i)};
    r->u.s.name = v->name[i];
    r->u.s.cat = tr_slice_cat(v, i);
    r->track = v->track[i];
    r->args = v->args[i];
    r->kind = TR_EV_SLICE;
}

static void rec_instant(const tr_instants *v, size_t i, tr_event_rec *r)
{
    *r = (tr_event_rec){.ts = v->ts[i], .dur = -1, .bytes = tr_instant_bytes(v, i)};
    r->u.s.name = tr_instant_name(v, i);
    r->u.s.cat = tr_instant_cat(v, i);
    r->track = tr_instant_track(v, i);
    r->args = v->args[i];
    r->kind = TR_EV_INSTANT;
    r->scope = (uint8_t)tr_instant_scope(v, i);
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
    if (kind != TR_EV_SLICE) r->thread_ts = r->thread_dur = TR_TIME_NONE;
    r->seq = i;
}

void tr_event_rec_get(const tr_trace *t, const tr_event *ev, tr_event_rec *r)
{
    rec_fill(t, ev->kind, ev->row, r);
}

/* ---- the reorder window ---- */

static int heap_push(tr_vec *v, const tr_event_rec *r, tr_sorter_cmp cmp)
{
    if (!tr_vec_push(v)) return TR_FATAL;
    tr_event_rec *h = v->data;
    size_t i = v->len - 1;
    /* the records above R move down into the hole, a copy each (a record is 88 bytes) */
    for (; i > 0 && cmp(r, &h[(i - 1) / 2]) < 0; i = (i - 1) / 2) h[i] = h[(i - 1) / 2];
    h[i] = *r;
    return TR_OK;
}

/*
** Takes the first record off the heap into *R.  ^The hole at the top goes
** down to a leaf by the lesser child (one compare a level), and the last
** record, which belongs near the bottom, goes up from there.
*/
static void heap_pop(tr_vec *v, tr_event_rec *r, tr_sorter_cmp cmp)
{
    tr_event_rec *h = v->data;
    *r = h[0];
    size_t n = --v->len, i = 0;
    if (n == 0) return;
    for (size_t l; (l = 2 * i + 1) < n; i = l) {
        if (l + 1 < n && cmp(&h[l + 1], &h[l]) < 0) l++;
        h[i] = h[l];
    }
    for (; i > 0 && cmp(&h[n], &h[(i - 1) / 2]) < 0; i = (i - 1) / 2) h[i] = h[(i - 1) / 2];
    h[i] = h[n];
}

static uint32_t track_input(const tr_trace *t, uint32_t track);

/* The sorter of input IN, opened at its first record. */
static tr_sorter *input_sorter(tr_stream *s, uint32_t in, tr_error *e)
{
    while (s->sorts.len <= in) {
        tr_sorter **at = tr_vec_push(&s->sorts);
        if (!at) {
            tr_error_nomem(e);
            return NULL;
        }
        *at = NULL;
    }
    tr_sorter **at = &TR_VEC_AT(&s->sorts, tr_sorter *, in);
    if (!*at && tr_sorter_open(at, &s->sort_opts, e) != TR_OK) return NULL;
    return *at;
}

static int sort_push(tr_stream *s, uint32_t in, const tr_event_rec *r, tr_error *e)
{
    tr_sorter *so = input_sorter(s, in, e);
    return so ? tr_sorter_push(so, r, e) : TR_FATAL;
}

/* ---- the window ---- */

static size_t window_len(const tr_stream *s)
{
    size_t n = s->heap.len;
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) n += s->queue[k].len - s->queue_head[k];
    return n;
}

/* R into its kind's queue when it goes after the queue's last record, else into the heap. */
static int window_push(tr_stream *s, const tr_event_rec *r)
{
    int k = r->kind < TR_EV_KIND_COUNT ? r->kind : 0;
    tr_vec *q = &s->queue[k];
    size_t *head = &s->queue_head[k];
    if (*head == q->len) {
        q->len = *head = 0;
    } else if (rec_cmp(r, &TR_VEC_AT(q, tr_event_rec, q->len - 1)) < 0) {
        return heap_push(&s->heap, r, rec_cmp);
    } else if (*head >= q->len / 2 && q->len == q->cap) {
        /* the taken half makes room: the queue's bytes stay those of the records it holds */
        size_t n = q->len - *head;
        memmove(q->data, &TR_VEC_AT(q, tr_event_rec, *head), n * sizeof *r);
        q->len = n;
        *head = 0;
    }
    tr_event_rec *at = tr_vec_push(q);
    if (!at) return TR_FATAL;
    *at = *r;
    return TR_OK;
}

/* The window's first record (it holds one): -1 the heap's, else the queue it heads. */
static int window_first(const tr_stream *s, const tr_event_rec **first)
{
    int from = -1;
    *first = s->heap.len ? s->heap.data : NULL;
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) {
        if (s->queue_head[k] == s->queue[k].len) continue;
        const tr_event_rec *r = &TR_VEC_AT(&s->queue[k], tr_event_rec, s->queue_head[k]);
        if (!*first || rec_cmp(r, *first) < 0) {
            *first = r;
            from = k;
        }
    }
    return from;
}

/* Takes the window's first record (it holds one) into *R. */
static void window_pop(tr_stream *s, tr_event_rec *r)
{
    const tr_event_rec *first;
    int from = window_first(s, &first);
    if (from < 0)
        heap_pop(&s->heap, r, rec_cmp);
    else
        *r = TR_VEC_AT(&s->queue[from], tr_event_rec, s->queue_head[from]++);
}

/* Empties the window. */
static void window_clear(tr_stream *s)
{
    s->heap.len = 0;
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) s->queue[k].len = s->queue_head[k] = 0;
}

/* The window is given up: what it holds goes into the sorters, as every later record does. */
static int window_close(tr_stream *s, const tr_trace *t, tr_error *e)
{
    s->window = 0;
    int rc = TR_OK;
    for (int k = 0; k < TR_EV_KIND_COUNT; k++)
        for (size_t i = s->queue_head[k]; i < s->queue[k].len && rc == TR_OK; i++) {
            const tr_event_rec *r = &TR_VEC_AT(&s->queue[k], tr_event_rec, i);
            rc = sort_push(s, track_input(t, r->track), r, e);
        }
    const tr_event_rec *h = s->heap.data;
    for (size_t i = 0; i < s->heap.len && rc == TR_OK; i++)
        rc = sort_push(s, track_input(t, h[i].track), &h[i], e);
    window_clear(s);
    return rc;
}

/* Hands out the records that start before LOW: no record to come can go before them. */
static int window_send(tr_stream *s, const tr_trace *t, int64_t low, tr_error *e)
{
    int rc = TR_OK;
    const tr_event_rec *first;
    while (rc == TR_OK && window_len(s) && (window_first(s, &first), first->ts < low)) {
        window_pop(s, &s->cur);
        rc = s->emit(s->emit_user, t, &s->cur, e);
        s->sent++;
    }
    if (low > s->sent_to) s->sent_to = low;
    return rc;
}

/* A record for a time that went out already: the input broke its reader's promise. */
static int stream_late(tr_stream *s, const tr_trace *t, uint32_t in, const tr_event_rec *r,
                       tr_error *e)
{
    s->late = 1;
    const tr_input_info *info = tr_input_get(t, in);
    tr_loc loc = {info ? tr_str_get(t, info->path, NULL) : NULL, 0, 0, 0};
    return tr_errorf(e, TR_E_FORMAT, &loc,
                     "an event at %.9f s comes after the events up to %.9f s were written: the "
                     "input is not in time order (with -o FILE it is sorted instead)",
                     (double)r->ts / 1e9, (double)s->sent_to / 1e9);
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

/* A finished record of input IN goes out at once (any_order), or waits in the window or sorter. */
static int stream_route(tr_stream *s, uint32_t in, const tr_event_rec *r, tr_error *e)
{
    if (s->any_order && s->emit) {
        s->sent++;
        return s->emit(s->emit_user, s->t, r, e);
    }
    if (!s->window) return sort_push(s, in, r, e);
    return window_push(s, r) == TR_OK ? TR_OK : tr_error_nomem(e);
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
    if (s->sent && r->ts < s->sent_to) return stream_late(s, t, in, r, e);
    if (!open) return stream_route(s, in, r, e);
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
        if (rc == TR_OK) rc = stream_route(s, in, &r, e);
    }
    s->open.len = s->open_input.len = keep;
    return rc;
}

/* Where the records still to come can start: the reader's promise, and the slices still open. */
static int64_t stream_low(const tr_stream *s, const tr_batch *b)
{
    int64_t low = b->low;
    const tr_event_rec *held = s->open.data;
    for (size_t i = 0; i < s->open.len; i++)
        if (held[i].ts < low) low = held[i].ts;
    return low;
}

static int batch_empty(const tr_batch *b)
{
    for (int k = 0; k < TR_EV_KIND_COUNT; k++)
        if (b->end[k] > b->first[k]) return 0;
    return 1;
}

/* After a batch: the window hands out what it can, or is given up when the reader promises nothing.
 */
static int stream_after(tr_stream *s, const tr_trace *t, const tr_batch *b, tr_error *e)
{
    if (!s->window) return TR_OK;
    if (b->low == INT64_MIN && !batch_empty(b)) return window_close(s, t, e);
    int rc = window_send(s, t, stream_low(s, b), e);
    /* As the sorters spill: a model bigger than the budget alone is no reason to sort. */
    /* counted as the sorter would hold them, so the window gives way where the sorter spills */
    size_t held = window_len(s) * s->sort_opts.rec_size;
    if (rc == TR_OK && held >= s->budget / 8 &&
        held + tr_trace_memory(t) + b->reader_bytes > s->budget)
        rc = window_close(s, t, e);
    return rc;
}

/* Bytes of records the sorters hold. */
static size_t sorts_held(const tr_stream *s)
{
    size_t held = 0;
    for (size_t i = 0; i < s->sorts.len; i++) {
        tr_sorter *so = TR_VEC_AT(&s->sorts, tr_sorter *, i);
        if (so) held += tr_sorter_held(so);
    }
    return held;
}

/* Waits for every sorter's work behind but the one of input KEEP: one thread behind at a time. */
static int sorts_wait(tr_stream *s, size_t keep, tr_error *e)
{
    int rc = TR_OK;
    for (size_t i = 0; i < s->sorts.len && rc == TR_OK; i++) {
        tr_sorter *so = TR_VEC_AT(&s->sorts, tr_sorter *, i);
        if (so && i != keep) rc = tr_sorter_wait(so, e);
    }
    return rc;
}

/*
** With work behind: the current input's records spill on a thread once a
** second buffer as big as theirs would not fit beside what is held (the
** run still being written included), so both stay within the budget.
*/
static int sorts_behind(tr_stream *s, size_t held, size_t kept, tr_error *e)
{
    tr_sorter *so = s->input < s->sorts.len ? TR_VEC_AT(&s->sorts, tr_sorter *, s->input) : NULL;
    size_t live = so ? tr_sorter_held(so) - tr_sorter_behind(so) : 0;
    if (live < s->budget / 16 || held + live + kept <= s->budget) return TR_OK;
    int rc = sorts_wait(s, s->input, e);
    return rc == TR_OK ? tr_sorter_spill_behind(so, e) : rc;
}

/*
** The model's dictionaries, the reader's own (tr_batch.reader_bytes) and
** the flows take their share of the budget: past it, every sorter spills.
*/
static int sorts_fit(tr_stream *s, const tr_trace *t, const tr_batch *b, tr_error *e)
{
    size_t held = sorts_held(s),
           kept = tr_trace_memory(t) + b->reader_bytes + s->flows.len * sizeof(tr_flow);
    if (held < s->budget / 8 || held + kept <= s->budget)
        return s->behind ? sorts_behind(s, held, kept, e) : TR_OK;
    size_t n = 0;
    for (size_t i = 0; i < s->sorts.len; i++) n += TR_VEC_AT(&s->sorts, tr_sorter *, i) != NULL;
    /* what the others leave is shared out, so the buffers stay within it too */
    size_t room = kept < s->budget ? (s->budget - kept) / n : 0;
    int rc = TR_OK;
    for (size_t i = 0; i < s->sorts.len && rc == TR_OK; i++) {
        tr_sorter *so = TR_VEC_AT(&s->sorts, tr_sorter *, i);
        if (so) rc = tr_sorter_spill(so, room, e);
    }
    return rc;
}

/* An end that names no event read names kind TR_EV_KIND_COUNT. */
static tr_ref flow_end_check(const tr_stream *s, tr_ref r)
{
    int kind = TR_REF_KIND(r);
    if (kind >= 0 && kind < TR_EV_KIND_COUNT && TR_REF_ROW(r) < s->seq[kind]) return r;
    return TR_REF(TR_EV_KIND_COUNT, TR_REF_ROW(r));
}

/* The flows of batch B, their ends shifted from rows in B's input to seqs in the stream. */
static int stream_take_flows(tr_stream *s, const tr_trace *t, const tr_batch *b, tr_error *e)
{
    for (size_t i = b->flow_first; i < b->flow_end && !s->no_flows; i++) {
        tr_flow f;
        tr_flow_get(t, (uint32_t)i, &f);
        tr_ref *end[] = {&f.from, &f.to};
        for (int j = 0; j < 2; j++) {
            int k = TR_REF_KIND(*end[j]);
            if (k >= 0 && k < TR_EV_KIND_COUNT)
                *end[j] = TR_REF(k, TR_REF_ROW(*end[j]) + (uint32_t)s->base[k]);
        }
        if (s->flow_fn) {
            /* A batch's flows name events of it or of batches before: all read by now. */
            f.from = flow_end_check(s, f.from);
            f.to = flow_end_check(s, f.to);
            int rc = s->flow_fn(s->flow_user, &f, e);
            if (rc != TR_OK) return rc;
            continue;
        }
        tr_flow *at = tr_vec_push(&s->flows);
        if (!at) return tr_error_nomem(e);
        *at = f;
    }
    return TR_OK;
}

int tr_stream_consume(void *user, const tr_trace *t, const tr_batch *b, tr_error *e)
{
    tr_stream *s = user;
    int rc = TR_OK;
    s->t = t;
    if (b->input != s->input) {
        s->input = b->input;
        memcpy(s->base, s->seq, sizeof s->base);
    }
    for (int k = 0; k < TR_EV_KIND_COUNT && rc == TR_OK; k++) {
        for (size_t i = b->first[k]; i < b->end[k] && rc == TR_OK; i++) {
            tr_event_rec r;
            rec_fill(t, k, i, &r);
            r.seq = s->seq[k]++;
            rc = stream_take(s, t, &r, e);
        }
    }
    if (rc == TR_OK) rc = stream_take_flows(s, t, b, e);
    if (rc == TR_OK && b->last) rc = stream_close_open(s, t, b->input, e);
    if (rc == TR_OK) rc = stream_after(s, t, b, e);
    if (rc == TR_OK) rc = sorts_fit(s, t, b, e);
    /* An input read: its last records are sorted (or spilled) behind as the next is read. */
    if (rc == TR_OK && b->last && s->behind && !s->window && b->input < s->sorts.len &&
        TR_VEC_AT(&s->sorts, tr_sorter *, b->input)) {
        rc = sorts_wait(s, b->input, e);
        if (rc == TR_OK) rc = tr_sorter_end(TR_VEC_AT(&s->sorts, tr_sorter *, b->input), e);
    }
    return rc;
}

/* ---- the merge of the inputs ---- */

/* The next record of input IN's sorter onto the merge heap, shifted by its track's offset. */
static int merge_pull(tr_stream *s, uint32_t in, tr_error *e)
{
    tr_sorter *so = in < s->sorts.len ? TR_VEC_AT(&s->sorts, tr_sorter *, in) : NULL;
    const void *rec;
    int rc = so ? tr_sorter_next(so, &rec, e) : TR_END;
    if (rc != TR_OK) return rc == TR_END ? TR_OK : rc;
    tr_event_rec r;
    memcpy(&r, rec, s->sort_opts.rec_size);
    if (s->sort_opts.rec_size < sizeof r) r.thread_ts = r.thread_dur = TR_TIME_NONE;
    if (r.track < s->n_place && s->place[r.track].offset)
        r.ts = tr_time_add(r.ts, s->place[r.track].offset);
    return heap_push(&s->merge, &r, s->sort_opts.cmp) == TR_OK ? TR_OK : tr_error_nomem(e);
}

/* The next record of the merge into *R: TR_OK, TR_END or a failure. */
static int merge_step(tr_stream *s, tr_event_rec *r, tr_error *e)
{
    if (!s->merge.len) return TR_END;
    heap_pop(&s->merge, r, s->sort_opts.cmp);
    uint32_t in = r->track < s->n_place ? s->place[r->track].input : 0;
    return merge_pull(s, in, e);
}

/* Fills the blocks in turn until the merge ends, fails or the writer stops it. */
static int feed_job(void *user, size_t job)
{
    (void)job;
    tr_stream *s = user;
    feed *f = s->feed;
    tr_error e = {0};
    int rc = TR_OK;
    for (int b = 0; rc == TR_OK; b ^= 1) {
        pthread_mutex_lock(&f->lock);
        while (f->full[b] && !f->stop) pthread_cond_wait(&f->turn, &f->lock);
        int stop = f->stop;
        pthread_mutex_unlock(&f->lock);
        if (stop) break;
        size_t n = 0;
        while (n < FEED_RECS && (rc = merge_step(s, &f->block[b][n], &e)) == TR_OK) n++;
        pthread_mutex_lock(&f->lock);
        f->n[b] = n;
        f->full[b] = 1;
        if (rc != TR_OK && rc != TR_END) {
            f->rc = rc;
            f->err = e;
        }
        pthread_cond_broadcast(&f->turn);
        pthread_mutex_unlock(&f->lock);
    }
    pthread_mutex_lock(&f->lock);
    f->done = 1;
    pthread_cond_broadcast(&f->turn);
    pthread_mutex_unlock(&f->lock);
    return TR_OK;
}

/* Starts the merge on a thread of its own; 0 when out of memory (the caller merges itself). */
static int feed_start(tr_stream *s)
{
    feed *f = tr_calloc(1, sizeof *f);
    tr_event_rec *blocks = f ? tr_malloc(2 * FEED_RECS * sizeof *blocks) : NULL;
    if (!blocks) {
        tr_free(f);
        return 0;
    }
    f->block[0] = blocks;
    f->block[1] = blocks + FEED_RECS;
    pthread_mutex_init(&f->lock, NULL);
    pthread_cond_init(&f->turn, NULL);
    s->feed = f;
    tr_pool_spawn(&f->task, feed_job, s);
    return 1;
}

/* Stops the merge's thread and frees its blocks.  ^NULL is a no-op. */
static void feed_stop(tr_stream *s)
{
    feed *f = s->feed;
    if (!f) return;
    pthread_mutex_lock(&f->lock);
    f->stop = 1;
    pthread_cond_broadcast(&f->turn);
    pthread_mutex_unlock(&f->lock);
    tr_pool_join(&f->task);
    pthread_cond_destroy(&f->turn);
    pthread_mutex_destroy(&f->lock);
    tr_free(f->block[0]);
    tr_free(f);
    s->feed = NULL;
}

/* The next record from the merge's thread: the writer's block, then the next one filled. */
static int feed_next(tr_stream *s, const tr_event_rec **ev, tr_error *e)
{
    feed *f = s->feed;
    if (f->holding && f->pos < f->n[f->cur]) {
        *ev = &f->block[f->cur][f->pos++];
        return TR_OK;
    }
    pthread_mutex_lock(&f->lock);
    if (f->holding) {
        f->full[f->cur] = 0;
        f->cur ^= 1;
        f->holding = 0;
        pthread_cond_broadcast(&f->turn);
    }
    while (!f->full[f->cur] && !f->done) pthread_cond_wait(&f->turn, &f->lock);
    int got = f->full[f->cur] && f->n[f->cur] > 0, rc = f->rc;
    if (got) f->holding = 1;
    if (!got && rc) *e = f->err;
    pthread_mutex_unlock(&f->lock);
    if (!got) return rc ? rc : TR_END;
    f->pos = 0;
    *ev = &f->block[f->cur][f->pos++];
    return TR_OK;
}

static int merge_start(tr_stream *s, tr_error *e)
{
    s->merging = 1;
    size_t n = s->t ? tr_track_count(s->t) : 0;
    s->place = tr_malloc((n ? n : 1) * sizeof *s->place);
    if (!s->place) return tr_error_nomem(e);
    for (size_t i = 0; i < n; i++) {
        const tr_process *p = tr_process_get(s->t, tr_track_get(s->t, (uint32_t)i)->process);
        s->place[i] = (track_place){p ? p->offset_ns : 0, p ? p->input : 0};
    }
    s->n_place = n;
    int rc = TR_OK;
    for (size_t i = 0; i < s->sorts.len && rc == TR_OK; i++) rc = merge_pull(s, (uint32_t)i, e);
    if (rc == TR_OK && s->behind) feed_start(s);
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
    tr_vec_init(&s->heap, sizeof(tr_event_rec));
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) tr_vec_init(&s->queue[k], sizeof(tr_event_rec));
    tr_vec_init(&s->merge, sizeof(tr_event_rec));
    tr_vec_init(&s->sorts, sizeof(tr_sorter *));
    tr_vec_init(&s->flows, sizeof(tr_flow));
    s->budget = o->memory;
    s->sent_to = INT64_MIN;
    s->sort_all = o->sort_all;
    s->any_order = o->any_order;
    s->no_flows = o->no_flows;
    s->behind = o->behind;
    s->sort_opts =
        (tr_sorter_opts){.rec_size = o->thread_time ? sizeof(tr_event_rec) : TR_EVENT_REC_BARE,
                         .cmp = o->samples_last ? rec_cmp_samples_last : rec_cmp,
                         .budget = o->memory,
                         .tmpdir = o->tmpdir,
                         .free_bytes = o->free_bytes};
    return TR_OK;
}

void tr_stream_set_flows(tr_stream *s, tr_stream_flow_fn fn, void *user)
{
    s->flow_fn = fn;
    s->flow_user = user;
}

void tr_stream_set_emit(tr_stream *s, tr_stream_emit_fn fn, void *user)
{
    s->emit = fn;
    s->emit_user = user;
    s->window = fn != NULL && !s->sort_all && !s->any_order;
}

int tr_stream_next(tr_stream *s, const tr_event_rec **ev, tr_error *e)
{
    if (s->window) {
        if (!window_len(s)) return TR_END;
        window_pop(s, &s->cur);
        *ev = &s->cur;
        return TR_OK;
    }
    int rc = s->merging ? TR_OK : merge_start(s, e);
    if (rc != TR_OK) return rc;
    if (s->feed) return feed_next(s, ev, e);
    if ((rc = merge_step(s, &s->cur, e)) != TR_OK) return rc;
    *ev = &s->cur;
    return TR_OK;
}

tr_flow *tr_stream_flows(tr_stream *s, size_t *n)
{
    tr_flow *f = s->flows.data;
    for (size_t i = 0; i < s->flows.len && !s->flows_checked; i++) {
        f[i].from = flow_end_check(s, f[i].from);
        f[i].to = flow_end_check(s, f[i].to);
    }
    s->flows_checked = 1;
    *n = s->flows.len;
    return f;
}

uint64_t tr_stream_runs(const tr_stream *s)
{
    uint64_t runs = s->runs_past;
    for (size_t i = 0; i < s->sorts.len; i++) {
        tr_sorter *so = TR_VEC_AT(&s->sorts, tr_sorter *, i);
        if (so) runs += tr_sorter_runs(so);
    }
    return runs;
}

uint64_t tr_stream_sent(const tr_stream *s)
{
    return s->sent_past + s->sent;
}

int tr_stream_late(const tr_stream *s)
{
    return s->late;
}

void tr_stream_reset(tr_stream *s)
{
    feed_stop(s);
    tr_free(s->place);
    s->place = NULL;
    s->n_place = 0;
    s->runs_past = tr_stream_runs(s);
    s->sent_past += s->sent;
    for (size_t i = 0; i < s->sorts.len; i++) tr_sorter_close(TR_VEC_AT(&s->sorts, tr_sorter *, i));
    s->sorts.len = s->merge.len = s->open.len = s->open_input.len = s->end.len = 0;
    s->flows.len = 0;
    window_clear(s);
    s->t = NULL;
    s->merging = s->late = s->flows_checked = 0;
    s->sent = 0;
    s->sent_to = INT64_MIN;
    s->input = 0;
    memset(s->seq, 0, sizeof s->seq);
    memset(s->base, 0, sizeof s->base);
    s->window = s->emit != NULL && !s->sort_all && !s->any_order;
}

void tr_stream_close(tr_stream *s)
{
    if (!s) return;
    feed_stop(s);
    tr_free(s->place);
    for (size_t i = 0; i < s->sorts.len; i++) tr_sorter_close(TR_VEC_AT(&s->sorts, tr_sorter *, i));
    tr_vec_fini(&s->sorts);
    tr_vec_fini(&s->merge);
    tr_vec_fini(&s->open);
    tr_vec_fini(&s->open_input);
    tr_vec_fini(&s->end);
    tr_vec_fini(&s->heap);
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) tr_vec_fini(&s->queue[k]);
    tr_vec_fini(&s->flows);
    tr_free(s);
}
