// RedundantArrayRemoval: removes a transient copied entirely into another array and used nowhere else.
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [AccessNode A, AccessNode B] joined by one edge that copies all of A onto all of B
/// (same shape and element type), or onto a part of B of A's shape with step 1 (jacobi_1d's
/// `B[1:-1] = ...`). A must be a transient with this single access node in the SDFG, read only
/// by this copy and not a view, and both must be on the same side of host and GPU memory (a
/// copy between them moves data); A's writers must not read B (an access node of B reached
/// upstream of A before a top-level access node of another container). Writers of A then write
/// B directly: every memlet path that ended in A is renamed to B (its indices moved by the
/// part's start), A's node and descriptor are removed. Into a part, A's writers must name A
/// alone, with one subset (no copy into A).
class RedundantArrayRemoval final : public PatternTransformation<AccessNode, AccessNode> {
 public:
  RedundantArrayRemoval();
  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
  /// The container of the removed access node (it may be removed from the SDFG).
  std::optional<std::vector<std::string>> data_footprint(
      const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
};

}  // namespace weir::transforms
