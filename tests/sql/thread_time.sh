#!/bin/bash
# thread_time.sh TRACECAT TRACESQL SRCDIR: issue 22.6's thread clock and older
# databases.  Chrome's tts/tdur reach slice.thread_ts/thread_dur (B/E pairs:
# tts at B, E.tts - B.tts) and come back out of Chrome JSON and of the .db;
# databases of schema 2 (no thread times), 1 (io a plain table, no
# __intrinsic_io) and 4 (a GT input's args as rows, bytes left out), made
# here from a new one, are read by tracesql and tracecat, or refused saying
# what to do; gt_op gives the rows of schema 4's definition on each GT log.
set -u
tracecat=$1 tracesql=$2 src=$3
. "$(dirname "$0")/../lib.sh"
v2=$src/testdata/chrome/perfetto/flow_events_json_v2.json
rec=$src/testdata/recorder/iomix-1r
want="SenderB	1000	5000
Blergh	NULL	NULL
SenderA	3005000	7000
OtherSlice	3204000	100000
SomeSlice	3335000	340000
SomeOtherSlice	3335000	996000"
times="SELECT name, coalesce(thread_ts, 'NULL'), coalesce(thread_dur, 'NULL') FROM slice
       WHERE dur > 0 ORDER BY ts"

# the trace, its .db, and the Chrome JSON of each, all say the same times
run_cmd 0 "$tracesql" "$v2" -c "$times"
[ "$(cat "$tmp/out")" = "$want" ] || fail "thread times from JSON: $(cat "$tmp/out")"
"$tracecat" convert -q "$v2" -o "$tmp/t.db" || fail "convert to .db failed"
run_cmd 0 "$tracesql" "$tmp/t.db" -c "$times"
[ "$(cat "$tmp/out")" = "$want" ] || fail "thread times from .db: $(cat "$tmp/out")"
"$tracecat" convert -q "$tmp/t.db" -o "$tmp/back.json" || fail "convert .db to JSON failed"
grep -q '"name":"SomeOtherSlice","cat":"ipc","ph":"X","ts":3333.000,"dur":997.000,"tts":3335.000,"tdur":996.000,' \
    "$tmp/back.json" || fail "B/E thread time not in the JSON out of the .db"
run_cmd 0 "$tracesql" "$tmp/back.json" -c "$times"
[ "$(cat "$tmp/out")" = "$want" ] || fail "thread times after a round trip: $(cat "$tmp/out")"
grep -q '"name":"Blergh"[^}]*"tts"' "$tmp/back.json" && fail "tts written for a slice without one"
# a trace without thread times has no tts in its JSON
"$tracecat" convert -q "$src/testdata/gt/gt-tiny-visualize_demo-1worker.log" -o "$tmp/gt.json" ||
    fail "GT convert failed"
grep -q '"tts"' "$tmp/gt.json" && fail "tts in the JSON of a trace that has none"

# schema 2: the same database without the thread columns
cp "$tmp/t.db" "$tmp/s2.db"
sqlite3 "$tmp/s2.db" "DROP INDEX slice_track_ts;
    ALTER TABLE slice DROP COLUMN thread_ts; ALTER TABLE slice DROP COLUMN thread_dur;
    UPDATE meta SET value = 2 WHERE key = 'schema_version'" || fail "cannot make a schema 2 db"
run_cmd 0 "$tracesql" "$tmp/s2.db" -c "SELECT count(*), count(thread_ts) FROM slice WHERE dur > 0"
expect_out '^6	0$'
run_cmd 0 "$tracecat" convert -q "$tmp/s2.db" -o "$tmp/s2.json"
grep -q '"tts"' "$tmp/s2.json" && fail "tts out of a schema 2 db"
grep -c '"ph":"X"' "$tmp/s2.json" | grep -q '^6$' || fail "schema 2 db: slices lost"

# schema 1: io was a table over the Recorder slices, and no __intrinsic_io
"$tracecat" convert -q "$rec" -o "$tmp/r.db" || fail "Recorder convert failed"
cp "$tmp/r.db" "$tmp/s1.db"
sqlite3 "$tmp/s1.db" "CREATE TABLE io1 AS SELECT slice_id, rank, thread, ts, dur, function,
    layer, path, offset, bytes FROM io; DROP VIEW io; DROP TABLE __intrinsic_io;
    ALTER TABLE io1 RENAME TO io; DROP VIEW IF EXISTS queue_length; DROP VIEW IF EXISTS kernel_sequence;
    DROP VIEW IF EXISTS kernel_sequence_root; DROP VIEW kernel_launch;
    DROP INDEX slice_track_ts;
    ALTER TABLE slice DROP COLUMN thread_ts; ALTER TABLE slice DROP COLUMN thread_dur;
    UPDATE meta SET value = 1 WHERE key = 'schema_version'" || fail "cannot make a schema 1 db"
run_cmd 0 "$tracesql" "$tmp/r.db" -c "SELECT count(*), sum(bytes) FROM io"
n_io=$(cat "$tmp/out")
run_cmd 0 "$tracesql" "$tmp/s1.db" -c "SELECT count(*), sum(bytes) FROM io"
[ "$(cat "$tmp/out")" = "$n_io" ] || fail "schema 1 io: $(cat "$tmp/out"), want $n_io"
# a view the old file lacks is added for the session (not to the file)
run_cmd 0 "$tracesql" "$tmp/s1.db" -c "SELECT count(*) FROM kernel_launch" \
    -c "SELECT count(*) FROM slice WHERE thread_ts IS NOT NULL"
[ "$(tr '\n' ' ' <"$tmp/out")" = "0 0 " ] || fail "schema 1 views: $(cat "$tmp/out")"
[ "$(sqlite3 "$tmp/s1.db" "SELECT count(*) FROM sqlite_schema WHERE name = 'kernel_launch'")" = 0 ] ||
    fail "tracesql changed the schema 1 file"
# tracecat's reader does not read schema 1, and says which it reads
run_cmd 1 "$tracecat" cat "$tmp/s1.db"
expect_err "schema_version 1: this tracecat reads 2 to 5 (tracesql may still read it)"
# an old database that lacks a stored table: refused, with the version and what to do
sqlite3 "$tmp/s1.db" "DROP TABLE flow" || fail "cannot drop flow"
run_cmd 1 "$tracesql" "$tmp/s1.db" -c "SELECT 1"
expect_err "s1.db: schema_version 1 lacks flow (this tracecat reads 1 to 5): convert the trace again"

# schema 4: a GT input's args were rows of __intrinsic_args, less each record's bytes (the
# instant's column), which its gt_dropped_args gives back; tracecat and tracesql read them.
# gt_op is dropped: tracesql gives such a file schema 4's definition (through args) back.
schema4() {
    cp "$1" "$2"
    sqlite3 "$2" "INSERT INTO __intrinsic_args SELECT arg_set_id, id, key, int_value,
    string_value, real_value, value_type FROM args WHERE (key <> 'bytes' OR arg_set_id NOT IN
    (SELECT arg_set_id FROM instant)) AND arg_set_id IN (SELECT arg_set_id FROM __intrinsic_arg_pack);
    DROP VIEW args; DROP VIEW gt_dropped_args; DROP VIEW gt_op;
    DROP TABLE __intrinsic_arg_pack; DROP TABLE __intrinsic_arg_key;
    CREATE VIEW args AS SELECT arg_set_id, id, key AS flat_key, key, int_value, string_value,
    real_value, value_type, coalesce(string_value, int_value) AS display_value FROM __intrinsic_args;
    CREATE VIEW gt_dropped_args AS SELECT c.arg_set_id AS arg_set_id, c.id + 1 AS id, 'bytes' AS key,
    i.bytes AS int_value, NULL AS string_value, NULL AS real_value, 'int' AS value_type FROM instant i
    JOIN track t ON t.id = i.track_id JOIN process p ON p.upid = t.upid JOIN trace_input n
    ON n.id = p.input_id JOIN __intrinsic_args c ON c.arg_set_id = i.arg_set_id AND c.key = 'command'
    WHERE i.category = 'gt' AND n.format = 'gt' AND i.bytes IS NOT NULL AND NOT EXISTS
    (SELECT 1 FROM __intrinsic_args b WHERE b.arg_set_id = i.arg_set_id AND b.key = 'bytes');
    UPDATE meta SET value = 4 WHERE key = 'schema_version'" || fail "cannot make a schema 4 db"
}
gt=$src/testdata/gt/gt-server-2workers.log
"$tracecat" convert -q "$gt" -o "$tmp/g.db" || fail "GT convert to .db failed"
schema4 "$tmp/g.db" "$tmp/s4.db"
[ "$(sqlite3 "$tmp/s4.db" "SELECT count(*) FROM gt_dropped_args")" = 1930 ] ||
    fail "schema 4 db: the records' bytes args not left out"
"$tracecat" convert -q "$tmp/g.db" -o "$tmp/g5.json" || fail "schema 5 db to JSON failed"
"$tracecat" convert -q "$tmp/s4.db" -o "$tmp/g4.json" || fail "schema 4 db to JSON failed"
cmp -s "$tmp/g5.json" "$tmp/g4.json" || fail "schema 4 and 5 dbs read back differently"
grep -q '"bytes":720282' "$tmp/g4.json" || fail "schema 4 db: the bytes args not restored"
run_cmd 0 "$tracesql" "$tmp/s4.db" -c "SELECT count(*), sum(seq), count(dur) FROM gt_op"
want4=$(cat "$tmp/out")
run_cmd 0 "$tracesql" "$tmp/g.db" -c "SELECT count(*), sum(seq), count(dur) FROM gt_op"
[ "$(cat "$tmp/out")" = "$want4" ] || fail "gt_op of schema 4 and 5: $want4, $(cat "$tmp/out")"

# gt_op reads schema 5's packed args itself: every row and value (and its type) as schema 4's
# definition gives them, on a schema 4 file, on the schema 5 file, and loaded in memory
rows="SELECT quote(instant_id), quote(lane), quote(seq), quote(event), quote(command),
    quote(bytes), quote(ts), quote(dur), quote(slice_id) FROM gt_op ORDER BY instant_id, slice_id"
run_cmd 0 "$tracesql" "$tmp/s4.db" -c "SELECT sql FROM sqlite_temp_schema WHERE name = 'gt_op'"
grep -q "JOIN args a" "$tmp/out" || fail "schema 4 db: gt_op is not schema 4's: $(cat "$tmp/out")"
old=$(sed 's/^CREATE VIEW gt_op AS/CREATE TEMP VIEW gt_op AS/' "$tmp/out")
for gt in "$src"/testdata/gt/*.log "$src"/testdata/gt/legacy/*.log; do
    case=$(basename "$gt")
    "$tracecat" convert -q "$gt" -o "$tmp/g.db" || fail "GT convert to .db failed"
    schema4 "$tmp/g.db" "$tmp/s4.db"
    run_cmd 0 "$tracesql" "$tmp/g.db" -c "$rows"
    mv "$tmp/out" "$tmp/rows5"
    [ "$(wc -l <"$tmp/rows5")" -gt 10 ] || fail "gt_op: $(wc -l <"$tmp/rows5") rows"
    run_cmd 0 "$tracesql" "$tmp/s4.db" -c "$rows"
    cmp -s "$tmp/rows5" "$tmp/out" || fail "gt_op of schema 5 and of schema 4 differ"
    sqlite3 -readonly "$tmp/g.db" "$old; $rows" >"$tmp/out" || fail "schema 4's gt_op failed"
    sed 's/|/\t/g' "$tmp/out" | cmp -s "$tmp/rows5" - || fail "gt_op and schema 4's differ"
    run_cmd 0 "$tracesql" "$gt" -c "$rows"
    cmp -s "$tmp/rows5" "$tmp/out" || fail "gt_op of the .db and in memory differ"
done
echo "ok"
