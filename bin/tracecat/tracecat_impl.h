/*
** tracecat_impl.h: what tracecat's main.c and convert.c share: the command
** line as parsed, and the commands that write.
*/
#ifndef TC_TRACECAT_H
#define TC_TRACECAT_H

#include "cli.h"

typedef struct args {
    const char *command;
    const char *output, *to;
    const char *name_glob, *track_glob;
    int64_t since, until;
    int has_since, has_until;
    int header, json;
    int no_samples;          /* --no-samples */
    unsigned folded_prefix;  /* TR_FOLDED_* */
    int no_stack_slices;     /* the writer needs only samples (folded) */
    int partition_rank;      /* parquet: --partition rank */
    uint64_t row_group_rows; /* parquet: --row-group-rows */
    uint64_t free_bytes;     /* parquet: --assume-free-bytes (tests) */
    char **inputs;
    int n_inputs;
} args;

/* tracecat convert INPUT... -o OUTPUT: an exit code. */
int cmd_convert(tr_cli *c, const args *a);
/* tracecat cat INPUT...: an exit code. */
int cmd_cat(tr_cli *c, const args *a);

#endif
