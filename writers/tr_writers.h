/*
** tr_writers.h: the one table of writers (writers/all.c), choosing one, and
** the one driver that runs any of them.
*/
#ifndef TR_WRITERS_H
#define TR_WRITERS_H

#include "tr_writer.h"

/* NULL-terminated. */
extern const tr_writer *const tr_writers[];

/* ^The writer named NAME, or NULL. */
const tr_writer *tr_writer_find(const char *name);
/* ^The writer whose extension PATH ends in (".gz"/".zst" looked through), or NULL. */
const tr_writer *tr_writer_for_path(const char *path);

/*
** tr_write_load_fn: fill the new trace T with inputs FIRST .. FIRST + N - 1
** and freeze it; TR_OK or a failure status.  ^A failure is the callback's to
** report: the driver passes its status on and leaves E as the callback did.
*/
typedef int (*tr_write_load_fn)(void *user, tr_trace *t, size_t first, size_t n, tr_error *e);

/*
** tr_write_inputs: write N inputs with W into PATH
** ^Opens PATH as W's target (a file; a directory with TR_WRITE_DIR, or with
** TR_WRITE_DIR_OR_FILE when PATH ends in '/' or names a directory), calls
** begin, then add: once with all N inputs loaded into one trace, or with
** TR_WRITE_PER_INPUT once per input, each loaded alone and freed after its
** add.  ^Then end, and the target is committed; after any failure it is
** removed instead (files a dataset run added before the failure stay).
** ^Refuses with TR_E_USAGE a directory writer on standard output ("-") and a
** binary writer on a terminal.  ^O may be NULL (all options off).
*/
int tr_write_inputs(const tr_writer *w, const char *path, const tr_write_opts *o, size_t n,
                    tr_write_load_fn load, void *user, tr_error *e);

/*
** tr_write_stream: convert N inputs through stream S into PATH with W, which
** must have event
** ^Opens the target as tr_write_inputs does and calls begin; then LOAD fills
** T with the inputs through S (its consumer), while S hands W's event the
** records it can place already (tr_stream_set_emit); then event with the
** rest S yields, end, and the target is committed or, after any failure,
** removed.  ^T (its dictionaries) must outlive the call.  ^O's filter must
** be NULL (TR_E_USAGE otherwise): it names rows of a frozen model.
*/
int tr_write_stream(const tr_writer *w, tr_trace *t, tr_stream *s, const char *path,
                    const tr_write_opts *o, size_t n, tr_write_load_fn load, void *user,
                    tr_error *e);

/* ^Writes frozen trace T with W into PATH: tr_write_inputs with T as the only part. */
int tr_write_trace(const tr_writer *w, const tr_trace *t, const char *path, const tr_write_opts *o,
                   tr_error *e);

#endif
