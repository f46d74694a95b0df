/*
** report_json.c: the report as one JSON object, schema "tracestat/1"
** (README.md documents it): times in nanoseconds, names as the trace has
** them, every row unless --top cuts the tables.
*/
#include "report_impl.h"

#include <stdlib.h>
#include "tr_text.h"

#include <string.h>

static void js(tr_buf *b, const char *s)
{
    tr_buf_add_json_str(b, s, strlen(s));
}

/* The fields naming a track: process, pid, rank, track, tid, kind. */
static void js_track(tr_buf *b, const tr_trace *t, uint32_t track)
{
    const tr_track *tk = tr_track_get(t, track);
    const tr_process *p = tr_process_get(t, tk->process);
    tr_buf_adds(b, "\"process\":");
    tr_buf_add_json_id(b, t, p->name);
    tr_buf_addf(b, ",\"pid\":%lld,\"rank\":%d,\"track\":", (long long)p->pid, p->rank);
    tr_buf_add_json_id(b, t, tk->name);
    tr_buf_addf(b, ",\"tid\":%lld,\"kind\":\"%s\"", (long long)tk->tid,
                tr_track_kind_name(tk->kind));
}

static void js_process(tr_buf *b, const tr_trace *t, uint32_t process)
{
    const tr_process *p = tr_process_get(t, process);
    tr_buf_addf(b, "\"rank\":%d,\"pid\":%lld,\"process\":", p->rank, (long long)p->pid);
    tr_buf_add_json_id(b, t, p->name);
}

void tr_rp_json_track(tr_buf *b, const tr_trace *t, uint32_t track)
{
    js_track(b, t, track);
}

void tr_rp_json_process(tr_buf *b, const tr_trace *t, uint32_t process)
{
    js_process(b, t, process);
}

static void json_lanes(const tr_report *r, tr_buf *b)
{
    tr_buf_adds(b, ",\"lanes\":[");
    size_t n = tr_rp_top(r, r->lanes.n, 0);
    for (size_t i = 0; i < n; i++) {
        const tr_lane_stat *l = &r->lanes.lanes[i];
        tr_buf_adds(b, i ? ",{" : "{");
        js_track(b, r->t, l->track);
        tr_buf_addf(b,
                    ",\"slices\":%llu,\"ops\":%llu,\"busy_ns\":%lld,\"idle_ns\":%lld,"
                    "\"utilization\":",
                    (unsigned long long)l->slices, (unsigned long long)l->ops, (long long)l->busy,
                    (long long)l->idle);
        tr_buf_add_real(b, l->utilization);
        tr_buf_adds(b, ",\"ops_by_name\":[");
        for (size_t k = 0; k < l->n_names; k++) {
            tr_buf_adds(b, k ? ",{\"name\":" : "{\"name\":");
            tr_buf_add_json_id(b, r->t, l->names[k].name);
            tr_buf_addf(b, ",\"count\":%llu}", (unsigned long long)l->names[k].count);
        }
        tr_buf_adds(b, "],\"idle_gaps\":[");
        for (size_t g = 0; g < l->n_gaps; g++)
            tr_buf_addf(b, "%s{\"ts_ns\":%lld,\"dur_ns\":%lld}", g ? "," : "",
                        (long long)l->gaps[g].ts, (long long)l->gaps[g].dur);
        tr_buf_adds(b, "]}");
    }
    tr_buf_adds(b, "]");
}

static void json_op_list(const tr_report *r, tr_buf *b, const tr_op_stat *v, size_t nv,
                         const char *key)
{
    size_t n = tr_rp_top(r, nv, 0);
    tr_buf_adds(b, "[");
    for (size_t i = 0; i < n; i++) {
        const tr_op_stat *o = &v[i];
        tr_buf_addf(b, "%s{\"%s\":", i ? "," : "", key);
        tr_buf_add_json_id(b, r->t, o->key);
        tr_buf_addf(b,
                    ",\"count\":%llu,\"total_ns\":%lld,\"mean_ns\":", (unsigned long long)o->count,
                    (long long)o->total);
        tr_buf_add_real(b, o->mean);
        tr_buf_addf(b, ",\"p50_ns\":%lld,\"p95_ns\":%lld,\"max_ns\":%lld,\"bytes\":",
                    (long long)o->p50, (long long)o->p95, (long long)o->max);
        if (o->bytes >= 0)
            tr_buf_addf(b, "%lld}", (long long)o->bytes);
        else
            tr_buf_adds(b, "null}");
    }
    tr_buf_adds(b, "]");
}

static void json_ops(const tr_report *r, tr_buf *b)
{
    tr_buf_adds(b, ",\"ops\":{\"by_name\":");
    json_op_list(r, b, r->ops.by_name, r->ops.n_names, "name");
    tr_buf_adds(b, ",\"by_category\":");
    json_op_list(r, b, r->ops.by_cat, r->ops.n_cats, "category");
    tr_buf_adds(b, "}");
}

static void json_counts(tr_buf *b, const tr_io_counts *c)
{
    tr_buf_addf(b, "\"bytes_read\":%lld,\"bytes_written\":%lld,\"ops\":{", (long long)c->bytes_read,
                (long long)c->bytes_written);
    for (int k = 0; k < TR_IO_KIND_COUNT; k++)
        tr_buf_addf(b, "%s\"%s\":%llu", k ? "," : "", tr_io_kind_name(k),
                    (unsigned long long)c->ops[k]);
    tr_buf_addf(b,
                "},\"time_ns\":%lld,\"read_time_ns\":%lld,\"write_time_ns\":%lld,"
                "\"meta_time_ns\":%lld,\"sizes_read\":[",
                (long long)c->time, (long long)c->read_time, (long long)c->write_time,
                (long long)(c->time - c->read_time - c->write_time));
    for (int k = 0; k < TR_IO_BUCKETS; k++)
        tr_buf_addf(b, "%s%llu", k ? "," : "", (unsigned long long)c->hist_read[k]);
    tr_buf_adds(b, "],\"sizes_written\":[");
    for (int k = 0; k < TR_IO_BUCKETS; k++)
        tr_buf_addf(b, "%s%llu", k ? "," : "", (unsigned long long)c->hist_write[k]);
    tr_buf_addf(b, "],\"failed\":%llu,\"excluded\":%llu", (unsigned long long)c->failed,
                (unsigned long long)c->excluded);
}

static void json_io(const tr_report *r, tr_buf *b)
{
    const tr_io_stats *io = &r->io;
    tr_buf_adds(b, ",\"io\":{\"size_buckets\":[");
    for (int k = 0; k < TR_IO_BUCKETS; k++) {
        if (k) tr_buf_addc(b, ',');
        js(b, tr_io_bucket_name(k));
    }
    tr_buf_adds(b, "],\"total\":{");
    json_counts(b, &io->total);
    tr_buf_addf(b, "},\"shared_files\":%u,\"bytes_requested_calls\":%llu,", io->shared_files,
                (unsigned long long)io->requested);
    tr_buf_addf(b, "\"calls_without_return_value\":%llu,", (unsigned long long)io->no_ret);
    tr_buf_addf(b, "\"unplaced_accesses\":%llu,", (unsigned long long)io->unplaced);
    tr_buf_addf(b, "\"excluded_calls\":%llu,\"excluded_files\":%zu,\"exclude\":",
                (unsigned long long)io->excluded_calls, io->excluded_files);
    js(b, r->o.stat.io_exclude ? r->o.stat.io_exclude : TR_IO_EXCLUDE);
    tr_buf_adds(b, ",\"bandwidth_bps\":");
    tr_buf_add_real(b, io->bandwidth);
    tr_buf_adds(b, ",\"ranks\":[");
    size_t n = tr_rp_top(r, io->n_ranks, 0);
    for (size_t i = 0; i < n; i++) {
        const tr_io_rank *rk = &io->ranks[i];
        tr_buf_adds(b, i ? ",{" : "{");
        js_process(b, r->t, rk->process);
        tr_buf_adds(b, ",");
        json_counts(b, &rk->c);
        tr_buf_addf(b, ",\"run_time_ns\":%lld,\"files\":%u,\"slowest\":%s}",
                    (long long)rk->run_time, rk->files, i == io->slowest ? "true" : "false");
    }
    tr_buf_adds(b, "],\"layers\":[");
    for (size_t i = 0; i < io->n_layers; i++) {
        tr_buf_adds(b, i ? ",{\"layer\":" : "{\"layer\":");
        tr_buf_add_json_id(b, r->t, io->layers[i].cat);
        tr_buf_adds(b, ",");
        json_counts(b, &io->layers[i].c);
        tr_buf_adds(b, "}");
    }
    tr_buf_adds(b, "],\"modules\":[");
    int any = 0;
    for (int m = 0; m < TR_IO_MODULES; m++) {
        const tr_io_module_stats *ms = &io->modules[m];
        if (!ms->records) continue;
        tr_buf_adds(b, any++ ? ",{\"module\":" : "{\"module\":");
        js(b, tr_io_module_name(m));
        tr_buf_addf(b, ",\"records\":%llu,\"counters\":{", (unsigned long long)ms->records);
        int k1 = 0;
        for (int k = 0; k < TR_IO_DC_COUNT; k++) {
            const char *name = tr_io_dc_name(m, k);
            if (!name) continue;
            if (k1++) tr_buf_addc(b, ',');
            js(b, name);
            tr_buf_addf(b, ":%lld", (long long)ms->v[k]);
        }
        tr_buf_adds(b, "}}");
    }
    tr_buf_adds(b, "],\"files\":[");
    n = tr_rp_top(r, io->n_files, 0);
    for (size_t i = 0; i < n; i++) {
        const tr_io_file *f = &io->files[i];
        tr_buf_adds(b, i ? ",{\"path\":" : "{\"path\":");
        tr_buf_add_json_id(b, r->t, f->path);
        tr_buf_addf(
            b,
            ",\"ranks\":%u,\"bytes_read\":%lld,\"bytes_written\":%lld,\"reads\":%llu,"
            "\"writes\":%llu,\"accesses\":%llu,\"consecutive\":%llu,\"sequential\":%llu,"
            "\"random\":%llu,\"max_byte_read\":%lld,\"max_byte_written\":%lld,\"syncs\":%llu}",
            f->ranks, (long long)f->bytes_read, (long long)f->bytes_written,
            (unsigned long long)f->reads, (unsigned long long)f->writes,
            (unsigned long long)f->accesses, (unsigned long long)f->consecutive,
            (unsigned long long)f->sequential, (unsigned long long)(f->accesses - f->sequential),
            (long long)f->max_byte_read, (long long)f->max_byte_written,
            (unsigned long long)f->syncs);
    }
    tr_buf_adds(b, "]}");
}

static void json_hot_table(const tr_report *r, tr_buf *b, const tr_hot_table *h)
{
    tr_buf_addf(b, "\"samples\":%llu,\"frameless\":%llu,\"functions\":[",
                (unsigned long long)h->samples, (unsigned long long)h->frameless);
    size_t n = tr_rp_top(r, h->n, 0);
    for (size_t i = 0; i < n; i++) {
        tr_buf_adds(b, i ? ",{\"function\":" : "{\"function\":");
        tr_buf_add_json_id(b, r->t, h->fns[i].function);
        tr_buf_adds(b, ",\"file\":");
        tr_buf_add_json_id(b, r->t, h->fns[i].file);
        tr_buf_addf(b, ",\"self\":%llu,\"total\":%llu}", (unsigned long long)h->fns[i].self,
                    (unsigned long long)h->fns[i].total);
    }
    tr_buf_adds(b, "]");
}

static void json_hot(const tr_report *r, tr_buf *b)
{
    tr_buf_adds(b, ",\"hot\":{");
    json_hot_table(r, b, &r->hot.merged);
    tr_buf_adds(b, ",\"threads\":[");
    for (size_t i = 0; i < r->hot.n_threads; i++) {
        tr_buf_adds(b, i ? ",{" : "{");
        js_track(b, r->t, r->hot.threads[i].track);
        tr_buf_adds(b, ",");
        json_hot_table(r, b, &r->hot.threads[i]);
        tr_buf_adds(b, "}");
    }
    tr_buf_adds(b, "]}");
}

static void json_stragglers(const tr_report *r, tr_buf *b)
{
    const tr_straggler_stats *s = &r->strag;
    tr_buf_adds(b, ",\"stragglers\":{\"k\":");
    tr_buf_add_real(b, s->k);
    tr_buf_adds(b, ",\"metrics\":{");
    for (int m = 0; m < TR_METRIC_COUNT; m++) {
        tr_buf_addf(b, "%s\"%s\":", m ? "," : "", tr_rank_metric_name(m));
        if (s->has[m])
            tr_buf_addf(b, "{\"median_ns\":%lld,\"mad_ns\":%lld}", (long long)s->median[m],
                        (long long)s->mad[m]);
        else
            tr_buf_adds(b, "null");
    }
    tr_buf_adds(b, "},\"ranks\":[");
    size_t n = tr_rp_top(r, s->n, 0);
    for (size_t i = 0; i < n; i++) {
        const tr_rank_row *row = &s->rows[i];
        tr_buf_adds(b, i ? ",{" : "{");
        js_process(b, r->t, row->process);
        tr_buf_addf(b, ",\"busy_ns\":%lld,\"io_ns\":%lld,\"step_ns\":",
                    (long long)row->value[TR_METRIC_BUSY], (long long)row->value[TR_METRIC_IO]);
        if (row->value[TR_METRIC_STEP] >= 0)
            tr_buf_addf(b, "%lld", (long long)row->value[TR_METRIC_STEP]);
        else
            tr_buf_adds(b, "null");
        tr_buf_addf(b, ",\"steps\":%llu,\"outliers\":{", (unsigned long long)row->steps);
        int first = 1;
        for (int m = 0; m < TR_METRIC_COUNT; m++) {
            if (!row->outlier[m]) continue;
            tr_buf_addf(b, "%s\"%s\":\"%s\"", first ? "" : ",", tr_rank_metric_name(m),
                        row->outlier[m] > 0 ? "high" : "low");
            first = 0;
        }
        tr_buf_adds(b, "}}");
    }
    tr_buf_adds(b, "]}");
}

/* Leaves of the stack tree: the groups of members whose last stacks are the same. */
static const tr_stree *group_tree;

static int group_cmp(const void *pa, const void *pb)
{
    const tr_stree_node *a = &group_tree->nodes[*(const uint32_t *)pa];
    const tr_stree_node *b = &group_tree->nodes[*(const uint32_t *)pb];
    if (a->ends != b->ends) return a->ends < b->ends ? -1 : 1;
    uint32_t ta = group_tree->members[group_tree->order[a->lo]].track;
    uint32_t tb = group_tree->members[group_tree->order[b->lo]].track;
    return (ta > tb) - (ta < tb);
}

/* One group: its members' common stack, innermost frame first, and the members. */
static void json_group(const tr_report *r, uint32_t n, tr_buf *b)
{
    const tr_stree *s = &r->tree;
    const tr_stree_node *nd = &s->nodes[n];
    tr_buf_addf(b, "{\"count\":%u,\"stack\":[", nd->ends);
    for (uint32_t v = n; v && v != TR_NONE; v = s->nodes[v].parent) {
        const tr_frame *f = tr_frame_get(r->t, s->nodes[v].frame);
        tr_buf_adds(b, v == n ? "{\"function\":" : ",{\"function\":");
        tr_buf_add_json_id(b, r->t, f->function);
        tr_buf_adds(b, ",\"file\":");
        tr_buf_add_json_id(b, r->t, f->file);
        tr_buf_addf(b, ",\"line\":%d}", f->line);
    }
    tr_buf_adds(b, "],\"members\":[");
    for (uint32_t k = nd->lo; k < nd->lo + nd->ends; k++) {
        const tr_stree_member *m = &s->members[s->order[k]];
        tr_buf_adds(b, k > nd->lo ? ",{" : "{");
        js_track(b, r->t, m->track);
        tr_buf_addf(b, ",\"ts_ns\":%lld}", (long long)m->ts);
    }
    tr_buf_adds(b, "]}");
}

/*
** "threads" and "groups" (identical last stacks, the smallest group first)
** as tracestat/1 had them, then the stack tree and the event checks.
*/
static void json_hangs(const tr_report *r, tr_buf *b)
{
    const tr_stree *s = &r->tree;
    uint32_t *leaves = tr_malloc((s->n_nodes ? s->n_nodes : 1) * sizeof *leaves);
    if (!leaves) b->nomem = 1; /* no groups: lost from B */
    size_t n = 0;
    for (size_t v = 0; leaves && v < s->n_nodes; v++)
        if (s->nodes[v].ends) leaves[n++] = (uint32_t)v;
    group_tree = s;
    if (n > 1) tr_qsort(leaves, n, sizeof *leaves, group_cmp);
    tr_buf_addf(b, ",\"hangs\":{\"threads\":%zu,\"groups\":[", s->n_members);
    for (size_t g = 0; g < tr_rp_top(r, n, 0); g++) {
        if (g) tr_buf_addc(b, ',');
        json_group(r, leaves[g], b);
    }
    tr_free(leaves);
    tr_buf_adds(b, "],\"tree\":");
    /* what these could not allocate is lost from B (tr_buf.nomem) */
    if (tr_stree_json(r->t, s, b) != TR_OK) b->nomem = 1;
    tr_buf_adds(b, ",\"events\":");
    if (tr_hangs_json(r->t, &r->events, b) != TR_OK) b->nomem = 1;
    tr_buf_adds(b, "}");
}

static void json_gpu(const tr_report *r, tr_buf *b)
{
    const tr_gpu_stats *g = &r->gpu;
    tr_buf_adds(b, ",\"gpu\":{\"streams\":[");
    size_t n = tr_rp_top(r, g->n_streams, 0);
    for (size_t i = 0; i < n; i++) {
        const tr_gpu_stream *s = &g->streams[i];
        tr_buf_adds(b, i ? ",{" : "{");
        js_track(b, r->t, s->track);
        tr_buf_addf(b,
                    ",\"busy_ns\":%lld,\"idle_ns\":%lld,\"kernels\":%llu,\"kernel_ns\":%lld,"
                    "\"memcpys\":%llu,\"memcpy_ns\":%lld,\"memsets\":%llu,\"memset_ns\":%lld,"
                    "\"comm_ns\":%lld}",
                    (long long)s->busy, (long long)s->idle,
                    (unsigned long long)s->count[TR_GPU_KERNEL], (long long)s->time[TR_GPU_KERNEL],
                    (unsigned long long)s->count[TR_GPU_MEMCPY], (long long)s->time[TR_GPU_MEMCPY],
                    (unsigned long long)s->count[TR_GPU_MEMSET], (long long)s->time[TR_GPU_MEMSET],
                    (long long)s->comm);
    }
    tr_buf_adds(b, "],\"devices\":[");
    for (size_t i = 0; i < g->n_devices; i++) {
        const tr_gpu_device *d = &g->devices[i];
        tr_buf_adds(b, i ? ",{" : "{");
        js_process(b, r->t, d->process);
        tr_buf_addf(b,
                    ",\"kernel_ns\":%lld,\"memcpy_ns\":%lld,\"memset_ns\":%lld,\"comm_ns\":%lld,"
                    "\"comm_wall_ns\":%lld,\"compute_wall_ns\":%lld,\"overlap_ns\":%lld}",
                    (long long)d->time[TR_GPU_KERNEL], (long long)d->time[TR_GPU_MEMCPY],
                    (long long)d->time[TR_GPU_MEMSET], (long long)d->comm, (long long)d->comm_wall,
                    (long long)d->compute_wall, (long long)d->overlap);
    }
    tr_buf_adds(b, "]}");
}

void tr_report_json(const tr_report *r, tr_buf *b)
{
    const tr_trace *t = r->t;
    tr_buf_adds(b, "{\"schema\":\"tracestat/1\",\"inputs\":[");
    for (size_t i = 0; i < tr_input_count(t); i++) {
        const tr_input_info *in = tr_input_get(t, (uint32_t)i);
        tr_buf_adds(b, i ? ",{\"path\":" : "{\"path\":");
        tr_buf_add_json_id(b, t, in->path);
        tr_buf_adds(b, ",\"format\":");
        tr_buf_add_json_id(b, t, in->format);
        tr_buf_addf(b, ",\"lines_skipped\":%llu,\"warnings\":%llu}",
                    (unsigned long long)in->lines_skipped, (unsigned long long)in->warnings);
    }
    tr_buf_adds(b, "],\"span_ns\":");
    if (r->have_span)
        tr_buf_addf(b, "[%lld,%lld]", (long long)r->first, (long long)r->last);
    else
        tr_buf_adds(b, "null");
    if (tr_rp_has(r, TR_REPORT_LANES)) json_lanes(r, b);
    if (tr_rp_has(r, TR_REPORT_OPS)) json_ops(r, b);
    if (tr_rp_has(r, TR_REPORT_IO)) json_io(r, b);
    if (tr_rp_has(r, TR_REPORT_HOT)) json_hot(r, b);
    if (tr_rp_has(r, TR_REPORT_STRAGGLERS)) json_stragglers(r, b);
    if (tr_rp_has(r, TR_REPORT_HANGS)) json_hangs(r, b);
    if (tr_rp_has(r, TR_REPORT_GPU)) json_gpu(r, b);
    if (tr_rp_has(r, TR_REPORT_GPU_BREAKDOWN)) tr_rp_json_gpu_breakdown(r, b);
    if (tr_rp_has(r, TR_REPORT_GPU_KERNELS)) tr_rp_json_gpu_kernels(r, b);
    tr_buf_adds(b, "}\n");
}
