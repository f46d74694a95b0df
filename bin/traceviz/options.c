/* options.c: traceviz's options, and its --help. */
#include "traceviz_impl.h"
#include "tr_text.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text[] =
    "Usage: traceviz [OPTION]... INPUT...\n"
    "  or:  traceviz --diff CONTROL [--diff CONTROL]... [OPTION]... TEST...\n"
    "Draw a timeline (one lane per track, grouped by process or rank) or a flame graph\n"
    "of the stack samples of traces.  INPUT is anything tracecat reads: a file, a run\n"
    "directory, an archive, a compressed file, or - for standard input.  The picture's\n"
    "format follows the output's extension: .png, .svg or .pdf.\n"
    "\n"
    "Picture:\n"
    "  -o, --output FILE     where to write (default timeline.png, flame.svg for\n"
    "                        --kind flame/icicle, else KIND.png); - is standard output\n"
    "                        (needs --format)\n"
    "      --kind KIND       timeline (default), flame or icicle; heatmap (ranks x time:\n"
    "                        I/O bytes, else busy share), access (offset against time\n"
    "                        per file), ops (op mix per lane as bars), stree (the\n"
    "                        hang prefix tree of the last stacks, STAT's 2D view)\n"
    "      --format FMT      png, svg or pdf (default: from the output's extension)\n"
    "      --dpi N           pixels per inch of a PNG (default 150)\n"
    "      --width IN        width in inches (default 16)\n"
    "      --height IN       height in inches (default: as tall as the picture needs,\n"
    "                        at most 10)\n"
    "      --title TEXT      the title (default: made from the input)\n"
    "      --no-legend       leave out the legend of colours (timeline)\n"
    "      --annotate        instruction ids (GT seq) beside markers and in slices\n"
    "      --diff INPUT      draw the diff of two runs as bars (default diff.png): the\n"
    "                        --diff inputs (repeatable) are the control run, the others\n"
    "                        the test run (as tracestat --diff)\n"
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
    "\n";

/* The rest of --help (C caps one string at 4095 bytes). */
static const char usage_more[] =
    "Reading:\n" TR_CLI_READ_HELP
    "  -v, --verbose         every warning, and what was drawn\n" TR_CLI_STD_HELP TR_CLI_EXIT_HELP
    "Examples:\n"
    "  traceviz /tmp/debug.log --output timeline.png --dpi 200\n"
    "  traceviz run/ --ranks 0-3 --since 2s --until 2.5s -o window.pdf\n"
    "  traceviz dumps.txt --kind flame -o flame.svg\n"
    "  traceviz --diff before.json.gz after.json.gz -o diff.png\n";

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
    OPT_DIFF
};

static const tr_cli_opt options[] = {
    {"annotate", no_argument, OPT_ANNOTATE},
    {"color-by", required_argument, OPT_COLOR_BY},
    {"colour-by", required_argument, OPT_COLOR_BY},
    {"diff", required_argument, OPT_DIFF},
    {"dpi", required_argument, OPT_DPI},
    {"format", required_argument, OPT_FORMAT},
    {"height", required_argument, OPT_HEIGHT},
    {"kind", required_argument, OPT_KIND},
    {"max-lanes", required_argument, OPT_MAX_LANES},
    {"min-width", required_argument, OPT_MIN_WIDTH},
    {"no-legend", no_argument, OPT_NO_LEGEND},
    {"output", required_argument, 'o'},
    {"per-thread", no_argument, OPT_PER_THREAD},
    {"ranks", required_argument, OPT_RANKS},
    {"reverse", no_argument, OPT_REVERSE},
    {"since", required_argument, OPT_SINCE},
    {"title", required_argument, OPT_TITLE},
    {"tracks", required_argument, OPT_TRACKS},
    {"until", required_argument, OPT_UNTIL},
    {"width", required_argument, OPT_WIDTH},
    {NULL, 0, 0},
};

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

/* The index of ARG among the N WORDS, or -1. */
static int word_index(const char *arg, const char *const *words, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(arg, words[i]) == 0) return i;
    return -1;
}

const char *const tv_kinds[TV_KINDS] = {"timeline", "flame", "icicle", "heatmap",
                                        "access",   "ops",   "stree"};

/* The options that name one of a few words. */
static int word_option(tr_cli *c, args *a, int id, const char *arg)
{
    static const int kind_ids[] = {TR_RENDER_TIMELINE, TR_RENDER_FLAME,  TR_RENDER_ICICLE,
                                   TR_RENDER_HEATMAP,  TR_RENDER_ACCESS, TR_RENDER_OPS,
                                   TR_RENDER_STREE};
    static const char *const formats[] = {"png", "svg", "pdf"};
    static const int format_ids[] = {TR_RENDER_PNG, TR_RENDER_SVG, TR_RENDER_PDF};
    static const char *const colors[] = {"name", "module"};
    static const int color_ids[] = {TR_FLAME_BY_NAME, TR_FLAME_BY_MODULE};
    int i;
    if (id == OPT_KIND) {
        if ((i = word_index(arg, tv_kinds, TV_KINDS)) < 0)
            return tr_cli_usage_error(
                c, "--kind is timeline, flame, icicle, heatmap, access, ops or stree");
        a->ro.kind = kind_ids[i];
    } else if (id == OPT_FORMAT) {
        if ((i = word_index(arg, formats, 3)) < 0)
            return tr_cli_usage_error(c, "--format is png, svg or pdf");
        a->format = format_ids[i];
    } else {
        if ((i = word_index(arg, colors, 2)) < 0)
            return tr_cli_usage_error(c, "--color-by is name or module");
        a->ro.color_by = color_ids[i];
    }
    return TR_EXIT_OK;
}

/* The options that take a number or a time. */
static int number_option(tr_cli *c, args *a, int id, const char *arg)
{
    double v;
    int64_t ns;
    switch (id) {
    case OPT_DPI:
        if (parse_positive(arg, 2400, &a->ro.dpi) < 0)
            return tr_cli_usage_error(c, "bad --dpi '%s' (a number up to 2400)", arg);
        return TR_EXIT_OK;
    case OPT_WIDTH:
    case OPT_HEIGHT:
        if (parse_positive(arg, 200, id == OPT_WIDTH ? &a->ro.width_in : &a->ro.height_in) < 0)
            return tr_cli_usage_error(c, "bad --%s '%s' (inches, up to 200)",
                                      id == OPT_WIDTH ? "width" : "height", arg);
        if (id == OPT_HEIGHT) a->ro.height_given = 1;
        return TR_EXIT_OK;
    case OPT_SINCE:
    case OPT_UNTIL:
        if (tr_parse_duration(arg, &ns) < 0)
            return tr_cli_usage_error(c, "bad time '%s' (try 1.5s, 200ms, 30us, 10ns)", arg);
        if (id == OPT_SINCE)
            a->ro.since = ns, a->ro.has_since = 1;
        else
            a->ro.until = ns, a->ro.has_until = 1;
        return TR_EXIT_OK;
    case OPT_MAX_LANES:
        if (parse_positive(arg, 1e6, &v) < 0 || v < 2)
            return tr_cli_usage_error(c, "bad --max-lanes '%s' (2 or more)", arg);
        a->ro.max_lanes = (size_t)v;
        return TR_EXIT_OK;
    default: { /* OPT_MIN_WIDTH */
        char *end;
        v = strtod(arg, &end);
        if (end == arg || *end || !(v >= 0) || v > 1e6)
            return tr_cli_usage_error(c, "bad --min-width '%s' (pixels)", arg);
        a->ro.min_width_px = v;
        return TR_EXIT_OK;
    }
    }
}

static int option(tr_cli *c, void *user, int id, const char *arg)
{
    args *a = user;
    switch (id) {
    case 'o':
        a->output = arg;
        break;
    case OPT_KIND:
    case OPT_FORMAT:
    case OPT_COLOR_BY:
        return word_option(c, a, id, arg);
    case OPT_TITLE:
        a->ro.title = arg;
        break;
    case OPT_NO_LEGEND:
        a->ro.no_legend = 1;
        break;
    case OPT_ANNOTATE:
        a->ro.annotate = 1;
        break;
    case OPT_TRACKS:
        a->ro.tracks = arg;
        break;
    case OPT_RANKS:
        a->n_ranks = 0;
        if (parse_ranks(a, arg) < 0)
            return tr_cli_usage_error(c, "bad --ranks '%s' (want a list like 0,2,4-7)", arg);
        break;
    case OPT_REVERSE:
        a->ro.reverse = 1;
        break;
    case OPT_PER_THREAD:
        a->ro.per_thread = 1;
        break;
    case OPT_DIFF: {
        char **in = tr_vec_push(&a->control);
        if (!in) return tr_cli_usage_error(c, "out of memory");
        *in = (char *)arg;
        break;
    }
    default:
        return number_option(c, a, id, arg);
    }
    return TR_EXIT_OK;
}

int tv_parse(tr_cli *c, int argc, char **argv, args *a, int *done)
{
    static const tr_cli_spec spec = {.usage = usage_text,
                                     .usage_more = usage_more,
                                     .opts = options,
                                     .reads = 1,
                                     .option = option};
    return tr_cli_parse(c, &spec, argc, argv, a, done);
}
