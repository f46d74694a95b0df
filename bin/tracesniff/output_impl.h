/*
** output_impl.h: what tracesniff writes.  Dumps become py-spy dump text in the
** "#tracecat-dump" container (shared/formats/pyspy.md §8, with
** "#tracecat-counter" lines for --cpu-mem), and, for any other tracecat
** writer, a model built from the same samples: per thread a track of stack
** samples (state as an arg) with the open-stacks slices, per process a
** counter track per measure.
*/
#ifndef TS_OUTPUT_H
#define TS_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "sniff_impl.h"
#include "tr_error.h"
#include "tr_load.h"
#include "tr_readers.h"
#include "tr_writers.h"

typedef struct ts_out ts_out;

/* What the header of a process's dump says. */
typedef struct ts_proc_info {
    int64_t pid;
    const char *cmdline;
    const char *version; /* "3.11.7", NULL when not Python */
    const char *exe;
    int64_t ppid; /* "Parent Process" line when > 0 */
    const char *parent_cmdline;
} ts_proc_info;

/*
** A new output.  TEXT: keep the dump text; MODEL: keep the samples for a
** model.  MARKERS: precede each dump by its "#tracecat-dump" line (off for
** --once, which prints what py-spy dump prints).  Returns NULL when out of memory.
*/
ts_out *ts_out_new(int text, int model, int markers, const char *host);
void ts_out_free(ts_out *o);

/* One dump of a process at TS_UNIX (ns): its threads, their frames, and error lines. */
int ts_out_dump(ts_out *o, const ts_proc_info *pi, int64_t ts_unix, const ts_thread *threads,
                size_t n_threads, const ts_frame *frames, const char *const *errors,
                size_t n_errors, tr_error *e);
/* Process CPU use (% of one core) and resident memory at TS_UNIX. */
int ts_out_counters(ts_out *o, int64_t pid, int64_t ts_unix, double cpu_percent, uint64_t rss_bytes,
                    tr_error *e);
/* Number of dumps so far. */
uint64_t ts_out_dumps(const ts_out *o);

/* Writes the text made since the last call to FD, then forgets it (streaming to stdout). */
int ts_out_stream(ts_out *o, int fd, tr_error *e);
/*
** Writes everything so far to PATH atomically (tr_output): the text when W
** is NULL, else the model through writer W.  May be called again later
** (--autosave): each call writes the whole session.
*/
int ts_out_save(ts_out *o, const char *path, const tr_writer *w, tr_error *e);

#endif
