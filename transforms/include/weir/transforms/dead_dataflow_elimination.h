// DeadDataflowElimination: removes access nodes without edges and transient writes that are never read.
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [AccessNode]. Applies (a) to an access node without edges, or (b) to a sink access node
/// of a transient container that no state, interstate edge or nested SDFG symbol mapping of the
/// SDFG reads, written by tasklets without side effects (directly or through one map exit)
/// whose only outputs go to it; or (c) to such a node of a container states do read, when the
/// chain of states that always follows writes it without reading it and every read anywhere
/// lies inside one of those writes (the zero-fill of a local field the next calls overwrite;
/// docs/adr/0052); or (d) to such a node of a container every read of which, anywhere in the
/// SDFG, reads what its own state wrote before it (DaCe's frontend reuses one transient in
/// several loops, each writing it before reading it: vadv's `divided`; docs/adr/0053). The map
/// exit's writer may also be an access node of the container inside the map, fed by a tasklet or
/// a scalar (what fusion leaves). (b) to (d) remove the node, its writers and the memlet paths
/// that only fed them, including access nodes left without edges (a scalar feeding the node
/// inside the map keeps its other readers). The container's
/// descriptor is removed with its last access node.
class DeadDataflowElimination final : public PatternTransformation<AccessNode> {
 public:
  DeadDataflowElimination();
  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
  /// The container of the removed access node (it may be removed from the SDFG).
  std::optional<std::vector<std::string>> data_footprint(
      const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
};

}  // namespace weir::transforms
