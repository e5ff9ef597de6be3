// `weir tune`'s second phase (docs/adr/0056-weir-tune.md, session 33): once every choice has been
// tried alone, the choices that won alone are combined, before the combinations the seed draws.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "tune_space.h"

namespace weir::cli {

/// One choice tried alone (a single candidate) and the speed-up it measured over the baseline.
struct SingleWin {
  std::pair<std::string, std::string> choice;  ///< knob, value: {"simd_lanes", "8"}
  double speedup = 0;
};

/// The combinations of the winning singles `wins` (each measured at least kMinGain faster than
/// the baseline; the caller filters), in the order they are to be tried, at most `limit`:
/// - per knob only its best value (two values of one knob do not combine);
/// - the knobs ranked by their speed-up, highest first (ties: by knob name, then value, so equal
///   measurements give equal orders);
/// - first the growing prefixes of that ranking (the best two, the best three, ... all), then the
///   pairs not yet among them in rank order (the best with the third, ...).
/// Each as tune_candidate makes it (choices in the space's knob order), phase "winners".
/// Fewer than two knobs: none.
std::vector<TuneCandidate> winner_combinations(const std::vector<SingleWin>& wins, std::size_t limit = 12);

/// `added` inserted into `candidates` before index `at` (at most the list's size), in their
/// order; a candidate from `at` on that makes the same set of choices as one of them is removed
/// (moved up, not tried twice). The others keep their order.
void insert_before(std::vector<TuneCandidate>& candidates, std::size_t at,
                   const std::vector<TuneCandidate>& added);

}  // namespace weir::cli
