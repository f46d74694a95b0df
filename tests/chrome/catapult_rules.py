#!/usr/bin/env python3
"""catapult_rules.py TRACECAT INPUT...: every INPUT converted to Chrome JSON
(and all of them merged into one job) passes the import rules of Catapult's
trace viewer (chrome://tracing, tracing/extras/importer/trace_event_importer.js)
that make it reject a file or draw it wrong, and its samples equal the folded
writer's totals.

The rules, each one a way Catapult's importer fails or misdraws:
  - the top level is an object with a "traceEvents" array; every event has a
    string "ph", integer "pid" and "tid", and a number "ts" (metadata aside);
  - X events have a number "dur" >= 0; B/E nest per thread, E closes the open B;
  - b/e async events pair up by (pid, cat, name, id2/id); every e has its b;
  - flow s/f events: one s and one f per id, the f not before the s;
  - C events carry only numbers in "args";
  - M events are ones the importer knows, with an "args" object;
  - every sample has an "sf" that names a "stackFrames" entry (a missing one
    is "Cannot read properties of undefined (reading 'colorId')"), integer
    pid and tid, a number ts; every frame has a string "name" and a "parent"
    that exists, with no cycle.
Exit 0 when every output passes, 1 with one line per broken rule otherwise.
"""
import json
import os
import subprocess
import sys
import tempfile

META = {"process_name", "thread_name", "process_sort_index", "thread_sort_index",
        "process_labels", "process_uptime_seconds", "num_cpus", "trace_buffer_overflowed"}


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return (isinstance(v, (int, float))) and not isinstance(v, bool)


class Checker:
    def __init__(self, name):
        self.name = name
        self.errors = []

    def fail(self, what):
        if len(self.errors) < 20:
            self.errors.append(f"{self.name}: {what}")

    def event(self, i, ev, state):
        ph = ev.get("ph")
        if not isinstance(ph, str):
            return self.fail(f"event {i} has no string ph")
        if not is_int(ev.get("pid")) or (ph != "M" and not is_int(ev.get("tid"))):
            return self.fail(f"event {i} ({ph}) has no integer pid/tid")
        if ph == "M":
            if ev.get("name") not in META or not isinstance(ev.get("args"), dict):
                self.fail(f"event {i}: unknown metadata {ev.get('name')!r} or no args")
            return
        if not is_num(ev.get("ts")):
            return self.fail(f"event {i} ({ph}) has no number ts")
        thread = (ev["pid"], ev["tid"])
        if ph == "X":
            if not is_num(ev.get("dur")) or ev["dur"] < 0:
                self.fail(f"event {i}: X without a dur >= 0")
        elif ph == "B":
            state["open"].setdefault(thread, []).append(ev.get("name"))
        elif ph == "E":
            stack = state["open"].get(thread)
            if not stack:
                self.fail(f"event {i}: E with no open B on {thread}")
            else:
                stack.pop()
        elif ph in ("b", "e"):
            ident = ev.get("id2", ev.get("id"))
            key = (ev["pid"], ev.get("cat"), ev.get("name"), json.dumps(ident, sort_keys=True))
            if ident is None:
                self.fail(f"event {i}: {ph} without an id")
            elif ph == "b":
                state["async"][key] = state["async"].get(key, 0) + 1
            elif state["async"].get(key, 0) == 0:
                self.fail(f"event {i}: e without its b {key}")
            else:
                state["async"][key] -= 1
        elif ph in ("s", "f"):
            flow = state["flows"].setdefault(ev.get("id"), {})
            if ph in flow:
                self.fail(f"event {i}: a second {ph} for flow id {ev.get('id')}")
            flow[ph] = ev["ts"]
        elif ph == "C":
            args = ev.get("args")
            if not isinstance(args, dict) or not all(is_num(v) for v in args.values()):
                self.fail(f"event {i}: C with args that are not all numbers")

    def samples(self, doc):
        frames = doc.get("stackFrames", {})
        samples = doc.get("samples", [])
        if not isinstance(frames, dict) or not isinstance(samples, list):
            return self.fail("stackFrames is not an object or samples not an array")
        for fid, f in frames.items():
            if not isinstance(f, dict) or not isinstance(f.get("name"), str):
                self.fail(f"frame {fid} has no string name")
                continue
            seen, cur = {fid}, f
            while "parent" in cur:
                p = str(cur["parent"])
                if p not in frames or p in seen:
                    self.fail(f"frame {fid}: parent {p} missing or a cycle")
                    break
                seen.add(p)
                cur = frames[p]
        for i, s in enumerate(samples):
            if not isinstance(s, dict) or str(s.get("sf")) not in frames or "sf" not in s:
                self.fail(f"sample {i} has no sf naming a stackFrames entry")
            elif not is_int(s.get("pid")) or not is_int(s.get("tid")) or not is_num(s.get("ts")):
                self.fail(f"sample {i} has no integer pid/tid or number ts")

    def document(self, doc):
        if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
            return self.fail("no traceEvents array")
        state = {"open": {}, "async": {}, "flows": {}}
        for i, ev in enumerate(doc["traceEvents"]):
            if not isinstance(ev, dict):
                self.fail(f"event {i} is not an object")
            else:
                self.event(i, ev, state)
        for key, n in state["async"].items():
            if n:
                self.fail(f"{n} b without e {key}")
        for ident, flow in state["flows"].items():
            if set(flow) != {"s", "f"} or flow["f"] < flow["s"]:
                self.fail(f"flow id {ident}: {sorted(flow)} not one s then one f")
        self.samples(doc)


def sample_weight(s):
    count = s.get("args", {}).get("count")
    return count if is_int(count) else 1


def folded_total(path):
    total = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            total += int(line.rsplit(" ", 1)[1])
    return total


def check(tracecat, name, inputs, tmp):
    out = os.path.join(tmp, "out.json")
    folded = os.path.join(tmp, "out.folded")
    r = subprocess.run([tracecat, "convert", "-q", *inputs, "-o", out], capture_output=True, text=True)
    if r.returncode != 0:
        return [f"{name}: convert failed: {r.stderr.strip()}"]
    with open(out, encoding="utf-8") as f:
        doc = json.load(f)
    c = Checker(name)
    c.document(doc)
    samples = doc.get("samples", []) if isinstance(doc, dict) else []
    if samples:
        r = subprocess.run([tracecat, "convert", "-q", *inputs, "-o", folded], capture_output=True, text=True)
        if r.returncode != 0:
            c.fail(f"folded convert failed: {r.stderr.strip()}")
        else:
            want, got = folded_total(folded), sum(sample_weight(s) for s in samples)
            if want != got:
                c.fail(f"samples weigh {got} but the folded output {want}")
    print(f"{name}: {len(doc.get('traceEvents', []))} events, {len(samples)} samples"
          + ("" if c.errors else ": ok"))
    return c.errors


def main():
    tracecat, inputs = sys.argv[1], sys.argv[2:]
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in inputs:
            errors += check(tracecat, path, [path], tmp)
        if len(inputs) > 1:
            errors += check(tracecat, "(all merged)", inputs, tmp)
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
