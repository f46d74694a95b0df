/*
** cli.h: what every tracecat binary shares: the one option parser and the
** options every binary that reads traces takes, reading the inputs,
** messages on stderr with the program's name, warning verbosity, progress
** lines, signals.
**
** A binary's main file is wiring: its --help text, a table of its own
** options, a function that takes each of them, and a run function.
** tr_cli_parse takes the shared options itself (-h, -V, -q, -v and, for a
** binary that reads traces, -f, --rank, --gt-pairing, --strict, --progress,
** --no-progress, --align, --align-on, --tz, --threads), and tr_cli_load
** reads the inputs with them.
*/
#ifndef TR_CLI_H
#define TR_CLI_H

#include <stdint.h>

#include "tr_align.h"
#include "tr_error.h"
#include "tr_load.h"
#include "tr_readers.h"
#include "tr_writers.h"

#define TR_EXIT_OK    0
#define TR_EXIT_DATA  1 /* bad input, I/O failure */
#define TR_EXIT_USAGE 2

/* How the inputs are read: filled by the shared options. */
typedef struct tr_cli_read {
    const char *from; /* -f FORMAT, NULL = probe */
    tr_rank_override *ranks;
    size_t n_ranks;
    int gt_pairing;           /* enum tr_gt_pairing */
    tr_align_opts align;      /* --align, --align-on, --tz, and where zones are looked up */
    tr_align_offset *offsets; /* owned: align.offsets */
    int threads;              /* --threads, 0 = $TRACECAT_THREADS or the CPUs */
    uint64_t memory;          /* --memory, 0 = tr_cli_memory's default */
    const char *tmpdir;       /* --tmpdir, NULL = beside the output, else $TMPDIR */
    const char *spill_dir;    /* where a streaming load's readers spill (tr_cli_tmpdir), or NULL */
    int unordered;            /* freeze without sorting (tr_trace_freeze_unordered): info */
    int no_args;              /* readers may leave events' args out (tr_read_opts.no_args): info */
} tr_cli_read;

typedef struct tr_cli {
    const char *prog;
    int verbosity; /* 0 errors, 1 + warning summary (default), 2 each warning, 3 debug */
    int progress;  /* -1 auto (stderr is a terminal), 0 off, 1 on */
    tr_diag diag;
    uint64_t warnings_shown;
    tr_cli_read read;
} tr_cli;

void tr_cli_init(tr_cli *c, const char *prog);
void tr_cli_fini(tr_cli *c);

/* ---- options ---- */

/* A row of a binary's option table: as getopt_long's, the id a letter or >= 256. */
typedef struct tr_cli_opt {
    const char *name;
    int has_arg; /* no_argument or required_argument */
    int id;
} tr_cli_opt;

typedef struct tr_cli_spec {
    const char *usage;      /* the --help text */
    const char *usage_more; /* its continuation, or NULL (C caps one string at 4095 bytes) */
    const tr_cli_opt *opts; /* the binary's own options, up to a row with a NULL name */
    int reads;              /* 1: it takes the options that read traces */
    int posix_order;        /* options end at the first operand ("--" not needed) */
    void (*version)(void);  /* lines after --version's first, or NULL */
    /* Takes option ID with ARG (NULL for flags); TR_EXIT_OK or an exit code, said already. */
    int (*option)(tr_cli *c, void *user, int id, const char *arg);
} tr_cli_spec;

/*
** Parses ARGV by S: the shared options into C, the binary's own through
** S->option with USER.  Returns TR_EXIT_OK (*DONE 1 after --help or
** --version: exit 0) with optind at the first operand, or TR_EXIT_USAGE
** after saying what is wrong.
*/
int tr_cli_parse(tr_cli *c, const tr_cli_spec *s, int argc, char **argv, void *user, int *done);
/* ^TR_EXIT_USAGE, said, when -f names no reader; else TR_EXIT_OK. */
int tr_cli_check_from(tr_cli *c);
/* ^Parses a whole decimal in [LO, HI]; returns 0 or -1. */
int tr_cli_parse_long(const char *s, long lo, long hi, long *out);
/*
** Reads the N INPUTS into T with C's read options (NO_STACK_SLICES: the
** output needs no slices made of stack samples), warns of inputs placed by
** a guess, and freezes T.  Returns TR_EXIT_OK, or prints the error and
** returns the exit code.
*/
int tr_cli_load(tr_cli *c, tr_trace *t, char *const *inputs, size_t n, int no_stack_slices);
/*
** tr_cli_load as a new trace in *OUT, for binaries that read two runs
** (--diff); *OUT is NULL unless TR_EXIT_OK is returned.
*/
int tr_cli_load_new(tr_cli *c, char *const *inputs, size_t n, tr_trace **out);

/* --threads, else $TRACECAT_THREADS, else 0 (the CPUs). */
int tr_cli_threads(const tr_cli *c);
/*
** tr_cli_load_into: tr_cli_load with each batch also handed to CONSUME
** (USER), which keeps what it is handed: T drops the events where the
** reader allows (tr_load_opts.consume_forgets).
*/
int tr_cli_load_into(tr_cli *c, tr_trace *t, char *const *inputs, size_t n, int no_stack_slices,
                     tr_sink_fn consume, void *user);
/*
** tr_cli_load_quiet: tr_cli_load_into, but a failure of the reading itself
** is left in E (code set) for the caller to report or act on (a stream that
** reads again, sorted); later failures are reported as usual (E untouched).
*/
int tr_cli_load_quiet(tr_cli *c, tr_trace *t, char *const *inputs, size_t n, int no_stack_slices,
                      tr_sink_fn consume, void *user, tr_error *e);
/* ^The memory budget: --memory, else 1 GiB or a quarter of this machine's memory when less. */
uint64_t tr_cli_memory(const tr_cli *c);
/* ^The share of it that readers of a streaming load sort themselves (tr_read_opts.sort_memory). */
uint64_t tr_cli_sort_memory(const tr_cli *c);
/*
** tr_cli_can_stream: whether the N INPUTS are read through a stream
** ^1 when each is a file (no archive, not standard input) whose reader
** streams, no --align-on is given (it looks for events once all are read),
** and the model may not fit: always for readers other than Chrome JSON,
** for Chrome JSON when --memory was given or its model (about half a byte a
** byte of JSON) may outgrow the default budget.  ^ONE_MODEL: the consumer
** holds one input's model at a time, so the largest Chrome input is judged,
** not their sum.
*/
int tr_cli_can_stream(const tr_cli *c, char *const *inputs, size_t n, int one_model);
/* ^1 when a reader of the N INPUTS may give slices thread times (tr_reader.thread_time). */
int tr_cli_thread_time(const tr_cli *c, char *const *inputs, size_t n);
/* ^Where to spill: --tmpdir, else the directory of OUTPUT (a file; NULL or "-": none), else
 * $TMPDIR, else /tmp; BUF holds it. */
const char *tr_cli_tmpdir(const tr_cli *c, const char *output, char *buf, size_t n);

/* ---- messages ---- */

/* "prog: file:line:col: message" */
void tr_cli_error(tr_cli *c, const tr_error *e);
void tr_cli_errorf(tr_cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* One line then "Try 'prog --help'"; returns TR_EXIT_USAGE. */
int tr_cli_usage_error(tr_cli *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* After the run: "prog: N warnings (use -v to see them)" when some were hidden. */
void tr_cli_warning_summary(tr_cli *c);
/* The progress callback for tr_load_opts; draws only if enabled and the input is big. */
void tr_cli_progress(void *user, const char *name, uint64_t done, uint64_t total);
void tr_cli_progress_done(tr_cli *c);

/* Removes temporary outputs on SIGINT/SIGTERM/SIGHUP/SIGPIPE, then dies of the signal. */
void tr_cli_install_signals(void);
/* Prints the library versions for --version. */
void tr_cli_print_version(const char *prog);

/* The help lines of --align, --align-on, --tz and --threads, alike in every binary. */
/* clang-format off */
/* The --help lines every binary shares: progress, help, version; and the exit codes. */
#define TR_CLI_STD_HELP                                                                       \
    "      --progress        always draw progress on stderr\n"                                \
    "      --no-progress     never draw progress\n"                                           \
    "  -h, --help            show this help and exit\n"                                       \
    "  -V, --version         show the version and exit\n"
#define TR_CLI_EXIT_HELP                                                                      \
    "\n"                                                                                       \
    "Exit status: 0 success (warnings too), 1 bad input or I/O failure, 2 usage error.\n"
#define TR_CLI_LOAD_HELP                                                                      \
    "      --align FILE=OFFSET  put FILE's time zero at OFFSET on the merged timeline\n"      \
    "                        (repeatable; 1.5s, -200ms, 30us)\n"                             \
    "      --align-on NAME   line ranks up on the first slice named NAME of each\n"          \
    "                        (a barrier, ProfilerStep#1): for sources without a clock\n"     \
    "      --tz ZONE         zone of local times that state none (GT's Started:): UTC,\n"    \
    "                        +02:00, local or a zoneinfo name (default: this machine's,\n"  \
    "                        flagged as a guess)\n"                                          \
    "      --threads N       read N inputs at once; convert to Parquet reads the next\n"     \
    "                        input while it writes one (default: the CPUs)\n" \
    "      --max-expand SIZE stop reading compressed input that decompresses past SIZE\n"    \
    "                        (default 64G; K, M, G, T)\n"                                    \
    "      --max-ratio N     stop when it passes 64 MiB and N times the bytes read\n"        \
    "                        (default 1000; real traces compress 15 to 25 times)\n" \
    "      --memory SIZE     memory for the events convert, cat, traceviz (timeline,\n" \
    "                        flame) and tracestat (see its sections) sort (8M, 512M,\n" \
    "                        2G; default 1G, or a quarter of RAM when less): past it\n" \
    "                        they spill to --tmpdir and are merged; other commands\n" \
    "                        hold the whole trace in memory, its arg sets past an\n" \
    "                        eighth of SIZE compressed\n" \
    "      --tmpdir DIR      where spilled events go (default: beside the output,\n"  \
    "                        else $TMPDIR, else /tmp); removed when done or killed\n"

/* The reading options of the binaries that are not tracecat (whose --help says more of each). */
#define TR_CLI_READ_HELP                                                                            \
    "  -f, --from FORMAT     input format (default: probe the content)\n"                           \
    "      --rank FILE=N     the processes read from FILE are rank N (repeatable)\n" TR_CLI_LOAD_HELP \
    "      --gt-pairing MODE GT worker slices: 'batch' (default) or 'visualize'\n"                  \
    "      --strict          a bad record is an error, not a warning\n"                             \
    "  -q, --quiet           errors only\n"
/* clang-format on */

#endif
