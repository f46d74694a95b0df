/*
** python_impl.h: reading CPython 3.11, 3.12 and 3.13 from outside the process
** (shared/formats/capture.md A.1-A.5): the runtime, thread states, frames,
** thread names and the GIL holder, every read through process_vm_readv and
** checked, with caches of what does not change between samples.
*/
#ifndef TS_PYTHON_H
#define TS_PYTHON_H

#include <stdint.h>
#include <sys/types.h>

#include "proc_impl.h"
#include "tr_error.h"
#include "tr_mem.h"

typedef struct ts_py ts_py;

enum ts_py_found {
    TS_PY_OK = 0, /* the runtime was found and checked */
    TS_PY_NONE,   /* no CPython in the process */
    TS_PY_NOTYET, /* CPython is mapped but its interpreter is not ready yet: retry */
    TS_PY_ERROR   /* cannot be read (permission, unsupported version): E says why */
};

/*
** Finds CPython in process PID from its mappings MAPS.  Returns enum
** ts_py_found; *OUT is set only with TS_PY_OK.  FULL_FILENAMES keeps whole
** paths instead of py-spy's short names.
*/
int ts_py_open(ts_py **out, pid_t pid, const ts_maps *maps, int full_filenames, tr_error *e);
void ts_py_free(ts_py *py);
/* "3.11.7" */
const char *ts_py_version(const ts_py *py);
/* 1 when PATH is the interpreter itself (python or libpython), whose C frames merging drops. */
int ts_py_is_interpreter_path(const char *path);

typedef struct ts_pythread {
    uint64_t tstate;
    uint64_t ident;     /* threading.get_ident() */
    int64_t native_tid; /* the OS thread id */
    const char *name;   /* NULL when unknown */
    int gil;
} ts_pythread;

/*
** The thread states of the main interpreter in py-spy's dump order (the
** reverse of the interpreter's list: MainThread first), with names and the
** GIL holder, into THREADS (ts_pythread).  TR_OK, or TR_FAIL (E says why;
** sys_errno ESRCH when the process is gone).
*/
int ts_py_threads(ts_py *py, tr_vec *threads, tr_error *e);
/*
** Appends the Python frames of thread state TSTATE, innermost first, to
** FRAMES (ts_frame).  TR_OK or TR_FAIL (a torn or unreadable stack).
*/
int ts_py_frames(ts_py *py, uint64_t tstate, tr_vec *frames, tr_error *e);

#endif
