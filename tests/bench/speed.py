#!/usr/bin/env python3
"""speed.py [--scale S] [--runs N] [--build DIR] [--base DIR] [--out DIR] [--only ROW,...]: issue 20's table, measured.

Every row of the issue's table is printed with its baseline measured in the same run, on inputs
made by the existing generators (gen_gt.py, chrome/gen_kineto.py, pyspy/gen_pyspy.py and the
bench_recorder writer), kept in --out (default tests/bench/out/) and reused.  A and B are interleaved, each
repeated N times (default 5); the table gives medians and the spread (min-max) of CPU time
(user + sys, from /usr/bin/time), and of wall time for the rows about threads, plus page faults
and peak RSS (GNU time).  Sizes scale with --scale (1 = 1 M GT lines, about 116 MB).  Builds nothing: the
binaries are BUILD/tracecat, BUILD/tests/bench_recorder and, when simdjson is installed,
BUILD/tests/bench_simdjson (default build/; make the last two with their build targets).  With --base DIR, every row
also runs DIR/tracecat (say, main's build) interleaved with the others, and prints its time over the base's
(the rows about threads: the base's own ratio).  A benchmark, not a test: it always exits 0 unless a command fails.

Rows:
  gt        tracecat info LOG          vs mawk -F'|' '{s+=$6}' LOG, and wc -l LOG
  chrome    tracecat info KINETO       vs python3 json.load(KINETO)
  pyspy     tracecat convert DUMPS -o x.folded   vs wc -l DUMPS
  recorder  tracecat info DIR          records/s; 4-rank trace --threads 2 vs 1 (wall)
  sqlite    tracecat convert LOG -o x.db   rows/s vs sqlite3 .import of the same rows (TSV)
  merged    tracecat convert 8 inputs -o x.json  --threads 2 vs 1 (wall)
  parquet   tracecat convert 8 rank files --to parquet  --threads 2 vs 1 (wall)
"""
import argparse
import filecmp
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "out")
MAWK = shutil.which("mawk") or shutil.which("awk")
BASE = None  # --base: another build's tracecat, run beside BUILD's


def run(cmd, stdout=subprocess.DEVNULL, env=None):
    """One run: (cpu s = user + sys, wall s, peak RSS MiB, minor + major page faults), from wait4."""
    rss = tempfile.NamedTemporaryFile("r", suffix=".rss")
    t0 = time.monotonic()
    # GNU time only for the peak RSS: wait4's would count the forked Python before exec.
    p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rss.name] + cmd, stdout=stdout,
                         stderr=subprocess.PIPE, env=env)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        sys.exit("speed.py: failed (exit %d): %s\n%s" % (p.returncode, " ".join(cmd),
                                                         err.decode(errors="replace")[-2000:]))
    kb = int(rss.read().split()[-1])
    rss.close()
    return ru.ru_utime + ru.ru_stime, wall, kb / 1024, ru.ru_minflt + ru.ru_majflt


def remove(path):
    if os.path.isdir(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.remove(path)


def interleave(cmds, runs):
    """Runs each of CMDS (name -> argv, or (argv, env[, output])) RUNS times, interleaved; name -> samples.

    An output named in the tuple is removed before each run, outside its timing: replacing the
    previous run's file costs the kernel its page cache and, on a disk mounted with discard, its
    blocks' discards (40-70 ms for 294 MB here), which no conversion would otherwise pay.  Every other
    round runs in reverse order, so that no command always runs right after another's (a run right
    after the other build's 321 MB write was 3-4 % slower here)."""
    res = {k: [] for k in cmds}
    names = list(cmds)
    for i in range(runs):
        for k in names if i % 2 == 0 else names[::-1]:
            c = cmds[k]
            argv, env, output = (c + (None,) * (3 - len(c))) if isinstance(c, tuple) else (c, None, None)
            if output:
                remove(output)
            res[k].append(run(argv, env=env))
    return res


def med(samples, i):
    v = [s[i] for s in samples]
    return statistics.median(v), min(v), max(v)


def line(label, samples, size=None, unit="MB/s", wall=False):
    """A table row: median cpu (and wall), spread, rate, faults, RSS."""
    c, cl, ch = med(samples, 1 if wall else 0)
    f = statistics.median(s[3] for s in samples)
    rss = max(s[2] for s in samples)
    rate = ""
    if size:
        rate = "%8.1f %s" % (size / c / 1e6, unit)
    kind = "wall" if wall else "cpu"
    print("  %-44s %s %7.3f s [%6.3f-%6.3f] %-14s %9d faults %7.1f MiB" % (label, kind, c, cl, ch, rate,
                                                                           f, rss))
    return c


def ratio(what, a, b, target):
    print("  -> %s: %.2fx (target %s)" % (what, a / b, target))


def gen(path, argv):
    if not os.path.exists(path):
        print("generating %s ..." % path, file=sys.stderr)
        subprocess.run(argv, check=True)
    return path


def inputs(scale):
    os.makedirs(OUT, exist_ok=True)
    py = sys.executable
    lines = int(1000000 * scale)
    steps = int(115000 * scale)
    dumps = int(20000 * scale)
    gt = os.path.join(OUT, "gt-%d.log" % lines)
    if not os.path.exists(gt):
        gen(gt + ".tmp", [py, os.path.join(HERE, "gen_gt.py"), str(lines), gt + ".tmp"])
        os.rename(gt + ".tmp", gt)
    kin = gen(os.path.join(OUT, "kineto-%d.json" % steps),
              [py, os.path.join(HERE, "chrome", "gen_kineto.py"), os.path.join(OUT, "kineto-%d.json" % steps),
               str(steps)])
    spy = gen(os.path.join(OUT, "pyspy-%d.txt" % dumps),
              [py, os.path.join(HERE, "pyspy", "gen_pyspy.py"), "dumps", os.path.join(OUT, "pyspy-%d.txt" % dumps),
               str(dumps), "1"])
    return gt, kin, spy


def with_base(cmds, argv):
    """CMDS with --base's tracecat running ARGV (argv[0] replaced) as "base"."""
    if BASE:
        cmds["base"] = [BASE] + argv[1:]
    return cmds


def base_line(label, r, a, n, unit="MB/s", key="base", wall=False):
    if key in r:
        ratio("tracecat / base", a, line(label + " (base)", r[key], n, unit, wall=wall), "-")


def row_gt(tc, gt, runs):
    print("GT log -> model (%s, %.0f MB)" % (os.path.basename(gt), os.path.getsize(gt) / 1e6))
    r = interleave(with_base({"tc": [tc, "info", gt], "awk": [MAWK, "-F|", "{s+=$6} END {print s}", gt],
                              "wc": ["wc", "-l", gt]}, [tc, "info", gt]), runs)
    n = os.path.getsize(gt)
    a = line("tracecat info", r["tc"], n)
    base_line("tracecat info", r, a, n)
    b = line("mawk column sum", r["awk"], n)
    w = line("wc -l", r["wc"], n)
    ratio("tracecat / mawk", a, b, "<= 0.9")
    ratio("tracecat / wc -l", a, w, "-")


def row_chrome(tc, kin, runs):
    print("Chrome/Kineto -> model (%s, %.0f MB)" % (os.path.basename(kin), os.path.getsize(kin) / 1e6))
    cmds = with_base({"tc": [tc, "info", kin],
                      "py": [sys.executable, "-c", "import json,sys; json.load(open(sys.argv[1]))", kin]},
                     [tc, "info", kin])
    simd = os.path.join(os.path.dirname(tc), "tests", "bench_simdjson")
    if os.path.exists(simd):
        cmds["simd"] = [simd, kin]
    r = interleave(cmds, runs)
    n = os.path.getsize(kin)
    a = line("tracecat info", r["tc"], n)
    base_line("tracecat info", r, a, n)
    b = line("python3 json.load", r["py"], n)
    ratio("python / tracecat (speed-up)", b, a, "-")
    if "simd" in r:
        s = line("simdjson DOM parse (bench_simdjson)", r["simd"], n)
        ratio("tracecat speed / simdjson speed", s, a, ">= 0.4")
    else:
        print("  (simdjson row skipped: no %s; install libsimdjson-dev, reconfigure, build bench_simdjson)"
              % simd)


def row_pyspy(tc, spy, runs):
    print("py-spy dumps -> folded (%s, %.0f MB)" % (os.path.basename(spy), os.path.getsize(spy) / 1e6))
    dst = os.path.join(OUT, "speed-pyspy.folded")
    dst_base = os.path.join(OUT, "speed-pyspy-base.folded")
    r = interleave({"tc": ([tc, "convert", spy, "-o", dst], None, dst), "wc": ["wc", "-l", spy],
                    **({"base": ([BASE, "convert", spy, "-o", dst_base], None, dst_base)} if BASE else {})},
                   runs)
    n = os.path.getsize(spy)
    a = line("tracecat convert -o x.folded", r["tc"], n)
    base_line("tracecat convert -o x.folded", r, a, n)
    if "base" in r and not filecmp.cmp(dst, dst_base, shallow=False):
        sys.exit("speed.py: the folded outputs of tracecat and --base differ")
    line("wc -l", r["wc"], n)


def recorder_trace(bench, ranks, per_rank):
    d = os.path.join(OUT, "recorder-%dx%d" % (ranks, per_rank))
    if not os.path.exists(os.path.join(d, "recorder.mt")):
        os.makedirs(d, exist_ok=True)
        subprocess.run([bench, "gen", d, str(ranks), str(per_rank)], check=True, stdout=subprocess.DEVNULL)
    return d


def row_recorder(tc, build, scale, runs):
    bench = os.path.join(build, "tests", "bench_recorder")
    if not os.path.exists(bench):
        print("Recorder: skipped (build the bench_recorder target)")
        return
    per = int(81920 * scale)
    d64 = recorder_trace(bench, 64, per)
    d4 = recorder_trace(bench, 4, per * 16)
    recs = 64 * per
    print("Recorder -> model (64 ranks x %d records; 4 ranks x %d)" % (per, per * 16))
    argv = [tc, "info", "--threads", "1", d64]
    r = interleave(with_base({"tc": argv}, argv), runs)
    a = line("tracecat info, 64 ranks", r["tc"], recs, "M records/s")
    base_line("tracecat info, 64 ranks", r, a, recs, "M records/s")
    cmds = {"1": [tc, "info", "--threads", "1", d4], "2": [tc, "info", "--threads", "2", d4]}
    if BASE:
        cmds.update({"base1": [BASE] + cmds["1"][1:], "base2": [BASE] + cmds["2"][1:]})
    r = interleave(cmds, runs)
    for t in "12":
        label = "tracecat info, 4 ranks, --threads " + t
        a = line(label, r[t], 4 * per * 16, "M records/s", wall=True)
        base_line(label, r, a, 4 * per * 16, "M records/s", "base" + t, wall=True)
    ratio("threads 1 / threads 2 (speed-up)", med(r["1"], 1)[0], med(r["2"], 1)[0], ">= 1.7")
    if BASE:
        ratio("base: threads 1 / threads 2", med(r["base1"], 1)[0], med(r["base2"], 1)[0], "-")


def db_rows(path):
    """(rows stored in the tables, rows queries see: the args view's for the stored args tables)"""
    con = sqlite3.connect(path)
    try:
        names = [r[0] for r in con.execute("select name from sqlite_master where type='table'")]
        count = {t: con.execute('select count(*) from "%s"' % t).fetchone()[0] for t in names}
        stored = sum(count.values())
        packed = [t for t in names if t.startswith("__intrinsic_arg")]
        if not packed:
            return stored, stored
        return stored, stored - sum(count[t] for t in packed) + con.execute(
            "select count(*) from args").fetchone()[0]
    finally:
        con.close()


def row_sqlite(tc, gt, runs):
    print("SQLite load (%s)" % os.path.basename(gt))
    db = os.path.join(OUT, "speed.db")
    tsv = os.path.join(OUT, "speed.tsv")
    imp = os.path.join(OUT, "speed-import.db")
    with open(tsv, "w") as f:
        subprocess.run([tc, "cat", gt], stdout=f, check=True)
    script = os.path.join(OUT, "speed-import.sql")
    with open(script, "w") as f:
        f.write("pragma journal_mode=off;\npragma synchronous=off;\n"
                "create table events(kind, ts, dur, process, track, category, name, value, args);\n"
                ".mode tabs\n.import %s events\n" % tsv)
    for p in (db, imp):
        if os.path.exists(p):
            os.remove(p)

    based = os.path.join(OUT, "speed-base.db")
    cmds = {"tc": ([tc, "convert", gt, "-o", db], None, db),
            "imp": (["sh", "-c", 'sqlite3 "$0" < "$1"', imp, script], None, imp)}
    if BASE:
        cmds["base"] = ([BASE, "convert", gt, "-o", based], None, based)
    r = interleave(cmds, runs)
    (rows, seen), (irows, _) = db_rows(db), db_rows(imp)
    n = os.path.getsize(gt)
    a = line("tracecat convert -o x.db (%d rows)" % rows, r["tc"], rows, "M rows/s")
    line("  same, as input MB/s", r["tc"], n)
    line("  same, rows queries see (%d: args unpacked)" % seen, r["tc"], seen, "M rows/s")
    if BASE:
        brows, _ = db_rows(based)
        base_line("tracecat convert -o x.db (%d rows)" % brows, r, a, brows, "M rows/s")
    line("sqlite3 .import (%d rows)" % irows, r["imp"], irows, "M rows/s")
    print("  -> tracecat rows/s: %.2f M stored, %.2f M as queried (target >= 2.5 M); GT -> .db %.1f MB/s"
          " (target >= 80)" % (rows / a / 1e6, seen / a / 1e6, n / a / 1e6))


def rank_files(kin_steps):
    py = sys.executable
    kin = gen(os.path.join(OUT, "kineto-%d.json" % kin_steps),
              [py, os.path.join(HERE, "chrome", "gen_kineto.py"), os.path.join(OUT, "kineto-%d.json" % kin_steps),
               str(kin_steps)])
    # Hard links, not symlinks: tracecat reads a file named twice (its real path) once.
    files = []
    for i in range(8):
        p = os.path.join(OUT, "speed-rank%d.json" % i)
        if os.path.lexists(p) and (os.path.islink(p) or not os.path.samefile(p, kin)):
            os.remove(p)
        if not os.path.exists(p):
            os.link(kin, p)
        files.append(p)
    return files


def row_threads(tc, scale, runs, which):
    files = rank_files(int(20000 * scale))
    if which == "merged":
        print("merged conversion of 8 inputs to Chrome JSON")
        dst = os.path.join(OUT, "speed-merged.json")
        cmd = lambda exe, th: ([exe, "convert", "--threads", th] + files + ["-o", dst], None, dst)
    else:
        print("8 rank files to Parquet")
        dst = os.path.join(OUT, "speed-pq") + "/"
        cmd = lambda exe, th: ([exe, "convert", "--threads", th, "--to", "parquet"] + files + ["-o", dst],
                               None, dst)
    cmds = {"1": cmd(tc, "1"), "2": cmd(tc, "2")}
    if BASE:
        cmds.update({"base1": cmd(BASE, "1"), "base2": cmd(BASE, "2")})
    r = interleave(cmds, runs)
    a = line("--threads 1", r["1"], wall=True)
    b = line("--threads 2", r["2"], wall=True)
    line("--threads 1 (cpu)", r["1"])
    line("--threads 2 (cpu)", r["2"])
    ratio("threads 2 / threads 1 (wall)", b, a, "<= 0.6")
    if BASE:
        ba = line("--threads 1 (base)", r["base1"], wall=True)
        bb = line("--threads 2 (base)", r["base2"], wall=True)
        ratio("base: threads 2 / threads 1 (wall)", bb, ba, "-")


def main():
    global OUT, BASE
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--base", help="another build whose tracecat every row runs too, interleaved")
    ap.add_argument("--out", default=OUT, help="where the generated inputs are kept (large at --scale 1)")
    ap.add_argument("--only", default="gt,chrome,pyspy,recorder,sqlite,merged,parquet")
    a = ap.parse_args()
    OUT = os.path.abspath(a.out)
    tc = os.path.abspath(os.path.join(a.build, "tracecat"))
    BASE = os.path.abspath(os.path.join(a.base, "tracecat")) if a.base else None
    gt, kin, spy = inputs(a.scale)
    print("runs %d, interleaved; medians [min-max]; cpu = user + sys" % a.runs)
    for row in a.only.split(","):
        if row == "gt":
            row_gt(tc, gt, a.runs)
        elif row == "chrome":
            row_chrome(tc, kin, a.runs)
        elif row == "pyspy":
            row_pyspy(tc, spy, a.runs)
        elif row == "recorder":
            row_recorder(tc, a.build, a.scale, a.runs)
        elif row == "sqlite":
            row_sqlite(tc, gt, a.runs)
        elif row in ("merged", "parquet"):
            row_threads(tc, a.scale, a.runs, row)
        else:
            sys.exit("speed.py: unknown row '%s'" % row)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
