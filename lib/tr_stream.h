/*
** tr_stream.h: events in the model's order without keeping them in the
** model: the consumer side of streaming conversion.
**
** A stream is a sink consumer (tr_sink.h): it copies each event it is
** handed into a record, derives what freeze would (open slices closed at
** their input's end, the sort key of slices on tracks whose nesting is
** given) and pushes the record into an external sorter (tr_sorter.h).
** Reading back yields the records in tr_iter's order: by time, slices
** (longer first) before instants, counters and samples, then the order
** they were appended in, so a writer that formats records gives the bytes
** it gives for the frozen model.  Strings, args, tracks, processes and
** stacks stay in the trace: records name them by id.
**
** The budget is for the records and the model together: when the model's
** dictionaries (tr_trace_memory) and the records held pass it, the records
** are spilled, in runs of at least an eighth of it.  Each input is sorted
** apart, on its own clock: tr_align shifts an input's events by one offset
** only once all inputs are read, so the inputs are merged at the end, each
** record shifted by its process's offset_ns.  What a stream holds
** besides: the slices left open until their input ends, and each input's
** time span.
**
** With a consumer of its own (tr_stream_set_emit) a stream first keeps its
** records in a reorder window, as Perfetto's sorter does: when the reader
** promises where its later events can start (tr_batch.low: a GT log is in
** time order), the records before that go out at once, so the first lines
** of a big input come before it is read to the end.  A reader that
** promises nothing, or a window that outgrows the budget (at least an
** eighth of it; a request never answered holds the promise back), gives the
** window up: what it holds and
** all later records go through the sorter and come out at the end.  A
** record that breaks the promise (a clock that stepped back) fails the
** load with tr_stream_late set: what went out cannot be taken back, so the
** caller reads again with sort_all.
*/
#ifndef TR_STREAM_H
#define TR_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "tr_error.h"
#include "tr_sink.h"
#include "tr_trace.h"

/*
** One event, whatever its kind: 80 bytes, of which a stream sorts the first
** TR_EVENT_REC_BARE when no input may give thread times (tr_stream_opts).
*/
typedef struct tr_event_rec {
    int64_t ts;
    int64_t dur;   /* slices (never -1 once handed out); -1 for other kinds */
    int64_t bytes; /* slices, instants: -1 = no size */
    int64_t key;   /* slices: the length they sort by, longer first (0: the source's order) */
    uint64_t seq;  /* appended as the SEQ-th event of its kind: the row in the model */
    union {
        double value; /* counters */
        struct {
            tr_str name, cat; /* slices, instants */
        } s;
    } u;
    uint32_t track;
    uint32_t args;  /* slices, instants, samples */
    uint32_t stack; /* samples */
    uint8_t kind;   /* enum tr_event_kind */
    uint8_t scope;  /* instants: enum tr_scope */
    /* slices: the thread clock's start and length (Chrome's tts, tdur); TR_TIME_NONE otherwise */
    int64_t thread_ts, thread_dur;
} tr_event_rec;

/* The bytes of a record before its thread times: all a record of a trace without them needs. */
#define TR_EVENT_REC_BARE offsetof(tr_event_rec, thread_ts)

/* ^Fills R with event EV of frozen trace T (seq: its row), as a stream would hand it out. */
void tr_event_rec_get(const tr_trace *t, const tr_event *ev, tr_event_rec *r);

typedef struct tr_stream_opts {
    size_t memory;       /* the budget in bytes: records held and the model's memory */
    const char *tmpdir;  /* where it spills */
    uint64_t free_bytes; /* free space to assume (tests), 0 = ask the file system */
    int sort_all;        /* no window: every record through the sorter */
    int samples_last;    /* samples after every other event (each part in the model's order) */
    /*
    ** 1: an input may give slices a thread time (tr_reader.thread_time), so
    ** the records keep it; 0: they are sorted and spilled without it, 16
    ** bytes less each, and come out with TR_TIME_NONE.
    */
    int thread_time;
    int no_flows; /* 1: the consumer needs no flows (tracestat): not kept, 32 bytes each */
    /*
    ** 1: records go out through the emit function as they are read, none
    ** held or sorted (a slice still open waits until it ends): for a
    ** consumer that orders what it writes itself, of an input whose times
    ** are not shifted (tr_align: one input, no --align).
    */
    int any_order;
    /*
    ** 1: the sorting goes on beside the reading, on one more thread: runs
    ** are spilled behind (tr_sorter_spill_behind) once a second buffer as
    ** big as the one filling would not fit the budget, and an input's last
    ** records are sorted as the next input is read (tr_sorter_end).
    */
    int behind;
} tr_stream_opts;

/* Where a stream hands out the records it can place before the input ends. */
typedef int (*tr_stream_emit_fn)(void *user, const tr_trace *t, const tr_event_rec *ev,
                                 tr_error *e);

typedef struct tr_stream tr_stream;

int tr_stream_open(tr_stream **s, const tr_stream_opts *o, tr_error *e);
/* ^The tr_sink_fn to load with (tr_load_opts.consume), USER the stream. */
int tr_stream_consume(void *user, const tr_trace *t, const tr_batch *b, tr_error *e);
/*
** tr_stream_set_emit: hand records out while loading
** ^FN is called with USER for each record that no later one can precede,
** in order, while the consumer runs (unless sort_all); tr_stream_next then
** yields the rest.  ^Call it before loading.
*/
void tr_stream_set_emit(tr_stream *s, tr_stream_emit_fn fn, void *user);
/* Where a stream hands out each flow as it is read (tr_stream_set_flows). */
typedef int (*tr_stream_flow_fn)(void *user, const tr_flow *f, tr_error *e);
/*
** tr_stream_set_flows: hand flows out while loading
** ^FN is called with USER for each flow as its batch is read, its ends as
** tr_stream_flows gives them (an end naming no event read so far gets the
** kind TR_EV_KIND_COUNT), instead of keeping it (32 bytes a flow):
** ^tr_stream_flows then gives none.  ^Call it before loading.
*/
void tr_stream_set_flows(tr_stream *s, tr_stream_flow_fn fn, void *user);
/*
** tr_stream_next: the events, once loading is over
** ^Sets *EV (valid until the next call) and returns TR_OK, or TR_END.
*/
int tr_stream_next(tr_stream *s, const tr_event_rec **ev, tr_error *e);
/*
** tr_stream_flows: the flows read, once loading is over
** ^Returns them in the order they were added (a flow's id is its place) and
** sets *N (0 for a stream opened with no_flows).  ^An end names an event
** by its kind and seq (tr_event_rec.seq); ^an end that names no event read
** gets the kind TR_EV_KIND_COUNT.
*/
tr_flow *tr_stream_flows(tr_stream *s, size_t *n);
/* ^Runs the sorters spilled (0: it all fit the budget), before tr_stream_reset too. */
uint64_t tr_stream_runs(const tr_stream *s);
/* ^Records handed out through the emit function while loading, before tr_stream_reset too. */
uint64_t tr_stream_sent(const tr_stream *s);
/* ^1 when the load failed on a record earlier than what went out (see above). */
int tr_stream_late(const tr_stream *s);
/*
** tr_stream_reset: a stream for another load
** ^Drops the records, flows and runs S holds (removing what it spilled) and
** counts events from 0 again, as a stream just opened with its options;
** ^the emit function stays set.
*/
void tr_stream_reset(tr_stream *s);
/* ^Frees S and removes what it spilled.  ^NULL is a no-op. */
void tr_stream_close(tr_stream *s);

#endif
