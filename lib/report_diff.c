/*
** report_diff.c: the diff of two runs (tr_diff) as text tables and JSON.
** A table per kind of row, largest effect first: "added" rows exist only
** in the test run, "removed" ones only in the control run.
*/
#include "report_impl.h"

#include "tr_text.h"

#include <string.h>

static const char *rd_status(const tr_diff_row *r)
{
    if (!r->count[0] && !r->value[0]) return "added";
    if (!r->count[1] && !r->value[1]) return "removed";
    return "changed";
}

/* "+12.5%", or "new" when the control had none. */
static void rd_change(tr_buf *b, int64_t from, int64_t to)
{
    if (!from) {
        tr_buf_adds(b, to ? "new" : "-");
        return;
    }
    tr_buf_addf(b, "%+.1f%%", 100.0 * (double)(to - from) / (double)from);
}

/* A signed duration: "+1.2ms" or "-3.0us". */
static void rd_cell_delta(tr_rp_table *tb, tr_buf *cell, int64_t d)
{
    tr_buf_reset(cell);
    tr_buf_adds(cell, d < 0 ? "-" : "+");
    tr_buf_add_duration(cell, d < 0 ? -d : d);
    tr_rp_cell(tb, "%s", cell->p);
}

static void rd_row_name(tr_buf *cell, const tr_diff_row *r)
{
    tr_buf_reset(cell);
    if (!r->name)
        tr_buf_addf(cell, "rank %d", r->rank);
    else if (r->kind == TR_DIFF_KERNEL)
        tr_kernel_short_name(cell, r->name);
    else
        tr_buf_adds(cell, r->name);
}

static void rd_times(tr_rp_table *tb, tr_buf *cell, const tr_diff_row *r)
{
    tr_rp_cell(tb, "%llu", (unsigned long long)r->count[0]);
    tr_rp_cell(tb, "%llu", (unsigned long long)r->count[1]);
    tr_rp_cell_duration(tb, r->value[0]);
    tr_rp_cell_duration(tb, r->value[1]);
    rd_cell_delta(tb, cell, r->value[1] - r->value[0]);
    tr_buf_reset(cell);
    rd_change(cell, r->value[0], r->value[1]);
    tr_rp_cell(tb, "%s", cell->p);
}

static void rd_frames(tr_rp_table *tb, tr_buf *cell, const tr_diff_row *r)
{
    tr_rp_cell(tb, "%llu", (unsigned long long)r->count[0]);
    tr_rp_cell(tb, "%llu", (unsigned long long)r->count[1]);
    for (int s = 0; s < 2; s++) tr_rp_cell(tb, "%.1f%%", 100.0 * r->share[s]);
    tr_rp_cell(tb, "%+.1f", 100.0 * r->effect);
    (void)cell;
}

static void rd_bytes(tr_rp_table *tb, tr_buf *cell, const tr_diff_row *r)
{
    int64_t b0 = r->kind == TR_DIFF_IO_RANK ? r->bytes[0] : r->value[0];
    int64_t b1 = r->kind == TR_DIFF_IO_RANK ? r->bytes[1] : r->value[1];
    tr_rp_cell(tb, "%llu", (unsigned long long)r->count[0]);
    tr_rp_cell(tb, "%llu", (unsigned long long)r->count[1]);
    tr_rp_cell_size(tb, b0);
    tr_rp_cell_size(tb, b1);
    if (r->kind == TR_DIFF_IO_RANK) {
        tr_rp_cell_duration(tb, r->value[0]);
        tr_rp_cell_duration(tb, r->value[1]);
    }
    tr_buf_reset(cell);
    rd_change(cell, b0, b1);
    tr_rp_cell(tb, "%s", cell->p);
}

typedef struct rd_layout {
    const char *title, *align;
    const char *const *heads;
    size_t ncol;
    void (*cells)(tr_rp_table *, tr_buf *, const tr_diff_row *);
} rd_layout;

static const char *const rd_time_heads[] = {"name",   "status", "count A", "count B",
                                            "time A", "time B", "delta",   "change"};
static const char *const rd_frame_heads[] = {"function", "status",  "self A",    "self B",
                                             "share A",  "share B", "delta (pp)"};
static const char *const rd_file_heads[] = {"path",    "status",  "calls A", "calls B",
                                            "bytes A", "bytes B", "change"};
static const char *const rd_rank_heads[] = {"rank",    "status", "calls A", "calls B", "bytes A",
                                            "bytes B", "time A", "time B",  "change"};

static const rd_layout rd_layouts[TR_DIFF_KIND_COUNT] = {
    {"ops (A = control, B = test; by |delta| of total time)", "llrrrrrr", rd_time_heads, 8,
     rd_times},
    {"GPU kernels (by |delta| of total time)", "llrrrrrr", rd_time_heads, 8, rd_times},
    {"stack functions (share = samples with the function / all samples)", "llrrrrr", rd_frame_heads,
     7, rd_frames},
    {"I/O per file (bytes read + written)", "llrrrrr", rd_file_heads, 7, rd_bytes},
    {"I/O per rank (calls, bytes, I/O time; change of bytes)", "llrrrrrrr", rd_rank_heads, 9,
     rd_bytes},
};

void tr_diff_text(const tr_diff *d, long top, int width, int ascii, tr_buf *b)
{
    /* The shared table and heading printers take their width and style from a report. */
    tr_report rp = {0};
    rp.o.width = width;
    rp.o.ascii = ascii;
    tr_buf cell;
    tr_buf_init(&cell, 0);
    tr_rp_heading(&rp, b, "diff of two runs");
    tr_buf_adds(b, "span A ");
    tr_buf_add_duration(b, d->span[0]);
    tr_buf_adds(b, ", span B ");
    tr_buf_add_duration(b, d->span[1]);
    tr_buf_addf(b, "; %zu rows differ\n", d->n);
    for (size_t i = 0; i < d->n;) {
        size_t j = i;
        while (j < d->n && d->rows[j].kind == d->rows[i].kind) j++;
        const rd_layout *l = &rd_layouts[d->rows[i].kind];
        size_t shown = top < 0 ? 20 : (size_t)top;
        if (!shown || shown > j - i) shown = j - i;
        tr_rp_heading(&rp, b, l->title);
        tr_rp_table tb;
        tr_rp_table_init(&tb, l->align, 0);
        tr_rp_cells(&tb, l->heads, l->ncol);
        for (size_t k = i; k < i + shown; k++) {
            rd_row_name(&cell, &d->rows[k]);
            tr_rp_cell(&tb, "%s", cell.p);
            tr_rp_cell(&tb, "%s", rd_status(&d->rows[k]));
            l->cells(&tb, &cell, &d->rows[k]);
        }
        tr_rp_table_print(&rp, &tb, b);
        tr_rp_table_fini(&tb);
        if (shown < j - i) tr_buf_addf(b, "... %zu more\n", j - i - shown);
        i = j;
    }
    tr_buf_fini_into(&cell, b);
}

void tr_diff_json(const tr_diff *d, long top, tr_buf *b)
{
    tr_buf_addf(b,
                "{\"schema\":\"tracestat-diff/1\",\"span_ns\":[%lld,%lld],\"samples\":[%llu,%llu]",
                (long long)d->span[0], (long long)d->span[1], (unsigned long long)d->samples[0],
                (unsigned long long)d->samples[1]);
    for (int kind = 0; kind < TR_DIFF_KIND_COUNT; kind++) {
        tr_buf_addf(b, ",\"%s\":[", tr_diff_kind_name(kind));
        size_t shown = 0;
        for (size_t i = 0; i < d->n; i++) {
            const tr_diff_row *r = &d->rows[i];
            if (r->kind != kind || (top > 0 && shown == (size_t)top)) continue;
            tr_buf_adds(b, shown++ ? ",{" : "{");
            if (r->name) {
                tr_buf_adds(b, "\"name\":");
                tr_buf_add_json_str(b, r->name, strlen(r->name));
            } else {
                tr_buf_addf(b, "\"rank\":%d", r->rank);
            }
            tr_buf_addf(b, ",\"status\":\"%s\",\"count\":[%llu,%llu],\"value\":[%lld,%lld]",
                        rd_status(r), (unsigned long long)r->count[0],
                        (unsigned long long)r->count[1], (long long)r->value[0],
                        (long long)r->value[1]);
            if (kind == TR_DIFF_IO_RANK)
                tr_buf_addf(b, ",\"bytes\":[%lld,%lld]", (long long)r->bytes[0],
                            (long long)r->bytes[1]);
            if (kind == TR_DIFF_FRAME) {
                tr_buf_adds(b, ",\"share\":[");
                tr_buf_add_real(b, r->share[0]);
                tr_buf_adds(b, ",");
                tr_buf_add_real(b, r->share[1]);
                tr_buf_adds(b, "]");
            }
            tr_buf_adds(b, ",\"effect\":");
            tr_buf_add_real(b, r->effect);
            tr_buf_adds(b, "}");
        }
        tr_buf_adds(b, "]");
    }
    tr_buf_adds(b, "}\n");
}
