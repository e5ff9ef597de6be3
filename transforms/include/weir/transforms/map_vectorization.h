// MapVectorization: strip-mine an innermost sequential map into SIMD lanes and a remainder.
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [MapEntry] of a one-dimensional, unit-step, sequential map whose body holds only
/// tasklets and access nodes (an innermost loop, as cpu-schedules leaves the K loop of a
/// stencil). Result: a map over vector origins (step `vector_width`) around a lane map of exactly
/// `vector_width` points, marked `weir_vectorize = "<width>"` (the C++ generator emits
/// `#pragma omp simd simdlen(<width>)` over a loop of constant trip count, so the compiler
/// emits full-width vector code without a peeled epilogue), then a remainder map over the last
/// `size mod width` points, a copy of the body marked `weir_vector_remainder` (with the map's
/// previous SIMD hint, if any). Transients used only in the body are copied for the remainder.
/// Everything is in the SDFG: `weir view` shows the lane and remainder maps and their attributes.
///
/// Refuses (can_apply says which): dynamic range inputs; more than one dimension; a non-unit
/// step; a schedule other than Sequential; a map, nested SDFG or library node in the body;
/// a write with conflict resolution (lanes would race); a lane or remainder map made by this
/// transformation.
class MapVectorization final : public PatternTransformation<MapEntry> {
 public:
  MapVectorization();

  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

/// The attribute (MapInfo::extra) of a remainder map MapVectorization made: the vector width.
inline constexpr const char* kVectorRemainderAttribute = "weir_vector_remainder";

}  // namespace weir::transforms
