// common.mjs: convert a trace to Parquet with tracecat, then check that DuckDB
// reading the files gives what tracesql gives on the same trace: every table's
// row count and a fingerprint of each column (non-null count, sum of integers
// mod a prime, distinct strings, total string length, sum of reals), the sums
// of bytes, and a known slice with its args.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

export const TABLES = ['slice', 'instant', 'counter', 'stack_sample', 'trace_input', 'process',
  'thread', 'track', 'flow', 'args', 'stack_profile_callsite', 'stack_profile_frame',
  'sample_stack', 'io'];
// Rows of these are gathered per part from its events, so a rank-partitioned
// input repeats the ones that several ranks use.
const SHARED = new Set(['args', 'stack_profile_callsite', 'stack_profile_frame', 'trace_input']);

export async function duckdb() {
  const require = createRequire(path.join(process.env.DUCKDB_MODULES, 'node_modules') + '/');
  const { DuckDBInstance } = require('@duckdb/node-api');
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  return {
    async rows(sql) {
      const r = await con.runAndReadAll(sql);
      return r.getRowObjectsJson();
    },
    async run(sql) { await con.run(sql); },
  };
}

export function args(argv) {
  const o = { rank: [], trace: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--partition') o.partition = true;
    else if (a === '--rank') o.rank.push(argv[++i]);
    else if (a === '--trace') o.trace.push(argv[++i]);
    else if (a.startsWith('--')) o[a.slice(2)] = argv[++i];
    else throw new Error(`bad argument ${a}`);
  }
  return o;
}

export function tracecat(o, trace, out, extra = []) {
  const argv = ['convert', trace, '-o', out, '--to', 'parquet', '-q'];
  if (o.partition) argv.push('--partition', 'rank');
  for (const r of o.rank) argv.push('--rank', r);
  return execFileSync(o.tracecat, argv.concat(extra), { stdio: ['ignore', 'pipe', 'pipe'] });
}

// Runs the statements on the trace through tracesql; one JSON array per statement.
export function tracesql(o, trace, sqls) {
  const argv = ['-q', '-m', 'json'];
  for (const r of o.rank) argv.push('--rank', r);
  argv.push(trace);
  // the Parquet files hold the stored tables: main.slice, not tracesql's Perfetto view of it (issue 22.6)
  const stored = (s) => s.replace(/\b(FROM|JOIN) (slice|args|thread|process)\b/gi, '$1 main.$2');
  for (const s of sqls) argv.push('-c', stored(s).replace(/\n/g, ' '));
  const out = execFileSync(o.tracesql, argv, { maxBuffer: 1 << 30 }).toString();
  // A result is one line per row: "[{..}," .. "{..}]", or "[]".
  const results = [];
  let acc = '';
  for (const l of out.split('\n')) {
    acc += l;
    if (l.endsWith(']')) {
      results.push(JSON.parse(acc));
      acc = '';
    }
  }
  if (results.length !== sqls.length) throw new Error(`tracesql gave ${results.length} results for ${sqls.length} statements`);
  return results;
}

// Views named as the SQL tables over DIR's files, so one query runs on both.
export async function views(db, dir, partition) {
  for (const t of TABLES) {
    const glob = path.join(dir, t, partition ? '*/*.parquet' : '*.parquet');
    const src = `read_parquet('${glob}', hive_partitioning = ${partition})`;
    const sql = partition && SHARED.has(t) ? `SELECT DISTINCT * EXCLUDE (part, rank) FROM ${src}` : `SELECT * FROM ${src}`;
    await db.run(`CREATE OR REPLACE VIEW ${t} AS ${sql}`);
  }
}

// Column types from the files: BIGINT, DOUBLE or VARCHAR.
export async function columns(db, table) {
  const rows = await db.rows(`DESCRIBE ${table}`);
  return rows.filter((r) => r.column_name !== 'part').map((r) => [r.column_name, r.column_type]);
}

function fingerprint(table, cols, from = table) {
  const parts = ['count(*) AS n'];
  for (const [c, type] of cols) {
    parts.push(`count("${c}") AS "${c}_n"`);
    if (type === 'BIGINT') parts.push(`CAST(coalesce(sum("${c}" % 1000003), 0) AS TEXT) AS "${c}_sum"`);
    else if (type === 'DOUBLE') parts.push(`coalesce(sum("${c}"), 0) AS "${c}_sum"`);
    else parts.push(`count(DISTINCT "${c}") AS "${c}_d"`, `coalesce(sum(length("${c}")), 0) AS "${c}_len"`);
  }
  return `SELECT ${parts.join(', ')} FROM ${from}`;
}

function same(a, b) {
  if (typeof a === 'number' || typeof b === 'number') {
    const x = Number(a), y = Number(b);
    return x === y || Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

// DuckDB's JSON gives integers as strings; tracesql as numbers.
function norm(row) {
  const o = {};
  for (const [k, v] of Object.entries(row)) o[k] = typeof v === 'string' && /^-?\d+$/.test(v) && Math.abs(Number(v)) < 2 ** 53 ? Number(v) : v;
  return o;
}

export function compare(what, got, want, failures) {
  if (got.length !== want.length) {
    failures.push(`${what}: DuckDB ${got.length} rows, tracesql ${want.length}`);
    return;
  }
  for (let i = 0; i < got.length; i++) {
    const g = norm(got[i]), w = norm(want[i]);
    for (const k of new Set([...Object.keys(g), ...Object.keys(w)]))
      if (!same(g[k], w[k])) failures.push(`${what} row ${i} ${k}: DuckDB ${JSON.stringify(g[k])}, tracesql ${JSON.stringify(w[k])}`);
  }
}

// The checks; PAIRS are [sql for tracesql, sql for DuckDB] (null: the same).
export async function roundtrip(o, trace, work, db, extra = []) {
  const out = path.join(work, 'out');
  fs.rmSync(out, { recursive: true, force: true });
  tracecat(o, trace, out, extra);
  const layout = JSON.parse(fs.readFileSync(path.join(out, '_tracecat.json'), 'utf8'));
  if (layout.schema_version !== 2 || layout.partition !== (o.partition ? 'rank' : null))
    throw new Error(`bad _tracecat.json: ${JSON.stringify(layout)}`);
  await views(db, out, !!o.partition);
  const pairs = [];
  for (const t of TABLES) {
    let cols = await columns(db, t);
    // partitioned: rank comes from the directory; trace_input's is the part's, not the input's
    // (process and io have a rank column of their own, the other tables gain one)
    if (o.partition && !['process', 'io'].includes(t)) cols = cols.filter(([c]) => c !== 'rank');
    // Parquet keeps every arg; so does SQL's args since schema 5 (schema 4 left out a GT
    // record's args that other columns repeat, which its gt_dropped_args gives back: empty now)
    const fp = fingerprint(t, cols);
    const all = t !== 'args' ? fp : fingerprint(t, cols, '(SELECT * FROM args UNION ALL SELECT arg_set_id, id, key, key,' +
      ' int_value, string_value, real_value, value_type, coalesce(string_value, CAST(int_value AS TEXT)) FROM gt_dropped_args)');
    pairs.push([`${t} fingerprint`, all, fp]);
  }
  const known = 'SELECT CAST(id AS TEXT) id, CAST(ts AS TEXT) ts, CAST(dur AS TEXT) dur, track_id, category, name, depth, parent_id, arg_set_id, CAST(bytes AS TEXT) bytes FROM slice ORDER BY dur DESC, id LIMIT 3';
  pairs.push(['longest slices', known, null]);
  pairs.push(['first slices', known.replace('dur DESC, id', 'ts, id').replace('LIMIT 3', 'LIMIT 5'), null]);
  const longest = 'SELECT id FROM slice ORDER BY dur DESC, id LIMIT 1';
  pairs.push(['args of the longest slice',
    `SELECT a.key, a.value_type, CAST(a.int_value AS TEXT) i, a.string_value, a.real_value FROM slice s JOIN args a ON a.arg_set_id = s.arg_set_id WHERE s.id = (${longest}) ORDER BY a.id`,
    `SELECT a.key, a.value_type, CAST(a.int_value AS TEXT) i, a.string_value, a.real_value FROM read_parquet('${out}/slice/**/*.parquet', hive_partitioning = ${!!o.partition}) s JOIN read_parquet('${out}/args/**/*.parquet', hive_partitioning = ${!!o.partition}) a ON a.part = s.part AND a.arg_set_id = s.arg_set_id WHERE s.id = (${longest}) ORDER BY a.id`]);
  pairs.push(['bytes', 'SELECT CAST(coalesce(sum(bytes), 0) AS TEXT) slice_bytes, (SELECT CAST(coalesce(sum(bytes), 0) AS TEXT) FROM instant) instant_bytes, (SELECT CAST(coalesce(sum(bytes), 0) AS TEXT) FROM io) io_bytes FROM slice', null]);
  pairs.push(['io per rank', 'SELECT rank, layer, count(*) calls, CAST(coalesce(sum(bytes), 0) AS TEXT) bytes FROM io GROUP BY rank, layer ORDER BY rank, layer', null]);
  pairs.push(['slices per process', 'SELECT p.upid, p.rank, count(*) n, CAST(sum(s.dur) AS TEXT) dur FROM slice s JOIN track t ON t.id = s.track_id JOIN process p ON p.upid = t.upid GROUP BY p.upid, p.rank ORDER BY p.upid', null]);
  pairs.push(['samples', 'SELECT CAST(sum(weight) AS TEXT) w, count(DISTINCT stack) stacks, max(depth) depth FROM sample_stack', null]);
  const want = tracesql(o, trace, pairs.map((p) => p[1]));
  const failures = [];
  for (let i = 0; i < pairs.length; i++) {
    const got = await db.rows(pairs[i][2] ?? pairs[i][1]);
    compare(pairs[i][0], got, want[i], failures);
  }
  return { out, failures, counts: Object.fromEntries(TABLES.map((t, i) => [t, Number(want[i][0].n)])) };
}

// Row groups: ts statistics in every event file, zstd everywhere, names by dictionary.
export async function metadata(db, out) {
  const failures = [];
  const meta = await db.rows(`SELECT file_name, row_group_id, path_in_schema, compression, encodings, stats_min_value, stats_max_value, num_values FROM parquet_metadata('${out}/*/**/*.parquet')`);
  for (const m of meta) {
    if (m.compression !== 'ZSTD') failures.push(`${m.file_name}: ${m.path_in_schema} is ${m.compression}`);
    if (m.path_in_schema === 'ts' && Number(m.num_values) > 0 &&
        (m.stats_min_value === null || BigInt(m.stats_min_value) > BigInt(m.stats_max_value)))
      failures.push(`${m.file_name} group ${m.row_group_id}: ts statistics ${m.stats_min_value}..${m.stats_max_value}`);
  }
  return { meta, failures };
}
