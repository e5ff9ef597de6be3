// The kernel benchmarks: every variant of every kernel compiled, checked against the
// hand-written reference, warmed up and timed interleaved (one call of each variant per
// round, with the bandwidth probe in the same rounds).
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "kernel_cases.h"

namespace weir::bench {

/// Runs the kernels whose names are in `only` (all when empty). Prints a table to stdout and
/// returns {"probe": ..., "kernels": [...]}. Sets `failed` when a variant failed or its
/// outputs disagree with the hand-written reference (skipped variants are not failures).
nlohmann::json run_kernel_benchmarks(const Sizes& sizes, const Paths& paths,
                                     const std::vector<std::string>& only, bool& failed);

}  // namespace weir::bench
