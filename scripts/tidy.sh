#!/usr/bin/env bash
# clang-tidy (14, Debian 12's) with the checks of .clang-tidy over weir's library sources
# (pycode/, sdfg/, frontend/, transforms/, codegen/, runtime/, mesh/ and the headers they
# include; tests, benchmarks and the CLI are left out to keep it near 5 minutes on 2 cores,
# docs/adr/0021-static-checks.md). Reads the compile commands of BUILD_DIR (default
# build-test, as scripts/test.sh and CI leave it; configured here when missing) and runs JOBS
# (default 2) at once. Prints every finding; exits 1 if there is any.
#   bash scripts/tidy.sh [FILE...]   only the given sources
# A source that had no finding is not checked again while nothing it reads has changed: its
# compile command, the clang-tidy binary, .clang-tidy, these scripts and every file its
# compilation read, from the build's dependency log (scripts/tidy_keys.py). The results are kept
# in WEIR_TIDY_CACHE (default: weir-tidy/ in ccache's folder, so that a CI machine that keeps
# ccache's objects keeps these too; WEIR_TIDY_CACHE= checks every source).
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
log="$(mktemp)" hits="$(mktemp)"
trap 'rm -f "$log" "$hits"' EXIT
default_cache="$(ccache -k cache_dir 2>/dev/null || true)"
[ -n "$default_cache" ] && default_cache="$default_cache/weir-tidy"
cache="${WEIR_TIDY_CACHE-${default_cache:-${XDG_CACHE_HOME:-$HOME/.cache}/weir-tidy}}"
# SOURCE<TAB>KEY lines (an empty KEY: checked whatever the cache holds).
if [ -n "$cache" ]; then
  mkdir -p "$cache"
  # Results unused for 30 days go.
  find "$cache" -type f -mtime +30 -delete 2>/dev/null || true
  keyed="$(printf '%s\n' "${files[@]}" | /usr/bin/python3 "$root/scripts/tidy_keys.py" "$build" "$root" "$(command -v "$tidy")")"
else
  keyed="$(printf '%s\t\n' "${files[@]}")"
fi
# check_one SOURCE KEY: clang-tidy over SOURCE (its output appended to the log) unless KEY has a
# result; a run without findings (exit 0, no warning or error) records KEY.
check_one() {
  local f="$1" k="$2" out rc=0
  if [ -n "$k" ] && [ -e "$cache/$k" ]; then
    touch "$cache/$k"
    echo "$f" >>"$hits"
    return 0
  fi
  out="$("$tidy" -p "$build" --quiet --extra-arg=-Wno-unknown-warning-option "$f" 2>&1)" || rc=$?
  printf '%s\n' "$out" >>"$log"
  if [ $rc -eq 0 ] && [ -n "$k" ] && ! grep -Eq ': (warning|error): ' <<<"$out"; then
    : >"$cache/$k"
  fi
  return $rc
}
export -f check_one
export tidy build cache log hits
# GCC-only warning flags of the compile commands are unknown to clang: not a finding.
status=0
awk -F'\t' '{ printf "%s%c%s%c", $1, 0, $2, 0 }' <<<"$keyed" |
  xargs -0 -P "${JOBS:-2}" -n 2 bash -c 'check_one "$1" "$2"' _ || status=1
[ -n "$cache" ] && echo "tidy.sh: $(wc -l <"$hits") of ${#files[@]} sources unchanged since a run without findings (cache $cache)"
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
