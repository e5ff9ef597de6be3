#!/usr/bin/env bash
# Configures and builds weir into BUILD_DIR (default: build). Extra arguments go to cmake.
# BUILD_TARGETS (e.g. "weir") builds only those targets and what they need; default: everything
# (libraries, `weir`, test suites, benchmarks). Ninja prints [done/total] as it goes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
# ccache hits across clones and worktrees (CI builds a fresh clone in another folder): paths
# below the checkout are hashed relative to it, and the build directory is not part of the key.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
# -Werror (-DWEIR_WERROR=ON: scripts/test.sh, CI) is left out of ccache's hash, so that the test
# build reuses the objects of the main job's build (scripts/example.sh, without it). An object
# that warned when it was cached replays its warnings on a hit without failing: with
# WEIR_WERROR=ON the build log is checked for compiler warnings as well (docs/adr/0027).
export CCACHE_IGNOREOPTIONS="${CCACHE_IGNOREOPTIONS:+$CCACHE_IGNOREOPTIONS }-Werror"
werror=0
for a in "$@"; do
  case "$a" in -DWEIR_WERROR=ON | -DWEIR_WERROR=1 | -DWEIR_WERROR=TRUE) werror=1 ;; -DWEIR_WERROR=*) werror=0 ;; esac
done
# RelWithDebInfo (the default type) with line tables only (-g1, WEIR_DEBUG_INFO overrides it):
# about a quarter less compile time than CMake's -g, and backtraces, perf and gdb still name
# functions and lines. Both README commands and CI use the same flags, so each reuses the other's
# objects from ccache. A -DCMAKE_CXX_FLAGS_RELWITHDEBINFO=... argument wins.
flags=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 ${WEIR_DEBUG_INFO:--g1} -DNDEBUG")
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" "${flags[@]}" "$@" >/dev/null
if [ "$werror" = 0 ]; then
  exec cmake --build "$build" -j "${JOBS:-2}" ${BUILD_TARGETS:+--target $BUILD_TARGETS}
fi
log="$build/build.log"
cmake --build "$build" -j "${JOBS:-2}" ${BUILD_TARGETS:+--target $BUILD_TARGETS} 2>&1 | tee "$log"
if grep -Eq '^[^ ]+:[0-9]+:[0-9]+: warning: ' "$log"; then
  echo "error: the build printed compiler warnings (errors with -DWEIR_WERROR=ON); see $log:" >&2
  grep -E '^[^ ]+:[0-9]+:[0-9]+: warning: ' "$log" | sort -u >&2
  exit 1
fi
