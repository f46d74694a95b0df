#!/usr/bin/env python3
"""Independent check of tracestat's lanes on a GT log (current pipe form).

Computes every worker's round trips and busy time straight from the log text,
with the pairing rules of shared/formats/gt.md and the foundation issue, and
compares them with `tracestat --csv lanes`:

  * a synchronous round trip: WORKER_SEND, then the worker's WORKER_RECV;
  * a batch, logged reply first (WORKER_RECV, then its WORKER_SEND): from the
    previous record line's time to the WORKER_RECV;
  * a WORKER_SEND never answered runs to the last record's time.

ops = round trips; busy = the union of [start, end] over the worker's round
trips; idle = (last record time - first record time) - busy.  Times are parsed
as exact decimals (ns), never floats.

usage: gt_lanes.py TRACESTAT LOG
"""
import csv
import io
import subprocess
import sys
from decimal import Decimal


def parse(path):
    recs = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split("|")
            if len(parts) < 5:
                continue
            t = parts[0].strip()
            if not t.endswith("s") or not parts[1].strip().startswith("#"):
                continue
            try:
                ns = int(Decimal(t[:-1]) * 1000000000)
            except Exception:
                continue
            recs.append((ns, parts[2].strip(), " ".join(parts[3].split()), parts[4].strip()))
    return recs


def expected(recs):
    first, last = recs[0][0], recs[-1][0]
    trips = {}  # worker -> [(start, end)]
    pending, expect_batch = {}, {}
    prev = None
    for ts, ev, src, cmd in recs:
        if src.startswith("WORKER "):
            w = "worker " + src.split()[-1]
            trips.setdefault(w, [])
            if ev == "WORKER_RECV":
                if w in pending:
                    trips[w].append((pending.pop(w), ts))
                else:
                    trips[w].append((prev if prev is not None else ts, ts))
                    expect_batch[w] = True
            elif ev == "WORKER_SEND":
                if expect_batch.get(w) and cmd == "WorkerBatch":
                    expect_batch[w] = False
                else:
                    pending[w] = ts
        prev = ts
    for w, s in pending.items():
        trips[w].append((s, last))
    out = {}
    for w, iv in trips.items():
        busy, cur_s, cur_e = 0, None, None
        for s, e in sorted(iv):
            if cur_e is None or s > cur_e:
                if cur_e is not None:
                    busy += cur_e - cur_s
                cur_s, cur_e = s, e
            else:
                cur_e = max(cur_e, e)
        if cur_e is not None:
            busy += cur_e - cur_s
        out[w] = (len(iv), busy, (last - first) - busy)
    return out


def main():
    tracestat, log = sys.argv[1], sys.argv[2]
    want = expected(parse(log))
    res = subprocess.run([tracestat, "--csv", "lanes", log], capture_output=True, text=True)
    if res.returncode != 0:
        print(res.stderr, file=sys.stderr)
        return 1
    got = {}
    for row in csv.DictReader(io.StringIO(res.stdout)):
        if row["kind"] == "worker":
            got[row["track"]] = (int(row["ops"]), int(row["busy_ns"]), int(row["idle_ns"]))
    bad = 0
    for w in sorted(set(want) | set(got)):
        ok = want.get(w) == got.get(w)
        bad += not ok
        print("%-24s want ops/busy/idle %-36s got %s%s" % (w, want.get(w), got.get(w), "" if ok else "  MISMATCH"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
