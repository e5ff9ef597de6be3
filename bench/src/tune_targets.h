// The targets of the `weir tune` section (issue 39's figure), evaluated from its kernels' JSON.
#pragma once

#include <nlohmann/json.hpp>

namespace weir::bench {

/// The figure: a kernel counts as sped up when the tuned program's median is at least
/// this many times faster than `--auto cpu`'s.
inline constexpr double kTuneTargetSpeedup = 1.15;
/// "Never slower", with the noise `weir tune` itself allows (its kMinGain): a tuned program
/// whose speed-up is below this is slower.
inline constexpr double kTuneNeverSlower = 0.97;

/// The section's target rows from its kernels' JSON (as run_tune_benchmarks returns them):
/// [{"target", "measured", "met"}], "met" null when nothing was measured.
nlohmann::json tune_targets(const nlohmann::json& kernels);

}  // namespace weir::bench
