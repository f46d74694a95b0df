/*
** proc_impl.h: what tracesniff reads of a live process: its memory, /proc files
** (maps, tasks, thread states, command line, CPU and memory) and the ptrace
** stop of one thread (shared/formats/capture.md A.6-A.9).
*/
#ifndef TS_PROC_H
#define TS_PROC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tr_error.h"
#include "tr_mem.h"

/*
** Reads N bytes at ADDR of process PID into BUF with one process_vm_readv.
** Returns 0, or -errno (EFAULT for a bad address, ESRCH when the process is
** gone, EPERM without the right to read it); a short read is -EFAULT.
*/
int ts_mem_read(pid_t pid, uint64_t addr, void *buf, size_t n);
/* One pointer-sized word; 0 on any failure. */
uint64_t ts_mem_ptr(pid_t pid, uint64_t addr);

/* One line of /proc/PID/maps. */
typedef struct ts_map {
    uint64_t start, end, offset;
    int exec;   /* 'x' in the permissions */
    char *path; /* NULL for anonymous mappings; else in the map list's arena */
} ts_map;

typedef struct ts_maps {
    tr_vec v; /* ts_map, sorted by start as the kernel lists them */
    tr_arena names;
} ts_maps;

void ts_maps_init(ts_maps *m);
void ts_maps_fini(ts_maps *m);
/* Rereads /proc/PID/maps.  Returns 0 or -errno. */
int ts_maps_load(ts_maps *m, pid_t pid);
/* The mapping holding ADDR, or NULL. */
const ts_map *ts_maps_find(const ts_maps *m, uint64_t addr);

/*
** The path a file of the target's mount namespace has from here:
** /proc/PID/root/PATH (so files of containers and deleted files are found).
*/
int ts_proc_path(tr_buf *b, pid_t pid, const char *path);

/* The thread ids of PID (from /proc/PID/task) into TIDS (pid_t); 0 or -errno. */
int ts_tasks(pid_t pid, tr_vec *tids);
/*
** The scheduler state letter of thread TID ('R', 'S', 'D', ...), or 0 when
** it cannot be read.  Read it before stopping the thread: a stopped thread
** shows 't'.
*/
char ts_task_state(pid_t pid, pid_t tid);
/* The thread's name (comm) into B; 0 or -1. */
int ts_task_comm(pid_t pid, pid_t tid, tr_buf *b);

/* argv joined by spaces (py-spy's "Process N: cmdline"); 0 or -errno. */
int ts_proc_cmdline(pid_t pid, tr_buf *b);
/* readlink /proc/PID/exe into B; 0 or -errno. */
int ts_proc_exe(pid_t pid, tr_buf *b);

/* Fields of /proc/PID/stat that tracesniff uses. */
typedef struct ts_stat {
    pid_t ppid;
    uint64_t cpu_ticks;  /* utime + stime */
    uint64_t start_time; /* field 22: tells a reused pid from the original */
    uint64_t rss_bytes;  /* from /proc/PID/statm */
} ts_stat;

int ts_proc_stat(pid_t pid, ts_stat *st);

/*
** ts_thread_stop: PTRACE_SEIZE and PTRACE_INTERRUPT thread TID, then wait
** for its stop.  Returns 0 when it is stopped (detach it with
** ts_thread_detach), -ESRCH when it is gone, -EPERM (or another -errno)
** when it cannot be traced.  A signal the thread received meanwhile is kept
** in *SIG, to be handed back at detach.
*/
int ts_thread_stop(pid_t tid, int *sig);
/* Lets thread TID go with pending signal SIG (0 = none). */
void ts_thread_detach(pid_t tid, int sig);

/*
** A waitpid() inside tracesniff can collect the exit of a child it started
** (the thread-group leader is both a tracee and a child): the status is
** handed to this hook, which the main program sets.
*/
extern void (*ts_on_child_exit)(pid_t pid, int status);

/* Time now, nanoseconds: Unix (CLOCK_REALTIME) and monotonic. */
int64_t ts_now_unix(void);
int64_t ts_now_mono(void);

/* The user-facing reason for ERR (-errno) when attaching to PID failed. */
const char *ts_errno_hint(int err);

#endif
