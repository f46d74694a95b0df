/*
** tr_sorter.h: an external merge sort of fixed-size records within a memory
** budget.
**
** Records are pushed in any order and come back sorted.  They gather in a
** buffer of at most the budget; a full buffer is sorted and written to a
** run file in a temporary directory, and at the end the runs are merged,
** each read through a small buffer (SQLite's vdbesort, Perfetto's sorter).
** When there are more runs than the budget can give a buffer each (or
** than TR_SORTER_FAN_IN files open at once), the first ones are merged
** into one run first.  Input that is all in order
** costs no sort, and input that fits the budget never touches the disk.
**
** The temporary directory is made on the first spill, under the directory
** the caller names, as a tr_output directory (tr_output.h): it is removed
** by tr_sorter_close whatever happened, and by tr_output_cleanup_all from
** a signal handler.  Before each run is written the file system is asked
** for the room it needs.
*/
#ifndef TR_SORTER_H
#define TR_SORTER_H

#include <stddef.h>
#include <stdint.h>

#include "tr_error.h"

/* The smallest budget a sorter takes: a few run buffers. */
#define TR_SORTER_MIN_BUDGET ((size_t)256 * 1024)
/* The most runs merged at once: each is an open file. */
#define TR_SORTER_FAN_IN 256

typedef struct tr_sorter tr_sorter;

/* A total order on records: negative, 0 or positive, as for qsort. */
typedef int (*tr_sorter_cmp)(const void *a, const void *b);

typedef struct tr_sorter_opts {
    size_t rec_size;     /* bytes a record */
    tr_sorter_cmp cmp;   /* must break every tie (records carry a sequence number) */
    size_t budget;       /* bytes of records held in memory and their sort's scratch; at least
                            TR_SORTER_MIN_BUDGET */
    const char *tmpdir;  /* where the temporary directory is made */
    uint64_t free_bytes; /* free space to assume (tests), 0 = ask the file system */
} tr_sorter_opts;

/* ^A new sorter in *S (NULL when out of memory, with TR_FATAL). */
int tr_sorter_open(tr_sorter **s, const tr_sorter_opts *o, tr_error *e);
/* ^Adds a copy of the record at REC; spills a full buffer to a run file. */
int tr_sorter_push(tr_sorter *s, const void *rec, tr_error *e);
/*
** tr_sorter_next: the records in order
** ^The first call ends the pushing.  ^Sets *REC to the next record (valid
** until the next call) and returns TR_OK, or TR_END after the last one.
*/
int tr_sorter_next(tr_sorter *s, const void **rec, tr_error *e);
/* ^Bytes of records held in memory, not yet spilled, with the scratch that sorts them. */
size_t tr_sorter_held(const tr_sorter *s);
/*
** ^Spills the records held now, when the caller's other memory grew, and
** keeps the buffer within ROOM bytes (records and scratch) from then on.
*/
int tr_sorter_spill(tr_sorter *s, size_t room, tr_error *e);
/*
** tr_sorter_spill_behind: spill while pushing goes on
** ^Hands the records held to a thread of their own, which sorts them and
** writes them as a run, and takes the next records into a new buffer: the
** caller keeps both within its budget (tr_sorter_held counts both until the
** run is written, tr_sorter_behind the one being written).  ^Waits first
** for the one handed before.  ^A failed write is reported by the next call
** that waits: this one, tr_sorter_spill or tr_sorter_next.
*/
int tr_sorter_spill_behind(tr_sorter *s, tr_error *e);
/* ^Bytes of records being spilled behind (tr_sorter_spill_behind), not yet written. */
size_t tr_sorter_behind(const tr_sorter *s);
/*
** tr_sorter_end: no more records for now
** ^Sorts the records held on a thread of their own (or spills them behind,
** when runs were spilled), so that tr_sorter_next finds them ready.
** ^A record pushed after it waits for that sort.
*/
int tr_sorter_end(tr_sorter *s, tr_error *e);
/* ^Waits for what runs behind (either of the above), and reports its failure. */
int tr_sorter_wait(tr_sorter *s, tr_error *e);
/* ^Run files written so far (0: everything stayed in memory). */
uint64_t tr_sorter_runs(const tr_sorter *s);
/* ^Frees S and removes its temporary directory.  ^NULL is a no-op. */
void tr_sorter_close(tr_sorter *s);

#endif
