// DeadStateElimination: remove blocks that can never run and edges that are never taken.
#include "weir/transforms/dead_state_elimination.h"

#include "weir/transforms/analysis.h"

namespace weir::transforms {

DeadStateElimination::DeadStateElimination()
    : PatternTransformation("DeadStateElimination",
                            "Remove blocks unreachable from the start block (constant-false edges count as "
                            "absent) and constant-false edges",
                            {}, Effects{.converges = true, .no_data = true, .matched_blocks_only = true}) {}

std::vector<std::vector<std::uint32_t>> DeadStateElimination::expand(const MatchContext&,
                                                                     std::uint32_t anchor) const {
  return {{anchor}};
}

MatchResult DeadStateElimination::can_apply(const MatchContext& ctx,
                                            const std::vector<std::uint32_t>& sub) const {
  const ControlFlowRegion& r = ctx.region;
  const ControlFlowBlock& b = r.block(sub[0]);
  if (ctx.cache.start_block(r) == kNoBlock)
    return refuse("region '" + r.label + "' has no unique start block");
  if (!ctx.cache.reachable_blocks(r).count(sub[0])) return MatchResult::success();
  for (const ControlFlowEdge* e : r.in_edges(sub[0]))
    if (is_constant_false(e->data.condition)) return MatchResult::success();
  return refuse("block '" + b.label + "' is reachable from the start block");
}

void DeadStateElimination::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  ControlFlowRegion& r = ctx.region;
  // Removing edges or blocks can leave several blocks without in-edges: pin the start.
  if (!r.has_explicit_start()) r.set_start_block(ctx.cache.start_block(r));
  if (!ctx.cache.reachable_blocks(r).count(sub[0])) {
    r.remove_block(sub[0]);
    return;
  }
  std::vector<EdgeId> dead;
  for (const ControlFlowEdge* e : r.in_edges(sub[0]))
    if (is_constant_false(e->data.condition)) dead.push_back(e->id);
  for (EdgeId e : dead) r.remove_edge(e);
}

}  // namespace weir::transforms
