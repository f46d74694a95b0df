// sample.mjs --tracecat BIN --tracesql BIN --work DIR --trace FILE... [--partition]
//            [--rank FILE=N]... [--row-group ROWS]
// Sample traces through Parquet and DuckDB against tracesql (common.mjs).
import fs from 'node:fs';
import path from 'node:path';
import { args, duckdb, metadata, roundtrip } from './common.mjs';

const o = args(process.argv.slice(2));
const db = await duckdb();
const extra = o['row-group'] ? ['--row-group-rows', o['row-group']] : [];
let bad = 0;
for (const [i, trace] of o.trace.entries()) {
  const work = path.join(o.work, String(i));
  fs.mkdirSync(work, { recursive: true });
  let failures, counts, out;
  try {
    ({ out, failures, counts } = await roundtrip(o, trace, work, db, extra));
    const { meta, failures: mf } = await metadata(db, out);
    failures.push(...mf);
    if (o['row-group']) {
      // Small row groups: the slices span several, each with its own ts range.
      const groups = new Set(meta.filter((m) => m.file_name.includes('/slice/')).map((m) => m.row_group_id)).size;
      const want = Math.ceil(counts.slice / Number(o['row-group']));
      if (groups !== want) failures.push(`slice: ${groups} row groups, want ${want}`);
    }
  } catch (err) {
    failures = [String(err.stack || err)];
    counts = {};
  }
  for (const f of failures.slice(0, 40)) console.log(`FAIL: ${trace}: ${f}`);
  console.log(`${trace}: ${Object.entries(counts).filter(([, n]) => n).map(([t, n]) => `${t} ${n}`).join(', ')}; ${failures.length} differences`);
  if (failures.length) bad++;
  else fs.rmSync(work, { recursive: true, force: true });
}
console.log(`${o.trace.length - bad} of ${o.trace.length} traces agree`);
process.exit(bad || o.trace.length === 0 ? 1 : 0);
