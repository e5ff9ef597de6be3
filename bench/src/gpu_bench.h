// The GPU rows of the kernel benchmarks (issue 12, ADR 0020): hdiff, laplacian, heat3d,
// vertical_solver, nabla and cell_laplacian from their field-view sources, optimized by
// `auto_optimize(GPU)` (arguments in GPU_Global memory), compiled by the gpu backend (nvcc),
// run on data already on the device and timed per call; each program's outputs are checked
// against the hand-written CPU kernel first. Effective bandwidth (KernelCase::min_bytes over the
// median time) is compared with a device STREAM-like probe (copy and triad, hand-written CUDA
// compiled by the same nvcc) in the same run. Without a CUDA device every row says
// "not run: no GPU" and nothing is compiled.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "kernel_cases.h"

namespace weir::bench {

/// The GPU problem sizes for a preset: "tiny" as the CPU's (CI, emulation-sized), "full" sized to
/// fill a large GPU (1024 x 1024 x 80 Cartesian points, a mesh of 2 x 512 x 512 cells x 80
/// levels, 2^26 doubles per probe array: 512 MiB each, past any L2 cache).
Sizes gpu_sizes(const Sizes& base);

/// Runs the GPU rows of the kernels named in `only` (all six when empty). Prints a table and
/// returns {"device": ..., "probe": ..., "kernels": [...]}; rows are "not run: no GPU" when
/// there is no device (not a failure). Sets `failed` when a program fails to compile or run or
/// its outputs differ from the hand-written kernel's by more than kOutputTolerance.
nlohmann::json run_gpu_benchmarks(const Sizes& sizes, const Paths& paths,
                                  const std::vector<std::string>& only, bool& failed);

}  // namespace weir::bench
