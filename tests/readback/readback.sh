#!/bin/bash
# Issue 19 item 5: a .db tracecat wrote reads back into the same trace.
# For samples of every format, tracestat --json and tracecat cat of the
# trace and of its database are equal byte for byte; a database tracecat
# did not write, and one with a bad row, are refused with their message.
# Usage: readback.sh BUILD_DIR SOURCE_DIR PYTHON
set -u
B=$1 S=$2 PY=$3
D=$S/testdata
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

samples=(
    "$D/gt/gt-server-2workers.log" "$D/gt/gt-tiny-visualize_demo-1worker.log"
    "$D/pyspy/01_json_locals_pyspy505.json" "$D/pyspy/10_sglang17941_native_watchdog_interleaved_partial.txt"
    "$D/pyspy/11_sglang_multiprocess_xargs_concat.txt" "$D/pyspy/12_raw_folded_gevent_pyspy179.txt"
    "$D/recorder/iomix-4r-ipc" "$D/recorder/g3-iomix-2r" "$D/recorder/v2-iomix-2r"
    "$D/chrome/catapult/flow.json" "$D/chrome/catapult/instance_counters.json"
    "$D/chrome/hta/call_stack/backward_thread.json"
    "$D/chrome/hta/distributed_info_unavailable/distributed_info_not_found.json.gz"
    "$D/chrome/perfetto/flow_events_json_v2.json"
)
# uint args above INT64_MAX are kept as doubles: 2^63 exactly, and UINT64_MAX as 2^64 (rounded up)
printf '%s\n' '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1,' \
    '"args":{"top":9223372036854775808,"max":18446744073709551615}}]' >"$tmp/uint.json"
samples+=("$tmp/uint.json")
# check N SAMPLE: prints what differs; two samples at a time keep the test quick.
check() {
    local i=$1 x=$2 db=$tmp/$1.db cmd
    if ! "$B/tracecat" convert "$x" -o "$db" 2>"$tmp/$i.err"; then
        echo "FAIL convert $x: $(cat "$tmp/$i.err")"
        return
    fi
    for cmd in "tracestat --json" "tracecat cat"; do
        set -- $cmd
        "$B/$1" $2 "$x" >"$tmp/$i.a" 2>/dev/null
        if ! "$B/$1" $2 "$db" >"$tmp/$i.b" 2>"$tmp/$i.err"; then
            echo "FAIL $cmd $x.db: $(cat "$tmp/$i.err")"
        elif ! cmp -s "$tmp/$i.a" "$tmp/$i.b"; then
            echo "FAIL $cmd $x: the database reads back differently"
            diff "$tmp/$i.a" "$tmp/$i.b" | head -10
        fi
    done
}
i=0
for x in "${samples[@]}"; do
    i=$((i + 1))
    check $i "$x" >"$tmp/$i.log" &
    [ $((i % 2)) = 0 ] && wait
done
wait
for ((n = 1; n <= i; n++)); do
    if [ -s "$tmp/$n.log" ]; then cat "$tmp/$n.log"; fail=1; fi
done

# Refusals: a database of another tool, and one of ours with a bad row.
"$PY" - "$tmp" "$tmp/1.db" <<'PYEOF' || fail=1
import sqlite3, sys, shutil
tmp, ours = sys.argv[1], sys.argv[2]
db = sqlite3.connect(tmp + "/foreign.db")
db.execute("CREATE TABLE t(x)")
db.commit()
db.close()
shutil.copy(ours, tmp + "/bad.db")
db = sqlite3.connect(tmp + "/bad.db")
db.execute("UPDATE slice SET track_id = 99999 WHERE id = 3")
db.commit()
db.close()
PYEOF
expect() {
    local file=$1 want=$2
    if "$B/tracestat" "$file" >/dev/null 2>"$tmp/err"; then
        echo "FAIL $file: read, not refused"; fail=1
    elif ! grep -qF -- "$want" "$tmp/err"; then
        echo "FAIL $file: message $(cat "$tmp/err"), expected $want"; fail=1
    fi
}
expect "$tmp/foreign.db" "$tmp/foreign.db: a SQLite database tracecat did not write (no meta table): read it with tracesql or sqlite3"
expect "$tmp/bad.db" "$tmp/bad.db: table slice row 4: track_id 99999 names no row"
exit $fail
