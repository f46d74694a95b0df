/*
** parquet_impl.h: the Parquet writer's encoders, shared by writers/parquet*.c
** and tests/test_parquet.c (which checks their bytes by hand).
**
** parquet_thrift.c: the Thrift compact protocol, the footer's and page
** headers' encoding.  parquet_page.c: one Parquet file of flat columns
** (INT64, DOUBLE, UTF-8 strings; required or optional), written row group by
** row group and page by page through a tr_output, PLAIN or RLE_DICTIONARY
** encoded, zstd-compressed, with min/max statistics per column chunk.
** Format: https://github.com/apache/parquet-format (parquet.thrift).
*/
#ifndef TR_PARQUET_IMPL_H
#define TR_PARQUET_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "schema_impl.h"
#include "tr_error.h"
#include "tr_mem.h"
#include "tr_output.h"

/* ---- Thrift compact protocol ---- */

/* Compact protocol type codes (field headers and list headers). */
enum {
    TR_THRIFT_TRUE = 1,
    TR_THRIFT_FALSE = 2,
    TR_THRIFT_BYTE = 3,
    TR_THRIFT_I16 = 4,
    TR_THRIFT_I32 = 5,
    TR_THRIFT_I64 = 6,
    TR_THRIFT_DOUBLE = 7,
    TR_THRIFT_BINARY = 8,
    TR_THRIFT_LIST = 9,
    TR_THRIFT_SET = 10,
    TR_THRIFT_MAP = 11,
    TR_THRIFT_STRUCT = 12
};

#define TR_THRIFT_DEPTH 8 /* Parquet's footer nests 5 deep */

/*
** tr_thrift: an encoder appending to B.  ^Field ids are written as deltas
** from the previous field of the same struct when they fit (1..15).  ^Errors
** (out of memory, nesting past TR_THRIFT_DEPTH) are sticky: check
** tr_thrift_status once at the end.
*/
typedef struct tr_thrift {
    tr_buf *b;
    int16_t last[TR_THRIFT_DEPTH]; /* the last field id of each open struct */
    int depth;                     /* open structs - 1 */
    int failed;
} tr_thrift;

/* ^Starts the outermost struct. */
void tr_thrift_begin(tr_thrift *w, tr_buf *b);
void tr_thrift_i32(tr_thrift *w, int16_t id, int32_t v);
void tr_thrift_i64(tr_thrift *w, int16_t id, int64_t v);
void tr_thrift_bool(tr_thrift *w, int16_t id, int v);
void tr_thrift_binary(tr_thrift *w, int16_t id, const void *p, size_t n);
/* ^A struct field; its fields follow, closed by tr_thrift_end. */
void tr_thrift_struct(tr_thrift *w, int16_t id);
/* ^Closes the innermost struct (a STOP byte), the outermost one too. */
void tr_thrift_end(tr_thrift *w);
/* ^A list field of N elements of TYPE; then N tr_thrift_elem_* calls. */
void tr_thrift_list(tr_thrift *w, int16_t id, int type, size_t n);
void tr_thrift_elem_i32(tr_thrift *w, int32_t v);
void tr_thrift_elem_binary(tr_thrift *w, const void *p, size_t n);
/* ^A struct element of a list, closed by tr_thrift_end. */
void tr_thrift_elem_struct(tr_thrift *w);
/* ^TR_OK, or TR_FATAL (out of memory) / TR_FAIL (bad nesting) filling E. */
int tr_thrift_status(const tr_thrift *w, tr_error *e);

/* ---- RLE / bit-packed hybrid (definition levels, dictionary indices) ---- */

/*
** tr_pq_rle: encode the N values at V, each below 2^WIDTH (WIDTH 1..32),
** appending to B.  ^Runs of 8 or more equal values become RLE runs, the rest
** bit-packed runs of groups of 8 (the last group padded with zeros).  ^No
** length prefix.  ^Returns TR_OK or TR_FATAL.
*/
int tr_pq_rle(tr_buf *b, const uint32_t *v, size_t n, int width);
/* ^The bit width that holds every value below N (at least 1). */
int tr_pq_bit_width(uint64_t n);

/* ---- one Parquet file ---- */

/* The schema's column types (schema_impl.h) are Parquet's. */
enum tr_pq_type { TR_PQ_INT64 = TR_SC_INT, TR_PQ_DOUBLE = TR_SC_REAL, TR_PQ_STRING = TR_SC_TEXT };

typedef struct tr_pq_column {
    const char *name;
    int type;     /* enum tr_pq_type */
    int optional; /* may be null */
} tr_pq_column;

/*
** One value: the schema's (tr_sc_value).  A string names its bytes (valid
** until the next call) and a KEY that is equal for equal strings of this
** column and differs otherwise; KEY = TR_PQ_NO_KEY keeps the column chunk
** PLAIN.
*/
#define TR_PQ_NO_KEY TR_SC_NO_KEY
typedef tr_sc_value tr_pq_value;

/* Fills V with column COL of row ROW (0-based in the file). */
typedef void (*tr_pq_get)(void *user, int col, uint64_t row, tr_pq_value *v);

typedef struct tr_pq_limits {
    uint64_t row_group_rows; /* rows per row group */
    size_t page_bytes;       /* a data page is flushed past this many bytes */
    size_t dict_bytes;       /* a bigger dictionary falls back to PLAIN */
    int zstd_level;
} tr_pq_limits;

/* ^1 Mi rows per row group, 1 MiB pages and dictionaries, zstd level 1. */
void tr_pq_limits_default(tr_pq_limits *l);

typedef struct tr_pq_file tr_pq_file;

/*
** tr_pq_file_open: start a Parquet file on OUT with the NCOLS columns COLS
** (kept by pointer until tr_pq_file_finish).  ^Writes the leading magic.
*/
int tr_pq_file_open(tr_pq_file **f, tr_output *out, const tr_pq_column *cols, int ncols,
                    const tr_pq_limits *lim, tr_error *e);
/*
** tr_pq_file_rows: append N rows, pulled column by column through GET, in
** row groups of at most lim->row_group_rows.  ^Memory is one page and one
** dictionary, whatever N.
*/
int tr_pq_file_rows(tr_pq_file *f, uint64_t n, tr_pq_get get, void *user, tr_error *e);
/* ^A key/value pair for the footer (copied). */
int tr_pq_file_meta(tr_pq_file *f, const char *key, const char *value, tr_error *e);
/* ^Writes the footer and frees F; the caller commits OUT. */
int tr_pq_file_finish(tr_pq_file *f, tr_error *e);
/* ^Frees F without finishing it.  ^NULL is a no-op. */
void tr_pq_file_free(tr_pq_file *f);
/* ^Bytes written to OUT so far. */
uint64_t tr_pq_file_size(const tr_pq_file *f);

#endif
