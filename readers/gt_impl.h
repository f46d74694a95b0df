/*
** gt_impl.h: what the files of the GT reader share (not public;
** shared/formats/gt.md).
**
**   gt.c       lines, records, slices and the reader
**   gt_text_impl.h  its character classes and short-string helpers
**   gt_flow.c  the flows from a client's request through its workers and back
*/
#ifndef TR_GT_IMPL_H
#define TR_GT_IMPL_H

#include "tr_map.h"
#include "tr_reader.h"
#include "tr_text.h"

#include <stdint.h>

#define GT_NS_PER_S  1000000000
#define GT_NO_LANE   UINT32_MAX
#define GT_SRC_BITS  6   /* sets of sources: a log has a few clients and workers */
#define GT_SRC_MAX   64  /* longer sources skip the cache */
#define GT_STR_BITS  8   /* sets of events, commands, detail keys and values */
#define GT_STR_MAX   48  /* longer strings skip the cache */
#define GT_DET_SLOTS 256 /* details whose args are kept, by id */
#define GT_DET_ARGS  4   /* details with more args are parsed every time */
/*
** The caches are set associative: a key may sit in any of the GT_WAYS slots
** of its set.  A hit moves its entry one slot forward and a miss replaces
** the set's last slot, so strings that repeat stay while one-offs (tensor
** ids) pass through.
*/
#define GT_WAYS      4
#define GT_SRC_SLOTS ((1 << GT_SRC_BITS) * GT_WAYS)
#define GT_STR_SLOTS ((1 << GT_STR_BITS) * GT_WAYS)
/*
** Behind the string cache, for interned strings it misses: a log's shape
** and tag values ("(25, 600)", "006b8b456b_916") are a few thousand that
** come back now and then, too many for the sets the hot strings sit in and
** a probe of the trace's large index each (cache misses) without this.
*/
#define GT_MORE_BITS 12
/* Details longer than GT_STR_MAX, by hash: a repeated one's text is stored once (gt_long). */
#define GT_LONGS 1024
/* Sets of two record heads (gt_head_slot), by the bytes that start them; longer heads skip it. */
#define GT_HEAD_BITS   8
#define GT_HEAD_WINDOW 64
#define GT_HEAD_MAX    80

/* Rare paths stay out of line, so the hot ones save no registers. */
#if defined(__GNUC__)
#define GT_SLOW __attribute__((noinline, cold))
#else
#define GT_SLOW
#endif

/* Strings interned once per read. */
enum gt_const {
    C_CAT_GT,
    C_CAT_CLIENT,
    C_CAT_WORKER,
    C_RECV,
    C_SEND,
    C_WSEND,
    C_WRECV,
    C_SEQ,
    C_COMMAND,
    C_BYTES,
    C_DETAILS,
    C_SEND_SEQ,
    C_RECV_SEQ,
    C_SEND_BYTES,
    C_RECV_BYTES,
    C_UNFINISHED,
    C_START_ESTIMATED,
    C_COMMANDS,
    C_OP,
    C_CAPTURED,
    C_LIMIT,
    C_OP_MATMUL,
    C_OP_ADD,
    C_OP_RELU,
    C_OP_SUM,
    C_OP_MEAN,
    C_OP_RANDN,
    C_OP_GETDATA,
    C_OP_FREETENSOR,
    C_OP_OTHER,
    C_CLOCK,
    C_CAT_FLOW,
    C_COUNT
};

static const char *const gt_const_text[C_COUNT] = {
    [C_CAT_GT] = "gt",
    [C_CAT_CLIENT] = "gt.client",
    [C_CAT_WORKER] = "gt.worker",
    [C_RECV] = "RECV",
    [C_SEND] = "SEND",
    [C_WSEND] = "WORKER_SEND",
    [C_WRECV] = "WORKER_RECV",
    [C_SEQ] = "seq",
    [C_COMMAND] = "command",
    [C_BYTES] = "bytes",
    [C_DETAILS] = "details",
    [C_SEND_SEQ] = "send_seq",
    [C_RECV_SEQ] = "recv_seq",
    [C_SEND_BYTES] = "send_bytes",
    [C_RECV_BYTES] = "recv_bytes",
    [C_UNFINISHED] = "unfinished",
    [C_START_ESTIMATED] = "start_estimated",
    [C_COMMANDS] = "commands",
    [C_OP] = "op",
    [C_CAPTURED] = "captured",
    [C_LIMIT] = "limit",
    [C_OP_MATMUL] = "matmul",
    [C_OP_ADD] = "add",
    [C_OP_RELU] = "relu",
    [C_OP_SUM] = "sum",
    [C_OP_MEAN] = "mean",
    [C_OP_RANDN] = "randn",
    [C_OP_GETDATA] = "getdata",
    [C_OP_FREETENSOR] = "freetensor",
    [C_OP_OTHER] = "other",
    [C_CLOCK] = "seconds since GT dispatcher start",
    [C_CAT_FLOW] = "gt.flow",
};

/*
** A record's head, "EVENT | SOURCE | COMMAND | " as the line has it (padding
** and separators included), in the set of the GT_HEAD_WINDOW bytes that
** start it: a log repeats a few dozen heads (79 in a million lines), so a
** line that starts with a known one takes its first fields' places, ids and
** lanes from here instead of scanning, trimming and looking up each one.
*/
typedef struct gt_head_slot {
    uint8_t n;                  /* the head's bytes before its last " | " (0: empty) */
    uint8_t f1e, f2s, f2e, f3s; /* the fields as split: [0, f1e) [f2s, f2e) [f3s, n) */
    uint8_t ev_at, ev_n, src_at, src_n, cmd_at, cmd_n; /* and trimmed */
    tr_str ev, cmd;
    uint32_t lane, vis_lane;
    char text[GT_HEAD_MAX]; /* its N + 3 bytes */
} gt_head_slot;

/* A record line, its text pointing into the line. */
typedef struct gt_rec {
    int64_t ts;
    int64_t seq;  /* -1: none ([TAPE]) */
    int64_t size; /* bytes, -1: none */
    const char *ev, *src, *cmd, *det;
    size_t ev_n, src_n, cmd_n, det_n;
    int tape;
    int vis_match; /* visualize's pattern matches: a '|' follows COMMAND */
    /*
    ** The head at HEAD, its set and its slot when known; else, when
    ** HEAD_N (its length) is not 0, its fields as split (gt_head_slot) to add.
    */
    const char *head;
    size_t head_n, head_f[4];
    gt_head_slot *head_set, *known;
} gt_rec;

/* A start waiting for its end: a client's RECV, a worker's SEND. */
typedef struct gt_open {
    int set;
    int64_t ts, seq, bytes;
    tr_str name;
    tr_str op;    /* visualize's op type */
    uint32_t row; /* its instant */
} gt_open;

/* Pairing state of one track; lanes[i] belongs to track track_base + i. */
typedef struct gt_lane {
    gt_open req;  /* client: the request not answered yet */
    gt_open send; /* worker: the last WORKER_SEND without its reply */
    gt_open vis;  /* visualize: the lane's pending start */
} gt_lane;

/* A worker reply on its way back to the client whose request caused it. */
typedef struct gt_reply {
    uint32_t lane; /* the client's */
    uint32_t row;  /* the WORKER_RECV instant */
} gt_reply;

typedef struct gt_src_slot {
    uint32_t len; /* 0: empty */
    int kind;
    uint32_t lane, vis_lane;
    char text[GT_SRC_MAX];
} gt_src_slot;

typedef struct gt_str_slot {
    uint64_t head, tail; /* the first and last 8 bytes (see gt_words) */
    uint32_t len;        /* 0: empty */
    uint32_t interned;   /* ID came from tr_str_intern, not tr_str_add */
    tr_str id;
    char text[GT_STR_MAX];
} gt_str_slot;

/*
** Longer details: the hash and length say whether the text may be the one
** in the trace, so that only a likely repeat reads it (a cache miss).
*/
typedef struct gt_long_slot {
    uint64_t hash;
    uint32_t len;
    tr_str id; /* 0: empty */
} gt_long_slot;

/* The key=value args a details string gave (gt_detail_args), replayed when it comes again. */
typedef struct gt_det_slot {
    tr_str det;      /* 0: empty */
    uint32_t n;      /* args */
    uint32_t is_int; /* bit K: arg K is an int, else a string */
    tr_str key[GT_DET_ARGS];
    int64_t val[GT_DET_ARGS]; /* the int, or the string's id */
    uint32_t shape[4]; /* of its records' sets (tr_args_shape), by gt_rec_shape; 0: unknown */
} gt_det_slot;

/*
** A set's shape by its keys and which of them are ints (gt_shape): details
** that differ only in their values ("tensor_id=2452", "tensor_id=2444")
** have one, found without the trace's shape table.
*/
#define GT_SHAPE_BITS 6
typedef struct gt_shape_slot {
    uint32_t n, ints; /* 0 args: empty */
    uint32_t shape;   /* tr_args_shape's */
    tr_str key[4 + GT_DET_ARGS];
} gt_shape_slot;

typedef struct gt_rd {
    tr_trace *t;
    tr_sink *sink; /* told after each batch where later events can start (gt_low) */
    tr_input *in;
    tr_diag *diag;
    int visualize;
    int no_args; /* tr_read_opts.no_args: no set is built, no details read */
    uint32_t input, process, track_base;
    tr_str c[C_COUNT];
    tr_vec lanes; /* gt_lane */
    tr_buf scratch;
    int oom; /* the scratch buffer could not grow */

    uint64_t skipped, warnings;
    int seen_record;
    tr_str origin_wall, captured, limit;

    int64_t prev_ts; /* the previous record's time, any source */
    int have_prev;
    /* a WORKER_RECV that may be a batch reply, decided by the next record */
    gt_open batch;
    uint32_t batch_lane;
    int64_t batch_start;
    /* flows: the request worker traffic serves, and replies waiting for its SEND */
    uint32_t flow_req; /* lane, GT_NO_LANE when none */
    tr_vec replies;    /* gt_reply */

    /* the shapes of sets whose keys only a few flags decide (tr_args_shape); 0: unknown */
    uint32_t shape_rec[4];     /* a record without details, by gt_rec_shape */
    uint32_t shape_client[32]; /* a client slice, by which of its args it has */
    uint32_t shape_worker[64]; /* a worker slice, likewise */

    gt_src_slot srcs[GT_SRC_SLOTS];
    gt_str_slot strs[GT_STR_SLOTS];
    gt_str_slot more[1 << GT_MORE_BITS]; /* interned strings only */
    gt_det_slot dets[GT_DET_SLOTS];
    gt_shape_slot shapes[2 << GT_SHAPE_BITS];
    gt_long_slot longs[GT_LONGS];
    gt_head_slot heads[2 << GT_HEAD_BITS];
} gt_rd;

static inline gt_lane *gt_lane_at(gt_rd *g, uint32_t lane)
{
    return &TR_VEC_AT(&g->lanes, gt_lane, lane);
}

/* ---- flows (gt_flow.c) ---- */

/* A client's RECV on LANE: its request is served from now on. */
void gt_flow_request(gt_rd *g, uint32_t lane);
/* A worker's first line of a round trip (instant ROW): the served request caused it. */
void gt_flow_out(gt_rd *g, uint32_t row);
/* FROM -> TO on a worker's lane; TO goes back with the served request's SEND. */
void gt_flow_back(gt_rd *g, uint32_t from, uint32_t to);
/* The SEND answering LANE's request: replies go to it; the latest request still open is served. */
void gt_flow_answer(gt_rd *g, uint32_t lane, uint32_t send);

#endif
