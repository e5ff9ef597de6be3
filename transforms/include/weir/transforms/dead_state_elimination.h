// DeadStateElimination: removes blocks that cannot run (unreachable, or entered only over constant-false
// conditions).
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [block] of a region. Applies when the block is not reachable from the region's start
/// block once edges whose condition is the constant False are ignored; the block and its edges
/// are removed. Also applies to a reachable block with a constant-false in-edge: that edge is
/// removed.
class DeadStateElimination final : public PatternTransformation<ControlFlowBlock> {
 public:
  DeadStateElimination();
  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

}  // namespace weir::transforms
