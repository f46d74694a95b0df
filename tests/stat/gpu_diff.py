#!/usr/bin/env python3
"""Independent check of `tracestat --diff CONTROL TEST --json` on Kineto traces.

Reads both traces' JSON itself and, per slice name, counts the complete (X)
events and sums their durations (exact decimals, in ns): the ops rows; the
same over the GPU events (kernel, gpu_memcpy, gpu_memset, mtia_ccp_events
with a "stream" arg): the kernels rows.  Names whose count or total differ
must be exactly the rows tracestat lists, with the same numbers, ordered by
|test total - control total| descending (ties by name).

With --traceviz, also draws `traceviz --diff -v` and checks that it is a PNG of
16 in x 150 dpi whose bands hold the 12 largest rows of each kind, of all the
rows that differ.

usage: gpu_diff.py TRACESTAT CONTROL TEST [--traceviz TRACEVIZ]
"""
import decimal
import gzip
import json
import os
import subprocess
import sys
import tempfile

DEVICE = {"kernel", "gpu_memcpy", "gpu_memset", "mtia_ccp_events"}


def ns(v):
    return int((decimal.Decimal(v) * 1000).to_integral_value())


def sums(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    ops, kernels = {}, {}
    for e in doc["traceEvents"] if isinstance(doc, dict) else doc:
        if e.get("ph") != "X":
            continue
        d = ns(e.get("dur", 0))
        for table, take in ((ops, True),
                            (kernels, e.get("cat") in DEVICE and "stream" in (e.get("args") or {}))):
            if take:
                c, t = table.get(e["name"], (0, 0))
                table[e["name"]] = (c + 1, t + d)
    return ops, kernels


def rows(a, b):
    out = []
    for name in set(a) | set(b):
        ca, ta = a.get(name, (0, 0))
        cb, tb = b.get(name, (0, 0))
        if (ca, ta) != (cb, tb):
            out.append({"name": name, "count": [ca, cb], "value": [ta, tb]})
    out.sort(key=lambda r: (-abs(r["value"][1] - r["value"][0]), r["name"].encode()))
    return out


def main():
    tracestat, control, test = sys.argv[1:4]
    got = json.loads(subprocess.run([tracestat, "--diff", control, test, "--json"], check=True,
                                    capture_output=True, text=True).stdout)
    (oa, ka), (ob, kb) = sums(control), sums(test)
    bad = 0
    for kind, want in (("ops", rows(oa, ob)), ("kernels", rows(ka, kb))):
        have = [{k: r[k] for k in ("name", "count", "value")} for r in got[kind]]
        if have != want:
            print(f"{kind}: expected {want}\n  tracestat says {have}")
            bad += 1
        else:
            print(f"{kind}: {len(want)} rows differ, as expected")
    if "--traceviz" in sys.argv:
        viz = sys.argv[sys.argv.index("--traceviz") + 1]
        out = tempfile.NamedTemporaryFile(suffix=".png", delete=False).name
        err = subprocess.run([viz, "-v", "--diff", control, test, "-o", out], check=True,
                             capture_output=True, text=True).stderr
        n = [len(got[k]) for k in ("ops", "kernels", "frames", "io_files", "io_ranks")]
        want = f"{sum(min(k, 12) for k in n)} rows drawn of {sum(n)} that differ"
        with open(out, "rb") as f:
            head = f.read(24)
        os.unlink(out)
        if want not in err or head[:8] != b"\x89PNG\r\n\x1a\n" or \
                int.from_bytes(head[16:20], "big") != 2400:
            print(f"traceviz --diff: expected a 2400 px wide PNG and '{want}', got {err!r}")
            bad += 1
        else:
            print(f"traceviz --diff: {want}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
