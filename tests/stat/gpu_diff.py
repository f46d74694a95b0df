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

With --stacks the inputs are py-spy dumps instead: the frames rows, per
function (summed over its files), are the self and total samples of
tests/stat/pyspy_hot.py's reading, the share total / all samples of the run,
ordered by |share change| descending (ties by name).

With --io the inputs are Recorder directories: each io_ranks row's bytes are
the rank's read + written bytes of tests/stat/recorder_io.py's reading (its
outermost calls), and every rank whose bytes differ is listed.

usage: gpu_diff.py TRACESTAT CONTROL TEST [--traceviz TRACEVIZ] [--stacks | --io]
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


def frames(control, test):
    """The frames rows of two py-spy dumps."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import pyspy_hot
    side = []
    for path in (control, test):
        n, self_, total = pyspy_hot.expected(path)
        fns = {}
        for (fn, _), t in total.items():
            c, v = fns.get(fn, (0, 0))
            fns[fn] = (c + self_.get((fn, _), 0), v + t)
        side.append((n, fns))
    (na, a), (nb, b) = side
    out = []
    for name in set(a) | set(b):
        (ca, ta), (cb, tb) = a.get(name, (0, 0)), b.get(name, (0, 0))
        if (ca, ta) != (cb, tb):
            effect = (tb / nb if nb else 0) - (ta / na if na else 0)
            out.append(({"name": name, "count": [ca, cb], "value": [ta, tb]}, effect))
    out.sort(key=lambda r: (-abs(r[1]), r[0]["name"].encode()))
    return [r for r, _ in out]


def io_bytes(control, test, got):
    """Mismatches of the io_ranks rows' bytes against recorder_io.py's per-rank bytes."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import recorder_io
    want = [{r: sum(v) for r, v in recorder_io.expected(d)[0].items()} for d in (control, test)]
    have = {r["rank"]: r["bytes"] for r in got["io_ranks"]}
    bad = [f"rank {r}: bytes {have[r]}, expected {[w.get(r, 0) for w in want]}" for r in have
           if have[r] != [w.get(r, 0) for w in want]]
    bad += [f"rank {r}: bytes differ, not listed" for r in set(want[0]) | set(want[1])
            if want[0].get(r, 0) != want[1].get(r, 0) and r not in have]
    print("\n".join(bad) or f"io_ranks: {len(have)} rows, bytes as expected")
    return len(bad)


def main():
    tracestat, control, test = sys.argv[1:4]
    got = json.loads(subprocess.run([tracestat, "--diff", control, test, "--json"], check=True,
                                    capture_output=True, text=True).stdout)
    bad = 0
    if "--io" in sys.argv:
        return 1 if io_bytes(control, test, got) or not got["io_ranks"] else 0
    if "--stacks" in sys.argv:
        kinds = (("frames", frames(control, test)),)
    else:
        (oa, ka), (ob, kb) = sums(control), sums(test)
        kinds = (("ops", rows(oa, ob)), ("kernels", rows(ka, kb)))
    for kind, want in kinds:
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
