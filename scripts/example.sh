#!/usr/bin/env bash
# The main job on an example, end to end. Builds the `weir` binary (not the tests), then:
#  1. takes the COSMO horizontal diffusion written in gt4py's field-view language
#     (examples/cartesian/hdiff.py): type-checks it, exports its SDFG (out/hdiff.sdfg, loadable by
#     DaCe and SDFV) and the SDFG auto-optimized for the CPU (out/hdiff_opt.sdfg, naming the
#     passes applied), lowers + auto-optimizes + compiles it for the CPU backend (C++/OpenMP,
#     cached) and runs it at a realistic size (256 x 256 x 80 interior) on seeded random inputs,
#     printing the result summary and the time per call;
#  2. runs the same program on the embedded backend (the interpreter that is weir's reference
#     semantics) on the same inputs and compares the two results;
#  3. compiles DaCe's own hdiff SDFG (../shared/corpus/dace) for the CPU backend, runs it on the
#     corpus inputs and compares with DaCe's expected output;
#  4. when the Python module was built (pybind11-dev, python3-dev), runs examples/python/hdiff.py:
#     hdiff from Python on NumPy arrays of step 1's size (`import weir`, the program cache's
#     library of step 1), checked against the same diffusion written in NumPy.
# Results go to out/.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
export BUILD_DIR="${BUILD_DIR:-$root/build}"
# Only the `weir` binary and its libraries (the test suites are built by scripts/test.sh).
echo "== building weir into $BUILD_DIR (first time: minutes, see README; then cached)"
BUILD_TARGETS=weir bash "$root/scripts/build.sh"
# The Python module too, where CMake found pybind11 and Python's headers (python/CMakeLists.txt).
if [ -f "$BUILD_DIR/python/weir/__init__.py" ]; then
  cmake --build "$BUILD_DIR" -j "${JOBS:-2}" --target weir_python
fi
weir="$BUILD_DIR/bin/weir"
corpus="$root/../shared/corpus/dace"
out="$root/out"
src="$root/examples/cartesian/hdiff.py"
mkdir -p "$out/hdiff-in"

echo "== 1. field-view hdiff on the cpu backend"
"$weir" check "$src"
"$weir" sdfg "$src::hdiff_program" -o "$out/hdiff.sdfg"
# What `weir run --backend cpu` does before compiling, written out to look at (`weir view`).
"$weir" optimize "$out/hdiff.sdfg" --auto cpu -o "$out/hdiff_opt.sdfg"
/usr/bin/python3 - "$out/hdiff-in" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(2026)
shape = (260, 260, 80)  # 256 x 256 interior plus the 2-point halo hdiff reads
for name in ("u", "coeff"):  # the output `out` is allocated by weir
    np.save(f"{sys.argv[1]}/{name}.npy", rng.uniform(-1.0, 1.0, shape))
PY
"$weir" run "$src::hdiff_program" --backend cpu --in-dir "$out/hdiff-in" --repeat 5 --out "$out/hdiff-cpu"

echo "== 2. the same program on the embedded backend (reference semantics)"
"$weir" run "$src::hdiff_program" --backend embedded --in-dir "$out/hdiff-in" --out "$out/hdiff-embedded"
/usr/bin/python3 - "$out/hdiff-cpu/out.npy" "$out/hdiff-embedded/out.npy" <<'PY'
import sys, numpy as np
a, e = np.load(sys.argv[1]), np.load(sys.argv[2])
err = np.max(np.abs(a - e) / np.maximum(np.abs(e), 1.0))
ok = err <= 1e-12
print(f"hdiff cpu vs embedded: max relative error {err:.2e} -> {'OK' if ok else 'MISMATCH'}")
sys.exit(0 if ok else 1)
PY

echo "== 3. DaCe's hdiff SDFG compiled by weir, against DaCe's expected output"
input="${1:-$corpus/hdiff/hdiff.auto_optimized_cpu.sdfg}"
"$weir" validate "$input"
"$weir" run "$input" --backend cpu --in-dir "$corpus/hdiff/inputs" --set-json "$corpus/hdiff/symbols.json" \
  --out "$out/hdiff-corpus"
/usr/bin/python3 - "$out/hdiff-corpus/out_field.npy" "$corpus/hdiff/expected/out_field.npy" <<'PY'
import sys, numpy as np
a, e = np.load(sys.argv[1]), np.load(sys.argv[2])
ok = np.allclose(a, e, rtol=1e-12, atol=0)
print(f"hdiff vs DaCe's expected output: max relative error {np.max(np.abs(a - e) / np.abs(e)):.2e} -> {'OK' if ok else 'MISMATCH'}")
sys.exit(0 if ok else 1)
PY

if [ -f "$BUILD_DIR/python/weir/__init__.py" ]; then
  echo "== 4. hdiff from Python: import weir, NumPy arrays passed without copying, checked against NumPy"
  # examples/python/hdiff.py at step 1's size: the program cache holds step 1's library.
  PYTHONPATH="$BUILD_DIR/python" /usr/bin/python3 "$root/examples/python/hdiff.py" --size 256 256 80 --repeat 5
fi
