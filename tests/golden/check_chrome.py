#!/usr/bin/env python3
"""check_chrome.py OUT.json LOG: the Chrome JSON that tracecat wrote for a GT log
loads with Python's json module and holds one instant per record line of the log."""
import json
import re
import sys

RECORD = re.compile(r"^\s*\d+(\.\d+)?s \| #\d+ \| |^\[TAPE \d+(\.\d+)?s\] ")


def main():
    out, log = sys.argv[1], sys.argv[2]
    with open(out, encoding="utf-8") as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    instants = sum(1 for e in events if e.get("ph") == "i")
    with open(log, encoding="utf-8", errors="replace") as f:
        records = sum(1 for line in f if RECORD.match(line))
    if instants != records:
        print(f"{out}: {instants} instants, but {log} has {records} record lines")
        return 1
    if records == 0:
        print(f"{log}: no record lines")
        return 1
    names = {e["args"]["name"] for e in events if e.get("ph") == "M" and e.get("name") == "thread_name"}
    if not any(n.startswith("worker ") for n in names):
        print(f"{out}: no worker track")
        return 1
    print(f"{out}: {instants} instants = {records} record lines, {len(events)} events")
    return 0


if __name__ == "__main__":
    sys.exit(main())
