/*
** tracestat_impl.h: what tracestat's files share: the --help text.
*/
#ifndef TS_TRACESTAT_H
#define TS_TRACESTAT_H

#include "cli.h"
#include "tr_report.h"

extern const char tracestat_usage[];
extern const char tracestat_usage_options[];

#endif
