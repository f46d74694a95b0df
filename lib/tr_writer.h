/*
** tr_writer.h: the interface every writer of writers/ implements.
**
** writers/all.c holds the one table of writers (tr_writers.h).
*/
#ifndef TR_WRITER_H
#define TR_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "tr_error.h"
#include "tr_output.h"
#include "tr_trace.h"

#define TR_WRITER_ABI 1

/* A filter writers apply: keep an event or not. */
typedef struct tr_filter {
    int (*keep)(void *user, const tr_trace *t, const tr_event *ev);
    void *user;
} tr_filter;

typedef struct tr_write_opts {
    const tr_filter *filter; /* NULL = every event */
    int header;              /* lines: a '#'-prefixed column line first */
    unsigned folded_prefix;  /* folded: root frames naming them, TR_FOLDED_* bits */
} tr_write_opts;

/* Root frames the folded writer adds, as py-spy's --threads / --subprocesses do. */
enum { TR_FOLDED_THREAD = 1, TR_FOLDED_PROCESS = 2 };

typedef struct tr_writer {
    int abi;
    const char *name;
    const char *description;
    const char *extensions; /* comma-separated, matched case-insensitively before .gz/.zst */
    int binary;             /* refuses a terminal */
    int (*write)(const tr_trace *t, tr_output *out, const tr_write_opts *o, tr_error *e);
    int samples_only; /* reads only samples and stacks: readers need not derive slices */
} tr_writer;

#endif
