/*
** tracestat_impl.h: what tracestat's files share: the options, the --help
** text, printing a report, the report from a stream, the HTML page, the
** --follow loop.
*/
#ifndef TS_TRACESTAT_H
#define TS_TRACESTAT_H

#include "cli.h"
#include "tr_report.h"

typedef struct args {
    tr_report_opts ro;
    int json, dot;
    const char *csv;
    tr_vec control;   /* char *: the --diff inputs (the control run) */
    const char *html; /* --html FILE */
    int follow;
} args;

extern const char tracestat_usage[];
extern const char tracestat_usage_options[];
extern const char tracestat_usage_reading[];

/*
** ^Writes R (computed over T) to PATH as one self-contained HTML page with
** its pictures (html.c); an exit code, errors said through C.
*/
int ts_write_html(tr_cli *c, const tr_trace *t, tr_report *r, const char *path);
/* ^Prints R as A asks (text, --json, --csv, --dot) on standard output; an exit code. */
int ts_print(tr_cli *c, const args *a, const tr_report *r);
/*
** ^The report of the N INPUTS computed from a stream within --memory
** (stream.c); an exit code, errors said through C.  ^Sets *MODEL when it
** could not be (a slice was an I/O call while io or the stragglers are asked)
** and nothing was printed: the caller reads the model instead.
*/
int ts_stream(tr_cli *c, const args *a, char **inputs, int n, int *model);
/*
** ^Redraws the lanes and ops of the log at PATH, as OPTS ask, every second it
** grows, until a signal; an exit code (follow.c).
*/
int ts_follow(tr_cli *c, const tr_report_opts *opts, char *path);

#endif
