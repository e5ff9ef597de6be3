// MapFusion: fuses a producer map into the consumer map that reads its output point by point
// (DaCe's MapFusion, vertical / producer-consumer).
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [MapExit of map A, AccessNode of a transient T, MapEntry of map B] in one state and
/// one scope: A writes T, B reads T. Every access node between the two maps (all of them are
/// fused at once, so several intermediates between the same maps are fine) must be written
/// only by A and read by B at exactly the point A writes it in the same iteration: the ranges of
/// A and B are equal dimension by dimension once B's parameters are renamed to A's, A writes
/// one element of T per iteration with an index that tells iterations apart, and B's reads of T
/// equal that element after the renaming.
///
/// Result: one map (A's entry, exit, parameters and label) whose body is A's followed by B's.
/// Each intermediate T becomes a transient scalar (Register storage, named after T) inside the
/// fused scope, written by A's producer and read by B's consumers. T itself disappears when it
/// is used nowhere else in the SDFG; otherwise A keeps writing it out, copying the scalar
/// into an access node of T inside the scope that feeds A's exit.
///
/// Refuses (with the reason) when: the maps are in different scopes or have dynamic range
/// inputs; dimensions or ranges differ ("ranges differ in dimension 1 (0:N vs 1:N - 1)");
/// schedules differ (neither Default); a node other than such an access node lies between the
/// maps; an intermediate is not transient, is a view, is written by another node, is written
/// with write-conflict resolution, more than once or more than one element per iteration;
/// B reads it at other points (stencil offsets: "'T' is read at offsets (i + 1) that map 'A'
/// does not write at the same point (it writes T[i])"; fusion by recomputation is future work);
/// B writes a container A accesses at other points, or reads one A writes; B contains a nested
/// map whose parameter would shadow a renamed parameter.
class MapFusion final : public PatternTransformation<MapExit, AccessNode, MapEntry> {
 public:
  MapFusion();
  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

}  // namespace weir::transforms
