/*
** traceviz_impl.h: what traceviz's main.c and options.c share: the command
** line as parsed.
*/
#ifndef TV_TRACEVIZ_H
#define TV_TRACEVIZ_H

#include "cli.h"
#include "tr_render.h"

typedef struct args {
    tr_render_opts ro;
    const char *output;
    int format;
    int32_t *ranks;
    size_t n_ranks, cap_ranks;
    tr_vec control; /* char *: the --diff inputs (the control run) */
} args;

/* Parses the command line into C and A: an exit code, *DONE 1 after --help or --version. */
int tv_parse(tr_cli *c, int argc, char **argv, args *a, int *done);

#endif
