/*
** sample.c: one sample of one process (capture.md A.6-A.8).
**
** Python stacks are read while the process runs (every read checked, a
** torn stack retried once); with --native or --blocking each thread is
** stopped with PTRACE_SEIZE + PTRACE_INTERRUPT only while its own stacks
** are read, then detached at once, so no thread stays stopped longer than
** its own reads and none is left stopped on any path.
*/
#include "sample_impl.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* How long a process we started may take to show a ready CPython. */
#define PY_LOOK_NS 2000000000LL

int ts_target_init(ts_target *tg, pid_t pid, int ours, tr_error *e)
{
    memset(tg, 0, sizeof *tg);
    tg->pid = pid;
    tg->ours = ours;
    tg->py_state = -1;
    tr_buf_init(&tg->cmdline, 0);
    tr_buf_init(&tg->exe, 0);
    tr_buf_init(&tg->parent_cmdline, 0);
    tr_buf_init(&tg->err_text, 0);
    ts_maps_init(&tg->maps);
    tr_vec_init(&tg->pythreads, sizeof(ts_pythread));
    tr_vec_init(&tg->threads, sizeof(ts_thread));
    tr_vec_init(&tg->frames, sizeof(ts_frame));
    tr_vec_init(&tg->pyframes, sizeof(ts_frame));
    tr_vec_init(&tg->ips, sizeof(uint64_t));
    tr_vec_init(&tg->tids, sizeof(pid_t));
    tr_vec_init(&tg->errors, sizeof(size_t));
    ts_map64_init(&tg->comms);
    tr_arena_init(&tg->names);
    ts_stat st;
    int rc = ts_proc_stat(pid, &st);
    if (rc < 0) return tr_error_errno(e, -rc, NULL, "process %d: %s", (int)pid, ts_errno_hint(rc));
    tg->start_time = st.start_time;
    tg->cpu_ticks = st.cpu_ticks;
    tg->cpu_at = ts_now_mono();
    ts_proc_cmdline(pid, &tg->cmdline);
    ts_proc_exe(pid, &tg->exe);
    /* Reading the maps needs the same right as reading the memory. */
    if ((rc = ts_maps_load(&tg->maps, pid)) < 0)
        return tr_error_errno(e, -rc, NULL, "process %d: %s", (int)pid, ts_errno_hint(rc));
    if (tg->maps.v.len) {
        unsigned char byte;
        rc = ts_mem_read(pid, TR_VEC_AT(&tg->maps.v, ts_map, 0).start, &byte, 1);
        if (rc == -EPERM || rc == -EACCES)
            return tr_error_errno(e, -rc, NULL, "process %d: %s", (int)pid, ts_errno_hint(rc));
    }
    tg->py_until = ts_now_mono() + (ours ? PY_LOOK_NS : 0);
    return TR_OK;
}

void ts_target_fini(ts_target *tg)
{
    ts_py_free(tg->py);
    ts_native_free(tg->nat);
    tr_buf_fini(&tg->cmdline);
    tr_buf_fini(&tg->exe);
    tr_buf_fini(&tg->parent_cmdline);
    tr_buf_fini(&tg->err_text);
    ts_maps_fini(&tg->maps);
    tr_vec_fini(&tg->pythreads);
    tr_vec_fini(&tg->threads);
    tr_vec_fini(&tg->frames);
    tr_vec_fini(&tg->pyframes);
    tr_vec_fini(&tg->ips);
    tr_vec_fini(&tg->tids);
    tr_vec_fini(&tg->errors);
    ts_map64_fini(&tg->comms);
    tr_arena_fini(&tg->names);
}

/* An "Error:" line of the current dump. */
static void add_error(ts_target *tg, const char *msg)
{
    size_t *at = tr_vec_push(&tg->errors);
    if (!at) return;
    *at = tg->err_text.len;
    if (tr_buf_add(&tg->err_text, msg, strlen(msg) + 1) != 0) tg->errors.len--;
}

/*
** Looks for CPython (again) while it may still appear: a process we just
** started, or one that ran exec.  Sets tg->py when found.
*/
static void look_for_python(ts_target *tg, const ts_opts *o)
{
    if (tg->py || (tg->py_state >= 0 && ts_now_mono() > tg->py_until)) return;
    tr_error e = {0};
    ts_proc_cmdline(tg->pid, &tg->cmdline);
    ts_proc_exe(tg->pid, &tg->exe);
    if (ts_maps_load(&tg->maps, tg->pid) < 0) return;
    int first = tg->py_state < 0;
    tg->py_state = ts_py_open(&tg->py, tg->pid, &tg->maps, o->full_filenames, &e);
    /* A runtime that is not ready yet (starting, or between exec and init) gets time. */
    if (first && tg->py_state == TS_PY_NOTYET && tg->py_until < ts_now_mono() + PY_LOOK_NS)
        tg->py_until = ts_now_mono() + PY_LOOK_NS;
    if (tg->py_state == TS_PY_ERROR && ts_now_mono() > tg->py_until)
        fprintf(stderr, "%s: process %d: %s; sampling native stacks only\n", o->prog, (int)tg->pid,
                e.msg);
}

/* The process ran exec since Python was looked for: start over. */
static void check_exec(ts_target *tg)
{
    tr_buf exe;
    tr_buf_init(&exe, 0);
    if (ts_proc_exe(tg->pid, &exe) == 0 && tg->exe.len && strcmp(exe.p, tg->exe.p) != 0) {
        ts_py_free(tg->py);
        tg->py = NULL;
        ts_native_free(tg->nat);
        tg->nat = NULL;
        tg->py_state = -1;
        tg->said_native = 0;
        tg->py_until = ts_now_mono() + PY_LOOK_NS;
    }
    tr_buf_fini(&exe);
}

/* py-spy's idle heuristic: a thread whose innermost Python frame waits is idle. */
static int waits(const ts_frame *f)
{
    static const struct {
        const char *fn, *file;
    } idle[] = {{"wait", "threading.py"}, {"select", "selectors.py"}, {"poll", "asyncore.py"},
                {"poll", "zmq"},          {"poll", "gevent"},         {"poll", "tornado"},
                {"select", "gevent"},     {"epoll", "selectors.py"}};
    for (size_t i = 0; i < sizeof idle / sizeof *idle; i++)
        if (strcmp(f->fn, idle[i].fn) == 0 && strstr(f->file, idle[i].file)) return 1;
    return 0;
}

static int push_frame(tr_vec *v, const ts_frame *f)
{
    ts_frame *slot = tr_vec_push(v);
    if (!slot) return -1;
    *slot = *f;
    return 0;
}

/*
** Merges the native frames of a thread (tg->ips) with its Python frames
** (tg->pyframes) as py-spy does (capture.md A.7): each eval-loop frame
** stands for the Python frames up to the next entry frame, the
** interpreter's other C frames are dropped, other libraries kept.  Python
** frames left over (a torn sample) go last.
*/
static int merge(ts_target *tg)
{
    const ts_frame *py = tg->pyframes.data;
    size_t np = tg->pyframes.len, j = 0;
    int python = tg->py != NULL;
    for (size_t i = 0; i < tg->ips.len; i++) {
        const ts_native_sym *s = ts_native_symbol(tg->nat, TR_VEC_AT(&tg->ips, uint64_t, i), i > 0);
        if (python && s->eval) {
            while (j < np) {
                if (push_frame(&tg->frames, &py[j])) return -1;
                if (py[j++].entry) break;
            }
            continue;
        }
        if (python && s->interp) continue;
        ts_frame f = {.fn = s->fn, .file = s->file, .native = 1};
        if (push_frame(&tg->frames, &f)) return -1;
    }
    for (; j < np; j++)
        if (push_frame(&tg->frames, &py[j])) return -1;
    return 0;
}

/* The name of a thread of a process without Python: its comm. */
static const char *comm_of(ts_target *tg, pid_t tid)
{
    uint64_t *v = ts_map64_find(&tg->comms, (uint64_t)tid);
    if (v) return (const char *)(uintptr_t)*v;
    tr_buf b;
    tr_buf_init(&b, 0);
    const char *name = NULL;
    if (ts_task_comm(tg->pid, tid, &b) == 0) name = tr_arena_strndup(&tg->names, b.p, b.len);
    tr_buf_fini(&b);
    if (name) ts_map64_put(&tg->comms, (uint64_t)tid, (uint64_t)(uintptr_t)name);
    return name;
}

/*
** Reads the stacks of one thread into tg->frames: Python frames of TSTATE
** (0 for none), native frames when NATIVE.  Returns 0, 1 when the thread is
** gone, or -1 with MSG set.
*/
static int read_thread(ts_target *tg, const ts_opts *o, pid_t tid, uint64_t tstate, int native,
                       tr_error *e)
{
    int stop = native || o->blocking;
    int sig = 0;
    if (stop) {
        int rc = ts_thread_stop(tid, &sig);
        if (rc == -ESRCH) return 1;
        /* An exiting thread refuses PTRACE_SEIZE with EPERM: it is gone, not forbidden. */
        char state = rc == -EPERM ? ts_task_state(tg->pid, tid) : 'R';
        if (state == 0 || state == 'Z' || state == 'X') return 1;
        if (rc < 0) {
            tr_error_errno(e, -rc, NULL, "process %d: cannot stop thread %d: %s", (int)tg->pid,
                           (int)tid, ts_errno_hint(rc));
            return -1;
        }
    }
    int rc = 0;
    tg->pyframes.len = 0;
    if (tstate) {
        /* Running threads change under the reader: one retry for a torn stack. */
        for (int attempt = 0; attempt < 2; attempt++) {
            tg->pyframes.len = 0;
            rc = ts_py_frames(tg->py, tstate, &tg->pyframes, e) == TR_OK ? 0 : -1;
            if (rc == 0 || e->sys_errno == ESRCH || stop) break;
        }
    }
    tg->ips.len = 0;
    if (rc == 0 && native && ts_native_unwind(tg->nat, tid, &tg->ips, e) != TR_OK) rc = -1;
    if (stop) ts_thread_detach(tid, sig);
    if (rc != 0) return e->sys_errno == ESRCH ? 1 : -1;
    if (native) {
        rc = merge(tg);
    } else {
        for (size_t i = 0; i < tg->pyframes.len && rc == 0; i++)
            rc = push_frame(&tg->frames, &TR_VEC_AT(&tg->pyframes, ts_frame, i));
    }
    if (rc != 0) tr_error_nomem(e);
    return rc;
}

static int thread_add(ts_target *tg, pid_t tid, const char *name, int active, int gil, size_t first)
{
    ts_thread *th = tr_vec_push(&tg->threads);
    if (!th) return -1;
    th->tid = tid;
    th->name = name;
    th->gil = (uint8_t)gil;
    th->first = first;
    th->n = tg->frames.len - first;
    /* The first Python frame is the innermost one the heuristic looks at. */
    int is_active = active;
    for (size_t k = first; is_active && k < tg->frames.len; k++) {
        const ts_frame *f = &TR_VEC_AT(&tg->frames, ts_frame, k);
        if (f->native) continue;
        if (waits(f)) is_active = 0;
        break;
    }
    th->active = (uint8_t)is_active;
    return 0;
}

static int sample_python(ts_target *tg, const ts_opts *o, tr_error *e)
{
    int rc = TR_FAIL;
    for (int attempt = 0; attempt < 2 && rc != TR_OK; attempt++) {
        rc = ts_py_threads(tg->py, &tg->pythreads, e);
        if (rc != TR_OK && e->sys_errno == ESRCH) {
            tg->gone = 1;
            return TR_OK;
        }
    }
    if (rc != TR_OK) {
        add_error(tg, e->msg);
        return TR_OK;
    }
    size_t n = tg->pythreads.len;
    const ts_pythread *pt = tg->pythreads.data;
    int any_main = 0;
    for (size_t i = 0; i < n; i++)
        if (pt[i].name && strcmp(pt[i].name, "MainThread") == 0) any_main = 1;
    /* Thread states first: a stopped thread shows 't'. */
    char *states = tr_malloc(n + 1);
    if (!states) return tr_error_nomem(e);
    for (size_t i = 0; i < n; i++) states[i] = ts_task_state(tg->pid, (pid_t)pt[i].native_tid);
    int native = o->native;
    if (native && !tg->nat && !(tg->nat = ts_native_new(tg->pid, e))) {
        tr_free(states);
        return TR_FATAL;
    }
    rc = TR_OK;
    for (size_t i = 0; i < n && rc == TR_OK; i++) {
        if (o->main_thread && any_main && !(pt[i].name && strcmp(pt[i].name, "MainThread") == 0))
            continue;
        size_t first = tg->frames.len;
        tr_error te = {0};
        int r = read_thread(tg, o, (pid_t)pt[i].native_tid, pt[i].tstate, native, &te);
        if (r == 1) continue;
        if (r < 0 && (te.sys_errno == EPERM || te.sys_errno == EACCES)) {
            *e = te;
            rc = TR_FAIL;
        } else if (r < 0) {
            if (te.code == TR_E_NOMEM) rc = tr_error_nomem(e);
            add_error(tg, te.msg);
            tg->frames.len = first;
            continue;
        }
        if (thread_add(tg, (pid_t)pt[i].native_tid, pt[i].name, states[i] == 'R', pt[i].gil,
                       first) != 0)
            rc = tr_error_nomem(e);
    }
    tr_free(states);
    return rc;
}

static int sample_native(ts_target *tg, const ts_opts *o, tr_error *e)
{
    int rc = ts_tasks(tg->pid, &tg->tids);
    if (rc == -ENOENT || rc == -ESRCH) {
        tg->gone = 1;
        return TR_OK;
    }
    if (rc < 0)
        return tr_error_errno(e, -rc, NULL, "process %d: cannot list its threads", (int)tg->pid);
    if (!tg->nat && !(tg->nat = ts_native_new(tg->pid, e))) return TR_FATAL;
    size_t n = tg->tids.len;
    /* The main thread first, as py-spy puts MainThread first. */
    pid_t *tids = tg->tids.data;
    for (size_t i = 1; i < n; i++)
        if (tids[i] == tg->pid) {
            tids[i] = tids[0];
            tids[0] = tg->pid;
        }
    char *states = tr_malloc(n + 1);
    if (!states) return tr_error_nomem(e);
    for (size_t i = 0; i < n; i++) states[i] = ts_task_state(tg->pid, tids[i]);
    rc = TR_OK;
    for (size_t i = 0; i < n && rc == TR_OK; i++) {
        if (o->main_thread && tids[i] != tg->pid) continue;
        size_t first = tg->frames.len;
        tr_error te = {0};
        int r = read_thread(tg, o, tids[i], 0, 1, &te);
        if (r == 1) continue;
        if (r < 0 && (te.sys_errno == EPERM || te.sys_errno == EACCES)) {
            *e = te;
            rc = TR_FAIL;
        } else if (r < 0) {
            if (te.code == TR_E_NOMEM) rc = tr_error_nomem(e);
            add_error(tg, te.msg);
            tg->frames.len = first;
            continue;
        }
        if (thread_add(tg, tids[i], comm_of(tg, tids[i]), states[i] == 'R', 0, first) != 0)
            rc = tr_error_nomem(e);
    }
    tr_free(states);
    if (rc == TR_OK && tg->threads.len == 0 && ts_task_state(tg->pid, tg->pid) == 0) tg->gone = 1;
    return rc;
}

int ts_target_sample(ts_target *tg, const ts_opts *o, ts_out *out, tr_error *e)
{
    if (tg->gone || tg->failed) return TR_OK;
    ts_stat st;
    if (ts_proc_stat(tg->pid, &st) < 0 || st.start_time != tg->start_time) {
        tg->gone = 1;
        return TR_OK;
    }
    check_exec(tg);
    look_for_python(tg, o);
    if (!tg->py && ts_now_mono() <= tg->py_until) return TR_OK; /* not ready: no dump yet */
    if (!tg->py && !tg->said_native) {
        tg->said_native = 1;
        if (tg->py_state == TS_PY_NONE && o->verbose >= 1)
            fprintf(stderr,
                    "%s: process %d (%s) is not a Python process: sampling native stacks only\n",
                    o->prog, (int)tg->pid, tg->cmdline.p);
    }
    tg->threads.len = 0;
    tg->frames.len = 0;
    tg->errors.len = 0;
    tr_buf_reset(&tg->err_text);
    int64_t ts = ts_now_unix();
    int rc = tg->py ? sample_python(tg, o, e) : sample_native(tg, o, e);
    if (rc == TR_FAIL) tg->failed = 1;
    if (rc != TR_OK) return rc;
    /*
    ** A process that ended (or became a zombie) while read: its last dump
    ** would be empty or only say so.  A live process always has a thread.
    */
    if (tg->threads.len == 0) {
        char state = ts_task_state(tg->pid, tg->pid);
        if (state == 0 || state == 'Z' || state == 'X') tg->gone = 1;
        if (tg->gone || tg->errors.len == 0) return TR_OK;
    }
    const char **errs = tr_malloc((tg->errors.len + 1) * sizeof *errs);
    if (!errs) return tr_error_nomem(e);
    for (size_t i = 0; i < tg->errors.len; i++)
        errs[i] = tg->err_text.p + TR_VEC_AT(&tg->errors, size_t, i);
    ts_proc_info pi = {.pid = tg->pid,
                       .cmdline = tg->cmdline.p,
                       .version = tg->py ? ts_py_version(tg->py) : NULL,
                       .exe = tg->exe.p,
                       .ppid = tg->parent,
                       .parent_cmdline = tg->parent_cmdline.p};
    rc = ts_out_dump(out, &pi, ts, tg->threads.data, tg->threads.len, tg->frames.data, errs,
                     tg->errors.len, e);
    tr_free(errs);
    return rc;
}

int ts_target_counters(ts_target *tg, ts_out *out, int64_t ts_unix, tr_error *e)
{
    if (tg->gone || tg->failed) return TR_OK;
    /* A program still starting (no dump yet) is not measured either. */
    if (!tg->py && tg->py_state < 0) return TR_OK;
    if (!tg->py && ts_now_mono() <= tg->py_until) return TR_OK;
    ts_stat st;
    if (ts_proc_stat(tg->pid, &st) < 0) return TR_OK;
    int64_t now = ts_now_mono();
    double secs = (double)(now - tg->cpu_at) / 1e9;
    double cpu = secs > 0 ? (double)(st.cpu_ticks - tg->cpu_ticks) / (double)sysconf(_SC_CLK_TCK) /
                                secs * 100.0
                          : 0;
    tg->cpu_ticks = st.cpu_ticks;
    tg->cpu_at = now;
    return ts_out_counters(out, tg->pid, ts_unix, cpu, st.rss_bytes, e);
}
