/*
** schema_gpu.c: the SQL schema's GPU views over Kineto traces (issue 25), as
** HTA defines them and tracestat's gpu-kernels section computes them: which
** device events are kernels and of what type, each kernel's launch, memory
** bandwidth from the memory counters, kernel sequences and queue lengths.
** The views are listed with the tables in schema.c (tr_sc_tables).
*/
#include "schema_impl.h"

/* ---- GPU views (issue 25: HTA's definitions, as tracestat's gpu-kernels) ---- */

/*
** Kineto's device events with a stream, their stream, correlation id and
** HTA's kernel type (hta/common/types.py's patterns, in HTA's order).
*/
const char tr_sc_gpu_kernel_sql[] =
    "SELECT s.id AS slice_id, s.ts AS ts, s.dur AS dur, s.name AS name, s.category AS category,"
    " s.track_id AS track_id, t.upid AS upid, st.int_value AS stream,"
    " co.int_value AS correlation,"
    " CASE WHEN s.name GLOB 'nccl*' OR s.name GLOB 'hip*' OR s.name GLOB 'hccl*'"
    " OR s.name GLOB '*ncclKernel*' THEN 'communication'"
    " WHEN s.name GLOB 'Memcpy*' OR s.name GLOB 'Memset*' OR s.name GLOB 'dma*' THEN 'memory'"
    " WHEN s.name GLOB '*Memcpy*' OR s.name GLOB '*Memset*' OR s.name GLOB '*dma*'"
    " OR s.name GLOB '*Sync*' OR s.name GLOB 'Stream Wait Event*'"
    " OR s.name GLOB 'cuda*LaunchKernel*' OR s.name GLOB 'runFunction*'"
    " OR s.name GLOB 'job_exe*' OR s.name GLOB 'packet*' OR s.name GLOB 'pe_exe*'"
    " OR s.name GLOB 'cpum_exe_subgraph*' OR s.name GLOB 'collective_subgraph_execution*'"
    " THEN 'other' ELSE 'computation' END AS kernel_type"
    " FROM slice s JOIN track t ON t.id = s.track_id"
    " JOIN args st ON st.arg_set_id = s.arg_set_id AND st.key = 'stream'"
    " LEFT JOIN args co ON co.arg_set_id = s.arg_set_id AND co.key = 'correlation'"
    " WHERE s.category IN ('kernel', 'gpu_memcpy', 'gpu_memset', 'cuda_sync', 'mtia_ccp_events')";

/*
** Each GPU event with the runtime call of the same correlation id in the
** same input (HTA joins them per rank), as HTA's launch stats.  The
** correlation args and the runtime calls are materialized first so that
** SQLite indexes them for the join: joined directly, every kernel scanned
** all the args (15 s for the 14k-slice MTIA trace, now 0.1 s).
*/
const char tr_sc_kernel_launch_sql[] =
    "WITH corr AS MATERIALIZED (SELECT arg_set_id, int_value FROM args WHERE key = 'correlation'),"
    " rt AS MATERIALIZED (SELECT s.id, s.name, s.ts, s.dur, s.arg_set_id, p.input_id FROM slice s"
    " JOIN track t ON t.id = s.track_id JOIN process p ON p.upid = t.upid"
    " WHERE s.category IN ('cuda_runtime', 'mtia_runtime', 'cuda_driver'))"
    " SELECT k.slice_id AS kernel_id, r.id AS launch_id, r.name AS launch, k.name AS kernel,"
    " k.kernel_type AS kernel_type, k.upid AS upid, k.stream AS stream,"
    " k.correlation AS correlation, r.dur AS cpu_dur, k.dur AS gpu_dur,"
    " MAX(k.ts - r.ts - r.dur, 0) AS launch_delay"
    " FROM gpu_kernel k JOIN process kp ON kp.upid = k.upid"
    " JOIN corr ra ON ra.int_value = k.correlation"
    " JOIN rt r ON r.arg_set_id = ra.arg_set_id AND r.input_id = kp.input_id";

/*
** HTA's memory bandwidth counters as tracestat's gpu-breakdown computes them:
** two steps per memory event (its bandwidth arg at the start, minus it at
** the end; a zero-length event ends 1 ns later), the running sum per rank
** and kind in time order (ends first at equal times), 0 while none runs.
*/
const char tr_sc_memory_bw_sql[] =
    "WITH m AS (SELECT k.slice_id, k.ts, k.dur, p.rank AS rank, k.upid,"
    " CASE WHEN k.name GLOB 'Memset*' THEN 'Memset' WHEN k.name GLOB 'Memcpy*'"
    " THEN substr(k.name, 1, 11) ELSE 'Memcpy Unknown' END AS kind,"
    " coalesce(bw.real_value, bw.int_value, 0) AS bw"
    " FROM gpu_kernel k JOIN process p ON p.upid = k.upid"
    " JOIN slice s ON s.id = k.slice_id"
    " LEFT JOIN args bw ON bw.arg_set_id = s.arg_set_id AND bw.key = 'memory bandwidth (GB/s)'"
    " WHERE k.kernel_type = 'memory' AND k.category <> 'cuda_sync'),"
    " st AS (SELECT slice_id, ts, rank, upid, kind, bw AS delta, 1 AS open, 1 AS ord FROM m"
    " UNION ALL SELECT slice_id, ts + max(dur, 1), rank, upid, kind, -bw, -1, 0 FROM m),"
    " w AS (SELECT *, sum(delta) OVER win AS run, sum(open) OVER win AS running FROM st"
    " WINDOW win AS (PARTITION BY rank, kind ORDER BY ts, ord, slice_id"
    " ROWS UNBOUNDED PRECEDING))"
    " SELECT ts, slice_id, upid, rank, kind, delta AS delta_gbps,"
    " CASE WHEN running = 0 THEN 0.0 ELSE run END AS memory_bw_gbps FROM w";

/*
** HTA's frequent kernel sequences as tracestat's gpu-kernels counts them with
** its defaults (--seq-op aten::, --seq-min 3, --hta-steps all).  One row per
** root: a CPU slice whose name contains 'aten::' at the shallowest depth such
** a slice has on its rank, with the GPU events its launches (the first
** non-GPU slice of the input with the event's correlation id: the root or a
** slice nested under it) ran, in start order, and their summed time.  The
** materialized CTEs let SQLite index them for the joins.
*/
const char tr_sc_kernel_sequence_root_sql[] =
    "WITH RECURSIVE cpu AS MATERIALIZED (SELECT s.id, s.ts, s.dur, s.depth, s.parent_id,"
    " s.name, s.arg_set_id, coalesce(p.rank, -1) AS rank, p.input_id, t.kind <> 'gpu' AS on_cpu"
    " FROM slice s JOIN track t ON t.id = s.track_id JOIN process p ON p.upid = "
    "t.upid"
    " WHERE s.id NOT IN (SELECT slice_id FROM gpu_kernel)),"
    " top AS MATERIALIZED (SELECT rank, min(depth) AS depth FROM cpu"
    " WHERE on_cpu AND instr(name, 'aten::') > 0 GROUP BY rank),"
    " ca AS MATERIALIZED (SELECT arg_set_id, int_value FROM args WHERE key = 'correlation'),"
    " co AS MATERIALIZED (SELECT c.input_id, ca.int_value AS corr, min(c.id) AS id FROM cpu c"
    " JOIN ca ON ca.arg_set_id = c.arg_set_id WHERE ca.int_value >= 0 GROUP BY 1, 2),"
    " k AS MATERIALIZED (SELECT g.slice_id AS kernel_id, g.ts, max(g.dur, 0) AS dur, g.name,"
    " co.id AS launch_id FROM gpu_kernel g JOIN process p ON p.upid = g.upid"
    " JOIN co ON co.input_id = p.input_id AND co.corr = g.correlation),"
    " up(kernel_id, id, depth, parent_id, rank) AS (SELECT k.kernel_id, c.id, c.depth,"
    " c.parent_id, c.rank FROM k JOIN cpu c ON c.id = k.launch_id"
    " UNION ALL SELECT up.kernel_id, c.id, c.depth, c.parent_id, c.rank FROM up"
    " JOIN top ON top.rank = up.rank JOIN cpu c ON c.id = up.parent_id WHERE up.depth > top.depth),"
    " hit AS (SELECT up.id AS root_id, k.kernel_id, k.ts, k.dur, k.name FROM up"
    " JOIN top ON top.rank = up.rank AND top.depth = up.depth JOIN cpu r ON r.id = up.id"
    " JOIN k ON k.kernel_id = up.kernel_id WHERE r.on_cpu AND instr(r.name, 'aten::') > 0),"
    " w AS (SELECT root_id, count(*) OVER r AS n_kernels, sum(dur) OVER r AS gpu_dur,"
    " group_concat(name, '|') OVER (r ORDER BY ts, kernel_id"
    " ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS kernels,"
    " row_number() OVER (r ORDER BY ts, kernel_id) AS i FROM hit WINDOW r AS (PARTITION BY "
    "root_id))"
    " SELECT w.root_id AS root_id, c.rank AS rank, c.name AS op, w.n_kernels AS n_kernels,"
    " w.kernels AS kernels, max(c.dur, 0) AS cpu_dur, w.gpu_dur AS gpu_dur"
    " FROM w JOIN cpu c ON c.id = w.root_id WHERE w.i = 1";

/* The patterns (op, then the kernels' names joined by '|') of the roots with 3+ kernels. */
const char tr_sc_kernel_sequence_sql[] =
    "SELECT rank, op, kernels, n_kernels, count(*) AS count, sum(cpu_dur) AS cpu_dur,"
    " sum(gpu_dur) AS gpu_dur FROM kernel_sequence_root WHERE n_kernels >= 3"
    " GROUP BY rank, op, kernels ORDER BY rank, count DESC, op || '|' || kernels";

/*
** HTA's queue length time series as tracestat's gpu-breakdown counts it: per
** stream (track), +1 at the launch of each of its events (but cuda_sync ones)
** that kernel_launch links, -1 at the event's start, in time order (+1 first
** at equal times); queue_length is the running sum.
*/
const char tr_sc_queue_length_sql[] =
    "WITH e AS (SELECT g.track_id, g.upid, g.ts AS start, r.ts AS launch FROM kernel_launch l"
    " JOIN gpu_kernel g ON g.slice_id = l.kernel_id JOIN slice r ON r.id = l.launch_id"
    " WHERE g.category <> 'cuda_sync'),"
    " st AS (SELECT track_id, upid, launch AS ts, 1 AS delta FROM e"
    " UNION ALL SELECT track_id, upid, start, -1 FROM e)"
    " SELECT track_id, upid, ts, delta, sum(delta) OVER (PARTITION BY track_id"
    " ORDER BY ts, delta DESC ROWS UNBOUNDED PRECEDING) AS queue_length FROM st";
