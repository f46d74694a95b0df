/*
** report_gpu.c: the HTA breakdowns (gpu-breakdown, gpu-kernels) as text
** tables and JSON.  The text shortens kernel names the way HTA prints them
** (tr_kernel_short_name); JSON keeps the full name beside the short one.
*/
#include "report_impl.h"

#include "tr_text.h"

#include <math.h>
#include <string.h>

/* ---- text ---- */

/* "12.3ms  45.6%" cells: a duration and its share of WHOLE. */
static void rg_cell_share(tr_rp_table *tb, tr_buf *cell, int64_t ns, int64_t whole)
{
    tr_rp_cell_duration(tb, ns);
    tr_buf_reset(cell);
    tr_rp_pct(cell, (double)ns, (double)whole);
    tr_rp_cell(tb, "%s", cell->p);
}

static void rg_devices(const tr_report *r, tr_buf *b, tr_buf *cell)
{
    static const char *const heads[] = {"device",  "events", "span",        "idle", "",
                                        "compute", "",       "non-compute", ""};
    const tr_gpu_breakdown *g = &r->gpu_bd;
    tr_rp_table tb;
    tr_rp_table_init(&tb, "lrrrrrrrr", 0);
    tr_rp_cells(&tb, heads, 9);
    for (size_t i = 0; i < g->n_devices; i++) {
        const tr_gpu_time *d = &g->devices[i];
        tr_buf_reset(cell);
        tr_rp_process_label(cell, r->t, tr_process_get(r->t, d->process));
        tr_rp_cell(&tb, "%s", cell->p);
        tr_rp_cell(&tb, "%llu", (unsigned long long)d->events);
        int64_t span = d->last - d->first;
        tr_rp_cell_duration(&tb, span);
        rg_cell_share(&tb, cell, d->idle, span);
        rg_cell_share(&tb, cell, d->compute, span);
        rg_cell_share(&tb, cell, d->non_compute, span);
    }
    tr_rp_table_print(r, &tb, b);
    tr_rp_table_fini(&tb);
}

static void rg_streams(const tr_report *r, tr_buf *b, tr_buf *cell)
{
    static const char *const heads[] = {"stream",      "idle", "host wait", "",
                                        "kernel wait", "",     "other",     ""};
    const tr_gpu_breakdown *g = &r->gpu_bd;
    tr_buf_reset(cell);
    tr_buf_adds(cell, "GPU idle time per stream (host wait: launched after the previous "
                      "event ended; kernel wait: a shorter gap than ");
    tr_buf_add_duration(cell, g->kernel_wait);
    tr_buf_adds(cell, ")");
    tr_rp_heading(r, b, cell->p);
    tr_rp_table tb;
    tr_rp_table_init(&tb, "lrrrrrrr", 0);
    tr_rp_cells(&tb, heads, 8);
    size_t n = tr_rp_top(r, g->n_streams, 1);
    for (size_t i = 0; i < n; i++) {
        const tr_gpu_idle *s = &g->streams[i];
        tr_buf_reset(cell);
        tr_rp_track_label(cell, r->t, s->track);
        tr_rp_cell(&tb, "%s", cell->p);
        tr_rp_cell_duration(&tb, s->idle);
        for (int c = 0; c < TR_IDLE_COUNT; c++) rg_cell_share(&tb, cell, s->time[c], s->idle);
    }
    tr_rp_table_print(r, &tb, b);
    if (n < g->n_streams) tr_buf_addf(b, "... %zu more streams\n", g->n_streams - n);
    tr_rp_table_fini(&tb);
}

static void rg_queues(const tr_report *r, tr_buf *b, tr_buf *cell)
{
    static const char *const heads[] = {"stream", "points", "max", "time at max", "mean"};
    const tr_gpu_breakdown *g = &r->gpu_bd;
    if (!g->n_queues) return;
    tr_rp_heading(r, b,
                  "GPU launch queue per stream (launched, not yet started; HTA's queue length)");
    tr_rp_table tb;
    tr_rp_table_init(&tb, "lrrrr", 0);
    tr_rp_cells(&tb, heads, 5);
    size_t n = tr_rp_top(r, g->n_queues, 1);
    for (size_t i = 0; i < n; i++) {
        const tr_gpu_queue *q = &g->queues[i];
        tr_buf_reset(cell);
        tr_rp_track_label(cell, r->t, q->track);
        tr_rp_cell(&tb, "%s", cell->p);
        tr_rp_cell(&tb, "%llu", (unsigned long long)q->points);
        tr_rp_cell(&tb, "%lld", (long long)q->max);
        tr_rp_cell_duration(&tb, q->at_max);
        tr_rp_cell(&tb, "%.2f", q->mean);
    }
    tr_rp_table_print(r, &tb, b);
    if (n < g->n_queues) tr_buf_addf(b, "... %zu more streams\n", g->n_queues - n);
    tr_rp_table_fini(&tb);
}

/* A GB/s cell with 3 decimals (the counters are Kineto's floats). */
static void rg_cell_gbps(tr_rp_table *tb, double v)
{
    if (v != v)
        tr_rp_cell(tb, "-");
    else
        tr_rp_cell(tb, "%.3f", v);
}

static void rg_membw(const tr_report *r, tr_buf *b, tr_buf *cell)
{
    static const char *const heads[] = {"rank", "kind", "events", "points", "mean",
                                        "std",  "min",  "median", "max"};
    const tr_gpu_breakdown *g = &r->gpu_bd;
    if (!g->n_membw) return;
    tr_rp_heading(r, b,
                  "GPU memory bandwidth, GB/s (HTA: running memcpy/memset bandwidth per rank and "
                  "kind, its positive points)");
    tr_rp_table tb;
    tr_rp_table_init(&tb, "llrrrrrrr", 1);
    tr_rp_cells(&tb, heads, 9);
    size_t n = tr_rp_top(r, g->n_membw, 1);
    for (size_t i = 0; i < n; i++) {
        const tr_gpu_membw *m = &g->membw[i];
        tr_buf_reset(cell);
        if (m->rank >= 0) tr_buf_addf(cell, "%d", (int)m->rank);
        tr_rp_cell(&tb, "%s", m->rank >= 0 ? cell->p : "?");
        tr_rp_cell(&tb, "%s", m->kind);
        tr_rp_cell(&tb, "%llu", (unsigned long long)m->events);
        tr_rp_cell(&tb, "%llu", (unsigned long long)m->points);
        if (!m->points) {
            for (int c = 0; c < 5; c++) tr_rp_cell(&tb, "-");
            continue;
        }
        rg_cell_gbps(&tb, m->mean);
        rg_cell_gbps(&tb, m->std);
        rg_cell_gbps(&tb, m->min);
        rg_cell_gbps(&tb, m->p50);
        rg_cell_gbps(&tb, m->max);
    }
    tr_rp_table_print(r, &tb, b);
    if (n < g->n_membw) tr_buf_addf(b, "... %zu more\n", g->n_membw - n);
    tr_rp_table_fini(&tb);
}

void tr_rp_text_gpu_breakdown(const tr_report *r, tr_buf *b)
{
    tr_rp_heading(r, b,
                  "GPU temporal breakdown (HTA: shares of first .. last GPU event per device)");
    if (!r->gpu_bd.n_devices) {
        tr_buf_adds(b, "no GPU events\n");
        return;
    }
    tr_buf cell;
    tr_buf_init(&cell, 0);
    rg_devices(r, b, &cell);
    rg_streams(r, b, &cell);
    rg_queues(r, b, &cell);
    rg_membw(r, b, &cell);
    tr_buf_fini_into(&cell, b);
}

static void rg_types(const tr_report *r, tr_buf *b, tr_buf *cell)
{
    static const char *const heads[] = {"type", "count", "time", "share"};
    const tr_gpu_kernels *k = &r->gpu_k;
    tr_rp_table tb;
    tr_rp_table_init(&tb, "lrrr", -1);
    tr_rp_cells(&tb, heads, 4);
    for (int ty = 0; ty < TR_KTYPE_COUNT; ty++) {
        if (!k->type_count[ty]) continue;
        tr_rp_cell(&tb, "%s", tr_kernel_type_name(ty));
        tr_rp_cell(&tb, "%llu", (unsigned long long)k->type_count[ty]);
        rg_cell_share(&tb, cell, k->type_total[ty], k->total);
    }
    tr_rp_table_print(r, &tb, b);
    tr_rp_table_fini(&tb);
}

/* The time of type TYPE on rank RANK, from the per-rank rows V (N of them). */
static int64_t rg_rank_type_total(const tr_kernel_stat *v, size_t n, int32_t rank, int type)
{
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].rank == rank && v[i].type == type) sum += v[i].total;
    return sum;
}

/* The top kernels of each type (of each rank and type with PER_RANK), the type's share of each. */
static void rg_kernels(const tr_report *r, tr_buf *b, tr_buf *cell, int per_rank)
{
    static const char *const heads[] = {"rank", "type", "kernel", "count", "total",
                                        "mean", "min",  "max",    "share"};
    const tr_gpu_kernels *k = &r->gpu_k;
    const tr_kernel_stat *v = per_rank ? k->by_rank : k->kernels;
    size_t n = per_rank ? k->n_by_rank : k->n;
    tr_rp_heading(r, b,
                  per_rank ? "GPU kernels per rank (top by time per rank and type; share = of the "
                             "rank's type time)"
                           : "GPU kernels (top by time per type; share = of the type's time)");
    tr_rp_table tb;
    tr_rp_table_init(&tb, per_rank ? "lllrrrrrr" : "llrrrrrr", per_rank ? 2 : 1);
    tr_rp_cells(&tb, heads + !per_rank, per_rank ? 9 : 8);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j].type == v[i].type && v[j].rank == v[i].rank) j++;
        int64_t whole =
            per_rank ? rg_rank_type_total(v, n, v[i].rank, v[i].type) : k->type_total[v[i].type];
        size_t top = i + tr_rp_top(r, j - i, 1);
        for (size_t x = i; x < top; x++) {
            const tr_kernel_stat *s = &v[x];
            if (per_rank) tr_rp_cell(&tb, "%d", (int)s->rank);
            tr_rp_cell(&tb, "%s", tr_kernel_type_name(s->type));
            tr_buf_reset(cell);
            tr_kernel_short_name(cell, tr_rp_str(r->t, s->name));
            tr_rp_cell(&tb, "%s", cell->p);
            tr_rp_cell(&tb, "%llu", (unsigned long long)s->count);
            tr_rp_cell_duration(&tb, s->total);
            tr_rp_cell_duration(&tb, (int64_t)(s->mean + 0.5));
            tr_rp_cell_duration(&tb, s->min);
            tr_rp_cell_duration(&tb, s->max);
            tr_buf_reset(cell);
            tr_rp_pct(cell, (double)s->total, (double)whole);
            tr_rp_cell(&tb, "%s", cell->p);
        }
        i = j;
    }
    tr_rp_table_print(r, &tb, b);
    tr_rp_table_fini(&tb);
}

/* The others row of RANK and TYPE, or NULL. */
static const tr_kernel_others *rg_others_of(const tr_gpu_kernels *k, int32_t rank, int type)
{
    for (size_t i = 0; i < k->n_others; i++)
        if (k->others[i].rank == rank && k->others[i].type == type) return &k->others[i];
    return NULL;
}

/* HTA's grouping: per rank and type with others, the kept kernels and the others row. */
static void rg_hta_groups(const tr_report *r, tr_buf *b, tr_buf *cell)
{
    static const char *const heads[] = {"rank", "type", "kernel", "count", "total", "share"};
    const tr_gpu_kernels *k = &r->gpu_k;
    if (!k->n_others) return;
    tr_rp_heading(r, b,
                  "GPU kernels as HTA groups them (per rank and type with over 10 kernels: at most "
                  "10, while the running total is within its 0.8 quantile; the rest as others)");
    tr_rp_table tb;
    tr_rp_table_init(&tb, "lllrrr", 2);
    tr_rp_cells(&tb, heads, 6);
    const tr_kernel_stat *v = k->by_rank;
    for (size_t i = 0, j; i < k->n_by_rank; i = j) {
        for (j = i; j < k->n_by_rank && v[j].rank == v[i].rank && v[j].type == v[i].type; j++)
            ;
        const tr_kernel_others *o = rg_others_of(k, v[i].rank, v[i].type);
        if (!o) continue;
        int64_t whole = rg_rank_type_total(v, k->n_by_rank, v[i].rank, v[i].type);
        for (size_t x = i; x <= j; x++) {
            if (x < j && v[x].other) continue;
            tr_rp_cell(&tb, "%d", (int)v[i].rank);
            tr_rp_cell(&tb, "%s", tr_kernel_type_name(v[i].type));
            tr_buf_reset(cell);
            if (x < j)
                tr_kernel_short_name(cell, tr_rp_str(r->t, v[x].name));
            else
                tr_buf_addf(cell, "others (%llu kernels)", (unsigned long long)o->names);
            tr_rp_cell(&tb, "%s", cell->p);
            tr_rp_cell(&tb, "%llu", (unsigned long long)(x < j ? v[x].count : o->count));
            rg_cell_share(&tb, cell, x < j ? v[x].total : o->total, whole);
        }
    }
    tr_rp_table_print(r, &tb, b);
    tr_rp_table_fini(&tb);
}

/* Several ranks: the per-rank table is worth printing. */
static int rg_several_ranks(const tr_gpu_kernels *k)
{
    for (size_t i = 1; i < k->n_by_rank; i++)
        if (k->by_rank[i].rank != k->by_rank[0].rank) return 1;
    return 0;
}

/* HTA's launch statistics: the sums, then the launch-delay outliers. */
static void rg_launches(const tr_report *r, tr_buf *b, tr_buf *cell)
{
    static const char *const heads[] = {"kernel", "launch", "at", "cpu", "gpu", "delay"};
    const tr_gpu_launches *l = &r->gpu_l;
    tr_rp_heading(r, b, "GPU launches (HTA: delay = kernel start - launch end; outliers > 100us)");
    if (!l->launches) {
        tr_buf_adds(b, "no launches (no correlation ids)\n");
        return;
    }
    double n = (double)l->launches;
    tr_buf_addf(b, "%llu launches: cpu mean ", (unsigned long long)l->launches);
    tr_buf_add_duration(b, (int64_t)((double)l->cpu_total / n + 0.5));
    tr_buf_adds(b, ", gpu mean ");
    tr_buf_add_duration(b, (int64_t)((double)l->gpu_total / n + 0.5));
    tr_buf_adds(b, ", delay mean ");
    tr_buf_add_duration(b, (int64_t)((double)l->delay_total / n + 0.5));
    tr_buf_adds(b, ", max ");
    tr_buf_add_duration(b, l->delay_max);
    tr_buf_addf(b,
                "\n%llu short kernels (cpu <= 50us, gpu < cpu), %llu runtime outliers (cpu > "
                "50us), %llu launch-delay outliers\n",
                (unsigned long long)l->short_kernels, (unsigned long long)l->runtime_outliers,
                (unsigned long long)l->delay_outliers);
    if (!l->n_outliers) return;
    tr_slices s;
    tr_trace_slices(r->t, &s);
    tr_rp_table tb;
    tr_rp_table_init(&tb, "llrrrr", 0);
    tr_rp_cells(&tb, heads, 6);
    size_t top = tr_rp_top(r, l->n_outliers, 1);
    for (size_t i = 0; i < top; i++) {
        const tr_gpu_launch *o = &l->outliers[i];
        tr_buf_reset(cell);
        tr_kernel_short_name(cell, tr_rp_str(r->t, s.name[o->kernel]));
        tr_rp_cell(&tb, "%s", cell->p);
        tr_rp_cell(&tb, "%s", tr_rp_str(r->t, s.name[o->launch]));
        tr_rp_cell_duration(&tb, s.ts[o->launch] - r->first);
        tr_rp_cell_duration(&tb, o->cpu_dur);
        tr_rp_cell_duration(&tb, o->gpu_dur);
        tr_rp_cell_duration(&tb, o->delay);
    }
    tr_rp_table_print(r, &tb, b);
    if (top < l->n_outliers) tr_buf_addf(b, "... %zu more\n", l->n_outliers - top);
    tr_rp_table_fini(&tb);
}

/* A sequence as "op | kernel | kernel", kernel names shortened. */
static void rg_seq_text(const tr_report *r, const tr_kernel_seq *q, tr_buf *cell)
{
    tr_buf_reset(cell);
    tr_buf_adds(cell, tr_rp_str(r->t, q->op));
    for (size_t k = 0; k < q->n_kernels; k++) {
        tr_buf_adds(cell, " | ");
        tr_kernel_short_name(cell, tr_rp_str(r->t, r->gpu_seq.names[q->first + k]));
    }
}

/* HTA's frequent kernel sequences, the most frequent first. */
static void rg_seqs(const tr_report *r, tr_buf *b, tr_buf *cell)
{
    static const char *const heads[] = {"rank", "count", "cpu", "gpu", "operator | kernels"};
    const tr_kernel_seqs *sq = &r->gpu_seq;
    const tr_stat_opts *so = &r->o.stat;
    tr_buf_reset(cell);
    tr_buf_addf(cell,
                "GPU kernel sequences (HTA: the shallowest operators named *%s* with %zu+ "
                "kernels; cpu, gpu = their summed time)",
                so->seq_op ? so->seq_op : "aten::", so->seq_min);
    tr_rp_heading(r, b, cell->p);
    if (!sq->n) {
        tr_buf_adds(b, "no sequences\n");
        return;
    }
    tr_rp_table tb;
    tr_rp_table_init(&tb, "lrrrl", 4);
    tr_rp_cells(&tb, heads, 5);
    size_t top = tr_rp_top(r, sq->n, 1);
    for (size_t i = 0; i < top; i++) {
        const tr_kernel_seq *q = &sq->seqs[i];
        if (q->rank >= 0)
            tr_rp_cell(&tb, "%d", (int)q->rank);
        else
            tr_rp_cell(&tb, "?");
        tr_rp_cell(&tb, "%llu", (unsigned long long)q->count);
        tr_rp_cell_duration(&tb, q->cpu_total);
        tr_rp_cell_duration(&tb, q->gpu_total);
        rg_seq_text(r, q, cell);
        tr_rp_cell(&tb, "%s", cell->p);
    }
    tr_rp_table_print(r, &tb, b);
    if (top < sq->n) tr_buf_addf(b, "... %zu more\n", sq->n - top);
    tr_rp_table_fini(&tb);
}

void tr_rp_text_gpu_kernels(const tr_report *r, tr_buf *b)
{
    tr_rp_heading(r, b, "GPU kernel types (HTA: communication, memory, computation, other)");
    if (!r->gpu_k.n) {
        tr_buf_adds(b, "no GPU events\n");
        return;
    }
    tr_buf cell;
    tr_buf_init(&cell, 0);
    rg_types(r, b, &cell);
    rg_kernels(r, b, &cell, 0);
    if (rg_several_ranks(&r->gpu_k)) rg_kernels(r, b, &cell, 1);
    rg_hta_groups(r, b, &cell);
    rg_launches(r, b, &cell);
    rg_seqs(r, b, &cell);
    tr_buf_fini_into(&cell, b);
}

/* ---- JSON ---- */

void tr_rp_json_gpu_breakdown(const tr_report *r, tr_buf *b)
{
    const tr_gpu_breakdown *g = &r->gpu_bd;
    tr_buf_addf(b, ",\"gpu_breakdown\":{\"kernel_wait_ns\":%lld,\"devices\":[",
                (long long)g->kernel_wait);
    for (size_t i = 0; i < g->n_devices; i++) {
        const tr_gpu_time *d = &g->devices[i];
        tr_buf_adds(b, i ? ",{" : "{");
        tr_rp_json_process(b, r->t, d->process);
        tr_buf_addf(b,
                    ",\"events\":%llu,\"first_ns\":%lld,\"last_ns\":%lld,\"busy_ns\":%lld,"
                    "\"idle_ns\":%lld,\"compute_ns\":%lld,\"non_compute_ns\":%lld}",
                    (unsigned long long)d->events, (long long)d->first, (long long)d->last,
                    (long long)d->busy, (long long)d->idle, (long long)d->compute,
                    (long long)d->non_compute);
    }
    tr_buf_adds(b, "],\"streams\":[");
    size_t n = tr_rp_top(r, g->n_streams, 0);
    for (size_t i = 0; i < n; i++) {
        const tr_gpu_idle *s = &g->streams[i];
        tr_buf_adds(b, i ? ",{" : "{");
        tr_rp_json_track(b, r->t, s->track);
        tr_buf_addf(b,
                    ",\"idle_ns\":%lld,\"host_wait_ns\":%lld,\"host_wait_gaps\":%llu,"
                    "\"kernel_wait_ns\":%lld,\"kernel_wait_gaps\":%llu,\"other_ns\":%lld,"
                    "\"other_gaps\":%llu}",
                    (long long)s->idle, (long long)s->time[TR_IDLE_HOST],
                    (unsigned long long)s->gaps[TR_IDLE_HOST], (long long)s->time[TR_IDLE_KERNEL],
                    (unsigned long long)s->gaps[TR_IDLE_KERNEL], (long long)s->time[TR_IDLE_OTHER],
                    (unsigned long long)s->gaps[TR_IDLE_OTHER]);
    }
    tr_buf_adds(b, "],\"queues\":[");
    n = tr_rp_top(r, g->n_queues, 0);
    for (size_t i = 0; i < n; i++) {
        const tr_gpu_queue *q = &g->queues[i];
        tr_buf_adds(b, i ? ",{" : "{");
        tr_rp_json_track(b, r->t, q->track);
        tr_buf_addf(b, ",\"points\":%llu,\"max\":%lld,\"at_max_ns\":%lld,\"mean\":",
                    (unsigned long long)q->points, (long long)q->max, (long long)q->at_max);
        tr_buf_add_real(b, q->mean);
        tr_buf_adds(b, "}");
    }
    tr_buf_adds(b, "],\"memory_bw\":[");
    n = tr_rp_top(r, g->n_membw, 0);
    for (size_t i = 0; i < n; i++) {
        const tr_gpu_membw *m = &g->membw[i];
        const double v[] = {m->mean, m->std, m->min, m->p25, m->p50, m->p75, m->max};
        static const char *const keys[] = {"mean", "std", "min", "p25", "p50", "p75", "max"};
        tr_buf_addf(b, "%s{\"rank\":%d,\"kind\":", i ? "," : "", (int)m->rank);
        tr_buf_add_json_str(b, m->kind, strlen(m->kind));
        tr_buf_addf(b, ",\"events\":%llu,\"points\":%llu", (unsigned long long)m->events,
                    (unsigned long long)m->points);
        for (int k = 0; k < 7; k++) {
            tr_buf_addf(b, ",\"%s_gbps\":", keys[k]);
            tr_buf_add_real(b, m->points ? v[k] : NAN);
        }
        tr_buf_adds(b, "}");
    }
    tr_buf_adds(b, "]}");
}

static void rg_json_seqs(const tr_report *r, tr_buf *b)
{
    const tr_kernel_seqs *sq = &r->gpu_seq;
    const char *op = r->o.stat.seq_op ? r->o.stat.seq_op : "aten::";
    tr_buf_adds(b, "\"sequences\":{\"operator\":");
    tr_buf_add_json_str(b, op, strlen(op));
    tr_buf_addf(b, ",\"min_kernels\":%zu,\"patterns\":[", r->o.stat.seq_min);
    size_t n = tr_rp_top(r, sq->n, 0);
    for (size_t i = 0; i < n; i++) {
        const tr_kernel_seq *q = &sq->seqs[i];
        tr_buf_addf(b, "%s{\"rank\":%d,\"count\":%llu,\"cpu_ns\":%lld,\"gpu_ns\":%lld,\"op\":",
                    i ? "," : "", (int)q->rank, (unsigned long long)q->count,
                    (long long)q->cpu_total, (long long)q->gpu_total);
        tr_buf_add_json_id(b, r->t, q->op);
        tr_buf_adds(b, ",\"kernels\":[");
        for (size_t k = 0; k < q->n_kernels; k++) {
            if (k) tr_buf_adds(b, ",");
            tr_buf_add_json_id(b, r->t, sq->names[q->first + k]);
        }
        tr_buf_adds(b, "]}");
    }
    tr_buf_adds(b, "]}");
}

static void rg_json_kernels(const tr_report *r, tr_buf *b, const tr_kernel_stat *v, size_t n_rows,
                            int per_rank)
{
    tr_buf short_name;
    tr_buf_init(&short_name, 0);
    size_t n = tr_rp_top(r, n_rows, 0);
    for (size_t i = 0; i < n; i++) {
        const tr_kernel_stat *s = &v[i];
        const char *name = tr_rp_str(r->t, s->name);
        tr_buf_adds(b, i ? ",{" : "{");
        if (per_rank) tr_buf_addf(b, "\"rank\":%d,", (int)s->rank);
        tr_buf_addf(b, "\"type\":\"%s\",\"name\":", tr_kernel_type_name(s->type));
        tr_buf_add_json_id(b, r->t, s->name);
        tr_buf_reset(&short_name);
        tr_kernel_short_name(&short_name, name);
        tr_buf_adds(b, ",\"short_name\":");
        tr_buf_add_json_str(b, short_name.p, short_name.len);
        tr_buf_addf(b,
                    ",\"count\":%llu,\"total_ns\":%lld,\"mean_ns\":", (unsigned long long)s->count,
                    (long long)s->total);
        tr_buf_add_real(b, s->mean);
        tr_buf_addf(b, ",\"min_ns\":%lld,\"max_ns\":%lld", (long long)s->min, (long long)s->max);
        tr_buf_adds(b,
                    per_rank ? (s->other ? ",\"hta_other\":true}" : ",\"hta_other\":false}") : "}");
    }
    tr_buf_fini_into(&short_name, b);
}

void tr_rp_json_gpu_kernels(const tr_report *r, tr_buf *b)
{
    const tr_gpu_kernels *k = &r->gpu_k;
    tr_buf_adds(b, ",\"gpu_kernels\":{\"types\":[");
    int first = 1;
    for (int ty = 0; ty < TR_KTYPE_COUNT; ty++) {
        if (!k->type_count[ty]) continue;
        tr_buf_addf(b, "%s{\"type\":\"%s\",\"count\":%llu,\"total_ns\":%lld}", first ? "" : ",",
                    tr_kernel_type_name(ty), (unsigned long long)k->type_count[ty],
                    (long long)k->type_total[ty]);
        first = 0;
    }
    tr_buf_adds(b, "],\"kernels\":[");
    rg_json_kernels(r, b, k->kernels, k->n, 0);
    tr_buf_adds(b, "],\"by_rank\":[");
    rg_json_kernels(r, b, k->by_rank, k->n_by_rank, 1);
    tr_buf_adds(b, "],\"hta_others\":[");
    for (size_t i = 0; i < k->n_others; i++) {
        const tr_kernel_others *o = &k->others[i];
        tr_buf_addf(b,
                    "%s{\"rank\":%d,\"type\":\"%s\",\"names\":%llu,\"count\":%llu,"
                    "\"total_ns\":%lld}",
                    i ? "," : "", (int)o->rank, tr_kernel_type_name(o->type),
                    (unsigned long long)o->names, (unsigned long long)o->count,
                    (long long)o->total);
    }
    const tr_gpu_launches *l = &r->gpu_l;
    tr_buf_addf(b,
                "],\"launches\":{\"count\":%llu,\"cpu_ns\":%lld,\"gpu_ns\":%lld,\"delay_ns\":%lld,"
                "\"delay_max_ns\":%lld,\"short_kernels\":%llu,\"runtime_outliers\":%llu,"
                "\"delay_outliers\":[",
                (unsigned long long)l->launches, (long long)l->cpu_total, (long long)l->gpu_total,
                (long long)l->delay_total, (long long)l->delay_max,
                (unsigned long long)l->short_kernels, (unsigned long long)l->runtime_outliers);
    tr_slices s;
    tr_trace_slices(r->t, &s);
    size_t n = tr_rp_top(r, l->n_outliers, 0);
    for (size_t i = 0; i < n; i++) {
        const tr_gpu_launch *o = &l->outliers[i];
        tr_buf_adds(b, i ? ",{\"kernel\":" : "{\"kernel\":");
        tr_buf_add_json_id(b, r->t, s.name[o->kernel]);
        tr_buf_adds(b, ",\"launch\":");
        tr_buf_add_json_id(b, r->t, s.name[o->launch]);
        tr_buf_addf(b, ",\"kernel_ts_ns\":%lld,\"cpu_ns\":%lld,\"gpu_ns\":%lld,\"delay_ns\":%lld}",
                    (long long)s.ts[o->kernel], (long long)o->cpu_dur, (long long)o->gpu_dur,
                    (long long)o->delay);
    }
    tr_buf_adds(b, "]},");
    rg_json_seqs(r, b);
    tr_buf_adds(b, "}");
}
