#!/usr/bin/env python3
"""ticks.py TRACECAT TRACESTAT SAMPLE_DIR

Exact times, to the tick, for every duration 0-100 ticks at large start
times (issue 19, item 1), on every format generation: a real Recorder trace
directory (the <rank>.ts of 2.3, 2.4, 2.5 and inter-process 2.5, or G3's
one recorder.ts of zlib blocks or raw pairs, recorder.md 10.6) is copied
and each rank's timestamps are rewritten: record i of the trace (ranks in
order) gets the duration i mod 101 ticks (a sample of fewer than 101
records is rewritten again, from where the last pass stopped, until every
duration was seen), the first record of each rank starts 2^31 + 12345
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
import zlib
from decimal import Decimal


def retime(n, first_index):
    """N new (d_start, d_end) pairs as bytes, and the (start, end) ticks they mean."""
    pairs, want, prev = [], [], 0
    for j in range(n):
        d_start = 2**31 + 12345 if j == 0 else (j * 7) % 13
        dur = (first_index + j) % 101
        pairs.append(struct.pack("<II", d_start, d_start + dur))
        start = prev + d_start
        want.append((start, start + dur))
        prev = start
    return b"".join(pairs), want


def rewrite_g2(trace, ranks, index):
    """Each <rank>.ts rewritten; the expected ticks per rank."""
    want = {}
    for r in ranks:
        path = os.path.join(trace, f"{r}.ts")
        data, want[r] = retime(os.path.getsize(path) // 8, index)
        with open(path, "wb") as f:
            f.write(data)
        index += len(want[r])
    return want


def rewrite_g3(trace, ranks, zblocks, index):
    """recorder.ts rewritten (uint64 blob sizes, then per rank a Z-block of uint64
    compressed size, uint64 raw size and a zlib stream, or the raw pairs); the expected
    ticks per rank."""
    path = os.path.join(trace, "recorder.ts")
    with open(path, "rb") as f:
        data = f.read()
    sizes = struct.unpack_from(f"<{len(ranks)}Q", data, 0)
    at, want, blobs = 8 * len(ranks), {}, []
    for r, size in zip(ranks, sizes):
        blob = data[at:at + size]
        at += size
        if zblocks and size:
            clen, rlen = struct.unpack_from("<QQ", blob, 0)
            raw = zlib.decompress(blob[16:16 + clen])
            if len(raw) != rlen:
                raise SystemExit(f"rank {r}: Z-block of {len(raw)} bytes, header says {rlen}")
        else:
            raw = blob
        pairs, want[r] = retime(len(raw) // 8, index)
        index += len(want[r])
        if zblocks and size:
            z = zlib.compress(pairs)
            pairs = struct.pack("<QQ", len(z), len(pairs)) + z
        blobs.append(pairs)
    with open(path, "wb") as f:
        f.write(struct.pack(f"<{len(ranks)}Q", *(len(b) for b in blobs)) + b"".join(blobs))
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


def check(tracecat, tracestat, sample, first):
    """One pass: record i of the copy (ranks in order) lasts (FIRST + i) mod 101 ticks.
    Returns the number of records."""
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, os.path.basename(sample.rstrip("/")))
        shutil.copytree(sample, trace, ignore=shutil.ignore_patterns("_*"))
        with open(os.path.join(trace, "recorder.mt"), "rb") as f:
            head = f.read(40)
        g3 = os.path.exists(os.path.join(trace, "recorder.ts"))
        # G2 keeps start_ts and the resolution at 8 and 16, G3 at 16 and 24 (recorder.md 2.1, 10.2)
        res = struct.unpack_from("<d", head, 24 if g3 else 16)[0]
        ns_per_tick = round(res * 1e9)
        decimals = len(str(round(1 / res))) - 1
        if g3:
            want = rewrite_g3(trace, list(range(struct.unpack_from("<i", head, 0)[0])), head[36],
                              first)
        else:
            ranks = sorted(int(f[:-3]) for f in os.listdir(trace) if f.endswith(".ts"))
            want = rewrite_g2(trace, ranks, first)
        ranks = sorted(want)
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
        return sum(len(w) for w in want.values())


def main():
    """Passes until every duration 0-100 has been seen (a sample of 60 records takes two)."""
    tracecat, tracestat, sample = sys.argv[1], sys.argv[2], sys.argv[3]
    first, passes = 0, 0
    while first < 101:
        n = check(tracecat, tracestat, sample, first)
        if n == 0:
            raise SystemExit(f"{sample}: no records")
        first += n
        passes += 1
    print(f"{sample}: {n} records, {passes} pass(es), durations 0-100 ticks, exact")


if __name__ == "__main__":
    main()
