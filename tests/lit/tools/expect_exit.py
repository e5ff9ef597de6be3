#!/usr/bin/env python3
"""expect_exit.py CODE COMMAND [ARG...]: runs COMMAND and succeeds only if it exits with CODE.

lit's `not` accepts any non-zero exit; weir's exit codes say more (1: the input is invalid, 2:
the command line is wrong), so the lit tests check them exactly: `%expect-exit 2 %weir ...`.
COMMAND's stdout and stderr are its own (redirect them as usual after the whole line).
"""
import subprocess
import sys

if len(sys.argv) < 3:
    sys.exit("usage: expect_exit.py CODE COMMAND [ARG...]")
want = int(sys.argv[1])
got = subprocess.call(sys.argv[2:])
if got != want:
    sys.stdout.flush()
    print("expect_exit.py: %s exited with %d, expected %d" % (sys.argv[2], got, want), file=sys.stderr)
    sys.exit(1)
