/*
** out_impl.h: printing statement results in tracesql's output modes.
*/
#ifndef TSQL_OUT_H
#define TSQL_OUT_H

#include <sqlite3.h>
#include <stdio.h>

#include "tr_mem.h"

enum { TSQL_TABLE = 0, TSQL_CSV, TSQL_TSV, TSQL_JSON, TSQL_LINES };

typedef struct tsql_out {
    FILE *f;
    int mode;       /* TSQL_* */
    int header;     /* -1: by the mode (table yes, csv/tsv no) */
    int flush_rows; /* flush after each row (interactive): results show as they come */
    int failed;     /* a write failed */
    tr_buf line;    /* the row being formatted */
    tr_buf cells;   /* table mode: every cell's text, NUL-separated */
    tr_vec at;      /* table mode: size_t offset of each cell in cells */
} tsql_out;

void tsql_out_init(tsql_out *o, FILE *f, int mode, int header);
/* ^The mode named S, or -1. */
int tsql_mode_parse(const char *s);
/*
** ^Steps ST to the end, printing its rows; returns SQLITE_DONE or the error
** code (SQLITE_INTERRUPT after Ctrl-C).  Rows already printed stay printed.
*/
int tsql_out_statement(tsql_out *o, sqlite3_stmt *st);
void tsql_out_fini(tsql_out *o);

#endif
