// The `weir tune` section of the benchmarks (issue 39's figure: `weir tune` >= 1.15x faster than
// `--auto cpu` on at least half of the stencil kernels, never slower): for every kernel whose
// weir variant comes from a program `weir tune` takes, the real `weir tune` command at the
// bench's sizes and inputs, then the tuned script's program timed against `--auto cpu`
// interleaved in the bench's own rounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "kernel_cases.h"
#include "tune_targets.h"

namespace weir::bench {

/// How the section runs `weir tune`.
struct TuneBenchSettings {
  std::string weir;      ///< the `weir` executable
  std::string work_dir;  ///< per kernel: its inputs (.npy), the tuned script, the log, tune's output
  double budget_s = 25;  ///< `--budget` per kernel
  std::size_t max_candidates = 0;  ///< `--max-candidates` (0: only the budget stops the search)
  std::uint64_t seed = 0;          ///< `--seed`
};

/// The settings for a size preset: at "full" a 25 s budget per kernel (nine kernels: under
/// five minutes with compiling and timing); at "tiny" (CI) the baseline and one candidate.
TuneBenchSettings tune_bench_settings(const Sizes& sizes, const std::string& weir,
                                      const std::string& work_dir);

/// Runs the section on the kernels of `only` (all when empty) that have a tunable weir variant
/// (Variant::tune_source), as `st` says. Returns {"settings": ..., "kernels": [...], "targets": [...]}: per
/// kernel the tuned script's choices, threads and steps, tune's own speed-up, and both
/// programs' times from the interleaved rounds with their speed-up; the targets ">= 1.15x on at
/// least half" and "never slower" (evaluated at full size only). Sets `failed` when `weir tune`
/// fails or a program's outputs disagree with the hand-written kernel's.
nlohmann::json run_tune_benchmarks(const Sizes& sizes, const Paths& paths,
                                   const std::vector<std::string>& only, const TuneBenchSettings& st,
                                   bool& failed);

}  // namespace weir::bench
