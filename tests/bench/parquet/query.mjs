// query.mjs DIR: times three typical aggregations on a Parquet directory in
// DuckDB (best of 3 after one warm-up); prints "name ms" lines.
import { createRequire } from 'node:module';
import path from 'node:path';

const dir = process.argv[2];
const require = createRequire(path.join(process.env.DUCKDB_MODULES, 'node_modules') + '/');
const { DuckDBInstance } = require('@duckdb/node-api');
const con = await (await DuckDBInstance.create(':memory:')).connect();
for (const t of ['slice', 'instant', 'track', 'args'])
  await con.run(`CREATE VIEW ${t} AS SELECT * FROM read_parquet('${dir}/${t}/**/*.parquet')`);
const queries = JSON.parse(process.argv[3]);
for (const [name, sql] of Object.entries(queries)) {
  let best = Infinity;
  for (let i = 0; i < 4; i++) {
    const t0 = process.hrtime.bigint();
    await con.runAndReadAll(sql);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (i > 0) best = Math.min(best, ms);
  }
  console.log(`${name} ${best.toFixed(1)}`);
}
