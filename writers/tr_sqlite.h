/*
** tr_sqlite.h: the SQLite writer's pieces that tracesql shares.
**
** The schema (writers/schema.c, README "SQL schema") names its tables after
** Perfetto's trace processor where the concept is the same: process, thread,
** track, slice, instant, counter, flow, args, stack_profile_frame,
** stack_profile_callsite, stack_sample, plus meta, trace_input and the views
** io, gt_op, sample_stack.
*/
#ifndef TR_SQLITE_H
#define TR_SQLITE_H

#include <sqlite3.h>

#include "tr_writer.h"

/*
** tr_sqlite_load: write trace T into the empty database DB
** ^Creates the schema and fills it in one transaction with bulk-load pragmas,
** which are restored afterwards; then builds the indexes.  ^O's filter, when
** set, drops events (and the flows and arg sets only they used).
*/
int tr_sqlite_load(sqlite3 *db, const tr_trace *t, const tr_write_opts *o, tr_error *e);

/*
** tr_sqlite_check: is DB a tracecat database this version reads?
** ^TR_OK, or TR_E_FORMAT naming the missing tables and views (or a newer
** schema_version); SQLite's own message when DB is not a database at all.
** ^A database of an older schema reads when it has the stored tables (or,
** for one now stored under another name, the old table behind its view):
** the views it lacks are added as TEMP views of the connection where what
** they read is there.  ^A table it lacks is named with the advice to convert
** the trace again.
*/
int tr_sqlite_check(sqlite3 *db, tr_error *e);

/*
** tr_sqlite_save: copy database SRC into OUT (then committed by the caller)
** ^Uses the backup API into OUT's temporary file, or serializes SRC through
** tr_output_write when OUT has none (standard output, compressed targets).
*/
int tr_sqlite_save(sqlite3 *src, tr_output *out, tr_error *e);

#endif
