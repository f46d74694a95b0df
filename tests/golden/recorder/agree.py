#!/usr/bin/env python3
"""agree.py TRACECAT TRACE_DIR [INPUT]

Record-for-record agreement of `tracecat cat` with Recorder's own text output
(recorder2text) for one Recorder trace directory.

For every rank, the slices tracecat prints for process "rank N" must equal,
in order, the lines of TRACE_DIR/_text/<N>.txt (or _text_corrected/ when the
sample has one: recorder2text 2.5.0 prints rank 0's timestamps for every rank
in inter-process mode, see testdata/recorder/SOURCES.md): same function name,
same layer, same arguments, and the same start and end to the digit
(exact: recorder2text prints whole ticks, and so must tracecat).  INPUT
(default TRACE_DIR) is what tracecat reads: the directory,
a tarball of it, or its recorder.mt.

Order is compared exactly: a reference lists a rank's records in sequence
(start) order (recorder.md §2.5), and tracecat must print them in that order.

Nesting too: each slice's depth (tracesql, beside tracecat) is the call
level recorder2text prints (the 4th column), record for record by rank,
start tick and function (issue 19 item 2: the level, not time containment).

On a mismatch the first differing record of the rank is printed, both sides.
"""
import json
import os
import subprocess
import sys
from collections import Counter
from decimal import Decimal

LAYER = {"POSIX": 0, "MPI-IO": 1, "MPI": 2, "HDF5": 3, "USER": 4}


def ours(tracecat, path):
    out = subprocess.run([tracecat, "cat", path], check=True, capture_output=True, text=True)
    ranks = {}
    for line in out.stdout.splitlines():
        kind, ts, dur, process, track, cat, name, value, args = line.split("\t")
        if kind != "slice":
            raise SystemExit(f"unexpected {kind} row: {line}")
        if not process.startswith("rank "):
            raise SystemExit(f"unexpected process {process!r}")
        start = Decimal(ts)
        argv = [str(v) for v in json.loads(args).values()]
        ranks.setdefault(int(process[5:]), []).append(
            (name, start, start + Decimal(dur), LAYER.get(cat, -1), argv, line))
    return ranks


def reference(path):
    recs = []
    with open(path) as f:
        for no, line in enumerate(f, 1):
            tok = line.rstrip("\n").split(" ")
            if len(tok) < 7 or tok[5] != "(" or tok[-1] != ")":
                raise SystemExit(f"{path}:{no}: not a recorder2text line")
            recs.append((tok[2], Decimal(tok[0]), Decimal(tok[1]), int(tok[4]), tok[6:-1],
                         f"{path}:{no}: {line.rstrip()}"))
    return recs


def depths(tracecat, path):
    """(rank, start in ns, function, depth) of every slice, counted, from tracesql."""
    q = ("SELECT p.rank, s.ts, s.name, s.depth FROM slice s"
         " JOIN thread_track t ON t.id = s.track_id JOIN thread USING (utid)"
         " JOIN process p USING (upid)")
    tracesql = os.path.join(os.path.dirname(tracecat), "tracesql")
    out = subprocess.run([tracesql, path, "-c", q], check=True, capture_output=True, text=True)
    return Counter(tuple(int(v) if i != 2 else v for i, v in enumerate(line.split("\t")))
                   for line in out.stdout.splitlines())


def check_levels(tracecat, given, textdir, files):
    want = Counter()
    for rank, fname in enumerate(files):
        for line in open(os.path.join(textdir, fname)):
            tok = line.split(" ")
            want[(rank, int(Decimal(tok[0]) * 10**9), tok[2], int(tok[3]))] += 1
    have = depths(tracecat, given)
    if have != want:
        raise SystemExit(f"depths differ from Recorder's levels: tracecat has "
                         f"{sorted(have - want)[:3]}, the reference {sorted(want - have)[:3]}")


def main():
    tracecat, trace = sys.argv[1], sys.argv[2]
    given = sys.argv[3] if len(sys.argv) > 3 else trace
    textdir = os.path.join(trace, "_text_corrected")
    if not os.path.isdir(textdir):
        textdir = os.path.join(trace, "_text")
    files = sorted(os.listdir(textdir))
    got = ours(tracecat, given)
    if sorted(got) != list(range(len(files))):
        raise SystemExit(f"ranks {sorted(got)}, reference has {len(files)} files in {textdir}")
    total = 0
    for rank, fname in enumerate(files):
        if int(os.path.splitext(fname)[0]) != rank:
            raise SystemExit(f"unexpected reference file {fname}")
        want = reference(os.path.join(textdir, fname))
        have = got[rank]
        for i in range(max(len(want), len(have))):
            if i >= len(have) or i >= len(want):
                side = "tracecat" if i >= len(have) else "reference"
                raise SystemExit(f"rank {rank}: {side} ends after {i} records "
                                 f"(tracecat {len(have)}, reference {len(want)})")
            w, h = want[i], have[i]
            bad = []
            if h[0] != w[0]:
                bad.append("function")
            if h[1] != w[1] or h[2] != w[2]:
                bad.append("time")
            if h[3] != w[3]:
                bad.append("layer")
            if h[4] != w[4]:
                bad.append("args")
            if bad:
                raise SystemExit(f"rank {rank} record {i}: {', '.join(bad)} differ\n"
                                 f"  reference: {w[5]}\n  tracecat:  {h[5]}\n"
                                 f"  args {h[4]} vs {w[4]}")
        total += len(want)
    check_levels(tracecat, given, textdir, files)
    print(f"{trace}: {len(files)} ranks, {total} records agree (times, levels)")


if __name__ == "__main__":
    main()
