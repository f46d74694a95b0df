/*
** options.c: the one option parser of the binaries (getopt_long over the
** binary's table and the shared rows), and the options that say how traces
** are read.
*/
#include "cli.h"
#include "tr_input.h"
#include "tr_text.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    OPT_RANK = 1000,
    OPT_GT_PAIRING,
    OPT_STRICT,
    OPT_PROGRESS,
    OPT_NO_PROGRESS,
    OPT_ALIGN,
    OPT_ALIGN_ON,
    OPT_TZ,
    OPT_THREADS,
    OPT_MAX_EXPAND,
    OPT_MAX_RATIO,
    OPT_MEMORY,
    OPT_TMPDIR
};

/* Every binary's. */
static const tr_cli_opt base_opts[] = {
    {"help", no_argument, 'h'},
    {"quiet", no_argument, 'q'},
    {"verbose", no_argument, 'v'},
    {"version", no_argument, 'V'},
    {NULL, 0, 0},
};

/* Those of the binaries that read traces. */
static const tr_cli_opt read_opts[] = {
    {"align", required_argument, OPT_ALIGN},
    {"align-on", required_argument, OPT_ALIGN_ON},
    {"from", required_argument, 'f'},
    {"gt-pairing", required_argument, OPT_GT_PAIRING},
    {"memory", required_argument, OPT_MEMORY},
    {"no-progress", no_argument, OPT_NO_PROGRESS},
    {"progress", no_argument, OPT_PROGRESS},
    {"rank", required_argument, OPT_RANK},
    {"strict", no_argument, OPT_STRICT},
    {"threads", required_argument, OPT_THREADS},
    {"tmpdir", required_argument, OPT_TMPDIR},
    {"tz", required_argument, OPT_TZ},
    {"max-expand", required_argument, OPT_MAX_EXPAND},
    {"max-ratio", required_argument, OPT_MAX_RATIO},
    {NULL, 0, 0},
};

int tr_cli_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* ---- the read options ---- */

/* FILE=N of --rank. */
static int add_rank(tr_cli *c, const char *arg)
{
    const char *eq = strrchr(arg, '=');
    long v;
    if (!eq || eq == arg || tr_cli_parse_long(eq + 1, 0, INT32_MAX, &v) < 0)
        return tr_cli_usage_error(c, "bad --rank '%s' (want FILE=N)", arg);
    tr_cli_read *r = &c->read;
    char *path = strndup(arg, (size_t)(eq - arg));
    tr_rank_override *more = path ? realloc(r->ranks, (r->n_ranks + 1) * sizeof *more) : NULL;
    if (!more) {
        free(path);
        return tr_cli_usage_error(c, "out of memory");
    }
    r->ranks = more;
    r->ranks[r->n_ranks++] = (tr_rank_override){.path = path, .rank = (int32_t)v};
    return TR_EXIT_OK;
}

/* FILE=OFFSET of --align. */
static int add_offset(tr_cli *c, const char *arg)
{
    const char *eq = strrchr(arg, '=');
    int64_t ns;
    if (!eq || eq == arg || tr_parse_duration(eq + 1, &ns) < 0)
        return tr_cli_usage_error(c, "bad --align '%s' (want FILE=OFFSET, e.g. run.log=1.5s)", arg);
    tr_cli_read *r = &c->read;
    char *path = strndup(arg, (size_t)(eq - arg));
    tr_align_offset *more =
        path ? realloc(r->offsets, (r->align.n_offsets + 1) * sizeof *more) : NULL;
    if (!more) {
        free(path);
        return tr_cli_usage_error(c, "out of memory");
    }
    r->offsets = more;
    r->offsets[r->align.n_offsets++] = (tr_align_offset){.path = path, .offset_ns = ns};
    r->align.offsets = r->offsets;
    return TR_EXIT_OK;
}

static int set_tz(tr_cli *c, const char *arg)
{
    int64_t east;
    if (tr_tz_offset_in(arg, c->read.align.zone_dir, 0, &east) < 0)
        return tr_cli_usage_error(
            c, "unknown time zone '%s' (try UTC, +02:00, local or a zoneinfo name)", arg);
    c->read.align.tz = arg;
    return TR_EXIT_OK;
}

/* SIZE of --max-expand: bytes, or with K, M, G, T (powers of 1024; "GiB" too). */
static int set_max_expand(tr_cli *c, const char *arg)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(arg, &end, 10);
    int shift = 0;
    const char *units = "KMGT", *u = *end ? strchr(units, *end) : NULL;
    if (u) shift = 10 * (int)(u - units + 1), end++;
    if (u && strcmp(end, "iB") == 0) end += 2;
    if (errno || end == arg || *end || arg[0] == '-' || v == 0 || v > (UINT64_MAX >> shift))
        return tr_cli_usage_error(c, "bad --max-expand '%s' (a size: 64G, 500M, bytes)", arg);
    tr_input_set_expand_limits((uint64_t)v << shift, 0);
    return TR_EXIT_OK;
}

static int read_option(tr_cli *c, int id, const char *arg)
{
    long v;
    switch (id) {
    case 'f':
        c->read.from = arg;
        return TR_EXIT_OK;
    case OPT_RANK:
        return add_rank(c, arg);
    case OPT_GT_PAIRING:
        if (strcmp(arg, "batch") == 0)
            c->read.gt_pairing = TR_GT_PAIR_BATCH;
        else if (strcmp(arg, "visualize") == 0)
            c->read.gt_pairing = TR_GT_PAIR_VISUALIZE;
        else
            return tr_cli_usage_error(c, "--gt-pairing is 'batch' or 'visualize'");
        return TR_EXIT_OK;
    case OPT_STRICT:
        c->diag.strict = 1;
        return TR_EXIT_OK;
    case OPT_PROGRESS:
    case OPT_NO_PROGRESS:
        c->progress = id == OPT_PROGRESS;
        return TR_EXIT_OK;
    case OPT_ALIGN:
        return add_offset(c, arg);
    case OPT_ALIGN_ON:
        if (!*arg) return tr_cli_usage_error(c, "--align-on needs a NAME");
        c->read.align.align_on = arg;
        return TR_EXIT_OK;
    case OPT_TZ:
        return set_tz(c, arg);
    case OPT_MAX_EXPAND:
        return set_max_expand(c, arg);
    case OPT_MAX_RATIO:
        if (tr_cli_parse_long(arg, 1, LONG_MAX, &v) < 0)
            return tr_cli_usage_error(c, "bad --max-ratio '%s' (a whole number from 1)", arg);
        tr_input_set_expand_limits(0, (uint64_t)v);
        return TR_EXIT_OK;
    case OPT_MEMORY:
        if (tr_parse_size(arg, &c->read.memory) < 0 || c->read.memory < ((uint64_t)1 << 20))
            return tr_cli_usage_error(c, "bad --memory '%s' (a size of at least 1M: 8M, 2G)", arg);
        return TR_EXIT_OK;
    case OPT_TMPDIR:
        if (!*arg) return tr_cli_usage_error(c, "--tmpdir needs a DIR");
        c->read.tmpdir = arg;
        return TR_EXIT_OK;
    default: /* OPT_THREADS */
        if (tr_cli_parse_long(arg, 1, 64, &v) < 0)
            return tr_cli_usage_error(c, "bad --threads '%s' (1 to 64)", arg);
        c->read.threads = (int)v;
        return TR_EXIT_OK;
    }
}

int tr_cli_check_from(tr_cli *c)
{
    if (c->read.from && !tr_reader_find(tr_readers, c->read.from))
        return tr_cli_usage_error(c, "unknown input format '%s' (see 'tracecat formats')",
                                  c->read.from);
    return TR_EXIT_OK;
}

/* ---- the parser ---- */

#define MAX_OPTS 64

typedef struct optset {
    struct option longs[MAX_OPTS + 1];
    size_t n;
    char shorts[2 * MAX_OPTS + 3]; /* "+:" first, a NUL last */
    size_t n_shorts;
} optset;

static void optset_add(optset *o, const tr_cli_opt *t)
{
    for (; t->name && o->n < MAX_OPTS; t++) {
        o->longs[o->n++] = (struct option){t->name, t->has_arg, NULL, t->id};
        if (t->id >= 256) continue;
        o->shorts[o->n_shorts++] = (char)t->id;
        if (t->has_arg == required_argument) o->shorts[o->n_shorts++] = ':';
    }
}

static int is_read_option(int id)
{
    for (const tr_cli_opt *t = read_opts; t->name; t++)
        if (t->id == id) return 1;
    return 0;
}

/*
** getopt stays quiet (its own message names the binary by its full path), so
** this one line says what was wrong: ID is '?' (unknown) or ':' (no argument).
*/
static int bad_option(tr_cli *c, int id, char **argv)
{
    const char *word = argv[optind - 1];
    char letter[3] = {'-', (char)optopt, '\0'};
    if (optopt && optopt < 256) word = letter;
    int n = (int)strcspn(word, "="); /* --bogus=1 names --bogus */
    if (id == ':') return tr_cli_usage_error(c, "option '%.*s' needs an argument", n, word);
    return tr_cli_usage_error(c, "unknown option '%.*s'", n, word);
}

/* Takes the option ID: TR_EXIT_OK, an exit code, or -1 when it ends the run (--help, --version). */
static int take(tr_cli *c, const tr_cli_spec *s, void *user, int id, char **argv)
{
    switch (id) {
    case 'h':
        fputs(s->usage, stdout);
        if (s->usage_more) fputs(s->usage_more, stdout);
        return -1;
    case 'V':
        tr_cli_print_version(c->prog);
        if (s->version) s->version();
        return -1;
    case 'q':
        c->verbosity = 0;
        return TR_EXIT_OK;
    case 'v':
        c->verbosity++;
        return TR_EXIT_OK;
    case '?':
    case ':':
        return bad_option(c, id, argv);
    default:
        if (s->reads && is_read_option(id)) return read_option(c, id, optarg);
        return s->option(c, user, id, optarg);
    }
}

int tr_cli_parse(tr_cli *c, const tr_cli_spec *s, int argc, char **argv, void *user, int *done)
{
    optset o;
    memset(&o, 0, sizeof o);
    if (s->posix_order) o.shorts[o.n_shorts++] = '+';
    o.shorts[o.n_shorts++] = ':'; /* a missing argument is ':', not '?' */
    optset_add(&o, s->opts);
    optset_add(&o, base_opts);
    if (s->reads) optset_add(&o, read_opts);
    opterr = 0;
    *done = 0;
    int id;
    while ((id = getopt_long(argc, argv, o.shorts, o.longs, NULL)) != -1) {
        int rc = take(c, s, user, id, argv);
        if (rc < 0) {
            *done = 1;
            return TR_EXIT_OK;
        }
        if (rc != TR_EXIT_OK) return rc;
    }
    return TR_EXIT_OK;
}
