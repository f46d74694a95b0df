/*
** tr_readers.h: the one table of readers (readers/all.c).
**
** The binaries pass it to the loader as tr_load_opts.readers; the core
** itself names no format.
*/
#ifndef TR_READERS_H
#define TR_READERS_H

#include "tr_reader.h"

/* NULL-terminated, cheap probes first. */
extern const tr_reader *const tr_readers[];

#endif
