/*
** report_info.c: what a trace holds, as tracecat info prints it: the
** inputs with their clocks and placement, the span, the rows of every table,
** the lanes with their events per kind, the most frequent names.
*/
#include "report_impl.h"
#include "tr_align.h"
#include "tr_pool.h"
#include "tr_text.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A sample is named by its innermost frame's function. */
static tr_str leaf_function(const tr_trace *t, uint32_t stack)
{
    const tr_frame *f = tr_frame_get(t, tr_stack_frame(t, stack));
    return f ? f->function : 0;
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

/*
** A worker's counts over the parts it took: rows tr_pool_part(.., J) .. (..,
** J + 1) of every table for each part J.  BY_NAME is read and cleared only
** below LIM, the largest id counted + 1: a GT log's unique details strings
** are most of its ids, and their slots, never written, would each take a
** page fault to read.
*/
typedef struct tally {
    int64_t first, last;
    uint64_t *track_events; /* per track, by event kind */
    uint64_t *by_name;      /* per string id */
    size_t lim;
    int failed; /* out of memory */
} tally;

/*
** Parts for each thread: a thread that runs slower (a busy CPU) takes fewer,
** rather than the others waiting at the end for its one.
*/
#define TALLY_PARTS 8

typedef struct tally_job {
    const tr_trace *t;
    size_t parts, n_tracks, n_strs;
    tally *worker;
} tally_job;

static int tally_part(void *user, size_t j, int worker)
{
    tally_job *job = user;
    const tr_trace *t = job->t;
    size_t n_tracks = job->n_tracks, n_strs = job->n_strs;
    tally *p = &job->worker[worker];
    /* made by the thread that counts into them, on its first part */
    if (!p->track_events && !p->failed) {
        p->track_events = tr_calloc((n_tracks ? n_tracks : 1) * TR_EV_KIND_COUNT, sizeof(uint64_t));
        p->by_name = tr_calloc(n_strs ? n_strs : 1, sizeof *p->by_name);
        p->first = INT64_MAX;
        p->last = INT64_MIN;
        p->failed = !p->track_events || !p->by_name;
    }
    if (p->failed) return -1;
    /* kept in locals: stores through P could alias the counts */
    uint64_t *events = p->track_events, *by_name = p->by_name;
    size_t lim = p->lim;
    int64_t first = p->first, last = p->last;
    tr_slices sl;
    tr_instants in;
    tr_counters cn;
    tr_samples sm;
    tr_trace_slices(t, &sl);
    tr_trace_instants(t, &in);
    tr_trace_counters(t, &cn);
    tr_trace_samples(t, &sm);
#define TALLY(kind, tab, timed, endexpr, trackexpr, nameexpr)                                      \
    for (size_t i = tr_pool_part((tab).n, job->parts, j),                                          \
                hi = tr_pool_part((tab).n, job->parts, j + 1);                                     \
         i < hi; i++) {                                                                            \
        if (timed) {                                                                               \
            int64_t end = (endexpr);                                                               \
            if ((tab).ts[i] < first) first = (tab).ts[i];                                          \
            if (end > last) last = end;                                                            \
        }                                                                                          \
        uint32_t track = (trackexpr);                                                              \
        if (track < n_tracks) events[track * TR_EV_KIND_COUNT + (kind)]++;                         \
        tr_str name = (nameexpr);                                                                  \
        if (name && name < n_strs) {                                                               \
            by_name[name]++;                                                                       \
            if (name >= lim) lim = (size_t)name + 1;                                               \
        }                                                                                          \
    }
    TALLY(TR_EV_SLICE, sl, 1, tr_time_add(sl.ts[i], tr_slice_dur(&sl, i)), sl.track[i], sl.name[i])
    /* Instants in time order (a GT log's): the part's first and last give its times. */
    size_t lo = tr_pool_part(in.n, job->parts, j), hi = tr_pool_part(in.n, job->parts, j + 1);
    int in_order = lo < hi && hi <= in.ordered;
    if (in_order && in.ts[lo] < first) first = in.ts[lo];
    if (in_order && in.ts[hi - 1] > last) last = in.ts[hi - 1];
    /* Their tracks and names a byte each (a GT log's): read so, not through tr_col_at. */
    const uint8_t *in_track = in.track.size == 1 ? in.track.p : NULL,
                  *in_name = in.name.size == 1 ? in.name.p : NULL;
    if (in_track && in_name) {
        uint32_t tb = (uint32_t)in.track.bias, nb = (uint32_t)in.name.bias;
        TALLY(TR_EV_INSTANT, in, !in_order, in.ts[i], in_track[i] + tb, in_name[i] + nb)
    } else {
        TALLY(TR_EV_INSTANT, in, !in_order, in.ts[i], tr_instant_track(&in, i),
              tr_instant_name(&in, i))
    }
    TALLY(TR_EV_COUNTER, cn, 1, cn.ts[i], cn.track[i], 0)
    TALLY(TR_EV_SAMPLE, sm, 1, sm.ts[i], sm.track[i], leaf_function(t, sm.stack[i]))
#undef TALLY
    p->first = first;
    p->last = last;
    p->lim = lim;
    return TR_OK;
}

/* Counts per track and name, the tables cut in parts counted on the trace's threads. */
static int summarize(const tr_trace *t, trace_summary *s)
{
    size_t n_rows[TR_EV_KIND_COUNT], most = 0;
    tr_trace_event_counts(t, n_rows);
    for (int k = 0; k < TR_EV_KIND_COUNT; k++) most = n_rows[k] > most ? n_rows[k] : most;
    tally part[TR_POOL_MAX] = {{0}}; /* by worker */
    int threads = tr_pool_parts(tr_trace_threads(t), most, TR_POOL_ROWS);
    tally_job job = {
        t, (size_t)tr_pool_parts(threads > 1 ? threads * TALLY_PARTS : 1, most, TR_POOL_ROWS),
        tr_track_count(t), tr_str_count(t), part};
    int rc = tr_pool_run_on(threads, job.parts, tally_part, &job) == job.parts ? 0 : -1;
    for (int j = 0; j < threads; j++) rc |= part[j].failed ? -1 : 0;
    /* The sums go into the first worker's that took a part, moved to the front. */
    for (int j = 1; j < threads && !part[0].by_name; j++)
        if (part[j].by_name) {
            tally first = part[j];
            part[j] = part[0];
            part[0] = first;
        }
    tally *all = &part[0];
    rc |= all->by_name ? 0 : -1;
    for (int j = 1; j < threads && rc == 0; j++) {
        const tally *p = &part[j];
        if (!p->by_name) continue; /* took no part */
        if (p->first < all->first) all->first = p->first;
        if (p->last > all->last) all->last = p->last;
        for (size_t i = 0; i < job.n_tracks * TR_EV_KIND_COUNT; i++)
            all->track_events[i] += p->track_events[i];
        for (size_t i = 0; i < p->lim; i++) /* a slot never counted is not written */
            if (p->by_name[i]) all->by_name[i] += p->by_name[i];
        if (p->lim > all->lim) all->lim = p->lim;
    }
    for (int j = 1; j < threads; j++) {
        tr_free(part[j].track_events);
        tr_free(part[j].by_name);
    }
    uint64_t *by_name = all->by_name;
    s->track_events = all->track_events;
    if (rc != 0) {
        tr_free(by_name);
        return -1;
    }
    s->first = all->first;
    s->last = all->last;
    size_t lim = all->lim;
    tr_instants in;
    tr_trace_instants(t, &in);
    size_t n_strs = job.n_strs;
    size_t named = 0;
    for (size_t i = 0; i < lim; i++) named += by_name[i] != 0;
    s->names = tr_calloc(named ? named : 1, sizeof *s->names);
    if (!s->names) {
        tr_free(by_name);
        return -1;
    }
    for (size_t i = 0; i < lim; i++)
        if (by_name[i]) s->names[s->n_names++] = (name_count){(tr_str)i, by_name[i]};
    tr_qsort(s->names, s->n_names, sizeof *s->names, by_count_desc);
    /* the same tally for instant categories, reusing the per-string counts */
    memset(by_name, 0, lim * sizeof *by_name);
    size_t cats = 0;
    lim = 0;
    /* by runs of one category: a reader gives most or all of its instants the same */
    for (size_t i = 0, j; i < in.n; i = j) {
        tr_str cat = tr_instant_cat(&in, i);
        j = in.cat.p ? i + 1 : in.n;
        while (j < in.n && tr_instant_cat(&in, j) == cat) j++;
        if (!cat || cat >= n_strs) continue;
        if (by_name[cat] == 0) {
            cats++;
            if (cat >= lim) lim = (size_t)cat + 1;
        }
        by_name[cat] += j - i;
    }
    s->instant_cats = tr_calloc(cats ? cats : 1, sizeof *s->instant_cats);
    if (!s->instant_cats) {
        tr_free(by_name);
        return -1;
    }
    for (size_t i = 0; i < lim; i++)
        if (by_name[i]) s->instant_cats[s->n_instant_cats++] = (name_count){(tr_str)i, by_name[i]};
    tr_free(by_name);
    tr_qsort(s->instant_cats, s->n_instant_cats, sizeof *s->instant_cats, by_count_desc);
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
            tr_buf_add_duration(b, in->origin_precision_ns);
        }
        if (in->origin_from) tr_buf_addf(b, ", from %s", tr_str_get(t, in->origin_from, NULL));
        tr_buf_adds(b, "\n");
    } else if (in->origin_from) {
        tr_buf_addf(b, "  wall clock: unread (%s; use --tz)\n",
                    tr_str_get(t, in->origin_from, NULL));
    }
    if (!merged) return;
    tr_buf_adds(b, "  placed: ");
    tr_buf_add_duration(b, in->offset_ns);
    tr_buf_addf(b, " (%s)\n", tr_align_how_name(in->placed));
    for (size_t p = 0; p < tr_process_count(t); p++) {
        const tr_process *pr = tr_process_get(t, (uint32_t)p);
        if (pr->input != i || pr->offset_ns == in->offset_ns) continue;
        tr_buf_addf(b, "    %s", tr_str_get(t, pr->name, NULL));
        if (pr->rank >= 0) tr_buf_addf(b, " (rank %d)", pr->rank);
        tr_buf_adds(b, " placed at ");
        tr_buf_add_duration(b, pr->offset_ns);
        tr_buf_adds(b, "\n");
    }
    if (in->placed == TR_PLACED_GUESS)
        tr_buf_adds(b, "  warning: no wall clock: placed at the timeline's zero, a guess "
                       "(use --align or --align-on)\n");
    else if (in->placed == TR_PLACED_GUESS_ZONE)
        tr_buf_adds(b, "  warning: local time read in this machine's zone, a guess (use --tz)\n");
}

/* The rows of every table, as "counts" names them. */
enum { N_COUNTS = 9 };
static const char *const count_names[N_COUNTS] = {"processes", "tracks",   "slices",
                                                  "instants",  "counters", "samples",
                                                  "flows",     "frames",   "stacks"};

static void table_counts(const tr_trace *t, size_t *n)
{
    tr_slices sl;
    tr_instants ins;
    tr_counters cn;
    tr_samples sm;
    tr_trace_slices(t, &sl);
    tr_trace_instants(t, &ins);
    tr_trace_counters(t, &cn);
    tr_trace_samples(t, &sm);
    size_t v[N_COUNTS] = {
        tr_process_count(t), tr_track_count(t),    sl.n, ins.n, cn.n, sm.n, tr_flow_count(t),
        tr_frame_count(t),   tr_stack_count(t) - 1};
    memcpy(n, v, sizeof v);
}

static void text_inputs(const tr_trace *t, int merged, tr_buf *b)
{
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
}

/* ---- what was not read ---- */

static const char *const skip_names[] = {"",        "inside",   "recorder_output", "replaced",
                                         "unknown", "repeated", "tracecat_output"};

static const char *skip_reason(int why)
{
    switch (why) {
    case TR_SKIP_INSIDE:
        return "not read again: the directory or archive is read whole as one input";
    case TR_SKIP_RECORDER_OUTPUT:
        return "Recorder's own output (recorder2timeline, recorder2text): the trace is read from "
               "its directory";
    case TR_SKIP_REPLACED:
        return "replaced by a later member of the same name (tar's rule)";
    case TR_SKIP_UNKNOWN:
        return "not a trace tracecat knows";
    case TR_SKIP_OUTPUT:
        return "a SQLite database or Parquet data: not read in a run folder (tracecat's own "
               "would count its traces twice); name a database itself to read it";
    default:
        return "read once";
    }
}

/*
** One line per reason and owner, in the order they first come (a Recorder
** directory's _chrome/ and _text/ files sort among its own): how many, the
** first few names, why.  Without memory for the marks, runs of one.
*/
static void text_skipped(const tr_trace *t, tr_buf *b)
{
    size_t n = tr_skipped_count(t);
    if (!n) return;
    tr_buf_addf(b, "not read: %zu file%s\n", n, n == 1 ? "" : "s");
    unsigned char *done = tr_calloc(n, 1);
    for (size_t i = 0; i < n; i++) {
        if (done && done[i]) continue;
        const tr_skipped *s = tr_skipped_get(t, (uint32_t)i);
        size_t owner_n = 0;
        const char *owner = s->owner ? tr_str_get(t, s->owner, &owner_n) : NULL;
        tr_buf_adds(b, "  ");
        if (s->why == TR_SKIP_REPEATED) {
            tr_buf_addf(b, "%s: named before as %s: %s\n", tr_str_get(t, s->path, NULL), owner,
                        skip_reason(s->why));
            continue;
        }
        /* an archive of a run folder is "a.tgz:", a directory "run/job" */
        int colon = owner && owner_n && owner[owner_n - 1] == ':';
        size_t count = 0, last = i;
        for (size_t j = i; j < n; j++) {
            const tr_skipped *o = tr_skipped_get(t, (uint32_t)j);
            if (o->why == s->why && o->owner == s->owner) {
                if (done) done[j] = 1;
                count++;
                last = j;
            } else if (!done) {
                break;
            }
        }
        if (owner) tr_buf_addf(b, colon ? "%s " : "%s/: ", owner);
        if (count > 1) tr_buf_addf(b, "%zu files (", count);
        for (size_t k = i, shown = 0; k <= last && shown < 3; k++) {
            const tr_skipped *o = tr_skipped_get(t, (uint32_t)k);
            if (o->why != s->why || o->owner != s->owner) continue;
            const char *p = tr_str_get(t, o->path, NULL);
            if (owner) p += owner_n + !colon;
            tr_buf_addf(b, "%s%s", shown++ ? ", " : "", p);
        }
        tr_buf_addf(b, "%s: %s\n",
                    count > 3   ? ", ...)"
                    : count > 1 ? ")"
                                : "",
                    skip_reason(s->why));
        if (!done) i = last;
    }
    tr_free(done);
}

/* String S as JSON; null for none (0). */
static void json_id_or_null(tr_buf *b, const tr_trace *t, tr_str s)
{
    if (s)
        tr_buf_add_json_id(b, t, s);
    else
        tr_buf_adds(b, "null");
}

/* Only when something was not read: the outputs of every other run stay as they were. */
static void json_skipped(const tr_trace *t, tr_buf *b)
{
    if (!tr_skipped_count(t)) return;
    tr_buf_adds(b, ",\"not_read\":[");
    for (size_t i = 0; i < tr_skipped_count(t); i++) {
        const tr_skipped *s = tr_skipped_get(t, (uint32_t)i);
        tr_buf_adds(b, i ? ",{\"path\":" : "{\"path\":");
        tr_buf_add_json_id(b, t, s->path);
        tr_buf_adds(b, ",\"owner\":");
        json_id_or_null(b, t, s->owner);
        tr_buf_addf(b, ",\"why\":\"%s\"}", skip_names[s->why]);
    }
    tr_buf_adds(b, "]");
}

static void text_lanes(const tr_trace *t, const trace_summary *s, tr_buf *b)
{
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
}

static void info_text(const tr_trace *t, const trace_summary *s, tr_buf *b)
{
    text_inputs(t, placed(t), b);
    text_skipped(t, b);
    tr_rp_span(b, s->first <= s->last, s->first, s->last);
    size_t n[N_COUNTS];
    table_counts(t, n);
    for (size_t i = 0; i < N_COUNTS; i++)
        tr_buf_addf(b, "%s%s %zu", i ? ", " : "counts: ", count_names[i], n[i]);
    tr_buf_adds(b, "\n");
    text_lanes(t, s, b);
    tr_buf_adds(b, "top names:\n");
    for (size_t i = 0; i < s->n_names && i < 10 && s->names[i].count; i++)
        tr_buf_addf(b, "  %8llu  %s\n", (unsigned long long)s->names[i].count,
                    tr_str_get(t, s->names[i].name, NULL));
    if (s->n_instant_cats) tr_buf_adds(b, "instants by category:\n");
    for (size_t i = 0; i < s->n_instant_cats && i < 20; i++)
        tr_buf_addf(b, "  %8llu  %s\n", (unsigned long long)s->instant_cats[i].count,
                    tr_str_get(t, s->instant_cats[i].name, NULL));
}

/* Where a merge put input IN (one input keeps its times: nothing to say). */
static void json_placement(const tr_trace *t, const tr_input_info *in, tr_buf *b)
{
    tr_buf_adds(b, ",\"origin_unix_ns\":");
    if (in->origin_unix_ns != INT64_MIN)
        tr_buf_add_int(b, in->origin_unix_ns);
    else
        tr_buf_adds(b, "null");
    tr_buf_addf(b, ",\"precision_ns\":%lld,\"origin_from\":", (long long)in->origin_precision_ns);
    tr_buf_add_json_id(b, t, in->origin_from);
    tr_buf_addf(b, ",\"placed\":\"%s\",\"guess\":%s,\"offset_ns\":%lld",
                tr_align_how_name(in->placed), tr_align_is_guess(in->placed) ? "true" : "false",
                (long long)in->offset_ns);
}

static void json_inputs(const tr_trace *t, int merged, tr_buf *b)
{
    tr_buf_adds(b, "{\"inputs\":[");
    for (size_t i = 0; i < tr_input_count(t); i++) {
        const tr_input_info *in = tr_input_get(t, (uint32_t)i);
        tr_buf_adds(b, i ? ",{\"path\":" : "{\"path\":");
        tr_buf_add_json_id(b, t, in->path);
        tr_buf_adds(b, ",\"format\":");
        tr_buf_add_json_id(b, t, in->format);
        tr_buf_adds(b, ",\"origin\":");
        json_id_or_null(b, t, in->origin_wall);
        tr_buf_adds(b, ",\"clock\":");
        tr_buf_add_json_id(b, t, in->clock);
        tr_buf_addf(b, ",\"lines_skipped\":%llu,\"warnings\":%llu",
                    (unsigned long long)in->lines_skipped, (unsigned long long)in->warnings);
        if (merged) json_placement(t, in, b);
        tr_buf_adds(b, "}");
    }
    tr_buf_adds(b, "]");
    if (merged) {
        tr_buf_adds(b, ",\"timeline_origin_unix_ns\":");
        int64_t zero = tr_timeline_origin(t);
        if (zero != INT64_MIN)
            tr_buf_add_int(b, zero);
        else
            tr_buf_adds(b, "null");
    }
}

static void json_lanes(const tr_trace *t, const trace_summary *s, int merged, tr_buf *b)
{
    tr_buf_adds(b, ",\"lanes\":[");
    for (size_t i = 0; i < tr_track_count(t); i++) {
        const tr_track *tk = tr_track_get(t, (uint32_t)i);
        const tr_process *p = tr_process_get(t, tk->process);
        tr_buf_adds(b, i ? ",{\"process\":" : "{\"process\":");
        tr_buf_add_json_id(b, t, p->name);
        tr_buf_adds(b, ",\"track\":");
        tr_buf_add_json_id(b, t, tk->name);
        tr_buf_addf(b, ",\"kind\":\"%s\",\"rank\":%d", tr_track_kind_name(tk->kind), p->rank);
        if (merged)
            tr_buf_addf(b, ",\"input\":%u,\"offset_ns\":%lld", p->input, (long long)p->offset_ns);
        for (int k = 0; k < TR_EV_KIND_COUNT; k++)
            tr_buf_addf(b, ",\"%s\":%llu", kind_names[k],
                        (unsigned long long)s->track_events[i * TR_EV_KIND_COUNT + (size_t)k]);
        tr_buf_adds(b, "}");
    }
    tr_buf_adds(b, "]");
}

static void info_json(const tr_trace *t, const trace_summary *s, tr_buf *b)
{
    int merged = placed(t);
    json_inputs(t, merged, b);
    json_skipped(t, b);
    tr_buf_adds(b, ",\"span_ns\":");
    if (s->first <= s->last)
        tr_buf_addf(b, "[%lld,%lld]", (long long)s->first, (long long)s->last);
    else
        tr_buf_adds(b, "null");
    size_t n[N_COUNTS];
    table_counts(t, n);
    for (size_t i = 0; i < N_COUNTS; i++)
        tr_buf_addf(b, "%s\"%s\":%zu", i ? "," : ",\"counts\":{", count_names[i], n[i]);
    tr_buf_adds(b, "}");
    json_lanes(t, s, merged, b);
    tr_buf_adds(b, ",\"top_names\":[");
    for (size_t i = 0; i < s->n_names && i < 10 && s->names[i].count; i++) {
        tr_buf_adds(b, i ? ",{\"name\":" : "{\"name\":");
        tr_buf_add_json_id(b, t, s->names[i].name);
        tr_buf_addf(b, ",\"count\":%llu}", (unsigned long long)s->names[i].count);
    }
    tr_buf_adds(b, "],\"instant_categories\":[");
    for (size_t i = 0; i < s->n_instant_cats && i < 20; i++) {
        tr_buf_adds(b, i ? ",{\"category\":" : "{\"category\":");
        tr_buf_add_json_id(b, t, s->instant_cats[i].name);
        tr_buf_addf(b, ",\"count\":%llu}", (unsigned long long)s->instant_cats[i].count);
    }
    tr_buf_adds(b, "]}\n");
}

int tr_report_info(const tr_trace *t, int json, tr_buf *b, tr_error *e)
{
    trace_summary s = {0};
    int rc = summarize(t, &s);
    size_t start = b->len;
    if (rc == 0 && json) info_json(t, &s, b);
    if (rc == 0 && !json) {
        info_text(t, &s, b);
        rc = tr_buf_text_from(b, start, TR_TEXT_SHOW | TR_TEXT_KEEP_NL);
    }
    tr_free(s.track_events);
    tr_free(s.names);
    tr_free(s.instant_cats);
    return rc == 0 && !b->nomem ? TR_OK : tr_error_nomem(e);
}
