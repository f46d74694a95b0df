#!/bin/bash
# prompt_tmux.sh TRACESQL SRCDIR: tracesql's prompt on a terminal (tmux):
# Up recalls the last statement, Ctrl-R finds an older one by its text, the
# history file keeps them for the next run, and Ctrl-C drops a half-typed line.
# Skipped (77) without tmux.
set -u
tracesql=$1 src=$2 case=prompt-tmux
. "$(dirname "$0")/../lib.sh"
command -v tmux >/dev/null || { echo "no tmux: skipped"; exit 77; }
tiny=$src/testdata/gt/gt-tiny-visualize_demo-1worker.log
sock=$tmp/tmux.sock
t() { tmux -S "$sock" "$@"; }
# wait_for RE: the pane shows a line matching RE within 10 s
wait_for() {
    for _ in $(seq 100); do
        t capture-pane -p -t s >"$tmp/pane" 2>/dev/null
        grep -q -- "$1" "$tmp/pane" && return 0
        sleep 0.1
    done
    sed 's/^/  pane: /' "$tmp/pane" >&2
    fail "the pane never showed '$1'"
}
start() {
    t new-session -d -s s -x 120 -y 40 \
        "env TRACESQL_HISTORY=$tmp/history $tracesql $tiny; echo EXITED \$?; sleep 30"
    wait_for '^tracesql>'
}
trap 't kill-server 2>/dev/null; rm -rf "$tmp"' EXIT

start
t send-keys -t s 'SELECT 40 + 2 AS answer\;' Enter # tmux ends a command at a bare ';' 
wait_for '| *42 |'
t send-keys -t s "SELECT 'second' AS w\\;" Enter
wait_for '| second |'
t send-keys -t s Up Up Enter # the first statement again
wait_for '^tracesql> SELECT 40 + 2 AS answer;$'
[ "$(grep -c '| *42 |' "$tmp/pane")" = 2 ] || fail "Up Up did not run the first statement again"
t send-keys -t s "SELECT 'half typed" C-c
wait_for '^tracesql>$'
t send-keys -t s C-d
wait_for '^EXITED 0'
t kill-session -t s
grep -q "'second'" "$tmp/history" || fail "the history file lacks the statements (libedit writes spaces as \\040)"

# a new run finds the last run's statement with Ctrl-R
start
t send-keys -t s C-r "40 +"
sleep 0.5
t send-keys -t s Enter
wait_for '| *42 |'
t send-keys -t s C-d
wait_for '^EXITED 0'
exit 0
