#!/usr/bin/env python3
"""kineto_roundtrip.py TRACECAT TRACE...: each PyTorch profiler (Kineto) TRACE
converted with --to kineto keeps what HTA and scripts read: every top-level key
of the source (distributedInfo, deviceProperties, baseTimeNanoseconds,
schemaVersion, ...) equal as JSON, every X event on its source pid and tid
with its name and time (in ns), and the wall clock `tracecat info` reads.
The one exception: a negative tid (Kineto's -1 of CUDA sync events) is no id
in tracecat's model, so those events come back on their lane's name
("tid":"Device 0"); they are compared by name and time alone."""
import gzip
import json
import os
import subprocess
import sys
import tempfile

OWN = {"traceEvents", "displayTimeUnit", "otherData"}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def x_events(doc, negative):
    """The X events as (pid, tid, name, ns); tids of the NEGATIVE (pid, name) pairs left out."""
    out = []
    for e in doc["traceEvents"]:
        if e.get("ph") != "X":
            continue
        tid = e.get("tid")
        if isinstance(tid, int) and tid < 0:
            negative.add((str(e.get("pid")), e.get("name")))
        key = (str(e.get("pid")), e.get("name"))
        out.append((key[0], None if key in negative else str(tid), key[1], round(float(e["ts"]) * 1000)))
    return out


def wall_clock(tracecat, path):
    out = subprocess.run([tracecat, "info", "-q", path], capture_output=True, text=True).stdout
    return [line.strip() for line in out.splitlines() if line.strip().startswith("wall clock:")]


def check(tracecat, path, tmp):
    out = os.path.join(tmp, "out.json")
    r = subprocess.run([tracecat, "convert", "-q", path, "--to", "kineto", "-o", out],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return [f"{path}: convert failed: {r.stderr.strip()}"]
    src, got = load(path), load(out)
    errors = [f"{path}: top-level {k} differs" for k in src if k not in OWN and got.get(k) != src[k]]
    negative = set()
    want_x = sorted(x_events(src, negative), key=str)
    got_x = sorted(x_events(got, negative), key=str)
    if want_x != got_x:
        missing = sorted(set(want_x) - set(got_x))[:3]
        errors.append(f"{path}: X events differ ({len(want_x)} vs {len(got_x)}), e.g. {missing}")
    if wall_clock(tracecat, path) != wall_clock(tracecat, out):
        errors.append(f"{path}: wall clock {wall_clock(tracecat, out)}, want {wall_clock(tracecat, path)}")
    print(f"{path}: {len(src) - 1} top-level keys, {len(want_x)} X events" + ("" if errors else ": ok"))
    return errors


def main():
    tracecat, paths = sys.argv[1], sys.argv[2:]
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            errors += check(tracecat, path, tmp)
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
