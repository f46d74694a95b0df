/*
** tr_analysis.h: the summaries people debug with, computed from a frozen trace.
**
** Each section is a plain result struct filled by one compute function and
** released by its fini; nothing here prints.  The report (tr_report.h)
** formats them for tracestat, and other binaries may use them too.  Every
** compute function returns TR_OK, or TR_FATAL with E filled when an
** allocation fails (the result is then empty and safe to fini).  Times are
** nanoseconds, like the model's.
**
** Sections and their conventions:
**   lanes       per track with slices: busy time = the union of its slices
**               (nesting and overlap counted once), idle = span - busy,
**               utilization = busy / span, where span is the whole trace's
**               (first event .. last end); the longest idle gaps, leading and
**               trailing ones included; op count = top-level slices (and
**               zero-length slices at their parent's very start, which the
**               time order cannot tell from a predecessor: GT batches).
**   ops         per slice name and per category: count, total, mean, p50,
**               p95 (nearest rank: the ceil(p/100 * n)-th smallest), max, bytes.
**   io          I/O slices (named by a POSIX, stdio, MPI-IO or HDF5 function),
**               with Darshan's job-summary conventions, see tr_io_stats.
**   hot         sampled stacks: self (innermost frame) and total (anywhere in
**               the stack, once per sample) samples per function and file.
**   stragglers  per rank: busy, I/O and step time; an outlier is a value
**               with |x - median| > k * MAD (MAD = median |x - median|,
**               unscaled; k = 3 by default) and > 1% of the median.
**   hangs       tr_stree.h (the stack prefix tree) and tr_hangs.h (the
**               checks that read hangs from events).
**   gpu         GPU streams: kernel, memcpy and memset time, communication
**               kernels (names starting "nccl") and their overlap with compute.
**   gpu-breakdown  HTA's temporal breakdown per device and idle-time classes
**               per stream (tr_gpu_breakdown).
**   gpu-kernels HTA's kernel breakdown by type and name (tr_gpu_kernels) and
**               launch statistics (tr_gpu_launches).
*/
#ifndef TR_ANALYSIS_H
#define TR_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "tr_error.h"
#include "tr_mem.h"
#include "tr_rows.h"
#include "tr_trace.h"

typedef struct tr_stat_opts {
    size_t gaps;            /* idle gaps kept per lane */
    double mad_k;           /* the straggler threshold's k */
    const char *step_glob;  /* names of step slices (fnmatch), NULL = "ProfilerStep*" */
    int hot_per_thread;     /* hot: one table per thread besides the merged one */
    int64_t kernel_wait;    /* gpu-breakdown: gaps shorter than this are kernel wait (ns) */
    int hta_rounding;       /* gpu-breakdown, gpu-kernels: HTA's whole microseconds, see below */
    const char *seq_op;     /* gpu-kernels: sequences' operator text, NULL = "aten::" */
    size_t seq_min;         /* gpu-kernels: the fewest kernels of a sequence */
    int hta_steps;          /* gpu-breakdown, gpu-kernels: enum tr_hta_steps */
    const char *io_exclude; /* io: directories whose files are left out (comma-separated);
                               NULL = Darshan's (TR_IO_EXCLUDE), "" = none */
    const char *io_include; /* io: directories kept although under an excluded one, besides
                               Darshan's (TR_IO_INCLUDE) */
} tr_stat_opts;

/*
** HTA's profiler-step filter (applied when it loads traces), for the
** gpu-breakdown and gpu-kernels sections: when the trace names two
** ProfilerStep#N or more, each input (HTA's rank) keeps only its CPU slices
** that start before its last ProfilerStep#N starts (none when it has no
** such step) and the GPU events launched by them; an input without CPU
** slices is kept whole.  ^TR_HTA_STEPS_LAST keeps the CPU slices that start
** by the end of the last step (HTA's include_last_profiler_step), ALL all.
*/
enum tr_hta_steps { TR_HTA_STEPS_COMPLETE = 0, TR_HTA_STEPS_LAST, TR_HTA_STEPS_ALL };

/*
** ^Defaults: 3 gaps, k = 3, steps "ProfilerStep*", merged hot stacks only,
** kernel wait below 30 us (HTA's consecutive_kernel_delay), exact times,
** kernel sequences of "aten::" operators with 3 kernels or more (HTA's
** min_pattern_len), Darshan's excluded and included directories.
*/
void tr_stat_opts_init(tr_stat_opts *o);

/*
** tr_stat_span: the trace's time span
** ^Sets *FIRST to the earliest event time and *LAST to the latest event end
** (slice ts + dur) and returns 1, or returns 0 for a trace without events.
*/
int tr_stat_span(const tr_trace *t, int64_t *first, int64_t *last);

/*
** Events one at a time.  The span, lanes, ops, hot tables, stragglers and
** GPU streams are accumulators as well, for events that come from a stream (tr_stream.h,
** with tr_rows.h's nesting) rather than from the model's tables: each is
** made over a trace whose dictionaries (strings, processes, tracks) are
** final, meets every event of every kind in tr_iter's order with what
** freeze gives it (a slice's parent and the parent's start), and ends
** into the result struct below, which it then no longer owns.  ^The
** compute functions feed the frozen model's rows through the same
** accumulators (tr_stat_feed_model), so both ways give the same result.
** ^An accumulator's add returns TR_OK, or TR_FATAL with E filled when out
** of memory; ^its free takes NULL.
*/
typedef int (*tr_stat_event_fn)(void *user, const tr_row_event *ev, tr_error *e);
/*
** ^Calls FN with USER for every event of the frozen trace T in tr_iter's
** order, with its row, depth, parent and the parent's start; ^stops at
** the first return that is not TR_OK and returns it.
*/
int tr_stat_feed_model(const tr_trace *t, tr_stat_event_fn fn, void *user, tr_error *e);
/*
** ^Widens the span *FIRST .. *LAST (start with INT64_MAX, INT64_MIN) by EV,
** the next event in tr_iter's order: the first event's start, the latest
** end (a slice's ts + dur); as tr_stat_span gives it.
*/
void tr_stat_span_add(int64_t *first, int64_t *last, const tr_event_rec *ev);

/* ---- lanes ---- */

typedef struct tr_gap {
    int64_t ts, dur;
} tr_gap;

typedef struct tr_name_count {
    tr_str name;
    uint64_t count;
} tr_name_count;

typedef struct tr_lane_stat {
    uint32_t track;
    uint64_t slices;    /* all its slices */
    uint64_t ops;       /* its top-level slices (a GT worker's round trips) */
    int64_t busy, idle; /* busy + idle = the trace's span */
    double utilization; /* busy / span, 0 for an empty span */
    tr_gap *gaps;       /* the longest idle gaps, longest first (ties: earlier first) */
    size_t n_gaps;
    tr_name_count *names; /* its top-level slices by name, most frequent first */
    size_t n_names;
} tr_lane_stat;

typedef struct tr_lane_stats {
    int64_t first, last; /* the trace's span */
    tr_lane_stat *lanes; /* tracks with slices, in track order */
    size_t n;
} tr_lane_stats;

int tr_lane_stats_compute(const tr_trace *t, const tr_stat_opts *o, tr_lane_stats *out,
                          tr_error *e);
void tr_lane_stats_fini(tr_lane_stats *s);

/*
** The lanes as an accumulator (see "Events one at a time"): per track its
** busy union, its longest gaps and its top-level names; per event the span.
*/
typedef struct tr_lane_acc tr_lane_acc;
int tr_lane_acc_new(const tr_trace *t, const tr_stat_opts *o, tr_lane_acc **out, tr_error *e);
int tr_lane_acc_add(tr_lane_acc *a, const tr_row_event *ev, tr_error *e);
int tr_lane_acc_end(tr_lane_acc *a, tr_lane_stats *out, tr_error *e);
void tr_lane_acc_free(tr_lane_acc *a);

/* ---- op breakdown ---- */

typedef struct tr_op_stat {
    tr_str key; /* the slice name, or the category */
    uint64_t count;
    int64_t total, max, p50, p95;
    double mean;
    int64_t bytes; /* sum of the slices' bytes, -1 when none had a size */
} tr_op_stat;

typedef struct tr_op_stats {
    tr_op_stat *by_name;
    size_t n_names;
    tr_op_stat *by_cat;
    size_t n_cats;
} tr_op_stats;

enum tr_op_sort { TR_OP_SORT_TOTAL = 0, TR_OP_SORT_COUNT, TR_OP_SORT_MEAN, TR_OP_SORT_MAX };

/* ^Both tables come sorted by total, descending. */
int tr_op_stats_compute(const tr_trace *t, tr_op_stats *out, tr_error *e);
/* ^Sorts descending by KEY; ties by total, then by key text (T names them). */
void tr_op_stats_sort(const tr_trace *t, tr_op_stat *v, size_t n, int key);
void tr_op_stats_fini(tr_op_stats *s);

/*
** The op breakdown as an accumulator (see "Events one at a time"): per
** name and per category its sums and every duration (8 bytes a slice in
** each table, for the percentiles).
*/
typedef struct tr_op_acc tr_op_acc;
int tr_op_acc_new(const tr_trace *t, tr_op_acc **out, tr_error *e);
int tr_op_acc_add(tr_op_acc *a, const tr_row_event *ev, tr_error *e);
int tr_op_acc_end(tr_op_acc *a, tr_op_stats *out, tr_error *e);
void tr_op_acc_free(tr_op_acc *a);

/* ---- I/O ---- */

enum tr_io_kind {
    TR_IO_READ = 0,
    TR_IO_WRITE,
    TR_IO_OPEN,
    TR_IO_STAT,
    TR_IO_SEEK,
    TR_IO_SYNC,
    TR_IO_META, /* close, unlink, rename, mkdir, fcntl, truncate, ... */
    TR_IO_KIND_COUNT
};

/*
** tr_io_kind_of: what an I/O function does
** ^Returns the tr_io_kind of the POSIX, stdio, MPI-IO or HDF5 function named
** NAME (read, pread64, readv, fread, MPI_File_read_at_all, H5Dread: read;
** MPI_File_iwrite: write; open, fopen, MPI_File_open: open; __xstat: stat;
** lseek, fseek, MPI_File_seek: seek; fsync, fflush, MPI_File_sync: sync;
** close, unlink, ...: metadata), or -1 when NAME is not an I/O function.
*/
int tr_io_kind_of(const char *name);
const char *tr_io_kind_name(int kind);

/* Darshan's request-size buckets: 0-100, 100-1K, ..., 100M-1G, 1G+ (upper bounds inclusive). */
#define TR_IO_BUCKETS 10
/* ^The bucket of a request of SIZE bytes (K = 1024). */
int tr_io_bucket_of(int64_t size);
const char *tr_io_bucket_name(int bucket);
/* ^The size in bytes of the named MPI datatype NAME (N bytes, "MPI_INT"), 0 when not one. */
int tr_io_mpi_type_size(const char *name, size_t n);

/*
** Darshan's modules: each I/O call is counted in the module its function
** belongs to (fopen, fread, fflush, ...: STDIO; open, write, lseek, dup,
** ...: POSIX; MPI_File_*: MPI-IO; H5F*, H5D*), whatever layer the trace
** gives it (Recorder files stdio calls under POSIX).
*/
enum tr_io_module {
    TR_IO_MOD_POSIX = 0,
    TR_IO_MOD_STDIO,
    TR_IO_MOD_MPIIO,
    TR_IO_MOD_H5F,
    TR_IO_MOD_H5D,
    TR_IO_MODULES
};

/* ^The tr_io_module of the I/O function NAME, or -1 when NAME is not one (tr_io_kind_of). */
int tr_io_module_of(const char *name);
/* ^"POSIX", "STDIO", "MPI-IO", "H5F", "H5D"; "?" for anything else. */
const char *tr_io_module_name(int module);

/* Darshan's counters, by what they count; each module has some of them (tr_io_dc_name). */
enum tr_io_dc {
    TR_IO_DC_OPENS = 0, /* every open, fdopen, dup and fileno (Darshan counts them all) */
    TR_IO_DC_FDOPENS,
    TR_IO_DC_FILENOS,
    TR_IO_DC_DUPS, /* dup, dup2, dup3, fcntl F_DUPFD / F_DUPFD_CLOEXEC */
    TR_IO_DC_INDEP_OPENS,
    TR_IO_DC_COLL_OPENS,
    TR_IO_DC_READS,
    TR_IO_DC_WRITES,
    TR_IO_DC_INDEP_READS,
    TR_IO_DC_INDEP_WRITES,
    TR_IO_DC_COLL_READS,
    TR_IO_DC_COLL_WRITES,
    TR_IO_DC_SPLIT_READS,
    TR_IO_DC_SPLIT_WRITES,
    TR_IO_DC_NB_READS,
    TR_IO_DC_NB_WRITES,
    TR_IO_DC_SEEKS,
    TR_IO_DC_STATS,
    TR_IO_DC_MMAPS,
    TR_IO_DC_FSYNCS,
    TR_IO_DC_FDSYNCS,
    TR_IO_DC_FLUSHES,
    TR_IO_DC_SYNCS,
    TR_IO_DC_VIEWS,
    TR_IO_DC_BYTES_READ,
    TR_IO_DC_BYTES_WRITTEN,
    TR_IO_DC_MAX_BYTE_READ, /* the highest over the module's records; -1 when none */
    TR_IO_DC_MAX_BYTE_WRITTEN,
    TR_IO_DC_CONSEC_READS,
    TR_IO_DC_CONSEC_WRITES,
    TR_IO_DC_SEQ_READS,
    TR_IO_DC_SEQ_WRITES,
    TR_IO_DC_RW_SWITCHES,
    TR_IO_DC_COUNT
};

/*
** ^Darshan's name of counter DC in MODULE ("STDIO_OPENS", "POSIX_DUPS",
** "MPIIO_COLL_WRITES", "H5D_BYTES_READ"), or NULL when the module has no
** such counter.
*/
const char *tr_io_dc_name(int module, int dc);

/* One module's counters, summed over its records (one per rank and file), MAX_BYTE the highest. */
typedef struct tr_io_module_stats {
    uint64_t records; /* (rank, file) pairs with a call of the module; 0: the module is absent */
    int64_t v[TR_IO_DC_COUNT];
} tr_io_module_stats;

/*
** Darshan's default path exclusions and inclusions (darshan-config.c): a
** file under one of these directories is not the job's I/O (hwloc's /sys
** and /proc, pci.ids, ROMIO's /etc/romio-hints), unless it is also under
** an included one.  ^A directory written with a trailing '/' is a prefix; one
** without names itself and what is under it.
*/
#define TR_IO_EXCLUDE "/etc/,/dev/,/usr/,/bin/,/boot/,/lib/,/opt/,/sbin/,/sys/,/proc/,/var/"
#define TR_IO_INCLUDE "/var/opt/cray/dws/mounts/"

typedef struct tr_io_counts {
    uint64_t ops[TR_IO_KIND_COUNT];
    int64_t bytes_read, bytes_written;
    int64_t time;                      /* summed durations of the calls */
    int64_t read_time, write_time;     /* the rest is metadata time */
    uint64_t hist_read[TR_IO_BUCKETS]; /* request sizes of reads */
    uint64_t hist_write[TR_IO_BUCKETS];
    uint64_t failed;   /* calls Darshan does not count: an error returned, or a stdio read or
                          write that moved no item; in no other field */
    uint64_t excluded; /* calls on a file under an excluded directory; in no other field */
} tr_io_counts;

typedef struct tr_io_rank {
    uint32_t process; /* the first process of the rank */
    int32_t rank;     /* -1 when the process has none (then the row is the process) */
    tr_io_counts c;   /* outermost I/O calls only (an MPI-IO call, not its POSIX calls) */
    int64_t run_time; /* first .. last event of the rank */
    uint32_t files;   /* distinct paths it touched */
} tr_io_rank;

typedef struct tr_io_layer {
    tr_str cat;     /* the slices' category: POSIX, MPI-IO, STDIO, HDF5, ... */
    tr_io_counts c; /* every I/O call of the layer, nested ones too */
} tr_io_layer;

/*
** Access pattern of the reads and writes of a file with a known offset, as
** Darshan counts it per rank and file: sequential when the offset is past the
** last byte the previous access (of the same kind) touched, consecutive when
** it is the very next byte (consecutive ones are sequential too), and the
** last byte starts at 0, so a first access at offset 0 is neither.  Offsets
** come from an "offset" arg, else from the file position that open, seek,
** read and write move.
*/
typedef struct tr_io_file {
    tr_str path;
    uint32_t ranks; /* ranks (or processes) that touched it */
    int64_t bytes_read, bytes_written;
    uint64_t reads, writes; /* outermost and nested calls of every layer */
    uint64_t accesses;      /* reads and writes with a known offset */
    uint64_t sequential, consecutive;
    int64_t max_byte_read, max_byte_written; /* Darshan's POSIX_MAX_BYTE_*: the highest offset
                                                read / written, -1 when none */
    uint64_t syncs; /* fsync, fdatasync, fflush of the file (POSIX_FSYNCS + STDIO_FLUSHES) */
} tr_io_file;

typedef struct tr_io_stats {
    tr_io_counts total; /* outermost calls of every rank */
    tr_io_rank *ranks;  /* by rank, then process */
    size_t n_ranks;
    tr_io_layer *layers; /* by category text */
    size_t n_layers;
    tr_io_file *files; /* by bytes moved, descending, then path */
    size_t n_files;
    uint32_t shared_files; /* touched by more than one rank */
    size_t slowest;        /* index of the rank with the most I/O time; n_ranks when none */
    double bandwidth;      /* total bytes / the slowest rank's I/O time, bytes/s (Darshan's
                              agg_perf_by_slowest); 0 when there is no I/O time */
    uint64_t requested;    /* reads and writes whose bytes are those asked for: the trace holds no
                              return value (a Recorder trace), so a short read counts in full */
    tr_io_module_stats modules[TR_IO_MODULES]; /* by tr_io_module: Darshan's counters */
    uint64_t no_ret;         /* counted calls without a return value: whether they failed is
                                not known (a Recorder trace) */
    uint64_t excluded_calls; /* calls on files under excluded directories, nested ones too */
    size_t excluded_files;   /* those files: in no other field (files, ranks' files) */
    uint64_t unplaced;       /* reads and writes at a position the trace cannot tell (after a
                                seek to a file's end without a return value): in no sequential,
                                consecutive or MAX_BYTE count, where Darshan has them */
} tr_io_stats;

/*
** ^The I/O analysis of T with the options SO (NULL: tr_stat_opts_init's):
** calls on a file under SO's excluded directories (Darshan's by default)
** count only in the excluded fields, failed calls only in failed.
*/
int tr_io_stats_compute(const tr_trace *t, const tr_stat_opts *so, tr_io_stats *out, tr_error *e);
void tr_io_stats_fini(tr_io_stats *s);

/* One read or write at a known offset: a point of a file's access plot. */
typedef struct tr_io_access {
    uint32_t row; /* the innermost I/O call's slice (its time, length and lane) */
    tr_str path;
    int64_t offset, bytes;
    int kind; /* TR_IO_READ or TR_IO_WRITE */
} tr_io_access;

/*
** ^tr_io_stats_compute that also keeps, in ACCESS (initialised here, of
** tr_io_access), every innermost read and write whose offset is known (from
** its offset arg, else the position its file's earlier calls left), in slice
** order.  ^On failure ACCESS is freed and empty.
*/
int tr_io_accesses(const tr_trace *t, const tr_stat_opts *so, tr_io_stats *out, tr_vec *access,
                   tr_error *e);

/* Where one I/O call works: its file and offsets as the analysis places them. */
typedef struct tr_io_call {
    uint32_t row;   /* the call's slice */
    tr_str path;    /* its file: the path arg, an MPI handle's open path; one spelling per file */
    int64_t offset; /* the offset arg, else (POSIX and stdio reads and writes) the position
                       derived as Darshan keeps it; -1 unknown */
    int64_t file_offset; /* the byte offset in the file: OFFSET for POSIX and stdio, an MPI-IO
                            offset through its file view (displacement + offset x etype size);
                            -1 unknown or not a data call */
    uint8_t excluded;    /* its file is under an excluded directory: not counted */
    uint8_t failed;      /* it returned an error: not counted (positions not derived) */
} tr_io_call;

/*
** ^tr_io_stats_compute that also keeps, in CALLS (initialised here, of
** tr_io_call), every I/O call that names a file, in slice order, the
** excluded and failed ones too.  ^On failure CALLS is freed and empty.
*/
int tr_io_calls(const tr_trace *t, const tr_stat_opts *so, tr_io_stats *out, tr_vec *calls,
                tr_error *e);

/* ---- hot stacks ---- */

typedef struct tr_hot_fn {
    tr_str function, file;
    uint64_t self, total; /* samples */
} tr_hot_fn;

typedef struct tr_hot_table {
    uint32_t track;   /* TR_NONE for the merged table */
    uint64_t samples; /* samples with frames: as the flame graph and folded output count */
    tr_hot_fn *fns;   /* by self, then total, descending */
    size_t n;
    uint64_t frameless; /* samples with no frames (a thread seen idle in C): left out above */
} tr_hot_table;

typedef struct tr_hot_stats {
    tr_hot_table merged;
    tr_hot_table *threads; /* with hot_per_thread: one per track with samples */
    size_t n_threads;
} tr_hot_stats;

int tr_hot_stats_compute(const tr_trace *t, const tr_stat_opts *o, tr_hot_stats *out, tr_error *e);
/*
** The hot tables as an accumulator (see "Events one at a time"): a count
** per thread and distinct stack.
*/
typedef struct tr_hot_acc tr_hot_acc;
int tr_hot_acc_new(const tr_trace *t, const tr_stat_opts *o, tr_hot_acc **out, tr_error *e);
int tr_hot_acc_add(tr_hot_acc *a, const tr_row_event *ev, tr_error *e);
int tr_hot_acc_end(tr_hot_acc *a, tr_hot_stats *out, tr_error *e);
void tr_hot_acc_free(tr_hot_acc *a);
/* ^Sorts a table by total samples instead (BY_TOTAL 1) or back by self (0). */
void tr_hot_table_sort(const tr_trace *t, tr_hot_table *h, int by_total);
void tr_hot_stats_fini(tr_hot_stats *s);

/* ---- stragglers ---- */

enum tr_rank_metric { TR_METRIC_BUSY = 0, TR_METRIC_IO, TR_METRIC_STEP, TR_METRIC_COUNT };
const char *tr_rank_metric_name(int metric);

typedef struct tr_rank_row {
    int32_t rank;                   /* -1 when the units are processes without ranks */
    uint32_t process;               /* its first process */
    int64_t value[TR_METRIC_COUNT]; /* busy, I/O time, mean step time (-1: no steps) */
    uint64_t steps;
    int outlier[TR_METRIC_COUNT]; /* -1 low, +1 high, 0 not */
} tr_rank_row;

typedef struct tr_straggler_stats {
    tr_rank_row *rows; /* by rank, then process */
    size_t n;
    int64_t median[TR_METRIC_COUNT], mad[TR_METRIC_COUNT];
    int has[TR_METRIC_COUNT]; /* the metric has a value on at least 2 ranks */
    double k;
} tr_straggler_stats;

/*
** ^The units are ranks when some process has one (processes without a rank
** are left out), otherwise processes.  ^Fewer than two units give no rows.
*/
int tr_straggler_stats_compute(const tr_trace *t, const tr_stat_opts *o, tr_straggler_stats *out,
                               tr_error *e);
void tr_straggler_stats_fini(tr_straggler_stats *s);

/*
** The stragglers as an accumulator (see "Events one at a time"): per unit
** its busy union and step sums.  ^Its end takes the units' I/O time from
** IO, the io section of the same events (tr_io_stats_compute).
*/
typedef struct tr_straggler_acc tr_straggler_acc;
int tr_straggler_acc_new(const tr_trace *t, const tr_stat_opts *o, tr_straggler_acc **out,
                         tr_error *e);
int tr_straggler_acc_add(tr_straggler_acc *a, const tr_row_event *ev, tr_error *e);
int tr_straggler_acc_end(tr_straggler_acc *a, const tr_io_stats *io, tr_straggler_stats *out,
                         tr_error *e);
void tr_straggler_acc_free(tr_straggler_acc *a);

/* ---- GPU ---- */

enum tr_gpu_class { TR_GPU_KERNEL = 0, TR_GPU_MEMCPY, TR_GPU_MEMSET, TR_GPU_CLASS_COUNT };

typedef struct tr_gpu_stream {
    uint32_t track;
    int64_t busy, idle; /* over the trace's span */
    int64_t time[TR_GPU_CLASS_COUNT];
    uint64_t count[TR_GPU_CLASS_COUNT];
    int64_t comm; /* communication kernel time (part of time[TR_GPU_KERNEL]) */
} tr_gpu_stream;

typedef struct tr_gpu_device {
    uint32_t process;
    int64_t time[TR_GPU_CLASS_COUNT];
    int64_t comm;                    /* summed communication kernel time */
    int64_t comm_wall, compute_wall; /* unions of communication / other kernels */
    int64_t overlap;                 /* time both ran at once */
} tr_gpu_device;

typedef struct tr_gpu_stats {
    tr_gpu_stream *streams;
    size_t n_streams;
    tr_gpu_device *devices;
    size_t n_devices;
} tr_gpu_stats;

/*
** ^A GPU slice is one of category "kernel", "gpu_memcpy" or "gpu_memset"
** (Kineto's), or any slice on a TR_TRACK_GPU track (classed by a "Memcpy" or
** "Memset" name prefix, else a kernel).  ^A communication kernel's name
** starts with "nccl" or "rccl", in any case.
*/
int tr_gpu_stats_compute(const tr_trace *t, tr_gpu_stats *out, tr_error *e);
void tr_gpu_stats_fini(tr_gpu_stats *s);

/*
** The GPU streams and devices as an accumulator (see "Events one at a
** time"): per stream its sums and busy union, per device its sums and the
** unions of its compute, communication and all kernels; per event the span.
*/
typedef struct tr_gpu_acc tr_gpu_acc;
int tr_gpu_acc_new(const tr_trace *t, tr_gpu_acc **out, tr_error *e);
int tr_gpu_acc_add(tr_gpu_acc *a, const tr_row_event *ev, tr_error *e);
int tr_gpu_acc_end(tr_gpu_acc *a, tr_gpu_stats *out, tr_error *e);
void tr_gpu_acc_free(tr_gpu_acc *a);

/* ---- GPU breakdowns (Holistic Trace Analysis's definitions) ---- */

/*
** A GPU event, for the breakdowns: a slice of Kineto's device categories
** "kernel", "gpu_memcpy", "gpu_memset", "cuda_sync" or "mtia_ccp_events"
** that names its "stream" in its args (the rows HTA keeps: stream != -1),
** or, in a trace without such categories, any slice on a TR_TRACK_GPU
** track.  ^With hta_rounding its start is rounded up and its end down to
** whole microseconds, as HTA's parser does (PyTorch PR 122425); otherwise
** times are exact nanoseconds.
*/
enum tr_kernel_type {
    TR_KTYPE_COMM = 0, /* names matching ^nccl, ^hip, ^hccl or ncclKernel */
    TR_KTYPE_MEMORY,   /* ^Memcpy, ^Memset, ^hipMemcpy, ^hipMemset, ^dma */
    TR_KTYPE_COMPUTE,  /* none of HTA's non-compute patterns (Sync, Memcpy, ...) */
    TR_KTYPE_OTHER,    /* the rest: "Event Sync", "Stream Wait Event", ... */
    TR_KTYPE_COUNT
};

/* ^The type HTA gives a GPU event named NAME (get_kernel_type, in that order). */
int tr_kernel_type_of(const char *name);
/* ^"communication", "memory", "computation" or "other". */
const char *tr_kernel_type_name(int type);

enum tr_idle_class { TR_IDLE_HOST = 0, TR_IDLE_KERNEL, TR_IDLE_OTHER, TR_IDLE_COUNT };
/* ^"host wait", "kernel wait" or "other". */
const char *tr_idle_class_name(int cls);

/*
** HTA's temporal breakdown of one device (a process holding GPU events):
** span = first GPU event start .. last GPU event end, busy = the union of
** its GPU events, idle = span - busy, compute = the union of its
** computation kernels, non-compute = busy - compute.
*/
typedef struct tr_gpu_time {
    uint32_t process;
    int32_t rank; /* -1 when unknown */
    uint64_t events;
    int64_t first, last;
    int64_t busy, idle, compute, non_compute;
} tr_gpu_time;

/*
** HTA's idle-time classes of one stream (a track), over its GPU events but
** cuda_sync ones, in start order: the gap before an event is its start
** minus the previous event's end; a positive gap is host wait when the
** event's launch (the other slice with its "correlation" arg: the CUDA
** runtime call) started
** after the previous event ended, else kernel wait when it is shorter than
** kernel_wait, else other.  ^HTA also adds negative gaps (overlapping
** events) to kernel wait; here they are no idle time.
*/
typedef struct tr_gpu_idle {
    uint32_t track;
    uint32_t process;
    int64_t time[TR_IDLE_COUNT];
    uint64_t gaps[TR_IDLE_COUNT];
    int64_t idle; /* the sum of the three */
} tr_gpu_idle;

/*
** HTA's queue length of one stream (trace_counters.py): the GPU events but
** cuda_sync ones with a launch, +1 at the launch's start and -1 at the event's start, in time
** order (+1 first at equal times); the length after each step is a point.
** ^at_max is the time the length stayed at its maximum (each point at the
** maximum lasts until the next point; the last lasts no time), as HTA's
** get_time_spent_blocked_on_full_queue with max_queue_length = the max.
*/
typedef struct tr_gpu_queue {
    uint32_t track;
    uint64_t points; /* 2 per event with a launch */
    int64_t max;     /* the longest queue */
    int64_t at_max;  /* ns spent at max */
    double mean;     /* the mean of the points' lengths (HTA's describe()) */
} tr_gpu_queue;

/*
** HTA's memory bandwidth counters (trace_counters.py) of one rank and memory
** kind (HTA's get_memory_kernel_type: "Memset", the first 11 characters of a
** "Memcpy..." name such as "Memcpy DtoH", else "Memcpy Unknown"): over the
** rank's memory events (but cuda_sync ones), +bandwidth at the start and
** -bandwidth at the end (a zero-length event ends one time unit later: 1 ns,
** 1 us with hta_rounding), in time order (ends first at equal times, then
** slice order); the running sum after each step is a point, exactly 0 while
** no event of the kind runs.  ^The bandwidth is the event's "memory bandwidth
** (GB/s)" arg (Kineto's bytes / duration), 0 when absent.  ^The summary is
** HTA's get_memory_bw_summary: pandas describe() of the positive points
** (std with n - 1, NAN for one point; quartiles interpolated linearly).
*/
typedef struct tr_gpu_membw {
    int32_t rank; /* -1 when unknown */
    char kind[16];
    uint64_t events, points;                   /* points: the positive ones */
    double mean, std, min, p25, p50, p75, max; /* GB/s */
} tr_gpu_membw;

typedef struct tr_gpu_breakdown {
    tr_gpu_time *devices; /* by process */
    size_t n_devices;
    tr_gpu_idle *streams; /* by track */
    size_t n_streams;
    tr_gpu_queue *queues; /* by track: streams with launched events */
    size_t n_queues;
    tr_gpu_membw *membw; /* by rank, then kind */
    size_t n_membw;
    int64_t kernel_wait; /* the threshold used */
} tr_gpu_breakdown;

int tr_gpu_breakdown_compute(const tr_trace *t, const tr_stat_opts *o, tr_gpu_breakdown *out,
                             tr_error *e);
void tr_gpu_breakdown_fini(tr_gpu_breakdown *s);

/* HTA's kernel breakdown: every GPU event but cuda_sync ones, by type and name. */
typedef struct tr_kernel_stat {
    tr_str name;
    int type;     /* enum tr_kernel_type */
    int32_t rank; /* by_rank rows: the rank, -1 unknown; kernels rows: -1 (all ranks) */
    int other;    /* by_rank rows: HTA groups it into its rank and type's "others" */
    uint64_t count;
    int64_t total, min, max;
    double mean;
} tr_kernel_stat;

/*
** HTA's "others" of one rank and type (get_gpu_kernel_breakdown's
** _aggr_gpu_kernel_time, num_kernels 10, duration_ratio 0.8): when the
** type has more than 10 kernel names on the rank, in by_rank's order (total
** descending, then name) a kernel is grouped into "others" when the running
** total up to it exceeds the 0.8 quantile of the running totals (numpy's
** linear interpolation) or it is the 11th or later.  ^total is HTA's "sum"
** of the others row (HTA's min, max and mean of that row are of the
** grouped kernels' totals, and of a kept row its total; not kept here).
*/
typedef struct tr_kernel_others {
    int32_t rank;
    int type;
    uint64_t names, count; /* the kernel names grouped, their events */
    int64_t total;
} tr_kernel_others;

typedef struct tr_gpu_kernels {
    int64_t type_total[TR_KTYPE_COUNT];
    uint64_t type_count[TR_KTYPE_COUNT];
    int64_t total;           /* all types */
    tr_kernel_stat *kernels; /* by type, then total descending, then name */
    size_t n;
    tr_kernel_stat
        *by_rank; /* per rank and name (HTA's per-rank breakdown): by rank, then as kernels */
    size_t n_by_rank;
    tr_kernel_others *others; /* by rank, then type */
    size_t n_others;
} tr_gpu_kernels;

int tr_gpu_kernels_compute(const tr_trace *t, const tr_stat_opts *o, tr_gpu_kernels *out,
                           tr_error *e);
void tr_gpu_kernels_fini(tr_gpu_kernels *s);

/*
** HTA's launch statistics (cuda_kernel_analysis.py): every GPU event but
** cuda_sync ones with a launch (the slice of the same correlation id):
** CPU duration = the call's, GPU duration = the event's, launch delay =
** event start - call end, 0 when negative.  ^With HTA's cutoffs: a short
** kernel has CPU duration <= 50 us and a GPU duration below its CPU
** duration; a runtime outlier a CPU duration > 50 us; a launch-delay
** outlier a delay > 100 us.
*/
typedef struct tr_gpu_launch {
    uint32_t kernel, launch; /* slice rows */
    int64_t cpu_dur, gpu_dur, delay;
} tr_gpu_launch;

#define TR_GPU_RUNTIME_CUTOFF 50000 /* ns */
#define TR_GPU_DELAY_CUTOFF   100000

typedef struct tr_gpu_launches {
    uint64_t launches;
    int64_t cpu_total, gpu_total, delay_total, delay_max;
    uint64_t short_kernels, runtime_outliers, delay_outliers;
    tr_gpu_launch *outliers; /* the launch-delay outliers, longest delay first (ties: kernel row) */
    size_t n_outliers;
} tr_gpu_launches;

int tr_gpu_launches_compute(const tr_trace *t, const tr_stat_opts *o, tr_gpu_launches *out,
                            tr_error *e);
void tr_gpu_launches_fini(tr_gpu_launches *s);

/*
** HTA's frequent CUDA kernel sequences (get_frequent_cuda_kernel_sequences):
** the roots are the slices that are no GPU events, whose name contains
** seq_op, at the shallowest depth (tr_slices.depth) such a slice has on
** their rank; a root's kernels are the GPU events (cuda_sync ones too)
** whose launch (analysis_gpu_events.c: the slice of the same correlation
** id) is the root or nested under it, in start order (then slice order).
** ^Roots with at least seq_min kernels count: per rank and pattern (the
** root's name, then its kernels' names) the number of roots, their summed
** CPU time (the roots' durations) and GPU time (their kernels' durations).
** ^HTA links a backward thread's operators under the main thread's
** ProfilerStep, which deepens them; here each thread keeps its own depths.
*/
typedef struct tr_kernel_seq {
    int32_t rank;            /* -1 when unknown */
    tr_str op;               /* the root's name */
    size_t first, n_kernels; /* its kernels' names: names[first .. first + n_kernels) */
    uint64_t count;
    int64_t cpu_total, gpu_total;
} tr_kernel_seq;

typedef struct tr_kernel_seqs {
    tr_kernel_seq *seqs; /* by rank, then count descending, then the text "op|k1|k2|..." */
    size_t n;
    tr_str *names;
} tr_kernel_seqs;

int tr_kernel_seqs_compute(const tr_trace *t, const tr_stat_opts *o, tr_kernel_seqs *out,
                           tr_error *e);
void tr_kernel_seqs_fini(tr_kernel_seqs *s);

/*
** ^A short kernel name as HTA's shorten_name reads it: template and
** argument lists dropped, then the last space-separated word
** ("void at::native::vectorized_elementwise_kernel<4, ...>(int, ...)" gives
** "at::native::vectorized_elementwise_kernel"); memory and plain names
** unchanged.  ^Appends to B.
*/
void tr_kernel_short_name(tr_buf *b, const char *name);

/* ---- the diff of two runs ---- */

/*
** What two traces (a control and a test run) differ in, matched by text:
** ops per slice name (count, total time), GPU kernels per name (count,
** total time, tr_gpu_kernels's events), stack functions (self and total
** samples; the share is total samples / all samples of the run), I/O per
** file (calls, bytes read + written) and per rank (calls, bytes, I/O time).
** ^Only rows that differ in count or value are kept.
*/
enum tr_diff_kind {
    TR_DIFF_OP = 0,
    TR_DIFF_KERNEL,
    TR_DIFF_FRAME,
    TR_DIFF_IO_FILE,
    TR_DIFF_IO_RANK,
    TR_DIFF_KIND_COUNT
};
/* ^"ops", "kernels", "frames", "io_files", "io_ranks". */
const char *tr_diff_kind_name(int kind);

typedef struct tr_diff_row {
    int kind;          /* enum tr_diff_kind */
    const char *name;  /* the op, kernel, function or path; a rank row's is NULL */
    int32_t rank;      /* io_ranks: the rank (-1: the process of pid in NAME-less rows) */
    uint64_t count[2]; /* [0] control, [1] test: calls, kernels, self samples */
    int64_t value[2];  /* total ns (ops, kernels, io_ranks' time), total samples, bytes */
    int64_t bytes[2];  /* io_ranks: bytes read + written */
    double share[2];   /* frames: total samples / samples of the run */
    double effect;     /* value[1] - value[0]; frames: share[1] - share[0] */
} tr_diff_row;

typedef struct tr_diff {
    tr_diff_row *rows; /* by kind, then |effect| descending, then name */
    size_t n;
    uint64_t samples[2]; /* all stack samples of each run */
    int64_t span[2];     /* each run's span, ns */
} tr_diff;

/*
** ^Compares the frozen traces CONTROL and TEST; the rows' names point into
** their string tables, so both must outlive OUT.  ^TR_OK, or TR_FATAL with
** E filled when an allocation fails (OUT is then empty).
*/
int tr_diff_compute(const tr_trace *control, const tr_trace *test, const tr_stat_opts *o,
                    tr_diff *out, tr_error *e);
void tr_diff_fini(tr_diff *d);

#endif
