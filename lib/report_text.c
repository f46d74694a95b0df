/*
** report_text.c: the report's sections as people read them: a heading per
** section, then aligned tables with bars, cut to the output's width.
*/
#include "report_impl.h"
#include "tr_text.h"

#include <stdio.h>
#include <string.h>

void tr_rp_text_overview(const tr_report *r, tr_buf *b)
{
    const tr_trace *t = r->t;
    tr_rp_heading(r, b, "overview");
    for (size_t i = 0; i < tr_input_count(t); i++) {
        const tr_input_info *in = tr_input_get(t, (uint32_t)i);
        tr_buf_addf(b, "input: %s (%s)\n", tr_rp_str(t, in->path), tr_rp_str(t, in->format));
        if (in->lines_skipped || in->warnings)
            tr_buf_addf(b, "  skipped %llu lines, %llu bad records\n",
                        (unsigned long long)in->lines_skipped, (unsigned long long)in->warnings);
    }
    tr_rp_span(b, r->have_span, r->first, r->last);
    tr_buf_addf(b, "events: %llu slices, %llu instants, %llu counter values, %llu samples\n",
                (unsigned long long)r->n_events[TR_EV_SLICE],
                (unsigned long long)r->n_events[TR_EV_INSTANT],
                (unsigned long long)r->n_events[TR_EV_COUNTER],
                (unsigned long long)r->n_events[TR_EV_SAMPLE]);
    tr_buf_addf(b, "lanes: %zu tracks of %zu processes\n", tr_track_count(t), tr_process_count(t));
}

/* The lanes table, its bar column (3) left empty: the bars take the width the others leave. */
static void lanes_cells(const tr_report *r, tr_rp_table *tb, size_t n, tr_buf *cell)
{
    static const char *const heads[] = {"lane", "busy", "util", "activity", "idle", "ops"};
    const tr_trace *t = r->t;
    tr_rp_cells(tb, heads, 6);
    for (size_t i = 0; i < n; i++) {
        const tr_lane_stat *l = &r->lanes.lanes[i];
        tr_buf_reset(cell);
        tr_rp_track_label(cell, t, l->track);
        tr_rp_cell(tb, "%s", cell->p);
        tr_buf_reset(cell);
        tr_buf_add_duration(cell, l->busy);
        tr_rp_cell(tb, "%s", cell->p);
        tr_rp_cell(tb, "%.1f%%", 100.0 * l->utilization);
        tr_rp_cell(tb, "%s", "");
        tr_buf_reset(cell);
        tr_buf_add_duration(cell, l->idle);
        tr_rp_cell(tb, "%s", cell->p);
        tr_buf_reset(cell);
        tr_buf_addf(cell, "%llu", (unsigned long long)l->ops);
        for (size_t k = 0; k < l->n_names && k < 4; k++)
            tr_buf_addf(cell, "%s%llu %s", k ? ", " : " (", (unsigned long long)l->names[k].count,
                        tr_rp_str(t, l->names[k].name));
        if (l->n_names > 4) tr_buf_adds(cell, ", ...");
        if (l->n_names) tr_buf_adds(cell, ")");
        tr_rp_cell(tb, "%s", cell->p);
    }
}

/* Prints TB's N rows with their bars, which take what the other columns leave, keeping 20 for the
 * ops. */
static void lanes_print(const tr_report *r, const tr_rp_table *tb, size_t n, tr_buf *b,
                        tr_buf *cell)
{
    size_t w[6];
    tr_rp_table_widths(tb, w);
    int fixed = (int)(w[0] + w[1] + w[2] + w[4] + 10) + 20;
    int bar = r->o.width - fixed;
    if (bar > 40) bar = 40;
    if (bar < 10) bar = 10;
    tr_rp_table tb2;
    tr_rp_table_init(&tb2, "lrrlrl", 5);
    for (size_t row = 0; row <= n; row++) {
        for (size_t c = 0; c < 6; c++) {
            if (c == 3 && row > 0) {
                tr_buf_reset(cell);
                tr_rp_bar(cell, r->lanes.lanes[row - 1].utilization, bar, r->o.ascii);
                tr_rp_cell(&tb2, "%s", cell->p);
            } else {
                tr_rp_cell(&tb2, "%s", tr_rp_table_at(tb, row, c));
            }
        }
    }
    b->nomem |= tb->cells.nomem; /* TB2 is made of TB's cells */
    tr_rp_table_print(r, &tb2, b);
    tr_rp_table_fini(&tb2);
}

/* The longest idle gaps of the first N lanes, a row per lane. */
static void lanes_gaps(const tr_report *r, size_t n, tr_buf *b, tr_buf *cell)
{
    tr_rp_table tb;
    tr_rp_table_init(&tb, "ll", 1);
    tr_rp_cell(&tb, "lane");
    tr_rp_cell(&tb, "longest idle gaps (length at start)");
    for (size_t i = 0; i < n; i++) {
        const tr_lane_stat *l = &r->lanes.lanes[i];
        if (!l->n_gaps) continue;
        tr_buf_reset(cell);
        tr_rp_track_label(cell, r->t, l->track);
        tr_rp_cell(&tb, "%s", cell->p);
        tr_buf_reset(cell);
        for (size_t g = 0; g < l->n_gaps; g++) {
            if (g) tr_buf_adds(cell, ", ");
            tr_buf_add_duration(cell, l->gaps[g].dur);
            tr_buf_adds(cell, " at ");
            tr_buf_add_duration(cell, l->gaps[g].ts);
        }
        tr_rp_cell(&tb, "%s", cell->p);
    }
    tr_buf_addc(b, '\n');
    tr_rp_table_print(r, &tb, b);
    tr_rp_table_fini(&tb);
}

void tr_rp_text_lanes(const tr_report *r, tr_buf *b)
{
    const tr_lane_stats *ls = &r->lanes;
    if (!ls->n && !r->explicit_sections) return;
    tr_rp_heading(r, b, "lanes (busy = union of slices; ops = top-level slices)");
    if (!ls->n) {
        tr_buf_adds(b, "no slices\n");
        return;
    }
    size_t n = tr_rp_top(r, ls->n, 1);
    tr_buf cell;
    tr_buf_init(&cell, 0);
    tr_rp_table tb;
    tr_rp_table_init(&tb, "lrrlrl", 5);
    lanes_cells(r, &tb, n, &cell);
    lanes_print(r, &tb, n, b, &cell);
    tr_rp_table_fini(&tb);
    if (n < ls->n) tr_buf_addf(b, "(%zu more lanes; --top 0 shows all)\n", ls->n - n);
    if (r->o.stat.gaps) lanes_gaps(r, n, b, &cell);
    tr_buf_fini_into(&cell, b);
}

static void ops_table(const tr_report *r, tr_buf *b, const tr_op_stat *v, size_t nv,
                      const char *what)
{
    tr_rp_table tb;
    tr_rp_table_init(&tb, "lrrrrrrr", 0);
    static const char *const heads[] = {"count", "total", "mean", "p50", "p95", "max", "bytes"};
    tr_rp_cell(&tb, "%s", what);
    tr_rp_cells(&tb, heads, 7);
    size_t n = tr_rp_top(r, nv, 1);
    for (size_t i = 0; i < n; i++) {
        const tr_op_stat *o = &v[i];
        const char *k = tr_rp_str(r->t, o->key);
        tr_rp_cell(&tb, "%s", *k ? k : "(none)");
        tr_rp_cell(&tb, "%llu", (unsigned long long)o->count);
        int64_t vals[] = {o->total, (int64_t)(o->mean + 0.5), o->p50, o->p95, o->max};
        for (size_t j = 0; j < 5; j++) tr_rp_cell_duration(&tb, vals[j]);
        if (o->bytes >= 0)
            tr_rp_cell_size(&tb, o->bytes);
        else
            tr_rp_cell(&tb, "-");
    }
    tr_rp_table_print(r, &tb, b);
    tr_rp_table_fini(&tb);
    if (n < nv) tr_buf_addf(b, "(%zu more; --top 0 shows all)\n", nv - n);
}

void tr_rp_text_ops(const tr_report *r, tr_buf *b)
{
    if (!r->ops.n_names && !r->explicit_sections) return;
    static const char *const keys[] = {"total", "count", "mean", "max"};
    tr_buf title;
    tr_buf_init(&title, 0);
    tr_buf_addf(&title, "ops by name (sorted by %s; p50/p95 nearest rank)", keys[r->o.sort]);
    tr_rp_heading(r, b, title.p);
    tr_buf_fini_into(&title, b);
    if (!r->ops.n_names) {
        tr_buf_adds(b, "no slices\n");
        return;
    }
    ops_table(r, b, r->ops.by_name, r->ops.n_names, "name");
    tr_rp_heading(r, b, "ops by category");
    ops_table(r, b, r->ops.by_cat, r->ops.n_cats, "category");
}

/* Bytes read and written, then the call count of every kind. */
static void io_count_cells(tr_rp_table *tb, const tr_io_counts *c)
{
    tr_rp_cell_size(tb, c->bytes_read);
    tr_rp_cell_size(tb, c->bytes_written);
    for (int k = 0; k < TR_IO_KIND_COUNT; k++)
        tr_rp_cell(tb, "%llu", (unsigned long long)c->ops[k]);
}

/* The calls on files under excluded directories, and how to count them. */
static void io_excluded_note(const tr_report *r, tr_buf *b)
{
    const tr_io_stats *io = &r->io;
    if (!io->excluded_calls) return;
    const char *dirs = r->o.stat.io_exclude ? r->o.stat.io_exclude : TR_IO_EXCLUDE;
    tr_buf_addf(b,
                "excluded calls: %llu on %zu file%s under %s (left out of every count, as "
                "Darshan does; --io-all-files counts them)\n",
                (unsigned long long)io->excluded_calls, io->excluded_files,
                io->excluded_files == 1 ? "" : "s", dirs);
}

static void io_ranks(const tr_report *r, tr_buf *b, tr_buf *cell)
{
    static const char *const heads[] = {"rank",     "read",   "written",   "reads", "writes",
                                        "opens",    "stats",  "seeks",     "syncs", "meta",
                                        "I/O time", "of run", "bandwidth", "files", ""};
    const tr_io_stats *io = &r->io;
    tr_rp_table tb;
    tr_rp_table_init(&tb, "lrrrrrrrrrrrrrr", -1);
    tr_rp_cells(&tb, heads, 15);
    size_t n = tr_rp_top(r, io->n_ranks, 1);
    for (size_t i = 0; i < n; i++) {
        const tr_io_rank *rk = &io->ranks[i];
        tr_buf_reset(cell);
        tr_rp_process_label(cell, r->t, tr_process_get(r->t, rk->process));
        tr_rp_cell(&tb, "%s", cell->p);
        io_count_cells(&tb, &rk->c);
        tr_rp_cell_duration(&tb, rk->c.time);
        tr_buf_reset(cell);
        tr_rp_pct(cell, (double)rk->c.time, (double)rk->run_time);
        tr_rp_cell(&tb, "%s", cell->p);
        tr_buf_reset(cell);
        if (rk->c.time > 0)
            tr_rp_rate(cell,
                       (double)(rk->c.bytes_read + rk->c.bytes_written) * 1e9 / (double)rk->c.time);
        else
            tr_buf_adds(cell, "-");
        tr_rp_cell(&tb, "%s", cell->p);
        tr_rp_cell(&tb, "%u", rk->files);
        tr_rp_cell(&tb, "%s", i == io->slowest ? "slowest" : "");
    }
    tr_rp_table_print(r, &tb, b);
    tr_rp_table_fini(&tb);
    if (n < io->n_ranks) tr_buf_addf(b, "(%zu more ranks; --top 0 shows all)\n", io->n_ranks - n);
    tr_buf_adds(b, "total: read ");
    tr_rp_size(b, io->total.bytes_read);
    tr_buf_adds(b, ", written ");
    tr_rp_size(b, io->total.bytes_written);
    tr_buf_adds(b, ", I/O time ");
    tr_buf_add_duration(b, io->total.time);
    tr_buf_addf(b, "; %zu files, %u shared", io->n_files, io->shared_files);
    if (io->bandwidth > 0) {
        tr_buf_adds(b, "; bandwidth by slowest rank ");
        tr_rp_rate(b, io->bandwidth);
    }
    tr_buf_addc(b, '\n');
    if (io->total.failed)
        tr_buf_addf(b, "failed calls: %llu (left out of every count, as Darshan does)\n",
                    (unsigned long long)io->total.failed);
    if (io->no_ret)
        tr_buf_addf(b,
                    "failed calls not known: %llu calls carry no return value (Recorder stores "
                    "none), so one that failed counts as made, where Darshan leaves it out\n",
                    (unsigned long long)io->no_ret);
    io_excluded_note(r, b);
    if (io->requested)
        tr_buf_addf(b,
                    "bytes are those asked for, not moved: %llu reads and writes carry no return "
                    "value (Recorder stores none), so a short read counts in full\n",
                    (unsigned long long)io->requested);
    if (io->unplaced)
        tr_buf_addf(b,
                    "offsets not known: %llu reads and writes follow a seek whose result the trace "
                    "does not hold (SEEK_END without a return value), so they are in no "
                    "sequential, consecutive or max byte count\n",
                    (unsigned long long)io->unplaced);
}

static void io_layers(const tr_report *r, tr_buf *b)
{
    static const char *const heads[] = {"layer", "read",  "written", "reads", "writes", "opens",
                                        "stats", "seeks", "syncs",   "meta",  "time"};
    const tr_io_stats *io = &r->io;
    tr_rp_heading(r, b, "I/O per layer (every call of the layer)");
    tr_rp_table tb;
    tr_rp_table_init(&tb, "lrrrrrrrrrr", -1);
    tr_rp_cells(&tb, heads, 11);
    for (size_t i = 0; i < io->n_layers; i++) {
        const tr_io_layer *l = &io->layers[i];
        const char *cat = tr_rp_str(r->t, l->cat);
        tr_rp_cell(&tb, "%s", *cat ? cat : "(none)");
        io_count_cells(&tb, &l->c);
        tr_rp_cell_duration(&tb, l->c.time);
    }
    tr_rp_table_print(r, &tb, b);
    tr_rp_table_fini(&tb);
}

/* Darshan's counters of each module present, those that are not 0 (the JSON has them all). */
static void io_modules(const tr_report *r, tr_buf *b)
{
    static const char *const heads[] = {"module", "counter", "value"};
    int any = 0;
    for (int m = 0; m < TR_IO_MODULES; m++) any |= r->io.modules[m].records > 0;
    if (!any) return;
    tr_rp_heading(r, b,
                  "Darshan's modules (module by function name; each rank's file is a record)");
    tr_rp_table tb;
    tr_rp_table_init(&tb, "llr", -1);
    tr_rp_cells(&tb, heads, 3);
    for (int m = 0; m < TR_IO_MODULES; m++) {
        const tr_io_module_stats *ms = &r->io.modules[m];
        int first = 1;
        for (int k = 0; k < TR_IO_DC_COUNT && ms->records; k++) {
            const char *name = tr_io_dc_name(m, k);
            int is_max = k == TR_IO_DC_MAX_BYTE_READ || k == TR_IO_DC_MAX_BYTE_WRITTEN;
            if (!name || ms->v[k] == (is_max ? -1 : 0)) continue;
            tr_rp_cell(&tb, "%s", first ? tr_io_module_name(m) : "");
            tr_rp_cell(&tb, "%s", name);
            tr_rp_cell(&tb, "%lld", (long long)ms->v[k]);
            first = 0;
        }
    }
    tr_rp_table_print(r, &tb, b);
    tr_rp_table_fini(&tb);
}

static void io_sizes(const tr_report *r, tr_buf *b)
{
    static const char *const heads[] = {"size", "reads", "writes"};
    tr_rp_heading(r, b, "request sizes (outermost reads and writes, Darshan's buckets)");
    tr_rp_table tb;
    tr_rp_table_init(&tb, "lrr", -1);
    tr_rp_cells(&tb, heads, 3);
    for (int k = 0; k < TR_IO_BUCKETS; k++) {
        tr_rp_cell(&tb, "%s", tr_io_bucket_name(k));
        tr_rp_cell(&tb, "%llu", (unsigned long long)r->io.total.hist_read[k]);
        tr_rp_cell(&tb, "%llu", (unsigned long long)r->io.total.hist_write[k]);
    }
    tr_rp_table_print(r, &tb, b);
    tr_rp_table_fini(&tb);
}

static void io_files(const tr_report *r, tr_buf *b)
{
    static const char *const heads[] = {"path",   "ranks",       "read",       "written", "reads",
                                        "writes", "consecutive", "sequential", "random"};
    const tr_io_stats *io = &r->io;
    tr_rp_heading(r, b, "files (innermost calls; sequential includes consecutive)");
    tr_rp_table tb;
    tr_rp_table_init(&tb, "lrrrrrrrr", 0);
    tr_rp_cells(&tb, heads, 9);
    size_t n = tr_rp_top(r, io->n_files, 1);
    for (size_t i = 0; i < n; i++) {
        const tr_io_file *f = &io->files[i];
        tr_rp_cell(&tb, "%s", tr_rp_str(r->t, f->path));
        tr_rp_cell(&tb, "%u%s", f->ranks, f->ranks > 1 ? " shared" : "");
        tr_rp_cell_size(&tb, f->bytes_read);
        tr_rp_cell_size(&tb, f->bytes_written);
        tr_rp_cell(&tb, "%llu", (unsigned long long)f->reads);
        tr_rp_cell(&tb, "%llu", (unsigned long long)f->writes);
        tr_rp_cell(&tb, "%llu", (unsigned long long)f->consecutive);
        tr_rp_cell(&tb, "%llu", (unsigned long long)f->sequential);
        tr_rp_cell(&tb, "%llu", (unsigned long long)(f->accesses - f->sequential));
    }
    tr_rp_table_print(r, &tb, b);
    tr_rp_table_fini(&tb);
    if (n < io->n_files) tr_buf_addf(b, "(%zu more files; --top 0 shows all)\n", io->n_files - n);
}

void tr_rp_text_io(const tr_report *r, tr_buf *b)
{
    if (!r->io.n_ranks && !r->explicit_sections) return;
    tr_rp_heading(r, b, "I/O per rank (outermost calls: an MPI-IO call, not its POSIX calls)");
    if (!r->io.n_ranks) {
        tr_buf_adds(b, "no I/O calls\n");
        return;
    }
    tr_buf cell;
    tr_buf_init(&cell, 0);
    io_ranks(r, b, &cell);
    tr_buf_fini_into(&cell, b);
    io_layers(r, b);
    io_modules(r, b);
    io_sizes(r, b);
    io_files(r, b);
}

static void hot_table_print(const tr_report *r, tr_buf *b, const tr_hot_table *h)
{
    tr_rp_table tb;
    tr_rp_table_init(&tb, "rrrrl", 4);
    tr_rp_cell(&tb, "self");
    tr_rp_cell(&tb, "self%%");
    tr_rp_cell(&tb, "total");
    tr_rp_cell(&tb, "total%%");
    tr_rp_cell(&tb, "function (file)");
    size_t n = tr_rp_top(r, h->n, 1);
    tr_buf cell;
    tr_buf_init(&cell, 0);
    for (size_t i = 0; i < n; i++) {
        const tr_hot_fn *f = &h->fns[i];
        tr_rp_cell(&tb, "%llu", (unsigned long long)f->self);
        tr_buf_reset(&cell);
        tr_rp_pct(&cell, (double)f->self, (double)h->samples);
        tr_rp_cell(&tb, "%s", cell.p);
        tr_rp_cell(&tb, "%llu", (unsigned long long)f->total);
        tr_buf_reset(&cell);
        tr_rp_pct(&cell, (double)f->total, (double)h->samples);
        tr_rp_cell(&tb, "%s", cell.p);
        if (*tr_rp_str(r->t, f->file))
            tr_rp_cell(&tb, "%s (%s)", tr_rp_str(r->t, f->function), tr_rp_str(r->t, f->file));
        else
            tr_rp_cell(&tb, "%s", tr_rp_str(r->t, f->function));
    }
    tr_buf_fini_into(&cell, b);
    tr_rp_table_print(r, &tb, b);
    tr_rp_table_fini(&tb);
    if (n < h->n) tr_buf_addf(b, "(%zu more functions; --top 0 shows all)\n", h->n - n);
}

void tr_rp_text_hot(const tr_report *r, tr_buf *b)
{
    const tr_hot_stats *h = &r->hot;
    if (!h->merged.samples && !r->explicit_sections) return;
    tr_buf title;
    tr_buf_init(&title, 0);
    tr_buf_addf(&title, "hot functions (%llu samples, all threads",
                (unsigned long long)h->merged.samples);
    if (h->merged.frameless)
        tr_buf_addf(&title, "; %llu without frames left out",
                    (unsigned long long)h->merged.frameless);
    tr_buf_addc(&title, ')');
    tr_rp_heading(r, b, title.p);
    if (!h->merged.samples)
        tr_buf_adds(b, "no samples\n");
    else
        hot_table_print(r, b, &h->merged);
    for (size_t i = 0; i < h->n_threads; i++) {
        tr_buf_reset(&title);
        tr_buf_adds(&title, "hot functions of ");
        tr_rp_track_label(&title, r->t, h->threads[i].track);
        tr_buf_addf(&title, " (%llu samples)", (unsigned long long)h->threads[i].samples);
        tr_rp_heading(r, b, title.p);
        hot_table_print(r, b, &h->threads[i]);
    }
    tr_buf_fini_into(&title, b);
}

/* A line per metric: its median and MAD, and the ranks out of line. */
static void stragglers_metrics(const tr_report *r, tr_buf *b)
{
    const tr_trace *t = r->t;
    const tr_straggler_stats *s = &r->strag;
    for (int m = 0; m < TR_METRIC_COUNT; m++) {
        if (!s->has[m]) continue;
        tr_buf_addf(b, "%s: median ", tr_rank_metric_name(m));
        tr_buf_add_duration(b, s->median[m]);
        tr_buf_adds(b, ", MAD ");
        tr_buf_add_duration(b, s->mad[m]);
        size_t flagged = 0;
        for (size_t i = 0; i < s->n; i++) {
            int o = s->rows[i].outlier[m];
            if (!o) continue;
            tr_buf_adds(b, flagged++ ? ", " : "; outliers: ");
            tr_rp_process_label(b, t, tr_process_get(t, s->rows[i].process));
            tr_buf_addf(b, " %s (", o > 0 ? "slow" : "fast");
            tr_buf_add_duration(b, s->rows[i].value[m]);
            tr_buf_addf(b, ", %+.0f%%)",
                        s->median[m] ? 100.0 * (double)(s->rows[i].value[m] - s->median[m]) /
                                           (double)s->median[m]
                                     : 0.0);
        }
        if (!flagged) tr_buf_adds(b, "; no outliers");
        tr_buf_addc(b, '\n');
    }
}

/* A row per rank, outliers marked with an arrow. */
static void stragglers_table(const tr_report *r, tr_buf *b, tr_buf *cell)
{
    static const char *const heads[] = {"rank", "busy", "I/O time", "mean step", "steps"};
    const tr_straggler_stats *s = &r->strag;
    tr_rp_table tb;
    tr_rp_table_init(&tb, "lrrrr", -1);
    tr_rp_cells(&tb, heads, 5);
    size_t n = tr_rp_top(r, s->n, 1);
    for (size_t i = 0; i < n; i++) {
        const tr_rank_row *row = &s->rows[i];
        tr_buf_reset(cell);
        tr_rp_process_label(cell, r->t, tr_process_get(r->t, row->process));
        tr_rp_cell(&tb, "%s", cell->p);
        for (int m = 0; m < TR_METRIC_COUNT; m++) {
            tr_buf_reset(cell);
            if (row->value[m] < 0 || !s->has[m]) {
                tr_buf_adds(cell, "-");
            } else {
                tr_buf_add_duration(cell, row->value[m]);
                if (row->outlier[m])
                    tr_buf_adds(cell, row->outlier[m] > 0 ? (r->o.ascii ? " ^" : " ▲")
                                                          : (r->o.ascii ? " v" : " ▼"));
            }
            tr_rp_cell(&tb, "%s", cell->p);
        }
        tr_rp_cell(&tb, "%llu", (unsigned long long)row->steps);
    }
    tr_rp_table_print(r, &tb, b);
    tr_rp_table_fini(&tb);
    if (n < s->n) tr_buf_addf(b, "(%zu more ranks; --top 0 shows all)\n", s->n - n);
}

void tr_rp_text_stragglers(const tr_report *r, tr_buf *b)
{
    const tr_straggler_stats *s = &r->strag;
    if (!s->n && !r->explicit_sections) return;
    tr_buf cell;
    tr_buf_init(&cell, 0);
    tr_buf_addf(&cell, "stragglers (outlier: |x - median| > %g * MAD and > 1%% of the median)",
                s->k);
    tr_rp_heading(r, b, cell.p);
    if (!s->n) {
        tr_buf_adds(b, "fewer than two ranks\n");
    } else {
        stragglers_metrics(r, b);
        stragglers_table(r, b, &cell);
    }
    tr_buf_fini_into(&cell, b);
}

void tr_rp_text_hangs(const tr_report *r, tr_buf *b)
{
    int tree = r->tree.n_members > 1, found = tr_hangs_found(&r->events);
    if (!tree && !found && !r->explicit_sections) return;
    tr_rp_heading(r, b, "hangs (where members part and who is behind; what the events say)");
    /* what these could not allocate is lost from B (tr_buf.nomem) */
    if (r->tree.n_members && tr_stree_text(r->t, &r->tree, b) != TR_OK) b->nomem = 1;
    if (tr_hangs_text(r->t, &r->events, tr_rp_top(r, SIZE_MAX, 1), r->explicit_sections, b) !=
        TR_OK)
        b->nomem = 1;
}

static void gpu_streams(const tr_report *r, tr_buf *b, tr_buf *cell)
{
    static const char *const heads[] = {"stream",      "busy",   "idle",   "kernels",
                                        "kernel time", "memcpy", "memset", "comm"};
    const tr_gpu_stats *g = &r->gpu;
    tr_rp_table tb;
    tr_rp_table_init(&tb, "lrrrrrrr", 0);
    tr_rp_cells(&tb, heads, 8);
    size_t n = tr_rp_top(r, g->n_streams, 1);
    for (size_t i = 0; i < n; i++) {
        const tr_gpu_stream *s = &g->streams[i];
        tr_buf_reset(cell);
        tr_rp_track_label(cell, r->t, s->track);
        tr_rp_cell(&tb, "%s", cell->p);
        tr_rp_cell_duration(&tb, s->busy);
        tr_rp_cell_duration(&tb, s->idle);
        tr_rp_cell(&tb, "%llu", (unsigned long long)s->count[TR_GPU_KERNEL]);
        int64_t w[] = {s->time[TR_GPU_KERNEL], s->time[TR_GPU_MEMCPY], s->time[TR_GPU_MEMSET],
                       s->comm};
        for (size_t j = 0; j < 4; j++) tr_rp_cell_duration(&tb, w[j]);
    }
    tr_rp_table_print(r, &tb, b);
    tr_rp_table_fini(&tb);
}

static void gpu_devices(const tr_report *r, tr_buf *b, tr_buf *cell)
{
    static const char *const heads[] = {"device", "kernels",    "memcpy",    "memset",
                                        "comm",   "comm share", "overlapped"};
    const tr_trace *t = r->t;
    const tr_gpu_stats *g = &r->gpu;
    tr_rp_heading(r, b, "GPU devices (comm = NCCL/RCCL kernels; overlap = comm while compute ran)");
    tr_rp_table tb;
    tr_rp_table_init(&tb, "lrrrrrr", -1);
    tr_rp_cells(&tb, heads, 7);
    for (size_t i = 0; i < g->n_devices; i++) {
        const tr_gpu_device *d = &g->devices[i];
        const tr_process *p = tr_process_get(t, d->process);
        tr_buf_reset(cell);
        if (*tr_rp_str(t, p->name))
            tr_buf_adds(cell, tr_rp_str(t, p->name));
        else
            tr_rp_process_label(cell, t, p);
        tr_rp_cell(&tb, "%s", cell->p);
        int64_t v[] = {d->time[TR_GPU_KERNEL], d->time[TR_GPU_MEMCPY], d->time[TR_GPU_MEMSET],
                       d->comm};
        for (size_t j = 0; j < 4; j++) tr_rp_cell_duration(&tb, v[j]);
        tr_buf_reset(cell);
        tr_rp_pct(cell, (double)d->comm, (double)d->time[TR_GPU_KERNEL]);
        tr_rp_cell(&tb, "%s", cell->p);
        tr_buf_reset(cell);
        if (d->comm_wall)
            tr_rp_pct(cell, (double)d->overlap, (double)d->comm_wall);
        else
            tr_buf_adds(cell, "-");
        tr_rp_cell(&tb, "%s", cell->p);
    }
    tr_rp_table_print(r, &tb, b);
    tr_rp_table_fini(&tb);
}

void tr_rp_text_gpu(const tr_report *r, tr_buf *b)
{
    if (!r->gpu.n_streams && !r->explicit_sections) return;
    tr_rp_heading(r, b, "GPU streams");
    if (!r->gpu.n_streams) {
        tr_buf_adds(b, "no GPU kernels, memcpy or memset\n");
        return;
    }
    tr_buf cell;
    tr_buf_init(&cell, 0);
    gpu_streams(r, b, &cell);
    gpu_devices(r, b, &cell);
    tr_buf_fini_into(&cell, b);
}
