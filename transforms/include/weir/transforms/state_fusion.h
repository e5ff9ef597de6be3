// StateFusion: fuses two consecutive states joined by an unconditional edge without assignments.
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [first state, second state] in one region: the first has a single out-edge, to the
/// second, which has no other in-edge; the edge is unconditional without assignments. The
/// second state's dataflow is moved into the first. A container written in the first state and
/// read in the second (read-after-write) is ordered by merging the second state's access nodes
/// of it into the first state's single access node. Refuses, with the container named, on
/// write-after-read and write-after-write conflicts and when the first state has several access
/// nodes of a container the second reads.
class StateFusion final : public PatternTransformation<SDFGState, SDFGState> {
 public:
  StateFusion();
  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

}  // namespace weir::transforms
