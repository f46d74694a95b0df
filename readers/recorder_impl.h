/*
** recorder_impl.h: the pieces of the Recorder reader shared by its files
** (shared/formats/recorder.md).  Not part of the public API.
**
**   recorder.c        probe, generations, metadata, ranks on threads, the model
**   recorder_decode.c Z-blocks, call-signature tables, grammars, expansion
**
** Files are reached through a rec_fs so that the same code reads a directory
** on disk and, in the fuzzer, a bundle of files in memory.
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

/* Where the files of one trace directory come from. */
typedef struct rec_fs rec_fs;
struct rec_fs {
    /* ^Size of NAME in *SIZE, TR_OK; TR_END when there is no such file. */
    int (*size)(rec_fs *fs, const char *name, uint64_t *size, tr_error *e);
    /* ^LEN bytes of NAME from OFF (the caller checked the size), TR_OK or an error. */
    int (*load)(rec_fs *fs, const char *name, uint64_t off, uint64_t len, rec_bytes *out,
                tr_error *e);
    void *user;
    const char *label; /* how errors name the directory: "run/" or "run.tar:dir/" */
};

/* ^"LABEL" + NAME into BUF (for error locations). */
const char *rec_path(const rec_fs *fs, const char *name, char *buf, size_t size);

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

/* Time spent per phase, for the benchmark. */
typedef struct tr_recorder_timing {
    double decode_s; /* reading, inflating, parsing, expanding (all ranks, threads) */
    double merge_s;  /* putting the records into the model */
    uint64_t records;
    uint64_t bytes; /* of trace files read */
} tr_recorder_timing;

/*
** tr_recorder_read_fs: read the trace FS holds into T as input INPUT, with
** THREADS decoding threads (0: TRACECAT_THREADS or the online CPUs); TIMING
** may be NULL.
*/
int tr_recorder_read_fs(rec_fs *fs, tr_trace *t, uint32_t input, const tr_read_opts *o, int threads,
                        tr_recorder_timing *timing, tr_error *e);
/* ^A directory on disk as a rec_fs (for the benchmark and tests); fini frees it. */
int tr_recorder_fs_dir(rec_fs *fs, const char *dir, tr_error *e);
void tr_recorder_fs_fini(rec_fs *fs);
/*
** ^A bundle in memory as a rec_fs: repeated (name NUL, uint32 LE length,
** bytes); what the fuzzer feeds.  ^Ends at the first incomplete entry.
*/
int tr_recorder_fs_bundle(rec_fs *fs, const void *p, size_t n, tr_error *e);

#endif
