/*
** tr_stack_slices.h: slices derived from consecutive stack samples.
**
** The open-stacks rule of putils' python_stack_sniffer (and of py-spy's
** chrometrace output): per thread, the frames a sample shares with the
** thread's previous sample (the longest equal prefix from the root) stay
** open; the others close at the new sample's time, innermost first, and the
** new sample's remaining frames open there.  A frame is equal to another when
** function, file and line are (the line is part of putils' label, so moving
** to another line of a function closes and reopens it).
**
** Readers that see a sequence of samples in time order feed them here as they
** read (readers/pyspy.c does unless tr_read_opts.no_stack_slices is set); the
** slicer keeps only the open frames of each thread, never the samples.
**
** Each slice is named like putils' label, "function (file:line)", "function
** (file)" when the line is unknown, "function" when the file is empty; its
** category is "stack" and its args are function, file and line (when known).
** ^A slice of zero duration is not added: a frame seen only at the last
** moment of its thread, or a single dump, says nothing about time.
*/
#ifndef TR_STACK_SLICES_H
#define TR_STACK_SLICES_H

#include <stdint.h>

#include "tr_error.h"
#include "tr_trace.h"

typedef struct tr_stack_slicer tr_stack_slicer;

/* ^Returns a slicer adding slices to T, or NULL when out of memory. */
tr_stack_slicer *tr_stack_slicer_new(tr_trace *t);
/* ^Releases the slicer without closing anything.  ^NULL is a no-op. */
void tr_stack_slicer_free(tr_stack_slicer *s);

/*
** tr_stack_slicer_sample: the thread of TRACK was in STACK at TS
** ^Closes the open frames of TRACK not shared with STACK at TS and opens the
** rest of STACK.  ^Stack 0 (no frames) closes every open frame of the track.
** ^Samples of one track must come in time order; an earlier TS is taken as
** TS of the previous sample.  ^Returns TR_OK or TR_FATAL (out of memory).
*/
int tr_stack_slicer_sample(tr_stack_slicer *s, uint32_t track, int64_t ts, uint32_t stack);

/*
** tr_stack_slicer_sweep: a dump of PROCESS at TS is complete
** ^Closes at TS every open frame of the tracks of PROCESS that had no sample
** at TS (threads that ended, or were absent from the dump), as putils does.
*/
int tr_stack_slicer_sweep(tr_stack_slicer *s, uint32_t process, int64_t ts);

/* ^Closes every open frame of TRACK at TS (the end of a profile). */
int tr_stack_slicer_end_track(tr_stack_slicer *s, uint32_t track, int64_t ts);

/*
** tr_stack_slicer_finish: the input is over
** ^Closes every frame still open at its track's last sample time (or the TS
** of tr_stack_slicer_end_track when later).  ^Returns TR_OK, or TR_FATAL
** when an allocation failed at any point (the trace's status says so too).
*/
int tr_stack_slicer_finish(tr_stack_slicer *s);

#endif
