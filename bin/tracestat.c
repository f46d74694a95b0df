/*
** tracestat: the summaries people debug with, from any trace tracecat reads.
**
** The analyses live in lib/ (tr_analysis.h); this file parses options and
** formats their results three ways: aligned tables with bars for people,
** JSON (schema "tracestat/1", documented in README.md) and CSV for scripts.
*/
#include "cli.h"
#include "tr_analysis.h"
#include "tr_load.h"
#include "tr_readers.h"
#include "tr_writers.h"
#include "tr_text.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static const char usage_text[] =
    "Usage: tracestat [OPTION]... INPUT...\n"
    "Summarise a trace: busy and idle time per lane, the op breakdown, per-rank I/O,\n"
    "hot stacks, stragglers and hangs across ranks, GPU streams.  INPUT is anything\n"
    "tracecat reads (a file, a run folder, an archive, - for standard input); several\n"
    "inputs are merged into one trace.\n"
    "\n"
    "Sections (all that have data are printed, in this order):\n"
    "  overview    inputs, time span, event counts, skipped lines\n"
    "  lanes       per lane: busy time, utilization, idle time, longest idle gaps, ops\n"
    "  ops         per slice name and per category: count, total, mean, p50, p95, max, bytes\n"
    "  io          per rank: bytes, ops by kind, I/O time, bandwidth; request sizes;\n"
    "              files with their access pattern (Darshan's conventions)\n"
    "  hot         hottest functions of sampled stacks, by self and total samples\n"
    "  stragglers  ranks whose busy, I/O or step time is an outlier (median +- k*MAD)\n"
    "  hangs       threads grouped by identical last stacks, the odd one out first\n"
    "  gpu         GPU streams and devices: kernels, memcpy, memset, NCCL overlap\n"
    "\n"
    "Options:\n"
    "      --section NAME    print only this section (repeatable, or NAME,NAME)\n"
    "      --json            print JSON (schema tracestat/1, see README.md)\n"
    "      --csv SECTION     print one table as CSV: lanes, ops, categories, io-ranks,\n"
    "                        io-layers, io-files, io-sizes, hot, stragglers, hangs,\n"
    "                        gpu-streams, gpu-devices\n"
    "      --sort KEY        ops order: total (default), count, mean, max\n"
    "      --top N           rows per table (default 20 in tables, all in JSON and\n"
    "                        CSV; 0 = all)\n"
    "      --gaps N          idle gaps listed per lane (default 3)\n"
    "      --k K             straggler threshold: |x - median| > K * MAD (default 3)\n"
    "      --step GLOB       names of step slices (default ProfilerStep*)\n"
    "      --per-thread      hot: a table per thread besides the merged one\n"
    "      --by-total        hot: order by total samples instead of self\n"
    "      --ascii           plain ASCII tables and bars\n"
    "      --width N         output width (default: the terminal's, else $COLUMNS, else 100)\n"
    "  -f, --from FORMAT     input format (default: probe the content)\n"
    "      --rank FILE=N     the processes read from FILE are rank N "
    "(repeatable)\n" TR_CLI_LOAD_HELP
    "      --gt-pairing MODE GT worker slices: 'batch' (default) or 'visualize'\n"
    "      --strict          a bad record is an error, not a warning\n"
    "  -q, --quiet           errors only\n"
    "  -v, --verbose         show every warning\n"
    "      --progress        always draw progress on stderr\n"
    "      --no-progress     never draw progress\n"
    "  -h, --help            show this help and exit\n"
    "  -V, --version         show the version and exit\n"
    "\n"
    "Exit status: 0 success (warnings too), 1 bad input or I/O failure, 2 usage error.\n"
    "Examples:\n"
    "  tracestat run.log\n"
    "  tracestat recorder-run/ --section io\n"
    "  tracestat trace.json.gz --csv ops --sort count --top 10\n"
    "  tracestat dumps.txt --section hangs,hot --json\n";

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
    OPT_RANK,
    OPT_GT_PAIRING,
    OPT_STRICT,
    OPT_PROGRESS,
    OPT_NO_PROGRESS
};

static const struct option options[] = {
    {"ascii", no_argument, NULL, OPT_ASCII},
    {"by-total", no_argument, NULL, OPT_BY_TOTAL},
    {"csv", required_argument, NULL, OPT_CSV},
    {"from", required_argument, NULL, 'f'},
    {"gaps", required_argument, NULL, OPT_GAPS},
    {"gt-pairing", required_argument, NULL, OPT_GT_PAIRING},
    {"help", no_argument, NULL, 'h'},
    {"json", no_argument, NULL, OPT_JSON},
    {"k", required_argument, NULL, OPT_K},
    {"no-progress", no_argument, NULL, OPT_NO_PROGRESS},
    {"per-thread", no_argument, NULL, OPT_PER_THREAD},
    {"progress", no_argument, NULL, OPT_PROGRESS},
    {"quiet", no_argument, NULL, 'q'},
    {"rank", required_argument, NULL, OPT_RANK},
    {"section", required_argument, NULL, OPT_SECTION},
    {"sort", required_argument, NULL, OPT_SORT},
    {"step", required_argument, NULL, OPT_STEP},
    {"strict", no_argument, NULL, OPT_STRICT},
    {"top", required_argument, NULL, OPT_TOP},
    {"verbose", no_argument, NULL, 'v'},
    {"version", no_argument, NULL, 'V'},
    TR_CLI_LOAD_OPTIONS,
    {"width", required_argument, NULL, OPT_WIDTH},
    {NULL, 0, NULL, 0},
};

enum sec {
    SEC_OVERVIEW = 0,
    SEC_LANES,
    SEC_OPS,
    SEC_IO,
    SEC_HOT,
    SEC_STRAGGLERS,
    SEC_HANGS,
    SEC_GPU,
    SEC_COUNT
};

static const char *const sec_names[SEC_COUNT] = {"overview", "lanes",      "ops",   "io",
                                                 "hot",      "stragglers", "hangs", "gpu"};

/* CSV tables and the section that computes each. */
static const struct {
    const char *name;
    int sec;
} csv_tables[] = {
    {"lanes", SEC_LANES}, {"ops", SEC_OPS},         {"categories", SEC_OPS},
    {"io-ranks", SEC_IO}, {"io-layers", SEC_IO},    {"io-files", SEC_IO},
    {"io-sizes", SEC_IO}, {"hot", SEC_HOT},         {"stragglers", SEC_STRAGGLERS},
    {"hangs", SEC_HANGS}, {"gpu-streams", SEC_GPU}, {"gpu-devices", SEC_GPU},
};

typedef struct args {
    const char *from;
    tr_rank_override *ranks;
    size_t n_ranks;
    int gt_pairing;
    unsigned sections; /* bits of enum sec; 0 = all */
    int json;
    const char *csv;
    int sort;
    long top; /* -1: the default */
    int by_total;
    int ascii;
    int width;
    tr_stat_opts so;
    char **inputs;
    int n_inputs;
    tr_cli_loadopts load; /* --align, --align-on, --tz, --threads */
} args;

/* ---- what was computed ---- */

typedef struct results {
    const tr_trace *t;
    unsigned want; /* sections to compute and print */
    int explicit_sections;
    int have_span;
    int64_t first, last;
    tr_lane_stats lanes;
    tr_op_stats ops;
    tr_io_stats io;
    tr_hot_stats hot;
    tr_straggler_stats strag;
    tr_hang_stats hangs;
    tr_gpu_stats gpu;
} results;

static int compute(results *r, const args *a, tr_error *e)
{
    const tr_trace *t = r->t;
    r->have_span = tr_stat_span(t, &r->first, &r->last);
    if ((r->want & 1u << SEC_LANES) && tr_lane_stats_compute(t, &a->so, &r->lanes, e) < 0)
        return -1;
    if (r->want & 1u << SEC_OPS) {
        if (tr_op_stats_compute(t, &r->ops, e) < 0) return -1;
        tr_op_stats_sort(t, r->ops.by_name, r->ops.n_names, a->sort);
        tr_op_stats_sort(t, r->ops.by_cat, r->ops.n_cats, a->sort);
    }
    if ((r->want & 1u << SEC_IO) && tr_io_stats_compute(t, &r->io, e) < 0) return -1;
    if (r->want & 1u << SEC_HOT) {
        if (tr_hot_stats_compute(t, &a->so, &r->hot, e) < 0) return -1;
        if (a->by_total) {
            tr_hot_table_sort(t, &r->hot.merged, 1);
            for (size_t i = 0; i < r->hot.n_threads; i++)
                tr_hot_table_sort(t, &r->hot.threads[i], 1);
        }
    }
    if ((r->want & 1u << SEC_STRAGGLERS) && tr_straggler_stats_compute(t, &a->so, &r->strag, e) < 0)
        return -1;
    if ((r->want & 1u << SEC_HANGS) && tr_hang_stats_compute(t, &r->hangs, e) < 0) return -1;
    if ((r->want & 1u << SEC_GPU) && tr_gpu_stats_compute(t, &r->gpu, e) < 0) return -1;
    return 0;
}

static void results_fini(results *r)
{
    tr_lane_stats_fini(&r->lanes);
    tr_op_stats_fini(&r->ops);
    tr_io_stats_fini(&r->io);
    tr_hot_stats_fini(&r->hot);
    tr_straggler_stats_fini(&r->strag);
    tr_hang_stats_fini(&r->hangs);
    tr_gpu_stats_fini(&r->gpu);
}

/* ---- names of things ---- */

static const char *str(const tr_trace *t, tr_str s)
{
    return tr_str_get(t, s, NULL);
}

/* "rank 3", "pid 1234" or the process name: how a process is called in a row. */
static void add_process_label(tr_buf *b, const tr_trace *t, const tr_process *p)
{
    if (p->rank >= 0)
        tr_buf_addf(b, "rank %d", p->rank);
    else if (p->pid >= 0)
        tr_buf_addf(b, "pid %lld", (long long)p->pid);
    else
        tr_buf_adds(b, *str(t, p->name) ? str(t, p->name) : "process");
}

/* A lane's label: the track name, prefixed by its process when the trace has several. */
static void add_track_label(tr_buf *b, const tr_trace *t, uint32_t track)
{
    const tr_track *tk = tr_track_get(t, track);
    if (tr_process_count(t) > 1) {
        add_process_label(b, t, tr_process_get(t, tk->process));
        tr_buf_adds(b, " ");
    }
    if (*str(t, tk->name))
        tr_buf_adds(b, str(t, tk->name));
    else if (tk->tid >= 0)
        tr_buf_addf(b, "%s %lld", tr_track_kind_name(tk->kind), (long long)tk->tid);
    else
        tr_buf_adds(b, tr_track_kind_name(tk->kind));
}

/* "function (file:line)" of a frame, as py-spy prints it. */
static void add_frame_label(tr_buf *b, const tr_trace *t, uint32_t frame)
{
    const tr_frame *f = tr_frame_get(t, frame);
    if (!f) return;
    tr_buf_adds(b, str(t, f->function));
    if (*str(t, f->file)) {
        tr_buf_addf(b, " (%s", str(t, f->file));
        if (f->line > 0) tr_buf_addf(b, ":%d", f->line);
        tr_buf_adds(b, ")");
    }
}

/* ---- human units ---- */

static void add_dur(tr_buf *b, int64_t ns)
{
    double v = (double)ns;
    double m = v < 0 ? -v : v;
    if (m >= 1e9)
        tr_buf_addf(b, "%.3fs", v / 1e9);
    else if (m >= 1e6)
        tr_buf_addf(b, "%.1fms", v / 1e6);
    else if (m >= 1e3)
        tr_buf_addf(b, "%.1fus", v / 1e3);
    else
        tr_buf_addf(b, "%lldns", (long long)ns);
}

static void add_size(tr_buf *b, int64_t bytes)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024) {
        tr_buf_addf(b, "%lld B", (long long)bytes);
        return;
    }
    double v = (double)bytes / 1024;
    int u = 0;
    while (v >= 1024 && u < 3) v /= 1024, u++;
    tr_buf_addf(b, "%.1f %s", v, units[u]);
}

static void add_rate(tr_buf *b, double bytes_per_s)
{
    add_size(b, (int64_t)bytes_per_s);
    tr_buf_adds(b, "/s");
}

static void add_pct(tr_buf *b, double part, double whole)
{
    tr_buf_addf(b, "%.1f%%", whole > 0 ? 100.0 * part / whole : 0.0);
}

/* ---- tables ---- */

/* Display width of UTF-8 text: one column per code point (names and bars are narrow). */
static size_t text_width(const char *s)
{
    size_t w = 0;
    for (; *s; s++) w += ((unsigned char)*s & 0xc0) != 0x80;
    return w;
}

typedef struct table {
    size_t ncol;
    const char *align; /* 'l' or 'r' per column */
    tr_buf cells;      /* every cell NUL-terminated, row after row */
    tr_vec offs;       /* size_t offsets of the cells */
    int flex;          /* column cut to fit the width, -1 none */
} table;

static void table_init(table *tb, const char *align, int flex)
{
    tb->ncol = strlen(align);
    tb->align = align;
    tb->flex = flex;
    tr_buf_init(&tb->cells, 0);
    tr_vec_init(&tb->offs, sizeof(size_t));
}

static void table_fini(table *tb)
{
    tr_buf_fini(&tb->cells);
    tr_vec_fini(&tb->offs);
}

static void table_cell(table *tb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void table_cell(table *tb, const char *fmt, ...)
{
    size_t *off = tr_vec_push(&tb->offs);
    if (!off) return;
    *off = tb->cells.len;
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof small) {
        tr_buf_add(&tb->cells, small, (size_t)n);
    } else if (n >= 0) {
        char *big = malloc((size_t)n + 1);
        if (big) {
            va_start(ap, fmt);
            vsnprintf(big, (size_t)n + 1, fmt, ap);
            va_end(ap);
            tr_buf_add(&tb->cells, big, (size_t)n);
            free(big);
        }
    }
    tr_buf_addc(&tb->cells, '\0');
}

static const char *table_at(const table *tb, size_t row, size_t col)
{
    size_t i = row * tb->ncol + col;
    return i < tb->offs.len ? tb->cells.p + TR_VEC_AT(&tb->offs, size_t, i) : "";
}

static size_t table_rows(const table *tb)
{
    return tb->offs.len / tb->ncol;
}

/* The widths of the columns (the first row is the header). */
static void table_widths(const table *tb, size_t *w)
{
    for (size_t c = 0; c < tb->ncol; c++) {
        w[c] = 0;
        for (size_t r = 0; r < table_rows(tb); r++) {
            size_t x = text_width(table_at(tb, r, c));
            if (x > w[c]) w[c] = x;
        }
    }
}

/* Appends S cut to at most MAX columns, with an ellipsis when cut. */
static void add_cut(tr_buf *b, const char *s, size_t max, int ascii)
{
    if (text_width(s) <= max) {
        tr_buf_adds(b, s);
        return;
    }
    size_t keep = max > 0 ? max - 1 : 0, w = 0;
    const char *p = s;
    while (*p && w < keep) {
        p++;
        while (((unsigned char)*p & 0xc0) == 0x80) p++;
        w++;
    }
    tr_buf_add(b, s, (size_t)(p - s));
    if (max > 0) tr_buf_adds(b, ascii ? "~" : "…");
}

static void table_print(const table *tb, tr_buf *b, int width, int ascii)
{
    size_t w[16];
    table_widths(tb, w);
    size_t total = 0;
    for (size_t c = 0; c < tb->ncol; c++) total += w[c] + (c ? 2 : 0);
    /* Cut the flexible column (names, details) so that lines fit. */
    if (tb->flex >= 0 && total > (size_t)width) {
        size_t over = total - (size_t)width, f = (size_t)tb->flex;
        w[f] = w[f] > over + 8 ? w[f] - over : (w[f] < 8 ? w[f] : 8);
    }
    for (size_t r = 0; r < table_rows(tb); r++) {
        tr_buf line;
        tr_buf_init(&line, 0);
        for (size_t c = 0; c < tb->ncol; c++) {
            const char *cell = table_at(tb, r, c);
            size_t cw = text_width(cell) < w[c] ? text_width(cell) : w[c];
            if (c) tr_buf_adds(&line, "  ");
            if (tb->align[c] == 'r')
                for (size_t k = cw; k < w[c]; k++) tr_buf_addc(&line, ' ');
            add_cut(&line, cell, w[c], ascii);
            if (tb->align[c] != 'r' && c + 1 < tb->ncol)
                for (size_t k = cw; k < w[c]; k++) tr_buf_addc(&line, ' ');
        }
        while (line.len && line.p[line.len - 1] == ' ') line.p[--line.len] = '\0';
        tr_buf_add(b, line.p, line.len);
        tr_buf_addc(b, '\n');
        tr_buf_fini(&line);
        if (r == 0) {
            size_t sum = 0;
            for (size_t c = 0; c < tb->ncol; c++) sum += w[c] + (c ? 2 : 0);
            for (size_t k = 0; k < sum; k++) tr_buf_adds(b, ascii ? "-" : "─");
            tr_buf_addc(b, '\n');
        }
    }
}

/* A bar of WIDTH columns filled to FRAC (0..1), in eighths of a block. */
static void add_bar(tr_buf *b, double frac, int width, int ascii)
{
    if (frac < 0) frac = 0;
    if (frac > 1) frac = 1;
    static const char *const eighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
    int cells8 = (int)(frac * width * 8 + 0.5), full = cells8 / 8, part = cells8 % 8;
    if (ascii) {
        full = (int)(frac * width + 0.5);
        for (int i = 0; i < width; i++) tr_buf_addc(b, i < full ? '#' : '.');
        return;
    }
    for (int i = 0; i < full; i++) tr_buf_adds(b, "█");
    int used = full;
    if (part && used < width) tr_buf_adds(b, eighths[part]), used++;
    for (; used < width; used++) tr_buf_adds(b, "░");
}

static void heading(tr_buf *b, const char *title, int ascii)
{
    if (b->len) tr_buf_addc(b, '\n');
    tr_buf_addf(b, "%s %s\n", ascii ? "==" : "──", title);
}

static size_t top_n(const args *a, size_t n, int human)
{
    long top = a->top >= 0 ? a->top : human ? 20 : 0;
    return top > 0 && (size_t)top < n ? (size_t)top : n;
}

/* ---- human sections ---- */

static void human_overview(const results *r, tr_buf *b, int ascii)
{
    const tr_trace *t = r->t;
    heading(b, "overview", ascii);
    for (size_t i = 0; i < tr_input_count(t); i++) {
        const tr_input_info *in = tr_input_get(t, (uint32_t)i);
        tr_buf_addf(b, "input: %s (%s)\n", str(t, in->path), str(t, in->format));
        if (in->lines_skipped || in->warnings)
            tr_buf_addf(b, "  skipped %llu lines, %llu bad records\n",
                        (unsigned long long)in->lines_skipped, (unsigned long long)in->warnings);
    }
    tr_buf_adds(b, "span: ");
    if (r->have_span) {
        add_dur(b, r->first);
        tr_buf_adds(b, " .. ");
        add_dur(b, r->last);
        tr_buf_adds(b, " (");
        add_dur(b, r->last - r->first);
        tr_buf_adds(b, ")\n");
    } else {
        tr_buf_adds(b, "empty\n");
    }
    tr_slices s;
    tr_instants in;
    tr_counters c;
    tr_samples sm;
    tr_trace_slices(t, &s);
    tr_trace_instants(t, &in);
    tr_trace_counters(t, &c);
    tr_trace_samples(t, &sm);
    tr_buf_addf(b, "events: %zu slices, %zu instants, %zu counter values, %zu samples\n", s.n, in.n,
                c.n, sm.n);
    tr_buf_addf(b, "lanes: %zu tracks of %zu processes\n", tr_track_count(t), tr_process_count(t));
}

static void human_lanes(const results *r, const args *a, tr_buf *b)
{
    const tr_trace *t = r->t;
    const tr_lane_stats *ls = &r->lanes;
    if (!ls->n && !r->explicit_sections) return;
    heading(b, "lanes (busy = union of slices; ops = top-level slices)", a->ascii);
    if (!ls->n) {
        tr_buf_adds(b, "no slices\n");
        return;
    }
    table tb;
    table_init(&tb, "lrrlrl", 5);
    table_cell(&tb, "lane");
    table_cell(&tb, "busy");
    table_cell(&tb, "util");
    table_cell(&tb, "activity");
    table_cell(&tb, "idle");
    table_cell(&tb, "ops");
    size_t n = top_n(a, ls->n, 1);
    tr_buf cell;
    tr_buf_init(&cell, 0);
    for (size_t i = 0; i < n; i++) {
        const tr_lane_stat *l = &ls->lanes[i];
        tr_buf_reset(&cell);
        add_track_label(&cell, t, l->track);
        table_cell(&tb, "%s", cell.p);
        tr_buf_reset(&cell);
        add_dur(&cell, l->busy);
        table_cell(&tb, "%s", cell.p);
        table_cell(&tb, "%.1f%%", 100.0 * l->utilization);
        table_cell(&tb, "%s", ""); /* the bar, once its width is known */
        tr_buf_reset(&cell);
        add_dur(&cell, l->idle);
        table_cell(&tb, "%s", cell.p);
        tr_buf_reset(&cell);
        tr_buf_addf(&cell, "%llu", (unsigned long long)l->ops);
        for (size_t k = 0; k < l->n_names && k < 4; k++)
            tr_buf_addf(&cell, "%s%llu %s", k ? ", " : " (", (unsigned long long)l->names[k].count,
                        str(t, l->names[k].name));
        if (l->n_names > 4) tr_buf_adds(&cell, ", ...");
        if (l->n_names) tr_buf_adds(&cell, ")");
        table_cell(&tb, "%s", cell.p);
    }
    /* The bar takes what the other columns leave, keeping 20 for the ops. */
    size_t w[6];
    table_widths(&tb, w);
    int fixed = (int)(w[0] + w[1] + w[2] + w[4] + 10) + 20;
    int bar = a->width - fixed;
    if (bar > 40) bar = 40;
    if (bar < 10) bar = 10;
    table tb2;
    table_init(&tb2, "lrrlrl", 5);
    for (size_t row = 0; row <= n; row++) {
        for (size_t c = 0; c < 6; c++) {
            if (c == 3 && row > 0) {
                tr_buf_reset(&cell);
                add_bar(&cell, ls->lanes[row - 1].utilization, bar, a->ascii);
                table_cell(&tb2, "%s", cell.p);
            } else {
                table_cell(&tb2, "%s", table_at(&tb, row, c));
            }
        }
    }
    table_print(&tb2, b, a->width, a->ascii);
    table_fini(&tb);
    table_fini(&tb2);
    if (n < ls->n) tr_buf_addf(b, "(%zu more lanes; --top 0 shows all)\n", ls->n - n);
    /* The longest idle gaps, a row per lane. */
    if (a->so.gaps) {
        table_init(&tb, "ll", 1);
        table_cell(&tb, "lane");
        table_cell(&tb, "longest idle gaps (length at start)");
        for (size_t i = 0; i < n; i++) {
            const tr_lane_stat *l = &ls->lanes[i];
            if (!l->n_gaps) continue;
            tr_buf_reset(&cell);
            add_track_label(&cell, t, l->track);
            table_cell(&tb, "%s", cell.p);
            tr_buf_reset(&cell);
            for (size_t g = 0; g < l->n_gaps; g++) {
                if (g) tr_buf_adds(&cell, ", ");
                add_dur(&cell, l->gaps[g].dur);
                tr_buf_adds(&cell, " at ");
                add_dur(&cell, l->gaps[g].ts);
            }
            table_cell(&tb, "%s", cell.p);
        }
        tr_buf_addc(b, '\n');
        table_print(&tb, b, a->width, a->ascii);
        table_fini(&tb);
    }
    tr_buf_fini(&cell);
}

static void ops_table(const results *r, const args *a, tr_buf *b, const tr_op_stat *v, size_t nv,
                      const char *what)
{
    table tb;
    table_init(&tb, "lrrrrrrr", 0);
    table_cell(&tb, "%s", what);
    const char *heads[] = {"count", "total", "mean", "p50", "p95", "max", "bytes"};
    for (size_t i = 0; i < 7; i++) table_cell(&tb, "%s", heads[i]);
    size_t n = top_n(a, nv, 1);
    tr_buf cell;
    tr_buf_init(&cell, 0);
    for (size_t i = 0; i < n; i++) {
        const tr_op_stat *o = &v[i];
        const char *k = str(r->t, o->key);
        table_cell(&tb, "%s", *k ? k : "(none)");
        table_cell(&tb, "%llu", (unsigned long long)o->count);
        int64_t vals[] = {o->total, (int64_t)(o->mean + 0.5), o->p50, o->p95, o->max};
        for (size_t j = 0; j < 5; j++) {
            tr_buf_reset(&cell);
            add_dur(&cell, vals[j]);
            table_cell(&tb, "%s", cell.p);
        }
        tr_buf_reset(&cell);
        if (o->bytes >= 0)
            add_size(&cell, o->bytes);
        else
            tr_buf_adds(&cell, "-");
        table_cell(&tb, "%s", cell.p);
    }
    tr_buf_fini(&cell);
    table_print(&tb, b, a->width, a->ascii);
    table_fini(&tb);
    if (n < nv) tr_buf_addf(b, "(%zu more; --top 0 shows all)\n", nv - n);
}

static void human_ops(const results *r, const args *a, tr_buf *b)
{
    if (!r->ops.n_names && !r->explicit_sections) return;
    static const char *const keys[] = {"total", "count", "mean", "max"};
    tr_buf title;
    tr_buf_init(&title, 0);
    tr_buf_addf(&title, "ops by name (sorted by %s; p50/p95 nearest rank)", keys[a->sort]);
    heading(b, title.p, a->ascii);
    tr_buf_fini(&title);
    if (!r->ops.n_names) {
        tr_buf_adds(b, "no slices\n");
        return;
    }
    ops_table(r, a, b, r->ops.by_name, r->ops.n_names, "name");
    heading(b, "ops by category", a->ascii);
    ops_table(r, a, b, r->ops.by_cat, r->ops.n_cats, "category");
}

static void io_row_label(tr_buf *b, const tr_trace *t, const tr_io_rank *rk)
{
    add_process_label(b, t, tr_process_get(t, rk->process));
}

static void human_io(const results *r, const args *a, tr_buf *b)
{
    const tr_trace *t = r->t;
    const tr_io_stats *io = &r->io;
    if (!io->n_ranks && !r->explicit_sections) return;
    heading(b, "I/O per rank (outermost calls: an MPI-IO call, not its POSIX calls)", a->ascii);
    if (!io->n_ranks) {
        tr_buf_adds(b, "no I/O calls\n");
        return;
    }
    table tb;
    table_init(&tb, "lrrrrrrrrrrrrrr", -1);
    const char *heads[] = {"rank",  "read",  "written", "reads",    "writes", "opens",     "stats",
                           "seeks", "syncs", "meta",    "I/O time", "of run", "bandwidth", "files"};
    for (size_t i = 0; i < 14; i++) table_cell(&tb, "%s", heads[i]);
    table_cell(&tb, "%s", "");
    tr_buf cell;
    tr_buf_init(&cell, 0);
    size_t n = top_n(a, io->n_ranks, 1);
    for (size_t i = 0; i < n; i++) {
        const tr_io_rank *rk = &io->ranks[i];
        tr_buf_reset(&cell);
        io_row_label(&cell, t, rk);
        table_cell(&tb, "%s", cell.p);
        tr_buf_reset(&cell);
        add_size(&cell, rk->c.bytes_read);
        table_cell(&tb, "%s", cell.p);
        tr_buf_reset(&cell);
        add_size(&cell, rk->c.bytes_written);
        table_cell(&tb, "%s", cell.p);
        for (int k = 0; k < TR_IO_KIND_COUNT; k++)
            table_cell(&tb, "%llu", (unsigned long long)rk->c.ops[k]);
        tr_buf_reset(&cell);
        add_dur(&cell, rk->c.time);
        table_cell(&tb, "%s", cell.p);
        tr_buf_reset(&cell);
        add_pct(&cell, (double)rk->c.time, (double)rk->run_time);
        table_cell(&tb, "%s", cell.p);
        tr_buf_reset(&cell);
        if (rk->c.time > 0)
            add_rate(&cell,
                     (double)(rk->c.bytes_read + rk->c.bytes_written) * 1e9 / (double)rk->c.time);
        else
            tr_buf_adds(&cell, "-");
        table_cell(&tb, "%s", cell.p);
        table_cell(&tb, "%u", rk->files);
        table_cell(&tb, "%s", i == io->slowest ? "slowest" : "");
    }
    table_print(&tb, b, a->width, a->ascii);
    table_fini(&tb);
    if (n < io->n_ranks) tr_buf_addf(b, "(%zu more ranks; --top 0 shows all)\n", io->n_ranks - n);
    tr_buf_adds(b, "total: read ");
    add_size(b, io->total.bytes_read);
    tr_buf_adds(b, ", written ");
    add_size(b, io->total.bytes_written);
    tr_buf_adds(b, ", I/O time ");
    add_dur(b, io->total.time);
    tr_buf_addf(b, "; %zu files, %u shared", io->n_files, io->shared_files);
    if (io->bandwidth > 0) {
        tr_buf_adds(b, "; bandwidth by slowest rank ");
        add_rate(b, io->bandwidth);
    }
    tr_buf_addc(b, '\n');

    heading(b, "I/O per layer (every call of the layer)", a->ascii);
    table_init(&tb, "lrrrrrrrrrr", -1);
    const char *lh[] = {"layer", "read",  "written", "reads", "writes", "opens",
                        "stats", "seeks", "syncs",   "meta",  "time"};
    for (size_t i = 0; i < 11; i++) table_cell(&tb, "%s", lh[i]);
    for (size_t i = 0; i < io->n_layers; i++) {
        const tr_io_layer *l = &io->layers[i];
        table_cell(&tb, "%s", *str(t, l->cat) ? str(t, l->cat) : "(none)");
        tr_buf_reset(&cell);
        add_size(&cell, l->c.bytes_read);
        table_cell(&tb, "%s", cell.p);
        tr_buf_reset(&cell);
        add_size(&cell, l->c.bytes_written);
        table_cell(&tb, "%s", cell.p);
        for (int k = 0; k < TR_IO_KIND_COUNT; k++)
            table_cell(&tb, "%llu", (unsigned long long)l->c.ops[k]);
        tr_buf_reset(&cell);
        add_dur(&cell, l->c.time);
        table_cell(&tb, "%s", cell.p);
    }
    table_print(&tb, b, a->width, a->ascii);
    table_fini(&tb);

    heading(b, "request sizes (outermost reads and writes, Darshan's buckets)", a->ascii);
    table_init(&tb, "lrr", -1);
    table_cell(&tb, "size");
    table_cell(&tb, "reads");
    table_cell(&tb, "writes");
    for (int k = 0; k < TR_IO_BUCKETS; k++) {
        table_cell(&tb, "%s", tr_io_bucket_name(k));
        table_cell(&tb, "%llu", (unsigned long long)io->total.hist_read[k]);
        table_cell(&tb, "%llu", (unsigned long long)io->total.hist_write[k]);
    }
    table_print(&tb, b, a->width, a->ascii);
    table_fini(&tb);

    heading(b, "files (innermost calls; sequential includes consecutive)", a->ascii);
    table_init(&tb, "lrrrrrrrr", 0);
    const char *fh[] = {"path",   "ranks",       "read",       "written", "reads",
                        "writes", "consecutive", "sequential", "random"};
    for (size_t i = 0; i < 9; i++) table_cell(&tb, "%s", fh[i]);
    n = top_n(a, io->n_files, 1);
    for (size_t i = 0; i < n; i++) {
        const tr_io_file *f = &io->files[i];
        table_cell(&tb, "%s", str(t, f->path));
        table_cell(&tb, "%u%s", f->ranks, f->ranks > 1 ? " shared" : "");
        tr_buf_reset(&cell);
        add_size(&cell, f->bytes_read);
        table_cell(&tb, "%s", cell.p);
        tr_buf_reset(&cell);
        add_size(&cell, f->bytes_written);
        table_cell(&tb, "%s", cell.p);
        table_cell(&tb, "%llu", (unsigned long long)f->reads);
        table_cell(&tb, "%llu", (unsigned long long)f->writes);
        table_cell(&tb, "%llu", (unsigned long long)f->consecutive);
        table_cell(&tb, "%llu", (unsigned long long)f->sequential);
        table_cell(&tb, "%llu", (unsigned long long)(f->accesses - f->sequential));
    }
    table_print(&tb, b, a->width, a->ascii);
    table_fini(&tb);
    if (n < io->n_files) tr_buf_addf(b, "(%zu more files; --top 0 shows all)\n", io->n_files - n);
    tr_buf_fini(&cell);
}

static void hot_table_print(const results *r, const args *a, tr_buf *b, const tr_hot_table *h)
{
    table tb;
    table_init(&tb, "rrrrl", 4);
    table_cell(&tb, "self");
    table_cell(&tb, "self%%");
    table_cell(&tb, "total");
    table_cell(&tb, "total%%");
    table_cell(&tb, "function (file)");
    size_t n = top_n(a, h->n, 1);
    tr_buf cell;
    tr_buf_init(&cell, 0);
    for (size_t i = 0; i < n; i++) {
        const tr_hot_fn *f = &h->fns[i];
        table_cell(&tb, "%llu", (unsigned long long)f->self);
        tr_buf_reset(&cell);
        add_pct(&cell, (double)f->self, (double)h->samples);
        table_cell(&tb, "%s", cell.p);
        table_cell(&tb, "%llu", (unsigned long long)f->total);
        tr_buf_reset(&cell);
        add_pct(&cell, (double)f->total, (double)h->samples);
        table_cell(&tb, "%s", cell.p);
        if (*str(r->t, f->file))
            table_cell(&tb, "%s (%s)", str(r->t, f->function), str(r->t, f->file));
        else
            table_cell(&tb, "%s", str(r->t, f->function));
    }
    tr_buf_fini(&cell);
    table_print(&tb, b, a->width, a->ascii);
    table_fini(&tb);
    if (n < h->n) tr_buf_addf(b, "(%zu more functions; --top 0 shows all)\n", h->n - n);
}

static void human_hot(const results *r, const args *a, tr_buf *b)
{
    const tr_hot_stats *h = &r->hot;
    if (!h->merged.samples && !r->explicit_sections) return;
    tr_buf title;
    tr_buf_init(&title, 0);
    tr_buf_addf(&title, "hot functions (%llu samples, all threads)",
                (unsigned long long)h->merged.samples);
    heading(b, title.p, a->ascii);
    if (!h->merged.samples)
        tr_buf_adds(b, "no samples\n");
    else
        hot_table_print(r, a, b, &h->merged);
    for (size_t i = 0; i < h->n_threads; i++) {
        tr_buf_reset(&title);
        tr_buf_adds(&title, "hot functions of ");
        add_track_label(&title, r->t, h->threads[i].track);
        tr_buf_addf(&title, " (%llu samples)", (unsigned long long)h->threads[i].samples);
        heading(b, title.p, a->ascii);
        hot_table_print(r, a, b, &h->threads[i]);
    }
    tr_buf_fini(&title);
}

static void human_stragglers(const results *r, const args *a, tr_buf *b)
{
    const tr_trace *t = r->t;
    const tr_straggler_stats *s = &r->strag;
    if (!s->n && !r->explicit_sections) return;
    tr_buf cell;
    tr_buf_init(&cell, 0);
    tr_buf_addf(&cell, "stragglers (outlier: |x - median| > %g * MAD and > 1%% of the median)",
                s->k);
    heading(b, cell.p, a->ascii);
    if (!s->n) {
        tr_buf_adds(b, "fewer than two ranks\n");
        tr_buf_fini(&cell);
        return;
    }
    for (int m = 0; m < TR_METRIC_COUNT; m++) {
        if (!s->has[m]) continue;
        tr_buf_addf(b, "%s: median ", tr_rank_metric_name(m));
        add_dur(b, s->median[m]);
        tr_buf_adds(b, ", MAD ");
        add_dur(b, s->mad[m]);
        size_t flagged = 0;
        for (size_t i = 0; i < s->n; i++) {
            int o = s->rows[i].outlier[m];
            if (!o) continue;
            tr_buf_adds(b, flagged++ ? ", " : "; outliers: ");
            add_process_label(b, t, tr_process_get(t, s->rows[i].process));
            tr_buf_addf(b, " %s (", o > 0 ? "slow" : "fast");
            add_dur(b, s->rows[i].value[m]);
            tr_buf_addf(b, ", %+.0f%%)",
                        s->median[m] ? 100.0 * (double)(s->rows[i].value[m] - s->median[m]) /
                                           (double)s->median[m]
                                     : 0.0);
        }
        if (!flagged) tr_buf_adds(b, "; no outliers");
        tr_buf_addc(b, '\n');
    }
    table tb;
    table_init(&tb, "lrrrr", -1);
    table_cell(&tb, "rank");
    table_cell(&tb, "busy");
    table_cell(&tb, "I/O time");
    table_cell(&tb, "mean step");
    table_cell(&tb, "steps");
    size_t n = top_n(a, s->n, 1);
    for (size_t i = 0; i < n; i++) {
        const tr_rank_row *row = &s->rows[i];
        tr_buf_reset(&cell);
        add_process_label(&cell, t, tr_process_get(t, row->process));
        table_cell(&tb, "%s", cell.p);
        for (int m = 0; m < TR_METRIC_COUNT; m++) {
            tr_buf_reset(&cell);
            if (row->value[m] < 0 || !s->has[m]) {
                tr_buf_adds(&cell, "-");
            } else {
                add_dur(&cell, row->value[m]);
                if (row->outlier[m])
                    tr_buf_adds(&cell, row->outlier[m] > 0 ? (a->ascii ? " ^" : " ▲")
                                                           : (a->ascii ? " v" : " ▼"));
            }
            table_cell(&tb, "%s", cell.p);
        }
        table_cell(&tb, "%llu", (unsigned long long)row->steps);
    }
    table_print(&tb, b, a->width, a->ascii);
    table_fini(&tb);
    if (n < s->n) tr_buf_addf(b, "(%zu more ranks; --top 0 shows all)\n", s->n - n);
    tr_buf_fini(&cell);
}

/* "rank 3 MainThread": a hang group member. */
static void add_member_label(tr_buf *b, const tr_trace *t, uint32_t track)
{
    const tr_track *tk = tr_track_get(t, track);
    add_process_label(b, t, tr_process_get(t, tk->process));
    if (*str(t, tk->name))
        tr_buf_addf(b, " %s", str(t, tk->name));
    else if (tk->tid >= 0)
        tr_buf_addf(b, " thread %lld", (long long)tk->tid);
}

static void human_hangs(const results *r, const args *a, tr_buf *b)
{
    const tr_trace *t = r->t;
    const tr_hang_stats *h = &r->hangs;
    if (h->threads < 2 && !r->explicit_sections) return;
    heading(b, "hangs (threads by their last stack, the odd ones out first)", a->ascii);
    if (h->threads < 2) {
        tr_buf_adds(b, "fewer than two sampled threads\n");
        return;
    }
    size_t n = top_n(a, h->n, 1);
    for (size_t g = 0; g < n; g++) {
        const tr_hang_group *grp = &h->groups[g];
        tr_buf_addf(b, "%zu thread%s in ", grp->n, grp->n == 1 ? " " : "s");
        if (grp->stack)
            add_frame_label(b, t, tr_stack_frame(t, grp->stack));
        else
            tr_buf_adds(b, "(no frames)");
        tr_buf_adds(b, ": ");
        for (size_t m = 0; m < grp->n && m < 8; m++) {
            if (m) tr_buf_adds(b, ", ");
            add_member_label(b, t, grp->members[m].track);
        }
        if (grp->n > 8) tr_buf_addf(b, ", +%zu more", grp->n - 8);
        tr_buf_addc(b, '\n');
        /* The odd ones out get their whole stack, innermost first. */
        if (g + 1 < h->n && grp->n < h->groups[h->n - 1].n && grp->stack) {
            for (uint32_t st = grp->stack; st; st = tr_stack_parent(t, st)) {
                tr_buf_adds(b, "    ");
                add_frame_label(b, t, tr_stack_frame(t, st));
                tr_buf_addc(b, '\n');
            }
        }
    }
    if (n < h->n) tr_buf_addf(b, "(%zu more groups; --top 0 shows all)\n", h->n - n);
}

static void human_gpu(const results *r, const args *a, tr_buf *b)
{
    const tr_trace *t = r->t;
    const tr_gpu_stats *g = &r->gpu;
    if (!g->n_streams && !r->explicit_sections) return;
    heading(b, "GPU streams", a->ascii);
    if (!g->n_streams) {
        tr_buf_adds(b, "no GPU kernels, memcpy or memset\n");
        return;
    }
    table tb;
    table_init(&tb, "lrrrrrrr", 0);
    const char *sh[] = {"stream",      "busy",   "idle",   "kernels",
                        "kernel time", "memcpy", "memset", "comm"};
    for (size_t i = 0; i < 8; i++) table_cell(&tb, "%s", sh[i]);
    tr_buf cell;
    tr_buf_init(&cell, 0);
    size_t n = top_n(a, g->n_streams, 1);
    for (size_t i = 0; i < n; i++) {
        const tr_gpu_stream *s = &g->streams[i];
        tr_buf_reset(&cell);
        add_track_label(&cell, t, s->track);
        table_cell(&tb, "%s", cell.p);
        int64_t v[] = {s->busy, s->idle};
        for (size_t j = 0; j < 2; j++) {
            tr_buf_reset(&cell);
            add_dur(&cell, v[j]);
            table_cell(&tb, "%s", cell.p);
        }
        table_cell(&tb, "%llu", (unsigned long long)s->count[TR_GPU_KERNEL]);
        int64_t w[] = {s->time[TR_GPU_KERNEL], s->time[TR_GPU_MEMCPY], s->time[TR_GPU_MEMSET],
                       s->comm};
        for (size_t j = 0; j < 4; j++) {
            tr_buf_reset(&cell);
            add_dur(&cell, w[j]);
            table_cell(&tb, "%s", cell.p);
        }
    }
    table_print(&tb, b, a->width, a->ascii);
    table_fini(&tb);
    heading(b, "GPU devices (comm = NCCL/RCCL kernels; overlap = comm while compute ran)",
            a->ascii);
    table_init(&tb, "lrrrrrr", -1);
    const char *dh[] = {"device", "kernels",    "memcpy",    "memset",
                        "comm",   "comm share", "overlapped"};
    for (size_t i = 0; i < 7; i++) table_cell(&tb, "%s", dh[i]);
    for (size_t i = 0; i < g->n_devices; i++) {
        const tr_gpu_device *d = &g->devices[i];
        tr_buf_reset(&cell);
        const tr_process *p = tr_process_get(t, d->process);
        if (*str(t, p->name))
            tr_buf_adds(&cell, str(t, p->name));
        else
            add_process_label(&cell, t, p);
        table_cell(&tb, "%s", cell.p);
        int64_t v[] = {d->time[TR_GPU_KERNEL], d->time[TR_GPU_MEMCPY], d->time[TR_GPU_MEMSET],
                       d->comm};
        for (size_t j = 0; j < 4; j++) {
            tr_buf_reset(&cell);
            add_dur(&cell, v[j]);
            table_cell(&tb, "%s", cell.p);
        }
        tr_buf_reset(&cell);
        add_pct(&cell, (double)d->comm, (double)d->time[TR_GPU_KERNEL]);
        table_cell(&tb, "%s", cell.p);
        tr_buf_reset(&cell);
        if (d->comm_wall)
            add_pct(&cell, (double)d->overlap, (double)d->comm_wall);
        else
            tr_buf_adds(&cell, "-");
        table_cell(&tb, "%s", cell.p);
    }
    table_print(&tb, b, a->width, a->ascii);
    table_fini(&tb);
    tr_buf_fini(&cell);
}

/* ---- JSON ---- */

static void js(tr_buf *b, const char *s)
{
    tr_buf_add_json_str(b, s, strlen(s));
}

static void js_id(tr_buf *b, const tr_trace *t, tr_str s)
{
    size_t n;
    const char *p = tr_str_get(t, s, &n);
    tr_buf_add_json_str(b, p, n);
}

/* The fields naming a track: process, pid, rank, track, tid, kind. */
static void js_track(tr_buf *b, const tr_trace *t, uint32_t track)
{
    const tr_track *tk = tr_track_get(t, track);
    const tr_process *p = tr_process_get(t, tk->process);
    tr_buf_adds(b, "\"process\":");
    js_id(b, t, p->name);
    tr_buf_addf(b, ",\"pid\":%lld,\"rank\":%d,\"track\":", (long long)p->pid, p->rank);
    js_id(b, t, tk->name);
    tr_buf_addf(b, ",\"tid\":%lld,\"kind\":\"%s\"", (long long)tk->tid,
                tr_track_kind_name(tk->kind));
}

static void js_process(tr_buf *b, const tr_trace *t, uint32_t process)
{
    const tr_process *p = tr_process_get(t, process);
    tr_buf_addf(b, "\"rank\":%d,\"pid\":%lld,\"process\":", p->rank, (long long)p->pid);
    js_id(b, t, p->name);
}

static void json_lanes(const results *r, const args *a, tr_buf *b)
{
    tr_buf_adds(b, ",\"lanes\":[");
    size_t n = top_n(a, r->lanes.n, 0);
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
            js_id(b, r->t, l->names[k].name);
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

static void json_op_list(const results *r, const args *a, tr_buf *b, const tr_op_stat *v, size_t nv,
                         const char *key)
{
    size_t n = top_n(a, nv, 0);
    tr_buf_adds(b, "[");
    for (size_t i = 0; i < n; i++) {
        const tr_op_stat *o = &v[i];
        tr_buf_addf(b, "%s{\"%s\":", i ? "," : "", key);
        js_id(b, r->t, o->key);
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

static void json_ops(const results *r, const args *a, tr_buf *b)
{
    tr_buf_adds(b, ",\"ops\":{\"by_name\":");
    json_op_list(r, a, b, r->ops.by_name, r->ops.n_names, "name");
    tr_buf_adds(b, ",\"by_category\":");
    json_op_list(r, a, b, r->ops.by_cat, r->ops.n_cats, "category");
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
    tr_buf_adds(b, "]");
}

static void json_io(const results *r, const args *a, tr_buf *b)
{
    const tr_io_stats *io = &r->io;
    tr_buf_adds(b, ",\"io\":{\"size_buckets\":[");
    for (int k = 0; k < TR_IO_BUCKETS; k++) {
        if (k) tr_buf_addc(b, ',');
        js(b, tr_io_bucket_name(k));
    }
    tr_buf_adds(b, "],\"total\":{");
    json_counts(b, &io->total);
    tr_buf_addf(b, "},\"shared_files\":%u,\"bandwidth_bps\":", io->shared_files);
    tr_buf_add_real(b, io->bandwidth);
    tr_buf_adds(b, ",\"ranks\":[");
    size_t n = top_n(a, io->n_ranks, 0);
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
        js_id(b, r->t, io->layers[i].cat);
        tr_buf_adds(b, ",");
        json_counts(b, &io->layers[i].c);
        tr_buf_adds(b, "}");
    }
    tr_buf_adds(b, "],\"files\":[");
    n = top_n(a, io->n_files, 0);
    for (size_t i = 0; i < n; i++) {
        const tr_io_file *f = &io->files[i];
        tr_buf_adds(b, i ? ",{\"path\":" : "{\"path\":");
        js_id(b, r->t, f->path);
        tr_buf_addf(b,
                    ",\"ranks\":%u,\"bytes_read\":%lld,\"bytes_written\":%lld,\"reads\":%llu,"
                    "\"writes\":%llu,\"accesses\":%llu,\"consecutive\":%llu,\"sequential\":%llu,"
                    "\"random\":%llu}",
                    f->ranks, (long long)f->bytes_read, (long long)f->bytes_written,
                    (unsigned long long)f->reads, (unsigned long long)f->writes,
                    (unsigned long long)f->accesses, (unsigned long long)f->consecutive,
                    (unsigned long long)f->sequential,
                    (unsigned long long)(f->accesses - f->sequential));
    }
    tr_buf_adds(b, "]}");
}

static void json_hot_table(const results *r, const args *a, tr_buf *b, const tr_hot_table *h)
{
    tr_buf_addf(b, "\"samples\":%llu,\"functions\":[", (unsigned long long)h->samples);
    size_t n = top_n(a, h->n, 0);
    for (size_t i = 0; i < n; i++) {
        tr_buf_adds(b, i ? ",{\"function\":" : "{\"function\":");
        js_id(b, r->t, h->fns[i].function);
        tr_buf_adds(b, ",\"file\":");
        js_id(b, r->t, h->fns[i].file);
        tr_buf_addf(b, ",\"self\":%llu,\"total\":%llu}", (unsigned long long)h->fns[i].self,
                    (unsigned long long)h->fns[i].total);
    }
    tr_buf_adds(b, "]");
}

static void json_hot(const results *r, const args *a, tr_buf *b)
{
    tr_buf_adds(b, ",\"hot\":{");
    json_hot_table(r, a, b, &r->hot.merged);
    tr_buf_adds(b, ",\"threads\":[");
    for (size_t i = 0; i < r->hot.n_threads; i++) {
        tr_buf_adds(b, i ? ",{" : "{");
        js_track(b, r->t, r->hot.threads[i].track);
        tr_buf_adds(b, ",");
        json_hot_table(r, a, b, &r->hot.threads[i]);
        tr_buf_adds(b, "}");
    }
    tr_buf_adds(b, "]}");
}

static void json_stragglers(const results *r, const args *a, tr_buf *b)
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
    size_t n = top_n(a, s->n, 0);
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

static void json_frame(tr_buf *b, const tr_trace *t, uint32_t frame)
{
    const tr_frame *f = tr_frame_get(t, frame);
    tr_buf_adds(b, "{\"function\":");
    js_id(b, t, f ? f->function : 0);
    tr_buf_adds(b, ",\"file\":");
    js_id(b, t, f ? f->file : 0);
    tr_buf_addf(b, ",\"line\":%d}", f ? f->line : 0);
}

static void json_hangs(const results *r, const args *a, tr_buf *b)
{
    const tr_trace *t = r->t;
    const tr_hang_stats *h = &r->hangs;
    tr_buf_addf(b, ",\"hangs\":{\"threads\":%zu,\"groups\":[", h->threads);
    size_t n = top_n(a, h->n, 0);
    for (size_t g = 0; g < n; g++) {
        const tr_hang_group *grp = &h->groups[g];
        tr_buf_addf(b, "%s{\"count\":%zu,\"stack\":[", g ? "," : "", grp->n);
        /* Innermost frame first, as py-spy prints a stack. */
        for (uint32_t st = grp->stack; st; st = tr_stack_parent(t, st)) {
            if (st != grp->stack) tr_buf_addc(b, ',');
            json_frame(b, t, tr_stack_frame(t, st));
        }
        tr_buf_adds(b, "],\"members\":[");
        for (size_t m = 0; m < grp->n; m++) {
            tr_buf_adds(b, m ? ",{" : "{");
            js_track(b, t, grp->members[m].track);
            tr_buf_addf(b, ",\"ts_ns\":%lld}", (long long)grp->members[m].ts);
        }
        tr_buf_adds(b, "]}");
    }
    tr_buf_adds(b, "]}");
}

static void json_gpu(const results *r, const args *a, tr_buf *b)
{
    const tr_gpu_stats *g = &r->gpu;
    tr_buf_adds(b, ",\"gpu\":{\"streams\":[");
    size_t n = top_n(a, g->n_streams, 0);
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

static void json_all(const results *r, const args *a, tr_buf *b)
{
    const tr_trace *t = r->t;
    tr_buf_adds(b, "{\"schema\":\"tracestat/1\",\"inputs\":[");
    for (size_t i = 0; i < tr_input_count(t); i++) {
        const tr_input_info *in = tr_input_get(t, (uint32_t)i);
        tr_buf_adds(b, i ? ",{\"path\":" : "{\"path\":");
        js_id(b, t, in->path);
        tr_buf_adds(b, ",\"format\":");
        js_id(b, t, in->format);
        tr_buf_addf(b, ",\"lines_skipped\":%llu,\"warnings\":%llu}",
                    (unsigned long long)in->lines_skipped, (unsigned long long)in->warnings);
    }
    tr_buf_adds(b, "],\"span_ns\":");
    if (r->have_span)
        tr_buf_addf(b, "[%lld,%lld]", (long long)r->first, (long long)r->last);
    else
        tr_buf_adds(b, "null");
    if (r->want & 1u << SEC_LANES) json_lanes(r, a, b);
    if (r->want & 1u << SEC_OPS) json_ops(r, a, b);
    if (r->want & 1u << SEC_IO) json_io(r, a, b);
    if (r->want & 1u << SEC_HOT) json_hot(r, a, b);
    if (r->want & 1u << SEC_STRAGGLERS) json_stragglers(r, a, b);
    if (r->want & 1u << SEC_HANGS) json_hangs(r, a, b);
    if (r->want & 1u << SEC_GPU) json_gpu(r, a, b);
    tr_buf_adds(b, "}\n");
}

/* ---- CSV ---- */

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
    csv_field(b, str(t, p->name));
    tr_buf_addf(b, ",%lld,%d,", (long long)p->pid, p->rank);
    csv_field(b, str(t, tk->name));
    tr_buf_addf(b, ",%lld,%s", (long long)tk->tid, tr_track_kind_name(tk->kind));
}

static void csv_process(tr_buf *b, const tr_trace *t, uint32_t process)
{
    const tr_process *p = tr_process_get(t, process);
    tr_buf_addf(b, "%d,%lld,", p->rank, (long long)p->pid);
    csv_field(b, str(t, p->name));
}

static void csv_counts_head(tr_buf *b)
{
    tr_buf_adds(b, "bytes_read,bytes_written");
    for (int k = 0; k < TR_IO_KIND_COUNT; k++) tr_buf_addf(b, ",%s", tr_io_kind_name(k));
    tr_buf_adds(b, ",time_ns,read_time_ns,write_time_ns");
}

static void csv_counts(tr_buf *b, const tr_io_counts *c)
{
    tr_buf_addf(b, "%lld,%lld", (long long)c->bytes_read, (long long)c->bytes_written);
    for (int k = 0; k < TR_IO_KIND_COUNT; k++)
        tr_buf_addf(b, ",%llu", (unsigned long long)c->ops[k]);
    tr_buf_addf(b, ",%lld,%lld,%lld", (long long)c->time, (long long)c->read_time,
                (long long)c->write_time);
}

static void csv_ops(const results *r, const args *a, tr_buf *b, const tr_op_stat *v, size_t nv,
                    const char *key)
{
    tr_buf_addf(b, "%s,count,total_ns,mean_ns,p50_ns,p95_ns,max_ns,bytes\n", key);
    size_t n = top_n(a, nv, 0);
    for (size_t i = 0; i < n; i++) {
        csv_field(b, str(r->t, v[i].key));
        tr_buf_addf(b, ",%llu,%lld,", (unsigned long long)v[i].count, (long long)v[i].total);
        tr_buf_add_real(b, v[i].mean);
        tr_buf_addf(b, ",%lld,%lld,%lld,", (long long)v[i].p50, (long long)v[i].p95,
                    (long long)v[i].max);
        if (v[i].bytes >= 0) tr_buf_addf(b, "%lld", (long long)v[i].bytes);
        tr_buf_addc(b, '\n');
    }
}

static void csv_table(const results *r, const args *a, tr_buf *b)
{
    const tr_trace *t = r->t;
    const char *name = a->csv;
    if (strcmp(name, "lanes") == 0) {
        tr_buf_adds(b, "process,pid,rank,track,tid,kind,slices,ops,busy_ns,idle_ns,utilization\n");
        for (size_t i = 0; i < top_n(a, r->lanes.n, 0); i++) {
            const tr_lane_stat *l = &r->lanes.lanes[i];
            csv_track(b, t, l->track);
            tr_buf_addf(b, ",%llu,%llu,%lld,%lld,", (unsigned long long)l->slices,
                        (unsigned long long)l->ops, (long long)l->busy, (long long)l->idle);
            tr_buf_add_real(b, l->utilization);
            tr_buf_addc(b, '\n');
        }
    } else if (strcmp(name, "ops") == 0) {
        csv_ops(r, a, b, r->ops.by_name, r->ops.n_names, "name");
    } else if (strcmp(name, "categories") == 0) {
        csv_ops(r, a, b, r->ops.by_cat, r->ops.n_cats, "category");
    } else if (strcmp(name, "io-ranks") == 0) {
        tr_buf_adds(b, "rank,pid,process,");
        csv_counts_head(b);
        tr_buf_adds(b, ",run_time_ns,files,slowest\n");
        for (size_t i = 0; i < top_n(a, r->io.n_ranks, 0); i++) {
            const tr_io_rank *rk = &r->io.ranks[i];
            csv_process(b, t, rk->process);
            tr_buf_addc(b, ',');
            csv_counts(b, &rk->c);
            tr_buf_addf(b, ",%lld,%u,%d\n", (long long)rk->run_time, rk->files, i == r->io.slowest);
        }
    } else if (strcmp(name, "io-layers") == 0) {
        tr_buf_adds(b, "layer,");
        csv_counts_head(b);
        tr_buf_addc(b, '\n');
        for (size_t i = 0; i < r->io.n_layers; i++) {
            csv_field(b, str(t, r->io.layers[i].cat));
            tr_buf_addc(b, ',');
            csv_counts(b, &r->io.layers[i].c);
            tr_buf_addc(b, '\n');
        }
    } else if (strcmp(name, "io-files") == 0) {
        tr_buf_adds(b, "path,ranks,bytes_read,bytes_written,reads,writes,accesses,consecutive,"
                       "sequential,random\n");
        for (size_t i = 0; i < top_n(a, r->io.n_files, 0); i++) {
            const tr_io_file *f = &r->io.files[i];
            csv_field(b, str(t, f->path));
            tr_buf_addf(b, ",%u,%lld,%lld,%llu,%llu,%llu,%llu,%llu,%llu\n", f->ranks,
                        (long long)f->bytes_read, (long long)f->bytes_written,
                        (unsigned long long)f->reads, (unsigned long long)f->writes,
                        (unsigned long long)f->accesses, (unsigned long long)f->consecutive,
                        (unsigned long long)f->sequential,
                        (unsigned long long)(f->accesses - f->sequential));
        }
    } else if (strcmp(name, "io-sizes") == 0) {
        csv_row(b, 3, "size", "reads", "writes");
        for (int k = 0; k < TR_IO_BUCKETS; k++)
            tr_buf_addf(b, "%s,%llu,%llu\n", tr_io_bucket_name(k),
                        (unsigned long long)r->io.total.hist_read[k],
                        (unsigned long long)r->io.total.hist_write[k]);
    } else if (strcmp(name, "hot") == 0) {
        tr_buf_adds(b, "function,file,self,total,samples\n");
        const tr_hot_table *h = &r->hot.merged;
        for (size_t i = 0; i < top_n(a, h->n, 0); i++) {
            csv_field(b, str(t, h->fns[i].function));
            tr_buf_addc(b, ',');
            csv_field(b, str(t, h->fns[i].file));
            tr_buf_addf(b, ",%llu,%llu,%llu\n", (unsigned long long)h->fns[i].self,
                        (unsigned long long)h->fns[i].total, (unsigned long long)h->samples);
        }
    } else if (strcmp(name, "stragglers") == 0) {
        tr_buf_adds(b, "rank,pid,process,busy_ns,io_ns,step_ns,steps,busy_outlier,io_outlier,"
                       "step_outlier\n");
        for (size_t i = 0; i < top_n(a, r->strag.n, 0); i++) {
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
    } else if (strcmp(name, "hangs") == 0) {
        tr_buf_adds(b, "group,group_size,process,pid,rank,track,tid,kind,ts_ns,frame\n");
        for (size_t g = 0; g < top_n(a, r->hangs.n, 0); g++) {
            const tr_hang_group *grp = &r->hangs.groups[g];
            tr_buf frame;
            tr_buf_init(&frame, 0);
            if (grp->stack) add_frame_label(&frame, t, tr_stack_frame(t, grp->stack));
            for (size_t m = 0; m < grp->n; m++) {
                tr_buf_addf(b, "%zu,%zu,", g + 1, grp->n);
                csv_track(b, t, grp->members[m].track);
                tr_buf_addf(b, ",%lld,", (long long)grp->members[m].ts);
                csv_field(b, frame.p);
                tr_buf_addc(b, '\n');
            }
            tr_buf_fini(&frame);
        }
    } else if (strcmp(name, "gpu-streams") == 0) {
        tr_buf_adds(b, "process,pid,rank,track,tid,kind,busy_ns,idle_ns,kernels,kernel_ns,"
                       "memcpys,memcpy_ns,memsets,memset_ns,comm_ns\n");
        for (size_t i = 0; i < top_n(a, r->gpu.n_streams, 0); i++) {
            const tr_gpu_stream *s = &r->gpu.streams[i];
            csv_track(b, t, s->track);
            tr_buf_addf(
                b, ",%lld,%lld,%llu,%lld,%llu,%lld,%llu,%lld,%lld\n", (long long)s->busy,
                (long long)s->idle, (unsigned long long)s->count[TR_GPU_KERNEL],
                (long long)s->time[TR_GPU_KERNEL], (unsigned long long)s->count[TR_GPU_MEMCPY],
                (long long)s->time[TR_GPU_MEMCPY], (unsigned long long)s->count[TR_GPU_MEMSET],
                (long long)s->time[TR_GPU_MEMSET], (long long)s->comm);
        }
    } else if (strcmp(name, "gpu-devices") == 0) {
        tr_buf_adds(b, "rank,pid,process,kernel_ns,memcpy_ns,memset_ns,comm_ns,comm_wall_ns,"
                       "compute_wall_ns,overlap_ns\n");
        for (size_t i = 0; i < r->gpu.n_devices; i++) {
            const tr_gpu_device *d = &r->gpu.devices[i];
            csv_process(b, t, d->process);
            tr_buf_addf(b, ",%lld,%lld,%lld,%lld,%lld,%lld,%lld\n",
                        (long long)d->time[TR_GPU_KERNEL], (long long)d->time[TR_GPU_MEMCPY],
                        (long long)d->time[TR_GPU_MEMSET], (long long)d->comm,
                        (long long)d->comm_wall, (long long)d->compute_wall, (long long)d->overlap);
        }
    }
}

/* ---- main ---- */

static int load_all(tr_cli *c, const args *a, tr_trace *t)
{
    tr_load_opts lo = {.readers = tr_readers};
    lo.from = a->from;
    lo.read.diag = &c->diag;
    lo.read.gt_pairing = a->gt_pairing;
    lo.ranks = a->ranks;
    lo.n_ranks = a->n_ranks;
    lo.progress = tr_cli_progress;
    lo.progress_user = c;
    return tr_cli_load(c, t, a->inputs, (size_t)a->n_inputs, &lo, &a->load);
}

static int run(tr_cli *c, const args *a)
{
    tr_trace *t = tr_trace_new();
    if (!t) {
        tr_cli_errorf(c, "out of memory");
        return TR_EXIT_DATA;
    }
    int rc = load_all(c, a, t);
    if (rc != TR_EXIT_OK) {
        tr_trace_free(t);
        return rc;
    }
    results r = {.t = t,
                 .want = a->sections ? a->sections : (1u << SEC_COUNT) - 1,
                 .explicit_sections = a->sections != 0};
    tr_error e = {0};
    tr_buf b;
    tr_buf_init(&b, 0);
    if (compute(&r, a, &e) < 0) {
        tr_cli_error(c, &e);
        rc = TR_EXIT_DATA;
    } else if (a->csv) {
        csv_table(&r, a, &b);
    } else if (a->json) {
        json_all(&r, a, &b);
    } else {
        if (r.want & 1u << SEC_OVERVIEW) human_overview(&r, &b, a->ascii);
        if (r.want & 1u << SEC_LANES) human_lanes(&r, a, &b);
        if (r.want & 1u << SEC_OPS) human_ops(&r, a, &b);
        if (r.want & 1u << SEC_IO) human_io(&r, a, &b);
        if (r.want & 1u << SEC_HOT) human_hot(&r, a, &b);
        if (r.want & 1u << SEC_STRAGGLERS) human_stragglers(&r, a, &b);
        if (r.want & 1u << SEC_HANGS) human_hangs(&r, a, &b);
        if (r.want & 1u << SEC_GPU) human_gpu(&r, a, &b);
    }
    if (rc == TR_EXIT_OK && (fwrite(b.p, 1, b.len, stdout) != b.len || fflush(stdout) != 0)) {
        tr_cli_errorf(c, "cannot write the output");
        rc = TR_EXIT_DATA;
    }
    tr_buf_fini(&b);
    results_fini(&r);
    tr_trace_free(t);
    return rc;
}

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

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static int parse_sections(tr_cli *c, args *a, const char *list)
{
    const char *p = list;
    while (*p) {
        size_t n = strcspn(p, ",");
        int found = -1;
        for (int s = 0; s < SEC_COUNT; s++)
            if (strlen(sec_names[s]) == n && strncmp(p, sec_names[s], n) == 0) found = s;
        if (found < 0)
            return tr_cli_usage_error(c,
                                      "unknown section '%.*s' (overview, lanes, ops, io, hot, "
                                      "stragglers, hangs, gpu)",
                                      (int)n, p);
        a->sections |= 1u << found;
        p += n;
        if (*p == ',') p++;
    }
    return TR_EXIT_OK;
}

static int parse_args(tr_cli *c, int argc, char **argv, args *a, int *done)
{
    int opt;
    long v;
    *done = 0;
    while ((opt = getopt_long(argc, argv, "f:qvhV", options, NULL)) != -1) {
        switch (opt) {
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
            tr_cli_print_version("tracestat");
            *done = 1;
            return TR_EXIT_OK;
        case OPT_SECTION:
            if (parse_sections(c, a, optarg) != TR_EXIT_OK) return TR_EXIT_USAGE;
            break;
        case OPT_JSON:
            a->json = 1;
            break;
        case OPT_CSV: {
            int sec = -1;
            for (size_t i = 0; i < sizeof csv_tables / sizeof *csv_tables; i++)
                if (strcmp(optarg, csv_tables[i].name) == 0) sec = csv_tables[i].sec;
            if (sec < 0)
                return tr_cli_usage_error(c, "unknown CSV table '%s' (see --help)", optarg);
            a->csv = optarg;
            a->sections = 1u << sec;
            break;
        }
        case OPT_SORT:
            if (strcmp(optarg, "total") == 0)
                a->sort = TR_OP_SORT_TOTAL;
            else if (strcmp(optarg, "count") == 0)
                a->sort = TR_OP_SORT_COUNT;
            else if (strcmp(optarg, "mean") == 0)
                a->sort = TR_OP_SORT_MEAN;
            else if (strcmp(optarg, "max") == 0)
                a->sort = TR_OP_SORT_MAX;
            else
                return tr_cli_usage_error(c, "--sort is total, count, mean or max");
            break;
        case OPT_TOP:
            if (parse_long(optarg, 0, 1000000000, &v) < 0)
                return tr_cli_usage_error(c, "bad --top '%s' (a count, 0 = all)", optarg);
            a->top = v;
            break;
        case OPT_GAPS:
            if (parse_long(optarg, 0, 1000, &v) < 0)
                return tr_cli_usage_error(c, "bad --gaps '%s' (0 to 1000)", optarg);
            a->so.gaps = (size_t)v;
            break;
        case OPT_K: {
            char *end;
            double k = strtod(optarg, &end);
            if (!*optarg || *end || !(k > 0) || k > 1e6)
                return tr_cli_usage_error(c, "bad --k '%s' (a positive number)", optarg);
            a->so.mad_k = k;
            break;
        }
        case OPT_STEP:
            a->so.step_glob = optarg;
            break;
        case OPT_PER_THREAD:
            a->so.hot_per_thread = 1;
            break;
        case OPT_BY_TOTAL:
            a->by_total = 1;
            break;
        case OPT_ASCII:
            a->ascii = 1;
            break;
        case OPT_WIDTH:
            if (parse_long(optarg, 40, 10000, &v) < 0)
                return tr_cli_usage_error(c, "bad --width '%s' (40 to 10000)", optarg);
            a->width = (int)v;
            break;
        case OPT_RANK: {
            tr_rank_override r;
            if (tr_cli_parse_rank(optarg, &r) < 0)
                return tr_cli_usage_error(c, "bad --rank '%s' (want FILE=N)", optarg);
            tr_rank_override *more = realloc(a->ranks, (a->n_ranks + 1) * sizeof *more);
            if (!more) {
                free((char *)r.path);
                return tr_cli_usage_error(c, "out of memory");
            }
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
    tr_cli_init(&c, "tracestat");
    args a = {.top = -1};
    tr_stat_opts_init(&a.so);
    int done;
    int rc = parse_args(&c, argc, argv, &a, &done);
    if (rc != TR_EXIT_OK || done) goto out;
    if (a.json && a.csv) {
        rc = tr_cli_usage_error(&c, "--json and --csv exclude each other");
        goto out;
    }
    if (a.from && !tr_reader_find(tr_readers, a.from)) {
        rc = tr_cli_usage_error(&c, "unknown input format '%s' (see 'tracecat formats')", a.from);
        goto out;
    }
    if (optind >= argc) {
        rc = tr_cli_usage_error(&c, "no INPUT given");
        goto out;
    }
    if (!a.width) a.width = terminal_width();
    a.inputs = argv + optind;
    a.n_inputs = argc - optind;
    tr_cli_install_signals();
    rc = run(&c, &a);
    if (rc == TR_EXIT_OK || rc == TR_EXIT_DATA) tr_cli_warning_summary(&c);
out:
    for (size_t i = 0; i < a.n_ranks; i++) free((char *)a.ranks[i].path);
    free(a.ranks);
    tr_cli_load_fini(&a.load);
    return rc;
}
