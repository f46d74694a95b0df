#!/usr/bin/env python3
"""Helpers for run.sh: a timing loop for machines without hyperfine, and the result table.

    bench.py time --warmup W --runs R --json OUT -- COMMAND     time `bash -c COMMAND`; hyperfine-shaped JSON
    bench.py report MANIFEST                                     print the table and the targets

MANIFEST is run.sh's tab-separated list: a `input<TAB>PATH<TAB>BYTES<TAB>LINES` line, then one
`row<TAB>NAME<TAB>TIMING_JSON<TAB>TIME_V_FILE<TAB>EXIT_STATUS` line per measured command.
"""

import json
import re
import statistics
import subprocess
import sys
import time

MB = 1e6  # throughput is in decimal megabytes per second
MIB = 1024 * 1024

TARGET_INFO_MBPS = 300.0
TARGET_INFO_VS_AWK = 0.5
TARGET_CONVERT_VS_PYTHON = 2.0
TARGET_RSS_FACTOR = 1.5
TARGET_RSS_SLACK = 32 * MIB


def time_command(argv):
    warmup, runs, out, cmd = 1, 5, None, None
    i = 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            cmd = " ".join(argv[i + 1 :])
            break
        if a in ("--warmup", "--runs", "--json") and i + 1 < len(argv):
            if a == "--warmup":
                warmup = int(argv[i + 1])
            elif a == "--runs":
                runs = int(argv[i + 1])
            else:
                out = argv[i + 1]
            i += 2
            continue
        sys.stderr.write(f"bench.py time: bad argument {a!r}\n")
        return 2
    if not cmd or not out or runs < 1:
        sys.stderr.write("usage: bench.py time --warmup W --runs R --json OUT -- COMMAND\n")
        return 2
    times = []
    for n in range(warmup + runs):
        t0 = time.perf_counter()
        rc = subprocess.run(["bash", "-c", cmd], stdout=subprocess.DEVNULL).returncode
        dt = time.perf_counter() - t0
        if rc != 0:
            sys.stderr.write(f"bench.py time: command exited with status {rc}: {cmd}\n")
            return 1
        if n >= warmup:
            times.append(dt)
    result = {
        "command": cmd,
        "mean": statistics.fmean(times),
        "stddev": statistics.stdev(times) if len(times) > 1 else 0.0,
        "median": statistics.median(times),
        "min": min(times),
        "max": max(times),
        "times": times,
    }
    with open(out, "w") as f:
        json.dump({"results": [result]}, f, indent=1)
    return 0


def read_rss(path):
    """Peak RSS in bytes from a `/usr/bin/time -v` report, or None."""
    try:
        with open(path) as f:
            m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", f.read())
    except OSError:
        return None
    return int(m.group(1)) * 1024 if m else None


def read_timing(path):
    try:
        with open(path) as f:
            r = json.load(f)["results"][0]
    except (OSError, ValueError, KeyError, IndexError):
        return None
    return r


def fmt_bytes(n):
    return "n/a" if n is None else f"{n / MIB:.1f} MiB"


def verdict(ok):
    return "PASS" if ok else "MISS"


def report(argv):
    if len(argv) != 1:
        sys.stderr.write("usage: bench.py report MANIFEST\n")
        return 2
    size = lines = None
    rows = []
    with open(argv[0]) as f:
        for raw in f:
            parts = raw.rstrip("\n").split("\t")
            if parts[0] == "input":
                path, size, lines = parts[1], int(parts[2]), int(parts[3])
            elif parts[0] == "row":
                name, timing, timev, rc = parts[1], parts[2], parts[3], int(parts[4])
                rows.append((name, read_timing(timing) if rc == 0 else None, read_rss(timev), rc))
    print()
    print(f"input: {path}")
    print(f"       {size} bytes ({size / MB:.1f} MB), {lines} lines")
    print()
    head = f"{'pass':<28} {'median s':>9} {'+-':>7} {'MB/s':>8} {'Mlines/s':>9} {'peak RSS':>11}"
    print(head)
    print("-" * len(head))
    res = {}
    for name, t, rss, rc in rows:
        if t is None:
            status = f"failed (exit {rc})" if rc else "no timing"
            print(f"{name:<28} {status:>9}")
            res[name] = (None, rss)
            continue
        med = max(t["median"], 1e-6)  # a timer can report 0 for a run shorter than its resolution
        res[name] = (med, rss)
        print(
            f"{name:<28} {med:9.3f} {t.get('stddev', 0.0) or 0.0:7.3f} {size / MB / med:8.1f} "
            f"{lines / 1e6 / med:9.2f} {fmt_bytes(rss):>11}"
        )
    print()

    def mbps(key):
        med = res.get(key, (None, None))[0]
        return None if not med else size / MB / med

    print("targets:")

    def target(label, value, ok, note=""):
        if value is None:
            print(f"  {label:<50} {'n/a':>14}")
        else:
            print(f"  {label:<50} {value:>14}  {verdict(ok)}  {note}".rstrip())

    info = mbps("tracecat info")
    awk = mbps(next((k for k in res if k.startswith("awk")), ""))
    conv, py = res.get("tracecat convert", (None,))[0], res.get("python regex", (None,))[0]
    target(f"tracecat info >= {TARGET_INFO_MBPS:.0f} MB/s", info and f"{info:.1f} MB/s", info and info >= TARGET_INFO_MBPS)
    r = info / awk if info and awk else None
    target(
        f"tracecat info >= {TARGET_INFO_VS_AWK}x the awk pass",
        r and f"{r:.2f}x",
        r and r >= TARGET_INFO_VS_AWK,
        awk and f"(awk {awk:.1f} MB/s)",
    )
    r = py / conv if py and conv else None
    target(
        f"tracecat convert >= {TARGET_CONVERT_VS_PYTHON:.0f}x the Python pass",
        r and f"{r:.2f}x",
        r and r >= TARGET_CONVERT_VS_PYTHON,
        r and f"(python {py:.3f} s, convert {conv:.3f} s)",
    )
    limit = TARGET_RSS_FACTOR * size + TARGET_RSS_SLACK
    for key in ("tracecat info", "tracecat convert", "tracecat cat"):
        rss = res.get(key, (None, None))[1]
        target(
            f"{key} peak RSS <= 1.5 x input + 32 MiB",
            rss and f"{rss / MIB:.1f} MiB",
            rss and rss <= limit,
            rss and f"(limit {limit / MIB:.1f} MiB; {rss / size:.2f}x input)",
        )
    return 0


def main(argv):
    if len(argv) >= 2 and argv[1] == "time":
        return time_command(argv[2:])
    if len(argv) >= 2 and argv[1] == "report":
        return report(argv[2:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
