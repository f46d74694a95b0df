/*
** traceviz: timelines and flame graphs of traces, as PNG, SVG or PDF.
**
**   traceviz INPUT... [--output timeline.png]          one lane per track
**   traceviz INPUT... --kind flame --output flame.svg  merged stack samples
**
** Option names follow GT's gt.scripts.visualize where they overlap (--output,
** --dpi, --width, --height), so its users' command lines work unchanged.
*/
#include "cli.h"
#include "tr_load.h"
#include "tr_readers.h"
#include "tr_writers.h"
#include "tr_render.h"
#include "tr_text.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage_text[] =
    "Usage: traceviz [OPTION]... INPUT...\n"
    "Draw a timeline (one lane per track, grouped by process or rank) or a flame graph\n"
    "of the stack samples of traces.  INPUT is anything tracecat reads: a file, a run\n"
    "directory, an archive, a compressed file, or - for standard input.  The picture's\n"
    "format follows the output's extension: .png, .svg or .pdf.\n"
    "\n"
    "Picture:\n"
    "  -o, --output FILE     where to write (default timeline.png, or flame.svg for\n"
    "                        --kind flame/icicle); - is standard output (needs --format)\n"
    "      --kind KIND       timeline (default), flame or icicle\n"
    "      --format FMT      png, svg or pdf (default: from the output's extension)\n"
    "      --dpi N           pixels per inch of a PNG (default 150)\n"
    "      --width IN        width in inches (default 16)\n"
    "      --height IN       height in inches (default 10)\n"
    "      --title TEXT      the title (default: made from the input)\n"
    "      --no-legend       leave out the legend of colours (timeline)\n"
    "      --annotate        instruction ids (GT seq) beside markers and in slices\n"
    "\n"
    "Selection:\n"
    "      --since TIME      start of the window, from the origin (1.5s, 200ms, 30us,\n"
    "      --until TIME      10ns; seconds when no unit); end of the window\n"
    "      --tracks GLOB     keep lanes whose track name (or process/track) matches\n"
    "      --ranks LIST      keep these ranks only: 0,2,4-7\n"
    "      --max-lanes N     summarise lanes past N in one (default: what fits)\n"
    "\n"
    "Flame graphs:\n"
    "      --reverse         stacks leaf first: the callee view\n"
    "      --per-thread      a root frame per thread instead of one merged graph\n"
    "      --color-by WHAT   name (default: hash of the function) or module\n"
    "      --min-width PX    leave out frames narrower than PX pixels (default 0.1)\n"
    "\n"
    "Reading:\n"
    "  -f, --from FORMAT     input format (default: probe the content)\n"
    "      --rank FILE=N     the processes read from FILE are rank N "
    "(repeatable)\n" TR_CLI_LOAD_HELP
    "      --gt-pairing MODE GT worker slices: 'batch' (default) or 'visualize'\n"
    "      --strict          a bad record is an error, not a warning\n"
    "  -q, --quiet           errors only\n"
    "  -v, --verbose         every warning, and what was drawn\n"
    "      --progress        always draw progress on stderr\n"
    "      --no-progress     never draw progress\n"
    "  -h, --help            show this help and exit\n"
    "  -V, --version         show the version and exit\n"
    "\n"
    "Exit status: 0 success (warnings too), 1 bad input or I/O failure, 2 usage error.\n"
    "Examples:\n"
    "  traceviz /tmp/debug.log --output timeline.png --dpi 200\n"
    "  traceviz run/ --ranks 0-3 --since 2s --until 2.5s -o window.pdf\n"
    "  traceviz dumps.txt --kind flame -o flame.svg\n";

enum {
    OPT_KIND = 256,
    OPT_FORMAT,
    OPT_DPI,
    OPT_WIDTH,
    OPT_HEIGHT,
    OPT_TITLE,
    OPT_NO_LEGEND,
    OPT_ANNOTATE,
    OPT_SINCE,
    OPT_UNTIL,
    OPT_TRACKS,
    OPT_RANKS,
    OPT_MAX_LANES,
    OPT_REVERSE,
    OPT_PER_THREAD,
    OPT_COLOR_BY,
    OPT_MIN_WIDTH,
    OPT_RANK,
    OPT_GT_PAIRING,
    OPT_STRICT,
    OPT_PROGRESS,
    OPT_NO_PROGRESS
};

static const struct option options[] = {
    {"annotate", no_argument, NULL, OPT_ANNOTATE},
    {"color-by", required_argument, NULL, OPT_COLOR_BY},
    {"colour-by", required_argument, NULL, OPT_COLOR_BY},
    {"dpi", required_argument, NULL, OPT_DPI},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"from", required_argument, NULL, 'f'},
    {"gt-pairing", required_argument, NULL, OPT_GT_PAIRING},
    {"height", required_argument, NULL, OPT_HEIGHT},
    {"help", no_argument, NULL, 'h'},
    {"kind", required_argument, NULL, OPT_KIND},
    {"max-lanes", required_argument, NULL, OPT_MAX_LANES},
    {"min-width", required_argument, NULL, OPT_MIN_WIDTH},
    {"no-legend", no_argument, NULL, OPT_NO_LEGEND},
    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {"output", required_argument, NULL, 'o'},
    {"per-thread", no_argument, NULL, OPT_PER_THREAD},
    {"progress", no_argument, NULL, OPT_PROGRESS},
    {"quiet", no_argument, NULL, 'q'},
    {"rank", required_argument, NULL, OPT_RANK},
    {"ranks", required_argument, NULL, OPT_RANKS},
    {"reverse", no_argument, NULL, OPT_REVERSE},
    {"since", required_argument, NULL, OPT_SINCE},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"title", required_argument, NULL, OPT_TITLE},
    {"tracks", required_argument, NULL, OPT_TRACKS},
    {"until", required_argument, NULL, OPT_UNTIL},
    {"verbose", no_argument, NULL, 'v'},
    {"version", no_argument, NULL, 'V'},
    TR_CLI_LOAD_OPTIONS,
    {"width", required_argument, NULL, OPT_WIDTH},
    {NULL, 0, NULL, 0},
};

typedef struct args {
    tr_render_opts ro;
    const char *output, *from;
    int format;
    int32_t *ranks;
    size_t n_ranks, cap_ranks;
    tr_rank_override *rank_files;
    size_t n_rank_files;
    int gt_pairing;
    char **inputs;
    int n_inputs;
    tr_cli_loadopts load; /* --align, --align-on, --tz, --threads */
} args;

/* ^Parses a positive number no larger than MAX; returns 0 or -1. */
static int parse_positive(const char *s, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !(v > 0) || v > max) return -1;
    *out = v;
    return 0;
}

static int add_rank(args *a, long r)
{
    if (a->n_ranks == a->cap_ranks) {
        size_t cap = a->cap_ranks ? a->cap_ranks * 2 : 16;
        int32_t *more = realloc(a->ranks, cap * sizeof *more);
        if (!more) return -1;
        a->ranks = more;
        a->cap_ranks = cap;
    }
    a->ranks[a->n_ranks++] = (int32_t)r;
    return 0;
}

/* "0,2,4-7": a comma-separated list of ranks and inclusive ranges. */
static int parse_ranks(args *a, const char *s)
{
    const long max_range = 1 << 20;
    while (*s) {
        char *end;
        errno = 0;
        long lo = strtol(s, &end, 10), hi;
        if (end == s || errno || lo < 0 || lo > INT32_MAX) return -1;
        s = end;
        hi = lo;
        if (*s == '-') {
            const char *p = s + 1;
            hi = strtol(p, &end, 10);
            if (end == p || errno || hi < lo || hi > INT32_MAX || hi - lo > max_range) return -1;
            s = end;
        }
        for (long r = lo; r <= hi; r++)
            if (add_rank(a, r) < 0) return -1;
        if (*s == ',')
            s++;
        else if (*s)
            return -1;
    }
    return a->n_ranks ? 0 : -1;
}

static int parse_args(tr_cli *c, int argc, char **argv, args *a, int *done)
{
    int opt;
    *done = 0;
    while ((opt = getopt_long(argc, argv, "o:f:qvhV", options, NULL)) != -1) {
        switch (opt) {
        case 'o':
            a->output = optarg;
            break;
        case 'f':
            a->from = optarg;
            break;
        case 'q':
            c->verbosity = 0;
            break;
        case 'v':
            c->verbosity++;
            break;
        case 'h':
            fputs(usage_text, stdout);
            *done = 1;
            return TR_EXIT_OK;
        case 'V':
            tr_cli_print_version("traceviz");
            *done = 1;
            return TR_EXIT_OK;
        case OPT_KIND:
            if (strcmp(optarg, "timeline") == 0)
                a->ro.kind = TR_RENDER_TIMELINE;
            else if (strcmp(optarg, "flame") == 0)
                a->ro.kind = TR_RENDER_FLAME;
            else if (strcmp(optarg, "icicle") == 0)
                a->ro.kind = TR_RENDER_ICICLE;
            else
                return tr_cli_usage_error(c, "--kind is timeline, flame or icicle");
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "png") == 0)
                a->format = TR_RENDER_PNG;
            else if (strcmp(optarg, "svg") == 0)
                a->format = TR_RENDER_SVG;
            else if (strcmp(optarg, "pdf") == 0)
                a->format = TR_RENDER_PDF;
            else
                return tr_cli_usage_error(c, "--format is png, svg or pdf");
            break;
        case OPT_DPI:
            if (parse_positive(optarg, 2400, &a->ro.dpi) < 0)
                return tr_cli_usage_error(c, "bad --dpi '%s' (a number up to 2400)", optarg);
            break;
        case OPT_WIDTH:
        case OPT_HEIGHT:
            if (parse_positive(optarg, 200, opt == OPT_WIDTH ? &a->ro.width_in : &a->ro.height_in) <
                0)
                return tr_cli_usage_error(c, "bad --%s '%s' (inches, up to 200)",
                                          opt == OPT_WIDTH ? "width" : "height", optarg);
            break;
        case OPT_TITLE:
            a->ro.title = optarg;
            break;
        case OPT_NO_LEGEND:
            a->ro.no_legend = 1;
            break;
        case OPT_ANNOTATE:
            a->ro.annotate = 1;
            break;
        case OPT_SINCE:
        case OPT_UNTIL: {
            int64_t ns;
            if (tr_parse_duration(optarg, &ns) < 0)
                return tr_cli_usage_error(c, "bad time '%s' (try 1.5s, 200ms, 30us, 10ns)", optarg);
            if (opt == OPT_SINCE)
                a->ro.since = ns, a->ro.has_since = 1;
            else
                a->ro.until = ns, a->ro.has_until = 1;
            break;
        }
        case OPT_TRACKS:
            a->ro.tracks = optarg;
            break;
        case OPT_RANKS:
            a->n_ranks = 0;
            if (parse_ranks(a, optarg) < 0)
                return tr_cli_usage_error(c, "bad --ranks '%s' (want a list like 0,2,4-7)", optarg);
            break;
        case OPT_MAX_LANES: {
            double v;
            if (parse_positive(optarg, 1e6, &v) < 0 || v < 2)
                return tr_cli_usage_error(c, "bad --max-lanes '%s' (2 or more)", optarg);
            a->ro.max_lanes = (size_t)v;
            break;
        }
        case OPT_REVERSE:
            a->ro.reverse = 1;
            break;
        case OPT_PER_THREAD:
            a->ro.per_thread = 1;
            break;
        case OPT_COLOR_BY:
            if (strcmp(optarg, "name") == 0)
                a->ro.color_by = TR_FLAME_BY_NAME;
            else if (strcmp(optarg, "module") == 0)
                a->ro.color_by = TR_FLAME_BY_MODULE;
            else
                return tr_cli_usage_error(c, "--color-by is name or module");
            break;
        case OPT_MIN_WIDTH: {
            char *end;
            double v = strtod(optarg, &end);
            if (end == optarg || *end || !(v >= 0) || v > 1e6)
                return tr_cli_usage_error(c, "bad --min-width '%s' (pixels)", optarg);
            a->ro.min_width_px = v;
            break;
        }
        case OPT_RANK: {
            tr_rank_override r;
            if (tr_cli_parse_rank(optarg, &r) < 0)
                return tr_cli_usage_error(c, "bad --rank '%s' (want FILE=N)", optarg);
            tr_rank_override *more = realloc(a->rank_files, (a->n_rank_files + 1) * sizeof *more);
            if (!more) {
                free((char *)r.path);
                return tr_cli_usage_error(c, "out of memory");
            }
            a->rank_files = more;
            a->rank_files[a->n_rank_files++] = r;
            break;
        }
        case OPT_GT_PAIRING:
            if (strcmp(optarg, "batch") == 0)
                a->gt_pairing = TR_GT_PAIR_BATCH;
            else if (strcmp(optarg, "visualize") == 0)
                a->gt_pairing = TR_GT_PAIR_VISUALIZE;
            else
                return tr_cli_usage_error(c, "--gt-pairing is 'batch' or 'visualize'");
            break;
        case OPT_STRICT:
            c->diag.strict = 1;
            break;
        case OPT_PROGRESS:
            c->progress = 1;
            break;
        case OPT_NO_PROGRESS:
            c->progress = 0;
            break;
        default: {
            int taken = tr_cli_load_option(c, &a->load, opt, optarg);
            if (taken == 1) return tr_cli_usage_error(c, "unknown or incomplete option");
            if (taken) return taken;
        }
        }
    }
    return TR_EXIT_OK;
}

static int load_all(tr_cli *c, const args *a, tr_trace *t)
{
    tr_load_opts lo = {
        .readers = tr_readers,
        .from = a->from,
        .read = {.diag = &c->diag,
                 .gt_pairing = a->gt_pairing,
                 /* A flame graph needs only the samples, not slices derived from them. */
                 .no_stack_slices = a->ro.kind != TR_RENDER_TIMELINE},
        .ranks = a->rank_files,
        .n_ranks = a->n_rank_files,
        .progress = tr_cli_progress,
        .progress_user = c,
    };
    return tr_cli_load(c, t, a->inputs, (size_t)a->n_inputs, &lo, &a->load);
}

static void report(const args *a, const tr_render_stats *st)
{
    if (a->ro.kind == TR_RENDER_TIMELINE)
        fprintf(stderr,
                "traceviz: %s: %dx%d px, %zu lanes (%zu summarised), %zu slices drawn, "
                "%zu merged into busy bars, %zu markers, %zu flows\n",
                a->output, st->width_px, st->height_px, st->lanes, st->lanes_summarised,
                st->slices_drawn, st->slices_merged, st->markers_drawn, st->flows_drawn);
    else
        fprintf(stderr, "traceviz: %s: %dx%d px, %llu samples, %zu frames drawn, %zu too narrow\n",
                a->output, st->width_px, st->height_px, (unsigned long long)st->samples,
                st->frames_drawn, st->frames_hidden);
}

static int run(tr_cli *c, args *a)
{
    if (!a->output) a->output = a->ro.kind == TR_RENDER_TIMELINE ? "timeline.png" : "flame.svg";
    int format = a->format >= 0 ? a->format : tr_render_format_for_path(a->output);
    if (format < 0 && strcmp(a->output, "-") == 0)
        return tr_cli_usage_error(c, "--output - needs --format png, svg or pdf");
    if (format < 0)
        return tr_cli_usage_error(c,
                                  "cannot tell the picture format of '%s' (use .png, .svg or "
                                  ".pdf, or --format)",
                                  a->output);
    if (strcmp(a->output, "-") == 0 && format != TR_RENDER_SVG && isatty(1)) {
        tr_cli_errorf(c, "refusing to write a %s picture to a terminal",
                      format == TR_RENDER_PNG ? "PNG" : "PDF");
        return TR_EXIT_USAGE;
    }
    a->ro.ranks = a->ranks;
    a->ro.n_ranks = a->n_ranks;
    tr_trace *t = tr_trace_new();
    if (!t) {
        tr_cli_errorf(c, "out of memory");
        return TR_EXIT_DATA;
    }
    int rc = load_all(c, a, t);
    if (rc == TR_EXIT_OK) {
        tr_error e = {0};
        tr_render_stats st;
        if (tr_render(t, &a->ro, a->output, format, &st, &e) < 0) {
            tr_cli_error(c, &e);
            rc = e.code == TR_E_USAGE ? TR_EXIT_USAGE : TR_EXIT_DATA;
        } else if (c->verbosity >= 2) {
            report(a, &st);
        }
    }
    tr_trace_free(t);
    return rc;
}

int main(int argc, char **argv)
{
    tr_cli c;
    tr_cli_init(&c, "traceviz");
    args a;
    memset(&a, 0, sizeof a);
    tr_render_opts_init(&a.ro);
    a.format = -1;
    int done;
    int rc = parse_args(&c, argc, argv, &a, &done);
    if (rc != TR_EXIT_OK || done) goto out;
    a.inputs = argv + optind;
    a.n_inputs = argc - optind;
    if (a.from && !tr_reader_find(tr_readers, a.from)) {
        rc = tr_cli_usage_error(&c, "unknown input format '%s' (see 'tracecat formats')", a.from);
        goto out;
    }
    if (a.n_inputs == 0) {
        rc = tr_cli_usage_error(&c, "no INPUT given");
        goto out;
    }
    tr_cli_install_signals();
    rc = run(&c, &a);
    if (rc == TR_EXIT_OK || rc == TR_EXIT_DATA) tr_cli_warning_summary(&c);
out:
    for (size_t i = 0; i < a.n_rank_files; i++) free((char *)a.rank_files[i].path);
    free(a.rank_files);
    free(a.ranks);
    tr_cli_load_fini(&a.load);
    return rc;
}
