#!/usr/bin/env bash
# Compile-only check of weir's library and CLI sources with clang++ (Debian's clang 14/16):
# catches what GCC accepts and clang does not (e.g. lambdas capturing structured bindings)
# without a third full build in CI. Configures BUILD_DIR (default build-clang) with clang++
# for its compile commands, then runs `clang++ -fsyntax-only` on every source of pycode/, sdfg/,
# frontend/, transforms/, codegen/, runtime/, mesh/ and cli/ (JOBS at once, default 2).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build-clang}"
cxx="${CLANG_CXX:-clang++}"
command -v "$cxx" >/dev/null || { echo "clang-check: $cxx not found" >&2; exit 1; }
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
  -DCCACHE_PROGRAM=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null
# One "directory<TAB>command" line per library/CLI translation unit, with -fsyntax-only instead
# of the object output (tests and benchmarks are left out: they only use the same headers).
/usr/bin/python3 - "$build/compile_commands.json" "$root" > "$build/syntax-commands.txt" <<'PY'
import json, re, sys
root = sys.argv[2]
for e in json.load(open(sys.argv[1])):
    f = e["file"]
    if not re.match(re.escape(root) + r"/(pycode|sdfg|frontend|transforms|codegen|runtime|mesh|cli)/", f):
        continue
    cmd = re.sub(r" -o \S+", "", e["command"])
    print(e["directory"] + "\t" + cmd + " -fsyntax-only")
PY
n=$(wc -l < "$build/syntax-commands.txt")
echo "clang-check: $n sources with $("$cxx" --version | head -1)"
tr '\n' '\0' < "$build/syntax-commands.txt" |
  xargs -0 -P "${JOBS:-2}" -I{} bash -c 'dir="${1%%	*}"; cmd="${1#*	}"; cd "$dir" && eval "$cmd"' _ {}
echo "clang-check: ok"
