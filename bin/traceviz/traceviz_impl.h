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

/* The names of --kind, by enum tr_render_kind. */
#define TV_KINDS 7
extern const char *const tv_kinds[TV_KINDS];

/* Parses the command line into C and A: an exit code, *DONE 1 after --help or --version. */
int tv_parse(tr_cli *c, int argc, char **argv, args *a, int *done);

/*
** Draws the timeline of the N INPUTS through a stream (stream.c), within
** --memory: an exit code, said; ST filled on success.
*/
int tv_stream_timeline(tr_cli *c, const args *a, char **inputs, int n, tr_render_stats *st);
/* ^The same for a flame graph or icicle: one pass, its stacks summed as they come. */
int tv_stream_flame(tr_cli *c, const args *a, char **inputs, int n, tr_render_stats *st);

#endif
