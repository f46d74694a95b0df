/*
** tracestat_impl.h: what tracestat's files share: the --help text, the HTML
** page, the --follow loop.
*/
#ifndef TS_TRACESTAT_H
#define TS_TRACESTAT_H

#include "cli.h"
#include "tr_report.h"

extern const char tracestat_usage[];
extern const char tracestat_usage_options[];
extern const char tracestat_usage_reading[];

/*
** ^Writes R (computed over T) to PATH as one self-contained HTML page with
** its pictures (html.c); an exit code, errors said through C.
*/
int ts_write_html(tr_cli *c, const tr_trace *t, tr_report *r, const char *path);
/*
** ^Redraws the lanes and ops of the log at PATH, as OPTS ask, every second it
** grows, until a signal; an exit code (follow.c).
*/
int ts_follow(tr_cli *c, const tr_report_opts *opts, char *path);

#endif
