/* sink.c: handing what readers append to a consumer, batch by batch (tr_sink.h). */
#include "tr_sink.h"

#include <string.h>

/* The rows each event table and the flow table hold now. */
static void sink_counts(const tr_trace *t, size_t n[TR_EV_KIND_COUNT], size_t *flows)
{
    tr_trace_event_counts(t, n);
    *flows = tr_flow_count(t);
}

/* The earliest time among the rows of T, all of batch B's input, about to be dropped: for tr_align.
 */
static void sink_note_first(tr_trace *t, const tr_batch *b)
{
    tr_input_info *in = tr_input_at(t, b->input);
    if (!in) return;
    tr_slices sl;
    tr_instants it;
    tr_counters ct;
    tr_samples sm;
    tr_trace_slices(t, &sl);
    tr_trace_instants(t, &it);
    tr_trace_counters(t, &ct);
    tr_trace_samples(t, &sm);
    const int64_t *ts[TR_EV_KIND_COUNT];
    ts[TR_EV_SLICE] = sl.ts;
    ts[TR_EV_INSTANT] = it.ts;
    ts[TR_EV_COUNTER] = ct.ts;
    ts[TR_EV_SAMPLE] = sm.ts;
    for (int k = 0; k < TR_EV_KIND_COUNT; k++)
        for (size_t i = 0; i < b->end[k]; i++)
            if (ts[k][i] < in->dropped_first_ts) in->dropped_first_ts = ts[k][i];
}

void tr_sink_init(tr_sink *s, tr_trace *t, tr_sink_fn fn, void *user)
{
    memset(s, 0, sizeof *s);
    s->t = t;
    s->fn = fn;
    s->user = user;
    sink_counts(t, s->mark, &s->flow_mark);
    s->low = INT64_MIN;
}

/* SIZE / PER: the items of PER bytes each in SIZE bytes (none when PER is 0). */
static size_t per_bytes(uint64_t size, size_t per)
{
    return per ? (size_t)(size / per) : 0;
}

void tr_sink_expect(tr_sink *s, uint64_t size, const tr_expect *per)
{
    if (!size) return;
    tr_expect x = {{0}, 0, 0, 0, 0, 0, 0};
    /*
    ** A forgetting sink drops the events, args and flows of every batch, so
    ** room for them all would be wasted; the stacks stay (they are how a
    ** sample is named), and growing their index by doubling rehashes it
    ** again and again.
    */
    if (!s->forget) {
        for (int k = 0; k < TR_EV_KIND_COUNT; k++) x.events[k] = per_bytes(size, per->events[k]);
        x.args = per_bytes(size, per->args);
        x.sets = per_bytes(size, per->sets);
        x.flows = per_bytes(size, per->flows);
        /* Room for strings counts in the budget that decides when a forgetting sink spills. */
        x.strs = per_bytes(size, per->strs);
        x.text = per_bytes(size, per->text);
    }
    x.stacks = per_bytes(size, per->stacks);
    tr_trace_expect(s->t, &x);
}

int tr_sink_flush(tr_sink *s, uint32_t input, int last, tr_error *e)
{
    if (!s->fn) return TR_OK;
    tr_batch b = {.input = input,
                  .last = last,
                  .flow_first = s->flow_mark,
                  .low = s->low,
                  .reader_bytes = s->reader_bytes};
    sink_counts(s->t, b.end, &b.flow_end);
    int empty = b.flow_end == b.flow_first;
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) {
        b.first[k] = s->mark[k];
        empty &= b.end[k] == b.first[k];
    }
    if (empty && !last) return TR_OK;
    memcpy(s->mark, b.end, sizeof s->mark);
    s->flow_mark = b.flow_end;
    int rc = s->fn(s->user, s->t, &b, e);
    if (rc == TR_OK && s->forget && (s->forget_now || last)) {
        for (int k = 0; k < TR_EV_KIND_COUNT; k++) s->dropped[k] += b.end[k];
        sink_note_first(s->t, &b);
        tr_trace_drop_events(s->t);
        memset(s->mark, 0, sizeof s->mark);
        s->flow_mark = 0;
    }
    return rc;
}
