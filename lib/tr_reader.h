/*
** tr_reader.h: the interface every reader of readers/ implements.
**
** The core names no format: readers/all.c holds the one table of readers,
** and the binaries hand it to the loader (tr_load.h).
*/
#ifndef TR_READER_H
#define TR_READER_H

#include <stddef.h>
#include <stdint.h>

#include "tr_error.h"
#include "tr_input.h"
#include "tr_trace.h"

#define TR_READER_ABI 1

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
} tr_read_opts;

typedef struct tr_reader {
    int abi;
    const char *name; /* "gt", "chrome", ... */
    const char *description;
    const char *extensions; /* comma-separated, informative */
    /* 0 = not mine .. 100 = sure; sees the stream's head or a directory listing */
    int (*probe)(const tr_peek *pk);
    /* read one stream into T under input INPUT */
    int (*read)(tr_input *in, tr_trace *t, uint32_t input, const tr_read_opts *o, tr_error *e);
    /* read a whole directory (formats that are directories); NULL otherwise */
    int (*read_dir)(const char *path, tr_trace *t, uint32_t input, const tr_read_opts *o,
                    tr_error *e);
} tr_reader;

/*
** tr_reader_find: the reader named NAME in the NULL-terminated TABLE
** ^Returns NULL when TABLE has none of that name.
*/
const tr_reader *tr_reader_find(const tr_reader *const *table, const char *name);
/* ^The best reader in TABLE for PK and its score (0 = none). */
const tr_reader *tr_probe(const tr_reader *const *table, const tr_peek *pk, int *score);

#endif
