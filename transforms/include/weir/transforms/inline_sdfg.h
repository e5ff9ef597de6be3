// InlineSDFG: a nested SDFG with a single state is inlined into its parent state (DaCe's
// InlineSDFG).
#pragma once

#include "weir/transforms/pattern.h"
#include "weir/transforms/pipeline.h"

namespace weir::transforms {

/// Pattern: [NestedSDFG]. The nested SDFG must have exactly one block, a state. Its nodes move
/// into the parent state: an access node of a connector that only reads (writes) is replaced
/// by the edge entering (leaving) the nested SDFG node, with the inner memlets translated to the
/// outer container (offset by the outer subset's start; dimensions of size 1 the inner
/// container does not have are fixed to the outer index); an access node that is both read and
/// written becomes an access node of the outer container. Transients move to the parent
/// (renamed when their name is taken); symbols are substituted by the symbol mapping in
/// memlets, map ranges, tasklet code and deeper symbol mappings. Refuses ordering-only edges
/// at the node, connectors with several or write-conflict edges, outer subsets with steps,
/// reads of output-only connectors and inner maps whose parameters the mapping renames.
class InlineSDFG final : public PatternTransformation<NestedSDFGNode> {
 public:
  InlineSDFG();

  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

/// Pass "inline-sdfgs" (DaCe's InlineSDFGs, first in auto_optimize): InlineSDFG wherever it
/// applies, at every depth, to a fixed point: each round finds the candidates once and applies
/// them last first (inlining one removes its SDFG from the list of control-flow regions, which
/// leaves the positions of the earlier ones unchanged); a nested SDFG that becomes a single
/// state's child of an inlined one is inlined in the next round. Nested SDFGs of several blocks
/// (a loop, a branch) stay. Returns the number of nested SDFGs inlined.
class InlineSDFGs final : public Pass {
 public:
  InlineSDFGs();

 protected:
  std::size_t run_pass(SDFG& sdfg, Transaction& tx) override;
};

}  // namespace weir::transforms
