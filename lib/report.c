/*
** report.c: a report is the analyses of the sections asked, computed once;
** report_text.c, report_json.c and report_csv.c format it, report_info.c
** is tracecat info's overview.
*/
#include "analysis_impl.h"
#include "report_impl.h"
#include "tr_text.h"

#include <string.h>

static const char *const section_names[TR_REPORT_SECTION_COUNT] = {
    "overview", "lanes", "ops",           "io",         "hot", "stragglers",
    "hangs",    "gpu",   "gpu-breakdown", "gpu-kernels"};

const char *tr_report_section_name(int sec)
{
    return sec >= 0 && sec < TR_REPORT_SECTION_COUNT ? section_names[sec] : NULL;
}

int tr_report_section_find(const char *name, size_t n)
{
    for (int s = 0; s < TR_REPORT_SECTION_COUNT; s++)
        if (strlen(section_names[s]) == n && strncmp(name, section_names[s], n) == 0) return s;
    return -1;
}

void tr_report_opts_init(tr_report_opts *o)
{
    memset(o, 0, sizeof *o);
    o->sort = TR_OP_SORT_TOTAL;
    o->top = -1;
    o->width = 100;
    tr_stat_opts_init(&o->stat);
}

size_t tr_rp_top(const tr_report *r, size_t n, int human)
{
    long top = r->o.top >= 0 ? r->o.top : human ? 20 : 0;
    return top > 0 && (size_t)top < n ? (size_t)top : n;
}

/* The ops and hot tables come in the order the options ask. */
static void sort_tables(tr_report *r)
{
    const tr_trace *t = r->t;
    if (tr_rp_has(r, TR_REPORT_OPS)) {
        tr_op_stats_sort(t, r->ops.by_name, r->ops.n_names, r->o.sort);
        tr_op_stats_sort(t, r->ops.by_cat, r->ops.n_cats, r->o.sort);
    }
    if (tr_rp_has(r, TR_REPORT_HOT) && r->o.by_total) {
        tr_hot_table_sort(t, &r->hot.merged, 1);
        for (size_t i = 0; i < r->hot.n_threads; i++) tr_hot_table_sort(t, &r->hot.threads[i], 1);
    }
}

/* The sections tr_report_begin computes from events one at a time. */
#define STREAMED                                                                                   \
    (1u << TR_REPORT_OVERVIEW | 1u << TR_REPORT_LANES | 1u << TR_REPORT_OPS | 1u << TR_REPORT_IO | \
     1u << TR_REPORT_HOT | 1u << TR_REPORT_STRAGGLERS | 1u << TR_REPORT_HANGS |                    \
     1u << TR_REPORT_GPU)

/* The sections O asks for: by name, else every one up to gpu. */
static unsigned sections_wanted(const tr_report_opts *o)
{
    /* The HTA breakdowns are printed when asked by name: the default report stays as it was. */
    return o->sections ? o->sections : (1u << (TR_REPORT_GPU + 1)) - 1;
}

unsigned tr_report_unstreamed(const tr_report_opts *o)
{
    return sections_wanted(o) & ~STREAMED;
}

static tr_report *report_alloc(const tr_trace *t, const tr_report_opts *o)
{
    tr_report *r = tr_calloc(1, sizeof *r);
    if (!r) return NULL;
    r->t = t;
    r->reads_mark = tr_trace_read_failures(t);
    r->o = *o;
    r->want = sections_wanted(o);
    r->explicit_sections = o->sections != 0;
    r->first = INT64_MAX;
    r->last = INT64_MIN;
    return r;
}

/* Whether the io section, or the stragglers' I/O time, is wanted. */
static int wants_io(const tr_report *r)
{
    return tr_rp_has(r, TR_REPORT_IO) || tr_rp_has(r, TR_REPORT_STRAGGLERS);
}

static int accumulators_new(tr_report *r, tr_error *e)
{
    const tr_stat_opts *so = &r->o.stat;
    r->io_wanted = wants_io(r);
    if (tr_rp_has(r, TR_REPORT_LANES) && tr_lane_acc_new(r->t, so, &r->lane_acc, e) < 0)
        return TR_FATAL;
    if (tr_rp_has(r, TR_REPORT_OPS) && tr_op_acc_new(r->t, &r->op_acc, e) < 0) return TR_FATAL;
    if (tr_rp_has(r, TR_REPORT_HOT) && tr_hot_acc_new(r->t, so, &r->hot_acc, e) < 0)
        return TR_FATAL;
    if (tr_rp_has(r, TR_REPORT_STRAGGLERS) && tr_straggler_acc_new(r->t, so, &r->strag_acc, e) < 0)
        return TR_FATAL;
    if (tr_rp_has(r, TR_REPORT_GPU) && tr_gpu_acc_new(r->t, &r->gpu_acc, e) < 0) return TR_FATAL;
    if (tr_rp_has(r, TR_REPORT_HANGS) && (tr_stree_acc_new(r->t, &r->o.tree, &r->tree_acc, e) < 0 ||
                                          tr_hangs_acc_new(r->t, &r->hangs_acc, e) < 0))
        return TR_FATAL;
    return TR_OK;
}

static void accumulators_free(tr_report *r)
{
    tr_lane_acc_free(r->lane_acc);
    tr_op_acc_free(r->op_acc);
    tr_hot_acc_free(r->hot_acc);
    tr_straggler_acc_free(r->strag_acc);
    tr_gpu_acc_free(r->gpu_acc);
    tr_stree_acc_free(r->tree_acc);
    tr_hangs_acc_free(r->hangs_acc);
    tr_free(r->is_io);
    r->lane_acc = NULL;
    r->op_acc = NULL;
    r->hot_acc = NULL;
    r->strag_acc = NULL;
    r->gpu_acc = NULL;
    r->tree_acc = NULL;
    r->hangs_acc = NULL;
    r->is_io = NULL;
    r->n_str = 0;
}

int tr_report_begin(const tr_trace *t, const tr_report_opts *o, tr_report **out, tr_error *e)
{
    *out = NULL;
    unsigned other = tr_report_unstreamed(o);
    if (other) {
        int sec = 0;
        while (!(other >> sec & 1u)) sec++;
        return tr_errorf(e, TR_E_USAGE, NULL, "the %s section reads the whole trace",
                         tr_report_section_name(sec));
    }
    tr_report *r = report_alloc(t, o);
    if (!r) return tr_error_nomem(e);
    if (accumulators_new(r, e) != TR_OK) {
        tr_report_free(r);
        return TR_FATAL;
    }
    *out = r;
    return TR_OK;
}

int tr_report_add(tr_report *r, const tr_row_event *ev, tr_error *e)
{
    const tr_event_rec *x = &ev->rec;
    r->n_events[x->kind]++;
    tr_stat_span_add(&r->first, &r->last, x);
    if (r->io_wanted && x->kind == TR_EV_SLICE && x->u.s.name < tr_str_count(r->t)) {
        if (tr_an_grow(&r->is_io, &r->n_str, (size_t)x->u.s.name + 1, 1, -1) != TR_OK)
            return tr_error_nomem(e);
        int8_t *io = &r->is_io[x->u.s.name];
        if (*io < 0) *io = tr_io_kind_of(tr_str_get(r->t, x->u.s.name, NULL)) >= 0;
        r->io_calls += (uint64_t)*io;
    }
    if (r->lane_acc && tr_lane_acc_add(r->lane_acc, ev, e) < 0) return TR_FATAL;
    if (r->op_acc && tr_op_acc_add(r->op_acc, ev, e) < 0) return TR_FATAL;
    if (r->hot_acc && tr_hot_acc_add(r->hot_acc, ev, e) < 0) return TR_FATAL;
    if (r->strag_acc && tr_straggler_acc_add(r->strag_acc, ev, e) < 0) return TR_FATAL;
    if (r->gpu_acc && tr_gpu_acc_add(r->gpu_acc, ev, e) < 0) return TR_FATAL;
    if (r->tree_acc && tr_stree_acc_add(r->tree_acc, ev, e) < 0) return TR_FATAL;
    if (r->hangs_acc && tr_hangs_acc_add(r->hangs_acc, ev, e) < 0) return TR_FATAL;
    return TR_OK;
}

static int feed_report(void *user, const tr_row_event *ev, tr_error *e)
{
    return tr_report_add(user, ev, e);
}

/*
** The accumulators' results.  IO is the io section of the same events (the
** model's), for the stragglers' I/O time; NULL from a stream, which holds
** none: then the events must have had no I/O call, and the io section is
** that of the trace's dictionaries alone (no rank, layer or file), which it
** is for any trace without I/O calls.
*/
static int accumulators_end(tr_report *r, const tr_io_stats *io, tr_error *e)
{
    r->have_span = r->first <= r->last;
    if (!r->have_span) r->first = r->last = 0;
    if (r->lane_acc && tr_lane_acc_end(r->lane_acc, &r->lanes, e) < 0) return TR_FATAL;
    if (r->op_acc && tr_op_acc_end(r->op_acc, &r->ops, e) < 0) return TR_FATAL;
    if (r->hot_acc && tr_hot_acc_end(r->hot_acc, &r->hot, e) < 0) return TR_FATAL;
    if (r->gpu_acc && tr_gpu_acc_end(r->gpu_acc, &r->gpu, e) < 0) return TR_FATAL;
    if (r->tree_acc && tr_stree_acc_end(r->tree_acc, &r->tree, e) < 0) return TR_FATAL;
    if (r->hangs_acc && tr_hangs_acc_end(r->hangs_acc, &r->events, e) < 0) return TR_FATAL;
    tr_io_stats none = {0};
    if (!io && wants_io(r)) {
        if (r->io_calls)
            return tr_errorf(e, TR_E_USAGE, NULL,
                             "%llu I/O calls need the io section, which reads the whole trace",
                             (unsigned long long)r->io_calls);
        if (tr_io_stats_compute(r->t, &r->o.stat, &none, e) < 0) return TR_FATAL;
        if (tr_rp_has(r, TR_REPORT_IO)) r->io = none, none = (tr_io_stats){0};
        io = tr_rp_has(r, TR_REPORT_IO) ? &r->io : &none;
    }
    int rc = r->strag_acc ? tr_straggler_acc_end(r->strag_acc, io, &r->strag, e) : TR_OK;
    tr_io_stats_fini(&none);
    if (rc == TR_OK) accumulators_free(r);
    return rc;
}

int tr_report_end(tr_report *r, tr_error *e)
{
    int rc = accumulators_end(r, NULL, e);
    /* sections read args (I/O offsets, GPU streams): one not read for want of memory is missed */
    if (rc == TR_OK) rc = tr_trace_reads_ok(r->t, r->reads_mark, e);
    if (rc == TR_OK) sort_tables(r);
    return rc;
}

/* The sections that read the model's tables, after the accumulators met its rows. */
static int compute(tr_report *r, tr_error *e)
{
    const tr_trace *t = r->t;
    const tr_stat_opts *so = &r->o.stat;
    if (accumulators_new(r, e) != TR_OK || tr_stat_feed_model(t, feed_report, r, e) != TR_OK)
        return TR_FATAL;
    if (tr_rp_has(r, TR_REPORT_IO) && tr_io_stats_compute(t, so, &r->io, e) < 0) return TR_FATAL;
    tr_io_stats io = {0};
    int own = r->strag_acc && !tr_rp_has(r, TR_REPORT_IO);
    if (own && tr_io_stats_compute(t, so, &io, e) < 0) return TR_FATAL;
    int rc = accumulators_end(r, own ? &io : &r->io, e);
    tr_io_stats_fini(&io);
    if (rc < 0) return TR_FATAL;
    if (tr_rp_has(r, TR_REPORT_GPU_BREAKDOWN) && tr_gpu_breakdown_compute(t, so, &r->gpu_bd, e) < 0)
        return TR_FATAL;
    if (tr_rp_has(r, TR_REPORT_GPU_KERNELS) && (tr_gpu_kernels_compute(t, so, &r->gpu_k, e) < 0 ||
                                                tr_gpu_launches_compute(t, so, &r->gpu_l, e) < 0 ||
                                                tr_kernel_seqs_compute(t, so, &r->gpu_seq, e) < 0))
        return TR_FATAL;
    if (tr_trace_reads_ok(t, r->reads_mark, e) != TR_OK) return TR_FATAL;
    sort_tables(r);
    return TR_OK;
}

int tr_report_new(const tr_trace *t, const tr_report_opts *o, tr_report **out, tr_error *e)
{
    *out = NULL;
    tr_report *r = report_alloc(t, o);
    if (!r) return tr_error_nomem(e);
    if (compute(r, e) != TR_OK) {
        tr_report_free(r);
        return TR_FATAL;
    }
    *out = r;
    return TR_OK;
}

void tr_report_free(tr_report *r)
{
    if (!r) return;
    accumulators_free(r);
    tr_lane_stats_fini(&r->lanes);
    tr_op_stats_fini(&r->ops);
    tr_io_stats_fini(&r->io);
    tr_hot_stats_fini(&r->hot);
    tr_straggler_stats_fini(&r->strag);
    tr_stree_fini(&r->tree);
    tr_hangs_fini(&r->events);
    tr_gpu_stats_fini(&r->gpu);
    tr_gpu_breakdown_fini(&r->gpu_bd);
    tr_gpu_kernels_fini(&r->gpu_k);
    tr_gpu_launches_fini(&r->gpu_l);
    tr_kernel_seqs_fini(&r->gpu_seq);
    tr_free(r);
}

void tr_report_dot(const tr_report *r, tr_buf *b)
{
    tr_stree_dot(r->t, &r->tree, b);
}

void tr_report_text(const tr_report *r, tr_buf *b)
{
    static void (*const section[TR_REPORT_SECTION_COUNT])(const tr_report *, tr_buf *) = {
        tr_rp_text_overview,      tr_rp_text_lanes,      tr_rp_text_ops,   tr_rp_text_io,
        tr_rp_text_hot,           tr_rp_text_stragglers, tr_rp_text_hangs, tr_rp_text_gpu,
        tr_rp_text_gpu_breakdown, tr_rp_text_gpu_kernels};
    size_t start = b->len;
    for (int s = 0; s < TR_REPORT_SECTION_COUNT; s++)
        if (tr_rp_has(r, s)) section[s](r, b);
    tr_buf_text_from(b, start, TR_TEXT_SHOW | TR_TEXT_KEEP_NL);
}
