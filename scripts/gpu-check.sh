#!/usr/bin/env bash
# The GPU path on a machine with a CUDA device (ADR 0020), in one command, bounded to minutes
# (under 8 on a fresh 16-core GPU machine):
#  1. builds `weir`, weir-bench and the suites with GPU tests (runtime, examples);
#  2. runs those GPU tests (nvcc compiles, the host-emulation harness);
#  3. runs the Cartesian and unstructured field-view examples on --backend gpu and --backend cpu on
#     the same seeded random inputs and prints a table: the largest difference per example and
#     the time per call;
#  4. runs DaCe's laplace2d, jacobi_2d and hdiff after `weir optimize --auto gpu` (arguments in
#     GPU_Global memory: the runtime copies them to the device and back) against DaCe's outputs;
#  5. the GPU benchmark rows (`weir-bench gpu`: effective bandwidth vs a device STREAM probe).
# Without a device, steps 3-5 print "not run: no GPU" (weir run --backend gpu says "no CUDA
# device"). Results go to out/gpu-check/. Sizes for step 3: SIZE=small (default, seconds) or
# SIZE=large (512 x 512 x 80); step 5 uses weir-bench's full GPU size (BENCH_SIZE=tiny for a
# quick run).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export BUILD_DIR="${BUILD_DIR:-$root/build}"
out="$root/out/gpu-check"
mkdir -p "$out"
echo "== 1. building weir and the GPU test suites into $BUILD_DIR"
BUILD_TARGETS="weir weir-bench weir_runtime_tests weir_examples_tests" bash "$root/scripts/build.sh" >"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
weir="$BUILD_DIR/bin/weir"
echo "== 2. GPU tests (nvcc compiles, emulation harness)"
"$BUILD_DIR/tests/weir_runtime_tests" "[gpu]" | tail -3
"$BUILD_DIR/tests/weir_examples_tests" "examples: every example's CUDA program compiles with nvcc" | tail -3
echo "== 3. examples on --backend gpu vs --backend cpu"
if [ "${SIZE:-small}" = large ]; then
  sizes="--set I=512 --set J=512 --set K=80"; mesh="--nx 256 --ny 256"; ksize="--set K=80"
else
  sizes="--set I=64 --set J=64 --set K=16"; mesh="--nx 16 --ny 12"; ksize="--set K=8"
fi
"$weir" mesh $mesh -o "$out/mesh" >/dev/null
printf "%-44s %-12s %-12s %-12s %s\n" example cpu-call gpu-call max-abs-diff status
for spec in cartesian/laplacian.py::laplacian cartesian/laplacian.py::bi_laplacian cartesian/hdiff.py::hdiff_program \
  cartesian/heat3d.py::heat3d cartesian/vertical_solver.py::vertical_solver \
  unstructured/nabla.py::nabla_program unstructured/cell_laplacian.py::cell_laplacian; do
  name="${spec##*::}"
  case "$spec" in
    unstructured/nabla.py*) extra="--in V2E=$out/mesh/V2E.npy --in E2V=$out/mesh/E2V.npy $ksize" ;;
    unstructured/*) extra="--in C2E2CO=$out/mesh/C2E2CO.npy $ksize" ;;
    *) extra="$sizes" ;;
  esac
  for b in cpu gpu; do
    rm -rf "$out/$name-$b"
    if ! "$weir" run --backend "$b" "$root/examples/$spec" --random-inputs --seed 1 $extra --repeat 5 \
      --out "$out/$name-$b" >"$out/$name-$b.log" 2>&1; then
      echo "$b failed: $(grep -m1 error "$out/$name-$b.log" || tail -1 "$out/$name-$b.log")" >"$out/$name-$b.status"
    fi
  done
  /usr/bin/python3 - "$out" "$name" "$spec" <<'PY'
import glob, os, re, sys
import numpy as np
out, name, spec = sys.argv[1:4]
def secs(b):
    # The fastest of the --repeat calls ("call N: T ...").
    ts = re.findall(r"^call [0-9]+: ([0-9.eE+-]+)", open(os.path.join(out, f"{name}-{b}.log")).read(), re.M)
    return f"{min(map(float, ts)):.4g}" if ts else "-"
status = [open(p).read().strip() for p in glob.glob(os.path.join(out, f"{name}-*.status"))]
if any("no CUDA device" in s for s in status):
    print(f"{spec:44} {secs('cpu'):12} {'-':12} {'-':12} not run: no GPU")
elif status:
    print(f"{spec:44} {secs('cpu'):12} {'-':12} {'-':12} {status[0]}")
else:
    diff = 0.0
    for f in glob.glob(os.path.join(out, f"{name}-cpu", "*.npy")):
        a, g = np.load(f), np.load(os.path.join(out, f"{name}-gpu", os.path.basename(f)))
        diff = max(diff, float(np.max(np.abs(a - g))) if a.size else 0.0)
    print(f"{spec:44} {secs('cpu'):12} {secs('gpu'):12} {diff:<12.3g} {'ok' if diff <= 1e-12 else 'DIFFERS'}")
PY
  rm -f "$out/$name-"*.status
done
echo "== 4. DaCe's corpus after weir optimize --auto gpu (GPU_Global arguments) vs DaCe's outputs"
corpus="$root/../shared/corpus/dace"
for k in laplace2d jacobi_2d hdiff; do
  [ -d "$corpus/$k" ] || { echo "$k: no corpus at $corpus"; continue; }
  rm -rf "$out/$k-gpu"
  "$weir" optimize "$corpus/$k/$k.simplified.sdfg" --auto gpu -o "$out/$k.gpu.sdfg" >/dev/null
  scalars=""; [ -f "$corpus/$k/scalars.json" ] && scalars="--set-json $corpus/$k/scalars.json"
  if ! "$weir" run --backend gpu "$out/$k.gpu.sdfg" --in-dir "$corpus/$k/inputs" \
    --set-json "$corpus/$k/symbols.json" $scalars --out "$out/$k-gpu" >"$out/$k-gpu.log" 2>&1; then
    if grep -q "no CUDA device" "$out/$k-gpu.log"; then echo "$k: not run: no GPU"; else echo "$k: FAILED: $(tail -1 "$out/$k-gpu.log")"; fi
    continue
  fi
  /usr/bin/python3 - "$corpus/$k/expected" "$out/$k-gpu" "$k" <<'PY'
import glob, os, sys
import numpy as np
expected, got, k = sys.argv[1:4]
worst = 0.0
for f in sorted(glob.glob(os.path.join(expected, "*.npy"))):
    e, g = np.load(f), np.load(os.path.join(got, os.path.basename(f)))
    worst = max(worst, float(np.max(np.abs(e - g) / np.maximum(np.abs(e), 1e-300))) if e.size else 0.0)
print(f"{k}: largest relative difference to DaCe's outputs {worst:.3g} {'ok' if worst <= 1e-12 else 'DIFFERS'}")
PY
done
echo "== 5. GPU benchmark rows (weir-bench gpu)"
OMP_PROC_BIND=close "$BUILD_DIR/bin/weir-bench" gpu --size "${BENCH_SIZE:-full}" --json "$out/bench-gpu.json" |
  sed -n '/GPU rows/,$p'
