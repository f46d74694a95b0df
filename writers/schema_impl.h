/*
** schema_impl.h: the SQL schema's tables, once (writers/schema.c), for the
** writers that store them: SQLite (the DDL, the inserts, the views) and
** Parquet (the columns and their values).
**
** Tables and columns are named after Perfetto's trace processor where the
** concept is the same (README "SQL schema").  A table lists its columns with
** their type and whether they may be null, says what a row key is (a slice
** row, an arg set and place, a stack id, ...) and reads each column of a row
** from the model through its getter.  A view is SQL that SQLite runs; the
** views Parquet also stores (io, sample_stack) have a getter as well, so
** both say the same thing in the two places where it has to be said.
*/
#ifndef TR_SCHEMA_IMPL_H
#define TR_SCHEMA_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "tr_mem.h"
#include "tr_rows.h"
#include "tr_writer.h"

/* Column types: Parquet INT64, DOUBLE and UTF-8 strings; SQLite INTEGER, REAL, TEXT. */
enum tr_sc_type { TR_SC_INT = 0, TR_SC_REAL, TR_SC_TEXT };

/* Column flags. */
enum {
    TR_SC_NULL = 1, /* may be null */
    TR_SC_RANK = 2  /* the process's rank: a partitioned dataset keeps it in the path */
};

typedef struct tr_sc_column {
    const char *name;
    int type;        /* enum tr_sc_type */
    unsigned flags;  /* TR_SC_* */
    const char *sql; /* computed by SQLite's view over the stored columns; NULL = stored */
} tr_sc_column;

/* What a table's row key is. */
enum tr_sc_rows {
    TR_SC_ROWS_VIEW = 0, /* a view only SQLite has: no rows of its own */
    TR_SC_ROWS_INPUT,    /* input id */
    TR_SC_ROWS_PROCESS,  /* process row */
    TR_SC_ROWS_THREAD,   /* track row of a track with a thread (tr_sc_thread_track) */
    TR_SC_ROWS_TRACK,    /* track row */
    TR_SC_ROWS_SLICE,    /* slice row, and so on for the four event tables */
    TR_SC_ROWS_INSTANT,
    TR_SC_ROWS_COUNTER,
    TR_SC_ROWS_SAMPLE,
    TR_SC_ROWS_FLOW,     /* flow row */
    TR_SC_ROWS_ARG,      /* arg set << 32 | the arg's place in it */
    TR_SC_ROWS_CALLSITE, /* stack id, from 1 */
    TR_SC_ROWS_FRAME     /* frame row */
};

/* The event kind (TR_EV_*) of an event table's rows, -1 for other tables. */
int tr_sc_event_kind(int rows);

/*
** One value.  Text names its bytes: the trace's or a static string, or
** (TRANSIENT) the context's scratch, valid until the next get.  KEY is equal
** for equal strings of one column and differs otherwise (a dictionary key);
** TR_SC_NO_KEY when there is none.  The caller zeroes V and sets KEY to
** TR_SC_NO_KEY before a get.
*/
#define TR_SC_NO_KEY UINT64_MAX
typedef struct tr_sc_value {
    int is_null;
    int is_int; /* a value of a column of no one type (SQLite's arg pack) that is I */
    int transient;
    int64_t i;
    double d;
    const char *s;
    size_t n;
    uint64_t key;
} tr_sc_value;

/* What getters read: the trace, its tables, which events the filter keeps. */
typedef struct tr_sc_ctx {
    const tr_trace *t;
    tr_slices sl;
    tr_instants in;
    tr_counters co;
    tr_samples sa;
    uint8_t *keep[TR_EV_KIND_COUNT]; /* per event row, 1 = written; NULL = every row */
    size_t n_sets;
    /*
    ** Per arg set (1-based), the id of its first arg, made when needed
    ** (arg_id): 4 bytes a set while the trace holds fewer than 2^32 args.
    */
    uint64_t *set_first;
    uint32_t *set_first32;
    uint32_t id_set; /* else the set whose first arg's id is ID_FIRST (arg_id) */
    uint64_t id_first;
    tr_buf scratch; /* computed text (display values, stacks) */
    /*
    ** The args of set ARGS_SET (0: none; set ids start at 1), fetched
    ** together: a row's columns, or a column's rows, read them in turn.
    */
    uint32_t args_set;
    tr_arg *set_args;
    size_t set_args_n, set_args_cap;
    tr_arg arg;      /* the arg read alone when there is no memory for its set's */
    tr_vec io_calls; /* tr_io_call of the Recorder inputs' I/O calls, by slice row */
    /*
    ** Streaming (lib/tr_rows.h): the trace holds no events, so an event
    ** table's getter reads CUR[kind] (set before each get: its row is the
    ** key), and the flows are FLOWS, bound to rows (tr_rows_flows).
    */
    const tr_row_event *cur[TR_EV_KIND_COUNT];
    const tr_flow *flows;
    size_t n_flows;
} tr_sc_ctx;

/* ^Reads T's tables and marks the events FILTER (NULL: all) keeps.  ^TR_OK or TR_E_NOMEM. */
int tr_sc_open(tr_sc_ctx *c, const tr_trace *t, const tr_filter *filter, tr_error *e);
void tr_sc_close(tr_sc_ctx *c);
/*
** ^RC, or when RC is TR_OK and a computed value (a display value, a stack's
** text) could not be made for want of memory, so NULL was given in its
** place, TR_FATAL (E filled): a writer asks before its output is done.
*/
int tr_sc_check(const tr_sc_ctx *c, int rc, tr_error *e);
/*
** ^OWN becomes a copy of C for another thread to read through; ^what it
** makes of its own (scratch text, its args, a table of arg ids C had not
** made) is freed by tr_sc_copy_end.
*/
void tr_sc_copy(tr_sc_ctx *own, const tr_sc_ctx *c);
void tr_sc_copy_end(tr_sc_ctx *own, const tr_sc_ctx *c);
/* ^Whether event ROW of KIND is written. */
int tr_sc_kept(const tr_sc_ctx *c, int kind, size_t row);
/* ^Whether TRACK is a lane where one thing runs at a time: it has a thread row (utid = id). */
int tr_sc_thread_track(const tr_sc_ctx *c, uint32_t track);
/* ^The flows: the trace's, or a stream's. */
size_t tr_sc_flow_count(const tr_sc_ctx *c);
int tr_sc_flow_get(const tr_sc_ctx *c, uint32_t row, tr_flow *out);
/* ^Whether a flow end is a written slice or instant. */
int tr_sc_ref_kept(const tr_sc_ctx *c, tr_ref ref);

typedef void (*tr_sc_get)(tr_sc_ctx *c, int col, uint64_t key, tr_sc_value *v);

typedef struct tr_sc_table {
    const char *name;
    const tr_sc_column *cols;
    int ncols;
    int rows;      /* enum tr_sc_rows */
    tr_sc_get get; /* NULL for a view only SQLite has */
    /*
    ** A table: its key is the first column (INTEGER PRIMARY KEY), or with
    ** KEY2 the first two (WITHOUT ROWID); with computed columns SQLite stores
    ** the others as STORED_AS and NAME is a view adding the computed ones.
    */
    int key2;
    const char *stored_as;
    /* A view: the SELECT SQLite runs, and the rows Parquet stores of ROWS (NULL: all). */
    const char *view_sql;
    /* Its SQL for files before schema 5 (no __intrinsic_arg_pack) that lack it; NULL: VIEW_SQL. */
    const char *old_view_sql;
    int (*where)(const tr_sc_ctx *c, uint64_t key);
} tr_sc_table;

/* ^Stored tables first, in the order SQLite creates them, then the views. */
extern const tr_sc_table tr_sc_tables[];
extern const size_t tr_sc_n_tables;

/* ^The GPU views' SQL (schema_gpu.c). */
extern const char tr_sc_gpu_kernel_sql[];
extern const char tr_sc_kernel_launch_sql[];
extern const char tr_sc_memory_bw_sql[];
extern const char tr_sc_kernel_sequence_root_sql[];
extern const char tr_sc_kernel_sequence_sql[];
extern const char tr_sc_queue_length_sql[];

#endif
