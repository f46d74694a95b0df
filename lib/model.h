/*
** model.h: the inside of a tr_trace, shared by trace.c (appending) and
** freeze.c (sorting, nesting, iteration).  Not part of the public API.
*/
#ifndef TR_MODEL_H
#define TR_MODEL_H

#include "tr_mem.h"
#include "tr_trace.h"

/* An open-addressing index of rows: slots hold row + 1, 0 is empty. */
typedef struct row_index {
    uint32_t *slots;
    size_t cap; /* a power of two, or 0 */
    size_t n;
} row_index;

typedef struct str_entry {
    const char *p;
    uint32_t len;
    uint32_t hash;
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

    tr_vec inputs;    /* tr_input_info */
    tr_vec processes; /* tr_process */
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

    /* args: entry i has key/type packed in arg_key[i] and its value in arg_val[i] */
    tr_vec arg_key;   /* uint32_t: key << 3 | type */
    tr_vec arg_val;   /* uint64_t */
    tr_vec set_start; /* uint32_t: first entry of set k+1 */
    size_t building;  /* first entry of the set under construction */
};

/* Grows every column of a table to CAP rows; COLS and SIZES list them. */
int model_grow_columns(void **cols[], const size_t sizes[], size_t ncols, size_t cap);

#endif
