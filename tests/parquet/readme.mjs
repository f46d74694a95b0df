// readme.mjs --tracecat BIN --src SRCDIR --work DIR: runs every ```sql duckdb
// block of README.md.  Its first line is "-- tracecat convert ARGS", run from
// SRCDIR with out/ moved under DIR; the rest is SQL whose 'out/' paths point
// there.  Each query must succeed and return at least one row.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { args, duckdb } from './common.mjs';

const o = args(process.argv.slice(2));
const readme = fs.readFileSync(path.join(o.src, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/^```sql duckdb\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
const db = await duckdb();
let n = 0;
for (const block of blocks) {
  const [first, ...rest] = block.split('\n');
  const m = /^-- tracecat (convert .*)$/.exec(first);
  if (!m) throw new Error(`a README duckdb block does not start with '-- tracecat convert': ${first}`);
  const work = path.join(o.work, String(n++));
  fs.rmSync(work, { recursive: true, force: true });
  fs.mkdirSync(work, { recursive: true });
  const argv = m[1].split(/\s+/).filter(Boolean).map((a) => (a === 'out/' ? `${work}/out/` : a));
  execFileSync(o.tracecat, [...argv, '-q'], { cwd: o.src, stdio: ['ignore', 'inherit', 'inherit'] });
  const sql = rest.join('\n').replaceAll("'out/", `'${work}/out/`);
  let rows;
  try {
    rows = await db.rows(sql);
  } catch (err) {
    console.log(`FAIL: README DuckDB query ${n}:\n${sql}\n${err.message}`);
    process.exit(1);
  }
  if (!rows.length) {
    console.log(`FAIL: README DuckDB query ${n} returned no row:\n${sql}`);
    process.exit(1);
  }
  console.log(`query ${n}: ${rows.length} rows, first ${JSON.stringify(rows[0])}`);
}
if (n < 3) {
  console.log(`FAIL: want at least 3 README DuckDB queries, found ${n}`);
  process.exit(1);
}
