#!/usr/bin/env bash
# The test command: installs dependencies, builds weir and runs every test suite with ctest.
# SANITIZE=1 builds and tests under AddressSanitizer + UndefinedBehaviorSanitizer instead
# (in build-asan). Warnings are errors here (WEIR_WERROR=ON unless WEIR_WERROR=OFF is exported),
# unlike in a plain `cmake` build. The tests build into build-test/ (BUILD_DIR overrides it), not
# the main job's build/ (scripts/example.sh): a user can run `build/bin/weir` while the tests build,
# and neither command reconfigures (-Werror on, off) or relinks the other's binaries. ccache makes
# the second folder's objects cache hits (scripts/build.sh keys them by source, not folder).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
# The viewer is built and its browser tests run here: a missing node, npm or chromium fails
# (a plain developer build without them skips the viewer instead).
export WEIR_REQUIRE_VIEWER_TESTS=1
# WEIR_DEBUG_INFO (e.g. -g1, as CI sets it) replaces -g in the build: line tables and function
# names without variables compile in about a third less time (docs/testing.md, CI section).
debug_flags=()
if [ -n "${WEIR_DEBUG_INFO:-}" ]; then
  debug_flags=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 $WEIR_DEBUG_INFO -DNDEBUG"
    -DCMAKE_CXX_FLAGS_DEBUG="$WEIR_DEBUG_INFO")
fi
if [ "${SANITIZE:-0}" = 1 ]; then
  export BUILD_DIR="${BUILD_DIR:-$root/build-asan}"
  export BUILD_TYPE=Debug
  # LeakSanitizer stays off until a whole leak-checked run of this job has passed: its exit-time
  # thread stopper sporadically crashed ("Tracer caught signal 11") in processes whose OpenMP
  # programs had started workers, so generated programs run on one thread here (the plain run
  # covers the multi-threaded schedules). Standalone LSan over the plain build found no leak in
  # weir's sdfg, pycode, frontend, transforms and cli suites (2026-12-02; docs/security.md).
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}"
  export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
  # The parsers' nesting limits hold within the default 8 MiB stack
  # (tests/frontend/test_nesting_stack.cpp runs them on a thread with exactly 8 MiB); the larger
  # process limit stays as a margin for the rest of the suites until a sanitizer run confirms it.
  ulimit -s 65536 2>/dev/null || true
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
  bash "$root/scripts/build.sh" -DWEIR_WERROR="${WEIR_WERROR:-ON}" -DWEIR_SANITIZE=ON -DWEIR_REQUIRE_VIEWER=ON ${debug_flags[@]+"${debug_flags[@]}"}
else
  export BUILD_DIR="${BUILD_DIR:-$root/build-test}"
  bash "$root/scripts/build.sh" -DWEIR_WERROR="${WEIR_WERROR:-ON}" -DWEIR_REQUIRE_VIEWER=ON ${debug_flags[@]+"${debug_flags[@]}"}
fi
if [ ! -d "$root/../shared/corpus/dace" ]; then
  echo "warning: ../shared/corpus/dace is missing; corpus tests will fail" >&2
fi
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "${JOBS:-2}"
