// One npbench corpus case (kernel x stage of ../shared/corpus/npbench): load the SDFG, pass
// inputs/, symbols.json and scalars.json by name, run once on the cpu backend, and compare every
// expected/NAME.npy (NumPy's result) as the corpus README defines it:
// numpy.allclose(actual, expected, rtol, atol = atol_rel_to_max * max|expected|) with the
// kernel's meta.json `compare`, exact for integers, rtol 1e-5 for float32; where `norm_error`
// is given, ||actual - expected|| / ||expected|| <= norm_error is accepted instead.
#pragma once

#include <string>
#include <vector>

#include "weir/sdfg/types.h"

namespace weir::test {

/// What one case gave: `ok`, or the first reason it did not (an exception's message, a
/// missing output, a mismatch with its largest error).
struct NpbenchOutcome {
  bool ok = false;
  std::string detail;
};

/// The three stages of every kernel, in the corpus's order.
const std::vector<std::string>& npbench_stages();
/// Every kernel folder of the corpus, sorted.
std::vector<std::string> npbench_kernels();
/// Runs one case with a fresh program cache; never throws (failures are in the outcome).
/// `weir_optimized`: weir's own auto-optimize pipeline for `device` (`weir optimize --auto cpu`,
/// or `--auto gpu`, whose kernels the cpu backend runs as host loops) runs on the loaded SDFG
/// first, and the result must still validate. `cuda_emulation`: run on the CUDA host-emulation
/// harness (tests/support/cuda_emulation.h: the gpu backend's CUDA compiled as host C++) instead
/// of the cpu backend.
NpbenchOutcome run_npbench_case(const std::string& kernel, const std::string& stage,
                                bool weir_optimized = false, DeviceType device = DeviceType::CPU,
                                bool cuda_emulation = false);

}  // namespace weir::test
