#!/bin/bash
# perfetto.sh TRACESQL SRCDIR: Perfetto trace processor queries that carry over
# (bin/tracesql/perfetto.c), with exact answers.  The flow and nesting answers
# are on Perfetto's own test trace for connected flows
# (testdata/chrome/perfetto/connected_flow_data.json): slices 0-10, slice 5
# nested in 4 and 8 in 7, flows 0:1->2 1:0->3 2:6->6 3:7->7 4:8->9.
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
q "3 4" "$flows" "SELECT id FROM following_flow(7)"
q "3 4" "$flows" "SELECT id FROM preceding_flow(9)"
q "1" "$flows" "SELECT id FROM following_flow(0)"
q "400000 3733000" "$flows" "SELECT start_ts || ' ' || end_ts FROM trace_bounds"
q "400000 3733000" "$flows" "SELECT trace_start() || ' ' || trace_end()"
q "tracecat" "$flows" "SELECT str_value FROM metadata WHERE name = 'tool'"
# Perfetto's JSON importer names args "args.K": both spellings find K
q "70338 70338" "$kineto" \
    "SELECT EXTRACT_ARG(arg_set_id, 'args.External id') || ' ' || EXTRACT_ARG(arg_set_id, 'External id') FROM slice WHERE id = 1"
q "" "$kineto" "SELECT EXTRACT_ARG(arg_set_id, 'args.no such key') FROM slice WHERE id = 1"
run_cmd 1 "$tracesql" "$flows" -c "SELECT * FROM ancestor_slice"
expect_err "ancestor_slice needs its argument"
exit 0
