/*
** sample_impl.h: one sampled process and the taking of one sample of it.
*/
#ifndef TS_SAMPLE_H
#define TS_SAMPLE_H

#include <stdint.h>
#include <sys/types.h>

#include "map_impl.h"
#include "native_impl.h"
#include "output_impl.h"
#include "proc_impl.h"
#include "python_impl.h"

typedef struct ts_opts {
    int native;      /* --native: merge native frames (pauses each thread while read) */
    int blocking;    /* --blocking: pause each thread while its Python stack is read */
    int main_thread; /* --main-thread: only threads named MainThread (else all) */
    int full_filenames;
    int verbose;
    const char *prog;
} ts_opts;

typedef struct ts_target {
    pid_t pid;
    int ours;     /* started by tracesniff: a child */
    pid_t parent; /* reached through --subprocesses from this process, else 0 */
    int gone;     /* exited: sampled no more */
    int failed;   /* could not be read at all (permission): sampled no more */
    uint64_t start_time;
    tr_buf cmdline, exe, parent_cmdline;
    ts_maps maps;
    ts_py *py;
    int py_state;     /* enum ts_py_found of the last look */
    int64_t py_until; /* monotonic ns: keep looking for Python until then */
    int said_native;  /* "not a Python process" was said */
    ts_native *nat;
    uint64_t cpu_ticks; /* for --cpu-mem */
    int64_t cpu_at;
    tr_vec pythreads, threads, frames, pyframes, ips, tids;
    tr_vec errors;   /* const char *, into err_text */
    tr_buf err_text; /* NUL-separated messages of the current sample */
    ts_map64 comms;  /* tid -> thread name (native-only processes) */
    tr_arena names;
} ts_target;

/*
** Opens process PID: checks that it exists and can be read.  TR_OK, or
** TR_FAIL with E naming the cause (no such process, no permission).
*/
int ts_target_init(ts_target *tg, pid_t pid, int ours, tr_error *e);
void ts_target_fini(ts_target *tg);

/*
** Takes one sample of TG and hands it to OUT.  TR_OK (also when the process
** just exited: TG->gone is then set); TR_FAIL when the process cannot be
** traced (E says why; TG->failed is set); TR_FATAL when out of memory.
*/
int ts_target_sample(ts_target *tg, const ts_opts *o, ts_out *out, tr_error *e);

/* --cpu-mem: CPU % since the last call and resident bytes, as counters at TS_UNIX. */
int ts_target_counters(ts_target *tg, ts_out *out, int64_t ts_unix, tr_error *e);

#endif
