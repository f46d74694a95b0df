#!/usr/bin/env python3
"""ticks.py TRACECAT TRACESTAT SAMPLE_DIR

Exact times, to the tick, for every duration 0-100 ticks at large start
times (issue 19, item 1; samples of fewer than 101 records cover fewer).  A real Recorder trace directory of the plain
<rank>.ts layouts (2.3, 2.4, 2.5, inter-process) is copied and each rank's
timestamps are rewritten: record i of the trace (ranks in order) gets the
duration i mod 101 ticks, the first record of each rank starts 2^31 + 12345
ticks after start_ts (about 215 s at 100 ns a tick) and every later one a
few ticks after the previous start.  The expected times follow Recorder's
own recurrence (recorder.md 2.4: tstart = d_start * res + prev in double
precision, printed by recorder2text with (int)log10(1/res) decimals); they
must equal what `tracecat cat` prints exactly, not within a tick, and each
record keeps its place in the sequence.

The new times put calls made inside an MPI-IO call (level 1) at or past
their parent's end tick; the nesting must still follow Recorder's levels
(item 2), so `tracestat --section io` counts every rank's operations and
bytes as it does on the untouched trace.
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from decimal import Decimal


def rewrite(path, first_index):
    """Rewrites PATH's (d_start, d_end) pairs; returns the expected (start, end) ticks."""
    n = os.path.getsize(path) // 8
    pairs, want, prev = [], [], 0
    for j in range(n):
        d_start = 2**31 + 12345 if j == 0 else (j * 7) % 13
        dur = (first_index + j) % 101
        pairs.append(struct.pack("<II", d_start, d_start + dur))
        start = prev + d_start
        want.append((start, start + dur))
        prev = start
    with open(path, "wb") as f:
        f.write(b"".join(pairs))
    return want


def recorder2text(ticks, res, decimals):
    """A time as recorder2text prints it: the double recurrence, then %.*f."""
    return Decimal(f"{ticks * res:.{decimals}f}")


def io_by_rank(tracestat, trace):
    """Operations and bytes per rank, as tracestat's io section counts them."""
    out = subprocess.run([tracestat, "--json", "--section", "io", trace], check=True,
                         capture_output=True, text=True)
    io = json.loads(out.stdout)["io"]
    return [(r["rank"], r["ops"], r["bytes_read"], r["bytes_written"]) for r in io["ranks"]]


def main():
    tracecat, tracestat, sample = sys.argv[1], sys.argv[2], sys.argv[3]
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, os.path.basename(sample.rstrip("/")))
        shutil.copytree(sample, trace, ignore=shutil.ignore_patterns("_*"))
        with open(os.path.join(trace, "recorder.mt"), "rb") as f:
            head = f.read(24)
        res = struct.unpack("<d", head[16:24])[0]
        ns_per_tick = round(res * 1e9)
        decimals = len(str(round(1 / res))) - 1
        ranks = sorted(int(f[:-3]) for f in os.listdir(trace) if f.endswith(".ts"))
        want, index = {}, 0
        for r in ranks:
            want[r] = rewrite(os.path.join(trace, f"{r}.ts"), index)
            index += len(want[r])
        out = subprocess.run([tracecat, "cat", trace], check=True, capture_output=True, text=True)
        got = {}
        for line in out.stdout.splitlines():
            kind, ts, dur = line.split("\t")[:3]
            process = line.split("\t")[3]
            got.setdefault(int(process[5:]), []).append((Decimal(ts), Decimal(ts) + Decimal(dur)))
        for r in ranks:
            if len(got.get(r, [])) != len(want[r]):
                raise SystemExit(f"rank {r}: {len(got.get(r, []))} records, want {len(want[r])}")
            for j, ((gs, ge), (ws, we)) in enumerate(zip(got[r], want[r])):
                exact = (Decimal(ws * ns_per_tick) / 10**9, Decimal(we * ns_per_tick) / 10**9)
                text = (recorder2text(ws, res, decimals), recorder2text(we, res, decimals))
                if (gs, ge) != exact or exact != text:
                    raise SystemExit(f"rank {r} record {j} (duration {we - ws} ticks): tracecat "
                                     f"{gs}..{ge}, ticks {exact[0]}..{exact[1]}, "
                                     f"recorder2text {text[0]}..{text[1]}")
        before, after = io_by_rank(tracestat, sample), io_by_rank(tracestat, trace)
        if before != after:
            raise SystemExit(f"tracestat io per rank changed with the times:\n  {before}\n  {after}")
        print(f"{sample}: {index} records, durations 0-{min(index, 101) - 1} ticks, exact")


if __name__ == "__main__":
    main()
