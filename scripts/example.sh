#!/usr/bin/env bash
# The main job on an example: builds weir, then loads, validates, summarizes and converts
# DaCe's hdiff SDFG (../shared/corpus/dace), writing the results to out/.
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
"$weir" info "$input"
"$weir" convert "$input" -o "$root/out/$(basename "${input%.sdfg*}").sdfgz"
"$weir" convert "$corpus/laplace2d/laplace2d.simplified.sdfg" --flatten -o "$root/out/laplace2d.flat.sdfg"
"$weir" validate "$root/out/"*.sdfg*
