#!/usr/bin/env python3
"""Check that a GT instruction log has the shape GT writes; used to validate gen_gt.py output.

    check_gt.py LOG...

For every line after the header (20 lines, 21 for a trace capture): it must be a record (`^\\s*\\d+(\\.\\d+)?s \\| #\\d+ \\| `), it must
match gt.scripts.visualize's regular expression unless it is in the "neither size nor details" shape
(which visualize skips by design), and each field must be padded as InstructionStream._format_log_entry
pads it. Also checks that seq goes up by one and time never decreases. Prints a summary per file and
exits 1 on the first file with a problem. Runs unchanged on the real samples in shared/testdata/gt/.
"""

import re
import sys

# gt/scripts/visualize.py (062ac4e and later), verbatim.
VISUALIZE = re.compile(
    r"\s*(?P<timestamp>[\d.]+)s\s*\|\s*#(?P<inst_id>\d+)\s*\|\s*"
    r"(?P<event>\S+)\s*\|\s*(?P<source>[^|]+?)\s*\|\s*"
    r"(?P<msg_type>[^|]+?)\s*\|.*?(?P<metadata>op=\w+)?"
)
RECORD = re.compile(r"^\s*\d+(\.\d+)?s \| #\d+ \| ")
TIME = re.compile(r"^ *\d+\.\d{3}s$")
SEQ = re.compile(r"^#\d{4,}$")
SIZE = re.compile(r"^ *[0-9]+(\.[0-9]+)?(B|KB|MB)$")
HEADER_LINES = 20


def size_ok(field):
    """Right-aligned in 10 and rendered by GT's rules (B integer < 1024, KB one decimal, MB two)."""
    if len(field) < 10 or (len(field) > 10 and field[0] == " "):
        return False
    v = field.strip()
    if v.endswith("MB"):
        return re.fullmatch(r"\d+\.\d\d", v[:-2]) is not None and float(v[:-2]) >= 0.995
    if v.endswith("KB"):
        return re.fullmatch(r"\d+\.\d", v[:-2]) is not None and 1.0 <= float(v[:-2]) < 1024.05
    return re.fullmatch(r"[1-9]\d*", v[:-1]) is not None and int(v[:-1]) < 1024


def check(path):
    problems = []
    records = matched = neither = 0
    last_seq = last_ms = None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if records == 0 and not RECORD.match(line):
                if n > HEADER_LINES + 1:  # 20 lines from the dispatcher, 21 from gt.scripts.trace
                    problems.append(f"{n}: header longer than 21 lines")
                    break
                continue
            if not RECORD.match(line):
                problems.append(f"{n}: not a record: {line[:80]!r}")
                continue
            records += 1
            fields = line.split(" | ", 6)
            if len(fields) < 5:
                problems.append(f"{n}: {len(fields)} fields")
                continue
            t, seq, event, source, command = fields[:5]
            rest = fields[5:]
            if len(rest) == 0:
                neither += 1
            if VISUALIZE.match(line):
                matched += 1
            elif rest:
                problems.append(f"{n}: visualize regex does not match")
            if not TIME.match(t) or len(t) < 8:
                problems.append(f"{n}: time field {t!r}")
            if not SEQ.match(seq):
                problems.append(f"{n}: seq field {seq!r}")
            if len(event) < 12 or event != event.strip().ljust(len(event)) or " " in event.strip():
                problems.append(f"{n}: event field {event!r}")
            kind = "WORKER" if "WORKER" in event else "CLIENT"
            ident = source[len(kind) + 1 :]
            if not source.startswith(kind + " ") or len(ident) < 20 or ident != ident.rstrip().ljust(len(ident)):
                problems.append(f"{n}: source field {source!r}")
            if len(command) < 15 or command != command.rstrip().ljust(len(command)):
                problems.append(f"{n}: command field {command!r}")
            if rest and SIZE.match(rest[0]) and not size_ok(rest[0]):
                problems.append(f"{n}: size field {rest[0]!r}")
            if rest and len(rest) == 2 and not SIZE.match(rest[0]):
                problems.append(f"{n}: details before size")
            details = rest[1] if len(rest) == 2 else rest[0] if rest and not SIZE.match(rest[0]) else None
            if details is not None and (details == "" or details.startswith(" ")):
                problems.append(f"{n}: details empty or starting with a space")
            s = int(seq[1:])
            ms = round(float(t.strip()[:-1]) * 1000)
            if last_seq is not None and s != last_seq + 1:
                problems.append(f"{n}: seq {s} after {last_seq}")
            if last_ms is not None and ms < last_ms:
                problems.append(f"{n}: time goes back")
            last_seq, last_ms = s, ms
            if len(problems) > 20:
                break
    print(
        f"{path}: {records} records, {matched} match visualize's regex, {neither} in the neither shape, "
        f"{len(problems)} problems"
    )
    for p in problems[:20]:
        print("  " + p)
    return not problems


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: check_gt.py LOG...\n")
        return 2
    ok = True
    for path in argv[1:]:
        ok = check(path) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
