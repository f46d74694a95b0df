/*
** tr_recorder.h: writing Recorder trace directories (writers/recorder.c).
**
** The writer produces the current Recorder format (VERSION 2.5.0, the
** "pilgrim" layout, local mode: recorder.mt, VERSION and <r>.cst, <r>.cfg,
** <r>.ts per rank; shared/formats/recorder.md §2).  `tracecat convert --to
** recorder -o run.tar` writes it as a tar of one directory; tracerecord and
** tests write the directory itself with tr_recorder_write_dir.
*/
#ifndef TR_RECORDER_H
#define TR_RECORDER_H

#include "tr_error.h"
#include "tr_trace.h"

/*
** tr_recorder_write_dir: write the slices of frozen trace T as a Recorder
** trace directory DIR
** ^Creates DIR if needed and writes its files, replacing same-named ones.
** ^Each process is a rank (ordered by rank, then as the trace lists them),
** each slice a record whose function is its name (a name Recorder does not
** know becomes a user function), whose level is its depth and whose
** arguments are its arg values in order.  ^Returns TR_OK or fails with E.
*/
int tr_recorder_write_dir(const tr_trace *t, const char *dir, tr_error *e);

#endif
