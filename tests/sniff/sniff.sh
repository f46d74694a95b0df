#!/bin/bash
# tracesniff tests against real processes.
#   sniff.sh TRACESNIFF TRACECAT NATIVE_TARGET SRCDIR CASE
# Exit 0 pass, 1 fail, 77 skipped (the reason is printed): a Python version
# that is not installed, or ptrace / process_vm_readv not permitted here.
# Every wait is bounded and every started process is killed on exit.
set -u
SNIFF=$1
TRACECAT=$2
NATIVE=$3
SRC=$4
CASE=$5
TARGET=$SRC/tests/sniff/target.py
CHECK=$SRC/tests/sniff/check_dumps.py
TMP=$(mktemp -d)
PIDS=()

cleanup() {
    # Started processes, and any of theirs still running (they carry $TMP in their arguments).
    for p in "${PIDS[@]}" $(pgrep -f "$TMP" 2>/dev/null); do kill -9 "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT

fail() {
    echo "FAIL: $*"
    exit 1
}
skip() {
    echo "SKIP: $*"
    exit 77
}

CHECKPY=$(command -v python3) || skip "no python3 to run the checker"

# The interpreter of a case: debian311 is the distribution's, X.Y a pyenv one.
find_python() {
    case $1 in
    debian311) [ -x /usr/bin/python3.11 ] && echo /usr/bin/python3.11 ;;
    *)
        local root
        root=$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")
        ls -d "$root"/versions/"$1".*/bin/python3 2>/dev/null | sort -V | tail -1
        ;;
    esac
}

# Waits (bounded) until FILE contains TEXT.
wait_for_text() {
    for _ in $(seq 1 200); do
        grep -q "$2" "$1" 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}

# Starts PROGRAM ARGS in the background once it printed "ready"; sets TPID.
start_target() {
    "$@" >"$TMP/target.out" 2>&1 &
    TPID=$!
    PIDS+=("$TPID")
    wait_for_text "$TMP/target.out" ready || fail "target did not start: $(cat "$TMP/target.out")"
}

# Waits (bounded) for background job PID to end; returns its status, or 124.
wait_pid() {
    for _ in $(seq 1 600); do
        if ! kill -0 "$1" 2>/dev/null; then
            wait "$1"
            return $?
        fi
        sleep 0.05
    done
    return 124
}

# Skips the case when this machine does not let us read another process.
need_access() {
    local out
    out=$("$SNIFF" "$@" -p "$TPID" --once 2>&1 >/dev/null)
    case $out in
    *"permission denied"*) skip "tracing is not permitted here ($out)" ;;
    esac
}

py_case() { # VERSION-KEY EXPECTED-VERSION-PREFIX [--native]
    local py
    py=$(find_python "$1")
    [ -n "$py" ] || skip "Python $1 is not installed here (looked for $([ "$1" = debian311 ] && echo /usr/bin/python3.11 || echo "\$(pyenv root)/versions/$1.*/bin/python3"))"
    local ver
    ver=$("$py" -c 'import platform; print(platform.python_version())')
    echo "python: $py ($ver)"
    start_target "$py" "$TARGET" 60 "$TMP"
    need_access ${3:-}
    "$SNIFF" -p "$TPID" -i 0.1 -d 3 ${3:-} -o "$TMP/d.txt" || fail "tracesniff exited $?"
    local extra=""
    [ -n "${3:-}" ] && extra=--native-frames
    "$CHECKPY" "$CHECK" "$TMP/d.txt" python "$TARGET" "$ver" --min-dumps 5 --pid "$TPID" $extra ||
        { sed -n 1,40p "$TMP/d.txt"; fail "dumps of Python $ver"; }
    # The target runs on, not stopped and no longer traced.
    grep -q '^TracerPid:[[:space:]]*0$' /proc/"$TPID"/status || fail "target still traced"
    grep -q '^State:[[:space:]]*[tT]' /proc/"$TPID"/status && fail "target left stopped"
    echo "ok"
}

case $CASE in
py311-debian) py_case debian311 3.11 ;;
py311) py_case 3.11 3.11 ;;
py312) py_case 3.12 3.12 ;;
py313) py_case 3.13 3.13 ;;
py311-native) py_case 3.11 3.11 --native ;;
py312-native) py_case 3.12 3.12 --native ;;
py313-native) py_case 3.13 3.13 --native ;;

native)
    # The C program with --native (and as a non-Python process, native anyway).
    start_target "$NATIVE" 60
    need_access --native
    "$SNIFF" -p "$TPID" -i 0.1 -d 2 --native -o "$TMP/n.txt" 2>"$TMP/err" || fail "tracesniff exited $?"
    "$CHECKPY" "$CHECK" "$TMP/n.txt" native --min-dumps 3 --pid "$TPID" --module "$(basename "$NATIVE")" ||
        { sed -n 1,30p "$TMP/n.txt"; fail "native stacks"; }
    grep -q "not a Python process" "$TMP/err" || fail "no 'not a Python process' note: $(cat "$TMP/err")"
    grep -q '^TracerPid:[[:space:]]*0$' /proc/"$TPID"/status || fail "target still traced"
    echo "ok"
    ;;

child)
    # -- PROGRAM: tracesniff starts it, samples it and ends it after -d.
    py=$(find_python 3.12)
    [ -n "$py" ] || py=$(find_python debian311)
    [ -n "$py" ] || skip "no Python 3.11+ installed"
    ver=$("$py" -c 'import platform; print(platform.python_version())')
    "$SNIFF" -i 0.1 -d 2 -o "$TMP/c.txt" -- "$py" "$TARGET" 60 "$TMP" >/dev/null 2>"$TMP/err" &
    S=$!
    PIDS+=("$S")
    wait_pid $S
    rc=$?
    [ $rc = 0 ] || fail "tracesniff exited $rc"
    "$CHECKPY" "$CHECK" "$TMP/c.txt" python "$TARGET" "$ver" --min-dumps 3 || fail "dumps of the child"
    pgrep -f "$TARGET 60 $TMP" >/dev/null && fail "the started program was left running"
    echo "ok"
    ;;

subprocesses)
    py=$(find_python 3.12)
    [ -n "$py" ] || py=$(find_python debian311)
    [ -n "$py" ] || skip "no Python 3.11+ installed"
    "$SNIFF" -s -i 0.1 -d 2.5 -o "$TMP/s.txt" -- sh -c "\"$py\" \"$TARGET\" 60 \"$TMP\"; true" >/dev/null 2>"$TMP/err" &
    S=$!
    PIDS+=("$S")
    wait_pid $S || fail "tracesniff failed"
    grep -q '^Parent Process [0-9]*: sh -c' "$TMP/s.txt" || fail "no 'Parent Process' line: $(head -20 "$TMP/s.txt")"
    grep -q 'sleeper_inner (target.py:' "$TMP/s.txt" || fail "no Python stacks of the child"
    for _ in $(seq 1 60); do
        pgrep -f "$TARGET 60 $TMP" >/dev/null || break
        sleep 0.05
    done
    pgrep -f "$TARGET 60 $TMP" >/dev/null && fail "the program's sampled child was left running"
    echo "ok"
    ;;

killed)
    # The target dies mid-sampling: tracesniff ends by itself with what it had.
    py=$(find_python 3.12)
    [ -n "$py" ] || py=$(find_python debian311)
    [ -n "$py" ] || skip "no Python 3.11+ installed"
    for mode in "" --native; do
        start_target "$py" "$TARGET" 60 "$TMP"
        need_access $mode
        "$SNIFF" -p "$TPID" -i 0.01 $mode -o "$TMP/k.txt" 2>"$TMP/err" &
        S=$!
        PIDS+=("$S")
        sleep 1.5 # enough dumps even on a loaded machine
        kill -9 "$TPID"
        wait_pid $S
        rc=$?
        [ $rc = 0 ] || fail "tracesniff ${mode:-(python)} exited $rc after the target died: $(cat "$TMP/err")"
        n=$(grep -c '^#tracecat-dump ' "$TMP/k.txt")
        [ "$n" -ge 3 ] || fail "only $n dumps kept"
        "$CHECKPY" "$CHECK" "$TMP/k.txt" python "$TARGET" "$("$py" -c 'import platform; print(platform.python_version())')" --min-dumps 3 ${mode:+--native-frames} || fail "kept dumps"
        # The last block is whole: it ends with a frame line.
        tail -1 "$TMP/k.txt" | grep -q '^    \|^Error: ' || fail "last block cut: $(tail -3 "$TMP/k.txt")"
    done
    echo "ok"
    ;;

signal)
    # SIGINT/SIGTERM to tracesniff: it stops, writes, and leaves the target running untraced.
    py=$(find_python 3.12)
    [ -n "$py" ] || py=$(find_python debian311)
    [ -n "$py" ] || skip "no Python 3.11+ installed"
    start_target "$py" "$TARGET" 60 "$TMP"
    need_access --native
    for sig in INT TERM; do
        rm -f "$TMP/g.json"
        "$SNIFF" -p "$TPID" -i 0.005 --native -o "$TMP/g.json" 2>"$TMP/err" &
        S=$!
        PIDS+=("$S")
        sleep 0.8
        kill -s $sig $S
        wait_pid $S
        rc=$?
        [ $rc = 0 ] || fail "tracesniff exited $rc on SIG$sig: $(cat "$TMP/err")"
        "$CHECKPY" -c 'import json,sys; d=json.load(open(sys.argv[1])); n=[e for e in d["traceEvents"] if e.get("ph")=="M" and e.get("name")=="thread_name"]; assert {e["args"]["name"] for e in n} >= {"MainThread","sleeper-thread","busy-thread"}, n; assert any(e.get("name","").startswith("busy_inner") for e in d["traceEvents"])' "$TMP/g.json" ||
            fail "SIG$sig: bad JSON output"
        for _ in 1 2 3; do
            grep -q '^TracerPid:[[:space:]]*0$' /proc/"$TPID"/status || fail "SIG$sig: target still traced"
            grep -q '^State:[[:space:]]*[tT]' /proc/"$TPID"/status && fail "SIG$sig: target left stopped"
            sleep 0.1
        done
    done
    ls "$TMP"/.*tmp* 2>/dev/null && fail "temporary output left behind"
    echo "ok"
    ;;

once-readback)
    # --once is py-spy dump; the py-spy reader reads it back with the same stacks.
    "$TRACECAT" formats | grep -q '^ *pyspy\b\|pyspy ' || skip "tracecat has no py-spy reader yet"
    py=$(find_python 3.12)
    [ -n "$py" ] || py=$(find_python debian311)
    [ -n "$py" ] || skip "no Python 3.11+ installed"
    start_target "$py" "$TARGET" 60 "$TMP"
    need_access
    "$SNIFF" -p "$TPID" --once >"$TMP/once.txt" || fail "tracesniff --once exited $?"
    head -1 "$TMP/once.txt" | grep -q "^Process $TPID: " || fail "not a py-spy dump: $(head -2 "$TMP/once.txt")"
    grep -q '^#tracecat' "$TMP/once.txt" && fail "--once wrote markers"
    "$TRACECAT" cat "$TMP/once.txt" >"$TMP/cat.txt" || fail "tracecat cat failed"
    "$TRACECAT" convert "$TMP/once.txt" --folded-prefix thread -o "$TMP/once.folded" || fail "tracecat convert failed"
    "$TRACECAT" info --json "$TMP/once.txt" >"$TMP/info.json" || fail "tracecat info failed"
    "$CHECKPY" -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["counts"]; assert d["inputs"][0]["format"]=="pyspy", d; assert c["processes"]==1 and c["samples"]==3, c' "$TMP/info.json" ||
        fail "info --json: $(cat "$TMP/info.json")"
    "$CHECKPY" "$CHECK" "$TMP/once.txt" readback "$TMP/cat.txt" "$TMP/once.folded" || fail "read back"
    echo "ok"
    ;;

formats)
    # Sequences read back too: counters from --cpu-mem, and other writers by extension.
    py=$(find_python 3.12)
    [ -n "$py" ] || py=$(find_python debian311)
    [ -n "$py" ] || skip "no Python 3.11+ installed"
    start_target "$py" "$TARGET" 60 "$TMP"
    need_access
    "$SNIFF" -p "$TPID" -i 0.1 -d 1 --cpu-mem -o "$TMP/m.txt.gz" || fail "tracesniff exited $?"
    gzip -dc "$TMP/m.txt.gz" >"$TMP/m.txt" || fail "not gzip"
    grep -q "^#tracecat-counter ts=[0-9.]* pid=$TPID cpu_percent=[0-9.]* rss_bytes=[1-9][0-9]*$" "$TMP/m.txt" ||
        fail "no counter lines: $(head -3 "$TMP/m.txt")"
    grep -q "^#tracecat-dump ts=[0-9]*\.[0-9]\{6\} pid=$TPID" "$TMP/m.txt" || fail "no dump markers"
    if "$TRACECAT" formats | grep -q pyspy; then
        "$TRACECAT" info --json "$TMP/m.txt.gz" >"$TMP/mi.json" || fail "tracecat info"
        "$CHECKPY" -c 'import json,sys; d=json.load(open(sys.argv[1])); c=d["counts"]; assert c["counters"]>=10 and c["samples"]>=15, c; names={l["track"] for l in d["lanes"]}; assert {"cpu_percent","rss_bytes","busy-thread"} <= names, names' "$TMP/mi.json" ||
            fail "read back: $(cat "$TMP/mi.json")"
    fi
    for out in f.folded f.json; do
        "$SNIFF" -p "$TPID" -i 0.1 -d 0.5 --cpu-mem -o "$TMP/$out" || fail "-o $out: exit $?"
    done
    grep -q '^_bootstrap (threading.py:[0-9]*);_bootstrap_inner (threading.py:[0-9]*);run (threading.py:[0-9]*);busy_outer (target.py:29);busy_middle (target.py:25);busy_inner (target.py:2[01]) [0-9]*$' "$TMP/f.folded" ||
        fail "folded: $(cat "$TMP/f.folded")"
    "$CHECKPY" -c 'import json,sys; d=json.load(open(sys.argv[1])); ev=d["traceEvents"]; assert any(e.get("ph")=="C" and e.get("name")=="rss_bytes" for e in ev); assert any(e.get("ph")=="X" and e["name"].startswith("sleeper_inner (target.py:") for e in ev)' "$TMP/f.json" ||
        fail "json output"
    echo "ok"
    ;;

autosave)
    py=$(find_python 3.12)
    [ -n "$py" ] || py=$(find_python debian311)
    [ -n "$py" ] || skip "no Python 3.11+ installed"
    start_target "$py" "$TARGET" 60 "$TMP"
    need_access
    "$SNIFF" -p "$TPID" -i 0.05 --autosave 0.3 -o "$TMP/a.txt" &
    S=$!
    PIDS+=("$S")
    wait_for_text "$TMP/a.txt" '^#tracecat-dump' || fail "no autosave while running"
    kill -0 $S 2>/dev/null || fail "tracesniff ended early"
    n1=$(grep -c '^#tracecat-dump' "$TMP/a.txt")
    sleep 0.8
    n2=$(grep -c '^#tracecat-dump' "$TMP/a.txt")
    [ "$n2" -gt "$n1" ] || fail "autosave did not grow ($n1 then $n2)"
    kill -TERM $S
    wait_pid $S || fail "tracesniff exit after SIGTERM"
    echo "ok"
    ;;

errors)
    # Clear messages: no such process, no permission, not runnable, usage.
    out=$("$SNIFF" -p 2147483646 --once 2>&1)
    rc=$?
    [ $rc = 1 ] || fail "missing pid: exit $rc"
    echo "$out" | grep -q "process 2147483646: no such process" || fail "missing pid message: $out"
    out=$("$SNIFF" --once -- /nonexistent/prog 2>&1)
    [ $? = 1 ] || fail "bad program: exit code"
    echo "$out" | grep -q "cannot run /nonexistent/prog: No such file" || fail "bad program: $out"
    "$SNIFF" >/dev/null 2>&1
    [ $? = 2 ] || fail "no arguments is not a usage error"
    "$SNIFF" -p 1 -o x.unknownext >/dev/null 2>&1
    [ $? = 2 ] || fail "unknown extension is not a usage error"
    "$SNIFF" --help | grep -q -- "--native" || fail "--help"
    echo "ok"
    ;;

permission)
    # An unprivileged user against a root process: a message that names the cause.
    [ "$(id -u)" = 0 ] || skip "needs root to run the sniffer as another user"
    command -v setpriv >/dev/null || skip "no setpriv"
    sleep 60 &
    TPID=$!
    PIDS+=("$TPID")
    cp "$SNIFF" "$TMP/ts" && chmod 755 "$TMP" "$TMP/ts"
    out=$(setpriv --reuid=65534 --regid=65534 --clear-groups "$TMP/ts" -p "$TPID" --once 2>&1)
    rc=$?
    [ $rc = 1 ] || fail "exit $rc: $out"
    echo "$out" | grep -q "permission denied" || fail "message: $out"
    echo "$out" | grep -q "CAP_SYS_PTRACE" || fail "message does not name CAP_SYS_PTRACE: $out"
    echo "$out" | grep -q "ptrace_scope" || fail "message does not name ptrace_scope: $out"
    echo "ok"
    ;;

*)
    fail "unknown case $CASE"
    ;;
esac
