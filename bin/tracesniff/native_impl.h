/*
** native_impl.h: native stacks of stopped threads through libunwind-ptrace, and
** their symbols from the ELF tables of the mapped files (capture.md A.7):
** instruction pointers are named once each and cached, never with
** unw_get_proc_name in the sampling loop.
*/
#ifndef TS_NATIVE_H
#define TS_NATIVE_H

#include <stdint.h>
#include <sys/types.h>

#include "sniff_impl.h"
#include "tr_error.h"
#include "tr_mem.h"

typedef struct ts_native ts_native;

/* ^Returns the unwinder of process PID, or NULL when out of memory (E says so). */
ts_native *ts_native_new(pid_t pid, tr_error *e);
void ts_native_free(ts_native *n);
/*
** Unwinds thread TID, which must be ptrace-stopped: its instruction
** pointers, innermost first, into IPS (uint64_t).  TR_OK or TR_FAIL.
*/
int ts_native_unwind(ts_native *n, pid_t tid, tr_vec *ips, tr_error *e);

/* What an instruction pointer is. */
typedef struct ts_native_sym {
    const char *fn;   /* the symbol, or "0x..." */
    const char *file; /* the shared object's base name, or "?" */
    uint8_t interp;   /* inside python or libpython */
    uint8_t eval;     /* _PyEval_EvalFrameDefault: a run of Python frames */
} ts_native_sym;

/*
** Names IP; CALLER is 1 for every frame but the innermost, whose IP is a
** return address (looked up at IP-1).  The result lives as long as N.
*/
const ts_native_sym *ts_native_symbol(ts_native *n, uint64_t ip, int caller);

#endif
