/*
** tr_recorder_layout.h: the bytes of a Recorder 2.5.0 trace directory, in
** one place for the Recorder writer (writers/recorder.c) and the preload
** library of tracerecord (bin/tracerecord), which builds the same files
** incrementally inside traced programs (shared/formats/recorder.md §2).
**
** recorder_layout.c uses nothing but memcpy and memcmp: the preload library
** links nothing of trcore, and it writes from signal handlers.  Every
** integer is little-endian, as Recorder's readers expect.
*/
#ifndef TR_RECORDER_LAYOUT_H
#define TR_RECORDER_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#define TR_REC_VERSION     "2.5.0" /* the VERSION file: these 5 bytes, no newline */
#define TR_REC_VERSION_LEN 5
#define TR_REC_TS_SLOTS    262144 /* ts_buffer_elements: informational (recorder.md §2.1) */
#define TR_REC_FUNCS       243    /* the function-name list's length */
#define TR_REC_USER_FUNC   255    /* the function id of a name not in the list */
#define TR_REC_MT_HEAD     40     /* recorder.mt's header; the names follow it */
#define TR_REC_MT_SIZE     (TR_REC_MT_HEAD + 3074) /* recorder.mt, header and names */
#define TR_REC_CST_HEAD    16 /* a .cst entry before its key: id, rank, key_len, count */
#define TR_REC_CST_COUNT   12 /* where in an entry its count is (patched as it grows) */
#define TR_REC_KEY_HEAD    15 /* a key before its arguments: tid, func, level, argc, args_len */

/* ^Recorder's function names, one a line, as recorder.mt ends (recorder.md §8). */
extern const char tr_rec_func_names[];

/* ^Stores V little-endian in the 4 bytes at P. */
void tr_rec_put32(unsigned char *p, uint32_t v);

/*
** ^recorder.mt for TOTAL_RANKS ranks: START_TS and RESOLUTION (seconds) as
** float64 bits, TR_REC_TS_SLOTS, no compression, local mode, then the names:
** TR_REC_MT_SIZE bytes at OUT.
*/
void tr_rec_mt(unsigned char *out, uint32_t total_ranks, double start_ts, double resolution);

/*
** ^The function id of the N bytes at NAME: its line in the list (the first
** of two equal lines, as Recorder finds it), or TR_REC_USER_FUNC.
*/
int tr_rec_func_id(const char *name, size_t n);

/* ^The TR_REC_CST_HEAD bytes at OUT that start a .cst entry (recorder.md §2.2). */
void tr_rec_cst_head(unsigned char *out, uint32_t id, uint32_t rank, uint32_t key_len,
                     uint32_t count);

/*
** ^The TR_REC_KEY_HEAD bytes at OUT that start a key: thread id, function id,
** nesting level (above 255 stored as 255), argument count and the argument
** bytes that follow (each argument, then one space).
*/
void tr_rec_key_head(unsigned char *out, uint64_t tid, int func, unsigned level, unsigned argc,
                     uint32_t args_len);

/* ^Makes the N bytes at P one argument: spaces, newlines and NULs become '_'. */
void tr_rec_arg_clean(char *p, size_t n);

/*
** ^The 8 bytes at OUT that start rule RULE of a .cfg (-1 the start rule, then
** -2, -3, ...) with PAIRS (symbol, repeat) pairs; the file starts with the
** rule count (tr_rec_put32) (recorder.md §2.3).
*/
void tr_rec_cfg_rule(unsigned char *out, int32_t rule, uint32_t pairs);

/* ^The .cst and .cfg of a rank with no records: no signatures, an empty start rule. */
extern const unsigned char tr_rec_empty_cst[4];
extern const unsigned char tr_rec_empty_cfg[12];

#endif
