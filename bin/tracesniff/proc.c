/* proc.c: process memory, /proc files and the ptrace stop of one thread. */
#include "proc_impl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void (*ts_on_child_exit)(pid_t pid, int status);

int ts_mem_read(pid_t pid, uint64_t addr, void *buf, size_t n)
{
    if (n == 0) return 0;
    if (addr == 0) return -EFAULT;
    struct iovec local = {buf, n}, remote = {(void *)(uintptr_t)addr, n};
    ssize_t got = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (got < 0) return -errno;
    return (size_t)got == n ? 0 : -EFAULT;
}

uint64_t ts_mem_ptr(pid_t pid, uint64_t addr)
{
    uint64_t v;
    return ts_mem_read(pid, addr, &v, sizeof v) == 0 ? v : 0;
}

/* Reads a small /proc file whole into B; 0 or -errno. */
static int read_file(const char *path, tr_buf *b)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    tr_buf_reset(b);
    for (;;) {
        if (tr_buf_grow(b, 4096) != 0) {
            close(fd);
            return -ENOMEM;
        }
        ssize_t got = read(fd, b->p + b->len, b->cap - b->len - 1);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            int err = errno;
            close(fd);
            return -err;
        }
        if (got == 0) break;
        b->len += (size_t)got;
        b->p[b->len] = '\0';
    }
    close(fd);
    return 0;
}

void ts_maps_init(ts_maps *m)
{
    tr_vec_init(&m->v, sizeof(ts_map));
    tr_arena_init(&m->names);
}

void ts_maps_fini(ts_maps *m)
{
    tr_vec_fini(&m->v);
    tr_arena_fini(&m->names);
}

int ts_maps_load(ts_maps *m, pid_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    tr_buf b;
    tr_buf_init(&b, 0);
    int rc = read_file(path, &b);
    if (rc < 0) {
        tr_buf_fini(&b);
        return rc;
    }
    ts_maps_fini(m);
    ts_maps_init(m);
    for (char *line = b.p; *line;) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = '\0';
        uint64_t start, end, off;
        char perms[8];
        int name_at = 0;
        if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n", &start, &end, perms,
                   &off, &name_at) >= 4) {
            ts_map *mp = tr_vec_push(&m->v);
            if (!mp) {
                rc = -ENOMEM;
                break;
            }
            mp->start = start;
            mp->end = end;
            mp->offset = off;
            mp->exec = perms[2] == 'x';
            const char *name = name_at > 0 ? line + name_at : "";
            if (name[0] == '/') {
                mp->path = tr_arena_strndup(&m->names, name, strlen(name));
                if (!mp->path) {
                    rc = -ENOMEM;
                    break;
                }
            }
        }
        if (!nl) break;
        line = nl + 1;
    }
    tr_buf_fini(&b);
    return rc;
}

const ts_map *ts_maps_find(const ts_maps *m, uint64_t addr)
{
    size_t lo = 0, hi = m->v.len;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const ts_map *mp = &TR_VEC_AT(&m->v, ts_map, mid);
        if (addr < mp->start)
            hi = mid;
        else if (addr >= mp->end)
            lo = mid + 1;
        else
            return mp;
    }
    return NULL;
}

int ts_proc_path(tr_buf *b, pid_t pid, const char *path)
{
    tr_buf_reset(b);
    return tr_buf_addf(b, "/proc/%d/root%s", (int)pid, path);
}

int ts_tasks(pid_t pid, tr_vec *tids)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d) return -errno;
    tids->len = 0;
    struct dirent *de;
    int rc = 0;
    while ((de = readdir(d)) != NULL) {
        char *end;
        long v = strtol(de->d_name, &end, 10);
        if (*end || v <= 0) continue;
        pid_t *slot = tr_vec_push(tids);
        if (!slot) {
            rc = -ENOMEM;
            break;
        }
        *slot = (pid_t)v;
    }
    closedir(d);
    return rc;
}

/* The text after the ')' that ends the comm field of a stat line. */
static const char *after_comm(const char *s)
{
    const char *p = strrchr(s, ')');
    return p && p[1] == ' ' ? p + 2 : NULL;
}

char ts_task_state(pid_t pid, pid_t tid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = '\0';
    const char *p = after_comm(buf);
    return p ? *p : 0;
}

int ts_task_comm(pid_t pid, pid_t tid, tr_buf *b)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/comm", (int)pid, (int)tid);
    if (read_file(path, b) < 0) return -1;
    while (b->len && b->p[b->len - 1] == '\n') b->p[--b->len] = '\0';
    return 0;
}

int ts_proc_cmdline(pid_t pid, tr_buf *b)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    int rc = read_file(path, b);
    if (rc < 0) return rc;
    while (b->len && b->p[b->len - 1] == '\0') b->len--;
    for (size_t i = 0; i < b->len; i++)
        if (b->p[i] == '\0' || b->p[i] == '\n') b->p[i] = ' ';
    b->p[b->len] = '\0';
    return 0;
}

int ts_proc_exe(pid_t pid, tr_buf *b)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
    tr_buf_reset(b);
    for (size_t size = 256;; size *= 2) {
        if (tr_buf_grow(b, size) != 0) return -ENOMEM;
        ssize_t n = readlink(path, b->p, b->cap - 1);
        if (n < 0) return -errno;
        if ((size_t)n < b->cap - 1) {
            b->len = (size_t)n;
            b->p[n] = '\0';
            return 0;
        }
    }
}

int ts_proc_stat(pid_t pid, ts_stat *st)
{
    char path[64];
    tr_buf b;
    tr_buf_init(&b, 0);
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int rc = read_file(path, &b);
    const char *p = rc == 0 ? after_comm(b.p) : NULL;
    if (rc == 0 && !p) rc = -EINVAL;
    if (rc == 0) {
        /* Fields from 3 (state): 4 ppid, 14 utime, 15 stime, 22 starttime. */
        unsigned long long v[23] = {0};
        int field = 3;
        for (const char *q = p; *q && field <= 22; field++) {
            if (field > 3) v[field] = strtoull(q, NULL, 10);
            q = strchr(q, ' ');
            if (!q) break;
            q++;
        }
        st->ppid = (pid_t)v[4];
        st->cpu_ticks = v[14] + v[15];
        st->start_time = v[22];
        snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
        st->rss_bytes = 0;
        if (read_file(path, &b) == 0) {
            unsigned long long size, resident;
            if (sscanf(b.p, "%llu %llu", &size, &resident) == 2)
                st->rss_bytes = resident * (uint64_t)sysconf(_SC_PAGESIZE);
        }
    }
    tr_buf_fini(&b);
    return rc;
}

/* How long a thread may take to stop before it is let go (D state, NFS). */
#define STOP_TIMEOUT_NS 500000000LL

int ts_thread_stop(pid_t tid, int *sig)
{
    *sig = 0;
    if (ptrace(PTRACE_SEIZE, tid, 0, 0) < 0) return -errno;
    if (ptrace(PTRACE_INTERRUPT, tid, 0, 0) < 0) {
        int err = errno;
        ptrace(PTRACE_DETACH, tid, 0, 0);
        return -err;
    }
    int64_t deadline = ts_now_mono() + STOP_TIMEOUT_NS;
    long pause_ns = 2000;
    for (;;) {
        int st;
        pid_t r = waitpid(tid, &st, __WALL | WNOHANG);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -errno;
        if (r == 0) {
            if (ts_now_mono() > deadline) {
                /*
                ** It did not stop (uninterruptible sleep): detaching needs a
                ** stopped tracee, so wait for the stop once more, blocking,
                ** rather than leave a pending interrupt behind.
                */
                r = waitpid(tid, &st, __WALL);
                if (r < 0) return -errno;
            } else {
                struct timespec ts = {0, pause_ns};
                nanosleep(&ts, NULL);
                if (pause_ns < 1000000) pause_ns *= 2;
                continue;
            }
        }
        if (WIFEXITED(st) || WIFSIGNALED(st)) {
            if (ts_on_child_exit) ts_on_child_exit(tid, st);
            return -ESRCH;
        }
        if (WIFSTOPPED(st)) {
            /* Any stop will do; a signal-delivery stop keeps its signal. */
            if ((st >> 16) == 0) *sig = WSTOPSIG(st);
            return 0;
        }
    }
}

void ts_thread_detach(pid_t tid, int sig)
{
    ptrace(PTRACE_DETACH, tid, 0, (void *)(uintptr_t)sig);
}

int64_t ts_now_unix(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t ts_now_mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

const char *ts_errno_hint(int err)
{
    switch (err) {
    case -EPERM:
    case -EACCES:
        return "permission denied: tracing another process needs the same user or "
               "CAP_SYS_PTRACE (run as root or with sudo; check kernel.yama.ptrace_scope, "
               "which at 1 allows only descendants: use 'tracesniff -- PROGRAM'; in a "
               "container add --cap-add SYS_PTRACE)";
    case -ESRCH:
    case -ENOENT:
        return "no such process";
    default:
        return strerror(-err);
    }
}
