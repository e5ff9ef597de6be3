// StateFusion: fuses two consecutive states joined by an unconditional edge without assignments.
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [first state, second state] in one region: the first has a single out-edge, to the
/// second, which has no other in-edge; the edge is unconditional without assignments. The
/// second state's dataflow is moved into the first. A container written in the first state and
/// read in the second (read-after-write) is ordered by merging the second state's access nodes
/// of it into the first state's single access node. A container read in the first state and
/// written in the second (write-after-read) fuses when that merge orders every write after every
/// read (each writing node has a merged node upstream that every reader of the first state is
/// upstream of: jacobi_1d's `B[1:-1] = f(A)` then `A[1:-1] = g(B)`). Refuses, with the container
/// named, on other write-after-read and on write-after-write conflicts and when the first state
/// has several access nodes of a container the second reads.
class StateFusion final : public PatternTransformation<SDFGState, SDFGState> {
 public:
  StateFusion();
  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

}  // namespace weir::transforms
