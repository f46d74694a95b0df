/*
** chrome_writer_impl.h: the Trace Event JSON writer's state, shared by chrome.c
** and chrome_kineto.c.
*/
#ifndef CHROME_WRITER_IMPL_H
#define CHROME_WRITER_IMPL_H

#include "tr_text.h"
#include "tr_writer.h"

/* Appends a string literal. */
#define LIT(b, s) tr_buf_add((b), (s), sizeof(s) - 1)

/* One end of a flow, found again when the iteration reaches its event. */
typedef struct flow_end {
    uint32_t row;  /* the event's row in its table */
    uint32_t flow; /* the flow's row */
    uint32_t is_to;
} flow_end;

typedef struct chrome_w {
    const tr_trace *t;
    tr_output *out;
    tr_buf b;
    tr_slices sl;
    tr_instants in;
    tr_counters co;
    tr_samples sa;
    tr_vec ends[TR_EV_KIND_COUNT]; /* flow_end by row */
    size_t next_end[TR_EV_KIND_COUNT];
    int events;     /* events written so far, for the separators */
    tr_buf ids;     /* ,"pid":P,"tid":T of every track, back to back */
    size_t *id_end; /* where each track's text ends in ids */
    /* One rank read from several inputs is one Chrome process (tr_process_groups). */
    uint32_t *group;        /* process -> the first process of its group */
    unsigned char *grouped; /* process -> 1 when in a group of several */
    int kineto;             /* the kineto writer: the source's ids and top-level keys */
    /* Streaming (chrome_event): the events come after the inputs are read, samples last. */
    int in_samples;       /* the "samples" key is open; ends[kind] are by seq, not row */
    const tr_flow *flows; /* the stream's, NULL: the trace's */
} chrome_w;

/*
** The members of one object from the meta args [FROM, TO) of SET, whose keys
** share their first SKIP bytes: the reader flattened nested objects into
** dotted keys ("distributedInfo.rank"), which nest again here.  TOP: the
** document's own level, where the keys the writer writes itself are left out.
*/
int chrome_top_members(chrome_w *w, uint32_t set, size_t from, size_t to, size_t skip, int top);

/*
** Kineto keeps ids: the lanes with numeric ids must differ in (pid, tid).
** Lanes the source named by strings ("pid":"Spans") keep their names.
*/
int chrome_kineto_check(const chrome_w *w, tr_error *e);

#endif
