// MapTiling: strip-mines a map into an outer map over tiles and an inner map within a tile.
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [MapEntry]. Options: `tile_sizes` (one per dimension, the last repeated for further
/// dimensions; 1 leaves a dimension untiled; default 128) and `divides_evenly` (the tile sizes
/// divide the ranges, so no Min is needed; default false). For dimension i with range
/// `b:e` (inclusive e) and tile size t the outer map gets parameter `tile_i` over `b:e` step t and
/// the original (inner) map iterates `tile_i : Min(e, tile_i + t - 1)` (inclusive end). The
/// original entry stays the inner map. Refuses non-unit steps, non-positive tile sizes and maps
/// where every tile size is 1.
class MapTiling final : public PatternTransformation<MapEntry> {
 public:
  MapTiling();

  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

}  // namespace weir::transforms
