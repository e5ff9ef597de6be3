// What `weir tune` writes (docs/adr/0056-weir-tune.md): the best candidate as a replayable
// script whose header gives its measured speed-up, and the log of every candidate.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tune_search.h"

namespace weir::cli {

/// What the files say about the run besides the search's outcome.
struct TuneContext {
  std::string program;  ///< FILE as given
  std::string script;   ///< the script's path (-o)
  std::uint64_t seed = 0;
  double budget_s = 0;
  /// Commands that turn the program into the tuned SDFG with the script.
  std::vector<std::string> reproduce;
  /// The sizes of the calls: per dimension of a field-view program (I=256), else per symbol.
  std::map<std::string, std::int64_t> sizes;
  std::string load;         ///< /proc/loadavg when the search ended
  std::string load_before;  ///< /proc/loadavg before the search
  /// The baseline's calls' interquartile range / median within their series (tune_load.h's
  /// within_series_spread: what load_warning judges).
  double baseline_spread = 0;
  /// The same of all its calls pooled (relative_spread; before session 33 what was judged): the
  /// difference is the level moving from one series to the next.
  double baseline_spread_pooled = 0;
  /// Why the ratios are unreliable (tune_load.h's load_warning), "" when nothing says so.
  std::string load_warning;
};

/// The tuned script: `{"weir_tune": {header}, "steps": [...]}`, which `weir optimize --script`
/// reads as the list of steps (it takes "steps" of an object). The header's "comment" says the
/// speed-up over --auto cpu in words; its fields give it, the times per call, the threads, the
/// choices, how many candidates were evaluated and whether the search was cut short.
nlohmann::ordered_json tuned_script(const TuneOutcome& o, const TuneContext& ctx);

/// The log: the run's settings and outcome and one entry per candidate evaluated (its script,
/// threads, status, why it was rejected or failed, times per call, speed-up, cost).
nlohmann::ordered_json tune_log(const TuneOutcome& o, const TuneContext& ctx);

/// The sentence about the search's extent: "evaluated 9 of 83 candidates in 58.2 s; the budget
/// cut the search short, so a rerun (faster with the compile cache) may evaluate more and pick
/// another" (or "... all 83 candidates ...").
std::string extent_text(const TuneOutcome& o);

}  // namespace weir::cli
