/* all.c: the one table of readers, cheap probes first. */
#include "tr_readers.h"

extern const tr_reader tr_reader_gt;
extern const tr_reader tr_reader_recorder;
extern const tr_reader tr_reader_pyspy;
extern const tr_reader tr_reader_folded;
extern const tr_reader tr_reader_chrome;
extern const tr_reader tr_reader_own;
extern const tr_reader tr_reader_sqlite;

const tr_reader *const tr_readers[] = {
    &tr_reader_gt,     &tr_reader_recorder, /* a name and a few bytes, or a directory listing */
    &tr_reader_own,    /* a directory listing: before a run folder's files are probed */
    &tr_reader_sqlite, /* 16 bytes */
    &tr_reader_pyspy,  &tr_reader_folded,   &tr_reader_chrome, NULL,
};
