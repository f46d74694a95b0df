/*
** sniff_impl.h: what one sample of a process is, as the samplers (python.c,
** native.c) produce it and the outputs (output.c) write it.
*/
#ifndef TS_SNIFF_H
#define TS_SNIFF_H

#include <stddef.h>
#include <stdint.h>

/* One frame.  The strings belong to the samplers' caches and live as long as they do. */
typedef struct ts_frame {
    const char *fn;   /* function (py-spy prints co_name) or native symbol / "0x..." */
    const char *file; /* short filename, or the shared object of a native frame; "" unknown */
    int32_t line;     /* 0 = unknown */
    uint8_t native;
    uint8_t entry; /* Python: the first frame a C call of the eval loop ran (merging) */
} ts_frame;

/* A thread of a sample; its frames are FRAMES[first .. first+n) of the sample, innermost first. */
typedef struct ts_thread {
    int64_t tid;      /* OS thread id */
    const char *name; /* NULL when unknown */
    uint8_t active, gil;
    size_t first, n;
    const char *error; /* why its stack is missing, or NULL */
} ts_thread;

enum { TS_IDLE = 0, TS_ACTIVE, TS_ACTIVE_GIL };

/* py-spy's status word of a thread: "idle", "active" or "active+gil". */
const char *ts_thread_status(const ts_thread *th);

#endif
