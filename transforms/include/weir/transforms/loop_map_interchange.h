// LoopMapInterchange: moves the map over the non-loop dimensions out of a run of states and
// loops (a scan's flat form) so that each map point runs the whole run sequentially (its column
// form).
#pragma once

#include "weir/transforms/transformation.h"

namespace weir::transforms {

/// Control-flow pattern: a maximal chain of blocks of one region (states and LoopRegions,
/// linked by unconditional edges without assignments) in which every state is either empty or
/// one map over the same parameters and ranges holding only tasklets, and every memlet inside
/// those maps accesses its data at the map point in the map's dimensions (one data dimension
/// indexed by exactly each parameter, no other dimension using a parameter, the same dimensions
/// for every access of a container, no WCR). A chain needs at least one LoopRegion.
///
/// Result: one state holding that map around a nested SDFG that contains the chain with the
/// maps removed (tasklets connected to access nodes directly; memlets without the map
/// dimensions). Transients used only inside the chain become the nested SDFG's own, without
/// the map dimensions (a transient that keeps no dimension becomes a Scalar: a register for
/// scan carries); every other container is passed as the column at the map point (the outer
/// memlet keeps the whole range of the other dimensions). Free symbols of the nested SDFG map
/// to themselves. This is the loop/map interchange of ADR 0008 ("Scan operators"): a scan's
/// levels become a sequential loop inside a parallel map over columns, as in gt4py's DaCe
/// backend.
///
/// Where no such run has a loop, a run of columns over the parameters that every map of the
/// chain has over the same range (ADR 0052, 2026-12-06, session 28: a model's substeps over
/// cells, with maps over different level ranges): each map keeps its other parameters (a map
/// over the levels inside the column); the chain may also hold branches whose conditions read
/// only symbols, symbol assignments on its edges (symbols read before the run's first
/// assignment take their value from outside; a symbol it assigns must not be read after it),
/// and tasklets outside the maps that compute transient scalars from scalars (each column
/// computes its own). It needs some map to keep a parameter, and refuses a taken-out parameter
/// that indexes the contiguous dimension of a container with more dimensions (strided columns).
/// The maps' outer memlets become bounds-check records of the map over the columns
/// (checked_accesses.h), so a call past its output is refused with its own location and range.
class LoopMapInterchange final : public Transformation {
 public:
  LoopMapInterchange();
  std::string name() const override { return "LoopMapInterchange"; }
  std::string description() const override;
  MatchScope scope() const override { return MatchScope::ControlFlow; }

  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

}  // namespace weir::transforms
