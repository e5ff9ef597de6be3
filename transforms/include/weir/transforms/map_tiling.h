// MapTiling: strip-mines a map into an outer map over tiles and an inner map within a tile.
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// The outer (tile) map's attribute that keeps MapTiling's `divides_evenly` promise for ranges
/// whose number of points is not known when tiling: a JSON list of {"map", "param", "range",
/// "points", "tile"} (and "step", the script step that tiled, where a script did; apply_script
/// adds it). The CPU code generator checks `points % tile == 0` when the state runs
/// (codegen/src/bounds_checks.cpp, the same name). `_meta_` so that DaCe skips it silently.
inline constexpr const char* kTilesDivideAttribute = "weir_tiles_divide";

/// Pattern: [MapEntry]. Options: `tile_sizes` (one per dimension, the last repeated for further
/// dimensions; 1 leaves a dimension untiled; default 128) and `divides_evenly` (the tile sizes
/// divide the ranges, so no Min is needed; default false). For dimension i with range
/// `b:e` (inclusive e) and tile size t the outer map gets parameter `tile_i` over `b:e` step t and
/// the original (inner) map iterates `tile_i : Min(e, tile_i + t - 1)` (inclusive end). The
/// original entry stays the inner map. Refuses non-unit steps, non-positive tile sizes and maps
/// where every tile size is 1, and a `tile_sizes` list longer than the map's parameters (the extra
/// sizes would be dropped silently; the reason names the map's parameters and the sizes given). With
/// `divides_evenly`, a range whose number of points is a known integer that the tile size does not divide is
/// refused; where the number depends on symbols, the promise is recorded on the outer map
/// (kTilesDivideAttribute) and the generated code checks it before the map runs, naming the map, the range,
/// the tile size and the script step.
class MapTiling final : public PatternTransformation<MapEntry> {
 public:
  MapTiling();

  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

}  // namespace weir::transforms
