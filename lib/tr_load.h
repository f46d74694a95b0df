/*
** tr_load.h: reading what the user named into a trace, with the readers of
** a table the caller passes (readers/all.c's, in the binaries).
*/
#ifndef TR_LOAD_H
#define TR_LOAD_H

#include <stddef.h>
#include <stdint.h>

#include "tr_error.h"
#include "tr_reader.h"
#include "tr_sink.h"
#include "tr_trace.h"

typedef struct tr_rank_override {
    const char *path; /* as given with --rank FILE=N */
    int32_t rank;
} tr_rank_override;

typedef struct tr_load_opts {
    const tr_reader *const *readers; /* NULL-terminated table to choose from */
    const char *from;                /* reader name, NULL = probe */
    tr_read_opts read;
    const tr_rank_override *ranks;
    size_t n_ranks;
    tr_progress_fn progress;
    void *progress_user;
    tr_sink_fn consume; /* each batch of events as it is read (tr_sink.h); NULL = none */
    void *consume_user;
    int consume_forgets; /* 1: T drops the rows consume was handed (tr_sink.forget) */
    /*
    ** Bytes of arg sets each trace keeps as built before it seals the
    ** oldest (tr_trace_args_raw); 0 leaves the trace's own.  A forgetting
    ** load seals every whole chunk whatever this says.
    */
    size_t args_raw;
    uint64_t streams_ignored; /* out: files of a run folder no reader claimed */
    /* threads: inputs tr_load_many reads at once, and read.threads when that is 0 */
    int threads; /* 0 = the CPUs (tr_pool_threads) */
    /* tr_load_many only: */
    const struct tr_align_opts *align; /* --align, --align-on, --tz (tr_align.h); NULL = none */
    uint64_t read_ns, merge_ns;        /* out: time spent reading, and merging what threads read */
} tr_load_opts;

/*
** tr_load: read what the user named into T
** ^Picks the reader by O->from, else by the highest probe of the stream's
** head (ties to the earlier table entry).  ^A directory or archive that no
** reader claims as a whole is a run folder: each stream a reader recognises
** is read as its own input, the others are counted in streams_ignored.
** ^An unrecognised single stream is TR_E_FORMAT "unrecognized format (try --from)".
** ^Every event read stays in T; ^O->consume, when set, also sees them as
** they come, one batch per call of a reader's next (tr_sink.h).  ^A reader
** of whole directories reads an archive's members without writing them to
** disk (tr_dir, tr_input.h).
*/
int tr_load(tr_trace *t, const char *path, tr_load_opts *o, tr_error *e);

/*
** tr_load_many: read several inputs into T and put them on one timeline
** ^Reads PATHS[0..N) as tr_load does, each on a thread of its own when
** O->threads allows (one input a thread, merged in input order by
** tr_trace_merge: the trace is the same as one read in sequence), then runs
** tr_align (tr_align.h) with O->align.  ^Warnings reach O->read.diag in
** input order; the first failing input's error is returned, as in sequence.
** ^With O->consume set the inputs are read in sequence, so that the rows a
** consumer is handed are those of T.
*/
int tr_load_many(tr_trace *t, const char *const *paths, size_t n, tr_load_opts *o, tr_error *e);

#endif
