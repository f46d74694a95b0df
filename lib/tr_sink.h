/*
** tr_sink.h: where readers put what they read, batch by batch.
**
** A reader appends through a sink into the sink's trace (tr_sink_trace).
** Strings, inputs, processes, tracks, frames, stacks and arg sets are
** dictionaries that persist for the whole load; events (slices, instants,
** counters, samples) and flows are appended to the trace's tables.  The
** loader (lib/load.c) calls a reader's next() again and again, each call a
** bounded amount of work (TR_READ_BATCH in tr_reader.h); after each call it
** hands the events appended since the previous one -- a batch -- to the
** sink's consumer.  The model builder is the sink without a consumer: every
** event stays in the trace for what needs all of it (freeze, analyses,
** writers).  A consumer sees the rows in the trace itself, so it may read
** the dictionaries of any event it is handed.
**
** What a reader may still touch after a batch was handed out, so that a
** consumer that forgets events (a streaming writer) knows what to hold:
**   - open slices: a slice appended with dur -1 stays open until a later
**     tr_slice_end or, failing that, freeze (GT's unanswered requests);
**   - stated parents: on a TR_NEST_GIVEN track, tr_slice_set_parent names a
**     slice of an earlier batch as the parent (Recorder's call levels);
**   - flows: tr_flow_add may name events of any earlier batch of the same
**     input (Chrome binds flow points to slices when its input ends; GT
**     links a reply to its request); when the sink forgets, by their rows
**     in the whole load (tr_sink.dropped);
**   - reading back: a reader may read the rows it appended for its input
**     unless it streams (tr_reader.streams);
**   - dictionary rows: process and track names, ranks and sort indexes, and
**     the input's info (origin, clock, metadata, counts) may be set or
**     changed until the input's last batch (Chrome's "M" events rename a
**     thread whenever they come).
** Strings and arg sets never change once made; the other fields of an event
** are final in its batch.
*/
#ifndef TR_SINK_H
#define TR_SINK_H

#include <stddef.h>
#include <stdint.h>

#include "tr_error.h"
#include "tr_trace.h"

/* The events one call of a reader's next() appended: rows [first, end) of each table. */
typedef struct tr_batch {
    uint32_t input;                 /* the input they belong to */
    int last;                       /* the input's last batch: its reader has ended */
    size_t first[TR_EV_KIND_COUNT]; /* indexed by enum tr_event_kind */
    size_t end[TR_EV_KIND_COUNT];
    size_t flow_first, flow_end; /* tr_flow_get rows */
    int64_t low;                 /* tr_sink.low when the batch was handed out */
    size_t reader_bytes;         /* tr_sink.reader_bytes when the batch was handed out */
} tr_batch;

/* A consumer: TR_OK, or a negative code that stops the load with E filled. */
typedef int (*tr_sink_fn)(void *user, const tr_trace *t, const tr_batch *b, tr_error *e);

typedef struct tr_sink {
    tr_trace *t;
    tr_sink_fn fn; /* NULL: the model builder */
    void *user;
    size_t mark[TR_EV_KIND_COUNT]; /* rows handed out so far */
    size_t flow_mark;
    /*
    ** forget: the consumer keeps what it is handed, so the trace may drop
    ** the rows after each batch (tr_trace_drop_events).  It does so where
    ** the reader allows (forget_now, set by tr_read from tr_reader.streams)
    ** and always after an input's last batch.
    */
    int forget, forget_now;
    /*
    ** low: the reader's promise that every event it appends from now on
    ** starts at or after LOW, and that the dictionary rows of the events
    ** appended so far are final (INT64_MIN: no promise; tr_read sets that
    ** before a reader starts).  A consumer may then hand on the events that
    ** start before LOW before the input ends (tr_stream.h).
    */
    int64_t low;
    /*
    ** Rows of each kind dropped so far: row R of the trace now is row
    ** dropped[kind] + R of the whole load, the number a stream gives it
    ** (tr_event_rec.seq) and the one a reader that forgets names in flows.
    */
    size_t dropped[TR_EV_KIND_COUNT];
    /*
    ** reader_bytes: what the reader holds of its own that grows with the
    ** input (Chrome's flow identities), for a consumer whose budget counts
    ** the trace's memory (tr_trace_memory) to count as well.
    */
    size_t reader_bytes;
} tr_sink;

/*
** tr_sink_init: a sink into T
** ^FN (may be NULL) is called with USER for every batch; ^events already in
** T are not part of any batch.
*/
void tr_sink_init(tr_sink *s, tr_trace *t, tr_sink_fn fn, void *user);

/* ^The trace readers append to. */
static inline tr_trace *tr_sink_trace(const tr_sink *s)
{
    return s->t;
}

/*
** tr_sink_expect: what a reader is about to append (tr_trace_expect)
** ^For an input of SIZE bytes (tr_input_size; 0: unknown, no hint) whose
** format spends PER's bytes on each item (an event of each kind, an arg
** value, a set, a stack, a flow; 0: none expected).  ^A sink that forgets
** its rows after each batch holds no more than one batch, and its budget
** counts the trace's room (tr_trace_memory), so it takes only the stacks
** of the hint: those it keeps.
*/
void tr_sink_expect(tr_sink *s, uint64_t size, const tr_expect *per);

/*
** tr_sink_flush: hand out a batch
** ^Calls the consumer with the events appended to input INPUT since the
** previous flush (an empty batch too when LAST, so the consumer learns the
** input ended) and returns what it returns; TR_OK without a consumer.
** ^With S->forget set, the rows handed out are then dropped from the trace
** when S->forget_now or LAST.
*/
int tr_sink_flush(tr_sink *s, uint32_t input, int last, tr_error *e);

#endif
