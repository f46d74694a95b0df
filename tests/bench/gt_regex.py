#!/usr/bin/env python3
"""The Python baseline: read a GT log the way gt.scripts.visualize does and count the matching lines.

    gt_regex.py LOG

Same regular expression (verbatim from gt/scripts/visualize.py), same text-mode line iteration, one
re.match per line. Prints the number of lines that match.
"""

import re
import sys

PATTERN = re.compile(
    r"\s*(?P<timestamp>[\d.]+)s\s*\|\s*#(?P<inst_id>\d+)\s*\|\s*"
    r"(?P<event>\S+)\s*\|\s*(?P<source>[^|]+?)\s*\|\s*"
    r"(?P<msg_type>[^|]+?)\s*\|.*?(?P<metadata>op=\w+)?"
)


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: gt_regex.py LOG\n")
        return 2
    matches = 0
    with open(argv[1], "r") as f:
        for line in f:
            if PATTERN.match(line):
                matches += 1
    print(matches)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
