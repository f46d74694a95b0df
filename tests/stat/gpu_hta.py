#!/usr/bin/env python3
"""HTA's own expected numbers on HTA's 87 MB MTIA test trace, from tracestat.

HTA's tests/test_trace_analysis.py (test_get_mtia_kernel_breakdown) states the
kernel-type sums of tests/data/mtia_trace_single_rank/mtia_rank_0.json.gz:
computation 7305597 us, memory 400892 us (HTA rounds to whole microseconds,
hence --hta-rounding), and of its kernel table (the top kernels per rank and
type and the "others", sorted by type, name, rank) row 0, COMPUTATION,
77283 us, and row 11, MEMORY, 400892 us; test_get_mtia_queue_length_stats states stream 102's
queue length: 6 points, mean 0.5, max 1, 1060 us at the max;
test_mtia_temporal_breakdown asserts the idle, compute and non-compute shares
of span 13328347 us (idle 5648827, compute 7305596, non-compute 373924) within
0.01 percentage points.  HTA's current code, emulated (float64 ceil(ts) and
floor(ts + dur), the rows with a stream, merge_kernel_intervals), gives span
13328071, idle 5649476, compute 7305596 + 1, non-compute 372998 exactly, which
tracestat must equal.  The trace (2.9 MB gzip) is not copied into testdata/:
set TR_HTA_DATA to a checkout's tests/data to run this; skipped (77) otherwise.

test_get_mtia_idle_time_breakdown states streams 1 and 102 and stream 1's host
wait, 417937 us, 0.07 of its idle time; test_get_mtia_kernel_launch_stats_\
inference_single_rank launch 423's CPU 435.2, GPU 124.768 and delay 0 us within
2 us (tracesql's kernel_launch view, when TRACESQL is given).

usage: gpu_hta.py TRACESTAT [TRACESQL]
"""
import json
import os
import subprocess
import sys

HTA_KERNEL_TYPES_US = {"computation": 7305597, "memory": 400892}


def hta_kernel_rows(k):
    """HTA's kernel_breakdown table (include_memory_kernels) from gpu_kernels: the kept kernels
    and each rank and type's others, as (TYPE, name, rank, sum in us) sorted by type, name, rank."""
    types = ("computation", "communication", "memory")
    rows = [(r["type"].upper(), r["name"], r["rank"], r["total_ns"] // 1000) for r in k["by_rank"]
            if r["type"] in types and not r["hta_other"]]
    rows += [(o["type"].upper(), "others", o["rank"], o["total_ns"] // 1000) for o in k["hta_others"]
             if o["type"] in types]
    return sorted(rows)


def main():
    data = os.environ.get("TR_HTA_DATA")
    path = os.path.join(data or "", "mtia_trace_single_rank", "mtia_rank_0.json.gz")
    if not data or not os.path.exists(path):
        print("TR_HTA_DATA unset or without mtia_trace_single_rank: skipped")
        return 77
    out = subprocess.run([sys.argv[1], "--section", "gpu-kernels", "--hta-rounding", "--json", path],
                         check=True, capture_output=True, text=True).stdout
    got = {t["type"]: t["total_ns"] for t in json.loads(out)["gpu_kernels"]["types"]}
    want = {k: v * 1000 for k, v in HTA_KERNEL_TYPES_US.items()}
    if got != want:
        print(f"kernel types: HTA says {want} ns, tracestat {got}")
        return 1
    have = hta_kernel_rows(json.loads(out)["gpu_kernels"])
    if (have[0][0], have[0][3], have[11][0], have[11][3]) != ("COMPUTATION", 77283, "MEMORY", 400892):
        print(f"kernel breakdown rows 0 and 11: HTA says COMPUTATION 77283 us, MEMORY 400892 us;"
              f" tracestat gives {have[0]}, {have[11]}")
        return 1
    out = subprocess.run([sys.argv[1], "--section", "gpu-breakdown", "--hta-rounding", "--json", path],
                         check=True, capture_output=True, text=True).stdout
    q = {q["tid"]: q for q in json.loads(out)["gpu_breakdown"]["queues"]}[408]  # Stream 102 FW
    have = (q["points"], q["mean"], q["max"], q["at_max_ns"])
    if have != (6, 0.5, 1, 1060000):
        print(f"stream 102 queue: HTA says (6, 0.5, 1, 1060000), tracestat {have}")
        return 1
    streams = {s["tid"]: s for s in json.loads(out)["gpu_breakdown"]["streams"]}
    if set(streams) != {4, 408} or streams[4]["host_wait_ns"] != 417937000 or \
            round(streams[4]["host_wait_ns"] / streams[4]["idle_ns"], 2) != 0.07:
        print(f"idle time: HTA says streams 1 and 102 (tids 4, 408), stream 1 host wait 417937 us"
              f" (0.07 of its idle time); tracestat {streams}")
        return 1
    if len(sys.argv) > 2:
        row = subprocess.run([sys.argv[2], path, "SELECT cpu_dur, gpu_dur, launch_delay FROM kernel_launch"
                              " WHERE correlation = 423"], check=True, capture_output=True, text=True).stdout
        have = tuple(int(v) for v in row.split())
        if any(abs(h - w) > 2000 for h, w in zip(have, (435200, 124768, 0))) or len(have) != 3:
            print(f"launch 423: HTA says cpu 435.2, gpu 124.768, delay 0 us (+-2); kernel_launch {have} ns")
            return 1
    dev = json.loads(out)["gpu_breakdown"]["devices"][0]
    span = dev["last_ns"] - dev["first_ns"]
    have = (span, dev["idle_ns"], dev["compute_ns"], dev["non_compute_ns"])
    want = tuple(v * 1000 for v in (13328071, 5649476, 7305597, 372998))
    if have != want:
        print(f"temporal breakdown: HTA's code gives {want} ns, tracestat {have}")
        return 1
    for name, ns, stated in (("idle", dev["idle_ns"], 5648827), ("compute", dev["compute_ns"], 7305596),
                             ("non-compute", dev["non_compute_ns"], 373924)):
        if abs(100 * ns / span - round(stated * 100 / 13328347, 3)) > 0.01:
            print(f"{name} share: {100 * ns / span:.4f} %, HTA's test wants {stated * 100 / 13328347:.4f}")
            return 1
    print("kernel type sums and table, idle time, launch 423, stream 102's queue length and the temporal"
          " breakdown equal HTA's")
    return 0


if __name__ == "__main__":
    sys.exit(main())
