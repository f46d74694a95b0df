/*
** tr_writer.h: the interface every writer of writers/ implements.
**
** A writer is one kind of thing whatever it writes: begin(target), add(trace)
** and end().  The target is a file or a directory (tr_output.h) that the
** driver (tr_write_inputs in writers/tr_writers.h) opens before begin and
** commits after end, or removes when any step failed, so a writer never
** makes a target atomic itself.  The descriptor's flags say what the writer
** wants: one merged trace, or one part per input (each input loaded, added
** and freed before the next: a job of thousands of inputs holds one model at
** a time), and a file, a directory, or either.
**
** writers/all.c holds the one table of writers (tr_writers.h).
*/
#ifndef TR_WRITER_H
#define TR_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "tr_error.h"
#include "tr_output.h"
#include "tr_stream.h"
#include "tr_trace.h"

/*
** The version of the SQLite schema tracecat writes (writers/sqlite.c), stored
** in its meta table as schema_version; bumped when a table or view changes.
** ^The SQLite reader (readers/sqlite.c) reads back databases of this version
** and of versions 2 and 3 (3 added slice.thread_ts and slice.thread_dur, 4
** left out the GT args below, 5 packs a GT input's arg sets a row each).
*/
#define TR_SQLITE_SCHEMA_VERSION 5

/*
** Since schema 5, the args of the sets __intrinsic_arg_pack holds (a GT
** input's: writers/sqlite.c, pack_table), a row each as __intrinsic_args
** holds them: value I of a set is its column vI, its key and type are row I
** of its shape in __intrinsic_arg_key, its id the set's first id plus I.
** The CASTs give the columns __intrinsic_args's types, which lets SQLite
** flatten the view args (this UNION ALL its rows) into a query.  ^The view
** args, and what the reader reads.
*/
#define TR_SQLITE_ARG_PACK_VALUE_AT(slot)                                                          \
    " CASE " slot " WHEN 0 THEN p.v0 WHEN 1 THEN p.v1 WHEN 2 THEN p.v2 WHEN 3 THEN p.v3 WHEN 4"    \
    " THEN p.v4 WHEN 5 THEN p.v5 WHEN 6 THEN p.v6 WHEN 7 THEN p.v7 END "
#define TR_SQLITE_ARG_PACK_VALUE TR_SQLITE_ARG_PACK_VALUE_AT("k.i")
#define TR_SQLITE_ARG_PACK_ROWS                                                                    \
    "SELECT p.arg_set_id AS arg_set_id, CAST(p.id + k.i AS INTEGER) AS id, k.key AS key,"          \
    " CAST(CASE k.value_type WHEN 'int' THEN" TR_SQLITE_ARG_PACK_VALUE "END AS INTEGER)"           \
    " AS int_value, CAST(CASE k.value_type WHEN 'string' THEN" TR_SQLITE_ARG_PACK_VALUE "END"      \
    " AS TEXT) AS string_value, CAST(NULL AS REAL) AS real_value, k.value_type AS value_type"      \
    " FROM __intrinsic_arg_pack p JOIN __intrinsic_arg_key k ON k.shape = p.shape"

/*
** In schema 4, the args of GT records the SQLite writer did not store, with
** the ids they had: bytes, which is the instant's bytes column, and details,
** which is its key=value args joined by spaces.  __intrinsic_args UNION ALL
** this, by arg_set_id and id, is every arg.  ^The view gt_dropped_args of
** such a file, and what the reader restores; since schema 5 the view is
** empty (args is every arg).
*/
#define TR_SQLITE_GT_INSTANTS                                                                      \
    " FROM instant i JOIN track t ON t.id = i.track_id JOIN process p ON p.upid = t.upid"          \
    " JOIN trace_input n ON n.id = p.input_id"
#define TR_SQLITE_GT_DROPPED_ARGS                                                                  \
    "SELECT c.arg_set_id AS arg_set_id, c.id + 1 AS id, 'bytes' AS key, i.bytes AS int_value,"     \
    " NULL AS string_value, NULL AS real_value, 'int' AS value_type" TR_SQLITE_GT_INSTANTS         \
    " JOIN __intrinsic_args c ON c.arg_set_id = i.arg_set_id AND c.key = 'command'"                \
    " WHERE i.category = 'gt' AND n.format = 'gt' AND i.bytes IS NOT NULL AND NOT EXISTS"          \
    " (SELECT 1 FROM __intrinsic_args b WHERE b.arg_set_id = i.arg_set_id AND b.key = 'bytes')"    \
    " UNION ALL SELECT a.arg_set_id, min(a.id) - 1, 'details', NULL,"                              \
    " group_concat(a.key || '=' || coalesce(a.string_value, a.int_value), ' '), NULL, "            \
    "'string'" TR_SQLITE_GT_INSTANTS " JOIN __intrinsic_args a ON a.arg_set_id = i.arg_set_id"     \
    " AND a.key NOT IN ('seq', 'command', 'bytes')"                                                \
    " WHERE i.category = 'gt' AND n.format = 'gt' AND NOT EXISTS (SELECT 1 FROM"                   \
    " __intrinsic_args d WHERE d.arg_set_id = i.arg_set_id AND d.key = 'details')"                 \
    " GROUP BY a.arg_set_id"

#define TR_WRITER_ABI 2

/* A filter writers apply: keep an event or not. */
typedef struct tr_filter {
    int (*keep)(void *user, const tr_trace *t, const tr_event *ev);
    void *user;
} tr_filter;

typedef struct tr_write_opts {
    const tr_filter *filter; /* NULL = every event */
    int header;              /* lines: a '#'-prefixed column line first */
    unsigned folded_prefix;  /* folded: root frames naming them, TR_FOLDED_* bits */
    int partition_rank;      /* datasets: DIR/<table>/rank=N/, rows split by their process's rank */
    uint64_t row_group_rows; /* datasets: rows per Parquet row group, 0 = 128 Ki */
    uint64_t free_bytes;     /* datasets: free space to assume (tests), 0 = ask the file system */
    int threads;             /* per-input writers: > 1 loads the next input while one is added
                                (or adds two at once); 0 = the CPUs (tr_pool_threads) */
} tr_write_opts;

/* Root frames the folded writer adds, as py-spy's --threads / --subprocesses do. */
enum { TR_FOLDED_THREAD = 1, TR_FOLDED_PROCESS = 2 };

/* What a writer wants: tr_writer.flags. */
enum {
    TR_WRITE_PER_INPUT = 1,   /* add gets each input's part alone, not the merged trace */
    TR_WRITE_DIR = 2,         /* the target is a directory, whatever the path looks like */
    TR_WRITE_DIR_OR_FILE = 4, /* a directory when the path ends in '/' or names one, else a file */
    TR_WRITE_DATASET = 8,     /* the directory is added to (TR_DIR_ADD); partition_rank and
                                 row_group_rows apply */
    /*
    ** Streaming: event is first called once every input is read (the
    ** dictionaries and flows are final), and with the samples after every
    ** other event (tr_stream_opts.samples_last): Chrome JSON writes the
    ** processes and tracks first and the samples under their own key.
    */
    TR_WRITE_EVENTS_AFTER = 16,
    /*
    ** With TR_WRITE_PER_INPUT and threads: add may run for two parts at
    ** once, on two threads, each with its own trace and its own copy of the
    ** tr_write (the state begin set is shared); drop undoes a part added
    ** whole when a part before it then fails.
    */
    TR_WRITE_PARTS_AT_ONCE = 32,
    /*
    ** Streaming one input: event takes the records in the order they are
    ** read, not sorted (tr_stream_opts.any_order), and the writer puts what
    ** it writes in order itself (folded: each stack by its first sample).
    */
    TR_WRITE_ANY_ORDER = 64
};

/* One run of a writer: what begin, add and end share. */
typedef struct tr_write {
    tr_output *out;            /* the target; tr_output_dir(out) when it is a directory */
    const tr_write_opts *opts; /* never NULL */
    void *state;               /* the writer's own, set by begin */
    /*
    ** A dataset writer sets keep when its new tree is whole although the
    ** run fails (the parts added before the failing one, whose files the
    ** writer removed): the driver then commits it and still returns the
    ** failure.
    */
    int keep;
} tr_write;

typedef struct tr_writer {
    int abi;
    const char *name;
    const char *description;
    const char *extensions; /* comma-separated, matched case-insensitively before .gz/.zst */
    int binary;             /* refuses a terminal */
    int samples_only;       /* reads only samples and stacks: readers need not derive slices */
    unsigned flags;         /* TR_WRITE_* */
    /*
    ** ^begin sets W->state up (NULL: nothing to set up).  ^add writes frozen
    ** trace T: the whole merged trace in one call, or with TR_WRITE_PER_INPUT
    ** one input's part per call.  ^end finishes when RC is TR_OK and only
    ** releases otherwise (NULL: nothing to finish); it is called whenever
    ** begin succeeded.
    */
    int (*begin)(tr_write *w, tr_error *e);
    int (*add)(tr_write *w, const tr_trace *t, tr_error *e);
    int (*end)(tr_write *w, int rc, tr_error *e);
    /*
    ** ^Streaming (NULL: the writer needs the whole trace): called between
    ** begin and end instead of add, once an event in tr_iter's order, with
    ** T holding the dictionaries (strings, args, tracks, stacks) but not
    ** the events (tr_stream.h); the output is the one add gives.
    */
    int (*event)(tr_write *w, const tr_trace *t, const tr_event_rec *ev, tr_error *e);
    /*
    ** ^Streaming (NULL: the writer writes no flows): called once the inputs
    ** are read, before the events the stream yields after that, with the N
    ** flows at F (tr_stream_flows: ends by kind and seq), which the writer
    ** may rewrite and use until end.
    */
    int (*flows)(tr_write *w, const tr_trace *t, tr_flow *f, size_t n, tr_error *e);
    /*
    ** ^Streaming with TR_WRITE_PER_INPUT (NULL: one input only): each input
    ** is streamed alone, as add gets it, through its own trace T; called
    ** once its events have all come, before T is freed.
    */
    int (*part_end)(tr_write *w, const tr_trace *t, tr_error *e);
    /*
    ** ^With TR_WRITE_PARTS_AT_ONCE: removes what a successful add wrote for
    ** T, which is still the trace add got, so the target holds what a
    ** sequential run that stopped at an earlier part's failure leaves.
    */
    void (*drop)(tr_write *w, const tr_trace *t);
} tr_writer;

#endif
