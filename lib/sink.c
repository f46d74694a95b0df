/* sink.c: handing what readers append to a consumer, batch by batch (tr_sink.h). */
#include "tr_sink.h"

#include <string.h>

/* The rows each event table and the flow table hold now. */
static void sink_counts(const tr_trace *t, size_t n[TR_EV_KIND_COUNT], size_t *flows)
{
    tr_trace_event_counts(t, n);
    *flows = tr_flow_count(t);
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

int tr_sink_flush(tr_sink *s, uint32_t input, int last, tr_error *e)
{
    if (!s->fn) return TR_OK;
    tr_batch b = {.input = input, .last = last, .flow_first = s->flow_mark, .low = s->low};
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
        tr_trace_drop_events(s->t);
        for (int k = 0; k < TR_EV_KIND_COUNT; k++) s->dropped[k] += b.end[k];
        memset(s->mark, 0, sizeof s->mark);
        s->flow_mark = 0;
    }
    return rc;
}
