#!/usr/bin/env python3
"""nodepth.py TRACECAT SAMPLE_DIR

A G3 trace made with RECORDER_STORE_CALL_DEPTH=0 states no call levels:
header byte 9 (store_call_depth) is 0 and every signature's depth byte is 0
(recorder.md 10.2, 10.4).  The real G3 sample is copied and rewritten so:
the flag cleared, the depth byte of every key of recorder.cst (inter-process)
or <r>.cst (local) zeroed, each Z-block (uint64 compressed size, uint64 raw
size, zlib stream; recorder.md 10.3) rebuilt.

Without levels the nesting comes from the ticks (a record inside the open
one whose ticks hold it, ends included, as truncation puts a child on its
parent's end tick).  On the iomix program that must give what the levels
gave: every slice's depth (tracesql) and `tracestat --section io`'s ranks,
files and layers as on the untouched sample, whose depths agree.py checks
against Recorder's own levels.  Reading the zeroed depths as levels made
every POSIX call under an MPI-IO call a top-level call, counted twice (the
issue 19 item 2 symptom).
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib


def zero_depths(path):
    """Rewrites the Z-block at PATH with every CST key's depth byte (key[9]) 0."""
    with open(path, "rb") as f:
        data = f.read()
    clen, rlen = struct.unpack_from("<QQ", data, 0)
    cst = bytearray(zlib.decompress(data[16:16 + clen]))
    if len(cst) != rlen:
        raise SystemExit(f"{path}: {len(cst)} bytes inflated, header says {rlen}")
    n, = struct.unpack_from("<i", cst, 0)
    at = 4
    for _ in range(n):
        klen, = struct.unpack_from("<i", cst, at + 8)
        cst[at + 16 + 9] = 0
        at += 16 + klen
    if at != len(cst):
        raise SystemExit(f"{path}: {len(cst) - at} bytes after {n} signatures")
    z = zlib.compress(bytes(cst))
    with open(path, "wb") as f:
        f.write(struct.pack("<QQ", len(z), len(cst)) + z)


def depths(tracecat, trace):
    tracesql = os.path.join(os.path.dirname(tracecat), "tracesql")
    q = ("SELECT p.rank, s.ts, s.name, s.depth FROM slice s"
         " JOIN thread_track t ON t.id = s.track_id JOIN thread USING (utid)"
         " JOIN process p USING (upid) ORDER BY p.rank, s.ts, s.id")
    out = subprocess.run([tracesql, trace, "-c", q], check=True, capture_output=True, text=True)
    return out.stdout.splitlines()


def io(tracecat, trace):
    tracestat = os.path.join(os.path.dirname(tracecat), "tracestat")
    out = subprocess.run([tracestat, "--json", "--section", "io", trace], check=True,
                         capture_output=True, text=True)
    d = json.loads(out.stdout)["io"]
    return {k: d[k] for k in ("ranks", "files", "layers", "modules")}


def main():
    tracecat, sample = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        trace = os.path.join(tmp, os.path.basename(sample.rstrip("/")))
        shutil.copytree(sample, trace, ignore=shutil.ignore_patterns("_*"))
        mt = os.path.join(trace, "recorder.mt")
        with open(mt, "r+b") as f:
            head = bytearray(f.read(40))
            if not os.path.exists(os.path.join(trace, "recorder.ts")) or head[9] != 1:
                raise SystemExit(f"{sample}: not a G3 trace with call depths")
            f.seek(9)
            f.write(b"\0")
        csts = [n for n in os.listdir(trace) if n.endswith(".cst")]
        for name in csts:
            zero_depths(os.path.join(trace, name))
        want, got = depths(tracecat, sample), depths(tracecat, trace)
        if sum(1 for line in want if not line.endswith("\t0")) == 0:
            raise SystemExit(f"{sample}: no nested call to check")
        if got != want:
            diff = [(w, g) for w, g in zip(want, got) if w != g][:5]
            raise SystemExit(f"depths without levels differ from Recorder's: {diff}")
        if io(tracecat, trace) != io(tracecat, sample):
            raise SystemExit("tracestat --section io differs without levels")
        nested = sum(1 for line in want if not line.endswith("\t0"))
        print(f"{sample}: {len(want)} slices ({nested} nested) as with levels, {len(csts)} CST")


if __name__ == "__main__":
    main()
