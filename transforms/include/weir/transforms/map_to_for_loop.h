// MapToForLoop: a map becomes sequential for loops (DaCe's MapToForLoop).
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [MapEntry] of a top-level map. The map scope is replaced by a nested SDFG node that
/// runs one LoopRegion per map parameter (`p = start; p <= end; p = p + step`, outermost first)
/// around a state holding the map's body: memlets from the map entry start at access nodes of
/// their container, memlets into the map exit end at one. Containers pass as whole arrays;
/// transients used only inside the scope move into the nested SDFG. Refuses maps inside other
/// maps, maps with dynamic range inputs, GPU kernels (a host loop cannot run them) and bodies
/// that access a container used elsewhere.
class MapToForLoop final : public PatternTransformation<MapEntry> {
 public:
  MapToForLoop();

  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

}  // namespace weir::transforms
