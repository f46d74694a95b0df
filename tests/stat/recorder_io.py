#!/usr/bin/env python3
"""Independent check of tracestat's I/O section on a Recorder trace.

Reads Recorder's own text output (<dir>/_text/<rank>.txt, written by
recorder2text: "tstart tend function depth layer ( args )") and sums the byte
counts of the read/write calls from their arguments, as the prototypes give
them (shared/formats/recorder.md section 3):

  read/write/pread/pwrite(path, buf, count[, offset])     count
  fread/fwrite(buf, size, nmemb, path)                      size * nmemb
  MPI_File_{read,write}*(fh, [offset,] buf, count, type..)  count * sizeof(type)

Per rank it sums the depth-0 calls (tracestat's outermost calls); per layer
(MPI_File_* is MPI-IO, the rest POSIX) every call.  It compares them with
`tracestat --csv io-ranks` and `--csv io-layers`.

usage: recorder_io.py TRACESTAT DIR
"""
import csv
import io
import os
import subprocess
import sys

TYPE_SIZE = {"MPI_BYTE": 1, "MPI_CHAR": 1, "MPI_INT": 4, "MPI_FLOAT": 4, "MPI_DOUBLE": 8}
READS = {"read", "pread", "pread64", "fread"}
WRITES = {"write", "pwrite", "pwrite64", "fwrite"}


def call_bytes(fn, args):
    """(direction, bytes) of a data-moving call, or None."""
    if fn in ("read", "write", "pread", "pread64", "pwrite", "pwrite64"):
        return ("r" if fn in READS else "w", int(args[2]))
    if fn in ("fread", "fwrite"):
        return ("r" if fn in READS else "w", int(args[1]) * int(args[2]))
    if fn.startswith("MPI_File_read") or fn.startswith("MPI_File_write"):
        # the count follows the buffer pointer, the datatype follows the count
        i = args.index("%p") if "%p" in args else [k for k, a in enumerate(args) if a.startswith("0x")][0]
        return ("r" if "read" in fn else "w", int(args[i + 1]) * TYPE_SIZE[args[i + 2]])
    return None


def expected(d):
    ranks, layers = {}, {}
    text = os.path.join(d, "_text_corrected") if os.path.isdir(os.path.join(d, "_text_corrected")) else os.path.join(d, "_text")
    for name in sorted(os.listdir(text)):
        rank = int(name.split(".")[0])
        with open(os.path.join(text, name)) as f:
            for line in f:
                head, _, rest = line.partition("(")
                fields = head.split()
                fn, depth = fields[2], int(fields[3])
                args = rest.rsplit(")", 1)[0].split()
                moved = call_bytes(fn, args)
                if moved is None:
                    continue
                layer = "MPI-IO" if fn.startswith("MPI_File_") else "POSIX"
                key = 0 if moved[0] == "r" else 1
                layers.setdefault(layer, [0, 0])[key] += moved[1]
                if depth == 0:
                    ranks.setdefault(rank, [0, 0])[key] += moved[1]
    return ranks, layers


def tracestat(ts, d, table):
    res = subprocess.run([ts, "--csv", table, d], capture_output=True, text=True)
    if res.returncode != 0:
        sys.stderr.write(res.stderr)
        sys.exit(1)
    return list(csv.DictReader(io.StringIO(res.stdout)))


def main():
    ts, d = sys.argv[1], sys.argv[2]
    want_r, want_l = expected(d)
    got_r = {int(r["rank"]): [int(r["bytes_read"]), int(r["bytes_written"])] for r in tracestat(ts, d, "io-ranks")}
    got_l = {r["layer"]: [int(r["bytes_read"]), int(r["bytes_written"])]
             for r in tracestat(ts, d, "io-layers") if int(r["bytes_read"]) or int(r["bytes_written"])}
    bad = 0
    for k in sorted(set(want_r) | set(got_r)):
        ok = want_r.get(k) == got_r.get(k)
        bad += not ok
        print("rank %-3d want read/written %-14s got %s%s" % (k, want_r.get(k), got_r.get(k), "" if ok else "  MISMATCH"))
    for k in sorted(set(want_l) | set(got_l)):
        ok = want_l.get(k) == got_l.get(k)
        bad += not ok
        print("layer %-7s want read/written %-14s got %s%s" % (k, want_l.get(k), got_l.get(k), "" if ok else "  MISMATCH"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
