// LoopToMap: a for loop whose iterations are independent becomes a map (DaCe's LoopToMap).
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [LoopRegion] (control flow). The loop must be a for loop `v = start; v < end (or
/// v <= end); v = v + step` with a positive integer step, not inverted, without break, continue
/// or return in its body, and `v` must not be used after the loop. Its body (any blocks) moves
/// into a nested SDFG called once per point of a new map `v = start:end:step` in a state that
/// replaces the loop; containers pass as whole arrays (memlets outside the map propagated).
/// Transients used only in the body and written before read in each state are privatized (they
/// become transients of the nested SDFG).
///
/// Refused with the reason when iterations may depend on each other: for every container the
/// body writes, each write and every other access must provably touch different elements in
/// different iterations (a dimension indexed `a*v + b` on both sides with the same a and b, or
/// with b differing by a non-multiple of a). `a[i] = a[i-1] + b[i]` is refused with "a is
/// written at i and read at i - 1"; accumulations (wcr) into one element are refused as well. Apply
/// InlineSDFG afterwards to flatten single-state bodies.
class LoopToMap final : public PatternTransformation<LoopRegion> {
 public:
  LoopToMap();

  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

}  // namespace weir::transforms
