#!/bin/bash
# killparquet.sh TRACECAT SRCDIR quick|full: a Parquet dataset is all old or
# all new whatever moment a run over it dies at (issue 21 item 7).  strace
# kills `tracecat convert --to parquet` with SIGKILL at the Nth call of each
# file system call it makes, N = 1, 2, ... until a run gets through (full:
# every call, every 5th write or open, over an old dataset and over none;
# quick: the calls that publish, over an old one); after each kill the directory must
# hold exactly the old dataset's files or exactly the new one's, byte for
# byte, and never an empty directory when there was none.  What the killed
# runs leave beside the target is removed by the next run.  Nothing is timed.
set -u
tracecat=$1 src=$2 mode=$3
. "$(dirname "$0")/../lib.sh"
command -v strace >/dev/null || { echo "skip: no strace"; exit 77; }
strace -f -o /dev/null true 2>/dev/null || { echo "skip: strace cannot trace here"; exit 77; }
gt=$src/testdata/gt/gt-tiny-visualize_demo-1worker.log
gt2=$src/testdata/gt/gt-server-2workers.log
top=$tmp/top out=$tmp/top/out.parquet
mkdir "$top"

# name and checksum of every file under $1, in order: the dataset's content
snap() { (cd "$1" 2>/dev/null && find . -type f -print0 | sort -z | xargs -0 -r md5sum); }
# the run that gets killed: a new input and a rewrite of the old one (other row groups, other bytes)
convert() { "$@" "$tracecat" convert "$gt" "$gt2" -o "$out" --to parquet --row-group-rows 7 --threads 1; }

run_cmd 0 "$tracecat" convert "$gt2" -o "$tmp/old" --to parquet
snap "$tmp/old" >"$tmp/old.snap"
cp -a "$tmp/old" "$out"
run_cmd 0 convert env
snap "$out" >"$tmp/new.snap"
cmp -s "$tmp/old.snap" "$tmp/new.snap" && fail "the new dataset is the old one"
rm -rf "$out"

# kills FROM_OLD: each call of each kind, until a run goes through
kills=0 olds=0 news=0
case $mode in
full) calls="openat write pwrite64 mkdir mkdirat rename renameat2 linkat unlink unlinkat fsync flock"
      froms="1 0" ;;
quick) calls="flock linkat renameat2 unlinkat" froms=1 ;;
*) fail "mode $mode: want quick or full" ;;
esac
for from_old in $froms; do
    for call in $calls; do
        step=1
        case $mode/$call in full/write | full/pwrite64 | full/openat) step=5 ;; quick/unlinkat) step=4 ;; esac
        for ((n = 1; ; n += step)); do
            rm -rf "$out"
            [ "$from_old" = 1 ] && cp -a "$tmp/old" "$out"
            convert strace -f -o /dev/null -e "trace=$call" -e "inject=$call:signal=KILL:when=$n" \
                >/dev/null 2>"$tmp/err"
            status=$?
            [ "$status" = 0 ] && break # the run did not make N such calls
            kills=$((kills + 1))
            if [ ! -e "$out" ]; then
                [ "$from_old" = 0 ] || fail "$call #$n: the dataset is gone"
                olds=$((olds + 1))
                continue
            fi
            snap "$out" >"$tmp/got.snap"
            if cmp -s "$tmp/got.snap" "$tmp/old.snap" && [ "$from_old" = 1 ]; then
                olds=$((olds + 1))
            elif cmp -s "$tmp/got.snap" "$tmp/new.snap"; then
                news=$((news + 1))
            else
                diff "$tmp/old.snap" "$tmp/got.snap" | head -20 >&2
                fail "$call #$n (exit $status): neither the old dataset nor the new one"
            fi
            # what one killed run leaves beside it: its temporary tree, perhaps its lock
            left=$(ls -A "$top" | grep -v -c '^out\.parquet$\|^\.out\.parquet\.lock$')
            [ "$left" -le 1 ] || fail "$call #$n: $left temporaries beside the target: $(ls -A "$top")"
        done
    done
done
[ "$olds" -gt 0 ] && [ "$news" -gt 0 ] || fail "kills gave $olds old and $news new datasets"

# the next run removes what the last killed one left, and writes the new dataset
rm -rf "$out"
cp -a "$tmp/old" "$out"
run_cmd 0 convert env
snap "$out" >"$tmp/got.snap"
cmp -s "$tmp/got.snap" "$tmp/new.snap" || fail "the run after the kills did not write the new dataset"
[ "$(ls -A "$top")" = out.parquet ] || fail "left beside the target: $(ls -A "$top")"
echo "ok: $kills kills, $olds left the old dataset, $news the new one"
