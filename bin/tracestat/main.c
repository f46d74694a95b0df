/*
** tracestat: the summaries people debug with, from any trace tracecat reads.
**
** The report is a library (lib/tr_report.h over lib/tr_analysis.h): this
** file takes the options, reads the inputs and prints the report as text,
** JSON or one CSV table; html.c writes it as a page with pictures, follow.c
** redraws it as a log grows.
*/
#include "tracestat_impl.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

enum {
    OPT_SECTION = 256,
    OPT_JSON,
    OPT_CSV,
    OPT_SORT,
    OPT_TOP,
    OPT_GAPS,
    OPT_K,
    OPT_STEP,
    OPT_PER_THREAD,
    OPT_BY_TOTAL,
    OPT_ASCII,
    OPT_WIDTH,
    OPT_IGNORE_LINES,
    OPT_BY_FUNCTION,
    OPT_DEPTH,
    OPT_MAIN_THREAD,
    OPT_PYTHON_ONLY,
    OPT_PROGRESS_FRAME,
    OPT_DOT,
    OPT_KERNEL_WAIT,
    OPT_HTA_ROUNDING,
    OPT_HTA_STEPS,
    OPT_SEQ_OP,
    OPT_SEQ_MIN,
    OPT_DIFF,
    OPT_HTML,
    OPT_FOLLOW,
    OPT_IO_EXCLUDE,
    OPT_IO_INCLUDE,
    OPT_IO_ALL_FILES
};

static const tr_cli_opt options[] = {
    {"ascii", no_argument, OPT_ASCII},
    {"by-function", no_argument, OPT_BY_FUNCTION},
    {"by-total", no_argument, OPT_BY_TOTAL},
    {"csv", required_argument, OPT_CSV},
    {"depth", required_argument, OPT_DEPTH},
    {"diff", required_argument, OPT_DIFF},
    {"dot", no_argument, OPT_DOT},
    {"follow", no_argument, OPT_FOLLOW},
    {"gaps", required_argument, OPT_GAPS},
    {"hta-rounding", no_argument, OPT_HTA_ROUNDING},
    {"hta-steps", required_argument, OPT_HTA_STEPS},
    {"html", required_argument, OPT_HTML},
    {"ignore-lines", no_argument, OPT_IGNORE_LINES},
    {"io-all-files", no_argument, OPT_IO_ALL_FILES},
    {"io-exclude", required_argument, OPT_IO_EXCLUDE},
    {"io-include", required_argument, OPT_IO_INCLUDE},
    {"json", no_argument, OPT_JSON},
    {"k", required_argument, OPT_K},
    {"kernel-wait", required_argument, OPT_KERNEL_WAIT},
    {"main-thread", no_argument, OPT_MAIN_THREAD},
    {"per-thread", no_argument, OPT_PER_THREAD},
    {"progress-frame", required_argument, OPT_PROGRESS_FRAME},
    {"python-only", no_argument, OPT_PYTHON_ONLY},
    {"section", required_argument, OPT_SECTION},
    {"seq-min", required_argument, OPT_SEQ_MIN},
    {"seq-op", required_argument, OPT_SEQ_OP},
    {"sort", required_argument, OPT_SORT},
    {"step", required_argument, OPT_STEP},
    {"top", required_argument, OPT_TOP},
    {"width", required_argument, OPT_WIDTH},
    {NULL, 0, 0},
};

/* The options of the hangs section's stack tree. */
static int tree_option(tr_cli *c, args *a, int id, const char *arg)
{
    tr_stree_opts *o = &a->ro.tree;
    long v;
    switch (id) {
    case OPT_IGNORE_LINES:
        o->frames = TR_STREE_BY_FILE;
        break;
    case OPT_BY_FUNCTION:
        o->frames = TR_STREE_BY_FUNCTION;
        break;
    case OPT_DEPTH:
        if (tr_cli_parse_long(arg, 1, 100000, &v) < 0)
            return tr_cli_usage_error(c, "bad --depth '%s' (frames, 1 or more)", arg);
        o->max_depth = (uint32_t)v;
        break;
    case OPT_MAIN_THREAD:
        o->main_thread = 1;
        break;
    case OPT_PYTHON_ONLY:
        o->python_only = 1;
        break;
    case OPT_PROGRESS_FRAME:
        o->counted = arg;
        break;
    default: /* OPT_DOT */
        a->dot = 1;
        a->ro.sections |= 1u << TR_REPORT_HANGS;
        break;
    }
    return TR_EXIT_OK;
}

/* --io-exclude, --io-include: absolute directories, comma-separated; --io-all-files. */
static int io_option(tr_cli *c, args *a, int id, const char *arg)
{
    const char *name = id == OPT_IO_EXCLUDE ? "--io-exclude" : "--io-include";
    if (id == OPT_IO_ALL_FILES) {
        a->ro.stat.io_exclude = "";
        return TR_EXIT_OK;
    }
    for (const char *p = arg; *p;) {
        size_t n = strcspn(p, ",");
        if (n && *p != '/')
            return tr_cli_usage_error(c, "bad %s '%.*s' (absolute directories, comma-separated)",
                                      name, (int)n, p);
        p += n + (p[n] == ',');
    }
    if (id == OPT_IO_EXCLUDE)
        a->ro.stat.io_exclude = arg;
    else
        a->ro.stat.io_include = arg;
    return TR_EXIT_OK;
}

static int parse_sections(tr_cli *c, args *a, const char *list)
{
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        int found = tr_report_section_find(p, n);
        if (found < 0)
            return tr_cli_usage_error(c,
                                      "unknown section '%.*s' (overview, lanes, ops, io, hot, "
                                      "stragglers, hangs, gpu, gpu-breakdown, gpu-kernels)",
                                      (int)n, p);
        a->ro.sections |= 1u << found;
        p += n;
        if (*p == ',') p++;
    }
    return TR_EXIT_OK;
}

static int parse_hta_steps(tr_cli *c, args *a, const char *arg)
{
    static const char *const keys[] = {"complete", "last", "all"};
    static const int modes[] = {TR_HTA_STEPS_COMPLETE, TR_HTA_STEPS_LAST, TR_HTA_STEPS_ALL};
    for (size_t i = 0; i < 3; i++) {
        if (strcmp(arg, keys[i]) != 0) continue;
        a->ro.stat.hta_steps = modes[i];
        return TR_EXIT_OK;
    }
    return tr_cli_usage_error(c, "--hta-steps is complete, last or all");
}

static int parse_sort(tr_cli *c, args *a, const char *arg)
{
    static const char *const keys[] = {"total", "count", "mean", "max"};
    static const int sorts[] = {TR_OP_SORT_TOTAL, TR_OP_SORT_COUNT, TR_OP_SORT_MEAN,
                                TR_OP_SORT_MAX};
    for (size_t i = 0; i < 4; i++) {
        if (strcmp(arg, keys[i]) != 0) continue;
        a->ro.sort = sorts[i];
        return TR_EXIT_OK;
    }
    return tr_cli_usage_error(c, "--sort is total, count, mean or max");
}

/* The options that take a number. */
static int number_option(tr_cli *c, args *a, int id, const char *arg)
{
    long v;
    char *end;
    switch (id) {
    case OPT_TOP:
        if (tr_cli_parse_long(arg, 0, 1000000000, &v) < 0)
            return tr_cli_usage_error(c, "bad --top '%s' (a count, 0 = all)", arg);
        a->ro.top = v;
        return TR_EXIT_OK;
    case OPT_GAPS:
        if (tr_cli_parse_long(arg, 0, 1000, &v) < 0)
            return tr_cli_usage_error(c, "bad --gaps '%s' (0 to 1000)", arg);
        a->ro.stat.gaps = (size_t)v;
        return TR_EXIT_OK;
    case OPT_KERNEL_WAIT:
        if (tr_cli_parse_long(arg, 0, 1000000000000L, &v) < 0)
            return tr_cli_usage_error(c, "bad --kernel-wait '%s' (nanoseconds)", arg);
        a->ro.stat.kernel_wait = v;
        return TR_EXIT_OK;
    case OPT_SEQ_MIN:
        if (tr_cli_parse_long(arg, 1, 1000000, &v) < 0)
            return tr_cli_usage_error(c, "bad --seq-min '%s' (a count, 1 or more)", arg);
        a->ro.stat.seq_min = (size_t)v;
        return TR_EXIT_OK;
    case OPT_K: {
        double k = strtod(arg, &end);
        if (!*arg || *end || !(k > 0) || k > 1e6)
            return tr_cli_usage_error(c, "bad --k '%s' (a positive number)", arg);
        a->ro.stat.mad_k = k;
        return TR_EXIT_OK;
    }
    default: /* OPT_WIDTH */
        if (tr_cli_parse_long(arg, 40, 10000, &v) < 0)
            return tr_cli_usage_error(c, "bad --width '%s' (40 to 10000)", arg);
        a->ro.width = (int)v;
        return TR_EXIT_OK;
    }
}

static int option(tr_cli *c, void *user, int id, const char *arg)
{
    args *a = user;
    switch (id) {
    case OPT_SECTION:
        return parse_sections(c, a, arg);
    case OPT_JSON:
        a->json = 1;
        return TR_EXIT_OK;
    case OPT_HTML:
        a->html = arg;
        return TR_EXIT_OK;
    case OPT_FOLLOW:
        a->follow = 1;
        return TR_EXIT_OK;
    case OPT_CSV: {
        int sec = tr_report_csv_section(arg);
        if (sec < 0) return tr_cli_usage_error(c, "unknown CSV table '%s' (see --help)", arg);
        a->csv = arg;
        a->ro.sections = 1u << sec;
        return TR_EXIT_OK;
    }
    case OPT_SORT:
        return parse_sort(c, a, arg);
    case OPT_STEP:
        a->ro.stat.step_glob = arg;
        return TR_EXIT_OK;
    case OPT_SEQ_OP:
        if (!*arg) return tr_cli_usage_error(c, "empty --seq-op (an operator name's text)");
        a->ro.stat.seq_op = arg;
        return TR_EXIT_OK;
    case OPT_PER_THREAD:
        a->ro.stat.hot_per_thread = 1;
        return TR_EXIT_OK;
    case OPT_BY_TOTAL:
        a->ro.by_total = 1;
        return TR_EXIT_OK;
    case OPT_HTA_ROUNDING:
        a->ro.stat.hta_rounding = 1;
        return TR_EXIT_OK;
    case OPT_HTA_STEPS:
        return parse_hta_steps(c, a, arg);
    case OPT_IO_EXCLUDE:
    case OPT_IO_INCLUDE:
    case OPT_IO_ALL_FILES:
        return io_option(c, a, id, arg);
    case OPT_DIFF: {
        char **in = tr_vec_push(&a->control);
        if (!in) return tr_cli_usage_error(c, "out of memory");
        *in = (char *)arg;
        return TR_EXIT_OK;
    }
    case OPT_ASCII:
        a->ro.ascii = 1;
        return TR_EXIT_OK;
    case OPT_IGNORE_LINES:
    case OPT_BY_FUNCTION:
    case OPT_DEPTH:
    case OPT_MAIN_THREAD:
    case OPT_PYTHON_ONLY:
    case OPT_PROGRESS_FRAME:
    case OPT_DOT:
        return tree_option(c, a, id, arg);
    default:
        return number_option(c, a, id, arg);
    }
}

/* The terminal's width, else $COLUMNS, else 100. */
static int terminal_width(void)
{
    struct winsize ws;
    if (isatty(1) && ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
    const char *cols = getenv("COLUMNS");
    if (cols) {
        long v = strtol(cols, NULL, 10);
        if (v > 0 && v < 10000) return (int)v;
    }
    return 100;
}

/* Writes B, the whole output, to standard output: TR_EXIT_OK, or an error said. */
static int put_output(tr_cli *c, const tr_buf *b)
{
    if (b->nomem) {
        /* text that could not grow is cut short: not an output */
        tr_error e = {0};
        tr_error_nomem(&e);
        tr_cli_error(c, &e);
        return TR_EXIT_DATA;
    }
    if (fwrite(b->p, 1, b->len, stdout) != b->len || fflush(stdout) != 0) {
        tr_cli_errorf(c, "cannot write the output");
        return TR_EXIT_DATA;
    }
    return TR_EXIT_OK;
}

int ts_print(tr_cli *c, const args *a, const tr_report *r)
{
    tr_buf b;
    tr_buf_init(&b, 0);
    if (a->dot)
        tr_report_dot(r, &b);
    else if (a->csv)
        tr_report_csv(r, a->csv, &b);
    else if (a->json)
        tr_report_json(r, &b);
    else
        tr_report_text(r, &b);
    int rc = put_output(c, &b);
    tr_buf_fini(&b);
    return rc;
}

static int report(tr_cli *c, const args *a, const tr_trace *t)
{
    tr_report *r;
    tr_error e = {0};
    if (tr_report_new(t, &a->ro, &r, &e) < 0) {
        tr_cli_error(c, &e);
        return TR_EXIT_DATA;
    }
    int rc = a->html ? ts_write_html(c, t, r, a->html) : ts_print(c, a, r);
    tr_report_free(r);
    return rc;
}

/* The mistakes only the whole command line shows. */
static int check_args(tr_cli *c, const args *a, int argc)
{
    if (a->json + (a->csv != NULL) + a->dot + (a->html != NULL) + a->follow > 1)
        return tr_cli_usage_error(c,
                                  "--json, --csv, --dot, --html and --follow exclude each other");
    if (a->control.len && (a->csv || a->dot || a->html || a->follow))
        return tr_cli_usage_error(
            c, "--diff prints text or --json, not --csv, --dot, --html or --follow");
    if (a->follow && argc - optind != 1) return tr_cli_usage_error(c, "--follow takes one LOG");
    int rc = tr_cli_check_from(c);
    if (rc == TR_EXIT_OK && optind >= argc) rc = tr_cli_usage_error(c, "no INPUT given");
    return rc;
}

/* --diff: the control run from the --diff inputs, the test run from the others. */
static int run_diff(tr_cli *c, const args *a, char **inputs, int n)
{
    tr_trace *ctl = NULL, *test = NULL;
    int rc = tr_cli_load_new(c, a->control.data, a->control.len, &ctl);
    if (rc == TR_EXIT_OK) rc = tr_cli_load_new(c, inputs, (size_t)n, &test);
    tr_diff d = {0};
    tr_error e = {0};
    if (rc == TR_EXIT_OK && tr_diff_compute(ctl, test, &a->ro.stat, &d, &e) != TR_OK) {
        tr_cli_error(c, &e);
        rc = TR_EXIT_DATA;
    }
    if (rc == TR_EXIT_OK) {
        tr_buf b;
        tr_buf_init(&b, 0);
        if (a->json)
            tr_diff_json(&d, a->ro.top, &b);
        else
            tr_diff_text(&d, a->ro.top, a->ro.width, a->ro.ascii, &b);
        rc = put_output(c, &b);
        tr_buf_fini(&b);
    }
    tr_diff_fini(&d);
    tr_trace_free(ctl);
    tr_trace_free(test);
    return rc;
}

/*
** Whether the report is computed from a stream: the inputs stream (as for
** traceviz) and every section asked is computed one event at a time; when
** the inputs would stream but a section needs the model, that is said.
*/
/* ^Appends the names of the sections in SECTIONS (bits 1u << TR_REPORT_*), comma-separated. */
static void section_names(tr_buf *b, unsigned sections)
{
    for (int s = 0; s < TR_REPORT_SECTION_COUNT; s++)
        if (sections >> s & 1u)
            tr_buf_addf(b, "%s%s", b->len ? ", " : "", tr_report_section_name(s));
}

static int streams(tr_cli *c, const args *a, char **inputs, int n)
{
    if (!tr_cli_can_stream(c, inputs, (size_t)n, 0)) return 0;
    if (a->html) {
        if (c->verbosity >= 1)
            fprintf(stderr,
                    "tracestat: --html draws its pictures from the whole trace in memory, past the "
                    "%llu MiB budget\n",
                    (unsigned long long)(tr_cli_memory(c) >> 20));
        return 0;
    }
    unsigned other = tr_report_unstreamed(&a->ro);
    if (!other) return 1;
    if (c->verbosity >= 1) {
        tr_report_opts all = a->ro;
        all.sections = (1u << TR_REPORT_SECTION_COUNT) - 1;
        tr_buf names, streamed;
        tr_buf_init(&names, 0);
        tr_buf_init(&streamed, 0);
        section_names(&names, other);
        section_names(&streamed, all.sections & ~tr_report_unstreamed(&all));
        int several = strchr(names.p, ',') != NULL;
        fprintf(stderr,
                "tracestat: the %s section%s read%s the whole trace into memory, past the %llu "
                "MiB budget (only %s are computed within --memory)\n",
                names.p, several ? "s" : "", several ? "" : "s",
                (unsigned long long)(tr_cli_memory(c) >> 20), streamed.p);
        tr_buf_fini(&names);
        tr_buf_fini(&streamed);
    }
    return 0;
}

static int run(tr_cli *c, const args *a, char **inputs, int n)
{
    if (a->control.len) return run_diff(c, a, inputs, n);
    if (streams(c, a, inputs, n)) {
        int model;
        int rc = ts_stream(c, a, inputs, n, &model);
        if (!model) return rc;
    }
    tr_trace *t = tr_trace_new();
    if (!t) {
        tr_cli_errorf(c, "out of memory");
        return TR_EXIT_DATA;
    }
    int rc = tr_cli_load(c, t, inputs, (size_t)n, 0);
    if (rc == TR_EXIT_OK) rc = report(c, a, t);
    tr_trace_free(t);
    return rc;
}

int main(int argc, char **argv)
{
    tr_buf more;
    tr_buf_init(&more, 0);
    tr_buf_adds(&more, tracestat_usage_options);
    tr_buf_adds(&more, tracestat_usage_reading);
    const tr_cli_spec spec = {.usage = tracestat_usage,
                              .usage_more = more.p,
                              .opts = options,
                              .reads = 1,
                              .option = option};
    tr_cli c;
    tr_cli_init(&c, "tracestat");
    args a = {0};
    tr_vec_init(&a.control, sizeof(char *));
    tr_report_opts_init(&a.ro);
    a.ro.width = 0;
    int done;
    int rc = tr_cli_parse(&c, &spec, argc, argv, &a, &done);
    if (rc == TR_EXIT_OK && !done) rc = check_args(&c, &a, argc);
    if (rc == TR_EXIT_OK && !done) {
        if (!a.ro.width) a.ro.width = terminal_width();
        if (a.follow) {
            c.progress = 0;
            rc = ts_follow(&c, &a.ro, argv[optind]);
        } else {
            tr_cli_install_signals();
            rc = run(&c, &a, argv + optind, argc - optind);
        }
        if (rc == TR_EXIT_OK || rc == TR_EXIT_DATA) tr_cli_warning_summary(&c);
    }
    tr_vec_fini(&a.control);
    tr_buf_fini(&more);
    tr_cli_fini(&c);
    return rc;
}
