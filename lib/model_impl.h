/*
** model_impl.h: the inside of a tr_trace, shared by trace.c (appending) and
** freeze.c (sorting, nesting, iteration).  Not part of the public API.
*/
#ifndef TR_MODEL_H
#define TR_MODEL_H

#include "tr_mem.h"
#include "tr_trace.h"

/* An open-addressing index of rows: slots hold hash << 32 | (row + 1), 0 is empty. */
typedef struct row_index {
    uint64_t *slots;
    size_t cap; /* a power of two, or 0 */
    size_t n;
} row_index;

typedef struct str_entry {
    const char *p;
    uint32_t len;
    uint32_t json_clean; /* 1 when the text goes into a JSON string as it is */
} str_entry;

typedef struct slice_table {
    size_t n, cap;
    int64_t *ts, *dur, *bytes;
    uint32_t *track, *name, *cat, *args, *parent;
    uint16_t *depth;
} slice_table;

typedef struct instant_table {
    size_t n, cap;
    int64_t *ts, *bytes;
    uint32_t *track, *name, *cat, *args;
    uint8_t *scope;
} instant_table;

typedef struct counter_table {
    size_t n, cap;
    int64_t *ts;
    double *value;
    uint32_t *track;
} counter_table;

typedef struct sample_table {
    size_t n, cap;
    int64_t *ts;
    uint32_t *track, *stack, *args;
} sample_table;

typedef struct stack_node {
    uint32_t parent, frame, depth;
} stack_node;

struct tr_trace {
    int failed; /* an append ran out of memory */
    int frozen;

    tr_arena text; /* string bytes */
    tr_vec strs;   /* str_entry */
    row_index str_index;

    tr_vec inputs;        /* tr_input_info */
    tr_vec processes;     /* tr_process */
    tr_vec process_hosts; /* tr_str: the host each process was interned on (its key) */
    row_index process_index;
    tr_vec tracks; /* tr_track */
    row_index track_index;

    slice_table slices;
    instant_table instants;
    counter_table counters;
    sample_table samples;

    tr_vec frames; /* tr_frame */
    row_index frame_index;
    tr_vec stacks; /* stack_node; 0 is the empty stack */
    row_index stack_index;

    tr_vec flows; /* tr_flow */

    /*
    ** args: one uint64_t entry each, key << 35 | tag << 32 | payload (see
    ** arg_tag).  Nearly all values fit the 32-bit payload; the others go to
    ** arg_wide, so the column readers fill most stays at 8 bytes an arg.
    */
    tr_vec args;      /* uint64_t */
    tr_vec arg_wide;  /* uint64_t: the values too wide for an entry */
    tr_vec set_start; /* uint32_t: first entry of set k+1 */
    size_t building;  /* first entry of the set under construction */

    tr_vec skipped; /* tr_skipped */
};

/* How an arg entry holds its value. */
enum arg_tag {
    ARG_INT32 = 0, /* an INT that fits int32: the payload, sign-extended */
    ARG_REAL,      /* the payload indexes arg_wide */
    ARG_STR,       /* the payload is the string id */
    ARG_BOOL,      /* the payload is 0 or 1 */
    ARG_UINT32,    /* a UINT below 2^32 */
    ARG_INT64,     /* an INT, the payload indexes arg_wide */
    ARG_UINT64     /* a UINT, the payload indexes arg_wide */
};

#define ARG_KEY_BITS 29 /* keys are string ids below 2^29 */

/* String S's entry (that of "" for an unknown id), inline for the writers' inner loops. */
static inline const str_entry *model_str_entry(const tr_trace *t, tr_str s)
{
    return (const str_entry *)t->strs.data + (s < t->strs.len ? s : 0);
}

/*
** The length of the prefix of the N bytes at S that JSON takes as they are
** (text.c): strings are checked once when stored, so writers copy the clean
** ones (nearly all) without looking at them again.
*/
size_t model_json_clean_prefix(const char *s, size_t n);

static inline tr_str model_arg_key(uint64_t entry)
{
    return (tr_str)(entry >> 35);
}

/* The type (enum tr_arg_type) of ENTRY; its value's bits go to *BITS. */
static inline int model_arg_value(const tr_trace *t, uint64_t entry, uint64_t *bits)
{
    static const unsigned char type[8] = {TR_ARG_INT,  TR_ARG_REAL, TR_ARG_STR,  TR_ARG_BOOL,
                                          TR_ARG_UINT, TR_ARG_INT,  TR_ARG_UINT, TR_ARG_INT};
    unsigned tag = (unsigned)(entry >> 32) & 7;
    uint32_t payload = (uint32_t)entry;
    if (tag == ARG_REAL || tag == ARG_INT64 || tag == ARG_UINT64)
        *bits = ((const uint64_t *)t->arg_wide.data)[payload];
    else if (tag == ARG_INT32)
        *bits = (uint64_t)(int64_t)(int32_t)payload;
    else
        *bits = payload;
    return type[tag];
}

/* The entries [*FIRST, *END) of arg set SET (both 0 for set 0 or an unknown set). */
void model_args_span(const tr_trace *t, uint32_t set, size_t *first, size_t *end);

/* Grows every column of a table to CAP rows; COLS and SIZES list them. */
int model_grow_columns(void **cols[], const size_t sizes[], size_t ncols, size_t cap);

/*
** For merging traces (merge.c): whether string S is the interned copy of its
** text (not one stored by tr_str_add), and the key track ID was found by.
*/
int model_str_interned(const tr_trace *t, tr_str s);
tr_str model_track_key(const tr_trace *t, uint32_t id);
tr_str model_process_key_host(const tr_trace *t, uint32_t id);

#endif
