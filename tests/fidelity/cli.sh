#!/bin/bash
# cli.sh BINDIR ROOT CASE: numbers a user can trust (issue 19), from the command line.
set -u
bin=$1 root=$2 case=$3
. "$(dirname "$0")/../lib.sh"
cd "$root"
run() { run_cmd "$1" "$bin/tracecat" "${@:2}"; } # run WANT_EXIT ARGS...

case $case in
frameless)
    # Item 12: a thread with no frames is a sample without a stack; the flame
    # graph, the hot functions and the folded output count the same samples.
    for d in 02_uwsgi_thread_no_frames_pyspy221 05_deepspeed6524_unnamed_threads_truncated; do
        f=testdata/pyspy/$d.txt
        run 0 convert "$f" --to folded -o -
        folded=$(awk '{s += $NF} END {print s + 0}' "$tmp/out")
        run_cmd 0 "$bin/tracestat" --section hot "$f"
        hot=$(sed -n 's/.*hot functions (\([0-9]*\) samples.*/\1/p' "$tmp/out")
        [ "$hot" = "$folded" ] || fail "$d: hot functions count $hot samples, folded $folded"
        if [ "$folded" -gt 0 ]; then
            run_cmd 0 "$bin/traceviz" --kind flame -o "$tmp/f.svg" "$f"
            flame=$(grep -o '[0-9]* samples, [0-9]* thread' "$tmp/f.svg" | head -n 1 | cut -d' ' -f1)
            [ "$flame" = "$folded" ] || fail "$d: the flame graph counts $flame samples, folded $folded"
            grep -q "2 without frames left out" "$tmp/f.svg" || fail "$d: the flame graph does not say what it left out"
        fi
    done
    run_cmd 0 "$bin/tracestat" --section hot testdata/pyspy/05_deepspeed6524_unnamed_threads_truncated.txt
    expect_out "hot functions (3 samples, all threads; 2 without frames left out)"
    ;;
flows)
    # Item 6: flow ends without a start are warned at their byte offset and counted.
    f=testdata/chrome/hta/critical_path/cuda_event_sync/event_sync_trace.json.gz
    run 0 info -v -v "$f"
    expect_err 'event_sync_trace.json.gz: byte 11356: flow end of "ac2g" without a start'
    [ "$(grep -c 'flow end of "ac2g" without a start' "$tmp/err")" = 7 ] || fail "want 7 orphan flow ends warned"
    expect_out "skipped: 0 non-record lines, 7 bad records"
    run 0 info --json "$f"
    expect_out '"lines_skipped":0,"warnings":7'
    ;;
kineto-lanes)
    # Item 8: Kineto's pid/tid "" lane says what it is; a GPU process says its device.
    run 0 info testdata/chrome/hta/critical_path/cuda_event_sync/event_sync_trace.json.gz
    expect_out '^  trace-wide (pid "") / trace-wide (tid "") (thread) rank 0: instants 1$'
    expect_out '^  python3.10 (GPU 0) / stream 7  (gpu) rank 0: slices 6$'
    expect_out '^  python3.10 (CPU) / thread 948300 (python3.10) (thread) rank 0: slices 23$'
    if grep -q '^  "" ' "$tmp/out"; then fail 'a lane still reads ""'; fi
    ;;
far-apart)
    # Item 13: inputs whose first events are more than a day apart are warned
    # with the gap and the --align that puts them side by side, which works.
    gt=testdata/gt/gt-tiny-visualize_demo-1worker.log
    k=testdata/chrome/hta/critical_path/cuda_event_sync/event_sync_trace.json.gz
    run 0 info --tz UTC "$gt" "$k"
    expect_err "warning: $gt: its first event is 1018.0 days after $k's: inputs that ran together are misplaced (--align $gt=-0.107000000s puts them side by side)"
    expect_out '^span: 0ns .. 87952771.731s'
    run 0 info --tz UTC --align "$gt=-0.107000000s" "$gt" "$k"
    expect_out '^span: 0ns .. 133.0ms (133.0ms)$'
    if grep -q "days after" "$tmp/err"; then fail "warned after --align"; fi
    # inputs of one day: no warning
    run 0 info --tz UTC "$gt" testdata/recorder/g3-iomix-2r
    if grep -q "days after" "$tmp/err"; then fail "warned of inputs 12 minutes apart"; fi
    ;;
own-outputs)
    # Item 5: a Parquet directory tracecat wrote is refused by name, with the
    # tool that reads it (it was an empty trace, exit 0); a database it wrote
    # reads back (it was "unrecognized format"; tests/readback/readback.sh
    # compares the outputs).
    gt=testdata/gt/gt-tiny-visualize_demo-1worker.log
    run 0 convert "$gt" -o "$tmp/pq/" --to parquet
    run 0 convert "$gt" -o "$tmp/run.db"
    for p in "$tmp/pq" "$tmp/pq/"; do
        run 1 info "$p"
        expect_err "a Parquet directory tracecat wrote: query it with an engine that reads Parquet"
    done
    # one file of it too (it was "unrecognized format (try --from)")
    run 1 info "$(ls "$tmp"/pq/slice/*.parquet | head -n 1)"
    expect_err "a Parquet file (one table, as tracecat convert --to parquet writes them): query it with an engine that reads Parquet (duckdb"
    run 0 info "$tmp/run.db"
    expect_out "slices 43,"
    run_cmd 0 "$bin/tracestat" "$tmp/run.db"
    run_cmd 0 "$bin/traceviz" "$tmp/run.db" -o "$tmp/x.png"
    run_cmd 0 "$bin/tracesql" "$tmp/run.db" "select count(*) from slice"
    expect_out '^43$'
    ;;
run-folder)
    # Item 4: a run folder reads each trace once, under one name, however it is
    # written: "run", "run/", "run//", "run/." (the Recorder directory whole,
    # its recorder.mt and Recorder's own _chrome/_text files not again).
    mkdir -p "$tmp/run/job"
    cp -r testdata/recorder/iomix-2r "$tmp/run/job/"
    cp testdata/gt/gt-tiny-visualize_demo-1worker.log "$tmp/run/"
    for p in "$tmp/run" "$tmp/run/" "$tmp/run//" "$tmp/run/." "$tmp/run/./"; do
        run 0 info --tz UTC "$p"
        expect_out "^input 0: $tmp/run/job\$"
        expect_out "^input 1: $tmp/run/gt-tiny-visualize_demo-1worker.log\$"
        [ "$(grep -c '^input ' "$tmp/out")" = 2 ] || fail "$p: want 2 inputs"
        [ "$(grep -c '^  rank 0 / ' "$tmp/out")" = 1 ] || fail "$p: rank 0 read more than once"
    done
    run 0 info "$tmp/run//job/"
    expect_out "^input 0: $tmp/run/job\$"
    # tracecat's own outputs written into the folder are not read with it (the Parquet
    # directory failed the whole run, the database was every trace a second time), nor is
    # another tool's database (it failed the run); info says why, and names them alone read
    run 0 convert "$tmp/run" -o "$tmp/run/pq/" --to parquet
    run 0 convert "$tmp/run" -o "$tmp/run/all.db"
    python3 -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("CREATE TABLE x(a)")' \
        "$tmp/run/other.db" || fail "cannot make a foreign database (python3)"
    run 0 info --tz UTC "$tmp/run/"
    [ "$(grep -c '^input ' "$tmp/out")" = 2 ] || fail "want 2 inputs beside the outputs"
    [ "$(grep -c '^  rank 0 / ' "$tmp/out")" = 1 ] || fail "rank 0 read more than once beside the outputs"
    why="a SQLite database or Parquet data: not read in a run folder (tracecat's own would count its traces twice); name a database itself to read it"
    expect_out "^  2 files ($tmp/run/all.db, $tmp/run/other.db): $why\$"
    expect_out "^  $tmp/run/pq/: [0-9]* files (_tracecat.json, .*): $why\$"
    run 0 info --json "$tmp/run/"
    [ "$(grep -o '"why":"tracecat_output"' "$tmp/out" | wc -l)" -ge 12 ] || fail "info --json: want the outputs as tracecat_output"
    run 0 info "$tmp/run/all.db"
    expect_out "^  rank 0 / "
    # an archive in a run folder is taken as the folder is: a Recorder trace's tarball whole
    # (it was 6 files no reader knows: the trace was not read), an archive of a run its
    # claimed directories
    mkdir "$tmp/run2"
    cp testdata/recorder/g3-iomix-2r.tgz testdata/gt/gt-tiny-visualize_demo-1worker.log "$tmp/run2/"
    tar -C testdata/recorder -cf "$tmp/run2/job.tar" iomix-2r
    tar -C "$tmp/run" -czf "$tmp/run2/run.tgz" job
    run 0 info --tz UTC "$tmp/run2"
    expect_out "^input 0: $tmp/run2/g3-iomix-2r.tgz\$"
    expect_out "^input 2: $tmp/run2/job.tar\$"
    expect_out "^input 3: $tmp/run2/run.tgz:job\$"
    [ "$(grep -c '^input ' "$tmp/out")" = 4 ] || fail "run2: want 4 inputs"
    [ "$(grep -c '^  rank 0 / ' "$tmp/out")" = 3 ] || fail "run2: want rank 0 of each Recorder trace once"
    expect_out "^  $tmp/run2/g3-iomix-2r.tgz: 6 files (g3-iomix-2r/ug.mt, .*): not read again: the directory or archive is read whole as one input\$"
    expect_out "^  $tmp/run2/run.tgz:job/: 4 files (iomix-2r/_.*): Recorder.s own output"
    mkdir "$tmp/outs" && mv "$tmp/run/pq" "$tmp/run/all.db" "$tmp/outs/"
    run 1 info "$tmp/outs"
    expect_err "outs: no trace inside, only what tracecat writes (a SQLite database, a Parquet directory): name a database itself to read it"
    ;;
fuchsia)
    # Item 7: Fuchsia's systemTraceEvents object (trace2json) names processes
    # and threads.  Hand-made in the shape of Catapult's fuchsia_importer: no
    # public trace2json output was found; the object comes first here, the
    # second file has it after the events.
    sys='"systemTraceEvents":{"type":"fuchsia","events":[{"ph":"p","pid":18670,"name":"scenic.cmx"},
{"ph":"t","pid":18670,"tid":18685,"name":"input-thread"},{"ph":"t","pid":18670,"tid":18690,"name":"render-thread"},
{"ph":"k","ts":1001.0,"cpu":1,"out":{"pid":18670,"tid":18685,"state":3,"prio":20},"in":{"pid":0,"tid":6444931392,"prio":0}}]}'
    evs='"traceEvents":[{"cat":"input","name":"DispatchEvent","ts":1000.5,"pid":18670,"tid":18685,"ph":"X","dur":20.25},
{"cat":"gfx","name":"Present","ts":1030,"pid":18670,"tid":18690,"ph":"B"},{"cat":"gfx","name":"Present","ts":1050,"pid":18670,"tid":18690,"ph":"E"}]'
    echo "{$sys,$evs}" >"$tmp/before.json"
    echo "{$evs,$sys}" >"$tmp/after.json"
    for f in before after; do
        run 0 info "$tmp/$f.json"
        expect_out '^  scenic.cmx / input-thread (thread): slices 1$'
        expect_out '^  scenic.cmx / render-thread (thread): slices 1$'
        expect_err "$f.json: byte [0-9]*: systemTraceEvents: 1 records other than process and thread names (context switches) not read"
    done
    ;;
*)
    fail "unknown case"
    ;;
esac
