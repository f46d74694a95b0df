#!/bin/bash
# sql.sh TRACECAT TRACESQL SRCDIR CASE: one command-line test of the SQLite
# writer and tracesql.  Cases check exit status and output content; goldens
# live in tests/sql/golden/ (TR_UPDATE_GOLDEN=1 rewrites them).
set -u
tracecat=$1 tracesql=$2 src=$3 case=$4
. "$(dirname "$0")/../lib.sh"
tiny=$src/testdata/gt/gt-tiny-visualize_demo-1worker.log
gold=$src/tests/sql/golden
db() { "$tracecat" convert -q "$tiny" -o "$tmp/t.db" || fail "convert failed"; }

# Values that exercise every mode's quoting: text with a comma, quotes, a tab, NULL, a real.
modes_sql="SELECT id, name, ts, dur, bytes FROM slice ORDER BY id LIMIT 2;
SELECT 'a,b \"q\"' AS text, NULL AS absent, 2.5 AS real, 'tab'||char(9)||'x' AS tabbed, 'é' AS utf8;"

case $case in
convert)
    db
    [ "$(head -c 15 "$tmp/t.db")" = "SQLite format 3" ] || fail "not a SQLite file"
    run_cmd 0 "$tracesql" "$tmp/t.db" -c 'SELECT count(*) FROM slice' -c 'SELECT count(*) FROM instant'
    [ "$(tr '\n' ' ' <"$tmp/out")" = "43 107 " ] || fail "want 43 slices, 107 instants, got $(cat "$tmp/out")"
    run_cmd 0 "$tracesql" "$tmp/t.db" -c "SELECT value FROM meta WHERE key = 'input'"
    expect_out "gt-tiny-visualize_demo-1worker.log"
    # no temporary file left beside the target
    [ "$(ls -A "$tmp" | grep -c tmp)" = 0 ] || fail "temporary file left: $(ls -A "$tmp")"
    # standard output and compressed targets go through an in-memory database
    "$tracecat" convert -q "$tiny" --to sqlite -o - >"$tmp/piped.db" || fail "convert -o - failed"
    run_cmd 0 "$tracesql" "$tmp/piped.db" -c 'SELECT count(*) FROM slice'; expect_out '^43$'
    "$tracecat" convert -q "$tiny" -o "$tmp/z.db.gz" || fail "convert .db.gz failed"
    gzip -dc "$tmp/z.db.gz" >"$tmp/z.db"
    run_cmd 0 "$tracesql" "$tmp/z.db" -c 'SELECT count(*) FROM instant'; expect_out '^107$'
    # a filter drops events and keeps the ids of the rest
    "$tracecat" convert -q "$tiny" --name 'WORKER_*' -o "$tmp/f.db" || fail "filtered convert failed"
    run_cmd 0 "$tracesql" "$tmp/f.db" -c 'SELECT count(*), count(DISTINCT name) FROM instant' -c 'SELECT count(*) FROM slice'
    [ "$(tr '\n' ' ' <"$tmp/out")" = "42	2 0 " ] || fail "filtered counts: $(cat "$tmp/out")"
    ;;
modes)
    db
    for m in table csv tsv json lines; do
        run_cmd 0 "$tracesql" -m "$m" "$tmp/t.db" -c "$modes_sql"
        same_golden "$gold/modes.$m"
    done
    run_cmd 0 "$tracesql" -m csv --header "$tmp/t.db" -c 'SELECT id, name FROM slice LIMIT 1'
    [ "$(head -n 1 "$tmp/out")" = "id,name" ] || fail "--header: $(cat "$tmp/out")"
    run_cmd 0 "$tracesql" -m table --no-header "$tmp/t.db" -c 'SELECT 1 AS x'
    ! grep -q '| x |' "$tmp/out" || fail "--no-header printed the header"
    run_cmd 0 "$tracesql" -m json "$tmp/t.db" -c 'SELECT 1 WHERE 0'
    [ "$(cat "$tmp/out")" = "[]" ] || fail "empty json: $(cat "$tmp/out")"
    # piped output defaults to TSV without a header
    run_cmd 0 "$tracesql" "$tmp/t.db" 'SELECT id, name FROM slice ORDER BY id LIMIT 1'
    [ "$(cat "$tmp/out")" = "0	RegisterWorker" ] || fail "default mode: $(cat "$tmp/out")"
    ;;
prompt)
    db
    # a script on stdin: statements over several lines, dot-commands, no final ';'
    printf '%s\n' '.mode csv' '.headers on' 'SELECT name,' '  count(*) AS n' 'FROM slice GROUP BY name' \
        'ORDER BY n DESC LIMIT 2;' '.mode tsv' '.headers off' '-- a comment' \
        "SELECT key FROM meta WHERE key = 'tool'" >"$tmp/in"
    run_cmd 0 "$tracesql" "$tmp/t.db"
    same_golden "$gold/prompt.script"
    # the interactive prompt, forced with -i: errors print and the session goes on
    printf '%s\n' '.tables' 'SELECT nope;' 'SELECT count(*)' '  FROM slice;' '.frobnicate' '.schema meta' \
        '.help' '.timer on' 'SELECT 1;' '.quit' 'SELECT 2;' >"$tmp/in"
    run_cmd 0 "$tracesql" -i -m tsv "$tmp/t.db"
    same_golden "$gold/prompt.interactive"
    expect_err "no such column: nope"; expect_err "unknown command '.frobnicate'"; expect_err "Run Time: real"
    ;;
errors)
    db
    rm -f "$tmp/in"
    run_cmd 1 "$tracesql" "$tmp/t.db" -c 'SELECT * FROM nosuchtable'
    expect_err "tracesql: no such table: nosuchtable"
    run_cmd 1 "$tracesql" "$tmp/t.db" -c 'SELECT 1' -c 'SELEC 2' -c 'SELECT 3'
    [ "$(cat "$tmp/out")" = 1 ] || fail "want the first statement only: $(cat "$tmp/out")"
    expect_err 'near "SELEC": syntax error'
    printf 'SELECT 1;\n\nSELECT nope;\nSELECT 3;\n' >"$tmp/in"
    run_cmd 1 "$tracesql" "$tmp/t.db"
    expect_err "tracesql: <stdin>:3: no such column: nope"
    [ "$(cat "$tmp/out")" = 1 ] || fail "a script stops at its first error"
    rm -f "$tmp/in"
    printf '.mode fancy\n' >"$tmp/in"; run_cmd 1 "$tracesql" "$tmp/t.db"; expect_err "usage: .mode"
    rm -f "$tmp/in"
    run_cmd 2 "$tracesql"; expect_err "no INPUT"
    run_cmd 2 "$tracesql" -m fancy "$tmp/t.db"; expect_err "--mode is"
    run_cmd 2 "$tracesql" --bogus "$tmp/t.db"; expect_err "Try 'tracesql --help'"
    run_cmd 2 "$tracesql" "$tmp/t.db" "$tiny"; expect_err "a database must be the only INPUT"
    # on a terminal (script(1) gives one): a table by default, and no database written to it
    if command -v script >/dev/null; then
        script -qec "'$tracesql' '$tmp/t.db' -c 'SELECT 1 AS x'" /dev/null >"$tmp/out" 2>&1 </dev/null
        grep -q '| x |' "$tmp/out" || fail "no table on a terminal: $(cat "$tmp/out")"
        script -qec "'$tracecat' convert '$tiny' --to sqlite -o -" /dev/null >"$tmp/out" 2>&1 </dev/null
        grep -q "refusing to write sqlite output to a terminal" "$tmp/out" || fail "wrote a database to a terminal"
        script -qec "'$tracesql' '$tiny' --save - -c 'SELECT 1'" /dev/null >"$tmp/out" 2>&1 </dev/null
        grep -q "refusing to write a database to a terminal" "$tmp/out" || fail "--save - wrote to a terminal"
    fi
    run_cmd 0 "$tracesql" --help; expect_out "Usage: tracesql"
    run_cmd 0 "$tracesql" --version; expect_out "SQLite 3"
    ;;
bad-db)
    # text named .db, a truncated database, another schema, a newer schema, a missing file
    echo "hello" >"$tmp/text.db"
    run_cmd 1 "$tracesql" "$tmp/text.db" -c 'SELECT 1'; expect_err "text.db: not a SQLite database"
    db
    head -c 3000 "$tmp/t.db" >"$tmp/cut.db"
    run_cmd 1 "$tracesql" "$tmp/cut.db" -c 'SELECT count(*) FROM slice'; expect_err "cut.db: "
    cp "$tmp/t.db" "$tmp/garbled.db"
    printf '\377%.0s' $(seq 1 2000) | dd of="$tmp/garbled.db" bs=1 seek=8192 conv=notrunc status=none
    "$tracesql" "$tmp/garbled.db" -c 'SELECT count(*), sum(length(name)) FROM slice' -c 'PRAGMA integrity_check' \
        >"$tmp/out" 2>"$tmp/err" </dev/null
    st=$?
    [ $st = 0 ] || [ $st = 1 ] || fail "garbled database: exit $st"
    sqlite3 "$tmp/other.db" 'CREATE TABLE slice(x); CREATE TABLE process(y);'
    run_cmd 1 "$tracesql" "$tmp/other.db" -c 'SELECT 1'
    expect_err "other.db: not a tracecat database: no tables or views meta, trace_input, thread"
    expect_err "tracecat convert"
    cp "$tmp/t.db" "$tmp/new.db"
    sqlite3 "$tmp/new.db" "UPDATE meta SET value = 99 WHERE key = 'schema_version'"
    run_cmd 1 "$tracesql" "$tmp/new.db" -c 'SELECT 1'; expect_err "newer tracecat (schema 99"
    run_cmd 1 "$tracesql" "$tmp/missing.db" -c 'SELECT 1'; expect_err "missing.db: No such file"
    run_cmd 1 "$tracesql" "$tmp/missing.log" -c 'SELECT 1'; expect_err "missing.log"
    head -c 5000 /dev/urandom >"$tmp/junk.bin"
    run_cmd 1 "$tracesql" "$tmp/junk.bin" -c 'SELECT 1'; expect_err "unrecognized format"
    ;;
load)
    # any trace loads into memory; --save keeps it, atomically; several inputs merge
    run_cmd 0 "$tracesql" "$tiny" --save "$tmp/saved.db" -c 'SELECT count(*) FROM slice'; expect_out '^43$'
    run_cmd 0 "$tracesql" "$tmp/saved.db" -c 'SELECT count(*) FROM instant'; expect_out '^107$'
    run_cmd 0 "$tracesql" "$tiny" "$src/testdata/gt/gt-server-2workers.log" 'SELECT count(*) FROM trace_input'
    expect_out '^2$'
    run_cmd 1 "$tracesql" "$tiny" --save "$tmp/nodir/x.db" -c 'SELECT 1'; expect_err "nodir/x.db"
    [ ! -s "$tmp/out" ] || fail "ran the query although --save failed"
    mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
    if [ -w "$tmp/ro" ]; then echo "running as root: skipping the read-only directory check"; else
        run_cmd 1 "$tracesql" "$tiny" --save "$tmp/ro/x.db" -c 'SELECT 1'; expect_err "ro/x.db"
        [ -z "$(ls -A "$tmp/ro")" ] || fail "left a file in the read-only directory"
    fi
    cat "$tiny" >"$tmp/in"
    run_cmd 0 "$tracesql" - -c 'SELECT count(*) FROM slice'; expect_out '^43$'
    run_cmd 2 "$tracesql" -; expect_err "needs -c"
    ;;
interrupt)
    # Ctrl-C stops the running statement, not the session
    db
    mkfifo "$tmp/fifo"
    "$tracesql" -i -m tsv "$tmp/t.db" <"$tmp/fifo" >"$tmp/out" 2>"$tmp/err" &
    pid=$!
    exec 3>"$tmp/fifo"
    echo 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c WHERE x = 1 OR x < 0;' >&3
    for _ in $(seq 300); do grep -q '> 1$' "$tmp/out" && break; sleep 0.1; done
    grep -q '> 1$' "$tmp/out" || { kill $pid; fail "the endless query printed no first row"; }
    kill -INT $pid
    echo 'SELECT 42;' >&3
    echo '.quit' >&3
    exec 3>&-
    wait $pid; st=$?
    [ $st = 0 ] || fail "exit $st after Ctrl-C"
    expect_err "interrupted"; expect_out "42"
    ;;
*) fail "no such case" ;;
esac
exit 0
