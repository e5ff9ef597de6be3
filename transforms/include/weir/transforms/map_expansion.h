// MapExpansion: splits a multi-dimensional map into nested one-dimensional maps.
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [MapEntry] with two or more parameters. Result: the entry keeps parameter 0 and a
/// chain of new maps, one per further parameter, is nested inside it (dimension order kept, so
/// ranges that depend on earlier parameters stay valid). Edges between the new scope nodes
/// carry the memlet of the edge entering the original map (a conservative over-approximation,
/// as weir has no memlet propagation yet). The new inner maps get the Sequential schedule
/// (DaCe's default for expanded maps); the outermost keeps the original schedule.
class MapExpansion final : public PatternTransformation<MapEntry> {
 public:
  MapExpansion();

  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

}  // namespace weir::transforms
