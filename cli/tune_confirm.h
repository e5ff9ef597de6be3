// Whether `weir tune`'s confirmation shows the best candidate faster than `--auto cpu` beyond the
// noise it measured (docs/adr/0056-weir-tune.md, session 35): the confirmation times both
// programs in paired rounds (the baseline's call, then the candidate's, each after an untimed
// call of the same program), and a candidate is kept only when enough pairs show the gain and
// the baseline ran as fast as in its quietest series of the search.
#pragma once

#include <string>
#include <vector>

namespace weir::cli {

/// Significance of the confirmation's sign test: a candidate no faster than kMinGain wins a
/// pair with probability at most 1/2, so it passes with probability at most this.
inline constexpr double kConfirmAlpha = 0.05;

/// Fewest paired rounds in which the sign test can pass at kConfirmAlpha (5 wins of 5: 1/32).
inline constexpr int kMinConfirmRounds = 5;

/// Above this ratio of the baseline's median in the confirmation to its median in its quietest
/// series of the search, the machine was busier during the confirmation than while the search
/// ran at its quietest (a parallel baseline waiting for a preempted thread is slowed more than a
/// candidate with a dynamic schedule or fewer threads), and a ratio measured then need not hold
/// on a quiet machine.
inline constexpr double kMaxBaselineDrift = 1.15;

/// The smallest number of wins k of `rounds` pairs such that P(Binomial(rounds, 1/2) >= k) <=
/// `alpha`; rounds + 1 when no k is (fewer than kMinConfirmRounds at 0.05).
int wins_needed(int rounds, double alpha = kConfirmAlpha);

/// The confirmation's verdict on its paired rounds.
struct ConfirmVerdict {
  /// Per round, the baseline's seconds / the candidate's (the same index of both lists).
  std::vector<double> ratios;
  double median_ratio = 0;  ///< the median of `ratios`: the confirmed speed-up
  int wins = 0;             ///< rounds whose ratio is at least the gain asked for
  int needed = 0;           ///< wins_needed(rounds)
  /// The baseline's median in the confirmation / `quietest_s` (0 when that is unknown).
  double baseline_drift = 0;
  bool keep = false;
  /// Why the candidate is not kept, "" when it is: "faster by 3% or more in 9 of 18 paired
  /// rounds (13 needed to tell a gain from noise; median 1.02x)", or "the baseline ran 1.9x its
  /// quietest series' time in this series (more than 1.15x): the machine was busier, and a
  /// ratio measured then need not hold on a quiet one".
  std::string why;
};

/// Judges paired rounds: `baseline_s[i]` and `candidate_s[i]` timed one after the other (equal
/// lengths); `min_gain` is the speed-up asked for (kMinGain); `quietest_s` is the baseline's
/// smallest per-series median in the search (0: not checked). Kept when at least
/// wins_needed(rounds) ratios reach `min_gain` and the baseline's median is at most
/// kMaxBaselineDrift x `quietest_s`.
ConfirmVerdict judge_confirmation(const std::vector<double>& baseline_s,
                                  const std::vector<double>& candidate_s, double min_gain, double quietest_s);

}  // namespace weir::cli
