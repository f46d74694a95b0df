/*
** cli.h: what every tracecat binary shares: messages on stderr with the
** program's name, warning verbosity, progress lines, --rank, signals.
*/
#ifndef TR_CLI_H
#define TR_CLI_H

#include <stdint.h>

#include "tr_error.h"
#include "tr_format.h"

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
/* Removes temporary outputs on SIGINT/SIGTERM/SIGHUP, then dies of the signal. */
void tr_cli_install_signals(void);
/* Prints the library versions for --version. */
void tr_cli_print_version(const char *prog);

#endif
