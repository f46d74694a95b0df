#!/usr/bin/env python3
"""Independent check of tracestat's gpu-breakdown and gpu-kernels sections.

Reads a Kineto trace's JSON itself (times as exact decimals, in ns) and
computes Holistic Trace Analysis's definitions from the events:

  GPU events   ph X of cat kernel, gpu_memcpy, gpu_memset, cuda_sync or
               mtia_ccp_events with a "stream" arg; with --hta-rounding the
               start is rounded up and the end down to whole microseconds
  kernel type  HTA's regular expressions (hta/common/types.py), in HTA's order
  temporal     per pid: span first..last, busy = union, compute = union of
               computation events, idle = span - busy
  idle classes per (pid, tid), cuda_sync left out, in start order: the gap
               to the previous event's end; host wait when the launching
               runtime event (same "correlation" arg, not on a GPU stream)
               started after that end, kernel wait when gap < 30 us, other
  queues       per (pid, tid), cuda_sync left out, events with a launch: +1 at
               the launch, -1 at the event's start, +1 first at equal times;
               points, max, mean of the lengths, time at the max
  kernels      per name (cuda_sync left out): count, total, min, max
  memory bw    per rank (distributedInfo) and kind (Memset, the first 11
               characters of a Memcpy name, else Memcpy Unknown), the memory
               events but cuda_sync: +"memory bandwidth (GB/s)" at the start,
               - at the end (zero-length: 1 ns later, 1 us with rounding), in
               time order, ends first, then file order; the running sum is a
               point (0 while none runs); count, mean, std (n - 1), min,
               linear quartiles and max of the positive points
  launches     per event with a launch (cuda_sync left out): cpu = the call's
               duration, gpu = the event's, delay = start - call end (>= 0);
               short (cpu <= 50 us, gpu < cpu), runtime outliers (cpu > 50 us),
               delay outliers (> 100 us, longest first)

Compares everything with `tracestat --section gpu-breakdown,gpu-kernels --json`;
with --tracesql, also the per-type counts and times of tracesql's gpu_kernel view
(exact times) and the row count of its kernel_launch view (GPU events whose
correlation a CUDA runtime slice shares).

With --seq-op TEXT, also the frequent kernel sequences of gpu-kernels (HTA's
get_frequent_cuda_kernel_sequences): per thread, the CPU slices (not device
events, not gpu_user_annotation) nest by time (ts ascending, longer first);
the roots are those whose name contains TEXT at the shallowest depth any such
slice has; a root's kernels are the GPU events whose launch is the root or
nested under it, in start order; roots with 3 kernels or more count, per
pattern "op|kernel|...": roots, their CPU time, their kernels' GPU time.

The kernel breakdown per rank (gpu_kernels.by_rank) is checked too; with
--also TRACE2 (another rank's trace) on the two traces read together.

usage: gpu_breakdown.py TRACESTAT TRACE [--hta-rounding] [--tracesql TRACESQL] [--seq-op TEXT]
                        [--also TRACE2]
"""
import decimal
import gzip
import itertools
import json
import math
import re
import subprocess
import sys

COMM = re.compile(r"(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)")
MEMORY = re.compile(r"(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)")
NOT_COMPUTE = re.compile(
    r"(^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|(cuda.*LaunchKernel)"
    r"|(^runFunction)|(^hip)|(^job_exe)|(^packet)|(^pe_exe)|(^cpum_exe_subgraph)|(^hccl)"
    r"|(^collective_subgraph_execution)")
STEP = re.compile(r"ProfilerStep#\d")
TYPES = ["communication", "memory", "computation", "other"]
DEVICE = {"kernel", "gpu_memcpy", "gpu_memset", "cuda_sync", "mtia_ccp_events"}


def ktype(name):
    if COMM.match(name):
        return "communication"
    if MEMORY.match(name):
        return "memory"
    return "other" if NOT_COMPUTE.match(name) else "computation"


def ns(v):
    return int((decimal.Decimal(v) * 1000).to_integral_value())


def union(iv):
    total, cur = 0, None
    for s, e in sorted(iv):
        if cur and s <= cur[1]:
            cur[1] = max(cur[1], e)
        else:
            if cur:
                total += cur[1] - cur[0]
            cur = [s, e]
    return total + (cur[1] - cur[0] if cur else 0)


def load(path, hta):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=decimal.Decimal)
    evs = doc["traceEvents"] if isinstance(doc, dict) else doc
    gpu, launch, cpu, rows = [], {}, [], []
    rank = doc.get("distributedInfo", {}).get("rank", -1) if isinstance(doc, dict) else -1
    for n, e in enumerate(evs):
        if e.get("ph") != "X":
            continue
        args = e.get("args") or {}
        if not (e.get("cat") in DEVICE and "stream" in args):
            b, end = ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))
            if hta:
                b, end = -((-b) // 1000) * 1000, end // 1000 * 1000
            rows.append((b, max(b, end), STEP.match(e["name"]) is not None))
        if e.get("cat") in DEVICE and "stream" in args:
            s, end = ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))
            if hta:
                s, end = -((-s) // 1000) * 1000, end // 1000 * 1000
            gpu.append(dict(pid=e["pid"], tid=e["tid"], name=e["name"], s=s, e=max(s, end),
                            sync=e["cat"] == "cuda_sync", corr=args.get("correlation"),
                            rank=rank, n=n, bw=float(args.get("memory bandwidth (GB/s)", 0))))
            continue
        if e.get("cat") != "gpu_user_annotation":
            b, end = ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))
            if hta:
                b, end = -((-b) // 1000) * 1000, end // 1000 * 1000
            cpu.append(dict(pid=e["pid"], tid=e["tid"], name=e["name"], ts=ns(e["ts"]),
                            dur=ns(e.get("dur", 0)), n=n, cpu_dur=max(end - b, 0),
                            corr=args.get("correlation"), b=b, kept=True))
        if "correlation" in args:
            lt, le = ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))
            if hta:
                lt, le = -((-lt) // 1000) * 1000, le // 1000 * 1000
            launch.setdefault(args["correlation"], (lt, max(lt, le)))
    return gpu, launch, cpu, rank, rows


def step_filter(loaded, mode):
    """HTA's profiler-step filter over the loaded files (each one rank), in place."""
    names = set()
    for path in loaded["paths"]:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            doc = json.load(f)
        evs = doc["traceEvents"] if isinstance(doc, dict) else doc
        names |= {e["name"] for e in evs if e.get("ph") == "X" and STEP.match(e.get("name", ""))}
    if mode == "all" or len(names) < 2:
        return
    for gpu, launch, cpu, _, rows in loaded["data"]:
        if not rows:
            continue
        steps = [r for r in rows if r[2]]
        if mode == "last":
            cut = max(r[1] for r in (steps or rows))
            kept = lambda b: b <= cut  # noqa: E731
        else:
            cut = max(r[0] for r in steps) if steps else min(r[0] for r in rows)
            kept = lambda b: b < cut  # noqa: E731
        gpu[:] = [g for g in gpu if g["corr"] in launch and kept(launch[g["corr"]][0])]
        for c in cpu:
            c["kept"] = kept(c["b"])


def numpy_quantile(v, q):
    """numpy's default (linear) quantile, as pandas' Series.quantile calls it."""
    idx = len(v) * q + (1 + q * -1) - 1
    lo = math.floor(idx)
    a, b = v[lo], v[min(lo + 1, len(v) - 1)]
    g = idx - lo
    return b - (b - a) * (1 - g) if g >= 0.5 else a + (b - a) * g


def hta_others(rows):
    """HTA's _aggr_gpu_kernel_time (10 kernels, ratio 0.8) per rank and type of by_rank rows."""
    groups, flags, others = {}, {}, []
    for (rank, name), k in rows.items():
        groups.setdefault((rank, k["type"]), []).append((-k["total_ns"], name, k))
    for (rank, ty), g in sorted(groups.items(), key=lambda x: (x[0][0], TYPES.index(x[0][1]))):
        g.sort(key=lambda x: (x[0], x[1].encode()))
        if len(g) <= 10:
            flags.update({(rank, name): False for _, name, _ in g})
            continue
        cum = list(itertools.accumulate(k["total_ns"] for _, _, k in g))
        q = numpy_quantile(cum, 0.8)
        o = dict(rank=rank, type=ty, names=0, count=0, total_ns=0)
        for i, (_, name, k) in enumerate(g):
            flags[(rank, name)] = cum[i] > q or i >= 10
            if flags[(rank, name)]:
                o["names"] += 1
                o["count"] += k["count"]
                o["total_ns"] += k["total_ns"]
        others.append(o)
    return flags, others


def memkind(name):
    if name.startswith("Memset"):
        return "Memset"
    return name[:11] if name.startswith("Memcpy") else "Memcpy Unknown"


def quantile(v, q):
    pos = q * (len(v) - 1)
    lo = int(pos)
    return v[lo] + (v[lo + 1] - v[lo]) * (pos - lo) if lo + 1 < len(v) else v[lo]


def membw(gpu, unit):
    steps = {}
    for g in gpu:
        if g["sync"] or ktype(g["name"]) != "memory":
            continue
        st = steps.setdefault((g["rank"], memkind(g["name"])), [])
        end = g["e"] if g["e"] > g["s"] else g["s"] + unit
        st += [(g["s"], 1, g["n"], g["bw"]), (end, 0, g["n"], -g["bw"])]
    out = {}
    for key, st in steps.items():
        st.sort()
        run, running, pts = 0.0, 0, []
        for _, start, _, bw in st:
            run += bw
            running += 1 if start else -1
            if not running:
                run = 0.0
            if run > 0:
                pts.append(run)
        row = dict(events=len(st) // 2, points=len(pts))
        if pts:
            mean = sum(pts) / len(pts)
            std = (sum((x - mean) ** 2 for x in pts) / (len(pts) - 1)) ** 0.5 if len(pts) > 1 else None
            pts.sort()
            row.update(mean_gbps=mean, std_gbps=std, min_gbps=pts[0], p25_gbps=quantile(pts, 0.25),
                       p50_gbps=quantile(pts, 0.5), p75_gbps=quantile(pts, 0.75), max_gbps=pts[-1])
        out[key] = row
    return out


def sequences(gpu, cpu, rank, op, min_kernels=3):
    threads = {}
    for c in cpu:
        threads.setdefault((c["pid"], c["tid"]), []).append(c)
    for evs in threads.values():
        evs.sort(key=lambda c: (c["ts"], -c["dur"], c["n"]))
        stack = []
        for c in evs:
            while stack and stack[-1]["ts"] + stack[-1]["dur"] <= c["ts"]:
                stack.pop()
            c["depth"], c["parent"] = len(stack), stack[-1] if stack else None
            stack.append(c)
    by_corr = {}
    for c in cpu:
        if c["corr"] is not None:
            by_corr.setdefault(c["corr"], c)
    matches = [c for c in cpu if op in c["name"] and c["kept"]]
    if not matches:
        return []
    top = min(c["depth"] for c in matches)
    kernels = {}
    for g in gpu:
        c = by_corr.get(g["corr"])
        while c is not None and c["depth"] > top:
            c = c["parent"]
        if c is not None and c["depth"] == top and op in c["name"] and c["kept"]:
            kernels.setdefault(c["n"], (c, []))[1].append(g)
    pats = {}
    for root, ks in kernels.values():
        if len(ks) < min_kernels:
            continue
        ks.sort(key=lambda g: (g["s"], g["n"]))
        key = (root["name"],) + tuple(g["name"] for g in ks)
        p = pats.setdefault(key, dict(rank=rank, count=0, cpu_ns=0, gpu_ns=0, op=key[0],
                                      kernels=list(key[1:])))
        p["count"] += 1
        p["cpu_ns"] += root["cpu_dur"]
        p["gpu_ns"] += sum(g["e"] - g["s"] for g in ks)
    return sorted(pats.values(), key=lambda p: (-p["count"], "|".join([p["op"]] + p["kernels"])))


def by_rank(gpu):
    out = {}
    for g in gpu:
        if g["sync"]:
            continue
        d = g["e"] - g["s"]
        k = out.setdefault((g["rank"], g["name"]), dict(type=ktype(g["name"]), count=0, total_ns=0,
                                                       min_ns=d, max_ns=d))
        k["count"] += 1
        k["total_ns"] += d
        k["min_ns"], k["max_ns"] = min(k["min_ns"], d), max(k["max_ns"], d)
    return out


def got_others(got):
    flags = {(k["rank"], k["name"]): k["hta_other"] for k in got["gpu_kernels"]["by_rank"]}
    return flags, got["gpu_kernels"]["hta_others"]


def got_by_rank(got):
    return {(k["rank"], k["name"]): {f: k[f] for f in ("type", "count", "total_ns", "min_ns", "max_ns")}
            for k in got["gpu_kernels"]["by_rank"]}


def expected(gpu, launch):
    devices, streams, kernels = {}, {}, {}
    for pid in sorted({g["pid"] for g in gpu}, key=str):
        ev = [g for g in gpu if g["pid"] == pid]
        first, last = min(g["s"] for g in ev), max(g["e"] for g in ev)
        busy = union([(g["s"], g["e"]) for g in ev])
        comp = union([(g["s"], g["e"]) for g in ev if ktype(g["name"]) == "computation"])
        devices[str(pid)] = dict(events=len(ev), first_ns=first, last_ns=last, busy_ns=busy,
                                 idle_ns=last - first - busy, compute_ns=comp,
                                 non_compute_ns=busy - comp)
    for key in {(g["pid"], g["tid"]) for g in gpu if not g["sync"]}:
        ev = sorted((g for g in gpu if (g["pid"], g["tid"]) == key and not g["sync"]),
                    key=lambda g: (g["s"], g["e"]))
        t = {"host_wait": [0, 0], "kernel_wait": [0, 0], "other": [0, 0]}
        for prev, g in zip(ev, ev[1:]):
            gap = g["s"] - prev["e"]
            if gap <= 0:
                continue
            lt = launch.get(g["corr"], (None,))[0]
            c = "host_wait" if lt is not None and lt > prev["e"] else \
                "kernel_wait" if gap < 30000 else "other"
            t[c][0] += gap
            t[c][1] += 1
        row = {"idle_ns": sum(v[0] for v in t.values())}
        for c, (time, n) in t.items():
            row[c + "_ns"], row[c + "_gaps"] = time, n
        streams[(str(key[0]), str(key[1]))] = row
    queues = {}
    for key in {(g["pid"], g["tid"]) for g in gpu if not g["sync"]}:
        steps = []
        for g in gpu:
            if (g["pid"], g["tid"]) == key and not g["sync"] and g["corr"] in launch:
                steps += [(launch[g["corr"]][0], -1), (g["s"], 1)]  # sorts +1 (-1 here) first
        if not steps:
            continue
        steps.sort()
        lens, n = [], 0
        for _, d in steps:
            n -= d
            lens.append(n)
        top = max(lens)
        at = sum(steps[i + 1][0] - steps[i][0] for i in range(len(steps) - 1) if lens[i] == top)
        queues[(str(key[0]), str(key[1]))] = dict(points=len(steps), max=top, at_max_ns=at,
                                                  mean=sum(lens) / len(lens))
    for g in gpu:
        if g["sync"]:
            continue
        d = g["e"] - g["s"]
        k = kernels.setdefault(g["name"], dict(type=ktype(g["name"]), count=0, total_ns=0,
                                               min_ns=d, max_ns=d))
        k["count"] += 1
        k["total_ns"] += d
        k["min_ns"], k["max_ns"] = min(k["min_ns"], d), max(k["max_ns"], d)
    la = dict(count=0, cpu_ns=0, gpu_ns=0, delay_ns=0, delay_max_ns=0, short_kernels=0,
              runtime_outliers=0, delay_outliers=[])
    for g in gpu:
        if g["sync"] or g["corr"] not in launch:
            continue
        lt, le = launch[g["corr"]]
        cpu, gd, delay = le - lt, g["e"] - g["s"], max(g["s"] - le, 0)
        la["count"] += 1
        la["cpu_ns"] += cpu
        la["gpu_ns"] += gd
        la["delay_ns"] += delay
        la["delay_max_ns"] = max(la["delay_max_ns"], delay)
        la["short_kernels"] += cpu <= 50000 and gd < cpu
        la["runtime_outliers"] += cpu > 50000
        if delay > 100000:
            la["delay_outliers"].append(delay)
    la["delay_outliers"].sort(reverse=True)
    return devices, streams, queues, kernels, la


def arg(name, default=None):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def check_sql(path, sql, op, check):
    """tracesql's views: gpu_kernel, kernel_launch, memory_bw and kernel_sequence (no step filter)."""
    gpu, launch, cpu, rank, _ = load(path, False)
    kernels = expected(gpu, launch)[3]
    q = ("SELECT kernel_type, count(*), sum(dur) FROM gpu_kernel WHERE category <> 'cuda_sync'"
         " GROUP BY 1 ORDER BY 1; SELECT 'launches', count(*), 0 FROM kernel_launch")
    rows = subprocess.run([sql, path, q], check=True, capture_output=True, text=True).stdout
    have = {r.split("\t")[0]: tuple(map(int, r.split("\t")[1:])) for r in rows.splitlines()}
    want = {}
    for k in kernels.values():
        c, t = want.get(k["type"], (0, 0))
        want[k["type"]] = (c + k["count"], t + k["total_ns"])
    want["launches"] = (sum(1 for g in gpu if g["corr"] in launch), 0)
    check("gpu_kernel/kernel_launch views", want, have)
    q = ("SELECT coalesce(rank, -1), kind, count(*), max(memory_bw_gbps) FROM memory_bw GROUP BY 1, 2"
         " ORDER BY 1, 2")
    rows = subprocess.run([sql, path, q], check=True, capture_output=True, text=True).stdout
    have = {}
    for r in rows.splitlines():
        f = r.split("\t")
        have[(int(f[0]), f[1])] = (int(f[2]), float(f"{float(f[3]):.12g}"))
    want = {k: (2 * v["events"], float(f"{v.get('max_gbps', 0.0):.12g}"))
            for k, v in membw(gpu, 1).items()}
    check("memory_bw view (steps, max)", want, have)
    q = ("SELECT coalesce(p.pid, -1), t.tid, count(*), max(q.queue_length) FROM queue_length q"
         " JOIN track t ON t.id = q.track_id JOIN process p ON p.upid = q.upid GROUP BY 1, 2")
    rows = subprocess.run([sql, path, q], check=True, capture_output=True, text=True).stdout
    have = {(f[0], f[1]): (int(f[2]), int(f[3])) for f in (r.split("\t") for r in rows.splitlines())}
    want = {k: (v["points"], v["max"]) for k, v in expected(gpu, launch)[2].items()}
    check("queue_length view (points, max)", want, have)
    q = "SELECT rank, count, cpu_dur, gpu_dur, op, kernels FROM kernel_sequence"
    if op != "aten::":  # the views' SQL with another operator, as the README tells users
        root, top = (subprocess.run([sql, path, f"SELECT sql FROM sqlite_master WHERE name = '{v}'"],
                                    check=True, capture_output=True, text=True).stdout.rstrip("\n")
                     for v in ("kernel_sequence_root", "kernel_sequence"))
        root = root.split(" AS ", 1)[1].replace("'aten::'", "'" + op.replace("'", "''") + "'")
        for table in ("slice", "args", "track", "process", "gpu_kernel"):  # not tracesql's shadows
            root = re.sub(rf"\b(FROM|JOIN|IN \(SELECT slice_id FROM) {table}\b", rf"\1 main.{table}", root)
        top = top.split(" AS ", 1)[1].replace("FROM kernel_sequence_root", f"FROM ({root})")
        q = f"SELECT rank, count, cpu_dur, gpu_dur, op, kernels FROM ({top})"
    rows = subprocess.run([sql, path, q], check=True, capture_output=True, text=True).stdout
    have = []
    for r in rows.splitlines():
        f = r.split("\t")
        have.append(dict(rank=int(f[0]), count=int(f[1]), cpu_ns=int(f[2]), gpu_ns=int(f[3]), op=f[4],
                         kernels=f[5].split("|")))
    check("kernel_sequence view", sequences(gpu, cpu, rank, op), have)
    return have


def main():
    tracestat, path = sys.argv[1], sys.argv[2]
    hta = "--hta-rounding" in sys.argv[3:]
    steps = arg("--hta-steps", "complete")
    cmd = [tracestat, "--section", "gpu-breakdown,gpu-kernels", "--json", "--hta-steps", steps]
    seq_op = arg("--seq-op")
    if seq_op:
        cmd += ["--seq-op", seq_op]
    cmd += ["--hta-rounding"] if hta else []
    gpu, launch, cpu, rank, rows = loaded = load(path, hta)
    step_filter(dict(paths=[path], data=[loaded]), steps)
    got = json.loads(subprocess.run(cmd + [path], check=True, capture_output=True, text=True).stdout)
    devices, streams, queues, kernels, launches = expected(gpu, launch)
    bad = 0

    def check(what, want, have):
        nonlocal bad
        if want != have:
            print(f"{path}: {what}: expected {want}, tracestat says {have}")
            bad += 1

    gd = {str(d["pid"]): {k: d[k] for k in devices.get(str(d["pid"]), {})}
          for d in got["gpu_breakdown"]["devices"]}
    check("devices", devices, gd)
    gs = {}
    for s in got["gpu_breakdown"]["streams"]:
        gs[(str(s["pid"]), str(s["tid"]))] = {k: v for k, v in s.items() if k.endswith(("_ns", "_gaps"))}
    check("streams", streams, gs)
    gq = {}
    for q in got["gpu_breakdown"]["queues"]:
        gq[(str(q["pid"]), str(q["tid"]))] = {k: q[k] for k in ("points", "max", "at_max_ns", "mean")}
    for q in list(gq.values()) + list(queues.values()):
        q["mean"] = round(q["mean"], 9)
    check("queues", queues, gq)
    check("kernels per rank", by_rank(gpu), got_by_rank(got))
    check("HTA's others", hta_others(by_rank(gpu)), got_others(got))
    if "--also" in sys.argv:
        other = arg("--also")
        both = json.loads(subprocess.run(cmd[:1] + cmd[3:] + ["--section", "gpu-kernels", path, other],
                                         check=True, capture_output=True, text=True).stdout)
        both_loaded = [load(path, hta), load(other, hta)]
        step_filter(dict(paths=[path, other], data=both_loaded), steps)
        want = by_rank(both_loaded[0][0] + both_loaded[1][0])
        check("kernels per rank of both traces", want, got_by_rank(both))
        check("HTA's others of both traces", hta_others(want), got_others(both))
        # launches are joined per input (HTA: per rank): correlation ids repeat across ranks
        check("launches of both traces", sum(expected(d[0], d[1])[4]["count"] for d in both_loaded),
              both["gpu_kernels"]["launches"]["count"])
        if "--tracesql" in sys.argv:
            rows = subprocess.run([arg("--tracesql"), path, other, "SELECT count(*) FROM kernel_launch"],
                                  check=True, capture_output=True, text=True).stdout
            plain = [load(f, False) for f in (path, other)]
            check("kernel_launch view of both traces",
                  sum(1 for gpu_, launch_, *_ in plain for g in gpu_ if g["corr"] in launch_), int(rows))
        if len({k[0] for k in want}) < 2:
            print(f"{path}, {other}: one rank only")
            bad += 1
    if seq_op:
        want = sequences(gpu, cpu, rank, seq_op)
        check("kernel sequences", want, got["gpu_kernels"]["sequences"]["patterns"])
        if not want:
            print(f"{path}: no sequences of {seq_op}")
            bad += 1
    want_bw = membw(gpu, 1000 if hta else 1)
    have_bw = {}
    for m in got["gpu_breakdown"]["memory_bw"]:
        have_bw[(m["rank"], m["kind"])] = {k: v for k, v in m.items() if k not in ("rank", "kind")
                                           and (m["points"] or not k.endswith("_gbps"))}
    for row in list(want_bw.values()) + list(have_bw.values()):
        for k, v in row.items():
            row[k] = float(f"{v:.12g}") if isinstance(v, float) else v
    check("memory bandwidth", want_bw, have_bw)
    gk = {k["name"]: {f: k[f] for f in ("type", "count", "total_ns", "min_ns", "max_ns")}
          for k in got["gpu_kernels"]["kernels"]}
    check("kernels", kernels, gk)
    gl = dict(got["gpu_kernels"]["launches"])
    gl["delay_outliers"] = [o["delay_ns"] for o in gl["delay_outliers"]]
    check("launches", launches, gl)
    if "--tracesql" in sys.argv:
        view = check_sql(path, arg("--tracesql"), seq_op or "aten::", check)
        plain = subprocess.run([tracestat, "--section", "gpu-kernels", "--json", "--hta-steps", "all",
                                "--seq-op", seq_op or "aten::", path],
                               check=True, capture_output=True, text=True).stdout
        check("kernel_sequence view against tracestat --hta-steps all", view,
              json.loads(plain)["gpu_kernels"]["sequences"]["patterns"])
    seqs = f", {len(got['gpu_kernels']['sequences']['patterns'])} sequences" if seq_op else ""
    print(f"{path}: {len(devices)} devices, {len(streams)} streams, {len(kernels)} kernels{seqs}; "
          f"{'ok' if not bad else str(bad) + ' mismatches'}")
    return 1 if bad or not devices else 0


if __name__ == "__main__":
    sys.exit(main())
