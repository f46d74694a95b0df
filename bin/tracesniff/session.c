/*
** session.c: a sampling run.  Every interval each process is sampled (all
** threads, or the main one) and its dump appended to the output; the run
** ends when the processes exit, the duration is over or on
** SIGINT/SIGTERM/SIGHUP.  Threads are only ever stopped inside a sample, so
** by the time the loop sees the signal nothing is held and the output is
** written whole.
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "output_impl.h"
#include "session_impl.h"

/* How often --subprocesses looks for new descendants. */
#define SCAN_NS 200000000LL
/* How long a started program has to end after SIGTERM before SIGKILL. */
#define TERM_GRACE_NS 2000000000LL

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
    stop_signal = sig;
}

/* Our started program's exit, collected by whichever waitpid saw it. */
static pid_t child_pid;
static int child_status = -1;

static void note_child_exit(pid_t pid, int status)
{
    if (pid == child_pid) child_status = status;
}

/* ---- the started program ---- */

static int spawn(tr_cli *c, char **argv, pid_t *pid)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        tr_cli_errorf(c, "cannot start %s: %s", argv[0], strerror(errno));
        return -1;
    }
    pid_t p = fork();
    if (p < 0) {
        tr_cli_errorf(c, "cannot start %s: %s", argv[0], strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (p == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        close(fds[0]);
        execvp(argv[0], argv);
        int err = errno;
        ssize_t unused = write(fds[1], &err, sizeof err);
        (void)unused;
        _exit(127);
    }
    close(fds[1]);
    int err = 0;
    ssize_t n;
    do n = read(fds[0], &err, sizeof err);
    while (n < 0 && errno == EINTR);
    close(fds[0]);
    if (n == (ssize_t)sizeof err) {
        waitpid(p, NULL, 0);
        tr_cli_errorf(c, "cannot run %s: %s", argv[0], strerror(err));
        return -1;
    }
    *pid = p;
    return 0;
}

/* Collects the started program's exit if it happened. */
static void reap_child(void)
{
    int st;
    if (child_pid > 0 && child_status < 0 && waitpid(child_pid, &st, WNOHANG) == child_pid)
        child_status = st;
}

/* Ends the started program when sampling stops first (py-spy does the same). */
static void end_child(void)
{
    reap_child();
    if (child_pid <= 0 || child_status >= 0) return;
    kill(child_pid, SIGTERM);
    int64_t deadline = ts_now_mono() + TERM_GRACE_NS;
    while (child_status < 0 && ts_now_mono() < deadline) {
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
        reap_child();
    }
    if (child_status < 0) {
        kill(child_pid, SIGKILL);
        int st;
        if (waitpid(child_pid, &st, 0) == child_pid) child_status = st;
    }
}

static int by_value(const void *pa, const void *pb)
{
    int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
    return (a > b) - (a < b);
}

/* --stats: what one sample of a process cost. */
static void print_stats(tr_vec *costs)
{
    size_t n = costs->len;
    if (!n) {
        fprintf(stderr, "%s: no samples taken\n", PROG);
        return;
    }
    int64_t *v = costs->data;
    tr_qsort(v, n, sizeof *v, by_value);
    size_t p99 = (n * 99 + 99) / 100;
    fprintf(stderr,
            "%s: %zu samples; one sample of a process: median %.1f us, p99 %.1f us, max %.1f us\n",
            PROG, n, (double)v[n / 2] / 1e3, (double)v[(p99 ? p99 : 1) - 1] / 1e3,
            (double)v[n - 1] / 1e3);
}

/* ---- targets ---- */

typedef struct session {
    tr_cli *c;
    args *a;
    ts_out *out;
    tr_vec targets; /* ts_target* */
    tr_vec costs;   /* int64_t: ns each sample of a process took (--stats) */
    int failed;     /* a process could not be read */
} session;

static ts_target *target_find(session *s, pid_t pid)
{
    for (size_t i = 0; i < s->targets.len; i++) {
        ts_target *t = TR_VEC_AT(&s->targets, ts_target *, i);
        if (t->pid == pid && !t->gone) return t;
    }
    return NULL;
}

static ts_target *target_add(session *s, pid_t pid, int ours, pid_t parent, int quiet_fail)
{
    ts_target *t = tr_malloc(sizeof *t);
    ts_target **slot = t ? tr_vec_push(&s->targets) : NULL;
    if (!slot) {
        tr_free(t);
        tr_cli_errorf(s->c, "out of memory");
        s->failed = 1;
        return NULL;
    }
    tr_error e = {0};
    *slot = t;
    if (ts_target_init(t, pid, ours, &e) != TR_OK) {
        t->failed = 1;
        if (!quiet_fail) {
            tr_cli_error(s->c, &e);
            s->failed = 1;
        }
    }
    if (parent) {
        ts_target *pt = target_find(s, parent);
        t->parent = parent;
        if (pt) tr_buf_adds(&t->parent_cmdline, pt->cmdline.p);
    }
    return t;
}

/* --subprocesses: adds the descendants of the sampled processes not yet sampled. */
static void scan_children(session *s)
{
    DIR *d = opendir("/proc");
    if (!d) return;
    struct dirent *de;
    tr_vec found; /* pairs pid, ppid */
    tr_vec_init(&found, 2 * sizeof(pid_t));
    while ((de = readdir(d)) != NULL) {
        char *end;
        long v = strtol(de->d_name, &end, 10);
        if (*end || v <= 0) continue;
        ts_stat st;
        if (ts_proc_stat((pid_t)v, &st) < 0) continue;
        pid_t *p = tr_vec_push(&found);
        if (!p) break;
        p[0] = (pid_t)v;
        p[1] = st.ppid;
    }
    closedir(d);
    /* Descendants of descendants: repeat until nothing is added. */
    for (int added = 1; added;) {
        added = 0;
        for (size_t i = 0; i < found.len; i++) {
            pid_t *p = (pid_t *)found.data + 2 * i;
            if (target_find(s, p[0]) || !target_find(s, p[1])) continue;
            if (target_add(s, p[0], 0, p[1], 1)) added = 1;
        }
    }
    tr_vec_fini(&found);
}

static int all_done(session *s)
{
    for (size_t i = 0; i < s->targets.len; i++) {
        ts_target *t = TR_VEC_AT(&s->targets, ts_target *, i);
        if (!t->gone && !t->failed) return 0;
    }
    return 1;
}

static int save(session *s, const tr_writer *w)
{
    tr_error e = {0};
    if (ts_out_save(s->out, s->a->output, w, &e) != TR_OK) {
        tr_cli_error(s->c, &e);
        return -1;
    }
    return 0;
}

static int run(session *s, const tr_writer *w)
{
    args *a = s->a;
    int stream = !w && (!a->output || strcmp(a->output, "-") == 0);
    int64_t start = ts_now_mono(), next = start, last_save = start, last_scan = 0;
    int rc = TR_EXIT_OK;
    for (;;) {
        reap_child();
        if (a->subprocesses && ts_now_mono() - last_scan >= SCAN_NS) {
            scan_children(s);
            last_scan = ts_now_mono();
        }
        int64_t ts = ts_now_unix();
        for (size_t i = 0; i < s->targets.len && !stop_signal; i++) {
            ts_target *t = TR_VEC_AT(&s->targets, ts_target *, i);
            tr_error e = {0};
            if (a->cpu_mem && !a->once && ts_target_counters(t, s->out, ts, &e) != TR_OK) {
                tr_cli_error(s->c, &e);
                return TR_EXIT_DATA;
            }
            int64_t t0 = ts_now_mono();
            uint64_t dumps = ts_out_dumps(s->out);
            int r = ts_target_sample(t, &a->o, s->out, &e);
            int64_t *cost =
                a->stats && ts_out_dumps(s->out) > dumps ? tr_vec_push(&s->costs) : NULL;
            if (cost) *cost = ts_now_mono() - t0;
            if (r != TR_OK) {
                /* One process that cannot be traced does not stop the others. */
                tr_cli_error(s->c, &e);
                s->failed = 1;
                if (r == TR_FATAL) return TR_EXIT_DATA;
            }
        }
        reap_child();
        if (stream) {
            tr_error e = {0};
            if (ts_out_stream(s->out, STDOUT_FILENO, &e) != TR_OK) {
                tr_cli_error(s->c, &e);
                return TR_EXIT_DATA;
            }
        }
        int64_t now = ts_now_mono();
        if (a->once && ts_out_dumps(s->out) > 0) break;
        if (stop_signal || all_done(s)) break;
        if (a->duration_ns && now - start >= a->duration_ns) break;
        if (a->autosave_ns && now - last_save >= a->autosave_ns) {
            if (save(s, w) != 0) rc = TR_EXIT_DATA;
            last_save = ts_now_mono();
        }
        /* Pace by the clock; when late, go on without a burst to catch up. */
        next += a->interval_ns;
        now = ts_now_mono();
        if (next < now) next = now;
        if (a->duration_ns && next > start + a->duration_ns) next = start + a->duration_ns;
        struct timespec until = {(time_t)(next / 1000000000LL), (long)(next % 1000000000LL)};
        while (!stop_signal &&
               clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, NULL) == EINTR)
            reap_child();
    }
    return rc;
}

/* ---- the run ---- */

/* A flag only: the loop detaches (nothing is held between samples) and writes. */
static void install_stop(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    ts_on_child_exit = note_child_exit;
}

/* The first targets: the started program, or the processes named. */
static int start(session *s)
{
    args *a = s->a;
    int rc = TR_EXIT_OK;
    if (a->program) {
        if (spawn(s->c, a->program, &child_pid) != 0)
            rc = TR_EXIT_DATA;
        else
            target_add(s, child_pid, 1, 0, 0);
    }
    for (size_t i = 0; i < a->pids.len; i++) target_add(s, TR_VEC_AT(&a->pids, pid_t, i), 0, 0, 0);
    return rc;
}

/* After the loop: the started program ends, the output is written, the costs said. */
static int finish(session *s, const tr_writer *w, int rc)
{
    args *a = s->a;
    if (child_pid > 0) {
        /* The program's descendants that were sampled end with it. */
        for (size_t i = 0; i < s->targets.len; i++) {
            ts_target *t = TR_VEC_AT(&s->targets, ts_target *, i);
            if (t->parent && !t->gone && !t->failed) kill(t->pid, SIGTERM);
        }
        end_child();
    }
    int stream = !w && (!a->output || strcmp(a->output, "-") == 0);
    /* Nothing is written when no process could be read at all. */
    if (!stream && !(s->failed && ts_out_dumps(s->out) == 0)) {
        if (!a->output) a->output = "-";
        if (save(s, w) != 0) rc = TR_EXIT_DATA;
    }
    if (a->stats) print_stats(&s->costs);
    if (s->c->verbosity >= 2)
        fprintf(stderr, "%s: %llu dumps%s\n", PROG, (unsigned long long)ts_out_dumps(s->out),
                stop_signal ? " (stopped by a signal)" : "");
    if (rc == TR_EXIT_OK && s->failed) rc = TR_EXIT_DATA;
    return rc;
}

int ts_sniff(tr_cli *c, args *a, const tr_writer *w)
{
    install_stop();
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    session s = {.c = c, .a = a};
    s.out = ts_out_new(!w, w != NULL, !a->once, host);
    if (!s.out) {
        tr_cli_errorf(c, "out of memory");
        return TR_EXIT_DATA;
    }
    tr_vec_init(&s.targets, sizeof(ts_target *));
    tr_vec_init(&s.costs, sizeof(int64_t));
    int rc = start(&s);
    if (rc == TR_EXIT_OK && !all_done(&s)) rc = run(&s, w);
    rc = finish(&s, w, rc);
    for (size_t i = 0; i < s.targets.len; i++) {
        ts_target *t = TR_VEC_AT(&s.targets, ts_target *, i);
        ts_target_fini(t);
        tr_free(t);
    }
    tr_vec_fini(&s.targets);
    tr_vec_fini(&s.costs);
    ts_out_free(s.out);
    return rc;
}
