#!/usr/bin/env bash
# tests/report/follow.sh TRACESTAT SRCDIR: tracestat --follow LOG under tmux (issue 23, item 7).
# A script appends a real GT log to LOG in chunks while tracestat --follow runs in a tmux pane of its
# own server (-L, so no other session is touched); after the last chunk the pane shows the whole log
# (its byte count, the four workers' lanes, the ops by name); Ctrl-C then ends it with exit 0.
# Exit 77 (skipped) without tmux.
set -u
ts=$1 src=$2 case=follow
. "$(dirname "$0")/../lib.sh"
command -v tmux >/dev/null || exit 77
cd "$src" || fail "no $src"
gt=testdata/gt/gt-mlp-4workers-autoshard.log
log=$tmp/growing.log
sock=tracestat-follow-$$
tmx() { tmux -L "$sock" "$@"; }
trap 'tmx kill-server 2>/dev/null; rm -rf "$tmp"' EXIT

head -n 40 "$gt" >"$log"
tmx new-session -d -x 160 -y 60 "$ts --follow $log --top 12; echo EXIT=\$? >$tmp/exit; sleep 60"
# The writer: the rest of the log, 400 lines every 0.2 s.
total=$(wc -l <"$gt")
for ((n = 41; n <= total; n += 400)); do
    sed -n "${n},$((n + 399))p" "$gt" >>"$log"
    sleep 0.2
done
cmp -s "$gt" "$log" || fail "the writer did not copy the log"
size=$(stat -c %s "$log")
# The pane shows the whole log within a few redraws.
for _ in $(seq 1 40); do
    tmx capture-pane -p >"$tmp/out"
    grep -q "($size bytes" "$tmp/out" && break
    sleep 0.25
done
grep -q "^tracestat --follow $log  ($size bytes" "$tmp/out" || { cat "$tmp/out" >&2; fail "no redraw of the whole log"; }
for want in 'worker auto_worker_0' 'worker auto_worker_3' '^WorkerBatch  *1079 ' 'idle over the last second'; do
    grep -q -- "$want" "$tmp/out" || { cat "$tmp/out" >&2; fail "the pane lacks '$want'"; }
done
tmx send-keys C-c
for _ in $(seq 1 40); do [ -s "$tmp/exit" ] && break; sleep 0.25; done
[ "$(cat "$tmp/exit" 2>/dev/null)" = EXIT=0 ] || fail "Ctrl-C: $(cat "$tmp/exit" 2>/dev/null || echo 'no exit')"
