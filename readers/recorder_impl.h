/*
** recorder_impl.h: the pieces of the Recorder reader shared by its files
** (shared/formats/recorder.md).  Not part of the public API.
**
**   recorder.c        probe, the reader, generations, metadata, ranks on threads
**   recorder_decode.c Z-blocks, call-signature tables, grammars, expansion
**   recorder_model.c  the decoded ranks into the model, merged by time
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

/*
** ^Parses a grammar, checks every reference (terminals below N_TERMINALS,
** rules that exist, no cycles) and computes each rule's expanded length,
** refusing more than MAX_RECORDS (LIMIT says what holds that many).  Keeps RAW.
*/
int rec_cfg_parse(rec_cfg *g, rec_bytes *raw, uint32_t n_terminals, uint64_t max_records,
                  const char *limit, const char *name, tr_error *e);
void rec_cfg_free(rec_cfg *g);
/* ^Expands rule -1 into OUT (cfg->rule[start].len terminal ids). */
int rec_cfg_expand(const rec_cfg *g, uint32_t *out, tr_error *e);

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
} rec_run;

/* A rank once decoded (on a worker thread). */
typedef struct rec_rank {
    rec_cst cst;   /* local mode: its own table */
    rec_bytes ts;  /* (d_start, d_end) uint32 pairs */
    uint32_t *seq; /* terminal ids in record order */
    uint64_t n;
    rec_room ts_room;   /* G2: where <r>.ts is read when it has its stated size */
    uint32_t *seq_room; /* and where its records go when there are at most SEQ_ROOM_N */
    uint64_t seq_room_n;
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

#endif
