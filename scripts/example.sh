#!/usr/bin/env bash
# The main job on an example, end to end: builds weir, checks DaCe's hdiff SDFG
# (../shared/corpus/dace), compiles it for the CPU backend (C++/OpenMP, cached) and runs it at a
# realistic size (256 x 256 x 80) on seeded random inputs, printing a result summary and the
# time per call; then runs it on the corpus inputs and compares with DaCe's expected output.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/install-deps.sh"
export BUILD_DIR="${BUILD_DIR:-$root/build}"
bash "$root/scripts/build.sh"
weir="$BUILD_DIR/bin/weir"
corpus="$root/../shared/corpus/dace"
input="${1:-$corpus/hdiff/hdiff.auto_optimized_cpu.sdfg}"
mkdir -p "$root/out"
"$weir" validate "$input"
"$weir" info "$input" | head -4
"$weir" run "$input" --backend cpu --random-inputs --set I=256 --set J=256 --set K=80 --repeat 3 \
  --out "$root/out/hdiff-256x256x80"
"$weir" run "$input" --backend cpu --in-dir "$corpus/hdiff/inputs" --set-json "$corpus/hdiff/symbols.json" \
  --out "$root/out/hdiff-corpus"
/usr/bin/python3 - "$root/out/hdiff-corpus/out_field.npy" "$corpus/hdiff/expected/out_field.npy" <<'PY'
import sys, numpy as np
a, e = np.load(sys.argv[1]), np.load(sys.argv[2])
ok = np.allclose(a, e, rtol=1e-12, atol=0)
print(f"hdiff vs DaCe's expected output: max relative error {np.max(np.abs(a - e) / np.abs(e)):.2e} -> {'OK' if ok else 'MISMATCH'}")
sys.exit(0 if ok else 1)
PY
