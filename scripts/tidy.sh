#!/usr/bin/env bash
# clang-tidy (14, Debian 12's) with the checks of .clang-tidy over weir's library sources
# (pycode/, sdfg/, frontend/, transforms/, codegen/, runtime/, mesh/ and the headers they
# include; tests, benchmarks and the CLI are left out to keep it near 5 minutes on 2 cores,
# docs/adr/0021-static-checks.md). Reads the compile commands of BUILD_DIR (default
# build-test, as scripts/test.sh and CI leave it; configured here when missing) and runs JOBS
# (default 2) at once. Prints every finding; exits 1 if there is any.
#   bash scripts/tidy.sh [FILE...]   only the given sources
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build-test}"
tidy="${CLANG_TIDY:-clang-tidy-14}"
command -v "$tidy" >/dev/null || { echo "tidy.sh: $tidy not found (apt-get install clang-tidy-14)" >&2; exit 2; }
[ -f "$build/compile_commands.json" ] ||
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(/usr/bin/python3 - "$build/compile_commands.json" "$root" <<'PY'
import json, re, sys
root = sys.argv[2]
pat = re.compile(re.escape(root) + r"/(pycode|sdfg|frontend|transforms|codegen|runtime|mesh)/")
for f in sorted({e["file"] for e in json.load(open(sys.argv[1]))}):
    if pat.match(f):
        print(f)
PY
  )
fi
echo "tidy.sh: ${#files[@]} sources with $("$tidy" --version | grep -o 'version [0-9.]*')"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# GCC-only warning flags of the compile commands are unknown to clang: not a finding.
status=0
printf '%s\0' "${files[@]}" |
  xargs -0 -P "${JOBS:-2}" -n 1 "$tidy" -p "$build" --quiet --extra-arg=-Wno-unknown-warning-option \
    >"$log" 2>&1 || status=1
# Each header finding is printed once (every source that includes the header reports it).
/usr/bin/python3 - "$log" <<'PY'
import re, sys
seen, out = set(), []
block = None
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"(\S+:\d+:\d+): (warning|error): .*\[([\w.,-]+)\]$", line.rstrip())
    if m:
        block = None if m.group(0) in seen else m.group(0)
        if block: seen.add(block); out.append(line)
        continue
    if re.match(r"\d+ (warnings?|errors?) generated|Suppressed \d+ warnings|Use -header-filter|Error while processing", line):
        continue
    if block: out.append(line)
sys.stdout.write("".join(out))
print(f"tidy.sh: {len(seen)} findings")
PY
[ $status -eq 0 ] && echo "tidy.sh: ok"
exit $status
