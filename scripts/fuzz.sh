#!/usr/bin/env bash
# Builds weir's libFuzzer targets (tests/fuzz) with clang++ in BUILD_DIR (default build-fuzz;
# never a GCC build) and runs each for FUZZ_SECONDS (default 600; CI: 60) under ASan + UBSan,
# JOBS targets at once (default 2). Seed corpora are gathered at run time from examples/,
# ../shared/corpus and tests/fuzz/seeds into BUILD_DIR/corpus/<target> (kept between runs, so
# long runs accumulate coverage); findings (crash-*, leak-*, timeout-*) go to
# BUILD_DIR/findings/<target>, and the script fails when there are any.
#   scripts/fuzz.sh                 # build, then every target for 10 minutes
#   FUZZ_SECONDS=60 scripts/fuzz.sh sdfg npy   # two targets for a minute each
#   FUZZ_RUNS=ci scripts/fuzz.sh    # CI: a fixed number of inputs per target from a fixed random
#                                   # seed and fresh seed corpora, so a run is repeatable (same
#                                   # code, same inputs, same verdict) and can gate a merge
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build-fuzz}"
cxx="${CLANG_CXX:-clang++-14}"
seconds="${FUZZ_SECONDS:-600}"
all=(fieldview sdfg simplify script npy json layout)
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=("${all[@]}")
command -v "$cxx" >/dev/null || { echo "fuzz: $cxx not found (apt-get install clang-14 libclang-rt-14-dev)" >&2; exit 1; }

# A build directory already configured with -DWEIR_FUZZ=ON is used as it is (e.g. a clang build
# with -DWEIR_SANITIZE=ON and the suites too; docs/testing.md, "CI"). Otherwise: -O1, libFuzzer's usual level (fast enough to fuzz, quick to compile); no tests,
# benchmarks or viewer.
if ! grep -qs '^WEIR_FUZZ:BOOL=ON$' "$build/CMakeCache.txt"; then
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DWEIR_FUZZ=ON -DCMAKE_BUILD_TYPE=None \
    -DCMAKE_CXX_FLAGS="-O1 -g" -DWEIR_BUILD_TESTS=OFF -DWEIR_BUILD_BENCH=OFF -DWEIR_VIEWER=OFF >/dev/null
fi
cmake --build "$build" -j "${JOBS:-2}" --target $(printf 'fuzz_%s ' "${targets[@]}")

# Seeds: small files only (under ASan one 30 KB SDFG takes a second to load, validate and save).
# FUZZ_RUNS=ci: libFuzzer's -runs=N -seed=1 per target, about a minute each at CI's -O0 ASan
# (executions per minute measured 2026-12-02 from build-asan, docs/testing.md), on a corpus made
# afresh from the seeds (corpus-ci/) so that earlier runs' inputs do not change the sequence.
ci_runs() {  # ci_runs TARGET: the number of inputs FUZZ_RUNS=ci runs
  case "$1" in
    fieldview) echo 5000 ;; sdfg) echo 10000 ;; simplify) echo 3500 ;;
    script) echo 400 ;; npy) echo 300000 ;; json) echo 50000 ;;
    # layout compiles and runs what validates (about 1 s per new program under ASan, equal
    # programs come from its cache): WEIR_FUZZ_LAYOUT_COMPILES below caps the compiles.
    layout) echo 2000 ;;
  esac
}
corpus_root="$build/corpus"
if [ "${FUZZ_RUNS:-}" = ci ]; then
  corpus_root="$build/corpus-ci"
  rm -rf "$corpus_root"
fi
seed() {  # seed TARGET FILE...
  local dir="$corpus_root/$1"; shift
  mkdir -p "$dir"
  for f in "$@"; do
    # Named by content, not path: a clone elsewhere (CI's) gets the same names, hence the same
    # corpus order and, with FUZZ_RUNS=ci, the same inputs.
    [ -f "$f" ] && [ "$(stat -c %s "$f")" -le 16384 ] && cp -f "$f" "$dir/$(sha1sum < "$f" | cut -c1-16)-$(basename "$f")"
  done
  return 0
}
corpus="$root/../shared/corpus"
seed fieldview $(find "$root/examples" -name '*.py') "$root"/tests/fuzz/seeds/fieldview/*
seed sdfg $(find "$corpus" -name '*.sdfg' 2>/dev/null)
seed simplify $(find "$corpus" -name '*.sdfg' 2>/dev/null)
# Sorted before choosing 40: find's order is the file system's, so an unsorted head picked other
# files on CI's machine than here, and FUZZ_RUNS=ci ran other inputs (stop 56 failed on one).
seed npy $(find "$corpus" -name '*.npy' -size -8k 2>/dev/null | LC_ALL=C sort | head -40)
seed script "$root"/tests/fuzz/seeds/script/*
seed json "$root"/tests/fuzz/seeds/json/* $(find "$corpus" -name 'symbols.json' -o -name 'scalars.json' 2>/dev/null)
seed layout "$root"/tests/fuzz/seeds/layout/*

run_one() {  # run_one TARGET
  local t="$1" max_len=16384
  [ "$t" = npy ] && max_len=4096
  [ "$t" = script ] || [ "$t" = json ] && max_len=2048
  [ "$t" = layout ] && max_len=64
  mkdir -p "$build/findings/$t"
  local length=(-max_total_time="$seconds")
  [ "${FUZZ_RUNS:-}" = ci ] && length=(-runs="$(ci_runs "$t")" -seed=1)
  # The layout target compiles C++ per new program: CI caps it at 40 compiles (about 40 s under
  # ASan); long runs set no cap unless WEIR_FUZZ_LAYOUT_COMPILES is given. fieldview and sdfg
  # compile each accepted program twice (cpu backend, CUDA emulation; tests/fuzz/gpu_path.h):
  # CI caps them at 8 programs each, the smallest seeds (libFuzzer runs seeds by size), which
  # include tests/fuzz/seeds/fieldview/implicit_scan.py; WEIR_FUZZ_CUDA_COMPILES overrides it.
  local compiles="${WEIR_FUZZ_LAYOUT_COMPILES:-}" cuda="${WEIR_FUZZ_CUDA_COMPILES:-}"
  [ -z "$compiles" ] && [ "${FUZZ_RUNS:-}" = ci ] && compiles=40
  [ -z "$cuda" ] && [ "${FUZZ_RUNS:-}" = ci ] && cuda=8
  # Leak checks stay on; a unit that runs past 20 s is a finding (timeout-*), as is >2 GiB.
  WEIR_FUZZ_LAYOUT_COMPILES="$compiles" WEIR_FUZZ_CUDA_COMPILES="$cuda" \
  ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1}" UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}" \
    "$build/fuzz/fuzz_$t" "${length[@]}" -timeout=20 -rss_limit_mb=2048 -max_len="$max_len" \
    -dict="$root/tests/fuzz/$t.dict" -artifact_prefix="$build/findings/$t/" -print_final_stats=1 \
    "$corpus_root/$t" > "$build/findings/$t.log" 2>&1
}
export -f run_one ci_runs
export build root seconds corpus_root FUZZ_RUNS="${FUZZ_RUNS:-}"
status=0
printf '%s\n' "${targets[@]}" | xargs -P "${JOBS:-2}" -I{} bash -c 'run_one "$1" && echo "fuzz: $1 ok ($(grep -o "stat::number_of_executed_units: [0-9]*" "$build/findings/$1.log" | cut -d" " -f2) runs)" || { echo "fuzz: $1 FAILED, see $build/findings/$1.log:"; tail -40 "$build/findings/$1.log"; exit 1; }' _ {} || status=1
exit $status
