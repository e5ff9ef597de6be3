#!/usr/bin/env python3
"""Where a ctest run's time went: its slowest entries, from BUILD_DIR's LastTest.log.

    python3 scripts/ctest-slowest.py BUILD_DIR [--top 15] [--since EPOCH] [--width 110]

Prints one header line (entries run, failed, the sum of their test times, the run's wall time
when BUILD_DIR/build.log says when the build before it ended) and the --top slowest entries,
longest first, one line each ("F" marks a failed one), names cut to --width characters. `.ci/run`
prints it for each of its ctest runs as part of its last lines, so that the tail a CI record
keeps says which entries took the time (docs/testing.md, "CI and its time").

ctest writes Testing/Temporary/LastTest.log.tmp as entries finish and renames it LastTest.log at
the end: the newer of the two is read, so a run that was stopped part way is read up to where it
stopped. A log older than --since (a run before this CI run) and a missing log print nothing.
Exit status 0 whatever it finds: it reports, it never gates.
"""
import argparse
import os
import re
import sys

ENTRY = re.compile(r"^\d+/\d+ Test: (.*)$")
TIME = re.compile(r"^Test time =\s*([0-9.]+) sec")


def read_entries(path):
    """[(seconds, name, failed)] of the entries the log records as finished."""
    entries = []
    name = seconds = None
    in_output = False  # an entry's own output may hold any line
    with open(path, encoding="utf-8", errors="replace") as log:
        for line in log:
            line = line.rstrip("\n")
            if in_output:
                in_output = line != "<end of output>"
                continue
            if line == "Output:":
                in_output = True
                continue
            m = ENTRY.match(line)
            if m:
                name, seconds = m.group(1), None
                continue
            m = TIME.match(line)
            if m and name is not None:
                seconds = float(m.group(1))
                continue
            if name is not None and seconds is not None and line.startswith("Test ") and line.endswith("."):
                # "Test Passed." or "Test Failed." (also "***Timeout" runs end in "Test Failed.").
                entries.append((seconds, name, line != "Test Passed."))
                name = seconds = None
    return entries


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("build_dir")
    p.add_argument("--top", type=int, default=15)
    p.add_argument("--since", type=float, default=0.0, help="ignore a log last written before this time (epoch s)")
    p.add_argument("--width", type=int, default=110, help="longest entry name printed")
    args = p.parse_args()
    logs = [os.path.join(args.build_dir, "Testing", "Temporary", f) for f in ("LastTest.log", "LastTest.log.tmp")]
    logs = [f for f in logs if os.path.isfile(f) and os.path.getmtime(f) >= args.since]
    if not logs:
        return 0
    log = max(logs, key=os.path.getmtime)
    entries = read_entries(log)
    total = sum(e[0] for e in entries)
    failed = sum(1 for e in entries if e[2])
    wall = ""
    build_log = os.path.join(args.build_dir, "build.log")
    if os.path.isfile(build_log) and os.path.getmtime(build_log) >= args.since:
        span = os.path.getmtime(log) - os.path.getmtime(build_log)
        if span > 0:
            wall = f", {span / 60:.1f} min wall after the build"
    print(f"-- {os.path.basename(os.path.normpath(args.build_dir))} ctest: {len(entries)} entries "
          f"({failed} failed), {total:.0f} test-s{wall}; slowest (s):")
    for seconds, name, bad in sorted(entries, key=lambda e: -e[0])[: args.top]:
        if len(name) > args.width:
            name = name[: args.width - 3] + "..."
        print(f"{seconds:7.1f} {'F' if bad else ' '} {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
