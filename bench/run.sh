#!/usr/bin/env bash
# Runs every benchmark once at full size and regenerates docs/benchmarks.md from its JSON.
#
#   bash bench/run.sh                 # full size: kernels, toolchain, scaling (a few minutes)
#   SIZE=tiny bash bench/run.sh       # the CI size (seconds); writes out/bench/ only
#   THREADS=8 BIND=spread bash bench/run.sh
#
# Builds weir-bench first (BUILD_DIR, default build/). Threads and pinning are explicit and
# recorded in the results: OMP_NUM_THREADS (default: all online CPUs), OMP_PROC_BIND (default
# close), OMP_PLACES (default cores). Results: out/bench/results-<size>.json; a full run also
# rewrites docs/benchmarks.md.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
size="${SIZE:-full}"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${BUILD_TYPE:-RelWithDebInfo}" >/dev/null
cmake --build "$build" -j "${JOBS:-2}" --target weir-bench weir_bench_scale weir_bench_orchestration weir

export OMP_NUM_THREADS="${THREADS:-$(nproc)}"
export OMP_PROC_BIND="${BIND:-close}"
export OMP_PLACES="${PLACES:-cores}"
commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [ -n "$(git -C "$root" status --porcelain 2>/dev/null)" ]; then commit="$commit+changes"; fi
mkdir -p "$root/out/bench"
json="$root/out/bench/results-$size.json"
rc=0
"$build/bin/weir-bench" all --size "$size" --commit "$commit" --json "$json" "$@" | tee "$root/out/bench/log-$size.txt" || rc=$?
if [ "$size" = full ] && [ -s "$json" ]; then
  # Issue 17's scale benchmark (its own tool): chains of 250 and 1,000 stencils compiled, 10,000
  # up to C++ generation, and source to loaded program for hdiff.
  scale=()
  (cd "$root" && "$build/bin/weir_bench_scale" --n 250,1000 --compile --json out/bench/scale-chains.json &&
     "$build/bin/weir_bench_scale" --n 10000 --json out/bench/scale-10000.json &&
     "$build/bin/weir_bench_scale" --source examples/cartesian/hdiff.py::hdiff_program --repeats 5 \
       --json out/bench/scale-hdiff.json) | tee "$root/out/bench/log-scale.txt" || rc=1
  for f in scale-chains scale-10000 scale-hdiff; do
    [ -s "$root/out/bench/$f.json" ] && scale+=(--scale "$root/out/bench/$f.json")
  done
  # Issue 34's orchestrated granules: one SDFG vs call by call, kernel time and compile time.
  oj="$root/out/bench/orchestration.json"
  rm -f "$oj"
  "$build/bin/weir_bench_orchestration" --json "$oj" | tee "$root/out/bench/log-orchestration.txt" || rc=1
  orchestration_args=()
  if [ -s "$oj" ]; then orchestration_args=(--orchestration "$oj"); fi
  # The npbench kernels (DaCe's SDFGs) against NumPy: bench/npbench.py, Debian's python3-numpy.
  nb="$root/out/bench/npbench.json"
  /usr/bin/python3 "$root/bench/npbench.py" --weir "$build/bin/weir" --threads "$OMP_NUM_THREADS" --json "$nb" \
    | tee "$root/out/bench/log-npbench.txt" || rc=1
  npbench_args=()
  if [ -s "$nb" ]; then npbench_args=(--npbench "$nb"); fi
  # The Python module's call overhead and hdiff from Python against weir run (bench/python_api.py),
  # when the module is built (WEIR_PYTHON, Debian's python3-dev and pybind11-dev).
  python_args=()
  if ls "$build"/python/weir/_weir*.so >/dev/null 2>&1; then
    pj="$root/out/bench/python.json"
    rm -f "$pj"
    (cd "$root" && PYTHONPATH="$build/python" /usr/bin/python3 "$root/bench/python_api.py" --weir "$build/bin/weir" \
       --json "$pj") | tee "$root/out/bench/log-python.txt" || rc=$?
    if [ -s "$pj" ]; then python_args=(--python "$pj"); fi
  else
    echo "bench: the Python module is not built ($build/python/weir): no Python rows"
  fi
  # Issue 39's profiling figures (bench/profile_bench.py): `weir run --profile`'s overhead on hdiff,
  # interleaved with unprofiled runs, and the profile's bytes against the stencils' minimum traffic.
  pf="$root/out/bench/profile.json"
  rm -f "$pf"
  (cd "$root" && /usr/bin/python3 "$root/bench/profile_bench.py" --weir "$build/bin/weir" --threads "$OMP_NUM_THREADS" \
     --json "$pf") | tee "$root/out/bench/log-profile.txt" || rc=$?
  profile_args=()
  if [ -s "$pf" ]; then profile_args=(--profile "$pf"); fi
  # Issue 38's scaling on 1, 2, 4 MPI ranks (bench/mpi_scaling.py), when weir is built with MPI.
  mpi_args=()
  # (distributed/ builds its library only where CMake found MPI.)
  if [ -f "$build/distributed/libweir_mpi.a" ] && command -v mpirun >/dev/null; then
    mm="$root/out/bench/mpi-scaling.md"
    rm -f "$mm"
    /usr/bin/python3 "$root/bench/mpi_scaling.py" --weir "$build/bin/weir" --steps 100 > "$mm" || rc=1
    cat "$mm"
    if [ -s "$mm" ]; then mpi_args=(--mpi "$mm"); fi
  else
    echo "bench: weir is built without MPI (or mpirun is missing): no MPI scaling rows"
  fi
  python3 "$root/bench/report.py" "$json" "${scale[@]}" "${npbench_args[@]}" "${python_args[@]}" \
    "${orchestration_args[@]}" "${profile_args[@]}" "${mpi_args[@]}" --source-name "out/bench/results-full.json" -o "$root/docs/benchmarks.md"
  echo "wrote docs/benchmarks.md"
fi
exit $rc
