#!/usr/bin/env bash
# Compile-only check of weir's library and CLI sources with Debian's clang: catches what GCC
# accepts and clang does not (e.g. lambdas capturing structured bindings) without another full
# build in CI (about 2 CPU-minutes per compiler, idle). For each compiler of CLANG_CXX (default
# clang++-14, CI's; `CLANG_CXX="clang++-14 clang++-16"` checks Debian 12's clang 16 as well,
# after `apt-get install clang-16`), configures BUILD_DIR-<compiler> (default
# build-clang-clang++-14) for its compile commands, then runs `-fsyntax-only` on every source of
# pycode/, sdfg/, frontend/, transforms/, codegen/, runtime/, mesh/ and cli/ (JOBS at once,
# default 2). Tests and benchmarks are not configured (they only use the same headers; the
# benchmarks need an OpenMP runtime for that clang).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
compilers=(${CLANG_CXX:-clang++-14})
for cxx in "${compilers[@]}"; do
  command -v "$cxx" >/dev/null || { echo "clang-check: $cxx not found" >&2; exit 1; }
done
for cxx in "${compilers[@]}"; do
  build="${BUILD_DIR:-$root/build-clang}-${cxx##*/}"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON \
    -DCCACHE_PROGRAM=OFF -DCMAKE_BUILD_TYPE=Debug -DWEIR_BUILD_TESTS=OFF -DWEIR_BUILD_BENCH=OFF >/dev/null
  # One "directory<TAB>command" line per library/CLI translation unit, with -fsyntax-only instead
  # of the object output.
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
done
echo "clang-check: ok"
