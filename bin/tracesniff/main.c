/*
** tracesniff: sample the stacks of running Python and native processes.
**
**   tracesniff -p PID[,PID...] [-i SECONDS] [-d SECONDS] [-o OUT]
**   tracesniff [options] -- PROGRAM ARGS...
**
** The dumps are py-spy dump text in "#tracecat-dump" blocks, or a model for
** any tracecat writer chosen by the output's extension.  This file takes
** the options; session.c samples.
*/
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "session_impl.h"
#include "tr_text.h"

static const char usage_text[] =
    "Usage: " PROG " -p PID[,PID...] [options]\n"
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
    "      --cpu-mem           process CPU % and RSS as counters at every sample\n"
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
    "2 usage.\n";

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

static const tr_cli_opt options[] = {
    {"pid", required_argument, 'p'},
    {"interval", required_argument, 'i'},
    {"rate", required_argument, 'r'},
    {"duration", required_argument, 'd'},
    {"output", required_argument, 'o'},
    {"to", required_argument, OPT_TO},
    {"once", no_argument, OPT_ONCE},
    {"native", no_argument, 'n'},
    {"blocking", no_argument, OPT_BLOCKING},
    {"nonblocking", no_argument, OPT_NONBLOCKING},
    {"all-threads", no_argument, OPT_ALL_THREADS},
    {"main-thread", no_argument, OPT_MAIN_THREAD},
    {"subprocesses", no_argument, 's'},
    {"cpu-mem", no_argument, OPT_CPU_MEM},
    {"autosave", required_argument, OPT_AUTOSAVE},
    {"full-filenames", no_argument, OPT_FULL_FILENAMES},
    {"stats", no_argument, OPT_STATS},
    {NULL, 0, 0},
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

/* The options that take a value. */
static int value_option(tr_cli *c, args *a, int id, const char *arg)
{
    switch (id) {
    case 'p':
        return parse_pids(c, arg, &a->pids);
    case 'i':
        return parse_seconds(c, "--interval", arg, &a->interval_ns);
    case 'r': {
        char *end;
        double hz = strtod(arg, &end);
        if (*end || !(hz > 0) || hz > 1e6)
            return tr_cli_usage_error(c, "--rate wants samples per second, not '%s'", arg);
        a->interval_ns = (int64_t)(1e9 / hz);
        return TR_EXIT_OK;
    }
    case 'd':
        return parse_seconds(c, "--duration", arg, &a->duration_ns);
    case OPT_AUTOSAVE:
        return parse_seconds(c, "--autosave", arg, &a->autosave_ns);
    case 'o':
        a->output = arg;
        return TR_EXIT_OK;
    default: /* OPT_TO */
        a->to = arg;
        return TR_EXIT_OK;
    }
}

static int option(tr_cli *c, void *user, int id, const char *arg)
{
    args *a = user;
    switch (id) {
    case OPT_ONCE:
        a->once = 1;
        break;
    case 'n':
        a->o.native = 1;
        break;
    case OPT_BLOCKING:
    case OPT_NONBLOCKING:
        a->o.blocking = id == OPT_BLOCKING;
        break;
    case OPT_ALL_THREADS:
    case OPT_MAIN_THREAD:
        a->o.main_thread = id == OPT_MAIN_THREAD;
        break;
    case 's':
        a->subprocesses = 1;
        break;
    case OPT_CPU_MEM:
        a->cpu_mem = 1;
        break;
    case OPT_FULL_FILENAMES:
        a->o.full_filenames = 1;
        break;
    case OPT_STATS:
        a->stats = 1;
        break;
    default:
        return value_option(c, a, id, arg);
    }
    return TR_EXIT_OK;
}

/* What the options say together, once parsed: an exit code. */
static int check_args(tr_cli *c, args *a, int argc, char **argv)
{
    if (optind < argc) a->program = argv + optind;
    if (!a->pids.len && !a->program)
        return tr_cli_usage_error(c, "nothing to sample: give -p PID or -- PROGRAM");
    if (a->pids.len && a->program)
        return tr_cli_usage_error(c, "give either -p PID or a PROGRAM, not both");
    if (a->autosave_ns && (!a->output || strcmp(a->output, "-") == 0))
        return tr_cli_usage_error(c, "--autosave needs -o FILE");
    a->o.verbose = c->verbosity;
    a->o.prog = PROG;
    return TR_EXIT_OK;
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

int main(int argc, char **argv)
{
    static const tr_cli_spec spec = {
        .usage = usage_text, .opts = options, .posix_order = 1, .option = option};
    tr_cli cli;
    tr_cli_init(&cli, PROG);
    args a;
    memset(&a, 0, sizeof a);
    tr_vec_init(&a.pids, sizeof(pid_t));
    a.interval_ns = 100000000LL;
    int done;
    int rc = tr_cli_parse(&cli, &spec, argc, argv, &a, &done);
    if (rc == TR_EXIT_OK && !done) rc = check_args(&cli, &a, argc, argv);
    const tr_writer *w = NULL;
    if (rc == TR_EXIT_OK && !done) rc = choose_writer(&cli, &a, &w);
    if (rc == TR_EXIT_OK && !done) rc = ts_sniff(&cli, &a, w);
    tr_vec_fini(&a.pids);
    tr_cli_fini(&cli);
    return rc;
}
