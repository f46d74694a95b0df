#!/bin/bash
# perfetto.sh TRACESQL SRCDIR: Perfetto trace processor queries that carry over
# (bin/tracesql/perfetto.c), with exact answers.  The flow and nesting answers
# are on Perfetto's own test trace for connected flows
# (testdata/chrome/perfetto/connected_flow_data.json): slices 0-10, slice 5
# nested in 4 and 8 in 7, flows 0:1->2 1:0->3 2:0->4 3:5->6 4:6->7 5:7->10
# 6:8->9 as the Chrome reader binds them, as Perfetto's importer does (its own
# answers for this trace: tests/sql/perfetto_json.py).
set -u
tracesql=$1 src=$2 case=perfetto
. "$(dirname "$0")/../lib.sh"
flows=$src/testdata/chrome/perfetto/connected_flow_data.json
kineto=$src/testdata/chrome/hta/trace_filter/sampled_rank-1.json.gz
q() { # q EXPECTED TRACE SQL: the one-column answer, rows joined by spaces
    run_cmd 0 "$tracesql" "$2" --mode tsv -c "$3"
    local got
    got=$(tr '\n' ' ' <"$tmp/out" | sed 's/ $//')
    [ "$got" = "$1" ] || fail "$3: got '$got', want '$1'"
}
q "4" "$flows" "SELECT id FROM ancestor_slice(5)"
q "7" "$flows" "SELECT id FROM ancestor_slice(8)"
q "" "$flows" "SELECT id FROM ancestor_slice(4)"
q "5" "$flows" "SELECT id FROM descendant_slice(4)"
q "8" "$flows" "SELECT id FROM descendant_slice(7)"
q "Flow2_Slice0 1 4" "$flows" "SELECT name || ' ' || depth || ' ' || parent_id FROM descendant_slice(4)"
q "0" "$flows" "SELECT id FROM directly_connected_flow(2)"
# back from 3 to 0, and not on from 0 to 4 (Perfetto's rule: no branching)
q "1" "$flows" "SELECT id FROM directly_connected_flow(3)"
q "3 4 5" "$flows" "SELECT id FROM directly_connected_flow(6)"
q "5 6" "$flows" "SELECT id FROM following_flow(7)"
q "2 3 4 6" "$flows" "SELECT id FROM preceding_flow(9)"
q "1 2 3 4 5 6" "$flows" "SELECT id FROM following_flow(0)"
q "400000 3733000" "$flows" "SELECT start_ts || ' ' || end_ts FROM trace_bounds"
q "400000 3733000" "$flows" "SELECT trace_start() || ' ' || trace_end()"
q "tracecat" "$flows" "SELECT str_value FROM metadata WHERE name = 'tool'"
# Perfetto's JSON importer names args "args.K": both spellings find K
q "70338 70338" "$kineto" \
    "SELECT EXTRACT_ARG(arg_set_id, 'args.External id') || ' ' || EXTRACT_ARG(arg_set_id, 'External id') FROM slice WHERE id = 1"
q "" "$kineto" "SELECT EXTRACT_ARG(arg_set_id, 'args.no such key') FROM slice WHERE id = 1"
# Perfetto's JSON importer: instants are dur-0 slices after the slices, args are "args.K"
types=$src/testdata/chrome/perfetto/diff_tests/json_all_slice_types.json
q "InstantGlobal:0 InstantProcess:0 InstantThread:0 InstantDefaultScope:0 InstantR:0 Instanti:0" "$types" \
    "SELECT name || ':' || dur FROM slice WHERE id >= 2 ORDER BY id"
q "2 6" "$types" "SELECT (SELECT count(*) FROM main.slice) || ' ' || (SELECT count(*) FROM instant)"
q "args.scope_val=process" "$types" \
    "SELECT a.key || '=' || a.display_value FROM slice s JOIN args a USING (arg_set_id) WHERE s.name = 'InstantProcess'"
q "scope_val" "$types" "SELECT key FROM main.args WHERE string_value = 'process'"
q "1" "$kineto" "SELECT count(*) > 0 FROM args WHERE key = 'args.External id'"
# a GT log is no JSON: its args and instants stay as they are
gt=$src/testdata/gt/gt-tiny-visualize_demo-1worker.log
q "0 0" "$gt" "SELECT ((SELECT count(*) FROM slice) - (SELECT count(*) FROM main.slice)) || ' ' || (SELECT count(*) FROM args WHERE key GLOB 'args.*')"
# stack_id: the same path of names is the same stack; _by_stack finds every slice of one
# (Perfetto's test_ancestor_slice_by_stack shape: two stacks of depth 0-2 on one thread)
cat >"$tmp/stacks.json" <<'EOF'
[{"ph":"X","pid":1,"tid":1,"ts":1,"dur":5,"name":"d0"},{"ph":"X","pid":1,"tid":1,"ts":2,"dur":3,"name":"d1"},
 {"ph":"X","pid":1,"tid":1,"ts":3,"dur":1,"name":"d2"},{"ph":"X","pid":1,"tid":1,"ts":8,"dur":5,"name":"d0"},
 {"ph":"X","pid":1,"tid":1,"ts":9,"dur":3,"name":"d1"},{"ph":"X","pid":1,"tid":1,"ts":10,"dur":1,"name":"d2"},
 {"ph":"X","pid":1,"tid":2,"ts":9,"dur":3,"name":"d1"}]
EOF
q "1 1 1 1" "$tmp/stacks.json" \
    "SELECT count(DISTINCT stack_id) FROM slice GROUP BY name, depth ORDER BY name, depth"
q "4 0" "$tmp/stacks.json" \
    "SELECT (SELECT count(*) FROM slice a JOIN slice b ON b.parent_id = a.id WHERE b.parent_stack_id = a.stack_id) || ' ' || (SELECT count(*) FROM slice WHERE parent_id IS NULL AND parent_stack_id <> 0)"
q "1000:d0 2000:d1 3000:d2 8000:d0 9000:d1 10000:d2" "$tmp/stacks.json" \
    "SELECT ts || ':' || name FROM ancestor_slice_by_stack((SELECT stack_id FROM slice_with_stack_id WHERE name = 'd2' LIMIT 1))"
q "1000:d0 2000:d1 3000:d2 8000:d0 9000:d1 10000:d2" "$tmp/stacks.json" \
    "SELECT ts || ':' || name FROM descendant_slice_by_stack((SELECT stack_id FROM slice_with_stack_id WHERE name = 'd0' LIMIT 1))"
q "1:1 2:0" "$tmp/stacks.json" "SELECT tid || ':' || is_main_thread FROM thread ORDER BY tid"
# Perfetto's importer nests a thread's instants in the slices they fall in (a slice ending at the
# instant's time no longer holds it), and leaves a B never ended open (dur -1) with no arg saying so
cat >"$tmp/nest.json" <<'EOF'
[{"ph":"B","pid":1,"tid":1,"ts":0,"name":"b"},{"ph":"i","pid":1,"tid":1,"ts":5,"name":"in_b","s":"t"},
 {"ph":"E","pid":1,"tid":1,"ts":10},{"ph":"i","pid":1,"tid":1,"ts":10,"name":"at_end","s":"t"},
 {"ph":"X","pid":1,"tid":1,"ts":20,"dur":10,"name":"x"},{"ph":"X","pid":1,"tid":1,"ts":22,"dur":6,"name":"y"},
 {"ph":"i","pid":1,"tid":1,"ts":25,"name":"in_y","s":"t"},{"ph":"i","pid":1,"tid":1,"ts":29,"name":"in_x","s":"t"},
 {"ph":"i","pid":1,"tid":1,"ts":26,"name":"global","s":"g"},{"ph":"B","pid":1,"tid":1,"ts":40,"name":"open"},
 {"ph":"i","pid":1,"tid":1,"ts":45,"name":"in_open","s":"t"}]
EOF
q "b:10000:0: x:10000:0: y:6000:1:x open:-1:0: in_b:0:1:b at_end:0:0: in_y:0:2:y global:0:0: in_x:0:1:x in_open:0:1:open" \
    "$tmp/nest.json" "SELECT s.name || ':' || s.dur || ':' || s.depth || ':' || coalesce(p.name, '')
        FROM slice s LEFT JOIN slice p ON p.id = s.parent_id ORDER BY s.id"
q "0 1" "$tmp/nest.json" "SELECT (SELECT count(*) FROM args WHERE key = 'unfinished') || ' ' ||
    (SELECT count(*) FROM main.args WHERE key = 'unfinished')"
q "1" "$tmp/nest.json" "SELECT count(*) FROM slice s JOIN slice p ON p.id = s.parent_id
    WHERE s.name = 'in_y' AND s.parent_stack_id = p.stack_id AND s.stack_id <> p.stack_id"
# thread_state, sched and cpu come from Perfetto's T events alone (json_thread_state*: perfetto_json.py)
q "0 0 0" "$gt" "SELECT (SELECT count(*) FROM thread_state) || ' ' || (SELECT count(*) FROM sched) || ' ' ||
    (SELECT count(*) FROM cpu)"
q "1" "$flows" "SELECT count(*) FROM process WHERE start_ts IS NULL"
q "4" "$flows" "INCLUDE PERFETTO MODULE slices.with_context; SELECT count(*) FROM thread_slice WHERE depth = 0 AND name GLOB 'Flow2*'"
run_cmd 1 "$tracesql" "$flows" -c "INCLUDE PERFETTO MODULE android.startup.startups"
expect_err "INCLUDE PERFETTO MODULE android.startup.startups: not here"
# --write keeps the file's own tables, which it may change
run_cmd 0 "$tracesql" "$types" --save "$tmp/t.db" -c "SELECT 1"
run_cmd 0 "$tracesql" --write "$tmp/t.db" -c "DELETE FROM slice WHERE id = 0" -c "SELECT count(*) FROM slice"
expect_out "^1$"
run_cmd 1 "$tracesql" "$flows" -c "SELECT * FROM ancestor_slice"
expect_err "ancestor_slice needs its argument"
exit 0
