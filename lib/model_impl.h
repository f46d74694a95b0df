/*
** model_impl.h: the inside of a tr_trace, shared by trace.c (appending) and
** freeze.c (sorting, nesting, iteration).  Not part of the public API.
*/
#ifndef TR_MODEL_H
#define TR_MODEL_H

#include "tr_map.h"
#include "tr_mem.h"
#include "tr_trace.h"

#include <stdatomic.h>
#include <string.h>

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

/*
** A column that costs nothing while every row holds one value, then NARROW
** bytes a row (the value less BIAS), then 4 (from 1) and 8 as values pass
** what the block holds (read as tr_col).  Its block grows with its table's
** (model_table_columns lists it once made).
*/
typedef struct model_col {
    void *p; /* NULL while every row is SAME */
    int64_t same, bias;
    uint64_t lo, span; /* V fits as the column is when V - LO <= SPAN (unsigned) */
    uint8_t size;      /* of p's rows: 0, NARROW, 4 or 8 */
    uint8_t narrow;    /* 1 or 4 */
} model_col;

static inline model_col model_col_new(int narrow, int64_t bias, int64_t same)
{
    return (model_col){NULL, same, bias, (uint64_t)same, 0, 0, (uint8_t)narrow};
}

/*
** V less LO: what C stores for V (LO is BIAS in a narrow block, 0 in an
** 8-byte one), which fits as the column is when it is at most SPAN.  The
** appends take it once for the test and the store.
*/
static inline uint64_t model_col_offset(const model_col *c, int64_t v)
{
    return (uint64_t)v - c->lo;
}

static inline int model_col_fits(const model_col *c, int64_t v)
{
    return model_col_offset(c, v) <= c->span;
}

/* Stores X, an offset that fits, at row I; nothing while the column is SAME. */
static inline void model_col_store(model_col *c, size_t i, uint64_t x)
{
    if (!c->size) return;
    if (c->size == 4)
        ((uint32_t *)c->p)[i] = (uint32_t)x;
    else if (c->size == 8)
        ((uint64_t *)c->p)[i] = x;
    else
        ((uint8_t *)c->p)[i] = (uint8_t)x;
}

static inline void model_col_put(model_col *c, size_t i, int64_t v)
{
    model_col_store(c, i, model_col_offset(c, v));
}

/*
** Stores V at row I of a table of CAP rows whatever it is: the first row
** sets SAME, another value makes the block (rows before I hold SAME), one
** too wide widens it (1 to 4 bytes, 4 to 8).  TR_FATAL when out of memory.
*/
int model_col_set(model_col *c, size_t i, size_t cap, int64_t v);
/* C's block made SIZE (1, 4, 8; at least its rows' need) bytes a row, CAP rows, N kept. */
int model_col_make(model_col *c, size_t n, size_t cap, int size);

static inline tr_col model_col_view(const model_col *c)
{
    return (tr_col){c->p, c->same, c->bias, c->size};
}

static inline int64_t model_col_get(const model_col *c, size_t i)
{
    tr_col v = model_col_view(c);
    return tr_col_at(&v, i);
}

/*
** Slices: durations in 32 bits, the rare others (open slices, 2^32 ns and
** up) in a side table; category and size are narrow columns (0 and -1
** while no slice has one; a size 4 bytes while it fits them).  Depth and
** parent are freeze's work: their columns are made then, after the sort,
** unless a reader states parents (tr_slice_set_parent, tr_slice_put) before.
*/
typedef struct slice_table {
    size_t n, cap;
    int64_t *ts;
    uint32_t *dur; /* TR_DUR_WIDE: see wide */
    uint32_t *track, *name, *args;
    uint32_t *parent; /* NULL until a parent is stated, or freeze */
    model_col cat, bytes;
    uint16_t *depth;                 /* NULL until freeze */
    int64_t *thread_ts, *thread_dur; /* NULL until a slice has a thread time; TR_TIME_NONE */
    tr_map wide;                     /* row -> entry of wide_dur */
    tr_vec wide_dur;                 /* int64_t */
} slice_table;

/*
** Instants: a GT log's all have one category and scope; sizes fit 32 bits;
** its tracks and names are a few, a byte each.
*/
typedef struct instant_table {
    size_t n, cap;
    size_t ordered; /* rows 0..ORDERED are in time order (as appended: freeze need not look) */
    int64_t *ts;
    uint32_t *args;
    model_col track, name, cat, scope, bytes;
} instant_table;

/*
** Flows: an end's row and the name 4 bytes each; the ends' kinds, the
** category and the id are narrow columns (a GT log's flows all join two
** instants under one category; its ids, request seqs, fit 32 bits): a
** flow takes 16 bytes where a tr_flow is 32.
*/
typedef struct flow_table {
    size_t n, cap;
    uint32_t *from, *to, *name; /* TR_REF_ROW of the ends */
    model_col from_kind, to_kind, cat, id;
} flow_table;

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
    /*
    ** Reads of an arg set that could not allocate the room to decode it
    ** (model_args_set): the set read as empty.  Atomic: several threads may
    ** read one frozen trace.
    */
    atomic_uint read_failures;
    int frozen;
    int threads; /* freeze's and the reports' (tr_trace_set_threads) */

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
    tr_vec stacks;         /* stack_node; 0 is the empty stack */
    row_index stack_index; /* the nodes that are not their parent's next row (stacks.c) */

    flow_table flows;

    /*
    ** args: a set is a shape (its keys and value tags, interned: a reader's
    ** events repeat a few) and one 32-bit payload an arg.  Nearly all values
    ** fit the payload; the others go to arg_wide.  A raw set's payloads are
    ** stored in 1-4 bytes each and a byte a group of four (model_pay_put: a
    ** GT record's seq, sizes and string ids take 1-3), so a set costs 1.5
    ** bytes (4.5 past 255 shapes) and 2-3 an arg, where entries of key, tag
    ** and value would cost 8 an arg.  Sets are raw as built; past args_raw_max bytes of raw sets
    ** (counted as 8 a set), the oldest are sealed into compressed chunks
    ** (args.c), 3-4 bytes a set where a Kineto or GT event's set takes 22-24
    ** as 32-bit payloads, and are decoded again as read.  Raw set K is set
    ** sealed + K + 1.  Its payloads follow set K - 1's, so only every
    ** MODEL_SET_ANCHOR-th set's first byte is kept; its shape is a byte
    ** while shape ids fit one (model_raw_shape).
    */
    tr_vec args;          /* bytes: the payloads of the raw sets, set after set (model_pay_put) */
    tr_vec arg_wide;      /* uint64_t: their values too wide for a payload */
    tr_vec set_start;     /* uint32_t: first byte of raw set k * MODEL_SET_ANCHOR in args */
    tr_vec set_shape;     /* uint8_t, or uint32_t once a shape id passes 254: shape of raw set k */
    size_t building;      /* first byte of the set under construction */
    tr_vec building_kt;   /* uint32_t: its key << 3 | tag entries */
    uint64_t building_h;  /* their hash, kept as they are pushed (shape_intern) */
    tr_vec chunks;        /* arg_chunk: the sealed sets, oldest first */
    tr_vec arg_from;      /* arg_from: the traces whose chunks a merge took whole */
    uint32_t sealed;      /* sets in chunks */
    uint32_t raw_moved;   /* bumped as raw sets move (sealing): threads' read positions go stale */
    size_t building_desc; /* the byte of the set under construction's last group (model_pay_put) */
    size_t sealed_bytes;
    size_t args_raw_max; /* raw bytes past which whole chunks are sealed */
    void *seal_ctx;      /* ZSTD_CCtx of the sealing, made on the first */
    tr_vec seal_buf;     /* uint64_t: a chunk as it is encoded */
    uint64_t uid;        /* names the trace in the threads' caches of decoded chunks */
    tr_vec shape_words;  /* uint32_t: a shape's arg count, then its key << 3 | tag entries */
    tr_vec shape_start;  /* uint32_t: first word of shape k */
    row_index shape_index;
    uint32_t shape_memo[64]; /* shape id + 1 (0: none) by building_h's top bits (shape_intern) */

    tr_vec skipped; /* tr_skipped */
};

/* How an arg's payload holds its value. */
enum arg_tag {
    ARG_INT32 = 0, /* an INT that fits int32: the payload, sign-extended */
    ARG_REAL,      /* the payload indexes arg_wide */
    ARG_STR,       /* the payload is the string id */
    ARG_BOOL,      /* the payload is 0 or 1 */
    ARG_UINT32,    /* a UINT below 2^32 */
    ARG_INT64,     /* an INT, the payload indexes arg_wide */
    ARG_UINT64,    /* a UINT, the payload indexes arg_wide */
    ARG_FLOAT      /* a REAL that a float holds exactly: the payload is the float */
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

/*
** An arg set as stored: N args, entry KT[i] (key << 3 | tag) with payload
** VAL[i]; a wide value's payload indexes WIDE.
*/
typedef struct model_set {
    const uint32_t *kt, *val;
    const uint64_t *wide;
    size_t n;
} model_set;

/*
** Arg set SET (N 0 for set 0 or an unknown set).  A sealed set is read from
** this thread's cache of decoded chunks, a raw one decoded into this thread's
** buffer: VAL holds until the thread's next model_args_set call (a frozen
** trace may be read so by several threads).  When the room to decode it
** cannot be allocated, the set reads as empty and T counts it
** (tr_trace_read_failures), so that no output misses args silently.
*/
void model_args_set(const tr_trace *t, uint32_t set, model_set *out);

#define MODEL_SET_ANCHOR 8 /* raw sets a kept first payload covers (set_start) */

/* The shape of raw set K. */
static inline uint32_t model_raw_shape(const tr_trace *t, size_t k)
{
    return t->set_shape.elem == 1 ? ((const uint8_t *)t->set_shape.data)[k]
                                  : ((const uint32_t *)t->set_shape.data)[k];
}

/*
** A raw set's payloads are stored in groups of up to four: a byte giving
** each one's length less one in two bits (payload J of the group in bits
** 2J, 2J + 1), then the payloads, 1 to 4 bytes each, little-endian.  The
** lengths are known from that byte, so a reader finds the next payload
** without waiting on the one before, and skips a group with one lookup.  A
** put writes 4 bytes and a get reads 4, so args keeps MODEL_PAY_SLACK bytes
** of room past its last payload.
*/
#define MODEL_PAY_MAX   5 /* a payload's bytes at most, its share of a group's byte included */
#define MODEL_PAY_SLACK 8

static inline uint32_t model_pay_le(uint32_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return __builtin_bswap32(x);
#else
    return x;
#endif
}

/* The bytes less one that X takes. */
static inline unsigned model_pay_class(uint32_t x)
{
    return (unsigned)(31 - __builtin_clz(x | 1)) >> 3;
}

/*
** Payload I of a set (I counts from the set's first) stored at B + *END,
** which moves past it; a group's first makes the group's byte at *DESC.
*/
static inline void model_pay_put(unsigned char *b, size_t *end, size_t *desc, size_t i, uint32_t x)
{
    if (i % 4 == 0) {
        *desc = (*end)++;
        b[*desc] = 0;
    }
    unsigned k = model_pay_class(x);
    uint32_t le = model_pay_le(x);
    memcpy(b + *end, &le, sizeof le);
    *end += k + 1;
    b[*desc] |= (unsigned char)(k << (2 * (i % 4)));
}

/* Reads the N payloads of a set from B + P into OUT; returns where the next set starts. */
static inline size_t model_pay_get(const unsigned char *b, size_t p, size_t n, uint32_t *out)
{
    static const uint32_t mask[4] = {0xFF, 0xFFFF, 0xFFFFFF, 0xFFFFFFFF};
    for (size_t i = 0; i < n; i += 4) {
        unsigned d = b[p++];
        size_t m = n - i < 4 ? n - i : 4;
        for (size_t j = 0; j < m; j++) {
            unsigned k = d >> (2 * j) & 3;
            uint32_t x;
            memcpy(&x, b + p, sizeof x);
            out[i + j] = model_pay_le(x) & mask[k];
            p += k + 1;
        }
    }
    return p;
}

/* Where the set whose N payloads start at B + P ends. */
static inline size_t model_pay_skip(const unsigned char *b, size_t p, size_t n)
{
    while (n) {
        size_t m = n < 4 ? n : 4;
        unsigned d = b[p] & ((1u << (2 * m)) - 1);
        unsigned s = (d & 0x33) + (d >> 2 & 0x33); /* the four lengths summed by pairs */
        p += 1 + m + (s & 0xF) + (s >> 4);
        n -= m;
    }
    return p;
}

/* The first byte of raw set K in args (args.c). */
uint32_t model_raw_start(const tr_trace *t, size_t k);

/* The number of arg sets (the last set's id). */
static inline size_t model_args_sets(const tr_trace *t)
{
    return t->sealed + t->set_shape.len;
}

/* Sets up the sealing (tr_trace_new). */
void model_args_init(tr_trace *t);
/*
** A chunk is up to MODEL_CHUNK_SETS consecutive sets or MODEL_CHUNK_BYTES of
** them raw: small enough that decoding one for a single set is cheap, large
** enough for zstd to find the repeats of a reader's few shapes and keys.
*/
#define MODEL_CHUNK_SETS  4096
#define MODEL_CHUNK_BYTES ((size_t)64 << 10)

/* Seals the oldest raw sets into whole chunks (tr_args_end, past args_raw_max bytes of them). */
void model_args_seal(tr_trace *t);

/* Whether the raw sets are past args_raw_max bytes and make a whole chunk: time to seal. */
static inline int model_args_raw_full(const tr_trace *t)
{
    size_t raw = t->args.len + (t->set_shape.len + t->arg_wide.len) * 8;
    return raw > t->args_raw_max &&
           (raw >= MODEL_CHUNK_BYTES || t->set_shape.len >= MODEL_CHUNK_SETS);
}

/* The shape of the N entries KT (key << 3 | tag), added if new; TR_NONE when out of memory. */
uint32_t model_shape_intern(tr_trace *t, const uint32_t *kt, size_t n);

/* Appends raw set SHAPE, whose payloads start at t->building; 0 when out of memory. */
int model_set_push(tr_trace *t, uint32_t shape);

/*
** Appends SRC's arg sets to DST's (no set half built in DST), so that set K
** of SRC is set K + model_args_sets(DST) before the call; STR maps SRC's
** string ids to DST's.  SRC's sealed chunks are taken whole, not decoded:
** DST reads them through their trace's shapes and STR (args.c).  TR_FATAL
** when out of memory (DST is then failed).
*/
int model_args_merge(tr_trace *dst, const tr_trace *src, const uint32_t *str);
/* Frees what only the sealing uses (freeze: no set is added after it). */
void model_args_seal_end(tr_trace *t);
/* Frees the sealed chunks and the sealing's state (tr_trace_free). */
void model_args_fini(tr_trace *t);
/* Bytes the sealed chunks hold. */
size_t model_args_sealed_bytes(const tr_trace *t);

static inline tr_str model_arg_key(uint32_t kt)
{
    return (tr_str)(kt >> 3);
}

/* The type (enum tr_arg_type) of arg I of set MS; its value's bits go to *BITS. */
static inline int model_arg_value(const model_set *ms, size_t i, uint64_t *bits)
{
    static const unsigned char type[8] = {TR_ARG_INT,  TR_ARG_REAL, TR_ARG_STR,  TR_ARG_BOOL,
                                          TR_ARG_UINT, TR_ARG_INT,  TR_ARG_UINT, TR_ARG_REAL};
    unsigned tag = ms->kt[i] & 7;
    uint32_t payload = ms->val[i];
    if (tag == ARG_REAL || tag == ARG_INT64 || tag == ARG_UINT64) {
        *bits = ms->wide[payload];
    } else if (tag == ARG_INT32) {
        *bits = (uint64_t)(int64_t)(int32_t)payload;
    } else if (tag == ARG_FLOAT) {
        float f;
        memcpy(&f, &payload, sizeof f);
        double d = f;
        memcpy(bits, &d, sizeof d);
    } else {
        *bits = payload;
    }
    return type[tag];
}

/* Slice I's duration (negative: still open). */
static inline int64_t model_slice_dur(const slice_table *s, size_t i)
{
    if (s->dur[i] != TR_DUR_WIDE) return s->dur[i];
    uint32_t k = tr_map_find(&s->wide, i);
    return k == UINT32_MAX ? 0 : ((const int64_t *)s->wide_dur.data)[k];
}

/* Sets slice I's duration; TR_FATAL when the side table cannot grow. */
int model_slice_set_dur(slice_table *s, size_t i, int64_t dur);

/* Makes a column made late (*COL, SIZE bytes a row: parents, thread times), the rows so far FILL's
 * bytes. */
int model_slice_make_column(slice_table *s, void **col, size_t size, int fill);
/* Makes the two thread time columns, TR_TIME_NONE for the rows so far. */
int model_slice_make_thread_time(slice_table *s);

/*
** The slice columns for the sort and merges: ts, dur, track, name, args,
** then parent, depth, cat, bytes and the thread times when they exist; the
** count (at most MODEL_SLICE_COLS) goes to *N.
*/
#define MODEL_SLICE_COLS 11
void model_slice_columns(slice_table *s, void **cols[], size_t sizes[], size_t *n);

/* The columns of one event table: where each is held, its element size, and the table's rows. */
typedef struct model_cols {
    void **col[MODEL_SLICE_COLS];
    size_t size[MODEL_SLICE_COLS];
    size_t ncols;
    size_t *n, *cap;
} model_cols;

/* The columns of event table KIND (enum tr_event_kind): for growing, reserving and trimming. */
void model_table_columns(tr_trace *t, int kind, model_cols *out);
/* The same for the flow table. */
void model_flow_columns(flow_table *f, model_cols *out);

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
