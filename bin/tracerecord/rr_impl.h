/*
** rr_impl.h: the internals of libtracerecord.so (the preload library) and the
** small part of them the tracerecord launcher shares (rr_files.c).
**
** The library cannot use trcore: it runs inside arbitrary programs, so it
** allocates with mmap (never the program's malloc: async-signal-safe and
** independent of a replaced allocator), does its own file I/O with raw
** system calls (never through its own wrappers) and writes the Recorder
** format itself, incrementally, per rank.  The bytes of every file come from
** writers/recorder_layout.c (tr_recorder_layout.h: VERSION 2.5.0, local mode,
** shared/formats/recorder.md §2), which the Recorder writer of tracecat
** shares; tests/record checks that the project's reader decodes every record.
*/
#ifndef RR_H
#define RR_H

#include <stddef.h>
#include <stdint.h>

#include "tr_recorder_layout.h"

/* ---- files shared with the launcher (rr_files.c) ---- */

/* Raw system calls: the library's own I/O must never reach its wrappers. */
int rr_sys_open(int dirfd, const char *path, int flags, int mode);
int rr_sys_close(int fd);
int rr_sys_pwrite_all(int fd, const void *p, size_t n, int64_t off);
int rr_sys_rename(int dirfd, const char *from, const char *to);
int rr_sys_exists(int dirfd, const char *path);

/* DIR and its missing parents (mode 0755); 0 or -1. */
int rr_mkdirs(const char *dir);
/* Writes FILE in DIRFD through FILE.tmp-PID and a rename; 0 or -1. */
int rr_write_file(int dirfd, const char *file, const void *p, size_t n);
/* VERSION and recorder.mt (40-byte header + names) for TOTAL ranks; 0 or -1. */
int rr_write_meta(int dirfd, int total, int64_t start_ns, int64_t res_ns);
/* The empty <r>.cst, <r>.cfg and (unless HAVE_TS) <r>.ts of a rank without records. */
int rr_write_empty_rank(int dirfd, int rank, int have_ts);
/*
** <r>.proc: the OS process that is rank RANK, "pid=PID host=NODENAME\n" (the
** keys of tracesniff's dump markers), so that a merged trace joins what
** tracesniff saw of the same process; Recorder's tools ignore the file.
*/
int rr_write_proc(int dirfd, int rank, int pid);
/* How many ranks 0..n-1 have all three files (the total_ranks a reader can use). */
int rr_count_ranks(int dirfd);
/* Decimal text of V into BUF (at least 24 bytes); returns its length. */
size_t rr_fmt_i64(char *buf, int64_t v);

#endif
