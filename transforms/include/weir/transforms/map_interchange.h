// MapInterchange: swaps two directly nested maps when their ranges are independent.
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [outer MapEntry, inner MapEntry] nested directly (as for MapCollapse). Result: the
/// parameters and ranges of the two maps are exchanged (schedules stay with their position);
/// edges between the two scopes get the memlets of the outer map's edges. Refuses when a range
/// of either map depends on a parameter of the other, or when nodes sit between the scopes.
class MapInterchange final : public PatternTransformation<MapEntry, MapEntry> {
 public:
  MapInterchange();

  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

}  // namespace weir::transforms
