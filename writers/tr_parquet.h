/*
** tr_parquet.h: the trace as a directory of Parquet files, for Spark, Trino,
** DuckDB and any engine that reads Hive-style partitioned Parquet.
**
** The tables and columns are the SQL schema's (README "SQL schema"; the io
** and sample_stack views become tables), each with a `part` column.  Layout:
**
**   DIR/_tracecat.json                          schema version and layout
**   DIR/<table>/part-<part>.parquet             one file per table and input
**   DIR/<table>/rank=<N>/part-<part>.parquet    with partitioning by rank
**
** A part is one input (or one rank of one input when partitioned): its ids
** (slice id, arg set id, callsite id, ...) are unique within it, so joins
** match on part as well as id.  <part> is the input's file name and a hash of
** its absolute path, so runs over different inputs never collide and a run
** over the same input again replaces its files.
*/
#ifndef TR_PARQUET_H
#define TR_PARQUET_H

#include <stdint.h>

#include "tr_writer.h"

/* Bumped when a table or column changes; recorded in _tracecat.json. */
#define TR_PARQUET_SCHEMA_VERSION 1

typedef struct tr_parquet_opts {
    int partition_rank;      /* DIR/<table>/rank=N/: rows split by their process's rank */
    const tr_filter *filter; /* NULL = every event */
    uint64_t row_group_rows; /* 0 = 1 Mi, or TRACECAT_PARQUET_ROW_GROUP_ROWS (tests) */
} tr_parquet_opts;

typedef struct tr_parquet tr_parquet;

/*
** tr_parquet_open: start writing into directory DIR
** ^Creates DIR (and its parents) and writes DIR/_tracecat.json.  ^Fails with
** TR_E_USAGE when DIR already holds output of another layout (partitioned or
** not) or of a newer schema.
*/
int tr_parquet_open(tr_parquet **pw, const char *dir, const tr_parquet_opts *o, tr_error *e);

/*
** tr_parquet_add: write every part of frozen trace T
** ^Each file is written to a temporary name and renamed when complete.
** ^Fails with TR_E_IO before writing anything when the file system holding
** DIR has less free space than T's estimated output (TRACECAT_FREE_BYTES
** overrides what statvfs reports, for tests).
*/
int tr_parquet_add(tr_parquet *pw, const tr_trace *t, tr_error *e);

/* ^Files, rows and bytes written so far. */
void tr_parquet_totals(const tr_parquet *pw, uint64_t *files, uint64_t *rows, uint64_t *bytes);

/* ^Frees PW (files already written stay).  ^NULL is a no-op. */
void tr_parquet_close(tr_parquet *pw);

/* The registry's entry: its write refuses a single output and points to DIR. */
extern const tr_writer tr_writer_parquet;

#endif
