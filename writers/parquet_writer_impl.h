/*
** parquet_writer_impl.h: the pieces of the Parquet writer shared by its
** files.  Not part of the public API.
**
**   parquet.c         a frozen trace's parts, their files, the layout, the writer
**   parquet_stream.c  a stream's events into their files as they come
**
** The encoders (parquet_page.c, parquet_thrift.c) are in parquet_impl.h.
*/
#ifndef TR_PARQUET_WRITER_IMPL_H
#define TR_PARQUET_WRITER_IMPL_H

#include "parquet_impl.h"
#include "schema_impl.h"
#include "tr_mem.h"
#include "tr_rows.h"
#include "tr_writer.h"

#include <stddef.h>
#include <stdint.h>

/* ---- the writer's state (parquet.c, parquet_stream.c) ---- */

#define MAX_COLS 16 /* the widest table (io, 12) and part */
#define NO_PART  UINT32_MAX

/* A part's rows of a table: model rows (r32) or composite keys (r64). */
typedef struct pq_rows {
    const uint32_t *r32;
    const uint64_t *r64;
    size_t n;
} pq_rows;

typedef struct pq_part {
    uint32_t input;
    int32_t rank;
    char *name;
    size_t name_len;
} pq_part;

/* A table's rows bucketed by part: part P's are rows[off[P] .. off[P+1]). */
typedef struct pq_bucket {
    uint32_t *rows;
    size_t *off;
} pq_bucket;

typedef struct pq_stream pq_stream;

/* The directory a run adds to. */
typedef struct pq_dataset {
    const char *dir;
    const tr_write_opts *o;
    tr_pq_limits lim;
    pq_stream *stream; /* the inputs come through a stream (pq_event) */
} pq_dataset;

/* One trace being written. */
typedef struct pq_w {
    pq_dataset *ds;
    tr_sc_ctx sc;
    pq_part *parts;
    size_t n_parts;
    uint32_t *proc_part;            /* per process */
    pq_bucket ev[TR_EV_KIND_COUNT]; /* each event table's kept rows by part */
    uint32_t *stamp;                /* per set or stack: the last part that took it */
    size_t n_stamp;
    tr_vec keys; /* uint64: a derived table's rows for one part */
    /*
    ** A stream's: its rows (tracks kept when flows must find their part),
    ** and per part the arg sets and stacks its events used (tr_vec of uint8_t).
    */
    const tr_rows *rows;
    const tr_vec *set_marks, *stack_marks;
} pq_w;

/* What the file pulls its values through: the table, the part, its rows. */
typedef struct pq_file_ctx {
    pq_w *w;
    const tr_sc_table *tb;
    const pq_part *part;
    pq_rows rows;
    const tr_row_event *evs; /* a stream's rows instead: row I is EVS[I] */
    int colmap[MAX_COLS];    /* file column -> table column, -1: part */
} pq_file_ctx;

/* A stream being written (parquet_stream.c); parquet_end finishes it. */
#define MAX_EVENT_TABLES 8

typedef struct pq_spart pq_spart;

struct pq_stream {
    pq_w w;
    const tr_trace *t;
    tr_rows rows;
    const tr_sc_table *tables[MAX_EVENT_TABLES]; /* the event tables */
    size_t n_tables;
    pq_spart **parts;
    size_t n_parts;
    tr_vec proc_part; /* uint32_t per process: its part in parts, NO_PART when not met yet */
    tr_flow *flows;
    size_t n_flows;
    int streaming; /* the input was read (the flows came) */
};

/* ---- parquet.c, for the stream ---- */

/* Names part P: input INPUT, of rank RANK when the dataset is partitioned. */
int pq_part_fill(const pq_w *w, pq_part *p, uint32_t input, int32_t rank);
/* A file's values (tr_pq_get; USER is a pq_file_ctx). */
void pq_file_get(void *user, int col, uint64_t row, tr_pq_value *v);
/* Starts table TB's file for PART at PATH (its directories made), with the columns COLS. */
int pq_file_start(pq_w *w, pq_file_ctx *ctx, tr_pq_column *cols, tr_buf *path, tr_output **out,
                  tr_pq_file **f, tr_error *e);
/* Ends a file: its footer and metadata, then the commit; or, after a failure, nothing is left. */
int pq_file_finish(const tr_sc_table *tb, tr_output *out, tr_pq_file *f, const tr_buf *path, int rc,
                   tr_error *e);
/* Part P's file of table TB: each through its own tr_output, so each is atomic. */
int pq_write_file(pq_w *w, const tr_sc_table *tb, uint32_t p, pq_rows rows, tr_error *e);
/* Table TB's file of every part. */
int pq_write_table(pq_w *w, const tr_sc_table *tb, tr_error *e);
/* After a failed add: the files written for W's parts are removed. */
void pq_remove_parts(pq_w *w);
/* Parts, event buckets and stamps for one trace; pq_finish frees them. */
int pq_prepare(pq_w *w, tr_error *e);
void pq_finish(pq_w *w);
/* Fails before anything is written when the disk cannot hold T's files (o->free_bytes: tests). */
int pq_check_space(const pq_dataset *ds, const tr_trace *t, tr_error *e);

/* ---- parquet_stream.c, for the writer ---- */

/* tr_writer.event, .flows and .part_end. */
int pq_event(tr_write *run, const tr_trace *t, const tr_event_rec *ev, tr_error *e);
int pq_flows(tr_write *run, const tr_trace *t, tr_flow *f, size_t n, tr_error *e);
int pq_part_end(tr_write *run, const tr_trace *t, tr_error *e);
/* At the end: the final parts, then every table, the event tables from their files. */
int pq_stream_finish(pq_stream *st, tr_error *e);
void pq_stream_free(pq_stream *st);

#endif
