/*
** session_impl.h: what tracesniff's main.c and session.c share: the command
** line as parsed, and the sampling run.
*/
#ifndef TS_SESSION_H
#define TS_SESSION_H

#include <sys/types.h>

#include "cli.h"
#include "sample_impl.h"

#define PROG "tracesniff"

typedef struct args {
    tr_vec pids; /* pid_t */
    int64_t interval_ns, duration_ns, autosave_ns;
    const char *output, *to;
    int once, subprocesses, cpu_mem, stats;
    char **program; /* NULL-terminated argv after "--" */
    ts_opts o;
} args;

/*
** Samples A's processes (or the program it starts) until they end, the
** duration is over or a signal comes, writing with W (NULL: dump text);
** returns the exit code.
*/
int ts_sniff(tr_cli *c, args *a, const tr_writer *w);

#endif
