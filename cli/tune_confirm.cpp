// The confirmation's verdict (tune_confirm.h).
#include "tune_confirm.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "tune_measure.h"

namespace weir::cli {

int wins_needed(int rounds, double alpha) {
  if (rounds <= 0) return 1;
  // P(X >= k) for X ~ Binomial(rounds, 1/2), from k = rounds down, in logs of the binomial
  // coefficients (exact enough for the few dozen rounds a confirmation has).
  const double total = std::ldexp(1.0, rounds);
  double tail = 0, coefficient = 1;  // C(rounds, rounds)
  for (int k = rounds; k >= 0; --k) {
    tail += coefficient / total;
    if (tail > alpha) return k + 1;
    coefficient = coefficient * k / (rounds - k + 1);  // C(rounds, k - 1)
  }
  return 0;
}

ConfirmVerdict judge_confirmation(const std::vector<double>& baseline_s,
                                  const std::vector<double>& candidate_s, double min_gain,
                                  double quietest_s) {
  if (baseline_s.size() != candidate_s.size())
    throw std::invalid_argument("judge_confirmation: the two series have different lengths");
  ConfirmVerdict v;
  for (std::size_t i = 0; i < baseline_s.size(); ++i) {
    const double r = candidate_s[i] > 0 ? baseline_s[i] / candidate_s[i] : 0;
    v.ratios.push_back(r);
    if (r >= min_gain) ++v.wins;
  }
  v.median_ratio = median(v.ratios);
  const int rounds = static_cast<int>(v.ratios.size());
  v.needed = wins_needed(rounds);
  if (quietest_s > 0) v.baseline_drift = median(baseline_s) / quietest_s;
  std::ostringstream why;
  why << std::fixed << std::setprecision(2);
  if (v.wins < v.needed) {
    why << "faster by " << std::lround((min_gain - 1) * 100) << "% or more in " << v.wins << " of " << rounds
        << " paired rounds (";
    if (v.needed > rounds)
      why << rounds << " rounds cannot tell a gain from noise; at least " << kMinConfirmRounds << " can";
    else
      why << v.needed << " needed to tell a gain from noise";
    why << "; median " << v.median_ratio << "x)";
  } else if (v.baseline_drift > kMaxBaselineDrift) {
    why << "the baseline took " << v.baseline_drift
        << "x its quietest series' time in this series (more than " << kMaxBaselineDrift
        << "x): the machine was busier, and a ratio measured then need not hold on a "
        << "quiet one";
  }
  v.why = why.str();
  v.keep = v.why.empty();
  return v;
}

}  // namespace weir::cli
