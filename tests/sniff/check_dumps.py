"""Checks tracesniff dump text (py-spy dump layout, #tracecat-dump blocks).

check_dumps.py FILE MODE [options]
  MODE python TARGET_PY VERSION   the threads of tests/sniff/target.py
  MODE native --module NAME       the call chains of tests/sniff/native_target.c
  MODE readback CAT_OUT FOLDED    FILE (one --once dump) against `tracecat cat`
                                  and `tracecat convert -o x.folded` of it
Options: --min-dumps N, --native-frames (python: native frames merged too),
--pid PID (the main thread id must equal it).
Prints what failed and exits 1; exits 0 when every check holds.
"""
import re
import sys

THREAD = re.compile(r'^Thread (\S+) \((idle|active|active\+gil)\)(?:: "(.*)")?$')
FRAME = re.compile(r'^    (.*) \((.*)\)$')


def parse(path):
    """Dumps as lists of threads: {tid, status, name, frames: [(fn, file, line)]}."""
    dumps, cur, th = [], None, None
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if line.startswith("#tracecat-dump ") or (line.startswith("Process ") and cur is None):
                cur = {"threads": [], "header": [], "errors": []}
                dumps.append(cur)
                th = None
                if line.startswith("Process "):
                    cur["header"].append(line)
                continue
            if cur is None or line.startswith("#"):
                continue
            m = THREAD.match(line)
            if m:
                th = {"tid": m.group(1), "status": m.group(2), "name": m.group(3), "frames": []}
                cur["threads"].append(th)
                continue
            m = FRAME.match(line)
            if m and th is not None:
                loc = m.group(2)
                file, _, ln = loc.rpartition(":")
                if not ln.isdigit():
                    file, ln = loc, "0"
                th["frames"].append((m.group(1), file, int(ln)))
                continue
            if line.startswith("Error: "):
                cur["errors"].append(line)
            elif line:
                cur["header"].append(line)
    return dumps


failures = []


def check(cond, msg):
    if not cond:
        failures.append(msg)
    return cond


def at_lines(target):
    lines = {}
    with open(target, encoding="utf-8") as f:
        for n, text in enumerate(f, 1):
            m = re.search(r"# at:(\w+)$", text.rstrip())
            if m:
                lines[m.group(1)] = n
    return lines


def by_name(dump, name):
    for t in dump["threads"]:
        if t["name"] == name:
            return t
    return None


def py_frames(t):
    return [f for f in t["frames"] if f[1].endswith(".py")]


def starts(frames, want):
    """Do FRAMES begin with WANT (fn, file, line or set of lines)?"""
    if len(frames) < len(want):
        return False
    for (fn, file, line), (wfn, wfile, wline) in zip(frames, want):
        lines = wline if isinstance(wline, (set, frozenset)) else {wline}
        if fn != wfn or file != wfile or line not in lines:
            return False
    return True


def contains_run(frames, names):
    fns = [f[0] for f in frames]
    for i in range(len(fns) - len(names) + 1):
        if fns[i:i + len(names)] == names:
            return True
    return False


def check_python(dumps, target, version, native, pid, min_dumps):
    L = at_lines(target)
    # A program sampled from its start shows its threads only once they run.
    whole = [d for d in dumps if all(by_name(d, n) for n in ("MainThread", "sleeper-thread", "busy-thread"))]
    check(len(whole) >= min_dumps, "%d dumps show all three threads, want %d: %r"
          % (len(whole), min_dumps, [d["threads"] for d in dumps[:3]]))
    for d in dumps:
        for t in d["threads"]:
            check(t["tid"].isdigit() and int(t["tid"]) > 0, "bad thread id: %r" % t)
        check(any(h.startswith("Python v" + version) for h in d["header"]),
              "no 'Python v%s' header line in %r" % (version, d["header"]))
        mt = by_name(d, "MainThread")
        if pid and mt:
            check(mt["tid"] == pid, "MainThread id %s is not the pid %s" % (mt["tid"], pid))
    sleeper = [by_name(d, "sleeper-thread") for d in dumps]
    busy = [by_name(d, "busy-thread") for d in dumps]
    main = [by_name(d, "MainThread") for d in dumps]
    sleeper = [t for t in sleeper if t]
    busy = [t for t in busy if t]
    main = [t for t in main if t]
    want_sleeper = [("sleeper_inner", "target.py", L["sleep"]),
                    ("sleeper_outer", "target.py", L["sleeper_outer"]),
                    ("run", "threading.py", set(range(1, 5000)))]
    want_busy = [("busy_inner", "target.py", {L["spin"], L["spin"] - 1}),
                 ("busy_middle", "target.py", L["busy_middle"]),
                 ("busy_outer", "target.py", L["busy_outer"]),
                 ("run", "threading.py", set(range(1, 5000)))]
    want_main = [("main", "target.py", L["main_sleep"]), ("<module>", "target.py", L["module"])]
    check(any(starts(py_frames(t), want_sleeper) for t in sleeper),
          "no sleeper-thread stack starts with %r: %r" % (want_sleeper[:2], [t["frames"] for t in sleeper]))
    check(any(starts(py_frames(t), want_busy) for t in busy),
          "no busy-thread stack starts with %r: %r" % (want_busy[:3], [t["frames"] for t in busy]))
    check(any(py_frames(t) == want_main for t in main),
          "no MainThread stack is %r: %r" % (want_main, [t["frames"] for t in main]))
    for t in sleeper + busy:
        fr = py_frames(t)
        check(fr and fr[-1][0] == "_bootstrap",
              "%s: outermost Python frame is not _bootstrap: %r" % (t["name"], fr))
    check(any(t["status"] == "idle" for t in sleeper), "sleeper-thread never idle")
    check(any(t["status"] == "idle" for t in main), "MainThread never idle")
    check(any(t["status"].startswith("active") for t in busy), "busy-thread never active")
    check(any(t["status"] == "active+gil" for t in busy), "busy-thread never holds the GIL")
    if native:
        check(any(t["frames"] and t["frames"][0][1] == "libc.so.6" and
                  starts(py_frames(t), want_sleeper) for t in sleeper),
              "no sleeper-thread stack has a libc frame on top of its Python frames: %r"
              % [t["frames"][:4] for t in sleeper])
        for t in sleeper + busy:
            fns = [f[0] for f in t["frames"]]
            check("_PyEval_EvalFrameDefault" not in fns,
                  "the eval loop frame was not replaced by Python frames: %r" % fns)


def check_native(dumps, pid, module):
    chains_main = [["spin_three", "spin_two", "spin_one", "main"]]
    chains_nap = [["nap_two", "nap_one", "napper"]]
    check(any(any(contains_run(t["frames"], c) for c in chains_main for t in d["threads"]
                  if not pid or t["tid"] == pid) for d in dumps),
          "no main-thread stack with spin_three <- spin_two <- spin_one <- main: %r"
          % [[t["frames"] for t in d["threads"]] for d in dumps[:2]])
    check(any(any(contains_run(t["frames"], c) for c in chains_nap for t in d["threads"]) for d in dumps),
          "no thread stack with nap_two <- nap_one <- napper")
    for d in dumps:
        for t in d["threads"]:
            for fn, file, line in t["frames"]:
                if fn in ("spin_three", "nap_two"):
                    check(file == module, "%s's module is %r, not %r" % (fn, file, module))


def check_readback(dumps, cat_out, folded):
    check(len(dumps) == 1, "--once wrote %d dumps" % len(dumps))
    d = dumps[0]
    cat = {}
    with open(cat_out, encoding="utf-8") as f:
        for line in f:
            col = line.rstrip("\n").split("\t")
            if col[0] == "sample":
                cat[col[4]] = (col[6], col[8])
    for t in d["threads"]:
        want = ";".join(f[0] for f in reversed(t["frames"]))
        got = cat.get(t["name"])
        check(got is not None, "thread %r is not in tracecat cat's output" % t["name"])
        if got:
            check(got[0] == want, "thread %r: tracecat cat has %r, the dump %r" % (t["name"], got[0], want))
            check('"state":"%s"' % t["status"] in got[1], "thread %r: state %r not in %r"
                  % (t["name"], t["status"], got[1]))
    check(len(cat) == len(d["threads"]), "tracecat cat has %d threads, the dump %d" % (len(cat), len(d["threads"])))
    stacks = set()
    with open(folded, encoding="utf-8") as f:
        for line in f:
            stacks.add(line.rstrip("\n").rpartition(" ")[0])
    for t in d["threads"]:
        parts = ["%s (%s:%d)" % fr if fr[2] else "%s (%s)" % fr[:2] for fr in reversed(t["frames"])]
        want = ";".join(["thread (%s): %s" % (t["tid"], t["name"])] + parts)
        check(want in stacks, "folded output lacks %r (has %r)" % (want, sorted(stacks)))


def main():
    path, mode = sys.argv[1], sys.argv[2]
    rest = sys.argv[3:]
    opts = {"--min-dumps": "1", "--pid": "", "--module": ""}
    flags = set()
    pos = []
    i = 0
    while i < len(rest):
        if rest[i] in opts:
            opts[rest[i]] = rest[i + 1]
            i += 2
        elif rest[i].startswith("--"):
            flags.add(rest[i])
            i += 1
        else:
            pos.append(rest[i])
            i += 1
    dumps = parse(path)
    check(len(dumps) >= int(opts["--min-dumps"]),
          "%d dumps, want at least %s" % (len(dumps), opts["--min-dumps"]))
    if dumps:
        if mode == "python":
            check_python(dumps, pos[0], pos[1], "--native-frames" in flags, opts["--pid"],
                         int(opts["--min-dumps"]))
        elif mode == "native":
            check_native(dumps, opts["--pid"], opts["--module"])
        elif mode == "readback":
            check_readback(dumps, pos[0], pos[1])
    for f in failures:
        print("FAIL:", f)
    if failures:
        return 1
    print("ok: %d dumps checked (%s)" % (len(dumps), mode))
    return 0


if __name__ == "__main__":
    sys.exit(main())
