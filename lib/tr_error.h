/*
** tr_error.h: status codes, the error object and warnings.
**
** Every fallible function in lib/, readers/, writers/ and render/ returns a
** status and, on failure, fills a tr_error.  Nothing below bin/ prints or
** exits: warnings go through a tr_diag callback that the binary installs.
*/
#ifndef TR_ERROR_H
#define TR_ERROR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Status codes, graded as libarchive grades its returns. */
#define TR_OK    0   /* done */
#define TR_END   1   /* no more data (not an error) */
#define TR_WARN  -20 /* a problem was reported, the caller may go on */
#define TR_FAIL  -25 /* this input is lost; the error object says why */
#define TR_FATAL -30 /* nothing more can be done (out of memory) */

/* What kind of failure: the error object's code. */
enum tr_errcode {
    TR_E_NONE = 0,
    TR_E_IO,     /* the OS said no: sys_errno says why */
    TR_E_FORMAT, /* the input is not what its format says */
    TR_E_NOMEM,  /* an allocation failed */
    TR_E_USAGE,  /* the caller asked for something impossible */
    TR_E_LIMIT   /* the input exceeds a documented cap (line length, ...) */
};

/* Where in an input something happened.  0 means unknown for each field. */
typedef struct tr_loc {
    const char *file; /* as the user typed it; "-" is shown as <stdin> */
    uint64_t line;    /* 1-based */
    uint64_t col;     /* 1-based */
    uint64_t offset;  /* byte offset in the decompressed stream, +1 (0 = unknown) */
} tr_loc;

typedef struct tr_error {
    int code;      /* enum tr_errcode */
    int sys_errno; /* errno when the OS said no, else 0 */
    char file[512];
    uint64_t line, col;
    uint64_t offset; /* byte offset + 1, 0 = unknown */
    char msg[512];
} tr_error;

/*
** tr_errorf: fill an error object
**
** ^Stores CODE, the location LOC (which may be NULL) and the formatted
** message in E, and returns TR_FAIL (TR_FATAL for TR_E_NOMEM).  ^E may be NULL,
** in which case only the return value is produced.  ^A message longer than the
** buffer is cut, never overflowed.
*/
int tr_errorf(tr_error *e, int code, const tr_loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* tr_error_errno: like tr_errorf, with errno ERR recorded (code TR_E_IO). */
int tr_error_errno(tr_error *e, int err, const tr_loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* tr_error_nomem: record an allocation failure and return TR_FATAL. */
int tr_error_nomem(tr_error *e);

/*
** tr_error_format: render "file:line:col: message[: strerror]" into BUF.
** ^Missing location parts are left out; an offset is shown as "byte N" when
** there is no line.  ^Returns BUF.
*/
char *tr_error_format(const tr_error *e, char *buf, size_t size);

/*
** Warnings.  A reader that can recover (a bad line in a log) reports the
** problem to a tr_diag and goes on.  The binary decides whether to print it.
** ^With strict set, tr_warnf turns the warning into an error and returns
** TR_FAIL; otherwise it counts it, calls the callback and returns TR_WARN.
*/
typedef void (*tr_warn_fn)(void *user, const tr_error *w);

typedef struct tr_diag {
    tr_warn_fn fn; /* may be NULL: warnings are only counted */
    void *user;
    int strict; /* warnings are errors */
    uint64_t warnings;
} tr_diag;

int tr_warnf(tr_diag *d, tr_error *e, const tr_loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
