/*
** tracecat: convert traces, print their events as lines, tell what they hold.
**
**   tracecat convert INPUT... -o OUTPUT     any reader -> any writer
**   tracecat cat INPUT...                   one event a line, tab-separated
**   tracecat info INPUT...                  format, clock, span, counts, lanes, names
**   tracecat formats                        the reader and writer tables
*/
#include "cli.h"
#include "tr_load.h"
#include "tr_readers.h"
#include "tr_writers.h"
#include "tr_text.h"

#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char usage_text[] =
    "Usage: tracecat COMMAND [OPTION]... INPUT...\n"
    "Read traces (GT instruction logs, and more formats as their readers land) into one\n"
    "model and convert, print or describe them.  INPUT is a file, a directory (a run\n"
    "folder: every trace inside is read), an archive (.tar*, .zip), a compressed file\n"
    "(gzip, zstd, xz, bzip2: detected by content), or - for standard input.\n"
    "\n"
    "Commands:\n"
    "  convert INPUT... -o OUTPUT  write the trace in another format (by --to, else by\n"
    "                              OUTPUT's extension; .gz/.zst compress); several\n"
    "                              inputs merge into one trace; -o - is standard output;\n"
    "                              --to parquet writes a directory of Parquet files,\n"
    "                              one input at a time (-o DIR/); --to recorder writes\n"
    "                              a Recorder directory (-o DIR/) or a tar of it\n"
    "  cat INPUT...                print one event a line, tab-separated:\n"
    "                              kind ts dur process track category name value args\n"
    "  info INPUT...               format, origin and clock, time span, counts per table,\n"
    "                              lanes with event counts, top names\n"
    "  formats                     list the readers and writers\n"
    "\n"
    "Options:\n"
    "  -o, --output FILE     output of convert (required; - for standard output)\n"
    "  -f, --from FORMAT     input format (default: probe the content)\n"
    "  -t, --to FORMAT       output format (default: from the output's extension)\n"
    "      --name GLOB       keep events whose name matches GLOB (convert, cat)\n"
    "      --track GLOB      keep events whose track name matches GLOB (convert, cat)\n"
    "      --since TIME      keep events at or after TIME from the origin (convert, cat)\n"
    "      --until TIME      keep events at or before TIME (convert, cat); TIME has a\n"
    "                        unit: 1.5s, 200ms, 30us, 10ns (seconds when none)\n"
    "      --header          cat: print a '#'-prefixed column line first\n"
    "      --json            info: print JSON\n"
    "      --partition rank  parquet: DIR/TABLE/rank=N/ directories (Hive-style)\n"
    "      --row-group-rows N  parquet: rows per row group (default 1048576); smaller\n"
    "                        groups let engines skip more, larger ones compress better\n"
    "      --rank FILE=N     the processes read from FILE are rank N (repeatable);\n"
    "                        without it a 'rank3' in a file's name gives its "
    "rank\n" TR_CLI_LOAD_HELP
    "      --gt-pairing MODE GT worker slices: 'batch' (default: a batch from the line\n"
    "                        before its reply to the reply) or 'visualize' (as GT's\n"
    "                        gt.scripts.visualize pairs them)\n"
    "      --folded-prefix LIST  folded output: root frames naming the 'process',\n"
    "                        the 'thread' or both ('process,thread'), as py-spy's\n"
    "                        --subprocesses and --threads write them; 'none' (default)\n"
    "      --strict          a bad record is an error, not a warning\n"
    "  -q, --quiet           errors only\n"
    "  -v, --verbose         show every warning (repeat for more)\n"
    "      --progress        always draw progress on stderr\n"
    "      --no-progress     never draw progress\n"
    "  -h, --help            show this help and exit\n"
    "  -V, --version         show the version and exit\n"
    "\n"
    "Exit status: 0 success (warnings too), 1 bad input or I/O failure, 2 usage error.\n"
    "Examples:\n"
    "  tracecat convert run.log -o run.json\n"
    "  tracecat cat run.log | awk -F'\\t' '$6 == \"gt.worker\" {busy += $3} END {print busy}'\n"
    "  tracecat info run.log --json\n";

enum {
    OPT_NAME = 256,
    OPT_TRACK,
    OPT_SINCE,
    OPT_UNTIL,
    OPT_HEADER,
    OPT_JSON,
    OPT_RANK,
    OPT_GT_PAIRING,
    OPT_STRICT,
    OPT_PROGRESS,
    OPT_NO_PROGRESS,
    OPT_FOLDED_PREFIX,
    OPT_PARTITION,
    OPT_ROW_GROUP_ROWS,
    OPT_ASSUME_FREE_BYTES
};

static const struct option options[] = {
    /* a test hook, not in --help: the free space the Parquet writer sees */
    {"assume-free-bytes", required_argument, NULL, OPT_ASSUME_FREE_BYTES},
    {"folded-prefix", required_argument, NULL, OPT_FOLDED_PREFIX},
    {"from", required_argument, NULL, 'f'},
    {"gt-pairing", required_argument, NULL, OPT_GT_PAIRING},
    {"header", no_argument, NULL, OPT_HEADER},
    {"help", no_argument, NULL, 'h'},
    {"json", no_argument, NULL, OPT_JSON},
    {"name", required_argument, NULL, OPT_NAME},
    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {"output", required_argument, NULL, 'o'},
    {"partition", required_argument, NULL, OPT_PARTITION},
    {"progress", no_argument, NULL, OPT_PROGRESS},
    {"quiet", no_argument, NULL, 'q'},
    {"rank", required_argument, NULL, OPT_RANK},
    {"row-group-rows", required_argument, NULL, OPT_ROW_GROUP_ROWS},
    {"since", required_argument, NULL, OPT_SINCE},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"to", required_argument, NULL, 't'},
    {"track", required_argument, NULL, OPT_TRACK},
    {"until", required_argument, NULL, OPT_UNTIL},
    {"verbose", no_argument, NULL, 'v'},
    {"version", no_argument, NULL, 'V'},
    TR_CLI_LOAD_OPTIONS,
    {NULL, 0, NULL, 0},
};

typedef struct args {
    const char *command;
    const char *output, *from, *to;
    const char *name_glob, *track_glob;
    int64_t since, until;
    int has_since, has_until;
    int header, json;
    tr_rank_override *ranks;
    size_t n_ranks;
    int gt_pairing;
    unsigned folded_prefix;  /* TR_FOLDED_* */
    int no_stack_slices;     /* the writer needs only samples (folded) */
    int partition_rank;      /* parquet: --partition rank */
    uint64_t row_group_rows; /* parquet: --row-group-rows */
    uint64_t free_bytes;     /* parquet: --assume-free-bytes (tests) */
    char **inputs;
    int n_inputs;
    tr_cli_loadopts load; /* --align, --align-on, --tz, --threads */
} args;

/* ---- filters ---- */

/* A sample is named by its innermost frame's function. */
static tr_str leaf_function(const tr_trace *t, uint32_t stack)
{
    const tr_frame *f = tr_frame_get(t, tr_stack_frame(t, stack));
    return f ? f->function : 0;
}

static tr_str event_name(const tr_trace *t, const tr_event *ev)
{
    switch (ev->kind) {
    case TR_EV_SLICE: {
        tr_slices s;
        tr_trace_slices(t, &s);
        return s.name[ev->row];
    }
    case TR_EV_INSTANT: {
        tr_instants s;
        tr_trace_instants(t, &s);
        return s.name[ev->row];
    }
    case TR_EV_SAMPLE: {
        tr_samples s;
        tr_trace_samples(t, &s);
        return leaf_function(t, s.stack[ev->row]);
    }
    default:
        return 0;
    }
}

static uint32_t event_track(const tr_trace *t, const tr_event *ev)
{
    switch (ev->kind) {
    case TR_EV_SLICE: {
        tr_slices s;
        tr_trace_slices(t, &s);
        return s.track[ev->row];
    }
    case TR_EV_INSTANT: {
        tr_instants s;
        tr_trace_instants(t, &s);
        return s.track[ev->row];
    }
    case TR_EV_COUNTER: {
        tr_counters s;
        tr_trace_counters(t, &s);
        return s.track[ev->row];
    }
    default: {
        tr_samples s;
        tr_trace_samples(t, &s);
        return s.track[ev->row];
    }
    }
}

static int keep_event(void *user, const tr_trace *t, const tr_event *ev)
{
    const args *a = user;
    if (a->has_since && ev->ts < a->since) return 0;
    if (a->has_until && ev->ts > a->until) return 0;
    if (a->name_glob) {
        const char *name = tr_str_get(t, event_name(t, ev), NULL);
        if (fnmatch(a->name_glob, name, 0) != 0) return 0;
    }
    if (a->track_glob) {
        const tr_track *tk = tr_track_get(t, event_track(t, ev));
        const char *name = tk ? tr_str_get(t, tk->name, NULL) : "";
        if (fnmatch(a->track_glob, name, 0) != 0) return 0;
    }
    return 1;
}

static int has_filter(const args *a)
{
    return a->name_glob || a->track_glob || a->has_since || a->has_until;
}

/* ---- loading ---- */

static int load_inputs(tr_cli *c, const args *a, tr_trace *t, char *const *inputs, int n)
{
    tr_load_opts lo = {.readers = tr_readers};
    lo.from = a->from;
    lo.read.diag = &c->diag;
    lo.read.gt_pairing = a->gt_pairing;
    lo.read.no_stack_slices = a->no_stack_slices;
    lo.ranks = a->ranks;
    lo.n_ranks = a->n_ranks;
    lo.progress = tr_cli_progress;
    lo.progress_user = c;
    return tr_cli_load(c, t, inputs, (size_t)n, &lo, &a->load);
}

static int load_all(tr_cli *c, const args *a, tr_trace *t)
{
    return load_inputs(c, a, t, a->inputs, a->n_inputs);
}

/* The options writers read, from the command line. */
static tr_write_opts write_opts(const args *a, tr_filter *filter)
{
    *filter = (tr_filter){keep_event, (void *)a};
    return (tr_write_opts){.filter = has_filter(a) ? filter : NULL,
                           .header = a->header,
                           .folded_prefix = a->folded_prefix,
                           .partition_rank = a->partition_rank,
                           .row_group_rows = a->row_group_rows,
                           .free_bytes = a->free_bytes};
}

static int write_trace(tr_cli *c, const args *a, const tr_trace *t, const tr_writer *w,
                       const char *path)
{
    tr_error e = {0};
    tr_filter filter;
    tr_write_opts wo = write_opts(a, &filter);
    if (tr_write_trace(w, t, path, &wo, &e) < 0) {
        tr_cli_error(c, &e);
        return e.code == TR_E_USAGE ? TR_EXIT_USAGE : TR_EXIT_DATA;
    }
    return TR_EXIT_OK;
}

/* ---- commands ---- */

/* What the writer driver loads through: the inputs, read as the writer needs them. */
typedef struct convert_job {
    tr_cli *c;
    args conv;
    int exit; /* a load's exit status, reported already */
} convert_job;

static int convert_load(void *user, tr_trace *t, size_t first, size_t n, tr_error *e)
{
    (void)e;
    convert_job *job = user;
    job->exit = load_inputs(job->c, &job->conv, t, job->conv.inputs + first, (int)n);
    return job->exit == TR_EXIT_OK ? TR_OK : TR_FAIL;
}

static int cmd_convert(tr_cli *c, const args *a)
{
    if (!a->output) return tr_cli_usage_error(c, "convert needs -o OUTPUT");
    const tr_writer *w = a->to ? tr_writer_find(a->to) : tr_writer_for_path(a->output);
    if (!w && a->to) return tr_cli_usage_error(c, "unknown output format '%s'", a->to);
    if (!w && strcmp(a->output, "-") == 0) return tr_cli_usage_error(c, "-o - needs --to FORMAT");
    if (!w)
        return tr_cli_usage_error(c, "cannot tell the format of '%s' from its extension (use --to)",
                                  a->output);
    if (a->partition_rank && !(w->flags & TR_WRITE_DATASET))
        return tr_cli_usage_error(c, "--partition is for --to parquet");
    if (a->row_group_rows && !(w->flags & TR_WRITE_DATASET))
        return tr_cli_usage_error(c, "--row-group-rows is for --to parquet");
    /* Slices derived from stack samples are not built for a writer that ignores them. */
    convert_job job = {.c = c, .conv = *a};
    job.conv.no_stack_slices = w->samples_only;
    tr_error e = {0};
    tr_filter filter;
    tr_write_opts wo = write_opts(a, &filter);
    if (tr_write_inputs(w, a->output, &wo, (size_t)a->n_inputs, convert_load, &job, &e) == TR_OK)
        return TR_EXIT_OK;
    if (job.exit != TR_EXIT_OK) return job.exit;
    tr_cli_error(c, &e);
    return e.code == TR_E_USAGE ? TR_EXIT_USAGE : TR_EXIT_DATA;
}

static int cmd_cat(tr_cli *c, const args *a)
{
    tr_trace *t = tr_trace_new();
    if (!t) {
        tr_cli_errorf(c, "out of memory");
        return TR_EXIT_DATA;
    }
    int rc = load_all(c, a, t);
    if (rc == TR_EXIT_OK)
        rc = write_trace(c, a, t, tr_writer_find("lines"), a->output ? a->output : "-");
    tr_trace_free(t);
    return rc;
}

static void print_duration(tr_buf *b, int64_t ns)
{
    static const struct {
        int64_t unit;
        int digits;
        const char *name;
    } units[] = {{1000000000, 9, "s"}, {1000000, 6, "ms"}, {1000, 3, "us"}};
    int64_t mag = ns < 0 ? -ns : ns;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
        if (mag >= units[i].unit) {
            tr_buf_add_fixed(b, ns, units[i].digits, 3);
            tr_buf_adds(b, units[i].name);
            return;
        }
    }
    tr_buf_add_int(b, ns);
    tr_buf_adds(b, "ns");
}

typedef struct name_count {
    tr_str name;
    uint64_t count;
} name_count;

static int by_count_desc(const void *pa, const void *pb)
{
    const name_count *a = pa, *b = pb;
    if (a->count != b->count) return a->count < b->count ? 1 : -1;
    return a->name < b->name ? -1 : a->name > b->name;
}

typedef struct trace_summary {
    int64_t first, last;
    uint64_t *track_events; /* per track, by event kind */
    name_count *names;      /* indexed by string id, then sorted */
    size_t n_names;
    name_count *instant_cats; /* instants per category (e.g. Chrome phases without a table) */
    size_t n_instant_cats;
} trace_summary;

/* Counts per track and name, table by table (each table is in time order). */
static int summarize(const tr_trace *t, trace_summary *s)
{
    size_t n_tracks = tr_track_count(t), n_strs = tr_str_count(t);
    s->track_events = calloc((n_tracks ? n_tracks : 1) * TR_EV_KIND_COUNT, sizeof(uint64_t));
    uint64_t *by_name = calloc(n_strs, sizeof *by_name);
    if (!s->track_events || !by_name) {
        free(by_name);
        return -1;
    }
    s->first = INT64_MAX;
    s->last = INT64_MIN;
    tr_slices sl;
    tr_instants in;
    tr_counters cn;
    tr_samples sm;
    tr_trace_slices(t, &sl);
    tr_trace_instants(t, &in);
    tr_trace_counters(t, &cn);
    tr_trace_samples(t, &sm);
#define TALLY(kind, tab, endexpr, nameexpr)                                                        \
    for (size_t i = 0; i < (tab).n; i++) {                                                         \
        int64_t end = (endexpr);                                                                   \
        if ((tab).ts[i] < s->first) s->first = (tab).ts[i];                                        \
        if (end > s->last) s->last = end;                                                          \
        if ((tab).track[i] < n_tracks)                                                             \
            s->track_events[(tab).track[i] * TR_EV_KIND_COUNT + (kind)]++;                         \
        tr_str name = (nameexpr);                                                                  \
        if (name && name < n_strs) by_name[name]++;                                                \
    }
    TALLY(TR_EV_SLICE, sl, tr_time_add(sl.ts[i], sl.dur[i]), sl.name[i])
    TALLY(TR_EV_INSTANT, in, in.ts[i], in.name[i])
    TALLY(TR_EV_COUNTER, cn, cn.ts[i], 0)
    TALLY(TR_EV_SAMPLE, sm, sm.ts[i], leaf_function(t, sm.stack[i]))
#undef TALLY
    size_t named = 0;
    for (size_t i = 0; i < n_strs; i++) named += by_name[i] != 0;
    s->names = calloc(named ? named : 1, sizeof *s->names);
    if (!s->names) {
        free(by_name);
        return -1;
    }
    for (size_t i = 0; i < n_strs; i++)
        if (by_name[i]) s->names[s->n_names++] = (name_count){(tr_str)i, by_name[i]};
    qsort(s->names, s->n_names, sizeof *s->names, by_count_desc);
    /* the same tally for instant categories, reusing the per-string counts */
    memset(by_name, 0, n_strs * sizeof *by_name);
    size_t cats = 0;
    for (size_t i = 0; i < in.n; i++)
        if (in.cat[i] && in.cat[i] < n_strs && by_name[in.cat[i]]++ == 0) cats++;
    s->instant_cats = calloc(cats ? cats : 1, sizeof *s->instant_cats);
    if (!s->instant_cats) {
        free(by_name);
        return -1;
    }
    for (size_t i = 0; i < n_strs; i++)
        if (by_name[i]) s->instant_cats[s->n_instant_cats++] = (name_count){(tr_str)i, by_name[i]};
    free(by_name);
    qsort(s->instant_cats, s->n_instant_cats, sizeof *s->instant_cats, by_count_desc);
    return 0;
}

static const char *const kind_names[TR_EV_KIND_COUNT] = {"slices", "instants", "counters",
                                                         "samples"};

/* Whether tr_align placed the inputs (several, or --align, --align-on): then info says where. */
static int placed(const tr_trace *t)
{
    return tr_input_count(t) > 1 ||
           (tr_input_count(t) == 1 && tr_input_get(t, 0)->placed != TR_PLACED_AS_IS);
}

/* Unix nanoseconds as UTC, with as many decimals as PRECISION_NS leaves meaningful. */
static void print_unix(tr_buf *b, int64_t ns, int64_t precision_ns)
{
    int64_t secs = ns / 1000000000, frac = ns % 1000000000;
    if (frac < 0) secs--, frac += 1000000000;
    time_t tt = (time_t)secs;
    struct tm tm;
    char day[32];
    if (!gmtime_r(&tt, &tm) || !strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm)) {
        tr_buf_add_int(b, ns);
        return;
    }
    tr_buf_adds(b, day);
    int digits = 9;
    for (int64_t p = precision_ns; p >= 10 && digits > 0; p /= 10) digits--;
    if (precision_ns > 0 && digits > 0) {
        tr_buf_addf(b, ".%09lld", (long long)frac);
        b->len -= (size_t)(9 - digits);
        b->p[b->len] = '\0';
    }
    tr_buf_adds(b, "Z");
}

/* The clock lines of input I: its wall-clock origin, and where a merge put it. */
static void info_clock(const tr_trace *t, size_t i, int merged, tr_buf *b)
{
    const tr_input_info *in = tr_input_get(t, (uint32_t)i);
    if (in->origin_unix_ns != INT64_MIN) {
        tr_buf_adds(b, "  wall clock: ");
        print_unix(b, in->origin_unix_ns, in->origin_precision_ns);
        if (in->origin_precision_ns > 0) {
            tr_buf_adds(b, ", precision ");
            print_duration(b, in->origin_precision_ns);
        }
        if (in->origin_from) tr_buf_addf(b, ", from %s", tr_str_get(t, in->origin_from, NULL));
        tr_buf_adds(b, "\n");
    } else if (in->origin_from) {
        tr_buf_addf(b, "  wall clock: unread (%s; use --tz)\n",
                    tr_str_get(t, in->origin_from, NULL));
    }
    if (!merged) return;
    tr_buf_adds(b, "  placed: ");
    print_duration(b, in->offset_ns);
    tr_buf_addf(b, " (%s)\n", tr_align_how_name(in->placed));
    for (size_t p = 0; p < tr_process_count(t); p++) {
        const tr_process *pr = tr_process_get(t, (uint32_t)p);
        if (pr->input != i || pr->offset_ns == in->offset_ns) continue;
        tr_buf_addf(b, "    %s", tr_str_get(t, pr->name, NULL));
        if (pr->rank >= 0) tr_buf_addf(b, " (rank %d)", pr->rank);
        tr_buf_adds(b, " placed at ");
        print_duration(b, pr->offset_ns);
        tr_buf_adds(b, "\n");
    }
    if (in->placed == TR_PLACED_GUESS)
        tr_buf_adds(b, "  warning: no wall clock: placed at the timeline's zero, a guess "
                       "(use --align or --align-on)\n");
    else if (in->placed == TR_PLACED_GUESS_ZONE)
        tr_buf_adds(b, "  warning: local time read in this machine's zone, a guess (use --tz)\n");
}

static void info_text(const tr_trace *t, const trace_summary *s, tr_buf *b)
{
    int merged = placed(t);
    for (size_t i = 0; i < tr_input_count(t); i++) {
        const tr_input_info *in = tr_input_get(t, (uint32_t)i);
        tr_buf_addf(b, "input %zu: %s\n  format: %s\n", i, tr_str_get(t, in->path, NULL),
                    tr_str_get(t, in->format, NULL));
        if (in->origin_wall) tr_buf_addf(b, "  origin: %s\n", tr_str_get(t, in->origin_wall, NULL));
        if (in->clock) tr_buf_addf(b, "  clock: %s\n", tr_str_get(t, in->clock, NULL));
        info_clock(t, i, merged, b);
        tr_buf_addf(b, "  skipped: %llu non-record lines, %llu bad records\n",
                    (unsigned long long)in->lines_skipped, (unsigned long long)in->warnings);
    }
    int64_t zero = tr_timeline_origin(t);
    if (merged && zero != INT64_MIN) {
        tr_buf_adds(b, "timeline zero: ");
        print_unix(b, zero, 1);
        tr_buf_adds(b, "\n");
    }
    tr_buf_adds(b, "span: ");
    if (s->first <= s->last) {
        print_duration(b, s->first);
        tr_buf_adds(b, " .. ");
        print_duration(b, s->last);
        tr_buf_adds(b, " (");
        print_duration(b, s->last - s->first);
        tr_buf_adds(b, ")\n");
    } else {
        tr_buf_adds(b, "empty\n");
    }
    tr_slices sl;
    tr_instants ins;
    tr_counters cn;
    tr_samples sm;
    tr_trace_slices(t, &sl);
    tr_trace_instants(t, &ins);
    tr_trace_counters(t, &cn);
    tr_trace_samples(t, &sm);
    tr_buf_addf(b,
                "counts: processes %zu, tracks %zu, slices %zu, instants %zu, counters %zu, "
                "samples %zu, flows %zu, frames %zu, stacks %zu\n",
                tr_process_count(t), tr_track_count(t), sl.n, ins.n, cn.n, sm.n, tr_flow_count(t),
                tr_frame_count(t), tr_stack_count(t) - 1);
    tr_buf_adds(b, "lanes:\n");
    for (size_t i = 0; i < tr_track_count(t); i++) {
        const tr_track *tk = tr_track_get(t, (uint32_t)i);
        const tr_process *p = tr_process_get(t, tk->process);
        tr_buf_addf(b, "  %s / %s (%s)", tr_str_get(t, p->name, NULL),
                    tr_str_get(t, tk->name, NULL), tr_track_kind_name(tk->kind));
        if (p->rank >= 0) tr_buf_addf(b, " rank %d", p->rank);
        tr_buf_adds(b, ":");
        for (int k = 0; k < TR_EV_KIND_COUNT; k++) {
            uint64_t n = s->track_events[i * TR_EV_KIND_COUNT + (size_t)k];
            if (n) tr_buf_addf(b, " %s %llu", kind_names[k], (unsigned long long)n);
        }
        tr_buf_adds(b, "\n");
    }
    tr_buf_adds(b, "top names:\n");
    for (size_t i = 0; i < s->n_names && i < 10 && s->names[i].count; i++)
        tr_buf_addf(b, "  %8llu  %s\n", (unsigned long long)s->names[i].count,
                    tr_str_get(t, s->names[i].name, NULL));
    if (s->n_instant_cats) tr_buf_adds(b, "instants by category:\n");
    for (size_t i = 0; i < s->n_instant_cats && i < 20; i++)
        tr_buf_addf(b, "  %8llu  %s\n", (unsigned long long)s->instant_cats[i].count,
                    tr_str_get(t, s->instant_cats[i].name, NULL));
}

static void json_str(tr_buf *b, const tr_trace *t, tr_str s)
{
    size_t n;
    const char *p = tr_str_get(t, s, &n);
    tr_buf_add_json_str(b, p, n);
}

static void info_json(const tr_trace *t, const trace_summary *s, tr_buf *b)
{
    int merged = placed(t);
    tr_buf_adds(b, "{\"inputs\":[");
    for (size_t i = 0; i < tr_input_count(t); i++) {
        const tr_input_info *in = tr_input_get(t, (uint32_t)i);
        tr_buf_adds(b, i ? ",{\"path\":" : "{\"path\":");
        json_str(b, t, in->path);
        tr_buf_adds(b, ",\"format\":");
        json_str(b, t, in->format);
        tr_buf_adds(b, ",\"origin\":");
        if (in->origin_wall)
            json_str(b, t, in->origin_wall);
        else
            tr_buf_adds(b, "null");
        tr_buf_adds(b, ",\"clock\":");
        json_str(b, t, in->clock);
        tr_buf_addf(b, ",\"lines_skipped\":%llu,\"warnings\":%llu",
                    (unsigned long long)in->lines_skipped, (unsigned long long)in->warnings);
        /* Where a merge put the input (one input keeps its times: nothing to say). */
        if (merged) {
            tr_buf_adds(b, ",\"origin_unix_ns\":");
            if (in->origin_unix_ns != INT64_MIN)
                tr_buf_add_int(b, in->origin_unix_ns);
            else
                tr_buf_adds(b, "null");
            tr_buf_addf(
                b, ",\"precision_ns\":%lld,\"origin_from\":", (long long)in->origin_precision_ns);
            json_str(b, t, in->origin_from);
            tr_buf_addf(b, ",\"placed\":\"%s\",\"guess\":%s,\"offset_ns\":%lld",
                        tr_align_how_name(in->placed),
                        tr_align_is_guess(in->placed) ? "true" : "false", (long long)in->offset_ns);
        }
        tr_buf_adds(b, "}");
    }
    if (merged) {
        tr_buf_adds(b, "],\"timeline_origin_unix_ns\":");
        int64_t zero = tr_timeline_origin(t);
        if (zero != INT64_MIN)
            tr_buf_add_int(b, zero);
        else
            tr_buf_adds(b, "null");
        tr_buf_adds(b, ",\"span_ns\":");
    } else {
        tr_buf_adds(b, "],\"span_ns\":");
    }
    if (s->first <= s->last)
        tr_buf_addf(b, "[%lld,%lld]", (long long)s->first, (long long)s->last);
    else
        tr_buf_adds(b, "null");
    tr_slices sl;
    tr_instants ins;
    tr_counters cn;
    tr_samples sm;
    tr_trace_slices(t, &sl);
    tr_trace_instants(t, &ins);
    tr_trace_counters(t, &cn);
    tr_trace_samples(t, &sm);
    tr_buf_addf(b,
                ",\"counts\":{\"processes\":%zu,\"tracks\":%zu,\"slices\":%zu,\"instants\":%zu,"
                "\"counters\":%zu,\"samples\":%zu,\"flows\":%zu,\"frames\":%zu,\"stacks\":%zu}",
                tr_process_count(t), tr_track_count(t), sl.n, ins.n, cn.n, sm.n, tr_flow_count(t),
                tr_frame_count(t), tr_stack_count(t) - 1);
    tr_buf_adds(b, ",\"lanes\":[");
    for (size_t i = 0; i < tr_track_count(t); i++) {
        const tr_track *tk = tr_track_get(t, (uint32_t)i);
        const tr_process *p = tr_process_get(t, tk->process);
        tr_buf_adds(b, i ? ",{\"process\":" : "{\"process\":");
        json_str(b, t, p->name);
        tr_buf_adds(b, ",\"track\":");
        json_str(b, t, tk->name);
        tr_buf_addf(b, ",\"kind\":\"%s\",\"rank\":%d", tr_track_kind_name(tk->kind), p->rank);
        if (merged)
            tr_buf_addf(b, ",\"input\":%u,\"offset_ns\":%lld", p->input, (long long)p->offset_ns);
        for (int k = 0; k < TR_EV_KIND_COUNT; k++)
            tr_buf_addf(b, ",\"%s\":%llu", kind_names[k],
                        (unsigned long long)s->track_events[i * TR_EV_KIND_COUNT + (size_t)k]);
        tr_buf_adds(b, "}");
    }
    tr_buf_adds(b, "],\"top_names\":[");
    for (size_t i = 0; i < s->n_names && i < 10 && s->names[i].count; i++) {
        tr_buf_adds(b, i ? ",{\"name\":" : "{\"name\":");
        json_str(b, t, s->names[i].name);
        tr_buf_addf(b, ",\"count\":%llu}", (unsigned long long)s->names[i].count);
    }
    tr_buf_adds(b, "],\"instant_categories\":[");
    for (size_t i = 0; i < s->n_instant_cats && i < 20; i++) {
        tr_buf_adds(b, i ? ",{\"category\":" : "{\"category\":");
        json_str(b, t, s->instant_cats[i].name);
        tr_buf_addf(b, ",\"count\":%llu}", (unsigned long long)s->instant_cats[i].count);
    }
    tr_buf_adds(b, "]}\n");
}

static int cmd_info(tr_cli *c, const args *a)
{
    tr_trace *t = tr_trace_new();
    if (!t) {
        tr_cli_errorf(c, "out of memory");
        return TR_EXIT_DATA;
    }
    int rc = load_all(c, a, t);
    if (rc == TR_EXIT_OK) {
        trace_summary s = {0};
        tr_buf b;
        tr_buf_init(&b, 0);
        if (summarize(t, &s) < 0) {
            tr_cli_errorf(c, "out of memory");
            rc = TR_EXIT_DATA;
        } else {
            if (a->json)
                info_json(t, &s, &b);
            else
                info_text(t, &s, &b);
            fwrite(b.p, 1, b.len, stdout);
            if (fflush(stdout) != 0) rc = TR_EXIT_DATA;
        }
        tr_buf_fini(&b);
        free(s.track_events);
        free(s.names);
        free(s.instant_cats);
    }
    tr_trace_free(t);
    return rc;
}

static int cmd_formats(void)
{
    printf("Readers (--from):\n");
    for (size_t i = 0; tr_readers[i]; i++)
        printf("  %-10s %-28s %s\n", tr_readers[i]->name, tr_readers[i]->extensions,
               tr_readers[i]->description);
    printf("Writers (--to, or by the output's extension; add .gz or .zst to compress):\n");
    for (size_t i = 0; tr_writers[i]; i++)
        printf("  %-10s %-28s %s\n", tr_writers[i]->name, tr_writers[i]->extensions,
               tr_writers[i]->description);
    return TR_EXIT_OK;
}

/* ---- main ---- */

static int parse_args(tr_cli *c, int argc, char **argv, args *a, int *done)
{
    int opt;
    *done = 0;
    while ((opt = getopt_long(argc, argv, "o:f:t:qvhV", options, NULL)) != -1) {
        switch (opt) {
        case 'o':
            a->output = optarg;
            break;
        case 'f':
            a->from = optarg;
            break;
        case 't':
            a->to = optarg;
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
            tr_cli_print_version("tracecat");
            *done = 1;
            return TR_EXIT_OK;
        case OPT_NAME:
            a->name_glob = optarg;
            break;
        case OPT_TRACK:
            a->track_glob = optarg;
            break;
        case OPT_SINCE:
        case OPT_UNTIL: {
            int64_t ns;
            if (tr_parse_duration(optarg, &ns) < 0)
                return tr_cli_usage_error(c, "bad time '%s' (try 1.5s, 200ms, 30us, 10ns)", optarg);
            if (opt == OPT_SINCE)
                a->since = ns, a->has_since = 1;
            else
                a->until = ns, a->has_until = 1;
            break;
        }
        case OPT_HEADER:
            a->header = 1;
            break;
        case OPT_JSON:
            a->json = 1;
            break;
        case OPT_RANK: {
            tr_rank_override r;
            if (tr_cli_parse_rank(optarg, &r) < 0)
                return tr_cli_usage_error(c, "bad --rank '%s' (want FILE=N)", optarg);
            tr_rank_override *more = realloc(a->ranks, (a->n_ranks + 1) * sizeof *more);
            if (!more) return tr_cli_usage_error(c, "out of memory");
            a->ranks = more;
            a->ranks[a->n_ranks++] = r;
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
        case OPT_FOLDED_PREFIX: {
            unsigned bits = 0;
            for (const char *p = optarg; *p;) {
                size_t n = strcspn(p, ",");
                if (n == 6 && strncmp(p, "thread", 6) == 0)
                    bits |= TR_FOLDED_THREAD;
                else if (n == 7 && strncmp(p, "process", 7) == 0)
                    bits |= TR_FOLDED_PROCESS;
                else if (!(n == 4 && strncmp(p, "none", 4) == 0))
                    return tr_cli_usage_error(c, "--folded-prefix takes none, thread, process");
                p += n + (p[n] == ',');
            }
            a->folded_prefix = bits;
            break;
        }
        case OPT_PARTITION:
            if (strcmp(optarg, "rank") != 0)
                return tr_cli_usage_error(c, "--partition takes 'rank'");
            a->partition_rank = 1;
            break;
        case OPT_ROW_GROUP_ROWS:
        case OPT_ASSUME_FREE_BYTES: {
            char *end;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (*end || v == 0 || optarg[0] == '-')
                return tr_cli_usage_error(c, "--%s takes a positive number",
                                          opt == OPT_ROW_GROUP_ROWS ? "row-group-rows"
                                                                    : "assume-free-bytes");
            *(opt == OPT_ROW_GROUP_ROWS ? &a->row_group_rows : &a->free_bytes) = v;
            break;
        }
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

int main(int argc, char **argv)
{
    tr_cli c;
    tr_cli_init(&c, "tracecat");
    args a = {0};
    int done;
    /* The command may come before or after options; getopt permutes the rest. */
    int rc = parse_args(&c, argc, argv, &a, &done);
    if (rc != TR_EXIT_OK || done) goto out;
    if (optind >= argc) {
        rc = tr_cli_usage_error(&c, "no command given (convert, cat, info, formats)");
        goto out;
    }
    a.command = argv[optind];
    a.inputs = argv + optind + 1;
    a.n_inputs = argc - optind - 1;
    if (strcmp(a.command, "formats") == 0) {
        rc = cmd_formats();
        goto out;
    }
    if (a.from && !tr_reader_find(tr_readers, a.from)) {
        rc = tr_cli_usage_error(&c, "unknown input format '%s' (see 'tracecat formats')", a.from);
        goto out;
    }
    if (a.n_inputs == 0) {
        rc = tr_cli_usage_error(&c, "%s needs at least one INPUT", a.command);
        goto out;
    }
    tr_cli_install_signals();
    if (strcmp(a.command, "convert") == 0)
        rc = cmd_convert(&c, &a);
    else if (strcmp(a.command, "cat") == 0)
        rc = cmd_cat(&c, &a);
    else if (strcmp(a.command, "info") == 0)
        rc = cmd_info(&c, &a);
    else
        rc = tr_cli_usage_error(&c, "unknown command '%s'", a.command);
    if (rc == TR_EXIT_OK || rc == TR_EXIT_DATA) tr_cli_warning_summary(&c);
out:
    for (size_t i = 0; i < a.n_ranks; i++) free((char *)a.ranks[i].path);
    free(a.ranks);
    tr_cli_load_fini(&a.load);
    return rc;
}
