#!/usr/bin/env bash
# tests/bench/sql/run.sh [LINES]: the SQLite writer against the sqlite3 shell's .import.
#
# On one synthetic GT log (LINES lines, default 720000: about 1 M events; generated once by
# tests/bench/gen_gt.py into tests/bench/out/) it measures
#   - tracecat convert LOG -o run.db: wall and CPU time, peak RSS, rows written (every table,
#     args included) and rows/s, end to end and for the load alone (minus a convert whose
#     filter drops every event: the same reading, no rows);
#   - sqlite3's .import of the same events as TSV (tracecat cat, made beforehand) into a
#     one-table schema, with the same journal/sync pragmas;
#   - three typical queries on both databases (hyperfine when installed, else one timed run).
# Builds nothing: $TRACECAT and $TRACESQL (default build/tracecat, build/tracesql).  Prints a
# table and PASS/MISS for the targets (load rows/s >= 1.5x .import's and >= 1 M rows/s).
# Always exits 0 (a benchmark, not a test) except on a usage error.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$root/tests/bench/out
[[ $# -le 1 ]] || { echo "usage: $0 [LINES]" >&2; exit 2; }
lines=${1:-720000}
tracecat=${TRACECAT:-$root/build/tracecat}
tracesql=${TRACESQL:-$root/build/tracesql}
runs=${RUNS:-3}
mkdir -p "$out"
log=$out/gt-$lines.log
[[ -s $log ]] || python3 "$root/tests/bench/gen_gt.py" "$lines" "$log"
db=$out/sql-$lines.db none=$out/sql-$lines-none.db imp=$out/sql-$lines-import.db tsv=$out/sql-$lines.tsv

# timed LABEL CMD...: one run under /usr/bin/time; sets wall, cpu (user+sys), rss (MiB)
timed() {
    local label=$1; shift
    /usr/bin/time -f '%e %U %S %M' -o "$out/sql-$label.time" "$@" >/dev/null 2>"$out/sql-$label.stderr" ||
        { echo "$label failed:"; cat "$out/sql-$label.stderr"; }
    read -r wall u s rss <"$out/sql-$label.time"
    cpu=$(echo "$u + $s" | bc)
    rss=$((rss / 1024))
}

rm -f "$db" "$none" "$imp"
"$tracecat" cat "$log" >"$tsv"
events=$(wc -l <"$tsv")
timed convert "$tracecat" convert "$log" -o "$db"; cw=$wall cc=$cpu cr=$rss
timed read-only "$tracecat" convert "$log" --name '-no-such-event-' -o "$none"; nw=$wall nc=$cpu
rows=$("$tracesql" "$db" -c "SELECT sum(n) FROM (SELECT count(*) n FROM meta UNION ALL SELECT count(*) FROM trace_input
  UNION ALL SELECT count(*) FROM process UNION ALL SELECT count(*) FROM thread UNION ALL SELECT count(*) FROM track
  UNION ALL SELECT count(*) FROM slice UNION ALL SELECT count(*) FROM instant UNION ALL SELECT count(*) FROM counter
  UNION ALL SELECT count(*) FROM flow UNION ALL SELECT count(*) FROM __intrinsic_args
  UNION ALL SELECT count(*) FROM __intrinsic_arg_pack UNION ALL SELECT count(*) FROM __intrinsic_arg_key
  UNION ALL SELECT count(*) FROM stack_profile_frame UNION ALL SELECT count(*) FROM stack_profile_callsite
  UNION ALL SELECT count(*) FROM stack_sample)")
cat >"$out/sql-import.sql" <<SQL
PRAGMA journal_mode=OFF;
PRAGMA synchronous=OFF;
CREATE TABLE events(kind TEXT, ts REAL, dur REAL, process TEXT, track TEXT, category TEXT,
                    name TEXT, value TEXT, args TEXT);
.mode tabs
.import $tsv events
SQL
timed import sh -c "sqlite3 '$imp' <'$out/sql-import.sql'"; iw=$wall ic=$cpu ir=$rss
irows=$(sqlite3 "$imp" 'SELECT count(*) FROM events')

rate() { echo "scale=0; $1 / $2" | bc; }
lw=$(echo "$cw - $nw" | bc) lc=$(echo "$cc - $nc" | bc)
printf '\nSQLite load: %s (%s events, %s rows in all tables)\n\n' "$(basename "$log")" "$events" "$rows"
printf '%-34s %9s %9s %9s %12s %12s\n' pass 'wall s' 'cpu s' 'RSS MiB' 'rows' 'rows/s wall'
printf '%-34s %9s %9s %9s %12s %12s\n' 'tracecat convert -o run.db' "$cw" "$cc" "$cr" "$rows" "$(rate "$rows" "$cw")"
printf '%-34s %9s %9s %9s %12s %12s\n' '  of which reading (no rows)' "$nw" "$nc" '' '' ''
printf '%-34s %9s %9s %9s %12s %12s\n' '  load alone (difference)' "$lw" "$lc" '' "$rows" "$(rate "$rows" "$lw")"
printf '%-34s %9s %9s %9s %12s %12s\n' 'sqlite3 .import (one table, TSV)' "$iw" "$ic" "$ir" "$irows" "$(rate "$irows" "$iw")"
printf '\nrows/s by CPU time: load %s, import %s\n' "$(rate "$rows" "$lc")" "$(rate "$irows" "$ic")"

ratio=$(echo "scale=2; ($rows / $lw) / ($irows / $iw)" | bc)
ok() { if [ "$(echo "$1" | bc)" = 1 ]; then echo PASS; else echo MISS; fi; }
printf 'target load rows/s >= 1.5x .import: %sx %s\n' "$ratio" "$(ok "$ratio >= 1.5")"
printf 'target load rows/s >= 1 M:          %s %s\n' "$(rate "$rows" "$lw")" "$(ok "$rows / $lw >= 1000000")"

# Three typical queries on both databases.
q1a="SELECT t.name, count(*), sum(s.dur) FROM slice s JOIN track t ON t.id = s.track_id WHERE s.category = 'gt.worker' GROUP BY t.name"
q1b="SELECT track, count(*), sum(dur) FROM events WHERE kind = 'slice' AND category = 'gt.worker' GROUP BY track"
q2a="SELECT count(*), sum(bytes) FROM instant WHERE name = 'RECV'"
q2b="SELECT count(*), sum(value) FROM events WHERE kind = 'instant' AND name = 'RECV'"
q3a="SELECT count(*) FROM slice WHERE track_id = (SELECT id FROM track WHERE name = 'worker auto_worker_2') AND ts BETWEEN 10000000000 AND 20000000000"
q3b="SELECT count(*) FROM events WHERE kind = 'slice' AND track = 'worker auto_worker_2' AND ts BETWEEN 10 AND 20"
printf '\n%-46s %14s %14s\n' query 'tracecat db s' '.import db s'
qtime() {
    if command -v hyperfine >/dev/null; then
        hyperfine -N -w 1 -r "$runs" --export-json "$out/sql-q.json" "sqlite3 $1 \"$2\"" >/dev/null 2>&1 &&
            python3 -c 'import json,sys; print("%.3f" % json.load(open(sys.argv[1]))["results"][0]["median"])' "$out/sql-q.json"
    else
        /usr/bin/time -f %e sqlite3 "$1" "$2" 2>&1 >/dev/null | tail -1
    fi
}
printf '%-46s %14s %14s\n' 'busy time per worker (GROUP BY lane)' "$(qtime "$db" "$q1a")" "$(qtime "$imp" "$q1b")"
printf '%-46s %14s %14s\n' 'RECV count and bytes (by name)' "$(qtime "$db" "$q2a")" "$(qtime "$imp" "$q2b")"
printf '%-46s %14s %14s\n' '10 s window on one lane (track, ts)' "$(qtime "$db" "$q3a")" "$(qtime "$imp" "$q3b")"
printf '\nsame answers: %s\n' "$([ "$(sqlite3 "$db" "$q2a")" = "$(sqlite3 "$imp" "$q2b" | sed 's/\.0$//')" ] && echo yes || echo NO)"
printf 'machine load: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
exit 0
