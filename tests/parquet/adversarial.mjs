// adversarial.mjs --tracecat BIN --tracesql BIN --work DIR
// Traces made to stress the writer, each through Parquet and DuckDB against
// tracesql (common.mjs), plus direct checks of what DuckDB reads back: empty
// tables, one-row tables, 1 MiB strings, non-ASCII text, a dictionary too big
// to keep (PLAIN fallback), values at the ends of their ranges.
import fs from 'node:fs';
import path from 'node:path';
import { args, duckdb, roundtrip } from './common.mjs';

const o = args(process.argv.slice(2));
fs.mkdirSync(o.work, { recursive: true });
const MiB = 1 << 20;
const big = 'x'.repeat(MiB - 8) + 'é末尾'; // 1 MiB of UTF-8 (é is 2 bytes, 末 and 尾 3 each)
const names = ['héllo wörld', '日本語のスライス', '🔥 hot path', 'tab\there', 'quote"back\\slash', ''];
const X = (name, ts, dur, extra = {}) => ({ ph: 'X', name, cat: 'c', ts, dur, pid: 1, tid: 1, ...extra });

const cases = {
  empty: { traceEvents: [] },
  'one-row': { traceEvents: [X('only', 5, 3, { args: { k: 1 } })] },
  'one-counter': { traceEvents: [{ ph: 'C', name: 'mem', ts: 1, pid: 1, tid: 1, args: { v: -2.5 } }] },
  'mib-strings': {
    traceEvents: [
      X(big, 0, 10, { cat: big, args: { [big.slice(0, 1000)]: big, small: 'ok' } }),
      X('short', 1, 2, { args: { s: big } }),
      { ph: 'i', name: big, ts: 3, pid: 1, tid: 1, s: 't' },
    ],
  },
  'non-ascii': {
    traceEvents: [
      { ph: 'M', name: 'process_name', pid: 1, args: { name: 'процесс ✓' } },
      { ph: 'M', name: 'thread_name', pid: 1, tid: 1, args: { name: 'スレッド' } },
      ...names.map((n, i) => X(n, i * 10, 5, { cat: n || 'ø', args: { 'clé': n, 'ключ': i } })),
    ],
  },
  'big-dictionary': {
    // 40000 distinct 40-byte names: past the 1 MiB dictionary, so PLAIN
    traceEvents: Array.from({ length: 40000 }, (_, i) => X(`name-${String(i).padStart(34, '0')}`, i, 1)),
  },
  extremes: {
    traceEvents: [
      X('neg', -5000, 0), X('huge', 9007199254740, 1e9),
      { ph: 'C', name: 'c', ts: 1, pid: 1, tid: 1, args: { a: 1e308, b: -1e-308, z: 0 } },
      X('args', 2, 1, { args: { u: 18446744073709551615, i: -9223372036854775808, t: true, f: false, r: 0.1 } }),
    ],
  },
};

const db = await duckdb();
let bad = 0;
for (const [name, trace] of Object.entries(cases)) {
  const work = path.join(o.work, name);
  fs.mkdirSync(work, { recursive: true });
  const file = path.join(work, `${name}.json`);
  fs.writeFileSync(file, JSON.stringify(trace));
  const { out, failures, counts } = await roundtrip(o, file, work, db);
  const q = async (sql) => db.rows(sql);
  const expect = (what, got, want) => {
    if (JSON.stringify(got) !== JSON.stringify(want)) failures.push(`${what}: got ${JSON.stringify(got).slice(0, 200)}, want ${JSON.stringify(want).slice(0, 200)}`);
  };
  if (name === 'empty') {
    for (const t of ['slice', 'instant', 'counter', 'args', 'io', 'sample_stack'])
      expect(`${t} rows`, (await q(`SELECT count(*) n FROM ${t}`))[0].n, '0');
  } else if (name === 'one-row') {
    expect('the slice', await q('SELECT ts, dur, name, category FROM slice'), [{ ts: '5000', dur: '3000', name: 'only', category: 'c' }]);
  } else if (name === 'mib-strings') {
    const r = await q(`SELECT octet_length(encode(name)) n, name = '${big}' same, octet_length(encode(category)) c FROM slice WHERE ts = 0`);
    expect('1 MiB name', r, [{ n: String(MiB), same: true, c: String(MiB) }]);
    expect('1 MiB arg', (await q('SELECT count(*) n FROM args WHERE octet_length(encode(string_value)) = 1048576'))[0].n, '2');
    expect('1 MiB instant', (await q('SELECT octet_length(encode(name)) n FROM instant'))[0].n, String(MiB));
  } else if (name === 'non-ascii') {
    const got = (await q('SELECT name FROM slice ORDER BY ts')).map((r) => r.name);
    expect('names', got, names.map((n) => n || null));
    expect('process', (await q('SELECT name FROM process'))[0].name, 'процесс ✓');
    expect('thread', (await q('SELECT name FROM thread'))[0].name, 'スレッド');
    expect('keys', (await q("SELECT count(*) n FROM args WHERE key IN ('clé', 'ключ')"))[0].n, String(2 * names.length));
  } else if (name === 'big-dictionary') {
    const enc = await q(`SELECT encodings FROM parquet_metadata('${out}/slice/*.parquet') WHERE path_in_schema = 'name'`);
    expect('name encoding', enc.map((r) => r.encodings), ['PLAIN, RLE']);
    expect('distinct names', (await q('SELECT count(DISTINCT name) n FROM slice'))[0].n, '40000');
  }
  for (const f of failures.slice(0, 20)) console.log(`FAIL: ${name}: ${f}`);
  console.log(`${name}: ${Object.entries(counts).filter(([, n]) => n).map(([t, n]) => `${t} ${n}`).join(', ')}; ${failures.length} differences`);
  if (failures.length) bad++;
  else fs.rmSync(work, { recursive: true, force: true });
}
process.exit(bad ? 1 : 0);
