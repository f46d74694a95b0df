/*
** tr_reader.h: the interface every reader of readers/ implements.
**
** The core names no format: readers/all.c holds the one table of readers,
** and the binaries hand it to the loader (tr_load.h).
**
** A reader is a probe and an open/next/close triple.  The loader probes the
** head of a stream (or a directory's listing), opens the best reader on the
** stream (or on the directory, for readers of whole directories), calls
** next until it returns TR_END, handing what each call appended to the
** sink's consumer (tr_sink.h), and always calls close.
*/
#ifndef TR_READER_H
#define TR_READER_H

#include <stddef.h>
#include <stdint.h>

#include "tr_error.h"
#include "tr_input.h"
#include "tr_sink.h"
#include "tr_trace.h"

#define TR_READER_ABI 2

/*
** The most records (lines, events, array elements, samples, Recorder
** records) one call of next handles.  A record yields a few events, but for
** one that is indivisible (a V8 profile chunk: its samples).  At the end a
** reader adds what it held open (unanswered requests, unended slices), and
** Chrome the samples that waited for their stack frames, in calls of this
** size.  The Recorder reader first decodes a few ranks per thread a call.
*/
#define TR_READ_BATCH 4096

/* What a probe sees; it consumes nothing. */
typedef struct tr_peek {
    const char *name;           /* path or archive member */
    const unsigned char *head;  /* first bytes of the decompressed stream (NULL for a directory) */
    size_t head_len;            /* up to TR_PEEK_SIZE */
    int at_end;                 /* head holds the whole stream */
    const char *const *entries; /* a directory's relative file paths, else NULL */
    size_t n_entries;
} tr_peek;

enum tr_gt_pairing { TR_GT_PAIR_BATCH = 0, TR_GT_PAIR_VISUALIZE };

typedef struct tr_read_opts {
    tr_diag *diag;  /* warnings; strict lives there */
    int gt_pairing; /* enum tr_gt_pairing */
    /*
    ** 1: readers of stack samples (py-spy dump sequences, speedscope) build no
    ** slices from them (lib/tr_stack_slices.h); set when the output needs only
    ** the samples (the folded writer).  0, the default, derives them.
    */
    int no_stack_slices;
    /*
    ** 1: readers may leave their events' args out (every set 0) and skip
    ** reading what only args hold (GT's details); set when the output reads
    ** no args (info).  0, the default, keeps them.
    */
    int no_args;
    int threads; /* threads a reader may use (Recorder ranks); 0 = the CPUs (tr_pool_threads) */
    /*
    ** A reader whose sink forgets (tr_sink.forget) keeps what it must see
    ** whole (Chrome's flow points and the slices they bind to) in external
    ** sorters (tr_sorter.h) of SORT_MEMORY bytes in all, spilled under
    ** TMPDIR; 0 and NULL: a quarter of 1 GiB, /tmp.
    */
    size_t sort_memory;
    const char *tmpdir;
} tr_read_opts;

/* What open reads and where it goes; it and what it points to outlive the reader. */
typedef struct tr_read_ctx {
    tr_input *in;   /* the stream, or NULL when DIR is set */
    tr_dir *dir;    /* a directory or archive (readers with dirs set), else NULL */
    tr_sink *sink;  /* where events go */
    uint32_t input; /* the input they belong to (tr_input_add) */
    const tr_read_opts *opts;
} tr_read_ctx;

typedef struct tr_reader {
    int abi;
    const char *name; /* "gt", "chrome", ... */
    const char *description;
    const char *extensions; /* comma-separated, informative */
    int dirs;               /* 1: reads a directory as a whole (tr_read_ctx.dir) */
    /* 0 = not mine .. 100 = sure; sees the stream's head or a directory listing */
    int (*probe)(const tr_peek *pk);
    /* ^Starts reading C: sets *RD to the reader's state (close frees it even on failure). */
    int (*open)(void **rd, const tr_read_ctx *c, tr_error *e);
    /* ^At most TR_READ_BATCH records: TR_OK while more remain, TR_END once all is read. */
    int (*next)(void *rd, tr_error *e);
    /* ^Frees RD; NULL is a no-op. */
    void (*close)(void *rd);
    /*
    ** 1: never reads, changes or names (flows, parents) the rows of an
    ** earlier batch, so a sink that forgets may drop them (tr_sink.h)
    */
    int streams;
    /* 1: may give slices a thread time (tr_slice_set_thread_time), which a stream then keeps */
    int thread_time;
    /*
    ** 1: reads what tracecat itself writes (a database, a Parquet directory):
    ** a run folder leaves it out, as the traces beside it were its source
    */
    int output;
} tr_reader;

/*
** tr_reader_find: the reader named NAME in the NULL-terminated TABLE
** ^Returns NULL when TABLE has none of that name.
*/
const tr_reader *tr_reader_find(const tr_reader *const *table, const char *name);
/* ^The best reader in TABLE for PK and its score (0 = none). */
const tr_reader *tr_probe(const tr_reader *const *table, const tr_peek *pk, int *score);

/*
** tr_read: the one loop that drives a reader
** ^Opens R on C, calls next until TR_END and flushes C->sink after each
** call (the last flush marked last), then closes R.  ^Returns TR_OK, or the
** first failure (of the reader, the consumer, or the trace's memory).
*/
int tr_read(const tr_reader *r, const tr_read_ctx *c, tr_error *e);
/* ^tr_read of the stream IN into T (as the model builder: no consumer) as input INPUT. */
int tr_read_stream(const tr_reader *r, tr_input *in, tr_trace *t, uint32_t input,
                   const tr_read_opts *o, tr_error *e);

#endif
