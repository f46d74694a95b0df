/*
** cli.h: what every tracecat binary shares: messages on stderr with the
** program's name, warning verbosity, progress lines, --rank, signals.
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

typedef struct tr_cli {
    const char *prog;
    int verbosity; /* 0 errors, 1 + warning summary (default), 2 each warning, 3 debug */
    int progress;  /* -1 auto (stderr is a terminal), 0 off, 1 on */
    tr_diag diag;
    uint64_t warnings_shown;
} tr_cli;

void tr_cli_init(tr_cli *c, const char *prog);
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
/* Parses FILE=N for --rank; returns 0 or -1. */
int tr_cli_parse_rank(const char *arg, tr_rank_override *out);
/*
** Reading the inputs: the options every binary that reads traces shares
** (--align FILE=OFFSET, --align-on NAME, --tz ZONE, --threads N).  A binary
** puts TR_CLI_LOAD_OPTIONS in its option table, passes what getopt returns
** to tr_cli_load_option, and reads with tr_cli_load.
*/
enum { TR_CLI_OPT_ALIGN = 1000, TR_CLI_OPT_ALIGN_ON, TR_CLI_OPT_TZ, TR_CLI_OPT_THREADS };
/* clang-format off */
#define TR_CLI_LOAD_OPTIONS                                                                   \
    {"align", required_argument, NULL, TR_CLI_OPT_ALIGN},                                    \
        {"align-on", required_argument, NULL, TR_CLI_OPT_ALIGN_ON},                          \
        {"threads", required_argument, NULL, TR_CLI_OPT_THREADS},                            \
        {"tz", required_argument, NULL, TR_CLI_OPT_TZ}
#define TR_CLI_LOAD_HELP                                                                      \
    "      --align FILE=OFFSET  put FILE's time zero at OFFSET on the merged timeline\n"      \
    "                        (repeatable; 1.5s, -200ms, 30us)\n"                             \
    "      --align-on NAME   line ranks up on the first slice named NAME of each\n"          \
    "                        (a barrier, ProfilerStep#1): for sources without a clock\n"     \
    "      --tz ZONE         zone of local times that state none (GT's Started:): UTC,\n"    \
    "                        +02:00, local or a zoneinfo name (default: this machine's,\n"  \
    "                        flagged as a guess)\n"                                          \
    "      --threads N       read N inputs at once (default: the CPUs)\n"
/* clang-format on */

typedef struct tr_cli_loadopts {
    tr_align_opts align;
    tr_align_offset *offsets;
    int threads;
} tr_cli_loadopts;

/* ^0 when OPT is one of TR_CLI_LOAD_OPTIONS (taken), 1 when not, TR_EXIT_USAGE when ARG is bad. */
int tr_cli_load_option(tr_cli *c, tr_cli_loadopts *l, int opt, const char *arg);
/*
** Reads the N INPUTS into T with LO (threads and alignment from L, which may
** be NULL), warns of inputs placed by a guess, and freezes T.  Returns
** TR_EXIT_OK, or prints the error and returns the exit code.
*/
int tr_cli_load(tr_cli *c, tr_trace *t, char *const *inputs, size_t n, tr_load_opts *lo,
                const tr_cli_loadopts *l);
void tr_cli_load_fini(tr_cli_loadopts *l);

/* Removes temporary outputs on SIGINT/SIGTERM/SIGHUP, then dies of the signal. */
void tr_cli_install_signals(void);
/* Prints the library versions for --version. */
void tr_cli_print_version(const char *prog);

#endif
