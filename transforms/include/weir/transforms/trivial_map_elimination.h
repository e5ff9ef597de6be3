// TrivialMapElimination: removes map dimensions of size 1, substituting the parameter.
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [MapEntry] with at least one dimension whose range has exactly one element
/// (start == end). The parameter is replaced by the range start in memlets, nested map ranges,
/// tasklet code (Python identifiers) and nested SDFG symbol mappings of the scope. If no
/// dimension is left the map is removed and its edges are connected through; a one-point GPU
/// kernel (GPU_Device, GPU_Persistent, GPU_Default) is kept, as its body would run on the host.
class TrivialMapElimination final : public PatternTransformation<MapEntry> {
 public:
  TrivialMapElimination();
  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

}  // namespace weir::transforms
