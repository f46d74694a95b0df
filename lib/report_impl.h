/*
** report_impl.h: what the lib/report*.c files share (not public): the
** computed report, text tables, and the labels rows give things.
*/
#ifndef TR_REPORT_IMPL_H
#define TR_REPORT_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "tr_analysis.h"
#include "tr_hangs.h"
#include "tr_mem.h"
#include "tr_report.h"
#include "tr_stree.h"
#include "tr_trace.h"

struct tr_report {
    const tr_trace *t;
    unsigned reads_mark; /* tr_trace_read_failures(t) as the report began */
    tr_report_opts o;
    unsigned want;         /* sections computed and printed (bits 1u << TR_REPORT_*) */
    int explicit_sections; /* asked by name: printed even when empty */
    int have_span;
    int64_t first, last;
    uint64_t n_events[TR_EV_KIND_COUNT]; /* by enum tr_event_kind: the overview's counts */
    /* the sections computed from events one at a time (tr_report_begin), until tr_report_end */
    tr_lane_acc *lane_acc;
    tr_op_acc *op_acc;
    tr_hot_acc *hot_acc;
    tr_straggler_acc *strag_acc;
    tr_gpu_acc *gpu_acc;
    tr_stree_acc *tree_acc;
    tr_hangs_acc *hangs_acc;
    int8_t *is_io; /* by string id: a slice so named is an I/O call (1), not (0), unknown (-1) */
    size_t n_str;  /* of is_io */
    int io_wanted; /* the io section or the stragglers: slices are checked for I/O calls */
    uint64_t io_calls; /* slices met that are I/O calls: a stream's io section needs the model */
    tr_lane_stats lanes;
    tr_op_stats ops;
    tr_io_stats io;
    tr_hot_stats hot;
    tr_straggler_stats strag;
    tr_stree tree;   /* hangs: where every member is */
    tr_hangs events; /* hangs: what the events say */
    tr_gpu_stats gpu;
    tr_gpu_breakdown gpu_bd; /* gpu-breakdown */
    tr_gpu_kernels gpu_k;    /* gpu-kernels */
    tr_gpu_launches gpu_l;   /* gpu-kernels */
    tr_kernel_seqs gpu_seq;  /* gpu-kernels */
    tr_buf *html; /* set while tr_report_html runs: tables and headings go there as HTML */
};

/* ^Whether R holds section SEC. */
static inline int tr_rp_has(const tr_report *r, int sec)
{
    return (r->want >> sec) & 1u;
}

/* ^Rows of N to list: --top, else 20 for people (HUMAN) and all for scripts. */
size_t tr_rp_top(const tr_report *r, size_t n, int human);

/* ---- names of things ---- */

/* ^The text of string S of T. */
static inline const char *tr_rp_str(const tr_trace *t, tr_str s)
{
    return tr_str_get(t, s, NULL);
}
/* ^"rank 3", "pid 1234" or the process name: how a process is called in a row. */
void tr_rp_process_label(tr_buf *b, const tr_trace *t, const tr_process *p);
/* ^A lane's label: the track name, prefixed by its process when the trace has several. */
void tr_rp_track_label(tr_buf *b, const tr_trace *t, uint32_t track);
/* ^"function (file:line)" of a frame, as py-spy prints it. */
void tr_rp_frame_label(tr_buf *b, const tr_trace *t, uint32_t frame);

/* ---- units ---- */

/* ^"512 B", "1.5 KiB", ... "2.0 TiB". */
void tr_rp_size(tr_buf *b, int64_t bytes);
/* ^A size per second: "1.5 MiB/s". */
void tr_rp_rate(tr_buf *b, double bytes_per_s);
/* ^PART of WHOLE as "12.5%" (0.0% of nothing). */
void tr_rp_pct(tr_buf *b, double part, double whole);
/* ^"span: FIRST .. LAST (LENGTH)\n", or "span: empty\n" when HAVE is 0. */
void tr_rp_span(tr_buf *b, int have, int64_t first, int64_t last);

/* ---- text tables ---- */

/*
** A table of text cells filled row by row, header first, then printed with
** its columns aligned; one flexible column is cut (with an ellipsis) so that
** lines fit the width.
*/
#define TR_RP_MAX_COLS 16

typedef struct tr_rp_table {
    size_t ncol;       /* TR_RP_MAX_COLS at most */
    const char *align; /* 'l' or 'r' per column */
    tr_buf cells;      /* every cell NUL-terminated, row after row */
    tr_vec offs;       /* size_t offsets of the cells */
    int flex;          /* column cut to fit the width, -1 none */
} tr_rp_table;

void tr_rp_table_init(tr_rp_table *tb, const char *align, int flex);
void tr_rp_table_fini(tr_rp_table *tb);
/* ^Appends the next cell, formatted as printf would. */
void tr_rp_cell(tr_rp_table *tb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* ^Appends a cell of NS as tr_buf_add_duration spells it. */
void tr_rp_cell_duration(tr_rp_table *tb, int64_t ns);
/* ^Appends a cell of BYTES as tr_rp_size spells it. */
void tr_rp_cell_size(tr_rp_table *tb, int64_t bytes);
/* ^Appends each of the N strings of V as a cell (a header row). */
void tr_rp_cells(tr_rp_table *tb, const char *const *v, size_t n);
/* ^The cell at ROW, COL ("" past the end). */
const char *tr_rp_table_at(const tr_rp_table *tb, size_t row, size_t col);
/* ^The rows of TB, its header row included. */
size_t tr_rp_table_rows(const tr_rp_table *tb);
/* ^The widths of the columns, in display columns, into W[ncol]. */
void tr_rp_table_widths(const tr_rp_table *tb, size_t *w);
/*
** ^Appends the table aligned, a rule under its header row, cut to R's width;
** ^while R writes HTML, B's text so far and then the table go to R's HTML.
*/
void tr_rp_table_print(const tr_report *r, const tr_rp_table *tb, tr_buf *b);
/* ^A bar of WIDTH columns filled to FRAC (0..1), in eighths of a block. */
void tr_rp_bar(tr_buf *b, double frac, int width, int ascii);
/* ^A section's "── title" line, after a blank line unless B is empty (a heading in HTML). */
void tr_rp_heading(const tr_report *r, tr_buf *b, const char *title);

/* ---- the HTML forms of a table and a heading (report_html.c) ---- */

/* ^Moves B's text (in a <pre>) and then TB as a sortable <table> to R's HTML. */
void tr_rp_html_table(const tr_report *r, const tr_rp_table *tb, tr_buf *b);
/* ^Moves B's text (in a <pre>) and then TITLE as a heading to R's HTML. */
void tr_rp_html_heading(const tr_report *r, tr_buf *b, const char *title);

/* ---- the sections as text, JSON and CSV (report_text.c, report_json.c, report_csv.c) ---- */

void tr_rp_text_overview(const tr_report *r, tr_buf *b);
void tr_rp_text_lanes(const tr_report *r, tr_buf *b);
void tr_rp_text_ops(const tr_report *r, tr_buf *b);
void tr_rp_text_io(const tr_report *r, tr_buf *b);
void tr_rp_text_hot(const tr_report *r, tr_buf *b);
void tr_rp_text_stragglers(const tr_report *r, tr_buf *b);
void tr_rp_text_hangs(const tr_report *r, tr_buf *b);
void tr_rp_text_gpu(const tr_report *r, tr_buf *b);

/* ---- the HTA breakdowns (report_gpu.c) ---- */

/* ^The JSON fields naming a track (process, pid, rank, track, tid, kind) or a process. */
void tr_rp_json_track(tr_buf *b, const tr_trace *t, uint32_t track);
void tr_rp_json_process(tr_buf *b, const tr_trace *t, uint32_t process);
void tr_rp_text_gpu_breakdown(const tr_report *r, tr_buf *b);
void tr_rp_text_gpu_kernels(const tr_report *r, tr_buf *b);
void tr_rp_json_gpu_breakdown(const tr_report *r, tr_buf *b);
void tr_rp_json_gpu_kernels(const tr_report *r, tr_buf *b);

#endif
