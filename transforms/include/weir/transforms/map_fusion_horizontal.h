// MapFusionHorizontal: fuses two independent sibling maps over the same range that read a
// common access node into one map (DaCe's MapFusionHorizontal), so shared inputs are loaded
// once per point and one loop nest runs instead of two.
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [MapEntry of map B, MapEntry of map C] in the same scope of one state, both fed by
/// one access node (C is the one with the larger id, so each pair is one candidate).
///
/// Result: one map (B's entry, exit, parameters and label) whose body is B's and C's; C's
/// parameters are renamed to B's, C's connectors move to B's entry/exit (renamed where B
/// already uses the name).
///
/// Refuses when: a map has dynamic range inputs; dimensions, ranges (after renaming) or
/// schedules differ; the maps share no input access node; one writes a container the other
/// reads or writes; a path of the dataflow leads from one map to the other ("depend on each
/// other through the dataflow"); a nested map of C has a parameter renaming would shadow.
class MapFusionHorizontal final : public PatternTransformation<MapEntry, MapEntry> {
 public:
  MapFusionHorizontal();
  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

}  // namespace weir::transforms
