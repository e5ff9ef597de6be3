#!/usr/bin/env bash
# The test command: installs dependencies, builds weir and runs every test suite with ctest.
# SANITIZE=1 builds with clang++-14 under AddressSanitizer + UndefinedBehaviorSanitizer +
# LeakSanitizer instead (in build-asan, with the libFuzzer targets) and runs the suites but the
# entries tests/sanitizer/exclude.txt lists. Warnings are errors here (WEIR_WERROR=ON unless
# WEIR_WERROR=OFF is exported), unlike in a plain `cmake` build. The tests build into build-test/
# (BUILD_DIR overrides it), not the main job's build/ (scripts/example.sh): a user can run
# `build/bin/weir` while the tests build, and neither command reconfigures (-Werror on, off) or
# relinks the other's binaries. ccache makes the second folder's objects cache hits
# (scripts/build.sh keys them by source, not folder).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
# The viewer is built and its browser tests run here: a missing node, npm or chromium fails
# (a plain developer build without them skips the viewer instead).
export WEIR_REQUIRE_VIEWER_TESTS=1
# The lit suite (tests/lit) runs here: missing lit or FileCheck (llvm-14-tools) fails, where a
# plain developer build skips it.
export WEIR_REQUIRE_LIT=1
# The Python module's pytest suite (python/tests) runs here: a build without pybind11, Python's
# headers, NumPy or pytest fails it, where a plain developer build skips it.
export WEIR_REQUIRE_PYTHON=1
# WEIR_DEBUG_INFO (default -g1, line tables; scripts/build.sh) sets the debug information of the
# RelWithDebInfo build; here it also replaces Debug's -g (docs/testing.md, CI section).
debug_flags=()
if [ -n "${WEIR_DEBUG_INFO:-}" ]; then debug_flags=(-DCMAKE_CXX_FLAGS_DEBUG="$WEIR_DEBUG_INFO"); fi
# Both builds link with lld (WEIR_LINKER, default lld: scripts/install-deps.sh installs it;
# WEIR_LINKER= keeps the compiler's default, GNU ld): links are never ccache hits, and the two
# builds' 48 links took 151 CPU-s with GNU ld, 50 with lld (docs/testing.md, "CI and its time",
# session 36). --warn-backrefs with --fatal-warnings keeps GNU ld's rule an error (an archive
# after the objects that use it), so a library missing from a target's link libraries fails here
# as it fails a user's default link.
link_flags=()
linker="${WEIR_LINKER-lld}"
if [ -n "$linker" ]; then
  lf="-fuse-ld=$linker"
  [ "$linker" = lld ] && lf="$lf -Wl,--warn-backrefs -Wl,--fatal-warnings"
  link_flags=(-DCMAKE_EXE_LINKER_FLAGS="$lf" -DCMAKE_SHARED_LINKER_FLAGS="$lf" -DCMAKE_MODULE_LINKER_FLAGS="$lf")
fi
ctest_args=()
if [ "${SANITIZE:-0}" = 1 ]; then
  # One clang build serves the sanitized suites, the libFuzzer targets (scripts/fuzz.sh uses a
  # build configured with WEIR_FUZZ as it is) and the clang compile check: -O0 with line tables
  # compiles a test source in 15 CPU-s where GCC's former -O0 -g ASan build took 25
  # (docs/testing.md, "CI and its time"); weir's libraries and CLI at -O1 (WEIR_LIBRARY_OPT) run
  # the slow sanitized entries 4-6x faster ("The sanitizer job's test time").
  export BUILD_DIR="${BUILD_DIR:-$root/build-asan}"
  export BUILD_TYPE=Debug
  # LeakSanitizer on. Generated programs run on one OpenMP thread: LSan's exit-time thread
  # stopper crashed sporadically in processes whose OpenMP programs had started workers (the
  # plain run covers the multi-threaded schedules).
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
  export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/tests/sanitizer/lsan.supp:print_suppressions=0}"
  export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
  # Exactly Linux's default 8 MiB stack, whatever the caller's `ulimit -s` (unlimited would hide
  # an overflow): every nesting limit fits it in this build too, whose frames are the largest
  # (tests/frontend/test_nesting_stack.cpp, test_call_nesting.cpp and
  # tests/sdfg/test_json_depth_stack.cpp also run them on an 8 MiB thread).
  ulimit -S -s 8192
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
  cxx="${CLANG_CXX:-clang++-14}"
  command -v "$cxx" >/dev/null || { echo "test.sh: SANITIZE=1 needs $cxx (scripts/install-deps.sh)" >&2; exit 1; }
  bash "$root/scripts/build.sh" -DCMAKE_CXX_COMPILER="$cxx" -DWEIR_WERROR="${WEIR_WERROR:-ON}" \
    -DWEIR_SANITIZE=ON -DWEIR_FUZZ=ON -DWEIR_BUILD_BENCH=OFF -DWEIR_REQUIRE_VIEWER=ON \
    "-DWEIR_TEST_SUITES=pycode;sdfg;frontend;cli;transforms;runtime;orchestration;sdfgdiff;codegen;mesh;lit" \
    -DCMAKE_CXX_FLAGS_DEBUG="-O0 -gline-tables-only" -DWEIR_LIBRARY_OPT=-O1 ${link_flags[@]+"${link_flags[@]}"}
  # Entries whose time goes into g++/nvcc building *unsanitized* generated programs are left out
  # here (tests/sanitizer/exclude.txt says which and why); the plain run has them all.
  exclude="$(grep -v '^#' "$root/tests/sanitizer/exclude.txt" | grep -v '^$' | paste -sd '|')"
  ctest_args=(-E "$exclude")
else
  export BUILD_DIR="${BUILD_DIR:-$root/build-test}"
  bash "$root/scripts/build.sh" -DWEIR_WERROR="${WEIR_WERROR:-ON}" -DWEIR_REQUIRE_VIEWER=ON ${debug_flags[@]+"${debug_flags[@]}"} \
    ${link_flags[@]+"${link_flags[@]}"}
fi
if [ ! -d "$root/../shared/corpus/dace" ]; then
  echo "warning: ../shared/corpus/dace is missing; corpus tests will fail" >&2
fi
# One precompiled prelude header for all ctest entries: each entry has a program cache of its own,
# and each built its own 19 MB header in it (423 in session 34's plain run, 0.6 CPU-s each;
# runtime/src/prelude_pch.h, docs/testing.md "CI and its time"). A caller's WEIR_PCH_DIR wins,
# and WEIR_PCH_DIR= (empty) keeps each header in its program cache.
WEIR_PCH_DIR="${WEIR_PCH_DIR-$(cd "$BUILD_DIR" && pwd)/test-scratch/shared-caches/pch}"
export WEIR_PCH_DIR
ctest --test-dir "$BUILD_DIR" --output-on-failure -j "${JOBS:-2}" ${ctest_args[@]+"${ctest_args[@]}"}
