// The kernel benchmarks: every variant of every kernel compiled, checked against the
// hand-written reference, warmed up and timed interleaved (one call of each variant per
// round, with the bandwidth probe in the same rounds).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "kernel_cases.h"

namespace weir::bench {

/// How far weir's variant of a kernel (its pipeline on the field-view example, else on DaCe's
/// simplified SDFG) may fall behind the hand-written kernel: median time ratio.
inline constexpr double kMaxRatioToHand = 1.2;

/// Runs the kernels whose names are in `only` (all when empty). Prints a table to stdout and
/// returns {"probe": ..., "kernels": [...]}; each kernel with a hand-written variant gets a
/// "target" row and object (ratio to hand <= kMaxRatioToHand), and `not_met` the kernels that
/// miss it ("nabla: weir 7.74x hand"). Sets `failed` when a variant failed or its outputs
/// disagree with the hand-written reference (skipped variants are not failures).
nlohmann::json run_kernel_benchmarks(const Sizes& sizes, const Paths& paths,
                                     const std::vector<std::string>& only, bool& failed,
                                     std::vector<std::string>& not_met);

}  // namespace weir::bench
