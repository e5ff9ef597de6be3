#!/usr/bin/env bash
# The GPU path on a machine with a CUDA device (ADR 0020), in one command, bounded to minutes:
#  1. builds `weir` and the suites with GPU tests (runtime, examples);
#  2. runs those GPU tests (nvcc compiles, the host-emulation harness);
#  3. runs every field-view example on --backend gpu and --backend cpu on the same seeded random
#     inputs and prints a table: the largest difference per example and the time per call.
# Without a device, step 3 prints "not run: no GPU" (weir run --backend gpu says "no CUDA device").
# Results go to out/gpu-check/. Sizes: SIZE=small (default, seconds) or SIZE=large (512 x 512 x 80).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export BUILD_DIR="${BUILD_DIR:-$root/build}"
out="$root/out/gpu-check"
mkdir -p "$out"
echo "== 1. building weir and the GPU test suites into $BUILD_DIR"
BUILD_TARGETS="weir weir_runtime_tests weir_examples_tests" bash "$root/scripts/build.sh" >"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
weir="$BUILD_DIR/bin/weir"
echo "== 2. GPU tests (nvcc compiles, emulation harness)"
"$BUILD_DIR/tests/weir_runtime_tests" "[gpu]" | tail -3
"$BUILD_DIR/tests/weir_examples_tests" "examples: every example's CUDA program compiles with nvcc" | tail -3
echo "== 3. examples on --backend gpu vs --backend cpu"
if [ "${SIZE:-small}" = large ]; then sizes="--set I=512 --set J=512 --set K=80"; else sizes="--set I=64 --set J=64 --set K=16"; fi
printf "%-44s %-12s %-12s %-12s %s\n" example cpu-call gpu-call max-abs-diff status
for spec in cartesian/laplacian.py::laplacian cartesian/laplacian.py::bi_laplacian cartesian/hdiff.py::hdiff_program \
  cartesian/heat3d.py::heat3d cartesian/vertical_solver.py::vertical_solver; do
  name="${spec##*::}"
  for b in cpu gpu; do
    rm -rf "$out/$name-$b"
    if ! "$weir" run --backend "$b" "$root/examples/$spec" --random-inputs --seed 1 $sizes --repeat 5 \
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
