/*
** tr_merge.h: appending one trace to another, so inputs read apart (one a
** thread) end in one model exactly as if they had been read one after another.
*/
#ifndef TR_MERGE_H
#define TR_MERGE_H

#include "tr_error.h"
#include "tr_trace.h"

/*
** tr_trace_merge: append SRC to DST
** METHOD: tr_trace
**
** ^Appends every input, process, track, event, frame, stack, flow and arg
** set of SRC to DST.  ^The ids and rows DST ends with are those a reader
** would have given had it read SRC's inputs into DST after DST's own, so a
** trace merged from parts writes byte for byte as one read in sequence.
** ^Neither trace may be frozen.  SRC is not changed.
*/
int tr_trace_merge(tr_trace *dst, const tr_trace *src, tr_error *e);

#endif
