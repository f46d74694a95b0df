/*
** tr_rows.h: what freeze gives each event, derived on a stream
** (lib/rows.c), for the writers that store rows by id (SQLite, Parquet)
** and the analyses that read a stream (tr_analysis.h).
**
** A stream (tr_stream.h) hands events out in tr_iter's order, which within
** each kind is the order of the frozen model's rows: the N-th slice handed
** out is slice row N.  So the rows are counted, a slice's depth and parent
** come from a stack of the slices still open on its track (freeze's
** nest_slices, the same rules), and the row each event got is kept by its
** seq, 4 bytes an event, so that flows (whose ends name events by seq) are
** bound to rows at the end.  Tracks whose nesting is given (Recorder) are
** not streamed: their parents name rows the stream does not keep.
*/
#ifndef TR_ROWS_H
#define TR_ROWS_H

#include <stdint.h>

#include "tr_mem.h"
#include "tr_stream.h"
#include "tr_trace.h"

/* One event of a stream with what freeze gives it: its row, a slice's depth and parent. */
typedef struct tr_row_event {
    tr_event_rec rec;
    uint64_t row;
    uint32_t depth, parent;
    int64_t parent_ts; /* the parent's start (TR_TIME_NONE without one): the analyses' nesting */
} tr_row_event;

typedef struct tr_rows {
    uint64_t n[TR_EV_KIND_COUNT];      /* events handed out so far: the next row of each kind */
    tr_vec row_of[TR_EV_KIND_COUNT];   /* uint32_t by seq: the row the event got */
    tr_vec track_of[TR_EV_KIND_COUNT]; /* uint32_t by row: its track, when TRACKS is set */
    tr_vec open;                       /* tr_vec of rows_open, per track: its open slices */
    int tracks;                        /* keep track_of */
    int bind_flows;                    /* keep row_of, for tr_rows_flows (1 after tr_rows_init) */
} tr_rows;

/*
** ^Starts R; ^with TRACKS set it keeps each row's track (tr_rows_track).
** ^A caller that binds no flows clears R->bind_flows: the 4 bytes an event
** of row_of are then not kept.
*/
void tr_rows_init(tr_rows *r, int tracks);
/* ^Frees what R holds. */
void tr_rows_fini(tr_rows *r);
/* ^Fills OUT with EV, its row, and a slice's depth and parent.  ^TR_OK or TR_FATAL. */
int tr_rows_next(tr_rows *r, const tr_event_rec *ev, tr_row_event *out);
/*
** tr_rows_flows: bind flow ends to rows
** ^Rewrites the ends of the N flows at F (as tr_stream_flows gives them)
** from (kind, seq) to (kind, row); ^an end that names no event keeps the
** kind TR_EV_KIND_COUNT.  ^Call it after the last event.
*/
void tr_rows_flows(const tr_rows *r, tr_flow *f, size_t n);
/* ^The track of the event at flow end REF (bound by tr_rows_flows), TR_NONE when unknown. */
uint32_t tr_rows_track(const tr_rows *r, tr_ref ref);

#endif
