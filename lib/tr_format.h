/*
** tr_format.h: the reader and writer tables, and the loader that picks readers.
**
** One file per format under readers/ and writers/, each exporting one const
** descriptor; readers/registry.c and writers/registry.c hold the only tables.
*/
#ifndef TR_FORMAT_H
#define TR_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "tr_error.h"
#include "tr_input.h"
#include "tr_output.h"
#include "tr_trace.h"

#define TR_READER_ABI 1
#define TR_WRITER_ABI 1

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

/* A filter writers apply: keep an event or not. */
typedef struct tr_filter {
    int (*keep)(void *user, const tr_trace *t, const tr_event *ev);
    void *user;
} tr_filter;

typedef struct tr_write_opts {
    const tr_filter *filter; /* NULL = every event */
    int header;              /* lines: a '#'-prefixed column line first */
    unsigned folded_prefix;  /* folded: root frames naming them, TR_FOLDED_* bits */
} tr_write_opts;

/* Root frames the folded writer adds, as py-spy's --threads / --subprocesses do. */
enum { TR_FOLDED_THREAD = 1, TR_FOLDED_PROCESS = 2 };

typedef struct tr_writer {
    int abi;
    const char *name;
    const char *description;
    const char *extensions; /* comma-separated, matched case-insensitively before .gz/.zst */
    int binary;             /* refuses a terminal */
    int (*write)(const tr_trace *t, tr_output *out, const tr_write_opts *o, tr_error *e);
    int samples_only; /* reads only samples and stacks: readers need not derive slices */
} tr_writer;

extern const tr_reader *const tr_readers[]; /* NULL-terminated, cheap probes first */
extern const tr_writer *const tr_writers[];

const tr_reader *tr_reader_find(const char *name);
const tr_writer *tr_writer_find(const char *name);
/* ^The writer whose extension PATH ends in (".gz"/".zst" looked through), or NULL. */
const tr_writer *tr_writer_for_path(const char *path);

/* ---- the loader ---- */

typedef struct tr_rank_override {
    const char *path; /* as given with --rank FILE=N */
    int32_t rank;
} tr_rank_override;

typedef struct tr_load_opts {
    const char *from; /* reader name, NULL = probe */
    tr_read_opts read;
    const tr_rank_override *ranks;
    size_t n_ranks;
    tr_progress_fn progress;
    void *progress_user;
    uint64_t streams_ignored; /* out: files of a run folder no reader claimed */
    /* tr_load_many only: */
    int threads;                       /* inputs read at once; 0 = $TRACECAT_THREADS or the CPUs */
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
*/
int tr_load(tr_trace *t, const char *path, tr_load_opts *o, tr_error *e);

/*
** tr_load_many: read several inputs into T and put them on one timeline
** ^Reads PATHS[0..N) as tr_load does, each on a thread of its own when
** O->threads allows (one input a thread, merged in input order by
** tr_trace_merge: the trace is the same as one read in sequence), then runs
** tr_align (tr_align.h) with O->align.  ^Warnings reach O->read.diag in
** input order; the first failing input's error is returned, as in sequence.
*/
int tr_load_many(tr_trace *t, const char *const *paths, size_t n, tr_load_opts *o, tr_error *e);

/* ^The best reader for PK and its score (0 = none). */
const tr_reader *tr_probe(const tr_peek *pk, int *score);

#endif
