"""tracesniff benchmark (not a ctest test): prints figures.

  python3 bench.py BUILD_DIR [PYTHON]

1. The cost of one sample of a process with 8 threads x 50 frames, as
   tracesniff --stats measures it (median and p99 over ~400 samples at
   100 Hz), Python stacks only, --blocking and --native.
2. The slowdown of a CPU-bound Python loop sampled at 100 Hz: interleaved
   pairs (plain run, sampled run) of the same fixed work; the median of the
   per-pair ratios of wall-clock time and of the loop's own CPU time (the
   latter does not count time other processes took the CPU: on a shared,
   loaded machine it is the steadier figure), Python stacks only and --native.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def find_python():
    if len(sys.argv) > 2:
        return sys.argv[2]
    try:
        root = subprocess.run(["pyenv", "root"], capture_output=True, text=True).stdout.strip()
    except OSError:
        root = os.path.expanduser("~/.pyenv")
    for v in ("3.12.1", "3.11.7", "3.13.0"):
        p = os.path.join(root, "versions", v, "bin", "python3")
        if os.path.exists(p):
            return p
    return "/usr/bin/python3.11"


def sample_cost(sniff, py, extra):
    target = subprocess.Popen([py, os.path.join(HERE, "deep_threads.py"), "60"], stdout=subprocess.PIPE, text=True)
    try:
        target.stdout.readline()
        time.sleep(0.3)
        with tempfile.TemporaryDirectory() as d:
            r = subprocess.run([sniff, "-p", str(target.pid), "-r", "100", "-d", "4", "--stats",
                                "-o", os.path.join(d, "o.txt")] + extra,
                               capture_output=True, text=True, timeout=60)
            m = re.search(r"(\d+) samples; one sample of a process: median ([\d.]+) us, p99 ([\d.]+) us", r.stderr)
            if not m:
                raise SystemExit("no --stats line: " + r.stderr)
            with open(os.path.join(d, "o.txt")) as f:
                text = f.read()
            frames = text.split("#tracecat-dump")[-1].count("\n    ")
            return int(m.group(1)), float(m.group(2)), float(m.group(3)), frames
    finally:
        target.kill()
        target.wait()


def timed(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    m = re.search(r"^([\d.]+) ([\d.]+)$", r.stdout, re.M)
    if not m:
        raise SystemExit("no time from %r: %s %s" % (cmd, r.stdout, r.stderr))
    return float(m.group(1)), float(m.group(2))


def slowdown(sniff, py, extra, pairs=9, work="20000000"):
    wall, cpu = [], []
    with tempfile.TemporaryDirectory() as d:
        for _ in range(pairs):
            bw, bc = timed([py, os.path.join(HERE, "spin.py"), work])
            sw, sc = timed([sniff, "-q", "-r", "100", "-o", os.path.join(d, "s.txt")] + extra +
                           ["--", py, os.path.join(HERE, "spin.py"), work])
            wall.append(sw / bw)
            cpu.append(sc / bc)
    return statistics.median(wall), statistics.median(cpu), wall


def main():
    build = sys.argv[1]
    sniff = os.path.join(build, "tracesniff")
    py = find_python()
    ver = subprocess.run([py, "-c", "import platform; print(platform.python_version())"],
                         capture_output=True, text=True).stdout.strip()
    print("tracesniff benchmark, Python %s (%s), %d CPUs" % (ver, py, os.cpu_count()))
    print()
    print("one sample of a process, 8 threads x 50 frames, at 100 Hz:")
    print("| mode | samples | frames/sample | median us | p99 us |")
    print("|---|---|---|---|---|")
    for name, extra in (("Python only (default)", []), ("--blocking", ["--blocking"]),
                        ("--native", ["--native"])):
        n, med, p99, frames = sample_cost(sniff, py, extra)
        print("| %s | %d | %d | %.1f | %.1f |" % (name, n, frames, med, p99))
    print()
    print("slowdown of a CPU-bound loop sampled at 100 Hz (9 interleaved pairs):")
    print("| mode | median wall-clock slowdown | median CPU-time slowdown | wall-clock ratios |")
    print("|---|---|---|---|")
    for name, extra in (("Python only (default)", []), ("--native", ["--native"])):
        wall, cpu, ratios = slowdown(sniff, py, extra)
        print("| %s | %+.2f%% | %+.2f%% | %s |" % (name, (wall - 1) * 100, (cpu - 1) * 100,
                                                   " ".join("%.3f" % r for r in ratios)))
    print()
    print("load average while measuring: %.1f %.1f %.1f" % os.getloadavg())


if __name__ == "__main__":
    main()
