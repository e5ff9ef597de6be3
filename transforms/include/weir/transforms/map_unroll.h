// MapUnroll: replace a map of constant, small range by one copy of its body per iteration.
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [MapEntry], at any depth. Result, as DaCe's MapUnroll (which only takes top-level
/// maps): the map disappears; its body is copied once per point of the range, each copy with the
/// parameters replaced by that point's values (tasklet code, memlets, ranges of nested maps,
/// nested SDFG symbol mappings) and connected to the map's surroundings directly. Transients the
/// SDFG uses only inside the body are copied per point (`t` -> `t_u0`, `t_u1`, ...), so the
/// copies share no scratch data; nested maps and nested SDFGs are copied with fresh map
/// properties and SDFGs. A map nested in a sequential loop nest becomes straight-line code the
/// C++ compiler schedules (and keeps in registers) as one block.
///
/// Option `max_copies` (default 16) bounds the number of copies. Refuses (can_apply says which):
/// dynamic range inputs; a range bound or step that is not an integer constant; an empty range;
/// more points than `max_copies`; a GPU kernel map (its body would leave the device).
class MapUnroll final : public PatternTransformation<MapEntry> {
 public:
  MapUnroll();

  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

}  // namespace weir::transforms
