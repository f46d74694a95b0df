/*
** tr_trace.h: the columnar in-memory model every reader fills and every
** writer, analysis and renderer reads.
**
** A trace is append-only while readers fill it, then tr_trace_freeze sorts
** every table by time and computes slice nesting; after that it is read-only.
** Time is int64 nanoseconds from the origin of the event's input (GT's
** elapsed 0, Recorder's start, a Chrome trace's first timestamp).
**
** Failures while appending are sticky: an append that cannot allocate returns
** TR_NONE (or string 0) and marks the trace, and tr_trace_status reports it,
** so a reader checks once per record instead of after every call.
**
** Names say what a call does, here and in every table of the tree:
**   tr_X_intern  find by value, or add: always yields an id (TR_NONE on OOM)
**   tr_X_find    look up by value, never add: TR_NONE / NULL when absent
**   tr_X_get     the read-only row (or text) of an id
**   tr_X_at      the row of an id for its reader to update
**   tr_X_add     append a new row, never looking for an equal one
*/
#ifndef TR_TRACE_H
#define TR_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "tr_error.h"

#define TR_NONE UINT32_MAX

typedef uint32_t tr_str; /* interned string id; 0 is "" */

typedef struct tr_trace tr_trace;

/* ^Returns a new empty trace, or NULL when out of memory. */
tr_trace *tr_trace_new(void);
/* ^Releases everything the trace holds.  ^NULL is a no-op. */
void tr_trace_free(tr_trace *t);
/* ^TR_OK, or TR_FATAL once any append ran out of memory (E is then filled). */
int tr_trace_status(const tr_trace *t, tr_error *e);
/*
** ^How many reads of T's arg sets could not allocate the room to decode the
** set, which then read as empty.  ^Whoever makes output from T takes the
** count first and passes it to tr_trace_reads_ok at the end, which returns
** TR_OK when it has not grown, else TR_FATAL (E filled): output that misses
** args must not count as done.
*/
unsigned tr_trace_read_failures(const tr_trace *t);
int tr_trace_reads_ok(const tr_trace *t, unsigned mark, tr_error *e);

/*
** tr_str_intern: intern a string
** METHOD: tr_trace
**
** ^Returns the id of the N bytes at S, adding them if absent.
** ^Equal bytes give equal ids within one trace.  ^Id 0 is "".
** S need not end in NUL and may be freed after the call.
*/
tr_str tr_str_intern(tr_trace *t, const char *s, size_t n);
tr_str tr_str_internz(tr_trace *t, const char *s);
/*
** tr_str_add: store a string that is unlikely to repeat (free text) without
** entering it in the hash table.  ^Its id differs from any interned copy.
*/
tr_str tr_str_add(tr_trace *t, const char *s, size_t n);
/*
** tr_str_again: store string S's text again
** ^A new id, as tr_str_add of S's text gives, that shares S's text rather
** than copying it: for a reader that finds its free text repeated.  ^0 when
** S is 0 or unknown.
*/
tr_str tr_str_again(tr_trace *t, tr_str s);
/* ^Returns the NUL-terminated text of id S and its length in *LEN (may be NULL). */
const char *tr_str_get(const tr_trace *t, tr_str s, size_t *len);
size_t tr_str_count(const tr_trace *t);

/* ---- inputs: one per file read; the processes of an input are its own ---- */

typedef struct tr_input_info {
    tr_str path;            /* as the user named it (member names inside archives) */
    tr_str format;          /* reader name */
    tr_str origin_wall;     /* wall-clock time of the origin as the source states it, or 0 */
    int64_t origin_unix_ns; /* the origin as Unix time, INT64_MIN when unknown */
    tr_str clock;           /* what the source's clock is ("elapsed since dispatcher start") */
    uint64_t lines_skipped; /* text that is not a record (headers, console output) */
    uint64_t warnings;      /* records skipped with a warning */
    uint32_t meta;          /* arg set of source metadata, 0 = none */
    int32_t rank;           /* rank given with --rank FILE=N, -1 = none */
    /* Filled by tr_align (tr_align.h): how the input's clock was read and placed. */
    int64_t origin_precision_ns; /* how far origin_unix_ns may be off, 0 = unknown */
    tr_str origin_from;          /* what the origin was inferred from */
    int64_t offset_ns;           /* added to the input's times on the merged timeline */
    int32_t placed;              /* enum tr_align_how */
    /*
    ** The earliest time among its events that a sink which forgets dropped
    ** (tr_sink.h), INT64_MAX when none: tr_align places the input by it as
    ** by the events still in the trace.
    */
    int64_t dropped_first_ts;
} tr_input_info;

/* ^Adds an input and returns its id, or TR_NONE when out of memory. */
uint32_t tr_input_add(tr_trace *t, const char *path, const char *format);
tr_input_info *tr_input_at(tr_trace *t, uint32_t id);
const tr_input_info *tr_input_get(const tr_trace *t, uint32_t id);
size_t tr_input_count(const tr_trace *t);

/* ---- skipped: files of what the user named that were not read, and why ---- */

enum tr_skip_why {
    TR_SKIP_INSIDE = 1,      /* under a directory read whole as one input (OWNER) */
    TR_SKIP_RECORDER_OUTPUT, /* Recorder's own _chrome/ or _text/ output, under its trace OWNER */
    TR_SKIP_REPLACED,        /* an archive member a later one of its name replaces (tar's rule) */
    TR_SKIP_UNKNOWN,         /* a file of a run folder that no reader recognises */
    TR_SKIP_REPEATED,        /* an input named again (OWNER: as it was named first) */
    TR_SKIP_OUTPUT           /* in a run folder, what tracecat writes (a database, a Parquet dir) */
};

typedef struct tr_skipped {
    tr_str path, owner; /* owner: 0 when WHY names none */
    int32_t why;        /* enum tr_skip_why */
} tr_skipped;

/* ^Records that PATH was not read, and why; TR_NONE when out of memory, else its index. */
uint32_t tr_skipped_add(tr_trace *t, const char *path, const char *owner, int why);
const tr_skipped *tr_skipped_get(const tr_trace *t, uint32_t i);
size_t tr_skipped_count(const tr_trace *t);

/* ---- processes ---- */

typedef struct tr_process {
    uint32_t input;     /* the input it came from */
    int64_t pid;        /* as the source names it; -1 when it has none */
    int32_t rank;       /* from the source or --rank; -1 = unknown */
    int32_t sort_index; /* display order hint; 0 = none */
    tr_str name, host, labels;
    int64_t offset_ns; /* added to its times by tr_align (its input's offset, or per rank) */
} tr_process;

/* ^Returns the process PID of input INPUT, adding it if absent (TR_NONE on OOM). */
uint32_t tr_process_intern(tr_trace *t, uint32_t input, int64_t pid);
/*
** ^The process PID on host HOST of input INPUT (dumps of several nodes in
** one file: the same pid on two hosts is two processes), adding it with
** that host if absent.  ^tr_process_intern is HOST 0 (none stated).  ^The
** host a process was found by stays its key when its name is changed.
*/
uint32_t tr_process_intern_on(tr_trace *t, uint32_t input, tr_str host, int64_t pid);
tr_process *tr_process_at(tr_trace *t, uint32_t id);
const tr_process *tr_process_get(const tr_trace *t, uint32_t id);
size_t tr_process_count(const tr_trace *t);

/* ---- tracks: a lane of events (thread, worker, rank, client, counter, ...) ---- */

enum tr_track_kind {
    TR_TRACK_THREAD = 0,
    TR_TRACK_WORKER,
    TR_TRACK_CLIENT,
    TR_TRACK_RANK,
    TR_TRACK_COUNTER,
    TR_TRACK_ASYNC,
    TR_TRACK_GPU,
    TR_TRACK_KIND_COUNT
};

/*
** How a track's slices nest.  By default freeze derives depth and parent
** from time containment.  A source that records the call tree itself
** (Recorder's call levels) marks its tracks TR_NEST_GIVEN and states each
** slice's parent with tr_slice_set_parent: times truncated to ticks can put
** a child at its parent's end tick, where containment would make it a
** sibling.
*/
enum tr_nesting { TR_NEST_TIME = 0, TR_NEST_GIVEN };

typedef struct tr_track {
    uint32_t process;
    uint8_t kind;
    uint8_t nesting; /* enum tr_nesting */
    int32_t sort_index;
    int64_t tid; /* thread id, stream id, ...; -1 when the track has none */
    tr_str name;
} tr_track;

/*
** tr_track_intern: find or add a track
** ^A track is identified by (process, kind, tid, key); KEY tells apart tracks
** that have no tid (GT's "worker auto_worker_0").  ^A new track takes KEY as
** its name; the reader may rename it later through tr_track_at.
*/
uint32_t tr_track_intern(tr_trace *t, uint32_t process, int kind, int64_t tid, tr_str key);
tr_track *tr_track_at(tr_trace *t, uint32_t id);
const tr_track *tr_track_get(const tr_trace *t, uint32_t id);
size_t tr_track_count(const tr_trace *t);
const char *tr_track_kind_name(int kind);

/* ---- args: key/value sets attached to events ---- */

enum tr_arg_type { TR_ARG_INT = 0, TR_ARG_REAL, TR_ARG_STR, TR_ARG_BOOL, TR_ARG_UINT };

typedef struct tr_arg {
    tr_str key;
    int type; /* enum tr_arg_type */
    union {
        int64_t i; /* INT, BOOL */
        uint64_t u;
        double d;
        tr_str s;
    } v;
} tr_arg;

/*
** Building a set: tr_args_begin, then any number of tr_args_* calls, then
** tr_args_end, which returns the set's id.  ^An empty set has id 0.  ^Only
** one set is under construction at a time.
*/
void tr_args_begin(tr_trace *t);
void tr_args_int(tr_trace *t, tr_str key, int64_t v);
void tr_args_uint(tr_trace *t, tr_str key, uint64_t v);
void tr_args_real(tr_trace *t, tr_str key, double v);
void tr_args_bool(tr_trace *t, tr_str key, int v);
void tr_args_str(tr_trace *t, tr_str key, tr_str v);
uint32_t tr_args_end(tr_trace *t);
/*
** Sets whose keys a reader knows in advance: tr_args_shape names the N
** keys KEY[i], each an int when bit I of INTS is set, else a string, once
** (0 when out of memory or a key is out of range); tr_args_shaped then adds
** a whole set of that shape, VAL[i] the I-th arg's value, without building
** and looking up its keys again.  ^The set is the one tr_args_begin, the
** tr_args_int or tr_args_str of each arg and tr_args_end would give, and
** its id is returned the same way.
*/
uint32_t tr_args_shape(tr_trace *t, const tr_str *key, uint32_t ints, size_t n);
uint32_t tr_args_shaped(tr_trace *t, uint32_t shape, const int64_t *val);
/* ^Number of sets: the last set's id (no set is empty). */
size_t tr_args_sets(const tr_trace *t);
/* ^Number of args in set SET, and the I-th of them. */
size_t tr_args_count(const tr_trace *t, uint32_t set);
void tr_args_at(const tr_trace *t, uint32_t set, size_t i, tr_arg *out);
/*
** ^The first MAX args of SET into OUT, as tr_args_at gives them, in one
** lookup of the set; returns how many SET has (more than MAX: call again
** with room for them all).
*/
size_t tr_args_get(const tr_trace *t, uint32_t set, tr_arg *out, size_t max);
/* ^Finds KEY in SET; returns 1 and fills OUT, or 0. */
int tr_args_find(const tr_trace *t, uint32_t set, const char *key, tr_arg *out);

/*
** tr_trace_args_raw: how many bytes of arg sets stay as built
** ^Sets are kept as built (counted as 8 bytes a set and 1-5 an arg) until they pass
** BYTES (TR_ARGS_RAW_DEFAULT in a new trace); then the oldest are sealed,
** a few thousand at a time, into compressed chunks that cost a few bytes a
** set and are decoded again as they are read.  ^Every reader sees the same
** sets either way; a small trace's stay raw, and cost no time.  ^0 seals each
** chunk as soon as it is full (a streaming load, whose budget counts the
** sealed bytes; tests).
*/
#define TR_ARGS_RAW_DEFAULT ((size_t)4 << 20)
void tr_trace_args_raw(tr_trace *t, size_t bytes);

/* ---- events ---- */

enum tr_event_kind {
    TR_EV_SLICE = 0,
    TR_EV_INSTANT,
    TR_EV_COUNTER,
    TR_EV_SAMPLE,
    TR_EV_KIND_COUNT
};

/* Instant scope (Chrome's "s"): thread, process or global. */
enum tr_scope { TR_SCOPE_THREAD = 0, TR_SCOPE_PROCESS, TR_SCOPE_GLOBAL };

/*
** ^Each append returns the row of the new event, or TR_NONE when out of
** memory.  ^Rows change at freeze; tr_ref values given to flows follow them.
** DUR -1 marks a slice still open: tr_slice_end closes it, and freeze closes
** what remains at the end of its input's time span.  BYTES -1 = no size.
*/
uint32_t tr_slice_add(tr_trace *t, uint32_t track, int64_t ts, int64_t dur, tr_str name, tr_str cat,
                      int64_t bytes, uint32_t args);
void tr_slice_end(tr_trace *t, uint32_t row, int64_t end_ts);
/*
** tr_slice_set_parent: state the parent of slice ROW on a TR_NEST_GIVEN track
** ^PARENT is a row of the same track appended before ROW, or TR_NONE for a
** top-level slice; anything else is ignored.  ^Freeze keeps the parent,
** computes depth from it, and orders slices of such tracks that start at
** the same time in the order they were appended (the source's sequence)
** rather than longer first.
*/
void tr_slice_set_parent(tr_trace *t, uint32_t row, uint32_t parent);
/*
** tr_slice_set_thread_time: the thread clock of slice ROW (Chrome's tts, tdur)
** ^TS is where the slice starts and DUR how long it ran on its thread's own
** CPU clock, in ns; TR_TIME_NONE for what the source does not say.  ^The
** columns exist only once a slice has a thread time, so traces without one
** pay nothing.
*/
#define TR_TIME_NONE INT64_MIN
void tr_slice_set_thread_time(tr_trace *t, uint32_t row, int64_t ts, int64_t dur);
/*
** tr_slice_reserve: room for N more slices
** ^The slice columns grow to exactly N rows past the current ones (never
** shrink), so a reader that knows its count appends without the columns
** doubling and copying.  ^TR_OK, or TR_FATAL when out of memory (the
** trace is then failed).
*/
int tr_slice_reserve(tr_trace *t, size_t n);
/*
** tr_slice_prefault: fault in part J of PARTS of the room past the slices
** ^The pages of the columns' rows from the current count to their room
** (tr_slice_reserve, tr_trace_expect), cut by rows as tr_pool_part cuts
** them, are mapped now (tr_mem_populate), so that a reader's idle threads
** take the faults its later puts would have.  ^Threads may fault distinct
** parts at once, beside work that does not touch the trace.
*/
void tr_slice_prefault(tr_trace *t, size_t j, size_t parts);
/*
** tr_slice_add_rows: append N slices at once, to be filled by tr_slice_put
** ^Returns the first new row, or TR_NONE when out of memory, frozen or too
** many.  ^CAT nonzero makes the category column exist, as a tr_slice_add
** with a category does.  ^BYTES is the width the puts' sizes need: 0 when
** none has one (-1), 4 when every one is -1 .. 2^32 - 2, else 8; the size
** column is made as wide as they and the rows before need (4 bytes a row
** where a tr_slice_add size would take them).  ^Every new row must be put
** before the trace is used again; until then the rows hold garbage.
*/
uint32_t tr_slice_add_rows(tr_trace *t, size_t n, int cat, int bytes);
/*
** tr_slice_put: fill row ROW of a block from tr_slice_add_rows
** ^Threads may put distinct rows at once: it touches that row only.  ^PARENT
** is an earlier row of the same track or TR_NONE (as tr_slice_set_parent
** states it; only "earlier" is checked).  ^A DUR the row cannot hold (-1,
** or 2^32 - 1 ns and more) is stored as 0 and TR_END is returned: set it
** with tr_slice_end from one thread once the puts are done.  ^A size wider
** than the block's BYTES said is TR_FATAL, the row left unput.
*/
int tr_slice_put(tr_trace *t, uint32_t row, uint32_t track, int64_t ts, int64_t dur, tr_str name,
                 tr_str cat, int64_t bytes, uint32_t args, uint32_t parent);
uint32_t tr_instant_add(tr_trace *t, uint32_t track, int64_t ts, tr_str name, tr_str cat, int scope,
                        int64_t bytes, uint32_t args);
uint32_t tr_counter_add(tr_trace *t, uint32_t track, int64_t ts, double value);
uint32_t tr_sample_add(tr_trace *t, uint32_t track, int64_t ts, uint32_t stack, uint32_t args);
/*
** tr_sample_weight: how many samples one sample stands for
** ^A folded input's line is one sample with its count in the "count" arg:
** returns that count for the sample args ARGS, 0 for a negative one, and 1
** when there is none.
*/
uint64_t tr_sample_weight(const tr_trace *t, uint32_t args);

/* ---- stacks: frames interned, stacks a trie of (parent, frame) ---- */

typedef struct tr_frame {
    tr_str function, file, module;
    int32_t line; /* 0 = unknown */
    int is_native;
} tr_frame;

/* ^Equal frames give equal ids.  ^Returns TR_NONE when out of memory. */
uint32_t tr_frame_intern(tr_trace *t, const tr_frame *f);
const tr_frame *tr_frame_get(const tr_trace *t, uint32_t id);
size_t tr_frame_count(const tr_trace *t);
/*
** ^Stack 0 is the empty stack.  ^tr_stack_push returns the stack made of
** PARENT with FRAME as its new innermost frame; equal paths give equal ids.
*/
uint32_t tr_stack_push(tr_trace *t, uint32_t parent, uint32_t frame);
/*
** ^tr_stack_push_path pushes the N FRAMES (root first) on PARENT one after
** the other, as tr_stack_push, and puts each stack made in STACKS[i].
** ^Returns the last (PARENT when N is 0), or TR_NONE when out of memory.
*/
uint32_t tr_stack_push_path(tr_trace *t, uint32_t parent, const uint32_t *frames, size_t n,
                            uint32_t *stacks);
uint32_t tr_stack_parent(const tr_trace *t, uint32_t stack);
uint32_t tr_stack_frame(const tr_trace *t, uint32_t stack);
uint32_t tr_stack_depth(const tr_trace *t, uint32_t stack);
/*
** ^tr_stack_frames puts the frames of STACK, root first, in FRAMES when it
** has room for them (MAX) and returns their count either way.
*/
uint32_t tr_stack_frames(const tr_trace *t, uint32_t stack, uint32_t *frames, uint32_t max);
/*
** ^Starts fetching the node of STACK, for a tr_stack_frames of it soon:
** a caller that walks many stacks in a row fetches the next ones ahead.
*/
void tr_stack_prefetch(const tr_trace *t, uint32_t stack);
size_t tr_stack_count(const tr_trace *t);

/* ---- flows: arrows between events ---- */

typedef uint64_t tr_ref; /* an event: kind in the high 32 bits, row in the low */
#define TR_REF(kind, row) (((uint64_t)(kind) << 32) | (uint32_t)(row))
#define TR_REF_KIND(r)    ((int)((r) >> 32))
#define TR_REF_ROW(r)     ((uint32_t)(r))

typedef struct tr_flow {
    tr_ref from, to;
    tr_str name, cat;
    uint64_t id;
} tr_flow;

uint32_t tr_flow_add(tr_trace *t, const tr_flow *f);
/* ^Fills OUT with flow ROW and returns 1; 0 (OUT zeroed) past the last. */
int tr_flow_get(const tr_trace *t, uint32_t row, tr_flow *out);
size_t tr_flow_count(const tr_trace *t);

/*
** tr_time_add: A + B for times and durations
** ^Saturates at INT64_MIN and INT64_MAX instead of overflowing: a hostile
** trace can put a slice's start and length near the limits.
*/
static inline int64_t tr_time_add(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b) return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b) return INT64_MIN;
    return a + b;
}

/* ---- freezing and reading the tables ---- */

/*
** tr_trace_freeze: sort and nest
** ^Sorts slices by (ts, longer first, input order) and the other event tables
** by (ts, input order), remaps flows, closes still-open slices at the end of
** their input's span and computes each slice's depth and parent on its track.
** ^Appending after freeze is an error.  ^Freezing twice is a no-op.
*/
int tr_trace_freeze(tr_trace *t, tr_error *e);
/*
** tr_trace_freeze_unordered: freeze for a report that only counts
** ^As tr_trace_freeze (open slices closed, appends refused after), but the
** tables keep their rows in the order they were appended and slices get
** no depth or parent (NULL unless a reader stated them): tracecat info's
** counts, span and names do not depend on order, and sorting and nesting
** a GT log's 391 k slices was 4 % of its instructions.  ^tr_iter, the
** writers and whatever reads depth, parent or the time order need
** tr_trace_freeze.
*/
int tr_trace_freeze_unordered(tr_trace *t, tr_error *e);
int tr_trace_frozen(const tr_trace *t);

/*
** tr_trace_set_threads: threads freeze and tr_report_info may use
** ^THREADS > 0 is taken as asked; 0 (a new trace's) means the CPUs
** (tr_pool_threads).  ^tr_load_many sets its options' threads.  ^The
** results are the same on any number.
*/
void tr_trace_set_threads(tr_trace *t, int threads);
int tr_trace_threads(const tr_trace *t);

/*
** tr_col: a column kept as narrow as its values allow, read through
** tr_col_at: none at all while every row holds one value (SAME: every
** instant of a GT log has category "gt"), else SIZE bytes a row (1 or 4,
** the value less BIAS; 8, the value).
*/
typedef struct tr_col {
    const void *p; /* NULL: every row is SAME */
    int64_t same, bias;
    int size;
} tr_col;

static inline int64_t tr_col_at(const tr_col *c, size_t i)
{
    if (!c->p) return c->same;
    if (c->size == 4) return (int64_t)((const uint32_t *)c->p)[i] + c->bias;
    if (c->size == 1) return (int64_t)((const uint8_t *)c->p)[i] + c->bias;
    return ((const int64_t *)c->p)[i];
}

/*
** Read-only views of the event columns (valid until the trace is freed).
** A slice's duration, category and size are read through tr_slice_dur,
** tr_slice_cat and tr_slice_bytes: the model keeps durations in 32 bits
** (the few longer ones, about 4.3 s and up, aside), and category and size
** are tr_col (none while every slice has the same; a size 4 bytes while it
** fits them), so a bare slice costs 30 bytes.  Depth and parent are
** freeze's: before it they are NULL (parent holds the stated ones, once a
** reader states one).
*/
typedef struct tr_slices {
    size_t n;
    const int64_t *ts;
    const uint32_t *track, *name, *args, *parent; /* parent TR_NONE at top level */
    const uint16_t *depth;
    const uint32_t *dur32; /* TR_DUR_WIDE: the duration is in the trace's side table */
    tr_col cat, bytes;
    const tr_trace *t;
    const int64_t *thread_ts_col, *thread_dur_col; /* NULL when no slice has a thread time */
} tr_slices;

#define TR_DUR_WIDE UINT32_MAX

/* ^The duration of a slice whose dur32 is TR_DUR_WIDE (negative: still open). */
int64_t tr_slice_dur_wide(const tr_trace *t, size_t row);

/* ^Slice I's duration in ns, its category (0 = none) and its size (-1 = none). */
static inline int64_t tr_slice_dur(const tr_slices *s, size_t i)
{
    uint32_t d = s->dur32[i];
    return d != TR_DUR_WIDE ? (int64_t)d : tr_slice_dur_wide(s->t, i);
}

static inline tr_str tr_slice_cat(const tr_slices *s, size_t i)
{
    return (tr_str)tr_col_at(&s->cat, i);
}

static inline int64_t tr_slice_bytes(const tr_slices *s, size_t i)
{
    return tr_col_at(&s->bytes, i);
}

/* ^Slice I's start and duration on its thread's clock in ns (TR_TIME_NONE: not known). */
static inline int64_t tr_slice_thread_ts(const tr_slices *s, size_t i)
{
    return s->thread_ts_col ? s->thread_ts_col[i] : TR_TIME_NONE;
}

static inline int64_t tr_slice_thread_dur(const tr_slices *s, size_t i)
{
    return s->thread_dur_col ? s->thread_dur_col[i] : TR_TIME_NONE;
}

/*
** Instants: track, name, category, scope and size are tr_col (a GT log's
** 9 tracks and few names take a byte each), read through tr_instant_track,
** _name, _cat, _scope and _bytes.
*/
typedef struct tr_instants {
    size_t n;
    const int64_t *ts;
    const uint32_t *args;
    tr_col track, name, cat, scope, bytes;
    size_t ordered; /* rows before it are known to be in time order (appended so, or sorted) */
} tr_instants;

static inline uint32_t tr_instant_track(const tr_instants *v, size_t i)
{
    return (uint32_t)tr_col_at(&v->track, i);
}

static inline tr_str tr_instant_name(const tr_instants *v, size_t i)
{
    return (tr_str)tr_col_at(&v->name, i);
}

static inline tr_str tr_instant_cat(const tr_instants *v, size_t i)
{
    return (tr_str)tr_col_at(&v->cat, i);
}

static inline int tr_instant_scope(const tr_instants *v, size_t i)
{
    return (int)tr_col_at(&v->scope, i);
}

static inline int64_t tr_instant_bytes(const tr_instants *v, size_t i)
{
    return tr_col_at(&v->bytes, i);
}

typedef struct tr_counters {
    size_t n;
    const int64_t *ts;
    const double *value;
    const uint32_t *track;
} tr_counters;

typedef struct tr_samples {
    size_t n;
    const int64_t *ts;
    const uint32_t *track, *stack, *args;
} tr_samples;

void tr_trace_slices(const tr_trace *t, tr_slices *out);
void tr_trace_instants(const tr_trace *t, tr_instants *out);
void tr_trace_counters(const tr_trace *t, tr_counters *out);
void tr_trace_samples(const tr_trace *t, tr_samples *out);
/* ^The rows of each event table, by enum tr_event_kind, into N. */
void tr_trace_event_counts(const tr_trace *t, size_t n[TR_EV_KIND_COUNT]);

/*
** tr_iter: every event of a frozen trace in one time order: by ts, then
** slices (longer first) before instants, counters and samples, then input
** order within a table.
*/
typedef struct tr_event {
    int kind; /* enum tr_event_kind */
    uint32_t row;
    int64_t ts;
} tr_event;

typedef struct tr_iter {
    const tr_trace *t;
    size_t pos[TR_EV_KIND_COUNT];
} tr_iter;

void tr_iter_init(tr_iter *it, const tr_trace *t);
/* ^Returns 1 and fills EV, or 0 at the end. */
int tr_iter_next(tr_iter *it, tr_event *ev);
/*
** ^tr_iter_seek: the next event IT yields is the first at or after TS in
** that order (every event before it has a smaller ts), whatever it yielded
** before.
*/
void tr_iter_seek(tr_iter *it, int64_t ts);

/*
** tr_trace_expect: make room for what a reader is about to append
** ^A reader that knows its input's size (tr_input_size) and how many bytes
** its format spends on an event states how many rows it expects, so that
** the columns are sized once rather than grown (and copied) again and again.
** ^The room is address space: pages never written cost no memory, and
** freeze gives back what was not filled.  ^Counts are added to the rows the
** trace already has.  ^Advice only: when the room cannot be had, the trace
** stays as it was and grows as it fills.
*/
typedef struct tr_expect {
    size_t events[TR_EV_KIND_COUNT]; /* rows of each event table, by enum tr_event_kind */
    size_t args;                     /* arg values (every set's) */
    size_t sets;                     /* arg sets */
    size_t stacks;                   /* distinct stacks (tr_stack_push) */
    size_t flows;
    size_t strs; /* strings stored (interned or not) */
    size_t text; /* bytes of their text */
} tr_expect;

void tr_trace_expect(tr_trace *t, const tr_expect *x);

/* ^Bytes the model holds (columns, strings, args), for the budget check. */
size_t tr_trace_memory(const tr_trace *t);

/*
** tr_trace_drop_events: forget every event and flow, keep the rest
** ^Empties the event tables and the flows of an unfrozen trace (the next
** row appended is row 0 again) and keeps strings, args, inputs, processes,
** tracks, frames and stacks.  ^For a sink whose consumer took the rows
** (tr_sink.h): the model then holds no more events than one batch.
*/
void tr_trace_drop_events(tr_trace *t);

#endif
