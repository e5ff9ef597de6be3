// MapCollapse: merges a map nested directly inside another into one multi-dimensional map.
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [outer MapEntry, inner MapEntry], the inner map's entry fed only by the outer entry and
/// its exit feeding only the outer exit (no nodes between the two scopes). Result: the outer map
/// with the inner map's parameters and ranges appended; the inner entry/exit are removed and
/// their edges reconnected to the outer ones. Refuses when something sits between the scopes,
/// when an inner range depends on an outer parameter, when parameter names clash, or when both
/// maps have a schedule other than Default and they differ (a parallel map around the
/// sequential map cpu-schedules split off its innermost dimension: collapsing them would undo
/// that decision, and a second auto-optimize would make it again).
class MapCollapse final : public PatternTransformation<MapEntry, MapEntry> {
 public:
  MapCollapse();

  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

}  // namespace weir::transforms
