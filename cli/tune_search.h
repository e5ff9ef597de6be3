// `weir tune`'s search (docs/adr/0056-weir-tune.md): every candidate script applied to the
// untuned SDFG, compiled, checked against the untuned program's outputs and timed interleaved
// with the baseline (auto-optimize-cpu), in the order tune_space.h gives, within a wall-clock
// budget.
#pragma once

#include <chrono>
#include <cstddef>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "tune_space.h"
#include "weir/runtime/arguments.h"
#include "weir/runtime/backend.h"

namespace weir::cli {

/// What became of one candidate.
struct CandidateResult {
  TuneCandidate candidate;
  /// "baseline", "measured", "rejected" (outputs differ), "failed" (does not apply, compile or
  /// run), "duplicate" (the same generated program and threads as an earlier candidate).
  std::string status;
  /// Why it was rejected, failed or is a duplicate; "" otherwise.
  std::string why;
  /// Seconds per call: its own calls, and the baseline's interleaved with them.
  std::vector<double> seconds, baseline_seconds;
  /// median(baseline_seconds) / median(seconds); 1 for the baseline, 0 when not measured.
  double speedup = 0;
  /// Wall seconds spent on it (applying the script, compiling, checking, timing).
  double cost_s = 0;
  /// When it started, in seconds since the command's start (TuneSettings::start).
  double started_s = 0;
  bool cache_hit = false;
  /// The compiled program's fingerprint (cache key); "" when it did not compile.
  std::string fingerprint;
};

/// The search's settings (from `weir tune`'s command line).
struct TuneSettings {
  double budget_s = 60;
  /// Evaluate at most this many candidates (the baseline included); 0: no limit but the budget.
  std::size_t max_candidates = 0;
  /// When the budget started (the command's start: lowering and the reference count).
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

/// A generated candidate left out before the search: one of its steps applies nowhere on this
/// program (MapVectorization without a sequential innermost map, after split_innermost=off,
/// vectorize=off or a tiling), found by applying its script, without compiling anything.
struct PrunedCandidate {
  TuneCandidate candidate;
  std::string why;  ///< the step and why: "step 15 (MapVectorization): applies nowhere ..."
};

/// The search's outcome.
struct TuneOutcome {
  std::vector<CandidateResult> results;  ///< the candidates evaluated, in order
  std::size_t total = 0;                ///< candidates searched (the space less `pruned`, with --candidate's)
  std::vector<PrunedCandidate> pruned;  ///< left out before the search, in the space's order
  double prune_s = 0;                   ///< wall seconds spent finding them
  std::size_t best = 0;                 ///< index into results (0: the baseline)
  /// The best candidate timed again against the baseline (a fresh series of paired rounds, always
  /// run: the search keeps time for it): the median of the rounds' ratios (baseline / best);
  /// 0 when the baseline was the best of the search.
  double confirmed_speedup = 0;
  /// The confirmation's timed calls, round by round (each after an untimed call of its program).
  std::vector<double> confirm_seconds, confirm_baseline_seconds;
  /// Paired rounds in the confirmation: 2 x rounds, fewer (at least kMinConfirmRounds) where the
  /// budget's remainder held fewer; 0 when there was none.
  int confirm_rounds = 0;
  /// Rounds in which the best was at least kMinGain faster, and how many the sign test needs
  /// (tune_confirm.h); the baseline's median in the confirmation over its quietest series'
  /// median (quietest_baseline_s, the smallest median of its calls beside any candidate).
  int confirm_wins = 0, confirm_wins_needed = 0;
  double confirm_baseline_drift = 0, quietest_baseline_s = 0;
  /// Why the search stopped before the last candidate ("" when it visited all): the budget,
  /// or --max-candidates.
  std::string cut_short;
  /// Why the best of the measured candidates was not kept ("" when it was).
  std::string kept_baseline_because;
  double elapsed_s = 0;
  /// The budget's inputs, logged so its rule can be checked from the log alone: what compiling
  /// and running the untuned program took (the first estimate of a candidate's cost), the
  /// confirmation's estimate (from the baseline's calls; 0 until the baseline is timed), and
  /// where the search stopped for the budget (seconds since the start; 0 when it did not).
  double reference_s = 0, confirm_estimate_s = 0, budget_stop_s = 0;
  unsigned default_threads = 0;  ///< OpenMP threads of candidates that set none
  int rounds = 0;                ///< interleaved calls per candidate
};

/// Runs the search. `untuned` is compiled as given (options and origin of `untuned`) to compute
/// the expected outputs; generated candidates (non-empty choices) whose script applies nowhere
/// on it are pruned first; each remaining candidate's steps are applied to a copy of its SDFG.
/// `args` are the program's arguments, `written` the arrays it writes (compared, and restored
/// before every call). The search stops where the next candidate (as costly as the costliest
/// compile so far, the untuned program's included) and the confirmation of the best would end after the
/// budget; every timed call follows an untimed call of the same program; the best is always timed again in
/// paired rounds (fewer, at least kMinConfirmRounds, where the budget's remainder holds fewer) and kept only
/// where judge_confirmation (tune_confirm.h) says so. Progress lines go to `log`. Throws weir::Error when the
/// untuned program or the baseline does not compile or run (nothing to compare against).
TuneOutcome tune_search(const runtime::CompilableProgram& untuned, const runtime::Backend& backend,
                        runtime::Arguments& args, const std::vector<std::string>& written,
                        const std::vector<TuneCandidate>& candidates, const TuneSettings& settings,
                        std::ostream& log);

/// A kept candidate must measure at least this much faster than the baseline, in the search and
/// when timed again: timings on a loaded machine scatter by a few percent.
inline constexpr double kMinGain = 1.03;

/// Calls per timed call: each timed call follows an untimed call of the same program from the
/// same restored inputs (docs/adr/0056-weir-tune.md, session 35).
inline constexpr int kCallsPerTimedCall = 2;

/// The SDFG of `candidate`: its steps applied (and recorded in the history) to a copy of
/// `untuned`, validated. Throws weir::Error (ScriptError naming the step) when a step does not
/// apply or the result is invalid.
std::shared_ptr<SDFG> apply_candidate(const SDFG& untuned, const TuneCandidate& candidate);

}  // namespace weir::cli
