// MapFission: split a map whose body holds independent pieces into consecutive maps.
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [MapEntry]. The map's body (everything between entry and exit) is cut into parts:
/// the weakly connected components of the body once the edges that read an intermediate
/// transient are cut (an access node, directly in the map, of a transient the SDFG uses
/// nowhere else, written inside the body). Result, as DaCe's MapFission: one map per part, with
/// the original parameters, range, schedule and attributes, in an order that respects the
/// parts' dependences; a transient that links two parts gets the map's range as leading
/// dimensions (a scalar `t` becomes `t[i - i0, j - j0]`) and an access node between the maps,
/// so the writer's map stores every iteration's value and the reader's map loads it.
///
/// Refuses (can_apply says which): dynamic range inputs; a body of one part (a single nested
/// SDFG is named: splitting its states is not supported); a datum that one part writes and
/// another part reads or writes (fission would run all iterations of one part before the other
/// and reorder those accesses); a linking transient read before it is written in an iteration
/// (a value carried across iterations: a write-after-read the split would break), written in
/// two parts, accessed by a nested SDFG, library node or copy, or used outside the map; parts
/// that depend on each other in a cycle; an expansion the range does not allow (a non-unit
/// step, or bounds that use parameters of enclosing maps) or a map inside a GPU kernel. The
/// expanded transient of a GPU_Device map lives in GPU_Global memory between the kernels.
class MapFission final : public PatternTransformation<MapEntry> {
 public:
  MapFission();

  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

}  // namespace weir::transforms
