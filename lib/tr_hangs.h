/*
** tr_hangs.h: why is the job stuck? The checks that read hangs from events
** rather than stacks (stacks: tr_stree.h), for every format.
**
**   lanes        every lane's last record and how long before the end of
**                the trace it came: the lane silent longest first
**   requests     GT: client requests received and never answered (the
**                reader marks them unfinished), per client
**   round trips  GT: synchronous worker round trips (WorkerGetData,
**                WorkerCompile*, WorkerGetStats) sent with no WORKER_RECV
**                after them on that worker; batches are logged after they
**                return, and fire-and-forget sends never get one
**   collectives  per rank, the count of every collective: MPI collectives
**                (Recorder, tracerecord), NCCL kernels by operation
**                (ncclKernel_AllReduce_... is "nccl AllReduce") and the CPU
**                ops that launch them (record_param_comms, nccl:*, c10d::*);
**                a rank whose count differs from the most common one is
**                named, with its last collective
**   ranks        each rank's last call, and whether the rank was in a
**                collective, in I/O or idle (its last call ended more than
**                1% of the span before the end) when the trace ends
**   streams      the last kernel of every GPU stream
*/
#ifndef TR_HANGS_H
#define TR_HANGS_H

#include <stddef.h>
#include <stdint.h>

#include "tr_error.h"
#include "tr_mem.h"
#include "tr_rows.h"
#include "tr_trace.h"

typedef struct tr_hang_lane {
    uint32_t track;
    int64_t last;       /* the end of its last record */
    tr_str name;        /* of that record */
    int64_t before_end; /* trace end - last */
} tr_hang_lane;

/* Requests a GT client got no answer to, or round trips a worker never returned. */
typedef struct tr_hang_wait {
    uint32_t track;
    uint32_t count;
    int64_t first_ts;  /* the oldest one */
    int64_t first_seq; /* its instruction id, -1 when none */
    tr_str what;       /* its command */
} tr_hang_wait;

enum tr_rank_state { TR_RANK_IDLE = 0, TR_RANK_COLLECTIVE, TR_RANK_IO, TR_RANK_OTHER };

typedef struct tr_hang_rank {
    int32_t rank;
    tr_str last_call;            /* its last top-level call (0: none) */
    int64_t last_end;            /* when it ended */
    int state;                   /* enum tr_rank_state at the end of the trace */
    const char *last_collective; /* NULL: none */
    int64_t last_collective_ts;
    int in_flight; /* its last call was entered and never returned (arg "unfinished": 1) */
} tr_hang_rank;

/* One collective: how many times each rank made it. */
typedef struct tr_hang_collective {
    const char *name;
    uint32_t *counts; /* per entry of tr_hangs.ranks */
    uint32_t mode;    /* the most common count (the larger on a tie) */
    uint32_t odd;     /* ranks whose count is not the mode */
} tr_hang_collective;

typedef struct tr_hang_stream {
    uint32_t track;
    tr_str kernel;
    int64_t end;
} tr_hang_stream;

typedef struct tr_hangs {
    int64_t start, end;  /* the trace's span */
    tr_hang_lane *lanes; /* silent longest first */
    size_t n_lanes;
    tr_hang_wait *requests, *round_trips;
    size_t n_requests, n_round_trips;
    tr_hang_rank *ranks; /* by rank */
    size_t n_ranks;
    tr_hang_collective *collectives; /* the ones with odd ranks first, then by name */
    size_t n_collectives;
    tr_hang_stream *streams;
    size_t n_streams;
    tr_arena names; /* the collectives' names */
} tr_hangs;

/* ^Fills OUT; TR_OK, or TR_FATAL with E filled (OUT then empty and safe to fini). */
int tr_hangs_compute(const tr_trace *t, tr_hangs *out, tr_error *e);
void tr_hangs_fini(tr_hangs *h);

/*
** The checks as an accumulator (tr_analysis.h's "Events one at a time"):
** per track its last slice and instant, its open GT request count and
** round trip, its GPU stream's last kernel; per rank its last call and
** collective counts; the span.  ^tr_hangs_compute feeds the model's rows
** through it.
*/
typedef struct tr_hangs_acc tr_hangs_acc;
int tr_hangs_acc_new(const tr_trace *t, tr_hangs_acc **out, tr_error *e);
int tr_hangs_acc_add(tr_hangs_acc *a, const tr_row_event *ev, tr_error *e);
int tr_hangs_acc_end(tr_hangs_acc *a, tr_hangs *out, tr_error *e);
void tr_hangs_acc_free(tr_hangs_acc *a);

/* ^The collective a slice name counts as ("nccl AllReduce" for an NCCL kernel), or NULL. */
const char *tr_hangs_collective(const char *name, char *buf, size_t size);
/* ^The state's word: "idle", "in a collective", "in I/O", "computing". */
const char *tr_rank_state_name(int state);

/*
** ^Appends the checks as text, LIMIT rows per list (0 = all): with ALL every
** list, else only what points at a hang (requests and round trips left
** open, collectives whose counts differ).
*/
int tr_hangs_text(const tr_trace *t, const tr_hangs *h, size_t limit, int all, tr_buf *b);
/* ^Whether H found anything that points at a hang (what tr_hangs_text prints without ALL). */
int tr_hangs_found(const tr_hangs *h);
/* ^Appends the checks as one JSON object. */
int tr_hangs_json(const tr_trace *t, const tr_hangs *h, tr_buf *b);

#endif
