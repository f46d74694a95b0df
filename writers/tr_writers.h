/*
** tr_writers.h: the one table of writers (writers/all.c), and choosing one.
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

#endif
