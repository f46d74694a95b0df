/*
** report_csv.c: one table of the report as CSV (RFC 4180 quoting), for
** scripts: a header line, then a row per lane, op, rank, file, function...
** with times in nanoseconds.
*/
#include "report_impl.h"
#include "tr_text.h"

#include <stdarg.h>
#include <string.h>

static void csv_field(tr_buf *b, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        tr_buf_adds(b, s);
        return;
    }
    tr_buf_addc(b, '"');
    for (; *s; s++) {
        if (*s == '"') tr_buf_addc(b, '"');
        tr_buf_addc(b, *s);
    }
    tr_buf_addc(b, '"');
}

/* One CSV row of N text fields, quoted where needed. */
static void csv_row(tr_buf *b, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++) {
        if (i) tr_buf_addc(b, ',');
        csv_field(b, va_arg(ap, const char *));
    }
    va_end(ap);
    tr_buf_addc(b, '\n');
}

static void csv_track(tr_buf *b, const tr_trace *t, uint32_t track)
{
    const tr_track *tk = tr_track_get(t, track);
    const tr_process *p = tr_process_get(t, tk->process);
    csv_field(b, tr_rp_str(t, p->name));
    tr_buf_addf(b, ",%lld,%d,", (long long)p->pid, p->rank);
    csv_field(b, tr_rp_str(t, tk->name));
    tr_buf_addf(b, ",%lld,%s", (long long)tk->tid, tr_track_kind_name(tk->kind));
}

static void csv_process(tr_buf *b, const tr_trace *t, uint32_t process)
{
    const tr_process *p = tr_process_get(t, process);
    tr_buf_addf(b, "%d,%lld,", p->rank, (long long)p->pid);
    csv_field(b, tr_rp_str(t, p->name));
}

static void csv_counts_head(tr_buf *b)
{
    tr_buf_adds(b, "bytes_read,bytes_written");
    for (int k = 0; k < TR_IO_KIND_COUNT; k++) tr_buf_addf(b, ",%s", tr_io_kind_name(k));
    tr_buf_adds(b, ",time_ns,read_time_ns,write_time_ns,failed,excluded");
}

static void csv_counts(tr_buf *b, const tr_io_counts *c)
{
    tr_buf_addf(b, "%lld,%lld", (long long)c->bytes_read, (long long)c->bytes_written);
    for (int k = 0; k < TR_IO_KIND_COUNT; k++)
        tr_buf_addf(b, ",%llu", (unsigned long long)c->ops[k]);
    tr_buf_addf(b, ",%lld,%lld,%lld,%llu,%llu", (long long)c->time, (long long)c->read_time,
                (long long)c->write_time, (unsigned long long)c->failed,
                (unsigned long long)c->excluded);
}

static void csv_ops(const tr_report *r, tr_buf *b, const tr_op_stat *v, size_t nv, const char *key)
{
    tr_buf_addf(b, "%s,count,total_ns,mean_ns,p50_ns,p95_ns,max_ns,bytes\n", key);
    size_t n = tr_rp_top(r, nv, 0);
    for (size_t i = 0; i < n; i++) {
        csv_field(b, tr_rp_str(r->t, v[i].key));
        tr_buf_addf(b, ",%llu,%lld,", (unsigned long long)v[i].count, (long long)v[i].total);
        tr_buf_add_real(b, v[i].mean);
        tr_buf_addf(b, ",%lld,%lld,%lld,", (long long)v[i].p50, (long long)v[i].p95,
                    (long long)v[i].max);
        if (v[i].bytes >= 0) tr_buf_addf(b, "%lld", (long long)v[i].bytes);
        tr_buf_addc(b, '\n');
    }
}

static void csv_lanes(const tr_report *r, tr_buf *b)
{
    const tr_trace *t = r->t;
    tr_buf_adds(b, "process,pid,rank,track,tid,kind,slices,ops,busy_ns,idle_ns,utilization\n");
    for (size_t i = 0; i < tr_rp_top(r, r->lanes.n, 0); i++) {
        const tr_lane_stat *l = &r->lanes.lanes[i];
        csv_track(b, t, l->track);
        tr_buf_addf(b, ",%llu,%llu,%lld,%lld,", (unsigned long long)l->slices,
                    (unsigned long long)l->ops, (long long)l->busy, (long long)l->idle);
        tr_buf_add_real(b, l->utilization);
        tr_buf_addc(b, '\n');
    }
}

static void csv_ops_by_name(const tr_report *r, tr_buf *b)
{
    csv_ops(r, b, r->ops.by_name, r->ops.n_names, "name");
}

static void csv_categories(const tr_report *r, tr_buf *b)
{
    csv_ops(r, b, r->ops.by_cat, r->ops.n_cats, "category");
}

static void csv_io_ranks(const tr_report *r, tr_buf *b)
{
    const tr_trace *t = r->t;
    tr_buf_adds(b, "rank,pid,process,");
    csv_counts_head(b);
    tr_buf_adds(b, ",run_time_ns,files,slowest\n");
    for (size_t i = 0; i < tr_rp_top(r, r->io.n_ranks, 0); i++) {
        const tr_io_rank *rk = &r->io.ranks[i];
        csv_process(b, t, rk->process);
        tr_buf_addc(b, ',');
        csv_counts(b, &rk->c);
        tr_buf_addf(b, ",%lld,%u,%d\n", (long long)rk->run_time, rk->files, i == r->io.slowest);
    }
}

static void csv_io_layers(const tr_report *r, tr_buf *b)
{
    const tr_trace *t = r->t;
    tr_buf_adds(b, "layer,");
    csv_counts_head(b);
    tr_buf_addc(b, '\n');
    for (size_t i = 0; i < r->io.n_layers; i++) {
        csv_field(b, tr_rp_str(t, r->io.layers[i].cat));
        tr_buf_addc(b, ',');
        csv_counts(b, &r->io.layers[i].c);
        tr_buf_addc(b, '\n');
    }
}

static void csv_io_files(const tr_report *r, tr_buf *b)
{
    const tr_trace *t = r->t;
    tr_buf_adds(b, "path,ranks,bytes_read,bytes_written,reads,writes,accesses,consecutive,"
                   "sequential,random,max_byte_read,max_byte_written,syncs\n");
    for (size_t i = 0; i < tr_rp_top(r, r->io.n_files, 0); i++) {
        const tr_io_file *f = &r->io.files[i];
        csv_field(b, tr_rp_str(t, f->path));
        tr_buf_addf(b, ",%u,%lld,%lld,%llu,%llu,%llu,%llu,%llu,%llu,%lld,%lld,%llu\n", f->ranks,
                    (long long)f->bytes_read, (long long)f->bytes_written,
                    (unsigned long long)f->reads, (unsigned long long)f->writes,
                    (unsigned long long)f->accesses, (unsigned long long)f->consecutive,
                    (unsigned long long)f->sequential,
                    (unsigned long long)(f->accesses - f->sequential), (long long)f->max_byte_read,
                    (long long)f->max_byte_written, (unsigned long long)f->syncs);
    }
}

/* One row per Darshan counter of each module present. */
static void csv_io_modules(const tr_report *r, tr_buf *b)
{
    csv_row(b, 4, "module", "records", "counter", "value");
    for (int m = 0; m < TR_IO_MODULES; m++) {
        const tr_io_module_stats *ms = &r->io.modules[m];
        for (int k = 0; k < TR_IO_DC_COUNT && ms->records; k++)
            if (tr_io_dc_name(m, k))
                tr_buf_addf(b, "%s,%llu,%s,%lld\n", tr_io_module_name(m),
                            (unsigned long long)ms->records, tr_io_dc_name(m, k),
                            (long long)ms->v[k]);
    }
}

static void csv_io_sizes(const tr_report *r, tr_buf *b)
{
    csv_row(b, 3, "size", "reads", "writes");
    for (int k = 0; k < TR_IO_BUCKETS; k++)
        tr_buf_addf(b, "%s,%llu,%llu\n", tr_io_bucket_name(k),
                    (unsigned long long)r->io.total.hist_read[k],
                    (unsigned long long)r->io.total.hist_write[k]);
}

static void csv_hot(const tr_report *r, tr_buf *b)
{
    const tr_trace *t = r->t;
    tr_buf_adds(b, "function,file,self,total,samples\n");
    const tr_hot_table *h = &r->hot.merged;
    for (size_t i = 0; i < tr_rp_top(r, h->n, 0); i++) {
        csv_field(b, tr_rp_str(t, h->fns[i].function));
        tr_buf_addc(b, ',');
        csv_field(b, tr_rp_str(t, h->fns[i].file));
        tr_buf_addf(b, ",%llu,%llu,%llu\n", (unsigned long long)h->fns[i].self,
                    (unsigned long long)h->fns[i].total, (unsigned long long)h->samples);
    }
}

static void csv_stragglers(const tr_report *r, tr_buf *b)
{
    const tr_trace *t = r->t;
    tr_buf_adds(b, "rank,pid,process,busy_ns,io_ns,step_ns,steps,busy_outlier,io_outlier,"
                   "step_outlier\n");
    for (size_t i = 0; i < tr_rp_top(r, r->strag.n, 0); i++) {
        const tr_rank_row *row = &r->strag.rows[i];
        csv_process(b, t, row->process);
        tr_buf_addf(b, ",%lld,%lld,", (long long)row->value[TR_METRIC_BUSY],
                    (long long)row->value[TR_METRIC_IO]);
        if (row->value[TR_METRIC_STEP] >= 0)
            tr_buf_addf(b, "%lld", (long long)row->value[TR_METRIC_STEP]);
        tr_buf_addf(b, ",%llu,%d,%d,%d\n", (unsigned long long)row->steps,
                    row->outlier[TR_METRIC_BUSY], row->outlier[TR_METRIC_IO],
                    row->outlier[TR_METRIC_STEP]);
    }
}

static void csv_hangs(const tr_report *r, tr_buf *b)
{
    const tr_trace *t = r->t;
    const tr_stree *s = &r->tree;
    tr_buf_adds(b, "process,pid,rank,track,tid,kind,ts_ns,samples,changes,frame,with\n");
    tr_buf cell;
    tr_buf_init(&cell, 0);
    for (size_t m = 0; m < tr_rp_top(r, s->n_members, 0); m++) {
        const tr_stree_member *mb = &s->members[m];
        const tr_stree_node *leaf = &s->nodes[mb->leaf];
        csv_track(b, t, mb->track);
        tr_buf_addf(b, ",%lld,%u,%u,", (long long)mb->ts, mb->samples, mb->changes);
        tr_buf_reset(&cell);
        tr_stree_frame_text(t, s, mb->leaf, &cell);
        csv_field(b, cell.p);
        tr_buf_addc(b, ',');
        tr_buf_reset(&cell);
        tr_stree_members_text(t, s, leaf->lo, leaf->hi, &cell);
        csv_field(b, cell.p);
        tr_buf_addc(b, '\n');
    }
    tr_buf_fini_into(&cell, b);
}

static void csv_gpu_streams(const tr_report *r, tr_buf *b)
{
    const tr_trace *t = r->t;
    tr_buf_adds(b, "process,pid,rank,track,tid,kind,busy_ns,idle_ns,kernels,kernel_ns,"
                   "memcpys,memcpy_ns,memsets,memset_ns,comm_ns\n");
    for (size_t i = 0; i < tr_rp_top(r, r->gpu.n_streams, 0); i++) {
        const tr_gpu_stream *s = &r->gpu.streams[i];
        csv_track(b, t, s->track);
        tr_buf_addf(b, ",%lld,%lld,%llu,%lld,%llu,%lld,%llu,%lld,%lld\n", (long long)s->busy,
                    (long long)s->idle, (unsigned long long)s->count[TR_GPU_KERNEL],
                    (long long)s->time[TR_GPU_KERNEL], (unsigned long long)s->count[TR_GPU_MEMCPY],
                    (long long)s->time[TR_GPU_MEMCPY], (unsigned long long)s->count[TR_GPU_MEMSET],
                    (long long)s->time[TR_GPU_MEMSET], (long long)s->comm);
    }
}

static void csv_gpu_devices(const tr_report *r, tr_buf *b)
{
    const tr_trace *t = r->t;
    tr_buf_adds(b, "rank,pid,process,kernel_ns,memcpy_ns,memset_ns,comm_ns,comm_wall_ns,"
                   "compute_wall_ns,overlap_ns\n");
    for (size_t i = 0; i < r->gpu.n_devices; i++) {
        const tr_gpu_device *d = &r->gpu.devices[i];
        csv_process(b, t, d->process);
        tr_buf_addf(b, ",%lld,%lld,%lld,%lld,%lld,%lld,%lld\n", (long long)d->time[TR_GPU_KERNEL],
                    (long long)d->time[TR_GPU_MEMCPY], (long long)d->time[TR_GPU_MEMSET],
                    (long long)d->comm, (long long)d->comm_wall, (long long)d->compute_wall,
                    (long long)d->overlap);
    }
}

/* The CSV tables, the section each comes from, and what prints it. */
static const struct {
    const char *name;
    int sec;
    void (*print)(const tr_report *r, tr_buf *b);
} csv_tables[] = {
    {"lanes", TR_REPORT_LANES, csv_lanes},
    {"ops", TR_REPORT_OPS, csv_ops_by_name},
    {"categories", TR_REPORT_OPS, csv_categories},
    {"io-ranks", TR_REPORT_IO, csv_io_ranks},
    {"io-layers", TR_REPORT_IO, csv_io_layers},
    {"io-files", TR_REPORT_IO, csv_io_files},
    {"io-modules", TR_REPORT_IO, csv_io_modules},
    {"io-sizes", TR_REPORT_IO, csv_io_sizes},
    {"hot", TR_REPORT_HOT, csv_hot},
    {"stragglers", TR_REPORT_STRAGGLERS, csv_stragglers},
    {"hangs", TR_REPORT_HANGS, csv_hangs},
    {"gpu-streams", TR_REPORT_GPU, csv_gpu_streams},
    {"gpu-devices", TR_REPORT_GPU, csv_gpu_devices},
};

static int csv_find(const char *name)
{
    for (size_t i = 0; i < sizeof csv_tables / sizeof *csv_tables; i++)
        if (strcmp(name, csv_tables[i].name) == 0) return (int)i;
    return -1;
}

int tr_report_csv_section(const char *name)
{
    int i = csv_find(name);
    return i < 0 ? -1 : csv_tables[i].sec;
}

int tr_report_csv(const tr_report *r, const char *name, tr_buf *b)
{
    int i = csv_find(name);
    if (i < 0) return TR_FAIL;
    csv_tables[i].print(r, b);
    return TR_OK;
}
