#!/bin/bash
# hostile.sh BUILD SRCDIR PYTHON CASE: issue 21's hostile inputs (made by
# tests/hostile/make.py into the scratch directory) against the binaries.
#   escapes  control characters in names never reach the terminal raw
#   sql      tracesql on someone else's database: read-only, no VACUUM INTO,
#            ATTACH read-only, --timeout and Ctrl-C stop a view that never ends
#   nothing  NUL bytes, /dev/zero, JSON without traceEvents, an empty directory
#            fail; a real trace with no events says so
#   bombs    decompression stops at --max-ratio and --max-expand, naming the member
#   dup      a tar with a member twice: the last one wins, also in a run folder
#   notread  info says what of a run folder it did not read, and why (issue 19 item 4)
#   fulldisk writers on a full file system (a 200 KiB tmpfs: root only, else
#            skipped with 77) say "No space left on device" and leave nothing
set -u
build=$1 src=$2 python=$3 case=$4
. "$(dirname "$0")/../lib.sh"
tracecat=$build/tracecat tracestat=$build/tracestat tracesql=$build/tracesql
h=$tmp/h
"$python" "$src/tests/hostile/make.py" "$h" || fail "make.py failed"
ctl=$(printf '[\001-\010\013-\037\177]')

case $case in
escapes)
    # tracecat cat (lines): every control byte a space, no NUL
    run_cmd 0 "$tracecat" cat "$h/evil.json"
    ! grep -q "$ctl" "$tmp/out" || fail "control bytes in cat's output"
    [ "$(tr -cd '\000' <"$tmp/out" | wc -c)" = 0 ] || fail "a NUL in cat's output"
    expect_out "	c d	 ]0;pwned  \[2J	"
    # tracecat info, tracestat: shown as \xHH; their JSON outputs escape them
    for check in "$tracecat info|\\\\x1b\\]0;pwned\\\\x07\\\\x1b\\[2J" "$tracestat|\\\\x1b\\]0;pwned\\\\x07" \
        "$tracecat info --json|u001b\\]0;pwned" "$tracestat --json|u001b\\]0;pwned"; do
        run_cmd 0 ${check%%|*} "$h/evil.json"
        ! grep -q "$ctl" "$tmp/out" || fail "control bytes in ${check%%|*}'s output"
        expect_out "${check#*|}"
    done
    run_cmd 0 "$tracestat" --section ops "$h/evil.json"
    expect_out '\\xc2\\x9b2J'
    # tracesql: table and lines show them, TSV makes them spaces
    run_cmd 0 "$tracesql" -m table "$h/evil.json" -c 'SELECT name, category FROM slice ORDER BY ts'
    expect_out '| \\x1b\]0;pwned\\x07\\x1b\[2J | c\\x00d '
    run_cmd 0 "$tracesql" -m lines "$h/evil.json" -c 'SELECT name FROM slice ORDER BY ts LIMIT 1'
    expect_out '^name = \\x1b\]0;pwned'
    run_cmd 0 "$tracesql" -m tsv "$h/evil.json" -c 'SELECT name FROM slice ORDER BY ts LIMIT 1'
    [ "$(cat "$tmp/out")" = " ]0;pwned  [2J" ] || fail "tsv: $(cat -A "$tmp/out")"
    ;;
sql)
    "$tracecat" convert -q "$src/testdata/gt/gt-tiny-visualize_demo-1worker.log" -o "$h/t.db" ||
        fail "convert failed"
    cp "$h/t.db" "$h/other.db"
    "$python" - "$h/t.db" <<'EOF' || fail "cannot add the view"
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("CREATE VIEW forever AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)"
          " SELECT count(*) FROM r")
c.commit()
EOF
    before=$(md5sum <"$h/t.db")
    run_cmd 1 "$tracesql" "$h/t.db" -c 'DELETE FROM main.slice'
    expect_err 'readonly database (read-only: --write allows changes'
    run_cmd 1 "$tracesql" "$h/t.db" -c 'DELETE FROM slice' # Perfetto's slice, a view
    run_cmd 1 "$tracesql" "$h/t.db" -c 'PRAGMA query_only = 0'
    run_cmd 1 "$tracesql" "$h/t.db" -c "VACUUM INTO '$h/copy.db'"
    expect_err "not authorized\|authorization denied"
    [ ! -e "$h/copy.db" ] || fail "VACUUM INTO wrote $h/copy.db"
    run_cmd 1 "$tracesql" "$h/t.db" -c "ATTACH '$h/new.db' AS n"
    [ ! -e "$h/new.db" ] || fail "ATTACH created $h/new.db"
    run_cmd 1 "$tracesql" "$h/t.db" -c "ATTACH '$h/other.db' AS o" -c 'DELETE FROM o.slice'
    run_cmd 0 "$tracesql" "$h/t.db" -c "ATTACH '$h/other.db' AS o" -c 'SELECT count(*) FROM o.slice'
    expect_out '^43$'
    [ "$(md5sum <"$h/t.db")" = "$before" ] || fail "the database changed"
    [ "$(md5sum <"$h/other.db")" = "$(md5sum <"$h/other.db")" ] || fail "the attached database changed"
    # a loaded trace is read-only too
    run_cmd 1 "$tracesql" "$src/testdata/gt/gt-tiny-visualize_demo-1worker.log" -c 'DELETE FROM slice'
    # --write allows changes
    run_cmd 0 "$tracesql" --write "$h/other.db" -c 'DELETE FROM slice WHERE id > 2' -c 'SELECT count(*) FROM slice'
    expect_out '^3$'
    # a view that never ends: --timeout, and Ctrl-C
    start=$(date +%s)
    run_cmd 1 "$tracesql" --timeout 0.5 "$h/t.db" -c 'SELECT * FROM forever'
    expect_err 'interrupted: the statement ran longer than --timeout'
    [ $(($(date +%s) - start)) -lt 10 ] || fail "--timeout 0.5 took $(($(date +%s) - start)) s"
    run_cmd 2 "$tracesql" --timeout 0 "$h/t.db" -c 'SELECT 1'
    "$tracesql" "$h/t.db" -c 'SELECT * FROM forever' >"$tmp/out" 2>"$tmp/err" </dev/null &
    pid=$!
    # Interrupt it inside the statement, not while it loads (which dies of the
    # signal, exit 130): wait for a second of its CPU time, which loading never
    # takes, rather than a second of wall time, which a loaded machine can eat.
    cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0; }
    for _ in $(seq 600); do
        [ "$(cpu_ticks)" -ge "$(getconf CLK_TCK)" ] && break
        sleep 0.1
    done
    kill -INT $pid
    wait $pid
    [ $? = 1 ] || fail "Ctrl-C: want exit 1"
    expect_err 'tracesql: interrupted$'
    ;;
nothing)
    run_cmd 1 "$tracecat" info "$h/zeros.bin"; expect_err "zeros.bin: an archive with no files (or only NUL bytes)"
    run_cmd 1 "$tracecat" info --from gt /dev/zero; expect_err "/dev/zero: an archive with no files"
    head -c 1048576 /dev/zero | zstd -q >"$h/zeros.zst"
    run_cmd 1 "$tracecat" info "$h/zeros.zst"; expect_err "zeros.zst: an archive with no files"
    run_cmd 1 "$tracestat" "$h/nokeys.json"; expect_err "nokeys.json: byte 9: not a Chrome trace: a JSON object without traceEvents"
    mkdir "$h/empty"
    run_cmd 1 "$tracecat" info "$h/empty"; expect_err "empty: an empty directory: no file inside is a trace"
    mkdir "$h/texts" && echo hello >"$h/texts/a.txt"
    run_cmd 1 "$tracecat" info "$h/texts"; expect_err "texts: no file inside is a trace tracecat knows"
    # a real trace with no events is read and said to be empty
    run_cmd 0 "$tracecat" info "$h/empty.json"; expect_err "warning: .*empty.json: a trace with no events"
    run_cmd 1 "$tracecat" info --strict "$h/empty.json"; expect_err "empty.json: a trace with no events"
    ;;
bombs)
    run_cmd 1 "$tracecat" info "$h/bomb.zst"
    expect_err "bomb.zst: byte [0-9]*: decompressed 64 MiB from .* more than 1000 times as much"
    run_cmd 1 "$tracestat" "$h/bomb.tar"
    expect_err "tracestat: .*bomb.tar:rec/0.ts: byte [0-9]*: decompressed 64 MiB from .*--max-ratio"
    run_cmd 1 "$tracesql" "$h/bomb.gz" -c 'SELECT 1' --max-expand 32M
    expect_err "bomb.gz: byte [0-9]*: decompressed past 32 MiB, .*--max-expand"
    run_cmd 2 "$tracecat" info --max-expand 12X "$h/bomb.gz"; expect_err "bad --max-expand '12X'"
    run_cmd 2 "$tracecat" info --max-ratio 0 "$h/bomb.gz"; expect_err "bad --max-ratio '0'"
    # raised, the bomb reads on until the next bound
    run_cmd 1 "$tracecat" info --max-ratio 100000 --max-expand 200M "$h/bomb.zst"
    expect_err "decompressed past 200 MiB"
    for b in tracecat tracestat tracesql traceviz; do
        "$build/$b" --help | grep -q -- "--max-expand SIZE" || fail "$b --help lacks --max-expand"
    done
    ;;
dup)
    run_cmd 0 "$tracecat" cat "$h/dup.tar"
    [ "$(cut -f7 "$tmp/out")" = "last" ] || fail "want the last member only: $(cat "$tmp/out")"
    run_cmd 0 "$tracecat" info "$h/dup.tar"
    expect_out "input 0: .*dup.tar:a.json"
    ! grep -q "input 1" "$tmp/out" || fail "a replaced member was read: $(grep input "$tmp/out")"
    # the same inside a run folder: the tar's last a.json only, beside a GT log
    mkdir "$tmp/run" && cp "$h/dup.tar" "$src/testdata/gt/gt-tiny-visualize_demo-1worker.log" "$tmp/run/"
    run_cmd 0 "$tracecat" info "$tmp/run"
    [ "$(grep -c '^input ' "$tmp/out")" = 2 ] || fail "want 2 inputs: $(grep '^input ' "$tmp/out")"
    expect_out "^input 0: $tmp/run/dup.tar:a.json\$"
    run_cmd 0 "$tracecat" cat "$tmp/run"
    [ "$(grep -c "	last	" "$tmp/out")" = 1 ] || fail "want the last a.json's one event once"
    ;;
notread)
    # Issue 19 item 4: a run folder is read once, and info says what it did not read and why
    mkdir -p "$tmp/run/job"
    cp -r "$src/testdata/recorder/iomix-2r" "$tmp/run/job/"
    cp "$h/dup.tar" "$src/testdata/gt/gt-tiny-visualize_demo-1worker.log" "$tmp/run/"
    echo "not a trace" >"$tmp/run/notes.txt"
    run_cmd 0 "$tracecat" info --tz UTC "$tmp/run/" "$tmp/run"
    [ "$(grep -c '^input ' "$tmp/out")" = 3 ] || fail "want 3 inputs: $(grep '^input ' "$tmp/out")"
    expect_out "^not read: 16 files\$"
    expect_out "^  $tmp/run/dup.tar:a.json: replaced by a later member of the same name (tar's rule)\$"
    expect_out "^  $tmp/run/job/: 9 files (iomix-2r/0.cfg, iomix-2r/0.cst, iomix-2r/0.ts, ...): not read again: the directory or archive is read whole as one input\$"
    [ "$(grep -c "^  $tmp/run/job/: " "$tmp/out")" = 2 ] || fail "want one line per reason for run/job"
    expect_out "^  $tmp/run/job/: 4 files (iomix-2r/_chrome/timeline_0.json, iomix-2r/_chrome/timeline_1.json, iomix-2r/_text/0.txt, ...): Recorder's own output (recorder2timeline, recorder2text): the trace is read from its directory\$"
    expect_out "^  $tmp/run/notes.txt: not a trace tracecat knows\$"
    expect_out "^  $tmp/run: named before as $tmp/run/: read once\$"
    run_cmd 0 "$tracecat" info --tz UTC --json "$tmp/run"
    "$python" -c '
import json, sys, collections
d = json.load(open(sys.argv[1]))
got = collections.Counter(s["why"] for s in d["not_read"])
want = {"replaced": 1, "inside": 9, "recorder_output": 4, "unknown": 1}
assert got == want, got
' "$tmp/out" || fail "info --json: not_read is not what was skipped"
    # nothing skipped, nothing said
    run_cmd 0 "$tracecat" info "$src/testdata/gt/gt-tiny-visualize_demo-1worker.log"
    ! grep -q "not read" "$tmp/out" || fail "a single file says something was not read"
    ;;
fulldisk)
    mkdir "$tmp/full"
    mount -t tmpfs -o size=200k tmpfs "$tmp/full" 2>/dev/null || { echo "skipped: cannot mount a tmpfs"; exit 77; }
    trap 'umount "$tmp/full"; rm -rf "$tmp"' EXIT
    log=$src/testdata/gt/gt-mlp-4workers-autoshard.log
    for out in a.db a.json a.txt; do
        run_cmd 1 "$tracecat" convert -q "$log" -o "$tmp/full/$out"
        expect_err "full/$out: .*No space left on device"
    done
    run_cmd 1 "$tracesql" "$log" --save "$tmp/full/s.db" -c 'SELECT 1'
    expect_err "full/s.db: cannot write: No space left on device"
    [ -z "$(ls -A "$tmp/full")" ] || fail "left behind: $(ls -A "$tmp/full")"
    ;;
*)
    fail "unknown case $case"
    ;;
esac
