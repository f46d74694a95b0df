/*
** tracesniff: sample the stacks of running Python and native processes.
**
**   tracesniff -p PID[,PID...] [-i SECONDS] [-d SECONDS] [-o OUT]
**   tracesniff [options] -- PROGRAM ARGS...
**
** Every interval each process is sampled (all threads, or the main one) and
** its dump appended: py-spy dump text in "#tracecat-dump" blocks, or a model
** for any tracecat writer chosen by the output's extension.  The run ends
** when the processes exit, the duration is over or on SIGINT/SIGTERM/SIGHUP;
** threads are only ever stopped inside a sample, so by the time the loop
** sees the signal nothing is held and the output is written whole.
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "output.h"
#include "sample.h"
#include "tr_text.h"

#define PROG "tracesniff"
/* How often --subprocesses looks for new descendants. */
#define SCAN_NS 200000000LL
/* How long a started program has to end after SIGTERM before SIGKILL. */
#define TERM_GRACE_NS 2000000000LL

typedef struct args {
    tr_vec pids; /* pid_t */
    int64_t interval_ns, duration_ns, autosave_ns;
    const char *output, *to;
    int once, subprocesses, cpu_mem, stats;
    char **program; /* NULL-terminated argv after "--" */
    ts_opts o;
} args;

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

static void usage(void)
{
    printf("Usage: " PROG " -p PID[,PID...] [options]\n"
           "       " PROG " [options] -- PROGRAM [ARGS...]\n"
           "Sample the stacks of running Python (3.11+) and native processes.\n"
           "\n"
           "  -p, --pid PID[,PID...]  processes to sample (repeatable)\n"
           "  -i, --interval SECONDS  time between samples (default 0.1; '10ms' works too)\n"
           "  -r, --rate HZ           samples per second (instead of -i)\n"
           "  -d, --duration SECONDS  stop after this long (default: until the processes end\n"
           "                          or Ctrl-C)\n"
           "      --once              one dump, printed like 'py-spy dump'\n"
           "  -o, --output FILE       where to write (default: dumps to standard output).\n"
           "                          .txt/.dump/.dumps: py-spy dump text in #tracecat-dump\n"
           "                          blocks; any other tracecat writer by extension\n"
           "                          (.json, .folded, .db, ...); .gz/.zst compress\n"
           "      --to FORMAT         output format by name ('pyspy' for the dump text)\n"
           "  -n, --native            native frames too, merged with the Python ones\n"
           "                          (each thread is paused while it is read)\n"
           "      --blocking          pause each thread while its Python stack is read\n"
           "      --nonblocking       read Python stacks without pausing (the default)\n"
           "      --all-threads       every thread (the default)\n"
           "      --main-thread       only the thread named MainThread\n"
           "  -s, --subprocesses      also sample the processes' descendants\n"
           "      --cpu-mem           process CPU %% and RSS as counters at every sample\n"
           "      --autosave SECONDS  rewrite the output (atomically) this often\n"
           "      --full-filenames    whole paths instead of py-spy's short file names\n"
           "      --stats             print the time one sample of a process took (median, p99)\n"
           "  -v, --verbose           more messages\n"
           "  -q, --quiet             fewer messages\n"
           "  -h, --help              this help\n"
           "  -V, --version           version\n"
           "\n"
           "Reading another process needs the same user or CAP_SYS_PTRACE; with\n"
           "kernel.yama.ptrace_scope=1, '" PROG " -- PROGRAM' works unprivileged.\n"
           "Exit status: 0 done, 1 a process could not be read or the output written,\n"
           "2 usage.\n");
}

enum {
    OPT_ONCE = 256,
    OPT_TO,
    OPT_BLOCKING,
    OPT_NONBLOCKING,
    OPT_ALL_THREADS,
    OPT_MAIN_THREAD,
    OPT_CPU_MEM,
    OPT_AUTOSAVE,
    OPT_FULL_FILENAMES,
    OPT_STATS
};

static int parse_seconds(tr_cli *c, const char *opt, const char *s, int64_t *ns)
{
    if (tr_parse_duration(s, ns) != 0 || *ns <= 0)
        return tr_cli_usage_error(c, "%s wants a positive number of seconds, not '%s'", opt, s);
    return 0;
}

static int parse_pids(tr_cli *c, const char *s, tr_vec *pids)
{
    while (*s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v <= 0 || v > 0x7fffffff || (*end && *end != ','))
            return tr_cli_usage_error(c, "bad process id in '%s'", s);
        pid_t *slot = tr_vec_push(pids);
        if (!slot) return tr_cli_usage_error(c, "out of memory");
        *slot = (pid_t)v;
        s = *end ? end + 1 : end;
    }
    return 0;
}

static int parse_args(tr_cli *c, int argc, char **argv, args *a)
{
    static const struct option opts[] = {
        {"pid", required_argument, NULL, 'p'},
        {"interval", required_argument, NULL, 'i'},
        {"rate", required_argument, NULL, 'r'},
        {"duration", required_argument, NULL, 'd'},
        {"output", required_argument, NULL, 'o'},
        {"to", required_argument, NULL, OPT_TO},
        {"once", no_argument, NULL, OPT_ONCE},
        {"native", no_argument, NULL, 'n'},
        {"blocking", no_argument, NULL, OPT_BLOCKING},
        {"nonblocking", no_argument, NULL, OPT_NONBLOCKING},
        {"all-threads", no_argument, NULL, OPT_ALL_THREADS},
        {"main-thread", no_argument, NULL, OPT_MAIN_THREAD},
        {"subprocesses", no_argument, NULL, 's'},
        {"cpu-mem", no_argument, NULL, OPT_CPU_MEM},
        {"autosave", required_argument, NULL, OPT_AUTOSAVE},
        {"full-filenames", no_argument, NULL, OPT_FULL_FILENAMES},
        {"stats", no_argument, NULL, OPT_STATS},
        {"verbose", no_argument, NULL, 'v'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    a->interval_ns = 100000000LL;
    int ch, rc;
    opterr = 0;
    while ((ch = getopt_long(argc, argv, "+p:i:r:d:o:nsvqhV", opts, NULL)) != -1) {
        switch (ch) {
        case 'p':
            if ((rc = parse_pids(c, optarg, &a->pids))) return rc;
            break;
        case 'i':
            if ((rc = parse_seconds(c, "--interval", optarg, &a->interval_ns))) return rc;
            break;
        case 'r': {
            char *end;
            double hz = strtod(optarg, &end);
            if (*end || !(hz > 0) || hz > 1e6)
                return tr_cli_usage_error(c, "--rate wants samples per second, not '%s'", optarg);
            a->interval_ns = (int64_t)(1e9 / hz);
            break;
        }
        case 'd':
            if ((rc = parse_seconds(c, "--duration", optarg, &a->duration_ns))) return rc;
            break;
        case 'o':
            a->output = optarg;
            break;
        case OPT_TO:
            a->to = optarg;
            break;
        case OPT_ONCE:
            a->once = 1;
            break;
        case 'n':
            a->o.native = 1;
            break;
        case OPT_BLOCKING:
            a->o.blocking = 1;
            break;
        case OPT_NONBLOCKING:
            a->o.blocking = 0;
            break;
        case OPT_ALL_THREADS:
            a->o.main_thread = 0;
            break;
        case OPT_MAIN_THREAD:
            a->o.main_thread = 1;
            break;
        case 's':
            a->subprocesses = 1;
            break;
        case OPT_CPU_MEM:
            a->cpu_mem = 1;
            break;
        case OPT_AUTOSAVE:
            if ((rc = parse_seconds(c, "--autosave", optarg, &a->autosave_ns))) return rc;
            break;
        case OPT_FULL_FILENAMES:
            a->o.full_filenames = 1;
            break;
        case OPT_STATS:
            a->stats = 1;
            break;
        case 'v':
            c->verbosity++;
            break;
        case 'q':
            c->verbosity = 0;
            break;
        case 'h':
            usage();
            return -1;
        case 'V':
            tr_cli_print_version(PROG);
            return -1;
        default:
            if (optopt && optopt < 256)
                return tr_cli_usage_error(c, "unknown option '-%c'", optopt);
            return tr_cli_usage_error(c, "unknown or incomplete option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc) a->program = argv + optind;
    if (!a->pids.len && !a->program)
        return tr_cli_usage_error(c, "nothing to sample: give -p PID or -- PROGRAM");
    if (a->pids.len && a->program)
        return tr_cli_usage_error(c, "give either -p PID or a PROGRAM, not both");
    if (a->autosave_ns && (!a->output || strcmp(a->output, "-") == 0))
        return tr_cli_usage_error(c, "--autosave needs -o FILE");
    a->o.verbose = c->verbosity;
    a->o.prog = PROG;
    return 0;
}

/* Is PATH (compression suffix aside) a dump text name: .txt, .dump, .dumps, .pyspy? */
static int is_text_path(const char *path)
{
    size_t n = strlen(path);
    static const char *const squeeze[] = {".gz", ".zst"};
    for (size_t i = 0; i < 2; i++) {
        size_t sl = strlen(squeeze[i]);
        if (n > sl && strcasecmp(path + n - sl, squeeze[i]) == 0) {
            n -= sl;
            break;
        }
    }
    static const char *const exts[] = {".txt", ".dump", ".dumps", ".pyspy"};
    for (size_t i = 0; i < sizeof exts / sizeof *exts; i++) {
        size_t el = strlen(exts[i]);
        if (n > el && strncasecmp(path + n - el, exts[i], el) == 0) return 1;
    }
    return 0;
}

/* Picks the output: *W NULL for dump text.  0 or a usage exit code. */
static int choose_writer(tr_cli *c, const args *a, const tr_writer **w)
{
    *w = NULL;
    if (a->to) {
        if (strcmp(a->to, "pyspy") == 0 || strcmp(a->to, "dump") == 0) return 0;
        if (!(*w = tr_writer_find(a->to)))
            return tr_cli_usage_error(c, "unknown output format '%s'", a->to);
        return 0;
    }
    if (!a->output || strcmp(a->output, "-") == 0 || is_text_path(a->output)) return 0;
    if (!(*w = tr_writer_for_path(a->output)))
        return tr_cli_usage_error(c,
                                  "cannot tell the format of '%s' from its extension "
                                  "(use .txt for dumps, or --to)",
                                  a->output);
    return 0;
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
    qsort(v, n, sizeof *v, by_value);
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

int main(int argc, char **argv)
{
    tr_cli cli;
    tr_cli_init(&cli, PROG);
    args a;
    memset(&a, 0, sizeof a);
    tr_vec_init(&a.pids, sizeof(pid_t));
    int rc = parse_args(&cli, argc, argv, &a);
    const tr_writer *w = NULL;
    if (rc == 0) rc = choose_writer(&cli, &a, &w);
    if (rc != 0) {
        tr_vec_fini(&a.pids);
        return rc < 0 ? TR_EXIT_OK : rc;
    }
    /* A flag only: the loop detaches (nothing is held between samples) and writes. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    ts_on_child_exit = note_child_exit;

    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    session s = {.c = &cli, .a = &a};
    tr_vec_init(&s.targets, sizeof(ts_target *));
    tr_vec_init(&s.costs, sizeof(int64_t));
    s.out = ts_out_new(!w, w != NULL, !a.once, host);
    if (!s.out) {
        tr_cli_errorf(&cli, "out of memory");
        tr_vec_fini(&a.pids);
        return TR_EXIT_DATA;
    }
    rc = TR_EXIT_OK;
    if (a.program) {
        if (spawn(&cli, a.program, &child_pid) != 0)
            rc = TR_EXIT_DATA;
        else
            target_add(&s, child_pid, 1, 0, 0);
    }
    for (size_t i = 0; i < a.pids.len; i++) target_add(&s, TR_VEC_AT(&a.pids, pid_t, i), 0, 0, 0);
    if (rc == TR_EXIT_OK && !all_done(&s)) rc = run(&s, w);
    if (child_pid > 0) {
        /* The program's descendants that were sampled end with it. */
        for (size_t i = 0; i < s.targets.len; i++) {
            ts_target *t = TR_VEC_AT(&s.targets, ts_target *, i);
            if (t->parent && !t->gone && !t->failed) kill(t->pid, SIGTERM);
        }
        end_child();
    }
    int stream = !w && (!a.output || strcmp(a.output, "-") == 0);
    /* Nothing is written when no process could be read at all. */
    if (!stream && !(s.failed && ts_out_dumps(s.out) == 0)) {
        if (!a.output) a.output = "-";
        if (save(&s, w) != 0) rc = TR_EXIT_DATA;
    }
    if (a.stats) print_stats(&s.costs);
    tr_vec_fini(&s.costs);
    if (cli.verbosity >= 2)
        fprintf(stderr, "%s: %llu dumps%s\n", PROG, (unsigned long long)ts_out_dumps(s.out),
                stop_signal ? " (stopped by a signal)" : "");
    if (rc == TR_EXIT_OK && s.failed) rc = TR_EXIT_DATA;
    for (size_t i = 0; i < s.targets.len; i++) {
        ts_target *t = TR_VEC_AT(&s.targets, ts_target *, i);
        ts_target_fini(t);
        tr_free(t);
    }
    tr_vec_fini(&s.targets);
    ts_out_free(s.out);
    tr_vec_fini(&a.pids);
    return rc;
}
