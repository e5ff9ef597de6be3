// `weir tune`'s search space (docs/adr/0056-weir-tune.md): the choices it varies around the
// auto-optimize-cpu pipeline (fusion, collapse, tiling, schedules, SIMD lanes, OpenMP loop
// schedules, streaming stores, scan blocking, thread counts) and the seed-determined order in
// which candidates are visited. Every candidate is a transformation script
// (docs/transformation-scripts.md) plus a thread count.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace weir::cli {

/// One point of the search space.
struct TuneCandidate {
  /// "auto-optimize-cpu", "tiling=16,64,1 threads=1", or the file of a --candidate script.
  std::string label;
  /// The choices that differ from auto-optimize-cpu (knob -> value); empty for the baseline and
  /// for scripts given by the user.
  std::vector<std::pair<std::string, std::string>> choices;
  /// The script's steps (a JSON list, docs/transformation-scripts.md).
  nlohmann::json steps;
  /// OpenMP threads of its calls; 0: the default (one per hardware thread, or OMP_NUM_THREADS).
  unsigned threads = 0;
  /// Where it comes from: "baseline", "single" (one choice changed), "winners" (singles that won
  /// alone, combined: tune_winners.h), "drawn" (a combination the seed drew), "user" (--candidate).
  std::string phase;
};

/// The candidates in the order `weir tune` evaluates them: first auto-optimize-cpu itself (the
/// baseline, one step `{"pass": "auto-optimize-cpu"}`), then every candidate that changes one
/// choice of it, then candidates that change several (at most `combinations` of them), each
/// group in an order that depends only on `seed`. `hardware_threads` sets the thread counts
/// tried (all of them, half, one). Equal seeds give equal lists, on every machine with the same
/// hardware thread count.
std::vector<TuneCandidate> tune_candidates(std::uint64_t seed, unsigned hardware_threads,
                                           std::size_t combinations = 48);

/// The candidate that makes the choices `changed` (knob, value; the others as auto-optimize-cpu makes them):
/// its label, steps and threads as tune_candidates gives them, its choices in the space's knob order
/// whatever their order in `changed`. Empty: the baseline. Its phase is left empty.
TuneCandidate tune_candidate(const std::vector<std::pair<std::string, std::string>>& changed);

/// "fusion=none tiling=16,64,1" (the baseline: "auto-optimize-cpu").
std::string choices_text(const std::vector<std::pair<std::string, std::string>>& choices);

}  // namespace weir::cli
