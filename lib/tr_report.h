/*
** tr_report.h: the report people debug with, as text, JSON or CSV.
**
** A report holds the analyses of tr_analysis.h, computed once over a frozen
** trace for the sections asked, and formats them three ways: aligned tables
** with bars for people, JSON (schema "tracestat/1", documented in README.md)
** and one CSV table at a time for scripts.  tracestat prints a whole report;
** tracecat info prints the trace's overview (tr_report_info).  Nothing here
** prints or reads the terminal: every formatter appends to a tr_buf, and the
** caller passes the width of its output.  Times in the text are spelled by
** tr_buf_add_duration; JSON and CSV keep nanoseconds.
*/
#ifndef TR_REPORT_H
#define TR_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "tr_analysis.h"
#include "tr_stree.h"
#include "tr_error.h"
#include "tr_mem.h"
#include "tr_trace.h"

/* The sections, in the order they are printed. */
enum tr_report_section {
    TR_REPORT_OVERVIEW = 0, /* inputs, time span, event counts, skipped lines */
    TR_REPORT_LANES,        /* busy and idle time per lane */
    TR_REPORT_OPS,          /* per slice name and per category */
    TR_REPORT_IO,           /* per rank, per layer, request sizes, files */
    TR_REPORT_HOT,          /* hottest functions of sampled stacks */
    TR_REPORT_STRAGGLERS,   /* outlier ranks */
    TR_REPORT_HANGS, /* the stack prefix tree and the event checks (tr_stree.h, tr_hangs.h) */
    TR_REPORT_GPU,   /* GPU streams and devices */
    TR_REPORT_GPU_BREAKDOWN, /* HTA's temporal breakdown and idle-time classes (asked by name) */
    TR_REPORT_GPU_KERNELS,   /* HTA's kernel breakdown (asked by name) */
    TR_REPORT_SECTION_COUNT
};

/* ^The name of section SEC ("overview", "lanes", ...), or NULL when SEC is none. */
const char *tr_report_section_name(int sec);
/* ^The section named by the N bytes at NAME, or -1. */
int tr_report_section_find(const char *name, size_t n);
/*
** ^The section that CSV table NAME comes from ("io-files": TR_REPORT_IO), or
** -1 when there is no such table.  The tables: lanes, ops, categories,
** io-ranks, io-layers, io-files, io-modules, io-sizes, hot, stragglers, hangs,
** gpu-streams, gpu-devices.
*/
int tr_report_csv_section(const char *name);

typedef struct tr_report_opts {
    unsigned sections;  /* bits 1u << TR_REPORT_*; 0 = all up to TR_REPORT_GPU */
    int sort;           /* order of the ops tables: TR_OP_SORT_* */
    long top;           /* rows per table: -1 = 20 in text and all in JSON and CSV; 0 = all */
    int by_total;       /* hot: order by total samples instead of self */
    int ascii;          /* plain ASCII tables and bars instead of box drawing */
    int width;          /* columns the text may use */
    tr_stat_opts stat;  /* idle gaps, straggler k, step names, per-thread hot tables */
    tr_stree_opts tree; /* hangs: how frames are told apart, members, cuts, the progress rule */
} tr_report_opts;

/* ^Defaults: every section, ops by total, top -1, width 100, tr_stat_opts_init's. */
void tr_report_opts_init(tr_report_opts *o);

typedef struct tr_report tr_report;

/*
** tr_report_new: compute a report
** CONSTRUCTOR: tr_report
**
** ^Computes the sections O asks of the frozen trace T into *OUT and returns
** TR_OK, or TR_FATAL with E filled when an allocation fails (*OUT is then
** NULL).  ^The report borrows T and copies O; T must outlive it.
*/
int tr_report_new(const tr_trace *t, const tr_report_opts *o, tr_report **out, tr_error *e);
/* ^Frees R; NULL is a no-op. */
void tr_report_free(tr_report *r);

/*
** A report from events met one at a time (a stream's: tr_stream.h, with
** tr_rows.h's nesting), for traces whose events are not kept.  ^The
** overview, lanes, ops, hot, stragglers and gpu sections are computed so,
** by the accumulators of tr_analysis.h that tr_report_new feeds the
** model's rows through: the same figures either way.  ^The other sections
** read the model's tables.
*/
/* ^The sections O asks for that need the model's tables (bits 1u << TR_REPORT_*), 0 when none. */
unsigned tr_report_unstreamed(const tr_report_opts *o);
/*
** tr_report_begin: a report to feed events
** CONSTRUCTOR: tr_report
**
** ^T's dictionaries must be final (loaded and frozen), its events need not
** be there.  ^Returns TR_OK, TR_FAIL with E's code TR_E_USAGE when O asks
** for a section tr_report_unstreamed names, or TR_FATAL.
*/
int tr_report_begin(const tr_trace *t, const tr_report_opts *o, tr_report **out, tr_error *e);
/* ^Meets the next event in tr_iter's order.  ^TR_OK or TR_FATAL (out of memory). */
int tr_report_add(tr_report *r, const tr_row_event *ev, tr_error *e);
/*
** ^Ends the sections after the last event; R is then formatted as
** tr_report_new's.  ^Returns TR_OK, TR_FATAL, or TR_FAIL (TR_E_USAGE) when
** the stragglers would need the I/O time of I/O calls met (the io section
** reads the model): the caller reads the model instead.
*/
int tr_report_end(tr_report *r, tr_error *e);

/*
** tr_report_text: the report as people read it
** METHOD: tr_report
**
** ^Appends each section that has data, in enum order, as a "── title"
** heading and aligned tables cut to the width (a section asked by name is
** printed even when empty, saying so).  ^Tables list the top rows (20 by
** default) and say how many more there are.  ^With ascii, headings, rules
** and bars use ASCII only.  ^These formatters return nothing: an append
** that could not allocate leaves B's nomem set, which the caller checks
** before it writes B out.
*/
void tr_report_text(const tr_report *r, tr_buf *b);
/*
** ^Appends the report as one JSON object of schema "tracestat/1": schema,
** inputs and span_ns always, then an object or array per section computed.
*/
void tr_report_json(const tr_report *r, tr_buf *b);
/* ^Appends the hangs section's stack tree as a Graphviz digraph (tr_stree_dot). */
void tr_report_dot(const tr_report *r, tr_buf *b);
/*
** ^Appends CSV table NAME (see tr_report_csv_section) with its header line
** and returns TR_OK, or returns TR_FAIL without appending when NAME is no
** table.  ^Fields holding a comma, quote or line break are quoted.
*/
int tr_report_csv(const tr_report *r, const char *name, tr_buf *b);

/*
** A picture shown in the HTML report: its own section with a heading and an
** entry in the contents, placed after the report's section AFTER (whether or
** not that one had data).  HTML is the picture as HTML, self-contained: an
** <img> or <iframe> whose source is a data: URL.
*/
typedef struct tr_report_figure {
    int after;         /* enum tr_report_section; -1 = before every section */
    const char *id;    /* the anchor, [a-z0-9-] */
    const char *title; /* the heading */
    const char *html;
    size_t len;
} tr_report_figure;

/*
** tr_report_html: the report as one self-contained HTML page
** METHOD: tr_report
**
** ^Appends a page with inline CSS and a little inline script and nothing
** fetched from elsewhere: a contents list, then each section that has data
** as tr_report_text words it, its tables as HTML tables that sort by a
** column when its heading is clicked, its other lines as preformatted text;
** the overview section adds the inputs as tr_report_info lists them (clock,
** wall clock, where a merge placed each).  ^The N figures FIGS are placed
** after the sections they name.  ^Returns TR_OK, or TR_FATAL with E filled
** when an allocation fails.
*/
int tr_report_html(tr_report *r, const tr_report_figure *figs, size_t n, tr_buf *b, tr_error *e);

/*
** tr_report_info: what a trace holds, as tracecat info prints it
**
** ^Appends each input (path, format, origin, clock, wall clock, skipped
** lines, and where a merge placed it), the span, the row count of every
** table, each lane with its events per kind, the ten most frequent names
** and the instants per category, as text or, when JSON, as one object.
** ^Returns TR_OK, or TR_FATAL with E filled when an allocation fails.
*/
int tr_report_info(const tr_trace *t, int json, tr_buf *b, tr_error *e);

/*
** tr_diff_text: the diff of two runs as people read it
**
** ^Appends D (tr_analysis.h) as one table per kind of row that has any
** (ops, GPU kernels, stack functions, I/O per file, I/O per rank), the
** largest effect first, A the control run and B the test run; TOP rows per
** table (-1: 20, 0: all), cut to WIDTH, ASCII-only rules when ASCII.
*/
void tr_diff_text(const tr_diff *d, long top, int width, int ascii, tr_buf *b);
/*
** ^Appends D as one JSON object of schema "tracestat-diff/1": span_ns and
** samples of [control, test], then an array per kind (ops, kernels,
** frames, io_files, io_ranks) of rows {name or rank, status, count, value,
** [bytes,] [share,] effect}, TOP rows each (0 or -1: all).
*/
void tr_diff_json(const tr_diff *d, long top, tr_buf *b);

#endif
