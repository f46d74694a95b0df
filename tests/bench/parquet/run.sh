#!/usr/bin/env bash
# tests/bench/parquet/run.sh: the Parquet writer beside the SQLite writer.
#
#   1. The ~1 M-event traces (tests/bench/out/gt-720000.log from gen_gt.py, and the
#      Kineto-like kineto-115000.json from tests/bench/chrome/gen_kineto.py, made once)
#      converted to SQLite (-o run.db) and to Parquet (--to parquet): wall time, rows
#      written and rows/s (end to end, and for the write alone: minus a run whose filter
#      drops every event), bytes written, peak RSS.
#   2. Three typical aggregations: DuckDB over the Parquet files (tests/bench/parquet/
#      query.mjs, best of 3) against tracesql over the database (best of 3).
#   3. Memory of a many-input job: 64 and 640 inputs (symlinks to one GT log, so each
#      is its own part) to Parquet, against 64 to SQLite (which merges them in one
#      model): the Parquet peak must not grow with the number of inputs.
# Builds nothing: $TRACECAT, $TRACESQL (default build/...); DuckDB from npm into
# tests/bench/out/duckdb.  Prints tables and PASS/MISS for the issue's targets.
# Always exits 0 (a benchmark, not a test).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$root/tests/bench/out
tracecat=${TRACECAT:-$root/build/tracecat}
tracesql=${TRACESQL:-$root/build/tracesql}
mods=$out/duckdb
mkdir -p "$out"
gt=$out/gt-720000.log
[[ -s $gt ]] || python3 "$root/tests/bench/gen_gt.py" 720000 "$gt"
kin=$out/kineto-115000.json
[[ -s $kin ]] || python3 "$root/tests/bench/chrome/gen_kineto.py" "$kin" 115000
small=$out/gt-20000.log
[[ -s $small ]] || python3 "$root/tests/bench/gen_gt.py" 20000 "$small"
[[ -f $mods/node_modules/@duckdb/node-api/package.json ]] ||
    npm install --prefix "$mods" --no-audit --no-fund --loglevel=error "@duckdb/node-api@1.5.6-r.1" >/dev/null

# timed LABEL CMD...: one run under /usr/bin/time; sets wall (s) and rss (MiB)
timed() {
    local label=$1; shift
    /usr/bin/time -f '%e %M' -o "$out/pq-$label.time" "$@" >/dev/null 2>"$out/pq-$label.stderr" ||
        { echo "$label failed:"; tail -3 "$out/pq-$label.stderr"; }
    read -r wall rss <"$out/pq-$label.time"
    rss=$((rss / 1024))
}
rate() { echo "scale=0; $1 / $2" | bc; }

echo "== 1. writing (1 run each; rows = every table's rows, args included)"
printf '%-10s %-8s %8s %10s %12s %12s %10s %8s\n' trace writer wall_s rows rows/s write_rows/s MB peak_MB
declare -A W S
for t in gt kineto; do
    [[ $t == gt ]] && in=$gt || in=$kin
    db=$out/pq-$t.db dir=$out/pq-$t.parquet
    rm -rf "$db" "$dir" "$out/pq-$t-none.db" "$out/pq-$t-none.parquet"
    rows=$("$tracesql" -q "$in" -c "SELECT (SELECT count(*) FROM slice) + (SELECT count(*) FROM instant)
      + (SELECT count(*) FROM counter) + (SELECT count(*) FROM stack_sample) + (SELECT count(*) FROM flow)
      + (SELECT count(*) FROM args) + (SELECT count(*) FROM track) + (SELECT count(*) FROM thread)
      + (SELECT count(*) FROM process)")
    timed $t-none-sqlite "$tracecat" convert "$in" --name '-no-such-' -o "$out/pq-$t-none.db"; rs=$wall
    timed $t-none-parquet "$tracecat" convert "$in" --name '-no-such-' -o "$out/pq-$t-none.parquet" --to parquet; rp=$wall
    timed $t-sqlite "$tracecat" convert "$in" -o "$db"
    sb=$(stat -c %s "$db"); sw=$wall; sr=$rss
    printf '%-10s %-8s %8s %10s %12s %12s %10s %8s\n' $t sqlite $wall $rows $(rate $rows $wall) \
        $(rate $rows "($wall - $rs)") $((sb >> 20)) $rss
    timed $t-parquet "$tracecat" convert "$in" -o "$dir" --to parquet
    pb=$(du -sb "$dir" | cut -f1); pw=$wall
    printf '%-10s %-8s %8s %10s %12s %12s %10s %8s\n' $t parquet $wall $rows $(rate $rows $wall) \
        $(rate $rows "($wall - $rp)") $((pb >> 20)) $rss
    W[$t]=$(echo "scale=2; ($sw - $rs) / ($pw - $rp)" | bc)
    S[$t]=$(echo "scale=3; $pb / $sb" | bc)
    echo "  $t: Parquet writes $(echo "scale=2; $sw / $pw" | bc)x faster end to end, ${W[$t]}x for the write alone; size ${S[$t]} of SQLite's"
done

echo
echo "== 2. queries on the GT trace (ms, best of 3): DuckDB over Parquet vs tracesql over SQLite"
q_workers="SELECT track_id, count(*) AS ops, sum(dur) AS busy FROM slice WHERE category = 'gt.worker' GROUP BY track_id ORDER BY track_id"
q_names="SELECT name, count(*) AS n, sum(dur) AS total FROM slice GROUP BY name ORDER BY total DESC LIMIT 10"
q_bytes="SELECT category, name, sum(bytes) AS bytes FROM instant GROUP BY category, name ORDER BY bytes DESC LIMIT 10"
json=$(python3 -c 'import json,sys; print(json.dumps(dict(zip(["busy-per-worker","top-names","bytes-per-name"], sys.argv[1:]))))' \
    "$q_workers" "$q_names" "$q_bytes")
DUCKDB_MODULES=$mods node "$here/query.mjs" "$out/pq-gt.parquet" "$json" >"$out/pq-duck.txt"
printf '%-16s %10s %10s\n' query duckdb_ms tracesql_ms
for q in busy-per-worker:q_workers top-names:q_names bytes-per-name:q_bytes; do
    name=${q%%:*} var=${q#*:}
    best=
    for i in 1 2 3; do
        s=$(date +%s%N); "$tracesql" "$out/pq-gt.db" -c "${!var}" >/dev/null; e=$(date +%s%N)
        ms=$(( (e - s) / 1000000 )); [[ -z $best || $ms -lt $best ]] && best=$ms
    done
    printf '%-16s %10s %10s\n' $name "$(grep "^$name " "$out/pq-duck.txt" | cut -d' ' -f2)" "$best"
done

echo
echo "== 3. memory of many inputs (GT log of $(wc -l <"$small") lines each; peak RSS MiB)"
rm -rf "$out/pq-many"; mkdir -p "$out/pq-many/in"
for i in $(seq 0 639); do ln -sf "$small" "$out/pq-many/in/rank$i.log"; done
many() { ls "$out/pq-many/in"/rank*.log | head -n "$1"; }
timed many-1 "$tracecat" convert $(many 1) -o "$out/pq-many/p1" --to parquet; m1=$rss
timed many-64 "$tracecat" convert $(many 64) -o "$out/pq-many/p64" --to parquet; m64=$rss w64=$wall
timed many-640 "$tracecat" convert $(many 640) -o "$out/pq-many/p640" --to parquet; m640=$rss w640=$wall
timed many-64-sqlite "$tracecat" convert $(many 64) -o "$out/pq-many/s64.db"; s64=$rss
printf '%-28s %8s %8s\n' job peak_MB wall_s
printf '%-28s %8s %8s\n' "1 input -> parquet" $m1 -
printf '%-28s %8s %8s\n' "64 inputs -> parquet" $m64 $w64
printf '%-28s %8s %8s\n' "640 inputs -> parquet" $m640 $w640
printf '%-28s %8s %8s\n' "64 inputs -> sqlite (merged)" $s64 -
echo "  parquet files written for 640 inputs: $(find "$out/pq-many/p640" -name '*.parquet' | wc -l)"

echo
echo "== targets"
for t in gt kineto; do
    [[ $(echo "${W[$t]} >= 2" | bc) == 1 ]] && r=PASS || r=MISS
    echo "$r $t: Parquet write >= 2x SQLite's rows/s (${W[$t]}x, write alone)"
    [[ $(echo "${S[$t]} <= 0.334" | bc) == 1 ]] && r=PASS || r=MISS
    echo "$r $t: Parquet <= 1/3 of SQLite's size (${S[$t]})"
done
[[ $m640 -le $((m64 + m64 / 10 + 2)) ]] && r=PASS || r=MISS
echo "$r 640 inputs peak ($m640 MiB) within 10% of 64 inputs' ($m64 MiB), 1 input: $m1 MiB"
rm -rf "$out/pq-many" "$out"/pq-*-none.*
exit 0
