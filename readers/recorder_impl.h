/*
** recorder_impl.h: the pieces of the Recorder reader shared by its files
** (shared/formats/recorder.md).  Not part of the public API.
**
**   recorder.c        probe, the reader, generations, metadata, ranks on threads
**   recorder_decode.c Z-blocks, call-signature tables, grammars, expansion
**   recorder_model.c  the decoded ranks into the model: call signatures, the end
**   recorder_merge.c  their records merged by time into rows, on the pool's threads
**
** Files are members of a tr_dir (tr_input.h): a directory, or an archive
** read without extracting it.
*/
#ifndef TR_RECORDER_IMPL_H
#define TR_RECORDER_IMPL_H

#include "tr_reader.h"
#include "tr_mem.h"

#include <stddef.h>
#include <stdint.h>

/* Little-endian loads: every trace seen is little-endian (recorder.md §2). */
static inline uint32_t rec_le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline int32_t rec_lei32(const unsigned char *p)
{
    return (int32_t)rec_le32(p);
}

static inline uint64_t rec_le64(const unsigned char *p)
{
    return (uint64_t)rec_le32(p) | (uint64_t)rec_le32(p + 4) << 32;
}

/* Bytes of one file (or a slice of it); OWN is what to free, NULL when borrowed. */
typedef struct rec_bytes {
    const unsigned char *p;
    size_t n;
    void *own;
} rec_bytes;

void rec_bytes_free(rec_bytes *b);

/* Room set aside for a file: N bytes at P, a slice of a larger block. */
typedef struct rec_room {
    unsigned char *p;
    size_t n;
} rec_room;

/* ^LABEL of D + NAME into BUF: how errors name a file of the trace. */
const char *rec_path(const tr_dir *d, const char *name, char *buf, size_t size);

/* Generations told apart by the notes' rules (recorder.md §1, §4, §9, §10.1). */
enum rec_gen { REC_G2A = 0, REC_G2B, REC_G3 };

/* One call signature, pointing into its table's bytes. */
typedef struct rec_sig {
    int64_t tid;
    const char *args; /* space-terminated fields */
    uint32_t args_len;
    uint8_t func, level, argc;
    uint8_t present; /* the table had this terminal id */
    uint64_t at;     /* byte offset of the entry in its file */
} rec_sig;

typedef struct rec_cst {
    rec_bytes raw; /* the table's bytes (inflated for G3) */
    rec_sig *sig;
    uint32_t n;
} rec_cst;

typedef struct rec_rule {
    int32_t id;
    uint32_t n;              /* symbols */
    const unsigned char *at; /* n pairs of int32 (value, repeat) */
    uint64_t len;            /* records the rule expands to */
} rec_rule;

typedef struct rec_cfg {
    rec_bytes raw;
    rec_rule *rule;
    uint32_t n;
    uint32_t *slot; /* open addressing: rule index + 1 by id, 0 = empty */
    size_t cap;
    uint32_t start; /* index of rule -1 */
} rec_cfg;

/*
** ^Inflates the Z-block (uint64 compressed size, uint64 raw size, zlib data)
** at offset AT of SRC into OUT.  NAME and BASE (the offset of SRC in its file)
** locate errors.  ^Refuses a raw size zlib could not have produced from the
** compressed size, before allocating it.
*/
int rec_zblock(const rec_bytes *src, size_t at, const char *name, uint64_t base, rec_bytes *out,
               size_t *next, tr_error *e);

/* ^Parses a call-signature table; HDR is 8 (G2a) or 16 bytes an entry.  Keeps RAW. */
int rec_cst_parse(rec_cst *c, rec_bytes *raw, int hdr, uint32_t n_names, const char *name,
                  tr_error *e);
void rec_cst_free(rec_cst *c);
/* The most entries a table of SIZE bytes, HDR bytes a header, can hold (rec_cst_parse). */
uint64_t rec_cst_most(uint64_t size, int hdr);

/*
** Bytes a terminal id takes in a rank's sequence when its table has N
** entries: 1, 2 or 4.  The sequence is read twice a record (nesting, merge),
** and every byte of it is a fresh page's: most tables fit a byte.
*/
static inline unsigned rec_seq_width(uint64_t n)
{
    return n <= 256 ? 1 : n <= 65536 ? 2 : 4;
}

/* Terminal id POS of a sequence of W-byte ids. */
static inline uint32_t rec_seq_at(const unsigned char *seq, unsigned w, uint64_t pos)
{
    if (w == 1) return seq[pos];
    if (w == 2) return ((const uint16_t *)(const void *)seq)[pos];
    return ((const uint32_t *)(const void *)seq)[pos];
}

/*
** ^Parses a grammar, checks every reference (terminals below N_TERMINALS,
** rules that exist, no cycles) and computes each rule's expanded length,
** refusing more than MAX_RECORDS (LIMIT says what holds that many).  Keeps RAW.
*/
int rec_cfg_parse(rec_cfg *g, rec_bytes *raw, uint32_t n_terminals, uint64_t max_records,
                  const char *limit, const char *name, tr_error *e);
void rec_cfg_free(rec_cfg *g);
/* ^Expands rule -1 into OUT (cfg->rule[start].len terminal ids of W bytes, rec_seq_width). */
int rec_cfg_expand(const rec_cfg *g, unsigned char *out, unsigned w, tr_error *e);

#define REC_WARN_KEEP 4 /* warnings kept per rank; the rest counted */

/* The run: metadata shared by all ranks. */
typedef struct rec_run {
    const tr_dir *dir;
    int gen;
    int ver[3], has_ver;
    int32_t ranks;
    double start_ts, res;
    int ipc, ts_zlib;
    unsigned char g3_flags[10]; /* G3 header bytes 4..9 and 36..39 */
    rec_bytes mt;
    const char **name; /* into mt, NUL-free spans */
    uint32_t *name_len;
    uint32_t n_names, mpi_start, h5_start;
    rec_cst shared; /* inter-process: the one table */
    int32_t *ug;    /* inter-process: rank -> grammar */
    int32_t n_ug;
    rec_bytes ugcfg;  /* G3 inter-process: ug.cfg */
    size_t *ug_off;   /* its blocks */
    rec_bytes ts;     /* G3: recorder.ts, whole */
    uint64_t *ts_off; /* G3: each rank's blob in it */
    uint64_t *ts_len;
    int64_t res_ns; /* ns per tick when a whole number, else 0 */
    double res_nsd;
    uint64_t limit; /* ticks past it overflow int64 nanoseconds */
} rec_run;

/* A thread's open records: by row in the model, or by position in its rank. */
typedef struct tid_track {
    int64_t tid;
    uint32_t track;
    tr_vec open; /* open_rec, outermost first */
} tid_track;

/* A rank once decoded (on a worker thread). */
typedef struct rec_rank {
    rec_cst cst;        /* local mode: its own table */
    rec_bytes ts;       /* (d_start, d_end) uint32 pairs */
    unsigned char *seq; /* terminal ids in record order, SEQ_W bytes each */
    unsigned seq_w;
    uint64_t n;
    rec_room ts_room;  /* G2: where <r>.ts is read when it has its stated size */
    rec_room seq_room; /* and where its records go when they fit */
    rec_room cfg_room; /* and where its grammar is read, which, once expanded, */
    uint32_t *up_room; /* the parents' positions take, up to UP_ROOM_N records */
    uint64_t up_room_n;
    rec_bytes fly_raw;           /* <r>.inflight (tracerecord): calls not returned */
    rec_cst fly;                 /* their signatures */
    const unsigned char *fly_at; /* their int64 start ticks, fly.n of them */
    int cut;                     /* the rank's trace ends without its closing checkpoint */
    int64_t os_pid;              /* <r>.proc (tracerecord): its OS process, 0 when unknown */
    char os_host[72];            /* and the host it ran on */
    int rc;
    tr_error err;
    tr_error warn[REC_WARN_KEEP]; /* workers cannot call the diag, which is not thread-safe */
    uint32_t n_warn;
    /* its nesting, found on the same thread when it has an up room (rec_nest_rank) */
    int nested, bad_order, overflow;
    uint64_t last_start;      /* ticks */
    int64_t dur_min, dur_max; /* ticks */
    tr_vec nest;              /* tid_track (no track): open records by their position in the rank */
    uint32_t *up; /* per record: its parent's position in the rank, or TR_NONE; once merged, its row
                     in the block */
    uint64_t *samp;      /* every REC_SAMPLE-th record: the tick before it */
    unsigned char *used; /* per terminal id: some record is one */
} rec_rank;

/*
** rec_model_open: get ready to put the decoded ranks RK of RUN into T as
** input INPUT: replays the ranks' warnings to DIAG (may be NULL), converts
** the call-signature tables, adds the ranks' processes.  THREADS fill the
** model (tr_pool_threads).
*/
typedef struct rec_model rec_model;
int rec_model_open(rec_model **m, tr_trace *t, rec_run *run, rec_rank *rk, uint32_t input,
                   tr_diag *diag, int threads, tr_error *e);
/* ^First every record into the model (TR_OK), then the end (TR_END), or a failure. */
int rec_model_next(rec_model *m, tr_error *e);
/* ^NULL is a no-op. */
void rec_model_free(rec_model *m);

/* ---- the model's state (recorder_model.c, recorder_merge.c) ---- */

/* What a call signature becomes, computed once per table entry. */
typedef struct sig_model {
    tr_str name, cat;
    uint32_t args;
    int64_t bytes;
    int64_t tid;
    uint32_t level;
} sig_model;

/* Per function id: the argument keys and the bytes rule, resolved once. */
typedef struct func_info {
    int done, io;
    tr_str name, cat;
    uint32_t n_keys;
    tr_str keys[8];
} func_info;

enum { CAT_POSIX, CAT_MPIIO, CAT_MPI, CAT_HDF5, CAT_USER, CAT_COUNT };

/* Where a chunk starts in a rank: its first record, and the tick before it. */
typedef struct cut {
    uint64_t pos, prev;
} cut;

typedef struct rank_out {
    uint32_t process;
    const sig_model *sm;
    tid_track *last;
    tr_vec tracks; /* tid_track: (tid, track) pairs seen */
} rank_out;

struct rec_model {
    tr_trace *t;
    rec_run *run;
    rec_rank *rk;
    uint32_t input;
    tr_diag *diag;
    tr_diag quiet; /* the diag when the caller gives none */
    tr_str cat[CAT_COUNT];
    func_info *func; /* n_names + 1 (user functions last) */
    tr_vec argn;     /* tr_str: "arg1", "arg2", ... on demand */
    uint64_t warnings;
    rank_out *ro;                 /* per rank */
    sig_model *shared;            /* inter-process: the one table's */
    uint64_t limit;               /* ticks past it overflow int64 nanoseconds */
    int key_whole;                /* the merge's key holds start, duration and leaf (merge_key) */
    unsigned key_start, key_leaf; /* their shifts */
    uint64_t key_dur;             /* the longest duration (ticks) */
    int threads;
    int filled;
    size_t rows;      /* records of all ranks */
    uint32_t first;   /* the block's first row */
    size_t n_chunks;  /* the merge's, each a span of start times */
    cut *cut;         /* (n_chunks + 1) x ranks: where each chunk starts in each rank */
    size_t *chunk_at; /* n_chunks + 1: each chunk's first row in the block */
    uint32_t *up; /* the ranks' without an up room, one after the other: a block on huge pages */
};

/* Ticks (the run's time resolution) as nanoseconds. */
int64_t rec_ticks_ns(const rec_run *run, uint64_t ticks);
/* ^RO's track of thread TID of rank RANK (made on first use), or NULL when out of memory. */
tid_track *rec_track_for(rec_model *m, rank_out *ro, int32_t rank, int64_t tid);
/* ^Opens ROW of LEVEL on TT, closing what it ends; *PARENT is the innermost open one left. */
int rec_nest_by_level(tid_track *tt, uint32_t row, uint32_t level, uint64_t start, uint64_t end,
                      uint32_t *parent);
/* ^The error for rank BAD, whose timestamps run past what nanoseconds can hold. */
int rec_merge_overflow(rec_model *m, int32_t bad, tr_error *e);
/* ^The merge's per-rank arrays, sized; the tick limit (from rec_model_open). */
int rec_merge_start(rec_model *m, tr_error *e);
/*
** ^RK's parents by position into UP (rk->n of them), from the call signatures
** of CST; on the way, its ticks for the merge's split, and whether a record
** ends too late or before it starts.  TR_FATAL when out of memory.
*/
int rec_nest_rank(const rec_run *run, rec_rank *rk, const rec_cst *cst, uint32_t *up);
/* ^Frees what rec_nest_rank made. */
void rec_nest_free(rec_rank *rk);
/* ^Then, in this order: the block's place and the chunks, the tracks, the rows, and what is
 * still open at each rank's end. */
int rec_merge_plan(rec_model *m, tr_error *e);
int rec_merge_tracks(rec_model *m, tr_error *e);
int rec_fill_rows(rec_model *m, tr_error *e);
int rec_nest_end(rec_model *m);

#endif
